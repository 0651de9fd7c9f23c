#!/bin/sh
# psim run's report names the call sites of a program psim did not build (issue 36, item 6):
# MPICH's and Open MPI's own mpicc, run unchanged. With -g (and psim built with libdw) the
# critical path's top contributors give each MPI_Recv's file:line, in --json --timeline's
# critical_path.top and in the report's source column; without debug information they give
# main+0xOFFSET (BINARY), the return address of that call (checked against objdump: the
# instruction before it calls MPI_Recv). Before, these programs had no source at all.
. "$(dirname "$0")/../lib/common.sh"
fails=0
MPICC=$(command -v mpicc.mpich || true)
[ -n "$MPICC" ] || { echo "skip: no MPICH mpicc (mpicc.mpich)"; exit 77; }
[ -z "${PSIM_SANITIZED:-}" ] || { echo "skip: a sanitized psim cannot load MPICH binaries"; exit 77; }
SRC="$PSIM_TESTDATA/emul/call_sites.c"
L0=$(grep -n 'rank 0 waits' "$SRC" | cut -d: -f1)
L1=$(grep -n 'rank 1 waits' "$SRC" | cut -d: -f1)
LIBDW=0
ldd "$PSIM" | grep -q 'libdw\.so' && LIBDW=1

# top FILE.json: "rank file line" of each MPI_Recv among critical_path.top
top() {
  python3 - "$1" <<'PY'
import json, sys
for t in json.load(open(sys.argv[1]))["critical_path"]["top"]:
    if t["action"] == "recv":
        print(t["rank"], t["file"], t["line"])
PY
}

# with debug information: file:line (MPICH, then Open MPI when it is there)
for cc in mpicc.mpich mpicc.openmpi; do
  command -v $cc >/dev/null || { echo "note: no $cc"; continue; }
  "$cc" -g -O0 -o "$TMPD/cs_$cc" "$SRC" || { bad "$cc -g failed"; continue; }
  "$PSIM" run --np 2 --no-measure -q --json "$TMPD/$cc.json" --timeline --report "$TMPD/$cc.html" -- "$TMPD/cs_$cc" ||
    { bad "$cc: psim run failed"; continue; }
  top "$TMPD/$cc.json" > "$TMPD/$cc.top"
  if [ $LIBDW = 1 ]; then
    printf '0 %s %s\n1 %s %s\n' "$SRC" "$L0" "$SRC" "$L1" > "$TMPD/want"
    sort "$TMPD/$cc.top" | diff "$TMPD/want" - > /dev/null ||
      bad "$cc -g: critical_path.top's receives are not at $SRC:$L0 and :$L1: $(cat "$TMPD/$cc.top")"
    grep -q "<td style=\"text-align:left\">$SRC:$L0</td>" "$TMPD/$cc.html" ||
      bad "$cc -g: the report's source column does not name $SRC:$L0"
  else
    echo "note: psim built without libdw: call sites are function+offset"
    grep -Eq '^0 (main\+0x[0-9a-f]+ \(cs_'"$cc"'\)|cs_'"$cc"'\+0x[0-9a-f]+) 0$' "$TMPD/$cc.top" ||
      bad "$cc -g without libdw: $(cat "$TMPD/$cc.top")"
  fi
done

# without debug information: main+0xOFFSET (BINARY), line 0, the return address of the call
# (a psim without libdw reads exported symbols only: then BINARY+0xOFFSET, the file address)
"$MPICC" -g0 -O1 -o "$TMPD/cs_nodebug" "$SRC" || { echo "FAIL: mpicc.mpich -g0"; exit 1; }
"$PSIM" run --np 2 --no-measure -q --json "$TMPD/nd.json" --timeline --report "$TMPD/nd.html" -- "$TMPD/cs_nodebug" ||
  bad "no debug information: psim run failed"
top "$TMPD/nd.json" > "$TMPD/nd.top"
main=$(nm "$TMPD/cs_nodebug" | awk '$3 == "main" { print $1 }')
for r in 0 1; do
  off=$(awk -v r=$r '$1 == r && $3 == "(cs_nodebug)" && $4 == 0 { sub(/^main\+/, "", $2); print $2 }' "$TMPD/nd.top")
  ret=
  [ -n "$off" ] && ret=$(printf '%x' $((0x$main + off)))
  if [ -z "$off" ] && [ $LIBDW = 0 ]; then
    off=$(awk -v r=$r '$1 == r && $3 == 0 && $2 ~ /^cs_nodebug\+/ { sub(/^cs_nodebug\+/, "", $2); print $2 }' "$TMPD/nd.top")
    [ -n "$off" ] && ret=$(printf '%x' $((off)))
  fi
  [ -n "$ret" ] || { bad "no debug information: rank $r's receive is not main+0xOFFSET (cs_nodebug), line 0: $(cat "$TMPD/nd.top")"; continue; }
  objdump -d "$TMPD/cs_nodebug" | grep -B1 "^ *$ret:" | head -1 | grep -q 'call.*<MPI_Recv@plt>' ||
    bad "no debug information: main+$off is not the return address of a call to MPI_Recv"
done
grep -Eq '<td style="text-align:left">(main\+0x[0-9a-f]+ \(cs_nodebug\)|cs_nodebug\+0x[0-9a-f]+)</td>' "$TMPD/nd.html" ||
  bad "no debug information: the report's source column is not 'main+0xOFFSET (cs_nodebug)' alone"
finish $fails
