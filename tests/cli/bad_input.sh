#!/bin/sh
# Bad input: psim must exit with status exactly 2 and print ONE clear error line naming the
# file and line (when the error is about a line) and what was expected -- never crash.
set -u
. "$(dirname "$0")/../lib/common.sh"
SG="$PSIM_SHARED/cases/simgrid"
D=$TMPD
fails=0 checks=0

# bad NAME 'PATTERN...' -- PSIM-REPLAY-ARGS: runs psim replay; status must be 2, stderr must
# hold exactly one "psim..." line containing every fixed-string PATTERN (separated by '|'),
# and nothing may look like a crash.
bad() {
  name=$1 pats=$2; shift 3
  checks=$((checks + 1))
  "$PSIM" replay --quiet "$@" >"$D/stdout" 2>"$D/stderr"
  rc=$?
  why=""
  [ "$rc" -eq 2 ] || why="exit status $rc, expected 2"
  if grep -Eq 'Segmentation|AddressSanitizer|runtime error|Aborted|core dumped|LeakSanitizer' "$D/stdout" "$D/stderr"; then
    why="$why; crash report in the output"
  fi
  n=$(grep -c '^psim' "$D/stderr")
  [ "$n" -eq 1 ] || why="$why; $n error lines, expected 1"
  [ -s "$D/stdout" ] && why="$why; unexpected output on stdout"
  oldifs=$IFS; IFS='|'
  for p in $pats; do
    grep -qF -- "$p" "$D/stderr" || why="$why; message lacks '$p'"
  done
  IFS=$oldifs
  if [ -z "$why" ]; then echo "ok   $name: $(grep '^psim' "$D/stderr" | cut -c1-150)"
  else
    echo "FAIL $name: ${why#; }"; sed 's/^/     | /' "$D/stderr" | head -n 5
    fails=$((fails + 1))
  fi
}
# w FILE LINE...: writes a trace
w() { f=$1; shift; : >"$f"; for l in "$@"; do printf '%s\n' "$l" >>"$f"; done; }

P="--platform $SG/small_platform.xml --hostfile $SG/hostfile"
w "$D/good.txt" "0 init" "1 init" "0 send 1 0 100" "1 recv 0 0 100"

