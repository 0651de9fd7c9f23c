/* libFuzzer harness for the GOAL reader (src/trace/trace_goal.c): the input follows the
 * format's first-line prefix, so that every input reaches the reader (see fuzz_foreign.h). */
#include "fuzz_foreign.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return fuzz_foreign("num_ranks ", ".goal", data, size);
}
