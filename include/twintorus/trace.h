/*
 * twintorus: traces.
 *
 * A trace is a pcap file with nanosecond timestamps and link type Ethernet
 * whose records are torus frames (twintorus/frame.h).  A cluster trace is
 * one file per node; readers merge several files (or a directory of them)
 * by timestamp.  Everything goes through libpcap: pcap is written, pcap and
 * pcapng are read.
 *
 * A data frame is one message: source PE, destination PE, bytes (the
 * carried frame's length on the wire, whatever the capture kept of it) and
 * time.  Hello frames and the copies ttd records at delivery
 * (TT_FRAME_F_DELIVERED) are counted and skipped.  A plain capture
 * (Ethernet/IP without the torus header, e.g. tcpdump of a real cluster) is
 * read through an address map: a frame whose source and destination IP (or
 * MAC) addresses are both mapped is a message of the frame's length.
 */
#ifndef TWINTORUS_TRACE_H
#define TWINTORUS_TRACE_H

#include <stdint.h>
#include <stdio.h>
#include "twintorus/config.h"
#include "twintorus/frame.h"
#include "twintorus/topo.h"
#include "twintorus/api.h"

TT_BEGIN_DECLS

/* The largest record a writer accepts and a reader expects. */
#define TT_TRACE_SNAPLEN 262144
/*
 * The most bytes one record may claim for its message (64 MiB; a million
 * packets of 64 bytes).  A ttd capture holds frames of at most
 * TT_FRAME_MAX bytes; `ttsim trace synth` writes one record per message of
 * any size up to this; a record claiming more is taken as damaged.
 */
#define TT_TRACE_MSG_MAX (64u << 20)

/* ---- writing ---- */

typedef struct tt_trace_writer tt_trace_writer;

/*
 * Create a trace.  TT_TRACE_INPLACE writes path, and leaves it ending on a
 * whole record after any stop: a failed write (a full disk) makes close
 * cut it at its last whole record (and say how many it keeps), and so
 * does a signal that ends the process (twintorus/outfile.h's handler); a
 * file without its whole header is removed.  TT_TRACE_ATOMIC opens path
 * as every output of the tools (twintorus/outfile.h): "-" is standard
 * output, a FIFO or a device is written through, and a file (or the file a
 * symbolic link names) is written under a temporary name beside it that
 * close renames over it, so that the trace is then either complete or as
 * it was; TT_TRACE_APPEND goes on at the end of an existing trace at path
 * (same link type and precision) or creates it.  0, or -1 with err set.
 * A write that fails is remembered with its reason, which close reports.
 */
enum { TT_TRACE_INPLACE = 0, TT_TRACE_ATOMIC = 1, TT_TRACE_APPEND = 2 };
int tt_trace_create(tt_trace_writer **wp, const char *path, int mode,
    char *err, size_t errsz);
/* One record: caplen bytes of data kept, wirelen on the wire. */
int tt_trace_write(tt_trace_writer *w, uint64_t t_ns, const uint8_t *data,
    uint32_t caplen, uint32_t wirelen);
/* Push buffered records to the file (they are then readable). */
int tt_trace_flush(tt_trace_writer *w);
/* Flush, close and (atomic) rename.  0, or -1 with err set. */
int tt_trace_close(tt_trace_writer *w, char *err, size_t errsz);
/* Close and delete what was written (an interrupted atomic write). */
void tt_trace_discard(tt_trace_writer *w);

/* ---- messages ---- */

typedef struct tt_msg {
	uint64_t t_ns;          /* capture time, ns since the epoch */
	uint32_t src, dst;      /* PEs */
	uint32_t seq;           /* the frame's sequence (0 for plain frames) */
	uint64_t bytes;         /* carried bytes (torus), frame bytes (plain) */
	uint32_t file;          /* which input file */
	uint64_t recno;         /* its record number there, from 1 */
} tt_msg;

/*
 * One data frame of a message, header only: the record keeps the Ethernet
 * and torus headers (30 bytes) and says on the wire 30 + m->bytes.  The
 * MACs are the PEs' own, as ttd gives them (tt_pe_mac(), twintorus/frame.h).
 * -1 when m->bytes is more than TT_TRACE_MSG_MAX.
 */
