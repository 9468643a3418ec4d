/*
 * twintorus: recording what ttd would have captured, from the simulator.
 *
 * ttd writes one PE trace per node, <host>-pe.pcap, holding every frame a
 * PE of the node sends (at the TAP read) and a copy of every frame it
 * delivers to one, flagged TT_FRAME_F_DELIVERED; both carry the source PE,
 * the destination PE and the source's sequence number.  A recorder writes
 * the same from a simulation, one message per record: the send at the
 * message's generation and the delivery copy at the arrival of its last
 * packet.  Records are header only, with the message's bytes as their
 * length on the wire (twintorus/trace.h, tt_trace_write_msg()), written
 * through the library's trace writer.
 *
 * Files are named as ttd names them: <host>-pe.pcap when the YAML file's
 * nodes: map names the node, n<node>-pe.pcap otherwise.  Time is each
 * node's own: cycle * cycle_ns from 2026-01-01T00:00:00Z plus a fixed
 * offset per node below skew_ns, so that nothing reading the traces can
 * rely on the clocks of two nodes agreeing (ttd's do not either).
 *
 * The simulation hands records over a little out of time order: a send is
 * written when the PE's program issues it, which may be after the cycle it
 * was generated in (the NIC was busy), and other records of the node have
 * been made meanwhile.  Each node's records wait in a heap and are written
 * in time order once no earlier one can come: every PE has a floor, the
 * earliest cycle its next send can have (tt_record_floor(); its sources
 * generate in order, so the last generation is one), and deliveries come
 * at the current cycle.  The heap holds what the busiest NIC is behind by.
 */
#ifndef TWINTORUS_RECORD_H
#define TWINTORUS_RECORD_H

#include <stdint.h>
#include "twintorus/config.h"
#include "twintorus/sim.h"
#include "twintorus/topo.h"
#include "twintorus/api.h"

TT_BEGIN_DECLS

/* Where recorded traces start, node offsets aside. */
#define TT_RECORD_EPOCH_NS (1767225600ull * 1000000000ull)
/* The nodes' clock offsets: below this by default (ttd's nodes are not
 * synchronised to better than this), and at most the most. */
#define TT_RECORD_SKEW_NS       500000ull
#define TT_RECORD_SKEW_MAX_NS   1000000000ull

typedef struct tt_record tt_record;

/*
 * Make dir if missing; refuse it if it holds traces already (a replay of
 * it would mix two runs).  0, or -1 with err set.  A partitioned run has
 * every rank check before any opens (the ranks' files share dir).
 */
int tt_record_dir_ready(const char *dir, char *err, size_t errsz);
/*
 * Create one trace per node holding a PE in [pe0, pe1) (a partitioned run
 * records only its own nodes) in dir.  cfg (may be NULL) gives host
 * names.  0, or -1 with err set.
 */
int tt_record_open(tt_record **rp, const char *dir, const tt_net *net,
    const tt_config *cfg, uint32_t pe0, uint32_t pe1, double cycle_ns,
    uint64_t skew_ns, char *err, size_t errsz);
/* Cycle as the time of pe's node's clock, ns. */
uint64_t tt_record_ns(const tt_record *r, uint32_t pe, uint64_t cycle);
/* pe's next send will not be generated before cycle `floor`; `now` is the
 * current cycle.  UINT64_MAX: pe sends nothing more; TT_RECORD_WAITING:
 * pe waits for a message, so nothing before the cycle it arrives in. */
#define TT_RECORD_WAITING (UINT64_MAX - 1)
void tt_record_floor(tt_record *r, uint32_t pe, uint64_t floor, uint64_t now);
/* A message sent (generated in cycle gen) and one delivered (its last
 * packet arriving in cycle `at`, the current one).  0, or -1 after a write
 * error (tt_record_close() reports it). */
int tt_record_send(tt_record *r, uint64_t gen, uint64_t now, uint32_t src,
    uint32_t dst, uint32_t seq, uint64_t bytes);
int tt_record_deliver(tt_record *r, uint64_t at, uint32_t src, uint32_t dst,
    uint32_t seq, uint64_t bytes);
/* Write what waits, close every file; *records (may be NULL): how many
 * were written in all.  0, or -1 with err set. */
int tt_record_close(tt_record *r, uint64_t *records, char *err,
    size_t errsz);

/*
 * A source that records: every packet of inner is a message of one packet
 * (as ttsim run's synthetic traffic is), sent with the next sequence number
 * of its PE; deliveries are recorded through tt_record_source_deliver(),
 * which the caller hands to tt_sim_on_deliver() and tt_sim_on_arrive()
 * with the same ctx.  bytes: of each packet.
 */
typedef struct tt_record_src {
	tt_record *rec;
	tt_source inner;
	uint32_t *seq;          /* per PE, from pe0 */
	uint32_t pe0, pe1;
	uint64_t bytes;
	int failed;
} tt_record_src;

int tt_record_src_init(tt_record_src *rs, tt_record *rec, tt_source inner,
    uint32_t pe0, uint32_t pe1, uint64_t bytes);
tt_source tt_record_src_source(tt_record_src *rs);
void tt_record_src_deliver(void *ctx, const tt_delivery *d);
void tt_record_src_free(tt_record_src *rs);

TT_END_DECLS

#endif
