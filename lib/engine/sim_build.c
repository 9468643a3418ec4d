/*
 * Building the network model (sim_int.h): the parameters and their
 * checks, the VCs of every port, the memory it takes, the switches'
 * arrays, routing tables and wiring, and the check of those tables
 * against the routing function.  sim.c runs what is built here.
 */
#include <sys/mman.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "support/errf.h"
#include "twintorus/params.h"
#include "engine/sim_int.h"

void
tt_simparams_default(tt_simparams *p)
{
	memset(p, 0, sizeof(*p));
	tt_netparams_default(&p->net);
	p->vcs = 0;
	p->router_latency = TT_LATENCY_DEFAULT;
	p->link_latency = TT_LATENCY_DEFAULT;
	p->warmup = TT_WARMUP_DEFAULT;
	p->measure = TT_MEASURE_DEFAULT;
	p->drain = TT_DRAIN_DEFAULT;
	p->watchdog = TT_WATCHDOG_DEFAULT;
}

/* ---- layout ---- */

/* Classes (the core's VCs) on local port o of a card on `side`. */
static int
port_classes(const tt_net *net, int side, int o)
{
	if (o == net->card_nports)
		return 1;
	return net->card_port[side][o] == TT_PORT_INT ? net->int_vcs : net->ext_vcs;
}

/*
 * Seed 000 §7.1 gives every port 4 VCs under vc and 1 under bubble, except
 * where more are needed: the internal link gets 4 under bubble (3 needed)
 * and 8 for A, B, E, F under vc (7 needed).  That is: the classes rounded
 * up to a power of two, and at least p->vcs (4 under vc by default).
 */
static int
vcs_for(const tt_net *net, const tt_simparams *p, int classes)
{
	return tt_phys_vcs(net->deadlock, classes, p->vcs);
}

int
tt_sim_port_vcs(const tt_net *net, const tt_simparams *p, int port)
{
	int side, o;

	for (side = 0; side < (net->twin ? 2 : 1); side++)
		for (o = 0; o < net->card_nports; o++)
			if (net->card_port[side][o] == port)
				return vcs_for(net, p, port_classes(net, side, o));
	return vcs_for(net, p, 1);
}

/*
 * Flits per VC of local port o of a card on `side` with nv VCs, and the
 * parameter they come from (for errors): the hardware's own buffer per VC
 * (vc_flits, int_vc_flits on the internal link, falling back to
 * vc_flits), or buffer_flits split evenly among the port's VCs (seed 000
 * §7.1), which the PE's port always takes.
 */
static int
port_vc_flits(const tt_net *net, const tt_simparams *p, int side, int o,
    int nv, const char **from)
{
	if (o < net->card_nports) {
		if (net->card_port[side][o] == TT_PORT_INT &&
		    p->int_vc_flits > 0) {
			*from = "int_vc_flits";
			return p->int_vc_flits;
		}
		if (p->vc_flits > 0) {
			*from = "vc_flits";
			return p->vc_flits;
		}
	}
	*from = "buffer_flits";
	return p->net.buffer_flits / nv;
}

/* A VC's slots: floor(flits / P) packets, a short packet taking one. */
static int
check_vc_flits(const tt_net *net, const tt_simparams *p, int side, int o,
    int nv, char *err, size_t errsz)
{
	const char *from;
	int f = port_vc_flits(net, p, side, o, nv, &from);
	int per = f / p->net.packet_flits, split = from[0] == 'b';

	if (per > VC_MAX_PKTS) {
		if (split)
			return tt_errf(err, errsz, "buffer_flits %d split among "
			    "%d VCs gives each VC room for %d packets; at most "
			    "%d are supported: lower buffer_flits or raise "
			    "packet_flits", p->net.buffer_flits, nv, per,
			    VC_MAX_PKTS);
		return tt_errf(err, errsz, "%s %d gives each VC room for %d "
		    "packets of %d flits; at most %d are supported: lower %s "
		    "or raise packet_flits", from, f, per, p->net.packet_flits,
		    VC_MAX_PKTS, from);
	}
	if (per < 1) {
		if (split)
			return tt_errf(err, errsz, "buffer_flits %d split among "
			    "%d VCs leaves %d flits per VC, less than one packet "
			    "of %d flits; raise buffer_flits or lower vcs",
			    p->net.buffer_flits, nv, f, p->net.packet_flits);
		return tt_errf(err, errsz, "%s %d is less than one packet of "
		    "%d flits (a VC holds whole packets); raise %s", from, f,
		    p->net.packet_flits, from);
	}
	if (per < 2 && net->deadlock == TT_DL_BUBBLE && o < net->card_nports) {
		if (split)
			return tt_errf(err, errsz, "buffer_flits %d split among "
			    "%d VCs leaves room for one packet per VC; the "
			    "bubble scheme needs two (seed 000 §6.3.2); raise "
			    "buffer_flits", p->net.buffer_flits, nv);
		return tt_errf(err, errsz, "%s %d leaves room for one packet "
		    "of %d flits per VC; the bubble scheme needs two (seed "
		    "000 §6.3.2); raise %s", from, f, p->net.packet_flits, from);
	}
	return 0;
}

