#!/bin/sh
# Debian's precompiled Open MPI applications under psim run, against real Open MPI on this
# machine (mpirun.openmpi, oversubscribed: the ranks share its cores). Prints, per application,
# the wall time of each, psim's simulated time and the application's own result.
#
#   bench/openmpi_apps.sh          np 2 and 4
#   bench/openmpi_apps.sh 8        another process count
#
# Needs the packages lammps, gromacs, hpcc (apt-get install lammps gromacs hpcc; gromacs is
# 320 MB, which is why run_ompi.sh does not use it) and libopenmpi-dev. Results:
# - LAMMPS's "melt" example (4000 atoms, 250 steps): its last thermodynamic line, which real Open
#   MPI's equals at every np (LAMMPS is deterministic here);
# - GROMACS's gmx_mpi on 510 SPC/E waters (PME, 200 steps, -dlb no -notunepme): the potential
#   energy at step 0 and 200. GROMACS's own runs differ from each other after step 0 (its
#   timing-driven choices), so only step 0 is equal by construction;
# - HPC Challenge (hpcc, N = 1000): HPL's Tflop/s and whether the suite succeeded.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
: "${PSIM:=$HERE/../build/psim}"
[ $# -gt 0 ] || set -- 2 4
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
MPIRUN="mpirun.openmpi --oversubscribe"
[ "$(id -u)" = 0 ] && MPIRUN="$MPIRUN --allow-run-as-root"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
secs() { /usr/bin/env time -f %e -o "$W/t" "$@" > /dev/null 2>&1; cat "$W/t"; }
simtime() { sed -n 's/^simulated time: \([0-9.e+-]*\) s.*/\1/p' "$1" | head -1; }

if [ -x /usr/bin/lmp ]; then
  for np in "$@"; do
    cd "$W" && rm -f log.lammps
    tr=$(secs $MPIRUN -n "$np" /usr/bin/lmp -in /usr/share/lammps/examples/melt/in.melt -log real.log)
    tp=$(/usr/bin/env time -f %e -o "$W/t" "$PSIM" run --np "$np" -- /usr/bin/lmp -in /usr/share/lammps/examples/melt/in.melt -log psim.log > "$W/out" 2>&1; cat "$W/t")
    lr=$(grep -A6 '^Step' real.log | tail -1 | tr -s ' ')
    lp=$(grep -A6 '^Step' psim.log | tail -1 | tr -s ' ')
    same=no; [ "$lr" = "$lp" ] && same=yes
    echo "lammps melt np $np: real ${tr}s, psim ${tp}s wall, simulated $(simtime "$W/out") s; step 250:$lp (equal to real: $same)"
  done
fi

if [ -x /usr/bin/gmx_mpi ]; then
  cd "$W"
  gmx solvate -cs spc216.gro -box 2.5 2.5 2.5 -o water.gro > /dev/null 2>&1
  n=$(grep -c OW water.gro)
  printf '#include "oplsaa.ff/forcefield.itp"\n#include "oplsaa.ff/spce.itp"\n[ system ]\nwater\n[ molecules ]\nSOL %s\n' "$n" > topol.top
  printf 'integrator = md\ndt = 0.002\nnsteps = 200\nnstcalcenergy = 50\nnstenergy = 50\nnstlog = 50\ncutoff-scheme = Verlet\ncoulombtype = PME\nrcoulomb = 0.9\nrvdw = 0.9\ntcoupl = V-rescale\ntc-grps = System\ntau-t = 0.1\nref-t = 300\nconstraints = h-bonds\ngen-vel = yes\ngen-seed = 42\ngen-temp = 300\nld-seed = 7\n' > md.mdp
  gmx grompp -f md.mdp -c water.gro -p topol.top -o water.tpr > /dev/null 2>&1
  A="mdrun -s water.tpr -ntomp 1 -nb cpu -dlb no -notunepme"
  pot() { awk '/   Energies/ {getline; getline; print $4}' "$1" | sed -n "${2}p"; }
  for np in "$@"; do
    tr=$(secs $MPIRUN -n "$np" /usr/bin/gmx_mpi $A -deffnm real)
    tp=$(/usr/bin/env time -f %e -o "$W/t" "$PSIM" run --np "$np" -- /usr/bin/gmx_mpi $A -deffnm psim > "$W/out" 2>&1; cat "$W/t")
    echo "gromacs $n waters np $np: real ${tr}s, psim ${tp}s wall, simulated $(simtime "$W/out") s; potential at step 0: real $(pot real.log 1) psim $(pot psim.log 1); at step 200: real $(pot real.log 5) psim $(pot psim.log 5)"
  done
fi

if [ -x /usr/bin/hpcc ]; then
  for np in "$@"; do
    p=1; while [ $((2 * p * 2 * p)) -le "$np" ]; do p=$((2 * p)); done; q=$((np / p))
    mkdir -p "$W/hpcc" && cd "$W/hpcc"
    sed -e "6s/^[0-9]*/1000/" -e "11s/^[0-9]*/$p/" -e "12s/^[0-9]*/$q/" /usr/share/doc/hpcc/examples/_hpccinf.txt > hpccinf.txt
    rm -f hpccoutf.txt; tr=$(secs $MPIRUN -n "$np" /usr/bin/hpcc); r=$(sed -n 's/^HPL_Tflops=//p' hpccoutf.txt)
    rm -f hpccoutf.txt; tp=$(/usr/bin/env time -f %e -o "$W/t" "$PSIM" run --np "$np" -- /usr/bin/hpcc > "$W/out" 2>&1; cat "$W/t"); s=$(sed -n 's/^HPL_Tflops=//p' hpccoutf.txt)
    echo "hpcc N=1000 np $np ($p x $q): real ${tr}s, psim ${tp}s wall, simulated $(simtime "$W/out") s; HPL Tflop/s real $r psim $s; $(grep '^Success' hpccoutf.txt)"
  done
fi