# ---- traces
w "$D/t1.txt" "0 init" "1 init" "0"
# shellcheck disable=SC2086
bad "malformed line (rank only)" "$D/t1.txt:3:|action" -- $P --np 2 "$D/t1.txt"
w "$D/t2.txt" "0 init" "zero init"
# shellcheck disable=SC2086
bad "malformed line (rank not a number)" "$D/t2.txt:2:|rank|zero" -- $P --np 2 "$D/t2.txt"
w "$D/t3.txt" "0 init" "1 init" "0 send 1 0 100" "1 frobnicate 0 0 100"
# shellcheck disable=SC2086
bad "unknown action" "$D/t3.txt:4:|frobnicate|expected" -- $P --np 2 "$D/t3.txt"
w "$D/t4.txt" "0 init" "1 init" "0 send 1" "1 recv 0 0 100"
# shellcheck disable=SC2086
bad "missing argument" "$D/t4.txt:3:|missing argument tag|usage" -- $P --np 2 "$D/t4.txt"
w "$D/t5.txt" "0 init" "1 init" "0 send 1 0 12abc" "1 recv 0 0 100"
# shellcheck disable=SC2086
bad "number that does not parse" "$D/t5.txt:3:|12abc|expected" -- $P --np 2 "$D/t5.txt"
w "$D/t6.txt" "# a comment" "0 init" "1 init" "" "5 compute 100"
# shellcheck disable=SC2086
bad "trace rank >= --np" "$D/t6.txt:5:|rank 5|0..1" -- $P --np 2 "$D/t6.txt"
w "$D/t7.txt" "0 init" "1 init" "0 send 7 0 100"
# shellcheck disable=SC2086
bad "send to a peer out of range" "$D/t7.txt:3:|rank 7|0..1" -- $P --np 2 "$D/t7.txt"
w "$D/t8.txt" "0 init" "1 init" "2 init" "2 recv 9 0 100"
# shellcheck disable=SC2086
bad "receive from a peer out of range" "$D/t8.txt:4:|rank 9|0..2" -- $P --np 3 "$D/t8.txt"
# SMPI's tracer writes MPI_ANY_SOURCE as -333 (smpirun -trace-ti of a program that receives
# from any source); neither psim's replay nor SimGrid's can replay it: say what it is
w "$D/t8a.txt" "0 init" "1 init" "0 recv -333 7 2000 0"
# shellcheck disable=SC2086
bad "SMPI's MPI_ANY_SOURCE in a trace" "$D/t8a.txt:3:|rank -333|MPI_ANY_SOURCE" -- $P --np 2 "$D/t8a.txt"
w "$D/t9.txt" "0 init" "1 init" "0 send 1 0 100 99" "1 recv 0 0 100"
# shellcheck disable=SC2086
bad "unknown datatype code" "$D/t9.txt:3:|datatype|99" -- $P --np 2 "$D/t9.txt"
w "$D/t10.txt" "0 init" "0 wait 0 1 0"
# shellcheck disable=SC2086
bad "wait without any pending request" "$D/t10.txt:2:|wait|not preceded by any irecv or isend" -- $P --np 1 "$D/t10.txt"
w "$D/t11.txt" "0 init" "1 init" "2 init" "0 bcast 100 5"
# shellcheck disable=SC2086
bad "collective root out of range" "$D/t11.txt:4:|root|rank 5" -- $P --np 3 "$D/t11.txt"
w "$D/t12.txt" "0 init" "1 init" "2 init" "0 gatherv 1 1 1"
# shellcheck disable=SC2086
bad "gatherv with too few counts" "$D/t12.txt:4:|gatherv|missing argument" -- $P --np 3 "$D/t12.txt"
w "$D/t13.txt" "0 init" "0 compute -5"
# shellcheck disable=SC2086
bad "negative flops" "$D/t13.txt:2:|compute|-5" -- $P --np 1 "$D/t13.txt"
# per-rank files: the error names the right file and its own line
w "$D/r0.txt" "0 init" "0 send 1 0 100"
w "$D/r1.txt" "1 init" "1 compute 1e6" "1 recv 0 0 100 abc"
# shellcheck disable=SC2086
bad "error in the second per-rank file" "$D/r1.txt:3:|abc" -- $P --np 2 "$D/r0.txt" "$D/r1.txt"
# per-rank files out of order: an error naming the file and the rank its lines belong to
# shellcheck disable=SC2086
bad "per-rank files swapped" "$D/r1.txt:1:|holds the lines of rank 1|given for rank 0|rank order" -- $P --np 2 "$D/r1.txt" "$D/r0.txt"
mkdir -p "$D/glob"
i=0; while [ $i -le 10 ]; do w "$D/glob/ti_trace$i.txt" "$i init" "$i compute 1e6"; i=$((i + 1)); done
# the shell's order: ti_trace0 ti_trace1 ti_trace10 ti_trace2 ...
bad "ti_trace*.txt in shell order" "ti_trace10.txt:1:|lines of rank 10|given for rank 2|position 11|ls -v" -- --np 11 "$D"/glob/ti_trace*.txt
printf '%s\n' "$D/r1.txt" "$D/r0.txt" >"$D/swapped.list"
# shellcheck disable=SC2086
bad "list file out of order" "$D/r1.txt:1:|holds the lines of rank 1|given for rank 0" -- $P "$D/swapped.list"
: >"$D/empty_rank.txt"
# shellcheck disable=SC2086
bad "empty per-rank file" "$D/empty_rank.txt|no action in the trace file of rank 1" -- $P "$D/r0.txt" "$D/empty_rank.txt"
# --np above the trace's rank count: an error, not a deadlock
# shellcheck disable=SC2086
bad "--np above a shared trace's ranks" "$D/good.txt|the trace has 2 ranks (--np 3)|no line for rank 2" -- $P --np 3 "$D/good.txt"
# shellcheck disable=SC2086
bad "--np above the per-rank files" "the trace has 2 ranks (--np 3)" -- $P --np 3 "$D/r0.txt" "$D/r1.txt"
"$PSIM" gen stencil --ranks 4 --iters 2 -o "$D/g4" 2>/dev/null
bad "--np above a directory's files" "$D/g4/list|the trace has 4 ranks (--np 5)|4 trace files for 5 ranks" -- --np 5 "$D/g4"
w "$D/gap.txt" "0 init" "2 init" "0 send 2 0 100" "2 recv 0 0 100"
# shellcheck disable=SC2086
bad "a rank without lines in a shared trace" "$D/gap.txt|no line for rank 1|0..2" -- $P "$D/gap.txt"
# compressed: the line number is still the line of the uncompressed text
w "$D/z.txt" "0 init" "1 init" "0 send 1 0 100" "1 recv 0 0 100" "1 sleepy 3"
gzip -c "$D/z.txt" >"$D/z.txt.gz"
# shellcheck disable=SC2086
bad "error in a gzip trace" "z.txt.gz:5:|sleepy" -- $P --np 2 "$D/z.txt.gz"
# a count within range whose bytes (count x datatype size) overflow: an error, not an
# infinite message with a finite simulated time
w "$D/t14.txt" "0 init" "1 init" "0 send 1 0 1e308 0" "1 recv 0 0 1e308 0"
# shellcheck disable=SC2086
bad "count x datatype size overflows" "$D/t14.txt:3:|send|count|1e+308|datatype" -- $P --np 2 "$D/t14.txt"
w "$D/t15.txt" "0 init" "1 init" "0 alltoallv 8 1e308 1 8 1 1 5 5" "1 alltoallv 2 1 1 2 1 1 5 5"
# shellcheck disable=SC2086
bad "v-collective count x datatype size overflows" "$D/t15.txt:3:|alltoallv|sc_0|1e+308" -- $P --np 2 "$D/t15.txt"
# a NUL byte in a field used to cut the message ("got '10'" for a field that is not 10), and
# binary garbage was printed raw; both are shown escaped, and binary data is named as such
printf '0 init\n0 compute 10\000\n' >"$D/nul.txt"
bad "NUL byte in a number" "$D/nul.txt:2:|compute|10\\x00" -- --np 1 "$D/nul.txt"
printf '\375\067zXZ\000\000\004\346\326\264F\002\000!\001\026\000\000\000t/\345\243\001\000\n' >"$D/xz.txt"
bad "binary file given as a trace" "$D/xz.txt:1:|\\xfd7zXZ\\x00|binary|gzip" -- --np 1 "$D/xz.txt"
# shellcheck disable=SC2086
bad "missing trace file" "$D/nonexist.txt|cannot open" -- $P --np 2 "$D/nonexist.txt"

