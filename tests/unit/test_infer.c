/*
 * Dependency inference (twintorus/infer.h), one test per rule, on event
 * lists written by hand (and a few frames and pcap files):
 *   1. transport (TCP ACKs, SYN/FIN/RST, ARP, IPv6 ND) is counted, never a
 *      message, sent or delivered; the classifier tells each kind from its
 *      bytes, tagged or not, IPv4 or IPv6, reads a data segment's sequence
 *      range, and takes a frame too short to read as a message of its own;
 *      a TCP retransmission (its bytes sent before on the connection, or
 *      delivered before) is transport, sequence numbers compared across
 *      their wrap;
 *   2. TCP data segments of one direction group into one message until a
 *      pause of more than burst_gap or data the other way; the message is
 *      sent at its first segment and received at the delivery of its last;
 *      a transfer paced by the network (the sender held back, pushes
 *      inside a write) is one message with the same gaps at 10 Gb/s and
 *      at 20 Mb/s; a pause after a finished write is a gap; a write right
 *      after a finished one is a message of its own;
 *      a TCP send's predecessor is the latest message received;
 *   3. a delivery whose send is missing and a message a frame of which is
 *      never delivered are counted and enable nothing, at the end of the
 *      trace and, before it, once the window has passed; a delivery copy
 *      inconsistent with the send of its (source, sequence) (delivered to
 *      another PE, another size, class, TCP connection or range) is
 *      counted, credited to no one, and the real copy after it matches;
 *      at the end what waited behind an open message is worked off before
 *      anything is given up; a file cut inside its last record is read up
 *      to it;
 *   4. a burst's first send takes from each source its oldest step, all
 *      steps of every source when each sent several, one of each when the
 *      gaps say the sources ran ahead, and leaves a message that answers
 *      the PE's last burst for its next one;
 *   5. gaps: from the later of the previous send and the predecessors,
 *      from the PE's first event for its first send, on the PE's own clock
 *      whatever the other clocks say (a delivery read before its send);
 *   6. a cycle is broken with a warning naming both messages, and every
 *      line still comes out after its predecessors;
 * and plain captures count a frame as received when captured.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "twintorus/frame.h"
#include "twintorus/infer.h"
#include "twintorus/trace.h"

#define NPES 8
#define MAXL 64

struct out {
	tt_dep d[MAXL];
	tt_depref pred[MAXL][16];
	int n;
	tt_infer_stats st;
	char warn[2048];
};

/* Event shorthands: a send (at src's clock) and a delivery (at dst's). */
static tt_infer_ev
snd(uint64_t t, uint32_t src, uint32_t dst, uint32_t seq)
{
	tt_infer_ev e;

	memset(&e, 0, sizeof(e));
	e.clock = src / 2;
	e.t_ns = t;
	e.src = src;
	e.dst = dst;
	e.seq = seq;
	e.bytes = 1000;
	return e;
}

static tt_infer_ev
dlv(uint64_t t, uint32_t src, uint32_t dst, uint32_t seq)
{
	tt_infer_ev e = snd(t, src, dst, seq);

	e.clock = dst / 2;
	e.delivered = 1;
	return e;
}

static tt_infer_ev
tcp(tt_infer_ev e, uint64_t flow, uint64_t rflow)
{
	e.cls = TT_INFER_TCP_DATA;
	e.flow = flow;
	e.rflow = rflow;
	return e;
}

static void
run(const tt_infer_ev *ev, int nev, const tt_infer_params *pp, struct out *o)
{
	tt_infer_params p;
	tt_infer *inf;
	char err[256];
	FILE *f;
	int i;

	if (pp != NULL)
		p = *pp;
	else
		tt_infer_params_default(&p);
	p.npes = NPES;
	memset(o, 0, sizeof(*o));
	assert_int_equal(tt_infer_create(&inf, &p, err, sizeof(err)), 0);
	for (i = 0; i < nev; i++)
		assert_int_equal(tt_infer_feed(inf, &ev[i]), 0);
	tt_infer_end(inf);
	while (o->n < MAXL && tt_infer_pop(inf, &o->d[o->n])) {
		assert_true(o->d[o->n].npred <= 16);
		memcpy(o->pred[o->n], o->d[o->n].pred,
		    o->d[o->n].npred * sizeof(tt_depref));
		o->d[o->n].pred = o->pred[o->n];
		o->n++;
	}
	o->st = *tt_infer_stats_get(inf);
	f = fmemopen(o->warn, sizeof(o->warn) - 1, "w");
	tt_infer_warnings(inf, f, "");
	fclose(f);
	tt_infer_free(inf);
}

/* The line of message pe:seq (fails if missing). */
static const tt_dep *
line(const struct out *o, uint32_t pe, uint32_t seq)
{
	int i;

	for (i = 0; i < o->n; i++)
		if (o->d[i].pe == pe && o->d[i].seq == seq)
			return &o->d[i];
	fail_msg("no line for %u:%u", pe, seq);
	return NULL;
}

static int
has_pred(const tt_dep *d, uint32_t src, uint32_t seq)
{
	uint32_t k;

	for (k = 0; k < d->npred; k++)
		if (d->pred[k].src == src && d->pred[k].seq == seq)
			return 1;
	return 0;
}

/* Every predecessor's line comes before the line that names it. */
static void
assert_topological(const struct out *o)
{
	int i, j;
	uint32_t k;

	for (i = 0; i < o->n; i++)
		for (k = 0; k < o->d[i].npred; k++) {
			for (j = 0; j < i; j++)
				if (o->d[j].pe == o->d[i].pred[k].src &&
				    o->d[j].seq == o->d[i].pred[k].seq)
					break;
			assert_true(j < i);
		}
}

/* Every predecessor names a message sent to the line's PE, whose line
 * came before (a message the PE had). */
static void
assert_preds_valid(const struct out *o)
{
	int i, j;
	uint32_t k;

	for (i = 0; i < o->n; i++)
		for (k = 0; k < o->d[i].npred; k++) {
			for (j = 0; j < i; j++)
				if (o->d[j].pe == o->d[i].pred[k].src &&
				    o->d[j].seq == o->d[i].pred[k].seq &&
				    o->d[j].dst == o->d[i].pe)
					break;
			if (j == i)
				fail_msg("line %u:%u names %u:%u, no message "
				    "to PE %u before it", o->d[i].pe,
				    o->d[i].seq, o->d[i].pred[k].src,
				    o->d[i].pred[k].seq, o->d[i].pe);
		}
}

/* ---- rule 1: transport, and the classifier ---- */

