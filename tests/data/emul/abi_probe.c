/* MPICH's ABI through psim's libmpich.so.12 (tests/cli/run_abi.sh): built by MPICH's mpicc, run
 * at 4 ranks. Each line checks one translation: per-rank globals, wildcard receives and the
 * 5-int MPI_Status, MPI_PROC_NULL, request arrays, a derived type, a user reduction that sees
 * MPICH's datatype handle, MAXLOC pairs, MPI_IN_PLACE, communicator handles, attributes, error
 * classes, MPI_Type_match_size. Rank 0 prints. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int my_rank = -1;   /* each rank's copy of the program has its own */
static int op_saw_int;

static void prod(void *in, void *inout, int *len, MPI_Datatype *dt) {
  if (*dt == MPI_INT) op_saw_int = 1;
  for (int i = 0; i < *len; i++) ((int *)inout)[i] *= ((int *)in)[i];
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  my_rank = rank;
  MPI_Barrier(MPI_COMM_WORLD);
  int all[4];
  MPI_Gather(&my_rank, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("globals: %d %d %d %d\n", all[0], all[1], all[2], all[3]);

  /* wildcard receive: the status says who and what */
  if (rank == 1) { int v[3] = {1, 2, 3}; MPI_Send(v, 3, MPI_INT, 0, 7, MPI_COMM_WORLD); }
  if (rank == 0) {
    int v[8];
    MPI_Status st;
    MPI_Recv(v, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    int n, nb;
    MPI_Get_count(&st, MPI_INT, &n);
    MPI_Get_count(&st, MPI_BYTE, &nb);
    printf("status: source %d tag %d count %d bytes %d data %d %d %d\n", st.MPI_SOURCE,
           st.MPI_TAG, n, nb, v[0], v[1], v[2]);
    MPI_Recv(v, 8, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    printf("proc_null: source is MPI_PROC_NULL %d, tag is MPI_ANY_TAG %d, count %d\n",
           st.MPI_SOURCE == MPI_PROC_NULL, st.MPI_TAG == MPI_ANY_TAG, n);
  }

  /* request arrays: two receives completed by MPI_Waitall */
  if (rank >= 2) { int v = 100 + rank; MPI_Send(&v, 1, MPI_INT, 0, 20 + rank, MPI_COMM_WORLD); }
  if (rank == 0) {
    int v[2];
    MPI_Request rq[2];
    MPI_Status st[2];
    MPI_Irecv(&v[0], 1, MPI_INT, 2, 22, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(&v[1], 1, MPI_INT, MPI_ANY_SOURCE, 23, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, st);
    printf("waitall: %d from %d tag %d, %d from %d tag %d, requests null %d\n", v[0],
           st[0].MPI_SOURCE, st[0].MPI_TAG, v[1], st[1].MPI_SOURCE, st[1].MPI_TAG,
           rq[0] == MPI_REQUEST_NULL && rq[1] == MPI_REQUEST_NULL);
  }

  /* a derived type: column 1 of a 4x4 row-major matrix */
  MPI_Datatype col;
  MPI_Type_vector(4, 1, 4, MPI_DOUBLE, &col);
  MPI_Type_commit(&col);
  if (rank == 2) {
    double m[16];
    for (int i = 0; i < 16; i++) m[i] = i;
    MPI_Send(&m[1], 1, col, 0, 9, MPI_COMM_WORLD);
  }
  if (rank == 0) {
    double c[4];
    MPI_Recv(c, 4, MPI_DOUBLE, 2, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int sz;
    MPI_Type_size(col, &sz);
    printf("vector: %g %g %g %g (type size %d)\n", c[0], c[1], c[2], c[3], sz);
  }
  MPI_Type_free(&col);

  /* reductions */
  MPI_Op op;
  MPI_Op_create(prod, 1, &op);
  int x = rank + 1, p = 0;
  MPI_Allreduce(&x, &p, 1, MPI_INT, op, MPI_COMM_WORLD);
  MPI_Op_free(&op);
  struct { double v; int r; } in = {(double)((rank * 3) % 4), rank}, out;
  MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  int s = rank;
  MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("reduce: user op %d (saw MPI_INT %d, op null %d), maxloc %g at %d, in place sum %d\n", p,
           op_saw_int, op == MPI_OP_NULL, out.v, out.r, s);

  /* communicators */
  MPI_Comm half, dup;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  int hs, hr, c1, c2;
  MPI_Comm_size(half, &hs);
  MPI_Comm_rank(half, &hr);
  MPI_Comm_compare(half, MPI_COMM_WORLD, &c1);
  MPI_Comm_compare(dup, MPI_COMM_WORLD, &c2);
  MPI_Comm_free(&half);
  MPI_Comm_free(&dup);
  if (rank == 0)
    printf("comms: split size %d rank %d unequal %d, dup congruent %d, freed null %d\n", hs, hr,
           c1 == MPI_UNEQUAL, c2 == MPI_CONGRUENT, half == MPI_COMM_NULL && dup == MPI_COMM_NULL);

  /* attributes, error classes, MPI_Type_match_size */
  int *ub, flag, cls, tsz;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
  MPI_Error_class(MPI_ERR_TRUNCATE, &cls);
  MPI_Datatype real8 = MPI_DOUBLE;
#ifndef PSIM_MPI   /* psimcc's mpi.h does not declare it; psim's libmpich.so.12 has it */
  MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &real8);
#endif
  MPI_Type_size(real8, &tsz);
  char name[MPI_MAX_PROCESSOR_NAME];
  int len;
  MPI_Get_processor_name(name, &len);
  if (rank == 0)
    printf("misc: tag_ub set %d (>= 32767 %d), MPI_ERR_TRUNCATE class ok %d, match_size real 8 -> size %d, "
           "processor %s\n", flag, flag && *ub >= 32767, cls == MPI_ERR_TRUNCATE, tsz, name);
  MPI_Finalize();
  return 0;
}
