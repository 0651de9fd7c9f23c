/* psim's mpi.h: the MPI subset that `psim run` executes (docs/MPI_SUBSET.md lists it).
 *
 * Programs built with psimcc include this header instead of an MPI library's; its functions
 * are implemented by psim's runtime (libpsimmpi, linked into the psim binary), which runs
 * every rank as a coroutine inside one simulation. A function that is not declared here is
 * not implemented: psimcc turns implicit declarations into errors and refuses to link a
 * program that calls an MPI function psim does not provide.
 *
 * Handles are small integers (as in MPICH), so predefined ones are compile-time constants. */
#ifndef PSIM_MPI_H
#define PSIM_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PSIM_MPI 1
#define MPI_VERSION 3
#define MPI_SUBVERSION 1

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Group;
typedef int MPI_Errhandler;
typedef int MPI_Info;
typedef int MPI_Win;
typedef int MPI_Message;   /* a matched message: a receive request, posted by the probe */
typedef ptrdiff_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint;

/* Handles are the same integers in C and Fortran: the conversions are casts (PMPI_ too). */
#define MPI_Comm_c2f(h) ((MPI_Fint)(h))
#define MPI_Comm_f2c(h) ((MPI_Comm)(h))
#define MPI_Type_c2f(h) ((MPI_Fint)(h))
#define MPI_Type_f2c(h) ((MPI_Datatype)(h))
#define MPI_Group_c2f(h) ((MPI_Fint)(h))
#define MPI_Group_f2c(h) ((MPI_Group)(h))
#define MPI_Info_c2f(h) ((MPI_Fint)(h))
#define MPI_Info_f2c(h) ((MPI_Info)(h))
#define MPI_Request_c2f(h) ((MPI_Fint)(h))
#define MPI_Request_f2c(h) ((MPI_Request)(h))
#define MPI_Op_c2f(h) ((MPI_Fint)(h))
#define MPI_Op_f2c(h) ((MPI_Op)(h))
#define MPI_Errhandler_c2f(h) ((MPI_Fint)(h))
#define MPI_Errhandler_f2c(h) ((MPI_Errhandler)(h))
#define MPI_Win_c2f(h) ((MPI_Fint)(h))
#define MPI_Win_f2c(h) ((MPI_Win)(h))
#define MPI_Message_c2f(h) ((MPI_Fint)(h))
#define MPI_Message_f2c(h) ((MPI_Message)(h))
#define PMPI_Comm_c2f MPI_Comm_c2f
#define PMPI_Comm_f2c MPI_Comm_f2c
#define PMPI_Type_c2f MPI_Type_c2f
#define PMPI_Type_f2c MPI_Type_f2c
#define PMPI_Group_c2f MPI_Group_c2f
#define PMPI_Group_f2c MPI_Group_f2c
#define PMPI_Info_c2f MPI_Info_c2f
#define PMPI_Info_f2c MPI_Info_f2c
#define PMPI_Request_c2f MPI_Request_c2f
#define PMPI_Request_f2c MPI_Request_f2c
#define PMPI_Op_c2f MPI_Op_c2f
#define PMPI_Op_f2c MPI_Op_f2c
#define PMPI_Errhandler_c2f MPI_Errhandler_c2f
#define PMPI_Errhandler_f2c MPI_Errhandler_f2c
#define PMPI_Win_c2f MPI_Win_c2f
#define PMPI_Win_f2c MPI_Win_f2c
#define PMPI_Message_c2f MPI_Message_c2f
#define PMPI_Message_f2c MPI_Message_f2c

typedef struct MPI_Status {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int psim_cancelled;
  long long psim_bytes;   /* size of the received message, in bytes */
} MPI_Status;

/* Error classes (handlers: rt_errors.c; most errors psim detects stop the run whatever the handler). */
enum {
  MPI_SUCCESS = 0, MPI_ERR_BUFFER, MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_TAG, MPI_ERR_COMM,
  MPI_ERR_RANK, MPI_ERR_REQUEST, MPI_ERR_ROOT, MPI_ERR_GROUP, MPI_ERR_OP, MPI_ERR_TOPOLOGY,
  MPI_ERR_DIMS, MPI_ERR_ARG, MPI_ERR_UNKNOWN, MPI_ERR_TRUNCATE, MPI_ERR_OTHER, MPI_ERR_INTERN,
  MPI_ERR_IN_STATUS, MPI_ERR_PENDING, MPI_ERR_INFO, MPI_ERR_INFO_KEY, MPI_ERR_INFO_VALUE,
  MPI_ERR_INFO_NOKEY, MPI_ERR_NO_MEM, MPI_ERR_SIZE, MPI_ERR_DISP, MPI_ERR_BASE, MPI_ERR_WIN,
  MPI_ERR_LOCKTYPE, MPI_ERR_ASSERT, MPI_ERR_RMA_CONFLICT, MPI_ERR_RMA_SYNC, MPI_ERR_RMA_RANGE, MPI_ERR_KEYVAL,
  MPI_ERR_LASTCODE = 100
};

