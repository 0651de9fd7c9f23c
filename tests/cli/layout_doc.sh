#!/bin/sh
# docs/LAYOUT.md names every C file under src/: a newcomer looks a file up there, so a file it
# leaves out is a file nobody can place. A file is named by its name (rt_coll.c) or by a family
# pattern LAYOUT.md writes out (coll_*.c). Usage: layout_doc.sh [ROOT] (default: the repository).
. "$(dirname "$0")/../lib/common.sh"
fails=0
ROOT=${1:-$PSIM_SRC}
doc="$ROOT/docs/LAYOUT.md"
[ -r "$doc" ] || { bad "no $doc"; finish $fails; }

# the family patterns written in the document, as shell globs (coll_*.c)
pats=$(grep -oE '[A-Za-z0-9_]+\*[A-Za-z0-9_]*\.c' "$doc" | sort -u)
n=0
for f in $(cd "$ROOT" && find src -name '*.c' | sort); do
  n=$((n + 1))
  b=${f##*/}
  # the name as a word: emu_p2p.c does not name p2p.c
  grep -qE "(^|[^A-Za-z0-9_])$(printf '%s' "$b" | sed 's/\./\\./g')" "$doc" && continue
  named=
  for p in $pats; do
    case $b in $p) named=1; break ;; esac
  done
  [ -n "$named" ] || bad "$f: docs/LAYOUT.md does not name it (add it to its folder's entry)"
done
[ "$n" -gt 100 ] || bad "only $n C files found under $ROOT/src"
[ "$fails" -eq 0 ] && echo "ok   docs/LAYOUT.md names all $n C files under src/"
finish $fails
