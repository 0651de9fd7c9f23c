# Sourced by run_mpich_own.sh and run_mpich_fortran.sh: what both do with MPICH's own harness.
#   mpich_extract TARBALL DIR         unpacks the tarball's test/mpi into DIR/test/mpi (DIR made
#                                     anew)
#   tap_tally NAME TAPFILE FAILURES   prints "NAME: p/n passed (s skipped)", appends the failed
#                                     and skipped lines to FAILURES, adds p and n to tp and tn
# A test runtests skips (xfail: MPICH expects it to fail) prints "ok ... # SKIP": it did not
# run, so it is not counted as passed.
tap_tally() {
  _p=$(grep '^ok ' "$2" 2>/dev/null | grep -vc '# SKIP')
  _n=$(grep -c '^\(not \)\?ok ' "$2" 2>/dev/null)
  _s=$(grep '^ok ' "$2" 2>/dev/null | grep -c '# SKIP')
  printf '%-13s %3d/%d passed (%d skipped)\n' "$1:" "$_p" "$_n" "$_s"
  grep '^not ok \|# SKIP' "$2" 2>/dev/null | sed "s|^|$1: |" >> "$3"
  tp=$((tp + _p)); tn=$((tn + _n))
}

mpich_extract() {
  rm -rf "$2" && mkdir -p "$2" || return 1
  _top=$(tar tf "$1" | head -n 1 | cut -d/ -f1)
  (cd "$2" && tar xf "$1" "$_top/test/mpi" && mv "$_top/test" . && rmdir "$_top")
}
