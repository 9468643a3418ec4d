/*
 * tbflood: frames of every kind ttd may meet, sent out of one interface
 * (a packet socket), for the daemon's tests and bench/soak.sh.
 *
 *   tbflood IFACE KIND COUNT [RATE]
 *
 * sends COUNT frames of KIND out of IFACE (in the caller's network
 * namespace), at most RATE frames a second (0 or absent: as fast as the
 * socket takes them), and prints "sent N".  KIND:
 *   data:SRC:DST:VC:HOPS:LEN   a torus data frame from PE SRC to PE DST,
 *                              LEN bytes on the wire (a PE's IPv4 frame
 *                              inside), built with tt_frame_encode()
 *   hello:NODE:CARD:PORT       a hello, as card CARD of NODE sends it on
 *                              port PORT (any values: spoofing is allowed)
 *   flap:NODE:CARD:PORT        hellos alternating between that sender and
 *                              the same with PORT + 1: a flapping cable
 *   other:LEN                  an IPv4 frame (another EtherType), LEN bytes
 *   bad:LEN                    the torus EtherType with a version this
 *                              build does not read, LEN bytes
 *   pe:SRC:DST:LEN             what PE SRC's TAP sends to PE DST: an IPv4
 *                              frame between their MACs, LEN bytes
 *   arp:SRC:DST                PE SRC asking for PE DST's address
 *                              (pes.subnet 10.88.0.0/16)
 *   credit:VICTIM:HOW          forged credit frames for the ttd port with
 *                              MAC address VICTIM, made from what IFACE
 *                              hears (below)
 * A LEN past the interface's MTU is refused by the kernel (EMSGSIZE): the
 * caller raises the MTU for frames meant to be too long for ttd.
 *
 * credit: IFACE must hear both ends of a link (a port on a bridge that
 * joins them).  tbflood listens until it has heard a credit frame from
 * the victim (its epoch, and the bytes it has sent per VC) and one from
 * the victim's neighbour (any other sender), then, before each frame it
 * sends, takes in what came meanwhile.  Each forged frame is the
 * neighbour's latest credit frame, numbered as its next one, granting the
 * victim a whole buffer past what it has sent on every VC (what overruns
 * the neighbour when its buffer is full), sent from IFACE's own MAC
 * address to the victim's, and changed as HOW says:
 *   raise      nothing more: only the MAC address says who sent it
 *   zero       every buffer 0, every limit 1 GiB ahead
 *   vc, hops   VC 1, hop count 1 in the torus header
 *   flags      the delivered flag set
 *   dst        addressed to another PE than the victim
 *   reserved   the body's reserved byte (its last header byte) set
 *   epoch      another epoch of the neighbour's
 *   peerepoch  naming another epoch of the victim's (a stream of these
 *              withdrew the victim's credits)
 *   seq        a sequence number 10^9 ahead
 *   replay     the neighbour's first frame heard, as it was (its MAC
 *              address too), sent again and again
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "twintorus/frame.h"

#define FRAME_MAX	65536
#define PE_SUBNET	0x0a580000u	/* 10.88.0.0 */

static uint8_t frame[2][FRAME_MAX];
static size_t frame_len[2];

static void
pe_mac(uint32_t pe, uint8_t mac[6])
{
	mac[0] = 0x02;
	mac[1] = 0x74;
	mac[2] = 0x74;
	mac[3] = (uint8_t)(pe >> 16);
	mac[4] = (uint8_t)(pe >> 8);
	mac[5] = (uint8_t)pe;
}

/* A PE's IPv4 frame of len bytes (at least 34) from src to dst. */
static size_t
pe_frame(uint8_t *buf, uint32_t src, uint32_t dst, size_t len)
{
	if (len < 34)
		len = 34;
	memset(buf, 0xab, len);
	pe_mac(dst, buf);
	pe_mac(src, buf + 6);
	buf[12] = 0x08;
	buf[13] = 0x00;
	return len;
}

static size_t
data_frame(uint8_t *buf, uint32_t src, uint32_t dst, uint32_t vc,
    uint32_t hops, size_t len)
{
	static uint8_t inner[FRAME_MAX];
	tt_frame f;
	size_t hl;

	memset(&f, 0, sizeof(f));
	memset(f.dst_mac, 0xff, 6);
	f.src_mac[0] = 0x02;
	f.version = TT_FRAME_VERSION;
	f.type = TT_FRAME_DATA;
	f.src = src;
	f.dst = dst;
	f.vc = (uint8_t)vc;
	f.hops = (uint8_t)hops;
	hl = tt_frame_hlen(&f);
	f.payload = inner;
	f.payload_len = pe_frame(inner, src, dst, len > hl + 34 ? len - hl :
	    34);
	return tt_frame_encode(&f, buf, FRAME_MAX);
}

