#!/bin/sh
# psimcc programs as build systems make and run them (issue 9):
# - main in a static archive member is linked in (HPL's 'psimcc -o hpcc libhpl.a ...');
# - ./prog started directly is a 1-rank psim run (MPI singleton), with PSIM_NP / PSIM_RUN_ARGS
#   as launcher settings, and exits with the program's own status;
# - an autoconf configure (AC_PROG_CC's "can run C programs", AC_CHECK_SIZEOF, AC_RUN_IFELSE)
#   and CMake (CC=psimcc, FindMPI, try_run) work with CC=psimcc;
# - output a program writes after main (atexit handlers, destructors: libgfortran flushes its
#   units there) reaches stdout, a file or a pipe (psim closed stdout first: a ScaLAPACK
#   tester's last lines were lost).
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
cd "$TMPD" || exit 1
cat > m.c <<'C'
#include <mpi.h>
#include <stdio.h>
int helper(int);
int main(int argc, char **argv) {
  int r, n;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  printf("rank %d of %d helper %d args %d\n", r, n, helper(r), argc);
  MPI_Finalize();
  return argc > 2 ? 3 : 0;
}
C
printf 'int helper(int x) { return x * 10 + 7; }\n' > h.c
"$PSIMCC" -c m.c h.c && ar rcs libapp.a m.o h.o || { echo "FAIL: building the archive"; exit 1; }
# 1. main from an archive member
"$PSIMCC" -o prog libapp.a -lm || bad "psimcc -o prog libapp.a"
"$PSIM" run --np 2 -q -- ./prog > out 2> err || { bad "psim run ./prog (archive main): rc $?"; cat err; }
[ "$(sort out | tr '\n' ' ')" = "rank 0 of 2 helper 7 args 1 rank 1 of 2 helper 17 args 1 " ] || { bad "archive main output:"; cat out; }
# a library asked for with -shared gets no forced main nor interpreter
"$PSIMCC" -shared -o libh.so h.c || bad "psimcc -shared"
"$PSIM" run --np 1 -q -- ./libh.so 2> err; rc=$?
[ $rc -eq 2 ] && grep -q "has no main()" err || { bad "library run: rc $rc"; cat err; }

# 2. started directly: a 1-rank job, its output only, its status
./prog a > out 2> err; rc=$?
[ $rc -eq 0 ] && [ "$(cat out)" = "rank 0 of 1 helper 7 args 2" ] && [ ! -s err ] || { bad "./prog: rc $rc"; cat out err; }
./prog a b > out 2> err; rc=$?
[ $rc -eq 3 ] && [ "$(cat out)" = "rank 0 of 1 helper 7 args 3" ] || { bad "./prog a b: rc $rc, want 3"; cat out err; }
PSIM_NP=3 ./prog > out; rc=$?
[ $rc -eq 0 ] && [ "$(sort out | tr '\n' ' ')" = "rank 0 of 3 helper 7 args 1 rank 1 of 3 helper 17 args 1 rank 2 of 3 helper 27 args 1 " ] || { bad "PSIM_NP=3: rc $rc"; cat out; }
PSIM_RUN_ARGS="--np 2 --no-measure  --json $TMPD/j.json" ./prog > out; rc=$?
[ $rc -eq 0 ] && [ "$(json_get j.json np)" = 2 ] && [ "$(wc -l < out)" -eq 2 ] || { bad "PSIM_RUN_ARGS: rc $rc"; cat out; }
# from another directory, through PATH
mkdir -p bin && cp prog bin/ && (cd / && PATH="$TMPD/bin:$PATH" prog > "$TMPD/out") || bad "prog through PATH: rc $?"
[ "$(cat out)" = "rank 0 of 1 helper 7 args 1" ] || { bad "prog through PATH:"; cat out; }
# psim's own failures keep their report and status
PSIM=/nonexistent/psim ./prog 2> err; rc=$?
[ $rc -eq 127 ] && grep -q "cannot execute psim" err || { bad "PSIM=/nonexistent: rc $rc"; cat err; }
printf '#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); *(volatile int *)0 = 1; return 0; }\n' > crash.c
"$PSIMCC" -o crash crash.c && ./crash 2> err; rc=$?
[ $rc -eq 4 ] && grep -q "rank 0 crashed with signal 11" err || { bad "./crash: rc $rc"; cat err; }

