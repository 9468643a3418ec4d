/*
 * The model's rules that choose among equals: seed 000 §7.1 footnote 5's
 * internal-link VC for type-1 traffic (by the output port, not the
 * emptiest), on a hand-built buffer state; and the rules that match
 * another simulator, off by default: ties at distance k/2 drawn per
 * packet, a ring's VC class fixed at ring entry, uniform traffic that
 * may pick the source.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/sim_int.h"            /* lib/: a hand-built buffer state */
#include "twintorus/analyze.h"
#include "twintorus/sim.h"
#include "twintorus/traffic.h"
#include "tt_test.h"

/* ---- footnote 5 on a hand-built state ---- */

struct tagseen {
	uint64_t at[4];         /* delivery cycle by tag; 0: not delivered */
};

static void
tag_deliver(void *ctx, const tt_delivery *d)
{
	struct tagseen *ts = ctx;

	if (d->tag < 4)
		ts->at[d->tag] = d->deliver;
}

static int
no_packets(void *ctx, uint32_t pe, uint64_t now, tt_srcpkt *pk)
{
	(void)ctx;
	(void)pe;
	(void)now;
	(void)pk;
	return TT_SRC_DONE;
}

/* Put a packet from src to dst into input VC v of port `in` of switch s,
 * taking the credit the sender upstream would have taken. */
static void
put_packet(tt_sim *sim, uint32_t s, int in, int v, uint32_t src,
    uint32_t dst, uint32_t tag)
{
	struct pkt pk;

	memset(&pk, 0, sizeof(pk));
	pk.src = src;
	pk.dst = dst;
	pk.tag = tag;
	pk.flits = (uint16_t)sim->P;
	sim->cred[sim->port[(uint64_t)s * (uint64_t)sim->np +
	    (uint64_t)in].up_cred + (uint32_t)v]--;
	sim_receive_packet(sim, s, in, v, &pk);
}

/*
 * Configuration D, 4x4x4, bubble: X is wholly on card 0, so a packet of
 * PE1 for X+ or X- crosses the internal link as type 1.  The internal
 * link has 4 VCs for 3 classes, so type 1 owns VCs 0 and 3.  The state,
 * at node (1,0,0):
 *   - card 0's X+ output has no credit left: its downstream buffer is full;
 *   - card 0's internal-link input VC 0 holds a type-1 packet for X+ (tag
 *     0), blocked there; VC 3 holds two packets for X- (tags 1, 2);
 *   - card 1's PE has a packet for X- (tag 3) at the head of its buffer.
 * VC 0 has more room than VC 3, so the emptiest VC is the one behind the
 * blocked X+ packet.  Returns the cycle tag 3 is delivered in, 0 if never
 * within 400 cycles; *xplus is tag 0's (0: still blocked).
 */
static uint64_t
fn5_case(enum tt_t1vc mode, uint64_t *xplus, uint64_t *xm_first)
{
	static const int k444[3] = {4, 4, 4};
	static const int n1[3] = {1, 0, 0}, n2[3] = {2, 0, 0}, n0[3] = {0, 0, 0};
	tt_source none = {no_packets, NULL};
	struct tagseen ts;
	tt_simparams p;
	tt_simresult res;
	tt_netspec spec;
	tt_net net;
	tt_sim *sim;
	uint32_t c0, c1, xp_dst, xm_dst;
	int np, in_int, out_xp, v;
	char err[256];

	tt_netspec_default(&spec);
	spec.n = 3;
	memcpy(spec.k, k444, sizeof(k444));
	spec.deadlock = TT_DL_BUBBLE;
	spec.t1_vc = mode;
	assert_int_equal(tt_netspec_set_ports(&spec, "D", err, sizeof(err)), 0);
	assert_int_equal(tt_net_init(&net, &spec, err, sizeof(err)), 0);
	tt_simparams_default(&p);
	assert_int_equal(tt_sim_create(&sim, &net, &p, err, sizeof(err)), 0);
	assert_int_equal(tt_sim_port_vcs(&net, &p, TT_PORT_INT), 4);
	memset(&ts, 0, sizeof(ts));
	assert_int_equal(tt_sim_on_deliver(sim, tag_deliver, &ts, NULL, 0), 0);
	sim_test_start(sim, &res);

	c0 = tt_card_of(&net, tt_node_index(&net, n1), 0);
	c1 = tt_card_of(&net, tt_node_index(&net, n1), 1);
	xp_dst = tt_card_of(&net, tt_node_index(&net, n2), 0);
	xm_dst = tt_card_of(&net, tt_node_index(&net, n0), 0);
	assert_int_equal(tt_route(&net, c1, xp_dst, TT_PORT_NIC).type, TT_HOP_T1);
	assert_int_equal(tt_route(&net, c1, xm_dst, TT_PORT_NIC).type, TT_HOP_T1);
	np = sim->np;
	in_int = net.local_port[0][TT_PORT_INT];
	out_xp = net.local_port[0][tt_port_of(0, 0)];
	for (v = 0; v < sim->nvc[0][out_xp]; v++)
		sim->cred[((uint64_t)c0 * (uint64_t)np + (uint64_t)out_xp) *
		    (uint64_t)sim->V + (uint64_t)v] = 0;
	put_packet(sim, c0, in_int, 0, c1, xp_dst, 0);
	put_packet(sim, c0, in_int, 3, c1, xm_dst, 1);
	put_packet(sim, c0, in_int, 3, c1, xm_dst, 2);
	put_packet(sim, c1, np - 1, 0, c1, xm_dst, 3);
	sim_test_cycles(sim, &none, 0, 400);

	*xplus = ts.at[0];
	*xm_first = ts.at[1];
	tt_sim_free(sim);
	tt_net_free(&net);
	return ts.at[3];
}

