/*
 * The routing function against the rules of seed 000 §6:
 * DOR order, ringDirection() with ties to +, internal-link crossings, the
 * VC numbers of Alg. 3 and Alg. 6 for configuration D, the bubble flags of
 * Alg. 5, and compact routing tables equal to the function everywhere.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "twintorus/analyze.h"
#include "twintorus/topo.h"
#include "tt_test.h"

static uint32_t
pe_at(const tt_net *net, int x, int y, int z, int side)
{
	int c[3] = {x, y, z};

	return tt_card_of(net, tt_node_index(net, c), side);
}

static void
test_ids_follow_design(void **state)
{
	static const int k[3] = {4, 3, 5};
	tt_net net;
	int c[3] = {3, 2, 4};

	(void)state;
	tt_test_net(&net, 3, k, 1, "D", TT_DL_VC);
	/* node = o0 + k0*(o1 + k1*o2), pe = node*2 + card */
	assert_int_equal(tt_node_index(&net, c), 3 + 4 * (2 + 3 * 4));
	assert_int_equal(pe_at(&net, 3, 2, 4, 1), 2 * (3 + 4 * (2 + 3 * 4)) + 1);
	assert_int_equal(net.ncards, 2 * 4 * 3 * 5);
	tt_net_free(&net);
}

static void
test_letters_match_table1(void **state)
{
	/* card 0 of each configuration, seed 000 Table 1 */
	static const char *card0[10] = {
		"X+ Y+ Z+", "X+ Y+ Z-", "X+ Y+ Y-", "X+ X- Y+", "X+ Y- Z+",
		"X+ Y- Z-", "X+ X- Y-", "X+ Z+ Z-", "X+ X- Z+", "X+ X- Z-",
	};
	static const int k[3] = {4, 4, 4};
	char letter[2] = {0, 0}, got[32], pb[8];
	tt_net net;
	int i, p;

	(void)state;
	for (i = 0; i < 10; i++) {
		letter[0] = (char)('A' + i);
		tt_test_net(&net, 3, k, 1, letter, TT_DL_VC);
		got[0] = '\0';
		for (p = 0; p < 6; p++) {
			if (net.port_card[p] != 0)
				continue;
			if (got[0])
				strcat(got, " ");
			strcat(got, tt_port_name(p, 3, pb, sizeof(pb)));
		}
		assert_string_equal(got, card0[i]);
		tt_net_free(&net);
	}
}

static void
test_best_is_d_for_even_g_for_odd(void **state)
{
	static const int k4[3] = {4, 4, 4}, k5[3] = {5, 5, 5};
	tt_net best, d;

	(void)state;
	tt_test_net(&best, 3, k4, 1, "best", TT_DL_VC);
	tt_test_net(&d, 3, k4, 1, "D", TT_DL_VC);
	assert_memory_equal(best.port_card, d.port_card, 6);
	tt_net_free(&best);
	tt_net_free(&d);
	/* odd k: seed 001 Def. 3.5 puts d_mid- on card 0, which is G */
	tt_test_net(&best, 3, k5, 1, "best", TT_DL_VC);
	tt_test_net(&d, 3, k5, 1, "G", TT_DL_VC);
	assert_memory_equal(best.port_card, d.port_card, 6);
	tt_net_free(&best);
	tt_net_free(&d);
}

