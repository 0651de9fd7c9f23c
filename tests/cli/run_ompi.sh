#!/bin/sh
# Programs built by Open MPI 4's own mpicc (Debian's mpicc.openmpi, NEEDED libmpi.so.40) under
# psim run, unchanged (docs/EMULATION.md, "Precompiled MPICH and Open MPI binaries"): psim's
# libmpi.so.40 translates Open MPI's pointer handles, constants and status to psim's runtime.
# - tests/data/emul/ompi_handles.c: what differs between the ABIs (predefined handles given back
#   and compared with the program's own copies of Open MPI's objects: MPI_COMM_NULL after
#   MPI_Comm_free and MPI_Comm_split, MPI_REQUEST_NULL, MPI_DATATYPE_NULL, MPI_WIN_NULL;
#   MPI_PROC_NULL, MPI_IN_PLACE, error classes, attributes, MPI_CART, lock types and
#   assertions, MPI_WIN_MODEL, a subarray's order, c2f/f2c): the lines real Open MPI 4.1.4 prints
#   (tests/data/emul/ompi_handles.expected, from mpirun -n 4) and the psimcc build prints;
# - the programs run_abi.sh builds with MPICH's mpicc (abi_probe, abi_pi, abi_attr, darray,
#   one-sided, topologies, matched probes, MPI-IO...): built by mpicc.openmpi, psim run's whole
#   output (program lines, simulated times, per-rank table) equals the psimcc build's;
# - tests/data/emul/ompi_cxx.cc built by mpicxx.openmpi (Open MPI's C++ bindings,
#   libmpi_cxx.so.40, with the C API): the line real Open MPI prints;
# - Debian's precompiled NetPIPE for Open MPI (NPopenmpi), when installed: byte-identical
#   results to its MPICH build (NPmpich2) with --no-measure (the same simulated network);
# - Debian's precompiled HPC Challenge (hpcc, built against Open MPI), when installed: 4 ranks,
#   N = 500, ends with Success=1 and HPL's residual check PASSED;
# - Debian's precompiled LAMMPS (lmp, C++), its "melt" example at 4 ranks: real Open MPI's
#   thermodynamics, line for line (tests/data/emul/lammps_melt.thermo);
# - Debian's precompiled MUMPS testers (mumps-test: Fortran, MPI through Open MPI's Fortran
#   bindings from libdmumps, ScaLAPACK), dsimpletest and zsimpletest at 4 ranks: real Open MPI's
#   solutions, digit for digit, with OpenBLAS's Prescott kernels (libdmumps shared by the ranks
#   failed before);
# - Fortran's STOP and ERROR STOP end the rank (tests/data/emul/fortran_stop.f90);
# - a C program's Fortran library reducing in place (abi_inplace_lib.f90: its own copy of the
#   COMMON block that is MPI_IN_PLACE) gets the sums (fortran_inplace_check);
# - Fortran through Open MPI's own bindings (libmpi_mpifh.so.40, libmpi_usempif08.so.40):
#   tests/data/emul/ompi_fortran.f90 (status, MPI_IN_PLACE, attributes read and set, a keyval,
#   a reduction subroutine, a persistent request, MPI_ALLTOALLW: the last three need what the
#   bindings read of Open MPI's objects; a keyval and an error handler with the program's own
#   subroutines) and ompi_f08.f90 (mpi_f08) print real Open MPI's lines;
# - refusals: an Open MPI call psim lacks (MPI_Comm_spawn: exit 4, named).
# Skipped (77) when Open MPI's mpicc is missing (scripts/deps.sh test installs libopenmpi-dev).
# Not run under ASan (label noasan): loading the binaries needs RTLD_DEEPBIND, which ASan refuses.
. "$(dirname "$0")/../lib/common.sh"
fails=0
D=$PSIM_TESTDATA/emul
PSIMCC="$(dirname "$PSIM")/psimcc"
MPICC=$(command -v mpicc.openmpi || true)
[ -n "$MPICC" ] || { echo "SKIP: no Open MPI mpicc (apt-get install libopenmpi-dev)"; exit 77; }
[ -f "$(dirname "$PSIM")/lib/libmpi.so.40" ] || { echo "FAIL: psim's lib/libmpi.so.40 is not built"; exit 1; }
export OPENBLAS_NUM_THREADS=1

