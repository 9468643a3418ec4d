/*
 * The torus frame: encode and decode (layout in twintorus/frame.h).
 */
#include <string.h>

#include "support/errf.h"
#include "twintorus/frame.h"
#include "twintorus/topo.h"

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

size_t
tt_frame_hlen(const tt_frame *f)
{
	return TT_ETH_HLEN + (f->tagged ? TT_VLAN_HLEN : 0) + TT_FRAME_HLEN;
}

size_t
tt_frame_encode(const tt_frame *f, uint8_t *buf, size_t bufsz)
{
	size_t h = tt_frame_hlen(f), off = 12;

	if (f->version != TT_FRAME_VERSION || f->type > TT_FRAME_CREDIT ||
	    f->vc >= TT_MAX_VCS || (f->flags & ~TT_FRAME_F_ALL) != 0)
		return 0;
	if (bufsz < h || bufsz - h < f->payload_len)
		return 0;
	memcpy(buf, f->dst_mac, 6);
	memcpy(buf + 6, f->src_mac, 6);
	if (f->tagged) {
		put16(buf + off, TT_ETHERTYPE_VLAN);
		put16(buf + off + 2, f->tci);
		off += TT_VLAN_HLEN;
	}
	put16(buf + off, TT_ETHERTYPE);
	off += 2;
	buf[off] = (uint8_t)(f->version << 4 | f->type);
	buf[off + 1] = f->vc;
	buf[off + 2] = f->hops;
	buf[off + 3] = f->flags;
	put32(buf + off + 4, f->dst);
	put32(buf + off + 8, f->src);
	put32(buf + off + 12, f->seq);
	off += TT_FRAME_HLEN;
	if (f->payload_len > 0)
		memcpy(buf + off, f->payload, f->payload_len);
	return off + f->payload_len;
}

int
tt_frame_decode(tt_frame *f, const uint8_t *buf, size_t len, char *err,
    size_t errsz)
{
	size_t off = 12;
	uint8_t vt;

	memset(f, 0, sizeof(*f));
	if (len < TT_ETH_HLEN) {
		tt_errf(err, errsz, "%zu bytes, shorter than an Ethernet "
		    "header (14)", len);
		return TT_FRAME_CUT;
	}
	memcpy(f->dst_mac, buf, 6);
	memcpy(f->src_mac, buf + 6, 6);
	f->ethertype = get16(buf + off);
	if (f->ethertype == TT_ETHERTYPE_VLAN) {
		if (len < TT_ETH_HLEN + TT_VLAN_HLEN) {
			tt_errf(err, errsz, "802.1Q tag cut at %zu bytes",
			    len);
			return TT_FRAME_CUT;
		}
		f->tagged = 1;
		f->tci = get16(buf + off + 2);
		off += TT_VLAN_HLEN;
		f->ethertype = get16(buf + off);
	}
	off += 2;
	if (f->ethertype != TT_ETHERTYPE)
		return 1;
	if (len - off < TT_FRAME_HLEN) {
		tt_errf(err, errsz, "torus header cut at %zu of %d bytes",
		    len - off, TT_FRAME_HLEN);
		return TT_FRAME_CUT;
	}
	vt = buf[off];
	f->version = vt >> 4;
	f->type = vt & 0x0f;
	f->vc = buf[off + 1];
	f->hops = buf[off + 2];
	f->flags = buf[off + 3];
	f->dst = get32(buf + off + 4);
	f->src = get32(buf + off + 8);
	f->seq = get32(buf + off + 12);
	off += TT_FRAME_HLEN;
	f->payload = buf + off;
	f->payload_len = len - off;
	if (f->version != TT_FRAME_VERSION)
		return tt_errf(err, errsz, "torus frame version %u (this "
		    "build reads version %d)", f->version, TT_FRAME_VERSION);
	if (f->type > TT_FRAME_CREDIT)
		return tt_errf(err, errsz, "unknown torus frame type %u "
		    "(0 data, 1 hello, 2 credit)", f->type);
	if (f->vc >= TT_MAX_VCS)
		return tt_errf(err, errsz, "VC %u out of range (at most %d)",
		    f->vc, TT_MAX_VCS - 1);
	if (f->flags & ~TT_FRAME_F_ALL)
		return tt_errf(err, errsz, "unknown flags 0x%02x",
		    f->flags & ~TT_FRAME_F_ALL);
	return 0;
}

void
tt_hello_encode(const tt_hello *h, uint8_t out[TT_HELLO_LEN])
{
	put32(out, h->node);
	out[4] = h->card;
	out[5] = h->port;
	put16(out + 6, h->reserved);
}

