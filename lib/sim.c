/*
 * The cycle-accurate network model: switches, links, credits, arbiters and
 * the NICs that feed them (seed 000 §7.1; the timing rules are in sim.h).
 *
 * Everything lives in flat arrays sized once in tt_sim_create(); the cycle
 * loop allocates nothing.  Indices:
 *   s            switch = card id
 *   s*np + o     a port of a switch (o < np-1: card_port order, np-1: PE)
 *   (s*np+o)*V+v a VC of that port (V = the most VCs any port has)
 * An input VC is a ring of packet slots; cred[] holds, for every output VC,
 * the free slots of the input VC at the other end of the link.  For the PE
 * port, cred[] holds the NIC's credits for injecting into the switch.
 *
 * A granted packet is moved at once into its downstream slot, stamped with
 * the cycle its head may be switched there (now + L + R); credits come back
 * through a timing wheel.  Since every effect on another switch lands at
 * least L >= 1 cycles later, switches may be visited in any order.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errf.h"
#include "twintorus/params.h"
#include "twintorus/sim.h"

#define PKT_BUBBLE   0x01
#define PKT_MEASURED 0x02

struct pkt {
	uint64_t gen;       /* generated at the source NIC */
	uint64_t inj;       /* head left the NIC */
	uint64_t ready;     /* head may cross this switch from this cycle */
	uint32_t src, dst;
	uint8_t hops;       /* links between switches crossed so far */
	uint8_t out;        /* output port here (local index) */
	uint8_t cls;        /* VC class on that output (the core's VC) */
	uint8_t flags;
	uint32_t tag;       /* the source's, handed back on delivery */
};

/* An input VC.  What the arbiters read about its head packet is kept here,
 * next to the counters, so that arbitration never touches the slots. */
struct vcq {
	uint64_t ready;     /* head: may cross the switch from this cycle */
	uint32_t base;      /* first slot in sim->slot */
	uint16_t cap, head, cnt;
	uint8_t out;        /* head: output port (local index) */
	uint8_t cls;        /* head: VC class on that output */
	uint8_t bubble;     /* head: enters a ring under bubble */
};

struct nic {
	tt_srcpkt sp;       /* the pending packet, written by the source */
	uint8_t pending, done;  /* neither: asleep until the source has one */
	uint64_t busy;      /* injection link free from this cycle */
	uint64_t wake;      /* while asleep: when the NIC has work */
};

#define NIC_WHEEL 1024

struct tt_sim {
	const tt_net *net;
	tt_simparams p;
	uint32_t ns;            /* switches */
	int np, V, vshift;      /* ports per switch (PE port last), VC stride
	                         * (a power of two, 1 << vshift) */
	int P, R, L;
	uint32_t side_mask;     /* 1 for twin tori: card & 1 is the side */
	int nvc[2][TT_NPORTS];  /* VCs per local port, by card side */
	int ncls[2][TT_NPORTS]; /* the core's VC classes on that port */
	int port_id[2][TT_NPORTS];

	struct vcq *vcq;        /* ns*np*V */
	struct pkt *slot;
	uint16_t *cred;         /* ns*np*V */
	uint64_t *out_busy;     /* ns*np: the link is free from this cycle */
	uint8_t *cwait;         /* ns*np: a request waits for credits */
	uint64_t *out_next;     /* ns*np: no grant can happen before this
	                         * cycle (a lower bound, see arbitrate()) */
	uint64_t *in_busy;      /* ns*np */
	uint32_t *req;          /* ns*np: input ports with a head wanting o */
	uint32_t *want;         /* (ns*np+in)*np+o: VCs of in whose head wants o */
	uint32_t *oreq;         /* ns: outputs with a nonzero req */
	uint8_t *rr_out;        /* ns*np: next input port to favour */
	uint8_t *rr_vc;         /* ns*np: next VC to favour */
	uint32_t *down_sw;      /* ns*np: switch at the far end of output o */
	uint8_t *down_in;       /* ns*np: its input port */
	uint32_t *up_cred;      /* ns*np: cred[] index (vc 0) feeding input in */
	tt_rtable *rt;          /* ns */
	uint64_t *link_flits;   /* ns*np, inside the window */

	struct nic *nic;        /* ns (one PE per switch) */
	uint32_t *active;       /* NICs with a due packet */
	uint32_t nactive;
	/* sleeping NICs: lists by wake-up cycle mod NIC_WHEEL for the next
	 * NIC_WHEEL cycles, and a list of those due later */
	uint32_t *nic_bucket;   /* NIC_WHEEL list heads */
	uint32_t *nic_link;     /* ns: next NIC in the same list */
	uint32_t *nic_far;      /* ns */
	uint32_t nfar;
	uint32_t nsleep;        /* NICs in any of these lists */

	uint32_t **wheel;       /* credit returns, by cycle mod W */
	uint32_t *wheel_n;
	uint32_t W;

	/* switches due for arbitration, by cycle mod W2: a switch is listed
	 * at the earliest out_next of its requested outputs (swake) */
	uint32_t **sw_wheel;
	uint32_t *sw_wheel_n;
	uint32_t W2;
	uint64_t *swake;        /* ns: UINT64_MAX when not scheduled */

	tt_sim_deliver_fn on_deliver;
	void *deliver_ctx;

	/* the run in progress */
	uint64_t t, wstart, wend, last_move, inflight, traversals;
	uint64_t early_pending;     /* NICs holding a packet generated < wend */
	tt_simresult *res;

	/*
	 * A partitioned run (tt_sim_create_part()): this process holds
	 * switches [s0, s0 + ns) of ns_all, and every array above is indexed
	 * by the local id s - s0.  A link to another part has down_sw (or
	 * up_cred) REMOTE, and its far end's global id in down_g (up_g).
	 */
	uint32_t s0, ns_all;
	int dist;
	tt_sim_comm comm;
	uint32_t *part;         /* nranks + 1: first switch of each rank */
	uint32_t *down_g;       /* ns*np */
	uint32_t *up_g;         /* ns*np: global cred[] index (vc 0) */
	struct obuf *ob;        /* nranks: what goes to each rank this epoch */
	uint64_t *scount, *rcount;
	uint8_t *rbuf;
	size_t rbuf_cap;
	uint64_t *sync_all;     /* nranks * SYNC_N */
	int gather_links;
	uint64_t *link_all;     /* ns_all*np, when gathered */
};

#define REMOTE UINT32_MAX
#define SYNC_N 7        /* the values of struct gstate */

struct obuf {
	uint8_t *b;
	size_t n, cap;
};

/* What crosses a boundary; every record is a multiple of 8 bytes. */
enum { MSG_PKT = 1, MSG_CRED, MSG_DLV };
struct msg_pkt {
	uint32_t kind, ds;      /* ds: the far switch, global */
	uint8_t din, pv, pad[6];
	struct pkt pk;
};
struct msg_cred {
	uint32_t kind, idx;     /* idx: cred[] index, global */
	uint64_t when;
};
struct msg_dlv {
	uint32_t kind, pad;
	tt_delivery d;
};



void
tt_simparams_default(tt_simparams *p)
{
	memset(p, 0, sizeof(*p));
	p->packet_flits = TT_PACKET_FLITS_DEFAULT;
	p->buffer_flits = TT_BUFFER_FLITS_DEFAULT;
	p->vcs = 0;
	p->router_latency = TT_LATENCY_DEFAULT;
	p->link_latency = TT_LATENCY_DEFAULT;
	p->warmup = 2000;
	p->measure = 10000;
	p->drain = 20000;
	p->watchdog = 5000;
}

/* ---- latency histogram ---- */

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

/* ---- layout ---- */

static int
pow2ceil(int v)
{
	int r = 1;

	while (r < v)
		r <<= 1;
	return r;
}

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
	int min = p->vcs > 0 ? p->vcs : (net->deadlock == TT_DL_VC ? 4 : 1);
	int v = pow2ceil(classes);

	return v > min ? v : min;
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