static int
check_params(const tt_net *net, const tt_simparams *p, char *err, size_t errsz)
{
	int side, o, nv;

	if (p->net.packet_flits < 1 || p->net.packet_flits > TT_PACKET_FLITS_MAX)
		return tt_errf(err, errsz, "packet_flits must be 1..%d, got %d",
		    TT_PACKET_FLITS_MAX, p->net.packet_flits);
	/* up to 2^24 cycles: nothing the engine allocates grows with them
	 * (the far lists, sim.c) */
	if (p->router_latency < 1 || p->router_latency > TT_LATENCY_MAX)
		return tt_errf(err, errsz, "router latency must be 1..%d "
		    "cycles, got %d", TT_LATENCY_MAX, p->router_latency);
	if (p->link_latency < 1 || p->link_latency > TT_LATENCY_MAX)
		return tt_errf(err, errsz, "link latency must be 1..%d cycles, "
		    "got %d", TT_LATENCY_MAX, p->link_latency);
	if (p->send_overhead > TT_OVERHEAD_MAX ||
	    p->recv_overhead > TT_OVERHEAD_MAX)
		return tt_errf(err, errsz, "send and receive overheads must be "
		    "at most %llu cycles, got %llu and %llu",
		    (unsigned long long)TT_OVERHEAD_MAX,
		    (unsigned long long)p->send_overhead,
		    (unsigned long long)p->recv_overhead);
	if (p->vc_flits < 0 || p->int_vc_flits < 0)
		return tt_errf(err, errsz, "vc_flits and int_vc_flits must be "
		    "0 (buffer_flits split among the VCs) or a VC's flits, got "
		    "%d and %d", p->vc_flits, p->int_vc_flits);
	/* a shaped link's bucket: one field named per message */
	if (p->shape_rate >= 65536)
		return tt_errf(err, errsz, "shape_rate %u is a flit a cycle or "
		    "more (65536); a shaped link's bucket refills less than "
		    "its line rate (0: not shaped)", p->shape_rate);
	if (p->shape_rate > 0 &&
	    p->shape_burst < (uint32_t)p->net.packet_flits)
		return tt_errf(err, errsz, "shape_burst %u flits is less than "
		    "a packet (%d flits); a shaped link's bucket must hold a "
		    "whole packet", p->shape_burst, p->net.packet_flits);
	if (p->vcs < 0 || p->vcs > TT_MAX_VCS)
		return tt_errf(err, errsz, "vcs must be 1..%d, got %d",
		    TT_MAX_VCS, p->vcs);
	if (p->measure < 1)
		return tt_errf(err, errsz, "the measurement window must be at "
		    "least one cycle");
	for (side = 0; side < (net->twin ? 2 : 1); side++) {
		for (o = 0; o <= net->card_nports; o++) {
			nv = vcs_for(net, p, port_classes(net, side, o));
			if (nv > TT_MAX_VCS)
				return tt_errf(err, errsz, "a port needs %d "
				    "VCs; at most %d are supported", nv,
				    TT_MAX_VCS);
			if (check_vc_flits(net, p, side, o, nv, err,
			    errsz) < 0)
				return -1;
		}
	}
	return 0;
}

/*
 * Seed 000 §7.1 footnote 5: a type-1 class that owns several of the
 * internal link's VCs (c, c + classes, ...) gives each packet the one of
 * the output port it will take on the other card, t1pv[c][port], so that
 * packets for X+ and X- never share a buffer.  The lanes are the core's
 * (tt_net.lanes) when the link has the VCs of §7.1; with other --vcs the
 * class's own VCs are shared out the same way.  Runs that need this, or a
 * routing rule a packet carries state for, take the ext cycle loop.
 */
static void
layout_lanes(tt_sim *sim)
{
	const tt_net *net = sim->net;
	int c, p, m, K, nv, any = 0;

	memset(sim->t1pv, T1PV_NONE, sizeof(sim->t1pv));
	sim->pkt_route = net->spec.ties == TT_TIES_RANDOM ||
	    (net->spec.ring_vc == TT_RINGVC_ENTRY && net->deadlock == TT_DL_VC);
	if (net->twin && net->deadlock != TT_DL_NONE &&
	    net->spec.t1_vc == TT_T1VC_PORT) {
		K = net->int_vcs;
		nv = vcs_for(net, &sim->p, K);
		for (c = 0; c < net->t1_vcs; c++) {
			m = (nv - c + K - 1) / K;
			if (m < 2)
				continue;
			any = 1;
			for (p = 0; p < 2 * net->n; p++)
				sim->t1pv[c][p] = (uint8_t)(c + K * (p % m));
		}
	}
	sim->ext = any || sim->pkt_route || sim->p.shape_rate > 0;
}

