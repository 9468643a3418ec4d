/*
 * ttsim replay: run a recorded trace through one or more networks and
 * predict how long it takes and what its messages see (twintorus/replay.h).
 */
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "twintorus/json.h"
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
	    tt_net_port_name(&r->net, r->net.card_port[side][i], pn,
	    sizeof(pn)));
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
	return (double)r->rr.packets_window * rpp->net.packet_flits /
	    ((double)(end - rpp->warmup) * r->net.ncards);
}

/* A packet trace's part of --json's trace object. */
static void
json_packet_trace(const struct replay *r)
{
	tt_trace_in *in = r->in;
	const tt_trace_stats *st = tt_trace_in_stats(in, tt_trace_in_nfiles(in));
	size_t i;

	tt_json_begin(stdout, TT_JSON_SCHEMA_REPLAY);
	printf(", \"trace\": {\"files\": [");
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
}

/* The trace's part of --json. */
static void
json_trace(const struct replay *r)
{
	const tt_replay_params *rpp = &r->rpp;

	if (r->mpi_path != NULL)
		mpi_json_trace(stdout, r);
	else
		json_packet_trace(r);
	if (r->causal.on) {
		printf(", ");
		causal_json(stdout, r);
	}
	printf(", \"speed\": ");
	if (r->causal.on)
		printf("null");
	else if (rpp->speed > 0)
		printf("%g", rpp->speed);
	else
		printf("\"max\"");
	printf(", \"lookahead\": %" PRIu64 ", \"cycle_ns\": %g, \"link_gbps\": %g"
	    ", \"flit_bytes\": %d, \"packet_flits\": %d, \"networks\": [",
	    rpp->lookahead, r->cycle_ns, rpp->net.link_gbps, rpp->net.flit_bytes,
	    rpp->net.packet_flits);
}

/* Is link l of r an output to the card's own PE, or a port without a
 * link (a generated network's node of lower degree): not a link? */
static int
pe_port(const struct netrun *r, uint64_t l)
{
	int i = (int)(l % (uint64_t)r->nports);

	return i == r->nports - 1 || (!tt_net_is_torus(&r->net) &&
	    !tt_net_has_link(&r->net, (uint32_t)(l / (uint64_t)r->nports), i));
}

/* The share of the flits on links that crossed internal links. */
static double
internal_share(const struct netrun *r)
{
	uint64_t nl = (uint64_t)r->net.ncards * (uint64_t)r->nports, l;
	uint64_t ext = 0, intl = 0;
	int side, port;

	for (l = 0; l < nl; l++) {
		if (pe_port(r, l))
			continue;
		side = r->net.twin ? (int)((l / (uint64_t)r->nports) & 1) : 0;
		port = r->net.card_port[side][l % (uint64_t)r->nports];
		if (port == TT_PORT_INT)
			intl += r->link[l];
		else
			ext += r->link[l];
	}
	return ext + intl ? (double)intl / (double)(ext + intl) : 0;
}

static void
json_latency(const tt_hist *h, double cycle_ns)
{
	double mean = h->count ? h->sum / (double)h->count : 0;
	double us = cycle_ns * 1e-3;

	printf(", \"latency_cycles\": {\"mean\": %.3f, \"p50\": %" PRIu64
	    ", \"p99\": %" PRIu64 ", \"max\": %" PRIu64 "}", mean,
	    tt_hist_quantile(h, 0.5), tt_hist_quantile(h, 0.99), h->max);
	printf(", \"latency_us\": {\"mean\": %.4f, \"p50\": %.4f, \"p99\": "
	    "%.4f, \"max\": %.4f}", mean * us,
	    (double)tt_hist_quantile(h, 0.5) * us,
	    (double)tt_hist_quantile(h, 0.99) * us, (double)h->max * us);
}

/* What a causal prediction rests on: the critical path's recorded
 * compute and simulated network, as shares of the makespan. */
static void
json_critical_path(const struct netrun *r, double cycle_ns)
{
	double c = tt_causal_compute_share(&r->cr.res);

	if (c < 0) {
		printf(", \"critical_path\": null");
		return;
	}
	printf(", \"critical_path\": {\"compute_share\": %.6f, "
	    "\"network_share\": %.6f, \"compute_s\": %.9f, "
	    "\"network_s\": %.9f}", c, 1 - c,
	    c * (double)r->makespan * cycle_ns * 1e-9,
	    (1 - c) * (double)r->makespan * cycle_ns * 1e-9);
}

