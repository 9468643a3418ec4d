/*
 * ttsim replay --causal: flags, the dependency stream (a file, or the
 * inference over the trace as the replay goes) and the results.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "twintorus/json.h"
#include "replay_causal.h"
#include "ttsim.h"

void
causal_opts_init(struct causal_opts *co)
{
	memset(co, 0, sizeof(*co));
	tt_infer_params_default(&co->ip);
}

int
causal_take(struct causal_opts *co, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *v;
	uint64_t u;

	if (strcmp(a, "--causal") == 0) {
		co->on = 1;
		return 1;
	}
	if (flag_is(a, "--deps")) {
		if ((co->deps = flag_value(argc, argv, i, "replay")) == NULL)
			return -1;
		return 1;
	}
	if (flag_is(a, "--burst-gap") || flag_is(a, "--window") ||
	    flag_is(a, "--pause")) {
		const char *name = a[2] == 'b' ? "--burst-gap" : a[2] == 'w' ?
		    "--window" : "--pause";

		if ((v = flag_value(argc, argv, i, "replay")) == NULL ||
		    parse_u64("replay", name, v, a[2] == 'w', 1ull << 50, &u) < 0)
			return -1;
		if (a[2] == 'b')
			co->ip.burst_gap_ns = u;
		else if (a[2] == 'w')
			co->ip.window_ns = u;
		else
			co->ip.pause_ns = u;
		return 1;
	}
	return 0;
}

int
causal_check(const struct causal_opts *co)
{
	tt_deps_reader *r;
	tt_dep d;
	char err[1024];
	int x;

	if (!co->on || co->deps == NULL)
		return 0;
	if (tt_deps_open(&r, co->deps, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim replay: --deps %s\n", err);
		return -1;
	}
	while ((x = tt_deps_read(r, &d, err, sizeof(err))) > 0)
		;
	tt_deps_close_reader(r);
	if (x < 0) {
		fprintf(stderr, "ttsim replay: --deps %s\n", err);
		return -1;
	}
	return 0;
}

int
causal_start(struct causal_run *cr, const struct causal_opts *co,
    const char *const *paths, size_t np, const tt_addrmap *map,
    int no_copies, const tt_replay_params *rpp, tt_sim *sim)
{
	tt_infer_params ip = co->ip;
	tt_dep_stream in;
	char err[1024];

	memset(cr, 0, sizeof(*cr));
	if (co->deps != NULL) {
		if (tt_deps_open(&cr->dr, co->deps, err, sizeof(err)) < 0)
			goto bad;
		in = tt_deps_stream(cr->dr);
	} else {
		ip.npes = tt_sim_pes(sim);
		ip.map = map;
		ip.no_copies = no_copies;
		if (tt_infer_open(&cr->inf, paths, np, &ip, err,
		    sizeof(err)) < 0)
			goto bad;
		in = tt_infer_stream(cr->inf);
	}
	if (tt_causal_create(&cr->c, in, rpp, sim, err, sizeof(err)) < 0)
		goto bad;
	return 0;
bad:
	fprintf(stderr, "ttsim replay: %s%s\n", co->deps != NULL ? "--deps " :
	    "", err);
	causal_free(cr);
	return -1;
}

/* Every rank's counts as one: sums, and the latest or earliest cycles. */
static void
combine(tt_causal_result *r)
{
	enum { NF = 11, N = NF + TT_HIST_WORDS };
	static unsigned char max[N];
	uint64_t v[N];

	if (ttsim_comm() == NULL)
		return;
	max[3] = max[4] = max[5] = max[6] = max[NF + 2] = 1;
	v[0] = r->rr.messages;
	v[1] = r->rr.packets;
	v[2] = r->rr.bytes;
	v[3] = r->rr.last_done;
	v[4] = r->rr.last_gen;
	v[5] = r->rr.max_pending;
	v[6] = UINT64_MAX - r->first_gen;
	v[7] = r->waited;
	v[8] = r->ignored;
	v[9] = r->rr.packets_window;
	v[10] = 0;
	tt_hist_pack(&r->rr.latency, v + NF);
	tt_sim_combine(ttsim_comm(), v, N, max);
	r->rr.messages = v[0];
	r->rr.packets = v[1];
	r->rr.bytes = v[2];
	r->rr.last_done = v[3];
	r->rr.last_gen = v[4];
	r->rr.max_pending = v[5];
	r->first_gen = UINT64_MAX - v[6];
	r->waited = v[7];
	r->ignored = v[8];
	r->rr.packets_window = v[9];
	tt_hist_unpack(&r->rr.latency, v + NF);
}

