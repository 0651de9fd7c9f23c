/* MPICH's ABI <-> psim's (src/emul/abi/abi_xlate.c, compiled in here: it belongs to
 * build/lib/libmpich.so.12, not to psimcore). MPICH's values are those of its mpi.h (4.0.2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "emul/abi/abi_xlate.c"

static void test_predefined(void **state) {
  (void)state;
  assert_int_equal(abi_comm_in((int)0x44000000u), MPI_COMM_WORLD);
  assert_int_equal(abi_comm_in((int)0x44000001u), MPI_COMM_SELF);
  assert_int_equal(abi_comm_in((int)0x04000000u), MPI_COMM_NULL);
  assert_int_equal(abi_comm_out(MPI_COMM_NULL), (int)0x04000000u);
  assert_int_equal(abi_dt_in((int)0x4c00080bu), MPI_DOUBLE);
  assert_int_equal(abi_dt_in((int)0x4c00081fu), MPI_DOUBLE_PRECISION);
  assert_int_equal(abi_dt_out(MPI_DOUBLE_PRECISION), (int)0x4c00081fu);
  assert_int_equal(abi_dt_in((int)0x4c000829u), MPI_REAL8);         /* a type of its own */
  assert_int_equal(abi_dt_out(MPI_REAL8), (int)0x4c000829u);
  assert_int_equal(abi_dt_in((int)0x4c00102bu), MPI_REAL16);
  assert_int_equal(abi_dt_out(MPI_CXX_BOOL), (int)0x4c000133u);
  assert_int_equal(abi_dt_out(MPI_DOUBLE), (int)0x4c00080bu);
  assert_int_equal(abi_dt_in((int)0x8c000001u), MPI_DOUBLE_INT);     /* MPICH's pair types are "direct" */
  assert_int_equal(abi_dt_out(MPI_DOUBLE_INT), (int)0x8c000001u);
  assert_int_equal(abi_dt_in((int)0x0c000000u), MPI_DATATYPE_NULL);
  assert_int_equal(abi_op_in((int)0x58000003u), MPI_SUM);
  assert_int_equal(abi_op_in((int)0x5800000cu), MPI_MAXLOC);
  assert_int_equal(abi_op_out(MPI_NO_OP), (int)0x5800000eu);
  assert_int_equal(abi_req_out(MPI_REQUEST_NULL), (int)0x2c000000u);
  assert_int_equal(abi_group_in((int)0x48000000u), MPI_GROUP_EMPTY);
  assert_int_equal(abi_errh_in((int)0x54000001u), MPI_ERRORS_RETURN);
  assert_int_equal(abi_info_in((int)0x5c000001u), MPI_INFO_ENV);
  assert_int_equal(abi_win_out(MPI_WIN_NULL), (int)0x20000000u);
  /* MPICH: MPI_PROC_NULL -1, MPI_ANY_SOURCE -2, MPI_ROOT -3 */
  assert_int_equal(abi_rank_in(-1), MPI_PROC_NULL);
  assert_int_equal(abi_rank_in(-2), MPI_ANY_SOURCE);
  assert_int_equal(abi_rank_in(-3), MPI_ROOT);
  assert_int_equal(abi_rank_out(MPI_ANY_SOURCE), -2);
  assert_int_equal(abi_rank_in(5), 5);
  assert_int_equal(abi_err_out(MPI_ERR_REQUEST), 19);
  assert_int_equal(abi_err_in(14), MPI_ERR_TRUNCATE);
  assert_int_equal(abi_keyval_out(MPI_KEYVAL_INVALID), (int)0x24000000u);
  assert_int_equal(abi_combiner_out(MPI_COMBINER_STRUCT), 12);
  assert_int_equal(abi_match_size(1, 8), (int)0x4c00080bu);
  assert_int_equal(abi_match_size(2, 4), (int)0x4c000439u);
  assert_int_equal(abi_match_size(1, 3), (int)0x0c000000u);
  /* MPI-IO: MPICH's MPI_File is a pointer (MPI_FILE_NULL 0), its error classes its own */
  assert_true(abi_file_out(MPI_FILE_NULL) == NULL);
  assert_int_equal(abi_file_in(NULL), MPI_FILE_NULL);
  assert_int_equal(abi_file_in(abi_file_out(3)), 3);
  assert_int_equal(abi_file_in((abi_file)(uintptr_t)0x7f0000001000ull), -1);   /* not psim's */
  assert_int_equal(abi_err_out(MPI_ERR_NO_SUCH_FILE), 37);
  assert_int_equal(abi_err_out(MPI_ERR_AMODE), 21);
  assert_int_equal(abi_err_out(MPI_ERR_ACCESS), 20);
  assert_int_equal(abi_err_out(MPI_ERR_READ_ONLY), 40);
  assert_int_equal(abi_err_out(MPI_ERR_UNSUPPORTED_DATAREP), 43);
  assert_int_equal(abi_err_out(MPI_ERR_FILE), 27);
  assert_int_equal(abi_err_in(25), MPI_ERR_FILE_EXISTS);
  assert_int_equal(abi_err_in(44), MPI_ERR_UNSUPPORTED_OPERATION);
}