static size_t
hello_frame(uint8_t *buf, uint32_t node, uint32_t card, uint32_t port)
{
	uint8_t body[TT_HELLO_LEN];
	tt_hello h;
	tt_frame f;

	memset(&h, 0, sizeof(h));
	h.node = node;
	h.card = (uint8_t)card;
	h.port = (uint8_t)port;
	tt_hello_encode(&h, body);
	/* a card or port out of range: encoded as given, byte by byte */
	body[4] = (uint8_t)card;
	body[5] = (uint8_t)port;
	memset(&f, 0, sizeof(f));
	memset(f.dst_mac, 0xff, 6);
	f.src_mac[0] = 0x02;
	f.version = TT_FRAME_VERSION;
	f.type = TT_FRAME_HELLO;
	f.dst = TT_PE_BROADCAST;
	f.payload = body;
	f.payload_len = sizeof(body);
	return tt_frame_encode(&f, buf, FRAME_MAX);
}

static size_t
plain_frame(uint8_t *buf, uint16_t ethertype, size_t len)
{
	if (len < 60)
		len = 60;
	memset(buf, 0x5a, len);
	memset(buf, 0xff, 6);
	memcpy(buf + 6, "\x02\x00\x00\x00\x00\x01", 6);
	buf[12] = (uint8_t)(ethertype >> 8);
	buf[13] = (uint8_t)ethertype;
	if (ethertype == TT_ETHERTYPE)
		buf[14] = 0x31;		/* version 3, data */
	return len;
}

static size_t
arp_frame(uint8_t *buf, uint32_t src, uint32_t dst)
{
	uint32_t spa = PE_SUBNET + src + 1, tpa = PE_SUBNET + dst + 1;

	memset(buf, 0, 60);
	memset(buf, 0xff, 6);
	pe_mac(src, buf + 6);
	buf[12] = 0x08;
	buf[13] = 0x06;
	memcpy(buf + 14, "\x00\x01\x08\x00\x06\x04\x00\x01", 8);
	pe_mac(src, buf + 22);
	spa = htonl(spa);
	tpa = htonl(tpa);
	memcpy(buf + 28, &spa, 4);
	memcpy(buf + 38, &tpa, 4);
	return 60;
}

/* ---- forged credit frames (credit:VICTIM:HOW) ---- */

enum credit_how { CR_RAISE, CR_ZERO, CR_VC, CR_HOPS, CR_FLAGS, CR_DST,
	CR_RESERVED, CR_EPOCH, CR_PEEREPOCH, CR_SEQ, CR_REPLAY, CR_N };
static const char *const credit_hows[CR_N] = {"raise", "zero", "vc",
	"hops", "flags", "dst", "reserved", "epoch", "peerepoch", "seq",
	"replay"};

static struct {
	int on;
	enum credit_how how;
	uint8_t victim[6], own[6];
	/* the victim's latest credit frame */
	int victim_heard;
	uint32_t victim_card;
	uint16_t victim_epoch;
	uint32_t victim_sent[TT_CREDIT_MAX_VCS];
	/* the neighbour's latest, and its first (replay) */
	int nb_heard;
	tt_frame nb;
	tt_credit nb_c;
	uint8_t first[FRAME_MAX];
	size_t first_len;
} cr;

static int
parse_mac(const char *s, uint8_t mac[6])
{
	unsigned m[6];
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4],
	    &m[5]) != 6)
		return -1;
	for (i = 0; i < 6; i++) {
		if (m[i] > 255)
			return -1;
		mac[i] = (uint8_t)m[i];
	}
	return 0;
}

/* "credit:02:aa:..:ff:HOW" into cr; 0 or -1. */
static int
credit_parse(const char *kind)
{
	const char *how;
	int i;

	if (strncmp(kind, "credit:", 7) != 0 || strlen(kind) < 7 + 17 + 2 ||
	    kind[7 + 17] != ':' || parse_mac(kind + 7, cr.victim) != 0)
		return -1;
	how = kind + 7 + 17 + 1;
	for (i = 0; i < CR_N; i++)
		if (strcmp(how, credit_hows[i]) == 0) {
			cr.on = 1;
			cr.how = (enum credit_how)i;
			return 0;
		}
	return -1;
}