void
sim_layout_of(tt_sim *tmp, const tt_net *net, const tt_simparams *p)
{
	memset(tmp, 0, sizeof(*tmp));
	tmp->net = net;
	tmp->p = *p;
	tmp->P = p->net.packet_flits;
	tmp->np = net->card_nports + 1;
	tmp->side_mask = net->twin ? 1 : 0;
	sim_layout(tmp);
}

void
sim_layout(tt_sim *sim)
{
	const tt_net *net = sim->net;
	int side, o, nv, V = 1;

	for (side = 0; side < 2; side++) {
		int sd = net->twin ? side : 0;

		for (o = 0; o < sim->np; o++) {
			sim->ncls[side][o] = port_classes(net, sd, o);
			nv = vcs_for(net, &sim->p, sim->ncls[side][o]);
			sim->nvc[side][o] = nv;
			if (nv > V)
				V = nv;
			sim->port_id[side][o] = o == net->card_nports ?
			    TT_PORT_NIC : net->card_port[sd][o];
		}
	}
	/* a power of two, so that a credit's output port is idx >> vshift */
	sim->V = 1;
	sim->vshift = 0;
	while (sim->V < V) {
		sim->V <<= 1;
		sim->vshift++;
	}
	layout_lanes(sim);
	for (side = 0; side < 2; side++)
		for (o = 0; o < sim->np; o++) {
			const char *from;

			sim->pcap[side][o] = (uint8_t)(port_vc_flits(net,
			    &sim->p, net->twin ? side : 0, o,
			    sim->nvc[side][o], &from) / sim->p.net.packet_flits);
		}
}

static uint64_t
switch_slots(const tt_sim *sim, int side)
{
	uint64_t n = 0;
	int o;

	for (o = 0; o < sim->np; o++)
		n += (uint64_t)sim->nvc[side][o] * (uint64_t)sim->pcap[side][o];
	return n;
}

/* Packets of ns switches' buffers, all full (even ns for a twin torus). */
static uint64_t
pool_packets(const tt_sim *sim, uint64_t ns)
{
	return sim->net->twin ? (switch_slots(sim, 0) + switch_slots(sim, 1)) *
	    (ns / 2) : switch_slots(sim, 0) * ns;
}

/* The credit wheel: every credit due within P + min(L, WHEEL_NEAR_L)
 * cycles of being sent; a longer link's wait in the far list (sim.c). */
static uint32_t
wheel_size(const tt_simparams *p)
{
	uint32_t w = 1, l = (uint32_t)(p->link_latency < WHEEL_NEAR_L ?
	    p->link_latency : WHEEL_NEAR_L);

	while (w < (uint32_t)p->net.packet_flits + l + 1)
		w <<= 1;
	return w;
}

/* The farthest ahead an output can be due: a grant (P), a new head (L + R,
 * but at most SW_NEAR: a packet on a longer link joins its VC from the
 * far list when its head is that near, sim.c). */
static uint32_t
switch_wheel_size(const tt_simparams *p)
{
	uint32_t w = 1, h = (uint32_t)(p->link_latency + p->router_latency);

	if (h > SW_NEAR)
		h = SW_NEAR;
	if (h < (uint32_t)p->net.packet_flits)
		h = (uint32_t)p->net.packet_flits;
	while (w < h + 2)
		w <<= 1;
	return w;
}

/* Credits can be due beyond the wheel (a credit leaves up to P - 1 + L
 * cycles after its grant). */
static int
far_credits(const tt_simparams *p)
{
	return (uint32_t)(p->net.packet_flits - 1 + p->link_latency) >=
	    wheel_size(p);
}

/*
 * A partitioned run's longest epoch: the lookahead L, but no more than
 * the wheels' reach allows.  What another rank sent in an epoch arrives
 * at its end, up to an epoch later than it was sent, so the far lists
 * are out of order by up to that much; sim.c's far_near() needs it
 * within W2 - 2 (packets) and W - P (credits).  With L up to 30 that is
 * L, as before.
 */
uint32_t
sim_epoch(const tt_simparams *p)
{
	uint32_t e = (uint32_t)p->link_latency, w2 = switch_wheel_size(p) - 2,
	    w = wheel_size(p) - (uint32_t)p->net.packet_flits;

	if (e > w2)
		e = w2;
	if (e > w)
		e = w;
	return e;
}

int
sim_dco_ok(const tt_net *net)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return net->n <= 4;
#else
	(void)net;
	return 0;
#endif
}

