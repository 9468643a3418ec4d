/*
 * tbflows: what the PE traces of an application run hold, frame by frame.
 *
 *   tbflows frames TRACE...     one line per data record of the traces:
 *       "FILE T_NS SRC DST SEQ D KIND BYTES PAYLOAD FROM TO TCPSEQ"
 *     FILE      the trace's index in the argument list, from 0
 *     D         1 for the delivery copy ttd records at the destination
 *               (TT_FRAME_F_DELIVERED), 0 for the send at the TAP read
 *     KIND      what the carried frame is: tcp (a TCP segment carrying
 *               data), ack (a TCP segment with ACK alone and no data),
 *               syn, fin, rst (TCP segments with that flag and no data),
 *               udp, icmp, ip (another IPv4 protocol), arp, ipv6, other,
 *               cut (the capture kept too little of it to tell)
 *     BYTES     the carried frame's length on the wire (what replay counts)
 *     PAYLOAD   TCP data bytes (from the IP and TCP header lengths), else 0
 *     FROM TO   IPv4 address:port (port 0 for other protocols), or "-"
 *     TCPSEQ    the TCP sequence number (a segment sent again carries
 *               the same one: a retransmission), or "-"
 *   tbflows snap BYTES IN OUT   copy trace IN to OUT keeping at most BYTES
 *                               of each record (its wire length unchanged):
 *                               header-only traces, as the sample traces are
 *
 * Hello frames are skipped.  The carried frame is read with explicit,
 * length-checked byte offsets (Ethernet II, IPv4, TCP), never by casting a
 * struct over the buffer.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "twintorus/frame.h"
#include "twintorus/trace.h"

#define ETH_HLEN	14
#define ETHERTYPE_IPV4	0x0800
#define ETHERTYPE_ARP	0x0806
#define ETHERTYPE_IPV6	0x86DD
#define TCP_FIN		0x01
#define TCP_SYN		0x02
#define TCP_RST		0x04

struct inner {
	const char *kind;
	uint32_t payload;
	char from[32], to[32], tcpseq[16];
};

static unsigned
be16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

static void
ip_port(char *buf, size_t bufsz, const uint8_t *a, unsigned port)
{
	snprintf(buf, bufsz, "%u.%u.%u.%u:%u", a[0], a[1], a[2], a[3], port);
}

/* The TCP segment at t (tlen captured bytes) of an IPv4 packet whose IP
 * payload is iplen bytes long. */
static void
inner_tcp(struct inner *in, const uint8_t *ip, const uint8_t *t, size_t tlen,
    unsigned iplen)
{
	unsigned doff, flags;

	if (tlen < 20) {
		in->kind = "cut";
		return;
	}
	doff = (t[12] >> 4) * 4u;
	flags = t[13];
	in->payload = iplen > doff ? iplen - doff : 0;
	ip_port(in->from, sizeof(in->from), ip + 12, be16(t));
	ip_port(in->to, sizeof(in->to), ip + 16, be16(t + 2));
	snprintf(in->tcpseq, sizeof(in->tcpseq), "%" PRIu32, be32(t + 4));
	if (in->payload > 0)
		in->kind = "tcp";
	else if (flags & TCP_SYN)
		in->kind = "syn";
	else if (flags & TCP_FIN)
		in->kind = "fin";
	else if (flags & TCP_RST)
		in->kind = "rst";
	else
		in->kind = "ack";
}

static void
inner_decode(struct inner *in, const uint8_t *p, size_t len)
{
	unsigned type, ihl, tot;

	memset(in, 0, sizeof(*in));
	strcpy(in->from, "-");
	strcpy(in->to, "-");
	strcpy(in->tcpseq, "-");
	if (len < ETH_HLEN) {
		in->kind = "cut";
		return;
	}
	type = be16(p + 12);
	p += ETH_HLEN;
	len -= ETH_HLEN;
	if (type == ETHERTYPE_ARP) {
		in->kind = "arp";
		return;
	}
	if (type == ETHERTYPE_IPV6) {
		in->kind = "ipv6";
		return;
	}
	if (type != ETHERTYPE_IPV4) {
		in->kind = "other";
		return;
	}
	if (len < 20 || (ihl = (p[0] & 0x0f) * 4u) < 20 || len < ihl) {
		in->kind = "cut";
		return;
	}
	tot = be16(p + 2);
	if (p[9] == 6) {
		inner_tcp(in, p, p + ihl, len - ihl, tot > ihl ? tot - ihl : 0);
		return;
	}
	ip_port(in->from, sizeof(in->from), p + 12, 0);
	ip_port(in->to, sizeof(in->to), p + 16, 0);
	in->kind = p[9] == 17 ? "udp" : p[9] == 1 ? "icmp" : "ip";
}

