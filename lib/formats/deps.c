/*
 * The dependency file (twintorus/deps.h): one line per message.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/errf.h"
#include "twintorus/deps.h"
#include "twintorus/outfile.h"

#define DEPS_MAGIC "# twintorus dependencies 1"
#define DEPS_END   "# end "

struct tt_deps_writer {
	tt_outfile *out;        /* "-", or written whole (twintorus/outfile.h) */
	FILE *f;
	uint64_t lines, preds;
	uint64_t t0;            /* the first message's t_ns */
	int has_t0;
	char why[256];          /* a line a reader would refuse, said at close */
};

int
tt_deps_create(tt_deps_writer **wp, const char *path, char *err,
    size_t errsz)
{
	tt_deps_writer *w;

	*wp = NULL;
	if ((w = calloc(1, sizeof(*w))) == NULL)
		return tt_errf(err, errsz, "out of memory");
	if (tt_outfile_open(&w->out, path, err, errsz) < 0) {
		free(w);
		return -1;
	}
	w->f = tt_outfile_file(w->out);
	fprintf(w->f, "%s\n# pe seq dst bytes t_ns gap_ns preds\n", DEPS_MAGIC);
	*wp = w;
	return 0;
}

/* v in decimal at p, then sep; returns the end.  (printf's formatting
 * was a tenth of the time of inferring a trace.) */
static char *
put_u64(char *p, uint64_t v, char sep)
{
	char tmp[20];
	int n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n > 0)
		*p++ = tmp[--n];
	*p++ = sep;
	return p;
}

static size_t
digits(uint64_t v)
{
	size_t n = 1;

	while ((v /= 10) != 0)
		n++;
	return n;
}

/*
 * Whether d fits the limits a reader holds to (twintorus/deps.h), so that
 * no writer leaves a file its reader refuses: 0, or -1 with w->why set.
 */
static int
within_limits(tt_deps_writer *w, const tt_dep *d)
{
	uint64_t off;
	size_t len;
	uint32_t i;

	if (!w->has_t0) {
		w->t0 = d->t_ns;
		w->has_t0 = 1;
	}
	off = d->t_ns > w->t0 ? d->t_ns - w->t0 : w->t0 - d->t_ns;
	len = digits(d->pe) + digits(d->seq) + digits(d->dst) +
	    digits(d->bytes) + digits(d->t_ns) + digits(d->gap_ns) + 6;
	/* "src:seq" and a blank, the last one's the newline, not counted;
	 * or "-" */
	for (i = 0; i < d->npred && len <= TT_DEPS_LINE_MAX + 1; i++)
		len += digits(d->pred[i].src) + digits(d->pred[i].seq) + 2;
	len = d->npred == 0 ? len + 1 : len - 1;
	if (d->bytes > TT_DEPS_BYTES_MAX)
		snprintf(w->why, sizeof(w->why), "message %" PRIu32 ":%" PRIu32
		    " has %" PRIu64 " bytes, more than the %llu (4 GiB) a "
		    "dependency file may give one message", d->pe, d->seq,
		    d->bytes, TT_DEPS_BYTES_MAX);
	else if (d->gap_ns > TT_DEPS_NS_MAX || off > TT_DEPS_NS_MAX)
		snprintf(w->why, sizeof(w->why), "message %" PRIu32 ":%" PRIu32
		    ": %s more than a day (%llu ns), past what a dependency "
		    "file may say", d->pe, d->seq, d->gap_ns > TT_DEPS_NS_MAX ?
		    "its compute gap is" : "it was sent", TT_DEPS_NS_MAX);
	else if (len > TT_DEPS_LINE_MAX)
		snprintf(w->why, sizeof(w->why), "message %" PRIu32 ":%" PRIu32
		    " has %" PRIu32 " predecessors: its line would be longer "
		    "than the %u bytes a dependency file's line may have",
		    d->pe, d->seq, d->npred, TT_DEPS_LINE_MAX);
	return w->why[0] != '\0' ? -1 : 0;
}

