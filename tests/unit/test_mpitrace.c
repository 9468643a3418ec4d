/*
 * MPI-level traces and the dependencies they give causal replay
 * (twintorus/mpitrace.h):
 *   - matching: a receive takes the first message sent on its (source,
 *     destination, communicator, tag), in the order sent, whatever the
 *     order of the tags; peers are ranks of the communicator;
 *   - non-blocking calls: an isend's message leaves at once; an irecv's
 *     dependency is taken at the wait that completes it, not when posted;
 *   - gaps: the compute since the later of the previous send and the last
 *     receive completed;
 *   - collectives: each algorithm's message count and dependencies, and
 *     their messages never matched with the application's own;
 *   - the order of the lines: each rank's in sequence, a message before
 *     the line that names it, each message enabling at most one send;
 *   - refusals: a receive no send matches, a deadlock, a wait on an
 *     unknown request, a peer outside the communicator, the limits of
 *     twintorus/deps.h; each names the rank and the event;
 *   - the readers' dispatch by name (tests/cli/otf2.sh reads archives).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "twintorus/mpitrace.h"

/* ---- building programs ---- */

static void
ev(tt_mpi_trace *t, uint32_t r, int kind, uint32_t peer, int64_t tag,
    uint64_t bytes, uint64_t req)
{
	tt_mpi_event e;

	memset(&e, 0, sizeof(e));
	e.kind = (uint8_t)kind;
	e.peer = peer;
	e.tag = tag;
	e.bytes = bytes;
	e.req = req;
	assert_int_equal(tt_mpi_trace_add(t, r, &e), 0);
}

static void
compute(tt_mpi_trace *t, uint32_t r, uint64_t ns)
{
	tt_mpi_event e;

	memset(&e, 0, sizeof(e));
	e.kind = TT_MPI_COMPUTE;
	e.ns = ns;
	assert_int_equal(tt_mpi_trace_add(t, r, &e), 0);
}

static void
send(tt_mpi_trace *t, uint32_t r, uint32_t to, int64_t tag, uint64_t bytes)
{
	ev(t, r, TT_MPI_SEND, to, tag, bytes, 0);
}

static void
recv(tt_mpi_trace *t, uint32_t r, uint32_t from, int64_t tag)
{
	ev(t, r, TT_MPI_RECV, from, tag, 0, 0);
}

static void
coll(tt_mpi_trace *t, uint32_t r, int c, uint32_t comm, uint32_t root,
    uint64_t bytes)
{
	tt_mpi_event e;

	memset(&e, 0, sizeof(e));
	e.kind = TT_MPI_COLL;
	e.coll = (uint8_t)c;
	e.comm = comm;
	e.peer = root;
	e.bytes = bytes;
	assert_int_equal(tt_mpi_trace_add(t, r, &e), 0);
}

/* ---- the lines a trace gives ---- */

struct line {
	uint32_t pe, seq, dst;
	uint64_t bytes, gap;
	uint32_t npred;
	tt_depref pred[64];
};

struct lines {
	struct line l[4096];
	size_t n;
	char err[512];
	int rc;
};

/* Convert t; every line checked against what causal replay needs: each
 * rank's lines in sequence from 0, each predecessor an earlier message
 * to the same rank, enabling no other send. */
static void
convert(const tt_mpi_trace *t, struct lines *out)
{
	tt_mpi_deps *d;
	tt_dep_stream s;
	tt_dep x;
	uint32_t next[64] = {0};
	static uint8_t used[64][1024];
	size_t i, k;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(used, 0, sizeof(used));
	assert_true(t->nranks <= 64);
	assert_int_equal(tt_mpi_deps_open(&d, t, out->err, sizeof(out->err)),
	    0);
	s = tt_mpi_deps_stream(d);
	while ((rc = s.next(s.ctx, &x, out->err, sizeof(out->err))) > 0) {
		struct line *l = &out->l[out->n++];

		assert_true(out->n < 4096);
		assert_int_equal(x.seq, next[x.pe]);
		next[x.pe]++;
		assert_true(x.seq < 1024);
		l->pe = x.pe;
		l->seq = x.seq;
		l->dst = x.dst;
		l->bytes = x.bytes;
		l->gap = x.gap_ns;
		l->npred = x.npred;
		assert_true(x.npred <= 64);
		for (k = 0; k < x.npred; k++) {
			int found = 0;

			l->pred[k] = x.pred[k];
			for (i = 0; i + 1 < out->n; i++)
				if (out->l[i].pe == x.pred[k].src &&
				    out->l[i].seq == x.pred[k].seq) {
					assert_int_equal(out->l[i].dst, x.pe);
					found = 1;
				}
			assert_true(found);
			assert_false(used[x.pred[k].src][x.pred[k].seq]);
			used[x.pred[k].src][x.pred[k].seq] = 1;
		}
	}
	out->rc = rc;
	tt_mpi_deps_free(d);
}

