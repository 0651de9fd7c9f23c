! A Fortran rank that crashes (rank 1 writes through a null pointer): psim run reports the rank
! and signal as for a C program, not libgfortran's backtrace handler (which the program
! installs at start-up and which ended the process with status 139).
program abi_fortran_crash
  implicit none
  include 'mpif.h'
  integer :: ierr, rank
  integer, pointer :: p
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  if (rank == 1) then
    nullify(p)
    p = 42
  end if
  call MPI_FINALIZE(ierr)
end program abi_fortran_crash
