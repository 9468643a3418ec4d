/*
 * ttmpitrace: an MPI program's calls recorded as an OTF2 archive, for
 * ttsim replay (man ttsim: "MPI-level traces", "Recording one").
 *
 *   mpirun -x LD_PRELOAD=.../libttmpitrace.so -x TT_MPITRACE=DIR prog ...
 *
 * The library interposes the MPI functions below through the profiling
 * interface (each calls its PMPI_ twin) and keeps, per rank, the events
 * the archive will hold: an Enter and a Leave of a region named after
 * the function around every call, so that the time between calls is the
 * program's own compute, and inside them what ttsim replays: MpiSend,
 * MpiIsend, MpiIsendComplete, MpiIrecvRequest, MpiIrecv, MpiRecv,
 * MpiCollectiveBegin and MpiCollectiveEnd with Score-P's byte counts (a
 * rank's whole traffic in the call, its own part included).  Times are
 * CLOCK_MONOTONIC nanoseconds.
 *
 * At MPI_Finalize every rank sends its events and its communicators (the
 * world ranks of their members) to rank 0, which writes the archive
 * through libotf2: DIR/traces.otf2, DIR/traces.def and DIR/traces/, one
 * location per rank, one communicator per distinct member list.  Rank 0
 * holds one rank's events at a time while it writes.
 *
 * Limits, said in ttmpitrace(1): events are kept in memory until
 * MPI_Finalize (48 bytes each), so a run that never reaches it leaves no
 * archive; one thread per rank calls MPI; persistent requests
 * (MPI_Send_init, MPI_Start), non-blocking collectives, one-sided calls
 * and inter-communicators are not recorded (their time counts as MPI
 * time; a message they carry is missing from the archive); MPI-IO calls
 * are compute; Open MPI's Fortran bindings call PMPI_ themselves, so a
 * Fortran program's calls pass by.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>
#include <otf2/otf2.h>

/* The regions: one per function interposed, named after it. */
#define REGIONS(X) \
	X(INIT, "MPI_Init") X(INIT_THREAD, "MPI_Init_thread") \
	X(FINALIZE, "MPI_Finalize") X(SEND, "MPI_Send") \
	X(SSEND, "MPI_Ssend") X(RSEND, "MPI_Rsend") X(BSEND, "MPI_Bsend") \
	X(ISEND, "MPI_Isend") X(ISSEND, "MPI_Issend") \
	X(IRSEND, "MPI_Irsend") X(RECV, "MPI_Recv") X(IRECV, "MPI_Irecv") \
	X(SENDRECV, "MPI_Sendrecv") \
	X(SENDRECV_REPLACE, "MPI_Sendrecv_replace") X(WAIT, "MPI_Wait") \
	X(WAITALL, "MPI_Waitall") X(WAITANY, "MPI_Waitany") \
	X(WAITSOME, "MPI_Waitsome") X(TEST, "MPI_Test") \
	X(TESTALL, "MPI_Testall") X(TESTANY, "MPI_Testany") \
	X(TESTSOME, "MPI_Testsome") X(BARRIER, "MPI_Barrier") \
	X(BCAST, "MPI_Bcast") X(REDUCE, "MPI_Reduce") \
	X(ALLREDUCE, "MPI_Allreduce") X(GATHER, "MPI_Gather") \
	X(GATHERV, "MPI_Gatherv") X(SCATTER, "MPI_Scatter") \
	X(SCATTERV, "MPI_Scatterv") X(ALLGATHER, "MPI_Allgather") \
	X(ALLGATHERV, "MPI_Allgatherv") X(ALLTOALL, "MPI_Alltoall") \
	X(ALLTOALLV, "MPI_Alltoallv") X(REDUCE_SCATTER, "MPI_Reduce_scatter") \
	X(REDUCE_SCATTER_BLOCK, "MPI_Reduce_scatter_block") \
	X(SCAN, "MPI_Scan") X(EXSCAN, "MPI_Exscan")

#define R_ENUM(id, name) R_##id,
#define R_NAME(id, name) name,
enum { REGIONS(R_ENUM) R_N };
static const char *const region_name[R_N] = { REGIONS(R_NAME) };

enum ekind {
	E_ENTER, E_LEAVE, E_SEND, E_ISEND, E_ISEND_DONE, E_IRECV_REQ,
	E_IRECV_DONE, E_RECV, E_COLL_BEGIN, E_COLL_END
};

/* One event, as kept until MPI_Finalize and sent to rank 0. */
struct ev {
	uint64_t t;             /* CLOCK_MONOTONIC ns */
	uint64_t bytes;         /* a message's; a collective's sizeSent */
	uint64_t bytes2;        /* a collective's sizeReceived */
	uint64_t req;           /* request id */
	uint32_t peer;          /* a rank of comm; a collective's root */
	uint32_t comm;          /* the rank's communicator index */
	int32_t tag;
	uint16_t kind;          /* enum ekind */
	uint16_t what;          /* region, or OTF2_CollectiveOp */
};

/* A communicator the rank used: its handle while it lives, its members
 * as world ranks (in its rank order). */
struct comm {
	MPI_Comm h;
	int live;
	uint32_t n;
	uint32_t *member;
};

/* An isend or irecv in flight. */
struct req {
	MPI_Request h;
	uint64_t id;
	uint64_t bytes;
	uint32_t comm;
	int recv;
};

