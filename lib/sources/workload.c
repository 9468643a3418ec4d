/*
 * Synthetic workloads (twintorus/workload.h): the motifs' programs
 * (lib/sources/motif.c) scheduled open loop, the process grid, and the
 * merge of the PEs' streams into time order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support/errf.h"
#include "sources/motif_int.h"
#include "twintorus/params.h"
#include "twintorus/traffic.h"
#include "twintorus/workload.h"

/* Idle time between iterations, ns: the iteration's slack. */
#define APP_GAP_NS 5000.0
/* A receive's step beyond its message's serialisation and a half, ns. */
#define APP_STEP_NS 1000.0

/* A PE waiting in the merge with its next message. */
struct pend {
	tt_msg m;
	uint32_t pe;
};

/* A rank's program of one iteration, read ahead. */
struct iter_shape {
	uint32_t steps;         /* steps of the iteration */
	uint32_t sends;
	int paced;              /* some send follows a receive */
	int trailing;           /* its last step computes (the phase) */
	double compute;         /* compute steps other than the trailing one */
	uint64_t bytes;         /* of its sends */
};

struct tt_workload {
	int is_motif;                   /* 0: a traffic source */
	struct motif mo;
	uint32_t npes;
	uint64_t bytes;                 /* a traffic source's messages */
	double period;                  /* ns between iteration starts */
	double step_ns;                 /* a receive */
	/* per PE */
	tt_rng *rng;
	uint64_t *iter;
	uint32_t *idx, *seq, *steps, *recvs, *run;
	double *offset;                 /* this iteration's compute phase */
	double *inline_ns;              /* compute steps so far */
	/* a traffic source */
	tt_source src;
	double cycle_ns;
	/* the merge: a heap of PEs by (time, PE) */
	struct pend *heap;
	size_t nheap;
	int started;
};

static double
ser_ns(const tt_workload *w, uint64_t bytes)
{
	return tt_wire_ns(bytes, w->mo.p.net.link_gbps);
}

/* Rank r's program of iteration it, read ahead: what its schedule needs. */
static void
iter_shape(const tt_workload *w, uint32_t r, uint64_t it,
    struct iter_shape *sh)
{
	struct mstep s;
	uint32_t recvs = 0;
	int prev = -1;
	double pending = 0;

	memset(sh, 0, sizeof(*sh));
	for (sh->steps = 0; motif_step(&w->mo, r, it, sh->steps, &s);
	    sh->steps++) {
		if (prev == MSTEP_COMPUTE)      /* not the trailing one */
			sh->compute += pending;
		prev = s.kind;
		if (s.kind == MSTEP_COMPUTE) {
			pending = s.ns;
		} else if (s.kind == MSTEP_SEND) {
			sh->sends++;
			sh->bytes = s.bytes;
			sh->paced |= recvs > 0;
		} else {
			recvs++;
		}
	}
	sh->trailing = prev == MSTEP_COMPUTE;
}

/* An iteration's length without its compute phase: a burst rank's sending
 * twice, or a paced rank's sends one step each, plus its compute steps. */
static double
iter_span(const tt_workload *w, const struct iter_shape *sh)
{
	if (sh->paced)
		return sh->compute + sh->sends * w->step_ns;
	return sh->compute + 2 * sh->sends * ser_ns(w, sh->bytes);
}

/* The step and the period, from every rank's program (the programs repeat
 * every iteration, sweep3d's every four). */
static void
motif_plan(tt_workload *w)
{
	struct iter_shape sh;
	uint64_t big = 0, it, its = w->mo.p.iterations < 4 ?
	    w->mo.p.iterations : 4;
	double span = 0, x;
	uint32_t r;

	for (r = 0; r < w->npes; r++)
		if (motif_bytes_from(&w->mo, r) > big)
			big = motif_bytes_from(&w->mo, r);
	w->step_ns = 1.5 * ser_ns(w, big) + APP_STEP_NS;
	for (r = 0; r < w->npes; r++)
		for (it = 0; it < its; it++) {
			iter_shape(w, r, it, &sh);
			x = iter_span(w, &sh);
			if (x > span)
				span = x;
		}
	w->period = w->mo.p.compute_ns * (1.0 + w->mo.p.imbalance) + span +
	    APP_GAP_NS;
}

/* ---- the process grid ---- */