/* Take in what the socket heard: the victim's credit frames and its
 * neighbour's. */
static void
credit_listen(int s)
{
	static uint8_t buf[FRAME_MAX];
	struct sockaddr_ll from;
	socklen_t fl;
	tt_credit c;
	tt_frame f;
	char err[128];
	ssize_t n;
	int v;

	for (;;) {
		fl = sizeof(from);
		n = recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT,
		    (struct sockaddr *)&from, &fl);
		if (n <= 0)
			return;
		if (from.sll_pkttype == PACKET_OUTGOING ||
		    tt_frame_decode(&f, buf, (size_t)n, err, sizeof(err)) != 0 ||
		    f.type != TT_FRAME_CREDIT || tt_credit_decode(&c, f.payload,
		    f.payload_len, err, sizeof(err)) != 0 ||
		    memcmp(f.src_mac, cr.own, 6) == 0)
			continue;
		if (memcmp(f.src_mac, cr.victim, 6) == 0) {
			cr.victim_heard = 1;
			cr.victim_card = f.src;
			cr.victim_epoch = c.epoch;
			for (v = 0; v < c.nvcs; v++)
				cr.victim_sent[v] = c.vc[v].sent;
			continue;
		}
		if (!cr.nb_heard) {
			memcpy(cr.first, buf, (size_t)n);
			cr.first_len = (size_t)n;
		}
		cr.nb_heard = 1;
		cr.nb = f;
		cr.nb.payload = NULL;
		cr.nb_c = c;
	}
}

/* The next forged frame into frame[0]; its length. */
static size_t
credit_forge(void)
{
	uint8_t body[TT_CREDIT_HLEN + TT_CREDIT_MAX_VCS * TT_CREDIT_VC_LEN];
	tt_frame f = cr.nb;
	tt_credit c = cr.nb_c;
	size_t len;
	int v;

	if (cr.how == CR_REPLAY) {
		memcpy(frame[0], cr.first, cr.first_len);
		memcpy(frame[0], cr.victim, 6);
		return cr.first_len;
	}
	memcpy(f.dst_mac, cr.victim, 6);
	memcpy(f.src_mac, cr.own, 6);
	f.seq = cr.nb.seq + 1;
	c.peer_epoch = cr.victim_epoch;
	for (v = 0; v < c.nvcs; v++)
		c.vc[v].limit = cr.victim_sent[v] + c.vc[v].buffer;
	switch (cr.how) {
	case CR_ZERO:
		for (v = 0; v < c.nvcs; v++) {
			c.vc[v].buffer = 0;
			c.vc[v].limit = cr.victim_sent[v] + (1u << 30);
		}
		break;
	case CR_VC:
		f.vc = 1;
		break;
	case CR_HOPS:
		f.hops = 1;
		break;
	case CR_FLAGS:
		f.flags = TT_FRAME_F_DELIVERED;
		break;
	case CR_DST:
		f.dst = cr.victim_card ^ 0x100;
		break;
	case CR_EPOCH:
		c.epoch ^= 0x5a5a;
		if (c.epoch == 0)
			c.epoch = 1;
		break;
	case CR_PEEREPOCH:
		c.peer_epoch ^= 0x5a5a;
		break;
	case CR_SEQ:
		f.seq = cr.nb.seq + 1000000000u;
		break;
	default:
		break;
	}
	f.payload = body;
	f.payload_len = tt_credit_encode(&c, body, sizeof(body));
	len = tt_frame_encode(&f, frame[0], FRAME_MAX);
	if (cr.how == CR_RESERVED && len > 0)
		frame[0][tt_frame_hlen(&f) + 7] = 0x80;  /* frame.h */
	return len;
}

/* Listen until both ends of the link were heard (5 s at most): 0 or -1. */
static int
credit_wait(int s, const char *ifname)
{
	struct ifreq ifr;
	int i;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(s, SIOCGIFHWADDR, &ifr) != 0) {
		fprintf(stderr, "tbflood: %s: its MAC address: %s\n", ifname,
		    strerror(errno));
		return -1;
	}
	memcpy(cr.own, ifr.ifr_hwaddr.sa_data, 6);
	for (i = 0; i < 500 && !(cr.victim_heard && cr.nb_heard); i++) {
		usleep(10000);
		credit_listen(s);
	}
	if (!(cr.victim_heard && cr.nb_heard)) {
		fprintf(stderr, "tbflood: %s: no credit frames heard from %s "
		    "%s in 5 s\n", ifname, cr.victim_heard ? "the victim's "
		    "neighbour" : "the victim", cr.victim_heard ? "" :
		    "(is it on this link?)");
		return -1;
	}
	return 0;
}

