/*
 * The forwarding plane's logic: what a twin-torus card does with a frame.
 *
 * A card is a switch as the simulator models one (seed 000 §7.1): input
 * queued, virtual cut-through, credit-based flow control per VC.  A torus
 * frame arriving on one of its ports, or a frame its PE sends on its TAP,
 * is routed at once with the card's routing table, built by the core from
 * tt_route() (seed 000 Alg. 1-6, seed 001 §4), exactly as the simulator
 * routes its packets.  The hop gives the output port and the VC; the frame
 * is stored, encoded as it will leave, in the input buffer of the (port,
 * VC) it came in on, and leaves when it is at the head of that buffer, the
 * output's arbiter picks it (round-robin over the inputs, then over an
 * input's VCs) and the neighbour's buffer has room for all of it: a
 * credit (credit.c).  Frames for the card's own PE are unwrapped and handed
 * to its TAP.  With --lossy there are no credits: a frame goes whenever
 * its port takes it and is dropped where a buffer is full, as before.
 *
 * Nothing here touches a device: sending, delivering, tracing and the
 * clock go through struct ttd_io, which loop.c fills with the ports and
 * the TAPs, and unit tests with recorders.  Buffers are allocated once;
 * no frame allocates.
 *
 * Every frame taken in is counted once where its fate is decided
 * (struct ttd_counters): forwarded when a port has taken it, delivered
 * when the TAP has, consumed (a hello, an ARP request, a credit frame),
 * or dropped for one reason; until then it is queued.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "ttd.h"

const char *const ttd_drop_names[TTD_DROP_N] = {
	"no_route", "hop_limit", "queue_full", "bad_frame", "link_down",
	"not_for_pe", "too_long", "not_torus", "bad_hello", "send_failed",
	"deliver_failed", "no_buffer", "edge_full", "credit_bad_header",
	"credit_malformed", "credit_implausible", "credit_not_peer",
	"credit_stale", "hello_impostor"
};

static const uint8_t eth_broadcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

#define ETHERTYPE_ARP	0x0806
#define ARP_LEN		28

static void
fwd_drop(struct ttd_sw *sw, enum ttd_drop why)
{
	sw->cnt.dropped[why]++;
}

static int
fwd_lport(const struct ttd_sw *sw, int port)
{
	int i;

	for (i = 0; i < sw->nports; i++)
		if (sw->fp[i].port == port)
			return i;
	return -1;
}

const char *
ttd_fwd_port_name(const struct ttd_fwd *f, int side, int lport, char *buf,
    size_t bufsz)
{
	char cn[64], pn[16];
	int port = f->sw[side].fp[lport].port;

	tt_card_name(f->net, f->nd->card[side].card, cn, sizeof(cn));
	if (port == TT_PORT_INT)
		snprintf(pn, sizeof(pn), "internal");
	else
		tt_port_name(port, f->net->n, pn, sizeof(pn));
	snprintf(buf, bufsz, "%s %s (%s)", cn, pn,
	    f->nd->card[side].port[lport].ifname);
	return buf;
}

/* ---- input buffers ---- */

/* Credit bytes a frame of len bytes (twintorus/frame.h: without any
 * 802.1Q tag) holds in a buffer whose least is least: the same at both
 * ends, the receiver's least (credit.c). */
static uint32_t
fwd_cost(size_t len, uint32_t least)
{
	if (least < TTD_CREDIT_MIN)
		least = TTD_CREDIT_MIN;	/* a neighbour not heard yet */
	return len < least ? least : (uint32_t)len;
}

/* A frame's length as credits count it; the tag stored frame p carries. */
#define FWD_LEN(fr) (TT_ETH_HLEN + TT_FRAME_HLEN + (fr)->payload_len)
#define FWD_TAG_LEN(p) ((p)[12] == 0x81 && (p)[13] == 0x00 ? TT_VLAN_HLEN : 0)

