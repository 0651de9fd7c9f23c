/* Communicators and groups. A communicator is one object shared by its members (created once
 * by whichever member completes the creating collective first); its context id separates its
 * messages from every other communicator's in the MPI layer's matching. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emul/rt/rt.h"

rt_comm *rt_comm_new(rt_world *w, int size, const int *world) {
  emu_sim *S = emu_current;
  rt_comm *c = xcalloc(1, sizeof *c);
  c->id = w->next_comm_id++;
  c->size = size;
  c->world = xmalloc((size_t)(size ? size : 1) * sizeof *c->world);
  memcpy(c->world, world, (size_t)size * sizeof *world);
  c->local = xmalloc((size_t)S->np * sizeof *c->local);
  for (int i = 0; i < S->np; i++) c->local[i] = -1;
  for (int i = 0; i < size; i++) c->local[world[i]] = i;
  c->refs = size;
  c->cseq = xcalloc((size_t)(size ? size : 1), sizeof *c->cseq);
  VEC_PUSH(w->comms, c);
  c->handle = (int)w->comms.len - 1;
  return c;
}

void rt_comms_init(rt_world *w, int np) {
  VEC_PUSH(w->comms, NULL);               /* MPI_COMM_NULL */
  int *all = xmalloc((size_t)np * sizeof *all);
  for (int i = 0; i < np; i++) all[i] = i;
  w->next_comm_id = 0;
  rt_comm *world = rt_comm_new(w, np, all);   /* id 0: contexts MPI_CTX_USER/MPI_CTX_COLL */
  snprintf(world->name, sizeof world->name, "MPI_COMM_WORLD");
  VEC_PUSH(w->comms, NULL);               /* MPI_COMM_SELF: resolved per rank */
  free(all);
  VEC_PUSH(w->groups, NULL);              /* MPI_GROUP_NULL */
  rt_group *empty = xcalloc(1, sizeof *empty);
  VEC_PUSH(w->groups, empty);             /* MPI_GROUP_EMPTY */
}

/* not inlined: its return address names the MPI call (rt_live) */
__attribute__((noinline)) rt_comm *rt_comm_get(MPI_Comm h) {
  rt_live(__builtin_return_address(0));
  rt_world *w = rt_w();
  if (h == MPI_COMM_SELF) return rt_me()->self;
  if (h <= 0 || (size_t)h >= w->comms.len || !w->comms.data[h] || w->comms.data[h]->local[rt_world_rank()] < 0)
    emu_fatal("invalid communicator %d (MPI_ERR_COMM)", h);
  return w->comms.data[h];
}

int rt_comm_rank(const rt_comm *c) { return c->local[rt_world_rank()]; }

/* Under --threads a rank in its own code asking about MPI_COMM_WORLD (inside its computation,
 * often) is answered without waiting for its turn (emu_par.c): the world's ranks are the
 * ranks' ids. */
static int world_asked(MPI_Comm comm, const emu_rank **k) {
  *k = emu_running();
  return comm == MPI_COMM_WORLD && *k && (*k)->par_u && (*k)->initialized && !(*k)->finalized;
}

int MPI_Comm_rank(MPI_Comm comm, int *rank) {
  const emu_rank *k;
  if (world_asked(comm, &k)) { *rank = k->id; return MPI_SUCCESS; }
  *rank = rt_comm_rank(rt_comm_get(comm));
  return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int *size) {
  const emu_rank *k;
  if (world_asked(comm, &k)) { *size = emu_current->np; return MPI_SUCCESS; }
  *size = rt_comm_get(comm)->size;
  return MPI_SUCCESS;
}

static int handle_of(rt_comm *c) { return c == rt_me()->self ? MPI_COMM_SELF : c->handle; }

/* Creates communicators collectively: every member of c deposits (color, key); after the
 * exchange (timed as MPICH does it: an allgather of two ints), the first member to finish
 * builds every new communicator, the others find theirs in the slot. */
