/*
 * twintorus: fitting a hardware model to a recording (ttsim trace
 * calibrate).
 *
 * A ttd recording holds, per node, every frame a PE sent (at the TAP read)
 * and a copy of every frame delivered to one (at the TAP write), with the
 * source PE and its sequence number (twintorus/infer.h).  Matched by
 * (source, sequence), each delivered frame gives a one-way latency:
 * delivery time minus send time.  That difference mixes two nodes' clocks;
 * the sum of a frame a -> b and a frame b -> a does not: with the far
 * side's turnaround taken out of the round trip,
 *     (dlv2@a - send1@a) - (send2@b - dlv1@b) = lat1 + lat2
 * whatever the clocks' offsets.  So an observation is a sum of nmsg
 * latencies (1: one way, 2: a round trip) with the sum of their hop
 * counts and bytes, and the model fitted is linear in all three:
 *     latency = nmsg * base + hops * hop + bytes * 8 / gbps
 * (the engine's zero-load formula, twintorus/sim.h, in ns: a packet
 * crossing H links takes (H+1)(R+L) + L + flits - 1 cycles plus the
 * endpoint overheads, so hop = (R+L) cycles and base = R + 2L - 1 cycles
 * plus send and receive overhead).
 *
 * Only zero-load frames tell the hardware: a frame that queued behind
 * others is late for reasons the model reproduces by itself.  The fit
 * therefore takes a lower envelope: observations are grouped in cells of
 * (nmsg, hops, size bucket of a quarter octave), each cell is represented
 * by its q-quantile (default the 10th percentile), and the line is fitted
 * by least squares, relative (each cell weighted by 1/latency), to the
 * cells; cells more than a few median deviations off are dropped and the
 * line fitted again (a cell of only queued frames).
 *
 * Bandwidth: from the sustained rate of long transfers when there are any
 * (tt_calib_rate(): bytes over time at the receiver over the second half
 * of each transfer, so that a token bucket's burst and a slow start are
 * behind it), else from the slope of latency over bytes.
 *
 * Store-and-forward (ttd: opts.store_forward): a switch a link leads to
 * waits for the frame's tail, so a frame pays its serialization once per
 * link and once more into the PE (sim.h): the byte term becomes
 * (bytes + saf_bytes) * 8 / gbps, saf_bytes = hops * bytes per frame, and
 * hop = R + L - 1 cycles.  With port traces the parts are measured
 * instead (tt_calib_fit_segs(), below).
 *
 * One hop count only (two nodes' ping-pong): base and hop cannot be told
 * apart; the fit then takes every switch crossing alike and no endpoint
 * overhead (base = hop), and says so (tt_calib_fit.hop_fitted = 0).
 */
#ifndef TWINTORUS_CALIBRATE_H
#define TWINTORUS_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>
#include "twintorus/topo.h"
#include "twintorus/api.h"

TT_BEGIN_DECLS

/* One observation: nmsg frames' latencies summed. */
typedef struct tt_calib_obs {
	double lat_ns;          /* measured */
	double bytes;           /* carried bytes, summed */
	int hops;               /* links between cards crossed, summed */
	int nmsg;               /* 1 one way, 2 a round trip */
	double saf_bytes;       /* sum of hops * bytes per frame: what a
	                         * store-and-forward network serializes again
	                         * at each switch a link leads to (a ttd
	                         * frame is one packet) */
} tt_calib_obs;

/* The fewest observations, and cells, a fit takes. */
#define TT_CALIB_MIN_OBS   10
#define TT_CALIB_QUANTILE  0.1

typedef struct tt_calib_opts {
	double quantile;        /* lower envelope per cell, (0, 1]; 0: 0.1 */
	double gbps;            /* > 0: the bandwidth is known (a sustained
	                         * rate), only base and hop are fitted */
	int crossings;          /* 1: base = hop (every switch crossing
	                         * alike, no endpoint overhead), as with one
	                         * hop count */
	int store_forward;      /* 1: latency = nmsg * base + hops * hop +
	                         * (bytes + saf_bytes) * 8 / gbps */
} tt_calib_opts;

typedef struct tt_calib_fit {
	double base_ns, hop_ns; /* per message, per link crossed */
	double gbps;            /* given, or from the slope */
	int gbps_fitted;        /* 1: from the slope of latency over bytes */
	int hop_fitted;         /* 0: base = hop (one hop count only, or
	                         * opts.crossings) */
	int store_forward;      /* opts.store_forward */
	size_t cells, cells_dropped;
	size_t used;            /* observations in the cells kept */
	/* |fitted - measured| / measured: against each kept cell's
	 * envelope (the zero-load latencies), and against every observation
	 * of those cells (queueing included) */
	double med_rel, p90_rel;
	double all_med_rel, all_p90_rel;
} tt_calib_fit;

