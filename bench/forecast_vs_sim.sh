#!/bin/sh
# Forecast beside simulation (docs/forecast.md): pdgemm 2048 x 2048 x 2048, R = 64, on every grid
# of 1-32 processes (the paper's Figure 4.2), and pdtrsm case 2 on the grids of 8 processes
# (Figure 4.4). The forecast is `psim forecast`; the simulation is `psim run` of
# examples/pdgemm.c and examples/pdtrsm.c (kernels declared with psim_compute) on a flat
# cluster of 500 Mflop/s hosts, 12.5 MB/s (100 Mb/s) links of 25 us (route: 2 links, so
# lambda = 50 us), once with --network constant and once with SMPI's model. The forecast beside
# the constant model is the paper's (lambda + L tau); beside SMPI it is --network smpi (the same
# formulas, each message with SMPI's latency and bandwidth factors).
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
"$PSIM" forecast pdgemm --m 2048 --n 2048 --k 2048 --nb 64 --procs 1-32 --platform "$PL" \
  --network smpi --quiet --json "$OUT/gemm_forecast_smpi.json" >/dev/null
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
  "$PSIM" forecast pdtrsm --m $M --n 2048 --nb 64 --procs 8 --platform "$PL" --network smpi --quiet --json "$OUT/trsm_smpi_$M.json" >/dev/null
  for g in "1 8" "2 4" "4 2" "8 1"; do
    set -- $g
    echo "$M $1 $2 $(sim constant 8 "$OUT/pdtrsm" $M 2048 64 $1 $2) $(sim smpi 8 "$OUT/pdtrsm" $M 2048 64 $1 $2)" >> "$OUT/trsm.txt"
  done
done
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
def grids(path):
    return {(g["p"], g["q"]): g["time"] for g in json.load(open(path))["grids"]}
def table(title, rows):
    # rows: (label, forecast linear, constant sim, forecast smpi, smpi sim)
    print(f"\n### {title}\n")
    print("| grid | forecast (s) | constant sim (s) | error | forecast --network smpi (s) | SMPI sim (s) | error |")
    print("|---|---|---|---|---|---|---|")
    ec, es = [], []
    for label, f, c, fs, s in rows:
        e1, e2 = (f - c) / c * 100, (fs - s) / s * 100
        ec.append(abs(e1)); es.append(abs(e2))
        print(f"| {label} | {f:.4f} | {c:.4f} | {e1:+.1f} % | {fs:.4f} | {s:.4f} | {e2:+.1f} % |")
    print(f"\nforecast against the constant model: max error {max(ec):.1f} %, average {sum(ec)/len(ec):.2f} %; "
          f"forecast --network smpi against SMPI: max {max(es):.1f} %, average {sum(es)/len(es):.2f} %")
def agreement(fc, sims, idx, n_max):
    agree = 0
    for P in range(1, n_max + 1):
        gs = [k for k in fc if k[0] * k[1] == P]
        f = min(gs, key=lambda k: fc[k]); s = min(gs, key=lambda k: sims[k][idx])
        agree += abs(fc[s] - fc[f]) <= 1e-9 * fc[f]
    return agree
fc, fcs = grids(f"{out}/gemm_forecast.json"), grids(f"{out}/gemm_forecast_smpi.json")
rows, sims = [], {}
for line in open(f"{out}/gemm_sim.txt"):
    p, q, c, s = line.split()
    p, q, c, s = int(p), int(q), float(c), float(s)
    sims[(p, q)] = (c, s)
    rows.append((f"{p}x{q}", fc[(p, q)], c, fcs[(p, q)], s))
table("pdgemm 2048, R = 64, every grid of 1-32 processes", rows)
bf, bfs = min(fc, key=fc.get), min(fcs, key=fcs.get)
bc, bs = min(sims, key=lambda k: sims[k][0]), min(sims, key=lambda k: sims[k][1])
print(f"\nbest grid of all: forecast {bf[0]}x{bf[1]} (ties: {', '.join('%dx%d' % k for k in fc if fc[k] == fc[bf])}), "
      f"constant simulation {bc[0]}x{bc[1]}; forecast --network smpi {bfs[0]}x{bfs[1]}, SMPI simulation {bs[0]}x{bs[1]}")
print(f"best grid per process count (the simulation's best is one of the forecast's best, ties included): "
      f"constant {agreement(fc, sims, 0, 32)}/32, SMPI {agreement(fcs, sims, 1, 32)}/32")
for M in (64, 2048):
    f, fs = grids(f"{out}/trsm_{M}.json"), grids(f"{out}/trsm_smpi_{M}.json")
    rows = []
    for line in open(f"{out}/trsm.txt"):
        m, p, q, c, s = line.split()
        if int(m) == M:
            rows.append((f"{p}x{q}", f[(int(p), int(q))], float(c), fs[(int(p), int(q))], float(s)))
    table(f"pdtrsm case 2, M = {M}, N = 2048, R = 64, 8 processes", rows)
PY
echo "(data and the forecast's HTML report in $OUT)"
