/*
 * The simulator against exact facts: zero-load latency equals
 * the formula of sim.h, every packet is delivered exactly once, accepted
 * load equals offered load below saturation, the same seed gives the same
 * numbers, vc and bubble never deadlock, and under none the watchdog
 * catches a real cycle of the channel dependency graph, including the one
 * of seed 000 Example 6.1.  Shaped links against timings worked out by
 * hand: a full bucket costs nothing, a stream gets its burst at line rate
 * and then the bucket's rate, an idle link's bucket is full again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <malloc.h>

#include "engine/sim_int.h"            /* lib/: test_check_routes_nd() edits a table */
#include "sources/msgsrc.h"            /* lib/: tt_replay_reduce() */
#include "twintorus/analyze.h"
#include "twintorus/params.h"
#include "twintorus/sim.h"
#include "twintorus/traffic.h"
#include "tt_test.h"

/* Links between switches that tt_route() takes from src to dst. */
static int
route_links(const tt_net *net, uint32_t src, uint32_t dst)
{
	uint32_t card = src;
	int in = TT_PORT_NIC, links = 0, pp;
	tt_hop h;

	for (;;) {
		h = tt_route(net, card, dst, in);
		if (h.port == TT_PORT_NIC)
			return links;
		card = tt_link_peer(net, card, h.port, &pp);
		in = pp;
		links++;
		assert_true(links < 1000);
	}
}

/*
 * A planned source: per PE a list of (gen, dst) in order.  The engine asks
 * for one packet at a time per PE, in order.
 */
struct plan {
	uint32_t npes;
	uint32_t *off, *fill;     /* per PE: entries off[pe] .. off[pe+1] */
	uint64_t *gen;
	uint32_t *dst;
};

static int
plan_next(void *ctx, uint32_t pe, uint64_t now, tt_srcpkt *pk)
{
	struct plan *p = ctx;
	uint32_t i = p->off[pe] + p->fill[pe];

	(void)now;
	if (i >= p->off[pe + 1])
		return TT_SRC_DONE;
	p->fill[pe]++;
	pk->gen = p->gen[i];
	pk->dst = p->dst[i];
	return TT_SRC_PACKET;
}

/* Packet j goes from src[j] to dst[j] at cycle j * gap. */
static void
plan_build(struct plan *p, uint32_t npes, const uint32_t *src,
    const uint32_t *dst, size_t n, uint64_t gap)
{
	size_t j;
	uint32_t pe, *pos;

	p->npes = npes;
	p->off = calloc((size_t)npes + 1, sizeof(uint32_t));
	p->fill = calloc(npes, sizeof(uint32_t));
	p->gen = calloc(n, sizeof(uint64_t));
	p->dst = calloc(n, sizeof(uint32_t));
	pos = calloc(npes, sizeof(uint32_t));
	assert_non_null(p->off);
	assert_non_null(pos);
	for (j = 0; j < n; j++)
		p->off[src[j] + 1]++;
	for (pe = 0; pe < npes; pe++)
		p->off[pe + 1] += p->off[pe];
	for (j = 0; j < n; j++) {
		uint32_t i = p->off[src[j]] + pos[src[j]]++;

		p->gen[i] = (uint64_t)j * gap;
		p->dst[i] = dst[j];
	}
	free(pos);
}

static void
plan_free(struct plan *p)
{
	free(p->off);
	free(p->fill);
	free(p->gen);
	free(p->dst);
}

struct zl_check {
	const tt_net *net;
	const tt_simparams *p;
	uint64_t seen;
	int bad;
	int booksim;    /* want 6H + 10, not the formula */
};

static void
zl_deliver(void *ctx, const tt_delivery *d)
{
	struct zl_check *z = ctx;
	uint32_t src = d->src, dst = d->dst;
	uint64_t gen = d->gen, inject = d->inject, deliver = d->deliver;
	int hops = d->hops;
	int R = z->p->router_latency, L = z->p->link_latency;
	int P = z->p->net.packet_flits, H = route_links(z->net, src, dst);
	uint64_t want = (uint64_t)((H + 1) * (R + L) + L + P - 1);

	if (z->booksim)
		want = (uint64_t)(6 * H + 10);
	z->seen++;
	if (hops != H || inject != gen || deliver - inject != want) {
		if (z->bad++ < 5)
			print_error("%u->%u: hops %d (route %d), injected %llu "
			    "(gen %llu), latency %llu, formula %llu\n", src, dst,
			    hops, H, (unsigned long long)inject,
			    (unsigned long long)gen,
			    (unsigned long long)(deliver - inject),
			    (unsigned long long)want);
	}
}

/* shape_rate, shape_burst: every link between switches shaped (0: not). */
static void
zero_load_check(int n, const int *k, int twin, const char *ports,
    enum tt_deadlock dl, int R, int L, int P, int booksim,
    uint32_t shape_rate, uint32_t shape_burst)
{
	tt_net net;
	tt_simparams p;
	tt_sim *sim;
	tt_simresult res;
	struct plan plan;
	struct zl_check z;
	uint32_t *src, *dst, npes;
	size_t npk = 0, j;
	tt_source s = {plan_next, &plan};
	char err[256];

	tt_test_net(&net, n, k, twin, ports, dl);
	npes = net.ncards;
	src = calloc((size_t)npes * npes, sizeof(uint32_t));
	dst = calloc((size_t)npes * npes, sizeof(uint32_t));
	assert_non_null(src);
	assert_non_null(dst);
	/* every ordered pair of distinct PEs, one packet at a time */
	for (j = 0; j < (size_t)npes * npes; j++) {
		if (j / npes == j % npes)
			continue;
		src[npk] = (uint32_t)(j / npes);
		dst[npk] = (uint32_t)(j % npes);
		npk++;
	}
	tt_simparams_default(&p);
	p.router_latency = R;
	p.link_latency = L;
	p.net.packet_flits = P;
	p.net.buffer_flits = 32 * P;
	p.shape_rate = shape_rate;
	p.shape_burst = shape_burst;
	plan_build(&plan, npes, src, dst, npk, 200);
	assert_int_equal(tt_sim_create(&sim, &net, &p, err, sizeof(err)), 0);
	memset(&z, 0, sizeof(z));
	z.net = &net;
	z.p = &p;
	z.booksim = booksim;
	assert_int_equal(tt_sim_on_deliver(sim, zl_deliver, &z, NULL, 0), 0);
	assert_int_equal(tt_sim_run(sim, &s, 1, &res, NULL, NULL), 0);
	assert_int_equal(z.bad, 0);
	assert_int_equal(z.seen, npk);
	assert_int_equal(res.delivered, npk);
	tt_simresult_free(&res);
	tt_sim_free(sim);
	plan_free(&plan);
	free(src);
	free(dst);
	tt_net_free(&net);
}

static void
zero_load_case(int n, const int *k, int twin, const char *ports,
    enum tt_deadlock dl, int R, int L, int P)
{
	zero_load_check(n, k, twin, ports, dl, R, L, P, 0, 0, 0);
}

static void
test_zero_load_latency(void **state)
{
	static const int k444[3] = {4, 4, 4}, k33[2] = {3, 3};
	static const int k3333[4] = {3, 3, 3, 3}, k534[3] = {5, 3, 4};

	(void)state;
	zero_load_case(3, k444, 1, "D", TT_DL_VC, 1, 1, 4);
	zero_load_case(3, k444, 1, "A", TT_DL_BUBBLE, 1, 1, 4);
	zero_load_case(3, k534, 1, "G", TT_DL_VC, 2, 3, 5);
	zero_load_case(2, k33, 0, NULL, TT_DL_VC, 1, 1, 4);
	zero_load_case(3, k444, 0, NULL, TT_DL_BUBBLE, 3, 2, 1);
	zero_load_case(4, k3333, 1, "best", TT_DL_VC, 1, 1, 4);
}

/*
 * BookSim2's input-queued router with 4 pipeline stages and 2-cycle
 * channels, 4-flit packets, has a zero-load latency of 6H + 10 cycles on a
 * torus, H the hops between routers (measured outside this project with
 * BookSim2 at 28f43299).  With R = 5 (and L = 1, P = 4) the formula gives
 * (H + 1)(5 + 1) + 1 + 3 = 6H + 10: every pair of PEs, plain tori of 2
 * and 3 dimensions, both schemes.
 */
static void
test_zero_load_booksim(void **state)
{
	static const int k88[2] = {8, 8}, k444[3] = {4, 4, 4};

	(void)state;
	zero_load_check(2, k88, 0, NULL, TT_DL_VC, 5, 1, 4, 1, 0, 0);
	zero_load_check(3, k444, 0, NULL, TT_DL_VC, 5, 1, 4, 1, 0, 0);
	zero_load_check(3, k444, 0, NULL, TT_DL_BUBBLE, 5, 1, 4, 1, 0, 0);
}