int
tt_deps_write(tt_deps_writer *w, const tt_dep *d)
{
	char buf[160], *p = buf;
	uint32_t i;

	if (w->why[0] != '\0' || within_limits(w, d) < 0)
		return -1;
	p = put_u64(p, d->pe, ' ');
	p = put_u64(p, d->seq, ' ');
	p = put_u64(p, d->dst, ' ');
	p = put_u64(p, d->bytes, ' ');
	p = put_u64(p, d->t_ns, ' ');
	p = put_u64(p, d->gap_ns, ' ');
	if (d->npred == 0) {
		*p++ = '-';
		*p++ = '\n';
	}
	for (i = 0; i < d->npred; i++) {
		if (p > buf + sizeof(buf) - 24) {
			fwrite(buf, 1, (size_t)(p - buf), w->f);
			p = buf;
		}
		p = put_u64(p, d->pred[i].src, ':');
		p = put_u64(p, d->pred[i].seq, i + 1 < d->npred ? ' ' : '\n');
	}
	w->lines++;
	w->preds += d->npred;
	return fwrite(buf, 1, (size_t)(p - buf), w->f) == (size_t)(p - buf) ?
	    0 : -1;
}

const char *
tt_deps_write_error(const tt_deps_writer *w)
{
	return w->why[0] != '\0' ? w->why : NULL;
}

int
tt_deps_close(tt_deps_writer *w, char *err, size_t errsz)
{
	int r;

	if (w->why[0] != '\0') {
		tt_errf(err, errsz, "%s", w->why);
		tt_deps_discard(w);
		return -1;
	}
	fprintf(w->f, "%s%" PRIu64 " messages %" PRIu64 " predecessors\n",
	    DEPS_END, w->lines, w->preds);
	r = tt_outfile_close(w->out, err, errsz);
	free(w);
	return r;
}

void
tt_deps_discard(tt_deps_writer *w)
{
	if (w == NULL)
		return;
	tt_outfile_discard(w->out);
	free(w);
}

/* ---- reading ---- */

struct tt_deps_reader {
	FILE *f;
	char *path;
	char *line;             /* TT_DEPS_LINE_MAX + 1 bytes */
	uint64_t lineno, lines, preds;
	uint64_t t0;            /* the first message's t_ns */
	int ended, has_t0;
	tt_depref *pred;
	uint32_t pcap;
};

/*
 * The next line into r->line, without its newline: 1, 0 at the end of the
 * file, -1 with err set.  A line is refused as soon as TT_DEPS_LINE_MAX
 * bytes have come without a newline, so that a file of one endless line
 * (/dev/zero) costs a buffer and a moment, not all memory; a NUL byte
 * (which would end the line for the parser, hiding what follows) is
 * refused too.
 */
static int
next_line(tt_deps_reader *r, char *err, size_t errsz)
{
	size_t n = 0;
	int ch;

	while ((ch = getc_unlocked(r->f)) != EOF && ch != '\n') {
		if (n == TT_DEPS_LINE_MAX)
			return tt_errf(err, errsz, "%s:%" PRIu64 ": a line longer "
			    "than %u bytes: not a dependency file, or a damaged "
			    "one (write it again)", r->path, r->lineno + 1,
			    TT_DEPS_LINE_MAX);
		if (ch == '\0')
			return tt_errf(err, errsz, "%s:%" PRIu64 ": a NUL byte "
			    "at column %zu: not a dependency file, or a damaged "
			    "one (write it again)", r->path, r->lineno + 1, n + 1);
		r->line[n++] = (char)ch;
	}
	if (ch == EOF && ferror(r->f))
		return tt_errf(err, errsz, "%s: %s", r->path, strerror(errno));
	r->line[n] = '\0';
	if (ch == EOF && n == 0)
		return 0;
	r->lineno++;
	return 1;
}

