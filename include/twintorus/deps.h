/*
 * twintorus: the dependency file of causal replay.
 *
 * What an application did, as causal replay needs it: one line per
 * message, in the order the PEs sent them, saying which received messages
 * enabled each send and how long its PE computed before it.  `ttsim trace
 * infer` writes it from a trace (twintorus/infer.h), `ttsim app
 * --deps-out` from a motif's own program (the true dependencies), `ttsim
 * replay --causal --deps` reads it (twintorus/causal.h).
 *
 *   # twintorus dependencies 1
 *   # pe seq dst bytes t_ns gap_ns preds
 *   5 12 4 8192 1767225600000412345 20006 4:11 6:11 1:11
 *   5 13 6 8192 1767225600000412345 0 -
 *   ...
 *   # end 7680 messages 23040 predecessors
 *
 * pe, seq: the message (its source PE and that PE's sequence number, as
 * the torus header has them); dst, bytes: where it goes and how long it
 * is; t_ns: when pe sent it, on pe's node's clock (information only);
 * gap_ns: how long after the later of pe's previous send and the arrival
 * of its predecessors pe sent it; preds: the messages (src:seq, each sent
 * to pe) whose arrival enabled it, or "-".  The lines of one PE come in its
 * order, and a message's predecessors come before it, so that a reader can
 * stream the file.  Lines starting with '#' are comments; the last line
 * says how many messages and predecessors there are, so that a file cut
 * short is told from a complete one.  Writers write FILE.part and rename
 * it when complete.
 *
 * A reader takes what a real application can have done and refuses the
 * rest with the file, line and field: a line of at most TT_DEPS_LINE_MAX
 * bytes (refused as soon as that many have been read without a newline),
 * pe, seq, dst and each predecessor's numbers below 2^32, bytes at most
 * TT_DEPS_BYTES_MAX, gap_ns at most TT_DEPS_NS_MAX (a day of compute),
 * and t_ns within TT_DEPS_NS_MAX of the first message's t_ns (a
 * recording of at most a day, node clocks apart by less).
 */
#ifndef TWINTORUS_DEPS_H
#define TWINTORUS_DEPS_H

#include <stdint.h>
#include <stdio.h>
#include "twintorus/api.h"

TT_BEGIN_DECLS

/* The most bytes of a line, its newline not counted (64 KiB: some 3,000
 * predecessors of the longest numbers, more of shorter ones). */
#define TT_DEPS_LINE_MAX  65536u
/* The most bytes of one message (4 GiB). */
#define TT_DEPS_BYTES_MAX (1ull << 32)
/* The most nanoseconds of gap_ns, and of t_ns from the first t_ns (a day). */
#define TT_DEPS_NS_MAX    86400000000000ull

typedef struct tt_depref {
	uint32_t src, seq;
} tt_depref;

typedef struct tt_dep {
	uint32_t pe, seq, dst;
	uint64_t bytes;
	uint64_t t_ns;
	uint64_t gap_ns;
	uint32_t npred;
	const tt_depref *pred;  /* owned by whoever filled it in */
} tt_dep;

/* ---- writing ---- */

typedef struct tt_deps_writer tt_deps_writer;

/* Create path as every output of the tools (twintorus/outfile.h: "-" is
 * standard output; a file is written whole or not at all).  0, or -1
 * with err set. */
int tt_deps_create(tt_deps_writer **wp, const char *path, char *err,
    size_t errsz);
/* 0, or -1 when the write failed or d breaks a limit above that readers
 * hold to (tt_deps_close() says why; the file is then not written). */
int tt_deps_write(tt_deps_writer *w, const tt_dep *d);
/* Why tt_deps_write() refused a message, or NULL (a failed write, or none
 * refused). */
const char *tt_deps_write_error(const tt_deps_writer *w);
/* Write the end line and close: the file is then complete.  0, or -1 with
 * err set (the file is left as it was). */
int tt_deps_close(tt_deps_writer *w, char *err, size_t errsz);
/* Close and forget what was written (an interrupted run). */
void tt_deps_discard(tt_deps_writer *w);

/* ---- reading ---- */

typedef struct tt_deps_reader tt_deps_reader;

int tt_deps_open(tt_deps_reader **rp, const char *path, char *err,
    size_t errsz);
/* The next line: 1 (d->pred valid until the next call), 0 at the end,
 * -1 with err set ("FILE:LINE: what is wrong"). */
int tt_deps_read(tt_deps_reader *r, tt_dep *d, char *err, size_t errsz);
void tt_deps_close_reader(tt_deps_reader *r);

/* ---- a stream of lines: a file, or inference as it goes ---- */

typedef struct tt_dep_stream {
	int (*next)(void *ctx, tt_dep *d, char *err, size_t errsz);
	void *ctx;
} tt_dep_stream;

tt_dep_stream tt_deps_stream(tt_deps_reader *r);

TT_END_DECLS

#endif
