/*
 * The torus frame against its layout (twintorus/frame.h):
 * encode then decode gives back every field, two frames written out by
 * hand byte by byte are what the encoder writes and what the decoder
 * reads, every malformed frame is refused with a message naming the
 * problem, and the encoder refuses what the decoder would refuse.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "twintorus/frame.h"
#include "twintorus/topo.h"

/* A data frame from PE src to PE dst, with the MACs ttd gives PEs. */
static void
data_frame(tt_frame *f, uint32_t src, uint32_t dst, uint32_t seq)
{
	static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0};

	memset(f, 0, sizeof(*f));
	memcpy(f->dst_mac, mac, 6);
	memcpy(f->src_mac, mac, 6);
	f->dst_mac[5] = (uint8_t)dst;
	f->src_mac[5] = (uint8_t)src;
	f->version = TT_FRAME_VERSION;
	f->type = TT_FRAME_DATA;
	f->src = src;
	f->dst = dst;
	f->seq = seq;
}

/* Encode f into a heap buffer of exactly its size, so ASan sees overruns. */
static uint8_t *
encode_exact(const tt_frame *f, size_t *len)
{
	size_t want = tt_frame_hlen(f) + f->payload_len;
	uint8_t *buf = malloc(want);

	assert_non_null(buf);
	*len = tt_frame_encode(f, buf, want);
	assert_int_equal(*len, want);
	return buf;
}

/*
 * Decode len bytes, expecting the code want (TT_FRAME_CUT or TT_FRAME_BAD)
 * and a message holding each of the words.
 */
static void
assert_refused(const uint8_t *buf, size_t len, int want, const char *word1,
    const char *word2)
{
	tt_frame f;
	char err[128] = "";
	int rc;

	rc = tt_frame_decode(&f, buf, len, err, sizeof(err));
	if (rc != want)
		fail_msg("%zu bytes: decode returned %d, wanted %d", len, rc,
		    want);
	if (strstr(err, word1) == NULL ||
	    (word2 != NULL && strstr(err, word2) == NULL))
		fail_msg("%zu bytes: message \"%s\" does not say \"%s\"%s%s",
		    len, err, word1, word2 ? " and " : "", word2 ? word2 : "");
}

static void
assert_same_header(const tt_frame *got, const tt_frame *want)
{
	assert_memory_equal(got->dst_mac, want->dst_mac, 6);
	assert_memory_equal(got->src_mac, want->src_mac, 6);
	assert_int_equal(got->tagged, want->tagged);
	assert_int_equal(got->tci, want->tagged ? want->tci : 0);
	assert_int_equal(got->ethertype, TT_ETHERTYPE);
	assert_int_equal(got->version, want->version);
	assert_int_equal(got->type, want->type);
	assert_int_equal(got->vc, want->vc);
	assert_int_equal(got->hops, want->hops);
	assert_int_equal(got->flags, want->flags);
	assert_int_equal(got->dst, want->dst);
	assert_int_equal(got->src, want->src);
	assert_int_equal(got->seq, want->seq);
}

static void
test_data_round_trip(void **state)
{
	static const struct {
		int tagged;
		uint16_t tci;
		uint8_t vc, hops, flags;
		uint32_t src, dst, seq;
		size_t payload_len;
	} cases[] = {
		{0, 0, 0, 0, 0, 0, 1, 0, 0},
		{0, 0, 1, 2, 0, 3, 17, 5, 60},
		{1, 0x2005, 1, 2, 0, 3, 17, 5, 0},
		{1, 0x2005, 1, 2, TT_FRAME_F_DELIVERED, 3, 17, 5, 1500},
		/* the largest of every field */
		{0, 0, TT_MAX_VCS - 1, 255, TT_FRAME_F_ALL,
		    0xFFFFFFFEu, 0xFFFFFFFEu, 0xFFFFFFFFu, 9000},
		{1, 0xFFFF, TT_MAX_VCS - 1, 255, TT_FRAME_F_ALL,
		    0xFFFFFFFEu, 0xFFFFFFFEu, 0xFFFFFFFFu, 1},
	};
	uint8_t payload[9000];
	size_t i, j, len;
	tt_frame in, out;
	uint8_t *buf;
	char err[128];

	(void)state;
	for (j = 0; j < sizeof(payload); j++)
		payload[j] = (uint8_t)(j * 7 + 1);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		data_frame(&in, cases[i].src, cases[i].dst, cases[i].seq);
		in.tagged = cases[i].tagged;
		in.tci = cases[i].tci;
		in.vc = cases[i].vc;
		in.hops = cases[i].hops;
		in.flags = cases[i].flags;
		in.payload = payload;
		in.payload_len = cases[i].payload_len;
		buf = encode_exact(&in, &len);
		assert_int_equal(len, (in.tagged ? 18 : 14) + 16 +
		    cases[i].payload_len);
		if (tt_frame_decode(&out, buf, len, err, sizeof(err)) != 0)
			fail_msg("case %zu: %s", i, err);
		assert_same_header(&out, &in);
		assert_int_equal(out.payload_len, cases[i].payload_len);
		assert_ptr_equal(out.payload, buf + tt_frame_hlen(&in));
		if (cases[i].payload_len > 0)
			assert_memory_equal(out.payload, payload,
			    cases[i].payload_len);
		free(buf);
	}
}

