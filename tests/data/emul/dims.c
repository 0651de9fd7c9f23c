/* MPI_Dims_create against MPICH 4.0.2's answers (its test/mpi/topo/baddims.h; MPI asks for
 * factors "as close to each other as possible"), and psim's own rule on free and fixed
 * dimensions: prints each decomposition, then " No Errors" or the mismatches. */
#include <mpi.h>
#include <stdio.h>

static const struct { int n, nd, want[6]; } cases[] = {
  {72, 2, {9, 8}},            {180, 2, {15, 12}},        {240, 2, {16, 15}},
  {1323, 2, {49, 27}},        {527592, 2, {741, 712}},   {267344, 2, {539, 496}},
  {140400, 3, {54, 52, 50}},  {270088, 3, {91, 56, 53}}, {577200, 4, {37, 26, 25, 24}},
  {991200, 4, {59, 28, 25, 24}}, {649296, 5, {167, 9, 9, 8, 6}}, {741312, 5, {18, 18, 16, 13, 11}},
  {848232, 6, {17, 11, 9, 9, 8, 7}}, {470448, 6, {11, 11, 9, 9, 8, 6}},
  {7, 3, {7, 1, 1}},          {1, 4, {1, 1, 1, 1}},      {1048576, 4, {32, 32, 32, 32}},
};

int main(int argc, char **argv) {
  int rank, errs = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      int d[6] = {0};
      MPI_Dims_create(cases[c].n, cases[c].nd, d);
      printf("%d in %d:", cases[c].n, cases[c].nd);
      for (int i = 0; i < cases[c].nd; i++) {
        printf(" %d", d[i]);
        if (d[i] != cases[c].want[i]) errs++;
      }
      printf("\n");
    }
    int f[3] = {0, 10, 0};   /* a fixed dimension: 720 / 10 = 72 over the two free ones */
    MPI_Dims_create(720, 3, f);
    printf("720 in 3, dims[1] = 10: %d %d %d\n", f[0], f[1], f[2]);
    if (f[0] != 9 || f[1] != 10 || f[2] != 8) errs++;
    if (errs) printf("%d mismatches\n", errs);
    else printf(" No Errors\n");
  }
  MPI_Finalize();
  return 0;
}