/*
 * Fit o[0..n).  0, or -1 with err set: fewer than TT_CALIB_MIN_OBS
 * observations, too few cells for the unknowns, or every observation of
 * one size when the bandwidth is to be fitted.
 */
int tt_calib_fit_obs(const tt_calib_obs *o, size_t n,
    const tt_calib_opts *opts, tt_calib_fit *fit, char *err, size_t errsz);
/* What fit says about one observation, ns. */
double tt_calib_predict(const tt_calib_fit *fit, const tt_calib_obs *o);

/*
 * A transfer: frames one source sent to one destination back to back.
 * bytes and ns are those of its second half (by bytes): what arrived
 * after the delivery at which half its bytes had, over the time from
 * that delivery to its last; frames, of that half.
 */
typedef struct tt_calib_train {
	double bytes, ns;
	uint32_t frames;
	double total_bytes;     /* the whole transfer */
	/* its first half: the bytes delivered up to the delivery at which
	 * half had arrived (the first frame's included), and the time from
	 * the first frame's delivery to that one */
	double first_bytes, first_ns;
} tt_calib_train;

/* The fewest frames a transfer's measured half has to count. */
#define TT_CALIB_TRAIN_MIN 8

/*
 * The sustained rate, Gb/s: the median rate of the largest transfers
 * (those with at least half the bytes of the largest) among those whose
 * measured half has TT_CALIB_TRAIN_MIN frames; *used says how many.  0
 * when there is none.
 */
double tt_calib_rate(const tt_calib_train *t, size_t n, size_t *used);

/*
 * A token bucket's depth (tc tbf; twintorus/model.h's shaped links), in
 * carried bytes: on the transfers tt_calib_rate() takes, what the first
 * half delivered beyond what the sustained rate `gbps` allows in its time,
 * first_bytes - first_ns * gbps / 8, the median of them.  A transfer that
 * starts on a full bucket gets its depth through at once and is paced
 * after; one over a link without a bucket gets about its first frame.  0
 * when no transfer qualifies (*used 0).
 */
double tt_calib_burst(const tt_calib_train *t, size_t n, double gbps,
    size_t *used);

/*
 * Whether lone frames beat the sustained rate: the median zero-load
 * one-way latency of the frames of at least half the largest frame's
 * bytes in iso[0..n) (at least TT_CALIB_MIN_OBS of them) is below the
 * time one of them takes to serialize once at gbps.  A link of that rate
 * could not carry them so fast: the rate is a shaper's (a token bucket
 * lets a lone frame through at the line rate), not the line's.  The
 * median latency and bytes go to *lat_ns and *bytes.
 */
int tt_calib_shaped(const tt_calib_obs *iso, size_t n, double gbps,
    double *lat_ns, double *bytes);

/*
 * Store-and-forward from port traces.  ttd records a frame as it leaves
 * each port (after the send to the port returned), with the links it has
 * crossed so far, so one frame of H hops gives H + 1 segments:
 *   SEND  its send record (TAP read) -> its first port record, on the
 *         source node's clock; the engine: send_ns + R + L;
 *   HOP   leaving port k -> leaving port k + 1: the link and the next
 *         switch's store-and-forward and processing; the engine:
 *         R + L + f - 1 cycles;
 *   RECV  its last port record -> its delivery copy (TAP write): the
 *         last link, the destination switch and the PE's link; the
 *         engine: R + L + f - 1 + L + f - 1 cycles + recv_ns.
 * Only frames sent while the frame before them of the same source and
 * destination had arrived (alone in the network: zero load) are used.
 * Each kind is fitted as intercept + slope * bytes to the medians of its
 * size cells (a quarter octave; medians, not a low quantile, because a
 * port record is taken when the send call returns, sometimes after the
 * next node has the frame already, so one segment is short by what the
 * next is long).  The intercepts are the zero-load times of a frame of no
 * bytes; the slopes are the per-byte cost at zero load, which on a token
 * bucket (tc tbf) is that of the burst, not of the sustained rate.
 */
enum { TT_CALIB_SEG_SEND, TT_CALIB_SEG_HOP, TT_CALIB_SEG_RECV,
	TT_CALIB_SEG_KINDS };

typedef struct tt_calib_seg {
	double ns;              /* measured */
	double bytes;           /* the frame's */
	int kind;               /* TT_CALIB_SEG_* */
} tt_calib_seg;

/* The fewest segments of each kind a fit takes. */
#define TT_CALIB_SEG_MIN 10

typedef struct tt_calib_segfit {
	double a[TT_CALIB_SEG_KINDS];   /* intercept, ns */
	double s[TT_CALIB_SEG_KINDS];   /* ns per byte at zero load */
	size_t n[TT_CALIB_SEG_KINDS];   /* segments */
	size_t cells[TT_CALIB_SEG_KINDS];
} tt_calib_segfit;

