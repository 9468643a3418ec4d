/*
 * What `ttsim run` and `ttsim sweep` share: the simulation flags, running
 * one load point over several seeds (mean and 95% confidence interval), and
 * printing a point as a table row, a JSON object or a CSV row.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "twintorus/json.h"
#include "twintorus/stats.h"
#include "ttsim.h"

void
simopts_init(simopts *o)
{
	memset(o, 0, sizeof(*o));
	tt_simparams_default(&o->p);
	o->pattern = TT_TR_UNIFORM;
	o->load = SIMOPTS_LOAD_DEFAULT;
	o->seed = SIMOPTS_SEED_DEFAULT;
	o->seeds = 1;
	o->hot_fraction = SIMOPTS_HOT_FRACTION_DEFAULT;
	o->cmd = "run";
}

const optdef simopts_model_flags[] = {
	OPT_TITLE("model (seed 000 §7.1's defaults, or the YAML network: "
	    "section):"),
	OPT_VAL("vcs", OPT_VCS, "N",
	    "at least N VCs per port (" OPT_STR(TT_VCS_VC_DEFAULT) " under vc, "
	    OPT_STR(TT_VCS_OTHER_DEFAULT) " otherwise; ports that need more get "
	    "the next power of two)"),
	OPT_VALDEF("buffer-flits", OPT_BUFFER_FLITS, "N",
	    "buffer per input port, split among its VCs",
	    TT_BUFFER_FLITS_DEFAULT),
	OPT_VALDEF("packet-flits", OPT_PACKET_FLITS, "N", "flits per packet",
	    TT_PACKET_FLITS_DEFAULT),
	OPT_VALDEF("router-latency", OPT_ROUTER_LATENCY, "N",
	    "router latency R in cycles", TT_LATENCY_DEFAULT),
	OPT_VALDEF("link-latency", OPT_LINK_LATENCY, "N",
	    "link latency L in cycles", TT_LATENCY_DEFAULT),
	OPT_VALDEF("watchdog", OPT_WATCHDOG, "N",
	    "cycles without a flit moving, with packets in flight, that count "
	    "as a deadlock", TT_WATCHDOG_DEFAULT),
	OPT_END
};

const optdef simopts_window_flags[] = {
	OPT_TITLE("measurement window (any of the first three: run as given):"),
	OPT_VALDEF("warmup", OPT_WARMUP, "N", "cycles of warm-up",
	    TT_WARMUP_DEFAULT),
	OPT_VALDEF("measure", OPT_MEASURE, "N", "cycles measured",
	    TT_MEASURE_DEFAULT),
	OPT_VALDEF("drain", OPT_DRAIN, "N",
	    "cycles at most to deliver the window's packets", TT_DRAIN_DEFAULT),
	OPT_VALDEF("warmup-max", OPT_WARMUP_MAX, "N",
	    "the longest warm-up when extending it until a window passes; 0: "
	    "never extend", SIMOPTS_WARMUP_MAX),
	OPT_END
};

const optdef simopts_traffic_flags[] = {
	OPT_TITLE("traffic:"),
	OPT_VAL("traffic", OPT_TRAFFIC, "NAME",
	    "uniform (default), hotspot, tornado, transpose, bit-reversal, "
	    "bit-complement, shuffle, bit-rotate, center-reflection, "
	    "neighbour, random-permutation, flows"),
	OPT_VALDEF("load", OPT_LOAD, "F",
	    "offered flits/cycle/PE; a PE injects at most 1, so above 1 its "
	    "source queue grows (a warning)", SIMOPTS_LOAD_DEFAULT),
	OPT_VALDEF("seed", OPT_SEED, "N", "the first random seed",
	    SIMOPTS_SEED_DEFAULT),
	OPT_VAL("seeds", OPT_SEEDS, "N",
	    "N runs, seeds S, S+1, ... from --seed S: their mean and 95% "
	    "confidence interval"),
	OPT_VAL("hot", OPT_HOT, "PE",
	    "hotspot: a hot PE, an id or x,y,z/c (repeat; default the centre "
	    "node's PE 0)"),
	OPT_VALDEF("hot-fraction", OPT_HOT_FRACTION, "F",
	    "hotspot: the share of packets sent to the hot PEs",
	    SIMOPTS_HOT_FRACTION_DEFAULT),
	OPT_VAL("flow", OPT_FLOW, "SRC:DST",
	    "flows: only these pairs send (repeat); PEs as ids or x,y,z/c"),
	OPT_FLAG("uniform-self", OPT_UNIFORM_SELF,
	    "uniform traffic may pick the source itself (BookSim2's)"),
	OPT_END
};

/* The model's and the window's flags. */
static int
simopts_model_take(simopts *o, const struct optval *v)
{
	const char *c = v->cmd, *f = v->flag, *s = v->value;
	tt_simparams *p = &o->p;

	switch (v->id) {
	case OPT_VCS:
		return opt_int(c, f, s, 1, TT_MAX_VCS, &p->vcs);
	case OPT_BUFFER_FLITS:
		o->buffer_set = 1;
		return opt_int(c, f, s, 1, TT_BUFFER_FLITS_MAX, &p->net.buffer_flits);
	case OPT_PACKET_FLITS:
		o->packet_set = 1;
		return opt_int(c, f, s, 1, TT_PACKET_FLITS_MAX, &p->net.packet_flits);
	case OPT_ROUTER_LATENCY:
		o->router_set = 1;
		return opt_int(c, f, s, 1, TT_LATENCY_MAX, &p->router_latency);
	case OPT_LINK_LATENCY:
		o->link_set = 1;
		return opt_int(c, f, s, 1, TT_LATENCY_MAX, &p->link_latency);
	case OPT_WATCHDOG:
		return opt_u64(c, f, s, 10, 1ull << 40, &p->watchdog);
	case OPT_WARMUP:
		o->window_set = 1;
		return opt_u64(c, f, s, 0, 1ull << 40, &p->warmup);
	case OPT_MEASURE:
		o->window_set = 1;
		return opt_u64(c, f, s, 1, 1ull << 40, &p->measure);
	case OPT_DRAIN:
		o->window_set = 1;
		return opt_u64(c, f, s, 0, 1ull << 40, &p->drain);
	case OPT_WARMUP_MAX:
		o->warmup_max_set = 1;
		return opt_u64(c, f, s, 0, 1ull << 40, &p->warmup_max);
	}
	return -1;
}

