/*
 * OTF2 archives, as Score-P writes them, read through libotf2 into a
 * tt_mpi_trace (twintorus/mpitrace.h).
 *
 * An archive is an anchor file (traces.otf2), the global definitions
 * beside it (traces.def) and a folder of per-location files (traces/).
 * Its MPI ranks are the members of the group of type COMM_LOCATIONS and
 * paradigm MPI (rank i is location members[i]; OTF2's definition of that
 * group); only those locations are read, so a process's other threads
 * are left out.  A communicator's group (type COMM_GROUP) lists world
 * ranks; its events name ranks of the communicator, or world ranks when
 * the group is flagged GLOBAL_MEMBERS; MPI_COMM_SELF and its kind
 * (COMM_SELF) become a communicator of the rank alone.
 *
 * Events, per rank in the order recorded:
 *   - MpiSend, MpiIsend: a send (an isend with its request);
 *   - MpiRecv: a blocking receive;
 *   - MpiIrecvRequest: a receive posted, in its place among the rank's
 *     calls (MPI matches receives in the order posted); its source, tag,
 *     communicator and size come with MpiIrecv, when a wait or test
 *     completes it, which is also the wait; one never completed (freed,
 *     cancelled, or the recording ended) is left out;
 *   - MpiIsendComplete: the wait of an isend;
 *   - MpiCollectiveEnd: a collective, of the kind its OTF2_CollectiveOp
 *     says (collective_of() maps the ones without an algorithm of their
 *     own), its bytes from the rank's sizeSent and sizeReceived as
 *     Score-P counts them (part_bytes());
 *   - NonBlockingCollectiveRequest: a non-blocking collective (MPI_Iallreduce
 *     ...), run where it starts as a blocking one, of the kind and sizes
 *     its NonBlockingCollectiveComplete gives;
 *   - Enter and Leave: time outside MPI calls (regions of paradigm MPI,
 *     or named MPI_*) is compute; it runs from the rank's first event.
 * Times are ticks of the archive's clock (ClockProperties: timerResolution
 * ticks per second, none before globalOffset), made nanoseconds from the
 * archive's first event.  The ranks are read one after the other (memory:
 * the trace's events and one chunk of libotf2's, not a chunk per rank).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "twintorus/mpitrace.h"
#include "support/errf.h"
#include "sources/mpitrace_int.h"

int
tt_otf2_is(const char *path)
{
	size_t n = strlen(path);

	return n > 5 && strcmp(path + n - 5, ".otf2") == 0;
}

/* The anchor's companions: FILE.def and FILE/ beside FILE.otf2. */
static int
check_layout(const char *path, char *err, size_t errsz)
{
	struct stat st;
	size_t n = strlen(path);
	char *p;
	int rc = 0;

	if (stat(path, &st) != 0)
		return tt_errf(err, errsz, "%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return tt_errf(err, errsz, "%s: not a file (an OTF2 archive is "
		    "named by its anchor file, e.g. traces.otf2)", path);
	if ((p = malloc(n + 1)) == NULL)
		return tt_errf(err, errsz, "out of memory");
	memcpy(p, path, n - 5);
	strcpy(p + n - 5, ".def");
	if (stat(p, &st) != 0 || !S_ISREG(st.st_mode))
		rc = tt_errf(err, errsz, "%s: its global definitions %s are "
		    "missing (an OTF2 archive is the anchor file, FILE.def and "
		    "the folder FILE/ beside it; copy the whole archive)",
		    path, p);
	else {
		p[n - 5] = '\0';
		if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode))
			rc = tt_errf(err, errsz, "%s: its folder of event files "
			    "%s/ is missing (an OTF2 archive is the anchor file, "
			    "FILE.def and the folder FILE/ beside it; copy the "
			    "whole archive)", path, p);
	}
	free(p);
	return rc;
}

#ifndef TT_HAVE_OTF2

int
tt_otf2_read(tt_mpi_trace *t, const char *path, char *err, size_t errsz)
{
	memset(t, 0, sizeof(*t));
	if (check_layout(path, err, errsz) < 0)
		return -1;
	return tt_errf(err, errsz, "%s: this build reads no OTF2 archives "
	    "(it was built without libotf2: install libotf2-trace-dev, or "
	    "run make deps, and rebuild)", path);
}

#else

#include <otf2/otf2.h>

#include "support/u64map.h"

#define NONE UINT32_MAX

struct o2group {
	uint64_t id;
	uint8_t type, paradigm;
	uint32_t flags;
	uint32_t n;
	uint64_t *member;
};

struct o2comm {
	uint64_t id, group;
	uint32_t name;
};

/* What a rank's events need while they are read. */
struct o2rank {
	uint64_t loc;
	int started;            /* an event seen */
	uint32_t depth;         /* MPI calls entered */
	uint64_t last;          /* ticks: where its compute began */
	uint64_t coll_begin;    /* ticks: the collective under way */
	uint32_t self;          /* its MPI_COMM_SELF, or NONE */
	int got;                /* the call under way completed a receive */
	tt_u64map irecv;        /* request: the event of the irecv posted */
	tt_u64map nbcoll;       /* request: the event of the non-blocking
	                         * collective started */
};