static const struct line *
find(const struct lines *ls, uint32_t pe, uint32_t seq)
{
	size_t i;

	for (i = 0; i < ls->n; i++)
		if (ls->l[i].pe == pe && ls->l[i].seq == seq)
			return &ls->l[i];
	fail_msg("no line %u:%u", pe, seq);
	return NULL;
}

static int
has_pred(const struct line *l, uint32_t src, uint32_t seq)
{
	uint32_t k;

	for (k = 0; k < l->npred; k++)
		if (l->pred[k].src == src && l->pred[k].seq == seq)
			return 1;
	return 0;
}

static void
refused(const tt_mpi_trace *t, const char *a, const char *b)
{
	static struct lines ls;

	convert(t, &ls);
	assert_int_equal(ls.rc, -1);
	if (strstr(ls.err, a) == NULL || (b != NULL && strstr(ls.err, b) ==
	    NULL))
		fail_msg("error \"%s\" does not say \"%s\" and \"%s\"", ls.err,
		    a, b != NULL ? b : "");
}

/* ---- point to point ---- */

static void
test_blocking_pair(void **state)
{
	tt_mpi_trace t;
	static struct lines ls;
	const struct line *a, *b;

	(void)state;
	assert_int_equal(tt_mpi_trace_init(&t, 2, "test"), 0);
	compute(&t, 0, 100);
	send(&t, 0, 1, 5, 1000);
	recv(&t, 0, 1, 6);
	recv(&t, 1, 0, 5);
	compute(&t, 1, 50);
	send(&t, 1, 0, 6, 10);
	convert(&t, &ls);
	assert_int_equal(ls.rc, 0);
	assert_int_equal(ls.n, 2);
	a = &ls.l[0];
	b = &ls.l[1];
	assert_int_equal(a->pe, 0);
	assert_int_equal(a->dst, 1);
	assert_int_equal(a->bytes, 1000);
	assert_int_equal(a->gap, 100);
	assert_int_equal(a->npred, 0);
	assert_int_equal(b->pe, 1);
	assert_int_equal(b->dst, 0);
	assert_int_equal(b->gap, 50);
	assert_int_equal(b->npred, 1);
	assert_true(has_pred(b, 0, 0));
	tt_mpi_trace_free(&t);
}

/* Framed (tt_mpi_deps_framing()): the MPI header on each message, frames
 * of at most a segment, a header on each frame; a message of 0 bytes is
 * one frame; without framing the payload alone (test_blocking_pair). */
static void
test_framing(void **state)
{
	static const uint64_t pay[] = {3000, 0, 1426, 1427};
	/* 3022 -> 3 frames; 22 -> 1; 1448 -> 1; 1449 -> 2 */
	static const uint64_t wire[] = {3022 + 3 * 66, 22 + 66, 1448 + 66,
	    1449 + 2 * 66};
	tt_mpi_trace t;
	tt_mpi_deps *d;
	tt_dep_stream s;
	tt_dep x;
	char err[512];
	size_t i, n = 0;

	(void)state;
	assert_int_equal(tt_mpi_trace_init(&t, 2, "test"), 0);
	for (i = 0; i < 4; i++) {
		send(&t, 0, 1, 1, pay[i]);
		recv(&t, 1, 0, 1);
	}
	assert_int_equal(tt_mpi_deps_open(&d, &t, err, sizeof(err)), 0);
	tt_mpi_deps_framing(d, 1448, 66, 22);
	s = tt_mpi_deps_stream(d);
	while (s.next(s.ctx, &x, err, sizeof(err)) > 0) {
		assert_true(n < 4);
		assert_int_equal(x.bytes, wire[n]);
		n++;
	}
	assert_int_equal(n, 4);
	tt_mpi_deps_free(d);
	tt_mpi_trace_free(&t);
}

