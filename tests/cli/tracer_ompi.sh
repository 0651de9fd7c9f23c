#!/bin/sh
# libpsimtrace-ompi.so under Debian's Open MPI (mpiexec.openmpi; --allow-run-as-root as root,
# --oversubscribe on a 2-core machine): tests/cli/tracer.sh's C programs (calls.c, colls.c)
# and Fortran program (calls.f90, `use mpi`: Open MPI's bindings call PMPI_ functions, which
# the library defines too), with the same expected actions as under MPICH and psim run's
# recording of the same Open MPI binaries. Skips (77) without Open MPI or the library.
TRACER_MPI=openmpi exec sh "$(dirname "$0")/tracer.sh"
