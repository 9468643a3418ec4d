/*
 * Inferring dependencies from a trace (twintorus/infer.h has the rules).
 *
 * Events arrive in the order of the merged files, which is only roughly
 * time order across nodes (each node's clock is its own).  So each PE has
 * a timeline, a queue of its own events in its own order, worked off from
 * the head as far as it can be decided:
 *   - a receive (one frame delivered) needs the frame's send to have been
 *     read, and that send's message to be closed (no more frames can join
 *     it), to know whether this frame completes the message;
 *   - a send needs its message closed (its bytes are known) and every
 *     message received before it out (written): then its predecessors
 *     are known and come before it in the output.
 * What is blocked waits until the event that unblocks it is read; rule 3's
 * window bounds how long, so memory holds what is in flight and the clock
 * skew between nodes, not the trace.  PEs to work on go through a work
 * list, not recursion: unblocking chains can be as long as there are PEs.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "support/errf.h"
#include "sources/infer_int.h"

void
tt_infer_params_default(tt_infer_params *p)
{
	memset(p, 0, sizeof(*p));
	p->burst_gap_ns = TT_INFER_BURST_GAP_NS_DEFAULT;
	p->pause_ns = TT_INFER_PAUSE_NS_DEFAULT;
	p->ack_turn_ns = TT_INFER_ACK_TURN_NS_DEFAULT;
	p->window_ns = TT_INFER_WINDOW_NS_DEFAULT;
}

static void
warn(tt_infer *inf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
warn(tt_infer *inf, const char *fmt, ...)
{
	va_list ap;

	if (inf->nwarn == MAX_WARN)
		return;
	va_start(ap, fmt);
	vsnprintf(inf->warn[inf->nwarn++], sizeof(inf->warn[0]), fmt, ap);
	va_end(ap);
}

int
tt_infer_create(tt_infer **ip, const tt_infer_params *p, char *err,
    size_t errsz)
{
	tt_infer *inf;

	*ip = NULL;
	if (p->npes == 0)
		return tt_errf(err, errsz, "infer: no PEs");
	if ((inf = calloc(1, sizeof(*inf))) == NULL ||
	    (inf->pe = calloc(p->npes, sizeof(*inf->pe))) == NULL ||
	    (inf->work = malloc(sizeof(uint32_t) * p->npes)) == NULL) {
		if (inf != NULL)
			free(inf->pe);
		free(inf);
		return tt_errf(err, errsz, "out of memory");
	}
	inf->p = *p;
	inf->free_head = NONE;
	tt_u64map_init(&inf->frames);
	tt_u64map_init(&inf->flows);
	tt_u64map_init(&inf->tcp_sent);
	tt_u64map_init(&inf->tcp_had);
	*ip = inf;
	return 0;
}

/* ---- messages ---- */

static uint32_t
msg_new(tt_infer *inf)
{
	uint32_t i;

	if (inf->free_head != NONE) {
		i = inf->free_head;
		inf->free_head = inf->m[i].next;
	} else {
		if (inf->nm == inf->mcap) {
			uint32_t cap = inf->mcap ? inf->mcap * 2 : 1024;
			struct imsg *g = realloc(inf->m, cap * sizeof(*g));

			if (g == NULL)
				return NONE;
			inf->m = g;
			inf->mcap = cap;
		}
		i = inf->nm++;
	}
	memset(&inf->m[i], 0, sizeof(inf->m[i]));
	inf->m[i].used = 1;
	inf->m[i].onext = inf->m[i].oprev = NONE;
	if (++inf->held > inf->st.max_held)
		inf->st.max_held = inf->held;
	return i;
}

/* Free a message once nothing needs it: its line is out, its arrival is
 * settled (complete, or given up) and no PE holds it as received. */
static void
msg_maybe_free(tt_infer *inf, uint32_t i)
{
	struct imsg *m = &inf->m[i];

	if (!m->used || !m->emitted || !(m->complete || m->gone) || m->pending)
		return;
	free(m->fs);
	m->used = 0;
	m->next = inf->free_head;
	inf->free_head = i;
	inf->held--;
}

/*
 * What identifies a frame besides its (source, sequence): its size on the
 * wire, its class and, for TCP data, its connection and byte range.  A
 * delivery copy is the frame its send recorded only if these agree (and
 * it was delivered where the message went); a copy damaged on the way to
 * the trace, or a record misattributed, can carry the (source, sequence)
 * of another frame.  Hashed into 32 bits: a damaged copy that collides is
 * as likely as one that keeps all of these.
 */
static uint32_t
frame_fp(const tt_infer_ev *ev)
{
	uint64_t v[5] = {ev->bytes, (uint64_t)(uint32_t)ev->cls, ev->flow,
	    ev->tcp_seq, ev->tcp_len};
	uint64_t h = 0xcbf29ce484222325ull;
	size_t k;

	for (k = 0; k < 5; k++)
		h = (h ^ v[k]) * 0x100000001b3ull;
	return (uint32_t)(h ^ h >> 32);
}

static int
frame_add(tt_infer *inf, uint32_t i, uint32_t seq, uint32_t fp)
{
	struct imsg *m = &inf->m[i];
	struct iframe f = {seq, fp};

	if (!m->has_f0) {
		m->f0 = f;
		m->has_f0 = 1;
	} else {
		if (m->nfs == m->fscap) {
			uint32_t cap = m->fscap ? m->fscap * 2 : 8;
			struct iframe *g = realloc(m->fs, cap * sizeof(*g));

			if (g == NULL)
				return -1;
			m->fs = g;
			m->fscap = cap;
		}
		m->fs[m->nfs++] = f;
	}
	m->nframes++;
	return tt_u64map_put(&inf->frames, tt_u64map_key(m->src, seq), i);
}

