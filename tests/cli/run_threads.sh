#!/bin/sh
# psim run --threads N (issue 38, src/emul/emu_par.c): the ranks' own code runs on N OS threads,
# the simulation stays sequential and takes the ranks' turns in an order that does not depend
# on N. So: the same program output and the same simulated times at N = 1, 2, 3 (bit for bit
# when nothing is measured), times that agree with the hand-derived ones, the ranks really on
# N threads; errors for a bad N; programs that cannot run so run on one thread with a message;
# crashes and MPI errors on a worker are reported as on one thread.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
D="$PSIM_TESTDATA/emul"
fails=0
for p in threads spin crash overflow mpierr iprobe_loop; do
  "$PSIMCC" -O2 -o "$TMPD/$p" "$D/$p.c" || { echo "FAIL: psimcc $p.c"; exit 1; }
done
"$PSIMCC" -o "$TMPD/sleep_thread" "$D/sleep_thread.c" -lpthread || { echo "FAIL: psimcc sleep_thread.c"; exit 1; }
P="--np 4 --platform flat:4,1Gf"
at() { sed -n 's/^sum [0-9]* at //p' "$1"; }   # rank 0's MPI_Wtime at the end

# 1. Declared computation (--no-measure, psim_compute: 1e8 flops, 0.1 s on 1 Gflop/s hosts),
# a line to stdout and one to stderr per rank and iteration, an allreduce, options parsed by
# getopt_long after MPI_Init. Nothing is measured, so nothing may differ: not the output's bytes,
# not the simulated times, neither between N = 1, 2, 3 nor with psim's own thread.
for t in 0 1 2 3; do
  opt=; [ $t -gt 0 ] && opt="--threads $t"
  # shellcheck disable=SC2086
  timeout 120 "$PSIM" run $P --no-measure -q $opt --json "$TMPD/d$t.json" -- "$TMPD/threads" -n 4 -f 1e8 -e \
    > "$TMPD/d$t.out" 2> "$TMPD/d$t.err" || bad "declared, threads $t: rc $?"
done
for t in 0 2 3; do
  cmp -s "$TMPD/d1.out" "$TMPD/d$t.out" || bad "declared: stdout at threads $t differs from threads 1"
  cmp -s "$TMPD/d1.err" "$TMPD/d$t.err" || bad "declared: stderr at threads $t differs from threads 1"
  [ "$(json_get "$TMPD/d$t.json" simulated_time)" = "$(json_get "$TMPD/d1.json" simulated_time)" ] ||
    bad "declared: simulated time at threads $t $(json_get "$TMPD/d$t.json" simulated_time), threads 1 $(json_get "$TMPD/d1.json" simulated_time)"
done
[ "$(grep -c 'iteration' "$TMPD/d2.out")" = 16 ] || bad "declared: 16 lines of iterations expected"
[ "$(grep -c 'stderr' "$TMPD/d2.err")" = 16 ] || bad "declared: 16 lines on stderr expected"
grep -q '^sum 100 ' "$TMPD/d2.out" || bad "declared: the allreduces' sum (100) missing"
# each rank's line, flushed, then its command's (system, in the rank's turn: rt_system.c)
for r in 0 1 2 3; do
  [ "$(grep -n "^rank $r runs a command" "$TMPD/d2.out" | cut -d: -f1)" -lt "$(grep -n "^rank $r: the command" "$TMPD/d2.out" | cut -d: -f1)" ] 2> /dev/null ||
    bad "declared: rank $r's command printed before the rank's own line"
done
# hand-derived: one iteration is 0.1 s of computation, then the allreduce as it takes alone
# (every rank enters it at the same date in both runs); four iterations are 0.4 s plus four
# allreduces, back to back when nothing is computed (where the next one starts before the
# last rank left the previous: a few ns sooner)
for n in 1 4; do
  timeout 60 "$PSIM" run $P --no-measure -q --threads 2 -- "$TMPD/threads" -n $n -f 0 > "$TMPD/z$n.out" 2> /dev/null || bad "no computation: rc $?"
  timeout 60 "$PSIM" run $P --no-measure -q --threads 2 -- "$TMPD/threads" -n $n -f 1e8 > "$TMPD/c$n.out" 2> /dev/null || bad "computation: rc $?"
done
t0=$(at "$TMPD/z1.out") t1=$(at "$TMPD/c1.out")
echo "declared, one iteration: rank 0 ends at $t1 s, the allreduce alone takes $t0 s"
close_to "$t1" "$(awk -v a="$t0" 'BEGIN { printf "%.9f", a + 0.1 }')" 1e-9 || bad "declared, one iteration: $t1 s, want 0.1 + $t0"
t0=$(at "$TMPD/z4.out") t2=$(at "$TMPD/c4.out")
echo "declared, four iterations: rank 0 ends at $t2 s, the allreduces alone take $t0 s"
close_to "$t2" "$(awk -v a="$t0" 'BEGIN { printf "%.9f", a + 0.4 }')" 1e-6 || bad "declared: $t2 s, want 0.4 + $t0"

