#!/bin/sh
# Calls psim cannot provide are refused when the program is compiled, with a message naming
# the call and the reason (include/psim_mpi/psim_unsupported.h), under gcc and clang; a call
# psim does not even declare is refused at link time (run_errors.sh). MPI-IO is no longer
# refused (psim provides it: run_file_io.sh): MPI_File_open, close and delete compile and link.
. "$(dirname "$0")/../lib/common.sh"
PSIMCC="$(dirname "$PSIM")/psimcc"
fails=0
cat > "$TMPD/spawn.c" <<'C'
#include <mpi.h>
int main(int argc, char **argv) {
  MPI_Comm child;
  MPI_Init(&argc, &argv);
  MPI_Comm_spawn("worker", MPI_ARGV_NULL, 4, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &child, MPI_ERRCODES_IGNORE);
  MPI_Finalize();
  return 0;
}
C
cat > "$TMPD/port.c" <<'C'
#include <mpi.h>
int main(int argc, char **argv) {
  char port[MPI_MAX_PORT_NAME];
  MPI_Init(&argc, &argv);
  MPI_Open_port(MPI_INFO_NULL, port);
  MPI_Finalize();
  return 0;
}
C
cat > "$TMPD/file.c" <<'C'
#include <mpi.h>
int main(int argc, char **argv) {
  MPI_File fh;
  MPI_Init(&argc, &argv);
  MPI_File_open(MPI_COMM_WORLD, "x", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_close(&fh);
  MPI_File_delete("x", MPI_INFO_NULL);
  MPI_Finalize();
  return 0;
}
C
for cc in gcc clang; do
  command -v $cc > /dev/null || continue
  PSIMCC_CC=$cc "$PSIMCC" -o "$TMPD/spawn" "$TMPD/spawn.c" 2> "$TMPD/err" && bad "$cc: MPI_Comm_spawn compiled"
  grep -q "MPI_Comm_spawn.* is unavailable: not supported by psim: dynamic processes" "$TMPD/err" || { bad "$cc: spawn message"; cat "$TMPD/err"; }
  [ "$(grep -c error "$TMPD/err")" -le 2 ] || { bad "$cc: more errors than the call"; cat "$TMPD/err"; }
  PSIMCC_CC=$cc "$PSIMCC" -o "$TMPD/port" "$TMPD/port.c" 2> "$TMPD/err" && bad "$cc: MPI_Open_port compiled"
  grep -q "MPI_Open_port.* is unavailable: not supported by psim: connecting separate MPI jobs through ports" "$TMPD/err" || { bad "$cc: port message"; cat "$TMPD/err"; }
  PSIMCC_CC=$cc "$PSIMCC" -Wall -Werror -o "$TMPD/file" "$TMPD/file.c" 2> "$TMPD/err" || { bad "$cc: MPI-IO is refused"; cat "$TMPD/err"; }
done
finish $fails
