! 'use mpi' (MPICH's Fortran 90 module) under psim run: allreduce, and a reduce with MPI_IN_PLACE at
! the root (the module's MPI_IN_PLACE must be recognized by each rank's libmpichfort).
program abi_usempi
  use mpi
  implicit none
  integer :: ierr, rank, np, x, s
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  x = rank + 1
  call MPI_Allreduce(x, s, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    call MPI_Reduce(MPI_IN_PLACE, x, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  else
    call MPI_Reduce(x, s, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  end if
  print '(a,i0,a,i0,a,i0)', 'use mpi: rank ', rank, ' sum ', s, ' x ', x
  call MPI_Finalize(ierr)
end program
