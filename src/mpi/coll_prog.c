/* Collective programs: the growable list of point-to-point operations an algorithm emits for
 * one rank, and the small helpers every algorithm shares (see coll_internal.h). */
#include <stdlib.h>

#include "mpi/coll_internal.h"

void coll_prog_reset(coll_prog *p) { p->n = 0; }

void coll_prog_free(coll_prog *p) {
  free(p->ops);
  p->ops = NULL;
  p->n = p->cap = 0;
}

void coll_emit(coll_prog *p, coll_opkind k, int peer, int tag, double bytes) {
  if (p->n == p->cap) {
    int cap = p->cap ? 2 * p->cap : 16;
    p->ops = xrealloc(p->ops, (size_t)cap * sizeof *p->ops);
    p->cap = cap;
  }
  coll_op *o = &p->ops[p->n++];
  o->kind = (uint8_t)k;
  o->user = 0;
  o->peer = peer;
  o->tag = tag;
  o->bytes = bytes < 0 ? 0 : bytes;
  o->flops = 0;
}

void coll_mark_user(coll_prog *p, int from) {
  for (int i = from < 0 ? 0 : from; i < p->n; i++)
    if (p->ops[i].kind == CO_ISEND || p->ops[i].kind == CO_SEND) p->ops[i].user = 1;
}

void coll_combine(coll_prog *p, const coll_call *c, double bytes) {
  if (c->has_op && bytes > 0) coll_emit(p, CO_COMBINE, -1, 0, bytes);
}

void coll_sendrecv(coll_prog *p, int me, int dst, double sbytes, int src, double rbytes, int tag) {
  if (dst == me && src == me) return; /* SimGrid: Datatype::copy, no message */
  coll_isend(p, dst, tag, sbytes);
  coll_irecv(p, src, tag, rbytes);
  coll_waitall(p);
}

void coll_linear_fanin(coll_prog *out, const coll_call *c, int tag, double send_bytes, double recv_bytes) {
  int n = c->size, root = c->root;
  if (n == 1) return;
  if (c->rank != root) {
    coll_isend(out, root, tag, send_bytes);
    coll_waitall(out);
    return;
  }
  for (int i = 0; i < n; i++)
    if (i != root) coll_irecv(out, i, tag, recv_bytes);
  coll_waitall(out);
}

double coll_dtsize(const coll_call *c) { return c->dtsize > 0 ? c->dtsize : 1; }

int coll_pof2_floor(int n) {
  int p = 1;
  while (p <= n / 2) p <<= 1;
  return p;
}
