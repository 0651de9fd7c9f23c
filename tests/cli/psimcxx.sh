#!/bin/sh
# build/psimc++ builds C++ MPI programs as mpicxx does (HPCG, LULESH: CXX=psimc++): a program
# with iostream, a class, std::vector, an exception and MPI_Allreduce (tests/data/emul/
# cxx_ring.cpp) compiles without a warning (psimcc's C-only -Werror=implicit-function-
# declaration is not given to the C++ compiler), links its C++ runtime, and runs under
# psim run --np 2 with every rank's line right. Compiled apart (-c) and linked, too. Plain
# psimcc on the same program fails to link, naming std::cout and pointing at psimc++; before,
# it "built" a program that failed at run time with "undefined symbol: _ZSt4cout".
set -u
. "$(dirname "$0")/../lib/common.sh"
fails=0
BIN=$(dirname "$PSIM")
SRC=$PSIM_TESTDATA/emul/cxx_ring.cpp
want='rank 0 of 2: local 11 global 33, constructed before main, thrown and caught
rank 1 of 2: local 22 global 33, constructed before main, thrown and caught'
cd "$TMPD" || exit 1
[ -x "$BIN/psimc++" ] || { bad "no $BIN/psimc++"; finish $fails; }
"$BIN/psimc++" -O2 -Wall -Wextra -o cxx_ring "$SRC" 2> build.err || bad "psimc++ cxx_ring.cpp: $(cat build.err)"
[ ! -s build.err ] || bad "psimc++ warned: $(cat build.err)"
out=$("$PSIM" run -q --no-measure --np 2 -- ./cxx_ring 2> run.err | sort)
[ "$out" = "$want" ] || bad "psim run --np 2 ./cxx_ring: '$out' $(cat run.err)"
# make's way: objects, then the link
"$BIN/psimc++" -O1 -c -o cxx_ring.o "$SRC" 2> c.err && "$BIN/psimc++" -o cxx_ring2 cxx_ring.o 2>> c.err ||
  bad "psimc++ -c then link: $(cat c.err)"
[ ! -s c.err ] || bad "psimc++ -c warned: $(cat c.err)"
out=$("$PSIM" run -q --no-measure --np 2 -- ./cxx_ring2 2>&1 | sort)
[ "$out" = "$want" ] || bad "psim run --np 2 ./cxx_ring2 (from the object): '$out'"
# -show: the C++ compiler, without the C-only flag
show=$("$BIN/psimc++" -show -o x x.cpp)
case "$show" in *implicit-function-declaration*) bad "psimc++ -show gives the C-only flag: $show" ;; esac
case "$show" in *++*) ;; *) bad "psimc++ -show: not a C++ compiler: $show" ;; esac
# plain psimcc: a link error naming what is missing, and the hint; no program left
"$BIN/psimcc" -O1 -o cxx_bad "$SRC" 2> bad.err && bad "psimcc linked a C++ program without its runtime"
[ ! -e cxx_bad ] || bad "psimcc left cxx_bad"
grep -q "undefined reference to 'std::cout'" bad.err || bad "psimcc: std::cout not named: $(tail -n 3 bad.err)"
grep -q "Build it with psimc++" bad.err || bad "psimcc: no hint to use psimc++"
finish $fails
