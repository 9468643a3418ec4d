/*
 * fwdprobe: the traffic source, sink and latency probe of
 * bench/forward-speed.sh.
 *
 *   fwdprobe flood NS IF DMAC SPEC SECONDS LEN [credits:NODE:CARD:PORT]
 *       send SPEC frames of LEN bytes out of IF in network namespace NS,
 *       as fast as sendmmsg() goes, for SECONDS; print the number sent.
 *       With "credits" the sender is a lossless torus neighbour, card CARD
 *       of node NODE on its port PORT (a port id: X+ 0, X- 1, ...): it
 *       says so in hellos (ttd takes credit frames only from the
 *       neighbour its hellos verified), sends on the frame's VC only what
 *       the node's credit frames grant (include/twintorus/frame.h), and
 *       tells the node what it has sent
 *   fwdprobe csink NS IF SECONDS NODE:CARD:PORT
 *       the node's downstream neighbour, card CARD of node NODE on port
 *       PORT (its hellos say so): count the torus data frames that arrive
 *       on IF for SECONDS and answer every credit frame with the most
 *       credit a neighbour may grant (TT_CREDIT_BYTES_MAX past what the
 *       node has sent: never full at these rates); print the count
 *   fwdprobe latency TXNS TXIF RXNS RXIF DMAC SPEC COUNT
 *       send COUNT frames one at a time out of TXIF (in TXNS) and wait for
 *       each on RXIF (in RXNS); print min, median, p99 and mean one-way
 *       latency in microseconds.  Both sockets live in this one process,
 *       so both ends read the same clock.
 *
 * SPEC is "udp" (IPv4/UDP 10.90.1.2 -> 10.90.2.2, what a kernel router
 * forwards), "udp2" (the same to 10.90.3.2) or "torus:SRC:DST:VC:HOPS" (a
 * torus data frame, what ttd forwards, built with tt_frame_encode()).
 * Every frame is LEN bytes on the wire (without FCS; 128 for the latency
 * probe), whatever it carries, so that every forwarder moves frames of the
 * same size.  The payload holds a magic word and a sequence number the
 * latency probe looks for.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <inttypes.h>
#include <net/if.h>
#include <linux/if_packet.h>
#include <linux/if_ether.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "twintorus/config.h"
#include "twintorus/frame.h"

#define PROBE_LEN   128         /* the latency probe's frames */
#define FRAME_MAX   9000
#define BATCH       64
#define SINK_GRANT_NS 100000	/* a sink's credit frames while frames come */
#define UNBOUNDED   TT_CREDIT_BYTES_MAX  /* the sink's credit: the most a
                                            buffer may be */
#define HELLO_NS    100000000u  /* a hello at least this often */
#define PROBE_MAGIC 0x74746670u   /* "ttfp" */

struct spec {
	int torus;
	uint8_t ip_dst;             /* udp: 10.90.<ip_dst>.2 */
	uint32_t src, dst, vc, hops;
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
parse_mac(const char *s, uint8_t mac[6])
{
	unsigned m[6];
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4],
	    &m[5]) != 6)
		return -1;
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)m[i];
	return 0;
}

static int
parse_spec(const char *s, struct spec *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->ip_dst = 2;
	if (strcmp(s, "udp") == 0)
		return 0;
	if (strcmp(s, "udp2") == 0) {
		sp->ip_dst = 3;
		return 0;
	}
	sp->torus = 1;
	if (sscanf(s, "torus:%" SCNu32 ":%" SCNu32 ":%" SCNu32 ":%" SCNu32,
	    &sp->src, &sp->dst, &sp->vc, &sp->hops) != 4 || sp->vc >= 32 ||
	    sp->hops > 255)
		return -1;
	return 0;
}

static uint16_t
ip_checksum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

/*
 * Build one frame; *mark is set to the offset of the probe's magic and
 * sequence (8 bytes) inside it.
 */
