/* The names, sizes and reductions of Fortran's sized types (MPI_REAL4 ... MPI_INTEGER8,
 * MPI_REAL16, MPI_COMPLEX32), of C++'s (MPI_CXX_BOOL ...) and of MPI_C_COMPLEX, as MPICH gives them (tests/cli/run_abi.sh:
 * the same lines under real MPICH; tests/cli/run_type_names.sh). With "time": the simulated
 * times of an MPI_Allreduce on MPI_REAL8 and MPI_INTEGER4 against MPI_DOUBLE and MPI_INT. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void name(MPI_Datatype t) {
  char n[MPI_MAX_OBJECT_NAME];
  int len, size;
  MPI_Type_get_name(t, n, &len);
  MPI_Type_size(t, &size);
  printf(" %s:%d", n, size);
}

static double timed(MPI_Datatype t, void *in, void *out, int n) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  MPI_Allreduce(in, out, n, t, MPI_SUM, MPI_COMM_WORLD);
  return MPI_Wtime() - t0;
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double d[1000], dsum[1000];
  int i4[1000], isum[1000];
  for (int i = 0; i < 1000; i++) { d[i] = rank + i * 0.5; i4[i] = rank * i; }
  if (argc > 1 && !strcmp(argv[1], "time")) {
    double a = timed(MPI_REAL8, d, dsum, 1000), b = timed(MPI_DOUBLE, d, dsum, 1000);
    double c = timed(MPI_INTEGER4, i4, isum, 1000), e = timed(MPI_INT, i4, isum, 1000);
    if (rank == 0) printf("real8 %.9e double %.9e integer4 %.9e int %.9e\n", a, b, c, e);
    MPI_Finalize();
    return 0;
  }
  if (rank == 0) {
    printf("names:");
    MPI_Datatype ts[] = {MPI_REAL4, MPI_REAL8, MPI_REAL16, MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32,
                         MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8, MPI_C_COMPLEX,
                         MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_FLOAT, MPI_INT64_T, MPI_CXX_BOOL,
                         MPI_CXX_FLOAT_COMPLEX, MPI_CXX_DOUBLE_COMPLEX, MPI_CXX_LONG_DOUBLE_COMPLEX};
    for (size_t i = 0; i < sizeof ts / sizeof *ts; i++) name(ts[i]);
    printf("\ninteger16 null %d\n", MPI_INTEGER16 == MPI_DATATYPE_NULL);
  }
  /* reductions on the sized types: C's arithmetic */
  MPI_Allreduce(d, dsum, 1000, MPI_REAL8, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(i4, isum, 1000, MPI_INTEGER4, MPI_MAX, MPI_COMM_WORLD);
  long long l = rank + 1, lsum;
  MPI_Allreduce(&l, &lsum, 1, MPI_INTEGER8, MPI_PROD, MPI_COMM_WORLD);
  if (rank == 0) printf("sum real8 %g %g, max integer4 %d, prod integer8 %lld\n", dsum[0], dsum[999], isum[999], lsum);
  MPI_Finalize();
  return 0;
}
