#!/bin/sh
# psim run --trace-tit: emulate once, replay many. The trace recorded from a run replays
# (same platform, hostfile and --np) to the same simulated time, to 1e-6 (in fact bit for
# bit), with declared and with measured computation; ANY_SOURCE receives carry the source
# that matched; MPI_Migrate records the rank's live heap. Also PSIM_TASK with
# --measure-tasks / --task-costs.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
check() { if ! "$@"; then echo "FAIL: $*"; fails=$((fails + 1)); fi; }
has() { grep -q -- "$2" "$1" || { echo "FAIL: '$2' not in $1:"; head -20 "$1"; fails=$((fails + 1)); }; }

for p in ring pi jacobi master_worker; do
  "$PSIMCC" -O2 -o "$TMPD/$p" "$PSIM_SRC/examples/$p.c" -lm || { echo "FAIL: psimcc $p"; exit 1; }
done
for p in colls tasks; do
  "$PSIMCC" -O2 -o "$TMPD/$p" "$PSIM_TESTDATA/emul/$p.c" || { echo "FAIL: psimcc $p"; exit 1; }
done
out=$(tmpfile) js=$(tmpfile) js2=$(tmpfile)
PLAT="$PSIM_SHARED/cases/simgrid/small_platform.xml"
HOSTS="$PSIM_SHARED/cases/simgrid/hostfile"

# same_time NP [run options] -- PROGRAM ARGS: run with --trace-tit, replay, compare
same_time() {
  np=$1; shift
  ropts=""
  while [ "$1" != "--" ]; do ropts="$ropts $1"; shift; done
  shift
  rm -rf "$TMPD/tr"
  # shellcheck disable=SC2086
  "$PSIM" run --np "$np" $ropts --json "$js" -q --trace-tit "$TMPD/tr" -- "$@" > "$out" ||
    { echo "FAIL: run $*"; fails=$((fails + 1)); return; }
  # replay takes the same platform/hostfile/model options (all but the run-only ones)
  popts=$(echo "$ropts" | sed -e 's/--no-measure//' -e 's/--host-speed-ref [^ ]*//' -e 's/--task-costs [^ ]*//')
  # shellcheck disable=SC2086
  "$PSIM" replay --np "$np" $popts --json "$js2" -q "$TMPD/tr" ||
    { echo "FAIL: replay of $*"; fails=$((fails + 1)); return; }
  a=$(json_get "$js" simulated_time) b=$(json_get "$js2" simulated_time)
  if ! rel_close "$b" "$a" 1e-9; then echo "FAIL: $* (np $np$ropts): run $a, replay $b"; fails=$((fails + 1)); fi
}

# declared costs (exact) and measured CPU time, on the default cluster and on SimGrid's
# small platform with its hostfile (two ranks per host for some)
same_time 4 --no-measure -- "$TMPD/ring" 3
same_time 16 --host-speed-ref 1e9 -- "$TMPD/ring" 5
same_time 4 --no-measure -- "$TMPD/pi" 1000000 --declare
same_time 8 --host-speed-ref 1e9 --platform "$PLAT" --hostfile "$HOSTS" -- "$TMPD/pi" 2000000
same_time 4 --no-measure -- "$TMPD/jacobi" 48 50 1e-9 --declare
same_time 16 --host-speed-ref 1e9 -- "$TMPD/jacobi" 96 300 1e-4
same_time 6 --host-speed-ref 1e9 --platform "$PLAT" --hostfile "$HOSTS" -- "$TMPD/jacobi" 64 100 1e-4
same_time 5 --no-measure -- "$TMPD/master_worker" 40
same_time 7 --host-speed-ref 1e9 --platform "$PLAT" --hostfile "$HOSTS" -- "$TMPD/master_worker" 60
# every collective, sub-communicators (recorded as point-to-point), probe, waitany, testall,
# persistent requests; a non-default algorithm; the constant model
# colls with declared costs only. Known gap (issue 9): with measured bursts, under the
# sanitizers (slower code between calls) about 1 run in 10 of colls differs from its replay by
# ~1.6e-7 s (np 5, constant network; also with --cfg smpi/test, so not the polling); the
# call sequence replay times apart is not found yet. The measured cases above cover ring, pi,
# jacobi and master/worker.
same_time 4 --no-measure -- "$TMPD/colls"
same_time 7 --no-measure -- "$TMPD/colls"
same_time 8 --no-measure --cfg smpi/allreduce:rdb --cfg smpi/bcast:flattree -- "$TMPD/colls"
same_time 5 --no-measure --network constant -- "$TMPD/colls"

# the master's MPI_ANY_SOURCE receives are recorded with the source that matched
rm -rf "$TMPD/tr"
"$PSIM" run --np 5 --no-measure -q --trace-tit "$TMPD/tr" -- "$TMPD/master_worker" 40 > "$out"
check test "$(grep -c ' recv -1 ' "$TMPD/tr/rank-0.txt")" = 0
check test "$(grep -c ' recv [1-4] ' "$TMPD/tr/rank-0.txt")" -gt 30
check test "$(wc -l < "$TMPD/tr/list")" = 5
has "$TMPD/tr/rank-0.txt" "^0 init"
has "$TMPD/tr/rank-3.txt" "^3 finalize"

# PSIM_TASK: measure, then inject; injected runs repeat exactly and skip the block
costs=$(tmpfile)
"$PSIM" run --np 4 --host-speed-ref 1e9 --measure-tasks "$costs" -q -- "$TMPD/tasks" > "$out"
has "$out" "block ran 5 times of 5"
has "$costs" "^relax [0-9.e+-]* 4000$"
"$PSIM" run --np 4 --no-measure --task-costs "$costs" --json "$js" -q -- "$TMPD/tasks" > "$out"
has "$out" "block ran 0 times of 5"
"$PSIM" run --np 4 --no-measure --task-costs "$costs" --json "$js2" -q -- "$TMPD/tasks" > "$out"
check test "$(json_get "$js" simulated_time)" = "$(json_get "$js2" simulated_time)"
# a declared cost on one rank (no message): 5 steps x 200 iterations x 1e5 flops at
# 10 Gflop/s = 0.01 s exactly, then the program's one read of MPI_Wtime (smpi/wtime: 10 ns)
echo "relax 1e5" > "$costs"
"$PSIM" run --np 1 --no-measure --task-costs "$costs" --json "$js" -q -- "$TMPD/tasks" > "$out"
check close_to "$(json_get "$js" simulated_time)" 0.01000001 1e-15
# ...and the trace of an injected run replays to its time; MPI_Migrate recorded the live heap
same_time 4 --no-measure --task-costs "$costs" -- "$TMPD/tasks"
for r in 0 1 2 3; do has "$TMPD/tr/rank-$r.txt" "^$r migrate $((4097 + 1000 * r))$"; done
# a task without a cost is an error; both task options at once are refused
echo "other 5" > "$costs"
"$PSIM" run --np 2 --no-measure --task-costs "$costs" -q -- "$TMPD/tasks" > "$out" 2>&1
check test $? -eq 4
has "$out" "PSIM_TASK 'relax' has no cost"
"$PSIM" run --np 2 --task-costs "$costs" --measure-tasks "$costs" -- "$TMPD/tasks" > "$out" 2>&1
check test $? -eq 2
# an unwritable trace directory is bad input
"$PSIM" run --np 2 --no-measure -q --trace-tit /proc/psim-no/such -- "$TMPD/ring" 1 > "$out" 2>&1
check test $? -eq 2
finish $fails
