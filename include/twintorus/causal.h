/*
 * twintorus: causal replay.
 *
 * Open-loop replay (twintorus/replay.h) sends every message at its
 * recorded time.  Causal replay sends it when the application would have:
 * each PE works through its messages in its own order (a dependency file,
 * twintorus/deps.h, read or inferred as it goes), and releases a message
 * when the messages that enabled it (its predecessors) have arrived in the
 * simulation and its compute gap has passed since the later of those
 * arrivals and its previous send; a message without predecessors leaves
 * its gap after the PE's previous send (after the start for a PE's first).
 * So a slower network delays what depends on it, and a faster one lets the
 * application go faster, as the application itself would.  It assumes the
 * application sends the same messages whatever their timing (an MPI code
 * whose receives name their source does; a server answering whoever comes
 * first does not).
 *
 * A predecessor must be a message to the same PE that comes earlier in the
 * file, and each message enables at most one send; one that is not (a
 * dependency file written by hand, or a cycle broken by the inference) is
 * ignored with a warning naming it.  Since then every send waits only for
 * what comes before it in the file, replay cannot wait forever.
 *
 * Messages become packets as in open-loop replay.  Every process reads the
 * whole file and keeps its own PEs' messages and the arrivals it must
 * count; a destination counts a message's packets itself, so that in a
 * partitioned run the PE it wakes is its own.  Memory holds what is in
 * flight and the lines read ahead of the PEs that are behind (the
 * dependency window), not the whole file.
 */
#ifndef TWINTORUS_CAUSAL_H
#define TWINTORUS_CAUSAL_H

#include <stdint.h>
#include <stdio.h>

#include "twintorus/deps.h"
#include "twintorus/replay.h"
#include "twintorus/sim.h"
#include "twintorus/api.h"

TT_BEGIN_DECLS

typedef struct tt_causal tt_causal;

/* A message that has arrived (per-message output). */
typedef struct tt_causal_msg {
	uint32_t src, dst, seq, npred;
	uint64_t packets;       /* 2^32 for 4 GiB in packets of a byte */
	uint64_t bytes, t_ns;   /* t_ns: recorded send time, src's clock */
	uint64_t gen, done;     /* cycles: released, last packet arrived */
} tt_causal_msg;

typedef struct tt_causal_result {
	tt_replay_result rr;    /* messages, packets, bytes, last_done,
	                         * last_gen, latency; max_pending: the most
	                         * lines and arrivals held at once */
	uint64_t first_gen;     /* cycle of the first release (UINT64_MAX:
	                         * none yet) */
	uint64_t lines;         /* read */
	uint64_t waited;        /* releases held back by a predecessor */
	uint64_t ignored;       /* predecessors ignored (see above) */
	/* The critical path to the last arrival: the chain of releases, each
	 * held back by the arrival or the previous send that released it
	 * latest, and the recorded compute gaps along it (cycles).  What is
	 * not compute on it is the simulated network.  Known only when one
	 * process ran every PE (cp_known). */
	uint64_t cp_compute;
	int cp_known;
} tt_causal_result;

/*
 * Replay the lines of `in` into sim (p: packet_flits, flit_bytes,
 * link_gbps; the rest is open loop's).  0, or -1 with err set.
 */
int tt_causal_create(tt_causal **cp, tt_dep_stream in,
    const tt_replay_params *p, tt_sim *sim, char *err, size_t errsz);
tt_source tt_causal_source(tt_causal *c);
void tt_causal_on_message(tt_causal *c,
    void (*fn)(void *ctx, const tt_causal_msg *m), void *ctx);
const tt_causal_result *tt_causal_result_get(const tt_causal *c);
/* Makespan: first release to last arrival, cycles. */
uint64_t tt_causal_makespan(const tt_causal_result *r);
/* The share of the makespan that the critical path spends in recorded
 * compute, 0..1 (-1: not known). */
double tt_causal_compute_share(const tt_causal_result *r);
/* After the run: 0, or -1 with the reading error that stopped it. */
int tt_causal_error(const tt_causal *c, char *err, size_t errsz);
/* The ignored predecessors, the first few by name. */
void tt_causal_warnings(const tt_causal *c, FILE *f, const char *prefix);
void tt_causal_free(tt_causal *c);

TT_END_DECLS

#endif
