/* Datatype decoding and external32 (tests/cli/run_dtype_errors.sh): MPI_Type_get_envelope and
 * MPI_Type_get_contents of each constructor, the Fortran 90 types, and MPI_Pack_external's
 * bytes. Prints only what MPI defines (no handle values): psimcc's build, mpicc's build under
 * psim run and real MPICH print the same lines. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static const char *cname(int c) {
  if (c == MPI_COMBINER_NAMED) return "NAMED";
  if (c == MPI_COMBINER_DUP) return "DUP";
  if (c == MPI_COMBINER_CONTIGUOUS) return "CONTIGUOUS";
  if (c == MPI_COMBINER_VECTOR) return "VECTOR";
  if (c == MPI_COMBINER_HVECTOR) return "HVECTOR";
  if (c == MPI_COMBINER_INDEXED) return "INDEXED";
  if (c == MPI_COMBINER_HINDEXED) return "HINDEXED";
  if (c == MPI_COMBINER_INDEXED_BLOCK) return "INDEXED_BLOCK";
  if (c == MPI_COMBINER_HINDEXED_BLOCK) return "HINDEXED_BLOCK";
  if (c == MPI_COMBINER_STRUCT) return "STRUCT";
  if (c == MPI_COMBINER_SUBARRAY) return "SUBARRAY";
  if (c == MPI_COMBINER_RESIZED) return "RESIZED";
  if (c == MPI_COMBINER_F90_REAL) return "F90_REAL";
  if (c == MPI_COMBINER_F90_COMPLEX) return "F90_COMPLEX";
  if (c == MPI_COMBINER_F90_INTEGER) return "F90_INTEGER";
  return "?";
}

/* One line: the envelope, the contents, and the returned types (named: their name; derived:
 * their combiner, then freed). */
static void show(const char *what, MPI_Datatype t) {
  int ni, na, nt, c;
  MPI_Type_get_envelope(t, &ni, &na, &nt, &c);
  printf("%s: %s ni %d na %d nt %d", what, cname(c), ni, na, nt);
  if (c != MPI_COMBINER_NAMED) {
    int ints[32];
    MPI_Aint addrs[32];
    MPI_Datatype types[32];
    MPI_Type_get_contents(t, ni, na, nt, ints, addrs, types);
    printf(" |");
    for (int i = 0; i < ni; i++) printf(" %d", ints[i]);
    printf(" |");
    for (int i = 0; i < na; i++) printf(" %ld", (long)addrs[i]);
    printf(" |");
    for (int i = 0; i < nt; i++) {
      int ci, ca, ct, cc;
      MPI_Type_get_envelope(types[i], &ci, &ca, &ct, &cc);
      if (cc == MPI_COMBINER_NAMED) {
        char name[MPI_MAX_OBJECT_NAME];
        int len;
        MPI_Type_get_name(types[i], name, &len);
        printf(" %s", name);
      } else {
        int size;
        MPI_Type_size(types[i], &size);
        printf(" derived %s size %d", cname(cc), size);
        MPI_Type_free(&types[i]);
      }
    }
  }
  printf("\n");
}