static int
check_params(const tt_net *net, const tt_simparams *p, char *err, size_t errsz)
{
	int side, o, nv, per;

	if (p->packet_flits < 1 || p->packet_flits > TT_PACKET_FLITS_MAX)
		return tt_errf(err, errsz, "packet_flits must be 1..%d, got %d",
		    TT_PACKET_FLITS_MAX, p->packet_flits);
	if (p->router_latency < 1 || p->router_latency > TT_LATENCY_MAX)
		return tt_errf(err, errsz, "router latency must be 1..%d "
		    "cycles, got %d", TT_LATENCY_MAX, p->router_latency);
	if (p->link_latency < 1 || p->link_latency > TT_LATENCY_MAX)
		return tt_errf(err, errsz, "link latency must be 1..%d cycles, "
		    "got %d", TT_LATENCY_MAX, p->link_latency);
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
			per = p->buffer_flits / nv / p->packet_flits;
			if (per > 65535)
				return tt_errf(err, errsz, "buffer_flits %d "
				    "holds more than 65535 packets per VC",
				    p->buffer_flits);
			if (per < 1)
				return tt_errf(err, errsz, "buffer_flits %d "
				    "split among %d VCs leaves %d flits per VC, "
				    "less than one packet of %d flits; raise "
				    "buffer_flits or lower vcs", p->buffer_flits,
				    nv, p->buffer_flits / nv, p->packet_flits);
			if (per < 2 && net->deadlock == TT_DL_BUBBLE &&
			    o < net->card_nports)
				return tt_errf(err, errsz, "buffer_flits %d "
				    "split among %d VCs leaves room for one "
				    "packet per VC; the bubble scheme needs two "
				    "(seed 000 §6.3.2); raise buffer_flits",
				    p->buffer_flits, nv);
		}
	}
	return 0;
}

static void
layout(tt_sim *sim)
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
}

static int
slots_per_vc(const tt_sim *sim, int side, int o)
{
	return sim->p.buffer_flits / sim->nvc[side][o] / sim->P;
}

static uint64_t
switch_slots(const tt_sim *sim, int side)
{
	uint64_t n = 0;
	int o;

	for (o = 0; o < sim->np; o++)
		n += (uint64_t)sim->nvc[side][o] * (uint64_t)slots_per_vc(sim, side, o);
	return n;
}

static uint32_t
wheel_size(const tt_simparams *p)
{
	uint32_t w = 1;

	while (w < (uint32_t)(p->packet_flits + p->link_latency + 1))
		w <<= 1;
	return w;
}

/* The farthest ahead an output can be due: a grant (P), a new head (L + R). */
static uint32_t
switch_wheel_size(const tt_simparams *p)
{
	uint32_t w = 1, h = (uint32_t)(p->packet_flits > p->link_latency +
	    p->router_latency ? p->packet_flits : p->link_latency + p->router_latency);

	while (w < h + 2)
		w <<= 1;
	return w;
}

/* Bytes tt_sim_create_part() allocates for ns switches (even, for a
 * twin torus: whole nodes), apart from the boundary buffers. */
static uint64_t
memory_for(const tt_net *net, const tt_simparams *p, uint64_t ns, int dist)
{
	tt_sim tmp;
	uint64_t npv, slots, per_port, total;
	uint64_t rtab = 0;
	int d;

	memset(&tmp, 0, sizeof(tmp));
	tmp.net = net;
	tmp.p = *p;
	tmp.P = p->packet_flits;
	tmp.np = net->card_nports + 1;
	layout(&tmp);
	npv = ns * (uint64_t)tmp.np * (uint64_t)tmp.V;
	slots = net->twin ? (switch_slots(&tmp, 0) + switch_slots(&tmp, 1)) *
	    (ns / 2) : switch_slots(&tmp, 0) * ns;
	per_port = 8 + 8 + 8 + 1 + 4 + 4 + 1 + 1 + 4 + 1 + 8 +
	    4 * (uint64_t)tmp.np + (uint64_t)wheel_size(p) * 4 +
	    (dist ? 4 + 4 : 0);
	for (d = 0; d < net->n; d++)
		rtab += (uint64_t)net->k[d];
	total = npv * (sizeof(struct vcq) + sizeof(uint16_t)) +
	    slots * sizeof(struct pkt) + ns * (uint64_t)tmp.np * per_port +
	    ns * (4 + sizeof(tt_rtable) + rtab * sizeof(tt_hop) +
	    sizeof(struct nic) + 4 + 4 + 4 + 8 +
	    (uint64_t)switch_wheel_size(p) * switch_wheel_size(p) * 4);
	return total;
}

uint64_t
tt_sim_memory(const tt_net *net, const tt_simparams *p)
{
	return memory_for(net, p, net->ncards, 0);
}

uint64_t
tt_sim_memory_part(const tt_net *net, const tt_simparams *p, int nranks)
{
	tt_sim tmp;
	uint32_t first, end, f, e, s, peer;
	uint64_t boundary = 0, epoch;
	int r, o, po;

	if (nranks <= 1)
		return tt_sim_memory(net, p);
	if (tt_sim_part(net, nranks, 0, &first, &end) < 0)
		return 0;
	for (r = 1; r < nranks; r++) {
		tt_sim_part(net, nranks, r, &f, &e);
		if (e - f > end - first) {
			first = f;
			end = e;
		}
	}
	memset(&tmp, 0, sizeof(tmp));
	tmp.net = net;
	tmp.p = *p;
	tmp.np = net->card_nports + 1;
	tmp.side_mask = net->twin ? 1 : 0;
	layout(&tmp);
	for (s = first; s < end; s++)
		for (o = 0; o < tmp.np - 1; o++) {
			peer = tt_link_peer(net, s, tmp.port_id[s & tmp.side_mask][o], &po);
			if (peer < first || peer >= end)
				boundary++;
		}
	/* an epoch of L cycles sends at most a packet per P cycles and a
	 * credit per cycle over each boundary link, each way; the buffers
	 * double as they grow, and the receive buffer holds both */
	epoch = boundary * ((uint64_t)(p->link_latency + p->packet_flits - 1) /
	    (uint64_t)p->packet_flits * sizeof(struct msg_pkt) +
	    (uint64_t)p->link_latency * sizeof(struct msg_cred));
	return memory_for(net, p, end - first, 1) + 4 * epoch +
	    (uint64_t)nranks * (SYNC_N + (uint64_t)nranks) * 8;
}

void
tt_sim_free(tt_sim *sim)
{
	uint32_t i;

	if (sim == NULL)
		return;
	if (sim->rt != NULL)
		for (i = 0; i < sim->ns; i++)
			tt_rtable_free(&sim->rt[i]);
	if (sim->wheel != NULL)
		for (i = 0; i < sim->W; i++)
			free(sim->wheel[i]);
	free(sim->wheel);
	free(sim->wheel_n);
	if (sim->sw_wheel != NULL)
		for (i = 0; i < sim->W2; i++)
			free(sim->sw_wheel[i]);
	free(sim->sw_wheel);
	free(sim->sw_wheel_n);
	free(sim->swake);
	free(sim->rt);
	free(sim->vcq);
	free(sim->slot);
	free(sim->cred);
	free(sim->out_busy);
	free(sim->out_next);
	free(sim->cwait);
	free(sim->in_busy);
	free(sim->req);
	free(sim->want);
	free(sim->oreq);
	free(sim->rr_out);
	free(sim->rr_vc);
	free(sim->part);
	free(sim->down_g);
	free(sim->up_g);
	if (sim->ob != NULL)
		for (i = 0; i < (uint32_t)sim->comm.nranks; i++)
			free(sim->ob[i].b);
	free(sim->ob);
	free(sim->scount);
	free(sim->rcount);
	free(sim->rbuf);
	free(sim->sync_all);
	free(sim->link_all);
	free(sim->down_sw);
	free(sim->down_in);
	free(sim->up_cred);
	free(sim->link_flits);
	free(sim->nic);
	free(sim->active);
	free(sim->nic_bucket);
	free(sim->nic_link);
	free(sim->nic_far);
	free(sim);
}

static inline int
side_of(const tt_sim *sim, uint32_t s)
{
	return (int)(s & sim->side_mask);
}

int
tt_sim_check(const tt_net *net, const tt_simparams *p, char *err, size_t errsz)
{
	return check_params(net, p, err, errsz);
}