static void
test_hello_round_trip(void **state)
{
	static const tt_hello hellos[] = {
		{0, 0, 0, 0},
		{4, 1, 3, 0},
		{0xFFFFFFFFu, 1, TT_MAX_EXT - 1, 0xFFFF},
	};
	uint8_t body[TT_HELLO_LEN], *buf;
	tt_frame in, out;
	tt_hello got;
	char err[128];
	size_t i, len;
	int tagged;

	(void)state;
	for (i = 0; i < sizeof(hellos) / sizeof(hellos[0]); i++) {
		for (tagged = 0; tagged <= 1; tagged++) {
			tt_hello_encode(&hellos[i], body);
			data_frame(&in, 2 * hellos[i].node + hellos[i].card,
			    TT_PE_BROADCAST, (uint32_t)i);
			in.type = TT_FRAME_HELLO;
			in.tagged = tagged;
			in.tci = 0x0001;
			in.payload = body;
			in.payload_len = sizeof(body);
			buf = encode_exact(&in, &len);
			if (tt_frame_decode(&out, buf, len, err,
			    sizeof(err)) != 0)
				fail_msg("hello %zu: %s", i, err);
			assert_same_header(&out, &in);
			if (tt_hello_decode(&got, out.payload, out.payload_len,
			    err, sizeof(err)) != 0)
				fail_msg("hello %zu: %s", i, err);
			assert_int_equal(got.node, hellos[i].node);
			assert_int_equal(got.card, hellos[i].card);
			assert_int_equal(got.port, hellos[i].port);
			assert_int_equal(got.reserved, hellos[i].reserved);
			free(buf);
		}
	}
}

/*
 * The oracle: two frames written out from the layout in frame.h, not from
 * the encoder.  Multi-byte values have distinct bytes so that a swapped
 * byte order cannot pass.
 */
static const uint8_t tagged_data_bytes[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x11,	/* destination MAC */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x03,	/* source MAC */
	0x81, 0x00, 0x20, 0x05,		/* 802.1Q, PCP 1, VID 5 */
	0x88, 0xB5,			/* EtherType */
	0x10,				/* version 1, type 0 (data) */
	0x07,				/* VC 7 */
	0x02,				/* hops 2 */
	0x01,				/* flags: delivered */
	0x01, 0x02, 0x03, 0x04,		/* destination PE */
	0xA0, 0xB0, 0xC0, 0xD0,		/* source PE */
	0x00, 0x00, 0x01, 0x05,		/* sequence */
	0xDE, 0xAD, 0xBE, 0xEF,		/* the carried frame (cut short) */
};

static const uint8_t hello_bytes[] = {
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x09,
	0x88, 0xB5,
	0x11,				/* version 1, type 1 (hello) */
	0x00, 0x00, 0x00,		/* VC 0, hops 0, no flags */
	0xFF, 0xFF, 0xFF, 0xFF,		/* destination: every PE */
	0x00, 0x00, 0x00, 0x09,		/* source PE 9 */
	0x00, 0x00, 0x00, 0x2A,		/* sequence 42 */
	0x00, 0x00, 0x00, 0x04,		/* hello: node 4 */
	0x01,				/* card 1 */
	0x03,				/* port Y- */
	0x00, 0x00,			/* reserved */
};

static void
tagged_data_fields(tt_frame *f)
{
	static const uint8_t payload[4] = {0xDE, 0xAD, 0xBE, 0xEF};

	data_frame(f, 0xA0B0C0D0u, 0x01020304u, 0x105);
	f->dst_mac[5] = 0x11;
	f->src_mac[5] = 0x03;
	f->tagged = 1;
	f->tci = 0x2005;
	f->vc = 7;
	f->hops = 2;
	f->flags = TT_FRAME_F_DELIVERED;
	f->payload = payload;
	f->payload_len = sizeof(payload);
}

