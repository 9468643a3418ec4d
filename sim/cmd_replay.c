/*
 * ttsim replay: run a recorded trace through one or more networks and
 * predict how long it takes and what its messages see (twintorus/replay.h).
 * The flags, the networks and their runs (on the task runner, sim/jobs.c,
 * for --jobs and MPI); what is printed of them is replay_out.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "twintorus/outfile.h"
#include "replay.h"

static void
replay_usage(FILE *f)
{
	fprintf(f,
"usage: ttsim replay TRACE... [FILE.yaml] [network flags] [--compare LIST]\n"
"                    [--jobs N]\n"
"                    [--speed X|max | --causal [--deps FILE] [--placement P]]\n"
"                    [--json]\n"
"                    [--csv FILE] [--plot FILE]\n"
"\n"
"Replays a trace (pcap or pcapng files, - for standard input, or directories\n"
"of them: one file per node, merged by time) through the cycle-accurate\n"
"model and predicts its makespan, message latencies and link loads.  Each\n"
"data frame is a message from its source PE to its destination PE at its\n"
"time; it becomes ceil(bytes / (packet_flits * flit_bytes)) packets.  A\n"
"cycle is the time a link takes for one flit: flit_bytes * 8 / link_gbps ns\n"
"(12.8 ns with the defaults, 16 bytes at 10 Gb/s).  Plain captures (tcpdump\n"
"of Ethernet/IP) replay through the YAML file's addresses: map.\n"
"\n"
"An MPI-level trace (OTF2 anchor FILE.otf2; SimGrid TI, --ti-flops RATE)\n"
"replays alone and causally: rank r on PE r (or --placement), MPI's own\n"
"matching, collectives as fixed algorithms (man ttsim); --deps refused.\n"
"\n"
"Exit status: 0 replayed, 1 the deadlock watchdog fired, 2 bad usage or a\n"
"damaged trace.\n");
}

static void
on_progress(void *ctx, double done)
{
	struct replay_job *j = ctx;
	double f = j->total ? (double)tt_replay_read(j->rp) / (double)j->total : 0;

	(void)done;
	progress_show(j->label, ((double)j->index + f) / (double)j->count);
}

/* The plain 2D torus with n PEs, a x b with a >= b as close as can be. */
static int
spec_2d(const tt_netspec *base, uint32_t n, tt_netspec *out)
{
	uint32_t b;
	char dims[64], err[256];

	for (b = (uint32_t)sqrt((double)n); b >= 2; b--)
		if (n % b == 0 && n / b >= 2)
			break;
	if (b < 2)
		return -1;
	*out = *base;
	out->twin = 0;
	snprintf(dims, sizeof(dims), "%u,%u", n / b, b);
	return tt_netspec_set_dims(out, dims, err, sizeof(err));
}

enum {
	OPT_REPLAY_COMPARE = OPT_OWN, OPT_REPLAY_CSV, OPT_REPLAY_PLOT,
	OPT_REPLAY_SPEED, OPT_REPLAY_WARMUP, OPT_REPLAY_LOOKAHEAD, OPT_REPLAY_TOP
};

#define REPLAY_TOP_DEFAULT 10

/* Listed first: --csv takes a file here, --warmup is the replay's own. */
static const optdef replay_flags[] = {
	OPT_TITLE("replay:"),
	OPT_VAL("compare", OPT_REPLAY_COMPARE, "LIST",
	    "run several networks on the same trace: port configurations (D, "
	    "A..J, best), 2d (the plain 2D torus with as many PEs, as square "
	    "as possible) or topologies such as 16x8:plain or 4x4x8; all need "
	    "as many PEs.  ITEM@SPEED: at that link speed, all else equal "
	    "(D@2.5G, A@100M, 2d@10G; k, M, G, T bits/s, a plain number Gb/s)"),
	OPT_VALDEF("speed", OPT_REPLAY_SPEED, "X|max",
	    "trace time divided by X (2: twice as fast); max: every PE sends "
	    "its messages back to back, the PEs kept within --lookahead "
	    "messages of each other in trace order (the result depends on it)",
	    TT_REPLAY_SPEED_DEFAULT),
	OPT_VALDEF("lookahead", OPT_REPLAY_LOOKAHEAD, "N",
	    "messages read ahead of the simulation: memory holds these and "
	    "what is in flight, not the whole trace",
	    TT_REPLAY_LOOKAHEAD_DEFAULT),
	OPT_VALDEF("warmup", OPT_REPLAY_WARMUP, "N",
	    "measure from cycle N: accepted load counts packets that arrive "
	    "from then until the last message is generated, latency the "
	    "messages generated in that window", TT_REPLAY_WARMUP_DEFAULT),
	OPT_VALDEF("top", OPT_REPLAY_TOP, "N", "hottest links listed",
	    REPLAY_TOP_DEFAULT),
	OPT_VAL("csv", OPT_REPLAY_CSV, "FILE",
	    "one line per message and network (causal: the last two columns "
	    "are the sequence and the predecessor count)"),
	OPT_VAL("plot", OPT_REPLAY_PLOT, "FILE",
	    "message latency CDF per network (.png or .svg, gnuplot)"),
	OPT_END
};