/* The simulator's compact tables give exactly what tt_route() gives. */
static void
test_routes_equal_tt_route(void **state)
{
	static const int k444[3] = {4, 4, 4}, k534[3] = {5, 3, 4};
	static const int k33[2] = {3, 3}, k2345[4] = {2, 3, 4, 5};
	char letter[2] = {0, 0};
	tt_simparams p;
	tt_net net;
	tt_sim *sim;
	char err[256];
	int c, dl;

	(void)state;
	tt_simparams_default(&p);
	for (dl = TT_DL_VC; dl <= TT_DL_NONE; dl++) {
		for (c = 0; c < 10; c++) {
			letter[0] = (char)('A' + c);
			tt_test_net(&net, 3, c % 2 ? k534 : k444, 1, letter,
			    (enum tt_deadlock)dl);
			assert_int_equal(tt_sim_create(&sim, &net, &p, err, sizeof(err)), 0);
			if (tt_sim_check_routes(sim) != 0)
				fail_msg("%s %s: tables differ from tt_route()",
				    letter, tt_deadlock_name((enum tt_deadlock)dl));
			tt_sim_free(sim);
			tt_net_free(&net);
		}
		tt_test_net(&net, 2, k33, 0, NULL, (enum tt_deadlock)dl);
		assert_int_equal(tt_sim_create(&sim, &net, &p, err, sizeof(err)), 0);
		assert_int_equal(tt_sim_check_routes(sim), 0);
		tt_sim_free(sim);
		tt_net_free(&net);
		tt_test_net(&net, 4, k2345, 1, "best", (enum tt_deadlock)dl);
		assert_int_equal(tt_sim_create(&sim, &net, &p, err, sizeof(err)), 0);
		assert_int_equal(tt_sim_check_routes(sim), 0);
		tt_sim_free(sim);
		tt_net_free(&net);
	}
}

/*
 * tt_sim_check_routes() looks at every input port of an n-D network, not
 * only the six of a 3D one.  In a 4D bubble network, the hops that enter
 * or continue dimension 3's ring are made to claim dimension 7: only a
 * packet that arrives on d3+ or d3- (ports 6 and 7) would get another
 * bubble condition from them (it continues the ring, so needs no bubble,
 * but the table now says it enters one), so only a check of those ports
 * finds the difference.
 */
static void
test_check_routes_nd(void **state)
{
	static const int k[4] = {3, 2, 2, 3};
	tt_simparams p;
	tt_net net;
	tt_sim *sim;
	char err[256];
	uint32_t s;
	int v, changed = 0;

	(void)state;
	tt_simparams_default(&p);
	tt_test_net(&net, 4, k, 1, "best", TT_DL_BUBBLE);
	assert_int_equal(tt_sim_create(&sim, &net, &p, err, sizeof(err)), 0);
	assert_int_equal(tt_sim_check_routes(sim), 0);
	for (s = 0; s < net.ncards; s++)
		for (v = 0; v < k[3]; v++) {
			tt_hop *h = &sim_table_row(sim, s, 3)[v];

			if (h->type == TT_HOP_EXT && h->dim == 3) {
				h->dim = TT_MAX_DIMS - 1;
				changed++;
			}
		}
	assert_true(changed > 0);
	assert_int_equal(tt_sim_check_routes(sim), -1);
	tt_sim_free(sim);
	tt_net_free(&net);
}

/*
 * The simulator keeps one copy of each distinct routing row: on a twin
 * torus a dimension's row depends on the card's side and its digit there,
 * so 3DT 8x8x8 has 2 x 8 distinct rows per dimension among its 1,024
 * switches, and the shared tables still route as tt_route() does.
 */
static void
test_rows_shared(void **state)
{
	static const int k[3] = {8, 8, 8};
	tt_simparams p;
	tt_net net;
	tt_sim *sim;
	char err[256];
	const tt_hop *seen[64];
	uint32_t s;
	int d, i, n;

	(void)state;
	tt_simparams_default(&p);
	tt_test_net(&net, 3, k, 1, "D", TT_DL_VC);
	assert_int_equal(tt_sim_create(&sim, &net, &p, err, sizeof(err)), 0);
	assert_int_equal(tt_sim_check_routes(sim), 0);
	for (d = 0; d < 3; d++) {
		n = 0;
		for (s = 0; s < net.ncards; s++) {
			const tt_hop *row = sim_table_row(sim, s, d);

			for (i = 0; i < n && seen[i] != row; i++)
				;
			if (i == n) {
				assert_true(n < 64);
				seen[n++] = row;
			}
		}
		assert_int_equal(n, 2 * k[d]);
	}
	tt_sim_free(sim);
	tt_net_free(&net);
}

/*
 * The prefetching cycle loop of large networks (sim->big) only reads: the
 * same run with and without it gives the same numbers, on a twin torus
 * under vc and under bubble (whose lanes take the ext loop).
 */
static void
prefetch_case(const char *ports, enum tt_deadlock dl)
{
	static const int k[3] = {4, 4, 4};
	tt_simresult r[2];
	tt_simparams p;
	tt_traffic tr;
	tt_source src;
	tt_net net;
	tt_sim *sim;
	char err[256];
	int big;

	tt_simparams_default(&p);
	p.measure = 3000;
	tt_test_net(&net, 3, k, 1, ports, dl);
	for (big = 0; big < 2; big++) {
		tt_traffic_default(&tr);
		tr.load = 0.35;
		tr.packet_flits = p.net.packet_flits;
		assert_int_equal(tt_traffic_init(&tr, &net, err, sizeof(err)), 0);
		src = tt_traffic_source(&tr);
		assert_int_equal(tt_sim_create(&sim, &net, &p, err,
		    sizeof(err)), 0);
		assert_false(sim->big);
		sim->big = big;
		tt_sim_run(sim, &src, 0, &r[big], NULL, NULL);
		tt_sim_free(sim);
		tt_traffic_free(&tr);
	}
	assert_true(r[0].traversals > 0);
	assert_int_equal(r[0].cycles, r[1].cycles);
	assert_int_equal(r[0].delivered, r[1].delivered);
	assert_int_equal(r[0].traversals, r[1].traversals);
	assert_int_equal(r[0].internal_flits, r[1].internal_flits);
	assert_memory_equal(&r[0].e2e_lat, &r[1].e2e_lat, sizeof(r[0].e2e_lat));
	assert_memory_equal(&r[0].net_lat, &r[1].net_lat, sizeof(r[0].net_lat));
	tt_simresult_free(&r[0]);
	tt_simresult_free(&r[1]);
	tt_net_free(&net);
}

static void
test_prefetch_same(void **state)
{
	(void)state;
	prefetch_case("D", TT_DL_VC);
	prefetch_case("A", TT_DL_BUBBLE);
}

/* ---- conservation: each packet delivered exactly once ---- */

struct once {
	uint32_t npes;
	uint64_t horizon;
	uint8_t *seen;          /* (src, gen) -> deliveries */
	tt_source inner;
	uint64_t generated;
	int bad;
};

static int
once_next(void *ctx, uint32_t pe, uint64_t now, tt_srcpkt *pk)
{
	struct once *o = ctx;
	int r = o->inner.next(o->inner.ctx, pe, now, pk);

	if (r == TT_SRC_PACKET) {
		assert_true(pk->gen < o->horizon);
		assert_true(pk->dst != pe && pk->dst < o->npes);
		o->generated++;
	}
	return r;
}

static void
once_deliver(void *ctx, const tt_delivery *d)
{
	struct once *o = ctx;
	uint8_t *c = &o->seen[(size_t)d->src * o->horizon + d->gen];

	if (*c != 0 || d->inject < d->gen || d->deliver <= d->inject)
		o->bad++;
	(*c)++;
}

static void
conservation_case_p(const char *ports, enum tt_deadlock dl, double load,
    int L, int R)
{
	static const int k[3] = {4, 4, 4};
	tt_net net;
	tt_simparams p;
	tt_sim *sim;
	tt_simresult res;
	tt_traffic tr;
	struct once o;
	tt_source s = {once_next, &o};
	char err[256];
	uint64_t delivered = 0;
	size_t i;

	tt_test_net(&net, 3, k, 1, ports, dl);
	tt_simparams_default(&p);
	p.link_latency = L;
	p.router_latency = R;
	tt_traffic_default(&tr);
	tr.load = load;
	tr.stop = 3000;
	tr.seed = 7;
	assert_int_equal(tt_traffic_init(&tr, &net, err, sizeof(err)), 0);
	memset(&o, 0, sizeof(o));
	o.npes = net.ncards;
	o.horizon = tr.stop;
	o.seen = calloc((size_t)o.npes * o.horizon, 1);
	assert_non_null(o.seen);
	o.inner = tt_traffic_source(&tr);
	assert_int_equal(tt_sim_create(&sim, &net, &p, err, sizeof(err)), 0);
	assert_int_equal(tt_sim_on_deliver(sim, once_deliver, &o, NULL, 0), 0);
	assert_int_equal(tt_sim_run(sim, &s, 1, &res, NULL, NULL), 0);
	assert_int_equal(o.bad, 0);
	assert_true(o.generated > (load < 0.1 ? 100 : 1000));
	assert_int_equal(res.generated, o.generated);
	assert_int_equal(res.injected, o.generated);
	assert_int_equal(res.delivered, o.generated);
	for (i = 0; i < (size_t)o.npes * o.horizon; i++) {
		assert_true(o.seen[i] <= 1);
		delivered += o.seen[i];
	}
	assert_int_equal(delivered, o.generated);
	free(o.seen);
	tt_simresult_free(&res);
	tt_sim_free(sim);
	tt_traffic_free(&tr);
	tt_net_free(&net);
}

