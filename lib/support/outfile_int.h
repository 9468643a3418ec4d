/*
 * Inside the library: files a signal must not leave half written
 * (lib/support/outfile.c).
 */
#ifndef TT_OUTFILE_INT_H
#define TT_OUTFILE_INT_H

/*
 * On a signal that would end the process (SIGINT, SIGTERM, SIGHUP,
 * SIGPIPE, SIGXFSZ, at their default action), call fn(path) before it
 * does; fn calls only async-signal-safe functions.  path is kept, not
 * copied, until forgotten.  0, or -1 when out of memory.
 */
int outfile_at_signal(const char *path, void (*fn)(const char *path));
void outfile_at_signal_forget(const char *path);

#endif
