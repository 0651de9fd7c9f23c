! An mpif.h/`use mpi` program built by Open MPI's mpifort (libmpi_mpifh.so.40, Open MPI's
! Fortran bindings over psim's libmpi.so.40; tests/cli/run_ompi.sh): handles as Open MPI's
! Fortran integers, a status, MPI_IN_PLACE, attributes read and set; and what the bindings read
! of Open MPI's objects themselves: a reduction subroutine (the op's Fortran mark), a persistent
! request (its Fortran handle after MPI_WAIT), MPI_ALLTOALLW (the communicator's group size);
! a keyval and an error handler with subroutines of the program's.
! Run it on 4 ranks: it prints the lines real Open MPI prints.
program ompi_fortran
  use mpi
  implicit none
  integer :: ierr, rank, size, left, right, token, st(MPI_STATUS_SIZE), cnt, req, dup, key, hostp
  integer :: op, preq, i, got, ival, isum, st2(MPI_STATUS_SIZE)
  integer :: scnt(4), sdsp(4), stype(4), rcnt(4), rdsp(4), rtype(4), sbuf(4), rbuf(4)
  integer :: key2, dup2, eh, dup3
  integer(kind=MPI_ADDRESS_KIND) :: v2
  logical :: flag2
  external :: addsq, mycopy, myerr
  integer :: errs_seen
  common /seen/ errs_seen
  integer(kind=MPI_ADDRESS_KIND) :: v, ub
  double precision :: x, s
  logical :: flag
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  right = mod(rank + 1, size)
  left = mod(rank + size - 1, size)
  call MPI_Irecv(token, 1, MPI_INTEGER, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, req, ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, right, 5, MPI_COMM_WORLD, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_Get_count(st, MPI_INTEGER, cnt, ierr)
  x = rank + 1
  call MPI_Allreduce(x, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, ub, flag, ierr)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, v, flag, ierr)
  hostp = 0
  if (v == MPI_PROC_NULL) hostp = 1
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, key, 0_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_set_attr(dup, key, 42_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_get_attr(dup, key, v, flag, ierr)
  ! a reduction subroutine (a sum that checks it is given MPI_INTEGER's Fortran handle)
  call MPI_Op_create(addsq, .true., op, ierr)
  ival = rank + 1
  call MPI_Allreduce(ival, isum, 1, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  call MPI_Op_free(op, ierr)
  ! a persistent send, started twice
  got = 0
  if (rank == 0) then
    call MPI_Send_init(ival, 1, MPI_INTEGER, 1, 9, MPI_COMM_WORLD, preq, ierr)
    do i = 1, 2
      call MPI_Start(preq, ierr)
      call MPI_Wait(preq, st2, ierr)
    end do
    call MPI_Request_free(preq, ierr)
  else if (rank == 1) then
    do i = 1, 2
      call MPI_Recv(ival, 1, MPI_INTEGER, 0, 9, MPI_COMM_WORLD, st2, ierr)
      got = got + ival
    end do
  end if
  ! alltoallw on the dup: one integer to each rank
  do i = 1, 4
    scnt(i) = 1; rcnt(i) = 1; sdsp(i) = 4 * (i - 1); rdsp(i) = 4 * (i - 1)
    stype(i) = MPI_INTEGER; rtype(i) = MPI_INTEGER; sbuf(i) = 10 * rank + i
  end do
  call MPI_Alltoallw(sbuf, scnt, sdsp, stype, rbuf, rcnt, rdsp, rtype, dup, ierr)
  call MPI_Comm_free(dup, ierr)
  ! a keyval with a copy subroutine of the program's (adds 1 as MPI_Comm_dup copies), and an
  ! error handler of the program's, called by MPI_COMM_CALL_ERRHANDLER
  call MPI_Comm_create_keyval(mycopy, MPI_COMM_NULL_DELETE_FN, key2, 5_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key2, 100_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup2, ierr)
  call MPI_Comm_get_attr(dup2, key2, v2, flag2, ierr)
  errs_seen = 0
  call MPI_Comm_create_errhandler(myerr, eh, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup3, ierr)
  call MPI_Comm_set_errhandler(dup3, eh, ierr)
  call MPI_Comm_call_errhandler(dup3, MPI_ERR_OTHER, ierr)
  call MPI_Comm_free(dup3, ierr)
  call MPI_Comm_free(dup2, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key2, ierr)
  if (rank == 2) print '(a,i4,a,i2)', 'fortran: copied', int(v2), ' handler calls', errs_seen
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 1) print '(a,i3,a,i3,a,4i4)', 'fortran: op sum', isum, ' persistent', got, ' alltoallw', rbuf
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i2,a,i2,a,i2,a,f5.1,a,f4.1,a,l2,a,l2,a,i3,a,l2)', 'fortran: got', token, &
       ' from', st(MPI_SOURCE), ' count', cnt, ' sum', s, ' max', x, ' tag_ub', ub >= 32767, &
       ' host null', hostp == 1, ' attr', int(v), ' freed null', dup == MPI_COMM_NULL
  call MPI_Finalize(ierr)
end program

subroutine addsq(invec, inoutvec, len, dtype)
  use mpi
  implicit none
  integer :: len, dtype, i
  integer :: invec(len), inoutvec(len)
  do i = 1, len
    inoutvec(i) = inoutvec(i) + invec(i)
    if (dtype /= MPI_INTEGER) inoutvec(i) = -1000
  end do
end subroutine

subroutine mycopy(oldcomm, keyval, extra, valin, valout, flag, ierr)
  use mpi
  implicit none
  integer :: oldcomm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
  logical :: flag
  valout = valin + extra
  flag = .true.
  ierr = MPI_SUCCESS
end subroutine

subroutine myerr(comm, code)
  use mpi
  implicit none
  integer :: comm, code, errs_seen
  common /seen/ errs_seen
  if (code == MPI_ERR_OTHER .and. comm /= MPI_COMM_WORLD) errs_seen = errs_seen + 1
end subroutine