static int
ibuf_alloc(struct ttd_ibuf *b, uint32_t size, uint32_t least)
{
	memset(b, 0, sizeof(*b));
	b->size = size;
	b->least = least;
	b->qcap = size / least + 2;
	/* whole frames in a ring: a frame that does not fit at the end
	 * leaves a gap shorter than the longest frame; a tag adds 4 bytes
	 * a frame beyond its credit bytes */
	b->cap = size + TT_VLAN_HLEN * b->qcap + TTD_FRAME_MAX;
	b->data = malloc(b->cap);
	b->q = calloc(b->qcap, sizeof(*b->q));
	return b->data != NULL && b->q != NULL ? 0 : -1;
}

static void
ibuf_free(struct ttd_ibuf *b)
{
	free(b->data);
	free(b->q);
	b->data = NULL;
	b->q = NULL;
}

/* Where len bytes would go, or -1 if the ring has no room for them. */
static int64_t
ibuf_place(const struct ttd_ibuf *b, size_t len)
{
	uint32_t head;

	if (b->qn == 0)
		return len <= b->cap ? 0 : -1;
	if (b->qn == b->qcap)
		return -1;
	head = b->q[b->qhead].off;
	if (b->tail >= head) {		/* in use: [head, tail) */
		if (b->cap - b->tail >= len)
			return b->tail;
		if (len < head)
			return 0;
		return -1;
	}
	/* wrapped: in use [head, end) and [0, tail) */
	if (head - b->tail > len)
		return b->tail;
	return -1;
}

/* Whether a frame of cost credit bytes and up to len stored bytes fits:
 * within the credit bytes (what the upstream was granted) and the ring. */
static int
ibuf_room(const struct ttd_ibuf *b, uint32_t cost, size_t len)
{
	return b->used + cost <= b->size && ibuf_place(b, len) >= 0;
}

static struct ttd_ibuf *
fwd_in(struct ttd_sw *sw, int in, int vc)
{
	return in == sw->nports ? &sw->pe_in : &sw->fp[in].in[vc];
}

static int
fwd_in_nvcs(const struct ttd_sw *sw, int in)
{
	return in == sw->nports ? 1 : sw->fp[in].nvcs;
}

/* The head frame of b left the buffer (sent, delivered or dropped). */
static void
fwd_pop(struct ttd_sw *sw, struct ttd_ibuf *b)
{
	const struct ttd_qframe *qf = &b->q[b->qhead];

	b->used -= qf->cost;
	b->freed += qf->cost;
	b->qhead = (b->qhead + 1) % b->qcap;
	if (--b->qn == 0) {
		b->tail = 0;
		sw->vqueued[b->in] &= ~(1u << b->vc);
		if (sw->vqueued[b->in] == 0)
			sw->queued &= ~(1u << b->in);
	} else
		sw->want |= 1u << b->q[b->qhead].out;
}

/* ---- sending: the arbiter of each output ---- */

/* Hand a frame to card side's PE: delivered, or lost at its TAP. */
static void
fwd_deliver(struct ttd_fwd *f, struct ttd_sw *sw, const uint8_t *buf,
    size_t len)
{
	if (f->io.pe_deliver(f->io.ctx, sw->side, buf, len) == 0)
		sw->cnt.delivered++;
	else
		fwd_drop(sw, TTD_DROP_DELIVER_FAILED);
}

/*
 * The head frame qf of buffer b goes to output o if it can: 1 it left
 * (sent, delivered or dropped), 0 it waits for credit, -1 the port is
 * busy.
 */
