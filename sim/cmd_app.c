/*
 * ttsim app: run a closed-loop application motif on a network until every
 * rank's program ends (twintorus/motif.h), and optionally record it as ttd
 * would have (twintorus/record.h) with its true dependencies.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "twintorus/motif.h"
#include "twintorus/outfile.h"
#include "twintorus/trace.h"
#include "twintorus/json.h"
#include "ttsim.h"

static void
app_usage(FILE *f)
{
	fprintf(f,
"usage: ttsim app MOTIF [FILE.yaml] [network flags] [motif flags]\n"
"                 [--record DIR [--deps-out FILE]] [--json] [--csv FILE]\n"
"\n"
"Runs an application motif closed loop through the cycle-accurate model\n"
"until every rank's program ends: each rank computes, sends (the message\n"
"goes to its NIC and the rank goes on) and receives (the rank waits for\n"
"the message's last packet), so a message leaves when what it waits for\n"
"has arrived on this network.  Motifs:\n"
"  halo3d     3D process grid, as cubic as the ranks allow; per iteration\n"
"             send to the 6 neighbours, receive theirs, compute (alias\n"
"             stencil)\n"
"  sweep3d    2D grid; a wavefront from each corner in turn: per block\n"
"             receive from upstream x and y, compute, send downstream\n"
"  allreduce  ring allreduce of a --bytes vector (2(n-1) chunk steps),\n"
"             then compute\n"
"  alltoall   send to every other rank, receive from each, compute\n"
"  incast     clients send requests to their servers and wait for every\n"
"             response; servers receive, compute --service-ns, respond\n"
"  pingpong   rank r and r + n/2 exchange a message back and forth\n"
"The grid, roles and rank-to-PE map depend only on the ranks and the\n"
"flags, never on the network, so the same program runs on every network.\n"
"\n"
"Exit status: 0 ran, 1 the deadlock watchdog fired, 2 bad usage or input\n"
"or a failed write, 130 interrupted (SIGINT, SIGTERM, SIGHUP; the traces\n"
"then hold what was recorded until then).\n");
}

/* What ttsim app is told. */
struct app_opts {
	netopts no;
	simopts so;             /* the model's flags */
	outopts out;
	linkopts link;
	recordopts rec;
	tt_motif_params ap;
	uint32_t *ranks;
	const char *deps_out, *csv_path;
	int defaults_only;
};

static volatile sig_atomic_t app_stop;

static void
on_signal(int sig)
{
	(void)sig;
	app_stop = 1;
}

/* Room for n more ranks; -1 after a message. */
static int
ranks_grow(struct app_opts *o, size_t n, size_t *cap)
{
	uint32_t *g;

	if (n < *cap)
		return 0;
	*cap = *cap ? *cap * 2 : 64;
	if ((g = realloc(o->ranks, *cap * sizeof(*g))) == NULL) {
		fprintf(stderr, "ttsim app: --ranks: out of memory\n");
		return -1;
	}
	o->ranks = g;
	return 0;
}

/* --ranks N (PEs 0..N-1) or a list of PEs and ranges "0-63,100",
 * ascending. */