/* Messages on one channel are taken in the order sent; tags are separate
 * channels, so a receive of tag 2 takes the second message. */
static void
test_fifo_per_tag(void **state)
{
	tt_mpi_trace t;
	static struct lines ls;

	(void)state;
	assert_int_equal(tt_mpi_trace_init(&t, 2, "test"), 0);
	send(&t, 0, 1, 1, 8);           /* 0:0 */
	send(&t, 0, 1, 2, 8);           /* 0:1 */
	send(&t, 0, 1, 1, 8);           /* 0:2 */
	recv(&t, 0, 1, 9);
	recv(&t, 0, 1, 9);
	recv(&t, 0, 1, 9);
	recv(&t, 1, 0, 2);
	send(&t, 1, 0, 9, 1);           /* 1:0 after 0:1 */
	recv(&t, 1, 0, 1);
	send(&t, 1, 0, 9, 1);           /* 1:1 after 0:0 */
	recv(&t, 1, 0, 1);
	send(&t, 1, 0, 9, 1);           /* 1:2 after 0:2 */
	convert(&t, &ls);
	assert_int_equal(ls.rc, 0);
	assert_int_equal(ls.n, 6);
	assert_true(has_pred(find(&ls, 1, 0), 0, 1));
	assert_true(has_pred(find(&ls, 1, 1), 0, 0));
	assert_true(has_pred(find(&ls, 1, 2), 0, 2));
	assert_int_equal(find(&ls, 1, 0)->npred, 1);
	tt_mpi_trace_free(&t);
}

/* An irecv's message enables the first send after its wait, not the first
 * after it was posted; an isend's message leaves at once; the compute
 * before a wait that completes a receive is not in the next gap. */
static void
test_nonblocking(void **state)
{
	tt_mpi_trace t;
	static struct lines ls;
	const struct line *l;

	(void)state;
	assert_int_equal(tt_mpi_trace_init(&t, 2, "test"), 0);
	ev(&t, 0, TT_MPI_IRECV, 1, 0, 0, 7);
	ev(&t, 0, TT_MPI_ISEND, 1, 0, 64, 8);   /* 0:0 */
	compute(&t, 0, 30);
	ev(&t, 0, TT_MPI_WAIT, 0, 0, 0, 8);
	ev(&t, 0, TT_MPI_WAIT, 0, 0, 0, 7);     /* takes 1:0 */
	compute(&t, 0, 20);
	send(&t, 0, 1, 0, 64);                  /* 0:1 after 1:0, gap 20 */
	recv(&t, 0, 1, 0);                      /* 1:1: enables nothing */

	ev(&t, 1, TT_MPI_IRECV, 0, 0, 0, 1);    /* matched by 0:0 */
	compute(&t, 1, 5);
	send(&t, 1, 0, 0, 64);                  /* 1:0: no predecessor */
	ev(&t, 1, TT_MPI_WAIT, 0, 0, 0, 1);
	send(&t, 1, 0, 0, 64);                  /* 1:1 after 0:0 */
	recv(&t, 1, 0, 0);                      /* 0:1 */
	convert(&t, &ls);
	assert_int_equal(ls.rc, 0);
	assert_int_equal(ls.n, 4);
	l = find(&ls, 0, 0);
	assert_int_equal(l->npred, 0);
	l = find(&ls, 1, 0);
	assert_int_equal(l->npred, 0);
	assert_int_equal(l->gap, 5);
	l = find(&ls, 1, 1);
	assert_int_equal(l->npred, 1);
	assert_true(has_pred(l, 0, 0));
	assert_int_equal(l->gap, 0);
	l = find(&ls, 0, 1);
	assert_int_equal(l->npred, 1);
	assert_true(has_pred(l, 1, 0));
	assert_int_equal(l->gap, 20);
	tt_mpi_trace_free(&t);
}

/* The gap: compute since the later of the previous send and the last
 * receive completed; receives since the previous send all enable it. */