static MPI_Comm split(rt_comm *c, int color, int key, const char *call) {
  rt_world *w = rt_w();
  int me = rt_comm_rank(c), n = c->size;
  rt_slot *s = rt_slot_enter(c);
  int *ck = xmalloc(2 * sizeof *ck);
  ck[0] = color;
  ck[1] = key;
  s->data[me] = ck;
  s->len[me] = 2 * sizeof(int);
  coll_call call_ = {.kind = COLL_ALLGATHER, .rank = me, .size = n, .bytes = 2 * sizeof(int), .bytes2 = 2 * sizeof(int), .dtsize = 4, .commutative = 1};
  (void)call;
  rt_coll_timing(c, &call_);
  if (!s->results) {
    s->results = xcalloc((size_t)n, sizeof *s->results);
    int *done = xcalloc((size_t)n, sizeof *done);
    int *members = xmalloc((size_t)n * sizeof *members);
    for (int i = 0; i < n; i++) {
      const int *ci = s->data[i];
      if (done[i] || ci[0] == MPI_UNDEFINED) continue;
      int m = 0;
      for (int j = i; j < n; j++) {
        const int *cj = s->data[j];
        if (!done[j] && cj[0] == ci[0]) { members[m++] = j; done[j] = 1; }
      }
      /* order by key, then by old rank (insertion sort: stable) */
      for (int a = 1; a < m; a++) {
        int x = members[a], b = a - 1;
        while (b >= 0 && ((const int *)s->data[members[b]])[1] > ((const int *)s->data[x])[1]) { members[b + 1] = members[b]; b--; }
        members[b + 1] = x;
      }
      int *wr = xmalloc((size_t)m * sizeof *wr);
      for (int a = 0; a < m; a++) wr[a] = c->world[members[a]];
      rt_comm *nc = rt_comm_new(w, m, wr);
      free(wr);
      for (int a = 0; a < m; a++) s->results[members[a]] = nc;
    }
    free(done);
    free(members);
  }
  rt_comm *mine = s->results[me];
  free(s->data[me]);
  s->data[me] = NULL;
  rt_slot_leave(c, s);
  return mine ? mine->handle : MPI_COMM_NULL;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
  emu_enter("MPI_Comm_split");
  rt_comm *c = rt_comm_get(comm);
  *newcomm = split(c, color, key, "MPI_Comm_split");
  emu_leave();
  return MPI_SUCCESS;
}

MPI_Comm rt_comm_split(rt_comm *c, int color, int key) { return split(c, color, key, "MPI_Comm_split"); }

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
  emu_enter("MPI_Comm_dup");
  rt_comm *c = rt_comm_get(comm);
  *newcomm = split(c, 0, rt_comm_rank(c), "MPI_Comm_dup");
  if (*newcomm != MPI_COMM_NULL) {
    rt_topo_copy(c, rt_comm_get(*newcomm));
    rt_attr_comm_dup(comm, *newcomm);
    rt_err_comm_dup(comm, *newcomm);
  }
  emu_leave();
  return MPI_SUCCESS;
}

/* not inlined: its return address names the MPI call (rt_live) */
__attribute__((noinline)) static rt_group *group_get(MPI_Group g) {
  rt_live(__builtin_return_address(0));
  rt_world *w = rt_w();
  if (g <= 0 || (size_t)g >= w->groups.len || !w->groups.data[g]) emu_fatal("invalid group %d (MPI_ERR_GROUP)", g);
  return w->groups.data[g];
}

const rt_group *rt_group_of(MPI_Group g) { return group_get(g); }

static MPI_Group group_new(int size, const int *world) {
  rt_world *w = rt_w();
  if (size == 0) return MPI_GROUP_EMPTY;   /* MPI: an empty result is MPI_GROUP_EMPTY itself */
  rt_group *g = xcalloc(1, sizeof *g);
  g->size = size;
  g->world = xmalloc((size_t)(size ? size : 1) * sizeof *g->world);
  if (size) memcpy(g->world, world, (size_t)size * sizeof *world);
  VEC_PUSH(w->groups, g);
  return (int)w->groups.len - 1;
}

MPI_Group rt_group_new(int size, const int *world) { return group_new(size, world); }

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) {
  emu_enter("MPI_Comm_create");
  rt_comm *c = rt_comm_get(comm);
  rt_group *g = group_get(group);
  int me = rt_world_rank(), pos = -1;
  for (int i = 0; i < g->size; i++) if (g->world[i] == me) pos = i;
  /* a split where the group's members share a color and its order is the key; ranks may pass
   * different, disjoint groups (MPI 2.2): the color is the group's first member */
  *newcomm = split(c, pos >= 0 ? g->world[0] : MPI_UNDEFINED, pos, "MPI_Comm_create");
  emu_leave();
  return MPI_SUCCESS;
}

