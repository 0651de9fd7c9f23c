! Per-process state of the Fortran runtime under psim run: each rank opens unit 10 on a file of
! its own and writes a line per round, with a barrier between rounds (the other ranks write
! their unit 10 meanwhile). Each file must hold its own rank's three lines, as in separate
! processes. Before libgfortran was each rank's own, the ranks shared one table of units and
! every line after the first round went to the file opened last.
program units
  use mpi
  implicit none
  integer :: ierr, rank, i
  character(len=32) :: fname
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  write(fname, '(a,i0,a)') 'unit', rank, '.txt'
  open(unit=10, file=fname, status='replace')
  do i = 1, 3
    write(10, '(a,i0,a,i0)') 'rank ', rank, ' line ', i
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  close(10)
  call MPI_Finalize(ierr)
end program