/* Frame seq of message i, not yet delivered: its fp; NULL if it is not
 * one of them. */
static const struct iframe *
frame_find(const tt_infer *inf, uint32_t i, uint32_t seq)
{
	const struct imsg *m = &inf->m[i];
	uint32_t k;

	if (m->has_f0 && m->f0.seq == seq)
		return &m->f0;
	for (k = 0; k < m->nfs; k++)
		if (m->fs[k].seq == seq)
			return &m->fs[k];
	return NULL;
}

/* Frame f of message i (from frame_find()) delivered. */
static void
frame_done(tt_infer *inf, uint32_t i, const struct iframe *f)
{
	struct imsg *m = &inf->m[i];

	tt_u64map_del(&inf->frames, tt_u64map_key(m->src, f->seq));
	if (f == &m->f0)
		m->has_f0 = 0;
	else
		m->fs[f - m->fs] = m->fs[--m->nfs];
}

/* ---- the work list ---- */

static void
wake(tt_infer *inf, uint32_t pe)
{
	if (pe >= inf->p.npes || inf->pe[pe].queued)
		return;
	inf->pe[pe].queued = 1;
	inf->work[inf->nwork++] = pe;
}

/* ---- open TCP messages (rule 2) ---- */

static int
ensure_clock(tt_infer *inf, uint32_t c)
{
	uint32_t n, k;

	if (c < inf->nclocks)
		return 0;
	n = c + 8;
	if ((inf->ohead = realloc(inf->ohead, n * sizeof(uint32_t))) == NULL ||
	    (inf->otail = realloc(inf->otail, n * sizeof(uint32_t))) == NULL)
		return -1;
	for (k = inf->nclocks; k < n; k++)
		inf->ohead[k] = inf->otail[k] = NONE;
	inf->nclocks = n;
	return 0;
}

static void
open_unlink(tt_infer *inf, uint32_t i)
{
	struct imsg *m = &inf->m[i];

	if (m->oprev != NONE)
		inf->m[m->oprev].onext = m->onext;
	else if (inf->ohead[m->clock] == i)
		inf->ohead[m->clock] = m->onext;
	if (m->onext != NONE)
		inf->m[m->onext].oprev = m->oprev;
	else if (inf->otail[m->clock] == i)
		inf->otail[m->clock] = m->oprev;
	m->onext = m->oprev = NONE;
}

/* The open list stays in t_last order: a message that grows goes last. */
static void
open_append(tt_infer *inf, uint32_t i)
{
	struct imsg *m = &inf->m[i];
	uint32_t c = m->clock;

	m->oprev = inf->otail[c];
	m->onext = NONE;
	if (inf->otail[c] != NONE)
		inf->m[inf->otail[c]].onext = i;
	else
		inf->ohead[c] = i;
	inf->otail[c] = i;
}

static void
msg_close(tt_infer *inf, uint32_t i)
{
	struct imsg *m = &inf->m[i];
	uint32_t v;

	if (m->closed)
		return;
	m->closed = 1;
	if (m->flowkey != 0) {
		open_unlink(inf, i);
		if (tt_u64map_get(&inf->flows, m->flowkey, &v) && v == i)
			tt_u64map_del(&inf->flows, m->flowkey);
	}
	wake(inf, m->src);
	wake(inf, m->dst);
}

static uint64_t
flow_key(uint32_t pe, uint64_t flow)
{
	uint64_t k = flow ^ ((uint64_t)pe * 0x9e3779b97f4a7c15ull);

	return k == 0 ? 1 : k;
}

/*
 * Until when may a data segment still continue TCP message m (rule 2)?
 * For ever while its latest segment did not end a write (no PSH: Linux
 * marks a write's last segment, and the window can hold the rest of a
 * write back for any time).  After a PSH, what follows is a new write
 * and a message of its own, unless the message's segments came at the
 * network's pace (further apart than burst_gap_ns: ttd reads a PE's TAP
 * as fast as it can until its buffer for the PE is full, then as the
 * network takes frames) and this one keeps it: a kernel that waited for
 * memory pushed in the middle of a write; or unless the transport held
 * the rest back: a pure ACK of the connection reached the sender after
 * the PSH and this segment follows it within ack_turn_ns, the sender
 * having had no data since, and the PSH came on a full segment, as large
 * as the message's largest (on a slow link Linux sends a large write a
 * few full segments per ACK, each piece ending in PSH; a write's own end
 * is most often a shorter segment).  With `waiting`, the
 * time such an ACK may still come counts too (UINT64_MAX: the message is
 * only set aside, close_due()).
 */
static uint64_t
tcp_open_until(const tt_infer *inf, const struct imsg *m, int waiting)
{
	uint64_t until = m->t_last, a;

	if (!m->psh)
		return UINT64_MAX;
	if (m->nframes >= 2 && m->spacing > inf->p.burst_gap_ns)
		until = m->t_last + 2 * m->spacing;
	if (inf->pe[m->src].t_in > m->t_last || m->nframes < 2 ||
	    m->seg_last < m->seg_max)
		return until;
	if (m->t_ack <= m->t_last)
		return waiting ? UINT64_MAX : until;
	a = m->t_ack + inf->p.ack_turn_ns;
	return a > until ? a : until;
}

