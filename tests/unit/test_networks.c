/*
 * The generated networks against the published values that hold, each
 * found by enumeration (BFS, route enumeration, the dependency graph):
 *   Parhami & Kwai, Comparing four classes of torus-based parallel
 *   architectures, 2004: Table 1 (n = 3, k even: degree, diameter,
 *   average distance, bisection), Theorem 1 (the pruned torus's
 *   diameter), Theorem 2 and Theorem 4 (its average distance and
 *   bisection).  Table 1's average distance counts a node's distance to
 *   itself (a sum over N^2 pairs); ours is over the N(N-1) distinct ones.
 *   Its diameters of the directed classes hold for k = 0 (mod 4) only:
 *   at k = 2 (mod 4) the enumerated ones are 1.5k and 1.5k + 2.
 *   Faisal, A new interconnection network ... (3D-TESH), 2015: the nodes
 *   of Table 3.2, the links of Table 3.4, the degree of Table 4.1, the
 *   second form of eq. 4.2 (the first does not count the cut), and the
 *   routing-path lengths Table 4.2 calls diameters.
 *   Rahman et al., On nonuniform traffic pattern of MH3DT, 2011: its
 *   size and degrees, and the cycle its 2 VCs leave.
 * Also: the compact routing tables equal the routing function on every
 * generated network, and the one-decision-per-pair enumeration adds the
 * same dependencies and path lengths as walking every route.
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
#include "tt_test.h"

static void
gen_net(tt_net *net, const char *spec)
{
	tt_netspec s;
	char err[256];

	tt_netspec_default(&s);
	if (tt_netspec_parse(&s, spec, err, sizeof(err)) != 0)
		fail_msg("tt_netspec_parse(%s): %s", spec, err);
	if (tt_net_init(net, &s, err, sizeof(err)) != 0)
		fail_msg("tt_net_init(%s): %s", spec, err);
}

static void
analyze(const char *spec, tt_analysis *a)
{
	tt_net net;
	char err[256];

	gen_net(&net, spec);
	if (tt_analyze(&net, a, err, sizeof(err)) != 0)
		fail_msg("tt_analyze(%s): %s", spec, err);
	tt_net_free(&net);
}

/* Table 1's average distance (over N^2 pairs) from ours (N(N-1)). */
static double
with_self(const tt_analysis *a)
{
	double n = a->nodes;

	return a->avg_distance * (n - 1) / n;
}

static void
test_parse(void **state)
{
	static const struct {
		const char *spec, *says;
	} bad[] = {
		{"foo:k=8", "'foo' is not a network"},
		{"pruned:x=3", "'x' is not a key of pruned"},
		{"pruned:k=eight", "'k=eight'"},
		{"pruned:k", "'k' is not key=value"},
		{"tesh:n=2", "n is not a key of tesh"},
		{"8x8x8:flat", "'flat' is not a kind"},
		{"", "empty"},
	};
	tt_netspec s;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tt_netspec_default(&s);
		assert_int_equal(tt_netspec_parse(&s, bad[i].spec, err,
		    sizeof(err)), -1);
		if (strstr(err, bad[i].says) == NULL)
			fail_msg("%s: '%s' does not say '%s'", bad[i].spec, err,
			    bad[i].says);
	}
	tt_netspec_default(&s);
	assert_int_equal(tt_netspec_parse(&s, "tesh:m=2,L=3,q=0", err,
	    sizeof(err)), 0);
	assert_int_equal(s.topo, TT_TOPO_TESH);
	assert_int_equal(s.gen.L, 3);
	tt_netspec_default(&s);
	assert_int_equal(tt_netspec_parse(&s, "8x4x2:plain", err,
	    sizeof(err)), 0);
	assert_int_equal(s.topo, TT_TOPO_TORUS);
	assert_int_equal(s.twin, 0);
	assert_int_equal(s.k[0], 8);
	assert_int_equal(s.k[2], 2);
	/* refused by the generator: the message names the key */
	tt_netspec_default(&s);
	assert_int_equal(tt_netspec_parse(&s, "pruned:k=7", err,
	    sizeof(err)), 0);
	{
		tt_net net;

		assert_int_equal(tt_net_init(&net, &s, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "k=7"));
	}
}

/*
 * A key given twice is refused by the parser, naming it; an explicit 0
 * is a value, not the default: refused by the generator, naming the key,
 * wherever 0 is not valid (tesh's q = 0 is); a key left out still takes
 * the default.
 */
