#!/bin/sh
# psim forecast and psim calibrate --kernels on bad input: one clear message, exit 2; model file
# errors name the file and the line. Also: --help lists the routines and the terms.
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
NET="--latency 50us --bandwidth 1e8 --kernel-rate 1e9"
# err NAME PATTERN ARGS...: psim ARGS must exit 2 with PATTERN in its stderr
err() {
  name=$1 pat=$2; shift 2
  "$PSIM" "$@" >"$TMPD/out" 2>"$TMPD/err"
  rc=$?
  if [ $rc -ne 2 ]; then bad "$name: exit $rc, expected 2"; return; fi
  if ! grep -q -- "$pat" "$TMPD/err"; then bad "$name: no '$pat' in: $(cat "$TMPD/err")"; return; fi
  echo "ok   $name: $(head -n 1 "$TMPD/err")"
}
err "no routine" "which routine" forecast
err "unknown routine" "unknown routine 'pdpotrf'" forecast pdpotrf --m 4
err "zero size" "--m expects a positive integer" forecast pdgemm --m 0 --n 4 --k 4 --nb 2 --procs 4 $NET
err "bad size" "--nb expects a positive integer" forecast pdgemm --m 4 --n 4 --k 4 --nb x2 --procs 4 $NET
err "missing size" "give the sizes" forecast pdgemm --m 4 --n 4 --nb 2 --procs 4 $NET
err "no procs" "give --procs" forecast pdgemm --m 4 --n 4 --k 4 --nb 2 $NET
err "bad range" "--procs expects" forecast pdgemm --m 4 --n 4 --k 4 --nb 2 --procs 8-2 $NET
err "bad grid" "--grid expects PxQ" forecast pdgemm --m 4 --n 4 --k 4 --nb 2 --grid 3by3 $NET
err "grid outside procs" "outside --procs" forecast pdgemm --m 4 --n 4 --k 4 --nb 2 --procs 8 --grid 3x3 $NET
err "no network" "give --latency and --bandwidth" forecast pdgemm --m 4 --n 4 --k 4 --nb 2 --procs 4 --kernel-rate 1e9
err "bad bandwidth" "--bandwidth expects" forecast pdgemm --m 4 --n 4 --k 4 --nb 2 --procs 4 --latency 1us --bandwidth fast --kernel-rate 1
err "no kernels" "give --kernels FILE or --kernel-rate" forecast pdgemm --m 4 --n 4 --k 4 --nb 2 --procs 4 --latency 1us --bandwidth 1e9
err "bad rate" "--kernel-rate expects" forecast pdgemm --m 4 --n 4 --k 4 --nb 2 --procs 4 --latency 1us --bandwidth 1e9 --kernel-rate -3
err "bad side" "--side expects L or R" forecast pdtrsm --m 4 --n 4 --nb 2 --procs 4 --side X $NET
err "step of pdtrsm" "--step is for pdgemm" forecast pdtrsm --m 4 --n 4 --nb 2 --step 2 --procs 4 $NET
err "zero step" "--step expects a positive integer" forecast pdgemm --m 4 --n 4 --k 4 --nb 2 --step 0 --procs 4 $NET
err "ga without gb" "--ga needs --gb" forecast pdgemm --m 4 --n 4 --k 4 --nb 2 --ga 2x2 $NET
err "missing platform" "cannot open" forecast pdgemm --m 4 --n 4 --k 4 --nb 2 --procs 4 --platform "$TMPD/nope.xml" --kernel-rate 1
err "unknown host" "--hosts expects two hosts" forecast pdgemm --m 4 --n 4 --k 4 --nb 2 --procs 4 \
  --platform "$PSIM_TESTDATA/forecast/cluster32.xml" --hosts node-0,node-99 --kernel-rate 1
err "unknown option" "unknown option '--colour'" forecast pdgemm --m 4 --n 4 --k 4 --nb 2 --procs 4 $NET --colour red

# model files: each error with file:line
N2="--latency 1us --bandwidth 1e9"
# merr NAME PATTERN TEXT: a model file of TEXT (printf format) must be refused with PATTERN
merr() {
  printf "$3" >"$TMPD/k.txt"
  err "$1" "$2" forecast pdgemm --m 4 --n 4 --k 4 --nb 2 --procs 4 $N2 --kernels "$TMPD/k.txt"
}
merr "unknown kernel" "k.txt:3: unknown kernel 'foo'" 'dgemm m*n*k 1e-9\ndtrsm m*n^2 1e-9\nfoo m 1\n'
merr "bad monomial" "k.txt:2: bad monomial 'm\*q'" '# c\ndgemm m*q 1e-9\n'
merr "k in dtrsm" "k.txt:1: bad monomial" 'dtrsm m*k 1e-9\n'
merr "bad coefficient" "k.txt:1: bad coefficient 'fast'" 'dgemm m*n*k fast\n'
merr "twice" "k.txt:2: dgemm: monomial 'k\*n\*m' given twice" 'dgemm m*n*k 1e-9\ndgemm k*n*m 2e-9\n'
merr "missing coefficient" "k.txt:1: expected 'dgemm MONOMIAL COEFFICIENT'" 'dgemm m*n*k\n'
merr "missing kernel" "no model for kernel 'dtrsm'" 'dgemm m*n*k 1e-9\n'
merr "bad rate line" "k.txt:1: expected 'rate FLOPS'" 'rate -1\n'
err "no model file" "cannot open the kernel model file" forecast pdgemm --m 4 --n 4 --k 4 --nb 2 --procs 4 $N2 --kernels "$TMPD/none.txt"
err "calibrate bad rate" "--kernel-rate expects" calibrate --kernels --kernel-rate abc
err "calibrate --at-once 0" "--at-once expects a number of processes from 1 to 1024" calibrate --kernels --at-once 0
err "calibrate --at-once 2000" "--at-once expects a number of processes from 1 to 1024" calibrate --kernels --at-once 2000

# --help: the routines and every term of the formulas
"$PSIM" forecast --help >"$TMPD/help" || bad "--help failed"
for w in pdgemm pdtrsm 'lambda_p^q' 'tau_p^q' dgemm_time trsm_time T_broadcast T_send C_b C_u add_time \
  '--procs' '--kernels' '--kernel-rate' '--platform' '--ga' '--memory' '--json' '--report'; do
  grep -q -- "$w" "$TMPD/help" || bad "--help does not mention $w"
done
"$PSIM" --help | grep -q 'forecast' || bad "psim --help does not list forecast"
finish "$fails"
