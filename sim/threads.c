/*
 * A run's switches split over threads of this process: the engine's
 * partition (tt_sim_create_part()), the transport MPI ranks use, here
 * over shared memory.  Thread 0 is the caller's; every thread builds its
 * own part and source and runs the same cycles, and every collective
 * call is made by all of them in the same order, so a barrier before a
 * call's reads and one after them is all the ordering it needs.  Results
 * are the serial run's, bit for bit (the partition's own guarantee).
 */
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ttsim.h"

/*
 * The barrier: a run of L = 1 meets at every cycle, four barriers a
 * cycle, and a cycle of a few thousand switches takes microseconds, so a
 * sleeping barrier (pthread_barrier_wait(): a futex wake-up each time,
 * 20-30 us here) would cost more than the cycle.  A thread that arrives
 * early spins a while, then sleeps on the generation's futex.
 */
#define SPIN 4000

struct tbar {
	unsigned gen, count;    /* __atomic builtins, sequentially consistent */
	unsigned sleepers;
	unsigned n;
	int spin;               /* SPIN, or 0 with more threads than cores:
	                         * a spinning thread would hold the core the
	                         * last one needs */
};

#define LOAD(p) __atomic_load_n(p, __ATOMIC_SEQ_CST)
#define ADD(p, v) __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST)

static void
futex(unsigned *addr, int op, unsigned val)
{
	(void)syscall(SYS_futex, addr, op, val, NULL, NULL, 0);
}

/*
 * The last to arrive opens the next generation and wakes the sleepers.
 * A thread going to sleep counts itself first, and the kernel sleeps it
 * only if the generation has not moved: the opener's check of sleepers
 * comes after its move, so nobody sleeps through it.
 */
static void
tbar_wait(struct tbar *b)
{
	unsigned g = LOAD(&b->gen);
	int i;

	if (ADD(&b->count, 1) == b->n - 1) {
		__atomic_store_n(&b->count, 0, __ATOMIC_SEQ_CST);
		ADD(&b->gen, 1);
		if (LOAD(&b->sleepers) > 0)
			futex(&b->gen, FUTEX_WAKE_PRIVATE, (unsigned)INT32_MAX);
		return;
	}
	for (i = 0; i < b->spin; i++) {
		if (__atomic_load_n(&b->gen, __ATOMIC_ACQUIRE) != g)
			return;
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	}
	ADD(&b->sleepers, 1);
	while (LOAD(&b->gen) == g)
		futex(&b->gen, FUTEX_WAIT_PRIVATE, g);
	__atomic_fetch_sub(&b->sleepers, 1, __ATOMIC_SEQ_CST);
}

struct tshared {
	struct tbar bar;
	const void *ptr[TTSIM_THREADS_MAX];
	const uint64_t *cnt[TTSIM_THREADS_MAX];
};

struct tthread {
	struct tshared *sh;
	tt_sim_comm comm;
	ttsim_thread_fn fn;
	void *arg;
	int rc;
	pthread_t tid;
};

static void
t_allgather(void *ctx, const uint64_t *mine, size_t n, uint64_t *all)
{
	struct tthread *t = ctx;
	struct tshared *sh = t->sh;
	int r;

	sh->ptr[t->comm.rank] = mine;
	tbar_wait(&sh->bar);
	for (r = 0; r < t->comm.nranks; r++)
		memcpy(all + (size_t)r * n, sh->ptr[r], n * sizeof(uint64_t));
	tbar_wait(&sh->bar);
}

static uint64_t
combine(uint64_t a, uint64_t b, enum tt_sim_op op)
{
	if (op == TT_SIM_MAX)
		return a > b ? a : b;
	if (op == TT_SIM_MIN)
		return a < b ? a : b;
	return a + b;
}

/* Thread 0 combines into its own values, the others copy them: no
 * memory of anyone's is needed. */
static void
t_allreduce(void *ctx, uint64_t *v, size_t n, enum tt_sim_op op)
{
	struct tthread *t = ctx;
	struct tshared *sh = t->sh;
	size_t i;
	int r;

	sh->ptr[t->comm.rank] = v;
	tbar_wait(&sh->bar);
	if (t->comm.rank == 0)
		for (r = 1; r < t->comm.nranks; r++)
			for (i = 0; i < n; i++)
				v[i] = combine(v[i],
				    ((const uint64_t *)sh->ptr[r])[i], op);
	tbar_wait(&sh->bar);
	if (t->comm.rank != 0)
		memcpy(v, sh->ptr[0], n * sizeof(uint64_t));
	tbar_wait(&sh->bar);
}