static struct {
	int on;                 /* recording (MPI initialised, not finalised) */
	int rank, size;
	char dir[2048];
	char tmp[3072];         /* the hand-over's folder (hand_over()) */
	struct ev *ev;
	size_t nev, cap;
	struct comm *comm;
	uint32_t ncomm, capcomm;
	struct req *req;
	size_t nreq, capreq;
	uint64_t next_req;
	int failed;             /* out of memory: say so at MPI_Finalize */
} T;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
say(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ttmpitrace: rank %d: ", T.rank);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static struct ev *
push(enum ekind kind, unsigned what)
{
	struct ev *e;

	if (T.nev == T.cap) {
		size_t cap = T.cap ? 2 * T.cap : 4096;
		struct ev *p = realloc(T.ev, cap * sizeof(*p));

		if (p == NULL) {
			T.failed = 1;
			return NULL;
		}
		T.ev = p;
		T.cap = cap;
	}
	e = &T.ev[T.nev++];
	memset(e, 0, sizeof(*e));
	e->t = now_ns();
	e->kind = (uint16_t)kind;
	e->what = (uint16_t)what;
	return e;
}

static void
enter(int region)
{
	if (T.on && !T.failed)
		push(E_ENTER, (unsigned)region);
}

static void
leave(int region)
{
	if (T.on && !T.failed)
		push(E_LEAVE, (unsigned)region);
}

static uint64_t
type_bytes(int count, MPI_Datatype type)
{
	int sz = 0;

	if (count <= 0 || type == MPI_DATATYPE_NULL)
		return 0;
	PMPI_Type_size(type, &sz);
	return (uint64_t)count * (uint64_t)(sz > 0 ? sz : 0);
}

static uint64_t
status_bytes(const MPI_Status *st)
{
	int n = 0;

	PMPI_Get_count(st, MPI_BYTE, &n);
	return n > 0 ? (uint64_t)n : 0;
}

/* The index of communicator h among the rank's, added on first use with
 * its members as world ranks; UINT32_MAX for one not recorded (an
 * inter-communicator, or out of memory). */
static uint32_t
comm_of(MPI_Comm h)
{
	MPI_Group g, wg;
	struct comm *c;
	int *in, *out, n, inter = 0, i;
	uint32_t k;

	for (k = 0; k < T.ncomm; k++)
		if (T.comm[k].live && T.comm[k].h == h)
			return k;
	PMPI_Comm_test_inter(h, &inter);
	if (inter)
		return UINT32_MAX;
	if (T.ncomm == T.capcomm) {
		uint32_t cap = T.capcomm ? 2 * T.capcomm : 16;
		struct comm *p = realloc(T.comm, cap * sizeof(*p));

		if (p == NULL)
			return T.failed = 1, UINT32_MAX;
		T.comm = p;
		T.capcomm = cap;
	}
	PMPI_Comm_size(h, &n);
	c = &T.comm[T.ncomm];
	c->h = h;
	c->live = 1;
	c->n = (uint32_t)n;
	c->member = malloc((size_t)n * sizeof(*c->member));
	in = malloc((size_t)n * sizeof(*in));
	out = malloc((size_t)n * sizeof(*out));
	if (c->member == NULL || in == NULL || out == NULL) {
		free(c->member);
		free(in);
		free(out);
		return T.failed = 1, UINT32_MAX;
	}
	for (i = 0; i < n; i++)
		in[i] = i;
	PMPI_Comm_group(h, &g);
	PMPI_Comm_group(MPI_COMM_WORLD, &wg);
	PMPI_Group_translate_ranks(g, n, in, wg, out);
	PMPI_Group_free(&g);
	PMPI_Group_free(&wg);
	for (i = 0; i < n; i++)
		c->member[i] = (uint32_t)out[i];
	free(in);
	free(out);
	return T.ncomm++;
}

/* A point-to-point event with comm and peer; NULL when it is not one to
 * record (MPI_PROC_NULL, an inter-communicator). */
static struct ev *
p2p(enum ekind kind, MPI_Comm h, int peer, int tag, uint64_t bytes)
{
	struct ev *e;
	uint32_t c;

	if (!T.on || T.failed || peer == MPI_PROC_NULL || peer < 0)
		return NULL;
	if ((c = comm_of(h)) == UINT32_MAX)
		return NULL;
	if ((e = push(kind, 0)) == NULL)
		return NULL;
	e->comm = c;
	e->peer = (uint32_t)peer;
	e->tag = tag;
	e->bytes = bytes;
	return e;
}

/* An isend or irecv started: its request remembered. */
static void
req_start(MPI_Request h, int recv, MPI_Comm comm, int peer, int tag,
    uint64_t bytes)
{
	struct ev *e;
	struct req *r;

	if (!T.on || T.failed || h == MPI_REQUEST_NULL)
		return;
	if (recv) {
		uint32_t c;

		if (peer == MPI_PROC_NULL ||
		    (c = comm_of(comm)) == UINT32_MAX ||
		    (e = push(E_IRECV_REQ, 0)) == NULL)
			return;
		e->comm = c;
	} else if ((e = p2p(E_ISEND, comm, peer, tag, bytes)) == NULL)
		return;
	if (T.nreq == T.capreq) {
		size_t cap = T.capreq ? 2 * T.capreq : 64;
		struct req *p = realloc(T.req, cap * sizeof(*p));

		if (p == NULL) {
			T.failed = 1;
			return;
		}
		T.req = p;
		T.capreq = cap;
	}
	r = &T.req[T.nreq++];
	r->h = h;
	r->id = e->req = ++T.next_req;
	r->bytes = bytes;
	r->comm = e->comm;
	r->recv = recv;
}

/* Request h (its handle before the call) completed with status st (an
 * irecv's source, tag and size); forgotten. */
static void
req_done(MPI_Request h, const MPI_Status *st)
{
	struct ev *e;
	size_t i;

	if (!T.on || h == MPI_REQUEST_NULL)
		return;
	for (i = T.nreq; i-- > 0;)
		if (T.req[i].h == h)
			break;
	if (i == (size_t)-1)
		return;
	if (!T.failed && (e = push(T.req[i].recv ? E_IRECV_DONE :
	    E_ISEND_DONE, 0)) != NULL) {
		e->req = T.req[i].id;
		e->comm = T.req[i].comm;
		if (T.req[i].recv) {
			e->peer = (uint32_t)st->MPI_SOURCE;
			e->tag = st->MPI_TAG;
			e->bytes = status_bytes(st);
		}
	}
	T.req[i] = T.req[--T.nreq];
}

/* A request freed before it completed: forgotten without an event. */
static void
req_forget(MPI_Request h)
{
	size_t i;

	for (i = 0; i < T.nreq; i++)
		if (T.req[i].h == h) {
			T.req[i] = T.req[--T.nreq];
			return;
		}
}

static void
coll(OTF2_CollectiveOp op, MPI_Comm h, int root, uint64_t sent,
    uint64_t recvd, uint64_t t0)
{
	struct ev *e;
	uint32_t c;

	if (!T.on || T.failed || (c = comm_of(h)) == UINT32_MAX)
		return;
	if ((e = push(E_COLL_BEGIN, 0)) == NULL)
		return;
	e->t = t0;
	if ((e = push(E_COLL_END, op)) == NULL)
		return;
	e->comm = c;
	e->peer = root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)root;
	e->bytes = sent;
	e->bytes2 = recvd;
}