/*
 * Packets that wait 2^31 cycles and more are still ready: the arbiters
 * read a head's whole ready cycle from the packet (a VC's record is only
 * its head), so no low-32-bit copy of it can wrap.  Plain 4x4x4: two
 * packets at PE 0's input for its X+ neighbour, X+ without credits from
 * cycle 0; the credits come back at T = 2^31 + 64, where a ready cycle of
 * 0 kept in 32 bits would read as 2^31 - 64 cycles ahead, for the head
 * and for the packet behind it once it is the head.
 */
static void
test_ready_after_long_wait(void **state)
{
	static const int k444[3] = {4, 4, 4};
	static const int n0[3] = {0, 0, 0}, n1[3] = {1, 0, 0};
	const uint64_t T = ((uint64_t)1 << 31) + 64;
	tt_source none = {no_packets, NULL};
	struct tagseen ts;
	tt_simparams p;
	tt_simresult res;
	tt_netspec spec;
	tt_net net;
	tt_sim *sim;
	uint32_t a, b;
	uint64_t cb;
	int out, v;
	char err[256];

	(void)state;
	tt_netspec_default(&spec);
	spec.n = 3;
	memcpy(spec.k, k444, sizeof(k444));
	spec.twin = 0;
	assert_int_equal(tt_net_init(&net, &spec, err, sizeof(err)), 0);
	tt_simparams_default(&p);
	assert_int_equal(tt_sim_create(&sim, &net, &p, err, sizeof(err)), 0);
	memset(&ts, 0, sizeof(ts));
	assert_int_equal(tt_sim_on_deliver(sim, tag_deliver, &ts, NULL, 0), 0);
	sim_test_start(sim, &res);
	a = tt_node_index(&net, n0);
	b = tt_node_index(&net, n1);
	out = net.local_port[0][tt_port_of(0, 0)];
	assert_int_equal(tt_route(&net, a, b, TT_PORT_NIC).port, tt_port_of(0, 0));
	cb = ((uint64_t)a * (uint64_t)sim->np + (uint64_t)out) * (uint64_t)sim->V;
	for (v = 0; v < sim->nvc[0][out]; v++)
		sim->cred[cb + (uint64_t)v] = 0;
	put_packet(sim, a, sim->np - 1, 0, a, b, 1);
	put_packet(sim, a, sim->np - 1, 0, a, b, 2);
	sim_test_cycles(sim, &none, 0, 16);
	assert_int_equal(ts.at[1], 0);
	/* the credit wheel is short: fill it only now */
	for (v = 0; v < sim->nvc[0][out]; v++) {
		sim_receive_credit(sim, T, (uint32_t)(cb + (uint64_t)v));
		sim_receive_credit(sim, T, (uint32_t)(cb + (uint64_t)v));
	}
	sim_test_cycles(sim, &none, T, T + 64);
	assert_true(ts.at[1] > T && ts.at[1] < T + 64);
	assert_true(ts.at[2] > ts.at[1] && ts.at[2] < T + 64);
	tt_sim_free(sim);
	tt_net_free(&net);
}

