#!/bin/sh
# Coarray Fortran under psim run: the precompiled tests OpenCoarrays ships in Debian's
# libcoarrays-mpich-dev (built by its maintainers with MPICH's compilers, linked with its
# runtime, nobody here wrote them), each printing its own verdict. What they need of psim:
# - OpenCoarrays' runtime calls MPI_Init_thread(FUNNELED) and duplicates MPI_COMM_WORLD in a
#   constructor: each rank loads its copy inside the simulation (emu_abi_probe_ctors,
#   load_own_copy); before, psim crashed, then stopped with a message;
# - one-sided communication (gets, puts, atomics, events over MPI windows);
# - the Fortran runtime's state each rank's own (random_init: the images' generators).
# Each program must exit 0 and print its success line; skipped without the package.
. "$(dirname "$0")/../lib/common.sh"
D=/usr/lib/x86_64-linux-gnu/open-coarrays/mpich/bin/OpenCoarrays-2.10.1-tests
[ -d "$D" ] || { echo "skip: OpenCoarrays' tests not installed (libcoarrays-mpich-dev)"; exit 0; }
fails=0
for c in "hello_multiverse 4 Test passed" "co_sum_test 4 Test passed" "get_array 4 Test passed" \
         "send_array 3 Test passed" "atomics 4 Test passed" "random_init 4 Test passed" \
         "sync_team 8 Test passed" "coarray_distributed_transpose 4 test passed"; do
  set -- $c
  t=$1 np=$2
  shift 2
  mkdir -p "$TMPD/$t"
  (cd "$TMPD/$t" && timeout 120 "$PSIM" run --np "$np" -q -- "$D/$t" > out 2> err); rc=$?
  if [ $rc -eq 0 ] && grep -qF "$*" "$TMPD/$t/out"; then echo "ok   $t at np $np: $*"
  else bad "$t at np $np: exit status $rc, $(tail -n 3 "$TMPD/$t/out" "$TMPD/$t/err" | tr '\n' ' ' | cut -c1-300)"; fi
done
finish $fails
