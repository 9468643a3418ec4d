/*
 * twintorus: MPI-level traces (OTF2 archives, SimGrid time-independent
 * traces) and the dependencies they give causal replay.
 *
 * A packet trace says what crossed the wire, and causal replay must infer
 * which receive enabled which send (twintorus/infer.h).  An MPI-level
 * trace says it: each rank's program is a list of MPI calls, and a send
 * is matched to its receive by MPI's own rule (messages between two ranks
 * on one communicator with one tag arrive in the order they were sent).
 * Readers fill a tt_mpi_trace in memory, one event list per rank; the
 * conversion below turns it into the dependency lines of causal replay
 * (twintorus/deps.h), one per message, with the true predecessors:
 *
 *   - a rank's sends are numbered 0, 1, ... in program order (seq);
 *   - the predecessors of a send are the receives the rank completed
 *     (a blocking receive returned, or a wait completed a non-blocking
 *     one) since its previous send; a receive completed after a rank's
 *     last send enables nothing;
 *   - its gap is the compute time (the time between MPI calls, or a
 *     COMPUTE event's) since the later of its previous send and the
 *     completion of its last predecessor, in program order;
 *   - a collective is decomposed into the point-to-point messages of the
 *     algorithm tt_mpi_coll_algorithm() names, sent and received within
 *     the call (its messages match among themselves, never with the
 *     application's own); on a communicator of n ranks, rank i (and the
 *     root's rank r; v = i - r mod n, its rank relative to the root):
 *       barrier    dissemination: for k = 1, 2, 4, ... < n, send an empty
 *                  message to i+k, receive one from i-k (mod n):
 *                  n * ceil(log2 n) messages of 0 bytes (causal replay
 *                  sends a message of 0 bytes as one packet);
 *       bcast      binomial tree from the root: v receives from v minus
 *                  its lowest set bit, then sends to v + 2^j for each
 *                  2^j below that bit, largest first: n-1 messages;
 *       reduce     binomial tree to the root, the mirror of bcast: v
 *                  receives from v + 2^j (2^j below v's lowest set bit,
 *                  smallest first), then sends to v minus that bit;
 *       allreduce  reduce to comm rank 0, then bcast from it: 2(n-1);
 *       gather     linear: each sends its part to the root, which
 *                  receives them in rank order: n-1;
 *       scatter    linear: the root sends each rank its part, in rank
 *                  order: n-1;
 *       allgather  ring: n-1 times, send a part to i+1 and receive one
 *                  from i-1: n(n-1);
 *       alltoall   pairwise: for k = 1 .. n-1, send to i+k and receive
 *                  from i-k: n(n-1);
 *     each message carries its sender's bytes (the event's);
 *   - sends are eager: a send or isend releases its message and the
 *     program goes on, as the motifs' sends do (twintorus/motif.h); a
 *     send no receive takes is still a message (it enables nothing);
 *   - a message is bytes of payload, at most TT_DEPS_BYTES_MAX; a gap, and
 *     t_ns, at most TT_DEPS_NS_MAX; a rank sends fewer than 2^32.
 *
 * Lines come out in an order causal replay can stream: a message's line
 * before any line that names it as a predecessor (ranks are advanced in
 * turn, each until it waits for a message not yet sent).  A receive that
 * no send matches, ranks that wait for each other, a wait on a request
 * no isend or irecv of the rank started, a peer (or root) outside the
 * communicator, a rank using a communicator it is not a member of, and
 * what breaks a limit above are refused with the rank and the index of
 * the event (in the rank's list, from 0).
 */
#ifndef TWINTORUS_MPITRACE_H
#define TWINTORUS_MPITRACE_H

#include <stddef.h>
#include <stdint.h>

#include "twintorus/deps.h"
#include "twintorus/api.h"

TT_BEGIN_DECLS

enum tt_mpi_kind {
	TT_MPI_COMPUTE = 0,     /* ns: compute for that long */
	TT_MPI_SEND,            /* blocking send: peer = destination */
	TT_MPI_RECV,            /* blocking receive: peer = source */
	TT_MPI_ISEND,           /* non-blocking send, request req */
	TT_MPI_IRECV,           /* non-blocking receive posted, request req */
	TT_MPI_WAIT,            /* request req completes (MPI_Wait, or one of
	                         * MPI_Waitall's requests) */
	TT_MPI_COLL             /* a collective: coll, root, bytes */
};

enum tt_mpi_coll {
	TT_COLL_BARRIER = 0,
	TT_COLL_BCAST,          /* bytes: the buffer, from root */
	TT_COLL_REDUCE,         /* bytes: each rank's contribution, to root */
	TT_COLL_ALLREDUCE,      /* bytes: the vector */
	TT_COLL_GATHER,         /* bytes: each rank's part, to root */
	TT_COLL_SCATTER,        /* bytes: each rank's part, from root */
	TT_COLL_ALLGATHER,      /* bytes: each rank's part */
	TT_COLL_ALLTOALL,       /* bytes: to each other rank */
	TT_COLL_COUNT
};

