/*
 * The message layer (sources/msgsrc.h): packets, arrivals, the counts
 * every message source reports and their reduction over ranks.
 *
 * Entries live in one pool that doubles when full and is reused through
 * a free list, so memory follows the most messages held at once.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "support/errf.h"
#include "sources/msgsrc.h"
#include "twintorus/params.h"

#define NROWS(t) (sizeof(t) / sizeof((t)[0]))

/* How a partitioned run combines each of the layer's counts: each rank
 * released and completed its own PEs' messages, so counts add up, the
 * first cycle is the earliest and the last ones the latest. */
static const enum tt_sim_op count_op[MSG_NCOUNTS] = {
	[MSG_RELEASED] = TT_SIM_SUM,
	[MSG_PK_SENT] = TT_SIM_SUM,
	[MSG_FIRST_REL] = TT_SIM_MIN,
	[MSG_LAST_REL] = TT_SIM_MAX,
	[MSG_MESSAGES] = TT_SIM_SUM,
	[MSG_PACKETS] = TT_SIM_SUM,
	[MSG_BYTES] = TT_SIM_SUM,
	[MSG_LAST_DONE] = TT_SIM_MAX,
	[MSG_LAST_GEN] = TT_SIM_MAX,
	[MSG_PK_WINDOW] = TT_SIM_SUM,
	[MSG_LATENCY] = TT_SIM_SUM,
};

static void
deliver(void *ctx, const tt_delivery *d)
{
	struct msgsrc *ms = ctx;
	struct msg_entry *e;
	uint32_t id;

	if (ms->p.where == MSG_AT_SRC) {
		id = d->tag;
	} else {
		/* on_deliver on the source's rank, on_arrive on the
		 * destination's: the destination's side alone counts */
		if (d->dst - ms->pe0 >= ms->pe1 - ms->pe0)
			return;
		while ((id = msgsrc_find(ms, d->src, d->tag)) == MSGSRC_NONE)
			if (ms->p.unknown(ms->p.ctx, d->src, d->dst, d->tag) < 0)
				return;
	}
	e = msgsrc_entry(ms, id);
	if (d->deliver >= ms->p.warmup && (ms->p.window_end == 0 ||
	    d->deliver < ms->p.window_end))
		(*ms->c[MSG_PK_WINDOW])++;
	if (++e->got < e->npk)
		return;
	e->done = 1;
	e->done_at = d->deliver;
	(*ms->c[MSG_MESSAGES])++;
	*ms->c[MSG_PACKETS] += e->npk;
	*ms->c[MSG_BYTES] += e->bytes;
	if (d->deliver > *ms->c[MSG_LAST_DONE])
		*ms->c[MSG_LAST_DONE] = d->deliver;
	if (d->gen > *ms->c[MSG_LAST_GEN])
		*ms->c[MSG_LAST_GEN] = d->gen;
	if (d->gen >= ms->p.warmup && (ms->p.window_end == 0 ||
	    d->gen < ms->p.window_end))
		tt_hist_add(ms->latency, d->deliver - d->gen);
	ms->p.done(ms->p.ctx, id, d);
}