static int
fwd_send_head(struct ttd_fwd *f, struct ttd_sw *sw, struct ttd_ibuf *b,
    const struct ttd_qframe *qf, int o)
{
	const uint8_t *frame = b->data + qf->off;
	struct ttd_fport *fp;
	uint32_t cost;
	int x;

	if (o == sw->nports) {
		/* stored as its delivery record: the frame as it came,
		 * flagged; the PE gets what it carries */
		size_t h = TT_ETH_HLEN + TT_FRAME_HLEN +
		    FWD_TAG_LEN(frame);

		if (f->io.trace_pe != NULL)
			f->io.trace_pe(f->io.ctx, frame, qf->len);
		fwd_deliver(f, sw, frame + h, qf->len - h);
		fwd_pop(sw, b);
		return 1;
	}
	fp = &sw->fp[o];
	if (fp->link == 0) {
		fwd_drop(sw, TTD_DROP_LINK_DOWN);
		fwd_pop(sw, b);
		return 1;
	}
	cost = fwd_cost(qf->len - FWD_TAG_LEN(frame), fp->peer_least);
	if (!f->o.lossy && !ttd_credit_ok(f, fp, qf->vc, cost, qf->bubble))
		return 0;
	x = f->io.port_send(f->io.ctx, sw->side, o, frame, qf->len);
	if (x < 0)
		return -1;
	if (x > 0) {
		fwd_drop(sw, TTD_DROP_SEND_FAILED);
	} else {
		if (f->io.trace_port != NULL)
			f->io.trace_port(f->io.ctx, sw->side, o, frame,
			    qf->len);
		fp->tx++;
		fp->oc[qf->vc].sent += cost;
		sw->cnt.forwarded++;
	}
	fwd_pop(sw, b);
	return 1;
}

/*
 * The members of set m in round-robin order from `from`: those at or
 * above it, then those below (m's bits are indices below 32).  Only the
 * members are visited: a turn over empty inputs and VCs costs nothing.
 */
static uint32_t
rr_order(uint32_t m, unsigned from, uint32_t *rest)
{
	uint32_t lo = from == 0 ? 0 : m & ((1u << from) - 1);

	*rest = lo;
	return m & ~lo;
}

static int
rr_next(uint32_t *first, uint32_t *rest)
{
	int i;

	if (*first == 0) {
		*first = *rest;
		*rest = 0;
	}
	if (*first == 0)
		return -1;
	i = __builtin_ctz(*first);
	*first &= *first - 1;
	return i;
}

/* One frame of input in for output o, its VCs served round-robin: 1 one
 * left, 0 none could, -1 the port is busy. */
static int
fwd_serve_input(struct ttd_fwd *f, struct ttd_sw *sw, int o, int in)
{
	int nv = fwd_in_nvcs(sw, in), v, r;
	uint32_t first, rest;

	first = rr_order(sw->vqueued[in], sw->rrv[in], &rest);
	while ((v = rr_next(&first, &rest)) >= 0) {
		struct ttd_ibuf *b = fwd_in(sw, in, v);

		if (b->q[b->qhead].out != o)
			continue;
		r = fwd_send_head(f, sw, b, &b->q[b->qhead], o);
		if (r == 0)
			continue;
		if (r > 0)
			sw->rrv[in] = (uint8_t)(v + 1 == nv ? 0 : v + 1);
		return r;
	}
	return 0;
}

/* Output o sends what it can, one frame per input in turn (the model's
 * two-stage round-robin: an input port, then one of its VCs). */
static void
fwd_serve(struct ttd_fwd *f, struct ttd_sw *sw, int o)
{
	int nin = sw->nports + 1, in, r, progress;
	uint32_t first, rest;

	do {
		progress = 0;
		first = rr_order(sw->queued, sw->rr[o], &rest);
		while ((in = rr_next(&first, &rest)) >= 0) {
			r = fwd_serve_input(f, sw, o, in);
			if (r < 0) {
				sw->busy |= 1u << o;
				return;
			}
			if (r > 0) {
				sw->rr[o] = (uint8_t)(in + 1 == nin ? 0 : in + 1);
				progress = 1;
				break;
			}
		}
	} while (progress);
}

void
ttd_fwd_kick(struct ttd_fwd *f, struct ttd_sw *sw)
{
	uint32_t ready;
	int o;

	while ((ready = sw->want & ~sw->busy) != 0) {
		o = __builtin_ctz(ready);
		sw->want &= ~(1u << o);
		fwd_serve(f, sw, o);
	}
}

void
ttd_fwd_drain(struct ttd_fwd *f, int side)
{
	int s;

	for (s = 0; s < f->nd->ncards; s++) {
		struct ttd_sw *sw = &f->sw[s];

		if (side >= 0 && s != side)
			continue;
		sw->busy = 0;
		sw->want = (2u << sw->nports) - 1;
		ttd_fwd_kick(f, sw);
	}
}

