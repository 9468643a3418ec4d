/*
 * Trace files with size rotation, tcpdump -C/-W style: past rotate_bytes
 * the next file of the cycle base, base1, ..., base{keep-1} is started
 * (and overwritten when the cycle comes round).  Files go through the core
 * library's writer (libpcap, nanosecond pcap), written in place so that a
 * reader sees every flushed record; ttd flushes on a timer and on every
 * status request, and ttd_capture_close() flushes and closes.  Reopening
 * (SIGHUP) appends to the file if it is still there and creates it if it
 * was moved away (log rotation), so no record is lost either way.
 *
 * A file is only ever a regular file ttd opened itself: the name is
 * opened with O_NOFOLLOW and checked, and the writer then opens that very
 * file through /proc/self/fd, so a link or a device put in the trace
 * directory is refused, never written through or replaced.
 *
 * A full disk: a flush that fails, or leaves the file shorter than what
 * was written (stdio flushes on its own when its buffer fills, and drops
 * what it could not write), cuts the file back to the end of its last
 * whole record and counts the records since as lost.  It is logged once;
 * every later flush tries again, and the first that works says how many
 * records were lost.  So the file stays readable, `records` counts what
 * it holds, and an append after SIGHUP starts on a record boundary.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "twintorus/trace.h"
#include "ttd.h"

#define PCAP_FILE_HDR	24
#define PCAP_REC_HDR	16

void
ttd_capture_name(const struct ttd_capture *c, int i, char *buf, size_t bufsz)
{
	if (i == 0)
		snprintf(buf, bufsz, "%s", c->base);
	else
		snprintf(buf, bufsz, "%s%d", c->base, i);
}

/* Open path for writing a trace: a regular file (created if missing),
 * not through a link.  The descriptor, or -1 with err set. */
