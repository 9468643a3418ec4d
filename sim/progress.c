/*
 * Progress on long runs.  On a terminal's stderr, a line that rewrites
 * itself (after TTSIM_PROGRESS_AFTER seconds, default 1: most runs finish
 * before then).  Elsewhere nothing, so that pipes and CI logs stay clean,
 * unless --progress asks for it: then whole lines, one every
 * TTSIM_PROGRESS_SECONDS (default 10), for a batch job's log.  Under
 * mpirun stderr is a pipe to the launcher: rank 0 (whose cycle count is
 * every rank's) writes such lines without being asked, every
 * TTSIM_PROGRESS_SECONDS (default 30 there).  --no-progress shows none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "ttsim.h"

static enum { PROGRESS_AUTO, PROGRESS_LINES, PROGRESS_OFF } mode;
static int shown;
static struct timespec started;
static double next_line;        /* elapsed seconds of the next line */

const optdef progress_flags[] = {
	OPT_TITLE("progress (a line rewritten on stderr when it is a terminal, "
	    "nothing otherwise):"),
	OPT_FLAG("progress", OPT_PROGRESS,
	    "whole lines when stderr is a pipe or a file too, one every "
	    "TTSIM_PROGRESS_SECONDS (10)"),
	OPT_FLAG("no-progress", OPT_NO_PROGRESS, "none at all"),
	OPT_END
};

int
progress_take(void *state, const struct optval *v)
{
	(void)state;
	mode = v->id == OPT_PROGRESS ? PROGRESS_LINES : PROGRESS_OFF;
	return 0;
}

void
progress_off(void)
{
	mode = PROGRESS_OFF;
}

static double
elapsed(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - started.tv_sec) +
	    (double)(now.tv_nsec - started.tv_nsec) / 1e9;
}

/* Seconds from the environment variable name, or dflt. */
static double
env_seconds(const char *name, double dflt)
{
	const char *e = getenv(name);
	double x = e != NULL ? atof(e) : dflt;

	return x >= 0 ? x : dflt;
}

/* How long a run goes without a line on a terminal. */
static double
quiet_seconds(void)
{
	static double after = -1;

	if (after < 0)
		after = env_seconds("TTSIM_PROGRESS_AFTER", 1.0);
	return after;
}

/* Seconds between whole lines. */
static double
line_seconds(void)
{
	static double every = -1;

	if (every < 0)
		every = env_seconds("TTSIM_PROGRESS_SECONDS",
		    ttsim_comm() != NULL ? 30 : 10);
	return every;
}

/* Whole lines: under MPI, or asked for where stderr is no terminal. */
static int
by_lines(void)
{
	if (mode == PROGRESS_OFF)
		return 0;
	return ttsim_comm() != NULL ||
	    (mode == PROGRESS_LINES && !isatty(STDERR_FILENO));
}

/* A line that rewrites itself on a terminal. */
static int
on_terminal(void)
{
	return mode != PROGRESS_OFF && ttsim_comm() == NULL &&
	    isatty(STDERR_FILENO);
}

static void
progress_lines(const char *label, double done)
{
	const tt_sim_comm *c = ttsim_comm();
	double t;

	if (!shown) {
		clock_gettime(CLOCK_MONOTONIC, &started);
		shown = 1;
		next_line = line_seconds();
		return;
	}
	t = elapsed();
	if (t < next_line || done <= 0.0)
		return;
	next_line = t + line_seconds();
	if (c != NULL)
		fprintf(stderr, "%s: %.0f%% on %d ranks, %.0f s so far, "
		    "%.0f s left\n", label, done * 100.0, c->nranks, t,
		    t / done - t);
	else
		fprintf(stderr, "%s: %.0f%%, %.0f s so far, %.0f s left\n",
		    label, done * 100.0, t, t / done - t);
	fflush(stderr);
}

void
progress_show(void *label, double done)
{
	double t;

	if (by_lines()) {
		progress_lines(label, done);
		return;
	}
	if (!on_terminal())
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
	if (shown && on_terminal() && elapsed() >= quiet_seconds())
		fprintf(stderr, "\r%60s\r", "");
}

void
progress_clear(void)
{
	progress_hide();
	shown = 0;
}