int
ttd_fwd_busy(const struct ttd_fwd *f, int side)
{
	int s;

	for (s = 0; s < f->nd->ncards; s++)
		if ((side < 0 || s == side) && f->sw[s].busy != 0)
			return 1;
	return 0;
}

/* ---- receiving: route, then store in the input buffer ---- */

/*
 * A frame for port o that can leave at once (nothing queued in the
 * switch, o not busy, its credit there) built straight into the port's
 * send buffer, where the device lends one (AF_XDP): the same counts and
 * arbiter turns as stored and sent by fwd_send_head(), one copy fewer.
 * 0: not taken this way (the caller stores it as any other).
 */
static int
fwd_direct(struct ttd_fwd *f, struct ttd_sw *sw, struct ttd_ibuf *b,
    int o, const tt_frame *out, uint32_t cost, int bubble)
{
	struct ttd_fport *fp = &sw->fp[o];
	uint32_t ocost = fwd_cost(FWD_LEN(out), fp->peer_least);
	uint8_t *p;
	size_t cap, len;
	int nv = fwd_in_nvcs(sw, b->in);

	if (f->io.port_buf == NULL || sw->queued != 0 ||
	    (sw->busy & (1u << o)) ||
	    (!f->o.lossy && !ttd_credit_ok(f, fp, out->vc, ocost, bubble)) ||
	    (p = f->io.port_buf(f->io.ctx, sw->side, o, &cap)) == NULL)
		return 0;
	len = tt_frame_encode(out, p, cap);
	if (len == 0 || len > TTD_FRAME_MAX) {
		f->io.port_abort(f->io.ctx, sw->side, o);
		return 0;       /* stored, it is dropped as too long */
	}
	f->io.port_commit(f->io.ctx, sw->side, o, len);
	if (f->io.trace_port != NULL)
		f->io.trace_port(f->io.ctx, sw->side, o, p, len);
	fp->tx++;
	fp->oc[out->vc].sent += ocost;
	sw->cnt.forwarded++;
	b->freed += cost;
	sw->rr[o] = (uint8_t)(b->in + 1 == sw->nports + 1 ? 0 : b->in + 1);
	sw->rrv[b->in] = (uint8_t)(b->vc + 1 == nv ? 0 : b->vc + 1);
	return 1;
}

/*
 * Take frame fr (decoded; its payload is the carried frame) into input
 * in (a port's local index, or nports: the PE) on VC vc: route it, drop
 * it, or store it as it will leave and let its output's arbiter run.
 */
