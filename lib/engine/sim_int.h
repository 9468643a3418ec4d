/*
 * The network model's state, shared by the files that make up the engine
 * and private to lib/ (prototypes grouped by the file that defines them):
 *   sim_build.c     parameters, layout, memory, the switches and wiring
 *   sim.c           the run: switches, NICs, the cycle loops
 *   sim_part.c      the partition: parts, boundary exchange, gathering
 *   sim_window.c    the measurement window: its batches, the steady-state
 *                   test, and the warm-up extended until it passes
 *   sim_deadlock.c  the deadlock's channels, when the watchdog fires
 *   sim_reduce.c    how each per-rank count combines (rows)
 *   hist.c          the latency histogram
 *
 * Everything lives in flat arrays sized once when the simulator is built;
 * the cycle loop allocates nothing.  Indices:
 *   s            switch = card id (minus s0 in a partitioned run)
 *   s*np + o     a port of a switch (o < np-1: card_port order, np-1: PE)
 *   (s*np+o)*V+v a VC of that port (V = the most VCs any port has)
 * An input VC is a queue of packets linked through the packets
 * themselves; cred[] holds, for every output VC, the free places of the
 * input VC at the other end of the link.  For the PE port, cred[] holds
 * the NIC's credits for injecting into the switch.
 *
 * Packets live in one pool (sim->slot) and do not move: a hop relinks a
 * packet from one VC's queue to the next one's.  The pool has room for
 * every buffer full at once, but it is handed out from its start (a
 * packet delivered is the next one reused), so the memory a run touches
 * follows the packets in flight, not the buffers' size: a network of
 * millions of switches at a moderate load needs a small part of it.
 */
#ifndef TWINTORUS_SIM_INT_H
#define TWINTORUS_SIM_INT_H

#include <stdint.h>
#include <string.h>

#include "engine/sim_part.h"
#include "twintorus/sim.h"

#define PKT_BUBBLE   0x01
#define PKT_MEASURED 0x02

/*
 * A packet, one cache line: a hop reads and writes it in one miss.  The
 * head of a VC also carries what the arbiters read about it (out, cls,
 * bubble, set by sim.c's head_route()) and the VC's last packet (tail),
 * so that a VC's own record is one word (struct vcq).
 */
struct pkt {
	uint64_t gen;       /* generated at the source NIC */
	uint64_t inj;       /* head left the NIC */
	uint64_t ready;     /* head may cross this switch from this cycle */
	uint32_t src, dst;
	uint8_t hops;       /* links between switches crossed so far */
	uint8_t tie;        /* tt_pktroute.tie_neg (TT_TIES_RANDOM) */
	uint8_t ring;       /* tt_pktroute.ring_cls (TT_RINGVC_ENTRY) */
	uint8_t flags;
	uint32_t tag;       /* the source's, handed back on delivery */
	uint16_t flits;     /* its length, 1..P (tt_srcpkt.flits) */
	uint8_t out;        /* head: output port (local index) */
	uint8_t cls;        /* head: VC class on that output; with VCQ_FIXED
	                     * (ext runs), the one VC it may take (a type-1
	                     * lane) */
	uint32_t next;      /* the next packet of its VC (PKT_NONE after
	                     * the last), of the free list, or of the far
	                     * list (on a long link) */
	union {
		uint32_t far_ds;    /* on a long link (sim.c's
		                     * far_pkt_push()): the VC it joins */
		uint32_t tail;      /* head: its VC's last packet */
	};
	uint8_t far_din, far_pv;
	uint8_t bubble;     /* head: enters a ring under bubble */
	uint64_t dco;       /* with sim->dco: its destination's node
	                     * coordinates as one word (sim_dco()) */
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct pkt) == 64, "struct pkt is a cache line");
#define PKT_NONE UINT32_MAX

/*
 * An input VC: its head packet in sim->slot, PKT_NONE when empty.  The
 * rest of what the arbiters read about the head is in the head itself
 * (struct pkt), which the prefetching loop asks for a stage after the VC
 * (sim.c's pf_arbitration()); one word a VC is what lets a network of
 * millions of switches with many VCs a port fit in memory.  A VC holds
 * at most 255 packets (check_params() refuses more: a credit count is a
 * byte).
 */
struct vcq {
	uint32_t head;
};
_Static_assert(sizeof(struct vcq) == 4, "struct vcq is a word");
_Static_assert(TT_MAX_VCS <= 0x80, "a VC number leaves VCQ_FIXED free");
#define VCQ_FIXED 0x80