static void
test_gaps(void **state)
{
	tt_mpi_trace t;
	static struct lines ls;
	const struct line *l;

	(void)state;
	assert_int_equal(tt_mpi_trace_init(&t, 3, "test"), 0);
	compute(&t, 0, 10);
	compute(&t, 0, 5);
	send(&t, 0, 2, 0, 1);                   /* 0:0 gap 15 */
	compute(&t, 1, 1000);
	send(&t, 1, 2, 0, 1);                   /* 1:0 gap 1000 */
	compute(&t, 2, 7);
	recv(&t, 2, 0, 0);
	compute(&t, 2, 11);
	recv(&t, 2, 1, 0);
	compute(&t, 2, 3);
	send(&t, 2, 0, 0, 1);                   /* 2:0: 0:0 and 1:0, gap 3 */
	compute(&t, 2, 4);
	send(&t, 2, 1, 0, 1);                   /* 2:1: gap 4 */
	recv(&t, 0, 2, 0);
	recv(&t, 1, 2, 0);
	convert(&t, &ls);
	assert_int_equal(ls.rc, 0);
	assert_int_equal(find(&ls, 0, 0)->gap, 15);
	assert_int_equal(find(&ls, 1, 0)->gap, 1000);
	l = find(&ls, 2, 0);
	assert_int_equal(l->gap, 3);
	assert_int_equal(l->npred, 2);
	assert_true(has_pred(l, 0, 0));
	assert_true(has_pred(l, 1, 0));
	l = find(&ls, 2, 1);
	assert_int_equal(l->gap, 4);
	assert_int_equal(l->npred, 0);
	tt_mpi_trace_free(&t);
}

/* Peers are ranks of the communicator: in {2, 0}, peer 1 is rank 0. */
static void
test_subcommunicator(void **state)
{
	tt_mpi_trace t;
	static struct lines ls;
	const uint32_t m[2] = {2, 0};
	tt_mpi_event e;
	int c;

	(void)state;
	assert_int_equal(tt_mpi_trace_init(&t, 3, "test"), 0);
	assert_int_equal(t.ncomms, 1);
	assert_int_equal(t.comm[0].n, 3);
	c = tt_mpi_trace_add_comm(&t, 2, m);
	assert_int_equal(c, 1);
	memset(&e, 0, sizeof(e));
	e.kind = TT_MPI_SEND;
	e.comm = 1;
	e.peer = 1;
	e.bytes = 4;
	assert_int_equal(tt_mpi_trace_add(&t, 2, &e), 0);
	e.kind = TT_MPI_RECV;
	e.peer = 0;
	assert_int_equal(tt_mpi_trace_add(&t, 0, &e), 0);
	coll(&t, 0, TT_COLL_BCAST, 1, 1, 16);   /* from rank 0 to rank 2 */
	coll(&t, 2, TT_COLL_BCAST, 1, 1, 16);
	convert(&t, &ls);
	assert_int_equal(ls.rc, 0);
	assert_int_equal(ls.n, 2);
	assert_int_equal(find(&ls, 2, 0)->dst, 0);
	assert_int_equal(find(&ls, 0, 0)->dst, 2);
	assert_int_equal(find(&ls, 0, 0)->npred, 1);

	/* a member out of range is refused */
	{
		const uint32_t bad[2] = {0, 3};

		assert_int_equal(tt_mpi_trace_add_comm(&t, 2, bad), -1);
	}
	/* rank 1 is not a member of comm 1 */
	e.kind = TT_MPI_SEND;
	assert_int_equal(tt_mpi_trace_add(&t, 1, &e), 0);
	refused(&t, "rank 1 event 0", "not a member of communicator 1");
	tt_mpi_trace_free(&t);
}

/* ---- collectives ---- */

static uint64_t
log2up(uint32_t n)
{
	uint64_t k = 0;

	while ((1ull << k) < n)
		k++;
	return k;
}

static uint64_t
expected_messages(int c, uint32_t n)
{
	switch (c) {
	case TT_COLL_BARRIER:
		return n * log2up(n);
	case TT_COLL_ALLREDUCE:
		return 2ull * (n - 1);
	case TT_COLL_ALLGATHER:
	case TT_COLL_ALLTOALL:
		return (uint64_t)n * (n - 1);
	default:
		return n - 1;
	}
}

