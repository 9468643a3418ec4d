/*
 * Reading traces through libpcap (twintorus/trace.h, formats/trace_int.h):
 * pcap and pcapng files and pipes, the address map of plain captures, and
 * the one time-ordered merge of a cluster's files that tt_trace_in and
 * the inference read (writing is trace_write.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <arpa/inet.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/errf.h"
#include "formats/trace_int.h"
#include "twintorus/outfile.h"
#include "twintorus/trace.h"

/* ---- standard input, and pipes named by path ---- */

/*
 * "-" reads standard input, and a path naming a pipe (/dev/stdin on a
 * pipe, a FIFO, bash's <(...)) reads that pipe.  A pipe can be read only
 * once, but replay reads its trace more than once (a first pass, then each
 * network), so what is read from a pipe is kept in an unlinked temporary
 * file: every open reads that copy first and then goes on reading the
 * pipe, adding to the copy.  Standard input redirected from a file is read
 * at its offsets and nothing is copied.  A process reads each pipe once:
 * the pipes are kept here, by device and inode (so that /dev/stdin and "-"
 * on the same pipe are one stream), until the process ends.
 */
struct tin_stream {
	dev_t dev;
	ino_t ino;
	int fd;                 /* the pipe, or standard input */
	int seekable;
	off_t base;             /* seekable: where stdin stood at first */
	int copy;               /* the copy of the pipe, or -1 */
	off_t len;              /* bytes read from the pipe so far */
	int eof;                /* the pipe ended */
	int lost;               /* errno: the copy could not be kept */
};

#define TIN_STREAMS_MAX 64
static struct tin_stream tin_streams[TIN_STREAMS_MAX];
static size_t tin_nstreams;

struct stream_reader {
	struct tin_stream *s;
	off_t pos;
};

