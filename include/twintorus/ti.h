/*
 * twintorus: SimGrid time-independent (TI) traces, read and written.
 *
 * `smpirun -trace-ti` (SimGrid 3.32) writes an index file naming one
 * action file per rank (the index's line i is rank i's file), and each
 * action file holds that rank's MPI calls, one a line, each starting with
 * the rank:
 *
 *   0 init
 *   0 compute 7.22292                  flops since the previous call
 *   0 send 1 7 10 0                    partner tag count [datatype]
 *   0 irecv 3 3 5 1                    (isend, recv alike)
 *   0 wait 3 0 4                       source destination tag
 *   0 waitall 2
 *   0 bcast 8 0 0                      count [root [datatype]]
 *   0 finalize
 *
 * Counts are in elements of a datatype, named by SimGrid's number for it
 * (0 MPI_DOUBLE, 1 MPI_INT, 2 MPI_CHAR, 6 MPI_BYTE, ...); a line without
 * one means the default type (MPI_BYTE, or MPI_DOUBLE after an "init"
 * with an argument), as SimGrid's replay has it.  An index of a single
 * line names one file holding every rank's lines.
 *
 * Reading fills a tt_mpi_trace (twintorus/mpitrace.h: format "ti", not
 * timed), each rank's program as SimGrid's replay (smpi_replay.cpp) runs
 * it, on MPI_COMM_WORLD:
 *
 *   compute F          compute for F / flops seconds (flops: the rate,
 *                      SimGrid's smpi/host-speed when it was recorded)
 *   sleep S            compute for S seconds
 *   send, isend, recv, irecv, Ssend
 *                      the point-to-point calls (Ssend, which SimGrid's
 *                      replay does not take, a send: sends are eager); a
 *                      receive of unknown size (a negative count) is one
 *                      of 0 bytes
 *   wait S D T         completes the oldest pending request of source S,
 *                      destination D and tag T (refused when none is)
 *   waitall            completes every pending request of the rank
 *   sendRecv SC D RC S an isend of SC to D and an irecv of RC from S, both
 *                      tag 0 (as SimGrid replays it), then both waited
 *   barrier, bcast, reduce, allreduce, gather, scatter, allgather,
 *   alltoall           the collectives (reduce and allreduce then compute
 *                      their recorded flops)
 *   gatherv, allgatherv, scatterv, alltoallv, reducescatter, scan, exscan
 *                      approximated as the OTF2 reader does: a v variant
 *                      is its base with each rank's own part (alltoallv:
 *                      the mean of its parts), reducescatter an alltoall
 *                      of the mean block, scan and exscan an allreduce;
 *                      the last three then compute their flops
 *   init, finalize, comm_size, comm_split, comm_dup, location, test
 *                      nothing (test: the request stays pending until a
 *                      wait, a waitall or the end, an approximation)
 *
 * Requests still pending at the end of a rank's file complete there, as
 * SimGrid's replay waits for them.  Any other action, a receive from
 * MPI_ANY_SOURCE or with MPI_ANY_TAG, a datatype that is not one of
 * SimGrid's predefined ones, a wait with no such request pending, a line
 * whose rank is not its file's and a line over TT_TI_LINE_MAX are refused
 * with FILE:LINE and what is wrong.
 *
 * Writing (tt_ti_export) turns dependency lines (twintorus/deps.h) into a
 * TI trace that SimGrid replays (smpirun -replay INDEX, run in the
 * trace's directory: the index names the rank files relative to it).
 */
#ifndef TWINTORUS_TI_H
#define TWINTORUS_TI_H

#include <stddef.h>
#include <stdint.h>

#include "twintorus/deps.h"
#include "twintorus/mpitrace.h"
#include "twintorus/api.h"

TT_BEGIN_DECLS

/* SimGrid's default smpi/host-speed (3.32: "20000f"), flops per second:
 * the rate of a TI trace's compute unless told otherwise. */
#define TT_TI_FLOPS_DEFAULT 20000.0
/* The index file tt_ti_export() writes, and the one a directory given to
 * the reader is looked for under (smpirun -trace-ti's default name). */
#define TT_TI_INDEX "smpi_simgrid.txt"
/* The longest line read, its newline not counted (64 KiB: the counts of
 * an alltoallv of some 3,000 ranks). */
#define TT_TI_LINE_MAX 65536u

/* Read the TI trace of index (a file, or a directory holding TT_TI_INDEX)
 * into t (initialised here; tt_mpi_trace_free() it).  A relative name in
 * the index is taken from the index's directory, else from its part from
 * the index's own NAME_files/ on (SimGrid writes the names as smpirun, in
 * its own working directory, opened them), else as given.  flops: the compute
 * rate (flops per second, > 0).  0, or -1 with err ("FILE:LINE: ...") and
 * t left empty. */
int tt_ti_read(tt_mpi_trace *t, const char *index, double flops, char *err,
    size_t errsz);
/* 1 if path is a TI index (or a directory holding TT_TI_INDEX): its first
 * line names a file whose first action line starts with a rank and an
 * action name.  0 if not. */
int tt_ti_is(const char *path);

/* What tt_ti_export() wrote. */
typedef struct tt_ti_export_stats {
	uint32_t ranks;         /* rank files */
	uint64_t messages;      /* isend actions (one per dependency line) */
	uint64_t bytes;
	uint64_t recv_before;   /* receives placed before the send they
	                         * enable */
	uint64_t recv_after;    /* receives that enable nothing, at the end */
	uint64_t computes;      /* compute actions */
	double flops;           /* their flops */
} tt_ti_export_stats;

/*
 * Write the dependency lines of deps as a TI trace in directory dir: the
 * index TT_TI_INDEX and rank-R.txt for R below nranks.  Each rank's file:
 * init; per message it sends, in its order, a blocking recv of each
 * predecessor not received yet, a compute of its gap (gap_ns at flops per
 * second) and an isend (never blocking: SimGrid's replay matches by
 * source and tag, and an isend of a message whose receive comes later
 * must not wait for it); then a recv of each message sent to it that
 * enabled nothing, in the order they were sent; a waitall; finalize.  A
 * message's tag is its seq (below 2^31), so each receive matches its one
 * message.
 *
 * dir is written whole or not at all: into a new directory beside it,
 * renamed to dir at the end (and removed by a signal that ends the
 * process, as twintorus/outfile.h's temporary files are).  An existing dir must be empty, or (replace)
 * hold regular files only, which are then removed.  0, or -1 with err.
 */
int tt_ti_export(const char *dir, int replace, tt_dep_stream deps,
    uint32_t nranks, double flops, tt_ti_export_stats *st, char *err,
    size_t errsz);

TT_END_DECLS

#endif