/* Seed 000 §7.1 footnote 5: with the VC chosen by the output port, the
 * X- packet takes the X- lane and is delivered while the X+ packet stays
 * blocked; with the emptiest VC it joins the X+ packet's buffer and
 * waits behind it. */
static void
test_type1_lane_never_behind_other_port(void **state)
{
	uint64_t xplus, xm1, at;

	(void)state;
	at = fn5_case(TT_T1VC_PORT, &xplus, &xm1);
	assert_int_equal(xplus, 0);
	assert_true(xm1 > 0);
	assert_true(at > xm1);
	at = fn5_case(TT_T1VC_ROOM, &xplus, &xm1);
	assert_int_equal(xplus, 0);
	assert_true(xm1 > 0);
	assert_int_equal(at, 0);
}

/* The lanes of every configuration: type 1 splits only where its class
 * owns several of the §7.1 VCs, never changing the VCs a scheme needs. */
static void
test_lane_layout(void **state)
{
	static const int k444[3] = {4, 4, 4}, k4[4] = {4, 4, 4, 4};
	tt_net net;
	char letter[2] = {0, 0};
	int c;

	(void)state;
	for (c = 0; c < 10; c++) {
		letter[0] = (char)('A' + c);
		/* under vc C..J have 4 VCs for 4 classes, A, B, E, F no type 1 */
		tt_test_net(&net, 3, k444, 1, letter, TT_DL_VC);
		assert_int_equal(net.lanes[0], 1);
		assert_int_equal(net.int_chans, net.int_vcs);
		tt_net_free(&net);
		tt_test_net(&net, 3, k444, 1, letter, TT_DL_BUBBLE);
		if (net.t1_vcs > 0) {
			/* 3 classes on 4 VCs: type 1 has VCs 0 and 3 */
			assert_int_equal(net.int_vcs, 3);
			assert_int_equal(net.lanes[0], 2);
			assert_int_equal(net.int_chans, 4);
		} else {
			assert_int_equal(net.int_chans, net.int_vcs);
		}
		tt_net_free(&net);
	}
	/* best in 4D under vc: type 1 and type 3 on 4 VCs, two lanes each
	 * for type 1 only */
	tt_test_net(&net, 4, k4, 1, "best", TT_DL_VC);
	assert_int_equal(net.int_vcs, 2);
	assert_int_equal(net.lanes[0], 2);
	assert_int_equal(net.lanes[1], 1);
	assert_int_equal(tt_t1_chan(&net, 0, tt_port_of(0, 0)), 0);
	assert_int_equal(tt_t1_chan(&net, 0, tt_port_of(0, 1)), 2);
	tt_net_free(&net);
}

/* ---- ties drawn per packet, ring classes fixed at entry ---- */

/* A tie goes - exactly when the packet's bit for that dimension says so
 * (and only under TT_TIES_RANDOM); other distances ignore the bit. */
static void
test_ties_random_route(void **state)
{
	static const int k44[2] = {4, 4};
	static const int a[2] = {0, 0}, b[2] = {2, 0}, c[2] = {1, 0};
	tt_pktroute st = {0, 0};
	tt_netspec spec;
	tt_net net;
	char err[256];
	uint32_t pa, pb, pc;

	(void)state;
	tt_netspec_default(&spec);
	spec.n = 2;
	memcpy(spec.k, k44, sizeof(k44));
	spec.twin = 0;
	spec.ties = TT_TIES_RANDOM;
	assert_int_equal(tt_net_init(&net, &spec, err, sizeof(err)), 0);
	pa = tt_node_index(&net, a);
	pb = tt_node_index(&net, b);
	pc = tt_node_index(&net, c);
	assert_int_equal(tt_route_pkt(&net, pa, pb, TT_PORT_NIC, &st).port,
	    tt_port_of(0, 0));
	st.tie_neg = 1;
	assert_int_equal(tt_route_pkt(&net, pa, pb, TT_PORT_NIC, &st).port,
	    tt_port_of(0, 1));
	assert_int_equal(tt_route_pkt(&net, pa, pc, TT_PORT_NIC, &st).port,
	    tt_port_of(0, 0));
	st.tie_neg = 2;
	assert_int_equal(tt_route_pkt(&net, pa, pb, TT_PORT_NIC, &st).port,
	    tt_port_of(0, 0));
	/* tt_route() is the seed model's: ties to + */
	assert_int_equal(tt_route(&net, pa, pb, TT_PORT_NIC).port,
	    tt_port_of(0, 0));
	tt_net_free(&net);
}