static int
comm_size(MPI_Comm h)
{
	int n = 1;

	PMPI_Comm_size(h, &n);
	return n;
}

static int
comm_rank(MPI_Comm h)
{
	int r = 0;

	PMPI_Comm_rank(h, &r);
	return r;
}

/* ---- start and end ---- */

static void
start(void)
{
	const char *d = getenv("TT_MPITRACE");
	struct stat sb;
	char anchor[2200];

	PMPI_Comm_rank(MPI_COMM_WORLD, &T.rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &T.size);
	snprintf(T.dir, sizeof(T.dir), "%s", d && *d ? d : "ttmpitrace");
	d = getenv("PMIX_NAMESPACE");
	snprintf(T.tmp, sizeof(T.tmp), "%s/.ttmpitrace-%s", T.dir,
	    d && *d && !strchr(d, '/') ? d : "job");
	if (T.rank == 0) {
		snprintf(anchor, sizeof(anchor), "%s/traces.otf2", T.dir);
		if (stat(anchor, &sb) == 0) {
			say("%s exists: remove it or set TT_MPITRACE to "
			    "another directory", anchor);
			PMPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
	comm_of(MPI_COMM_WORLD);        /* communicator 0 */
	T.on = 1;
}

int
MPI_Init(int *argc, char ***argv)
{
	uint64_t t0 = now_ns();
	int rc = PMPI_Init(argc, argv);
	struct ev *e;

	if (rc != MPI_SUCCESS)
		return rc;
	start();
	if ((e = push(E_ENTER, R_INIT)) != NULL)
		e->t = t0;
	leave(R_INIT);
	return rc;
}

int
MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	uint64_t t0 = now_ns();
	int rc = PMPI_Init_thread(argc, argv, required, provided);
	struct ev *e;

	if (rc != MPI_SUCCESS)
		return rc;
	start();
	if ((e = push(E_ENTER, R_INIT_THREAD)) != NULL)
		e->t = t0;
	leave(R_INIT_THREAD);
	return rc;
}

int
MPI_Comm_free(MPI_Comm *h)
{
	uint32_t k;

	for (k = 0; k < T.ncomm; k++)
		if (T.comm[k].live && T.comm[k].h == *h)
			T.comm[k].live = 0;
	return PMPI_Comm_free(h);
}

int
MPI_Request_free(MPI_Request *h)
{
	req_forget(*h);
	return PMPI_Request_free(h);
}

/* ---- rank 0 writes the archive ---- */

static OTF2_FlushType
pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cd,
    bool final)
{
	(void)ud;
	(void)ft;
	(void)loc;
	(void)cd;
	(void)final;
	return OTF2_FLUSH;
}

static OTF2_TimeStamp
post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
	(void)ud;
	(void)ft;
	(void)loc;
	return 0;
}

/* The communicators of all ranks, one per distinct member list. */
struct gcomms {
	uint32_t n, cap;
	uint32_t *size;
	uint32_t **member;
};

static uint32_t
gcomm_add(struct gcomms *g, uint32_t n, const uint32_t *m)
{
	uint32_t k;

	for (k = 0; k < g->n; k++)
		if (g->size[k] == n &&
		    memcmp(g->member[k], m, n * sizeof(*m)) == 0)
			return k;
	if (g->n == g->cap) {
		uint32_t cap = g->cap ? 2 * g->cap : 16;
		uint32_t *s = realloc(g->size, cap * sizeof(*s));
		uint32_t **mm;

		if (s == NULL)
			return UINT32_MAX;
		g->size = s;
		if ((mm = realloc(g->member, cap * sizeof(*mm))) == NULL)
			return UINT32_MAX;
		g->member = mm;
		g->cap = cap;
	}
	if ((g->member[g->n] = malloc((n ? n : 1) * sizeof(*m))) == NULL)
		return UINT32_MAX;
	memcpy(g->member[g->n], m, n * sizeof(*m));
	g->size[g->n] = n;
	return g->n++;
}

/* The hand-over from every rank to rank 0 goes through files, not MPI
 * messages: the trace's own bytes would cross the network being measured
 * (and land in ttd's recording of it).  Rank r writes DIR/.ttmpitrace-JOB/
 * r.part and renames it r (JOB: the job's PMIx namespace, so that what a
 * run that died left is not taken for this one's): a header (events,
 * words of communicators; events UINT64_MAX when the rank ran out of
 * memory), the events, then the communicators as (n, members...) words.
 * DIR must be on a file system every rank sees. */
static void
part_path(char *buf, size_t len, int r, int part)
{
	snprintf(buf, len, "%s/%d%s", T.tmp, r, part ? ".part" : "");
}

static int
write_all(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n ? 0 : -1;
}

