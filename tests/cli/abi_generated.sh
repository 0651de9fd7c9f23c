#!/bin/sh
# The generated MPI-ABI files are what scripts/gen_mpich_abi.py writes today (HACKING.md,
# "Regenerating the MPI-ABI files"): a function added to include/psim_mpi/mpi.h without a rerun
# leaves libmpich.so.12/libmpi.so.40 without it, and a program built by mpicc calling it stops
# at run time. The generator runs on a copy of its inputs in $TMPD (it writes beside its own
# tree), then each output is compared with the committed file.
# abi_calls.c and abi_ptrs.h come from mpi.h alone; the three stub files also from the names
# that the real libraries export, so they are compared only when both libraries are installed
# (otherwise the generator gets empty stand-ins, whose stubs are not compared).
. "$(dirname "$0")/../lib/common.sh"
fails=0
command -v python3 > /dev/null && command -v nm > /dev/null || { echo "skip: needs python3 and nm"; exit 77; }

MPICH_LIB=${PSIM_ABI_MPICH:-/usr/lib/x86_64-linux-gnu/libmpich.so.12}
OMPI_LIB=${PSIM_ABI_OMPI:-/usr/lib/x86_64-linux-gnu/libmpi.so.40}
gen="$TMPD/gen"
mkdir -p "$gen/scripts" "$gen/include/psim_mpi" "$gen/src/emul/abi"
cp "$PSIM_SRC/scripts/gen_mpich_abi.py" "$gen/scripts/"
cp "$PSIM_SRC/include/psim_mpi/mpi.h" "$gen/include/psim_mpi/"
files="abi_calls.c abi_ptrs.h"
if [ -r "$MPICH_LIB" ] && [ -r "$OMPI_LIB" ]; then
  files="$files abi_stubs_common.c abi_stubs_mpich.c abi_stubs_ompi.c"
else
  echo "note: $MPICH_LIB or $OMPI_LIB absent: the stub files are not compared"
  : > "$TMPD/empty.c"
  ${CC:-cc} -shared -o "$TMPD/empty.so" "$TMPD/empty.c" || { echo "skip: no C compiler"; exit 77; }
  MPICH_LIB="$TMPD/empty.so" OMPI_LIB="$TMPD/empty.so"
fi
python3 "$gen/scripts/gen_mpich_abi.py" "$MPICH_LIB" "$OMPI_LIB" > "$TMPD/gen.out" 2>&1 ||
  bad "gen_mpich_abi.py failed: $(cat "$TMPD/gen.out")"

for f in $files; do
  if [ ! -s "$gen/src/emul/abi/$f" ]; then
    bad "$f: not generated"
  elif cmp -s "$gen/src/emul/abi/$f" "$PSIM_SRC/src/emul/abi/$f"; then
    echo "ok   src/emul/abi/$f is what gen_mpich_abi.py writes"
  else
    bad "src/emul/abi/$f is stale: rerun scripts/gen_mpich_abi.py (HACKING.md); the difference:"
    diff -u "$PSIM_SRC/src/emul/abi/$f" "$gen/src/emul/abi/$f" | head -n 20
  fi
done
finish $fails