static void
fwd_admit(struct ttd_fwd *f, struct ttd_sw *sw, int in, int vc,
    const tt_frame *fr, int in_port)
{
	struct ttd_ibuf *b = fwd_in(sw, in, vc);
	uint32_t cost = fwd_cost(FWD_LEN(fr), b->least);
	struct ttd_qframe *qf;
	tt_frame out = *fr;
	tt_hop hop;
	size_t len, maxlen;
	int64_t at;
	int o;

	/*
	 * Received, in the sender's count (credit.c): but not a frame for a
	 * PE past the network or at the hop limit, which no ttd sends on.
	 * Counted, one injected onto the link would make this card grant
	 * more than its buffer, and the neighbour refuse its credit frames
	 * until the next resync; left out, a real one is given back by the
	 * neighbour's next credit frame (counting less is always safe).
	 */
	if (in < sw->nports && fr->dst < f->net->ncards &&
	    fr->hops < TTD_HOP_LIMIT)
		b->abr += cost;
	if (fr->dst >= f->net->ncards) {
		fwd_drop(sw, TTD_DROP_NO_ROUTE);
		goto freed;
	}
	hop = tt_rtable_lookup(f->net, &sw->rt, fr->dst, in_port);
	if (hop.port == TT_PORT_NIC) {
		/* stored as the record of its delivery: as it came, flagged */
		o = sw->nports;
		out.flags |= TT_FRAME_F_DELIVERED;
	} else {
		if (fr->hops >= TTD_HOP_LIMIT) {
			fwd_drop(sw, TTD_DROP_HOP_LIMIT);
			goto freed;
		}
		o = fwd_lport(sw, hop.port);
		if (o < 0 || hop.vc >= sw->fp[o].nvcs) {
			fwd_drop(sw, TTD_DROP_NO_ROUTE);
			goto freed;
		}
		if (sw->fp[o].link == 0) {
			fwd_drop(sw, TTD_DROP_LINK_DOWN);
			goto freed;
		}
		out.vc = hop.vc;
		out.hops = (uint8_t)(fr->hops + 1);
		memcpy(out.dst_mac, eth_broadcast, 6);
		memcpy(out.src_mac, sw->fp[o].mac, 6);
		out.tagged = f->o.vlan;
		out.tci = (uint16_t)((hop.vc & 7) << 13);  /* PCP = VC */
	}
	maxlen = tt_frame_hlen(&out) + out.payload_len;
	if (!ibuf_room(b, cost, maxlen)) {
		fwd_drop(sw, in == sw->nports ? TTD_DROP_EDGE_FULL :
		    f->o.lossy ? TTD_DROP_QUEUE_FULL : TTD_DROP_NO_BUFFER);
		goto freed;
	}
	if (o != sw->nports && fwd_direct(f, sw, b, o, &out, cost,
	    hop.bubble))
		return;
	at = ibuf_place(b, maxlen);
	len = tt_frame_encode(&out, b->data + at, b->cap - (size_t)at);
	if (len == 0 || len > TTD_FRAME_MAX) {
		/* the fields are the routing's own: only the length (a tag
		 * added to a frame at the limit) can fail to fit */
		fwd_drop(sw, TTD_DROP_TOO_LONG);
		goto freed;
	}
	qf = &b->q[(b->qhead + b->qn) % b->qcap];
	qf->off = (uint32_t)at;
	qf->len = (uint16_t)len;
	qf->cost = (uint16_t)cost;
	qf->out = (uint8_t)o;
	qf->vc = o == sw->nports ? 0 : hop.vc;
	qf->bubble = o != sw->nports && hop.bubble;
	b->tail = (uint32_t)(at + (int64_t)len);
	b->used += cost;
	if (b->qn++ == 0) {
		sw->want |= 1u << o;
		sw->vqueued[b->in] |= 1u << b->vc;
		sw->queued |= 1u << b->in;
	}
	/* a frame waits only while its output cannot take it: send what
	 * can go now */
	ttd_fwd_kick(f, sw);
	return;
freed:
	b->freed += cost;	/* never held: its credit comes back at once */
}

void
ttd_fwd_port_rx(struct ttd_fwd *f, int side, int lport, const uint8_t *buf,
    size_t len, size_t wirelen)
{
	struct ttd_sw *sw = &f->sw[side];
	struct ttd_fport *fp = &sw->fp[lport];
	char err[128];
	tt_frame fr;
	int x;

	fp->rx++;
	sw->cnt.received++;
	if (wirelen > len || len > TTD_FRAME_MAX) {
		/* cut at the snap length: never forwarded as if whole */
		fwd_drop(sw, TTD_DROP_TOO_LONG);
		return;
	}
	x = tt_frame_decode(&fr, buf, len, err, sizeof(err));
	if (x == 1) {
		fwd_drop(sw, TTD_DROP_NOT_TORUS);  /* e.g. the kernel's own */
		return;
	}
	if (x < 0) {
		fwd_drop(sw, TTD_DROP_BAD_FRAME);
		ttd_log(TTD_LOG_DEBUG, "fwd", "bad frame on %s: %s",
		    f->nd->card[side].port[lport].ifname, err);
		return;
	}
	if (fr.type == TT_FRAME_HELLO) {
		ttd_hello_rx(f, sw, lport, &fr);
		return;
	}
	if (fr.type == TT_FRAME_CREDIT) {
		ttd_credit_rx(f, sw, lport, &fr);
		return;
	}
	if ((fr.flags & TT_FRAME_F_DELIVERED) || fr.vc >= fp->nvcs) {
		/* a delivery copy never travels; a VC the port lacks is not
		 * a torus peer's */
		fwd_drop(sw, TTD_DROP_BAD_FRAME);
		return;
	}
	fp->rx_data++;
	fwd_admit(f, sw, lport, fr.vc, &fr, fp->port);
}

