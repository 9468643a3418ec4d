/*
 * MPI-level traces in memory, and their conversion to the dependency
 * lines of causal replay (twintorus/mpitrace.h says the rules).
 *
 * The conversion runs the ranks' programs as MPI would, one rank at a
 * time: a rank goes on until it waits for a message not yet sent, then
 * the next rank that can go on does (a queue of ready ranks, each in it
 * at most once, woken by the send that matches what it waits for).  Sends
 * are eager, so only receives wait, and every step either moves a rank on
 * or parks it: the work is linear in the events and the messages.
 *
 * Matching follows MPI's ordering rule: a channel is (source, destination,
 * communicator, tag), plus whether it carries a collective's messages
 * (those never match the application's own); the receives posted on a
 * channel take its messages in the order they were sent.  A channel holds
 * either messages sent and not yet taken, or receives posted and not yet
 * matched, never both.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "twintorus/mpitrace.h"
#include "twintorus/ti.h"
#include "support/errf.h"
#include "sources/mpitrace_int.h"
#include "support/u64map.h"

#define NONE UINT32_MAX
/* a non-blocking send's request, in a rank's request map */
#define SEND_REQ (UINT32_MAX - 1)

/* ---- the trace in memory ---- */

int
tt_mpi_trace_init(tt_mpi_trace *t, uint32_t nranks, const char *format)
{
	uint32_t *w;
	uint32_t i;

	memset(t, 0, sizeof(*t));
	if (nranks == 0)
		return -1;
	snprintf(t->format, sizeof(t->format), "%s", format != NULL ? format :
	    "");
	if ((t->rank = calloc(nranks, sizeof(*t->rank))) == NULL)
		return -1;
	t->nranks = nranks;
	if ((w = malloc(nranks * sizeof(*w))) == NULL) {
		tt_mpi_trace_free(t);
		return -1;
	}
	for (i = 0; i < nranks; i++)
		w[i] = i;
	if (tt_mpi_trace_add_comm(t, nranks, w) != 0) {
		free(w);
		tt_mpi_trace_free(t);
		return -1;
	}
	free(w);
	return 0;
}

int
tt_mpi_trace_add(tt_mpi_trace *t, uint32_t r, const tt_mpi_event *e)
{
	tt_mpi_rank *k;

	if (r >= t->nranks)
		return -1;
	k = &t->rank[r];
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 64;
		tt_mpi_event *g = realloc(k->ev, cap * sizeof(*g));

		if (g == NULL)
			return -1;
		k->ev = g;
		k->cap = cap;
	}
	k->ev[k->n++] = *e;
	return 0;
}

int
tt_mpi_trace_add_comm(tt_mpi_trace *t, uint32_t n, const uint32_t *member)
{
	tt_mpi_comm *g;
	uint32_t i, *m;

	if (n == 0 || t->ncomms == INT32_MAX)
		return -1;
	for (i = 0; i < n; i++)
		if (member[i] >= t->nranks)
			return -1;
	if ((m = malloc(n * sizeof(*m))) == NULL)
		return -1;
	memcpy(m, member, n * sizeof(*m));
	if ((g = realloc(t->comm, (t->ncomms + 1) * sizeof(*g))) == NULL) {
		free(m);
		return -1;
	}
	t->comm = g;
	t->comm[t->ncomms].n = n;
	t->comm[t->ncomms].member = m;
	return (int)t->ncomms++;
}

void
tt_mpi_trace_free(tt_mpi_trace *t)
{
	uint32_t i;

	if (t == NULL)
		return;
	for (i = 0; t->rank != NULL && i < t->nranks; i++)
		free(t->rank[i].ev);
	for (i = 0; i < t->ncomms; i++)
		free(t->comm[i].member);
	free(t->rank);
	free(t->comm);
	memset(t, 0, sizeof(*t));
}

static const char *const coll_names[TT_COLL_COUNT] = {
	"MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce",
	"MPI_Gather", "MPI_Scatter", "MPI_Allgather", "MPI_Alltoall"
};

/* Each in the comm's ranks (indices i of n; root: the comm's rank). */
static const char *const coll_algorithms[TT_COLL_COUNT] = {
	"dissemination: for k = 1, 2, 4, ... below n, i sends an empty "
	    "message to i+k and receives one from i-k (mod n)",
	"binomial tree from the root",
	"binomial tree to the root",
	"binomial tree reduce to comm rank 0, then binomial tree bcast "
	    "from it",
	"linear: each rank sends its part to the root, which receives them "
	    "in rank order",
	"linear: the root sends each rank its part, in rank order",
	"ring: n-1 steps, i sends a part to i+1 and receives one from i-1 "
	    "(mod n)",
	"pairwise: for k = 1 .. n-1, i sends to i+k and receives from i-k "
	    "(mod n)"
};