static ssize_t
stream_copy_add(struct tin_stream *s, const char *buf, size_t n)
{
	size_t done = 0;
	ssize_t w;

	while (done < n) {
		w = pwrite(s->copy, buf + done, n - done, s->len + (off_t)done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		done += (size_t)w;
	}
	return 0;
}

static ssize_t
stream_read(void *cookie, char *buf, size_t n)
{
	struct stream_reader *k = cookie;
	struct tin_stream *s = k->s;
	ssize_t r;

	if (s->seekable) {
		r = pread(s->fd, buf, n, s->base + k->pos);
	} else if (k->pos < s->len) {
		if ((off_t)n > s->len - k->pos)
			n = (size_t)(s->len - k->pos);
		r = pread(s->copy, buf, n, k->pos);
	} else if (s->eof) {
		return 0;
	} else {
		do
			r = read(s->fd, buf, n);
		while (r < 0 && errno == EINTR);
		if (r == 0)
			s->eof = 1;
		if (r > 0 && s->lost == 0 &&
		    stream_copy_add(s, buf, (size_t)r) < 0)
			s->lost = errno != 0 ? errno : EIO;
		if (r > 0)
			s->len += r;
	}
	if (r > 0)
		k->pos += r;
	return r < 0 ? -1 : r;
}

static int
stream_close(void *cookie)
{
	free(cookie);
	return 0;
}

/* A temporary file nobody else can see, for the copy of a pipe. */
static int
stream_copy_open(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4200];
	int fd;

	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR &&
	    errno != EINVAL))
		return fd;
	snprintf(path, sizeof(path), "%s/ttsim-stdin-XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

/*
 * The stream of the pipe or standard input st describes (fd: standard
 * input, or -1 to open path), made on its first use; NULL with err set.
 */
static struct tin_stream *
stream_of(const struct stat *st, int fd, const char *path, const char *name,
    char *err, size_t errsz)
{
	struct tin_stream *s;
	size_t i;

	for (i = 0; i < tin_nstreams; i++)
		if (tin_streams[i].dev == st->st_dev &&
		    tin_streams[i].ino == st->st_ino)
			return &tin_streams[i];
	if (tin_nstreams == TIN_STREAMS_MAX) {
		tt_errf(err, errsz, "%s: more than %d pipes read at once; save "
		    "the traces to files and give those", name,
		    TIN_STREAMS_MAX);
		return NULL;
	}
	if (fd < 0 && (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		tt_errf(err, errsz, "%s: cannot open: %s", name,
		    strerror(errno));
		return NULL;
	}
	s = &tin_streams[tin_nstreams++];
	memset(s, 0, sizeof(*s));
	s->dev = st->st_dev;
	s->ino = st->st_ino;
	s->fd = fd;
	s->copy = -1;
	s->base = S_ISREG(st->st_mode) ? lseek(fd, 0, SEEK_CUR) : -1;
	s->seekable = s->base >= 0;
	if (!s->seekable && (s->copy = stream_copy_open()) < 0)
		s->lost = errno;
	return s;
}

/* A stream reading s from its start (see above). */
static FILE *
stream_open(struct tin_stream *s, const char *name, char *err, size_t errsz)
{
	cookie_io_functions_t io = {stream_read, NULL, NULL, stream_close};
	struct stream_reader *k;
	FILE *f;

	if (s->lost != 0 && s->len > 0) {
		tt_errf(err, errsz, "%s: read once already, and no copy of it "
		    "could be kept (%s); save the trace to a file and give "
		    "that", name, strerror(s->lost));
		return NULL;
	}
	k = calloc(1, sizeof(*k));
	f = k == NULL ? NULL : fopencookie(k, "r", io);
	if (f == NULL) {
		free(k);
		tt_errf(err, errsz, "%s: out of memory", name);
		return NULL;
	}
	k->s = s;
	return f;
}

/* Standard input as a stream from its start. */
static FILE *
stdin_open(char *err, size_t errsz)
{
	struct tin_stream *s;
	struct stat st;

	if (isatty(STDIN_FILENO)) {
		tt_errf(err, errsz, "standard input: is a terminal; pipe a trace "
		    "into it (tcpdump -w - ... | ttsim ... -) or give a file");
		return NULL;
	}
	if (fstat(STDIN_FILENO, &st) != 0) {
		tt_errf(err, errsz, "standard input: cannot read it: %s",
		    strerror(errno));
		return NULL;
	}
	/* an output must not replace the file it comes from */
	(void)tt_outfile_input_fd(STDIN_FILENO, "standard input");
	if ((s = stream_of(&st, STDIN_FILENO, NULL, "standard input", err,
	    errsz)) == NULL)
		return NULL;
	return stream_open(s, "standard input", err, errsz);
}

/* A pipe named by path (st: its stat()), as a stream from its start; the
 * pipe on standard input is standard input's stream. */
static FILE *
pipe_open(const char *path, const struct stat *st, char *err, size_t errsz)
{
	struct tin_stream *s;
	struct stat in;
	int fd = -1;

	if (fstat(STDIN_FILENO, &in) == 0 && in.st_dev == st->st_dev &&
	    in.st_ino == st->st_ino)
		fd = STDIN_FILENO;
	if ((s = stream_of(st, fd, path, path, err, errsz)) == NULL)
		return NULL;
	return stream_open(s, path, err, errsz);
}

/* ---- reading one file ---- */

struct tt_trace_reader {
	pcap_t *p;
	char *path;             /* as shown: "standard input" for "-" */
	uint64_t recno, truncated;
};

const char *
tt_trace_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "standard input" : path;
}

int
tt_trace_fopen(tt_trace_reader **rp, FILE *f, const char *name, char *err,
    size_t errsz)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	tt_trace_reader *r;
	int dlt, c;

	*rp = NULL;
	/* an empty stream, in our words rather than libpcap's */
	if ((c = getc(f)) == EOF) {
		if (ferror(f))
			tt_errf(err, errsz, "%s: cannot read: %s", name,
			    strerror(errno));
		else
			tt_errf(err, errsz, "%s: empty%s (0 bytes), not a pcap "
			    "or pcapng trace", name, strcmp(name,
			    "standard input") == 0 ? "" : " file");
		fclose(f);
		return -1;
	}
	ungetc(c, f);
	ebuf[0] = '\0';
	r = calloc(1, sizeof(*r));
	if (r == NULL || (r->path = strdup(name)) == NULL) {
		free(r);
		fclose(f);
		return tt_errf(err, errsz, "%s: out of memory", name);
	}
	r->p = pcap_fopen_offline_with_tstamp_precision(f,
	    PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (r->p == NULL) {
		/* libpcap leaves f open when it refuses it */
		fclose(f);
		free(r->path);
		free(r);
		if (strstr(ebuf, "unknown file format") != NULL)
			return tt_errf(err, errsz, "%s: not a pcap or pcapng "
			    "file (libpcap: %s)", name, ebuf);
		return tt_errf(err, errsz, "%s: cannot read the file header "
		    "(libpcap: %s)", name, ebuf);
	}
	dlt = pcap_datalink(r->p);
	if (dlt != DLT_EN10MB) {
		const char *dname = pcap_datalink_val_to_name(dlt);
		const char *desc = pcap_datalink_val_to_description(dlt);

		if (dname != NULL)
			tt_errf(err, errsz, "%s: link type %s (%s, DLT %d), not "
			    "Ethernet; traces hold Ethernet frames (capture on "
			    "an Ethernet interface, e.g. tcpdump -i eth0, not "
			    "-i any)", name, dname, desc ? desc : "no "
			    "description", dlt);
		else
			tt_errf(err, errsz, "%s: link type %d (unknown to "
			    "libpcap), not Ethernet; traces hold Ethernet "
			    "frames", name, dlt);
		tt_trace_close_reader(r);
		return -1;
	}
	*rp = r;
	return 0;
}

int
tt_trace_open(tt_trace_reader **rp, const char *path, char *err,
    size_t errsz)
{
	struct stat st;
	FILE *f;

	*rp = NULL;
	if (strcmp(path, "-") == 0) {
		if ((f = stdin_open(err, errsz)) == NULL)
			return -1;
		return tt_trace_fopen(rp, f, tt_trace_name(path), err, errsz);
	}
	if (stat(path, &st) != 0)
		return tt_errf(err, errsz, "%s: cannot open: %s", path,
		    strerror(errno));
	if (S_ISDIR(st.st_mode))
		return tt_errf(err, errsz, "%s: is a directory", path);
	/* a pipe named by path is read once, as "-" is */
	if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
		if ((f = pipe_open(path, &st, err, errsz)) == NULL)
			return -1;
		return tt_trace_fopen(rp, f, path, err, errsz);
	}
	/* fopen here so that an unreadable file says why in our words */
	f = fopen(path, "rb");
	if (f == NULL)
		return tt_errf(err, errsz, "%s: cannot open: %s", path,
		    strerror(errno));
	/* an output must not replace the file it comes from */
	(void)tt_outfile_input_fd(fileno(f), path);
	return tt_trace_fopen(rp, f, path, err, errsz);
}

