/* rand(), srand(), random(), srandom(), drand48(), lrand48(), mrand48(), srand48() and seed48()
 * of a program loaded through psim's MPI-ABI libraries: each rank's own generator, as psimcc's
 * --wrap makes them for programs it links (src/emul/rt/rt_rand.c says why). As for sleep
 * (abi_sleep.c), the program's lookup scope has this library before libc: its calls bind here
 * and go to psim's __wrap_* functions, the C library's outside a rank; before psim_abi_init
 * has bound them, the C library's next definition is called. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <string.h>

#include "emul/abi/abi.h"

int rand(void);
void srand(unsigned int seed);
long random(void);
void srandom(unsigned int seed);
double drand48(void);
long lrand48(void);
long mrand48(void);
void srand48(long seed);
unsigned short *seed48(unsigned short seed[3]);

void *abi_psim_rand[ABI_NRAND];

/* psim's function i of abi_rand_names, or the C library's next definition */
static void *fn(int i) {
  return abi_psim_rand[i] ? abi_psim_rand[i] : dlsym(RTLD_NEXT, abi_rand_names[i] + 7 /* "__wrap_" */);
}
typedef int int_fn(void);
typedef long long_fn(void);
typedef double double_fn(void);
typedef void useed_fn(unsigned int);
typedef void lseed_fn(long);
typedef unsigned short *seed48_fn(unsigned short *);
#define F(i, type) type *f; void *p = fn(i); memcpy(&f, &p, sizeof f)

int rand(void) { F(0, int_fn); return f(); }
void srand(unsigned int seed) { F(1, useed_fn); f(seed); }
long random(void) { F(2, long_fn); return f(); }
void srandom(unsigned int seed) { F(3, useed_fn); f(seed); }
double drand48(void) { F(4, double_fn); return f(); }
long lrand48(void) { F(5, long_fn); return f(); }
long mrand48(void) { F(6, long_fn); return f(); }
void srand48(long seed) { F(7, lseed_fn); f(seed); }
unsigned short *seed48(unsigned short seed[3]) { F(8, seed48_fn); return f(seed); }

const char *const abi_rand_names[ABI_NRAND] = {"__wrap_rand", "__wrap_srand", "__wrap_random",
  "__wrap_srandom", "__wrap_drand48", "__wrap_lrand48", "__wrap_mrand48", "__wrap_srand48", "__wrap_seed48"};
