/*
 * ttsim's thread transport (sim/threads.c, built in here) against what
 * sim_part.h asks of a tt_sim_comm, on 1 to 5 threads (5 is more than
 * this machine's cores: the barrier then sleeps at once; 2 spins first):
 *   - allgather hands every rank every rank's values, in rank order;
 *   - allreduce leaves the sum, the largest or the smallest on every
 *     rank, in place;
 *   - alltoallv delivers each rank's bytes for each other rank, of
 *     lengths that differ per pair and per round (zero among them), in
 *     rank order;
 *   - thousands of rounds in a row, so that a barrier that let a thread
 *     through early, or slept through a wake-up, shows as wrong values
 *     or a hang;
 *   - a thread that fails makes ttsim_threads_run() fail;
 *   - ttsim_threads_default() is between 1 and TTSIM_THREADS_MAX.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../sim/threads.c"

#define ROUNDS 3000
#define MAXLEN 40       /* bytes one rank sends another in a round */

/* What rank `from` sends rank `to` in round k: its length, and byte i. */
static uint64_t
msg_len(int from, int to, int k)
{
	return (uint64_t)((from * 7 + to * 3 + k) % 6) * 8;
}

static uint8_t
msg_byte(int from, int to, int k, uint64_t i)
{
	return (uint8_t)(from * 31 + to * 17 + k * 5 + (int)i);
}

struct targ {
	int fail;       /* the round that went wrong, or 0 */
	int fail_at;    /* fail on purpose from this round (0: never) */
};

/* A check of round k: the first that fails is kept, and the thread goes
 * on meeting the others, so that none waits for it for good. */
#define CHECK(ta, k, cond) do { \
	if (!(cond) && (ta)->fail == 0) \
		(ta)->fail = (k); \
} while (0)

static int
exercise(void *arg, const tt_sim_comm *c)
{
	struct targ *ta = arg;
	const int me = c->rank, n = c->nranks;
	uint64_t all[3 * TTSIM_THREADS_MAX], v[2], lo[1], hi[1];
	uint64_t scount[TTSIM_THREADS_MAX], rcount[TTSIM_THREADS_MAX];
	uint8_t send[MAXLEN * TTSIM_THREADS_MAX], recv[MAXLEN * TTSIM_THREADS_MAX];
	int k, r, q;

	for (k = 1; k <= ROUNDS; k++) {
		uint64_t mine[3] = {(uint64_t)me, (uint64_t)k,
		    (uint64_t)me * (uint64_t)k};
		uint64_t at = 0, i;

		if (ta->fail_at > 0 && k >= ta->fail_at)
			return 1;
		c->allgather(c->ctx, mine, 3, all);
		for (r = 0; r < n; r++)
			CHECK(ta, k, all[3 * r] == (uint64_t)r &&
			    all[3 * r + 1] == (uint64_t)k &&
			    all[3 * r + 2] == (uint64_t)r * (uint64_t)k);

		v[0] = (uint64_t)me + 1;
		v[1] = (uint64_t)k;
		c->allreduce(c->ctx, v, 2, TT_SIM_SUM);
		CHECK(ta, k, v[0] == (uint64_t)n * (uint64_t)(n + 1) / 2 &&
		    v[1] == (uint64_t)k * (uint64_t)n);
		lo[0] = hi[0] = (uint64_t)me + (uint64_t)k;
		c->allreduce(c->ctx, lo, 1, TT_SIM_MIN);
		c->allreduce(c->ctx, hi, 1, TT_SIM_MAX);
		CHECK(ta, k, lo[0] == (uint64_t)k &&
		    hi[0] == (uint64_t)(n - 1 + k));

		for (q = 0; q < n; q++) {
			scount[q] = msg_len(me, q, k);
			rcount[q] = msg_len(q, me, k);
			for (i = 0; i < scount[q]; i++)
				send[at + i] = msg_byte(me, q, k, i);
			at += scount[q];
		}
		memset(recv, 0xee, sizeof(recv));
		c->alltoallv(c->ctx, send, scount, recv, rcount);
		for (at = 0, q = 0; q < n; q++) {
			for (i = 0; i < rcount[q]; i++)
				CHECK(ta, k, recv[at + i] == msg_byte(q, me, k, i));
			at += rcount[q];
		}
		/* the sender may reuse its buffer now: change it before
		 * anyone could still be reading the old one */
		memset(send, 0x55, sizeof(send));
	}
	return ta->fail != 0;
}

static void
test_collectives(void **state)
{
	struct targ ta[5];
	void *args[5];
	int n, i;

	(void)state;
	for (n = 1; n <= 5; n++) {
		memset(ta, 0, sizeof(ta));
		for (i = 0; i < n; i++)
			args[i] = &ta[i];
		assert_int_equal(ttsim_threads_run(n, exercise, args, "test"), 0);
		for (i = 0; i < n; i++)
			if (ta[i].fail != 0)
				fail_msg("%d threads: rank %d wrong in round %d", n,
				    i, ta[i].fail);
	}
}

/* A thread that fails at the start (before any collective) fails the
 * run; the others, failing alike, do not wait for it. */
static void
test_failure(void **state)
{
	struct targ ta[3];
	void *args[3];
	int i;

	(void)state;
	memset(ta, 0, sizeof(ta));
	for (i = 0; i < 3; i++) {
		ta[i].fail_at = 1;
		args[i] = &ta[i];
	}
	assert_int_equal(ttsim_threads_run(3, exercise, args, "test"), -1);
	assert_int_equal(ttsim_threads_run(0, exercise, args, "test"), -1);
	assert_int_equal(ttsim_threads_run(TTSIM_THREADS_MAX + 1, exercise,
	    args, "test"), -1);
}

static void
test_default(void **state)
{
	int n = ttsim_threads_default();

	(void)state;
	assert_true(n >= 1 && n <= TTSIM_THREADS_MAX);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collectives),
		cmocka_unit_test(test_failure),
		cmocka_unit_test(test_default),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
