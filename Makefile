# Convenience front for CMake. `make` builds ./build/psim; `make demo` runs the embedded
# example; both need only the build dependencies (scripts/deps.sh build). `make check`
# installs what the tests need (scripts/deps.sh test), builds and runs every test (also under
# ASan+UBSan).
BUILD ?= build
ASAN_BUILD ?= build-asan
MPI_BUILD ?= build-mpi
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps demo check test asan-test bench clean fuzz mpi

all: $(BUILD)/psim

$(BUILD)/Makefile: CMakeLists.txt
	@scripts/deps.sh build
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

$(BUILD)/psim: $(BUILD)/Makefile FORCE
	@cmake --build $(BUILD) -j $(JOBS)

FORCE:

deps:
	@scripts/deps.sh all

demo: $(BUILD)/psim
	$(BUILD)/psim demo

# The tests need more than psim (scripts/deps.sh test): configure them, cmocka required.
test: $(BUILD)/psim
	cmake -S . -B $(BUILD) -DPSIM_TESTS=ON >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

asan-test:
	@scripts/deps.sh test
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DPSIM_SANITIZE=ON -DPSIM_TESTS=ON >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	  ctest --output-on-failure -j $(JOBS) -LE noasan

check:
	@scripts/deps.sh test
	$(MAKE) test
	$(MAKE) asan-test

# psim sweep over an MPI job: $(MPI_BUILD)/psim linked with Debian's MPICH (docs/sweep.md)
$(MPI_BUILD)/Makefile: CMakeLists.txt
	@scripts/deps.sh mpi
	cmake -S . -B $(MPI_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPSIM_WITH_MPI=ON \
	  -DMPI_C_COMPILER=$$(command -v mpicc.mpich || command -v mpicc) >/dev/null

mpi: $(MPI_BUILD)/Makefile
	@cmake --build $(MPI_BUILD) -j $(JOBS) --target psim

bench: $(BUILD)/psim
	bench/replay_bench.sh

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(MPI_BUILD)
