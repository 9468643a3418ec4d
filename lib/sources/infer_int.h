/*
 * Dependency inference's state, private to lib/: shared by the rules
 * (infer.c) and the trace reader that feeds them (infer_trace.c).
 */
#ifndef TWINTORUS_INFER_INT_H
#define TWINTORUS_INFER_INT_H

#include <stdint.h>

#include "twintorus/infer.h"
#include "support/u64map.h"

#define NONE            UINT32_MAX
#define MAX_PASS        16      /* bursts a received message may wait for */
#define MAX_PENDING     4096    /* received messages a PE holds untaken */
#define MAX_WARN        8

enum { IT_SEND, IT_RECV };

struct item {
	uint64_t t;
	uint32_t a, b;          /* send: message; receive: source, sequence */
	uint32_t fp;            /* receive: the delivered frame's frame_fp() */
	uint8_t kind;
};

/* A frame of a message not yet delivered. */
struct iframe {
	uint32_t seq;
	uint32_t fp;            /* what else identifies it (infer.c, frame_fp()) */
};

struct imsg {
	uint64_t bytes, t_send, t_last, t_arr, flowkey;
	uint32_t src, seq, dst, burst, clock;
	uint32_t ans;           /* its sender's burst answered a message of
	                         * this burst of dst's (0: none) */
	uint32_t nframes, ndeliv, passes;
	uint32_t onext, oprev;  /* its clock's open list (TCP, not closed) */
	uint32_t next;          /* free list */
	struct iframe f0;       /* frames not yet delivered: f0 (if has_f0) */
	struct iframe *fs;      /* and these */
	uint32_t nfs, fscap;
	/* TCP (rule 2): the spacing of its last two segments, whether the
	 * last ended a write (PSH), and whether it is off its clock's open
	 * list while it may still go on (stalled) */
	uint64_t spacing;
	uint64_t t_ack;         /* the latest pure ACK of its connection
	                         * that reached its sender after t_last */
	uint32_t seg_max, seg_last;     /* its largest segment's payload,
	                                 * its last one's */
	uint8_t used, has_f0, closed, emitted, complete, pending, gone;
	uint8_t psh, stalled;
};

struct ipe {
	struct item *q;
	uint32_t qhead, qn, qcap;
	uint32_t *pend;         /* received messages not yet taken */
	uint32_t npend, pcap;
	struct bpred {          /* the current burst's predecessors */
		uint32_t src, burst;
	} *bp;
	uint32_t nbp, bpcap;
	uint64_t last_send, t_first;
	uint64_t last_end;      /* the last frame of its latest message */
	uint64_t gap_sum, t_end;        /* its gaps; its last event */
	uint64_t t_in;          /* the latest data delivered to it */
	uint32_t burst;
	uint8_t has_sent, has_event, recv_since, queued;
};

struct oline {
	tt_dep d;
	tt_depref pred[];
};

struct infer_reader;

struct tt_infer {
	tt_infer_params p;
	struct ipe *pe;
	struct imsg *m;
	uint32_t nm, mcap, free_head, held;
	tt_u64map frames;       /* (src, frame seq) -> message */
	tt_u64map flows;        /* (src, connection) -> its open message */
	tt_u64map tcp_sent;     /* (src, connection) -> the end of the data
	                         * sent on it so far (TCP sequence) */
	tt_u64map tcp_had;      /* (dst, connection) -> of the data delivered */
	uint32_t *ohead, *otail, nclocks;
	uint32_t *work, nwork;  /* PEs to advance */
	struct oline **out;     /* lines ready, a ring */
	size_t ohd, on, ocap;
	struct oline *popped;
	tt_depref *tmp;         /* predecessors being chosen */
	uint32_t tmpcap;
	uint64_t now, next_check;
	uint64_t gap_sum, gap_n;        /* gaps of sends with predecessors */
	int finished, failed;
	char warn[MAX_WARN][200];
	int nwarn;
	tt_infer_stats st;
	struct infer_reader *rd;
};

/* infer_trace.c */
void infer_reader_free(struct infer_reader *rd);

#endif
