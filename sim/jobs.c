/*
 * --jobs N: independent tasks (the points of a sweep) in worker
 * processes.  A process per task, forked from the parent that has every
 * option parsed and every network checked; the task writes its result to
 * a pipe and the parent hands the results back in whatever order they
 * finish (the caller prints them in its own).  Processes, not threads: the
 * engine's traffic and watchdog state is per run but the command layer
 * keeps static buffers, and a worker that fails or is killed takes only
 * itself down.  --jobs 1 runs each task in this process, as it comes.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ttsim.h"

#define JOBS_MAX 1024
/* A worker's exit status: the task failed (its messages are its result),
 * or the worker could not run it. */
#define JOBS_FAILED 3
#define JOBS_BROKEN 4

const optdef jobs_flags[] = {
	OPT_TITLE("parallel:"),
	OPT_VAL("jobs", OPT_JOBS, "N",
	    "N at a time, each in a process of its own (default the cores "
	    "online); the output is the bytes of --jobs 1.  Under mpirun the "
	    "ranks share the work instead"),
	OPT_END
};

int
jobs_default(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > JOBS_MAX ? JOBS_MAX : (int)n;
}

int
jobs_take(void *njobs, const struct optval *v)
{
	return opt_int(v->cmd, v->flag, v->value, 1, JOBS_MAX, njobs);
}

struct worker {
	pid_t pid;              /* 0: a free slot */
	int fd;                 /* the read end of its pipe */
	int id;
	char *buf;              /* what it wrote so far */
	size_t len, cap;
	int done;               /* finished, its result waits */
	int failed;             /* --jobs 1: the task failed (it said why) */
	int status;             /* a worker's, from waitpid() */
	int readerr;            /* its pipe could not be read */
};

struct jobs {
	const char *cmd;
	int n;
	int said;               /* a failure was told: the next ones are not */
	struct worker w[];
};

/* The workers, for the signal handler: killed when the parent is. */
static volatile pid_t live[JOBS_MAX];
static struct sigaction saved[3];
static const int stopsig[3] = {SIGINT, SIGTERM, SIGHUP};

static void
on_stop(int sig)
{
	int i;

	for (i = 0; i < JOBS_MAX; i++)
		if (live[i] > 0)
			kill(live[i], SIGTERM);
	/* then as before jobs_open(): the outputs' handler removes their
	 * temporary files (twintorus/outfile.h), or the default ends us */
	for (i = 0; i < 3; i++)
		if (stopsig[i] == sig)
			sigaction(sig, &saved[i], NULL);
	raise(sig);
}

int
jobs_open(jobs **jp, int n, const char *cmd)
{
	struct sigaction sa;
	jobs *j;
	int i;

	if (n < 1)
		n = 1;
	if (n > JOBS_MAX)
		n = JOBS_MAX;
	j = calloc(1, sizeof(*j) + sizeof(j->w[0]) * (size_t)n);
	if (j == NULL) {
		fprintf(stderr, "ttsim %s: out of memory\n", cmd);
		return -1;
	}
	j->cmd = cmd;
	j->n = n;
	if (n > 1) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_stop;
		sigemptyset(&sa.sa_mask);
		/* a signal ignored (nohup, a shell's background job) stays so */
		for (i = 0; i < 3; i++)
			if (sigaction(stopsig[i], NULL, &saved[i]) == 0 &&
			    saved[i].sa_handler != SIG_IGN)
				sigaction(stopsig[i], &sa, NULL);
	}
	*jp = j;
	return 0;
}

/* Slots free for another task. */
int
jobs_idle(const jobs *j)
{
	int i, k = 0;

	for (i = 0; i < j->n; i++)
		k += j->w[i].pid == 0 && !j->w[i].done;
	return k;
}

/* Tasks started whose result has not been handed over. */
int
jobs_busy(const jobs *j)
{
	int i, k = 0;

	for (i = 0; i < j->n; i++)
		k += j->w[i].pid > 0 || j->w[i].done;
	return k;
}

/* Run fn into a buffer: 0, or -1 after its message. */
static int
run_here(jobs_task fn, void *ctx, int id, char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);
	int rc;

	if (f == NULL)
		return -1;
	rc = fn(ctx, id, f);
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

