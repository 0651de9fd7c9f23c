! MPI-IO from Fortran through MPICH's own Fortran bindings over psim's libmpich.so.12
! (tests/cli/run_abi.sh): each rank writes its block with write_at_all, reads the next rank's
! with read_at_all, MPI_Get_count on the status; opening a missing file returns
! MPI_ERR_NO_SUCH_FILE and MPI_FILE_NULL (a file's errors return by default).
program abi_fortran_io
  use mpi
  implicit none
  integer :: ierr, rank, np, fh, st(MPI_STATUS_SIZE), n, cls, buf(4), got(4)
  integer(kind=MPI_OFFSET_KIND) :: off
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call MPI_File_open(MPI_COMM_WORLD, 'abi_fortran_io.dat', MPI_MODE_CREATE + MPI_MODE_RDWR + &
                     MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, fh, ierr)
  buf = rank * 10 + (/ 0, 1, 2, 3 /)
  off = rank * 16
  call MPI_File_write_at_all(fh, off, buf, 4, MPI_INTEGER, st, ierr)
  call MPI_Get_count(st, MPI_INTEGER, n, ierr)
  off = mod(rank + 1, np) * 16
  call MPI_File_read_at_all(fh, off, got, 4, MPI_INTEGER, st, ierr)
  call MPI_File_close(fh, ierr)
  call MPI_File_open(MPI_COMM_WORLD, 'abi_fortran_io.missing', MPI_MODE_RDONLY, MPI_INFO_NULL, fh, ierr)
  call MPI_Error_class(ierr, cls, ierr)
  if (rank == 0) print '(a,i0,a,4i4,a,l1,a,l1)', 'count ', n, ' next ', got, ' missing ', &
     cls == MPI_ERR_NO_SUCH_FILE, ' null ', fh == MPI_FILE_NULL
  call MPI_Finalize(ierr)
end program