/* A pure ACK reached pe on connection `back`: pe's message the other way
 * may go on (tcp_open_until()). */
static void
ack_reverse(tt_infer *inf, uint32_t pe, uint64_t back, uint64_t t)
{
	uint32_t i;

	if (tt_u64map_get(&inf->flows, flow_key(pe, back), &i) &&
	    t > inf->m[i].t_last)
		inf->m[i].t_ack = t;
}

/* Rule 2 for TCP: does a data segment of ev continue m, the open message
 * on its connection?  The transport paced it, the application did not
 * pause (tcp_open_until()). */
static int
tcp_continues(const tt_infer *inf, const struct imsg *m,
    const tt_infer_ev *ev)
{
	if (m->closed || m->dst != ev->dst)
		return 0;
	return ev->t_ns <= tcp_open_until(inf, m, 0);
}

/*
 * Close clock c's messages that have had no segment for burst_gap_ns.  A
 * TCP message that may still go on (tcp_open_until()) is only set aside
 * (stalled): its next segment finds it, or rule 3's window or the end of
 * the time it may go on closes it (timeouts()).
 */
static void
close_due(tt_infer *inf, uint32_t c, uint64_t t)
{
	uint32_t i;

	while ((i = inf->ohead[c]) != NONE &&
	    inf->m[i].t_last + inf->p.burst_gap_ns < t) {
		if (inf->m[i].flowkey != 0 &&
		    tcp_open_until(inf, &inf->m[i], 1) >= t &&
		    t < inf->m[i].t_last + inf->p.window_ns) {
			open_unlink(inf, i);
			inf->m[i].stalled = 1;
			continue;
		}
		msg_close(inf, i);
	}
}

/* Data came to pe on connection `back`: pe's message the other way ends. */
static void
close_reverse(tt_infer *inf, uint32_t pe, uint64_t back)
{
	uint32_t i;

	if (tt_u64map_get(&inf->flows, flow_key(pe, back), &i))
		msg_close(inf, i);
}

/* ---- timelines ---- */

static int
q_push(tt_infer *inf, uint32_t pe, const struct item *it)
{
	struct ipe *e = &inf->pe[pe];

	if (e->qn == e->qcap) {
		uint32_t cap = e->qcap ? e->qcap * 2 : 16, k;
		struct item *g = malloc(cap * sizeof(*g));

		if (g == NULL)
			return -1;
		for (k = 0; k < e->qn; k++)
			g[k] = e->q[(e->qhead + k) % e->qcap];
		free(e->q);
		e->q = g;
		e->qcap = cap;
		e->qhead = 0;
	}
	e->q[(e->qhead + e->qn++) % e->qcap] = *it;
	wake(inf, pe);
	return 0;
}

static void
q_pop(struct ipe *e)
{
	e->qhead = (e->qhead + 1) % e->qcap;
	e->qn--;
}

static void
event_at(struct ipe *e, uint64_t t)
{
	if (!e->has_event) {
		e->has_event = 1;
		e->t_first = t;
	}
	if (t > e->t_end)
		e->t_end = t;
}

/*
 * A delivered frame at the head of pe's timeline: 1 done, 0 blocked.  It
 * is its send's only if it is consistent with it: the frame's message
 * went to pe, and the frame is one of it not yet delivered, with the same
 * frame_fp().  A copy that is not (damaged, or another PE's) is counted
 * and enables nothing: crediting it would give pe a message it never had
 * (a predecessor naming another PE's message) and leave the message's
 * real delivery without its send.
 */
static int
recv_item(tt_infer *inf, uint32_t pe, const struct item *it)
{
	struct ipe *e = &inf->pe[pe];
	const struct iframe *f;
	struct imsg *m;
	uint32_t i;

	if (!tt_u64map_get(&inf->frames, tt_u64map_key(it->a, it->b), &i)) {
		if (!inf->finished && inf->now < it->t + inf->p.window_ns)
			return 0;
		inf->st.lost_sends++;           /* rule 3 */
		event_at(e, it->t);
		return 1;
	}
	m = &inf->m[i];
	if (m->dst != pe || (f = frame_find(inf, i, it->b)) == NULL ||
	    f->fp != it->fp) {
		inf->st.mismatched++;
		event_at(e, it->t);
		return 1;
	}
	if (!m->closed)
		return 0;
	frame_done(inf, i, f);
	m->ndeliv++;
	if (it->t > m->t_arr || m->ndeliv == 1)
		m->t_arr = it->t;
	event_at(e, it->t);
	if (m->ndeliv < m->nframes)
		return 1;
	m->complete = 1;
	if (e->npend == MAX_PENDING) {
		/* a PE that only receives: the oldest enables nothing */
		inf->m[e->pend[0]].pending = 0;
		msg_maybe_free(inf, e->pend[0]);
		memmove(e->pend, e->pend + 1, (e->npend - 1) * sizeof(uint32_t));
		e->npend--;
		inf->st.passed_over++;
	}
	if (e->npend == e->pcap) {
		uint32_t cap = e->pcap ? e->pcap * 2 : 16;
		uint32_t *g = realloc(e->pend, cap * sizeof(*g));

		if (g == NULL) {
			inf->failed = 1;
			return 0;
		}
		e->pend = g;
		e->pcap = cap;
	}
	e->pend[e->npend++] = i;
	m->pending = 1;
	e->recv_since = 1;
	return 1;
}

struct pkey {
	uint64_t hi;            /* source << 32 | its burst */
	uint32_t seq, i;
};

