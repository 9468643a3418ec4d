/*
 * SimGrid time-independent traces (twintorus/ti.h): the reader, into a
 * tt_mpi_trace, and the writer, from dependency lines.
 *
 * The actions and their fields are those SimGrid 3.32's replay takes
 * (src/smpi/internals/smpi_replay.cpp) and its TI tracing writes; the
 * datatypes are its predefined ones, by the number it encodes them with.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "twintorus/ti.h"
#include "twintorus/outfile.h"
#include "support/errf.h"
#include "support/outfile_int.h"
#include "support/u64map.h"

/* SimGrid's MPI_ANY_SOURCE and MPI_ANY_TAG (include/smpi/smpi.h); its TI
 * tracing writes a receive from MPI_ANY_SOURCE with MPI_UNDEFINED, the
 * rank MPI_ANY_SOURCE translates to. */
#define TI_ANY_SOURCE (-555)
#define TI_UNDEFINED  (-333)
#define TI_ANY_TAG    (-444)
/* The most fields a line can have: one a character and a blank. */
#define TI_MAX_TOK (TT_TI_LINE_MAX / 2 + 1)
/* What tt_ti_is() reads of a line: a name, or a rank and an action. */
#define TI_IS_LINE 4096

/* The size in bytes of SimGrid's predefined datatype number i (its
 * smpi_datatype.cpp, on LP64: the C types' sizes); 0 where the number is
 * MPI_UB or MPI_LB (no data). */
static const uint8_t ti_dtsize[] = {
	8, 4, 1, 2, 8, 4, 1, 8, 1, 1,           /* 0-9: double .. uchar */
	2, 4, 8, 8, 16, 4, 1, 1, 2, 4,          /* 10-19: ushort .. int32 */
	8, 1, 2, 4, 8, 8, 16, 32, 8, 8,         /* 20-29: int64 .. offset */
	8, 16, 16, 8, 8, 8, 16, 16, 4, 4,       /* 30-39: float_int .. real4 */
	8, 16, 8, 16, 16, 4, 2, 4, 8, 16,       /* 40-49: real8 .. integer16 */
	32, 1, 8, 16, 32, 0, 0, 1, 8, 8         /* 50-59: .. packed ptr count */
};
#define TI_NDT (sizeof(ti_dtsize) / sizeof(ti_dtsize[0]))
#define TI_DT_DOUBLE 0
#define TI_DT_BYTE   6

/* ---- reading ---- */

/* A request isend or irecv posted and not yet waited for. */
struct ti_req {
	int64_t src, dst, tag;
	uint64_t req;
};

struct ti_reader {
	tt_mpi_trace *t;
	double flops;
	const char *path;       /* the file being read, for messages */
	unsigned long line;
	char *buf;              /* TT_TI_LINE_MAX + 2 bytes: a line */
	char **tok;             /* TI_MAX_TOK: its fields */
	char *err;
	size_t errsz;
	/* per rank */
	struct ti_rank {
		struct ti_req *pend;
		size_t npend, cap;
		uint64_t next_req;
		unsigned dt_default;    /* SimGrid's number */
	} *rank;
};

static int
ti_fail(struct ti_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int
ti_fail(struct ti_reader *r, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return tt_errf(r->err, r->errsz, "%s:%lu: %s", r->path, r->line, what);
}

/* A whole integer field in [lo, hi]. */
static int
ti_int(struct ti_reader *r, const char *act, const char *what,
    const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || *end != '\0' || errno != 0 || v < lo || v > hi)
		return ti_fail(r, "%s: %s '%s' is not a whole number from %"
		    PRId64 " to %" PRId64, act, what, s, lo, hi);
	*out = v;
	return 0;
}

/* A number of flops, seconds or elements: finite, at least 0 (or any
 * sign with neg), at most hi. */
static int
ti_real(struct ti_reader *r, const char *act, const char *what,
    const char *s, double hi, int neg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v) ||
	    (!neg && v < 0) || v > hi)
		return ti_fail(r, "%s: %s '%s' is not a number from 0 to %g",
		    act, what, s, hi);
	*out = v;
	return 0;
}

/* The datatype in field i (the rank's default when there is none): its
 * size in bytes. */
static int
ti_dt(struct ti_reader *r, uint32_t rk, char **tok, int ntok, int i,
    const char *act, uint64_t *size)
{
	int64_t d;

	if (i >= ntok) {
		*size = ti_dtsize[r->rank[rk].dt_default];
		return 0;
	}
	if (ti_int(r, act, "datatype", tok[i], 0, INT32_MAX, &d) < 0)
		return -1;
	if ((size_t)d >= TI_NDT)
		return ti_fail(r, "%s: datatype %" PRId64 " is not one of "
		    "SimGrid's predefined datatypes (0 to %zu): a derived "
		    "datatype's size is not in the trace", act, d, TI_NDT - 1);
	*size = ti_dtsize[d];
	return 0;
}

/* count elements of size bytes: the bytes, refused past deps' limit */
static int
ti_bytes(struct ti_reader *r, const char *act, double count, uint64_t size,
    uint64_t *out)
{
	double b = floor(count) * (double)size;

	if (b > (double)TT_DEPS_BYTES_MAX)
		return ti_fail(r, "%s: %.0f bytes, more than a message can "
		    "have (%llu)", act, b, (unsigned long long)TT_DEPS_BYTES_MAX);
	*out = (uint64_t)b;
	return 0;
}

static int
ti_add(struct ti_reader *r, uint32_t rk, const tt_mpi_event *e)
{
	if (tt_mpi_trace_add(r->t, rk, e) < 0)
		return ti_fail(r, "out of memory");
	return 0;
}

static void
ti_event(tt_mpi_event *e, enum tt_mpi_kind kind)
{
	memset(e, 0, sizeof(*e));
	e->kind = (uint8_t)kind;
}

/* Compute for s seconds (a compute's flops over the rate, or a sleep). */
static int
ti_compute(struct ti_reader *r, uint32_t rk, const char *act, double s)
{
	tt_mpi_event e;
	double ns = s * 1e9;

	if (ns > (double)TT_DEPS_NS_MAX)
		return ti_fail(r, "%s: %.3f s of compute, more than a day (at %g "
		    "flops/s: is the rate right?)", act, s, r->flops);
	if (ns < 0.5)
		return 0;
	ti_event(&e, TT_MPI_COMPUTE);
	e.ns = (uint64_t)llround(ns);
	return ti_add(r, rk, &e);
}

