/*
 * Closed-loop motifs as a packet source (twintorus/motif.h).
 *
 * Each PE's program runs in its own time, pt (cycles): a compute step
 * moves pt on, a send generates a message at pt, a receive moves pt to
 * the message's arrival if that is later.  The engine drives it: a
 * program is advanced when its NIC asks for the next packet, which may be
 * later than pt (the NIC was busy with the packets of earlier sends); the
 * sends and receives keep their own times, so the program is the same as
 * if it had run eagerly, and so are the messages' generation cycles.  A
 * program that reaches a compute step ending after the current cycle says
 * TT_SRC_LATER; one at a receive whose message has not arrived says
 * TT_SRC_WAIT and is woken (tt_sim_wake()) in the cycle after the
 * message's last packet arrives.
 *
 * Packets, arrivals and counts are the message layer's (sources/msgsrc.h):
 * arrivals are counted at the destination, by (source PE, sequence); the
 * destination knows a message's size from the motif, so it needs nothing
 * from the source's rank in a partitioned run.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support/errf.h"
#include "sources/motif_int.h"
#include "sources/msgsrc.h"
#include "twintorus/params.h"

#define NONE MSGSRC_NONE

enum { PE_RUN, PE_WAIT, PE_DONE };

struct ape {
	uint64_t pt;            /* program time, cycles */
	uint64_t it;
	uint32_t i, rank;
	uint32_t seq;           /* the next send's sequence number */
	uint8_t state;
	/* a receive being waited for: (source PE, sequence) */
	uint32_t wait_src, wait_seq;
	uint64_t sent, received;
	/* the true dependencies: receives since the previous send */
	uint64_t last_send, pred_last;
	int has_sent;
	uint32_t npred, pcap;
	tt_depref *pred;
};

struct tt_motif_job {
	struct motif mo;
	tt_sim *sim;
	uint32_t npes, pe0, pe1;
	uint32_t *rank_pe;      /* n */
	uint32_t *pe_rank;      /* npes; NONE: not taking part */
	struct ape *pe;         /* pe1 - pe0 */
	struct msgsrc ms;       /* packets and arrivals */
	tt_record *rec;
	tt_deps_writer *deps;
	uint64_t iters_done, iters_all;
	volatile int stop;
	int failed;
	char err[256];
	tt_motif_result res;
};

static void
fail(tt_motif_job *a, const char *what)
{
	if (!a->failed)
		tt_errf(a->err, sizeof(a->err), "%s", what);
	a->failed = 1;
}

static uint64_t
node_ns(const tt_motif_job *a, uint32_t pe, uint64_t cycle)
{
	if (a->rec != NULL)
		return tt_record_ns(a->rec, pe, cycle);
	return TT_RECORD_EPOCH_NS + msgsrc_ns(&a->ms, cycle);
}

/* A send at pe of bytes to dst, numbered seq: its true dependencies, the
 * record, its release. */
static void
note_send(tt_motif_job *a, uint32_t pe, struct ape *e, uint32_t dst,
    uint32_t seq, uint64_t bytes)
{
	uint64_t base = e->pt;  /* the first send with nothing before it */

	/* the later of the previous send and the receives since */
	if (e->has_sent)
		base = e->last_send;
	if (e->npred > 0 && (!e->has_sent || e->pred_last > base))
		base = e->pred_last;
	if (a->deps != NULL) {
		tt_dep d;

		d.pe = pe;
		d.seq = seq;
		d.dst = dst;
		d.bytes = bytes;
		d.t_ns = node_ns(a, pe, e->pt);
		d.gap_ns = msgsrc_ns(&a->ms, e->pt - base);
		d.npred = e->npred;
		d.pred = e->pred;
		if (tt_deps_write(a->deps, &d) < 0)
			fail(a, tt_deps_write_error(a->deps) != NULL ?
			    tt_deps_write_error(a->deps) :
			    "the dependency file: write failed");
	}
	if (a->rec != NULL && tt_record_send(a->rec, e->pt, e->pt, pe,
	    dst, seq, bytes) < 0)
		fail(a, "recording failed");
	e->npred = 0;
	e->has_sent = 1;
	e->last_send = e->pt;
	e->sent++;
	msgsrc_send(&a->ms, pe, dst, seq, bytes, e->pt);
}

static void
note_recv(tt_motif_job *a, struct ape *e, uint32_t src, uint32_t seq, uint64_t at)
{
	e->received++;
	if (at > e->pt)
		e->pt = at;
	if (a->deps == NULL)
		return;
	if (e->npred == e->pcap) {
		uint32_t cap = e->pcap ? e->pcap * 2 : 8;
		tt_depref *g = realloc(e->pred, cap * sizeof(*g));

		if (g == NULL) {
			fail(a, "out of memory for dependencies");
			return;
		}
		e->pred = g;
		e->pcap = cap;
	}
	e->pred[e->npred].src = src;
	e->pred[e->npred++].seq = seq;
	if (at > e->pred_last || e->npred == 1)
		e->pred_last = at;
}

