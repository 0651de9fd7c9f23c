/* The same C program under SMPI (smpicc, smpirun) and psim run (psimcc; work.h), for
 * tests/cli/diff_smpi_run.sh: reductions whose algorithm SimGrid's default selector chooses on
 * the operator and the datatype (reduce__default: a non-commutative operator or a derived
 * datatype takes reduce__ompi_basic_linear), as MPICH's coll10, redscat2 and uoplong use them.
 * argv[1], when given, keeps one part:
 *   noncomm: MPI_Reduce (root 0 and the last rank), MPI_Allreduce and a regular
 *            MPI_Reduce_scatter_block with a non-commutative user operator;
 *   derived: MPI_Reduce of a contiguous derived datatype with a commutative user operator;
 *   derivedall: MPI_Allreduce of derived datatypes, which SimGrid's default gives to Open MPI's
 *            decision (allreduce__ompi: rdb, lr, rab_rdb or redbcast on the size, the
 *            communicator and whether the operator commutes), as MPICH's allred3 and allred4;
 *   comm:    the same calls with a commutative user operator on MPI_INT (the default branch).
 * Computation is declared between the calls, different per rank, so that arrival order
 * matters; each rank prints MPI_Wtime once, at the end. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "work.h"
static const char *only;
static int on(const char *what) { return !only || !strcmp(only, what); }
/* inout = in + inout, element by element (for MPI_INT, or the ints of the contiguous type) */
static void add(void *in, void *inout, int *len, MPI_Datatype *dt) {
  int k = 1;
  if (*dt != MPI_INT) MPI_Type_size(*dt, &k), k /= (int)sizeof(int);
  for (int i = 0; i < *len * k; i++) ((int *)inout)[i] += ((int *)in)[i];
}
int main(int argc, char **argv) {
  int r, n;
  MPI_Init(&argc, &argv);
  only = argc > 1 ? argv[1] : NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  enum { COUNT = 2000 };
  int *a = calloc((size_t)COUNT * n, sizeof(int)), *b = calloc((size_t)COUNT * n, sizeof(int));
  MPI_Op noncomm, comm;
  MPI_Op_create(add, 0, &noncomm);
  MPI_Op_create(add, 1, &comm);
  for (int part = 0; part < 2; part++) {
    MPI_Op op = part == 0 ? noncomm : comm;
    if (!on(part == 0 ? "noncomm" : "comm")) continue;
    WORK(1e5 * (r % 3));
    MPI_Reduce(a, b, COUNT, MPI_INT, op, 0, MPI_COMM_WORLD);
    WORK(1e5 * (r % 2));
    MPI_Reduce(a, b, COUNT, MPI_INT, op, n - 1, MPI_COMM_WORLD);
    WORK(2e5 * (r % 2));
    MPI_Allreduce(a, b, COUNT, MPI_INT, op, MPI_COMM_WORLD);
    WORK(1e5 * (r % 3));
    MPI_Reduce_scatter_block(a, b, COUNT / n, MPI_INT, op, MPI_COMM_WORLD);
  }
  if (on("derived")) {
    MPI_Datatype four;
    MPI_Type_contiguous(4, MPI_INT, &four);
    MPI_Type_commit(&four);
    WORK(1e5 * (r % 3));
    MPI_Reduce(a, b, COUNT / 4, four, comm, 0, MPI_COMM_WORLD);
    MPI_Type_free(&four);
  }
  if (on("derivedall")) {
    MPI_Datatype two, four;
    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_contiguous(4, MPI_INT, &four);
    MPI_Type_commit(&two);
    MPI_Type_commit(&four);
    WORK(1e5 * (r % 3));
    MPI_Allreduce(a, b, 500, four, noncomm, MPI_COMM_WORLD);   /* 8000 bytes */
    WORK(1e5 * (r % 2));
    MPI_Allreduce(a, b, 1, four, comm, MPI_COMM_WORLD);        /* 16 bytes */
    WORK(1e5 * (r % 3));
    MPI_Allreduce(a, b, 1000, four, comm, MPI_COMM_WORLD);     /* 16000 bytes */
    WORK(1e5 * (r % 2));
    MPI_Allreduce(a, b, 1, two, comm, MPI_COMM_WORLD);         /* 8 bytes */
    MPI_Allreduce(a, b, 2, two, comm, MPI_COMM_WORLD);         /* 16 bytes */
    MPI_Type_free(&two);
    MPI_Type_free(&four);
  }
  MPI_Op_free(&noncomm);
  MPI_Op_free(&comm);
  double t = MPI_Wtime();
  printf("rank %d wtime %.9f\n", r, t);
  free(a); free(b);
  MPI_Finalize();
  return 0;
}
