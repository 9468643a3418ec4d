/*
 * Writing traces through libpcap (twintorus/trace.h): nanosecond pcap,
 * in place (cut to its last whole record after a failed write or a
 * signal), atomic or appended; and the header-only records of messages.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/errf.h"
#include "support/outfile_int.h"
#include "twintorus/outfile.h"
#include "twintorus/trace.h"

struct tt_trace_writer {
	pcap_t *dead;
	pcap_dumper_t *dump;
	char *path;
	tt_outfile *out;        /* TT_TRACE_ATOMIC; NULL: libpcap's own file */
	int mode;
	int werr;               /* errno of the first failed write, or 0 */
};

static void
writer_free(tt_trace_writer *w)
{
	if (w->mode == TT_TRACE_INPLACE && w->path != NULL)
		outfile_at_signal_forget(w->path);
	pcap_close(w->dead);
	free(w->path);
	free(w);
}

/* The pcap file header, and the header of each record: 4 x 32 bits in the
 * writer's byte order, the third the bytes kept (libpcap's savefile). */
#define PCAP_FILE_HLEN 24
#define PCAP_REC_HLEN 16

/*
 * A trace written in place whose writing failed (a full disk) ends inside
 * a record, or inside the buffer that held it: cut it at the end of its
 * last whole record, so that readers take it as a shorter complete trace,
 * as after an interrupt, and do not guess at the cut.  A file without its
 * whole header holds nothing and is removed.  The number of records kept,
 * -1 when the file cannot be read back, -2 when it was removed.  Only
 * async-signal-safe calls: a signal that ends the process does the same
 * (trim_at_signal()).
 */
static int64_t
trim_to_record(const char *path)
{
	uint8_t h[PCAP_REC_HLEN];
	uint32_t caplen;
	off_t end = PCAP_FILE_HLEN;
	struct stat st;
	int64_t n = 0;
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || st.st_size < PCAP_FILE_HLEN) {
		close(fd);
		unlink(path);
		return -2;
	}
	while (end + PCAP_REC_HLEN <= st.st_size &&
	    pread(fd, h, sizeof(h), end) == (ssize_t)sizeof(h)) {
		memcpy(&caplen, h + 8, sizeof(caplen));
		if (end + PCAP_REC_HLEN + (off_t)caplen > st.st_size)
			break;
		end += PCAP_REC_HLEN + (off_t)caplen;
		n++;
	}
	if (ftruncate(fd, end) != 0)
		n = -1;
	close(fd);
	return n;
}

static void
trim_at_signal(const char *path)
{
	(void)trim_to_record(path);
}

int
tt_trace_create(tt_trace_writer **wp, const char *path, int mode,
    char *err, size_t errsz)
{
	tt_trace_writer *w;
	FILE *f;

	*wp = NULL;
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return tt_errf(err, errsz, "%s: out of memory", path);
	w->path = strdup(path);
	w->mode = mode;
	w->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB,
	    TT_TRACE_SNAPLEN, PCAP_TSTAMP_PRECISION_NANO);
	if (w->path == NULL || w->dead == NULL) {
		if (w->dead != NULL)
			pcap_close(w->dead);
		free(w->path);
		free(w);
		return tt_errf(err, errsz, "%s: out of memory", path);
	}
	if (mode == TT_TRACE_ATOMIC) {
		/* "-", FIFOs, devices and links as every output of the tools */
		if (tt_outfile_open(&w->out, path, err, errsz) < 0) {
			writer_free(w);
			return -1;
		}
		if ((f = tt_outfile_stream(w->out)) == NULL ||
		    (w->dump = pcap_dump_fopen(w->dead, f)) == NULL) {
			tt_errf(err, errsz, "%s: cannot create: %s", path,
			    f == NULL ? "out of memory" : pcap_geterr(w->dead));
			if (f != NULL)
				fclose(f);
			tt_outfile_discard(w->out);
			writer_free(w);
			return -1;
		}
	} else {
		/* append: an existing nanosecond Ethernet trace goes on, a
		 * missing one is created (libpcap checks the header it
		 * appends to) */
		w->dump = mode == TT_TRACE_APPEND ?
		    pcap_dump_open_append(w->dead, path) :
		    pcap_dump_open(w->dead, path);
		if (w->dump == NULL) {
			tt_errf(err, errsz, "%s: cannot create: %s", path,
			    pcap_geterr(w->dead));
			writer_free(w);
			return -1;
		}
		/* a signal that ends the process leaves it whole */
		if (mode == TT_TRACE_INPLACE &&
		    outfile_at_signal(w->path, trim_at_signal) < 0) {
			pcap_dump_close(w->dump);
			unlink(path);
			writer_free(w);
			return tt_errf(err, errsz, "%s: out of memory", path);
		}
	}
	*wp = w;
	return 0;
}

