/*
 * twintorus: the cycle-accurate network model (seed 000 §7.1).
 *
 * One switch per card.  A switch has the card's external ports, the internal
 * link (twin nodes) and one port to its PE.  It is input-queued: every input
 * port holds buffer_flits, split evenly among its VCs (or, for a hardware
 * model, vc_flits per VC).  Switching is virtual
 * cut-through: a packet goes to the next switch only when the downstream VC
 * has room for the whole packet (two packets when it enters a ring under the
 * bubble scheme), flow control is credit-based, and each output port runs a
 * two-stage round-robin arbiter: an input port first, then one of its VCs.
 *
 * Timing, in cycles (R = router_latency, L = link_latency, P = packet_flits):
 *   - a flit sent on a link in cycle t is in the downstream buffer in t + L;
 *   - a head flit in a buffer in cycle a can cross the switch in a + R at the
 *     earliest, if its input port and output port are free;
 *   - a link and a crossbar input carry one flit per cycle, so a granted
 *     packet holds both for P cycles;
 *   - a credit for a buffer slot leaves when the tail flit leaves the slot and
 *     is usable upstream L cycles later.
 * R and L go up to 2^24 cycles (TT_LATENCY_MAX: a software switch's hop)
 * and the engine's memory does not grow with them.
 * A packet of f flits (P, or fewer: tt_srcpkt.flits) that crosses H links
 * between switches (cables and internal links) therefore has a zero-load
 * network latency of
 *     (H + 1) * (R + L) + L + f - 1
 * from its head leaving the PE to its tail arriving at the destination PE
 * (store_forward: H * (f - 1) more, a wait for the tail at each switch the
 * links lead to); the PE has it recv_overhead cycles later, and its head
 * left the PE no earlier than send_overhead cycles after it was
 * generated.
 *
 * Buffers are counted in whole packets: floor(flits per VC / P) slots, and
 * a short packet takes a whole slot.  With packets of P flits that is
 * exactly the flit-level credit count (a VCT check "free >= P flits" can
 * only pass on a whole free slot), so the model is cycle-accurate at flit
 * level while it moves packets, which is what makes it fast; a short
 * packet holds less buffer in hardware than here.
 *
 * Randomness comes only from the traffic source, which draws from one stream
 * per PE; switches make no random choices.  The decisions of a switch in
 * cycle t depend only on its own state and on what other switches did up to
 * cycle t - L, so the order in which switches are visited does not matter.
 */
#ifndef TWINTORUS_SIM_H
#define TWINTORUS_SIM_H

#include <stdint.h>
#include "twintorus/params.h"
#include "twintorus/topo.h"
#include "twintorus/api.h"

TT_BEGIN_DECLS

typedef struct tt_simparams {
	tt_netparams net;       /* packet_flits P (default 4) and buffer_flits
	                         * per input port (128), seed 000 §7.1;
	                         * flit_bytes and link_gbps: the cycle's
	                         * length (twintorus/params.h) */
	int vcs;                /* minimum VCs per port; 0: 4 under vc, else 1 */
	int router_latency;     /* R; default 1 */
	int link_latency;       /* L; default 1 */
	uint64_t warmup;        /* cycles before measuring; default 2000 */
	uint64_t measure;       /* measurement window; default 10000 */
	uint64_t drain;         /* most cycles to wait for measured packets;
	                         * default 20000 */
	uint64_t watchdog;      /* no flit moved for this long while packets
	                         * are in flight: deadlock; default 5000 */
	uint64_t warmup_max;    /* 0 (default): the window is [warmup, warmup +
	                         * measure).  Otherwise a window whose batches
	                         * fail the steady-state test becomes warm-up
	                         * and the next `measure` cycles are measured,
	                         * while the warm-up stays within warmup_max */
	/* The endpoints (a hardware model, twintorus/model.h): a packet
	 * generated in cycle g enters its NIC no earlier than g +
	 * send_overhead, and its delivery is told to the source
	 * recv_overhead cycles after its tail arrived.  Latencies are
	 * measured from g, so they include both.  Default 0. */
	uint64_t send_overhead;
	uint64_t recv_overhead;
	/* Buffer per VC in flits, external ports and the internal link
	 * (the cluster file's credits:), floor(flits / P) packet slots;
	 * int_vc_flits is the internal link's, vc_flits's if 0.  0
	 * (default): buffer_flits per input port split evenly among its
	 * VCs, as the PE's port always has.  At most 255 slots a VC. */
	int vc_flits;
	int int_vc_flits;
	/* Store-and-forward switching (a software switch such as ttd, which
	 * takes a whole frame before it sends it on): a packet of f flits
	 * granted onto a link may cross the next switch R cycles after its
	 * tail arrived there, L + R + f - 1 after the grant, instead of
	 * after its head (virtual cut-through, the seed model's; 0, the
	 * default).  The PE's own link into its switch stays cut-through:
	 * the NIC hands the packet over as it goes. */
	int store_forward;
	/* Shaped links (twintorus/model.h): every output to another switch
	 * has a token bucket that refills shape_rate / 65536 flits a cycle
	 * up to shape_burst flits and starts full.  A packet of f flits goes
	 * onto the link only when the bucket holds f flits, which it takes;
	 * until then the output waits.  0 (the default): no bucket. */
	uint32_t shape_rate;
	uint32_t shape_burst;
} tt_simparams;