# the lines of psim run that are the same for every build of a program
same_lines() { grep -v 'processor\|wall\|host speed'; }

"$MPICC" -O2 -o "$TMPD/handles" "$D/ompi_handles.c" || { echo "FAIL: mpicc.openmpi ompi_handles.c"; exit 1; }
readelf -d "$TMPD/handles" | grep -q 'NEEDED.*libmpi.so.40' || bad "mpicc.openmpi's binary does not need libmpi.so.40"
readelf -r "$TMPD/handles" | grep -q 'R_X86_64_COPY.*ompi_mpi_comm_world' ||
  echo "note: this mpicc.openmpi keeps no copy of ompi_mpi_comm_world in the executable"
out=$("$PSIM" run --np 4 -q -- "$TMPD/handles" 2>&1) || bad "ompi_handles (mpicc.openmpi) failed: $out"
[ "$out" = "$(cat "$D/ompi_handles.expected")" ] || bad "ompi_handles (mpicc.openmpi) differs from real Open MPI's lines:
$(printf '%s\n' "$out" | diff - "$D/ompi_handles.expected")"
"$PSIMCC" -O2 -o "$TMPD/handles_psim" "$D/ompi_handles.c" || bad "psimcc ompi_handles.c"
out=$("$PSIM" run --np 4 -q -- "$TMPD/handles_psim" 2>&1) || bad "ompi_handles (psimcc) failed: $out"
[ "$out" = "$(cat "$D/ompi_handles.expected")" ] || bad "ompi_handles (psimcc) differs from real Open MPI's lines:
$(printf '%s\n' "$out" | diff - "$D/ompi_handles.expected")"

# An Open MPI binary takes Open MPI's collective algorithms by default (smpi/coll-selector:ompi,
# run_coll_selector.sh), a psimcc build SimGrid's: these comparisons check that the ABI layer
# changes nothing else, so both run SimGrid's selection (the collectives' timings change which
# message abi_probe's wildcard receive takes, and the summary names the selector).
SEL="--cfg smpi/coll-selector:default"
for f in ompi_handles abi_probe abi_pi abi_attr darray rma_dynamic rma_req rma_shared graph neighbor mprobe file_io get_elements; do
  "$MPICC" -O2 -o "$TMPD/$f.ompi" "$D/$f.c" -lm || { bad "mpicc.openmpi $f.c"; continue; }
  "$PSIMCC" -O2 -o "$TMPD/$f.psim" "$D/$f.c" -lm || { bad "psimcc $f.c"; continue; }
  (cd "$TMPD" && "$PSIM" run --np 4 --no-measure $SEL -- "./$f.ompi" 2>&1) | same_lines > "$TMPD/a" || bad "$f (mpicc.openmpi) failed"
  (cd "$TMPD" && "$PSIM" run --np 4 --no-measure $SEL -- "./$f.psim" 2>&1) | same_lines > "$TMPD/b" || bad "$f (psimcc) failed"
  grep -q 'simulated time: [0-9]' "$TMPD/a" || bad "$f (mpicc.openmpi): no simulated time: $(cat "$TMPD/a")"
  cmp -s "$TMPD/a" "$TMPD/b" || bad "$f: the Open MPI build's run differs from the psimcc build's:
$(diff "$TMPD/a" "$TMPD/b" | head -20)"
done

if command -v mpicxx.openmpi >/dev/null && mpicxx.openmpi -O2 -o "$TMPD/cxx" "$D/ompi_cxx.cc" 2>/dev/null; then
  readelf -d "$TMPD/cxx" | grep -q 'NEEDED.*libmpi_cxx.so.40' || echo "note: mpicxx.openmpi did not link libmpi_cxx.so.40"
  out=$("$PSIM" run --np 4 -q -- "$TMPD/cxx" 2>&1) || bad "C++ program (mpicxx.openmpi) failed: $out"
  [ "$out" = "C++: 4 ranks, sum 6, C rank 0, dup size 4" ] || bad "C++ program (mpicxx.openmpi): $out"