static int
pkey_cmp(const void *a, const void *b)
{
	const struct pkey *x = a, *y = b;

	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sort pe's received messages by (source, source's burst, sequence), on
 * keys copied out of the pool (a burst of alltoall takes n - 1). */
static int
pend_sort(tt_infer *inf, struct ipe *e)
{
	struct pkey *k;
	uint32_t j;

	if (e->npend < 2)
		return 0;
	if ((k = malloc(e->npend * sizeof(*k))) == NULL)
		return -1;
	for (j = 0; j < e->npend; j++) {
		const struct imsg *m = &inf->m[e->pend[j]];

		k[j].hi = (uint64_t)m->src << 32 | m->burst;
		k[j].seq = m->seq;
		k[j].i = e->pend[j];
	}
	qsort(k, e->npend, sizeof(*k), pkey_cmp);
	for (j = 0; j < e->npend; j++)
		e->pend[j] = k[j].i;
	free(k);
	return 0;
}

/*
 * Rule 4.  The messages received since the previous burst, sorted by
 * (source, the source's burst, sequence), are taken by units: a source's
 * messages of one burst of its own.  A unit that answers the PE's previous
 * burst (its sender had received a message of that burst before sending
 * it) while an older unit of the same sender waits is early: that sender
 * is a step ahead.  Of the rest, the PE takes from every source as many of
 * its oldest units as it got from each: k, the fewest any source sent.  A
 * PE that waited for several steps of all its sources (a sweep's last
 * corner) takes them all; one waiting for a late source while another ran
 * ahead takes one of each.  When k > 1 the sources may instead all be a
 * step ahead of a PE that computed long: then its compute gaps decide,
 * taking one unit of each or k, whichever gives a gap nearer the mean
 * gap of the sends with predecessors so far (a PE's own past is no
 * guide: one wrong step would make the next ones wrong); on a tie, one.
 * What is not taken waits for the next burst.
 */
static uint32_t
units_of(const tt_infer *inf, const struct ipe *e, uint32_t k, uint32_t g,
    uint32_t prev, uint8_t *early)
{
	uint32_t j, u = 0, burst = 0;
	int old = 0;

	for (j = k; j < g; j++) {
		const struct imsg *m = &inf->m[e->pend[j]];

		early[j - k] = 0;
		if (j > k && m->burst == burst) {
			early[j - k] = early[j - k - 1];
			continue;
		}
		burst = m->burst;
		if (old && prev != 0 && m->ans == prev) {
			early[j - k] = 1;
			continue;
		}
		old = 1;
		u++;
	}
	return u;
}

/* The gap of a send at t after units 1..k of every source arrived. */
static uint64_t
gap_for(const tt_infer *inf, const struct ipe *e, uint32_t k, uint64_t t,
    uint8_t *early, uint32_t prev)
{
	uint64_t base = e->has_sent ? e->last_send : 0, latest = 0;
	uint32_t j, g, u, burst;
	int any = 0;

	for (j = 0; j < e->npend; j = g) {
		uint32_t src = inf->m[e->pend[j]].src, q;

		for (g = j; g < e->npend && inf->m[e->pend[g]].src == src; g++)
			;
		units_of(inf, e, j, g, prev, early);
		for (q = j, u = 0, burst = 0; q < g; q++) {
			const struct imsg *m = &inf->m[e->pend[q]];

			if (!early[q - j] && (u == 0 || m->burst != burst))
				u++;
			burst = m->burst;
			if (!early[q - j] && u <= k && (!any || m->t_arr > latest)) {
				latest = m->t_arr;
				any = 1;
			}
		}
	}
	if (any && (latest > base || !e->has_sent))
		base = latest;
	return t > base ? t - base : 0;
}

static uint64_t
absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

static int
grow_tmp(tt_infer *inf, struct ipe *e)
{
	if (inf->tmpcap < e->npend) {
		tt_depref *g = realloc(inf->tmp, e->npend * sizeof(*g));

		if (g == NULL)
			return -1;
		inf->tmp = g;
		inf->tmpcap = e->npend;
	}
	if (e->bpcap < e->npend) {
		struct bpred *g = realloc(e->bp, e->npend * sizeof(*g));

		if (g == NULL)
			return -1;
		e->bp = g;
		e->bpcap = e->npend;
	}
	return 0;
}

/* How many units of each source to take (see above). */
static uint32_t
units_to_take(tt_infer *inf, struct ipe *e, uint64_t t, uint8_t *early)
{
	uint32_t k, g, kmin = UINT32_MAX, prev = e->burst, u;
	uint64_t want;

	for (k = 0; k < e->npend; k = g) {
		uint32_t src = inf->m[e->pend[k]].src;

		for (g = k; g < e->npend && inf->m[e->pend[g]].src == src; g++)
			;
		if ((u = units_of(inf, e, k, g, prev, early)) < kmin)
			kmin = u;
	}
	if (kmin <= 1 || kmin == UINT32_MAX || inf->gap_n == 0)
		return kmin;
	want = inf->gap_sum / inf->gap_n;
	if (absdiff(gap_for(inf, e, 1, t, early, prev), want) <=
	    absdiff(gap_for(inf, e, kmin, t, early, prev), want))
		return 1;
	return kmin;
}

/* Fills inf->tmp and the PE's burst predecessors; returns how many, and
 * *latest their latest arrival.  t: the send's time. */
