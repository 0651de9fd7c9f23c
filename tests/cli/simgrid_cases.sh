#!/bin/sh
# The six replay cases of SimGrid's own test suite (../shared/cases/simgrid): psim must give
# SimGrid's simulated time and every per-action end time to 1e-6 s.
set -u
. "$(dirname "$0")/../lib/common.sh"
C="$PSIM_SHARED/cases/simgrid"
fails=0
check() { # name np expected_time trace...
  name=$1 np=$2 want=$3; shift 3
  out=$(tmpfile) log=$(tmpfile)
  if ! "$PSIM" replay --quiet --platform "$C/small_platform.xml" --hostfile "$C/hostfile" \
        --np "$np" --json "$out" --actions "$log" "$@"; then
    echo "FAIL $name: psim exited with an error"; fails=$((fails + 1)); return
  fi
  got=$(json_get "$out" simulated_time)
  if ! close_to "$got" "$want" 1.01e-6; then
    echo "FAIL $name: simulated time $got, SimGrid $want"; fails=$((fails + 1))
  fi
  if ! awk -v tol=1.01e-6 -f "$PSIM_SRC/tests/lib/compare_actions.awk" "$C/expected/$name.log" "$log"; then
    echo "FAIL $name: per-action end times differ (above)"; fails=$((fails + 1))
  else
    echo "ok   $name: $got s, every action within 1e-6 s"
  fi
}
check bcast 3 19.692506 "$C/traces/actions_bcast.txt"
check split_send_recv 2 13.622360 "$C/traces/actions0.txt" "$C/traces/actions1.txt"
check barrier 3 2.573164 "$C/traces/actions_barrier.txt"
check isend_test_wait 3 39.320741 "$C/traces/actions_with_isend.txt"
check allreduce 3 13.139083 "$C/traces/actions_allreduce.txt"
check alltoall 3 0.007159 "$C/traces/actions_alltoall.txt"
finish $fails
