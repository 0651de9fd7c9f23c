/* MPI_Get_elements on a received message that fills a derived datatype of mixed basic types
 * only in part: k structs {double, char} received as a contiguous of 4 of them hold 2k basic
 * elements, while MPI_Get_count is MPI_UNDEFINED unless k is a multiple of 4. psim said
 * MPI_UNDEFINED for every partial element (it counted whole elements of a mixed type only):
 * MPICH's f90/datatype/get_elem_u; and bytes that end inside a basic element have no count. Built by psimcc and by MPICH's mpicc (run_abi.sh); prints
 * what real MPICH prints. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, blk[2] = {1, 1}, ok = 1;
  MPI_Aint disp[2] = {0, 8};
  MPI_Datatype types[2] = {MPI_DOUBLE, MPI_CHAR}, t1, t4;
  char buf[16 * 16];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Type_create_struct(2, blk, disp, types, &t1);
  MPI_Type_commit(&t1);
  MPI_Type_contiguous(4, t1, &t4);
  MPI_Type_commit(&t4);
  for (int k = 1; k <= 9; k++) {
    if (rank == 0) MPI_Send(buf, k, t1, 1, 0, MPI_COMM_WORLD);
    else if (rank == 1) {
      MPI_Status st;
      int n, c;
      MPI_Recv(buf, 3, t4, 0, 0, MPI_COMM_WORLD, &st);
      MPI_Get_elements(&st, t4, &n);
      MPI_Get_count(&st, t4, &c);
      if (n != 2 * k || c != (k % 4 ? MPI_UNDEFINED : k / 4)) {
        printf("k %d: %d elements, count %d\n", k, n, c);
        ok = 0;
      }
      /* 9k bytes as MPI_INT: a part of an int has no element count (psim truncated) */
      MPI_Get_elements(&st, MPI_INT, &n);
      if (n != ((k * 9) % 4 ? MPI_UNDEFINED : k * 9 / 4)) { printf("k %d: %d ints\n", k, n); ok = 0; }
    }
  }
  if (rank == 1) printf("get_elements ok %d\n", ok);
  MPI_Type_free(&t4);
  MPI_Type_free(&t1);
  MPI_Finalize();
  return 0;
}