uint64_t
sim_memory_switches(const tt_net *net, const tt_simparams *p, uint64_t ns)
{
	tt_sim tmp;
	uint64_t npv, per_port, total;
	uint64_t rtab = 0;
	int d;

	sim_layout_of(&tmp, net, p);
	npv = ns * (uint64_t)tmp.np * (uint64_t)tmp.V;
	/* struct port, link_flits and want (the wheels are mapped:
	 * tt_sim_memory_packets()) */
	per_port = sizeof(struct port) + 8 + 4 * (uint64_t)tmp.np;
	/* the shared rows: one per side and digit of each dimension (a
	 * malloc'd block each, and their index) */
	for (d = 0; d < net->n; d++) {
		uint64_t rows = (uint64_t)(net->twin ? 2 : 1) * (uint64_t)net->k[d];

		if (rows > ns)
			rows = ns;
		rtab += rows * ((uint64_t)net->k[d] * sizeof(tt_hop) + 16 + 32);
	}
	/* the packet pool is mapped, not allocated: tt_sim_memory_packets() */
	total = npv * (sizeof(struct vcq) + sizeof(*tmp.cred)) +
	    ns * (uint64_t)tmp.np * per_port +
	    rtab + ns * (sizeof(struct sw) + (sim_dco_ok(net) ?
	    sizeof(struct sim_rt) : sizeof(tt_rtable)) +
	    sizeof(struct nic) + 4 + 4 + 4) +
	    (2 * TT_SIM_BATCHES + 1) * sizeof(struct sim_batch);
	if (p->shape_rate > 0)
		total += ns * (uint64_t)tmp.np * sizeof(struct bucket);
	/* a bit a switch (sim->due) */
	total += (ns + 63) / 64 * 8;
	return total;
}

uint64_t
tt_sim_memory(const tt_net *net, const tt_simparams *p)
{
	return sim_memory_switches(net, p, net->ncards);
}

uint64_t
tt_sim_memory_packets(const tt_net *net, const tt_simparams *p)
{
	tt_sim tmp;

	sim_layout_of(&tmp, net, p);
	/* and the far credits' records, mapped the same way: at most one
	 * per buffer slot (a credit in flight is a slot not free); and the
	 * wheels' lists (sim_alloc()'s wheel_map()) */
	return pool_packets(&tmp, net->ncards) * (sizeof(struct pkt) +
	    (far_credits(p) ? sizeof(struct far_cred) : 0)) +
	    (uint64_t)net->ncards * (uint64_t)tmp.np * wheel_size(p) * 4 +
	    (uint64_t)net->ncards * switch_wheel_size(p) *
	    switch_wheel_size(p) * 4;
}

/* ---- routing rows shared between switches ---- */

/*
 * A routing table's row for dimension d (tt_rtable.dim[d]) depends on the
 * card's side and its digit in d, not on the rest of its coordinates:
 * most switches' rows are the same.  Each distinct row is kept once
 * (found by its contents through an open-addressing hash) and the
 * switches' tables point at it, so a 32x32x32 network's tables take a few
 * KiB that stay in cache instead of 50 MiB that do not.
 */
struct sim_rows {
	tt_hop **row;           /* distinct rows, each k entries */
	uint32_t *len;
	uint32_t n, cap;
	uint32_t *hash;         /* row index + 1, 0 for an empty slot */
	uint32_t hcap;          /* a power of two, at least 2n */
};

/* A tt_hop is 8 bytes: hashed a word at a time. */
_Static_assert(sizeof(tt_hop) == 8, "row_hash() hashes a tt_hop as a word");

static uint32_t
row_hash(const tt_hop *h, uint32_t len)
{
	uint64_t x = len, w;
	uint32_t i;

	for (i = 0; i < len; i++) {
		memcpy(&w, &h[i], sizeof(w));
		x = (x ^ w) * 0x100000001b3ull;
	}
	return (uint32_t)(x ^ x >> 32);
}

static int
rows_grow(struct sim_rows *r)
{
	uint32_t ncap = r->cap ? 2 * r->cap : 64, i, j, *nh;
	tt_hop **nrow = realloc(r->row, ncap * sizeof(*nrow));
	uint32_t *nlen;

	if (nrow == NULL)
		return -1;
	r->row = nrow;
	if ((nlen = realloc(r->len, ncap * sizeof(*nlen))) == NULL)
		return -1;
	r->len = nlen;
	r->cap = ncap;
	if ((nh = calloc(2 * (size_t)ncap, sizeof(*nh))) == NULL)
		return -1;
	free(r->hash);
	r->hash = nh;
	r->hcap = 2 * ncap;
	for (i = 0; i < r->n; i++) {
		j = row_hash(r->row[i], r->len[i]) & (r->hcap - 1);
		while (r->hash[j] != 0)
			j = (j + 1) & (r->hcap - 1);
		r->hash[j] = i + 1;
	}
	return 0;
}

