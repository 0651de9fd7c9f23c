#!/bin/sh
# A Paraver trace's compute from a hardware counter (--compute-counter, issue 37: "hardware
# counters (instructions) used on request") and --compute-scale. Extrae reads its counters at
# every event and writes what they counted since the last read: the values beside a call's
# entry (and at events between two calls) are the burst's, those beside its exit the call's.
# Task 1 counts 3000 instructions at a user event inside its burst and 2000 more at its
# MPI_Send's entry (5000), 999 at the exit (the call's own, not compute), then 100 before its
# second MPI_Send; task 2 counts 7000
# before its MPI_Recv, then makes a second MPI_Recv whose burst has no counter value (its time
# at the reference speed, with a warning). Expected volumes by hand: 5000 x 2 and 7000 x 2 with
# --compute-scale 2; by time (1000, 50; 1400, 100 ns at 1e9 flop/s) without the counter.
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
cd "$TMPD" || exit 1
cat > cnt.pcf <<'EOF'
EVENT_TYPE
7  42000050 PAPI_TOT_INS [Instr completed]
7  42000059 PAPI_TOT_CYC [Total cycles]

EVENT_TYPE
0    50000001    MPI Point-to-point
VALUES
0   Outside MPI
1   MPI_Send
2   MPI_Recv

EOF
cat > cnt.prv <<'EOF'
#Paraver (01/01/1970 at 00:00):3000_ns:1(2):1:2(1:1,1:1),1
c:1:1:2:1:2
1:1:1:1:1:0:1000:1
1:2:1:2:1:0:1400:1
2:1:1:1:1:400:60000019:7:42000050:3000:42000059:9000
2:1:1:1:1:1000:50000001:1:42000050:2000:42000059:4000
3:1:1:1:1:1000:1000:2:1:2:1:1500:1500:64:7
2:1:1:1:1:1100:50000001:0:42000050:999
2:1:1:1:1:1150:50000001:1:42000050:100
3:1:1:1:1:1150:1150:2:1:2:1:1700:1700:64:8
2:1:1:1:1:1200:50000001:0
2:1:1:2:1:1400:50000001:2:42000050:7000
2:1:1:2:1:1500:50000001:0:42000050:10
2:1:1:2:1:1600:50000001:2
2:1:1:2:1:1700:50000001:0
EOF
# convert ARGS... -> out/ and err
convert() {
  rm -rf out
  "$PSIM" trace convert "$@" cnt.prv -o out > /dev/null 2> err || bad "trace convert $*: exit $? ($(cat err))"
}
# volumes RANK: rank RANK's compute volumes, one line
volumes() { awk '$2 == "compute" { printf "%s%.9g", n++ ? " " : "", $3 }' "out/rank-$1.txt"; }
convert --compute-counter PAPI_TOT_INS --compute-scale 2
[ "$(volumes 0)" = "10000 200" ] || bad "rank 0 by counter: $(volumes 0)"
[ "$(volumes 1)" = "14000 200" ] ||
  bad "rank 1 by counter, then its burst without a counter value at its 100 ns at 1e9 flop/s x 2: $(volumes 1)"
grep -q "1 computations without a value of counter PAPI_TOT_INS (--compute-counter): their volume is their time" err ||
  bad "no warning for the burst without a counter value: $(cat err)"
grep -q "^0 send 1 7 64$" out/rank-0.txt && grep -q "^1 recv 0 7 64$" out/rank-1.txt || bad "the messages moved: $(cat out/rank-*.txt)"
convert --compute-counter 42000050
[ "$(volumes 0)" = "5000 100" ] || bad "counter by event type: $(volumes 0)"
convert
[ "$(volumes 0)" = "1000 50" ] && [ "$(volumes 1)" = "1400 100" ] || bad "by time: $(volumes 0); $(volumes 1)"
[ -s err ] && bad "warnings by time: $(cat err)"
convert --compute-scale 0.5
[ "$(volumes 0)" = "500 25" ] || bad "time x 0.5: $(volumes 0)"
# replay takes the same options: on hosts of 1e9 (instructions) a second, rank 1 computes
# 7000 + 100 (its uncounted 100 ns at the reference speed, the platform's: 100) = 7.1 us
"$PSIM" replay --quiet --compute-counter PAPI_TOT_INS --platform flat:2,1e9,1e12,0 --json r.json cnt.prv 2> err ||
  bad "replay --compute-counter: exit $? ($(cat err))"
c1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ranks"][1]["compute_time"])' r.json 2>/dev/null)
rel_close "$c1" 7.1e-6 1e-9 || bad "replay: rank 1's compute $c1 s, by hand 7.1e-6 s"

# errors: a counter the .pcf does not name, a format without counters, bad values
"$PSIM" trace convert --compute-counter PAPI_L1_DCM cnt.prv -o out2 > /dev/null 2> err
[ $? -eq 2 ] && grep -q "cnt.prv: --compute-counter PAPI_L1_DCM: the .pcf beside the trace names no event type PAPI_L1_DCM" err ||
  bad "an unknown counter: $(cat err)"
D=$PSIM_SHARED/cases/traces/dimemas/ibflitsim_msgblast_4
if [ -d "$D" ]; then
  "$PSIM" trace stats --compute-counter PAPI_TOT_INS "$(ls "$D"/*.dim | head -n 1)" > /dev/null 2> err
  [ $? -eq 2 ] && grep -q "psim reads counters from Paraver traces only (Extrae's counter events); this is a Dimemas trace" err ||
    bad "a counter on a Dimemas trace: $(cat err)"
fi
"$PSIM" trace convert --compute-scale -1 cnt.prv -o out3 > /dev/null 2> err
[ $? -eq 2 ] && grep -q -- "--compute-scale expects a positive factor" err || bad "--compute-scale -1: $(cat err)"
"$PSIM" replay --compute-counter > /dev/null 2> err
[ $? -eq 2 ] && grep -q -- "--compute-counter expects" err || bad "--compute-counter without a value: $(cat err)"
# a SimGrid TIT trace's compute is flops already: both options are refused, not ignored, on a
# directory, a shared file and per-rank files, by replay and trace stats; --compute-scale 1 is
# no change and is accepted
"$PSIM" gen stencil --ranks 2 --iters 1 -o tit > /dev/null 2>&1 || bad "gen"
for args in "replay --compute-scale 2 tit" "replay --compute-counter PAPI_TOT_INS tit/rank-0.txt tit/rank-1.txt" \
            "trace stats --compute-scale 3 tit"; do
  # shellcheck disable=SC2086
  "$PSIM" $args > /dev/null 2> err
  [ $? -eq 2 ] && grep -q "applies to other tools' traces .*this is a SimGrid TIT trace, whose compute volumes are flops already" err ||
    bad "$args: want a refusal: $(cat err)"
done
"$PSIM" replay --quiet --compute-scale 1 tit 2> err || bad "--compute-scale 1 on TIT: exit $? ($(cat err))"
finish $fails
