! 'use mpi_f08' (MPICH's Fortran 2008 bindings) under psim run: allreduce, and a sendrecv whose
! type(MPI_Status) gets its source.
program abi_f08
  use mpi_f08
  implicit none
  integer :: rank, np, x, s
  type(MPI_Status) :: st
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  x = rank + 1
  call MPI_Allreduce(x, s, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, mod(rank+1,np), 3, x, 1, MPI_INTEGER, mod(rank+np-1,np), 3, MPI_COMM_WORLD, st)
  print '(a,i0,a,i0,a,i0,a,i0)', 'f08: rank ', rank, ' sum ', s, ' got ', x, ' from ', st%MPI_SOURCE
  call MPI_Finalize()
end program
