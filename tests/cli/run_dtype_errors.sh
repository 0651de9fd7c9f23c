#!/bin/sh
# Datatype decoding, external32 and error handling under psim run:
# - tests/data/emul/dtype_decode.c: MPI_Type_get_envelope/MPI_Type_get_contents of every
#   constructor (counts, integers, addresses, the types given back; a vector freed by the
#   program still given back by its struct), the F90 types (MPICH's F90 combiners, (p, r),
#   one handle per (p, r)), and MPI_Pack_external's bytes, all as MPI defines them (hand-written
#   below); the same lines from MPICH's mpicc build under psim run and, when mpiexec.mpich
#   runs here, from real MPICH; "mixed": a struct of a char and a double, MPI_DOUBLE_INT
#   (MPICH 4.0.2 packs one basic type only: psim alone);
# - tests/data/emul/errhan.c: classes, codes and strings of the program's, MPI_LASTUSEDCODE,
#   communicator and window error handlers (called with the object and code, inherited by
#   MPI_Comm_dup, MPI_ERRORS_RETURN), the same from mpicc's build and real MPICH; under
#   MPI_ERRORS_ARE_FATAL MPI_Comm_call_errhandler stops the run (exit 4) naming the call.
. "$(dirname "$0")/../lib/common.sh"
fails=0
D=$PSIM_TESTDATA/emul
PSIMCC="$(dirname "$PSIM")/psimcc"
"$PSIMCC" -O1 -o "$TMPD/dec" "$D/dtype_decode.c" || { echo "FAIL: psimcc dtype_decode.c"; exit 1; }
"$PSIMCC" -O1 -o "$TMPD/eh" "$D/errhan.c" || { echo "FAIL: psimcc errhan.c"; exit 1; }
want_dec='int: NAMED ni 0 na 0 nt 0
contiguous: CONTIGUOUS ni 1 na 0 nt 1 | 3 | | MPI_INT
vector: VECTOR ni 3 na 0 nt 1 | 2 3 4 | | MPI_DOUBLE
hvector: HVECTOR ni 2 na 1 nt 1 | 2 1 | 24 | MPI_INT
indexed: INDEXED ni 5 na 0 nt 1 | 2 1 2 0 5 | | MPI_INT
hindexed: HINDEXED ni 3 na 2 nt 1 | 2 1 2 | 0 16 | MPI_DOUBLE
indexed_block: INDEXED_BLOCK ni 5 na 0 nt 1 | 3 2 0 5 9 | | MPI_INT
hindexed_block: HINDEXED_BLOCK ni 2 na 2 nt 1 | 2 1 | 16 40 | MPI_FLOAT
struct: STRUCT ni 4 na 3 nt 3 | 3 1 2 1 | 0 8 24 | MPI_INT MPI_DOUBLE derived VECTOR size 48
subarray: SUBARRAY ni 8 na 0 nt 1 | 2 4 5 2 3 1 1 56 | | MPI_INT
resized: RESIZED ni 0 na 2 nt 1 | | -4 16 | MPI_INT
dup: DUP ni 0 na 0 nt 1 | | | derived RESIZED size 4
f90_real(3,10): F90_REAL ni 2 na 0 nt 0 | 3 10 | |
f90_real(15,undef): F90_REAL ni 2 na 0 nt 0 | 15 -32766 | |
f90_complex(undef,30): F90_COMPLEX ni 2 na 0 nt 0 | -32766 30 | |
f90 sizes 4 8 8, same handle for the same (p,r) 1
f90_integer(9): F90_INTEGER ni 1 na 0 nt 0 | 9 | |
f90 integer sizes 4 2
int 1 -2: 00 00 00 01 ff ff ff fe
double 1.0: 3f f0 00 00 00 00 00 00
long size 8 long -3 65537: ff ff ff fd 00 01 00 01
long back -3 65537 used 8
short 0x1234: 12 34
complex 1-2i: 3f 80 00 00 c0 00 00 00
vector of 1 2 3 4: 00 00 00 01 00 00 00 03
vector back 1 0 3 0'
want_mixed="$want_dec
struct size 9 struct A 2.0: 41 40 00 00 00 00 00 00 00
double_int -1.5 7: bf f8 00 00 00 00 00 00 00 00 00 07"
want_eh=''
for r in 0 1; do
  want_eh="$want_eh${want_eh:+
}rank $r: class of code 1, of class 1, strings \"New class\" 9 \"First code\" \"\" 0
rank $r: default fatal 1, set 1, called 1 comm 1 code 1 rc 1
rank $r: distinct 1, lastused 1 1
rank $r: errors return: call rc 1, no kind rc 1
rank $r: inherited by dup 1 comm 1 code 1
rank $r: new class string \"\", code of MPI_ERR_ARG 1
rank $r: win default fatal 1, called 1 win 1 code 1 rc 1"
done
out=$(timeout 60 "$PSIM" run --np 1 -q --no-measure -- "$TMPD/dec" mixed) || bad "dtype_decode: run failed"
[ "$out" = "$want_mixed" ] || bad "dtype_decode (psimcc): $out"
out=$(timeout 60 "$PSIM" run --np 2 -q --no-measure -- "$TMPD/eh" | sort) || bad "errhan: run failed"
[ "$out" = "$want_eh" ] || bad "errhan (psimcc): $out"
timeout 60 "$PSIM" run --np 2 -q --no-measure -- "$TMPD/eh" fatal > "$TMPD/out" 2> "$TMPD/err"; rc=$?
[ $rc -eq 4 ] && grep -q "MPI_Comm_call_errhandler: error .*MPI_ERR_OTHER.* under MPI_ERRORS_ARE_FATAL" "$TMPD/err" &&
  ! grep -q "not reached" "$TMPD/out" || bad "errhan fatal: rc $rc: $(cat "$TMPD/err")"