static void
test_transport_set_aside(void **state)
{
	tt_infer_ev ev[8];
	struct out o;
	int i, cls[4] = {TT_INFER_TCP_ACK, TT_INFER_TCP_CTL, TT_INFER_ARP,
	    TT_INFER_ND};

	(void)state;
	for (i = 0; i < 4; i++) {
		ev[2 * i] = snd(100 + (uint64_t)i, 0, 2, (uint32_t)i);
		ev[2 * i].cls = cls[i];
		ev[2 * i + 1] = dlv(150 + (uint64_t)i, 0, 2, (uint32_t)i);
		ev[2 * i + 1].cls = cls[i];
	}
	run(ev, 8, NULL, &o);
	assert_int_equal(o.n, 0);
	assert_int_equal(o.st.tcp_acks, 2);
	assert_int_equal(o.st.tcp_control, 2);
	assert_int_equal(o.st.arp, 2);
	assert_int_equal(o.st.nd, 2);
	assert_int_equal(o.st.frames, 0);
	assert_int_equal(o.st.deliveries, 0);
}

/* An Ethernet frame: IPv4 (or IPv6) TCP with flags and payload bytes. */
static size_t
frame_tcp(uint8_t *b, int v6, int vlan, uint8_t flags, int payload)
{
	size_t o = 14, ip, tcp, n;

	memset(b, 0, 200);
	if (vlan) {
		b[12] = 0x81;
		b[16] = v6 ? 0x86 : 0x08;
		b[17] = v6 ? 0xdd : 0x00;
		o = 18;
	} else {
		b[12] = v6 ? 0x86 : 0x08;
		b[13] = v6 ? 0xdd : 0x00;
	}
	ip = o;
	if (v6) {
		b[ip] = 0x60;
		b[ip + 4] = (uint8_t)((20 + payload) >> 8);
		b[ip + 5] = (uint8_t)(20 + payload);
		b[ip + 6] = 6;
		b[ip + 23] = 1;         /* source ::1, destination ::2 */
		b[ip + 39] = 2;
		tcp = ip + 40;
	} else {
		b[ip] = 0x45;
		b[ip + 2] = (uint8_t)((40 + payload) >> 8);
		b[ip + 3] = (uint8_t)(40 + payload);
		b[ip + 9] = 6;
		b[ip + 12] = 10;
		b[ip + 15] = 1;
		b[ip + 16] = 10;
		b[ip + 19] = 2;
		tcp = ip + 20;
	}
	b[tcp + 1] = 80;                /* ports 80 -> 8080 */
	b[tcp + 2] = 0x1f;
	b[tcp + 3] = 0x90;
	b[tcp + 12] = 0x50;
	b[tcp + 13] = flags;
	n = tcp + 20;
	return n;       /* captured: headers only; the lengths say the rest */
}

static void
test_classify_frames(void **state)
{
	uint8_t b[200];
	tt_infer_ev e, r;
	size_t n;

	(void)state;
	n = frame_tcp(b, 0, 0, 0x18, 100);
	b[38] = 0x12;                   /* TCP sequence 0x12345678 */
	b[39] = 0x34;
	b[40] = 0x56;
	b[41] = 0x78;
	tt_infer_classify(b, n, &e);
	assert_int_equal(e.cls, TT_INFER_TCP_DATA);
	assert_int_equal(e.tcp_seq, 0x12345678u);
	assert_int_equal(e.tcp_len, 100);
	/* the other direction of the same connection: flows swap */
	b[29] = 2;
	b[33] = 1;
	b[34] = 0x1f;
	b[35] = 0x90;
	b[36] = 0;
	b[37] = 80;
	tt_infer_classify(b, n, &r);
	assert_true(r.flow == e.rflow && r.rflow == e.flow && e.flow != e.rflow);
	n = frame_tcp(b, 0, 0, 0x10, 0);
	tt_infer_classify(b, n, &e);
	assert_int_equal(e.cls, TT_INFER_TCP_ACK);
	n = frame_tcp(b, 0, 0, 0x02, 0);
	tt_infer_classify(b, n, &e);
	assert_int_equal(e.cls, TT_INFER_TCP_CTL);
	n = frame_tcp(b, 1, 0, 0x18, 1);
	tt_infer_classify(b, n, &e);
	assert_int_equal(e.cls, TT_INFER_TCP_DATA);
	n = frame_tcp(b, 1, 1, 0x11, 0);       /* tagged, FIN */
	tt_infer_classify(b, n, &e);
	assert_int_equal(e.cls, TT_INFER_TCP_CTL);
	n = frame_tcp(b, 0, 1, 0x10, 0);
	tt_infer_classify(b, n, &e);
	assert_int_equal(e.cls, TT_INFER_TCP_ACK);
	/* ARP; IPv6 ICMP neighbour solicitation; UDP; cut short */
	memset(b, 0, sizeof(b));
	b[12] = 0x08;
	b[13] = 0x06;
	tt_infer_classify(b, 42, &e);
	assert_int_equal(e.cls, TT_INFER_ARP);
	b[12] = 0x86;
	b[13] = 0xdd;
	b[14 + 6] = 58;
	b[14 + 40] = 135;
	tt_infer_classify(b, 14 + 48, &e);
	assert_int_equal(e.cls, TT_INFER_ND);
	b[14 + 40] = 128;               /* echo request: a message */
	tt_infer_classify(b, 14 + 48, &e);
	assert_int_equal(e.cls, TT_INFER_MSG);
	b[12] = 0x08;
	b[13] = 0x00;
	b[14] = 0x45;
	b[14 + 9] = 17;
	tt_infer_classify(b, 14 + 28, &e);
	assert_int_equal(e.cls, TT_INFER_MSG);
	n = frame_tcp(b, 0, 0, 0x10, 0);
	tt_infer_classify(b, n - 10, &e);       /* TCP header cut */
	assert_int_equal(e.cls, TT_INFER_MSG);
	tt_infer_classify(b, 10, &e);           /* not even Ethernet */
	assert_int_equal(e.cls, TT_INFER_MSG);
}

/* Segments of one connection: PE 0 sends 100 bytes at sequence s0 and
 * 100 more, the first sent again 20 us later (a spurious retransmission:
 * both copies are delivered), then 100 bytes after the sequence wrapped;
 * PE 2 answers once everything is in. */
