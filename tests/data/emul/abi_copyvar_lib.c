/* A plain shared library (no MPI) with variables a program reads directly: the program's
 * copy relocations (abi_copyvar.c), as NWChem's reads of libpython3.11's PyExc_* objects.
 * cv_sum reads cv_table as the program left it (through the GOT, which the loader points at
 * the program's copy), as GSL's gsl_rng_alloc reads the gsl_rng_default_seed mpgrafic sets. */
int cv_table[3] = {7, 8, 9};
const char *cv_name = "copy";

int cv_sum(void) { return cv_table[0] + cv_table[1] + cv_table[2]; }
