#!/bin/sh
# psim forecast against values derived by hand (every expected number is computed here by awk
# from the paper's formulas, never copied from psim's output; docs/forecast.md):
#   (a) pdgemm (4.3)/(4.4) on 2x2, 1x4, 4x1; the best grid; the JSON structure of a range
#   (b) pdtrsm (4.5)-(4.8) on a row (1x2) and a column (2x1), by the critical path
#   (c) a polynomial kernel model file; a 'rate' model file equals --kernel-rate
#   (d) the redistribution of the paper's section 5 on a 4x4 matrix of 2x2 blocks
#   (e) memory: grids that do not fit are discarded; network parameters from a platform
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
J=$TMPD/f.json
# expect NAME GOT WANT: relative 1e-9
expect() {
  if rel_close "$2" "$3" 1e-9; then echo "ok   $1: $2"; else bad "$1: psim '$2', by hand $3"; fi
}
# grid_field FILE P Q FIELD: FIELD of grid p x q in the JSON
grid_field() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for g in d["grids"]:
    if g["p"]==int(sys.argv[2]) and g["q"]==int(sys.argv[3]): print(repr(g[sys.argv[4]]))' "$1" "$2" "$3" "$4"
}
calc() { awk "BEGIN { printf \"%.17g\n\", $1 }"; }

# ---- (a) pdgemm, M = N = K = 256, R = 32, lambda = 100 us, bandwidth 8 MB/s so tau = 1 us per
# element, kernels at 1 Gflop/s. ceil(K/R) = 8 steps.
#   2x2: dgemm_time on 128x32 by 32x128 = 2*128*128*32/1e9 = 1.048576e-3 s; compute = 8 of them.
#        log2 p = log2 q = 1: comm = (1*256*256/2 + 1*256*256/2) * 1e-6 + 8 * (1 + 1) * 1e-4
#   1x4: dgemm on 256x32 by 32x64: same flops; ceil(log2 4) = 2, ceil(log2 1) = 0:
#        comm = 2*256*256/1 * 1e-6 + 8 * (2 + 0) * 1e-4;   4x1 the same by symmetry
G="--m 256 --n 256 --k 256 --nb 32 --latency 100us --bandwidth 8MBps --kernel-rate 1e9"
"$PSIM" forecast pdgemm $G --procs 4 --json "$J" >"$TMPD/out" || bad "pdgemm P=4 failed"
expect "pdgemm 2x2 compute" "$(grid_field "$J" 2 2 compute)" "$(calc '8 * 2*128*128*32/1e9')"
expect "pdgemm 2x2 communication" "$(grid_field "$J" 2 2 communication)" "$(calc '(256*256/2 + 256*256/2) * 1e-6 + 8*2*1e-4')"
expect "pdgemm 2x2 time" "$(grid_field "$J" 2 2 time)" "$(calc '8 * 2*128*128*32/1e9 + (256*256/2 + 256*256/2) * 1e-6 + 8*2*1e-4')"
expect "pdgemm 1x4 time" "$(grid_field "$J" 1 4 time)" "$(calc '8 * 2*256*64*32/1e9 + 2*256*256*1e-6 + 8*2*1e-4')"
expect "pdgemm 4x1 time" "$(grid_field "$J" 4 1 time)" "$(calc '8 * 2*256*64*32/1e9 + 2*256*256*1e-6 + 8*2*1e-4')"
python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["best"]; sys.exit(not (b["p"]==2 and b["q"]==2))' "$J" \
  || bad "pdgemm P=4: best should be 2x2"
# --step 16 (PBLAS's way: steps narrower than the blocks): ceil(256/16) = 16 kernel calls on
# 128x16 by 16x128, the same volume broadcast, 16 steps of latency; --step 32 = R is the above
"$PSIM" forecast pdgemm $G --procs 4 --grid 2x2 --step 16 --json "$TMPD/s.json" >/dev/null || bad "pdgemm --step 16 failed"
expect "pdgemm 2x2 --step 16 compute" "$(grid_field "$TMPD/s.json" 2 2 compute)" "$(calc '16 * 2*128*128*16/1e9')"
expect "pdgemm 2x2 --step 16 time" "$(grid_field "$TMPD/s.json" 2 2 time)" "$(calc '16 * 2*128*128*16/1e9 + (256*256/2 + 256*256/2) * 1e-6 + 16*2*1e-4')"
"$PSIM" forecast pdgemm $G --procs 4 --grid 2x2 --step 32 --json "$TMPD/s32.json" >/dev/null || bad "pdgemm --step 32 failed"
expect "pdgemm 2x2 --step 32 = R" "$(grid_field "$TMPD/s32.json" 2 2 time)" "$(grid_field "$J" 2 2 time)"
grep -q '2 x 2 .*\* best' "$TMPD/out" || bad "pdgemm P=4: the text does not mark 2 x 2 as best"
# ceil(M/p) when p does not divide M: 3x1 on M = 256 -> 86 rows; log2: ceil(log2 3) = 2
"$PSIM" forecast pdgemm $G --grid 3x1 --json "$J" >/dev/null || bad "pdgemm 3x1 failed"
expect "pdgemm 3x1 time" "$(grid_field "$J" 3 1 time)" "$(calc '8 * 2*86*256*32/1e9 + 2*256*256/1*1e-6 + 8*2*1e-4')"