void
tt_grid3(uint32_t n, uint32_t g[3])
{
	uint32_t a, b, c, best = UINT32_MAX;

	g[0] = n;
	g[1] = g[2] = 1;
	for (a = 1; (uint64_t)a * a * a <= n; a++) {
		if (n % a)
			continue;
		for (b = a; (uint64_t)a * b * b <= n; b++) {
			if ((n / a) % b)
				continue;
			c = n / a / b;
			if (c - a < best) {
				best = c - a;
				g[0] = a;
				g[1] = b;
				g[2] = c;
			}
		}
	}
}

unsigned
tt_grid3_dims(const uint32_t g[3])
{
	return (unsigned)((g[0] > 1) + (g[1] > 1) + (g[2] > 1));
}

uint32_t
tt_grid3_neighbour(const uint32_t g[3], uint32_t pe, unsigned j)
{
	uint32_t c[3], d, k, used = 0;

	c[0] = pe % g[0];
	c[1] = pe / g[0] % g[1];
	c[2] = pe / g[0] / g[1];
	for (d = 0; d < 2; d++) {
		if (g[d] < 2)
			continue;
		if (used == j / 2)
			break;
		used++;
	}
	k = g[d];
	c[d] = j % 2 == 0 ? (c[d] + 1) % k : (c[d] + k - 1) % k;
	return c[0] + g[0] * (c[1] + g[1] * c[2]);
}

/* ---- the PEs' streams ---- */

/* PE pe starts its iteration iter[pe]: its compute phase and its program
 * read ahead.  Every PE draws from its stream once per iteration. */
static void
new_iteration(tt_workload *w, uint32_t pe)
{
	const tt_motif_params *p = &w->mo.p;
	double u = tt_rng_unit(&w->rng[pe]);
	struct iter_shape sh;

	iter_shape(w, pe, w->iter[pe], &sh);
	w->offset[pe] = sh.paced ? p->compute_ns : p->compute_ns *
	    ((1.0 - p->imbalance) + 2.0 * p->imbalance * u);
	w->steps[pe] = sh.steps;
	w->idx[pe] = 0;
	w->recvs[pe] = 0;
	w->run[pe] = 0;
	w->inline_ns[pe] = 0;
}

/* PE pe's next send in its program, timed (twintorus/workload.h): 1 with
 * m->t_ns, dst and bytes set, 0 when its program has ended. */
static int
motif_next(tt_workload *w, uint32_t pe, tt_msg *m)
{
	struct mstep s;
	uint32_t i;
	double t;

	for (;;) {
		if (w->iter[pe] >= w->mo.p.iterations)
			return 0;
		if (w->idx[pe] == w->steps[pe]) {
			w->iter[pe]++;
			new_iteration(w, pe);
			continue;
		}
		i = w->idx[pe]++;
		motif_step(&w->mo, pe, w->iter[pe], i, &s);
		if (s.kind == MSTEP_COMPUTE) {
			if (i + 1 < w->steps[pe])
				w->inline_ns[pe] += s.ns;
		} else if (s.kind == MSTEP_RECV) {
			w->recvs[pe]++;
			w->run[pe] = 0;
		} else {
			break;
		}
	}
	t = (double)w->iter[pe] * w->period + w->offset[pe] +
	    w->inline_ns[pe] + w->recvs[pe] * w->step_ns +
	    w->run[pe] * ser_ns(w, s.bytes);
	w->run[pe]++;
	m->t_ns = (uint64_t)llround(t);
	m->dst = s.peer;
	m->bytes = s.bytes;
	return 1;
}

/* PE pe's next message: 1 with m filled, 0 when it has sent everything. */
static int
pe_next(tt_workload *w, uint32_t pe, tt_msg *m)
{
	tt_srcpkt pk;

	memset(m, 0, sizeof(*m));
	if (!w->is_motif) {
		if (w->src.next(w->src.ctx, pe, 0, &pk) != TT_SRC_PACKET)
			return 0;
		m->t_ns = (uint64_t)llround((double)pk.gen * w->cycle_ns);
		m->dst = pk.dst;
		m->bytes = w->bytes;
	} else if (!motif_next(w, pe, m)) {
		return 0;
	}
	m->src = pe;
	m->seq = w->seq[pe]++;
	return 1;
}

