/*
 * The forwarding plane's logic: what a twin-torus card does with a frame.
 *
 * A card is a switch: a torus frame arriving on one of its
 * ports, or a frame its PE sends on its TAP, is routed with the card's
 * routing table, built by the core from tt_route() (seed 000 Alg. 1-6,
 * seed 001 §4), exactly as the simulator routes its packets.  The hop gives
 * the output port and the VC; the frame waits in that (port, VC) queue and
 * the queues of a port are served round-robin.  Frames for the card's own
 * PE are unwrapped and handed to its TAP.
 *
 * Nothing here touches a device: sending, delivering, tracing and the
 * clock go through struct ttd_io, which loop.c fills with libpcap and the
 * TAPs, and unit tests with recorders.  Queues are rings allocated once;
 * no frame allocates.
 *
 * Every frame taken in is counted once where its fate is decided
 * (struct ttd_counters): forwarded when a port has taken it, delivered
 * when the TAP has, consumed (a hello, an ARP request), or dropped for
 * one reason; until then it is queued.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "ttd.h"

const char *const ttd_drop_names[TTD_DROP_N] = {
	"no_route", "hop_limit", "queue_full", "bad_frame", "link_down",
	"not_for_pe", "too_long", "not_torus", "bad_hello", "send_failed",
	"deliver_failed"
};

static const uint8_t eth_broadcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

#define ETHERTYPE_ARP	0x0806
#define ARP_LEN		28

static int
fwd_lport(const struct ttd_fwd *f, int side, int port)
{
	int i;

	for (i = 0; i < f->nports[side]; i++)
		if (f->fp[side][i].port == port)
			return i;
	return -1;
}

const char *
ttd_fwd_port_name(const struct ttd_fwd *f, int side, int lport, char *buf,
    size_t bufsz)
{
	char cn[64], pn[16];
	int port = f->fp[side][lport].port;

	tt_card_name(f->net, f->nd->card[side].card, cn, sizeof(cn));
	if (port == TT_PORT_INT)
		snprintf(pn, sizeof(pn), "internal");
	else
		tt_port_name(port, f->net->n, pn, sizeof(pn));
	snprintf(buf, bufsz, "%s %s (%s)", cn, pn,
	    f->nd->card[side].port[lport].ifname);
	return buf;
}

int
ttd_fwd_init(struct ttd_fwd *f, const struct ttd_node *nd,
    const struct ttd_io *io, unsigned queue_slots, char *err, size_t errsz)
{
	const tt_net *net = nd->net;
	int s, i, v;

	memset(f, 0, sizeof(*f));
	f->nd = nd;
	f->net = net;
	f->io = *io;
	f->subnet = nd->cfg->pe_subnet;
	f->mask = nd->cfg->pe_prefix ? ~0u << (32 - nd->cfg->pe_prefix) : 0;
	for (s = 0; s < nd->ncards; s++) {
		const struct ttd_card *c = &nd->card[s];

		if (tt_rtable_build(net, c->card, &f->rt[s]) < 0) {
			snprintf(err, errsz, "out of memory for the routing "
			    "table");
			goto fail;
		}
		f->pe_ip[s] = f->subnet + c->card + 1;
		f->nports[s] = c->nports;
		for (i = 0; i < c->nports; i++) {
			struct ttd_fport *fp = &f->fp[s][i];

			fp->port = c->port[i].port;
			fp->link = -1;
			fp->nvcs = fp->port == TT_PORT_INT ? net->int_vcs :
			    net->ext_vcs;
			if (fp->nvcs < 1)
				fp->nvcs = 1;
			fp->q = calloc((size_t)fp->nvcs, sizeof(*fp->q));
			if (fp->q == NULL)
				goto nomem;
			for (v = 0; v < fp->nvcs; v++) {
				fp->q[v].slots = queue_slots;
				fp->q[v].buf = malloc((size_t)queue_slots *
				    TTD_FRAME_MAX);
				fp->q[v].len = calloc(queue_slots,
				    sizeof(uint16_t));
				if (fp->q[v].buf == NULL || fp->q[v].len == NULL)
					goto nomem;
			}
		}
	}
	return 0;
nomem:
	snprintf(err, errsz, "out of memory for the output queues");
fail:
	ttd_fwd_free(f);
	return -1;
}

void
ttd_fwd_free(struct ttd_fwd *f)
{
	int s, i, v;

	for (s = 0; s < 2; s++) {
		if (f->rt[s].store != NULL)
			tt_rtable_free(&f->rt[s]);
		for (i = 0; i < f->nports[s]; i++) {
			struct ttd_fport *fp = &f->fp[s][i];

			for (v = 0; fp->q != NULL && v < fp->nvcs; v++) {
				free(fp->q[v].buf);
				free(fp->q[v].len);
			}
			free(fp->q);
			fp->q = NULL;
		}
	}
}

static void fwd_drain_port(struct ttd_fwd *f, int side, int lport);

static void
fwd_drop(struct ttd_fwd *f, enum ttd_drop why)
{
	f->cnt.dropped[why]++;
}

/* Hand a frame to card side's PE: delivered, or lost at its TAP. */
static void
fwd_deliver(struct ttd_fwd *f, int side, const uint8_t *buf, size_t len)
{
	if (f->io.pe_deliver(f->io.ctx, side, buf, len) == 0)
		f->cnt.delivered++;
	else
		fwd_drop(f, TTD_DROP_DELIVER_FAILED);
}