static void
conservation_case(const char *ports, enum tt_deadlock dl, double load)
{
	conservation_case_p(ports, dl, load, 1, 1);
}

static void
test_every_packet_delivered_once(void **state)
{
	(void)state;
	conservation_case("D", TT_DL_VC, 0.3);
	conservation_case("D", TT_DL_BUBBLE, 0.3);
	/* far above saturation: the network fills up, then drains */
	conservation_case("A", TT_DL_VC, 1.0);
	conservation_case("A", TT_DL_BUBBLE, 1.0);
}

/* ---- a hardware model: long links, short packets, host overheads ---- */

/*
 * A source of n packets from PE src to PE dst, all generated in cycle 0,
 * of `flits` flits each (0: the engine's P).  It checks that the engine
 * cleared pk->flits before asking.  The deliveries are kept.
 */
struct hw {
	uint32_t src, dst, n, sent, seen;
	uint32_t flits;
	int unclear;
	uint64_t last;          /* the latest delivery */
	tt_delivery d;          /* the first one */
};

static int
hw_next(void *ctx, uint32_t pe, uint64_t now, tt_srcpkt *pk)
{
	struct hw *h = ctx;

	(void)now;
	if (pk->flits != 0)
		h->unclear++;
	if (pe != h->src || h->sent == h->n)
		return TT_SRC_DONE;
	h->sent++;
	pk->gen = 0;
	pk->dst = h->dst;
	pk->flits = h->flits;
	return TT_SRC_PACKET;
}

static void
hw_deliver(void *ctx, const tt_delivery *d)
{
	struct hw *h = ctx;

	if (h->seen++ == 0)
		h->d = *d;
	if (d->deliver > h->last)
		h->last = d->deliver;
}

/* Run h's packets on net under p until empty; res kept for the caller. */
static void
hw_run(const tt_net *net, const tt_simparams *p, struct hw *h,
    tt_simresult *res)
{
	tt_source s = {hw_next, h};
	tt_sim *sim;
	char err[256];

	h->sent = h->seen = 0;
	h->unclear = 0;
	h->last = 0;
	if (tt_sim_create(&sim, net, p, err, sizeof(err)) != 0)
		fail_msg("tt_sim_create: %s", err);
	assert_int_equal(tt_sim_on_deliver(sim, hw_deliver, h, NULL, 0), 0);
	assert_int_equal(tt_sim_run(sim, &s, 1, res, NULL, NULL), 0);
	assert_int_equal(h->seen, h->n);
	assert_int_equal(res->delivered, h->n);
	assert_int_equal(h->unclear, 0);
	tt_sim_free(sim);
}

/* One packet src -> dst: its network latency is sim.h's formula with f
 * flits, (H + 1)(R + L) + L + f - 1, and it crosses H + 1 switches. */
static void
one_packet_case(const tt_net *net, tt_simparams *p, uint32_t src,
    uint32_t dst, uint32_t flits)
{
	struct hw h;
	tt_simresult res;
	uint64_t H = (uint64_t)route_links(net, src, dst);
	uint64_t f = flits ? flits : (uint64_t)p->net.packet_flits;
	uint64_t want = (H + 1) * (uint64_t)(p->router_latency +
	    p->link_latency) + (uint64_t)p->link_latency + f - 1 +
	    (p->store_forward ? H * (f - 1) : 0);

	memset(&h, 0, sizeof(h));
	h.src = src;
	h.dst = dst;
	h.n = 1;
	h.flits = flits;
	hw_run(net, p, &h, &res);
	assert_int_equal(h.d.hops, (int)H);
	assert_int_equal(h.d.inject, p->send_overhead);
	assert_int_equal(h.d.deliver - h.d.inject, want + p->recv_overhead);
	assert_int_equal(h.d.deliver - h.d.gen, p->send_overhead + want +
	    p->recv_overhead);
	assert_int_equal(res.traversals, (H + 1) * f);
	/* the engine's own latencies are the delivery's */
	assert_int_equal(res.e2e_lat.count, 1);
	assert_int_equal((uint64_t)res.e2e_lat.sum, h.d.deliver - h.d.gen);
	assert_int_equal((uint64_t)res.net_lat.sum, h.d.deliver - h.d.inject);
	tt_simresult_free(&res);
}

/*
 * A software switch: L = 100000, R = 50000 cycles, far beyond the wheels
 * (sim_int.h), every packet and credit through the far lists.  One
 * packet at a time across plain and twin tori, both schemes: exactly the
 * zero-load latency of sim.h.
 */
static void
test_long_latency_zero_load(void **state)
{
	static const int k444[3] = {4, 4, 4}, k33[2] = {3, 3};
	tt_net net;
	tt_simparams p;
	uint32_t dst;

	(void)state;
	tt_simparams_default(&p);
	p.link_latency = 100000;
	p.router_latency = 50000;
	tt_test_net(&net, 3, k444, 0, NULL, TT_DL_VC);
	for (dst = 1; dst < net.ncards; dst += 7)
		one_packet_case(&net, &p, 0, dst, 0);
	tt_net_free(&net);
	tt_test_net(&net, 3, k444, 1, "D", TT_DL_BUBBLE);
	for (dst = 1; dst < net.ncards; dst += 13)
		one_packet_case(&net, &p, 3, dst, 0);
	tt_net_free(&net);
	/* 2^20 cycles a link, on a small torus (the loop still steps
	 * every cycle while a packet is in flight) */
	p.link_latency = 1 << 20;
	p.router_latency = 1 << 16;
	tt_test_net(&net, 2, k33, 0, NULL, TT_DL_VC);
	one_packet_case(&net, &p, 0, 4, 0);
	tt_net_free(&net);
}

/* A packet of f < P flits holds its links f cycles: latency (H + 1)(R + L)
 * + L + f - 1 and f flits a switch, short and long links alike. */
static void
test_short_packet_zero_load(void **state)
{
	static const int k444[3] = {4, 4, 4};
	tt_net net;
	tt_simparams p;
	uint32_t f;

	(void)state;
	tt_test_net(&net, 3, k444, 1, "D", TT_DL_VC);
	tt_simparams_default(&p);
	p.net.packet_flits = 8;
	p.net.buffer_flits = 256;
	p.link_latency = 3;
	p.router_latency = 2;
	for (f = 1; f <= 8; f++)
		one_packet_case(&net, &p, 1, 100, f);
	p.link_latency = 5000;
	one_packet_case(&net, &p, 1, 100, 3);
	tt_net_free(&net);
}

/* Store and forward: each switch a link leads to waits for the tail,
 * H * (f - 1) more than cut-through, for full and short packets, near and
 * far, on short and long links. */
static void
test_store_forward_zero_load(void **state)
{
	static const int k444[3] = {4, 4, 4};
	tt_net net;
	tt_simparams p;
	uint32_t f, dst;

	(void)state;
	tt_test_net(&net, 3, k444, 1, "D", TT_DL_VC);
	tt_simparams_default(&p);
	p.net.packet_flits = 8;
	p.net.buffer_flits = 256;
	p.link_latency = 3;
	p.router_latency = 2;
	p.store_forward = 1;
	for (f = 1; f <= 8; f += 3)
		for (dst = 1; dst < net.ncards; dst += 37)
			one_packet_case(&net, &p, 0, dst, f);
	p.link_latency = 5000;
	one_packet_case(&net, &p, 1, 100, 0);
	/* the tail's wait puts the next switch's turn L + R + P - 1 = 37
	 * cycles after the grant, beyond the switch wheel's 30 (P = 24, R =
	 * 13, L = 1: a calibrated ttd): the far lists must carry it */
	p.net.packet_flits = 24;
	p.link_latency = 1;
	p.router_latency = 13;
	for (dst = 1; dst < net.ncards; dst += 37)
		one_packet_case(&net, &p, 0, dst, 0);
	tt_net_free(&net);
}

/* Host overheads: a packet reaches its NIC send_overhead cycles after it
 * was generated, and its PE has it recv_overhead after its tail arrived;
 * both are in the latencies. */
static void
test_endpoint_overheads(void **state)
{
	static const int k444[3] = {4, 4, 4};
	tt_net net;
	tt_simparams p;

	(void)state;
	tt_test_net(&net, 3, k444, 1, "D", TT_DL_VC);
	tt_simparams_default(&p);
	p.send_overhead = 37;
	p.recv_overhead = 1000;
	one_packet_case(&net, &p, 0, 77, 0);
	one_packet_case(&net, &p, 0, 77, 2);
	p.link_latency = 200;
	p.recv_overhead = 123456;
	one_packet_case(&net, &p, 5, 60, 0);
	tt_net_free(&net);
}

/*
 * A buffer per VC (vc_flits): the slots of every external port's VCs, of
 * the internal link's (int_vc_flits), and the PE's port keeping
 * buffer_flits; and what it means for flow control.  Plain 4x4x4 without
 * a deadlock scheme, one VC a port: n packets from a node to its X+
 * neighbour over a link of L = 1000, B = vc_flits / P slots.  A slot is
 * busy for a round trip of 2L + R + P - 1 (the packet's L + R to the far
 * switch, P - 1 to eject its tail, the credit's L back), so round r (B
 * packets each) starts r round trips after the first packet's grant in
 * L + R: the last of n = mB packets arrives in
 *     L + R + (B - 1)P + (m - 1)(2L + R + P - 1) + 2L + R + P - 1.
 */
