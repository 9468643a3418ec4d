/*
 * ttsim replay of an MPI-level trace (twintorus/mpitrace.h): alone,
 * causally, with the dependencies of its own calls.  Which path is one,
 * the flags that do not go with it, the trace read and converted once
 * before anything runs, and what the output says of it.
 */
#include <inttypes.h>
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
	if (causal_infer_flags_given(&r->causal)) {
		fprintf(stderr, "ttsim replay: --burst-gap, --ack-turn, --pause, --window, "
		    "--turnaround and --recorded-model tune the inference over "
		    "packet traces; %s is an MPI-level trace, whose calls give "
		    "the dependencies\n", p);
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
	fprintf(f, ", \"compute_s\": %.9f}", (double)tot->compute_ns * 1e-9);
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
	fprintf(f, "; replayed ");
}
