/* MPI_Type_create_darray's layouts (tests/cli/run_darray.sh checks them against hand-computed
 * offsets): for each case and each process of its grid, the type's size and extent, then the
 * global indices it selects in its type map's order (MPI_Pack of the global array a[i] = i),
 * whether MPI_Type_get_envelope/get_contents give the constructor's arguments back, and whether
 * external32 packs and unpacks the same elements (the type map walked element by element). The
 * darray is a local computation: one rank builds every process's type. Plain MPI: the same
 * lines under real MPICH (tests/cli/run_abi.sh). */
#include <mpi.h>
#include <stdio.h>

#define MAXN 64

static void show(const char *name, int nprocs, int nd, const int *g, const int *dist, const int *darg,
                 const int *p, int order) {
  int a[MAXN], packed[MAXN], total = 1;
  for (int d = 0; d < nd; d++) total *= g[d];
  for (int i = 0; i < total; i++) a[i] = i;
  for (int r = 0; r < nprocs; r++) {
    MPI_Datatype t;
    MPI_Type_create_darray(nprocs, r, nd, g, dist, darg, p, order, MPI_INT, &t);
    MPI_Type_commit(&t);
    int size, pos = 0;
    MPI_Aint lb, ext;
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Pack(a, 1, t, packed, (int)sizeof packed, &pos, MPI_COMM_WORLD);
    int ni, na, nt, comb, ints[4 * 4 + 4], ok = 1;
    MPI_Aint addrs[1];
    MPI_Datatype types[1];
    MPI_Type_get_envelope(t, &ni, &na, &nt, &comb);
    ok = comb == MPI_COMBINER_DARRAY && ni == 4 * nd + 4 && na == 0 && nt == 1;
    if (ok) {
      MPI_Type_get_contents(t, ni, na, nt, ints, addrs, types);
      ok = ints[0] == nprocs && ints[1] == r && ints[2] == nd && ints[3 + 4 * nd] == order && types[0] == MPI_INT;
      for (int d = 0; d < nd; d++)
        ok &= ints[3 + d] == g[d] && ints[3 + nd + d] == dist[d] && ints[3 + 2 * nd + d] == darg[d] &&
              ints[3 + 3 * nd + d] == p[d];
    }
    /* the type map element by element: external32 and back */
    char ext32[MAXN * 4];
    int b[MAXN], xok = 1;
    MPI_Aint xpos = 0, upos = 0;
    for (int i = 0; i < total; i++) b[i] = -1;
    MPI_Pack_external("external32", a, 1, t, ext32, sizeof ext32, &xpos);
    MPI_Unpack_external("external32", ext32, xpos, &upos, b, 1, t);
    for (int i = 0, k = 0; i < total; i++) {
      int sel = k < pos / (int)sizeof(int) && packed[k] == i;
      xok &= b[i] == (sel ? i : -1);
      k += sel;
    }
    xok &= xpos == pos;
    printf("%s r%d: size %d lb %ld extent %ld contents %s external32 %s |", name, r, size, (long)lb,
           (long)ext, ok ? "ok" : "WRONG", xok ? "ok" : "WRONG");
    for (int i = 0; i < pos / (int)sizeof(int); i++) printf(" %d", packed[i]);
    printf("\n");
    MPI_Type_free(&t);
  }
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc > 1) {   /* mistakes psim reports: a grid of 4 for 3 processes, NONE over 2, blocks too small */
    int g[] = {10}, p[] = {argv[1][0] == 'g' ? 4 : 2}, dist[] = {argv[1][0] == 'n' ? MPI_DISTRIBUTE_NONE : MPI_DISTRIBUTE_BLOCK}, darg[] = {argv[1][0] == 'd' ? 4 : MPI_DISTRIBUTE_DFLT_DARG};
    MPI_Datatype t;
    MPI_Type_create_darray(argv[1][0] == 'g' ? 3 : 2, 0, 1, g, dist, darg, p, MPI_ORDER_C, MPI_INT, &t);
  }
  if (rank == 0 && argc == 1) {
    const int DF = MPI_DISTRIBUTE_DFLT_DARG, B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC,
              N = MPI_DISTRIBUTE_NONE;
    int g1[] = {10}, p1[] = {3}, db[] = {B}, dc[] = {C}, df[] = {DF}, two[] = {2};
    show("block", 3, 1, g1, db, df, p1, MPI_ORDER_C);
    show("cyclic", 3, 1, g1, dc, df, p1, MPI_ORDER_C);
    show("cyclic2", 3, 1, g1, dc, two, p1, MPI_ORDER_C);
    int g2[] = {4, 6}, d2[] = {B, C}, a2[] = {DF, 2}, p2[] = {2, 2};
    show("2d-c", 4, 2, g2, d2, a2, p2, MPI_ORDER_C);
    show("2d-fortran", 4, 2, g2, d2, a2, p2, MPI_ORDER_FORTRAN);
    int g3[] = {3, 4}, d3[] = {N, B}, a3[] = {DF, DF}, p3[] = {1, 2};
    show("none-block", 2, 2, g3, d3, a3, p3, MPI_ORDER_C);
    int g4[] = {5}, d4[] = {B}, a4[] = {4}, p4[] = {2};
    show("block4", 2, 1, g4, d4, a4, p4, MPI_ORDER_FORTRAN);
  }
  MPI_Finalize();
  return 0;
}
