/*
 * The cycle-accurate network model: switches, links, credits, arbiters and
 * the NICs that feed them (seed 000 §7.1; the timing rules are in sim.h,
 * the state and its indices in sim_int.h).  This file runs it: the
 * serial engine's cycle loop and the partitioned one's.  sim_build.c
 * builds it, sim_part.c splits it across ranks, sim_deadlock.c reports a
 * deadlock, hist.c keeps the latency distribution.
 *
 * A granted packet joins its downstream VC within the same cycle (it is
 * relinked, not copied: sim_int.h; on a large network a few grants
 * later, so that what joining reads can be fetched meanwhile:
 * lag_push()), stamped with the cycle its head may be switched there
 * (now + L + R); credits come back through a timing wheel.  Since every
 * effect on another switch lands at least L >= 1 cycles later, switches
 * may be visited in any order.
 *
 * A link longer than the wheels reach (sim_int.h's WHEEL_NEAR_L, SW_NEAR)
 * keeps what it carries in far lists instead, in the order it was sent,
 * until it comes within reach (far_near()): a packet joins its VC when
 * its head is ready within W2 - 2 cycles, a credit goes onto the wheel
 * when it is due within W.  Joining later changes nothing: until its head
 * is ready a packet can take no grant, and a head that is not ready
 * changes no arbitration (arbitrate() skips it).
 */
#include <string.h>

#include "engine/sim_int.h"

/* ---- the sleeping NICs ---- */

/* NIC pe sleeps until cycle wake (>= now). */
static inline void
nic_sleep(tt_sim *sim, uint32_t pe, uint64_t wake)
{
	sim->nic[pe].wake = wake;
	sim->nsleep++;
	if (wake < sim->t + NIC_WHEEL) {
		uint32_t b = (uint32_t)(wake & (NIC_WHEEL - 1));

		sim->nic_link[pe] = sim->nic_bucket[b];
		sim->nic_bucket[b] = pe;
	} else {
		sim->nic_far[sim->nfar++] = pe;
	}
}

/* Move the far sleepers that wake within NIC_WHEEL cycles into the lists;
 * done every NIC_WHEEL cycles and after a jump, so none is ever late. */
static void
nic_far_scan(tt_sim *sim)
{
	uint32_t i, keep = 0;

	for (i = 0; i < sim->nfar; i++) {
		uint32_t pe = sim->nic_far[i];

		if (sim->nic[pe].wake < sim->t + NIC_WHEEL) {
			sim->nsleep--;
			nic_sleep(sim, pe, sim->nic[pe].wake);
		} else {
			sim->nic_far[keep++] = pe;
		}
	}
	sim->nfar = keep;
}

/* The NICs waking in cycle t become active (every NIC in this cycle's
 * list wakes now: none is listed NIC_WHEEL or more cycles ahead). */
static inline void
nic_wake(tt_sim *sim, uint64_t t)
{
	uint32_t b = (uint32_t)(t & (NIC_WHEEL - 1)), pe = sim->nic_bucket[b];

	while (pe != UINT32_MAX) {
		sim->active[sim->nactive++] = pe;
		sim->nsleep--;
		pe = sim->nic_link[pe];
	}
	sim->nic_bucket[b] = UINT32_MAX;
}

/* The earliest wake-up of a sleeping NIC (there is one). */
static uint64_t
nic_first_wake(const tt_sim *sim)
{
	uint64_t k, best = UINT64_MAX;
	uint32_t i;

	for (k = 0; k < NIC_WHEEL; k++)
		if (sim->nic_bucket[(sim->t + k) & (NIC_WHEEL - 1)] != UINT32_MAX)
			return sim->t + k;
	for (i = 0; i < sim->nfar; i++)
		if (sim->nic[sim->nic_far[i]].wake < best)
			best = sim->nic[sim->nic_far[i]].wake;
	return best;
}

/* Not on the packet path: a waiting NIC is on no list until woken. */
void
tt_sim_wake(tt_sim *sim, uint32_t pe, uint64_t at)
{
	struct nic *n;

	pe -= sim->s0;
	if (pe >= sim->ns || !sim->nic[pe].waiting)
		return;
	n = &sim->nic[pe];
	n->waiting = 0;
	nic_sleep(sim, pe, at > sim->t ? at : sim->t + 1);
}

/* ---- switches ---- */

/* Have switch s arbitrate in cycle e (>= now) unless it already will. */
static inline void
sched_switch(tt_sim *sim, uint32_t s, uint64_t e)
{
	uint32_t b;

	if (sim->sw[s].wake <= e)
		return;
	b = (uint32_t)(e & (sim->W2 - 1));
	sim->sw_wheel[b][sim->sw_wheel_n[b]++] = s;
	sim->sw[s].wake = e;
}

/* A hop of a packet that carries routing state (ext runs with ties or
 * ring classes): the routing function itself, with the packet's state. */
static __attribute__((noinline)) tt_hop
route_pkt(tt_sim *sim, uint32_t s, int in, struct pkt *pk)
{
	tt_pktroute st = {pk->tie, pk->ring};
	tt_hop h = tt_route_pkt(sim->net, s + sim->s0, pk->dst,
	    sim->port_id[side_of(sim, s)][in], &st);

	pk->ring = st.ring_cls;
	return h;
}

/* The head of input VC q = (s, in, v) is new: route it and raise its
 * request.  In ext runs a type-1 hop whose class has several VCs gets the
 * one of its output port (seed 000 §7.1 footnote 5). */
static inline __attribute__((always_inline)) void
head_route(tt_sim *sim, uint32_t s, int in, int v, struct vcq *q,
    const int ext)
{
	const uint64_t np = (uint64_t)sim->np, si = (uint64_t)s * np + (uint64_t)in;
	struct pkt *pk = &sim->slot[q->head];
	const int side = side_of(sim, s);
	const tt_hop h = ext && sim->pkt_route ? route_pkt(sim, s, in, pk) :
	    sim->dco ? sim_lookup(sim, &sim->rt[s], pk, sim->port_id[side],
	    in) : tt_rtable_lookup(sim->net, &sim->rtx[s], pk->dst,
	    sim->port_id[side][in]);
	const int out = ext && sim->pkt_route ? sim_lport(sim, side, h.port) :
	    h.lport;
	struct port *pi = &sim->port[si], *po = &sim->port[(uint64_t)s * np +
	    (uint64_t)out];
	uint64_t e;

	pk->out = (uint8_t)out;
	pk->cls = h.vc;
	pk->bubble = h.bubble;
	if (ext && h.type == TT_HOP_T1 &&
	    sim->t1pv[h.vc][h.via] != T1PV_NONE)
		pk->cls = sim->t1pv[h.vc][h.via] | VCQ_FIXED;
	sim->want[si * np + (uint64_t)out] |= 1u << v;
	/* the earliest this request can go; the output's hint must not be
	 * later, and an output nobody wanted has no hint yet */
	e = pk->ready > pi->in_busy ? pk->ready : pi->in_busy;
	if (e < po->out_busy)
		e = po->out_busy;
	if (po->req == 0 || e < po->out_next)
		po->out_next = e;
	po->req |= 1u << in;
	sim->sw[s].oreq |= 1u << out;
	sched_switch(sim, s, e);
}