static void
json_network(const struct netrun *r, int first, int causal)
{
	const tt_replay_params *rpp = &r->rpp;
	double cycle_ns = r->cycle_ns;
	const tt_replay_result *rr = &r->rr;
	uint64_t nl = (uint64_t)r->net.ncards * (uint64_t)r->nports, l;
	const char *sep;
	char nb[96];

	printf("%s{\"name\": ", first ? "" : ", ");
	tt_json_string(stdout, r->name);
	printf(", ");
	json_net_fields(stdout, &r->net, "scheme");
	printf(", \"pes\": %" PRIu32 ", \"makespan_cycles\": %" PRIu64
	    ", \"makespan_s\": %.9f, \"messages_delivered\": %" PRIu64
	    ", \"packets_delivered\": %" PRIu64 ", \"bytes_delivered\": %"
	    PRIu64, r->net.ncards, r->makespan,
	    (double)r->makespan * cycle_ns * 1e-9, rr->messages,
	    r->res.delivered, rr->bytes);
	json_latency(&rr->latency, cycle_ns);
	if (causal)
		json_critical_path(r, cycle_ns);
	printf(", \"throughput_gbps\": %.4f, \"accepted_load\": %.6f"
	    ", \"window_cycles\": [%" PRIu64 ", %" PRIu64 "]"
	    ", \"avg_hops\": %.4f, \"internal_link_utilization\": %.6f",
	    r->res.cycles ? (double)rr->bytes * 8.0 /
	    ((double)r->res.cycles * cycle_ns) : 0,
	    accepted(r, rpp), rpp->warmup, window_end(r, rpp),
	    r->res.avg_hops, r->res.internal_link_utilization);
	printf(", \"internal_flit_share\": %.6f, \"deadlock\": %s"
	    ", \"max_pending\": %" PRIu64 ", \"wall_s\": %.3f",
	    internal_share(r), r->res.deadlock ? "true" : "false",
	    rr->max_pending, r->wall);
	model_json(stdout, &r->model, &r->mc);
	printf(", \"links\": [");
	for (l = 0, sep = ""; l < nl; l++) {
		if (pe_port(r, l))
			continue;
		printf("%s{\"link\": ", sep);
		sep = ", ";
		tt_json_string(stdout, link_name(r, l, nb, sizeof(nb)));
		printf(", \"flits\": %" PRIu64 ", \"utilization\": %.6f}",
		    r->link[l], link_util(r, r->link[l]));
	}
	printf("]}");
}

static void
print_json(const struct replay *r)
{
	int k;

	json_trace(r);
	for (k = 0; k < r->nrun; k++)
		json_network(&r->runs[k], k == 0, r->causal.on);
	printf("]}\n");
}

static void
table_network(const struct netrun *r, double cycle_ns)
{
	const tt_replay_result *rr = &r->rr;
	double us = cycle_ns * 1e-3;
	char ms[32];

	snprintf(ms, sizeof(ms), "%.6f s", (double)r->makespan * cycle_ns * 1e-9);
	printf("%-28s %14s %12" PRIu64 " %10.3f %10.3f %10.3f %10.3f %9.2f "
	    "%8.1f%%\n", r->name, ms, r->makespan,
	    rr->latency.count ? rr->latency.sum / (double)rr->latency.count * us : 0,
	    (double)tt_hist_quantile(&rr->latency, 0.5) * us,
	    (double)tt_hist_quantile(&rr->latency, 0.99) * us,
	    (double)rr->latency.max * us,
	    r->res.cycles ? (double)rr->bytes * 8.0 /
	    ((double)r->res.cycles * cycle_ns) : 0,
	    100 * r->res.internal_link_utilization);
}

/* What each causal prediction rests on (json_critical_path()). */
static void
table_critical_paths(const struct replay *r)
{
	int k;

	printf("\ncritical path (first release to last arrival):\n");
	for (k = 0; k < r->nrun; k++) {
		double c = tt_causal_compute_share(&r->runs[k].cr.res);

		if (c < 0)
			printf("  %-28s not known (a partitioned run)\n",
			    r->runs[k].name);
		else
			printf("  %-28s %5.1f%% recorded compute, %5.1f%% "
			    "simulated network%s\n", r->runs[k].name, 100 * c,
			    100 * (1 - c), c > 0.9 ? ": the prediction is "
			    "mostly the recording's own gaps" : "");
	}
}

