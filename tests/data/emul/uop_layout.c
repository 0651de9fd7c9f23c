/* User reduction operations on non-contiguous datatypes (tests/cli/run_uop_layout.sh): the
 * function receives the data in its datatype's layout. vec = 3 ints at stride 2 (extent 5
 * ints); the operation adds elements 0, 2, 4 of each vec and leaves the holes alone, as a
 * function written for that layout does. Rank r contributes v[2k] = r + 10k: the sum over np
 * ranks at element 2k of each of the two vecs is np(np-1)/2 + 10k np (+ 100 in the second). */
#include <mpi.h>
#include <stdio.h>

static void vsum(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  int *a = in, *b = inout;
  for (int i = 0; i < *len; i++)
    for (int k = 0; k < 3; k++) b[5 * i + 2 * k] += a[5 * i + 2 * k];
}

int main(int argc, char **argv) {
  int rank, size, errs = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Datatype vec, vr;
  MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
  MPI_Type_create_resized(vec, 0, 5 * sizeof(int), &vr);
  MPI_Type_commit(&vr);
  MPI_Op op;
  MPI_Op_create(vsum, 1, &op);
  int s[10], r[10];
  for (int i = 0; i < 10; i++) { s[i] = -1000; r[i] = -7; }
  for (int e = 0; e < 2; e++)
    for (int k = 0; k < 3; k++) s[5 * e + 2 * k] = rank + 10 * k + 100 * e;
  MPI_Allreduce(s, r, 2, vr, op, MPI_COMM_WORLD);
  for (int e = 0; e < 2; e++)
    for (int j = 0; j < 5; j++) {
      int want = j % 2 ? -7 : size * (size - 1) / 2 + size * (10 * (j / 2) + 100 * e);
      if (r[5 * e + j] != want) { errs++; if (rank == 0) printf("allreduce r[%d] = %d, want %d\n", 5 * e + j, r[5 * e + j], want); }
    }
  int in[10], io[10];
  for (int i = 0; i < 10; i++) { in[i] = i; io[i] = 100 * i; }
  MPI_Reduce_local(in, io, 2, vr, op);   /* elements 0, 2, 4, 5, 7, 9 add; 1, 3, 6, 8 stay */
  for (int i = 0; i < 10; i++) {
    int d = i < 5 ? i % 2 == 0 : (i - 5) % 2 == 0;
    if (io[i] != 100 * i + (d ? i : 0)) { errs++; if (rank == 0) printf("reduce_local io[%d] = %d\n", i, io[i]); }
  }
  if (rank == 0) printf("r = %d %d %d %d %d | %d %d %d %d %d\n", r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9]);
  int tot;
  MPI_Reduce(&errs, &tot, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf(tot ? " Found %d errors\n" : " No Errors\n", tot);
  MPI_Op_free(&op);
  MPI_Type_free(&vr);
  MPI_Type_free(&vec);
  MPI_Finalize();
  return 0;
}