#define VC_MAX_PKTS 255

/*
 * A port, as output and as input, in one record of a cache line rather
 * than an array per field: its arbitration state, its wiring and its
 * window count.  A hop reads and writes most of these fields of two
 * ports of its switch and two of the next, and in a large network each
 * array was another cache miss.
 */
struct port {
	uint64_t out_busy;  /* output: the link is free from this cycle */
	uint64_t out_next;  /* output: no grant can happen before this
	                     * cycle (a lower bound, see arbitrate()) */
	uint64_t in_busy;   /* input: busy sending until this cycle */
	uint64_t win_flits; /* output: flits sent inside the window */
	uint32_t req;       /* output: input ports with a head wanting it */
	uint32_t down_sw;   /* output: the switch at the far end, REMOTE
	                     * if another rank's */
	uint32_t up_cred;   /* input: cred[] index (vc 0) of the output
	                     * feeding it, REMOTE if another rank's */
	uint8_t down_in;    /* output: the far end's input port */
	uint8_t cwait;      /* output: a request waits for credits */
	uint8_t rr_out;     /* output: next input port to favour */
	uint8_t rr_vc;      /* input: next VC to favour */
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct port) == 64, "struct port is a cache line");

/*
 * A switch's routing table where a lookup reads one word (sim->dco: at
 * most four dimensions), one cache line: the node's coordinates (as
 * tt_rtable.here, read as one word), the hops to its PEs and the rows of
 * its dimensions, shared between switches (sim_build.c).  Networks of
 * more dimensions keep tt_rtable_build()'s tables instead (sim->rtx).
 */
struct sim_rt {
	uint16_t here[4];
	tt_hop local[2];
	tt_hop *dim[4];
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct sim_rt) == 64, "struct sim_rt is a cache line");

/* A shaped link's token bucket (tt_simparams.shape_rate): tok 1/65536
 * flits as of cycle t. */
struct bucket {
	uint64_t t, tok;
};

/* A switch's own scheduling, both read whenever it is touched. */
struct sw {
	uint64_t wake;      /* its next arbitration (sw_wheel), UINT64_MAX
	                     * when not scheduled */
	uint32_t oreq;      /* outputs with a nonzero req */
	uint32_t pad;
};

struct nic {
	tt_srcpkt sp;       /* the pending packet, written by the source */
	uint8_t pending, done;  /* neither: asleep until the source has one */
	uint8_t waiting;        /* TT_SRC_WAIT: on no list until tt_sim_wake() */
	uint32_t seq;       /* packets injected (a packet's tie bits) */
	uint64_t busy;      /* injection link free from this cycle */
	uint64_t wake;      /* while asleep: when the NIC has work */
};

#define NIC_WHEEL 1024
/*
 * The reach of the wheels.  The credit wheel has room for credits due
 * within P + min(L, WHEEL_NEAR_L) cycles, the switch wheel for wake-ups
 * within max(P, min(L + R, SW_NEAR)) cycles; whatever a longer link
 * sends waits in a far list (sim.c) until it comes within reach, so
 * that neither wheel grows with L (sim_build.c's wheel sizes).  A
 * packet's turn at the next switch is L + R after its grant, P - 1 more
 * under store and forward: beyond the switch wheel, it takes the far
 * lists too.
 */
#define WHEEL_NEAR_L 64
#define SW_NEAR 30
/* A credit due beyond the credit wheel: due (its low 32 bits, within
 * 2^31 of now as L <= TT_LATENCY_MAX), cred[] index, the next in the far
 * list or its free list. */
struct far_cred {
	uint32_t due, idx, next;
};
#define LAG 16      /* a power of two */
/* down_sw or up_cred of a link whose far end is another rank's */
#define REMOTE UINT32_MAX

/* The partition's own state (sim_part.c). */
struct sim_part;

/* What a batch of the measurement window counts: the packets whose tail
 * reached their PE in it, and their end-to-end and network latencies
 * summed. */
struct sim_batch {
	uint64_t pkts, flits, lat, nlat;
};

/* T1PV_NONE in t1pv[]: the class has one VC, or the hop is not type 1. */
#define T1PV_NONE 0xff

