/*
 * The message layer under open-loop replay, causal replay and motifs
 * (lib/sources/msgsrc.h), driven by hand through the engine's delivery
 * hook:
 *   - packets: a message of B bytes is ceil(B / packet bytes) packets, at
 *     least one, the last as many flits as its bytes fill, all with the
 *     release cycle and the tag the source gave; the layer says which was
 *     the last;
 *   - arrivals counted at the destination by (source, sequence): an entry
 *     completes at its last packet whatever order they came in, once, and
 *     stays (done, with its cycle) until the source drops it; a packet
 *     with no entry asks the source, which makes one or drops the packet;
 *   - arrivals counted at the source: the tag is the entry;
 *   - the counts land in the source's result where its fields say, the
 *     window bounds the packets and latencies it should, and a count a
 *     source does not keep goes nowhere;
 *   - ns and cycles, and the makespan's edge cases;
 *   - the reduction rows of each source's result over two ranks (sums
 *     double, the rest stay), and the engine's reducer in chunks smaller
 *     than a histogram gives what one call gives.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/sim_int.h"            /* the deliver hook, called by hand */
#include "sources/msgsrc.h"
#include "twintorus/params.h"
#include "tt_test.h"


/* A source's result with every count of the layer. */
struct res {
	uint64_t c[MSG_NCOUNTS];
	tt_hist lat;
	uint64_t own;
};

#define F(k) {k, offsetof(struct res, c) + (k) * sizeof(uint64_t), TT_SIM_SUM}
static const struct msg_field all_fields[] = {
	F(MSG_RELEASED), F(MSG_PK_SENT), F(MSG_FIRST_REL), F(MSG_LAST_REL),
	F(MSG_MESSAGES), F(MSG_PACKETS), F(MSG_BYTES), F(MSG_LAST_DONE),
	F(MSG_LAST_GEN), F(MSG_PK_WINDOW),
	{MSG_LATENCY, offsetof(struct res, lat), TT_SIM_SUM},
	{MSG_OWN, offsetof(struct res, own), TT_SIM_MAX},
};

struct src {
	struct msgsrc ms;
	struct res r;
	uint32_t done_id[8];
	uint64_t done_at[8];
	int ndone, nunknown, unknown_ok;
};

static void
on_done(void *ctx, uint32_t id, const tt_delivery *d)
{
	struct src *s = ctx;

	assert_true(s->ndone < 8);
	assert_true(msgsrc_entry(&s->ms, id)->done);
	assert_int_equal(msgsrc_entry(&s->ms, id)->done_at, d->deliver);
	s->done_id[s->ndone] = id;
	s->done_at[s->ndone++] = d->deliver;
}

static int
on_unknown(void *ctx, uint32_t src, uint32_t dst, uint32_t seq)
{
	struct src *s = ctx;

	s->nunknown++;
	if (!s->unknown_ok)
		return -1;
	return msgsrc_expect(&s->ms, src, dst, seq, 64) == MSGSRC_NONE ? -1 : 0;
}

static void
setup(struct src *s, tt_sim *sim, enum msg_where where, uint64_t warmup,
    uint64_t window_end)
{
	struct msgsrc_params p;
	char err[256];

	memset(s, 0, sizeof(*s));
	memset(&p, 0, sizeof(p));
	p.net.packet_flits = 4;
	p.net.flit_bytes = 16;      /* 64 bytes a packet */
	p.net.link_gbps = 10;       /* 12.8 ns a cycle */
	p.where = where;
	p.warmup = warmup;
	p.window_end = window_end;
	p.user_size = 12;
	p.res = &s->r;
	p.fields = all_fields;
	p.nfields = sizeof(all_fields) / sizeof(all_fields[0]);
	p.ctx = s;
	p.done = on_done;
	p.unknown = on_unknown;
	assert_int_equal(msgsrc_init(&s->ms, sim, &p, err, sizeof(err)), 0);
}

static void
deliver(tt_sim *sim, uint32_t src, uint32_t dst, uint32_t tag, uint64_t gen,
    uint64_t at)
{
	tt_delivery d = {src, dst, tag, 1, gen, gen, at};

	sim->on_deliver(sim->deliver_ctx, &d);
}

