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

#include "twintorus/trace.h"
#include "ttsim.h"

/* 2026-01-01T00:00:00Z: synthetic traces start here, so that they read
 * like captures and are the same on every run. */
#define SYNTH_EPOCH_NS (1767225600ull * 1000000000ull)

enum app { APP_STENCIL, APP_ALLTOALL, APP_ALLREDUCE, APP_PATTERN };

static const char *const app_names[] = {"stencil", "alltoall", "allreduce"};

static void
synth_usage(FILE *f)
{
	fprintf(f,
"usage: ttsim trace synth [FILE.yaml] [network flags] --app NAME -o OUT\n"
"                         [app flags] [--per-node] [--seed N]\n"
"\n"
"Writes a trace of what the PEs of a network would send: one pcap record\n"
"(nanosecond timestamps, torus data frame, header only) per message, as\n"
"ttd records it, so that `ttsim replay` and `ttsim trace stat` read it.\n"
"\n"
"applications (--app):\n"
"  stencil     3D halo exchange: the PEs form a process grid as cubic as\n"
"              their number allows; each iteration every PE computes, then\n"
"              sends one halo to each of its 6 neighbours (periodic)\n"
"  alltoall    each iteration every PE sends to every other, PE p to p+1,\n"
"              p+2, ... in turn (the shifted-ring schedule)\n"
"  allreduce   ring allreduce of a vector: 2(N-1) steps, in each PE p sends\n"
"              a 1/N chunk to p+1\n"
"  uniform, hotspot, tornado, ... (the patterns of ttsim run): Bernoulli\n"
"              injection at --load, exactly as ttsim run generates it\n"
"app flags:\n"
"  --bytes N        message bytes (stencil 8192 per halo, alltoall 4096,\n"
"                   allreduce 1048576 for the whole vector; patterns one\n"
"                   packet: packet_flits * flit_bytes); at most 64 MiB\n"
"  --iterations N   stencil 10, alltoall and allreduce 4\n"
"  --compute-us T   compute time before each iteration's messages (stencil\n"
"                   50, others 20); each PE's varies by +-10%%\n"
"  --load F --cycles N (20000) --hot PE --hot-fraction F --flow S:D\n"
"                   patterns: as in ttsim run; time is cycles * cycle ns\n"
"  --messages N     stop after N messages (any application)\n"
"  --link-gbps G --flit-bytes N   link speed and flit size (YAML network:,\n"
"                   default 10 and 16) for message times\n"
"output:\n"
"  -o, --out PATH   a .pcap file (- for standard output), or with --per-node\n"
"                   a directory that gets one node-NNNNN.pcap per node, as a\n"
"                   cluster records it\n"
"  --seed N         seed of the jitter and of the patterns (1)\n"
"\n"
"A trace file is written under a temporary name beside it (PATH.XXXXXX.part,\n"
"beside the file a symbolic link names) and renamed over it when complete;\n"
"a FIFO or a device is written through.  An interrupt (Ctrl-C, SIGTERM)\n"
"closes the files early, complete and readable.\n"
"Exit status: 0 written, 2 bad usage or input, 130 interrupted.\n");
}

static volatile sig_atomic_t synth_stop;

static void
on_signal(int sig)
{
	(void)sig;
	synth_stop = 1;
}

/* What the generator knows. */
struct synth {
	enum app app;
	uint32_t npes;
	uint64_t bytes;
	int iterations;
	double compute_ns, link_gbps, cycle_ns;
	uint64_t seed;
	/* stencil grid */
	uint32_t g[3];
	/* per PE */
	tt_rng *rng;
	uint32_t *iter, *idx, *seq;
	double *offset;          /* this iteration's compute time */
	double period;           /* ns between iteration starts */
	uint32_t per_iter;       /* messages per PE per iteration */
	double step_ns;          /* allreduce: one step */
	/* patterns */
	tt_traffic tr;
	tt_source src;
};

static double
ser_ns(const struct synth *s, uint64_t bytes)
{
	return (double)bytes * 8.0 / s->link_gbps;
}