/* A PE list flag (--hot, --flow): kept as written, resolved per network. */
static int
simopts_list(simopts *o, const struct optval *v)
{
	int hot = v->id == OPT_HOT;
	size_t *n = hot ? &o->nhot : &o->nflows;

	if (*n >= SIMOPTS_MAX_LIST) {
		fprintf(stderr, "ttsim %s: at most %d %s flags\n", v->cmd,
		    SIMOPTS_MAX_LIST, v->flag);
		return -1;
	}
	if (hot)
		o->hot[(*n)++] = v->value;
	else
		o->flow[(*n)++] = v->value;
	return 0;
}

int
simopts_take(void *state, const struct optval *v)
{
	simopts *o = state;
	const char *c = v->cmd, *f = v->flag, *s = v->value;

	switch (v->id) {
	case OPT_TRAFFIC:
		if (tt_pattern_parse(s, &o->pattern) < 0) {
			fprintf(stderr, "ttsim %s: --traffic: '%s' is not a "
			    "pattern; use one of %s\n", c, s, tt_pattern_list());
			return -1;
		}
		o->pattern_set = 1;
		return 0;
	case OPT_LOAD:
		return parse_load(c, f, s, &o->load);
	case OPT_SEED:
		return opt_u64(c, f, s, 0, UINT64_MAX >> 1, &o->seed);
	case OPT_SEEDS:
		return opt_int(c, f, s, 1, 1000, &o->seeds);
	case OPT_HOT_FRACTION:
		return opt_real(c, f, s, 0, 1, "a fraction in 0..1",
		    &o->hot_fraction);
	case OPT_HOT:
	case OPT_FLOW:
		return simopts_list(o, v);
	case OPT_UNIFORM_SELF:
		o->uniform_self = 1;
		return 0;
	}
	return simopts_model_take(o, v);
}

/*
 * The YAML network: section gives packet and buffer sizes unless flags
 * do.  A run whose window is not given measures a steady state: its
 * warm-up is extended up to SIMOPTS_WARMUP_MAX cycles (or --warmup-max)
 * until its window passes the steady-state test; a window given is run
 * exactly as given, and the test only says whether it passed.
 */