static int
parse_ranks(struct app_opts *o, const struct optval *v)
{
	char buf[4096], *item, *save = NULL, *end;
	size_t cap = 0, n = 0;
	unsigned long a, b, x;
	uint64_t u;

	free(o->ranks);
	o->ranks = NULL;
	if (strchr(v->value, ',') == NULL && strchr(v->value, '-') == NULL) {
		if (opt_u64(v->cmd, v->flag, v->value, 2, UINT32_MAX, &u) < 0)
			return -1;
		for (x = 0; x < u; x++) {
			if (ranks_grow(o, n, &cap) < 0)
				return -1;
			o->ranks[n++] = (uint32_t)x;
		}
		o->ap.nranks = (uint32_t)n;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", v->value);
	for (item = strtok_r(buf, ",", &save); item != NULL;
	    item = strtok_r(NULL, ",", &save)) {
		errno = 0;
		a = b = strtoul(item, &end, 10);
		if (*end == '-' && isdigit((unsigned char)end[1]))
			b = strtoul(end + 1, &end, 10);
		if (errno != 0 || *end != '\0' || end == item || b < a ||
		    b >= UINT32_MAX || (n > 0 && a <= o->ranks[n - 1])) {
			fprintf(stderr, "ttsim app: --ranks: '%s' is not a PE or "
			    "range A-B above the ones before it (e.g. "
			    "--ranks 0-63,100)\n", item);
			return -1;
		}
		for (x = a; x <= b; x++) {
			if (ranks_grow(o, n, &cap) < 0)
				return -1;
			o->ranks[n++] = (uint32_t)x;
		}
	}
	o->ap.nranks = (uint32_t)n;
	return 0;
}

enum {
	OPT_APP_ITERATIONS = OPT_OWN, OPT_APP_BYTES, OPT_APP_REQUEST_BYTES,
	OPT_APP_COMPUTE_NS, OPT_APP_SERVICE_NS, OPT_APP_IMBALANCE,
	OPT_APP_CLIENTS, OPT_APP_BLOCKS, OPT_APP_SEED, OPT_APP_RANKS,
	OPT_APP_DEPS_OUT, OPT_APP_CSV, OPT_APP_HELP_DEFAULTS
};

static const optdef app_flags[] = {
	OPT_TITLE("motif (each motif's defaults: ttsim app MOTIF "
	    "--help-defaults):"),
	OPT_VAL("iterations", OPT_APP_ITERATIONS, "N", "iterations"),
	OPT_VAL("bytes", OPT_APP_BYTES, "N",
	    "a message (allreduce: the vector; incast: a response)"),
	OPT_VAL("request-bytes", OPT_APP_REQUEST_BYTES, "N", "incast: a request"),
	OPT_VAL("compute-ns", OPT_APP_COMPUTE_NS, "T",
	    "compute per iteration (sweep3d: per block)"),
	OPT_VAL("service-ns", OPT_APP_SERVICE_NS, "T",
	    "incast: a server's time per request"),
	OPT_VAL("imbalance", OPT_APP_IMBALANCE, "F",
	    "each compute time varies by up to +-F of itself with the rank and "
	    "iteration"),
	OPT_VAL("clients", OPT_APP_CLIENTS, "N", "incast: the clients"),
	OPT_VAL("blocks", OPT_APP_BLOCKS, "N", "sweep3d: blocks per wavefront"),
	OPT_VAL("seed", OPT_APP_SEED, "N", "the seed of the imbalance"),
	OPT_VAL("ranks", OPT_APP_RANKS, "N|LIST",
	    "the PEs taking part: N (PEs 0..N-1) or a list such as 0-63,100; "
	    "rank r runs on the r-th (default every PE)"),
	OPT_FLAG("help-defaults", OPT_APP_HELP_DEFAULTS,
	    "print the motif's defaults and stop"),
	OPT_VAL("deps-out", OPT_APP_DEPS_OUT, "FILE",
	    "with --record: the motif's true dependencies, in ttsim trace "
	    "infer's format"),
	OPT_VAL("csv", OPT_APP_CSV, "FILE",
	    "one line per PE: its rank, when its program ended, messages sent "
	    "and received (- for standard output)"),
	OPT_END
};

/* The motif's limits (tt_motif_check() says the same). */
#define APP_ITERATIONS_MAX      (1ull << 30)
#define APP_BYTES_MAX           (1ull << 40)
#define APP_NS_MAX              1e12
#define APP_IMBALANCE_MAX       0.999
#define APP_BLOCKS_MAX          65536

/* A count or a size of the motif's. */
static int
app_take_u64(struct tt_motif_params *p, const struct optval *v)
{
	const char *c = v->cmd, *f = v->flag, *s = v->value;
	uint64_t u;

	switch (v->id) {
	case OPT_APP_ITERATIONS:
		return opt_u64(c, f, s, 1, APP_ITERATIONS_MAX, &p->iterations);
	case OPT_APP_BYTES:
		return opt_u64(c, f, s, 1, APP_BYTES_MAX, &p->bytes);
	case OPT_APP_REQUEST_BYTES:
		return opt_u64(c, f, s, 1, APP_BYTES_MAX, &p->request_bytes);
	case OPT_APP_SEED:
		return opt_u64(c, f, s, 0, UINT64_MAX, &p->seed);
	case OPT_APP_CLIENTS:
		if (opt_u64(c, f, s, 1, UINT32_MAX, &u) < 0)
			return -1;
		p->clients = (uint32_t)u;
		return 0;
	}
	if (opt_u64(c, f, s, 1, APP_BLOCKS_MAX, &u) < 0)
		return -1;
	p->blocks = (uint32_t)u;
	return 0;
}

static int
app_take(void *state, const struct optval *v)
{
	struct app_opts *o = state;
	const char *c = v->cmd, *f = v->flag, *s = v->value;

	switch (v->id) {
	case OPT_ARG:
		return netopts_file(&o->no, s, c);
	case OPT_APP_COMPUTE_NS:
		return opt_real(c, f, s, 0, APP_NS_MAX, "a time in ns from 0 to "
		    "1e12", &o->ap.compute_ns);
	case OPT_APP_SERVICE_NS:
		return opt_real(c, f, s, 0, APP_NS_MAX, "a time in ns from 0 to "
		    "1e12", &o->ap.service_ns);
	case OPT_APP_IMBALANCE:
		return opt_real(c, f, s, 0, APP_IMBALANCE_MAX, "a fraction from "
		    "0 to 0.999", &o->ap.imbalance);
	case OPT_APP_RANKS:
		return parse_ranks(o, v);
	case OPT_APP_DEPS_OUT:
		o->deps_out = s;
		return 0;
	case OPT_APP_CSV:
		o->csv_path = s;
		return 0;
	case OPT_APP_HELP_DEFAULTS:
		o->defaults_only = 1;
		return 0;
	}
	return app_take_u64(&o->ap, v);
}

/* Flags that do not go together, and what only a serial run can do. */
static int
app_conflicts(const struct app_opts *o)
{
	if (recordopts_check(&o->rec, "app") < 0)
		return -1;
	if (o->rec.dir != NULL && (o->ap.bytes > TT_TRACE_MSG_MAX ||
	    o->ap.request_bytes > TT_TRACE_MSG_MAX)) {
		fprintf(stderr, "ttsim app: --record: a trace holds messages of "
		    "at most %u bytes; give --bytes and --request-bytes no "
		    "more\n", TT_TRACE_MSG_MAX);
		return -1;
	}
	if (o->deps_out != NULL && o->rec.dir == NULL) {
		fprintf(stderr, "ttsim app: --deps-out goes with --record: the "
		    "dependencies name the recorded messages\n");
		return -1;
	}
	if (ttsim_comm() != NULL && (o->csv_path != NULL ||
	    o->deps_out != NULL)) {
		fprintf(stderr, "ttsim app: --csv and --deps-out are for serial "
		    "runs: each rank knows only its own PEs; run without "
		    "mpirun\n");
		return -1;
	}
	if (o->out.json && o->csv_path != NULL &&
	    strcmp(o->csv_path, "-") == 0) {
		fprintf(stderr, "ttsim app: --json and --csv - both want standard "
		    "output; give --csv a file\n");
		return -1;
	}
	return 0;
}

/*
 * The motif is the first argument, so that its defaults are set before
 * the flags that change them.  OPT_PARSED, OPT_HELP_SHOWN or -1 after a
 * message.
 */
static int
app_parse(struct app_opts *o, int argc, char **argv)
{
	const opt_group groups[] = {
		{app_flags, 1, app_take, o},
		{netopts_flags, 0, netopts_take, &o->no},
		{outopts_json, 0, outopts_take, &o->out},
		{simopts_model_flags, 0, simopts_take, &o->so},
		{modelopts_flags, 0, modelopts_take, &o->so},
		{linkopts_flags, 0, linkopts_take, &o->link},
		{recordopts_flags, 0, recordopts_take, &o->rec},
		{progress_flags, 0, progress_take, NULL},
	};
	enum tt_motif m;
	int rc;

	netopts_init(&o->no);
	simopts_init(&o->so);
	recordopts_init(&o->rec);
	o->so.cmd = "app";
	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "--help") == 0)) {
		opt_usage(stdout, app_usage, groups, OPT_NGROUPS(groups));
		return OPT_HELP_SHOWN;
	}
	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "ttsim app: give a motif first: %s (see ttsim "
		    "app --help)\n", tt_motif_list());
		return -1;
	}
	if (tt_motif_parse(argv[1], &m) < 0) {
		fprintf(stderr, "ttsim app: '%s' is not a motif: give one of %s "
		    "(see ttsim app --help)\n", argv[1], tt_motif_list());
		return -1;
	}
	tt_motif_params_default(&o->ap, m);
	rc = opt_parse("app", app_usage, groups, OPT_NGROUPS(groups), argc - 1,
	    argv + 1);
	if (rc != OPT_PARSED || o->defaults_only)
		return rc;
	if (app_conflicts(o) < 0 || netopts_finish(&o->no, "app") < 0)
		return -1;
	if (o->no.ports_all) {
		fprintf(stderr, "ttsim app: --ports all runs many networks; run "
		    "one at a time\n");
		return -1;
	}
	if (simopts_resolve(&o->so, &o->no.cfg, &o->link) < 0)
		return -1;
	o->ap.ranks = o->ranks;
	o->ap.net.packet_flits = o->so.p.net.packet_flits;
	o->ap.net.flit_bytes = o->so.model.flit_bytes;
	o->ap.net.link_gbps = o->so.model.link_gbps;
	return OPT_PARSED;
}