/* MPI 3.0: collective over the group's members only (the rest of comm does not take part).
 * The first member to arrive makes the communicator; the others find it by (comm, tag, same
 * members in the same order). Timed as the creation of a communicator (an allgather of two
 * ints, as split), among the members, on the new communicator itself. */
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm) {
  emu_enter("MPI_Comm_create_group");
  rt_world *w = rt_w();
  rt_comm *c = rt_comm_get(comm);
  rt_group *g = group_get(group);
  int me = rt_world_rank(), pos = -1;
  for (int i = 0; i < g->size; i++) {
    if (g->world[i] == me) pos = i;
    if (c->local[g->world[i]] < 0) emu_fatal("the group has a rank outside the communicator (MPI_ERR_GROUP)");
  }
  if (pos < 0) emu_fatal("MPI_Comm_create_group called by a rank outside the group (MPI_ERR_GROUP)");
  rt_comm *nc = NULL;
  size_t i;
  for (i = 0; i < w->pending_groups.len; i++) {
    rt_pending_group *p = &w->pending_groups.data[i];
    if (p->parent == c->id && p->tag == tag && p->comm->size == g->size &&
        !memcmp(p->comm->world, g->world, (size_t)g->size * sizeof *g->world)) { nc = p->comm; break; }
  }
  if (!nc) {
    nc = rt_comm_new(w, g->size, g->world);
    rt_pending_group p = {c->id, tag, 0, nc};
    VEC_PUSH(w->pending_groups, p);
    i = w->pending_groups.len - 1;
  }
  if (++w->pending_groups.data[i].arrived == g->size) {   /* everyone is in: forget it */
    w->pending_groups.data[i] = w->pending_groups.data[w->pending_groups.len - 1];
    w->pending_groups.len--;
  }
  coll_call x = {.kind = COLL_ALLGATHER, .rank = pos, .size = g->size, .bytes = 2 * sizeof(int), .bytes2 = 2 * sizeof(int), .dtsize = 4, .commutative = 1};
  rt_coll_timing(nc, &x);
  *newcomm = nc->handle;
  emu_leave();
  return MPI_SUCCESS;
}

int MPI_Comm_free(MPI_Comm *comm) {
  if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF) emu_fatal("cannot free a predefined communicator (MPI_ERR_COMM)");
  rt_comm_get(*comm);
  rt_attr_comm_free(*comm, "MPI_Comm_free");
  rt_err_comm_free(*comm);
  /* communicators are kept until the end: a member may still have messages in flight */
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

int MPI_Comm_compare(MPI_Comm a, MPI_Comm b, int *result) {
  rt_comm *x = rt_comm_get(a), *y = rt_comm_get(b);
  if (x == y) { *result = MPI_IDENT; return MPI_SUCCESS; }
  if (x->size != y->size) { *result = MPI_UNEQUAL; return MPI_SUCCESS; }
  int same = 1, similar = 1;
  for (int i = 0; i < x->size; i++) {
    if (x->world[i] != y->world[i]) same = 0;
    if (y->local[x->world[i]] < 0) similar = 0;
  }
  *result = same ? MPI_CONGRUENT : similar ? MPI_SIMILAR : MPI_UNEQUAL;
  return MPI_SUCCESS;
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group *group) {
  rt_comm *c = rt_comm_get(comm);
  *group = group_new(c->size, c->world);
  return MPI_SUCCESS;
}

int MPI_Comm_test_inter(MPI_Comm comm, int *flag) { *flag = rt_comm_get(comm)->inter; return MPI_SUCCESS; }

int MPI_Comm_set_name(MPI_Comm comm, const char *name) {
  snprintf(rt_comm_get(comm)->name, MPI_MAX_OBJECT_NAME, "%s", name);
  return MPI_SUCCESS;
}

int MPI_Comm_get_name(MPI_Comm comm, char *name, int *resultlen) {
  rt_comm *c = rt_comm_get(comm);
  snprintf(name, MPI_MAX_OBJECT_NAME, "%s", c->name);
  *resultlen = (int)strlen(name);
  (void)handle_of;
  return MPI_SUCCESS;
}

int MPI_Group_size(MPI_Group group, int *size) { *size = group_get(group)->size; return MPI_SUCCESS; }

int MPI_Group_rank(MPI_Group group, int *rank) {
  rt_group *g = group_get(group);
  int me = rt_world_rank();
  *rank = MPI_UNDEFINED;
  for (int i = 0; i < g->size; i++) if (g->world[i] == me) *rank = i;
  return MPI_SUCCESS;
}

static void check_rank(rt_group *g, int r) {
  if (r < 0 || r >= g->size) emu_fatal("rank %d is not in the group of size %d (MPI_ERR_RANK)", r, g->size);
}

