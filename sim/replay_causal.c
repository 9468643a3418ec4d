/*
 * ttsim replay --causal: its flags, the dependency stream (a --deps file,
 * or the inference over the trace as the replay goes), one network's run
 * and what the output says of it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "twintorus/json.h"
#include "twintorus/outfile.h"
#include "replay.h"

enum { OPT_CAUSAL = OPT_OWN + 64, OPT_CAUSAL_DEPS, OPT_CAUSAL_PLACEMENT };

const optdef causal_flags[] = {
	OPT_TITLE("causal replay (instead of the recorded times):"),
	OPT_FLAG("causal", OPT_CAUSAL,
	    "each PE sends its messages in its order, each when the messages "
	    "that enabled it have arrived in the simulation and its compute "
	    "gap has passed: for predicting an application on another network "
	    "(open loop, the default, is for load)"),
	OPT_VAL("deps", OPT_CAUSAL_DEPS, "FILE",
	    "the dependencies from a file (ttsim trace infer, or ttsim app "
	    "--deps-out) instead of inferring them"),
	OPT_VAL("placement", OPT_CAUSAL_PLACEMENT, "P",
	    "where the trace's ranks run: linear (rank r on PE r, the "
	    "default), random:SEED, or a file of \"RANK PE\" lines"),
	OPT_END
};

void
causal_opts_init(struct causal_opts *co)
{
	memset(co, 0, sizeof(*co));
	tt_infer_params_default(&co->ip);
}

int
causal_take(void *state, const struct optval *v)
{
	struct causal_opts *co = state;

	if (v->id == OPT_CAUSAL)
		co->on = 1;
	else if (v->id == OPT_CAUSAL_PLACEMENT)
		co->placement = v->value;
	else
		co->deps = v->value;
	return 0;
}

int
causal_infer_take(void *state, const struct optval *v)
{
	struct causal_opts *co = state;

	if (v->id == OPT_RECORDED_MODEL)
		co->recorded_model = v->value;
	if (v->id == OPT_TURNAROUND)
		co->turnaround_given = 1;
	return inferopts_take(&co->ip, v);
}

int
causal_infer_flags_given(const struct causal_opts *co)
{
	tt_infer_params d;

	tt_infer_params_default(&d);
	return co->ip.burst_gap_ns != d.burst_gap_ns ||
	    co->ip.pause_ns != d.pause_ns || co->ip.window_ns != d.window_ns ||
	    co->ip.turnaround_ns != d.turnaround_ns ||
	    co->ip.ack_turn_ns != d.ack_turn_ns;
}

int
causal_conflicts(const struct replay *r)
{
	if (tiopts_check("replay", r->ti_flops, r->mpi_path) < 0)
		return -1;
	if (r->mpi_path != NULL)
		return mpi_conflicts(r);
	if ((!r->causal.on || r->causal.deps != NULL) &&
	    causal_infer_flags_given(&r->causal)) {
		fprintf(stderr, "ttsim replay: --burst-gap, --ack-turn, --pause, --window and "
		    "--turnaround tune the inference of --causal without "
		    "--deps\n");
		return -1;
	}
	if (r->causal.deps != NULL && !r->causal.on) {
		fprintf(stderr, "ttsim replay: --deps goes with --causal\n");
		return -1;
	}
	if (r->causal.placement != NULL && !r->causal.on) {
		fprintf(stderr, "ttsim replay: --placement goes with --causal "
		    "(open loop sends from the PEs the trace names)\n");
		return -1;
	}
	if (r->causal.on && r->open_loop_flag != NULL) {
		fprintf(stderr, "ttsim replay: %s is open loop's: --causal sends "
		    "each message when it is enabled, not at its recorded "
		    "time\n", r->open_loop_flag);
		return -1;
	}
	return 0;
}

int
causal_check(const struct causal_opts *co)
{
	tt_deps_reader *dr;
	tt_dep d;
	char err[1024];
	int x;

	if (!co->on || co->deps == NULL)
		return 0;
	/* --csv must not replace it */
	(void)tt_outfile_input(co->deps);
	if (tt_deps_open(&dr, co->deps, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim replay: --deps %s\n", err);
		return -1;
	}
	while ((x = tt_deps_read(dr, &d, err, sizeof(err))) > 0)
		;
	tt_deps_close_reader(dr);
	if (x < 0) {
		fprintf(stderr, "ttsim replay: --deps %s\n", err);
		return -1;
	}
	return 0;
}

void
causal_free(struct causal_run *cr)
{
	tt_causal_free(cr->c);
	tt_infer_free(cr->inf);
	tt_deps_close_reader(cr->dr);
	tt_mpi_deps_free(cr->md);
	tt_placement_free(cr->pl);
	cr->c = NULL;
	cr->inf = NULL;
	cr->dr = NULL;
	cr->md = NULL;
	cr->pl = NULL;
}

/* The stream (file or inference over the trace) and the source on sim.
 * -1 after a message. */
