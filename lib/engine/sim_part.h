/*
 * twintorus: partitioned runs of the network model, for ttsim's MPI ranks.
 *
 * This header is not installed: `make install` copies include/twintorus/
 * alone, and the partition is a contract between the library and ttsim,
 * not a stable interface (its transport and its set-up calls change with
 * the engine).  ttsim's objects and the unit tests are built with -Ilib to
 * see it; nothing else should.
 *
 * Each of nranks processes builds one part of the switches and they run
 * the same cycles together, exchanging what crosses a part's boundary (the
 * flits of a granted packet, the credit that comes back, and a delivery
 * for a source on another part).  The transport is the caller's (ttsim's
 * is MPI); the engine's collective calls are made by every rank in the
 * same order.  Results are the serial run's, bit for bit: every rank gets
 * the totals.
 */
#ifndef TWINTORUS_SIM_PART_H
#define TWINTORUS_SIM_PART_H

#include <stddef.h>
#include <stdint.h>

#include "twintorus/sim.h"

/* How tt_sim_comm.allreduce combines the ranks' values. */
enum tt_sim_op { TT_SIM_SUM = 0, TT_SIM_MAX, TT_SIM_MIN };

/*
 * One count of a result that a partitioned run combines over its ranks: a
 * uint64_t at off in the result, combined by op, or a latency histogram
 * (tt_hist: its count, sum and bins add up, its max is the largest).  A
 * source describes its result as an array of rows; the engine knows no
 * source's layout.
 */
enum tt_sim_kind { TT_SIM_U64 = 0, TT_SIM_HIST };
typedef struct tt_sim_row {
	size_t off;
	enum tt_sim_kind kind;
	enum tt_sim_op op;      /* TT_SIM_U64 */
} tt_sim_row;

#define TT_SIM_ROW(type, field, op) \
	{offsetof(type, field), TT_SIM_U64, op}
#define TT_SIM_ROW_HIST(type, field) \
	{offsetof(type, field), TT_SIM_HIST, TT_SIM_SUM}

/*
 *   allgather   every rank's n values into all[rank * n + i]
 *   allreduce   every rank's n values, combined by op, in place on every
 *               rank (needs no memory of the caller's: the engine uses it
 *               to agree on failures)
 *   alltoallv   scount[r] bytes of send (packed in rank order) to rank r,
 *               rcount[r] bytes from rank r into recv (in rank order)
 */
typedef struct tt_sim_comm {
	int rank, nranks;
	int local;      /* ranks sharing this machine's caches (threads of
	                 * one process, MPI ranks on one node); 0 or 1:
	                 * this rank alone */
	void *ctx;
	void (*allgather)(void *ctx, const uint64_t *mine, size_t n,
	    uint64_t *all);
	void (*allreduce)(void *ctx, uint64_t *v, size_t n, enum tt_sim_op op);
	void (*alltoallv)(void *ctx, const void *send, const uint64_t *scount,
	    void *recv, const uint64_t *rcount);
} tt_sim_comm;

/*
 * The switches of rank `rank` of `nranks`: cards [*first, *end).  Nodes are
 * split into nranks runs of consecutive node ids (whole nodes, so a twin
 * node's internal link never crosses ranks); node ids count the first
 * dimension fastest, so the runs are slabs of the last dimension, cut
 * inside a plane only where the ranks do not divide the planes.
 * -1 if there are more ranks than nodes.
 */
int tt_sim_part(const tt_net *net, int nranks, int rank, uint32_t *first,
    uint32_t *end);

/*
 * tt_sim_create() for one part; comm NULL is a serial run.  Everything an
 * exchange between ranks can need is allocated here, so that a run never
 * runs out of memory half-way.  Collective: every rank calls it, and every
 * rank fails if one does.
 */
int tt_sim_create_part(tt_sim **simp, const tt_net *net, const tt_simparams *p,
    const tt_sim_comm *comm, char *err, size_t errsz);

/* The PEs this process simulates: [*first, *end); all of them unless the
 * run is partitioned.  A source is asked only about these. */
void tt_sim_local(const tt_sim *sim, uint32_t *first, uint32_t *end);

/* Bytes the largest part of an nranks-way partition allocates, with what
 * it exchanges (for planning; tt_sim_memory() is nranks = 1). */
uint64_t tt_sim_memory_part(const tt_net *net, const tt_simparams *p,
    int nranks);

/*
 * Have partitioned runs gather every output's window flits to every rank,
 * for tt_sim_link_flits() (a whole network's counters per rank, allocated
 * here).  0, or -1 with err on every rank if one ran out of memory;
 * collective.  Nothing to do for a serial simulator.
 */
int tt_sim_gather_links(tt_sim *sim, char *err, size_t errsz);

/*
 * A source's result after a partitioned run: obj's rows, every rank's
 * values combined, in place on every rank (the serial run's totals when
 * each rank counted its own PEs).  Collective: every rank passes the same
 * rows.  Nothing for a serial simulator.
 */
void tt_sim_reduce(const tt_sim *sim, const tt_sim_row *rows, size_t nrows,
    void *obj);

#endif
