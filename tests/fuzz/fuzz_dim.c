/* libFuzzer harness for the Dimemas reader (src/trace/trace_dim.c): the input follows the
 * format's first-line prefix, so that every input reaches the reader (see fuzz_foreign.h). */
#include "fuzz_foreign.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return fuzz_foreign("#DIMEMAS:", ".dim", data, size);
}