/* a * b * c = n with c - a smallest: the most cubic process grid */
static void
grid3(uint32_t n, uint32_t g[3])
{
	uint32_t a, b, best = UINT32_MAX;

	g[0] = n;
	g[1] = g[2] = 1;
	for (a = 1; (uint64_t)a * a * a <= n; a++) {
		if (n % a)
			continue;
		for (b = a; (uint64_t)a * b * b <= n; b++) {
			uint32_t c;

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

/* The stencil neighbour j (0..5: +x, -x, +y, -y, +z, -z) of pe, over the
 * dimensions of the grid that have more than one PE. */
static uint32_t
stencil_dst(const struct synth *s, uint32_t pe, uint32_t j)
{
	uint32_t c[3], d, k, used = 0;

	c[0] = pe % s->g[0];
	c[1] = pe / s->g[0] % s->g[1];
	c[2] = pe / s->g[0] / s->g[1];
	for (d = 0; d < 3; d++) {
		if (s->g[d] < 2)
			continue;
		if (used == j / 2)
			break;
		used++;
	}
	k = s->g[d];
	c[d] = j % 2 == 0 ? (c[d] + 1) % k : (c[d] + k - 1) % k;
	return c[0] + s->g[0] * (c[1] + s->g[1] * c[2]);
}

static void
new_iteration(struct synth *s, uint32_t pe)
{
	s->offset[pe] = s->compute_ns * (0.9 + 0.2 * tt_rng_unit(&s->rng[pe]));
}

/* PE pe's next message: 1 with m filled (time relative to the start), 0
 * when it has sent everything. */
static int
synth_next(struct synth *s, uint32_t pe, tt_msg *m)
{
	double t;

	if (s->app == APP_PATTERN) {
		tt_srcpkt pk;

		if (s->src.next(s->src.ctx, pe, 0, &pk) != TT_SRC_PACKET)
			return 0;
		m->t_ns = (uint64_t)llround((double)pk.gen * s->cycle_ns);
		m->dst = pk.dst;
		m->bytes = s->bytes;
	} else {
		uint32_t j;

		if (s->idx[pe] == s->per_iter) {
			s->iter[pe]++;
			s->idx[pe] = 0;
			new_iteration(s, pe);
		}
		if ((int)s->iter[pe] >= s->iterations)
			return 0;
		j = s->idx[pe]++;
		t = s->iter[pe] * s->period + s->offset[pe];
		switch (s->app) {
		case APP_STENCIL:
			t += j * ser_ns(s, s->bytes);
			m->dst = stencil_dst(s, pe, j);
			m->bytes = s->bytes;
			break;
		case APP_ALLTOALL:
			t += j * ser_ns(s, s->bytes);
			m->dst = (pe + 1 + j) % s->npes;
			m->bytes = s->bytes;
			break;
		default:        /* allreduce: the steps keep the ring in step */
			t = s->iter[pe] * s->period + s->compute_ns +
			    j * s->step_ns;
			m->dst = (pe + 1) % s->npes;
			m->bytes = (s->bytes + s->npes - 1) / s->npes;
			break;
		}
		m->t_ns = (uint64_t)llround(t);
	}
	m->src = pe;
	m->seq = s->seq[pe]++;
	return 1;
}

/* Heap of PEs by their next message's time (then PE id). */
struct pend {
	tt_msg m;
	uint32_t pe;
};

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

static int
parse_app(const char *v, enum app *app, enum tt_pattern *pat)
{
	size_t i;

	for (i = 0; i < sizeof(app_names) / sizeof(app_names[0]); i++)
		if (strcmp(v, app_names[i]) == 0) {
			*app = (enum app)i;
			return 0;
		}
	if (tt_pattern_parse(v, pat) == 0) {
		*app = APP_PATTERN;
		return 0;
	}
	return -1;
}

static void
synth_free(struct synth *s)
{
	free(s->rng);
	free(s->iter);
	free(s->idx);
	free(s->seq);
	free(s->offset);
}

static int
synth_write(struct synth *s, const tt_net *net, const char *out,
    int per_node, uint64_t max_msgs)
{
	tt_trace_writer **w = NULL;
	struct pend *h = NULL;
	size_t nh = 0, nw = per_node ? net->nnodes : 1, i;
	uint64_t written = 0, last = 0;
	char err[512];
	int rc = TTSIM_EXIT_OK;

	if (per_node && nw > 1000) {
		fprintf(stderr, "ttsim trace synth: --per-node would open %zu "
		    "files at once (at most 1000); write one file instead\n", nw);
		return TTSIM_EXIT_USAGE;
	}
	if (per_node && strcmp(out, "-") == 0) {
		fprintf(stderr, "ttsim trace synth: --per-node writes a "
		    "directory of files; -o - (standard output) takes one trace\n");
		return TTSIM_EXIT_USAGE;
	}
	if (per_node && mkdir(out, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "ttsim trace synth: %s: cannot create the "
		    "directory: %s\n", out, strerror(errno));
		return TTSIM_EXIT_USAGE;
	}
	w = calloc(nw, sizeof(*w));
	h = calloc(s->npes, sizeof(*h));
	if (w == NULL || h == NULL) {
		fprintf(stderr, "ttsim trace synth: out of memory\n");
		rc = TTSIM_EXIT_USAGE;
		goto out;
	}
	for (i = 0; i < nw; i++) {
		char path[4200];

		if (per_node)
			snprintf(path, sizeof(path), "%s/node-%05zu.pcap", out, i);
		else
			snprintf(path, sizeof(path), "%s", out);
		if (tt_trace_create(&w[i], path, 1, err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim trace synth: %s\n", err);
			rc = TTSIM_EXIT_USAGE;
			goto out;
		}
	}
	for (i = 0; i < s->npes; i++) {
		h[nh].pe = (uint32_t)i;
		if (synth_next(s, (uint32_t)i, &h[nh].m))
			nh++;
	}
	for (i = nh / 2; i-- > 0; )
		pend_down(h, nh, i);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	while (nh > 0 && written < max_msgs && !synth_stop) {
		tt_msg m = h[0].m;
		size_t f = per_node ? (net->twin ? m.src / 2 : m.src) : 0;

		m.t_ns += SYNTH_EPOCH_NS;
		if (tt_trace_write_msg(w[f], &m) < 0) {
			fprintf(stderr, "ttsim trace synth: a message of %" PRIu64
			    " bytes does not fit a pcap record\n", m.bytes);
			rc = TTSIM_EXIT_USAGE;
			break;
		}
		written++;
		last = m.t_ns;
		if (!synth_next(s, h[0].pe, &h[0].m))
			h[0] = h[--nh];
		pend_down(h, nh, 0);
	}
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
	if (rc == TTSIM_EXIT_OK) {
		fprintf(stderr, "ttsim trace synth: %" PRIu64 " messages over "
		    "%.6f s written to %s%s\n", written, written ?
		    (double)(last - SYNTH_EPOCH_NS) * 1e-9 : 0.0,
		    strcmp(out, "-") == 0 ? "standard output" : out,
		    per_node ? " (one file per node)" : "");
		if (synth_stop) {
			fprintf(stderr, "ttsim trace synth: interrupted; the "
			    "trace is complete up to there\n");
			rc = 130;
		}
	}
out:
	if (w != NULL)
		for (i = 0; i < nw; i++)
			if (w[i] != NULL)
				tt_trace_discard(w[i]);
	free(w);
	free(h);
	return rc;
}

int
cmd_trace_synth(int argc, char **argv)
{
	const char *cmd = "trace synth", *out = NULL, *v;
	netopts no;
	simopts so;
	struct synth s;
	tt_net net;
	enum tt_pattern pat = TT_TR_UNIFORM;
	uint64_t max_msgs = UINT64_MAX, cycles = 0, bytes = 0, x;
	int per_node = 0, app_set = 0, iterations = 0, flit_bytes = 0, i, r;
	double compute_us = -1, gbps = 0;
	void *hold = NULL;
	char err[512];

	memset(&s, 0, sizeof(s));
	netopts_init(&no);
	simopts_init(&so);
	so.cmd = cmd;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			synth_usage(stdout);
			return TTSIM_EXIT_OK;
		}
		if (flag_is(a, "--app")) {
			if ((v = flag_value(argc, argv, &i, cmd)) == NULL)
				return TTSIM_EXIT_USAGE;
			if (parse_app(v, &s.app, &pat) < 0) {
				fprintf(stderr, "ttsim %s: --app: '%s' is not an "
				    "application; use stencil, alltoall, "
				    "allreduce or a pattern (%s)\n", cmd, v,
				    tt_pattern_list());
				return TTSIM_EXIT_USAGE;
			}
			app_set = 1;
			continue;
		}
		if (strcmp(a, "-o") == 0 || flag_is(a, "--out")) {
			if ((out = flag_value(argc, argv, &i, cmd)) == NULL)
				return TTSIM_EXIT_USAGE;
			continue;
		}
		if (strcmp(a, "--per-node") == 0) {
			per_node = 1;
			continue;
		}
		if (flag_is(a, "--bytes") || flag_is(a, "--messages") ||
		    flag_is(a, "--cycles") || flag_is(a, "--iterations") ||
		    flag_is(a, "--flit-bytes")) {
			int is_bytes = flag_is(a, "--bytes");

			if ((v = flag_value(argc, argv, &i, cmd)) == NULL ||
			    parse_u64(cmd, is_bytes ? "--bytes" : a, v, 1,
			    is_bytes ? TT_TRACE_MSG_MAX : 1ull << 40, &x) < 0)
				return TTSIM_EXIT_USAGE;
			if (is_bytes)
				bytes = x;
			else if (flag_is(a, "--messages"))
				max_msgs = x;
			else if (flag_is(a, "--cycles"))
				cycles = x;
			else if (flag_is(a, "--flit-bytes") && x <= 65536)
				flit_bytes = (int)x;
			else if (flag_is(a, "--iterations") && x <= 1000000)
				iterations = (int)x;
			else {
				fprintf(stderr, "ttsim %s: %s: '%s' is too large\n",
				    cmd, a, v);
				return TTSIM_EXIT_USAGE;
			}
			continue;
		}
		if (flag_is(a, "--compute-us") || flag_is(a, "--link-gbps")) {
			int is_c = flag_is(a, "--compute-us");
			char *end;
			double d;

			if ((v = flag_value(argc, argv, &i, cmd)) == NULL)
				return TTSIM_EXIT_USAGE;
			d = strtod(v, &end);
			if (*end != '\0' || end == v || !(is_c ? d >= 0 : d > 0) ||
			    d > 1e7) {
				fprintf(stderr, "ttsim %s: %s: '%s' is not a %s\n",
				    cmd, is_c ? "--compute-us" : "--link-gbps", v,
				    is_c ? "time in microseconds (0 or more)" :
				    "speed in Gb/s (above 0)");
				return TTSIM_EXIT_USAGE;
			}
			if (is_c)
				compute_us = d;
			else
				gbps = d;
			continue;
		}
		if ((r = simopts_take(&so, argc, argv, &i, cmd)) < 0)
			return TTSIM_EXIT_USAGE;
		if (r > 0)
			continue;
		if ((r = netopts_take(&no, argc, argv, &i, cmd)) < 0)
			return TTSIM_EXIT_USAGE;
		if (r == 0) {
			fprintf(stderr, "ttsim %s: unknown flag '%s' (see ttsim "
			    "trace synth --help)\n", cmd, a);
			return TTSIM_EXIT_USAGE;
		}
	}
	if (!app_set || out == NULL) {
		fprintf(stderr, "ttsim %s: %s is required (see ttsim trace "
		    "synth --help)\n", cmd, !app_set ? "--app" : "-o OUT");
		return TTSIM_EXIT_USAGE;
	}
	if (netopts_finish(&no, cmd) < 0)
		return TTSIM_EXIT_USAGE;
	if (no.ports_all) {
		fprintf(stderr, "ttsim %s: --ports all names many networks; "
		    "give one\n", cmd);
		return TTSIM_EXIT_USAGE;
	}
	if (so.seeds != 1) {
		fprintf(stderr, "ttsim %s: --seeds makes no sense for one trace; "
		    "use --seed\n", cmd);
		return TTSIM_EXIT_USAGE;
	}
	simopts_apply_config(&so, &no.cfg);
	if (tt_net_init(&net, &no.spec, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim %s: %s\n", cmd, err);
		return TTSIM_EXIT_USAGE;
	}
	s.npes = net.ncards;
	s.seed = so.seed;
	s.link_gbps = gbps > 0 ? gbps : no.cfg.params.link_gbps;
	if (flit_bytes == 0)
		flit_bytes = no.cfg.params.flit_bytes;
	s.cycle_ns = flit_bytes * 8.0 / s.link_gbps;
	s.rng = calloc(s.npes, sizeof(*s.rng));
	s.iter = calloc(s.npes, sizeof(uint32_t));
	s.idx = calloc(s.npes, sizeof(uint32_t));
	s.seq = calloc(s.npes, sizeof(uint32_t));
	s.offset = calloc(s.npes, sizeof(double));
	if (s.rng == NULL || s.iter == NULL || s.idx == NULL || s.seq == NULL ||
	    s.offset == NULL) {
		fprintf(stderr, "ttsim %s: out of memory\n", cmd);
		r = TTSIM_EXIT_USAGE;
		goto done;
	}
	switch (s.app) {
	case APP_STENCIL:
		s.bytes = bytes ? bytes : 8192;
		s.iterations = iterations ? iterations : 10;
		s.compute_ns = (compute_us >= 0 ? compute_us : 50) * 1e3;
		grid3(s.npes, s.g);
		s.per_iter = 2 * (uint32_t)((s.g[0] > 1) + (s.g[1] > 1) +
		    (s.g[2] > 1));
		s.period = s.compute_ns * 1.1 + 2 * s.per_iter *
		    ser_ns(&s, s.bytes) + 5000;
		break;
	case APP_ALLTOALL:
		s.bytes = bytes ? bytes : 4096;
		s.iterations = iterations ? iterations : 4;
		s.compute_ns = (compute_us >= 0 ? compute_us : 20) * 1e3;
		s.per_iter = s.npes - 1;
		s.period = s.compute_ns * 1.1 + 2 * s.per_iter *
		    ser_ns(&s, s.bytes) + 5000;
		break;
	case APP_ALLREDUCE:
		s.bytes = bytes ? bytes : 1048576;
		s.iterations = iterations ? iterations : 4;
		s.compute_ns = (compute_us >= 0 ? compute_us : 20) * 1e3;
		s.per_iter = 2 * (s.npes - 1);
		/* a chunk's serialisation plus a microsecond of latency */
		s.step_ns = 1.5 * ser_ns(&s, (s.bytes + s.npes - 1) / s.npes) +
		    1000;
		s.period = s.compute_ns * 1.1 + s.per_iter * s.step_ns + 5000;
		break;
	default:
		so.pattern = pat;
		s.bytes = bytes ? bytes :
		    (uint64_t)so.p.packet_flits * (uint64_t)flit_bytes;
		if (simopts_traffic(&so, &net, so.load, so.seed, &s.tr,
		    &hold) < 0) {
			r = TTSIM_EXIT_USAGE;
			goto done;
		}
		s.tr.stop = cycles ? cycles :
		    max_msgs < UINT64_MAX ? UINT64_MAX : 20000;
		s.src = tt_traffic_source(&s.tr);
		break;
	}
	if (s.app != APP_PATTERN) {
		uint32_t pe;

		for (pe = 0; pe < s.npes; pe++) {
			tt_rng_seed(&s.rng[pe], s.seed, pe);
			new_iteration(&s, pe);
		}
	}
	r = synth_write(&s, &net, out, per_node, max_msgs);
	if (s.app == APP_PATTERN)
		tt_traffic_free(&s.tr);
done:
	free(hold);
	synth_free(&s);
	tt_net_free(&net);
	tt_config_free(&no.cfg);
	return r;
}