/*
 * Under TT_RINGVC_ENTRY the class Alg. 4 gives at ring entry stays for
 * the whole ring: a packet from 5 to 1 on a ring of 8 (a tie, to +) goes
 * through the wrap (5, 6, 7, 0, 1); Alg. 4 moves it from VC 1 to VC 0
 * after the wrap, the fixed class keeps VC 1.
 */
static void
test_ring_vc_entry_route(void **state)
{
	static const int k88[2] = {8, 8};
	static const int from[2] = {5, 0}, to[2] = {1, 0};
	static const int want_hop[4] = {1, 1, 1, 0}, want_entry[4] = {1, 1, 1, 1};
	tt_pktroute st = {0, 0};
	tt_netspec spec;
	tt_net net;
	char err[256];
	uint32_t card, dst;
	int i, in, pp;
	tt_hop h, h0;

	(void)state;
	tt_netspec_default(&spec);
	spec.n = 2;
	memcpy(spec.k, k88, sizeof(k88));
	spec.twin = 0;
	spec.ring_vc = TT_RINGVC_ENTRY;
	assert_int_equal(tt_net_init(&net, &spec, err, sizeof(err)), 0);
	card = tt_node_index(&net, from);
	dst = tt_node_index(&net, to);
	in = TT_PORT_NIC;
	for (i = 0; i < 4; i++) {
		h = tt_route_pkt(&net, card, dst, in, &st);
		h0 = tt_route(&net, card, dst, in);
		assert_int_equal(h.port, tt_port_of(0, 0));
		assert_int_equal(h0.vc, want_hop[i]);
		assert_int_equal(h.vc, want_entry[i]);
		card = tt_link_peer(&net, card, h.port, &pp);
		in = pp;
	}
	assert_int_equal(card, dst);
	tt_net_free(&net);
}

/* The dependency graph stays acyclic with either rule, both at once, and
 * with the VCs of type 1 by class (room) or by lane (port): A..J under vc
 * and bubble, and best in 4 and 5 dimensions. */
static int
acyclic(const tt_netspec *spec)
{
	tt_net net;
	tt_cdg g;
	uint64_t *cycle = NULL;
	size_t len = 0;
	char err[256];
	int rc;

	assert_int_equal(tt_net_init(&net, spec, err, sizeof(err)), 0);
	assert_int_equal(tt_cdg_init(&g, &net), 0);
	assert_int_equal(tt_cdg_add_all(&g, NULL, NULL, NULL), 0);
	rc = tt_cdg_find_cycle(&g, &cycle, &len);
	assert_true(rc >= 0);
	free(cycle);
	rc = rc == 0 && g.bubble_violations == 0;
	tt_cdg_free(&g);
	tt_net_free(&net);
	return rc;
}

static void
test_rules_deadlock_free(void **state)
{
	static const int k4[5] = {4, 4, 4, 4, 4}, k3[5] = {3, 3, 3, 3, 3};
	char letter[2] = {0, 0}, err[256];
	tt_netspec spec;
	int c, dl, rule;

	(void)state;
	for (rule = 0; rule < 4; rule++)
		for (dl = TT_DL_VC; dl <= TT_DL_BUBBLE; dl++)
			for (c = 0; c < 12; c++) {
				tt_netspec_default(&spec);
				spec.deadlock = (enum tt_deadlock)dl;
				spec.t1_vc = rule == 3 ? TT_T1VC_ROOM : TT_T1VC_PORT;
				spec.ties = rule & 1 ? TT_TIES_RANDOM : TT_TIES_PLUS;
				spec.ring_vc = rule & 2 ? TT_RINGVC_ENTRY :
				    TT_RINGVC_HOP;
				if (c < 10) {
					letter[0] = (char)('A' + c);
					assert_int_equal(tt_netspec_set_ports(&spec,
					    letter, err, sizeof(err)), 0);
				} else {
					spec.n = c == 10 ? 4 : 5;
					memcpy(spec.k, c == 10 ? k4 : k3,
					    sizeof(int) * (size_t)spec.n);
				}
				if (!acyclic(&spec))
					fail_msg("%s %s rule %d: a cycle",
					    c < 10 ? letter : c == 10 ? "best 4D" :
					    "best 5D", tt_deadlock_name(spec.deadlock),
					    rule);
			}
}

/* ---- runs ---- */

