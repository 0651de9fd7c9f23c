#!/bin/sh
# The example commands of docs/models.md's sections "Star network (DPS)" and "Machine file
# (CLUE)" run as written (indented lines starting with psim, printf or build/psimcc; a line
# ending in '\' continues on the next), in order, with /tmp/ moved to a temporary directory,
# psim = the psim under test, build/psimcc and examples/ those of this tree. Then the DPS
# example's times are checked: r0 at 2 s under the star, 1.500024 s under max-min.
set -u
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
W=$TMPD/w
mkdir -p "$W/tmp"
awk '/^## / { on = ($0 ~ /^## (Star network \(DPS\)|Machine file \(CLUE\))$/); next }
     on && cont { line = line " " $0; sub(/^ +/, "", $0) }
     on && !cont && /^    (psim|printf|build\/psimcc) / { line = $0 }
     on && (cont || /^    (psim|printf|build\/psimcc) /) {
       if (line ~ /\\$/) { sub(/\\$/, "", line); cont = 1; next }
       cont = 0; sub(/^ +/, "", line); print line }' "$PSIM_SRC/docs/models.md" |
  sed -e 's/[[:space:]]#.*$//' -e "s#/tmp/#$W/tmp/#g" -e 's#build/psimcc#"$PSIMCC"#g' \
      -e "s#examples/#$PSIM_SRC/examples/#g" -e 's#^psim #"$PSIM" #' > "$W/commands"
n=$(wc -l < "$W/commands")
[ "$n" -ge 12 ] || bad "only $n example commands found in docs/models.md"
export PSIM PSIMCC
i=0
while IFS= read -r cmd; do
  i=$((i + 1))
  (cd "$W" && timeout 300 sh -c "$cmd") > "$W/out.$i" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then printf 'ok   %s\n' "$cmd" | cut -c1-160
  else bad "exit status $rc: $cmd"; tail -n 5 "$W/out.$i" | sed 's/^/     | /'; fi
done < "$W/commands"
# the DPS example: psim's output for it (the summary's rank 0 line: its finish time)
j=$(grep -n 'dps.txt' "$W/commands" | sed -n '2p;3p' | cut -d: -f1)
set -- $j
r0() { awk '$1 == 0 && $2 == "node-0" { print $3 }' "$W/out.$1"; }
if [ $# -eq 2 ]; then
  close_to "$(r0 "$1")" 2 1e-6 && echo "ok   star: r0 at $(r0 "$1")" || bad "star: r0 at $(r0 "$1"), expected 2"
  close_to "$(r0 "$2")" 1.500024 1e-6 && echo "ok   max-min: r0 at $(r0 "$2")" || bad "max-min: r0 at $(r0 "$2"), expected 1.500024"
else bad "the DPS example is not in docs/models.md"; fi
finish $fails
