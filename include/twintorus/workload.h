/*
 * twintorus: synthetic workloads, what the PEs of an application send.
 *
 * A workload is one stream of messages per PE, each in time order, and
 * tt_workload_next() merges them into one stream in time order (ties: the
 * lower PE first), as a trace of the whole cluster holds them.  Times are
 * nanoseconds from the start.
 *
 * The applications are open loop: their schedule is fixed ahead from a
 * timing model, and no message waits for another to arrive.  Each runs
 * `iterations` times; an iteration starts every `period` ns, with a
 * compute phase of compute_us (each PE's varied by +-10%, drawn from its
 * own random stream, seeded from (seed, PE)) and then its messages, sent
 * back to back at the link's speed (bytes * 8 / link_gbps ns each):
 *   stencil    3D halo exchange: the PEs form a process grid as cubic as
 *              their number allows (tt_grid3) and each sends one halo to
 *              each neighbour, +x, -x, +y, -y, +z, -z, over the grid's
 *              dimensions that have more than one PE (periodic);
 *   alltoall   PE p sends to p+1, p+2, ... p-1 in turn (the shifted-ring
 *              schedule);
 *   allreduce  ring allreduce of a vector of `bytes`: 2(N-1) steps, in each
 *              PE p sends a 1/N chunk to p+1; a step is a chunk's
 *              serialisation and a half, plus a microsecond, so the ring
 *              stays in step.
 * A traffic pattern (twintorus/traffic.h) is a workload too: each packet
 * of its source becomes a message at its cycle.
 *
 * Closed-loop application motifs, whose sends wait for the receives that
 * enable them, are another kind of workload: they will sit beside these,
 * on the same process grid and timing model.
 */
#ifndef TWINTORUS_WORKLOAD_H
#define TWINTORUS_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "twintorus/sim.h"
#include "twintorus/trace.h"
#include "twintorus/api.h"

TT_BEGIN_DECLS

enum tt_app {
	TT_APP_STENCIL = 0,
	TT_APP_ALLTOALL,
	TT_APP_ALLREDUCE,
	TT_APP_COUNT
};

typedef struct tt_app_params {
	enum tt_app app;
	uint32_t npes;          /* at least 2 */
	uint64_t bytes;         /* 0: the application's default */
	int iterations;         /* 0: the application's default */
	double compute_us;      /* below 0: the application's default */
	double link_gbps;       /* serialisation: bytes * 8 / link_gbps ns */
	uint64_t seed;          /* of the compute-time jitter */
} tt_app_params;

/* tt_app_params with every default: stencil, 10 Gb/s, seed 1 (npes 0). */
void tt_app_params_default(tt_app_params *p);
/* "stencil", "alltoall", "allreduce": 0, or -1 for another name. */
int tt_app_parse(const char *name, enum tt_app *app);
const char *tt_app_name(enum tt_app app);
/* The defaults of an application, for its usage text. */
uint64_t tt_app_default_bytes(enum tt_app app);
int tt_app_default_iterations(enum tt_app app);
double tt_app_default_compute_us(enum tt_app app);

typedef struct tt_workload tt_workload;

/* An application.  0, or -1 with err set. */
int tt_workload_app(tt_workload **w, const tt_app_params *p, char *err,
    size_t errsz);
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
