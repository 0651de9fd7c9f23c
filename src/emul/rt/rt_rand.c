/* The C library's random numbers (rand, srand, random, srandom, drand48, lrand48, mrand48,
 * srand48, seed48) called by a rank draw from that rank's own generator. psimcc links programs
 * with -Wl,--wrap for each, and psim's MPI-ABI libraries define them for mpicc binaries
 * (abi_rand.c): the program's calls land here.
 *
 * Why: their state is the process's, and psim's ranks share one process. A program that seeds
 * each rank (srand(rank)) and draws in turn got numbers from one stream interleaved between the
 * ranks, not the stream each process draws from under real MPI: Debian's phyml-mpi drew other
 * bootstrap replicates than under mpirun. Each rank gets glibc's own generators, in their
 * reentrant forms on state of its own (random_r, drand48_r), so its numbers are those a process
 * of its own draws: unseeded as if seeded with 1 (glibc's initial table is initstate(1, ..., 128))
 * and a zeroed drand48 state, as a fresh process's. Outside a rank they are the C library's.
 * (initstate, setstate, lcong48 and the *_r forms keep the C library's behaviour.) */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* random_r, drand48_r */
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emul/rt/rt.h"

typedef struct rank_rand {
  struct random_data rd;
  char state[128];   /* TYPE_3, glibc's default */
  struct drand48_data d48;
} rank_rand;
_Static_assert(sizeof(rank_rand) <= sizeof(((rt_rank *)0)->rand_state), "rt_rank's rand_state holds a rank_rand");

/* the running rank's generators, made on first use (in its rt_rank: one run's) */
static rank_rand *mine(void) {
  rt_rank *me = rt_me();
  rank_rand *r = (rank_rand *)(void *)me->rand_state;
  if (!me->rand_ready) {
    memset(r, 0, sizeof *r);
    initstate_r(1, r->state, sizeof r->state, &r->rd);
    me->rand_ready = 1;
  }
  return r;
}

int __wrap_rand(void);
void __wrap_srand(unsigned int seed);
long __wrap_random(void);
void __wrap_srandom(unsigned int seed);
double __wrap_drand48(void);
long __wrap_lrand48(void);
long __wrap_mrand48(void);
void __wrap_srand48(long seed);
unsigned short *__wrap_seed48(unsigned short seed[3]);

long __wrap_random(void) {
  if (!rt_in_rank_code()) return random();
  int32_t v = 0;
  random_r(&mine()->rd, &v);
  return v;
}
int __wrap_rand(void) { return rt_in_rank_code() ? (int)__wrap_random() : rand(); }

void __wrap_srandom(unsigned int seed) {
  if (!rt_in_rank_code()) { srandom(seed); return; }
  srandom_r(seed, &mine()->rd);
}
void __wrap_srand(unsigned int seed) {
  if (!rt_in_rank_code()) { srand(seed); return; }
  __wrap_srandom(seed);
}

double __wrap_drand48(void) {
  if (!rt_in_rank_code()) return drand48();
  double v = 0;
  drand48_r(&mine()->d48, &v);
  return v;
}
long __wrap_lrand48(void) {
  if (!rt_in_rank_code()) return lrand48();
  long v = 0;
  lrand48_r(&mine()->d48, &v);
  return v;
}
long __wrap_mrand48(void) {
  if (!rt_in_rank_code()) return mrand48();
  long v = 0;
  mrand48_r(&mine()->d48, &v);
  return v;
}
void __wrap_srand48(long seed) {
  if (!rt_in_rank_code()) { srand48(seed); return; }
  srand48_r(seed, &mine()->d48);
}
unsigned short *__wrap_seed48(unsigned short seed[3]) {
  if (!rt_in_rank_code()) return seed48(seed);
  /* the previous state, in storage of the rank's own, as seed48's static buffer */
  rank_rand *r = mine();
  static unsigned short old[3];
  memcpy(old, r->d48.__x, sizeof old);
  seed48_r(seed, &r->d48);
  return old;
}
