/*
 * The 64-bit-keyed hash map of lib/support/u64map.h.
 */
#include <stdlib.h>

#include "support/u64map.h"

/* splitmix64's finaliser: keys (src << 32 | seq) differ in few bits */
static size_t
slot_of(const tt_u64map *m, uint64_t k)
{
	k ^= k >> 30;
	k *= 0xbf58476d1ce4e5b9ull;
	k ^= k >> 27;
	k *= 0x94d049bb133111ebull;
	k ^= k >> 31;
	return (size_t)k & (m->cap - 1);
}

void
tt_u64map_init(tt_u64map *m)
{
	m->key = NULL;
	m->val = NULL;
	m->used = NULL;
	m->cap = m->n = 0;
}

void
tt_u64map_free(tt_u64map *m)
{
	free(m->key);
	free(m->val);
	free(m->used);
	tt_u64map_init(m);
}

int
tt_u64map_get(const tt_u64map *m, uint64_t key, uint32_t *val)
{
	size_t i;

	if (m->n == 0)
		return 0;
	for (i = slot_of(m, key); m->used[i]; i = (i + 1) & (m->cap - 1))
		if (m->key[i] == key) {
			*val = m->val[i];
			return 1;
		}
	return 0;
}

static int
grow(tt_u64map *m)
{
	tt_u64map g;
	size_t i;

	g.cap = m->cap ? m->cap * 2 : 64;
	g.n = 0;
	g.key = malloc(g.cap * sizeof(*g.key));
	g.val = malloc(g.cap * sizeof(*g.val));
	g.used = calloc(g.cap, 1);
	if (g.key == NULL || g.val == NULL || g.used == NULL) {
		tt_u64map_free(&g);
		return -1;
	}
	for (i = 0; i < m->cap; i++)
		if (m->used[i])
			tt_u64map_put(&g, m->key[i], m->val[i]);
	tt_u64map_free(m);
	*m = g;
	return 0;
}

int
tt_u64map_put(tt_u64map *m, uint64_t key, uint32_t val)
{
	size_t i;

	if ((m->n + 1) * 4 > m->cap * 3 && grow(m) < 0)
		return -1;
	for (i = slot_of(m, key); m->used[i]; i = (i + 1) & (m->cap - 1))
		if (m->key[i] == key) {
			m->val[i] = val;
			return 0;
		}
	m->used[i] = 1;
	m->key[i] = key;
	m->val[i] = val;
	m->n++;
	return 0;
}

int
tt_u64map_del(tt_u64map *m, uint64_t key)
{
	size_t i, j, h, mask = m->cap - 1;

	if (m->n == 0)
		return 0;
	for (i = slot_of(m, key); m->used[i]; i = (i + 1) & mask)
		if (m->key[i] == key)
			break;
	if (!m->used[i])
		return 0;
	/* shift back the entries after i that probed past it */
	for (j = (i + 1) & mask; m->used[j]; j = (j + 1) & mask) {
		h = slot_of(m, m->key[j]);
		if (((j - h) & mask) >= ((j - i) & mask)) {
			m->key[i] = m->key[j];
			m->val[i] = m->val[j];
			i = j;
		}
	}
	m->used[i] = 0;
	m->n--;
	return 1;
}