static void
test_explicit_zero_and_repeats(void **state)
{
	static const struct {
		const char *spec, *says;
	} twice[] = {
		{"pruned:k=8,k=4", "'k=4': k is given twice (k=8 before)"},
		{"msn:k=4,n=2,n=2", "n is given twice"},
		{"tesh:L=1,q=0,q=0", "q is given twice"},
		{"mh3dt:m=3,vcs=2,vcs=4", "vcs is given twice"},
		{"pruned:k=+8", "'k=+8': the value of k must be a whole number"},
		{"pruned:k= 8", "must be a whole number"},
		{"pruned:k=99999999999999999999", "must be a whole number"},
	}, zero[] = {
		{"pruned:k=0", "pruned: k=0"},
		{"pruned:k=8,n=0", "pruned: n=0"},
		{"msn:k=4,n=0", "msn: n=0"},
		{"pruned-msn:k=0,n=3", "pruned-msn: k=0"},
		{"mh3dt:m=0", "mh3dt: m=0"},
		{"mh3dt:n=0", "mh3dt: n=0"},
		{"mh3dt:L=0", "mh3dt: L=0"},
		{"mh3dt:q=0", "mh3dt: q=0"},
		{"mh3dt:vcs=0", "mh3dt: vcs=0"},
		{"tesh:m=2,L=0,q=0", "tesh: L=0"},
		{"tesh:m=0", "tesh: m=0"},
		{"tesh:vcs=0", "tesh: vcs=0"},
		{"tesh:L=3,vcs=0", "tesh: vcs=0"},
	}, good[] = {
		{"tesh:m=2,L=1,q=0", "tesh:m=2,L=1,q=0"},
		{"tesh:q=0,L=1", "tesh:m=2,L=1,q=0"},
		{"pruned:k=4", "pruned:k=4,n=3"},
		{"mh3dt:m=3,n=2", "mh3dt:m=3,n=2,L=2,q=2"},
	};
	tt_netspec s;
	tt_net net;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(twice) / sizeof(twice[0]); i++) {
		tt_netspec_default(&s);
		assert_int_equal(tt_netspec_parse(&s, twice[i].spec, err,
		    sizeof(err)), -1);
		if (strstr(err, twice[i].says) == NULL)
			fail_msg("%s: '%s' does not say '%s'", twice[i].spec,
			    err, twice[i].says);
	}
	for (i = 0; i < sizeof(zero) / sizeof(zero[0]); i++) {
		tt_netspec_default(&s);
		if (tt_netspec_parse(&s, zero[i].spec, err, sizeof(err)) != 0)
			fail_msg("%s: %s", zero[i].spec, err);
		if (tt_net_init(&net, &s, err, sizeof(err)) == 0)
			fail_msg("%s: built as %s", zero[i].spec,
			    tt_topo_name(&net));
		if (strstr(err, zero[i].says) == NULL)
			fail_msg("%s: '%s' does not say '%s'", zero[i].spec, err,
			    zero[i].says);
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		tt_netspec_default(&s);
		if (tt_netspec_parse(&s, good[i].spec, err, sizeof(err)) != 0 ||
		    tt_net_init(&net, &s, err, sizeof(err)) != 0)
			fail_msg("%s: %s", good[i].spec, err);
		assert_string_equal(tt_topo_name(&net), good[i].says);
		tt_net_free(&net);
	}
}

