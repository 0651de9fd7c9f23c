#!/bin/sh
# psimcc links as mpicc links: a function defined nowhere is a link error (exit 1, the symbol
# named, no output left), not a program that fails when it calls it. Before, the -shared link
# that makes the program let any symbol stay undefined, so autoconf's AC_CHECK_FUNCS said yes
# to functions that do not exist (OSU's configure: "checking for shmem_barrier_all... yes").
# A normal MPI program, one using a library found with -L, and one naming a library by path
# still link and run under psim run; a library (-shared) may leave symbols undefined, as with
# mpicc -shared.
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
PSIMCC="$(dirname "$PSIM")/psimcc"
cd "$TMPD" || exit 1
# 1. a call of a function that exists nowhere: what AC_CHECK_FUNCS compiles
cat > undef.c <<'C'
char shmem_barrier_all(void);
int main(void) { return shmem_barrier_all(); }
C
"$PSIMCC" -o undef undef.c 2> undef.err; rc=$?
[ $rc -ne 0 ] || bad "a call of an undefined function linked (exit 0)"
grep -q "undefined reference to 'shmem_barrier_all'" undef.err || bad "the error does not name the symbol: $(cat undef.err)"
[ ! -e undef ] || bad "the failed link left its output"
# the same from an object compiled apart (make's way)
"$PSIMCC" -c -o undef.o undef.c && ! "$PSIMCC" -o undef2 undef.o 2> /dev/null || bad "undef.o: linked"
# an undefined variable too
printf 'extern int no_such_var;\nint main(void) { return no_such_var; }\n' > undefvar.c
"$PSIMCC" -o undefvar undefvar.c 2> /dev/null && bad "a reference to an undefined variable linked"
# 2. a normal MPI program links and runs
"$PSIMCC" -O2 -o ring "$PSIM_SRC/examples/ring.c" 2> ring.err || bad "ring.c does not link: $(cat ring.err)"
out=$("$PSIM" run -q --no-measure --np 3 -- ./ring 2>&1)
[ "${out%% at *}" = "ring: 3 ranks, 1 rounds of 8 bytes: token 3 (ok)" ] || bad "ring under psim run: '$out'"
# 3. a function from a library found with -L, or named by its path, is defined
mkdir -p sub
printf 'int foo(void) { return 42; }\n' > foo.c
cc -shared -fPIC -o sub/libfoo.so foo.c || bad "cc libfoo.so"
cat > usefoo.c <<'C'
#include <mpi.h>
#include <stdio.h>
int foo(void);
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  printf("rank %d foo %d\n", rank, foo());
  MPI_Finalize();
  return 0;
}
C
"$PSIMCC" -o usefoo usefoo.c -Lsub -lfoo -Wl,-rpath,"$TMPD/sub" 2> usefoo.err || bad "-Lsub -lfoo: $(cat usefoo.err)"
out=$("$PSIM" run -q --np 2 -- ./usefoo 2>&1 | sort)
[ "$out" = "$(printf 'rank 0 foo 42\nrank 1 foo 42')" ] || bad "usefoo under psim run: '$out'"
"$PSIMCC" -o usefoo2 usefoo.c -L sub -lfoo 2> /dev/null || bad "-L sub -lfoo did not link"
"$PSIMCC" -o usefoo3 usefoo.c sub/libfoo.so 2> /dev/null || bad "sub/libfoo.so (by path) did not link"
"$PSIMCC" -o usefoo4 usefoo.c 2> usefoo4.err && bad "usefoo.c linked without the library defining foo"
grep -q "undefined reference to 'foo'" usefoo4.err || bad "without libfoo: $(cat usefoo4.err)"
# 4. a library may leave symbols for its program to define
"$PSIMCC" -shared -o libund.so undef.c 2> /dev/null || bad "psimcc -shared refused an undefined symbol"
# 5. autoconf's check says no for a function that does not exist, yes for MPI_Send
if command -v autoconf > /dev/null; then
  mkdir ac && cd ac || exit 1
  cat > configure.ac <<'AC'
AC_INIT([psimlink], [1])
AC_PROG_CC
AC_CHECK_FUNCS([shmem_barrier_all MPI_Send])
AC_OUTPUT
AC
  if autoconf 2> ac.err && ./configure CC="$PSIMCC" > conf.out 2>&1; then
    grep -q "checking for shmem_barrier_all... no" conf.out || bad "configure: $(grep shmem_barrier_all conf.out)"
    grep -q "checking for MPI_Send... yes" conf.out || bad "configure: $(grep MPI_Send conf.out)"
  else
    bad "autoconf/configure CC=psimcc failed: $(cat ac.err; tail -n 5 conf.out 2>/dev/null)"
  fi
  cd ..
else
  bad "autoconf is not installed (scripts/deps.sh test installs it)"
fi
finish $fails