/* Fit every kind.  0, or -1 with err: a kind with fewer than
 * TT_CALIB_SEG_MIN segments. */
int tt_calib_fit_segs(const tt_calib_seg *s, size_t n, tt_calib_segfit *f,
    char *err, size_t errsz);

/*
 * The engine's store-and-forward parameters from the segments' intercepts,
 * for a cycle of cycle_ns (twintorus/sim.h; a frame of f flits takes f
 * cycles = bytes * 8 / link_gbps): link_ns one cycle, router_ns = the HOP
 * intercept (R + L + f - 1 = hop + f cycles), send_ns = SEND - hop -
 * cycle, recv_ns = RECV - hop.  An endpoint overhead below 0 is made 0
 * and its deficit taken from the other one (their sum, which the
 * latencies see, kept while it can be); *clamped says it happened.
 */
typedef struct tt_calib_saf {
	double router_ns, link_ns, send_ns, recv_ns;
	int clamped;
} tt_calib_saf;
void tt_calib_saf_model(const tt_calib_segfit *f, double cycle_ns,
    tt_calib_saf *m);
/* The engine's zero-load one-way latency of a frame of `bytes` over
 * `hops` links in that model, ns, at link_gbps (f cycles taken as
 * bytes * 8 / link_gbps). */
double tt_calib_saf_latency(const tt_calib_saf *m, double cycle_ns,
    double gbps, int hops, double bytes);

/*
 * The hosts' turnaround: a request delivered to a PE (its last frame's
 * delivery copy) and the PE's answer (its next send, back to the
 * requester on the same connection, with no other data in between), on
 * the PE's clock.
 */
typedef struct tt_calib_turn {
	double ns;              /* answer's send - request's last delivery */
	double bytes;           /* the request: its payload (TCP) or carried
	                         * bytes */
} tt_calib_turn;

/* Requests up to this many bytes count for host_ns. */
#define TT_CALIB_HOST_BYTES 1024

/*
 * The median turnaround of the requests of at most max_bytes; its
 * quartiles in q[0], q[1] (may be NULL) and the count in *used.  0 when
 * there is none.
 */
double tt_calib_host(const tt_calib_turn *t, size_t n, double max_bytes,
    size_t *used, double q[2]);

/* ---- from traces ---- */

#define TT_CALIB_HDR_MAX 256
typedef struct tt_calib_data {
	tt_calib_obs *oneway;   /* every matched frame */
	size_t noneway;
	size_t oneway_same_clock;       /* of them: sent and delivered on one
	                                 * node (one trace file's clock) */
	tt_calib_obs *rtt;      /* each frame with the other way's next */
	size_t nrtt;
	tt_calib_train *train;
	size_t ntrain;
	uint64_t files, records, sends, deliveries, port_records;
	uint64_t matched;       /* deliveries matched to their send */
	uint64_t unmatched;     /* deliveries without a send */
	uint64_t mismatched;    /* ... whose destination or length differ */
	uint64_t duplicate;     /* sends of a (source, sequence) seen twice
	                         * in one recording: not matched */
	uint64_t max_bytes;     /* the largest data frame carried */
	/* the routing function's hop counts against the recorded ones
	 * (ttd's delivery copies and port traces carry them) */
	uint64_t hops_checked, hops_differ;
	/* port traces: the segments of the zero-load frames whose every
	 * port record is there */
	tt_calib_seg *seg;
	size_t nseg;
	uint64_t seg_frames;    /* frames they came from */
	uint64_t seg_clocks;    /* of the segments: between two nodes'
	                         * clocks (their offset is in them) */
	/* the zero-load frames' one-way latencies (alone in the network:
	 * the frame before them of their pair had arrived) */
	tt_calib_obs *iso;
	size_t niso;
	/* the hosts' turnarounds */
	tt_calib_turn *turn;
	size_t nturn;
	/* the TCP data frames sent: how many, the most and the least payload
	 * one carried, and how many had each header length (frame bytes
	 * less TCP payload, below TT_CALIB_HDR_MAX) */
	uint64_t tcp_frames;
	uint32_t tcp_payload_max, tcp_payload_min;
	uint64_t tcp_hdr[TT_CALIB_HDR_MAX];
} tt_calib_data;

/*
 * Read the recordings paths name (files, or directories as ttsim replay
 * takes them).  Each directory is one recording (its sequences are
 * matched among its own files); the files given by name are one more.
 * PEs must be below net's.  0, or -1 with err set ("FILE: record N:
 * ...").
 */
int tt_calib_read(tt_calib_data *d, const char *const *paths, size_t np,
    const tt_net *net, char *err, size_t errsz);
void tt_calib_data_free(tt_calib_data *d);

/* Links crossed by tt_route()'s path from PE src to PE dst, or -1. */
int tt_calib_hops(const tt_net *net, uint32_t src, uint32_t dst);

TT_END_DECLS

#endif