static void
hand_over(void)
{
	char part[3200], done[3200];
	uint64_t hdr[2] = { T.failed ? UINT64_MAX : T.nev, 0 };
	uint32_t k;
	FILE *f;
	int bad = 0;

	for (k = 0; k < T.ncomm; k++)
		hdr[1] += 1 + T.comm[k].n;
	mkdir(T.dir, 0777);
	mkdir(T.tmp, 0777);
	part_path(part, sizeof(part), T.rank, 1);
	part_path(done, sizeof(done), T.rank, 0);
	if ((f = fopen(part, "wb")) == NULL) {
		say("%s: %s", part, strerror(errno));
		return;
	}
	bad |= write_all(f, hdr, sizeof(hdr));
	if (!T.failed)
		bad |= write_all(f, T.ev, T.nev * sizeof(*T.ev));
	for (k = 0; k < T.ncomm; k++) {
		bad |= write_all(f, &T.comm[k].n, sizeof(T.comm[k].n));
		bad |= write_all(f, T.comm[k].member,
		    T.comm[k].n * sizeof(*T.comm[k].member));
	}
	if (fclose(f) != 0 || bad) {
		say("%s: %s", part, strerror(errno));
		return;
	}
	if (rename(part, done) != 0)
		say("%s: %s", done, strerror(errno));
}

/* Rank r's events and communicators, once its file is there (rank 0
 * waits up to TT_MPITRACE_WAIT seconds, default 120, for each).  0; 1
 * the rank ran out of memory; -1 (said). */
static int
take_over(int r, struct ev **ev, uint64_t *nev, uint32_t **flat,
    uint64_t *words)
{
	char path[3200];
	const char *w = getenv("TT_MPITRACE_WAIT");
	double wait_s = w && *w ? atof(w) : 120, slept = 0;
	uint64_t hdr[2];
	FILE *f;
	int rc = -1;

	*ev = NULL;
	*flat = NULL;
	part_path(path, sizeof(path), r, 0);
	while ((f = fopen(path, "rb")) == NULL && errno == ENOENT &&
	    slept < wait_s) {
		struct timespec ts = { 0, 10000000 };

		nanosleep(&ts, NULL);
		slept += 0.01;
	}
	if (f == NULL) {
		say("rank %d's events (%s) did not come within %.0f s: %s "
		    "(TT_MPITRACE_WAIT sets the wait)", r, path, wait_s,
		    strerror(errno));
		return -1;
	}
	if (fread(hdr, sizeof(hdr), 1, f) != 1)
		goto cut;
	if (hdr[0] == UINT64_MAX) {
		fclose(f);
		return 1;
	}
	*nev = hdr[0];
	*words = hdr[1];
	*ev = malloc((*nev ? *nev : 1) * sizeof(**ev));
	*flat = malloc((*words ? *words : 1) * sizeof(**flat));
	if (*ev == NULL || *flat == NULL) {
		say("out of memory for rank %d's %" PRIu64 " events", r, *nev);
		goto out;
	}
	if (fread(*ev, sizeof(**ev), *nev, f) != *nev ||
	    fread(*flat, sizeof(**flat), *words, f) != *words)
		goto cut;
	rc = 0;
	goto out;
cut:
	say("%s is cut short", path);
out:
	fclose(f);
	if (rc == 0)
		unlink(path);
	else {
		free(*ev);
		free(*flat);
		*ev = NULL;
		*flat = NULL;
	}
	return rc;
}

#define OK(call) do { if ((rc = (call)) != OTF2_SUCCESS) goto otf2_fail; \
	} while (0)

/* Rank r's events through w; its communicators mapped to the archive's
 * (gmap). */
static OTF2_ErrorCode
write_events(OTF2_EvtWriter *w, const struct ev *ev, uint64_t nev,
    const uint32_t *gmap)
{
	OTF2_ErrorCode rc = OTF2_SUCCESS;
	uint64_t i;

	for (i = 0; i < nev && rc == OTF2_SUCCESS; i++) {
		const struct ev *e = &ev[i];
		OTF2_CommRef c = gmap[e->comm];

		switch ((enum ekind)e->kind) {
		case E_ENTER:
			rc = OTF2_EvtWriter_Enter(w, NULL, e->t, e->what);
			break;
		case E_LEAVE:
			rc = OTF2_EvtWriter_Leave(w, NULL, e->t, e->what);
			break;
		case E_SEND:
			rc = OTF2_EvtWriter_MpiSend(w, NULL, e->t, e->peer, c,
			    (uint32_t)e->tag, e->bytes);
			break;
		case E_ISEND:
			rc = OTF2_EvtWriter_MpiIsend(w, NULL, e->t, e->peer, c,
			    (uint32_t)e->tag, e->bytes, e->req);
			break;
		case E_ISEND_DONE:
			rc = OTF2_EvtWriter_MpiIsendComplete(w, NULL, e->t,
			    e->req);
			break;
		case E_IRECV_REQ:
			rc = OTF2_EvtWriter_MpiIrecvRequest(w, NULL, e->t,
			    e->req);
			break;
		case E_IRECV_DONE:
			rc = OTF2_EvtWriter_MpiIrecv(w, NULL, e->t, e->peer, c,
			    (uint32_t)e->tag, e->bytes, e->req);
			break;
		case E_RECV:
			rc = OTF2_EvtWriter_MpiRecv(w, NULL, e->t, e->peer, c,
			    (uint32_t)e->tag, e->bytes);
			break;
		case E_COLL_BEGIN:
			rc = OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, e->t);
			break;
		case E_COLL_END:
			rc = OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, e->t,
			    (OTF2_CollectiveOp)e->what, c, e->peer, e->bytes,
			    e->bytes2);
			break;
		}
	}
	return rc;
}

/* The global definitions: clock, strings, the locations (rank r is
 * location r), the regions, the groups and communicators. */