#define MPI_COMM_NULL 0
#define MPI_COMM_WORLD 1
#define MPI_COMM_SELF 2
#define MPI_GROUP_NULL 0
#define MPI_GROUP_EMPTY 1
#define MPI_REQUEST_NULL 0
#define MPI_OP_NULL 0
#define MPI_DATATYPE_NULL 0
#define MPI_INFO_NULL 0
#define MPI_INFO_ENV 1
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
#define MPI_WIN_NULL 0
#define MPI_ERRHANDLER_NULL 0
#define MPI_ERRORS_ARE_FATAL 1
#define MPI_ERRORS_RETURN 2

/* Predefined datatypes (their order is the runtime's table; see src/emul/rt/rt_dtype.c). */
enum {
  MPI_CHAR = 1, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_WCHAR, MPI_SHORT,
  MPI_UNSIGNED_SHORT, MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG, MPI_LONG_LONG_INT,
  MPI_UNSIGNED_LONG_LONG, MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_C_BOOL, MPI_INT8_T,
  MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T,
  MPI_AINT, MPI_OFFSET, MPI_COUNT, MPI_PACKED, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
  /* pair types for MINLOC/MAXLOC */
  MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT,
  MPI_UB, MPI_LB, MPI_C_LONG_DOUBLE_COMPLEX,
  /* Fortran's: C's layouts (INTEGER and LOGICAL an int, REAL a float, CHARACTER a char), but
   * types of their own, as MPI defines them: a user operation is given the one it was called
   * with, and MPI_Type_get_name says its Fortran name. The pairs of MINLOC/MAXLOC hold the
   * value and its index in the same type. */
  MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_LOGICAL,
  MPI_CHARACTER, MPI_2INTEGER, MPI_2REAL, MPI_2DOUBLE_PRECISION,
  /* Fortran's sized types: the layouts (and reductions) of C's float, double, float complex,
   * double complex, int8_t ... int64_t, under their own names; MPI_REAL16 and MPI_COMPLEX32
   * (Fortran's quad precision) are 16 and 32 bytes that can be moved but not reduced */
  MPI_REAL4, MPI_REAL8, MPI_REAL16, MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32, MPI_INTEGER1,
  MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8,
  /* C++'s, as MPICH has them in C too: C's bool and complex types under their own names */
  MPI_CXX_BOOL, MPI_CXX_FLOAT_COMPLEX, MPI_CXX_DOUBLE_COMPLEX, MPI_CXX_LONG_DOUBLE_COMPLEX,
  PSIM_NUM_PREDEFINED_TYPES
};
#define MPI_INTEGER16 MPI_DATATYPE_NULL   /* as MPICH: no 16-byte integer */
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX

enum {
  MPI_MAX = 1, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR, MPI_BOR, MPI_LXOR,
  MPI_BXOR, MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP, PSIM_NUM_PREDEFINED_OPS
};

#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_UNDEFINED (-32766)
#define MPI_TAG_UB 0x64400001
#define MPI_HOST 0x64400003
#define MPI_IO 0x64400005
#define MPI_WTIME_IS_GLOBAL 0x64400007
#define MPI_UNIVERSE_SIZE 0x64400009   /* not set (flag 0), as MPI allows */
#define MPI_LASTUSEDCODE 0x6440000b
#define MPI_APPNUM 0x6440000d
#define MPI_KEYVAL_INVALID 0
#define MPI_MAX_PROCESSOR_NAME 128
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_BSEND_OVERHEAD 96
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_IN_PLACE ((void *)-1)
#define MPI_BOTTOM ((void *)0)
/* distributed graphs' weights: addresses of psim's own, not NULL (MPI 3.0), never dereferenced */
int *psim_topo_weights(int empty);
#define MPI_UNWEIGHTED (psim_topo_weights(0))
#define MPI_WEIGHTS_EMPTY (psim_topo_weights(1))
#define MPI_MESSAGE_NULL 0
#define MPI_MESSAGE_NO_PROC (-1)       /* what a matched probe of MPI_PROC_NULL gives */

typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef int MPI_Comm_copy_attr_function(MPI_Comm, int, void *, void *, void *, int *);
typedef int MPI_Comm_delete_attr_function(MPI_Comm, int, void *, void *);
#define MPI_COMM_NULL_COPY_FN ((MPI_Comm_copy_attr_function *)0)
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function *)0)
#define MPI_COMM_DUP_FN ((MPI_Comm_copy_attr_function *)1)
typedef int MPI_Type_copy_attr_function(MPI_Datatype, int, void *, void *, void *, int *);
typedef int MPI_Type_delete_attr_function(MPI_Datatype, int, void *, void *);
#define MPI_TYPE_NULL_COPY_FN ((MPI_Type_copy_attr_function *)0)
#define MPI_TYPE_NULL_DELETE_FN ((MPI_Type_delete_attr_function *)0)
#define MPI_TYPE_DUP_FN ((MPI_Type_copy_attr_function *)1)
typedef MPI_Comm_copy_attr_function MPI_Copy_function;       /* MPI-1's names */
typedef MPI_Comm_delete_attr_function MPI_Delete_function;
#define MPI_NULL_COPY_FN ((MPI_Copy_function *)0)
#define MPI_NULL_DELETE_FN ((MPI_Delete_function *)0)
#define MPI_DUP_FN ((MPI_Copy_function *)1)