static void
flow_case(int B, int m, uint64_t *last)
{
	static const int k444[3] = {4, 4, 4};
	static const int n0[3] = {0, 0, 0}, n1[3] = {1, 0, 0};
	tt_net net;
	tt_simparams p;
	tt_simresult res;
	struct hw h;
	uint64_t L = 1000, R = 1, P = 4, rt = 2 * L + R + P - 1;

	tt_test_net(&net, 3, k444, 0, NULL, TT_DL_NONE);
	tt_simparams_default(&p);
	p.vcs = 1;
	p.link_latency = (int)L;
	p.router_latency = (int)R;
	p.vc_flits = B * (int)P + 3;    /* floor: B slots */
	memset(&h, 0, sizeof(h));
	h.src = tt_node_index(&net, n0);
	h.dst = tt_node_index(&net, n1);
	h.n = (uint32_t)(B * m);
	hw_run(&net, &p, &h, &res);
	assert_int_equal(h.last, L + R + (uint64_t)(B - 1) * P +
	    (uint64_t)(m - 1) * rt + rt);
	*last = h.last;
	tt_simresult_free(&res);
	tt_net_free(&net);
}

static void
test_vc_flits(void **state)
{
	static const int k444[3] = {4, 4, 4};
	tt_net net;
	tt_simparams p;
	tt_sim *sim;
	char err[256];
	uint64_t a, b, m0, m1;
	int side, o, pe;

	(void)state;
	tt_test_net(&net, 3, k444, 1, "D", TT_DL_VC);
	tt_simparams_default(&p);
	m0 = tt_sim_memory_packets(&net, &p);
	p.vc_flits = 64 * 1024 / 16 / 64;       /* 64 KiB of 64-byte flits */
	p.int_vc_flits = 10;
	assert_int_equal(tt_sim_create(&sim, &net, &p, err, sizeof(err)), 0);
	pe = sim->np - 1;
	for (side = 0; side < 2; side++) {
		for (o = 0; o < pe; o++)
			assert_int_equal(sim->pcap[side][o],
			    net.card_port[side][o] == TT_PORT_INT ? 10 / 4 :
			    64 / 4);
		assert_int_equal(sim->pcap[side][pe], 128 / sim->nvc[side][pe] / 4);
	}
	tt_sim_free(sim);
	m1 = tt_sim_memory_packets(&net, &p);
	assert_true(m1 > m0);
	/* the internal link falls back to vc_flits */
	p.int_vc_flits = 0;
	assert_int_equal(tt_sim_create(&sim, &net, &p, err, sizeof(err)), 0);
	for (o = 0; o < sim->np - 1; o++)
		assert_int_equal(sim->pcap[0][o], 16);
	tt_sim_free(sim);
	/* refused, naming the field */
	p.vc_flits = 256 * 4;
	assert_int_equal(tt_sim_check(&net, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "vc_flits 1024"));
	p.vc_flits = 3;
	assert_int_equal(tt_sim_check(&net, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "vc_flits 3"));
	p.vc_flits = 16;
	p.int_vc_flits = 2;
	assert_int_equal(tt_sim_check(&net, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "int_vc_flits 2"));
	p.int_vc_flits = -1;
	assert_int_equal(tt_sim_check(&net, &p, err, sizeof(err)), -1);
	tt_net_free(&net);
	tt_test_net(&net, 3, k444, 1, "D", TT_DL_BUBBLE);
	tt_simparams_default(&p);
	p.vc_flits = 7;
	assert_int_equal(tt_sim_check(&net, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bubble"));
	tt_net_free(&net);
	/* flow control: twice the slots, about half the time */
	flow_case(4, 4, &a);
	flow_case(8, 2, &b);
	assert_true(a > b + b / 2);
}

/* L = 2^20: uniform traffic through the far lists, every packet delivered
 * exactly once. */
static void
test_huge_latency_conservation(void **state)
{
	(void)state;
	conservation_case_p("D", TT_DL_VC, 0.02, 1 << 20, 2);
}

/* ---- one synthetic run ---- */

static void
run_uniform(const tt_net *net, const tt_simparams *p, enum tt_pattern pat,
    double load, uint64_t seed, tt_simresult *res)
{
	tt_sim *sim;
	tt_traffic tr;
	tt_source s;
	char err[256];

	tt_traffic_default(&tr);
	tr.pattern = pat;
	tr.load = load;
	tr.packet_flits = p->net.packet_flits;
	tr.seed = seed;
	assert_int_equal(tt_traffic_init(&tr, net, err, sizeof(err)), 0);
	s = tt_traffic_source(&tr);
	assert_int_equal(tt_sim_create(&sim, net, p, err, sizeof(err)), 0);
	tt_sim_run(sim, &s, 0, res, NULL, NULL);
	tt_sim_free(sim);
	tt_traffic_free(&tr);
}

static void
test_accepted_equals_offered(void **state)
{
	static const int k[3] = {4, 4, 4}, k2[2] = {8, 8};
	tt_net net;
	tt_simparams p;
	tt_simresult r;
	double loads[3] = {0.05, 0.15, 0.3};
	int i;

	(void)state;
	tt_simparams_default(&p);
	p.measure = 20000;
	for (i = 0; i < 3; i++) {
		tt_test_net(&net, 3, k, 1, "D", TT_DL_VC);
		run_uniform(&net, &p, TT_TR_UNIFORM, loads[i], 3, &r);
		assert_false(r.deadlock);
		assert_true(r.drained);
		/* every packet generated in the window was delivered, and
		 * the flits delivered in the window match those offered */
		assert_int_equal(r.measured, r.measured_delivered);
		if (r.accepted_load < 0.97 * r.offered_load ||
		    r.accepted_load > 1.03 * r.offered_load)
			fail_msg("load %g: offered %g accepted %g", loads[i],
			    r.offered_load, r.accepted_load);
		if (r.offered_load < 0.93 * loads[i] || r.offered_load > 1.07 * loads[i])
			fail_msg("load %g: the source offered %g", loads[i],
			    r.offered_load);
		tt_simresult_free(&r);
		tt_net_free(&net);
	}
	tt_test_net(&net, 2, k2, 0, NULL, TT_DL_BUBBLE);
	run_uniform(&net, &p, TT_TR_UNIFORM, 0.2, 3, &r);
	assert_true(r.accepted_load > 0.97 * r.offered_load &&
	    r.accepted_load < 1.03 * r.offered_load);
	tt_simresult_free(&r);
	tt_net_free(&net);
}

static void
test_same_seed_same_numbers(void **state)
{
	static const int k[3] = {4, 4, 4};
	tt_net net;
	tt_simparams p;
	tt_simresult a, b, c;

	(void)state;
	tt_test_net(&net, 3, k, 1, "D", TT_DL_BUBBLE);
	tt_simparams_default(&p);
	p.measure = 3000;
	run_uniform(&net, &p, TT_TR_UNIFORM, 0.4, 11, &a);
	run_uniform(&net, &p, TT_TR_UNIFORM, 0.4, 11, &b);
	run_uniform(&net, &p, TT_TR_UNIFORM, 0.4, 12, &c);
	assert_int_equal(a.cycles, b.cycles);
	assert_int_equal(a.delivered, b.delivered);
	assert_int_equal(a.traversals, b.traversals);
	assert_true(a.avg_e2e_latency == b.avg_e2e_latency);
	assert_memory_equal(&a.e2e_lat, &b.e2e_lat, sizeof(a.e2e_lat));
	assert_memory_equal(&a.net_lat, &b.net_lat, sizeof(a.net_lat));
	/* and another seed is another run */
	assert_true(a.delivered != c.delivered ||
	    a.avg_e2e_latency != c.avg_e2e_latency);
	tt_simresult_free(&a);
	tt_simresult_free(&b);
	tt_simresult_free(&c);
	tt_net_free(&net);
}

/* ---- shaped links (tt_simparams.shape_rate, shape_burst) ---- */

/*
 * A lone packet finds every bucket on its way full: exactly the unshaped
 * zero-load latency, even when a bucket of one packet refills a 65536th
 * of a flit a cycle.  Every ordered pair, one packet every 200 cycles,
 * under buckets of one packet that refill a 16th of a flit a cycle (16P
 * <= 80 cycles, less than the gap between two packets on a link): each
 * packet finds its links' buckets full again, and the latency is exact.
 */
static void
test_shaped_zero_load(void **state)
{
	static const int k444[3] = {4, 4, 4}, k534[3] = {5, 3, 4};
	tt_net net;
	tt_simparams p;
	uint32_t dst;

	(void)state;
	tt_test_net(&net, 3, k444, 1, "D", TT_DL_VC);
	tt_simparams_default(&p);
	p.shape_rate = 1;
	p.shape_burst = (uint32_t)p.net.packet_flits;
	for (dst = 1; dst < net.ncards; dst += 19)
		one_packet_case(&net, &p, 0, dst, 0);
	/* a short packet, store and forward, longer latencies */
	p.link_latency = 3;
	p.router_latency = 2;
	p.store_forward = 1;
	one_packet_case(&net, &p, 1, 100, 3);
	tt_net_free(&net);
	zero_load_check(3, k444, 1, "D", TT_DL_VC, 1, 1, 4, 0, 4096, 4);
	zero_load_check(3, k534, 1, "G", TT_DL_VC, 2, 3, 5, 0, 4096, 5);
	zero_load_check(3, k444, 0, NULL, TT_DL_BUBBLE, 3, 2, 1, 0, 4096, 1);
}

/* A source of n packets from PE src to PE dst generated in cycles gen[];
 * the delivery cycles are kept in at[] (in the order they came). */
struct stream {
	uint32_t src, dst, n, sent, seen;
	const uint64_t *gen;
	uint64_t *at;
	int bad_hops;
};

static int
stream_next(void *ctx, uint32_t pe, uint64_t now, tt_srcpkt *pk)
{
	struct stream *st = ctx;

	(void)now;
	if (pe != st->src || st->sent == st->n)
		return TT_SRC_DONE;
	pk->gen = st->gen[st->sent++];
	pk->dst = st->dst;
	return TT_SRC_PACKET;
}

static void
stream_deliver(void *ctx, const tt_delivery *d)
{
	struct stream *st = ctx;

	if (d->hops != 1)
		st->bad_hops++;
	if (st->seen < st->n)
		st->at[st->seen] = d->deliver;
	st->seen++;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Run st on net under p until empty; st->at sorted. */
static void
stream_run(const tt_net *net, const tt_simparams *p, struct stream *st)
{
	tt_source s = {stream_next, st};
	tt_simresult res;
	tt_sim *sim;
	char err[256];

	assert_int_equal(route_links(net, st->src, st->dst), 1);
	st->sent = st->seen = 0;
	st->bad_hops = 0;
	if (tt_sim_create(&sim, net, p, err, sizeof(err)) != 0)
		fail_msg("tt_sim_create: %s", err);
	assert_int_equal(tt_sim_on_deliver(sim, stream_deliver, st, NULL, 0), 0);
	assert_int_equal(tt_sim_run(sim, &s, 1, &res, NULL, NULL), 0);
	assert_false(res.deadlock);
	assert_int_equal(st->seen, st->n);
	assert_int_equal(st->bad_hops, 0);
	qsort(st->at, st->n, sizeof(uint64_t), cmp_u64);
	tt_simresult_free(&res);
	tt_sim_free(sim);
}

/*
 * A stream over one shaped link, by hand.  The link carries a flit a
 * cycle; its bucket refills r = rate / 65536 flits a cycle.  A packet
 * generated in g at an idle NIC asks for the link in g + L + R, and one
 * granted onto it in G has its tail at the next PE in G + 2L + R + P - 1.
 * Let a stream's first grant be G0, finding T tokens (in flits), and let
 * the next packets wait at the link's input.  Before grant k, k packets
 * have taken kP flits and the bucket has had (G - G0)r back (it never
 * reaches its top: each packet takes more than comes back while it is
 * sent), so grant k is the first cycle both the link is free, G0 + kP
 * while packets go back to back, and the bucket holds P:
 *     G_k = G0 + max(kP, ceil(((k + 1)P - T) / r)).
 * The first terms are the burst at line rate, the second the shaped rate.
 */
static uint64_t
shaped_grant(uint64_t G0, uint64_t k, uint64_t P, uint64_t T65536,
    uint64_t rate)
{
	uint64_t need = (k + 1) * P * 65536, wait = 0;

	if (need > T65536)
		wait = (need - T65536 + rate - 1) / rate;
	return G0 + (k * P > wait ? k * P : wait);
}

/* n packets generated in cycle 0 over the link from src to dst: the
 * deliveries are the formula's; the last one's cycle is returned. */
static uint64_t
stream_case(const tt_net *net, const tt_simparams *p, uint32_t src,
    uint32_t dst, uint32_t n)
{
	const uint64_t L = (uint64_t)p->link_latency;
	const uint64_t R = (uint64_t)p->router_latency;
	const uint64_t P = (uint64_t)p->net.packet_flits;
	struct stream st;
	uint64_t *gen = calloc(n, sizeof(uint64_t));
	uint64_t *at = calloc(n, sizeof(uint64_t)), k, last;

	assert_non_null(gen);
	assert_non_null(at);
	memset(&st, 0, sizeof(st));
	st.src = src;
	st.dst = dst;
	st.n = n;
	st.gen = gen;
	st.at = at;
	stream_run(net, p, &st);
	for (k = 0; k < n; k++) {
		uint64_t want = shaped_grant(L + R, k, P,
		    (uint64_t)p->shape_burst << 16, p->shape_rate) +
		    2 * L + R + P - 1;

		if (at[k] != want)
			fail_msg("rate %u, burst %u: packet %llu delivered in "
			    "%llu, by hand %llu", p->shape_rate, p->shape_burst,
			    (unsigned long long)k, (unsigned long long)at[k],
			    (unsigned long long)want);
	}
	last = at[n - 1];
	free(gen);
	free(at);
	return last;
}

/*
 * A long stream runs at the shaped rate after its burst passed at line
 * rate.  Plain 4x4 torus, PE (0,0) to its X+ neighbour; and on a twin
 * torus a card to its twin over the internal link, also a link between
 * switches.
 */
static void
test_shaped_stream(void **state)
{
	static const int k44[2] = {4, 4}, n0[2] = {0, 0}, n1[2] = {1, 0};
	static const int k444[3] = {4, 4, 4};
	tt_net net;
	tt_simparams p;
	uint32_t src, dst, twin;

	(void)state;
	tt_test_net(&net, 2, k44, 0, NULL, TT_DL_VC);
	src = tt_node_index(&net, n0);
	dst = tt_node_index(&net, n1);
	tt_simparams_default(&p);
	/*
	 * P = 4, L = R = 1, a quarter flit a cycle, B = 16: T - 3k >= 4
	 * holds for k <= 4, so packets 0..4 go at line rate from cycle 2
	 * (delivered in 8, 12, .., 24); packet 5 waits for its 4 flits
	 * until 2 + 32 (delivered in 40), and each after it 16 cycles
	 * later, 4NP cycles for N packets: packet 99 in 40 + 94 * 16.
	 */
	p.shape_rate = 16384;
	p.shape_burst = 16;
	assert_int_equal(stream_case(&net, &p, src, dst, 100), 1544);
	assert_int_equal(stream_case(&net, &p, src, dst, 5), 24);
	assert_int_equal(stream_case(&net, &p, src, dst, 6), 40);
	/* the default bucket, one packet: a packet every 16 cycles from
	 * the first on */
	p.shape_burst = 4;
	assert_int_equal(stream_case(&net, &p, src, dst, 100), 8 + 99 * 16);
	/* a third of the line (rounded: 21845), a bucket of 2.5 packets,
	 * longer latencies, longer packets; and a waiting time beyond the
	 * switch wheel's reach (a 256th of a flit a cycle: 2048 cycles
	 * a packet of 8 flits) */
	p.shape_rate = 21845;
	p.shape_burst = 20;
	p.net.packet_flits = 8;
	p.net.buffer_flits = 256;
	p.link_latency = 3;
	p.router_latency = 2;
	stream_case(&net, &p, src, dst, 300);
	p.shape_rate = 256;
	stream_case(&net, &p, src, dst, 20);
	tt_net_free(&net);

	tt_test_net(&net, 3, k444, 1, "D", TT_DL_VC);
	for (twin = 1; twin < net.ncards; twin++)
		if (tt_route(&net, 0, twin, TT_PORT_NIC).port == TT_PORT_INT &&
		    route_links(&net, 0, twin) == 1)
			break;
	assert_true(twin < net.ncards);
	tt_simparams_default(&p);
	p.shape_rate = 16384;
	p.shape_burst = 16;
	assert_int_equal(stream_case(&net, &p, 0, twin, 100), 1544);
	tt_net_free(&net);
}

/*
 * After an idle time the bucket is full again, and not before.  P = 4, L =
 * R = 1, a quarter flit a cycle, B = 16; 20 packets in cycle 0 (test_
 * shaped_stream: the last granted in 2 + 16 * 19 - 48 = 258, which leaves
 * the bucket empty), then 10 more generated in cycle g, granted from g + 2
 * with (g + 2 - 258) / 4 tokens, 16 from g = 320 on:
 *   - g = 400 or 320: the 10 go as the first 10 of a stream in cycle 0
 *     did, g cycles later (5 at line rate);
 *   - g = 319: 15.75 tokens, 4 at line rate, the fifth a cycle late;
 *   - g = 296: 10 tokens, 3 at line rate, the fourth 12 cycles late.
 */
static void
test_shaped_idle_refills(void **state)
{
	static const int k44[2] = {4, 4}, n0[2] = {0, 0}, n1[2] = {1, 0};
	static const uint64_t gens[] = {400, 320, 319, 296};
	tt_net net;
	tt_simparams p;
	struct stream st;
	uint64_t gen[30], at[30];
	size_t i;
	uint64_t k;

	(void)state;
	tt_test_net(&net, 2, k44, 0, NULL, TT_DL_VC);
	tt_simparams_default(&p);
	p.shape_rate = 16384;
	p.shape_burst = 16;
	for (i = 0; i < sizeof(gens) / sizeof(gens[0]); i++) {
		uint64_t g = gens[i], T = (g + 2 - 258) * 16384;

		if (T > (uint64_t)16 << 16)
			T = (uint64_t)16 << 16;
		for (k = 0; k < 30; k++)
			gen[k] = k < 20 ? 0 : g;
		memset(&st, 0, sizeof(st));
		st.src = tt_node_index(&net, n0);
		st.dst = tt_node_index(&net, n1);
		st.n = 30;
		st.gen = gen;
		st.at = at;
		stream_run(&net, &p, &st);
		assert_int_equal(at[19], 258 + 6);
		for (k = 0; k < 10; k++) {
			uint64_t want = shaped_grant(g + 2, k, 4, T, 16384) + 6;

			if (at[20 + k] != want)
				fail_msg("after cycle %llu: packet %llu delivered "
				    "in %llu, by hand %llu", (unsigned long long)g,
				    (unsigned long long)k,
				    (unsigned long long)at[20 + k],
				    (unsigned long long)want);
		}
		if (g >= 320)
			assert_int_equal(at[24], g + 24);       /* the burst */
		else if (g == 319)
			assert_int_equal(at[24], g + 25);
		else
			assert_int_equal(at[23], g + 2 + 24 + 6);
		assert_true(at[25] > at[24] + 4);
	}
	tt_net_free(&net);
}

static void
same_run(const tt_simresult *a, const tt_simresult *b)
{
	int i;

	assert_int_equal(a->cycles, b->cycles);
	assert_int_equal(a->generated, b->generated);
	assert_int_equal(a->injected, b->injected);
	assert_int_equal(a->delivered, b->delivered);
	assert_int_equal(a->flits_window, b->flits_window);
	assert_int_equal(a->traversals, b->traversals);
	assert_int_equal(a->internal_flits, b->internal_flits);
	assert_true(a->accepted_load == b->accepted_load);
	assert_true(a->avg_e2e_latency == b->avg_e2e_latency);
	assert_true(a->avg_network_latency == b->avg_network_latency);
	assert_int_equal(a->nbatch, b->nbatch);
	for (i = 0; i < a->nbatch; i++)
		assert_true(a->batch_latency[i] == b->batch_latency[i]);
	assert_memory_equal(&a->e2e_lat, &b->e2e_lat, sizeof(a->e2e_lat));
	assert_memory_equal(&a->net_lat, &b->net_lat, sizeof(a->net_lat));
}

/*
 * shape_rate 0 is no bucket, whatever shape_burst says: the same numbers
 * as parameters that never had the fields.  And a bucket that never runs
 * dry (just under the line rate, 2^20 flits deep: a run of 10^5 cycles
 * takes under 2 flits from it) holds nothing back: the cycle loop that
 * checks buckets gives the numbers of the one that does not.
 */
static void
test_shaped_off_identical(void **state)
{
	static const int k444[3] = {4, 4, 4};
	tt_net net;
	tt_simparams p;
	tt_simresult a, b, c;

	(void)state;
	tt_test_net(&net, 3, k444, 1, "D", TT_DL_VC);
	tt_simparams_default(&p);
	p.measure = 3000;
	run_uniform(&net, &p, TT_TR_UNIFORM, 0.4, 11, &a);
	assert_true(a.delivered > 10000);
	p.shape_burst = 3;
	run_uniform(&net, &p, TT_TR_UNIFORM, 0.4, 11, &b);
	same_run(&a, &b);
	assert_true(a.cycles < 100000);
	p.shape_rate = 65535;
	p.shape_burst = 1u << 20;
	run_uniform(&net, &p, TT_TR_UNIFORM, 0.4, 11, &c);
	same_run(&a, &c);
	tt_simresult_free(&a);
	tt_simresult_free(&b);
	tt_simresult_free(&c);
	tt_net_free(&net);
}

/* A bucket that refills a flit a cycle or more, or holds less than a
 * packet, is refused, naming the field; the limits themselves pass. */
static void
test_shaped_refused(void **state)
{
	static const int k444[3] = {4, 4, 4};
	tt_net net;
	tt_simparams p;
	tt_sim *sim = NULL;
	char err[256];

	(void)state;
	tt_test_net(&net, 3, k444, 1, "D", TT_DL_VC);
	tt_simparams_default(&p);
	p.shape_rate = 65536;
	p.shape_burst = 4;
	assert_int_equal(tt_sim_check(&net, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "shape_rate 65536"));
	assert_int_equal(tt_sim_create(&sim, &net, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "shape_rate 65536"));
	p.shape_rate = 1u << 31;
	assert_int_equal(tt_sim_check(&net, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "shape_rate 2147483648"));
	p.shape_rate = 65535;
	p.shape_burst = 3;
	assert_int_equal(tt_sim_check(&net, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "shape_burst 3"));
	assert_int_equal(tt_sim_create(&sim, &net, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "shape_burst 3"));
	p.shape_burst = 0;
	assert_int_equal(tt_sim_check(&net, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "shape_burst 0"));
	p.net.packet_flits = 8;
	p.net.buffer_flits = 256;
	p.shape_burst = 7;
	assert_int_equal(tt_sim_check(&net, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "shape_burst 7"));
	/* the limits: just under a flit a cycle, a packet deep */
	p.shape_burst = 8;
	assert_int_equal(tt_sim_check(&net, &p, err, sizeof(err)), 0);
	assert_int_equal(tt_sim_create(&sim, &net, &p, err, sizeof(err)), 0);
	tt_sim_free(sim);
	/* no bucket: the depth is not looked at */
	p.shape_rate = 0;
	p.shape_burst = 1;
	assert_int_equal(tt_sim_check(&net, &p, err, sizeof(err)), 0);
	tt_net_free(&net);
}

/* ---- deadlock: never under vc and bubble, caught under none ---- */

static void
test_vc_bubble_never_deadlock(void **state)
{
	static const int k[3] = {4, 4, 4};
	char letter[2] = {0, 0};
	tt_net net;
	tt_simparams p;
	tt_simresult r;
	int c, dl;

	(void)state;
	tt_simparams_default(&p);
	p.warmup = 1000;
	p.measure = 4000;
	p.drain = 500;
	p.watchdog = 500;
	for (c = 0; c < 10; c++) {
		letter[0] = (char)('A' + c);
		for (dl = TT_DL_VC; dl <= TT_DL_BUBBLE; dl++) {
			tt_test_net(&net, 3, k, 1, letter, (enum tt_deadlock)dl);
			run_uniform(&net, &p, TT_TR_UNIFORM, 1.0, 5, &r);
			if (r.deadlock)
				fail_msg("%s %s: the watchdog fired", letter,
				    tt_deadlock_name((enum tt_deadlock)dl));
			/* saturated, yet moving */
			assert_true(r.accepted_load > 0.1);
			assert_true(r.accepted_load < r.offered_load);
			tt_simresult_free(&r);
			tt_net_free(&net);
		}
	}
}

/* 1 if chans[0..len) is a cycle of the full channel dependency graph. */
static int
is_cdg_cycle(const tt_net *net, const uint64_t *chans, size_t len)
{
	tt_cdg g;
	size_t i;
	int ok = 1;

	assert_int_equal(tt_cdg_init(&g, net), 0);
	assert_int_equal(tt_cdg_add_all(&g, NULL, NULL, NULL), 0);
	for (i = 0; i < len; i++) {
		uint64_t from = chans[i], to = chans[(i + 1) % len];
		uint32_t card;
		int port, vc, pp;

		tt_chan_decode(net, from, &card, &port, &vc);
		if (to / (uint64_t)net->chans_per_card != tt_link_peer(net, card, port, &pp) ||
		    !(g.succ[from] >> (to % (uint64_t)net->chans_per_card) & 1))
			ok = 0;
	}
	tt_cdg_free(&g);
	return ok;
}

/*
 * Seed 000 Example 6.1: with two nodes in Y and configuration D, the Y ring
 * is <x,0,z>/c0 Y+ -> <x,1,z>/c1, internal link -> <x,1,z>/c0 Y+ ->
 * <x,0,z>/c1, internal link -> back.
 */
static int
is_example_61(const tt_net *net, const uint64_t *chans, size_t len)
{
	size_t i;
	int ypos = 0, inner = 0;

	if (len != 4)
		return 0;
	for (i = 0; i < len; i++) {
		uint32_t card;
		int port, vc;

		tt_chan_decode(net, chans[i], &card, &port, &vc);
		if (port == tt_port_of(1, 0) && tt_card_side(net, card) == 0)
			ypos++;
		else if (port == TT_PORT_INT && tt_card_side(net, card) == 1)
			inner++;
	}
	return ypos == 2 && inner == 2;
}

static void
test_none_deadlock_caught(void **state)
{
	static const int k[3] = {2, 2, 2};
	tt_net net;
	tt_simparams p;
	tt_simresult r;
	int seed, caught = 0, ex61 = 0;

	(void)state;
	tt_test_net(&net, 3, k, 1, "D", TT_DL_NONE);
	tt_simparams_default(&p);
	p.measure = 50000;
	p.watchdog = 1000;
	for (seed = 1; seed <= 6; seed++) {
		run_uniform(&net, &p, TT_TR_UNIFORM, 1.0, (uint64_t)seed, &r);
		if (r.deadlock) {
			caught++;
			assert_true(r.cycle_len >= 2);
			if (!is_cdg_cycle(&net, r.cycle, r.cycle_len))
				fail_msg("seed %d: the reported channels are not "
				    "a cycle of the dependency graph", seed);
			ex61 += is_example_61(&net, r.cycle, r.cycle_len);
		}
		tt_simresult_free(&r);
	}
	assert_int_equal(caught, 6);
	assert_true(ex61 >= 1);
	tt_net_free(&net);
}

/* ---- traffic patterns ---- */

static uint32_t
dest_of(tt_traffic *tr, uint32_t pe)
{
	tt_source s = tt_traffic_source(tr);
	tt_srcpkt pk;

	assert_int_equal(s.next(s.ctx, pe, 0, &pk), TT_SRC_PACKET);
	return pk.dst;
}

static void
test_patterns(void **state)
{
	static const int k[3] = {4, 4, 4}, k5[3] = {5, 5, 5};
	tt_net net;
	tt_traffic tr;
	char err[256];
	uint32_t pe, hits = 0, n;
	int c[3] = {1, 2, 3};
	uint8_t *seen;

	(void)state;
	tt_test_net(&net, 3, k, 1, "D", TT_DL_VC);
	n = net.ncards;   /* 128 = 2^7 */
	/* bit patterns on 7-bit ids */
	tt_traffic_default(&tr);
	tr.pattern = TT_TR_BITREV;
	assert_int_equal(tt_traffic_init(&tr, &net, err, sizeof(err)), 0);
	assert_int_equal(dest_of(&tr, 1), 64);
	assert_int_equal(dest_of(&tr, 6), 48);
	tt_traffic_free(&tr);
	tr.pattern = TT_TR_BITCOMP;
	assert_int_equal(tt_traffic_init(&tr, &net, err, sizeof(err)), 0);
	assert_int_equal(dest_of(&tr, 5), 122);
	tt_traffic_free(&tr);
	tr.pattern = TT_TR_SHUFFLE;          /* rotate left */
	assert_int_equal(tt_traffic_init(&tr, &net, err, sizeof(err)), 0);
	assert_int_equal(dest_of(&tr, 65), 3);
	tt_traffic_free(&tr);
	tr.pattern = TT_TR_BITROTATE;        /* rotate right */
	assert_int_equal(tt_traffic_init(&tr, &net, err, sizeof(err)), 0);
	assert_int_equal(dest_of(&tr, 3), 65);
	tt_traffic_free(&tr);
	tr.pattern = TT_TR_TRANSPOSE;        /* abc d efg -> efg d abc */
	assert_int_equal(tt_traffic_init(&tr, &net, err, sizeof(err)), 0);
	assert_int_equal(dest_of(&tr, 0x0f), 0x78);
	assert_int_equal(dest_of(&tr, 0x41), 0x14);
	tt_traffic_free(&tr);
	/* coordinate patterns keep the card */
	tr.pattern = TT_TR_TORNADO;          /* +1 in every dimension for k = 4 */
	assert_int_equal(tt_traffic_init(&tr, &net, err, sizeof(err)), 0);
	pe = tt_card_of(&net, tt_node_index(&net, c), 1);
	{
		int w[3] = {2, 3, 0};

		assert_int_equal(dest_of(&tr, pe), tt_card_of(&net, tt_node_index(&net, w), 1));
	}
	tt_traffic_free(&tr);
	tr.pattern = TT_TR_CENTER;
	assert_int_equal(tt_traffic_init(&tr, &net, err, sizeof(err)), 0);
	{
		int w[3] = {2, 1, 0};

		assert_int_equal(dest_of(&tr, pe), tt_card_of(&net, tt_node_index(&net, w), 1));
	}
	tt_traffic_free(&tr);
	tr.pattern = TT_TR_NEIGHBOUR;
	assert_int_equal(tt_traffic_init(&tr, &net, err, sizeof(err)), 0);
	{
		int w[3] = {2, 2, 3};

		assert_int_equal(dest_of(&tr, pe), tt_card_of(&net, tt_node_index(&net, w), 1));
	}
	tt_traffic_free(&tr);
	/* a random permutation is a permutation */
	tr.pattern = TT_TR_RANDPERM;
	assert_int_equal(tt_traffic_init(&tr, &net, err, sizeof(err)), 0);
	seen = calloc(n, 1);
	for (pe = 0; pe < n; pe++) {
		uint32_t d = tr.dest[pe] == UINT32_MAX ? pe : tr.dest[pe];

		assert_int_equal(seen[d], 0);
		seen[d] = 1;
	}
	free(seen);
	tt_traffic_free(&tr);
	/* uniform never sends to itself; hotspot sends its share */
	tr.pattern = TT_TR_HOTSPOT;
	tr.hot_fraction = 0.25;
	assert_int_equal(tt_traffic_init(&tr, &net, err, sizeof(err)), 0);
	for (pe = 0; pe < 20000; pe++) {
		uint32_t d = dest_of(&tr, 5);

		assert_true(d != 5);
		hits += d == tr.hotset[0];
	}
	assert_true(hits > 0.25 * 20000 * 0.9 && hits < 0.26 * 20000 * 1.1);
	tt_traffic_free(&tr);
	tt_net_free(&net);
	/* bit patterns need a power of two */
	tt_test_net(&net, 3, k5, 1, "D", TT_DL_VC);
	tr.pattern = TT_TR_BITREV;
	assert_int_equal(tt_traffic_init(&tr, &net, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "power-of-two"));
	tt_net_free(&net);
}

/* The Bernoulli source offers what it is asked for. */
static void
test_source_rate(void **state)
{
	static const int k[3] = {4, 4, 4};
	tt_net net;
	tt_traffic tr;
	tt_source s;
	char err[256];
	uint64_t last = 0, count = 0;
	tt_srcpkt pk;

	(void)state;
	tt_test_net(&net, 3, k, 1, "D", TT_DL_VC);
	tt_traffic_default(&tr);
	tr.load = 0.4;          /* 0.1 packets per cycle */
	assert_int_equal(tt_traffic_init(&tr, &net, err, sizeof(err)), 0);
	s = tt_traffic_source(&tr);
	while (count < 100000) {
		assert_int_equal(s.next(s.ctx, 3, 0, &pk), TT_SRC_PACKET);
		assert_true(count == 0 || pk.gen > last);
		last = pk.gen;
		count++;
	}
	/* 100000 packets at 0.1 per cycle: about 10^6 cycles */
	assert_true(last > 980000 && last < 1020000);
	tt_traffic_free(&tr);
	tt_net_free(&net);
}

static void
test_histogram(void **state)
{
	static tt_hist h;
	uint64_t v;

	(void)state;
	memset(&h, 0, sizeof(h));
	for (v = 1; v <= 1000; v++)
		tt_hist_add(&h, v);
	assert_int_equal(tt_hist_quantile(&h, 0.99), 990);
	assert_int_equal(tt_hist_quantile(&h, 0.5), 500);
	assert_int_equal(tt_hist_quantile(&h, 1.0), 1000);
	tt_hist_add(&h, 1000000);
	assert_int_equal(h.max, 1000000);
	v = tt_hist_quantile(&h, 1.0);
	assert_true(v <= 1000000 && v > 1000000 - 1000000 / 128);
}

/*
 * tt_sim_memory(), which ttsim run --dry-run reports, is what tt_sim_create()
 * takes from the heap: within 2% plus the fixed part (the simulator's own
 * struct and the NIC wheel), for a twin torus under vc and under bubble and
 * a plain torus.  glibc's mallinfo2() counts the heap; ASan replaces the
 * allocator, so under ASan the test has nothing to measure.
 */
#if defined(__SANITIZE_ADDRESS__)
#define TT_HEAP_MEASURABLE 0
#else
#define TT_HEAP_MEASURABLE 1
#endif

static size_t
heap_used(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

static void
memory_case(int n, const int *k, int twin, const char *ports,
    enum tt_deadlock dl)
{
	tt_net net;
	tt_simparams p;
	tt_sim *sim;
	char err[256];
	size_t before, used;
	uint64_t model;

	tt_test_net(&net, n, k, twin, ports, dl);
	tt_simparams_default(&p);
	model = tt_sim_memory(&net, &p);
	before = heap_used();
	if (tt_sim_create(&sim, &net, &p, err, sizeof(err)) != 0)
		fail_msg("tt_sim_create: %s", err);
	used = heap_used() - before;
	print_message("%u PEs: model %llu bytes, heap %zu bytes\n", net.ncards,
	    (unsigned long long)model, used);
	assert_true(used + used / 50 + 65536 >= model);
	assert_true(model + model / 50 + 65536 >= used);
	tt_sim_free(sim);
	tt_net_free(&net);
}

/* Nothing the engine allocates grows with L or R beyond the wheels' reach:
 * the model, the heap it takes, and the mapped pool. */
static void
test_memory_flat_in_latency(void **state)
{
	static const int k444[3] = {4, 4, 4};
	static const int L[] = {100, 1000, 100000, 1 << 20, TT_LATENCY_MAX};
	tt_net net;
	tt_simparams p;
	uint64_t m, mp, base, basep;
	size_t i, before, used;
	tt_sim *sim;
	char err[256];

	(void)state;
	tt_test_net(&net, 3, k444, 1, "D", TT_DL_VC);
	tt_simparams_default(&p);
	p.link_latency = p.router_latency = 64;
	base = tt_sim_memory(&net, &p);
	basep = tt_sim_memory_packets(&net, &p);
	for (i = 0; i < sizeof(L) / sizeof(L[0]); i++) {
		p.link_latency = p.router_latency = L[i];
		m = tt_sim_memory(&net, &p);
		mp = tt_sim_memory_packets(&net, &p);
		assert_int_equal(m, base);
		/* the far credits' records, one per slot */
		assert_true(mp <= basep + basep / 4);
		if (!TT_HEAP_MEASURABLE)
			continue;
		before = heap_used();
		if (tt_sim_create(&sim, &net, &p, err, sizeof(err)) != 0)
			fail_msg("tt_sim_create: %s", err);
		used = heap_used() - before;
		assert_true(used + used / 50 + 65536 >= m);
		assert_true(m + m / 50 + 65536 >= used);
		tt_sim_free(sim);
	}
	tt_net_free(&net);
}

static void
test_memory_model(void **state)
{
	static const int k888[3] = {8, 8, 8}, k534[3] = {5, 3, 4};
	static const int k1616[2] = {16, 16};

	(void)state;
	if (!TT_HEAP_MEASURABLE)
		skip();
	memory_case(3, k888, 1, "D", TT_DL_VC);
	memory_case(3, k534, 1, "G", TT_DL_BUBBLE);
	memory_case(2, k1616, 0, NULL, TT_DL_VC);
}

/*
 * tt_sim_part(): the ranks' parts are runs of whole nodes that cover the
 * network once, in order, within one node of each other in size; more
 * ranks than nodes is refused.
 */
static void
test_partition(void **state)
{
	static const int k534[3] = {5, 3, 4}, k88[2] = {8, 8};
	tt_net net;
	uint32_t f, e, next;
	int twin, R, r;

	(void)state;
	for (twin = 0; twin < 2; twin++) {
		if (twin)
			tt_test_net(&net, 3, k534, 1, "G", TT_DL_BUBBLE);
		else
			tt_test_net(&net, 2, k88, 0, NULL, TT_DL_VC);
		for (R = 1; R <= 64; R++) {
			uint32_t nodes = net.twin ? net.ncards / 2 : net.ncards;
			uint32_t lo = UINT32_MAX, hi = 0;

			if ((uint32_t)R > nodes) {
				assert_int_equal(tt_sim_part(&net, R, 0, &f, &e), -1);
				continue;
			}
			next = 0;
			for (r = 0; r < R; r++) {
				assert_int_equal(tt_sim_part(&net, R, r, &f, &e), 0);
				assert_int_equal(f, next);
				assert_true(e > f);
				if (net.twin)
					assert_int_equal(f % 2, 0);
				if (e - f < lo)
					lo = e - f;
				if (e - f > hi)
					hi = e - f;
				next = e;
			}
			assert_int_equal(next, net.ncards);
			assert_true(hi - lo <= (net.twin ? 2u : 1u));
		}
		tt_net_free(&net);
	}
}

/* A transport for one process that plays rank 0 of two, rank 1 having
 * the same values: enough to build a part (tt_sim_create_part() only
 * learns that every rank got its memory) and to combine results. */
static void
fake_allgather(void *ctx, const uint64_t *mine, size_t n, uint64_t *all)
{
	(void)ctx;
	memcpy(all, mine, n * sizeof(uint64_t));
	memcpy(all + n, mine, n * sizeof(uint64_t));
}

static void
fake_allreduce(void *ctx, uint64_t *v, size_t n, enum tt_sim_op op)
{
	size_t i;

	(void)ctx;
	if (op == TT_SIM_SUM)
		for (i = 0; i < n; i++)
			v[i] *= 2;
}

/*
 * tt_sim_memory_part(), which --dry-run --ranks N reports, is what
 * tt_sim_create_part() takes from the heap for its part, the buffers of
 * the exchange between ranks included, and is about half the whole for
 * two ranks (16x16x16: on 8x8x8 the exchange's buffers alone are a tenth
 * of the whole, packets no longer being counted in it).
 */
static void
test_memory_part(void **state)
{
	static const int k16[3] = {16, 16, 16};
	tt_sim_comm comm = {0, 2, 0, NULL, fake_allgather, fake_allreduce, NULL};
	tt_net net;
	tt_simparams p;
	tt_sim *sim;
	char err[256];
	size_t before, used;
	uint64_t model, whole;
	uint32_t f, e;

	(void)state;
	if (!TT_HEAP_MEASURABLE)
		skip();
	tt_test_net(&net, 3, k16, 1, "D", TT_DL_VC);
	tt_simparams_default(&p);
	model = tt_sim_memory_part(&net, &p, 2);
	whole = tt_sim_memory(&net, &p);
	before = heap_used();
	if (tt_sim_create_part(&sim, &net, &p, &comm, err, sizeof(err)) != 0)
		fail_msg("tt_sim_create_part: %s", err);
	used = heap_used() - before;
	tt_sim_local(sim, &f, &e);
	print_message("rank 0 of 2: switches %u..%u, model %llu bytes, heap "
	    "%zu bytes, whole network %llu\n", f, e, (unsigned long long)model,
	    used, (unsigned long long)whole);
	assert_int_equal(f, 0);
	assert_int_equal(e, net.ncards / 2);
	assert_int_equal(tt_sim_pes(sim), net.ncards);
	assert_true(used + used / 50 + 65536 >= model);
	assert_true(model + model / 50 + 65536 >= used);
	assert_true(model > whole / 2 && model < whole / 2 + whole / 20);
	tt_sim_free(sim);
	tt_net_free(&net);
}

/*
 * A partitioned replay's counts combine as lib/sources/msgsrc.c's rows say:
 * counts add up, the last cycles and max_pending are the largest; a
 * histogram's count, sum and bins add up and its max is the largest.  The
 * fake transport's other rank has the same counts, so a sum doubles and
 * the rest stay.  A serial simulator leaves them alone.
 */
static void
test_reduce_replay(void **state)
{
	static const int k44[2] = {4, 4};
	tt_sim_comm comm = {0, 2, 0, NULL, fake_allgather, fake_allreduce, NULL};
	tt_replay_result rr, mine;
	tt_simparams p;
	tt_net net;
	tt_sim *sim, *serial;
	char err[256];
	size_t b;

	(void)state;
	tt_test_net(&net, 2, k44, 0, NULL, TT_DL_VC);
	tt_simparams_default(&p);
	if (tt_sim_create_part(&sim, &net, &p, &comm, err, sizeof(err)) != 0)
		fail_msg("tt_sim_create_part: %s", err);
	assert_int_equal(tt_sim_create(&serial, &net, &p, err, sizeof(err)), 0);
	memset(&mine, 0, sizeof(mine));
	mine.messages = 3;
	mine.packets = 5;
	mine.bytes = 7;
	mine.last_done = 11;
	mine.last_gen = 13;
	mine.max_pending = 17;
	mine.packets_window = 19;
	tt_hist_add(&mine.latency, 5);
	tt_hist_add(&mine.latency, 100);
	tt_hist_add(&mine.latency, 50000);
	rr = mine;
	tt_replay_reduce(serial, &rr);
	assert_memory_equal(&rr, &mine, sizeof(rr));
	tt_replay_reduce(sim, &rr);
	assert_int_equal(rr.messages, 6);
	assert_int_equal(rr.packets, 10);
	assert_int_equal(rr.bytes, 14);
	assert_int_equal(rr.last_done, 11);
	assert_int_equal(rr.last_gen, 13);
	assert_int_equal(rr.max_pending, 17);
	assert_int_equal(rr.packets_window, 38);
	assert_int_equal(rr.latency.count, 6);
	assert_true(rr.latency.sum == 2 * mine.latency.sum);
	assert_int_equal(rr.latency.max, 50000);
	for (b = 0; b < TT_HIST_BINS; b++)
		assert_int_equal(rr.latency.bin[b], 2 * mine.latency.bin[b]);
	tt_sim_free(sim);
	tt_sim_free(serial);
	tt_net_free(&net);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_routes_equal_tt_route),
		cmocka_unit_test(test_check_routes_nd),
		cmocka_unit_test(test_rows_shared),
		cmocka_unit_test(test_prefetch_same),
		cmocka_unit_test(test_zero_load_latency),
		cmocka_unit_test(test_zero_load_booksim),
		cmocka_unit_test(test_every_packet_delivered_once),
		cmocka_unit_test(test_long_latency_zero_load),
		cmocka_unit_test(test_short_packet_zero_load),
		cmocka_unit_test(test_store_forward_zero_load),
		cmocka_unit_test(test_endpoint_overheads),
		cmocka_unit_test(test_vc_flits),
		cmocka_unit_test(test_memory_flat_in_latency),
		cmocka_unit_test(test_huge_latency_conservation),
		cmocka_unit_test(test_accepted_equals_offered),
		cmocka_unit_test(test_same_seed_same_numbers),
		cmocka_unit_test(test_shaped_zero_load),
		cmocka_unit_test(test_shaped_stream),
		cmocka_unit_test(test_shaped_idle_refills),
		cmocka_unit_test(test_shaped_off_identical),
		cmocka_unit_test(test_shaped_refused),
		cmocka_unit_test(test_vc_bubble_never_deadlock),
		cmocka_unit_test(test_none_deadlock_caught),
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_source_rate),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_memory_model),
		cmocka_unit_test(test_partition),
		cmocka_unit_test(test_memory_part),
		cmocka_unit_test(test_reduce_replay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
