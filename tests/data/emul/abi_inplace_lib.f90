! A Fortran library that reduces in place for its C program (as MUMPS's libdmumps under
! PETSc, called by getdp): it includes mpif.h, so it defines its own copy of the COMMON block
! whose address is MPI_IN_PLACE. In a process every reference binds to one definition; the
! MPI library's Fortran bindings recognize MPI_IN_PLACE by that address.
subroutine lib_sum_in_place(x, n, comm)
  implicit none
  include 'mpif.h'
  integer n, comm, ierr
  integer x(n)
  call MPI_ALLREDUCE(MPI_IN_PLACE, x, n, MPI_INTEGER, MPI_SUM, comm, ierr)
end subroutine
