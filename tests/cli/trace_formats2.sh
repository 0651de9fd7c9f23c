#!/bin/sh
# DUMPI and OTF2 traces (issue 37): psim trace stats on the sample DUMPI trace of
# ../shared/cases/traces/ gives its README's counts (sst-dumpi's dumpistats), given the .meta
# or its directory; it replays, its TIT conversion replays in the same time, and a truncated
# rank file is an error naming that file. The OTF2 sample gives its README's counts, replays,
# converts to TIT that replays in the same time, and damaged copies of it are errors naming the
# damaged file; in a psim built without libotf2 it is an error naming the package to install.
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

# OTF2 (sstmac_mpi_coverage_10, README counts from otf2-print). A psim built without libotf2
# (CMakeCache's PSIM_HAVE_OTF2) reports an OTF2 trace as an error naming the package.
O="$CASES/otf2/sstmac_mpi_coverage_10"
have_otf2=0
grep -q '^PSIM_HAVE_OTF2:INTERNAL=1' "$(dirname "$PSIM")/CMakeCache.txt" 2>/dev/null && have_otf2=1
if [ $have_otf2 = 0 ]; then
  echo "note: this psim is built without libotf2: OTF2 reading not checked, only its error"
  "$PSIM" trace stats "$O" > "$o" 2>&1; rc=$?
  [ $rc = 2 ] || fail "otf2 without libotf2: exit $rc, expected 2"
  grep -q "libotf2-trace-dev" "$o" || { fail "otf2 without libotf2: message"; cat "$o"; }
  finish $fails
fi
# 10 ranks; 1440 MpiIsend (+IsendComplete) and 1440 MpiIrecvRequest (+MpiIrecv): 2880 waits.
# Of the 1200 collective records, those on MPI_COMM_WORLD are replayed: per rank 12 each of
# Allgather, Alltoall, Allreduce and 1 each of Gather, Scatter, Reduce, Bcast (x 10 ranks);
# the other 800 are on the four 2-member splits and the SELF communicators (warned). Compute:
# one per MPI call after the first (701 Enter per rank - 1) = 7000.
for t in "$O/traces.otf2" "$O"; do
  "$PSIM" trace stats "$t" > "$o" 2> "$o.err" || { fail "stats $t: exit $?"; cat "$o.err"; }
  want "otf2 $t" "$o" '^ranks +10$'
  want "otf2 $t" "$o" '^  isend +1440$'
  want "otf2 $t" "$o" '^  irecv +1440$'
  want "otf2 $t" "$o" '^  wait +2880$'
  for k in allgather alltoall allreduce; do want "otf2 $t" "$o" "^  $k +120\$"; done
  for k in gather scatter reduce bcast; do want "otf2 $t" "$o" "^  $k +10\$"; done
  want "otf2 $t" "$o" '^  compute +7000$'
  want "otf2 $t" "$o" '^p2p bytes sent +2.35926e\+07$'
  want "otf2 $t" "$o.err" '800 collectives on communicators smaller than MPI_COMM_WORLD'
  want "otf2 $t" "$o.err" '1080 non-blocking collectives recorded as regions only.*MPI_Iallgather 360, MPI_Ialltoall 360, MPI_Iallreduce 360'
  want "otf2 $t" "$o.err" 'timer: 1995386627 ticks/s'