int
causal_finish(struct causal_run *cr, int warn)
{
	char err[1024];
	int rc = 0;

	cr->res = *tt_causal_result_get(cr->c);
	if (tt_causal_error(cr->c, err, sizeof(err)) < 0) {
		progress_clear();
		fprintf(stderr, "ttsim replay: %s%s\n", cr->dr != NULL ?
		    "--deps " : "", err);
		rc = -1;
	}
	if (warn)
		tt_causal_warnings(cr->c, stderr, "ttsim replay: warning: ");
	if (cr->inf != NULL) {
		cr->ist = *tt_infer_stats_get(cr->inf);
		if (warn)
			tt_infer_warnings(cr->inf, stderr, "ttsim replay: warning: ");
	}
	combine(&cr->res);
	/* every rank read the whole file: the lines are not summed */
	cr->res.lines = tt_causal_result_get(cr->c)->lines;
	return rc;
}

void
causal_free(struct causal_run *cr)
{
	tt_causal_free(cr->c);
	tt_infer_free(cr->inf);
	tt_deps_close_reader(cr->dr);
	cr->c = NULL;
	cr->inf = NULL;
	cr->dr = NULL;
}

void
causal_json(FILE *f, const struct causal_opts *co, const struct causal_run *cr)
{
	const tt_infer_stats *s = &cr->ist;

	fprintf(f, "\"causal\": {\"dependencies\": ");
	if (co->deps != NULL)
		tt_json_string(f, co->deps);
	else
		fprintf(f, "\"inferred\"");
	fprintf(f, ", \"messages\": %" PRIu64 ", \"waited\": %" PRIu64
	    ", \"ignored_predecessors\": %" PRIu64 ", \"first_release_cycle\": %"
	    PRIu64, cr->res.lines, cr->res.waited, cr->res.ignored,
	    cr->res.first_gen);
	if (co->deps == NULL)
		fprintf(f, ", \"burst_gap_ns\": %" PRIu64 ", \"frames\": %" PRIu64
		    ", \"deliveries\": %" PRIu64 ", \"grouped\": %" PRIu64
		    ", \"predecessors\": %" PRIu64 ", \"transport\": {\"tcp_acks\": "
		    "%" PRIu64 ", \"tcp_control\": %" PRIu64 ", \"arp\": %" PRIu64
		    ", \"nd\": %" PRIu64 "}, \"lost_sends\": %" PRIu64
		    ", \"undelivered\": %" PRIu64 ", \"passed_over\": %" PRIu64
		    ", \"cycles_broken\": %" PRIu64, co->ip.burst_gap_ns, s->frames,
		    s->deliveries, s->grouped, s->predecessors, s->tcp_acks,
		    s->tcp_control, s->arp, s->nd, s->lost_sends, s->undelivered,
		    s->passed_over, s->cycles_broken);
	fprintf(f, "}");
}

void
causal_table(FILE *f, const struct causal_opts *co, const struct causal_run *cr)
{
	const tt_infer_stats *s = &cr->ist;

	fprintf(f, "causal replay: %" PRIu64 " messages, each released when "
	    "its predecessors have arrived and its compute gap has passed; "
	    "dependencies ", cr->res.lines);
	if (co->deps != NULL) {
		fprintf(f, "from %s\n", co->deps);
		return;
	}
	fprintf(f, "inferred: %" PRIu64 " predecessors from %" PRIu64
	    " frames (%" PRIu64 " grouped into messages); set aside %" PRIu64
	    " TCP ACKs, %" PRIu64 " SYN/FIN/RST, %" PRIu64 " ARP, %" PRIu64
	    " ND\n", s->predecessors, s->frames, s->grouped, s->tcp_acks,
	    s->tcp_control, s->arp, s->nd);
}