static void
test_ring_direction_ties_to_plus(void **state)
{
	static const int k[3] = {4, 5, 4};
	tt_net net;
	tt_hop h;

	(void)state;
	tt_test_net(&net, 3, k, 0, NULL, TT_DL_VC);
	/* k = 4, distance 2: both ways are equal, + is taken */
	h = tt_route(&net, pe_at(&net, 0, 0, 0, 0), pe_at(&net, 2, 0, 0, 0), TT_PORT_NIC);
	assert_int_equal(h.port, tt_port_of(0, 0));
	h = tt_route(&net, pe_at(&net, 3, 0, 0, 0), pe_at(&net, 1, 0, 0, 0), TT_PORT_NIC);
	assert_int_equal(h.port, tt_port_of(0, 0));
	/* distance 3 of 4 is 1 the other way */
	h = tt_route(&net, pe_at(&net, 0, 0, 0, 0), pe_at(&net, 3, 0, 0, 0), TT_PORT_NIC);
	assert_int_equal(h.port, tt_port_of(0, 1));
	/* k = 5: distance 2 forward, 3 forward = 2 back */
	h = tt_route(&net, pe_at(&net, 0, 1, 0, 0), pe_at(&net, 0, 3, 0, 0), TT_PORT_NIC);
	assert_int_equal(h.port, tt_port_of(1, 0));
	h = tt_route(&net, pe_at(&net, 0, 1, 0, 0), pe_at(&net, 0, 4, 0, 0), TT_PORT_NIC);
	assert_int_equal(h.port, tt_port_of(1, 1));
	tt_net_free(&net);
}

static void
test_dimension_order(void **state)
{
	static const int k[3] = {4, 4, 4};
	tt_net net;
	tt_hop h;

	(void)state;
	tt_test_net(&net, 3, k, 0, NULL, TT_DL_VC);
	/* differs in Y and Z: Y first */
	h = tt_route(&net, pe_at(&net, 1, 1, 1, 0), pe_at(&net, 1, 2, 3, 0), TT_PORT_NIC);
	assert_int_equal(h.port, tt_port_of(1, 0));
	assert_int_equal(h.dim, 1);
	/* at the destination: eject */
	h = tt_route(&net, pe_at(&net, 1, 2, 3, 0), pe_at(&net, 1, 2, 3, 0), TT_PORT_NIC);
	assert_int_equal(h.port, TT_PORT_NIC);
	assert_int_equal(h.type, TT_HOP_EJECT);
	tt_net_free(&net);
}

/* Seed 000 Alg. 3: configuration D under vc. */
static void
test_d_vc_numbers_follow_alg3(void **state)
{
	static const int k[3] = {4, 4, 4};
	tt_net net;
	tt_hop h;

	(void)state;
	tt_test_net(&net, 3, k, 1, "D", TT_DL_VC);
	assert_int_equal(net.int_vcs, 4);
	/* PE1 (card1: Y- Z+ Z-) going +X: X is on card0, not split: type 1, vc 0 */
	h = tt_route(&net, pe_at(&net, 0, 0, 0, 1), pe_at(&net, 1, 0, 0, 0), TT_PORT_NIC);
	assert_int_equal(h.port, TT_PORT_INT);
	assert_int_equal(h.type, TT_HOP_T1);
	assert_int_equal(h.vc, 0);
	/* PE1 going +Y (dest digit above): Y+ on card0, Y split: type 2, vc 1 */
	h = tt_route(&net, pe_at(&net, 0, 1, 0, 1), pe_at(&net, 0, 2, 0, 0), TT_PORT_NIC);
	assert_int_equal(h.type, TT_HOP_T2);
	assert_int_equal(h.vc, 1);
	/* +Y across the wrap (dest digit below): vc 2 */
	h = tt_route(&net, pe_at(&net, 0, 3, 0, 1), pe_at(&net, 0, 0, 0, 0), TT_PORT_NIC);
	assert_int_equal(h.type, TT_HOP_T2);
	assert_int_equal(h.vc, 2);
	/* to the neighbour PE: type 3, vc 3 */
	h = tt_route(&net, pe_at(&net, 2, 2, 2, 0), pe_at(&net, 2, 2, 2, 1), TT_PORT_NIC);
	assert_int_equal(h.type, TT_HOP_T3);
	assert_int_equal(h.vc, 3);
	/* card0 going +X: external, Up_Links = vc 0; across the wrap vc 1 */
	h = tt_route(&net, pe_at(&net, 1, 0, 0, 0), pe_at(&net, 2, 0, 0, 0), TT_PORT_NIC);
	assert_int_equal(h.port, tt_port_of(0, 0));
	assert_int_equal(h.vc, 0);
	h = tt_route(&net, pe_at(&net, 3, 0, 0, 0), pe_at(&net, 0, 0, 0, 0), TT_PORT_NIC);
	assert_int_equal(h.port, tt_port_of(0, 0));
	assert_int_equal(h.vc, 1);
	tt_net_free(&net);
}

