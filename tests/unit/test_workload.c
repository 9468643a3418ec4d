/*
 * The synthetic workloads (twintorus/workload.h): the process grid, the
 * halo exchange's neighbours, and the motifs' messages scheduled open
 * loop, their order and their times, against the timing model written out
 * here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "twintorus/workload.h"

/* The most cubic grid by brute force: the least g2 - g0 over every
 * a <= b <= c with a * b * c = n. */
static uint32_t
best_spread(uint32_t n)
{
	uint32_t a, b, best = UINT32_MAX;

	for (a = 1; a <= n; a++)
		for (b = a; (uint64_t)a * b <= n; b++)
			if (n % ((uint64_t)a * b) == 0 && n / a / b >= b &&
			    n / a / b - a < best)
				best = n / a / b - a;
	return best;
}

static void
test_grid_is_most_cubic(void **state)
{
	uint32_t g[3], n;

	(void)state;
	tt_grid3(64, g);
	assert_true(g[0] == 4 && g[1] == 4 && g[2] == 4);
	tt_grid3(128, g);
	assert_true(g[0] == 4 && g[1] == 4 && g[2] == 8);
	tt_grid3(7, g);         /* a prime: one dimension */
	assert_true(g[0] == 1 && g[1] == 1 && g[2] == 7);
	assert_int_equal(tt_grid3_dims(g), 1);
	for (n = 2; n <= 300; n++) {
		tt_grid3(n, g);
		assert_int_equal((uint64_t)g[0] * g[1] * g[2], n);
		assert_true(g[0] <= g[1] && g[1] <= g[2]);
		assert_int_equal(g[2] - g[0], best_spread(n));
	}
}

static void
test_stencil_neighbours(void **state)
{
	const uint32_t cube[3] = {4, 4, 4}, line[3] = {1, 1, 7};
	const uint32_t flat[3] = {1, 2, 3};
	uint32_t pe, d;

	(void)state;
	/* PE ids run through x first: pe = x + 4 (y + 4 z) */
	assert_int_equal(tt_grid3_neighbour(cube, 0, 0), 1);    /* +x */
	assert_int_equal(tt_grid3_neighbour(cube, 0, 1), 3);    /* -x wraps */
	assert_int_equal(tt_grid3_neighbour(cube, 3, 0), 0);    /* +x wraps */
	assert_int_equal(tt_grid3_neighbour(cube, 0, 2), 4);    /* +y */
	assert_int_equal(tt_grid3_neighbour(cube, 0, 3), 12);   /* -y */
	assert_int_equal(tt_grid3_neighbour(cube, 0, 4), 16);   /* +z */
	assert_int_equal(tt_grid3_neighbour(cube, 0, 5), 48);   /* -z */
	assert_int_equal(tt_grid3_neighbour(cube, 21, 4), 37);
	/* only the dimensions with more than one PE count */
	assert_int_equal(tt_grid3_neighbour(line, 6, 0), 0);
	assert_int_equal(tt_grid3_neighbour(line, 0, 1), 6);
	assert_int_equal(tt_grid3_neighbour(flat, 0, 0), 1);    /* +y */
	assert_int_equal(tt_grid3_neighbour(flat, 0, 2), 2);    /* +z */
	assert_int_equal(tt_grid3_neighbour(flat, 0, 3), 4);    /* -z */
	/* + then - is where one started, in every dimension */
	for (pe = 0; pe < 64; pe++)
		for (d = 0; d < 3; d++)
			assert_int_equal(tt_grid3_neighbour(cube,
			    tt_grid3_neighbour(cube, pe, 2 * d), 2 * d + 1), pe);
}

/* Every message of w, at most max. */
static size_t
drain(tt_workload *w, tt_msg *out, size_t max)
{
	size_t n = 0;
	tt_msg m;

	while (tt_workload_next(w, &m)) {
		assert_true(n < max);
		out[n++] = m;
	}
	return n;
}

/* Time order, ties by source PE, and each PE's seq counting from 0. */
static void
assert_merged(const tt_msg *m, size_t n, uint32_t npes)
{
	uint32_t seq[64] = {0};
	size_t i;

	assert_true(npes <= 64);
	for (i = 0; i < n; i++) {
		if (i > 0)
			assert_true(m[i - 1].t_ns < m[i].t_ns ||
			    (m[i - 1].t_ns == m[i].t_ns && m[i - 1].src < m[i].src));
		assert_int_equal(m[i].seq, seq[m[i].src]++);
	}
}

static tt_workload *
app(enum tt_motif a, uint32_t npes, uint64_t bytes, uint64_t iterations,
    double compute_us, uint64_t seed)
{
	tt_motif_params p;
	tt_workload *w;
	char err[256];

	tt_motif_params_default(&p, a);
	p.bytes = bytes;
	p.iterations = iterations;
	p.compute_ns = compute_us * 1e3;
	p.net.link_gbps = 10;       /* 1250 bytes serialise in 1000 ns */
	p.seed = seed;
	if (tt_workload_motif(&w, &p, npes, err, sizeof(err)) != 0)
		fail_msg("tt_workload_motif: %s", err);
	return w;
}

