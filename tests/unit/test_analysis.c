/*
 * The enumerated analysis against the closed forms of the seed reports,
 * which serve here as oracles only:
 *   seed 000 Table 7 (k odd) and Table 8 (k even): internal-link transit
 *     paths for A..J, k = 2..8.  Table 8's entry for D is printed as
 *     (k^4 - 4k^2 - 4)/4 in the extracted text; the right form is
 *     (k^4 - 4k^2 + 4)/4: the printed one is negative at k = 2.
 *   seed 001 Prop. 3.4: C_Best, k odd, n = 3..5.
 *   seed 000 Table 2: diameter 2k for k = 2^w.
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
#include "tt_test.h"

/* n dimensions of k nodes; letter 'A'..'J', 'b' for best, 0 for plain */
static void
make_net(tt_net *net, int n, int k, int twin, char letter)
{
	int ks[TT_MAX_DIMS], d;
	char ports[2] = {letter, 0};

	for (d = 0; d < n; d++)
		ks[d] = k;
	tt_test_net(net, n, ks, twin, letter == 'b' ? "best" : ports,
	    TT_DL_VC);
}

static int64_t
table7(char c, int64_t k)
{
	switch (c) {
	case 'A': case 'B': case 'E': case 'F':
		return (3 * k * k * k * k - 8 * k * k * k + 3 * k * k + 2) / 4;
	case 'C': case 'H': case 'I': case 'J':
		return (k * k * k * k + 2 * k * k * k - 7 * k * k + 2 * k + 2) / 4;
	default: /* D, G */
		return (k * k * k * k - k * k - 4 * k + 4) / 4;
	}
}

static int64_t
table8(char c, int64_t k)
{
	int64_t k2 = k * k, k3 = k2 * k, k4 = k3 * k;

	switch (c) {
	case 'A': return (3 * k4 - 8 * k3 + 6 * k2 + 4 * k + 4) / 4;
	case 'B': case 'F': return (3 * k4 - 8 * k3 + 6 * k2) / 4;
	case 'C': case 'I': return (k4 + 2 * k3 - 4 * k2 - 2 * k + 4) / 4;
	case 'D': return (k4 - 4 * k2 + 4) / 4;
	case 'E': return (3 * k4 - 8 * k3 + 6 * k2 - 4 * k + 4) / 4;
	case 'G': return (k4 + 4 * k2 - 8 * k + 4) / 4;
	default: /* H, J */ return (k4 + 2 * k3 - 8 * k2 + 6 * k) / 4;
	}
}

static int64_t
ipow(int64_t b, int e)
{
	int64_t r = 1;

	while (e-- > 0)
		r *= b;
	return r;
}

/* Transit count at node 0, after checking it is the same at every node. */
static uint64_t
uniform_transit(const tt_net *net)
{
	uint64_t *per = calloc(net->nnodes, sizeof(uint64_t));
	uint64_t v;
	uint32_t i;

	assert_non_null(per);
	assert_int_equal(tt_transit_paths(net, per), 0);
	for (i = 1; i < net->nnodes; i++)
		if (per[i] != per[0])
			fail_msg("transit count differs: node 0 has %llu, node %u "
			    "has %llu", (unsigned long long)per[0], i,
			    (unsigned long long)per[i]);
	v = per[0];
	free(per);
	return v;
}

static void
test_tables_7_and_8(void **state)
{
	tt_net net;
	int64_t want;
	uint64_t got;
	int k;
	char c;

	(void)state;
	for (k = 2; k <= 8; k++) {
		for (c = 'A'; c <= 'J'; c++) {
			make_net(&net, 3, k, 1, c);
			got = uniform_transit(&net);
			want = k % 2 ? table7(c, k) : table8(c, k);
			if ((int64_t)got != want)
				fail_msg("k=%d %c: enumerated %llu, table says %lld",
				    k, c, (unsigned long long)got, (long long)want);
			tt_net_free(&net);
		}
	}
}

static void
test_prop_3_4_best_odd_k(void **state)
{
	static const struct { int n, k; } cases[] = {
		{3, 3}, {3, 5}, {3, 7}, {4, 3}, {4, 5}, {5, 3}, {5, 5},
	};
	tt_net net;
	int64_t want, k;
	uint64_t got;
	size_t i;
	int n;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		n = cases[i].n;
		k = cases[i].k;
		make_net(&net, n, (int)k, 1, 'b');
		got = uniform_transit(&net);
		if (n % 2 == 0)
			want = (ipow(k, n / 2) - 1) * (ipow(k, n / 2) - 1);
		else
			want = (ipow(k, (n - 1) / 2) - 1) * (ipow(k, (n + 1) / 2) - 1) +
			    (k - 1) * (k - 3) * ipow(k, n - 1) / 4;
		if ((int64_t)got != want)
			fail_msg("n=%d k=%lld: enumerated %llu, Prop. 3.4 says %lld",
			    n, (long long)k, (unsigned long long)got,
			    (long long)want);
		tt_net_free(&net);
	}
}