static void
print_defaults(const tt_motif_params *p)
{
	printf("%s: --iterations %" PRIu64 " --bytes %" PRIu64 " --compute-ns "
	    "%g --imbalance %g --seed %" PRIu64, tt_motif_name(p->motif),
	    p->iterations, p->bytes, p->compute_ns, p->imbalance, p->seed);
	if (p->motif == TT_MOTIF_INCAST)
		printf(" --request-bytes %" PRIu64 " --service-ns %g --clients "
		    "n/16", p->request_bytes, p->service_ns);
	if (p->motif == TT_MOTIF_SWEEP3D)
		printf(" --blocks %u", p->blocks);
	putchar('\n');
}

struct app_run {
	tt_net net;
	tt_simresult res;
	tt_motif_result ar;
	uint64_t makespan, waiting, records;
	char layout[96], wait[256];
	double cycle_ns, wall;
	uint32_t nranks;
};

static void
print_json(const struct app_opts *o, const struct app_run *x)
{
	const tt_motif_params *p = &o->ap;
	const tt_hist *h = &x->ar.latency;
	double us = x->cycle_ns * 1e-3;

	tt_json_begin(stdout, TT_JSON_SCHEMA_APP);
	printf(", \"motif\": \"%s\", \"ranks\": %u, \"layout\": ",
	    tt_motif_name(p->motif), x->nranks);
	tt_json_string(stdout, x->layout);
	printf(", \"iterations\": %" PRIu64 ", \"message_bytes\": %" PRIu64
	    ", \"compute_ns\": %g, \"imbalance\": %g, \"seed\": %" PRIu64 ", ",
	    p->iterations, p->bytes, p->compute_ns, p->imbalance, p->seed);
	json_net_fields(stdout, &x->net, "scheme");
	printf(", \"pes\": %u, \"cycle_ns\": %g, \"link_gbps\": %g, "
	    "\"flit_bytes\": %d, \"packet_flits\": %d", x->net.ncards,
	    x->cycle_ns, p->net.link_gbps, p->net.flit_bytes, p->net.packet_flits);
	model_json(stdout, &o->so.model, &o->so.mc);
	printf(", \"makespan_cycles\": %" PRIu64 ", \"makespan_s\": %.9f"
	    ", \"first_send_cycle\": %" PRIu64 ", \"last_delivery_cycle\": %"
	    PRIu64 ", \"finish_cycles\": %" PRIu64 ", \"finish_s\": %.9f",
	    x->makespan, (double)x->makespan * x->cycle_ns * 1e-9,
	    x->ar.first_send == UINT64_MAX ? 0 : x->ar.first_send,
	    x->ar.last_delivery, x->ar.finish,
	    (double)x->ar.finish * x->cycle_ns * 1e-9);
	printf(", \"messages\": %" PRIu64 ", \"sent\": %" PRIu64 ", \"bytes\": %"
	    PRIu64 ", \"packets\": %" PRIu64 ", \"ranks_done\": %" PRIu64
	    ", \"ranks_waiting\": %" PRIu64, x->ar.messages, x->ar.sent,
	    x->ar.bytes, x->ar.packets, x->ar.done, x->waiting);
	printf(", \"latency_us\": {\"mean\": %.4f, \"p50\": %.4f, \"p99\": %.4f"
	    ", \"max\": %.4f}", h->count ? h->sum / (double)h->count * us : 0,
	    (double)tt_hist_quantile(h, 0.5) * us,
	    (double)tt_hist_quantile(h, 0.99) * us, (double)h->max * us);
	printf(", \"internal_link_utilization\": %.6f, \"deadlock\": %s"
	    ", \"wall_s\": %.3f", x->res.internal_link_utilization,
	    x->res.deadlock ? "true" : "false", x->wall);
	if (o->rec.dir != NULL) {
		printf(", \"record\": {\"dir\": ");
		tt_json_string(stdout, o->rec.dir);
		printf(", \"records\": %" PRIu64 ", \"clock_skew_ns\": %" PRIu64
		    "}", x->records, o->rec.skew_ns);
	}
	printf("}\n");
}

