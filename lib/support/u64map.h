/*
 * A hash map from 64-bit keys to 32-bit values, private to lib/: the
 * message tables of the closed-loop sources (app.c, causal.c) and of the
 * dependency inference (infer.c), keyed by (source PE, sequence).
 *
 * Open addressing with linear probing and backward-shift deletion, so
 * that a table whose entries come and go (messages in flight) never fills
 * with tombstones; it doubles at 3/4 full and never shrinks.
 */
#ifndef TWINTORUS_U64MAP_H
#define TWINTORUS_U64MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct tt_u64map {
	uint64_t *key;
	uint32_t *val;
	uint8_t *used;
	size_t cap, n;          /* cap: a power of two, or 0 */
} tt_u64map;

/* (source, sequence) as one key. */
static inline uint64_t
tt_u64map_key(uint32_t src, uint32_t seq)
{
	return (uint64_t)src << 32 | seq;
}

void tt_u64map_init(tt_u64map *m);
void tt_u64map_free(tt_u64map *m);
/* 1 and *val if key is there, else 0. */
int tt_u64map_get(const tt_u64map *m, uint64_t key, uint32_t *val);
/* Insert or replace; 0, or -1 out of memory. */
int tt_u64map_put(tt_u64map *m, uint64_t key, uint32_t val);
/* Remove key if there; 1 if it was. */
int tt_u64map_del(tt_u64map *m, uint64_t key);

#endif