else
  echo "skip C++: no mpicxx.openmpi"
fi

if [ -x /usr/bin/NPopenmpi ] && [ -x /usr/bin/NPmpich2 ]; then
  (cd "$TMPD" && "$PSIM" run --np 2 -q --no-measure -- /usr/bin/NPopenmpi -u 65536 -o np_ompi.out > /dev/null 2>&1) ||
    bad "NPopenmpi failed"
  (cd "$TMPD" && "$PSIM" run --np 2 -q --no-measure -- /usr/bin/NPmpich2 -u 65536 -o np_mpich.out > /dev/null 2>&1) ||
    bad "NPmpich2 failed"
  [ "$(wc -l < "$TMPD/np_ompi.out")" -ge 80 ] || bad "NPopenmpi: $(wc -l < "$TMPD/np_ompi.out") sizes measured"
  cmp -s "$TMPD/np_ompi.out" "$TMPD/np_mpich.out" || bad "NetPIPE: Open MPI's build and MPICH's differ under psim:
$(diff "$TMPD/np_ompi.out" "$TMPD/np_mpich.out" | head)"
else
  echo "skip NetPIPE: /usr/bin/NPopenmpi or /usr/bin/NPmpich2 not installed (netpipe-openmpi, netpipe-mpich2)"
fi

if [ -x /usr/bin/hpcc ] && [ -f /usr/share/doc/hpcc/examples/_hpccinf.txt ] && readelf -d /usr/bin/hpcc | grep -q libmpi.so.40; then
  mkdir "$TMPD/hpcc"
  sed -e "6s/^[0-9]*/500/" -e "11s/^[0-9]*/2/" -e "12s/^[0-9]*/2/" /usr/share/doc/hpcc/examples/_hpccinf.txt > "$TMPD/hpcc/hpccinf.txt"
  (cd "$TMPD/hpcc" && "$PSIM" run --np 4 -q -- /usr/bin/hpcc > out 2> err) || bad "hpcc failed: $(tail -5 "$TMPD/hpcc/err")"
  grep -q '^Success=1' "$TMPD/hpcc/hpccoutf.txt" || bad "hpcc: no Success=1"
  grep -q 'PASSED' "$TMPD/hpcc/hpccoutf.txt" || bad "hpcc: HPL's residual check did not pass"
  grep -q 'FAILED' "$TMPD/hpcc/hpccoutf.txt" && bad "hpcc: a check FAILED"
else
  echo "skip hpcc: Debian's /usr/bin/hpcc (built against Open MPI) not installed"
fi

# Debian's LAMMPS (lmp, C++, built against Open MPI): its own "melt" example at 4 ranks prints
# the thermodynamics real Open MPI's run prints (mpirun -n 4, tests/data/emul/lammps_melt.thermo)
if [ -x /usr/bin/lmp ] && [ -f /usr/share/lammps/examples/melt/in.melt ]; then
  mkdir "$TMPD/lmp"
  (cd "$TMPD/lmp" && OMP_NUM_THREADS=1 "$PSIM" run --np 4 -- /usr/bin/lmp -in /usr/share/lammps/examples/melt/in.melt > out 2> err) ||
    bad "lmp failed: $(tail -5 "$TMPD/lmp/err")"
  grep -A6 '^Step' "$TMPD/lmp/out" | cmp -s - "$D/lammps_melt.thermo" ||
    bad "LAMMPS melt: thermodynamics differ from real Open MPI's: $(grep -A6 '^Step' "$TMPD/lmp/out" | diff - "$D/lammps_melt.thermo")"
  grep -q 'Loop time of [0-9.]* on 4 procs for 250 steps with 4000 atoms' "$TMPD/lmp/out" || bad "LAMMPS melt: no loop time"
