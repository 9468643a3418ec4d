/*
 * Synthetic workloads (twintorus/workload.h): the applications' schedules,
 * the process grid, and the merge of the PEs' streams into time order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support/errf.h"
#include "twintorus/params.h"
#include "twintorus/traffic.h"
#include "twintorus/workload.h"

/* Idle time between iterations, ns: the iteration's slack. */
#define APP_GAP_NS 5000.0

struct tt_workload;

/*
 * One application: its defaults, the plan of one iteration (messages per
 * PE, period) and its message j of an iteration.  A new application is
 * one more entry in apps[].
 */
struct app_ops {
	const char *name;
	uint64_t bytes;
	int iterations;
	double compute_us;
	void (*plan)(struct tt_workload *w);
	/* message j of PE pe's iteration it: its time and m->dst, m->bytes */
	double (*message)(const struct tt_workload *w, uint32_t pe,
	    uint32_t it, uint32_t j, tt_msg *m);
};

/* A PE waiting in the merge with its next message. */
struct pend {
	tt_msg m;
	uint32_t pe;
};

struct tt_workload {
	const struct app_ops *ops;      /* NULL: a traffic source */
	tt_app_params p;
	double compute_ns;
	uint32_t g[3];                  /* stencil: the process grid */
	uint32_t per_iter;              /* messages per PE per iteration */
	double period;                  /* ns between iteration starts */
	double step_ns;                 /* allreduce: one step */
	/* per PE */
	tt_rng *rng;
	uint32_t *iter, *idx, *seq;
	double *offset;                 /* this iteration's compute time */
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
	return tt_wire_ns(bytes, w->p.link_gbps);
}

/* The period of applications that send per_iter messages back to back:
 * the longest compute phase, twice the sending, and a gap. */
static double
burst_period(const tt_workload *w)
{
	return w->compute_ns * 1.1 + 2 * w->per_iter * ser_ns(w, w->p.bytes) +
	    APP_GAP_NS;
}

static void
stencil_plan(tt_workload *w)
{
	tt_grid3(w->p.npes, w->g);
	w->per_iter = 2 * tt_grid3_dims(w->g);
	w->period = burst_period(w);
}

static double
stencil_message(const tt_workload *w, uint32_t pe, uint32_t it, uint32_t j,
    tt_msg *m)
{
	m->dst = tt_grid3_neighbour(w->g, pe, j);
	m->bytes = w->p.bytes;
	return it * w->period + w->offset[pe] + j * ser_ns(w, w->p.bytes);
}

static void
alltoall_plan(tt_workload *w)
{
	w->per_iter = w->p.npes - 1;
	w->period = burst_period(w);
}

static double
alltoall_message(const tt_workload *w, uint32_t pe, uint32_t it, uint32_t j,
    tt_msg *m)
{
	m->dst = (pe + 1 + j) % w->p.npes;
	m->bytes = w->p.bytes;
	return it * w->period + w->offset[pe] + j * ser_ns(w, w->p.bytes);
}

static uint64_t
allreduce_chunk(const tt_workload *w)
{
	return (w->p.bytes + w->p.npes - 1) / w->p.npes;
}

static void
allreduce_plan(tt_workload *w)
{
	w->per_iter = 2 * (w->p.npes - 1);
	/* a chunk's serialisation plus a microsecond of latency */
	w->step_ns = 1.5 * ser_ns(w, allreduce_chunk(w)) + 1000;
	w->period = w->compute_ns * 1.1 + w->per_iter * w->step_ns + APP_GAP_NS;
}

/* The steps keep the ring in step: no PE's jitter shows. */
static double
allreduce_message(const tt_workload *w, uint32_t pe, uint32_t it, uint32_t j,
    tt_msg *m)
{
	m->dst = (pe + 1) % w->p.npes;
	m->bytes = allreduce_chunk(w);
	return it * w->period + w->compute_ns + j * w->step_ns;
}

static const struct app_ops apps[TT_APP_COUNT] = {
	[TT_APP_STENCIL] = {"stencil", 8192, 10, 50, stencil_plan,
	    stencil_message},
	[TT_APP_ALLTOALL] = {"alltoall", 4096, 4, 20, alltoall_plan,
	    alltoall_message},
	[TT_APP_ALLREDUCE] = {"allreduce", 1048576, 4, 20, allreduce_plan,
	    allreduce_message},
};

