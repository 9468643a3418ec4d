/*
 * make-frames: write tests/traces/frames.pcap, a handful of torus frames
 * for the Wireshark dissector's test (tests/cli/wireshark.sh), and print
 * on stdout what each record holds, as tshark should show it
 * (tests/traces/frames.expected).
 *
 *   make-frames FILE.pcap > frames.expected
 *
 * Sound frames go through tt_frame_encode(); malformed ones are sound
 * frames with header bytes overwritten from the layout in
 * twintorus/frame.h, or cut short on the wire.  The output is the same on
 * every run (fixed timestamps), so the committed files can be checked
 * against a fresh run.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <pcap/pcap.h>

#include "twintorus/frame.h"

/*
 * One record of the sample.  Zero is the sound value of every field, so
 * that a malformed record names only what is wrong with it.
 */
struct sample {
	const char *what;
	int tagged;
	uint16_t tci;
	unsigned bad_version;  /* if not 0, the version written instead of 1 */
	unsigned type, vc, hops, flags;   /* as written on the wire */
	uint32_t src, dst, seq;
	tt_hello hello;
	tt_credit credit;      /* credit: the body (nvcs 0: written as 0) */
	size_t body;           /* data: the carried frame's length on the wire;
	                          hello: bytes of the hello body sent (8) */
	int captured;          /* data: the carried frame is in the capture */
	int short_header;      /* only header_len torus header bytes are sent */
	size_t header_len;
	size_t snaplen;        /* if not 0, bytes captured (the capture's cut) */
	const char *problem;   /* words the dissector's expert info must hold */
};

