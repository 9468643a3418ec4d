/*
 * What a trace holds, counted (twintorus/trace.h, "counting"): messages
 * per PE and per source x destination pair, and the addresses of plain
 * frames.  Everything is keyed by hash, so that memory follows what the
 * trace holds, never the value of an id: one record naming PE 2^31 costs
 * one entry, not an array of 2^31.
 */
#include <arpa/inet.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "twintorus/trace.h"

#define EMPTY UINT32_MAX

/*
 * Entries of esz bytes in one array, each starting with its key of ksz
 * bytes, found through an open-addressing table of their indexes (linear
 * probing, at most half full).
 */
struct tmap {
	unsigned char *e;
	size_t esz, ksz, n, cap;
	uint32_t *slot;
	size_t nslot;           /* a power of 2, or 0 */
};

struct tt_tally {
	struct tmap pe, pair, addr;
	tt_tally_pe *pe_sorted;
	tt_tally_pair *pair_sorted;
	tt_tally_addr *addr_sorted;
	uint64_t frames;
};

/* FNV-1a over the key, then a final mix: keys differ in few bits. */
static uint64_t
key_hash(const unsigned char *k, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= k[i];
		h *= 0x100000001b3ull;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

static size_t
tmap_find_slot(const struct tmap *m, const void *key)
{
	size_t i = (size_t)key_hash(key, m->ksz) & (m->nslot - 1);

	while (m->slot[i] != EMPTY &&
	    memcmp(m->e + (size_t)m->slot[i] * m->esz, key, m->ksz) != 0)
		i = (i + 1) & (m->nslot - 1);
	return i;
}

static int
tmap_grow(struct tmap *m)
{
	size_t nslot = m->nslot ? m->nslot * 2 : 256, i, j;
	uint32_t *slot;

	if (nslot / 2 > EMPTY)
		return -1;
	slot = malloc(nslot * sizeof(*slot));
	if (slot == NULL)
		return -1;
	for (i = 0; i < nslot; i++)
		slot[i] = EMPTY;
	free(m->slot);
	m->slot = slot;
	m->nslot = nslot;
	for (i = 0; i < m->n; i++) {
		j = tmap_find_slot(m, m->e + i * m->esz);
		m->slot[j] = (uint32_t)i;
	}
	return 0;
}

/* The entry of key, added (zeroed, with its key) if new; NULL when out of
 * memory. */
static void *
tmap_get(struct tmap *m, const void *key)
{
	unsigned char *e;
	size_t i;

	if (2 * (m->n + 1) > m->nslot && tmap_grow(m) < 0)
		return NULL;
	i = tmap_find_slot(m, key);
	if (m->slot[i] != EMPTY)
		return m->e + (size_t)m->slot[i] * m->esz;
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;

		e = realloc(m->e, cap * m->esz);
		if (e == NULL)
			return NULL;
		m->e = e;
		m->cap = cap;
	}
	e = m->e + m->n * m->esz;
	memset(e, 0, m->esz);
	memcpy(e, key, m->ksz);
	m->slot[i] = (uint32_t)m->n++;
	return e;
}

static void
tmap_free(struct tmap *m)
{
	free(m->e);
	free(m->slot);
	memset(m, 0, sizeof(*m));
}

/* A sorted copy of the entries, owned by *keep (freed on the next call). */
static void *
tmap_sorted(const struct tmap *m, void **keep,
    int (*cmp)(const void *, const void *))
{
	free(*keep);
	*keep = malloc(m->n ? m->n * m->esz : 1);
	if (*keep == NULL)
		return NULL;
	if (m->n > 0) {
		memcpy(*keep, m->e, m->n * m->esz);
		qsort(*keep, m->n, m->esz, cmp);
	}
	return *keep;
}

int
tt_tally_create(tt_tally **tp)
{
	tt_tally *t = calloc(1, sizeof(*t));

	*tp = t;
	if (t == NULL)
		return -1;
	t->pe.esz = sizeof(tt_tally_pe);
	t->pe.ksz = sizeof(uint32_t);
	t->pair.esz = sizeof(tt_tally_pair);
	t->pair.ksz = 2 * sizeof(uint32_t);
	t->addr.esz = sizeof(tt_tally_addr);
	t->addr.ksz = offsetof(tt_tally_addr, sent_frames);
	return 0;
}

void
tt_tally_free(tt_tally *t)
{
	if (t == NULL)
		return;
	tmap_free(&t->pe);
	tmap_free(&t->pair);
	tmap_free(&t->addr);
	free(t->pe_sorted);
	free(t->pair_sorted);
	free(t->addr_sorted);
	free(t);
}

