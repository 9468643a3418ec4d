/*
 * Replaying a trace: messages in, packets out (twintorus/replay.h).
 *
 * The release policy of open-loop replay on the message layer
 * (sources/msgsrc.h): a message is an entry from the moment it is read,
 * waits in its PE's FIFO, and is released at its time (as fast as
 * possible: when its PE's NIC asks).  Its packets carry the entry as their
 * tag, so that the last packet to arrive completes the message whatever
 * order its packets took; the layer counts it on the sender's rank.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support/errf.h"
#include "sources/msgsrc.h"
#include "twintorus/params.h"
#include "twintorus/replay.h"

#define NONE MSGSRC_NONE

/* replay's part of an entry */
struct rmsg {
	tt_msg m;
	uint64_t gen;
	uint32_t next;          /* in the PE's queue */
	int gen_set;
};

struct tt_replay {
	tt_replay_params p;
	tt_trace_in *in;
	uint32_t npes;
	uint32_t pe0, pe1;              /* the PEs simulated here */
	double cycle_ns, scale;         /* cycles per trace ns */
	struct msgsrc ms;

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

static struct rmsg *
rmsg_of(const tt_replay *rp, uint32_t i)
{
	return msgsrc_user(&rp->ms, i);
}

void
tt_replay_params_default(tt_replay_params *p)
{
	p->net.packet_flits = TT_PACKET_FLITS_DEFAULT;
	p->net.flit_bytes = TT_FLIT_BYTES_DEFAULT;
	p->net.link_gbps = TT_LINK_GBPS_DEFAULT;
	p->speed = TT_REPLAY_SPEED_DEFAULT;
	p->lookahead = TT_REPLAY_LOOKAHEAD_DEFAULT;
	p->warmup = TT_REPLAY_WARMUP_DEFAULT;
	p->window_end = 0;
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
	uint32_t i, pe = rp->peek.src;
	struct rmsg *s;

	i = msgsrc_expect(&rp->ms, pe, rp->peek.dst, 0, rp->peek.bytes);
	if (i == NONE) {
		tt_errf(rp->err, sizeof(rp->err), "out of memory holding %llu "
		    "messages", (unsigned long long)rp->ms.live);
		rp->failed = rp->eof = 1;
		return -1;
	}
	if (rp->ms.live > rp->res.max_pending)
		rp->res.max_pending = rp->ms.live;
	s = rmsg_of(rp, i);
	s->m = rp->peek;
	s->gen = rp->peek_gen;
	s->gen_set = rp->p.speed > 0;
	s->next = NONE;
	if (rp->qtail[pe] == NONE)
		rp->qhead[pe] = i;
	else
		rmsg_of(rp, rp->qtail[pe])->next = i;
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
	if (!msgsrc_busy(&rp->ms, pe)) {
		i = rp->qhead[pe];
		if (i == NONE) {
			if (rp->failed || !rp->have_peek)
				return TT_SRC_DONE;
			/* nothing of pe's is due before the first unread
			 * message; as fast as possible, wait for the queues
			 * to make room */
			pk->gen = rp->p.speed > 0 ? rp->peek_gen :
			    now + (uint64_t)rp->p.net.packet_flits;
			return TT_SRC_LATER;
		}
		/* the head's time has come: the engine asks in generation
		 * order */
		s = rmsg_of(rp, i);
		if (!s->gen_set) {
			s->gen = now;
			s->gen_set = 1;
		}
		msgsrc_send(&rp->ms, pe, s->m.dst, i, s->m.bytes, s->gen);
		rp->qhead[pe] = s->next;
		if (s->next == NONE)
			rp->qtail[pe] = NONE;
	}
	if (msgsrc_packet(&rp->ms, pe, pk))
		rp->queued--;
	return TT_SRC_PACKET;
}

static void
replay_done(void *ctx, uint32_t id, const tt_delivery *d)
{
	tt_replay *rp = ctx;
	struct rmsg *s = rmsg_of(rp, id);
	tt_msgdone md;

	if (rp->on_msg != NULL) {
		md.m = s->m;
		md.gen = s->gen;
		md.done = d->deliver;
		md.packets = (uint32_t)msgsrc_entry(&rp->ms, id)->npk;
		rp->on_msg(rp->msg_ctx, &md);
	}
	msgsrc_drop(&rp->ms, id);
}

int
tt_replay_create(tt_replay **rpp, tt_trace_in *in, const tt_replay_params *p,
    tt_sim *sim, char *err, size_t errsz)
{
	tt_replay *rp;
	struct msgsrc_params mp;
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
	rp->qhead = malloc(sizeof(uint32_t) * npes);
	rp->qtail = malloc(sizeof(uint32_t) * npes);
	if (rp->qhead == NULL || rp->qtail == NULL) {
		tt_replay_free(rp);
		return tt_errf(err, errsz, "out of memory");
	}
	for (i = 0; i < npes; i++)
		rp->qhead[i] = rp->qtail[i] = NONE;
	mp.net = p->net;
	mp.where = MSG_AT_SRC;
	mp.warmup = p->warmup;
	mp.window_end = p->window_end;
	mp.user_size = sizeof(struct rmsg);
	mp.res = &rp->res;
	mp.fields = msg_replay_fields;
	mp.nfields = msg_replay_nfields;
	mp.ctx = rp;
	mp.done = replay_done;
	mp.unknown = NULL;
	if (msgsrc_init(&rp->ms, sim, &mp, err, errsz) < 0) {
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
	msgsrc_free(&rp->ms);
	free(rp->qhead);
	free(rp->qtail);
	free(rp);
}