static const struct sample samples[] = {
	{.what = "header-only, as ttsim trace synth records",
	    .src = 3, .dst = 17, .vc = 1, .hops = 2, .seq = 5, .body = 64},
	{.what = "carried ARP request captured",
	    .src = 17, .dst = 3, .vc = 0, .hops = 3, .seq = 6, .body = 60,
	    .captured = 1},
	{.what = "802.1Q (PCP = VC), delivered copy, carried frame captured",
	    .tagged = 1, .tci = 2 << 13 | 1, .src = 5, .dst = 12, .vc = 2,
	    .hops = 1, .seq = 7, .flags = TT_FRAME_F_DELIVERED, .body = 60,
	    .captured = 1},
	{.what = "every field at its largest, header-only",
	    .tagged = 1, .tci = 0xFFFF, .src = 0xFFFFFFFEu,
	    .dst = 0xFFFFFFFEu, .seq = 0xFFFFFFFFu, .vc = 31, .hops = 255,
	    .flags = TT_FRAME_F_DELIVERED, .body = 1500},
	{.what = "every field 0, nothing carried"},
	{.what = "hello from port Y-", .type = TT_FRAME_HELLO,
	    .src = 9, .dst = TT_PE_BROADCAST, .seq = 42,
	    .hello = {4, 1, 3, 0}, .body = TT_HELLO_LEN},
	{.what = "tagged hello from port X+", .type = TT_FRAME_HELLO,
	    .tagged = 1, .tci = 1, .src = 4, .dst = TT_PE_BROADCAST,
	    .hello = {2, 0, 0, 0}, .body = TT_HELLO_LEN},
	{.what = "hello from port d3- (4 dimensions and up)",
	    .type = TT_FRAME_HELLO, .src = 15, .dst = TT_PE_BROADCAST,
	    .seq = 1, .hello = {7, 1, 7, 0}, .body = TT_HELLO_LEN},
	{.what = "hello from port d7+", .type = TT_FRAME_HELLO,
	    .src = 2, .dst = TT_PE_BROADCAST, .seq = 2,
	    .hello = {1, 0, 14, 0}, .body = TT_HELLO_LEN},
	/* the ARP frame goes here (ARP_BEFORE), then the malformed ones */
	{.what = "version 2", .bad_version = 2, .src = 1, .dst = 2, .seq = 3,
	    .body = 60, .problem = "version 2"},
	{.what = "type 3", .type = 3, .src = 1, .dst = 2, .seq = 4,
	    .problem = "type 3"},
	{.what = "unknown flag bits", .flags = 0x05, .src = 1, .dst = 2,
	    .seq = 5, .problem = "flags 0x04"},
	{.what = "VC 32, one past the last", .vc = 32, .src = 1, .dst = 2, .seq = 6,
	    .problem = "VC 32"},
	{.what = "torus header cut at 9 bytes", .src = 1, .dst = 2, .seq = 7,
	    .vc = 3, .hops = 4, .short_header = 1, .header_len = 9,
	    .problem = "cut at 9 of 16"},
	{.what = "torus header cut at 0 bytes", .short_header = 1,
	    .header_len = 0, .problem = "cut at 0 of 16"},
	{.what = "tagged, torus header cut at 15 bytes", .tagged = 1,
	    .tci = 1, .src = 1, .dst = 2, .seq = 8, .short_header = 1,
	    .header_len = 15, .problem = "cut at 15 of 16"},
	{.what = "hello body cut at 6 bytes", .type = TT_FRAME_HELLO,
	    .src = 6, .dst = TT_PE_BROADCAST, .seq = 9,
	    .hello = {3, 0, 1, 0}, .body = 6, .problem = "hello cut at 6"},
	{.what = "hello from card 2", .type = TT_FRAME_HELLO, .src = 6,
	    .dst = TT_PE_BROADCAST, .seq = 10, .hello = {3, 2, 1, 0},
	    .body = TT_HELLO_LEN, .problem = "card 2"},
	{.what = "hello from port 16, the internal link's id",
	    .type = TT_FRAME_HELLO, .src = 6, .dst = TT_PE_BROADCAST,
	    .seq = 11, .hello = {3, 0, 16, 0}, .body = TT_HELLO_LEN,
	    .problem = "port 16"},
	/* sound frames the capture cut, not malformed: a note, not an error */
	{.what = "snapshot length 24: torus header captured to 10 bytes",
	    .src = 1, .dst = 2, .seq = 12, .vc = 1, .hops = 1, .body = 64,
	    .snaplen = 24, .problem = "captured to 10 of 16"},
	{.what = "snapshot length 34: hello captured to 4 bytes",
	    .type = TT_FRAME_HELLO, .src = 6, .dst = TT_PE_BROADCAST,
	    .seq = 13, .hello = {3, 0, 1, 0}, .body = TT_HELLO_LEN,
	    .snaplen = 34, .problem = "hello captured to 4 of 8"},
	/* credit frames (type 2): ttd's lossless flow control */
	{.what = "credit for 2 VCs", .type = TT_FRAME_CREDIT, .src = 9,
	    .dst = TT_PE_BROADCAST, .seq = 5,
	    .credit = {0x1234, 0xABCD, 2, {{4096, 22528, 18432},
	    {0xFFFFFFF0u, 0x47F0, 18432}}}, .body = 32},
	{.what = "tagged credit, nothing heard from the peer yet",
	    .type = TT_FRAME_CREDIT, .tagged = 1, .tci = 0, .src = 4,
	    .dst = TT_PE_BROADCAST, .seq = 1,
	    .credit = {7, 0, 1, {{0, 0, 65536}}}, .body = 20},
	{.what = "credit body cut at 6 bytes", .type = TT_FRAME_CREDIT,
	    .src = 9, .dst = TT_PE_BROADCAST, .seq = 6,
	    .credit = {7, 9, 1, {{0, 0, 18432}}}, .body = 6,
	    .problem = "credit body cut at 6 of 8"},
	{.what = "credit for 0 VCs", .type = TT_FRAME_CREDIT, .src = 9,
	    .dst = TT_PE_BROADCAST, .seq = 7, .credit = {7, 9, 0, {{0}}},
	    .body = 8, .problem = "for 0 VCs"},
	{.what = "credit for 2 VCs cut inside the second",
	    .type = TT_FRAME_CREDIT, .src = 9, .dst = TT_PE_BROADCAST,
	    .seq = 8, .credit = {7, 9, 2, {{1, 2, 18432}, {3, 4, 18432}}},
	    .body = 24, .problem = "cut at 24 of 32 bytes (2 VCs)"},
	{.what = "credit with a least of 2048 (buffers of 512 KiB)",
	    .type = TT_FRAME_CREDIT, .src = 9, .dst = TT_PE_BROADCAST,
	    .seq = 9, .credit = {7, 9, 1, {{0, 524288, 524288}}, 2048},
	    .body = 20},
	{.what = "credit with a least of 128", .type = TT_FRAME_CREDIT,
	    .src = 9, .dst = TT_PE_BROADCAST, .seq = 10,
	    .credit = {7, 9, 1, {{0, 0, 18432}}, 128}, .body = 20,
	    .problem = "least cost 128"},
};