static int
causal_start(struct causal_run *cr, const struct replay *r,
    const struct netrun *rn, tt_sim *sim)
{
	const tt_replay_params *rpp = &rn->rpp;
	const tt_net *net = &rn->net;
	const tt_model *m = &rn->model;
	const struct causal_opts *co = &r->causal;
	tt_infer_params ip = co->ip;
	tt_dep_stream in;
	char err[1024];

	if (r->mpi_path != NULL) {
		if (tt_mpi_deps_open(&cr->md, &r->mpi, err, sizeof(err)) < 0)
			goto bad;
		/* payload, framed as the model says the wire carried it */
		tt_mpi_deps_framing(cr->md, m->set & TT_MODEL_SEGMENT_BYTES ?
		    (uint32_t)m->segment_bytes : 0, m->set &
		    TT_MODEL_FRAME_HEADER_BYTES ? (uint32_t)m->frame_header_bytes :
		    0, m->set & TT_MODEL_MESSAGE_HEADER_BYTES ?
		    (uint32_t)m->message_header_bytes : 0);
		in = tt_mpi_deps_stream(cr->md);
	} else if (co->deps != NULL) {
		if (tt_deps_open(&cr->dr, co->deps, err, sizeof(err)) < 0)
			goto bad;
		in = tt_deps_stream(cr->dr);
	} else {
		ip.npes = tt_sim_pes(sim);
		ip.map = &r->map;
		ip.no_copies = r->no_copies;
		if (tt_infer_open(&cr->inf, r->paths, r->npaths, &ip, err,
		    sizeof(err)) < 0)
			goto bad;
		in = tt_infer_stream(cr->inf);
	}
	if (co->placement != NULL) {
		if (tt_placement_create(&cr->pl, co->placement, net, err,
		    sizeof(err)) < 0) {
			fprintf(stderr, "ttsim replay: %s\n", err);
			causal_free(cr);
			return -1;
		}
		in = tt_placement_stream(cr->pl, in);
	}
	if (tt_causal_create(&cr->c, in, rpp, sim, err, sizeof(err)) < 0)
		goto bad;
	return 0;
bad:
	fprintf(stderr, "ttsim replay: %s%s%s\n", r->mpi_path != NULL ?
	    r->mpi_path : co->deps != NULL ? "--deps " : "", r->mpi_path !=
	    NULL ? ": " : "", err);
	causal_free(cr);
	return -1;
}

/* After the run: the results, over every rank, and (if warn) the
 * warnings, which are the same for every network.  -1 after a message if
 * reading failed. */
static int
causal_finish(struct causal_run *cr, const struct replay *r, tt_sim *sim,
    int warn)
{
	char err[1024];
	int rc = 0;

	cr->res = *tt_causal_result_get(cr->c);
	if (tt_causal_error(cr->c, err, sizeof(err)) < 0) {
		progress_clear();
		fprintf(stderr, "ttsim replay: %s%s%s\n", cr->dr != NULL ?
		    "--deps " : r->mpi_path != NULL ? r->mpi_path : "",
		    cr->md != NULL ? ": " : "", err);
		rc = -1;
	}
	if (warn)
		tt_causal_warnings(cr->c, stderr, "ttsim replay: warning: ");
	if (cr->inf != NULL) {
		cr->ist = *tt_infer_stats_get(cr->inf);
		if (warn)
			tt_infer_warnings(cr->inf, stderr,
			    "ttsim replay: warning: ");
	}
	tt_causal_reduce(sim, &cr->res);
	return rc;
}

static void
on_causal_message(void *ctx, const tt_causal_msg *m)
{
	struct replay_job *j = ctx;
	uint64_t lat = m->done - m->gen;

	fprintf(j->csv, "%s,%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%"
	    PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.1f,%" PRIu32 ",%"
	    PRIu32 "\n", j->name, m->src, m->dst, m->bytes, m->packets,
	    m->t_ns, m->gen, m->done, lat, (double)lat * j->cycle_ns, m->seq,
	    m->npred);
}

static void
on_causal_progress(void *ctx, double done)
{
	struct replay_job *j = ctx;
	const tt_causal_result *res = tt_causal_result_get(j->cr->c);
	double f = j->total ? (double)res->lines / (double)j->total : 0;

	(void)done;
	progress_show(j->label, ((double)j->index + (f < 1 ? f : 1)) /
	    (double)j->count);
}

int
causal_replay_one(struct replay *r, int k)
{
	return causal_replay_net(r, &r->runs[k], k, 0);
}