static int
ti_post(struct ti_reader *r, uint32_t rk, int64_t src, int64_t dst,
    int64_t tag, uint64_t *req)
{
	struct ti_rank *q = &r->rank[rk];

	if (q->npend == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 16;
		struct ti_req *p = realloc(q->pend, cap * sizeof(*p));

		if (p == NULL)
			return ti_fail(r, "out of memory");
		q->pend = p;
		q->cap = cap;
	}
	*req = q->next_req++;
	q->pend[q->npend++] = (struct ti_req){ .src = src, .dst = dst,
	    .tag = tag, .req = *req };
	return 0;
}

/* Complete the pending request at index i. */
static int
ti_complete(struct ti_reader *r, uint32_t rk, size_t i)
{
	struct ti_rank *q = &r->rank[rk];
	tt_mpi_event e;

	ti_event(&e, TT_MPI_WAIT);
	e.req = q->pend[i].req;
	memmove(q->pend + i, q->pend + i + 1,
	    (q->npend - i - 1) * sizeof(*q->pend));
	q->npend--;
	return ti_add(r, rk, &e);
}

static int
ti_complete_all(struct ti_reader *r, uint32_t rk)
{
	while (r->rank[rk].npend > 0)
		if (ti_complete(r, rk, 0) < 0)
			return -1;
	return 0;
}

/* A peer rank field: a rank of the trace (MPI_ANY_SOURCE refused). */
static int
ti_peer(struct ti_reader *r, const char *act, const char *what,
    const char *s, int64_t *out)
{
	if (ti_int(r, act, what, s, INT32_MIN, INT32_MAX, out) < 0)
		return -1;
	if (*out == TI_ANY_SOURCE || *out == TI_UNDEFINED)
		return ti_fail(r, "%s: a receive from MPI_ANY_SOURCE (%s %"
		    PRId64 "): the trace does not say which send it matched",
		    act, what, *out);
	if (*out < 0 || *out >= r->t->nranks)
		return ti_fail(r, "%s: %s %" PRId64 " is not a rank of the "
		    "trace (0 to %" PRIu32 ")", act, what, *out,
		    r->t->nranks - 1);
	return 0;
}

static int
ti_tag(struct ti_reader *r, const char *act, const char *s, int64_t *out)
{
	if (ti_int(r, act, "tag", s, INT32_MIN, INT32_MAX, out) < 0)
		return -1;
	if (*out == TI_ANY_TAG)
		return ti_fail(r, "%s: a receive with MPI_ANY_TAG: the trace "
		    "does not say which send it matched", act);
	return 0;
}

/* send, isend, recv, irecv: partner tag count [datatype] */
static int
ti_p2p(struct ti_reader *r, uint32_t rk, char **tok, int ntok)
{
	const char *act = tok[1];
	/* send, Ssend (synchronous: eager here, as every send), isend */
	int is_send = act[0] == 's' || act[0] == 'S' || act[1] == 's';
	int nb = act[0] == 'i';
	int64_t peer, tag;
	double count;
	uint64_t size, bytes = 0, req = 0;
	tt_mpi_event e;

	if (ntok < 5 || ntok > 6)
		return ti_fail(r, "%s takes a partner, a tag, a count and an "
		    "optional datatype", act);
	if (ti_peer(r, act, is_send ? "destination" : "source", tok[2],
	    &peer) < 0 || ti_tag(r, act, tok[3], &tag) < 0 ||
	    ti_real(r, act, "count", tok[4], 1e300, !is_send, &count) < 0 ||
	    ti_dt(r, rk, tok, ntok, 5, act, &size) < 0)
		return -1;
	/* a receive of unknown size (SimGrid probes for it) */
	if (count > 0 && ti_bytes(r, act, count, size, &bytes) < 0)
		return -1;
	if (nb && ti_post(r, rk, is_send ? rk : peer, is_send ? peer : rk, tag,
	    &req) < 0)
		return -1;
	ti_event(&e, is_send ? (nb ? TT_MPI_ISEND : TT_MPI_SEND) :
	    (nb ? TT_MPI_IRECV : TT_MPI_RECV));
	e.peer = (uint32_t)peer;
	e.tag = tag;
	e.bytes = bytes;
	e.req = req;
	return ti_add(r, rk, &e);
}

/* wait source destination tag */
static int
ti_wait(struct ti_reader *r, uint32_t rk, char **tok, int ntok)
{
	struct ti_rank *q = &r->rank[rk];
	int64_t s, d, tag;
	size_t i;

	if (ntok != 5)
		return ti_fail(r, "wait takes a source, a destination and a "
		    "tag");
	if (ti_int(r, "wait", "source", tok[2], INT32_MIN, INT32_MAX, &s) < 0 ||
	    ti_int(r, "wait", "destination", tok[3], INT32_MIN, INT32_MAX,
	    &d) < 0 || ti_int(r, "wait", "tag", tok[4], INT32_MIN, INT32_MAX,
	    &tag) < 0)
		return -1;
	for (i = 0; i < q->npend; i++)
		if (q->pend[i].src == s && q->pend[i].dst == d &&
		    q->pend[i].tag == tag)
			return ti_complete(r, rk, i);
	return ti_fail(r, "wait: no isend or irecv of source %" PRId64
	    ", destination %" PRId64 " and tag %" PRId64 " is pending", s, d,
	    tag);
}

/* sendRecv sendcount dst recvcount src [dt1 [dt2]] */
static int
ti_sendrecv(struct ti_reader *r, uint32_t rk, char **tok, int ntok)
{
	const char *act = tok[1];
	int64_t dst, src;
	double sc, rc;
	uint64_t s1, s2, sb = 0, rb = 0, rs, rr;
	tt_mpi_event e;

	if (ntok < 6 || ntok > 8)
		return ti_fail(r, "sendRecv takes a send count, a destination, "
		    "a receive count, a source and two optional datatypes");
	if (ti_real(r, act, "send count", tok[2], 1e300, 0, &sc) < 0 ||
	    ti_peer(r, act, "destination", tok[3], &dst) < 0 ||
	    ti_real(r, act, "receive count", tok[4], 1e300, 0, &rc) < 0 ||
	    ti_peer(r, act, "source", tok[5], &src) < 0 ||
	    ti_dt(r, rk, tok, ntok, 6, act, &s1) < 0 ||
	    ti_dt(r, rk, tok, ntok, 7, act, &s2) < 0 ||
	    ti_bytes(r, act, sc, s1, &sb) < 0 ||
	    ti_bytes(r, act, rc, s2, &rb) < 0)
		return -1;
	/* SimGrid's replay sends and receives with tag 0 */
	if (ti_post(r, rk, rk, dst, 0, &rs) < 0)
		return -1;
	ti_event(&e, TT_MPI_ISEND);
	e.peer = (uint32_t)dst;
	e.bytes = sb;
	e.req = rs;
	if (ti_add(r, rk, &e) < 0 || ti_post(r, rk, src, rk, 0, &rr) < 0)
		return -1;
	ti_event(&e, TT_MPI_IRECV);
	e.peer = (uint32_t)src;
	e.bytes = rb;
	e.req = rr;
	if (ti_add(r, rk, &e) < 0)
		return -1;
	/* the two just posted are the last two pending */
	return ti_complete(r, rk, r->rank[rk].npend - 1) < 0 ? -1 :
	    ti_complete(r, rk, r->rank[rk].npend - 1);
}