static size_t
build_frame(uint8_t *buf, size_t len, const struct spec *sp,
    const uint8_t dmac[6], const uint8_t smac[6], size_t *mark)
{
	if (len < 64 || len > FRAME_MAX)
		return 0;
	memset(buf, 0, len);
	if (sp->torus) {
		uint8_t inner[FRAME_MAX];
		tt_frame f;
		size_t n;

		memset(&f, 0, sizeof(f));
		memcpy(f.dst_mac, dmac, 6);
		memcpy(f.src_mac, smac, 6);
		f.ethertype = TT_ETHERTYPE;
		f.version = TT_FRAME_VERSION;
		f.type = TT_FRAME_DATA;
		f.vc = (uint8_t)sp->vc;
		f.hops = (uint8_t)sp->hops;
		f.dst = sp->dst;
		f.src = sp->src;
		/* the carried frame: an Ethernet header and the probe mark */
		memset(inner, 0, sizeof(inner));
		f.payload = inner;
		f.payload_len = len - TT_ETH_HLEN - TT_FRAME_HLEN;
		n = tt_frame_encode(&f, buf, len);
		if (n != len)
			return 0;
		*mark = TT_ETH_HLEN + TT_FRAME_HLEN + TT_ETH_HLEN;
		return n;
	}
	memcpy(buf, dmac, 6);
	memcpy(buf + 6, smac, 6);
	buf[12] = 0x08; buf[13] = 0x00;
	{
		uint8_t *ip = buf + 14, *udp = ip + 20;
		size_t iplen = len - 14;

		ip[0] = 0x45;
		ip[2] = (uint8_t)(iplen >> 8); ip[3] = (uint8_t)iplen;
		ip[8] = 64;             /* TTL */
		ip[9] = 17;             /* UDP */
		ip[12] = 10; ip[13] = 90; ip[14] = 1; ip[15] = 2;
		ip[16] = 10; ip[17] = 90; ip[18] = sp->ip_dst; ip[19] = 2;
		{
			uint16_t c = ip_checksum(ip, 20);

			ip[10] = (uint8_t)(c >> 8); ip[11] = (uint8_t)c;
		}
		udp[0] = 0x9c; udp[1] = 0x40;    /* 40000 -> 40001 */
		udp[2] = 0x9c; udp[3] = 0x41;
		udp[4] = (uint8_t)((iplen - 20) >> 8); udp[5] = (uint8_t)(iplen - 20);
		*mark = 14 + 20 + 8;
	}
	return len;
}

/* A packet socket on IF inside namespace NS (the socket stays there). */
static int
open_in_ns(const char *ns, const char *ifname, uint8_t mac[6])
{
	char path[256];
	struct sockaddr_ll sll;
	struct ifreq ifr;
	int self, nsfd, fd;

	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (self < 0 || nsfd < 0 || setns(nsfd, CLONE_NEWNET) != 0) {
		fprintf(stderr, "fwdprobe: namespace %s: %s\n", ns, strerror(errno));
		exit(1);
	}
	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (fd < 0) {
		fprintf(stderr, "fwdprobe: packet socket: %s\n", strerror(errno));
		exit(1);
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) != 0) {
		fprintf(stderr, "fwdprobe: %s in %s: %s\n", ifname, ns,
		    strerror(errno));
		exit(1);
	}
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = (int)if_nametoindex(ifname);
	/* our own frames are not news to us */
	(void)setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &(int){1},
	    sizeof(int));
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) != 0) {
		fprintf(stderr, "fwdprobe: bind %s: %s\n", ifname, strerror(errno));
		exit(1);
	}
	if (setns(self, CLONE_NEWNET) != 0) {
		fprintf(stderr, "fwdprobe: back to own namespace: %s\n",
		    strerror(errno));
		exit(1);
	}
	close(self);
	close(nsfd);
	return fd;
}

/*
 * The credit state of a lossless neighbour (the sender's half of ttd's
 * credit.c): our epoch, the node's, what we have sent per VC and what
 * the node lets us send.
 */
struct credit {
	uint16_t epoch, node_epoch;
	int nvcs;                   /* the node's, from its credit frames */
	int granted;                /* its limits count in our epoch */
	uint32_t least;             /* the least a frame costs at the node */
	uint32_t sent[TT_CREDIT_MAX_VCS], limit[TT_CREDIT_MAX_VCS];
	uint32_t seq;
	uint8_t mac[6];
	uint64_t frames;            /* credit frames heard */
	uint32_t node, card, port;  /* who we are in the torus */
	uint64_t hello_ns;          /* the last hello sent */
	/* a sink: the node's count of bytes sent per VC in its last credit
	 * frame, and what has come since (in the same count) */
	uint32_t base[TT_CREDIT_MAX_VCS], rcvd[TT_CREDIT_MAX_VCS];
	int have_base;
};

/* "NODE:CARD:PORT" into c; 0 or -1. */
static int
credit_as(struct credit *c, const char *s)
{
	char end;

	if (sscanf(s, "%" SCNu32 ":%" SCNu32 ":%" SCNu32 "%c", &c->node,
	    &c->card, &c->port, &end) != 3 || c->card > 1 ||
	    c->port >= 2 * 32)
		return -1;
	return 0;
}

