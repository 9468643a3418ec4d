/*
 * ttsim replay: run a recorded trace through one or more networks and
 * predict how long it takes and what its messages see (twintorus/replay.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "twintorus/json.h"
#include "twintorus/outfile.h"
#include "twintorus/replay.h"
#include "twintorus/trace.h"
#include "ttsim.h"

#define REPLAY_MAX_NETS 16

static void
replay_usage(FILE *f)
{
	fprintf(f,
"usage: ttsim replay TRACE... [FILE.yaml] [network flags] [--compare LIST]\n"
"                    [--speed X|max] [--json] [--csv FILE] [--plot FILE]\n"
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
"network flags:   --dims 4,4,4  --ports D|A..J|best  --deadlock vc|bubble|none\n"
"                 --plain\n"
"  --compare LIST  run several networks on the same trace: port\n"
"                  configurations (D, A..J, best), 2d (the plain 2D torus\n"
"                  with as many PEs, as square as possible) or topologies\n"
"                  such as 16x8:plain or 4x4x8; all need as many PEs\n"
"timing:\n"
"  --speed X       trace time divided by X (2: twice as fast; default 1)\n"
"  --speed max     ignore time: every PE sends its messages back to back,\n"
"                  the PEs kept within --lookahead messages of each other\n"
"                  in trace order (the result depends on it)\n"
"  --link-gbps G   --flit-bytes N   (YAML network:, default 10 and 16)\n"
"  --lookahead N   messages read ahead of the simulation (4096); memory\n"
"                  holds these and what is in flight, not the whole trace\n"
"  --warmup N      measure from cycle N: accepted load counts packets that\n"
"                  arrive from then until the last message is generated,\n"
"                  latency the messages generated in that window (0)\n"
"model:           --packet-flits N (4)  --buffer-flits N (128)  --vcs N\n"
"                 --router-latency N (1)  --link-latency N (1)  --watchdog N\n"
"output:\n"
"  --top N         hottest links listed (10)\n"
"  --json          one object: the trace, then one entry per network with\n"
"                  every link's utilisation\n"
"  --csv FILE      one line per message and network\n"
"  --plot FILE     message latency CDF per network (.png or .svg, gnuplot)\n"
"\n"
"Exit status: 0 replayed, 1 the deadlock watchdog fired, 2 bad usage or a\n"
"damaged trace.\n");
}

struct netrun {
	char name[96];
	tt_netspec spec;
	tt_net net;
	tt_simresult res;
	tt_replay_result rr;
	uint64_t *link;         /* copy of the per-output flits */
	int nports;
	double wall;
};

struct replay_job {
	const char *csv_path;
	tt_outfile *csv_out;
	FILE *csv;
	const char *name;       /* the network being run */
	double cycle_ns;
	uint64_t total;         /* messages in the trace */
	tt_replay *rp;
	int index, count;
	char label[32];
};