static void
test_packets(void **state)
{
	tt_net net;
	tt_sim *sim = tt_test_sim222(&net);
	struct src s;
	tt_srcpkt pk;
	int i;

	(void)state;
	setup(&s, sim, MSG_AT_DST, 0, 0);
	assert_int_equal(msgsrc_packets(&s.ms, 0), 1);
	assert_int_equal(msgsrc_packets(&s.ms, 64), 1);
	assert_int_equal(msgsrc_packets(&s.ms, 65), 2);
	assert_int_equal(msgsrc_packets(&s.ms, UINT64_C(1) << 40),
	    UINT64_C(1) << 34);
	assert_int_equal(s.r.c[MSG_FIRST_REL], UINT64_MAX);
	/* 129 bytes: two full packets and one of a single flit */
	assert_false(msgsrc_busy(&s.ms, 3));
	msgsrc_send(&s.ms, 3, 7, 42, 129, 500);
	for (i = 0; i < 3; i++) {
		assert_true(msgsrc_busy(&s.ms, 3));
		memset(&pk, 0, sizeof(pk));
		assert_int_equal(msgsrc_packet(&s.ms, 3, &pk), i == 2);
		assert_int_equal(pk.gen, 500);
		assert_int_equal(pk.dst, 7);
		assert_int_equal(pk.tag, 42);
		assert_int_equal(pk.flits, i == 2 ? 1 : 0);
	}
	assert_false(msgsrc_busy(&s.ms, 3));
	/* an empty message is one packet; a full last packet says 0 */
	msgsrc_send(&s.ms, 3, 1, 43, 0, 400);
	memset(&pk, 0, sizeof(pk));
	assert_int_equal(msgsrc_packet(&s.ms, 3, &pk), 1);
	msgsrc_send(&s.ms, 2, 1, 0, 128, 900);
	memset(&pk, 0, sizeof(pk));
	assert_int_equal(msgsrc_packet(&s.ms, 2, &pk), 0);
	assert_int_equal(msgsrc_packet(&s.ms, 2, &pk), 1);
	assert_int_equal(pk.flits, 0);
	assert_int_equal(s.r.c[MSG_RELEASED], 3);
	assert_int_equal(s.r.c[MSG_PK_SENT], 6);
	assert_int_equal(s.r.c[MSG_FIRST_REL], 400);
	assert_int_equal(s.r.c[MSG_LAST_REL], 900);
	/* time: 12.8 ns a cycle */
	assert_int_equal(msgsrc_cycles(&s.ms, 38.4), 3);
	assert_int_equal(msgsrc_cycles(&s.ms, 19.3), 2);
	assert_true(msgsrc_cycles_f(&s.ms, 6.4) == 0.5);
	assert_int_equal(msgsrc_ns(&s.ms, 10), 128);
	msgsrc_free(&s.ms);
	tt_sim_free(sim);
	tt_net_free(&net);
}