static void
test_tcp_retransmission_set_aside(void **state)
{
	const uint32_t s0 = 0xffffff00u;
	tt_infer_ev ev[] = {
		tcp(snd(1000, 0, 2, 10), 7, 8),
		tcp(snd(2000, 0, 2, 11), 7, 8),
		tcp(dlv(2500, 0, 2, 10), 7, 8),
		tcp(dlv(3500, 0, 2, 11), 7, 8),
		tcp(snd(21000, 0, 2, 12), 7, 8),        /* the first again */
		tcp(dlv(22000, 0, 2, 12), 7, 8),
		tcp(snd(23000, 0, 2, 13), 7, 8),        /* past the wrap */
		tcp(dlv(24000, 0, 2, 13), 7, 8),
		tcp(snd(30000, 2, 0, 1), 8, 7),
		tcp(dlv(31000, 2, 0, 1), 8, 7),
	};
	uint32_t seq[] = {s0, s0 + 100, s0, s0 + 100, s0, s0, s0 + 200,
	    s0 + 200, 5000, 5000};
	const tt_dep *d;
	struct out o;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		ev[i].tcp_seq = seq[i];
		ev[i].tcp_len = 100;
	}
	run(ev, (int)(sizeof(ev) / sizeof(ev[0])), NULL, &o);
	assert_int_equal(o.st.tcp_retrans, 2);  /* the send and its copy */
	assert_int_equal(o.st.frames, 4);
	assert_int_equal(o.st.deliveries, 4);
	assert_int_equal(o.n, 2);
	d = line(&o, 0, 10);
	assert_int_equal(d->bytes, 3000);       /* three segments, once each */
	d = line(&o, 2, 1);
	assert_true(has_pred(d, 0, 10));
	assert_int_equal(d->npred, 1);
	assert_topological(&o);
}

/* ---- rule 2: grouping TCP segments ---- */

static void
test_tcp_segments_group(void **state)
{
	/* PE 0 streams 3 segments to PE 2, then (after a pause of more than
	 * the burst gap) 1 more; PE 2 answers once the first three are in */
	tt_infer_ev ev[] = {
		tcp(snd(1000, 0, 2, 10), 7, 8),
		tcp(snd(2000, 0, 2, 11), 7, 8),
		tcp(dlv(2500, 0, 2, 10), 7, 8),
		tcp(snd(3000, 0, 2, 12), 7, 8),
		tcp(dlv(3500, 0, 2, 11), 7, 8),
		tcp(dlv(4500, 0, 2, 12), 7, 8),
		tcp(snd(5000, 2, 0, 1), 8, 7),          /* PE 2 answers */
		tcp(dlv(6000, 2, 0, 1), 8, 7),
		tcp(snd(200000, 0, 2, 13), 7, 8),
		tcp(dlv(201000, 0, 2, 13), 7, 8),
	};
	const tt_dep *d;
	struct out o;

	(void)state;
	run(ev, (int)(sizeof(ev) / sizeof(ev[0])), NULL, &o);
	assert_int_equal(o.n, 3);
	assert_int_equal(o.st.grouped, 2);
	d = line(&o, 0, 10);
	assert_int_equal(d->bytes, 3000);
	assert_int_equal(d->t_ns, 1000);
	/* the answer waited for the last segment: 5000 - 4500 */
	d = line(&o, 2, 1);
	assert_int_equal(d->npred, 1);
	assert_true(has_pred(d, 0, 10));
	assert_int_equal(d->gap_ns, 500);
	d = line(&o, 0, 13);
	assert_int_equal(d->bytes, 1000);
	assert_true(has_pred(d, 2, 1));
	assert_int_equal(d->gap_ns, 200000 - 6000);
}

static void
test_tcp_reply_ends_message(void **state)
{
	/* request 0 -> 2 (two segments), reply 2 -> 0, next request at once:
	 * within the burst gap, but after the reply: a new message */
	tt_infer_ev ev[] = {
		tcp(snd(1000, 0, 2, 1), 7, 8),
		tcp(snd(1100, 0, 2, 2), 7, 8),
		tcp(dlv(1300, 0, 2, 1), 7, 8),
		tcp(dlv(1400, 0, 2, 2), 7, 8),
		tcp(snd(1500, 2, 0, 1), 8, 7),
		tcp(dlv(1700, 2, 0, 1), 8, 7),
		tcp(snd(1800, 0, 2, 3), 7, 8),
		tcp(dlv(2000, 0, 2, 3), 7, 8),
	};
	struct out o;

	(void)state;
	run(ev, (int)(sizeof(ev) / sizeof(ev[0])), NULL, &o);
	assert_int_equal(o.n, 3);
	assert_int_equal(line(&o, 0, 1)->bytes, 2000);
	assert_true(has_pred(line(&o, 0, 3), 2, 1));
	assert_int_equal(line(&o, 0, 3)->gap_ns, 100);
}


/* ---- rule 2 on real TCP: the transport's pacing is not a gap ---- */

#define XMAX 2048

struct xfer {
	tt_infer_ev ev[XMAX];
	int n;
	uint32_t seq[2];        /* next TCP sequence number, each direction */
	uint32_t fseq[NPES];    /* next frame sequence number, each PE */
};

static void
xpush(struct xfer *x, tt_infer_ev e)
{
	assert_true(x->n < XMAX);
	x->ev[x->n++] = e;
}

/* One data segment of len bytes from `from` to `to`, sent at ts and
 * delivered at tr. */
static void
xseg(struct xfer *x, uint32_t from, uint32_t to, uint64_t ts, uint64_t tr,
    uint32_t len, int psh)
{
	int dir = from == 0 ? 0 : 1;
	uint64_t flow = dir == 0 ? 7 : 8, rflow = dir == 0 ? 8 : 7;
	uint32_t fs = x->fseq[from]++;
	tt_infer_ev e = tcp(snd(ts, from, to, fs), flow, rflow);

	e.tcp_seq = x->seq[dir];
	e.tcp_len = len;
	e.bytes = len;
	e.tcp_psh = (uint8_t)psh;
	xpush(x, e);
	e = tcp(dlv(tr, from, to, fs), flow, rflow);
	e.tcp_seq = x->seq[dir];
	e.tcp_len = len;
	e.bytes = len;
	xpush(x, e);
	x->seq[dir] += len;
}

/* The pure ACK `to` sends at `at` for what `from` sent, back at `from`
 * lat_ns later. */
static void
xack(struct xfer *x, uint32_t from, uint32_t to, uint64_t at, uint64_t lat_ns)
{
	uint64_t flow = from == 0 ? 7 : 8, rflow = from == 0 ? 8 : 7;
	uint32_t as = x->fseq[to]++;
	tt_infer_ev a = snd(at, to, from, as);

	a.cls = TT_INFER_TCP_ACK;
	a.flow = rflow;
	a.rflow = flow;
	xpush(x, a);
	a = dlv(at + lat_ns, to, from, as);
	a.cls = TT_INFER_TCP_ACK;
	a.flow = rflow;
	a.rflow = flow;
	xpush(x, a);
}

