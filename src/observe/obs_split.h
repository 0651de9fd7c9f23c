/* A rank's recorded actions cut into the report's states (obs_split.c; private to
 * src/observe/): the timeline's colours follow the time accounting's rule. */
#ifndef PSIM_OBS_SPLIT_H
#define PSIM_OBS_SPLIT_H

#include "psim/observe.h"

typedef struct obs_split obs_split;
/* One piece [start, end) of action a in state st (OBS_ST_*). */
typedef void (*obs_piece_fn)(void *ctx, const obs_act *a, double start, double end, int st);

/* Indexes rec's messages and phases per rank (rec must outlive it). */
obs_split *obs_split_new(const obs_record *rec);
void obs_split_free(obs_split *s);
/* Calls fn for each piece of action i of rank, in time order; returns the number of pieces
 * (0 for an instantaneous action or one that is no state: init, finalize, location). */
size_t obs_split_action(obs_split *s, int rank, size_t i, obs_piece_fn fn, void *ctx);

#endif
