/*
 * Hellos and the cabling verdict.  Every second each external port sends
 * a hello naming its node, card and port; a port that hears another
 * neighbour than the torus puts there says which cable is wrong.  What a
 * port hears is logged at most TTD_LOG_BURST lines per port in
 * TTD_LOG_WINDOW_NS; beyond that lines are counted, and the count is
 * logged when the window ends.
 *
 * The hellos also verify the neighbour credit frames are taken from
 * (credit.c): a hello naming the node, card and port the torus puts at
 * the far end, sent by that card (the frame's source PE), makes its MAC
 * address the port's neighbour.  Another MAC address claiming the same is
 * not believed while that neighbour is heard (hello_impostor); once it
 * has been silent TTD_PEER_HOLD_NS, or the link went down since, it may
 * take its place.  Whoever can send frames with the neighbour's own MAC
 * address is that neighbour as far as Ethernet can tell: these checks
 * keep out every other sender on the cable, not that one.
 */
#include <string.h>

#include "ttd.h"

static const uint8_t eth_broadcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

static uint64_t
hello_now(const struct ttd_fwd *f)
{
	return f->io.now_ns != NULL ? f->io.now_ns(f->io.ctx) : 0;
}

/* At the end of a port's window: how many lines it held back. */
static void
hello_log_suppressed(struct ttd_fwd *f, int side, int lport, uint64_t now)
{
	struct ttd_loglimit *ll = &f->sw[side].fp[lport].loglim;
	char pn[160];

	if (now - ll->start_ns < TTD_LOG_WINDOW_NS)
		return;
	if (ll->suppressed > 0)
		ttd_log(TTD_LOG_WARNING, "cabling", "%s: %llu more lines "
		    "about its hellos suppressed in %llu s (at most %d per "
		    "port)", ttd_fwd_port_name(f, side, lport, pn, sizeof(pn)),
		    (unsigned long long)ll->suppressed,
		    (unsigned long long)(TTD_LOG_WINDOW_NS / 1000000000u),
		    TTD_LOG_BURST);
	ll->start_ns = now;
	ll->lines = 0;
	ll->suppressed = 0;
}

/* Whether card side's port lport may log one more line about what it
 * hears; what it may not is counted and the count logged when its
 * window ends (here or in ttd_fwd_hello's timer). */
static int
hello_log_allowed(struct ttd_fwd *f, int side, int lport)
{
	struct ttd_loglimit *ll = &f->sw[side].fp[lport].loglim;

	hello_log_suppressed(f, side, lport, hello_now(f));
	if (ll->lines < TTD_LOG_BURST) {
		ll->lines++;
		return 1;
	}
	ll->suppressed++;
	return 0;
}

/* Whether hello h names a node, card and port this torus has. */
static int
hello_valid(const tt_net *net, const tt_hello *h)
{
	if (h->node >= net->nnodes || h->port >= 2 * net->n)
		return 0;
	if (!net->twin)
		return h->card == 0;
	return h->card <= 1 && net->local_port[h->card][h->port] >= 0;
}

/* Log a changed cabling verdict of card side's local port lport. */
static void
hello_cabling_log(struct ttd_fwd *f, int side, int lport, const tt_hello *h,
    int verdict, uint32_t peer, int peer_port)
{
	char pn[160], want[64], heard[64], wp[16], hp[16];

	ttd_fwd_port_name(f, side, lport, pn, sizeof(pn));
	tt_card_name(f->net, peer, want, sizeof(want));
	tt_port_name(peer_port, f->net->n, wp, sizeof(wp));
	tt_card_name(f->net, tt_card_of(f->net, h->node, h->card), heard,
	    sizeof(heard));
	tt_port_name(h->port, f->net->n, hp, sizeof(hp));
	if (verdict == TTD_CABLING_OK)
		ttd_log(TTD_LOG_NOTICE, "cabling", "%s: ok, hears %s %s", pn,
		    heard, hp);
	else
		ttd_log(TTD_LOG_WARNING, "cabling", "%s: wrong cable: hears %s "
		    "%s, expected %s %s", pn, heard, hp, want, wp);
}

static void
hello_mac_text(const uint8_t m[6], char *buf, size_t bufsz)
{
	snprintf(buf, bufsz, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1],
	    m[2], m[3], m[4], m[5]);
}

/*
 * Whether a hello that names the neighbour the torus puts at the far end
 * of card side's port lport (sent from MAC address mac) makes that MAC
 * the port's verified neighbour: 1 it does (or already was), 0 another
 * one is verified there and still heard (logged, rate-limited).
 */
static int
hello_verify(struct ttd_fwd *f, int side, int lport, const uint8_t mac[6],
    uint64_t now)
{
	struct ttd_fport *fp = &f->sw[side].fp[lport];
	char pn[160], m[20], was[20];

	if (fp->peer_ok && memcmp(fp->peer_mac, mac, 6) == 0) {
		fp->peer_heard_ns = now;
		fp->peer_open = 0;
		return 1;
	}
	if (fp->peer_ok && !fp->peer_open &&
	    now - fp->peer_heard_ns < TTD_PEER_HOLD_NS) {
		if (hello_log_allowed(f, side, lport)) {
			hello_mac_text(mac, m, sizeof(m));
			hello_mac_text(fp->peer_mac, was, sizeof(was));
			ttd_log(TTD_LOG_WARNING, "cabling", "%s: a hello as "
			    "the neighbour from %s, but the neighbour verified "
			    "there is %s and still heard: ignored (a second "
			    "sender on the cable?)", ttd_fwd_port_name(f, side,
			    lport, pn, sizeof(pn)), m, was);
		}
		return 0;
	}
	if (fp->peer_ok && hello_log_allowed(f, side, lport)) {
		hello_mac_text(mac, m, sizeof(m));
		hello_mac_text(fp->peer_mac, was, sizeof(was));
		ttd_log(TTD_LOG_NOTICE, "cabling", "%s: the neighbour is now "
		    "%s (%s %s)", ttd_fwd_port_name(f, side, lport, pn,
		    sizeof(pn)), m, was, fp->peer_open ? "was there before the "
		    "link went down" : "silent for 3 s or more");
	}
	memcpy(fp->peer_mac, mac, 6);
	fp->peer_ok = 1;
	fp->peer_open = 0;
	fp->peer_heard_ns = now;
	fp->cred_rx_epoch = 0;		/* its sequence numbers start anew */
	return 1;
}

