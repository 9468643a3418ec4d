/*
 * The steady-state test of a run's window (lib/engine/sim_window.c): a point
 * well below saturation passes it, a saturated one fails it, the batches
 * cut the window exactly, a window given is run as given, and a run
 * allowed to extend its warm-up does so only while the test fails and
 * never beyond its cap.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "twintorus/sim.h"
#include "twintorus/traffic.h"
#include "tt_test.h"

/* One run of uniform traffic at load on net, with p. */
static void
run_point(const tt_net *net, const tt_simparams *p, double load,
    uint64_t seed, tt_simresult *res)
{
	tt_sim *sim;
	tt_traffic tr;
	tt_source src;
	char err[256];

	assert_int_equal(tt_sim_create(&sim, net, p, err, sizeof(err)), 0);
	tt_traffic_default(&tr);
	tr.load = load;
	tr.seed = seed;
	assert_int_equal(tt_traffic_init(&tr, net, err, sizeof(err)), 0);
	src = tt_traffic_source(&tr);
	assert_int_equal(tt_sim_run(sim, &src, 0, res, NULL, NULL), 0);
	tt_traffic_free(&tr);
	tt_sim_free(sim);
}

/* Well below saturation the window's batches scatter around one value:
 * the test accepts them (every seed of a few, on a twin and a plain
 * torus, under both schemes). */
static void
test_stationary_accepted(void **state)
{
	static const int k444[3] = {4, 4, 4}, k88[2] = {8, 8};
	tt_simparams p;
	tt_simresult r;
	tt_net net;
	uint64_t seed;
	int dl;

	(void)state;
	tt_simparams_default(&p);
	for (dl = TT_DL_VC; dl <= TT_DL_BUBBLE; dl++)
		for (seed = 2; seed <= 4; seed++) {
			tt_test_net(&net, 3, k444, 1, "D", (enum tt_deadlock)dl);
			run_point(&net, &p, 0.1, seed, &r);
			assert_true(r.converged);
			assert_true(r.throughput_converged);
			assert_false(r.saturated_steady);
			assert_int_equal(r.nbatch, TT_SIM_BATCHES);
			tt_simresult_free(&r);
			tt_net_free(&net);
			tt_test_net(&net, 2, k88, 0, NULL, (enum tt_deadlock)dl);
			run_point(&net, &p, 0.2, seed, &r);
			assert_true(r.converged);
			tt_simresult_free(&r);
			tt_net_free(&net);
		}
}

/* Far past saturation the source queues grow through the window, and so
 * does the end-to-end latency: the test flags the point. */
static void
test_saturated_flagged(void **state)
{
	static const int k444[3] = {4, 4, 4};
	static const char *const ports[3] = {"D", "A", "G"};
	tt_simparams p;
	tt_simresult r;
	tt_net net;
	int i, dl;

	(void)state;
	tt_simparams_default(&p);
	for (i = 0; i < 3; i++)
		for (dl = TT_DL_VC; dl <= TT_DL_BUBBLE; dl++) {
			tt_test_net(&net, 3, k444, 1, ports[i], (enum tt_deadlock)dl);
			run_point(&net, &p, 1.0, 1, &r);
			assert_false(r.converged);
			assert_true(r.latency_drift > TT_STEADY_LATENCY_TOL);
			assert_true(r.accepted_load < 0.6);
			tt_simresult_free(&r);
			tt_net_free(&net);
		}
}

/* The batches cut the window exactly: what they accepted adds up to the
 * packets delivered in the window, also with a window that does not
 * divide into TT_SIM_BATCHES. */
