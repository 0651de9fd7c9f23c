/* Whether a send carries data written since they last moved (network/written-*, issue 34).
 *
 * A message of data its sender has just written moves cache lines modified in the sender's
 * cache to the receiver's core, slower than the ping-pong's data, which no one writes between
 * two transfers (MPICH 4.0.2 here: up to 2.8x from 12 KB to 1 MB; docs/calibrate.md). A
 * collective's messages are such data (the MPI layer gives them the platform's written
 * factors); a point-to-point message is one when the program wrote its buffer since the last
 * send from it, which psim, running the program, can tell: a rank keeps, for the last buffers
 * it sent from (a few slots, by address), their length and a hash of their bytes. A send from
 * a buffer with the same length and bytes as last time, and no receive into it since, is data
 * at rest (the benchmarks' loops); anything else was written (an application's halo, packed
 * or computed in place). A packed non-contiguous message was written by the packing.
 * The hash costs a pass over the message, made only when the platform has written factors.
 * A program that writes the same bytes again is taken as not writing them (the lines are
 * modified all the same): the hash cannot see it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emu.h"

enum { WR_SLOTS = 16 };

typedef struct wr_slot {
  const void *p;
  size_t len;
  uint64_t h;
  int landed;   /* a receive wrote into it since */
} wr_slot;

struct emu_written { wr_slot s[WR_SLOTS]; };

/* 64 bits of the bytes, 8 at a time (a multiply-xorshift mix: one pass at several GB/s) */
static uint64_t hash_bytes(const void *p, size_t n) {
  const unsigned char *b = p;
  uint64_t h = 0x9e3779b97f4a7c15u ^ n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, b + i, 8);
    h = (h ^ w) * 0xbf58476d1ce4e5b9u;
    h ^= h >> 31;
  }
  uint64_t w = 0;
  memcpy(&w, b + i, n - i);
  h = (h ^ w) * 0x94d049bb133111ebu;
  return h ^ (h >> 29);
}

static wr_slot *slot_of(emu_rank *k, const void *p) {
  if (!k->written) k->written = xcalloc(1, sizeof *k->written);
  uint64_t a = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15u;
  return &k->written->s[a >> 60];   /* the top 4 bits: WR_SLOTS = 16 */
}

int emu_send_written(emu_rank *k, const void *data, size_t len) {
  if (!data || !len) return 0;
  wr_slot *s = slot_of(k, data);
  uint64_t h = hash_bytes(data, len);
  int same = s->p == data && s->len == len && s->h == h && !s->landed;
  *s = (wr_slot){data, len, h, 0};
  return !same;
}

void emu_recv_landed(emu_rank *k, const void *buf) {
  if (!k->written || !buf) return;
  wr_slot *s = slot_of(k, buf);
  if (s->p == buf) s->landed = 1;
}

void emu_written_free(emu_rank *k) {
  free(k->written);
  k->written = NULL;
}