/* --speed: a speed-up in this range, or max. */
#define REPLAY_SPEED_MIN 1e-6
#define REPLAY_SPEED_MAX 1e9
/* Cycles a replay counts at most: where a double stops being exact. */
#define REPLAY_MAX_CYCLES (1ull << 53)

static int
replay_take(void *state, const struct optval *v)
{
	struct replay *r = state;
	const char *c = v->cmd, *f = v->flag, *s = v->value;

	switch (v->id) {
	case OPT_ARG:
		if (netopts_is_yaml(s))
			return netopts_file(&r->net, s, c);
		r->paths[r->npaths++] = s;
		return 0;
	case OPT_REPLAY_COMPARE:
		r->compare = s;
		return 0;
	case OPT_REPLAY_CSV:
		r->csv_path = s;
		return 0;
	case OPT_REPLAY_PLOT:
		r->plot_path = s;
		return 0;
	case OPT_REPLAY_SPEED:
		r->open_loop_flag = "--speed";
		if (strcmp(s, "max") == 0) {
			r->rpp.speed = 0;
			return 0;
		}
		return opt_real(c, f, s, REPLAY_SPEED_MIN, REPLAY_SPEED_MAX,
		    "a speed-up from 0.000001 to 1000000000 (e.g. 2), or max",
		    &r->rpp.speed);
	case OPT_REPLAY_WARMUP:
		r->open_loop_flag = "--warmup";
		return opt_u64(c, f, s, 0, 1ull << 40, &r->rpp.warmup);
	case OPT_REPLAY_LOOKAHEAD:
		r->open_loop_flag = "--lookahead";
		return opt_u64(c, f, s, 1, 1ull << 32, &r->rpp.lookahead);
	}
	return opt_int(c, f, s, 1, 65536, &r->top);
}

/* What only a serial run can do, and flags that do not go together. */
static int
replay_conflicts(struct replay *r)
{
	if (r->npaths == 0) {
		fprintf(stderr, "ttsim replay: give one or more trace files or "
		    "directories (see ttsim replay --help)\n");
		return -1;
	}
	r->mpi_path = mpi_path(r->paths, r->npaths);
	if (causal_conflicts(r) < 0)
		return -1;
	if (r->mpi_path != NULL)
		r->causal.on = 1;       /* it replays causally or not at all */
	if (ttsim_comm() != NULL && r->rpp.speed == 0) {
		fprintf(stderr, "ttsim replay: --speed max is for serial runs: "
		    "when the next message is read depends on every PE at "
		    "once, so ranks would not agree; give a speed-up (e.g. "
		    "--speed 100) or run without mpirun\n");
		return -1;
	}
	if (ttsim_comm() != NULL && r->csv_path != NULL) {
		fprintf(stderr, "ttsim replay: --csv is for serial runs: each "
		    "rank completes its own PEs' messages; run without mpirun "
		    "for per-message output\n");
		return -1;
	}
	if (r->out.json && r->csv_path != NULL && strcmp(r->csv_path, "-") == 0) {
		fprintf(stderr, "ttsim replay: --json and --csv - both want "
		    "standard output; give --csv a file\n");
		return -1;
	}
	return 0;
}