/*
 * One write of `segs` 1000-byte segments from PE `from` to PE `to`
 * starting at t, on a link that takes seg_ns a segment and lat_ns one
 * way, as ttd records it when the network holds the sender back: the
 * send records come at the network's pace (ttd reads the TAP as its
 * buffer for the PE empties), the receiver acknowledges every second
 * segment on delivery, and the kernel marks a push every `push_every`
 * segments (a sender that waited for memory) and on the write's last.
 * Returns the delivery time of the last segment.
 */
static uint64_t
xwrite(struct xfer *x, uint32_t from, uint32_t to, uint64_t t, int segs,
    uint64_t seg_ns, uint64_t lat_ns, int push_every)
{
	int k;
	uint64_t at = 0;

	for (k = 0; k < segs; k++) {
		uint64_t ts = t + (uint64_t)k * seg_ns;

		at = ts + seg_ns + lat_ns;
		xseg(x, from, to, ts, at, 1000, k == segs - 1 ||
		    (push_every && k % push_every == push_every - 1));
		/* the ACK: sent at the delivery, back one way later */
		if (k % 2 == 1 || k == segs - 1)
			xack(x, from, to, at, lat_ns);
	}
	return at;
}

/*
 * The same write, `segs` segments of which the last has 400 bytes, as
 * Linux sends it when the congestion window holds it back (`clocked`):
 * two full segments back to back, the second marked PSH, then nothing
 * until their ACK is back, the next two 120 us after it.  Otherwise the
 * whole write goes at once, PSH on its last segment.  The receiver
 * acknowledges every second segment on delivery.  Returns the delivery
 * time of the last segment.
 */
static uint64_t
xwrite_clocked(struct xfer *x, uint32_t from, uint32_t to, uint64_t t,
    int segs, uint64_t seg_ns, uint64_t lat_ns, int clocked)
{
	uint64_t ts, at = 0;
	int k;

	for (k = 0; k < segs; k++) {
		int last = k == segs - 1, second = k % 2 == 1;

		if (clocked) {
			ts = t + (second ? 10 : 0);
			at = t + (uint64_t)(1 + second) * seg_ns + lat_ns;
		} else {
			ts = t + (uint64_t)k * 50;
			at = t + (uint64_t)(k + 1) * seg_ns + lat_ns;
		}
		xseg(x, from, to, ts, at, last ? 400 : 1000,
		    last || (clocked && second));
		if (second || last) {
			xack(x, from, to, at, lat_ns);
			if (clocked)
				t = at + lat_ns + 120000;
		}
	}
	return at;
}

static int
ev_time_cmp(const void *a, const void *b)
{
	const tt_infer_ev *x = a, *y = b;

	return x->t_ns < y->t_ns ? -1 : x->t_ns > y->t_ns;
}

/* How pingpong() writes: xwrite() with a push every `push_every`
 * segments, or xwrite_clocked() at once or ACK-clocked. */
enum wstyle { W_PACED, W_AT_ONCE, W_CLOCKED };

/*
 * A ping-pong of 40-segment messages between PE 0 and PE 2 (on nodes 0
 * and 1): PE 0 writes, PE 2 computes 100 us once all of it is in and
 * writes back, PE 0 computes 200 us and writes again; three rounds.  The
 * same program on a 10 Gb/s link and on much slower ones.
 */
static void
pingpong(struct out *o, uint64_t seg_ns, uint64_t lat_ns, int push_every,
    enum wstyle st)
{
	static struct xfer x;
	uint64_t t = 1000;
	int r;

	memset(&x, 0, sizeof(x));
	x.seq[0] = 0xfffff000u;         /* across the wrap */
	x.seq[1] = 5000;
	for (r = 0; r < 6; r++) {
		uint32_t from = r % 2 ? 2 : 0, to = 2 - from;

		if (st == W_PACED)
			t = xwrite(&x, from, to, t, 40, seg_ns, lat_ns,
			    push_every);
		else
			t = xwrite_clocked(&x, from, to, t, 40, seg_ns,
			    lat_ns, st == W_CLOCKED);
		t += from == 0 ? 100000 : 200000;
	}
	qsort(x.ev, (size_t)x.n, sizeof(x.ev[0]), ev_time_cmp);
	run(x.ev, x.n, NULL, o);
}

/* pingpong()'s messages, inferred from a fast and a slow recording:
 * the same messages of `bytes`, predecessors and gaps (the programmed
 * 100 and 200 us). */
static void
assert_same_pingpong(const struct out *fast, const struct out *slow,
    uint64_t bytes)
{
	int i;

	assert_int_equal(fast->n, 6);
	assert_int_equal(slow->n, 6);
	for (i = 0; i < 6; i++) {
		const tt_dep *f = &fast->d[i], *s = &slow->d[i];

		assert_int_equal(f->pe, s->pe);
		assert_int_equal(f->seq, s->seq);
		assert_int_equal(f->bytes, bytes);
		assert_int_equal(s->bytes, bytes);
		assert_int_equal(f->gap_ns, s->gap_ns);
		assert_int_equal(f->npred, s->npred);
		if (i > 0) {
			assert_int_equal(f->npred, 1);
			assert_int_equal(f->pred[0].src, s->pred[0].src);
			assert_int_equal(f->pred[0].seq, s->pred[0].seq);
			assert_int_equal(f->gap_ns, f->pe == 0 ? 200000 : 100000);
		}
	}
}

static void
test_tcp_pacing_not_a_gap(void **state)
{
	struct out fast, slow;
	int push;

	(void)state;
	/* on the slow link the kernel, waiting for memory while ttd held
	 * the PE back, may push in the middle of a write (push every 8th
	 * segment); on the fast one ttd takes a write at once */
	pingpong(&fast, 800, 5000, 0, W_PACED);         /* 10 Gb/s */
	for (push = 0; push <= 8; push += 8) {
		pingpong(&slow, 400000, 50000, push, W_PACED);  /* 20 Mb/s */
		assert_same_pingpong(&fast, &slow, 40000);
		assert_int_equal(slow.st.tcp_acks, fast.st.tcp_acks);
		/* only PE 0's last reply, which nothing follows */
		assert_int_equal(slow.st.passed_over, 1);
		assert_int_equal(fast.st.passed_over, 1);
	}
}

/* The ping-pong again, its 40-segment writes sent at once on a fast link
 * and ACK-clocked, two full segments a PSH, on a slow one: the same
 * messages, predecessors and gaps. */
