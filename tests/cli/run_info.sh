#!/bin/sh
# MPI_Info objects and MPI_Alloc_mem under psim run: keys in insertion order, a set replaces,
# get truncates to valuelen characters, dup copies, delete removes, free resets the handle;
# MPI_INFO_ENV has maxprocs = the number of ranks; misuse is an MPI error (exit 4).
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -o "$TMPD/info" "$PSIM_TESTDATA/emul/info.c" || { echo "FAIL: psimcc"; exit 1; }
out=$("$PSIM" run --np 3 -q --no-measure -- "$TMPD/info" | head -n 11) || bad "run: rc $?"
want="nkeys 2
key 0 no_locks=true
key 1 alpha=22
valuelen 2 flag 1
truncated 'tr'
missing flag 0
after delete 1, dup 2
freed 1 1
env maxprocs 3
alloc_mem 99
nkeys 2"
[ "$out" = "$want" ] || bad "output:
$out"
cat > "$TMPD/bad.c" <<'C'
#include <mpi.h>
int main(int c, char **v) { MPI_Info i; char k[300]; MPI_Init(&c, &v); MPI_Info_create(&i); MPI_Info_get_nthkey(i, 0, k); MPI_Finalize(); return 0; }
C
"$PSIMCC" -o "$TMPD/bad" "$TMPD/bad.c" && "$PSIM" run -q -- "$TMPD/bad" 2> "$TMPD/err"; rc=$?
[ $rc -eq 4 ] && grep -q "MPI_Info_get_nthkey: key 0 of an info with 0 keys" "$TMPD/err" || { bad "nthkey out of range: rc $rc"; cat "$TMPD/err"; }
finish $fails