/* objects the program made: MPICH's "direct" handle of the kind, psim's index below */
static void test_user_objects(void **state) {
  (void)state;
  int c = 7, t = PSIM_NUM_PREDEFINED_TYPES + 2, o = PSIM_NUM_PREDEFINED_OPS, r = 12345;
  assert_int_equal(abi_comm_out(c), (int)0x84000007u);
  assert_int_equal(abi_comm_in(abi_comm_out(c)), c);
  assert_int_equal(abi_dt_in(abi_dt_out(t)), t);
  assert_int_equal((unsigned)abi_dt_out(t) >> 26, 0x23u);   /* 10 0011: direct datatype */
  assert_int_equal(abi_op_in(abi_op_out(o)), o);
  assert_int_equal(abi_req_in(abi_req_out(r)), r);
  assert_int_equal(abi_req_out(r), (int)(0xac000000u | 12345u));
  /* a handle of another kind is no handle: psim's runtime rejects -1 */
  assert_int_equal(abi_comm_in(abi_dt_out(t)), -1);
  assert_int_equal(abi_dt_in((int)0x4c0004ffu), -1);
  assert_int_equal(abi_op_in((int)0x58000000u | PSIM_NUM_PREDEFINED_OPS), -1);
}

/* MPICH's status: the byte count in count_lo and count_hi_and_cancelled >> 1, cancelled in its
 * low bit. 5e9 bytes = 0x12A05F200: count_lo 0x2A05F200, hi 1 -> (1 << 1) | cancelled. */
static void test_status(void **state) {
  (void)state;
  MPI_Status ps = {.MPI_SOURCE = MPI_PROC_NULL, .MPI_TAG = 9, .MPI_ERROR = MPI_ERR_TRUNCATE,
                   .psim_cancelled = 1, .psim_bytes = 5000000000LL};
  abi_pstatus p;
  memcpy(&p, &ps, sizeof ps);
  abi_status s;
  abi_status_out(&p, &s);
  assert_int_equal(s.count_lo, 0x2A05F200);
  assert_int_equal(s.count_hi_and_cancelled, 3);
  assert_int_equal(s.MPI_SOURCE, -1);
  assert_int_equal(s.MPI_TAG, 9);
  assert_int_equal(s.MPI_ERROR, 14);
  abi_pstatus back;
  abi_status_in(&s, &back);
  MPI_Status b;
  memcpy(&b, &back, sizeof b);
  assert_true(b.psim_bytes == 5000000000LL);
  assert_int_equal(b.psim_cancelled, 1);
  assert_int_equal(b.MPI_SOURCE, MPI_PROC_NULL);
  assert_int_equal(b.MPI_ERROR, MPI_ERR_TRUNCATE);
  assert_true(abi_status_ignored(ABI_STATUS_IGNORE));
  assert_false(abi_status_ignored(&s));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_predefined),
    cmocka_unit_test(test_user_objects),
    cmocka_unit_test(test_status),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