const char *
tt_coll_name(enum tt_mpi_coll c)
{
	return (unsigned)c < TT_COLL_COUNT ? coll_names[c] : "MPI_?";
}

const char *
tt_mpi_coll_algorithm(enum tt_mpi_coll c)
{
	return (unsigned)c < TT_COLL_COUNT ? coll_algorithms[c] : "?";
}

/* ---- the conversion ---- */

enum { OP_SEND, OP_RECV };

/* one step of a collective: a send or a blocking receive */
struct op {
	uint8_t kind;
	uint32_t peer;          /* global rank */
	uint64_t bytes;
};

/* a receive posted (IRECV, or a blocking RECV's own) */
struct req {
	uint32_t rank;          /* whose */
	uint32_t ch;            /* on which channel */
	size_t ev;              /* the event that posted it */
	uint32_t src, seq;      /* the message it took, once matched */
	uint32_t next;          /* the channel's queue, or the free list */
	uint8_t matched, coll;
};

/* a message sent and not yet taken */
struct msg {
	uint32_t seq, next;
};

struct chan {
	uint32_t src, dst, comm;
	int64_t tag;
	uint8_t coll;
	uint32_t mhead, mtail;  /* messages waiting for a receive */
	uint32_t rhead, rtail;  /* receives waiting for a message */
};

struct rstate {
	size_t pc;              /* next event */
	struct op *op;          /* the collective under way */
	size_t nop, opos, opcap;
	size_t coll_ev;         /* its event */
	uint32_t coll_comm;
	uint64_t coll_t;
	uint64_t gap;           /* compute since the last send or receive
	                         * completed; past TT_DEPS_NS_MAX: held there */
	tt_depref *pred;        /* receives completed since the last send */
	size_t npred, predcap;
	uint64_t seq;           /* sends so far */
	uint32_t wait;          /* the receive it waits for, or NONE */
	uint8_t queued, done;
	tt_u64map reqs;         /* request id: struct req index, SEND_REQ */
};

struct tt_mpi_deps {
	const tt_mpi_trace *t;
	struct rstate *rs;
	uint32_t **cidx;        /* per comm, when used: global rank -> its
	                         * rank in the comm, NONE if not a member */
	struct chan *ch;
	size_t nch, chcap;
	uint32_t *chtab;        /* hash of channels: index, NONE if empty */
	size_t chtabcap;        /* a power of two */
	struct req *rq;
	size_t nrq, rqcap;
	uint32_t rqfree;
	struct msg *mq;
	size_t nmq, mqcap;
	uint32_t mqfree;
	uint32_t *ready;        /* ring of nranks */
	uint32_t rhead, rcount;
	uint32_t cur;           /* the rank running, or NONE */
	tt_depref *out;         /* the predecessors of the line returned */
	size_t outcap;
	int state;              /* 0 running, 1 ended, -1 failed */
	char err[512];
	/* tallies of the lines given so far */
	uint64_t p2p, p2p_bytes, coll_msgs, coll_bytes;
	/* tt_mpi_deps_framing() */
	uint32_t segment, frame_header, message_header;
};

static int
fail(tt_mpi_deps *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
fail(tt_mpi_deps *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->err, sizeof(d->err), fmt, ap);
	va_end(ap);
	d->state = -1;
	return -1;
}

static uint64_t
mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static uint64_t
chan_hash(uint32_t src, uint32_t dst, uint32_t comm, int64_t tag, int coll)
{
	return mix(mix(((uint64_t)src << 32 | dst) ^ (uint64_t)tag) ^
	    ((uint64_t)comm << 1 | (uint64_t)coll));
}

static int
chan_rehash(tt_mpi_deps *d, size_t cap)
{
	uint32_t *tab = malloc(cap * sizeof(*tab));
	size_t i, h;

	if (tab == NULL)
		return -1;
	for (i = 0; i < cap; i++)
		tab[i] = NONE;
	for (i = 0; i < d->nch; i++) {
		const struct chan *c = &d->ch[i];

		h = chan_hash(c->src, c->dst, c->comm, c->tag, c->coll) &
		    (cap - 1);
		while (tab[h] != NONE)
			h = (h + 1) & (cap - 1);
		tab[h] = (uint32_t)i;
	}
	free(d->chtab);
	d->chtab = tab;
	d->chtabcap = cap;
	return 0;
}

