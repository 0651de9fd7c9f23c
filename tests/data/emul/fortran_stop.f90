! Every rank ends with STOP, libgfortran's exit (the commonest end of a Fortran program): the
! run must end normally, every rank having printed its line. With the argument "error", rank 1
! ends with ERROR STOP 3 before MPI_Finalize instead: the run stops, naming rank 1 and exit(3).
program fortran_stop
  use mpi
  implicit none
  integer :: ierr, rank, total
  character(len=16) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, arg)
  if (arg == 'error' .and. rank == 1) error stop 3
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  print '(a,i0,a,i0)', 'rank ', rank, ' total ', total
  call MPI_Finalize(ierr)
  stop
end program fortran_stop
