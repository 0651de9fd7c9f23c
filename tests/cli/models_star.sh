#!/bin/sh
# DPS's star network (--network star, docs/models.md): hand-derived times in psim replay, psim
# lb and psim run. A port of bandwidth b is shared EQUALLY by its transfers: a transfer flows
# at min(b_src / n_out(src), b_dst / n_in(dst)); alone a message takes l + s / b with
# l = max(l_src, l_dst), b = min(b_src, b_dst); a host's port is its first link towards the
# next host. Unless said otherwise: flat:N,1e9,1e6,LAT = private links of b = 1e6 B/s.
set -u
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
J=$(tmpfile)
# finish_of R: rank R's finish time in $J
finish_of() { grep "\"rank\": $1," "$J" | sed -n 's/.*"finish_time": \([^,]*\),.*/\1/p'; }
expect() { # NAME GOT WANT
  if rel_close "$2" "$3" 1e-9; then echo "ok   $1: $2"; else bad "$1: psim $2, hand-derived $3"; fi
}
replay() { # NAME ARGS...: replay into $J
  name=$1; shift
  "$PSIM" replay --quiet --json "$J" "$@" > "$TMPD/out" 2>&1 || { bad "$name: psim failed: $(cat "$TMPD/out")"; : > "$J"; }
}
trace() { f=$1; shift; : > "$f"; for l in "$@"; do printf '%s\n' "$l" >> "$f"; done; }

# ---- (a) alone: 1 MB then 1000 B back over ports of 1 MB/s and 1 ms.
#      1e-3 + 1e6/1e6 = 1.001 (rank 1 receives); then 1e-3 + 1000/1e6 = 0.002 more: 1.003.
T=$TMPD/alone.txt
trace "$T" "0 init" "1 init" "0 send 1 0 1000000" "1 recv 0 0 1000000" "1 send 0 0 1000" "0 recv 1 0 1000"
replay alone --platform flat:2,1e9,1e6,1e-3 --network star "$T"
grep -q '"network_model": "star"' "$J" || bad "JSON network_model is not \"star\""
expect "alone: 1 MB" "$(finish_of 1)" 1.001
expect "alone: then 1000 B" "$(finish_of 0)" 1.003
# --cfg network/model:star is the same option
replay alone_cfg --platform flat:2,1e9,1e6,1e-3 --cfg network/model:star "$T"
expect "network/model:star" "$(finish_of 1)" 1.001

# ---- (b) overrides: star/bandwidth:2MBps, star/latency:10ms on the same platform:
#      0.01 + 1e6/2e6 = 0.51; then 0.01 + 1000/2e6 = 0.0105: 0.5205. Latency alone:
#      0.01 + 1 = 1.01; bandwidth alone: 1e-3 + 0.5 = 0.501.
replay over --platform flat:2,1e9,1e6,1e-3 --network star --cfg star/bandwidth:2MBps --cfg star/latency:10ms "$T"
expect "overrides: 1 MB" "$(finish_of 1)" 0.51
expect "overrides: then 1000 B" "$(finish_of 0)" 0.5205
replay over_lat --platform flat:2,1e9,1e6,1e-3 --network star --cfg star/latency:10ms "$T"
expect "latency override" "$(finish_of 1)" 1.01
replay over_bw --platform flat:2,1e9,1e6,1e-3 --network star --cfg star/bandwidth:2e6 "$T"
expect "bandwidth override" "$(finish_of 1)" 0.501

# ---- (c) ports of different links: A's first link towards B is la (1 MB/s, 1 ms), B's towards
#      A is lb (2 MB/s, 5 ms). A->B 1 MB: max(1,5) ms + 1e6 / min(1e6, 2e6) = 1.005;
#      B->A 1000 B: 0.005 + 1000 / 1e6 = 0.006 more: 1.011.
cat > "$TMPD/het.xml" <<'EOF'
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="AS0" routing="Full">
    <host id="A" speed="1Gf"/>
    <host id="B" speed="1Gf"/>
    <link id="la" bandwidth="1MBps" latency="1ms"/>
    <link id="lb" bandwidth="2MBps" latency="5ms"/>
    <route src="A" dst="B"><link_ctn id="la"/><link_ctn id="lb"/></route>
  </zone>
</platform>
EOF
replay het --platform "$TMPD/het.xml" --network star "$T"
expect "ports of different links: A->B" "$(finish_of 1)" 1.005
expect "ports of different links: B->A" "$(finish_of 0)" 1.011