int
tt_deps_open(tt_deps_reader **rp, const char *path, char *err, size_t errsz)
{
	tt_deps_reader *r;
	int n;

	*rp = NULL;
	if ((r = calloc(1, sizeof(*r))) == NULL ||
	    (r->path = strdup(path)) == NULL ||
	    (r->line = malloc(TT_DEPS_LINE_MAX + 1)) == NULL) {
		tt_deps_close_reader(r);
		return tt_errf(err, errsz, "out of memory");
	}
	if ((r->f = fopen(path, "r")) == NULL) {
		tt_errf(err, errsz, "%s: %s", path, strerror(errno));
		tt_deps_close_reader(r);
		return -1;
	}
	if ((n = next_line(r, err, errsz)) < 0) {
		tt_deps_close_reader(r);
		return -1;
	}
	if (n == 0 || strncmp(r->line, DEPS_MAGIC, strlen(DEPS_MAGIC)) != 0) {
		tt_errf(err, errsz, "%s:1: not a dependency file (it starts "
		    "with '%s'; ttsim trace infer writes them)", path,
		    DEPS_MAGIC);
		tt_deps_close_reader(r);
		return -1;
	}
	*rp = r;
	return 0;
}

/* A number of at most max at *p, then a space, ':' or the end. */
static int
num(char **p, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (**p < '0' || **p > '9')
		return -1;
	errno = 0;
	v = strtoull(*p, &end, 10);
	if (errno != 0 || v > max)
		return -1;
	*out = v;
	*p = end;
	return 0;
}

static int
skip_space(char **p)
{
	if (**p != ' ' && **p != '\t')
		return -1;
	while (**p == ' ' || **p == '\t')
		(*p)++;
	return 0;
}

/* The "# end N messages M predecessors" line against what was read. */
static int
end_line(tt_deps_reader *r, char *p, char *err, size_t errsz)
{
	uint64_t lines, preds;

	p += strlen(DEPS_END);
	if (num(&p, UINT64_MAX, &lines) < 0 ||
	    strncmp(p, " messages ", 10) != 0)
		goto bad;
	p += 10;
	if (num(&p, UINT64_MAX, &preds) < 0 ||
	    strncmp(p, " predecessors", 13) != 0)
		goto bad;
	if (lines != r->lines || preds != r->preds)
		return tt_errf(err, errsz, "%s:%" PRIu64 ": the end line says "
		    "%" PRIu64 " messages and %" PRIu64 " predecessors, the "
		    "file has %" PRIu64 " and %" PRIu64, r->path, r->lineno,
		    lines, preds, r->lines, r->preds);
	r->ended = 1;
	return 0;
bad:
	return tt_errf(err, errsz, "%s:%" PRIu64 ": a bad end line (wanted "
	    "'# end N messages M predecessors')", r->path, r->lineno);
}

static int
parse_preds(tt_deps_reader *r, char *p, tt_dep *d, char *err, size_t errsz)
{
	uint64_t a, b;

	d->npred = 0;
	if (*p == '-') {
		p++;
		goto done;
	}
	for (;;) {
		if (num(&p, UINT32_MAX, &a) < 0 || *p++ != ':' ||
		    num(&p, UINT32_MAX, &b) < 0)
			return tt_errf(err, errsz, "%s:%" PRIu64 ": predecessor %"
			    PRIu32 ": wanted SRC:SEQ (two numbers below 2^32) or "
			    "'-'", r->path, r->lineno, d->npred + 1);
		if (d->npred == r->pcap) {
			uint32_t cap = r->pcap ? r->pcap * 2 : 16;
			tt_depref *g = realloc(r->pred, cap * sizeof(*g));

			if (g == NULL)
				return tt_errf(err, errsz, "out of memory");
			r->pred = g;
			r->pcap = cap;
		}
		r->pred[d->npred].src = (uint32_t)a;
		r->pred[d->npred++].seq = (uint32_t)b;
		if (skip_space(&p) < 0 || *p == '\0' || *p == '\n')
			break;
	}
done:
	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
	if (*p != '\n' && *p != '\0')
		return tt_errf(err, errsz, "%s:%" PRIu64 ": unexpected '%.20s' "
		    "after the predecessors", r->path, r->lineno, p);
	d->pred = r->pred;
	return 0;
}

/* Field i of a line (0: pe ... 5: gap_ns) against its limit; t_ns, field
 * 4, against the first message's. */