/* ---- environment ---- */
int MPI_Init(int *argc, char ***argv);
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
int MPI_Query_thread(int *provided);
int MPI_Is_thread_main(int *flag);
int MPI_Finalize(void);
int MPI_Initialized(int *flag);
int MPI_Finalized(int *flag);
int MPI_Abort(MPI_Comm comm, int errorcode);
double MPI_Wtime(void);
double MPI_Wtick(void);
int MPI_Get_processor_name(char *name, int *resultlen);
int MPI_Get_version(int *version, int *subversion);
int MPI_Get_library_version(char *version, int *resultlen);
int MPI_Error_string(int errorcode, char *string, int *resultlen);
int MPI_Error_class(int errorcode, int *errorclass);
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Errhandler_free(MPI_Errhandler *errhandler);
/* The program's error classes, codes, strings and handlers (rt_errors.c): a handler governs
 * MPI_Comm_call_errhandler/MPI_Win_call_errhandler and the calls docs/MPI_SUBSET.md names;
 * every other error psim detects stops the run. */
typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *errorcode, ...);
typedef MPI_Comm_errhandler_function MPI_Handler_function;
typedef void MPI_Win_errhandler_function(MPI_Win *win, int *errorcode, ...);
int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
                               MPI_Errhandler *errhandler);
int MPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler);
int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);
int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
int MPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                              MPI_Errhandler *errhandler);
int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler);
int MPI_Win_call_errhandler(MPI_Win win, int errorcode);
int MPI_Add_error_class(int *errorclass);
int MPI_Add_error_code(int errorclass, int *errorcode);
int MPI_Add_error_string(int errorcode, const char *string);
int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag);
int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag);
/* attributes of communicators and datatypes (src/emul/rt/rt_attr.c) */
int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *keyval,
                           void *extra_state);
int MPI_Comm_free_keyval(int *keyval);
int MPI_Comm_set_attr(MPI_Comm comm, int keyval, void *attribute_val);
int MPI_Comm_delete_attr(MPI_Comm comm, int keyval);
int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                      void *extra_state);
int MPI_Keyval_free(int *keyval);
int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val);
int MPI_Attr_delete(MPI_Comm comm, int keyval);
int MPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                           MPI_Type_delete_attr_function *type_delete_attr_fn, int *keyval,
                           void *extra_state);
int MPI_Type_free_keyval(int *keyval);
int MPI_Type_set_attr(MPI_Datatype dt, int keyval, void *attribute_val);
int MPI_Type_get_attr(MPI_Datatype dt, int keyval, void *attribute_val, int *flag);
int MPI_Type_delete_attr(MPI_Datatype dt, int keyval);

/* ---- point to point ---- */
int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int MPI_Ssend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int MPI_Rsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int MPI_Bsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int MPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
             MPI_Status *status);
int MPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              MPI_Request *request);
int MPI_Issend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int MPI_Irsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int MPI_Ibsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
              MPI_Request *request);
int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status);
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status *status);
int MPI_Send_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                  MPI_Request *request);
int MPI_Ssend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request);
int MPI_Rsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request);
int MPI_Bsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request);
int MPI_Recv_init(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                  MPI_Request *request);
int MPI_Start(MPI_Request *request);
int MPI_Startall(int count, MPI_Request requests[]);
int MPI_Buffer_attach(void *buffer, int size);
int MPI_Buffer_detach(void *buffer_addr, int *size);
int MPI_Wait(MPI_Request *request, MPI_Status *status);
int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]);
int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status);
int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[]);
int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]);
int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status);
int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[]);
int MPI_Request_free(MPI_Request *request);
int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);
int MPI_Cancel(MPI_Request *request);
int MPI_Test_cancelled(const MPI_Status *status, int *flag);
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
/* Matched probes (MPI 3.0): the message probed is taken out of matching (rt_p2p.c). */
int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                MPI_Status *status);
int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
              MPI_Status *status);
