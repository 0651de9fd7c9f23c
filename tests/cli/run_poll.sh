#!/bin/sh
# Polling codes (issue 9): by default psim run injects no sleeps into unsuccessful MPI_Test /
# MPI_Iprobe; a rank that polls 66 times in a row without doing anything else waits for the
# next event instead of spinning, so a polling loop ends when the message arrives, after a
# handful of polls more, and costs what the program costs; work between polls goes on; polling for a message
# nobody sends is a deadlock. --cfg smpi/test brings SMPI's injected sleeps back.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -o "$TMPD/poll" "$PSIM_TESTDATA/emul/poll.c" || { echo "FAIL: psimcc"; exit 1; }
# rank 1 sends after 1 s of declared computation; the message takes 4.049e-6 s on flat:2,1Gf;
# rank 0 then reads MPI_Wtime once (smpi/wtime: 10 ns)
want=1.0000040590423953
# getstatus: MPI_Request_get_status is a poll too (it looped for ever: nothing waited)
for mode in test iprobe getstatus; do
  timeout 60 "$PSIM" run --np 2 --platform flat:2,1Gf --no-measure -q --json "$TMPD/$mode.json" -- "$TMPD/poll" $mode > "$TMPD/out" ||
    bad "$mode: rc $?"
  t=$(json_get "$TMPD/$mode.json" simulated_time)
  polls=$(sed -n 's/^rank 0 got 42 after \([0-9]*\) polls.*/\1/p' "$TMPD/out")
  echo "$mode: $polls polls, simulated $t s"
  [ "$t" = "$want" ] || bad "$mode: simulated time $t, want $want (the message's arrival + 10 ns)"
  # the first poll returns, the next 64 let other ranks run at the same date, then the rank
  # waits for the next event (emu_poll_failed): about 66 polls, not one per simulated instant
  [ -n "$polls" ] && [ "$polls" -le 70 ] || bad "$mode: $polls polls (spinning?)"
done
# measured: the same, within the measured bursts
"$PSIM" run --np 2 --platform flat:2,1Gf --host-speed-ref 1e9 -q --json "$TMPD/m.json" -- "$TMPD/poll" test > "$TMPD/out" || bad "measured: rc $?"
t=$(json_get "$TMPD/m.json" simulated_time)
# The loop's own passes are measured and carried over (emu_carry_add): about 1 us in all here,
# but under a sanitizer psim's code between two MPI calls, measured as the program's, is tens
# of us a pass (2 ms over the 66 polls).
tol=1e-3; [ "${PSIM_SANITIZED:-0}" = 1 ] && tol=1e-2
close_to "$t" "$want" $tol || bad "measured test loop: $t s, want about $want (within $tol s)"
# 1 ms of work between polls: 1000 chunks, then the message is there
"$PSIM" run --np 2 --platform flat:2,1Gf --no-measure -q --json "$TMPD/w.json" -- "$TMPD/poll" work > "$TMPD/out" || bad "work: rc $?"
grep -q "after 1001 polls at 1.001000" "$TMPD/out" || { bad "work between polls:"; cat "$TMPD/out"; }
# nobody sends: a deadlock naming the poll, not an endless loop
timeout 60 "$PSIM" run --np 2 --no-measure -q -- "$TMPD/poll" never > /dev/null 2> "$TMPD/err"; rc=$?
[ $rc -eq 3 ] && grep -q "rank 0 (host node-0): blocked in MPI_Test: receive from 1 tag 7" "$TMPD/err" || { bad "never: rc $rc"; cat "$TMPD/err"; }
# SMPI's injected sleeps on request: time advances by growing sleeps, many polls
"$PSIM" run --np 2 --platform flat:2,1Gf --no-measure -q --cfg smpi/test:1e-4 -- "$TMPD/poll" test > "$TMPD/out" || bad "smpi/test: rc $?"
polls=$(sed -n 's/^rank 0 got 42 after \([0-9]*\) polls.*/\1/p' "$TMPD/out")
[ -n "$polls" ] && [ "$polls" -gt 100 ] || bad "smpi/test:1e-4: $polls polls, want SMPI's growing sleeps (>100)"
finish $fails