struct o2 {
	const char *path;
	char *err;
	size_t errsz;
	int failed;
	char liberr[256];       /* libotf2's first complaint */
	/* definitions */
	uint64_t res, offset;
	int clock;
	char **str;             /* string id: text (ids are dense, small) */
	size_t nstr;
	tt_u64map strmap;       /* string id: index in str */
	tt_u64map mpiregion;    /* region id: 1 if an MPI call */
	struct o2group *grp;
	size_t ngrp;
	struct o2comm *comm;
	size_t ncomm;
	/* the trace */
	tt_mpi_trace *t;
	struct o2rank *rk;
	tt_u64map locrank;      /* location: rank */
	tt_u64map globalrank;   /* (tt comm, world rank): its rank there, for
	                         * the comms whose events name world ranks
	                         * (groups flagged GLOBAL_MEMBERS) */
	tt_u64map commidx;      /* OTF2 comm: tt comm, or NONE - 1 for a
	                         * COMM_SELF one */
	uint64_t tmin, tmax;
	uint64_t msg_first;     /* ticks: the first message sent */
	uint64_t msg_last;      /* ticks: the end of the last call that
	                         * completed a receive */
};

#define COMM_SELF_MARK (NONE - 1)

static int
o2fail(struct o2 *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
o2fail(struct o2 *o, const char *fmt, ...)
{
	char what[768];
	va_list ap;

	if (o->failed)
		return -1;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	tt_errf(o->err, o->errsz, "%s: %s", o->path, what);
	o->failed = 1;
	return -1;
}

static OTF2_ErrorCode
on_liberror(void *ud, const char *file, uint64_t line, const char *fn,
    OTF2_ErrorCode code, const char *fmt, va_list va)
{
	struct o2 *o = ud;
	char msg[192];

	(void)file;
	(void)line;
	(void)fn;
	if (o->liberr[0] == '\0') {
		msg[0] = '\0';
		if (fmt != NULL)
			vsnprintf(msg, sizeof(msg), fmt, va);
		snprintf(o->liberr, sizeof(o->liberr), "%s%s%s",
		    OTF2_Error_GetDescription(code), msg[0] ? ": " : "", msg);
	}
	return code;
}

static const char *
str_of(const struct o2 *o, uint64_t id)
{
	uint32_t i;

	if (tt_u64map_get(&o->strmap, id, &i))
		return o->str[i];
	return "?";
}

/* ---- definitions ---- */

static OTF2_CallbackCode
def_clock(void *ud, uint64_t res, uint64_t offset, uint64_t length,
    uint64_t realtime)
{
	struct o2 *o = ud;

	(void)length;
	(void)realtime;
	o->res = res;
	o->offset = offset;
	o->clock = 1;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_string(void *ud, OTF2_StringRef self, const char *s)
{
	struct o2 *o = ud;
	char **g, *c;

	if ((g = realloc(o->str, (o->nstr + 1) * sizeof(*g))) == NULL)
		goto oom;
	o->str = g;
	if ((c = strdup(s != NULL ? s : "")) == NULL)
		goto oom;
	o->str[o->nstr] = c;
	if (tt_u64map_put(&o->strmap, self, (uint32_t)o->nstr) < 0)
		goto oom;
	o->nstr++;
	return OTF2_CALLBACK_SUCCESS;
oom:
	o2fail(o, "out of memory");
	return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode
def_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name,
    OTF2_StringRef canonical, OTF2_StringRef desc, OTF2_RegionRole role,
    OTF2_Paradigm paradigm, OTF2_RegionFlag flags, OTF2_StringRef file,
    uint32_t begin, uint32_t end)
{
	struct o2 *o = ud;
	const char *s = str_of(o, name);
	int mpi = paradigm == OTF2_PARADIGM_MPI || strncmp(s, "MPI_", 4) == 0;

	(void)canonical;
	(void)desc;
	(void)role;
	(void)flags;
	(void)file;
	(void)begin;
	(void)end;
	if (tt_u64map_put(&o->mpiregion, self, (uint32_t)mpi) < 0) {
		o2fail(o, "out of memory");
		return OTF2_CALLBACK_INTERRUPT;
	}
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name,
    OTF2_GroupType type, OTF2_Paradigm paradigm, OTF2_GroupFlag flags,
    uint32_t n, const uint64_t *member)
{
	struct o2 *o = ud;
	struct o2group *g;

	(void)name;
	if ((g = realloc(o->grp, (o->ngrp + 1) * sizeof(*g))) == NULL)
		goto oom;
	o->grp = g;
	g = &o->grp[o->ngrp];
	g->id = self;
	g->type = type;
	g->paradigm = paradigm;
	g->flags = flags;
	g->n = n;
	g->member = NULL;
	if (n > 0) {
		if ((g->member = malloc(n * sizeof(*g->member))) == NULL)
			goto oom;
		memcpy(g->member, member, n * sizeof(*g->member));
	}
	o->ngrp++;
	return OTF2_CALLBACK_SUCCESS;
oom:
	o2fail(o, "out of memory");
	return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode
def_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name,
    OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
	struct o2 *o = ud;
	struct o2comm *g;

	(void)parent;
	(void)flags;
	if ((g = realloc(o->comm, (o->ncomm + 1) * sizeof(*g))) == NULL) {
		o2fail(o, "out of memory");
		return OTF2_CALLBACK_INTERRUPT;
	}
	o->comm = g;
	g[o->ncomm].id = self;
	g[o->ncomm].group = group;
	g[o->ncomm].name = name;
	o->ncomm++;
	return OTF2_CALLBACK_SUCCESS;
}

static const struct o2group *
group_of(const struct o2 *o, uint64_t id)
{
	size_t i;

	for (i = 0; i < o->ngrp; i++)
		if (o->grp[i].id == id)
			return &o->grp[i];
	return NULL;
}

/* The ranks (the MPI COMM_LOCATIONS group) and the communicators. */
static int
build_ranks(struct o2 *o)
{
	const struct o2group *world = NULL;
	uint32_t *m = NULL, r, k;
	size_t i;

	if (!o->clock || o->res == 0)
		return o2fail(o, "no clock properties (timerResolution): not an "
		    "archive as Score-P writes it");
	for (i = 0; i < o->ngrp; i++)
		if (o->grp[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS &&
		    o->grp[i].paradigm == OTF2_PARADIGM_MPI) {
			world = &o->grp[i];
			break;
		}
	if (world == NULL || world->n == 0)
		return o2fail(o, "no MPI ranks (no group of type "
		    "COMM_LOCATIONS and paradigm MPI): not an MPI trace as "
		    "Score-P writes it");
	if (tt_mpi_trace_init(o->t, world->n, "otf2") < 0 ||
	    (o->rk = calloc(world->n, sizeof(*o->rk))) == NULL)
		return o2fail(o, "out of memory");
	o->t->timed = 1;
	for (r = 0; r < world->n; r++) {
		uint32_t prev;

		o->rk[r].loc = world->member[r];
		o->rk[r].self = NONE;
		tt_u64map_init(&o->rk[r].irecv);
		tt_u64map_init(&o->rk[r].nbcoll);
		if (tt_u64map_get(&o->locrank, world->member[r], &prev))
			return o2fail(o, "location %" PRIu64 " is MPI rank %"
			    PRIu32 " and %" PRIu32, world->member[r], prev, r);
		if (tt_u64map_put(&o->locrank, world->member[r], r) < 0)
			return o2fail(o, "out of memory");
	}
	for (i = 0; i < o->ncomm; i++) {
		const struct o2comm *c = &o->comm[i];
		const struct o2group *g = group_of(o, c->group);
		uint32_t idx;
		int x;

		if (g == NULL)
			return o2fail(o, "communicator %" PRIu64 " (%s): its "
			    "group %" PRIu64 " is not defined", c->id,
			    str_of(o, c->name), c->group);
		if (g->type == OTF2_GROUP_TYPE_COMM_SELF) {
			idx = COMM_SELF_MARK;
		} else if (g->type == OTF2_GROUP_TYPE_COMM_LOCATIONS) {
			idx = 0;
		} else if (g->type == OTF2_GROUP_TYPE_COMM_GROUP) {
			if (g->n == 0)
				return o2fail(o, "communicator %" PRIu64
				    " (%s): an empty group", c->id,
				    str_of(o, c->name));
			if ((m = malloc(g->n * sizeof(*m))) == NULL)
				return o2fail(o, "out of memory");
			for (k = 0; k < g->n; k++) {
				if (g->member[k] >= world->n) {
					free(m);
					return o2fail(o, "communicator %" PRIu64
					    " (%s): member %" PRIu64 " is not "
					    "one of the %" PRIu32 " ranks",
					    c->id, str_of(o, c->name),
					    g->member[k], world->n);
				}
				m[k] = (uint32_t)g->member[k];
			}
			x = tt_mpi_trace_add_comm(o->t, g->n, m);
			free(m);
			m = NULL;
			if (x < 0)
				return o2fail(o, "out of memory");
			idx = (uint32_t)x;
			for (k = 0; (g->flags & OTF2_GROUP_FLAG_GLOBAL_MEMBERS) &&
			    k < g->n; k++)
				if (tt_u64map_put(&o->globalrank, (uint64_t)idx <<
				    32 | g->member[k], k) < 0)
					return o2fail(o, "out of memory");
		} else {
			return o2fail(o, "communicator %" PRIu64 " (%s): its "
			    "group %" PRIu64 " is of type %u, not a "
			    "communicator's", c->id, str_of(o, c->name),
			    c->group, g->type);
		}
		if (tt_u64map_put(&o->commidx, c->id, idx) < 0)
			return o2fail(o, "out of memory");
	}
	return 0;
}

/* ---- events ---- */

static struct o2rank *
rank_of(struct o2 *o, OTF2_LocationRef loc, uint32_t *r)
{
	if (!tt_u64map_get(&o->locrank, loc, r))
		return NULL;
	return &o->rk[*r];
}

static int
add(struct o2 *o, uint32_t r, const tt_mpi_event *e)
{
	if (tt_mpi_trace_add(o->t, r, e) < 0)
		return o2fail(o, "out of memory");
	return 0;
}

/* Every event of rank r: its time checked; compute up to it if it is the
 * first, or an MPI event outside any MPI call's region. */
static int
seen(struct o2 *o, uint32_t r, uint64_t time, int mpi_event)
{
	struct o2rank *k = &o->rk[r];

	if (time < o->offset)
		return o2fail(o, "rank %" PRIu32 " (location %" PRIu64 "): an "
		    "event at tick %" PRIu64 ", before the clock's "
		    "globalOffset %" PRIu64, r, k->loc, time, o->offset);
	if (time < o->tmin)
		o->tmin = time;
	if (time > o->tmax)
		o->tmax = time;
	if (!k->started) {
		k->started = 1;
		k->last = time;
	}
	if (mpi_event && k->depth == 0 && time > k->last) {
		tt_mpi_event e;

		/* ticks for now (see convert_times()) */
		memset(&e, 0, sizeof(e));
		e.kind = TT_MPI_COMPUTE;
		e.t_ns = k->last;
		e.ns = time;
		k->last = time;
		return add(o, r, &e);
	}
	if (mpi_event && k->depth == 0)
		k->last = time;
	return 0;
}

/* Add e, a call completed later (an irecv, a non-blocking collective), to
 * rank r's calls, and remember its place under its request in m. */
static OTF2_CallbackCode
add_pending(struct o2 *o, uint32_t r, tt_u64map *m, const tt_mpi_event *e)
{
	if (o->t->rank[r].n >= NONE || tt_u64map_put(m, e->req,
	    (uint32_t)o->t->rank[r].n) < 0 || add(o, r, e) < 0) {
		o2fail(o, "out of memory");
		return OTF2_CALLBACK_INTERRUPT;
	}
	return OTF2_CALLBACK_SUCCESS;
}

/* The recorded message span: a message sent at time; a receive completed
 * at time, by the call under way (whose end counts) or outside any. */
static void
msg_sent(struct o2 *o, uint64_t time)
{
	if (time < o->msg_first)
		o->msg_first = time;
}

static void
msg_got(struct o2 *o, struct o2rank *k, uint64_t time)
{
	if (k->depth > 0)
		k->got = 1;
	else if (time > o->msg_last)
		o->msg_last = time;
}

#define EV_BEGIN(o, loc, time, r, k) \
	struct o2 *o = ud; \
	uint32_t r; \
	struct o2rank *k = rank_of(o, loc, &r); \
	(void)pos; \
	(void)attrs; \
	if (k == NULL) \
		return OTF2_CALLBACK_SUCCESS; \
	if (seen(o, r, time, 1) < 0) \
		return OTF2_CALLBACK_INTERRUPT

static OTF2_CallbackCode
ev_enter(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos,
    void *ud, OTF2_AttributeList *attrs, OTF2_RegionRef region)
{
	struct o2 *o = ud;
	struct o2rank *k;
	uint32_t r, mpi = 0;

	(void)pos;
	(void)attrs;
	if ((k = rank_of(o, loc, &r)) == NULL)
		return OTF2_CALLBACK_SUCCESS;
	(void)tt_u64map_get(&o->mpiregion, region, &mpi);
	if (seen(o, r, time, 0) < 0)
		return OTF2_CALLBACK_INTERRUPT;
	if (!mpi)
		return OTF2_CALLBACK_SUCCESS;
	if (k->depth++ == 0 && time > k->last) {
		tt_mpi_event e;

		memset(&e, 0, sizeof(e));
		e.kind = TT_MPI_COMPUTE;
		e.t_ns = k->last;
		e.ns = time;
		if (add(o, r, &e) < 0)
			return OTF2_CALLBACK_INTERRUPT;
	}
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_leave(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos,
    void *ud, OTF2_AttributeList *attrs, OTF2_RegionRef region)
{
	struct o2 *o = ud;
	struct o2rank *k;
	uint32_t r, mpi = 0;

	(void)pos;
	(void)attrs;
	if ((k = rank_of(o, loc, &r)) == NULL)
		return OTF2_CALLBACK_SUCCESS;
	(void)tt_u64map_get(&o->mpiregion, region, &mpi);
	if (seen(o, r, time, 0) < 0)
		return OTF2_CALLBACK_INTERRUPT;
	if (mpi && k->depth > 0 && --k->depth == 0) {
		k->last = time;
		if (k->got && time > o->msg_last)
			o->msg_last = time;
		k->got = 0;
	}
	return OTF2_CALLBACK_SUCCESS;
}

/* The tt communicator of OTF2 comm c for rank r; *peer (if any) made a
 * rank of it where the comm's events name world ranks (one that is not a
 * member stays out of range, for the conversion to refuse). */
static int
comm_of(struct o2 *o, uint32_t r, OTF2_CommRef c, uint32_t *idx,
    uint32_t *peer)
{
	struct o2rank *k = &o->rk[r];
	uint32_t local;
	int x;

	if (!tt_u64map_get(&o->commidx, c, idx))
		return o2fail(o, "rank %" PRIu32 ": an event on communicator %"
		    PRIu32 ", which is not defined", r, c);
	if (*idx != COMM_SELF_MARK) {
		if (peer != NULL && o->globalrank.n > 0 &&
		    tt_u64map_get(&o->globalrank, (uint64_t)*idx << 32 | *peer,
		    &local))
			*peer = local;
		return 0;
	}
	if (k->self == NONE) {
		if ((x = tt_mpi_trace_add_comm(o->t, 1, &r)) < 0)
			return o2fail(o, "out of memory");
		k->self = (uint32_t)x;
	}
	*idx = k->self;
	return 0;
}

static OTF2_CallbackCode
p2p(struct o2 *o, uint32_t r, int kind, uint64_t time, uint32_t peer,
    OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
	tt_mpi_event e;

	memset(&e, 0, sizeof(e));
	e.kind = (uint8_t)kind;
	e.peer = peer;
	e.tag = tag;
	e.bytes = len;
	e.req = req;
	e.t_ns = time;
	if (comm_of(o, r, comm, &e.comm, &e.peer) < 0 || add(o, r, &e) < 0)
		return OTF2_CALLBACK_INTERRUPT;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_send(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos,
    void *ud, OTF2_AttributeList *attrs, uint32_t receiver, OTF2_CommRef comm,
    uint32_t tag, uint64_t len)
{
	EV_BEGIN(o, loc, time, r, k);
	(void)k;
	msg_sent(o, time);
	return p2p(o, r, TT_MPI_SEND, time, receiver, comm, tag, len, 0);
}

static OTF2_CallbackCode
ev_isend(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos,
    void *ud, OTF2_AttributeList *attrs, uint32_t receiver, OTF2_CommRef comm,
    uint32_t tag, uint64_t len, uint64_t req)
{
	EV_BEGIN(o, loc, time, r, k);
	(void)k;
	msg_sent(o, time);
	return p2p(o, r, TT_MPI_ISEND, time, receiver, comm, tag, len, req);
}

static OTF2_CallbackCode
ev_recv(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos,
    void *ud, OTF2_AttributeList *attrs, uint32_t sender, OTF2_CommRef comm,
    uint32_t tag, uint64_t len)
{
	EV_BEGIN(o, loc, time, r, k);
	msg_got(o, k, time);
	return p2p(o, r, TT_MPI_RECV, time, sender, comm, tag, len, 0);
}

static OTF2_CallbackCode
wait_for(struct o2 *o, uint32_t r, uint64_t time, uint64_t req)
{
	tt_mpi_event e;

	memset(&e, 0, sizeof(e));
	e.kind = TT_MPI_WAIT;
	e.req = req;
	e.t_ns = time;
	return add(o, r, &e) < 0 ? OTF2_CALLBACK_INTERRUPT :
	    OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_isend_complete(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos,
    void *ud, OTF2_AttributeList *attrs, uint64_t req)
{
	EV_BEGIN(o, loc, time, r, k);
	(void)k;
	return wait_for(o, r, time, req);
}

/* An irecv posted: its place among the rank's calls, filled in when it
 * completes. */
static OTF2_CallbackCode
ev_irecv_request(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos,
    void *ud, OTF2_AttributeList *attrs, uint64_t req)
{
	tt_mpi_event e;

	EV_BEGIN(o, loc, time, r, k);
	memset(&e, 0, sizeof(e));
	e.kind = TT_MPI_IRECV;
	e.peer = NONE;          /* not known yet */
	e.req = req;
	e.t_ns = time;
	return add_pending(o, r, &k->irecv, &e);
}

static OTF2_CallbackCode
ev_irecv(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos,
    void *ud, OTF2_AttributeList *attrs, uint32_t sender, OTF2_CommRef comm,
    uint32_t tag, uint64_t len, uint64_t req)
{
	uint32_t at;

	EV_BEGIN(o, loc, time, r, k);
	msg_got(o, k, time);
	if (tt_u64map_get(&k->irecv, req, &at)) {
		tt_mpi_event *e = &o->t->rank[r].ev[at];

		tt_u64map_del(&k->irecv, req);
		e->peer = sender;
		e->tag = tag;
		e->bytes = len;
		if (comm_of(o, r, comm, &e->comm, &e->peer) < 0)
			return OTF2_CALLBACK_INTERRUPT;
	} else if (p2p(o, r, TT_MPI_IRECV, time, sender, comm, tag, len,
	    req) != OTF2_CALLBACK_SUCCESS) {
		return OTF2_CALLBACK_INTERRUPT;
	}
	return wait_for(o, r, time, req);
}

/* A receive cancelled: it takes no message. */
static OTF2_CallbackCode
ev_cancelled(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos,
    void *ud, OTF2_AttributeList *attrs, uint64_t req)
{
	uint32_t at;

	EV_BEGIN(o, loc, time, r, k);
	if (tt_u64map_get(&k->irecv, req, &at)) {
		tt_mpi_event *e = &o->t->rank[r].ev[at];

		tt_u64map_del(&k->irecv, req);
		memset(e, 0, sizeof(*e));
		e->kind = TT_MPI_COMPUTE;       /* of no time */
		e->t_ns = e->ns = time;
	}
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_coll_begin(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos,
    void *ud, OTF2_AttributeList *attrs)
{
	EV_BEGIN(o, loc, time, r, k);
	k->coll_begin = time;
	msg_sent(o, time);
	return OTF2_CALLBACK_SUCCESS;
}

/* The collective an OTF2 op becomes: its own, or the nearest pattern
 * (reduce-scatter: each rank's block to each other, as alltoall; scan and
 * exscan: an allreduce of a block; creating and freeing communicators
 * and windows: a barrier). */
static int
collective_of(OTF2_CollectiveOp op)
{
	switch (op) {
	case OTF2_COLLECTIVE_OP_BARRIER:
		return TT_COLL_BARRIER;
	case OTF2_COLLECTIVE_OP_BCAST:
		return TT_COLL_BCAST;
	case OTF2_COLLECTIVE_OP_GATHER:
	case OTF2_COLLECTIVE_OP_GATHERV:
		return TT_COLL_GATHER;
	case OTF2_COLLECTIVE_OP_SCATTER:
	case OTF2_COLLECTIVE_OP_SCATTERV:
		return TT_COLL_SCATTER;
	case OTF2_COLLECTIVE_OP_ALLGATHER:
	case OTF2_COLLECTIVE_OP_ALLGATHERV:
		return TT_COLL_ALLGATHER;
	case OTF2_COLLECTIVE_OP_ALLTOALL:
	case OTF2_COLLECTIVE_OP_ALLTOALLV:
	case OTF2_COLLECTIVE_OP_ALLTOALLW:
	case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
	case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
		return TT_COLL_ALLTOALL;
	case OTF2_COLLECTIVE_OP_ALLREDUCE:
	case OTF2_COLLECTIVE_OP_SCAN:
	case OTF2_COLLECTIVE_OP_EXSCAN:
		return TT_COLL_ALLREDUCE;
	case OTF2_COLLECTIVE_OP_REDUCE:
		return TT_COLL_REDUCE;
	case OTF2_COLLECTIVE_OP_CREATE_HANDLE:
	case OTF2_COLLECTIVE_OP_DESTROY_HANDLE:
	case OTF2_COLLECTIVE_OP_ALLOCATE:
	case OTF2_COLLECTIVE_OP_DEALLOCATE:
	case OTF2_COLLECTIVE_OP_CREATE_HANDLE_AND_ALLOCATE:
	case OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE:
		return TT_COLL_BARRIER;
	default:
		return -1;
	}
}

/* The bytes of one message of the collective from this rank (the header's
 * convention) out of Score-P's counts: a rank's sizeSent and sizeReceived
 * are its whole traffic in the call, its own part included (one to all:
 * the root sends n parts, the others receive one; all to one: the others
 * send one, the root receives n; all to all: n parts each way). */
static uint64_t
part_bytes(int c, OTF2_CollectiveOp op, int root, uint32_t n,
    uint64_t sent, uint64_t recvd)
{
	if (op >= OTF2_COLLECTIVE_OP_CREATE_HANDLE)
		return 0;
	switch (c) {
	case TT_COLL_BARRIER:
		return 0;
	case TT_COLL_BCAST:
	case TT_COLL_SCATTER:
		return root ? (recvd > 0 ? recvd : sent / n) : recvd;
	case TT_COLL_REDUCE:
	case TT_COLL_GATHER:
		return root ? (sent > 0 ? sent : recvd / n) : sent;
	default:
		return (sent + n - 1) / n;
	}
}

/* Collective event e of rank r (its kind, time set) completed from an
 * OTF2 MpiCollectiveEnd or NonBlockingCollectiveComplete.  0, or -1. */
static int
coll_fill(struct o2 *o, uint32_t r, tt_mpi_event *e, OTF2_CollectiveOp op,
    OTF2_CommRef comm, uint32_t root, uint64_t sent, uint64_t recvd)
{
	const tt_mpi_comm *cm;
	int c;

	if ((c = collective_of(op)) < 0)
		return o2fail(o, "rank %" PRIu32 ": collective operation %u is "
		    "not one OTF2 3 defines", r, op);
	e->kind = TT_MPI_COLL;
	e->coll = (uint8_t)c;
	if (comm_of(o, r, comm, &e->comm, root <
	    OTF2_COLLECTIVE_ROOT_THIS_GROUP ? &root : NULL) < 0)
		return -1;
	cm = &o->t->comm[e->comm];
	e->peer = root < cm->n ? root : 0;
	e->bytes = part_bytes(c, op, root < cm->n && cm->member[root] == r,
	    cm->n, sent, recvd);
	return 0;
}

static OTF2_CallbackCode
ev_coll_end(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos,
    void *ud, OTF2_AttributeList *attrs, OTF2_CollectiveOp op,
    OTF2_CommRef comm, uint32_t root, uint64_t sent, uint64_t recvd)
{
	tt_mpi_event e;

	EV_BEGIN(o, loc, time, r, k);
	msg_got(o, k, time);
	memset(&e, 0, sizeof(e));
	e.t_ns = k->coll_begin >= o->offset && k->coll_begin <= time ?
	    k->coll_begin : time;
	if (coll_fill(o, r, &e, op, comm, root, sent, recvd) < 0 ||
	    add(o, r, &e) < 0)
		return OTF2_CALLBACK_INTERRUPT;
	return OTF2_CALLBACK_SUCCESS;
}

/* A non-blocking collective started: it runs as a blocking one there
 * (MPI has every rank start collectives in one order, not complete them
 * in one; the overlap with what follows is lost), of the kind and sizes
 * its completion gives; one never completed is left out. */
static OTF2_CallbackCode
ev_nbcoll_request(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos,
    void *ud, OTF2_AttributeList *attrs, uint64_t req)
{
	tt_mpi_event e;

	EV_BEGIN(o, loc, time, r, k);
	msg_sent(o, time);
	memset(&e, 0, sizeof(e));
	e.kind = TT_MPI_COLL;
	e.coll = TT_COLL_COUNT;         /* not known yet */
	e.req = req;
	e.t_ns = time;
	return add_pending(o, r, &k->nbcoll, &e);
}

static OTF2_CallbackCode
ev_nbcoll_complete(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos,
    void *ud, OTF2_AttributeList *attrs, OTF2_CollectiveOp op,
    OTF2_CommRef comm, uint32_t root, uint64_t sent, uint64_t recvd,
    uint64_t req)
{
	uint32_t at;

	EV_BEGIN(o, loc, time, r, k);
	msg_got(o, k, time);
	if (!tt_u64map_get(&k->nbcoll, req, &at)) {
		o2fail(o, "rank %" PRIu32 ": a non-blocking collective completes "
		    "request %" PRIu64 ", which none started", r, req);
		return OTF2_CALLBACK_INTERRUPT;
	}
	tt_u64map_del(&k->nbcoll, req);
	if (coll_fill(o, r, &o->t->rank[r].ev[at], op, comm, root, sent,
	    recvd) < 0)
		return OTF2_CALLBACK_INTERRUPT;
	return OTF2_CALLBACK_SUCCESS;
}

/* Ticks to nanoseconds from the first event; irecvs and non-blocking
 * collectives never completed left out (compute of no time). */
static int
convert_times(struct o2 *o)
{
	tt_mpi_trace *t = o->t;
	uint32_t r;
	size_t i;

#define TO_NS(x) ((uint64_t)(((unsigned __int128)((x) - o->tmin) * \
	1000000000u) / o->res))
	if (o->tmax < o->tmin)
		o->tmin = o->tmax = o->offset;
	for (r = 0; r < t->nranks; r++)
		for (i = 0; i < t->rank[r].n; i++) {
			tt_mpi_event *e = &t->rank[r].ev[i];

			if ((e->kind == TT_MPI_IRECV && e->peer == NONE) ||
			    (e->kind == TT_MPI_COLL &&
			    e->coll == TT_COLL_COUNT)) {
				uint64_t at = e->t_ns;

				memset(e, 0, sizeof(*e));
				e->kind = TT_MPI_COMPUTE;
				e->t_ns = e->ns = at;
			}
			if (e->kind == TT_MPI_COMPUTE)
				e->ns = TO_NS(e->ns) - TO_NS(e->t_ns);
			e->t_ns = TO_NS(e->t_ns);
		}
	t->span_ns = TO_NS(o->tmax);
	if (o->msg_first < o->msg_last)
		t->msg_span_ns = TO_NS(o->msg_last) - TO_NS(o->msg_first);
#undef TO_NS
	return 0;
}

static void
o2_free(struct o2 *o)
{
	size_t i;

	for (i = 0; i < o->nstr; i++)
		free(o->str[i]);
	free(o->str);
	for (i = 0; i < o->ngrp; i++)
		free(o->grp[i].member);
	free(o->grp);
	free(o->comm);
	if (o->rk != NULL)
		for (i = 0; i < o->t->nranks; i++) {
			tt_u64map_free(&o->rk[i].irecv);
			tt_u64map_free(&o->rk[i].nbcoll);
		}
	free(o->rk);
	tt_u64map_free(&o->strmap);
	tt_u64map_free(&o->mpiregion);
	tt_u64map_free(&o->locrank);
	tt_u64map_free(&o->commidx);
	tt_u64map_free(&o->globalrank);
}

/* libotf2's status: 0, or -1 with what it said. */
static int
lib_check(struct o2 *o, OTF2_ErrorCode rc, const char *doing)
{
	if (o->failed)
		return -1;
	if (rc == OTF2_SUCCESS)
		return 0;
	return o2fail(o, "%s: %s (a damaged or incomplete archive?)", doing,
	    o->liberr[0] ? o->liberr : OTF2_Error_GetDescription(rc));
}

static int
read_defs(struct o2 *o, OTF2_Reader *rd)
{
	OTF2_GlobalDefReader *gd = OTF2_Reader_GetGlobalDefReader(rd);
	OTF2_GlobalDefReaderCallbacks *cb;
	uint64_t n;
	OTF2_ErrorCode rc;

	if (gd == NULL)
		return lib_check(o, OTF2_ERROR_INVALID, "reading its global "
		    "definitions");
	if ((cb = OTF2_GlobalDefReaderCallbacks_New()) == NULL)
		return o2fail(o, "out of memory");
	OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, def_clock);
	OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, def_string);
	OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, def_region);
	OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, def_group);
	OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, def_comm);
	rc = OTF2_Reader_RegisterGlobalDefCallbacks(rd, gd, cb, o);
	OTF2_GlobalDefReaderCallbacks_Delete(cb);
	if (lib_check(o, rc, "reading its global definitions") < 0)
		return -1;
	rc = OTF2_Reader_ReadAllGlobalDefinitions(rd, gd, &n);
	if (lib_check(o, rc, "reading its global definitions") < 0)
		return -1;
	OTF2_Reader_CloseGlobalDefReader(rd, gd);
	return build_ranks(o);
}