void tt_simparams_default(tt_simparams *p);

/*
 * Where packets come from.  next() gives PE pe's next packet in *pk: the
 * cycle it is generated in (never earlier than the previous one), its
 * destination and a tag the engine hands back on delivery.  `now` is the
 * current cycle.  It returns
 *   TT_SRC_PACKET  a packet (pk->gen may be earlier or later than now);
 *   TT_SRC_DONE    pe sends nothing more;
 *   TT_SRC_LATER   pe has nothing up to now: ask again in cycle pk->gen
 *                  (> now).  This lets a source read a trace in time order
 *                  without reading ahead of the simulation.
 *   TT_SRC_WAIT    pe waits for something only the source knows of (a
 *                  message to arrive): ask again only after
 *                  tt_sim_wake().  A run until empty ends when nothing is
 *                  in flight or due, even if PEs still wait.
 * The engine asks for one packet per PE at a time, in generation order.
 */
enum { TT_SRC_PACKET = 0, TT_SRC_DONE = 1, TT_SRC_LATER = 2, TT_SRC_WAIT = 3 };
typedef struct tt_srcpkt {
	uint64_t gen;
	uint32_t dst;
	uint32_t tag;           /* the source's own; 0 unless it sets one */
	uint32_t flits;         /* 1..packet_flits: a message's last packet
	                         * may be shorter (it still takes a whole
	                         * buffer slot); 0 (the engine clears it
	                         * before asking): packet_flits; more is
	                         * taken as packet_flits */
} tt_srcpkt;

typedef struct tt_source {
	int (*next)(void *ctx, uint32_t pe, uint64_t now, tt_srcpkt *pk);
	void *ctx;
} tt_source;

/*
 * Steady state (batch means): the measurement window is cut into
 * TT_SIM_BATCHES equal batches (fewer if it has fewer cycles), each
 * counting the packets that arrive in it and their mean end-to-end and
 * network latencies.  A series is steady unless a least-squares line
 * through its batches drifts over the window by more than a tolerance of
 * its mean (TT_STEADY_ACCEPTED_TOL for the accepted load,
 * TT_STEADY_LATENCY_TOL for latencies) and that slope is significant
 * (beyond Student's t at 99%, two-sided, n - 2 degrees of freedom,
 * against its standard error).
 */
#define TT_SIM_BATCHES          20
#define TT_STEADY_ACCEPTED_TOL  0.02
#define TT_STEADY_LATENCY_TOL   0.05

/* Latency distribution: exact below 4096 cycles, 1/128 relative above. */
#define TT_HIST_LINEAR 4096
#define TT_HIST_SUB    128
#define TT_HIST_BINS   (TT_HIST_LINEAR + 40 * TT_HIST_SUB)
typedef struct tt_hist {
	uint64_t count;
	double sum;
	uint64_t max;
	uint32_t bin[TT_HIST_BINS];
} tt_hist;

void tt_hist_add(tt_hist *h, uint64_t v);
/* The q-quantile (0 < q <= 1); bins above the linear range give their
 * lower edge. */
uint64_t tt_hist_quantile(const tt_hist *h, double q);

typedef struct tt_simresult {
	uint64_t cycles;              /* simulated, all phases */
	uint64_t measure_cycles;      /* the window actually measured */
	uint64_t generated;           /* packets generated (all phases) */
	uint64_t injected;            /* packets that entered a switch */
	uint64_t delivered;           /* packets that reached their PE */
	uint64_t flits_window;        /* flits delivered inside the window */
	uint64_t packets_window;      /* packets delivered inside the window */
	uint64_t measured;            /* packets generated inside the window
	                               * that entered the network */
	uint64_t measured_generated;  /* all generated inside the window, also
	                               * those still queued at their NIC */
	uint64_t measured_delivered;  /* ... and delivered by the end */
	uint64_t hops_sum;            /* links crossed by measured packets */
	uint64_t traversals;          /* flit-router traversals (all phases) */
	uint64_t internal_flits;      /* flits the internal links carried
	                               * inside the window, both directions */
	double offered_load;          /* flits/cycle/PE offered in the window */
	double accepted_load;         /* flits/cycle/PE delivered in the window */
	double throughput_packets;    /* packets/cycle, whole network */
	double avg_network_latency;
	double avg_e2e_latency;
	double p99_e2e_latency;
	double avg_hops;
	double internal_link_utilization; /* busy fraction, both directions */
	int deadlock;                 /* the watchdog fired */
	int drained;                  /* every measured packet was delivered */
	/* the steady-state test of the last window (runs that measure a
	 * window; 0 for a run until empty or stopped inside its window) */
	uint64_t warmup_cycles;       /* the warm-up actually run */
	int nbatch;
	double batch_accepted[TT_SIM_BATCHES];  /* flits/cycle/PE */
	double batch_latency[TT_SIM_BATCHES];   /* end-to-end, cycles; 0 for a
	                                         * batch in which none arrived */
	double batch_net_latency[TT_SIM_BATCHES];   /* network, likewise */
	double accepted_drift;        /* the fitted lines' change over the */
	double latency_drift;         /* window, relative to their means */
	double net_latency_drift;
	int throughput_converged;     /* the accepted load is steady */
	int converged;                /* ... and so is the end-to-end latency */
	int saturated_steady;         /* the accepted load and the network
	                               * latency are steady, the end-to-end
	                               * latency rises: the network is in its
	                               * saturated state, its source queues
	                               * grow */
	tt_hist net_lat, e2e_lat;
	/* the channels of the deadlock, as core channel ids (card, port, vc) */
	uint64_t *cycle;
	size_t cycle_len;
} tt_simresult;

