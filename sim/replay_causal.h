/*
 * ttsim replay --causal: the flags and the run, kept out of cmd_replay.c
 * (twintorus/causal.h is the model; this is the command's side).
 */
#ifndef TTSIM_REPLAY_CAUSAL_H
#define TTSIM_REPLAY_CAUSAL_H

#include "twintorus/causal.h"
#include "twintorus/infer.h"
#include "twintorus/trace.h"

struct causal_opts {
	int on;
	const char *deps;       /* NULL: infer from the trace as it goes */
	tt_infer_params ip;
};

/* The dependency stream and the source of one network's replay. */
struct causal_run {
	tt_causal *c;
	tt_infer *inf;
	tt_deps_reader *dr;
	tt_infer_stats ist;     /* of the inference, when it ran */
	tt_causal_result res;
};

void causal_opts_init(struct causal_opts *co);
/* --causal, --deps FILE, --burst-gap NS, --window NS at argv[*i]: 1
 * taken, 0 not one of them, -1 after a message. */
int causal_take(struct causal_opts *co, int argc, char **argv, int *i);
/* Read a --deps file through once, so that a damaged line is reported
 * before anything runs.  -1 after a message. */
int causal_check(const struct causal_opts *co);
/* Open the stream (file or inference over paths) and the source on sim.
 * -1 after a message. */
int causal_start(struct causal_run *cr, const struct causal_opts *co,
    const char *const *paths, size_t np, const tt_addrmap *map,
    int no_copies, const tt_replay_params *rpp, tt_sim *sim);
/* After the run: results (combined over the ranks) and, if warn, the
 * warnings (the same for every network); -1 after a message if reading
 * failed. */
int causal_finish(struct causal_run *cr, int warn);
void causal_free(struct causal_run *cr);
/* The "causal" object of replay's JSON (without a leading comma). */
void causal_json(FILE *f, const struct causal_opts *co,
    const struct causal_run *cr);
/* A line for the table. */
void causal_table(FILE *f, const struct causal_opts *co,
    const struct causal_run *cr);

#endif