/* Parhami & Kwai Table 1, n = 3, k = 0 (mod 4). */
static void
test_table1_k_multiple_of_4(void **state)
{
	static const int ks[] = {4, 8};
	char spec[64];
	tt_analysis a;
	tt_net net;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		double k = ks[i];
		int ki = ks[i];

		snprintf(spec, sizeof(spec), "%dx%dx%d:plain", ki, ki, ki);
		gen_net(&net, spec);
		assert_int_equal(tt_analyze(&net, &a, err, sizeof(err)), 0);
		tt_net_free(&net);
		assert_int_equal(a.degree_max, 6);
		assert_int_equal(a.diameter, 3 * ki / 2);
		assert_float_equal(with_self(&a), 0.75 * k, 1e-9);
		assert_int_equal(a.bisection, 2 * ki * ki);

		snprintf(spec, sizeof(spec), "pruned:k=%d", ki);
		analyze(spec, &a);
		assert_int_equal(a.degree_min, 4);
		assert_int_equal(a.degree_max, 4);
		assert_int_equal(a.diameter, 3 * ki / 2);
		/* Theorem 2 */
		assert_float_equal(with_self(&a), 0.75 * k + 2 / k - 2 / (k * k),
		    1e-9);
		assert_int_equal(a.bisection, ki * ki);
		assert_true(a.deadlock_free);

		snprintf(spec, sizeof(spec), "msn:k=%d", ki);
		analyze(spec, &a);
		assert_int_equal(a.degree_max, 3);
		assert_int_equal(a.links, 3 * ki * ki * ki);
		assert_int_equal(a.diameter, 3 * ki / 2 + 1);
		assert_float_equal(with_self(&a), 0.75 * k + 1 - 4 / (k * k * k),
		    1e-9);
		assert_int_equal(a.bisection, ki * ki);
		assert_true(a.deadlock_free);

		snprintf(spec, sizeof(spec), "pruned-msn:k=%d", ki);
		analyze(spec, &a);
		assert_int_equal(a.degree_min, 2);
		assert_int_equal(a.degree_max, 2);
		assert_int_equal(a.diameter, 3 * ki / 2 + 3);
		assert_int_equal(a.bisection, ki * ki / 2);
		assert_true(a.deadlock_free);
	}
}

/* At k = 2 (mod 4) Table 1's directed diameters do not hold. */
static void
test_table1_directed_k_2_mod_4(void **state)
{
	tt_analysis a;

	(void)state;
	analyze("msn:k=6", &a);
	assert_int_equal(a.diameter, 9);            /* 1.5k, not 1.5k + 1 */
	analyze("pruned-msn:k=6", &a);
	assert_int_equal(a.diameter, 11);           /* 1.5k + 2, not + 3 */
	analyze("pruned:k=6", &a);
	assert_int_equal(a.diameter, 9);            /* 1.5k holds */
}

/* Theorem 1 (diameter) and Theorem 4 (bisection, 2k^(n-1)/(n-1)) of the
 * nD pruned torus. */
static void
test_theorems_1_and_4(void **state)
{
	static const struct {
		int n, k;
	} c[] = {{3, 4}, {3, 8}, {4, 6}, {5, 4}};
	char spec[64];
	tt_analysis a;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int n = c[i].n, k = c[i].k, h = k / 2, want, b = 1, d;

		if (k >= 2 * (n - 1))
			want = (n - 1) * h + (2 * n - 4 > h ? 2 * n - 4 : h);
		else
			want = (n - 1) * h + (n - 3 + h > k ? n - 3 + h : k);
		for (d = 0; d < n - 1; d++)
			b *= k;
		snprintf(spec, sizeof(spec), "pruned:k=%d,n=%d", k, n);
		analyze(spec, &a);
		if (a.diameter != (uint32_t)want)
			fail_msg("%s: diameter %u, Theorem 1 says %d", spec,
			    a.diameter, want);
		assert_int_equal(a.bisection, 2 * b / (n - 1));
		assert_true(a.deadlock_free);
	}
}

static void
node_graph(const char *spec, tt_analysis *a)
{
	tt_net net;

	gen_net(&net, spec);
	memset(a, 0, sizeof(*a));
	assert_int_equal(tt_node_graph(&net, a), 0);
	tt_net_free(&net);
}

/* 3D-TESH: Tables 3.2, 3.4, 4.1 and eq. 4.2's second form,
 * 2^(m(2L-3)+1) * 2^m, counted by the node graph. */
static void
test_tesh_counts(void **state)
{
	static const uint32_t nodes[] = {64, 1024, 16384, 262144};
	static const uint64_t links[] = {160, 2688, 45056};
	char spec[64];
	tt_analysis a;
	int L;

	(void)state;
	for (L = 1; L <= 4; L++) {
		snprintf(spec, sizeof(spec), "tesh:m=2,L=%d,q=0", L);
		node_graph(spec, &a);
		assert_int_equal(a.nodes, nodes[L - 1]);
		if (L <= 3)
			assert_int_equal(a.links, links[L - 1]);
		assert_int_equal(a.degree_max, 6);
		if (L == 1)
			assert_int_equal(a.bisection, -1);
		else
			assert_int_equal(a.bisection,
			    (1 << (2 * (2 * L - 3) + 1)) * 4);
	}
	/* L = 5 (Table 3.2 prints N_5's exponent as 2x2x1; its value,
	 * 4,194,304, is right): the gates fill every mesh edge, and every
	 * node has degree 6 */
	node_graph("tesh:m=2,L=5,q=0", &a);
	assert_int_equal(a.nodes, 4194304);
	assert_int_equal(a.degree_min, 6);
	assert_int_equal(a.degree_max, 6);
}