# ---- (d) the issue's example, latency 0: r1 sends 1 MB to r0 and r2 while r3, r4 send 1 MB
#      to r2. n_out(1) = 2, n_in(2) = 3: r1->r0 at min(b/2, b/1) = b/2 (max-min: 2b/3, 1.5 s),
#      the three into r2 at b/3. r0 done at 1e6 / 5e5 = 2; the others at 1e6 / (1e6/3) = 3
#      (r1->r2 stays at b/3 after r1->r0 ends: its receiver's port still limits it).
TI=$TMPD/issue.txt
trace "$TI" "0 init" "1 init" "2 init" "3 init" "4 init" \
  "1 isend 0 0 1000000" "1 isend 2 0 1000000" "1 waitall" "3 send 2 0 1000000" "4 send 2 0 1000000" \
  "0 recv 1 0 1000000" "2 irecv 1 0 1000000" "2 irecv 3 0 1000000" "2 irecv 4 0 1000000" "2 waitall"
replay issue --platform flat:5,1e9,1e6,0 --network star "$TI"
expect "issue example: r1->r0 at b/2" "$(finish_of 0)" 2
for r in 1 2 3 4; do expect "issue example: rank $r" "$(finish_of $r)" 3; done
# the flow model's max-min on the same links gives r0 1.5 s (+ its 16-byte envelope): the two
# models differ exactly where the issue says
replay issue_smpi --platform flat:5,1e9,1e6,0 --cfg network/crosstraffic:no --cfg smpi/bw-factor:0:1 \
  --cfg smpi/lat-factor:0:1 --cfg network/optim:Full "$TI"
expect "issue example under max-min: r1->r0 at 2b/3" "$(finish_of 0)" 1.500024

# ---- (e) recomputation when transfers end: A 0->2 2 MB, B 1->2 1 MB, C 0->3 1 MB.
#      n_out(0) = 2, n_in(2) = 2: all three at b/2; B and C end at 2 s. A has 1 MB left and
#      both its ports now carry only it: rate b, ends at 2 + 1 = 3.
TR=$TMPD/recompute.txt
trace "$TR" "0 init" "1 init" "2 init" "3 init" \
  "0 isend 2 0 2000000" "0 isend 3 0 1000000" "0 waitall" "1 send 2 0 1000000" \
  "2 irecv 0 0 2000000" "2 irecv 1 0 1000000" "2 waitall" "3 recv 0 0 1000000"
replay recompute --platform flat:4,1e9,1e6,0 --network star "$TR"
expect "recompute: C (0->3) at b/2" "$(finish_of 3)" 2
expect "recompute: B (1->2) at b/2" "$(finish_of 1)" 2
expect "recompute: A speeds up to b after 2 s" "$(finish_of 2)" 3
#      Outgoing only: 0->1 1 MB and 0->2 3 MB at b/2; at 2 s the second has 2 MB left at b: 4.
TO=$TMPD/out2.txt
trace "$TO" "0 init" "1 init" "2 init" "0 isend 1 0 1000000" "0 isend 2 0 3000000" "0 waitall" \
  "1 recv 0 0 1000000" "2 recv 0 0 3000000"
replay out2 --platform flat:3,1e9,1e6,0 --network star "$TO"
expect "two out of one port: first" "$(finish_of 1)" 2
expect "two out of one port: second after re-rating" "$(finish_of 2)" 4

# ---- (f) same host: ranks 0 and 1 on node-0: instantaneous, even 1 MB with 1 s of latency.
printf 'node-0:2\n' > "$TMPD/same.hosts"
replay same --platform flat:2,1e9,1e6,1 --network star --hostfile "$TMPD/same.hosts" "$T"
expect "same host: 1 MB" "$(finish_of 1)" 0
expect "same host: both" "$(finish_of 0)" 0

