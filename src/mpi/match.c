/* Hashed MPI matching queues (see match.h). */
#include <stdlib.h>
#include <string.h>

#include "mpi/match.h"

/* A bucket's kind is its requests' (POSTED: receives, UNEXP: sends): mpi_req.is_send. */
enum { POSTED = 0, UNEXP = 1 };

/* A slot is one pointer: the newest request of its bucket, whose requests are a circular list
 * through mpi_req.next (the tail's next is the oldest). The bucket's key is read from that
 * request (every request of a bucket has its key: rank = dst, src, tag, ctx, kind), so a
 * slot takes 8 bytes, not the 32 of a key with head and tail pointers (issue 38: a stencil's
 * rank holds 8 slots at the load of 1/2 while its receives are posted). */
typedef mpi_req *slot;

/* A rank's queued requests in posting order: a list through mpi_req.onext (NULL after the
 * newest) whose oldest request's oprev is the newest (issue 38: one pointer a list, not a
 * head and a tail: 16 bytes a rank). */
typedef struct order { mpi_req *head; } order;

typedef struct rank_lists {
  order posted, unexp;      /* every queued request, in posting order */
} rank_lists;

/* A rank's posted receives with a wildcard (psim run's programs only: a trace names both). */
typedef struct wild_list { mpi_req *head, *tail; } wild_list;

struct match_index {
  slot *slots;
  size_t cap, n;
  rank_lists *ranks;
  wild_list *wild;          /* per rank, allocated at the first wildcard receive, else NULL */
  int nranks;
  uint64_t seq;
};

static uint64_t hash(int32_t rank, int32_t src, int32_t tag, int32_t ctx, uint8_t which) {
  uint64_t h = (uint64_t)(uint32_t)rank * 0x9E3779B97F4A7C15ULL;
  h ^= ((uint64_t)(uint32_t)src << 21) ^ ((uint64_t)(uint32_t)tag << 7) ^ ((uint64_t)(uint32_t)ctx << 1) ^ which;
  h *= 0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 29);
}

static uint64_t slot_hash(const mpi_req *t) { return hash(t->dst, t->src, t->tag, t->ctx, (uint8_t)t->is_send); }

match_index *match_new(int nranks) {
  match_index *m = xcalloc(1, sizeof *m);
  m->cap = 1024;
  m->slots = xcalloc(m->cap, sizeof *m->slots);
  m->ranks = xcalloc((size_t)nranks, sizeof *m->ranks);
  m->nranks = nranks;
  return m;
}

void match_free(match_index *m) {
  if (!m) return;
  free(m->slots);
  free(m->ranks);
  free(m->wild);
  free(m);
}

static size_t find_slot(const match_index *m, int32_t rank, int32_t src, int32_t tag, int32_t ctx, uint8_t which) {
  size_t mask = m->cap - 1, i = (size_t)hash(rank, src, tag, ctx, which) & mask;
  for (;;) {
    const mpi_req *t = m->slots[i];
    if (!t || (t->dst == rank && t->src == src && t->tag == tag && t->ctx == ctx && t->is_send == which))
      return i;
    i = (i + 1) & mask;
  }
}

static void grow(match_index *m) {
  slot *old = m->slots;
  size_t oldcap = m->cap;
  m->cap *= 2;
  m->slots = xcalloc(m->cap, sizeof *m->slots);
  for (size_t i = 0; i < oldcap; i++) {
    mpi_req *t = old[i];
    if (!t) continue;
    m->slots[find_slot(m, t->dst, t->src, t->tag, t->ctx, (uint8_t)t->is_send)] = t;
  }
  free(old);
}

/* Removes slot i keeping linear probing intact (backward-shift deletion). */
static void delete_slot(match_index *m, size_t i) {
  size_t mask = m->cap - 1, j = i;
  for (;;) {
    j = (j + 1) & mask;
    mpi_req *t = m->slots[j];
    if (!t) break;
    size_t home = (size_t)slot_hash(t) & mask;
    /* t may move to i if its home is not in the cyclic range (i, j] */
    if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
      m->slots[i] = t;
      i = j;
    }
  }
  m->slots[i] = NULL;
  m->n--;
}

static void order_push(order *o, mpi_req *r) {
  r->onext = NULL;
  mpi_req *h = o->head;
  if (!h) { o->head = r; r->oprev = r; return; }
  r->oprev = h->oprev;   /* the newest so far */
  h->oprev->onext = r;
  h->oprev = r;
}

static void order_remove(order *o, mpi_req *r) {
  mpi_req *h = o->head;
  if (r == h) {
    o->head = r->onext;
    if (r->onext) r->onext->oprev = r->oprev;   /* the newest */
  } else {
    r->oprev->onext = r->onext;
    if (r->onext) r->onext->oprev = r->oprev;
    else h->oprev = r->oprev;   /* r was the newest */
  }
  r->oprev = r->onext = NULL;
}

/* r (whose dst is the bucket's rank and is_send its kind) goes last in its bucket. */
static void bucket_push(match_index *m, mpi_req *r) {
  if ((m->n + 1) * 2 > m->cap) grow(m);
  size_t i = find_slot(m, r->dst, r->src, r->tag, r->ctx, (uint8_t)r->is_send);
  mpi_req *t = m->slots[i];
  if (!t) {
    r->next = r;
    m->n++;
  } else {
    r->next = t->next;
    t->next = r;
  }
  m->slots[i] = r;
}

