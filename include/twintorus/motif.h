/*
 * twintorus: closed-loop application motifs (ttsim app).
 *
 * A motif is a program per rank made of three kinds of steps: compute for
 * a time, send a message (it goes to the NIC and the program goes on), and
 * receive a message (the program waits until its last packet has arrived).
 * Run in the simulator until every rank's program ends, a motif is an
 * application whose every message waits for what it really waits for: the
 * ground truth that causal replay (twintorus/causal.h) is measured
 * against, and a workload of its own, as SST Ember's motifs are.
 *
 * Motifs (each iteration; n ranks):
 *   halo3d     (alias stencil) the ranks form a process grid a x b x c, as
 *              cubic as n allows (a <= b <= c); each sends `bytes` to its 6
 *              neighbours (periodic; none along a dimension of 1), receives
 *              their 6, then computes compute_ns
 *   sweep3d    a 2D grid a x b (a <= b, b along x); a sweep from one corner
 *              (the four corners in turn, one per iteration) in `blocks`
 *              blocks: per block a rank receives from its upstream
 *              neighbours in x and y, computes compute_ns, sends `bytes` to
 *              its downstream ones (a wavefront)
 *   allreduce  ring allreduce of a `bytes` vector: 2(n-1) steps of sending
 *              a chunk of bytes/n to rank r+1 and receiving one from r-1,
 *              then compute_ns
 *   alltoall   every rank sends `bytes` to r+1, r+2, ..., r+n-1, receives
 *              from r-1, r-2, ..., then computes compute_ns
 *   incast     ranks 0..clients-1 are clients, the others servers, server s
 *              serving client (s - clients) mod clients: a client sends a
 *              request of request_bytes to each of its servers and waits
 *              for all their responses (`bytes` each) before computing
 *              compute_ns; a server receives a request, computes
 *              service_ns, responds
 *   pingpong   rank r < n/2 and rank r + n/2 are a pair: r sends `bytes`,
 *              its partner receives and sends them back, r receives and
 *              computes compute_ns
 * Every compute time varies by up to +-imbalance of itself with the rank
 * and iteration (a deterministic hash of the seed, rank and iteration), as
 * real ranks do not compute in lockstep.  The grid, roles and the map from
 * ranks to PEs (rank r on the r-th PE taking part; all PEs and rank r = PE r
 * by default) depend only on n and the parameters, never on the network.
 *
 * Messages become packets as replay makes them (twintorus/replay.h):
 * ceil(bytes / (packet_flits * flit_bytes)), at least one, the last
 * only as long as the rest (tt_last_packet_flits()); time converts
 * with one cycle = flit_bytes * 8 / link_gbps ns.  A message carries its
 * source's sequence number as the packets' tag; its destination counts the
 * packets and completes it with the last one, on its own rank in a
 * partitioned run (tt_sim_on_arrive()).
 */
#ifndef TWINTORUS_MOTIF_H
#define TWINTORUS_MOTIF_H

#include <stdint.h>
#include <stdio.h>

#include "twintorus/deps.h"
#include "twintorus/record.h"
#include "twintorus/sim.h"
#include "twintorus/api.h"

TT_BEGIN_DECLS

enum tt_motif {
	TT_MOTIF_HALO3D = 0,
	TT_MOTIF_SWEEP3D,
	TT_MOTIF_ALLREDUCE,
	TT_MOTIF_ALLTOALL,
	TT_MOTIF_INCAST,
	TT_MOTIF_PINGPONG,
	TT_MOTIF_COUNT
};

/* A motif's name, or "stencil" for halo3d: 0, or -1 for another name. */
int tt_motif_parse(const char *name, enum tt_motif *m);
const char *tt_motif_name(enum tt_motif m);
/* "halo3d, sweep3d, ..." */
const char *tt_motif_list(void);

