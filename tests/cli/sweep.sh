#!/bin/sh
# psim sweep: configurations (cross product, zip, ranges), substitution, values derived by
# hand, failures recorded, --jobs not changing a byte, bad parameters refused with exit 2.
#
# The workload: 16 ranks each computing 1e9 flops, nothing else. On flat:H,S (one core per
# host, ranks cycling over the hosts) the busiest host runs ceil(16/H) ranks sharing its core,
# so the makespan is ceil(16/H) * 1e9 / S exactly.
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
T="$PSIM_TESTDATA/sweep16.txt"   # 16 ranks x 1e9 flops
# csv_cols FILE: "param,param,...,simulated_time" lines (no header)
csv_cols() { tail -n +2 "$1" | awk -F, -v n="$2" '{ s = $1; for (i = 2; i <= n; i++) s = s "," $i; print s "," $(n + 2) }'; }

# cross product: the last --vary varies fastest; values substituted inside a word
"$PSIM" sweep -j 2 --quiet --vary h=1,2 --vary s=1,2,4 --csv "$TMPD/x.csv" --json "$TMPD/x.json" \
  -- replay --network constant --platform 'flat:{h},{s}Gf' "$T" > "$TMPD/out" 2> "$TMPD/err" || bad "cross product sweep failed: $(cat "$TMPD/err")"
printf '1,1,16\n1,2,8\n1,4,4\n2,1,8\n2,2,4\n2,4,2\n' > "$TMPD/want"
csv_cols "$TMPD/x.csv" 2 > "$TMPD/got"
cmp -s "$TMPD/want" "$TMPD/got" || bad "cross product: got $(tr '\n' ' ' < "$TMPD/got"), want $(tr '\n' ' ' < "$TMPD/want")"
[ "$(head -n 1 "$TMPD/x.csv")" = "h,s,status,simulated_time,host_count,cost,efficiency,error" ] || bad "CSV header: $(head -n 1 "$TMPD/x.csv")"
[ -s "$TMPD/out" ] && bad "--quiet printed a table"
python3 -m json.tool "$TMPD/x.json" > /dev/null || bad "the sweep's JSON does not parse"
grep -q '"total": 6, "done": 6, "failed": 0, "complete": true' "$TMPD/x.json" || bad "JSON counts"
[ "$(grep -c '^    {"params": ' "$TMPD/x.json")" = 6 ] || bad "JSON: not 6 runs"
grep -q '^    {"params": {"h": 2, "s": 4}, "status": 0, "error": null, "simulated_time": 2, "host_count": 2, "cost": 4, "efficiency": 1, "result": {"psim_version"' "$TMPD/x.json" \
  || bad "JSON: the last run is not h=2 s=4 with its metrics and result"
grep -q '"np": 16, "simulated_time": 2,' "$TMPD/x.json" || bad "JSON: the run's own JSON is not in result"
echo "ok   cross product: 6 runs in order, makespans ceil(16/h)/s"

# zip pairs the values; --zip with unequal lengths is refused
"$PSIM" sweep --zip --quiet --vary h=1,2,4 --vary s=1,2,4 --csv "$TMPD/z.csv" -- replay --network constant --platform 'flat:{h},{s}Gf' "$T" 2> "$TMPD/err" || bad "zip sweep failed"
printf '1,1,16\n2,2,4\n4,4,1\n' > "$TMPD/want"
csv_cols "$TMPD/z.csv" 2 > "$TMPD/got"
cmp -s "$TMPD/want" "$TMPD/got" || bad "zip: got $(tr '\n' ' ' < "$TMPD/got")"
echo "ok   --zip: 3 runs paired"