/* A packet from the pool: the one delivered last, or one never used. */
static inline uint32_t
pool_get(tt_sim *sim)
{
	uint32_t idx = sim->pool_free;

	if (idx == PKT_NONE)
		return sim->pool_top++;
	sim->pool_free = sim->slot[idx].next;
	return idx;
}

static inline void
pool_put(tt_sim *sim, uint32_t idx)
{
	sim->slot[idx].next = sim->pool_free;
	sim->pool_free = idx;
}

/* Packet idx joins the tail of VC q; 1 if it is its head (the VC was
 * empty), which the caller then routes (head_route()). */
static inline int
vc_push(tt_sim *sim, struct vcq *q, uint32_t idx)
{
	struct pkt *hd;

	sim->slot[idx].next = PKT_NONE;
	if (q->head == PKT_NONE) {
		q->head = idx;
		sim->slot[idx].tail = idx;
		return 1;
	}
	hd = &sim->slot[q->head];
	sim->slot[hd->tail].next = idx;
	hd->tail = idx;
	return 0;
}

/* A credit due W or more cycles ahead waits in the far list. */
static __attribute__((noinline)) void
far_cred_push(tt_sim *sim, uint64_t when, uint32_t idx)
{
	uint32_t r = sim->fc_free;
	struct far_cred *c;

	if (r != UINT32_MAX)
		sim->fc_free = sim->fcred[r].next;
	else
		r = sim->fc_top++;
	c = &sim->fcred[r];
	c->due = (uint32_t)when;
	c->idx = idx;
	c->next = UINT32_MAX;
	if (sim->fc_n++ == 0)
		sim->fc_head = r;
	else
		sim->fcred[sim->fc_tail].next = r;
	sim->fc_tail = r;
}

/* ext: the far lists may be in use (sim_int.h's far: the ext loop). */
static inline __attribute__((always_inline)) void
credit_later(tt_sim *sim, uint64_t when, uint32_t idx, const int ext)
{
	uint32_t b = (uint32_t)(when & (sim->W - 1));

	if (ext && __builtin_expect(when - sim->t >= sim->W, 0)) {
		far_cred_push(sim, when, idx);
		return;
	}
	sim->wheel[b][sim->wheel_n[b]++] = idx;
}

/* Packet idx, on a link longer than the switch wheel reaches, will join
 * VC pv of input din of switch ds (far_near()). */
static __attribute__((noinline)) void
far_pkt_push(tt_sim *sim, uint32_t ds, int din, int pv, uint32_t idx)
{
	struct pkt *pk = &sim->slot[idx];

	pk->far_ds = ds;
	pk->far_din = (uint8_t)din;
	pk->far_pv = (uint8_t)pv;
	pk->next = PKT_NONE;
	if (sim->fp_n++ == 0)
		sim->fp_head = idx;
	else
		sim->slot[sim->fp_tail].next = idx;
	sim->fp_tail = idx;
}

/* The delivery goes to the source's rank: the tag is the source's. */
static inline __attribute__((always_inline)) void
deliver(tt_sim *sim, const struct pkt *pk, uint64_t at, const int dist)
{
	tt_simresult *r = sim->res;

	/* the batch of the cycle a P-flit packet's tail arrives in; a
	 * shorter one's arrives earlier */
	struct sim_batch *b = pk->flits == sim->P ? sim->dbatch :
	    sim_batch_at(sim, at);

	r->delivered++;
	sim->inflight--;
	/* the batch of the window that `at` falls in (sim_window.c) */
	b->pkts++;
	b->flits += pk->flits;
	b->lat += at - pk->gen;
	b->nlat += at - pk->inj;
	if (pk->flags & PKT_MEASURED) {
		r->measured_delivered++;
		r->hops_sum += pk->hops;
		tt_hist_add(&r->net_lat, at - pk->inj);
		tt_hist_add(&r->e2e_lat, at - pk->gen);
	}
	if (sim->on_deliver != NULL) {
		tt_delivery d;

		d.src = pk->src;
		d.dst = pk->dst;
		d.tag = pk->tag;
		d.hops = pk->hops;
		d.gen = pk->gen;
		d.inject = pk->inj;
		d.deliver = at;
		if (dist && pk->src - sim->s0 >= sim->ns) {
			sim_part_send_delivery(sim, &d);
			if (sim->on_arrive != NULL)
				sim->on_arrive(sim->arrive_ctx, &d);
		} else {
			sim->on_deliver(sim->deliver_ctx, &d);
		}
	}
}

/* Packet idx, granted into VC pv of input din of switch ds, joins it. */
static inline __attribute__((always_inline)) void
join(tt_sim *sim, uint32_t ds, int din, int pv, uint32_t idx, const int ext)
{
	struct vcq *q = &sim->vcq[((uint64_t)ds * (uint64_t)sim->np +
	    (uint64_t)din) * (uint64_t)sim->V + (uint64_t)pv];

	if (vc_push(sim, q, idx))
		head_route(sim, ds, din, pv, q, ext);
}

/* Ask for every line of [p, p + len) (a hint: see PF_AHEAD). */
static inline void
pf_range(const void *p, size_t len)
{
	const char *c = (const char *)((uintptr_t)p & ~(uintptr_t)63);
	const char *end = (const char *)p + len;

	for (; c < end; c += 64)
		__builtin_prefetch(c);
}

/* The oldest listed grant joins its VC. */
static inline __attribute__((always_inline)) void
lag_pop(tt_sim *sim, const int ext)
{
	const struct lag *g = &sim->lag[sim->lag0];

	sim->lag0 = (sim->lag0 + 1) & (LAG - 1);
	sim->nlag--;
	join(sim, g->ds, g->din, g->pv, g->idx, ext);
}

/* Packet idx, granted into VC pv of input din of switch ds, joins it
 * LAG grants later; what that reads is asked for now. */
static inline __attribute__((always_inline)) void
lag_push(tt_sim *sim, uint32_t ds, int din, int pv, uint32_t idx,
    const int ext)
{
	const uint64_t di = (uint64_t)ds * (uint64_t)sim->np + (uint64_t)din;
	struct lag *g;

	if (sim->nlag == LAG)
		lag_pop(sim, ext);
	g = &sim->lag[(sim->lag0 + sim->nlag++) & (LAG - 1)];
	g->ds = ds;
	g->idx = idx;
	g->din = (uint8_t)din;
	g->pv = (uint8_t)pv;
	if (sim->big) {
		__builtin_prefetch(&sim->vcq[di * (uint64_t)sim->V + (uint64_t)pv]);
		/* all its ports: which output the packet will ask for
		 * is only known once it is routed there */
		pf_range(&sim->port[(uint64_t)ds * (uint64_t)sim->np],
		    (size_t)sim->np * sizeof(struct port));
		__builtin_prefetch(&sim->want[di * (uint64_t)sim->np]);
		__builtin_prefetch(&sim->sw[ds]);
		__builtin_prefetch(sim_table_of(sim, ds));
	}
}

