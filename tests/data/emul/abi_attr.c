/* Attributes on communicators and datatypes, from C (psim's runtime: src/emul/rt/rt_attr.c;
 * for an MPICH binary, src/emul/abi/abi_attr.c). Built by psimcc and by MPICH's mpicc, it prints
 * the same lines under psim run as under real MPICH:
 * - a keyval whose copy callback sees the communicator being duplicated (for an MPICH binary,
 *   MPICH's handle: MPI_COMM_WORLD itself) and its extra_state, and whose delete callback runs
 *   on MPI_Comm_free, on MPI_Comm_delete_attr, on a new value, and for MPI_COMM_SELF at
 *   MPI_Finalize (then the rank prints its count);
 * - MPI_COMM_DUP_FN (MPICH's mpi.h names the library's MPIR_Dup_fn) and MPI_COMM_NULL_COPY_FN;
 * - attributes are each rank's own: rank r stores r, and reads r back;
 * - a datatype keyval copied by MPI_Type_dup, deleted by MPI_Type_free;
 * - a window keyval whose delete callback runs on a new value and at MPI_Win_free (psim did not
 *   call it: MPICH's f77/rma/winattrf, rma/fkeyvalwin), given the window's handle; rank r's
 *   attribute is its own (psim's windows kept one list for all ranks). */
#include <mpi.h>
#include <stdio.h>

static int deletes, copies_seen_world;

static int copy_fn(MPI_Comm comm, int key, void *extra, void *in, void *out, int *flag) {
  (void)key;
  copies_seen_world += comm == MPI_COMM_WORLD;
  *(long *)out = (long)in + *(int *)extra;
  *flag = 1;
  return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int key, void *val, void *extra) {
  (void)comm; (void)key; (void)val; (void)extra;
  deletes++;
  return MPI_SUCCESS;
}

static int self_delete(MPI_Comm comm, int key, void *val, void *extra) {
  (void)key; (void)val; (void)extra;
  printf("rank %d: MPI_COMM_SELF's attribute deleted at MPI_Finalize (self %d), %d deletes before\n",
         (int)(long)val, comm == MPI_COMM_SELF, deletes);
  return MPI_SUCCESS;
}

static MPI_Win the_win;
static int win_deletes;

static int win_delete(MPI_Win w, int key, void *val, void *extra) {
  (void)key; (void)val;
  win_deletes += w == the_win && extra == &the_win;
  return MPI_SUCCESS;
}

static int type_delete(MPI_Datatype t, int key, void *val, void *extra) {
  (void)t; (void)key; (void)val; (void)extra;
  deletes += 100;
  return MPI_SUCCESS;
}

int main(int argc, char **argv) {
  int rank, key, dkey, nkey, tkey, skey, extra = 1000, flag, f2;
  MPI_Comm dup, dup2;
  MPI_Datatype t, t2;
  void *v, *v2;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_create_keyval(copy_fn, delete_fn, &key, &extra);
  MPI_Comm_set_attr(MPI_COMM_WORLD, key, (void *)(long)rank);
  MPI_Comm_set_attr(MPI_COMM_WORLD, key, (void *)(long)(10 + rank));   /* deletes the old: 1 */
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_get_attr(dup, key, &v, &flag);
  int ok_dup = flag && (long)v == 1010 + rank && copies_seen_world == 1;
  MPI_Comm_free(&dup);                                                   /* 2 */
  MPI_Comm_delete_attr(MPI_COMM_WORLD, key);                             /* 3 */
  MPI_Comm_get_attr(MPI_COMM_WORLD, key, &v, &flag);
  ok_dup = ok_dup && !flag;
  MPI_Comm_free_keyval(&key);
  ok_dup = ok_dup && key == MPI_KEYVAL_INVALID;
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &dkey, NULL);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &nkey, NULL);
  MPI_Comm_set_attr(MPI_COMM_WORLD, dkey, &extra);
  MPI_Comm_set_attr(MPI_COMM_WORLD, nkey, &extra);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup2);
  MPI_Comm_get_attr(dup2, dkey, &v, &flag);
  MPI_Comm_get_attr(dup2, nkey, &v2, &f2);
  int ok_fn = flag && v == (void *)&extra && !f2;
  MPI_Comm_free(&dup2);
  MPI_Type_create_keyval(MPI_TYPE_DUP_FN, type_delete, &tkey, NULL);
  MPI_Type_contiguous(2, MPI_INT, &t);
  MPI_Type_set_attr(t, tkey, (void *)(long)(42 + rank));
  MPI_Type_dup(t, &t2);
  MPI_Type_get_attr(t2, tkey, &v, &flag);
  int ok_type = flag && (long)v == 42 + rank;
  MPI_Type_free(&t2);                                                    /* 103 */
  MPI_Type_free(&t);                                                     /* 203 */
  int wkey, buf[4];
  MPI_Win_create(buf, sizeof buf, sizeof *buf, MPI_INFO_NULL, MPI_COMM_WORLD, &the_win);
  MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_delete, &wkey, &the_win);
  MPI_Win_set_attr(the_win, wkey, (void *)(long)(1 + rank));
  MPI_Barrier(MPI_COMM_WORLD);   /* both ranks have set theirs */
  MPI_Win_get_attr(the_win, wkey, &v, &flag);
  int ok_win = flag && (long)v == 1 + rank;
  MPI_Win_set_attr(the_win, wkey, (void *)(long)(3 + rank));           /* window delete 1 */
  MPI_Win_free(&the_win);                                              /* window delete 2 */
  MPI_Win_free_keyval(&wkey);
  printf("rank %d: window attribute own %d, deletes %d\n", rank, ok_win, win_deletes);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &skey, NULL);
  MPI_Comm_set_attr(MPI_COMM_SELF, skey, (void *)(long)rank);
  printf("rank %d: dup %d predefined %d type %d deletes %d\n", rank, ok_dup, ok_fn, ok_type, deletes);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
