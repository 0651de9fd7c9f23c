! A generalized request from Fortran: MPICH's Fortran bindings mark it (MPII_Grequest_set_lang_f77)
! so that its query, free and cancel functions are called as Fortran subroutines (arguments by
! reference, an error argument, a Fortran status); psim stopped the run there (MPICH's
! f77/pt2pt/greqf). The query function sets the count the wait's status gives (7 integers),
! extra_state counts the calls. Each rank prints T for each check, as real MPICH does.
module greq_cb
  implicit none
contains
  subroutine query_fn(extra, status, ierr)
    include 'mpif.h'
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: status(MPI_STATUS_SIZE), ierr
    call MPI_STATUS_SET_ELEMENTS(status, MPI_INTEGER, 7, ierr)
    call MPI_STATUS_SET_CANCELLED(status, .false., ierr)
    status(MPI_SOURCE) = MPI_UNDEFINED
    status(MPI_TAG) = MPI_UNDEFINED
    extra = extra + 1
    ierr = MPI_SUCCESS
  end subroutine query_fn
  subroutine free_fn(extra, ierr)
    include 'mpif.h'
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: ierr
    extra = extra + 10
    ierr = MPI_SUCCESS
  end subroutine free_fn
  subroutine cancel_fn(extra, complete, ierr)
    include 'mpif.h'
    integer(kind=MPI_ADDRESS_KIND) :: extra
    logical :: complete
    integer :: ierr
    extra = extra + 100
    ierr = MPI_SUCCESS
  end subroutine cancel_fn
end module greq_cb

program abi_fortran_greq
  use greq_cb
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, req, count
  integer :: status(MPI_STATUS_SIZE)
  integer(kind=MPI_ADDRESS_KIND) :: extra
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  extra = 0
  call MPI_GREQUEST_START(query_fn, free_fn, cancel_fn, extra, req, ierr)
  call MPI_GREQUEST_COMPLETE(req, ierr)
  call MPI_WAIT(req, status, ierr)
  call MPI_GET_COUNT(status, MPI_INTEGER, count, ierr)
  print '(a,i0,a,l1,a,l1,a,i0)', 'rank ', rank, ' count ', count == 7, ' request null ', &
        req == MPI_REQUEST_NULL, ' calls ', extra
  call MPI_FINALIZE(ierr)
end program abi_fortran_greq
