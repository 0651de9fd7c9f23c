#!/bin/sh
# MPI_Type_create_darray under psim run (tests/data/emul/darray.c): for block, cyclic, cyclic(2),
# 2-D block x cyclic(2) in C and in Fortran order, none x block, and block(4) of 5 over 2, each
# process's type selects the global indices computed here by hand, with the global array's
# extent (lower bound 0), MPI_Type_get_envelope/get_contents give the arguments back, and
# external32 (the type map walked element by element) selects the same elements. The same lines
# as real MPICH prints (tests/cli/run_abi.sh). Mistakes stop the run (exit 4).
#
# By hand: a grid of processes numbered in row-major order; along a dimension of g elements
# over p processes, coordinate c owns [c b, (c + 1) b) with b = ceil(g / p) (block), the j with
# floor(j / k) mod p = c (cyclic(k), k = 1 by default), or everything (none). 2-D, gsizes 4 x 6,
# block x cyclic(2) over 2 x 2: rank 1 = coordinates (0, 1) owns rows 0-1, columns 2, 3; in C
# order element (i, j) is at 6 i + j: 2 3 8 9; in Fortran order at i + 4 j: 8 9 12 13.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -o "$TMPD/darray" "$PSIM_TESTDATA/emul/darray.c" || { echo "FAIL: psimcc darray.c"; exit 1; }
want=$(awk 'BEGIN {
  # name, processes, extent in ints, then each process'"'"'s indices
  n = split("block|3|10|0 1 2 3|4 5 6 7|8 9;" \
            "cyclic|3|10|0 3 6 9|1 4 7|2 5 8;" \
            "cyclic2|3|10|0 1 6 7|2 3 8 9|4 5;" \
            "2d-c|4|24|0 1 4 5 6 7 10 11|2 3 8 9|12 13 16 17 18 19 22 23|14 15 20 21;" \
            "2d-fortran|4|24|0 1 4 5 16 17 20 21|8 9 12 13|2 3 6 7 18 19 22 23|10 11 14 15;" \
            "none-block|2|12|0 1 4 5 8 9|2 3 6 7 10 11;" \
            "block4|2|5|0 1 2 3|4", cases, ";")
  for (c = 1; c <= n; c++) {
    split(cases[c], f, "|")
    for (r = 0; r < f[2]; r++) {
      k = split(f[4 + r], idx, " ")
      printf "%s r%d: size %d lb 0 extent %d contents ok external32 ok | %s\n", f[1], r, 4 * k, 4 * f[3], f[4 + r]
    }
  }
}')
out=$("$PSIM" run --np 1 -q -- "$TMPD/darray" 2>&1) || bad "darray.c: rc $?"
[ "$out" = "$want" ] && echo "ok   darray layouts (7 cases, 21 types)" || bad "darray layouts:
$(echo "$out" | diff - "$(printf '%s\n' "$want" > "$TMPD/want"; echo "$TMPD/want")")"
for c in "grid:a grid of 4 processes for size 3" "none:MPI_DISTRIBUTE_NONE over 2 processes" \
         "darg:darg 4 for 10 elements over 2 processes"; do
  "$PSIM" run --np 1 -q -- "$TMPD/darray" "${c%%:*}" > /dev/null 2> "$TMPD/err"; rc=$?
  [ $rc -eq 4 ] && grep -qF "${c#*:}" "$TMPD/err" || { bad "${c%%:*}: rc $rc"; cat "$TMPD/err"; }
done
finish $fails