/*
 * Route frame fr (decoded; its payload is the carried frame) at card
 * side, arrived on in_port: deliver it to the PE, or queue it on the
 * hop's (port, VC) with the hop count raised.
 */
static void
fwd_route(struct ttd_fwd *f, int side, const tt_frame *fr, int in_port)
{
	tt_hop hop;
	tt_frame out;
	struct ttd_fport *fp;
	struct ttd_ring *r;
	size_t len, slot;
	int lport;

	if (fr->dst >= f->net->ncards) {
		fwd_drop(f, TTD_DROP_NO_ROUTE);
		return;
	}
	hop = tt_rtable_lookup(f->net, &f->rt[side], fr->dst, in_port);
	out = *fr;
	if (hop.port == TT_PORT_NIC) {
		/* the record of a delivery is the frame as it came, flagged */
		out.flags |= TT_FRAME_F_DELIVERED;
		len = tt_frame_encode(&out, f->record, sizeof(f->record));
		if (len > 0 && f->io.trace_pe != NULL)
			f->io.trace_pe(f->io.ctx, f->record, len);
		fwd_deliver(f, side, fr->payload, fr->payload_len);
		return;
	}
	if (fr->hops >= TTD_HOP_LIMIT) {
		fwd_drop(f, TTD_DROP_HOP_LIMIT);
		return;
	}
	lport = fwd_lport(f, side, hop.port);
	if (lport < 0) {
		fwd_drop(f, TTD_DROP_NO_ROUTE);
		return;
	}
	fp = &f->fp[side][lport];
	if (fp->link == 0) {
		fwd_drop(f, TTD_DROP_LINK_DOWN);
		return;
	}
	r = &fp->q[hop.vc < fp->nvcs ? hop.vc : fp->nvcs - 1];
	if (r->count == r->slots) {
		fwd_drop(f, TTD_DROP_QUEUE_FULL);
		return;
	}
	out.vc = hop.vc;
	out.hops = (uint8_t)(fr->hops + 1);
	memcpy(out.dst_mac, eth_broadcast, 6);
	memcpy(out.src_mac, f->port_mac[side][lport], 6);
	out.tagged = f->vlan;
	out.tci = (uint16_t)((hop.vc & 7) << 13);  /* PCP = VC (PFC has 8) */
	slot = (r->head + r->count) % r->slots;
	len = tt_frame_encode(&out, r->buf + slot * TTD_FRAME_MAX,
	    TTD_FRAME_MAX);
	if (len == 0) {
		/* the fields are the routing's own: only the length (a tag
		 * added to a frame at the limit) can fail to fit */
		fwd_drop(f, TTD_DROP_TOO_LONG);
		return;
	}
	r->len[slot] = (uint16_t)len;
	r->count++;
	/* a frame waits only while its port is busy: an idle port sends at
	 * once, and a busy one is served round-robin as it frees up */
	fwd_drain_port(f, side, lport);
}

