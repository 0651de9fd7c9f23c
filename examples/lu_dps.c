/* A DPS-like block LU factorization (Schaeli et al., "A simulator for adaptive parallel
 * applications", section 5; ../shared/papers/000), the "basic flow graph": iterations are
 * separated by a barrier, computations are declared (psim_compute), never run.
 *
 * The n x n matrix is cut into nb = n / r column blocks of width r; block j is stored by rank
 * j mod P (it allocates them: their memory is what moves when its host leaves). Iteration k
 * (k = 0 .. nb-1), with m = nb - 1 - k blocks right of the diagonal:
 *   (a) the owner of block k factors its panel ((nb-k) r x r, partial pivoting):
 *       (nb-k) r^3 - r^3/3 flops;
 *   (b) it broadcasts L11 (r x r) to every rank;
 *   (b') the owner of each block j > k solves the triangular system T12_j = L11^-1 A12_j
 *       (r^3 flops) and sends T12_j (r x r) to the owner of block k, which holds L21;
 *   (c, d) the owner of block k sends the m x m block multiplications L21_i . T12_j, each a
 *       message of two r x r blocks, round-robin to all ranks (DPS's multiplication
 *       threads); each multiplication is 2 r^3 flops;
 *   (e) its r x r result goes (nonblocking) to the owner of block j, which subtracts it
 *       (r^2 flops);
 *   then psim_iteration() marks the end of the iteration and a barrier separates it from the
 *   next (the basic flow graph).
 * The traffic is DPS's: for n = 2592, 0.35 GB in 352 messages with r = 324 (one column block
 * per node on 8 nodes), 1.2 GB with r = 108.
 *
 * Usage: lu_dps [N] [R]    (default 2592 324). Build: build/psimcc -O2 -o lu_dps examples/lu_dps.c
 * Run:   psim run --np 8 --no-measure --platform flat:8,... -- ./lu_dps 2592 324
 *        (examples/lu_dps.sh runs DPS's experiments). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { TAG_T12 = 1, TAG_MULT = 2, TAG_RESULT = 3 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  long n = argc > 1 ? atol(argv[1]) : 2592, r = argc > 2 ? atol(argv[2]) : 324;
  if (n < 1 || r < 1 || n % r) {
    if (rank == 0) fprintf(stderr, "lu_dps: N must be a positive multiple of R (got %ld, %ld)\n", n, r);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int nb = (int)(n / r);
  const double rr = (double)r * (double)r, r3 = rr * (double)r;
  /* the column blocks this rank stores: allocated (their pages are never touched) so that
   * the rank's heap, what a move costs, is their size */
  int mine = 0;
  for (int j = rank; j < nb; j += P) mine++;
  char *store = malloc((size_t)mine * (size_t)n * (size_t)r * sizeof(double) + 1);
  static char *volatile keep;   /* an unused block could be optimised away with its malloc */
  keep = store;
  /* message buffers: one block, two blocks (a multiplication request) */
  double *blk = calloc((size_t)rr, sizeof(double)), *two = calloc(2 * (size_t)rr, sizeof(double));
  int block_bytes = (int)(rr * sizeof(double));
  for (int k = 0; k < nb; k++) {
    int owner = k % P, m = nb - 1 - k;
    if (rank == owner) psim_compute((double)(nb - k) * r3 - r3 / 3);                     /* (a) */
    if (m == 0) { psim_iteration(); break; }
    MPI_Bcast(blk, (int)rr, MPI_DOUBLE, owner, MPI_COMM_WORLD);                           /* (b) */
    for (int j = k + 1; j < nb; j++) {                                                    /* (b') */
      if (j % P != rank) continue;
      psim_compute(r3);
      if (rank != owner) MPI_Send(blk, (int)rr, MPI_DOUBLE, owner, TAG_T12, MPI_COMM_WORLD);
    }
    if (rank == owner) {
      for (int j = k + 1; j < nb; j++)
        if (j % P != rank) MPI_Recv(blk, (int)rr, MPI_DOUBLE, j % P, TAG_T12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    /* (c, d): multiplication q = (i, j) goes to rank q mod P; the owner sends them all
     * (nonblocking: DPS streams them out), every rank computes its share */
    int nq = m * m, nres = 0;
    MPI_Request *req = NULL, *res = malloc((size_t)nq * sizeof *res);
    if (rank == owner) {
      req = malloc((size_t)nq * sizeof *req);
      for (int q = 0; q < nq; q++) {
        if (q % P == rank) { req[q] = MPI_REQUEST_NULL; continue; }
        MPI_Isend(two, (int)(2 * rr), MPI_DOUBLE, q % P, TAG_MULT, MPI_COMM_WORLD, &req[q]);
      }
    }
    for (int q = rank; q < nq; q += P) {
      if (rank != owner)
        MPI_Recv(two, (int)(2 * rr), MPI_DOUBLE, owner, TAG_MULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      psim_compute(2 * r3);
      int j = k + 1 + q % m;                                                              /* (e) */
      if (j % P != rank) MPI_Isend(blk, (int)rr, MPI_DOUBLE, j % P, TAG_RESULT, MPI_COMM_WORLD, &res[nres++]);
      else psim_compute(rr);
    }
    /* results for the blocks this rank stores, from the other ranks */
    for (int q = 0; q < nq; q++) {
      int j = k + 1 + q % m;
      if (j % P != rank || q % P == rank) continue;
      MPI_Recv(blk, (int)rr, MPI_DOUBLE, q % P, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      psim_compute(rr);
    }
    if (req) { MPI_Waitall(nq, req, MPI_STATUSES_IGNORE); free(req); }
    MPI_Waitall(nres, res, MPI_STATUSES_IGNORE);
    free(res);
    psim_iteration();
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (rank == 0)
    printf("lu_dps: %ldx%ld, r=%ld (%d column blocks) on %d ranks: %d iterations, %d bytes per block\n",
           n, n, r, nb, P, nb, block_bytes);
  free(store);
  free(blk);
  free(two);
  MPI_Finalize();
  return 0;
}