static void
print_table(const struct app_opts *o, const struct app_run *x)
{
	const tt_hist *h = &x->ar.latency;
	double us = x->cycle_ns * 1e-3;
	char title[128];

	printf("%s on %s, ports %s, %s: %u ranks (%s), %" PRIu64
	    " iterations\n", tt_motif_name(o->ap.motif),
	    net_title(&x->net, title, sizeof(title)), x->net.ports_name,
	    tt_deadlock_name(x->net.deadlock), x->nranks, x->layout,
	    o->ap.iterations);
	printf("  makespan          %.6f ms (%" PRIu64 " cycles, first send to "
	    "last delivery)\n", (double)x->makespan * x->cycle_ns * 1e-6,
	    x->makespan);
	printf("  messages          %" PRIu64 " sent, %" PRIu64 " arrived: %"
	    PRIu64 " bytes in %" PRIu64 " packets\n", x->ar.sent,
	    x->ar.messages, x->ar.bytes, x->ar.packets);
	printf("  message latency   mean %.3f us, p50 %.3f, p99 %.3f, max "
	    "%.3f\n", h->count ? h->sum / (double)h->count * us : 0,
	    (double)tt_hist_quantile(h, 0.5) * us,
	    (double)tt_hist_quantile(h, 0.99) * us, (double)h->max * us);
	printf("  programs          %" PRIu64 " ended, the last at %.6f ms\n",
	    x->ar.done, (double)x->ar.finish * x->cycle_ns * 1e-6);
	if (x->net.twin)
		printf("  internal links    %.1f%% busy\n",
		    100 * x->res.internal_link_utilization);
	printf("  1 cycle = %g ns (%d-byte flits at %g Gb/s); simulated in "
	    "%.2f s\n", x->cycle_ns, o->ap.net.flit_bytes, o->ap.net.link_gbps,
	    x->wall);
	if (o->rec.dir != NULL)
		printf("  recorded          %" PRIu64 " records in %s\n",
		    x->records, o->rec.dir);
}