/* Each rank's events, one location at a time: libotf2 holds a chunk
 * buffer per open event reader, so reading them all at once (its global
 * reader) would take a chunk of memory per rank. */
static int
read_events(struct o2 *o, OTF2_Reader *rd)
{
	OTF2_EvtReaderCallbacks *cb;
	uint32_t r;
	uint64_t n;
	int defs, rc = 0;

	for (r = 0; r < o->t->nranks; r++)
		if (lib_check(o, OTF2_Reader_SelectLocation(rd, o->rk[r].loc),
		    "selecting the ranks' locations") < 0)
			return -1;
	/* local definitions are optional: Score-P writes them */
	defs = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS;
	o->liberr[0] = '\0';
	if (lib_check(o, OTF2_Reader_OpenEvtFiles(rd), "opening its event "
	    "files") < 0)
		return -1;
	if ((cb = OTF2_EvtReaderCallbacks_New()) == NULL)
		return o2fail(o, "out of memory");
	OTF2_EvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
	OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, ev_leave);
	OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, ev_send);
	OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, ev_isend);
	OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb,
	    ev_isend_complete);
	OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb,
	    ev_irecv_request);
	OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, ev_recv);
	OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_irecv);
	OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb,
	    ev_cancelled);
	OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb,
	    ev_coll_begin);
	OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, ev_coll_end);
	OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cb,
	    ev_nbcoll_request);
	OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cb,
	    ev_nbcoll_complete);
	for (r = 0; r < o->t->nranks && rc == 0; r++) {
		OTF2_EvtReader *er;
		char what[64];

		snprintf(what, sizeof(what), "reading rank %" PRIu32 "'s "
		    "events", r);
		if (defs) {
			/* its mapping tables, before its events */
			OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd,
			    o->rk[r].loc);

			if (dr != NULL) {
				rc = lib_check(o,
				    OTF2_Reader_ReadAllLocalDefinitions(rd, dr,
				    &n), "reading the local definitions");
				OTF2_Reader_CloseDefReader(rd, dr);
				if (rc < 0)
					break;
			}
		}
		if ((er = OTF2_Reader_GetEvtReader(rd, o->rk[r].loc)) == NULL) {
			rc = lib_check(o, OTF2_ERROR_INVALID, what);
			break;
		}
		rc = lib_check(o, OTF2_Reader_RegisterEvtCallbacks(rd, er, cb,
		    o), what);
		if (rc == 0)
			rc = lib_check(o, OTF2_Reader_ReadAllLocalEvents(rd, er,
			    &n), what);
		OTF2_Reader_CloseEvtReader(rd, er);
	}
	OTF2_EvtReaderCallbacks_Delete(cb);
	if (defs)
		OTF2_Reader_CloseDefFiles(rd);
	OTF2_Reader_CloseEvtFiles(rd);
	return rc < 0 ? -1 : convert_times(o);
}

