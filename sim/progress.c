/*
 * Progress on long runs: a line on stderr that rewrites itself, only when
 * stderr is a terminal (and after TTSIM_PROGRESS_AFTER seconds, default
 * 1), so that pipes and CI logs stay clean.  Under
 * mpirun stderr is a pipe to the launcher: rank 0 (whose cycle count is
 * every rank's) then writes a whole line every TTSIM_PROGRESS_SECONDS
 * (default 30) instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "ttsim.h"

static int shown;
static struct timespec started;

static double
elapsed(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - started.tv_sec) +
	    (double)(now.tv_nsec - started.tv_nsec) / 1e9;
}

/* How long a run goes without a progress line: TTSIM_PROGRESS_AFTER
 * seconds, default 1. */
static double
quiet_seconds(void)
{
	static double after = -1;
	const char *e;

	if (after < 0) {
		e = getenv("TTSIM_PROGRESS_AFTER");
		after = e != NULL ? atof(e) : 1.0;
		if (!(after >= 0))
			after = 1.0;
	}
	return after;
}

/* Under MPI: a line now and then, for a batch job's log. */
static void
progress_lines(const char *label, double done)
{
	static double every = -1, next;
	const tt_sim_comm *c = ttsim_comm();
	double t;

	if (every < 0) {
		const char *e = getenv("TTSIM_PROGRESS_SECONDS");

		every = e != NULL ? atof(e) : 30;
		if (!(every >= 0))
			every = 30;
		next = every;
	}
	if (!shown) {
		clock_gettime(CLOCK_MONOTONIC, &started);
		shown = 1;
		return;
	}
	t = elapsed();
	if (t < next || done <= 0.0)
		return;
	next = t + every;
	fprintf(stderr, "%s: %.0f%% on %d ranks, %.0f s so far, %.0f s left\n",
	    label, done * 100.0, c->nranks, t, t / done - t);
	fflush(stderr);
}

void
progress_show(void *label, double done)
{
	double t;

	if (ttsim_comm() != NULL) {
		progress_lines(label, done);
		return;
	}
	if (!isatty(STDERR_FILENO))
		return;
	if (!shown) {
		clock_gettime(CLOCK_MONOTONIC, &started);
		shown = 1;
		return;
	}
	t = elapsed();
	/* Quiet at first: most runs finish before then. */
	if (t < quiet_seconds() || done <= 0.0)
		return;
	fprintf(stderr, "\r%s: %3.0f%%, %.0f s left   ",
	    (const char *)label, done * 100.0, t / done - t);
	fflush(stderr);
}

void
progress_hide(void)
{
	if (ttsim_comm() != NULL)
		return;
	if (shown && isatty(STDERR_FILENO) && elapsed() >= quiet_seconds())
		fprintf(stderr, "\r%60s\r", "");
}

void
progress_clear(void)
{
	if (ttsim_comm() != NULL) {
		shown = 0;
		return;
	}
	if (shown && isatty(STDERR_FILENO) && elapsed() >= quiet_seconds())
		fprintf(stderr, "\r%60s\r", "");
	shown = 0;
}