static int
write_csv(const char *path, tt_motif_job *a, const struct app_run *x)
{
	tt_outfile *o;
	FILE *f;
	char err[512];
	uint32_t pe, rank;
	uint64_t fin, sent, rcvd;

	/* as every other writer: a regular file replaced whole, a symlink
	 * kept, a FIFO written through, "-" standard output */
	if (tt_outfile_open(&o, path, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim app: --csv %s\n", err);
		return -1;
	}
	f = tt_outfile_file(o);
	fprintf(f, "pe,rank,finish_cycle,finish_ns,sent,received\n");
	for (pe = 0; pe < x->net.ncards; pe++)
		if (tt_motif_pe(a, pe, &rank, &fin, &sent, &rcvd))
			fprintf(f, "%u,%u,%" PRIu64 ",%.1f,%" PRIu64 ",%" PRIu64 "\n",
			    pe, rank, fin, (double)fin * x->cycle_ns, sent, rcvd);
	if (tt_outfile_close(o, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim app: --csv %s\n", err);
		return -1;
	}
	return 0;
}

struct app_progress {
	char label[32];
	tt_motif_job *a;
};

static void
on_progress(void *ctx, double done)
{
	struct app_progress *pr = ctx;

	(void)done;
	if (app_stop)
		tt_motif_stop(pr->a);
	progress_show(pr->label, tt_motif_progress(pr->a));
}

/* What one run holds while it goes. */
struct app_live {
	tt_sim *sim;
	tt_motif_job *job;
	tt_record *rec;
	tt_deps_writer *dw;
};

/* The simulator, the programs, the recording and the dependency file:
 * -1 after a message. */
static int
app_start(const struct app_opts *o, struct app_run *x, struct app_live *l)
{
	uint32_t pe0, pe1;
	char err[1024];

	if (tt_sim_create_part(&l->sim, &x->net, &o->so.p, ttsim_comm(), err,
	    sizeof(err)) < 0 || tt_motif_create(&l->job, &o->ap, l->sim, err,
	    sizeof(err)) < 0) {
		fprintf(stderr, "ttsim app: %s\n", err);
		return -1;
	}
	tt_sim_local(l->sim, &pe0, &pe1);
	if (o->rec.dir != NULL) {
		if (record_dir_ready(o->rec.dir, "app") < 0)
			return -1;
		if (tt_record_open(&l->rec, o->rec.dir, &x->net, &o->no.cfg, pe0,
		    pe1, x->cycle_ns, o->rec.skew_ns, err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim app: --record %s\n", err);
			return -1;
		}
		tt_motif_record(l->job, l->rec);
	}
	if (o->deps_out != NULL) {
		if (tt_deps_create(&l->dw, o->deps_out, err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim app: --deps-out %s\n", err);
			return -1;
		}
		tt_motif_deps(l->job, l->dw);
	}
	return 0;
}

/* The run itself, until every program ends or a signal stops them. */
static void
app_simulate(struct app_run *x, struct app_live *l)
{
	struct app_progress pr;
	struct timespec t0, t1;
	tt_source src = tt_motif_source(l->job);

	pr.a = l->job;
	snprintf(pr.label, sizeof(pr.label), "ttsim app");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	tt_sim_run(l->sim, &src, 1, &x->res, on_progress, &pr);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	progress_clear();
	x->wall = (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
}

/* The results, over every rank: exit status so far. */
static int
app_collect(struct app_run *x, struct app_live *l)
{
	char err[1024];

	x->ar = *tt_motif_result_get(l->job);
	tt_motif_reduce(l->sim, &x->ar);
	x->waiting = tt_motif_waiting(l->job, x->wait, sizeof(x->wait));
	ttsim_allreduce(&x->waiting, 1, TT_SIM_SUM);
	x->makespan = tt_motif_makespan(&x->ar);
	tt_motif_layout(l->job, x->layout, sizeof(x->layout));
	if (tt_motif_error(l->job, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim app: %s\n", err);
		return TTSIM_EXIT_USAGE;
	}
	return TTSIM_EXIT_OK;
}

/* The traces and the dependency file closed (the file only if the run
 * went to its end): exit status so far. */
static int
app_close(struct app_run *x, struct app_live *l, int rc)
{
	char err[1024];

	if (l->rec != NULL) {
		if (tt_record_close(l->rec, &x->records, err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim app: --record: %s\n", err);
			rc = TTSIM_EXIT_USAGE;
		}
		ttsim_allreduce(&x->records, 1, TT_SIM_SUM);
	}
	if (l->dw != NULL && rc == TTSIM_EXIT_OK && !app_stop) {
		if (tt_deps_close(l->dw, err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim app: --deps-out: %s\n", err);
			rc = TTSIM_EXIT_USAGE;
		}
	} else if (l->dw != NULL) {
		tt_deps_discard(l->dw);
	}
	tt_motif_free(l->job);
	tt_sim_free(l->sim);
	return rc;
}

/* How the run ended, said on stderr: exit status. */
static int
app_outcome(const struct app_opts *o, const struct app_run *x)
{
	if (app_stop) {
		fprintf(stderr, "ttsim app: interrupted at cycle %" PRIu64
		    "%s\n", x->res.cycles, o->rec.dir != NULL ? "; the traces "
		    "hold what was recorded until then" : "");
		return 130;
	}
	if (x->res.deadlock) {
		fprintf(stderr, "ttsim app: deadlock: no flit moved for %llu "
		    "cycles (cycle %llu)\n", (unsigned long long)o->so.p.watchdog,
		    (unsigned long long)x->res.cycles);
		return TTSIM_EXIT_DEADLOCK;
	}
	if (x->waiting > 0) {
		fprintf(stderr, "ttsim app: the network emptied with %" PRIu64
		    " programs still waiting for a message that was never sent:"
		    " %s\n", x->waiting, x->wait[0] ? x->wait : "on another rank");
		return TTSIM_EXIT_USAGE;
	}
	return TTSIM_EXIT_OK;
}

/*
 * Run o's motif on x->net: exit status so far.  From before the traces
 * are created until they are closed, SIGINT, SIGTERM and SIGHUP only stop
 * the run (unless ignored): the records taken until then are written and
 * the traces closed whole, ending on a record, never cut by the signal.
 * SIGXFSZ is ignored meanwhile: a trace over the file size limit fails to
 * grow as on a full disk, and is cut at its last whole record
 * (tt_trace_close()).
 */
static int
app_run(const struct app_opts *o, struct app_run *x)
{
	static const int sigs[4] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ};
	struct sigaction sa, ign, old[4];
	struct app_live l;
	int rc = TTSIM_EXIT_USAGE, i, set[4] = {0, 0, 0, 0};

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	ign = sa;
	ign.sa_handler = SIG_IGN;
	for (i = 0; i < 4; i++)
		if (sigaction(sigs[i], NULL, &old[i]) == 0 &&
		    old[i].sa_handler != SIG_IGN)
			set[i] = sigaction(sigs[i], sigs[i] == SIGXFSZ ? &ign :
			    &sa, NULL) == 0;
	memset(&l, 0, sizeof(l));
	if (app_start(o, x, &l) == 0) {
		app_simulate(x, &l);
		rc = app_collect(x, &l);
		if (rc == TTSIM_EXIT_OK)
			rc = app_outcome(o, x);
		if (rc == TTSIM_EXIT_OK && o->csv_path != NULL &&
		    write_csv(o->csv_path, l.job, x) < 0)
			rc = TTSIM_EXIT_USAGE;
	}
	rc = app_close(x, &l, rc);
	for (i = 0; i < 4; i++)
		if (set[i])
			sigaction(sigs[i], &old[i], NULL);
	/* a signal while the traces were being closed */
	if (rc == TTSIM_EXIT_OK && app_stop)
		rc = app_outcome(o, x);
	return rc;
}

/* The network and the motif on it checked: -1 after a message. */
static int
app_build(const struct app_opts *o, struct app_run *x)
{
	char err[512];

	if (tt_net_init(&x->net, &o->no.spec, err, sizeof(err)) < 0 ||
	    tt_sim_check(&x->net, &o->so.p, err, sizeof(err)) < 0 ||
	    tt_motif_check(&o->ap, x->net.ncards, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim app: %s\n", err);
		return -1;
	}
	x->nranks = o->ranks != NULL ? o->ap.nranks : x->net.ncards;
	x->cycle_ns = tt_cycle_ns(o->ap.net.flit_bytes, o->ap.net.link_gbps);
	return 0;
}

int
cmd_app(int argc, char **argv)
{
	static struct app_opts o;
	static struct app_run x;
	int rc;

	memset(&o, 0, sizeof(o));
	memset(&x, 0, sizeof(x));
	rc = app_parse(&o, argc, argv);
	if (rc == OPT_HELP_SHOWN) {
		rc = TTSIM_EXIT_OK;
	} else if (rc != OPT_PARSED) {
		rc = TTSIM_EXIT_USAGE;
	} else if (o.defaults_only) {
		print_defaults(&o.ap);
		rc = TTSIM_EXIT_OK;
	} else if (app_build(&o, &x) < 0) {
		rc = TTSIM_EXIT_USAGE;
	} else if ((rc = app_run(&o, &x)) == TTSIM_EXIT_OK) {
		if (o.out.json)
			print_json(&o, &x);
		else if (o.csv_path == NULL || strcmp(o.csv_path, "-") != 0)
			print_table(&o, &x);
	}
	tt_simresult_free(&x.res);
	if (x.net.coord != NULL)
		tt_net_free(&x.net);
	tt_config_free(&o.no.cfg);
	free(o.ranks);
	return rc;
}