/* The one or two frames of kind (sent in turn); 0 or -1. */
static int
build(const char *kind)
{
	uint32_t a, b, c, d;
	size_t len;

	if (sscanf(kind, "data:%" SCNu32 ":%" SCNu32 ":%" SCNu32 ":%" SCNu32
	    ":%zu", &a, &b, &c, &d, &len) == 5)
		frame_len[0] = data_frame(frame[0], a, b, c, d, len);
	else if (sscanf(kind, "hello:%" SCNu32 ":%" SCNu32 ":%" SCNu32, &a,
	    &b, &c) == 3)
		frame_len[0] = hello_frame(frame[0], a, b, c);
	else if (sscanf(kind, "flap:%" SCNu32 ":%" SCNu32 ":%" SCNu32, &a,
	    &b, &c) == 3) {
		frame_len[0] = hello_frame(frame[0], a, b, c);
		frame_len[1] = hello_frame(frame[1], a, b, c + 1);
	} else if (sscanf(kind, "other:%zu", &len) == 1)
		frame_len[0] = plain_frame(frame[0], 0x0800, len);
	else if (sscanf(kind, "bad:%zu", &len) == 1)
		frame_len[0] = plain_frame(frame[0], TT_ETHERTYPE, len);
	else if (sscanf(kind, "pe:%" SCNu32 ":%" SCNu32 ":%zu", &a, &b,
	    &len) == 3)
		frame_len[0] = pe_frame(frame[0], a, b, len);
	else if (sscanf(kind, "arp:%" SCNu32 ":%" SCNu32, &a, &b) == 2)
		frame_len[0] = arp_frame(frame[0], a, b);
	else if (credit_parse(kind) == 0)
		return 0;		/* built from what is heard */
	else
		return -1;
	return frame_len[0] > 0 && frame_len[0] <= FRAME_MAX ? 0 : -1;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int
main(int argc, char **argv)
{
	struct sockaddr_ll sll;
	unsigned long count, rate = 0, i;
	uint64_t t0;
	int s, k;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: tbflood IFACE KIND COUNT [RATE]\n");
		return 64;
	}
	count = strtoul(argv[3], NULL, 10);
	if (argc == 5)
		rate = strtoul(argv[4], NULL, 10);
	if (build(argv[2]) < 0) {
		fprintf(stderr, "tbflood: %s: not a kind of frame (see the "
		    "source's head)\n", argv[2]);
		return 64;
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = (int)if_nametoindex(argv[1]);
	sll.sll_halen = 6;
	if (sll.sll_ifindex == 0) {
		fprintf(stderr, "tbflood: %s: no such interface\n", argv[1]);
		return 69;
	}
	/* credit: listens too, to every frame on the interface */
	s = socket(AF_PACKET, SOCK_RAW, cr.on ? htons(ETH_P_ALL) : 0);
	if (s < 0) {
		fprintf(stderr, "tbflood: packet socket: %s\n", strerror(errno));
		return 69;
	}
	if (cr.on) {
		struct sockaddr_ll b = sll;

		b.sll_protocol = htons(ETH_P_ALL);
		if (bind(s, (struct sockaddr *)&b, sizeof(b)) != 0) {
			fprintf(stderr, "tbflood: %s: bind: %s\n", argv[1],
			    strerror(errno));
			return 69;
		}
		if (credit_wait(s, argv[1]) < 0)
			return 1;
	}
	t0 = now_ns();
	for (i = 0; i < count; i++) {
		k = frame_len[1] > 0 ? (int)(i & 1) : 0;
		while (rate > 0 && now_ns() - t0 < i * 1000000000u / rate)
			usleep(100);
		if (cr.on) {
			credit_listen(s);
			frame_len[0] = credit_forge();
		}
		while (sendto(s, frame[k], frame_len[k], 0,
		    (struct sockaddr *)&sll, sizeof(sll)) < 0) {
			if (errno != ENOBUFS && errno != EAGAIN) {
				fprintf(stderr, "tbflood: %s: send: %s\n",
				    argv[1], strerror(errno));
				printf("sent %lu\n", i);
				return 1;
			}
			usleep(100);
		}
	}
	printf("sent %lu\n", count);
	close(s);
	return 0;
}
