#!/bin/sh
# Forecast beside simulation (docs/forecast.md): pdgemm 2048 x 2048 x 2048, R = 64, on every grid
# of 1-32 processes (the paper's Figure 4.2), and pdtrsm case 2 on the grids of 8 processes
# (Figure 4.4). The forecast is `psim forecast`; the simulation is `psim run` of
# examples/pdgemm.c and examples/pdtrsm.c (kernels declared with psim_compute) on a flat
# cluster of 500 Mflop/s hosts, 12.5 MB/s (100 Mb/s) links of 25 us (route: 2 links, so
# lambda = 50 us), once with --network constant and once with SMPI's model.
#   bench/forecast_vs_sim.sh [OUTDIR]     (prints Markdown tables; keeps the data in OUTDIR)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PSIM=${PSIM:-$ROOT/build/psim}
OUT=${1:-$(mktemp -d /tmp/fcbench.XXXXXX)}
mkdir -p "$OUT"
PL=$ROOT/tests/data/forecast/cluster32.xml
"$ROOT/build/psimcc" -O2 -o "$OUT/pdgemm" "$ROOT/examples/pdgemm.c"
"$ROOT/build/psimcc" -O2 -o "$OUT/pdtrsm" "$ROOT/examples/pdtrsm.c" -lm
"$PSIM" forecast pdgemm --m 2048 --n 2048 --k 2048 --nb 64 --procs 1-32 --platform "$PL" \
  --quiet --json "$OUT/gemm_forecast.json" --report "$OUT/gemm_forecast.html" >/dev/null
sim() {   # sim NET NP PROGRAM ARGS... -> prints the simulated time
  net=$1 np=$2; shift 2
  "$PSIM" run --np "$np" --no-measure --platform "$PL" --network "$net" --quiet --json "$OUT/run.json" -- "$@" >/dev/null
  sed -n 's/.*"simulated_time": \([0-9.e+-]*\).*/\1/p' "$OUT/run.json" | head -n 1
}
: > "$OUT/gemm_sim.txt"
for P in $(seq 1 32); do
  for p in $(seq 1 "$P"); do
    [ $((P % p)) -eq 0 ] || continue
    q=$((P / p))
    echo "$p $q $(sim constant "$P" "$OUT/pdgemm" 2048 2048 2048 64 $p $q) $(sim smpi "$P" "$OUT/pdgemm" 2048 2048 2048 64 $p $q)" >> "$OUT/gemm_sim.txt"
  done
done
: > "$OUT/trsm.txt"
for M in 64 2048; do
  "$PSIM" forecast pdtrsm --m $M --n 2048 --nb 64 --procs 8 --platform "$PL" --quiet --json "$OUT/trsm_$M.json" >/dev/null
  for g in "1 8" "2 4" "4 2" "8 1"; do
    set -- $g
    echo "$M $1 $2 $(sim constant 8 "$OUT/pdtrsm" $M 2048 64 $1 $2) $(sim smpi 8 "$OUT/pdtrsm" $M 2048 64 $1 $2)" >> "$OUT/trsm.txt"
  done
done
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
def table(title, rows):
    # rows: (label, forecast, constant, smpi)
    print(f"\n### {title}\n")
    print("| grid | forecast (s) | constant sim (s) | error | SMPI sim (s) | error |")
    print("|---|---|---|---|---|---|")
    ec, es = [], []
    for label, f, c, s in rows:
        e1, e2 = (f - c) / c * 100, (f - s) / s * 100
        ec.append(abs(e1)); es.append(abs(e2))
        print(f"| {label} | {f:.4f} | {c:.4f} | {e1:+.1f} % | {s:.4f} | {e2:+.1f} % |")
    print(f"\nerror against the constant model: max {max(ec):.1f} %, average {sum(ec)/len(ec):.2f} %; "
          f"against SMPI: max {max(es):.1f} %, average {sum(es)/len(es):.2f} %")
    return ec, es
fc = {(g["p"], g["q"]): g["time"] for g in json.load(open(f"{out}/gemm_forecast.json"))["grids"]}
rows, sims = [], {}
for line in open(f"{out}/gemm_sim.txt"):
    p, q, c, s = line.split()
    p, q, c, s = int(p), int(q), float(c), float(s)
    sims[(p, q)] = (c, s)
    rows.append((f"{p}x{q}", fc[(p, q)], c, s))
table("pdgemm 2048, R = 64, every grid of 1-32 processes", rows)
def best(d, idx=None):
    return min(d, key=lambda k: d[k] if idx is None else d[k][idx])
bf, bc, bs = best(fc), best(sims, 0), best(sims, 1)
print(f"\nbest grid of all: forecast {bf[0]}x{bf[1]}, constant simulation {bc[0]}x{bc[1]}, SMPI simulation {bs[0]}x{bs[1]}")
agree_c = agree_s = n = 0
for P in range(1, 33):
    gs = [k for k in fc if k[0] * k[1] == P]
    f = min(gs, key=lambda k: fc[k]); c = min(gs, key=lambda k: sims[k][0]); s = min(gs, key=lambda k: sims[k][1])
    n += 1; agree_c += f == c or fc[c] == fc[f]; agree_s += f == s or fc[s] == fc[f]
print(f"best grid per process count (ties in the forecast count as agreement): forecast = constant simulation for {agree_c}/{n}, = SMPI simulation for {agree_s}/{n}")
for M in (64, 2048):
    f = {(g["p"], g["q"]): g["time"] for g in json.load(open(f"{out}/trsm_{M}.json"))["grids"]}
    rows = []
    for line in open(f"{out}/trsm.txt"):
        m, p, q, c, s = line.split()
        if int(m) == M:
            rows.append((f"{p}x{q}", f[(int(p), int(q))], float(c), float(s)))
    table(f"pdtrsm case 2, M = {M}, N = 2048, R = 64, 8 processes", rows)
PY
echo "(data and the forecast's HTML report in $OUT)"