/* The channel's index (made if new), or NONE when out of memory. */
static uint32_t
chan_get(tt_mpi_deps *d, uint32_t src, uint32_t dst, uint32_t comm,
    int64_t tag, int coll)
{
	size_t h;
	struct chan *c;

	if (2 * (d->nch + 1) > d->chtabcap &&
	    chan_rehash(d, d->chtabcap ? 2 * d->chtabcap : 256) < 0)
		return NONE;
	h = chan_hash(src, dst, comm, tag, coll) & (d->chtabcap - 1);
	for (; d->chtab[h] != NONE; h = (h + 1) & (d->chtabcap - 1)) {
		c = &d->ch[d->chtab[h]];
		if (c->src == src && c->dst == dst && c->comm == comm &&
		    c->tag == tag && c->coll == coll)
			return d->chtab[h];
	}
	if (d->nch >= NONE - 1)
		return NONE;
	if (d->nch == d->chcap) {
		size_t cap = d->chcap ? 2 * d->chcap : 256;
		struct chan *g = realloc(d->ch, cap * sizeof(*g));

		if (g == NULL)
			return NONE;
		d->ch = g;
		d->chcap = cap;
	}
	c = &d->ch[d->nch];
	c->src = src;
	c->dst = dst;
	c->comm = comm;
	c->tag = tag;
	c->coll = (uint8_t)coll;
	c->mhead = c->mtail = c->rhead = c->rtail = NONE;
	d->chtab[h] = (uint32_t)d->nch;
	return (uint32_t)d->nch++;
}

static uint32_t
req_new(tt_mpi_deps *d)
{
	uint32_t i;

	if (d->rqfree != NONE) {
		i = d->rqfree;
		d->rqfree = d->rq[i].next;
		return i;
	}
	if (d->nrq >= NONE - 2)
		return NONE;
	if (d->nrq == d->rqcap) {
		size_t cap = d->rqcap ? 2 * d->rqcap : 256;
		struct req *g = realloc(d->rq, cap * sizeof(*g));

		if (g == NULL)
			return NONE;
		d->rq = g;
		d->rqcap = cap;
	}
	return (uint32_t)d->nrq++;
}

static void
req_free(tt_mpi_deps *d, uint32_t i)
{
	d->rq[i].next = d->rqfree;
	d->rqfree = i;
}

static uint32_t
msg_new(tt_mpi_deps *d)
{
	uint32_t i;

	if (d->mqfree != NONE) {
		i = d->mqfree;
		d->mqfree = d->mq[i].next;
		return i;
	}
	if (d->nmq >= NONE - 1)
		return NONE;
	if (d->nmq == d->mqcap) {
		size_t cap = d->mqcap ? 2 * d->mqcap : 256;
		struct msg *g = realloc(d->mq, cap * sizeof(*g));

		if (g == NULL)
			return NONE;
		d->mq = g;
		d->mqcap = cap;
	}
	return (uint32_t)d->nmq++;
}

static void
wake(tt_mpi_deps *d, uint32_t r)
{
	struct rstate *s = &d->rs[r];

	if (s->queued || r == d->cur)
		return;
	s->queued = 1;
	d->ready[(d->rhead + d->rcount++) % d->t->nranks] = r;
}

/* Rank r's rank in comm c (NONE if not a member), or -1 on no memory. */
static int
comm_index(tt_mpi_deps *d, uint32_t c, uint32_t r, uint32_t *idx)
{
	const tt_mpi_comm *cm = &d->t->comm[c];
	uint32_t i;

	if (d->cidx[c] == NULL) {
		uint32_t *x = malloc(d->t->nranks * sizeof(*x));

		if (x == NULL)
			return fail(d, "out of memory");
		for (i = 0; i < d->t->nranks; i++)
			x[i] = NONE;
		for (i = 0; i < cm->n; i++)
			x[cm->member[i]] = i;
		d->cidx[c] = x;
	}
	*idx = d->cidx[c][r];
	return 0;
}

/* The communicator of event e of rank r checked: r is one of its members
 * (its rank in it in *me), and e's peer is one (global rank in *peer),
 * unless a collective without a root. */