static void
t_alltoallv(void *ctx, const void *send, const uint64_t *scount,
    void *recv, const uint64_t *rcount)
{
	struct tthread *t = ctx;
	struct tshared *sh = t->sh;
	const int me = t->comm.rank;
	uint64_t ro = 0, so;
	int q, j;

	sh->ptr[me] = send;
	sh->cnt[me] = scount;
	tbar_wait(&sh->bar);
	for (q = 0; q < t->comm.nranks; q++) {
		for (so = 0, j = 0; j < me; j++)
			so += sh->cnt[q][j];
		if (rcount[q] > 0)
			memcpy((char *)recv + ro,
			    (const char *)sh->ptr[q] + so, rcount[q]);
		ro += rcount[q];
	}
	tbar_wait(&sh->bar);
}

static void *
thread_main(void *arg)
{
	struct tthread *t = arg;

	t->rc = t->fn(t->arg, &t->comm);
	return NULL;
}

int
ttsim_threads_run(int n, ttsim_thread_fn fn, void *const *args,
    const char *cmd)
{
	struct tshared sh;
	struct tthread t[TTSIM_THREADS_MAX];
	int i, e, rc = 0, started;

	if (n < 1 || n > TTSIM_THREADS_MAX)
		return -1;
	memset(&sh, 0, sizeof(sh));
	sh.bar.n = (unsigned)n;
	sh.bar.spin = n <= ttsim_threads_default() ? SPIN : 0;
	for (i = 0; i < n; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].sh = &sh;
		t[i].fn = fn;
		t[i].arg = args[i];
		t[i].comm.rank = i;
		t[i].comm.nranks = n;
		t[i].comm.local = n;
		t[i].comm.ctx = &t[i];
		t[i].comm.allgather = t_allgather;
		t[i].comm.allreduce = t_allreduce;
		t[i].comm.alltoallv = t_alltoallv;
	}
	for (started = 1; started < n; started++)
		if ((e = pthread_create(&t[started].tid, NULL, thread_main,
		    &t[started])) != 0) {
			/* nothing has run yet: the others would wait at the
			 * first barrier for good; stop here */
			fprintf(stderr, "ttsim %s: cannot start a thread: %s "
			    "(try --threads 1)\n", cmd, strerror(e));
			exit(TTSIM_EXIT_USAGE);
		}
	thread_main(&t[0]);
	for (i = 1; i < n; i++) {
		pthread_join(t[i].tid, NULL);
		if (t[i].rc != 0)
			rc = -1;
	}
	if (t[0].rc != 0)
		rc = -1;
	return rc;
}

int
ttsim_threads_default(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 1;
	n = CPU_COUNT(&set);
	if (n < 1)
		n = 1;
	return n > TTSIM_THREADS_MAX ? TTSIM_THREADS_MAX : n;
}

/*
 * Measured on 2 cores (bench/RESULTS.md, bench/threads-speed.sh), two
 * threads against one: 3DT 12^3 (3,456 switches) to 32^3 1.2 to 2.1 times
 * as fast at loads 0.05 and 0.3; 3DT 8^3 (1,024) 1.4 times for twice the
 * CPU, a plain 8^3 (512) no faster at 0.05.  The default leaves networks
 * below TTSIM_THREADS_MIN_SWITCHES on one thread.
 */
int
ttsim_threads_for(const tt_net *net, int asked, const char *cmd)
{
	uint32_t ns = net->ncards, nodes = net->twin ? ns / 2 : ns;
	int n;

	if (asked > 0) {
		if ((uint32_t)asked > nodes) {
			fprintf(stderr, "ttsim %s: --threads %d: the network "
			    "has %u nodes; use at most one thread a node\n",
			    cmd, asked, (unsigned)nodes);
			return -1;
		}
		return asked;
	}
	if (asked != TTSIM_THREADS_AUTO || ns < TTSIM_THREADS_MIN_SWITCHES)
		return 1;
	n = ttsim_threads_default();
	return n < TTSIM_THREADS_DEFAULT ? n : TTSIM_THREADS_DEFAULT;
}