static void
on_message(void *ctx, const tt_msgdone *d)
{
	struct replay_job *j = ctx;
	uint64_t lat = d->done - d->gen;

	fprintf(j->csv, "%s,%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu32 ",%"
	    PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.1f,%" PRIu32 ",%"
	    PRIu64 "\n", j->name, d->m.src, d->m.dst, d->m.bytes, d->packets,
	    d->m.t_ns, d->gen, d->done, lat, (double)lat * j->cycle_ns,
	    d->m.file, d->m.recno);
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

static int
link_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? 1 : -1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

static const char *
link_name(const struct netrun *r, uint64_t idx, char *buf, size_t bufsz)
{
	uint32_t card = (uint32_t)(idx / (uint64_t)r->nports);
	int i = (int)(idx % (uint64_t)r->nports), side = r->net.twin ? card & 1 : 0;
	char cn[64], pn[16];

	snprintf(buf, bufsz, "%s %s", tt_card_name(&r->net, card, cn, sizeof(cn)),
	    tt_port_name(r->net.card_port[side][i], r->net.n, pn, sizeof(pn)));
	return buf;
}

/* Utilisation of every link of r over its makespan. */
static double
link_util(const struct netrun *r, uint64_t flits)
{
	return r->res.cycles ? (double)flits / (double)r->res.cycles : 0;
}

static uint64_t
window_end(const struct netrun *r, const tt_replay_params *rpp)
{
	return rpp->window_end ? rpp->window_end : r->res.cycles;
}

/* Flits/cycle/PE that arrived inside the measurement window. */
static double
accepted(const struct netrun *r, const tt_replay_params *rpp)
{
	uint64_t end = window_end(r, rpp);

	if (end <= rpp->warmup)
		return 0;
	return (double)r->rr.packets_window * rpp->packet_flits /
	    ((double)(end - rpp->warmup) * r->net.ncards);
}

static void
print_json(const struct netrun *runs, int nrun, tt_trace_in *in,
    const tt_replay_params *rpp, double cycle_ns)
{
	const tt_trace_stats *st = tt_trace_in_stats(in, tt_trace_in_nfiles(in));
	size_t i;
	int k;

	printf("{\"trace\": {\"files\": [");
	for (i = 0; i < tt_trace_in_nfiles(in); i++) {
		printf("%s", i ? ", " : "");
		tt_json_string(stdout, tt_trace_in_path(in, i));
	}
	printf("], \"records\": %" PRIu64 ", \"messages\": %" PRIu64
	    ", \"bytes\": %" PRIu64 ", \"duration_s\": %.9f, \"skipped_hello\": %"
	    PRIu64 ", \"skipped_delivery_copies\": %" PRIu64
	    ", \"skipped_unmapped\": %" PRIu64 "}", st->records, st->messages,
	    st->bytes, (double)(st->last_ns - st->first_ns) * 1e-9, st->hello,
	    st->delivered, st->unmapped);
	printf(", \"speed\": ");
	if (rpp->speed > 0)
		printf("%g", rpp->speed);
	else
		printf("\"max\"");
	printf(", \"lookahead\": %" PRIu64 ", \"cycle_ns\": %g, \"link_gbps\": %g"
	    ", \"flit_bytes\": %d, \"packet_flits\": %d, \"networks\": [",
	    rpp->lookahead, cycle_ns, rpp->link_gbps, rpp->flit_bytes,
	    rpp->packet_flits);
	for (k = 0; k < nrun; k++) {
		const struct netrun *r = &runs[k];
		const tt_replay_result *rr = &r->rr;
		uint64_t nl = (uint64_t)r->net.ncards * (uint64_t)r->nports, l;
		uint64_t ext = 0, intl = 0;
		char nb[96];
		double mean = rr->latency.count ?
		    rr->latency.sum / (double)rr->latency.count : 0;

		printf("%s{\"name\": ", k ? ", " : "");
		tt_json_string(stdout, r->name);
		printf(", ");
		json_net_fields(stdout, &r->net, "scheme");
		printf(", \"pes\": %" PRIu32 ", \"makespan_cycles\": %" PRIu64
		    ", \"makespan_s\": %.9f, \"messages_delivered\": %" PRIu64
		    ", \"packets_delivered\": %" PRIu64 ", \"bytes_delivered\": %"
		    PRIu64, r->net.ncards, r->res.cycles,
		    (double)r->res.cycles * cycle_ns * 1e-9, rr->messages,
		    r->res.delivered, rr->bytes);
		printf(", \"latency_cycles\": {\"mean\": %.3f, \"p50\": %" PRIu64
		    ", \"p99\": %" PRIu64 ", \"max\": %" PRIu64 "}", mean,
		    tt_hist_quantile(&rr->latency, 0.5),
		    tt_hist_quantile(&rr->latency, 0.99), rr->latency.max);
		printf(", \"latency_us\": {\"mean\": %.4f, \"p50\": %.4f, \"p99\": "
		    "%.4f, \"max\": %.4f}", mean * cycle_ns * 1e-3,
		    (double)tt_hist_quantile(&rr->latency, 0.5) * cycle_ns * 1e-3,
		    (double)tt_hist_quantile(&rr->latency, 0.99) * cycle_ns * 1e-3,
		    (double)rr->latency.max * cycle_ns * 1e-3);
		printf(", \"throughput_gbps\": %.4f, \"accepted_load\": %.6f"
		    ", \"window_cycles\": [%" PRIu64 ", %" PRIu64 "]"
		    ", \"avg_hops\": %.4f, \"internal_link_utilization\": %.6f",
		    r->res.cycles ? (double)rr->bytes * 8.0 /
		    ((double)r->res.cycles * cycle_ns) : 0,
		    accepted(r, rpp), rpp->warmup, window_end(r, rpp),
		    r->res.avg_hops, r->res.internal_link_utilization);
		for (l = 0; l < nl; l++) {
			int port = r->net.card_port[r->net.twin ? (l / (uint64_t)r->nports) & 1 : 0][l % (uint64_t)r->nports];

			if ((int)(l % (uint64_t)r->nports) == r->nports - 1)
				continue;
			if (port == TT_PORT_INT)
				intl += r->link[l];
			else
				ext += r->link[l];
		}
		printf(", \"internal_flit_share\": %.6f, \"deadlock\": %s"
		    ", \"max_pending\": %" PRIu64 ", \"wall_s\": %.3f, \"links\": [",
		    ext + intl ? (double)intl / (double)(ext + intl) : 0,
		    r->res.deadlock ? "true" : "false", rr->max_pending, r->wall);
		for (l = 0; l < nl; l++) {
			if ((int)(l % (uint64_t)r->nports) == r->nports - 1)
				continue;
			printf("%s{\"link\": ", l ? ", " : "");
			tt_json_string(stdout, link_name(r, l, nb, sizeof(nb)));
			printf(", \"flits\": %" PRIu64 ", \"utilization\": %.6f}",
			    r->link[l], link_util(r, r->link[l]));
		}
		printf("]}");
	}
	printf("]}\n");
}

static void
print_table(const struct netrun *runs, int nrun, tt_trace_in *in,
    const tt_replay_params *rpp, double cycle_ns, int top)
{
	const tt_trace_stats *st = tt_trace_in_stats(in, tt_trace_in_nfiles(in));
	int k;

	printf("trace: %" PRIu64 " messages, %" PRIu64 " bytes, %.6f s, %zu "
	    "file%s; replayed at ", st->messages, st->bytes,
	    (double)(st->last_ns - st->first_ns) * 1e-9,
	    tt_trace_in_nfiles(in), tt_trace_in_nfiles(in) == 1 ? "" : "s");
	if (rpp->speed > 0)
		printf("speed %g", rpp->speed);
	else
		printf("full speed (time ignored; PEs kept within %" PRIu64
		    " messages of each other)", rpp->lookahead);
	printf(", 1 cycle = %g ns (%d-byte flits at %g Gb/s)\n\n", cycle_ns,
	    rpp->flit_bytes, rpp->link_gbps);
	printf("%-28s %14s %12s %10s %10s %10s %10s %9s %9s\n", "network",
	    "makespan", "cycles", "mean us", "p50 us", "p99 us", "max us",
	    "Gb/s", "int.link");
	for (k = 0; k < nrun; k++) {
		const struct netrun *r = &runs[k];
		const tt_replay_result *rr = &r->rr;
		double us = cycle_ns * 1e-3;
		char ms[32];

		snprintf(ms, sizeof(ms), "%.6f s", (double)r->res.cycles * cycle_ns * 1e-9);
		printf("%-28s %14s %12" PRIu64 " %10.3f %10.3f %10.3f %10.3f %9.2f "
		    "%8.1f%%\n", r->name, ms, r->res.cycles,
		    rr->latency.count ? rr->latency.sum / (double)rr->latency.count * us : 0,
		    (double)tt_hist_quantile(&rr->latency, 0.5) * us,
		    (double)tt_hist_quantile(&rr->latency, 0.99) * us,
		    (double)rr->latency.max * us,
		    r->res.cycles ? (double)rr->bytes * 8.0 /
		    ((double)r->res.cycles * cycle_ns) : 0,
		    100 * r->res.internal_link_utilization);
	}
	for (k = 0; k < nrun; k++) {
		const struct netrun *r = &runs[k];
		uint64_t nl = (uint64_t)r->net.ncards * (uint64_t)r->nports, l, n = 0;
		uint64_t (*order)[2] = malloc(nl * sizeof(*order));
		char nb[96];

		if (order == NULL)
			return;
		for (l = 0; l < nl; l++)
			if ((int)(l % (uint64_t)r->nports) != r->nports - 1) {
				order[n][0] = r->link[l];
				order[n++][1] = l;
			}
		qsort(order, n, sizeof(*order), link_cmp);
		printf("\n%s: %" PRIu64 " messages, %" PRIu64 " packets, %.3f "
		    "hops per packet, accepted load %.4f flits/cycle/PE; "
		    "hottest links:\n", r->name, r->rr.messages,
		    r->res.delivered, r->res.avg_hops, accepted(r, rpp));
		for (l = 0; l < n && l < (uint64_t)top; l++)
			printf("  %-24s %6.1f%% busy (%" PRIu64 " flits)\n",
			    link_name(r, order[l][1], nb, sizeof(nb)),
			    100 * link_util(r, order[l][0]), order[l][0]);
		free(order);
	}
}

/* One series per network: (latency us, share of messages at most that),
 * into a temporary file (gnuplot reads it), so that nothing beside the
 * plot is written or removed. */
static int
write_cdf(char *path, const struct netrun *runs, int nrun, double cycle_ns)
{
	int fd = mkstemps(path, 4), k, q;
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");

	if (f == NULL) {
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		return -1;
	}
	for (k = 0; k < nrun; k++) {
		const tt_hist *h = &runs[k].rr.latency;

		fprintf(f, "# %s\n", runs[k].name);
		for (q = 1; q <= 1000 && h->count; q++) {
			double share = q / 1000.0;

			fprintf(f, "%.6f %.4f\n",
			    (double)tt_hist_quantile(h, share) * cycle_ns * 1e-3,
			    share);
		}
		fprintf(f, "\n\n");
	}
	return fclose(f);
}

static int
is_yaml(const char *a)
{
	size_t len = strlen(a);

	return (len > 5 && strcmp(a + len - 5, ".yaml") == 0) ||
	    (len > 4 && strcmp(a + len - 4, ".yml") == 0);
}

/*
 * A partitioned replay: each rank completed its own PEs' messages, so the
 * counts are summed and the latest cycles taken.  max_pending is the most
 * messages one process held, the largest on any rank: it describes the
 * process's memory, not the network, and shrinks with more ranks.
 */
static void
combine_replay(tt_replay_result *rr)
{
	enum { NF = 7, N = NF + TT_HIST_WORDS };
	static unsigned char max[N];
	uint64_t v[N];

	if (ttsim_comm() == NULL)
		return;
	max[3] = max[4] = max[5] = max[NF + 2] = 1;
	v[0] = rr->messages;
	v[1] = rr->packets;
	v[2] = rr->bytes;
	v[3] = rr->last_done;
	v[4] = rr->last_gen;
	v[5] = rr->max_pending;
	v[6] = rr->packets_window;
	tt_hist_pack(&rr->latency, v + NF);
	tt_sim_combine(ttsim_comm(), v, N, max);
	rr->messages = v[0];
	rr->packets = v[1];
	rr->bytes = v[2];
	rr->last_done = v[3];
	rr->last_gen = v[4];
	rr->max_pending = v[5];
	rr->packets_window = v[6];
	tt_hist_unpack(&rr->latency, v + NF);
}

int
cmd_replay(int argc, char **argv)
{
	const char *cmd = "replay", **paths, *compare = NULL, *v;
	const char *csv_path = NULL, *plot_path = NULL;
	static struct netrun runs[REPLAY_MAX_NETS];
	struct replay_job job;
	tt_replay_params rpp;
	netopts no;
	simopts so;
	tt_addrmap map;
	tt_trace_in *in = NULL;
	tt_msg m;
	size_t np = 0;
	int nrun = 0, i, k, r, x, top = 10, flit_bytes = 0, rc = TTSIM_EXIT_USAGE;
	double gbps = 0, cycle_ns;
	uint64_t u, total = 0;
	uint32_t base_pes = 0;	/* PEs of the network of --dims or the YAML */
	char err[1024];

	memset(&map, 0, sizeof(map));
	memset(&job, 0, sizeof(job));
	netopts_init(&no);
	simopts_init(&so);
	so.cmd = cmd;
	so.model_only = 1;
	tt_replay_params_default(&rpp);
	paths = calloc((size_t)argc, sizeof(*paths));
	if (paths == NULL)
		return TTSIM_EXIT_USAGE;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			replay_usage(stdout);
			free(paths);
			return TTSIM_EXIT_OK;
		}
		if ((a[0] != '-' || strcmp(a, "-") == 0) && !is_yaml(a)) {
			paths[np++] = a;
			continue;
		}
		if (flag_is(a, "--compare") || flag_is(a, "--csv") ||
		    flag_is(a, "--plot")) {
			if ((v = flag_value(argc, argv, &i, cmd)) == NULL)
				goto out;
			if (flag_is(a, "--compare"))
				compare = v;
			else if (flag_is(a, "--csv"))
				csv_path = v;
			else
				plot_path = v;
			continue;
		}
		if (flag_is(a, "--speed") || flag_is(a, "--link-gbps")) {
			int sp = flag_is(a, "--speed");
			char *end;
			double d;

			if ((v = flag_value(argc, argv, &i, cmd)) == NULL)
				goto out;
			if (sp && strcmp(v, "max") == 0) {
				rpp.speed = 0;
				continue;
			}
			d = strtod(v, &end);
			if (*end != '\0' || end == v || !(d > 0) || d > 1e9) {
				fprintf(stderr, "ttsim replay: %s: '%s' is not %s\n",
				    sp ? "--speed" : "--link-gbps", v, sp ?
				    "a speed-up above 0 (e.g. 2) or max" :
				    "a link speed in Gb/s above 0");
				goto out;
			}
			if (sp)
				rpp.speed = d;
			else
				gbps = d;
			continue;
		}
		if (flag_is(a, "--warmup")) {
			if ((v = flag_value(argc, argv, &i, cmd)) == NULL ||
			    parse_u64(cmd, "--warmup", v, 0, 1ull << 40,
			    &rpp.warmup) < 0)
				goto out;
			continue;
		}
		if (flag_is(a, "--flit-bytes") || flag_is(a, "--top") ||
		    flag_is(a, "--lookahead")) {
			const char *name = flag_is(a, "--flit-bytes") ? "--flit-bytes" :
			    flag_is(a, "--top") ? "--top" : "--lookahead";

			if ((v = flag_value(argc, argv, &i, cmd)) == NULL ||
			    parse_u64(cmd, name, v, 1, name[2] == 'l' ?
			    (1ull << 32) : 65536, &u) < 0)
				goto out;
			if (name[2] == 'f')
				flit_bytes = (int)u;
			else if (name[2] == 't')
				top = (int)u;
			else
				rpp.lookahead = u;
			continue;
		}
		if ((r = simopts_take(&so, argc, argv, &i, cmd)) < 0)
			goto out;
		if (r > 0)
			continue;
		if ((r = netopts_take(&no, argc, argv, &i, cmd)) < 0)
			goto out;
		if (r == 0) {
			fprintf(stderr, "ttsim replay: unknown flag '%s' (see "
			    "ttsim replay --help)\n", a);
			goto out;
		}
	}
	if (np == 0) {
		fprintf(stderr, "ttsim replay: give one or more trace files or "
		    "directories (see ttsim replay --help)\n");
		goto out;
	}
	if (ttsim_comm() != NULL && rpp.speed == 0) {
		fprintf(stderr, "ttsim replay: --speed max is for serial runs: "
		    "when the next message is read depends on every PE at "
		    "once, so ranks would not agree; give a speed-up (e.g. "
		    "--speed 100) or run without mpirun\n");
		goto out;
	}
	if (ttsim_comm() != NULL && csv_path != NULL) {
		fprintf(stderr, "ttsim replay: --csv is for serial runs: each "
		    "rank completes its own PEs' messages; run without mpirun "
		    "for per-message output\n");
		goto out;
	}
	if (no.json && csv_path != NULL && strcmp(csv_path, "-") == 0) {
		fprintf(stderr, "ttsim replay: --json and --csv - both want "
		    "standard output; give --csv a file\n");
		goto out;
	}
	if (netopts_finish(&no, cmd) < 0)
		goto out;
	if (no.ports_all) {
		fprintf(stderr, "ttsim replay: --ports all is for analyze and "
		    "sweep; use --compare A,B,... here\n");
		goto out;
	}
	simopts_apply_config(&so, &no.cfg);
	rpp.packet_flits = so.p.packet_flits;
	rpp.flit_bytes = flit_bytes ? flit_bytes : no.cfg.params.flit_bytes;
	rpp.link_gbps = gbps > 0 ? gbps : no.cfg.params.link_gbps;
	cycle_ns = tt_replay_cycle_ns(&rpp);
	if (plot_path != NULL && plot_ready(cmd, plot_path) < 0)
		goto out;

	/* The networks.  Every one must have as many PEs as the network the
	 * trace was given with (flags or YAML): its PE ids are that one's. */
	runs[0].spec = no.spec;
	nrun = 1;
	if (compare != NULL) {
		char buf[1024], *item, *save = NULL;
		tt_net base;

		if (tt_net_init(&base, &no.spec, err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim replay: %s\n", err);
			nrun = 0;
			goto out;
		}
		base_pes = base.ncards;
		nrun = 0;
		snprintf(buf, sizeof(buf), "%s", compare);
		for (item = strtok_r(buf, ",", &save); item != NULL;
		    item = strtok_r(NULL, ",", &save)) {
			tt_netspec *sp;

			if (nrun == REPLAY_MAX_NETS) {
				fprintf(stderr, "ttsim replay: --compare: at most "
				    "%d networks\n", REPLAY_MAX_NETS);
				tt_net_free(&base);
				goto out;
			}
			sp = &runs[nrun].spec;
			if (strcmp(item, "2d") == 0) {
				if (spec_2d(&no.spec, base.ncards, sp) < 0) {
					fprintf(stderr, "ttsim replay: --compare 2d: "
					    "%u PEs make no 2D torus of at least 2x2\n",
					    base.ncards);
					tt_net_free(&base);
					goto out;
				}
			} else if (strchr(item, 'x') != NULL ||
			    strchr(item, ':') != NULL) {
				if (topo_parse(item, &no.spec, sp, cmd,
				    "--compare") < 0) {
					tt_net_free(&base);
					goto out;
				}
			} else {
				*sp = no.spec;
				sp->twin = 1;
				if (tt_netspec_set_ports(sp, item, err,
				    sizeof(err)) < 0) {
					fprintf(stderr, "ttsim replay: --compare %s: "
					    "%s (or use 2d or a topology such as "
					    "16x8:plain)\n", item, err);
					tt_net_free(&base);
					goto out;
				}
			}
			nrun++;
		}
		tt_net_free(&base);
		if (nrun == 0) {
			fprintf(stderr, "ttsim replay: --compare: give networks, "
			    "e.g. D,A,2d\n");
			goto out;
		}
	}
	for (k = 0; k < nrun; k++) {
		char title[128];

		if (tt_net_init(&runs[k].net, &runs[k].spec, err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim replay: network %d: %s\n", k + 1, err);
			nrun = k;
			goto out;
		}
		if (tt_sim_check(&runs[k].net, &so.p, err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim replay: %s: %s\n",
			    net_title(&runs[k].net, title, sizeof(title)), err);
			nrun = k + 1;
			goto out;
		}
		{
			char d[64];
			int di, len = 0;

			for (di = 0; di < runs[k].net.n; di++)
				len += snprintf(d + len, sizeof(d) - (size_t)len,
				    "%s%d", di ? "x" : "", runs[k].net.k[di]);
			if (runs[k].net.twin)
				snprintf(runs[k].name, sizeof(runs[k].name),
				    "%s %dDT %s %s", d, runs[k].net.n,
				    runs[k].net.ports_name,
				    tt_deadlock_name(runs[k].net.deadlock));
			else
				snprintf(runs[k].name, sizeof(runs[k].name),
				    "%s plain %s", d,
				    tt_deadlock_name(runs[k].net.deadlock));
		}
		if (k == 0 && base_pes == 0)
			base_pes = runs[0].net.ncards;
		if (runs[k].net.ncards != base_pes) {
			fprintf(stderr, "ttsim replay: --compare: %s has %u PEs, "
			    "the trace's network (--dims or the YAML file) has "
			    "%u; compare networks of as many PEs\n",
			    runs[k].name, runs[k].net.ncards, base_pes);
			nrun = k + 1;
			goto out;
		}
	}
	if (tt_addrmap_build(&map, &no.cfg, &runs[0].net, stderr) > 0)
		goto out;

	/* Read the whole trace once first: every damaged record is reported
	 * before anything runs, and progress knows the total. */
	if (tt_trace_in_open(&in, paths, np, &map, runs[0].net.ncards, err,
	    sizeof(err)) < 0) {
		fprintf(stderr, "ttsim replay: %s\n", err);
		goto out;
	}
	while ((x = tt_trace_in_next(in, &m, err, sizeof(err))) > 0)
		total++;
	if (x < 0) {
		fprintf(stderr, "ttsim replay: %s\n", err);
		goto out;
	}
	tt_trace_in_warnings(in, stderr, "ttsim replay: warning: ");
	if (total == 0) {
		fprintf(stderr, "ttsim replay: the trace holds no messages "
		    "(%" PRIu64 " records read)\n",
		    tt_trace_in_stats(in, tt_trace_in_nfiles(in))->records);
		goto out;
	}

	{
		const tt_trace_stats *st = tt_trace_in_stats(in, tt_trace_in_nfiles(in));

		/* as fast as possible, message times are known only as they go */
		rpp.window_end = rpp.speed > 0 ? (uint64_t)llround((double)(st->last_ns -
		    st->first_ns) / (cycle_ns * rpp.speed)) + 1 : 0;
		if (rpp.window_end != 0 && rpp.warmup >= rpp.window_end) {
			fprintf(stderr, "ttsim replay: --warmup %" PRIu64 ": the "
			    "trace's messages are generated in cycles 0..%" PRIu64
			    "; warm up for fewer cycles\n", rpp.warmup,
			    rpp.window_end - 1);
			goto out;
		}
	}
	if (csv_path != NULL) {
		if (tt_outfile_open(&job.csv_out, csv_path, err,
		    sizeof(err)) < 0 ||
		    (job.csv = tt_outfile_file(job.csv_out)) == NULL) {
			fprintf(stderr, "ttsim replay: --csv %s\n", job.csv_out ?
			    "out of memory" : err);
			goto out;
		}
		fprintf(job.csv, "network,src,dst,bytes,packets,time_ns,"
		    "gen_cycle,done_cycle,latency_cycles,latency_ns,file,record\n");
	}
	job.cycle_ns = cycle_ns;
	job.total = total;
	job.count = nrun;
	snprintf(job.label, sizeof(job.label), "ttsim replay");
	rc = TTSIM_EXIT_OK;
	for (k = 0; k < nrun; k++) {
		struct netrun *rn = &runs[k];
		tt_trace_in *rin = NULL;
		tt_replay *rp = NULL;
		tt_sim *sim = NULL;
		tt_source src;
		const uint64_t *lf;
		struct timespec t0, t1;

		if (tt_sim_create_part(&sim, &rn->net, &so.p, ttsim_comm(), err,
		    sizeof(err)) < 0 ||
		    tt_trace_in_open(&rin, paths, np, &map, rn->net.ncards, err,
		    sizeof(err)) < 0 ||
		    tt_replay_create(&rp, rin, &rpp, sim, err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim replay: %s\n", err);
			tt_trace_in_close(rin);
			tt_sim_free(sim);
			rc = TTSIM_EXIT_USAGE;
			break;
		}
		job.name = rn->name;
		job.rp = rp;
		job.index = k;
		if (job.csv != NULL)
			tt_replay_on_message(rp, on_message, &job);
		src = tt_replay_source(rp);
		tt_sim_gather_links(sim, 1);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		tt_sim_run(sim, &src, 1, &rn->res, on_progress, &job);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		rn->wall = (double)(t1.tv_sec - t0.tv_sec) +
		    (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
		rn->rr = *tt_replay_result_get(rp);
		combine_replay(&rn->rr);
		lf = tt_sim_link_flits(sim, &rn->nports);
		rn->link = malloc(sizeof(uint64_t) * rn->net.ncards *
		    (size_t)rn->nports);
		if (rn->link != NULL)
			memcpy(rn->link, lf, sizeof(uint64_t) * rn->net.ncards *
			    (size_t)rn->nports);
		if (tt_replay_error(rp, err, sizeof(err)) < 0) {
			progress_clear();
			fprintf(stderr, "ttsim replay: %s\n", err);
			rc = TTSIM_EXIT_USAGE;
		}
		tt_replay_free(rp);
		tt_trace_in_close(rin);
		tt_sim_free(sim);
		if (rn->link == NULL) {
			fprintf(stderr, "ttsim replay: out of memory\n");
			rc = TTSIM_EXIT_USAGE;
		}
		if (rc != TTSIM_EXIT_OK) {
			nrun = k + 1;
			break;
		}
		if (rn->res.deadlock) {
			size_t c;
			char cb[96];

			progress_clear();
			fprintf(stderr, "ttsim replay: %s: deadlock: no flit moved "
			    "for %llu cycles (cycle %llu); the full buffers wait "
			    "on each other in a cycle of %zu channels:\n", rn->name,
			    (unsigned long long)so.p.watchdog,
			    (unsigned long long)rn->res.cycles, rn->res.cycle_len);
			for (c = 0; c < rn->res.cycle_len; c++)
				fprintf(stderr, "  %s\n", tt_chan_name(&rn->net,
				    rn->res.cycle[c], cb, sizeof(cb)));
			rc = TTSIM_EXIT_DEADLOCK;
		}
	}
	progress_clear();
	/* the CSV of a run that failed would be incomplete: keep the old */
	if (job.csv_out != NULL && rc == TTSIM_EXIT_USAGE) {
		tt_outfile_discard(job.csv_out);
	} else if (job.csv_out != NULL &&
	    tt_outfile_close(job.csv_out, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim replay: --csv %s\n", err);
		rc = TTSIM_EXIT_USAGE;
	}
	job.csv_out = NULL;
	job.csv = NULL;
	if (rc == TTSIM_EXIT_USAGE)
		goto out;
	if (no.json)
		print_json(runs, nrun, in, &rpp, cycle_ns);
	else if (csv_path == NULL || strcmp(csv_path, "-") != 0)
		print_table(runs, nrun, in, &rpp, cycle_ns, top);
	if (plot_path != NULL) {
		char data[] = "/tmp/ttsim-replay-XXXXXX.dat";
		const char *names[REPLAY_MAX_NETS];
		char title[256];

		for (k = 0; k < nrun; k++)
			names[k] = runs[k].name;
		snprintf(title, sizeof(title), "message latency, %" PRIu64
		    " messages", total);
		x = write_cdf(data, runs, nrun, cycle_ns);
		if (x == 0) {
			x = plot_cdf(data, names, nrun, "message latency (us)",
			    plot_path, title);
			unlink(data);
		}
		if (x != 0) {
			fprintf(stderr, "ttsim replay: --plot %s failed\n", plot_path);
			rc = TTSIM_EXIT_USAGE;
		} else {
			fprintf(stderr, "ttsim replay: wrote %s\n", plot_path);
		}
	}
out:
	tt_outfile_discard(job.csv_out);
	for (k = 0; k < nrun; k++) {
		tt_simresult_free(&runs[k].res);
		free(runs[k].link);
		runs[k].link = NULL;
		if (runs[k].net.coord != NULL)
			tt_net_free(&runs[k].net);
	}
	tt_trace_in_close(in);
	tt_addrmap_free(&map);
	tt_config_free(&no.cfg);
	free(paths);
	return rc;
}