int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Request *request);
int MPI_Get_count(const MPI_Status *status, MPI_Datatype dt, int *count);
int MPI_Get_elements(const MPI_Status *status, MPI_Datatype dt, int *count);
int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype dt, MPI_Count *count);
/* MPI 4.0: the send and the receive in one request (complete when both are). */
int MPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                  int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                  int recvtag, MPI_Comm comm, MPI_Request *request);
int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Request *request);
/* Generalized requests (rt_greq.c): completed by the program's MPI_Grequest_complete. */
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);
int MPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                       MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                       MPI_Request *request);
int MPI_Grequest_complete(MPI_Request request);
int MPI_Status_set_cancelled(MPI_Status *status, int flag);
int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype dt, int count);
int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype dt, MPI_Count count);

/* ---- collectives ---- */
int MPI_Barrier(MPI_Comm comm);
int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
               MPI_Comm comm);
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                  MPI_Comm comm);
int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype dt, MPI_Op op);
int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm);
int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm);
int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm);
int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype dt, MPI_Op op, MPI_Comm comm);
int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype dt,
                             MPI_Op op, MPI_Comm comm);
int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
             MPI_Comm comm);
int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
               MPI_Comm comm);
int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
/* Non-blocking collectives: run as the blocking call, the request is already complete. */
int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request);
int MPI_Ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
               MPI_Request *request);
int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request *request);
int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request *request);
int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request *request);
int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request);
int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request *request);
int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request);
int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request *request);
int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request *request);
int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Request *request);
int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Request *request);
int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
              MPI_Comm comm, MPI_Request *request);
int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                MPI_Comm comm, MPI_Request *request);
int MPI_Op_create(MPI_User_function *fn, int commute, MPI_Op *op);
int MPI_Op_free(MPI_Op *op);
int MPI_Op_commutative(MPI_Op op, int *commute);

/* ---- communicators and groups ---- */
int MPI_Comm_rank(MPI_Comm comm, int *rank);
int MPI_Comm_size(MPI_Comm comm, int *size);
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm);
int MPI_Comm_free(MPI_Comm *comm);
int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result);
int MPI_Comm_group(MPI_Comm comm, MPI_Group *group);
int MPI_Comm_test_inter(MPI_Comm comm, int *flag);
int MPI_Comm_set_name(MPI_Comm comm, const char *name);
int MPI_Comm_get_name(MPI_Comm comm, char *name, int *resultlen);
/* inter-communicators: created, queried, merged and freed; no communication on them */
int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm *newintercomm);
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm);
int MPI_Comm_remote_size(MPI_Comm comm, int *size);
int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group);
/* Cartesian topologies and MPI_Comm_split_type (rt_topo.c); reorder is not applied. */
#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3
#define MPI_COMM_TYPE_SHARED 1
#define MPI_COMM_TYPE_HW_UNGUIDED 2
#define MPI_COMM_TYPE_HW_GUIDED 3
/* MPICH's MPIX_COMM_TYPE_NEIGHBORHOOD, for MPICH binaries (src/emul/abi/abi_xlate.c): the ranks
 * that share access to the directory of info key "nbhd_common_dirname" */
#define PSIM_COMM_TYPE_NEIGHBORHOOD 4
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                        MPI_Comm *newcomm);
int MPI_Dims_create(int nnodes, int ndims, int dims[]);
int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm *comm_cart);
int MPI_Cartdim_get(MPI_Comm comm, int *ndims);
int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]);
int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank);
int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]);
int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest);
int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm);
int MPI_Topo_test(MPI_Comm comm, int *status);
int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank);
/* Graph and distributed graph topologies (rt_graph.c); reorder is not applied, info ignored. */
int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                     int reorder, MPI_Comm *comm_graph);
int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges);
int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]);
int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors);
int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]);
int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank);
int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[],
                                   MPI_Info info, int reorder, MPI_Comm *comm_dist_graph);
int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info,
                          int reorder, MPI_Comm *comm_dist_graph);
int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted);
int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                             int maxoutdegree, int destinations[], int destweights[]);
/* Neighbourhood collectives (rt_neighbor.c): point-to-point messages to and from each
 * neighbour; the non-blocking ones run as the blocking ones and return a completed request. */
int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                           MPI_Comm comm);
int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request);
int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request *request);
int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request);
int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                            const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                            void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request);
int MPI_Group_size(MPI_Group group, int *size);
int MPI_Group_rank(MPI_Group group, int *rank);
int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
int MPI_Group_union(MPI_Group g1, MPI_Group g2, MPI_Group *newgroup);
int MPI_Group_intersection(MPI_Group g1, MPI_Group g2, MPI_Group *newgroup);
int MPI_Group_difference(MPI_Group g1, MPI_Group g2, MPI_Group *newgroup);
int MPI_Group_translate_ranks(MPI_Group g1, int n, const int ranks1[], MPI_Group g2, int ranks2[]);
int MPI_Group_compare(MPI_Group g1, MPI_Group g2, int *result);
int MPI_Group_free(MPI_Group *group);