struct tt_sim {
	const tt_net *net;
	tt_simparams p;
	uint32_t ns;            /* switches */
	int np, V, vshift;      /* ports per switch (PE port last), VC stride
	                         * (a power of two, 1 << vshift) */
	int P, R, L;
	uint64_t so, ro;        /* send_overhead, recv_overhead */
	uint64_t saf;           /* store_forward: 1, or 0 */
	uint32_t side_mask;     /* 1 for twin tori: card & 1 is the side */
	int nvc[2][TT_NPORTS];  /* VCs per local port, by card side */
	int ncls[2][TT_NPORTS]; /* the core's VC classes on that port */
	int port_id[2][TT_NPORTS];

	struct vcq *vcq;        /* ns*np*V */
	struct pkt *slot;       /* the pool: nslot packets, mapped (sim_build.c) */
	uint64_t nslot;
	uint32_t pool_free;     /* a list through pkt.next, PKT_NONE if empty */
	uint32_t pool_top;      /* packets [pool_top, nslot) never used yet */
	uint8_t pcap[2][TT_NPORTS]; /* packets per VC of a local input port */
	/*
	 * Grants into this part's switches whose packet has yet to join its
	 * VC there (large networks, sim->big; elsewhere a packet joins at its
	 * grant, sim.c's join()): a grant lists it and prefetches what
	 * joining reads; it joins LAG grants later, or when the cycle's
	 * switches are done (sim.c's lag_push()).  Nothing in the cycle
	 * reads it before: its head is ready L + R cycles after the grant.
	 */
	struct lag { uint32_t ds, idx; uint8_t din, pv; } lag[LAG];
	uint32_t nlag, lag0;
	uint8_t *cred;          /* ns*np*V (<= VC_MAX_PKTS) */
	struct port *port;      /* ns*np */
	uint32_t *want;         /* (ns*np+in)*np+o: VCs of in whose head wants o */
	struct sw *sw;          /* ns */
	struct sim_rt *rt;      /* ns, with sim->dco; their rows shared
	                         * (sim_build.c) */
	tt_rtable *rtx;         /* ns, without it */
	struct sim_rows *rows;
	uint64_t *link_flits;   /* ns*np: port[].win_flits after a run */
	struct bucket *bkt;     /* ns*np, shaped links only (NULL: none) */

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

	uint32_t **wheel;       /* credit returns, by cycle mod W, in one
	                         * mapping (sim_build.c's wheel_map()) */
	uint32_t *wheel_n;
	uint32_t W;
	void *wheel_map, *sw_wheel_map;
	size_t wheel_len, sw_wheel_len;
	/*
	 * Beyond the wheels (sim.c's far lists): credits due W or more
	 * cycles ahead, in the order they were sent, from records mapped
	 * like the pool (fcred, nfc of them, a free list and a top); and
	 * packets on links whose L + R the switch wheel does not reach
	 * (far_pkts), linked through pkt.next in the order they were sent.
	 */
	struct far_cred *fcred;
	uint64_t nfc;
	uint32_t fc_head, fc_tail, fc_free, fc_top, fc_n;
	uint32_t fp_head, fp_tail, fp_n;
	int far_pkts;
	uint32_t epoch;         /* the longest epoch of a partitioned run */

	/* switches due for arbitration, by cycle mod W2: a switch is listed
	 * at the earliest out_next of its requested outputs (sw[].wake) */
	uint32_t **sw_wheel;
	uint32_t *sw_wheel_n;
	uint32_t W2;
	/* a bit a switch, for visiting a cycle's switches in the order of
	 * their records (due_in_order(): big networks); all clear
	 * between cycles */
	uint64_t *due;

	/*
	 * Runs whose hops need more than the table's class (sim_build.c's
	 * sim_layout() decides): a type-1 class with several VCs on the
	 * internal link takes the one of its output port (seed 000 §7.1
	 * footnote 5; t1pv[class][port]: the VC, or T1PV_NONE), and the
	 * rules a packet carries state for (ties, ring classes) route each
	 * hop through tt_route_pkt().  The cycle loop has a copy without
	 * them (ext = 0) for every other run, plain tori among them.  The
	 * far lists are only looked at in the ext copy, which gives any run
	 * the same results: a run on links the wheels do not reach (far)
	 * takes it.
	 */
	int ext, pkt_route, far;
	/* the switches' state is far larger than the caches: the cycle loop
	 * prefetches (sim.c) */
	int big;
	/* a table lookup compares coordinates as one word (sim_lookup()):
	 * at most four dimensions, on a little-endian machine */
	int dco;
	int bubble_dl;          /* net->deadlock == TT_DL_BUBBLE */
	uint8_t t1pv[TT_MAX_VCS][TT_MAX_EXT];