/* Where the ARP frame goes: after the sound torus frames. */
#define ARP_BEFORE 9

/* The PEs' MACs (tt_pe_mac(), as ttd and ttsim use them); hellos go to
 * every PE. */
static void
pe_mac(uint8_t mac[6], uint32_t pe)
{
	if (pe == TT_PE_BROADCAST) {
		memset(mac, 0xFF, 6);
		return;
	}
	tt_pe_mac(pe, mac);
}

/*
 * The frame a PE sends: an ARP request, "who has 10.0.0.<dst>, tell
 * 10.0.0.<src>", padded to len bytes (at least 42).
 */
static size_t
arp_request(uint8_t *buf, size_t len, uint32_t src, uint32_t dst)
{
	static const uint8_t arp_head[8] = {0, 1, 0x08, 0x00, 6, 4, 0, 1};

	if (len < 42)
		len = 42;
	memset(buf, 0, len);
	pe_mac(buf, TT_PE_BROADCAST);
	pe_mac(buf + 6, src);
	buf[12] = 0x08;
	buf[13] = 0x06;
	memcpy(buf + 14, arp_head, sizeof(arp_head));
	pe_mac(buf + 22, src);
	memcpy(buf + 28, (const uint8_t[]){10, 0, 0, (uint8_t)src}, 4);
	memcpy(buf + 38, (const uint8_t[]){10, 0, 0, (uint8_t)dst}, 4);
	return len;
}

static void
dump(pcap_dumper_t *d, unsigned n, const uint8_t *buf, size_t caplen,
    size_t len)
{
	struct pcap_pkthdr ph;

	memset(&ph, 0, sizeof(ph));
	ph.ts.tv_sec = 1;
	ph.ts.tv_usec = (suseconds_t)(n * 1000);  /* nanoseconds here */
	ph.caplen = (bpf_u_int32)caplen;
	ph.len = (bpf_u_int32)len;
	pcap_dump((u_char *)d, &ph, buf);
}

/* Torus header bytes the record holds: cut on the wire or by the capture. */
static size_t
header_kept(const struct sample *s)
{
	size_t hoff = TT_ETH_HLEN + (s->tagged ? TT_VLAN_HLEN : 0);

	if (s->short_header)
		return s->header_len;
	if (s->snaplen != 0 && s->snaplen < hoff + TT_FRAME_HLEN)
		return s->snaplen - hoff;
	return TT_FRAME_HLEN;
}

/* A field's expected text (tshark shows flags in hex): empty if cut off. */
static void
column(const struct sample *s, size_t off, size_t size, unsigned long v)
{
	putchar('\t');
	if (off + size > header_kept(s))
		return;
	if (off == 3)
		printf("0x%02lx", v);
	else
		printf("%lu", v);
}

static void
print_expected(unsigned n, const struct sample *s)
{
	size_t hoff = TT_ETH_HLEN + (s->tagged ? TT_VLAN_HLEN : 0);
	int hello = s->type == TT_FRAME_HELLO && !s->short_header &&
	    s->body >= TT_HELLO_LEN && (s->snaplen == 0 ||
	    s->snaplen >= hoff + TT_FRAME_HLEN + TT_HELLO_LEN);

	printf("%u", n);
	column(s, 0, 1, s->type);
	column(s, 1, 1, s->vc);
	column(s, 2, 1, s->hops);
	column(s, 3, 1, s->flags);
	column(s, 4, 4, s->dst);
	column(s, 8, 4, s->src);
	column(s, 12, 4, s->seq);
	printf("\t");
	if (hello)
		printf("%lu\t%u\t%u", (unsigned long)s->hello.node,
		    s->hello.card, s->hello.port);
	else
		printf("\t\t");
	printf("\t%s\t%s\n", s->problem ? s->problem : "-", s->what);
}