/* ---- datatypes ---- */
int MPI_Type_size(MPI_Datatype dt, int *size);
int MPI_Type_get_extent(MPI_Datatype dt, MPI_Aint *lb, MPI_Aint *extent);
int MPI_Type_get_true_extent(MPI_Datatype dt, MPI_Aint *lb, MPI_Aint *extent);
int MPI_Type_extent(MPI_Datatype dt, MPI_Aint *extent);
int MPI_Type_lb(MPI_Datatype dt, MPI_Aint *lb);
int MPI_Type_ub(MPI_Datatype dt, MPI_Aint *ub);
int MPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype *newtype);
int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype old,
                    MPI_Datatype *newtype);
int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype old,
                     MPI_Datatype *newtype);
int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype old,
                            MPI_Datatype *newtype);
int MPI_Type_indexed(int count, const int blocklengths[], const int displs[], MPI_Datatype old,
                     MPI_Datatype *newtype);
int MPI_Type_create_hindexed(int count, const int blocklengths[], const MPI_Aint displs[],
                             MPI_Datatype old, MPI_Datatype *newtype);
int MPI_Type_create_indexed_block(int count, int blocklength, const int displs[],
                                  MPI_Datatype old, MPI_Datatype *newtype);
int MPI_Type_create_struct(int count, const int blocklengths[], const MPI_Aint displs[],
                           const MPI_Datatype types[], MPI_Datatype *newtype);
int MPI_Type_struct(int count, int blocklengths[], MPI_Aint displs[], MPI_Datatype types[],
                    MPI_Datatype *newtype);
int MPI_Type_create_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype);
int MPI_Type_dup(MPI_Datatype old, MPI_Datatype *newtype);
int MPI_Type_commit(MPI_Datatype *dt);
int MPI_Type_free(MPI_Datatype *dt);
int MPI_Type_hindexed(int count, int blocklengths[], MPI_Aint displs[], MPI_Datatype old,
                      MPI_Datatype *newtype);
int MPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displs[],
                                   MPI_Datatype old, MPI_Datatype *newtype);
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
int MPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[],
                             const int starts[], int order, MPI_Datatype old,
                             MPI_Datatype *newtype);
#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)
int MPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[],
                           const int dargs[], const int psizes[], int order, MPI_Datatype oldtype,
                           MPI_Datatype *newtype);
int MPI_Type_set_name(MPI_Datatype dt, const char *name);
int MPI_Type_get_name(MPI_Datatype dt, char *name, int *resultlen);
enum {
  MPI_COMBINER_NAMED = 1, MPI_COMBINER_DUP, MPI_COMBINER_CONTIGUOUS, MPI_COMBINER_VECTOR,
  MPI_COMBINER_HVECTOR, MPI_COMBINER_INDEXED, MPI_COMBINER_HINDEXED,
  MPI_COMBINER_INDEXED_BLOCK, MPI_COMBINER_HINDEXED_BLOCK, MPI_COMBINER_STRUCT,
  MPI_COMBINER_SUBARRAY, MPI_COMBINER_DARRAY, MPI_COMBINER_F90_REAL,
  MPI_COMBINER_F90_COMPLEX, MPI_COMBINER_F90_INTEGER, MPI_COMBINER_RESIZED,
  MPI_COMBINER_HVECTOR_INTEGER, MPI_COMBINER_HINDEXED_INTEGER, MPI_COMBINER_STRUCT_INTEGER
};
/* Decoding (rt_dtype_decode.c), and external32 (rt_external.c) */
int MPI_Type_get_envelope(MPI_Datatype dt, int *num_integers, int *num_addresses,
                          int *num_datatypes, int *combiner);
int MPI_Type_get_contents(MPI_Datatype dt, int max_integers, int max_addresses,
                          int max_datatypes, int array_of_integers[],
                          MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]);
int MPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype);
int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype);
int MPI_Type_create_f90_integer(int r, MPI_Datatype *newtype);
int MPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype dt,
                      void *outbuf, MPI_Aint outsize, MPI_Aint *position);
int MPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                        MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype dt);
int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype dt, MPI_Aint *size);
int MPI_Get_address(const void *location, MPI_Aint *address);
int MPI_Address(void *location, MPI_Aint *address);
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);
int MPI_Pack(const void *inbuf, int incount, MPI_Datatype dt, void *outbuf, int outsize,
             int *position, MPI_Comm comm);
int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype dt, MPI_Comm comm);
int MPI_Pack_size(int incount, MPI_Datatype dt, MPI_Comm comm, int *size);

/* ---- info objects and memory ---- */
int MPI_Info_create(MPI_Info *info);
int MPI_Info_set(MPI_Info info, const char *key, const char *value);
int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag);
int MPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag);
int MPI_Info_create_env(int argc, char *argv[], MPI_Info *info);
int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag);
int MPI_Info_get_nkeys(MPI_Info info, int *nkeys);
int MPI_Info_get_nthkey(MPI_Info info, int n, char *key);
int MPI_Info_delete(MPI_Info info, const char *key);
int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo);
int MPI_Info_free(MPI_Info *info);
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm);
int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info);
int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info);
int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
int MPI_Free_mem(void *base);