int
tt_sim_check_routes(const tt_sim *sim)
{
	static const int ins[] = {TT_PORT_NIC, TT_PORT_INT, 0, 1, 2, 3, 4, 5};
	const tt_net *net = sim->net;
	uint32_t s, dst;
	size_t i;

	for (s = 0; s < net->ncards; s++)
		for (dst = 0; dst < net->ncards; dst++)
			for (i = 0; i < sizeof(ins) / sizeof(ins[0]); i++) {
				tt_hop a = tt_route(net, s, dst, ins[i]);
				tt_hop b = tt_rtable_lookup(net, &sim->rt[s], dst, ins[i]);

				if (memcmp(&a, &b, sizeof(a)) != 0)
					return -1;
			}
	return 0;
}

int
tt_sim_part(const tt_net *net, int nranks, int rank, uint32_t *first,
    uint32_t *end)
{
	uint64_t cpn = net->twin ? 2 : 1, nodes = net->ncards / cpn;

	if (nranks < 1 || rank < 0 || rank >= nranks || (uint64_t)nranks > nodes)
		return -1;
	*first = (uint32_t)(nodes * (uint64_t)rank / (uint64_t)nranks * cpn);
	*end = (uint32_t)(nodes * (uint64_t)(rank + 1) / (uint64_t)nranks * cpn);
	return 0;
}

