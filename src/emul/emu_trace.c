/* --trace-tit DIR: records the run as a time-independent trace that psim replay replays to the
 * same simulated time (not implemented yet: the hooks are in place). */
#include <stdio.h>

#include "emul/emu.h"

void emu_trace_open(emu_sim *S);
void emu_trace_close(emu_sim *S);
void emu_trace_compute(emu_rank *k, double flops);

void emu_trace_open(emu_sim *S) { (void)S; }
void emu_trace_close(emu_sim *S) { (void)S; }
void emu_trace_compute(emu_rank *k, double flops) { (void)k; (void)flops; }