static int
check_comm(tt_mpi_deps *d, uint32_t r, size_t evi, const tt_mpi_event *e,
    uint32_t *me, uint32_t *peer)
{
	int rooted = e->kind != TT_MPI_COLL || e->coll == TT_COLL_BCAST ||
	    e->coll == TT_COLL_REDUCE || e->coll == TT_COLL_GATHER ||
	    e->coll == TT_COLL_SCATTER;

	const tt_mpi_comm *cm;

	if (e->comm >= d->t->ncomms)
		return fail(d, "rank %" PRIu32 " event %zu: communicator %"
		    PRIu32 " is not defined (the trace has %" PRIu32 ")", r,
		    evi, e->comm, d->t->ncomms);
	cm = &d->t->comm[e->comm];
	if (comm_index(d, e->comm, r, me) < 0)
		return -1;
	if (*me == NONE)
		return fail(d, "rank %" PRIu32 " event %zu: rank %" PRIu32
		    " is not a member of communicator %" PRIu32, r, evi, r,
		    e->comm);
	*peer = NONE;
	if (!rooted)
		return 0;
	if (e->peer >= cm->n)
		return fail(d, "rank %" PRIu32 " event %zu: %s %" PRIu32
		    " is outside communicator %" PRIu32 " (of %" PRIu32
		    " ranks)", r, evi, e->kind == TT_MPI_COLL ? "root" : "peer",
		    e->peer, e->comm, cm->n);
	*peer = cm->member[e->peer];
	return 0;
}

/* Post a receive of rank r from src on the channel; it is matched at once
 * if a message waits there.  Its index, or NONE after fail(). */
static uint32_t
post_recv(tt_mpi_deps *d, uint32_t r, size_t evi, uint32_t src,
    uint32_t comm, int64_t tag, int coll)
{
	uint32_t ci = chan_get(d, src, r, comm, tag, coll), qi;
	struct chan *c;
	struct req *q;

	if (ci == NONE || (qi = req_new(d)) == NONE) {
		fail(d, "out of memory");
		return NONE;
	}
	c = &d->ch[ci];
	q = &d->rq[qi];
	q->rank = r;
	q->ch = ci;
	q->ev = evi;
	q->src = src;
	q->seq = 0;
	q->next = NONE;
	q->matched = 0;
	q->coll = (uint8_t)coll;
	if (c->mhead != NONE) {
		uint32_t m = c->mhead;

		q->seq = d->mq[m].seq;
		q->matched = 1;
		c->mhead = d->mq[m].next;
		if (c->mhead == NONE)
			c->mtail = NONE;
		d->mq[m].next = d->mqfree;
		d->mqfree = m;
	} else if (c->rtail == NONE) {
		c->rhead = c->rtail = qi;
	} else {
		d->rq[c->rtail].next = qi;
		c->rtail = qi;
	}
	return qi;
}

/* Rank r sends message seq to dst: the first receive posted for it takes
 * it, or it waits on the channel for one.  0, or -1 after fail(). */
static int
deliver(tt_mpi_deps *d, uint32_t r, uint32_t seq, uint32_t dst,
    uint32_t comm, int64_t tag, int coll)
{
	uint32_t ci = chan_get(d, r, dst, comm, tag, coll), m;
	struct chan *c;

	if (ci == NONE)
		return fail(d, "out of memory");
	c = &d->ch[ci];
	if (c->rhead != NONE) {
		uint32_t qi = c->rhead;
		struct req *q = &d->rq[qi];

		c->rhead = q->next;
		if (c->rhead == NONE)
			c->rtail = NONE;
		q->next = NONE;
		q->seq = seq;
		q->matched = 1;
		if (d->rs[q->rank].wait == qi)
			wake(d, q->rank);
		return 0;
	}
	if ((m = msg_new(d)) == NONE)
		return fail(d, "out of memory");
	d->mq[m].seq = seq;
	d->mq[m].next = NONE;
	if (c->mtail == NONE)
		c->mhead = m;
	else
		d->mq[c->mtail].next = m;
	c->mtail = m;
	return 0;
}

void
tt_mpi_deps_framing(tt_mpi_deps *d, uint32_t segment, uint32_t frame_header,
    uint32_t message_header)
{
	d->segment = segment;
	d->frame_header = frame_header;
	d->message_header = message_header;
}

/* A message of b payload bytes as it crosses the wire (framing above);
 * at most TT_DEPS_BYTES_MAX. */
static uint64_t
wire_bytes(const tt_mpi_deps *d, uint64_t b)
{
	uint64_t m = b + d->message_header, frames = 1;

	if (d->segment > 0 && m > d->segment)
		frames = (m + d->segment - 1) / d->segment;
	m += frames * d->frame_header;
	return m < TT_DEPS_BYTES_MAX ? m : TT_DEPS_BYTES_MAX;
}