/* The rank holding global switch g. */
static int
owner(const tt_sim *sim, uint32_t g)
{
	int lo = 0, hi = sim->comm.nranks - 1;

	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;

		if (sim->part[mid] <= g)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* The far end of output o of global switch g: its switch and input port,
 * and the cred[] index (vc 0, global) of the output feeding input o. */
static void
wire(const tt_sim *sim, uint32_t g, int o, uint32_t *down, uint8_t *din,
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

/* Every rank learns whether every rank got this far; -1 if one did not. */
static int
all_ok(tt_sim *sim, int ok, int *bad_rank)
{
	uint64_t mine = (uint64_t)ok, *all;
	int r;

	*bad_rank = -1;
	if (!sim->dist)
		return ok ? 0 : -1;
	all = calloc((size_t)sim->comm.nranks, sizeof(uint64_t));
	if (all == NULL)
		abort();  /* cannot tell the others: the transport aborts all */
	sim->comm.allgather(sim->comm.ctx, &mine, 1, all);
	for (r = 0; r < sim->comm.nranks; r++)
		if (!all[r] && *bad_rank < 0)
			*bad_rank = r;
	free(all);
	return *bad_rank < 0 ? 0 : -1;
}

int
tt_sim_create(tt_sim **simp, const tt_net *net, const tt_simparams *p,
    char *err, size_t errsz)
{
	return tt_sim_create_part(simp, net, p, NULL, err, errsz);
}

int
tt_sim_create_part(tt_sim **simp, const tt_net *net, const tt_simparams *p,
    const tt_sim_comm *comm, char *err, size_t errsz)
{
	tt_sim *sim;
	uint64_t npo, npv, nslots, off = 0;
	uint32_t s, i, first = 0, end = net->ncards;
	int o, v, side, r, bad;

	*simp = NULL;
	if (check_params(net, p, err, errsz) < 0)
		return -1;
	if (comm != NULL && comm->nranks > 1 &&
	    tt_sim_part(net, comm->nranks, comm->rank, &first, &end) < 0)
		return tt_errf(err, errsz, "%d ranks for a network of %u "
		    "nodes: use at most one rank per node", comm->nranks,
		    net->twin ? net->ncards / 2 : net->ncards);
	sim = calloc(1, sizeof(*sim));
	if (sim == NULL)
		return tt_errf(err, errsz, "out of memory");
	sim->net = net;
	sim->p = *p;
	sim->ns_all = net->ncards;
	sim->s0 = first;
	sim->ns = end - first;
	sim->comm.nranks = 1;
	if (comm != NULL) {
		sim->comm = *comm;
		sim->dist = 1;
	}
	sim->side_mask = net->twin ? 1 : 0;
	sim->np = net->card_nports + 1;
	sim->P = p->packet_flits;
	sim->R = p->router_latency;
	sim->L = p->link_latency;
	layout(sim);
	npo = (uint64_t)sim->ns * (uint64_t)sim->np;
	npv = npo * (uint64_t)sim->V;
	nslots = net->twin ? (switch_slots(sim, 0) + switch_slots(sim, 1)) *
	    (sim->ns / 2) : switch_slots(sim, 0) * sim->ns;
	if (nslots >= UINT32_MAX)
		goto nomem;
	sim->vcq = calloc(npv, sizeof(*sim->vcq));
	sim->slot = calloc(nslots, sizeof(*sim->slot));
	sim->cred = calloc(npv, sizeof(*sim->cred));
	sim->out_busy = calloc(npo, sizeof(uint64_t));
	sim->out_next = calloc(npo, sizeof(uint64_t));
	sim->cwait = calloc(npo, 1);
	sim->in_busy = calloc(npo, sizeof(uint64_t));
	sim->req = calloc(npo, sizeof(uint32_t));
	sim->want = calloc(npo * (uint64_t)sim->np, sizeof(uint32_t));
	sim->oreq = calloc(sim->ns, sizeof(uint32_t));
	sim->rr_out = calloc(npo, 1);
	sim->rr_vc = calloc(npo, 1);
	sim->down_sw = calloc(npo, sizeof(uint32_t));
	sim->down_in = calloc(npo, 1);
	sim->up_cred = calloc(npo, sizeof(uint32_t));
	sim->link_flits = calloc(npo, sizeof(uint64_t));
	sim->rt = calloc(sim->ns, sizeof(tt_rtable));
	sim->nic = calloc(sim->ns, sizeof(struct nic));
	sim->active = calloc(sim->ns, sizeof(uint32_t));
	sim->nic_bucket = calloc(NIC_WHEEL, sizeof(uint32_t));
	sim->nic_link = calloc(sim->ns, sizeof(uint32_t));
	sim->nic_far = calloc(sim->ns, sizeof(uint32_t));
	sim->W = wheel_size(p);
	sim->W2 = switch_wheel_size(p);
	sim->sw_wheel = calloc(sim->W2, sizeof(uint32_t *));
	sim->sw_wheel_n = calloc(sim->W2, sizeof(uint32_t));
	sim->swake = calloc(sim->ns, sizeof(uint64_t));
	if (sim->sw_wheel == NULL || sim->sw_wheel_n == NULL || sim->swake == NULL)
		goto nomem;
	/* A switch enters one cycle's list once per time it is processed
	 * before that cycle, and a wake-up is never more than W2 - 1 cycles
	 * ahead: W2 entries per switch per list are enough. */
	for (i = 0; i < sim->W2; i++)
		if ((sim->sw_wheel[i] = calloc((size_t)sim->ns * sim->W2,
		    sizeof(uint32_t))) == NULL)
			goto nomem;
	sim->wheel = calloc(sim->W, sizeof(uint32_t *));
	sim->wheel_n = calloc(sim->W, sizeof(uint32_t));
	if (!sim->vcq || !sim->slot || !sim->cred || !sim->out_busy || !sim->out_next || !sim->cwait ||
	    !sim->in_busy || !sim->req || !sim->want || !sim->oreq || !sim->rr_out ||
	    !sim->rr_vc || !sim->down_sw || !sim->down_in ||
	    !sim->up_cred || !sim->link_flits || !sim->rt || !sim->nic ||
	    !sim->active || !sim->nic_bucket || !sim->nic_link || !sim->nic_far || !sim->wheel || !sim->wheel_n)
		goto nomem;
	/* At most one credit per input port per cycle: a granted input
	 * port is busy for P >= 1 cycles. */
	for (i = 0; i < sim->W; i++)
		if ((sim->wheel[i] = calloc(npo, sizeof(uint32_t))) == NULL)
			goto nomem;
	if (sim->dist) {
		r = sim->comm.nranks;
		sim->part = calloc((size_t)r + 1, sizeof(uint32_t));
		sim->down_g = calloc(npo, sizeof(uint32_t));
		sim->up_g = calloc(npo, sizeof(uint32_t));
		sim->ob = calloc((size_t)r, sizeof(struct obuf));
		sim->scount = calloc((size_t)r, sizeof(uint64_t));
		sim->rcount = calloc((size_t)r, sizeof(uint64_t));
		if (!sim->part || !sim->down_g || !sim->up_g || !sim->ob ||
		    !sim->scount || !sim->rcount)
			goto nomem;
		for (v = 0; v < r; v++)
			tt_sim_part(net, r, v, &sim->part[v], &sim->part[v + 1]);
		sim->part[r] = net->ncards;
	}
	for (s = 0; s < sim->ns; s++) {
		uint32_t g = s + sim->s0;

		side = side_of(sim, s);
		if (tt_rtable_build(net, g, &sim->rt[s]) < 0)
			goto nomem;
		for (o = 0; o < sim->np; o++) {
			uint64_t so = (uint64_t)s * (uint64_t)sim->np + (uint64_t)o;
			int cap = slots_per_vc(sim, side, o);
			uint32_t down, up;

			for (v = 0; v < sim->nvc[side][o]; v++) {
				sim->vcq[so * (uint64_t)sim->V + (uint64_t)v].base = (uint32_t)off;
				sim->vcq[so * (uint64_t)sim->V + (uint64_t)v].cap = (uint16_t)cap;
				off += (uint64_t)cap;
				/* the link is symmetric: the buffer at the
				 * far end of output o has the same VCs */
				sim->cred[so * (uint64_t)sim->V + (uint64_t)v] = (uint16_t)cap;
			}
			wire(sim, g, o, &down, &sim->down_in[so], &up);
			/* local ids here, REMOTE for another part's */
			sim->down_sw[so] = down - sim->s0 < sim->ns ?
			    down - sim->s0 : REMOTE;
			sim->up_cred[so] = up / (uint32_t)(sim->np * sim->V) -
			    sim->s0 < sim->ns ? up - sim->s0 *
			    (uint32_t)(sim->np * sim->V) : REMOTE;
			if (sim->dist) {
				sim->down_g[so] = down;
				sim->up_g[so] = up;
			}
		}
	}
	if (all_ok(sim, 1, &bad) < 0)
		goto fail;
	*simp = sim;
	return 0;
nomem:
	if (sim->dist) {
		all_ok(sim, 0, &bad);
		goto fail;
	}
	tt_sim_free(sim);
	return tt_errf(err, errsz, "out of memory building the switches of "
	    "%u cards", (unsigned)net->ncards);
fail:
	tt_sim_free(sim);
	return tt_errf(err, errsz, "rank %d of %d ran out of memory building "
	    "its part of the switches of %u cards; use more ranks (ttsim run "
	    "--dry-run --ranks N tells how much each needs)", bad, comm->nranks,
	    (unsigned)net->ncards);
}

void
tt_sim_local(const tt_sim *sim, uint32_t *first, uint32_t *end)
{
	*first = sim->s0;
	*end = sim->s0 + sim->ns;
}

void
tt_sim_gather_links(tt_sim *sim, int on)
{
	sim->gather_links = on;
}

uint32_t
tt_sim_pes(const tt_sim *sim)
{
	return sim->ns_all;
}

void
tt_sim_on_deliver(tt_sim *sim, tt_sim_deliver_fn fn, void *ctx)
{
	sim->on_deliver = fn;
	sim->deliver_ctx = ctx;
}

const uint64_t *
tt_sim_link_flits(const tt_sim *sim, int *nports)
{
	*nports = sim->np;
	return sim->link_all != NULL ? sim->link_all : sim->link_flits;
}

void
tt_simresult_free(tt_simresult *res)
{
	free(res->cycle);
	res->cycle = NULL;
	res->cycle_len = 0;
}

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

/* ---- switches ---- */

/* Have switch s arbitrate in cycle e (>= now) unless it already will. */
static inline void
sched_switch(tt_sim *sim, uint32_t s, uint64_t e)
{
	uint32_t b;

	if (sim->swake[s] <= e)
		return;
	b = (uint32_t)(e & (sim->W2 - 1));
	sim->sw_wheel[b][sim->sw_wheel_n[b]++] = s;
	sim->swake[s] = e;
}

/* The head of input VC q = (s, in, v) is new: route it and raise its
 * request. */
static inline __attribute__((always_inline)) void
head_route(tt_sim *sim, uint32_t s, int in, int v, struct vcq *q)
{
	const uint64_t np = (uint64_t)sim->np, si = (uint64_t)s * np + (uint64_t)in;
	const struct pkt *pk = &sim->slot[q->base + q->head];
	const int side = side_of(sim, s);
	const tt_hop h = tt_rtable_lookup(sim->net, &sim->rt[s], pk->dst,
	    sim->port_id[side][in]);
	const int out = h.port == TT_PORT_NIC ? sim->np - 1 :
	    sim->net->local_port[side][h.port];
	const uint64_t so = (uint64_t)s * np + (uint64_t)out;
	uint64_t e;

	q->out = (uint8_t)out;
	q->cls = h.vc;
	q->bubble = h.bubble;
	q->ready = pk->ready;
	sim->want[si * np + (uint64_t)out] |= 1u << v;
	/* the earliest this request can go; the output's hint must not be
	 * later, and an output nobody wanted has no hint yet */
	e = q->ready > sim->in_busy[si] ? q->ready : sim->in_busy[si];
	if (e < sim->out_busy[so])
		e = sim->out_busy[so];
	if (sim->req[so] == 0 || e < sim->out_next[so])
		sim->out_next[so] = e;
	sim->req[so] |= 1u << in;
	sim->oreq[s] |= 1u << out;
	sched_switch(sim, s, e);
}

/* Room for one more packet at the tail of input VC (s, in, v). */
static inline struct pkt *
tail_slot(tt_sim *sim, struct vcq *q)
{
	unsigned pos = (unsigned)q->head + q->cnt;

	if (pos >= q->cap)
		pos -= q->cap;
	return &sim->slot[q->base + pos];
}

/* The packet just written at the tail of (s, in, v) is in. */
static inline __attribute__((always_inline)) void
tail_added(tt_sim *sim, uint32_t s, int in, int v, struct vcq *q)
{
	q->cnt++;
	if (q->cnt == 1)
		head_route(sim, s, in, v, q);
}

static inline void
credit_later(tt_sim *sim, uint64_t when, uint32_t idx)
{
	uint32_t b = (uint32_t)(when & (sim->W - 1));

	sim->wheel[b][sim->wheel_n[b]++] = idx;
}

/* Room for n more bytes to rank r; the run cannot go on without it. */
static void *
obuf_add(tt_sim *sim, uint32_t g, size_t n)
{
	struct obuf *b = &sim->ob[owner(sim, g)];
	void *at;

	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		uint8_t *nb;

		while (cap < b->n + n)
			cap *= 2;
		if ((nb = realloc(b->b, cap)) == NULL) {
			fprintf(stderr, "tt_sim: out of memory for a boundary "
			    "buffer of %zu bytes\n", cap);
			abort();
		}
		b->b = nb;
		b->cap = cap;
	}
	at = b->b + b->n;
	b->n += n;
	return at;
}

static __attribute__((noinline)) void
send_credit(tt_sim *sim, uint32_t idx, uint64_t when)
{
	struct msg_cred m = {MSG_CRED, idx, when};

	memcpy(obuf_add(sim, idx / (uint32_t)(sim->np * sim->V), sizeof(m)),
	    &m, sizeof(m));
}

static __attribute__((noinline)) void
send_packet(tt_sim *sim, uint64_t so, int pv, const struct pkt *pk)
{
	struct msg_pkt m;

	memset(&m, 0, sizeof(m));
	m.kind = MSG_PKT;
	m.ds = sim->down_g[so];
	m.din = sim->down_in[so];
	m.pv = (uint8_t)pv;
	m.pk = *pk;
	memcpy(obuf_add(sim, m.ds, sizeof(m)), &m, sizeof(m));
}

static __attribute__((noinline)) void
send_delivery(tt_sim *sim, const tt_delivery *d)
{
	struct msg_dlv m;

	memset(&m, 0, sizeof(m));
	m.kind = MSG_DLV;
	m.d = *d;
	memcpy(obuf_add(sim, d->src, sizeof(m)), &m, sizeof(m));
}

/* The delivery goes to the source's rank: the tag is the source's. */
static inline __attribute__((always_inline)) void
deliver(tt_sim *sim, const struct pkt *pk, uint64_t at, const int dist)
{
	tt_simresult *r = sim->res;

	r->delivered++;
	sim->inflight--;
	if (at >= sim->wstart && at < sim->wend) {
		r->packets_window++;
		r->flits_window += (uint64_t)sim->P;
	}
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
		if (dist && pk->src - sim->s0 >= sim->ns)
			send_delivery(sim, &d);
		else
			sim->on_deliver(sim->deliver_ctx, &d);
	}
}

