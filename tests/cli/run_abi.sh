#!/bin/sh
# Programs built by MPICH's own mpicc (Debian's, MPICH ABI, NEEDED libmpich.so.12) under psim run,
# unchanged (docs/EMULATION.md, "Precompiled MPICH binaries"): psim's libmpich.so.12 translates
# MPICH's handles, constants and status to psim's runtime, each rank loads its own copy.
# - tests/data/emul/abi_probe.c: one line per translation (globals per rank, wildcard status,
#   MPI_PROC_NULL, Waitall's arrays, a vector type, a user op seeing MPI_INT, MAXLOC, IN_PLACE,
#   communicator handles, attributes, error classes): the same lines as the psimcc build and as
#   real MPICH (mpiexec, when it runs here) except the processor name;
# - tests/data/emul/abi_pi.c: pi's digits and the simulated time equal the psimcc build's (both
#   call the same runtime; --no-measure: only communication counts); stripped, it runs the same;
# - MPICH's own examples/cpi.c, when the mpich source is cached (tests/mpich/run_mpich.sh);
# - a ScaLAPACK pdgemm driver linked with Debian's libscalapack-mpich, 4 ranks,
#   --privatize-libs libscalapack-mpich.so.2.2: the product equals a serial dgemm; without the
#   option too (a library that needs libmpich.so.12 is privatized unasked);
# - a program that calls MPI only through its library (tests/data/emul/abi_libmain.c and
#   abi_libuser.c, as ScaLAPACK's precompiled testers): runs, the library private per rank,
#   and the program's definitions of the library's symbols come first, as natively;
# - a Fortran program (tests/data/emul/abi_fortran.f90, mpifort): MPICH's own Fortran bindings
#   run over psim's libmpich.so.12, each rank's status-ignore sentinels its own; ranks MPI
#   gives back in MPICH's values (abi_fortran_ranks.f90); Fortran's datatypes its own
#   (abi_fortran_types.f90); attributes with Fortran callbacks (abi_fortran_attr.f90), and
#   across languages (abi_fortran_lang.f90 with abi_fortran_lang.c); calls added for MPICH's
#   Fortran tests (abi_fortran_calls.f90); generalized requests (abi_fortran_greq.f90);
#   distributed graphs, neighbourhood collectives, matched probes (abi_fortran_topo.f90);
#   the Fortran runtime's units each rank's own (abi_fortran_units.f90: libgfortran is
#   privatized unasked, its state being the process's);
#   MPI-IO (abi_fortran_io.f90);
# - dynamic windows (tests/data/emul/rma_dynamic.c built by mpicc), MPI_Type_create_darray
#   (darray.c), the sized Fortran types' names (type_names.c), shared-memory windows and window
#   info (rma_shared.c, 4 ranks on one host), request-based RMA (rma_req.c, and its times): the
#   lines real MPICH prints;
# - attributes with C callbacks (tests/data/emul/abi_attr.c, mpicc and psimcc); MPI_Get_elements
#   on a partly filled mixed type (get_elements.c);
# - graph and distributed graph topologies, neighbourhood collectives (MPI_Neighbor_alltoallw's
#   datatype arrays translated per neighbour), matched probes (MPI_Message, MPI_MESSAGE_NO_PROC,
#   MPI_UNWEIGHTED read through a copy relocation in the executable's RELRO): graph.c,
#   neighbor.c and mprobe.c built by mpicc print " No Errors" at np 2 and 4 (as under real
#   MPICH, mpiexec.mpich -n 4); MPI_Mrecv on MPI_MESSAGE_NULL is psim's error;
# - MPI-IO: tests/data/emul/file_io.c built by mpicc writes the file the psimcc build writes,
#   returns the same error classes, calls its file error handler, takes the same disk times;
# - errors: an MPICH call psim lacks (MPI_Comm_spawn: exit 4, named), exit(3) from a rank,
#   a binary linked against another Open MPI (libmpi.so.12) or against both MPIs, a non-PIE
#   executable, --privatize-libs
#   misused, psim's libmpich.so.12 used outside psim run.
# Skipped (77) when MPICH's mpicc is missing (scripts/deps.sh test installs mpich, libmpich-dev,
# libscalapack-mpich-dev); the pdgemm part is skipped alone without libscalapack-mpich.
# Not run under ASan (label noasan): loading the binaries needs RTLD_DEEPBIND, which ASan refuses.
. "$(dirname "$0")/../lib/common.sh"
fails=0
D=$PSIM_TESTDATA/emul
PSIMCC="$(dirname "$PSIM")/psimcc"
MPICC=$(command -v mpicc.mpich || true)
if [ -z "$MPICC" ] && command -v mpicc >/dev/null && mpicc -show 2>/dev/null | grep -q mpich; then MPICC=mpicc; fi
[ -n "$MPICC" ] || { echo "SKIP: no MPICH mpicc (apt-get install mpich libmpich-dev)"; exit 77; }
[ -f "$(dirname "$PSIM")/lib/libmpich.so.12" ] || { echo "FAIL: psim's lib/libmpich.so.12 is not built"; exit 1; }
export OPENBLAS_NUM_THREADS=1

# expect STATUS PATTERN CMD...: exit status and a line of stderr
expect() {
  want=$1 pat=$2; shift 2
  "$@" > "$TMPD/out" 2> "$TMPD/err"; got=$?
  [ "$got" = "$want" ] || bad "$*: exit $got, want $want: $(cat "$TMPD/err")"
  grep -q -- "$pat" "$TMPD/err" || bad "$*: stderr lacks '$pat': $(cat "$TMPD/err")"
}