int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup) {
  rt_group *g = group_get(group);
  int *wr = xmalloc((size_t)(n > 0 ? n : 1) * sizeof *wr);
  for (int i = 0; i < n; i++) { check_rank(g, ranks[i]); wr[i] = g->world[ranks[i]]; }
  *newgroup = group_new(n, wr);
  free(wr);
  return MPI_SUCCESS;
}

int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup) {
  rt_group *g = group_get(group);
  int *keep = xmalloc((size_t)(g->size ? g->size : 1) * sizeof *keep);
  int m = 0;
  for (int i = 0; i < g->size; i++) {
    int out = 0;
    for (int j = 0; j < n; j++) if (ranks[j] == i) out = 1;
    if (!out) keep[m++] = g->world[i];
  }
  *newgroup = group_new(m, keep);
  free(keep);
  return MPI_SUCCESS;
}

static int range_list(rt_group *g, int n, int ranges[][3], int *out) {
  int m = 0;
  for (int i = 0; i < n; i++) {
    int a = ranges[i][0], b = ranges[i][1], s = ranges[i][2];
    if (s == 0) emu_fatal("range stride 0 (MPI_ERR_ARG)");
    for (int r = a; s > 0 ? r <= b : r >= b; r += s) { check_rank(g, r); if (out) out[m] = r; m++; }
  }
  return m;
}

int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup) {
  rt_group *g = group_get(group);
  int m = range_list(g, n, ranges, NULL);
  int *r = xmalloc((size_t)(m ? m : 1) * sizeof *r);
  range_list(g, n, ranges, r);
  int res = MPI_Group_incl(group, m, r, newgroup);
  free(r);
  return res;
}

int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup) {
  rt_group *g = group_get(group);
  int m = range_list(g, n, ranges, NULL);
  int *r = xmalloc((size_t)(m ? m : 1) * sizeof *r);
  range_list(g, n, ranges, r);
  int res = MPI_Group_excl(group, m, r, newgroup);
  free(r);
  return res;
}

static int in_group(const rt_group *g, int w) {
  for (int i = 0; i < g->size; i++) if (g->world[i] == w) return 1;
  return 0;
}

static int set_op(MPI_Group a, MPI_Group b, int kind, MPI_Group *out) {
  rt_group *x = group_get(a), *y = group_get(b);
  int *r = xmalloc((size_t)(x->size + y->size + 1) * sizeof *r);
  int m = 0;
  for (int i = 0; i < x->size; i++) {
    int in = in_group(y, x->world[i]);
    if (kind == 0 || (kind == 1 && in) || (kind == 2 && !in)) r[m++] = x->world[i];
  }
  if (kind == 0)
    for (int i = 0; i < y->size; i++) if (!in_group(x, y->world[i])) r[m++] = y->world[i];
  *out = group_new(m, r);
  free(r);
  return MPI_SUCCESS;
}

int MPI_Group_union(MPI_Group a, MPI_Group b, MPI_Group *g) { return set_op(a, b, 0, g); }
int MPI_Group_intersection(MPI_Group a, MPI_Group b, MPI_Group *g) { return set_op(a, b, 1, g); }
int MPI_Group_difference(MPI_Group a, MPI_Group b, MPI_Group *g) { return set_op(a, b, 2, g); }

int MPI_Group_translate_ranks(MPI_Group g1, int n, const int ranks1[], MPI_Group g2, int ranks2[]) {
  rt_group *x = group_get(g1), *y = group_get(g2);
  for (int i = 0; i < n; i++) {
    if (ranks1[i] == MPI_PROC_NULL) { ranks2[i] = MPI_PROC_NULL; continue; }
    check_rank(x, ranks1[i]);
    ranks2[i] = MPI_UNDEFINED;
    for (int j = 0; j < y->size; j++) if (y->world[j] == x->world[ranks1[i]]) ranks2[i] = j;
  }
  return MPI_SUCCESS;
}

int MPI_Group_compare(MPI_Group a, MPI_Group b, int *result) {
  rt_group *x = group_get(a), *y = group_get(b);
  if (x->size != y->size) { *result = MPI_UNEQUAL; return MPI_SUCCESS; }
  int same = 1, similar = 1;
  for (int i = 0; i < x->size; i++) {
    if (x->world[i] != y->world[i]) same = 0;
    if (!in_group(y, x->world[i])) similar = 0;
  }
  *result = same ? MPI_IDENT : similar ? MPI_SIMILAR : MPI_UNEQUAL;
  return MPI_SUCCESS;
}

int MPI_Group_free(MPI_Group *group) {
  if (*group != MPI_GROUP_EMPTY) group_get(*group);
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}