# JSON of a range 1-8: sum of the divisors counts = 1+2+2+3+2+4+2+4 = 20 grids, every field, best
# the minimum, best_per_procs one per count
"$PSIM" forecast pdgemm $G --procs 1-8 --json "$J" --quiet >/dev/null || bad "pdgemm 1-8 failed"
python3 - "$J" <<'PY' || bad "pdgemm 1-8: JSON structure"
import json, sys
d = json.load(open(sys.argv[1]))
g = d["grids"]
assert len(g) == 20, len(g)
for x in g:
    for k in ("p", "q", "procs", "time", "compute", "communication", "idle", "memory", "fits"):
        assert k in x, k
    assert x["p"] * x["q"] == x["procs"] and abs(x["time"] - x["compute"] - x["communication"]) < 1e-12
m = min(g, key=lambda x: x["time"])
assert (d["best"]["p"], d["best"]["q"], d["best"]["time"]) == (m["p"], m["q"], m["time"]), d["best"]
assert [b["procs"] for b in d["best_per_procs"]] == list(range(1, 9))
assert abs(d["network"]["latency"] - 1e-4) < 1e-16 and abs(d["network"]["tau"] - 1e-6) < 1e-18
PY

# ---- (b) pdtrsm case 2, B 2 x 4, R = 2 (two diagonal blocks, one pbdtrsm call), lambda = 1 s,
# tau = 1 s per element (bandwidth 8 B/s), kernels at 1 flop/s: trsm of a 2x2 block = 2*2^2 = 8 s,
# dgemm(2, 2, 2) = 16 s, add(2, 2) = 4 s, a 2x2 block message = 1 + 4 = 5 s (32 bytes, below
# 64 KiB: the sender does not wait).
#   1x2 (on a row, (4.6)): solve block 0 on column 0 (8), send to column 1 (5), which updates block
#        1 (16), solves it (8), and sends it back round the ring (5): 8+5+16+8+5 = 42;
#        critical path compute 8+16+8 = 32, communication 10
#   2x1 (a column, (4.8)): solve block 0 on row 0 (8), update block 1 = the first p-1 = 1 block
#        (16), send it to row 1 (T_send = 5), add (4), solve block 1 (8): 41; no broadcast (q = 1)
T="--m 2 --n 4 --nb 2 --latency 1 --bandwidth 8 --kernel-rate 1"
"$PSIM" forecast pdtrsm $T --procs 2 --json "$J" >/dev/null || bad "pdtrsm failed"
expect "pdtrsm 1x2 time" "$(grid_field "$J" 1 2 time)" "$(calc '8+5+16+8+5')"
expect "pdtrsm 1x2 compute" "$(grid_field "$J" 1 2 compute)" "$(calc '8+16+8')"
expect "pdtrsm 1x2 communication" "$(grid_field "$J" 1 2 communication)" "$(calc '5+5')"
expect "pdtrsm 2x1 time" "$(grid_field "$J" 2 1 time)" "$(calc '8+16+5+4+8')"
expect "pdtrsm 2x1 communication" "$(grid_field "$J" 2 1 communication)" "5"
# --network smpi: each message of S = 32 bytes travels as 48 (SMPI's 16-byte envelope), with the
# latency factor 2.01467 and the bandwidth factor 0.812084 of sizes up to 257 bytes (SimGrid
# 3.32's defaults): 2.01467 * 1 + 48 / (0.812084 * 8)
"$PSIM" forecast pdtrsm $T --grid 1x2 --network smpi --json "$J" >/dev/null || bad "pdtrsm smpi failed"
expect "pdtrsm 1x2 --network smpi" "$(grid_field "$J" 1 2 time)" "$(calc '8+16+8 + 2*(2.01467 + 48/(0.812084*8))')"
# ceil(M/R) = 3 calls of the same pbdtrsm: 3 times the time
"$PSIM" forecast pdtrsm --m 6 --n 4 --nb 2 --latency 1 --bandwidth 8 --kernel-rate 1 --grid 2x1 --json "$J" >/dev/null
expect "pdtrsm 3 calls" "$(grid_field "$J" 2 1 time)" "$(calc '3*41')"
# case 3 (L, L, N: A \ B, lower) is case 2 transposed: B 4 x 2 on 2x1 = B 2 x 4 on 1x2
"$PSIM" forecast pdtrsm --m 4 --n 2 --nb 2 --latency 1 --bandwidth 8 --kernel-rate 1 --grid 2x1 \
  --side L --uplo L --trans N --json "$J" >/dev/null