/* Every collective at several sizes: its message count, what each rank
 * sends and receives, and (through convert()) that every dependency is
 * an earlier message to the same rank. */
static void
test_collective_counts(void **state)
{
	static const uint32_t sizes[] = {1, 2, 3, 5, 8, 13};
	static struct lines ls;
	size_t si, i;
	int c;

	(void)state;
	for (c = 0; c < TT_COLL_COUNT; c++)
		for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
			uint32_t n = sizes[si], r, root = n > 1 ? 1 : 0;
			uint64_t to[16] = {0}, from[16] = {0}, bytes = 0;
			tt_mpi_trace t;
			tt_mpi_totals tot;
			char err[256];

			assert_int_equal(tt_mpi_trace_init(&t, n, "test"), 0);
			for (r = 0; r < n; r++)
				coll(&t, r, c, 0, root, 100);
			convert(&t, &ls);
			if (ls.rc != 0)
				fail_msg("%s on %u ranks: %s", tt_coll_name(c),
				    n, ls.err);
			assert_int_equal(ls.n, expected_messages(c, n));
			for (i = 0; i < ls.n; i++) {
				to[ls.l[i].dst]++;
				from[ls.l[i].pe]++;
				bytes += ls.l[i].bytes;
				assert_true(ls.l[i].pe != ls.l[i].dst);
			}
			for (r = 0; r < n; r++) {
				switch (c) {
				case TT_COLL_BCAST:
				case TT_COLL_SCATTER:
					assert_int_equal(to[r], r == root ? 0 :
					    1);
					break;
				case TT_COLL_REDUCE:
				case TT_COLL_GATHER:
					assert_int_equal(from[r], r == root ?
					    0 : 1);
					if (c == TT_COLL_GATHER)
						assert_int_equal(to[r], r ==
						    root ? n - 1 : 0);
					break;
				case TT_COLL_ALLGATHER:
				case TT_COLL_ALLTOALL:
					assert_int_equal(to[r], n - 1);
					assert_int_equal(from[r], n - 1);
					break;
				case TT_COLL_BARRIER:
					assert_int_equal(from[r], log2up(n));
					break;
				default:
					break;
				}
			}
			assert_int_equal(bytes, c == TT_COLL_BARRIER ? 0 :
			    100 * ls.n);
			assert_int_equal(tt_mpi_totals_get(&t, &tot, err,
			    sizeof(err)), 0);
			assert_int_equal(tot.messages, ls.n);
			assert_int_equal(tot.bytes, bytes);
			assert_int_equal(tot.p2p_messages, 0);
			assert_int_equal(tot.collectives, 1);
			tt_mpi_trace_free(&t);
		}
}

/* Dependencies inside the algorithms: a binomial bcast forwards what it
 * received (a rank's sends after its receive depend on it); the ring's
 * k-th send depends on the (k-1)-th message from the left; a barrier
 * rank's round k+1 send waits for round k's message. */
