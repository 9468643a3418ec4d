/*
 * twintorus: synthetic workloads, what the PEs of an application send.
 *
 * A workload is one stream of messages per PE, each in time order, and
 * tt_workload_next() merges them into one stream in time order (ties: the
 * lower PE first), as a trace of the whole cluster holds them.  Times are
 * nanoseconds from the start.
 *
 * An application is a motif (twintorus/motif.h), defined once there: its
 * per-rank program says what each rank sends, to whom, how big and in
 * which order; halo3d (alias stencil), sweep3d, allreduce, alltoall,
 * incast and pingpong.  Here that program is scheduled open loop: the
 * times are fixed ahead from a timing model and no message waits for
 * another to arrive.  An iteration starts every `period` ns.  Each rank
 * walks its program of the iteration with a clock:
 *   - it begins with its compute phase of compute_ns, varied by
 *     +-imbalance from the PE's own random stream (seeded from (seed, PE))
 *     if the rank's sends wait for no receive (a "burst" rank: halo3d,
 *     alltoall, an incast client, the corner a sweep starts from), exactly
 *     compute_ns if some send follows a receive (a "paced" rank:
 *     allreduce, an incast server, the second of a ping-pong pair, the
 *     rest of sweep3d), which keeps step with the ranks it waits for; a
 *     program's trailing compute step is this phase, taken first;
 *   - a send goes at the clock; sends one after another go back to back
 *     at the link's speed (bytes * 8 / link_gbps ns each);
 *   - a receive is taken to come one step after the receive before it
 *     (the first: a step after the compute phase), whatever was sent in
 *     between; a step is the serialisation and a half of the motif's
 *     largest message plus a microsecond; sends after it go from there;
 *   - any other compute step adds its time (sweep3d's blocks, an incast
 *     server's service).
 * So a send's time is: iteration start + compute phase + the compute steps
 * before it + receives before it * step + sends since the last receive *
 * its serialisation.  The period is the longest compute phase (compute_ns
 * * (1 + imbalance)), plus the longest rank's iteration (a burst rank's
 * sending twice, a paced rank's sends one step each, plus its compute
 * steps), plus a gap of 5 us.  The receives' true times are not modelled:
 * sweep3d's wavefront, for one, shows in its messages' order and spacing
 * but not as a delay growing with the distance from the corner (ttsim app
 * runs it closed loop).
 * A traffic pattern (twintorus/traffic.h) is a workload too: each packet
 * of its source becomes a message at its cycle.
 */
#ifndef TWINTORUS_WORKLOAD_H
#define TWINTORUS_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "twintorus/motif.h"
#include "twintorus/sim.h"
#include "twintorus/trace.h"
#include "twintorus/api.h"

TT_BEGIN_DECLS

typedef struct tt_workload tt_workload;

/*
 * Motif p->motif on every one of npes PEs (p->ranks must be NULL), with its
 * bytes, iterations, compute_ns, imbalance, seed and link_gbps, scheduled
 * open loop.  0, or -1 with err set (tt_motif_check()'s refusals).
 */
int tt_workload_motif(tt_workload **w, const tt_motif_params *p,
    uint32_t npes, char *err, size_t errsz);
/*
 * The packets of a traffic source (a tt_traffic's, which must outlive w)
 * as messages of `bytes`, at their cycle times cycle_ns: npes streams.
 */
int tt_workload_source(tt_workload **w, uint32_t npes, tt_source src,
    double cycle_ns, uint64_t bytes, char *err, size_t errsz);
/*
 * The next message of the whole workload, in time order (ties: the lower
 * source PE first), with t_ns from the start and seq counting each PE's
 * messages from 0.  1, or 0 when every PE is done.
 */
int tt_workload_next(tt_workload *w, tt_msg *m);
void tt_workload_free(tt_workload *w);

/*
 * The process grid: g[0] * g[1] * g[2] = n with g[0] <= g[1] <= g[2] and
 * g[2] - g[0] smallest, the most cubic one.
 */
void tt_grid3(uint32_t n, uint32_t g[3]);
/* The dimensions of g with more than one PE. */
unsigned tt_grid3_dims(const uint32_t g[3]);
/*
 * The neighbour j of pe (0 .. 2 * tt_grid3_dims(g) - 1: +, - of the first
 * dimension with more than one PE, then of the next ...), periodic.  PE
 * ids run through g[0] first.
 */
uint32_t tt_grid3_neighbour(const uint32_t g[3], uint32_t pe, unsigned j);

TT_END_DECLS

#endif
