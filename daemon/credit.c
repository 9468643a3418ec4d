/*
 * Lossless flow control between two cards: credits per (port, VC), counted
 * in bytes, as the model's switches use them (seed 000 §7.1: virtual
 * cut-through, credit-based, per VC).  A frame leaves for the next card
 * only when that card's input buffer for the frame's VC has room for all
 * of it; the internal link between a node's two cards follows the same
 * rule.
 *
 * The counts are absolute, not increments (InfiniBand's link-level scheme),
 * so that losing a frame of either kind never loses capacity for good:
 *   - the sender counts the bytes it has sent on each VC of a port
 *     (`sent`, modulo 2^32), from 0 in its epoch, a number drawn when ttd
 *     starts;
 *   - the receiver counts what arrived in the same units (`abr`) and
 *     grants limit = abr + size - used: the sender may send a frame of
 *     cost c while sent + c stays within limit;
 *   - a credit frame carries, per VC, the sender's `sent` and the limit it
 *     grants its neighbour.  The receiver of a credit frame takes that
 *     `sent` as its abr: the link keeps order, so every frame sent before
 *     it has arrived or is lost, and a lost data frame's bytes are thereby
 *     given back.  It takes the limits only if they count in its own
 *     current epoch (the peer epoch the frame names), so a neighbour that
 *     restarted, or has not heard us yet, grants nothing until it has.
 * Every credit frame carries the whole state of the link: a lost credit
 * frame delays until the next one, which is sent at the end of every
 * round of the loop that freed buffer space, on every epoch heard anew,
 * and in any case every TTD_CREDIT_SYNC_NS.  When a link comes back up both ends send
 * theirs at once: frames lost while it was down are given back by the
 * first exchange.  On the internal link, when one loop runs both cards,
 * the limits of a round go from switch to switch in memory instead
 * (credit_in_memory()), and frames only on news and every
 * TTD_CREDIT_SYNC_NS.
 *
 * A credit frame decides how much a card may send, so one taken from
 * anyone else than the neighbour would let the card overrun that
 * neighbour's buffer (a limit raised), or stall the port (a limit in
 * another epoch).  A credit frame is therefore taken only
 *   - with the header frame.h prescribes (VC 0, hops 0, no flags, for this
 *     card or, as older ttd sent them, for every PE) and a well-formed
 *     body (reserved bytes 0, the port's VC count);
 *   - with plausible values: every buffer one a credits: section may set
 *     (the other card's exactly, on the internal link), no limit granting
 *     more than that buffer beyond what this card has sent;
 *   - from the neighbour verified on the port: the MAC address whose
 *     hellos named the card the torus puts there (hello.c), with that card
 *     as the frame's source; on the internal link the other card's port;
 *   - with a sequence number after the last one taken in its epoch (and
 *     not implausibly far after it).
 * Anything else is dropped and counted by reason (credit_*; ttd(8)), and
 * logged at most TTD_LOG_BURST lines per port in TTD_LOG_WINDOW_NS.  Gaps
 * in the sequence (credit_frames.lost) are counted only between frames
 * taken.  A card sends its hello before its credit frame while the port
 * has no verified neighbour, or the neighbour has not taken our frames
 * (its frames do not name our epoch): the neighbour needs to hear it.
 */
#include <string.h>

#include "ttd.h"

static const uint8_t eth_broadcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

#define CREDIT_PCP	7	/* network control: never behind data (PFC) */

int64_t
ttd_credit_available(const struct ttd_fport *fp, int vc)
{
	const struct ttd_ocred *oc = &fp->oc[vc];
	int32_t d;

	if (!fp->granted)
		return -1;
	d = (int32_t)(oc->limit - oc->sent);
	if (d < 0)
		return 0;
	/* never more than the buffer behind it (a credit frame with a
	 * buffer of 0 is refused: it would not turn this off) */
	return (uint32_t)d > oc->peer_buffer ? (int64_t)oc->peer_buffer : d;
}

