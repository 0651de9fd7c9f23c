#!/bin/sh
# The simulated run written for Paraver (--trace-prv, --trace X.prv) and Vampir (--trace-otf2,
# --trace X.otf2), issue 37, read back with the formats' own tool (otf2-print, from Debian's
# otf2-tools) and with psim's readers:
#   (a) a 2-rank ping-pong on a flat cluster whose times are derived here by hand: the Paraver
#       records and otf2-print's events carry those times (in ns), sizes and tags;
#   (b) round trips: TIT -> prv / otf2 -> psim trace stats and psim replay give the TIT's
#       counts and makespan, on the ping-pong, 8- and 72-rank stencils and collectives;
#   (c) psim run writes them too (jacobi built with psimcc): every message in both files, and
#       the replay of each predicts psim run's time;
#   (d) the same run gives byte-identical files; names and errors.
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
have_otf2=0
grep -q '^PSIM_HAVE_OTF2:INTERNAL=1' "$(dirname "$PSIM")/CMakeCache.txt" 2>/dev/null && have_otf2=1
if [ $have_otf2 = 1 ] && ! command -v otf2-print > /dev/null; then
  echo "FAIL otf2-print missing (scripts/deps.sh test installs otf2-tools)"; exit 1
fi
# o2 DIR: the --trace-otf2 option when this psim writes OTF2 (else nothing: checked apart)
o2() { [ $have_otf2 = 1 ] && echo "--trace-otf2 $1"; }
PL="$PSIM_TESTDATA/platforms/flat8_1ms.xml"
NOX="--cfg network/crosstraffic:no --cfg smpi/bw-factor:0:1 --cfg smpi/lat-factor:0:1"
cd "$TMPD" || exit 1

# ---- (a) rank 0 computes 1 s (1e9 flops at 1 Gf), sends 1 MB (rendez-vous) to rank 1, which
# computes 0.5 s and sends 1000 B (detached) back. Route n0 -> n1: two private links, 2 ms,
# 100 MB/s; with the factors at 1 and no cross-traffic a message of S bytes takes
# 2 ms + (S + 16) / 1e8 s (tests/cli/models_hand.sh). The 1 MB transfer starts at 1 s (the
# receive is posted at 0) and ends at t1; the answer leaves at t1 + 0.5 and arrives at t2.
cat > pp.txt <<'EOF'
0 init
1 init
0 compute 1e9
0 send 1 7 1000000
1 recv 0 7 1000000
1 compute 5e8
1 send 0 3 1000
0 recv 1 3 1000
0 finalize
1 finalize
EOF
ns() { awk "BEGIN { printf \"%.0f\", ($1) * 1e9 }"; }
T1=$(ns "1 + 2e-3 + 1000016 / 1e8")
T1C=$(ns "1 + 2e-3 + 1000016 / 1e8 + 0.5")
T2=$(ns "1 + 2e-3 + 1000016 / 1e8 + 0.5 + 2e-3 + 1016 / 1e8")
[ "$T1/$T2" = "1012000160/1514010320" ] || bad "hand derivation: t1 $T1 t2 $T2"
# shellcheck disable=SC2086
"$PSIM" replay --quiet --platform "$PL" --np 2 $NOX pp.txt --json pp.json --trace pp.prv $(o2 ppo) \
  2> err || bad "replay with --trace pp.prv --trace-otf2: $(cat err)"
rel_close "$(json_get pp.json simulated_time)" "$(awk "BEGIN { printf \"%.17g\", $T2 / 1e9 }")" 1e-12 ||
  bad "replay's makespan $(json_get pp.json simulated_time), hand-derived $T2 ns"
head -1 pp.prv | grep -qx "#Paraver (01/01/1970 at 00:00):${T2}_ns:2(1,1):1:2(1:1,1:2),1" ||
  bad "Paraver header: $(head -1 pp.prv)"
