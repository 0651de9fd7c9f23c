/* Error classes, codes, strings and handlers (tests/cli/run_dtype_errors.sh): prints only what
 * MPI defines (no code values), the same lines under psim (psimcc and mpicc builds) and real
 * MPICH. With argument "fatal": MPI_Comm_call_errhandler under MPI_ERRORS_ARE_FATAL stops the
 * run. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int calls, seen_code;
static MPI_Comm seen_comm;
static MPI_Win seen_win;

static void comm_eh(MPI_Comm *comm, int *code, ...) { calls++; seen_comm = *comm; seen_code = *code; }
static void win_eh(MPI_Win *win, int *code, ...) { calls++; seen_win = *win; seen_code = *code; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
    printf("not reached\n");
    MPI_Finalize();
    return 0;
  }
  int cls, c1, c2, cls2, len, eclass, *last, flag;
  char s[MPI_MAX_ERROR_STRING];
  MPI_Add_error_class(&cls);
  MPI_Add_error_code(cls, &c1);
  MPI_Add_error_code(cls, &c2);
  MPI_Add_error_string(cls, "New class");
  MPI_Add_error_string(c1, "First code");
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
  printf("rank %d: distinct %d, lastused %d %d\n", rank, cls != c1 && c1 != c2 && cls != c2, flag, *last >= cls);
  MPI_Error_class(c1, &eclass);
  printf("rank %d: class of code %d, of class %d", rank, eclass == cls, (MPI_Error_class(cls, &eclass), eclass == cls));
  MPI_Error_string(cls, s, &len);
  printf(", strings \"%s\" %d", s, len);
  MPI_Error_string(c1, s, &len);
  printf(" \"%s\"", s);
  MPI_Error_string(c2, s, &len);
  printf(" \"%s\" %d\n", s, len);
  MPI_Add_error_class(&cls2);
  MPI_Error_string(cls2, s, &len);
  MPI_Add_error_code(MPI_ERR_ARG, &c2);
  MPI_Error_class(c2, &eclass);
  printf("rank %d: new class string \"%s\", code of MPI_ERR_ARG %d\n", rank, s, eclass == MPI_ERR_ARG);

  MPI_Errhandler eh, got;
  MPI_Comm dup, dup2;
  MPI_Comm_create_errhandler(comm_eh, &eh);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_get_errhandler(dup, &got);
  int fatal = got == MPI_ERRORS_ARE_FATAL;
  MPI_Comm_set_errhandler(dup, eh);
  MPI_Comm_get_errhandler(dup, &got);
  int same = got == eh;
  MPI_Errhandler_free(&got);
  MPI_Errhandler_free(&eh);
  int rc = MPI_Comm_call_errhandler(dup, c1);
  printf("rank %d: default fatal %d, set %d, called %d comm %d code %d rc %d\n", rank, fatal, same,
         calls, seen_comm == dup, seen_code == c1, rc == MPI_SUCCESS);
  MPI_Comm_dup(dup, &dup2);
  calls = 0;
  MPI_Comm_call_errhandler(dup2, MPI_ERR_OTHER);
  printf("rank %d: inherited by dup %d comm %d code %d\n", rank, calls, seen_comm == dup2, seen_code == MPI_ERR_OTHER);
  MPI_Comm_free(&dup2);
  MPI_Comm_free(&dup);

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  calls = 0;
  rc = MPI_Comm_call_errhandler(MPI_COMM_WORLD, c1);
  MPI_Datatype t;
  int rc2 = MPI_Type_create_f90_real(40, 5000, &t);
  printf("rank %d: errors return: call rc %d, no kind rc %d\n", rank, rc == MPI_SUCCESS, rc2 != MPI_SUCCESS);

  int buf[4];
  MPI_Win win;
  MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_get_errhandler(win, &got);
  fatal = got == MPI_ERRORS_ARE_FATAL;
  MPI_Win_create_errhandler(win_eh, &eh);
  MPI_Win_set_errhandler(win, eh);
  calls = 0;
  rc = MPI_Win_call_errhandler(win, c1);
  printf("rank %d: win default fatal %d, called %d win %d code %d rc %d\n", rank, fatal, calls,
         seen_win == win, seen_code == c1, rc == MPI_SUCCESS);
  MPI_Errhandler_free(&eh);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