static void
test_batches_cut_window(void **state)
{
	static const int k444[3] = {4, 4, 4};
	static const uint64_t measure[3] = {10000, 9999, 7};
	tt_simparams p;
	tt_simresult r;
	tt_net net;
	double sum;
	uint64_t len, blen;
	int i, b;

	(void)state;
	tt_test_net(&net, 3, k444, 1, "D", TT_DL_BUBBLE);
	for (i = 0; i < 3; i++) {
		tt_simparams_default(&p);
		p.measure = measure[i];
		run_point(&net, &p, 0.3, 1, &r);
		assert_int_equal(r.nbatch, measure[i] < TT_SIM_BATCHES ?
		    (int)measure[i] : TT_SIM_BATCHES);
		blen = measure[i] / (uint64_t)r.nbatch;
		sum = 0;
		for (b = 0; b < r.nbatch; b++) {
			len = b + 1 < r.nbatch ? blen :
			    measure[i] - blen * (uint64_t)b;
			sum += r.batch_accepted[b] * (double)len * net.ncards /
			    p.net.packet_flits;
		}
		assert_true(sum > r.packets_window - 0.5 &&
		    sum < r.packets_window + 0.5);
		tt_simresult_free(&r);
	}
	tt_net_free(&net);
}

/* A window given (warmup_max 0) is run as given, passed or not. */
static void
test_given_window_exact(void **state)
{
	static const int k444[3] = {4, 4, 4};
	tt_simparams p;
	tt_simresult r;
	tt_net net;

	(void)state;
	tt_test_net(&net, 3, k444, 1, "D", TT_DL_BUBBLE);
	tt_simparams_default(&p);
	p.warmup = 1500;
	p.measure = 4000;
	run_point(&net, &p, 1.0, 1, &r);
	assert_false(r.converged);
	assert_int_equal(r.warmup_cycles, 1500);
	assert_int_equal(r.measure_cycles, 4000);
	tt_simresult_free(&r);
	tt_net_free(&net);
}

/*
 * Allowed to extend, a run extends only while its window fails: a
 * stationary point keeps its warm-up; a point just past saturation, whose
 * buffers fill for tens of thousands of cycles (D, bubble, at 0.4), runs
 * windows of the same length, each starting where the last ended, and
 * stops at its cap or once its network is steady with only its source
 * queues growing; far past saturation the network is full within the
 * first warm-up, and that is where it stops.
 */
static void
test_extension(void **state)
{
	static const int k444[3] = {4, 4, 4};
	tt_simparams p;
	tt_simresult r;
	tt_net net;

	(void)state;
	tt_test_net(&net, 3, k444, 1, "D", TT_DL_BUBBLE);
	tt_simparams_default(&p);
	p.warmup_max = 60000;
	run_point(&net, &p, 0.1, 2, &r);
	assert_true(r.converged);
	assert_int_equal(r.warmup_cycles, p.warmup);
	tt_simresult_free(&r);
	run_point(&net, &p, 0.4, 1, &r);
	assert_false(r.converged);
	assert_true(r.warmup_cycles > p.warmup);
	assert_true(r.warmup_cycles <= p.warmup_max);
	assert_int_equal((r.warmup_cycles - p.warmup) % p.measure, 0);
	assert_int_equal(r.measure_cycles, p.measure);
	assert_true(r.saturated_steady ||
	    r.warmup_cycles + p.measure > p.warmup_max);
	tt_simresult_free(&r);
	run_point(&net, &p, 1.0, 1, &r);
	assert_true(r.saturated_steady);
	assert_int_equal(r.warmup_cycles, p.warmup);
	tt_simresult_free(&r);
	/* a cap below the first extension: none */
	p.warmup_max = p.warmup + p.measure - 1;
	run_point(&net, &p, 0.4, 1, &r);
	assert_false(r.converged);
	assert_int_equal(r.warmup_cycles, p.warmup);
	tt_simresult_free(&r);
	tt_net_free(&net);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stationary_accepted),
		cmocka_unit_test(test_saturated_flagged),
		cmocka_unit_test(test_batches_cut_window),
		cmocka_unit_test(test_given_window_exact),
		cmocka_unit_test(test_extension),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
