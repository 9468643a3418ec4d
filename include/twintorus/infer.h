/*
 * twintorus: inferring an application's dependencies from its trace.
 *
 * ttd records, per node, every frame a PE sends (at the TAP read) and a
 * copy of every frame delivered to one (TT_FRAME_F_DELIVERED), each with
 * its source PE and the source's sequence number.  So every PE's sends and
 * receives are in one file, in order, on one clock, and a receive is
 * matched to its send by (source, sequence) whatever the clocks of the two
 * nodes say.  From that, for each message: which received messages enabled
 * it, and how long its PE computed first (twintorus/deps.h).  The rules,
 * in the order they apply:
 *
 *  1. Transport is set aside.  ARP, IPv6 neighbour discovery (ICMPv6 types
 *     133-137), TCP segments without payload (pure ACKs; SYN, FIN and
 *     RST without data) and TCP retransmissions (a data segment whose
 *     bytes its sender has sent on the connection before, and the
 *     delivery copy of one whose bytes its receiver has had) are the
 *     network stack's, not the application's: counted (sends and delivery
 *     copies alike), never messages.
 *  2. Frames are grouped into messages.  The data segments a PE sends on
 *     one TCP connection in one direction form one message per write of
 *     the application, however the transport paced it: a segment
 *     continues the message while the previous one did not end a write
 *     (Linux marks a write's last segment with PSH; the window may hold
 *     the rest of a write back for any time), or when the message's
 *     segments came at the network's pace, further apart than
 *     burst_gap_ns (ttd reads a PE's TAP at once until its buffer for the
 *     PE is full, then as the network takes frames), and this one keeps
 *     it (within twice their spacing: the kernel pushed in the middle of
 *     a write while it waited for memory).  After a PSH on a full
 *     segment, a segment also continues the message when the sender was
 *     only waiting for the transport: a pure ACK of the connection
 *     reached the sender after the message's last segment, the segment
 *     follows that ACK within ack_turn_ns, and no data reached the sender
 *     in between (on a slow link Linux sends a large write a few full
 *     segments per ACK, each piece ending in PSH: Open MPI's 64 KiB
 *     messages came as 3 KB pieces 5 ms apart at 5 Mbit/s, each sent
 *     110-160 us after an ACK).  Data coming back on the connection (a
 *     reply) ends a message.  Any other frame (UDP, other IP, other
 *     EtherTypes, and ttd's header-only records) is a message of its own.
 *     A message is sent at its first frame and received at the delivery
 *     of its last.
 *  3. A delivery copy whose send is not in the trace (the sender's capture
 *     started late or lost it) is a receive of nothing: counted, dropped.
 *     So is one that is not consistent with the send of its (source,
 *     sequence): a copy delivered to another PE than the message went to,
 *     or of another size on the wire, class, TCP connection or byte range
 *     than the frame sent (a copy damaged on its way to the trace, or a
 *     record misattributed) is counted apart (mismatched), never
 *     credited to the PE it names; the send still waits for its own
 *     delivery.
 *     A message one of whose frames is never delivered is replayed but
 *     enables nothing: counted.  Each waits window_ns of trace time for
 *     the record that would resolve it, then is decided.
 *  4. A PE's sends form bursts: sends one after the other, with no receive
 *     between them and no pause of more than pause_ns.
 *     The first send of a burst is enabled by the messages received since
 *     the previous burst, taken per source in the order the source sent
 *     them, by units (a source's messages of one burst of its own): from
 *     every source as many of its oldest units as every source sent (k,
 *     the fewest); a unit that answers the PE's previous burst (its
 *     sender had received a message of it) while an older unit of the same
 *     sender waits is a step ahead and left out.  When k > 1, one unit per
 *     source is taken instead if that makes a compute gap nearer the mean
 *     gap so far (its sources were all a step ahead of a long compute,
 *     rather than it waiting for several steps of each).
 *     What is not taken enables the PE's next burst: in an iterative code
 *     a fast neighbour's next message often arrives before the PE has
 *     finished its step.  The other sends of a burst have no
 *     predecessors.
 *     A TCP message instead has one predecessor: the latest message its
 *     PE had received before it, if no earlier send took it; the others
 *     received since the PE's previous send enable nothing (none waits
 *     for a later send: no stale links).  Open MPI's protocol messages
 *     (a rendezvous, its clear-to-send) are messages like any other.
 *  5. The gap of a send is its time minus the later of the PE's previous
 *     send and the arrival of its predecessors; for a PE's first send
 *     without predecessors, minus the PE's first event.  For a TCP
 *     message the previous send counts from its last frame: the time the
 *     transport took to carry it is the network's (replay sends its
 *     packets first, so a slower network delays this one as it would
 *     have).  A send with predecessors leaves turnaround_ns out of its
 *     gap (at most all of it): the time the recorded hosts take, beyond
 *     the trace's points (a frame delivered to the PE's TAP, one read
 *     from it), to take a message up to the application and the answer
 *     down, which a hardware model's endpoint overheads give back in the
 *     simulation (twintorus/model.h: host_ns).  Every time is the PE's
 *     own node's clock.
 *  6. Lines go out so that a message's predecessors come before it.  Two
 *     messages that each wait for the other (impossible in a faithful
 *     trace; possible with bad clocks in a plain capture) are a cycle: at
 *     the end of the trace the dependency is dropped, with a warning naming
 *     both, so that the file is always complete and replay never hangs.
 *
 * Plain captures (tcpdump through an address map) have no delivery copies
 * and no sequence numbers: a frame counts as received when it was captured
 * (an approximation: the capture point is on the path, not at the PE), and
 * each source's frames are numbered in capture order.  A trace of torus
 * frames without any delivery copy is read the same way.
 *
 * Limits.  A TCP trace without PSH marks (another stack, or segments
 * coalesced before the capture) has one message per connection and
 * direction between replies; a write that the kernel pushed in parts and
 * whose parts came further apart than twice their frames' spacing is
 * several messages.  Rule 4 reads steps from the order and timing of messages: a PE
 * whose sources are unevenly ahead, or whose compute varies a lot, can be
 * credited with one step too many or too few.  A message whose
 * predecessors were all received long before (the PE computed meanwhile
 * on its own) is still taken to depend on them.  Compute that overlaps
 * communication (a send, then computing while a receive is in flight) is
 * seen as a gap after the receive.  A segment lost in the capture's path
 * and sent again is a message never delivered (its first copy) and a
 * delivery without a send (the copy that arrived): both counted, the
 * message replayed, enabling nothing.  A message the application sends in
 * several TCP bursts
 * (a pause of more than burst_gap_ns inside it) is several messages.
 */
