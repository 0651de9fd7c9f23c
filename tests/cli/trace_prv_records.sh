#!/bin/sh
# psim's Paraver reader (src/trace/trace_prv.c) gives each communication record to the call
# entered last at or before its logical time (Extrae's logical send and receive times are the
# calls' entries), issue 37. A halo exchange's end ranks make MPI_Sendrecv calls with one side
# on MPI_PROC_NULL: giving each call the next record of its kind in turn moved the record of
# the second Sendrecv onto the first, so that both ranks sent first (a deadlock at 1 MB,
# rendez-vous) and the later records of the task shifted. A task whose first state is an MPI
# call's starts at that call: it does not sleep until its first Running state. Rooted
# collectives take the root Extrae flags and the root's sizes (and so do Dimemas's).
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
cd "$TMPD" || exit 1
# task 1: Sendrecv [0,100] receives from task 2 (sends to PROC_NULL), Sendrecv [100,200] sends
# to task 2 (receives from PROC_NULL); task 2 the mirror image. Task 2 runs (state 1) only after.
cat > sr.prv <<'EOF'
#Paraver (01/01/1970 at 00:00):300_ns:1(2):1:2(1:1,1:1),1
c:1:1:2:1:2
1:1:1:1:1:0:100:16
1:2:1:2:1:0:100:16
2:1:1:1:1:0:50000001:41
2:2:1:2:1:0:50000001:41
3:2:1:2:1:0:0:1:1:1:1:0:100:1000000:5
2:1:1:1:1:100:50000001:0
2:1:1:1:1:100:50000001:41
2:2:1:2:1:100:50000001:0
2:2:1:2:1:100:50000001:41
1:1:1:1:1:100:200:16
1:2:1:2:1:100:200:16
3:1:1:1:1:100:100:2:1:2:1:100:200:1000000:6
2:1:1:1:1:200:50000001:0
2:2:1:2:1:200:50000001:0
1:2:1:2:1:200:300:1
EOF
"$PSIM" trace convert sr.prv -o out > /dev/null 2> err || bad "trace convert sr.prv: $(cat err)"
[ -s err ] && bad "warnings on a complete trace: $(cat err)"
want0="0 init
0 recv 1 5 1000000
0 send 1 6 1000000
0 finalize"
want1="1 init
1 send 0 5 1000000
1 recv 0 6 1000000
1 finalize"
[ "$(cat out/rank-0.txt)" = "$want0" ] || bad "rank 0: $(cat out/rank-0.txt)"
[ "$(cat out/rank-1.txt)" = "$want1" ] || bad "rank 1: $(cat out/rank-1.txt)"
"$PSIM" replay --quiet --np 2 sr.prv --json r.json 2> err || bad "replay sr.prv: exit $?: $(cat err)"

# Extrae's collectives (as in pypop's EPOCH example traces): the root event 50100003 only on
# the root's entry (value 1), a Bcast's root sending the message and receiving 0, the other
# tasks the reverse. Here task 2 (rank 1) is the root of a Bcast of 4112 B, then of a Gather
# of 8 B per task (the root receives 16 B in all). Every rank must replay the same Bcast and
# Gather, rooted at rank 1: the flag's value was taken as the root (rank 1 here only by
# chance) and a non-root's Bcast had 0 B, which deadlocked the replay of the EPOCH traces.
cat > coll.prv <<'EOF'
#Paraver (01/01/1970 at 00:00):400_ns:1(2):1:2(1:1,1:1),1
c:1:1:2:1:2
1:1:1:1:1:0:100:1
1:2:1:2:1:0:100:1
2:1:1:1:1:100:50000002:7:50100001:0:50100002:4112:50100004:1
2:2:1:2:1:100:50000002:7:50100001:4112:50100002:0:50100004:1:50100003:1
2:1:1:1:1:200:50000002:0
2:2:1:2:1:200:50000002:0
2:1:1:1:1:200:50000002:13:50100001:8:50100002:0:50100004:1
2:2:1:2:1:200:50000002:13:50100001:8:50100002:16:50100004:1:50100003:1
2:1:1:1:1:300:50000002:0
2:2:1:2:1:300:50000002:0
EOF
"$PSIM" trace convert coll.prv -o cout > /dev/null 2> err || bad "trace convert coll.prv: $(cat err)"
for r in 0 1; do
  got=$(grep -v 'init\|finalize\|compute' "cout/rank-$r.txt" | cut -d' ' -f2- | tr '\n' ';')
  [ "$got" = "bcast 4112 1;gather 8 8 1;" ] || bad "coll.prv: rank $r: $got"
done
"$PSIM" replay --quiet --np 2 coll.prv --json c.json 2> err || bad "replay coll.prv: exit $?: $(cat err)"

# Dimemas's global operations: the root flags itself (is_root), each task gives what it sent
# and received; a Bcast's other tasks replay the root's message (here 4112 B from task 1).
cat > coll.dim <<'EOF'
#DIMEMAS:"coll.dim":1,0:2(1,1),1,0,0
d:1:1:2:0:1
1:0:0:0.000000100
1:1:0:0.000000100
10:0:0:1:1:0:0:0:4112:0
10:1:0:1:1:1:0:4112:0:0
EOF
"$PSIM" trace convert coll.dim -o dout > /dev/null 2> err || bad "trace convert coll.dim: $(cat err)"
for r in 0 1; do
  got=$(grep bcast "dout/rank-$r.txt" | cut -d' ' -f2-)
  [ "$got" = "bcast 4112 1" ] || bad "coll.dim: rank $r: $got"
done
finish $fails