/* Seed 000 Alg. 5 and 6: configuration D under bubble. */
static void
test_d_bubble_follows_alg5_alg6(void **state)
{
	static const int k[3] = {4, 4, 4};
	tt_net net;
	tt_hop h;
	uint32_t c0 = 0, c1 = 0;

	(void)state;
	tt_test_net(&net, 3, k, 1, "D", TT_DL_BUBBLE);
	assert_int_equal(net.int_vcs, 3);
	assert_int_equal(net.ext_vcs, 1);
	c0 = pe_at(&net, 1, 1, 1, 0);
	c1 = pe_at(&net, 1, 1, 1, 1);
	/* type 1 (card1 to X on card0): vc 0, no bubble */
	h = tt_route(&net, c1, pe_at(&net, 2, 1, 1, 0), TT_PORT_NIC);
	assert_int_equal(h.type, TT_HOP_T1);
	assert_int_equal(h.vc, 0);
	assert_int_equal(h.bubble, 0);
	/* after the type-1 crossing, leaving into the X ring asks for it */
	h = tt_route(&net, c0, pe_at(&net, 2, 1, 1, 0), TT_PORT_INT);
	assert_int_equal(h.port, tt_port_of(0, 0));
	assert_int_equal(h.bubble, 1);
	/* continuing in X (arrived on X-) does not */
	h = tt_route(&net, c0, pe_at(&net, 3, 1, 1, 0), tt_port_of(0, 1));
	assert_int_equal(h.bubble, 0);
	/* type 2, entering the Y ring from X: vc 1 with the bubble */
	h = tt_route(&net, c0, pe_at(&net, 1, 0, 1, 0), tt_port_of(0, 1));
	assert_int_equal(h.type, TT_HOP_T2);
	assert_int_equal(h.vc, 1);
	assert_int_equal(h.bubble, 1);
	/* type 2, continuing the Y ring (arrived on Y-, card1): no bubble */
	h = tt_route(&net, c1, pe_at(&net, 1, 2, 1, 0), tt_port_of(1, 1));
	assert_int_equal(h.type, TT_HOP_T2);
	assert_int_equal(h.bubble, 0);
	/* out of Y+ after the type-2 crossing: no bubble (Alg. 5 line 12) */
	h = tt_route(&net, c0, pe_at(&net, 1, 2, 1, 0), TT_PORT_INT);
	assert_int_equal(h.port, tt_port_of(1, 0));
	assert_int_equal(h.bubble, 0);
	/* type 3: vc 2, no bubble */
	h = tt_route(&net, c0, c1, TT_PORT_NIC);
	assert_int_equal(h.type, TT_HOP_T3);
	assert_int_equal(h.vc, 2);
	assert_int_equal(h.bubble, 0);
	tt_net_free(&net);
}

/* A packet crosses the internal link exactly when Alg. 1 says so. */
static void
test_internal_crossing_only_when_port_on_other_card(void **state)
{
	static const int k[3] = {3, 4, 5};
	char letter[2] = {0, 0};
	tt_net net;
	tt_hop h;
	uint32_t s, t;
	int i, side, want;

	(void)state;
	for (i = 0; i < 10; i++) {
		letter[0] = (char)('A' + i);
		tt_test_net(&net, 3, k, 1, letter, TT_DL_VC);
		for (s = 0; s < net.ncards; s++) {
			side = tt_card_side(&net, s);
			for (t = 0; t < net.ncards; t++) {
				h = tt_route(&net, s, t, TT_PORT_NIC);
				if (h.type == TT_HOP_EJECT) {
					assert_int_equal(s, t);
					continue;
				}
				if (h.type == TT_HOP_T3) {
					assert_int_equal(s ^ 1u, t);
					continue;
				}
				if (h.type == TT_HOP_EXT) {
					assert_int_equal(net.port_card[h.port], side);
					continue;
				}
				/* T1/T2: the DOR port is on the other card */
				want = net.split[h.dim] ? TT_HOP_T2 : TT_HOP_T1;
				assert_int_equal(h.type, want);
				assert_int_equal(net.port_card[tt_port_of(h.dim, 0)] == side &&
				    net.port_card[tt_port_of(h.dim, 1)] == side, 0);
			}
		}
		tt_net_free(&net);
	}
}

