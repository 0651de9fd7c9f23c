#!/bin/sh
# The README's example commands run as written: every indented line that starts with
# build/psim, ./build/psim, build/psimcc or printf (except those about a placeholder ./app) is
# run in order, from a directory where build/ is the psim under test and examples/ the source
# tree's, with /tmp/ moved to a temporary directory. Each must exit 0; then a few results are
# checked (the hostfile placed 32 ranks per host, the traces replayed to known ranks).
# Every line runs after `make demo` alone unless it says what else it needs: a line saying
# "needs OpenBLAS" runs only when this psim was built with a CBLAS (psim calibrate --kernels),
# one saying "needs MPICH" or "real MPICH" only when MPICH's mpicc.mpich and mpiexec.mpich are
# installed; those are skipped, not failed, without it (make test on a machine without them).
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
W=$TMPD/w
mkdir -p "$W/tmp"
ln -s "$(cd "$(dirname "$PSIM")" && pwd)" "$W/build"
ln -s "$PSIM_SRC/examples" "$W/examples"
grep -E '^    (\./)?(build/psim|printf )' "$PSIM_SRC/README.md" | grep -v '\./app' |
  sed -e 's/^    //' -e "s#/tmp/#$W/tmp/#g" >"$W/commands"
n=$(wc -l <"$W/commands")
[ "$n" -ge 12 ] || bad "only $n example commands found in README.md"
grep -q 'replay .*rank-0.txt .*rank-1.txt' "$W/commands" || bad "no per-rank files example in README.md"
grep -q 'platform --default' "$W/commands" || bad "no platform example in README.md"
grep -q 'Jacobi\|jacobi' "$W/commands" || bad "no psim run example in README.md"
# what this machine and build have, for the lines that say what they need
have_blas=0
grep -q '^CBLAS_FOUND:INTERNAL=1' "$(dirname "$PSIM")/CMakeCache.txt" 2>/dev/null && have_blas=1
have_mpich=0
command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null && have_mpich=1
i=0
skipped=0
while IFS= read -r cmd; do
  i=$((i + 1))
  case "$cmd" in
    *"needs OpenBLAS"*) if [ $have_blas -eq 0 ]; then echo "skip (no BLAS in this build) $cmd" | cut -c1-160; skipped=$((skipped + 1)); continue; fi ;;
    *"needs MPICH"*|*"real MPICH"*) if [ $have_mpich -eq 0 ]; then echo "skip (no MPICH) $cmd" | cut -c1-160; skipped=$((skipped + 1)); continue; fi ;;
  esac
  (cd "$W" && timeout 300 sh -c "$cmd") >"$W/out.$i" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then printf 'ok   %s\n' "$cmd" | cut -c1-160
  else bad "exit status $rc: $cmd"; tail -n 5 "$W/out.$i" | sed 's/^/     | /'; fi
done <"$W/commands"
# what the commands made
[ -f "$W/tmp/st/list" ] && [ -f "$W/tmp/st/rank-63.txt" ] || bad "gen stencil --ranks 64 did not write /tmp/st"
[ -f "$W/tmp/s4/trace.txt" ] || bad "gen --shared did not write /tmp/s4/trace.txt"
grep -q '"np": 64' "$W/tmp/out.json" || bad "/tmp/out.json is not a 64-rank result"
grep -q '"host": "node-1"' "$W/tmp/out.json" || bad "/tmp/out.json: the hostfile did not place ranks on node-1"
[ "$(grep -c '"host": "node-0"' "$W/tmp/out.json")" -eq 32 ] || bad "/tmp/out.json: expected 32 ranks on node-0"
# the Jacobi example must not read as a failure (it used to say "not converged")
grep -h '^jacobi:' "$W"/out.* | grep -q 'not converged\|fail' && bad "the Jacobi example reads as a failure: $(grep -h '^jacobi:' "$W"/out.* | head -n 1)"
grep -qh '^jacobi: 256x256 on 16 ranks: ran the 100 iterations asked' "$W"/out.* ||
  bad "the Jacobi example did not print its 100 iterations: $(grep -h '^jacobi:' "$W"/out.* | head -n 1)"
echo "$i commands ($skipped skipped: what they need is absent)"
finish $fails