# ---- platforms and hostfiles
HDR='<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">'
TAIL='  </zone>
</platform>'
printf 'A\nB\n' >"$D/ab.hosts"
printf '%s\n    <host id="A" speed="1Gf"/>\n    <host id="B" speed="1Gf"\n%s\n' "$HDR" "$TAIL" >"$D/malformed.xml"
bad "malformed XML" "$D/malformed.xml:7:|malformed XML" -- --platform "$D/malformed.xml" --hostfile "$D/ab.hosts" --np 2 "$D/good.txt"
printf '%s\n    <host id="A" speed="1Gf"/>\n    <host id="B" speed="1Gf"/>\n    <link id="l" bandwidth="1GBps" latency="1us"/>\n    <route src="A" dst="B"><link_ctn id="nolink"/></route>\n%s\n' "$HDR" "$TAIL" >"$D/badlink.xml"
bad "unknown link in a route" "$D/badlink.xml:8:|nolink|unknown link" -- --platform "$D/badlink.xml" --hostfile "$D/ab.hosts" --np 2 "$D/good.txt"
printf '%s\n    <host id="A" speed="1Gflops"/>\n    <host id="B" speed="1Gf"/>\n%s\n' "$HDR" "$TAIL" >"$D/badunit.xml"
bad "speed unit that does not parse" "$D/badunit.xml:5:|1Gflops|expected" -- --platform "$D/badunit.xml" --hostfile "$D/ab.hosts" --np 2 "$D/good.txt"
printf '%s\n    <host id="A" speed="1Gf"/>\n    <host id="B" speed="1Gf"/>\n    <link id="l" bandwidth="1GBps" latency="3lightyears"/>\n%s\n' "$HDR" "$TAIL" >"$D/badlat.xml"
bad "time unit that does not parse" "$D/badlat.xml:7:|3lightyears|expected" -- --platform "$D/badlat.xml" --hostfile "$D/ab.hosts" --np 2 "$D/good.txt"
: >"$D/empty.xml"
bad "empty platform file" "$D/empty.xml:1:|XML" -- --platform "$D/empty.xml" --np 2 "$D/good.txt"
bad "missing platform file" "$D/nonexist.xml|platform" -- --platform "$D/nonexist.xml" --np 2 "$D/good.txt"
# Zero or negative speeds and bandwidths: SimGrid aborts ("The Impossible Did Happen"); psim
# used to report a deadlock. A negative latency or a value overflowing with its unit is no
# better. Each must be refused where it is written.
plat1() { printf '%s\n    <host id="A" speed="%s"/>\n    <host id="B" speed="1Gf"/>\n    <link id="l" bandwidth="%s" latency="%s"/>\n    <route src="A" dst="B"><link_ctn id="l"/></route>\n%s\n' "$HDR" "$2" "$3" "$4" "$TAIL" >"$D/$1.xml"; }
plat1 zerospeed 0f 1GBps 1us
bad "zero host speed" "$D/zerospeed.xml:5:|speed|0f|positive" -- --platform "$D/zerospeed.xml" --hostfile "$D/ab.hosts" --np 2 "$D/good.txt"
plat1 negspeed -1Gf 1GBps 1us
bad "negative host speed" "$D/negspeed.xml:5:|-1Gf|positive" -- --platform "$D/negspeed.xml" --hostfile "$D/ab.hosts" --np 2 "$D/good.txt"
plat1 zerobw 1Gf 0Bps 1us
bad "zero link bandwidth" "$D/zerobw.xml:7:|bandwidth|0Bps|positive" -- --platform "$D/zerobw.xml" --hostfile "$D/ab.hosts" --np 2 "$D/good.txt"
plat1 negbw 1Gf -1GBps 1us
bad "negative link bandwidth" "$D/negbw.xml:7:|-1GBps|positive" -- --platform "$D/negbw.xml" --hostfile "$D/ab.hosts" --np 2 "$D/good.txt"
plat1 neglat 1Gf 1GBps -1us
bad "negative link latency" "$D/neglat.xml:7:|latency|-1us|non-negative" -- --platform "$D/neglat.xml" --hostfile "$D/ab.hosts" --np 2 "$D/good.txt"
plat1 ovbw 1Gf 1e300YBps 1us
bad "bandwidth overflowing with its unit" "$D/ovbw.xml:7:|1e300YBps|too large" -- --platform "$D/ovbw.xml" --hostfile "$D/ab.hosts" --np 2 "$D/good.txt"
cat > "$D/zerocl.xml" <<'XML'
<?xml version='1.0'?>
<platform version="4.1">
  <cluster id="c" prefix="n" radical="0-1" suffix="" speed="1Gf" bw="0GBps" lat="1us"/>
