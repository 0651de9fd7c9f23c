#!/bin/sh
# MPI-IO under psim run (src/emul/rt/rt_file*.c; the disks' time: src/models/disk.c), with
# tests/data/emul/file_io.c built by psimcc (the mpicc build: tests/cli/run_abi.sh):
# - data, np 1 to 7: each rank's block at explicit offsets and read back another rank's (also
#   by a split collective, read_at_all_begin/end, and through indexed, struct and contiguous
#   filetypes); a vector filetype (resized, shifted by the rank) through write_all and the
#   individual pointer (get_position, get_byte_offset, get_view); a subarray filetype through
#   write_at_all / read_at_all; iwrite_at, iwrite, iread_at, iread_all with MPI_Wait,
#   MPI_Waitall, MPI_Test and MPI_Get_count; a read past the end; info; the file read again
#   after close; ordered and shared pointers (write_ordered, read_ordered, seek_shared,
#   write_shared); DELETE_ON_CLOSE; APPEND, preallocate, set_size, delete; as many descriptors
#   open at the end as at the start: the program checks each (" No Errors"), psim exits 0 (an
#   ASan build's leak report fails it), and the script checks the file's bytes (od) against
#   the layout computed here by awk;
# - the mistakes return their class under MPI_ERRORS_RETURN (a file's default): open of a
#   missing file without CREATE (MPI_ERR_NO_SUCH_FILE), bad amodes (MPI_ERR_AMODE), EXCL on an
#   existing file (MPI_ERR_FILE_EXISTS), reading a WRONLY file (MPI_ERR_ACCESS), writing a
#   RDONLY one (MPI_ERR_READ_ONLY), datarep "external32" (MPI_ERR_UNSUPPORTED_DATAREP), a seek
#   before the start (MPI_ERR_ARG), close of MPI_FILE_NULL (MPI_ERR_FILE), delete of a missing
#   file, a split collective's end without its begin or a second one begun (MPI_ERR_OTHER); a handler of the program's (MPI_File_create_errhandler) is called with the file and
#   the code; under MPI_ERRORS_ARE_FATAL the run stops (exit 4) naming the call, the rank, the
#   file and the class;
# - the time, hand-derived (each rank on MPI_COMM_SELF: no communication, all start at 0), on
#   a host whose first <disk> reads 100 MB/s and writes 80 MB/s (its second disk is ignored):
#   two ranks writing 1 MB each at once share the write bandwidth, 1e6 / 40e6 = 0.025 s; a
#   read and a write at once share the read+write constraint (max(100, 80) MB/s),
#   1e6 / 50e6 = 0.02 s; a rank's iwrite_at of 1 MB with an iread_at of 0.5 MB: the read ends
#   at 0.5e6 / 50e6 = 0.01 s, the write at 0.01 + 0.5e6 / 80e6 = 0.01625 s; two hosts with a
#   disk each do not share: 0.0125 s and 0.01 s; a write_at_all lasts the two MPI_Allgather
#   of one MPI_OFFSET (measured alone before) + 0.0125 s;
# - hosts without a <disk>: I/O takes no time, with one warning; with --cfg
#   disk/bandwidth:10MBps every such host has a 10 MB/s disk: 0.1 s per MB.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
"$PSIMCC" -O1 -o "$TMPD/fio" "$PSIM_TESTDATA/emul/file_io.c" || { echo "FAIL: psimcc file_io.c"; exit 1; }

# the file's ints for np ranks, one per line (the layout file_io.c's data() writes)
layout() {
  awk -v n="$1" 'BEGIN { b = 4
    for (r = 0; r < n; r++) for (i = 0; i < b; i++) {
      v[r * b + i] = r * 10 + i
      v[b * n + r + i * n] = 1000 + r * 10 + i
      v[2 * b * n + int(i / 2) * 2 * n + 2 * r + i % 2] = 2000 + r * 10 + i
      v[3 * b * n + r * b + i] = 3000 + r * 10 + i
      v[4 * b * n + r * b + i] = 4000 + r * 10 + i
    }
    for (k = 0; k < 5 * b * n; k++) print v[k] }'
}
for np in 1 2 3 4 7; do
  out=$("$PSIM" run --np $np -q -- "$TMPD/fio" data "$TMPD/d$np.dat" 2> "$TMPD/err") || bad "data at np $np: exit $?: $(cat "$TMPD/err")"
  [ "$out" = " No Errors" ] || bad "data at np $np: $out"
  [ "$(grep -c 'has no <disk>' "$TMPD/err")" = 1 ] || bad "data at np $np: not one warning of a diskless host: $(cat "$TMPD/err")"
  od -An -td4 -v -w4 "$TMPD/d$np.dat" | tr -d ' ' > "$TMPD/got$np"
  layout $np > "$TMPD/want$np"
  cmp -s "$TMPD/got$np" "$TMPD/want$np" && echo "ok   data at np $np: $(wc -l < "$TMPD/got$np") ints as laid out" ||
    bad "data at np $np: the file's ints differ: $(diff "$TMPD/got$np" "$TMPD/want$np" | head -5)"
  ls "$TMPD"/d$np.dat.* > /dev/null 2>&1 && bad "data at np $np: left $(ls "$TMPD"/d$np.dat.*)"
done