# ranges: geometric, arithmetic with a step, exponents; the table
"$PSIM" sweep -j 2 --vary h=4..64*2 --hosts-param h --csv "$TMPD/g.csv" -- replay --network constant --platform 'flat:{h},1Gf' "$T" > "$TMPD/table" 2> "$TMPD/err" || bad "geometric range sweep failed"
[ "$(tail -n +2 "$TMPD/g.csv" | cut -d, -f1 | tr '\n' ' ')" = "4 8 16 32 64 " ] || bad "4..64*2 gave $(tail -n +2 "$TMPD/g.csv" | cut -d, -f1 | tr '\n' ' ')"
# efficiency: cost at 4 hosts (4 x 4 s = 16) over cost at h hosts: 1, 1, 1, 0.5, 0.25
[ "$(tail -n +2 "$TMPD/g.csv" | cut -d, -f6 | tr '\n' ' ')" = "1 1 1 0.5 0.25 " ] || bad "efficiencies: $(tail -n +2 "$TMPD/g.csv" | cut -d, -f6 | tr '\n' ' ')"
grep -q '^ *5  64 *1.000000 *64 *64 *0.2500  ok$' "$TMPD/table" || bad "table row of h=64: $(grep ' 64 ' "$TMPD/table")"
grep -q '^5 of 5 runs done$' "$TMPD/table" || bad "table footer"
"$PSIM" sweep --quiet --vary s=1..4 --vary l=1e-6..1e-4*10 --csv "$TMPD/a.csv" -- replay --network constant --platform 'flat:2,{s}Gf,10Gbps,{l}' "$T" 2> "$TMPD/err" || bad "arithmetic range sweep failed"
[ "$(tail -n +2 "$TMPD/a.csv" | cut -d, -f1,2,4 | tr '\n' ' ')" = "1,1e-06,8 1,1e-05,8 1,0.0001,8 2,1e-06,4 2,1e-05,4 2,0.0001,4 3,1e-06,2.6666666666666665 3,1e-05,2.6666666666666665 3,0.0001,2.6666666666666665 4,1e-06,2 4,1e-05,2 4,0.0001,2 " ] \
  || bad "1..4 x 1e-6..1e-4*10: $(tail -n +2 "$TMPD/a.csv" | cut -d, -f1,2,4 | tr '\n' ' ')"
"$PSIM" sweep --quiet --vary s=0.5..2+0.5,8 --csv "$TMPD/p.csv" -- replay --network constant --platform 'flat:16,{s}Gf' "$T" 2> "$TMPD/err" || bad "+step range failed"
[ "$(tail -n +2 "$TMPD/p.csv" | cut -d, -f1,3 | tr '\n' ' ')" = "0.5,2 1,1 1.5,0.6666666666666666 2,0.5 8,0.125 " ] || bad "0.5..2+0.5,8: $(tail -n +2 "$TMPD/p.csv" | cut -d, -f1,3 | tr '\n' ' ')"
echo "ok   ranges 4..64*2, 1..4, 1e-6..1e-4*10, 0.5..2+0.5 and lists mixed"

# a failing run is recorded with its message and status, the sweep goes on, exit status 1
"$PSIM" sweep -j 2 --vary p=flat:2,/nonexistent/p.xml,flat:4 --json "$TMPD/f.json" --csv "$TMPD/f.csv" \
  -- replay --network constant --platform '{p}' "$T" > "$TMPD/table" 2> "$TMPD/err"