struct ti_coll_def {
	const char *name;
	enum tt_mpi_coll coll;
	int counts;             /* count fields: 1 (count) or 2 (send, recv) */
	int comp;               /* a flops field after the counts */
	int root;               /* an optional root after those */
	int ndt;                /* optional datatypes after those */
	int by_recv;            /* the bytes are the receive count's */
};

static const struct ti_coll_def ti_colls[] = {
	{"barrier", TT_COLL_BARRIER, 0, 0, 0, 0, 0},
	{"bcast", TT_COLL_BCAST, 1, 0, 1, 1, 0},
	{"reduce", TT_COLL_REDUCE, 1, 1, 1, 1, 0},
	{"allreduce", TT_COLL_ALLREDUCE, 1, 1, 0, 1, 0},
	{"gather", TT_COLL_GATHER, 2, 0, 1, 2, 0},
	{"scatter", TT_COLL_SCATTER, 2, 0, 1, 2, 1},
	{"allgather", TT_COLL_ALLGATHER, 2, 0, 0, 2, 0},
	{"alltoall", TT_COLL_ALLTOALL, 2, 0, 0, 2, 0},
};

static int
ti_coll(struct ti_reader *r, uint32_t rk, const struct ti_coll_def *c,
    char **tok, int ntok)
{
	const char *act = tok[1];
	int fixed = 2 + c->counts + c->comp, i = fixed;
	double count[2] = {0, 0}, comp = 0;
	uint64_t size[2] = {0, 0}, bytes = 0;
	int64_t root = 0;
	tt_mpi_event e;
	int k;

	if (c->counts == 0 && ntok > 2)
		return ti_fail(r, "%s takes no field", act);
	if (ntok < fixed || ntok > fixed + c->root + c->ndt)
		return ti_fail(r, "%s takes %d count%s%s%s%s", act, c->counts,
		    c->counts == 1 ? "" : "s", c->comp ? ", its flops" : "",
		    c->root ? ", an optional root" : "", c->ndt == 0 ? "" :
		    c->ndt == 1 ? " and an optional datatype" :
		    " and two optional datatypes");
	for (k = 0; k < c->counts; k++)
		if (ti_real(r, act, "count", tok[2 + k], 1e300, 0,
		    &count[k]) < 0)
			return -1;
	if (c->comp && ti_real(r, act, "flops", tok[2 + c->counts], 1e300, 0,
	    &comp) < 0)
		return -1;
	if (c->root && i < ntok && ti_peer(r, act, "root", tok[i++], &root) < 0)
		return -1;
	for (k = 0; k < c->ndt; k++)
		if (ti_dt(r, rk, tok, ntok, i + k, act, &size[k]) < 0)
			return -1;
	if (c->counts > 0) {
		k = c->by_recv ? 1 : 0;
		if (ti_bytes(r, act, count[k], size[c->ndt > k ? k : 0],
		    &bytes) < 0)
			return -1;
	}
	ti_event(&e, TT_MPI_COLL);
	e.coll = (uint8_t)c->coll;
	e.peer = (uint32_t)root;
	e.bytes = bytes;
	if (ti_add(r, rk, &e) < 0)
		return -1;
	return c->comp ? ti_compute(r, rk, act, comp / r->flops) : 0;
}

/* The sum of n counts from field i. */
static int
ti_counts(struct ti_reader *r, const char *act, char **tok, int i,
    uint32_t n, double *sum)
{
	double v;
	uint32_t k;

	*sum = 0;
	for (k = 0; k < n; k++) {
		if (ti_real(r, act, "count", tok[i + (int)k], 1e300, 0, &v) < 0)
			return -1;
		*sum += floor(v);
	}
	return 0;
}

/*
 * The collectives of varying parts, and reduce-scatter and scans, as the
 * OTF2 reader takes them (ttsim(1), MPI-level traces): a v variant is its
 * base, each rank sending its own part (gatherv, allgatherv), receiving
 * it (scatterv), or the mean of its parts (alltoallv); reducescatter is
 * an alltoall of the mean block, scan and exscan an allreduce of the
 * vector; the last two then compute their flops.  The fields are
 * SimGrid's, with n the ranks of the trace (its MPI_COMM_WORLD).
 */
