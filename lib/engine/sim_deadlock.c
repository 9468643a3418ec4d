/*
 * The deadlock report of the network model: when the watchdog fires, the
 * cycle of full buffers that wait on each other, as the channels entering
 * them (the channel dependency graph's cycle, seed 000 §6.1).
 */
#include <stdlib.h>

#include "engine/sim_int.h"

/*
 * Follow blocked heads: a buffer whose ready head cannot go waits for a
 * downstream buffer of its class, which must be full.  Walking those waits
 * from every blocked buffer finds a cycle of full buffers if there is one;
 * it is reported as the channels (card, port, core VC) entering them.
 * st[] has, for every VC of the ns switches (global ids), 0 if it is empty
 * and else 1 << 16 | its head's output << 8 | class, with 1 << 17 when the
 * head may take that one VC only (a type-1 lane, seed 000 §7.1 footnote
 * 5); down_sw, down_in and up_cred are sim_wire()'s, with global ids.
 */
struct walk {
	const tt_sim *sim;
	const uint32_t *st, *down_sw, *up_cred;
	const uint8_t *down_in;
	uint32_t *mark;         /* the walk that visited a buffer */
	uint64_t *path;         /* the buffers of the walk in progress */
};

/* The channel VC of VC bv of output o of a card on `side`: its class, or
 * its lane when the internal link has the VCs the core's graph counts. */
static int
chan_vc(const tt_sim *sim, int side, int o, int bv)
{
	const tt_net *net = sim->net;
	int cls = bv % sim->ncls[side][o];

	if (sim->port_id[side][o] == TT_PORT_INT && net->lanes[cls] > 1 &&
	    sim->nvc[side][o] == net->int_phys)
		return bv;
	return cls;
}

/* The channels of the cycle path[i..len) into sim->res. */
static void
report_cycle(const struct walk *w, uint64_t i, uint64_t len)
{
	const tt_sim *sim = w->sim;
	const tt_net *net = sim->net;
	uint64_t *chan = calloc(len - i, sizeof(uint64_t)), j;

	if (chan == NULL)
		return;
	for (j = i; j < len; j++) {
		uint64_t b = w->path[j], bsi = b / (uint64_t)sim->V;
		int bv = (int)(b % (uint64_t)sim->V);
		uint64_t up = w->up_cred[bsi] / (uint64_t)sim->V;
		uint32_t us = (uint32_t)(up / (uint64_t)sim->np);
		int uo = (int)(up % (uint64_t)sim->np), us_side = side_of(sim, us);

		chan[j - i] = (uint64_t)us * (uint64_t)net->chans_per_card +
		    net->chan_base[net->twin ? us_side : 0][uo] +
		    (uint64_t)chan_vc(sim, us_side, uo, bv);
	}
	sim->res->cycle = chan;
	sim->res->cycle_len = len - i;
}

/* The full buffer that buffer cur's head waits for, UINT64_MAX if none
 * (it is not blocked on a buffer: it goes to its PE, or has room). */
static uint64_t
waits_for(const struct walk *w, uint64_t cur)
{
	const tt_sim *sim = w->sim;
	uint64_t si = cur / (uint64_t)sim->V, so, ds;
	uint32_t s = (uint32_t)(si / (uint64_t)sim->np);
	int side = side_of(sim, s), out, cls, c;

	out = (int)(w->st[cur] >> 8 & 0xff);
	cls = (int)(w->st[cur] & 0xff);
	if (out == sim->np - 1)
		return UINT64_MAX;
	so = (uint64_t)s * (uint64_t)sim->np + (uint64_t)out;
	ds = (uint64_t)w->down_sw[so] * (uint64_t)sim->np + w->down_in[so];
	if (w->st[cur] >> 17 & 1)
		return w->st[ds * (uint64_t)sim->V + (uint64_t)cls] != 0 ?
		    ds * (uint64_t)sim->V + (uint64_t)cls : UINT64_MAX;
	for (c = cls; c < sim->nvc[side][out]; c += sim->ncls[side][out])
		if (w->st[ds * (uint64_t)sim->V + (uint64_t)c] != 0)
			return ds * (uint64_t)sim->V + (uint64_t)c;
	return UINT64_MAX;
}

