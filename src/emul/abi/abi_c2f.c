/* MPI_Comm_c2f, MPI_Comm_f2c and their kin for MPICH: a handle as a Fortran integer and back.
 * MPICH's Fortran handles are its C handles (MPI_Fint is int). (Open MPI's: abi_xlate_ompi.c.) */
#include "emul/abi/abi.h"

#ifndef PSIM_ABI_OMPI   /* Open MPI's: abi_xlate_ompi.c */
#define C2F(K, k)                                                                   \
  int MPI_##K##_c2f(int h);                                                         \
  int MPI_##K##_c2f(int h) { return h; }                                            \
  int MPI_##K##_f2c(int h);                                                         \
  int MPI_##K##_f2c(int h) { return h; }
#define ALIASES(K)                                                                                 \
  extern __typeof__(MPI_##K##_c2f) PMPI_##K##_c2f __attribute__((alias("MPI_" #K "_c2f")));        \
  extern __typeof__(MPI_##K##_f2c) PMPI_##K##_f2c __attribute__((alias("MPI_" #K "_f2c")));

C2F(Comm, comm) C2F(Type, dt) C2F(Group, group) C2F(Op, op) C2F(Request, req) C2F(Info, info)
C2F(Win, win) C2F(Errhandler, errh) C2F(Message, msg)
ALIASES(Comm) ALIASES(Type) ALIASES(Group) ALIASES(Op) ALIASES(Request) ALIASES(Info) ALIASES(Win)
ALIASES(Errhandler) ALIASES(Message)
#endif