/* Flits of a P-flit transfer starting at t that fall inside the window. */
static inline uint64_t
window_flits(const tt_sim *sim, uint64_t t)
{
	uint64_t a = t > sim->wstart ? t : sim->wstart;
	uint64_t b = t + (uint64_t)sim->P < sim->wend ? t + (uint64_t)sim->P : sim->wend;

	return b > a ? b - a : 0;
}

/* Input VC (s, in, v) sends its head through output o into downstream
 * VC pv, starting in cycle t. */
static inline __attribute__((always_inline)) void
grant(tt_sim *sim, uint32_t s, int in, int v, int o, int pv, int nvi,
    struct vcq *q, uint64_t t, const int dist)
{
	const uint64_t np = (uint64_t)sim->np, V = (uint64_t)sim->V;
	const uint64_t so = (uint64_t)s * np + (uint64_t)o;
	const uint64_t si = (uint64_t)s * np + (uint64_t)in;
	struct pkt *pk = &sim->slot[q->base + q->head];
	const uint64_t done = t + (uint64_t)sim->P;
	uint32_t *w = &sim->want[si * np + (uint64_t)o];

	/* this head no longer wants o */
	*w &= ~(1u << v);
	if (*w == 0) {
		sim->req[so] &= ~(1u << in);
		if (sim->req[so] == 0)
			sim->oreq[s] &= ~(1u << o);
	}
	sim->in_busy[si] = done;
	sim->out_busy[so] = done;
	sim->out_next[so] = done;
	sim->rr_out[so] = (uint8_t)(in + 1 == sim->np ? 0 : in + 1);
	sim->rr_vc[si] = (uint8_t)(v + 1 == nvi ? 0 : v + 1);
	sim->last_move = t;
	sim->traversals += (uint64_t)sim->P;
	if (t + (uint64_t)sim->P > sim->wstart && t < sim->wend)
		sim->link_flits[so] += window_flits(sim, t);
	/* the slot frees when the tail leaves, in t + P - 1; upstream hears
	 * of it L cycles later */
	if (dist && sim->up_cred[si] == REMOTE)
		send_credit(sim, sim->up_g[si] + (uint32_t)v, done - 1 + (uint64_t)sim->L);
	else
		credit_later(sim, done - 1 + (uint64_t)sim->L, sim->up_cred[si] + (uint32_t)v);
	if (o == sim->np - 1) {
		deliver(sim, pk, done - 1 + (uint64_t)sim->L, dist);
	} else if (dist && sim->down_sw[so] == REMOTE) {
		/* the far switch is another rank's: it adds the packet before
		 * cycle t + L, ahead of its ready time t + L + R */
		struct pkt to = *pk;

		sim->cred[so * V + (uint64_t)pv]--;
		to.hops++;
		to.ready = t + (uint64_t)sim->L + (uint64_t)sim->R;
		send_packet(sim, so, pv, &to);
	} else {
		uint32_t ds = sim->down_sw[so];
		int din = sim->down_in[so];
		struct vcq *dq = &sim->vcq[((uint64_t)ds * np + (uint64_t)din) * V +
		    (uint64_t)pv];
		struct pkt *to = tail_slot(sim, dq);

		sim->cred[so * V + (uint64_t)pv]--;
		*to = *pk;
		to->hops++;
		to->ready = t + (uint64_t)sim->L + (uint64_t)sim->R;
		tail_added(sim, ds, din, pv, dq);
	}
	q->head = (uint16_t)(q->head + 1 == q->cap ? 0 : q->head + 1);
	q->cnt--;
	if (q->cnt > 0)
		head_route(sim, s, in, v, q);
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
arbitrate(tt_sim *sim, uint32_t s, int o, uint64_t t, const int dist)
{
	const uint64_t np = (uint64_t)sim->np, V = (uint64_t)sim->V;
	const uint64_t so = (uint64_t)s * np + (uint64_t)o, cb = so * V;
	const uint32_t m = sim->req[so], inport_mask = (1u << sim->np) - 1;
	const int side = side_of(sim, s), start = sim->rr_out[so];
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
		if (sim->in_busy[si] > t) {
			if (sim->in_busy[si] < next)
				next = sim->in_busy[si];
			continue;
		}
		wm = sim->want[si * np + (uint64_t)o];
		nvi = sim->nvc[side][in];
		if ((wm & (wm - 1)) == 0) {
			vstart = __builtin_ctz(wm);
			vrot = 1;
		} else {
			vstart = sim->rr_vc[si];
			vrot = (uint32_t)(((uint64_t)wm >> vstart) |
			    ((uint64_t)wm << (nvi - vstart)));
			vrot &= nvi >= 32 ? 0xffffffffu : (1u << nvi) - 1;
		}
		while (vrot) {
			int v = vstart + __builtin_ctz(vrot), pv = 0;
			struct vcq *q;

			vrot &= vrot - 1;
			if (v >= nvi)
				v -= nvi;
			q = &sim->vcq[si * V + (uint64_t)v];
			if (q->ready > t) {
				if (q->ready < next)
					next = q->ready;
				continue;
			}
			if (!eject) {
				/* the physical VCs of class c are c, c +
				 * ncls, ...; take the one with most room */
				int c;

				pv = q->cls;
				for (c = pv + ncls; c < nvo; c += ncls)
					if (sim->cred[cb + (uint64_t)c] >
					    sim->cred[cb + (uint64_t)pv])
						pv = c;
				if (sim->cred[cb + (uint64_t)pv] < (q->bubble ? 2 : 1)) {
					sim->cwait[so] = 1;  /* apply_credits() wakes o */
					continue;
				}
			}
			grant(sim, s, in, v, o, pv, nvi, q, t, dist);
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
	sim->out_next[so] = next;
}

/*
 * Arbitrate every due output of switch s, in port order (so that the
 * result does not depend on how switches were scheduled), then schedule the
 * switch again for its earliest output.
 */
static inline __attribute__((always_inline)) void
switch_step(tt_sim *sim, uint32_t s, uint64_t t, const int dist)
{
	const uint64_t *next = sim->out_next + (uint64_t)s * (uint64_t)sim->np;
	uint32_t m = sim->oreq[s];
	uint64_t first = UINT64_MAX;

	sim->swake[s] = UINT64_MAX;
	while (m) {
		int o = __builtin_ctz(m);

		m &= m - 1;
		if (next[o] <= t)
			arbitrate(sim, s, o, t, dist);
	}
	for (m = sim->oreq[s]; m; m &= m - 1)
		if (next[__builtin_ctz(m)] < first)
			first = next[__builtin_ctz(m)];
	if (first != UINT64_MAX)
		sched_switch(sim, s, first > t ? first : t + 1);
}

/* The switches due in cycle t; entries left from an earlier schedule are
 * skipped. */
static inline __attribute__((always_inline)) void
switches_step(tt_sim *sim, uint64_t t, const int dist)
{
	uint32_t b = (uint32_t)(t & (sim->W2 - 1)), i;

	for (i = 0; i < sim->sw_wheel_n[b]; i++) {
		uint32_t s = sim->sw_wheel[b][i];

		if (sim->swake[s] == t)
			switch_step(sim, s, t, dist);
	}
	sim->sw_wheel_n[b] = 0;
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
	r = src->next(src->ctx, pe + sim->s0, now, &n->sp);
	gen = n->sp.gen;
	if (r != TT_SRC_PACKET) {
		if (r == TT_SRC_LATER)
			nic_sleep(sim, pe, gen > now ? gen : now + 1);
		else
			n->done = 1;
		return 0;
	}
	n->pending = 1;
	sim->res->generated++;
	if (gen < sim->wend)
		sim->early_pending++;
	wake = gen > n->busy ? gen : n->busy;
	if (wake <= now && may_stay)
		return 1;
	nic_sleep(sim, pe, wake);
	return 0;
}

/* Try to inject NIC pe's pending packet in cycle t; 1 if it went. */
static inline __attribute__((always_inline)) int
nic_inject(tt_sim *sim, const tt_source *src, uint32_t pe, uint64_t t)
{
	struct nic *n = &sim->nic[pe];
	int side = side_of(sim, pe), o = sim->np - 1, v, best = -1;
	uint64_t cb = ((uint64_t)pe * (uint64_t)sim->np + (uint64_t)o) * (uint64_t)sim->V;
	struct vcq *q;
	struct pkt *pk;

	if (n->busy > t)
		return 0;
	for (v = 0; v < sim->nvc[side][o]; v++)
		if (sim->cred[cb + (uint64_t)v] > 0 &&
		    (best < 0 || sim->cred[cb + (uint64_t)v] > sim->cred[cb + (uint64_t)best]))
			best = v;
	if (best < 0)
		return 0;
	q = &sim->vcq[cb + (uint64_t)best];
	pk = tail_slot(sim, q);
	pk->gen = n->sp.gen;
	pk->inj = t;
	pk->ready = t + (uint64_t)sim->L + (uint64_t)sim->R;
	pk->src = pe + sim->s0;
	pk->dst = n->sp.dst;
	pk->tag = n->sp.tag;
	pk->hops = pk->out = pk->cls = 0;
	pk->flags = 0;
	if (n->sp.gen >= sim->wstart && n->sp.gen < sim->wend) {
		pk->flags = PKT_MEASURED;
		sim->res->measured++;
	}
	if (n->sp.gen < sim->wend)
		sim->early_pending--;
	sim->cred[cb + (uint64_t)best]--;
	n->busy = t + (uint64_t)sim->P;
	n->pending = 0;
	sim->inflight++;
	sim->res->injected++;
	sim->last_move = t;
	tail_added(sim, pe, o, best, q);
	nic_fetch(sim, src, pe, t, 0);
	return 1;
}

/* ---- deadlock report ---- */

/*
 * Follow blocked heads: a buffer whose ready head cannot go waits for a
 * downstream buffer of its class, which must be full.  Walking those waits
 * from every blocked buffer finds a cycle of full buffers if there is one;
 * it is reported as the channels (card, port, core VC) entering them.
 * st[] has, for every VC of the ns switches (global ids), 0 if it is empty
 * and else 1 << 16 | its head's output << 8 | class; down_sw, down_in and
 * up_cred are wire()'s, with global ids.
 */
static void
deadlock_walk(tt_sim *sim, uint64_t ns, const uint32_t *st,
    const uint32_t *down_sw, const uint8_t *down_in, const uint32_t *up_cred)
{
	const tt_net *net = sim->net;
	uint64_t npv = ns * (uint64_t)sim->np * (uint64_t)sim->V;
	uint32_t *mark = calloc(npv, sizeof(uint32_t));
	uint64_t *path = calloc(npv, sizeof(uint64_t)), *chan = NULL;
	uint64_t start, cur, len;
	uint32_t walk = 0;

	if (mark == NULL || path == NULL)
		goto out;
	for (start = 0; start < npv; start++) {
		if (mark[start] != 0)
			continue;
		walk++;
		len = 0;
		cur = start;
		for (;;) {
			uint64_t si = cur / (uint64_t)sim->V, next = UINT64_MAX;
			uint32_t s = (uint32_t)(si / (uint64_t)sim->np);
			int side = side_of(sim, s), out, cls;
			uint64_t so, ds;
			int c;

			if (mark[cur] == walk) {
				/* the walk closed on itself: path[i..] */
				uint64_t i = 0, j;

				while (path[i] != cur)
					i++;
				chan = calloc(len - i, sizeof(uint64_t));
				if (chan == NULL)
					goto out;
				for (j = i; j < len; j++) {
					uint64_t b = path[j], bsi = b / (uint64_t)sim->V;
					int bv = (int)(b % (uint64_t)sim->V);
					uint64_t up = up_cred[bsi] / (uint64_t)sim->V;
					uint32_t us = (uint32_t)(up / (uint64_t)sim->np);
					int uo = (int)(up % (uint64_t)sim->np), us_side = side_of(sim, us);

					chan[j - i] = (uint64_t)us * (uint64_t)net->chans_per_card +
					    net->chan_base[net->twin ? us_side : 0][uo] +
					    (uint64_t)(bv % sim->ncls[us_side][uo]);
				}
				sim->res->cycle = chan;
				sim->res->cycle_len = len - i;
				goto out;
			}
			if (mark[cur] != 0 || st[cur] == 0)
				break;
			mark[cur] = walk;
			path[len++] = cur;
			out = (int)(st[cur] >> 8 & 0xff);
			cls = (int)(st[cur] & 0xff);
			if (out == sim->np - 1)
				break;
			so = (uint64_t)s * (uint64_t)sim->np + (uint64_t)out;
			ds = (uint64_t)down_sw[so] * (uint64_t)sim->np + down_in[so];
			for (c = cls; c < sim->nvc[side][out]; c += sim->ncls[side][out])
				if (st[ds * (uint64_t)sim->V + (uint64_t)c] != 0) {
					next = ds * (uint64_t)sim->V + (uint64_t)c;
					break;
				}
			if (next == UINT64_MAX)
				break;
			cur = next;
		}
	}
out:
	free(mark);
	free(path);
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
		if (sim->vcq[i].cnt > 0)
			st[i] = 1u << 16 | (uint32_t)sim->vcq[i].out << 8 |
			    sim->vcq[i].cls;
	return st;
}

/* The deadlock's channels, into sim->res (on rank 0 of a partitioned
 * run, which gathers every part's VCs; collective). */
static void
find_deadlock(tt_sim *sim)
{
	uint64_t npo = (uint64_t)sim->ns_all * (uint64_t)sim->np;
	uint64_t pv = (uint64_t)sim->np * (uint64_t)sim->V * sizeof(uint32_t);
	uint32_t *st = vc_states(sim), *all = NULL, *down = NULL, *up = NULL;
	uint8_t *din = NULL;
	uint64_t so;
	int r;

	if (st == NULL && !sim->dist)
		return;         /* no report; the deadlock itself stands */
	if (st == NULL) {
		fprintf(stderr, "tt_sim: out of memory looking for the deadlock\n");
		abort();
	}
	if (!sim->dist) {
		deadlock_walk(sim, sim->ns, st, sim->down_sw, sim->down_in,
		    sim->up_cred);
		free(st);
		return;
	}
	memset(sim->scount, 0, sizeof(uint64_t) * (size_t)sim->comm.nranks);
	memset(sim->rcount, 0, sizeof(uint64_t) * (size_t)sim->comm.nranks);
	sim->scount[0] = (uint64_t)sim->ns * pv;
	if (sim->comm.rank == 0) {
		for (r = 0; r < sim->comm.nranks; r++)
			sim->rcount[r] = (uint64_t)(sim->part[r + 1] - sim->part[r]) * pv;
		all = malloc(npo * (uint64_t)sim->V * sizeof(uint32_t));
		down = malloc(npo * sizeof(uint32_t));
		up = malloc(npo * sizeof(uint32_t));
		din = malloc(npo);
		if (all == NULL || down == NULL || up == NULL || din == NULL) {
			fprintf(stderr, "tt_sim: out of memory gathering the "
			    "deadlock's buffers\n");
			abort();
		}
	}
	sim->comm.alltoallv(sim->comm.ctx, st, sim->scount, all, sim->rcount);
	if (sim->comm.rank == 0) {
		for (so = 0; so < npo; so++)
			wire(sim, (uint32_t)(so / (uint64_t)sim->np),
			    (int)(so % (uint64_t)sim->np), &down[so], &din[so], &up[so]);
		deadlock_walk(sim, sim->ns_all, all, down, din, up);
	}
	free(st);
	free(all);
	free(down);
	free(up);
	free(din);
}

/* ---- the run ---- */

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

				q->head = q->cnt = 0;
				sim->cred[so * (uint64_t)sim->V + (uint64_t)v] =
				    v < sim->nvc[side][o] ? q->cap : 0;
			}
		}
	}
	memset(sim->want, 0, sizeof(uint32_t) * npo * (uint64_t)sim->np);
	memset(sim->oreq, 0, sizeof(uint32_t) * sim->ns);
	for (i = 0; i < npo; i++) {
		sim->out_busy[i] = sim->in_busy[i] = sim->out_next[i] = 0;
		sim->cwait[i] = 0;
		sim->req[i] = 0;
		sim->rr_out[i] = sim->rr_vc[i] = 0;
		sim->link_flits[i] = 0;
	}
	memset(sim->nic, 0, sizeof(struct nic) * sim->ns);
	for (i = 0; i < sim->W; i++)
		sim->wheel_n[i] = 0;
	for (i = 0; i < sim->W2; i++)
		sim->sw_wheel_n[i] = 0;
	for (i = 0; i < sim->ns; i++)
		sim->swake[i] = UINT64_MAX;
	sim->nactive = sim->nsleep = sim->nfar = 0;
	for (i = 0; i < NIC_WHEEL; i++)
		sim->nic_bucket[i] = UINT32_MAX;
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

