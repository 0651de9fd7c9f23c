/* A library that calls MPI only through another one (abi_libuser.c), as MUMPS's libdmumps
 * calls it through Open MPI's Fortran bindings, and keeps per-process state of its own: each
 * rank needs its own copy of it too, though it does not need libmpich.so.12 itself. Its calls
 * of the C library that psim takes over (sleep, gettimeofday) must be psim's, as the
 * program's are: a simulated second, on the simulated clock. */
#include <sys/time.h>
#include <unistd.h>

void lu_init(int *argc, char ***argv);
int lu_ring(void);
int lu_rank(void);
void lu_end(void);

static int mine = -1;   /* this process's rank, as the library keeps it */

void outer_start(int *argc, char ***argv) {
  lu_init(argc, argv);
  mine = lu_rank();
}

/* The rank it kept, read after every rank has started (a ring exchange): shared, every rank
 * read the last one's. */
int outer_rank(void) {
  (void)lu_ring();
  return mine;
}

/* Seconds gettimeofday saw pass over sleep(1). */
double outer_slept(void) {
  struct timeval a, b;
  gettimeofday(&a, NULL);
  sleep(1);
  gettimeofday(&b, NULL);
  return (double)(b.tv_sec - a.tv_sec) + 1e-6 * (double)(b.tv_usec - a.tv_usec);
}

void outer_end(void) { lu_end(); }
