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
 * first exchange.
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
	/* never more than the buffer behind it, whatever a confused
	 * neighbour says */
	if (oc->peer_buffer > 0 && (uint32_t)d > oc->peer_buffer)
		return oc->peer_buffer;
	return d;
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

void
ttd_credit_rx(struct ttd_fwd *f, struct ttd_sw *sw, int lport,
    const tt_frame *fr)
{
	struct ttd_fport *fp = &sw->fp[lport];
	char err[128];
	tt_credit c;
	int v;

	if (tt_credit_decode(&c, fr->payload, fr->payload_len, err,
	    sizeof(err)) < 0 || c.nvcs != fp->nvcs) {
		sw->cnt.dropped[TTD_DROP_BAD_FRAME]++;
		ttd_log(TTD_LOG_DEBUG, "credit", "bad credit frame on %s: %s",
		    f->nd->card[sw->side].port[lport].ifname, c.nvcs !=
		    fp->nvcs && err[0] == '\0' ? "another VC count" : err);
		return;
	}
	sw->cnt.credits++;
	fp->cred_heard++;
	if (c.epoch == fp->peer_epoch && fr->seq > fp->cred_rx_seq + 1)
		fp->cred_lost += fr->seq - fp->cred_rx_seq - 1;
	fp->cred_rx_seq = fr->seq;
	fp->cred_rx_ns = f->io.now_ns != NULL ? f->io.now_ns(f->io.ctx) : 1;
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
		fp->cred_due = 1;	/* it has not heard our epoch yet */
		return;
	}
	for (v = 0; v < fp->nvcs; v++) {
		fp->oc[v].limit = c.vc[v].limit;
		fp->oc[v].peer_buffer = c.vc[v].buffer;
	}
	fp->granted = 1;
	sw->want |= 1u << lport;
	ttd_fwd_kick(f, sw);
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
	int v;

	memset(&c, 0, sizeof(c));
	c.epoch = sw->epoch;
	c.peer_epoch = fp->peer_epoch;
	c.nvcs = (uint8_t)fp->nvcs;
	for (v = 0; v < fp->nvcs; v++) {
		const struct ttd_ibuf *b = &fp->in[v];

		c.vc[v].sent = fp->oc[v].sent;
		c.vc[v].limit = b->abr + (b->size - b->used);
		c.vc[v].buffer = b->size;
	}
	memset(&fr, 0, sizeof(fr));
	memcpy(fr.dst_mac, eth_broadcast, 6);
	memcpy(fr.src_mac, fp->mac, 6);
	fr.version = TT_FRAME_VERSION;
	fr.type = TT_FRAME_CREDIT;
	fr.dst = TT_PE_BROADCAST;
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
	    "and without --lossy?)", ttd_fwd_port_name(f, sw->side, lport, pn,
	    sizeof(pn)), (unsigned long long)((now - fp->cred_rx_ns) /
	    1000000000u));
	fp->quiet_warned = 1;
}

void
ttd_credit_round(struct ttd_fwd *f, int side, uint64_t now)
{
	int s, i;

	if (f->o.lossy)
		return;
	for (s = 0; s < f->nd->ncards; s++) {
		struct ttd_sw *sw = &f->sw[s];

		if (side >= 0 && s != side)
			continue;
		for (i = 0; i < sw->nports; i++) {
			struct ttd_fport *fp = &sw->fp[i];

			credit_quiet(f, sw, i, now);
			if (fp->link != 0 && credit_due(fp, now))
				(void)credit_send(f, sw, i, now);
		}
	}
}
