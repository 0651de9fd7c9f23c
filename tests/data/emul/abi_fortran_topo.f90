! Graph topologies, neighbourhood collectives and matched probes from Fortran (mpif.h, MPICH's
! own bindings over psim's libmpich.so.12; tests/cli/run_abi.sh): a directed ring made by
! MPI_DIST_GRAPH_CREATE_ADJACENT with MPI_UNWEIGHTED, its neighbours, an
! MPI_NEIGHBOR_ALLTOALL on it and on a periodic MPI_CART_CREATE ring, MPI_MPROBE + MPI_MRECV
! and MPI_IMPROBE + MPI_IMRECV, a probe of MPI_PROC_NULL. Each rank prints T for each check, as
! real MPICH does.
program abi_fortran_topo
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, np, left, right, dg, cart, indeg, outdeg, s(1), d(1), t
  integer :: sb(2), rb(2), msg, req, x, status(MPI_STATUS_SIZE)
  logical :: weighted, flag, ok_graph, ok_nbr, ok_probe
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  left = mod(rank + np - 1, np)
  right = mod(rank + 1, np)
  call MPI_DIST_GRAPH_CREATE_ADJACENT(MPI_COMM_WORLD, 1, (/ left /), MPI_UNWEIGHTED, 1, &
       (/ right /), MPI_UNWEIGHTED, MPI_INFO_NULL, .false., dg, ierr)
  call MPI_TOPO_TEST(dg, t, ierr)
  call MPI_DIST_GRAPH_NEIGHBORS_COUNT(dg, indeg, outdeg, weighted, ierr)
  call MPI_DIST_GRAPH_NEIGHBORS(dg, 1, s, MPI_UNWEIGHTED, 1, d, MPI_UNWEIGHTED, ierr)
  ok_graph = t == MPI_DIST_GRAPH .and. indeg == 1 .and. outdeg == 1 .and. .not. weighted &
       .and. s(1) == left .and. d(1) == right
  sb(1) = 100 + rank
  rb = -1
  call MPI_NEIGHBOR_ALLTOALL(sb, 1, MPI_INTEGER, rb, 1, MPI_INTEGER, dg, ierr)
  ok_nbr = rb(1) == 100 + left
  call MPI_CART_CREATE(MPI_COMM_WORLD, 1, (/ np /), (/ .true. /), .false., cart, ierr)
  sb(1) = 10 * rank
  sb(2) = 10 * rank + 1
  call MPI_NEIGHBOR_ALLTOALL(sb, 1, MPI_INTEGER, rb, 1, MPI_INTEGER, cart, ierr)
  ! the -1 neighbour sent its +1 block here, the +1 neighbour its -1 block
  ok_nbr = ok_nbr .and. rb(1) == 10 * left + 1 .and. rb(2) == 10 * right
  call MPI_SEND(rank, 1, MPI_INTEGER, right, 7, MPI_COMM_WORLD, ierr)
  call MPI_MPROBE(left, 7, MPI_COMM_WORLD, msg, status, ierr)
  ok_probe = status(MPI_SOURCE) == left .and. msg /= MPI_MESSAGE_NULL
  call MPI_MRECV(x, 1, MPI_INTEGER, msg, status, ierr)
  ok_probe = ok_probe .and. x == left .and. msg == MPI_MESSAGE_NULL
  call MPI_SEND(rank, 1, MPI_INTEGER, right, 8, MPI_COMM_WORLD, ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_IMPROBE(MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, flag, msg, status, ierr)
  end do
  call MPI_IMRECV(x, 1, MPI_INTEGER, msg, req, ierr)
  call MPI_WAIT(req, status, ierr)
  ok_probe = ok_probe .and. x == left .and. status(MPI_TAG) == 8
  call MPI_MPROBE(MPI_PROC_NULL, 0, MPI_COMM_WORLD, msg, status, ierr)
  ok_probe = ok_probe .and. msg == MPI_MESSAGE_NO_PROC .and. status(MPI_SOURCE) == MPI_PROC_NULL
  call MPI_MRECV(x, 1, MPI_INTEGER, msg, status, ierr)
  ok_probe = ok_probe .and. msg == MPI_MESSAGE_NULL
  print '(a,i0,a,l1,a,l1,a,l1)', 'rank ', rank, ' graph ', ok_graph, ' neighbor ', ok_nbr, &
       ' mprobe ', ok_probe
  call MPI_COMM_FREE(dg, ierr)
  call MPI_COMM_FREE(cart, ierr)
  call MPI_FINALIZE(ierr)
end program abi_fortran_topo
