/* A plain shared library (no MPI) with variables a program reads directly: the program's
 * copy relocations (abi_copyvar.c), as NWChem's reads of libpython3.11's PyExc_* objects. */
int cv_table[3] = {7, 8, 9};
const char *cv_name = "copy";