/* Our hello, at most every HELLO_NS: the node takes our credit frames
 * only once it has heard it from our MAC address. */
static void
hello_send(int fd, struct credit *c)
{
	uint8_t body[TT_HELLO_LEN], buf[64];
	tt_hello h;
	tt_frame f;
	size_t len;

	if (c->hello_ns != 0 && now_ns() - c->hello_ns < HELLO_NS)
		return;
	memset(&h, 0, sizeof(h));
	h.node = c->node;
	h.card = (uint8_t)c->card;
	h.port = (uint8_t)c->port;
	tt_hello_encode(&h, body);
	memset(&f, 0, sizeof(f));
	memset(f.dst_mac, 0xff, 6);
	memcpy(f.src_mac, c->mac, 6);
	f.version = TT_FRAME_VERSION;
	f.type = TT_FRAME_HELLO;
	f.dst = TT_PE_BROADCAST;
	f.src = c->node * 2 + c->card;
	f.payload = body;
	f.payload_len = sizeof(body);
	len = tt_frame_encode(&f, buf, sizeof(buf));
	(void)send(fd, buf, len, 0);
	c->hello_ns = now_ns();
}

/* A credit frame from us: what we sent, and (sink) unbounded room. */
static void
credit_send(int fd, struct credit *c, const uint32_t *node_sent)
{
	uint8_t body[TT_CREDIT_HLEN + TT_CREDIT_MAX_VCS * TT_CREDIT_VC_LEN];
	uint8_t buf[512];
	tt_credit cr;
	tt_frame f;
	size_t len;
	int v;

	if (c->nvcs == 0)
		return;		/* nothing heard from the node yet */
	hello_send(fd, c);
	memset(&cr, 0, sizeof(cr));
	cr.epoch = c->epoch;
	cr.peer_epoch = c->node_epoch;
	cr.nvcs = (uint8_t)c->nvcs;
	for (v = 0; v < c->nvcs; v++) {
		cr.vc[v].sent = c->sent[v];
		cr.vc[v].limit = (node_sent ? node_sent[v] : 0) + UNBOUNDED;
		cr.vc[v].buffer = UNBOUNDED;
	}
	memset(&f, 0, sizeof(f));
	memset(f.dst_mac, 0xff, 6);
	memcpy(f.src_mac, c->mac, 6);
	f.version = TT_FRAME_VERSION;
	f.type = TT_FRAME_CREDIT;
	f.dst = TT_PE_BROADCAST;
	f.src = c->node * 2 + c->card;
	f.seq = ++c->seq;
	f.payload = body;
	f.payload_len = tt_credit_encode(&cr, body, sizeof(body));
	len = tt_frame_encode(&f, buf, sizeof(buf));
	(void)send(fd, buf, len, 0);
}

/*
 * Read what waits on fd: the node's credit frames update c (a sink, with
 * answer set, answers each); data frames are counted.  Returns how many
 * data frames came.
 */
static uint64_t
credit_poll(int fd, struct credit *c, int answer)
{
	uint8_t buf[FRAME_MAX + 64];
	uint64_t data = 0;
	tt_credit cr;
	tt_frame f;
	char err[128];
	ssize_t n;
	int v;

	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		if (tt_frame_decode(&f, buf, (size_t)n, err, sizeof(err)) != 0)
			continue;
		if (f.type == TT_FRAME_DATA) {
			/* the node's count of it: headers and payload, the
			 * tag left out, at least TT_CREDIT_MIN_BYTES */
			size_t cost = TT_ETH_HLEN + TT_FRAME_HLEN +
			    f.payload_len;

			if (f.vc < TT_CREDIT_MAX_VCS)
				c->rcvd[f.vc] += (uint32_t)(cost <
				    TT_CREDIT_MIN_BYTES ? TT_CREDIT_MIN_BYTES :
				    cost);
			data++;
			continue;
		}
		if (f.type != TT_FRAME_CREDIT || tt_credit_decode(&cr,
		    f.payload, f.payload_len, err, sizeof(err)) != 0)
			continue;
		c->frames++;
		c->nvcs = cr.nvcs;
		if (cr.epoch != c->node_epoch) {
			c->node_epoch = cr.epoch;
			credit_send(fd, c, NULL);	/* our epoch, at once */
		}
		c->granted = cr.peer_epoch == c->epoch;
		for (v = 0; c->granted && v < cr.nvcs; v++)
			c->limit[v] = cr.vc[v].limit;
		if (c->granted)
			c->least = cr.least;
		if (answer) {
			/* the frames it sent before this one came before it:
			 * what comes from now on is counted past its count */
			for (v = 0; v < cr.nvcs; v++) {
				c->base[v] = cr.vc[v].sent;
				c->rcvd[v] = 0;
			}
			c->have_base = 1;
			credit_send(fd, c, c->base);
		}
	}
	return data;
}