static uint32_t
take_preds(tt_infer *inf, struct ipe *e, uint64_t t, uint64_t *latest)
{
	uint32_t k, j, g, keep = 0, n = 0, prev = e->burst, kmin;
	uint8_t *early;

	if (pend_sort(inf, e) < 0 || grow_tmp(inf, e) < 0 ||
	    (early = malloc(e->npend + 1)) == NULL) {
		inf->failed = 1;
		return 0;
	}
	kmin = units_to_take(inf, e, t, early);
	for (k = 0; k < e->npend; k = g) {
		uint32_t src = inf->m[e->pend[k]].src, u = 0, burst = 0;

		for (g = k; g < e->npend && inf->m[e->pend[g]].src == src; g++)
			;
		units_of(inf, e, k, g, prev, early);
		for (j = k; j < g; j++) {
			uint32_t i = e->pend[j];
			struct imsg *m = &inf->m[i];

			if (!early[j - k] && (u == 0 || m->burst != burst))
				u++;
			burst = m->burst;
			if (early[j - k] || u > kmin) {
				if (++m->passes <= MAX_PASS) {
					e->pend[keep++] = i;
					continue;
				}
				inf->st.passed_over++;
			} else {
				inf->tmp[n].src = m->src;
				inf->tmp[n].seq = m->seq;
				e->bp[n].src = m->src;
				e->bp[n].burst = m->burst;
				if (n++ == 0 || m->t_arr > *latest)
					*latest = m->t_arr;
			}
			m->pending = 0;
			msg_maybe_free(inf, i);
		}
	}
	free(early);
	e->npend = keep;
	e->nbp = n;
	return n;
}

/*
 * Rule 4 for TCP: a send's predecessor is the latest message the PE had
 * received before it.  The others received since its previous send are
 * passed over now, not carried to a later send: whatever the application
 * waited for, it had all of it when the latest came, and a link kept for
 * later would make that later send wait for a message long arrived.
 */
static uint32_t
take_latest(tt_infer *inf, struct ipe *e, uint64_t *latest)
{
	uint32_t j, best = 0;

	if (e->npend == 0)
		return 0;
	if (grow_tmp(inf, e) < 0) {
		inf->failed = 1;
		return 0;
	}
	for (j = 1; j < e->npend; j++)
		if (inf->m[e->pend[j]].t_arr >= inf->m[e->pend[best]].t_arr)
			best = j;
	for (j = 0; j < e->npend; j++) {
		uint32_t i = e->pend[j];
		struct imsg *m = &inf->m[i];

		if (j == best) {
			inf->tmp[0].src = m->src;
			inf->tmp[0].seq = m->seq;
			e->bp[0].src = m->src;
			e->bp[0].burst = m->burst;
			*latest = m->t_arr;
		} else {
			inf->st.passed_over++;
		}
		m->pending = 0;
		msg_maybe_free(inf, i);
	}
	e->npend = 0;
	e->nbp = 1;
	return 1;
}

/* The latest burst of dst's that the current burst of e answers (its
 * predecessors are in source order: a binary search). */
static uint32_t
answers(const struct ipe *e, uint32_t dst)
{
	uint32_t lo = 0, hi = e->nbp, b = 0;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (e->bp[mid].src < dst)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < e->nbp && e->bp[lo].src == dst; lo++)
		if (e->bp[lo].burst > b)
			b = e->bp[lo].burst;
	return b;
}

static int
emit(tt_infer *inf, const tt_dep *d)
{
	struct oline *o = malloc(sizeof(*o) + d->npred * sizeof(tt_depref));

	if (o == NULL)
		return -1;
	o->d = *d;
	if (d->npred > 0)
		memcpy(o->pred, d->pred, d->npred * sizeof(tt_depref));
	o->d.pred = o->pred;
	if (inf->on == inf->ocap) {
		size_t cap = inf->ocap ? inf->ocap * 2 : 256, k;
		struct oline **g = malloc(cap * sizeof(*g));

		if (g == NULL) {
			free(o);
			return -1;
		}
		for (k = 0; k < inf->on; k++)
			g[k] = inf->out[(inf->ohd + k) % inf->ocap];
		free(inf->out);
		inf->out = g;
		inf->ocap = cap;
		inf->ohd = 0;
	}
	inf->out[(inf->ohd + inf->on++) % inf->ocap] = o;
	inf->st.messages++;
	inf->st.predecessors += d->npred;
	return 0;
}

/* The send at the head of pe's timeline: 1 done, 0 blocked. */
static int
send_item(tt_infer *inf, uint32_t pe, const struct item *it)
{
	struct ipe *e = &inf->pe[pe];
	struct imsg *m = &inf->m[it->a];
	uint64_t base, latest = 0;
	uint32_t k, i = it->a;
	tt_dep d;

	if (!m->closed)
		return 0;
	for (k = 0; k < e->npend; k++)
		if (!inf->m[e->pend[k]].emitted)
			return 0;       /* rule 6: its line must come first */
	memset(&d, 0, sizeof(d));
	if (m->flowkey != 0) {
		d.npred = take_latest(inf, e, &latest);
		d.pred = inf->tmp;
		e->burst++;
	} else if (!e->has_sent || e->recv_since ||
	    m->t_send > e->last_send + inf->p.pause_ns) {
		d.npred = take_preds(inf, e, m->t_send, &latest);
		d.pred = inf->tmp;
		e->burst++;
	}
	m = &inf->m[i];
	event_at(e, m->t_send);
	base = e->has_sent ? e->last_send : e->t_first;
	/* TCP: the application was free again once its previous message
	 * was out (the time the transport took to carry it is the
	 * network's, and replay, sending that message's packets before
	 * this one's, takes it again) */
	if (m->flowkey != 0 && e->has_sent && e->last_end > base)
		base = e->last_end;
	if (d.npred > 0 && (!e->has_sent || latest > base))
		base = latest;
	d.pe = pe;
	d.seq = m->seq;
	d.dst = m->dst;
	d.bytes = m->bytes;
	d.t_ns = m->t_send;
	d.gap_ns = m->t_send > base ? m->t_send - base : 0;
	if (d.npred > 0)
		d.gap_ns = d.gap_ns > inf->p.turnaround_ns ?
		    d.gap_ns - inf->p.turnaround_ns : 0;
	e->gap_sum += d.gap_ns;
	inf->st.gap_ns += d.gap_ns;
	if (d.npred > 0) {
		inf->gap_sum += d.gap_ns;
		inf->gap_n++;
	}
	if (emit(inf, &d) < 0) {
		inf->failed = 1;
		return 0;
	}
	m->burst = e->burst;
	m->ans = answers(e, m->dst);
	m->emitted = 1;
	e->last_send = m->t_send;
	e->last_end = m->t_last;
	e->has_sent = 1;
	e->recv_since = 0;
	if (m->pending)
		wake(inf, m->dst);
	msg_maybe_free(inf, i);
	return 1;
}

