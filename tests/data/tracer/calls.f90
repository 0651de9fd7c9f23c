! tests/cli/tracer.sh: a Fortran program traced by libpsimtrace.so (MPICH's Fortran bindings
! call the C MPI_ functions, which the tracer defines).
program calls
  use mpi
  implicit none
  integer :: r, ierr, st(MPI_STATUS_SIZE)
  double precision :: a(8), b(8)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, r, ierr)
  a = r
  if (r == 0) then
    call MPI_Send(a, 8, MPI_DOUBLE_PRECISION, 1, 9, MPI_COMM_WORLD, ierr)
  else
    call MPI_Recv(a, 8, MPI_DOUBLE_PRECISION, 0, 9, MPI_COMM_WORLD, st, ierr)
  end if
  call MPI_Allreduce(a, b, 8, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program calls