typedef struct tt_sim tt_sim;

/* Progress callback: fraction of the planned cycles done. */
typedef void (*tt_sim_progress)(void *ctx, double done);

/*
 * Build the switches of net.  0, or -1 with err filled (bad parameters, not
 * enough memory).  net must outlive the simulator.
 */
int tt_sim_create(tt_sim **simp, const tt_net *net, const tt_simparams *p,
    char *err, size_t errsz);
void tt_sim_free(tt_sim *sim);
/* PEs (= switches) of the simulated network. */
uint32_t tt_sim_pes(const tt_sim *sim);
/* What tt_sim_create() would say about p for net, without building. */
int tt_sim_check(const tt_net *net, const tt_simparams *p, char *err,
    size_t errsz);

/* Bytes tt_sim_create() would allocate for net and p (for planning). */
uint64_t tt_sim_memory(const tt_net *net, const tt_simparams *p);
/* Bytes of the packet pool it maps besides (every buffer full), and of
 * the timing wheels' lists (every port's credit, every switch's wake-up,
 * in each cycle's list).  Only the packets a run has had in flight at
 * once, and what fell due in one cycle, take memory. */
uint64_t tt_sim_memory_packets(const tt_net *net, const tt_simparams *p);

/* 0 if the simulator's routing tables take tt_route()'s decision (output
 * port, VC and bubble condition) for every card it simulates, every
 * destination and every input port: the 2n external ports, the internal
 * link and the PE.  -1 at the first difference.  For tests: O(cards^2). */
int tt_sim_check_routes(const tt_sim *sim);

/* VCs the simulator gives each port of net (after the minimum of p->vcs). */
int tt_sim_port_vcs(const tt_net *net, const tt_simparams *p, int port);

/*
 * Run warm-up, measurement and drain with packets from src.  If `until_empty`
 * is set, the run ends instead when the source has nothing more and every
 * packet has been delivered (for finite sources such as traces and tests).
 */
int tt_sim_run(tt_sim *sim, const tt_source *src, int until_empty,
    tt_simresult *res, tt_sim_progress progress, void *pctx);
void tt_simresult_free(tt_simresult *res);

/* Called for every delivered packet, for tests and per-message output. */
typedef struct tt_delivery {
	uint32_t src, dst, tag;
	int hops;               /* links between switches crossed */
	uint64_t gen, inject, deliver;  /* cycles: generated, head left the
	                                 * NIC, tail reached the PE */
} tt_delivery;
typedef void (*tt_sim_deliver_fn)(void *ctx, const tt_delivery *d);
/* 0, or -1 with err: a simulator split across processes makes room here
 * for the deliveries the others report to it, and every process fails if
 * one ran out of memory (there, every process calls it). */
int tt_sim_on_deliver(tt_sim *sim, tt_sim_deliver_fn fn, void *ctx,
    char *err, size_t errsz);

/*
 * Closed-loop sources (a PE that waits for a message before it sends).
 * tt_sim_wake(): PE pe, which waits (its source said TT_SRC_WAIT), is asked
 * again in cycle `at`, or in the next cycle if `at` is not later than the
 * current one; nothing if pe does not wait.  Called from a delivery
 * callback; pe must be one of this process's (tt_sim_local()).
 *
 * In a partitioned run on_deliver is called on the source's rank (the tag
 * is the source's), and for a packet from another rank only at the end of
 * the epoch; the destination's rank then calls tt_sim_on_arrive()'s fn in
 * the cycle the packet arrives, so that it can wake the destination PE.
 * The packets whose source is on the same rank it sees through on_deliver,
 * as a serial run sees them all.  Needs on_deliver set.
 */
void tt_sim_wake(tt_sim *sim, uint32_t pe, uint64_t at);
void tt_sim_on_arrive(tt_sim *sim, tt_sim_deliver_fn fn, void *ctx);

/*
 * Flits each output carried inside the window: entry card * nports + i, where
 * i < net->card_nports is local port i (net->card_port[side][i]) and
 * i == net->card_nports is the port to the card's PE.  *nports is set to
 * net->card_nports + 1.
 */
const uint64_t *tt_sim_link_flits(const tt_sim *sim, int *nports);

TT_END_DECLS

#endif