static void
advance(tt_infer *inf, uint32_t pe)
{
	struct ipe *e = &inf->pe[pe];

	while (e->qn > 0 && !inf->failed) {
		struct item it = e->q[e->qhead];

		if (!(it.kind == IT_RECV ? recv_item(inf, pe, &it) :
		    send_item(inf, pe, &it)))
			return;
		q_pop(e);
	}
}

static void
run_work(tt_infer *inf)
{
	while (inf->nwork > 0) {
		uint32_t pe = inf->work[--inf->nwork];

		inf->pe[pe].queued = 0;
		advance(inf, pe);
	}
}

/* Frame seq of message i will not be delivered: out of the table, if
 * the table's entry is still i's (a later send may have taken the key). */
static void
frame_forget(tt_infer *inf, uint32_t i, uint32_t seq)
{
	uint64_t key = tt_u64map_key(inf->m[i].src, seq);
	uint32_t v;

	if (tt_u64map_get(&inf->frames, key, &v) && v == i)
		tt_u64map_del(&inf->frames, key);
}

/* Rule 3's window, checked now and then: deliveries that wait for a send
 * that never came, messages a frame of which never arrives. */
static void
timeouts(tt_infer *inf)
{
	uint32_t i, pe;

	for (pe = 0; pe < inf->p.npes; pe++)
		if (inf->pe[pe].qn > 0)
			wake(inf, pe);
	for (i = 0; i < inf->nm; i++) {
		struct imsg *m = &inf->m[i];
		uint32_t k;

		/* a stalled TCP message no ACK brought back */
		if (m->used && m->stalled && !m->closed && (inf->finished ||
		    inf->now >= m->t_last + inf->p.window_ns ||
		    inf->now > tcp_open_until(inf, m, 1)))
			msg_close(inf, i);
		if (!m->used || !m->emitted || m->complete || m->gone ||
		    !m->closed || (!inf->finished &&
		    inf->now < m->t_last + inf->p.window_ns))
			continue;
		/* the frames that came are in; the rest never will */
		if (m->has_f0)
			frame_forget(inf, i, m->f0.seq);
		for (k = 0; k < m->nfs; k++)
			frame_forget(inf, i, m->fs[k].seq);
		m->has_f0 = 0;
		m->nfs = 0;
		m->gone = 1;
		inf->st.undelivered++;
		msg_maybe_free(inf, i);
	}
	run_work(inf);
}

/* A frame sent: a new message, or the next segment of an open one. */
static int
send_frame(tt_infer *inf, const tt_infer_ev *ev, uint32_t fp)
{
	uint64_t key = 0;
	uint32_t i = NONE;
	struct item it;

	inf->st.frames++;
	if (ev->cls == TT_INFER_TCP_DATA) {
		key = flow_key(ev->src, ev->flow);
		if (tt_u64map_get(&inf->flows, key, &i) &&
		    !tcp_continues(inf, &inf->m[i], ev)) {
			msg_close(inf, i);
			i = NONE;
		}
	}
	if (i != NONE) {
		inf->st.grouped++;
		inf->m[i].stalled = 0;
		inf->m[i].spacing = ev->t_ns - inf->m[i].t_last;
		open_unlink(inf, i);
		open_append(inf, i);
	} else {
		if ((i = msg_new(inf)) == NONE)
			return -1;
		inf->m[i].src = ev->src;
		inf->m[i].seq = ev->seq;
		inf->m[i].dst = ev->dst;
		inf->m[i].t_send = ev->t_ns;
		inf->m[i].clock = ev->clock;
		it.kind = IT_SEND;
		it.t = ev->t_ns;
		it.a = i;
		it.b = 0;
		it.fp = 0;
		if (q_push(inf, ev->src, &it) < 0)
			return -1;
		if (key != 0) {
			inf->m[i].flowkey = key;
			if (tt_u64map_put(&inf->flows, key, i) < 0)
				return -1;
			open_append(inf, i);
		} else {
			inf->m[i].closed = 1;
		}
	}
	inf->m[i].t_last = ev->t_ns;
	inf->m[i].bytes += ev->bytes;
	if (ev->cls == TT_INFER_TCP_DATA) {
		inf->m[i].psh = ev->tcp_psh;
		inf->m[i].seg_last = ev->tcp_len;
		if (ev->tcp_len > inf->m[i].seg_max)
			inf->m[i].seg_max = ev->tcp_len;
	}
	if (frame_add(inf, i, ev->seq, fp) < 0)
		return -1;
	wake(inf, ev->dst);     /* a delivery may wait for this send */
	return 0;
}