void
simopts_apply_config(simopts *o, const tt_config *cfg)
{
	if (!o->packet_set)
		o->p.net.packet_flits = cfg->params.packet_flits;
	if (!o->buffer_set)
		o->p.net.buffer_flits = cfg->params.buffer_flits;
	if (o->nflows > 0 && !o->pattern_set)
		o->pattern = TT_TR_FLOWS;
	if (!o->warmup_max_set)
		o->p.warmup_max = o->window_set ? 0 : SIMOPTS_WARMUP_MAX;
}

/* The factor of a two-sided 95% interval of a mean of n values: Student's
 * t for n - 1 degrees of freedom, exact at every n. */
static double
t95(int n)
{
	return n < 2 ? 0 : tt_t_quantile(0.975, n - 1);
}

typedef struct acc {
	double sum, sq;
} acc;

static void
acc_add(acc *a, double v)
{
	a->sum += v;
	a->sq += v * v;
}

static double
acc_mean(const acc *a, int n)
{
	return a->sum / n;
}

static double
acc_ci(const acc *a, int n)
{
	double m = a->sum / n, var;

	if (n < 2)
		return 0;
	var = (a->sq - n * m * m) / (n - 1);
	return var > 0 ? t95(n) * sqrt(var / n) : 0;
}

static int
parse_pes(const char *cmd, const tt_net *net, const char *what,
    const char *const *in, size_t n, uint32_t *out)
{
	char err[256];
	size_t i;

	for (i = 0; i < n; i++)
		if (tt_pe_parse(net, in[i], &out[i], err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim %s: %s %s: %s\n", cmd, what, in[i], err);
			return -1;
		}
	return 0;
}

static int
parse_flows(const tt_net *net, const simopts *o, uint32_t *src, uint32_t *dst)
{
	size_t i;

	for (i = 0; i < o->nflows; i++)
		if (flow_parse(net, o->flow[i], &src[i], &dst[i], o->cmd) < 0)
			return -1;
	return 0;
}

static void
chan_names(simpoint *pt, const tt_net *net, const tt_simresult *r)
{
	size_t i;

	pt->nchan = r->cycle_len < SIMPOINT_MAX_CHANS ? r->cycle_len :
	    SIMPOINT_MAX_CHANS;
	for (i = 0; i < pt->nchan; i++)
		tt_chan_name(net, r->cycle[i], pt->chan[i], sizeof(pt->chan[i]));
}

/* PEs named by --hot and --flow, resolved on one network. */
struct pointpes {
	uint32_t hot[SIMOPTS_MAX_LIST], fs[SIMOPTS_MAX_LIST], fd[SIMOPTS_MAX_LIST];
};

/*
 * The traffic of o on net at load with seed: --hot and --flow resolved into
 * pp, tr filled and initialised.  0, or -1 after a message.
 */
static int
point_traffic(const simopts *o, const tt_net *net, struct pointpes *pp,
    double load, uint64_t seed, tt_traffic *tr)
{
	char err[512], title[128];

	if (parse_pes(o->cmd, net, "--hot", o->hot, o->nhot, pp->hot) < 0 ||
	    parse_flows(net, o, pp->fs, pp->fd) < 0)
		return -1;
	tt_traffic_default(tr);
	tr->pattern = o->pattern;
	tr->load = load;
	tr->packet_flits = o->p.net.packet_flits;
	tr->seed = seed;
	tr->hot_fraction = o->hot_fraction;
	tr->hot = o->nhot ? pp->hot : NULL;
	tr->nhot = o->nhot;
	tr->flow_src = pp->fs;
	tr->flow_dst = pp->fd;
	tr->nflows = o->nflows;
	tr->uniform_self = o->uniform_self;
	if (tt_traffic_init(tr, net, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim %s: %s: %s\n", o->cmd,
		    net_title(net, title, sizeof(title)), err);
		return -1;
	}
	return 0;
}

int
simopts_traffic(const simopts *o, const tt_net *net, double load,
    uint64_t seed, tt_traffic *tr, void **hold)
{
	struct pointpes *pp = calloc(1, sizeof(*pp));

	*hold = pp;
	if (pp == NULL) {
		fprintf(stderr, "ttsim %s: out of memory\n", o->cmd);
		return -1;
	}
	return point_traffic(o, net, pp, load, seed, tr);
}

/* Progress over a point's seeds, as a share of the caller's whole job. */
struct seedprog {
	void (*fn)(void *, double);
	void *ctx;
	double base, span;
	int seed, seeds;
};

static void
seed_progress(void *ctx, double frac)
{
	struct seedprog *sp = ctx;

	if (frac < 0)
		frac = 0;
	if (frac > 1)
		frac = 1;
	sp->fn(sp->ctx, sp->base + sp->span * (sp->seed + frac) / sp->seeds);
}

/* The means over a point's seeds and their intervals. */
struct pointacc {
	acc accepted, net, e2e;
};

/* Add the run of one seed (of n) to pt. */
static void
point_add(simpoint *pt, struct pointacc *pa, const tt_net *net,
    const tt_simresult *r, uint64_t seed, int n)
{
	if (r->measured_delivered > 0)
		pt->measured_runs++;
	acc_add(&pa->accepted, r->accepted_load);
	acc_add(&pa->net, r->avg_network_latency);
	acc_add(&pa->e2e, r->avg_e2e_latency);
	pt->offered += r->offered_load / n;
	pt->throughput_packets += r->throughput_packets / n;
	pt->p99_e2e += r->p99_e2e_latency / n;
	pt->avg_hops += r->avg_hops / n;
	pt->internal_util += r->internal_link_utilization / n;
	pt->cycles += (double)r->cycles / n;
	pt->delivered += (double)r->delivered / n;
	pt->undelivered += (double)(r->measured_generated -
	    r->measured_delivered) / n;
	pt->traversals += (double)r->traversals;
	pt->total_cycles += (double)r->cycles;
	/* the window's packets not all delivered, or the steady-state test
	 * saw the source queues grow */
	if (!r->drained || r->saturated_steady)
		pt->saturated = 1;
	/* a saturated run is not in a steady state, whatever its window's
	 * batches showed (a short window may not show the trend) */
	if (!r->converged || !r->drained || r->saturated_steady ||
	    r->accepted_load < 0.95 * r->offered_load)
		pt->converged = 0;
	if (!r->throughput_converged)
		pt->throughput_converged = 0;
	if ((double)r->warmup_cycles > pt->warmup_used)
		pt->warmup_used = (double)r->warmup_cycles;
	if (pt->warmup_least < 0 || (double)r->warmup_cycles < pt->warmup_least)
		pt->warmup_least = (double)r->warmup_cycles;
	if (fabs(r->accepted_drift) > fabs(pt->accepted_drift))
		pt->accepted_drift = r->accepted_drift;
	if (fabs(r->latency_drift) > fabs(pt->latency_drift))
		pt->latency_drift = r->latency_drift;
	if (r->deadlock && !pt->deadlock) {
		pt->deadlock = 1;
		pt->deadlock_seed = seed;
		pt->deadlock_cycle = r->cycles;
		chan_names(pt, net, r);
	}
}

static void
point_finish(simpoint *pt, const struct pointacc *pa, int n)
{
	pt->accepted = acc_mean(&pa->accepted, n);
	pt->accepted_ci = acc_ci(&pa->accepted, n);
	pt->net_lat = acc_mean(&pa->net, n);
	pt->net_lat_ci = acc_ci(&pa->net, n);
	pt->e2e_lat = acc_mean(&pa->e2e, n);
	pt->e2e_lat_ci = acc_ci(&pa->e2e, n);
	/* saturated: the accepted load falls short of the offered one, or
	 * the packets of the window could not all be delivered in the drain */
	if (pt->accepted < 0.95 * pt->offered)
		pt->saturated = 1;
}

/*
 * The threads of a point split over threads share one traffic: its
 * state is a stream per PE, and each thread asks only about its own
 * PEs.  Thread 0 builds it, the others wait for it (ts->tr).
 */
struct tshare {
	const tt_sim_comm *comm;
	tt_traffic **tr;        /* one for all the threads */
};

/* Whether every thread of ts is ok (each says), and a barrier. */
static int
tshare_all(const struct tshare *ts, int ok)
{
	uint64_t v = ok ? 1 : 0;

	ts->comm->allreduce(ts->comm->ctx, &v, 1, TT_SIM_MIN);
	return v == 1;
}

/* Every seed of the point on sim; ts: the threads' (NULL: not threads).
 * 0, or -1 after a message. */
static int
point_seeds(const simopts *o, tt_sim *sim, const tt_net *net, double load,
    simpoint *pt, struct seedprog *sp, struct tshare *ts)
{
	struct pointacc pa;
	struct pointpes pp;
	struct run_record rec;
	tt_traffic tr, *trp;
	tt_simresult r;
	tt_source src;
	int s, n = o->seeds, mine = ts == NULL || ts->comm->rank == 0, ok;

	memset(&pa, 0, sizeof(pa));
	pt->converged = pt->throughput_converged = 1;
	pt->warmup_least = -1;
	for (s = 0; s < n; s++) {
		if (mine) {
			ok = point_traffic(o, net, &pp, load,
			    o->seed + (uint64_t)s, &tr) == 0;
			if (ts != NULL)
				*ts->tr = &tr;
		} else
			ok = 1;
		if (ts != NULL && !tshare_all(ts, ok)) {
			if (mine && ok)
				tt_traffic_free(&tr);
			return -1;
		}
		if (!ok)
			return -1;
		trp = ts != NULL ? *ts->tr : &tr;
		src = tt_traffic_source(trp);
		sp->seed = s;
		/* (never on threads: run refuses --record there) */
		if (run_record_start(&rec, o, net, sim, &src) < 0) {
			if (mine)
				tt_traffic_free(&tr);
			return -1;
		}
		tt_sim_run(sim, &src, 0, &r, sp->fn ? seed_progress : NULL, sp);
		/* no thread asks the traffic any more */
		if (ts != NULL)
			(void)tshare_all(ts, 1);
		if (mine)
			tt_traffic_free(&tr);
		if (run_record_finish(&rec, sim, o->cmd) < 0) {
			tt_simresult_free(&r);
			return -1;
		}
		point_add(pt, &pa, net, &r, o->seed + (uint64_t)s, n);
		tt_simresult_free(&r);
	}
	point_finish(pt, &pa, n);
	return 0;
}

/* One part of a point split over threads (sim/threads.c). */
struct pointpart {
	const simopts *o;
	const tt_net *net;
	double load;
	simpoint *pt;
	struct seedprog *sp;    /* thread 0's; NULL for the others */
	tt_traffic **tr;        /* the traffic they share */
	struct timespec *t0;    /* thread 0's: when the parts were built */
};

static int
point_part(void *arg, const tt_sim_comm *comm)
{
	struct pointpart *pp = arg;
	struct seedprog quiet;
	struct tshare ts;
	tt_sim *sim = NULL;
	char err[512];
	int rc = -1;

	if (pp->sp == NULL) {
		memset(&quiet, 0, sizeof(quiet));
		quiet.seeds = pp->o->seeds;
	}
	if (tt_sim_create_part(&sim, pp->net, &pp->o->p, comm, err,
	    sizeof(err)) < 0) {
		if (comm->rank == 0)
			fprintf(stderr, "ttsim %s: %s\n", pp->o->cmd, err);
		return -1;
	}
	/* creating is collective: every part is built */
	if (pp->t0 != NULL)
		clock_gettime(CLOCK_MONOTONIC, pp->t0);
	ts.comm = comm;
	ts.tr = pp->tr;
	if (point_seeds(pp->o, sim, pp->net, pp->load, pp->pt,
	    pp->sp != NULL ? pp->sp : &quiet, &ts) == 0)
		rc = 0;
	tt_sim_free(sim);
	return rc;
}

/* Every seed of the point on n threads: pt is thread 0's. */
static int
point_threads(const simopts *o, int n, double load, simpoint *pt,
    struct seedprog *sp, struct timespec *t0)
{
	struct pointpart part[TTSIM_THREADS_MAX];
	void *args[TTSIM_THREADS_MAX];
	tt_traffic *shared = NULL;
	simpoint *other;
	int i, rc;

	if ((other = calloc((size_t)n, sizeof(*other))) == NULL) {
		fprintf(stderr, "ttsim %s: out of memory\n", o->cmd);
		return -1;
	}
	for (i = 0; i < n; i++) {
		simpoint *q = i == 0 ? pt : &other[i];

		if (i > 0)
			*q = *pt;
		part[i].o = o;
		part[i].net = &pt->net;
		part[i].load = load;
		part[i].pt = q;
		part[i].sp = i == 0 ? sp : NULL;
		part[i].tr = &shared;
		part[i].t0 = i == 0 ? t0 : NULL;
		args[i] = &part[i];
	}
	rc = ttsim_threads_run(n, point_part, args, o->cmd);
	free(other);
	return rc;
}

/*
 * Run one point: the network of spec at `load`, o->seeds times from seed
 * o->seed upwards.  0 when it ran (deadlock or not), -1 after an error
 * message.
 */
int
simpoint_run(const simopts *o, const tt_netspec *spec, double load,
    simpoint *pt, void (*progress)(void *, double), void *pctx,
    double done0, double span)
{
	tt_sim *sim = NULL;
	struct timespec t0, t1;
	struct seedprog sp = {progress, pctx, done0, span, 0, o->seeds};
	char err[512];
	int rc = -1;

	memset(pt, 0, sizeof(*pt));
	if (tt_net_init(&pt->net, spec, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim %s: %s\n", o->cmd, err);
		return -1;
	}
	pt->pattern = o->pattern;
	pt->uniform_self = o->uniform_self;
	pt->load = load;
	pt->seeds = o->seeds;
	pt->seed = o->seed;
	pt->p = o->p;
	pt->model = o->model;
	pt->mc = o->mc;
	if ((pt->threads = ttsim_threads_for(&pt->net, o->threads,
	    o->cmd)) < 0)
		goto out;
	if (pt->threads > 1) {
		if (point_threads(o, pt->threads, load, pt, &sp, &t0) < 0)
			goto out;
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} else {
		if (tt_sim_create_part(&sim, &pt->net, &o->p,
		    o->whole ? NULL : ttsim_comm(), err,
		    sizeof(err)) < 0) {
			fprintf(stderr, "ttsim %s: %s\n", o->cmd, err);
			goto out;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (point_seeds(o, sim, &pt->net, load, pt, &sp, NULL) < 0)
			goto out;
		clock_gettime(CLOCK_MONOTONIC, &t1);
	}
	pt->wall = (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	rc = 0;
out:
	tt_sim_free(sim);
	if (rc < 0)
		tt_net_free(&pt->net);
	return rc;
}

int
simpoint_check(const simopts *o, const tt_netspec *spec, double load)
{
	struct pointpes pp;
	tt_net net;
	tt_traffic tr;
	char err[512];
	int rc = -1;

	if (tt_net_init(&net, spec, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim %s: %s\n", o->cmd, err);
		return -1;
	}
	if (tt_sim_check(&net, &o->p, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim %s: %s\n", o->cmd, err);
		goto out;
	}
	if (point_traffic(o, &net, &pp, load, o->seed, &tr) < 0)
		goto out;
	tt_traffic_free(&tr);
	rc = 0;
out:
	tt_net_free(&net);
	return rc;
}

void
simpoint_warn_load(const simopts *o, const char *flag, double load)
{
	const tt_sim_comm *c = ttsim_comm();

	if (load <= 1 || (c != NULL && c->rank != 0))
		return;
	fprintf(stderr, "ttsim %s: warning: %s %g is above 1: a load is "
	    "flits per PE per cycle, and a PE's injection port takes one flit "
	    "a cycle, so its source queue grows for as long as the run lasts "
	    "(the accepted load stays at most 1, the end-to-end latency "
	    "measures that queue)\n", o->cmd, flag, load);
}

void
simpoint_free(simpoint *pt)
{
	tt_net_free(&pt->net);
}

static void
json_num(FILE *f, const char *key, double v, int have, int ci, double civ,
    int seeds)
{
	if (have)
		fprintf(f, ", \"%s\": %.6g", key, v);
	else
		fprintf(f, ", \"%s\": null", key);
	if (ci) {
		if (have && seeds > 1)
			fprintf(f, ", \"%s_ci95\": %.6g", key, civ);
		else
			fprintf(f, ", \"%s_ci95\": null", key);
	}
}

/*
 * One point as a JSON object, its "schema" first: run's or sweep's
 * (TT_JSON_SCHEMA_*).  The scheme is "scheme" here, because
 * "deadlock" is the watchdog's verdict (ttsim run --json).
 * Latencies and hops are null when no packet of the window arrived.
 */
void
simpoint_json(FILE *f, const simpoint *pt, const char *schema)
{
	const tt_net *net = &pt->net;
	int lat = pt->measured_runs == pt->seeds;
	char sb[128];
	size_t i;

	tt_json_begin(f, schema);
	fprintf(f, ", ");
	json_net_fields(f, net, "scheme");
	fprintf(f, ", \"series\": ");
	tt_json_string(f, net_name(&pt->net, sb, sizeof(sb)));
	fprintf(f, ", \"pes\": %u, \"traffic\": \"%s\"", (unsigned)net->ncards,
	    tt_pattern_name(pt->pattern));
	fprintf(f, ", \"load\": %.6g", pt->load);
	json_num(f, "offered_load", pt->offered, 1, 0, 0, 0);
	json_num(f, "accepted_load", pt->accepted, 1, 1, pt->accepted_ci, pt->seeds);
	json_num(f, "throughput_packets", pt->throughput_packets, 1, 0, 0, 0);
	json_num(f, "avg_network_latency", pt->net_lat, lat, 1, pt->net_lat_ci, pt->seeds);
	json_num(f, "avg_e2e_latency", pt->e2e_lat, lat, 1, pt->e2e_lat_ci, pt->seeds);
	json_num(f, "p99_e2e_latency", pt->p99_e2e, lat, 0, 0, 0);
	json_num(f, "avg_hops", pt->avg_hops, lat, 0, 0, 0);
	json_num(f, "internal_link_utilization", pt->internal_util, 1, 0, 0, 0);
	fprintf(f, ", \"cycles\": %.0f, \"packets_delivered\": %.0f, "
	    "\"window_packets_undelivered\": %.0f, "
	    "\"flit_router_traversals\": %.0f", pt->cycles, pt->delivered,
	    pt->undelivered, pt->traversals / pt->seeds);
	fprintf(f, ", \"saturated\": %s, \"deadlock\": %s",
	    pt->saturated ? "true" : "false", pt->deadlock ? "true" : "false");
	fprintf(f, ", \"converged\": %s, \"throughput_converged\": %s, "
	    "\"accepted_drift\": %.4g, \"latency_drift\": %.4g",
	    pt->converged ? "true" : "false",
	    pt->throughput_converged ? "true" : "false", pt->accepted_drift,
	    pt->latency_drift);
	if (pt->deadlock) {
		fprintf(f, ", \"deadlock_seed\": %llu, \"deadlock_cycle\": %llu, "
		    "\"deadlock_channels\": [", (unsigned long long)pt->deadlock_seed,
		    (unsigned long long)pt->deadlock_cycle);
		for (i = 0; i < pt->nchan; i++) {
			if (i)
				fprintf(f, ", ");
			tt_json_string(f, pt->chan[i]);
		}
		fputc(']', f);
	}
	fprintf(f, ", \"seed\": %llu, \"seeds\": %d, \"packet_flits\": %d, "
	    "\"buffer_flits\": %d, \"router_latency\": %d, \"link_latency\": %d, "
	    "\"warmup\": %.0f, \"measure\": %llu, \"warmup_max\": %llu",
	    (unsigned long long)pt->seed, pt->seeds, pt->p.net.packet_flits,
	    pt->p.net.buffer_flits, pt->p.router_latency, pt->p.link_latency,
	    pt->warmup_used, (unsigned long long)pt->p.measure,
	    (unsigned long long)pt->p.warmup_max);
	if (pt->uniform_self)
		fprintf(f, ", \"uniform_self\": true");
	json_net_rules(f, net);
	model_json(f, &pt->model, &pt->mc);
	fputc('}', f);
}

void
simpoint_csv_header(FILE *f)
{
	fprintf(f, "series,dims,twin,ports,scheme,pes,traffic,load,"
	    "offered_load,accepted_load,accepted_load_ci95,throughput_packets,"
	    "avg_network_latency,avg_network_latency_ci95,avg_e2e_latency,"
	    "avg_e2e_latency_ci95,p99_e2e_latency,avg_hops,"
	    "internal_link_utilization,cycles,packets_delivered,saturated,"
	    "deadlock,seed,seeds,window_packets_undelivered,converged,"
	    "throughput_converged,warmup,accepted_drift,latency_drift\n");
}

/* An empty field where the JSON has null. */
static void
csv_num(FILE *f, double v, int have)
{
	if (have)
		fprintf(f, ",%.6g", v);
	else
		fputc(',', f);
}

void
simpoint_csv(FILE *f, const simpoint *pt)
{
	int lat = pt->measured_runs == pt->seeds, ci = pt->seeds > 1;
	char sb[128];
	int d;

	/* a generated network's name has commas (tesh:m=2,L=2,q=0): quoted,
	 * and it has no dims */
	net_name(&pt->net, sb, sizeof(sb));
	fprintf(f, strchr(sb, ',') != NULL ? "\"%s\"," : "%s,", sb);
	for (d = 0; d < pt->net.n && tt_net_is_torus(&pt->net); d++)
		fprintf(f, "%s%d", d ? "x" : "", pt->net.k[d]);
	fprintf(f, ",%d,%s,%s,%u,%s,%.6g", pt->net.twin, pt->net.ports_name,
	    tt_deadlock_name(pt->net.deadlock), (unsigned)pt->net.ncards,
	    tt_pattern_name(pt->pattern), pt->load);
	csv_num(f, pt->offered, 1);
	csv_num(f, pt->accepted, 1);
	csv_num(f, pt->accepted_ci, ci);
	csv_num(f, pt->throughput_packets, 1);
	csv_num(f, pt->net_lat, lat);
	csv_num(f, pt->net_lat_ci, lat && ci);
	csv_num(f, pt->e2e_lat, lat);
	csv_num(f, pt->e2e_lat_ci, lat && ci);
	csv_num(f, pt->p99_e2e, lat);
	csv_num(f, pt->avg_hops, lat);
	csv_num(f, pt->internal_util, 1);
	fprintf(f, ",%.0f,%.0f,%d,%d,%llu,%d,%.0f,%d,%d,%.0f,%.4g,%.4g\n",
	    pt->cycles, pt->delivered, pt->saturated, pt->deadlock,
	    (unsigned long long)pt->seed, pt->seeds, pt->undelivered,
	    pt->converged, pt->throughput_converged, pt->warmup_used,
	    pt->accepted_drift, pt->latency_drift);
}

/* load: the load asked for (--loads); offered and accepted: flits/cycle/PE
 * generated and delivered in the window (offered_load, accepted_load) */
void
simpoint_table_header(FILE *f)
{
	fprintf(f, "%-22s %6s %8s %9s %10s %9s %9s %6s %6s %6s\n", "network",
	    "load", "offered", "accepted", "pkts/cyc", "net lat", "e2e lat",
	    "p99", "hops", "int%");
}

/* The note ending a row, after two spaces, if there is one: no line of a
 * table ends with a space. */
static void
row_note(FILE *f, const char *note)
{
	if (note[0] != '\0')
		fprintf(f, "  %s", note);
	fputc('\n', f);
}

/* The last column of a table row: what is wrong with the point, if
 * anything (the worst first). */
static const char *
point_note(const simpoint *pt)
{
	if (pt->deadlock)
		return "DEADLOCK";
	if (pt->saturated && !pt->throughput_converged)
		return "saturated, not steady";
	if (pt->saturated)
		return "saturated";
	if (!pt->converged)
		return "not converged";
	return "";
}

void
simpoint_table_row(FILE *f, const simpoint *pt)
{
	char sb[128];

	char iu[16];

	if (pt->net.twin)
		snprintf(iu, sizeof(iu), "%.1f", 100 * pt->internal_util);
	else
		snprintf(iu, sizeof(iu), "-");
	if (pt->measured_runs < pt->seeds) {
		fprintf(f, "%-22s %6.4g %8.4f %9.4f %10.3f %9s %9s %6s %6s %6s",
		    net_name(&pt->net, sb, sizeof(sb)), pt->load, pt->offered,
		    pt->accepted, pt->throughput_packets, "n/a", "n/a", "n/a",
		    "n/a", iu);
		row_note(f, pt->deadlock ? "DEADLOCK" : "saturated");
		return;
	}
	fprintf(f, "%-22s %6.4g %8.4f %9.4f %10.3f %9.1f %9.1f %6.0f %6.2f %6s",
	    net_name(&pt->net, sb, sizeof(sb)), pt->load, pt->offered,
	    pt->accepted,
	    pt->throughput_packets, pt->net_lat, pt->e2e_lat, pt->p99_e2e,
	    pt->avg_hops, iu);
	row_note(f, point_note(pt));
}