/* Every packet of a heavy run arrives, with each rule on: a plain torus
 * and twin tori, vc and bubble (the watchdog never fires). */
static void
test_rules_run(void **state)
{
	static const int k444[3] = {4, 4, 4}, k66[2] = {6, 6};
	tt_simparams p;
	tt_netspec spec;
	tt_net net;
	tt_sim *sim;
	tt_traffic tr;
	tt_source src;
	tt_simresult r;
	char err[256];
	int i, dl;

	(void)state;
	for (i = 0; i < 3; i++)
		for (dl = TT_DL_VC; dl <= TT_DL_BUBBLE; dl++) {
			tt_netspec_default(&spec);
			if (i == 0) {
				spec.n = 2;
				memcpy(spec.k, k66, sizeof(k66));
				spec.twin = 0;
			} else {
				memcpy(spec.k, k444, sizeof(k444));
				tt_netspec_set_ports(&spec, i == 1 ? "D" : "A",
				    err, sizeof(err));
			}
			spec.deadlock = (enum tt_deadlock)dl;
			spec.ties = TT_TIES_RANDOM;
			spec.ring_vc = TT_RINGVC_ENTRY;
			assert_int_equal(tt_net_init(&net, &spec, err,
			    sizeof(err)), 0);
			tt_simparams_default(&p);
			p.warmup = 500;
			p.measure = 2000;
			p.drain = 100000;
			assert_int_equal(tt_sim_create(&sim, &net, &p, err,
			    sizeof(err)), 0);
			tt_traffic_default(&tr);
			tr.load = 1.0;
			tr.stop = 2500;
			tr.uniform_self = 1;
			assert_int_equal(tt_traffic_init(&tr, &net, err,
			    sizeof(err)), 0);
			src = tt_traffic_source(&tr);
			assert_int_equal(tt_sim_run(sim, &src, 1, &r, NULL, NULL), 0);
			assert_false(r.deadlock);
			assert_int_equal(r.delivered, r.generated);
			tt_simresult_free(&r);
			tt_traffic_free(&tr);
			tt_sim_free(sim);
			tt_net_free(&net);
		}
}

/* Uniform traffic reaches the source itself exactly when asked to, about
 * once in N packets. */
struct selfcount {
	uint64_t self, all;
};

static void
count_self(void *ctx, const tt_delivery *d)
{
	struct selfcount *sc = ctx;

	sc->all++;
	sc->self += d->src == d->dst;
}

static void
test_uniform_self(void **state)
{
	static const int k44[2] = {4, 4};
	struct selfcount sc;
	tt_simparams p;
	tt_net net;
	tt_sim *sim;
	tt_traffic tr;
	tt_source src;
	tt_simresult r;
	char err[256];
	int self;

	(void)state;
	tt_test_net(&net, 2, k44, 0, NULL, TT_DL_VC);
	tt_simparams_default(&p);
	for (self = 0; self <= 1; self++) {
		assert_int_equal(tt_sim_create(&sim, &net, &p, err, sizeof(err)), 0);
		memset(&sc, 0, sizeof(sc));
		assert_int_equal(tt_sim_on_deliver(sim, count_self, &sc, NULL, 0), 0);
		tt_traffic_default(&tr);
		tr.load = 0.2;
		tr.stop = 20000;
		tr.uniform_self = self;
		assert_int_equal(tt_traffic_init(&tr, &net, err, sizeof(err)), 0);
		src = tt_traffic_source(&tr);
		assert_int_equal(tt_sim_run(sim, &src, 1, &r, NULL, NULL), 0);
		if (!self) {
			assert_int_equal(sc.self, 0);
		} else {
			/* 1/16 of some 16,000 packets: 1,000 +- 4 sigma */
			assert_true(sc.self * 16 > sc.all * 7 / 8);
			assert_true(sc.self * 16 < sc.all * 9 / 8);
		}
		tt_simresult_free(&r);
		tt_traffic_free(&tr);
		tt_sim_free(sim);
	}
	tt_net_free(&net);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_type1_lane_never_behind_other_port),
		cmocka_unit_test(test_lane_layout),
		cmocka_unit_test(test_ready_after_long_wait),
		cmocka_unit_test(test_ties_random_route),
		cmocka_unit_test(test_ring_vc_entry_route),
		cmocka_unit_test(test_rules_deadlock_free),
		cmocka_unit_test(test_rules_run),
		cmocka_unit_test(test_uniform_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