/*
 * Rule 1's retransmissions: a data segment whose bytes all lie before the
 * end of what its sender has sent on the connection (or, for a delivery
 * copy, of what its receiver has had) is a repeat.  TCP sequence numbers
 * wrap: compared as serial numbers.  (An event without a range, tcp_len
 * 0, is not looked at.)  A delivery copy of a frame sent and not yet
 * delivered is no repeat: consistent with that frame (recv_item()), its
 * bytes are had; not consistent, they are not (a damaged copy must not
 * make the real one that follows look like a repeat).  1 a repeat, 0 new
 * data, -1 out of memory.
 */
static int
tcp_repeat(tt_infer *inf, const tt_infer_ev *ev, uint32_t fp)
{
	int dlv = ev->delivered != 0;
	tt_u64map *m = dlv ? &inf->tcp_had : &inf->tcp_sent;
	uint64_t key = flow_key(dlv ? ev->dst : ev->src, ev->flow);
	uint32_t end = ev->tcp_seq + ev->tcp_len, had, i;
	const struct iframe *f;
	int known = tt_u64map_get(m, key, &had);

	if (dlv && tt_u64map_get(&inf->frames, tt_u64map_key(ev->src,
	    ev->seq), &i)) {
		f = frame_find(inf, i, ev->seq);
		if (inf->m[i].dst != ev->dst || f == NULL || f->fp != fp ||
		    (known && (int32_t)(end - had) <= 0))
			return 0;
		return tt_u64map_put(m, key, end) < 0 ? -1 : 0;
	}
	if (known && (int32_t)(end - had) <= 0)
		return 1;
	return tt_u64map_put(m, key, end) < 0 ? -1 : 0;
}

int
tt_infer_feed(tt_infer *inf, const tt_infer_ev *ev)
{
	uint32_t fp = frame_fp(ev);
	struct item it;
	int r;

	if (inf->failed)
		return -1;
	if (ev->src >= inf->p.npes || ev->dst >= inf->p.npes)
		return 0;
	if (ensure_clock(inf, ev->clock) < 0) {
		inf->failed = 1;
		return -1;
	}
	if (ev->t_ns > inf->now)
		inf->now = ev->t_ns;
	close_due(inf, ev->clock, ev->t_ns);
	switch (ev->cls) {
	case TT_INFER_TCP_ACK:
		inf->st.tcp_acks++;
		if (ev->delivered || ev->arrives || inf->p.no_copies)
			ack_reverse(inf, ev->dst, ev->rflow, ev->t_ns);
		goto out;
	case TT_INFER_TCP_CTL: inf->st.tcp_control++; goto out;
	case TT_INFER_ARP: inf->st.arp++; goto out;
	case TT_INFER_ND: inf->st.nd++; goto out;
	default: break;
	}
	if (ev->cls == TT_INFER_TCP_DATA && ev->tcp_len > 0 &&
	    (r = tcp_repeat(inf, ev, fp)) != 0) {
		if (r < 0) {
			inf->failed = 1;
			return -1;
		}
		inf->st.tcp_retrans++;
		goto out;
	}
	/* data coming to a PE ends its message the other way (rule 2) */
	if (ev->delivered || ev->arrives || inf->p.no_copies) {
		if (ev->t_ns > inf->pe[ev->dst].t_in)
			inf->pe[ev->dst].t_in = ev->t_ns;
		if (ev->cls == TT_INFER_TCP_DATA)
			close_reverse(inf, ev->dst, ev->rflow);
	}
	if (!ev->delivered && send_frame(inf, ev, fp) < 0) {
		inf->failed = 1;
		return -1;
	}
	if (ev->delivered || ev->arrives || inf->p.no_copies) {
		if (ev->delivered)
			inf->st.deliveries++;
		it.kind = IT_RECV;
		it.t = ev->t_ns;
		it.a = ev->src;
		it.b = ev->seq;
		it.fp = fp;
		if (q_push(inf, ev->dst, &it) < 0) {
			inf->failed = 1;
			return -1;
		}
	}
out:
	/* rule 3's window, looked at every eighth of it */
	if (inf->now >= inf->next_check) {
		timeouts(inf);
		inf->next_check = inf->now + inf->p.window_ns / 8 + 1;
	}
	run_work(inf);
	return inf->failed ? -1 : 0;
}

/*
 * Rule 6 at the end: what still waits waits on a cycle.  The lowest PE
 * whose next send waits for a message not yet out drops that dependency.
 */
static void
break_cycles(tt_infer *inf)
{
	uint32_t pe, k, keep;

	for (;;) {
		for (pe = 0; pe < inf->p.npes; pe++)
			if (inf->pe[pe].qn > 0)
				break;
		if (pe == inf->p.npes || inf->failed)
			return;
		for (; pe < inf->p.npes; pe++) {
			struct ipe *e = &inf->pe[pe];

			if (e->qn == 0 || e->q[e->qhead].kind != IT_SEND)
				continue;
			for (k = 0, keep = 0; k < e->npend; k++) {
				struct imsg *m = &inf->m[e->pend[k]];

				if (m->emitted) {
					e->pend[keep++] = e->pend[k];
					continue;
				}
				inf->st.cycles_broken++;
				warn(inf, "a cycle in the dependencies: PE %u's "
				    "message %u:%u waits for %u:%u, which waits "
				    "on it; that dependency is dropped", pe, pe,
				    inf->m[e->q[e->qhead].a].seq, m->src, m->seq);
				m->pending = 0;
			}
			e->npend = keep;
			wake(inf, pe);
			break;
		}
		run_work(inf);
		if (pe == inf->p.npes)
			return;         /* nothing to break: cannot happen */
	}
}