static void
apply_credits(tt_sim *sim, uint64_t t)
{
	uint32_t b = (uint32_t)(t & (sim->W - 1)), i;

	for (i = 0; i < sim->wheel_n[b]; i++) {
		uint32_t idx = sim->wheel[b][i], so = idx >> sim->vshift;

		sim->cred[idx]++;
		/* a request may have been waiting for this credit */
		if (sim->cwait[so]) {
			uint64_t e = sim->out_busy[so] > t ? sim->out_busy[so] : t;

			sim->cwait[so] = 0;
			if (sim->out_next[so] > e)
				sim->out_next[so] = e;
			sched_switch(sim, so / (uint32_t)sim->np, e);
		}
	}
	sim->wheel_n[b] = 0;
}

/* What decides whether a run stops or jumps: this rank's own counts in a
 * partitioned run until sync() sums them (inflight may wrap: it is
 * injected here minus delivered here, and only the sum means anything). */
struct gstate {
	uint64_t inflight, nactive, nsleep, early_pending, measured,
	    measured_delivered, last_move;
};

static void
gstate_local(const tt_sim *sim, struct gstate *g)
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
stop_now(tt_sim *sim, const struct gstate *g, uint64_t t, int until_empty)
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
			sim->swake[sim->sw_wheel[i][j]] = UINT64_MAX;
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

