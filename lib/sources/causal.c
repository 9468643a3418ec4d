/*
 * Causal replay (twintorus/causal.h): a packet source that releases each
 * message when what enabled it has arrived.
 *
 * Two kinds of records, both from the lines read: a send (this process's
 * PE sends it; it waits in the PE's queue, in order) and an arrival (this
 * process's PE receives it; its packets are counted here, keyed by
 * (source, sequence), and when the last arrives it satisfies the send that
 * claimed it as a predecessor, or waits for one to).  Both live in pools
 * that grow to the most held at once and are reused.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "support/errf.h"
#include "engine/sim_part.h"
#include "twintorus/causal.h"
#include "support/u64map.h"

#define NONE     UINT32_MAX
#define MAX_WARN 8
/* The latest cycle a release may fall on: far from the 2^64 at which the
 * engine's cycle counts wrap (gaps of a day each take thousands of
 * messages in a row to reach it). */
#define MAX_CYCLE (UINT64_C(1) << 62)

struct csend {
	uint64_t bytes, gap, t_ns, max_arr;
	uint64_t cp_pred;       /* compute on the latest arrival's path */
	uint32_t dst, seq, npred, waiting, next;
};

struct carr {
	uint64_t done_at, gen, bytes, t_ns;
	uint64_t cp;            /* compute on its release's critical path */
	uint64_t npk, got;      /* packets: 2^32 for 4 GiB in bytes */
	uint32_t src, dst, seq, claimer, npred;
	uint8_t arrived, used;
	uint32_t next;          /* free list */
};

struct cpe {
	uint32_t head, tail;    /* sends queued */
	uint64_t cur_left;      /* packets of the message being sent */
	uint32_t cur_dst, cur_seq;
	uint32_t cur_last;      /* flits of its last packet (0: full) */
	uint64_t last_rel;
	uint64_t cp_last;       /* compute on its last release's path */
	uint8_t has_sent, waiting;
};

struct tt_causal {
	tt_dep_stream in;
	tt_sim *sim;
	uint32_t npes, pe0, pe1;
	uint64_t pkt_bytes;
	int packet_flits, flit_bytes;
	double cycle_ns;
	struct cpe *pe;
	struct csend *s;
	uint32_t ns, scap, sfree;
	struct carr *a;
	uint32_t na, acap, afree;
	tt_u64map arr;          /* (src, seq) -> arrival */
	uint64_t held;
	int eof, failed;
	char err[512];
	char warn[MAX_WARN][200];
	int nwarn;
	void (*on_msg)(void *, const tt_causal_msg *);
	void *msg_ctx;
	tt_causal_result res;
};