/*
 * Without compute time, an iteration of a stencil on 8 PEs (a 2x2x2 grid,
 * 6 neighbours) starts every 2 * 6 * 1000 + 5000 ns, and PE p sends its
 * halo j at j * 1000 ns into it, to its neighbour j.
 */
static void
test_stencil_messages(void **state)
{
	static tt_msg m[200];
	const uint32_t g[3] = {2, 2, 2};
	tt_workload *w = app(TT_MOTIF_HALO3D, 8, 1250, 2, 0, 1);
	size_t n = drain(w, m, 200), i;
	uint64_t it, j;

	(void)state;
	assert_int_equal(n, 2 * 8 * 6);
	assert_merged(m, n, 8);
	for (i = 0; i < n; i++) {
		it = m[i].seq / 6;
		j = m[i].seq % 6;
		assert_int_equal(m[i].t_ns, it * 17000 + j * 1000);
		assert_int_equal(m[i].dst, tt_grid3_neighbour(g, m[i].src,
		    (unsigned)j));
		assert_int_equal(m[i].bytes, 1250);
	}
	/* the first eight are every PE's first halo, by PE */
	for (i = 0; i < 8; i++)
		assert_true(m[i].src == i && m[i].t_ns == 0);
	tt_workload_free(w);
}

static void
test_alltoall_messages(void **state)
{
	static tt_msg m[100];
	tt_workload *w = app(TT_MOTIF_ALLTOALL, 5, 1250, 1, 0, 1);
	size_t n = drain(w, m, 100), i;

	(void)state;
	assert_int_equal(n, 5 * 4);
	assert_merged(m, n, 5);
	for (i = 0; i < n; i++) {
		/* the shifted ring: p to p+1, p+2, ... */
		assert_int_equal(m[i].dst, (m[i].src + 1 + m[i].seq) % 5);
		assert_int_equal(m[i].t_ns, (uint64_t)m[i].seq * 1000);
	}
	tt_workload_free(w);
}

/*
 * A ring allreduce of 5000 bytes on 4 PEs: 6 steps of a 1250-byte chunk to
 * the next PE, a step every 1.5 * 1000 + 1000 ns.
 */
static void
test_allreduce_messages(void **state)
{
	static tt_msg m[100];
	tt_workload *w = app(TT_MOTIF_ALLREDUCE, 4, 5000, 1, 0, 1);
	size_t n = drain(w, m, 100), i;

	(void)state;
	assert_int_equal(n, 4 * 6);
	assert_merged(m, n, 4);
	for (i = 0; i < n; i++) {
		assert_int_equal(m[i].dst, (m[i].src + 1) % 4);
		assert_int_equal(m[i].bytes, 1250);
		assert_int_equal(m[i].t_ns, (uint64_t)m[i].seq * 2500);
	}
	tt_workload_free(w);
}

/* Compute time varies by +-10% per PE and iteration, from the seed. */
static void
test_compute_jitter(void **state)
{
	static tt_msg a[200], b[200], c[200];
	size_t na, nb, nc, i;
	tt_workload *w;
	int differ = 0;

	(void)state;
	w = app(TT_MOTIF_HALO3D, 8, 1250, 2, 10, 7);
	na = drain(w, a, 200);
	tt_workload_free(w);
	w = app(TT_MOTIF_HALO3D, 8, 1250, 2, 10, 7);
	nb = drain(w, b, 200);
	tt_workload_free(w);
	w = app(TT_MOTIF_HALO3D, 8, 1250, 2, 10, 8);
	nc = drain(w, c, 200);
	tt_workload_free(w);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na * sizeof(*a));
	assert_int_equal(na, nc);
	assert_merged(a, na, 8);
	/* period: 10 us * 1.1 + 2 * 6 * 1000 + 5000 = 28000 ns */
	for (i = 0; i < na; i++) {
		uint64_t start = a[i].seq / 6 * 28000, j = a[i].seq % 6;

		assert_true(a[i].t_ns >= start + 9000 + j * 1000);
		assert_true(a[i].t_ns <= start + 11000 + j * 1000);
		differ |= a[i].t_ns != c[i].t_ns;
	}
	assert_true(differ);
}

/* A source whose PE p generates packets to p + 1 in cycles 10p, 10p + 3,
 * 10p + 6. */
struct fake {
	uint32_t npes, sent[8];
};

static int
fake_next(void *ctx, uint32_t pe, uint64_t now, tt_srcpkt *pk)
{
	struct fake *f = ctx;

	(void)now;
	if (f->sent[pe] == 3)
		return TT_SRC_DONE;
	pk->gen = 10 * pe + 3 * f->sent[pe]++;
	pk->dst = (pe + 1) % f->npes;
	pk->tag = 0;
	return TT_SRC_PACKET;
}

