/*
 * How the counts of a partitioned run combine into the serial run's: one
 * table, one row per field, saying which result it belongs to, where it
 * is, and how the ranks' values combine.  A field added to a result that
 * a partitioned run must total is added here and nowhere else.
 *
 * A field is a 64-bit count or a latency histogram.  A histogram is
 * 3 + TT_HIST_BINS words: its count, its sum (of whole cycles: exact in a
 * double and in a uint64_t), its max, its bins; the max is the largest,
 * the rest add up.
 */
#include <stddef.h>

#include "engine/sim_int.h"

enum field_kind { F_U64, F_HIST };

struct field {
	enum sim_set set;
	size_t off;
	enum field_kind kind;
	enum tt_sim_op op;      /* F_U64; a histogram's words are fixed */
};

#define RUN(f, op)      {SIM_SET_RUN, offsetof(tt_simresult, f), F_U64, op}
#define RUN_HIST(f)     {SIM_SET_RUN, offsetof(tt_simresult, f), F_HIST, TT_SIM_SUM}
#define EPOCH(f, op)    {SIM_SET_EPOCH, offsetof(struct sim_gstate, f), F_U64, op}
#define REPLAY(f, op)   {SIM_SET_REPLAY, offsetof(tt_replay_result, f), F_U64, op}
#define REPLAY_HIST(f)  {SIM_SET_REPLAY, offsetof(tt_replay_result, f), F_HIST, TT_SIM_SUM}
#define CAUSAL(f, op)   {SIM_SET_CAUSAL, offsetof(tt_causal_result, f), F_U64, op}
#define MOTIF(f, op)    {SIM_SET_MOTIF, offsetof(tt_motif_result, f), F_U64, op}
#define MOTIF_HIST(f)   {SIM_SET_MOTIF, offsetof(tt_motif_result, f), F_HIST, TT_SIM_SUM}

static const struct field fields[] = {
	/* a run's totals: every rank counted its own switches and PEs */
	RUN(generated, TT_SIM_SUM),
	RUN(injected, TT_SIM_SUM),
	RUN(delivered, TT_SIM_SUM),
	RUN(flits_window, TT_SIM_SUM),
	RUN(packets_window, TT_SIM_SUM),
	RUN(measured, TT_SIM_SUM),
	RUN(measured_generated, TT_SIM_SUM),
	RUN(measured_delivered, TT_SIM_SUM),
	RUN(hops_sum, TT_SIM_SUM),
	RUN(traversals, TT_SIM_SUM),
	RUN(internal_flits, TT_SIM_SUM),
	RUN_HIST(net_lat),
	RUN_HIST(e2e_lat),
	/* the stop rules' state at every epoch's end; a flit moved last in
	 * the latest cycle any rank moved one */
	EPOCH(inflight, TT_SIM_SUM),
	EPOCH(nactive, TT_SIM_SUM),
	EPOCH(nsleep, TT_SIM_SUM),
	EPOCH(early_pending, TT_SIM_SUM),
	EPOCH(measured, TT_SIM_SUM),
	EPOCH(measured_delivered, TT_SIM_SUM),
	EPOCH(last_move, TT_SIM_MAX),
	/* a replay's: each rank completed its own PEs' messages, so the
	 * counts add up and the last cycles are the latest; max_pending is
	 * the most messages one process held, the largest on any rank: it
	 * describes the process's memory, not the network */
	REPLAY(messages, TT_SIM_SUM),
	REPLAY(packets, TT_SIM_SUM),
	REPLAY(bytes, TT_SIM_SUM),
	REPLAY(last_done, TT_SIM_MAX),
	REPLAY(last_gen, TT_SIM_MAX),
	REPLAY(max_pending, TT_SIM_MAX),
	REPLAY(packets_window, TT_SIM_SUM),
	REPLAY_HIST(latency),
	/* a causal replay's, beside its replay counts (rr, as above): each
	 * rank released its own PEs' messages; every rank read the whole
	 * dependency stream, so its lines are not summed */
	CAUSAL(first_gen, TT_SIM_MIN),
	CAUSAL(waited, TT_SIM_SUM),
	CAUSAL(ignored, TT_SIM_SUM),
	/* a motif's: each rank ran its own PEs' programs and completed the
	 * messages they received */
	MOTIF(sent, TT_SIM_SUM),
	MOTIF(messages, TT_SIM_SUM),
	MOTIF(bytes, TT_SIM_SUM),
	MOTIF(packets, TT_SIM_SUM),
	MOTIF(first_send, TT_SIM_MIN),
	MOTIF(last_delivery, TT_SIM_MAX),
	MOTIF(finish, TT_SIM_MAX),
	MOTIF(done, TT_SIM_SUM),
	MOTIF_HIST(latency),
};