static void
test_collective_dependencies(void **state)
{
	static struct lines ls;
	tt_mpi_trace t;
	uint32_t n = 8, r, k;
	const struct line *l;

	(void)state;
	assert_int_equal(tt_mpi_trace_init(&t, n, "test"), 0);
	for (r = 0; r < n; r++)
		coll(&t, r, TT_COLL_BCAST, 0, 0, 10);
	convert(&t, &ls);
	assert_int_equal(ls.rc, 0);
	/* binomial from 0 over 8: 0 sends to 4, 2, 1; 4 to 6, 5; 2 to 3;
	 * 6 to 7 */
	assert_int_equal(find(&ls, 0, 0)->dst, 4);
	assert_int_equal(find(&ls, 0, 1)->dst, 2);
	assert_int_equal(find(&ls, 0, 2)->dst, 1);
	l = find(&ls, 4, 0);
	assert_int_equal(l->dst, 6);
	assert_true(has_pred(l, 0, 0));
	assert_int_equal(find(&ls, 4, 1)->npred, 0);
	l = find(&ls, 6, 0);
	assert_int_equal(l->dst, 7);
	assert_true(has_pred(l, 4, 0));
	tt_mpi_trace_free(&t);

	assert_int_equal(tt_mpi_trace_init(&t, n, "test"), 0);
	for (r = 0; r < n; r++)
		coll(&t, r, TT_COLL_ALLGATHER, 0, 0, 10);
	convert(&t, &ls);
	assert_int_equal(ls.rc, 0);
	for (r = 0; r < n; r++)
		for (k = 1; k < n - 1; k++) {
			l = find(&ls, r, k);
			assert_int_equal(l->dst, (r + 1) % n);
			assert_int_equal(l->npred, 1);
			assert_true(has_pred(l, (r + n - 1) % n, k - 1));
		}
	tt_mpi_trace_free(&t);

	assert_int_equal(tt_mpi_trace_init(&t, 5, "test"), 0);
	for (r = 0; r < 5; r++)
		coll(&t, r, TT_COLL_BARRIER, 0, 0, 0);
	convert(&t, &ls);
	assert_int_equal(ls.rc, 0);
	for (r = 0; r < 5; r++) {
		assert_int_equal(find(&ls, r, 0)->dst, (r + 1) % 5);
		assert_int_equal(find(&ls, r, 1)->dst, (r + 2) % 5);
		assert_int_equal(find(&ls, r, 2)->dst, (r + 4) % 5);
		assert_true(has_pred(find(&ls, r, 1), (r + 4) % 5, 0));
		assert_true(has_pred(find(&ls, r, 2), (r + 3) % 5, 1));
	}
	tt_mpi_trace_free(&t);
}

/* A collective's messages do not match the application's: rank 1's
 * bcast takes the bcast's message although a point-to-point one from the
 * same rank on the same communicator came first. */
static void
test_collective_channel(void **state)
{
	static struct lines ls;
	tt_mpi_trace t;
	tt_mpi_totals tot;
	char err[256];

	(void)state;
	assert_int_equal(tt_mpi_trace_init(&t, 2, "test"), 0);
	send(&t, 0, 1, 0, 3);                   /* 0:0 */
	coll(&t, 0, TT_COLL_BCAST, 0, 0, 5);    /* 0:1 */
	compute(&t, 0, 2);
	recv(&t, 0, 1, 0);
	recv(&t, 0, 1, 0);
	coll(&t, 1, TT_COLL_BCAST, 0, 0, 5);
	send(&t, 1, 0, 0, 1);                   /* 1:0 after 0:1 */
	recv(&t, 1, 0, 0);
	send(&t, 1, 0, 0, 1);                   /* 1:1 after 0:0 */
	convert(&t, &ls);
	assert_int_equal(ls.rc, 0);
	assert_int_equal(ls.n, 4);
	assert_int_equal(find(&ls, 0, 1)->bytes, 5);
	assert_true(has_pred(find(&ls, 1, 0), 0, 1));
	assert_true(has_pred(find(&ls, 1, 1), 0, 0));
	assert_int_equal(tt_mpi_totals_get(&t, &tot, err, sizeof(err)), 0);
	assert_int_equal(tot.messages, 4);
	assert_int_equal(tot.bytes, 3 + 5 + 1 + 1);
	assert_int_equal(tot.p2p_messages, 3);
	assert_int_equal(tot.p2p_bytes, 5);
	assert_int_equal(tot.collectives, 1);
	assert_int_equal(tot.compute_ns, 2);
	tt_mpi_trace_free(&t);
}

/* ---- refusals ---- */

static void
test_unmatched_receive(void **state)
{
	tt_mpi_trace t;
	tt_mpi_totals tot;
	char err[256];

	(void)state;
	assert_int_equal(tt_mpi_trace_init(&t, 2, "test"), 0);
	send(&t, 0, 1, 0, 1);
	recv(&t, 1, 0, 0);
	recv(&t, 1, 0, 0);
	refused(&t, "rank 1 event 1", "no send of rank 0 matches");
	assert_int_equal(tt_mpi_totals_get(&t, &tot, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "rank 1 event 1"));
	tt_mpi_trace_free(&t);

	/* an irecv never waited for and never matched */
	assert_int_equal(tt_mpi_trace_init(&t, 2, "test"), 0);
	send(&t, 0, 1, 4, 1);
	ev(&t, 1, TT_MPI_IRECV, 0, 4, 0, 1);
	ev(&t, 1, TT_MPI_IRECV, 0, 4, 0, 2);
	refused(&t, "rank 1 event 1", "no send matches");
	tt_mpi_trace_free(&t);

	/* ranks that do not call the same collectives */
	assert_int_equal(tt_mpi_trace_init(&t, 2, "test"), 0);
	coll(&t, 0, TT_COLL_BCAST, 0, 0, 1);
	coll(&t, 1, TT_COLL_BCAST, 0, 0, 1);
	coll(&t, 1, TT_COLL_BCAST, 0, 0, 1);
	refused(&t, "rank 1 event 1", "MPI_Bcast");
	tt_mpi_trace_free(&t);
}