/* Rank r sends: the line in *out, the message on its way. */
static int
emit(tt_mpi_deps *d, uint32_t r, size_t evi, uint32_t dst, uint64_t bytes,
    uint64_t t_ns, uint32_t comm, int64_t tag, int coll, tt_dep *out)
{
	struct rstate *s = &d->rs[r];

	if (bytes > TT_DEPS_BYTES_MAX)
		return fail(d, "rank %" PRIu32 " event %zu: a message of %"
		    PRIu64 " bytes, more than causal replay takes (%llu, 4 "
		    "GiB)", r, evi, bytes, TT_DEPS_BYTES_MAX);
	if (s->gap > TT_DEPS_NS_MAX)
		return fail(d, "rank %" PRIu32 " event %zu: a send after more "
		    "than a day of compute (%llu ns), more than causal replay "
		    "takes", r, evi, TT_DEPS_NS_MAX);
	if (t_ns > TT_DEPS_NS_MAX)
		return fail(d, "rank %" PRIu32 " event %zu: a send more than a "
		    "day (%llu ns) after the trace's first event", r, evi,
		    TT_DEPS_NS_MAX);
	if (s->seq > UINT32_MAX)
		return fail(d, "rank %" PRIu32 " event %zu: more than 2^32 "
		    "messages from one rank", r, evi);
	if (s->npred > d->outcap) {
		tt_depref *g = realloc(d->out, s->npred * sizeof(*g));

		if (g == NULL)
			return fail(d, "out of memory");
		d->out = g;
		d->outcap = s->npred;
	}
	if (s->npred > 0)
		memcpy(d->out, s->pred, s->npred * sizeof(*d->out));
	out->pe = r;
	out->seq = (uint32_t)s->seq;
	out->dst = dst;
	out->bytes = wire_bytes(d, bytes);
	out->t_ns = t_ns;
	out->gap_ns = s->gap;
	out->npred = (uint32_t)s->npred;
	out->pred = d->out;
	s->npred = 0;
	s->gap = 0;
	s->seq++;
	if (coll) {
		d->coll_msgs++;
		d->coll_bytes += bytes;
	} else {
		d->p2p++;
		d->p2p_bytes += bytes;
	}
	return deliver(d, r, out->seq, dst, comm, tag, coll);
}

static int
add_op(tt_mpi_deps *d, struct rstate *s, int kind, uint32_t peer,
    uint64_t bytes)
{
	if (s->nop == s->opcap) {
		size_t cap = s->opcap ? 2 * s->opcap : 16;
		struct op *g = realloc(s->op, cap * sizeof(*g));

		if (g == NULL)
			return fail(d, "out of memory");
		s->op = g;
		s->opcap = cap;
	}
	s->op[s->nop].kind = (uint8_t)kind;
	s->op[s->nop].peer = peer;
	s->op[s->nop].bytes = bytes;
	s->nop++;
	return 0;
}

/* Binomial trees over the ranks relative to the root (v = 0 is the
 * root; comm rank (v + root) % n). */
static int
binomial_bcast(tt_mpi_deps *d, struct rstate *s, const tt_mpi_comm *cm,
    uint32_t v, uint32_t root, uint64_t bytes)
{
	uint64_t n = cm->n, mask = 1;

	for (; mask < n; mask <<= 1)
		if (v & mask) {
			if (add_op(d, s, OP_RECV, cm->member[(v - mask + root) %
			    n], 0) < 0)
				return -1;
			break;
		}
	for (mask >>= 1; mask > 0; mask >>= 1)
		if (v + mask < n && add_op(d, s, OP_SEND,
		    cm->member[(v + mask + root) % n], bytes) < 0)
			return -1;
	return 0;
}

static int
binomial_reduce(tt_mpi_deps *d, struct rstate *s, const tt_mpi_comm *cm,
    uint32_t v, uint32_t root, uint64_t bytes)
{
	uint64_t n = cm->n, mask;

	for (mask = 1; mask < n; mask <<= 1) {
		if (v & mask)
			return add_op(d, s, OP_SEND, cm->member[((v & ~mask) +
			    root) % n], bytes);
		if ((v | mask) < n && add_op(d, s, OP_RECV,
		    cm->member[((v | mask) + root) % n], 0) < 0)
			return -1;
	}
	return 0;
}

/* Collective event e of rank r (its rank me in the comm) as the steps of
 * its algorithm (tt_mpi_coll_algorithm()). */
