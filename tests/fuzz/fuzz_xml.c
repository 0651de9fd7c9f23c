/* libFuzzer harness for the platform XML loader (plat_load_xml_mem: same parser as
 * plat_load_xml without the file). Errors are expected; crashes, hangs, leaks and
 * out-of-bounds accesses are not. When a platform loads, its hosts and links are walked. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psim/platform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *warnings = NULL;
  psim_err err;
  psim_err_clear(&err);
  platform *p = plat_load_xml_mem("fuzz.xml", (const char *)data, size, &warnings, &err);
  free(warnings);
  if (!p) {
    if (!err.code) abort(); /* a failure must say why */
    return 0;
  }
  volatile double sink = 0;
  for (int i = 0; i < plat_nhosts(p); i++) {
    const plat_host *h = plat_host_at(p, i);
    sink += h->speed + h->cores + (double)strlen(h->name);
    if (plat_host_find(p, h->name) < 0) abort();
  }
  for (int i = 0; i < plat_nlinks(p); i++) {
    const plat_link *l = plat_link_at(p, i);
    sink += l->bandwidth + l->latency + (double)strlen(l->name);
  }
  (void)sink;
  plat_free(p);
  return 0;
}