/* Flits of an f-flit transfer starting at t that fall inside the window. */
static inline uint64_t
window_flits(const tt_sim *sim, uint64_t t, uint64_t f)
{
	uint64_t a = t > sim->wstart ? t : sim->wstart;
	uint64_t b = t + f < sim->wend ? t + f : sim->wend;

	return b > a ? b - a : 0;
}

/* Input VC (s, in, v) sends its head through output o into downstream
 * VC pv, starting in cycle t. */
static inline __attribute__((always_inline)) void
grant(tt_sim *sim, uint32_t s, int in, int v, int o, int pv, int nvi,
    struct vcq *q, uint64_t t, const int dist, const int ext, const int pf)
{
	const uint64_t np = (uint64_t)sim->np, V = (uint64_t)sim->V;
	const uint64_t so = (uint64_t)s * np + (uint64_t)o;
	const uint64_t si = (uint64_t)s * np + (uint64_t)in;
	const uint32_t idx = q->head;
	struct pkt *pk = &sim->slot[idx];
	const uint32_t next = pk->next, tail = pk->tail;
	const uint64_t f = pk->flits, done = t + f;
	int moved = 0;
	uint32_t *w = &sim->want[si * np + (uint64_t)o];
	struct port *pi = &sim->port[si], *po = &sim->port[so];

	/* this head no longer wants o */
	*w &= ~(1u << v);
	if (*w == 0) {
		po->req &= ~(1u << in);
		if (po->req == 0)
			sim->sw[s].oreq &= ~(1u << o);
	}
	pi->in_busy = done;
	po->out_busy = done;
	po->out_next = done;
	po->rr_out = (uint8_t)(in + 1 == sim->np ? 0 : in + 1);
	pi->rr_vc = (uint8_t)(v + 1 == nvi ? 0 : v + 1);
	sim->last_move = t;
	sim->traversals += f;
	/* most transfers lie wholly inside the window or wholly outside */
	if (t - sim->wstart < sim->wfull)
		po->win_flits += f;
	else if (t + f > sim->wstart && t < sim->wend)
		po->win_flits += window_flits(sim, t, f);
	/* the slot frees when the tail leaves, in t + f - 1; upstream hears
	 * of it L cycles later */
	if (dist && pi->up_cred == REMOTE)
		sim_part_send_credit(sim, si, v, done - 1 + (uint64_t)sim->L);
	else
		credit_later(sim, done - 1 + (uint64_t)sim->L,
		    pi->up_cred + (uint32_t)v, ext);
	if (o == sim->np - 1) {
		/* the tail arrives in done - 1 + L; the PE has the packet
		 * its receive overhead later */
		deliver(sim, pk, done - 1 + (uint64_t)sim->L + sim->ro, dist);
		pool_put(sim, idx);
	} else if (dist && po->down_sw == REMOTE) {
		/* the far switch is another rank's: it adds the packet before
		 * cycle t + L, ahead of its ready time t + L + R */
		struct pkt to = *pk;

		sim->cred[so * V + (uint64_t)pv]--;
		to.hops++;
		to.ready = t + (uint64_t)sim->L + (uint64_t)sim->R +
		    (f - 1) * sim->saf;
		sim_part_send_packet(sim, so, pv, &to);
		pool_put(sim, idx);
	} else {
		sim->cred[so * V + (uint64_t)pv]--;
		pk->hops++;
		/* store and forward: the next switch takes it whole first */
		pk->ready = t + (uint64_t)sim->L + (uint64_t)sim->R +
		    (f - 1) * sim->saf;
		moved = 1;
	}
	q->head = next;
	if (next != PKT_NONE) {
		sim->slot[next].tail = tail;
		head_route(sim, s, in, v, q, ext);
	}
	/* last: listing it may let an earlier grant join a VC of this
	 * very switch, q among them, which must be whole by then */
	if (moved) {
		if (ext && sim->far_pkts)
			far_pkt_push(sim, po->down_sw, po->down_in, pv, idx);
		else if (pf)
			lag_push(sim, po->down_sw, po->down_in, pv, idx, ext);
		else
			join(sim, po->down_sw, po->down_in, pv, idx, ext);
	}
}

/*
 * A shaped link (tt_simparams.shape_rate): 0 when output so's bucket holds
 * the f flits of the packet about to go in cycle t, which then takes
 * them; otherwise the cycles until it will, and nothing is taken.
 */
static __attribute__((noinline)) uint64_t
shape_take(tt_sim *sim, uint64_t so, uint64_t t, uint64_t f)
{
	struct bucket *b = &sim->bkt[so];
	const uint64_t r = sim->p.shape_rate, need = f << 16;
	const uint64_t cap = (uint64_t)sim->p.shape_burst << 16;
	uint64_t tok = b->tok;

	if (t > b->t) {
		/* (cap - tok) / r + 1 cycles fill it: no product overflows */
		tok = t - b->t > (cap - tok) / r ? cap : tok + (t - b->t) * r;
		b->t = t;
	}
	if (tok < need) {
		b->tok = tok;
		return (need - tok + r - 1) / r;
	}
	b->tok = tok - need;
	return 0;
}

/*
 * Output o of switch s is free in cycle t and some input wants it: the
 * two-stage round-robin arbiter of seed 000 §7.1.  Stage one takes the
 * input ports in round-robin order from rr_out and keeps the first that has
 * a VC able to go (its head wants o, is ready, and the downstream VC of its
 * class has room: one packet, or two when it enters a ring under bubble);
 * stage two takes that port's VCs in round-robin order from rr_vc.
 */
