! Ranks that MPI gives back must be MPICH's values: MPI_PROC_NULL is -1 in MPICH and -2 in psim,
! MPI_ANY_SOURCE the other way round. MPI_CART_SHIFT on a non-periodic line gives MPI_PROC_NULL
! at both ends (MPICH's test f77/topo/cartcrf saw -2), MPI_GROUP_TRANSLATE_RANKS maps
! MPI_PROC_NULL to MPI_PROC_NULL, MPI_HOST is MPI_PROC_NULL (no host process) and MPI_IO is
! MPI_ANY_SOURCE (every rank can do I/O) (MPICH's f77/attr/baseattr2f saw -2 for HOST).
! MPI_GET_VERSION agrees with mpif.h's MPI_VERSION.MPI_SUBVERSION (4.0: psim said 3.1,
! f77/init/baseenvf). Each rank prints what it saw compared with mpif.h's constants: all T, as
! real MPICH prints.
program abi_fortran_ranks
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, np, comm, left, right, group, inr(2), outr(2), v, sv
  integer(kind=MPI_ADDRESS_KIND) :: host, io
  logical :: fh, fi, ok_shift
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  call MPI_CART_CREATE(MPI_COMM_WORLD, 1, (/np/), (/.false./), .false., comm, ierr)
  call MPI_CART_SHIFT(comm, 0, 1, left, right, ierr)
  ok_shift = (rank == 0 .eqv. left == MPI_PROC_NULL) .and. &
             (rank == np - 1 .eqv. right == MPI_PROC_NULL) .and. &
             (rank == 0 .or. left == rank - 1) .and. (rank == np - 1 .or. right == rank + 1)
  call MPI_COMM_GROUP(MPI_COMM_WORLD, group, ierr)
  inr = (/MPI_PROC_NULL, rank/)
  call MPI_GROUP_TRANSLATE_RANKS(group, 2, inr, group, outr, ierr)
  call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_HOST, host, fh, ierr)
  call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_IO, io, fi, ierr)
  call MPI_GET_VERSION(v, sv, ierr)
  print '(a,i0,a,l1,a,l1,a,l1,a,l1,a,l1)', 'rank ', rank, ' shift ', ok_shift, ' translate ', &
        outr(1) == MPI_PROC_NULL .and. outr(2) == rank, ' host ', fh .and. host == MPI_PROC_NULL, &
        ' io ', fi .and. io == MPI_ANY_SOURCE, ' version ', v == MPI_VERSION .and. sv == MPI_SUBVERSION
  call MPI_GROUP_FREE(group, ierr)
  call MPI_COMM_FREE(comm, ierr)
  call MPI_FINALIZE(ierr)
end program abi_fortran_ranks
