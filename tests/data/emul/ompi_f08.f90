! A `use mpi_f08` program built by Open MPI's mpifort (libmpi_usempif08.so.40 over its mpif.h
! bindings over psim's libmpi.so.40; tests/cli/run_ompi.sh): 4 ranks print real Open MPI's line.
program f08
  use mpi_f08
  implicit none
  integer :: rank, size, token
  type(MPI_Status) :: st
  type(MPI_Request) :: req
  type(MPI_Comm) :: dup
  double precision :: x, s
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  call MPI_Irecv(token, 1, MPI_INTEGER, mod(rank + size - 1, size), 5, MPI_COMM_WORLD, req)
  call MPI_Send(rank, 1, MPI_INTEGER, mod(rank + 1, size), 5, MPI_COMM_WORLD)
  call MPI_Wait(req, st)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  x = rank + 1
  call MPI_Allreduce(x, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, dup)
  call MPI_Comm_free(dup)
  if (rank == 0) print '(a,i3,a,i3,a,f6.1,a,l2)', 'f08: got', token, ' from', st%MPI_SOURCE, ' sum', s, &
       ' freed null', dup == MPI_COMM_NULL
  call MPI_Finalize()
end program
