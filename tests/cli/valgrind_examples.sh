#!/bin/sh
# Memory checks: psim replay under valgrind (memcheck, full leak check) on two SimGrid cases,
# a small generated stencil (compressed and shared too), an error path (malformed XML) and a
# deadlock. Any invalid access, use of uninitialised memory or leak fails the test.
# Skipped when valgrind is missing or psim is built with AddressSanitizer (they don't mix).
set -u
. "$(dirname "$0")/../lib/common.sh"
SG="$PSIM_SHARED/cases/simgrid"
D=$TMPD
if ! command -v valgrind >/dev/null 2>&1; then echo "SKIP: valgrind is not installed"; exit 0; fi
if grep -qa '__asan_init' "$PSIM"; then echo "SKIP: $PSIM is built with AddressSanitizer"; exit 0; fi
fails=0 checks=0

# vg NAME WANT_STATUS PSIM-ARGS...: psim's own status must be WANT_STATUS, valgrind's verdict
# clean (it would exit 99 on an error; "definitely/indirectly/possibly lost" must be 0)
vg() {
  name=$1 want=$2; shift 2
  checks=$((checks + 1))
  valgrind -q --leak-check=full --show-leak-kinds=definite,indirect,possible \
    --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 \
    --log-file="$D/vg.log" "$PSIM" "$@" >"$D/out" 2>"$D/err"
  rc=$?
  if [ "$rc" -eq "$want" ] && [ ! -s "$D/vg.log" ]; then echo "ok   $name (status $rc, valgrind clean)"
  else
    echo "FAIL $name: status $rc (expected $want; 99 = valgrind found errors)"
    sed 's/^/     | /' "$D/vg.log" | head -n 40; sed 's/^/     | /' "$D/err" | head -n 5
    fails=$((fails + 1))
  fi
}

C="--platform $SG/small_platform.xml --hostfile $SG/hostfile"
# shellcheck disable=SC2086
vg "simgrid isend_test_wait" 0 replay --quiet $C --np 3 --json "$D/j" --actions "$D/a" "$SG/traces/actions_with_isend.txt"
# shellcheck disable=SC2086
vg "simgrid split_send_recv" 0 replay --quiet $C --np 2 --json "$D/j" "$SG/traces/actions0.txt" "$SG/traces/actions1.txt"
"$PSIM" gen stencil --ranks 9 --iters 4 --halo 70000 -o "$D/st" >/dev/null 2>&1
"$PSIM" gen stencil --ranks 9 --iters 4 --gzip -o "$D/stgz" >/dev/null 2>&1
"$PSIM" gen stencil --ranks 9 --iters 4 --shared -o "$D/stsh" >/dev/null 2>&1
vg "gen stencil replay" 0 replay --quiet --json "$D/j" "$D/st"
vg "gen stencil gzip replay, constant network" 0 replay --quiet --network constant "$D/stgz"
vg "gen stencil shared file replay" 0 replay --quiet "$D/stsh"
vg "gen stencil itself" 0 gen stencil --ranks 4 --iters 2 --zstd -o "$D/st2"
printf '<?xml version="1.0"?>\n<platform version="4.1">\n  <zone id="z" routing="Full">\n    <host id="A" speed="1Gf"\n  </zone>\n</platform>\n' >"$D/bad.xml"
vg "malformed XML (error path)" 2 replay --quiet --platform "$D/bad.xml" --np 1 "$SG/traces/actions0.txt"
printf '0 init\n1 init\n0 send 1 0 100\n1 frobnicate 0 0 100\n' >"$D/bad.txt"
# shellcheck disable=SC2086
vg "unknown action (error path)" 2 replay --quiet $C --np 2 "$D/bad.txt"
printf '0 init\n1 init\n2 init\n0 barrier\n1 barrier\n2 irecv 0 0 10\n' >"$D/dead.txt"
# shellcheck disable=SC2086
vg "deadlock" 3 replay --quiet $C --np 3 --json "$D/j" "$D/dead.txt"

echo "$checks checks"
finish $fails