static int
capture_open_file(const char *path, char *err, size_t errsz)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC, 0640);
	if (fd < 0 && errno == ELOOP) {
		snprintf(err, errsz, "%s: a symbolic link; ttd writes traces "
		    "only to files of its own (remove it, or choose another "
		    "trace directory)", path);
		return -1;
	}
	if (fd < 0) {
		snprintf(err, errsz, "%s: cannot create: %s", path,
		    strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errsz, "%s: not a regular file (a device, a "
		    "FIFO, a socket or a directory); ttd writes traces only "
		    "to files of its own (remove it, or choose another trace "
		    "directory)", path);
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The writer on c->fd, appending (a header first if the file is empty).
 * It opens the file through /proc/self/fd, the very file checked; a
 * system without /proc has it opened by name, just after the check.
 */
static int
capture_writer(struct ttd_capture *c, char *err, size_t errsz)
{
	char path[4200], via[64];
	tt_trace_writer *w;
	struct stat st;

	ttd_capture_name(c, c->cur, path, sizeof(path));
	snprintf(via, sizeof(via), "/proc/self/fd/%d", c->fd);
	if (tt_trace_create(&w, access(via, F_OK) == 0 ? via : path,
	    TT_TRACE_APPEND, err, errsz) < 0) {
		snprintf(err, errsz, "%s: cannot append to it (not a "
		    "nanosecond Ethernet pcap file? move it away)", path);
		return -1;
	}
	c->w = w;
	if (fstat(c->fd, &st) < 0)
		st.st_size = 0;
	/* an empty file gets its header, still in the writer's buffer */
	c->synced = (uint64_t)st.st_size;
	c->bytes = st.st_size > 0 ? (uint64_t)st.st_size : PCAP_FILE_HDR;
	return 0;
}

/* Start file c->cur: a new one, or (append) go on at the end of it. */
static int
capture_start(struct ttd_capture *c, int append, char *err, size_t errsz)
{
	char path[4200];

	ttd_capture_name(c, c->cur, path, sizeof(path));
	c->fresh = !append;
	c->fd = capture_open_file(path, err, errsz);
	if (c->fd < 0)
		return -1;
	if (!append && ftruncate(c->fd, 0) < 0) {
		snprintf(err, errsz, "%s: cannot empty it: %s", path,
		    strerror(errno));
		close(c->fd);
		c->fd = -1;
		return -1;
	}
	c->fresh = 0;
	if (capture_writer(c, err, errsz) < 0) {
		close(c->fd);
		c->fd = -1;
		return -1;
	}
	return 0;
}

static void
capture_stop(struct ttd_capture *c)
{
	char err[256];

	if (c->w != NULL)
		(void)tt_trace_close(c->w, err, sizeof(err));
	c->w = NULL;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

int
ttd_capture_open(struct ttd_capture *c, const char *base,
    uint64_t rotate_bytes, int keep, char *err, size_t errsz)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	snprintf(c->base, sizeof(c->base), "%s", base);
	c->rotate_bytes = rotate_bytes;
	c->keep = keep > 0 ? keep : 1;
	return capture_start(c, 0, err, errsz);
}

/* A write did not reach the file: cut it back to its last whole record,
 * count what is lost and say so (once until a flush works again). */
static void
capture_failed(struct ttd_capture *c, const char *why)
{
	char path[4200];

	ttd_capture_name(c, c->cur, path, sizeof(path));
	if (!c->failing)
		ttd_log(TTD_LOG_ERR, "capture", "%s: %s; records are counted "
		    "as lost until writing works again", path, why);
	c->failing = 1;
	c->lost += c->pending;
	c->pending = 0;
	if (c->w != NULL) {
		char err[256];

		(void)tt_trace_close(c->w, err, sizeof(err));
		c->w = NULL;
	}
	if (c->fd >= 0 && ftruncate(c->fd, (off_t)c->synced) < 0)
		ttd_log_errno(TTD_LOG_ERR, "capture", "%s: cannot cut it back "
		    "to its last whole record", path);
	c->bytes = c->synced;
}

int
ttd_capture_flush(struct ttd_capture *c)
{
	char why[160], err[512];
	struct stat st;

	if (c->w == NULL) {
		/* after a failure: open again and see on the next flush */
		if ((c->fd < 0 ? capture_start(c, !c->fresh, err,
		    sizeof(err)) : capture_writer(c, err, sizeof(err))) < 0)
			return -1;
		return 0;
	}
	if (tt_trace_flush(c->w) < 0) {
		snprintf(why, sizeof(why), "write failed: %s",
		    strerror(errno));
		capture_failed(c, why);
		return -1;
	}
	if (fstat(c->fd, &st) < 0 || (uint64_t)st.st_size != c->bytes) {
		capture_failed(c, "write failed: records did not reach the "
		    "file (disk full?)");
		return -1;
	}
	if (c->failing && c->pending > 0) {
		char path[4200];

		/* records reached the file: the disk has room again */
		ttd_capture_name(c, c->cur, path, sizeof(path));
		ttd_log(TTD_LOG_NOTICE, "capture", "%s: writing again; %llu "
		    "records lost in all", path, (unsigned long long)c->lost);
		c->failing = 0;
	}
	c->records += c->pending;
	c->pending = 0;
	c->synced = c->bytes;
	return 0;
}

/* Past the rotation size: the records so far to the file, then the next
 * file of the cycle, started anew. */
static int
capture_rotate(struct ttd_capture *c)
{
	char err[512];

	if (ttd_capture_flush(c) < 0)
		return -1;
	capture_stop(c);
	c->cur = (c->cur + 1) % c->keep;
	if (capture_start(c, 0, err, sizeof(err)) < 0) {
		c->fresh = 1;
		if (!c->failing)
			ttd_log(TTD_LOG_ERR, "capture", "%s; records are "
			    "counted as lost until it works", err);
		c->failing = 1;
		return -1;
	}
	return 0;
}

void
ttd_capture_write(struct ttd_capture *c, uint64_t t_ns, const uint8_t *buf,
    size_t len)
{
	uint64_t add = PCAP_REC_HDR + len;

	/* a file holds at least one record, as tcpdump's */
	if (c->w != NULL && c->rotate_bytes > 0 &&
	    c->bytes > PCAP_FILE_HDR && c->bytes + add > c->rotate_bytes)
		(void)capture_rotate(c);
	if (c->w == NULL || tt_trace_write(c->w, t_ns, buf, (uint32_t)len,
	    (uint32_t)len) < 0) {
		c->lost++;
		return;
	}
	c->bytes += add;
	c->pending++;
}

int
ttd_capture_reopen(struct ttd_capture *c, char *err, size_t errsz)
{
	if (c->w != NULL)
		(void)ttd_capture_flush(c);
	capture_stop(c);
	if (capture_start(c, !c->fresh, err, errsz) < 0) {
		c->failing = 1;
		return -1;
	}
	return 0;
}

int
ttd_capture_close(struct ttd_capture *c, char *err, size_t errsz)
{
	int r = 0;

	if (c->w != NULL && ttd_capture_flush(c) < 0) {
		snprintf(err, errsz, "%s: %llu records lost", c->base,
		    (unsigned long long)c->lost);
		r = -1;
	}
	capture_stop(c);
	return r;
}