# 2. The ranks really run on N threads: each rank's thread id, gathered
for t in 0 1 2 3; do
  opt=; [ $t -gt 0 ] && opt="--threads $t"
  # shellcheck disable=SC2086
  n=$(timeout 60 "$PSIM" run $P --no-measure -q $opt -- "$TMPD/threads" -n 1 -t 2> /dev/null | sed -n 's/^os threads: //p')
  want=$t; [ $t -eq 0 ] && want=1
  [ "$n" = "$want" ] || bad "threads $t: the ranks ran on '$n' OS threads, want $want"
done

# 3. Measured computation: each rank spins 4 x 0.05 s of its own CPU time (a CPU second is a
# simulated second: --host-speed-ref 1e9 on 1 Gflop/s hosts). Within run_measure.sh's bounds
# (a 0.05 s spin measured within 0.05-0.06 s), at 1 and 2 threads; the output is the same lines
# (their order at one date follows the measured bursts, which differ by noise from run to run).
# With lookahead (the default here: a host per rank) the simulation goes on while ranks
# compute, their computations counted from the date they began; without it, it waits.
for t in 1 2 2nl; do
  opt="--threads ${t%nl} --cfg run/threads-stats:yes"; [ "$t" = 2nl ] && opt="$opt --cfg run/lookahead:no"
  # shellcheck disable=SC2086
  timeout 120 "$PSIM" run $P --host-speed-ref 1e9 -q $opt --json "$TMPD/m$t.json" -- "$TMPD/threads" -n 4 -s 0.05 \
    > "$TMPD/m$t.out" 2> "$TMPD/m$t.err" || bad "measured, threads $t: rc $?"
  tm=$(at "$TMPD/m$t.out")
  echo "measured, threads $t: rank 0 ends at $tm s (0.2 + $t0 s declared); $(grep '^psim: --threads' "$TMPD/m$t.err")"
  awk -v a="$tm" -v z="$t0" 'BEGIN { exit !(a != "" && a >= 0.2 + z && a <= 0.24 + z) }' || bad "measured, threads $t: $tm s, want 0.2-0.24 s + $t0"
done
n=$(sed -n 's/.*the simulation went on \([0-9]*\) times.*/\1/p' "$TMPD/m2.err")
[ -n "$n" ] && [ "$n" -gt 0 ] || bad "measured, threads 2: the simulation never went on while ranks computed: $(cat "$TMPD/m2.err" | grep psim)"
grep -q "no lookahead" "$TMPD/m2nl.err" || bad "run/lookahead:no: $(grep psim "$TMPD/m2nl.err")"
sed -i '/^psim: --threads/d' "$TMPD/m1.out" "$TMPD/m2.out" "$TMPD/m1.err" "$TMPD/m2.err"
sort "$TMPD/m1.out" | sed 's/ at .*//' > "$TMPD/m1.sorted"
sort "$TMPD/m2.out" | sed 's/ at .*//' > "$TMPD/m2.sorted"
cmp -s "$TMPD/m1.sorted" "$TMPD/m2.sorted" || bad "measured: the lines at 1 and 2 threads differ"
cmp -s "$TMPD/m1.sorted" "$(grep -v 'command' "$TMPD/d1.out" | sort | sed 's/ at .*//' > "$TMPD/d1.sorted"; echo "$TMPD/d1.sorted")" || bad "measured: lines differ from the declared run's"

# 4. A ping-pong (2000 round trips of 1 byte): the same time at 1 and 2 threads as on psim's
# own thread, bit for bit with --no-measure
for t in 0 1 2; do
  opt=; [ $t -gt 0 ] && opt="--threads $t"
  # shellcheck disable=SC2086
  timeout 120 "$PSIM" run --np 2 --platform flat:2,1Gf --no-measure -q $opt --json "$TMPD/p$t.json" -- "$TMPD/spin" 0 2000 \
    > /dev/null 2>&1 || bad "ping-pong, threads $t: rc $?"
done
p0=$(json_get "$TMPD/p0.json" simulated_time)
for t in 1 2; do
  [ "$(json_get "$TMPD/p$t.json" simulated_time)" = "$p0" ] || bad "ping-pong: threads $t $(json_get "$TMPD/p$t.json" simulated_time) s, one thread $p0 s"
done

# 4b. RandomAccess's pattern: a poll after every update of well under a microsecond, so a
# turn every few hundred ns. The engine goes on on whichever thread is free (emu_par.c): at
# 2 and 3 threads it changes threads at nearly every poll, at 1 never; the output and the
# simulated time are the same on psim's own thread and at 1, 2 and 3 threads, bit for bit
# with --no-measure: a call that returns at once and the rank's next one come before another
# rank's turn, as on psim's own thread (emu_par.c, same_date_first_locked; before, the
# threads' runs ended at 0.000855 s, psim's own thread at 0.001672 s).
for t in 0 1 2 3; do
  opt="--threads $t --cfg run/threads-stats:yes"; [ $t -eq 0 ] && opt=
  # shellcheck disable=SC2086
  timeout 120 "$PSIM" run --np 2 --platform flat:2,1Gf --no-measure -q $opt \
    -- "$TMPD/iprobe_loop" 20000 > "$TMPD/i$t.out" 2> "$TMPD/i$t.err" || bad "iprobe loop, threads $t: rc $?"