static void
warn(tt_causal *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
warn(tt_causal *c, const char *fmt, ...)
{
	va_list ap;

	c->res.ignored++;
	if (c->nwarn == MAX_WARN)
		return;
	va_start(ap, fmt);
	vsnprintf(c->warn[c->nwarn++], sizeof(c->warn[0]), fmt, ap);
	va_end(ap);
}

static void
fail(tt_causal *c, const char *msg)
{
	if (!c->failed)
		snprintf(c->err, sizeof(c->err), "%s", msg);
	c->failed = 1;
}

static void
held(tt_causal *c, int d)
{
	c->held += (uint64_t)(int64_t)d;
	if (c->held > c->res.rr.max_pending)
		c->res.rr.max_pending = c->held;
}

static uint32_t
send_new(tt_causal *c)
{
	uint32_t i;

	if (c->sfree != NONE) {
		i = c->sfree;
		c->sfree = c->s[i].next;
	} else {
		if (c->ns == c->scap) {
			uint32_t cap = c->scap ? c->scap * 2 : 1024;
			struct csend *g = realloc(c->s, cap * sizeof(*g));

			if (g == NULL)
				return NONE;
			c->s = g;
			c->scap = cap;
		}
		i = c->ns++;
	}
	memset(&c->s[i], 0, sizeof(c->s[i]));
	c->s[i].next = NONE;
	held(c, 1);
	return i;
}

static void
send_free(tt_causal *c, uint32_t i)
{
	c->s[i].next = c->sfree;
	c->sfree = i;
	held(c, -1);
}

static uint32_t
arr_new(tt_causal *c)
{
	uint32_t i;

	if (c->afree != NONE) {
		i = c->afree;
		c->afree = c->a[i].next;
	} else {
		if (c->na == c->acap) {
			uint32_t cap = c->acap ? c->acap * 2 : 1024;
			struct carr *g = realloc(c->a, cap * sizeof(*g));

			if (g == NULL)
				return NONE;
			c->a = g;
			c->acap = cap;
		}
		i = c->na++;
	}
	memset(&c->a[i], 0, sizeof(c->a[i]));
	c->a[i].claimer = NONE;
	c->a[i].used = 1;
	held(c, 1);
	return i;
}

static void
arr_free(tt_causal *c, uint32_t i)
{
	tt_u64map_del(&c->arr, tt_u64map_key(c->a[i].src, c->a[i].seq));
	c->a[i].used = 0;
	c->a[i].next = c->afree;
	c->afree = i;
	held(c, -1);
}

/* The packets of a message of bytes (one for none), in 64 bits: bytes
 * may be 4 GiB and a packet one byte. */
static uint64_t
packets_of(const tt_causal *c, uint64_t bytes)
{
	if (bytes == 0)
		return 1;
	return bytes / c->pkt_bytes + (bytes % c->pkt_bytes != 0);
}

static int
local(const tt_causal *c, uint32_t pe)
{
	return pe >= c->pe0 && pe < c->pe1;
}

/* A predecessor of send si of pe: claim its arrival. */
static void
claim(tt_causal *c, uint32_t pe, uint32_t si, const tt_depref *r)
{
	struct csend *s = &c->s[si];
	uint32_t ai;

	if (!tt_u64map_get(&c->arr, tt_u64map_key(r->src, r->seq), &ai) ||
	    c->a[ai].dst != pe) {
		warn(c, "PE %u's message %u:%u: predecessor %u:%u is not a "
		    "message to PE %u earlier in the file; ignored", pe, pe,
		    s->seq, r->src, r->seq, pe);
		return;
	}
	if (c->a[ai].claimer != NONE) {
		warn(c, "PE %u's message %u:%u: predecessor %u:%u already "
		    "enables another send; ignored", pe, pe, s->seq, r->src,
		    r->seq);
		return;
	}
	if (c->a[ai].arrived) {
		if (s->npred == 0 || c->a[ai].done_at > s->max_arr)
			s->max_arr = c->a[ai].done_at;
		s->npred++;
		arr_free(c, ai);
		return;
	}
	c->a[ai].claimer = si;
	s->npred++;
	s->waiting++;
}

/* Read one line: queue its send at its PE, or expect its arrival here. */
static int
read_line(tt_causal *c)
{
	tt_dep d;
	char err[512];
	uint32_t k;
	int x;

	if (c->eof || c->failed)
		return 0;
	if ((x = c->in.next(c->in.ctx, &d, err, sizeof(err))) <= 0) {
		c->eof = 1;
		if (x < 0)
			fail(c, err);
		/* what has arrived unclaimed enables nothing now */
		for (k = 0; k < c->na; k++)
			if (c->a[k].used && c->a[k].arrived &&
			    c->a[k].claimer == NONE)
				arr_free(c, k);
		return 0;
	}
	c->res.lines++;
	if (d.pe >= c->npes || d.dst >= c->npes) {
		snprintf(err, sizeof(err), "message %u:%u: PE %u is outside the "
		    "network (%u PEs); replay on a network of the trace's size",
		    d.pe, d.seq, d.pe >= c->npes ? d.pe : d.dst, c->npes);
		fail(c, err);
		return 0;
	}
	if (local(c, d.dst)) {
		uint64_t key = tt_u64map_key(d.pe, d.seq);
		uint32_t ai, dummy;

		if (tt_u64map_get(&c->arr, key, &dummy)) {
			snprintf(err, sizeof(err), "message %u:%u appears twice "
			    "before it has arrived", d.pe, d.seq);
			fail(c, err);
			return 0;
		}
		if ((ai = arr_new(c)) == NONE ||
		    tt_u64map_put(&c->arr, key, ai) < 0) {
			fail(c, "out of memory for arrivals");
			return 0;
		}
		c->a[ai].src = d.pe;
		c->a[ai].dst = d.dst;
		c->a[ai].seq = d.seq;
		c->a[ai].bytes = d.bytes;
		c->a[ai].t_ns = d.t_ns;
		c->a[ai].npred = d.npred;
		c->a[ai].npk = packets_of(c, d.bytes);
	}
	if (local(c, d.pe)) {
		struct cpe *e = &c->pe[d.pe - c->pe0];
		double gap = (double)d.gap_ns / c->cycle_ns;
		uint32_t si;

		if (!(gap < (double)MAX_CYCLE)) {
			snprintf(err, sizeof(err), "message %u:%u: a gap of %"
			    PRIu64 " ns is more than the simulator's clock holds",
			    d.pe, d.seq, d.gap_ns);
			fail(c, err);
			return 0;
		}
		if ((si = send_new(c)) == NONE) {
			fail(c, "out of memory for sends");
			return 0;
		}
		c->s[si].dst = d.dst;
		c->s[si].seq = d.seq;
		c->s[si].bytes = d.bytes;
		c->s[si].t_ns = d.t_ns;
		c->s[si].gap = (uint64_t)llround(gap);
		for (k = 0; k < d.npred; k++)
			claim(c, d.pe, si, &d.pred[k]);
		if (e->tail == NONE)
			e->head = si;
		else
			c->s[e->tail].next = si;
		e->tail = si;
	}
	return 1;
}

static int
causal_next(void *ctx, uint32_t pe, uint64_t now, tt_srcpkt *pk)
{
	tt_causal *c = ctx;
	struct cpe *e = &c->pe[pe - c->pe0];
	struct csend *s;
	uint64_t rel, cp;
	uint32_t si, ai;

	if (e->cur_left == 0) {
		while (e->head == NONE && read_line(c))
			;
		if (e->head == NONE || c->failed)
			return TT_SRC_DONE;
		si = e->head;
		s = &c->s[si];
		if (s->waiting > 0) {
			if (!e->waiting)
				c->res.waited++;
			e->waiting = 1;
			return TT_SRC_WAIT;
		}
		e->waiting = 0;
		rel = e->has_sent ? e->last_rel : 0;
		cp = e->has_sent ? e->cp_last : 0;
		if (s->npred > 0 && s->max_arr > rel) {
			rel = s->max_arr;
			cp = s->cp_pred;
		}
		if (rel > MAX_CYCLE - s->gap) {
			char err[200];

			snprintf(err, sizeof(err), "message %u:%u: released after "
			    "cycle 2^62: its PE's gaps add up to more than the "
			    "simulator's clock holds", pe, s->seq);
			fail(c, err);
			return TT_SRC_DONE;
		}
		rel += s->gap;
		if (rel > now) {
			pk->gen = rel;
			return TT_SRC_LATER;
		}
		e->last_rel = rel;
		e->cp_last = cp + s->gap;
		if (local(c, s->dst) && tt_u64map_get(&c->arr,
		    tt_u64map_key(pe, s->seq), &ai))
			c->a[ai].cp = e->cp_last;
		if (rel < c->res.first_gen)
			c->res.first_gen = rel;
		e->has_sent = 1;
		e->cur_dst = s->dst;
		e->cur_seq = s->seq;
		e->cur_left = packets_of(c, s->bytes);
		e->cur_last = tt_last_packet_flits(s->bytes, c->packet_flits,
		    c->flit_bytes);
		if (rel > c->res.rr.last_gen)
			c->res.rr.last_gen = rel;
		e->head = s->next;
		if (e->head == NONE)
			e->tail = NONE;
		send_free(c, si);
	}
	pk->gen = e->last_rel;
	pk->dst = e->cur_dst;
	pk->tag = e->cur_seq;
	if (e->cur_left == 1)
		pk->flits = e->cur_last;
	e->cur_left--;
	c->res.rr.packets++;
	return TT_SRC_PACKET;
}

/* A packet arrived at a PE of this process (causal.h: the destination
 * counts); on the source's rank only, for another rank's PE, nothing. */
static void
causal_deliver(void *ctx, const tt_delivery *d)
{
	tt_causal *c = ctx;
	uint64_t key = tt_u64map_key(d->src, d->tag);
	struct carr *a;
	uint32_t ai;

	if (!local(c, d->dst))
		return;
	/* a partitioned run: the sender's rank may have read further */
	while (!tt_u64map_get(&c->arr, key, &ai))
		if (!read_line(c)) {
			if (!c->failed)
				fail(c, "a packet of a message that is not in "
				    "the dependency file arrived");
			return;
		}
	a = &c->a[ai];
	c->res.rr.packets_window++;     /* the window is the whole run */
	if (++a->got < a->npk)
		return;
	c->res.rr.messages++;
	c->res.rr.bytes += a->bytes;
	if (d->deliver >= c->res.rr.last_done) {
		c->res.rr.last_done = d->deliver;
		c->res.cp_compute = a->cp;
	}
	tt_hist_add(&c->res.rr.latency, d->deliver - d->gen);
	if (c->on_msg != NULL) {
		tt_causal_msg m = {a->src, a->dst, a->seq, a->npred, a->npk, a->bytes,
		    a->t_ns, d->gen, d->deliver};

		c->on_msg(c->msg_ctx, &m);
	}
	if (a->claimer != NONE) {
		struct csend *s = &c->s[a->claimer];
		struct cpe *e = &c->pe[a->dst - c->pe0];

		if (d->deliver > s->max_arr) {
			s->max_arr = d->deliver;
			s->cp_pred = a->cp;
		}
		if (--s->waiting == 0 && e->waiting && e->head == a->claimer)
			tt_sim_wake(c->sim, a->dst, d->deliver + 1);
		arr_free(c, ai);
	} else if (c->eof) {
		arr_free(c, ai);        /* nothing can claim it any more */
	} else {
		a->arrived = 1;
		a->done_at = d->deliver;
	}
}

int
tt_causal_create(tt_causal **cp, tt_dep_stream in, const tt_replay_params *p,
    tt_sim *sim, char *err, size_t errsz)
{
	tt_causal *c;
	uint32_t i;

	*cp = NULL;
	if (p->net.packet_flits < 1 || p->net.flit_bytes < 1 || !(p->net.link_gbps > 0))
		return tt_errf(err, errsz, "causal replay: bad parameters");
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return tt_errf(err, errsz, "out of memory");
	c->in = in;
	c->sim = sim;
	c->npes = tt_sim_pes(sim);
	tt_sim_local(sim, &c->pe0, &c->pe1);
	c->pkt_bytes = (uint64_t)p->net.packet_flits * (uint64_t)p->net.flit_bytes;
	c->packet_flits = p->net.packet_flits;
	c->flit_bytes = p->net.flit_bytes;
	c->cycle_ns = tt_cycle_ns(p->net.flit_bytes, p->net.link_gbps);
	c->sfree = c->afree = NONE;
	c->res.first_gen = UINT64_MAX;
	c->res.cp_known = c->pe0 == 0 && c->pe1 == c->npes;
	tt_u64map_init(&c->arr);
	if ((c->pe = calloc(c->pe1 - c->pe0, sizeof(*c->pe))) == NULL) {
		free(c);
		return tt_errf(err, errsz, "out of memory");
	}
	for (i = 0; i < c->pe1 - c->pe0; i++)
		c->pe[i].head = c->pe[i].tail = NONE;
	if (tt_sim_on_deliver(sim, causal_deliver, c, err, errsz) < 0) {
		tt_causal_free(c);
		return -1;
	}
	tt_sim_on_arrive(sim, causal_deliver, c);
	*cp = c;
	return 0;
}

tt_source
tt_causal_source(tt_causal *c)
{
	tt_source s = {causal_next, c};

	return s;
}

void
tt_causal_on_message(tt_causal *c, void (*fn)(void *, const tt_causal_msg *),
    void *ctx)
{
	c->on_msg = fn;
	c->msg_ctx = ctx;
}

const tt_causal_result *
tt_causal_result_get(const tt_causal *c)
{
	return &c->res;
}

double
tt_causal_compute_share(const tt_causal_result *r)
{
	uint64_t ms = tt_causal_makespan(r), first, cp;

	if (!r->cp_known || ms == 0)
		return -1;
	/* the path's compute before the first release is outside the
	 * makespan */
	first = r->first_gen == UINT64_MAX ? 0 : r->first_gen;
	cp = r->cp_compute > first ? r->cp_compute - first : 0;
	return cp >= ms ? 1.0 : (double)cp / (double)ms;
}

uint64_t
tt_causal_makespan(const tt_causal_result *r)
{
	if (r->rr.messages == 0 || r->rr.last_done < r->first_gen)
		return 0;
	return r->rr.last_done + 1 - r->first_gen;
}

int
tt_causal_error(const tt_causal *c, char *err, size_t errsz)
{
	return c->failed ? tt_errf(err, errsz, "%s", c->err) : 0;
}

void
tt_causal_warnings(const tt_causal *c, FILE *f, const char *prefix)
{
	int k;

	for (k = 0; k < c->nwarn; k++)
		fprintf(f, "%s%s\n", prefix, c->warn[k]);
	if (c->res.ignored > (uint64_t)c->nwarn)
		fprintf(f, "%s... %" PRIu64 " predecessors ignored in all\n",
		    prefix, c->res.ignored);
}

void
tt_causal_free(tt_causal *c)
{
	if (c == NULL)
		return;
	free(c->pe);
	free(c->s);
	free(c->a);
	tt_u64map_free(&c->arr);
	free(c);
}