# An mpicc binary takes MPICH's collective algorithms by default (smpi/coll-selector:mpich,
# run_coll_selector.sh); a psimcc build SimGrid's. The comparisons below check that the ABI
# layer changes nothing else, so they run both with SimGrid's selection ($SEL): the timings
# of the collectives change which message a wildcard receive takes, and which rank computes
# a reduction (psim computes it once: the user op's "saw MPI_INT" is rank 0's only if rank 0
# gets there first).
SEL="--cfg smpi/coll-selector:default"
"$MPICC" -O2 -o "$TMPD/probe" "$D/abi_probe.c" || { echo "FAIL: mpicc abi_probe.c"; exit 1; }
"$PSIMCC" -O2 -o "$TMPD/probe_psim" "$D/abi_probe.c" || { echo "FAIL: psimcc abi_probe.c"; exit 1; }
readelf -d "$TMPD/probe" | grep -q 'NEEDED.*libmpich.so.12' || bad "mpicc's binary does not need libmpich.so.12"
want="globals: 0 1 2 3
status: source 1 tag 7 count 3 bytes 12 data 1 2 3
proc_null: source is MPI_PROC_NULL 1, tag is MPI_ANY_TAG 1, count 0
waitall: 102 from 2 tag 22, 103 from 3 tag 23, requests null 1
vector: 1 5 9 13 (type size 32)
reduce: user op 24 (saw MPI_INT 1, op null 1), maxloc 3 at 1, in place sum 6
comms: split size 2 rank 0 unequal 1, dup congruent 1, freed null 1
misc: tag_ub set 1 (>= 32767 1), MPI_ERR_TRUNCATE class ok 1, match_size real 8 -> size 8, processor node-0"
out=$("$PSIM" run --np 4 -q --no-measure $SEL -- "$TMPD/probe") || bad "abi_probe (mpicc) failed"
[ "$out" = "$want" ] || bad "abi_probe (mpicc) output:
$out"
out=$("$PSIM" run --np 4 -q --no-measure -- "$TMPD/probe_psim") || bad "abi_probe (psimcc) failed"
[ "$out" = "$want" ] || bad "abi_probe (psimcc) output:
$out"
# real MPICH agrees, when mpiexec can start here (not required: no launcher in some containers)
if command -v mpiexec.mpich >/dev/null; then
  if real=$(timeout 60 mpiexec.mpich -n 4 "$TMPD/probe" 2>/dev/null); then
    [ "$(echo "$real" | sed 's/processor .*/processor/')" = "$(echo "$want" | sed 's/processor .*/processor/')" ] ||
      bad "real MPICH prints otherwise:
$real"
  fi
fi

# attributes on communicators, datatypes and windows with copy and delete callbacks (MPICH's
# MPI_COMM_DUP_FN is the library's MPIR_Dup_fn; the callbacks get MPICH's handles); the same
# lines from the mpicc binary, the psimcc build and real MPICH
"$MPICC" -O1 -o "$TMPD/attr" "$D/abi_attr.c" || bad "mpicc abi_attr.c"
"$PSIMCC" -O1 -o "$TMPD/attr_psim" "$D/abi_attr.c" || bad "psimcc abi_attr.c"
want="rank 0: MPI_COMM_SELF's attribute deleted at MPI_Finalize (self 1), 203 deletes before
rank 0: dup 1 predefined 1 type 1 deletes 203
rank 0: window attribute own 1, deletes 2
rank 1: MPI_COMM_SELF's attribute deleted at MPI_Finalize (self 1), 203 deletes before
rank 1: dup 1 predefined 1 type 1 deletes 203
rank 1: window attribute own 1, deletes 2"
for b in attr attr_psim; do
  out=$("$PSIM" run --np 2 -q --no-measure -- "$TMPD/$b" | sort) || bad "abi_attr ($b) failed"
  [ "$out" = "$want" ] || bad "abi_attr ($b): $out"
done

# MPI_Get_elements of a message that fills a mixed derived type in part (MPICH's
# f90/datatype/get_elem_u: psim said MPI_UNDEFINED); the mpicc and psimcc builds, as real MPICH
"$MPICC" -O1 -o "$TMPD/getel" "$D/get_elements.c" || bad "mpicc get_elements.c"
"$PSIMCC" -O1 -o "$TMPD/getel_psim" "$D/get_elements.c" || bad "psimcc get_elements.c"
for b in getel getel_psim; do
  out=$("$PSIM" run --np 2 -q --no-measure -- "$TMPD/$b") || bad "get_elements ($b) failed"
  [ "$out" = "get_elements ok 1" ] || bad "get_elements ($b): $out"
done
for p in graph neighbor mprobe; do
  "$MPICC" -O1 -o "$TMPD/m_$p" "$D/$p.c" 2>/dev/null || { bad "mpicc $p.c"; continue; }
  for np in 2 4; do
    out=$("$PSIM" run --np $np -q --no-measure -- "$TMPD/m_$p" 2>&1)
    [ "$out" = " No Errors" ] || bad "$p (mpicc) at np $np: $out"
  done