int tt_trace_write_msg(tt_trace_writer *w, const tt_msg *m);
/* The copy of message m that ttd records when it delivers it to m->dst
 * (TT_FRAME_F_DELIVERED), at m->t_ns on the destination's clock. */
int tt_trace_write_delivery(tt_trace_writer *w, const tt_msg *m);

/* ---- reading one file ---- */

typedef struct tt_trace_rec {
	uint64_t t_ns;
	uint32_t caplen, wirelen;
	const uint8_t *data;    /* valid until the next read */
	uint64_t recno;         /* from 1 */
} tt_trace_rec;

typedef struct tt_trace_reader tt_trace_reader;

/*
 * Open a pcap or pcapng file of Ethernet frames; "-" is standard input, a
 * pipe or a redirected file (a pipe is read once: what a process reads of
 * it is kept in an unlinked temporary file, so that "-" can be opened
 * again and read from its start).  A path naming a pipe (/dev/stdin, a
 * FIFO, /dev/fd/N) is read the same way, once per process: the same pipe
 * under two names, or as "-", is one stream.  A regular file opened is
 * noted as an input of the process (tt_outfile_input()).  Refuses an
 * empty file, a file that is neither format, and another link type,
 * saying which (and its number).
 */
int tt_trace_open(tt_trace_reader **rp, const char *path, char *err,
    size_t errsz);
/* The same on a stream, which the reader then owns (closed on failure
 * too); name is what messages call it. */
int tt_trace_fopen(tt_trace_reader **rp, FILE *f, const char *name,
    char *err, size_t errsz);
/* What messages call a trace path: the path, or "standard input" for "-". */
const char *tt_trace_name(const char *path);
/*
 * 1 with a record, 0 at the end, -1 with err set.  A file that ends inside
 * a record ends there: 0, and tt_trace_truncated() gives that record's
 * number.
 */
int tt_trace_read(tt_trace_reader *r, tt_trace_rec *rec, char *err,
    size_t errsz);
uint64_t tt_trace_truncated(const tt_trace_reader *r);
void tt_trace_close_reader(tt_trace_reader *r);

/* ---- the address map of plain captures ---- */

typedef struct tt_addrent {
	int kind;               /* enum tt_addr_kind */
	uint8_t bytes[16];
	uint32_t pe;
} tt_addrent;

typedef struct tt_addrmap {
	tt_addrent *e;          /* sorted by (kind, bytes) */
	size_t n;
	int has_ip, has_mac;
} tt_addrmap;

/* Resolve cfg's addresses: against net.  Errors "file:line:col: ..." go
 * to errs; returns how many there were. */
int tt_addrmap_build(tt_addrmap *m, const tt_config *cfg, const tt_net *net,
    FILE *errs);
/* The PE of an address, or -1. */
int64_t tt_addrmap_find(const tt_addrmap *m, int kind, const uint8_t *bytes);
void tt_addrmap_free(tt_addrmap *m);

/* ---- reading a cluster trace: several files merged by time ---- */

#define TT_TRACE_UNMAPPED_MAX 16

typedef struct tt_trace_stats {
	uint64_t records;       /* read */
	uint64_t messages;      /* data frames turned into messages */
	uint64_t bytes;         /* their bytes */
	uint64_t plain;         /* of the messages: plain frames */
	uint64_t hello;         /* hello and credit frames, skipped */
	uint64_t delivered;     /* delivery copies, skipped */
	uint64_t unmapped;      /* plain frames with an unmapped address */
	uint64_t listed;        /* plain frames given to a listing (no map) */
	uint64_t backwards;     /* records older than one before them (taken
	                           at the latest time before them) */
	uint64_t oversize;      /* records longer on the wire than TT_FRAME_MAX */
	uint64_t oversize_max;  /* the longest of them */
	uint64_t truncated;     /* record cut off by the end of the file, or 0 */
	uint64_t first_ns, last_ns;
	/* the unmapped addresses seen, most frequent kept */
	struct { char text[64]; uint64_t count; } unmapped_addr[TT_TRACE_UNMAPPED_MAX];
	size_t nunmapped_addr;
	uint64_t unmapped_other;   /* frames whose address did not fit above */
} tt_trace_stats;

typedef struct tt_trace_in tt_trace_in;

/* A frame that is not a torus frame, read with no address map. */
typedef int (*tt_trace_plain_fn)(void *ctx, const tt_trace_rec *rec,
    const tt_frame *f);