/* The top hottest links of r. */
static void
table_links(const struct netrun *r, const tt_replay_params *rpp, int top)
{
	uint64_t nl = (uint64_t)r->net.ncards * (uint64_t)r->nports, l, n = 0;
	uint64_t (*order)[2] = malloc(nl * sizeof(*order));
	char nb[96];

	if (order == NULL)
		return;
	for (l = 0; l < nl; l++)
		if (!pe_port(r, l)) {
			order[n][0] = r->link[l];
			order[n++][1] = l;
		}
	qsort(order, n, sizeof(*order), link_cmp);
	printf("\n%s: %" PRIu64 " messages, %" PRIu64 " packets, %.3f hops per "
	    "packet, accepted load %.4f flits/cycle/PE; hottest links:\n",
	    r->name, r->rr.messages, r->res.delivered, r->res.avg_hops,
	    accepted(r, rpp));
	for (l = 0; l < n && l < (uint64_t)top; l++)
		printf("  %-24s %6.1f%% busy (%" PRIu64 " flits)\n",
		    link_name(r, order[l][1], nb, sizeof(nb)),
		    100 * link_util(r, order[l][0]), order[l][0]);
	free(order);
}

static void
table_trace(const struct replay *r)
{
	tt_trace_in *in = r->in;
	const tt_trace_stats *st;

	if (r->mpi_path != NULL) {
		mpi_table_trace(stdout, r);
		return;
	}
	st = tt_trace_in_stats(in, tt_trace_in_nfiles(in));
	printf("trace: %" PRIu64 " messages, %" PRIu64 " bytes, %.6f s, %zu "
	    "file%s; replayed ", st->messages, st->bytes,
	    (double)(st->last_ns - st->first_ns) * 1e-9,
	    tt_trace_in_nfiles(in), tt_trace_in_nfiles(in) == 1 ? "" : "s");
}

static void
print_table(const struct replay *r)
{
	const tt_replay_params *rpp = &r->rpp;
	int k;

	table_trace(r);
	if (r->causal.on)
		printf("causally");
	else if (rpp->speed > 0)
		printf("at speed %g", rpp->speed);
	else
		printf("at full speed (time ignored; PEs kept within %" PRIu64
		    " messages of each other)", rpp->lookahead);
	printf(", 1 cycle = %g ns (%d-byte flits at %g Gb/s)\n", r->cycle_ns,
	    rpp->net.flit_bytes, rpp->net.link_gbps);
	if (r->causal.on)
		causal_table(stdout, r);
	printf("\n%-28s %14s %12s %10s %10s %10s %10s %9s %9s\n", "network",
	    "makespan", "cycles", "mean us", "p50 us", "p99 us", "max us",
	    "Gb/s", "int.link");
	for (k = 0; k < r->nrun; k++)
		table_network(&r->runs[k], r->runs[k].cycle_ns);
	if (r->causal.on)
		table_critical_paths(r);
	for (k = 0; k < r->nrun; k++)
		table_links(&r->runs[k], &r->runs[k].rpp, r->top);
}

/* One series per network: (latency us, share of messages at most that),
 * into a temporary file (gnuplot reads it), so that nothing beside the
 * plot is written or removed. */
