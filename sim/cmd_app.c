/*
 * ttsim app: run a closed-loop application motif on a network until every
 * rank's program ends (twintorus/app.h), and optionally record it as ttd
 * would have (twintorus/record.h) with its true dependencies.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "twintorus/app.h"
#include "twintorus/json.h"
#include "ttsim.h"

#define APP_SKEW_NS 500000      /* default clock offsets: below 0.5 ms */

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
"             send to the 6 neighbours, receive theirs, compute\n"
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
"motif flags (defaults per motif: ttsim app MOTIF --help-defaults):\n"
"  --iterations N   --bytes N (a message; allreduce: the vector; incast: a\n"
"                   response)   --request-bytes N (incast)\n"
"  --compute-ns T   compute per iteration (sweep3d: per block)\n"
"  --service-ns T   incast: a server's time per request\n"
"  --imbalance F    each compute time varies by up to +-F of itself with\n"
"                   the rank and iteration (0.1)\n"
"  --clients N      incast (n/16)   --blocks N  sweep3d (8)   --seed N (1)\n"
"  --ranks N|LIST   the PEs taking part: N (PEs 0..N-1) or a list such as\n"
"                   0-63,100; rank r runs on the r-th (default: every PE)\n"
"network flags:   --dims 4,4,4  --ports D|A..J|best  --deadlock vc|bubble|none\n"
"                 --plain\n"
"time and model:  --link-gbps G --flit-bytes N (YAML network:, 10 and 16;\n"
"                 one cycle = flit_bytes * 8 / link_gbps ns)\n"
"                 --packet-flits N --buffer-flits N --vcs N\n"
"                 --router-latency N --link-latency N --watchdog N\n"
"recording:\n"
"  --record DIR     write what ttd would have captured: one pcap per node\n"
"                   (<host>-pe.pcap from the YAML nodes: map, n<node>-pe.pcap\n"
"                   otherwise), each message at its send and a delivery\n"
"                   copy at its arrival, in node-local time\n"
"  --clock-skew NS  nodes' clocks differ by fixed offsets below NS (500000)\n"
"  --deps-out FILE  the motif's true dependencies, in ttsim trace infer's\n"
"                   format\n"
"output:\n"
"  --json           one object: makespan_cycles, makespan_s (first send to\n"
"                   last delivery), messages, bytes, ...\n"
"  --csv FILE       one line per PE: its rank, when its program ended,\n"
"                   messages sent and received\n"
"\n"
"Exit status: 0 ran, 1 the deadlock watchdog fired, 2 bad usage or input,\n"
"130 interrupted (the traces then hold what was recorded until then).\n");
}

struct app_opts {
	netopts no;
	simopts so;
	tt_app_params ap;
	uint32_t *ranks;
	const char *record_dir, *deps_out, *csv_path;
	uint64_t skew_ns;
	double gbps;
	int flit_bytes;
	int defaults_only;
};

static volatile sig_atomic_t app_stop;

static void
on_signal(int sig)
{
	(void)sig;
	app_stop = 1;
}

/* --ranks N or a list of PEs and ranges "0-63,100", ascending. */
static int
parse_ranks(struct app_opts *o, const char *v)
{
	char buf[4096], *item, *save = NULL, *end;
	size_t cap = 0, n = 0;
	unsigned long a, b, x;
	uint32_t *g;

	if (strchr(v, ',') == NULL && strchr(v, '-') == NULL) {
		uint64_t u;

		if (parse_u64("app", "--ranks", v, 2, UINT32_MAX, &u) < 0)
			return -1;
		o->ap.nranks = (uint32_t)u;
		free(o->ranks);
		o->ranks = NULL;
		if ((o->ranks = malloc(sizeof(uint32_t) * u)) == NULL)
			return -1;
		for (x = 0; x < u; x++)
			o->ranks[x] = (uint32_t)x;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", v);
	for (item = strtok_r(buf, ",", &save); item != NULL;
	    item = strtok_r(NULL, ",", &save)) {
		errno = 0;
		a = strtoul(item, &end, 10);
		b = a;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		if (errno != 0 || *end != '\0' || end == item || b < a ||
		    b >= UINT32_MAX || (n > 0 && a <= o->ranks[n - 1])) {
			fprintf(stderr, "ttsim app: --ranks: '%s' is not a PE or "
			    "range A-B above the ones before it (e.g. "
			    "--ranks 0-63,100)\n", item);
			return -1;
		}
		for (x = a; x <= b; x++) {
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				if ((g = realloc(o->ranks, cap * sizeof(*g))) == NULL)
					return -1;
				o->ranks = g;
			}
			o->ranks[n++] = (uint32_t)x;
		}
	}
	o->ap.nranks = (uint32_t)n;
	return 0;
}

