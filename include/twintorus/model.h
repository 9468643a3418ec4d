/*
 * twintorus: a hardware model in nanoseconds and bytes.
 *
 * The engine (twintorus/sim.h) counts cycles and flits; real hardware is
 * described in link bandwidth, nanoseconds and bytes.  A tt_model says
 * what a cluster is made of, and tt_model_apply() turns it into the
 * engine's parameters.  It is written in YAML as a model: section, in the
 * cluster file or in a model file of its own (ttsim --model FILE, and the
 * output of tt_model_write(), e.g. a calibration's).
 *
 * The mapping (every key optional; an unset key leaves the engine's value
 * as it was):
 *   cycle_ns     = flit_bytes * 8 / link_gbps   (tt_cycle_ns: a link
 *                  carries one flit a cycle)
 *   R            = max(1, round(router_ns / cycle_ns))
 *   L            = max(1, round(link_ns / cycle_ns))
 *   send_overhead = round((send_ns + host_ns / 2) / cycle_ns)
 *   recv_overhead = round((recv_ns + host_ns / 2) / cycle_ns)
 *   vc_flits     = vc_bytes / flit_bytes (rounded down: a buffer holds
 *                  whole flits); int_vc_flits likewise from
 *                  internal_vc_bytes
 *   packet_flits = packet_flits
 *   buffer_flits = TT_MODEL_PE_VCS packets when the model sets
 *                  packet_flits and the default buffer_flits (the PE's
 *                  port, split among its VCs) would hold fewer
 *   store_forward = store_forward (sim.h: each switch a link leads to
 *                  waits for a packet's tail)
 *   shape_rate   = round(65536 * shape_gbps / link_gbps) (a link's token
 *                  bucket refills that many 1/65536 flits a cycle; none
 *                  when shape_gbps is unset or not below link_gbps, or
 *                  rounds to 65536, the line rate)
 *   shape_burst  = burst_bytes / flit_bytes (rounded down; a packet's
 *                  flits when burst_bytes is unset, and a bucket must
 *                  hold a whole packet)
 * The engine's zero-load latency (twintorus/sim.h) then holds in these
 * cycles: a packet of P flits crossing H links has a network latency of
 * (H + 1)(R + L) + L + P - 1 cycles, and its end-to-end latency adds
 * send_overhead + recv_overhead.  R or L above TT_LATENCY_MAX cycles is
 * refused: larger flits make the cycle longer (and the packet coarser).
 *
 * host_ns is the part of the endpoints a ttd trace cannot see: its
 * records are taken at the PE's TAP, so the time a host takes to carry a
 * delivered message up to the application and the answer back down is
 * in the trace's gaps, not in its frames' latencies.  The simulation adds
 * it, half at each end; the inference (twintorus/infer.h, turnaround_ns)
 * takes the recorded hosts' out of the gaps it infers.
 *
 * Granularity.  When a model sets link_gbps but neither flit_bytes nor
 * packet_flits is given anywhere (model, the cluster file's network:,
 * flags), tt_model_fill() chooses a granularity for Ethernet traces:
 * flit_bytes 64 (the smallest Ethernet frame is one flit) and packet_flits
 * ceil(TT_MODEL_FRAME_BYTES / flit_bytes), 24 with 64-byte flits, so that
 * a packet holds a frame of a 1500-byte MTU (1514 bytes as captured) and
 * a message of one frame is one packet, as on the wire.  With that packet,
 * the seed model's 128 flits per input port would not hold a packet per
 * VC, so the buffers not given default to TT_MODEL_VC_BYTES_DEFAULT, ttd's
 * own default buffer per VC.
 */
#ifndef TWINTORUS_MODEL_H
#define TWINTORUS_MODEL_H

#include <stdint.h>
#include <stdio.h>
#include "twintorus/params.h"
#include "twintorus/sim.h"
#include "twintorus/api.h"

TT_BEGIN_DECLS

typedef struct tt_model {
	double link_gbps;     /* link bandwidth */
	double router_ns;     /* per hop: a frame's time through a switch */
	double link_ns;       /* per hop: on the link (credits take it back too) */
	double send_ns;       /* per message, at the source endpoint: PE hands it over -> first byte on a link */
	double recv_ns;       /* at the destination: last byte off the link -> PE has it */
	int vc_bytes;         /* buffer per VC, external ports */
	int internal_vc_bytes;/* buffer per VC, internal link */
	int flit_bytes, packet_flits;  /* the engine's granularity */
	int store_forward;    /* switches take a whole frame before sending
	                       * it on (a software switch: ttd) */
	double host_ns;       /* the hosts' turnaround outside a ttd trace:
	                       * a frame written to the PE's TAP up to the
	                       * application, and its answer down to the TAP */
	double shape_gbps;    /* a token bucket on every link between
	                       * switches: its rate (below link_gbps, which a
	                       * frame then crosses at when the bucket holds
	                       * its bytes) */
	int burst_bytes;      /* that bucket's depth */
	/* How an MPI-level trace's messages, which are payload, crossed the
	 * recorded wire: the MPI library's header on each message, cut into
	 * frames of at most segment_bytes of it (TCP's MSS), each frame
	 * adding frame_header_bytes (Ethernet, IP, TCP).  Packet traces
	 * carry their frames whole and need none of it. */
	int segment_bytes;
	int frame_header_bytes;
	int message_header_bytes;
	unsigned set;         /* which keys were given (bit per key) */
} tt_model;