/* The shared copy of row h[0..len); NULL if out of memory. */
static tt_hop *
rows_intern(struct sim_rows *r, const tt_hop *h, uint32_t len)
{
	uint32_t j, i;

	if (r->n + 1 > r->cap && rows_grow(r) < 0)
		return NULL;
	j = row_hash(h, len) & (r->hcap - 1);
	for (; (i = r->hash[j]) != 0; j = (j + 1) & (r->hcap - 1))
		if (r->len[i - 1] == len &&
		    memcmp(r->row[i - 1], h, len * sizeof(*h)) == 0)
			return r->row[i - 1];
	if ((r->row[r->n] = malloc(len * sizeof(*h))) == NULL)
		return NULL;
	memcpy(r->row[r->n], h, len * sizeof(*h));
	r->len[r->n] = len;
	r->hash[j] = ++r->n;
	return r->row[r->n - 1];
}

static void
rows_free(struct sim_rows *r)
{
	uint32_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->n; i++)
		free(r->row[i]);
	free(r->row);
	free(r->len);
	free(r->hash);
	free(r);
}

/* Switch s's routing table, its rows shared; -1 if out of memory. */
static int
sim_table(tt_sim *sim, uint32_t s)
{
	const int side = side_of(sim, s);
	struct sim_rt *r;
	tt_rtable t;
	int d, v, c;

	if (tt_rtable_build(sim->net, s + sim->s0, &t) < 0)
		return -1;
	/* each hop names its output's local index too (head_route()) */
	for (c = 0; c < 2; c++)
		t.local[c].lport = (uint8_t)sim_lport(sim, side,
		    t.local[c].port);
	for (d = 0; d < t.n; d++) {
		for (v = 0; v < sim->net->k[d]; v++)
			t.dim[d][v].lport = (uint8_t)sim_lport(sim, side,
			    t.dim[d][v].port);
		if ((t.dim[d] = rows_intern(sim->rows, t.dim[d],
		    (uint32_t)sim->net->k[d])) == NULL) {
			tt_rtable_free(&t);
			return -1;
		}
	}
	tt_rtable_free(&t);	/* the rows are the shared copies now */
	if (!sim->dco) {
		sim->rtx[s] = t;
		return 0;
	}
	r = &sim->rt[s];
	memcpy(r->here, t.here, sizeof(r->here));
	r->local[0] = t.local[0];
	r->local[1] = t.local[1];
	for (d = 0; d < t.n; d++)
		r->dim[d] = t.dim[d];
	return 0;
}

void
tt_sim_free(tt_sim *sim)
{
	if (sim == NULL)
		return;
	if (sim->wheel != NULL)
		munmap(sim->wheel_map, sim->wheel_len);
	free(sim->wheel);
	free(sim->wheel_n);
	if (sim->sw_wheel != NULL)
		munmap(sim->sw_wheel_map, sim->sw_wheel_len);
	free(sim->sw_wheel);
	free(sim->sw_wheel_n);
	free(sim->due);
	free(sim->rt);
	free(sim->rtx);
	rows_free(sim->rows);
	free(sim->vcq);
	if (sim->slot != NULL)
		munmap(sim->slot, sim->nslot * sizeof(*sim->slot));
	if (sim->fcred != NULL)
		munmap(sim->fcred, sim->nfc * sizeof(*sim->fcred));
	free(sim->cred);
	free(sim->port);
	free(sim->want);
	free(sim->sw);
	sim_part_free(sim->part);
	free(sim->link_flits);
	free(sim->bkt);
	free(sim->nic);
	free(sim->active);
	free(sim->nic_bucket);
	free(sim->nic_link);
	free(sim->nic_far);
	free(sim->batch);
	free(sim->bglob);
	free(sim);
}

int
tt_sim_check(const tt_net *net, const tt_simparams *p, char *err, size_t errsz)
{
	return check_params(net, p, err, errsz);
}

/* The same routing decision: what head_route() takes from a hop (the
 * hop's type and dimension only decide its bubble condition). */
static int
same_decision(const tt_hop *a, const tt_hop *b)
{
	return a->port == b->port && a->vc == b->vc && a->bubble == b->bubble;
}

/* The routing table of local switch s against tt_route(), for every
 * destination and every input port: the 2n external ports, the internal
 * link and the PE (the bubble condition depends on the input port). */
