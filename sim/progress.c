/*
 * Progress on long runs: a line on stderr that rewrites itself, only when
 * stderr is a terminal, so that pipes and CI logs stay clean.
 */
#include <stdio.h>
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

void
progress_show(void *label, double done)
{
	double t;

	if (!isatty(STDERR_FILENO))
		return;
	if (!shown) {
		clock_gettime(CLOCK_MONOTONIC, &started);
		shown = 1;
		return;
	}
	t = elapsed();
	/* Quiet for the first second: most runs finish before then. */
	if (t < 1.0 || done <= 0.0)
		return;
	fprintf(stderr, "\r%s: %3.0f%%, %.0f s left   ",
	    (const char *)label, done * 100.0, t / done - t);
	fflush(stderr);
}

void
progress_hide(void)
{
	if (shown && isatty(STDERR_FILENO) && elapsed() >= 1.0)
		fprintf(stderr, "\r%60s\r", "");
}

void
progress_clear(void)
{
	if (shown && isatty(STDERR_FILENO) && elapsed() >= 1.0)
		fprintf(stderr, "\r%60s\r", "");
	shown = 0;
}