int
msgsrc_init(struct msgsrc *ms, tt_sim *sim, const struct msgsrc_params *p,
    char *err, size_t errsz)
{
	size_t k;

	memset(ms, 0, sizeof(*ms));
	ms->p = *p;
	ms->sim = sim;
	ms->npes = tt_sim_pes(sim);
	tt_sim_local(sim, &ms->pe0, &ms->pe1);
	ms->pkt_bytes = (uint64_t)p->net.packet_flits *
	    (uint64_t)p->net.flit_bytes;
	ms->cycle_ns = tt_cycle_ns(p->net.flit_bytes, p->net.link_gbps);
	ms->stride = sizeof(struct msg_entry) + (p->user_size + 7) / 8 * 8;
	ms->free_head = MSGSRC_NONE;
	tt_u64map_init(&ms->by_key);
	for (k = 0; k < MSG_NCOUNTS; k++)
		ms->c[k] = &ms->sink[k];
	ms->latency = &ms->sink_hist;
	for (k = 0; k < p->nfields; k++) {
		const struct msg_field *f = &p->fields[k];
		char *at = (char *)p->res + f->off;

		if (f->what == MSG_LATENCY)
			ms->latency = (tt_hist *)(void *)at;
		else if (f->what < MSG_NCOUNTS)
			ms->c[f->what] = (uint64_t *)(void *)at;
	}
	*ms->c[MSG_FIRST_REL] = UINT64_MAX;
	ms->out = calloc(ms->pe1 - ms->pe0 ? ms->pe1 - ms->pe0 : 1,
	    sizeof(*ms->out));
	if (ms->out == NULL)
		return tt_errf(err, errsz, "out of memory");
	if (tt_sim_on_deliver(sim, deliver, ms, err, errsz) < 0) {
		msgsrc_free(ms);
		return -1;
	}
	if (p->where == MSG_AT_DST)
		tt_sim_on_arrive(sim, deliver, ms);
	return 0;
}

void
msgsrc_free(struct msgsrc *ms)
{
	free(ms->out);
	free(ms->ent);
	tt_u64map_free(&ms->by_key);
	ms->out = NULL;
	ms->ent = NULL;
}

double
msgsrc_cycles_f(const struct msgsrc *ms, double ns)
{
	return ns / ms->cycle_ns;
}

uint64_t
msgsrc_cycles(const struct msgsrc *ms, double ns)
{
	return (uint64_t)llround(ns / ms->cycle_ns);
}

uint64_t
msgsrc_ns(const struct msgsrc *ms, uint64_t cycles)
{
	return (uint64_t)llround((double)cycles * ms->cycle_ns);
}

uint32_t
msgsrc_expect(struct msgsrc *ms, uint32_t src, uint32_t dst, uint32_t seq,
    uint64_t bytes)
{
	struct msg_entry *e;
	uint32_t id;

	if (ms->free_head != MSGSRC_NONE) {
		id = ms->free_head;
		ms->free_head = msgsrc_entry(ms, id)->next;
	} else {
		if (ms->nent == ms->cap) {
			uint32_t cap = ms->cap ? ms->cap * 2 : 1024;
			unsigned char *g;

			if (ms->cap >= UINT32_MAX / 2)
				return MSGSRC_NONE;
			g = realloc(ms->ent, (size_t)cap * ms->stride);
			if (g == NULL)
				return MSGSRC_NONE;
			ms->ent = g;
			ms->cap = cap;
		}
		id = ms->nent++;
	}
	e = msgsrc_entry(ms, id);
	e->bytes = bytes;
	e->npk = msgsrc_packets(ms, bytes);
	e->got = 0;
	e->done_at = 0;
	e->src = src;
	e->dst = dst;
	e->seq = seq;
	e->next = MSGSRC_NONE;
	e->live = 1;
	e->done = 0;
	if (ms->p.where == MSG_AT_DST &&
	    tt_u64map_put(&ms->by_key, tt_u64map_key(src, seq), id) < 0) {
		e->live = 0;
		e->next = ms->free_head;
		ms->free_head = id;
		return MSGSRC_NONE;
	}
	ms->live++;
	return id;
}

uint32_t
msgsrc_find(const struct msgsrc *ms, uint32_t src, uint32_t seq)
{
	uint32_t id;

	if (!tt_u64map_get(&ms->by_key, tt_u64map_key(src, seq), &id))
		return MSGSRC_NONE;
	return id;
}

uint64_t
msgsrc_makespan(uint64_t first_rel, uint64_t last_done, uint64_t messages)
{
	if (messages == 0 || first_rel == UINT64_MAX || last_done < first_rel)
		return 0;
	return last_done + 1 - first_rel;
}

/* The rows of a result whose fields are f[0..n): at most rows_max. */
#define ROWS_MAX 16