static int
ti_coll_var(struct ti_reader *r, uint32_t rk, char **tok, int ntok)
{
	const char *act = tok[1];
	int n = (int)r->t->nranks, dt = -1, rooti = -1;
	double count = 0, comp = 0;
	uint64_t size = 0, bytes = 0;
	int64_t root = 0;
	enum tt_mpi_coll coll;
	tt_mpi_event e;

	if (strcmp(act, "gatherv") == 0 || strcmp(act, "scatterv") == 0) {
		/* gatherv SEND RECVCOUNTS[n] [ROOT [DT1 [DT2]]];
		 * scatterv SENDCOUNTS[n] RECV [ROOT [DT1 [DT2]]] */
		int g = act[0] == 'g';

		if (ntok < 3 + n || ntok > 6 + n)
			return ti_fail(r, "%s takes %s, %d %s, then an optional "
			    "root and two datatypes", act, g ? "a send count" :
			    "the send counts", n, g ? "receive counts" :
			    "then a receive count");
		if (ti_real(r, act, "count", tok[g ? 2 : 2 + n], 1e300, 0,
		    &count) < 0)
			return -1;
		rooti = 3 + n;
		dt = 4 + n;
		coll = g ? TT_COLL_GATHER : TT_COLL_SCATTER;
	} else if (strcmp(act, "allgatherv") == 0) {
		/* SEND RECVCOUNTS[n] [DT1 DT2] [DISPLS[n]]: SimGrid tells
		 * datatypes from displacements by the count of fields */
		if (ntok < 3 + n || ntok > 5 + 2 * n)
			return ti_fail(r, "allgatherv takes a send count, %d "
			    "receive counts, then optional datatypes and "
			    "displacements", n);
		if (ti_real(r, act, "count", tok[2], 1e300, 0, &count) < 0)
			return -1;
		dt = ntok > 3 + 2 * n || ntok <= 5 + n ? 3 + n : ntok;
		coll = TT_COLL_ALLGATHER;
	} else if (strcmp(act, "alltoallv") == 0) {
		/* SENDBUF SENDCOUNTS[n] RECVBUF RECVCOUNTS[n] [DT1 [DT2]] */
		if (ntok < 4 + 2 * n || ntok > 6 + 2 * n)
			return ti_fail(r, "alltoallv takes a send buffer size, %d "
			    "send counts, a receive buffer size, %d receive "
			    "counts and two optional datatypes", n, n);
		if (ti_counts(r, act, tok, 3, (uint32_t)n, &count) < 0)
			return -1;
		count /= n;
		dt = 4 + 2 * n;
		coll = TT_COLL_ALLTOALL;
	} else if (strcmp(act, "reducescatter") == 0) {
		/* RECVCOUNTS[n] FLOPS [DT] */
		if (ntok < 3 + n || ntok > 4 + n)
			return ti_fail(r, "reducescatter takes %d receive counts, "
			    "its flops and an optional datatype", n);
		if (ti_counts(r, act, tok, 2, (uint32_t)n, &count) < 0 ||
		    ti_real(r, act, "flops", tok[2 + n], 1e300, 0, &comp) < 0)
			return -1;
		count /= n;
		dt = 3 + n;
		coll = TT_COLL_ALLTOALL;
	} else if (strcmp(act, "scan") == 0 || strcmp(act, "exscan") == 0) {
		/* COUNT FLOPS [DT] */
		if (ntok < 4 || ntok > 5)
			return ti_fail(r, "%s takes a count, its flops and an "
			    "optional datatype", act);
		if (ti_real(r, act, "count", tok[2], 1e300, 0, &count) < 0 ||
		    ti_real(r, act, "flops", tok[3], 1e300, 0, &comp) < 0)
			return -1;
		dt = 4;
		coll = TT_COLL_ALLREDUCE;
	} else {
		return 1;
	}
	if (rooti >= 0 && rooti < ntok &&
	    ti_peer(r, act, "root", tok[rooti], &root) < 0)
		return -1;
	/* scatterv's part is the receive count, of the second datatype */
	if (ti_dt(r, rk, tok, ntok, coll == TT_COLL_SCATTER ? dt + 1 : dt,
	    act, &size) < 0 || ti_bytes(r, act, count, size, &bytes) < 0)
		return -1;
	ti_event(&e, TT_MPI_COLL);
	e.coll = (uint8_t)coll;
	e.peer = (uint32_t)root;
	e.bytes = bytes;
	if (ti_add(r, rk, &e) < 0)
		return -1;
	return comp > 0 ? ti_compute(r, rk, act, comp / r->flops) : 0;
}

/* Actions that do nothing here (test: an approximation, ti.h). */
static const char *const ti_nothing[] = {
	"finalize", "comm_size", "comm_split", "comm_dup", "location", "test"
};

static int
ti_action(struct ti_reader *r, uint32_t rk, char **tok, int ntok)
{
	const char *act = tok[1];
	double v;
	size_t i;
	int x;

	if (strcmp(act, "init") == 0) {
		r->rank[rk].dt_default = ntok > 2 ? TI_DT_DOUBLE : TI_DT_BYTE;
		return 0;
	}
	if (strcmp(act, "compute") == 0 || strcmp(act, "sleep") == 0) {
		if (ntok != 3)
			return ti_fail(r, "%s takes one number", act);
		if (ti_real(r, act, act[0] == 'c' ? "flops" : "seconds",
		    tok[2], 1e300, 0, &v) < 0)
			return -1;
		return ti_compute(r, rk, act, act[0] == 'c' ? v / r->flops : v);
	}
	if (strcmp(act, "send") == 0 || strcmp(act, "isend") == 0 ||
	    strcmp(act, "Ssend") == 0 ||
	    strcmp(act, "recv") == 0 || strcmp(act, "irecv") == 0)
		return ti_p2p(r, rk, tok, ntok);
	if (strcmp(act, "wait") == 0)
		return ti_wait(r, rk, tok, ntok);
	if (strcmp(act, "waitall") == 0)
		return ti_complete_all(r, rk);
	if (strcmp(act, "sendRecv") == 0)
		return ti_sendrecv(r, rk, tok, ntok);
	for (i = 0; i < sizeof(ti_colls) / sizeof(ti_colls[0]); i++)
		if (strcmp(act, ti_colls[i].name) == 0)
			return ti_coll(r, rk, &ti_colls[i], tok, ntok);
	for (i = 0; i < sizeof(ti_nothing) / sizeof(ti_nothing[0]); i++)
		if (strcmp(act, ti_nothing[i]) == 0)
			return 0;
	if ((x = ti_coll_var(r, rk, tok, ntok)) <= 0)
		return x;
	/* SimGrid's tracing also writes waitAny, testall, ibarrier, ...,
	 * which its replay refuses too: which request completed, or whether
	 * any did, is not in the trace */
	return ti_fail(r, "'%s' is an action neither ttsim nor SimGrid's "
	    "replay takes", act);
}

/* One line into fields; 0 for a blank or comment line. */
static int
ti_split(char *line, char **tok, int max)
{
	int n = 0;
	char *p = line;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0' || *p == '#')
		return 0;
	while (*p != '\0') {
		if (n == max)
			return max + 1;
		tok[n++] = p;
		while (*p != '\0' && *p != ' ' && *p != '\t')
			p++;
		if (*p == '\0')
			break;
		*p++ = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
	}
	return n;
}

/* The next line of f into buf (newline and CR stripped): 1, 0 at the end,
 * -1 after a message (too long, or a read error). */
