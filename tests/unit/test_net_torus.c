/*
 * Twin and plain tori as a generator (lib/networks/net_torus.c) behind
 * the ops every network has, and the spec strings every kind takes:
 *   - every kind has a generator, the torus included, found by its kind;
 *   - "torus:k=K[,n=N]" (and "twin:", "plain:") is the K-ary N-cube,
 *     n = 3 by default: the same spec, network and analysis as its dims;
 *   - the cube kinds (pruned, msn, pruned-msn) take their dims, one k;
 *     mh3dt takes k= as its BM side m; tesh takes k= as its BM side 2^m
 *     and refuses n=, saying why; a dims form is refused where it names
 *     no network;
 *   - through the ops: links lead back, a card's name parses back to it,
 *     tables equal the routing function, the coordinate patterns move
 *     the torus's coordinates, and the bisection cuts are the torus's.
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
#include "twintorus/sim.h"
#include "twintorus/traffic.h"
#include "networks/netgen.h"
#include "tt_test.h"

static void
parse_ok(tt_netspec *s, const char *spec)
{
	char err[256];

	tt_netspec_default(s);
	if (tt_netspec_parse(s, spec, err, sizeof(err)) != 0)
		fail_msg("tt_netspec_parse(%s): %s", spec, err);
}

static void
net_of(tt_net *net, const char *spec)
{
	tt_netspec s;
	char err[256];

	parse_ok(&s, spec);
	if (tt_net_init(net, &s, err, sizeof(err)) != 0)
		fail_msg("tt_net_init(%s): %s", spec, err);
}

/* The spec as --dims K,... [--plain] gives it (netopts.c's way). */
static void
dims_spec(tt_netspec *s, const char *dims, int twin)
{
	char err[256];

	tt_netspec_default(s);
	if (tt_netspec_set_dims(s, dims, err, sizeof(err)) != 0)
		fail_msg("%s: %s", dims, err);
	s->twin = twin;
}

static void
test_every_kind_has_a_generator(void **state)
{
	static const enum tt_topo kinds[] = {TT_TOPO_TORUS, TT_TOPO_PRUNED,
	    TT_TOPO_MSN, TT_TOPO_PRUNED_MSN, TT_TOPO_MH3DT, TT_TOPO_TESH};
	tt_net net;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		assert_non_null(netgen_find(kinds[i]));
		assert_int_equal(netgen_find(kinds[i])->topo, kinds[i]);
	}
	assert_string_equal(netgen_find(TT_TOPO_TORUS)->name, "torus");
	net_of(&net, "twin:4x4x4");
	assert_ptr_equal(netgen_of(&net), netgen_find(TT_TOPO_TORUS));
	assert_true(tt_net_is_torus(&net));
	tt_net_free(&net);
	net_of(&net, "pruned:k=4");
	assert_false(tt_net_is_torus(&net));
	tt_net_free(&net);
}

/* torus:k=K[,n=N] is the spec of --dims K,..,K --plain, twin: of --dims. */
static void
test_torus_keys_are_its_dims(void **state)
{
	static const struct {
		const char *spec, *dims;
		int twin;
	} same[] = {
		{"torus:k=4", "4,4,4", 0},
		{"plain:k=4", "4,4,4", 0},
		{"torus:k=8,n=2", "8,8", 0},
		{"torus:n=4,k=3", "3,3,3,3", 0},
		{"twin:k=4", "4,4,4", 1},
		{"twin:k=6,n=2", "6,6", 1},
		{"torus:4x4x4", "4,4,4", 0},
	};
	tt_netspec a, b;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		parse_ok(&a, same[i].spec);
		dims_spec(&b, same[i].dims, same[i].twin);
		if (memcmp(&a, &b, sizeof(a)) != 0)
			fail_msg("%s: not the spec of --dims %s%s", same[i].spec,
			    same[i].dims, same[i].twin ? "" : " --plain");
	}
}

