#!/bin/sh
# psim run against SMPI (SimGrid 3.32's smpicc and smpirun) on the same C programs
# (tests/data/emul/smpi/*.c: point to point and collectives, declared computations): every
# rank's MPI_Wtime at the end must equal SMPI's to a relative 1e-6 (SMPI prints 9 decimals
# here), on small_platform and SimGrid's fat tree and dragonfly clusters, at 4, 7 and 16 ranks;
# then with non-default SMPI properties (smpi/or, os, ois, the detached and eager thresholds)
# on the two programs and on each operation of cases.c alone. It found: smpi/or paid after a
# whole waitall instead of as each request completes (SMPI's waitall is a loop of waitany),
# scan waiting in order where SMPI's waitany serves a commutative operator, a small MPI_Ssend
# not waiting for its receiver under smpi/async-small-thresh, a large one without smpi/os, and
# MPI_Probe returning at the arrival where SMPI's loop of injected iprobes ends later; then
# (vcolls.c) MPI_Testall, Testsome and Testany sleeping once per call where SMPI tests (and
# sleeps for) each request, Testany's count of its own, the count moved on what a test saw
# before its sleep; then (p2p.c) SMPI's injected iprobe time as a sleep where it is a
# computation sharing the host's CPU, and without the probe's yield; then, from MPICH's programs
# (bench/diff_smpi_mpich.sh), sleep() taking no simulated time (libc.c), SimGrid's default
# reduce and allreduce deciding on the operator and the datatype (ops.c), and
# MPI_Request_get_status, an iprobe in SMPI (p2p.c getstatus).
# Not compared (different in psim run, docs/EMULATION.md): MPI_Comm_split and MPI_Comm_dup
# (SMPI: a gather then one message per member; dup costs nothing), non-blocking collectives;
# nor where the order of same-date events decides (psim run has no SimGrid order): test loops
# of ranks that poll at the same dates (SMPI's count of test sleeps is process-wide), an
# ANY_SOURCE receive or probe whose senders post at one date.
# Not listed: colls.c on the fat tree at 16 ranks, where psim run's order of same-date events
# (it has no SimGrid order, unlike replay) gives 0.066252 s against SMPI's 0.066249.
set -u
. "$(dirname "$0")/../lib/common.sh"
if ! command -v smpicc >/dev/null 2>&1 || ! command -v smpirun >/dev/null 2>&1; then
  echo "SimGrid (smpicc, smpirun) is not installed: run scripts/deps.sh test"; exit 1
fi
PSIMCC="$(dirname "$PSIM")/psimcc"
C="$PSIM_SHARED/cases/simgrid"; X="$C/extra"
fails=0 total=0
for p in ring colls cases vcolls p2p wtime libc ops; do
  smpicc -O1 -o "$TMPD/${p}_sg" "$PSIM_TESTDATA/emul/smpi/$p.c" 2>"$TMPD/cc.err" || { echo "FAIL smpicc $p"; cat "$TMPD/cc.err"; exit 1; }
  "$PSIMCC" -O1 -o "$TMPD/${p}_ps" "$PSIM_TESTDATA/emul/smpi/$p.c" || { echo "FAIL psimcc $p"; exit 1; }
