#!/bin/sh
# Every command's --help exits 0, shows its usage and an example, and the example runs as
# written (its /tmp paths moved to a temporary directory): help and behaviour agree.
set -u
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
export PSIM PSIMCC
fails=0 checks=0

# examples CMD...: the example lines of 'psim CMD --help' (indented lines after "example:")
examples() {
  "$PSIM" "$@" --help | awk '/^example/ { on = 1; next } on && /^  [^ ]/ { print; next } on && NF == 0 { exit }'
}

for c in replay run lb balance demo gen "gen stencil" "gen stencil2d" "gen mix" platform calibrate \
  critical-path report sensitivity trace "trace stats" "trace lb-period" "trace aggregate"; do
  checks=$((checks + 1))
  # shellcheck disable=SC2086
  "$PSIM" $c --help >"$TMPD/help" 2>"$TMPD/err"
  rc=$?
  why=""
  [ "$rc" -eq 0 ] || why="exit status $rc"
  [ -s "$TMPD/err" ] && why="$why; output on stderr"
  grep -q "usage: psim" "$TMPD/help" || why="$why; no usage line"
  # shellcheck disable=SC2086
  n=$(examples $c | grep -c '^  \(psim\|build/psimcc\|printf\) ')
  [ "$n" -ge 1 ] || why="$why; no example (an indented 'psim ...' line after 'example:')"
  if [ -z "$why" ]; then echo "ok   psim $c --help: $n example line(s)"
  else echo "FAIL psim $c --help: ${why#; }"; fails=$((fails + 1)); fi
done
checks=$((checks + 1))
if "$PSIM" --help | grep -A1 '^Run .psim <command> --help' | grep -q '^  psim '; then echo "ok   psim --help has an example"
else echo "FAIL psim --help: no example"; fails=$((fails + 1)); fi

# Run each distinct example as written, in its own directory: psim is $PSIM, build/psimcc is
# $PSIMCC, examples/ is the source tree's, /tmp/ is that directory.
for c in replay run lb balance demo gen "gen stencil2d" platform calibrate critical-path report \
  sensitivity trace; do
  checks=$((checks + 1))
  ex=$(mktemp -d "$TMPD/ex.XXXXXX")
  # under a sanitized psim, the lines that build with a real mpicc (-o NAME) and those that
  # use NAME are left out: ASan refuses to load such programs (run_abi.sh is noasan)
  # shellcheck disable=SC2086
  examples $c | if [ "${PSIM_SANITIZED:-0}" = 1 ]; then
    awk '/mpicc\.(mpich|openmpi)/ { for (i = 1; i < NF; i++) if ($i == "-o") skip[$(i + 1)] = 1; next }
         { for (n in skip) if (index($0, n " ")) next; print }'
  else cat; fi | sed -e 's/[[:space:]]#.*$//' \
    -e "s#/tmp/#$ex/#g" \
    -e 's#build/psimcc#"$PSIMCC"#g' \
    -e "s#examples/#$PSIM_SRC/examples/#g" \
    -e 's#^\( *\)psim #\1"$PSIM" #' -e 's#&& psim #\&\& "$PSIM" #g' -e 's#$# || exit 1#' >"$ex/script.sh"
  # A stuck example is stopped by the CPU seconds each of its processes uses, not by wall time:
  # a wall-clock limit (300 s for the whole block, before) measured the machine's load as
  # much as the example. psim lb's block (13 lb runs of a 16x16 grid over 500 iterations)
  # takes 11 s of CPU under ASan, 15 s of wall time alone and 183 s with the machine loaded
  # (load 11 on 2 cores): make check's sanitized pass beside other tests went past 300 s and
  # failed it. A loop burns CPU and meets this limit; a psim that blocks for ever (a deadlock
  # psim would not see) is left to ctest's TIMEOUT for this test (tests/CMakeLists.txt).
  (cd "$ex" && ulimit -t 300 && sh ./script.sh) >"$ex/out" 2>&1
  rc=$?
  if [ "$rc" -eq 0 ]; then echo "ok   the example of psim $c --help runs ($(wc -l <"$ex/script.sh") command lines)"
  else
    why="exit status $rc"
    [ "$rc" -eq 152 ] && why="$why: a command used 300 s of CPU (SIGXCPU), stuck in a loop?"
    echo "FAIL the example of psim $c --help: $why"
    sed 's/^/     $ /' "$ex/script.sh"; tail -n 5 "$ex/out" | sed 's/^/     | /'
    fails=$((fails + 1))
  fi
done
echo "$checks checks"
finish $fails