/* len bytes at p to fd; -1 on an error. */
static int
write_all(int fd, const char *p, size_t len)
{
	ssize_t w;

	while (len > 0) {
		w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* What the worker wrote to stderr (a temporary file), to fd. */
static int
copy_stderr(FILE *log, int fd)
{
	char b[4096];
	size_t n;

	fflush(stderr);
	rewind(log);
	while ((n = fread(b, 1, sizeof(b), log)) > 0)
		if (write_all(fd, b, n) < 0)
			return -1;
	return 0;
}

/*
 * In the worker: the task, its result down the pipe, and out.  Its
 * messages wait in a file: a worker that fails sends them instead of a
 * result, so that the parent prints the first failure's alone (the others
 * are killed); one that succeeds passes them on to stderr.
 */
static void
worker_main(jobs_task fn, void *ctx, int id, int fd, pid_t parent)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *log = tmpfile();
	int i, err = dup(STDERR_FILENO);

	/* the parent's handler is not for us (it kills our siblings); a
	 * signal the parent was started ignoring (nohup: SIGHUP) stays
	 * ignored, since a hangup reaches the workers too */
	for (i = 0; i < 3; i++)
		if (saved[i].sa_handler != SIG_IGN)
			signal(stopsig[i], SIG_DFL);
	/* the parent shows the progress: ours would go to the log */
	progress_off();
	/* an orphan would simulate on for nobody */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent || log == NULL || err < 0 ||
	    dup2(fileno(log), STDERR_FILENO) < 0)
		_exit(JOBS_BROKEN);
	if (run_here(fn, ctx, id, &buf, &len) < 0) {
		copy_stderr(log, fd);
		_exit(JOBS_FAILED);
	}
	if (copy_stderr(log, err) < 0 || write_all(fd, buf, len) < 0)
		_exit(JOBS_BROKEN);
	_exit(0);
}