static void
test_encode_matches_layout(void **state)
{
	static const tt_hello h = {4, 1, 3, 0};
	uint8_t buf[64], body[TT_HELLO_LEN];
	tt_frame f;

	(void)state;
	tagged_data_fields(&f);
	assert_int_equal(tt_frame_encode(&f, buf, sizeof(buf)),
	    sizeof(tagged_data_bytes));
	assert_memory_equal(buf, tagged_data_bytes, sizeof(tagged_data_bytes));

	tt_hello_encode(&h, body);
	data_frame(&f, 9, TT_PE_BROADCAST, 42);
	memset(f.dst_mac, 0xFF, 6);
	f.src_mac[5] = 0x09;
	f.type = TT_FRAME_HELLO;
	f.payload = body;
	f.payload_len = sizeof(body);
	assert_int_equal(tt_frame_encode(&f, buf, sizeof(buf)),
	    sizeof(hello_bytes));
	assert_memory_equal(buf, hello_bytes, sizeof(hello_bytes));
}

static void
test_decode_matches_layout(void **state)
{
	tt_frame want, got;
	tt_hello h;
	char err[128];

	(void)state;
	tagged_data_fields(&want);
	assert_int_equal(tt_frame_decode(&got, tagged_data_bytes,
	    sizeof(tagged_data_bytes), err, sizeof(err)), 0);
	assert_same_header(&got, &want);
	assert_int_equal(got.payload_len, 4);
	assert_memory_equal(got.payload, want.payload, 4);

	assert_int_equal(tt_frame_decode(&got, hello_bytes,
	    sizeof(hello_bytes), err, sizeof(err)), 0);
	assert_int_equal(got.type, TT_FRAME_HELLO);
	assert_int_equal(got.dst, TT_PE_BROADCAST);
	assert_int_equal(got.src, 9);
	assert_int_equal(got.seq, 42);
	assert_int_equal(got.payload_len, TT_HELLO_LEN);
	assert_int_equal(tt_hello_decode(&h, got.payload, got.payload_len,
	    err, sizeof(err)), 0);
	assert_int_equal(h.node, 4);
	assert_int_equal(h.card, 1);
	assert_int_equal(h.port, 3);
	assert_int_equal(h.reserved, 0);
}

static void
test_short_ethernet_and_tag_are_refused(void **state)
{
	uint8_t buf[sizeof(tagged_data_bytes)];
	char words[32];
	size_t len;

	(void)state;
	memcpy(buf, tagged_data_bytes, sizeof(buf));
	for (len = 0; len < TT_ETH_HLEN; len++) {
		snprintf(words, sizeof(words), "%zu bytes", len);
		assert_refused(buf, len, TT_FRAME_CUT, words,
		    "shorter than an Ethernet");
	}
	/* EtherType 0x8100 read, the tag after it cut */
	for (len = TT_ETH_HLEN; len < TT_ETH_HLEN + TT_VLAN_HLEN; len++) {
		snprintf(words, sizeof(words), "cut at %zu", len);
		assert_refused(buf, len, TT_FRAME_CUT, "802.1Q", words);
	}
}

static void
test_cut_torus_header_is_refused(void **state)
{
	char words[32];
	size_t cut;

	(void)state;
	for (cut = 0; cut < TT_FRAME_HLEN; cut++) {
		snprintf(words, sizeof(words), "cut at %zu of 16", cut);
		assert_refused(hello_bytes, TT_ETH_HLEN + cut, TT_FRAME_CUT,
		    "torus header", words);
		assert_refused(tagged_data_bytes, TT_ETH_HLEN + TT_VLAN_HLEN +
		    cut, TT_FRAME_CUT, "torus header", words);
	}
}

/* hello_bytes with byte off of the torus header set to v */
static void
assert_header_byte_refused(size_t off, uint8_t v, const char *word1,
    const char *word2)
{
	uint8_t buf[sizeof(hello_bytes)];

	memcpy(buf, hello_bytes, sizeof(buf));
	buf[TT_ETH_HLEN + off] = v;
	assert_refused(buf, sizeof(buf), TT_FRAME_BAD, word1, word2);
}

