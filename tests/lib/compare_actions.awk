# Compares psim's --actions log with SimGrid's per-action log (smpi_replay/VERBOSE lines).
#   awk -v tol=1.01e-6 -f compare_actions.awk expected.log psim.log
# For each rank, the i-th finished action must have the same text and an end time within tol
# (both logs print 6 decimals). Prints each mismatch; exits 1 if any, 0 otherwise.
function abs(x) { return x < 0 ? -x : x }
FNR == 1 { file++ }
file == 1 && /smpi_replay\/VERBOSE/ {
  # [Host:rank:(pid) END] [smpi_replay/VERBOSE] RANK ACTION ARGS... DURATION
  end = $2; sub(/\]$/, "", end)
  rank = $4
  text = $4; for (i = 5; i < NF; i++) text = text " " $i
  n = ++ecount[rank]
  etext[rank, n] = text; eend[rank, n] = end + 0
  if (!(rank in seen)) { seen[rank] = 1; ranks[++nranks] = rank }
  next
}
file == 2 {
  # END RANK ACTION ARGS... DURATION  (ACTION ARGS is the trace line after its rank field)
  rank = $2
  text = rank; for (i = 3; i < NF; i++) text = text " " $i
  n = ++pcount[rank]
  ptext[rank, n] = text; pend[rank, n] = $1 + 0
}
END {
  bad = 0
  for (k = 1; k <= nranks; k++) {
    r = ranks[k]
    if (ecount[r] != pcount[r]) { print "rank " r ": " ecount[r] " actions expected, psim logged " pcount[r] + 0; bad = 1 }
    for (i = 1; i <= pcount[r] && i <= ecount[r]; i++) {
      if (ptext[r, i] != etext[r, i]) { print "rank " r " action " i ": expected '" etext[r, i] "', got '" ptext[r, i] "'"; bad = 1; continue }
      if (abs(pend[r, i] - eend[r, i]) > tol) {
        printf "rank %s action %d '%s': ends at %.6f, SimGrid %.6f (diff %.3g)\n", r, i, ptext[r, i], pend[r, i], eend[r, i], pend[r, i] - eend[r, i]
        bad = 1
      }
    }
  }
  exit bad
}