static OTF2_ErrorCode
write_defs(OTF2_Archive *a, const uint64_t *nev, uint64_t t0, uint64_t t1,
    const struct gcomms *g)
{
	enum { S_EMPTY, S_RANK, S_MACHINE, S_NODE, S_RANKS, S_COMM,
	       S_REGION };
	static const char *const fixed[S_REGION] = {
		"", "rank", "machine", "node", "MPI ranks", "communicator"
	};
	OTF2_GlobalDefWriter *d = OTF2_Archive_GetGlobalDefWriter(a);
	OTF2_ErrorCode rc;
	uint64_t *members = malloc((size_t)T.size * sizeof(*members));
	uint32_t i, k;
	int r;

	if (d == NULL || members == NULL) {
		free(members);
		return OTF2_ERROR_MEM_ALLOC_FAILED;
	}
	OK(OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000u, t0,
	    t1 - t0, OTF2_UNDEFINED_TIMESTAMP));
	for (i = 0; i < S_REGION; i++)
		OK(OTF2_GlobalDefWriter_WriteString(d, i, fixed[i]));
	for (i = 0; i < R_N; i++)
		OK(OTF2_GlobalDefWriter_WriteString(d, S_REGION + i,
		    region_name[i]));
	OK(OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, S_MACHINE, S_NODE,
	    OTF2_UNDEFINED_SYSTEM_TREE_NODE));
	for (r = 0; r < T.size; r++)
		OK(OTF2_GlobalDefWriter_WriteLocationGroup(d, (uint32_t)r,
		    S_RANK, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
		    OTF2_UNDEFINED_LOCATION_GROUP));
	for (r = 0; r < T.size; r++)
		OK(OTF2_GlobalDefWriter_WriteLocation(d, (uint64_t)r, S_RANK,
		    OTF2_LOCATION_TYPE_CPU_THREAD, nev[r], (uint32_t)r));
	for (i = 0; i < R_N; i++)
		OK(OTF2_GlobalDefWriter_WriteRegion(d, i, S_REGION + i,
		    S_REGION + i, S_EMPTY, OTF2_REGION_ROLE_FUNCTION,
		    OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0));
	for (r = 0; r < T.size; r++)
		members[r] = (uint64_t)r;
	OK(OTF2_GlobalDefWriter_WriteGroup(d, 0, S_RANKS,
	    OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
	    OTF2_GROUP_FLAG_NONE, (uint32_t)T.size, members));
	for (k = 0; k < g->n; k++) {
		for (i = 0; i < g->size[k]; i++)
			members[i] = g->member[k][i];
		OK(OTF2_GlobalDefWriter_WriteGroup(d, 1 + k, S_COMM,
		    OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
		    OTF2_GROUP_FLAG_NONE, g->size[k], members));
		OK(OTF2_GlobalDefWriter_WriteComm(d, k, S_COMM, 1 + k,
		    OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
	}
otf2_fail:
	free(members);
	return rc;
}

/* Rank 0: every rank's events into the archive.  0, or -1 (said). */
static int
write_archive(void)
{
	static const OTF2_FlushCallbacks flush = { pre_flush, post_flush };
	struct gcomms g = { 0, 0, NULL, NULL };
	OTF2_Archive *a;
	OTF2_ErrorCode rc = OTF2_SUCCESS;
	uint64_t *nev = calloc((size_t)T.size, sizeof(*nev));
	uint64_t t0 = UINT64_MAX, t1 = 0, total = 0;
	int r, ret = -1;

	if (nev == NULL)
		return say("out of memory writing the archive"), -1;
	mkdir(T.dir, 0777);
	a = OTF2_Archive_Open(T.dir, "traces", OTF2_FILEMODE_WRITE,
	    1024 * 1024, 4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
	    OTF2_COMPRESSION_NONE);
	if (a == NULL) {
		say("cannot create an archive in %s: %s", T.dir,
		    strerror(errno));
		free(nev);
		return -1;
	}
	OK(OTF2_Archive_SetFlushCallbacks(a, &flush, NULL));
	OK(OTF2_Archive_SetSerialCollectiveCallbacks(a));
	OK(OTF2_Archive_OpenEvtFiles(a));
	for (r = 0; r < T.size; r++) {
		struct ev *ev;
		uint32_t *flat, *gmap, ncomm = 0, at;
		uint64_t words, i;
		OTF2_EvtWriter *w;

		if ((i = (uint64_t)take_over(r, &ev, &nev[r], &flat,
		    &words)) != 0) {
			if (i == 1)
				say("rank %d ran out of memory recording: no "
				    "archive written", r);
			goto fail;
		}
		for (at = 0; at < words; at += 1 + flat[at])
			ncomm++;
		gmap = malloc((ncomm ? ncomm : 1) * sizeof(*gmap));
		for (at = 0, i = 0; gmap != NULL && at < words;
		    at += 1 + flat[at])
			gmap[i++] = gcomm_add(&g, flat[at], flat + at + 1);
		for (i = 0; gmap != NULL && i < ncomm; i++)
			if (gmap[i] == UINT32_MAX)
				break;
		if (gmap == NULL || i < ncomm) {
			say("out of memory for the communicators");
			goto fail;
		}
		if (nev[r] > 0) {
			t0 = ev[0].t < t0 ? ev[0].t : t0;
			t1 = ev[nev[r] - 1].t > t1 ? ev[nev[r] - 1].t : t1;
		}
		total += nev[r];
		w = OTF2_Archive_GetEvtWriter(a, (uint64_t)r);
		if (w == NULL)
			rc = OTF2_ERROR_INVALID;
		if (w != NULL)
			rc = write_events(w, ev, nev[r], gmap);
		if (ev != T.ev)
			free(ev);
		free(flat);
		free(gmap);
		if (rc != OTF2_SUCCESS)
			goto otf2_fail;
		OK(OTF2_Archive_CloseEvtWriter(a, w));
	}
	OK(OTF2_Archive_CloseEvtFiles(a));
	OK(OTF2_Archive_OpenDefFiles(a));
	for (r = 0; r < T.size; r++)
		OK(OTF2_Archive_CloseDefWriter(a,
		    OTF2_Archive_GetDefWriter(a, (uint64_t)r)));
	OK(OTF2_Archive_CloseDefFiles(a));
	OK(write_defs(a, nev, t0 == UINT64_MAX ? 0 : t0, t1, &g));
	OK(OTF2_Archive_Close(a));
	a = NULL;
	fprintf(stderr, "ttmpitrace: wrote %s/traces.otf2: %d ranks, %" PRIu64
	    " events\n", T.dir, T.size, total);
	ret = 0;
	goto fail;
otf2_fail:
	say("writing the archive in %s: %s", T.dir,
	    OTF2_Error_GetDescription(rc));
fail:
	if (a != NULL)
		OTF2_Archive_Close(a);
	while (g.n > 0)
		free(g.member[--g.n]);
	free(g.member);
	free(g.size);
	free(nev);
	return ret;
}

int
MPI_Finalize(void)
{
	if (T.on) {
		enter(R_FINALIZE);
		leave(R_FINALIZE);
		T.on = 0;
		if (T.failed)
			say("out of memory recording (%zu events): no archive",
			    T.nev);
		hand_over();
		if (T.rank == 0 && write_archive() == 0)
			rmdir(T.tmp);
	}
	return PMPI_Finalize();
}

/* ---- point to point ---- */

#define SEND_LIKE(fn, pfn, region) \
int \
fn(const void *buf, int count, MPI_Datatype type, int dest, int tag, \
    MPI_Comm comm) \
{ \
	int rc; \
	enter(region); \
	p2p(E_SEND, comm, dest, tag, type_bytes(count, type)); \
	rc = pfn(buf, count, type, dest, tag, comm); \
	leave(region); \
	return rc; \
}
SEND_LIKE(MPI_Send, PMPI_Send, R_SEND)
SEND_LIKE(MPI_Ssend, PMPI_Ssend, R_SSEND)
SEND_LIKE(MPI_Rsend, PMPI_Rsend, R_RSEND)
SEND_LIKE(MPI_Bsend, PMPI_Bsend, R_BSEND)

#define ISEND_LIKE(fn, pfn, region) \
int \
fn(const void *buf, int count, MPI_Datatype type, int dest, int tag, \
    MPI_Comm comm, MPI_Request *req) \
{ \
	int rc; \
	enter(region); \
	rc = pfn(buf, count, type, dest, tag, comm, req); \
	if (rc == MPI_SUCCESS) \
		req_start(*req, 0, comm, dest, tag, type_bytes(count, type)); \
	leave(region); \
	return rc; \
}
ISEND_LIKE(MPI_Isend, PMPI_Isend, R_ISEND)
ISEND_LIKE(MPI_Issend, PMPI_Issend, R_ISSEND)
ISEND_LIKE(MPI_Irsend, PMPI_Irsend, R_IRSEND)

int
MPI_Recv(void *buf, int count, MPI_Datatype type, int src, int tag,
    MPI_Comm comm, MPI_Status *st)
{
	MPI_Status mine;
	int rc;

	enter(R_RECV);
	if (st == MPI_STATUS_IGNORE)
		st = &mine;
	rc = PMPI_Recv(buf, count, type, src, tag, comm, st);
	if (rc == MPI_SUCCESS)
		p2p(E_RECV, comm, st->MPI_SOURCE, st->MPI_TAG,
		    status_bytes(st));
	leave(R_RECV);
	return rc;
}

int
MPI_Irecv(void *buf, int count, MPI_Datatype type, int src, int tag,
    MPI_Comm comm, MPI_Request *req)
{
	int rc;

	enter(R_IRECV);
	rc = PMPI_Irecv(buf, count, type, src, tag, comm, req);
	if (rc == MPI_SUCCESS)
		req_start(*req, 1, comm, src, tag, type_bytes(count, type));
	leave(R_IRECV);
	return rc;
}

int
MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest,
    int stag, void *rbuf, int rcount, MPI_Datatype rtype, int src, int rtag,
    MPI_Comm comm, MPI_Status *st)
{
	MPI_Status mine;
	int rc;

	enter(R_SENDRECV);
	if (st == MPI_STATUS_IGNORE)
		st = &mine;
	p2p(E_SEND, comm, dest, stag, type_bytes(scount, stype));
	rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount,
	    rtype, src, rtag, comm, st);
	if (rc == MPI_SUCCESS)
		p2p(E_RECV, comm, st->MPI_SOURCE, st->MPI_TAG,
		    status_bytes(st));
	leave(R_SENDRECV);
	return rc;
}

