! An mpif.h program built by MPICH's mpifort: psim run runs it over MPICH's own Fortran
! bindings (libmpichfort.so.12, a private copy per rank) and psim's libmpich.so.12.
! A ring (status: source and tag), an allreduce, a receive with MPI_STATUS_IGNORE and a waitall
! with MPI_STATUSES_IGNORE: neither may write into those arrays (each rank's libmpichfort must
! recognize its own), so their tag fields stay 0; MPI_TAG_UB read as Fortran reads attributes
! (the value, not a pointer to it).
program abi_fortran
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, np, got, total, x, y, reqs(2)
  integer :: status(MPI_STATUS_SIZE)
  double precision :: t0, t1
  integer(kind=MPI_ADDRESS_KIND) :: tag_ub
  logical :: flag
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  t0 = MPI_WTIME()
  call MPI_SENDRECV(rank, 1, MPI_INTEGER, mod(rank + 1, np), 5, got, 1, MPI_INTEGER, &
                    mod(rank + np - 1, np), 5, MPI_COMM_WORLD, status, ierr)
  call MPI_ALLREDUCE(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  x = 100 + rank
  y = -1
  call MPI_IRECV(y, 1, MPI_INTEGER, mod(rank + np - 1, np), 9, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_ISEND(x, 1, MPI_INTEGER, mod(rank + 1, np), 9, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call MPI_SEND(x, 1, MPI_INTEGER, mod(rank + 1, np), 7, MPI_COMM_WORLD, ierr)
  call MPI_RECV(x, 1, MPI_INTEGER, mod(rank + np - 1, np), 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  t1 = MPI_WTIME()
  call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_TAG_UB, tag_ub, flag, ierr)
  print '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,l1,a,l1)', 'rank ', rank, ' got ', got, &
        ' from ', status(MPI_SOURCE), ' tag ', status(MPI_TAG), ' sum ', total, ' y ', y, &
        ' x ', x, ' ignored tags ', MPI_STATUS_IGNORE(MPI_TAG) + MPI_STATUSES_IGNORE(MPI_TAG, 1), &
        ' time moved ', t1 > t0, ' tag_ub ', flag .and. tag_ub >= 32767
  call MPI_FINALIZE(ierr)
end program abi_fortran