</platform>
XML
printf 'n0\nn1\n' > "$D/cl.hosts"
bad "zero cluster bandwidth" "$D/zerocl.xml:3:|bw|0GBps|positive" -- --platform "$D/zerocl.xml" --hostfile "$D/cl.hosts" --np 2 "$D/good.txt"
bad "flat platform with zero speed" "flat:2,0f|positive" -- --platform "flat:2,0f" --np 2 "$D/good.txt"
# a host's <prop id="smpi/os"> that does not parse: the error names the file and the line
printf '%s\n    <host id="A" speed="1Gf"><prop id="smpi/os" value="abc"/></host>\n    <host id="B" speed="1Gf"/>\n    <link id="l" bandwidth="1GBps" latency="1us"/>\n    <route src="A" dst="B"><link_ctn id="l"/></route>\n%s\n' "$HDR" "$TAIL" >"$D/hostprop.xml"
bad "host overhead property that does not parse" "$D/hostprop.xml:5:|smpi/os|abc" -- --platform "$D/hostprop.xml" --hostfile "$D/ab.hosts" --np 2 "$D/good.txt"
# a <config> value that does not parse: the error names the line of its <prop>
printf '%s\n' '<?xml version="1.0"?>' '<platform version="4.1">' '  <config>' '    <prop id="network/TCP-gamma" value="abc"/>' '  </config>' \
  '  <zone id="z" routing="Full"><host id="A" speed="1Gf"/><host id="B" speed="1Gf"/>' \
  '    <link id="l" bandwidth="1GBps" latency="1us"/><route src="A" dst="B"><link_ctn id="l"/></route></zone>' \
  '</platform>' >"$D/cfgbad.xml"