static tt_workload *
workload_alloc(uint32_t npes, char *err, size_t errsz)
{
	tt_workload *w = calloc(1, sizeof(*w));

	if (w == NULL) {
		tt_errf(err, errsz, "out of memory");
		return NULL;
	}
	w->npes = npes;
	w->rng = calloc(npes, sizeof(*w->rng));
	w->iter = calloc(npes, sizeof(uint64_t));
	w->idx = calloc(npes, sizeof(uint32_t));
	w->seq = calloc(npes, sizeof(uint32_t));
	w->steps = calloc(npes, sizeof(uint32_t));
	w->recvs = calloc(npes, sizeof(uint32_t));
	w->run = calloc(npes, sizeof(uint32_t));
	w->offset = calloc(npes, sizeof(double));
	w->inline_ns = calloc(npes, sizeof(double));
	w->heap = calloc(npes, sizeof(*w->heap));
	if (w->rng == NULL || w->iter == NULL || w->idx == NULL ||
	    w->seq == NULL || w->steps == NULL || w->recvs == NULL ||
	    w->run == NULL || w->offset == NULL || w->inline_ns == NULL ||
	    w->heap == NULL) {
		tt_workload_free(w);
		tt_errf(err, errsz, "out of memory for %u PEs", npes);
		return NULL;
	}
	return w;
}

int
tt_workload_motif(tt_workload **wp, const tt_motif_params *p, uint32_t npes,
    char *err, size_t errsz)
{
	tt_workload *w;
	uint32_t pe;

	*wp = NULL;
	if (p->ranks != NULL)
		return tt_errf(err, errsz, "an open-loop %s runs on every PE",
		    tt_motif_name(p->motif));
	if (tt_motif_check(p, npes, err, errsz) < 0)
		return -1;
	if ((w = workload_alloc(npes, err, errsz)) == NULL)
		return -1;
	w->is_motif = 1;
	if (motif_init(&w->mo, p, npes, err, errsz) < 0) {
		tt_workload_free(w);
		return -1;
	}
	motif_plan(w);
	for (pe = 0; pe < npes; pe++) {
		tt_rng_seed(&w->rng[pe], p->seed, pe);
		new_iteration(w, pe);
	}
	*wp = w;
	return 0;
}

int
tt_workload_source(tt_workload **wp, uint32_t npes, tt_source src,
    double cycle_ns, uint64_t bytes, char *err, size_t errsz)
{
	tt_workload *w;

	*wp = NULL;
	if ((w = workload_alloc(npes, err, errsz)) == NULL)
		return -1;
	w->src = src;
	w->cycle_ns = cycle_ns;
	w->bytes = bytes;
	*wp = w;
	return 0;
}

/* ---- the merge ---- */

static int
pend_less(const struct pend *a, const struct pend *b)
{
	if (a->m.t_ns != b->m.t_ns)
		return a->m.t_ns < b->m.t_ns;
	return a->pe < b->pe;
}

static void
pend_down(struct pend *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct pend t;

		if (l < n && pend_less(&h[l], &h[m]))
			m = l;
		if (r < n && pend_less(&h[r], &h[m]))
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* Every PE's first message, in a heap. */
static void
merge_start(tt_workload *w)
{
	uint32_t pe;
	size_t i;

	for (pe = 0; pe < w->npes; pe++) {
		w->heap[w->nheap].pe = pe;
		if (pe_next(w, pe, &w->heap[w->nheap].m))
			w->nheap++;
	}
	for (i = w->nheap / 2; i-- > 0; )
		pend_down(w->heap, w->nheap, i);
	w->started = 1;
}

int
tt_workload_next(tt_workload *w, tt_msg *m)
{
	struct pend *h = w->heap;

	if (!w->started)
		merge_start(w);
	if (w->nheap == 0)
		return 0;
	*m = h[0].m;
	if (!pe_next(w, h[0].pe, &h[0].m))
		h[0] = h[--w->nheap];
	pend_down(h, w->nheap, 0);
	return 1;
}

void
tt_workload_free(tt_workload *w)
{
	if (w == NULL)
		return;
	free(w->rng);
	free(w->iter);
	free(w->idx);
	free(w->seq);
	free(w->steps);
	free(w->recvs);
	free(w->run);
	free(w->offset);
	free(w->inline_ns);
	free(w->heap);
	free(w);
}