static void
test_bad_header_fields_are_refused(void **state)
{
	(void)state;
	assert_header_byte_refused(0, 0x01, "version 0", NULL);
	assert_header_byte_refused(0, 0x20, "version 2", NULL);
	assert_header_byte_refused(0, 0xF1, "version 15", NULL);
	assert_header_byte_refused(0, 0x13, "type 3", "2 credit");
	assert_header_byte_refused(0, 0x1F, "type 15", NULL);
	assert_header_byte_refused(1, TT_MAX_VCS, "VC 32", "out of range");
	assert_header_byte_refused(1, 0xFF, "VC 255", "out of range");
	assert_header_byte_refused(3, 0x02, "flags 0x02", NULL);
	assert_header_byte_refused(3, 0x81, "flags 0x80", NULL);
}

static void
test_bad_hellos_are_refused(void **state)
{
	uint8_t body[TT_HELLO_LEN];
	tt_frame f;
	tt_hello h;
	char err[128];

	(void)state;
	/* the frame is sound, its hello body is one byte short */
	assert_int_equal(tt_frame_decode(&f, hello_bytes,
	    sizeof(hello_bytes) - 1, err, sizeof(err)), 0);
	assert_int_equal(tt_hello_decode(&h, f.payload, f.payload_len, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "hello cut at 7 of 8"));
	assert_int_equal(tt_hello_decode(&h, f.payload, 0, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "hello cut at 0 of 8"));

	memcpy(body, hello_bytes + sizeof(hello_bytes) - TT_HELLO_LEN,
	    TT_HELLO_LEN);
	body[4] = 2;
	assert_int_equal(tt_hello_decode(&h, body, sizeof(body), err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "card 2"));

	body[4] = 1;
	body[5] = TT_MAX_EXT;		/* the internal link's id */
	assert_int_equal(tt_hello_decode(&h, body, sizeof(body), err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "port 16"));
	assert_non_null(strstr(err, "not an external port"));
	body[5] = 0xFF;
	assert_int_equal(tt_hello_decode(&h, body, sizeof(body), err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "port 255"));
}

static void
test_other_ethertype_is_passed_over(void **state)
{
	uint8_t buf[sizeof(tagged_data_bytes)];
	tt_frame f;
	char err[128] = "";

	(void)state;
	memcpy(buf, hello_bytes, sizeof(hello_bytes));
	buf[12] = 0x08;
	buf[13] = 0x00;
	assert_int_equal(tt_frame_decode(&f, buf, sizeof(hello_bytes), err,
	    sizeof(err)), 1);
	assert_int_equal(f.ethertype, 0x0800);
	assert_int_equal(f.tagged, 0);
	assert_int_equal(f.src_mac[5], 0x09);
	assert_null(f.payload);
	assert_string_equal(err, "");

	/* behind a tag; the frame may end right after the EtherType */
	memcpy(buf, tagged_data_bytes, sizeof(tagged_data_bytes));
	buf[16] = 0x08;
	buf[17] = 0x00;
	assert_int_equal(tt_frame_decode(&f, buf, TT_ETH_HLEN + TT_VLAN_HLEN,
	    err, sizeof(err)), 1);
	assert_int_equal(f.ethertype, 0x0800);
	assert_int_equal(f.tagged, 1);
	assert_int_equal(f.tci, 0x2005);
}

static void
test_encode_refuses_bad_fields(void **state)
{
	uint8_t buf[64];
	tt_frame f;

	(void)state;
	tagged_data_fields(&f);
	f.version = 0;
	assert_int_equal(tt_frame_encode(&f, buf, sizeof(buf)), 0);
	f.version = 2;
	assert_int_equal(tt_frame_encode(&f, buf, sizeof(buf)), 0);
	tagged_data_fields(&f);
	f.type = 3;
	assert_int_equal(tt_frame_encode(&f, buf, sizeof(buf)), 0);
	tagged_data_fields(&f);
	f.vc = TT_MAX_VCS;
	assert_int_equal(tt_frame_encode(&f, buf, sizeof(buf)), 0);
	tagged_data_fields(&f);
	f.flags = 0x02;
	assert_int_equal(tt_frame_encode(&f, buf, sizeof(buf)), 0);
	f.flags = 0x80 | TT_FRAME_F_DELIVERED;
	assert_int_equal(tt_frame_encode(&f, buf, sizeof(buf)), 0);
}