static int
expand(tt_mpi_deps *d, uint32_t r, size_t evi, const tt_mpi_event *e,
    uint32_t me)
{
	struct rstate *s = &d->rs[r];
	const tt_mpi_comm *cm = &d->t->comm[e->comm];
	uint32_t n = cm->n, k, root = e->peer < n ? e->peer : 0;
	uint32_t v = (me + n - root) % n;
	uint64_t b = e->bytes;

	s->nop = s->opos = 0;
	s->coll_ev = evi;
	s->coll_comm = e->comm;
	s->coll_t = e->t_ns;
	switch (e->coll) {
	case TT_COLL_BARRIER:
		for (k = 1; k < n; k <<= 1)
			if (add_op(d, s, OP_SEND, cm->member[(me + k) % n], 0) <
			    0 || add_op(d, s, OP_RECV, cm->member[(me + n - k) %
			    n], 0) < 0)
				return -1;
		return 0;
	case TT_COLL_BCAST:
		return binomial_bcast(d, s, cm, v, root, b);
	case TT_COLL_REDUCE:
		return binomial_reduce(d, s, cm, v, root, b);
	case TT_COLL_ALLREDUCE:
		if (binomial_reduce(d, s, cm, me, 0, b) < 0)
			return -1;
		return binomial_bcast(d, s, cm, me, 0, b);
	case TT_COLL_GATHER:
		if (me != root)
			return add_op(d, s, OP_SEND, cm->member[root], b);
		for (k = 0; k < n; k++)
			if (k != root && add_op(d, s, OP_RECV, cm->member[k], 0) <
			    0)
				return -1;
		return 0;
	case TT_COLL_SCATTER:
		if (me != root)
			return add_op(d, s, OP_RECV, cm->member[root], 0);
		for (k = 0; k < n; k++)
			if (k != root && add_op(d, s, OP_SEND, cm->member[k], b) <
			    0)
				return -1;
		return 0;
	case TT_COLL_ALLGATHER:
		for (k = 1; k < n; k++)
			if (add_op(d, s, OP_SEND, cm->member[(me + 1) % n], b) <
			    0 || add_op(d, s, OP_RECV, cm->member[(me + n - 1) %
			    n], 0) < 0)
				return -1;
		return 0;
	case TT_COLL_ALLTOALL:
		for (k = 1; k < n; k++)
			if (add_op(d, s, OP_SEND, cm->member[(me + k) % n], b) <
			    0 || add_op(d, s, OP_RECV, cm->member[(me + n - k) %
			    n], 0) < 0)
				return -1;
		return 0;
	default:
		return fail(d, "rank %" PRIu32 " event %zu: collective %u is "
		    "not one of the %d known", r, evi, e->coll, TT_COLL_COUNT);
	}
}

enum { RUN_SENT, RUN_WAITS, RUN_DONE, RUN_FAILED = -1 };

/* Run rank r until it sends (the line in *out), waits, ends or fails. */
static int
run(tt_mpi_deps *d, uint32_t r, tt_dep *out)
{
	struct rstate *s = &d->rs[r];
	const tt_mpi_rank *k = &d->t->rank[r];
	uint32_t me, peer, qi;

	for (;;) {
		const tt_mpi_event *e;
		size_t evi;

		if (s->wait != NONE) {
			struct req *q = &d->rq[s->wait];

			if (!q->matched)
				return RUN_WAITS;
			if (s->npred == s->predcap) {
				size_t cap = s->predcap ? 2 * s->predcap : 8;
				tt_depref *g = realloc(s->pred, cap *
				    sizeof(*g));

				if (g == NULL)
					return fail(d, "out of memory");
				s->pred = g;
				s->predcap = cap;
			}
			s->pred[s->npred].src = q->src;
			s->pred[s->npred].seq = q->seq;
			s->npred++;
			s->gap = 0;
			req_free(d, s->wait);
			s->wait = NONE;
		}
		if (s->opos < s->nop) {
			const struct op *o = &s->op[s->opos++];

			if (o->kind == OP_SEND)
				return emit(d, r, s->coll_ev, o->peer, o->bytes,
				    s->coll_t, s->coll_comm, 0, 1, out) < 0 ?
				    RUN_FAILED : RUN_SENT;
			if ((s->wait = post_recv(d, r, s->coll_ev, o->peer,
			    s->coll_comm, 0, 1)) == NONE)
				return RUN_FAILED;
			continue;
		}
		if (s->pc == k->n) {
			s->done = 1;
			return RUN_DONE;
		}
		evi = s->pc++;
		e = &k->ev[evi];
		switch (e->kind) {
		case TT_MPI_COMPUTE:
			s->gap += e->ns <= TT_DEPS_NS_MAX ? e->ns :
			    TT_DEPS_NS_MAX + 1;
			if (s->gap > TT_DEPS_NS_MAX)
				s->gap = TT_DEPS_NS_MAX + 1;
			break;
		case TT_MPI_SEND:
		case TT_MPI_ISEND:
			if (check_comm(d, r, evi, e, &me, &peer) < 0)
				return RUN_FAILED;
			if (e->kind == TT_MPI_ISEND &&
			    tt_u64map_put(&s->reqs, e->req, SEND_REQ) < 0)
				return fail(d, "out of memory");
			return emit(d, r, evi, peer, e->bytes, e->t_ns, e->comm,
			    e->tag, 0, out) < 0 ? RUN_FAILED : RUN_SENT;
		case TT_MPI_RECV:
		case TT_MPI_IRECV:
			if (check_comm(d, r, evi, e, &me, &peer) < 0 ||
			    (qi = post_recv(d, r, evi, peer, e->comm, e->tag,
			    0)) == NONE)
				return RUN_FAILED;
			if (e->kind == TT_MPI_RECV)
				s->wait = qi;
			else if (tt_u64map_put(&s->reqs, e->req, qi) < 0)
				return fail(d, "out of memory");
			break;
		case TT_MPI_WAIT:
			if (!tt_u64map_get(&s->reqs, e->req, &qi))
				return fail(d, "rank %" PRIu32 " event %zu: a "
				    "wait on request %" PRIu64 ", which no isend "
				    "or irecv of rank %" PRIu32 " started (or "
				    "an earlier wait completed)", r, evi,
				    e->req, r);
			tt_u64map_del(&s->reqs, e->req);
			if (qi != SEND_REQ)
				s->wait = qi;
			break;
		case TT_MPI_COLL:
			if (check_comm(d, r, evi, e, &me, &peer) < 0 ||
			    expand(d, r, evi, e, me) < 0)
				return RUN_FAILED;
			break;
		default:
			return fail(d, "rank %" PRIu32 " event %zu: event kind "
			    "%u is not one of the known", r, evi, e->kind);
		}
	}
}