/*
 * Open paths (files, "-" for standard input, or directories whose *.pcap*
 * files are taken in name order; in a ttd trace directory, one with
 * HOST-pe.pcap files, only those: the port traces beside them hold each
 * frame again on every hop) for reading messages in time order.  map
 * may be NULL (torus frames only); npes > 0 refuses PE ids outside
 * 0..npes-1.  0, or -1 with err set ("FILE: ...").
 */
int tt_trace_in_open(tt_trace_in **inp, const char *const *paths,
    size_t npaths, const tt_addrmap *map, uint32_t npes, char *err,
    size_t errsz);
/*
 * The same, for listing what a plain capture holds before its address map
 * is written: with map NULL (or empty), a frame that is not a torus frame
 * is handed to fn and skipped (counted in stats.listed) instead of
 * refused.  fn returns 0, or -1 (out of memory) to stop the reading.
 */
int tt_trace_in_open_listing(tt_trace_in **inp, const char *const *paths,
    size_t npaths, const tt_addrmap *map, uint32_t npes, tt_trace_plain_fn fn,
    void *ctx, char *err, size_t errsz);
/*
 * The next message of all files, in timestamp order (ties: file order, then
 * record order).  1, 0 at the end, -1 with err set ("FILE: record N: ...").
 * A record older than one before it in its file is taken at the latest
 * time before it.
 */
int tt_trace_in_next(tt_trace_in *in, tt_msg *m, char *err, size_t errsz);
size_t tt_trace_in_nfiles(const tt_trace_in *in);
const char *tt_trace_in_path(const tt_trace_in *in, size_t i);
/* Statistics of file i, or of all files for i == nfiles. */
const tt_trace_stats *tt_trace_in_stats(tt_trace_in *in, size_t i);
/* One line per thing a user should know (a truncated last record,
 * unmapped addresses, records out of order, records longer than ttd
 * carries), "FILE: ...". */
void tt_trace_in_warnings(const tt_trace_in *in, FILE *f, const char *prefix);
void tt_trace_in_close(tt_trace_in *in);

/* ---- counting what a trace holds (ttsim trace stat) ---- */

/*
 * Messages per PE and per source x destination pair, and per address of
 * the plain frames of a capture read without a map; all by hash, so that
 * memory follows what the trace holds, not the size of the ids in it.
 */
typedef struct tt_tally tt_tally;

typedef struct tt_tally_pe {
	uint32_t pe;
	uint64_t sent_messages, sent_bytes;
	uint64_t received_messages, received_bytes;
} tt_tally_pe;

typedef struct tt_tally_pair {
	uint32_t src, dst;
	uint64_t messages, bytes;
} tt_tally_pair;

typedef struct tt_tally_addr {
	int kind;               /* enum tt_addr_kind */
	uint8_t bytes[16];      /* 4, 16 or 6 significant */
	uint64_t sent_frames, sent_bytes;         /* as source */
	uint64_t received_frames, received_bytes; /* as destination */
} tt_tally_addr;

/* 0, or -1 out of memory (then the tally is incomplete). */
int tt_tally_create(tt_tally **tp);
int tt_tally_msg(tt_tally *t, const tt_msg *m);
/* A plain frame: its MACs, and its IP addresses when the record holds the
 * whole IPv4 or IPv6 header; bytes are the frame's on the wire. */
int tt_tally_frame(tt_tally *t, const tt_trace_rec *rec, const tt_frame *f);
uint64_t tt_tally_frames(const tt_tally *t);
/* Sorted copies, valid until the next call of the same function or
 * tt_tally_free(); NULL when out of memory.  PEs by id; pairs busiest
 * (bytes) first, then by source and destination; addresses with the most
 * frames first, then IPv4, IPv6, MAC, then by address. */
const tt_tally_pe *tt_tally_pes(tt_tally *t, size_t *n);
const tt_tally_pair *tt_tally_pairs(tt_tally *t, size_t *n);
const tt_tally_addr *tt_tally_addrs(tt_tally *t, size_t *n);
void tt_tally_free(tt_tally *t);
/* An address as text: 10.0.0.1, fd00::1, 02:00:00:00:00:01. */
const char *tt_addr_text(int kind, const uint8_t *bytes, char *buf,
    size_t bufsz);

TT_END_DECLS

#endif
