/* What differs between MPI ABIs, printed as values every MPI agrees on (tests/cli/run_ompi.sh):
 * built by Open MPI's mpicc, it checks psim's libmpi.so.40 (pointer handles, predefined objects
 * copied into the executable, Open MPI's constants); built by psimcc or MPICH's mpicc, it must
 * print the same lines. Run it on 4 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank;

static void line(const char *what, long v) {
  if (rank == 0) printf("%s %ld\n", what, v);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  line("world != self", MPI_COMM_WORLD != MPI_COMM_SELF);

  /* predefined handles given back: MPI_COMM_NULL, MPI_REQUEST_NULL, MPI_DATATYPE_NULL */
  MPI_Comm dup, half;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  int cmp;
  MPI_Comm_compare(dup, MPI_COMM_WORLD, &cmp);
  line("dup congruent", cmp == MPI_CONGRUENT);
  MPI_Comm_free(&dup);
  line("freed comm is MPI_COMM_NULL", dup == MPI_COMM_NULL);
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, rank, &half);
  int n0 = half == MPI_COMM_NULL, n;
  MPI_Allreduce(&n0, &n, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  line("ranks split out (MPI_COMM_NULL)", n);
  if (half != MPI_COMM_NULL) MPI_Comm_free(&half);
  MPI_Datatype vec;
  MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &vec);
  MPI_Type_commit(&vec);
  int ni, na, nd, comb;
  MPI_Type_get_envelope(vec, &ni, &na, &nd, &comb);
  line("vector combiner", comb == MPI_COMBINER_VECTOR);
  MPI_Type_free(&vec);
  line("freed type is MPI_DATATYPE_NULL", vec == MPI_DATATYPE_NULL);
  MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb);
  line("MPI_INT is named", comb == MPI_COMBINER_NAMED);

  /* a ring with a status and wildcard */
  int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
  MPI_Request rq;
  MPI_Status st;
  MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq);
  MPI_Send(&rank, 1, MPI_INT, right, 7, MPI_COMM_WORLD);
  MPI_Wait(&rq, &st);
  int cnt;
  MPI_Get_count(&st, MPI_INT, &cnt);
  int ok = got == left && st.MPI_SOURCE == left && st.MPI_TAG == 7 && cnt == 1 && rq == MPI_REQUEST_NULL, all;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  line("ring: source, tag, count, MPI_REQUEST_NULL", all);
  MPI_Sendrecv(&rank, 1, MPI_INT, MPI_PROC_NULL, 0, &got, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
  line("MPI_PROC_NULL's status source", st.MPI_SOURCE == MPI_PROC_NULL);

  /* MPI_IN_PLACE, MAXLOC on a pair type */
  int v[2] = {rank, rank * 10};
  MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  line("in place sum", v[0] + v[1]);
  struct { double d; int i; } in = {(double)(rank % 3), rank}, out;
  MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  line("maxloc index", out.i);
  int gathered[64];
  gathered[rank] = rank * rank;
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, gathered, 1, MPI_INT, MPI_COMM_WORLD);
  line("in place allgather", gathered[size - 1]);

  /* errors returned, in the MPI's own classes */
  MPI_File fh;
  int rc = MPI_File_open(MPI_COMM_SELF, "/nonexistent-dir/file", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), cls;
  MPI_Error_class(rc, &cls);
  line("missing file's class is MPI_ERR_NO_SUCH_FILE", cls == MPI_ERR_NO_SUCH_FILE);
  MPI_Error_class(MPI_ERR_TRUNCATE, &cls);
  line("MPI_ERR_TRUNCATE is a class", cls == MPI_ERR_TRUNCATE);

  /* attributes */
  int *ub, flag;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
  line("tag ub >= 32767", flag && *ub >= 32767);
  int *host;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &host, &flag);
  line("MPI_HOST is MPI_PROC_NULL", flag && *host == MPI_PROC_NULL);

  /* topologies */
  int dims[2] = {0, 0}, periods[2] = {1, 0}, kind;
  MPI_Dims_create(size, 2, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  MPI_Topo_test(cart, &kind);
  line("cart is MPI_CART", kind == MPI_CART);
  MPI_Topo_test(MPI_COMM_WORLD, &kind);
  line("world is MPI_UNDEFINED", kind == MPI_UNDEFINED);
  MPI_Comm_free(&cart);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int nsize;
  MPI_Comm_size(node, &nsize);
  line("MPI_COMM_TYPE_SHARED comm size >= 1", nsize >= 1);
  MPI_Comm_free(&node);

  /* one-sided: lock types and assertions */
  int *base;
  MPI_Win win;
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  *base = 0;
  MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  MPI_Barrier(MPI_COMM_WORLD);
  int one = 1;
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, MPI_MODE_NOCHECK & 0, win);
  MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_unlock(0, win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
  int seen = -1;
  MPI_Get(&seen, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
  MPI_Win_unlock(0, win);
  line("accumulated under locks", seen);
  int *model;
  MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
  line("window model is MPI_WIN_UNIFIED", flag && *model == MPI_WIN_UNIFIED);
  MPI_Win_free(&win);
  line("freed window is MPI_WIN_NULL", win == MPI_WIN_NULL);

  /* a subarray's order comes back */
  int sizes[2] = {4, 6}, sub[2] = {2, 3}, starts[2] = {1, 2}, ints[16];
  MPI_Aint addrs[1];
  MPI_Datatype sa, types[1];
  MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_FORTRAN, MPI_INT, &sa);
  MPI_Type_get_contents(sa, 16, 1, 1, ints, addrs, types);
  line("subarray order is MPI_ORDER_FORTRAN", ints[7] == MPI_ORDER_FORTRAN);
  line("subarray old type is MPI_INT", types[0] == MPI_INT);
  MPI_Type_free(&sa);

  /* handles as Fortran integers and back */
  MPI_Fint f = MPI_Comm_c2f(MPI_COMM_WORLD);
  line("c2f/f2c round trip", MPI_Comm_f2c(f) == MPI_COMM_WORLD);

  MPI_Finalize();
  return 0;
}