int
tt_hello_decode(tt_hello *h, const uint8_t *buf, size_t len, char *err,
    size_t errsz)
{
	memset(h, 0, sizeof(*h));
	if (len < TT_HELLO_LEN)
		return tt_errf(err, errsz, "hello cut at %zu of %d bytes", len,
		    TT_HELLO_LEN);
	h->node = get32(buf);
	h->card = buf[4];
	h->port = buf[5];
	h->reserved = get16(buf + 6);
	if (h->card > 1)
		return tt_errf(err, errsz, "hello from card %u (0 or 1)",
		    h->card);
	if (h->port >= TT_MAX_EXT)
		return tt_errf(err, errsz, "hello from port %u, not an "
		    "external port", h->port);
	return 0;
}

_Static_assert(TT_CREDIT_MAX_VCS == TT_MAX_VCS, "a credit frame covers "
    "every VC a port may have");

size_t
tt_credit_encode(const tt_credit *c, uint8_t *out, size_t outsz)
{
	size_t len = TT_CREDIT_HLEN + (size_t)c->nvcs * TT_CREDIT_VC_LEN;
	uint8_t *p;
	int v;

	if (c->nvcs < 1 || c->nvcs > TT_CREDIT_MAX_VCS || outsz < len)
		return 0;
	put16(out, c->epoch);
	put16(out + 2, c->peer_epoch);
	out[4] = c->nvcs;
	/* the least most receivers have goes as 0, which ttd before the
	 * field takes */
	put16(out + 5, c->least == TT_CREDIT_MIN_BYTES ? 0 : c->least);
	out[7] = 0;
	for (v = 0, p = out + TT_CREDIT_HLEN; v < c->nvcs; v++,
	    p += TT_CREDIT_VC_LEN) {
		put32(p, c->vc[v].sent);
		put32(p + 4, c->vc[v].limit);
		put32(p + 8, c->vc[v].buffer);
	}
	return len;
}

int
tt_credit_decode(tt_credit *c, const uint8_t *buf, size_t len, char *err,
    size_t errsz)
{
	const uint8_t *p;
	size_t want;
	int v;

	memset(c, 0, sizeof(*c));
	if (len < TT_CREDIT_HLEN)
		return tt_errf(err, errsz, "credit body cut at %zu of %d "
		    "bytes", len, TT_CREDIT_HLEN);
	c->epoch = get16(buf);
	c->peer_epoch = get16(buf + 2);
	c->nvcs = buf[4];
	if (c->epoch == 0)
		return tt_errf(err, errsz, "credit frame with epoch 0");
	if (c->nvcs < 1 || c->nvcs > TT_CREDIT_MAX_VCS)
		return tt_errf(err, errsz, "credit frame for %u VCs (1 to %d)",
		    c->nvcs, TT_CREDIT_MAX_VCS);
	c->least = get16(buf + 5);
	if (c->least == 0)
		c->least = TT_CREDIT_MIN_BYTES;
	else if (c->least < TT_CREDIT_MIN_BYTES)
		return tt_errf(err, errsz, "credit frame with least cost %u "
		    "(0 or %d to 65535)", c->least, TT_CREDIT_MIN_BYTES);
	if (buf[7] != 0)
		return tt_errf(err, errsz, "credit frame with reserved byte "
		    "%02x (sent as 0)", buf[7]);
	want = TT_CREDIT_HLEN + (size_t)c->nvcs * TT_CREDIT_VC_LEN;
	if (len < want)
		return tt_errf(err, errsz, "credit body cut at %zu of %zu "
		    "bytes (%u VCs)", len, want, c->nvcs);
	for (v = 0, p = buf + TT_CREDIT_HLEN; v < c->nvcs; v++,
	    p += TT_CREDIT_VC_LEN) {
		c->vc[v].sent = get32(p);
		c->vc[v].limit = get32(p + 4);
		c->vc[v].buffer = get32(p + 8);
	}
	return 0;
}

void
tt_pe_mac(uint32_t pe, uint8_t mac[6])
{
	mac[0] = 0x02;
	mac[1] = 0x74;
	mac[2] = 0x74;
	mac[3] = (uint8_t)(pe >> 16);
	mac[4] = (uint8_t)(pe >> 8);
	mac[5] = (uint8_t)pe;
}

int64_t
tt_mac_pe(const uint8_t mac[6])
{
	if (mac[0] != 0x02 || mac[1] != 0x74 || mac[2] != 0x74)
		return -1;
	return (int64_t)mac[3] << 16 | (int64_t)mac[4] << 8 | mac[5];
}