# 3. autoconf: AC_PROG_CC runs a C program, AC_CHECK_SIZEOF runs one, AC_RUN_IFELSE an MPI one
if command -v autoconf > /dev/null; then
  mkdir ac && cd ac || exit 1
  cat > configure.ac <<'AC'
AC_INIT([psimcheck], [1])
AC_PROG_CC
AC_CHECK_HEADER([mpi.h], [], [AC_MSG_ERROR([no mpi.h])])
AC_CHECK_FUNC([MPI_Init], [], [AC_MSG_ERROR([no MPI_Init])])
AC_CHECK_SIZEOF([MPI_Aint], [], [#include <mpi.h>])
AC_MSG_CHECKING([whether MPI programs run])
AC_RUN_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>
#include <stdio.h>]], [[int n; FILE *f; MPI_Init(0, 0); MPI_Comm_size(MPI_COMM_WORLD, &n);
f = fopen("conftest.np", "w"); fprintf(f, "%d\n", n); fclose(f); MPI_Finalize(); return n != 1;]])],
  [psim_np=`cat conftest.np`; AC_MSG_RESULT([yes, np=$psim_np])], [AC_MSG_FAILURE([cannot run MPI programs])])
AC_OUTPUT
AC
  autoconf 2> ac.err || { bad "autoconf"; cat ac.err; }
  ./configure CC="$PSIMCC" > conf.out 2>&1; rc=$?
  [ $rc -eq 0 ] || { bad "./configure CC=psimcc: rc $rc"; tail -20 conf.out; tail -30 config.log; }
  grep -q "whether we are cross compiling... no" conf.out || { bad "configure: cross compiling?"; cat conf.out; }
  grep -q "checking size of MPI_Aint... 8" conf.out || { bad "configure: sizeof(MPI_Aint)"; cat conf.out; }
  grep -q "whether MPI programs run... yes, np=1" conf.out || { bad "configure: AC_RUN_IFELSE"; cat conf.out; }
  cd "$TMPD" || exit 1
else
  bad "autoconf is not installed (scripts/deps.sh test installs it): the configure check cannot run"
fi

# 4. CMake with CC=psimcc: FindMPI finds it, try_run runs an MPI program as a 1-rank job
if command -v cmake > /dev/null; then
  mkdir cm && cp m.c h.c cm/ && cd cm || exit 1
  cat > CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.13)
project(psimcheck C)
find_package(MPI REQUIRED COMPONENTS C)
try_run(RUN_RC COMPILE_OK ${CMAKE_BINARY_DIR}/tr SOURCES ${CMAKE_SOURCE_DIR}/m.c ${CMAKE_SOURCE_DIR}/h.c LINK_LIBRARIES MPI::MPI_C RUN_OUTPUT_VARIABLE OUT)
message(STATUS "try_run: compiled=${COMPILE_OK} rc=${RUN_RC} out=${OUT}")
CM
  CC="$PSIMCC" cmake -S . -B b > cm.out 2>&1; rc=$?
  [ $rc -eq 0 ] || { bad "cmake CC=psimcc: rc $rc"; tail -30 cm.out; }
  grep -q "Found MPI: TRUE" cm.out || { bad "FindMPI"; cat cm.out; }
  grep -q "try_run: compiled=TRUE rc=0 out=rank 0 of 1 helper 7 args 1" cm.out || { bad "try_run"; cat cm.out; }
  cd "$TMPD" || exit 1
else
  bad "cmake is not installed: the CMake check cannot run"
fi
# output after main (tests/data/emul/exit_output.c), to a file and to a pipe
"$PSIMCC" -O1 -o eo "$PSIM_TESTDATA/emul/exit_output.c" || bad "psimcc exit_output.c"
want="atexit of rank 0
destructor of rank 0
destructor of rank 1
destructor of rank 2
main of rank 0
main of rank 1
main of rank 2"
"$PSIM" run --np 3 -q --no-measure -- ./eo > eo.out || bad "exit_output: rc $?"
[ "$(sort eo.out)" = "$want" ] || bad "exit_output to a file: $(cat eo.out)"
out=$("$PSIM" run --np 3 -q --no-measure -- ./eo | sort)
[ "$out" = "$want" ] || bad "exit_output to a pipe: $out"
"$PSIM" run --np 3 -q --no-measure -- ./eo > /dev/full 2> eo.err
[ $? = 2 ] && grep -q "cannot write standard output" eo.err || bad "exit_output to /dev/full: $(cat eo.err)"
finish $fails