static int
ti_getline(struct ti_reader *r, FILE *f, char *buf, size_t bufsz)
{
	size_t n;

	if (fgets(buf, (int)bufsz, f) == NULL) {
		if (ferror(f))
			return tt_errf(r->err, r->errsz, "%s: %s", r->path,
			    strerror(errno));
		return 0;
	}
	r->line++;
	n = strlen(buf);
	if (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	else if (!feof(f))
		return ti_fail(r, "a line longer than %u bytes", TT_TI_LINE_MAX);
	if (n > 0 && buf[n - 1] == '\r')
		buf[--n] = '\0';
	return 1;
}

/* Read one action file: want is the rank its lines must have, or -1 for
 * a file holding every rank's (an index of one line). */
static int
ti_read_file(struct ti_reader *r, const char *path, int64_t want)
{
	char *buf = r->buf, **tok = r->tok;
	FILE *f;
	int ntok, x;
	int64_t rk;

	r->path = path;
	r->line = 0;
	if ((f = fopen(path, "r")) == NULL)
		return tt_errf(r->err, r->errsz, "%s: %s", path,
		    strerror(errno));
	(void)tt_outfile_input_fd(fileno(f), path);
	while ((x = ti_getline(r, f, buf, TT_TI_LINE_MAX + 2)) > 0) {
		if ((ntok = ti_split(buf, tok, TI_MAX_TOK)) == 0)
			continue;
		if (ntok < 2) {
			x = ti_fail(r, "a line is a rank and an action, then its "
			    "fields");
			break;
		}
		if ((x = ti_int(r, "the line", "rank", tok[0], 0,
		    (int64_t)r->t->nranks - 1, &rk)) < 0)
			break;
		if (want >= 0 && rk != want) {
			x = ti_fail(r, "an action of rank %" PRId64 " in rank "
			    "%" PRId64 "'s file (the index's line %" PRId64 ")",
			    rk, want, want + 1);
			break;
		}
		if ((x = ti_action(r, (uint32_t)rk, tok, ntok)) < 0)
			break;
	}
	fclose(f);
	return x < 0 ? -1 : 0;
}

/* A shared file's ranks: one more than the highest rank a line has. */
static int
ti_count_ranks(struct ti_reader *r, const char *path, uint32_t *n)
{
	char *buf = r->buf, **tok = r->tok;
	FILE *f;
	int x, ntok;
	int64_t rk, max = -1;

	r->path = path;
	r->line = 0;
	if ((f = fopen(path, "r")) == NULL)
		return tt_errf(r->err, r->errsz, "%s: %s", path,
		    strerror(errno));
	while ((x = ti_getline(r, f, buf, TT_TI_LINE_MAX + 2)) > 0) {
		if ((ntok = ti_split(buf, tok, TI_MAX_TOK)) == 0)
			continue;
		if ((x = ti_int(r, "the line", "rank", tok[0], 0, INT32_MAX,
		    &rk)) < 0)
			break;
		if (rk > max)
			max = rk;
	}
	fclose(f);
	if (x < 0)
		return -1;
	if (max < 0)
		return tt_errf(r->err, r->errsz, "%s: no action in the file",
		    path);
	*n = (uint32_t)(max + 1);
	return 0;
}

/* The index's names, resolved against its directory. */
struct ti_index {
	char **file;
	size_t n;
};

static void
ti_index_free(struct ti_index *ix)
{
	size_t i;

	for (i = 0; i < ix->n; i++)
		free(ix->file[i]);
	free(ix->file);
	memset(ix, 0, sizeof(*ix));
}

/* The index file of path (path, or path/TT_TI_INDEX for a directory) into
 * buf.  0, or -1 with errno. */
static int
ti_index_path(const char *path, char *buf, size_t bufsz)
{
	struct stat st;
	int n;

	if (stat(path, &st) < 0)
		return -1;
	if (S_ISDIR(st.st_mode))
		n = snprintf(buf, bufsz, "%s/%s", path, TT_TI_INDEX);
	else
		n = snprintf(buf, bufsz, "%s", path);
	if (n < 0 || (size_t)n >= bufsz) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* p + q, in a new string; NULL when out of memory. */
static char *
ti_join(const char *p, size_t plen, const char *q)
{
	size_t qlen = strlen(q);
	char *s = malloc(plen + qlen + 1);

	if (s != NULL) {
		memcpy(s, p, plen);
		memcpy(s + plen, q, qlen + 1);
	}
	return s;
}

static int
ti_is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * The file an index line names (a new string, NULL when out of memory).
 * SimGrid names them as smpirun opened them, relative to its working
 * directory: -trace-file sub/t.txt gives sub/t.txt_files/..._rank-1.txt
 * in sub/t.txt.  So a relative name is taken from the index's directory,
 * else from its part from the index's own BASE_files/ on (wherever smpirun
 * ran), else as given (from ours); if none is a file, from the index's
 * directory, for the message.
 */
static char *
ti_resolve(const char *index, const char *name)
{
	const char *slash = strrchr(index, '/'), *base = slash ? slash + 1 :
	    index, *at;
	size_t dirlen = slash ? (size_t)(slash - index) + 1 : 0;
	char *p, *files;

	if (name[0] == '/')
		return ti_join(name, 0, name);
	if ((p = ti_join(index, dirlen, name)) == NULL || ti_is_file(p))
		return p;
	if ((files = ti_join(base, strlen(base), "_files/")) == NULL) {
		free(p);
		return NULL;
	}
	for (at = name; (at = strstr(at, files)) != NULL; at++)
		if (at == name || at[-1] == '/') {
			char *q = ti_join(index, dirlen, at);

			if (q == NULL || ti_is_file(q)) {
				free(p);
				free(files);
				return q;
			}
			free(q);
			break;
		}
	free(files);
	if (ti_is_file(name)) {
		free(p);
		return ti_join(name, 0, name);
	}
	return p;
}

static int
ti_index_read(struct ti_reader *r, const char *index, struct ti_index *ix)
{
	char *buf = r->buf, *p;
	size_t cap = 0;
	FILE *f;
	int x;

	memset(ix, 0, sizeof(*ix));
	r->path = index;
	r->line = 0;
	if ((f = fopen(index, "r")) == NULL)
		return tt_errf(r->err, r->errsz, "%s: %s", index,
		    strerror(errno));
	(void)tt_outfile_input_fd(fileno(f), index);
	while ((x = ti_getline(r, f, buf, TT_TI_LINE_MAX + 2)) > 0) {
		/* SimGrid takes every non-empty line as a name */
		if (buf[0] == '\0')
			continue;
		if (ix->n == cap) {
			char **nf;

			cap = cap ? 2 * cap : 64;
			if ((nf = realloc(ix->file, cap * sizeof(*nf))) == NULL) {
				x = ti_fail(r, "out of memory");
				break;
			}
			ix->file = nf;
		}
		if ((p = ti_resolve(index, buf)) == NULL) {
			x = ti_fail(r, "out of memory");
			break;
		}
		ix->file[ix->n++] = p;
		if (ix->n > INT32_MAX) {
			x = ti_fail(r, "more than %d ranks", INT32_MAX);
			break;
		}
	}
	fclose(f);
	if (x >= 0 && ix->n == 0)
		x = tt_errf(r->err, r->errsz, "%s: names no action file (an "
		    "index of a time-independent trace has one per rank)",
		    index);
	if (x < 0) {
		ti_index_free(ix);
		return -1;
	}
	return 0;
}

int
tt_ti_read(tt_mpi_trace *t, const char *path, double flops, char *err,
    size_t errsz)
{
	struct ti_reader r;
	struct ti_index ix;
	char index[PATH_MAX];
	uint32_t nranks = 0, i;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	memset(&r, 0, sizeof(r));
	r.t = t;
	r.flops = flops;
	r.err = err;
	r.errsz = errsz;
	if (!(flops > 0) || !isfinite(flops))
		return tt_errf(err, errsz, "%s: the compute rate must be a "
		    "positive number of flops per second", path);
	if (ti_index_path(path, index, sizeof(index)) < 0)
		return tt_errf(err, errsz, "%s: %s", path, strerror(errno));
	if ((r.buf = malloc(TT_TI_LINE_MAX + 2)) == NULL ||
	    (r.tok = malloc(TI_MAX_TOK * sizeof(*r.tok))) == NULL) {
		free(r.buf);
		return tt_errf(err, errsz, "%s: out of memory", path);
	}
	if (ti_index_read(&r, index, &ix) < 0) {
		free(r.buf);
		free(r.tok);
		return -1;
	}
	if (ix.n == 1) {
		if (ti_count_ranks(&r, ix.file[0], &nranks) < 0)
			goto out;
	} else {
		nranks = (uint32_t)ix.n;
	}
	if (tt_mpi_trace_init(t, nranks, "ti") < 0 ||
	    (r.rank = calloc(nranks, sizeof(*r.rank))) == NULL) {
		tt_errf(err, errsz, "%s: out of memory", index);
		goto out;
	}
	for (i = 0; i < nranks; i++)
		r.rank[i].dt_default = TI_DT_BYTE;
	if (ix.n == 1) {
		if (ti_read_file(&r, ix.file[0], -1) < 0)
			goto out;
	} else {
		for (i = 0; i < nranks; i++)
			if (ti_read_file(&r, ix.file[i], i) < 0)
				goto out;
	}
	/* what is pending at the end completes there, as SimGrid's
	 * replay waits for it */
	r.path = index;
	for (i = 0; i < nranks; i++)
		if (ti_complete_all(&r, i) < 0)
			goto out;
	t->timed = 0;
	t->span_ns = 0;
	rc = 0;
out:
	if (r.rank != NULL)
		for (i = 0; i < nranks; i++)
			free(r.rank[i].pend);
	free(r.rank);
	free(r.buf);
	free(r.tok);
	ti_index_free(&ix);
	if (rc < 0)
		tt_mpi_trace_free(t);
	return rc;
}

int
tt_ti_is(const char *path)
{
	char index[PATH_MAX], buf[TI_IS_LINE], *name;
	char *tok[4], *end;
	FILE *f;
	size_t n;
	int ntok, is = 0;
	struct stat st;

	if (ti_index_path(path, index, sizeof(index)) < 0 ||
	    stat(index, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (f = fopen(index, "r")) == NULL)
		return 0;
	buf[0] = '\0';
	while (fgets(buf, (int)sizeof(buf), f) != NULL && buf[0] == '\n')
		;
	fclose(f);
	n = strcspn(buf, "\r\n");
	buf[n] = '\0';
	if (n == 0 || memchr(buf, '\0', n) != NULL)
		return 0;
	if ((name = ti_resolve(index, buf)) == NULL)
		return 0;
	f = ti_is_file(name) ? fopen(name, "r") : NULL;
	free(name);
	if (f == NULL)
		return 0;
	while (fgets(buf, (int)sizeof(buf), f) != NULL) {
		buf[strcspn(buf, "\r\n")] = '\0';
		if ((ntok = ti_split(buf, tok, 2)) == 0)
			continue;
		is = ntok >= 2 &&
		    strtol(tok[0], &end, 10) >= 0 && end != tok[0] &&
		    *end == '\0' && tok[1][0] >= 'a' && tok[1][0] <= 'z';
		break;
	}
	fclose(f);
	return is;
}

/* ---- writing ---- */

/* A message as the writer keeps it until its receive is placed. */
struct tx_msg {
	uint32_t src, seq, dst;
	uint32_t bytes;
	uint8_t received;
};

/* A rank's actions, held until a flush appends them to its file. */
struct tx_rank {
	char *buf;
	size_t len, cap;
	int isends;
};

struct ti_writer {
	char *tmp;              /* the directory being written */
	size_t tmplen;
	uint32_t nranks;
	struct tx_rank *rank;
	struct tx_msg *msg;
	size_t nmsg, capmsg;
	tt_u64map key;          /* (src, seq) -> index into msg */
	char *err;
	size_t errsz;
	tt_ti_export_stats *st;
};

/* Flush a rank's buffer once it holds this much. */
#define TX_FLUSH 65536

/* The ranks of the directory being written, for tx_at_signal() (one
 * export at a time in a process). */
static volatile uint32_t tx_sig_nranks;

/* A signal that ends the process: remove what the temporary directory
 * holds and the directory, with async-signal-safe calls only. */
static void
tx_at_signal(const char *dir)
{
	char p[PATH_MAX], num[12];
	size_t len = strlen(dir), k, n;
	uint32_t r, v;
	static const char idx[] = "/" TT_TI_INDEX, pre[] = "/rank-",
	    suf[] = ".txt";

	if (len + sizeof(idx) > sizeof(p) || len + 32 > sizeof(p))
		return;
	memcpy(p, dir, len);
	memcpy(p + len, idx, sizeof(idx));
	unlink(p);
	for (r = 0; r < tx_sig_nranks; r++) {
		for (n = 0, v = r; n == 0 || v > 0; v /= 10)
			num[n++] = (char)('0' + v % 10);
		k = len;
		memcpy(p + k, pre, sizeof(pre) - 1);
		k += sizeof(pre) - 1;
		while (n > 0)
			p[k++] = num[--n];
		memcpy(p + k, suf, sizeof(suf));
		unlink(p);
	}
	rmdir(dir);
}

static int
tx_rank_path(const struct ti_writer *w, uint32_t r, char *buf, size_t bufsz)
{
	int n = snprintf(buf, bufsz, "%s/rank-%" PRIu32 ".txt", w->tmp, r);

	return n < 0 || (size_t)n >= bufsz ? -1 : 0;
}

static int
tx_flush(struct ti_writer *w, uint32_t r)
{
	struct tx_rank *k = &w->rank[r];
	char path[PATH_MAX];
	FILE *f;
	int bad;

	if (k->len == 0)
		return 0;
	if (tx_rank_path(w, r, path, sizeof(path)) < 0)
		return tt_errf(w->err, w->errsz, "%s: name too long", w->tmp);
	if ((f = fopen(path, "a")) == NULL)
		return tt_errf(w->err, w->errsz, "%s: %s", path,
		    strerror(errno));
	bad = fwrite(k->buf, 1, k->len, f) != k->len;
	if (fclose(f) != 0 || bad)
		return tt_errf(w->err, w->errsz, "%s: %s", path,
		    strerror(errno));
	k->len = 0;
	return 0;
}

static int
tx_printf(struct ti_writer *w, uint32_t r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
tx_printf(struct ti_writer *w, uint32_t r, const char *fmt, ...)
{
	struct tx_rank *k = &w->rank[r];
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(k->buf + k->len, k->cap - k->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			return tt_errf(w->err, w->errsz, "formatting failed");
		if ((size_t)n < k->cap - k->len)
			break;
		{
			size_t cap = k->cap * 2 + (size_t)n + 1;
			char *b = realloc(k->buf, cap);

			if (b == NULL)
				return tt_errf(w->err, w->errsz,
				    "out of memory");
			k->buf = b;
			k->cap = cap;
		}
	}
	k->len += (size_t)n;
	return k->len >= TX_FLUSH ? tx_flush(w, r) : 0;
}

static int
tx_recv(struct ti_writer *w, struct tx_msg *m)
{
	m->received = 1;
	return tx_printf(w, m->dst, "%" PRIu32 " recv %" PRIu32 " %" PRIu32
	    " %" PRIu32 " %d\n", m->dst, m->src, m->seq & 0x7fffffffu,
	    m->bytes, TI_DT_BYTE);
}

/* The shortest decimal that reads back as x (a compute's flops: the
 * gap comes back to the nanosecond). */
static void
tx_number(char *buf, size_t bufsz, double x)
{
	int prec;

	for (prec = 6; prec < 17; prec++) {
		snprintf(buf, bufsz, "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			return;
	}
	snprintf(buf, bufsz, "%.17g", x);
}

static int
tx_line(struct ti_writer *w, const tt_dep *d, double flops)
{
	uint32_t k, idx;
	struct tx_msg *m;

	if (d->pe >= w->nranks || d->dst >= w->nranks)
		return tt_errf(w->err, w->errsz, "message %" PRIu32 ":%" PRIu32
		    " goes from PE %" PRIu32 " to PE %" PRIu32 ": the trace "
		    "has %" PRIu32 " ranks (give the network the trace ran "
		    "on)", d->pe, d->seq, d->pe, d->dst, w->nranks);
	if (d->bytes > INT32_MAX)
		return tt_errf(w->err, w->errsz, "message %" PRIu32 ":%" PRIu32
		    " has %" PRIu64 " bytes: SimGrid's counts stop at %d",
		    d->pe, d->seq, d->bytes, INT32_MAX);
	if (d->seq > INT32_MAX)
		return tt_errf(w->err, w->errsz, "message %" PRIu32 ":%" PRIu32
		    ": its tag would be its seq, and MPI's tags stop at %d",
		    d->pe, d->seq, INT32_MAX);
	for (k = 0; k < d->npred; k++) {
		uint64_t key = tt_u64map_key(d->pred[k].src, d->pred[k].seq);

		if (!tt_u64map_get(&w->key, key, &idx))
			return tt_errf(w->err, w->errsz, "message %" PRIu32
			    ":%" PRIu32 " names predecessor %" PRIu32 ":%"
			    PRIu32 ", which does not come before it",
			    d->pe, d->seq, d->pred[k].src, d->pred[k].seq);
		m = &w->msg[idx];
		if (m->dst != d->pe)
			return tt_errf(w->err, w->errsz, "message %" PRIu32
			    ":%" PRIu32 " names predecessor %" PRIu32 ":%"
			    PRIu32 ", which went to PE %" PRIu32 ", not to it",
			    d->pe, d->seq, m->src, m->seq, m->dst);
		if (m->received)
			continue;
		if (tx_recv(w, m) < 0)
			return -1;
		w->st->recv_before++;
	}
	if (d->gap_ns > 0) {
		double f = (double)d->gap_ns * flops / 1e9;
		char num[40];

		tx_number(num, sizeof(num), f);
		if (tx_printf(w, d->pe, "%" PRIu32 " compute %s\n", d->pe,
		    num) < 0)
			return -1;
		w->st->computes++;
		w->st->flops += f;
	}
	if (tx_printf(w, d->pe, "%" PRIu32 " isend %" PRIu32 " %" PRIu32 " %"
	    PRIu64 " %d\n", d->pe, d->dst, d->seq, d->bytes, TI_DT_BYTE) < 0)
		return -1;
	w->rank[d->pe].isends = 1;
	if (w->nmsg == w->capmsg) {
		size_t cap = w->capmsg ? 2 * w->capmsg : 1024;
		struct tx_msg *nm;

		if (cap > UINT32_MAX ||
		    (nm = realloc(w->msg, cap * sizeof(*nm))) == NULL)
			return tt_errf(w->err, w->errsz, "out of memory");
		w->msg = nm;
		w->capmsg = cap;
	}
	if (tt_u64map_get(&w->key, tt_u64map_key(d->pe, d->seq), &idx))
		return tt_errf(w->err, w->errsz, "message %" PRIu32 ":%" PRIu32
		    " comes twice", d->pe, d->seq);
	if (tt_u64map_put(&w->key, tt_u64map_key(d->pe, d->seq),
	    (uint32_t)w->nmsg) < 0)
		return tt_errf(w->err, w->errsz, "out of memory");
	w->msg[w->nmsg++] = (struct tx_msg){ .src = d->pe, .seq = d->seq,
	    .dst = d->dst, .bytes = (uint32_t)d->bytes, .received = 0 };
	w->st->messages++;
	w->st->bytes += d->bytes;
	return 0;
}

/* Remove the regular files of dir and dir itself (a directory this
 * writer made, or one replace allows: refused if it holds anything else). */
static int
tx_rmdir(const char *dir, int check_only, char *err, size_t errsz)
{
	DIR *dp;
	struct dirent *de;
	char path[PATH_MAX];
	struct stat st;
	int rc = 0;

	if ((dp = opendir(dir)) == NULL)
		return tt_errf(err, errsz, "%s: %s", dir, strerror(errno));
	while ((de = readdir(dp)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >=
		    (int)sizeof(path) || lstat(path, &st) < 0) {
			rc = tt_errf(err, errsz, "%s: cannot look at %s", dir,
			    de->d_name);
			break;
		}
		if (!S_ISREG(st.st_mode)) {
			rc = tt_errf(err, errsz, "%s: holds %s, which is not a "
			    "regular file: not replaced (remove it yourself or "
			    "give another directory)", dir, de->d_name);
			break;
		}
		if (!check_only && unlink(path) < 0) {
			rc = tt_errf(err, errsz, "%s: %s", path, strerror(errno));
			break;
		}
	}
	closedir(dp);
	if (rc == 0 && !check_only && rmdir(dir) < 0)
		rc = tt_errf(err, errsz, "%s: %s", dir, strerror(errno));
	return rc;
}

/* dir as it is now: 0 (absent), 1 (an empty directory), 2 (a directory
 * with something in it), or -1 with err. */
static int
tx_target(const char *dir, char *err, size_t errsz)
{
	struct stat st;
	DIR *dp;
	struct dirent *de;
	int full = 0;

	if (lstat(dir, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		return tt_errf(err, errsz, "%s: %s", dir, strerror(errno));
	}
	if (!S_ISDIR(st.st_mode))
		return tt_errf(err, errsz, "%s: exists and is not a directory",
		    dir);
	if ((dp = opendir(dir)) == NULL)
		return tt_errf(err, errsz, "%s: %s", dir, strerror(errno));
	while ((de = readdir(dp)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			full = 1;
	closedir(dp);
	return 1 + full;
}

int
tt_ti_export(const char *dir, int replace, tt_dep_stream deps,
    uint32_t nranks, double flops, tt_ti_export_stats *st, char *err,
    size_t errsz)
{
	struct ti_writer w;
	char clean[PATH_MAX], path[PATH_MAX];
	size_t len, i;
	tt_dep d;
	int x, state, rc = -1;
	uint32_t r;
	FILE *f;

	memset(st, 0, sizeof(*st));
	memset(&w, 0, sizeof(w));
	w.err = err;
	w.errsz = errsz;
	w.st = st;
	w.nranks = nranks;
	tt_u64map_init(&w.key);
	if (!(flops > 0) || !isfinite(flops))
		return tt_errf(err, errsz, "the compute rate must be a positive "
		    "number of flops per second");
	if (nranks == 0)
		return tt_errf(err, errsz, "a trace of no ranks");
	len = strlen(dir);
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (len == 0 || len + 32 >= sizeof(clean))
		return tt_errf(err, errsz, "'%s': not a directory name", dir);
	memcpy(clean, dir, len);
	clean[len] = '\0';
	if ((state = tx_target(clean, err, errsz)) < 0)
		return -1;
	if (state == 2 && !replace)
		return tt_errf(err, errsz, "%s: exists and is not empty: give "
		    "another directory (or let it be replaced)", clean);
	if (state == 2 && tx_rmdir(clean, 1, err, errsz) < 0)
		return -1;
	if ((w.tmp = malloc(len + 16)) == NULL)
		return tt_errf(err, errsz, "out of memory");
	memcpy(w.tmp, clean, len);
	memcpy(w.tmp + len, ".part-XXXXXX", sizeof(".part-XXXXXX"));
	if (mkdtemp(w.tmp) == NULL) {
		tt_errf(err, errsz, "%s: cannot make a directory beside it: %s",
		    clean, strerror(errno));
		free(w.tmp);
		return -1;
	}
	tx_sig_nranks = nranks;
	if (outfile_at_signal(w.tmp, tx_at_signal) < 0 ||
	    (w.rank = calloc(nranks, sizeof(*w.rank))) == NULL) {
		tt_errf(err, errsz, "out of memory");
		goto out;
	}
	st->ranks = nranks;
	for (r = 0; r < nranks; r++) {
		if ((w.rank[r].buf = malloc(256)) == NULL) {
			tt_errf(err, errsz, "out of memory");
			goto out;
		}
		w.rank[r].cap = 256;
		if (tx_printf(&w, r, "%" PRIu32 " init\n", r) < 0)
			goto out;
	}
	while ((x = deps.next(deps.ctx, &d, err, errsz)) > 0)
		if (tx_line(&w, &d, flops) < 0)
			goto out;
	if (x < 0)
		goto out;
	for (i = 0; i < w.nmsg; i++) {
		if (w.msg[i].received)
			continue;
		if (tx_recv(&w, &w.msg[i]) < 0)
			goto out;
		st->recv_after++;
	}
	for (r = 0; r < nranks; r++) {
		if ((w.rank[r].isends && tx_printf(&w, r, "%" PRIu32
		    " waitall\n", r) < 0) ||
		    tx_printf(&w, r, "%" PRIu32 " finalize\n", r) < 0 ||
		    tx_flush(&w, r) < 0)
			goto out;
	}
	if (snprintf(path, sizeof(path), "%s/%s", w.tmp, TT_TI_INDEX) >=
	    (int)sizeof(path) || (f = fopen(path, "w")) == NULL) {
		tt_errf(err, errsz, "%s: %s", path, strerror(errno));
		goto out;
	}
	for (r = 0; r < nranks; r++)
		fprintf(f, "rank-%" PRIu32 ".txt\n", r);
	if (ferror(f) | fclose(f)) {
		tt_errf(err, errsz, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (state == 2 && tx_rmdir(clean, 0, err, errsz) < 0)
		goto out;
	if (state == 1 && rmdir(clean) < 0) {
		tt_errf(err, errsz, "%s: %s", clean, strerror(errno));
		goto out;
	}
	/* renamed, it is no longer the signal's to remove */
	outfile_at_signal_forget(w.tmp);
	if (rename(w.tmp, clean) < 0) {
		tt_errf(err, errsz, "%s: cannot rename %s to it: %s", clean,
		    w.tmp, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	outfile_at_signal_forget(w.tmp);
	if (rc < 0) {
		char e2[256];

		(void)tx_rmdir(w.tmp, 0, e2, sizeof(e2));
	}
	if (w.rank != NULL)
		for (r = 0; r < nranks; r++)
			free(w.rank[r].buf);
	free(w.rank);
	free(w.msg);
	free(w.tmp);
	tt_u64map_free(&w.key);
	return rc;
}