/* Walk from every unvisited buffer; 1 once a cycle is reported. */
static int
walk_all(struct walk *w, uint64_t npv)
{
	uint64_t start, cur, len, i;
	uint32_t walk = 0;

	for (start = 0; start < npv; start++) {
		if (w->mark[start] != 0)
			continue;
		walk++;
		len = 0;
		for (cur = start; cur != UINT64_MAX; cur = waits_for(w, cur)) {
			if (w->mark[cur] == walk) {
				/* the walk closed on itself: path[i..] */
				for (i = 0; w->path[i] != cur; i++)
					;
				report_cycle(w, i, len);
				return 1;
			}
			if (w->mark[cur] != 0 || w->st[cur] == 0)
				break;
			w->mark[cur] = walk;
			w->path[len++] = cur;
		}
	}
	return 0;
}

static void
deadlock_walk(tt_sim *sim, uint64_t ns, const uint32_t *st,
    const uint32_t *down_sw, const uint8_t *down_in, const uint32_t *up_cred)
{
	uint64_t npv = ns * (uint64_t)sim->np * (uint64_t)sim->V;
	struct walk w = {sim, st, down_sw, up_cred, down_in, NULL, NULL};

	w.mark = calloc(npv, sizeof(uint32_t));
	w.path = calloc(npv, sizeof(uint64_t));
	if (w.mark != NULL && w.path != NULL)
		walk_all(&w, npv);
	free(w.mark);
	free(w.path);
}

/* This part's VCs for deadlock_walk(); NULL if out of memory. */
static uint32_t *
vc_states(const tt_sim *sim)
{
	uint64_t npv = (uint64_t)sim->ns * (uint64_t)sim->np * (uint64_t)sim->V, i;
	uint32_t *st = calloc(npv ? npv : 1, sizeof(uint32_t));

	if (st == NULL)
		return NULL;
	for (i = 0; i < npv; i++)
		if (sim->vcq[i].head != PKT_NONE) {
			const struct pkt *hd = &sim->slot[sim->vcq[i].head];

			st[i] = (uint32_t)(sim->ext &&
			    (hd->cls & VCQ_FIXED)) << 17 |
			    1u << 16 | (uint32_t)hd->out << 8 |
			    (hd->cls & ~VCQ_FIXED);
		}
	return st;
}

/* Every part's VCs, wired with global ids: on rank 0 of a partitioned
 * run, or a serial run's own. */
static void
find_gathered(tt_sim *sim, const uint32_t *all)
{
	uint64_t npo = (uint64_t)sim->ns_all * (uint64_t)sim->np, so;
	uint32_t *down = malloc(npo * sizeof(uint32_t));
	uint32_t *up = malloc(npo * sizeof(uint32_t));
	uint8_t *din = malloc(npo);

	if (down != NULL && up != NULL && din != NULL) {
		for (so = 0; so < npo; so++)
			sim_wire(sim, (uint32_t)(so / (uint64_t)sim->np),
			    (int)(so % (uint64_t)sim->np), &down[so], &din[so],
			    &up[so]);
		deadlock_walk(sim, sim->ns_all, all, down, din, up);
	}
	free(down);
	free(up);
	free(din);
}

void
sim_find_deadlock(tt_sim *sim)
{
	uint32_t *st = vc_states(sim), *all = NULL;

	if (!sim->dist) {
		/* one part: its ids are the global ones */
		if (st != NULL)
			find_gathered(sim, st);
		free(st);
		return;
	}
	if (sim_part_gather(sim, st, (uint64_t)sim->np * (uint64_t)sim->V,
	    &all) == 0 && sim_part_rank(sim) == 0)
		find_gathered(sim, all);
	free(st);
	free(all);
}