/* A duration in ns: a number, at least 0. */
static int
parse_ns(const char *flag, const char *v, double *out)
{
	char *end;
	double d = strtod(v, &end);

	if (*end != '\0' || end == v || !(d >= 0) || d > 1e12) {
		fprintf(stderr, "ttsim app: %s: '%s' is not a time in ns from 0 "
		    "to 1e12\n", flag, v);
		return -1;
	}
	*out = d;
	return 0;
}

/* One motif flag at argv[*i]: 1 taken, 0 not one, -1 after a message. */
static int
take_motif_flag(struct app_opts *o, int argc, char **argv, int *i)
{
	static const char *const u64s[] = {"--iterations", "--bytes",
	    "--request-bytes", "--clients", "--blocks", "--seed",
	    "--clock-skew", "--flit-bytes", NULL};
	const char *a = argv[*i], *v;
	uint64_t u;
	int k;

	for (k = 0; u64s[k] != NULL; k++)
		if (flag_is(a, u64s[k]))
			break;
	if (u64s[k] != NULL) {
		if ((v = flag_value(argc, argv, i, "app")) == NULL ||
		    parse_u64("app", u64s[k], v, k == 5 || k == 6 ? 0 : 1,
		    k == 6 ? 1000000000ull : k == 7 ? 65536 : k == 3 || k == 4 ?
		    UINT32_MAX : 1ull << 40, &u) < 0)
			return -1;
		switch (k) {
		case 0: o->ap.iterations = u; break;
		case 1: o->ap.bytes = u; break;
		case 2: o->ap.request_bytes = u; break;
		case 3: o->ap.clients = (uint32_t)u; break;
		case 4: o->ap.blocks = (uint32_t)u; break;
		case 5: o->ap.seed = u; break;
		case 6: o->skew_ns = u; break;
		default: o->flit_bytes = (int)u; break;
		}
		return 1;
	}
	if (flag_is(a, "--compute-ns") || flag_is(a, "--service-ns") ||
	    flag_is(a, "--imbalance") || flag_is(a, "--link-gbps")) {
		double d;

		if ((v = flag_value(argc, argv, i, "app")) == NULL ||
		    parse_ns(a[2] == 'c' ? "--compute-ns" : a[2] == 's' ?
		    "--service-ns" : a[2] == 'i' ? "--imbalance" : "--link-gbps",
		    v, &d) < 0)
			return -1;
		if (a[2] == 'c')
			o->ap.compute_ns = d;
		else if (a[2] == 's')
			o->ap.service_ns = d;
		else if (a[2] == 'i')
			o->ap.imbalance = d;
		else if (!(d > 0)) {
			fprintf(stderr, "ttsim app: --link-gbps: '%s' is not a "
			    "link speed in Gb/s above 0\n", v);
			return -1;
		} else
			o->gbps = d;
		return 1;
	}
	if (flag_is(a, "--ranks")) {
		if ((v = flag_value(argc, argv, i, "app")) == NULL ||
		    parse_ranks(o, v) < 0)
			return -1;
		return 1;
	}
	if (flag_is(a, "--record") || flag_is(a, "--deps-out") ||
	    flag_is(a, "--csv")) {
		if ((v = flag_value(argc, argv, i, "app")) == NULL)
			return -1;
		if (flag_is(a, "--record"))
			o->record_dir = v;
		else if (flag_is(a, "--deps-out"))
			o->deps_out = v;
		else
			o->csv_path = v;
		return 1;
	}
	return 0;
}