expect "pdtrsm case 3 = case 2 transposed" "$(grid_field "$J" 2 1 time)" 42
grep -q '"case": 3' "$J" || bad "pdtrsm: case 3 not reported"
# case 2 with side L (U L T: A^T X = B, A of order M) walks M: B 4 x 2 with side L = B 2 x 4
# with side R, on the same grid
"$PSIM" forecast pdtrsm --m 4 --n 2 --nb 2 --latency 1 --bandwidth 8 --kernel-rate 1 --grid 1x2 \
  --side L --uplo U --trans T --json "$J" >/dev/null
expect "pdtrsm case 2, side L" "$(grid_field "$J" 1 2 time)" 42

# ---- (c) a model file: dgemm = 1e-3 + 1e-9 m n k, others unused by pdgemm. 2x2 of (a):
# dgemm_time = 1e-3 + 1e-9*128*128*32
cat > "$TMPD/k.txt" <<'EOF'
# a hand-made model
dgemm 1 1e-3
dgemm m*n*k 1e-9   # per m n k
dtrsm m*n^2 1e-9
add m*n 1e-9
EOF
"$PSIM" forecast pdgemm $(echo "$G" | sed 's/--kernel-rate 1e9//') --kernels "$TMPD/k.txt" --grid 2x2 --json "$J" >/dev/null \
  || bad "pdgemm with a model file failed"
expect "model file dgemm" "$(grid_field "$J" 2 2 compute)" "$(calc '8 * (1e-3 + 1e-9*128*128*32)')"
"$PSIM" calibrate --kernels --kernel-rate 1e9 -o "$TMPD/rate.txt" || bad "calibrate --kernel-rate failed"
awk '$1 == "rate" && $2 == 1e9 { ok = 1 } END { exit !ok }' "$TMPD/rate.txt" || bad "calibrate --kernel-rate: no 'rate 1e9' line"
"$PSIM" forecast pdgemm $(echo "$G" | sed 's/--kernel-rate 1e9//') --kernels "$TMPD/rate.txt" --procs 4 --json "$TMPD/r.json" >/dev/null
"$PSIM" forecast pdgemm $G --procs 4 --json "$J" >/dev/null
[ "$(grid_field "$J" 2 2 time)" = "$(grid_field "$TMPD/r.json" 2 2 time)" ] || bad "a 'rate' file differs from --kernel-rate"

# ---- (d) redistribution, M = N = K = 4 in 2x2 blocks (4 elements each), lambda = 1, tau = 1:
# a message of one block costs 5 s. A on Ga = 1x2 (processes 0, 1), B on Gb = 2x1 (2, 3).
#   on Ga: B's block (I, J) goes from process 2+I to process J: every process of Gb sends 2
#          messages, every one of Ga receives 2: 2 * 5 = 10
#   on Gb: A's block (I, J) from J to 2+I: the same, 10
#   on 2x2 (0 1 / 2 3): A: (0,0) and (0,1) stay, (1,0) 0->2, (1,1) 1->3: one message each, 5;
#          then B: (0,0) 2->0, (0,1) 2->1, (1,0) 3->2, (1,1) stays: process 2 sends 2: 10. 15.
"$PSIM" forecast pdgemm --m 4 --n 4 --k 4 --nb 2 --latency 1 --bandwidth 8 --kernel-rate 1 \
  --ga 1x2 --gb 2x1 --json "$J" --report "$TMPD/s.html" >"$TMPD/out" || bad "redistribution failed"
grep -q 'Where to compute' "$TMPD/s.html" || bad "redistribution: not in the report"
python3 - "$J" <<'PY' || bad "redistribution costs"
import json, sys
d = json.load(open(sys.argv[1]))
r = {(s["option"], s["p"], s["q"]): s["redistribution"] for s in d["schedule"]}
assert r[("on Ga", 1, 2)] == 10 and r[("on Gb", 2, 1)] == 10, r
assert r[("new grid", 2, 2)] == 15, r
b = min(d["schedule"], key=lambda s: s["total"])
assert d["schedule_best"]["total"] == b["total"]
for s in d["schedule"]:
    assert abs(s["total"] - s["redistribution"] - s["pdgemm"]) < 1e-9
