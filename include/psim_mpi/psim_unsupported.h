/* MPI functions psim cannot provide, declared so that a program calling one fails to compile
 * with a message naming the call and the reason, rather than with an implicit declaration:
 *
 *   parent.c:24: error: 'MPI_Comm_spawn' is unavailable: not supported by psim: dynamic
 *   processes (a psim run has a fixed number of ranks, set by --np)
 *
 * Included by psim's mpi.h; their constants are defined too so that the call is the only
 * error. Code that only tests for them (#ifdef MPI_VERSION ...) is not affected. */
#ifndef PSIM_UNSUPPORTED_H
#define PSIM_UNSUPPORTED_H

#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
#define PSIM_UNSUPPORTED(why) __attribute__((unavailable("not supported by psim: " why)))
#elif defined(__GNUC__)
#define PSIM_UNSUPPORTED(why) __attribute__((error("not supported by psim: " why)))
#else
#define PSIM_UNSUPPORTED(why)
#endif

#define PSIM_DYNPROC "dynamic processes (a psim run has a fixed number of ranks, set by --np)"
#define PSIM_PORTS "connecting separate MPI jobs through ports (psim runs one job)"

#define MPI_ARGV_NULL ((char **)0)
#define MPI_ARGVS_NULL ((char ***)0)
#define MPI_ERRCODES_IGNORE ((int *)0)
#define MPI_MAX_PORT_NAME 256

int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                   MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]) PSIM_UNSUPPORTED(PSIM_DYNPROC);
int MPI_Comm_spawn_multiple(int count, char *commands[], char **argvs[], const int maxprocs[],
                            const MPI_Info info[], int root, MPI_Comm comm, MPI_Comm *intercomm,
                            int array_of_errcodes[]) PSIM_UNSUPPORTED(PSIM_DYNPROC);
int MPI_Comm_get_parent(MPI_Comm *parent) PSIM_UNSUPPORTED(PSIM_DYNPROC);
int MPI_Comm_join(int fd, MPI_Comm *intercomm) PSIM_UNSUPPORTED(PSIM_DYNPROC);
int MPI_Comm_disconnect(MPI_Comm *comm) PSIM_UNSUPPORTED(PSIM_DYNPROC);
int MPI_Open_port(MPI_Info info, char *port_name) PSIM_UNSUPPORTED(PSIM_PORTS);
int MPI_Close_port(const char *port_name) PSIM_UNSUPPORTED(PSIM_PORTS);
int MPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                    MPI_Comm *newcomm) PSIM_UNSUPPORTED(PSIM_PORTS);
int MPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm) PSIM_UNSUPPORTED(PSIM_PORTS);
int MPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name) PSIM_UNSUPPORTED(PSIM_PORTS);
int MPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name) PSIM_UNSUPPORTED(PSIM_PORTS);
int MPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name) PSIM_UNSUPPORTED(PSIM_PORTS);

#endif