/* The oldest request of a bucket (removed when take), or NULL when the bucket does not exist. */
static mpi_req *bucket_pop(match_index *m, int32_t rank, int32_t src, int32_t tag, int32_t ctx, uint8_t which, int take) {
  size_t i = find_slot(m, rank, src, tag, ctx, which);
  mpi_req *t = m->slots[i];
  if (!t) return NULL;
  mpi_req *r = t->next;
  if (!take) return r;
  if (r == t) delete_slot(m, i);
  else t->next = r->next;
  r->next = NULL;
  return r;
}

void match_post_recv(match_index *m, mpi_req *recv) {
  rank_lists *L = &m->ranks[recv->dst];
  recv->seq = ++m->seq;
  order_push(&L->posted, recv);
  if (recv->src == MPI_L_ANY || recv->tag == MPI_L_ANY) {
    if (!m->wild) m->wild = xcalloc((size_t)m->nranks, sizeof *m->wild);
    wild_list *W = &m->wild[recv->dst];
    recv->next = NULL;
    if (W->tail) W->tail->next = recv; else W->head = recv;
    W->tail = recv;
  } else {
    bucket_push(m, recv);
  }
}

void match_post_send(match_index *m, mpi_req *send) {
  send->seq = ++m->seq;
  order_push(&m->ranks[send->dst].unexp, send);
  bucket_push(m, send);
}

static int matches(const mpi_req *recv, const mpi_req *send) {
  return recv->ctx == send->ctx && (recv->src == MPI_L_ANY || recv->src == send->src) &&
         (recv->tag == MPI_L_ANY || recv->tag == send->tag);
}

mpi_req *match_take_recv(match_index *m, const mpi_req *send) {
  rank_lists *L = &m->ranks[send->dst];
  wild_list *W = m->wild ? &m->wild[send->dst] : NULL;
  if (!W || !W->head) { /* no wildcard receive: the exact bucket's head, in one lookup */
    mpi_req *r = bucket_pop(m, send->dst, send->src, send->tag, send->ctx, POSTED, 1);
    if (r) order_remove(&L->posted, r);
    return r;
  }
  mpi_req *exact = bucket_pop(m, send->dst, send->src, send->tag, send->ctx, POSTED, 0);
  mpi_req *wild = NULL, *wprev = NULL;
  for (mpi_req *r = W->head, *p = NULL; r; p = r, r = r->next)
    if (matches(r, send)) { wild = r; wprev = p; break; }
  if (wild && (!exact || match_posted_before(wild, exact))) {
    if (wprev) wprev->next = wild->next; else W->head = wild->next;
    if (W->tail == wild) W->tail = wprev;
    wild->next = NULL;
    order_remove(&L->posted, wild);
    return wild;
  }
  if (!exact) return NULL;
  bucket_pop(m, send->dst, send->src, send->tag, send->ctx, POSTED, 1);
  order_remove(&L->posted, exact);
  return exact;
}

mpi_req *match_find_send(match_index *m, int dst, int src, int tag, int ctx, int take) {
  rank_lists *L = &m->ranks[dst];
  mpi_req *r = NULL;
  if (src != MPI_L_ANY && tag != MPI_L_ANY) {
    r = bucket_pop(m, dst, src, tag, ctx, UNEXP, take);
  } else {
    mpi_req probe = {0};
    probe.src = src;
    probe.tag = tag;
    probe.ctx = ctx;
    for (mpi_req *s = L->unexp.head; s; s = s->onext)
      if (matches(&probe, s)) { r = s; break; }
    if (r && take) {
      /* it is the head of its bucket: the oldest of its key */
      bucket_pop(m, dst, r->src, r->tag, r->ctx, UNEXP, 1);
    }
  }
  if (r && take) order_remove(&L->unexp, r);
  return r;
}

int match_remove_recv(match_index *m, mpi_req *recv) {
  rank_lists *L = &m->ranks[recv->dst];
  if (recv->src == MPI_L_ANY || recv->tag == MPI_L_ANY) {
    if (!m->wild) return 0;
    wild_list *W = &m->wild[recv->dst];
    mpi_req *p = NULL, *r = W->head;
    while (r && r != recv) { p = r; r = r->next; }
    if (!r) return 0;
    if (p) p->next = r->next; else W->head = r->next;
    if (W->tail == r) W->tail = p;
  } else {
    size_t i = find_slot(m, recv->dst, recv->src, recv->tag, recv->ctx, POSTED);
    mpi_req *t = m->slots[i];
    if (!t) return 0;
    mpi_req *p = t;   /* recv's predecessor in the circular list */
    while (p->next != recv) {
      p = p->next;
      if (p == t) return 0;
    }
    if (recv->next == recv) {
      delete_slot(m, i);
    } else {
      p->next = recv->next;
      if (recv == t) m->slots[i] = p;
    }
  }
  recv->next = NULL;
  order_remove(&L->posted, recv);
  return 1;
}

mpi_req *match_posted(const match_index *m, int rank) { return m->ranks[rank].posted.head; }