/*
 * A record's time in ns.  pcap keeps seconds in 32 bits that libpcap
 * hands over signed, so a time from 2038-01-19 on arrives negative: those
 * bits are the unsigned seconds pcap means (up to 2106).  pcapng's 64-bit
 * times can reach beyond what 64-bit nanoseconds hold (year 2554).
 */
static int
rec_time(const struct pcap_pkthdr *h, uint64_t *t_ns)
{
	uint64_t sec, nsec;

	if (h->ts.tv_sec < INT32_MIN || h->ts.tv_usec < INT32_MIN)
		return -1;
	sec = h->ts.tv_sec < 0 ? (uint64_t)(uint32_t)h->ts.tv_sec :
	    (uint64_t)h->ts.tv_sec;
	nsec = h->ts.tv_usec < 0 ? (uint64_t)(uint32_t)h->ts.tv_usec :
	    (uint64_t)h->ts.tv_usec;
	if (sec > (UINT64_MAX - nsec) / 1000000000u)
		return -1;
	*t_ns = sec * 1000000000u + nsec;
	return 0;
}

int
tt_trace_read(tt_trace_reader *r, tt_trace_rec *rec, char *err,
    size_t errsz)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	int x;

	if (r->truncated)
		return 0;
	x = pcap_next_ex(r->p, &h, &data);
	if (x == PCAP_ERROR_BREAK)
		return 0;
	r->recno++;
	if (x == PCAP_ERROR) {
		FILE *f = pcap_file(r->p);

		/* the file ended inside the record: keep what came before */
		if (f != NULL && feof(f)) {
			r->truncated = r->recno;
			return 0;
		}
		return tt_errf(err, errsz, "%s: record %" PRIu64 ": damaged "
		    "(libpcap: %s)", r->path, r->recno, pcap_geterr(r->p));
	}
	if (x != 1)
		return tt_errf(err, errsz, "%s: record %" PRIu64 ": cannot "
		    "read (libpcap returned %d)", r->path, r->recno, x);
	if (rec_time(h, &rec->t_ns) < 0)
		return tt_errf(err, errsz, "%s: record %" PRIu64 ": time %lld "
		    "s is beyond what a trace can hold (2554-07-21); the "
		    "record is damaged", r->path, r->recno,
		    (long long)h->ts.tv_sec);
	rec->caplen = h->caplen;
	rec->wirelen = h->len;
	rec->data = data;
	rec->recno = r->recno;
	return 1;
}

uint64_t
tt_trace_truncated(const tt_trace_reader *r)
{
	return r->truncated;
}

void
tt_trace_close_reader(tt_trace_reader *r)
{
	if (r == NULL)
		return;
	pcap_close(r->p);
	free(r->path);
	free(r);
}

/* ---- the address map ---- */

static int
addr_cmp(const void *a, const void *b)
{
	const tt_addrent *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return memcmp(x->bytes, y->bytes, sizeof(x->bytes));
}

int
tt_addrmap_build(tt_addrmap *m, const tt_config *cfg, const tt_net *net,
    FILE *errs)
{
	char err[256];
	size_t i;
	int nerr = 0;

	memset(m, 0, sizeof(*m));
	if (cfg->naddrs == 0)
		return 0;
	m->e = calloc(cfg->naddrs, sizeof(*m->e));
	if (m->e == NULL) {
		fprintf(errs, "%s: out of memory\n", cfg->path);
		return 1;
	}
	for (i = 0; i < cfg->naddrs; i++) {
		const tt_addr *a = &cfg->addrs[i];
		uint32_t pe;

		if (tt_pe_parse(net, a->pe, &pe, err, sizeof(err)) < 0) {
			fprintf(errs, "%s:%lu:%lu: addresses.%s: %s\n",
			    cfg->path, a->line, a->col, a->text, err);
			nerr++;
			continue;
		}
		m->e[m->n].kind = a->kind;
		memcpy(m->e[m->n].bytes, a->bytes, sizeof(a->bytes));
		m->e[m->n].pe = pe;
		if (a->kind == TT_ADDR_MAC)
			m->has_mac = 1;
		else
			m->has_ip = 1;
		m->n++;
	}
	qsort(m->e, m->n, sizeof(*m->e), addr_cmp);
	return nerr;
}

int64_t
tt_addrmap_find(const tt_addrmap *m, int kind, const uint8_t *bytes)
{
	tt_addrent key;
	const tt_addrent *hit;

	memset(&key, 0, sizeof(key));
	key.kind = kind;
	memcpy(key.bytes, bytes, kind == TT_ADDR_IPV6 ? 16 :
	    kind == TT_ADDR_IPV4 ? 4 : 6);
	hit = bsearch(&key, m->e, m->n, sizeof(*m->e), addr_cmp);
	return hit != NULL ? (int64_t)hit->pe : -1;
}

void
tt_addrmap_free(tt_addrmap *m)
{
	free(m->e);
	memset(m, 0, sizeof(*m));
}

/* ---- names ---- */