/* Hello from a neighbour: is the cable the one the torus needs here? */
void
ttd_hello_rx(struct ttd_fwd *f, struct ttd_sw *sw, int lport,
    const tt_frame *fr)
{
	struct ttd_fport *fp = &sw->fp[lport];
	int side = sw->side, peer_port, verdict;
	char err[128], pn[160];
	uint32_t peer;
	tt_hello h;

	if (fr->payload_len < TT_HELLO_LEN) {
		sw->cnt.dropped[TTD_DROP_BAD_FRAME]++;
		return;
	}
	if (tt_hello_decode(&h, fr->payload, fr->payload_len, err,
	    sizeof(err)) < 0 || !hello_valid(f->net, &h)) {
		sw->cnt.dropped[TTD_DROP_BAD_HELLO]++;
		if (hello_log_allowed(f, side, lport))
			ttd_log(TTD_LOG_WARNING, "cabling", "%s: hello from "
			    "node %u card %u port %u, which this torus does "
			    "not have (ignored)", ttd_fwd_port_name(f, side,
			    lport, pn, sizeof(pn)), h.node, h.card, h.port);
		return;
	}
	if (fp->port == TT_PORT_INT) {
		sw->cnt.hellos++;
		return;		/* no cabling verdict on the internal link */
	}
	peer = tt_link_peer(f->net, sw->card, fp->port, &peer_port);
	verdict = h.node == tt_card_node(f->net, peer) &&
	    h.card == tt_card_side(f->net, peer) && h.port == peer_port ?
	    TTD_CABLING_OK : TTD_CABLING_WRONG;
	if (verdict == TTD_CABLING_OK && fr->src == peer) {
		if (!hello_verify(f, side, lport, fr->src_mac, hello_now(f))) {
			sw->cnt.dropped[TTD_DROP_HELLO_IMPOSTOR]++;
			return;
		}
	} else if (fp->peer_ok && memcmp(fp->peer_mac, fr->src_mac, 6) ==
	    0) {
		fp->peer_ok = 0;	/* it now says it is another */
	}
	sw->cnt.hellos++;
	if ((verdict != fp->cabling || memcmp(&h, &fp->heard, sizeof(h))) &&
	    hello_log_allowed(f, side, lport))
		hello_cabling_log(f, side, lport, &h, verdict, peer, peer_port);
	fp->heard = h;
	fp->cabling = verdict;
}

/* One hello on card s's local port i (an external one). */
static int
hello_send(struct ttd_fwd *f, int s, int i)
{
	struct ttd_sw *sw = &f->sw[s];
	struct ttd_fport *fp = &sw->fp[i];
	uint8_t body[TT_HELLO_LEN], buf[64];
	tt_frame fr;
	tt_hello h;
	size_t len;

	memset(&h, 0, sizeof(h));
	h.node = f->nd->node;
	h.card = (uint8_t)s;
	h.port = (uint8_t)fp->port;
	tt_hello_encode(&h, body);
	memset(&fr, 0, sizeof(fr));
	memcpy(fr.dst_mac, eth_broadcast, 6);
	memcpy(fr.src_mac, fp->mac, 6);
	fr.version = TT_FRAME_VERSION;
	fr.type = TT_FRAME_HELLO;
	fr.dst = TT_PE_BROADCAST;
	fr.src = sw->card;
	fr.payload = body;
	fr.payload_len = sizeof(body);
	fr.tagged = f->o.vlan;	/* VC 0, PCP 0 */
	len = tt_frame_encode(&fr, buf, sizeof(buf));
	if (len == 0 || f->io.port_send(f->io.ctx, s, i, buf, len) != 0)
		return -1;
	sw->cnt.hellos_tx++;
	return 0;
}

int
ttd_hello_send(struct ttd_fwd *f, int side, int lport)
{
	const struct ttd_fport *fp = &f->sw[side].fp[lport];

	if (fp->port == TT_PORT_INT || fp->link == 0)
		return -1;
	return hello_send(f, side, lport);
}

void
ttd_fwd_hello(struct ttd_fwd *f, int side)
{
	uint64_t now = hello_now(f);
	int s, i;

	for (s = 0; s < f->nd->ncards; s++) {
		struct ttd_sw *sw = &f->sw[s];

		if (side >= 0 && s != side)
			continue;
		for (i = 0; i < sw->nports; i++) {
			struct ttd_fport *fp = &sw->fp[i];

			hello_log_suppressed(f, s, i, now);
			if (fp->port == TT_PORT_INT || fp->link == 0)
				continue;
			(void)hello_send(f, s, i);
		}
	}
}