done
# agree NAME NP [PSIM RUN OPTIONS]: tests/data/emul/NAME.c built by mpicc prints under psim run
# what the psimcc build prints (which the NAME's own test checks by hand), and what real MPICH
# prints when it runs here (all its ranks on this one machine: psim's --platform flat:1)
agree() {
  a_name=$1 a_np=$2
  shift 2
  "$MPICC" -O1 -o "$TMPD/m_$a_name" "$D/$a_name.c" || { bad "mpicc $a_name.c"; return; }
  "$PSIMCC" -O1 -o "$TMPD/p_$a_name" "$D/$a_name.c" || { bad "psimcc $a_name.c"; return; }
  out=$("$PSIM" run --np "$a_np" -q --no-measure "$@" -- "$TMPD/m_$a_name" 2>&1)
  [ "$out" = "$("$PSIM" run --np "$a_np" -q --no-measure "$@" -- "$TMPD/p_$a_name" 2>&1)" ] || bad "$a_name (mpicc) at np $a_np differs from psimcc's: $out"
  if command -v mpiexec.mpich >/dev/null && real=$(timeout 60 mpiexec.mpich -n "$a_np" "$TMPD/m_$a_name" 2>/dev/null); then
    [ "$real" = "$out" ] || bad "$a_name at np $a_np: real MPICH prints otherwise: $real"
  fi
}
# dynamic windows (run_rma_dynamic.sh), MPI_Type_create_darray (run_darray.sh), the sized Fortran
# types' names (run_type_names.sh; and the same simulated times as the psimcc build)
agree rma_dynamic 1
agree rma_dynamic 4
agree darray 1
agree type_names 3
# shared-memory windows and window info (run_rma_shared.sh: several ranks on one host, as real
# MPICH has them here), request-based RMA (run_rma_req.sh; and its simulated times are those of
# the psimcc build)
agree rma_shared 1
agree rma_shared 4 --platform flat:1
agree rma_req 1
agree rma_req 4
t=$("$PSIM" run --np 2 -q --no-measure $SEL --cfg smpi/wtime:0 -- "$TMPD/m_rma_req" time 100000)
[ "$t" = "$("$PSIM" run --np 2 -q --no-measure --cfg smpi/wtime:0 -- "$TMPD/p_rma_req" time 100000)" ] || bad "rma_req (mpicc) times differ: $t"
t=$("$PSIM" run --np 3 -q --no-measure $SEL -- "$TMPD/m_type_names" time)
[ "$t" = "$("$PSIM" run --np 3 -q --no-measure -- "$TMPD/p_type_names" time)" ] || bad "type_names (mpicc) times differ: $t"
expect 4 "rank 0: MPI error in MPI_Mrecv: the message is MPI_MESSAGE_NULL" "$PSIM" run --np 2 -q --no-measure -- "$TMPD/m_mprobe" null

# MPI-IO (tests/cli/run_file_io.sh checks the psimcc build by hand): MPICH's MPI_File is a
# pointer, its error classes and MPIO_Request its own; the mpicc build writes the same bytes,
# returns the same classes, calls the program's file handler, and takes the same disk times
"$MPICC" -O1 -o "$TMPD/m_fio" "$D/file_io.c" || bad "mpicc file_io.c"
"$PSIMCC" -O1 -o "$TMPD/p_fio" "$D/file_io.c" || bad "psimcc file_io.c"
for np in 2 4; do
  for b in m p; do
    out=$("$PSIM" run --np $np -q --no-measure -- "$TMPD/${b}_fio" data "$TMPD/${b}_fio$np.dat" 2>/dev/null)
    [ "$out" = " No Errors" ] || bad "file_io data ($b) at np $np: $out"
  done
  cmp -s "$TMPD/m_fio$np.dat" "$TMPD/p_fio$np.dat" || bad "file_io data at np $np: the mpicc build's file differs"
  a=$("$PSIM" run --np $np -q -- "$TMPD/m_fio" errors "$TMPD" 2>/dev/null) b=$("$PSIM" run --np $np -q -- "$TMPD/p_fio" errors "$TMPD" 2>/dev/null)
  [ "$a" = "$b" ] && ! echo "$a" | grep -q WRONG && echo "$a" | grep -q "^ No Errors" || bad "file_io errors (mpicc) at np $np: $a"
done
printf '<?xml version="1.0"?>\n<platform version="4.1"><zone id="z" routing="Full"><host id="a" speed="1Gf"><disk id="d" read_bw="100MBps" write_bw="80MBps"/></host></zone></platform>\n' > "$TMPD/disk.xml"
a=$("$PSIM" run --np 2 -q --no-measure --cfg smpi/wtime:0 --platform "$TMPD/disk.xml" -- "$TMPD/m_fio" time "$TMPD" | sort)
b=$("$PSIM" run --np 2 -q --no-measure --cfg smpi/wtime:0 --platform "$TMPD/disk.xml" -- "$TMPD/p_fio" time "$TMPD" | sort)
[ "$a" = "$b" ] && echo "$a" | grep -q "rank 0 iwrite+iread 0.016250000" || bad "file_io time (mpicc): $a"
expect 4 "MPI_File_read_at: rank [01], file '$TMPD/fatal.dat': read of a file opened MPI_MODE_WRONLY (MPI_ERR_ACCESS)" "$PSIM" run --np 2 -q -- "$TMPD/m_fio" fatal "$TMPD"