int
trace_is_name(const char *name)
{
	size_t len = strlen(name);

	return name[0] != '.' && strstr(name, ".pcap") != NULL &&
	    !(len >= 5 && strcmp(name + len - 5, ".part") == 0);
}

int
trace_pe_name(char *buf, size_t bufsz, const char *host, uint32_t node,
    char *err, size_t errsz)
{
	int n;

	if (host == NULL || host[0] == '\0')
		n = snprintf(buf, bufsz, "n%" PRIu32 "-pe.pcap", node);
	else if (host[0] == '.' || strchr(host, '/') != NULL)
		return tt_errf(err, errsz, "host \"%s\" cannot name a trace file "
		    "(%s): give a plain host name", host, host[0] == '.' ?
		    "a name beginning with \".\" is hidden, and readers skip it" :
		    "it holds a \"/\"");
	else
		n = snprintf(buf, bufsz, "%s-pe.pcap", host);
	if (n < 0 || (size_t)n >= bufsz)
		return tt_errf(err, errsz, "host \"%s\": the trace file name is "
		    "too long", host);
	return 0;
}

static int
str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * A ttd trace directory (twintorus/trace.h): where PE traces
 * (HOST-pe.pcap, HOST-pe.pcap1, ... once rotated) are, the port traces
 * beside them (HOST-cCARD-PORT.pcap: each frame again on every hop) are
 * not the application's messages and are left out.
 */
static int
is_pe_trace(const char *path)
{
	const char *b = strrchr(path, '/');

	return strstr(b != NULL ? b + 1 : path, "-pe.pcap") != NULL;
}

static void
pe_traces_only(char **names, size_t *n)
{
	size_t i, keep = 0;
	int any = 0;

	for (i = 0; i < *n && !any; i++)
		any = is_pe_trace(names[i]);
	if (!any)
		return;
	for (i = 0; i < *n; i++) {
		if (is_pe_trace(names[i]))
			names[keep++] = names[i];
		else
			free(names[i]);
	}
	*n = keep;
}

/* A directory's trace files, in name order. */
static int
dir_files(const char *path, char ***names, size_t *n, int pe_only,
    char *err, size_t errsz)
{
	struct dirent *de;
	size_t cap = 0, len;
	char **g;
	DIR *d;

	if ((d = opendir(path)) == NULL)
		return tt_errf(err, errsz, "%s: cannot open the directory: %s",
		    path, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		if (!trace_is_name(de->d_name))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			if ((g = realloc(*names, cap * sizeof(*g))) == NULL)
				break;
			*names = g;
		}
		len = strlen(path) + strlen(de->d_name) + 2;
		if (((*names)[*n] = malloc(len)) == NULL)
			break;
		snprintf((*names)[(*n)++], len, "%s/%s", path, de->d_name);
	}
	closedir(d);
	if (de != NULL)
		return tt_errf(err, errsz, "out of memory");
	if (*n == 0)
		return tt_errf(err, errsz, "%s: no trace files in the directory "
		    "(names containing .pcap)", path);
	if (pe_only)
		pe_traces_only(*names, n);
	qsort(*names, *n, sizeof(**names), str_cmp);
	return 0;
}

int
trace_files(const char *path, char ***names, size_t *n, int pe_only,
    char *err, size_t errsz)
{
	struct stat st;
	size_t i;

	*names = NULL;
	*n = 0;
	if (strcmp(path, "-") != 0 && stat(path, &st) != 0)
		return tt_errf(err, errsz, "%s: cannot open: %s", path,
		    strerror(errno));
	if (strcmp(path, "-") != 0 && S_ISDIR(st.st_mode)) {
		if (dir_files(path, names, n, pe_only, err, errsz) == 0)
			return 0;
		for (i = 0; i < *n; i++)
			free((*names)[i]);
		free(*names);
		*names = NULL;
		*n = 0;
		return -1;
	}
	if ((*names = malloc(sizeof(**names))) == NULL ||
	    ((*names)[0] = strdup(path)) == NULL) {
		free(*names);
		*names = NULL;
		return tt_errf(err, errsz, "out of memory");
	}
	*n = 1;
	return 0;
}

/* ---- the merged reader ---- */

struct merge_file {
	char *path;
	const char *name;       /* for messages: path, or "standard input" */
	tt_trace_reader *r;
	trace_item head;        /* its next record */
	uint64_t last_ns;       /* of the previous record */
	trace_counts n;
	int done;
};

struct trace_merge {
	struct merge_file *f;
	size_t nf, cap;
	size_t *heap;           /* files with a head, by (time, file) */
	size_t nheap;
	int handed;             /* heap[0]'s head was handed out: read on */
};