static void
test_tcp_ack_clocked_not_a_gap(void **state)
{
	struct out fast, slow;

	(void)state;
	pingpong(&fast, 800, 5000, 0, W_AT_ONCE);      /* 10 Gb/s */
	pingpong(&slow, 1600000, 50000, 0, W_CLOCKED); /* 5 Mb/s */
	assert_same_pingpong(&fast, &slow, 39400);
	/* allowed less time after an ACK than the sender took (120 us),
	 * every piece is a message */
	{
		tt_infer_params p;
		static struct xfer x;

		tt_infer_params_default(&p);
		p.ack_turn_ns = 100000;
		memset(&x, 0, sizeof(x));
		xwrite_clocked(&x, 0, 2, 1000, 40, 1600000, 50000, 1);
		qsort(x.ev, (size_t)x.n, sizeof(x.ev[0]), ev_time_cmp);
		run(x.ev, x.n, &p, &slow);
		assert_int_equal(slow.n, 20);
	}
}

/* A write that ended on a short segment, then, just after its ACK and
 * with nothing received, another on the same connection: two messages
 * (the ACK-clocked rule needs a piece that ended on a full segment). */
static void
test_tcp_write_after_ack(void **state)
{
	static struct xfer x;
	struct out o;

	(void)state;
	memset(&x, 0, sizeof(x));
	xseg(&x, 0, 2, 1000, 9000, 1000, 0);
	xseg(&x, 0, 2, 1010, 10000, 400, 1);    /* the write ends */
	xack(&x, 0, 2, 10000, 5000);
	xseg(&x, 0, 2, 15100, 20000, 1000, 0);  /* 100 us after the ACK */
	xseg(&x, 0, 2, 15110, 21000, 1000, 1);
	xack(&x, 0, 2, 21000, 5000);
	xseg(&x, 0, 2, 26100, 30000, 1000, 1);  /* a full piece: continues */
	qsort(x.ev, (size_t)x.n, sizeof(x.ev[0]), ev_time_cmp);
	run(x.ev, x.n, NULL, &o);
	assert_int_equal(o.n, 2);
	assert_int_equal(line(&o, 0, 0)->bytes, 1400);
	assert_int_equal(line(&o, 0, 2)->bytes, 3000);
	assert_int_equal(line(&o, 0, 2)->gap_ns, 15100 - 1010);
}

/* Two writes back to back on one connection (a message and a small one
 * right after it): two messages, so that a receiver that acts once the
 * first is in depends on the first, not on the one still on its way. */
static void
test_tcp_write_after_write(void **state)
{
	tt_infer_ev ev[] = {
		tcp(snd(1000, 2, 0, 1), 21, 12),
		tcp(snd(1003, 2, 0, 2), 21, 12),
		tcp(snd(1006, 2, 0, 3), 21, 12),        /* a write of its own */
		tcp(dlv(9000, 2, 0, 1), 21, 12),
		tcp(dlv(9500, 2, 0, 2), 21, 12),
		tcp(snd(9600, 0, 2, 1), 12, 21),        /* PE 0 answers */
		tcp(dlv(9700, 2, 0, 3), 21, 12),
		tcp(dlv(9900, 0, 2, 1), 12, 21),
	};
	struct out o;

	(void)state;
	ev[1].tcp_psh = 1;              /* the first write ends here */
	ev[2].tcp_psh = 1;
	ev[5].tcp_psh = 1;
	run(ev, (int)(sizeof(ev) / sizeof(ev[0])), NULL, &o);
	assert_int_equal(o.n, 3);
	assert_int_equal(line(&o, 2, 1)->bytes, 2000);
	assert_int_equal(line(&o, 2, 3)->bytes, 1000);
	assert_true(has_pred(line(&o, 0, 1), 2, 1));
	assert_int_equal(line(&o, 0, 1)->gap_ns, 100);
}

/* An application pause after a finished write, with the write
 * acknowledged: the next write is a new message, its pause a gap, even
 * on a link so slow that the segments came far apart. */
static void
test_tcp_pause_after_write(void **state)
{
	static struct xfer x;
	struct out o;
	uint64_t t;

	(void)state;
	memset(&x, 0, sizeof(x));
	t = xwrite(&x, 0, 2, 1000, 4, 400000, 50000, 0);
	xwrite(&x, 0, 2, t + 5000000, 4, 400000, 50000, 0);
	qsort(x.ev, (size_t)x.n, sizeof(x.ev[0]), ev_time_cmp);
	run(x.ev, x.n, NULL, &o);
	assert_int_equal(o.n, 2);
	assert_int_equal(o.d[0].bytes, 4000);
	assert_int_equal(o.d[1].bytes, 4000);
	/* from the previous write's last segment (sent at 1000 + 3 * 400000)
	 * to this one's first */
	assert_int_equal(o.d[1].gap_ns, t + 5000000 - (1000 + 3 * 400000));
}

/* Rule 4 on TCP: the latest message received before a send is its
 * predecessor; the others received since the previous send enable
 * nothing and are not carried to a later send. */
static void
test_tcp_latest_is_predecessor(void **state)
{
	tt_infer_ev ev[] = {
		tcp(snd(1000, 2, 0, 1), 21, 12),
		tcp(snd(1500, 4, 0, 1), 41, 14),
		tcp(dlv(2000, 2, 0, 1), 21, 12),
		tcp(dlv(3000, 4, 0, 1), 41, 14),
		tcp(snd(4000, 0, 6, 1), 16, 61),        /* after both */
		tcp(dlv(5000, 0, 6, 1), 16, 61),
		tcp(snd(90000, 0, 6, 2), 16, 61),       /* nothing new */
		tcp(dlv(91000, 0, 6, 2), 16, 61),
	};
	struct out o;
	int i;

	(void)state;
	for (i = 0; i < (int)(sizeof(ev) / sizeof(ev[0])); i++)
		ev[i].tcp_psh = 1;
	run(ev, (int)(sizeof(ev) / sizeof(ev[0])), NULL, &o);
	assert_int_equal(o.n, 4);
	assert_int_equal(line(&o, 0, 1)->npred, 1);
	assert_true(has_pred(line(&o, 0, 1), 4, 1));
	assert_int_equal(line(&o, 0, 1)->gap_ns, 1000);
	assert_int_equal(line(&o, 0, 2)->npred, 0);
	/* 2:1 at PE 0's first send, and PE 6's two at the end */
	assert_int_equal(o.st.passed_over, 3);
	assert_topological(&o);
}


/* Rule 5's turnaround: left out of the gap of a send with predecessors
 * (at most all of it), not of one without. */