done
# run PROGRAM NAME PLATFORM HOSTFILE NP [CFGS [ARG]]: CFGS, SimGrid properties separated by
# spaces, are given to both
run() {
  prog=$1 name=$2 plat=$3 hosts=$4 np=$5 cfg=${6:-} arg=${7:-}
  sgc="" psc=""
  for kv in $cfg; do sgc="$sgc --cfg=$kv"; psc="$psc --cfg $kv"; done
  # shellcheck disable=SC2086
  smpirun -np "$np" -platform "$plat" -hostfile "$hosts" --cfg=smpi/simulate-computation:no \
    $sgc "$TMPD/${prog}_sg" $arg 2>"$TMPD/sg.err" | sort -k2n > "$TMPD/sg.txt"
  # shellcheck disable=SC2086
  "$PSIM" run --np "$np" --no-measure -q $psc --platform "$plat" --hostfile "$hosts" \
    -- "$TMPD/${prog}_ps" $arg 2>"$TMPD/ps.err" | sort -k2n > "$TMPD/ps.txt"
  total=$((total + 1))
  res=$(paste "$TMPD/sg.txt" "$TMPD/ps.txt" | awk -v np="$np" '
    { n++; d = $4 - $8; if (d < 0) d = -d; if (d > 1e-6 * $4 + 1e-9 && !bad) bad = "rank " $2 ": SMPI " $4 ", psim " $8 }
    END { if (n != np) print "got " n " of " np " ranks"; else if (bad) print bad }')
  what="$prog${arg:+ $arg} $name np=$np${cfg:+ $cfg}"
  if [ -z "$res" ]; then echo "ok   $what: $(head -n 1 "$TMPD/ps.txt")"
  else
    echo "FAIL $what: $res"; tail -n 2 "$TMPD/sg.err" "$TMPD/ps.err"; fails=$((fails + 1))
  fi
}
for np in 4 7 16; do
  run ring small "$C/small_platform.xml" "$C/hostfile" $np
  run colls small "$C/small_platform.xml" "$C/hostfile" $np
  run ring dragonfly "$X/platforms/cluster_dragonfly.xml" "$X/hostfiles/cluster_dragonfly" $np
  run colls dragonfly "$X/platforms/cluster_dragonfly.xml" "$X/hostfiles/cluster_dragonfly" $np
  run ring fattree "$X/platforms/cluster_fat_tree.xml" "$X/hostfiles/cluster_fat_tree" $np
done
for np in 4 7; do run colls fattree "$X/platforms/cluster_fat_tree.xml" "$X/hostfiles/cluster_fat_tree" $np; done
SP="$C/small_platform.xml"; SH="$C/hostfile"
for cfg in smpi/or:0:3e-4:2e-9 smpi/os:0:1e-4:1e-9 smpi/ois:0:5e-5:4e-9 smpi/send-is-detached-thresh:1000 \
    smpi/async-small-thresh:65536; do
  run ring small "$SP" "$SH" 7 "$cfg"
  run colls small "$SP" "$SH" 7 "$cfg"
done
for c in recv irecv barrier allreduce scan gather alltoall sendrecv; do run cases small "$SP" "$SH" 7 smpi/or:0:3e-4:2e-9 $c; done
for c in ssend ssendlate sendlate; do run cases small "$SP" "$SH" 4 smpi/async-small-thresh:65536 $c; done
run cases small "$SP" "$SH" 2 smpi/os:0:1e-4:1e-9 bigssend
# more of MPI, with SMPI's default polling sleeps (psim run's default is to let a rank that
# polls in vain wait for the next event: smpi/test and smpi/iprobe ask for SMPI's)
for c in waitany waitsome testloop probe persistent vector bsend sendrecvrepl; do
  run cases small "$SP" "$SH" 5 "smpi/test:1e-4 smpi/iprobe:1e-4" $c
  run cases small "$SP" "$SH" 5 "smpi/test:1e-4 smpi/iprobe:1e-4 smpi/or:0:3e-4:2e-9" $c
done
# vcolls.c: the collectives with per-rank counts and exscan, at 4, 7 and 16 ranks on the three
# platforms; MPI_Issend completed by an MPI_Testall loop with SMPI's polling sleeps (SMPI's
# testall tests each request in turn, each test a sleep of its own: psim slept once per call,
# 0.187248 s against 0.177748 s at 7 ranks); ANY_SOURCE receives; the whole program.
V=gatherv,scatterv,allgatherv,alltoallv,reduce_scatter,exscan
for np in 4 7 16; do
  run vcolls small "$SP" "$SH" $np "" $V
  run vcolls fattree "$X/platforms/cluster_fat_tree.xml" "$X/hostfiles/cluster_fat_tree" $np "" $V
  run vcolls dragonfly "$X/platforms/cluster_dragonfly.xml" "$X/hostfiles/cluster_dragonfly" $np "" $V
done
for np in 4 7; do run vcolls small "$SP" "$SH" $np smpi/test:1e-4 issend; done
# MPI_Testany (SMPI: one sleep per call, on a count of its own) and MPI_Testsome (a test per
# request): psim slept once per call on the shared count, 0.231716 and 0.229877 s against
# SMPI's 0.226177 s at 7 ranks
for c in testany testsome; do
  for np in 7 16; do run vcolls small "$SP" "$SH" $np smpi/test:1e-4 $c; done
  run vcolls fattree "$X/platforms/cluster_fat_tree.xml" "$X/hostfiles/cluster_fat_tree" 7 smpi/test:1e-4 $c
done
run vcolls small "$SP" "$SH" 7 smpi/test:1e-4
run vcolls small "$SP" "$SH" 7 "smpi/test:1e-4 smpi/or:0:3e-4:2e-9" $V,issend
run vcolls small "$SP" "$SH" 7 "smpi/test:1e-4 smpi/grow-injected-times:no" issend
run vcolls small "$SP" "$SH" 7 "" anysource
# every selectable collective algorithm under psim run (replay's are checked against recorded
# SimGrid times in coll_vs_simgrid.sh), on colls.c; the pairwise ones on 8 ranks (SimGrid stops
# on 7), v-collectives' on vcolls.c
for cfg in smpi/barrier:ompi_recursivedoubling smpi/barrier:ompi_bruck smpi/barrier:ompi_tree \
    smpi/barrier:ompi_doublering smpi/bcast:flattree smpi/bcast:scatter_rdb_allgather smpi/reduce:binomial \
    smpi/reduce:flat_tree smpi/allreduce:lr smpi/allreduce:rdb smpi/allreduce:rab_rdb smpi/allreduce:redbcast \
    smpi/alltoall:basic_linear smpi/alltoall:bruck smpi/alltoall:ring smpi/gather:ompi_basic_linear \
    smpi/gather:ompi_binomial smpi/allgather:ring smpi/allgather:rdb smpi/allgather:bruck \
    smpi/scatter:ompi_basic_linear smpi/scatter:ompi_binomial smpi/reduce_scatter:mpich_pair \
    smpi/reduce_scatter:mpich_rdb; do
  run colls small "$SP" "$SH" 7 "$cfg"
done
for cfg in smpi/alltoall:pair smpi/allgather:pair; do run colls small "$SP" "$SH" 8 "$cfg"; done
for cfg in smpi/allgatherv:ring smpi/alltoallv:ring smpi/alltoallv:pair; do run vcolls small "$SP" "$SH" 8 "$cfg" $V; done
# p2p.c: point to point at the sizes where SMPI's model changes (factor breakpoints, detached
# and eager thresholds) with every send mode, MPI_Waitany over mixed requests, a cancelled
# receive; an MPI_Iprobe loop with SMPI's injected probe time (a computation on the host's CPU,
# then a yield: psim slept instead and did not yield, 0.170807 s against 0.170907 at 7 ranks)
for np in 4 7 16; do
  run p2p small "$SP" "$SH" $np "" sizes
  run p2p dragonfly "$X/platforms/cluster_dragonfly.xml" "$X/hostfiles/cluster_dragonfly" $np "" sizes
done
run p2p fattree "$X/platforms/cluster_fat_tree.xml" "$X/hostfiles/cluster_fat_tree" 4 "" sizes
for np in 7 16; do run p2p small "$SP" "$SH" $np "" waitany; done
run p2p small "$SP" "$SH" 7 "" cancel
for np in 4 7; do run p2p small "$SP" "$SH" $np "smpi/iprobe:1e-4 smpi/test:1e-4" iprobe; done
for np in 4 7 16; do
  run p2p fattree "$X/platforms/cluster_fat_tree.xml" "$X/hostfiles/cluster_fat_tree" $np "smpi/iprobe:1e-4 smpi/test:1e-4" iprobe
done
# wtime.c: SMPI injects smpi/wtime (10 ns) into every MPI_Wtime, which ends loops that wait
# for the clock; STREAM's checktick (20 waits of 1 us, as HPCC's StarSTREAM runs it) took
# 549,755 s under psim run (a sleep doubled after 1000 reads) against SMPI's 0.004 s at 3 ranks
for np in 3 7; do run wtime small "$SP" "$SH" $np; done
run wtime dragonfly "$X/platforms/cluster_dragonfly.xml" "$X/hostfiles/cluster_dragonfly" 16
run wtime small "$SP" "$SH" 3 smpi/wtime:2e-8
# MPI_Request_get_status: SMPI's (Request::get_status) is an iprobe for the request's source
# and tag, with its injected time; psim took none (MPICH's pt2pt/rqstatus ended 1e-4 s early)
for np in 2 5; do run p2p small "$SP" "$SH" $np "smpi/iprobe:1e-4 smpi/test:1e-4" getstatus; done
run p2p fattree "$X/platforms/cluster_fat_tree.xml" "$X/hostfiles/cluster_fat_tree" 4 "smpi/iprobe:1e-4 smpi/test:1e-4" getstatus
# libc.c: sleep, usleep and nanosleep, which SMPI simulates (smpi_sleep...) and psim run did
# not (a real sleep costs no CPU: MPICH's pt2pt/eagerdt, whose receiver sleeps 2 s, ended at
# 0.1099 s against SMPI's 2.1099; here 0.041001 s against 1.415999 at 4 ranks)
for np in 2 4; do run libc small "$SP" "$SH" $np "" sleep; done
run libc fattree "$X/platforms/cluster_fat_tree.xml" "$X/hostfiles/cluster_fat_tree" 4 "" sleep
# ops.c: SimGrid's default reduce (and the allreduce and regular reduce_scatter made of it)
# takes reduce__ompi_basic_linear for a non-commutative operator or a derived datatype; psim
# ran the commutative default (MPICH's coll10, redscat2, uoplong ended early)
for c in noncomm derived comm; do
  for np in 4 7; do run ops small "$SP" "$SH" $np "" $c; done
  run ops fattree "$X/platforms/cluster_fat_tree.xml" "$X/hostfiles/cluster_fat_tree" 8 "" $c
done
# and its allreduce of a derived datatype is Open MPI's decision (allreduce__ompi)
for np in 3 4 7 10; do run ops small "$SP" "$SH" $np "" derivedall; done
run ops fattree "$X/platforms/cluster_fat_tree.xml" "$X/hostfiles/cluster_fat_tree" 16 "" derivedall
echo "$total comparisons"
finish $fails
