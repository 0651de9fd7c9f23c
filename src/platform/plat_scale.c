/* What-if scaling of a loaded platform, for sensitivity analyses: the platform is read-only
 * during a simulation, so this is done before one starts (psim sensitivity scales its own
 * copy in each forked variant). */
#include "plat_internal.h"

void plat_scale(platform *p, double speed, double bandwidth, double latency) {
  for (size_t i = 0; i < p->hosts.len; i++) p->hosts.data[i].speed *= speed;
  for (size_t i = 0; i < p->links.len; i++) {
    p->links.data[i].bandwidth *= bandwidth;
    p->links.data[i].latency *= latency;
  }
}