static void
test_turnaround_left_out(void **state)
{
	tt_infer_ev ev[] = {
		tcp(snd(1000, 2, 0, 1), 21, 12),
		tcp(dlv(2000, 2, 0, 1), 21, 12),
		tcp(snd(4000, 0, 6, 1), 16, 61),        /* answers 2:1 */
		tcp(dlv(5000, 0, 6, 1), 16, 61),
		tcp(snd(9000, 0, 6, 2), 16, 61),        /* nothing new */
		tcp(dlv(9500, 0, 6, 2), 16, 61),
		tcp(snd(9700, 6, 0, 1), 61, 16),        /* 200 after 0:2 */
		tcp(dlv(9900, 6, 0, 1), 61, 16),
	};
	tt_infer_params p;
	struct out o;
	int i;

	(void)state;
	for (i = 0; i < (int)(sizeof(ev) / sizeof(ev[0])); i++)
		ev[i].tcp_psh = 1;
	tt_infer_params_default(&p);
	p.turnaround_ns = 500;
	run(ev, (int)(sizeof(ev) / sizeof(ev[0])), &p, &o);
	assert_int_equal(line(&o, 0, 1)->gap_ns, 2000 - 500);
	assert_int_equal(line(&o, 0, 2)->gap_ns, 9000 - 4000);
	assert_int_equal(line(&o, 6, 1)->gap_ns, 0);
}

/* ---- rule 3: what the capture lost ---- */

static void
test_lost_and_undelivered(void **state)
{
	/* PE 2 gets a delivery whose send is not in the trace, then sends;
	 * PE 0's message to PE 4 is never delivered */
	tt_infer_ev ev[] = {
		dlv(100, 6, 2, 99),
		snd(300, 2, 0, 0),
		snd(400, 0, 4, 0),
		dlv(500, 2, 0, 0),
		snd(600, 0, 2, 1),
	};
	const tt_dep *d;
	struct out o;

	(void)state;
	run(ev, (int)(sizeof(ev) / sizeof(ev[0])), NULL, &o);
	assert_int_equal(o.n, 3);
	assert_int_equal(o.st.lost_sends, 1);
	assert_int_equal(o.st.undelivered, 2);  /* 0:0 and 0:1 */
	d = line(&o, 2, 0);
	assert_int_equal(d->npred, 0);
	/* the lost delivery is still PE 2's first event */
	assert_int_equal(d->gap_ns, 200);
	d = line(&o, 0, 1);
	assert_true(has_pred(d, 2, 0));
	assert_non_null(strstr(o.warn, "1 delivery copies whose send"));
	assert_non_null(strstr(o.warn, "2 messages with a frame"));
}

/*
 * A delivery copy whose (source, sequence) is that of a message sent to
 * another PE (its header damaged on the way to the trace) is not that
 * message's delivery: PE 4 does not get PE 2's message as a predecessor,
 * and PE 2's real copy, read after it, still matches.
 */
static void
test_copy_at_another_pe_not_credited(void **state)
{
	tt_infer_ev ev[] = {
		snd(100, 0, 2, 5),
		dlv(150, 0, 4, 5),      /* damaged: 0:5 went to PE 2 */
		dlv(200, 0, 2, 5),      /* the real copy */
		snd(300, 4, 6, 0),
		snd(400, 2, 0, 0),
		dlv(450, 4, 6, 0),
		dlv(500, 2, 0, 0),
	};
	struct out o;

	(void)state;
	run(ev, (int)(sizeof(ev) / sizeof(ev[0])), NULL, &o);
	assert_int_equal(o.n, 3);
	assert_int_equal(o.st.mismatched, 1);
	assert_int_equal(o.st.lost_sends, 0);
	assert_int_equal(o.st.undelivered, 0);
	assert_int_equal(line(&o, 4, 0)->npred, 0);
	assert_int_equal(line(&o, 4, 0)->gap_ns, 150);  /* from its copy */
	assert_true(has_pred(line(&o, 2, 0), 0, 5));
	assert_int_equal(line(&o, 2, 0)->gap_ns, 200);
	assert_preds_valid(&o);
	assert_non_null(strstr(o.warn, "1 delivery copies that do not match"));
}

/*
 * A delivery copy at the right PE that differs from the frame sent in
 * size, class, TCP connection or byte range is not its delivery either:
 * counted, and the message arrives with the consistent copy after it.
 * A damaged copy whose frame never comes intact leaves the message
 * undelivered, enabling nothing.
 */
static void
test_inconsistent_copy_not_matched(void **state)
{
	enum { BYTES, CLS, FLOW, TSEQ, TLEN, NKIND };
	struct out o;
	int kind;

	(void)state;
	for (kind = 0; kind < NKIND; kind++) {
		tt_infer_ev ev[] = {
			tcp(snd(100, 0, 2, 7), 9, 8),
			tcp(dlv(150, 0, 2, 7), 9, 8),   /* damaged below */
			tcp(dlv(160, 0, 2, 7), 9, 8),
			snd(300, 2, 0, 0),
			dlv(350, 2, 0, 0),
		};

		ev[0].tcp_seq = ev[1].tcp_seq = ev[2].tcp_seq = 1000;
		ev[0].tcp_len = ev[1].tcp_len = ev[2].tcp_len = 940;
		ev[0].tcp_psh = ev[1].tcp_psh = ev[2].tcp_psh = 1;
		switch (kind) {
		case BYTES: ev[1].bytes = 999; break;
		case CLS: ev[1].cls = TT_INFER_MSG; break;
		case FLOW: ev[1].flow = 10; break;
		case TSEQ: ev[1].tcp_seq = 1000 + 65536; break;
		default: ev[1].tcp_len = 900; break;
		}
		run(ev, (int)(sizeof(ev) / sizeof(ev[0])), NULL, &o);
		if (o.st.mismatched != 1 || o.st.lost_sends != 0)
			fail_msg("damage %d: %" PRIu64 " mismatched, %" PRIu64
			    " lost", kind, o.st.mismatched, o.st.lost_sends);
		assert_true(has_pred(line(&o, 2, 0), 0, 7));
		assert_int_equal(line(&o, 2, 0)->gap_ns, 300 - 160);
		assert_preds_valid(&o);
	}
	{
		/* only the damaged copy: 0:7 never arrives */
		tt_infer_ev ev[] = {
			snd(100, 0, 2, 7),
			dlv(150, 0, 2, 7),
			snd(300, 2, 0, 0),
		};

		ev[1].bytes = 1500;
		run(ev, 3, NULL, &o);
		assert_int_equal(o.st.mismatched, 1);
		assert_int_equal(o.st.undelivered, 2);  /* 0:7 and 2:0 */
		assert_int_equal(line(&o, 2, 0)->npred, 0);
	}
}