int
MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest,
    int stag, int src, int rtag, MPI_Comm comm, MPI_Status *st)
{
	MPI_Status mine;
	int rc;

	enter(R_SENDRECV_REPLACE);
	if (st == MPI_STATUS_IGNORE)
		st = &mine;
	p2p(E_SEND, comm, dest, stag, type_bytes(count, type));
	rc = PMPI_Sendrecv_replace(buf, count, type, dest, stag, src, rtag,
	    comm, st);
	if (rc == MPI_SUCCESS)
		p2p(E_RECV, comm, st->MPI_SOURCE, st->MPI_TAG,
		    status_bytes(st));
	leave(R_SENDRECV_REPLACE);
	return rc;
}

/* ---- completion ---- */

int
MPI_Wait(MPI_Request *req, MPI_Status *st)
{
	MPI_Request h = *req;
	MPI_Status mine;
	int rc;

	enter(R_WAIT);
	if (st == MPI_STATUS_IGNORE)
		st = &mine;
	rc = PMPI_Wait(req, st);
	if (rc == MPI_SUCCESS)
		req_done(h, st);
	leave(R_WAIT);
	return rc;
}

int
MPI_Test(MPI_Request *req, int *flag, MPI_Status *st)
{
	MPI_Request h = *req;
	MPI_Status mine;
	int rc;

	enter(R_TEST);
	if (st == MPI_STATUS_IGNORE)
		st = &mine;
	rc = PMPI_Test(req, flag, st);
	if (rc == MPI_SUCCESS && *flag)
		req_done(h, st);
	leave(R_TEST);
	return rc;
}

/* The handles of n requests before a call completes some, and room for
 * their statuses when the caller ignores them; NULL out of memory (the
 * call then goes on unrecorded). */