typedef struct tt_mpi_event {
	uint8_t kind;           /* enum tt_mpi_kind */
	uint8_t coll;           /* enum tt_mpi_coll (TT_MPI_COLL) */
	uint32_t peer;          /* SEND/ISEND: destination, RECV/IRECV:
	                         * source, COLL: root (bcast, reduce, gather,
	                         * scatter; ignored by the others); as a
	                         * rank of comm */
	uint32_t comm;          /* index into tt_mpi_trace.comm */
	int64_t tag;            /* point-to-point matching */
	uint64_t bytes;         /* payload */
	uint64_t req;           /* ISEND/IRECV/WAIT: the request */
	uint64_t ns;            /* COMPUTE: its length */
	uint64_t t_ns;          /* recorded start of the call (timed traces;
	                         * 0 = the first event of the archive) */
} tt_mpi_event;

typedef struct tt_mpi_rank {
	tt_mpi_event *ev;
	size_t n, cap;
} tt_mpi_rank;

/* A communicator: its member i is global rank member[i]. */
typedef struct tt_mpi_comm {
	uint32_t n;
	uint32_t *member;
} tt_mpi_comm;

typedef struct tt_mpi_trace {
	uint32_t nranks;
	tt_mpi_rank *rank;      /* nranks of them */
	uint32_t ncomms;
	tt_mpi_comm *comm;      /* comm 0 is the world (every rank) */
	int timed;              /* t_ns recorded (OTF2; TI traces are not) */
	uint64_t span_ns;       /* recorded: first event to last (timed) */
	char format[16];        /* "otf2", "ti" */
	uint64_t msg_span_ns;   /* recorded: the first message sent to the
	                         * end of the last call that completed a
	                         * receive, what a causal replay's makespan
	                         * measures (timed; 0: none) */
} tt_mpi_trace;

/* An empty trace of nranks (at least 1) ranks and comm 0 (the world).
 * 0, or -1. */
int tt_mpi_trace_init(tt_mpi_trace *t, uint32_t nranks, const char *format);
/* Append e to rank r's program.  0, or -1 (out of memory). */
int tt_mpi_trace_add(tt_mpi_trace *t, uint32_t r, const tt_mpi_event *e);
/* Add a communicator of n members (global ranks); its index, or -1 (out
 * of memory, no member, or one not below nranks). */
int tt_mpi_trace_add_comm(tt_mpi_trace *t, uint32_t n, const uint32_t *member);
void tt_mpi_trace_free(tt_mpi_trace *t);

/* "MPI_Bcast", ...: a collective's name. */
const char *tt_coll_name(enum tt_mpi_coll c);
/* The algorithm a collective becomes, in words (as above). */
const char *tt_mpi_coll_algorithm(enum tt_mpi_coll c);

/* Read a trace: an OTF2 anchor file (ARCHIVE.otf2, written as Score-P
 * writes it) or a SimGrid time-independent trace (the index file that
 * smpirun -trace-ti writes, naming one file per rank, or a directory
 * holding it as smpi_simgrid.txt; twintorus/ti.h).  0, or -1 with err
 * naming the file, and the line or event where it applies.  ti_flops: a
 * TI trace's compute is in flops; it runs at this many flops per second
 * (SimGrid's smpi/host-speed when it was recorded; 0: SimGrid's default,
 * TT_TI_FLOPS_DEFAULT). */
int tt_mpi_trace_read(tt_mpi_trace *t, const char *path, double ti_flops,
    char *err, size_t errsz);
/* 1 if path looks like an MPI-level trace (an .otf2 anchor file, or a TI
 * index file or a directory holding one), 0 if not. */
int tt_mpi_trace_is(const char *path);

/* What the conversion will give, without running it. */
typedef struct tt_mpi_totals {
	uint64_t messages;      /* point-to-point, once each, plus those
	                         * the collectives are decomposed into */
	uint64_t bytes;         /* their payload */
	uint64_t p2p_messages, p2p_bytes;
	uint64_t collectives;   /* collective calls (once per call, not per
	                         * rank) */
	uint64_t compute_ns;    /* over every rank */
} tt_mpi_totals;

/* 0, or -1 with err (a receive without its send, a deadlock). */
int tt_mpi_totals_get(const tt_mpi_trace *t, tt_mpi_totals *tot, char *err,
    size_t errsz);

/* The dependency lines of t, in streaming order. */
typedef struct tt_mpi_deps tt_mpi_deps;

int tt_mpi_deps_open(tt_mpi_deps **dp, const tt_mpi_trace *t, char *err,
    size_t errsz);
tt_dep_stream tt_mpi_deps_stream(tt_mpi_deps *d);
/*
 * How the trace's messages, which are payload, cross the wire: each gets
 * message_header bytes (the MPI library's), is cut into frames of at most
 * segment bytes (0: one frame) and each frame adds frame_header bytes.
 * A message of b bytes is then sent as
 *   b + m + max(1, ceil((b + m) / segment)) * frame_header   (m = message_header)
 * bytes.  Default: all 0, the payload alone.  Before the first line.
 */
void tt_mpi_deps_framing(tt_mpi_deps *d, uint32_t segment,
    uint32_t frame_header, uint32_t message_header);
void tt_mpi_deps_free(tt_mpi_deps *d);

TT_END_DECLS

#endif