# pi: digits, and the same simulated time as the psimcc build (on two network models)
"$MPICC" -O2 -o "$TMPD/pi" "$D/abi_pi.c" -lm || { echo "FAIL: mpicc abi_pi.c"; exit 1; }
"$PSIMCC" -O2 -o "$TMPD/pi_psim" "$D/abi_pi.c" -lm || { echo "FAIL: psimcc abi_pi.c"; exit 1; }
cp "$TMPD/pi" "$TMPD/pi_stripped" && strip "$TMPD/pi_stripped"
for net in "--platform flat:4,1e9,1e8,1e-5" "--network constant"; do
  for b in pi pi_psim pi_stripped; do
    # shellcheck disable=SC2086
    "$PSIM" run --np 4 -q --no-measure $SEL $net --json "$TMPD/$b.json" -- "$TMPD/$b" 20000 > "$TMPD/$b.out" || bad "$b ($net) failed"
  done
  # the midpoint rule's error is (h^2/24)(f'(0) - f'(1)) = h^2/12 for f(x) = 4/(1+x^2)
  # (f'(x) = -8x/(1+x^2)^2: f'(0) = 0, f'(1) = -2); h = 1/20000: pi + 2.0833e-10 = 3.14159265379813
  grep -q '^pi 3.14159265379813[0-9]* error 2.083e-10 (n=20000, 4 ranks)$' "$TMPD/pi.out" || bad "pi ($net): $(cat "$TMPD/pi.out")"
  t=$(json_get "$TMPD/pi.json" simulated_time)
  for b in pi_psim pi_stripped; do
    cmp -s "$TMPD/pi.out" "$TMPD/$b.out" || bad "$b ($net) prints otherwise: $(cat "$TMPD/$b.out")"
    [ "$(json_get "$TMPD/$b.json" simulated_time)" = "$t" ] || bad "$b ($net): simulated time $(json_get "$TMPD/$b.json" simulated_time), mpicc's $t"
  done
  awk -v t="$t" 'BEGIN { exit !(t > 0) }' || bad "pi ($net): simulated time '$t'"
done

# generalized requests: the program's callbacks read and write MPICH's status (through psim's
# trampolines, abi_manual.c); the lines tests/cli/run_greq.sh expects of the psimcc build
"$MPICC" -O1 -o "$TMPD/greq" "$D/greq.c" || bad "mpicc greq.c"
out=$("$PSIM" run --np 1 -q --no-measure -- "$TMPD/greq" 2>&1)
want=$(cat "$PSIM_TESTDATA/emul/greq.expected")
[ "$out" = "$want" ] || bad "greq (mpicc) output:
$out"

# sleep, usleep and nanosleep are simulated time in an mpicc binary too (abi_sleep.c): the
# times of the psimcc build (which tests/cli/diff_smpi_run.sh checks against SMPI's)
"$MPICC" -O1 -o "$TMPD/libc" "$PSIM_TESTDATA/emul/smpi/libc.c" 2>/dev/null || bad "mpicc libc.c"
"$PSIMCC" -O1 -o "$TMPD/libc_psim" "$PSIM_TESTDATA/emul/smpi/libc.c" || bad "psimcc libc.c"
a=$("$PSIM" run --np 4 -q --no-measure $SEL --platform flat:4 -- "$TMPD/libc" sleep | sort)
b=$("$PSIM" run --np 4 -q --no-measure --platform flat:4 -- "$TMPD/libc_psim" sleep | sort)
[ -n "$a" ] && [ "$a" = "$b" ] || bad "libc sleep: mpicc's build gives '$a', psimcc's '$b'"
case "$a" in "rank 0 wtime 1.3"*) ;; *) bad "libc sleep (mpicc): the sleeps are not simulated: $a" ;; esac

