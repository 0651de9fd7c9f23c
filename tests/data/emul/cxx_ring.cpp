// A small C++ MPI program for psimc++ (tests/cli/psimcxx.sh): iostream, a class with a
// constructor, a global std::string initialized before main (in each rank's copy), std::vector,
// an exception thrown and caught, and an MPI_Allreduce of each rank's value.
#include <mpi.h>

#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

class Accumulator {
 public:
  explicit Accumulator(int rank) : rank_(rank), values_{rank + 1, 10 * (rank + 1)} {}
  long local() const {
    long s = 0;
    for (int v : values_) s += v;
    return s;
  }
  long global() const {
    long mine = local(), all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    return all;
  }
  int rank() const { return rank_; }

 private:
  int rank_;
  std::vector<int> values_;
};

// initialized dynamically (on the heap) before main, in each rank's copy of the program
const std::string startup = std::string("constructed") + " before main";

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Accumulator acc(rank);
  std::string caught;
  try {
    throw std::runtime_error("thrown and caught");
  } catch (const std::exception &e) {
    caught = e.what();
  }
  std::ostringstream line;
  line << "rank " << acc.rank() << " of " << size << ": local " << acc.local() << " global "
       << acc.global() << ", " << startup << ", " << caught << "\n";
  std::cout << line.str() << std::flush;
  MPI_Finalize();
  return 0;
}