bad "<config> value that does not parse" "$D/cfgbad.xml:4:|<config>|network/TCP-gamma|abc" -- --platform "$D/cfgbad.xml" --hostfile "$D/ab.hosts" --np 2 "$D/good.txt"
# two hosts without a route between them: the error names the platform file
printf '%s\n    <host id="A" speed="1Gf"/>\n    <host id="B" speed="1Gf"/>\n%s\n' "$HDR" "$TAIL" >"$D/noroute.xml"
bad "no route between two hosts" "$D/noroute.xml|no route from 'A' to 'B'|<route>" -- --platform "$D/noroute.xml" --hostfile "$D/ab.hosts" --np 2 "$D/good.txt"
# cabinet radicals: a reversed range gave no host ("the platform has no host", no line), a
# huge one ran until memory ran out; they are read as a cluster's are
cab() { printf '%s\n' '<?xml version="1.0"?>' '<platform version="4.1">' '<zone id="z" routing="Cluster">' \
  "<cabinet id=\"c\" prefix=\"n\" suffix=\"\" radical=\"$2\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\"/>" '</zone>' '</platform>' >"$D/$1.xml"; }
cab cabrev 5-1
bad "cabinet with a reversed range" "$D/cabrev.xml:4:|radical|5-1" -- --platform "$D/cabrev.xml" --np 2 "$D/good.txt"
cab cabhuge 0-99999999999
bad "cabinet with a huge range" "$D/cabhuge.xml:4:|radical|0-99999999999" -- --platform "$D/cabhuge.xml" --np 2 "$D/good.txt"
printf 'Tremblay\nNowhere\n' >"$D/bad.hosts"
bad "unknown host in hostfile" "$D/bad.hosts:2:|Nowhere" -- --platform "$SG/small_platform.xml" --hostfile "$D/bad.hosts" --np 2 "$D/good.txt"
# 22 lines of host:100000000 wrapped the entry count (an int) negative: the whole file is
# bounded as one line is (checked before expanding, so this test costs nothing)
printf 'Tremblay\nTremblay:100000000\n' >"$D/many.hosts"
bad "hostfile with too many entries in all" "$D/many.hosts:2:|too many entries" -- --platform "$SG/small_platform.xml" --hostfile "$D/many.hosts" --np 2 "$D/good.txt"
bad "missing hostfile" "$D/nonexist.hosts|hostfile" -- --platform "$SG/small_platform.xml" --hostfile "$D/nonexist.hosts" --np 2 "$D/good.txt"

