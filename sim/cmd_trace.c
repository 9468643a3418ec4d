/*
 * ttsim trace synth: write application-like traces of torus frames.
 * ttsim trace stat:  summarise traces.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "twintorus/json.h"
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
"                   packet: packet_flits * flit_bytes)\n"
"  --iterations N   stencil 10, alltoall and allreduce 4\n"
"  --compute-us T   compute time before each iteration's messages (stencil\n"
"                   50, others 20); each PE's varies by +-10%%\n"
"  --load F --cycles N (20000) --hot PE --hot-fraction F --flow S:D\n"
"                   patterns: as in ttsim run; time is cycles * cycle ns\n"
"  --messages N     stop after N messages (any application)\n"
"  --link-gbps G --flit-bytes N   link speed and flit size (YAML network:,\n"
"                   default 10 and 16) for message times\n"
"output:\n"
"  -o, --out PATH   a .pcap file, or with --per-node a directory that gets\n"
"                   one node-NNNNN.pcap per node, as a cluster records it\n"
"  --seed N         seed of the jitter and of the patterns (1)\n"
"\n"
"A trace is written as PATH.part and renamed when complete; an interrupt\n"
"(Ctrl-C, SIGTERM) closes the files early, complete and readable.\n"
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
		    (double)(last - SYNTH_EPOCH_NS) * 1e-9 : 0.0, out,
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

static int
cmd_synth(int argc, char **argv)
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
			    is_bytes ? 0xFFFFFFFFull - 64 : 1ull << 40, &x) < 0)
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

/* ---- stat ---- */

static void
stat_usage(FILE *f)
{
	fprintf(f,
"usage: ttsim trace stat TRACE... [FILE.yaml] [network flags] [--json]\n"
"                        [--top N]\n"
"\n"
"Summarises traces (pcap or pcapng files, or directories of them, merged\n"
"by time as replay reads them): records, messages, bytes, duration, what\n"
"was skipped, messages and bytes per PE, and the busiest source x\n"
"destination pairs.  With a YAML file or network flags, PE ids are checked\n"
"against that network and plain captures are read through the file's\n"
"addresses: map.\n"
"\n"
"  --top N   pairs and PEs listed (default 10; --json lists every PE)\n"
"Exit status: 0 read, 2 bad usage or a damaged trace.\n");
}

struct pair {
	uint64_t key;           /* src << 32 | dst, UINT64_MAX: empty */
	uint64_t msgs, bytes;
};

struct tstat {
	uint64_t *sent_m, *sent_b, *recv_m, *recv_b;
	uint32_t npe;           /* highest PE seen + 1 */
	uint32_t cap;
	struct pair *pairs;
	size_t npairs, pcap;
	tt_hist size;
	uint64_t min_size;
};

static int
tstat_grow(struct tstat *t, uint32_t pe)
{
	uint32_t cap = t->cap ? t->cap : 256, i;

	while (cap <= pe)
		cap *= 2;
	if (cap != t->cap) {
		uint64_t **arr[4] = {&t->sent_m, &t->sent_b, &t->recv_m, &t->recv_b};

		for (i = 0; i < 4; i++) {
			uint64_t *g = realloc(*arr[i], (size_t)cap * sizeof(uint64_t));

			if (g == NULL)
				return -1;
			memset(g + t->cap, 0, (size_t)(cap - t->cap) * sizeof(uint64_t));
			*arr[i] = g;
		}
		t->cap = cap;
	}
	if (pe + 1 > t->npe)
		t->npe = pe + 1;
	return 0;
}

static uint64_t
pair_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

