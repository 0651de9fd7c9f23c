/* MPI_Info and MPI_Alloc_mem under psim run (tests/cli/run_info.sh). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Info info, dup;
  char v[MPI_MAX_INFO_VAL + 1], k[MPI_MAX_INFO_KEY + 1];
  int flag, n, len;
  MPI_Init(&argc, &argv);
  MPI_Info_create(&info);
  MPI_Info_set(info, "no_locks", "true");
  MPI_Info_set(info, "alpha", "1");
  MPI_Info_set(info, "alpha", "22");            /* replaces */
  MPI_Info_get_nkeys(info, &n);
  printf("nkeys %d\n", n);
  for (int i = 0; i < n; i++) { MPI_Info_get_nthkey(info, i, k); MPI_Info_get(info, k, MPI_MAX_INFO_VAL, v, &flag); printf("key %d %s=%s\n", i, k, v); }
  MPI_Info_get_valuelen(info, "alpha", &len, &flag);
  printf("valuelen %d flag %d\n", len, flag);
  MPI_Info_get(info, "no_locks", 2, v, &flag);  /* truncated to 2 characters */
  printf("truncated '%s'\n", v);
  MPI_Info_get(info, "missing", MPI_MAX_INFO_VAL, v, &flag);
  printf("missing flag %d\n", flag);
  MPI_Info_dup(info, &dup);
  MPI_Info_delete(info, "no_locks");
  MPI_Info_get_nkeys(info, &n);
  int nd;
  MPI_Info_get_nkeys(dup, &nd);
  printf("after delete %d, dup %d\n", n, nd);
  MPI_Info_free(&info);
  MPI_Info_free(&dup);
  printf("freed %d %d\n", info == MPI_INFO_NULL, dup == MPI_INFO_NULL);
  MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL, v, &flag);
  printf("env maxprocs %s\n", flag ? v : "(none)");
  double *p;
  MPI_Alloc_mem(100 * sizeof(double), MPI_INFO_NULL, &p);
  for (int i = 0; i < 100; i++) p[i] = i;
  printf("alloc_mem %g\n", p[99]);
  MPI_Free_mem(p);
  MPI_Finalize();
  return 0;
}