PY
grep -q 'where to compute' "$TMPD/out" || bad "redistribution: no table"
# with too little memory for the 1x2 and 2x1 grids (A, B, C 4 x 2 each + panels (4 + 2) x 2 = 36
# elements, 288 bytes) but enough for 2x2 (2 x 2 each + panels (2 + 2) x 2 = 20 elements, 160
# bytes), "on Ga" and "on Gb" are discarded and the new 2x2 grid is chosen
"$PSIM" forecast pdgemm --m 4 --n 4 --k 4 --nb 2 --latency 1 --bandwidth 8 --kernel-rate 1 \
  --ga 1x2 --gb 2x1 --memory 200 --json "$J" >"$TMPD/out" || bad "redistribution with memory failed"
python3 - "$J" <<'PY' || bad "redistribution: memory"
import json, sys
d = json.load(open(sys.argv[1]))
f = {(s["option"], s["p"], s["q"]): s["fits"] for s in d["schedule"]}
assert not f[("on Gb", 2, 1)] and not f[("on Ga", 1, 2)] and f[("new grid", 2, 2)], f
assert (d["schedule_best"]["p"], d["schedule_best"]["q"]) == (2, 2)
PY

# ---- (e) memory: pdgemm 256^3, R = 32 on 2x2: A, B, C 128x128 each + panels (128+128) x 32,
# 8 bytes: 8 * (3*128*128 + 256*32) = 458752 bytes; 1x4: A (M x K) 256 x 64 local, B (K x N)
# 256 x 64, C 256 x 64, panels (256 + 64) x 32: 8 * (3*256*64 + 320*32) = 475136
"$PSIM" forecast pdgemm $G --procs 4 --json "$J" --memory 460000 >"$TMPD/out" || bad "memory failed"
expect "memory 2x2" "$(grid_field "$J" 2 2 memory)" 458752
expect "memory 1x4" "$(grid_field "$J" 1 4 memory)" 475136
[ "$(grid_field "$J" 1 4 fits)" = "False" ] && [ "$(grid_field "$J" 2 2 fits)" = "True" ] || bad "memory: fits flags"
grep -q 'discarded' "$TMPD/out" || bad "memory: discarded grids not said"
"$PSIM" forecast pdgemm $G --procs 4 --memory 1000 >"$TMPD/out" && grep -q 'none fits' "$TMPD/out" || bad "memory: nothing fits"
# network from a platform: node-0 -> node-1 crosses two links of 25 us and 12.5 MB/s
"$PSIM" forecast pdgemm $(echo "$G" | sed 's/--latency 100us --bandwidth 8MBps//') \
  --platform "$PSIM_TESTDATA/forecast/cluster32.xml" --procs 4 --json "$J" >"$TMPD/out" || bad "platform failed"
expect "platform lambda" "$(json_get "$J" latency)" 5e-05
expect "platform tau" "$(json_get "$J" tau)" "$(calc '8/12.5e6')"
grep -q 'route node-0 -> node-1' "$TMPD/out" || bad "platform: route not stated"
# without a kernel option, the platform's host speed (500 Mflop/s) is the rate
"$PSIM" forecast pdgemm --m 256 --n 256 --k 256 --nb 32 --platform "$PSIM_TESTDATA/forecast/cluster32.xml" \
  --grid 2x2 --json "$J" >/dev/null
expect "platform speed as rate" "$(grid_field "$J" 2 2 compute)" "$(calc '8 * 2*128*128*32/5e8')"

# the HTML report: the two figures as inline SVG, no external resource
"$PSIM" forecast pdgemm $G --procs 1-16 --quiet --report "$TMPD/r.html" >/dev/null || bad "report failed"
[ "$(grep -c '<svg' "$TMPD/r.html")" -eq 2 ] || bad "report: expected 2 SVG figures"
grep -q 'Figure 4.2' "$TMPD/r.html" && grep -q 'Figure 3.1' "$TMPD/r.html" || bad "report: figure titles"
! grep -q 'src="http\|href="http' "$TMPD/r.html" || bad "report: external resource"
# deterministic: the same inputs give the same bytes
"$PSIM" forecast pdtrsm --m 640 --n 2048 --nb 64 --procs 1-12 --latency 50us --bandwidth 1e7 --kernel-rate 1e9 --json "$TMPD/d1.json" >/dev/null
"$PSIM" forecast pdtrsm --m 640 --n 2048 --nb 64 --procs 1-12 --latency 50us --bandwidth 1e7 --kernel-rate 1e9 --json "$TMPD/d2.json" >/dev/null
cmp -s "$TMPD/d1.json" "$TMPD/d2.json" || bad "JSON not deterministic"
finish "$fails"