int
causal_replay_net(struct replay *r, struct netrun *rn, int k, int quiet)
{
	tt_sim *sim = NULL;
	tt_source src;
	struct timespec t0, t1;
	char err[1024];
	int rc = TTSIM_EXIT_OK;

	if (tt_sim_create_part(&sim, &rn->net, &rn->p,
	    r->sim.whole ? NULL : ttsim_comm(), err, sizeof(err)) < 0 ||
	    tt_sim_gather_links(sim, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim replay: %s\n", err);
		tt_sim_free(sim);
		return TTSIM_EXIT_USAGE;
	}
	if (causal_start(&rn->cr, r, rn, sim) < 0) {
		tt_sim_free(sim);
		return TTSIM_EXIT_USAGE;
	}
	r->job.name = rn->name;
	r->job.cycle_ns = rn->cycle_ns;
	r->job.index = k;
	r->job.cr = &rn->cr;
	if (r->job.csv != NULL && !quiet)
		tt_causal_on_message(rn->cr.c, on_causal_message, &r->job);
	src = tt_causal_source(rn->cr.c);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	tt_sim_run(sim, &src, 1, &rn->res, on_causal_progress, &r->job);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	rn->wall = (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	if (causal_finish(&rn->cr, r, sim, k == 0 && !quiet) < 0 ||
	    replay_links(rn, sim) < 0)
		rc = TTSIM_EXIT_USAGE;
	rn->rr = rn->cr.res.rr;
	rn->makespan = tt_causal_makespan(&rn->cr.res);
	causal_free(&rn->cr);
	tt_sim_free(sim);
	if (rc == TTSIM_EXIT_OK && rn->res.deadlock) {
		replay_deadlock(rn, &rn->p);
		rc = TTSIM_EXIT_DEADLOCK;
	}
	return rc;
}

void
causal_json(FILE *f, const struct replay *r)
{
	const struct causal_opts *co = &r->causal;
	const struct causal_run *cr = &r->runs[0].cr;
	const tt_infer_stats *s = &cr->ist;

	fprintf(f, "\"mode\": \"%s\"", co->on ? "causal" : "open_loop");
	if (!co->on)
		return;
	fprintf(f, ", \"causal\": {\"dependencies\": ");
	if (r->mpi_path != NULL)
		fprintf(f, "\"mpi\"");
	else if (co->deps != NULL)
		tt_json_string(f, co->deps);
	else
		fprintf(f, "\"inferred\"");
	fprintf(f, ", \"placement\": ");
	tt_json_string(f, co->placement != NULL ? co->placement : "linear");
	fprintf(f, ", \"messages\": %" PRIu64 ", \"waited\": %" PRIu64
	    ", \"ignored_predecessors\": %" PRIu64 ", \"first_release_cycle\": %"
	    PRIu64, cr->res.lines, cr->res.waited, cr->res.ignored,
	    cr->res.first_gen == UINT64_MAX ? 0 : cr->res.first_gen);
	if (co->deps == NULL && r->mpi_path == NULL)
		fprintf(f, ", \"burst_gap_ns\": %" PRIu64 ", \"frames\": %" PRIu64
		    ", \"deliveries\": %" PRIu64 ", \"grouped\": %" PRIu64
		    ", \"predecessors\": %" PRIu64 ", \"transport\": {\"tcp_acks\": "
		    "%" PRIu64 ", \"tcp_control\": %" PRIu64
		    ", \"tcp_retransmissions\": %" PRIu64 ", \"arp\": %" PRIu64
		    ", \"nd\": %" PRIu64 "}, \"lost_sends\": %" PRIu64
		    ", \"mismatched_deliveries\": %" PRIu64
		    ", \"undelivered\": %" PRIu64 ", \"passed_over\": %" PRIu64
		    ", \"cycles_broken\": %" PRIu64, co->ip.burst_gap_ns, s->frames,
		    s->deliveries, s->grouped, s->predecessors, s->tcp_acks,
		    s->tcp_control, s->tcp_retrans, s->arp, s->nd, s->lost_sends,
		    s->mismatched, s->undelivered,
		    s->passed_over, s->cycles_broken);
	fprintf(f, "}");
}

void
causal_table(FILE *f, const struct replay *r)
{
	const struct causal_opts *co = &r->causal;
	const struct causal_run *cr = &r->runs[0].cr;
	const tt_infer_stats *s = &cr->ist;

	fprintf(f, "causal replay: %" PRIu64 " messages, each released when "
	    "its predecessors have arrived and its compute gap has passed; "
	    "dependencies ", cr->res.lines);
	if (r->mpi_path != NULL) {
		fprintf(f, "from the trace's MPI calls (sends matched to "
		    "receives; collectives as point-to-point messages)\n");
		return;
	}
	if (co->deps != NULL) {
		fprintf(f, "from %s\n", co->deps);
		return;
	}
	fprintf(f, "inferred: %" PRIu64 " predecessors from %" PRIu64
	    " frames (%" PRIu64 " grouped into messages); set aside %" PRIu64
	    " TCP ACKs, %" PRIu64 " SYN/FIN/RST, %" PRIu64 " retransmissions, %"
	    PRIu64 " ARP, %" PRIu64 " ND\n", s->predecessors, s->frames,
	    s->grouped, s->tcp_acks, s->tcp_control, s->tcp_retrans, s->arp,
	    s->nd);
}

const char *
causal_csv_columns(const struct causal_opts *co)
{
	return co->on ? "seq,predecessors" : "file,record";
}