# MPICH's mpicc: the same through psim's libmpich.so.12, and real MPICH prints the same
MPICC=$(command -v mpicc.mpich || true)
# (not under ASan: loading MPICH binaries needs RTLD_DEEPBIND, which ASan refuses)
if grep -qa __asan_init "$PSIM"; then
  echo "note: sanitized psim: the MPICH-ABI part is skipped"
elif [ -n "$MPICC" ] && [ -f "$(dirname "$PSIM")/lib/libmpich.so.12" ]; then
  "$MPICC" -O1 -o "$TMPD/dec_m" "$D/dtype_decode.c" || bad "mpicc dtype_decode.c"
  "$MPICC" -O1 -o "$TMPD/eh_m" "$D/errhan.c" || bad "mpicc errhan.c"
  out=$(timeout 60 "$PSIM" run --np 1 -q --no-measure -- "$TMPD/dec_m" mixed)
  [ "$out" = "$want_mixed" ] || bad "dtype_decode (mpicc): $out"
  out=$(timeout 60 "$PSIM" run --np 2 -q --no-measure -- "$TMPD/eh_m" | sort)
  [ "$out" = "$want_eh" ] || bad "errhan (mpicc): $out"
  if command -v mpiexec.mpich > /dev/null && out=$(timeout 60 mpiexec.mpich -n 1 "$TMPD/dec_m" 2> /dev/null); then
    [ "$out" = "$want_dec" ] || bad "dtype_decode (real MPICH) differs: $out"
    # one file per rank: mpiexec forwards the two processes' output in pieces, which
    # interleaved within a line now and then
    timeout 60 mpiexec.mpich -outfile-pattern "$TMPD/eh_out.%r" -n 2 "$TMPD/eh_m" 2> /dev/null
    out=$(cat "$TMPD"/eh_out.* | sort)
    [ "$out" = "$want_eh" ] || bad "errhan (real MPICH) differs: $out"
  else
    echo "note: real MPICH not run (mpiexec.mpich missing or failing)"
  fi
else
  echo "note: no MPICH mpicc: the MPICH-ABI part is skipped"
fi
finish $fails