static int
check_table(const tt_sim *sim, uint32_t s)
{
	const tt_net *net = sim->net;
	uint32_t g = s + sim->s0, dst;
	int in;

	for (dst = 0; dst < net->ncards; dst++)
		for (in = 0; in < 2 * net->n + 2; in++) {
			int port = in < 2 * net->n ? in :
			    in == 2 * net->n ? TT_PORT_INT : TT_PORT_NIC;
			tt_hop a = tt_route(net, g, dst, port), b;
			struct pkt pk;

			if (sim->dco) {
				/* the simulator's own lookup (sim_lookup()) */
				pk.dst = dst;
				pk.dco = sim_dco(sim, dst);
				b = sim_lookup(sim, &sim->rt[s], &pk, &port, 0);
			} else {
				b = tt_rtable_lookup(net, &sim->rtx[s], dst,
				    port);
			}
			if (!same_decision(&a, &b) || b.lport != sim_lport(sim,
			    side_of(sim, s), a.port))
				return -1;
		}
	return 0;
}

int
tt_sim_check_routes(const tt_sim *sim)
{
	uint32_t s;

	for (s = 0; s < sim->ns; s++)
		if (check_table(sim, s) < 0)
			return -1;
	return 0;
}

void
sim_wire(const tt_sim *sim, uint32_t g, int o, uint32_t *down, uint8_t *din,
    uint32_t *up)
{
	const tt_net *net = sim->net;
	uint64_t so = (uint64_t)g * (uint64_t)sim->np + (uint64_t)o;
	uint32_t peer;
	int po;

	if (o == sim->np - 1) {
		/* the PE: injection credits live at its own port's cred[] */
		*down = g;
		*din = (uint8_t)o;
		*up = (uint32_t)(so * (uint64_t)sim->V);
		return;
	}
	peer = tt_link_peer(net, g, sim->port_id[side_of(sim, g)][o], &po);
	*down = peer;
	*din = (uint8_t)net->local_port[side_of(sim, peer)][po];
	/* input o of g is fed by output po of the peer */
	*up = (uint32_t)(((uint64_t)peer * (uint64_t)sim->np +
	    (uint64_t)net->local_port[side_of(sim, peer)][po]) * (uint64_t)sim->V);
}

/*
 * Above this, the switches' state is out of the nearest caches' reach: a
 * hop's records are misses, and the cycle loop prefetches them.  Measured
 * (bench/RESULTS.md) when a VC's record was 16 bytes and the wheels were
 * counted whole: from 3DT 16^3 on the prefetching loop was faster in every
 * case, 1.5x to 3.5x; on 12^3, 14^3 and MH3DT(4,4,2,2) faster at low load
 * and up to 1.2x slower near saturation, where the records stay in the
 * last-level cache and the prefetches are only extra work.  The same
 * networks now plan 5.49 MiB (16^3) and 2.32, 3.68 and 5.24 MiB: the
 * line still falls between them, at the same switches.
 */
#define SIM_BIG (((uint64_t)53 << 20) / 10)

/*
 * Whether ns switches' state is out of the caches' reach, when `share`
 * parts of this size run on the cores of one machine: they share its
 * last-level cache, so each has its share of it (threads: 2 parts of
 * 3DT 16^3, 5.3 MiB each as the records were then, ran 1.1 times
 * slower than one part on the loop without prefetching).
 */
int
sim_big(const tt_net *net, const tt_simparams *p, uint64_t ns, int share)
{
	return sim_memory_switches(net, p, ns) * (uint64_t)(share > 1 ?
	    share : 1) > SIM_BIG;
}

tt_sim *
sim_new(const tt_net *net, const tt_simparams *p, uint32_t first,
    uint32_t end)
{
	tt_sim *sim = calloc(1, sizeof(*sim));

	if (sim == NULL)
		return NULL;
	sim->net = net;
	sim->p = *p;
	sim->ns_all = net->ncards;
	sim->s0 = first;
	sim->ns = end - first;
	sim->side_mask = net->twin ? 1 : 0;
	sim->np = net->card_nports + 1;
	sim->P = p->net.packet_flits;
	sim->R = p->router_latency;
	sim->L = p->link_latency;
	sim->so = p->send_overhead;
	sim->ro = p->recv_overhead;
	sim->saf = p->store_forward != 0;
	sim->doff = (uint64_t)(sim->P - 1 + sim->L) + sim->ro;
	sim_layout(sim);
	sim->W = wheel_size(p);
	sim->W2 = switch_wheel_size(p);
	/* a packet is ready L + R after its grant, and under store and
	 * forward its tail P - 1 later still */
	sim->far_pkts = (uint32_t)(sim->L + sim->R) +
	    (uint32_t)(sim->P - 1) * (uint32_t)sim->saf > sim->W2 - 2;
	sim->far = sim->far_pkts || far_credits(p);
	sim->epoch = sim_epoch(p);
	sim->big = sim_big(net, p, sim->ns, 1);
	sim->dco = sim_dco_ok(net);
	sim->bubble_dl = net->deadlock == TT_DL_BUBBLE;
	return sim;
}