# states: rank 0 Running 0-1 s, Blocking Send 1 s-t1, Waiting a message t1-t2; rank 1
# Waiting a message 0-t1, Running t1-t1+0.5
for rec in "1:1:1:1:1:0:1000000000:1" "1:1:1:1:1:1000000000:$T1:4" "1:1:1:1:1:$T1:$T2:3" \
           "1:2:1:2:1:0:$T1:3" "1:2:1:2:1:$T1:$T1C:1" \
           "2:1:1:1:1:1000000000:50000001:1" "2:1:1:1:1:$T1:50000001:0" "2:2:1:2:1:$T1C:50000001:1" \
           "2:1:1:1:1:0:50000003:31" "2:2:1:2:1:$T1C:50000003:32" \
           "3:1:1:1:1:1000000000:1000000000:2:1:2:1:0:$T1:1000000:7" \
           "3:2:1:2:1:$T1C:$T1C:1:1:1:1:$T1:$T2:1000:3"; do
  grep -qx "$rec" pp.prv || bad "pp.prv has no record $rec"
done
[ "$(grep -c '^3:' pp.prv)" = 2 ] || bad "pp.prv: $(grep -c '^3:' pp.prv) communication records, not 2"
# Paraver wants records in time order
awk -F: '/^[123]:/ { if ($6 + 0 < last) { print "back in time: " $0; exit 1 } last = $6 + 0 }' pp.prv ||
  bad "pp.prv's records are not sorted by time"
grep -q '^41   MPI_Sendrecv$' pp.pcf && bad "pp.pcf names a call the run did not make"
grep -q '^1    MPI_Send$' pp.pcf && grep -q '^2    MPI_Recv$' pp.pcf && grep -q '^1    Running$' pp.pcf ||
  bad "pp.pcf does not name MPI_Send 1, MPI_Recv 2 and the Running state"
[ "$(sed -n 1,3p pp.row | tr '\n' ' ')" = "LEVEL CPU SIZE 2 1.n0 2.n1 " ] || bad "pp.row: $(head -3 pp.row)"
if [ $have_otf2 = 1 ]; then
  otf2-print ppo/traces.otf2 > pp.o2 2> err || bad "otf2-print ppo/traces.otf2: $(cat err)"
  # otf2-print: EVENT LOCATION TIMESTAMP ATTRIBUTES
  ev() { awk -v e="$1" -v l="$2" '$1 == e && $2 == l { printf "%s ", $3 }' pp.o2; }
  [ "$(ev ENTER 0)" = "0 0 1000000000 $T1 $T2 " ] || bad "rank 0's ENTER times: $(ev ENTER 0)"
  [ "$(ev LEAVE 0)" = "0 1000000000 $T1 $T2 $T2 " ] || bad "rank 0's LEAVE times: $(ev LEAVE 0)"
  [ "$(ev MPI_SEND 0)" = "1000000000 " ] && [ "$(ev MPI_RECV 0)" = "$T2 " ] ||
    bad "rank 0's MPI_SEND at $(ev MPI_SEND 0), MPI_RECV at $(ev MPI_RECV 0)"
  [ "$(ev MPI_RECV 1)" = "$T1 " ] && [ "$(ev MPI_SEND 1)" = "$T1C " ] ||
    bad "rank 1's MPI_RECV at $(ev MPI_RECV 1), MPI_SEND at $(ev MPI_SEND 1)"
  grep -q 'MPI_SEND  *0  *1000000000  Receiver: 1 .*Tag: 7, Length: 1000000$' pp.o2 &&
    grep -q 'MPI_RECV  *0  *'"$T2"'  Sender: 1 .*Tag: 3, Length: 1000$' pp.o2 ||
    bad "otf2-print's messages: $(grep MPI_ pp.o2)"
  # 5 regions per rank (MPI_Init, compute, MPI_Send/Recv, MPI_Recv/compute/Send, MPI_Finalize)
  [ "$(grep -c '^ENTER  *0 ' pp.o2)/$(grep -c '^ENTER  *1 ' pp.o2)" = "5/5" ] ||
    bad "ENTER events per rank: $(grep -c '^ENTER  *0 ' pp.o2)/$(grep -c '^ENTER  *1 ' pp.o2)"
  otf2-print -G ppo/traces.otf2 > pp.def
  grep -q 'CLOCK_PROPERTIES .*Ticks per Seconds: 1000000000, Global Offset: 0, Length: '"$T2"', Date: UNDEFINED' pp.def ||
    bad "clock properties: $(grep CLOCK pp.def)"
  grep -q 'REGION .*Name: "MPI_Send".*Role: POINT2POINT, Paradigm: MPI' pp.def &&
    grep -q 'COMM  *0  Name: "MPI_COMM_WORLD"' pp.def && grep -q 'LOCATION_GROUP  *1  Name: "MPI Rank 1".*"node::n1"' pp.def ||
    bad "OTF2 definitions: regions, MPI_COMM_WORLD, ranks on their hosts"
  # an archive written again in the same directory, by a run of fewer ranks: the earlier run's
  # third location is gone (libotf2 alone leaves it), another file there stays
  printf '0 compute 1e9\n1 compute 1e9\n2 compute 1e9\n' > three.txt
  "$PSIM" replay --quiet --np 3 three.txt --trace-otf2 again 2> err || bad "--trace-otf2 again (3 ranks): $(cat err)"
  touch again/traces/notes.txt
  "$PSIM" replay --quiet --platform "$PL" --np 2 $NOX pp.txt --trace-otf2 again 2> err || bad "--trace-otf2 again (2 ranks): $(cat err)"
  [ "$(cd again/traces && ls | tr '\n' ' ')" = "0.def 0.evt 1.def 1.evt notes.txt " ] ||
    bad "the archive written again: $(ls again/traces | tr '\n' ' ')"
  otf2-print again/traces.otf2 > again.o2 2> err && cmp -s again.o2 pp.o2 || bad "the archive written again is not the 2-rank run's: $(cat err)"