done
for t in 0 2 3; do cmp -s "$TMPD/i1.out" "$TMPD/i$t.out" || bad "iprobe loop: output at threads $t (0: psim's own) differs from threads 1: $(cat "$TMPD/i$t.out") / $(cat "$TMPD/i1.out")"; done
grep -q '^rank 1 received 200 of 400$' "$TMPD/i1.out" || bad "iprobe loop: rank 1 should receive 200 of 400: $(cat "$TMPD/i1.out")"
moves() { sed -n 's/.*the engine changed threads \([0-9]*\) times.*/\1/p' "$1"; }
[ "$(moves "$TMPD/i1.err")" = 0 ] || bad "iprobe loop, threads 1: the engine changed threads: $(cat "$TMPD/i1.err")"
m=$(moves "$TMPD/i2.err")
[ -n "$m" ] && [ "$m" -gt 10000 ] || bad "iprobe loop, threads 2: the engine changed threads '$m' times, want more than 10000 (one per poll of the other rank)"
echo "iprobe loop: $(grep -o 'end at .*' "$TMPD/i2.out") at 1, 2 and 3 threads; threads 2: the engine changed threads $m times"

# 5. A bad N is a usage error
for n in 0 -1 x 2x 1025; do
  "$PSIM" run --np 2 --threads "$n" -- "$TMPD/spin" > /dev/null 2> "$TMPD/err"; rc=$?
  [ $rc -eq 2 ] || bad "--threads $n: rc $rc, want 2"
  grep -q "^psim run: --threads expects a number of threads from 1 to 1024, got '$n'" "$TMPD/err" || bad "--threads $n: message: $(cat "$TMPD/err")"
done
"$PSIM" run --np 2 -- "$TMPD/spin" --threads > /dev/null 2>&1 || bad "--threads after the program is the program's"
"$PSIM" run --np 2 --threads > /dev/null 2> "$TMPD/err"; [ $? -eq 2 ] || bad "--threads without a value: want rc 2"

# 6. What cannot run on several threads runs on one, and says so (the results stay right)
timeout 60 "$PSIM" run $P --no-measure -q --threads 2 --shared-globals -- "$TMPD/threads" -n 1 -t > "$TMPD/s.out" 2> "$TMPD/s.err" || bad "shared globals: rc $?"
grep -q "^psim: --threads 2: --shared-globals: the ranks share the program's globals: its ranks run on one thread$" "$TMPD/s.err" || bad "shared globals: message: $(head -n 2 "$TMPD/s.err")"
grep -q "^os threads: 1$" "$TMPD/s.out" || bad "shared globals: not on one thread"
out=$(timeout 60 "$PSIM" run --np 2 -q --threads 2 --no-measure -- "$TMPD/sleep_thread" 2> "$TMPD/t.err") || bad "program's threads: rc $?"
grep -q "^psim: --threads 2: the program starts threads of its own: its ranks run on one thread$" "$TMPD/t.err" || bad "program's threads: message: $(cat "$TMPD/t.err")"
close_to "$(echo "$out" | sed -n 's/^rank 0 at //p')" 2 1e-3 || bad "program's threads: rank 0 at '$out'"
# with one thread asked for there is nothing to refuse: no message
timeout 60 "$PSIM" run --np 2 -q --threads 1 --no-measure -- "$TMPD/sleep_thread" > /dev/null 2> "$TMPD/t1.err" || bad "program's threads, 1: rc $?"
[ ! -s "$TMPD/t1.err" ] || bad "program's threads at --threads 1: $(cat "$TMPD/t1.err")"

# 7. Failures on a worker: a crash, a stack overflow (the worker's own signal stack), an MPI
# error while another rank computes
expect() { # expect RC PATTERN command...
  want=$1 pat=$2; shift 2
  timeout 60 "$@" > "$TMPD/out" 2> "$TMPD/err"; rc=$?
  if [ $rc -ne "$want" ] || ! grep -q "$pat" "$TMPD/err"; then bad "$* (rc $rc, want $want; '$pat' expected in: $(cat "$TMPD/err"))"; fi
}
expect 4 "rank 1 crashed with signal 11" "$PSIM" run --np 2 -q --threads 2 -- "$TMPD/crash"
expect 4 "rank 0 overflowed its stack of 256 KiB" "$PSIM" run --np 2 -q --threads 2 --stack-size 256K -- "$TMPD/overflow"
expect 4 "rank 1: MPI error in MPI_Recv" "$PSIM" run --np 2 -q --threads 2 -- "$TMPD/mpierr"
finish $fails
