#!/bin/sh
# Progress on stderr: nothing when stderr is not a terminal (the default), a line with the
# simulated time, actions and rate when forced with --progress or when stderr is a terminal
# (faked with script(1) when it is installed), and the line is cleared at the end.
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
"$PSIM" gen stencil --ranks 64 --iters 300 -o "$TMPD/st" 2> /dev/null
# not a terminal: stderr holds nothing but the final wall-clock line (absent with --quiet)
"$PSIM" replay --quiet "$TMPD/st" > /dev/null 2> "$TMPD/err" || bad "replay failed"
[ -s "$TMPD/err" ] && bad "stderr is not a terminal, yet psim wrote: $(head -c 200 "$TMPD/err")"
"$PSIM" critical-path --quiet "$TMPD/st" 2> "$TMPD/err" || bad "critical-path failed"
[ -s "$TMPD/err" ] && bad "critical-path wrote on a non-terminal stderr"
# forced
"$PSIM" replay --quiet --progress "$TMPD/st" > /dev/null 2> "$TMPD/err" || bad "replay --progress failed"
grep -q 'simulated [0-9.]* s, [0-9]* actions, [0-9]* actions/s' "$TMPD/err" || bad "--progress printed no progress line"
tail -c 4 "$TMPD/err" | od -c | grep -q '\[   K' || bad "--progress did not clear its line at the end"
echo "ok   no progress off a terminal, progress with --progress"
# a real terminal
if command -v script > /dev/null && script -qc true /dev/null > /dev/null 2>&1; then
  script -qc "\"$PSIM\" replay --quiet \"$TMPD/st\"" /dev/null > "$TMPD/tty" 2>&1 < /dev/null
  if grep -q 'simulated [0-9.]* s, [0-9]* actions' "$TMPD/tty"; then echo "ok   progress on a terminal"
  else bad "no progress on a terminal"; fi
fi
finish $fails
