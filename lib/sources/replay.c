/*
 * Replaying a trace: messages in, packets out (twintorus/replay.h).
 *
 * Messages wait in one FIFO per source PE, in slots of a pool that grows
 * only when more messages are held at once than ever before.  A packet
 * carries its message's slot as its tag, so that the last packet to arrive
 * completes the message whatever order its packets took.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support/errf.h"
#include "engine/sim_part.h"
#include "twintorus/params.h"
#include "twintorus/replay.h"

#define NONE UINT32_MAX

struct rmsg {
	tt_msg m;
	uint64_t gen;
	uint32_t npk;           /* packets */
	uint32_t sent;          /* handed to the NIC */
	uint32_t left;          /* not yet arrived */
	uint32_t last_flits;    /* of its last packet (0: a full one) */
	uint32_t next;          /* in the PE's queue, or the free list */
	int gen_set;
};

struct tt_replay {
	tt_replay_params p;
	tt_trace_in *in;
	uint32_t npes;
	uint32_t pe0, pe1;              /* the PEs simulated here */
	double cycle_ns, scale;         /* cycles per trace ns */
	uint64_t pkt_bytes;

	struct rmsg *slot;
	uint32_t nslot, hw, free_head, used;   /* hw: slots ever used */
	uint32_t *qhead, *qtail;
	uint64_t queued;                /* messages not yet wholly sent */

	tt_msg peek;                    /* the next message of the trace */
	uint64_t peek_gen;
	int have_peek, eof, have_t0;
	uint64_t t0, nread;
	char err[512];
	int failed;

	void (*on_msg)(void *, const tt_msgdone *);
	void *msg_ctx;
	tt_replay_result res;
};

void
tt_replay_params_default(tt_replay_params *p)
{
	p->net.packet_flits = TT_PACKET_FLITS_DEFAULT;
	p->net.flit_bytes = TT_FLIT_BYTES_DEFAULT;
	p->net.link_gbps = TT_LINK_GBPS_DEFAULT;
	p->speed = 1;
	p->lookahead = TT_REPLAY_LOOKAHEAD_DEFAULT;
	p->warmup = 0;
	p->window_end = 0;
}


/* A free slot: a returned one, else one never used, else a bigger pool.
 * Slots are touched only when first used, so memory follows the most
 * messages held at once, not the pool's capacity. */
static uint32_t
slot_get(tt_replay *rp)
{
	uint32_t i;

	if (rp->free_head != NONE) {
		i = rp->free_head;
		rp->free_head = rp->slot[i].next;
	} else {
		if (rp->hw == rp->nslot) {
			uint32_t cap = rp->nslot ? rp->nslot * 2 : 1024;
			struct rmsg *g;

			if (rp->nslot >= UINT32_MAX / 2)
				return NONE;
			g = realloc(rp->slot, (size_t)cap * sizeof(*g));
			if (g == NULL)
				return NONE;
			rp->slot = g;
			rp->nslot = cap;
		}
		i = rp->hw++;
	}
	if (++rp->used > rp->res.max_pending)
		rp->res.max_pending = rp->used;
	return i;
}

static void
slot_put(tt_replay *rp, uint32_t i)
{
	rp->slot[i].next = rp->free_head;
	rp->free_head = i;
	rp->used--;
}

/* Read the trace's next message into peek; 0 at the end or on error. */
static int
peek_next(tt_replay *rp)
{
	int x;

	if (rp->have_peek)
		return 1;
	if (rp->eof)
		return 0;
	x = tt_trace_in_next(rp->in, &rp->peek, rp->err, sizeof(rp->err));
	if (x <= 0) {
		rp->eof = 1;
		rp->failed = x < 0;
		return 0;
	}
	rp->nread++;
	if (!rp->have_t0) {
		rp->t0 = rp->peek.t_ns;
		rp->have_t0 = 1;
	}
	rp->peek_gen = rp->p.speed > 0 ?
	    (uint64_t)llround((double)(rp->peek.t_ns - rp->t0) * rp->scale) : 0;
	rp->have_peek = 1;
	return 1;
}

/* Queue peek at its PE. */
static int
push_peek(tt_replay *rp)
{
	uint32_t i = slot_get(rp), pe = rp->peek.src;
	struct rmsg *s;

	if (i == NONE) {
		tt_errf(rp->err, sizeof(rp->err), "out of memory holding %u "
		    "messages", rp->used);
		rp->failed = rp->eof = 1;
		return -1;
	}
	s = &rp->slot[i];
	s->m = rp->peek;
	s->gen = rp->peek_gen;
	s->gen_set = rp->p.speed > 0;
	s->npk = rp->peek.bytes == 0 ? 1 :
	    (uint32_t)((rp->peek.bytes + rp->pkt_bytes - 1) / rp->pkt_bytes);
	s->last_flits = tt_last_packet_flits(rp->peek.bytes,
	    rp->p.net.packet_flits, rp->p.net.flit_bytes);
	s->sent = s->left = 0;
	s->next = NONE;
	if (rp->qtail[pe] == NONE)
		rp->qhead[pe] = i;
	else
		rp->slot[rp->qtail[pe]].next = i;
	rp->qtail[pe] = i;
	rp->queued++;
	rp->have_peek = 0;
	return 0;
}

