#!/bin/sh
# SimGrid 3.32's order of same-date events, one small hand-built trace per rule (issue 8).
# Each expected value was computed by SimGrid 3.32 (../shared/tools/simgrid-oracle --actions on
# the same trace and platform) and is written here as a constant; the comments derive it.
set -u
. "$(dirname "$0")/../lib/common.sh"
X="$PSIM_SHARED/cases/simgrid/extra"
PLAT="$X/platforms/cluster_backbone.xml" HOSTS="$X/hostfiles/cluster_backbone"
fails=0

# act LOG RANK N: the end date and duration of rank RANK's N-th logged action of kind $4
act() { awk -v r="$2" -v n="$3" -v k="$4" '$2 == r && $3 == k && ++c == n { print $1, $NF }' "$1"; }

# 1. A test's answer is a simcall: the rank yields after its sleep, before it updates the count.
# Rank 0 tests at 0.01 (nsleeps 1, sleep 1e-4 s to 0.0101; its message comes at 1 s: fails).
# Rank 2 computes 10099999.5 flops (to 0.0100999995 s, within SimGrid's 1e-9 s of 0.0101, so
# both end at one date, the computation first: its heap entry is older and its date smaller).
# Rank 2 posts its irecv (a simcall: it yields), rank 0 asks for its test's answer (a simcall:
# it yields), rank 2 starts its test sleep with nsleeps still 1: 1e-4 s, ending at 0.0102;
# only then rank 0 sees its failure (nsleeps 2). Updating the count at once (no yield) would
# give rank 2 a 2e-4 s sleep ending at 0.0103.
T="$TMPD/test_yield.txt"
cat > "$T" <<'EOF'
0 init
1 init
2 init
3 init
0 irecv 1 0 100
0 compute 1e7
0 test 1 0 0
0 wait 1 0 0
1 compute 1e9
1 send 0 0 100
2 compute 10099999.5
2 irecv 3 0 100
2 test 3 2 0
2 wait 3 2 0
3 compute 1e9
3 send 2 0 100
0 finalize
1 finalize
2 finalize
3 finalize
EOF
log=$(tmpfile)
if ! "$PSIM" replay --quiet --platform "$PLAT" --hostfile "$HOSTS" --np 4 --actions "$log" "$T"; then
  bad "test yield: psim failed"
else
  # SimGrid 3.32: rank 0's test ends at 0.010100 (1e-4 s), rank 2's at 0.010200 (1e-4 s)
  set -- $(act "$log" 2 1 test)
  if [ "${1:-}" = 0.010200 ] && [ "${2:-}" = 0.000100 ]; then
    echo "ok   a test yields before it counts: rank 2's test ends at $1 after $2 s"
  else
    bad "test yield: rank 2's test ends at ${1:-?} after ${2:-?} s, SimGrid 0.010200 after 0.000100"
  fi
  set -- $(act "$log" 0 1 test)
  [ "${1:-}" = 0.010100 ] || bad "test yield: rank 0's test ends at ${1:-?}, SimGrid 0.010100"
fi

finish $fails
