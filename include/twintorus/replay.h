/*
 * twintorus: replaying a trace through the network model.
 *
 * Each message of a trace (twintorus/trace.h) becomes ceil(bytes /
 * (packet_flits * flit_bytes)) packets, at least one, the last of them
 * only as long as the rest of its bytes (tt_last_packet_flits()),
 * generated at its PE
 * at the message's time: trace time is turned into cycles with one cycle =
 * flit_bytes * 8 / link_gbps ns (a link carries one flit per cycle), counted
 * from the first message, and divided by `speed`.  Injection is open loop:
 * a message is sent at its time whatever happened to the ones before it.
 * With speed 0 ("max"), time is ignored instead: every PE sends its
 * messages back to back, in trace order, as fast as its link takes them.
 *
 * The trace is read in time order as the simulation reaches each time, plus
 * at most `lookahead` messages ahead, so memory holds what is in flight and
 * queued at the PEs, never the whole trace.  With a speed, the lookahead
 * changes only memory and speed, never a result.  As fast as possible it
 * is also the window in which the PEs move through the trace: no message
 * is read while `lookahead` messages wait to be sent, so a PE whose next
 * message lies further on in the trace waits until the others catch up,
 * and results depend on it.  A message's latency runs from its time to the
 * arrival of its last packet.
 */
#ifndef TWINTORUS_REPLAY_H
#define TWINTORUS_REPLAY_H

#include <stdint.h>
#include "twintorus/sim.h"
#include "twintorus/trace.h"
#include "twintorus/api.h"

TT_BEGIN_DECLS

/* tt_replay_params' defaults: lookahead, speed (the trace's own time),
 * warmup (measure from the start) */
#define TT_REPLAY_LOOKAHEAD_DEFAULT 4096
#define TT_REPLAY_SPEED_DEFAULT     1
#define TT_REPLAY_WARMUP_DEFAULT    0

typedef struct tt_replay_params {
	tt_netparams net;       /* packet_flits (the simulator's P), flit_bytes,
	                         * link_gbps (twintorus/params.h) */
	double speed;           /* > 0: trace time / speed; 0: as fast as possible */
	uint64_t lookahead;     /* messages read ahead;
	                         * TT_REPLAY_LOOKAHEAD_DEFAULT */
	/* The measurement window [warmup, window_end) in cycles (window_end
	 * 0: the end of the run): accepted load counts the packets that
	 * arrive inside it and latency the messages generated inside it, as
	 * ttsim run measures, so that a replayed synthetic trace and a run
	 * of the same traffic are measured alike.  Default: everything. */
	uint64_t warmup, window_end;
} tt_replay_params;

void tt_replay_params_default(tt_replay_params *p);

/* A message that has arrived. */
typedef struct tt_msgdone {
	tt_msg m;
	uint64_t gen;           /* cycle it was generated */
	uint64_t done;          /* cycle its last packet arrived */
	uint32_t packets;
} tt_msgdone;

typedef struct tt_replay_result {
	uint64_t messages;      /* delivered */
	uint64_t packets;
	uint64_t bytes;
	uint64_t last_done;     /* cycle the last message arrived */
	uint64_t last_gen;      /* cycle the last message was generated */
	uint64_t max_pending;   /* most messages held at once */
	uint64_t packets_window;  /* packets that arrived inside the window */
	tt_hist latency;        /* latency of the window's messages, cycles */
} tt_replay_result;

typedef struct tt_replay tt_replay;

/* Replay `in` (opened with npes) into sim.  0, or -1 with err set. */
int tt_replay_create(tt_replay **rp, tt_trace_in *in,
    const tt_replay_params *p, tt_sim *sim, char *err, size_t errsz);
/* The source to hand to tt_sim_run(..., until_empty = 1, ...). */
tt_source tt_replay_source(tt_replay *rp);
/* Called with every message that arrives (per-message output). */
void tt_replay_on_message(tt_replay *rp,
    void (*fn)(void *ctx, const tt_msgdone *d), void *ctx);
/* Messages read so far (for progress). */
uint64_t tt_replay_read(const tt_replay *rp);
const tt_replay_result *tt_replay_result_get(const tt_replay *rp);
/* After the run: 0, or -1 with the reading error that stopped it. */
int tt_replay_error(const tt_replay *rp, char *err, size_t errsz);
void tt_replay_free(tt_replay *rp);

TT_END_DECLS

#endif
