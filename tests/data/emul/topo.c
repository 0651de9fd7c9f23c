/* Cartesian topologies and MPI_Comm_split_type (tests/cli/run_topo.sh). Rank 0 prints
 * MPI_Dims_create's answers; every rank checks its grid (coords <-> rank, shifts with and
 * without wrap, Cart_sub rows, a dup keeps the topology); then MPI_Comm_split_type. Output:
 * one line per rank of the shared communicator's size (in rank order, via gather). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, size, errs = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    int cases[][4] = {{6, 2, 0, 0}, {12, 3, 0, 0}, {16, 2, 0, 0}, {7, 2, 0, 0}, {12, 2, 3, 0}, {24, 3, 0, 2}, {1, 2, 0, 0}};
    for (int i = 0; i < 7; i++) {
      int d[3] = {cases[i][2], cases[i][3], 0};
      if (cases[i][1] == 3) { d[0] = 0; d[1] = 0; d[2] = cases[i][3]; }
      MPI_Dims_create(cases[i][0], cases[i][1], d);
      printf("dims(%d,%d) =", cases[i][0], cases[i][1]);
      for (int j = 0; j < cases[i][1]; j++) printf(" %d", d[j]);
      printf("\n");
    }
  }
  int dims[2] = {0, 0}, periods[2] = {1, 0}, coords[2], r, t;
  MPI_Dims_create(size, 2, dims);
  MPI_Comm cart, row, dup;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart);
  MPI_Topo_test(cart, &t);
  if (t != MPI_CART) errs++;
  MPI_Topo_test(MPI_COMM_WORLD, &t);
  if (t != MPI_UNDEFINED) errs++;
  int gd[2], gp[2], nd;
  MPI_Cartdim_get(cart, &nd);
  MPI_Cart_get(cart, 2, gd, gp, coords);
  if (nd != 2 || gd[0] != dims[0] || gd[1] != dims[1] || gp[0] != 1 || gp[1] != 0) errs++;
  if (coords[0] != rank / dims[1] || coords[1] != rank % dims[1]) errs++;   /* row-major */
  MPI_Cart_rank(cart, coords, &r);
  if (r != rank) errs++;
  for (int q = 0; q < size; q++) {
    int c[2];
    MPI_Cart_coords(cart, q, 2, c);
    MPI_Cart_rank(cart, c, &r);
    if (r != q) errs++;
  }
  int src, dst;
  MPI_Cart_shift(cart, 0, 1, &src, &dst);   /* periodic: wraps */
  if (dst != ((coords[0] + 1) % dims[0]) * dims[1] + coords[1]) errs++;
  if (src != ((coords[0] + dims[0] - 1) % dims[0]) * dims[1] + coords[1]) errs++;
  MPI_Cart_shift(cart, 1, 1, &src, &dst);   /* not periodic: MPI_PROC_NULL at the ends */
  if (dst != (coords[1] + 1 < dims[1] ? rank + 1 : MPI_PROC_NULL)) errs++;
  if (src != (coords[1] > 0 ? rank - 1 : MPI_PROC_NULL)) errs++;
  int keep[2] = {0, 1}, rs, rr;
  MPI_Cart_sub(cart, keep, &row);
  MPI_Comm_size(row, &rs);
  MPI_Comm_rank(row, &rr);
  if (rs != dims[1] || rr != coords[1]) errs++;
  MPI_Comm_dup(cart, &dup);
  MPI_Topo_test(dup, &t);
  if (t != MPI_CART) errs++;
  MPI_Comm_free(&dup);
  MPI_Comm_free(&row);
  MPI_Comm_free(&cart);

  MPI_Comm sh, hw;
  MPI_Info info;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -rank, MPI_INFO_NULL, &sh);
  int shs, shr;
  MPI_Comm_size(sh, &shs);
  MPI_Comm_rank(sh, &shr);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &hw);
  if (hw != MPI_COMM_NULL) errs++;
  MPI_Info_create(&info);
  MPI_Info_set(info, "mpi_hw_resource_type", "socket");
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &hw);
  int hs;
  MPI_Comm_size(hw, &hs);
  if (hs != shs) errs++;
  MPI_Comm_free(&hw);
  MPI_Info_free(&info);
  MPI_Comm_split_type(MPI_COMM_WORLD, rank % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &hw);
  if ((rank % 2) != (hw == MPI_COMM_NULL)) errs++;
  if (hw != MPI_COMM_NULL) MPI_Comm_free(&hw);
  int mine[3] = {rank, shs, shr}, *all = malloc(3 * (size_t)size * sizeof *all);
  MPI_Gather(mine, 3, MPI_INT, all, 3, MPI_INT, 0, MPI_COMM_WORLD);
  int tot;
  MPI_Reduce(&errs, &tot, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int i = 0; i < size; i++) printf("rank %d: shared size %d rank %d\n", all[3 * i], all[3 * i + 1], all[3 * i + 2]);
    printf(tot ? " Found %d errors\n" : " No Errors\n", tot);
  }
  free(all);
  MPI_Comm_free(&sh);
  MPI_Finalize();
  return 0;
}
