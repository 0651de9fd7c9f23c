/* psim calibrate: this machine's flop rate, the reference that turns measured CPU seconds into
 * flops. The loop is several independent multiply-add chains (so it measures throughput of
 * scalar floating point, like ordinary compiled loops, not latency of one chain). */
#include <time.h>

#include "emul/emu.h"

double emu_calibrate(double seconds) {
  volatile double sink;
  double a0 = 1.0, a1 = 1.1, a2 = 1.2, a3 = 1.3, a4 = 1.4, a5 = 1.5, a6 = 1.6, a7 = 1.7;
  const double m = 0.999999, c = 1e-7;
  double flops = 0, t0 = emu_cpu_now(), t = t0;
  long n = 1 << 16;
  while (t - t0 < seconds) {
    for (long i = 0; i < n; i++) {
      a0 = a0 * m + c; a1 = a1 * m + c; a2 = a2 * m + c; a3 = a3 * m + c;
      a4 = a4 * m + c; a5 = a5 * m + c; a6 = a6 * m + c; a7 = a7 * m + c;
    }
    flops += 16.0 * (double)n;
    t = emu_cpu_now();
  }
  sink = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
  (void)sink;
  return flops / (t - t0);
}