done
"$PSIM" replay --platform "$PLAT" "$O" > "$o" 2>&1 || { fail "replay otf2: exit $?"; cat "$o"; }
t1=$(sed -n 's/^simulated time: //p' "$o")
[ -n "$t1" ] || fail "replay otf2: no simulated time"
"$PSIM" trace convert "$O/traces.otf2" -o "$TMPD/otit" > "$o" 2>&1 || { fail "convert otf2: exit $?"; cat "$o"; }
# the exact p2p total (stats rounds to 6 digits): README's 23,592,600 B
b=$(cat "$TMPD/otit"/rank-*.txt | awk '$2 == "isend" { s += $5 } END { printf "%d", s }')
[ "$b" = 23592600 ] || fail "converted otf2: isend bytes $b, expected 23592600"
# a Bcast's size is the root's (4 B: root 0 records 40 B sent to 10 ranks, the others 0)
grep -q '^3 bcast 4 0$' "$TMPD/otit/rank-3.txt" || { fail "converted otf2: rank 3's bcast"; grep bcast "$TMPD/otit/rank-3.txt"; }
"$PSIM" replay --platform "$PLAT" "$TMPD/otit" > "$o" 2>&1 || { fail "replay converted otf2: exit $?"; cat "$o"; }
t2=$(sed -n 's/^simulated time: //p' "$o")
[ "$t1" = "$t2" ] || fail "converted otf2 replays in '$t2', the trace in '$t1'"

# damaged archives: exit 2 naming the damaged file
C="$TMPD/o2"
o2copy() { rm -rf "$C"; cp -r "$O" "$C"; chmod -R u+w "$C"; }
o2bad() {   # $1 what, $2 expected message (grep -F)
  "$PSIM" trace stats "$C" > "$o" 2>&1; rc=$?
  [ $rc = 2 ] || fail "$1: exit $rc, expected 2"
  grep -qF "$2" "$o" || { fail "$1: message"; cat "$o"; }
}
o2copy; head -c 5000 "$O/traces/3.evt" > "$C/traces/3.evt"
o2bad "truncated otf2 .evt" "$C/traces/3.evt: OTF2 trace: location 3 (rank 3), after event 357: INVALID_DATA"
o2copy; : > "$C/traces/3.evt"
o2bad "empty otf2 .evt" "$C/traces/3.evt: OTF2 trace: cannot open the location's events"
o2copy; printf '\377\377\377\377' | dd of="$C/traces.def" bs=1 seek=64 conv=notrunc 2>/dev/null
o2bad "corrupted otf2 global .def" "$C/traces.def: OTF2 trace: reading the global definitions: INVALID_DATA"
o2copy; printf '\377\377\377\377' | dd of="$C/traces.def" bs=1 seek=0 conv=notrunc 2>/dev/null
o2bad "otf2 .def header" "$C/traces.def: OTF2 trace: cannot read the global definitions"
o2copy; head -c 40 "$O/traces/5.def" > "$C/traces/5.def"
o2bad "truncated otf2 local .def" "$C/traces/5.def: OTF2 trace:"
# single-bit corruptions at 60 spread offsets of each file of the archive: exit 0 (a bit in a
# name or a time) or 2 with a message naming the archive, never a crash or a hang
o2copy
python3 - "$PSIM" "$O" "$C" <<'PY' || fail "otf2 bit flips (above)"
import os, subprocess, sys
psim, src, dst = sys.argv[1:4]
bad = 0
for f in ("traces.otf2", "traces.def", "traces/3.def", "traces/3.evt"):
    orig = open(os.path.join(src, f), "rb").read()
    for i in range(60):
        b = bytearray(orig)
        k = (i * 7919) % len(b)
        b[k] ^= 1 << (i % 8)
        open(os.path.join(dst, f), "wb").write(b)
        try:
            r = subprocess.run([psim, "trace", "stats", dst], capture_output=True, timeout=20)
        except subprocess.TimeoutExpired:
            print("FAIL otf2 flip %s byte %d: hangs" % (f, k)); bad += 1; continue
        err = r.stderr.decode(errors="replace")
        if r.returncode not in (0, 2) or (r.returncode == 2 and ("psim: " + dst) not in err):
            print("FAIL otf2 flip %s byte %d: exit %d: %s" % (f, k, r.returncode, err[-300:])); bad += 1
    open(os.path.join(dst, f), "wb").write(orig)
sys.exit(1 if bad else 0)
PY
finish $fails