static int
replay_parse(struct replay *r, int argc, char **argv)
{
	const opt_group groups[] = {
		{replay_flags, 1, replay_take, r},
		{netopts_flags, 0, netopts_take, &r->net},
		{netopts_rule_flags, 0, netopts_take, &r->net},
		{outopts_json, 0, outopts_take, &r->out},
		{simopts_model_flags, 0, simopts_take, &r->sim},
		{modelopts_flags, 0, modelopts_take, &r->sim},
		{linkopts_flags, 0, linkopts_take, &r->link},
		{causal_flags, 0, causal_take, &r->causal},
		{inferopts_flags, 0, causal_infer_take, &r->causal},
		{jobs_flags, 0, jobs_take, &r->jobs},
		{progress_flags, 0, progress_take, NULL},
		{tiopts_flags, 0, tiopts_take, &r->ti_flops},
	};
	int rc;

	netopts_init(&r->net);
	simopts_init(&r->sim);
	causal_opts_init(&r->causal);
	r->sim.cmd = "replay";
	tt_replay_params_default(&r->rpp);
	r->top = REPLAY_TOP_DEFAULT;
	r->jobs = jobs_default();
	rc = opt_parse("replay", replay_usage, groups, OPT_NGROUPS(groups), argc, argv);
	if (rc != OPT_PARSED)
		return rc;
	if (replay_conflicts(r) < 0 || netopts_finish(&r->net, "replay") < 0)
		return -1;
	if (r->net.ports_all) {
		fprintf(stderr, "ttsim replay: --ports all is for analyze and "
		    "sweep; use --compare A,B,... here\n");
		return -1;
	}
	r->sim0 = r->sim;
	if (simopts_resolve(&r->sim, &r->net.cfg, &r->link) < 0)
		return -1;
	r->cycle_ns = replay_rpp_set(&r->rpp, &r->sim.p, &r->sim.model);
	if (r->plot_path != NULL && plot_ready("replay", r->plot_path) < 0)
		return -1;
	return OPT_PARSED;
}

