! Attributes from Fortran (MPICH's f77/attr and f90/attr tests stopped at MPI_Comm_create_keyval,
! which psim did not have, then at MPII_Keyval_set_proxy, by which MPICH's Fortran bindings
! call a Fortran program's callbacks). A communicator keyval with Fortran copy and delete
! callbacks: MPI_COMM_DUP copies the value (plus 1, through the callback, which sees the
! communicator duplicated and its extra_state), MPI_COMM_FREE and MPI_COMM_DELETE_ATTR call the
! delete callback; MPI_COMM_DUP_FN and MPI_COMM_NULL_COPY_FN; a datatype keyval; and MPI-1's
! MPI_KEYVAL_CREATE / MPI_ATTR_PUT / MPI_ATTR_GET; MPI_LASTUSEDCODE. Each rank prints T for each check and how
! many times the delete callback ran, as real MPICH does.
module attr_cb
  implicit none
  integer :: deletes = 0, dupcomm = -1
contains
  subroutine copy_fn(oldcomm, keyval, extra, valin, valout, flag, ierr)
    include 'mpif.h'
    integer :: oldcomm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
    logical :: flag
    valout = valin + 1 + extra
    flag = oldcomm == dupcomm
    ierr = MPI_SUCCESS
  end subroutine copy_fn
  subroutine delete_fn(comm, keyval, val, extra, ierr)
    include 'mpif.h'
    integer :: comm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    deletes = deletes + 1
    ierr = MPI_SUCCESS
  end subroutine delete_fn
end module attr_cb

program abi_fortran_attr
  use attr_cb
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, key, dkey, nkey, tkey, okey, dup, dup2, t, t2, ival
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  logical :: flag, f2, ok_dup, ok_fn, ok_type, ok_old, ok_last
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  extra = 100
  call MPI_COMM_CREATE_KEYVAL(copy_fn, delete_fn, key, extra, ierr)
  val = 10 * rank
  call MPI_COMM_SET_ATTR(MPI_COMM_WORLD, key, val, ierr)
  dupcomm = MPI_COMM_WORLD
  call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
  call MPI_COMM_GET_ATTR(dup, key, val, flag, ierr)
  ok_dup = flag .and. val == 10 * rank + 101
  call MPI_COMM_FREE(dup, ierr)                  ! deletes 1
  call MPI_COMM_DELETE_ATTR(MPI_COMM_WORLD, key, ierr)   ! deletes 2
  call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, key, val, flag, ierr)
  ok_dup = ok_dup .and. .not. flag
  call MPI_COMM_FREE_KEYVAL(key, ierr)
  ok_dup = ok_dup .and. key == MPI_KEYVAL_INVALID
  ! the predefined callbacks: copied as is, not copied
  call MPI_COMM_CREATE_KEYVAL(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, dkey, extra, ierr)
  call MPI_COMM_CREATE_KEYVAL(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, nkey, extra, ierr)
  val = 7
  call MPI_COMM_SET_ATTR(MPI_COMM_WORLD, dkey, val, ierr)
  call MPI_COMM_SET_ATTR(MPI_COMM_WORLD, nkey, val, ierr)
  call MPI_COMM_DUP(MPI_COMM_WORLD, dup2, ierr)
  call MPI_COMM_GET_ATTR(dup2, dkey, val, flag, ierr)
  call MPI_COMM_GET_ATTR(dup2, nkey, extra, f2, ierr)
  ok_fn = flag .and. val == 7 .and. .not. f2
  call MPI_COMM_FREE(dup2, ierr)
  ! a datatype's
  call MPI_TYPE_CREATE_KEYVAL(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, tkey, extra, ierr)
  call MPI_TYPE_CONTIGUOUS(2, MPI_INTEGER, t, ierr)
  val = 42
  call MPI_TYPE_SET_ATTR(t, tkey, val, ierr)
  call MPI_TYPE_DUP(t, t2, ierr)
  call MPI_TYPE_GET_ATTR(t2, tkey, val, flag, ierr)
  ok_type = flag .and. val == 42
  call MPI_TYPE_FREE(t2, ierr)
  call MPI_TYPE_FREE(t, ierr)
  ! MPI-1's, with an INTEGER value
  call MPI_KEYVAL_CREATE(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, okey, 0, ierr)
  call MPI_ATTR_PUT(MPI_COMM_WORLD, okey, 1000 + rank, ierr)
  call MPI_ATTR_GET(MPI_COMM_WORLD, okey, ival, flag, ierr)
  ok_old = flag .and. ival == 1000 + rank
  ! predefined: no error code was added, MPI_LASTUSEDCODE is at least MPI_ERR_LASTCODE
  ! (f77/attr/baseattrf: psim did not set it, then gave psim's MPI_ERR_LASTCODE, 100)
  call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_LASTUSEDCODE, val, flag, ierr)
  ok_last = flag .and. val >= MPI_ERR_LASTCODE
  print '(a,i0,a,l1,a,l1,a,l1,a,l1,a,i0,a,l1)', 'rank ', rank, ' dup ', ok_dup, ' predefined ', &
        ok_fn, ' type ', ok_type, ' mpi1 ', ok_old, ' deletes ', deletes, ' lastcode ', ok_last
  call MPI_FINALIZE(ierr)
end program abi_fortran_attr