int
ttd_credit_ok(const struct ttd_fwd *f, const struct ttd_fport *fp, int vc,
    uint32_t cost, int bubble)
{
	(void)f;
	/* bubble flow control (seed 000 §6.3.2): a frame entering a ring
	 * needs room for itself and one more of the largest */
	return ttd_credit_available(fp, vc) >= (int64_t)cost +
	    (bubble ? TTD_FRAME_MAX : 0);
}

uint32_t
ttd_credit_least(uint32_t size)
{
	uint32_t least = size / TTD_CREDIT_FRAMES +
	    (size % TTD_CREDIT_FRAMES != 0);

	/* a credit frame carries it in 16 bits: a buffer past 16 MiB
	 * (more than a credits: section may set) would hold more */
	return least < TTD_CREDIT_MIN ? TTD_CREDIT_MIN : least > 0xffff ?
	    0xffff : least;
}

static uint64_t
credit_now(const struct ttd_fwd *f)
{
	return f->io.now_ns != NULL ? f->io.now_ns(f->io.ctx) : 1;
}

/* The other card's internal port (its local index), or -1. */
static int
credit_int_lport(const struct ttd_sw *sw)
{
	int i;

	for (i = 0; i < sw->nports; i++)
		if (sw->fp[i].port == TT_PORT_INT)
			return i;
	return -1;
}

uint32_t
ttd_credit_peer(const struct ttd_fwd *f, int side, int lport, int *verified,
    uint8_t mac[6])
{
	const struct ttd_sw *sw = &f->sw[side];
	const struct ttd_fport *fp = &sw->fp[lport];
	uint32_t peer;
	int pp, k;

	peer = tt_link_peer(f->net, sw->card, fp->port, &pp);
	*verified = 0;
	if (fp->port == TT_PORT_INT) {
		/* both ends are this ttd's: the other card's port, by the
		 * MAC address its device has */
		const struct ttd_sw *o = &f->sw[1 - side];

		if (f->nd->ncards == 2 && (k = credit_int_lport(o)) >= 0) {
			*verified = 1;
			if (mac != NULL)
				memcpy(mac, o->fp[k].mac, 6);
		}
	} else if (fp->peer_ok) {
		*verified = 1;
		if (mac != NULL)
			memcpy(mac, fp->peer_mac, 6);
	}
	return peer;
}

static void
credit_mac_text(const uint8_t m[6], char *buf, size_t bufsz)
{
	snprintf(buf, bufsz, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1],
	    m[2], m[3], m[4], m[5]);
}

/*
 * Whether credit frame fr, heard on card sw's port lport, may be taken:
 * -1 it may (its body decoded into c), or the drop reason, with why set.
 * The checks go from what the frame says of itself to who sent it: its
 * header as frame.h prescribes it for credit frames, its body, the
 * plausibility of its values, its sender (the neighbour verified on the
 * port, hello.c), and its sequence number.
 */