/* Table 4.2's "diameters" are the routing function's longest paths;
 * the graph's diameter is shorter from L = 2. */
static void
test_tesh_routes(void **state)
{
	tt_analysis a;

	(void)state;
	analyze("tesh:L=1", &a);
	assert_int_equal(a.max_dor_hops, 8);
	assert_int_equal(a.diameter, 8);
	assert_true(a.deadlock_free);
	analyze("tesh:L=2", &a);
	assert_int_equal(a.max_dor_hops, 21);
	assert_true(a.diameter < 21);
	assert_true(a.deadlock_free);
}

/* A 3D-TESH node from the thesis's address (s_{2L}, ..., s_0), most
 * significant first. */
static uint32_t
tesh_node(int L, const int *s)
{
	uint32_t id = 0;
	int i;

	for (i = 0; i <= 2 * L; i++)
		id = id * 4 + (uint32_t)s[i];
	return id;
}

/* Whether the route from src to dst passes node via. */
static int
route_passes(const tt_net *net, uint32_t src, uint32_t dst, uint32_t via)
{
	uint32_t at = src, hops = 0;
	int pp;
	tt_hop h;

	while (at != dst && hops++ < net->hop_limit) {
		if (at == via)
			return 1;
		h = tt_route(net, at, dst, TT_PORT_NIC);
		at = tt_link_peer(net, at, h.port, &pp);
	}
	return at == via;
}

/*
 * The thesis's worked example (§3.6, Fig. 3.4): from (1,2),(1,2),(1,2,0)
 * to (2,1),(2,1),(2,1,0), by the level-3 outlet (1,2),(1,2),(3,0,0), and
 * into the destination BM at (2,1),(2,1),(0,3,0).  And SP_routing's ties
 * (distance 2 on a 4-ring): positive iff the level and the digit's index
 * have the same parity, so at level 2 the rows go + and the columns -,
 * at level 3 the reverse.
 */
static void
test_tesh_paths(void **state)
{
	static const int src[] = {1, 2, 1, 2, 1, 2, 0},
	    dst[] = {2, 1, 2, 1, 2, 1, 0}, outlet[] = {1, 2, 1, 2, 3, 0, 0},
	    entry[] = {2, 1, 2, 1, 0, 3, 0};
	static const int t0[] = {0, 0, 0, 0, 0}, t1[] = {2, 2, 0, 0, 0},
	    row_plus[] = {1, 0, 0, 0, 0}, col_minus[] = {2, 3, 0, 3, 0};
	static const int u0[] = {0, 0, 0, 0, 0, 0, 0},
	    u1[] = {2, 2, 0, 0, 0, 0, 0}, row_minus[] = {3, 0, 0, 0, 3, 0, 0},
	    col_plus[] = {2, 1, 0, 0, 3, 3, 0};
	tt_net net;

	(void)state;
	gen_net(&net, "tesh:L=3");
	assert_true(route_passes(&net, tesh_node(3, src), tesh_node(3, dst),
	    tesh_node(3, outlet)));
	assert_true(route_passes(&net, tesh_node(3, src), tesh_node(3, dst),
	    tesh_node(3, entry)));
	assert_true(route_passes(&net, tesh_node(3, u0), tesh_node(3, u1),
	    tesh_node(3, row_minus)));
	assert_true(route_passes(&net, tesh_node(3, u0), tesh_node(3, u1),
	    tesh_node(3, col_plus)));
	tt_net_free(&net);
	gen_net(&net, "tesh:L=2");
	assert_true(route_passes(&net, tesh_node(2, t0), tesh_node(2, t1),
	    tesh_node(2, row_plus)));
	assert_true(route_passes(&net, tesh_node(2, t0), tesh_node(2, t1),
	    tesh_node(2, col_minus)));
	tt_net_free(&net);
}

static void
test_mh3dt(void **state)
{
	tt_analysis a;

	(void)state;
	node_graph("mh3dt:m=4,n=4,L=2,q=2", &a);
	assert_int_equal(a.nodes, 4096);
	assert_int_equal(a.degree_min, 6);
	assert_int_equal(a.degree_max, 8);
	assert_int_equal(a.bisection, -1);
	analyze("mh3dt:m=3,n=3", &a);
	assert_true(a.deadlock_free);
	analyze("mh3dt:m=3,n=3,vcs=2", &a);
	assert_false(a.deadlock_free);
}

