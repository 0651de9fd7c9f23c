#!/bin/sh
# Help and behaviour agree: psim platform FILE lists hosts and links; psim lb warns when the
# trace has no migrate (no balancing can happen); the replay JSON names the collective
# algorithms that run; psim run checks its program before measuring the host speed; psim demo
# passes replay options on.
set -u
. "$(dirname "$0")/../lib/common.sh"
SG="$PSIM_SHARED/cases/simgrid"
fails=0
ok() { echo "ok   $1"; }

# platform FILE: "7 hosts, 25 links", and the links listed (the first 20, or --all)
"$PSIM" platform "$SG/small_platform.xml" >"$TMPD/p" 2>&1 || bad "platform FILE exit status"
grep -q ": 7 hosts, 25 links" "$TMPD/p" || bad "platform FILE: no '7 hosts, 25 links' line"
[ "$(grep -c '^  host ' "$TMPD/p")" -eq 7 ] || bad "platform FILE: 7 host lines expected"
[ "$(grep -c '^  link ' "$TMPD/p")" -eq 20 ] || bad "platform FILE: 20 link lines expected (then '...')"
grep -q '^  link 145  2.58338e+06 Bps  0.000410463 s$' "$TMPD/p" || bad "platform FILE: link 145 not listed with its bandwidth and latency"
grep -q '25 links; --all' "$TMPD/p" || bad "platform FILE: no hint at --all"
"$PSIM" platform "$SG/small_platform.xml" --all >"$TMPD/pa" || bad "platform --all exit status"
[ "$(grep -c '^  link ' "$TMPD/pa")" -eq 25 ] || bad "platform --all: 25 link lines expected"
"$PSIM" platform --default --route node-0 node-1 >"$TMPD/r" || bad "platform --default --route exit status"
grep -q "route node-0 -> node-1: 3 links, latency 3e-06 s, bottleneck 1.25e+09 Bps" "$TMPD/r" ||
  bad "platform --default --route node-0 node-1: wrong route"
ok "platform lists hosts and links"

# lb without migrate: a warning on stderr (once); with migrates: none
printf '0 init\n0 compute 1e6\n1 init\n1 compute 3e6\n' >"$TMPD/nomig.txt"
printf '0 init\n0 compute 1e6\n0 migrate\n1 init\n1 compute 3e6\n1 migrate\n' >"$TMPD/mig.txt"
"$PSIM" lb "$TMPD/nomig.txt" --pes 2 --balancer greedy,refine --period 1 -q 2>"$TMPD/e1" >/dev/null ||
  bad "lb without migrate: exit status"
[ "$(grep -c "no 'migrate' action, so no balancing can happen" "$TMPD/e1")" -eq 1 ] ||
  { bad "lb without migrate: expected one warning"; cat "$TMPD/e1"; }
"$PSIM" lb "$TMPD/mig.txt" --pes 2 --balancer greedy --period 1 -q 2>"$TMPD/e2" >/dev/null ||
  bad "lb with migrate: exit status"
grep -q "migrate" "$TMPD/e2" && bad "lb with migrate: unexpected warning"
"$PSIM" lb "$TMPD/nomig.txt" --pes 2 --balancer none -q 2>"$TMPD/e5" >/dev/null || bad "lb none: exit status"
grep -q "migrate" "$TMPD/e5" && bad "lb --balancer none: a warning about balancing, which was not asked for"
ok "lb warns when the trace has no migrate"

# the replay JSON names the algorithms that run, never "default"
T="$SG/traces/actions_allreduce.txt"
"$PSIM" replay -q "$T" --json "$TMPD/j1" || bad "replay --json exit status"
for kv in '"barrier": "ompi_basic_linear"' '"bcast": "binomial_tree"' '"allreduce": "reduce+bcast"' \
  '"alltoall": "ompi"' '"reduce": "linear"'; do
  grep -qF "$kv" "$TMPD/j1" || bad "replay JSON lacks $kv"
done
grep -q '"default"' "$TMPD/j1" && bad "replay JSON still says \"default\""
"$PSIM" replay -q "$T" --cfg smpi/allreduce:rdb --cfg smpi/bcast:flattree --json "$TMPD/j2" || bad "replay --cfg exit status"
grep -qF '"allreduce": "rdb"' "$TMPD/j2" || bad "replay JSON: --cfg smpi/allreduce:rdb not named"
grep -qF '"bcast": "flattree"' "$TMPD/j2" || bad "replay JSON: --cfg smpi/bcast:flattree not named"
ok "replay JSON names the collective algorithms"

# psim run: a missing or non-psimcc program is reported before the host speed is measured
"$PSIM" run --np 2 -- "$TMPD/nosuchprog" >/dev/null 2>"$TMPD/e3"; rc=$?
[ $rc -eq 2 ] || bad "run missing program: exit $rc"
grep -q "nosuchprog: cannot open the program" "$TMPD/e3" || bad "run missing program: message"
grep -q "host speed reference measured" "$TMPD/e3" && bad "run missing program: measured the host speed first"
"$PSIM" run --np 2 -- /bin/sh >/dev/null 2>"$TMPD/e4"; rc=$?
[ $rc -eq 2 ] || bad "run /bin/sh: exit $rc"
grep -q "build it with psimcc" "$TMPD/e4" || bad "run /bin/sh: message"
grep -q "host speed reference measured" "$TMPD/e4" && bad "run /bin/sh: measured the host speed first"
ok "run checks its program first"

# demo passes replay options on
(cd "$TMPD" && "$PSIM" demo -q --json demo.json --report demo.html) >/dev/null 2>&1 || bad "demo --json --report exit status"
grep -q '"np": 64' "$TMPD/demo.json" || bad "demo --json: no 64-rank result"
grep -q '<svg' "$TMPD/demo.html" || bad "demo --report: no HTML report"
ok "demo writes --json and --report"

finish $fails
