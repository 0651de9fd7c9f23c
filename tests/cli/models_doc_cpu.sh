#!/bin/sh
# docs/models.md's examples of the CPU model run as written: every indented line starting
# with psim or printf in the sections "CPU used by communication (DPS)" and "Background
# users and load average (CLUE)", in order, with psim = the psim under test, /tmp/ moved to a
# temporary directory and tests/ the source tree's. Then the DPS example's result is checked.
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
W=$TMPD/w
mkdir -p "$W/tmp" "$W/bin"
ln -s "$PSIM_SRC/tests" "$W/tests"
ln -s "$PSIM" "$W/bin/psim"
awk '/^## / { on = ($0 ~ /^## (CPU used by communication|Background users and load average)/) }
     on && /^    (psim|printf) / { sub(/^    /, ""); print }' "$PSIM_SRC/docs/models.md" |
  sed "s#/tmp/#$W/tmp/#g" >"$W/commands"
n=$(wc -l <"$W/commands")
[ "$n" -ge 5 ] || bad "only $n example commands found in docs/models.md"
i=0
while IFS= read -r cmd; do
  i=$((i + 1))
  (cd "$W" && PATH="$W/bin:$PATH" timeout 300 sh -c "$cmd") >"$W/out.$i" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then printf 'ok   %s\n' "$cmd" | cut -c1-160
  else bad "exit status $rc: $cmd"; tail -n 5 "$W/out.$i" | sed 's/^/     | /'; fi
done <"$W/commands"
# the DPS example: rank 1 ends at 1.5 s, host b spent 0.5 CPU-seconds on communication
grep -q '"rank": 1, "host": "b", "finish_time": 1.5,' "$W/tmp/cpu.json" && echo "ok   DPS example: 1.5 s" ||
  bad "DPS example: $(grep '"rank": 1' "$W/tmp/cpu.json")"
grep -q '{"host": "b", "cpu_app": 1, "cpu_comm": 0.5, "cpu_background": 0}' "$W/tmp/cpu.json" && echo "ok   DPS example: cpu_comm 0.5" ||
  bad "DPS example: hosts $(grep '"host": "b", "cpu_app"' "$W/tmp/cpu.json")"
grep -q '"background": "constant+poisson"' "$W/tmp/bg.json" && echo "ok   background example" || bad "background example: no constant+poisson cpu_model"
finish $fails