static void
test_deadlock(void **state)
{
	tt_mpi_trace t;

	(void)state;
	assert_int_equal(tt_mpi_trace_init(&t, 3, "test"), 0);
	send(&t, 2, 0, 0, 1);
	recv(&t, 0, 2, 0);
	recv(&t, 0, 1, 0);
	send(&t, 0, 1, 0, 1);
	recv(&t, 1, 0, 0);
	send(&t, 1, 0, 0, 1);
	refused(&t, "deadlock: rank 0 event 1 waits for a message from rank 1",
	    "rank 1 waits at event 0");
	tt_mpi_trace_free(&t);
}

static void
test_bad_requests_and_peers(void **state)
{
	tt_mpi_trace t;
	tt_mpi_event e;

	(void)state;
	assert_int_equal(tt_mpi_trace_init(&t, 2, "test"), 0);
	ev(&t, 0, TT_MPI_ISEND, 1, 0, 1, 5);
	ev(&t, 0, TT_MPI_WAIT, 0, 0, 0, 99);
	refused(&t, "rank 0 event 1", "request 99");
	tt_mpi_trace_free(&t);

	/* a second wait on a completed request */
	assert_int_equal(tt_mpi_trace_init(&t, 2, "test"), 0);
	ev(&t, 1, TT_MPI_ISEND, 0, 0, 1, 5);
	ev(&t, 1, TT_MPI_WAIT, 0, 0, 0, 5);
	ev(&t, 1, TT_MPI_WAIT, 0, 0, 0, 5);
	recv(&t, 0, 1, 0);
	refused(&t, "rank 1 event 2", "request 5");
	tt_mpi_trace_free(&t);

	assert_int_equal(tt_mpi_trace_init(&t, 2, "test"), 0);
	send(&t, 0, 2, 0, 1);
	refused(&t, "rank 0 event 0", "peer 2 is outside communicator 0");
	tt_mpi_trace_free(&t);

	assert_int_equal(tt_mpi_trace_init(&t, 2, "test"), 0);
	coll(&t, 0, TT_COLL_REDUCE, 0, 7, 1);
	coll(&t, 1, TT_COLL_REDUCE, 0, 7, 1);
	refused(&t, "rank 0 event 0", "root 7 is outside communicator 0");
	tt_mpi_trace_free(&t);

	assert_int_equal(tt_mpi_trace_init(&t, 2, "test"), 0);
	memset(&e, 0, sizeof(e));
	e.kind = TT_MPI_SEND;
	e.comm = 3;
	assert_int_equal(tt_mpi_trace_add(&t, 1, &e), 0);
	refused(&t, "rank 1 event 0", "communicator 3 is not defined");
	assert_int_equal(tt_mpi_trace_add(&t, 2, &e), -1);
	tt_mpi_trace_free(&t);
}