static void
test_arrivals_at_dst(void **state)
{
	tt_net net;
	tt_sim *sim = tt_test_sim222(&net);
	struct src s;
	uint32_t a, b;

	(void)state;
	setup(&s, sim, MSG_AT_DST, 0, 0);
	a = msgsrc_expect(&s.ms, 1, 5, 9, 150);        /* 3 packets */
	b = msgsrc_expect(&s.ms, 2, 5, 9, 10);         /* 1 packet */
	assert_int_not_equal(a, MSGSRC_NONE);
	assert_int_not_equal(a, b);
	assert_int_equal(msgsrc_find(&s.ms, 1, 9), a);
	assert_int_equal(msgsrc_find(&s.ms, 2, 9), b);
	assert_int_equal(msgsrc_find(&s.ms, 1, 8), MSGSRC_NONE);
	assert_int_equal(s.ms.live, 2);
	/* its packets in any order: complete at the third, once */
	deliver(sim, 1, 5, 9, 100, 130);
	deliver(sim, 1, 5, 9, 100, 120);
	assert_int_equal(s.ndone, 0);
	assert_false(msgsrc_entry(&s.ms, a)->done);
	deliver(sim, 1, 5, 9, 100, 125);
	assert_int_equal(s.ndone, 1);
	assert_int_equal(s.done_id[0], a);
	assert_int_equal(s.done_at[0], 125);
	/* the entry stays until dropped */
	assert_int_equal(msgsrc_find(&s.ms, 1, 9), a);
	msgsrc_drop(&s.ms, a);
	assert_int_equal(msgsrc_find(&s.ms, 1, 9), MSGSRC_NONE);
	assert_int_equal(s.ms.live, 1);
	deliver(sim, 2, 5, 9, 110, 118);
	assert_int_equal(s.ndone, 2);
	assert_int_equal(s.r.c[MSG_MESSAGES], 2);
	assert_int_equal(s.r.c[MSG_PACKETS], 4);
	assert_int_equal(s.r.c[MSG_BYTES], 160);
	assert_int_equal(s.r.c[MSG_LAST_DONE], 125);
	assert_int_equal(s.r.c[MSG_LAST_GEN], 110);
	assert_int_equal(s.r.c[MSG_PK_WINDOW], 4);
	assert_int_equal(s.r.lat.count, 2);
	assert_int_equal(s.r.lat.max, 25);
	assert_true(s.r.lat.sum == 25 + 8);
	/* a packet with no entry: the source drops it, or makes one */
	deliver(sim, 3, 5, 1, 200, 210);
	assert_int_equal(s.nunknown, 1);
	assert_int_equal(s.r.c[MSG_PK_WINDOW], 4);
	assert_int_equal(s.ndone, 2);
	s.unknown_ok = 1;
	deliver(sim, 3, 5, 1, 200, 211);
	assert_int_equal(s.nunknown, 2);
	assert_int_equal(s.ndone, 3);
	assert_int_equal(s.r.c[MSG_MESSAGES], 3);
	assert_int_equal(s.r.c[MSG_LAST_DONE], 211);
	/* a freed entry is reused, the layer's part afresh */
	msgsrc_drop(&s.ms, b);
	a = msgsrc_expect(&s.ms, 4, 6, 0, 1);
	assert_int_equal(a, b);
	assert_false(msgsrc_entry(&s.ms, a)->done);
	assert_int_equal(msgsrc_entry(&s.ms, a)->got, 0);
	assert_int_equal(msgsrc_entry(&s.ms, a)->src, 4);
	/* (3, 1) took the first's, dropped before it came */
	assert_int_equal(msgsrc_entries(&s.ms), 2);
	assert_int_equal(s.r.own, 0);     /* the source's own: untouched */
	msgsrc_free(&s.ms);
	tt_sim_free(sim);
	tt_net_free(&net);
}

static void
test_arrivals_at_src_and_window(void **state)
{
	tt_net net;
	tt_sim *sim = tt_test_sim222(&net);
	struct src s;
	uint32_t a, b;

	(void)state;
	/* window [100, 200): packets by arrival, latency by generation */
	setup(&s, sim, MSG_AT_SRC, 100, 200);
	a = msgsrc_expect(&s.ms, 0, 4, 0, 100);        /* 2 packets */
	b = msgsrc_expect(&s.ms, 0, 4, 0, 100);
	assert_int_equal(msgsrc_find(&s.ms, 0, 0), MSGSRC_NONE);
	deliver(sim, 0, 4, b, 90, 150);
	deliver(sim, 0, 4, a, 150, 190);
	deliver(sim, 0, 4, a, 150, 260);
	assert_int_equal(s.ndone, 1);
	assert_int_equal(s.done_id[0], a);
	deliver(sim, 0, 4, b, 90, 199);
	assert_int_equal(s.ndone, 2);
	assert_int_equal(s.done_id[1], b);
	assert_int_equal(s.nunknown, 0);
	assert_int_equal(s.r.c[MSG_PK_WINDOW], 3);
	assert_int_equal(s.r.c[MSG_MESSAGES], 2);
	assert_int_equal(s.r.lat.count, 1);      /* generated at 90: outside */
	assert_int_equal(s.r.lat.max, 110);
	assert_int_equal(s.r.c[MSG_LAST_DONE], 260);
	assert_int_equal(s.r.c[MSG_LAST_GEN], 150);
	msgsrc_free(&s.ms);
	tt_sim_free(sim);
	tt_net_free(&net);
}

