/*
 * twintorus: the message layer under the message sources (open-loop
 * replay, causal replay, motifs), and their results' reduction over a
 * partitioned run's ranks.
 *
 * Not installed (as engine/sim_part.h): ttsim and the tests see it with
 * -Ilib.
 */
#ifndef TWINTORUS_MSGSRC_H
#define TWINTORUS_MSGSRC_H

#include <stddef.h>
#include <stdint.h>

#include "engine/sim_part.h"
#include "twintorus/causal.h"
#include "twintorus/motif.h"
#include "twintorus/replay.h"

/* A source's result after a partitioned run: every rank's counts,
 * combined as msgsrc.c's rows say (each rank counted its own PEs'
 * messages).  Collective; nothing for a serial simulator. */
void tt_replay_reduce(const tt_sim *sim, tt_replay_result *rr);
/* A causal replay's (its replay counts too) and a motif's. */
void tt_causal_reduce(const tt_sim *sim, tt_causal_result *r);
void tt_motif_reduce(const tt_sim *sim, tt_motif_result *r);

#endif
