/* Fixed-size object allocator (see include/psim/util.h). */
#include <stdlib.h>

#include "psim/util.h"

void psim_slab_init(psim_slab *s, size_t size) {
  /* Multiples of 8 bytes: the objects (activities, requests, star flows) hold doubles,
   * 64-bit integers and pointers, nothing aligned on 16; the chunks are malloc'ed. Rounding
   * to 16 gave a request 144 bytes for 136 and an event 96 for 88 (issue 38). */
  s->size = size < sizeof(void *) ? sizeof(void *) : (size + 7) & ~(size_t)7;
  s->per_chunk = 4096;
  s->used = s->per_chunk;   /* no chunk yet */
  s->free = NULL;
  s->owner = NULL;
  s->chunks.data = NULL;
  s->chunks.len = s->chunks.cap = 0;
}

/* Objects start after the chunk's first word (the owner); objects need 8-byte alignment. */
enum { OWNED_HEAD = sizeof(void *) };

void psim_slab_init_owned(psim_slab *s, size_t size, void *owner) {
  psim_slab_init(s, size);
  s->owner = owner;
  s->per_chunk = (PSIM_SLAB_OWNED_CHUNK - OWNED_HEAD) / s->size;
  s->used = s->per_chunk;
}

static char *owned_chunk(const psim_slab *s) {
  char *c = xaligned_alloc(PSIM_SLAB_OWNED_CHUNK, PSIM_SLAB_OWNED_CHUNK);
  *(void **)c = s->owner;
  return c;
}

void *psim_slab_alloc(psim_slab *s) {
  if (s->free) {
    void *p = s->free;
    s->free = *(void **)p;
    return p;
  }
  if (s->used == s->per_chunk) {
    VEC_PUSH(s->chunks, s->owner ? owned_chunk(s) : xmalloc(s->size * s->per_chunk));
    s->used = 0;
  }
  return s->chunks.data[s->chunks.len - 1] + (s->owner ? OWNED_HEAD : 0) + s->size * s->used++;
}

void psim_slab_free(psim_slab *s, void *p) {
  *(void **)p = s->free;
  s->free = p;
}

void psim_slab_destroy(psim_slab *s) {
  for (size_t i = 0; i < s->chunks.len; i++) free(s->chunks.data[i]);
  VEC_FREE(s->chunks);
  s->free = NULL;
  s->used = s->per_chunk;
}
