# Sourced by run_mpich_own.sh and run_mpich_fortran.sh: the tally of one directory's TAP file
# as MPICH's runtests writes it.
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