int
tt_tally_msg(tt_tally *t, const tt_msg *m)
{
	tt_tally_pe *s, *d;
	tt_tally_pair *p;
	uint32_t key[2] = {m->src, m->dst};

	if ((s = tmap_get(&t->pe, &m->src)) == NULL)
		return -1;
	s->sent_messages++;
	s->sent_bytes += m->bytes;
	if ((d = tmap_get(&t->pe, &m->dst)) == NULL)
		return -1;
	d->received_messages++;
	d->received_bytes += m->bytes;
	if ((p = tmap_get(&t->pair, key)) == NULL)
		return -1;
	p->messages++;
	p->bytes += m->bytes;
	return 0;
}

/* One address of a frame: as source (dir 0) or destination (1). */
static int
tally_addr(tt_tally *t, int kind, const uint8_t *bytes, int dir,
    uint64_t wire)
{
	tt_tally_addr key, *a;
	size_t len = kind == TT_ADDR_IPV6 ? 16 : kind == TT_ADDR_IPV4 ? 4 : 6;

	memset(&key, 0, sizeof(key));
	key.kind = kind;
	memcpy(key.bytes, bytes, len);
	if ((a = tmap_get(&t->addr, &key)) == NULL)
		return -1;
	if (dir == 0) {
		a->sent_frames++;
		a->sent_bytes += wire;
	} else {
		a->received_frames++;
		a->received_bytes += wire;
	}
	return 0;
}

int
tt_tally_frame(tt_tally *t, const tt_trace_rec *rec, const tt_frame *f)
{
	size_t off = TT_ETH_HLEN + (f->tagged ? TT_VLAN_HLEN : 0);
	const uint8_t *p = rec->data + off;
	size_t left = rec->caplen > off ? rec->caplen - off : 0;
	int r = 0;

	t->frames++;
	r |= tally_addr(t, TT_ADDR_MAC, f->src_mac, 0, rec->wirelen);
	r |= tally_addr(t, TT_ADDR_MAC, f->dst_mac, 1, rec->wirelen);
	/* IP addresses when the capture kept the whole IP header */
	if (f->ethertype == 0x0800 && left >= 20 && p[0] >> 4 == 4) {
		r |= tally_addr(t, TT_ADDR_IPV4, p + 12, 0, rec->wirelen);
		r |= tally_addr(t, TT_ADDR_IPV4, p + 16, 1, rec->wirelen);
	} else if (f->ethertype == 0x86DD && left >= 40 && p[0] >> 4 == 6) {
		r |= tally_addr(t, TT_ADDR_IPV6, p + 8, 0, rec->wirelen);
		r |= tally_addr(t, TT_ADDR_IPV6, p + 24, 1, rec->wirelen);
	}
	return r;
}

static int
pe_by_id(const void *a, const void *b)
{
	const tt_tally_pe *x = a, *y = b;

	return x->pe < y->pe ? -1 : x->pe > y->pe;
}

static int
pair_by_bytes(const void *a, const void *b)
{
	const tt_tally_pair *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->dst < y->dst ? -1 : x->dst > y->dst;
}

static int
kind_rank(int kind)
{
	return kind == TT_ADDR_IPV4 ? 0 : kind == TT_ADDR_IPV6 ? 1 : 2;
}

static int
addr_by_frames(const void *a, const void *b)
{
	const tt_tally_addr *x = a, *y = b;
	uint64_t fx = x->sent_frames + x->received_frames;
	uint64_t fy = y->sent_frames + y->received_frames;

	if (fx != fy)
		return fx < fy ? 1 : -1;
	if (x->kind != y->kind)
		return kind_rank(x->kind) - kind_rank(y->kind);
	return memcmp(x->bytes, y->bytes, sizeof(x->bytes));
}

const tt_tally_pe *
tt_tally_pes(tt_tally *t, size_t *n)
{
	*n = t->pe.n;
	return tmap_sorted(&t->pe, (void **)&t->pe_sorted, pe_by_id);
}

const tt_tally_pair *
tt_tally_pairs(tt_tally *t, size_t *n)
{
	*n = t->pair.n;
	return tmap_sorted(&t->pair, (void **)&t->pair_sorted, pair_by_bytes);
}

const tt_tally_addr *
tt_tally_addrs(tt_tally *t, size_t *n)
{
	*n = t->addr.n;
	return tmap_sorted(&t->addr, (void **)&t->addr_sorted, addr_by_frames);
}

uint64_t
tt_tally_frames(const tt_tally *t)
{
	return t->frames;
}

const char *
tt_addr_text(int kind, const uint8_t *b, char *buf, size_t bufsz)
{
	if (kind == TT_ADDR_IPV4 || kind == TT_ADDR_IPV6) {
		if (inet_ntop(kind == TT_ADDR_IPV4 ? AF_INET : AF_INET6, b, buf,
		    (socklen_t)bufsz) == NULL && bufsz > 0)
			buf[0] = '\0';
	} else {
		snprintf(buf, bufsz, "%02x:%02x:%02x:%02x:%02x:%02x", b[0],
		    b[1], b[2], b[3], b[4], b[5]);
	}
	return buf;
}
