/* Which alltoall messages carry data written since they last moved (psim run,
 * src/emul/rt/rt_coll.c send_at_rest): MPICH's alltoall sends the program's blocks as they lie.
 * Each round is a barrier, then one call timed by rank 1 (under --no-measure, the messages'
 * time alone), printed "round I SECONDS":
 *   alltoallv, rank 0 sends 1 MB to rank 1, rank 1 sends nothing:
 *     0: a buffer never sent                                   written
 *     1: the same bytes again                                  at rest
 *     2: one byte of it changed                                written
 *     3: the same again                                        at rest
 *     4: a strided vector of the same buffer (packed)          written
 *   alltoall of 1 MB blocks each way:
 *     5: a buffer never sent                                   written
 *     6: the same bytes again                                  at rest
 *     7: MPI_IN_PLACE (the MPI copies the buffer first)        written */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 1000000 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  char *s = malloc(4 * N), *d = malloc(4 * N);
  memset(s, 7, 4 * N);
  memset(d, 1, 4 * N);
  int sc[2] = {0, r == 0 ? N : 0}, sd[2] = {0, 0}, rc[2] = {r == 1 ? N : 0, 0}, rd[2] = {0, 0};
  MPI_Datatype vec;
  MPI_Type_vector(N / 8, 8, 16, MPI_BYTE, &vec);
  MPI_Type_commit(&vec);
  int one[2] = {0, r == 0 ? 1 : 0};
  for (int i = 0; i < 8; i++) {
    if (i == 2 && r == 0) s[N / 2]++;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (i < 4) MPI_Alltoallv(s, sc, sd, MPI_BYTE, d, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
    else if (i == 4) MPI_Alltoallv(s, one, sd, vec, d, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
    else if (i < 7) MPI_Alltoall(s + 2 * N, N, MPI_BYTE, d, N, MPI_BYTE, MPI_COMM_WORLD);
    else MPI_Alltoall(MPI_IN_PLACE, N, MPI_BYTE, d, N, MPI_BYTE, MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    if (r == 1) printf("round %d %.9f\n", i, t);
  }
  MPI_Type_free(&vec);
  free(s);
  free(d);
  MPI_Finalize();
  return 0;
}