# ---- options
# shellcheck disable=SC2086
bad "unknown --cfg key" "foo/bar" -- $P --np 2 --cfg foo/bar:1 "$D/good.txt"
# shellcheck disable=SC2086
bad "bad --cfg number" "network/TCP-gamma|abc" -- $P --np 2 --cfg network/TCP-gamma:abc "$D/good.txt"
# shellcheck disable=SC2086
bad "bad --cfg boolean" "network/crosstraffic|maybe" -- $P --np 2 --cfg network/crosstraffic:maybe "$D/good.txt"
# shellcheck disable=SC2086
bad "bad --cfg overhead string" "smpi/os|abc" -- $P --np 2 --cfg smpi/os:abc "$D/good.txt"
# shellcheck disable=SC2086
bad "bad --cfg factor string" "smpi/bw-factor|0:1:2" -- $P --np 2 --cfg smpi/bw-factor:0:1:2 "$D/good.txt"
# numbers that parse but mean nothing: SimGrid takes most of them silently, psim said
# "deadlock" for some and gave an unchanged time for others
for kv in network/TCP-gamma:-1 network/TCP-gamma:inf network/weight-S:-5 network/weight-S:inf \
          smpi/async-small-thresh:-1 smpi/send-is-detached-thresh:inf smpi/test:-1 smpi/test:inf \
          network/loopback-bw:0 network/loopback-bw:-1 network/loopback-lat:-1 network/loopback-lat:inf \
          smpi/os:0:nan:0 smpi/os:0:inf:0 smpi/os:0:-1:0 smpi/or:-1:0:0 smpi/bw-factor:0:0 \
          smpi/bw-factor:0:-1 smpi/bw-factor:0:inf smpi/lat-factor:0:-1 smpi/lat-factor:0:nan \
          smpi/bw-factor:nan:1 star/bandwidth:1e300YBps; do
  key=${kv%%:*} val=${kv#*:}
  # shellcheck disable=SC2086
  bad "--cfg $kv" "--cfg $key|$val|expected" -- $P --np 2 --cfg "$kv" "$D/good.txt"
done
# shellcheck disable=SC2086
bad "--np beyond the integers" "--np|99999999999" -- $P --np 99999999999 "$D/good.txt"
# shellcheck disable=SC2086
bad "--cfg without a colon" "--cfg|nocolon" -- $P --np 2 --cfg nocolon "$D/good.txt"
# shellcheck disable=SC2086
bad "unknown collective algorithm" "nosuch|bcast|valid algorithms" -- $P --np 2 --cfg smpi/bcast:nosuch "$D/good.txt"
# shellcheck disable=SC2086
bad "--np 0" "--np" -- $P --np 0 "$D/good.txt"
# shellcheck disable=SC2086
bad "--np not a number" "--np|x" -- $P --np x "$D/good.txt"
# shellcheck disable=SC2086
bad "unknown --network model" "--network|foo" -- $P --np 2 --network foo "$D/good.txt"

# Two ranks on one host of a torus without a loopback: the route is empty and has no latency;
# SimGrid stops ("no connecting path"), psim must not give the message infinite bandwidth.
cat > "$D/torus.xml" <<'XML'
<?xml version='1.0'?>
<platform version="4.1">
  <cluster id="t" topology="TORUS" topo_parameters="2,2" prefix="n" radical="0-3" suffix="" speed="1Gf" bw="1GBps" lat="1us"/>
</platform>
XML
printf 'n0\nn0\n' > "$D/torus.hosts"
bad "empty route (torus without loopback)" "no connecting path|'n0'|loopback" -- --platform "$D/torus.xml" --hostfile "$D/torus.hosts" --np 2 "$D/good.txt"

# A date past the largest double (two sleeps of 1e308 s) would read as "never" and then as a
# deadlock at 1e308 s with exit 3: an input error naming the action in progress.
w "$D/overflow.txt" "0 init" "0 sleep 1e308" "0 sleep 1e308" "0 finalize"
bad "date overflows a double" "overflows at 1e+308 s|largest date|'0 sleep 1e308' at $D/overflow.txt:3" -- "$D/overflow.txt"
w "$D/overflow2.txt" "0 init" "0 recv 1 0 100" "0 finalize" "1 init" "1 sleep 1e308" "1 sleep 1e308" "1 send 0 0 100" "1 finalize"
# shellcheck disable=SC2086
bad "date overflows a double (2 ranks)" "overflows at|2 unfinished ranks|'0 recv 1 0 100' at $D/overflow2.txt:2|'1 sleep 1e308' at $D/overflow2.txt:6" -- --np 2 "$D/overflow2.txt"
# Huge but finite times: np x makespan overflows, the shares of the summary must not (-nan% before)
checks=$((checks + 1))
w "$D/huge.txt" "0 init" "0 sleep 1e308" "0 finalize" "1 init" "1 sleep 1e308" "1 finalize"
if "$PSIM" replay "$D/huge.txt" 2>&1 | grep -q '^time of all ranks: 100.0% computing, 0.0% communicating, 0.0% waiting, 0.0% idle'; then
  echo "ok   huge times: shares of the summary"
else
  echo "FAIL huge times: shares of the summary"; "$PSIM" replay "$D/huge.txt" 2>&1 | grep 'time of all' | sed 's/^/     | /'
  fails=$((fails + 1))
fi

echo "$checks checks"
finish $fails
