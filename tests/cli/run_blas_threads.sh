#!/bin/sh
# psim run measures one thread a rank; a threaded BLAS (Debian's OpenBLAS is the pthread
# build) runs a large dgemm on a pool of threads whose CPU time is not the rank's, so psim
# sets the BLAS libraries' thread counts to 1 unless the user set them (src/emul/emu_load.c),
# and warns when the user asked for more.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
D="$PSIM_TESTDATA/emul"
fails=0
"$PSIMCC" -o "$TMPD/blas_env" "$D/blas_env.c" || { echo "FAIL: psimcc blas_env.c"; exit 1; }
unset OPENBLAS_NUM_THREADS GOTO_NUM_THREADS MKL_NUM_THREADS BLIS_NUM_THREADS
out=$("$PSIM" run --np 2 -q -- "$TMPD/blas_env" 2> "$TMPD/err") || bad "unset: rc $?"
[ "$out" = "OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1" ] || bad "unset: the ranks see '$out', want both 1"
[ ! -s "$TMPD/err" ] || bad "unset: stderr: $(cat "$TMPD/err")"
out=$(OPENBLAS_NUM_THREADS=1 "$PSIM" run --np 2 -q -- "$TMPD/blas_env" 2> "$TMPD/err") || bad "1: rc $?"
[ ! -s "$TMPD/err" ] || bad "OPENBLAS_NUM_THREADS=1: stderr: $(cat "$TMPD/err")"
out=$(OPENBLAS_NUM_THREADS=4 "$PSIM" run --np 2 -q -- "$TMPD/blas_env" 2> "$TMPD/err") || bad "4: rc $?"
[ "$out" = "OPENBLAS_NUM_THREADS=4 MKL_NUM_THREADS=1" ] || bad "4: the ranks see '$out', want the user's 4"
grep -q "^psim: OPENBLAS_NUM_THREADS=4: the BLAS's threads run beside each rank and their CPU time is not the rank's" "$TMPD/err" ||
  bad "OPENBLAS_NUM_THREADS=4: no warning: $(cat "$TMPD/err")"
# OpenBLAS itself reads the count as it loads, with the program (when it is installed)
if "$PSIMCC" -DWITH_OPENBLAS -o "$TMPD/blas_ob" "$D/blas_env.c" -lopenblas 2> /dev/null; then
  out=$("$PSIM" run --np 2 -q -- "$TMPD/blas_ob" 2>&1) || bad "openblas: rc $?"
  echo "$out" | grep -q "^openblas threads 1$" || bad "openblas: $out"
  echo "with OpenBLAS: $(echo "$out" | tail -n 1)"
else
  echo "no OpenBLAS to link: its own count not checked"
fi
finish $fails