/* Tornado and center-reflection on the papers' addresses: 3D-TESH's
 * base-4 digits s_0 (z), s_1 (x), s_2 (y); MH3DT's x, y, z and BM x, y, z. */
static void
test_coordinate_patterns(void **state)
{
	tt_traffic tr;
	tt_net net;
	char err[256];

	(void)state;
	gen_net(&net, "tesh:L=1");
	tt_traffic_default(&tr);
	tr.pattern = TT_TR_TORNADO;
	assert_int_equal(tt_traffic_init(&tr, &net, err, sizeof(err)), 0);
	assert_int_equal(tr.dest[0], 1 + 4 + 16);       /* each digit + 1 */
	assert_int_equal(tr.dest[3], 0 + 4 + 16);       /* z 3 -> 0 */
	tt_traffic_free(&tr);
	tt_net_free(&net);
	gen_net(&net, "mh3dt:m=3,n=2");
	tt_traffic_default(&tr);
	tr.pattern = TT_TR_CENTER;
	assert_int_equal(tt_traffic_init(&tr, &net, err, sizeof(err)), 0);
	assert_int_equal(tr.dest[0], net.nnodes - 1);   /* every digit k-1 */
	tt_traffic_free(&tr);
	tt_net_free(&net);
}

static const char *const small[] = {
	"pruned:k=4", "pruned:k=6,n=4", "msn:k=4", "msn:k=6", "pruned-msn:k=4",
	"mh3dt:m=3,n=2", "tesh:L=1", "tesh:L=2",
};
#define NSMALL (sizeof(small) / sizeof(small[0]))

/* The compact tables (first differing routing digit) are exact. */
static void
test_tables_equal_route(void **state)
{
	tt_simparams p;
	tt_sim *sim;
	tt_net net;
	char err[256];
	size_t i;

	(void)state;
	tt_simparams_default(&p);
	for (i = 0; i < NSMALL; i++) {
		gen_net(&net, small[i]);
		if (tt_sim_create(&sim, &net, &p, err, sizeof(err)) != 0)
			fail_msg("%s: %s", small[i], err);
		if (tt_sim_check_routes(sim) != 0)
			fail_msg("%s: a table differs from tt_route", small[i]);
		tt_sim_free(sim);
		tt_net_free(&net);
	}
}

/* One decision per pair adds what the walks add. */
static void
test_enumeration_equals_walks(void **state)
{
	tt_pathstats s1, s2;
	tt_cdg g1, g2;
	tt_net net;
	uint32_t u, v;
	size_t i;

	(void)state;
	for (i = 0; i < NSMALL; i++) {
		gen_net(&net, small[i]);
		memset(&s1, 0, sizeof(s1));
		memset(&s2, 0, sizeof(s2));
		assert_int_equal(tt_cdg_init(&g1, &net), 0);
		assert_int_equal(tt_cdg_init(&g2, &net), 0);
		assert_int_equal(tt_cdg_add_all(&g1, &s1, NULL, NULL), 0);
		for (u = 0; u < net.ncards; u++)
			for (v = 0; v < net.ncards; v++)
				if (u != v)
					assert_int_equal(tt_cdg_add_path(&g2, u,
					    v, &s2), 0);
		if (memcmp(g1.succ, g2.succ, g1.nchan * sizeof(uint64_t)) != 0)
			fail_msg("%s: the dependencies differ", small[i]);
		assert_int_equal(s1.pairs, s2.pairs);
		assert_int_equal(s1.hops, s2.hops);
		assert_int_equal(s1.max_hops, s2.max_hops);
		tt_cdg_free(&g1);
		tt_cdg_free(&g2);
		tt_net_free(&net);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_explicit_zero_and_repeats),
		cmocka_unit_test(test_table1_k_multiple_of_4),
		cmocka_unit_test(test_table1_directed_k_2_mod_4),
		cmocka_unit_test(test_theorems_1_and_4),
		cmocka_unit_test(test_tesh_counts),
		cmocka_unit_test(test_tesh_routes),
		cmocka_unit_test(test_tesh_paths),
		cmocka_unit_test(test_mh3dt),
		cmocka_unit_test(test_coordinate_patterns),
		cmocka_unit_test(test_tables_equal_route),
		cmocka_unit_test(test_enumeration_equals_walks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