/* A receive step: 1 if the message is there (taken), 0 to wait. */
static int
try_recv(tt_motif_job *a, struct ape *e)
{
	uint32_t i = msgsrc_find(&a->ms, e->wait_src, e->wait_seq);

	if (i == NONE || !msgsrc_entry(&a->ms, i)->done)
		return 0;
	note_recv(a, e, e->wait_src, e->wait_seq,
	    msgsrc_entry(&a->ms, i)->done_at);
	msgsrc_drop(&a->ms, i);
	return 1;
}

static int
app_next(void *ctx, uint32_t pe, uint64_t now, tt_srcpkt *pk)
{
	tt_motif_job *a = ctx;
	struct ape *e = &a->pe[pe - a->pe0];
	struct mstep s;

	if (msgsrc_busy(&a->ms, pe)) {
		msgsrc_packet(&a->ms, pe, pk);
		return TT_SRC_PACKET;
	}
	if (e->state == PE_WAIT) {
		if (!try_recv(a, e))
			goto wait;
		e->state = PE_RUN;
		e->i++;
	}
	while (e->state == PE_RUN) {
		if (a->stop || a->failed) {
			e->state = PE_DONE;
			break;
		}
		if (!motif_step(&a->mo, e->rank, e->it, e->i, &s)) {
			a->iters_done++;
			if (++e->it == a->mo.p.iterations || e->i == 0)
				e->state = PE_DONE;
			e->i = 0;
			continue;
		}
		switch (s.kind) {
		case MSTEP_COMPUTE:
			e->pt += msgsrc_cycles(&a->ms, s.ns);
			e->i++;
			if (e->pt > now) {
				if (a->rec != NULL)
					tt_record_floor(a->rec, pe, e->pt, now);
				pk->gen = e->pt;
				return TT_SRC_LATER;
			}
			break;
		case MSTEP_SEND:
			note_send(a, pe, e, a->rank_pe[s.peer], e->seq++,
			    s.bytes);
			e->i++;
			msgsrc_packet(&a->ms, pe, pk);
			return TT_SRC_PACKET;
		default:
			e->wait_src = a->rank_pe[s.peer];
			e->wait_seq = (uint32_t)s.seq;
			if (!try_recv(a, e)) {
				e->state = PE_WAIT;
				goto wait;
			}
			e->i++;
			break;
		}
	}
	if (e->rank != NONE) {
		if (e->pt > a->res.finish)
			a->res.finish = e->pt;
		a->res.done++;
	}
	if (a->rec != NULL)
		tt_record_floor(a->rec, pe, UINT64_MAX, now);
	return TT_SRC_DONE;
wait:
	/* app_done() wakes it with the message's last packet */
	if (a->rec != NULL)
		tt_record_floor(a->rec, pe, TT_RECORD_WAITING, now);
	return TT_SRC_WAIT;
}

/* A packet of (src, seq) to a PE here, the first: its entry, of the size
 * the sender's program gives its messages. */
static int
app_unknown(void *ctx, uint32_t src, uint32_t dst, uint32_t seq)
{
	tt_motif_job *a = ctx;

	if (msgsrc_expect(&a->ms, src, dst, seq,
	    motif_bytes_from(&a->mo, a->pe_rank[src])) == NONE) {
		fail(a, "out of memory for arrivals");
		return -1;
	}
	return 0;
}

/* A message to a PE here arrived whole: the record, and the receive that
 * waits for it. */
static void
app_done(void *ctx, uint32_t i, const tt_delivery *d)
{
	tt_motif_job *a = ctx;
	const struct msg_entry *m = msgsrc_entry(&a->ms, i);
	struct ape *e;

	if (a->rec != NULL && tt_record_deliver(a->rec, d->deliver, d->src,
	    d->dst, d->tag, m->bytes) < 0)
		fail(a, "recording failed");
	e = &a->pe[d->dst - a->pe0];
	if (e->state == PE_WAIT && e->wait_src == d->src &&
	    e->wait_seq == d->tag)
		tt_sim_wake(a->sim, d->dst, d->deliver + 1);
}