rc=$?
[ $rc = 1 ] || bad "a failed run: exit status $rc, want 1"
grep -q '"p": "/nonexistent/p.xml"}, "status": 2, "error": "psim: /nonexistent/p.xml: cannot open the platform file' "$TMPD/f.json" || bad "failed run not recorded in JSON"
grep -q '"total": 3, "done": 3, "failed": 1, "complete": true' "$TMPD/f.json" || bad "JSON counts with a failure"
[ "$(cut -d, -f1,2,3 "$TMPD/f.csv" | tail -n +2 | tr '\n' ' ')" = "flat:2,0,8 /nonexistent/p.xml,2, flat:4,0,4 " ] || bad "CSV with a failure: $(cat "$TMPD/f.csv")"
grep -q 'FAILED (exit 2): psim: /nonexistent/p.xml' "$TMPD/table" || bad "table does not show the failure"
# a deadlocking run: exit status 3 recorded, its JSON (with the deadlock report) kept
printf '0 init\n0 recv 1 0 8\n0 finalize\n1 init\n1 recv 0 0 8\n1 finalize\n' > "$TMPD/dead.txt"
"$PSIM" sweep --quiet --vary h=1,2 --json "$TMPD/d.json" -- replay --platform 'flat:{h}' "$TMPD/dead.txt" 2> "$TMPD/err"
[ $? = 1 ] || bad "deadlocking runs: exit status not 1"
[ "$(grep -c '"status": 3, "error": "psim: deadlock at simulated time 0.000000: 2 of 2 ranks cannot finish.*receive from rank 0 (tag 0) never sent", .*"result": {.*"deadlock": "' "$TMPD/d.json")" = 2 ] \
  || bad "deadlocks not recorded with status 3, the report (without wall-clock lines) and the run's JSON"
echo "ok   failed runs recorded (status, message), the sweep goes on"

# --jobs 3 and --jobs 1 write the same bytes
"$PSIM" sweep -j 1 --quiet --vary h=1..6 --vary s=1,3 --json "$TMPD/j1.json" --csv "$TMPD/j1.csv" -- replay --platform 'flat:{h},{s}Gf' "$T" 2> /dev/null
"$PSIM" sweep -j 3 --quiet --vary h=1..6 --vary s=1,3 --json "$TMPD/j3.json" --csv "$TMPD/j3.csv" -- replay --platform 'flat:{h},{s}Gf' "$T" 2> /dev/null
cmp -s "$TMPD/j1.json" "$TMPD/j3.json" || bad "--jobs 3 JSON differs from --jobs 1"
cmp -s "$TMPD/j1.csv" "$TMPD/j3.csv" || bad "--jobs 3 CSV differs from --jobs 1"
[ "$(grep -c '"status": 0' "$TMPD/j1.json")" = 12 ] || bad "--jobs 1: not 12 successful runs"
"$PSIM" sweep -j 3 --brief --quiet --vary h=1..6 --vary s=1,3 --json "$TMPD/b.json" -- replay --platform 'flat:{h},{s}Gf' "$T" 2> /dev/null
grep -q '"ranks"\|"collectives"' "$TMPD/b.json" && bad "--brief kept the run's arrays and objects"
[ "$(grep -c '"result": {"psim_version": "0.1", "command": "replay", "platform": "built-in flat cluster of [0-9]* hosts", "network_model": "smpi", "np": 16, "simulated_time": [0-9.e-]*, "actions": 48, "messages": 0, "bytes": 0, "deadlock": null}}' "$TMPD/b.json")" = 12 ] \
  || bad "--brief: results are not the runs' top-level scalars"
echo "ok   --jobs 3 output byte-identical to --jobs 1; --brief"

# the HTML report: three charts, one line per value of the second parameter, no script
"$PSIM" sweep --quiet --vary h=1,2,4,8 --vary s=1,2 --report "$TMPD/r.html" --metric cost -- replay --network constant --platform 'flat:{h},{s}Gf' "$T" 2> /dev/null || bad "sweep --report failed"
[ "$(grep -c '<svg class="chart"' "$TMPD/r.html")" = 3 ] || bad "report: not 3 charts"
[ "$(grep -c '<g class="series"' "$TMPD/r.html")" = 6 ] || bad "report: not 2 series per chart"
grep -q '<h2>cost (host.s) against h</h2>' "$TMPD/r.html" || bad "report: --metric cost is not the first chart"
if grep -i '<script' "$TMPD/r.html" > /dev/null; then bad "report has a script"; fi
if grep -o 'https\?://[^"]*' "$TMPD/r.html" | grep -v '^http://www.w3.org/2000/svg$' > /dev/null; then bad "report refers to the network"; fi
echo "ok   --report: 3 charts, 2 series each"

# bad usage: exit 2 and a message saying what is wrong
check_usage() {   # WANT-IN-MESSAGE ARGS...
  want=$1; shift
  "$PSIM" sweep "$@" > /dev/null 2> "$TMPD/err"
  rc=$?
  [ $rc = 2 ] || bad "sweep $*: exit status $rc, want 2"
  grep -qF -- "$want" "$TMPD/err" || bad "sweep $*: message '$(head -n 1 "$TMPD/err")' lacks '$want'"
}
check_usage "the end 2 is below the start 4" --vary h=4..2*2 -- replay 'flat:{h}'
check_usage "the factor after '*' must be above 1" --vary h=4..64*1 -- replay 'flat:{h}'
check_usage "a geometric range (*FACTOR) must start above 0" --vary h=0..64*2 -- replay 'flat:{h}'
check_usage "'x' is not a number" --vary h=x..4 -- replay 'flat:{h}'
check_usage "expected a number after '..'" --vary h=4.. -- replay 'flat:{h}'
check_usage "unexpected 'x' after the end" --vary h=4..8x -- replay 'flat:{h}'
check_usage "the step after '+' must be above 0" --vary h=4..8+0 -- replay 'flat:{h}'
check_usage "expected a number after '*'" --vary h=4..8*two -- replay 'flat:{h}'
check_usage "empty value" --vary h=1,,2 -- replay 'flat:{h}'
check_usage "--vary expects NAME=VALUES" --vary 1,2 -- replay 'flat:{h}'
check_usage "given twice" --vary h=1 --vary h=2 -- replay 'flat:{h}'
check_usage "{y} is not a parameter" --vary h=1 -- replay 'flat:{h}' '{y}'
check_usage "parameter 'y' is not used" --vary h=1 --vary y=2 -- replay 'flat:{h}'
check_usage "has 1 values but 'h' has 2" --zip --vary h=1,2 --vary y=2 -- replay 'flat:{h}{y}'
check_usage "must not have its own --json" --vary h=1 -- replay --json x.json 'flat:{h}'
check_usage "at least one --vary" -- replay x
check_usage "expected the command to run after '--'" --vary h=1
check_usage "--metric expects makespan, efficiency or cost" --metric speed --vary h=1 -- replay '{h}'
echo "ok   bad ranges and parameters: exit 2 with a message"
finish $fails
