/*
 * twintorus: the parameters of the network model, each defined once: its
 * default (seed 000 §7.1) and the range every reader of it accepts.  The
 * network's packet, buffer, flit and link sizes are one struct,
 * tt_netparams: the YAML loader's network: section (tt_config.params),
 * the engine (tt_simparams.net), replay (tt_replay_params.net) and the
 * motifs (tt_motif_params.net) each hold one, and ttsim's flags take
 * their defaults and ranges from here.  A cycle is tt_cycle_ns().
 */
#ifndef TWINTORUS_PARAMS_H
#define TWINTORUS_PARAMS_H

#include <stdint.h>
#include "twintorus/api.h"

TT_BEGIN_DECLS

/* The network: section of the YAML file. */
typedef struct tt_netparams {
	int packet_flits;     /* flits per packet */
	int buffer_flits;     /* per input port, split among its VCs */
	int flit_bytes;       /* bytes a link carries in one cycle */
	double link_gbps;     /* link speed: maps trace time to cycles */
} tt_netparams;

#define TT_PACKET_FLITS_DEFAULT 4
#define TT_PACKET_FLITS_MAX     1024
#define TT_BUFFER_FLITS_DEFAULT 128
#define TT_BUFFER_FLITS_MAX     1048576
/* VCs per port at least (--vcs 0): 4 under the VC scheme (two per ring
 * class and room for the internal link's), 1 under bubble and none */
#define TT_VCS_VC_DEFAULT       4
#define TT_VCS_OTHER_DEFAULT    1
#define TT_FLIT_BYTES_DEFAULT   16
#define TT_FLIT_BYTES_MAX       65536
#define TT_LINK_GBPS_DEFAULT    10.0
#define TT_LINK_GBPS_MIN        0.001   /* 1 Mb/s */
#define TT_LINK_GBPS_MAX        10000.0
/* Router and link latency (the engine's R and L), in cycles.  Up to 2^24:
 * a 10 ms hop at 10 Gb/s is 781,250 cycles of 16-byte flits. */
#define TT_LATENCY_DEFAULT      1
#define TT_LATENCY_MAX          (1 << 24)
/* A run's phases and its watchdog (tt_simparams), in cycles. */
#define TT_WARMUP_DEFAULT       2000
#define TT_MEASURE_DEFAULT      10000
#define TT_DRAIN_DEFAULT        20000   /* at most: a drain ends when the
                                         * window's packets are delivered */
#define TT_WATCHDOG_DEFAULT     5000
/* The endpoints' send and receive overheads (tt_simparams), in cycles:
 * a second at 10 Gb/s in 16-byte flits is 7.8e7. */
#define TT_OVERHEAD_MAX         ((uint64_t)1 << 32)

void tt_netparams_default(tt_netparams *p);

/* Nanoseconds a link of link_gbps takes to send bytes: bytes * 8 / link_gbps. */
double tt_wire_ns(uint64_t bytes, double link_gbps);
/*
 * Nanoseconds per cycle.  A link carries one flit per cycle, so a cycle is
 * the wire time of a flit: 12.8 ns with the defaults.
 */
double tt_cycle_ns(int flit_bytes, double link_gbps);
/*
 * A message of `bytes` goes in packets of packet_flits * flit_bytes, at
 * least one; its last packet carries the rest: ceil(rest / flit_bytes)
 * flits, at least 1 (tt_srcpkt.flits), or 0 when it is full, so that a
 * message of whole packets is sent as before.
 */
uint32_t tt_last_packet_flits(uint64_t bytes, int packet_flits,
    int flit_bytes);

TT_END_DECLS

#endif
