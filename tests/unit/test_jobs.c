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
 *   - the runner (runner_run()) hands every task's result to the
 *     command at its id on the pool, in this process and on the MPI
 *     paths (whole tasks, tasks split over the ranks), awaits the running
 *     tasks after a failure when the command prints in order and not
 *     otherwise.
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

/* The runner's MPI path against one process standing for rank 0 of
 * fake_ranks ranks: its collectives see only its own data, so runs of
 * whole tasks use one rank; more, and only the split path is taken. */
static int fake_ranks;

static void
fake_allgather(void *ctx, const uint64_t *mine, size_t n, uint64_t *all)
{
	(void)ctx;
	memcpy(all, mine, sizeof(*mine) * n);
}

static void
fake_allreduce(void *ctx, uint64_t *v, size_t n, enum tt_sim_op op)
{
	(void)ctx;
	(void)v;
	(void)n;
	(void)op;
}

static void
fake_alltoallv(void *ctx, const void *send, const uint64_t *scount,
    void *recv, const uint64_t *rcount)
{
	(void)ctx;
	assert_int_equal(scount[0], rcount[0]);
	memcpy(recv, send, scount[0]);
}

const tt_sim_comm *
ttsim_comm(void)
{
	static tt_sim_comm c;

	if (fake_ranks == 0)
		return NULL;
	c.rank = 0;
	c.nranks = fake_ranks;
	c.allgather = fake_allgather;
	c.allreduce = fake_allreduce;
	c.alltoallv = fake_alltoallv;
	return &c;
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

/*
 * The runner: a command of count tasks (ids[]), with results kept at their
 * index as the commands do.
 */
struct cmd {
	const int *ids;
	int count, next;
	char *res[16];
	int taken, here_runs, afters, whole_seen, alone_seen;
	int where_elsewhere;
	int whole, alone;       /* the runner's flags */
};

static int
cmd_next(void *ctx, int *id)
{
	struct cmd *c = ctx;

	if (c->next >= c->count)
		return 0;
	*id = c->next++;
	return 1;
}

/* Task i runs the kind of ids[i]. */
static int
cmd_task(void *ctx, int i, FILE *out)
{
	struct cmd *c = ctx;

	c->whole_seen |= c->whole;
	return task(NULL, c->ids[i], out);
}

static int
cmd_take(void *ctx, int i, const char *buf, size_t len, int where)
{
	struct cmd *c = ctx;

	assert_true(i >= 0 && i < c->count);
	assert_null(c->res[i]);
	c->res[i] = strndup(buf, len);
	c->taken++;
	c->where_elsewhere += where == RUNNER_ELSEWHERE;
	return 0;
}

static int
cmd_here(void *ctx, int i)
{
	struct cmd *c = ctx;
	char s[32];

	c->alone_seen |= c->alone;
	c->here_runs++;
	if (c->ids[i] / 100 == T_FAIL)
		return -1;
	snprintf(s, sizeof(s), "task %d", c->ids[i] % 100);
	c->res[i] = strdup(s);
	return 0;
}

/* 1 once every task is taken, as a command that prints in order. */
static int
cmd_after(void *ctx)
{
	struct cmd *c = ctx;

	c->afters++;
	return c->taken == c->count;
}

static int
run_cmd(struct cmd *c, const int *ids, int count, int njobs, int here,
    int after, int ordered)
{
	runner rn = {
		.cmd = "test", .what = "a task", .see_why = "run it alone",
		.ctx = c, .njobs = njobs, .next = cmd_next, .run = cmd_task,
		.take = cmd_take, .here = here ? cmd_here : NULL,
		.after = after ? cmd_after : NULL, .ordered = ordered,
		.whole = &c->whole, .alone = &c->alone,
	};

	memset(c, 0, sizeof(*c));
	c->ids = ids;
	c->count = count;
	return runner_run(&rn);
}

static void
free_cmd(struct cmd *c)
{
	int i;

	for (i = 0; i < c->count; i++)
		free(c->res[i]);
}

/* Every task's result at its index, on 1 to 4 workers, with and without
 * here() and after(); here() only where tasks run one at a time. */
static void
runner_every_result(void **state)
{
	int ids[] = {T_SLOW * 100 + 0, 1, 2, T_SLOW * 100 + 3, 4, 5};
	char want[32];
	struct cmd c;
	int n, i, h, a;

	(void)state;
	for (n = 1; n <= 4; n++)
		for (h = 0; h <= 1; h++)
			for (a = 0; a <= 1; a++) {
				assert_int_equal(run_cmd(&c, ids, 6, n, h, a, a),
				    0);
				for (i = 0; i < 6; i++) {
					snprintf(want, sizeof(want), "task %d",
					    ids[i] % 100);
					assert_non_null(c.res[i]);
					assert_string_equal(c.res[i], want);
				}
				assert_int_equal(c.here_runs,
				    h && n == 1 ? 6 : 0);
				assert_int_equal(c.alone_seen, h && n == 1);
				assert_int_equal(c.taken, h && n == 1 ? 0 : 6);
				assert_true(!a || c.afters >= 1);
				assert_int_equal(c.where_elsewhere, 0);
				free_cmd(&c);
			}
}

/* A failed task fails the run.  In order (ordered), the tasks still
 * running are awaited and taken, and after() runs once more; else they
 * are killed and never taken. */
static void
runner_failure(void **state)
{
	int ids[] = {T_FAIL * 100 + 0, T_SLOW * 100 + 1, T_SLOW * 100 + 2};
	struct cmd c;

	(void)state;
	assert_int_equal(run_cmd(&c, ids, 3, 3, 0, 1, 1), -1);
	assert_non_null(c.res[1]);
	assert_non_null(c.res[2]);
	assert_int_equal(c.taken, 2);
	assert_true(c.afters >= 2);
	free_cmd(&c);
	assert_int_equal(run_cmd(&c, ids, 3, 3, 0, 0, 0), -1);
	assert_int_equal(c.taken, 0);
	free_cmd(&c);
	/* here(), one at a time: the first failure stops the rest */
	assert_int_equal(run_cmd(&c, ids, 3, 1, 1, 0, 0), -1);
	assert_int_equal(c.here_runs, 1);
	free_cmd(&c);
	/* no worker is left behind */
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

/* Under MPI: as many tasks as ranks or more, each runs whole (the flag
 * set while it does) and its record comes back through the gather;
 * fewer, and each runs split over the ranks, here() when the command
 * has one. */
static void
runner_on_mpi(void **state)
{
	int ids[] = {1, T_BIG * 100 + 2, 3};
	struct cmd c;

	(void)state;
	fake_ranks = 1;
	assert_int_equal(run_cmd(&c, ids, 3, 4, 1, 1, 1), 0);
	assert_int_equal(c.taken, 3);
	assert_int_equal(c.here_runs, 0);
	assert_int_equal(c.whole_seen, 1);
	assert_int_equal(c.whole, 0);
	assert_string_equal(c.res[0], "task 1");
	assert_int_equal(strlen(c.res[1]), 1 << 20);
	assert_string_equal(c.res[2], "task 3");
	free_cmd(&c);
	fake_ranks = 4;
	assert_int_equal(run_cmd(&c, ids, 3, 4, 1, 0, 0), 0);
	assert_int_equal(c.here_runs, 3);
	assert_int_equal(c.whole_seen, 0);
	assert_int_equal(c.alone_seen, 1);
	free_cmd(&c);
	assert_int_equal(run_cmd(&c, ids, 3, 4, 0, 1, 1), 0);
	assert_int_equal(c.taken, 3);
	assert_string_equal(c.res[2], "task 3");
	free_cmd(&c);
	/* a failure on this rank fails the run on every rank */
	fake_ranks = 1;
	{
		int bad[] = {1, T_FAIL * 100 + 2};

		assert_int_equal(run_cmd(&c, bad, 2, 4, 0, 0, 0), -1);
		assert_int_equal(c.taken, 0);
		free_cmd(&c);
	}
	fake_ranks = 0;
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
		cmocka_unit_test(runner_every_result),
		cmocka_unit_test(runner_failure),
		cmocka_unit_test(runner_on_mpi),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