static void
check_table_equals_function(const tt_net *net)
{
	tt_rtable rt;
	tt_hop a, b;
	uint32_t card, dst;
	int in;
	static const int ins[3] = {TT_PORT_NIC, TT_PORT_INT, 1};

	for (card = 0; card < net->ncards; card++) {
		assert_int_equal(tt_rtable_build(net, card, &rt), 0);
		for (dst = 0; dst < net->ncards; dst++) {
			for (in = 0; in < 3; in++) {
				if (!net->twin && ins[in] == TT_PORT_INT)
					continue;
				a = tt_route(net, card, dst, ins[in]);
				b = tt_rtable_lookup(net, &rt, dst, ins[in]);
				assert_memory_equal(&a, &b, sizeof(a));
			}
		}
		tt_rtable_free(&rt);
	}
}

static void
test_rtable_equals_route(void **state)
{
	static const int k3[3] = {4, 3, 5}, k4[4] = {3, 2, 3, 4}, k2[2] = {16, 8};
	tt_net net;

	(void)state;
	tt_test_net(&net, 3, k3, 1, "D", TT_DL_VC);
	check_table_equals_function(&net);
	tt_net_free(&net);
	tt_test_net(&net, 3, k3, 1, "A", TT_DL_BUBBLE);
	check_table_equals_function(&net);
	tt_net_free(&net);
	tt_test_net(&net, 4, k4, 1, "best", TT_DL_VC);
	check_table_equals_function(&net);
	tt_net_free(&net);
	tt_test_net(&net, 2, k2, 0, NULL, TT_DL_VC);
	check_table_equals_function(&net);
	tt_net_free(&net);
}

/* Every route arrives, within the DOR bound, for mixed k and both kinds. */
static void
test_every_route_arrives(void **state)
{
	static const int k[4] = {2, 3, 4, 5};
	tt_cdg g;
	tt_pathstats st;
	tt_net net;

	(void)state;
	tt_test_net(&net, 4, k, 1, "best", TT_DL_VC);
	memset(&st, 0, sizeof(st));
	st.transit = calloc(net.nnodes, sizeof(uint64_t));
	assert_non_null(st.transit);
	assert_int_equal(tt_cdg_init(&g, &net), 0);
	assert_int_equal(tt_cdg_add_all(&g, &st, NULL, NULL), 0);
	assert_int_equal(st.pairs, (uint64_t)net.ncards * (net.ncards - 1));
	tt_cdg_free(&g);
	free(st.transit);
	tt_net_free(&net);
}

static void
test_link_peers_are_symmetric(void **state)
{
	static const int k[3] = {2, 3, 4};
	tt_net net;
	uint32_t card, peer, back;
	int i, pp, pb, side;

	(void)state;
	tt_test_net(&net, 3, k, 1, "B", TT_DL_VC);
	for (card = 0; card < net.ncards; card++) {
		side = tt_card_side(&net, card);
		for (i = 0; i < net.card_nports; i++) {
			peer = tt_link_peer(&net, card, net.card_port[side][i], &pp);
			back = tt_link_peer(&net, peer, pp, &pb);
			assert_int_equal(back, card);
			assert_int_equal(pb, net.card_port[side][i]);
			/* X+ meets X- (cabling rule), internal meets internal */
			if (pp != TT_PORT_INT)
				assert_int_equal(pp, net.card_port[side][i] ^ 1);
		}
	}
	tt_net_free(&net);
}

