/* A program that defines a function its MPI library calls (abi_libhook.c). */
#include <stdio.h>

void lh_init(int *argc, char ***argv);
int lh_sum(void);
void lh_end(void);

int hook_of_program(int rank) { return 10 * rank; }

int main(int argc, char **argv) {
  lh_init(&argc, &argv);
  printf("hook sum %d\n", lh_sum());
  lh_end();
  return 0;
}
