/*
 * twintorus: the message layer under the message sources (open-loop
 * replay, causal replay, motifs), and their results' reduction over a
 * partitioned run's ranks.
 *
 * Not installed (as engine/sim_part.h): ttsim and the tests see it with
 * -Ilib.
 */
#ifndef TWINTORUS_MSGSRC_H
#define TWINTORUS_MSGSRC_H

#include <stddef.h>
#include <stdint.h>

#include "engine/sim_part.h"
#include "support/u64map.h"
#include "twintorus/causal.h"
#include "twintorus/motif.h"
#include "twintorus/params.h"
#include "twintorus/replay.h"

/*
 * The layer does what the three sources share; each keeps only its
 * release policy (when a PE's next message leaves):
 *
 *   - packets: a message of B bytes is ceil(B / (packet_flits *
 *     flit_bytes)) packets, at least one, the last only as many flits as
 *     its bytes fill (tt_last_packet_flits()); msgsrc_send() releases one
 *     at a PE and msgsrc_packet() hands its packets to the NIC, one per
 *     call, all with the release cycle as their generation;
 *   - time: ns to cycles and back (one cycle: flit_bytes * 8 / link_gbps
 *     ns);
 *   - arrivals: a message a source expects (msgsrc_expect()) is an entry
 *     that counts its packets as they arrive and, when the last has, is
 *     counted (enum msg_count below) and handed to the source's done
 *     callback; the entry stays until the source drops it.  Counted at
 *     the destination (MSG_AT_DST: the packet's tag is the sender's
 *     sequence number and entries are found by (source, sequence), so a
 *     partitioned run's destination rank counts and wakes its own PEs), or
 *     at the source (MSG_AT_SRC: the tag is the entry, on the sender's
 *     rank, for a source whose destinations do not know the messages);
 *   - the counts every source reports (enum msg_count), written straight
 *     into the source's result where its fields (struct msg_field) say,
 *     and the rows that reduce them over a partitioned run's ranks;
 *   - the makespan.
 */

#define MSGSRC_NONE UINT32_MAX

enum msg_where { MSG_AT_DST = 0, MSG_AT_SRC };

/* The counts the layer keeps, and how a partitioned run combines each. */
enum msg_count {
	MSG_RELEASED = 0,       /* messages released (sum) */
	MSG_PK_SENT,            /* packets handed to the NICs (sum) */
	MSG_FIRST_REL,          /* cycle of the first release (min; UINT64_MAX:
	                         * none) */
	MSG_LAST_REL,           /* of the latest (max) */
	MSG_MESSAGES,           /* messages arrived whole (sum) */
	MSG_PACKETS,            /* their packets (sum) */
	MSG_BYTES,              /* their bytes (sum) */
	MSG_LAST_DONE,          /* cycle the last of them arrived (max) */
	MSG_LAST_GEN,           /* the latest generation among them (max) */
	MSG_PK_WINDOW,          /* packets arrived inside the window (sum) */
	MSG_LATENCY,            /* tt_hist: generation to last packet, of the
	                         * messages generated inside the window */
	MSG_NCOUNTS,
	MSG_OWN                 /* a source's own count, combined by op */
};

/* Where a source's result keeps a count (a uint64_t, or the tt_hist of
 * MSG_LATENCY); op only for MSG_OWN. */
struct msg_field {
	enum msg_count what;
	size_t off;
	enum tt_sim_op op;
};

struct msgsrc_params {
	tt_netparams net;       /* packet_flits, flit_bytes, link_gbps */
	enum msg_where where;
	/* the measurement window [warmup, window_end) (window_end 0: no
	 * end), for MSG_PK_WINDOW and MSG_LATENCY */
	uint64_t warmup, window_end;
	size_t user_size;       /* bytes of the source's own per entry */
	/* the source's result and where its counts are */
	void *res;
	const struct msg_field *fields;
	size_t nfields;
	void *ctx;
	/* entry id's last packet arrived (d: that packet's delivery) */
	void (*done)(void *ctx, uint32_t id, const tt_delivery *d);
	/* MSG_AT_DST: a packet of (src, seq) to a PE here has no entry; 0 once
	 * there is one (msgsrc_expect()), -1 to drop the packet */
	int (*unknown)(void *ctx, uint32_t src, uint32_t dst, uint32_t seq);
};

/* An expected message: the layer's part of an entry. */
struct msg_entry {
	uint64_t bytes, npk, got;
	uint64_t done_at;       /* cycle its last packet arrived */
	uint32_t src, dst, seq;
	uint32_t next;          /* the free list */
	uint8_t live, done;
};

/* A PE's message being handed to its NIC. */
struct msg_out {
	uint64_t gen, left;
	uint32_t dst, tag, last_flits;
};

struct msgsrc {
	struct msgsrc_params p;
	tt_sim *sim;
	uint32_t npes, pe0, pe1;        /* pe0..pe1: simulated here */
	uint64_t pkt_bytes;
	double cycle_ns;
	struct msg_out *out;            /* pe1 - pe0 */
	/* entries: stride bytes each, the layer's then the source's */
	unsigned char *ent;
	size_t stride;
	uint32_t nent, cap, free_head;
	uint64_t live;                  /* entries held */
	tt_u64map by_key;               /* MSG_AT_DST: (src, seq) -> entry */
	uint64_t *c[MSG_NCOUNTS];       /* into p.res, or sink */
	tt_hist *latency;
	uint64_t sink[MSG_NCOUNTS];
	tt_hist sink_hist;
};