/* An ARP request for a PE's address: answered with that PE's MAC. */
static int
fwd_arp(struct ttd_fwd *f, struct ttd_sw *sw, const uint8_t *buf,
    size_t len)
{
	const uint8_t *a = buf + TT_ETH_HLEN;
	uint8_t rep[TT_ETH_HLEN + ARP_LEN], mac[6];
	uint32_t tpa, pe;

	if (len < TT_ETH_HLEN + ARP_LEN || a[0] != 0 || a[1] != 1 ||
	    a[2] != 0x08 || a[3] != 0 || a[4] != 6 || a[5] != 4 ||
	    a[6] != 0 || a[7] != 1)
		return -1;
	tpa = (uint32_t)a[24] << 24 | (uint32_t)a[25] << 16 |
	    (uint32_t)a[26] << 8 | a[27];
	if ((tpa & f->mask) != f->subnet || tpa == f->subnet)
		return -1;
	pe = tpa - f->subnet - 1;
	if (pe >= f->net->ncards)
		return -1;
	ttd_pe_mac(pe, mac);
	memcpy(rep, buf + 6, 6);		/* to the asker */
	memcpy(rep + 6, mac, 6);
	rep[12] = ETHERTYPE_ARP >> 8;
	rep[13] = ETHERTYPE_ARP & 0xff;
	memcpy(rep + 14, a, 6);			/* htype, ptype, hlen, plen */
	rep[20] = 0;
	rep[21] = 2;				/* reply */
	memcpy(rep + 22, mac, 6);		/* sender: the PE asked for */
	memcpy(rep + 28, a + 24, 4);
	memcpy(rep + 32, a + 8, 6);		/* target: the asker */
	memcpy(rep + 38, a + 14, 4);
	if (f->io.pe_deliver(f->io.ctx, sw->side, rep, sizeof(rep)) == 0)
		sw->cnt.arp++;
	else
		fwd_drop(sw, TTD_DROP_DELIVER_FAILED);
	return 0;
}

void
ttd_fwd_pe_rx(struct ttd_fwd *f, int side, const uint8_t *buf, size_t len)
{
	struct ttd_sw *sw = &f->sw[side];
	tt_frame fr;
	int64_t dst;
	size_t flen;
	char err[64];

	sw->cnt.received++;
	if (len > TTD_FRAME_MAX) {
		fwd_drop(sw, TTD_DROP_TOO_LONG);
		return;
	}
	if (len < TT_ETH_HLEN) {
		fwd_drop(sw, TTD_DROP_NOT_FOR_PE);
		return;
	}
	if (((uint16_t)buf[12] << 8 | buf[13]) == ETHERTYPE_ARP) {
		if (fwd_arp(f, sw, buf, len) < 0)
			fwd_drop(sw, TTD_DROP_NOT_FOR_PE);
		return;
	}
	dst = ttd_mac_pe(buf);
	if (dst < 0 || (uint64_t)dst >= f->net->ncards) {
		fwd_drop(sw, TTD_DROP_NOT_FOR_PE);
		return;
	}
	memset(&fr, 0, sizeof(fr));
	fr.version = TT_FRAME_VERSION;
	fr.type = TT_FRAME_DATA;
	fr.dst = (uint32_t)dst;
	fr.src = sw->card;
	fr.seq = sw->seq++;
	fr.payload = buf;
	fr.payload_len = len;
	ttd_pe_mac(fr.src, fr.src_mac);
	ttd_pe_mac(fr.dst, fr.dst_mac);
	/* the application trace: the message as its PE sent it, hop 0 */
	flen = tt_frame_encode(&fr, sw->scratch, sizeof(sw->scratch));
	if (flen == 0) {
		fwd_drop(sw, TTD_DROP_TOO_LONG);	/* no room for the header */
		return;
	}
	if (f->io.trace_pe != NULL)
		f->io.trace_pe(f->io.ctx, sw->scratch, flen);
	sw->cnt.injected++;
	/* route from the scratch copy: its payload outlives buf's caller */
	if (tt_frame_decode(&fr, sw->scratch, flen, err, sizeof(err)) != 0) {
		fwd_drop(sw, TTD_DROP_BAD_FRAME);	/* cannot happen */
		return;
	}
	fwd_admit(f, sw, sw->nports, 0, &fr, TT_PORT_NIC);
}