typedef struct tt_motif_params {
	enum tt_motif motif;
	uint64_t iterations;
	uint64_t bytes;         /* a message (allreduce: the vector; incast:
	                         * a response) */
	uint64_t request_bytes; /* incast */
	double compute_ns;      /* see the motifs */
	double service_ns;      /* incast: a server's time per request */
	double imbalance;       /* compute varies by up to +- this fraction */
	uint32_t clients;       /* incast; 0: max(1, n / 16) */
	uint32_t blocks;        /* sweep3d: blocks per sweep */
	uint64_t seed;          /* of the imbalance */
	const uint32_t *ranks;  /* PEs taking part, ascending; rank r is
	                         * ranks[r].  NULL: every PE, rank r = PE r */
	uint32_t nranks;
	tt_netparams net;       /* packet_flits, flit_bytes, link_gbps */
} tt_motif_params;

/* The defaults of motif m (each sized to run in a few seconds on 128 PEs). */
void tt_motif_params_default(tt_motif_params *p, enum tt_motif m);
/* Check p for a network of npes PEs.  0, or -1 with err set. */
int tt_motif_check(const tt_motif_params *p, uint32_t npes, char *err,
    size_t errsz);

typedef struct tt_motif_job tt_motif_job;

/* Build the programs of p on sim (which must outlive it) and hook its
 * deliveries.  0, or -1 with err set. */
int tt_motif_create(tt_motif_job **jp, const tt_motif_params *p, tt_sim *sim,
    char *err, size_t errsz);
/* The source to hand to tt_sim_run(..., until_empty = 1, ...). */
tt_source tt_motif_source(tt_motif_job *j);
/* Record sends and deliveries (before the run). */
void tt_motif_record(tt_motif_job *j, tt_record *rec);
/* Write the true dependencies, one line per send as it happens (serial
 * runs: a partitioned run knows only its own PEs'). */
void tt_motif_deps(tt_motif_job *j, tt_deps_writer *w);
/* Stop issuing steps: every program ends at its next step (a signal). */
void tt_motif_stop(tt_motif_job *j);
/* The share of this process's iterations done, 0 to 1 (progress). */
double tt_motif_progress(const tt_motif_job *j);
/* "grid 4x4x8", "ring of 128", "8 clients, 120 servers", ... */
const char *tt_motif_layout(const tt_motif_job *j, char *buf, size_t bufsz);

typedef struct tt_motif_result {
	uint64_t sent;          /* messages the programs sent */
	uint64_t messages;      /* ... that arrived whole */
	uint64_t bytes, packets;        /* theirs */
	uint64_t first_send;    /* cycle; UINT64_MAX if nothing was sent */
	uint64_t last_delivery; /* cycle */
	uint64_t finish;        /* the last program's end, cycle */
	uint64_t done;          /* PEs whose program ended */
	tt_hist latency;        /* messages: generation to last packet */
} tt_motif_result;

/* This process's PEs' results (a partitioned run: combine the ranks'). */
const tt_motif_result *tt_motif_result_get(const tt_motif_job *j);
/* Makespan: first send to last delivery, in cycles (0 if none). */
uint64_t tt_motif_makespan(const tt_motif_result *r);
/* PE pe's program (pe simulated here): 1 and its figures, 0 if it does
 * not take part. */
int tt_motif_pe(const tt_motif_job *j, uint32_t pe, uint32_t *rank,
    uint64_t *finish, uint64_t *sent, uint64_t *received);
/* After the run: how many of this process's PEs wait, and the first one's
 * wait in buf ("PE 5 (rank 5) waits for message 4:11"). */
uint64_t tt_motif_waiting(const tt_motif_job *j, char *buf, size_t bufsz);
/* Write or out-of-memory errors of recording or dependencies: 0, or -1
 * with err set. */
int tt_motif_error(const tt_motif_job *j, char *err, size_t errsz);
void tt_motif_free(tt_motif_job *j);

TT_END_DECLS

#endif
