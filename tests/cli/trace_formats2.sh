#!/bin/sh
# DUMPI and OTF2 traces (issue 37): psim trace stats on the sample DUMPI trace of
# ../shared/cases/traces/ gives its README's counts (sst-dumpi's dumpistats), given the .meta
# or its directory; it replays, its TIT conversion replays in the same time, and a truncated
# rank file is an error naming that file. An OTF2 archive, in a psim built without libotf2, is
# an error naming the package to install.
set -u
. "$(dirname "$0")/../lib/common.sh"
CASES="${PSIM_CASES:-$PSIM_SRC/../shared/cases/traces}"
PLAT="$PSIM_TESTDATA/traces/tiny_1gf.xml"
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
want() { grep -Eq "$3" "$2" || { fail "$1: no line matching '$3' in:"; cat "$2"; }; }
if [ ! -d "$CASES" ]; then echo "skip: no sample traces in $CASES"; exit 0; fi
D="$CASES/dumpi/sstmac_testbgp_7"
o=$(tmpfile)

# 7 ranks; Isend 588 and Irecv 588 of 89 doubles (418,656 B); Waitall 98 completing them all
# (one wait per request: 1176); Alltoall 49 and Barrier 21 on the user communicator of all 7
# ranks (Comm_group, Group_incl, Comm_create), so they are replayed; Init, Finalize 7.
for t in "$D/testbgp.meta" "$D"; do
  "$PSIM" trace stats "$t" > "$o" 2> "$o.err" || { fail "stats $t: exit $?"; cat "$o.err"; }
  want "dumpi $t" "$o" '^ranks +7$'
  want "dumpi $t" "$o" '^  isend +588$'
  want "dumpi $t" "$o" '^  irecv +588$'
  want "dumpi $t" "$o" '^  wait +1176$'
  want "dumpi $t" "$o" '^  alltoall +49$'
  want "dumpi $t" "$o" '^  barrier +21$'
  want "dumpi $t" "$o" '^  init +7$'
  want "dumpi $t" "$o" '^p2p bytes sent +418656$'
  # trace stats sums the declared per-peer size of an alltoall (89 x 8 B): the README's
  # 244,216 B is the total sent, 7 peers times this
  want "dumpi $t" "$o" '^collective bytes +34888 '
  want "dumpi $t" "$o.err" 'compute is the wall-clock time'
done

# replay, and its TIT conversion replays in the same simulated time
"$PSIM" replay --platform "$PLAT" "$D" > "$o" 2>&1 || { fail "replay dumpi: exit $?"; cat "$o"; }
t1=$(sed -n 's/^simulated time: //p' "$o")
[ -n "$t1" ] || fail "replay dumpi: no simulated time"
"$PSIM" trace convert "$D/testbgp.meta" -o "$TMPD/tit" > "$o" 2>&1 || { fail "convert dumpi: exit $?"; cat "$o"; }
"$PSIM" replay --platform "$PLAT" "$TMPD/tit" > "$o" 2>&1 || { fail "replay converted dumpi: exit $?"; cat "$o"; }
t2=$(sed -n 's/^simulated time: //p' "$o")
[ "$t1" = "$t2" ] || fail "converted dumpi replays in '$t2', the trace in '$t1'"

# a truncated rank file: exit 2 naming it
mkdir -p "$TMPD/cut"
cp "$D"/* "$TMPD/cut/"; chmod u+w "$TMPD/cut"/*
head -c 5000 "$D/testbgp-0003.bin" > "$TMPD/cut/testbgp-0003.bin"
"$PSIM" trace stats "$TMPD/cut/testbgp.meta" > "$o" 2>&1; rc=$?
[ $rc = 2 ] || fail "truncated dumpi: exit $rc, expected 2"
grep -q "$TMPD/cut/testbgp-0003.bin: DUMPI trace: no index record at its end" "$o" || { fail "truncated dumpi message"; cat "$o"; }
# a record cut inside the stream (index intact, a call label that is no DUMPI call)
python3 - "$D/testbgp-0003.bin" "$TMPD/cut/testbgp-0003.bin" <<'PY' || fail "python3"
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[16:18] = b'\xff\xf0'  # the first record's call label
open(sys.argv[2], 'wb').write(b)
PY
"$PSIM" trace stats "$TMPD/cut/testbgp.meta" > "$o" 2>&1; rc=$?
[ $rc = 2 ] || fail "corrupted dumpi: exit $rc, expected 2"
grep -q "testbgp-0003.bin: DUMPI trace: record 1 at byte 16: call id 65520 is not a DUMPI call" "$o" || { fail "corrupted dumpi message"; cat "$o"; }

# OTF2 without libotf2: the error names the package
O="$CASES/otf2/sstmac_mpi_coverage_10"
if ! "$PSIM" trace stats "$O" > "$o" 2>&1; then
  grep -q "libotf2-trace-dev" "$o" || { fail "otf2 without libotf2: message"; cat "$o"; }
fi
finish $fails
