# Helpers shared by the end-to-end tests (sourced). CTest sets PSIM, PSIM_SRC, PSIM_SHARED,
# PSIM_TESTDATA; running a test by hand works too (from the repository root).
: "${PSIM_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${PSIM:=$PSIM_SRC/build/psim}"
: "${PSIM_SHARED:=$PSIM_SRC/../shared}"
: "${PSIM_TESTDATA:=$PSIM_SRC/tests/data}"
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/psimtest.XXXXXX")
trap 'rm -rf "$TMPD"' EXIT
tmpfile() { mktemp "$TMPD/f.XXXXXX"; }
# json_get FILE KEY: the first top-level numeric value of KEY
json_get() { grep -o "\"$2\": [-0-9.eE+]*" "$1" | head -n 1 | sed 's/.*: //'; }
# close_to GOT WANT TOL: |got - want| <= tol (absolute)
close_to() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= t) }'; }
# rel_close GOT WANT TOL: |got - want| <= tol * |want|
rel_close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(a != "" && d <= t * m + 1e-12) }'; }
finish() { if [ "$1" -ne 0 ]; then echo "$1 check(s) failed"; exit 1; fi; echo "all checks passed"; exit 0; }

# bad MSG: records one failed check (scripts keep their count in $fails)
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
# dom FILE.html OUT: the DOM after loading in headless Chromium (its console on OUT.log)
BROWSER=$(command -v chromium || command -v chromium-browser || true)
dom() {
  prof=$(mktemp -d "$TMPD/chrome.XXXXXX")
  timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --no-first-run --user-data-dir="$prof" --enable-logging=stderr --v=0 --dump-dom "file://$1" > "$2" 2> "$2.log"
}