/*
 * n zeroed elements of sz bytes, on huge pages where the kernel has them.
 * A large network's state is hundreds of MiB touched at random, one hop
 * at a time: with 4 KiB pages nearly every access also misses the TLB.
 * Only the 2 MiB-aligned middle of the block is advised; the pages are
 * still zeroed by the kernel on first touch, so memory a run never
 * touches costs nothing.
 */
static void
advise_huge(void *p, size_t len)
{
	const uintptr_t huge = (uintptr_t)2 << 20;
	uintptr_t a, b;

	if (p == NULL || len < 2 * huge)
		return;
	a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	b = ((uintptr_t)p + len) & ~(huge - 1);
	if (b > a)
		(void)madvise((void *)a, b - a, MADV_HUGEPAGE);
}

static void *
sim_calloc(size_t n, size_t sz)
{
	void *p = calloc(n, sz);

	advise_huge(p, n * sz);
	return p;
}

/*
 * The packet pool: room for n packets, every buffer full, mapped but not
 * committed (MAP_NORESERVE), so that only the packets a run uses take
 * memory.  Handed out from the start (sim.c's pool_get()), the pages in
 * use stay at the front and follow the packets in flight.
 */
static void *
map_lazy(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void *
pool_map(uint64_t n, size_t sz)
{
	size_t len = (size_t)n * sz;
	void *p = map_lazy(len);

	advise_huge(p, len);
	return p;
}

/*
 * The lists of a timing wheel: n lists of room for `each` entries, in one
 * mapping like the pool's but without huge pages.  A list is filled from
 * its start and emptied every time round, so the pages in use follow how
 * much is due in a cycle, which is the traffic's, not the network's;
 * reserving every list's worst case (every port, every switch) would be
 * the largest part of a large network's fixed state.
 */
static uint32_t **
wheel_map(uint32_t n, uint64_t each, void **base, size_t *len)
{
	uint32_t **l = calloc(n, sizeof(*l)), i;
	void *p;

	*len = (size_t)n * (size_t)each * sizeof(uint32_t);
	if (l == NULL)
		return NULL;
	if ((p = map_lazy(*len)) == NULL) {
		free(l);
		return NULL;
	}
	*base = p;
	for (i = 0; i < n; i++)
		l[i] = (uint32_t *)p + (size_t)i * (size_t)each;
	return l;
}

/* As sim_calloc(), on cache-line boundaries (records of a line each). */
static void *
sim_calloc_lines(size_t n, size_t sz)
{
	void *p;

	if (n == 0 || n > SIZE_MAX / sz ||
	    posix_memalign(&p, 64, n * sz) != 0)
		return NULL;
	advise_huge(p, n * sz);
	memset(p, 0, n * sz);
	return p;
}

/* The arrays of the switches and their NICs; -1 if out of memory. */
static int
sim_alloc(tt_sim *sim)
{
	uint64_t npo = (uint64_t)sim->ns * (uint64_t)sim->np;
	uint64_t npv = npo * (uint64_t)sim->V, nslots;

	nslots = pool_packets(sim, sim->ns);
	if (nslots >= UINT32_MAX)
		return -1;
	sim->vcq = sim_calloc(npv, sizeof(*sim->vcq));
	sim->nslot = nslots > 0 ? nslots : 1;
	if ((sim->slot = pool_map(sim->nslot, sizeof(struct pkt))) == NULL)
		return -1;
	/* credits in flight beyond the wheel: at most one per slot of the
	 * buffers at the far ends of this part's outputs, which have the
	 * VCs and slots of its own inputs */
	if (far_credits(&sim->p)) {
		sim->nfc = sim->nslot;
		if ((sim->fcred = pool_map(sim->nfc,
		    sizeof(struct far_cred))) == NULL)
			return -1;
	}
	sim->cred = sim_calloc(npv, sizeof(*sim->cred));
	sim->port = sim_calloc_lines(npo, sizeof(*sim->port));
	sim->want = sim_calloc(npo * (uint64_t)sim->np, sizeof(uint32_t));
	sim->sw = sim_calloc(sim->ns, sizeof(*sim->sw));
	sim->link_flits = sim_calloc(npo, sizeof(uint64_t));
	if (sim->p.shape_rate > 0 &&
	    (sim->bkt = sim_calloc(npo, sizeof(*sim->bkt))) == NULL)
		return -1;
	if (sim->dco)
		sim->rt = sim_calloc_lines(sim->ns, sizeof(*sim->rt));
	else
		sim->rtx = sim_calloc(sim->ns, sizeof(*sim->rtx));
	sim->nic = sim_calloc(sim->ns, sizeof(struct nic));
	sim->active = sim_calloc(sim->ns, sizeof(uint32_t));
	sim->nic_bucket = sim_calloc(NIC_WHEEL, sizeof(uint32_t));
	sim->nic_link = sim_calloc(sim->ns, sizeof(uint32_t));
	sim->nic_far = sim_calloc(sim->ns, sizeof(uint32_t));
	sim->due = sim_calloc((sim->ns + 63) / 64, sizeof(uint64_t));
	/* A switch enters one cycle's list once per time it is processed
	 * before that cycle, and a wake-up is never more than W2 - 1 cycles
	 * ahead: W2 entries per switch per list are enough. */
	sim->sw_wheel = wheel_map(sim->W2, (uint64_t)sim->ns * sim->W2,
	    &sim->sw_wheel_map, &sim->sw_wheel_len);
	sim->sw_wheel_n = sim_calloc(sim->W2, sizeof(uint32_t));
	if (sim->sw_wheel == NULL || sim->sw_wheel_n == NULL ||
	    sim->sw == NULL || sim->due == NULL)
		return -1;
	sim->batch = sim_calloc(TT_SIM_BATCHES + 1, sizeof(*sim->batch));
	sim->bglob = sim_calloc(TT_SIM_BATCHES, sizeof(*sim->bglob));
	if (sim->batch == NULL || sim->bglob == NULL)
		return -1;
	/* At most one credit per input port per cycle: a granted input
	 * port is busy for P >= 1 cycles. */
	sim->wheel = wheel_map(sim->W, npo, &sim->wheel_map,
	    &sim->wheel_len);
	sim->wheel_n = sim_calloc(sim->W, sizeof(uint32_t));
	if (!sim->vcq || !sim->cred || !sim->port ||
	    !sim->want || !sim->link_flits || (!sim->rt && !sim->rtx) ||
	    !sim->nic ||
	    !sim->active || !sim->nic_bucket || !sim->nic_link || !sim->nic_far || !sim->wheel || !sim->wheel_n)
		return -1;
	return 0;
}

int
sim_build(tt_sim *sim)
{
	uint32_t s;
	int o, v, side;

	if (sim_alloc(sim) < 0)
		return -1;
	if ((sim->rows = calloc(1, sizeof(*sim->rows))) == NULL)
		return -1;
	for (s = 0; s < sim->ns; s++) {
		uint32_t g = s + sim->s0;

		side = side_of(sim, s);
		if (sim_table(sim, s) < 0)
			return -1;
		for (o = 0; o < sim->np; o++) {
			uint64_t so = (uint64_t)s * (uint64_t)sim->np + (uint64_t)o;
			uint32_t down, up;

			/* the link is symmetric: the buffer at the far end
			 * of output o has the same VCs */
			for (v = 0; v < sim->nvc[side][o]; v++)
				sim->cred[so * (uint64_t)sim->V + (uint64_t)v] =
				    sim->pcap[side][o];
			struct port *pt = &sim->port[so];

			sim_wire(sim, g, o, &down, &pt->down_in, &up);
			/* local ids here, REMOTE for another part's */
			pt->down_sw = down - sim->s0 < sim->ns ?
			    down - sim->s0 : REMOTE;
			pt->up_cred = up / (uint32_t)(sim->np * sim->V) -
			    sim->s0 < sim->ns ? up - sim->s0 *
			    (uint32_t)(sim->np * sim->V) : REMOTE;
		}
	}
	return 0;
}

int
tt_sim_create(tt_sim **simp, const tt_net *net, const tt_simparams *p,
    char *err, size_t errsz)
{
	tt_sim *sim;

	*simp = NULL;
	if (check_params(net, p, err, errsz) < 0)
		return -1;
	sim = sim_new(net, p, 0, net->ncards);
	if (sim == NULL || sim_build(sim) < 0) {
		tt_sim_free(sim);
		return tt_errf(err, errsz, "out of memory building the "
		    "switches of %u cards", (unsigned)net->ncards);
	}
	*simp = sim;
	return 0;
}

uint32_t
tt_sim_pes(const tt_sim *sim)
{
	return sim->ns_all;
}

int
tt_sim_on_deliver(tt_sim *sim, tt_sim_deliver_fn fn, void *ctx, char *err,
    size_t errsz)
{
	if (sim->dist && fn != NULL && sim_part_deliveries(sim, err, errsz) < 0)
		return -1;
	sim->on_deliver = fn;
	sim->deliver_ctx = ctx;
	return 0;
}

void
tt_sim_on_arrive(tt_sim *sim, tt_sim_deliver_fn fn, void *ctx)
{
	sim->on_arrive = fn;
	sim->arrive_ctx = ctx;
}

const uint64_t *
tt_sim_link_flits(const tt_sim *sim, int *nports)
{
	const uint64_t *all = sim_part_links(sim);

	*nports = sim->np;
	return all != NULL ? all : sim->link_flits;
}

void
tt_simresult_free(tt_simresult *res)
{
	free(res->cycle);
	res->cycle = NULL;
	res->cycle_len = 0;
}
