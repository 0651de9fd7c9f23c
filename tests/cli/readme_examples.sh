#!/bin/sh
# The README's example commands run as written: every indented line that starts with
# build/psim, ./build/psim, build/psimcc or printf (except those about a placeholder ./app) is
# run in order, from a directory where build/ is the psim under test and examples/ the source
# tree's, with /tmp/ moved to a temporary directory. Each must exit 0; then a few results are
# checked (the hostfile placed 32 ranks per host, the traces replayed to known ranks).
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
i=0
while IFS= read -r cmd; do
  i=$((i + 1))
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
echo "$i commands"
finish $fails