static MPI_Request *
save_reqs(int n, const MPI_Request *req, MPI_Status **st)
{
	MPI_Request *h = malloc((size_t)(n > 0 ? n : 1) *
	    (sizeof(*h) + sizeof(**st)));

	if (h == NULL)
		return NULL;
	memcpy(h, req, (size_t)(n > 0 ? n : 0) * sizeof(*h));
	if (*st == MPI_STATUSES_IGNORE)
		*st = (MPI_Status *)(void *)(h + (n > 0 ? n : 1));
	return h;
}

/* Waitall and Testall: the requests completed (all, or none when
 * Testall's flag is false). */
static int
all_like(int test, int n, MPI_Request req[], int *flag, MPI_Status st[])
{
	MPI_Request *h;
	MPI_Status *s = st;
	int rc, i, done = 1;

	h = T.on ? save_reqs(n, req, &s) : NULL;
	if (h == NULL)
		s = st;
	rc = test ? PMPI_Testall(n, req, flag, s) : PMPI_Waitall(n, req, s);
	if (test)
		done = rc == MPI_SUCCESS && *flag;
	if (h != NULL && rc == MPI_SUCCESS && done)
		for (i = 0; i < n; i++)
			req_done(h[i], &s[i]);
	free(h);
	return rc;
}

int
MPI_Waitall(int n, MPI_Request req[], MPI_Status st[])
{
	int rc;

	enter(R_WAITALL);
	rc = all_like(0, n, req, NULL, st);
	leave(R_WAITALL);
	return rc;
}

int
MPI_Testall(int n, MPI_Request req[], int *flag, MPI_Status st[])
{
	int rc;

	enter(R_TESTALL);
	rc = all_like(1, n, req, flag, st);
	leave(R_TESTALL);
	return rc;
}

int
MPI_Waitany(int n, MPI_Request req[], int *idx, MPI_Status *st)
{
	MPI_Request *h;
	MPI_Status mine;
	int rc;

	enter(R_WAITANY);
	if (st == MPI_STATUS_IGNORE)
		st = &mine;
	h = T.on ? save_reqs(n, req, &st) : NULL;
	rc = PMPI_Waitany(n, req, idx, st);
	if (h != NULL && rc == MPI_SUCCESS && *idx != MPI_UNDEFINED)
		req_done(h[*idx], st);
	free(h);
	leave(R_WAITANY);
	return rc;
}

int
MPI_Testany(int n, MPI_Request req[], int *idx, int *flag, MPI_Status *st)
{
	MPI_Request *h;
	MPI_Status mine;
	int rc;

	enter(R_TESTANY);
	if (st == MPI_STATUS_IGNORE)
		st = &mine;
	h = T.on ? save_reqs(n, req, &st) : NULL;
	rc = PMPI_Testany(n, req, idx, flag, st);
	if (h != NULL && rc == MPI_SUCCESS && *flag && *idx != MPI_UNDEFINED)
		req_done(h[*idx], st);
	free(h);
	leave(R_TESTANY);
	return rc;
}

#define SOME_LIKE(fn, pfn, region) \
int \
fn(int n, MPI_Request req[], int *outn, int idx[], MPI_Status st[]) \
{ \
	MPI_Request *h; \
	MPI_Status *s = st; \
	int rc, i; \
	enter(region); \
	h = T.on ? save_reqs(n, req, &s) : NULL; \
	rc = pfn(n, req, outn, idx, h != NULL ? s : st); \
	if (h != NULL && rc == MPI_SUCCESS && *outn != MPI_UNDEFINED) \
		for (i = 0; i < *outn; i++) \
			req_done(h[idx[i]], &s[i]); \
	free(h); \
	leave(region); \
	return rc; \
}
SOME_LIKE(MPI_Waitsome, PMPI_Waitsome, R_WAITSOME)
SOME_LIKE(MPI_Testsome, PMPI_Testsome, R_TESTSOME)

/* ---- collectives (Score-P's counts: a rank's whole traffic) ---- */

/* A traced collective: its region around the call, and the
 * MpiCollectiveBegin and End events of op on comm (root -1: none) with
 * Score-P's byte counts; returns the call's result. */
#define TRACED_COLL(region, call, op, comm, root, sent, recvd) do { \
	uint64_t t0_; \
	int rc_; \
	enter(region); \
	t0_ = now_ns(); \
	rc_ = (call); \
	coll(op, comm, root, sent, recvd, t0_); \
	leave(region); \
	return rc_; \
} while (0)

static int
in_place(const void *p)
{
	return p == MPI_IN_PLACE;
}

int
MPI_Barrier(MPI_Comm comm)
{
	TRACED_COLL(R_BARRIER, PMPI_Barrier(comm), OTF2_COLLECTIVE_OP_BARRIER,
	    comm, -1, 0, 0);
}

int
MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
	uint64_t b = type_bytes(count, type);
	int n = comm_size(comm), me = comm_rank(comm) == root;

	TRACED_COLL(R_BCAST, PMPI_Bcast(buf, count, type, root, comm),
	    OTF2_COLLECTIVE_OP_BCAST, comm, root, me ? (uint64_t)n * b : 0, b);
}

int
MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
    MPI_Op op, int root, MPI_Comm comm)
{
	uint64_t b = type_bytes(count, type);
	int n = comm_size(comm), me = comm_rank(comm) == root;

	TRACED_COLL(R_REDUCE, PMPI_Reduce(sbuf, rbuf, count, type, op, root,
	    comm), OTF2_COLLECTIVE_OP_REDUCE, comm, root, b, me ? (uint64_t)n *
	    b : 0);
}

#define ALLRED_LIKE(fn, pfn, region, otf2op) \
int \
fn(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, \
    MPI_Comm comm) \
{ \
	uint64_t b = (uint64_t)comm_size(comm) * type_bytes(count, type); \
	TRACED_COLL(region, pfn(sbuf, rbuf, count, type, op, comm), otf2op, \
	    comm, -1, b, b); \
}
ALLRED_LIKE(MPI_Allreduce, PMPI_Allreduce, R_ALLREDUCE,
    OTF2_COLLECTIVE_OP_ALLREDUCE)
