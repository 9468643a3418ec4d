/*
 * ttsim replay of an MPI-level trace (twintorus/mpitrace.h): alone,
 * causally, with the dependencies of its own calls.  Which path is one,
 * the flags that do not go with it, the trace read and converted once
 * before anything runs, and what the output says of it.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "twintorus/json.h"
#include "replay.h"

const char *
mpi_path(const char **paths, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (tt_mpi_trace_is(paths[i]))
			return paths[i];
	return NULL;
}

/* An MPI-level trace replays alone and causally, with the dependencies
 * of its own calls: nothing to infer, no file of them, no open loop. */
int
mpi_conflicts(const struct replay *r)
{
	const char *p = r->mpi_path;
	struct causal_opts co;
	tt_infer_params d;

	if (r->npaths > 1) {
		fprintf(stderr, "ttsim replay: %s is an MPI-level trace: replay "
		    "it alone\n", p);
		return -1;
	}
	if (r->causal.deps != NULL) {
		fprintf(stderr, "ttsim replay: --deps: %s is an MPI-level trace, "
		    "whose calls give the dependencies; drop --deps\n", p);
		return -1;
	}
	/* --recorded-model fits the hosts here (mpi_fit_host()): the
	 * turnaround it set for the inference is not a flag given */
	co = r->causal;
	tt_infer_params_default(&d);
	co.ip.turnaround_ns = d.turnaround_ns;
	if (causal_infer_flags_given(&co) || co.turnaround_given) {
		fprintf(stderr, "ttsim replay: --burst-gap, --ack-turn, --pause, --window "
		    "and --turnaround tune the inference over packet traces; %s "
		    "is an MPI-level trace, whose calls give the dependencies\n",
		    p);
		return -1;
	}
	if (r->open_loop_flag != NULL) {
		fprintf(stderr, "ttsim replay: %s is open loop's; %s is an "
		    "MPI-level trace, which replays causally (it records calls, "
		    "not when messages crossed a wire)\n", r->open_loop_flag,
		    p);
		return -1;
	}
	return 0;
}

/* An MPI-level trace read whole and converted once: a receive without
 * its send, a deadlock, more ranks than PEs are refused before anything
 * runs. */