static int
write_cdf(char *path, size_t pathsz, const struct netrun *runs, int nrun)
{
	int fd = tt_outfile_temp(path, pathsz, "replay", ".dat"), k, q;
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");

	if (f == NULL) {
		if (fd >= 0) {
			close(fd);
			tt_outfile_temp_remove(path);
		}
		return -1;
	}
	for (k = 0; k < nrun; k++) {
		const tt_hist *h = &runs[k].rr.latency;

		fprintf(f, "# %s\n", runs[k].name);
		for (q = 1; q <= 1000 && h->count; q++) {
			double share = q / 1000.0;

			fprintf(f, "%.6f %.4f\n",
			    (double)tt_hist_quantile(h, share) *
			    runs[k].cycle_ns * 1e-3,
			    share);
		}
		fprintf(f, "\n\n");
	}
	return fclose(f);
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
	OPT_VAL("speed", OPT_REPLAY_SPEED, "X|max",
	    "trace time divided by X (2: twice as fast; default 1); max: every "
	    "PE sends its messages back to back, the PEs kept within "
	    "--lookahead messages of each other in trace order (the result "
	    "depends on it)"),
	OPT_VALDEF("lookahead", OPT_REPLAY_LOOKAHEAD, "N",
	    "messages read ahead of the simulation: memory holds these and "
	    "what is in flight, not the whole trace",
	    TT_REPLAY_LOOKAHEAD_DEFAULT),
	OPT_VAL("warmup", OPT_REPLAY_WARMUP, "N",
	    "measure from cycle N: accepted load counts packets that arrive "
	    "from then until the last message is generated, latency the "
	    "messages generated in that window (default 0)"),
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
		{inferopts_flags, 0, inferopts_take, &r->causal.ip},
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
	if (simopts_resolve(&r->sim, &r->net.cfg, &r->link) < 0)
		return -1;
	r->rpp.net.packet_flits = r->sim.p.net.packet_flits;
	r->rpp.net.flit_bytes = r->sim.model.flit_bytes;
	r->rpp.net.link_gbps = r->sim.model.link_gbps;
	r->cycle_ns = tt_cycle_ns(r->rpp.net.flit_bytes, r->rpp.net.link_gbps);
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
	rn->rpp.net.packet_flits = rn->p.net.packet_flits;
	rn->rpp.net.flit_bytes = rn->model.flit_bytes;
	rn->rpp.net.link_gbps = rn->model.link_gbps;
	rn->cycle_ns = tt_cycle_ns(rn->rpp.net.flit_bytes, rn->rpp.net.link_gbps);
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
	char err[1024], title[128];
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
		if (replay_model(r, rn) < 0)
			return -1;
		if (tt_sim_check(&rn->net, &rn->p, err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim replay: %s: %s\n",
			    net_title(&rn->net, title, sizeof(title)), err);
			return -1;
		}
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
		return mpi_scan(r) < 0 ? -1 : replay_window(r);
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

static int
replay_csv_open(struct replay *r)
{
	struct replay_job *j = &r->job;
	char err[1024];

	j->cycle_ns = r->cycle_ns;
	j->total = r->total;
	j->count = r->nrun;
	snprintf(j->label, sizeof(j->label), "ttsim replay");
	if (r->csv_path == NULL)
		return 0;
	j->csv_path = r->csv_path;
	if (tt_outfile_open(&j->csv_out, r->csv_path, err, sizeof(err)) < 0 ||
	    (j->csv = tt_outfile_file(j->csv_out)) == NULL) {
		fprintf(stderr, "ttsim replay: --csv %s\n", j->csv_out ?
		    "out of memory" : err);
		return -1;
	}
	fprintf(j->csv, "network,src,dst,bytes,packets,time_ns,gen_cycle,"
	    "done_cycle,latency_cycles,latency_ns,%s\n",
	    causal_csv_columns(&r->causal));
	return 0;
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
		tt_replay_on_message(rp, on_message, &r->job);
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

/* The --csv file closed after the runs (discarded after a failure: it
 * would be incomplete, keep the old); the exit status. */
static int
replay_csv_close(struct replay *r, int rc)
{
	char err[1024];

	progress_clear();
	if (r->job.csv_out != NULL && rc == TTSIM_EXIT_USAGE) {
		tt_outfile_discard(r->job.csv_out);
	} else if (r->job.csv_out != NULL &&
	    tt_outfile_close(r->job.csv_out, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim replay: --csv %s\n", err);
		rc = TTSIM_EXIT_USAGE;
	}
	r->job.csv_out = NULL;
	r->job.csv = NULL;
	return rc;
}

/* Every network in turn; then the --csv file closed. */
static int
replay_run(struct replay *r)
{
	int k, one, rc = TTSIM_EXIT_OK, n = r->nrun;

	for (k = 0; k < n; k++) {
		r->nrun = k + 1;
		one = replay_one(r, k);
		if (one != TTSIM_EXIT_OK)
			rc = one;
		if (one == TTSIM_EXIT_USAGE)
			break;
	}
	return replay_csv_close(r, rc);
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
	FILE *csv[REPLAY_MAX_NETS];
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

	if (len < sizeof(nr))
		goto bad;
	memcpy(&nr, buf, sizeof(nr));
	if (nr.nports <= 0 || nr.nlink != (uint64_t)rn->net.ncards *
	    (uint64_t)nr.nports || nr.ncycle > len || len - sizeof(nr) !=
	    sizeof(uint64_t) * (nr.ncycle + nr.nlink))
		goto bad;
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

/* The workers' --csv lines into the --csv file, network by network. */
static int
net_csv_copy(struct replay *r, struct replay_task *t)
{
	char b[65536];
	size_t n;
	int k;

	for (k = 0; k < r->nrun; k++) {
		rewind(t->csv[k]);
		while ((n = fread(b, 1, sizeof(b), t->csv[k])) > 0)
			if (fwrite(b, 1, n, r->job.csv) != n)
				return -1;
		if (ferror(t->csv[k]))
			return -1;
	}
	return 0;
}

/* The networks' workers, --jobs at a time: exit status so far. */
static int
replay_jobs_run(struct replay *r, struct replay_task *t)
{
	char *buf, label[64];
	size_t len;
	jobs *j;
	int k, one, next = 0, done = 0, rc = TTSIM_EXIT_OK;

	if (jobs_open(&j, r->jobs, "replay") < 0)
		return TTSIM_EXIT_USAGE;
	while (done < r->nrun) {
		while (next < r->nrun && jobs_idle(j) > 0)
			if (jobs_start(j, net_task, t, next++) < 0)
				goto fail;
		if (jobs_wait(j, &k, &buf, &len) < 0)
			goto fail;
		one = net_record(r, k, buf, len);
		free(buf);
		if (one < 0)
			goto fail;
		if (one != TTSIM_EXIT_OK)
			rc = one;
		done++;
		snprintf(label, sizeof(label), "ttsim replay, %d/%d networks",
		    done, r->nrun);
		progress_show(label, (double)done / r->nrun);
	}
	jobs_close(j);
	return rc;
fail:
	jobs_close(j);
	return TTSIM_EXIT_USAGE;
}

static int
replay_run_jobs(struct replay *r)
{
	struct replay_task t;
	int k, rc = TTSIM_EXIT_OK;

	memset(&t, 0, sizeof(t));
	t.r = r;
	for (k = 0; k < r->nrun && r->job.csv != NULL; k++)
		if ((t.csv[k] = tmpfile()) == NULL) {
			fprintf(stderr, "ttsim replay: --csv: a temporary "
			    "file: %s\n", strerror(errno));
			rc = TTSIM_EXIT_USAGE;
			break;
		}
	progress_show("ttsim replay", 0);
	if (rc == TTSIM_EXIT_OK)
		rc = replay_jobs_run(r, &t);
	if (rc != TTSIM_EXIT_USAGE && r->job.csv != NULL &&
	    net_csv_copy(r, &t) < 0) {
		fprintf(stderr, "ttsim replay: --csv: %s\n", strerror(errno));
		rc = TTSIM_EXIT_USAGE;
	}
	for (k = 0; k < r->nrun; k++)
		if (t.csv[k] != NULL)
			fclose(t.csv[k]);
	return replay_csv_close(r, rc);
}

/* Under MPI, whole networks: rank r's, each a record (int k, size_t
 * length, net_task()'s result), into mine.  0, or -1 after a message. */
static int
mpi_mine(struct replay *r, const tt_sim_comm *cm, char **mine, size_t *ml)
{
	struct replay_task t;
	FILE *f = open_memstream(mine, ml);
	char *buf = NULL;
	size_t len = 0;
	FILE *one;
	int k, rc = 0;

	memset(&t, 0, sizeof(t));
	t.r = r;
	if (f == NULL)
		return -1;
	for (k = cm->rank; k < r->nrun && rc == 0; k += cm->nranks) {
		if ((one = open_memstream(&buf, &len)) == NULL) {
			rc = -1;
			break;
		}
		rc = net_task(&t, k, one);
		if (fclose(one) != 0)
			rc = -1;
		if (rc == 0 && (fwrite(&k, sizeof(k), 1, f) != 1 ||
		    fwrite(&len, sizeof(len), 1, f) != 1 ||
		    fwrite(buf, 1, len, f) != len))
			rc = -1;
		free(buf);
		buf = NULL;
	}
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

/* The ranks' records into the networks; the exit status. */
static int
mpi_records(struct replay *r, const tt_sim_comm *cm, const char *p,
    uint64_t len)
{
	size_t hdr = sizeof(int) + sizeof(size_t), l;
	int k, one, rc = TTSIM_EXIT_OK;

	while (len > 0) {
		if (len < hdr)
			return TTSIM_EXIT_USAGE;
		memcpy(&k, p, sizeof(k));
		memcpy(&l, p + sizeof(k), sizeof(l));
		if (l > len - hdr || k < 0 || k >= r->nrun ||
		    (one = net_record(r, k, p + hdr, l)) < 0)
			return TTSIM_EXIT_USAGE;
		/* a deadlock found on another rank, told by rank 0 */
		if (one == TTSIM_EXIT_DEADLOCK && k % cm->nranks != 0)
			replay_deadlock(&r->runs[k], &r->runs[k].p);
		if (one != TTSIM_EXIT_OK)
			rc = one;
		p += hdr + l;
		len -= hdr + l;
	}
	return rc;
}

/*
 * Under MPI with at least as many networks as ranks: network k on rank k
 * mod ranks, whole, then every result to every rank (rank 0 prints).
 * Fewer, and each is shared by the ranks in turn (replay_run()).
 */
static int
replay_run_mpi(struct replay *r)
{
	const tt_sim_comm *cm = ttsim_comm();
	uint64_t bad, *cnt, off = 0;
	char *mine = NULL, *all;
	size_t ml = 0;
	int k, one, rc = TTSIM_EXIT_OK;

	r->sim.whole = 1;
	bad = mpi_mine(r, cm, &mine, &ml) < 0 ? (uint64_t)cm->rank + 1 : 0;
	r->sim.whole = 0;
	cm->allreduce(cm->ctx, &bad, 1, TT_SIM_MAX);
	if (bad > 1)
		fprintf(stderr, "ttsim replay: a network failed on rank %d "
		    "(only rank 0 prints: replay it alone to see why)\n",
		    (int)bad - 1);
	if (bad == 0 && jobs_allgather(mine, ml, &all, &cnt) == 0) {
		for (k = 0; k < cm->nranks && rc != TTSIM_EXIT_USAGE; k++) {
			one = mpi_records(r, cm, all + off, cnt[k]);
			if (one != TTSIM_EXIT_OK)
				rc = one;
			off += cnt[k];
		}
		free(all);
		free(cnt);
	} else {
		rc = TTSIM_EXIT_USAGE;
	}
	free(mine);
	return replay_csv_close(r, rc);
}

/* Every network: one at a time, on --jobs workers, or over MPI ranks. */
static int
replay_all(struct replay *r)
{
	const tt_sim_comm *cm = ttsim_comm();

	if (cm != NULL)
		return r->nrun >= cm->nranks && cm->nranks > 1 ?
		    replay_run_mpi(r) : replay_run(r);
	return r->jobs > 1 && r->nrun > 1 ? replay_run_jobs(r) : replay_run(r);
}

static int
replay_plot(const struct replay *r)
{
	const char *names[REPLAY_MAX_NETS];
	char data[PATH_MAX], title[256];
	int k, x;

	for (k = 0; k < r->nrun; k++)
		names[k] = r->runs[k].name;
	snprintf(title, sizeof(title), "message latency, %" PRIu64 " messages",
	    r->total);
	x = write_cdf(data, sizeof(data), r->runs, r->nrun);
	if (x == 0) {
		x = plot_cdf(data, names, r->nrun, "message latency (us)",
		    r->plot_path, title);
		tt_outfile_temp_remove(data);
	}
	if (x != 0) {
		fprintf(stderr, "ttsim replay: --plot %s failed\n", r->plot_path);
		return -1;
	}
	fprintf(stderr, "ttsim replay: wrote %s\n", r->plot_path);
	return 0;
}

static int
replay_report(const struct replay *r)
{
	if (r->out.json)
		print_json(r);
	else if (r->csv_path == NULL || strcmp(r->csv_path, "-") != 0)
		print_table(r);
	if (r->plot_path != NULL && replay_plot(r) < 0)
		return -1;
	return 0;
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
