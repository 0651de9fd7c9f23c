/* The calls TIT cannot represent (non-blocking collectives, MPI_Alltoallw, one-sided
 * communication, persistent requests' starts): each becomes `sleep` of the time it took on
 * this machine, the closest a time-independent trace can come, and is
 * counted for the warning at MPI_Finalize (tracer.h's TR_OPAQUE_CALLS). Their prototypes are
 * MPICH 4.0's (mpi_proto.h). */
#include "tracer.h"

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request) {
  if (!tr_enter()) return PMPI_Ibarrier(comm, request);
  int rc = PMPI_Ibarrier(comm, request);
  tr_opaque(TRC_MPI_Ibarrier);
  tr_leave();
  return rc;
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request) {
  if (!tr_enter()) return PMPI_Ibcast(buffer, count, datatype, root, comm, request);
  int rc = PMPI_Ibcast(buffer, count, datatype, root, comm, request);
  tr_opaque(TRC_MPI_Ibcast);
  tr_leave();
  return rc;
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request) {
  if (!tr_enter()) return PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request);
  int rc = PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request);
  tr_opaque(TRC_MPI_Ireduce);
  tr_leave();
  return rc;
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  if (!tr_enter()) return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
  int rc = PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
  tr_opaque(TRC_MPI_Iallreduce);
  tr_leave();
  return rc;
}

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  if (!tr_enter()) return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  int rc = PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  tr_opaque(TRC_MPI_Ialltoall);
  tr_leave();
  return rc;
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  if (!tr_enter()) return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request);
  int rc = PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request);
  tr_opaque(TRC_MPI_Ialltoallv);
  tr_leave();
  return rc;
}

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  if (!tr_enter()) return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  int rc = PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  tr_opaque(TRC_MPI_Iallgather);
  tr_leave();
  return rc;
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  if (!tr_enter()) return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request);
  int rc = PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request);
  tr_opaque(TRC_MPI_Iallgatherv);
  tr_leave();
  return rc;
}

int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
  if (!tr_enter()) return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
  int rc = PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
  tr_opaque(TRC_MPI_Igather);
  tr_leave();
  return rc;
}

int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
  if (!tr_enter()) return PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request);
  int rc = PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request);
  tr_opaque(TRC_MPI_Igatherv);
  tr_leave();
  return rc;
}

int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
  if (!tr_enter()) return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
  int rc = PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
  tr_opaque(TRC_MPI_Iscatter);
  tr_leave();
  return rc;
}

int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
  if (!tr_enter()) return PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
  int rc = PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
  tr_opaque(TRC_MPI_Iscatterv);
  tr_leave();
  return rc;
}

int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  if (!tr_enter()) return PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request);
  int rc = PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request);
  tr_opaque(TRC_MPI_Ireduce_scatter);
  tr_leave();
  return rc;
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  if (!tr_enter()) return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
  int rc = PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
  tr_opaque(TRC_MPI_Alltoallw);
  tr_leave();
  return rc;
}




int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  if (!tr_enter()) return PMPI_Put(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win);
  int rc = PMPI_Put(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win);
  tr_opaque(TRC_MPI_Put);
  tr_leave();
  return rc;
}

int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  if (!tr_enter()) return PMPI_Get(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win);
  int rc = PMPI_Get(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, win);
  tr_opaque(TRC_MPI_Get);
  tr_leave();
  return rc;
}

int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  if (!tr_enter()) return PMPI_Accumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, op, win);
  int rc = PMPI_Accumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, op, win);
  tr_opaque(TRC_MPI_Accumulate);
  tr_leave();
  return rc;
}

int MPI_Win_fence(int assert, MPI_Win win) {
  if (!tr_enter()) return PMPI_Win_fence(assert, win);
  int rc = PMPI_Win_fence(assert, win);
  tr_opaque(TRC_MPI_Win_fence);
  tr_leave();
  return rc;
}

int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
  if (!tr_enter()) return PMPI_Win_lock(lock_type, rank, assert, win);
  int rc = PMPI_Win_lock(lock_type, rank, assert, win);
  tr_opaque(TRC_MPI_Win_lock);
  tr_leave();
  return rc;
}

int MPI_Win_unlock(int rank, MPI_Win win) {
  if (!tr_enter()) return PMPI_Win_unlock(rank, win);
  int rc = PMPI_Win_unlock(rank, win);
  tr_opaque(TRC_MPI_Win_unlock);
  tr_leave();
  return rc;
}

int MPI_Start(MPI_Request *request) {
  if (!tr_enter()) return PMPI_Start(request);
  int rc = PMPI_Start(request);
  tr_opaque(TRC_MPI_Start);
  tr_leave();
  return rc;
}

int MPI_Startall(int count, MPI_Request array_of_requests[]) {
  if (!tr_enter()) return PMPI_Startall(count, array_of_requests);
  int rc = PMPI_Startall(count, array_of_requests);
  tr_opaque(TRC_MPI_Startall);
  tr_leave();
  return rc;
}