/* One network of --compare: 2d, a topology, or a port configuration. */
static int
compare_item(const char *item, const tt_netspec *base, uint32_t pes,
    tt_netspec *sp)
{
	char err[512];

	if (strcmp(item, "2d") == 0) {
		if (spec_2d(base, pes, sp) < 0) {
			fprintf(stderr, "ttsim replay: --compare 2d: %u PEs make "
			    "no 2D torus of at least 2x2\n", pes);
			return -1;
		}
		return 0;
	}
	if (strchr(item, 'x') != NULL || strchr(item, ':') != NULL)
		return topo_parse(item, base, sp, "replay", "--compare");
	*sp = *base;
	sp->twin = 1;
	if (tt_netspec_set_ports(sp, item, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim replay: --compare %s: %s (or use 2d or a "
		    "topology such as 16x8:plain)\n", item, err);
		return -1;
	}
	return 0;
}

/*
 * A --compare item's @SPEED: a link rate in bits/s with a unit (k, K, M,
 * G, T), or a plain number of Gb/s.  0, or -1 after a message.
 */
static int
speed_parse(const char *item, const char *at, double *gbps)
{
	static const struct { char unit; double gbps; } units[] = {
		{'k', 1e-6}, {'K', 1e-6}, {'M', 1e-3}, {'G', 1}, {'T', 1e3}
	};
	const char *s = at + 1;
	char *end;
	double x;
	size_t u;

	errno = 0;
	x = strtod(s, &end);
	if (end == s || *s == '-' || *s == '+' || errno != 0 || !isfinite(x)) {
		fprintf(stderr, "ttsim replay: --compare %s: '%s' is not a link "
		    "speed; write a rate such as @2.5G, @100M or @10 (Gb/s)\n",
		    item, s);
		return -1;
	}
	if (*end != '\0') {
		for (u = 0; u < sizeof(units) / sizeof(units[0]); u++)
			if (end[0] == units[u].unit && end[1] == '\0')
				break;
		if (u == sizeof(units) / sizeof(units[0])) {
			fprintf(stderr, "ttsim replay: --compare %s: '%s' is not "
			    "a unit of link speed; use k, M, G or T (bits/s), "
			    "or none for Gb/s\n", item, end);
			return -1;
		}
		x *= units[u].gbps;
	}
	if (!(x >= TT_LINK_GBPS_MIN && x <= TT_LINK_GBPS_MAX)) {
		fprintf(stderr, "ttsim replay: --compare %s: %g Gb/s is out of "
		    "range (%g to %g Gb/s: 1M to 10T)\n", item, x,
		    TT_LINK_GBPS_MIN, TT_LINK_GBPS_MAX);
		return -1;
	}
	*gbps = x;
	return 0;
}

/* " @2.5G" after a network's name: the rate in the largest unit that
 * keeps it at least 1. */
static void
speed_suffix(char *name, size_t size, double gbps)
{
	size_t len = strlen(name);

	if (gbps >= 1e3)
		snprintf(name + len, size - len, " @%gT", gbps / 1e3);
	else if (gbps >= 1)
		snprintf(name + len, size - len, " @%gG", gbps);
	else if (gbps >= 1e-3)
		snprintf(name + len, size - len, " @%gM", gbps * 1e3);
	else
		snprintf(name + len, size - len, " @%gk", gbps * 1e6);
}

double
replay_rpp_set(tt_replay_params *rpp, const tt_simparams *p,
    const tt_model *m)
{
	rpp->net.packet_flits = p->net.packet_flits;
	rpp->net.flit_bytes = m->flit_bytes;
	rpp->net.link_gbps = m->link_gbps;
	return tt_cycle_ns(m->flit_bytes, m->link_gbps);
}

/* Network rn's model: the command's, or the command's at its @SPEED. */
static int
replay_model(struct replay *r, struct netrun *rn)
{
	char err[512];

	if (rn->gbps > 0) {
		if (simopts_model_at(&r->sim, rn->gbps, &rn->p, &rn->model,
		    &rn->mc, err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim replay: --compare @%g Gb/s: %s\n",
			    rn->gbps, err);
			return -1;
		}
	} else {
		rn->p = r->sim.p;
		rn->model = r->sim.model;
		rn->mc = r->sim.mc;
	}
	rn->rpp = r->rpp;
	rn->cycle_ns = replay_rpp_set(&rn->rpp, &rn->p, &rn->model);
	return 0;
}

/* replay_model(), and the engine's check of the network with it. */
static int
replay_model_checked(struct replay *r, struct netrun *rn)
{
	char err[1024], title[128];

	if (replay_model(r, rn) < 0)
		return -1;
	if (tt_sim_check(&rn->net, &rn->p, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim replay: %s: %s\n",
		    net_title(&rn->net, title, sizeof(title)), err);
		return -1;
	}
	return 0;
}

/* The networks of --compare, or the one of the flags and the file. */
static int
replay_compare(struct replay *r, uint32_t *pes)
{
	char buf[1024], err[1024], *item[REPLAY_MAX_NETS + 1];
	tt_net base;
	int rc = 0, n, i;

	r->runs[0].spec = r->net.spec;
	r->nrun = 1;
	if (r->compare == NULL)
		return 0;
	if (tt_net_init(&base, &r->net.spec, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim replay: %s\n", err);
		r->nrun = 0;
		return -1;
	}
	*pes = base.ncards;
	tt_net_free(&base);
	r->nrun = 0;
	snprintf(buf, sizeof(buf), "%s", r->compare);
	if ((n = netlist_split(buf, item, REPLAY_MAX_NETS)) < 0) {
		fprintf(stderr, "ttsim replay: --compare: at most %d "
		    "networks\n", REPLAY_MAX_NETS);
		return -1;
	}
	for (i = 0; i < n && rc == 0; i++) {
		char *at = strrchr(item[i], '@');

		r->runs[r->nrun].gbps = 0;
		if (at != NULL) {
			char whole[256];

			/* the item whole for messages, the network before @ */
			snprintf(whole, sizeof(whole), "%s", item[i]);
			if (speed_parse(whole, whole + (at - item[i]),
			    &r->runs[r->nrun].gbps) < 0)
				return -1;
			*at = '\0';
			if (at == item[i]) {
				fprintf(stderr, "ttsim replay: --compare %s: name "
				    "the network before @ (e.g. D@2.5G)\n",
				    whole);
				return -1;
			}
		}
		rc = compare_item(item[i], &r->net.spec, *pes,
		    &r->runs[r->nrun].spec);
		r->nrun += rc == 0;
	}
	if (rc == 0 && r->nrun == 0) {
		fprintf(stderr, "ttsim replay: --compare: give networks, e.g. "
		    "D,A,2d\n");
		return -1;
	}
	return rc;
}

/*
 * The networks, each checked against the model's flags.  Every one must
 * have as many PEs as the network the trace was given with (flags or
 * YAML): its PE ids are that one's.
 */
static int
replay_networks(struct replay *r)
{
	uint32_t pes = 0;
	char err[1024];
	int k, n;

	if (replay_compare(r, &pes) < 0)
		return -1;
	n = r->nrun;
	for (k = 0; k < n; k++) {
		struct netrun *rn = &r->runs[k];

		r->nrun = k;
		if (tt_net_init(&rn->net, &rn->spec, err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim replay: network %d: %s\n", k + 1,
			    err);
			return -1;
		}
		r->nrun = k + 1;
		if (replay_model_checked(r, rn) < 0)
			return -1;
		net_name(&rn->net, rn->name, sizeof(rn->name));
		if (rn->gbps > 0)
			speed_suffix(rn->name, sizeof(rn->name), rn->gbps);
		if (k == 0 && pes == 0)
			pes = rn->net.ncards;
		if (rn->net.ncards != pes) {
			fprintf(stderr, "ttsim replay: --compare: %s has %u PEs, "
			    "the trace's network (--dims or the YAML file) has "
			    "%u; compare networks of as many PEs\n", rn->name,
			    rn->net.ncards, pes);
			return -1;
		}
	}
	return 0;
}

/* The measurement window's end: the trace's last message, in cycles of
 * each network (their links may differ: --compare ITEM@SPEED).  As fast
 * as possible, message times are known only as they go, and a causal
 * replay decides them as it goes (0: the whole run). */
static int
replay_window(struct replay *r)
{
	const tt_trace_stats *st;
	double span;
	int k;

	if (r->causal.on) {
		for (k = 0; k < r->nrun; k++)
			r->runs[k].rpp.window_end = 0;
		return 0;
	}
	st = tt_trace_in_stats(r->in, tt_trace_in_nfiles(r->in));

	for (k = 0; k < r->nrun; k++) {
		struct netrun *rn = &r->runs[k];
		tt_replay_params *p = &rn->rpp;

		p->window_end = 0;
		if (p->speed == 0 || r->causal.on)
			continue;
		span = (double)(st->last_ns - st->first_ns) /
		    (rn->cycle_ns * p->speed);
		if (span >= (double)REPLAY_MAX_CYCLES) {
			fprintf(stderr, "ttsim replay: %s%sthe trace's %.9f s are "
			    "%.3g cycles of %g ns at --speed %g, more than the "
			    "2^53 a replay counts; raise --speed or lower "
			    "--link-gbps\n", r->nrun > 1 ? rn->name : "",
			    r->nrun > 1 ? ": " : "",
			    (double)(st->last_ns - st->first_ns) * 1e-9, span,
			    rn->cycle_ns, p->speed);
			return -1;
		}
		p->window_end = (uint64_t)llround(span) + 1;
		if (p->warmup >= p->window_end) {
			fprintf(stderr, "ttsim replay: --warmup %" PRIu64 ": the "
			    "trace's messages are generated in cycles 0..%" PRIu64
			    "%s%s; warm up for fewer cycles\n", p->warmup,
			    p->window_end - 1, r->nrun > 1 ? " on " : "",
			    r->nrun > 1 ? rn->name : "");
			return -1;
		}
	}
	return 0;
}

/* After the hosts were fitted (--recorded-model, an MPI-level trace):
 * every network's model again, with the turnaround found as its host_ns
 * (as --host-ns would give it). */
static int
replay_refit(struct replay *r)
{
	int k;

	if (!r->fit.done)
		return 0;
	r->sim = r->sim0;
	r->sim.model_flags.host_ns = r->fit.host_ns;
	r->sim.model_flags.set |= TT_MODEL_HOST_NS;
	if (simopts_resolve(&r->sim, &r->net.cfg, &r->link) < 0)
		return -1;
	r->cycle_ns = replay_rpp_set(&r->rpp, &r->sim.p, &r->sim.model);
	for (k = 0; k < r->nrun; k++)
		if (replay_model_checked(r, &r->runs[k]) < 0)
			return -1;
	return 0;
}

/*
 * Read the whole trace once first: every damaged record is reported
 * before anything runs, and progress knows the total.
 */
static int
replay_scan(struct replay *r)
{
	const tt_trace_stats *st;
	char err[1024];
	tt_msg m;
	int x;

	if (r->mpi_path != NULL)
		return mpi_scan(r) < 0 || mpi_fit_host(r) < 0 ||
		    replay_refit(r) < 0 ? -1 : replay_window(r);
	if (tt_addrmap_build(&r->map, &r->net.cfg, &r->runs[0].net, stderr) > 0)
		return -1;
	if (tt_trace_in_open(&r->in, r->paths, r->npaths, &r->map,
	    r->runs[0].net.ncards, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim replay: %s\n", err);
		return -1;
	}
	while ((x = tt_trace_in_next(r->in, &m, err, sizeof(err))) > 0)
		r->total++;
	if (x < 0) {
		fprintf(stderr, "ttsim replay: %s\n", err);
		return -1;
	}
	tt_trace_in_warnings(r->in, stderr, "ttsim replay: warning: ");
	st = tt_trace_in_stats(r->in, tt_trace_in_nfiles(r->in));
	if (r->total == 0) {
		fprintf(stderr, "ttsim replay: the trace holds no messages "
		    "(%" PRIu64 " records read)\n", st->records);
		return -1;
	}
	r->no_copies = st->delivered == 0 && st->plain < st->messages;
	if (causal_check(&r->causal) < 0)
		return -1;
	return replay_window(r);
}

void
replay_deadlock(const struct netrun *rn, const tt_simparams *p)
{
	char cb[96];
	size_t c;

	progress_clear();
	fprintf(stderr, "ttsim replay: %s: deadlock: no flit moved for %llu "
	    "cycles (cycle %llu); the full buffers wait on each other in a "
	    "cycle of %zu channels:\n", rn->name,
	    (unsigned long long)p->watchdog, (unsigned long long)rn->res.cycles,
	    rn->res.cycle_len);
	for (c = 0; c < rn->res.cycle_len; c++)
		fprintf(stderr, "  %s\n", tt_chan_name(&rn->net,
		    rn->res.cycle[c], cb, sizeof(cb)));
}

int
replay_links(struct netrun *rn, tt_sim *sim)
{
	size_t n;
	const uint64_t *lf;

	lf = tt_sim_link_flits(sim, &rn->nports);
	n = (size_t)rn->net.ncards * (size_t)rn->nports;
	rn->link = malloc(sizeof(uint64_t) * n);
	if (rn->link == NULL) {
		fprintf(stderr, "ttsim replay: out of memory\n");
		return -1;
	}
	memcpy(rn->link, lf, sizeof(uint64_t) * n);
	return 0;
}

/* Replay the trace through network k: exit status so far. */
static int
replay_one(struct replay *r, int k)
{
	struct netrun *rn = &r->runs[k];
	tt_trace_in *rin = NULL;
	tt_replay *rp = NULL;
	tt_sim *sim = NULL;
	tt_source src;
	struct timespec t0, t1;
	char err[1024];
	int rc = TTSIM_EXIT_OK;

	if (r->causal.on)
		return causal_replay_one(r, k);
	if (tt_sim_create_part(&sim, &rn->net, &rn->p,
	    r->sim.whole ? NULL : ttsim_comm(), err, sizeof(err)) < 0 ||
	    tt_sim_gather_links(sim, err, sizeof(err)) < 0 ||
	    tt_trace_in_open(&rin, r->paths, r->npaths, &r->map,
	    rn->net.ncards, err, sizeof(err)) < 0 ||
	    tt_replay_create(&rp, rin, &rn->rpp, sim, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim replay: %s\n", err);
		tt_trace_in_close(rin);
		tt_sim_free(sim);
		return TTSIM_EXIT_USAGE;
	}
	r->job.name = rn->name;
	r->job.cycle_ns = rn->cycle_ns;
	r->job.rp = rp;
	r->job.index = k;
	if (r->job.csv != NULL)
		tt_replay_on_message(rp, replay_on_message, &r->job);
	src = tt_replay_source(rp);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	tt_sim_run(sim, &src, 1, &rn->res, on_progress, &r->job);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	rn->wall = (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	/* the replay's results, over the ranks */
	rn->rr = *tt_replay_result_get(rp);
	tt_replay_reduce(sim, &rn->rr);
	rn->makespan = rn->res.cycles;
	if (replay_links(rn, sim) < 0)
		rc = TTSIM_EXIT_USAGE;
	if (tt_replay_error(rp, err, sizeof(err)) < 0) {
		progress_clear();
		fprintf(stderr, "ttsim replay: %s\n", err);
		rc = TTSIM_EXIT_USAGE;
	}
	tt_replay_free(rp);
	tt_trace_in_close(rin);
	tt_sim_free(sim);
	if (rc == TTSIM_EXIT_OK && rn->res.deadlock) {
		replay_deadlock(rn, &rn->p);
		rc = TTSIM_EXIT_DEADLOCK;
	}
	return rc;
}

/*
 * --compare with --jobs N: a network per worker process.  A worker sends
 * back what the report reads of its netrun (this, then the deadlock's
 * channels and the link counts); its --csv lines go to a file of its own,
 * copied into the --csv file in the networks' order.
 */
struct netres {
	int rc, nports;
	uint64_t makespan, ncycle, nlink;
	double wall;
	tt_simresult res;
	tt_replay_result rr;
	tt_infer_stats ist;
	tt_causal_result cres;
};

struct replay_task {
	struct replay *r;
	FILE *csv[REPLAY_MAX_NETS];     /* --jobs N: each network's --csv */
	int next, done;         /* networks started, taken */
	int rc;                 /* the exit status so far */
};

static int
net_task(void *ctx, int k, FILE *out)
{
	struct replay_task *t = ctx;
	struct replay *r = t->r;
	struct netrun *rn = &r->runs[k];
	struct netres nr;

	memset(&nr, 0, sizeof(nr));
	if (t->csv[k] != NULL)
		r->job.csv = t->csv[k];
	if ((nr.rc = replay_one(r, k)) == TTSIM_EXIT_USAGE)
		return -1;
	if (r->job.csv != NULL && fflush(r->job.csv) != 0) {
		fprintf(stderr, "ttsim replay: --csv: %s\n", strerror(errno));
		return -1;
	}
	nr.nports = rn->nports;
	nr.makespan = rn->makespan;
	nr.wall = rn->wall;
	nr.res = rn->res;
	nr.res.cycle = NULL;
	nr.ncycle = rn->res.cycle_len;
	nr.nlink = (uint64_t)rn->net.ncards * (uint64_t)rn->nports;
	nr.rr = rn->rr;
	nr.ist = rn->cr.ist;
	nr.cres = rn->cr.res;
	if (fwrite(&nr, sizeof(nr), 1, out) != 1 ||
	    fwrite(rn->res.cycle, sizeof(uint64_t), nr.ncycle, out) != nr.ncycle ||
	    fwrite(rn->link, sizeof(uint64_t), nr.nlink, out) != nr.nlink) {
		fprintf(stderr, "ttsim replay: out of memory\n");
		return -1;
	}
	return 0;
}

static uint64_t *
dup_u64(const char *p, uint64_t n)
{
	uint64_t *d = malloc(sizeof(uint64_t) * (n ? n : 1));

	if (d != NULL)
		memcpy(d, p, sizeof(uint64_t) * n);
	return d;
}

/* A worker's result into network k's netrun: its exit status, or -1
 * after a message. */
static int
net_record(struct replay *r, int k, const char *buf, size_t len)
{
	struct netrun *rn = &r->runs[k];
	struct netres nr;

	if (k < 0 || k >= r->nrun || len < sizeof(nr))
		goto bad;
	memcpy(&nr, buf, sizeof(nr));
	if (nr.nports <= 0 || nr.nlink != (uint64_t)rn->net.ncards *
	    (uint64_t)nr.nports || nr.ncycle > len || len - sizeof(nr) !=
	    sizeof(uint64_t) * (nr.ncycle + nr.nlink))
		goto bad;
	/* a network run on this rank has its own copies */
	tt_simresult_free(&rn->res);
	free(rn->link);
	rn->link = NULL;
	rn->res = nr.res;
	rn->res.cycle = NULL;
	if (nr.ncycle > 0 && (rn->res.cycle = dup_u64(buf + sizeof(nr),
	    nr.ncycle)) == NULL)
		goto mem;
	if ((rn->link = dup_u64(buf + sizeof(nr) + sizeof(uint64_t) *
	    nr.ncycle, nr.nlink)) == NULL)
		goto mem;
	rn->nports = nr.nports;
	rn->makespan = nr.makespan;
	rn->wall = nr.wall;
	rn->rr = nr.rr;
	rn->cr.ist = nr.ist;
	rn->cr.res = nr.cres;
	return nr.rc;
bad:
	fprintf(stderr, "ttsim replay: a worker's result is cut short\n");
	return -1;
mem:
	fprintf(stderr, "ttsim replay: out of memory\n");
	return -1;
}

/* The runner's side of the replay (sim/jobs.c): a task is a network. */
static int
net_next(void *ctx, int *k)
{
	struct replay_task *t = ctx;

	if (t->next >= t->r->nrun)
		return 0;
	*k = t->next++;
	return 1;
}

/* Network k replayed here, straight into its netrun. */
static int
net_here(void *ctx, int k)
{
	struct replay_task *t = ctx;
	int one = replay_one(t->r, k);

	if (one != TTSIM_EXIT_OK)
		t->rc = one;
	return one == TTSIM_EXIT_USAGE ? -1 : 0;
}

/* A worker's or a rank's result (net_task()'s) into network k. */
static int
net_take(void *ctx, int k, const char *buf, size_t len, int where)
{
	struct replay_task *t = ctx;
	struct replay *r = t->r;
	char label[64];
	int one = net_record(r, k, buf, len);

	if (one < 0)
		return -1;
	/* a deadlock found on another rank, told by rank 0 */
	if (one == TTSIM_EXIT_DEADLOCK && where == RUNNER_ELSEWHERE)
		replay_deadlock(&r->runs[k], &r->runs[k].p);
	if (one != TTSIM_EXIT_OK)
		t->rc = one;
	t->done++;
	snprintf(label, sizeof(label), "ttsim replay, %d/%d networks",
	    t->done, r->nrun);
	progress_show(label, (double)t->done / r->nrun);
	return 0;
}

/*
 * Every network: one at a time, on --jobs workers, or over MPI ranks
 * (whole networks while there are at least as many as ranks, else each
 * shared by the ranks in turn); then the --csv file closed.
 */
static int
replay_all(struct replay *r)
{
	struct replay_task t;
	int pool = ttsim_comm() == NULL && r->jobs > 1 && r->nrun > 1;
	runner rn = {
		.cmd = "replay", .what = "a network",
		.see_why = "replay it alone", .ctx = &t,
		.njobs = pool ? r->jobs : 1, .next = net_next, .run = net_task,
		.take = net_take, .here = net_here, .after = NULL,
		.ordered = 0, .whole = &r->sim.whole, .alone = NULL,
	};
	int k, rc = TTSIM_EXIT_OK;

	memset(&t, 0, sizeof(t));
	t.r = r;
	t.rc = TTSIM_EXIT_OK;
	for (k = 0; pool && k < r->nrun && r->job.csv != NULL; k++)
		if ((t.csv[k] = tmpfile()) == NULL) {
			fprintf(stderr, "ttsim replay: --csv: a temporary "
			    "file: %s\n", strerror(errno));
			rc = TTSIM_EXIT_USAGE;
			break;
		}
	if (pool)
		progress_show("ttsim replay", 0);
	if (rc == TTSIM_EXIT_OK)
		rc = runner_run(&rn) < 0 ? TTSIM_EXIT_USAGE : t.rc;
	if (pool && rc != TTSIM_EXIT_USAGE && r->job.csv != NULL &&
	    replay_csv_copy(r, t.csv) < 0) {
		fprintf(stderr, "ttsim replay: --csv: %s\n", strerror(errno));
		rc = TTSIM_EXIT_USAGE;
	}
	for (k = 0; k < r->nrun; k++)
		if (t.csv[k] != NULL)
			fclose(t.csv[k]);
	return replay_csv_close(r, rc);
}

static void
replay_free(struct replay *r)
{
	int k;

	tt_outfile_discard(r->job.csv_out);
	for (k = 0; k < r->nrun; k++) {
		causal_free(&r->runs[k].cr);
		tt_simresult_free(&r->runs[k].res);
		free(r->runs[k].link);
		r->runs[k].link = NULL;
		if (r->runs[k].net.coord != NULL)
			tt_net_free(&r->runs[k].net);
	}
	tt_trace_in_close(r->in);
	tt_mpi_trace_free(&r->mpi);
	tt_addrmap_free(&r->map);
	tt_config_free(&r->net.cfg);
	free(r->paths);
}

int
cmd_replay(int argc, char **argv)
{
	static struct replay r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.paths = calloc((size_t)argc, sizeof(*r.paths));
	if (r.paths == NULL)
		return TTSIM_EXIT_USAGE;
	rc = replay_parse(&r, argc, argv);
	if (rc == OPT_HELP_SHOWN)
		rc = TTSIM_EXIT_OK;
	else if (rc != OPT_PARSED || replay_networks(&r) < 0 ||
	    replay_scan(&r) < 0 || replay_csv_open(&r) < 0)
		rc = TTSIM_EXIT_USAGE;
	else if ((rc = replay_all(&r)) != TTSIM_EXIT_USAGE &&
	    replay_report(&r) < 0)
		rc = TTSIM_EXIT_USAGE;
	replay_free(&r);
	return rc;
}