else
  # shellcheck disable=SC2086
  "$PSIM" replay --quiet --platform "$PL" --np 2 $NOX pp.txt --trace-otf2 no 2> err && bad "--trace-otf2 without libotf2 succeeded"
  grep -q "built without libotf2 (install Debian's libotf2-trace-dev" err || bad "--trace-otf2 without libotf2: $(cat err)"
fi

# ---- (b) round trips: psim trace stats and the replay of what was written, against the TIT's
# stats: the same counts, bytes and compute (1e9 flop/s reference for stats, the platform's
# host speed for replay); the same makespan
stats() { "$PSIM" trace stats "$@" 2> /dev/null | grep -E '^(ranks|  (send|recv|isend|irecv|compute|[a-z]*gather|bcast|barrier|alltoall|scatter)) |^p2p bytes|^compute flops'; }
# trip NAME TRACE REPLAY-ARGS...: writes TRACE's replay as prv and otf2, compares
trip() {
  name=$1; tr=$2; shift 2
  rm -rf "$name.o2"
  # shellcheck disable=SC2046
  "$PSIM" replay --quiet "$@" "$tr" --json "$name.json" --trace "$name.prv" $(o2 "$name.o2") 2> err ||
    { bad "$name: replay: $(cat err)"; return; }
  want=$(json_get "$name.json" simulated_time)
  outs="$name.prv"
  [ $have_otf2 = 1 ] && outs="$outs $name.o2"
  for o in $outs; do
    "$PSIM" replay --quiet "$@" "$o" --json "$name.back.json" 2> err || { bad "$name: replay $o: $(cat err)"; continue; }
    got=$(json_get "$name.back.json" simulated_time)
    rel_close "$got" "$want" "$tol" && echo "ok   $name: $o replays in $got s ($want)" ||
      bad "$name: $o replays in $got s, the run took $want s"
  done
}
tol=1e-12
# shellcheck disable=SC2086
trip pingpong pp.txt --platform "$PL" --np 2 $NOX
[ "$(stats pp.txt)" = "$(stats pingpong.prv)" ] || bad "pingpong: stats of the .prv differ: $(stats pingpong.prv)"
[ $have_otf2 = 1 ] && { [ "$(stats pp.txt)" = "$(stats pingpong.o2)" ] || bad "pingpong: stats of the OTF2 differ: $(stats pingpong.o2)"; }
"$PSIM" gen stencil --ranks 8 --iters 5 -o st8 > /dev/null 2>&1
trip stencil st8
# (compute flops: the stencil's host speed is the embedded cluster's, not stats' 1e9 flop/s)
[ "$(stats st8 | grep -v 'compute flops')" = "$(stats stencil.prv | grep -v 'compute flops')" ] ||
  bad "stencil: stats of the .prv: $(stats stencil.prv)"
