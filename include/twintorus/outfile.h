/*
 * twintorus: opening a file a program writes whole (a trace, a CSV, a plot).
 *
 * Every such output of the tools goes through here, so that a PATH given
 * to -o, --csv or --plot means the same everywhere:
 *
 *   "-"             standard output (a duplicate of descriptor 1, so that
 *                   closing the output leaves stdout open)
 *   a regular file, or nothing yet
 *                   written under a temporary name in the same directory
 *                   ("PATH.XXXXXX.part") and renamed over PATH when closed:
 *                   PATH is then complete, or as it was (never half
 *                   written).  A file replaced keeps its permission bits; a
 *                   new one gets 0666 less the umask, as a shell's > would.
 *   a symbolic link followed (and a chain of them): the file it names is
 *                   replaced as above, the link stays a link
 *   a FIFO or a character device (/dev/stdout, /dev/null, a named pipe)
 *                   written through, in order, as a shell's > would: there
 *                   is no file to replace
 *   a directory, a socket or a block device
 *                   refused, saying which
 *
 * Writes go through a stdio stream whose first failing write is kept, so
 * that close can say why ("No space left on device"), not "Success".
 *
 * An output never replaces an input of the same process: the readers of
 * the library note the files they open (tt_outfile_input()), and a file
 * to be replaced that is one of them (the same device and inode, so
 * through symbolic links and hard links too) is refused at open, and again
 * at close for an input read after the output was opened, naming both.
 *
 * A signal that would end the process (SIGINT, SIGTERM, SIGHUP, SIGPIPE,
 * SIGXFSZ) removes the temporary files of the outputs still open before
 * it does (and cuts the traces written in place at their last whole
 * record, twintorus/trace.h), unless the program ignores it or handles it
 * itself (it then discards its outputs on its way out).  The handler is
 * installed at the first such file, over the default action only, and
 * acts in the process that opened the files, not in a forked child.
 * Outputs are single-threaded (the umask is read by setting it); noting
 * an input may happen in any thread.
 */
#ifndef TWINTORUS_OUTFILE_H
#define TWINTORUS_OUTFILE_H

#include <stddef.h>
#include <stdio.h>
#include "twintorus/api.h"

TT_BEGIN_DECLS

typedef struct tt_outfile tt_outfile;

/* 0, or -1 with err set ("PATH: is a directory", ...). */
int tt_outfile_open(tt_outfile **op, const char *path, char *err,
    size_t errsz);
/* The stream to write to; tt_outfile_close() closes it. */
FILE *tt_outfile_file(tt_outfile *o);
/*
 * Another stream onto the output, for a library that closes the stream it
 * is given (libpcap's pcap_dump_close): closing it releases only the
 * stream; its write errors count as the output's.  Close it before
 * tt_outfile_close().  NULL when out of memory.
 */
FILE *tt_outfile_stream(tt_outfile *o);
/*
 * The name under which another program can open the output itself
 * (gnuplot's "set output"): the temporary file, or the path itself when it
 * is written through; NULL for standard output.
 */
const char *tt_outfile_path(const tt_outfile *o);
/* For messages: the path as given, or "standard output". */
const char *tt_outfile_name(const tt_outfile *o);
/* Flush, check every write, close and (temporary file) rename over the
 * target.  0, or -1 with err set; either way o is freed. */
int tt_outfile_close(tt_outfile *o, char *err, size_t errsz);
/* Close and remove the temporary file: the target stays as it was.  What
 * was written through to a FIFO or a device cannot be taken back. */
void tt_outfile_discard(tt_outfile *o);
/*
 * Note a file the process reads (a regular file: a pipe or a device is
 * not replaced by anything), by path ("-": standard input) or by an open
 * descriptor; name is what messages call it.  A path that cannot be found
 * is not noted (its reader says why).  0, or -1 when out of memory.
 */
int tt_outfile_input(const char *path);
int tt_outfile_input_fd(int fd, const char *name);
/*
 * A temporary file for what a command makes on the side (gnuplot's data):
 * $TMPDIR (else /tmp)/ttsim-WHAT-XXXXXX.SUFFIX, created with mode 0600,
 * its name written into path (pathsz bytes, kept by the caller until
 * tt_outfile_temp_remove()), and removed by a signal that ends the
 * process, as .part files are.  An open descriptor, or -1 with errno set.
 */
int tt_outfile_temp(char *path, size_t pathsz, const char *what,
    const char *suffix);
/* Remove the temporary file at path (made by tt_outfile_temp()). */
void tt_outfile_temp_remove(const char *path);
/*
 * At a program's end: flush standard output and check that everything
 * printed reached it (a full disk or a closed pipe must not pass for
 * success).  0, or -1 after printing "PROG: cannot write standard output:
 * REASON" on standard error.  Flushed, not closed.
 */
int tt_stdout_done(const char *prog);

TT_END_DECLS

#endif