static inline __attribute__((always_inline)) void
arbitrate(tt_sim *sim, uint32_t s, int o, uint64_t t, const int dist,
    const int ext, const int pf)
{
	const uint64_t np = (uint64_t)sim->np, V = (uint64_t)sim->V;
	const uint64_t so = (uint64_t)s * np + (uint64_t)o, cb = so * V;
	const uint32_t m = sim->port[so].req, inport_mask = (1u << sim->np) - 1;
	const int side = side_of(sim, s), start = sim->port[so].rr_out;
	const int eject = o == sim->np - 1;
	const int ncls = sim->ncls[side][o], nvo = sim->nvc[side][o];
	uint32_t rot;
	uint64_t next = UINT64_MAX;
	int first_in;

	/* one requester (the common case) needs no rotation */
	if ((m & (m - 1)) == 0) {
		first_in = __builtin_ctz(m);
		rot = 1;
	} else {
		first_in = start;
		rot = ((m >> start) | (m << (sim->np - start))) & inport_mask;
	}
	while (rot) {
		int in = first_in + __builtin_ctz(rot), vstart, nvi;
		uint64_t si;
		uint32_t wm, vrot;

		rot &= rot - 1;
		if (in >= sim->np)
			in -= sim->np;
		si = (uint64_t)s * np + (uint64_t)in;
		if (sim->port[si].in_busy > t) {
			if (sim->port[si].in_busy < next)
				next = sim->port[si].in_busy;
			continue;
		}
		wm = sim->want[si * np + (uint64_t)o];
		nvi = sim->nvc[side][in];
		if ((wm & (wm - 1)) == 0) {
			vstart = __builtin_ctz(wm);
			vrot = 1;
		} else {
			vstart = sim->port[si].rr_vc;
			vrot = (uint32_t)(((uint64_t)wm >> vstart) |
			    ((uint64_t)wm << (nvi - vstart)));
			vrot &= nvi >= 32 ? 0xffffffffu : (1u << nvi) - 1;
		}
		while (vrot) {
			int v = vstart + __builtin_ctz(vrot), pv = 0;
			struct vcq *q;
			const struct pkt *hd;

			vrot &= vrot - 1;
			if (v >= nvi)
				v -= nvi;
			q = &sim->vcq[si * V + (uint64_t)v];
			hd = &sim->slot[q->head];
			if (hd->ready > t) {
				if (hd->ready < next)
					next = hd->ready;
				continue;
			}
			if (!eject) {
				/* the physical VCs of class c are c, c +
				 * ncls, ...; take the one with most room
				 * (a type-1 lane has just one) */
				int c;

				pv = hd->cls;
				if (ext && (pv & VCQ_FIXED))
					pv &= ~VCQ_FIXED;
				else
					for (c = pv + ncls; c < nvo; c += ncls)
						if (sim->cred[cb + (uint64_t)c] >
						    sim->cred[cb + (uint64_t)pv])
							pv = c;
				if (sim->cred[cb + (uint64_t)pv] < (hd->bubble ? 2 : 1)) {
					sim->port[so].cwait = 1;  /* apply_credits() wakes o */
					continue;
				}
			}
			if (ext && sim->bkt != NULL && !eject) {
				uint64_t w = shape_take(sim, so, t, hd->flits);

				if (w > 0) {
					/* the bucket is short: ask again
					 * when it will not be, or as far
					 * as the switch wheel reaches; a
					 * link that waits is no deadlock */
					sim->port[so].out_next = t + (w <
					    sim->W2 - 1 ? w : sim->W2 - 1);
					sim->last_move = t;
					return;
				}
			}
			grant(sim, s, in, v, o, pv, nvi, q, t, dist, ext, pf);
			return;
		}
	}
	/*
	 * Nothing could go.  Until `next` nothing will: input ports only get
	 * busier and ready times are fixed; head_route() lowers the hint for
	 * every new request and apply_credits() for every returning credit.
	 * A failed arbitration changes no state, so skipping it changes no
	 * result.
	 */
	sim->port[so].out_next = next;
}

/*
 * Arbitrate every due output of switch s, in port order (so that the
 * result does not depend on how switches were scheduled), then schedule the
 * switch again for its earliest output.
 */
static inline __attribute__((always_inline)) void
switch_step(tt_sim *sim, uint32_t s, uint64_t t, const int dist,
    const int ext, const int pf)
{
	const struct port *pt = sim->port + (uint64_t)s * (uint64_t)sim->np;
	uint32_t m = sim->sw[s].oreq;
	uint64_t first = UINT64_MAX;

	sim->sw[s].wake = UINT64_MAX;
	while (m) {
		int o = __builtin_ctz(m);

		m &= m - 1;
		if (pt[o].out_next <= t)
			arbitrate(sim, s, o, t, dist, ext, pf);
	}
	for (m = sim->sw[s].oreq; m; m &= m - 1)
		if (pt[__builtin_ctz(m)].out_next < first)
			first = pt[__builtin_ctz(m)].out_next;
	if (first != UINT64_MAX)
		sched_switch(sim, s, first > t ? first : t + 1);
}

/*
 * Prefetching, for networks whose state is far larger than the caches
 * (sim->big).  There every record a hop touches is a miss to memory, and
 * one at a time they cost most of the run.  The switches due in a cycle
 * are known when it starts, so their records are asked for ahead, in
 * three stages, each reading what the one before brought in: PF_AHEAD
 * switches ahead, the switch's own ports, requests and wiring; half as
 * far, the VCs and credits its arbiters will read; a quarter as far, the
 * packets they would send.  What a grant writes at the far switch is
 * asked for by the grant itself (lag_push()).  Prefetches are hints:
 * nothing here changes state.
 */
#define PF_AHEAD 16

/* Stage one: switch s's own records. */
static inline void
pf_switch(const tt_sim *sim, uint32_t s)
{
	const uint64_t np = (uint64_t)sim->np, so = (uint64_t)s * np;

	__builtin_prefetch(&sim->sw[s]);
	pf_range(&sim->port[so], np * sizeof(struct port));
	pf_range(&sim->want[so * np], np * np * sizeof(uint32_t));
}

/*
 * Stages two and three (last): what switch s's due outputs will read in
 * cycle t, the VCs and credits its arbiters read; then, from those, the
 * head packets they would send.
 */
static inline void
pf_arbitration(const tt_sim *sim, uint32_t s, uint64_t t, int last)
{
	const uint64_t np = (uint64_t)sim->np, V = (uint64_t)sim->V;
	uint32_t m, r;

	if (sim->sw[s].wake != t)
		return;
	for (m = sim->sw[s].oreq; m; m &= m - 1) {
		int o = __builtin_ctz(m);
		uint64_t so = (uint64_t)s * np + (uint64_t)o;
		const struct port *po = &sim->port[so];

		if (po->out_next > t)
			continue;
		if (!last)
			__builtin_prefetch(&sim->cred[so * V]);
		for (r = po->req; r; r &= r - 1) {
			uint64_t si = (uint64_t)s * np + (uint64_t)__builtin_ctz(r);
			uint32_t w = sim->want[si * np + (uint64_t)o];

			for (; w; w &= w - 1) {
				const struct vcq *q = &sim->vcq[si * V +
				    (uint64_t)__builtin_ctz(w)];

				/* where the packet lands is asked for
				 * when it is granted (lag_push()) */
				if (!last)
					__builtin_prefetch(q);
				else
					__builtin_prefetch(&sim->slot[q->head]);
			}
		}
	}
}

/* The switches due in cycle t; entries left from an earlier schedule are
 * skipped.  pf (sim->big): visit them in order, prefetch, and a granted
 * packet joins its VC a few grants later (lag_push()); without it, at its
 * grant (join()). */