static int
check_field(tt_deps_reader *r, int i, uint64_t v, char *err, size_t errsz)
{
	static const char *const field[] = {"pe", "seq", "dst", "bytes",
	    "t_ns", "gap_ns"};
	uint64_t off;

	if (i < 3 && v > UINT32_MAX)
		return tt_errf(err, errsz, "%s:%" PRIu64 ": field %d (%s): %"
		    PRIu64 " is not below 2^32", r->path, r->lineno, i + 1,
		    field[i], v);
	if (i == 3 && v > TT_DEPS_BYTES_MAX)
		return tt_errf(err, errsz, "%s:%" PRIu64 ": field 4 (bytes): %"
		    PRIu64 " is more than the %llu (4 GiB) a message may have",
		    r->path, r->lineno, v, TT_DEPS_BYTES_MAX);
	if (i == 5 && v > TT_DEPS_NS_MAX)
		return tt_errf(err, errsz, "%s:%" PRIu64 ": field 6 (gap_ns): %"
		    PRIu64 " ns is more than the %llu ns (a day) a gap may be",
		    r->path, r->lineno, v, TT_DEPS_NS_MAX);
	if (i != 4)
		return 0;
	if (!r->has_t0) {
		r->t0 = v;
		r->has_t0 = 1;
	}
	off = v > r->t0 ? v - r->t0 : r->t0 - v;
	if (off > TT_DEPS_NS_MAX)
		return tt_errf(err, errsz, "%s:%" PRIu64 ": field 5 (t_ns): %"
		    PRIu64 " is more than %llu ns (a day) from the first "
		    "message's %" PRIu64 ": a recording spans at most a day",
		    r->path, r->lineno, v, TT_DEPS_NS_MAX, r->t0);
	return 0;
}

int
tt_deps_read(tt_deps_reader *r, tt_dep *d, char *err, size_t errsz)
{
	static const char *const field[] = {"pe", "seq", "dst", "bytes",
	    "t_ns", "gap_ns"};
	uint64_t v[6];
	char *p;
	int i, n;

	for (;;) {
		if ((n = next_line(r, err, errsz)) < 0)
			return -1;
		if (n == 0) {
			if (!r->ended)
				return tt_errf(err, errsz, "%s:%" PRIu64 ": the file "
				    "ends without its '# end' line: it was cut "
				    "short (write it again)", r->path, r->lineno);
			return 0;
		}
		if (r->ended)
			return tt_errf(err, errsz, "%s:%" PRIu64 ": a line after "
			    "the '# end' line", r->path, r->lineno);
		if (strncmp(r->line, DEPS_END, strlen(DEPS_END)) == 0) {
			if (end_line(r, r->line, err, errsz) < 0)
				return -1;
			continue;
		}
		if (r->line[0] == '#' || r->line[0] == '\0')
			continue;
		break;
	}
	p = r->line;
	for (i = 0; i < 6; i++) {
		if (num(&p, UINT64_MAX, &v[i]) < 0 || (skip_space(&p) < 0 &&
		    (i < 5 || *p != '\0')))
			return tt_errf(err, errsz, "%s:%" PRIu64 ": field %d (%s): "
			    "wanted a whole number (line format: pe seq dst "
			    "bytes t_ns gap_ns preds)", r->path, r->lineno, i + 1,
			    field[i]);
		if (check_field(r, i, v[i], err, errsz) < 0)
			return -1;
	}
	if (*p == '\0')
		return tt_errf(err, errsz, "%s:%" PRIu64 ": field 7 (preds): "
		    "wanted SRC:SEQ ... or '-'", r->path, r->lineno);
	d->pe = (uint32_t)v[0];
	d->seq = (uint32_t)v[1];
	d->dst = (uint32_t)v[2];
	d->bytes = v[3];
	d->t_ns = v[4];
	d->gap_ns = v[5];
	if (parse_preds(r, p, d, err, errsz) < 0)
		return -1;
	r->lines++;
	r->preds += d->npred;
	return 1;
}

void
tt_deps_close_reader(tt_deps_reader *r)
{
	if (r == NULL)
		return;
	if (r->f != NULL)
		fclose(r->f);
	free(r->line);
	free(r->pred);
	free(r->path);
	free(r);
}

static int
stream_next(void *ctx, tt_dep *d, char *err, size_t errsz)
{
	return tt_deps_read(ctx, d, err, errsz);
}

tt_dep_stream
tt_deps_stream(tt_deps_reader *r)
{
	tt_dep_stream s = {stream_next, r};

	return s;
}