/*
 * At the end of the trace, the messages still open are closed and what
 * waited behind them is worked off before anything is given up: PE 0's
 * last TCP message (no PSH: open to the end) holds its timeline, and the
 * delivery of 2:0 queued behind it is a delivery, not a lost one.
 */
static void
test_end_drains_before_giving_up(void **state)
{
	tt_infer_ev ev[] = {
		tcp(snd(100, 0, 6, 1), 16, 61),
		tcp(dlv(150, 0, 6, 1), 16, 61),
		snd(200, 2, 0, 0),
		dlv(250, 2, 0, 0),
	};
	struct out o;

	(void)state;
	ev[0].tcp_len = ev[1].tcp_len = 100;
	run(ev, (int)(sizeof(ev) / sizeof(ev[0])), NULL, &o);
	assert_int_equal(o.n, 2);
	assert_int_equal(o.st.lost_sends, 0);
	assert_int_equal(o.st.undelivered, 0);
}

static void
test_window_gives_up_before_the_end(void **state)
{
	tt_infer_params p;
	tt_infer_ev ev[] = {
		dlv(100, 6, 2, 99),     /* its send never comes */
		snd(200, 2, 0, 0),
		snd(5000, 0, 4, 0),     /* past the window: 2's line is out */
	};
	tt_infer *inf;
	tt_dep d;
	char err[128];
	int i;

	(void)state;
	tt_infer_params_default(&p);
	p.npes = NPES;
	p.window_ns = 1000;
	assert_int_equal(tt_infer_create(&inf, &p, err, sizeof(err)), 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(tt_infer_feed(inf, &ev[i]), 0);
	assert_int_equal(tt_infer_pop(inf, &d), 0);     /* 2 waits */
	assert_int_equal(tt_infer_feed(inf, &ev[2]), 0);
	assert_int_equal(tt_infer_pop(inf, &d), 1);
	assert_int_equal(d.pe, 2);
	assert_int_equal(tt_infer_stats_get(inf)->lost_sends, 1);
	tt_infer_free(inf);
}

/* A trace file cut inside its last record reads up to it. */
static void
test_truncated_file(void **state)
{
	char dir[] = "/tmp/tt-infer-XXXXXX", path[64], err[256];
	const char *paths[1];
	tt_trace_writer *w;
	tt_infer_params p;
	tt_infer *inf;
	tt_msg m;
	tt_dep d;
	struct stat_like { long size; } st;
	FILE *f;
	int n = 0, x;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/n0-pe.pcap", dir);
	assert_int_equal(tt_trace_create(&w, path, TT_TRACE_INPLACE, err,
	    sizeof(err)), 0);
	memset(&m, 0, sizeof(m));
	for (m.seq = 0; m.seq < 3; m.seq++) {
		m.t_ns = 1000 + m.seq;
		m.src = 0;
		m.dst = 1;
		m.bytes = 100;
		assert_int_equal(tt_trace_write_msg(w, &m), 0);
	}
	assert_int_equal(tt_trace_close(w, err, sizeof(err)), 0);
	f = fopen(path, "r+");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	st.size = ftell(f);
	fclose(f);
	assert_int_equal(truncate(path, st.size - 10), 0);
	tt_infer_params_default(&p);
	p.npes = NPES;
	p.no_copies = 1;
	paths[0] = dir;
	assert_int_equal(tt_infer_open(&inf, paths, 1, &p, err, sizeof(err)), 0);
	while ((x = tt_infer_next(inf, &d, err, sizeof(err))) > 0)
		n++;
	assert_int_equal(x, 0);
	assert_int_equal(n, 2);
	assert_int_equal(tt_infer_stats_get(inf)->truncated, 1);
	tt_infer_free(inf);
	unlink(path);
	rmdir(dir);
}

/* ---- rule 4: which received messages enable a burst ---- */

static void
test_burst_takes_one_step_per_source(void **state)
{
	/* halo-like: PE 0 and 2 exchange steps; PE 2 is fast, and its step-1
	 * message (which answers PE 0's step 0) reaches PE 0 before PE 0 has
	 * sent its step 1: it enables PE 0's step 2, not step 1 */
	tt_infer_ev ev[] = {
		snd(0, 0, 2, 0), snd(0, 2, 0, 0),
		dlv(100, 0, 2, 0), dlv(100, 2, 0, 0),
		snd(200, 2, 0, 1),                      /* 2's step 1 */
		dlv(300, 2, 0, 1),                      /* early at 0 */
		snd(5000, 0, 2, 1),                     /* 0's step 1 */
		dlv(5100, 0, 2, 1),
		snd(5200, 2, 0, 2), dlv(5300, 2, 0, 2),
		snd(10000, 0, 2, 2),                    /* 0's step 2 */
	};
	struct out o;

	(void)state;
	run(ev, (int)(sizeof(ev) / sizeof(ev[0])), NULL, &o);
	assert_int_equal(line(&o, 0, 1)->npred, 1);
	assert_true(has_pred(line(&o, 0, 1), 2, 0));
	assert_int_equal(line(&o, 0, 1)->gap_ns, 5000 - 100);
	assert_int_equal(line(&o, 0, 2)->npred, 1);
	assert_true(has_pred(line(&o, 0, 2), 2, 1));
	/* PE 2's step 2 waited for 0's step 1 */
	assert_true(has_pred(line(&o, 2, 2), 0, 1));
	assert_topological(&o);
}

static void
test_burst_takes_every_step_of_every_source(void **state)
{
	/* a sweep's last corner: PE 4 gets three separate steps from each of
	 * PE 0 and PE 2 and then sends once: all six enabled it */
	tt_infer_ev ev[14];
	const tt_dep *d;
	struct out o;
	int i, n = 0;

	(void)state;
	for (i = 0; i < 3; i++) {
		ev[n++] = snd(1000 * (uint64_t)(i + 1), 0, 4, (uint32_t)i);
		ev[n++] = snd(1000 * (uint64_t)(i + 1), 2, 4, (uint32_t)i);
		ev[n++] = dlv(1000 * (uint64_t)(i + 1) + 100, 0, 4, (uint32_t)i);
		ev[n++] = dlv(1000 * (uint64_t)(i + 1) + 100, 2, 4, (uint32_t)i);
	}
	ev[n++] = snd(5000, 4, 6, 0);
	run(ev, n, NULL, &o);
	d = line(&o, 4, 0);
	assert_int_equal(d->npred, 6);
	assert_int_equal(d->gap_ns, 5000 - 3100);
}

static void
test_burst_sources_ahead_take_one(void **state)
{
	/* PE 4 computes 2000 ns a step; then both its sources send their
	 * next step during its compute: it took one of each */
	tt_infer_ev ev[] = {
		snd(0, 0, 4, 0), snd(0, 2, 4, 0),
		dlv(100, 0, 4, 0), dlv(100, 2, 4, 0),
		snd(2100, 4, 6, 0),                     /* gap 2000 */
		snd(2200, 0, 4, 1), snd(2200, 2, 4, 1),
		dlv(2300, 0, 4, 1), dlv(2300, 2, 4, 1),
		snd(3300, 0, 4, 2), snd(3300, 2, 4, 2),  /* a step ahead */
		dlv(3400, 0, 4, 2), dlv(3400, 2, 4, 2),
		snd(4300, 4, 6, 1),                     /* 2000 after step 1 */
		snd(7000, 4, 6, 2),
	};
	struct out o;

	(void)state;
	run(ev, (int)(sizeof(ev) / sizeof(ev[0])), NULL, &o);
	assert_int_equal(line(&o, 4, 1)->npred, 2);
	assert_true(has_pred(line(&o, 4, 1), 0, 1));
	assert_true(has_pred(line(&o, 4, 1), 2, 1));
	assert_int_equal(line(&o, 4, 1)->gap_ns, 2000);
	/* the step-2 messages enable the next burst (after a pause) */
	assert_true(has_pred(line(&o, 4, 2), 0, 2));
	assert_true(has_pred(line(&o, 4, 2), 2, 2));
}

static void
test_burst_rest_has_no_predecessors(void **state)
{
	tt_infer_ev ev[] = {
		snd(0, 2, 0, 0), dlv(100, 2, 0, 0),
		snd(600, 0, 2, 0), snd(600, 0, 4, 1), snd(600, 0, 6, 2),
		snd(900, 0, 2, 3),                      /* within the pause */
		snd(9000, 0, 2, 4),                     /* after it */
	};
	struct out o;

	(void)state;
	run(ev, (int)(sizeof(ev) / sizeof(ev[0])), NULL, &o);
	assert_int_equal(line(&o, 0, 0)->npred, 1);
	assert_int_equal(line(&o, 0, 0)->gap_ns, 500);
	assert_int_equal(line(&o, 0, 1)->npred, 0);
	assert_int_equal(line(&o, 0, 1)->gap_ns, 0);
	assert_int_equal(line(&o, 0, 3)->gap_ns, 300);
	assert_int_equal(line(&o, 0, 4)->npred, 0);
	assert_int_equal(line(&o, 0, 4)->gap_ns, 8100);
	assert_int_equal(o.st.passed_over, 0);
}

/* ---- rule 5: clocks ---- */

static void
test_gaps_on_own_clock(void **state)
{
	/* PE 2's node clock is 1 s ahead: its send is read after PE 0's
	 * delivery of it and PE 0's answer; nothing changes */
	tt_infer_ev ev[] = {
		dlv(500, 2, 0, 0),
		snd(800, 0, 2, 0),
		snd(1000000000, 2, 0, 0),
		dlv(1000000600, 0, 2, 0),
		snd(1000000700, 2, 4, 1),
	};
	struct out o;

	(void)state;
	run(ev, (int)(sizeof(ev) / sizeof(ev[0])), NULL, &o);
	assert_int_equal(o.n, 3);
	assert_true(has_pred(line(&o, 0, 0), 2, 0));
	assert_int_equal(line(&o, 0, 0)->gap_ns, 300);
	assert_int_equal(line(&o, 2, 0)->gap_ns, 0);    /* its first */
	assert_int_equal(line(&o, 2, 1)->gap_ns, 100);
	assert_int_equal(o.st.lost_sends, 0);
	assert_topological(&o);
}

/* ---- rule 6: cycles ---- */

static void
test_cycle_broken_with_warning(void **state)
{
	/* by their own clocks, PE 0 received 2:0 before sending 0:0 and PE 2
	 * received 0:0 before sending 2:0: impossible, but a trace can say it */
	tt_infer_ev ev[] = {
		dlv(100, 2, 0, 0),
		snd(200, 0, 2, 0),
		dlv(100, 0, 2, 0),
		snd(200, 2, 0, 0),
	};
	struct out o;

	(void)state;
	ev[2].clock = 5;
	ev[3].clock = 5;
	run(ev, 4, NULL, &o);
	assert_int_equal(o.n, 2);
	assert_int_equal(o.st.cycles_broken, 1);
	assert_non_null(strstr(o.warn, "a cycle in the dependencies"));
	assert_non_null(strstr(o.warn, "0:0"));
	assert_non_null(strstr(o.warn, "2:0"));
	assert_topological(&o);
}

/* ---- plain captures ---- */

static void
test_plain_arrival_is_capture_time(void **state)
{
	tt_infer_ev ev[] = {
		snd(100, 0, 2, 0),
		snd(700, 2, 0, 0),
	};
	struct out o;

	(void)state;
	ev[0].arrives = ev[1].arrives = 1;
	run(ev, 2, NULL, &o);
	assert_true(has_pred(line(&o, 2, 0), 0, 0));
	assert_int_equal(line(&o, 2, 0)->gap_ns, 600);
	assert_int_equal(o.st.deliveries, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_transport_set_aside),
		cmocka_unit_test(test_classify_frames),
		cmocka_unit_test(test_tcp_retransmission_set_aside),
		cmocka_unit_test(test_tcp_segments_group),
		cmocka_unit_test(test_tcp_reply_ends_message),
		cmocka_unit_test(test_lost_and_undelivered),
		cmocka_unit_test(test_copy_at_another_pe_not_credited),
		cmocka_unit_test(test_inconsistent_copy_not_matched),
		cmocka_unit_test(test_end_drains_before_giving_up),
		cmocka_unit_test(test_window_gives_up_before_the_end),
		cmocka_unit_test(test_truncated_file),
		cmocka_unit_test(test_burst_takes_one_step_per_source),
		cmocka_unit_test(test_burst_takes_every_step_of_every_source),
		cmocka_unit_test(test_burst_sources_ahead_take_one),
		cmocka_unit_test(test_burst_rest_has_no_predecessors),
		cmocka_unit_test(test_gaps_on_own_clock),
		cmocka_unit_test(test_cycle_broken_with_warning),
		cmocka_unit_test(test_plain_arrival_is_capture_time),
		cmocka_unit_test(test_tcp_pacing_not_a_gap),
		cmocka_unit_test(test_tcp_ack_clocked_not_a_gap),
		cmocka_unit_test(test_tcp_write_after_ack),
		cmocka_unit_test(test_tcp_pause_after_write),
		cmocka_unit_test(test_tcp_write_after_write),
		cmocka_unit_test(test_turnaround_left_out),
		cmocka_unit_test(test_tcp_latest_is_predecessor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
