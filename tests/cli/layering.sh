#!/bin/sh
# The layering rule of HACKING.md, checked over every #include of src/ and include/psim/:
# a file includes its own folder's headers, the public headers (include/psim/*.h) of the layers
# below its own, and never another folder's internal header (src/<other>/...) nor the public
# header of a layer at or above its own that is not its own. The ranks below are HACKING.md's
# rows from the bottom up; a new header or folder must be given one here (the test says so).
# Usage: layering.sh [ROOT] (a source tree; default: the repository).
. "$(dirname "$0")/../lib/common.sh"
fails=0
ROOT=${1:-$PSIM_SRC}

# header rank (HACKING.md, "The layering rule"): one row a rank, src/cli above them all
ranks='util 0
platform 1
kernel 1
trace 1
coll 1
models 2
mpi_layer 3
replay 4
emul 5
adapt 5
observe 5
tools 6
forecast 6
sweep 6
calib 6'
# the public headers each src/ folder implements (its own, whatever their rank); psim_mpi/
# (the MPI interface programs compile against) is psim run's runtime, part of src/emul;
# src/tracer/ (libpsimtrace.so, preloaded into a real MPI's run) owns none and, at rank -1,
# may include none: it runs inside another MPI, beside none of psim's code
owners='util util
platform platform
kernel kernel
trace trace
mpi coll mpi_layer
models models
replay replay
emul emul psim_mpi
adapt adapt
observe observe
tools tools forecast sweep calib
tracer
cli'

# one line per include: FILE<TAB>FOLDER<TAB>TARGET (the quoted name as written)
list="$TMPD/includes"
( cd "$ROOT" && find src include/psim -name '*.[ch]' | sort | while read -r f; do
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
      while read -r inc; do printf '%s\t%s\n' "$f" "$inc"; done
  done ) > "$list"
[ -s "$list" ] || bad "no #include found under $ROOT/src"

awk -F'\t' -v ranks="$ranks" -v owners="$owners" -v root="$ROOT" '
  function exists(p) { return (getline line < p) >= 0 ? (close(p) || 1) : 0 }
  BEGIN {
    n = split(ranks, r, "\n"); for (i = 1; i <= n; i++) { split(r[i], kv, " "); rank[kv[1]] = kv[2] }
    n = split(owners, o, "\n")
    for (i = 1; i <= n; i++) {
      k = split(o[i], w, " "); folder[w[1]] = 1; frank[w[1]] = -1
      for (j = 2; j <= k; j++) {
        own[w[1], w[j]] = 1
        if (w[j] in rank && rank[w[j]] > frank[w[1]]) frank[w[1]] = rank[w[j]]
      }
    }
    frank["cli"] = 99; bad = 0
  }
  function fail(msg) { print "FAIL " msg; bad++ }
  {
    file = $1; inc = $2; dir = file; sub(/\/[^\/]*$/, "", dir)
    # who is including: a src/ folder (its own headers and rank) or a public header (its rank)
    if (file ~ /^include\/psim\//) {
      me = file; sub(/^include\/psim\//, "", me); sub(/\.h$/, "", me)
      if (!(me in rank)) { fail(file ": a public header HACKING.md gives no layer (add it to its rank list)"); next }
      myrank = rank[me]; myfolder = ""
    } else {
      split(file, p, "/"); myfolder = p[2]
      if (!(myfolder in folder)) { fail(file ": src/" myfolder "/ is no layer of HACKING.md (add it here)"); next }
      myrank = frank[myfolder]
    }
    # a name beside the including file is its own folder internal header
    if (exists(root "/" dir "/" inc)) next
    if (inc !~ /\//) {
      if (!exists(root "/include/psim_mpi/" inc)) {
        fail(file ": includes \"" inc "\", found neither beside it nor in include/psim_mpi/"); next
      }
      inc = "psim_mpi/" inc
    }
    if (inc ~ /\.\./) { fail(file ": includes " inc ", a path out of its folder"); next }
    split(inc, q, "/"); top = q[1]
    if (inc ~ /^psim\/[^\/]+\.h$/) {
      h = q[2]; sub(/\.h$/, "", h)
      if (!(h in rank)) { fail(file ": includes " inc ", a public header HACKING.md gives no layer"); next }
      if (myfolder != "" && own[myfolder, h]) next
      if (rank[h] < myrank) next
      fail(file ": includes " inc ", a layer not below its own (" h " is rank " rank[h] ", " \
           (myfolder != "" ? "src/" myfolder "/" : file) " rank " myrank ")")
      next
    }
    if (top == "psim_mpi") {
      if (myfolder == "emul" || myfolder == "cli") next
      fail(file ": includes " inc ", psim run'"'"'s MPI interface, from below it"); next
    }
    if (top == myfolder) next
    fail(file ": includes " inc ", an internal header of another folder (use its public header in include/psim/)")
  }
  END { exit bad > 0 }
' "$list" || fails=$((fails + 1))

[ "$fails" -eq 0 ] && echo "ok   $(wc -l < "$list") includes follow the layering rule"
finish $fails