static struct pair *
pair_find(struct tstat *t, uint64_t key)
{
	size_t i;

	if (2 * (t->npairs + 1) > t->pcap) {
		size_t cap = t->pcap ? t->pcap * 2 : 1024, j;
		struct pair *g = malloc(cap * sizeof(*g));

		if (g == NULL)
			return NULL;
		for (j = 0; j < cap; j++)
			g[j].key = UINT64_MAX;
		for (j = 0; j < t->pcap; j++) {
			if (t->pairs[j].key == UINT64_MAX)
				continue;
			i = pair_hash(t->pairs[j].key) & (cap - 1);
			while (g[i].key != UINT64_MAX)
				i = (i + 1) & (cap - 1);
			g[i] = t->pairs[j];
		}
		free(t->pairs);
		t->pairs = g;
		t->pcap = cap;
	}
	i = pair_hash(key) & (t->pcap - 1);
	while (t->pairs[i].key != UINT64_MAX && t->pairs[i].key != key)
		i = (i + 1) & (t->pcap - 1);
	if (t->pairs[i].key == UINT64_MAX) {
		t->pairs[i].key = key;
		t->pairs[i].msgs = t->pairs[i].bytes = 0;
		t->npairs++;
	}
	return &t->pairs[i];
}

static int
pair_by_bytes(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->key < y->key ? -1 : x->key > y->key;
}

