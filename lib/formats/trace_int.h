/*
 * Private to lib/: the one time-merged reader of a cluster's trace files,
 * which trace.c's messages (tt_trace_in: replay, trace stat) and the
 * inference (infer_trace.c) read through, and the rules it shares with the
 * recorder (record.c) and the calibration: how trace files are named, and
 * how a plain frame's addresses map to PEs.
 */
#ifndef TWINTORUS_TRACE_INT_H
#define TWINTORUS_TRACE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "twintorus/trace.h"

/* ---- names ---- */

/*
 * Whether a directory entry is a trace file a reader takes: a name
 * containing ".pcap", not hidden (a copying tool's temporary) and not
 * ending in ".part" (a writer's, twintorus/outfile.h).
 */
int trace_is_name(const char *name);
/*
 * The name of a node's PE trace, as ttd and the recorder write it:
 * HOST-pe.pcap, or n<node>-pe.pcap when host is NULL or empty.  0, or -1
 * (err set) when the name would not be read back by trace_is_name() (a
 * host beginning with "." or holding a "/") or does not fit.
 */
int trace_pe_name(char *buf, size_t bufsz, const char *host, uint32_t node,
    char *err, size_t errsz);
/*
 * The files path names: itself, or, for a directory, its trace files
 * (trace_is_name()) in name order; with pe_only, a ttd trace directory's
 * PE traces only (not the port traces beside them).  *names (n of them,
 * each and the array malloc'd) are the caller's.  0, or -1 with err set.
 */
int trace_files(const char *path, char ***names, size_t *n, int pe_only,
    char *err, size_t errsz);

/* ---- the merged reader ---- */

/* One record of the merge. */
typedef struct trace_item {
	tt_trace_rec rec;       /* t_ns: the latest time before it when it
	                           is older than a record before it */
	tt_frame fr;            /* decoded (valid with rec.data) */
	int plain;              /* not a torus frame: fr holds only the
	                           Ethernet header (tt_frame_decode() == 1) */
	int backwards;          /* its time was raised to the one before */
	size_t file;            /* which file, in the order opened */
	const char *name;       /* the file as messages call it */
} trace_item;

/* What a file held, counted as it is read. */
typedef struct trace_counts {
	uint64_t records;       /* read */
	uint64_t backwards;     /* records older than one before them */
	uint64_t truncated;     /* the record the file ends inside, or 0 */
} trace_counts;

typedef struct trace_merge trace_merge;

/*
 * Open paths (files, "-", directories as trace_files() with pe_only) and
 * read each file's first record.  Each file is read one record at a
 * time: memory holds one record per file, not the files.  0, or -1 with
 * err set ("FILE: ...").
 */
int trace_merge_open(trace_merge **mp, const char *const *paths,
    size_t npaths, char *err, size_t errsz);
/*
 * The next record of all files: by time, then file, then record number.
 * A record whose frame does not decode is an error ("FILE: record N:
 * ...").  *it is valid until the next call.  1, 0 at the end, -1 with err
 * set.
 */
int trace_merge_next(trace_merge *m, trace_item *it, char *err,
    size_t errsz);
size_t trace_merge_nfiles(const trace_merge *m);
const char *trace_merge_path(const trace_merge *m, size_t i);
const char *trace_merge_name(const trace_merge *m, size_t i);
const trace_counts *trace_merge_counts(const trace_merge *m, size_t i);
void trace_merge_close(trace_merge *m);

/* ---- plain frames ---- */

/*
 * The PEs of a plain frame (it->plain) through map, the rule of every
 * reader: by its IP addresses (IPv4 or IPv6, when map has IP entries)
 * when the record holds them and both are mapped, else by its MACs when
 * both are mapped.  An IP frame whose record cuts the IP header (the
 * capture's snap length) and whose MACs do not map is refused: it cannot
 * be placed, and skipping it would lose it without a word.  1 with *src
 * and *dst; 0 when an address is not mapped, with what (may be NULL) the
 * first unmapped address as text (or the frame's EtherType when neither
 * kind applies); -1 with err set ("FILE: record N: ...").
 */
int trace_plain_pes(const tt_addrmap *map, const trace_item *it,
    uint32_t *src, uint32_t *dst, char *what, size_t whatsz, char *err,
    size_t errsz);
/* The two bytes after the MACs, as text (an EtherType, or an 802.3
 * frame's length). */
const char *trace_ethertype_text(uint16_t et, char *buf, size_t bufsz);

#endif
