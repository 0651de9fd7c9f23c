#!/bin/sh
# HACKING.md, "Exit statuses": an error's status is a PSIM_EXIT_* constant, never a literal.
# Fails on a psim_errf(err, <digit>, ...) anywhere in src/ and on a bare `return 2;` or
# `return 3;` in src/cli/ (the commands' statuses; elsewhere such returns are values).
# Usage: exit_literals.sh [ROOT] (a source tree; default: the repository).
. "$(dirname "$0")/../lib/common.sh"
ROOT=${1:-$PSIM_SRC}
bad=$(grep -rnE 'psim_errf\([^,()]*, *[0-9]+ *,' "$ROOT/src" ; grep -rnE 'return [234];' "$ROOT/src/cli")
if [ -n "$bad" ]; then
  echo "literal exit statuses (use PSIM_EXIT_* from include/psim/util.h or emul.h):"
  echo "$bad"
  exit 1
fi
# the check itself finds a literal when there is one
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/cli"
printf 'int f(psim_err *e) { return psim_errf(e, 2, "x", 1, "y"); }\n' > "$tmp/src/cli/x.c"
grep -rqE 'psim_errf\([^,()]*, *[0-9]+ *,' "$tmp/src" || { echo "the pattern misses a literal"; exit 1; }
echo ok
