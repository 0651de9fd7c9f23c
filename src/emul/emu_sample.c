/* PSIM_SAMPLE and PSIM_TASK bookkeeping (per rank). */
#include <stdlib.h>

#include "emul/emu.h"

void emu_tasks_finish(emu_sim *S);
int emu_tasks_load(emu_sim *S, psim_err *err);

void emu_sample_free(emu_rank *k) { free(k->sample); k->sample = NULL; }
void emu_tasks_finish(emu_sim *S) { (void)S; }
int emu_tasks_load(emu_sim *S, psim_err *err) { (void)S; (void)err; return 0; }