want="open a missing file without MPI_MODE_CREATE: class ok
MPI_MODE_RDONLY | MPI_MODE_RDWR: class ok
MPI_MODE_RDONLY | MPI_MODE_CREATE: class ok
MPI_MODE_CREATE alone: class ok
read of a MPI_MODE_WRONLY file: class ok
data representation external32: class ok
seek before the start: class ok
the program's file error handler: called
a split collective's end without its begin: class ok
a second split collective begun: class ok
MPI_MODE_EXCL on an existing file: class ok
write of a MPI_MODE_RDONLY file: class ok
close of MPI_FILE_NULL: class ok
delete a missing file: class ok
 No Errors"
for np in 1 3; do
  out=$("$PSIM" run --np $np -q -- "$TMPD/fio" errors "$TMPD" 2> "$TMPD/err") || bad "errors at np $np: exit $?: $(cat "$TMPD/err")"
  [ "$out" = "$want" ] && echo "ok   errors at np $np" || bad "errors at np $np:
$out"
done
"$PSIM" run --np 2 -q -- "$TMPD/fio" fatal "$TMPD" > "$TMPD/out" 2> "$TMPD/err"; rc=$?
[ $rc = 4 ] && grep -q "MPI_File_read_at: rank [01], file '$TMPD/fatal.dat': read of a file opened MPI_MODE_WRONLY (MPI_ERR_ACCESS)" "$TMPD/err" &&
  ! grep -q "not stopped" "$TMPD/out" && echo "ok   MPI_ERRORS_ARE_FATAL stops the run" || bad "fatal: rc $rc: $(cat "$TMPD/out" "$TMPD/err")"
[ -e "$TMPD/fatal.dat" ] && bad "fatal: the DELETE_ON_CLOSE file survived the stopped run"

cat > "$TMPD/one.xml" <<'XML'
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="a" speed="1Gf">
      <disk id="ssd" read_bw="100MBps" write_bw="80MBps">
        <prop id="size" value="500GiB"/>
      </disk>
      <disk id="slow" read_bw="1MBps" write_bw="1MBps"/>
    </host>
  </zone>
</platform>
XML
cat > "$TMPD/two.xml" <<'XML'
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="a" speed="1Gf"><disk id="da" read_bw="100MBps" write_bw="80MBps"/></host>
    <host id="b" speed="1Gf"><disk id="db" read_bw="100MBps" write_bw="80MBps"/></host>
    <link id="l" bandwidth="1GBps" latency="10us"/>
    <route src="a" dst="b"><link_ctn id="l"/></route>
  </zone>
</platform>
XML
P="--np 2 -q --no-measure --cfg smpi/wtime:0"
# io_times PLATFORM_ARGS... : the time lines, sorted, on one line
io_times() { "$PSIM" run $P "$@" -- "$TMPD/fio" time "$TMPD" 2> "$TMPD/err" | grep '^rank' | sort | tr '\n' ';'; }
# shellcheck disable=SC2086
check_times() {
  what=$1 want=$2; shift 2
  got=$(io_times "$@")
  [ "$got" = "$want" ] && echo "ok   times, $what" || bad "times, $what: $got
want $want"
}
check_times "one disk shared" "rank 0 iread 0.010000000;rank 0 iwrite+iread 0.016250000;rank 0 read 0.020000000;rank 0 write 0.025000000;rank 1 write 0.025000000;rank 1 write2 0.020000000;" --platform "$TMPD/one.xml"
check_times "a disk per host" "rank 0 iread 0.010000000;rank 0 iwrite+iread 0.016250000;rank 0 read 0.010000000;rank 0 write 0.012500000;rank 1 write 0.012500000;rank 1 write2 0.012500000;" --platform "$TMPD/two.xml"
check_times "no disk" "rank 0 iread 0.000000000;rank 0 iwrite+iread 0.000000000;rank 0 read 0.000000000;rank 0 write 0.000000000;rank 1 write 0.000000000;rank 1 write2 0.000000000;" --platform flat:2
[ "$(grep -c "has no <disk>: its I/O takes no simulated time" "$TMPD/err")" = 1 ] || bad "no disk: not one warning: $(cat "$TMPD/err")"
check_times "disk/bandwidth:10MBps" "rank 0 iread 0.100000000;rank 0 iwrite+iread 0.150000000;rank 0 read 0.100000000;rank 0 write 0.100000000;rank 1 write 0.100000000;rank 1 write2 0.100000000;" --platform flat:2 --cfg disk/bandwidth:10MBps
[ -s "$TMPD/err" ] && bad "disk/bandwidth: a warning: $(cat "$TMPD/err")"
"$PSIM" run $P --cfg disk/bandwidth:fast -- "$TMPD/fio" time "$TMPD" > /dev/null 2> "$TMPD/err" && bad "disk/bandwidth:fast accepted"
grep -q "disk/bandwidth: expected a positive bandwidth" "$TMPD/err" || bad "disk/bandwidth:fast: $(cat "$TMPD/err")"

# a collective: its two MPI_Allgather of one MPI_OFFSET, then the rank's own write
"$PSIM" run $P --platform "$TMPD/two.xml" -- "$TMPD/fio" coll "$TMPD" > "$TMPD/coll" || bad "coll: rc $?"
for r in 0 1; do
  a=$(sed -n "s/^rank $r allgather2 //p" "$TMPD/coll") w=$(sed -n "s/^rank $r write_at_all //p" "$TMPD/coll")
  awk -v a="$a" 'BEGIN { exit !(a > 0) }' && close_to "$w" "$(awk -v a="$a" 'BEGIN { printf "%.9f", a + 0.0125 }')" 2e-9 &&
    echo "ok   write_at_all of rank $r: $w = $a (allgathers) + 0.0125" || bad "write_at_all of rank $r: $w, allgathers $a"
done
finish $fails
