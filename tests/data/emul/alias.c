/* A collective given the same buffer to send and to receive (argv[1]: allreduce, allgather,
 * gather, gatherlate): erroneous in MPI (MPI_IN_PLACE says so), stopped by MPICH with MPI_ERR_BUFFER;
 * psim run must stop too, naming the call (exit 4). "inplace" is the correct form: it runs.
 * MPI_IN_PLACE at a rank other than the root (reduce_np, gather_np: as the send buffer;
 * scatter_np: as the receive buffer) is erroneous too (MPICH: MPI_ERR_BUFFER). */
#include <mpi.h>
#include <string.h>

int main(int argc, char **argv) {
  int buf[8] = {1, 2, 3, 4, 5, 6, 7, 8}, rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char *c = argc > 1 ? argv[1] : "";
  if (!strcmp(c, "allreduce")) MPI_Allreduce(buf, buf, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (!strcmp(c, "allgather")) MPI_Allgather(buf, 1, MPI_INT, buf, 1, MPI_INT, MPI_COMM_WORLD);
  if (!strcmp(c, "gather")) MPI_Gather(buf, 1, MPI_INT, buf, 1, MPI_INT, 0, MPI_COMM_WORLD);
  /* the root comes late: rank 1's contribution is already deposited when the run stops (it
   * leaked, which the sanitizer build reported) */
  if (!strcmp(c, "gatherlate")) {
    if (rank == 0) psim_sleep(1.0);
    MPI_Gather(buf, 1, MPI_INT, buf, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  if (!strcmp(c, "inplace")) MPI_Allreduce(MPI_IN_PLACE, buf, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (!strcmp(c, "reduce_np")) MPI_Reduce(MPI_IN_PLACE, buf, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (!strcmp(c, "gather_np")) MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, buf, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!strcmp(c, "scatter_np"))
    MPI_Scatter(buf, 1, MPI_INT, rank ? MPI_IN_PLACE : buf + 4, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
