#!/bin/sh
# A shared trace made shorter by another program while psim replays it. With more ranks than
# open streams psim maps the file (src/trace/tit_io.c, tit_io_map_shared), and touching the
# mapping past the file's new end is a SIGBUS: before, the replay died of it with no word (exit
# 135); within the page that holds the new end it reads zeros, which the parser took for binary
# data. Now it is bad input: exit 2 and a message naming the file. The truncation comes once
# the replay has mapped the file (/proc/PID/maps), after its index pass, so it always falls in
# the replay's reading.
. "$(dirname "$0")/../lib/common.sh"
fails=0
"$PSIM" gen stencil --ranks 65536 --iters 4 --shared -o "$TMPD/s" > /dev/null || bad "psim gen stencil"
T=$TMPD/s/trace.txt
"$PSIM" replay --network constant --np 65536 -q "$T" > /dev/null 2> "$TMPD/err" &
pid=$!
i=0
while [ $i -lt 600 ] && ! grep -q "$T" "/proc/$pid/maps" 2> /dev/null; do
  sleep 0.1
  i=$((i + 1))
done
grep -q "$T" "/proc/$pid/maps" 2> /dev/null || bad "the replay never mapped the trace (60 s)"
truncate -s 4000000 "$T"
wait $pid
rc=$?
echo "exit $rc: $(cat "$TMPD/err")"
[ $rc = 2 ] || bad "a trace truncated during its replay: exit $rc, want 2"
grep -q "trace.txt: the trace file became shorter while psim read it" "$TMPD/err" || bad "no message naming the file: $(cat "$TMPD/err")"
finish $fails