void
tt_app_params_default(tt_app_params *p)
{
	memset(p, 0, sizeof(*p));
	p->app = TT_APP_STENCIL;
	p->compute_us = -1;
	p->link_gbps = 10;
	p->seed = 1;
}

int
tt_app_parse(const char *name, enum tt_app *app)
{
	int i;

	for (i = 0; i < TT_APP_COUNT; i++)
		if (strcmp(name, apps[i].name) == 0) {
			*app = (enum tt_app)i;
			return 0;
		}
	return -1;
}

const char *
tt_app_name(enum tt_app app)
{
	return (unsigned)app < TT_APP_COUNT ? apps[app].name : "?";
}

uint64_t
tt_app_default_bytes(enum tt_app app)
{
	return apps[app].bytes;
}

int
tt_app_default_iterations(enum tt_app app)
{
	return apps[app].iterations;
}

double
tt_app_default_compute_us(enum tt_app app)
{
	return apps[app].compute_us;
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

static void
new_iteration(tt_workload *w, uint32_t pe)
{
	w->offset[pe] = w->compute_ns * (0.9 + 0.2 * tt_rng_unit(&w->rng[pe]));
}

/* PE pe's next message: 1 with m filled, 0 when it has sent everything. */
static int
pe_next(tt_workload *w, uint32_t pe, tt_msg *m)
{
	tt_srcpkt pk;
	uint32_t j;

	memset(m, 0, sizeof(*m));
	if (w->ops == NULL) {
		if (w->src.next(w->src.ctx, pe, 0, &pk) != TT_SRC_PACKET)
			return 0;
		m->t_ns = (uint64_t)llround((double)pk.gen * w->cycle_ns);
		m->dst = pk.dst;
		m->bytes = w->p.bytes;
	} else {
		if (w->idx[pe] == w->per_iter) {
			w->iter[pe]++;
			w->idx[pe] = 0;
			new_iteration(w, pe);
		}
		if ((int)w->iter[pe] >= w->p.iterations)
			return 0;
		j = w->idx[pe]++;
		m->t_ns = (uint64_t)llround(w->ops->message(w, pe, w->iter[pe],
		    j, m));
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
	w->p.npes = npes;
	w->rng = calloc(npes, sizeof(*w->rng));
	w->iter = calloc(npes, sizeof(uint32_t));
	w->idx = calloc(npes, sizeof(uint32_t));
	w->seq = calloc(npes, sizeof(uint32_t));
	w->offset = calloc(npes, sizeof(double));
	w->heap = calloc(npes, sizeof(*w->heap));
	if (w->rng == NULL || w->iter == NULL || w->idx == NULL ||
	    w->seq == NULL || w->offset == NULL || w->heap == NULL) {
		tt_workload_free(w);
		tt_errf(err, errsz, "out of memory for %u PEs", npes);
		return NULL;
	}
	return w;
}

int
tt_workload_app(tt_workload **wp, const tt_app_params *p, char *err,
    size_t errsz)
{
	tt_workload *w;
	uint32_t pe;

	*wp = NULL;
	if ((unsigned)p->app >= TT_APP_COUNT)
		return tt_errf(err, errsz, "no such application");
	if (p->npes < 2)
		return tt_errf(err, errsz, "%s needs at least 2 PEs, got %u",
		    apps[p->app].name, p->npes);
	if (!(p->link_gbps > 0))
		return tt_errf(err, errsz, "the link speed must be above 0");
	if ((w = workload_alloc(p->npes, err, errsz)) == NULL)
		return -1;
	w->ops = &apps[p->app];
	w->p = *p;
	if (w->p.bytes == 0)
		w->p.bytes = w->ops->bytes;
	if (w->p.iterations == 0)
		w->p.iterations = w->ops->iterations;
	w->compute_ns = (p->compute_us >= 0 ? p->compute_us :
	    w->ops->compute_us) * 1e3;
	w->ops->plan(w);
	for (pe = 0; pe < p->npes; pe++) {
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
	w->p.bytes = bytes;
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

	for (pe = 0; pe < w->p.npes; pe++) {
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
	free(w->offset);
	free(w->heap);
	free(w);
}