static int
credit_check(struct ttd_fwd *f, struct ttd_sw *sw, int lport,
    const tt_frame *fr, tt_credit *c, uint64_t now, char *why, size_t whysz)
{
	struct ttd_fport *fp = &sw->fp[lport];
	uint8_t pmac[6];
	char err[128], a[20], b[20];
	uint32_t peer, d;
	int verified, v;

	if (fr->vc != 0 || fr->hops != 0 || fr->flags != 0) {
		snprintf(why, whysz, "VC %u, hops %u, flags 0x%02x (a credit "
		    "frame has 0, 0, 0)", fr->vc, fr->hops, fr->flags);
		return TTD_DROP_CREDIT_HEADER;
	}
	if (fr->dst != sw->card && fr->dst != TT_PE_BROADCAST) {
		snprintf(why, whysz, "to PE %u, not to this card (PE %u)",
		    fr->dst, sw->card);
		return TTD_DROP_CREDIT_HEADER;
	}
	if (tt_credit_decode(c, fr->payload, fr->payload_len, err,
	    sizeof(err)) < 0) {
		snprintf(why, whysz, "%s", err);
		return TTD_DROP_CREDIT_MALFORMED;
	}
	if (c->nvcs != fp->nvcs) {
		snprintf(why, whysz, "for %u VCs, the port has %d", c->nvcs,
		    fp->nvcs);
		return TTD_DROP_CREDIT_MALFORMED;
	}
	for (v = 0; v < c->nvcs; v++) {
		uint32_t buf = c->vc[v].buffer;
		int32_t grant = (int32_t)(c->vc[v].limit - fp->oc[v].sent);

		/* both cards of a node read one config: on the internal link
		 * the other card's buffer is known to the byte */
		if (fp->port == TT_PORT_INT ? buf != f->o.int_vc_bytes :
		    buf < TT_CREDIT_BYTES_MIN || buf > TT_CREDIT_BYTES_MAX) {
			if (fp->port == TT_PORT_INT)
				snprintf(why, whysz, "VC %d: a buffer of %u "
				    "bytes, the other card's is %u", v, buf,
				    f->o.int_vc_bytes);
			else
				snprintf(why, whysz, "VC %d: a buffer of %u "
				    "bytes, outside the %d to %d a credits: "
				    "section may set", v, buf,
				    TT_CREDIT_BYTES_MIN, TT_CREDIT_BYTES_MAX);
			return TTD_DROP_CREDIT_IMPLAUSIBLE;
		}
		/* a frame costs at most a whole buffer; on the internal
		 * link the least is known as the buffer is */
		if (fp->port == TT_PORT_INT ? c->least !=
		    ttd_credit_least(buf) : c->least > buf) {
			snprintf(why, whysz, "VC %d: a least cost of %u bytes "
			    "a frame, with a buffer of %u", v, c->least, buf);
			return TTD_DROP_CREDIT_IMPLAUSIBLE;
		}
		/* what the limit lets us send beyond what we have sent can
		 * never be more than that buffer (only limits in our epoch
		 * count in our bytes) */
		if (c->peer_epoch == sw->epoch && grant > 0 &&
		    (uint32_t)grant > buf) {
			snprintf(why, whysz, "VC %d: grants %d bytes, more than "
			    "its buffer of %u", v, grant, buf);
			return TTD_DROP_CREDIT_IMPLAUSIBLE;
		}
	}
	peer = ttd_credit_peer(f, sw->side, lport, &verified, pmac);
	if (!verified) {
		credit_mac_text(fr->src_mac, a, sizeof(a));
		snprintf(why, whysz, "from %s, PE %u: no neighbour verified "
		    "by its hellos there yet", a, fr->src);
		return TTD_DROP_CREDIT_NOT_PEER;
	}
	if (memcmp(fr->src_mac, pmac, 6) != 0 || fr->src != peer) {
		credit_mac_text(fr->src_mac, a, sizeof(a));
		credit_mac_text(pmac, b, sizeof(b));
		snprintf(why, whysz, "from %s, PE %u: the neighbour there is "
		    "%s, PE %u", a, fr->src, b, peer);
		return TTD_DROP_CREDIT_NOT_PEER;
	}
	/* in its epoch, its frames come numbered one after another: one
	 * not after the last taken is old or replayed, one far ahead is
	 * forged; unless nothing was taken for long (it restarted with the
	 * same epoch, or lost track): then any starts the count anew */
	d = fr->seq - fp->cred_rx_seq;
	if (fp->cred_rx_epoch != 0 && c->epoch == fp->cred_rx_epoch &&
	    (d == 0 || d > TTD_CREDIT_SEQ_WINDOW) &&
	    now - fp->cred_rx_ns < TTD_CREDIT_QUIET_NS) {
		snprintf(why, whysz, "sequence number %u, the last taken was "
		    "%u", fr->seq, fp->cred_rx_seq);
		return TTD_DROP_CREDIT_STALE;
	}
	return -1;
}