int
jobs_start(jobs *j, jobs_task fn, void *ctx, int id)
{
	struct worker *w = NULL;
	int i, p[2];
	pid_t parent = getpid();

	for (i = 0; i < j->n && w == NULL; i++)
		if (j->w[i].pid == 0 && !j->w[i].done)
			w = &j->w[i];
	if (w == NULL)
		return -1;
	memset(w, 0, sizeof(*w));
	w->id = id;
	if (j->n == 1) {
		w->done = 1;
		w->failed = run_here(fn, ctx, id, &w->buf, &w->len) < 0;
		return 0;
	}
	/* what the parent has buffered is the parent's to print */
	fflush(stdout);
	fflush(stderr);
	if (pipe(p) < 0)
		goto fail;
	if ((w->pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		goto fail;
	}
	if (w->pid == 0) {
		close(p[0]);
		worker_main(fn, ctx, id, p[1], parent);
	}
	close(p[1]);
	w->fd = p[0];
	live[w - j->w] = w->pid;
	return 0;
fail:
	fprintf(stderr, "ttsim %s: cannot start a worker: %s (try a lower "
	    "--jobs)\n", j->cmd, strerror(errno));
	w->pid = 0;
	return -1;
}

/* Read what worker w has written; 1 at its end of file. */
static int
worker_read(struct worker *w)
{
	char *nb;
	ssize_t r;

	if (w->cap - w->len < 4096) {
		nb = realloc(w->buf, w->cap * 2 + 8192);
		if (nb == NULL)
			return -1;
		w->buf = nb;
		w->cap = w->cap * 2 + 8192;
	}
	r = read(w->fd, w->buf + w->len, w->cap - w->len);
	if (r < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -1;
	w->len += (size_t)r;
	return r == 0;
}

/* Worker w's pipe is at its end: reap it and keep how it ended. */
static void
worker_reap(jobs *j, struct worker *w)
{
	while (waitpid(w->pid, &w->status, 0) < 0)
		if (errno != EINTR) {
			w->status = -1;
			break;
		}
	close(w->fd);
	live[w - j->w] = 0;
	w->pid = 0;
	w->done = 1;
}

/* Say why worker w failed, if it did: only the first failure is told
 * (a caller that stops at it may still collect the tasks running, and
 * theirs would only repeat it). */
static int
worker_failed(jobs *j, const struct worker *w)
{
	int st = w->status;

	if (w->failed)
		return -1;
	if (st == 0 && !w->readerr)
		return 0;
	if (j->said)
		return -1;
	j->said = 1;
	if (st == -1 || w->readerr)
		fprintf(stderr, "ttsim %s: lost a worker's result\n", j->cmd);
	else if (WIFSIGNALED(st))
		fprintf(stderr, "ttsim %s: a worker was killed by signal %d "
		    "(%s)\n", j->cmd, WTERMSIG(st), strsignal(WTERMSIG(st)));
	else if (WEXITSTATUS(st) == JOBS_FAILED)
		fwrite(w->buf, 1, w->len, stderr);
	else
		fprintf(stderr, "ttsim %s: a worker failed (exit %d)\n",
		    j->cmd, WEXITSTATUS(st));
	return -1;
}

/* Hand over worker w's result. */
static int
worker_give(jobs *j, struct worker *w, int *id, char **buf,
    size_t *len)
{
	int rc = worker_failed(j, w);

	*id = w->id;
	*buf = w->buf;
	*len = w->len;
	w->buf = NULL;
	w->done = 0;
	w->status = 0;
	w->failed = w->readerr = 0;
	if (rc < 0) {
		free(*buf);
		*buf = NULL;
	}
	return rc;
}

int
jobs_wait(jobs *j, int *id, char **buf, size_t *len)
{
	struct pollfd pf[JOBS_MAX];
	struct worker *w;
	int i, k, r;

	for (;;) {
		for (i = k = 0; i < j->n; i++) {
			w = &j->w[i];
			if (w->done)
				return worker_give(j, w, id, buf, len);
			if (w->pid > 0) {
				pf[k].fd = w->fd;
				pf[k].events = POLLIN;
				pf[k++].revents = 0;
			}
		}
		if (k == 0)
			return -1;
		if (poll(pf, (nfds_t)k, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (i = k = 0; i < j->n; i++) {
			w = &j->w[i];
			if (w->pid <= 0)
				continue;
			if (pf[k++].revents == 0)
				continue;
			if ((r = worker_read(w)) == 0)
				continue;
			if (r < 0) {
				kill(w->pid, SIGTERM);
				w->readerr = 1;
			}
			worker_reap(j, w);
		}
	}
}

void
jobs_close(jobs *j)
{
	int i, st;

	if (j == NULL)
		return;
	for (i = 0; i < j->n; i++)
		if (j->w[i].pid > 0)
			kill(j->w[i].pid, SIGTERM);
	for (i = 0; i < j->n; i++) {
		if (j->w[i].pid > 0) {
			close(j->w[i].fd);
			while (waitpid(j->w[i].pid, &st, 0) < 0 &&
			    errno == EINTR)
				;
			live[i] = 0;
		}
		free(j->w[i].buf);
	}
	if (j->n > 1)
		for (i = 0; i < 3; i++)
			sigaction(stopsig[i], &saved[i], NULL);
	free(j);
}

int
jobs_allgather(const char *mine, size_t n, char **all, uint64_t **counts)
{
	const tt_sim_comm *cm = ttsim_comm();
	uint64_t *cnt, *scnt, my = n, total = 0;
	char *send = NULL, *recv = NULL;
	uint64_t bad = 0;
	int r;

	cnt = calloc(2 * (size_t)cm->nranks, sizeof(*cnt));
	if (cnt == NULL || (send = malloc(n * (size_t)cm->nranks + 1)) == NULL)
		bad = 1;
	/* every rank takes part in what follows, or none does */
	cm->allreduce(cm->ctx, &bad, 1, TT_SIM_MAX);
	if (bad)
		goto fail;
	scnt = cnt + cm->nranks;
	cm->allgather(cm->ctx, &my, 1, cnt);
	for (r = 0; r < cm->nranks; r++) {
		memcpy(send + n * (size_t)r, mine, n);
		scnt[r] = n;
		total += cnt[r];
	}
	bad = (recv = malloc(total + 1)) == NULL;
	cm->allreduce(cm->ctx, &bad, 1, TT_SIM_MAX);
	if (bad)
		goto fail;
	cm->alltoallv(cm->ctx, send, scnt, recv, cnt);
	free(send);
	*all = recv;
	*counts = cnt;
	return 0;
fail:
	fprintf(stderr, "ttsim: out of memory gathering the ranks' results\n");
	free(cnt);
	free(send);
	free(recv);
	return -1;
}
