! Fortran's own datatypes are types of their own, not C's with the same layout: a user
! operation is given the handle it was called with (MPI_INTEGER, not MPI_INT: MPICH's tests
! f77/coll/uallreducef, exscanf, redscatf, reducelocalf check it, and psim gave MPI_INT), names
! are Fortran's (f77/datatype/typenamef), and MINLOC/MAXLOC work on Fortran's pairs
! MPI_2REAL, MPI_2DOUBLE_PRECISION and MPI_2INTEGER (the value and its index of the same type),
! which psim refused as invalid datatypes. MPI_TYPE_CREATE_F90_REAL/COMPLEX/INTEGER give the
! type of a kind of that precision and range (f90/datatype/trf90 stopped there): its size is the
! kind's, and data of it go through an allreduce. Each rank prints T for each check, as real MPICH.
subroutine uop(cin, cout, count, datatype)
  implicit none
  include 'mpif.h'
  integer :: count, datatype, i
  integer :: cin(count), cout(count)
  if (datatype /= MPI_INTEGER) then
    cout(1:count) = -1000
    return
  end if
  do i = 1, count
    cout(i) = cin(i) + cout(i)
  end do
end subroutine uop

program abi_fortran_types
  implicit none
  include 'mpif.h'
  external uop
  integer :: ierr, rank, np, op, v(2), s(2), ilen, i2(2), i2o(2)
  double precision :: d2(2), d2o(2)
  real :: r2(2), r2o(2)
  complex :: c, cs
  logical :: l, la
  character(len=MPI_MAX_OBJECT_NAME) :: name
  logical :: ok_uop, ok_name, ok_pairs, ok_other, ok_f90
  integer :: tr, td, tc, ti, sr, sd, sc, si
  integer, parameter :: dk = selected_real_kind(15, 307), ik = selected_int_kind(12)
  real(kind=dk) :: xd, yd
  integer(kind=ik) :: xi, yi
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  call MPI_OP_CREATE(uop, .true., op, ierr)
  v = (/rank, 1/)
  call MPI_ALLREDUCE(v, s, 2, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  ok_uop = s(1) == np * (np - 1) / 2 .and. s(2) == np
  call MPI_OP_FREE(op, ierr)
  call MPI_TYPE_GET_NAME(MPI_INTEGER, name, ilen, ierr)
  ok_name = name(1:ilen) == 'MPI_INTEGER'
  call MPI_TYPE_GET_NAME(MPI_DOUBLE_PRECISION, name, ilen, ierr)
  ok_name = ok_name .and. name(1:ilen) == 'MPI_DOUBLE_PRECISION'
  ! the largest value is rank 1's at 2 ranks and more; indices are the ranks
  d2 = (/dble(mod(rank + np - 1, np)), dble(rank)/)
  call MPI_ALLREDUCE(d2, d2o, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  r2 = (/real(mod(rank + np - 1, np)), real(rank)/)
  call MPI_ALLREDUCE(r2, r2o, 1, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD, ierr)
  i2 = (/mod(rank + np - 1, np), rank/)
  call MPI_ALLREDUCE(i2, i2o, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  ok_pairs = d2o(1) == np - 1 .and. d2o(2) == 0 .and. r2o(1) == 0 .and. r2o(2) == 1 .and. &
             i2o(1) == np - 1 .and. i2o(2) == 0
  c = cmplx(rank, 1)
  call MPI_ALLREDUCE(c, cs, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD, ierr)
  l = rank >= 0
  call MPI_ALLREDUCE(l, la, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  ok_other = cs == cmplx(np * (np - 1) / 2, np) .and. la
  call MPI_TYPE_CREATE_F90_REAL(6, MPI_UNDEFINED, tr, ierr)
  call MPI_TYPE_CREATE_F90_REAL(15, 307, td, ierr)
  call MPI_TYPE_CREATE_F90_COMPLEX(15, MPI_UNDEFINED, tc, ierr)
  call MPI_TYPE_CREATE_F90_INTEGER(12, ti, ierr)
  call MPI_TYPE_SIZE(tr, sr, ierr)
  call MPI_TYPE_SIZE(td, sd, ierr)
  call MPI_TYPE_SIZE(tc, sc, ierr)
  call MPI_TYPE_SIZE(ti, si, ierr)
  xd = 0.5_dk
  xi = 2_ik ** 40
  call MPI_ALLREDUCE(xd, yd, 1, td, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_ALLREDUCE(xi, yi, 1, ti, MPI_SUM, MPI_COMM_WORLD, ierr)
  ok_f90 = sr == 4 .and. sd == 8 .and. sc == 16 .and. si == 8 .and. yd == 0.5_dk * np .and. &
           yi == np * 2_ik ** 40
  print '(a,i0,a,l1,a,l1,a,l1,a,l1,a,l1)', 'rank ', rank, ' uop ', ok_uop, ' names ', ok_name, &
        ' pairs ', ok_pairs, ' complex+logical ', ok_other, ' f90 ', ok_f90
  call MPI_FINALIZE(ierr)
end program abi_fortran_types