/* At the end of a port's window: how many lines it held back. */
static void
fwd_log_suppressed(struct ttd_fwd *f, int side, int lport, uint64_t now)
{
	struct ttd_loglimit *ll = &f->fp[side][lport].loglim;
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
fwd_log_allowed(struct ttd_fwd *f, int side, int lport)
{
	struct ttd_loglimit *ll = &f->fp[side][lport].loglim;

	fwd_log_suppressed(f, side, lport, f->io.now_ns != NULL ?
	    f->io.now_ns(f->io.ctx) : 0);
	if (ll->lines < TTD_LOG_BURST) {
		ll->lines++;
		return 1;
	}
	ll->suppressed++;
	return 0;
}

/* Whether hello h names a node, card and port this torus has. */
static int
fwd_hello_valid(const tt_net *net, const tt_hello *h)
{
	if (h->node >= net->nnodes || h->port >= 2 * net->n)
		return 0;
	if (!net->twin)
		return h->card == 0;
	return h->card <= 1 && net->local_port[h->card][h->port] >= 0;
}

/* Log a changed cabling verdict of card side's local port lport. */
static void
fwd_cabling_log(struct ttd_fwd *f, int side, int lport, const tt_hello *h,
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

/* Hello from a neighbour: is the cable the one the torus needs here? */
static void
fwd_hello_rx(struct ttd_fwd *f, int side, int lport, const tt_frame *fr)
{
	struct ttd_fport *fp = &f->fp[side][lport];
	uint32_t card = f->nd->card[side].card, peer;
	char err[128], pn[160];
	int peer_port, verdict;
	tt_hello h;

	if (fr->payload_len < TT_HELLO_LEN) {
		fwd_drop(f, TTD_DROP_BAD_FRAME);
		return;
	}
	if (tt_hello_decode(&h, fr->payload, fr->payload_len, err,
	    sizeof(err)) < 0 || !fwd_hello_valid(f->net, &h)) {
		fwd_drop(f, TTD_DROP_BAD_HELLO);
		if (fwd_log_allowed(f, side, lport))
			ttd_log(TTD_LOG_WARNING, "cabling", "%s: hello from "
			    "node %u card %u port %u, which this torus does "
			    "not have (ignored)", ttd_fwd_port_name(f, side,
			    lport, pn, sizeof(pn)), h.node, h.card, h.port);
		return;
	}
	f->cnt.hellos++;
	if (fp->port == TT_PORT_INT)
		return;		/* no cabling verdict on the internal link */
	peer = tt_link_peer(f->net, card, fp->port, &peer_port);
	verdict = h.node == tt_card_node(f->net, peer) &&
	    h.card == tt_card_side(f->net, peer) && h.port == peer_port ?
	    TTD_CABLING_OK : TTD_CABLING_WRONG;
	if ((verdict != fp->cabling || memcmp(&h, &fp->heard, sizeof(h))) &&
	    fwd_log_allowed(f, side, lport))
		fwd_cabling_log(f, side, lport, &h, verdict, peer, peer_port);
	fp->heard = h;
	fp->cabling = verdict;
}

void
ttd_fwd_port_rx(struct ttd_fwd *f, int side, int lport, const uint8_t *buf,
    size_t len, size_t wirelen)
{
	struct ttd_fport *fp = &f->fp[side][lport];
	char err[128];
	tt_frame fr;
	int x;

	fp->rx++;
	f->cnt.received++;
	if (wirelen > len || len > TTD_FRAME_MAX) {
		/* cut at the snap length: never forwarded as if whole */
		fwd_drop(f, TTD_DROP_TOO_LONG);
		return;
	}
	x = tt_frame_decode(&fr, buf, len, err, sizeof(err));
	if (x == 1) {
		fwd_drop(f, TTD_DROP_NOT_TORUS);  /* e.g. the kernel's own */
		return;
	}
	if (x < 0) {
		fwd_drop(f, TTD_DROP_BAD_FRAME);
		ttd_log(TTD_LOG_DEBUG, "fwd", "bad frame on %s: %s",
		    f->nd->card[side].port[lport].ifname, err);
		return;
	}
	if (fr.type == TT_FRAME_HELLO) {
		fwd_hello_rx(f, side, lport, &fr);
		return;
	}
	if (fr.flags & TT_FRAME_F_DELIVERED) {
		fwd_drop(f, TTD_DROP_BAD_FRAME);	/* never on a link */
		return;
	}
	fwd_route(f, side, &fr, fp->port);
}

/* An ARP request for a PE's address: answered with that PE's MAC. */
static int
fwd_arp(struct ttd_fwd *f, int side, const uint8_t *buf, size_t len)
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
	if (f->io.pe_deliver(f->io.ctx, side, rep, sizeof(rep)) == 0)
		f->cnt.arp++;
	else
		fwd_drop(f, TTD_DROP_DELIVER_FAILED);
	return 0;
}

void
ttd_fwd_pe_rx(struct ttd_fwd *f, int side, const uint8_t *buf, size_t len)
{
	tt_frame fr;
	int64_t dst;
	size_t flen;
	char err[64];

	f->cnt.received++;
	if (len > TTD_FRAME_MAX) {
		fwd_drop(f, TTD_DROP_TOO_LONG);
		return;
	}
	if (len < TT_ETH_HLEN) {
		fwd_drop(f, TTD_DROP_NOT_FOR_PE);
		return;
	}
	if (((uint16_t)buf[12] << 8 | buf[13]) == ETHERTYPE_ARP) {
		if (fwd_arp(f, side, buf, len) < 0)
			fwd_drop(f, TTD_DROP_NOT_FOR_PE);
		return;
	}
	dst = ttd_mac_pe(buf);
	if (dst < 0 || (uint64_t)dst >= f->net->ncards) {
		fwd_drop(f, TTD_DROP_NOT_FOR_PE);
		return;
	}
	memset(&fr, 0, sizeof(fr));
	fr.version = TT_FRAME_VERSION;
	fr.type = TT_FRAME_DATA;
	fr.dst = (uint32_t)dst;
	fr.src = f->nd->card[side].card;
	fr.seq = f->seq[side]++;
	fr.payload = buf;
	fr.payload_len = len;
	ttd_pe_mac(fr.src, fr.src_mac);
	ttd_pe_mac(fr.dst, fr.dst_mac);
	/* the application trace: the message as its PE sent it, hop 0 */
	flen = tt_frame_encode(&fr, f->scratch, sizeof(f->scratch));
	if (flen == 0) {
		fwd_drop(f, TTD_DROP_TOO_LONG);	/* no room for the header */
		return;
	}
	if (f->io.trace_pe != NULL)
		f->io.trace_pe(f->io.ctx, f->scratch, flen);
	f->cnt.injected++;
	/* route from the scratch copy: its payload outlives buf's caller */
	if (tt_frame_decode(&fr, f->scratch, flen, err, sizeof(err)) != 0) {
		fwd_drop(f, TTD_DROP_BAD_FRAME);	/* cannot happen */
		return;
	}
	fwd_route(f, side, &fr, TT_PORT_NIC);
}

/* Send what port lport of card side holds, its VCs served round-robin,
 * until the queues are empty or the port is busy. */
static void
fwd_drain_port(struct ttd_fwd *f, int side, int lport)
{
	struct ttd_fport *fp = &f->fp[side][lport];
	int k, v, any, x;

	do {
		any = 0;
		for (k = 0; k < fp->nvcs; k++) {
			struct ttd_ring *r;
			const uint8_t *frame;

			v = (fp->rr + k) % fp->nvcs;
			r = &fp->q[v];
			if (r->count == 0)
				continue;
			frame = r->buf + (size_t)r->head * TTD_FRAME_MAX;
			x = f->io.port_send(f->io.ctx, side, lport, frame,
			    r->len[r->head]);
			if (x < 0) {
				fp->rr = v;
				return;		/* the port is busy */
			}
			if (x > 0) {
				fwd_drop(f, TTD_DROP_SEND_FAILED);
			} else {
				if (f->io.trace_port != NULL)
					f->io.trace_port(f->io.ctx, side, lport,
					    frame, r->len[r->head]);
				fp->tx++;
				f->cnt.forwarded++;
			}
			r->head = (r->head + 1) % r->slots;
			r->count--;
			fp->rr = (v + 1) % fp->nvcs;
			any = 1;
		}
	} while (any);
}

void
ttd_fwd_drain(struct ttd_fwd *f)
{
	int s, i;

	for (s = 0; s < f->nd->ncards; s++)
		for (i = 0; i < f->nports[s]; i++)
			fwd_drain_port(f, s, i);
}

uint64_t
ttd_fwd_queued(const struct ttd_fwd *f)
{
	uint64_t n = 0;
	int s, i, v;

	for (s = 0; s < f->nd->ncards; s++)
		for (i = 0; i < f->nports[s]; i++)
			for (v = 0; v < f->fp[s][i].nvcs; v++)
				n += f->fp[s][i].q[v].count;
	return n;
}

uint64_t
ttd_fwd_accounted(const struct ttd_fwd *f)
{
	const struct ttd_counters *c = &f->cnt;
	uint64_t n;
	int d;

	n = c->forwarded + c->delivered + c->hellos + c->arp +
	    ttd_fwd_queued(f);
	for (d = 0; d < TTD_DROP_N; d++)
		n += c->dropped[d];
	return n;
}

void
ttd_fwd_hello(struct ttd_fwd *f)
{
	uint8_t body[TT_HELLO_LEN], buf[64];
	uint64_t now = f->io.now_ns != NULL ? f->io.now_ns(f->io.ctx) : 0;
	tt_frame fr;
	tt_hello h;
	size_t len;
	int s, i;

	for (s = 0; s < f->nd->ncards; s++)
		for (i = 0; i < f->nports[s]; i++) {
			struct ttd_fport *fp = &f->fp[s][i];

			fwd_log_suppressed(f, s, i, now);
			if (fp->port == TT_PORT_INT || fp->link == 0)
				continue;
			memset(&h, 0, sizeof(h));
			h.node = f->nd->node;
			h.card = (uint8_t)s;
			h.port = (uint8_t)fp->port;
			tt_hello_encode(&h, body);
			memset(&fr, 0, sizeof(fr));
			memcpy(fr.dst_mac, eth_broadcast, 6);
			memcpy(fr.src_mac, f->port_mac[s][i], 6);
			fr.version = TT_FRAME_VERSION;
			fr.type = TT_FRAME_HELLO;
			fr.dst = TT_PE_BROADCAST;
			fr.src = f->nd->card[s].card;
			fr.payload = body;
			fr.payload_len = sizeof(body);
			fr.tagged = f->vlan;	/* VC 0, PCP 0 */
			len = tt_frame_encode(&fr, buf, sizeof(buf));
			if (len > 0 && f->io.port_send(f->io.ctx, s, i, buf,
			    len) == 0)
				f->cnt.hellos_tx++;
		}
}

void
ttd_fwd_link(struct ttd_fwd *f, int side, int lport, int up)
{
	struct ttd_fport *fp = &f->fp[side][lport];

	fp->link = up;
	if (!up)
		fp->cabling = TTD_CABLING_UNKNOWN;	/* nothing to hear */
}
