/*
 * The message layer (sources/msgsrc.h).
 */
#include <stddef.h>

#include "sources/msgsrc.h"

#define NROWS(t) (sizeof(t) / sizeof((t)[0]))

/* a replay's: each rank completed its own PEs' messages, so the counts
 * add up and the last cycles are the latest; max_pending is the most
 * messages one process held, the largest on any rank: it describes the
 * process's memory, not the network */
static const tt_sim_row replay_rows[] = {
	TT_SIM_ROW(tt_replay_result, messages, TT_SIM_SUM),
	TT_SIM_ROW(tt_replay_result, packets, TT_SIM_SUM),
	TT_SIM_ROW(tt_replay_result, bytes, TT_SIM_SUM),
	TT_SIM_ROW(tt_replay_result, last_done, TT_SIM_MAX),
	TT_SIM_ROW(tt_replay_result, last_gen, TT_SIM_MAX),
	TT_SIM_ROW(tt_replay_result, max_pending, TT_SIM_MAX),
	TT_SIM_ROW(tt_replay_result, packets_window, TT_SIM_SUM),
	TT_SIM_ROW_HIST(tt_replay_result, latency),
};

/* a causal replay's, beside its replay counts (rr, as above): each rank
 * released its own PEs' messages; every rank read the whole dependency
 * stream, so its lines are not summed */
static const tt_sim_row causal_rows[] = {
	TT_SIM_ROW(tt_causal_result, first_gen, TT_SIM_MIN),
	TT_SIM_ROW(tt_causal_result, waited, TT_SIM_SUM),
	TT_SIM_ROW(tt_causal_result, ignored, TT_SIM_SUM),
};

/* a motif's: each rank ran its own PEs' programs and completed the
 * messages they received */
static const tt_sim_row motif_rows[] = {
	TT_SIM_ROW(tt_motif_result, sent, TT_SIM_SUM),
	TT_SIM_ROW(tt_motif_result, messages, TT_SIM_SUM),
	TT_SIM_ROW(tt_motif_result, bytes, TT_SIM_SUM),
	TT_SIM_ROW(tt_motif_result, packets, TT_SIM_SUM),
	TT_SIM_ROW(tt_motif_result, first_send, TT_SIM_MIN),
	TT_SIM_ROW(tt_motif_result, last_delivery, TT_SIM_MAX),
	TT_SIM_ROW(tt_motif_result, finish, TT_SIM_MAX),
	TT_SIM_ROW(tt_motif_result, done, TT_SIM_SUM),
	TT_SIM_ROW_HIST(tt_motif_result, latency),
};

void
tt_replay_reduce(const tt_sim *sim, tt_replay_result *rr)
{
	tt_sim_reduce(sim, replay_rows, NROWS(replay_rows), rr);
}

void
tt_causal_reduce(const tt_sim *sim, tt_causal_result *r)
{
	tt_replay_reduce(sim, &r->rr);
	tt_sim_reduce(sim, causal_rows, NROWS(causal_rows), r);
}

void
tt_motif_reduce(const tt_sim *sim, tt_motif_result *r)
{
	tt_sim_reduce(sim, motif_rows, NROWS(motif_rows), r);
}
