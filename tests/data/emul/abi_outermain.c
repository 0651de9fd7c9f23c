/* A program that calls MPI through a library (abi_libouter.c) that calls it through another
 * (abi_libuser.c): built by plain cc, neither it nor its library needs libmpich.so.12. */
#include <stdio.h>

void outer_start(int *argc, char ***argv);
int outer_rank(void);
double outer_slept(void);
void outer_end(void);

int main(int argc, char **argv) {
  outer_start(&argc, &argv);
  printf("outer rank %d slept %.6f\n", outer_rank(), outer_slept());
  outer_end();
  return 0;
}