int
tt_otf2_read(tt_mpi_trace *t, const char *path, char *err, size_t errsz)
{
	struct o2 o;
	OTF2_Reader *rd;
	OTF2_ErrorCallback prev;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	if (check_layout(path, err, errsz) < 0)
		return -1;
	memset(&o, 0, sizeof(o));
	o.path = path;
	o.err = err;
	o.errsz = errsz;
	o.t = t;
	o.tmin = UINT64_MAX;
	o.msg_first = UINT64_MAX;
	tt_u64map_init(&o.strmap);
	tt_u64map_init(&o.mpiregion);
	tt_u64map_init(&o.locrank);
	tt_u64map_init(&o.commidx);
	tt_u64map_init(&o.globalrank);
	/* libotf2 prints its errors unless told otherwise (one handler for
	 * the process: this reader is not for concurrent use) */
	prev = OTF2_Error_RegisterCallback(on_liberror, &o);
	if ((rd = OTF2_Reader_Open(path)) == NULL) {
		o2fail(&o, "not an OTF2 archive libotf2 can open (%s)",
		    o.liberr[0] ? o.liberr : "no reason given");
	} else {
		if (lib_check(&o, OTF2_Reader_SetSerialCollectiveCallbacks(rd),
		    "opening") == 0 && read_defs(&o, rd) == 0 &&
		    read_events(&o, rd) == 0)
			rc = 0;
		OTF2_Reader_Close(rd);
	}
	OTF2_Error_RegisterCallback(prev, NULL);
	o2_free(&o);
	if (rc < 0)
		tt_mpi_trace_free(t);
	return rc;
}

#endif
