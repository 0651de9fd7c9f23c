#!/bin/sh
# MPICH's test harness (test/mpi/util/mtest.c) as psim's runs of MPICH's tests use it, written
# to OUT_DIR with util's mtest_common.c and mtest_single.c beside it:
#
#   tests/mpich/mtest_adapt.sh UTIL_DIR OUT_DIR [SED_EXPRESSION]
#
# psim has no inter-communicators (nor has SMPI 3.32 MPI_Intercomm_create): MTestGetIntercomm
# says "no more" at once, as SimGrid's copy of mtest.c does, so tests looping over MTestGetComm
# run on intra-communicators only instead of aborting. SED_EXPRESSION adapts one thing more and
# must change something (bench/diff_smpi_mpich.sh's MPI_COMM_WORLD-only variant). Used by
# tests/mpich/run_mpich.sh and bench/diff_smpi_mpich.sh. Exit status 1 when mtest.c is not the
# one expected.
set -u
util=$1 out=$2 more=${3:-}
sed -e 's/^int MTestGetIntercomm(MPI_Comm \* comm, int \*isLeftGroup, int min_size)$/int psim_mpich_MTestGetIntercomm(MPI_Comm * comm, int *isLeftGroup, int min_size)/' \
  -e "${more:-s/^//}" "$util/mtest.c" > "$out/mtest.c" || exit 1
grep -q psim_mpich_MTestGetIntercomm "$out/mtest.c" || { echo "mtest_adapt.sh: unexpected $util/mtest.c" >&2; exit 1; }
if [ -n "$more" ]; then
  sed -e 's/^int MTestGetIntercomm(MPI_Comm \* comm, int \*isLeftGroup, int min_size)$/int psim_mpich_MTestGetIntercomm(MPI_Comm * comm, int *isLeftGroup, int min_size)/' \
    "$util/mtest.c" | cmp -s - "$out/mtest.c" && { echo "mtest_adapt.sh: '$more' changed nothing in $util/mtest.c" >&2; exit 1; }
fi
cat >> "$out/mtest.c" <<'EOF2'
int MTestGetIntercomm(MPI_Comm *comm, int *isLeftGroup, int min_size)
{
    (void) min_size;
    *comm = MPI_COMM_NULL;
    *isLeftGroup = 0;
    return 0;
}
EOF2
cp "$util/mtest_common.c" "$util/mtest_single.c" "$out/"
