! Calls MPICH's Fortran tests needed that psim lacked (each stopped the run, exit 4): a
! persistent ready send, MPI_RSEND_INIT (f77/pt2pt/prsendf), MPI 4.0's MPI_INFO_CREATE_ENV and
! MPI_INFO_GET_STRING (f77/info/infocrenvf, infogetstrf). Each rank prints T for each check,
! as real MPICH does.
program abi_fortran_calls
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, np, req, rreq, it, x, y, info, buflen, nkeys
  character(len=64) :: value
  logical :: flag, ok_rsend, ok_info
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  ok_rsend = .true.
  call MPI_RECV_INIT(y, 1, MPI_INTEGER, mod(rank + np - 1, np), 4, MPI_COMM_WORLD, rreq, ierr)
  call MPI_RSEND_INIT(x, 1, MPI_INTEGER, mod(rank + 1, np), 4, MPI_COMM_WORLD, req, ierr)
  do it = 1, 3
    call MPI_START(rreq, ierr)
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)   ! every receive is posted: ready mode is correct
    x = 10 * it + rank
    call MPI_START(req, ierr)
    call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    call MPI_WAIT(rreq, MPI_STATUS_IGNORE, ierr)
    ok_rsend = ok_rsend .and. y == 10 * it + mod(rank + np - 1, np)
  end do
  call MPI_REQUEST_FREE(req, ierr)
  call MPI_REQUEST_FREE(rreq, ierr)
  call MPI_INFO_CREATE_ENV(info, ierr)
  call MPI_INFO_SET(info, 'psim', 'yes', ierr)
  call MPI_INFO_GET_NKEYS(info, nkeys, ierr)
  buflen = 0   ! asks the length (Fortran's: no terminating null), copies nothing
  call MPI_INFO_GET_STRING(info, 'psim', buflen, value, flag, ierr)
  ok_info = flag .and. buflen == 3 .and. nkeys >= 1
  buflen = len(value)
  call MPI_INFO_GET_STRING(info, 'psim', buflen, value, flag, ierr)
  ok_info = ok_info .and. flag .and. value(1:3) == 'yes' .and. buflen == 3
  call MPI_INFO_GET_STRING(info, 'none', buflen, value, flag, ierr)
  ok_info = ok_info .and. .not. flag
  call MPI_INFO_FREE(info, ierr)
  print '(a,i0,a,l1,a,l1)', 'rank ', rank, ' rsend_init ', ok_rsend, ' info ', ok_info
  call MPI_FINALIZE(ierr)
end program abi_fortran_calls
