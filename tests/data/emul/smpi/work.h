/* WORK(flops): a declared computation, under psim run (psimcc's mpi.h defines PSIM_MPI) or
 * under SMPI (smpicc): the programs of this directory simulate the same work on both. */
#ifndef SMPI_WORK_H
#define SMPI_WORK_H
#include <mpi.h>
#ifdef PSIM_MPI
#define WORK(f) psim_compute(f)
#else
#include <smpi/smpi.h>
#define WORK(f) smpi_execute_flops(f)
#endif
#endif