static int
replay_next(void *ctx, uint32_t pe, uint64_t now, tt_srcpkt *pk)
{
	tt_replay *rp = ctx;
	struct rmsg *s;
	uint32_t i;

	/* Read what is due by now, and up to lookahead messages more. */
	while (peek_next(rp)) {
		/* another rank's PE: that rank reads it too */
		if (rp->peek.src - rp->pe0 >= rp->pe1 - rp->pe0) {
			rp->have_peek = 0;
			continue;
		}
		if (rp->p.speed > 0 && rp->peek_gen > now &&
		    rp->queued >= rp->p.lookahead)
			break;
		if (rp->p.speed == 0 && rp->queued >= rp->p.lookahead)
			break;
		if (push_peek(rp) < 0)
			break;
	}
	i = rp->qhead[pe];
	if (i == NONE) {
		if (rp->failed || !rp->have_peek)
			return TT_SRC_DONE;
		/* nothing of pe's is due before the first unread message; as
		 * fast as possible, wait for the queues to make room */
		pk->gen = rp->p.speed > 0 ? rp->peek_gen :
		    now + (uint64_t)rp->p.net.packet_flits;
		return TT_SRC_LATER;
	}
	s = &rp->slot[i];
	if (!s->gen_set) {
		s->gen = now;
		s->gen_set = 1;
	}
	pk->gen = s->gen;
	pk->dst = s->m.dst;
	pk->tag = i;
	s->sent++;
	s->left++;
	if (s->sent == s->npk) {
		pk->flits = s->last_flits;
		rp->qhead[pe] = s->next;
		if (s->next == NONE)
			rp->qtail[pe] = NONE;
		rp->queued--;
	}
	rp->res.packets++;
	return TT_SRC_PACKET;
}

static void
replay_deliver(void *ctx, const tt_delivery *d)
{
	tt_replay *rp = ctx;
	struct rmsg *s = &rp->slot[d->tag];
	tt_msgdone md;

	if (d->deliver >= rp->p.warmup && (rp->p.window_end == 0 ||
	    d->deliver < rp->p.window_end))
		rp->res.packets_window++;
	if (--s->left > 0 || s->sent < s->npk)
		return;
	rp->res.messages++;
	rp->res.bytes += s->m.bytes;
	if (d->deliver > rp->res.last_done)
		rp->res.last_done = d->deliver;
	if (s->gen > rp->res.last_gen)
		rp->res.last_gen = s->gen;
	if (s->gen >= rp->p.warmup && (rp->p.window_end == 0 ||
	    s->gen < rp->p.window_end))
		tt_hist_add(&rp->res.latency, d->deliver - s->gen);
	if (rp->on_msg != NULL) {
		md.m = s->m;
		md.gen = s->gen;
		md.done = d->deliver;
		md.packets = s->npk;
		rp->on_msg(rp->msg_ctx, &md);
	}
	slot_put(rp, d->tag);
}

int
tt_replay_create(tt_replay **rpp, tt_trace_in *in, const tt_replay_params *p,
    tt_sim *sim, char *err, size_t errsz)
{
	tt_replay *rp;
	uint32_t i, npes = tt_sim_pes(sim);

	*rpp = NULL;
	if (p->net.packet_flits < 1 || p->net.flit_bytes < 1 || !(p->net.link_gbps > 0) ||
	    p->speed < 0 || p->lookahead < 1)
		return tt_errf(err, errsz, "replay: bad parameters");
	rp = calloc(1, sizeof(*rp));
	if (rp == NULL)
		return tt_errf(err, errsz, "out of memory");
	rp->p = *p;
	rp->in = in;
	rp->npes = npes;
	tt_sim_local(sim, &rp->pe0, &rp->pe1);
	rp->cycle_ns = tt_cycle_ns(p->net.flit_bytes, p->net.link_gbps);
	rp->scale = p->speed > 0 ? 1.0 / (rp->cycle_ns * p->speed) : 0;
	rp->pkt_bytes = (uint64_t)p->net.packet_flits * (uint64_t)p->net.flit_bytes;
	rp->free_head = NONE;
	rp->qhead = malloc(sizeof(uint32_t) * npes);
	rp->qtail = malloc(sizeof(uint32_t) * npes);
	if (rp->qhead == NULL || rp->qtail == NULL) {
		tt_replay_free(rp);
		return tt_errf(err, errsz, "out of memory");
	}
	for (i = 0; i < npes; i++)
		rp->qhead[i] = rp->qtail[i] = NONE;
	if (tt_sim_on_deliver(sim, replay_deliver, rp, err, errsz) < 0) {
		tt_replay_free(rp);
		return -1;
	}
	*rpp = rp;
	return 0;
}

tt_source
tt_replay_source(tt_replay *rp)
{
	tt_source s = {replay_next, rp};

	return s;
}

void
tt_replay_on_message(tt_replay *rp, void (*fn)(void *, const tt_msgdone *),
    void *ctx)
{
	rp->on_msg = fn;
	rp->msg_ctx = ctx;
}

uint64_t
tt_replay_read(const tt_replay *rp)
{
	return rp->nread;
}

const tt_replay_result *
tt_replay_result_get(const tt_replay *rp)
{
	return &rp->res;
}

int
tt_replay_error(const tt_replay *rp, char *err, size_t errsz)
{
	if (!rp->failed)
		return 0;
	return tt_errf(err, errsz, "%s", rp->err);
}

void
tt_replay_free(tt_replay *rp)
{
	if (rp == NULL)
		return;
	free(rp->slot);
	free(rp->qhead);
	free(rp->qtail);
	free(rp);
}
