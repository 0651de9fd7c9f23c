/* A program that calls MPI only through a library (abi_libuser.c), as Debian's ScaLAPACK
 * testers do through libscalapack-mpich: built by plain cc, it has no NEEDED libmpich.so.12. */
#include <stdio.h>

void lu_init(int *argc, char ***argv);
int lu_ring(void);
int lu_rank(void);
void lu_end(void);

int main(int argc, char **argv) {
  lu_init(&argc, &argv);
  int got = lu_ring();
  printf("rank %d got %d\n", lu_rank(), got);
  lu_end();
  return 0;
}
