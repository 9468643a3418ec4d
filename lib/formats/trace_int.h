/*
 * Private to lib/: what the trace readers share (trace.c's merged reader
 * and the inference's, infer_trace.c).
 */
#ifndef TWINTORUS_TRACE_INT_H
#define TWINTORUS_TRACE_INT_H

#include <stddef.h>

/*
 * The files path names: itself, or, for a directory, its trace files
 * (names containing .pcap, not hidden, not a writer's .part) in name
 * order; with pe_only, a ttd trace directory's PE traces only (not the
 * port traces beside them).  *names (n of them, each and the array
 * malloc'd) are the caller's.  0, or -1 with err set.
 */
int trace_files(const char *path, char ***names, size_t *n, int pe_only,
    char *err, size_t errsz);

#endif