int
tt_motif_create(tt_motif_job **ap, const tt_motif_params *p, tt_sim *sim, char *err,
    size_t errsz)
{
	tt_motif_job *a;
	struct msgsrc_params mp;
	uint32_t npes = tt_sim_pes(sim), n, r, pe;

	*ap = NULL;
	if (tt_motif_check(p, npes, err, errsz) < 0)
		return -1;
	if ((a = calloc(1, sizeof(*a))) == NULL)
		return tt_errf(err, errsz, "out of memory");
	n = p->ranks != NULL ? p->nranks : npes;
	if (motif_init(&a->mo, p, n, err, errsz) < 0) {
		free(a);
		return -1;
	}
	a->sim = sim;
	a->npes = npes;
	tt_sim_local(sim, &a->pe0, &a->pe1);
	a->res.first_send = UINT64_MAX;
	a->rank_pe = malloc(sizeof(uint32_t) * n);
	a->pe_rank = malloc(sizeof(uint32_t) * npes);
	a->pe = calloc(a->pe1 - a->pe0, sizeof(*a->pe));
	if (a->rank_pe == NULL || a->pe_rank == NULL || a->pe == NULL) {
		tt_motif_free(a);
		return tt_errf(err, errsz, "out of memory");
	}
	for (pe = 0; pe < npes; pe++)
		a->pe_rank[pe] = NONE;
	for (r = 0; r < n; r++) {
		a->rank_pe[r] = p->ranks != NULL ? p->ranks[r] : r;
		a->pe_rank[a->rank_pe[r]] = r;
	}
	for (pe = a->pe0; pe < a->pe1; pe++) {
		struct ape *e = &a->pe[pe - a->pe0];

		e->rank = a->pe_rank[pe];
		e->state = e->rank == NONE ? PE_DONE : PE_RUN;
		if (e->rank != NONE)
			a->iters_all += p->iterations;
	}
	mp.net = p->net;
	mp.where = MSG_AT_DST;
	mp.warmup = 0;
	mp.window_end = 0;
	mp.user_size = 0;
	mp.res = &a->res;
	mp.fields = msg_motif_fields;
	mp.nfields = msg_motif_nfields;
	mp.ctx = a;
	mp.done = app_done;
	mp.unknown = app_unknown;
	if (msgsrc_init(&a->ms, sim, &mp, err, errsz) < 0) {
		tt_motif_free(a);
		return -1;
	}
	*ap = a;
	return 0;
}

tt_source
tt_motif_source(tt_motif_job *a)
{
	tt_source s = {app_next, a};

	return s;
}

void
tt_motif_record(tt_motif_job *a, tt_record *rec)
{
	a->rec = rec;
}

void
tt_motif_deps(tt_motif_job *a, tt_deps_writer *w)
{
	a->deps = w;
}

void
tt_motif_stop(tt_motif_job *a)
{
	a->stop = 1;
}

double
tt_motif_progress(const tt_motif_job *a)
{
	return a->iters_all ? (double)a->iters_done / (double)a->iters_all : 1;
}

const char *
tt_motif_layout(const tt_motif_job *a, char *buf, size_t bufsz)
{
	return motif_layout(&a->mo, buf, bufsz);
}

const tt_motif_result *
tt_motif_result_get(const tt_motif_job *a)
{
	return &a->res;
}

uint64_t
tt_motif_makespan(const tt_motif_result *r)
{
	return msgsrc_makespan(r->first_send, r->last_delivery, r->messages);
}

int
tt_motif_pe(const tt_motif_job *a, uint32_t pe, uint32_t *rank, uint64_t *finish,
    uint64_t *sent, uint64_t *received)
{
	const struct ape *e;

	if (pe < a->pe0 || pe >= a->pe1 || a->pe_rank[pe] == NONE)
		return 0;
	e = &a->pe[pe - a->pe0];
	*rank = e->rank;
	*finish = e->pt;
	*sent = e->sent;
	*received = e->received;
	return 1;
}

uint64_t
tt_motif_waiting(const tt_motif_job *a, char *buf, size_t bufsz)
{
	uint64_t n = 0;
	uint32_t pe;

	if (bufsz > 0)
		buf[0] = '\0';
	for (pe = a->pe0; pe < a->pe1; pe++) {
		const struct ape *e = &a->pe[pe - a->pe0];

		if (e->state != PE_WAIT)
			continue;
		if (n++ == 0)
			snprintf(buf, bufsz, "PE %u (rank %u) waits for message "
			    "%u:%u from PE %u (iteration %llu)", pe, e->rank,
			    e->wait_src, e->wait_seq, e->wait_src,
			    (unsigned long long)e->it);
	}
	return n;
}

int
tt_motif_error(const tt_motif_job *a, char *err, size_t errsz)
{
	return a->failed ? tt_errf(err, errsz, "%s", a->err) : 0;
}

void
tt_motif_free(tt_motif_job *a)
{
	uint32_t pe;

	if (a == NULL)
		return;
	for (pe = 0; a->pe != NULL && pe < a->pe1 - a->pe0; pe++)
		free(a->pe[pe].pred);
	free(a->pe);
	free(a->rank_pe);
	free(a->pe_rank);
	msgsrc_free(&a->ms);
	free(a);
}