ALLRED_LIKE(MPI_Scan, PMPI_Scan, R_SCAN, OTF2_COLLECTIVE_OP_SCAN)
ALLRED_LIKE(MPI_Exscan, PMPI_Exscan, R_EXSCAN, OTF2_COLLECTIVE_OP_EXSCAN)

int
MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
    int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
	int n = comm_size(comm), me = comm_rank(comm) == root;
	uint64_t part = me ? type_bytes(rcount, rtype) :
	    type_bytes(scount, stype);

	TRACED_COLL(R_GATHER, PMPI_Gather(sbuf, scount, stype, rbuf, rcount,
	    rtype, root, comm), OTF2_COLLECTIVE_OP_GATHER, comm, root, part, me
	    ? (uint64_t)n * part : 0);
}

static uint64_t
sum_bytes(const int *counts, int n, MPI_Datatype type)
{
	uint64_t s = 0;
	int i;

	for (i = 0; counts != NULL && i < n; i++)
		s += type_bytes(counts[i], type);
	return s;
}

int
MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
    const int rcounts[], const int displs[], MPI_Datatype rtype, int root,
    MPI_Comm comm)
{
	int n = comm_size(comm), me = comm_rank(comm) == root;
	uint64_t sent = in_place(sbuf) ? 0 : type_bytes(scount, stype);

	TRACED_COLL(R_GATHERV, PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts,
	    displs, rtype, root, comm), OTF2_COLLECTIVE_OP_GATHERV, comm, root,
	    sent, me ? sum_bytes(rcounts, n, rtype) : 0);
}

int
MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
    int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
	int n = comm_size(comm), me = comm_rank(comm) == root;
	uint64_t part = me ? type_bytes(scount, stype) :
	    type_bytes(rcount, rtype);

	TRACED_COLL(R_SCATTER, PMPI_Scatter(sbuf, scount, stype, rbuf, rcount,
	    rtype, root, comm), OTF2_COLLECTIVE_OP_SCATTER, comm, root, me ?
	    (uint64_t)n * part : 0, part);
}

int
MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[],
    MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
    int root, MPI_Comm comm)
{
	int n = comm_size(comm), me = comm_rank(comm) == root;
	uint64_t recvd = in_place(rbuf) ? 0 : type_bytes(rcount, rtype);

	TRACED_COLL(R_SCATTERV, PMPI_Scatterv(sbuf, scounts, displs, stype,
	    rbuf, rcount, rtype, root, comm), OTF2_COLLECTIVE_OP_SCATTERV,
	    comm, root, me ? sum_bytes(scounts, n, stype) : 0, recvd);
}

int
MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
    int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
	int n = comm_size(comm);
	uint64_t part = in_place(sbuf) ? type_bytes(rcount, rtype) :
	    type_bytes(scount, stype);

	TRACED_COLL(R_ALLGATHER, PMPI_Allgather(sbuf, scount, stype, rbuf,
	    rcount, rtype, comm), OTF2_COLLECTIVE_OP_ALLGATHER, comm, -1,
	    (uint64_t)n * part, (uint64_t)n * type_bytes(rcount, rtype));
}

int
MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
    const int rcounts[], const int displs[], MPI_Datatype rtype,
    MPI_Comm comm)
{
	int n = comm_size(comm), me = comm_rank(comm);
	uint64_t part = in_place(sbuf) ? type_bytes(rcounts[me], rtype) :
	    type_bytes(scount, stype);

	TRACED_COLL(R_ALLGATHERV, PMPI_Allgatherv(sbuf, scount, stype, rbuf,
	    rcounts, displs, rtype, comm), OTF2_COLLECTIVE_OP_ALLGATHERV, comm,
	    -1, (uint64_t)n * part, sum_bytes(rcounts, n, rtype));
}

int
MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
    int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
	int n = comm_size(comm);
	uint64_t part = in_place(sbuf) ? type_bytes(rcount, rtype) :
	    type_bytes(scount, stype);

	TRACED_COLL(R_ALLTOALL, PMPI_Alltoall(sbuf, scount, stype, rbuf,
	    rcount, rtype, comm), OTF2_COLLECTIVE_OP_ALLTOALL, comm, -1,
	    (uint64_t)n * part, (uint64_t)n * type_bytes(rcount, rtype));
}

int
MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
    MPI_Datatype stype, void *rbuf, const int rcounts[], const int rdispls[],
    MPI_Datatype rtype, MPI_Comm comm)
{
	int n = comm_size(comm);
	uint64_t recvd = sum_bytes(rcounts, n, rtype);
	uint64_t sent = in_place(sbuf) ? recvd : sum_bytes(scounts, n, stype);

	TRACED_COLL(R_ALLTOALLV, PMPI_Alltoallv(sbuf, scounts, sdispls, stype,
	    rbuf, rcounts, rdispls, rtype, comm), OTF2_COLLECTIVE_OP_ALLTOALLV,
	    comm, -1, sent, recvd);
}

int
MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[],
    MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
	int n = comm_size(comm);
	uint64_t all = sum_bytes(rcounts, n, type);

	TRACED_COLL(R_REDUCE_SCATTER, PMPI_Reduce_scatter(sbuf, rbuf, rcounts,
	    type, op, comm), OTF2_COLLECTIVE_OP_REDUCE_SCATTER, comm, -1, all,
	    all);
}

int
MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
    MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
	int n = comm_size(comm);
	uint64_t all = (uint64_t)n * type_bytes(rcount, type);

	TRACED_COLL(R_REDUCE_SCATTER_BLOCK, PMPI_Reduce_scatter_block(sbuf,
	    rbuf, rcount, type, op, comm),
	    OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, comm, -1, all, all);
}
