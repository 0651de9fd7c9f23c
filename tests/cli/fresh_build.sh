#!/bin/sh
# `make demo` works on a machine with only the build dependencies: a copy of the source tree
# (without build directories) is configured with pkg-config seeing only expat, zlib, zstd and jansson
# (not cmocka, not SimGrid), built with `make demo`, and the demo must succeed. The tests must
# then not be configured, and `make test` must fail with a clear message, not build half.
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
W=$TMPD/fresh
mkdir -p "$W/src" "$W/pc"
# the source tree as a fresh checkout would have it
tar -C "$PSIM_SRC" --exclude='./build' --exclude='./build-*' --exclude='./.git' -cf - . | tar -C "$W/src" -xf - ||
  { echo "FAIL copying the source tree"; exit 1; }
[ -f "$W/src/CMakeLists.txt" ] && [ ! -e "$W/src/build" ] || bad "the copy is not a clean source tree"
# pkg-config sees the build dependencies only
for m in expat zlib libzstd jansson; do
  d=$(pkg-config --variable=pcfiledir "$m") && cp "$d/$m.pc" "$W/pc/" || bad "no $m.pc to copy"
done
export PKG_CONFIG_LIBDIR="$W/pc"
unset PKG_CONFIG_PATH
for m in cmocka simgrid; do
  pkg-config --exists "$m" && bad "pkg-config still sees $m"
done
pkg-config --exists expat zlib libzstd jansson || bad "pkg-config does not see the build dependencies"

(cd "$W/src" && timeout 1200 make demo BUILD="$W/b" JOBS=2) >"$W/log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then bad "make demo failed (exit $rc)"; tail -n 30 "$W/log" | sed 's/^/     | /'
else echo "ok   make demo on the copy"; fi
grep -q "psim demo: a 64-rank 2-D stencil" "$W/log" || { bad "make demo did not run the demo"; tail -n 20 "$W/log"; }
[ -x "$W/b/psim" ] || bad "no psim built"
"$W/b/psim" demo -q --json "$W/demo.json" >/dev/null 2>&1 || bad "psim demo --json failed"
t=$(json_get "$W/demo.json" simulated_time)
awk -v t="$t" 'BEGIN { exit !(t > 0.01 && t < 1) }' || bad "the demo's simulated time is '$t', expected about 0.03 s"
[ -x "$W/b/psimcc" ] || bad "no psimcc built"
ls "$W/b" | grep -q '^unit_\|_test_' && bad "unit tests were built without cmocka"
grep -q "cmocka not found: tests not configured" "$W/log" || bad "configure did not say why the tests are left out"
# make test asks for cmocka clearly
(cd "$W/src" && timeout 300 make test BUILD="$W/b" JOBS=2) >"$W/log2" 2>&1 && bad "make test succeeded without cmocka"
grep -q "the tests need cmocka" "$W/log2" || { bad "make test without cmocka: no clear message"; tail -n 10 "$W/log2"; }
finish $fails
