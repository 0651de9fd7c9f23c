/* A local MPI call after MPI_Finalize (erroneous: MPICH and Open MPI abort the job): rank 0
 * frees a communicator after it, from main or (with the argument "handler") from an exit
 * handler main registered, which runs in the rank as it ends. With "type", "op" or "request",
 * it asks a datatype's size, frees an operation or a persistent request instead (calls that
 * name no communicator). With "info" it uses an info object, which MPI-4 allows after
 * MPI_Finalize (as before MPI_Init): that one must succeed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MPI_Comm dup;
static MPI_Request req;
static MPI_Op op;

static void sum(void *in, void *inout, int *len, MPI_Datatype *dt) { (void)in; (void)inout; (void)len; (void)dt; }

static void release(void) {
  MPI_Comm_free(&dup);
  printf("MPI_Comm_free returned\n");   /* never printed */
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Op_create(sum, 1, &op);
  int buf = 0;
  MPI_Recv_init(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &req);
  const char *what = argc > 1 ? argv[1] : "";
  int handler = !strcmp(what, "handler");
  if (rank == 0 && handler) atexit(release);
  MPI_Finalize();
  if (rank != 0 || handler) return 0;
  if (!strcmp(what, "type")) {
    int size;
    MPI_Type_size(MPI_INT, &size);
    printf("MPI_Type_size returned\n");
  } else if (!strcmp(what, "op")) {
    MPI_Op_free(&op);
    printf("MPI_Op_free returned\n");
  } else if (!strcmp(what, "info")) {
    MPI_Info info;
    char value[16];
    int flag;
    MPI_Info_create(&info);
    MPI_Info_set(info, "key", "v1");
    MPI_Info_get(info, "key", sizeof value - 1, value, &flag);
    MPI_Info_free(&info);
    printf("info after MPI_Finalize: %s\n", flag && !strcmp(value, "v1") ? "ok" : "wrong");
  } else if (!strcmp(what, "request")) {
    MPI_Request_free(&req);
    printf("MPI_Request_free returned\n");
  } else {
    release();
  }
  return 0;
}