/* Append path, or the trace files of directory path. */
static int
add_path(trace_merge *m, const char *path, char *err, size_t errsz)
{
	char **names;
	size_t n, i;
	int r = 0;

	if (trace_files(path, &names, &n, 1, err, errsz) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (m->nf == m->cap) {
			struct merge_file *g;
			size_t cap = m->cap ? m->cap * 2 : 8;

			g = realloc(m->f, cap * sizeof(*g));
			if (g == NULL) {
				r = tt_errf(err, errsz, "out of memory");
				break;
			}
			m->f = g;
			m->cap = cap;
		}
		memset(&m->f[m->nf], 0, sizeof(m->f[0]));
		m->f[m->nf].path = names[i];
		m->f[m->nf].name = tt_trace_name(names[i]);
		m->nf++;
		names[i] = NULL;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return r;
}

/* File fi's next record into its head, decoded: 1, 0 at its end, -1. */
static int
file_load(struct merge_file *f, size_t fi, char *err, size_t errsz)
{
	trace_item *it = &f->head;
	char ferr[160];
	int x;

	if (f->done)
		return 0;
	x = tt_trace_read(f->r, &it->rec, err, errsz);
	if (x < 0)
		return -1;
	if (x == 0) {
		f->done = 1;
		f->n.truncated = tt_trace_truncated(f->r);
		return 0;
	}
	f->n.records++;
	it->backwards = it->rec.t_ns < f->last_ns;
	if (it->backwards) {
		f->n.backwards++;
		it->rec.t_ns = f->last_ns;
	}
	f->last_ns = it->rec.t_ns;
	x = tt_frame_decode(&it->fr, it->rec.data, it->rec.caplen, ferr,
	    sizeof(ferr));
	if (x < 0)
		return tt_errf(err, errsz, "%s: record %" PRIu64 ": %s%s",
		    f->name, it->rec.recno, ferr, x == TT_FRAME_CUT &&
		    it->rec.caplen < it->rec.wirelen ?
		    " (the capture kept too few bytes of it: use a "
		    "snap length of at least 34)" : "");
	it->plain = x == 1;
	it->file = fi;
	it->name = f->name;
	return 1;
}

static int
heap_less(const trace_merge *m, size_t a, size_t b)
{
	uint64_t x = m->f[a].head.rec.t_ns, y = m->f[b].head.rec.t_ns;

	return x != y ? x < y : a < b;
}

static void
heap_down(trace_merge *m, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, k = i, t;

		if (l < m->nheap && heap_less(m, m->heap[l], m->heap[k]))
			k = l;
		if (r < m->nheap && heap_less(m, m->heap[r], m->heap[k]))
			k = r;
		if (k == i)
			return;
		t = m->heap[i];
		m->heap[i] = m->heap[k];
		m->heap[k] = t;
		i = k;
	}
}

int
trace_merge_open(trace_merge **mp, const char *const *paths, size_t npaths,
    char *err, size_t errsz)
{
	trace_merge *m;
	size_t i;
	int x;

	*mp = NULL;
	if (npaths == 0)
		return tt_errf(err, errsz, "no trace files given");
	if ((m = calloc(1, sizeof(*m))) == NULL)
		return tt_errf(err, errsz, "out of memory");
	for (i = 0; i < npaths; i++)
		if (add_path(m, paths[i], err, errsz) < 0)
			goto fail;
	if ((m->heap = calloc(m->nf, sizeof(*m->heap))) == NULL) {
		tt_errf(err, errsz, "out of memory");
		goto fail;
	}
	for (i = 0; i < m->nf; i++)
		if (tt_trace_open(&m->f[i].r, m->f[i].path, err, errsz) < 0)
			goto fail;
	for (i = 0; i < m->nf; i++) {
		if ((x = file_load(&m->f[i], i, err, errsz)) < 0)
			goto fail;
		if (x > 0)
			m->heap[m->nheap++] = i;
	}
	for (i = m->nheap / 2; i-- > 0; )
		heap_down(m, i);
	*mp = m;
	return 0;
fail:
	trace_merge_close(m);
	return -1;
}

int
trace_merge_next(trace_merge *m, trace_item *it, char *err, size_t errsz)
{
	size_t fi;
	int x;

	/* the record handed out last stays valid until now: read past it */
	if (m->handed) {
		m->handed = 0;
		fi = m->heap[0];
		if ((x = file_load(&m->f[fi], fi, err, errsz)) < 0) {
			m->nheap = 0;   /* nothing after an error */
			return -1;
		}
		if (x == 0)
			m->heap[0] = m->heap[--m->nheap];
		heap_down(m, 0);
	}
	if (m->nheap == 0)
		return 0;
	*it = m->f[m->heap[0]].head;
	m->handed = 1;
	return 1;
}

size_t
trace_merge_nfiles(const trace_merge *m)
{
	return m->nf;
}

const char *
trace_merge_path(const trace_merge *m, size_t i)
{
	return m->f[i].path;
}

const char *
trace_merge_name(const trace_merge *m, size_t i)
{
	return m->f[i].name;
}

const trace_counts *
trace_merge_counts(const trace_merge *m, size_t i)
{
	return &m->f[i].n;
}

void
trace_merge_close(trace_merge *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->nf; i++) {
		tt_trace_close_reader(m->f[i].r);
		free(m->f[i].path);
	}
	free(m->f);
	free(m->heap);
	free(m);
}

/* ---- plain frames ---- */

/*
 * What the two bytes after the MACs say: an EtherType from 0x0600 on; up to
 * 1500 the length of an IEEE 802.3 frame (LLC, STP, ...), which has none.
 */