int
tt_trace_write(tt_trace_writer *w, uint64_t t_ns, const uint8_t *data,
    uint32_t caplen, uint32_t wirelen)
{
	struct pcap_pkthdr h;

	if (caplen > TT_TRACE_SNAPLEN || caplen > wirelen)
		return -1;
	memset(&h, 0, sizeof(h));
	/* a nanosecond dumper reads tv_usec as nanoseconds */
	h.ts.tv_sec = (time_t)(t_ns / 1000000000u);
	h.ts.tv_usec = (suseconds_t)(t_ns % 1000000000u);
	h.caplen = caplen;
	h.len = wirelen;
	errno = 0;
	pcap_dump((u_char *)w->dump, &h, data);
	/* the stream's error flag sticks, errno does not: keep why now */
	if (w->werr == 0 && ferror(pcap_dump_file(w->dump)))
		w->werr = errno != 0 ? errno : EIO;
	return 0;
}

int
tt_trace_flush(tt_trace_writer *w)
{
	errno = 0;
	if (pcap_dump_flush(w->dump) == 0)
		return 0;
	if (w->werr == 0)
		w->werr = errno != 0 ? errno : EIO;
	return -1;
}

int
tt_trace_close(tt_trace_writer *w, char *err, size_t errsz)
{
	int64_t kept;
	int r = 0;

	(void)tt_trace_flush(w);
	if (w->werr != 0)
		r = tt_errf(err, errsz, "%s: write failed: %s", w->out != NULL ?
		    tt_outfile_name(w->out) : w->path, strerror(w->werr));
	pcap_dump_close(w->dump);
	if (w->werr != 0 && w->mode == TT_TRACE_INPLACE) {
		kept = trim_to_record(w->path);
		if (kept >= 0)
			tt_errf(err, errsz, "%s: write failed: %s; the trace "
			    "keeps the %" PRId64 " whole records written before",
			    w->path, strerror(w->werr), kept);
		else if (kept == -2)
			tt_errf(err, errsz, "%s: write failed: %s; removed (not "
			    "even its header was written)", w->path,
			    strerror(w->werr));
		else
			tt_errf(err, errsz, "%s: write failed: %s; and it cannot "
			    "be cut to its last whole record (%s): remove it",
			    w->path, strerror(w->werr), strerror(errno));
	}
	if (w->out != NULL) {
		if (r != 0)
			tt_outfile_discard(w->out);
		else
			r = tt_outfile_close(w->out, err, errsz);
	}
	writer_free(w);
	return r;
}

void
tt_trace_discard(tt_trace_writer *w)
{
	pcap_dump_close(w->dump);
	if (w->out != NULL)
		tt_outfile_discard(w->out);
	else
		unlink(w->path);
	writer_free(w);
}

static int
write_frame(tt_trace_writer *w, const tt_msg *m, uint8_t flags)
{
	uint8_t buf[TT_ETH_HLEN + TT_FRAME_HLEN];
	tt_frame f;
	size_t len;

	if (m->bytes > TT_TRACE_MSG_MAX)
		return -1;
	memset(&f, 0, sizeof(f));
	tt_pe_mac(m->dst, f.dst_mac);
	tt_pe_mac(m->src, f.src_mac);
	f.version = TT_FRAME_VERSION;
	f.type = TT_FRAME_DATA;
	f.flags = flags;
	f.dst = m->dst;
	f.src = m->src;
	f.seq = m->seq;
	len = tt_frame_encode(&f, buf, sizeof(buf));
	if (len == 0)
		return -1;
	return tt_trace_write(w, m->t_ns, buf, (uint32_t)len,
	    (uint32_t)(len + m->bytes));
}

int
tt_trace_write_msg(tt_trace_writer *w, const tt_msg *m)
{
	return write_frame(w, m, 0);
}

int
tt_trace_write_delivery(tt_trace_writer *w, const tt_msg *m)
{
	return write_frame(w, m, TT_FRAME_F_DELIVERED);
}
