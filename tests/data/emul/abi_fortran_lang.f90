! Attributes across languages (with abi_fortran_lang.c): set from Fortran (an integer), read
! from C as a pointer to it, as MPICH gives it; set from C (a pointer), read from Fortran as the
! pointer's value; copied by MPI_COMM_DUP through a Fortran callback, the copy still Fortran's
! (a pointer to the new value from C). MPICH's f90/attr/fandcattrf90 and attrlangf90 crashed
! under psim run. Each rank prints T for each check, as real MPICH does.
program abi_fortran_lang
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, key, dup, okc, okd
  integer(kind=MPI_ADDRESS_KIND) :: val, extra, got, want
  logical :: flag, okf
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  extra = 0
  call MPI_COMM_CREATE_KEYVAL(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key, extra, ierr)
  val = 5555 + rank
  call MPI_COMM_SET_ATTR(MPI_COMM_WORLD, key, val, ierr)
  call cread(key, val, okc)
  call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
  call MPI_COMM_GET_ATTR(dup, key, got, flag, ierr)
  okd = 0
  if (flag .and. got == val) okd = 1
  call MPI_COMM_FREE(dup, ierr)
  want = 4096 * (rank + 1)
  call cset(key, want)
  call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, key, got, flag, ierr)
  okf = flag .and. got == want
  print '(a,i0,a,l1,a,l1,a,l1)', 'rank ', rank, ' c reads fortran ', okc == 1, &
        ' fortran reads c ', okf, ' dup ', okd == 1
  call MPI_COMM_FREE_KEYVAL(key, ierr)
  call MPI_FINALIZE(ierr)
end program abi_fortran_lang