static inline __attribute__((always_inline)) void
switches_step(tt_sim *sim, uint64_t t, const int dist, const int ext,
    const int pf)
{
	uint32_t b = (uint32_t)(t & (sim->W2 - 1)), i, n = sim->sw_wheel_n[b];
	const uint32_t *list = sim->sw_wheel[b];

	/* a list much shorter than the network is not worth the scan */
	if (pf && n > sim->ns / 64)
		n = due_in_order(sim, sim->sw_wheel[b], n);

	for (i = 0; i < n; i++) {
		uint32_t s = list[i];

		if (pf) {
			if (i + PF_AHEAD < n)
				pf_switch(sim, list[i + PF_AHEAD]);
			if (i + PF_AHEAD / 2 < n)
				pf_arbitration(sim, list[i + PF_AHEAD / 2], t, 0);
			if (i + PF_AHEAD / 4 < n)
				pf_arbitration(sim, list[i + PF_AHEAD / 4], t, 1);
		}
		if (sim->sw[s].wake == t)
			switch_step(sim, s, t, dist, ext, pf);
	}
	sim->sw_wheel_n[b] = 0;
	while (sim->nlag > 0)
		lag_pop(sim, ext);
}

/* ---- NICs ---- */

/*
 * Ask the source for NIC pe's next packet in cycle now.  Returns 1 if the
 * NIC can try to inject it in this very cycle and may_stay is set (the
 * caller keeps it on the active list); otherwise the NIC is done or
 * asleep until it has work (a packet that is due, or the cycle the source
 * said to ask again).
 */
static int
nic_fetch(tt_sim *sim, const tt_source *src, uint32_t pe, uint64_t now,
    int may_stay)
{
	struct nic *n = &sim->nic[pe];
	uint64_t wake, gen;
	int r;

	if (n->done)
		return 0;
	n->sp.tag = 0;
	n->sp.flits = 0;
	r = src->next(src->ctx, pe + sim->s0, now, &n->sp);
	gen = n->sp.gen;
	if (r != TT_SRC_PACKET) {
		if (r == TT_SRC_LATER)
			nic_sleep(sim, pe, gen > now ? gen : now + 1);
		else if (r == TT_SRC_WAIT)
			n->waiting = 1;
		else
			n->done = 1;
		return 0;
	}
	n->pending = 1;
	sim->res->generated++;
	if (gen < sim->wend)
		sim->early_pending++;
	/* the host's send overhead: it reaches the NIC only then; the same
	 * for every packet, so a NIC's packets keep their order */
	wake = gen + sim->so > n->busy ? gen + sim->so : n->busy;
	if (wake <= now && may_stay)
		return 1;
	nic_sleep(sim, pe, wake);
	return 0;
}

/*
 * A packet's tie directions under TT_TIES_RANDOM: a bit per dimension,
 * drawn when it is injected (as BookSim2 draws one at each tie), from its
 * source and number there through splitmix64, so that every rank of a
 * partitioned run and every order of visiting switches gives the same.
 */
static uint8_t
tie_bits(uint32_t src, uint32_t seq)
{
	uint64_t z = ((uint64_t)src << 32 | seq) + 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (uint8_t)((z ^ (z >> 31)) >> 56);
}

/* Try to inject NIC pe's pending packet in cycle t; 1 if it went. */
static inline __attribute__((always_inline)) int
nic_inject(tt_sim *sim, const tt_source *src, uint32_t pe, uint64_t t,
    const int ext)
{
	struct nic *n = &sim->nic[pe];
	int side = side_of(sim, pe), o = sim->np - 1, v, best = -1;
	uint64_t cb = ((uint64_t)pe * (uint64_t)sim->np + (uint64_t)o) * (uint64_t)sim->V;
	struct vcq *q;
	struct pkt *pk;
	uint32_t idx;

	if (n->busy > t)
		return 0;
	for (v = 0; v < sim->nvc[side][o]; v++)
		if (sim->cred[cb + (uint64_t)v] > 0 &&
		    (best < 0 || sim->cred[cb + (uint64_t)v] > sim->cred[cb + (uint64_t)best]))
			best = v;
	if (best < 0)
		return 0;
	q = &sim->vcq[cb + (uint64_t)best];
	idx = pool_get(sim);
	pk = &sim->slot[idx];
	pk->gen = n->sp.gen;
	pk->inj = t;
	pk->ready = t + (uint64_t)sim->L + (uint64_t)sim->R;
	pk->src = pe + sim->s0;
	pk->dst = n->sp.dst;
	if (sim->dco)
		pk->dco = sim_dco(sim, pk->dst);
	pk->tag = n->sp.tag;
	/* a short packet (a message's last) holds the links for its own
	 * flits; more than P is taken as P */
	pk->flits = (uint16_t)(n->sp.flits - 1 < (uint32_t)sim->P ?
	    n->sp.flits : (uint32_t)sim->P);
	pk->hops = pk->tie = pk->ring = 0;
	if (ext && sim->pkt_route)
		pk->tie = tie_bits(pk->src, n->seq++);
	pk->flags = 0;
	if (n->sp.gen >= sim->wstart && n->sp.gen < sim->wend) {
		pk->flags = PKT_MEASURED;
		sim->res->measured++;
	}
	if (n->sp.gen < sim->wend)
		sim->early_pending--;
	sim->cred[cb + (uint64_t)best]--;
	n->busy = t + pk->flits;
	n->pending = 0;
	sim->inflight++;
	sim->res->injected++;
	sim->last_move = t;
	if (ext && sim->far_pkts)
		far_pkt_push(sim, pe, o, best, idx);
	else if (vc_push(sim, q, idx))
		head_route(sim, pe, o, best, q, ext);
	nic_fetch(sim, src, pe, t, 0);
	return 1;
}

/* ---- the run ---- */

/*
 * What the far lists hold that comes within the wheels' reach in cycle t:
 * packets whose head is ready within W2 - 2 cycles join their VC, credits
 * due within W go onto the wheel.  Each list is in the order things were
 * sent, which is nearly the order they are due: a packet is ready L + R
 * after it was sent, a credit due L to L + P - 1 after; in a partitioned
 * run what another rank sent in an epoch comes in at its end, up to an
 * epoch E later.  So whatever waits behind a first that is not yet near
 * is due no earlier than that first less E (packets), E + P - 1
 * (credits), which sim_epoch() keeps later than t: none is ever late.
 * While either list holds anything, something moves on a link, and the
 * watchdog must not take a long link for a deadlock.
 */