	tt_sim_deliver_fn on_deliver;
	void *deliver_ctx;
	tt_sim_deliver_fn on_arrive;    /* partitioned: see tt_sim_on_arrive() */
	void *arrive_ctx;

	/* the run in progress */
	uint64_t t, wstart, wend, last_move, inflight, traversals;
	uint64_t early_pending;     /* NICs holding a packet generated < wend */
	tt_simresult *res;

	/*
	 * The window's batches (sim_window.c): batch[0..nb) cut [wstart,
	 * wend) into equal parts (the last takes the remainder), batch[nb]
	 * takes deliveries outside it.  dbatch is the batch of a delivery of
	 * P flits granted in the current cycle: its tail arrives P - 1 + L
	 * cycles later and the PE has it doff = P - 1 + L + recv_overhead
	 * cycles later.  wdone: the window's end has been dealt with.
	 */
	struct sim_batch *batch, *dbatch;
	struct sim_batch *bglob;    /* nb: every rank's batches, summed */
	uint64_t blen, doff;
	uint64_t wfull;             /* a P-flit transfer from cycle t lies wholly
	                             * inside the window iff t - wstart < wfull */
	int nb, wdone;
	double tcrit;               /* t(0.995, nb - 2), for the trend test */

	/*
	 * A partitioned run (tt_sim_create_part()): this process holds
	 * switches [s0, s0 + ns) of ns_all, and every array above is indexed
	 * by the local id s - s0.  A link to another part has down_sw (or
	 * up_cred) REMOTE; sim_part.c knows where it leads.
	 */
	uint32_t s0, ns_all;
	int dist;
	struct sim_part *part;
};

/* What decides whether a run stops or jumps: this rank's own counts in a
 * partitioned run until sim_part_sync() combines them (inflight may wrap:
 * it is injected here minus delivered here, and only the sum means
 * anything).  sim_reduce.c's table says how each field combines. */
struct sim_gstate {
	uint64_t inflight, nactive, nsleep, early_pending, measured,
	    measured_delivered, last_move;
};

static inline int
side_of(const tt_sim *sim, uint32_t s)
{
	return (int)(s & sim->side_mask);
}

/* The local index of the output that port id `port` of a switch on
 * card side `side` is (the PE's for TT_PORT_NIC). */
static inline int
sim_lport(const tt_sim *sim, int side, int port)
{
	return port == TT_PORT_NIC ? sim->np - 1 :
	    sim->net->local_port[side][port];
}

/* Switch s's routing table, in whichever form it has (sim->dco: struct
 * sim_rt, else tt_rtable): what prefetching asks for, and the row of
 * dimension d. */
static inline const void *
sim_table_of(const tt_sim *sim, uint32_t s)
{
	return sim->dco ? (const void *)&sim->rt[s] : (const void *)&sim->rtx[s];
}

static inline tt_hop *
sim_table_row(const tt_sim *sim, uint32_t s, int d)
{
	return sim->dco ? sim->rt[s].dim[d] : sim->rtx[s].dim[d];
}

/*
 * A cycle's list of n switches, rewritten in the order of their records,
 * each once; returns how many.  On a network larger than the caches the
 * records of switches visited in turn then share lines, pages and the
 * memory's open rows, where the order they were scheduled in scatters
 * them.  The order changes no result (see the top of sim.c), and a
 * switch listed twice would be skipped the second time anyway: its step
 * moves its wake-up past t.
 */
static inline uint32_t
due_in_order(tt_sim *sim, uint32_t *list, uint32_t n)
{
	uint64_t *due = sim->due;
	uint32_t i, w, k = 0, nw = (sim->ns + 63) / 64;

	for (i = 0; i < n; i++)
		due[list[i] >> 6] |= (uint64_t)1 << (list[i] & 63);
	for (w = 0; w < nw; w++) {
		uint64_t m = due[w];

		if (m == 0)
			continue;
		due[w] = 0;
		for (; m; m &= m - 1)
			list[k++] = w * 64 + (uint32_t)__builtin_ctzll(m);
	}
	return k;
}

/*
 * The word sim_lookup() compares: PE dst's node coordinates, 16 bits
 * each, dimension 0 lowest, the lanes beyond the last dimension 0 (as
 * struct sim_rt's here[] read as one word).  Only with sim->dco.
 */