/* What a receive waits for, in words. */
static void
req_what(const tt_mpi_deps *d, const struct req *q, char *buf, size_t sz)
{
	const struct chan *c = &d->ch[q->ch];

	if (q->coll)
		snprintf(buf, sz, "a message of %s from rank %" PRIu32,
		    tt_coll_name((enum tt_mpi_coll)d->t->rank[q->rank].ev[
		    q->ev].coll), c->src);
	else
		snprintf(buf, sz, "a message from rank %" PRIu32
		    " (communicator %" PRIu32 ", tag %" PRId64 ")", c->src,
		    c->comm, c->tag);
}

/* No rank can go on: each has ended, or waits for what will not come. */
static int
finish(tt_mpi_deps *d)
{
	const tt_mpi_trace *t = d->t;
	char what[256], what2[256];
	uint32_t r;
	size_t i;

	for (r = 0; r < t->nranks; r++) {
		const struct rstate *s = &d->rs[r];
		const struct req *q, *q2;
		const struct rstate *s2;
		uint32_t src;

		if (s->done)
			continue;
		q = &d->rq[s->wait];
		req_what(d, q, what, sizeof(what));
		src = d->ch[q->ch].src;
		s2 = &d->rs[src];
		if (s2->done)
			return fail(d, "rank %" PRIu32 " event %zu waits for %s"
			    ", but no send of rank %" PRIu32 " matches it (the "
			    "trace is incomplete, or the ranks do not call "
			    "the same collectives)", r, q->ev, what, src);
		q2 = &d->rq[s2->wait];
		req_what(d, q2, what2, sizeof(what2));
		return fail(d, "deadlock: rank %" PRIu32 " event %zu waits for "
		    "%s, and rank %" PRIu32 " waits at event %zu for %s",
		    r, q->ev, what, src, q2->ev, what2);
	}
	/* every rank ended: a receive posted and never matched */
	for (i = 0; i < d->nch; i++) {
		const struct chan *c = &d->ch[i];

		if (c->rhead != NONE) {
			const struct req *q = &d->rq[c->rhead];

			req_what(d, q, what, sizeof(what));
			return fail(d, "rank %" PRIu32 " event %zu: a receive "
			    "of %s that no send matches", q->rank, q->ev,
			    what);
		}
	}
	d->state = 1;
	return 0;
}

static int
deps_next(void *ctx, tt_dep *out, char *err, size_t errsz)
{
	tt_mpi_deps *d = ctx;
	int x;

	for (;;) {
		if (d->state != 0)
			break;
		if (d->cur == NONE) {
			if (d->rcount == 0) {
				finish(d);
				break;
			}
			d->cur = d->ready[d->rhead];
			d->rhead = (d->rhead + 1) % d->t->nranks;
			d->rcount--;
			d->rs[d->cur].queued = 0;
		}
		x = run(d, d->cur, out);
		if (x == RUN_SENT)
			return 1;
		if (x == RUN_FAILED)
			break;
		d->cur = NONE;
	}
	if (d->state < 0)
		return tt_errf(err, errsz, "%s", d->err);
	return 0;
}