/* A refused credit frame: counted under its reason; at most TTD_LOG_BURST
 * lines per port in TTD_LOG_WINDOW_NS, the rest counted and the count
 * logged when the window ends (credit_log_window). */
static void
credit_refused(struct ttd_fwd *f, struct ttd_sw *sw, int lport, int reason,
    const char *why, uint64_t now)
{
	struct ttd_fport *fp = &sw->fp[lport];
	struct ttd_loglimit *ll = &fp->cred_loglim;
	char pn[160];

	sw->cnt.dropped[reason]++;
	fp->cred_refused++;
	if (ll->lines == 0 && ll->suppressed == 0)
		ll->start_ns = now;	/* the window opens at the first */
	if (ll->lines >= TTD_LOG_BURST) {
		ll->suppressed++;
		return;
	}
	ll->lines++;
	ttd_log(TTD_LOG_WARNING, "credit", "%s: credit frame refused (%s): %s",
	    ttd_fwd_port_name(f, sw->side, lport, pn, sizeof(pn)),
	    ttd_drop_names[reason], why);
}

/* At the end of a port's window: how many refusals were not logged. */
static void
credit_log_window(struct ttd_fwd *f, struct ttd_sw *sw, int lport,
    uint64_t now)
{
	struct ttd_loglimit *ll = &sw->fp[lport].cred_loglim;
	char pn[160];

	if (ll->lines == 0 || now - ll->start_ns < TTD_LOG_WINDOW_NS)
		return;
	if (ll->suppressed > 0)
		ttd_log(TTD_LOG_WARNING, "credit", "%s: %llu more credit "
		    "frames refused in %llu s (at most %d lines per port; "
		    "ttd status counts them by reason)", ttd_fwd_port_name(f,
		    sw->side, lport, pn, sizeof(pn)), (unsigned long long)
		    ll->suppressed, (unsigned long long)(TTD_LOG_WINDOW_NS /
		    1000000000u), TTD_LOG_BURST);
	ll->start_ns = now;
	ll->lines = 0;
	ll->suppressed = 0;
}

void
ttd_credit_rx(struct ttd_fwd *f, struct ttd_sw *sw, int lport,
    const tt_frame *fr)
{
	struct ttd_fport *fp = &sw->fp[lport];
	uint64_t now = credit_now(f);
	char why[192];
	tt_credit c;
	uint32_t d;
	int v, reason;

	reason = credit_check(f, sw, lport, fr, &c, now, why, sizeof(why));
	if (reason >= 0) {
		credit_refused(f, sw, lport, reason, why, now);
		return;
	}
	sw->cnt.credits++;
	fp->cred_heard++;
	/* frames lost between two taken: only from the verified neighbour,
	 * in one epoch, at most TTD_CREDIT_SEQ_WINDOW at a time */
	d = fr->seq - fp->cred_rx_seq;
	if (fp->cred_rx_epoch != 0 && c.epoch == fp->cred_rx_epoch && d > 1 &&
	    d <= TTD_CREDIT_SEQ_WINDOW)
		fp->cred_lost += d - 1;
	fp->cred_rx_seq = fr->seq;
	fp->cred_rx_epoch = c.epoch;
	fp->cred_rx_ns = now;
	if (fp->port != TT_PORT_INT)
		fp->peer_heard_ns = now;
	if (fp->quiet_warned) {
		char pn[160];

		ttd_log(TTD_LOG_NOTICE, "credit", "%s: credits heard again",
		    ttd_fwd_port_name(f, sw->side, lport, pn, sizeof(pn)));
		fp->quiet_warned = 0;
	}
	if (f->o.lossy)
		return;		/* consumed; --lossy sends without credits */
	/* what the neighbour sends us: counted in its own count */
	if (c.epoch != fp->peer_epoch) {
		fp->peer_epoch = c.epoch;
		fp->cred_due = 1;	/* tell it we count in its epoch now */
	}
	for (v = 0; v < fp->nvcs; v++)
		if (fp->in[v].abr != c.vc[v].sent) {
			/* frames lost on the way (or a new epoch): their
			 * bytes come back to the neighbour */
			fp->in[v].abr = c.vc[v].sent;
			fp->cred_due = 1;
		}
	/* what we send it: its limits, if they count in our epoch */
	if (c.peer_epoch != sw->epoch) {
		fp->granted = 0;
		/* it has not heard our epoch yet, or has not taken our
		 * credit frames: perhaps it has not verified us */
		fp->cred_due = 1;
		fp->hello_due = 1;
		return;
	}
	for (v = 0; v < fp->nvcs; v++) {
		fp->oc[v].limit = c.vc[v].limit;
		fp->oc[v].peer_buffer = c.vc[v].buffer;
	}
	fp->peer_least = c.least;
	fp->granted = 1;
	sw->want |= 1u << lport;
	ttd_fwd_kick(f, sw);
}