/* deps.h's limits: 4 GiB and a day of gap taken, one more refused. */
static void
test_limits(void **state)
{
	static struct lines ls;
	tt_mpi_trace t;

	(void)state;
	assert_int_equal(tt_mpi_trace_init(&t, 2, "test"), 0);
	compute(&t, 0, TT_DEPS_NS_MAX);
	send(&t, 0, 1, 0, TT_DEPS_BYTES_MAX);
	recv(&t, 1, 0, 0);
	convert(&t, &ls);
	assert_int_equal(ls.rc, 0);
	assert_int_equal(ls.l[0].bytes, TT_DEPS_BYTES_MAX);
	assert_int_equal(ls.l[0].gap, TT_DEPS_NS_MAX);
	tt_mpi_trace_free(&t);

	assert_int_equal(tt_mpi_trace_init(&t, 2, "test"), 0);
	send(&t, 0, 1, 0, TT_DEPS_BYTES_MAX + 1);
	recv(&t, 1, 0, 0);
	refused(&t, "rank 0 event 0", "4294967297 bytes");
	tt_mpi_trace_free(&t);

	assert_int_equal(tt_mpi_trace_init(&t, 2, "test"), 0);
	compute(&t, 0, TT_DEPS_NS_MAX);
	compute(&t, 0, 1);
	send(&t, 0, 1, 0, 1);
	recv(&t, 1, 0, 0);
	refused(&t, "rank 0 event 2", "more than a day of compute");
	tt_mpi_trace_free(&t);

	/* a huge compute before a receive is no send's gap */
	assert_int_equal(tt_mpi_trace_init(&t, 2, "test"), 0);
	compute(&t, 0, UINT64_MAX);
	compute(&t, 0, UINT64_MAX);
	recv(&t, 0, 1, 0);
	send(&t, 0, 1, 0, 1);
	send(&t, 1, 0, 0, 1);
	recv(&t, 1, 0, 0);
	convert(&t, &ls);
	assert_int_equal(ls.rc, 0);
	assert_int_equal(find(&ls, 0, 0)->gap, 0);
	tt_mpi_trace_free(&t);
}

/* Streaming order on a pipeline written backwards: rank 7 waits for 6,
 * which waits for 5, ...; each message still comes before the line that
 * names it (convert() checks), and the totals count each once. */
static void
test_pipeline_order(void **state)
{
	static struct lines ls;
	tt_mpi_trace t;
	tt_mpi_totals tot;
	char err[256];
	uint32_t r, it;

	(void)state;
	assert_int_equal(tt_mpi_trace_init(&t, 8, "test"), 0);
	for (it = 0; it < 10; it++)
		for (r = 0; r < 8; r++) {
			if (r > 0)
				recv(&t, r, r - 1, 0);
			compute(&t, r, 1);
			if (r < 7)
				send(&t, r, r + 1, 0, 100);
		}
	convert(&t, &ls);
	assert_int_equal(ls.rc, 0);
	assert_int_equal(ls.n, 70);
	assert_int_equal(tt_mpi_totals_get(&t, &tot, err, sizeof(err)), 0);
	assert_int_equal(tot.messages, 70);
	assert_int_equal(tot.p2p_messages, 70);
	assert_int_equal(tot.bytes, 7000);
	assert_int_equal(tot.collectives, 0);
	assert_int_equal(tot.compute_ns, 80);
	tt_mpi_trace_free(&t);
}

/* The readers' dispatch: an .otf2 anchor is OTF2's (a missing one named
 * as such), anything else is not an MPI-level trace. */
static void
test_read_dispatch(void **state)
{
	tt_mpi_trace t;
	char err[512];

	(void)state;
	assert_int_equal(tt_mpi_trace_is("run/traces.otf2"), 1);
	assert_int_equal(tt_mpi_trace_is("run/traces.def"), 0);
	assert_int_equal(tt_mpi_trace_is(".otf2"), 0);
	assert_int_equal(tt_mpi_trace_is("capture.pcap"), 0);
	assert_int_equal(tt_mpi_trace_read(&t, "/nonexistent/traces.otf2", 0,
	    err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/traces.otf2"));
	assert_int_equal(t.nranks, 0);
	assert_int_equal(tt_mpi_trace_read(&t, "capture.pcap", 0, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "capture.pcap: not an MPI-level trace"));
	tt_mpi_trace_free(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blocking_pair),
		cmocka_unit_test(test_fifo_per_tag),
		cmocka_unit_test(test_nonblocking),
		cmocka_unit_test(test_gaps),
		cmocka_unit_test(test_subcommunicator),
		cmocka_unit_test(test_collective_counts),
		cmocka_unit_test(test_collective_dependencies),
		cmocka_unit_test(test_collective_channel),
		cmocka_unit_test(test_unmatched_receive),
		cmocka_unit_test(test_deadlock),
		cmocka_unit_test(test_framing),
		cmocka_unit_test(test_bad_requests_and_peers),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_pipeline_order),
		cmocka_unit_test(test_read_dispatch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