static void
print_time(FILE *f, uint64_t ns)
{
	time_t sec = (time_t)(ns / 1000000000u);
	struct tm tm;
	char buf[64];

	gmtime_r(&sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(f, "%s.%09" PRIu64 "Z", buf, ns % 1000000000u);
}

static void
json_stats_fields(FILE *f, const tt_trace_stats *st)
{
	fprintf(f, "\"records\": %" PRIu64 ", \"messages\": %" PRIu64
	    ", \"bytes\": %" PRIu64 ", \"plain_frames\": %" PRIu64
	    ", \"hello_frames\": %" PRIu64 ", \"delivery_copies\": %" PRIu64
	    ", \"unmapped_frames\": %" PRIu64 ", \"out_of_order\": %" PRIu64,
	    st->records, st->messages, st->bytes, st->plain, st->hello,
	    st->delivered, st->unmapped, st->backwards);
}

static int
cmd_stat(int argc, char **argv)
{
	const char *cmd = "trace stat", **paths;
	size_t np = 0, i, k;
	netopts no;
	tt_net net;
	tt_addrmap map;
	tt_trace_in *in = NULL;
	const tt_trace_stats *st;
	struct tstat t;
	tt_msg m;
	int top = 10, have_net = 0, r, x;
	uint64_t v;
	char err[1024];

	memset(&t, 0, sizeof(t));
	memset(&map, 0, sizeof(map));
	netopts_init(&no);
	paths = calloc((size_t)argc, sizeof(*paths));
	if (paths == NULL)
		return TTSIM_EXIT_USAGE;
	for (i = 1; i < (size_t)argc; i++) {
		int ii = (int)i;
		const char *a = argv[i];
		size_t len = strlen(a);

		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			stat_usage(stdout);
			free(paths);
			return TTSIM_EXIT_OK;
		}
		if (flag_is(a, "--top")) {
			const char *val = flag_value(argc, argv, &ii, cmd);

			if (val == NULL || parse_u64(cmd, "--top", val, 1, 100000,
			    &v) < 0)
				goto usage;
			top = (int)v;
			i = (size_t)ii;
			continue;
		}
		if (a[0] != '-' && !(len > 5 && (strcmp(a + len - 5, ".yaml") == 0 ||
		    strcmp(a + len - 4, ".yml") == 0))) {
			paths[np++] = a;
			continue;
		}
		if ((r = netopts_take(&no, argc, argv, &ii, cmd)) < 0)
			goto usage;
		if (r == 0) {
			fprintf(stderr, "ttsim %s: unknown flag '%s' (see ttsim "
			    "trace stat --help)\n", cmd, a);
			goto usage;
		}
		if (a[0] != '-' || strcmp(a, "--json") != 0)
			have_net = 1;
		i = (size_t)ii;
	}
	if (np == 0) {
		fprintf(stderr, "ttsim %s: give one or more trace files or "
		    "directories (see ttsim trace stat --help)\n", cmd);
		goto usage;
	}
	if (have_net) {
		if (netopts_finish(&no, cmd) < 0)
			goto usage;
		if (tt_net_init(&net, &no.spec, err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim %s: %s\n", cmd, err);
			goto usage;
		}
		if (tt_addrmap_build(&map, &no.cfg, &net, stderr) > 0) {
			tt_net_free(&net);
			goto usage;
		}
	}
	if (tt_trace_in_open(&in, paths, np, have_net ? &map : NULL,
	    have_net ? net.ncards : 0, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim %s: %s\n", cmd, err);
		goto fail;
	}
	t.min_size = UINT64_MAX;
	while ((x = tt_trace_in_next(in, &m, err, sizeof(err))) > 0) {
		struct pair *p;
		uint32_t hi = m.src > m.dst ? m.src : m.dst;

		if (tstat_grow(&t, hi) < 0 ||
		    (p = pair_find(&t, (uint64_t)m.src << 32 | m.dst)) == NULL) {
			fprintf(stderr, "ttsim %s: out of memory\n", cmd);
			goto fail;
		}
		t.sent_m[m.src]++;
		t.sent_b[m.src] += m.bytes;
		t.recv_m[m.dst]++;
		t.recv_b[m.dst] += m.bytes;
		p->msgs++;
		p->bytes += m.bytes;
		tt_hist_add(&t.size, m.bytes);
		if (m.bytes < t.min_size)
			t.min_size = m.bytes;
	}
	if (x < 0) {
		fprintf(stderr, "ttsim %s: %s\n", cmd, err);
		goto fail;
	}
	tt_trace_in_warnings(in, stderr, "ttsim trace stat: warning: ");
	/* the pairs, busiest first */
	for (i = k = 0; i < t.pcap; i++)
		if (t.pairs[i].key != UINT64_MAX)
			t.pairs[k++] = t.pairs[i];
	if (k > 0)
		qsort(t.pairs, k, sizeof(*t.pairs), pair_by_bytes);
	st = tt_trace_in_stats(in, tt_trace_in_nfiles(in));
	if (no.json) {
		double dur = st->messages ? (double)(st->last_ns - st->first_ns) * 1e-9 : 0;

		printf("{\"files\": [");
		for (i = 0; i < tt_trace_in_nfiles(in); i++) {
			const tt_trace_stats *fs = tt_trace_in_stats(in, i);

			printf("%s{\"path\": ", i ? ", " : "");
			tt_json_string(stdout, tt_trace_in_path(in, i));
			printf(", ");
			json_stats_fields(stdout, fs);
			printf(", \"truncated_record\": ");
			if (fs->truncated)
				printf("%" PRIu64 "}", fs->truncated);
			else
				printf("null}");
		}
		printf("], ");
		json_stats_fields(stdout, st);
		printf(", \"first_ns\": %" PRIu64 ", \"last_ns\": %" PRIu64
		    ", \"duration_s\": %.9f", st->first_ns, st->last_ns, dur);
		printf(", \"message_bytes\": {\"min\": %" PRIu64 ", \"mean\": %.1f"
		    ", \"p50\": %" PRIu64 ", \"max\": %" PRIu64 "}",
		    st->messages ? t.min_size : 0,
		    st->messages ? (double)st->bytes / (double)st->messages : 0.0,
		    tt_hist_quantile(&t.size, 0.5), t.size.max);
		printf(", \"pes\": [");
		for (i = k = 0; i < t.npe; i++) {
			if (t.sent_m[i] == 0 && t.recv_m[i] == 0)
				continue;
			printf("%s{\"pe\": %zu, \"sent_messages\": %" PRIu64
			    ", \"sent_bytes\": %" PRIu64 ", \"received_messages\": %"
			    PRIu64 ", \"received_bytes\": %" PRIu64 "}",
			    k++ ? ", " : "", i, t.sent_m[i], t.sent_b[i],
			    t.recv_m[i], t.recv_b[i]);
		}
		printf("], \"pairs\": %zu, \"top_pairs\": [", t.npairs);
		for (i = 0; i < t.npairs && i < (size_t)top; i++)
			printf("%s{\"src\": %" PRIu64 ", \"dst\": %" PRIu64
			    ", \"messages\": %" PRIu64 ", \"bytes\": %" PRIu64 "}",
			    i ? ", " : "", t.pairs[i].key >> 32,
			    t.pairs[i].key & 0xFFFFFFFFu, t.pairs[i].msgs,
			    t.pairs[i].bytes);
		printf("]}\n");
	} else {
		double dur = st->messages ? (double)(st->last_ns - st->first_ns) * 1e-9 : 0;
		uint32_t senders = 0;

		printf("%zu file%s, %" PRIu64 " records\n",
		    tt_trace_in_nfiles(in), tt_trace_in_nfiles(in) == 1 ? "" : "s",
		    st->records);
		printf("  messages      %" PRIu64 " (%" PRIu64 " bytes)", st->messages,
		    st->bytes);
		if (st->plain)
			printf(", %" PRIu64 " of them plain frames", st->plain);
		printf("\n");
		if (st->hello || st->delivered || st->unmapped)
			printf("  skipped       %" PRIu64 " hello, %" PRIu64
			    " delivery copies, %" PRIu64 " unmapped\n", st->hello,
			    st->delivered, st->unmapped);
		if (st->messages) {
			printf("  first         ");
			print_time(stdout, st->first_ns);
			printf("\n  duration      %.9f s\n", dur);
			if (dur > 0)
				printf("  rate          %.0f messages/s, %.3f Gb/s\n",
				    (double)st->messages / dur,
				    (double)st->bytes * 8e-9 / dur);
			printf("  message size  min %" PRIu64 ", mean %.1f, median %"
			    PRIu64 ", max %" PRIu64 " bytes\n", t.min_size,
			    (double)st->bytes / (double)st->messages,
			    tt_hist_quantile(&t.size, 0.5), t.size.max);
		}
		for (i = 0; i < t.npe; i++)
			senders += t.sent_m[i] > 0;
		printf("  PEs           %u send, ids up to %u\n", senders,
		    t.npe ? t.npe - 1 : 0);
		printf("  pairs         %zu source x destination pairs\n", t.npairs);
		if (t.npairs) {
			printf("\nbusiest pairs (of %zu):\n  %8s %8s %10s %14s\n",
			    t.npairs, "src", "dst", "messages", "bytes");
			for (i = 0; i < t.npairs && i < (size_t)top; i++)
				printf("  %8" PRIu64 " %8" PRIu64 " %10" PRIu64 " %14"
				    PRIu64 "\n", t.pairs[i].key >> 32,
				    t.pairs[i].key & 0xFFFFFFFFu, t.pairs[i].msgs,
				    t.pairs[i].bytes);
			printf("\nper PE (first %d by id):\n  %8s %10s %14s %10s "
			    "%14s\n", top, "pe", "sent", "bytes", "received",
			    "bytes");
			for (i = k = 0; i < t.npe && k < (size_t)top; i++) {
				if (t.sent_m[i] == 0 && t.recv_m[i] == 0)
					continue;
				k++;
				printf("  %8zu %10" PRIu64 " %14" PRIu64 " %10" PRIu64
				    " %14" PRIu64 "\n", i, t.sent_m[i], t.sent_b[i],
				    t.recv_m[i], t.recv_b[i]);
			}
		}
	}
	r = TTSIM_EXIT_OK;
	goto out;
usage:
fail:
	r = TTSIM_EXIT_USAGE;
out:
	tt_trace_in_close(in);
	if (have_net && net.coord != NULL)
		tt_net_free(&net);
	tt_addrmap_free(&map);
	tt_config_free(&no.cfg);
	free(t.sent_m);
	free(t.sent_b);
	free(t.recv_m);
	free(t.recv_b);
	free(t.pairs);
	free(paths);
	return r;
}

int
cmd_trace(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "synth") == 0)
		return cmd_synth(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "stat") == 0)
		return cmd_stat(argc - 1, argv + 1);
	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "--help") == 0)) {
		printf("usage: ttsim trace synth|stat ...\n\n"
		    "  synth   write an application-like trace (pcap of torus "
		    "frames)\n"
		    "  stat    summarise traces: messages, bytes, duration, PEs, "
		    "pairs\n\n'ttsim trace synth --help' and 'ttsim trace stat "
		    "--help' say more.\n");
		return TTSIM_EXIT_OK;
	}
	fprintf(stderr, "ttsim trace: give synth or stat (see ttsim trace "
	    "--help)\n");
	return TTSIM_EXIT_USAGE;
}