/* ---- one-sided communication (docs/EMULATION.md: timing) ---- */
#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED 235
#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384
#define MPI_WIN_BASE 0x66000001
#define MPI_WIN_SIZE 0x66000003
#define MPI_WIN_DISP_UNIT 0x66000005
#define MPI_WIN_CREATE_FLAVOR 0x66000007
#define MPI_WIN_MODEL 0x66000009
#define MPI_WIN_FLAVOR_CREATE 1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC 3
#define MPI_WIN_FLAVOR_SHARED 4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED 2
int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                   MPI_Win *win);
int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                     MPI_Win *win);
int MPI_Win_free(MPI_Win *win);
/* dynamic windows: memory attached and detached by each rank; a target displacement is an
 * address (MPI_Get_address) relative to MPI_BOTTOM */
int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win);
int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size);
int MPI_Win_detach(MPI_Win win, const void *base);
int MPI_Win_fence(int assert, MPI_Win win);
int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win);
int MPI_Win_unlock(int rank, MPI_Win win);
int MPI_Win_lock_all(int assert, MPI_Win win);
int MPI_Win_unlock_all(MPI_Win win);
int MPI_Win_flush(int rank, MPI_Win win);
int MPI_Win_flush_all(MPI_Win win);
int MPI_Win_flush_local(int rank, MPI_Win win);
int MPI_Win_flush_local_all(MPI_Win win);
int MPI_Win_sync(MPI_Win win);
int MPI_Win_post(MPI_Group group, int assert, MPI_Win win);
int MPI_Win_start(MPI_Group group, int assert, MPI_Win win);
int MPI_Win_complete(MPI_Win win);
int MPI_Win_wait(MPI_Win win);
int MPI_Win_test(MPI_Win win, int *flag);
int MPI_Win_get_group(MPI_Win win, MPI_Group *group);
int MPI_Win_get_attr(MPI_Win win, int keyval, void *attribute_val, int *flag);
int MPI_Win_set_name(MPI_Win win, const char *name);
int MPI_Win_get_name(MPI_Win win, char *name, int *resultlen);
int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler);
/* ---- RMA additions (branch mpi-rma2): shared-memory windows, request-based operations,
 * window info (docs/EMULATION.md, "One-sided communication") ---- */
/* the ranks of one simulated host (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)) share the memory */
int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void *baseptr, MPI_Win *win);
int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr);
int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used);
int MPI_Win_set_info(MPI_Win win, MPI_Info info);
/* request-based operations, in passive-target epochs only: complete when locally complete */
int MPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request *request);
int MPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
int MPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                        MPI_Request *request);
/* ---- end of the RMA additions ---- */
typedef int MPI_Win_copy_attr_function(MPI_Win, int, void *, void *, void *, int *);
typedef int MPI_Win_delete_attr_function(MPI_Win, int, void *, void *);
#define MPI_WIN_NULL_COPY_FN ((MPI_Win_copy_attr_function *)0)
#define MPI_WIN_NULL_DELETE_FN ((MPI_Win_delete_attr_function *)0)
#define MPI_WIN_DUP_FN ((MPI_Win_copy_attr_function *)1)
int MPI_Win_create_keyval(MPI_Win_copy_attr_function *copy_fn,
                          MPI_Win_delete_attr_function *delete_fn, int *keyval, void *extra_state);
int MPI_Win_free_keyval(int *keyval);
int MPI_Win_set_attr(MPI_Win win, int keyval, void *attribute_val);
int MPI_Win_delete_attr(MPI_Win win, int keyval);
int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
            int target_rank, MPI_Aint target_disp, int target_count,
            MPI_Datatype target_datatype, MPI_Win win);
int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win);
int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                   int target_rank, MPI_Aint target_disp, int target_count,
                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
int MPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                       void *result_addr, int result_count, MPI_Datatype result_datatype,
                       int target_rank, MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win);
int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                         MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Win win);

/* ---- MPI-IO (src/emul/rt/rt_file*.c; docs/MPI_SUBSET.md): files really read and written
 * with the C library, their time simulated on the hosts' disks (src/models/disk.c) ---- */