/* tt_model.set: one bit per key, in the order of the YAML keys. */
enum {
	TT_MODEL_LINK_GBPS         = 1u << 0,
	TT_MODEL_ROUTER_NS         = 1u << 1,
	TT_MODEL_LINK_NS           = 1u << 2,
	TT_MODEL_SEND_NS           = 1u << 3,
	TT_MODEL_RECV_NS           = 1u << 4,
	TT_MODEL_VC_BYTES          = 1u << 5,
	TT_MODEL_INTERNAL_VC_BYTES = 1u << 6,
	TT_MODEL_FLIT_BYTES        = 1u << 7,
	TT_MODEL_PACKET_FLITS      = 1u << 8,
	TT_MODEL_HOST_NS           = 1u << 9,
	TT_MODEL_STORE_FORWARD     = 1u << 10,
	TT_MODEL_SHAPE_GBPS        = 1u << 11,
	TT_MODEL_BURST_BYTES       = 1u << 12,
	TT_MODEL_SEGMENT_BYTES     = 1u << 13,
	TT_MODEL_FRAME_HEADER_BYTES = 1u << 14,
	TT_MODEL_MESSAGE_HEADER_BYTES = 1u << 15,
	TT_MODEL_NKEYS             = 16
};

/* Latencies and overheads, ns: 0..1e10 (10 s; the engine takes R and L
 * up to TT_LATENCY_MAX cycles). */
#define TT_MODEL_NS_MAX           1e10
/* A packet of the frame granularity holds this much: a 1500-byte MTU
 * frame as captured (1514 bytes), rounded up to whole 64-byte flits. */
#define TT_MODEL_FRAME_BYTES      1536
#define TT_MODEL_FLIT_BYTES_FRAME 64
/* tt_model_apply() raises buffer_flits (the PE's port, split among its
 * VCs) to a packet for each of this many VCs when a model's packets are
 * longer. */
#define TT_MODEL_PE_VCS           8
/*
 * Shaped links.  A link limited by a token bucket (tc's tbf, a cloud
 * NIC's rate allowance) carries a frame at its line rate, link_gbps, when
 * the bucket holds the frame's bytes, and otherwise holds it until it
 * does; the bucket refills at shape_gbps up to burst_bytes.  A lone frame
 * after an idle moment therefore does not pay its serialization at the
 * shaped rate, and a long transfer runs at shape_gbps: a model that
 * charged every byte at the sustained rate would be slow by the burst on
 * every message.  Only links between switches are shaped, not a PE's.
 */
#define TT_MODEL_BURST_BYTES_MAX  (1 << 30)

/* ttd's buffer per VC where credits: says nothing (daemon/ttd.h). */
#define TT_MODEL_VC_BYTES_DEFAULT 65536

/* The YAML name of key bit b (TT_MODEL_*), or NULL. */
const char *tt_model_key_name(unsigned bit);

/* Nothing set. */
void tt_model_init(tt_model *m);
/* The keys src sets, over dst's. */
void tt_model_over(tt_model *dst, const tt_model *src);
/*
 * The layer of a cluster file below any model: its network: keys
 * (link_gbps, flit_bytes, packet_flits, as far as the file gave them) and
 * credits: (vc_bytes, internal_vc_bytes).
 */
struct tt_config;
void tt_model_from_config(const struct tt_config *cfg, tt_model *m);
/*
 * Give the keys m leaves unset their defaults: link_gbps and the
 * granularity the engine's (TT_LINK_GBPS_DEFAULT, TT_FLIT_BYTES_DEFAULT,
 * TT_PACKET_FLITS_DEFAULT), or, when `frames` (a model set the link rate),
 * the frame granularity above with TT_MODEL_VC_BYTES_DEFAULT buffers.
 * Latencies and overheads stay unset: the engine's (or its flags') apply.
 * The keys filled are not marked set.
 */
void tt_model_fill(tt_model *m, int frames);

/*
 * A model file: its top level holds model: and nothing else.  Errors are
 * printed to errs as "path:line:col: message", every one; returns how
 * many (m usable only at 0).
 */
int tt_model_load(tt_model *m, const char *path, FILE *errs);

/*
 * A model: section for a model file or a cluster file, with `comment`
 * (may be NULL; several lines allowed) as "# " lines before it; only the
 * keys m sets, each so that tt_model_load() reads back the same value.
 * 0, or -1 when f could not be written.
 */
int tt_model_write(FILE *f, const tt_model *m, const char *comment);

/* What a model became in the engine's units. */
typedef struct tt_model_cycles {
	double cycle_ns;
	uint32_t shape_rate, shape_burst;  /* 0: links are not shaped */
	int router, link;           /* R, L; 0: the model does not say */
	uint64_t send, recv;        /* overheads (0 when unset) */
	int vc_flits, int_vc_flits; /* 0: unset */
} tt_model_cycles;

/*
 * m into the engine's parameters: packet_flits, router_latency and
 * link_latency, send_overhead and recv_overhead, vc_flits and
 * int_vc_flits, each where m gives its key (set, or a value
 * tt_model_fill() gave; link_gbps and flit_bytes, which the cycle needs,
 * the defaults where m has none).  The cycles go to *c (may be NULL).  0, or -1 with err: R or L
 * above TT_LATENCY_MAX, or a buffer that holds no whole packet; p is then
 * unchanged.
 */
int tt_model_apply(const tt_model *m, tt_simparams *p, tt_model_cycles *c,
    char *err, size_t errsz);

TT_END_DECLS

#endif
