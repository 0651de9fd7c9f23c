/* Inter-communicators under psim run (tests/cli/run_inter.sh): created between the two halves
 * of MPI_COMM_WORLD, queried, merged (both orders of `high`), freed; the merged communicator
 * works. argv[1] = "send": a send on the inter-communicator (an MPI error). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  int rank, np, errs = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  int left = rank < np / 2;
  MPI_Comm local, inter, merged, merged2;
  MPI_Comm_split(MPI_COMM_WORLD, left, rank, &local);
  int rleader = left ? np / 2 : 0;
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rleader, 99, &inter);
  int flag, lsize, rsize, lrank;
  MPI_Comm_test_inter(inter, &flag);
  MPI_Comm_size(inter, &lsize);
  MPI_Comm_rank(inter, &lrank);
  MPI_Comm_remote_size(inter, &rsize);
  int want_l = left ? np / 2 : np - np / 2;
  if (!flag || lsize != want_l || rsize != np - want_l) { errs++; printf("rank %d: inter %d size %d remote %d\n", rank, flag, lsize, rsize); }
  MPI_Group rg;
  MPI_Comm_remote_group(inter, &rg);
  int r0 = 0, w0;
  MPI_Group wg;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Group_translate_ranks(rg, 1, &r0, wg, &w0);
  if (w0 != rleader) { errs++; printf("rank %d: remote rank 0 is world %d\n", rank, w0); }
  MPI_Group_free(&rg);
  MPI_Group_free(&wg);
  if (argc > 1 && !strcmp(argv[1], "send")) MPI_Send(&rank, 1, MPI_INT, 0, 0, inter);
  /* left first: merged ranks = world ranks; right first (high on the left): rotated */
  MPI_Intercomm_merge(inter, !left, &merged);
  MPI_Intercomm_merge(inter, left, &merged2);
  int m, m2, sum;
  MPI_Comm_rank(merged, &m);
  MPI_Comm_rank(merged2, &m2);
  int want2 = left ? rank + (np - np / 2) : rank - np / 2;
  if (m != rank || m2 != want2) { errs++; printf("rank %d: merged rank %d, %d (want %d)\n", rank, m, m2, want2); }
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, merged2);
  if (sum != np * (np - 1) / 2) { errs++; printf("rank %d: sum %d\n", rank, sum); }
  MPI_Comm_free(&merged);
  MPI_Comm_free(&merged2);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  int tot;
  MPI_Allreduce(&errs, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && tot == 0) printf(" No Errors\n");
  MPI_Finalize();
  return 0;
}