/* Set ms up on sim and hook its deliveries (sim must outlive it).  0, or
 * -1 with err set. */
int msgsrc_init(struct msgsrc *ms, tt_sim *sim, const struct msgsrc_params *p,
    char *err, size_t errsz);
void msgsrc_free(struct msgsrc *ms);

/* Packets of a message of bytes (one for none), in 64 bits: bytes may be
 * 4 GiB and a packet one byte. */
static inline uint64_t
msgsrc_packets(const struct msgsrc *ms, uint64_t bytes)
{
	if (bytes == 0)
		return 1;
	return bytes / ms->pkt_bytes + (bytes % ms->pkt_bytes != 0);
}
/* ns in cycles, unrounded and rounded; cycles in ns, rounded. */
double msgsrc_cycles_f(const struct msgsrc *ms, double ns);
uint64_t msgsrc_cycles(const struct msgsrc *ms, double ns);
uint64_t msgsrc_ns(const struct msgsrc *ms, uint64_t cycles);

/* Release a message of bytes from pe (here) to dst at cycle gen, its
 * packets tagged tag (MSG_AT_DST: its sequence number; MSG_AT_SRC: its
 * entry). */
static inline void
msgsrc_send(struct msgsrc *ms, uint32_t pe, uint32_t dst, uint32_t tag,
    uint64_t bytes, uint64_t gen)
{
	struct msg_out *o = &ms->out[pe - ms->pe0];

	o->gen = gen;
	o->dst = dst;
	o->tag = tag;
	o->left = msgsrc_packets(ms, bytes);
	o->last_flits = tt_last_packet_flits(bytes, ms->p.net.packet_flits,
	    ms->p.net.flit_bytes);
	(*ms->c[MSG_RELEASED])++;
	if (gen < *ms->c[MSG_FIRST_REL])
		*ms->c[MSG_FIRST_REL] = gen;
	if (gen > *ms->c[MSG_LAST_REL])
		*ms->c[MSG_LAST_REL] = gen;
}
/* 1 while pe's released message has packets to hand. */
static inline int
msgsrc_busy(const struct msgsrc *ms, uint32_t pe)
{
	return ms->out[pe - ms->pe0].left > 0;
}
/* Its next packet into pk (TT_SRC_PACKET is the source's answer): 1 if it
 * was the message's last. */
static inline int
msgsrc_packet(struct msgsrc *ms, uint32_t pe, tt_srcpkt *pk)
{
	struct msg_out *o = &ms->out[pe - ms->pe0];

	pk->gen = o->gen;
	pk->dst = o->dst;
	pk->tag = o->tag;
	(*ms->c[MSG_PK_SENT])++;
	if (--o->left > 0)
		return 0;
	pk->flits = o->last_flits;
	return 1;
}

/* An entry for message (src, seq) of bytes to dst: its id, or MSGSRC_NONE
 * out of memory.  MSG_AT_DST: (src, seq) must have none yet.  The
 * source's part of the entry is the source's to set: it holds whatever a
 * dropped entry left there. */
uint32_t msgsrc_expect(struct msgsrc *ms, uint32_t src, uint32_t dst,
    uint32_t seq, uint64_t bytes);
/* MSG_AT_DST: the entry of (src, seq), or MSGSRC_NONE. */
uint32_t msgsrc_find(const struct msgsrc *ms, uint32_t src, uint32_t seq);
/* Entry id and the source's part of it (valid until the next
 * msgsrc_expect()). */
static inline struct msg_entry *
msgsrc_entry(const struct msgsrc *ms, uint32_t id)
{
	return (struct msg_entry *)(void *)(ms->ent + (size_t)id * ms->stride);
}
static inline void *
msgsrc_user(const struct msgsrc *ms, uint32_t id)
{
	return ms->ent + (size_t)id * ms->stride + sizeof(struct msg_entry);
}
/* The entry is free again (MSG_AT_DST: (src, seq) is unknown again). */
static inline void
msgsrc_drop(struct msgsrc *ms, uint32_t id)
{
	struct msg_entry *e = msgsrc_entry(ms, id);

	if (ms->p.where == MSG_AT_DST)
		tt_u64map_del(&ms->by_key, tt_u64map_key(e->src, e->seq));
	e->live = 0;
	e->next = ms->free_head;
	ms->free_head = id;
	ms->live--;
}
/* One past the highest entry id ever used (to visit them: live ones). */
static inline uint32_t
msgsrc_entries(const struct msgsrc *ms)
{
	return ms->nent;
}

/* Makespan: first release to last arrival, cycles (0 if nothing arrived). */
uint64_t msgsrc_makespan(uint64_t first_rel, uint64_t last_done,
    uint64_t messages);

/* The fields of each source's result (msgsrc.c). */
extern const struct msg_field msg_replay_fields[], msg_causal_fields[],
    msg_motif_fields[];
extern const size_t msg_replay_nfields, msg_causal_nfields, msg_motif_nfields;

/* A source's result after a partitioned run: every rank's counts,
 * combined as msgsrc.c's rows say (each rank counted its own PEs'
 * messages).  Collective; nothing for a serial simulator. */
void tt_replay_reduce(const tt_sim *sim, tt_replay_result *rr);
/* A causal replay's (its replay counts too) and a motif's. */
void tt_causal_reduce(const tt_sim *sim, tt_causal_result *r);
void tt_motif_reduce(const tt_sim *sim, tt_motif_result *r);

#endif
