/*
 * The measurement window of a run (sim_int.h): its batches, the
 * steady-state test on them, and, when the run may, the warm-up extended
 * until the test passes.
 *
 * Batch means, as simulators of this kind measure a steady state: cut the
 * window into equal batches and look at the series of per-batch means.  A
 * network in its steady state gives batches that scatter around one value;
 * one that is still filling its buffers, or whose source queues grow
 * without bound (past saturation), gives batches that trend.  The test
 * fits a straight line through each series (accepted load, end-to-end and
 * network latency) and calls it steady unless the line's change over the
 * window is both large (a tolerance of the mean) and significant (its
 * slope beyond 99% Student-t limits of its standard error).  A window that
 * fails is turned into warm-up and the next one measured, up to a cap on
 * the warm-up.  BookSim's sample periods serve the same purpose, comparing
 * consecutive periods instead of fitting a trend.
 *
 * A point past saturation never converges: its end-to-end latency grows
 * with its source queues.  Its network does reach a steady state, though,
 * once its buffers are full: the accepted load (the saturation throughput)
 * and the network latency stop moving.  The extension stops there.  Until
 * then the buffers are still absorbing the excess, and the accepted load
 * can stay above the saturation throughput for tens of thousands of
 * cycles while falling too slowly to show within one window; the network
 * latency, which grows as they fill, is what shows it.
 */
#include <math.h>
#include <string.h>

#include "twintorus/stats.h"
#include "engine/sim_int.h"

void
sim_window_reset(tt_sim *sim)
{
	uint64_t len = sim->wend - sim->wstart;

	sim->nb = len < TT_SIM_BATCHES ? (int)len : TT_SIM_BATCHES;
	if (sim->nb < 1)
		sim->nb = 1;
	/* a shorter packet's transfer lies inside whenever a P-flit one
	 * from the same cycle does */
	sim->wfull = len >= (uint64_t)sim->P ? len - (uint64_t)sim->P + 1 : 0;
	sim->blen = len / (uint64_t)sim->nb;
	if (sim->blen < 1)
		sim->blen = 1;
	memset(sim->batch, 0, sizeof(*sim->batch) * (TT_SIM_BATCHES + 1));
	sim->dbatch = &sim->batch[sim->nb];
	sim->wdone = 0;
	sim->tcrit = sim->nb > 2 ? tt_t_quantile(0.995, sim->nb - 2) : 0;
}

uint64_t
sim_window_packets(const tt_sim *sim)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < sim->nb; i++)
		n += sim->batch[i].pkts;
	return n;
}

uint64_t
sim_window_flits(const tt_sim *sim)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < sim->nb; i++)
		n += sim->batch[i].flits;
	return n;
}

/* A series' trend over the window; batches in which no packet arrived
 * say nothing of latency and are left out of the latencies'. */
static void
series_trend(const double *y, const struct sim_batch *b, int nb, int all,
    tt_trend *tr)
{
	double x[TT_SIM_BATCHES], v[TT_SIM_BATCHES];
	int i, n = 0;

	for (i = 0; i < nb; i++)
		if (all || b[i].pkts) {
			x[n] = (double)i;
			v[n++] = y[i];
		}
	tt_trend_fit(x, v, n, tr);
}

/* The steady-state test of the window's batches (every rank's), into res. */
static void
window_test(tt_sim *sim, const struct sim_batch *b)
{
	tt_simresult *r = sim->res;
	uint64_t len;
	tt_trend acc, lat, net;
	int i, net_steady;

	r->nbatch = sim->nb;
	for (i = 0; i < sim->nb; i++) {
		len = i + 1 < sim->nb ? sim->blen :
		    (sim->wend - sim->wstart) - sim->blen * (uint64_t)i;
		r->batch_accepted[i] = (double)b[i].flits /
		    ((double)len * (double)sim->ns_all);
		r->batch_latency[i] = b[i].pkts ?
		    (double)b[i].lat / (double)b[i].pkts : 0;
		r->batch_net_latency[i] = b[i].pkts ?
		    (double)b[i].nlat / (double)b[i].pkts : 0;
	}
	series_trend(r->batch_accepted, b, sim->nb, 1, &acc);
	series_trend(r->batch_latency, b, sim->nb, 0, &lat);
	series_trend(r->batch_net_latency, b, sim->nb, 0, &net);
	r->accepted_drift = acc.drift;
	r->latency_drift = lat.drift;
	r->net_latency_drift = net.drift;
	r->throughput_converged = tt_trend_steady(&acc, TT_STEADY_ACCEPTED_TOL,
	    sim->tcrit);
	net_steady = tt_trend_steady(&net, TT_STEADY_LATENCY_TOL, sim->tcrit);
	r->converged = r->throughput_converged && net_steady &&
	    tt_trend_steady(&lat, TT_STEADY_LATENCY_TOL, sim->tcrit);
	r->saturated_steady = r->throughput_converged && net_steady &&
	    !r->converged && lat.drift > 0;
	sim->wdone = r->converged || r->saturated_steady ||
	    sim->p.warmup_max == 0 || sim->wend > sim->p.warmup_max;
}

/* The measured packets of the old window are no longer measured: what
 * they counted is cleared, and the ones still in buffers lose the mark. */
static void
window_clear(tt_sim *sim)
{
	tt_simresult *r = sim->res;
	uint64_t npo = (uint64_t)sim->ns * (uint64_t)sim->np, i;
	uint32_t pe;

	/* every packet of the pool used so far: a free one is rewritten
	 * before it is used again */
	for (i = 0; i < sim->pool_top; i++)
		sim->slot[i].flags &= (uint8_t)~PKT_MEASURED;
	r->measured = r->measured_delivered = r->hops_sum = 0;
	memset(&r->net_lat, 0, sizeof(r->net_lat));
	memset(&r->e2e_lat, 0, sizeof(r->e2e_lat));
	for (i = 0; i < npo; i++)
		sim->port[i].win_flits = 0;
	/* the NICs holding a packet generated before the new window's end */
	sim->early_pending = 0;
	for (pe = 0; pe < sim->ns; pe++)
		if (sim->nic[pe].pending && sim->nic[pe].sp.gen < sim->wend)
			sim->early_pending++;
}

void
sim_window_end(tt_sim *sim, uint64_t t)
{
	const size_t words = sizeof(struct sim_batch) / sizeof(uint64_t);

	memcpy(sim->bglob, sim->batch, sizeof(*sim->batch) * (size_t)sim->nb);
	if (sim->dist)
		sim_part_sum(sim, (uint64_t *)sim->bglob,
		    words * (size_t)sim->nb);
	window_test(sim, sim->bglob);
	if (sim->wdone)
		return;
	/* the window was warm-up after all: measure the next one */
	sim->wstart = t;
	sim->wend = t + sim->p.measure;
	sim->res->warmup_cycles = t;
	sim_window_reset(sim);
	window_clear(sim);
}
