#!/bin/sh
# NWChem (Debian's nwchem-mpich, precompiled, nobody here wrote it) under psim run against real
# MPICH, on the inputs of bench/nwchem/: an SCF energy of water (scf.nw), a B3LYP energy of
# benzene (dft.nw), MP2 then an SCF geometry optimisation of water (opt.nw), CCSD of water
# through the tensor contraction engine (ccsd.nw). For each input and process count: the last
# energy NWChem prints under mpiexec.mpich and under psim run, their difference, psim's
# simulated time (on its default platform: 10 Gflop/s hosts, 10 Gb/s links) and both wall
# times. Both run with ARMCI_USE_WIN_ALLOCATE=0 (Debian's README: real MPICH 4.0.2 stops at 3-4
# processes otherwise).
#
#   bench/nwchem.sh              np 2 and 4, every input
#   bench/nwchem.sh 3 8          other process counts
#   INPUTS="scf dft" bench/nwchem.sh
#
# The energies agree to NWChem's printed decimals or to its convergence thresholds: its dynamic
# load balance hands tasks out in the order ranks ask, so sums are formed in another order (an
# optimisation then takes slightly different steps). Exit status 1 when a run fails.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SRC_ROOT=$(cd "$HERE/.." && pwd)
: "${PSIM:=$SRC_ROOT/build/psim}"
[ $# -gt 0 ] || set -- 2 4
INPUTS=${INPUTS:-"scf dft opt ccsd"}
[ -x "$PSIM" ] || { echo "nwchem.sh: build psim first (make)" >&2; exit 1; }
command -v nwchem.mpich >/dev/null && command -v mpiexec.mpich >/dev/null || "$SRC_ROOT/scripts/deps.sh" test || exit 1
command -v /usr/bin/time >/dev/null || "$SRC_ROOT/scripts/deps.sh" bench || exit 1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export ARMCI_USE_WIN_ALLOCATE=0 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
energy() { grep -E "Total (SCF|DFT) energy|CCSD total energy" "$1" | tail -n 1 | sed 's/.*= *//'; }
fails=0
printf "%-5s %3s  %-22s %-22s %9s  %10s %9s %9s\n" input np "MPICH energy" "psim energy" "|diff|" "simulated" "psim wall" "MPICH wall"
for np in "$@"; do
  for in in $INPUTS; do
    rm -rf "$W/r" "$W/p"; mkdir -p "$W/r" "$W/p"
    cp "$HERE/nwchem/$in.nw" "$W/r/"; cp "$HERE/nwchem/$in.nw" "$W/p/"
    (cd "$W/r" && /usr/bin/time -f "%e" -o time timeout 1800 mpiexec.mpich -n "$np" nwchem.mpich "$in.nw" > out 2> err) || {
      echo "$in np $np: real MPICH failed: $(tail -n 2 "$W/r/err")"; }
    (cd "$W/p" && /usr/bin/time -f "%e" -o time timeout 3600 "$PSIM" run --np "$np" -q --json run.json -- "$(command -v nwchem.mpich)" "$in.nw" > out 2> err) || {
      echo "$in np $np: psim run failed: $(tail -n 3 "$W/p/err")"; fails=$((fails + 1)); continue; }
    er=$(energy "$W/r/out"); ep=$(energy "$W/p/out")
    d=$(awk -v a="$er" -v b="$ep" 'BEGIN { if (a == "" || b == "") print "-"; else { d = a - b; if (d < 0) d = -d; printf "%.1e", d } }')
    t=$(grep -o '"simulated_time": [0-9.e+-]*' "$W/p/run.json" | sed 's/.*: //')
    printf "%-5s %3s  %-22s %-22s %9s  %9.4fs %8.2fs %8.2fs\n" "$in" "$np" "${er:--}" "${ep:--}" "$d" "$t" \
      "$(tail -n 1 "$W/p/time")" "$(tail -n 1 "$W/r/time" 2>/dev/null || echo 0)"
  done
done
[ $fails -eq 0 ]