#define NFIELDS (sizeof(fields) / sizeof(fields[0]))
#define HIST_WORDS (3 + TT_HIST_BINS)

static size_t
field_words(const struct field *f)
{
	return f->kind == F_HIST ? HIST_WORDS : 1;
}

static enum tt_sim_op
word_op(const struct field *f, size_t i)
{
	if (f->kind == F_U64)
		return f->op;
	return i == 2 ? TT_SIM_MAX : TT_SIM_SUM;
}

static uint64_t
word_get(const struct field *f, const void *obj, size_t i)
{
	const char *at = (const char *)obj + f->off;
	const tt_hist *h = (const tt_hist *)(const void *)at;

	if (f->kind == F_U64)
		return *(const uint64_t *)(const void *)at;
	switch (i) {
	case 0:
		return h->count;
	case 1:
		return (uint64_t)h->sum;
	case 2:
		return h->max;
	default:
		return h->bin[i - 3];
	}
}

static void
word_set(const struct field *f, void *obj, size_t i, uint64_t v)
{
	char *at = (char *)obj + f->off;
	tt_hist *h = (tt_hist *)(void *)at;

	if (f->kind == F_U64) {
		*(uint64_t *)(void *)at = v;
		return;
	}
	switch (i) {
	case 0:
		h->count = v;
		break;
	case 1:
		h->sum = (double)v;
		break;
	case 2:
		h->max = v;
		break;
	default:
		h->bin[i - 3] = (uint32_t)v;
	}
}

static uint64_t
combine(enum tt_sim_op op, uint64_t a, uint64_t b)
{
	switch (op) {
	case TT_SIM_MAX:
		return a > b ? a : b;
	case TT_SIM_MIN:
		return a < b ? a : b;
	default:
		return a + b;
	}
}

size_t
sim_reduce_words(enum sim_set set)
{
	size_t k, n = 0;

	for (k = 0; k < NFIELDS; k++)
		if (fields[k].set == set)
			n += field_words(&fields[k]);
	return n;
}

size_t
sim_reduce_words_max(void)
{
	size_t n, most = 0;
	int set;

	for (set = 0; set < SIM_NSETS; set++)
		if ((n = sim_reduce_words((enum sim_set)set)) > most)
			most = n;
	return most;
}

void
sim_reduce_pack(enum sim_set set, const void *obj, uint64_t *w)
{
	size_t k, i;

	for (k = 0; k < NFIELDS; k++)
		if (fields[k].set == set)
			for (i = 0; i < field_words(&fields[k]); i++)
				*w++ = word_get(&fields[k], obj, i);
}

void
sim_reduce_rows(enum sim_set set, void *obj, const uint64_t *all,
    int nranks, size_t stride)
{
	size_t k, i, n = 0;
	int r;

	for (k = 0; k < NFIELDS; k++) {
		const struct field *f = &fields[k];

		if (f->set != set)
			continue;
		for (i = 0; i < field_words(f); i++, n++) {
			enum tt_sim_op op = word_op(f, i);
			uint64_t v = all[n];

			for (r = 1; r < nranks; r++)
				v = combine(op, v, all[(size_t)r * stride + n]);
			word_set(f, obj, i, v);
		}
	}
}

/* The words of the set that combine by op, between obj and buf in table
 * order: into buf if out, else back into obj.  Their number. */
static size_t
op_words(enum sim_set set, void *obj, uint64_t *buf, enum tt_sim_op op,
    int out)
{
	size_t k, i, n = 0;

	for (k = 0; k < NFIELDS; k++) {
		const struct field *f = &fields[k];

		if (f->set != set)
			continue;
		for (i = 0; i < field_words(f); i++) {
			if (word_op(f, i) != op)
				continue;
			if (out)
				buf[n] = word_get(f, obj, i);
			else
				word_set(f, obj, i, buf[n]);
			n++;
		}
	}
	return n;
}

/* One transport call per kind of combining that the set has. */
void
sim_reduce_all(const tt_sim_comm *comm, enum sim_set set, void *obj,
    uint64_t *buf)
{
	static const enum tt_sim_op ops[] = {TT_SIM_SUM, TT_SIM_MAX, TT_SIM_MIN};
	size_t o, n;

	if (comm == NULL || comm->nranks == 1)
		return;
	for (o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
		n = op_words(set, obj, buf, ops[o], 1);
		if (n == 0)
			continue;
		comm->allreduce(comm->ctx, buf, n, ops[o]);
		op_words(set, obj, buf, ops[o], 0);
	}
}