static size_t
rows_of(const struct msg_field *f, size_t n, tt_sim_row *rows)
{
	size_t k;

	for (k = 0; k < n && k < ROWS_MAX; k++) {
		rows[k].off = f[k].off;
		rows[k].kind = f[k].what == MSG_LATENCY ? TT_SIM_HIST :
		    TT_SIM_U64;
		rows[k].op = f[k].what < MSG_NCOUNTS ? count_op[f[k].what] :
		    f[k].op;
	}
	return k;
}

static void
reduce(const tt_sim *sim, const struct msg_field *f, size_t n, void *res)
{
	tt_sim_row rows[ROWS_MAX];

	tt_sim_reduce(sim, rows, rows_of(f, n, rows), res);
}

/*
 * Where each source keeps the counts: its results' fields.  Beside the
 * layer's, a source's own: max_pending is the most messages one process
 * held, the largest on any rank (it describes the process's memory, not
 * the network); a causal replay's waits and ignored predecessors add up
 * (every rank read the whole dependency stream, so its lines are not
 * summed); a motif's programs' ends are the latest and their count adds
 * up.
 */
#define F(type, field, what) {what, offsetof(type, field), TT_SIM_SUM}
#define OWN(type, field, op) {MSG_OWN, offsetof(type, field), op}

const struct msg_field msg_replay_fields[] = {
	F(tt_replay_result, messages, MSG_MESSAGES),
	F(tt_replay_result, packets, MSG_PK_SENT),
	F(tt_replay_result, bytes, MSG_BYTES),
	F(tt_replay_result, last_done, MSG_LAST_DONE),
	F(tt_replay_result, last_gen, MSG_LAST_GEN),
	F(tt_replay_result, packets_window, MSG_PK_WINDOW),
	F(tt_replay_result, latency, MSG_LATENCY),
	OWN(tt_replay_result, max_pending, TT_SIM_MAX),
};
const size_t msg_replay_nfields = NROWS(msg_replay_fields);

/* the replay's counts, except that a release is its generation */
const struct msg_field msg_causal_fields[] = {
	F(tt_causal_result, rr.messages, MSG_MESSAGES),
	F(tt_causal_result, rr.packets, MSG_PK_SENT),
	F(tt_causal_result, rr.bytes, MSG_BYTES),
	F(tt_causal_result, rr.last_done, MSG_LAST_DONE),
	F(tt_causal_result, rr.last_gen, MSG_LAST_REL),
	F(tt_causal_result, rr.packets_window, MSG_PK_WINDOW),
	F(tt_causal_result, rr.latency, MSG_LATENCY),
	F(tt_causal_result, first_gen, MSG_FIRST_REL),
	OWN(tt_causal_result, rr.max_pending, TT_SIM_MAX),
	OWN(tt_causal_result, waited, TT_SIM_SUM),
	OWN(tt_causal_result, ignored, TT_SIM_SUM),
};
const size_t msg_causal_nfields = NROWS(msg_causal_fields);

const struct msg_field msg_motif_fields[] = {
	F(tt_motif_result, sent, MSG_RELEASED),
	F(tt_motif_result, messages, MSG_MESSAGES),
	F(tt_motif_result, bytes, MSG_BYTES),
	F(tt_motif_result, packets, MSG_PACKETS),
	F(tt_motif_result, first_send, MSG_FIRST_REL),
	F(tt_motif_result, last_delivery, MSG_LAST_DONE),
	F(tt_motif_result, latency, MSG_LATENCY),
	OWN(tt_motif_result, finish, TT_SIM_MAX),
	OWN(tt_motif_result, done, TT_SIM_SUM),
};
const size_t msg_motif_nfields = NROWS(msg_motif_fields);

void
tt_replay_reduce(const tt_sim *sim, tt_replay_result *rr)
{
	reduce(sim, msg_replay_fields, msg_replay_nfields, rr);
}

void
tt_causal_reduce(const tt_sim *sim, tt_causal_result *r)
{
	reduce(sim, msg_causal_fields, msg_causal_nfields, r);
}

void
tt_motif_reduce(const tt_sim *sim, tt_motif_result *r)
{
	reduce(sim, msg_motif_fields, msg_motif_nfields, r);
}