static void
credit_init(struct credit *c, const uint8_t mac[6])
{
	uint32_t node = c->node, card = c->card, port = c->port;

	memset(c, 0, sizeof(*c));
	c->epoch = (uint16_t)(getpid() | 1);
	c->least = TT_CREDIT_MIN_BYTES;
	memcpy(c->mac, mac, 6);
	c->node = node;		/* credit_as() set them */
	c->card = card;
	c->port = port;
}

/* Frames of cost bytes the node lets us send on vc now (at most BATCH). */
static int
credit_allowed(const struct credit *c, uint32_t vc, uint32_t cost)
{
	int32_t d;

	if (!c->granted || vc >= (uint32_t)c->nvcs)
		return 0;
	d = (int32_t)(c->limit[vc] - c->sent[vc]);
	return d <= 0 ? 0 : d / (int32_t)cost > BATCH ? BATCH :
	    d / (int32_t)cost;
}

static int
cmd_flood(char **av, int ac)
{
	static uint8_t buf[FRAME_MAX];
	uint8_t dmac[6], smac[6];
	struct mmsghdr msgs[BATCH];
	struct iovec iov;
	struct spec sp;
	struct credit c;
	size_t mark, len;
	uint64_t sent = 0, end, last_tell = 0;
	double secs = atof(av[4]);
	int fd, i, want, use_credits = ac == 7 && strncmp(av[6], "credits:",
	    8) == 0;
	uint32_t cost;

	memset(&c, 0, sizeof(c));
	if (parse_mac(av[2], dmac) != 0 || parse_spec(av[3], &sp) != 0 ||
	    secs <= 0 || (use_credits && !sp.torus) ||
	    (ac == 7 && (!use_credits || credit_as(&c, av[6] + 8) != 0))) {
		fprintf(stderr, "fwdprobe flood: bad MAC, SPEC, SECONDS or "
		    "credits:NODE:CARD:PORT\n");
		return 64;
	}
	fd = open_in_ns(av[0], av[1], smac);
	len = build_frame(buf, (size_t)atol(av[5]), &sp, dmac, smac, &mark);
	if (len == 0) {
		fprintf(stderr, "fwdprobe flood: LEN %s: 64 to %d bytes\n",
		    av[5], FRAME_MAX);
		return 64;
	}
	put32(buf + mark, PROBE_MAGIC ^ 1);   /* not a latency probe */
	iov.iov_base = buf;
	iov.iov_len = len;
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < BATCH; i++) {
		msgs[i].msg_hdr.msg_iov = &iov;
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	credit_init(&c, smac);
	if (use_credits)
		hello_send(fd, &c);
	cost = (uint32_t)len;
	end = now_ns() + (uint64_t)(secs * 1e9);
	while (now_ns() < end) {
		int n;

		want = BATCH;
		if (use_credits) {
			(void)credit_poll(fd, &c, 0);
			/* what the node counts a frame for: its least, as
			 * its credit frames say (twintorus/frame.h) */
			cost = len < c.least ? c.least : (uint32_t)len;
			/* our count to the node now and then: it takes it as
			 * its own count of what we sent */
			if (now_ns() - last_tell > 1000000) {
				credit_send(fd, &c, NULL);
				last_tell = now_ns();
			}
			want = credit_allowed(&c, sp.vc, cost);
			if (want == 0) {
				struct pollfd pfd = {fd, POLLIN, 0};

				(void)poll(&pfd, 1, 1);
				continue;
			}
		}
		n = sendmmsg(fd, msgs, (unsigned)want, 0);
		if (n < 0) {
			if (errno == ENOBUFS || errno == EAGAIN || errno == EINTR)
				continue;
			fprintf(stderr, "fwdprobe: send: %s\n", strerror(errno));
			return 1;
		}
		sent += (uint64_t)n;
		c.sent[sp.vc < TT_CREDIT_MAX_VCS ? sp.vc : 0] += (uint32_t)n *
		    cost;
	}
	printf("%" PRIu64 "\n", sent);
	return 0;
}