/* Everything the command line says; -1 after a message. */
static int
app_parse(struct app_opts *o, int argc, char **argv)
{
	enum tt_motif m;
	int i, r;

	netopts_init(&o->no);
	simopts_init(&o->so);
	o->so.cmd = "app";
	o->so.model_only = 1;
	o->skew_ns = APP_SKEW_NS;
	if (argc < 2 || argv[1][0] == '-' ||
	    tt_motif_parse(argv[1], &m) < 0) {
		fprintf(stderr, "ttsim app: give a motif first: %s (see ttsim "
		    "app --help)\n", tt_motif_list());
		return -1;
	}
	tt_app_defaults(&o->ap, m);
	for (i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--help-defaults") == 0) {
			o->defaults_only = 1;
			continue;
		}
		if ((r = take_motif_flag(o, argc, argv, &i)) < 0)
			return -1;
		if (r > 0)
			continue;
		if ((r = simopts_take(&o->so, argc, argv, &i, "app")) < 0)
			return -1;
		if (r > 0)
			continue;
		if ((r = netopts_take(&o->no, argc, argv, &i, "app")) < 0)
			return -1;
		if (r == 0) {
			fprintf(stderr, "ttsim app: unknown flag '%s' (see ttsim "
			    "app --help)\n", argv[i]);
			return -1;
		}
	}
	if (o->deps_out != NULL && o->record_dir == NULL) {
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
	if (o->no.json && o->csv_path != NULL && strcmp(o->csv_path, "-") == 0) {
		fprintf(stderr, "ttsim app: --json and --csv - both want standard "
		    "output; give --csv a file\n");
		return -1;
	}
	if (netopts_finish(&o->no, "app") < 0)
		return -1;
	if (o->no.ports_all) {
		fprintf(stderr, "ttsim app: --ports all runs many networks; run "
		    "one at a time\n");
		return -1;
	}
	simopts_apply_config(&o->so, &o->no.cfg);
	o->ap.ranks = o->ranks;
	o->ap.packet_flits = o->so.p.packet_flits;
	o->ap.flit_bytes = o->flit_bytes ? o->flit_bytes :
	    o->no.cfg.params.flit_bytes;
	o->ap.link_gbps = o->gbps > 0 ? o->gbps : o->no.cfg.params.link_gbps;
	return 0;
}

static void
print_defaults(const tt_app_params *p)
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

/* Every rank's results as one: sums, the latest and the earliest. */
static void
combine_app(tt_app_result *r)
{
	enum { NF = 8, N = NF + TT_HIST_WORDS };
	static unsigned char max[N];
	uint64_t v[N];

	if (ttsim_comm() == NULL)
		return;
	max[4] = max[5] = max[6] = max[NF + 2] = 1;
	v[0] = r->sent;
	v[1] = r->messages;
	v[2] = r->bytes;
	v[3] = r->packets;
	v[4] = UINT64_MAX - r->first_send;      /* the earliest */
	v[5] = r->last_delivery;
	v[6] = r->finish;
	v[7] = r->done;
	tt_hist_pack(&r->latency, v + NF);
	tt_sim_combine(ttsim_comm(), v, N, max);
	r->sent = v[0];
	r->messages = v[1];
	r->bytes = v[2];
	r->packets = v[3];
	r->first_send = UINT64_MAX - v[4];
	r->last_delivery = v[5];
	r->finish = v[6];
	r->done = v[7];
	tt_hist_unpack(&r->latency, v + NF);
}

struct app_run {
	tt_net net;
	tt_simresult res;
	tt_app_result ar;
	uint64_t makespan, waiting, records;
	char layout[96], wait[256];
	double cycle_ns, wall;
	uint32_t nranks;
};