static void
test_source_messages(void **state)
{
	static tt_msg m[100];
	struct fake f = {4, {0}};
	tt_source src = {fake_next, &f};
	tt_workload *w;
	char err[256];
	size_t n, i;

	(void)state;
	assert_int_equal(tt_workload_source(&w, 4, src, 12.8, 64, err,
	    sizeof(err)), 0);
	n = drain(w, m, 100);
	assert_int_equal(n, 12);
	assert_merged(m, n, 4);
	for (i = 0; i < n; i++) {
		uint64_t gen = 10 * m[i].src + 3 * m[i].seq;

		assert_int_equal(m[i].t_ns, (uint64_t)(gen * 12.8 + 0.5));
		assert_int_equal(m[i].bytes, 64);
		assert_int_equal(m[i].dst, (m[i].src + 1) % 4);
	}
	tt_workload_free(w);
}

/*
 * Pingpong on 4 PEs without compute: PEs 0 and 1 send at the start of each
 * iteration (burst), their partners 2 and 3 answer one step (1.5 * 1000 +
 * 1000 ns) later (paced: they wait for a receive); the period is the gap
 * plus the longer of a burst rank's sending twice (2000) and a paced
 * rank's step (2500).
 */
static void
test_pingpong_times(void **state)
{
	static tt_msg m[100];
	tt_workload *w = app(TT_MOTIF_PINGPONG, 4, 1250, 3, 0, 1);
	size_t n = drain(w, m, 100), i;

	(void)state;
	assert_int_equal(n, 3 * 4);
	assert_merged(m, n, 4);
	for (i = 0; i < n; i++) {
		uint64_t start = m[i].seq * 7500;

		assert_int_equal(m[i].bytes, 1250);
		if (m[i].src < 2) {
			assert_int_equal(m[i].dst, m[i].src + 2);
			assert_int_equal(m[i].t_ns, start);
		} else {
			assert_int_equal(m[i].dst, m[i].src - 2);
			assert_int_equal(m[i].t_ns, start + 2500);
		}
	}
	tt_workload_free(w);
}

/*
 * Every motif writes its programs' sends: per iteration on 8 PEs, halo3d
 * 8 * 6 (a 2x2x2 grid), sweep3d 2 blocks of 10 (a 4x2 grid: 6 x-links and
 * 4 y-links), allreduce 8 * 14, alltoall 8 * 7, incast 7 requests and 7
 * responses (1 client), pingpong 4 pairs there and back; none to itself,
 * and each PE's in time order.
 */
static void
test_every_motif(void **state)
{
	static const size_t per_iter[TT_MOTIF_COUNT] = {
		[TT_MOTIF_HALO3D] = 48, [TT_MOTIF_SWEEP3D] = 20,
		[TT_MOTIF_ALLREDUCE] = 112, [TT_MOTIF_ALLTOALL] = 56,
		[TT_MOTIF_INCAST] = 14, [TT_MOTIF_PINGPONG] = 8,
	};
	static tt_msg m[1000];
	tt_motif_params p;
	tt_workload *w;
	char err[256];
	size_t n, i;
	int k;

	(void)state;
	for (k = 0; k < TT_MOTIF_COUNT; k++) {
		tt_motif_params_default(&p, (enum tt_motif)k);
		p.iterations = 4;
		p.blocks = 2;
		p.bytes = 4096;
		assert_int_equal(tt_workload_motif(&w, &p, 8, err, sizeof(err)), 0);
		n = drain(w, m, 1000);
		assert_int_equal(n, 4 * per_iter[k]);
		assert_merged(m, n, 8);
		for (i = 0; i < n; i++) {
			assert_true(m[i].dst < 8 && m[i].dst != m[i].src);
			assert_true(m[i].bytes > 0);
		}
		tt_workload_free(w);
	}
}

static void
test_names_and_refusals(void **state)
{
	enum tt_motif a;
	tt_motif_params p;
	tt_workload *w;
	const uint32_t ranks[2] = {0, 1};
	char err[256];

	(void)state;
	assert_int_equal(tt_motif_parse("alltoall", &a), 0);
	assert_int_equal(a, TT_MOTIF_ALLTOALL);
	/* the halo exchange's other name */
	assert_int_equal(tt_motif_parse("stencil", &a), 0);
	assert_int_equal(a, TT_MOTIF_HALO3D);
	assert_string_equal(tt_motif_name(a), "halo3d");
	assert_int_equal(tt_motif_parse("uniform", &a), -1);
	tt_motif_params_default(&p, TT_MOTIF_HALO3D);
	assert_int_equal(tt_workload_motif(&w, &p, 1, err, sizeof(err)), -1);
	assert_null(w);
	assert_non_null(strstr(err, "at least 2 ranks"));
	p.ranks = ranks;
	p.nranks = 2;
	assert_int_equal(tt_workload_motif(&w, &p, 8, err, sizeof(err)), -1);
	assert_null(w);
	assert_non_null(strstr(err, "every PE"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grid_is_most_cubic),
		cmocka_unit_test(test_stencil_neighbours),
		cmocka_unit_test(test_stencil_messages),
		cmocka_unit_test(test_alltoall_messages),
		cmocka_unit_test(test_allreduce_messages),
		cmocka_unit_test(test_compute_jitter),
		cmocka_unit_test(test_pingpong_times),
		cmocka_unit_test(test_every_motif),
		cmocka_unit_test(test_source_messages),
		cmocka_unit_test(test_names_and_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
