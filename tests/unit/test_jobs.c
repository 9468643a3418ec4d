/*
 * ttsim's worker pool (sim/jobs.c, built in here with stubs for the three
 * functions of ttsim it calls) against what sim/ttsim.h promises:
 *   - every task's result comes back whole, with its id, whatever order
 *     the workers finish in, for 1 worker (run in this process) and more;
 *   - a result larger than a pipe holds comes back whole;
 *   - a task that fails, and a worker killed by a signal, give -1 for
 *     that task and the others still come back;
 *   - jobs_idle() counts the slots free, a finished task holds its slot
 *     until it is collected;
 *   - jobs_close() kills and reaps workers still running (no zombie is
 *     left: waitpid finds no child afterwards).
 * Nothing is timed: a slow task only sleeps so that the order of finishing
 * differs from the order of starting.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../sim/jobs.c"

/* What jobs.c uses of the rest of ttsim. */
int
opt_int(const char *cmd, const char *flag, const char *v, int lo, int hi,
    int *out)
{
	(void)cmd;
	(void)flag;
	*out = atoi(v);
	return *out >= lo && *out <= hi ? 0 : -1;
}

const tt_sim_comm *
ttsim_comm(void)
{
	return NULL;
}

void
progress_off(void)
{
}

enum { T_OK, T_SLOW, T_BIG, T_FAIL, T_KILL, T_HANG };

/* Task id: kind * 100 + n; writes "task n" (T_BIG: 1 MiB of n). */
static int
task(void *ctx, int id, FILE *out)
{
	int kind = id / 100, n = id % 100, i;

	(void)ctx;
	switch (kind) {
	case T_SLOW:
		usleep(200000);
		break;
	case T_BIG:
		for (i = 0; i < 1 << 20; i++)
			fputc('a' + n % 26, out);
		return 0;
	case T_FAIL:
		fprintf(stderr, "test_jobs: task %d fails, as it should\n", n);
		return -1;
	case T_KILL:
		raise(SIGKILL);
		break;
	case T_HANG:
		for (;;)
			pause();
	}
	fprintf(out, "task %d", n);
	return 0;
}

/* Run ids on n workers; results[i] for ids[i] ("" when it failed); the
 * number that failed. */
static int
run_all(int n, const int *ids, int count, char **results)
{
	jobs *j;
	char *buf;
	size_t len;
	int next = 0, done = 0, failed = 0, id, i, r;

	assert_int_equal(jobs_open(&j, n, "test"), 0);
	while (done < count) {
		while (next < count && jobs_idle(j) > 0)
			assert_int_equal(jobs_start(j, task, NULL, ids[next++]), 0);
		r = jobs_wait(j, &id, &buf, &len);
		for (i = 0; i < count && ids[i] != id; i++)
			;
		assert_true(i < count);
		if (r < 0) {
			assert_null(buf);
			results[i] = strdup("");
			failed++;
		} else {
			results[i] = strndup(buf, len);
			free(buf);
		}
		done++;
	}
	jobs_close(j);
	return failed;
}

static void
every_result_back(void **state)
{
	int ids[] = {T_SLOW * 100 + 0, 1, 2, T_SLOW * 100 + 3, 4, 5, 6};
	char *res[7], want[32];
	int n, i;

	(void)state;
	for (n = 1; n <= 4; n++) {
		assert_int_equal(run_all(n, ids, 7, res), 0);
		for (i = 0; i < 7; i++) {
			snprintf(want, sizeof(want), "task %d", ids[i] % 100);
			assert_string_equal(res[i], want);
			free(res[i]);
		}
	}
}

static void
big_result(void **state)
{
	int ids[] = {T_BIG * 100 + 1, T_BIG * 100 + 2, 3};
	char *res[3];
	size_t i;

	(void)state;
	assert_int_equal(run_all(2, ids, 3, res), 0);
	assert_int_equal(strlen(res[0]), 1 << 20);
	assert_int_equal(strlen(res[1]), 1 << 20);
	for (i = 0; i < 1 << 20; i++)
		if (res[0][i] != 'b' || res[1][i] != 'c')
			fail_msg("byte %zu of a big result differs", i);
	assert_string_equal(res[2], "task 3");
	for (i = 0; i < 3; i++)
		free(res[i]);
}

static void
failures(void **state)
{
	int ids[] = {1, T_FAIL * 100 + 2, 3, T_KILL * 100 + 4, 5};
	char *res[5];
	int i, n;

	(void)state;
	for (n = 1; n <= 3; n++) {
		/* in this process a task cannot be killed */
		if (n == 1) {
			int one[] = {1, T_FAIL * 100 + 2, 3};

			assert_int_equal(run_all(1, one, 3, res), 1);
			assert_string_equal(res[0], "task 1");
			assert_string_equal(res[1], "");
			assert_string_equal(res[2], "task 3");
			for (i = 0; i < 3; i++)
				free(res[i]);
			continue;
		}
		assert_int_equal(run_all(n, ids, 5, res), 2);
		assert_string_equal(res[0], "task 1");
		assert_string_equal(res[1], "");
		assert_string_equal(res[2], "task 3");
		assert_string_equal(res[3], "");
		assert_string_equal(res[4], "task 5");
		for (i = 0; i < 5; i++)
			free(res[i]);
	}
}

static void
idle_slots(void **state)
{
	jobs *j;
	char *buf;
	size_t len;
	int id;

	(void)state;
	assert_int_equal(jobs_open(&j, 2, "test"), 0);
	assert_int_equal(jobs_idle(j), 2);
	assert_int_equal(jobs_start(j, task, NULL, 7), 0);
	assert_int_equal(jobs_idle(j), 1);
	assert_int_equal(jobs_start(j, task, NULL, 8), 0);
	assert_int_equal(jobs_idle(j), 0);
	assert_int_equal(jobs_start(j, task, NULL, 9), -1);
	assert_int_equal(jobs_wait(j, &id, &buf, &len), 0);
	free(buf);
	assert_int_equal(jobs_idle(j), 1);
	jobs_close(j);

	/* one worker: the task runs at once, its slot busy until collected */
	assert_int_equal(jobs_open(&j, 1, "test"), 0);
	assert_int_equal(jobs_start(j, task, NULL, 5), 0);
	assert_int_equal(jobs_idle(j), 0);
	assert_int_equal(jobs_wait(j, &id, &buf, &len), 0);
	assert_int_equal(id, 5);
	assert_int_equal(jobs_idle(j), 1);
	free(buf);
	/* nothing running: nothing to wait for */
	assert_int_equal(jobs_wait(j, &id, &buf, &len), -1);
	jobs_close(j);
}

static void
close_kills(void **state)
{
	jobs *j;
	char *buf;
	size_t len;
	int id;

	(void)state;
	assert_int_equal(jobs_open(&j, 3, "test"), 0);
	assert_int_equal(jobs_start(j, task, NULL, T_HANG * 100), 0);
	assert_int_equal(jobs_start(j, task, NULL, T_HANG * 100 + 1), 0);
	assert_int_equal(jobs_start(j, task, NULL, 2), 0);
	assert_int_equal(jobs_wait(j, &id, &buf, &len), 0);
	assert_int_equal(id, 2);
	free(buf);
	jobs_close(j);
	/* both hanging workers were reaped: no child is left */
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_result_back),
		cmocka_unit_test(big_result),
		cmocka_unit_test(failures),
		cmocka_unit_test(idle_slots),
		cmocka_unit_test(close_kills),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
