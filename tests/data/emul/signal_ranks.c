/* Each rank sets a handler for SIGSEGV and later puts back SIG_DFL, as PETSc's copy in each
 * rank does (PetscPushSignalHandler, PetscPopSignalHandler): each must read back its own
 * previous action, and a crash (rank 1, with the argument "crash") must still be psim's report,
 * exit 4. Before, the ranks shared the process's handler: rank 1 read rank 0's, and the last
 * SIG_DFL made the crash kill psim without a word (exit 139). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void handler(int s) {
  (void)s;
  static const char m[] = "the program's handler ran\n";
  (void)!write(1, m, sizeof m - 1);
  _exit(9);
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sigaction(SIGSEGV, &sa, &old);                   /* push */
  int was_dfl = old.sa_handler == SIG_DFL;
  MPI_Barrier(MPI_COMM_WORLD);
  int was_mine = signal(SIGSEGV, SIG_DFL) == handler;   /* pop */
  printf("rank %d: %s\n", rank, was_dfl && was_mine ? "own handlers" : "shared handlers");
  fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1 && argc > 1) {
    volatile int *p = (volatile int *)0x28;
    *p = 1;
  }
  MPI_Finalize();
  return 0;
}
