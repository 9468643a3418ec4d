/*
 * ttsim trace synth: write application-like traces of torus frames.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "twintorus/motif.h"
#include "twintorus/trace.h"
#include "twintorus/workload.h"
#include "ttsim.h"

/* 2026-01-01T00:00:00Z: synthetic traces start here, so that they read
 * like captures and are the same on every run. */
#define SYNTH_EPOCH_NS (1767225600ull * 1000000000ull)

static void
synth_usage(FILE *f)
{
	tt_motif_params mp;
	int a;

	fprintf(f,
"usage: ttsim trace synth [FILE.yaml] [network flags] --app NAME -o OUT\n"
"                         [app flags] [--per-node] [--seed N]\n"
"\n"
"Writes a trace of what the PEs of a network would send: one pcap record\n"
"(nanosecond timestamps, torus data frame, header only) per message, as\n"
"ttd records it, so that `ttsim replay` and `ttsim trace stat` read it.\n"
"\n"
"applications (--app): the motifs of ttsim app, each rank's program the\n"
"same, scheduled open loop (times fixed ahead; no message waits for another):\n"
"an iteration starts every period; a rank computes (compute time +-10%%,\n"
"from its own random stream, unless its sends wait for receives), then\n"
"sends back to back at the link's speed; a receive counts as one step\n"
"(1.5 times the serialisation of the largest message, plus 1 us)\n"
"  halo3d      3D halo exchange on a process grid as cubic as the PEs allow:\n"
"              each PE sends to its 6 neighbours (periodic); alias stencil\n"
"  sweep3d     wavefront sweeps over a 2D grid, in blocks (8)\n"
"  allreduce   ring allreduce of a vector: 2(N-1) steps, in each PE p sends\n"
"              a 1/N chunk to p+1\n"
"  alltoall    every PE sends to every other, p to p+1, p+2, ... in turn\n"
"  incast      clients (N/16) send requests of 256 bytes to their servers,\n"
"              which respond\n"
"  pingpong    PE p < N/2 and p + N/2 send a message there and back\n"
"  uniform, hotspot, tornado, ... (the patterns of ttsim run): Bernoulli\n"
"              injection at --load, exactly as ttsim run generates it\n"
"defaults (--bytes, --iterations, --compute-us), ttsim app's:\n");
	for (a = 0; a < TT_MOTIF_COUNT; a++) {
		tt_motif_params_default(&mp, (enum tt_motif)a);
		fprintf(f, "  %-11s %llu bytes, %llu iterations, %g us\n",
		    tt_motif_name((enum tt_motif)a),
		    (unsigned long long)mp.bytes,
		    (unsigned long long)mp.iterations, mp.compute_ns / 1e3);
	}
	fprintf(f, "\n"
"A trace file is written under a temporary name beside it (PATH.XXXXXX.part,\n"
"beside the file a symbolic link names) and renamed over it when complete;\n"
"a FIFO or a device is written through.  An interrupt (Ctrl-C, SIGTERM)\n"
"stops the writing and removes the temporary files: a file is replaced\n"
"only by a complete trace (a FIFO or standard output ends on a whole\n"
"record).\n"
"\n"
"Exit status: 0 written, 2 bad usage or input, 130 interrupted.\n");
}

static volatile sig_atomic_t synth_stop;

static void
on_signal(int sig)
{
	(void)sig;
	synth_stop = 1;
}

/* A signal ignored when we started (a script's background job: SIGINT;
 * nohup) stays ignored. */
