/*
 * Recording a simulation as ttd would have captured it (twintorus/record.h).
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support/errf.h"
#include "formats/trace_int.h"
#include "twintorus/frame.h"
#include "twintorus/record.h"
#include "twintorus/trace.h"

struct rrec {
	uint64_t cycle, order;  /* time, then the order records were made in */
	uint64_t bytes;
	uint32_t src, dst, seq;
	uint8_t flags;
};

struct rnode {
	tt_trace_writer *w;
	char *path;
	uint64_t offset;        /* ns added to this node's clock */
	struct rrec *heap;
	size_t n, cap;
};

struct tt_record {
	const tt_net *net;
	uint32_t pe0, pe1, node0, nnodes;
	double cycle_ns;
	struct rnode *node;     /* node0 .. node0 + nnodes - 1 */
	uint64_t *floor;        /* per PE from pe0 */
	uint64_t now, order, written;
	int failed;
	char err[512];
};

static uint64_t
mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

int
tt_record_dir_ready(const char *dir, char *err, size_t errsz)
{
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (mkdir(dir, 0777) < 0 && errno != EEXIST)
		return tt_errf(err, errsz, "%s: cannot create the directory: %s",
		    dir, strerror(errno));
	if ((d = opendir(dir)) == NULL)
		return tt_errf(err, errsz, "%s: %s", dir, strerror(errno));
	/* what a reader of the directory would take (trace_is_name()) */
	while ((de = readdir(d)) != NULL)
		if (trace_is_name(de->d_name)) {
			r = tt_errf(err, errsz, "%s already holds traces (%s); "
			    "record into an empty or new directory", dir,
			    de->d_name);
			break;
		}
	closedir(d);
	return r;
}

/* The host the nodes: map gives node, or NULL. */
static const char *
host_of(const tt_net *net, const tt_config *cfg, uint32_t node)
{
	size_t i;
	int d, c[TT_MAX_DIMS];

	if (cfg == NULL)
		return NULL;
	for (i = 0; i < cfg->nnodes; i++) {
		const tt_cfg_node *cn = &cfg->nodes[i];

		if (!cn->coord_ok || cn->host[0] == '\0')
			continue;
		for (d = 0; d < net->n; d++) {
			c[d] = cn->coord[d];
			if (c[d] < 0 || c[d] >= net->k[d])
				break;
		}
		if (d == net->n && tt_node_index(net, c) == node)
			return cn->host;
	}
	return NULL;
}

int
tt_record_open(tt_record **rp, const char *dir, const tt_net *net,
    const tt_config *cfg, uint32_t pe0, uint32_t pe1, double cycle_ns,
    uint64_t skew_ns, char *err, size_t errsz)
{
	tt_record *r;
	uint32_t i;
	char name[300];

	*rp = NULL;
	if (pe1 <= pe0 || !(cycle_ns > 0))
		return tt_errf(err, errsz, "record: bad parameters");
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return tt_errf(err, errsz, "out of memory");
	r->net = net;
	r->pe0 = pe0;
	r->pe1 = pe1;
	r->cycle_ns = cycle_ns;
	r->node0 = tt_card_node(net, pe0);
	r->nnodes = tt_card_node(net, pe1 - 1) - r->node0 + 1;
	r->node = calloc(r->nnodes, sizeof(*r->node));
	r->floor = calloc(pe1 - pe0, sizeof(*r->floor));
	if (r->node == NULL || r->floor == NULL) {
		tt_record_close(r, NULL, NULL, 0);
		return tt_errf(err, errsz, "out of memory");
	}
	for (i = 0; i < r->nnodes; i++) {
		struct rnode *nd = &r->node[i];
		const char *host = host_of(net, cfg, r->node0 + i);
		size_t len;

		/* named as ttd names it, by the rule readers read it back by */
		if (trace_pe_name(name, sizeof(name), host, r->node0 + i, err,
		    errsz) < 0) {
			tt_record_close(r, NULL, NULL, 0);
			return -1;
		}
		len = strlen(dir) + strlen(name) + 2;
		if ((nd->path = malloc(len)) == NULL) {
			tt_record_close(r, NULL, NULL, 0);
			return tt_errf(err, errsz, "out of memory");
		}
		snprintf(nd->path, len, "%s/%s", dir, name);
		nd->offset = skew_ns ? mix(r->node0 + i) % skew_ns : 0;
		if (tt_trace_create(&nd->w, nd->path, TT_TRACE_INPLACE, err,
		    errsz) < 0) {
			tt_record_close(r, NULL, NULL, 0);
			return -1;
		}
	}
	*rp = r;
	return 0;
}

