/*
 * Causal replay (twintorus/causal.h): a packet source that releases each
 * message when what enabled it has arrived.
 *
 * The release policy of causal replay on the message layer
 * (sources/msgsrc.h).  Two kinds of records, both from the lines read: a
 * send (this process's PE sends it; it waits in the PE's queue, in order)
 * and an arrival (this process's PE receives it: an entry of the layer,
 * which counts its packets at the destination by (source, sequence); when
 * the last arrives it satisfies the send that claimed it as a
 * predecessor, or waits for one to).  Both live in pools that grow to the
 * most held at once and are reused.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "support/errf.h"
#include "sources/msgsrc.h"
#include "twintorus/causal.h"

#define NONE     MSGSRC_NONE
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

/* causal replay's part of an arrival (the layer's entry) */
struct carr {
	uint64_t t_ns;
	uint64_t cp;            /* compute on its release's critical path */
	uint32_t claimer, npred;
};

struct cpe {
	uint32_t head, tail;    /* sends queued */
	uint64_t last_rel;
	uint64_t cp_last;       /* compute on its last release's path */
	uint8_t has_sent, waiting;
};

struct tt_causal {
	tt_dep_stream in;
	tt_sim *sim;
	uint32_t npes, pe0, pe1;
	struct msgsrc ms;       /* packets and arrivals */
	struct cpe *pe;
	struct csend *s;
	uint32_t ns, scap, sfree;
	uint64_t held;
	uint64_t cp_at;         /* the latest arrival whose cp counts */
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

static struct carr *
carr_of(const tt_causal *c, uint32_t ai)
{
	return msgsrc_user(&c->ms, ai);
}

/* An arrival of the message (src, seq) of bytes to dst. */
static uint32_t
arr_new(tt_causal *c, uint32_t src, uint32_t dst, uint32_t seq,
    uint64_t bytes)
{
	uint32_t i = msgsrc_expect(&c->ms, src, dst, seq, bytes);
	struct carr *a;

	if (i == NONE)
		return NONE;
	a = carr_of(c, i);
	a->t_ns = a->cp = 0;
	a->claimer = NONE;
	a->npred = 0;
	held(c, 1);
	return i;
}

static void
arr_free(tt_causal *c, uint32_t i)
{
	msgsrc_drop(&c->ms, i);
	held(c, -1);
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
	struct msg_entry *e;
	struct carr *a;
	uint32_t ai = msgsrc_find(&c->ms, r->src, r->seq);

	/* a message to its own sender that names itself is not earlier: it
	 * would wait for its own arrival */
	if (ai == NONE || msgsrc_entry(&c->ms, ai)->dst != pe ||
	    (r->src == pe && r->seq == s->seq)) {
		warn(c, "PE %u's message %u:%u: predecessor %u:%u is not a "
		    "message to PE %u earlier in the file; ignored", pe, pe,
		    s->seq, r->src, r->seq, pe);
		return;
	}
	e = msgsrc_entry(&c->ms, ai);
	a = carr_of(c, ai);
	if (a->claimer != NONE) {
		warn(c, "PE %u's message %u:%u: predecessor %u:%u already "
		    "enables another send; ignored", pe, pe, s->seq, r->src,
		    r->seq);
		return;
	}
	if (e->done) {
		if (s->npred == 0 || e->done_at > s->max_arr)
			s->max_arr = e->done_at;
		s->npred++;
		arr_free(c, ai);
		return;
	}
	a->claimer = si;
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
		for (k = 0; k < msgsrc_entries(&c->ms); k++)
			if (msgsrc_entry(&c->ms, k)->live &&
			    msgsrc_entry(&c->ms, k)->done &&
			    carr_of(c, k)->claimer == NONE)
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
		uint32_t ai;

		if (msgsrc_find(&c->ms, d.pe, d.seq) != NONE) {
			snprintf(err, sizeof(err), "message %u:%u appears twice "
			    "before it has arrived", d.pe, d.seq);
			fail(c, err);
			return 0;
		}
		if ((ai = arr_new(c, d.pe, d.dst, d.seq, d.bytes)) == NONE) {
			fail(c, "out of memory for arrivals");
			return 0;
		}
		carr_of(c, ai)->t_ns = d.t_ns;
		carr_of(c, ai)->npred = d.npred;
	}
	if (local(c, d.pe)) {
		struct cpe *e = &c->pe[d.pe - c->pe0];
		double gap = msgsrc_cycles_f(&c->ms, (double)d.gap_ns);
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

	if (!msgsrc_busy(&c->ms, pe)) {
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
		if (local(c, s->dst) &&
		    (ai = msgsrc_find(&c->ms, pe, s->seq)) != NONE)
			carr_of(c, ai)->cp = e->cp_last;
		e->has_sent = 1;
		msgsrc_send(&c->ms, pe, s->dst, s->seq, s->bytes, rel);
		e->head = s->next;
		if (e->head == NONE)
			e->tail = NONE;
		send_free(c, si);
	}
	msgsrc_packet(&c->ms, pe, pk);
	return TT_SRC_PACKET;
}

/* A packet of a message to a PE here that has no arrival yet: in a
 * partitioned run the sender's rank may have read further. */
static int
causal_unknown(void *ctx, uint32_t src, uint32_t dst, uint32_t seq)
{
	tt_causal *c = ctx;

	(void)src;
	(void)dst;
	(void)seq;
	if (read_line(c))
		return 0;
	if (!c->failed)
		fail(c, "a packet of a message that is not in the dependency "
		    "file arrived");
	return -1;
}

/* A message to a PE here has arrived whole (causal.h: the destination
 * counts). */
static void
causal_done(void *ctx, uint32_t ai, const tt_delivery *d)
{
	tt_causal *c = ctx;
	const struct msg_entry *m = msgsrc_entry(&c->ms, ai);
	struct carr *a = carr_of(c, ai);

	if (d->deliver >= c->cp_at) {
		c->cp_at = d->deliver;
		c->res.cp_compute = a->cp;
	}
	if (c->on_msg != NULL) {
		tt_causal_msg cm = {m->src, m->dst, m->seq, a->npred, m->npk,
		    m->bytes, a->t_ns, d->gen, d->deliver};

		c->on_msg(c->msg_ctx, &cm);
	}
	if (a->claimer != NONE) {
		struct csend *s = &c->s[a->claimer];
		struct cpe *e = &c->pe[m->dst - c->pe0];

		if (d->deliver > s->max_arr) {
			s->max_arr = d->deliver;
			s->cp_pred = a->cp;
		}
		if (--s->waiting == 0 && e->waiting && e->head == a->claimer)
			tt_sim_wake(c->sim, m->dst, d->deliver + 1);
		arr_free(c, ai);
	} else if (c->eof) {
		arr_free(c, ai);        /* nothing can claim it any more */
	}
}

int
tt_causal_create(tt_causal **cp, tt_dep_stream in, const tt_replay_params *p,
    tt_sim *sim, char *err, size_t errsz)
{
	tt_causal *c;
	struct msgsrc_params mp;
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
	c->sfree = NONE;
	c->res.first_gen = UINT64_MAX;
	c->res.cp_known = c->pe0 == 0 && c->pe1 == c->npes;
	if ((c->pe = calloc(c->pe1 - c->pe0, sizeof(*c->pe))) == NULL) {
		free(c);
		return tt_errf(err, errsz, "out of memory");
	}
	for (i = 0; i < c->pe1 - c->pe0; i++)
		c->pe[i].head = c->pe[i].tail = NONE;
	mp.net = p->net;
	mp.where = MSG_AT_DST;
	mp.warmup = 0;          /* the window is the whole run */
	mp.window_end = 0;
	mp.user_size = sizeof(struct carr);
	mp.res = &c->res;
	mp.fields = msg_causal_fields;
	mp.nfields = msg_causal_nfields;
	mp.ctx = c;
	mp.done = causal_done;
	mp.unknown = causal_unknown;
	if (msgsrc_init(&c->ms, sim, &mp, err, errsz) < 0) {
		tt_causal_free(c);
		return -1;
	}
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
	return msgsrc_makespan(r->first_gen, r->rr.last_done, r->rr.messages);
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
	msgsrc_free(&c->ms);
	free(c);
}
