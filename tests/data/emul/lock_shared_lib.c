/* A library with a process-wide lock, as an interpreter has (tests/data/emul/lock_shared.c). */
#include <pthread.h>

static pthread_mutex_t big_lock = PTHREAD_MUTEX_INITIALIZER;

void lib_enter(void);
void lib_leave(void);
void lib_enter(void) { pthread_mutex_lock(&big_lock); }
void lib_leave(void) { pthread_mutex_unlock(&big_lock); }
