#!/bin/bash
# psim replay borrows the reader's lines (tit_borrow_lines, issue 38: no copy of each rank's last
# line in the reader): a rank that stops in the middle of an action keeps its own copy of the
# text, since another rank's read may reuse the buffer. With few open files allowed (ulimit -n)
# the reader has only a few buffers for 512 ranks, reused at nearly every read: every action
# the log reports must still be, word for word, a line of its rank in the trace, and the
# deadlock report must quote the blocked action as written.
. "$(dirname "$0")/../lib/common.sh"
fails=0

"$PSIM" gen stencil --ranks 512 --iters 2 --shared -o "$TMPD/st" > /dev/null || bad "gen"
( ulimit -n 60; "$PSIM" replay --quiet --network constant --np 512 --actions "$TMPD/act.log" "$TMPD/st/trace.txt" ) \
  > "$TMPD/out" 2>&1 || bad "replay failed: $(tail -3 "$TMPD/out")"
# action log lines: DATE RANK TEXT... DURATION; trace lines: RANK TEXT...
awk '{ $1 = ""; $NF = ""; sub(/^ /, ""); sub(/ $/, ""); print }' "$TMPD/act.log" | sort > "$TMPD/got"
grep -v -E '^[0-9]+ (init|finalize)$' "$TMPD/st/trace.txt" | sort > "$TMPD/want"
[ -s "$TMPD/want" ] || bad "empty trace"
cmp -s "$TMPD/got" "$TMPD/want" || bad "the action log's texts are not the trace's lines ($(diff "$TMPD/got" "$TMPD/want" | head -3 | tr '\n' ' '))"

# with more cursors than buffers the shared file is read from a mapping (tit_io_map_shared),
# else with pread: the same results
( ulimit -n 60; "$PSIM" replay --quiet --network constant --np 512 --json "$TMPD/mapped.json" "$TMPD/st/trace.txt" ) \
  > /dev/null 2>&1 || bad "replay (few buffers) failed"
"$PSIM" replay --quiet --network constant --np 512 --json "$TMPD/read.json" "$TMPD/st/trace.txt" > /dev/null 2>&1 || bad "replay failed"
cmp -s "$TMPD/mapped.json" "$TMPD/read.json" || bad "a mapped shared file gives other results than a read one"

# a deadlock among many ranks: rank 300's last receive is never sent
grep -v '^300 ' "$TMPD/st/trace.txt" > "$TMPD/dl.txt"
printf '300 init\n300 recv 7 99 8\n300 finalize\n' >> "$TMPD/dl.txt"
( ulimit -n 60; "$PSIM" replay --quiet --network constant --np 512 "$TMPD/dl.txt" ) > "$TMPD/dl.out" 2>&1
rc=$?
[ "$rc" -eq 3 ] || bad "deadlock: exit $rc, expected 3"
grep -q "rank 300 (host [^)]*): blocked in '300 recv 7 99 8' at .*dl.txt:" "$TMPD/dl.out" ||
  bad "deadlock report does not quote rank 300's receive: $(grep 'rank 300 ' "$TMPD/dl.out" | head -1)"

finish $fails