# MPICH's own cpi.c (from the cached mpich source that tests/mpich/run_mpich.sh fetches)
tarball=${PSIM_MPICH_TARBALL:-${XDG_CACHE_HOME:-$HOME/.cache}/psim/mpich/mpich_4.0.2.orig.tar.xz}
if [ -f "$tarball" ] && (cd "$TMPD" && tar xf "$tarball" --wildcards '*/examples/cpi.c' 2>/dev/null); then
  cpi=$(ls "$TMPD"/*/examples/cpi.c)
  "$MPICC" -O2 -o "$TMPD/cpi" "$cpi" && "$PSIMCC" -O2 -o "$TMPD/cpi_psim" "$cpi" || bad "cpi.c does not build"
  "$PSIM" run --np 4 -q --no-measure $SEL --json "$TMPD/cpi.json" -- "$TMPD/cpi" > "$TMPD/cpi.out" || bad "cpi failed"
  "$PSIM" run --np 4 -q --no-measure --json "$TMPD/cpi_psim.json" -- "$TMPD/cpi_psim" > "$TMPD/cpi_psim.out" || bad "cpi_psim failed"
  grep -q "pi is approximately 3.14159265[0-9]*, Error is 0.00000000083" "$TMPD/cpi.out" || bad "cpi: $(cat "$TMPD/cpi.out")"
  cmp -s "$TMPD/cpi.out" "$TMPD/cpi_psim.out" || bad "cpi: the two builds print otherwise"
  [ "$(json_get "$TMPD/cpi.json" simulated_time)" = "$(json_get "$TMPD/cpi_psim.json" simulated_time)" ] || bad "cpi: simulated times differ"
else
  echo "note: no cached mpich source: MPICH's cpi.c not run (abi_pi.c is)"
fi

# ScaLAPACK's pdgemm from Debian's libscalapack-mpich, BLACS private per rank
if [ -e /usr/lib/x86_64-linux-gnu/libscalapack-mpich.so.2.2 ] && "$MPICC" -O2 -o "$TMPD/pdgemm" "$PSIM_SRC/examples/pdgemm_scalapack.c" -lscalapack-mpich -lopenblas -lm 2> "$TMPD/cc.err"; then
  for i in 1 2; do
    "$PSIM" run --np 4 -q --no-measure --privatize-libs libscalapack-mpich.so.2.2 --json "$TMPD/pd$i.json" -- "$TMPD/pdgemm" 200 > "$TMPD/pd$i.out" || bad "pdgemm failed: $(cat "$TMPD/pd$i.out")"
  done
  [ "$(cat "$TMPD/pd1.out")" = "pdgemm n=200 nb=32 grid 2x2: relative error <= 1e-14, sum of C -1.5" ] || bad "pdgemm: $(cat "$TMPD/pd1.out")"
  t1=$(json_get "$TMPD/pd1.json" simulated_time) t2=$(json_get "$TMPD/pd2.json" simulated_time)
  [ "$t1" = "$t2" ] && awk -v t="$t1" 'BEGIN { exit !(t > 0) }' || bad "pdgemm: simulated times $t1 and $t2"
  # the library by its path works too, and at 6 ranks (2x3 grid)
  out=$("$PSIM" run --np 6 -q --no-measure --privatize-libs /usr/lib/x86_64-linux-gnu/libscalapack-mpich.so.2.2 -- "$TMPD/pdgemm" 150 16) || bad "pdgemm at 6 ranks failed"
  # (sums as real MPICH's mpiexec prints them: -1.5 at 200/32 on 4 ranks, -0.75 here)
  [ "$out" = "pdgemm n=150 nb=16 grid 2x3: relative error <= 1e-14, sum of C -0.8" ] || bad "pdgemm at 6 ranks: $out"
  # without --privatize-libs: libscalapack-mpich needs libmpich.so.12, so it is privatized
  # unasked (shared, the ranks overwrote each other's BLACS grids and the run failed)
  out=$("$PSIM" run --np 4 -q --no-measure -- "$TMPD/pdgemm" 200) || bad "pdgemm without --privatize-libs failed"
  [ "$out" = "$(cat "$TMPD/pd1.out")" ] || bad "pdgemm without --privatize-libs: $out"
else
  echo "note: libscalapack-mpich missing (apt-get install libscalapack-mpich-dev): pdgemm not run"
fi

# a program that calls MPI only through a library (as ScaLAPACK's testers): found through the
# library's NEEDED libmpich.so.12, and the library (globals: its rank) is each rank's own,
# found by the program's RUNPATH ($ORIGIN); listed in --privatize-libs too, it is one copy
mkdir -p "$TMPD/lu"
"$MPICC" -shared -fPIC -o "$TMPD/lu/libpsimlu.so.1" -Wl,-soname,libpsimlu.so.1 "$D/abi_libuser.c" || bad "mpicc abi_libuser.c"
ln -sf libpsimlu.so.1 "$TMPD/lu/libpsimlu.so"
cc -o "$TMPD/lu/main" "$D/abi_libmain.c" -L"$TMPD/lu" -lpsimlu -Wl,-rpath,'$ORIGIN' || bad "cc abi_libmain.c"
readelf -d "$TMPD/lu/main" | grep -q 'NEEDED.*libmpich' && bad "abi_libmain needs libmpich itself: not the case tested"
# It also overrides the library's function lu_tune and sets the library's variable lu_block
# (a copy relocation in the program): the library must see the program's, as natively
# (ScaLAPACK's TRD tester overrides pjlaenv_: with the library's own, 24 of 134 tests failed)
want="rank 0 got 3 saw 710
rank 1 got 0 saw 711
rank 2 got 1 saw 712
rank 3 got 2 saw 713"
for opt in "" "--privatize-libs libpsimlu.so.1"; do
  # shellcheck disable=SC2086
  out=$("$PSIM" run --np 4 -q --no-measure $opt -- "$TMPD/lu/main" | sort) || bad "abi_libmain ($opt) failed"
  [ "$out" = "$want" ] || bad "abi_libmain ($opt): $out"
done
# a library that calls MPI through that one only (as MUMPS through Open MPI's Fortran
# bindings) is each rank's own too: before, it was shared and every rank read rank 3's state;
# its sleep and gettimeofday are psim's (a simulated second; before, the C library's)
cc -shared -fPIC -o "$TMPD/lu/libpsimouter.so.1" -Wl,-soname,libpsimouter.so.1 "$D/abi_libouter.c" "$TMPD/lu/libpsimlu.so.1" || bad "cc abi_libouter.c"
cc -o "$TMPD/lu/outer" "$D/abi_outermain.c" "$TMPD/lu/libpsimouter.so.1" -Wl,-rpath,'$ORIGIN' || bad "cc abi_outermain.c"
out=$("$PSIM" run --np 4 -q --no-measure -- "$TMPD/lu/outer" | sort)
[ "$out" = "$(printf 'outer rank %s slept 1.000000\n' 0 1 2 3)" ] || bad "abi_outermain: $out"
# a library calling MPI and a function its program defines (as NEURON's libnrniv calls nrniv's
# modl_reg): before, its rank's copy, loaded before the program, was refused ("cannot load rank
# 0's copy: undefined symbol: hook_of_program")
"$MPICC" -shared -fPIC -o "$TMPD/lu/libpsimlh.so.1" -Wl,-soname,libpsimlh.so.1 "$D/abi_libhook.c" || bad "mpicc abi_libhook.c"
cc -o "$TMPD/lu/hook" "$D/abi_hookmain.c" "$TMPD/lu/libpsimlh.so.1" -Wl,-rpath,'$ORIGIN' || bad "cc abi_hookmain.c"
out=$("$PSIM" run --np 4 -q --no-measure -- "$TMPD/lu/hook" 2>&1)
[ "$out" = "$(printf 'hook sum 60\nhook sum 60\nhook sum 60\nhook sum 60')" ] || bad "abi_hookmain: $out"
# a program reading the variables of a plain library of its own (copy relocations): filled
# from that library, which psim neither privatizes nor sees in the global scope (before:
# "its variable cv_name (a copy relocation) is defined by no loaded library", exit 2; as
# NWChem's reads of libpython3.11's PyExc_MemoryError); the library found through
# LD_LIBRARY_PATH, then next to the program through its RUNPATH '$ORIGIN' (before: "cannot
# load rank 0's copy: libpsimcv.so.1: cannot open shared object file": the copy of the
# program lies in psim's temporary directory, which its $ORIGIN named)
cc -shared -fPIC -o "$TMPD/lu/libpsimcv.so.1" -Wl,-soname,libpsimcv.so.1 "$D/abi_copyvar_lib.c" || bad "cc abi_copyvar_lib.c"
"$MPICC" -o "$TMPD/copyvar" "$D/abi_copyvar.c" "$TMPD/lu/libpsimcv.so.1" || bad "mpicc abi_copyvar.c"
"$MPICC" -o "$TMPD/lu/copyvar" "$D/abi_copyvar.c" "$TMPD/lu/libpsimcv.so.1" -Wl,-rpath,'$ORIGIN' || bad "mpicc abi_copyvar.c"
readelf -r "$TMPD/lu/copyvar" | grep -q "R_X86_64_COPY.*cv_table" || bad "abi_copyvar: no copy relocation of cv_table: not the case tested"
# the library reads the variable as the program wrote it in each rank (the library is each
# rank's own, as it would be each process's: before, every rank's cv_sum read the library's
# own cv_table, 24; mpgrafic's ranks drew rank 0's random numbers from GSL)
want="rank 0: copy 7 8 9 sum 24
rank 1: copy 8 8 9 sum 25
rank 2: copy 9 8 9 sum 26"
out=$(LD_LIBRARY_PATH="$TMPD/lu" "$PSIM" run --np 3 -q --no-measure -- "$TMPD/copyvar" 2>&1 | sort)
[ "$out" = "$want" ] && echo "ok   a library's variables read by the program (copy relocations)" || bad "abi_copyvar: $out"
out=$("$PSIM" run --np 3 -q --no-measure -- "$TMPD/lu/copyvar" 2>&1 | sort)
[ "$out" = "$want" ] && echo "ok   a library next to the program (RUNPATH \$ORIGIN)" || bad "abi_copyvar, \$ORIGIN: $out"
# Fortran (mpif.h, MPICH's mpifort): MPICH's own libmpichfort.so.12 over psim's libmpich.so.12,
# one copy per rank; each rank's MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE are recognized (with
# one MPI_F_STATUS_IGNORE for all ranks, the statuses of ranks 0-2 were written into them: tag
# fields 7 + 9 = 16); as real MPICH prints at 3 ranks
MPIFORT=$(command -v mpifort.mpich || command -v mpif90.mpich || true)
if [ -n "$MPIFORT" ] && "$MPIFORT" -O1 -o "$TMPD/fortran" "$D/abi_fortran.f90" 2> "$TMPD/fc.err"; then
  out=$("$PSIM" run --np 4 -q --no-measure -- "$TMPD/fortran" | sort) || bad "abi_fortran failed"
  want="rank 0 got 3 from 3 tag 5 sum 6 y 103 x 103 ignored tags 0 time moved T tag_ub T
rank 1 got 0 from 0 tag 5 sum 6 y 100 x 100 ignored tags 0 time moved T tag_ub T
rank 2 got 1 from 1 tag 5 sum 6 y 101 x 101 ignored tags 0 time moved T tag_ub T
rank 3 got 2 from 2 tag 5 sum 6 y 102 x 102 ignored tags 0 time moved T tag_ub T"
  [ "$out" = "$want" ] || bad "abi_fortran: $out"
  if command -v mpiexec.mpich >/dev/null && real=$(timeout 60 mpiexec.mpich -n 4 "$TMPD/fortran" 2>/dev/null | sort); then
    [ "$real" = "$want" ] || bad "abi_fortran: real MPICH prints $real"
  fi
  # the Fortran 90 module and the F08 bindings, as real MPICH prints at 3 ranks
  for m in usempi:"use mpi: rank 0 sum 6 x 6
use mpi: rank 1 sum 6 x 2
use mpi: rank 2 sum 6 x 3" f08:"f08: rank 0 sum 6 got 2 from 2
f08: rank 1 sum 6 got 0 from 0
f08: rank 2 sum 6 got 1 from 1"; do
    "$MPIFORT" -o "$TMPD/${m%%:*}" "$D/abi_${m%%:*}.f90" || { bad "mpifort abi_${m%%:*}.f90"; continue; }
    out=$("$PSIM" run --np 3 -q --no-measure -- "$TMPD/${m%%:*}" | sort)
    [ "$out" = "${m#*:}" ] || bad "abi_${m%%:*}: $out"
  done
  # the program's lines come before psim's report (libgfortran's buffers were flushed at exit,
  # after it: psim run makes preconnected units unbuffered)
  "$PSIM" run --np 4 --no-measure -- "$TMPD/fortran" > "$TMPD/fortran.out" 2>/dev/null || bad "abi_fortran (report) failed"
  last=$(grep -n '^rank 3 got' "$TMPD/fortran.out" | cut -d: -f1) rep=$(grep -n '^simulated time:' "$TMPD/fortran.out" | cut -d: -f1)
  [ -n "$last" ] && [ -n "$rep" ] && [ "$last" -lt "$rep" ] || bad "abi_fortran: the program's output does not precede psim's report: $(cat "$TMPD/fortran.out")"
  # ranks MPI gives back are MPICH's (MPI_PROC_NULL -1, psim's -2): MPI_CART_SHIFT at the ends
  # of a line, MPI_GROUP_TRANSLATE_RANKS of MPI_PROC_NULL, the MPI_HOST and MPI_IO attributes
  # (found by MPICH's f77/topo/cartcrf and f77/attr/baseattr2f); MPI_GET_VERSION is mpif.h's
  # (f77/init/baseenvf); all T, as real MPICH prints
  "$MPIFORT" -O1 -o "$TMPD/franks" "$D/abi_fortran_ranks.f90" || bad "mpifort abi_fortran_ranks.f90"
  out=$("$PSIM" run --np 3 -q --no-measure -- "$TMPD/franks" | sort) || bad "abi_fortran_ranks failed"
  want="rank 0 shift T translate T host T io T version T
rank 1 shift T translate T host T io T version T
rank 2 shift T translate T host T io T version T"
  [ "$out" = "$want" ] || bad "abi_fortran_ranks: $out"
  # STOP and ERROR STOP (libgfortran's exit) end the rank, not the run
  fortran_stop_check "$MPIFORT"
  # MPI_IN_PLACE from a Fortran library of a C program (its own copy of MPICH's COMMON blocks)
  fortran_inplace_check "$MPIFORT" "$MPICC"
  # Fortran's datatypes are their own (a user operation given MPI_INTEGER, not MPI_INT; names),
  # and MINLOC/MAXLOC take MPI_2REAL, MPI_2DOUBLE_PRECISION, MPI_2INTEGER (found by MPICH's
  # f77/coll/uallreducef and f77/datatype/typenamef); all T, as real MPICH prints
  "$MPIFORT" -O1 -w -o "$TMPD/ftypes" "$D/abi_fortran_types.f90" || bad "mpifort abi_fortran_types.f90"
  out=$("$PSIM" run --np 3 -q --no-measure -- "$TMPD/ftypes" | sort) || bad "abi_fortran_types failed"
  want="rank 0 uop T names T pairs T complex+logical T f90 T
rank 1 uop T names T pairs T complex+logical T f90 T
rank 2 uop T names T pairs T complex+logical T f90 T"
  [ "$out" = "$want" ] || bad "abi_fortran_types: $out"
  # attributes from Fortran: MPICH's bindings call the program's callbacks through the proxies
  # they register (MPII_Keyval_set_proxy); found by MPICH's f77/attr tests; as real MPICH prints
  "$MPIFORT" -O1 -w -o "$TMPD/fattr" "$D/abi_fortran_attr.f90" || bad "mpifort abi_fortran_attr.f90"
  out=$("$PSIM" run --np 2 -q --no-measure -- "$TMPD/fattr" | sort) || bad "abi_fortran_attr failed"
  want="rank 0 dup T predefined T type T mpi1 T deletes 2 lastcode T
rank 1 dup T predefined T type T mpi1 T deletes 2 lastcode T"
  [ "$out" = "$want" ] || bad "abi_fortran_attr: $out"
  # across languages: set from Fortran, C reads a pointer to the value (MPICH's
  # f90/attr/fandcattrf90 crashed); set from C, Fortran reads the pointer; as real MPICH prints
  "$MPICC" -O1 -c -o "$TMPD/flang_c.o" "$D/abi_fortran_lang.c" || bad "mpicc abi_fortran_lang.c"
  "$MPIFORT" -O1 -w -o "$TMPD/flang" "$D/abi_fortran_lang.f90" "$TMPD/flang_c.o" || bad "mpifort abi_fortran_lang.f90"
  out=$("$PSIM" run --np 2 -q --no-measure -- "$TMPD/flang" | sort) || bad "abi_fortran_lang failed"
  want="rank 0 c reads fortran T fortran reads c T dup T
rank 1 c reads fortran T fortran reads c T dup T"
  [ "$out" = "$want" ] || bad "abi_fortran_lang: $out"
  # MPI_RSEND_INIT, MPI_INFO_CREATE_ENV, MPI_INFO_GET_STRING (MPICH's prsendf, infocrenvf,
  # infogetstrf stopped at them); as real MPICH prints
  "$MPIFORT" -O1 -w -o "$TMPD/fcalls" "$D/abi_fortran_calls.f90" || bad "mpifort abi_fortran_calls.f90"
  out=$("$PSIM" run --np 3 -q --no-measure -- "$TMPD/fcalls" | sort) || bad "abi_fortran_calls failed"
  want="rank 0 rsend_init T info T
rank 1 rsend_init T info T
rank 2 rsend_init T info T"
  [ "$out" = "$want" ] || bad "abi_fortran_calls: $out"
  # a generalized request with Fortran callbacks (MPICH's f77/pt2pt/greqf stopped at
  # MPII_Grequest_set_lang_f77); as real MPICH prints
  "$MPIFORT" -O1 -w -o "$TMPD/fgreq" "$D/abi_fortran_greq.f90" || bad "mpifort abi_fortran_greq.f90"
  out=$("$PSIM" run --np 2 -q --no-measure -- "$TMPD/fgreq" | sort) || bad "abi_fortran_greq failed"
  want="rank 0 count T request null T calls 11
rank 1 count T request null T calls 11"
  [ "$out" = "$want" ] || bad "abi_fortran_greq: $out"
  # MPI-IO from Fortran (MPICH's bindings: MPI_File_f2c/c2f of psim's handles)
  "$MPIFORT" -O1 -w -o "$TMPD/fio" "$D/abi_fortran_io.f90" || bad "mpifort abi_fortran_io.f90"
  out=$(cd "$TMPD" && "$PSIM" run --np 3 -q --no-measure -- ./fio 2>/dev/null) || bad "abi_fortran_io failed"
  [ "$out" = "count 4 next   10  11  12  13 missing T null T" ] || bad "abi_fortran_io: $out"
  # a distributed graph with MPI_UNWEIGHTED, neighbourhood all-to-alls, matched probes from
  # Fortran (MPICH's f77/pt2pt/mprobef, f77/topo/dgraph_*f stopped at them); as real MPICH prints
  "$MPIFORT" -O1 -w -o "$TMPD/ftopo" "$D/abi_fortran_topo.f90" || bad "mpifort abi_fortran_topo.f90"
  out=$("$PSIM" run --np 3 -q --no-measure -- "$TMPD/ftopo" | sort) || bad "abi_fortran_topo failed"
  want="rank 0 graph T neighbor T mprobe T
rank 1 graph T neighbor T mprobe T
rank 2 graph T neighbor T mprobe T"
  [ "$out" = "$want" ] || bad "abi_fortran_topo: $out"
  # the Fortran runtime's state is each rank's own (libgfortran privatized unasked): unit 10
  # of each rank writes its own file (before, lines went to the file opened last)
  "$MPIFORT" -O1 -o "$TMPD/funits" "$D/abi_fortran_units.f90" || bad "mpifort abi_fortran_units.f90"
  (cd "$TMPD" && rm -f unit?.txt && "$PSIM" run --np 3 -q --no-measure -- "$TMPD/funits" > /dev/null) || bad "abi_fortran_units failed"
  for r in 0 1 2; do
    got=$(cat "$TMPD/unit$r.txt" 2>/dev/null | tr '\n' ' ')
    [ "$got" = "rank $r line 1 rank $r line 2 rank $r line 3 " ] || bad "abi_fortran_units: unit$r.txt holds '$got'"
  done
  # a crashing Fortran rank is psim's report, not libgfortran's backtrace handler (exit 139)
  "$MPIFORT" -O0 -o "$TMPD/fcrash" "$D/abi_fortran_crash.f90" || bad "mpifort abi_fortran_crash.f90"
  expect 4 "rank 1 crashed with signal 11 (Segmentation fault)" "$PSIM" run --np 2 -q -- "$TMPD/fcrash"
else
  echo "note: no MPICH mpifort (gfortran): the Fortran program not run"
fi

# a program using no MPI at all, directly or through its libraries, is still refused
cc -o "$TMPD/nompi" "$D/abi_libmain.c" -Wl,--unresolved-symbols=ignore-all 2>/dev/null &&
  expect 2 "does not use MPI (neither it nor the [0-9]* libraries it needs" "$PSIM" run --np 2 --no-measure -- "$TMPD/nompi"

# errors
"$MPICC" -o "$TMPD/spawn" "$D/abi_spawn.c" || bad "mpicc abi_spawn.c"
expect 4 "MPI error in MPI_Comm_spawn: psim does not implement this MPI call" "$PSIM" run --np 2 -q -- "$TMPD/spawn"
grep -q "before spawn" "$TMPD/out" || bad "spawn: the program's output is lost"
"$MPICC" -o "$TMPD/exit" "$D/exit.c" || bad "mpicc exit.c"
expect 4 "rank 1 called exit(3) at simulated time [0-9.]*, before MPI_Finalize" "$PSIM" run --np 3 -q -- "$TMPD/exit" 3
"$PSIM" run --np 3 -q -- "$TMPD/exit" 0 > "$TMPD/out" || bad "exit(0) on 3 ranks: rc $?"
[ "$(grep -c 'exits 0 after MPI_Finalize' "$TMPD/out")" = 3 ] || bad "exit(0) on 3 ranks: $(cat "$TMPD/out")"
printf 'int MPI_Init(int *a, char ***b) { (void)a; (void)b; return 0; }\n' > "$TMPD/fake.c"
cc -shared -fPIC -o "$TMPD/libmpi.so.12" -Wl,-soname,libmpi.so.12 "$TMPD/fake.c"
printf 'int MPI_Init(int *, char ***);\nint main(int c, char **v) { return MPI_Init(&c, &v); }\n' > "$TMPD/ompi.c"
cc -o "$TMPD/ompi" "$TMPD/ompi.c" "$TMPD/libmpi.so.12"
expect 2 "needs another Open MPI (libmpi.so.12)" "$PSIM" run --np 2 --no-measure -- "$TMPD/ompi"
cc -shared -fPIC -o "$TMPD/libmpi.so.40" -Wl,-soname,libmpi.so.40 "$TMPD/fake.c"
"$MPICC" -o "$TMPD/both" "$TMPD/ompi.c" -Wl,--no-as-needed "$TMPD/libmpi.so.40"
expect 2 "needs both MPICH (libmpich.so.12) and Open MPI (libmpi.so.40)" "$PSIM" run --np 2 --no-measure -- "$TMPD/both"
"$MPICC" -no-pie -o "$TMPD/nopie" "$D/abi_pi.c" -lm 2>/dev/null &&
  expect 2 "is a non-PIE executable" "$PSIM" run --np 2 --no-measure -- "$TMPD/nopie"
expect 2 "cannot find libnothere.so" "$PSIM" run --np 2 --no-measure --privatize-libs libnothere.so -- "$TMPD/pi"
expect 2 "is for programs built by MPICH's mpicc" "$PSIM" run --np 2 --no-measure --privatize-libs libm.so.6 -- "$TMPD/pi_psim"
expect 2 "is the MPI library, which psim supplies" "$PSIM" run --np 2 --no-measure --privatize-libs libmpich.so.12 -- "$TMPD/pi"
expect 2 "too short\|not a shared library" "$PSIM" run --np 2 --no-measure --privatize-libs "$TMPD/pi" -- "$TMPD/pi"
# psim's libmpich.so.12 outside psim run: says so
LD_LIBRARY_PATH="$(dirname "$PSIM")/lib" "$TMPD/pi" > /dev/null 2> "$TMPD/err"
[ $? = 4 ] && grep -q "run the program with psim run" "$TMPD/err" || bad "direct run: $(cat "$TMPD/err")"
"$PSIM" run --help | grep -q -- "--privatize-libs LIST" || bad "--privatize-libs not in psim run --help"
finish $fails