static __attribute__((noinline)) void
far_near(tt_sim *sim, uint64_t t, int ext)
{
	const uint64_t J = sim->W2 - 2;

	sim->last_move = t;
	while (sim->fp_n > 0) {
		uint32_t idx = sim->fp_head;
		const struct pkt *pk = &sim->slot[idx];
		uint32_t ds;
		int din, pv;
		struct vcq *q;

		if ((int64_t)(pk->ready - t) > (int64_t)J)
			break;
		sim->fp_head = pk->next;
		sim->fp_n--;
		/* read before joining: a head's tail is where far_ds was */
		ds = pk->far_ds;
		din = pk->far_din;
		pv = pk->far_pv;
		q = &sim->vcq[((uint64_t)ds * (uint64_t)sim->np +
		    (uint64_t)din) * (uint64_t)sim->V + (uint64_t)pv];
		if (!vc_push(sim, q, idx))
			continue;
		if (ext)
			head_route(sim, ds, din, pv, q, 1);
		else
			head_route(sim, ds, din, pv, q, 0);
	}
	while (sim->fc_n > 0) {
		uint32_t r = sim->fc_head, b;
		struct far_cred *c = &sim->fcred[r];

		if ((int32_t)(c->due - (uint32_t)t) >= (int32_t)sim->W)
			break;
		b = c->due & (sim->W - 1);
		sim->wheel[b][sim->wheel_n[b]++] = c->idx;
		sim->fc_head = c->next;
		sim->fc_n--;
		c->next = sim->fc_free;
		sim->fc_free = r;
	}
}

/* The earliest cycle anything asleep is due: a NIC's wake-up, or no later
 * than a far credit (its list's first less P - 1 + E, see far_near()). */
static uint64_t
first_due(const tt_sim *sim)
{
	uint64_t w = sim->nsleep > 0 ? nic_first_wake(sim) : UINT64_MAX, d;

	if (sim->fc_n > 0) {
		int64_t a = (int32_t)(sim->fcred[sim->fc_head].due -
		    (uint32_t)sim->t) - (int64_t)sim->P + 1 - (int64_t)sim->epoch;

		d = a > 0 ? sim->t + (uint64_t)a : sim->t;
		if (d < w)
			w = d;
	}
	return w;
}

static void
reset_state(tt_sim *sim)
{
	uint64_t npo = (uint64_t)sim->ns * (uint64_t)sim->np, i;
	uint32_t s;
	int o, v, side;

	for (s = 0; s < sim->ns; s++) {
		side = side_of(sim, s);
		for (o = 0; o < sim->np; o++) {
			uint64_t so = (uint64_t)s * (uint64_t)sim->np + (uint64_t)o;

			for (v = 0; v < sim->V; v++) {
				struct vcq *q = &sim->vcq[so * (uint64_t)sim->V + (uint64_t)v];

				q->head = PKT_NONE;
				sim->cred[so * (uint64_t)sim->V + (uint64_t)v] =
				    v < sim->nvc[side][o] ? sim->pcap[side][o] : 0;
			}
		}
	}
	memset(sim->want, 0, sizeof(uint32_t) * npo * (uint64_t)sim->np);
	for (i = 0; i < npo; i++) {
		struct port *pt = &sim->port[i];

		pt->out_busy = pt->out_next = pt->in_busy = pt->win_flits = 0;
		pt->req = 0;
		pt->cwait = pt->rr_out = pt->rr_vc = 0;
		if (sim->bkt != NULL) {
			sim->bkt[i].t = 0;
			sim->bkt[i].tok = (uint64_t)sim->p.shape_burst << 16;
		}
	}
	memset(sim->nic, 0, sizeof(struct nic) * sim->ns);
	for (i = 0; i < sim->W; i++)
		sim->wheel_n[i] = 0;
	for (i = 0; i < sim->W2; i++)
		sim->sw_wheel_n[i] = 0;
	for (i = 0; i < sim->ns; i++) {
		sim->sw[i].wake = UINT64_MAX;
		sim->sw[i].oreq = 0;
	}
	sim->nactive = sim->nsleep = sim->nfar = 0;
	for (i = 0; i < NIC_WHEEL; i++)
		sim->nic_bucket[i] = UINT32_MAX;
	sim->pool_free = PKT_NONE;
	sim->pool_top = 0;
	sim->fc_n = sim->fp_n = sim->fc_top = 0;
	sim->fc_free = UINT32_MAX;
	sim->nlag = sim->lag0 = 0;
	sim->t = 0;
	sim->inflight = sim->early_pending = sim->traversals = 0;
	sim->last_move = 0;
}

/*
 * Packets generated inside the window that never left their NIC (the
 * source queue of a saturated network): drawn now, only to be counted, so
 * that offered_load is what was offered and not what got in.
 */
static uint64_t
backlog_in_window(tt_sim *sim, const tt_source *src)
{
	uint64_t count = 0, gen;
	uint32_t pe;
	tt_srcpkt sp;

	for (pe = 0; pe < sim->ns; pe++) {
		struct nic *n = &sim->nic[pe];

		if (!n->pending)
			continue;
		gen = n->sp.gen;
		while (gen < sim->wend) {
			if (gen >= sim->wstart)
				count++;
			if (src->next(src->ctx, pe + sim->s0, sim->wend, &sp) != TT_SRC_PACKET)
				break;
			gen = sp.gen;
		}
	}
	return count;
}

/* The credits due in cycle t; pf: prefetch (sim->big), as
 * switches_step() does. */
static inline __attribute__((always_inline)) void
credits_step(tt_sim *sim, uint64_t t, const int pf)
{
	uint32_t b = (uint32_t)(t & (sim->W - 1)), i, n = sim->wheel_n[b];
	const uint32_t *list = sim->wheel[b];

	for (i = 0; i < n; i++) {
		uint32_t idx = list[i], so = idx >> sim->vshift;
		struct port *po = &sim->port[so];

		if (pf && i + PF_AHEAD < n) {
			__builtin_prefetch(&sim->cred[list[i + PF_AHEAD]]);
			__builtin_prefetch(&sim->port[list[i + PF_AHEAD] >>
			    sim->vshift]);
		}

		sim->cred[idx]++;
		/* a request may have been waiting for this credit */
		if (po->cwait) {
			uint64_t e = po->out_busy > t ? po->out_busy : t;

			po->cwait = 0;
			if (po->out_next > e)
				po->out_next = e;
			sched_switch(sim, so / (uint32_t)sim->np, e);
		}
	}
	sim->wheel_n[b] = 0;
}

static void
apply_credits(tt_sim *sim, uint64_t t)
{
	if (sim->big)
		credits_step(sim, t, 1);
	else
		credits_step(sim, t, 0);
}

static void
gstate_local(const tt_sim *sim, struct sim_gstate *g)
{
	g->inflight = sim->inflight;
	g->nactive = sim->nactive;
	g->nsleep = sim->nsleep;
	g->early_pending = sim->early_pending;
	g->measured = sim->res->measured;
	g->measured_delivered = sim->res->measured_delivered;
	g->last_move = sim->last_move;
}

/* 0: go on; 1: stop; 2: the watchdog fired.  Seed 000 §7.1's phases. */
static int
stop_now(tt_sim *sim, const struct sim_gstate *g, uint64_t t, int until_empty)
{
	if (until_empty) {
		if (g->inflight == 0 && g->nactive == 0 && g->nsleep == 0)
			return 1;
	} else if (t >= sim->wend) {
		if (g->early_pending == 0 &&
		    g->measured_delivered == g->measured) {
			sim->res->drained = 1;
			return 1;
		}
		if (t >= sim->wend + sim->p.drain)
			return 1;
	}
	if (g->inflight > 0 && t - g->last_move >= sim->p.watchdog)
		return 2;
	return 0;
}