int
ttd_fwd_pe_room(const struct ttd_fwd *f, int side)
{
	const struct ttd_ibuf *b = &f->sw[side].pe_in;

	/* lossless: the next frame may be of any length; stop reading the
	 * TAP until it would fit (its own queue then fills, and a full one
	 * drops: the TAP's tx_dropped, an edge drop) */
	return f->o.lossy || ibuf_room(b, TTD_FRAME_MAX, TTD_FRAME_MAX +
	    TT_VLAN_HLEN);
}

/* ---- set-up, links, counters ---- */

static int
fwd_card_init(struct ttd_fwd *f, int s, char *err, size_t errsz)
{
	const struct ttd_card *c = &f->nd->card[s];
	struct ttd_sw *sw = &f->sw[s];
	int i, v;

	sw->side = s;
	sw->card = c->card;
	sw->epoch = (uint16_t)(f->o.epoch + s);
	if (sw->epoch == 0)
		sw->epoch = 1;
	sw->pe_ip = f->subnet + c->card + 1;
	sw->nports = c->nports;
	if (tt_rtable_build(f->net, c->card, &sw->rt) < 0) {
		snprintf(err, errsz, "out of memory for the routing table");
		return -1;
	}
	if (ibuf_alloc(&sw->pe_in, f->o.pe_bytes, TTD_CREDIT_MIN) < 0)
		goto nomem;
	sw->pe_in.in = (uint8_t)c->nports;
	for (i = 0; i < c->nports; i++) {
		struct ttd_fport *fp = &sw->fp[i];

		fp->port = c->port[i].port;
		fp->link = -1;
		fp->nvcs = fp->port == TT_PORT_INT ? f->net->int_vcs :
		    f->net->ext_vcs;
		if (fp->nvcs < 1)
			fp->nvcs = 1;
		fp->in = calloc((size_t)fp->nvcs, sizeof(*fp->in));
		if (fp->in == NULL)
			goto nomem;
		for (v = 0; v < fp->nvcs; v++) {
			uint32_t size = fp->port == TT_PORT_INT ?
			    f->o.int_vc_bytes : f->o.vc_bytes;

			if (ibuf_alloc(&fp->in[v], size,
			    ttd_credit_least(size)) < 0)
				goto nomem;
			fp->in[v].in = (uint8_t)i;
			fp->in[v].vc = (uint8_t)v;
		}
		fp->cred_due = 1;	/* introduce ourselves */
	}
	return 0;
nomem:
	snprintf(err, errsz, "out of memory for the input buffers");
	return -1;
}

int
ttd_fwd_init(struct ttd_fwd *f, const struct ttd_node *nd,
    const struct ttd_io *io, const struct ttd_fwd_opts *o, char *err,
    size_t errsz)
{
	int s;

	memset(f, 0, sizeof(*f));
	f->nd = nd;
	f->net = nd->net;
	f->io = *io;
	f->o = *o;
	f->subnet = nd->cfg->pe_subnet;
	f->mask = nd->cfg->pe_prefix ? ~0u << (32 - nd->cfg->pe_prefix) : 0;
	for (s = 0; s < nd->ncards; s++)
		if (fwd_card_init(f, s, err, errsz) < 0) {
			ttd_fwd_free(f);
			return -1;
		}
	return 0;
}