const char *
trace_ethertype_text(uint16_t et, char *buf, size_t bufsz)
{
	const char *name;

	if (et <= 1500) {
		snprintf(buf, bufsz, "an 802.3 frame (length field %u, no "
		    "EtherType)", et);
		return buf;
	}
	if (et < 0x0600) {
		snprintf(buf, bufsz, "type/length field 0x%04x (neither an "
		    "EtherType nor an 802.3 length)", et);
		return buf;
	}
	switch (et) {
	case 0x0800: name = "IPv4"; break;
	case 0x0806: name = "ARP"; break;
	case 0x86DD: name = "IPv6"; break;
	case 0x88CC: name = "LLDP"; break;
	default: name = "unknown"; break;
	}
	snprintf(buf, bufsz, "EtherType 0x%04x (%s)", et, name);
	return buf;
}

int
trace_plain_pes(const tt_addrmap *map, const trace_item *it, uint32_t *src,
    uint32_t *dst, char *what, size_t whatsz, char *err, size_t errsz)
{
	const tt_trace_rec *rec = &it->rec;
	const tt_frame *fr = &it->fr;
	const uint8_t *p = rec->data + TT_ETH_HLEN +
	    (fr->tagged ? TT_VLAN_HLEN : 0);
	size_t left = rec->caplen - (size_t)(p - rec->data), need = 0;
	int64_t s = -1, d = -1, ms = -1, md = -1;
	char a[64] = "", b[64] = "", none[64];
	int kind = 0;

	if (what == NULL) {
		what = none;
		whatsz = sizeof(none);
	}
	if (map->has_ip && fr->ethertype == 0x0800) {
		kind = TT_ADDR_IPV4;
		if ((need = left < 20 ? 20 : 0) == 0) {
			s = tt_addrmap_find(map, kind, p + 12);
			d = tt_addrmap_find(map, kind, p + 16);
			inet_ntop(AF_INET, p + 12, a, sizeof(a));
			inet_ntop(AF_INET, p + 16, b, sizeof(b));
		}
	} else if (map->has_ip && fr->ethertype == 0x86DD) {
		kind = TT_ADDR_IPV6;
		if ((need = left < 40 ? 40 : 0) == 0) {
			s = tt_addrmap_find(map, kind, p + 8);
			d = tt_addrmap_find(map, kind, p + 24);
			inet_ntop(AF_INET6, p + 8, a, sizeof(a));
			inet_ntop(AF_INET6, p + 24, b, sizeof(b));
		}
	}
	if ((s < 0 || d < 0) && map->has_mac) {
		ms = tt_addrmap_find(map, TT_ADDR_MAC, fr->src_mac);
		md = tt_addrmap_find(map, TT_ADDR_MAC, fr->dst_mac);
		if (ms >= 0 && md >= 0) {
			s = ms;
			d = md;
		}
	}
	if (s >= 0 && d >= 0) {
		*src = (uint32_t)s;
		*dst = (uint32_t)d;
		return 1;
	}
	if (need > 0)
		return tt_errf(err, errsz, "%s: record %" PRIu64 ": %s header "
		    "cut at %zu of %zu bytes (capture with a larger snap "
		    "length)", it->name, rec->recno, kind == TT_ADDR_IPV4 ?
		    "IPv4" : "IPv6", left, need);
	if (kind != 0) {
		snprintf(what, whatsz, "%s", s < 0 ? a : b);
	} else if (map->has_mac) {
		const uint8_t *u = ms < 0 ? fr->src_mac : fr->dst_mac;

		snprintf(what, whatsz, "%02x:%02x:%02x:%02x:%02x:%02x",
		    u[0], u[1], u[2], u[3], u[4], u[5]);
	} else {
		trace_ethertype_text(fr->ethertype, what, whatsz);
	}
	return 0;
}

/* ---- messages: the merged records, as tt_trace_in ---- */

struct tin_file {
	tt_trace_stats st;      /* records, backwards and truncated from the
	                           merge's counts (file_stats()) */
};

struct tt_trace_in {
	trace_merge *mg;
	struct tin_file *f;
	size_t nf;
	const tt_addrmap *map;
	uint32_t npes;
	tt_trace_plain_fn on_plain;     /* listing: frames with no map */
	void *plain_ctx;
	tt_trace_stats total;
};

static void
note_unmapped(tt_trace_stats *st, const char *text)
{
	size_t i;

	st->unmapped++;
	for (i = 0; i < st->nunmapped_addr; i++)
		if (strcmp(st->unmapped_addr[i].text, text) == 0) {
			st->unmapped_addr[i].count++;
			return;
		}
	if (st->nunmapped_addr < TT_TRACE_UNMAPPED_MAX) {
		snprintf(st->unmapped_addr[i].text,
		    sizeof(st->unmapped_addr[i].text), "%s", text);
		st->unmapped_addr[i].count = 1;
		st->nunmapped_addr++;
	} else {
		st->unmapped_other++;
	}
}

/*
 * A plain frame through the address map: 1 and m filled, 0 if an address
 * is not mapped (counted), -1 if the frame cannot be placed.
 */
static int
plain_msg(tt_trace_in *in, struct tin_file *f, const trace_item *it,
    tt_msg *m, char *err, size_t errsz)
{
	char what[64];
	int x;

	x = trace_plain_pes(in->map, it, &m->src, &m->dst, what, sizeof(what),
	    err, errsz);
	if (x <= 0) {
		if (x == 0)
			note_unmapped(&f->st, what);
		return x;
	}
	m->seq = 0;
	m->bytes = it->rec.wirelen;
	f->st.plain++;
	return 1;
}