int
tt_mpi_deps_open(tt_mpi_deps **dp, const tt_mpi_trace *t, char *err,
    size_t errsz)
{
	tt_mpi_deps *d;
	uint32_t r;

	*dp = NULL;
	if (t->nranks == 0 || t->ncomms == 0)
		return tt_errf(err, errsz, "a trace of no ranks");
	if ((d = calloc(1, sizeof(*d))) == NULL)
		return tt_errf(err, errsz, "out of memory");
	d->t = t;
	d->cur = NONE;
	d->rqfree = d->mqfree = NONE;
	d->rs = calloc(t->nranks, sizeof(*d->rs));
	d->cidx = calloc(t->ncomms, sizeof(*d->cidx));
	d->ready = malloc(t->nranks * sizeof(*d->ready));
	if (d->rs == NULL || d->cidx == NULL || d->ready == NULL) {
		tt_mpi_deps_free(d);
		return tt_errf(err, errsz, "out of memory");
	}
	for (r = 0; r < t->nranks; r++) {
		d->rs[r].wait = NONE;
		d->rs[r].queued = 1;
		tt_u64map_init(&d->rs[r].reqs);
		d->ready[r] = r;
	}
	d->rcount = t->nranks;
	*dp = d;
	return 0;
}

tt_dep_stream
tt_mpi_deps_stream(tt_mpi_deps *d)
{
	tt_dep_stream s = {deps_next, d};

	return s;
}

void
tt_mpi_deps_free(tt_mpi_deps *d)
{
	uint32_t i;

	if (d == NULL)
		return;
	for (i = 0; d->rs != NULL && i < d->t->nranks; i++) {
		free(d->rs[i].op);
		free(d->rs[i].pred);
		tt_u64map_free(&d->rs[i].reqs);
	}
	for (i = 0; d->cidx != NULL && i < d->t->ncomms; i++)
		free(d->cidx[i]);
	free(d->rs);
	free(d->cidx);
	free(d->ch);
	free(d->chtab);
	free(d->rq);
	free(d->mq);
	free(d->ready);
	free(d->out);
	free(d);
}

int
tt_mpi_totals_get(const tt_mpi_trace *t, tt_mpi_totals *tot, char *err,
    size_t errsz)
{
	tt_mpi_deps *d;
	tt_dep_stream s;
	tt_dep line;
	uint32_t r, idx;
	size_t i;
	int x;

	memset(tot, 0, sizeof(*tot));
	if (tt_mpi_deps_open(&d, t, err, errsz) < 0)
		return -1;
	s = tt_mpi_deps_stream(d);
	while ((x = s.next(s.ctx, &line, err, errsz)) > 0)
		;
	if (x == 0) {
		tot->p2p_messages = d->p2p;
		tot->p2p_bytes = d->p2p_bytes;
		tot->messages = d->p2p + d->coll_msgs;
		tot->bytes = d->p2p_bytes + d->coll_bytes;
		/* a collective once, by its comm's rank 0 (every member
		 * called it, or the run above failed) */
		for (r = 0; r < t->nranks; r++) {
			const tt_mpi_rank *k = &t->rank[r];

			for (i = 0; i < k->n; i++) {
				const tt_mpi_event *e = &k->ev[i];

				if (e->kind == TT_MPI_COMPUTE)
					tot->compute_ns += e->ns;
				else if (e->kind == TT_MPI_COLL &&
				    comm_index(d, e->comm, r, &idx) == 0 &&
				    idx == 0)
					tot->collectives++;
			}
		}
	}
	tt_mpi_deps_free(d);
	return x < 0 ? -1 : 0;
}

/* ---- reading: one reader per format (lib/sources/mpitrace_int.h) ---- */

int
tt_mpi_trace_is(const char *path)
{
	return tt_otf2_is(path) || tt_ti_is(path);
}

int
tt_mpi_trace_read(tt_mpi_trace *t, const char *path, double ti_flops,
    char *err, size_t errsz)
{
	memset(t, 0, sizeof(*t));
	if (tt_otf2_is(path))
		return tt_otf2_read(t, path, err, errsz);
	if (tt_ti_is(path))
		return tt_ti_read(t, path, ti_flops > 0 ? ti_flops :
		    TT_TI_FLOPS_DEFAULT, err, errsz);
	return tt_errf(err, errsz, "%s: not an MPI-level trace (an OTF2 "
	    "archive is named by its anchor file, FILE.otf2; a SimGrid "
	    "time-independent trace by its index file, or a directory "
	    "holding " TT_TI_INDEX ")", path);
}