/* The limit an input buffer grants its neighbour: what has arrived, plus
 * the room left. */
static uint32_t
credit_limit(const struct ttd_ibuf *b)
{
	return b->abr + (b->size - b->used);
}

/* Send port lport's credit state: 0, or -1 if the port did not take it
 * (it stays due). */
static int
credit_send(struct ttd_fwd *f, struct ttd_sw *sw, int lport, uint64_t now)
{
	uint8_t body[TT_CREDIT_HLEN + TT_CREDIT_MAX_VCS * TT_CREDIT_VC_LEN];
	uint8_t buf[TT_ETH_HLEN + TT_VLAN_HLEN + TT_FRAME_HLEN + sizeof(body)];
	struct ttd_fport *fp = &sw->fp[lport];
	tt_credit c;
	tt_frame fr;
	size_t len;
	int v, verified;

	/* a neighbour not verified yet, or one that has not taken our
	 * credit frames, hears who we are first: it takes credit frames
	 * only from a card its hellos verified */
	if (fp->port != TT_PORT_INT && (fp->hello_due || !fp->peer_ok) &&
	    ttd_hello_send(f, sw->side, lport) == 0)
		fp->hello_due = 0;
	memset(&c, 0, sizeof(c));
	c.epoch = sw->epoch;
	c.peer_epoch = fp->peer_epoch;
	c.nvcs = (uint8_t)fp->nvcs;
	c.least = (uint16_t)fp->in[0].least;	/* one size on a port */
	for (v = 0; v < fp->nvcs; v++) {
		const struct ttd_ibuf *b = &fp->in[v];

		c.vc[v].sent = fp->oc[v].sent;
		c.vc[v].limit = credit_limit(b);
		c.vc[v].buffer = b->size;
	}
	memset(&fr, 0, sizeof(fr));
	memcpy(fr.dst_mac, eth_broadcast, 6);
	memcpy(fr.src_mac, fp->mac, 6);
	fr.version = TT_FRAME_VERSION;
	fr.type = TT_FRAME_CREDIT;
	fr.dst = ttd_credit_peer(f, sw->side, lport, &verified, NULL);
	fr.src = sw->card;
	fr.seq = fp->cred_seq + 1;
	fr.payload = body;
	fr.payload_len = tt_credit_encode(&c, body, sizeof(body));
	fr.tagged = f->o.vlan;
	fr.tci = CREDIT_PCP << 13;
	len = tt_frame_encode(&fr, buf, sizeof(buf));
	if (len == 0 || f->io.port_send(f->io.ctx, sw->side, lport, buf,
	    len) != 0)
		return -1;
	fp->cred_seq++;
	sw->cnt.credits_tx++;
	fp->cred_due = 0;
	fp->cred_tx_ns = now;
	for (v = 0; v < fp->nvcs; v++)
		fp->in[v].freed = 0;
	return 0;
}

/* Whether port fp's credit state should go now: at the end of every
 * round that gave buffer space back (one frame for all the round's
 * frames: up to PLANE_BATCH a port under load), on news, and every
 * TTD_CREDIT_SYNC_NS. */
