/* C half of abi_fortran_lang.f90: an attribute set from Fortran is read from C as MPICH gives
 * it, a pointer to the integer value (psim stored the integer itself, and MPICH's
 * f90/attr/fandcattrf90 and attrlangf90 crashed dereferencing it); one set from C is read
 * from Fortran as the pointer's value. */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* Reads keyval *key of MPI_COMM_WORLD from C: 1 if it points to *expected. */
void cread_(MPI_Fint *key, MPI_Aint *expected, MPI_Fint *ok) {
  void *v = NULL;
  int flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, *key, &v, &flag);
  *ok = flag && v && *(MPI_Aint *)v == *expected;
}

/* Sets keyval *key of MPI_COMM_WORLD from C to the pointer value *val. */
void cset_(MPI_Fint *key, MPI_Aint *val) {
  MPI_Comm_set_attr(MPI_COMM_WORLD, *key, (void *)(intptr_t)*val);
}