typedef int MPI_File;
#define MPI_FILE_NULL 0
#define MPI_File_c2f(h) ((MPI_Fint)(h))
#define MPI_File_f2c(h) ((MPI_File)(h))
#define PMPI_File_c2f MPI_File_c2f
#define PMPI_File_f2c MPI_File_f2c
/* MPICH's (ROMIO's) values */
#define MPI_MODE_CREATE 1
#define MPI_MODE_RDONLY 2
#define MPI_MODE_WRONLY 4
#define MPI_MODE_RDWR 8
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN 32
#define MPI_MODE_EXCL 64
#define MPI_MODE_APPEND 128
#define MPI_MODE_SEQUENTIAL 256
#define MPI_SEEK_SET 600
#define MPI_SEEK_CUR 602
#define MPI_SEEK_END 604
#define MPI_DISPLACEMENT_CURRENT (-54278278)
#define MPI_MAX_DATAREP_STRING 128
/* MPI-IO's error classes (apart from the others: below MPI_ERR_LASTCODE, above theirs) */
enum {
  MPI_ERR_FILE = 60, MPI_ERR_NOT_SAME, MPI_ERR_AMODE, MPI_ERR_UNSUPPORTED_DATAREP,
  MPI_ERR_UNSUPPORTED_OPERATION, MPI_ERR_NO_SUCH_FILE, MPI_ERR_FILE_EXISTS, MPI_ERR_BAD_FILE,
  MPI_ERR_ACCESS, MPI_ERR_NO_SPACE, MPI_ERR_QUOTA, MPI_ERR_READ_ONLY, MPI_ERR_FILE_IN_USE,
  MPI_ERR_DUP_DATAREP, MPI_ERR_CONVERSION, MPI_ERR_IO
};
typedef void MPI_File_errhandler_function(MPI_File *file, int *errorcode, ...);
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh);
int MPI_File_close(MPI_File *fh);
int MPI_File_delete(const char *filename, MPI_Info info);
int MPI_File_set_size(MPI_File fh, MPI_Offset size);
int MPI_File_preallocate(MPI_File fh, MPI_Offset size);
int MPI_File_get_size(MPI_File fh, MPI_Offset *size);
int MPI_File_get_group(MPI_File fh, MPI_Group *group);
int MPI_File_get_amode(MPI_File fh, int *amode);
int MPI_File_set_info(MPI_File fh, MPI_Info info);
int MPI_File_get_info(MPI_File fh, MPI_Info *info_used);
int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, MPI_Info info);
int MPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                      char *datarep);
int MPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent);
int MPI_File_set_atomicity(MPI_File fh, int flag);
int MPI_File_get_atomicity(MPI_File fh, int *flag);
int MPI_File_sync(MPI_File fh);
int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence);
int MPI_File_get_position(MPI_File fh, MPI_Offset *offset);
int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp);
int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence);
int MPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset);
int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                     MPI_Status *status);
int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                         MPI_Datatype datatype, MPI_Status *status);
int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                      MPI_Datatype datatype, MPI_Status *status);
int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                          MPI_Datatype datatype, MPI_Status *status);
int MPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                      MPI_Request *request);
int MPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                       MPI_Datatype datatype, MPI_Request *request);
int MPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                          MPI_Datatype datatype, MPI_Request *request);
int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                           MPI_Datatype datatype, MPI_Request *request);
int MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                      MPI_Status *status);
int MPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                   MPI_Status *status);
int MPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                       MPI_Status *status);
int MPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
int MPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                    MPI_Request *request);
int MPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                       MPI_Request *request);
int MPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                        MPI_Request *request);
int MPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                         MPI_Status *status);
int MPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status);
int MPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                          MPI_Request *request);
int MPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request);
int MPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status);
int MPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status);
/* split collectives: the access is made by _begin (as the _all form), _end gives its status */
int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count,
                               MPI_Datatype datatype);
int MPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status);
int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                MPI_Datatype datatype);
int MPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status);
int MPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
int MPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status);
int MPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype);
int MPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status);
int MPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
int MPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status);
int MPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype);
int MPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status);
int MPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler);
int MPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler);
int MPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn,
                               MPI_Errhandler *errhandler);
int MPI_File_call_errhandler(MPI_File fh, int errorcode);
/* ROMIO's names of the requests of the non-blocking calls (MPICH's mpio.h) */
#define MPIO_USES_MPI_REQUEST
#define MPIO_Request MPI_Request
#define MPIO_REQUEST_NULL MPI_REQUEST_NULL
#define MPIO_Wait MPI_Wait
#define MPIO_Test MPI_Test
/* a datatype's size as an MPI_Count (MPICH's io tests call it) */
int MPI_Type_size_x(MPI_Datatype dt, MPI_Count *size);
/* ---- end of MPI-IO ---- */

/* Calls psim cannot provide: a compile-time error names them (psim_unsupported.h). */
#include "psim_unsupported.h"

/* ---- psim extensions: partial direct execution (docs/EMULATION.md) ---- */
/* Over-decomposition point: a no-op yield point unless a load balancer runs. */
int MPI_Migrate(void);
int AMPI_Migrate(int hints);
/* Marks the end of one iteration of the calling rank: psim's dynamic efficiency (per
 * iteration: useful computation / (hosts allocated x duration)) and --host-events iter=N use
 * it; --trace-tit records it as `iteration`. MPI_Migrate marks iterations too. */