/* Encode s into buf; returns the wire length, *caplen what is captured. */
static size_t
encode_sample(const struct sample *s, uint8_t *buf, size_t bufsz,
    size_t *caplen)
{
	uint8_t body[2048];
	tt_frame f;
	size_t len, hoff;

	if (s->body > sizeof(body))
		return 0;
	memset(&f, 0, sizeof(f));
	pe_mac(f.dst_mac, s->dst);
	pe_mac(f.src_mac, s->src);
	f.tagged = s->tagged;
	f.tci = s->tci;
	f.version = TT_FRAME_VERSION;
	f.type = s->type <= TT_FRAME_CREDIT ? (uint8_t)s->type : TT_FRAME_DATA;
	f.hops = (uint8_t)s->hops;
	f.dst = s->dst;
	f.src = s->src;
	f.seq = s->seq;
	f.payload = body;
	if (s->type == TT_FRAME_HELLO) {
		tt_hello_encode(&s->hello, body);
		f.payload_len = s->body;
	} else if (s->type == TT_FRAME_CREDIT) {
		tt_credit c = s->credit;

		/* 0 VCs is refused by the encoder: written by hand */
		c.nvcs = c.nvcs ? c.nvcs : 1;
		if (tt_credit_encode(&c, body, sizeof(body)) == 0)
			return 0;
		body[4] = s->credit.nvcs;
		f.payload_len = s->body;
	} else if (s->body > 0) {
		f.payload_len = arp_request(body, s->body, s->src, s->dst);
	}
	len = tt_frame_encode(&f, buf, bufsz);
	if (len == 0)
		return 0;
	/* bytes the encoder refuses to write: frame.h's layout */
	hoff = tt_frame_hlen(&f) - TT_FRAME_HLEN;
	buf[hoff] = (uint8_t)((s->bad_version ? s->bad_version :
	    TT_FRAME_VERSION) << 4 | s->type);
	buf[hoff + 1] = (uint8_t)s->vc;
	buf[hoff + 3] = (uint8_t)s->flags;
	if (s->short_header)
		len = hoff + s->header_len;
	*caplen = len;
	if (s->type == TT_FRAME_DATA && !s->captured && len > hoff + TT_FRAME_HLEN)
		*caplen = hoff + TT_FRAME_HLEN;
	if (s->snaplen != 0 && s->snaplen < *caplen)
		*caplen = s->snaplen;
	return len;
}

int
main(int argc, char **argv)
{
	uint8_t buf[2048];
	pcap_dumper_t *d;
	pcap_t *p;
	size_t i, len, caplen;
	unsigned n = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: make-frames FILE.pcap > frames.expected\n");
		return 2;
	}
	p = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535,
	    PCAP_TSTAMP_PRECISION_NANO);
	if (p == NULL) {
		fprintf(stderr, "make-frames: pcap_open_dead failed\n");
		return 1;
	}
	d = pcap_dump_open(p, argv[1]);
	if (d == NULL) {
		fprintf(stderr, "make-frames: %s\n", pcap_geterr(p));
		pcap_close(p);
		return 1;
	}
	printf("# frame\ttype\tvc\thops\tflags\tdst\tsrc\tseq\tnode\tcard\t"
	    "port\tproblem\twhat\n");
	for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		if (i == ARP_BEFORE) {
			len = arp_request(buf, 60, 0x63, 0x64);
			dump(d, ++n, buf, len, len);
			printf("%u\t\t\t\t\t\t\t\t\t\t\t-\tARP, not a torus "
			    "frame\n", n);
		}
		len = encode_sample(&samples[i], buf, sizeof(buf), &caplen);
		if (len == 0) {
			fprintf(stderr, "make-frames: cannot encode \"%s\"\n",
			    samples[i].what);
			pcap_dump_close(d);
			pcap_close(p);
			return 1;
		}
		dump(d, ++n, buf, caplen, len);
		print_expected(n, &samples[i]);
	}
	if (pcap_dump_flush(d) != 0) {
		fprintf(stderr, "make-frames: %s: write failed\n", argv[1]);
		pcap_dump_close(d);
		pcap_close(p);
		return 1;
	}
	pcap_dump_close(d);
	pcap_close(p);
	return 0;
}
