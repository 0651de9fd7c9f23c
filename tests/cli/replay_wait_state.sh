#!/bin/sh
# The replay driver's waits by key and its waitall/collective state (issue 38, part 3):
#  - a pending trace request keeps its key (src, dst, tag) in its mpi_req.user word, not in
#    the driver's array: a receive posted with the wildcard tag -1 is waited for by that key
#    even after its message matched it (its tag is then the message's);
#  - an entry a test completed holds its key, marked by its low bit: later waits and tests
#    find it, and a trace waitall skips it;
#  - a rank inside a waitall or a collective holds a block (rank_wait: the program's requests,
#    the wait group, the heap of complete requests) allocated on entry and freed on exit:
#    a waitall over 42 requests, many complete before it, then sendRecv, scan and allreduce;
#  - a deadlock's report lists the requests of the blocked collective, from that block.
# The figures are the build before the change's (53444bf's successor, 380fbd4), to the bit.
. "$(dirname "$0")/../lib/common.sh"
fails=0

# (a) the wildcard tag: rank 0's second wait must wait for rank 1's second send (0.2 s), then
# compute 0.1 s; a key read from the matched request (tag 4) finishes at 0.2
mkdir -p "$TMPD/a"
printf '%s\n' '0 init' '0 irecv 1 -1 100' '0 irecv 1 4 100' '0 compute 1e9' '0 wait 1 0 -1' \
  '0 wait 1 0 4' '0 compute 1e9' '0 finalize' > "$TMPD/a/0.txt"
printf '%s\n' '1 init' '1 send 0 4 100' '1 compute 2e9' '1 send 0 4 100' '1 finalize' > "$TMPD/a/1.txt"
(cd "$TMPD/a" && ls [01].txt > list)
"$PSIM" replay --quiet --json "$TMPD/a.json" "$TMPD/a" > "$TMPD/a.out" 2>&1 || bad "(a) replay failed: $(tail -2 "$TMPD/a.out")"
got=$(grep -o '"finish_time": [^,]*' "$TMPD/a.json" | sed -n 1p | sed 's/.*: //')
[ "$got" = 0.3000061582838929 ] ||
  bad "(a) wildcard tag: got $got, want rank 0 finishing at 0.3000061582838929"

# (b) tests that complete requests (marks), a waitall over 42 requests, sendRecv, scan, allreduce
mkdir -p "$TMPD/b"
{ echo '0 init'; echo '0 isend 1 5 10'; echo '0 test 0 1 5'; echo '0 isend 1 5 20'; echo '0 wait 0 1 5'
  for i in $(seq 1 40); do echo "0 irecv $((1 + i % 3)) $i 1000"; done
  echo '0 compute 2e8'; echo '0 isend 2 6 10'; echo '0 test 0 2 6'; echo '0 waitall'
  echo '0 sendRecv 1000 3 1000 1'; echo '0 scan 1000 1e6'; echo '0 allreduce 8 1e6'; echo '0 finalize'; } > "$TMPD/b/0.txt"
for r in 1 2 3; do
  { echo "$r init"
    [ $r = 1 ] && { echo '1 recv 0 5 10'; echo '1 recv 0 5 20'; }
    [ $r = 2 ] && echo '2 irecv 0 6 10'
    for i in $(seq 1 40); do
      [ $((1 + i % 3)) = $r ] && { [ $((i % 2)) = 0 ] && echo "$r compute 1e7"; echo "$r send 0 $i 1000"; }
    done
    echo "$r sendRecv 1000 $((r - 1)) 1000 $(((r + 1) % 4))"
    echo "$r scan 1000 1e6"; echo "$r allreduce 8 1e6"; echo "$r finalize"; } > "$TMPD/b/$r.txt"
done
(cd "$TMPD/b" && ls [0-3].txt > list)
want_smpi='0.020427442367667525 0.02043353366341629 0.02043353366341629 0.020439601316290676 0.08173411101079078'
want_const='0.020410606400000003 0.020413612800000005 0.020413612800000005 0.020416619200000007 0.08165445120000003'
want_async='0.020421472632741054 0.02042756392848982 0.02042756392848982 0.020433631581364204 0.0817102320710849'
for m in smpi const async; do
  case $m in
    smpi) args=""; want=$want_smpi ;;
    const) args="--network constant"; want=$want_const ;;
    async) args="--cfg smpi/async-small-thresh:65536"; want=$want_async ;;
  esac
  # shellcheck disable=SC2086
  "$PSIM" replay --quiet $args --json "$TMPD/b.json" "$TMPD/b" > "$TMPD/b.out" 2>&1 ||
    bad "(b) $m: replay failed: $(tail -2 "$TMPD/b.out")"
  got=$(grep -o '"finish_time": [^,]*' "$TMPD/b.json" | sed 's/.*: //' | tr '\n' ' ' | sed 's/ $//')
  [ "$got" = "$want" ] || bad "(b) $m: finish times (ranks 0-3, total) $got, want $want"
  grep -q '"np": 4, .*"actions": 131,' "$TMPD/b.json" || bad "(b) $m: not 131 actions"
done

# (c) as (b) with rank 1's sendRecv receiving from rank 0, which never sends to it: a deadlock
# whose report lists rank 0's allreduce requests (the collective's block) and rank 1's sendRecv
cp -r "$TMPD/b" "$TMPD/c"
sed -i 's/^1 sendRecv.*/1 sendRecv 1000 0 1000 0/; s/^2 sendRecv.*/2 sendRecv 1000 2 1000 2/; s/^3 sendRecv.*/3 sendRecv 1000 0 1000 0/' "$TMPD/c/"[1-3].txt
"$PSIM" replay --quiet "$TMPD/c" > "$TMPD/c.out" 2>&1
rc=$?
[ "$rc" -eq 3 ] || bad "(c) deadlock: exit $rc, expected 3"
grep -q "rank 0 (host node-0): blocked in '0 allreduce 8 1e6' at .*c/0.txt:52: receive from rank 1 (inside the collective) never sent; receive from rank 2 (inside the collective) never sent; receive from rank 3 (inside the collective) never sent$" "$TMPD/c.out" ||
  bad "(c) rank 0's line: $(grep 'rank 0 ' "$TMPD/c.out")"
grep -q "rank 1 (host node-1): blocked in '1 sendRecv 1000 0 1000 0' at .*c/1.txt:23: receive from rank 0 (tag 0) never sent$" "$TMPD/c.out" ||
  bad "(c) rank 1's line: $(grep 'rank 1 ' "$TMPD/c.out")"

finish $fails