static int
credit_due(const struct ttd_fport *fp, uint64_t now)
{
	int v;

	if (fp->cred_due || now - fp->cred_tx_ns >= TTD_CREDIT_SYNC_NS)
		return 1;
	for (v = 0; v < fp->nvcs; v++)
		if (fp->in[v].freed > 0)
			return 1;
	return 0;
}

/* A neighbour silent for TTD_CREDIT_QUIET_NS while its link is up: said
 * once, until it is heard again. */
static void
credit_quiet(struct ttd_fwd *f, struct ttd_sw *sw, int lport, uint64_t now)
{
	struct ttd_fport *fp = &sw->fp[lport];
	char pn[160];

	if (fp->link == 0 || fp->cred_rx_ns == 0) {
		fp->cred_rx_ns = now;	/* the wait starts when it is up */
		return;
	}
	if (fp->quiet_warned || now - fp->cred_rx_ns < TTD_CREDIT_QUIET_NS)
		return;
	ttd_log(TTD_LOG_WARNING, "credit", "%s: no credit frame from the "
	    "neighbour for %llu s: frames for it wait (is ttd running there, "
	    "and without --lossy?%s)", ttd_fwd_port_name(f, sw->side, lport,
	    pn, sizeof(pn)), (unsigned long long)((now - fp->cred_rx_ns) /
	    1000000000u), fp->cred_refused > 0 ? " Credit frames were "
	    "refused here: see the credit_* drops of ttd status" : "");
	fp->quiet_warned = 1;
}

/*
 * The internal link's credit, when this loop runs both cards: the limits
 * go straight into the other card's switch, as a credit frame would have
 * put them, and a frame goes only on news (cred_due) and every
 * TTD_CREDIT_SYNC_NS.  Only the limits: a frame's `sent`, taken as the
 * receiver's count, gives back the bytes of frames lost before it, which
 * only a frame can, behind the data on the link; in memory it would count
 * frames still on their way as lost.  And only once the other card counts
 * in our limits' epoch and has taken our frames, so the link's first
 * exchange, and any after a restart or a link coming back, is by frames
 * (and verifies the cable).  0 if done, -1 if a frame must go.
 */
static int
credit_in_memory(struct ttd_fwd *f, struct ttd_sw *sw, int lport,
    uint64_t now)
{
	struct ttd_fport *fp = &sw->fp[lport];
	struct ttd_fport *op;
	struct ttd_sw *o;
	int k, v;

	if (fp->port != TT_PORT_INT || f->nd->ncards != 2 || fp->cred_due ||
	    now - fp->cred_tx_ns >= TTD_CREDIT_SYNC_NS)
		return -1;
	o = &f->sw[1 - sw->side];
	if ((k = credit_int_lport(o)) < 0)
		return -1;
	op = &o->fp[k];
	if (op->link == 0 || !op->granted || fp->peer_epoch != o->epoch ||
	    op->nvcs != fp->nvcs)
		return -1;
	for (v = 0; v < fp->nvcs; v++) {
		const struct ttd_ibuf *b = &fp->in[v];

		op->oc[v].limit = credit_limit(b);
		fp->in[v].freed = 0;
	}
	o->want |= 1u << k;
	ttd_fwd_kick(f, o);
	return 0;
}

void
ttd_credit_round(struct ttd_fwd *f, int side, uint64_t now)
{
	int s, i;

	for (s = 0; s < f->nd->ncards; s++) {
		struct ttd_sw *sw = &f->sw[s];

		if (side >= 0 && s != side)
			continue;
		for (i = 0; i < sw->nports; i++) {
			struct ttd_fport *fp = &sw->fp[i];

			credit_log_window(f, sw, i, now);
			if (f->o.lossy)
				continue;
			credit_quiet(f, sw, i, now);
			if (fp->link == 0 || !credit_due(fp, now))
				continue;
			/* one loop, both cards: no thread between them */
			if (side < 0 && credit_in_memory(f, sw, i, now) == 0)
				continue;
			(void)credit_send(f, sw, i, now);
		}
	}
}
