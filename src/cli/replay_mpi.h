/* psim replay over the processes of an MPI job (replay_mpi.c; issue 38, part 2). */
#ifndef PSIM_CLI_REPLAY_MPI_H
#define PSIM_CLI_REPLAY_MPI_H

#include "psim/replay.h"

/* Fills *par with MPI's collectives for a job of nprocs processes, this one being `me`
 * (sweep_mpi_init gives both): returns 1; 0 (par untouched) for one process or in the plain
 * build, where the replay runs alone as it always did. */
int replay_mpi_par(replay_par *par, int nprocs, int me);

#endif