/* C_Best is the least loaded of all 35 configurations of a 4DT 5-ary
 * torus (seed 001 Theorem 3.1, k >= 5). */
static void
test_best_is_optimal_4d(void **state)
{
	tt_netspec s;
	tt_net net;
	char err[256];
	uint64_t best, got, least = UINT64_MAX;
	unsigned mask;
	int p, c, configs = 0;

	(void)state;
	make_net(&net, 4, 5, 1, 'b');
	best = uniform_transit(&net);
	tt_net_free(&net);
	for (mask = 1; mask < 256; mask += 2) {
		if (__builtin_popcount(mask) != 4)
			continue;
		tt_netspec_default(&s);
		s.n = 4;
		s.k[0] = s.k[1] = s.k[2] = s.k[3] = 5;
		s.ports_kind = TT_PORTS_CUSTOM;
		s.ncard[0] = s.ncard[1] = 0;
		for (p = 0; p < 8; p++) {
			c = (mask >> p) & 1 ? 0 : 1;
			s.card_ports[c][s.ncard[c]++] = (int8_t)p;
		}
		assert_int_equal(tt_net_init(&net, &s, err, sizeof(err)), 0);
		got = uniform_transit(&net);
		if (got < least)
			least = got;
		configs++;
		tt_net_free(&net);
	}
	assert_int_equal(configs, 35);
	assert_int_equal(least, best);
}

static void
test_diameter_2k_for_powers_of_two(void **state)
{
	tt_net net;
	uint32_t diam;
	double avg;
	int k;
	char c;

	(void)state;
	for (k = 2; k <= 8; k *= 2) {
		for (c = 'A'; c <= 'J'; c++) {
			make_net(&net, 3, k, 1, c);
			assert_int_equal(tt_distances(&net, &diam, &avg), 0);
			if (diam != (uint32_t)(2 * k))
				fail_msg("k=%d %c: diameter %u, Table 2 says %d",
				    k, c, diam, 2 * k);
			tt_net_free(&net);
		}
	}
}

/* A plain k x k torus has diameter 2*floor(k/2) and no internal link. */
static void
test_plain_torus_distances(void **state)
{
	tt_net net;
	tt_analysis a;
	char err[256];

	(void)state;
	make_net(&net, 2, 6, 0, 0);
	assert_int_equal(tt_analyze(&net, &a, err, sizeof(err)), 0);
	assert_int_equal(a.diameter, 6);
	/* mean over the 35 other nodes: ring distances 0,1,2,3,2,1 per dim */
	assert_true(a.avg_distance > 3.0 * 36 / 35 - 1e-9 &&
	    a.avg_distance < 3.0 * 36 / 35 + 1e-9);
	/* DOR on a plain torus is minimal */
	assert_true(a.avg_dor_hops > a.avg_distance - 1e-9 &&
	    a.avg_dor_hops < a.avg_distance + 1e-9);
	assert_int_equal(a.internal_transit_paths, 0);
	assert_int_equal(a.vcs, 0);
	assert_true(a.deadlock_free);
	tt_net_free(&net);
}

/* tt_analyze's count (all PE pairs, divided by four) equals the node-level
 * enumeration, and DOR is never shorter than the shortest path. */
static void
test_analyze_agrees_with_node_level(void **state)
{
	tt_net net;
	tt_analysis a;
	char err[256];
	char c;

	(void)state;
	for (c = 'A'; c <= 'J'; c += 3) {
		make_net(&net, 3, 5, 1, c);
		assert_int_equal(tt_analyze(&net, &a, err, sizeof(err)), 0);
		assert_true(a.transit_uniform);
		assert_int_equal(a.internal_transit_paths, uniform_transit(&net));
		assert_true(a.avg_dor_hops >= a.avg_distance);
		assert_true(a.max_dor_hops >= a.diameter);
		tt_net_free(&net);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_7_and_8),
		cmocka_unit_test(test_prop_3_4_best_odd_k),
		cmocka_unit_test(test_best_is_optimal_4d),
		cmocka_unit_test(test_diameter_2k_for_powers_of_two),
		cmocka_unit_test(test_plain_torus_distances),
		cmocka_unit_test(test_analyze_agrees_with_node_level),
	};

	return cmocka_run_group_tests_name("analysis", tests, NULL, NULL);
}