#ifndef TWINTORUS_INFER_H
#define TWINTORUS_INFER_H

#include <stdint.h>
#include <stdio.h>

#include "twintorus/deps.h"
#include "twintorus/trace.h"
#include "twintorus/api.h"

TT_BEGIN_DECLS

/* What a frame is (rule 1 and 2). */
enum tt_infer_cls {
	TT_INFER_MSG = 0,       /* a message of its own */
	TT_INFER_TCP_DATA,      /* a TCP segment with payload: grouped */
	TT_INFER_TCP_ACK,       /* transport: a pure ACK */
	TT_INFER_TCP_CTL,       /* transport: SYN, FIN or RST without data */
	TT_INFER_ARP,           /* transport */
	TT_INFER_ND             /* transport: IPv6 neighbour discovery */
};

/* One record of a trace, as the inference sees it. */
typedef struct tt_infer_ev {
	uint32_t clock;         /* whose clock t_ns is on (the file) */
	uint64_t t_ns;
	int delivered;          /* a delivery copy, at dst */
	int arrives;            /* a send that also counts as received at
	                         * this time (plain captures) */
	uint32_t src, dst, seq;
	uint64_t bytes;         /* the carried frame's, on the wire */
	int cls;                /* enum tt_infer_cls */
	uint64_t flow, rflow;   /* TCP: this direction's connection, and
	                         * the other direction's */
	uint32_t tcp_seq, tcp_len;      /* TCP data: its sequence range */
	uint8_t tcp_psh;        /* the PSH flag: the sender's write may end
	                         * here (Linux marks a write's last segment) */
} tt_infer_ev;

/* Classify the carried (Ethernet) frame of caplen bytes: cls, flow,
 * rflow, and for TCP data its sequence range.  Too short to tell: a
 * message of its own. */
void tt_infer_classify(const uint8_t *frame, size_t caplen,
    tt_infer_ev *ev);