static void hex(const char *what, const unsigned char *b, MPI_Aint n) {
  printf("%s:", what);
  for (MPI_Aint i = 0; i < n; i++) printf(" %02x", b[i]);
  printf("\n");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    MPI_Datatype t, vec, st;
    show("int", MPI_INT);
    MPI_Type_contiguous(3, MPI_INT, &t); show("contiguous", t); MPI_Type_free(&t);
    MPI_Type_vector(2, 3, 4, MPI_DOUBLE, &vec); show("vector", vec);
    MPI_Type_create_hvector(2, 1, 24, MPI_INT, &t); show("hvector", t); MPI_Type_free(&t);
    int bl[3] = {1, 2, 1}, di[3] = {0, 5, 9};
    MPI_Type_indexed(2, bl, di, MPI_INT, &t); show("indexed", t); MPI_Type_free(&t);
    MPI_Aint ad[3] = {0, 16, 40};
    MPI_Type_create_hindexed(2, bl, ad, MPI_DOUBLE, &t); show("hindexed", t); MPI_Type_free(&t);
    MPI_Type_create_indexed_block(3, 2, di, MPI_INT, &t); show("indexed_block", t); MPI_Type_free(&t);
    MPI_Type_create_hindexed_block(2, 1, ad + 1, MPI_FLOAT, &t); show("hindexed_block", t); MPI_Type_free(&t);
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, vec};
    MPI_Aint sd[3] = {0, 8, 24};
    MPI_Type_create_struct(3, bl, sd, types, &st);
    MPI_Type_free(&vec);   /* the struct's contents still give a usable vector */
    show("struct", st);
    MPI_Type_free(&st);
    int sizes[2] = {4, 5}, sub[2] = {2, 3}, start[2] = {1, 1};
    MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_INT, &t); show("subarray", t); MPI_Type_free(&t);
    MPI_Type_create_resized(MPI_INT, -4, 16, &t); show("resized", t);
    MPI_Datatype d;
    MPI_Type_dup(t, &d); show("dup", d); MPI_Type_free(&d); MPI_Type_free(&t);
    MPI_Datatype f1, f2, f3, f4;
    int s1, s3, s4;
    MPI_Type_create_f90_real(3, 10, &f1); show("f90_real(3,10)", f1);
    MPI_Type_create_f90_real(3, 10, &f2);
    MPI_Type_create_f90_real(15, MPI_UNDEFINED, &f3); show("f90_real(15,undef)", f3);
    MPI_Type_create_f90_complex(MPI_UNDEFINED, 30, &f4); show("f90_complex(undef,30)", f4);
    MPI_Type_size(f1, &s1); MPI_Type_size(f3, &s3); MPI_Type_size(f4, &s4);
    printf("f90 sizes %d %d %d, same handle for the same (p,r) %d\n", s1, s3, s4, f1 == f2);
    MPI_Type_create_f90_integer(9, &f1); show("f90_integer(9)", f1);
    MPI_Type_create_f90_integer(4, &f2); MPI_Type_size(f1, &s1); MPI_Type_size(f2, &s3);
    printf("f90 integer sizes %d %d\n", s1, s3);

    /* external32: big-endian, MPI's sizes */
    unsigned char buf[256];
    MPI_Aint pos = 0, size;
    int iv[4] = {1, -2, 3, 4};
    MPI_Pack_external("external32", iv, 2, MPI_INT, buf, sizeof buf, &pos); hex("int 1 -2", buf, pos);
    double dv = 1.0;
    pos = 0; MPI_Pack_external("external32", &dv, 1, MPI_DOUBLE, buf, sizeof buf, &pos); hex("double 1.0", buf, pos);
    long lv[2] = {-3, 65537};
    MPI_Pack_external_size("external32", 2, MPI_LONG, &size);
    pos = 0; MPI_Pack_external("external32", lv, 2, MPI_LONG, buf, sizeof buf, &pos);
    printf("long size %ld ", (long)size); hex("long -3 65537", buf, pos);
    long lback[2] = {0, 0};
    MPI_Aint upos = 0;
    MPI_Unpack_external("external32", buf, pos, &upos, lback, 2, MPI_LONG);
    printf("long back %ld %ld used %ld\n", lback[0], lback[1], (long)upos);
    short sv = 0x1234;
    pos = 0; MPI_Pack_external("external32", &sv, 1, MPI_SHORT, buf, sizeof buf, &pos); hex("short 0x1234", buf, pos);
    float cv[2] = {1.0f, -2.0f};
    pos = 0; MPI_Pack_external("external32", cv, 1, MPI_C_FLOAT_COMPLEX, buf, sizeof buf, &pos); hex("complex 1-2i", buf, pos);
    MPI_Type_vector(2, 1, 2, MPI_INT, &t);
    MPI_Type_commit(&t);
    pos = 0; MPI_Pack_external("external32", iv, 1, t, buf, sizeof buf, &pos); hex("vector of 1 2 3 4", buf, pos);
    int iback[4] = {0, 0, 0, 0};
    upos = 0; MPI_Unpack_external("external32", buf, pos, &upos, iback, 1, t);
    printf("vector back %d %d %d %d\n", iback[0], iback[1], iback[2], iback[3]);
    MPI_Type_free(&t);
  }
  /* types of several basic types: MPICH 4.0.2 packs one basic type only (its
   * MPI_Pack_external_size stops the program on these), so psim alone is checked */
  if (rank == 0 && argc > 1 && strcmp(argv[1], "mixed") == 0) {
    unsigned char buf[64];
    MPI_Aint pos, size;
    MPI_Datatype t;
    struct { char c; double x; } s = {'A', 2.0};
    int sbl[2] = {1, 1};
    MPI_Aint sdp[2] = {0, 8};
    MPI_Datatype sty[2] = {MPI_CHAR, MPI_DOUBLE};
    MPI_Type_create_struct(2, sbl, sdp, sty, &t);
    MPI_Type_commit(&t);
    MPI_Pack_external_size("external32", 1, t, &size);
    pos = 0; MPI_Pack_external("external32", &s, 1, t, buf, sizeof buf, &pos);
    printf("struct size %ld ", (long)size); hex("struct A 2.0", buf, pos);
    MPI_Type_free(&t);
    struct { double v; int i; } di2 = {-1.5, 7};
    pos = 0; MPI_Pack_external("external32", &di2, 1, MPI_DOUBLE_INT, buf, sizeof buf, &pos); hex("double_int -1.5 7", buf, pos);
  }
  MPI_Finalize();
  return 0;
}
