#!/bin/sh
# psim calibrate --machine on two nodes (docs/calibrate.md, "Several nodes"): from measurements
# inside a node and between two (tests/data/calib/two-nodes.txt: the network part made up from
# a known two-protocol network, so its fit is exact), the platform is a cluster of --nodes
# hosts of --cores cores. A ping-pong between two nodes replays in twice the network's one-way
# time (6 us + size x 0.8 ns from 64 KiB on, 2 us + size x 1 ns under it: the data's own
# formula), in psim and in SimGrid; one inside a node in twice the node's fitted time (psim's
# loopback factors; SimGrid applies the network's factors there, so it is not compared);
# 1000 nodes are a flag away; a hostfile naming one host is refused before anything runs.
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
M=$PSIM_TESTDATA/calib/two-nodes.txt
"$PSIM" calibrate --machine --measurements "$M" --cores 4 -o "$TMPD/p.xml" --save-measurements "$TMPD/again.txt" \
  >"$TMPD/fit.txt" 2>"$TMPD/err" || bad "calibrate from two nodes' measurements: exit $? ($(head -c 300 "$TMPD/err"))"
grep -q 'radical="0-1" speed="7.53035e+09f" core="4"' "$TMPD/p.xml" || bad "not 2 nodes of 4 cores: $(grep radical "$TMPD/p.xml")"
grep -q 'bw="1.25e+09Bps" lat="9.92e-07s" sharing_policy="SPLITDUPLEX"' "$TMPD/p.xml" ||
  bad "the hosts' links are not the network's (1.25 GB/s, (2 us - 16 x 1 ns) / 2, full duplex)"
grep -q '<prop id="smpi/lat-factor" value="0:1;46357:3.01774"/>' "$TMPD/p.xml" ||
  bad "SMPI's lat-factor is not the network's: 1, then (6 us - 16 x 0.8 ns) / 1.984 us from sqrt(32768 x 65536) + 16 B"
grep -q '<prop id="smpi/bw-factor" value="0:0.8;46357:1"/>' "$TMPD/p.xml" || bad "SMPI's bw-factor is not 1 GB/s / 1.25 GB/s, then 1"
grep -q '<prop id="psim/network/loopback-bw-factor"' "$TMPD/p.xml" || bad "no loopback factors"
grep -q '<prop id="smpi/wtime" value="2.41217e-08"/>' "$TMPD/p.xml" || bad "smpi/wtime is not the node's"
# the saved measurements are the same two blocks: the same platform again
"$PSIM" calibrate --machine --measurements "$TMPD/again.txt" --cores 4 -o "$TMPD/p2.xml" >/dev/null 2>&1
cmp -s "$TMPD/p.xml" "$TMPD/p2.xml" || bad "a fit of the saved measurements differs"
[ "$(grep -c '^probe 1 ' "$TMPD/again.txt")" = 2 ] && grep -q '^probe 1 16777216 between-nodes$' "$TMPD/again.txt" ||
  bad "the saved measurements have not both blocks"

model_us() {   # model_us WHERE SIZE: the fit table's model time (us), WHERE: inside / between
  awk -v w="$1" -v s="$2" '/^inside a node:/ { c = "inside" } /^between two nodes:/ { c = "between" }
    c == w && $1 == s && $3 == "us" { print $4; exit }' "$TMPD/fit.txt"
}
pp() {   # pp SIZE HOSTFILE-LINES...: the replayed ping-pong's time
  s=$1; shift
  printf '%s\n' "$@" >"$TMPD/hosts"
  printf '0 init\n1 init\n0 send 1 0 %s\n1 recv 0 0 %s\n1 send 0 0 %s\n0 recv 1 0 %s\n0 finalize\n1 finalize\n' \
    "$s" "$s" "$s" "$s" >"$TMPD/pp.txt"
  "$PSIM" replay --np 2 --platform "$TMPD/p.xml" --hostfile "$TMPD/hosts" --json "$TMPD/pp.json" "$TMPD/pp.txt" \
    >/dev/null 2>"$TMPD/rerr" || { bad "replay of $s bytes on $*: $(cat "$TMPD/rerr")"; echo 0; return; }
  grep -q "ignoring" "$TMPD/rerr" && bad "replay ignores some of the platform: $(cat "$TMPD/rerr")"
  json_get "$TMPD/pp.json" simulated_time
}
for s in 8 4096 65536 1048576; do
  # between nodes: the data's formula (to the 6 digits the platform writes factors with)
  want=$(awk -v s="$s" 'BEGIN { printf "%.9g", 2 * (s < 65536 ? 2e-6 + s * 1e-9 : 6e-6 + s * 8e-10) }')
  got=$(pp "$s" node0 node1)
  rel_close "$got" "$want" 1e-6 || bad "between nodes, $s bytes: $got s, want $want s"
  if command -v smpirun >/dev/null 2>&1; then
    sg=$("$PSIM_SHARED/tools/simgrid-oracle" --np 2 --platform "$TMPD/p.xml" --hostfile "$TMPD/hosts" "$TMPD/pp.txt" 2>"$TMPD/sgerr")
    ps=$(awk -v t="$got" 'BEGIN { printf "%.6f", t }')
    [ "$sg" = "$ps" ] || bad "SimGrid replays $s bytes between nodes in '$sg' s, psim in $ps s ($(head -c 300 "$TMPD/sgerr"))"
  fi
  # inside a node: the node's fit (4 significant digits in the table)
  want=$(awk -v m="$(model_us inside "$s")" 'BEGIN { print 2 * m * 1e-6 }')
  got=$(pp "$s" node1 node1)
  rel_close "$got" "$want" 1e-3 || bad "inside a node, $s bytes: $got s, want $want s (the node's model)"
done
# a thousand nodes
"$PSIM" calibrate --machine --measurements "$M" --cores 4 --nodes 1000 -o "$TMPD/big.xml" >/dev/null 2>&1 || bad "--nodes 1000"
grep -q 'radical="0-999"' "$TMPD/big.xml" || bad "--nodes 1000: $(grep radical "$TMPD/big.xml")"
"$PSIM" platform "$TMPD/big.xml" 2>&1 | grep -q "1000 hosts" || bad "psim platform: $("$PSIM" platform "$TMPD/big.xml" 2>&1 | head -3)"
# a hostfile of one host, twice: no second node to measure
printf 'hostA\nhostA:2\n' >"$TMPD/one"
"$PSIM" calibrate --machine --hostfile "$TMPD/one" --mpiexec /nonexistent/mpiexec >/dev/null 2>"$TMPD/err"
rc=$?
[ $rc -eq 2 ] && grep -q "one:2: 1 host: measuring between nodes needs two" "$TMPD/err" ||
  bad "one-host hostfile: exit $rc, $(cat "$TMPD/err")"
# a block between nodes where one node's is expected first
awk '/between-nodes/ { p = 1 } p' "$M" >"$TMPD/only.txt"
"$PSIM" calibrate --machine --measurements "$TMPD/only.txt" >/dev/null 2>"$TMPD/err"
[ $? -eq 2 ] && grep -q "only.txt:1: the measurements between nodes come after those inside a node" "$TMPD/err" ||
  bad "between-nodes block alone: $(cat "$TMPD/err")"
finish $fails
