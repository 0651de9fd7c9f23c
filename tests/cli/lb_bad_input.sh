#!/bin/sh
# psim lb and the trace tools on bad input: a clear message and exit status 2, no crash.
set -u
. "$(dirname "$0")/../lib/common.sh"
FREE="$PSIM_TESTDATA/platforms/lb_free2.xml"
fails=0
expect2() { # name pattern command...
  name=$1 pat=$2; shift 2
  err=$(tmpfile)
  "$@" >/dev/null 2>"$err"; rc=$?
  if [ $rc -eq 2 ] && grep -q -- "$pat" "$err"; then echo "ok   $name: $(head -n 1 "$err")"
  else echo "FAIL $name: exit $rc, stderr:"; cat "$err"; fails=$((fails + 1)); fi
}
SOME=$(tmpfile); printf '0 init\n0 compute 1\n0 migrate\n0 finalize\n1 init\n1 compute 1\n1 finalize\n' > "$SOME"
MID=$(tmpfile); printf '0 init\n0 compute 1\n0 migrate\n0 send 1 0 10\n0 finalize\n1 init\n1 compute 1\n1 recv 0 0 10\n1 migrate\n1 finalize\n' > "$MID"
OK=$(tmpfile); printf '0 init\n0 compute 1\n0 migrate\n0 finalize\n1 init\n1 compute 1\n1 migrate\n1 finalize\n' > "$OK"
expect2 migrate_some_vps "migrate on only some VPs" "$PSIM" lb "$SOME" --platform "$FREE" --pes 2 --balancer greedy --period 1
expect2 migrate_some_vps_none "migrate on only some VPs" "$PSIM" lb "$SOME" --platform "$FREE" --pes 2 --balancer none
expect2 migrate_blocks_peer "migrate on only some VPs" "$PSIM" lb "$MID" --platform "$FREE" --pes 2 --balancer greedy --period 1
expect2 unknown_balancer "unknown balancer 'fastest'" "$PSIM" lb "$OK" --platform "$FREE" --pes 2 --balancer greedy,fastest --period 1
expect2 too_many_pes "only 2 cores" "$PSIM" lb "$OK" --platform "$FREE" --pes 3 --balancer greedy --period 1
expect2 no_pes "--pes" "$PSIM" lb "$OK" --platform "$FREE" --balancer greedy
expect2 zero_period "period must be at least 1" "$PSIM" lb "$OK" --platform "$FREE" --pes 2 --balancer greedy --period 0
MAP=$(tmpfile); printf '0\n7\n' > "$MAP"
expect2 bad_mapping ":2: expected a PE number" "$PSIM" lb "$OK" --platform "$FREE" --pes 2 --balancer greedy --initial "$MAP"
expect2 missing_trace "cannot\|No such\|not" "$PSIM" lb /nonexistent/trace --platform "$FREE" --pes 2 --balancer greedy
expect2 aggregate_ranks "needs 16" "$PSIM" trace aggregate --from 4x4 --to 2x2 "$OK"
expect2 aggregate_dims "expects AxB" "$PSIM" trace aggregate --from 4 --to 2x2 "$OK"
expect2 lb_period_k "at least 1" "$PSIM" trace lb-period 0 "$OK" "$TMPD/out"
PROF=$(tmpfile); printf 'iteration,rank,flops\n1,0,5\n1,9,5\n' > "$PROF"
expect2 profile_rank "rank in 0..3" "$PSIM" gen stencil2d --grid 2x2 --profile "$PROF" -o "$TMPD/g"
expect2 stencil2d_fractional_iters "--iters expects a non-negative integer, got '1.5'" "$PSIM" gen stencil2d --iters 1.5 -o "$TMPD/g2"
expect2 lb_unknown_option_last "unknown option '--bogus'" "$PSIM" lb "$OK" --platform "$FREE" --pes 2 --balancer greedy --bogus
NOMIG=$(tmpfile); printf '0 init\n0 compute 1\n1 init\n1 compute 1\n' > "$NOMIG"
expect2 lb_np_above_trace "the trace has 2 ranks (--np 3)" "$PSIM" lb "$NOMIG" --platform "$FREE" --pes 2 --balancer greedy --np 3
[ -e "$TMPD/g2" ] && { echo "FAIL a rejected gen stencil2d wrote its output"; fails=$((fails + 1)); }
finish $fails