/*
 * Message m of item it, against what a trace can hold: PEs of the
 * network, and at most TT_TRACE_MSG_MAX bytes (a record claiming more is
 * damaged, and would have replay simulate for minutes).  A frame longer
 * than ttd carries is counted for a warning: a ttd capture has none.
 */
static int
msg_check(const tt_trace_in *in, struct tin_file *f, const trace_item *it,
    const tt_msg *m, char *err, size_t errsz)
{
	if (in->npes > 0 && (m->src >= in->npes || m->dst >= in->npes))
		return tt_errf(err, errsz, "%s: record %" PRIu64 ": %s PE %"
		    PRIu32 " is outside the network (%" PRIu32 " PEs, ids 0..%"
		    PRIu32 "); replay on a network of the trace's size",
		    it->name, it->rec.recno, m->src >= in->npes ? "source" :
		    "destination", m->src >= in->npes ? m->src : m->dst,
		    in->npes, in->npes - 1);
	if (m->bytes > TT_TRACE_MSG_MAX)
		return tt_errf(err, errsz, "%s: record %" PRIu64 ": claims a "
		    "message of %" PRIu64 " bytes; a record may describe at "
		    "most %u (%u MiB): the record is damaged", it->name,
		    it->rec.recno, m->bytes, TT_TRACE_MSG_MAX,
		    TT_TRACE_MSG_MAX >> 20);
	if (it->rec.wirelen > TT_FRAME_MAX) {
		f->st.oversize++;
		if (it->rec.wirelen > f->st.oversize_max)
			f->st.oversize_max = it->rec.wirelen;
	}
	return 0;
}

/*
 * The message of item it: 1 and m filled; 0 when it holds none (a hello,
 * a delivery copy, an unmapped or listed plain frame); -1.
 */
static int
item_msg(tt_trace_in *in, const trace_item *it, tt_msg *m, char *err,
    size_t errsz)
{
	struct tin_file *f = &in->f[it->file];
	char what[128];
	int x;

	memset(m, 0, sizeof(*m));
	m->t_ns = it->rec.t_ns;
	m->file = (uint32_t)it->file;
	m->recno = it->rec.recno;
	if (it->plain && (in->map == NULL || in->map->n == 0)) {
		if (in->on_plain == NULL)
			return tt_errf(err, errsz, "%s: record %" PRIu64 ": not a "
			    "torus frame: %s; to replay a plain capture, map its "
			    "addresses to PEs in the YAML file (addresses:)",
			    it->name, it->rec.recno, trace_ethertype_text(
			    it->fr.ethertype, what, sizeof(what)));
		if (in->on_plain(in->plain_ctx, &it->rec, &it->fr) < 0)
			return tt_errf(err, errsz, "%s: record %" PRIu64 ": out "
			    "of memory", it->name, it->rec.recno);
		f->st.listed++;
		return 0;
	}
	if (it->plain) {
		if ((x = plain_msg(in, f, it, m, err, errsz)) <= 0)
			return x;
	} else if (it->fr.type != TT_FRAME_DATA) {
		f->st.hello++;  /* a hello or a credit: link control */
		return 0;
	} else if (it->fr.flags & TT_FRAME_F_DELIVERED) {
		f->st.delivered++;
		return 0;
	} else {
		size_t h = tt_frame_hlen(&it->fr);

		m->src = it->fr.src;
		m->dst = it->fr.dst;
		m->seq = it->fr.seq;
		m->bytes = it->rec.wirelen > h ? it->rec.wirelen - h : 0;
	}
	if (msg_check(in, f, it, m, err, errsz) < 0)
		return -1;
	if (f->st.messages == 0)
		f->st.first_ns = m->t_ns;
	f->st.last_ns = m->t_ns;
	f->st.messages++;
	f->st.bytes += m->bytes;
	return 1;
}

int
tt_trace_in_open(tt_trace_in **inp, const char *const *paths, size_t npaths,
    const tt_addrmap *map, uint32_t npes, char *err, size_t errsz)
{
	return tt_trace_in_open_listing(inp, paths, npaths, map, npes, NULL,
	    NULL, err, errsz);
}

int
tt_trace_in_open_listing(tt_trace_in **inp, const char *const *paths,
    size_t npaths, const tt_addrmap *map, uint32_t npes, tt_trace_plain_fn fn,
    void *ctx, char *err, size_t errsz)
{
	tt_trace_in *in;

	*inp = NULL;
	in = calloc(1, sizeof(*in));
	if (in == NULL)
		return tt_errf(err, errsz, "out of memory");
	in->map = map;
	in->npes = npes;
	in->on_plain = fn;
	in->plain_ctx = ctx;
	if (trace_merge_open(&in->mg, paths, npaths, err, errsz) < 0)
		goto fail;
	in->nf = trace_merge_nfiles(in->mg);
	if ((in->f = calloc(in->nf, sizeof(*in->f))) == NULL) {
		tt_errf(err, errsz, "out of memory");
		goto fail;
	}
	*inp = in;
	return 0;
fail:
	tt_trace_in_close(in);
	return -1;
}

int
tt_trace_in_next(tt_trace_in *in, tt_msg *m, char *err, size_t errsz)
{
	trace_item it;
	int x;

	for (;;) {
		if ((x = trace_merge_next(in->mg, &it, err, errsz)) <= 0)
			return x;
		if ((x = item_msg(in, &it, m, err, errsz)) != 0)
			return x;
	}
}

