/* The source file of each recorded action (obs_record.c). obs_act has room only for a line:
 * a rank's actions usually come from one file (a trace file: obs_record.file), but a psim run
 * program's MPI calls are in as many source files as the program has, so the record keeps,
 * beside its public part, a table of the files met and, per rank whose actions came from
 * more than one, each action's index in it. */
#ifndef PSIM_OBS_RECORD_SRC_H
#define PSIM_OBS_RECORD_SRC_H

#include <stddef.h>

#include "psim/observe.h"

/* obs_act.line of an action whose place is known without a line (a precompiled program's
 * call site as FUNCTION+0xOFFSET (BINARY), psim run): it has a file, shown alone. */
#define OBS_LINE_NONE 0xFFFFFFFFu
/* An action's line for display, 0 when it has none. */
static inline unsigned obs_act_line(const obs_act *a) { return a->line == OBS_LINE_NONE ? 0 : a->line; }

/* The file action i of rank came from (NULL when unknown). */
const char *obs_record_act_file(const obs_record *r, int rank, size_t i);
/* A number that is the same for two actions exactly when their files are (0: the rank's
 * first file or none), for grouping by source line. */
unsigned obs_record_act_file_id(const obs_record *r, int rank, size_t i);
/* Whether every action of rank came from rec->file[rank] (or from no file). */
int obs_record_one_file(const obs_record *r, int rank);

#endif
