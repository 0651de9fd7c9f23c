/* The tracer's calls into the MPI (internal; tracer.h includes it when TR_REAL_PMPI is
 * defined, as CMakeLists.txt builds both libraries).
 *
 * Fortran bindings call PMPI_ functions: Open MPI's for every call (mpif.h, `use mpi` and
 * `use mpi_f08` reach ompi_send_f and the rest in libmpi_mpifh.so, which call PMPI_Send:
 * `nm -D libmpi_mpifh.so` lists PMPI_Send as undefined, MPI_Send not at all), MPICH's
 * mpi_f08 for the calls without a buffer (PMPI_Init, PMPI_Barrier, PMPI_Wait... in
 * libmpichfort.so.12; its buffer calls and its mpif.h ones call MPI_). So the library also
 * defines every PMPI_X it wraps, as the same code as its MPI_X (the linker's --defsym), and
 * reaches the MPI's own PMPI_X through a pointer dlsym finds after it (RTLD_NEXT): each
 * PMPI_X below means that pointer here. A PMPI_ call the MPI makes to itself outside a traced
 * call (ROMIO's collectives inside MPI_File_open) is then traced as the program's. */
#ifndef PSIM_TR_REAL_H
#define PSIM_TR_REAL_H

#include <mpi.h>

#define TR_REAL_CALLS(X) \
  X(PMPI_Accumulate) X(PMPI_Allgather) X(PMPI_Allgatherv) X(PMPI_Allreduce) X(PMPI_Alltoall) \
  X(PMPI_Alltoallv) X(PMPI_Alltoallw) X(PMPI_Barrier) X(PMPI_Bcast) X(PMPI_Bsend) X(PMPI_Comm_compare) \
  X(PMPI_Comm_create) X(PMPI_Comm_dup) X(PMPI_Comm_group) X(PMPI_Comm_rank) X(PMPI_Comm_size) \
  X(PMPI_Comm_split) X(PMPI_Exscan) X(PMPI_Finalize) X(PMPI_Gather) X(PMPI_Gatherv) X(PMPI_Get) \
  X(PMPI_Get_count) X(PMPI_Group_free) X(PMPI_Group_translate_ranks) X(PMPI_Iallgather) \
  X(PMPI_Iallgatherv) X(PMPI_Iallreduce) X(PMPI_Ialltoall) X(PMPI_Ialltoallv) X(PMPI_Ibarrier) \
  X(PMPI_Ibcast) X(PMPI_Ibsend) X(PMPI_Igather) X(PMPI_Igatherv) X(PMPI_Init) X(PMPI_Init_thread) \
  X(PMPI_Iprobe) X(PMPI_Irecv) X(PMPI_Ireduce) X(PMPI_Ireduce_scatter) X(PMPI_Irsend) X(PMPI_Iscatter) \
  X(PMPI_Iscatterv) X(PMPI_Isend) X(PMPI_Issend) X(PMPI_Probe) X(PMPI_Put) X(PMPI_Recv) X(PMPI_Reduce) \
  X(PMPI_Reduce_scatter) X(PMPI_Reduce_scatter_block) X(PMPI_Request_free) X(PMPI_Rsend) X(PMPI_Scan) \
  X(PMPI_Scatter) X(PMPI_Scatterv) X(PMPI_Send) X(PMPI_Sendrecv) X(PMPI_Sendrecv_replace) X(PMPI_Ssend) \
  X(PMPI_Start) X(PMPI_Startall) X(PMPI_Test) X(PMPI_Test_cancelled) X(PMPI_Testall) X(PMPI_Testany) \
  X(PMPI_Testsome) X(PMPI_Type_size) X(PMPI_Wait) X(PMPI_Waitall) X(PMPI_Waitany) X(PMPI_Waitsome) \
  X(PMPI_Win_fence) X(PMPI_Win_lock) X(PMPI_Win_unlock)

#define TR_REAL_DECL(f) extern __typeof__(&f) tr_real_##f;
TR_REAL_CALLS(TR_REAL_DECL)
#undef TR_REAL_DECL