static void
test_encode_refuses_small_buffer(void **state)
{
	uint8_t buf[64];
	size_t need = sizeof(tagged_data_bytes);
	tt_frame f;

	(void)state;
	tagged_data_fields(&f);
	assert_int_equal(tt_frame_encode(&f, buf, 0), 0);
	/* room for the headers but not the payload */
	assert_int_equal(tt_frame_encode(&f, buf, tt_frame_hlen(&f)), 0);
	assert_int_equal(tt_frame_encode(&f, buf, need - 1), 0);
	assert_int_equal(tt_frame_encode(&f, buf, need), need);
	/* a payload length that would wrap a careless size sum */
	f.payload_len = SIZE_MAX - 4;
	assert_int_equal(tt_frame_encode(&f, buf, sizeof(buf)), 0);
}

/* A credit frame's body, byte by byte: 2 VCs. */
static const uint8_t credit_body_bytes[] = {
	0x12, 0x34,			/* epoch */
	0xAB, 0xCD,			/* peer epoch */
	0x02,				/* 2 VCs */
	0x00, 0x00,			/* least: 0, TT_CREDIT_MIN_BYTES */
	0x00,				/* reserved */
	0x00, 0x00, 0x10, 0x00,		/* VC 0: sent 4096 */
	0x00, 0x00, 0x58, 0x00,		/* limit 22528 */
	0x00, 0x00, 0x48, 0x00,		/* buffer 18432 */
	0xFF, 0xFF, 0xFF, 0xF0,		/* VC 1: sent, about to wrap */
	0x00, 0x00, 0x47, 0xF0,		/* limit, past the wrap */
	0x00, 0x00, 0x48, 0x00,		/* buffer 18432 */
};

static void
credit_fields(tt_credit *c)
{
	memset(c, 0, sizeof(*c));
	c->epoch = 0x1234;
	c->peer_epoch = 0xABCD;
	c->nvcs = 2;
	c->least = TT_CREDIT_MIN_BYTES;
	c->vc[0] = (tt_credit_vc){4096, 22528, 18432};
	c->vc[1] = (tt_credit_vc){0xFFFFFFF0u, 0x47F0, 18432};
}

/* Credits: the layout both ways, a whole frame through the frame codec,
 * the largest VC count. */
static void
test_credit_layout(void **state)
{
	uint8_t body[TT_CREDIT_HLEN + TT_CREDIT_MAX_VCS * TT_CREDIT_VC_LEN];
	uint8_t buf[512];
	tt_credit c, got;
	tt_frame f, fg;
	char err[128];
	size_t len;
	int v;

	(void)state;
	credit_fields(&c);
	len = tt_credit_encode(&c, body, sizeof(body));
	assert_int_equal(len, sizeof(credit_body_bytes));
	assert_memory_equal(body, credit_body_bytes, len);
	assert_int_equal(tt_credit_decode(&got, credit_body_bytes,
	    sizeof(credit_body_bytes), err, sizeof(err)), 0);
	assert_memory_equal(&got, &c, sizeof(c));
	/* a larger least goes as it is, in network order; 256 goes as
	 * 0, which ttd before the field takes */
	c.least = 0x0801;
	len = tt_credit_encode(&c, body, sizeof(body));
	assert_int_equal(body[5], 0x08);
	assert_int_equal(body[6], 0x01);
	assert_int_equal(body[7], 0);
	assert_int_equal(tt_credit_decode(&got, body, len, err, sizeof(err)),
	    0);
	assert_memory_equal(&got, &c, sizeof(c));
	c.least = TT_CREDIT_MIN_BYTES;
	len = tt_credit_encode(&c, body, sizeof(body));
	assert_memory_equal(body, credit_body_bytes, len);
	/* in a frame: type 2, VC 0, to every PE */
	data_frame(&f, 9, TT_PE_BROADCAST, 3);
	f.type = TT_FRAME_CREDIT;
	f.payload = body;
	f.payload_len = len;
	len = tt_frame_encode(&f, buf, sizeof(buf));
	assert_int_equal(len, TT_ETH_HLEN + TT_FRAME_HLEN +
	    sizeof(credit_body_bytes));
	assert_int_equal(buf[TT_ETH_HLEN], 0x12);	/* version 1, type 2 */
	assert_int_equal(tt_frame_decode(&fg, buf, len, err, sizeof(err)), 0);
	assert_int_equal(fg.type, TT_FRAME_CREDIT);
	assert_int_equal(tt_credit_decode(&got, fg.payload, fg.payload_len,
	    err, sizeof(err)), 0);
	assert_int_equal(got.vc[1].limit, 0x47F0);
	/* every VC a port may have */
	c.nvcs = TT_CREDIT_MAX_VCS;
	for (v = 0; v < TT_CREDIT_MAX_VCS; v++)
		c.vc[v] = (tt_credit_vc){(uint32_t)v, (uint32_t)v << 16,
		    (uint32_t)v * 7};
	len = tt_credit_encode(&c, body, sizeof(body));
	assert_int_equal(len, sizeof(body));
	assert_int_equal(tt_credit_encode(&c, body, sizeof(body) - 1), 0);
	assert_int_equal(tt_credit_decode(&got, body, len, err, sizeof(err)),
	    0);
	assert_memory_equal(&got, &c, sizeof(c));
	c.nvcs = 0;
	assert_int_equal(tt_credit_encode(&c, body, sizeof(body)), 0);
	c.nvcs = TT_CREDIT_MAX_VCS + 1;
	assert_int_equal(tt_credit_encode(&c, body, sizeof(body)), 0);
}

