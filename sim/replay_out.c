/*
 * ttsim replay's outputs: the table, --json, the --csv file of every
 * message (open loop's rows; replay_causal.c writes causal ones) and the
 * --plot of the latency CDFs, from what the runs left in struct replay.
 * cmd_replay.c has the flags and runs the networks.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "twintorus/json.h"
#include "twintorus/outfile.h"
#include "replay.h"

void
replay_on_message(void *ctx, const tt_msgdone *d)
{
	struct replay_job *j = ctx;
	uint64_t lat = d->done - d->gen;

	fprintf(j->csv, "%s,%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu32 ",%"
	    PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.1f,%" PRIu32 ",%"
	    PRIu64 "\n", j->name, d->m.src, d->m.dst, d->m.bytes, d->packets,
	    d->m.t_ns, d->gen, d->done, lat, (double)lat * j->cycle_ns,
	    d->m.file, d->m.recno);
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

int
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

/* The --csv file closed after the runs (discarded after a failure: it
 * would be incomplete, keep the old); the exit status. */
int
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

/* The workers' --csv lines into the --csv file, network by network. */
int
replay_csv_copy(struct replay *r, FILE *const *csv)
{
	char b[65536];
	size_t n;
	int k;

	for (k = 0; k < r->nrun; k++) {
		rewind(csv[k]);
		while ((n = fread(b, 1, sizeof(b), csv[k])) > 0)
			if (fwrite(b, 1, n, r->job.csv) != n)
				return -1;
		if (ferror(csv[k]))
			return -1;
	}
	return 0;
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

int
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
