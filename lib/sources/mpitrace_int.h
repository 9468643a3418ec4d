/*
 * The readers of MPI-level traces behind tt_mpi_trace_read(), private to
 * lib/: one file per format (lib/formats/otf2.c; SimGrid's time-independent
 * traces plug in beside it).  Each fills an uninitialised t, or leaves it
 * freed and returns -1 with err naming the file.
 */
#ifndef TWINTORUS_MPITRACE_INT_H
#define TWINTORUS_MPITRACE_INT_H

#include <stddef.h>

#include "twintorus/mpitrace.h"

/* lib/formats/otf2.c: an OTF2 anchor file, as Score-P writes archives.  A build
 * without libotf2 refuses every archive and says why. */
int tt_otf2_read(tt_mpi_trace *t, const char *path, char *err, size_t errsz);
/* 1 if path names an OTF2 anchor file (by its name: FILE.otf2). */
int tt_otf2_is(const char *path);

#endif