static inline uint64_t
sim_dco(const tt_sim *sim, uint32_t dst)
{
	const tt_net *net = sim->net;
	uint64_t w = 0;

	memcpy(&w, net->coord + (size_t)tt_card_node(net, dst) *
	    (size_t)net->n, (size_t)net->n * sizeof(*net->coord));
	return w;
}

/*
 * tt_rtable_lookup() for packet pk at a switch with table rt, in fewer
 * steps (sim->dco): the first dimension whose digit differs is the lowest
 * lane in which the packet's word and the switch's coordinates differ,
 * found at once instead of one dimension at a time.  The same hop.
 */
static inline tt_hop
sim_lookup(const tt_sim *sim, const struct sim_rt *rt, const struct pkt *pk,
    const int *ids, int in)
{
	uint64_t here, x;
	tt_hop h;
	int sh;

	memcpy(&here, rt->here, sizeof(here));
	x = pk->dco ^ here;
	if (x == 0) {
		h = rt->local[pk->dst & sim->side_mask];
	} else {
		sh = __builtin_ctzll(x) & ~15;
		h = rt->dim[sh >> 4][(uint16_t)(pk->dco >> sh)];
	}
	/* the input's port id is ids[in], read only where it matters */
	h.bubble = sim->bubble_dl ? (uint8_t)tt_route_bubble(sim->net,
	    ids[in], &h) : 0;
	return h;
}

/* ---- sim_build.c ---- */

/* Whether net's tables are looked up in one word (sim->dco). */
int sim_dco_ok(const tt_net *net);

/* VC counts and port ids of every local port (sim->net, p, np set). */
void sim_layout(tt_sim *sim);
/* tmp, zeroed, holding only net's layout under p: for the planners. */
void sim_layout_of(tt_sim *tmp, const tt_net *net, const tt_simparams *p);
/* Bytes the switches of a part of ns switches (even for a twin torus:
 * whole nodes) allocate, apart from what the partition adds. */
uint64_t sim_memory_switches(const tt_net *net, const tt_simparams *p,
    uint64_t ns);
/* The longest epoch of a partitioned run (<= L). */
uint32_t sim_epoch(const tt_simparams *p);
/* Whether a part of ns switches takes the prefetching loop (sim->big),
 * share parts of its size sharing one machine's caches. */
int sim_big(const tt_net *net, const tt_simparams *p, uint64_t ns,
    int share);
/* A simulator of switches [first, end), not yet allocated; NULL if out of
 * memory. */
tt_sim *sim_new(const tt_net *net, const tt_simparams *p, uint32_t first,
    uint32_t end);
/* The switches' arrays, routing tables and wiring; -1 if out of memory. */
int sim_build(tt_sim *sim);
/* The far end of output o of global switch g: its switch and input port,
 * and the cred[] index (vc 0, global) of the output feeding input o. */
void sim_wire(const tt_sim *sim, uint32_t g, int o, uint32_t *down,
    uint8_t *din, uint32_t *up);

/* ---- sim.c ---- */

/* Another rank's packet enters input VC (ds, din, pv) (local ids); its
 * credit comes back at `when` to cred[idx] (local). */
void sim_receive_packet(tt_sim *sim, uint32_t ds, int din, int pv,
    const struct pkt *pk);
void sim_receive_credit(tt_sim *sim, uint64_t when, uint32_t idx);
/* The earliest wake-up of this part's sleeping NICs, UINT64_MAX if none. */
uint64_t sim_first_wake(tt_sim *sim, uint64_t t);
/* For the unit tests: empty buffers and no window (as a run until empty),
 * ready for a state built with sim_receive_packet() and credits written
 * by hand; then cycles [from, to) of a serial run, ext rules on. */
void sim_test_start(tt_sim *sim, tt_simresult *res);
void sim_test_cycles(tt_sim *sim, const tt_source *src, uint64_t from,
    uint64_t to);

/* ---- sim_window.c ---- */

/* The batches of the window [wstart, wend), empty; set before a run. */
void sim_window_reset(tt_sim *sim);
/* The batch a delivery whose tail arrives in cycle `at` counts in. */
static inline struct sim_batch *
sim_batch_at(const tt_sim *sim, uint64_t at)
{
	uint64_t a = at - sim->wstart, b;

	if (at < sim->wstart || at >= sim->wend)
		return &sim->batch[sim->nb];
	b = a / sim->blen;
	return &sim->batch[b < (uint64_t)sim->nb ? b : (uint64_t)sim->nb - 1];
}
/*
 * The window ends at cycle t: its batches are tested for a steady state
 * (into sim->res), and when the run may extend its warm-up and the test
 * failed, the window becomes warm-up and a new one starts at t.  Every
 * rank of a partitioned run calls it at the same cycle (collective).
 */