/* A source that keeps only some counts: the rest go nowhere. */
static void
test_counts_not_kept(void **state)
{
	static const struct msg_field few[] = {
		{MSG_MESSAGES, 0, TT_SIM_SUM},
	};
	tt_net net;
	tt_sim *sim = tt_test_sim222(&net);
	struct msgsrc_params p;
	uint64_t messages[2] = {0, 77};
	struct src s;
	tt_srcpkt pk;
	char err[256];

	(void)state;
	memset(&p, 0, sizeof(p));
	memset(&s, 0, sizeof(s));
	p.net.packet_flits = 1;
	p.net.flit_bytes = 1;
	p.net.link_gbps = 1;
	p.where = MSG_AT_SRC;
	p.res = messages;
	p.fields = few;
	p.nfields = 1;
	p.ctx = &s;
	p.done = on_done;
	assert_int_equal(msgsrc_init(&s.ms, sim, &p, err, sizeof(err)), 0);
	assert_int_equal(msgsrc_expect(&s.ms, 0, 1, 0, 1), 0);
	msgsrc_send(&s.ms, 0, 1, 0, 1, 3);
	assert_int_equal(msgsrc_packet(&s.ms, 0, &pk), 1);
	deliver(sim, 0, 1, 0, 3, 9);
	assert_int_equal(messages[0], 1);
	assert_int_equal(messages[1], 77);
	assert_int_equal(s.ndone, 1);
	msgsrc_free(&s.ms);
	tt_sim_free(sim);
	tt_net_free(&net);
}

static void
test_makespan(void **state)
{
	(void)state;
	assert_int_equal(msgsrc_makespan(10, 19, 1), 10);
	assert_int_equal(msgsrc_makespan(10, 10, 1), 1);
	assert_int_equal(msgsrc_makespan(10, 19, 0), 0);
	assert_int_equal(msgsrc_makespan(UINT64_MAX, 19, 1), 0);
	assert_int_equal(msgsrc_makespan(20, 19, 1), 0);
}

/* A fake transport of two ranks with equal values: a sum doubles, the
 * rest stay. */
static void
fake_allgather(void *ctx, const uint64_t *mine, size_t n, uint64_t *all)
{
	(void)ctx;
	memcpy(all, mine, n * sizeof(uint64_t));
	memcpy(all + n, mine, n * sizeof(uint64_t));
}

static int ncalls;

static void
fake_allreduce(void *ctx, uint64_t *v, size_t n, enum tt_sim_op op)
{
	size_t i;

	(void)ctx;
	ncalls++;
	if (op == TT_SIM_SUM)
		for (i = 0; i < n; i++)
			v[i] *= 2;
}

