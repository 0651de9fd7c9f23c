! tests/cli/tracer.sh: calls.f90's calls through the `use mpi_f08` bindings, which call PMPI_
! functions for some of them (MPICH's for MPI_Init, MPI_Barrier, MPI_Finalize; Open MPI's for
! all): the tracer defines those too, so the trace is calls.f90's (fcalls.rank*.txt).
program calls_f08
  use mpi_f08
  implicit none
  integer :: r
  type(MPI_Status) :: st
  double precision :: a(8), b(8)
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, r)
  a = r
  if (r == 0) then
    call MPI_Send(a, 8, MPI_DOUBLE_PRECISION, 1, 9, MPI_COMM_WORLD)
  else
    call MPI_Recv(a, 8, MPI_DOUBLE_PRECISION, 0, 9, MPI_COMM_WORLD, st)
  end if
  call MPI_Allreduce(a, b, 8, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Finalize()
end program calls_f08