/* Nothing in the network and nothing due until `wake`: skip to it.
 * Skipping changes no result (every credit due is applied, every listed
 * switch has nothing to do); it only saves the empty cycles. */
static uint64_t
jump(tt_sim *sim, uint64_t t, uint64_t wake, int until_empty)
{
	uint64_t i;

	for (i = 0; i < sim->W; i++)
		apply_credits(sim, t + i);
	/* nothing is buffered, so every listed switch is a leftover */
	for (i = 0; i < sim->W2; i++) {
		uint32_t j;

		for (j = 0; j < sim->sw_wheel_n[i]; j++)
			sim->sw[sim->sw_wheel[i][j]].wake = UINT64_MAX;
		sim->sw_wheel_n[i] = 0;
	}
	if (!until_empty && t < sim->wend && wake > sim->wend)
		wake = sim->wend;
	t = wake;
	sim->t = t;
	nic_far_scan(sim);
	sim->last_move = t;
	return t;
}

/* The records an injection from NIC pe touches (pf: sim->big; see
 * switches_step()). */
static inline void
pf_nic(const tt_sim *sim, uint32_t pe)
{
	const uint64_t np = (uint64_t)sim->np, so = (uint64_t)pe * np +
	    np - 1;

	__builtin_prefetch(&sim->nic[pe]);
	__builtin_prefetch(&sim->cred[so * (uint64_t)sim->V]);
	pf_range(&sim->vcq[so * (uint64_t)sim->V],
	    (size_t)sim->V * sizeof(struct vcq));
	pf_range(&sim->port[(uint64_t)pe * np], np * sizeof(struct port));
	pf_range(&sim->want[so * np], np * sizeof(uint32_t));
	__builtin_prefetch(sim_table_of(sim, pe));
	__builtin_prefetch(&sim->sw[pe]);
}

/* The active NICs of cycle t fetch and inject. */
static inline __attribute__((always_inline)) void
nics_step(tt_sim *sim, const tt_source *src, uint64_t t, const int ext,
    const int pf)
{
	uint32_t i, pe;

	for (i = 0; i < sim->nactive; ) {
		pe = sim->active[i];
		if (pf && i + PF_AHEAD < sim->nactive)
			pf_nic(sim, sim->active[i + PF_AHEAD]);
		/* woken to ask the source again */
		if (!sim->nic[pe].pending &&
		    !nic_fetch(sim, src, pe, t, 1))
			sim->active[i] = sim->active[--sim->nactive];
		else if (nic_inject(sim, src, pe, t, ext))
			sim->active[i] = sim->active[--sim->nactive];
		else
			i++;
	}
}

/* One cycle of every NIC and switch of this part. */
static inline __attribute__((always_inline)) void
cycle(tt_sim *sim, const tt_source *src, uint64_t t, const int dist,
    const int ext)
{

	sim->t = t;
	sim->dbatch = sim_batch_at(sim, t + sim->doff);
	if (ext && sim->fp_n + sim->fc_n > 0)
		far_near(sim, t, ext);
	if ((t & (NIC_WHEEL - 1)) == 0)
		nic_far_scan(sim);
	apply_credits(sim, t);
	nic_wake(sim, t);
	if (sim->big) {
		nics_step(sim, src, t, ext, 1);
		switches_step(sim, t, dist, ext, 1);
	} else {
		nics_step(sim, src, t, ext, 0);
		switches_step(sim, t, dist, ext, 0);
	}
}

/* Cycle t, then the progress report every 4096 cycles; the next cycle. */
static inline __attribute__((always_inline)) uint64_t
step(tt_sim *sim, const tt_source *src, uint64_t t, tt_sim_progress progress,
    void *pctx, uint64_t planned, const int dist, const int ext)
{
	cycle(sim, src, t, dist, ext);
	t++;
	if (progress != NULL && (t & 4095) == 0)
		progress(pctx, planned ? (double)t / (double)planned : -1.0);
	return t;
}

/* The serial cycle loop.  Kept out of tt_sim_run() (and run_dist() out of
 * it): inlined together, the two loops share registers and the serial one
 * costs about 2 instructions more per flit-router traversal.  Two copies,
 * run_serial() and run_serial_ext(): see sim_int.h's ext. */
static inline __attribute__((always_inline)) uint64_t
serial_loop(tt_sim *sim, const tt_source *src, int until_empty,
    tt_sim_progress progress, void *pctx, uint64_t planned, const int ext)
{
	struct sim_gstate g;
	uint64_t t = 0;
	int r;

	for (;;) {
		if (t >= sim->wend && !sim->wdone && !until_empty)
			sim_window_end(sim, t);
		gstate_local(sim, &g);
		if ((r = stop_now(sim, &g, t, until_empty)) != 0) {
			if (r == 2) {
				sim->res->deadlock = 1;
				sim_find_deadlock(sim);
			}
			break;
		}
		if (sim->inflight == 0 && sim->nactive == 0 && sim->nsleep > 0) {
			uint64_t wake;

			sim->t = t;
			wake = first_due(sim);
			if (wake > t + sim->W && wake > t + sim->W2) {
				t = jump(sim, t, wake, until_empty);
				continue;
			}
		}
		t = step(sim, src, t, progress, pctx, planned, 0, ext);
	}
	return t;
}

static __attribute__((noinline)) uint64_t
run_serial(tt_sim *sim, const tt_source *src, int until_empty,
    tt_sim_progress progress, void *pctx, uint64_t planned)
{
	return serial_loop(sim, src, until_empty, progress, pctx, planned, 0);
}

static __attribute__((noinline)) uint64_t
run_serial_ext(tt_sim *sim, const tt_source *src, int until_empty,
    tt_sim_progress progress, void *pctx, uint64_t planned)
{
	return serial_loop(sim, src, until_empty, progress, pctx, planned, 1);
}

/*
 * A partitioned run: epochs of cycles between syncs.  Whatever a cycle t
 * does to another part lands at t + L or later (a packet's head is ready
 * at t + L + R, a credit arrives at t + P - 1 + L), so an epoch of up to L
 * cycles (the lookahead) needs nothing from the others until it ends; on a
 * long link the epoch is shorter (sim_epoch(): the far lists must stay
 * nearly in order, see far_near()).  The stop rules are checked at every
 * epoch's start on the summed state, and epochs end where the serial run
 * could stop: no later than the watchdog's first chance, one cycle at a
 * time from the window's end, and one at a time for runs until empty.  An
 * epoch is never longer than sim->epoch cycles: sim_part.c sizes the
 * exchange's buffers on that.
 */