/* One cycle of every NIC and switch of this part. */
static inline __attribute__((always_inline)) void
cycle(tt_sim *sim, const tt_source *src, uint64_t t, const int dist)
{
	uint32_t i, pe;

	sim->t = t;
	if ((t & (NIC_WHEEL - 1)) == 0)
		nic_far_scan(sim);
	apply_credits(sim, t);
	nic_wake(sim, t);
	for (i = 0; i < sim->nactive; ) {
		pe = sim->active[i];
		/* woken to ask the source again */
		if (!sim->nic[pe].pending &&
		    !nic_fetch(sim, src, pe, t, 1))
			sim->active[i] = sim->active[--sim->nactive];
		else if (nic_inject(sim, src, pe, t))
			sim->active[i] = sim->active[--sim->nactive];
		else
			i++;
	}
	switches_step(sim, t, dist);
}

/* Cycle t, then the progress report every 4096 cycles; the next cycle. */
static inline __attribute__((always_inline)) uint64_t
step(tt_sim *sim, const tt_source *src, uint64_t t, tt_sim_progress progress,
    void *pctx, uint64_t planned, const int dist)
{
	cycle(sim, src, t, dist);
	t++;
	if (progress != NULL && (t & 4095) == 0)
		progress(pctx, planned ? (double)t / (double)planned : -1.0);
	return t;
}

static uint64_t
run_serial(tt_sim *sim, const tt_source *src, int until_empty,
    tt_sim_progress progress, void *pctx, uint64_t planned)
{
	struct gstate g;
	uint64_t t = 0;
	int r;

	for (;;) {
		gstate_local(sim, &g);
		if ((r = stop_now(sim, &g, t, until_empty)) != 0) {
			if (r == 2) {
				sim->res->deadlock = 1;
				find_deadlock(sim);
			}
			break;
		}
		if (sim->inflight == 0 && sim->nactive == 0 && sim->nsleep > 0) {
			uint64_t wake;

			sim->t = t;
			wake = nic_first_wake(sim);
			if (wake > t + sim->W && wake > t + sim->W2) {
				t = jump(sim, t, wake, until_empty);
				continue;
			}
		}
		t = step(sim, src, t, progress, pctx, planned, 0);
	}
	return t;
}

/* Combine nranks rows of n values (row r at all[r * stride]) into out:
 * the sum, or the largest where max[i]. */
static void
combine_rows(const uint64_t *all, int nranks, size_t n, size_t stride,
    uint64_t *out, const unsigned char *max)
{
	size_t i;
	int r;

	for (i = 0; i < n; i++) {
		out[i] = 0;
		for (r = 0; r < nranks; r++) {
			uint64_t v = all[(size_t)r * stride + i];

			if (max != NULL && max[i])
				out[i] = v > out[i] ? v : out[i];
			else
				out[i] += v;
		}
	}
}

void
tt_sim_combine(const tt_sim_comm *comm, uint64_t *v, size_t n,
    const unsigned char *max)
{
	uint64_t *all;

	if (comm == NULL || comm->nranks == 1)
		return;
	all = malloc(sizeof(uint64_t) * n * (size_t)comm->nranks);
	if (all == NULL) {
		fprintf(stderr, "tt_sim: out of memory combining results\n");
		abort();
	}
	comm->allgather(comm->ctx, v, n, all);
	combine_rows(all, comm->nranks, n, n, v, max);
	free(all);
}

void
tt_hist_pack(const tt_hist *h, uint64_t *w)
{
	size_t i;

	w[0] = h->count;
	/* a sum of whole cycles: exact in a double and in a uint64_t */
	w[1] = (uint64_t)h->sum;
	w[2] = h->max;
	for (i = 0; i < TT_HIST_BINS; i++)
		w[3 + i] = h->bin[i];
}

void
tt_hist_unpack(tt_hist *h, const uint64_t *w)
{
	size_t i;

	h->count = w[0];
	h->sum = (double)w[1];
	h->max = w[2];
	for (i = 0; i < TT_HIST_BINS; i++)
		h->bin[i] = (uint32_t)w[3 + i];
}

static void
grow_rbuf(tt_sim *sim, size_t n)
{
	if (n <= sim->rbuf_cap)
		return;
	free(sim->rbuf);
	sim->rbuf_cap = n > 2 * sim->rbuf_cap ? n : 2 * sim->rbuf_cap;
	if ((sim->rbuf = malloc(sim->rbuf_cap)) == NULL) {
		fprintf(stderr, "tt_sim: out of memory for %zu bytes from the "
		    "other ranks\n", sim->rbuf_cap);
		abort();
	}
}

/*
 * End of an epoch: every rank learns the others' state (g, summed) and how
 * much each sends it, then gets what crossed into its part: packets into
 * their input VCs (in their sender's order, which is the order the one
 * upstream output granted them), credits onto the wheel, deliveries to the
 * source.  Everything received is due at or after the next cycle.
 */
static void
sync_epoch(tt_sim *sim, struct gstate *g)
{
	const int R = sim->comm.nranks;
	const size_t stride = SYNC_N + (size_t)R;
	static const unsigned char latest[SYNC_N] = {[6] = 1};  /* last_move */
	uint64_t mine[SYNC_N + 64], *row = mine, sum[SYNC_N], total = 0, sbytes = 0;
	uint64_t moved = 0;
	uint8_t *sb, *p, *end;
	int r;

	if (stride > sizeof(mine) / sizeof(mine[0]) &&
	    (row = malloc(stride * sizeof(uint64_t))) == NULL)
		abort();
	gstate_local(sim, g);
	memcpy(row, g, sizeof(*g));
	for (r = 0; r < R; r++) {
		row[SYNC_N + r] = sim->ob[r].n;
		sbytes += sim->ob[r].n;
	}
	if (sim->sync_all == NULL &&
	    (sim->sync_all = malloc((size_t)R * stride * sizeof(uint64_t))) == NULL)
		abort();
	sim->comm.allgather(sim->comm.ctx, row, stride, sim->sync_all);
	if (row != mine)
		free(row);
	combine_rows(sim->sync_all, R, SYNC_N, stride, sum, latest);
	memcpy(g, sum, sizeof(*g));
	for (r = 0; r < R; r++) {
		sim->rcount[r] = sim->sync_all[(size_t)r * stride + SYNC_N +
		    (size_t)sim->comm.rank];
		sim->scount[r] = sim->ob[r].n;
		total += sim->rcount[r];
	}
	/* collective: skipped only if no rank sends anything */
	for (r = 0; r < R * R; r++)
		moved += sim->sync_all[(size_t)(r / R) * stride + SYNC_N + (size_t)(r % R)];
	if (moved == 0)
		return;
	/* the sends, packed in rank order */
	grow_rbuf(sim, (size_t)(total + sbytes));
	sb = sim->rbuf + total;
	for (r = 0, p = sb; r < R; r++) {
		if (sim->ob[r].n > 0)
			memcpy(p, sim->ob[r].b, sim->ob[r].n);
		p += sim->ob[r].n;
		sim->ob[r].n = 0;
	}
	sim->comm.alltoallv(sim->comm.ctx, sb, sim->scount, sim->rbuf, sim->rcount);
	for (p = sim->rbuf, end = sim->rbuf + total; p < end; ) {
		uint32_t kind;

		memcpy(&kind, p, sizeof(kind));
		if (kind == MSG_PKT) {
			struct msg_pkt m;
			uint32_t ds;
			struct vcq *dq;

			memcpy(&m, p, sizeof(m));
			p += sizeof(m);
			ds = m.ds - sim->s0;
			dq = &sim->vcq[((uint64_t)ds * (uint64_t)sim->np +
			    m.din) * (uint64_t)sim->V + m.pv];
			*tail_slot(sim, dq) = m.pk;
			tail_added(sim, ds, m.din, m.pv, dq);
		} else if (kind == MSG_CRED) {
			struct msg_cred m;

			memcpy(&m, p, sizeof(m));
			p += sizeof(m);
			credit_later(sim, m.when, m.idx - sim->s0 *
			    (uint32_t)(sim->np * sim->V));
		} else {
			struct msg_dlv m;

			memcpy(&m, p, sizeof(m));
			p += sizeof(m);
			sim->on_deliver(sim->deliver_ctx, &m.d);
		}
	}
}