void sim_window_end(tt_sim *sim, uint64_t t);
/* The packets delivered inside the window, and their flits, from this
 * part's batches. */
uint64_t sim_window_packets(const tt_sim *sim);
uint64_t sim_window_flits(const tt_sim *sim);

/* ---- sim_part.c ---- */

void sim_part_free(struct sim_part *part);
/* Boundary traffic of this epoch, for the rank holding its far end. */
void sim_part_send_packet(tt_sim *sim, uint64_t so, int pv,
    const struct pkt *pk);
void sim_part_send_credit(tt_sim *sim, uint64_t si, int v, uint64_t when);
void sim_part_send_delivery(tt_sim *sim, const tt_delivery *d);
/* Room for the deliveries the other ranks report to this one's sources,
 * before a delivery callback is set.  0, or -1 with err on every rank if
 * one ran out of memory; collective. */
int sim_part_deliveries(tt_sim *sim, char *err, size_t errsz);
/* The end of an epoch: g, this rank's, becomes every rank's combined, and
 * what crossed into this part is in.  Collective. */
void sim_part_sync(tt_sim *sim, struct sim_gstate *g);
/* The earliest wake-up of a sleeping NIC on any rank.  Collective. */
uint64_t sim_part_first_wake(tt_sim *sim, uint64_t t);
/* After the run: res holds every rank's totals, and the links are
 * gathered if asked for.  Collective. */
void sim_part_finish(tt_sim *sim, tt_simresult *res);
/* The gathered window flits of every output, NULL if not gathered. */
const uint64_t *sim_part_links(const tt_sim *sim);
/* Every rank learns whether every rank got this far: 0, or -1 with
 * *bad_rank the first that did not.  Collective; uses no memory. */
int sim_part_all_ok(const tt_sim_comm *comm, int ok, int *bad_rank);
/* words[] of every switch (per_switch words each) to rank 0, in switch
 * order, into *all (rank 0's to free).  0, or -1 on every rank if one
 * ran out of memory (mine NULL says this one did).  Collective. */
int sim_part_gather(tt_sim *sim, const uint32_t *mine, uint64_t per_switch,
    uint32_t **all);
/* v[0..n) summed over every rank, in place.  Collective. */
void sim_part_sum(tt_sim *sim, uint64_t *v, size_t n);
/* This process's rank (0 for a serial run). */
int sim_part_rank(const tt_sim *sim);

/* ---- sim_deadlock.c ---- */

/* The deadlock's channels, into sim->res (on rank 0 of a partitioned run,
 * which gathers every part's VCs; collective there).  Out of memory, there
 * is no report; the deadlock itself stands. */
void sim_find_deadlock(tt_sim *sim);

/* ---- sim_reduce.c ---- */

/* The engine's counts that cross ranks, each a table of rows. */
enum sim_set {
	SIM_SET_RUN,            /* tt_simresult: a run's totals */
	SIM_SET_EPOCH,          /* struct sim_gstate: the stop rules' state */
};

const tt_sim_row *sim_rows(enum sim_set set, size_t *n);
/* 64-bit words of rows, and the most of the engine's tables (the
 * scratch a partitioned run keeps, sim_part.c: at least a histogram). */
size_t sim_reduce_words(const tt_sim_row *rows, size_t nrows);
size_t sim_reduce_words_max(void);
/* obj's rows as words, in row order. */
void sim_reduce_pack(const tt_sim_row *rows, size_t nrows, const void *obj,
    uint64_t *w);
/* obj from nranks packed rows (row r at all + r * stride), combined. */
void sim_reduce_rows(const tt_sim_row *rows, size_t nrows, void *obj,
    const uint64_t *all, int nranks, size_t stride);
/* obj combined in place over every rank, with buf (bufn words, at least
 * one) for scratch, in as many transport calls as it needs.  Collective;
 * nothing for one rank. */
void sim_reduce_all(const tt_sim_comm *comm, const tt_sim_row *rows,
    size_t nrows, void *obj, uint64_t *buf, size_t bufn);

#endif