typedef struct tt_infer_params {
	uint32_t npes;          /* PE ids below this */
	uint64_t burst_gap_ns;  /* rule 2 (default 50000) */
	uint64_t window_ns;     /* rule 3 (default 100 ms) */
	uint64_t pause_ns;      /* rule 4 (default 1000) */
	uint64_t ack_turn_ns;   /* rule 2: an ACK-clocked segment's most
	                         * time after the ACK (default 500000) */
	uint64_t turnaround_ns; /* rule 5: the recorded hosts' turnaround
	                         * (default 0) */
	int no_copies;          /* the trace has no delivery copies: a frame
	                         * is received when it was captured */
	const tt_addrmap *map;  /* plain captures (NULL: none) */
} tt_infer_params;

/* tt_infer_params_default()'s values */
#define TT_INFER_BURST_GAP_NS_DEFAULT   50000
#define TT_INFER_WINDOW_NS_DEFAULT      100000000
#define TT_INFER_PAUSE_NS_DEFAULT       1000
#define TT_INFER_ACK_TURN_NS_DEFAULT    500000
void tt_infer_params_default(tt_infer_params *p);

typedef struct tt_infer_stats {
	uint64_t records;       /* read */
	uint64_t frames;        /* data frames sent, transport aside */
	uint64_t deliveries;    /* delivery copies, transport aside */
	uint64_t plain;         /* of the frames: plain (address map) */
	uint64_t messages;      /* lines written */
	uint64_t grouped;       /* frames that joined a message started by
	                         * an earlier one */
	uint64_t predecessors;
	uint64_t tcp_acks, tcp_control, arp, nd;        /* set aside */
	uint64_t tcp_retrans;   /* set aside: data already sent (or already
	                         * delivered) on its connection */
	uint64_t hello;          /* hello and credit frames: link control */
	uint64_t unmapped;
	uint64_t lost_sends;    /* deliveries whose send is not in the trace */
	uint64_t mismatched;    /* deliveries inconsistent with the send of
	                         * their (source, sequence): rule 3 */
	uint64_t undelivered;   /* messages with a frame never delivered */
	uint64_t passed_over;   /* received messages that enabled nothing */
	uint64_t cycles_broken; /* dependencies dropped to break a cycle */
	uint64_t truncated;     /* files whose last record was cut short */
	uint64_t backwards;     /* records older than the one before them */
	uint64_t max_held;      /* most messages held at once */
	/* Compute: the gaps of all lines, and per PE that sent, its gaps as
	 * a share of the trace's span (first event to last, each on its own
	 * clock: exact where the nodes share one); at the end */
	uint64_t gap_ns, span_ns;
	double gap_share_mean, gap_share_max;
} tt_infer_stats;

typedef struct tt_infer tt_infer;

/* ---- the rules, on events (tests feed hand-made ones) ---- */

int tt_infer_create(tt_infer **ip, const tt_infer_params *p, char *err,
    size_t errsz);
/* One event; every clock's events in time order.  0, or -1 out of
 * memory. */
int tt_infer_feed(tt_infer *inf, const tt_infer_ev *ev);
/* No more events: decide what waits. */
void tt_infer_end(tt_infer *inf);
/* The next line out: 1 (d->pred valid until the next call), 0 if none
 * is ready. */
int tt_infer_pop(tt_infer *inf, tt_dep *d);

/* ---- on traces ---- */

/* Open paths (files or directories, as tt_trace_in_open()). */
int tt_infer_open(tt_infer **ip, const char *const *paths, size_t npaths,
    const tt_infer_params *p, char *err, size_t errsz);
/* The next line: 1, 0 at the end, -1 with err set ("FILE: record N: ..."). */
int tt_infer_next(tt_infer *inf, tt_dep *d, char *err, size_t errsz);
/* The lines as a stream (twintorus/deps.h). */
tt_dep_stream tt_infer_stream(tt_infer *inf);

const tt_infer_stats *tt_infer_stats_get(const tt_infer *inf);
/* One line per thing a user should know about the dependencies, each
 * starting with prefix (the trace's own, a file cut short or records out
 * of order, are tt_trace_in_warnings()'s: stats has their counts). */
void tt_infer_warnings(const tt_infer *inf, FILE *f, const char *prefix);
void tt_infer_free(tt_infer *inf);

TT_END_DECLS

#endif
