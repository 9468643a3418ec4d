/*
 * How the counts of a partitioned run combine into the serial run's.  A
 * result is described by rows (tt_sim_row, engine/sim_part.h): where each
 * count is and how the ranks' values combine.  The engine's own results
 * are the two tables here; a source hands its own rows to
 * tt_sim_reduce(), so that the engine knows no source's layout.  A field
 * added to a result that a partitioned run must total is added to its
 * table and nowhere else.
 *
 * A row is a 64-bit count or a latency histogram.  A histogram is
 * 3 + TT_HIST_BINS words: its count, its sum (of whole cycles: exact in a
 * double and in a uint64_t), its max, its bins; the max is the largest,
 * the rest add up.
 */
#include <stddef.h>

#include "engine/sim_int.h"

#define RUN(f, op)      TT_SIM_ROW(tt_simresult, f, op)
#define RUN_HIST(f)     TT_SIM_ROW_HIST(tt_simresult, f)
#define EPOCH(f, op)    TT_SIM_ROW(struct sim_gstate, f, op)

/* a run's totals: every rank counted its own switches and PEs */
static const tt_sim_row run_rows[] = {
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
};

/* the stop rules' state at every epoch's end; a flit moved last in the
 * latest cycle any rank moved one */
static const tt_sim_row epoch_rows[] = {
	EPOCH(inflight, TT_SIM_SUM),
	EPOCH(nactive, TT_SIM_SUM),
	EPOCH(nsleep, TT_SIM_SUM),
	EPOCH(early_pending, TT_SIM_SUM),
	EPOCH(measured, TT_SIM_SUM),
	EPOCH(measured_delivered, TT_SIM_SUM),
	EPOCH(last_move, TT_SIM_MAX),
};

#define NROWS(t) (sizeof(t) / sizeof((t)[0]))
#define HIST_WORDS (3 + TT_HIST_BINS)

const tt_sim_row *
sim_rows(enum sim_set set, size_t *n)
{
	if (set == SIM_SET_EPOCH) {
		*n = NROWS(epoch_rows);
		return epoch_rows;
	}
	*n = NROWS(run_rows);
	return run_rows;
}

static size_t
row_words(const tt_sim_row *f)
{
	return f->kind == TT_SIM_HIST ? HIST_WORDS : 1;
}

static enum tt_sim_op
word_op(const tt_sim_row *f, size_t i)
{
	if (f->kind == TT_SIM_U64)
		return f->op;
	return i == 2 ? TT_SIM_MAX : TT_SIM_SUM;
}

static uint64_t
word_get(const tt_sim_row *f, const void *obj, size_t i)
{
	const char *at = (const char *)obj + f->off;
	const tt_hist *h = (const tt_hist *)(const void *)at;

	if (f->kind == TT_SIM_U64)
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
word_set(const tt_sim_row *f, void *obj, size_t i, uint64_t v)
{
	char *at = (char *)obj + f->off;
	tt_hist *h = (tt_hist *)(void *)at;

	if (f->kind == TT_SIM_U64) {
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
sim_reduce_words(const tt_sim_row *rows, size_t nrows)
{
	size_t k, n = 0;

	for (k = 0; k < nrows; k++)
		n += row_words(&rows[k]);
	return n;
}

size_t
sim_reduce_words_max(void)
{
	size_t a = sim_reduce_words(run_rows, NROWS(run_rows));
	size_t b = sim_reduce_words(epoch_rows, NROWS(epoch_rows));

	return a > b ? a : b;
}

void
sim_reduce_pack(const tt_sim_row *rows, size_t nrows, const void *obj,
    uint64_t *w)
{
	size_t k, i;

	for (k = 0; k < nrows; k++)
		for (i = 0; i < row_words(&rows[k]); i++)
			*w++ = word_get(&rows[k], obj, i);
}

void
sim_reduce_rows(const tt_sim_row *rows, size_t nrows, void *obj,
    const uint64_t *all, int nranks, size_t stride)
{
	size_t k, i, n = 0;
	int r;

	for (k = 0; k < nrows; k++) {
		const tt_sim_row *f = &rows[k];

		for (i = 0; i < row_words(f); i++, n++) {
			enum tt_sim_op op = word_op(f, i);
			uint64_t v = all[n];

			for (r = 1; r < nranks; r++)
				v = combine(op, v, all[(size_t)r * stride + n]);
			word_set(f, obj, i, v);
		}
	}
}

/* The words of the rows that combine by op, numbered in row order, those
 * numbered [from, from + cap) between obj and buf: into buf if out, else
 * back into obj.  How many there are in all. */
static size_t
op_words(const tt_sim_row *rows, size_t nrows, void *obj, uint64_t *buf,
    enum tt_sim_op op, size_t from, size_t cap, int out)
{
	size_t k, i, n = 0;

	for (k = 0; k < nrows; k++) {
		const tt_sim_row *f = &rows[k];

		for (i = 0; i < row_words(f); i++) {
			if (word_op(f, i) != op)
				continue;
			if (n >= from && n - from < cap) {
				if (out)
					buf[n - from] = word_get(f, obj, i);
				else
					word_set(f, obj, i, buf[n - from]);
			}
			n++;
		}
	}
	return n;
}

/* One transport call per kind of combining that the rows have and per
 * bufn words of it. */
void
sim_reduce_all(const tt_sim_comm *comm, const tt_sim_row *rows, size_t nrows,
    void *obj, uint64_t *buf, size_t bufn)
{
	static const enum tt_sim_op ops[] = {TT_SIM_SUM, TT_SIM_MAX, TT_SIM_MIN};
	size_t o, n, from;

	if (comm == NULL || comm->nranks == 1)
		return;
	for (o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
		n = op_words(rows, nrows, obj, buf, ops[o], 0, bufn, 1);
		for (from = 0; from < n; from += bufn) {
			size_t m = n - from < bufn ? n - from : bufn;

			if (from > 0)
				op_words(rows, nrows, obj, buf, ops[o], from,
				    bufn, 1);
			comm->allreduce(comm->ctx, buf, m, ops[o]);
			op_words(rows, nrows, obj, buf, ops[o], from, bufn, 0);
		}
	}
}
