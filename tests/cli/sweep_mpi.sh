#!/bin/sh
# psim sweep in an MPI job (make mpi: build-mpi/psim against MPICH): under mpirun -np 1, 2
# and 3 the JSON and CSV are byte-identical to the plain build's one-process sweep, the runs
# really are spread over the ranks, a run failing on a worker is recorded, --resume works.
# The MPI build is made (and MPICH installed through scripts/deps.sh) when missing.
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
: "${PSIM_MPI:=$PSIM_SRC/build-mpi/psim}"
if ! make -s -C "$PSIM_SRC" mpi MPI_BUILD="$(dirname "$PSIM_MPI")" > "$TMPD/build.log" 2>&1; then
  cat "$TMPD/build.log"
  echo "FAIL make mpi (MPICH and the MPI build of psim) failed"
  exit 1
fi
MPIRUN=$(command -v mpirun.mpich || command -v mpiexec.mpich || command -v mpirun)
# 14 runs, 7 of which fail (rank 8 of the trace out of range with --np 8)
set -- --quiet --vary h=1..7 --vary n=16,8 -- replay --network constant --platform 'flat:{h},1Gf' --np '{n}' "$PSIM_TESTDATA/sweep16.txt"

"$PSIM" sweep -j 1 --json "$TMPD/plain.json" --csv "$TMPD/plain.csv" "$@" 2> /dev/null
[ $? = 1 ] || bad "plain sweep: exit status not 1 (7 failed runs)"
[ "$(grep -c '"status": 2, "error": "psim: [^"]*sweep16.txt:26: rank 8 out of range, expected 0..7 (8 ranks)"' "$TMPD/plain.json")" = 7 ] \
  || bad "plain sweep: the 7 failing runs are not recorded"
grep -q '{"params": {"h": 5, "n": 16}, "status": 0, "error": null, "simulated_time": 4,' "$TMPD/plain.json" || bad "plain sweep: h=5 n=16 is not 4 s"
"$PSIM_MPI" sweep -j 2 --json "$TMPD/nompi.json" --csv "$TMPD/nompi.csv" "$@" 2> /dev/null
cmp -s "$TMPD/plain.json" "$TMPD/nompi.json" || bad "the MPI build outside mpirun: JSON differs"
for np in 1 2 3; do
  timeout 300 "$MPIRUN" -np $np "$PSIM_MPI" sweep --json "$TMPD/mpi$np.json" --csv "$TMPD/mpi$np.csv" "$@" 2> "$TMPD/err$np"
  rc=$?
  [ $rc = 1 ] || bad "mpirun -np $np: exit status $rc, want 1: $(head -n 5 "$TMPD/err$np")"
  cmp -s "$TMPD/plain.json" "$TMPD/mpi$np.json" || bad "mpirun -np $np: JSON differs from the plain sweep's"
  cmp -s "$TMPD/plain.csv" "$TMPD/mpi$np.csv" || bad "mpirun -np $np: CSV differs from the plain sweep's"
  if [ $np -gt 1 ]; then
    line=$(grep "runs over $np MPI ranks" "$TMPD/err$np")
    per=$(echo "$line" | sed 's/.*per rank:\([0-9 ]*\)).*/\1/')
    sum=0; busy=0
    for c in $per; do sum=$((sum + c)); [ "$c" -gt 0 ] && busy=$((busy + 1)); done
    [ "$sum" = 14 ] || bad "mpirun -np $np: $sum runs counted over the ranks, want 14 ($line)"
    [ "$busy" -ge 2 ] || bad "mpirun -np $np: the runs were not spread ($line)"
    echo "     mpirun -np $np: $line"
  fi
done
echo "ok   mpirun -np 1, 2, 3: JSON and CSV identical to the plain build's; failures recorded"

# --root-jobs 0: rank 0 only hands out and gathers
timeout 300 "$MPIRUN" -np 3 "$PSIM_MPI" sweep --root-jobs 0 --json "$TMPD/root0.json" "$@" 2> "$TMPD/err"
cmp -s "$TMPD/plain.json" "$TMPD/root0.json" || bad "mpirun -np 3 --root-jobs 0: JSON differs"
grep -q 'psim sweep: 14 runs over 3 MPI ranks (per rank: 0 [0-9]* [0-9]*)' "$TMPD/err" || bad "--root-jobs 0: $(cat "$TMPD/err")"
echo "ok   --root-jobs 0: rank 0 runs nothing, same JSON"

# the plain build under mpirun -np 2 would be two whole sweeps: refused
timeout 120 "$MPIRUN" -np 2 "$PSIM" sweep --json "$TMPD/two.json" "$@" > /dev/null 2> "$TMPD/err"
[ $? = 2 ] || bad "the plain build under mpirun -np 2: exit status not 2"
grep -q 'started as one of 2 tasks, but not as an MPI job' "$TMPD/err" || bad "the plain build under mpirun -np 2: $(head -n 2 "$TMPD/err")"
[ -e "$TMPD/two.json" ] && bad "the plain build under mpirun -np 2 wrote output"
echo "ok   the plain build under mpirun -np 2 refuses"

# resume under MPI: take the plain sweep's runs with n=16, run the others on the ranks
python3 - "$TMPD/plain.json" "$TMPD/part.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["runs"] = [r for r in d["runs"] if r["params"]["n"] == 16 and r["params"]["h"] % 2]
json.dump(d, open(sys.argv[2], "w"))
EOF
timeout 300 "$MPIRUN" -np 2 "$PSIM_MPI" sweep --resume "$TMPD/part.json" --json "$TMPD/res.json" "$@" 2> "$TMPD/err"
grep -q 'psim sweep: 10 runs over 2 MPI ranks' "$TMPD/err" || bad "mpirun --resume: not 10 runs ($(cat "$TMPD/err"))"
cmp -s "$TMPD/plain.json" "$TMPD/res.json" || bad "mpirun --resume: JSON differs from the plain sweep's"
echo "ok   mpirun -np 2 --resume: 4 runs taken, 10 run, same JSON"
finish $fails