static __attribute__((noinline)) uint64_t
run_dist(tt_sim *sim, const tt_source *src, int until_empty,
    tt_sim_progress progress, void *pctx, uint64_t planned)
{
	struct sim_gstate g;
	uint64_t t = 0, e, n, fire;
	int r;

	for (;;) {
		gstate_local(sim, &g);
		sim_part_sync(sim, &g);
		if (t >= sim->wend && !sim->wdone && !until_empty)
			sim_window_end(sim, t);
		if ((r = stop_now(sim, &g, t, until_empty)) != 0) {
			if (r == 2) {
				sim->res->deadlock = 1;
				sim_find_deadlock(sim);
			}
			break;
		}
		if (g.inflight == 0 && g.nactive == 0 && g.nsleep > 0) {
			uint64_t wake = sim_part_first_wake(sim, t);

			if (wake > t + sim->W && wake > t + sim->W2) {
				t = jump(sim, t, wake, until_empty);
				continue;
			}
		}
		n = (uint64_t)sim->epoch;
		if (until_empty || t >= sim->wend)
			n = 1;
		else if (sim->wend - t < n)
			n = sim->wend - t;
		/* the watchdog cannot fire before `fire` */
		fire = g.inflight > 0 ? g.last_move + sim->p.watchdog :
		    t + sim->p.watchdog;
		if (fire - t < n)
			n = fire - t;
		for (e = 0; e < n; e++)
			t = step(sim, src, t, progress, pctx, planned, 1, 1);
	}
	return t;
}

/* This part's own totals of the run, into res. */
static void
count_totals(tt_sim *sim, const tt_source *src, int until_empty,
    tt_simresult *res)
{
	uint64_t npo = (uint64_t)sim->ns * (uint64_t)sim->np, i;
	uint32_t s;

	/* the window's flits per output, as tt_sim_link_flits() gives them */
	for (i = 0; i < npo; i++)
		sim->link_flits[i] = sim->port[i].win_flits;
	res->traversals = sim->traversals;
	res->packets_window = sim_window_packets(sim);
	res->flits_window = sim_window_flits(sim);
	res->measured_generated = res->measured;
	if (!until_empty)
		res->measured_generated += backlog_in_window(sim, src);
	if (sim->net->twin) {
		for (s = 0; s < sim->ns; s++) {
			int o = sim->net->local_port[side_of(sim, s)][TT_PORT_INT];

			res->internal_flits += sim->link_flits[(uint64_t)s *
			    (uint64_t)sim->np + (uint64_t)o];
		}
	}
}

/* The loads and averages of seed 000 §7.2, from the network's totals. */
static void
derive_results(const tt_sim *sim, tt_simresult *res)
{
	double n = (double)sim->ns_all, w = (double)res->measure_cycles;

	if (w < 1)
		w = 1;
	res->offered_load = (double)res->measured_generated *
	    sim->P / (w * n);
	res->accepted_load = (double)res->flits_window / (w * n);
	res->throughput_packets = (double)res->packets_window / w;
	res->avg_network_latency = res->net_lat.count ?
	    res->net_lat.sum / (double)res->net_lat.count : 0;
	res->avg_e2e_latency = res->e2e_lat.count ?
	    res->e2e_lat.sum / (double)res->e2e_lat.count : 0;
	res->p99_e2e_latency = (double)tt_hist_quantile(&res->e2e_lat, 0.99);
	res->avg_hops = res->measured_delivered ?
	    (double)res->hops_sum / (double)res->measured_delivered : 0;
	/* every card has one end of an internal link */
	if (sim->net->twin)
		res->internal_link_utilization = (double)res->internal_flits /
		    (n * w);
}

int
tt_sim_run(tt_sim *sim, const tt_source *src, int until_empty,
    tt_simresult *res, tt_sim_progress progress, void *pctx)
{
	uint64_t t, planned;
	uint32_t pe;

	memset(res, 0, sizeof(*res));
	sim->res = res;
	reset_state(sim);
	if (until_empty) {
		sim->wstart = 0;
		sim->wend = UINT64_MAX >> 8;
	} else {
		sim->wstart = sim->p.warmup;
		sim->wend = sim->p.warmup + sim->p.measure;
	}
	planned = until_empty ? 0 : sim->wend;
	sim_window_reset(sim);
	res->warmup_cycles = sim->wstart;
	for (pe = 0; pe < sim->ns; pe++)
		nic_fetch(sim, src, pe, 0, 0);
	if (sim->dist)
		t = run_dist(sim, src, until_empty, progress, pctx, planned);
	else if (sim->ext || sim->far)
		t = run_serial_ext(sim, src, until_empty, progress, pctx, planned);
	else
		t = run_serial(sim, src, until_empty, progress, pctx, planned);
	res->cycles = t;
	if (until_empty) {
		res->measure_cycles = t;
		sim->wend = t;
	} else if (t < sim->wend) {
		/* stopped inside the window (deadlock): measure what ran */
		sim->wend = t > sim->wstart ? t : sim->wstart;
		res->measure_cycles = sim->wend - sim->wstart;
	} else {
		res->measure_cycles = sim->wend - sim->wstart;
	}
	count_totals(sim, src, until_empty, res);
	if (sim->dist)
		sim_part_finish(sim, res);
	derive_results(sim, res);
	sim->res = NULL;
	return res->deadlock ? 1 : 0;
}

/* ---- for sim_part.c ---- */

void
sim_receive_packet(tt_sim *sim, uint32_t ds, int din, int pv,
    const struct pkt *pk)
{
	uint32_t idx = pool_get(sim);

	sim->slot[idx] = *pk;
	if (sim->dco)
		sim->slot[idx].dco = sim_dco(sim, pk->dst);
	if (sim->far_pkts)
		far_pkt_push(sim, ds, din, pv, idx);
	else
		join(sim, ds, din, pv, idx, 1);
}

void
sim_receive_credit(tt_sim *sim, uint64_t when, uint32_t idx)
{
	uint32_t b = (uint32_t)(when & (sim->W - 1));

	/* without a far list every credit is due within the wheel (the
	 * unit tests put one there by hand across a jump in time) */
	if (sim->fcred != NULL)
		credit_later(sim, when, idx, 1);
	else
		sim->wheel[b][sim->wheel_n[b]++] = idx;
}

uint64_t
sim_first_wake(tt_sim *sim, uint64_t t)
{
	sim->t = t;
	return first_due(sim);
}

/* ---- for the unit tests: a hand-built state, stepped by hand ---- */

void
sim_test_start(tt_sim *sim, tt_simresult *res)
{
	memset(res, 0, sizeof(*res));
	sim->res = res;
	reset_state(sim);
	sim->wstart = 0;
	sim->wend = UINT64_MAX >> 8;
	sim_window_reset(sim);
}

void
sim_test_cycles(tt_sim *sim, const tt_source *src, uint64_t from, uint64_t to)
{
	uint64_t t;

	for (t = from; t < to; t++)
		cycle(sim, src, t, 0, 1);
}