size_t
tt_trace_in_nfiles(const tt_trace_in *in)
{
	return in->nf;
}

const char *
tt_trace_in_path(const tt_trace_in *in, size_t i)
{
	return trace_merge_path(in->mg, i);
}

/* File i's statistics, with what the merge counted. */
static const tt_trace_stats *
file_stats(const tt_trace_in *in, size_t i)
{
	tt_trace_stats *s = &in->f[i].st;
	const trace_counts *c = trace_merge_counts(in->mg, i);

	s->records = c->records;
	s->backwards = c->backwards;
	s->truncated = c->truncated;
	return s;
}

const tt_trace_stats *
tt_trace_in_stats(tt_trace_in *in, size_t i)
{
	tt_trace_stats *t = &in->total;
	size_t k, j, a;

	if (i < in->nf)
		return file_stats(in, i);
	memset(t, 0, sizeof(*t));
	for (k = 0; k < in->nf; k++) {
		const tt_trace_stats *s = file_stats(in, k);

		if (s->messages > 0) {
			if (t->messages == 0 || s->first_ns < t->first_ns)
				t->first_ns = s->first_ns;
			if (s->last_ns > t->last_ns)
				t->last_ns = s->last_ns;
		}
		t->records += s->records;
		t->messages += s->messages;
		t->bytes += s->bytes;
		t->plain += s->plain;
		t->hello += s->hello;
		t->delivered += s->delivered;
		t->unmapped += s->unmapped;
		t->listed += s->listed;
		t->backwards += s->backwards;
		t->oversize += s->oversize;
		if (s->oversize_max > t->oversize_max)
			t->oversize_max = s->oversize_max;
		t->unmapped_other += s->unmapped_other;
		if (s->truncated)
			t->truncated++;
		for (j = 0; j < s->nunmapped_addr; j++) {
			for (a = 0; a < t->nunmapped_addr; a++)
				if (strcmp(t->unmapped_addr[a].text,
				    s->unmapped_addr[j].text) == 0)
					break;
			if (a < t->nunmapped_addr) {
				t->unmapped_addr[a].count += s->unmapped_addr[j].count;
			} else if (a < TT_TRACE_UNMAPPED_MAX) {
				t->unmapped_addr[a] = s->unmapped_addr[j];
				t->nunmapped_addr++;
			} else {
				t->unmapped_other += s->unmapped_addr[j].count;
			}
		}
	}
	return t;
}

/* Records longer than ttd carries: one line for the whole input (a
 * recording of large messages has them in every file, and they are a
 * property of how it was made, not damage). */
static void
warn_oversize(const tt_trace_in *in, FILE *out, const char *prefix)
{
	uint64_t n = 0, longest = 0;
	size_t i, files = 0;

	for (i = 0; i < in->nf; i++) {
		n += in->f[i].st.oversize;
		files += in->f[i].st.oversize > 0;
		if (in->f[i].st.oversize_max > longest)
			longest = in->f[i].st.oversize_max;
	}
	if (n == 0)
		return;
	fprintf(out, "%s", prefix);
	if (files == 1)
		for (i = 0; i < in->nf; i++)
			if (in->f[i].st.oversize)
				fprintf(out, "%s: ", trace_merge_name(in->mg,
				    i));
	fprintf(out, "%" PRIu64 " record%s", n, n == 1 ? "" : "s");
	if (files > 1)
		fprintf(out, " (in %zu files)", files);
	fprintf(out, " longer than ttd carries in one frame (at most %d bytes "
	    "on the wire; the longest claims %" PRIu64 "): each is taken as "
	    "one message of its size\n", TT_FRAME_MAX, longest);
}

void
tt_trace_in_warnings(const tt_trace_in *in, FILE *out, const char *prefix)
{
	size_t i, j;

	warn_oversize(in, out, prefix);

	for (i = 0; i < in->nf; i++) {
		const tt_trace_stats *s = file_stats(in, i);
		const char *name = trace_merge_name(in->mg, i);

		if (s->truncated)
			fprintf(out, "%s%s: record %" PRIu64 ": truncated (the "
			    "file ends inside it); using the %" PRIu64
			    " records before it\n", prefix, name,
			    s->truncated, s->truncated - 1);
		if (s->backwards)
			fprintf(out, "%s%s: %" PRIu64 " %s taken at the latest "
			    "time before it\n", prefix, name,
			    s->backwards, s->backwards == 1 ? "record older than "
			    "a record before it," : "records older than a record "
			    "before them, each");
		if (s->unmapped) {
			fprintf(out, "%s%s: %" PRIu64 " frames skipped: an "
			    "address is not in addresses:", prefix,
			    name, s->unmapped);
			for (j = 0; j < s->nunmapped_addr; j++)
				fprintf(out, "%s %s (%" PRIu64 ")", j ? "," : "",
				    s->unmapped_addr[j].text,
				    s->unmapped_addr[j].count);
			if (s->unmapped_other)
				fprintf(out, ", others (%" PRIu64 ")",
				    s->unmapped_other);
			fputc('\n', out);
		}
	}
}

void
tt_trace_in_close(tt_trace_in *in)
{
	if (in == NULL)
		return;
	trace_merge_close(in->mg);
	free(in->f);
	free(in);
}
