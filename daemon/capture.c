/*
 * Trace files with size rotation, tcpdump -C/-W style: past rotate_bytes
 * the next file of the cycle base, base1, ..., base{keep-1} is started
 * (and overwritten when the cycle comes round).  Files go through the core
 * library's writer (libpcap, nanosecond pcap), written in place so that a
 * reader sees every flushed record; ttd flushes on a timer and on every
 * status request, and ttd_capture_close() flushes and closes.  Reopening
 * (SIGHUP) appends to the file if it is still there and creates it if it
 * was moved away (log rotation), so no record is lost either way.
 */
#include <stdio.h>
#include <string.h>
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

/* Start file c->cur: a new one, or (append) go on at the end of it. */
static int
capture_start(struct ttd_capture *c, int append, char *err, size_t errsz)
{
	char path[4200];
	tt_trace_writer *w;
	struct stat st;

	ttd_capture_name(c, c->cur, path, sizeof(path));
	if (tt_trace_create(&w, path, append ? TT_TRACE_APPEND :
	    TT_TRACE_INPLACE, err, errsz) < 0)
		return -1;
	c->w = w;
	c->bytes = append && stat(path, &st) == 0 && st.st_size >
	    PCAP_FILE_HDR ? (uint64_t)st.st_size : PCAP_FILE_HDR;
	return 0;
}

int
ttd_capture_open(struct ttd_capture *c, const char *base,
    uint64_t rotate_bytes, int keep, char *err, size_t errsz)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->base, sizeof(c->base), "%s", base);
	c->rotate_bytes = rotate_bytes;
	c->keep = keep > 0 ? keep : 1;
	return capture_start(c, 0, err, errsz);
}

int
ttd_capture_write(struct ttd_capture *c, uint64_t t_ns, const uint8_t *buf,
    size_t len, char *err, size_t errsz)
{
	uint64_t add = PCAP_REC_HDR + len;

	if (c->w == NULL)
		return 0;
	/* a file holds at least one record, as tcpdump's */
	if (c->rotate_bytes > 0 && c->bytes > PCAP_FILE_HDR &&
	    c->bytes + add > c->rotate_bytes) {
		if (tt_trace_close(c->w, err, errsz) < 0) {
			c->w = NULL;
			return -1;
		}
		c->w = NULL;
		c->cur = (c->cur + 1) % c->keep;
		if (capture_start(c, 0, err, errsz) < 0)
			return -1;
	}
	if (tt_trace_write(c->w, t_ns, buf, (uint32_t)len, (uint32_t)len) < 0) {
		snprintf(err, errsz, "%s: write failed", c->base);
		return -1;
	}
	c->bytes += add;
	c->records++;
	return 0;
}

int
ttd_capture_flush(struct ttd_capture *c)
{
	return c->w == NULL ? 0 : tt_trace_flush(c->w);
}

int
ttd_capture_reopen(struct ttd_capture *c, char *err, size_t errsz)
{
	if (c->w != NULL && tt_trace_close(c->w, err, errsz) < 0) {
		c->w = NULL;
		return -1;
	}
	c->w = NULL;
	return capture_start(c, 1, err, errsz);
}

int
ttd_capture_close(struct ttd_capture *c, char *err, size_t errsz)
{
	int r = 0;

	if (c->w != NULL)
		r = tt_trace_close(c->w, err, errsz);
	c->w = NULL;
	return r;
}
