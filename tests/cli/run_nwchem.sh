#!/bin/sh
# A real application nobody here wrote, precompiled: Debian's NWChem 7.0.2 (nwchem.mpich, built
# against MPICH; Global Arrays over ARMCI-MPI: one-sided MPI, windows locked, fetch-and-op
# counters for its dynamic load balance, plus ScaLAPACK, libgfortran and libpython3.11) under
# psim run, 3 ranks: an SCF energy of water (6-31G*). The energy must be real MPICH's,
# -76.010496172412 hartree (mpiexec.mpich -n 2, 3, 4, 8 on this machine print it to all its
# 12 decimals), within 1e-9. Twice: with ARMCI's windows from MPI_Win_create
# (ARMCI_USE_WIN_ALLOCATE=0, Debian's README's advice for MPICH), and from MPI_Win_allocate,
# where real MPICH 4.0.2 at 3-4 processes stops ("sym_movecs_adapt: negative proj", the README's
# bug) and psim, whose windows are plain memory, runs.
# Before: psim stopped as it loaded the program, "its variable PyExc_MemoryError (a copy
# relocation) is defined by no loaded library" (exit 2).
. "$(dirname "$0")/../lib/common.sh"
NW=$(command -v nwchem.mpich || true)
[ -n "$NW" ] || "$PSIM_SRC/scripts/deps.sh" test >/dev/null 2>&1
NW=$(command -v nwchem.mpich || true)
[ -n "$NW" ] || { echo "skip: no nwchem.mpich (Debian's nwchem-mpich)"; exit 77; }
fails=0
cat > "$TMPD/h2o.nw" <<'NW'
start h2o
title "water SCF"
geometry units angstrom
  O   0.000  0.000  0.000
  H   0.000  0.757  0.587
  H   0.000 -0.757  0.587
end
basis
  * library 6-31g*
end
scf
  print low
end
task scf energy
NW
want=-76.010496172412
for winalloc in 0 1; do
  rm -f "$TMPD"/h2o.*[!w]
  (cd "$TMPD" && ARMCI_USE_WIN_ALLOCATE=$winalloc OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 timeout 300 \
     "$PSIM" run --np 3 -q --json "$TMPD/nw.json" -- "$NW" h2o.nw > "$TMPD/out" 2> "$TMPD/err"); rc=$?
  e=$(sed -n 's/^ *Total SCF energy = *\([-0-9.]*\)$/\1/p' "$TMPD/out")
  t=$(json_get "$TMPD/nw.json" simulated_time)
  if [ $rc -eq 0 ] && [ -n "$e" ] && close_to "$e" "$want" 1e-9; then
    echo "ok   ARMCI_USE_WIN_ALLOCATE=$winalloc: SCF energy $e, simulated time $t s"
  else
    bad "ARMCI_USE_WIN_ALLOCATE=$winalloc: exit status $rc, energy '$e', want $want: $(tail -n 5 "$TMPD/err")"
  fi
done
finish $fails