/* Analysed, torus:k=4 is --dims 4,4,4 --plain: every figure equal. */
static void
test_torus_keys_analyse_as_dims(void **state)
{
	tt_analysis a, b;
	tt_netspec s;
	tt_net n1, n2;
	char err[256];

	(void)state;
	net_of(&n1, "torus:k=4");
	dims_spec(&s, "4,4,4", 0);
	assert_int_equal(tt_net_init(&n2, &s, err, sizeof(err)), 0);
	assert_int_equal(tt_analyze(&n1, &a, err, sizeof(err)), 0);
	assert_int_equal(tt_analyze(&n2, &b, err, sizeof(err)), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	/* the 4-ary 3-cube: 64 nodes of degree 6, 192 links, diameter 6,
	 * bisection 2 * 4^2 = 32 */
	assert_int_equal(a.nodes, 64);
	assert_int_equal(a.links, 192);
	assert_int_equal(a.degree_min, 6);
	assert_int_equal(a.degree_max, 6);
	assert_int_equal(a.diameter, 6);
	assert_int_equal(a.max_dor_hops, 6);
	assert_int_equal(a.bisection, 32);
	tt_net_free(&n1);
	tt_net_free(&n2);
}

/* Each kind's k= and n=, its dims form, and clear refusals. */
static void
test_keys_of_every_kind(void **state)
{
	static const struct {
		const char *spec, *name;
	} good[] = {
		{"pruned:8x8x8", "pruned:k=8,n=3"},
		{"msn:4x4", "msn:k=4,n=2"},
		{"pruned-msn:4,4,4", "pruned-msn:k=4,n=3"},
		{"mh3dt:k=3,n=2", "mh3dt:m=3,n=2,L=2,q=2"},
		{"tesh:k=4,L=1", "tesh:m=2,L=1,q=0"},
	};
	static const struct {
		const char *spec, *says;
	} parse_bad[] = {
		{"torus:k=4,m=2", "'m' is not a key of torus (its keys: k,n)"},
		{"twin:k=4,L=2", "'L' is not a key of twin"},
		{"torus:n=3", "torus: give k, the nodes per dimension"},
		{"twin:k=1", "twin: k=1: each dimension needs 2..65535 nodes"},
		{"torus:k=0", "torus: k=0"},
		{"torus:k=4,n=9", "torus: n=9: the dimensions must be 2..8"},
		{"torus:k=4,n=1", "torus: n=1"},
		{"plain:k=4,k=5", "k is given twice"},
		{"torus", "give the dimensions, e.g. torus:8x8x8 or torus:k=8"},
		{"pruned:8x8x4", "a pruned network has the same k in every "
		    "dimension; give pruned:k=K,n=N"},
		{"msn:8", "at least 2 dimensions"},
		{"mh3dt:4x4x4", "dims name a k-ary n-cube, which mh3dt is not; "
		    "give its keys (k,m,n,L,q,vcs), e.g. mh3dt:m=4"},
		{"tesh:4x4x4", "dims name a k-ary n-cube, which tesh is not"},
		{"tesh:n=3", "'n=3': n is not a key of tesh: 3D-TESH has three "
		    "dimensions at every level"},
	}, build_bad[] = {
		{"mh3dt:k=3,m=3", "mh3dt: k=3 and m=3 both give the BM side"},
		{"mh3dt:k=2", "mh3dt: k=2: the BM side must be 3..64"},
		{"tesh:k=8", "tesh: k=8: the BM side is 2^m and only m=2 (k=4"},
		{"tesh:k=4,m=2", "both give the BM side"},
		{"torus:k=65535", "more than 67108864 nodes"},
	};
	tt_netspec s;
	tt_net net;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		net_of(&net, good[i].spec);
		assert_string_equal(tt_topo_name(&net), good[i].name);
		tt_net_free(&net);
	}
	for (i = 0; i < sizeof(parse_bad) / sizeof(parse_bad[0]); i++) {
		tt_netspec_default(&s);
		if (tt_netspec_parse(&s, parse_bad[i].spec, err,
		    sizeof(err)) == 0)
			fail_msg("%s: parsed", parse_bad[i].spec);
		if (strstr(err, parse_bad[i].says) == NULL)
			fail_msg("%s: '%s' does not say '%s'", parse_bad[i].spec,
			    err, parse_bad[i].says);
	}
	for (i = 0; i < sizeof(build_bad) / sizeof(build_bad[0]); i++) {
		parse_ok(&s, build_bad[i].spec);
		if (tt_netspec_check(&s, err, sizeof(err)) == 0)
			fail_msg("%s: accepted", build_bad[i].spec);
		if (strstr(err, build_bad[i].says) == NULL)
			fail_msg("%s: '%s' does not say '%s'", build_bad[i].spec,
			    err, build_bad[i].says);
	}
}