uint64_t
tt_record_ns(const tt_record *r, uint32_t pe, uint64_t cycle)
{
	return TT_RECORD_EPOCH_NS + r->node[tt_card_node(r->net, pe) -
	    r->node0].offset + (uint64_t)llround((double)cycle * r->cycle_ns);
}

/*
 * Time order; in one cycle deliveries first, then the order records were
 * made in.  A program that receives a message and sends in the cycle it
 * arrived did so in that order; and the sends a program makes at one time
 * stay together, though the engine asks for them one message at a time
 * while other records of the same cycle come in.
 */
static int
rec_less(const struct rrec *a, const struct rrec *b)
{
	if (a->cycle != b->cycle)
		return a->cycle < b->cycle;
	if (a->flags != b->flags)
		return a->flags > b->flags;
	return a->order < b->order;
}

static void
heap_up(struct rnode *nd, size_t i)
{
	while (i > 0) {
		size_t p = (i - 1) / 2;
		struct rrec t;

		if (!rec_less(&nd->heap[i], &nd->heap[p]))
			break;
		t = nd->heap[i];
		nd->heap[i] = nd->heap[p];
		nd->heap[p] = t;
		i = p;
	}
}

static void
heap_pop(struct rnode *nd)
{
	size_t i = 0;

	nd->heap[0] = nd->heap[--nd->n];
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct rrec t;

		if (l < nd->n && rec_less(&nd->heap[l], &nd->heap[m]))
			m = l;
		if (l + 1 < nd->n && rec_less(&nd->heap[l + 1], &nd->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		t = nd->heap[i];
		nd->heap[i] = nd->heap[m];
		nd->heap[m] = t;
		i = m;
	}
}

static int
write_rec(tt_record *r, struct rnode *nd, const struct rrec *x)
{
	int dlv = (x->flags & TT_FRAME_F_DELIVERED) != 0;
	tt_msg m;

	memset(&m, 0, sizeof(m));
	/* a send on its source's node's clock, a delivery on its
	 * destination's */
	m.t_ns = tt_record_ns(r, dlv ? x->dst : x->src, x->cycle);
	m.src = x->src;
	m.dst = x->dst;
	m.seq = x->seq;
	m.bytes = x->bytes;
	if ((dlv ? tt_trace_write_delivery(nd->w, &m) :
	    tt_trace_write_msg(nd->w, &m)) < 0) {
		if (!r->failed)
			tt_errf(r->err, sizeof(r->err), "%s: write failed",
			    nd->path);
		r->failed = 1;
		return -1;
	}
	r->written++;
	return 0;
}

/* Write node i's records that nothing can precede any more. */
static int
flush_node(tt_record *r, uint32_t i)
{
	struct rnode *nd = &r->node[i];
	uint64_t w = r->now;
	uint32_t pe = tt_card_of(r->net, r->node0 + i, 0);
	int side, sides = r->net->twin ? 2 : 1;

	for (side = 0; side < sides; side++, pe++) {
		uint64_t f;

		if (pe < r->pe0 || pe >= r->pe1)
			continue;
		f = r->floor[pe - r->pe0];
		if (f != TT_RECORD_WAITING && f < w)
			w = f;
	}
	while (nd->n > 0 && nd->heap[0].cycle < w) {
		if (write_rec(r, nd, &nd->heap[0]) < 0)
			return -1;
		heap_pop(nd);
	}
	return 0;
}

static int
push(tt_record *r, uint32_t pe, const struct rrec *x)
{
	uint32_t i = tt_card_node(r->net, pe) - r->node0;
	struct rnode *nd = &r->node[i];

	if (nd->n == nd->cap) {
		size_t cap = nd->cap ? nd->cap * 2 : 64;
		struct rrec *g = realloc(nd->heap, cap * sizeof(*g));

		if (g == NULL) {
			if (!r->failed)
				tt_errf(r->err, sizeof(r->err), "out of memory "
				    "holding %zu records of %s", nd->n, nd->path);
			r->failed = 1;
			return -1;
		}
		nd->heap = g;
		nd->cap = cap;
	}
	nd->heap[nd->n] = *x;
	heap_up(nd, nd->n++);
	return flush_node(r, i);
}

void
tt_record_floor(tt_record *r, uint32_t pe, uint64_t floor, uint64_t now)
{
	if (now != UINT64_MAX && now > r->now)
		r->now = now;
	if (pe >= r->pe0 && pe < r->pe1)
		r->floor[pe - r->pe0] = floor;
}

int
tt_record_send(tt_record *r, uint64_t gen, uint64_t now, uint32_t src,
    uint32_t dst, uint32_t seq, uint64_t bytes)
{
	struct rrec x = {gen, r->order++, bytes, src, dst, seq, 0};

	if (r->failed)
		return -1;
	tt_record_floor(r, src, gen, now);
	return push(r, src, &x);
}

int
tt_record_deliver(tt_record *r, uint64_t at, uint32_t src, uint32_t dst,
    uint32_t seq, uint64_t bytes)
{
	struct rrec x = {at, r->order++, bytes, src, dst, seq,
	    TT_FRAME_F_DELIVERED};

	if (r->failed)
		return -1;
	if (at > r->now)
		r->now = at;
	return push(r, dst, &x);
}

int
tt_record_close(tt_record *r, uint64_t *records, char *err, size_t errsz)
{
	uint32_t i;
	int rc = 0;
	char e[512];

	if (r == NULL)
		return 0;
	for (i = 0; r->node != NULL && i < r->nnodes; i++) {
		struct rnode *nd = &r->node[i];

		while (nd->n > 0 && !r->failed) {
			if (write_rec(r, nd, &nd->heap[0]) < 0)
				break;
			heap_pop(nd);
		}
		if (nd->w != NULL && tt_trace_close(nd->w, e, sizeof(e)) < 0 &&
		    !r->failed) {
			snprintf(r->err, sizeof(r->err), "%s", e);
			r->failed = 1;
		}
		free(nd->heap);
		free(nd->path);
	}
	if (r->failed)
		rc = tt_errf(err, errsz, "%s", r->err);
	if (records != NULL)
		*records = r->written;
	free(r->node);
	free(r->floor);
	free(r);
	return rc;
}

/* ---- a recording wrapper around a packet source ---- */

static int
rsrc_next(void *ctx, uint32_t pe, uint64_t now, tt_srcpkt *pk)
{
	tt_record_src *rs = ctx;
	int x = rs->inner.next(rs->inner.ctx, pe, now, pk);

	if (x == TT_SRC_PACKET) {
		pk->tag = rs->seq[pe - rs->pe0]++;
		if (tt_record_send(rs->rec, pk->gen, now, pe, pk->dst, pk->tag,
		    rs->bytes) < 0)
			rs->failed = 1;
	} else {
		tt_record_floor(rs->rec, pe, x == TT_SRC_LATER ? pk->gen :
		    x == TT_SRC_WAIT ? now : UINT64_MAX, now);
	}
	return x;
}

int
tt_record_src_init(tt_record_src *rs, tt_record *rec, tt_source inner,
    uint32_t pe0, uint32_t pe1, uint64_t bytes)
{
	memset(rs, 0, sizeof(*rs));
	rs->rec = rec;
	rs->inner = inner;
	rs->pe0 = pe0;
	rs->pe1 = pe1;
	rs->bytes = bytes;
	rs->seq = calloc(pe1 > pe0 ? pe1 - pe0 : 1, sizeof(*rs->seq));
	return rs->seq == NULL ? -1 : 0;
}

tt_source
tt_record_src_source(tt_record_src *rs)
{
	tt_source s = {rsrc_next, rs};

	return s;
}

/* A packet is a message: its arrival is the message's.  On a partitioned
 * run the destination's rank records it (the engine calls this there
 * through on_arrive, or on_deliver when the source is its own). */
void
tt_record_src_deliver(void *ctx, const tt_delivery *d)
{
	tt_record_src *rs = ctx;

	if (d->dst < rs->pe0 || d->dst >= rs->pe1)
		return;
	if (tt_record_deliver(rs->rec, d->deliver, d->src, d->dst, d->tag,
	    rs->bytes) < 0)
		rs->failed = 1;
}

void
tt_record_src_free(tt_record_src *rs)
{
	free(rs->seq);
	rs->seq = NULL;
}