# ---- (g) psim lb: the issue's example as 5 VPs on 5 PEs (block: VP i on PE i, no balancing):
#      finish times 2 + 3 + 3 + 3 + 3 = 14 (max-min would give 13.5), makespan 3.
L=$TMPD/lb.json
"$PSIM" lb "$TI" --platform flat:5,1e9,1e6,0 --network star --pes 5 --balancer none --quiet --json "$L" || bad "psim lb failed"
grep -q '"network_model": "star"' "$L" || bad "lb JSON network_model is not \"star\""
expect "lb: makespan" "$(json_get "$L" simulated_time)" 3
expect "lb: sum of finish times" "$(grep -o '"totals": {"finish_time": [0-9.e+-]*' "$L" | sed 's/.*: //')" 14
#      Migrations share ports too: 4 VPs of loads 4, 3, 2, 1 s (1 flop/s hosts) on 2 PEs,
#      PE 0 = {v0, v1}, PE 1 = {v2, v3}; rotate swaps the sets at each of the 2 steps: 4
#      migrations of 1000 B on 1000 B/s ports, two out of each port and two into each: b/2 each,
#      2 s (1 s under the constant model). 7 + 2 + 7 + 2 = 18 (constant: 16).
T4=$TMPD/t4.txt
for v in 0 1 2 3; do w=$((4 - v)); printf '%d init\n%d compute %d\n%d migrate 1000\n%d compute %d\n%d migrate 1000\n%d finalize\n' $v $v $w $v $v $w $v $v; done > "$T4"
for net in star:18 constant:16; do
  "$PSIM" lb "$T4" --platform "$PSIM_TESTDATA/platforms/lb_slow2.xml" --network "${net%%:*}" --pes 2 --balancer rotate \
    --period 1 --quiet --json "$L" || bad "psim lb rotate failed"
  expect "lb: rotating migrations, ${net%%:*}" "$(json_get "$L" simulated_time)" "${net#*:}"
done

# ---- (h) psim run: the issue's example as a C program (tests/data/emul/star.c), declared
#      costs only (--no-measure). After 1e9 flops at 1 Gflop/s (1 s) on every rank, the same
#      times shifted by 1: r0 3, the others 4. With star/latency:10ms: 1 + 0.01 + 2 = 3.01.
if "$PSIMCC" -O2 -o "$TMPD/star" "$PSIM_TESTDATA/emul/star.c"; then
  "$PSIM" run --np 5 --platform flat:5,1e9,1e6,0 --network star --no-measure -q --json "$J" -- "$TMPD/star" 1e9 \
    || bad "psim run failed"
  grep -q '"network_model": "star"' "$J" || bad "run JSON network_model is not \"star\""
  expect "run: r1->r0 at b/2" "$(finish_of 0)" 3
  for r in 1 2 3 4; do expect "run: rank $r" "$(finish_of $r)" 4; done
  "$PSIM" run --np 5 --platform flat:5,1e9,1e6,0 --network star --cfg star/latency:10ms --no-measure -q \
    --json "$J" -- "$TMPD/star" 1e9 || bad "psim run (latency) failed"
  expect "run: latency override" "$(finish_of 0)" 3.01
else
  bad "psimcc failed"
fi

# ---- (h2) the star costs CPU while its bytes flow (cpu/recv-cost, docs/models.md): a 1 s
# receive (1 MB at 1 MB/s, no latency) overlaps rank 1's 1 s computation (1e9 flops at 1 Gf)
# with recv-cost 0.5: half the CPU for 1 s (0.5 s of work done), then the rest at full speed:
# rank 1 ends at 1.5 s, and node-1's communication used 0.5 CPU-second.
printf '0 init\n1 init\n0 send 1 0 1000000\n1 irecv 0 0 1000000\n1 compute 1e9\n1 wait 0 1 0\n' > "$TMPD/cpu.txt"
"$PSIM" replay --quiet --platform flat:2,1e9,1e6,0 --network star --cfg cpu/recv-cost:0.5 --json "$J" "$TMPD/cpu.txt" \
  || bad "star with cpu/recv-cost failed"
expect "star + recv-cost: rank 1" "$(finish_of 1)" 1.5
grep -q '"host": "node-1", "cpu_app": 1, "cpu_comm": 0.5' "$J" && echo "ok   star + recv-cost: node-1 cpu_comm 0.5" \
  || bad "star + recv-cost: node-1's cpu_comm is not 0.5: $(grep node-1 "$J" | tail -1)"

# ---- (i) bad values: exit 2 with a message naming the option
for arg in "--network stars" "--cfg star/bandwidth:0" "--cfg star/bandwidth:fast" "--cfg star/latency:-1s" \
           "--cfg cpu/factor:0" "--cfg cpu/factor:x"; do
  # shellcheck disable=SC2086
  "$PSIM" replay --quiet --platform flat:2 $arg "$T" > "$TMPD/err" 2>&1
  rc=$?
  if [ $rc -eq 2 ] && grep -q -e "star" -e "cpu/factor" "$TMPD/err"; then echo "ok   rejected: $arg: $(head -n 1 "$TMPD/err")"
  else bad "$arg: exit $rc, $(cat "$TMPD/err")"; fi
done
finish $fails