stats stencil.prv | grep -qx '  isend          160' || bad "stencil.prv: not 160 isend"
[ "$(grep -c '^3:' stencil.prv)" = 160 ] || bad "stencil.prv: $(grep -c '^3:' stencil.prv) messages, not 160"
if [ $have_otf2 = 1 ]; then
  otf2-print stencil.o2/traces.otf2 > st.o2
  [ "$(grep -c '^MPI_ISEND ' st.o2)/$(grep -c '^MPI_IRECV ' st.o2)/$(grep -c '^MPI_COLLECTIVE_END .*ALLREDUCE.*Sent: 64, Received: 64' st.o2)" = 160/160/40 ] ||
    bad "stencil.o2: isend/irecv/allreduce (8 x 8 B sent) $(grep -c '^MPI_ISEND ' st.o2)/$(grep -c '^MPI_IRECV ' st.o2)/$(grep -c 'ALLREDUCE' st.o2)"
fi
# 72 ranks: MPI_COMM_WORLD's communicator record lists 72 tasks (the reader split at most 64
# fields and refused it). One rank per host: the traces record times, so ranks sharing a
# host would replay their computations' contention twice.
"$PSIM" gen stencil --ranks 72 --iters 2 -o st72 > /dev/null 2>&1
printf '%s\n' "<?xml version='1.0'?>" '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">' \
  '<platform version="4.1">' \
  '  <cluster id="c" prefix="n" suffix="" radical="0-79" speed="1Gf" bw="100MBps" lat="1ms"/>' '</platform>' > c80.xml
trip stencil72 st72 --platform c80.xml
# collectives without reduction (a reduction's flops are not in these formats) nor v-sizes
for c in allgather alltoall barrier bcast gather gatherv scatter allgatherv; do
  trip "$c" "$PSIM_TESTDATA/coll/${c}_4.txt" --np 4
done

# ---- (c) psim run: jacobi's 120 messages (MPI_Sendrecv, MPI_PROC_NULL at the ends) in both
PSIMCC="$(dirname "$PSIM")/psimcc"
if "$PSIMCC" -O2 -o jacobi "$PSIM_SRC/examples/jacobi.c" -lm 2> err; then
  rm -rf j.o2
  # shellcheck disable=SC2046
  "$PSIM" run --np 4 --no-measure --quiet --json j.json --trace j.prv $(o2 j.o2) -- ./jacobi 64 20 1e-4 \
    > /dev/null 2> err || bad "psim run --trace j.prv --trace-otf2: $(cat err)"
  want=$(json_get j.json simulated_time)
  [ "$(grep -c '^3:' j.prv)" = 120 ] || bad "j.prv: $(grep -c '^3:' j.prv) messages, not 120"
  "$PSIM" replay --quiet j.prv --json jb.json 2> /dev/null && rel_close "$(json_get jb.json simulated_time)" "$want" 1e-3 ||
    bad "replay of psim run's .prv: $(json_get jb.json simulated_time) s, the run $want s"
  if [ $have_otf2 = 1 ]; then
    otf2-print j.o2/traces.otf2 > j.p
    [ "$(grep -c '^MPI_ISEND ' j.p)/$(grep -c '^MPI_IRECV ' j.p)/$(grep -c '^MPI_COLLECTIVE_END' j.p)" = 120/120/12 ] ||
      bad "j.o2: isend/irecv/collectives $(grep -c '^MPI_ISEND ' j.p)/$(grep -c '^MPI_IRECV ' j.p)/$(grep -c '^MPI_COLLECTIVE_END' j.p)"
    "$PSIM" replay --quiet j.o2 --json jo.json 2> /dev/null && rel_close "$(json_get jo.json simulated_time)" "$want" 1e-3 ||
      bad "replay of psim run's OTF2: $(json_get jo.json simulated_time) s, the run $want s"
  fi