void
ttd_fwd_free(struct ttd_fwd *f)
{
	int s, i, v;

	for (s = 0; s < 2; s++) {
		struct ttd_sw *sw = &f->sw[s];

		if (sw->rt.store != NULL)
			tt_rtable_free(&sw->rt);
		ibuf_free(&sw->pe_in);
		for (i = 0; i < sw->nports; i++) {
			struct ttd_fport *fp = &sw->fp[i];

			for (v = 0; fp->in != NULL && v < fp->nvcs; v++)
				ibuf_free(&fp->in[v]);
			free(fp->in);
			fp->in = NULL;
		}
	}
}

void
ttd_fwd_opts_config(struct ttd_fwd_opts *o, const tt_config *cfg,
    const tt_net *net)
{
	/* the model's: buffer_flits of flit_bytes per input port, split
	 * among its VCs (seed 000 §7.1) */
	uint64_t port = (uint64_t)cfg->params.buffer_flits *
	    (uint64_t)cfg->params.flit_bytes;
	uint64_t ext = port / (uint64_t)(net->ext_vcs > 0 ? net->ext_vcs : 1);
	uint64_t in = port / (uint64_t)(net->int_vcs > 0 ? net->int_vcs : 1);

#define FWD_BYTES(set, model) ((set) > 0 ? (uint32_t)(set) : \
	(model) < TTD_BUFFER_DEFAULT ? TTD_BUFFER_DEFAULT : \
	(model) > TT_CREDIT_BYTES_MAX ? TT_CREDIT_BYTES_MAX : (uint32_t)(model))
	o->vc_bytes = FWD_BYTES(cfg->credit_vc_bytes, ext);
	o->int_vc_bytes = FWD_BYTES(cfg->credit_int_vc_bytes, in);
	o->pe_bytes = FWD_BYTES(cfg->credit_pe_bytes, port);
#undef FWD_BYTES
}

void
ttd_fwd_link(struct ttd_fwd *f, int side, int lport, int up)
{
	struct ttd_sw *sw = &f->sw[side];
	struct ttd_fport *fp = &sw->fp[lport];

	fp->link = up;
	if (!up) {
		fp->cabling = TTD_CABLING_UNKNOWN;	/* nothing to hear */
		/* the neighbour stays verified (the cable plugged back), but
		 * whatever is plugged in instead replaces it by its first
		 * hello; its sequence numbers may start anew */
		fp->peer_open = 1;
		fp->cred_rx_epoch = 0;
		/* what waits for it goes no further */
		sw->want |= 1u << lport;
		ttd_fwd_kick(f, sw);
	} else {
		/* resynchronise the credits, our hello first: the neighbour
		 * takes them only from a card its hellos verified */
		fp->hello_due = 1;
		fp->cred_due = 1;
	}
}

uint64_t
ttd_fwd_queued(const struct ttd_fwd *f)
{
	uint64_t n = 0;
	int s, i, v;

	for (s = 0; s < f->nd->ncards; s++) {
		const struct ttd_sw *sw = &f->sw[s];

		n += sw->pe_in.qn;
		for (i = 0; i < sw->nports; i++)
			for (v = 0; v < sw->fp[i].nvcs; v++)
				n += sw->fp[i].in[v].qn;
	}
	return n;
}

void
ttd_fwd_counters(const struct ttd_fwd *f, struct ttd_counters *c)
{
	const uint64_t *a;
	uint64_t *sum = (uint64_t *)c;
	size_t k, n = sizeof(*c) / sizeof(uint64_t);
	int s;

	_Static_assert(sizeof(struct ttd_counters) % sizeof(uint64_t) == 0,
	    "counters are uint64_t only");
	memset(c, 0, sizeof(*c));
	for (s = 0; s < f->nd->ncards; s++) {
		a = (const uint64_t *)&f->sw[s].cnt;
		for (k = 0; k < n; k++)
			sum[k] += a[k];
	}
}

uint64_t
ttd_fwd_accounted(const struct ttd_fwd *f)
{
	struct ttd_counters c;
	uint64_t n;
	int d;

	ttd_fwd_counters(f, &c);
	n = c.forwarded + c.delivered + c.hellos + c.arp + c.credits +
	    ttd_fwd_queued(f);
	for (d = 0; d < TTD_DROP_N; d++)
		n += c.dropped[d];
	return n;
}