/* The earliest wake-up of a sleeping NIC on any rank. */
static uint64_t
first_wake_all(tt_sim *sim, uint64_t t)
{
	uint64_t mine, best = UINT64_MAX;
	int r;

	sim->t = t;
	mine = sim->nsleep > 0 ? nic_first_wake(sim) : UINT64_MAX;
	sim->comm.allgather(sim->comm.ctx, &mine, 1, sim->sync_all);
	for (r = 0; r < sim->comm.nranks; r++)
		if (sim->sync_all[r] < best)
			best = sim->sync_all[r];
	return best;
}

/*
 * A partitioned run: epochs of cycles between syncs.  Whatever a cycle t
 * does to another part lands at t + L or later (a packet's head is ready
 * at t + L + R, a credit arrives at t + P - 1 + L), so an epoch of up to L
 * cycles (the lookahead) needs nothing from the others until it ends.  The
 * stop rules are checked at every epoch's start on the summed state, and
 * epochs end where the serial run could stop: no later than the
 * watchdog's first chance, one cycle at a time from the window's end, and
 * one at a time for runs until empty.
 */
static uint64_t
run_dist(tt_sim *sim, const tt_source *src, int until_empty,
    tt_sim_progress progress, void *pctx, uint64_t planned)
{
	struct gstate g;
	uint64_t t = 0, e, n, fire;
	int r;

	for (;;) {
		sync_epoch(sim, &g);
		if ((r = stop_now(sim, &g, t, until_empty)) != 0) {
			if (r == 2) {
				sim->res->deadlock = 1;
				find_deadlock(sim);
			}
			break;
		}
		if (g.inflight == 0 && g.nactive == 0 && g.nsleep > 0) {
			uint64_t wake = first_wake_all(sim, t);

			if (wake > t + sim->W && wake > t + sim->W2) {
				t = jump(sim, t, wake, until_empty);
				continue;
			}
		}
		n = (uint64_t)sim->L;
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
			t = step(sim, src, t, progress, pctx, planned, 1);
	}
	return t;
}

/* The run's counters, as every rank's sums (a partitioned run). */
static void
reduce_result(tt_sim *sim, tt_simresult *res, uint64_t *backlog,
    uint64_t *internal, uint64_t *nint)
{
	enum { NFIX = 12, N = NFIX + 2 * TT_HIST_WORDS };
	static unsigned char max[N];
	uint64_t *v = calloc(N, sizeof(uint64_t));

	if (v == NULL) {
		fprintf(stderr, "tt_sim: out of memory gathering the results\n");
		abort();
	}
	max[NFIX + 2] = max[NFIX + TT_HIST_WORDS + 2] = 1;     /* hist max */
	v[0] = res->generated;
	v[1] = res->injected;
	v[2] = res->delivered;
	v[3] = res->flits_window;
	v[4] = res->packets_window;
	v[5] = res->measured;
	v[6] = res->measured_delivered;
	v[7] = res->hops_sum;
	v[8] = sim->traversals;
	v[9] = *backlog;
	v[10] = *internal;
	v[11] = *nint;
	tt_hist_pack(&res->net_lat, v + NFIX);
	tt_hist_pack(&res->e2e_lat, v + NFIX + TT_HIST_WORDS);
	tt_sim_combine(&sim->comm, v, N, max);
	res->generated = v[0];
	res->injected = v[1];
	res->delivered = v[2];
	res->flits_window = v[3];
	res->packets_window = v[4];
	res->measured = v[5];
	res->measured_delivered = v[6];
	res->hops_sum = v[7];
	sim->traversals = v[8];
	*backlog = v[9];
	*internal = v[10];
	*nint = v[11];
	tt_hist_unpack(&res->net_lat, v + NFIX);
	tt_hist_unpack(&res->e2e_lat, v + NFIX + TT_HIST_WORDS);
	free(v);
}

/* Every output's window flits from every rank, into link_all. */
static void
gather_links(tt_sim *sim)
{
	const int R = sim->comm.nranks;
	uint64_t most = 0, *all;
	size_t np = (size_t)sim->np, i;
	int r;

	for (r = 0; r < R; r++)
		if (sim->part[r + 1] - sim->part[r] > most)
			most = sim->part[r + 1] - sim->part[r];
	free(sim->link_all);
	sim->link_all = calloc((size_t)sim->ns_all * np, sizeof(uint64_t));
	all = calloc((size_t)R * most * np, sizeof(uint64_t));
	if (sim->link_all == NULL || all == NULL) {
		fprintf(stderr, "tt_sim: out of memory gathering link counts\n");
		abort();
	}
	{
		uint64_t *mine = calloc(most * np > 0 ? most * np : 1, sizeof(uint64_t));

		if (mine == NULL)
			abort();
		memcpy(mine, sim->link_flits, (size_t)sim->ns * np * sizeof(uint64_t));
		sim->comm.allgather(sim->comm.ctx, mine, most * np, all);
		free(mine);
	}
	for (r = 0; r < R; r++)
		for (i = 0; i < (size_t)(sim->part[r + 1] - sim->part[r]) * np; i++)
			sim->link_all[(size_t)sim->part[r] * np + i] =
			    all[(size_t)r * most * np + i];
	free(all);
}

int
tt_sim_run(tt_sim *sim, const tt_source *src, int until_empty,
    tt_simresult *res, tt_sim_progress progress, void *pctx)
{
	uint64_t t, planned, internal = 0, nint = 0, backlog = 0;
	uint32_t s, pe;

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
	for (pe = 0; pe < sim->ns; pe++)
		nic_fetch(sim, src, pe, 0, 0);
	if (sim->dist)
		t = run_dist(sim, src, until_empty, progress, pctx, planned);
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
		res->measure_cycles = sim->p.measure;
	}
	if (!until_empty)
		backlog = backlog_in_window(sim, src);
	if (sim->net->twin) {
		for (s = 0; s < sim->ns; s++) {
			int o = sim->net->local_port[side_of(sim, s)][TT_PORT_INT];

			internal += sim->link_flits[(uint64_t)s * (uint64_t)sim->np + (uint64_t)o];
			nint++;
		}
	}
	if (sim->dist) {
		reduce_result(sim, res, &backlog, &internal, &nint);
		if (sim->gather_links)
			gather_links(sim);
	}
	res->traversals = sim->traversals;
	{
		double n = (double)sim->ns_all, w = (double)res->measure_cycles;

		if (w < 1)
			w = 1;
		res->measured_generated = res->measured + backlog;
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
		if (sim->net->twin)
			res->internal_link_utilization = (double)internal /
			    ((double)nint * w);
	}
	sim->res = NULL;
	return res->deadlock ? 1 : 0;
}