#define PMPI_Accumulate (*tr_real_PMPI_Accumulate)
#define PMPI_Allgather (*tr_real_PMPI_Allgather)
#define PMPI_Allgatherv (*tr_real_PMPI_Allgatherv)
#define PMPI_Allreduce (*tr_real_PMPI_Allreduce)
#define PMPI_Alltoall (*tr_real_PMPI_Alltoall)
#define PMPI_Alltoallv (*tr_real_PMPI_Alltoallv)
#define PMPI_Alltoallw (*tr_real_PMPI_Alltoallw)
#define PMPI_Barrier (*tr_real_PMPI_Barrier)
#define PMPI_Bcast (*tr_real_PMPI_Bcast)
#define PMPI_Bsend (*tr_real_PMPI_Bsend)
#define PMPI_Comm_compare (*tr_real_PMPI_Comm_compare)
#define PMPI_Comm_create (*tr_real_PMPI_Comm_create)
#define PMPI_Comm_dup (*tr_real_PMPI_Comm_dup)
#define PMPI_Comm_group (*tr_real_PMPI_Comm_group)
#define PMPI_Comm_rank (*tr_real_PMPI_Comm_rank)
#define PMPI_Comm_size (*tr_real_PMPI_Comm_size)
#define PMPI_Comm_split (*tr_real_PMPI_Comm_split)
#define PMPI_Exscan (*tr_real_PMPI_Exscan)
#define PMPI_Finalize (*tr_real_PMPI_Finalize)
#define PMPI_Gather (*tr_real_PMPI_Gather)
#define PMPI_Gatherv (*tr_real_PMPI_Gatherv)
#define PMPI_Get (*tr_real_PMPI_Get)
#define PMPI_Get_count (*tr_real_PMPI_Get_count)
#define PMPI_Group_free (*tr_real_PMPI_Group_free)
#define PMPI_Group_translate_ranks (*tr_real_PMPI_Group_translate_ranks)
#define PMPI_Iallgather (*tr_real_PMPI_Iallgather)
#define PMPI_Iallgatherv (*tr_real_PMPI_Iallgatherv)
#define PMPI_Iallreduce (*tr_real_PMPI_Iallreduce)
#define PMPI_Ialltoall (*tr_real_PMPI_Ialltoall)
#define PMPI_Ialltoallv (*tr_real_PMPI_Ialltoallv)
#define PMPI_Ibarrier (*tr_real_PMPI_Ibarrier)
#define PMPI_Ibcast (*tr_real_PMPI_Ibcast)
#define PMPI_Ibsend (*tr_real_PMPI_Ibsend)
#define PMPI_Igather (*tr_real_PMPI_Igather)
#define PMPI_Igatherv (*tr_real_PMPI_Igatherv)
#define PMPI_Init (*tr_real_PMPI_Init)
#define PMPI_Init_thread (*tr_real_PMPI_Init_thread)
#define PMPI_Iprobe (*tr_real_PMPI_Iprobe)
#define PMPI_Irecv (*tr_real_PMPI_Irecv)
#define PMPI_Ireduce (*tr_real_PMPI_Ireduce)
#define PMPI_Ireduce_scatter (*tr_real_PMPI_Ireduce_scatter)
#define PMPI_Irsend (*tr_real_PMPI_Irsend)
#define PMPI_Iscatter (*tr_real_PMPI_Iscatter)
#define PMPI_Iscatterv (*tr_real_PMPI_Iscatterv)
#define PMPI_Isend (*tr_real_PMPI_Isend)
#define PMPI_Issend (*tr_real_PMPI_Issend)
#define PMPI_Probe (*tr_real_PMPI_Probe)
#define PMPI_Put (*tr_real_PMPI_Put)
#define PMPI_Recv (*tr_real_PMPI_Recv)
#define PMPI_Reduce (*tr_real_PMPI_Reduce)
#define PMPI_Reduce_scatter (*tr_real_PMPI_Reduce_scatter)
#define PMPI_Reduce_scatter_block (*tr_real_PMPI_Reduce_scatter_block)
#define PMPI_Request_free (*tr_real_PMPI_Request_free)
#define PMPI_Rsend (*tr_real_PMPI_Rsend)
#define PMPI_Scan (*tr_real_PMPI_Scan)
#define PMPI_Scatter (*tr_real_PMPI_Scatter)
#define PMPI_Scatterv (*tr_real_PMPI_Scatterv)
#define PMPI_Send (*tr_real_PMPI_Send)
#define PMPI_Sendrecv (*tr_real_PMPI_Sendrecv)
#define PMPI_Sendrecv_replace (*tr_real_PMPI_Sendrecv_replace)
#define PMPI_Ssend (*tr_real_PMPI_Ssend)
#define PMPI_Start (*tr_real_PMPI_Start)
#define PMPI_Startall (*tr_real_PMPI_Startall)
#define PMPI_Test (*tr_real_PMPI_Test)
#define PMPI_Test_cancelled (*tr_real_PMPI_Test_cancelled)
#define PMPI_Testall (*tr_real_PMPI_Testall)
#define PMPI_Testany (*tr_real_PMPI_Testany)
#define PMPI_Testsome (*tr_real_PMPI_Testsome)
#define PMPI_Type_size (*tr_real_PMPI_Type_size)
#define PMPI_Wait (*tr_real_PMPI_Wait)
#define PMPI_Waitall (*tr_real_PMPI_Waitall)
#define PMPI_Waitany (*tr_real_PMPI_Waitany)
#define PMPI_Waitsome (*tr_real_PMPI_Waitsome)
#define PMPI_Win_fence (*tr_real_PMPI_Win_fence)
#define PMPI_Win_lock (*tr_real_PMPI_Win_lock)
#define PMPI_Win_unlock (*tr_real_PMPI_Win_unlock)

#endif
