// A C++ program built by Open MPI's mpicxx (NEEDED libmpi_cxx.so.40, its C++ bindings, and
// libmpi.so.40): the bindings' methods and the C API together (tests/cli/run_ompi.sh).
#include <mpi.h>
#include <cstdio>
#include <vector>
int main(int argc, char **argv) {
  MPI::Init(argc, argv);
  int r = MPI::COMM_WORLD.Get_rank(), n = MPI::COMM_WORLD.Get_size();
  std::vector<double> v(1000, r), s(1000);
  MPI::COMM_WORLD.Allreduce(v.data(), s.data(), 1000, MPI::DOUBLE, MPI::SUM);
  int cr; MPI_Comm_rank(MPI_COMM_WORLD, &cr);
  MPI::Intracomm dup = MPI::COMM_WORLD.Dup();
  if (r == 0) std::printf("C++: %d ranks, sum %g, C rank %d, dup size %d\n", n, s[999], cr, dup.Get_size());
  dup.Free();
  MPI::Finalize();
}
