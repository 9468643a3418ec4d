/*
 * The latency histogram of the network model (twintorus/sim.h): exact
 * below TT_HIST_LINEAR cycles, then TT_HIST_SUB bins per octave, so that a
 * quantile is within 1/128 of the truth at any latency and the histogram
 * has a fixed size (it is combined across ranks word by word, see
 * sim_reduce.c).
 */
#include <math.h>

#include "twintorus/sim.h"

static size_t
hist_bin(uint64_t v)
{
	int e;
	uint64_t sub;

	if (v < TT_HIST_LINEAR)
		return (size_t)v;
	e = 63 - __builtin_clzll(v);             /* v in [2^e, 2^(e+1)) */
	sub = (v - (1ull << e)) >> (e - 7);      /* 128 steps per octave */
	e -= 12;                                 /* 4096 = 2^12 is octave 0 */
	if (e >= 40)
		return TT_HIST_BINS - 1;
	return (size_t)(TT_HIST_LINEAR + (size_t)e * TT_HIST_SUB + sub);
}

static uint64_t
hist_lower(size_t b)
{
	size_t e, sub;

	if (b < TT_HIST_LINEAR)
		return b;
	e = (b - TT_HIST_LINEAR) / TT_HIST_SUB + 12;
	sub = (b - TT_HIST_LINEAR) % TT_HIST_SUB;
	return (1ull << e) + ((uint64_t)sub << (e - 7));
}

void
tt_hist_add(tt_hist *h, uint64_t v)
{
	h->count++;
	h->sum += (double)v;
	if (v > h->max)
		h->max = v;
	h->bin[hist_bin(v)]++;
}

uint64_t
tt_hist_quantile(const tt_hist *h, double q)
{
	uint64_t need, seen = 0;
	size_t b;

	if (h->count == 0)
		return 0;
	need = (uint64_t)ceil(q * (double)h->count);
	if (need < 1)
		need = 1;
	for (b = 0; b < TT_HIST_BINS; b++) {
		seen += h->bin[b];
		if (seen >= need)
			return hist_lower(b) > h->max ? h->max : hist_lower(b);
	}
	return h->max;
}
