/* getopt's variables read through the GOT (built with -fPIC: no copy relocation of optind and
 * optarg in the program, as Debian's ffindex_apply_mpi): each rank parses "-d OUT -i IDX DATA
 * INDEX -- prog" and prints what it found. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
  int rank, c;
  const char *d = "-", *i = "-";
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  while ((c = getopt(argc, argv, "d:i:")) != -1)
    if (c == 'd') d = optarg;
    else if (c == 'i') i = optarg;
  printf("rank %d: d %s i %s rest", rank, d, i);
  for (int k = optind; k < argc; k++) printf(" %s", argv[k]);
  printf("\n");
  MPI_Finalize();
  return 0;
}