static int
cmd_csink(char **av)
{
	uint8_t mac[6];
	struct credit c;
	uint64_t data = 0, end, last = 0;
	double secs = atof(av[2]);
	int fd;

	memset(&c, 0, sizeof(c));
	if (secs <= 0 || credit_as(&c, av[3]) != 0) {
		fprintf(stderr, "fwdprobe csink: bad SECONDS or NODE:CARD:PORT\n");
		return 64;
	}
	fd = open_in_ns(av[0], av[1], mac);
	/* credit frames must not be lost among the data frames */
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &(int){32 << 20},
	    sizeof(int));
	credit_init(&c, mac);
	hello_send(fd, &c);
	end = now_ns() + (uint64_t)(secs * 1e9);
	while (now_ns() < end) {
		struct pollfd pfd = {fd, POLLIN, 0};
		uint64_t got;

		(void)poll(&pfd, 1, 10);
		got = credit_poll(fd, &c, 1);
		data += got;
		/* as a neighbour that frees what it receives at once: room
		 * past what came, every SINK_GRANT_NS while frames come (not
		 * only in answer to the node's credit frames, which it sends
		 * every 100 ms on a link it receives nothing on) */
		if (got > 0 && c.have_base && now_ns() - last >=
		    SINK_GRANT_NS) {
			uint32_t ns[TT_CREDIT_MAX_VCS];
			int v;

			for (v = 0; v < c.nvcs; v++)
				ns[v] = c.base[v] + c.rcvd[v];
			credit_send(fd, &c, ns);
			last = now_ns();
		}
	}
	printf("%" PRIu64 "\n", data);
	return 0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
cmd_latency(char **av)
{
	uint8_t dmac[6], smac[6], rmac[6], buf[PROBE_LEN], rbuf[2048];
	struct spec sp;
	size_t mark, len;
	uint64_t *lat, sum = 0;
	long count = atol(av[6]), got = 0, i;
	int tx, rx;

	if (parse_mac(av[4], dmac) != 0 || parse_spec(av[5], &sp) != 0 ||
	    count <= 0) {
		fprintf(stderr, "fwdprobe latency: bad MAC, SPEC or COUNT\n");
		return 64;
	}
	tx = open_in_ns(av[0], av[1], smac);
	rx = open_in_ns(av[2], av[3], rmac);
	len = build_frame(buf, sizeof(buf), &sp, dmac, smac, &mark);
	if (len == 0)
		return 1;
	lat = calloc((size_t)count, sizeof(*lat));
	if (lat == NULL)
		return 1;
	for (i = 0; i < count; i++) {
		uint64_t t0, deadline;

		put32(buf + mark, PROBE_MAGIC);
		put32(buf + mark + 4, (uint32_t)i);
		t0 = now_ns();
		if (send(tx, buf, len, 0) != (ssize_t)len) {
			fprintf(stderr, "fwdprobe: send: %s\n", strerror(errno));
			return 1;
		}
		deadline = t0 + 200000000u;   /* 200 ms: then it was lost */
		/* spin on the receive side: a poll() wake-up would add the
		 * scheduler's latency to every sample */
		while (now_ns() < deadline) {
			ssize_t n = recv(rx, rbuf, sizeof(rbuf), MSG_DONTWAIT);

			if (n >= (ssize_t)(mark + 8) &&
			    get32(rbuf + mark) == PROBE_MAGIC &&
			    get32(rbuf + mark + 4) == (uint32_t)i) {
				lat[got++] = now_ns() - t0;
				break;
			}
		}
		usleep(2000);
	}
	if (got == 0) {
		fprintf(stderr, "fwdprobe: no probe came through\n");
		return 1;
	}
	qsort(lat, (size_t)got, sizeof(*lat), cmp_u64);
	for (i = 0; i < got; i++)
		sum += lat[i];
	printf("received %ld of %ld; one-way us: min %.1f median %.1f p99 %.1f "
	    "mean %.1f\n", got, count, lat[0] / 1e3, lat[got / 2] / 1e3,
	    lat[(got * 99) / 100] / 1e3, (double)sum / (double)got / 1e3);
	free(lat);
	return 0;
}

int
main(int argc, char **argv)
{
	if ((argc == 8 || argc == 9) && strcmp(argv[1], "flood") == 0)
		return cmd_flood(argv + 2, argc - 2);
	if (argc == 6 && strcmp(argv[1], "csink") == 0)
		return cmd_csink(argv + 2);
	if (argc == 9 && strcmp(argv[1], "latency") == 0)
		return cmd_latency(argv + 2);
	fprintf(stderr, "usage: fwdprobe flood NS IF DMAC SPEC SECONDS LEN "
	    "[credits:NODE:CARD:PORT]\n"
	    "       fwdprobe csink NS IF SECONDS NODE:CARD:PORT\n"
	    "       fwdprobe latency TXNS TXIF RXNS RXIF DMAC SPEC COUNT\n");
	return 64;
}