static void
print_json(const struct app_opts *o, const struct app_run *x)
{
	const tt_app_params *p = &o->ap;
	const tt_hist *h = &x->ar.latency;
	double us = x->cycle_ns * 1e-3;

	printf("{\"motif\": \"%s\", \"ranks\": %u, \"layout\": ",
	    tt_motif_name(p->motif), x->nranks);
	tt_json_string(stdout, x->layout);
	printf(", \"iterations\": %" PRIu64 ", \"message_bytes\": %" PRIu64
	    ", \"compute_ns\": %g, \"imbalance\": %g, \"seed\": %" PRIu64 ", ",
	    p->iterations, p->bytes, p->compute_ns, p->imbalance, p->seed);
	json_net_fields(stdout, &x->net, "scheme");
	printf(", \"pes\": %u, \"cycle_ns\": %g, \"link_gbps\": %g, "
	    "\"flit_bytes\": %d, \"packet_flits\": %d", x->net.ncards,
	    x->cycle_ns, p->link_gbps, p->flit_bytes, p->packet_flits);
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
	if (o->record_dir != NULL) {
		printf(", \"record\": {\"dir\": ");
		tt_json_string(stdout, o->record_dir);
		printf(", \"records\": %" PRIu64 ", \"clock_skew_ns\": %" PRIu64
		    "}", x->records, o->skew_ns);
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
	    "%.2f s\n", x->cycle_ns, o->ap.flit_bytes, o->ap.link_gbps,
	    x->wall);
	if (o->record_dir != NULL)
		printf("  recorded          %" PRIu64 " records in %s\n",
		    x->records, o->record_dir);
}

static int
write_csv(const char *path, tt_app *a, const struct app_run *x)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	uint32_t pe, rank;
	uint64_t fin, sent, rcvd;

	if (f == NULL) {
		fprintf(stderr, "ttsim app: --csv %s: cannot create: %s\n", path,
		    strerror(errno));
		return -1;
	}
	fprintf(f, "pe,rank,finish_cycle,finish_ns,sent,received\n");
	for (pe = 0; pe < x->net.ncards; pe++)
		if (tt_app_pe(a, pe, &rank, &fin, &sent, &rcvd))
			fprintf(f, "%u,%u,%" PRIu64 ",%.1f,%" PRIu64 ",%" PRIu64 "\n",
			    pe, rank, fin, (double)fin * x->cycle_ns, sent, rcvd);
	if (f != stdout ? fclose(f) != 0 : fflush(f) != 0) {
		fprintf(stderr, "ttsim app: --csv %s: write failed\n", path);
		return -1;
	}
	return 0;
}

struct app_progress {
	char label[32];
	tt_app *a;
};

static void
on_progress(void *ctx, double done)
{
	struct app_progress *pr = ctx;

	(void)done;
	if (app_stop)
		tt_app_stop(pr->a);
	progress_show(pr->label, tt_app_progress(pr->a));
}

