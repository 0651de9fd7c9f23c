/* A program that calls MPI only through a library (abi_libuser.c), as Debian's ScaLAPACK
 * testers do through libscalapack-mpich: built by plain cc, it has no NEEDED libmpich.so.12.
 * It overrides the library's lu_tune and sets its variable lu_block: the library must see
 * 100 * 7 + rank + 10. */
#include <stdio.h>

extern int lu_block;
void lu_init(int *argc, char ***argv);
int lu_ring(void);
int lu_rank(void);
int lu_seen(void);
void lu_end(void);

int lu_tune(void) { return 7; }

int main(int argc, char **argv) {
  lu_init(&argc, &argv);
  lu_block = lu_rank() + 10;
  int got = lu_ring();
  printf("rank %d got %d saw %d\n", lu_rank(), got, lu_seen());
  lu_end();
  return 0;
}