static void
test_pe_parse(void **state)
{
	static const int k[3] = {4, 4, 4};
	char err[256];
	tt_net net;
	uint32_t pe;

	(void)state;
	tt_test_net(&net, 3, k, 1, "D", TT_DL_VC);
	assert_int_equal(tt_pe_parse(&net, "1,0,3/1", &pe, err, sizeof(err)), 0);
	assert_int_equal(pe, pe_at(&net, 1, 0, 3, 1));
	assert_int_equal(tt_pe_parse(&net, "(1,0,3)/c0", &pe, err, sizeof(err)), 0);
	assert_int_equal(pe, pe_at(&net, 1, 0, 3, 0));
	assert_int_equal(tt_pe_parse(&net, "17", &pe, err, sizeof(err)), 0);
	assert_int_equal(pe, 17);
	assert_int_equal(tt_pe_parse(&net, "128", &pe, err, sizeof(err)), -1);
	assert_int_equal(tt_pe_parse(&net, "1,0/1", &pe, err, sizeof(err)), -1);
	assert_int_equal(tt_pe_parse(&net, "1,0,4/1", &pe, err, sizeof(err)), -1);
	assert_int_equal(tt_pe_parse(&net, "x", &pe, err, sizeof(err)), -1);
	/* ids and coordinates beyond an int are refused, not truncated to
	 * PE 0 or coordinate 0 */
	assert_int_equal(tt_pe_parse(&net, "4294967296", &pe, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "does not exist"));
	assert_int_equal(tt_pe_parse(&net, "4294967296,0,0/1", &pe, err,
	    sizeof(err)), -1);
	assert_int_equal(tt_pe_parse(&net, "0,0,4294967297/0", &pe, err,
	    sizeof(err)), -1);
	tt_net_free(&net);
}

static void
test_bad_specs_are_refused(void **state)
{
	tt_netspec s;
	tt_net net;
	char err[256];

	(void)state;
	tt_netspec_default(&s);
	assert_int_equal(tt_netspec_set_dims(&s, "1,4", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "needs 2.."));
	assert_int_equal(tt_netspec_set_dims(&s, "4", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "at least 2 dimensions"));
	assert_int_equal(tt_netspec_set_ports(&s, "K", err, sizeof(err)), -1);
	/* a letter on 4 dimensions */
	assert_int_equal(tt_netspec_set_dims(&s, "3,3,3,3", err, sizeof(err)), 0);
	assert_int_equal(tt_netspec_set_ports(&s, "D", err, sizeof(err)), 0);
	assert_int_equal(tt_net_init(&net, &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "3 dimensions only"));
	/* a custom map that repeats X+ and so omits a port */
	tt_netspec_default(&s);
	s.ports_kind = TT_PORTS_CUSTOM;
	s.ncard[0] = 3;
	s.ncard[1] = 3;
	memcpy(s.card_ports[0], (int8_t[]){0, 1, 2}, 3);
	memcpy(s.card_ports[1], (int8_t[]){0, 4, 5}, 3);
	assert_int_equal(tt_net_init(&net, &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "X+ is listed twice"));
	s.card_ports[1][0] = 3;
	assert_int_equal(tt_net_init(&net, &s, err, sizeof(err)), 0);
	tt_net_free(&net);
	/* four ports on one card */
	s.ncard[0] = 4;
	s.ncard[1] = 2;
	memcpy(s.card_ports[0], (int8_t[]){0, 1, 2, 3}, 4);
	memcpy(s.card_ports[1], (int8_t[]){4, 5}, 2);
	assert_int_equal(tt_net_init(&net, &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "card0 holds 4"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids_follow_design),
		cmocka_unit_test(test_letters_match_table1),
		cmocka_unit_test(test_best_is_d_for_even_g_for_odd),
		cmocka_unit_test(test_ring_direction_ties_to_plus),
		cmocka_unit_test(test_dimension_order),
		cmocka_unit_test(test_d_vc_numbers_follow_alg3),
		cmocka_unit_test(test_d_bubble_follows_alg5_alg6),
		cmocka_unit_test(test_internal_crossing_only_when_port_on_other_card),
		cmocka_unit_test(test_rtable_equals_route),
		cmocka_unit_test(test_every_route_arrives),
		cmocka_unit_test(test_link_peers_are_symmetric),
		cmocka_unit_test(test_pe_parse),
		cmocka_unit_test(test_bad_specs_are_refused),
	};

	return cmocka_run_group_tests_name("route", tests, NULL, NULL);
}
