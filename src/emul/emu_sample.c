/* PSIM_TASK cost files (--measure-tasks / --task-costs): not implemented yet; the hooks are
 * in place. PSIM_SAMPLE lives in the runtime (src/emul/rt/rt_sample.c). */
#include "emul/emu.h"

void emu_tasks_finish(emu_sim *S);
int emu_tasks_load(emu_sim *S, psim_err *err);

void emu_tasks_finish(emu_sim *S) { (void)S; }
int emu_tasks_load(emu_sim *S, psim_err *err) { (void)S; (void)err; return 0; }