else
  bad "psimcc jacobi.c: $(head -3 err)"
fi
# psim run's collectives on MPI_COMM_WORLD carry the call's root and sizes (tests/data/tracer/
# colls.c at np=2, rank 1's view: MPI_Gather of 4 doubles to rank 1 and of 3 ints to rank 0,
# MPI_Scatter of 3 doubles from 0, MPI_Reduce of 6 doubles to 1, MPI_Bcast of 5 bytes from 0),
# not the bytes the algorithm's messages moved and root 0
if "$PSIMCC" -O1 -Wno-stringop-overflow -o colls "$PSIM_TESTDATA/tracer/colls.c" 2> err; then
  # shellcheck disable=SC2046
  "$PSIM" run --np 2 --no-measure --quiet --trace colls.prv $(o2 colls.o2) -- ./colls > /dev/null 2> err ||
    bad "psim run colls --trace colls.prv: $(cat err)"
  for f in colls.prv $([ $have_otf2 = 1 ] && echo colls.o2/traces.otf2); do
    rm -rf back && "$PSIM" trace convert "$f" -o back > /dev/null 2> err || bad "trace convert $f: $(cat err)"
    got=$(grep -E '^1 (gather|scatter|reduce|bcast) ' back/rank-1.txt | grep -v '^1 gather 5 \|^1 scatter 4 ' | tr '\n' ';')
    [ "$got" = "1 gather 32 32 1;1 gather 12 12 0;1 scatter 24 24 0;1 reduce 48 0 1;1 bcast 5 0;" ] ||
      bad "$f: psim run's rooted collectives read back as: $got"
  done
else
  bad "psimcc colls.c: $(head -3 err)"
fi

# ---- (d) determinism, names, errors
mkdir -p again
# shellcheck disable=SC2046
"$PSIM" replay --quiet st8 --trace again/stencil.prv $(o2 again/stencil.o2) 2> err || bad "again: $(cat err)"
cmp -s stencil.prv again/stencil.prv && cmp -s stencil.pcf again/stencil.pcf && cmp -s stencil.row again/stencil.row ||
  bad "the same replay wrote a different Paraver trace"
[ $have_otf2 = 1 ] && { diff -r stencil.o2 again/stencil.o2 > /dev/null || bad "the same replay wrote a different OTF2 archive"; }
if [ $have_otf2 = 1 ]; then
  "$PSIM" replay --quiet st8 --trace named.otf2 2> err || bad "--trace named.otf2: $(cat err)"
  [ -f named.otf2 ] && [ -f named.def ] && [ -f named/0.evt ] || bad "--trace named.otf2 did not write named.otf2, named.def, named/"
  "$PSIM" trace stats named.otf2 2> /dev/null | grep -qx 'ranks            8' || bad "named.otf2 does not read back"
  "$PSIM" replay --quiet st8 --trace-otf2 pp.txt/o2 2> err && bad "--trace-otf2 pp.txt/o2 succeeded"
  grep -q '^psim: pp.txt/o2: cannot write an OTF2 archive there: Not a directory' err || bad "--trace-otf2 pp.txt/o2: $(cat err)"
fi
"$PSIM" replay --quiet st8 --trace-prv plain 2> err || bad "--trace-prv plain: $(cat err)"
head -c 9 plain | grep -q '#Paraver' && [ -f plain.pcf ] && [ -f plain.row ] || bad "--trace-prv plain: no plain, plain.pcf, plain.row"
"$PSIM" replay --quiet st8 --trace x.txt 2> err && bad "--trace x.txt succeeded"
grep -q '\*.prv for Paraver, \*.otf2 for OTF2' err || bad "--trace x.txt: $(cat err)"
"$PSIM" replay --quiet st8 --trace-prv 2> err; [ $? = 2 ] && grep -q -- '--trace-prv needs a value' err ||
  bad "--trace-prv without a value: $(cat err)"
finish $fails
