/* libFuzzer harness for the Paraver reader (src/trace/trace_prv.c): the input follows the
 * format's first-line prefix, so that every input reaches the reader (see fuzz_foreign.h). */
#include "fuzz_foreign.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return fuzz_foreign("#Paraver (01/01/2020 at 00:00):1000_ns:", ".prv", data, size);
}