else
  echo "skip LAMMPS: Debian's /usr/bin/lmp or its melt example not installed (packages lammps, lammps-examples)"
fi

# Debian's MUMPS testers (mumps-test): the solution real Open MPI prints (mpirun.openmpi -n 4).
# Its last digits depend on the kernels OpenBLAS picks for the CPU it detects: with SkylakeX's,
# d ends 0.99999999999999933 1.9999999999999998 ... 5.0000000000000000, with Prescott's (a CPU
# it cannot name) as below, under real Open MPI and psim alike. So the run takes Prescott's
# kernels, which every x86-64 CPU has.
if [ -x /usr/lib/mumps/dsimpletest ]; then
  export OPENBLAS_CORETYPE=Prescott
  for f in "d:real:0.99999999999999989 2.0000000000000000 3.0000000000000004 3.9999999999999996 4.9999999999999991" \
           "z:cmplx:(0.99999999999999989,0.0000000000000000) (2.0000000000000000,0.0000000000000000) (3.0000000000000004,0.0000000000000000) (3.9999999999999996,0.0000000000000000) (4.9999999999999991,0.0000000000000000)"; do
    t=${f%%:*} rest=${f#*:} in=${rest%%:*} want=${rest#*:}
    "$PSIM" run --np 4 -q -- "/usr/lib/mumps/${t}simpletest" < "/usr/lib/mumps/input_simpletest_$in" > "$TMPD/mumps.out" 2> "$TMPD/mumps.err" ||
      bad "MUMPS ${t}simpletest: exit $?: $(tail -3 "$TMPD/mumps.err")"
    got=$(grep -A1 'Solution is' "$TMPD/mumps.out" | tr -s ' ' '\n' | grep -v -e '^$' -e Solution -e '^is$' | tr '\n' ' ')
    [ "$got" = "$want " ] || bad "MUMPS ${t}simpletest: solution '$got', real Open MPI's '$want'"
  done
  unset OPENBLAS_CORETYPE
else
  echo "skip MUMPS: Debian's mumps-test not installed"
fi

# refusals
# Fortran: mpif.h/`use mpi` (Open MPI's libmpi_mpifh.so.40) and `use mpi_f08` programs print
# real Open MPI's lines (mpirun.openmpi -n 4)
if command -v mpifort.openmpi >/dev/null; then
  for f in "ompi_fortran:fortran: copied 105 handler calls 1|fortran: op sum 10 persistent  2 alltoallw   2  12  22  32|fortran: got 3 from 3 count 1 sum 10.0 max 4.0 tag_ub T host null T attr 42 freed null T" \
           "ompi_f08:f08: got  3 from  3 sum  10.0 freed null T"; do
    name=${f%%:*} want=$(printf '%s\n' "${f#*:}" | tr '|' '\n')
    mpifort.openmpi -O2 -o "$TMPD/$name" "$D/$name.f90" || { bad "mpifort.openmpi $name.f90"; continue; }
    out=$("$PSIM" run --np 4 -q -- "$TMPD/$name" 2>&1) || bad "$name failed: $out"
    [ "$out" = "$want" ] || bad "$name: '$out', real Open MPI prints '$want'"
  done
  # STOP and ERROR STOP (libgfortran's exit) end the rank, not the run
  fortran_stop_check mpifort.openmpi
  fortran_inplace_check mpifort.openmpi "$MPICC"
else
  echo "skip Fortran: no mpifort.openmpi"
fi
"$MPICC" -o "$TMPD/spawn" "$D/abi_spawn.c" || bad "mpicc.openmpi abi_spawn.c"
"$PSIM" run --np 2 -q -- "$TMPD/spawn" > "$TMPD/out" 2> "$TMPD/err"
[ $? = 4 ] && grep -q "MPI error in MPI_Comm_spawn: psim does not implement this MPI call" "$TMPD/err" ||
  bad "MPI_Comm_spawn: $(cat "$TMPD/err")"

[ "$fails" = 0 ] || exit 1
echo "ok: Open MPI binaries under psim run"