/* Print the data records of one trace; 0, or 2 on a damaged file. */
static int
frames_one(const char *path, int index)
{
	tt_trace_reader *r;
	tt_trace_rec rec;
	tt_frame f;
	struct inner in;
	char err[256];
	size_t h;
	int rc;

	if (tt_trace_open(&r, path, err, sizeof(err)) != 0) {
		fprintf(stderr, "tbflows: %s\n", err);
		return 2;
	}
	while ((rc = tt_trace_read(r, &rec, err, sizeof(err))) == 1) {
		if (tt_frame_decode(&f, rec.data, rec.caplen, err,
		    sizeof(err)) != 0) {
			fprintf(stderr, "tbflows: %s: record %" PRIu64 ": not a "
			    "torus frame: %s\n", path, rec.recno, err);
			tt_trace_close_reader(r);
			return 2;
		}
		if (f.type != TT_FRAME_DATA)
			continue;
		h = tt_frame_hlen(&f);
		inner_decode(&in, f.payload, f.payload_len);
		printf("%d %" PRIu64 " %" PRIu32 " %" PRIu32 " %" PRIu32
		    " %d %s %" PRIu32 " %" PRIu32 " %s %s %s\n", index, rec.t_ns,
		    f.src, f.dst, f.seq, (f.flags & TT_FRAME_F_DELIVERED) != 0,
		    in.kind, rec.wirelen > h ? (uint32_t)(rec.wirelen - h) : 0,
		    in.payload, in.from, in.to, in.tcpseq);
	}
	if (rc == 0 && tt_trace_truncated(r) != 0) {
		snprintf(err, sizeof(err), "%s: record %" PRIu64 " is cut off "
		    "by the end of the file", path, tt_trace_truncated(r));
		rc = -1;
	}
	if (rc < 0)
		fprintf(stderr, "tbflows: %s\n", err);
	tt_trace_close_reader(r);
	return rc < 0 ? 2 : 0;
}

/* Copy in to out (written whole or not at all), each record cut to snap. */
static int
cmd_snap(const char *snaparg, const char *inpath, const char *outpath)
{
	tt_trace_reader *r;
	tt_trace_writer *w;
	tt_trace_rec rec;
	char err[256], *end;
	long snap = strtol(snaparg, &end, 10);
	int rc;

	if (*end != '\0' || snap < 60 || snap > 65535) {
		fprintf(stderr, "tbflows: snap %s: give a byte count from 60 "
		    "to 65535\n", snaparg);
		return 64;
	}
	if (tt_trace_open(&r, inpath, err, sizeof(err)) != 0) {
		fprintf(stderr, "tbflows: %s\n", err);
		return 2;
	}
	if (tt_trace_create(&w, outpath, TT_TRACE_ATOMIC, err,
	    sizeof(err)) != 0) {
		fprintf(stderr, "tbflows: %s\n", err);
		tt_trace_close_reader(r);
		return 1;
	}
	while ((rc = tt_trace_read(r, &rec, err, sizeof(err))) == 1)
		if (tt_trace_write(w, rec.t_ns, rec.data, rec.caplen <
		    (uint32_t)snap ? rec.caplen : (uint32_t)snap,
		    rec.wirelen) != 0) {
			snprintf(err, sizeof(err), "%s: write failed", outpath);
			rc = -1;
			break;
		}
	if (rc == 0 && tt_trace_truncated(r) != 0) {
		snprintf(err, sizeof(err), "%s: record %" PRIu64 " is cut off "
		    "by the end of the file", inpath, tt_trace_truncated(r));
		rc = -1;
	}
	tt_trace_close_reader(r);
	if (rc < 0) {
		fprintf(stderr, "tbflows: %s\n", err);
		tt_trace_discard(w);
		return 2;
	}
	if (tt_trace_close(w, err, sizeof(err)) != 0) {
		fprintf(stderr, "tbflows: %s\n", err);
		return 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	int i, rc = 0;

	if (argc >= 3 && strcmp(argv[1], "frames") == 0) {
		for (i = 2; i < argc && rc == 0; i++)
			rc = frames_one(argv[i], i - 2);
		return rc;
	}
	if (argc == 5 && strcmp(argv[1], "snap") == 0)
		return cmd_snap(argv[2], argv[3], argv[4]);
	fprintf(stderr, "usage: tbflows frames TRACE..., "
	    "tbflows snap BYTES IN OUT\n");
	return 64;
}
