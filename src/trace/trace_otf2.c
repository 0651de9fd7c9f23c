/* Score-P OTF2 archives, read with libotf2 (Debian's libotf2-trace-dev) when psim was built
 * with it (PSIM_HAVE_OTF2). Without it, an archive recognised as OTF2 is an error naming the
 * package, not a silent "unknown format". */
#include "trace_foreign.h"

#ifndef PSIM_HAVE_OTF2
int fx_otf2_read(const char *path, fx_trace *t, psim_err *err) {
  (void)t;
  return psim_errf(err, PSIM_EXIT_INPUT, path, 0,
                   "an OTF2 trace: this psim was built without libotf2 (install Debian's "
                   "libotf2-trace-dev, then rebuild psim)");
}
#endif