/* Through the ops, on twin and plain tori: every link leads back to its
 * port, every card's name parses back to it, tables equal routes. */
static void
test_torus_through_the_ops(void **state)
{
	static const char *const specs[] = {"twin:4x4x4", "twin:k=3,n=4",
	    "torus:k=3", "twin:5x4"};
	tt_simparams p;
	tt_sim *sim;
	tt_net net;
	uint32_t c, peer, back, pe;
	int i, o, port, pp, bp;
	char name[96], err[256];
	size_t s;

	(void)state;
	tt_simparams_default(&p);
	for (s = 0; s < sizeof(specs) / sizeof(specs[0]); s++) {
		net_of(&net, specs[s]);
		for (c = 0; c < net.ncards; c++) {
			for (o = 0; o < net.card_nports; o++) {
				port = net.card_port[tt_card_side(&net, c)][o];
				assert_true(tt_net_has_link(&net, c, port));
				peer = tt_link_peer(&net, c, port, &pp);
				back = tt_link_peer(&net, peer, pp, &bp);
				if (back != c || bp != port)
					fail_msg("%s: card %u port %d does not "
					    "lead back", specs[s], c, port);
			}
			assert_false(tt_net_has_link(&net, c, TT_PORT_NIC));
			tt_card_name(&net, c, name, sizeof(name));
			if (tt_pe_parse(&net, name, &pe, err, sizeof(err)) != 0 ||
			    pe != c)
				fail_msg("%s: '%s' does not parse back to %u: %s",
				    specs[s], name, c, err);
			assert_int_equal(tt_route(&net, c, c, TT_PORT_NIC).type,
			    TT_HOP_EJECT);
		}
		if (tt_sim_create(&sim, &net, &p, err, sizeof(err)) != 0)
			fail_msg("%s: %s", specs[s], err);
		if (tt_sim_check_routes(sim) != 0)
			fail_msg("%s: a table differs from tt_route", specs[s]);
		tt_sim_free(sim);
		/* the bisection cuts: one per dimension, through its middle */
		assert_int_equal(tt_net_cuts(&net), net.n);
		for (i = 0; i < net.n; i++)
			assert_int_equal(tt_net_cut_side(&net, i,
			    net.stride[i] * (uint32_t)(net.k[i] / 2)), 1);
		tt_net_free(&net);
	}
	/* a plain torus has one PE a node */
	net_of(&net, "torus:k=3");
	assert_int_equal(tt_pe_parse(&net, "1,2,0/1", &pe, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "a plain torus has one PE per node"));
	tt_net_free(&net);
}

/* The coordinate patterns move a torus's coordinates, through its
 * id digits: tornado adds k/2 - 1 to each, center-reflection maps c to
 * k - 1 - c, the card kept. */
static void
test_torus_patterns(void **state)
{
	tt_traffic tr;
	tt_net net;
	char err[256];
	uint32_t pe, node;
	int d, c, want[TT_MAX_DIMS];

	(void)state;
	net_of(&net, "twin:6x4x8");
	tt_traffic_default(&tr);
	tr.pattern = TT_TR_TORNADO;
	assert_int_equal(tt_traffic_init(&tr, &net, err, sizeof(err)), 0);
	for (pe = 0; pe < net.ncards; pe++) {
		node = tt_card_node(&net, pe);
		for (d = 0; d < net.n; d++) {
			c = tt_node_digit(&net, node, d);
			want[d] = (c + net.k[d] / 2 - 1) % net.k[d];
		}
		assert_int_equal(tr.dest[pe], tt_card_of(&net,
		    tt_node_index(&net, want), tt_card_side(&net, pe)));
	}
	tt_traffic_free(&tr);
	tt_traffic_default(&tr);
	tr.pattern = TT_TR_CENTER;
	assert_int_equal(tt_traffic_init(&tr, &net, err, sizeof(err)), 0);
	assert_int_equal(tr.dest[1], net.ncards - 1);  /* (0,0,0)/c1 */
	tt_traffic_free(&tr);
	tt_net_free(&net);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_kind_has_a_generator),
		cmocka_unit_test(test_torus_keys_are_its_dims),
		cmocka_unit_test(test_torus_keys_analyse_as_dims),
		cmocka_unit_test(test_keys_of_every_kind),
		cmocka_unit_test(test_torus_through_the_ops),
		cmocka_unit_test(test_torus_patterns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