static void
test_reduce_rows(void **state)
{
	static const int k44[2] = {4, 4};
	tt_sim_comm comm = {0, 2, 0, NULL, fake_allgather, fake_allreduce, NULL};
	tt_causal_result cr, cmine;
	tt_motif_result mr, mmine;
	tt_simparams p;
	tt_net net;
	tt_sim *sim;
	char err[256];

	(void)state;
	tt_test_net(&net, 2, k44, 0, NULL, TT_DL_VC);
	tt_simparams_default(&p);
	if (tt_sim_create_part(&sim, &net, &p, &comm, err, sizeof(err)) != 0)
		fail_msg("tt_sim_create_part: %s", err);
	memset(&cmine, 0, sizeof(cmine));
	cmine.rr.messages = 3;
	cmine.rr.packets = 5;
	cmine.rr.last_done = 11;
	cmine.rr.last_gen = 13;
	cmine.rr.max_pending = 17;
	cmine.first_gen = 2;
	cmine.lines = 23;
	cmine.waited = 29;
	cmine.ignored = 31;
	cmine.cp_compute = 37;
	tt_hist_add(&cmine.rr.latency, 5);
	cr = cmine;
	tt_causal_reduce(sim, &cr);
	assert_int_equal(cr.rr.messages, 6);
	assert_int_equal(cr.rr.packets, 10);
	assert_int_equal(cr.rr.last_done, 11);
	assert_int_equal(cr.rr.last_gen, 13);
	assert_int_equal(cr.rr.max_pending, 17);
	assert_int_equal(cr.first_gen, 2);
	assert_int_equal(cr.lines, 23);         /* every rank read them all */
	assert_int_equal(cr.waited, 58);
	assert_int_equal(cr.ignored, 62);
	assert_int_equal(cr.cp_compute, 37);
	assert_int_equal(cr.rr.latency.count, 2);
	assert_int_equal(cr.rr.latency.max, 5);

	memset(&mmine, 0, sizeof(mmine));
	mmine.sent = 3;
	mmine.messages = 5;
	mmine.bytes = 7;
	mmine.packets = 11;
	mmine.first_send = 13;
	mmine.last_delivery = 17;
	mmine.finish = 19;
	mmine.done = 23;
	tt_hist_add(&mmine.latency, 40000);
	mr = mmine;
	tt_motif_reduce(sim, &mr);
	assert_int_equal(mr.sent, 6);
	assert_int_equal(mr.messages, 10);
	assert_int_equal(mr.bytes, 14);
	assert_int_equal(mr.packets, 22);
	assert_int_equal(mr.first_send, 13);
	assert_int_equal(mr.last_delivery, 17);
	assert_int_equal(mr.finish, 19);
	assert_int_equal(mr.done, 46);
	assert_int_equal(mr.latency.count, 2);
	assert_int_equal(mr.latency.max, 40000);
	tt_sim_free(sim);
	tt_net_free(&net);
}

/* The engine's reducer with scratch for 3 words: the same as with room
 * for all, in more transport calls. */
static void
test_reduce_chunks(void **state)
{
	static const tt_sim_row rows[] = {
		TT_SIM_ROW(tt_replay_result, messages, TT_SIM_SUM),
		TT_SIM_ROW_HIST(tt_replay_result, latency),
		TT_SIM_ROW(tt_replay_result, last_done, TT_SIM_MAX),
		TT_SIM_ROW(tt_replay_result, bytes, TT_SIM_SUM),
	};
	tt_sim_comm comm = {0, 2, 0, NULL, fake_allgather, fake_allreduce, NULL};
	size_t n = sizeof(rows) / sizeof(rows[0]);
	size_t words = sim_reduce_words(rows, n);
	tt_replay_result a, b;
	uint64_t *buf = calloc(words, sizeof(uint64_t));
	int calls_one;

	(void)state;
	assert_non_null(buf);
	assert_int_equal(words, 3 + 3 + TT_HIST_BINS);
	memset(&a, 0, sizeof(a));
	a.messages = 4;
	a.last_done = 99;
	a.bytes = 1000;
	tt_hist_add(&a.latency, 7);
	tt_hist_add(&a.latency, 7000);
	b = a;
	ncalls = 0;
	sim_reduce_all(&comm, rows, n, &a, buf, words);
	calls_one = ncalls;
	assert_int_equal(calls_one, 2);         /* sums, maxes */
	ncalls = 0;
	sim_reduce_all(&comm, rows, n, &b, buf, 3);
	assert_true(ncalls > calls_one);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_equal(a.messages, 8);
	assert_int_equal(a.bytes, 2000);
	assert_int_equal(a.last_done, 99);
	assert_int_equal(a.latency.count, 4);
	assert_int_equal(a.latency.max, 7000);
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_packets),
		cmocka_unit_test(test_arrivals_at_dst),
		cmocka_unit_test(test_arrivals_at_src_and_window),
		cmocka_unit_test(test_counts_not_kept),
		cmocka_unit_test(test_makespan),
		cmocka_unit_test(test_reduce_rows),
		cmocka_unit_test(test_reduce_chunks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