int
mpi_scan(struct replay *r)
{
	const char *pl = r->causal.placement;
	uint32_t pes = r->runs[0].net.ncards;
	char err[1024];

	if (tt_mpi_trace_read(&r->mpi, r->mpi_path, r->ti_flops, err,
	    sizeof(err)) < 0) {
		fprintf(stderr, "ttsim replay: %s\n", err);
		return -1;
	}
	if (tt_mpi_totals_get(&r->mpi, &r->mtot, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim replay: %s: %s\n", r->mpi_path, err);
		return -1;
	}
	r->total = r->mtot.messages;
	if (r->total == 0) {
		fprintf(stderr, "ttsim replay: %s: the trace holds no messages "
		    "(%" PRIu32 " ranks)\n", r->mpi_path, r->mpi.nranks);
		return -1;
	}
	/* a placement file may put several ranks on one PE */
	if ((pl == NULL || strcmp(pl, "linear") == 0 ||
	    strncmp(pl, "random:", 7) == 0) && r->mpi.nranks > pes) {
		fprintf(stderr, "ttsim replay: %s has %" PRIu32 " ranks, the "
		    "network %" PRIu32 " PEs; replay on a network of at least "
		    "as many PEs (--dims), or place the ranks with "
		    "--placement FILE\n", r->mpi_path, r->mpi.nranks, pes);
		return -1;
	}
	return 0;
}

/* The trace object of --json: its totals. */
void
mpi_json_trace(FILE *f, const struct replay *r)
{
	const tt_mpi_trace *t = &r->mpi;
	const tt_mpi_totals *tot = &r->mtot;

	tt_json_begin(f, TT_JSON_SCHEMA_REPLAY);
	fprintf(f, ", \"trace\": {\"files\": [");
	tt_json_string(f, r->mpi_path);
	fprintf(f, "], \"format\": ");
	tt_json_string(f, t->format);
	fprintf(f, ", \"ranks\": %" PRIu32 ", \"messages\": %" PRIu64
	    ", \"bytes\": %" PRIu64 ", \"p2p_messages\": %" PRIu64
	    ", \"p2p_bytes\": %" PRIu64 ", \"collectives\": %" PRIu64
	    ", \"recorded_span_s\": ", t->nranks, tot->messages, tot->bytes,
	    tot->p2p_messages, tot->p2p_bytes, tot->collectives);
	if (t->timed)
		fprintf(f, "%.9f", (double)t->span_ns * 1e-9);
	else
		fprintf(f, "null");
	fprintf(f, ", \"recorded_message_span_s\": ");
	if (t->timed && t->msg_span_ns > 0)
		fprintf(f, "%.9f", (double)t->msg_span_ns * 1e-9);
	else
		fprintf(f, "null");
	fprintf(f, ", \"compute_s\": %.9f", (double)tot->compute_ns * 1e-9);
	if (r->fit.done) {
		fprintf(f, ", \"host_fit\": {\"recorded_model\": ");
		tt_json_string(f, r->causal.recorded_model);
		fprintf(f, ", \"host_ns\": %.0f, \"recorded_message_span_s\": "
		    "%.9f, \"replayed_s\": %.9f, \"without_host_s\": %.9f, "
		    "\"floor_ns\": %.0f, \"floored\": %s, \"replays\": %d}",
		    r->fit.host_ns, r->fit.span_s, r->fit.makespan_s,
		    r->fit.bare_s, r->fit.floor_ns,
		    r->fit.floored ? "true" : "false", r->fit.replays);
	}
	fprintf(f, "}");
}

/* The table's first words on the trace. */
void
mpi_table_trace(FILE *f, const struct replay *r)
{
	fprintf(f, "trace: %s (%s), %" PRIu32 " ranks, %" PRIu64 " messages "
	    "(%" PRIu64 " point to point, the rest from %" PRIu64 " collective "
	    "calls), %" PRIu64 " bytes", r->mpi_path, r->mpi.format,
	    r->mpi.nranks, r->mtot.messages, r->mtot.p2p_messages,
	    r->mtot.collectives, r->mtot.bytes);
	if (r->mpi.timed)
		fprintf(f, ", %.6f s recorded", (double)r->mpi.span_ns * 1e-9);
	if (r->mpi.timed && r->mpi.msg_span_ns > 0)
		fprintf(f, " (%.6f s from the first message sent to the last "
		    "received)", (double)r->mpi.msg_span_ns * 1e-9);
	if (r->fit.done)
		fprintf(f, "; the hosts' turnaround fitted on %s: %.1f us a "
		    "packet (the recorded span replayed there in %.6f s, "
		    "%.6f s without host time; %d replays%s)",
		    r->causal.recorded_model, r->fit.host_ns * 1e-3,
		    r->fit.makespan_s, r->fit.bare_s, r->fit.replays,
		    r->fit.floored ? "; the model's own host_ns, which the "
		    "fit fell below" : "");
	fprintf(f, "; replayed ");
}

/* The recorded hardware: the command's network and cluster file with
 * --recorded-model's file as its model, no model flag over it.  Then the
 * trace replayed on it with the hosts' turnaround h: its makespan in ns,
 * or -1 after a message. */
static double
fit_run(struct replay *r, struct netrun *fr, double h)
{
	simopts o = r->sim0;
	char err[512];
	int rc;

	o.model_file = r->causal.recorded_model;
	tt_model_init(&o.model_flags);
	o.model_flags.host_ns = h;
	o.model_flags.set = TT_MODEL_HOST_NS;
	if (simopts_resolve(&o, &r->net.cfg, NULL) < 0)
		return -1;
	fr->p = o.p;
	fr->model = o.model;
	fr->mc = o.mc;
	fr->rpp = r->rpp;
	fr->cycle_ns = replay_rpp_set(&fr->rpp, &fr->p, &fr->model);
	if (tt_sim_check(&fr->net, &fr->p, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim replay: --recorded-model %s: %s\n",
		    o.model_file, err);
		return -1;
	}
	rc = causal_replay_net(r, fr, 0, 1);
	free(fr->link);
	fr->link = NULL;
	r->fit.replays++;
	if (rc != TTSIM_EXIT_OK) {
		fprintf(stderr, "ttsim replay: --recorded-model %s: the replay "
		    "on the recorded hardware failed (above)\n", o.model_file);
		return -1;
	}
	return (double)fr->makespan * fr->cycle_ns;
}

/*
 * The recorded model's own host_ns (trace calibrate measures it from the
 * PE traces: a request's delivery to the reply's first frame, in a
 * program that computes nothing), 0 if its file has none; -1 after a
 * message.  No host of that hardware turns a message round faster, so it
 * is the least the fit may find: on a slow network the hosts' share of
 * the span is below the model's own error, and a fit there finds any
 * figure down to 0 (bench/RESULTS.md, 2026-11-28).
 */
static double
fit_floor(struct replay *r)
{
	simopts o = r->sim0;

	o.model_file = r->causal.recorded_model;
	tt_model_init(&o.model_flags);
	if (simopts_resolve(&o, &r->net.cfg, NULL) < 0)
		return -1;
	return o.model.set & TT_MODEL_HOST_NS ? o.model.host_ns : 0;
}

/* The hosts' turnaround at which the replay on the recorded hardware
 * takes the recorded message span: bisection to 1 us (the makespan grows
 * with it), from the recorded model's own host_ns (fit_floor()) up to the
 * model's largest, 1e10 ns. */
static int
fit_search(struct replay *r, struct netrun *fr, double target)
{
	double lo, hi, m;

	if ((lo = fit_floor(r)) < 0 || (m = fit_run(r, fr, 0)) < 0)
		return -1;
	r->fit.floor_ns = lo;
	r->fit.bare_s = m * 1e-9;
	if (lo > 0 && (m = fit_run(r, fr, lo)) < 0)
		return -1;
	if (m >= target) {
		fprintf(stderr, "ttsim replay: warning: --recorded-model %s: "
		    "the trace replayed there %s takes %.6f s, not less than "
		    "its recorded message span %.6f s: host_ns %.0f\n",
		    r->causal.recorded_model, lo > 0 ? "with the file's own "
		    "host_ns" : "with no host time", m * 1e-9, target * 1e-9,
		    lo);
		r->fit.host_ns = lo;
		r->fit.floored = lo > 0;
		r->fit.makespan_s = m * 1e-9;
		return 0;
	}
	hi = lo * 4 > 1e6 ? lo * 4 : 1e6;
	while ((m = fit_run(r, fr, hi)) >= 0 && m < target && hi < 1e10) {
		lo = hi;
		hi = hi * 4 < 1e10 ? hi * 4 : 1e10;
	}
	if (m < 0)
		return -1;
	if (m < target) {
		fprintf(stderr, "ttsim replay: --recorded-model %s: the trace "
		    "replayed there takes %.6f s even with host_ns 1e10, less "
		    "than its recorded message span %.6f s\n",
		    r->causal.recorded_model, m * 1e-9, target * 1e-9);
		return -1;
	}
	while (hi - lo > 1000) {
		double mid = (lo + hi) / 2;

		if ((m = fit_run(r, fr, mid)) < 0)
			return -1;
		if (m < target)
			lo = mid;
		else
			hi = mid;
	}
	r->fit.host_ns = round((lo + hi) / 2);
	if ((m = fit_run(r, fr, r->fit.host_ns)) < 0)
		return -1;
	r->fit.makespan_s = m * 1e-9;
	return 0;
}

int
mpi_fit_host(struct replay *r)
{
	struct netrun *fr;
	char err[512];
	int rc;

	if (r->causal.recorded_model == NULL)
		return 0;
	if (!r->mpi.timed || r->mpi.msg_span_ns == 0) {
		fprintf(stderr, "ttsim replay: --recorded-model: %s records no "
		    "times of its messages (%s), so there is nothing to fit "
		    "the hosts to; drop --recorded-model\n", r->mpi_path,
		    r->mpi.format);
		return -1;
	}
	if (r->sim0.model_flags.set & TT_MODEL_HOST_NS) {
		fprintf(stderr, "ttsim replay: --host-ns and --recorded-model: "
		    "with an MPI-level trace --recorded-model fits host_ns; "
		    "give one of them\n");
		return -1;
	}
	if ((fr = calloc(1, sizeof(*fr))) == NULL) {
		fprintf(stderr, "ttsim replay: out of memory\n");
		return -1;
	}
	snprintf(fr->name, sizeof(fr->name), "the recorded hardware");
	fr->spec = r->runs[0].spec;
	if (tt_net_init(&fr->net, &fr->spec, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim replay: %s\n", err);
		free(fr);
		return -1;
	}
	r->fit.span_s = (double)r->mpi.msg_span_ns * 1e-9;
	rc = fit_search(r, fr, (double)r->mpi.msg_span_ns);
	tt_net_free(&fr->net);
	free(fr);
	r->fit.done = rc == 0;
	return rc;
}