static void
assert_credit_refused(const uint8_t *buf, size_t len, const char *word)
{
	tt_credit c;
	char err[128] = "";

	if (tt_credit_decode(&c, buf, len, err, sizeof(err)) != -1)
		fail_msg("%zu bytes: accepted, wanted \"%s\"", len, word);
	if (strstr(err, word) == NULL)
		fail_msg("%zu bytes: \"%s\" does not say \"%s\"", len, err,
		    word);
}

static void
test_bad_credits_are_refused(void **state)
{
	uint8_t buf[sizeof(credit_body_bytes)];
	size_t len;

	(void)state;
	for (len = 0; len < TT_CREDIT_HLEN; len++)
		assert_credit_refused(credit_body_bytes, len, "credit body cut");
	for (len = TT_CREDIT_HLEN; len < sizeof(buf); len++)
		assert_credit_refused(credit_body_bytes, len, "(2 VCs)");
	memcpy(buf, credit_body_bytes, sizeof(buf));
	buf[4] = 0;
	assert_credit_refused(buf, sizeof(buf), "for 0 VCs");
	buf[4] = TT_CREDIT_MAX_VCS + 1;
	assert_credit_refused(buf, sizeof(buf), "for 33 VCs");
	memcpy(buf, credit_body_bytes, sizeof(buf));
	buf[0] = buf[1] = 0;
	assert_credit_refused(buf, sizeof(buf), "epoch 0");
	/* the reserved byte is sent as 0: any other value is refused */
	memcpy(buf, credit_body_bytes, sizeof(buf));
	buf[7] = 0x01;
	assert_credit_refused(buf, sizeof(buf), "reserved byte 01");
	/* a least under TT_CREDIT_MIN_BYTES (other than 0) is refused */
	memcpy(buf, credit_body_bytes, sizeof(buf));
	buf[6] = 0x01;
	assert_credit_refused(buf, sizeof(buf), "least cost 1 ");
	buf[6] = 0xFF;
	assert_credit_refused(buf, sizeof(buf), "least cost 255 ");
}

/* One MAC scheme for every PE: 02:74:74 and the id in 24 bits. */
static void
test_pe_mac(void **state)
{
	static const uint8_t want[6] = {0x02, 0x74, 0x74, 0x12, 0x34, 0x56};
	uint8_t mac[6], other[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x07};
	uint32_t pe;

	(void)state;
	tt_pe_mac(0x123456, mac);
	assert_memory_equal(mac, want, 6);
	for (pe = 0; pe < (1u << 24); pe += 4099) {
		tt_pe_mac(pe, mac);
		assert_true(mac[0] & 0x02);             /* locally administered */
		assert_false(mac[0] & 0x01);            /* unicast */
		assert_int_equal(tt_mac_pe(mac), pe);
	}
	assert_int_equal(tt_mac_pe(other), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_data_round_trip),
		cmocka_unit_test(test_hello_round_trip),
		cmocka_unit_test(test_encode_matches_layout),
		cmocka_unit_test(test_decode_matches_layout),
		cmocka_unit_test(test_short_ethernet_and_tag_are_refused),
		cmocka_unit_test(test_cut_torus_header_is_refused),
		cmocka_unit_test(test_bad_header_fields_are_refused),
		cmocka_unit_test(test_bad_hellos_are_refused),
		cmocka_unit_test(test_other_ethertype_is_passed_over),
		cmocka_unit_test(test_encode_refuses_bad_fields),
		cmocka_unit_test(test_encode_refuses_small_buffer),
		cmocka_unit_test(test_pe_mac),
		cmocka_unit_test(test_credit_layout),
		cmocka_unit_test(test_bad_credits_are_refused),
	};

	return cmocka_run_group_tests_name("frame", tests, NULL, NULL);
}