static void
catch_unless_ignored(int sig)
{
	struct sigaction cur, sa;

	if (sigaction(sig, NULL, &cur) < 0 || cur.sa_handler == SIG_IGN)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

/* What ttsim trace synth is told. */
struct synth {
	netopts net;
	simopts sim;            /* the pattern's flags, --seed */
	linkopts link;
	enum tt_motif motif;
	uint64_t bytes;         /* --bytes; 0: the default */
	int iterations;         /* --iterations; 0: the motif's */
	double compute_us;      /* --compute-us; below 0: the motif's */
	int is_app;             /* a motif, not a pattern */
	int app_set, per_node;
	const char *out;
	uint64_t max_msgs, cycles;
};

enum {
	OPT_SYNTH_APP = OPT_OWN, OPT_SYNTH_PER_NODE, OPT_SYNTH_BYTES,
	OPT_SYNTH_MESSAGES, OPT_SYNTH_CYCLES, OPT_SYNTH_ITERATIONS,
	OPT_SYNTH_COMPUTE
};

/* A pattern's trace without --cycles or --messages: its cycles. */
#define SYNTH_CYCLES_DEFAULT 20000

static const optdef synth_flags[] = {
	OPT_TITLE("trace synth:"),
	OPT_VAL("app", OPT_SYNTH_APP, "NAME",
	    "a motif of ttsim app (halo3d, alias stencil; sweep3d, allreduce, alltoall, incast, pingpong) or a pattern of ttsim run"),
	OPT_VAL("out", OPT_OUT, "PATH",
	    "a .pcap file (- for standard output), or with --per-node a "
	    "directory that gets one node-NNNNN.pcap per node, as a cluster "
	    "records it"),
	OPT_FLAG("per-node", OPT_SYNTH_PER_NODE, "one file per node"),
	OPT_VAL("bytes", OPT_SYNTH_BYTES, "N",
	    "message bytes (allreduce: the whole vector; patterns: one packet, "
	    "packet_flits * flit_bytes); at most 64 MiB"),
	OPT_VAL("iterations", OPT_SYNTH_ITERATIONS, "N", "iterations"),
	OPT_VAL("compute-us", OPT_SYNTH_COMPUTE, "T",
	    "compute time before each iteration's messages; each PE's varies "
	    "by +-10%"),
	OPT_VAL("messages", OPT_SYNTH_MESSAGES, "N",
	    "stop after N messages (any application)"),
	OPT_VALDEF("cycles", OPT_SYNTH_CYCLES, "N",
	    "patterns: cycles of traffic; time is cycles * cycle ns (without "
	    "--messages)", SYNTH_CYCLES_DEFAULT),
	OPT_END
};

/* Of the traffic and model flags, what a trace of a pattern uses (--app
 * names the pattern; --seeds only to be refused). */
static const optdef synth_traffic[] = {
	OPT_TITLE("patterns (as in ttsim run):"),
	OPT_VALDEF("load", OPT_LOAD, "F", "offered flits/cycle/PE",
	    SIMOPTS_LOAD_DEFAULT),
	OPT_VALDEF("seed", OPT_SEED, "N",
	    "the seed of the jitter and of the patterns", SIMOPTS_SEED_DEFAULT),
	OPT_VAL("seeds", OPT_SEEDS, "N", "refused: a trace is one run"),
	OPT_VAL("hot", OPT_HOT, "PE", "hotspot: a hot PE (repeat)"),
	OPT_VALDEF("hot-fraction", OPT_HOT_FRACTION, "F",
	    "hotspot: the share of packets sent to the hot PEs",
	    SIMOPTS_HOT_FRACTION_DEFAULT),
	OPT_VAL("flow", OPT_FLOW, "SRC:DST", "flows: only these pairs send "
	    "(repeat)"),
	OPT_VALDEF("packet-flits", OPT_PACKET_FLITS, "N",
	    "flits per packet (over the YAML network: section)",
	    TT_PACKET_FLITS_DEFAULT),
	OPT_END
};

static int
synth_app(struct synth *s, const struct optval *v)
{
	if (tt_motif_parse(v->value, &s->motif) == 0)
		s->is_app = 1;
	else if (tt_pattern_parse(v->value, &s->sim.pattern) == 0)
		s->is_app = 0;
	else {
		fprintf(stderr, "ttsim %s: --app: '%s' is not an application; "
		    "use a motif (%s) or a pattern (%s)\n",
		    v->cmd, v->value, tt_motif_list(), tt_pattern_list());
		return -1;
	}
	s->app_set = 1;
	return 0;
}

static int
synth_take(void *state, const struct optval *v)
{
	struct synth *s = state;
	const char *c = v->cmd, *f = v->flag, *x = v->value;

	switch (v->id) {
	case OPT_SYNTH_APP:
		return synth_app(s, v);
	case OPT_OUT:
		s->out = x;
		return 0;
	case OPT_SYNTH_PER_NODE:
		s->per_node = 1;
		return 0;
	case OPT_SYNTH_BYTES:
		return opt_u64(c, f, x, 1, TT_TRACE_MSG_MAX, &s->bytes);
	case OPT_SYNTH_MESSAGES:
		return opt_u64(c, f, x, 1, 1ull << 40, &s->max_msgs);
	case OPT_SYNTH_CYCLES:
		return opt_u64(c, f, x, 1, 1ull << 40, &s->cycles);
	case OPT_SYNTH_ITERATIONS:
		return opt_int(c, f, x, 1, 1000000, &s->iterations);
	}
	return opt_real(c, f, x, 0, 1e7, "a time in microseconds from 0 to "
	    "10000000", &s->compute_us);
}

static int
synth_parse(struct synth *s, int argc, char **argv)
{
	const char *cmd = "trace synth";
	const opt_group groups[] = {
		{synth_flags, 0, synth_take, s},
		{netopts_flags, 1, netopts_take, &s->net},
		{synth_traffic, 0, simopts_take, &s->sim},
		{linkopts_flags, 0, linkopts_take, &s->link},
	};
	int r;

	netopts_init(&s->net);
	simopts_init(&s->sim);
	s->sim.cmd = cmd;
	s->compute_us = -1;
	s->max_msgs = UINT64_MAX;
	r = opt_parse(cmd, synth_usage, groups, OPT_NGROUPS(groups), argc, argv);
	if (r != OPT_PARSED)
		return r;
	if (!s->app_set || s->out == NULL) {
		fprintf(stderr, "ttsim %s: %s is required (see ttsim trace synth "
		    "--help)\n", cmd, !s->app_set ? "--app" : "-o OUT");
		return -1;
	}
	if (netopts_finish(&s->net, cmd) < 0)
		return -1;
	if (s->net.ports_all) {
		fprintf(stderr, "ttsim %s: --ports all names many networks; "
		    "give one\n", cmd);
		return -1;
	}
	if (s->sim.seeds != 1) {
		fprintf(stderr, "ttsim %s: --seeds makes no sense for one trace; "
		    "use --seed\n", cmd);
		return -1;
	}
	simopts_apply_config(&s->sim, &s->net.cfg);
	return OPT_PARSED;
}

/*
 * The workload: an application, or the pattern's traffic on net (tr and
 * hold keep what it reads).  0, or -1 after a message.
 */
static int
synth_workload(struct synth *s, const tt_net *net, tt_workload **w,
    tt_traffic *tr, void **hold)
{
	const char *cmd = "trace synth";
	tt_netparams np;
	tt_motif_params mp;
	uint64_t bytes;
	char err[512];

	linkopts_resolve(&s->link, &s->net.cfg, &np);
	if (s->is_app) {
		tt_motif_params_default(&mp, s->motif);
		if (s->bytes)
			mp.bytes = s->bytes;
		if (s->iterations)
			mp.iterations = (uint64_t)s->iterations;
		if (s->compute_us >= 0)
			mp.compute_ns = s->compute_us * 1e3;
		mp.seed = s->sim.seed;
		mp.net.packet_flits = s->sim.p.net.packet_flits;
		mp.net.flit_bytes = np.flit_bytes;
		mp.net.link_gbps = np.link_gbps;
		if (tt_workload_motif(w, &mp, net->ncards, err, sizeof(err)) == 0)
			return 0;
		fprintf(stderr, "ttsim %s: %s\n", cmd, err);
		return -1;
	}
	bytes = s->bytes ? s->bytes :
	    (uint64_t)s->sim.p.net.packet_flits * (uint64_t)np.flit_bytes;
	if (simopts_traffic(&s->sim, net, s->sim.load, s->sim.seed, tr,
	    hold) < 0)
		return -1;
	tr->stop = s->cycles ? s->cycles :
	    s->max_msgs < UINT64_MAX ? UINT64_MAX : SYNTH_CYCLES_DEFAULT;
	if (tt_workload_source(w, net->ncards, tt_traffic_source(tr),
	    tt_cycle_ns(np.flit_bytes, np.link_gbps), bytes, err,
	    sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "ttsim %s: %s\n", cmd, err);
	tt_traffic_free(tr);
	return -1;
}

/* The trace files: one, or one per node.  0, or -1 after a message. */
static int
synth_open(const struct synth *s, tt_trace_writer **w, size_t nw)
{
	char path[4200], err[512];
	size_t i;

	if (s->per_node && nw > 1000) {
		fprintf(stderr, "ttsim trace synth: --per-node would open %zu "
		    "files at once (at most 1000); write one file instead\n", nw);
		return -1;
	}
	if (s->per_node && strcmp(s->out, "-") == 0) {
		fprintf(stderr, "ttsim trace synth: --per-node writes a "
		    "directory of files; -o - (standard output) takes one trace\n");
		return TTSIM_EXIT_USAGE;
	}
	if (s->per_node && mkdir(s->out, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "ttsim trace synth: %s: cannot create the "
		    "directory: %s\n", s->out, strerror(errno));
		return -1;
	}
	for (i = 0; i < nw; i++) {
		if (s->per_node)
			snprintf(path, sizeof(path), "%s/node-%05zu.pcap", s->out,
			    i);
		else
			snprintf(path, sizeof(path), "%s", s->out);
		if (tt_trace_create(&w[i], path, 1, err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim trace synth: %s\n", err);
			return -1;
		}
	}
	return 0;
}

/* Write the workload's messages, each to its node's file, until it ends,
 * max_msgs are written or a signal comes.  0, or -1 after a message. */
static int
synth_loop(const struct synth *s, const tt_net *net, tt_workload *wl,
    tt_trace_writer **w, uint64_t *written, uint64_t *last)
{
	tt_msg m;
	size_t f;

	catch_unless_ignored(SIGINT);
	catch_unless_ignored(SIGTERM);
	while (*written < s->max_msgs && !synth_stop &&
	    tt_workload_next(wl, &m)) {
		f = s->per_node ? (net->twin ? m.src / 2 : m.src) : 0;
		m.t_ns += SYNTH_EPOCH_NS;
		if (tt_trace_write_msg(w[f], &m) < 0) {
			fprintf(stderr, "ttsim trace synth: a message of %" PRIu64
			    " bytes does not fit a pcap record\n", m.bytes);
			return -1;
		}
		(*written)++;
		*last = m.t_ns;
	}
	return 0;
}

/* Close (or, after an error, discard) every file: the exit status. */
static int
synth_close(tt_trace_writer **w, size_t nw, int rc)
{
	char err[512];
	size_t i;

	for (i = 0; i < nw; i++) {
		if (w[i] == NULL)
			continue;
		if (rc != TTSIM_EXIT_OK) {
			tt_trace_discard(w[i]);
		} else if (tt_trace_close(w[i], err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim trace synth: %s\n", err);
			rc = TTSIM_EXIT_USAGE;
		}
		w[i] = NULL;
	}
	return rc;
}

static int
synth_write(const struct synth *s, const tt_net *net, tt_workload *wl)
{
	tt_trace_writer **w;
	size_t nw = s->per_node ? net->nnodes : 1;
	uint64_t written = 0, last = 0;
	int rc = TTSIM_EXIT_OK;

	if ((w = calloc(nw, sizeof(*w))) == NULL) {
		fprintf(stderr, "ttsim trace synth: out of memory\n");
		return TTSIM_EXIT_USAGE;
	}
	if (synth_open(s, w, nw) < 0 ||
	    synth_loop(s, net, wl, w, &written, &last) < 0)
		rc = TTSIM_EXIT_USAGE;
	else if (synth_stop)
		rc = 130;
	/* an interrupted trace is cut: it replaces nothing */
	rc = synth_close(w, nw, rc);
	free(w);
	if (rc == 130)
		fprintf(stderr, "ttsim trace synth: interrupted after %" PRIu64
		    " messages; %s not replaced\n", written, s->per_node ?
		    "the files were" : "the file was");
	if (rc != TTSIM_EXIT_OK)
		return rc;
	fprintf(stderr, "ttsim trace synth: %" PRIu64 " messages over %.6f s "
	    "written to %s%s\n", written, written ?
	    (double)(last - SYNTH_EPOCH_NS) * 1e-9 : 0.0,
	    strcmp(s->out, "-") == 0 ? "standard output" : s->out,
	    s->per_node ? " (one file per node)" : "");
	return TTSIM_EXIT_OK;
}

int
cmd_trace_synth(int argc, char **argv)
{
	struct synth s;
	tt_net net;
	tt_workload *wl = NULL;
	tt_traffic tr;
	void *hold = NULL;
	char err[512];
	int r;

	memset(&s, 0, sizeof(s));
	r = synth_parse(&s, argc, argv);
	if (r != OPT_PARSED)
		return r == OPT_HELP_SHOWN ? TTSIM_EXIT_OK : TTSIM_EXIT_USAGE;
	if (tt_net_init(&net, &s.net.spec, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim trace synth: %s\n", err);
		return TTSIM_EXIT_USAGE;
	}
	r = TTSIM_EXIT_USAGE;
	if (synth_workload(&s, &net, &wl, &tr, &hold) == 0) {
		r = synth_write(&s, &net, wl);
		tt_workload_free(wl);
		if (!s.is_app)
			tt_traffic_free(&tr);
	}
	free(hold);
	tt_net_free(&net);
	tt_config_free(&s.net.cfg);
	return r;
}