void psim_iteration(void);
/* Declares `flops` of computation (at the simulated host's speed) instead of running it. */
void psim_compute(double flops);
/* Declares `seconds` of simulated time spent without computing. */
void psim_sleep(double seconds);
/* One buffer shared by all ranks (contents undefined when several write): for programs whose
 * computation is skipped, so the simulation does not need every rank's real memory. */
void *psim_shared_malloc(size_t size);
void psim_shared_free(void *p);
/* PSIM_SAMPLE(n) { block }: the first n executions (per rank and per call site) run and are
 * measured; later ones are skipped and cost the mean of the measured ones. */
int psim_sample_enter(const char *file, int line, int n);
void psim_sample_exit(const char *file, int line);
#define PSIM_SAMPLE(n)                                                                        \
  for (int psim_sample_go_ = psim_sample_enter(__FILE__, __LINE__, (n)); psim_sample_go_;   \
       psim_sample_exit(__FILE__, __LINE__), psim_sample_go_ = 0)
/* PSIM_TASK("name", iterations) { block }: MPI-Sim's measured / modelled task. Under
 * `psim run --measure-tasks FILE` the block runs and its cost per iteration is written to FILE
 * per name; under `--task-costs FILE` it is skipped and cost x iterations is injected (the
 * block must not make MPI calls). Otherwise it simply runs. */
int psim_task_enter(const char *name, double iterations);
void psim_task_exit(const char *name, double iterations);
#define PSIM_TASK(name, iterations)                                                            \
  for (int psim_task_go_ = psim_task_enter((name), (double)(iterations)); psim_task_go_;     \
       psim_task_exit((name), (double)(iterations)), psim_task_go_ = 0)
/* Source location of the next MPI call (for deadlock and error reports). */
void psim_at(const char *file, int line);

#ifndef PSIM_NO_LOCATION
/* Every blocking call records where it was made, for deadlock reports. A function-like macro
 * does not expand recursively, so the real function is still called (and &MPI_Recv works). */
#define MPI_Send(...) (psim_at(__FILE__, __LINE__), MPI_Send(__VA_ARGS__))
#define MPI_Ssend(...) (psim_at(__FILE__, __LINE__), MPI_Ssend(__VA_ARGS__))
#define MPI_Recv(...) (psim_at(__FILE__, __LINE__), MPI_Recv(__VA_ARGS__))
#define MPI_Sendrecv(...) (psim_at(__FILE__, __LINE__), MPI_Sendrecv(__VA_ARGS__))
#define MPI_Sendrecv_replace(...) (psim_at(__FILE__, __LINE__), MPI_Sendrecv_replace(__VA_ARGS__))
#define MPI_Wait(...) (psim_at(__FILE__, __LINE__), MPI_Wait(__VA_ARGS__))
#define MPI_Waitall(...) (psim_at(__FILE__, __LINE__), MPI_Waitall(__VA_ARGS__))
#define MPI_Waitany(...) (psim_at(__FILE__, __LINE__), MPI_Waitany(__VA_ARGS__))
#define MPI_Waitsome(...) (psim_at(__FILE__, __LINE__), MPI_Waitsome(__VA_ARGS__))
#define MPI_Probe(...) (psim_at(__FILE__, __LINE__), MPI_Probe(__VA_ARGS__))
#define MPI_Mprobe(...) (psim_at(__FILE__, __LINE__), MPI_Mprobe(__VA_ARGS__))
#define MPI_Mrecv(...) (psim_at(__FILE__, __LINE__), MPI_Mrecv(__VA_ARGS__))
#define MPI_Neighbor_allgather(...) (psim_at(__FILE__, __LINE__), MPI_Neighbor_allgather(__VA_ARGS__))
#define MPI_Neighbor_alltoall(...) (psim_at(__FILE__, __LINE__), MPI_Neighbor_alltoall(__VA_ARGS__))
#define MPI_Barrier(...) (psim_at(__FILE__, __LINE__), MPI_Barrier(__VA_ARGS__))
#define MPI_Bcast(...) (psim_at(__FILE__, __LINE__), MPI_Bcast(__VA_ARGS__))
#define MPI_Reduce(...) (psim_at(__FILE__, __LINE__), MPI_Reduce(__VA_ARGS__))
#define MPI_Allreduce(...) (psim_at(__FILE__, __LINE__), MPI_Allreduce(__VA_ARGS__))
#define MPI_Gather(...) (psim_at(__FILE__, __LINE__), MPI_Gather(__VA_ARGS__))
#define MPI_Scatter(...) (psim_at(__FILE__, __LINE__), MPI_Scatter(__VA_ARGS__))
#define MPI_Allgather(...) (psim_at(__FILE__, __LINE__), MPI_Allgather(__VA_ARGS__))
#define MPI_Alltoall(...) (psim_at(__FILE__, __LINE__), MPI_Alltoall(__VA_ARGS__))
#endif

#ifdef __cplusplus
}
#endif
#endif