/* The compute figures of tt_infer_stats, at the end. */
static void
gap_shares(tt_infer *inf)
{
	uint64_t t0 = UINT64_MAX, t1 = 0;
	uint32_t pe, n = 0;
	double sum = 0;

	for (pe = 0; pe < inf->p.npes; pe++) {
		const struct ipe *e = &inf->pe[pe];

		if (!e->has_event)
			continue;
		if (e->t_first < t0)
			t0 = e->t_first;
		if (e->t_end > t1)
			t1 = e->t_end;
	}
	if (t0 == UINT64_MAX || t1 <= t0)
		return;
	inf->st.span_ns = t1 - t0;
	for (pe = 0; pe < inf->p.npes; pe++) {
		double sh;

		if (!inf->pe[pe].has_sent)
			continue;
		sh = (double)inf->pe[pe].gap_sum / (double)inf->st.span_ns;
		sum += sh;
		n++;
		if (sh > inf->st.gap_share_max)
			inf->st.gap_share_max = sh;
	}
	inf->st.gap_share_mean = n ? sum / n : 0;
}

void
tt_infer_end(tt_infer *inf)
{
	uint32_t c;

	if (inf->finished)
		return;
	inf->finished = 1;
	for (c = 0; c < inf->nclocks; c++)
		while (inf->ohead[c] != NONE)
			msg_close(inf, inf->ohead[c]);
	for (c = 0; c < inf->nm; c++)
		if (inf->m[c].used && !inf->m[c].closed)
			msg_close(inf, c);      /* stalled */
	/* what waited for those to close goes first: a delivery queued
	 * behind a PE's open message is no frame that never came */
	run_work(inf);
	timeouts(inf);
	break_cycles(inf);
	timeouts(inf);
	for (c = 0; c < inf->p.npes; c++) {
		struct ipe *e = &inf->pe[c];
		uint32_t k;

		for (k = 0; k < e->npend; k++) {
			inf->m[e->pend[k]].pending = 0;
			msg_maybe_free(inf, e->pend[k]);
		}
		inf->st.passed_over += e->npend;
		e->npend = 0;
	}
	gap_shares(inf);
}

int
tt_infer_pop(tt_infer *inf, tt_dep *d)
{
	free(inf->popped);
	inf->popped = NULL;
	if (inf->on == 0)
		return 0;
	inf->popped = inf->out[inf->ohd];
	inf->ohd = (inf->ohd + 1) % inf->ocap;
	inf->on--;
	*d = inf->popped->d;
	return 1;
}

const tt_infer_stats *
tt_infer_stats_get(const tt_infer *inf)
{
	return &inf->st;
}

void
tt_infer_warnings(const tt_infer *inf, FILE *f, const char *prefix)
{
	const tt_infer_stats *s = &inf->st;
	int k;

	if (s->lost_sends)
		fprintf(f, "%s%" PRIu64 " delivery copies whose send is not in "
		    "the trace (lost, or the sender's capture began later): "
		    "they enable nothing\n", prefix, s->lost_sends);
	if (s->mismatched)
		fprintf(f, "%s%" PRIu64 " delivery copies that do not match "
		    "the send of their source and sequence (another "
		    "destination, size or TCP range: damaged, or not that "
		    "frame): they enable nothing\n", prefix, s->mismatched);
	if (s->undelivered)
		fprintf(f, "%s%" PRIu64 " messages with a frame that was never "
		    "delivered: replayed, but they enable nothing\n", prefix,
		    s->undelivered);
	if (inf->p.no_copies && s->frames > 0)
		fprintf(f, "%sthe trace has no delivery copies: each frame is "
		    "taken as received when it was captured (an approximation)"
		    "\n", prefix);
	for (k = 0; k < inf->nwarn; k++)
		fprintf(f, "%s%s\n", prefix, inf->warn[k]);
	if (s->cycles_broken > (uint64_t)inf->nwarn)
		fprintf(f, "%s... %" PRIu64 " dependencies dropped to break "
		    "cycles in all\n", prefix, s->cycles_broken);
}

void
tt_infer_free(tt_infer *inf)
{
	uint32_t i;

	if (inf == NULL)
		return;
	infer_reader_free(inf->rd);
	for (i = 0; i < inf->p.npes; i++) {
		free(inf->pe[i].q);
		free(inf->pe[i].pend);
		free(inf->pe[i].bp);
	}
	for (i = 0; i < inf->nm; i++)
		if (inf->m[i].used)
			free(inf->m[i].fs);
	while (inf->on > 0) {
		free(inf->out[inf->ohd]);
		inf->ohd = (inf->ohd + 1) % inf->ocap;
		inf->on--;
	}
	free(inf->out);
	free(inf->popped);
	free(inf->pe);
	free(inf->m);
	free(inf->work);
	free(inf->ohead);
	free(inf->otail);
	free(inf->tmp);
	tt_u64map_free(&inf->frames);
	tt_u64map_free(&inf->flows);
	tt_u64map_free(&inf->tcp_sent);
	tt_u64map_free(&inf->tcp_had);
	free(inf);
}