/* Run o's motif on x->net; rc as the command's exit status. */
static int
app_run(struct app_opts *o, struct app_run *x, tt_app **ap)
{
	tt_sim *sim = NULL;
	tt_record *rec = NULL;
	tt_deps_writer *dw = NULL;
	tt_source src;
	struct app_progress pr;
	struct timespec t0, t1;
	uint32_t pe0, pe1;
	char err[1024];
	int rc = TTSIM_EXIT_USAGE;

	*ap = NULL;
	if (tt_sim_create_part(&sim, &x->net, &o->so.p, ttsim_comm(), err,
	    sizeof(err)) < 0 || tt_app_create(ap, &o->ap, sim, err,
	    sizeof(err)) < 0) {
		fprintf(stderr, "ttsim app: %s\n", err);
		goto out;
	}
	tt_sim_local(sim, &pe0, &pe1);
	if (o->record_dir != NULL && record_dir_ready(o->record_dir, "app") < 0)
		goto out;
	if (o->record_dir != NULL) {
		if (tt_record_open(&rec, o->record_dir, &x->net, &o->no.cfg, pe0,
		    pe1, x->cycle_ns, o->skew_ns, err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim app: --record %s\n", err);
			goto out;
		}
		tt_app_record(*ap, rec);
	}
	if (o->deps_out != NULL) {
		if (tt_deps_create(&dw, o->deps_out, err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim app: --deps-out %s\n", err);
			goto out;
		}
		tt_app_deps(*ap, dw);
	}
	src = tt_app_source(*ap);
	pr.a = *ap;
	snprintf(pr.label, sizeof(pr.label), "ttsim app");
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	tt_sim_run(sim, &src, 1, &x->res, on_progress, &pr);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	progress_clear();
	x->wall = (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	x->ar = *tt_app_result_get(*ap);
	x->waiting = tt_app_waiting(*ap, x->wait, sizeof(x->wait));
	combine_app(&x->ar);
	{
		uint64_t w = x->waiting;

		tt_sim_combine(ttsim_comm(), &w, 1, NULL);
		x->waiting = w;
	}
	x->makespan = tt_app_makespan(&x->ar);
	rc = TTSIM_EXIT_OK;
	if (tt_app_error(*ap, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim app: %s\n", err);
		rc = TTSIM_EXIT_USAGE;
	}
out:
	if (rec != NULL) {
		if (tt_record_close(rec, &x->records, err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim app: --record: %s\n", err);
			rc = TTSIM_EXIT_USAGE;
		}
		tt_sim_combine(ttsim_comm(), &x->records, 1, NULL);
	}
	if (dw != NULL) {
		if (rc == TTSIM_EXIT_OK && !app_stop) {
			if (tt_deps_close(dw, err, sizeof(err)) < 0) {
				fprintf(stderr, "ttsim app: --deps-out: %s\n", err);
				rc = TTSIM_EXIT_USAGE;
			}
		} else {
			tt_deps_discard(dw);
		}
	}
	tt_sim_free(sim);
	return rc;
}

int
cmd_app(int argc, char **argv)
{
	struct app_opts o;
	struct app_run x;
	tt_app *a = NULL;
	char err[512];
	int rc = TTSIM_EXIT_USAGE;

	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "--help") == 0)) {
		app_usage(stdout);
		return TTSIM_EXIT_OK;
	}
	memset(&o, 0, sizeof(o));
	memset(&x, 0, sizeof(x));
	if (app_parse(&o, argc, argv) < 0)
		goto out;
	if (o.defaults_only) {
		print_defaults(&o.ap);
		rc = TTSIM_EXIT_OK;
		goto out;
	}
	if (tt_net_init(&x.net, &o.no.spec, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim app: %s\n", err);
		goto out;
	}
	if (tt_sim_check(&x.net, &o.so.p, err, sizeof(err)) < 0 ||
	    tt_app_check(&o.ap, x.net.ncards, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim app: %s\n", err);
		goto out;
	}
	x.nranks = o.ranks != NULL ? o.ap.nranks : x.net.ncards;
	x.cycle_ns = (double)o.ap.flit_bytes * 8.0 / o.ap.link_gbps;
	rc = app_run(&o, &x, &a);
	if (a == NULL)
		goto out;
	tt_app_layout(a, x.layout, sizeof(x.layout));
	if (rc == TTSIM_EXIT_OK && app_stop) {
		fprintf(stderr, "ttsim app: interrupted at cycle %" PRIu64
		    "%s\n", x.res.cycles, o.record_dir != NULL ? "; the traces "
		    "hold what was recorded until then" : "");
		rc = 130;
		goto out;
	}
	if (rc == TTSIM_EXIT_OK && x.res.deadlock) {
		fprintf(stderr, "ttsim app: deadlock: no flit moved for %llu "
		    "cycles (cycle %llu)\n", (unsigned long long)o.so.p.watchdog,
		    (unsigned long long)x.res.cycles);
		rc = TTSIM_EXIT_DEADLOCK;
	} else if (rc == TTSIM_EXIT_OK && x.waiting > 0) {
		fprintf(stderr, "ttsim app: the network emptied with %" PRIu64
		    " programs still waiting for a message that was never sent:"
		    " %s\n", x.waiting, x.wait[0] ? x.wait : "on another rank");
		rc = TTSIM_EXIT_USAGE;
	}
	if (rc == TTSIM_EXIT_USAGE)
		goto out;
	if (o.csv_path != NULL && write_csv(o.csv_path, a, &x) < 0) {
		rc = TTSIM_EXIT_USAGE;
		goto out;
	}
	if (o.no.json)
		print_json(&o, &x);
	else if (o.csv_path == NULL || strcmp(o.csv_path, "-") != 0)
		print_table(&o, &x);
out:
	tt_app_free(a);
	tt_simresult_free(&x.res);
	if (x.net.coord != NULL)
		tt_net_free(&x.net);
	tt_config_free(&o.no.cfg);
	free(o.ranks);
	return rc;
}
