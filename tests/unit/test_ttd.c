/*
 * ttd's logic without devices: the port map and its refusals (node.c),
 * forwarding through a recording io table (fwd.c: every routing decision
 * equals tt_route(), hop limit, queues, delivery, ARP, hellos and the
 * cabling verdict) and trace rotation (capture.c).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "twintorus/trace.h"
#ifndef TT_SRCDIR
#define TT_SRCDIR "."	/* tests run from the top of the tree */
#endif

#include "../../daemon/discover.h"
#include "../../daemon/ttd.h"

/* ---- a config from text ---- */

struct cfgfile {
	char path[64];
	tt_config cfg;
	tt_net net;
};

static void
cfg_from_text(struct cfgfile *c, const char *text)
{
	char err[256];
	FILE *fp;
	int fd;

	snprintf(c->path, sizeof(c->path), "/tmp/test-ttd-XXXXXX");
	fd = mkstemp(c->path);
	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	fputs(text, fp);
	fclose(fp);
	if (tt_config_load(&c->cfg, c->path, stderr) != 0)
		fail_msg("config did not load");
	if (tt_net_init(&c->net, &c->cfg.spec, err, sizeof(err)) < 0)
		fail_msg("%s", err);
}

static void
cfg_free(struct cfgfile *c)
{
	unlink(c->path);
	tt_net_free(&c->net);
	tt_config_free(&c->cfg);
}

/* ttd_node_map's messages for node 0, as one string; returns the count. */
static int
map_errors(struct cfgfile *c, struct ttd_node *nd, int live, char *out,
    size_t outsz)
{
	FILE *fp = fmemopen(out, outsz, "w");
	int n;

	assert_non_null(fp);
	n = ttd_node_map(nd, &c->cfg, &c->net, 0, live, NULL, fp);
	fclose(fp);
	return n;
}

#define TORUS_D "torus: {dims: [2, 2, 2], ports: D}\n"

static void
test_map_by_configuration(void **state)
{
	struct cfgfile c;
	struct ttd_node nd;
	char msgs[2048] = "";

	(void)state;
	/* card1's ports listed first: the configuration says which is which */
	cfg_from_text(&c, TORUS_D "nodes:\n  - host: a\n    coord: [1, 0, 1]\n"
	    "    cards:\n"
	    "      - { ports: { e4: Y-, e5: Z+, e6: Z-, e7: internal } }\n"
	    "      - { ports: { e0: X+, e1: X-, e2: Y+, e3: internal } }\n");
	assert_int_equal(map_errors(&c, &nd, 0, msgs, sizeof(msgs)), 0);
	assert_int_equal(nd.node, 1 + 2 * 2 * 1);
	assert_int_equal(nd.card[0].card, nd.node * 2);
	assert_int_equal(nd.card[1].card, nd.node * 2 + 1);
	assert_string_equal(nd.card[0].port[0].ifname, "e0");
	assert_int_equal(nd.card[0].port[0].port, tt_port_of(0, 0));
	assert_int_equal(nd.card[1].port[3].port, TT_PORT_INT);
	cfg_free(&c);
}

static void
assert_refused(const char *cards, int live, const char *word)
{
	struct cfgfile c;
	struct ttd_node nd;
	char text[1024], msgs[2048] = "";

	snprintf(text, sizeof(text), TORUS_D "nodes:\n  - host: a\n"
	    "    coord: [0, 0, 0]\n    cards:\n%s", cards);
	cfg_from_text(&c, text);
	if (map_errors(&c, &nd, live, msgs, sizeof(msgs)) == 0)
		fail_msg("accepted, wanted \"%s\"", word);
	if (strstr(msgs, word) == NULL || strstr(msgs, c.path) == NULL)
		fail_msg("said \"%s\", wanted \"%s\" and the file", msgs, word);
	cfg_free(&c);
}

/* A host that would put the node's trace files outside trace.dir. */
static void
test_map_refuses_path_hosts(void **state)
{
	static const char *const hosts[] = {"../etc", "a/b", "..", "x..y"};
	struct cfgfile c;
	struct ttd_node nd;
	char text[1024], msgs[2048], want[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		snprintf(text, sizeof(text), TORUS_D "nodes:\n  - host: \"%s\"\n"
		    "    coord: [0, 0, 0]\n", hosts[i]);
		cfg_from_text(&c, text);
		msgs[0] = '\0';
		if (map_errors(&c, &nd, 0, msgs, sizeof(msgs)) == 0)
			fail_msg("host %s accepted", hosts[i]);
		snprintf(want, sizeof(want), "nodes[0]: host \"%s\"", hosts[i]);
		if (strstr(msgs, want) == NULL || strstr(msgs, c.path) == NULL)
			fail_msg("said \"%s\", wanted \"%s\"", msgs, want);
		cfg_free(&c);
	}
	/* dots inside a name are a name */
	cfg_from_text(&c, TORUS_D "nodes:\n  - host: n0.rack1.example\n"
	    "    coord: [0, 0, 0]\n");
	assert_int_equal(map_errors(&c, &nd, 0, msgs, sizeof(msgs)), 0);
	cfg_free(&c);
}

static void
test_map_refusals(void **state)
{
	(void)state;
	assert_refused(
	    "      - { ports: { e0: X+, e1: X-, e2: Y+, e3: internal } }\n"
	    "      - { ports: { e4: Y-, e5: Z+, e6: X+, e7: internal } }\n",
	    0, "port X+ is mapped twice");
	assert_refused(
	    "      - { ports: { e0: X+, e1: X-, e2: Y+ } }\n"
	    "      - { ports: { e4: Y-, e5: Z+, e6: Z-, e7: internal } }\n",
	    0, "no internal port");
	assert_refused(
	    "      - { ports: { e0: X+, e1: X-, e2: Y+, e3: internal } }\n"
	    "      - { ports: { e0: Y-, e5: Z+, e6: Z-, e7: internal } }\n",
	    0, "e0: interface listed twice");
	assert_refused(
	    "      - { ports: { e0: X+, e1: X-, e2: Z+, e3: internal } }\n"
	    "      - { ports: { e4: Y-, e5: Y+, e6: Z-, e7: internal } }\n",
	    0, "port Z+ belongs to card1 under configuration D");
	assert_refused(
	    "      - { ports: { e0: X+, e1: X-, e3: internal } }\n"
	    "      - { ports: { e4: Y-, e5: Z+, e6: Z-, e7: internal } }\n",
	    0, "missing Y+");
	assert_refused(
	    "      - { ports: { e0: X+, e1: X-, e2: Y+, e3: internal } }\n",
	    0, "1 card listed, a twin node has 2");
	/* live: an interface this machine does not have */
	assert_refused(
	    "      - { ports: { no-such-if0: X+, e1: X-, e2: Y+, e3: internal } }\n"
	    "      - { ports: { e4: Y-, e5: Z+, e6: Z-, e7: internal } }\n",
	    1, "no-such-if0: no such interface");
}

/* ---- discovery (hwloc XML files in tests/data/hwloc, see README) ---- */

#define HWLOC_DIR TT_SRCDIR "/tests/data/hwloc/"

static void
test_discover_real_machine(void **state)
{
	ttd_nic *nics;
	size_t n;
	int pick[2];
	char err[256];

	(void)state;
	assert_int_equal(ttd_discover(HWLOC_DIR "32em64t-2n8c2t-pci-wholeio.xml",
	    &nics, &n, err, sizeof(err)), 0);
	/* the I350 at 0000:81:00 (eth0, eth1) and the ConnectX-4's ib0,
	 * both below package 1's host bridge: NUMA node 1, CPUs 8-15,24-31 */
	assert_int_equal(n, 2);
	assert_string_equal(nics[1].pci, "0000:81:00");
	assert_int_equal(nics[1].nports, 2);
	assert_string_equal(nics[1].port[0].name, "eth0");
	assert_string_equal(nics[1].port[0].pci, "0000:81:00.0");
	assert_string_equal(nics[1].port[0].mac, "00:25:90:95:71:12");
	assert_string_equal(nics[1].port[1].name, "eth1");
	assert_int_equal(nics[1].port[1].link, -1);	/* unknown in XML */
	assert_int_equal(nics[1].numa, 1);
	assert_string_equal(nics[1].cpuset, "8-15,24-31");
	assert_string_equal(nics[0].port[0].name, "ib0");
	assert_string_equal(nics[0].port[0].mac, "");	/* not Ethernet */
	assert_int_equal(ttd_discover_pick(nics, n, pick, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "would use none"));
	ttd_discover_free(nics);
	assert_int_equal(ttd_discover("/nonexistent.xml", &nics, &n, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent.xml"));
}

/*
 * A machine without network cards (what hwloc sees in a network namespace
 * of veths): none found, no card picked, and nothing sorted that is not
 * there (the ASan/UBSan build of this test fails on qsort(NULL, 0)).
 */
static void
test_discover_no_card(void **state)
{
	ttd_nic *nics = NULL;
	size_t n = 99;
	int pick[2];
	char err[256];

	(void)state;
	assert_int_equal(ttd_discover(HWLOC_DIR "no-nic.xml", &nics, &n, err,
	    sizeof(err)), 0);
	assert_int_equal(n, 0);
	assert_int_equal(ttd_discover_pick(nics, n, pick, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "would use none"));
	ttd_discover_free(nics);
}

static void
test_discover_twin_and_auto_map(void **state)
{
	struct cfgfile c;
	struct ttd_node nd;
	ttd_nic *nics;
	size_t n;
	int pick[2];
	char err[256];

	(void)state;
	assert_int_equal(ttd_discover(HWLOC_DIR "twin-nic-2numa.xml", &nics,
	    &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_int_equal(ttd_discover_pick(nics, n, pick, err, sizeof(err)),
	    0);
	assert_string_equal(nics[pick[0]].pci, "0000:03:00");
	assert_string_equal(nics[pick[1]].pci, "0000:81:00");
	assert_int_equal(nics[pick[0]].numa, 0);
	assert_int_equal(nics[pick[1]].numa, 1);
	assert_string_equal(nics[pick[1]].cpuset, "4-7");
	ttd_discover_free(nics);

	/* no cards: in the file: ports in function order, D applied */
	cfg_from_text(&c, TORUS_D "nodes:\n  - host: a\n    coord: [0, 0, 0]\n");
	assert_int_equal(ttd_node_map(&nd, &c.cfg, &c.net, 0, 0, NULL, stderr),
	    0);		/* check: left for the node itself */
	assert_int_equal(ttd_node_map(&nd, &c.cfg, &c.net, 0, 1, HWLOC_DIR
	    "twin-nic-2numa.xml", stderr), 0);
	assert_int_equal(nd.card[0].nports, 4);
	assert_string_equal(nd.card[0].port[0].ifname, "ens1f0");
	assert_int_equal(nd.card[0].port[0].port, tt_port_of(0, 0));	/* X+ */
	assert_int_equal(nd.card[0].port[1].port, tt_port_of(0, 1));	/* X- */
	assert_int_equal(nd.card[0].port[2].port, tt_port_of(1, 0));	/* Y+ */
	assert_string_equal(nd.card[0].port[3].ifname, "ens1f3");
	assert_int_equal(nd.card[0].port[3].port, TT_PORT_INT);
	assert_string_equal(nd.card[1].port[0].ifname, "ens2f0");
	assert_int_equal(nd.card[1].port[0].port, tt_port_of(1, 1));	/* Y- */
	assert_int_equal(nd.card[1].port[3].port, TT_PORT_INT);
	/* a machine without two 4-port cards: refused, saying why */
	{
		char msgs[1024] = "";
		FILE *fp = fmemopen(msgs, sizeof(msgs), "w");

		assert_true(ttd_node_map(&nd, &c.cfg, &c.net, 0, 1, HWLOC_DIR
		    "32em64t-2n8c2t-pci-wholeio.xml", fp) > 0);
		fclose(fp);
		assert_non_null(strstr(msgs, "would use none"));
	}
	cfg_free(&c);
}

static void
test_node_find(void **state)
{
	struct cfgfile c;
	char err[256];
	size_t i = 99;

	(void)state;
	cfg_from_text(&c, TORUS_D "nodes:\n  - host: a\n    coord: [0, 0, 0]\n"
	    "  - host: b\n    coord: [1, 1, 0]\n");
	assert_int_equal(ttd_node_find(&c.cfg, &c.net, "b", &i, err,
	    sizeof(err)), 0);
	assert_int_equal(i, 1);
	assert_int_equal(ttd_node_find(&c.cfg, &c.net, "1,1,0", &i, err,
	    sizeof(err)), 0);
	assert_int_equal(i, 1);
	assert_int_equal(ttd_node_find(&c.cfg, &c.net, "1,1,1", &i, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "node 1,1,1 is not in nodes:"));
	cfg_free(&c);
}

/* ---- forwarding through a recorder ---- */

struct sent {
	int side, lport;
	uint8_t buf[TTD_FRAME_MAX];
	size_t len;
};

static struct rec {
	struct sent sent[64];
	int nsent;
	int busy;                 /* port_send says busy */
	int send_fails;           /* port_send says the port failed */
	int deliver_fails;        /* pe_deliver says the TAP refused it */
	uint64_t now;             /* the clock, ns */
	uint8_t pe[2][TTD_FRAME_MAX];
	size_t pe_len[2];
	int delivered[2];
	uint8_t trace[TTD_FRAME_MAX];
	size_t trace_len;
	int traced;
	uint64_t sum;             /* of every frame sent, in order */
	uint64_t nsum;            /* frames in it */
	int lent;                 /* frames built in a lent buffer */
	uint8_t lend[TTD_FRAME_MAX + 64];
} rec;

/* Every frame sent, in order, folded into rec.sum (FNV-1a). */
static void
rec_sum(int side, int lport, const uint8_t *buf, size_t len)
{
	uint64_t h = rec.sum ^ (uint64_t)(side * 64 + lport);
	size_t i;

	h *= 0x100000001b3ull;
	for (i = 0; i < len; i++)
		h = (h ^ buf[i]) * 0x100000001b3ull;
	rec.sum = h;
	rec.nsum++;
}

static int
rec_send(void *ctx, int side, int lport, const uint8_t *buf, size_t len)
{
	(void)ctx;
	if (rec.busy)
		return -1;
	if (rec.send_fails)
		return 1;
	if (rec.nsent == 64)
		rec.nsent = 0;		/* floods: keep the last ones */
	rec.sent[rec.nsent].side = side;
	rec.sent[rec.nsent].lport = lport;
	memcpy(rec.sent[rec.nsent].buf, buf, len);
	rec.sent[rec.nsent++].len = len;
	rec_sum(side, lport, buf, len);
	return 0;
}

/* A device that lends its send buffer (AF_XDP's way), unless busy. */
static uint8_t *
lend_buf(void *ctx, int side, int lport, size_t *cap)
{
	(void)ctx, (void)side, (void)lport;
	if (rec.busy || rec.send_fails)
		return NULL;
	memset(rec.lend, 0x5a, sizeof(rec.lend));
	*cap = sizeof(rec.lend);
	return rec.lend;
}

static void
lend_commit(void *ctx, int side, int lport, size_t len)
{
	rec.lent++;
	(void)rec_send(ctx, side, lport, rec.lend, len);
}

static void
lend_abort(void *ctx, int side, int lport)
{
	(void)ctx, (void)side, (void)lport;
}

static int
rec_deliver(void *ctx, int side, const uint8_t *buf, size_t len)
{
	(void)ctx;
	if (rec.deliver_fails)
		return -1;
	memcpy(rec.pe[side], buf, len);
	rec.pe_len[side] = len;
	rec.delivered[side]++;
	return 0;
}

static uint64_t
rec_now(void *ctx)
{
	(void)ctx;
	return rec.now;
}

static void
rec_trace(void *ctx, const uint8_t *buf, size_t len)
{
	(void)ctx;
	memcpy(rec.trace, buf, len);
	rec.trace_len = len;
	rec.traced++;
}

static const struct ttd_io rec_io = {
	.port_send = rec_send, .pe_deliver = rec_deliver,
	.trace_pe = rec_trace, .now_ns = rec_now
};

static const struct ttd_io lend_io = {
	.port_send = rec_send, .port_buf = lend_buf,
	.port_commit = lend_commit, .port_abort = lend_abort,
	.pe_deliver = rec_deliver, .trace_pe = rec_trace, .now_ns = rec_now
};

/* The fixtures' devices: rec_io, or lend_io where a test says so. */
static const struct ttd_io *fixture_io = &rec_io;

/* A frame received whole (its length on the wire is what was captured). */
static void
port_rx(struct ttd_fwd *f, int side, int lport, const uint8_t *buf,
    size_t len)
{
	ttd_fwd_port_rx(f, side, lport, buf, len, len);
}

/* A 4x4x4 D (vc) network and node (1,2,3) mapped port by port. */
struct fixture {
	struct cfgfile c;
	struct ttd_node nd;
	struct ttd_fwd f;
	struct ttd_fwd_opts o;
};

/* Both cards' counters, summed. */
static struct ttd_counters
cnt(const struct ttd_fwd *f)
{
	struct ttd_counters c;

	ttd_fwd_counters(f, &c);
	return c;
}

#define NEIGHBOUR_EPOCH	500	/* every neighbour's, in these tests */
#define BUF		18432	/* every buffer, in these tests */
/* The credit bytes of the tests' frames: 90 bytes on the wire (a 60-byte
 * PE frame and the torus headers), at least TTD_CREDIT_MIN. */
#define COST		(90 > TTD_CREDIT_MIN ? 90 : TTD_CREDIT_MIN)

/* The MAC addresses of the tests: our card side's port lport has
 * 02:aa:00:00:side:lport; the neighbour at its far end 02:bb:00:00:side:
 * lport, or on the internal link the other card's port. */
static void
port_mac(int side, int lport, uint8_t mac[6])
{
	memcpy(mac, "\x02\xaa\x00\x00", 4);
	mac[4] = (uint8_t)side;
	mac[5] = (uint8_t)lport;
}

static void
neighbour_mac(const struct fixture *x, int side, int lport, uint8_t mac[6])
{
	if (x->f.sw[side].fp[lport].port == TT_PORT_INT) {
		port_mac(1 - side, x->f.sw[1 - side].nports - 1, mac);
		return;
	}
	memcpy(mac, "\x02\xbb\x00\x00", 4);
	mac[4] = (uint8_t)side;
	mac[5] = (uint8_t)lport;
}

/* The card at the far end of card side's port lport, and its port. */
static uint32_t
neighbour_card(const struct fixture *x, int side, int lport, int *port)
{
	return tt_link_peer(&x->c.net, x->nd.card[side].card,
	    x->f.sw[side].fp[lport].port, port);
}

/* A hello as card `src` sends it from MAC address mac, naming node, card
 * and port (any values). */
static size_t
hello_from(uint8_t *buf, uint32_t node, int card, int port, uint32_t src,
    const uint8_t mac[6])
{
	uint8_t body[TT_HELLO_LEN];
	tt_hello h = {node, (uint8_t)card, (uint8_t)port, 0};
	tt_frame f;

	tt_hello_encode(&h, body);
	memset(&f, 0, sizeof(f));
	memset(f.dst_mac, 0xff, 6);
	memcpy(f.src_mac, mac, 6);
	f.version = TT_FRAME_VERSION;
	f.type = TT_FRAME_HELLO;
	f.dst = TT_PE_BROADCAST;
	f.src = src;
	f.payload = body;
	f.payload_len = sizeof(body);
	return tt_frame_encode(&f, buf, 64);
}

/* The hello the neighbour of card side's external port lport sends. */
static size_t
neighbour_hello(const struct fixture *x, int side, int lport, uint8_t *buf)
{
	uint8_t mac[6];
	uint32_t peer;
	int pp;

	peer = neighbour_card(x, side, lport, &pp);
	neighbour_mac(x, side, lport, mac);
	return hello_from(buf, tt_card_node(&x->c.net, peer),
	    tt_card_side(&x->c.net, peer), pp, peer, mac);
}

/*
 * The credit frame the neighbour on card side's port lport sends, as
 * frame.h prescribes it, into f and c (its body) for a test to change:
 * in the neighbour's epoch, naming ours, with `sent` per VC what it has
 * sent us (our count of it) and granting a whole buffer (BUF) more than
 * we have sent, numbered after the last one we took.
 */
static void
credit_fields(const struct fixture *x, int side, int lport, tt_frame *f,
    tt_credit *c)
{
	const struct ttd_fport *fp = &x->f.sw[side].fp[lport];
	int v, pp;

	memset(c, 0, sizeof(*c));
	c->epoch = NEIGHBOUR_EPOCH;
	c->peer_epoch = x->f.sw[side].epoch;
	c->nvcs = (uint8_t)fp->nvcs;
	c->least = (uint16_t)ttd_credit_least(BUF);
	for (v = 0; v < fp->nvcs; v++) {
		c->vc[v].sent = fp->in[v].abr;
		c->vc[v].limit = fp->oc[v].sent + BUF;
		c->vc[v].buffer = BUF;
	}
	memset(f, 0, sizeof(*f));
	memset(f->dst_mac, 0xff, 6);
	neighbour_mac(x, side, lport, f->src_mac);
	f->version = TT_FRAME_VERSION;
	f->type = TT_FRAME_CREDIT;
	f->dst = x->nd.card[side].card;
	f->src = neighbour_card(x, side, lport, &pp);
	f->seq = fp->cred_rx_seq + 1;
}

/* f with body c, encoded into buf. */
static size_t
credit_encode(tt_frame *f, const tt_credit *c, uint8_t *buf, size_t bufsz)
{
	static uint8_t body[TT_CREDIT_HLEN + TT_CREDIT_MAX_VCS *
	    TT_CREDIT_VC_LEN];

	f->payload = body;
	f->payload_len = tt_credit_encode(c, body, sizeof(body));
	return tt_frame_encode(f, buf, bufsz);
}

/*
 * The neighbour's credit frame on card side's port lport: in its epoch,
 * naming ours (or peer_epoch), with `sent` per VC what it has sent us (our
 * count of it unless sent is given) and granting limit per VC.
 */
static size_t
credit_frame(const struct fixture *x, int side, int lport, uint16_t epoch,
    uint16_t peer_epoch, const uint32_t *sent, const uint32_t *limit,
    uint32_t seq, uint8_t *buf, size_t bufsz)
{
	tt_credit c;
	tt_frame f;
	int v;

	credit_fields(x, side, lport, &f, &c);
	c.epoch = epoch;
	c.peer_epoch = peer_epoch;
	for (v = 0; v < c.nvcs; v++) {
		if (sent != NULL)
			c.vc[v].sent = sent[v];
		c.vc[v].limit = limit[v];
	}
	f.seq = seq;
	return credit_encode(&f, &c, buf, bufsz);
}

/* A neighbour that has room for a whole buffer more than we have sent:
 * its credit frame on card side's port lport. */
static void
grant_port(struct fixture *x, int side, int lport)
{
	uint8_t buf[512];
	tt_credit c;
	tt_frame f;
	size_t len;

	credit_fields(x, side, lport, &f, &c);
	len = credit_encode(&f, &c, buf, sizeof(buf));
	ttd_fwd_port_rx(&x->f, side, lport, buf, len, len);
}

/* Every port of both cards has a whole buffer of credit. */
static void
fixture_grant(struct fixture *x)
{
	int side, p;

	for (side = 0; side < 2; side++)
		for (p = 0; p < x->f.sw[side].nports; p++)
			grant_port(x, side, p);
}

/* Every external port hears its neighbour's hello: the neighbour its
 * credit frames are taken from. */
static void
fixture_hellos(struct fixture *x)
{
	uint8_t buf[64];
	int side, p;

	for (side = 0; side < 2; side++)
		for (p = 0; p < x->f.sw[side].nports; p++)
			if (x->f.sw[side].fp[p].port != TT_PORT_INT)
				port_rx(&x->f, side, p, buf,
				    neighbour_hello(x, side, p, buf));
}

/* The fixture with options o (NULL: lossless, every buffer BUF). */
static void
fixture_init_opts(struct fixture *x, const char *ports,
    const char *deadlock, const struct ttd_fwd_opts *opts)
{
	char text[1024], err[256], pn[16], card[2][256];
	size_t o[2] = {0, 0};
	int p, side;
	tt_net tmp;
	tt_netspec spec;

	/* each card's interfaces named after its ports */
	tt_netspec_default(&spec);
	spec.n = 3;
	spec.k[0] = spec.k[1] = spec.k[2] = 4;
	if (tt_netspec_set_ports(&spec, ports, err, sizeof(err)) < 0 ||
	    tt_net_init(&tmp, &spec, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	for (p = 0; p < 6; p++) {
		side = tmp.port_card[p];
		ttd_port_fname(p, 3, pn, sizeof(pn));
		o[side] += (size_t)snprintf(card[side] + o[side],
		    sizeof(card[side]) - o[side], "e%s: %s, ", pn,
		    tt_port_name(p, 3, err, sizeof(err)));
	}
	tt_net_free(&tmp);
	memset(&x->o, 0, sizeof(x->o));
	if (opts != NULL) {
		x->o = *opts;
	} else {
		x->o.vc_bytes = x->o.int_vc_bytes = x->o.pe_bytes = BUF;
		x->o.epoch = 100;
	}
	snprintf(text, sizeof(text), "torus: {dims: [4, 4, 4], ports: %s, "
	    "deadlock: %s}\nnodes:\n  - host: a\n    coord: [1, 2, 3]\n"
	    "    cards:\n      - { ports: { %si0: internal } }\n"
	    "      - { ports: { %si1: internal } }\n", ports, deadlock,
	    card[0], card[1]);
	cfg_from_text(&x->c, text);
	if (ttd_node_map(&x->nd, &x->c.cfg, &x->c.net, 0, 0, NULL, stderr) != 0)
		fail_msg("port map refused");
	if (ttd_fwd_init(&x->f, &x->nd, fixture_io, &x->o, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	for (side = 0; side < 2; side++)
		for (p = 0; p < x->f.sw[side].nports; p++) {
			x->f.sw[side].fp[p].link = 1;
			port_mac(side, p, x->f.sw[side].fp[p].mac);
		}
	memset(&rec, 0, sizeof(rec));
	fixture_hellos(x);
	fixture_grant(x);
	/* the tests count from here, and log from a fresh window */
	for (side = 0; side < 2; side++) {
		memset(&x->f.sw[side].cnt, 0, sizeof(x->f.sw[side].cnt));
		for (p = 0; p < x->f.sw[side].nports; p++)
			memset(&x->f.sw[side].fp[p].loglim, 0,
			    sizeof(x->f.sw[side].fp[p].loglim));
	}
}

static void
fixture_init(struct fixture *x, const char *ports, const char *deadlock)
{
	fixture_init_opts(x, ports, deadlock, NULL);
}

static void
fixture_free(struct fixture *x)
{
	ttd_fwd_free(&x->f);
	cfg_free(&x->c);
}

/* A PE's Ethernet frame to PE dst (IPv4 EtherType, 46-byte body). */
static size_t
pe_frame(uint8_t *buf, uint32_t src, uint32_t dst)
{
	memset(buf, 0xab, 60);
	ttd_pe_mac(dst, buf);
	ttd_pe_mac(src, buf + 6);
	buf[12] = 0x08;
	buf[13] = 0x00;
	return 60;
}

/* A torus data frame as a neighbour would send it. */
static size_t
torus_frame(uint8_t *buf, uint32_t src, uint32_t dst, int hops)
{
	uint8_t inner[60];
	tt_frame f;

	memset(&f, 0, sizeof(f));
	f.version = TT_FRAME_VERSION;
	f.src = src;
	f.dst = dst;
	f.hops = (uint8_t)hops;
	f.seq = 7;
	f.payload = inner;
	f.payload_len = pe_frame(inner, src, dst);
	return tt_frame_encode(&f, buf, TTD_FRAME_MAX);
}

/* A frame for PE dst into card side from input in (-1: its PE's TAP; a
 * port: as a neighbour sends it, two hops old), then the switches run. */
static void
inject(struct fixture *x, int side, int in, uint32_t dst)
{
	uint8_t buf[TTD_FRAME_MAX];

	if (in < 0)
		ttd_fwd_pe_rx(&x->f, side, buf, pe_frame(buf,
		    x->nd.card[side].card, dst));
	else
		port_rx(&x->f, side, in, buf, torus_frame(buf, 9, dst, 2));
	ttd_fwd_drain(&x->f, -1);
}

/*
 * For every destination PE, a frame from each local PE's TAP and a frame
 * arriving on each port leave on the port and VC tt_route() gives, with
 * the hop count raised by one; frames for a local PE are delivered.
 */
static void
check_every_route(const char *ports, const char *deadlock)
{
	struct fixture x;
	uint32_t dst;
	int side, lp, in;

	fixture_init(&x, ports, deadlock);
	for (side = 0; side < 2; side++) {
		uint32_t card = x.nd.card[side].card;

		for (in = -1; in < x.f.sw[side].nports; in++)
			for (dst = 0; dst < x.c.net.ncards; dst++) {
				int in_port = in < 0 ? TT_PORT_NIC :
				    x.f.sw[side].fp[in].port;
				tt_hop h = tt_route(&x.c.net, card, dst,
				    in_port);
				tt_frame got;
				char err[128];

				fixture_grant(&x);
				memset(&rec, 0, sizeof(rec));
				inject(&x, side, in, dst);
				if (h.port == TT_PORT_NIC) {
					assert_int_equal(rec.nsent, 0);
					assert_int_equal(rec.delivered[side], 1);
					continue;
				}
				assert_int_equal(rec.nsent, 1);
				assert_int_equal(rec.sent[0].side, side);
				lp = rec.sent[0].lport;
				assert_int_equal(x.f.sw[side].fp[lp].port, h.port);
				assert_int_equal(tt_frame_decode(&got,
				    rec.sent[0].buf, rec.sent[0].len, err,
				    sizeof(err)), 0);
				assert_int_equal(got.vc, h.vc);
				assert_int_equal(got.dst, dst);
				assert_int_equal(got.hops, in < 0 ? 1 : 3);
			}
	}
	fixture_free(&x);
}

static void
test_routes_equal_tt_route(void **state)
{
	(void)state;
	check_every_route("D", "vc");
	check_every_route("A", "vc");
	check_every_route("G", "bubble");
}

static void
test_injection_traced_and_delivery_flagged(void **state)
{
	struct fixture x;
	uint8_t buf[TTD_FRAME_MAX];
	uint32_t pe0, pe1;
	tt_frame got;
	char err[128];

	(void)state;
	fixture_init(&x, "D", "vc");
	pe0 = x.nd.card[0].card;
	pe1 = x.nd.card[1].card;
	/* PE0 to PE1: traced at injection (hops 0, seq 0), then out on the
	 * internal link */
	ttd_fwd_pe_rx(&x.f, 0, buf, pe_frame(buf, pe0, pe1));
	assert_int_equal(rec.traced, 1);
	assert_int_equal(tt_frame_decode(&got, rec.trace, rec.trace_len, err,
	    sizeof(err)), 0);
	assert_int_equal(got.src, pe0);
	assert_int_equal(got.dst, pe1);
	assert_int_equal(got.hops, 0);
	assert_int_equal(got.seq, 0);
	assert_int_equal(got.flags, 0);
	assert_int_equal(got.payload_len, 60);
	ttd_fwd_drain(&x.f, -1);
	assert_int_equal(rec.nsent, 1);
	assert_int_equal(x.f.sw[0].fp[rec.sent[0].lport].port, TT_PORT_INT);
	/* card1 receives it on its internal port: delivered to PE1 as the
	 * PE sent it, and recorded with the delivered flag */
	port_rx(&x.f, 1, x.f.sw[1].nports - 1, rec.sent[0].buf,
	    rec.sent[0].len);
	assert_int_equal(rec.delivered[1], 1);
	assert_int_equal(rec.pe_len[1], 60);
	assert_memory_equal(rec.pe[1], buf, 60);
	assert_int_equal(rec.traced, 2);
	assert_int_equal(tt_frame_decode(&got, rec.trace, rec.trace_len, err,
	    sizeof(err)), 0);
	assert_int_equal(got.flags, TT_FRAME_F_DELIVERED);
	assert_int_equal(got.hops, 1);
	assert_int_equal(cnt(&x.f).injected, 1);
	assert_int_equal(cnt(&x.f).forwarded, 1);
	assert_int_equal(cnt(&x.f).delivered, 1);
	/* the next message of PE0 has the next sequence number */
	ttd_fwd_pe_rx(&x.f, 0, buf, pe_frame(buf, pe0, pe1));
	tt_frame_decode(&got, rec.trace, rec.trace_len, err, sizeof(err));
	assert_int_equal(got.seq, 1);
	fixture_free(&x);
}

/* --pcp: data frames leave 802.1Q-tagged, priority = the hop's VC. */
static void
test_pcp_tags_data_frames(void **state)
{
	struct fixture x;
	uint8_t buf[TTD_FRAME_MAX];
	uint32_t dst, card;
	tt_frame got;
	char err[128];
	int tagged = 0;

	(void)state;
	fixture_init(&x, "D", "vc");
	x.f.o.vlan = 1;
	card = x.nd.card[0].card;
	for (dst = 0; dst < x.c.net.ncards; dst++) {
		tt_hop h = tt_route(&x.c.net, card, dst, TT_PORT_NIC);

		if (h.port == TT_PORT_NIC)
			continue;
		memset(&rec, 0, sizeof(rec));
		ttd_fwd_pe_rx(&x.f, 0, buf, pe_frame(buf, card, dst));
		assert_int_equal(rec.nsent, 1);
		assert_int_equal(tt_frame_decode(&got, rec.sent[0].buf,
		    rec.sent[0].len, err, sizeof(err)), 0);
		assert_true(got.tagged);
		assert_int_equal(got.tci >> 13, h.vc & 7);
		assert_int_equal(got.vc, h.vc);
		tagged++;
	}
	assert_true(tagged > 100);
	fixture_free(&x);
}

/* A torus data frame on VC vc, as a neighbour would send it. */
static size_t
torus_frame_vc(uint8_t *buf, uint32_t dst, int hops, int vc)
{
	size_t len = torus_frame(buf, 9, dst, hops);
	tt_frame f;
	char err[128];

	assert_int_equal(tt_frame_decode(&f, buf, len, err, sizeof(err)), 0);
	f.vc = (uint8_t)vc;
	return tt_frame_encode(&f, buf, TTD_FRAME_MAX);
}

/*
 * An output shared by several inputs takes a frame from each in turn,
 * and an input's VCs in turn (the model's two-stage round-robin): frames
 * queued behind a busy port from the PE and from every port whose route
 * to dst leaves by the same output, on two VCs where the port has them,
 * go out one input at a time; the hop count tells the input and VC.
 */
static void
test_output_round_robin(void **state)
{
	struct fixture x;
	uint8_t buf[TTD_FRAME_MAX];
	int ins[TT_MAX_EXT + 2], nvc[TT_MAX_EXT + 2], nin = 0, side = 0;
	int i, v, r, k, seen[64], total = 0;
	uint32_t card, dst;
	tt_hop pe_h;

	(void)state;
	fixture_init(&x, "D", "vc");
	card = x.nd.card[side].card;
	/* a destination some ports' frames share an output with the PE's */
	for (dst = 0; dst < x.c.net.ncards && nin < 3; dst++) {
		pe_h = tt_route(&x.c.net, card, dst, TT_PORT_NIC);
		if (pe_h.port == TT_PORT_NIC)
			continue;
		nin = 0;
		ins[nin] = -1;
		nvc[nin++] = 1;
		for (i = 0; i < x.f.sw[side].nports; i++) {
			tt_hop h = tt_route(&x.c.net, card, dst,
			    x.f.sw[side].fp[i].port);

			if (h.port == pe_h.port) {
				ins[nin] = i;
				nvc[nin++] = x.f.sw[side].fp[i].nvcs > 1 ? 2 : 1;
			}
		}
	}
	dst--;
	assert_true(nin >= 3);
	/* three frames on each (input, VC) behind a busy port */
	rec.busy = 1;
	for (r = 0; r < 3; r++)
		for (i = 0; i < nin; i++)
			for (v = 0; v < nvc[i]; v++) {
				/* hops 1 + 2i + v: input i, VC v */
				if (ins[i] < 0)
					ttd_fwd_pe_rx(&x.f, side, buf,
					    pe_frame(buf, card, dst));
				else
					port_rx(&x.f, side, ins[i], buf,
					    torus_frame_vc(buf, dst,
					    1 + 2 * i + v, v));
				total++;
			}
	assert_int_equal(ttd_fwd_queued(&x.f), total);
	rec.busy = 0;
	ttd_fwd_drain(&x.f, -1);
	assert_int_equal(rec.nsent, total);
	assert_int_equal(ttd_fwd_queued(&x.f), 0);
	/* in every turn over the inputs, each input with frames left once */
	memset(seen, 0, sizeof(seen));
	for (k = 0; k < total; k++) {
		tt_frame got;
		char err[128];
		int in, vc, left = 0;

		assert_int_equal(tt_frame_decode(&got, rec.sent[k].buf,
		    rec.sent[k].len, err, sizeof(err)), 0);
		/* the PE's go out with hops 1; a port's raised by one */
		in = got.hops == 1 ? 0 : (got.hops - 2) / 2;
		vc = got.hops == 1 ? 0 : (got.hops - 2) % 2;
		assert_true(in < nin && vc < nvc[in]);
		seen[2 * in + vc]++;
		/* round-robin: no input two frames ahead of another that
		 * still had frames, no VC ahead of its input's other VC */
		for (i = 0; i < nin; i++) {
			int a = seen[2 * i] + seen[2 * i + 1];
			int b = seen[2 * in] + seen[2 * in + 1];

			left = 3 * nvc[i] - a;
			if (left > 0)
				assert_true(b <= a + 1);
		}
		if (nvc[in] == 2 && seen[2 * in + 1 - vc] < 3)
			assert_true(seen[2 * in + vc] <=
			    seen[2 * in + 1 - vc] + 1);
	}
	fixture_free(&x);
}

/* What a run of frames left behind: what was sent, the counters, the
 * credit counts and the arbiters' turns. */
struct fwd_state {
	uint64_t sum, nsum;
	struct ttd_counters c;
	uint32_t sent[2][TT_MAX_EXT + 1][TT_MAX_VCS];
	uint32_t freed[2][TT_MAX_EXT + 2][TT_MAX_VCS];
	uint32_t abr[2][TT_MAX_EXT + 2][TT_MAX_VCS];
	uint8_t rr[2][TT_MAX_EXT + 2], rrv[2][TT_MAX_EXT + 2];
};

static void
fwd_traffic(const char *ports, struct fwd_state *st, int *lent)
{
	struct fixture x;
	uint8_t buf[TTD_FRAME_MAX];
	uint32_t dst;
	int side, in, v, i;

	fixture_init(&x, ports, "vc");
	for (side = 0; side < 2; side++) {
		uint32_t card = x.nd.card[side].card;

		/* every input to a spread of destinations */
		for (in = -1; in < x.f.sw[side].nports; in++)
			for (dst = side; dst < x.c.net.ncards; dst += 5) {
				inject(&x, side, in, dst);
			}
		/* frames behind a busy port, then let go */
		rec.busy = 1;
		for (i = 0; i < 6; i++) {
			ttd_fwd_pe_rx(&x.f, side, buf, pe_frame(buf, card,
			    (uint32_t)(7 * i + 3) % x.c.net.ncards));
			port_rx(&x.f, side, 0, buf, torus_frame(buf, 9,
			    (uint32_t)(11 * i + 1) % x.c.net.ncards, 2));
		}
		rec.busy = 0;
		ttd_fwd_drain(&x.f, -1);
	}
	memset(st, 0, sizeof(*st));
	st->sum = rec.sum;
	st->nsum = rec.nsum;
	ttd_fwd_counters(&x.f, &st->c);
	for (side = 0; side < 2; side++) {
		struct ttd_sw *sw = &x.f.sw[side];

		for (in = 0; in < sw->nports; in++)
			for (v = 0; v < sw->fp[in].nvcs; v++) {
				st->sent[side][in][v] = sw->fp[in].oc[v].sent;
				st->freed[side][in][v] = sw->fp[in].in[v].freed;
				st->abr[side][in][v] = sw->fp[in].in[v].abr;
			}
		st->freed[side][sw->nports][0] = sw->pe_in.freed;
		memcpy(st->rr[side], sw->rr, sizeof(sw->rr));
		memcpy(st->rrv[side], sw->rrv, sizeof(sw->rrv));
	}
	*lent = rec.lent;
	fixture_free(&x);
}

/*
 * A frame built straight into a device's lent send buffer (what AF_XDP
 * does when the frame can leave at once) leaves the same trace as one
 * stored and then sent: the same frames in the same order, counters,
 * credit counts and arbiter turns, on a network of one VC and one of
 * two; and the lent buffer was used (else this would prove nothing).
 */
static void
test_direct_send_same_as_stored(void **state)
{
	static const char *nets[] = {"D", "A"};
	struct fwd_state a, b;
	int k, lent_a, lent_b;

	(void)state;
	for (k = 0; k < 2; k++) {
		fixture_io = &rec_io;
		fwd_traffic(nets[k], &a, &lent_a);
		fixture_io = &lend_io;
		fwd_traffic(nets[k], &b, &lent_b);
		fixture_io = &rec_io;
		assert_int_equal(lent_a, 0);
		assert_true(lent_b > 50);
		assert_true(a.nsum > (uint64_t)lent_b);
		assert_int_equal(a.nsum, b.nsum);
		assert_int_equal(a.sum, b.sum);
		assert_memory_equal(&a, &b, sizeof(a));
	}
}

static void
test_drops(void **state)
{
	struct fixture x;
	uint8_t buf[TTD_FRAME_MAX];
	uint32_t far = 0, pe0;
	int i;

	(void)state;
	fixture_init(&x, "D", "vc");
	pe0 = x.nd.card[0].card;
	/* a loop: the hop limit */
	port_rx(&x.f, 0, 0, buf, torus_frame(buf, 3, far,
	    TTD_HOP_LIMIT));
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_HOP_LIMIT], 1);
	/* a PE id outside the torus */
	port_rx(&x.f, 0, 0, buf, torus_frame(buf, 3, 128, 1));
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_NO_ROUTE], 1);
	/* neither is a frame a ttd sends on: not in the count of bytes
	 * received that credits grant from (one injected onto the link would
	 * make this card grant more than its buffer); a frame that is one
	 * is (below) */
	assert_int_equal(x.f.sw[0].fp[0].in[0].abr, 0);
	/* garbage with the torus EtherType */
	memset(buf, 0, 20);
	buf[12] = 0x88;
	buf[13] = 0xb5;
	port_rx(&x.f, 0, 0, buf, 20);
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_BAD_FRAME], 1);
	/* from a TAP, a broadcast that is not ARP */
	pe_frame(buf, pe0, 5);
	memset(buf, 0xff, 6);
	ttd_fwd_pe_rx(&x.f, 0, buf, 60);
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_NOT_FOR_PE], 1);
	/* a busy port: frames wait in the PE's buffer, nothing is dropped,
	 * and they go once the port takes frames again */
	rec.busy = 1;
	for (i = 0; i < 5; i++) {
		ttd_fwd_pe_rx(&x.f, 0, buf, pe_frame(buf, pe0, 0));
		ttd_fwd_drain(&x.f, -1);
	}
	assert_int_equal(ttd_fwd_queued(&x.f), 5);
	assert_true(ttd_fwd_busy(&x.f, 0));
	rec.busy = 0;
	ttd_fwd_drain(&x.f, -1);
	assert_int_equal(rec.nsent, 5);
	assert_int_equal(ttd_fwd_queued(&x.f), 0);
	/* a port whose link is down */
	ttd_fwd_link(&x.f, 0, rec.sent[0].lport, 0);
	ttd_fwd_pe_rx(&x.f, 0, buf, pe_frame(buf, pe0, 0));
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_LINK_DOWN], 1);
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_QUEUE_FULL], 0);
	port_rx(&x.f, 0, 0, buf, torus_frame(buf, 3, far, 1));
	assert_int_not_equal(x.f.sw[0].fp[0].in[0].abr, 0);
	fixture_free(&x);
}

static void
test_arp_answered_for_pes(void **state)
{
	static const uint8_t asker[6] = {0x02, 0x74, 0x74, 0, 0, 0x33};
	struct fixture x;
	uint8_t req[42], want[6];

	(void)state;
	fixture_init(&x, "D", "vc");
	memset(req, 0xff, 6);
	memcpy(req + 6, asker, 6);
	req[12] = 0x08, req[13] = 0x06;
	memcpy(req + 14, "\x00\x01\x08\x00\x06\x04\x00\x01", 8);
	memcpy(req + 22, asker, 6);
	memcpy(req + 28, "\x0a\x58\x00\x34", 4);	/* 10.88.0.52 */
	memset(req + 32, 0, 6);
	memcpy(req + 38, "\x0a\x58\x00\x06", 4);	/* 10.88.0.6: PE 5 */
	ttd_fwd_pe_rx(&x.f, 0, req, sizeof(req));
	assert_int_equal(cnt(&x.f).arp, 1);
	assert_int_equal(rec.pe_len[0], 42);
	ttd_pe_mac(5, want);
	assert_memory_equal(rec.pe[0], asker, 6);
	assert_memory_equal(rec.pe[0] + 6, want, 6);
	assert_int_equal(rec.pe[0][21], 2);			/* reply */
	assert_memory_equal(rec.pe[0] + 22, want, 6);		/* sha */
	assert_memory_equal(rec.pe[0] + 28, "\x0a\x58\x00\x06", 4);
	assert_memory_equal(rec.pe[0] + 32, asker, 6);		/* tha */
	assert_memory_equal(rec.pe[0] + 38, "\x0a\x58\x00\x34", 4);
	assert_int_equal(rec.nsent, 0);		/* nothing crossed the torus */
	/* outside the PEs: no answer */
	memcpy(req + 38, "\x0a\x58\x01\x00", 4);	/* 10.88.1.0: PE 255 */
	ttd_fwd_pe_rx(&x.f, 0, req, sizeof(req));
	assert_int_equal(cnt(&x.f).arp, 1);
	fixture_free(&x);
}

/* A hello as sent by card `card` of node `node` on port `port`. */
static size_t
hello_frame(uint8_t *buf, uint32_t node, int card, int port)
{
	uint8_t body[TT_HELLO_LEN];
	tt_hello h = {node, (uint8_t)card, (uint8_t)port, 0};
	tt_frame f;

	tt_hello_encode(&h, body);
	memset(&f, 0, sizeof(f));
	f.version = TT_FRAME_VERSION;
	f.type = TT_FRAME_HELLO;
	f.dst = TT_PE_BROADCAST;
	f.payload = body;
	f.payload_len = sizeof(body);
	return tt_frame_encode(&f, buf, 64);
}

static void
test_hello_and_cabling(void **state)
{
	struct fixture x;
	uint8_t buf[64];
	uint32_t peer;
	int lp, peer_port, s;
	tt_hello h;
	tt_frame f;
	char err[64];

	(void)state;
	fixture_init(&x, "D", "vc");
	/* our hellos: one per external port, saying who sends them */
	ttd_fwd_hello(&x.f, -1);
	assert_int_equal(rec.nsent, 6);
	for (lp = 0; lp < rec.nsent; lp++) {
		s = rec.sent[lp].side;
		assert_int_equal(tt_frame_decode(&f, rec.sent[lp].buf,
		    rec.sent[lp].len, err, sizeof(err)), 0);
		assert_int_equal(f.type, TT_FRAME_HELLO);
		assert_int_equal(tt_hello_decode(&h, f.payload, f.payload_len,
		    err, sizeof(err)), 0);
		assert_int_equal(h.node, x.nd.node);
		assert_int_equal(h.card, s);
		assert_int_equal(h.port, x.f.sw[s].fp[rec.sent[lp].lport].port);
	}
	/* card0's X+ (local port 0) hears its +X neighbour's X-: ok */
	assert_int_equal(x.f.sw[0].fp[0].port, tt_port_of(0, 0));
	peer = tt_link_peer(&x.c.net, x.nd.card[0].card, tt_port_of(0, 0),
	    &peer_port);
	port_rx(&x.f, 0, 0, buf, hello_frame(buf, tt_card_node(
	    &x.c.net, peer), tt_card_side(&x.c.net, peer), peer_port));
	assert_int_equal(x.f.sw[0].fp[0].cabling, TTD_CABLING_OK);
	/* the right node and card, but its Y+ port: a wrong cable */
	port_rx(&x.f, 0, 0, buf, hello_frame(buf, tt_card_node(
	    &x.c.net, peer), tt_card_side(&x.c.net, peer), tt_port_of(1, 0)));
	assert_int_equal(x.f.sw[0].fp[0].cabling, TTD_CABLING_WRONG);
	/* the same neighbour's Y- instead: a wrong cable */
	port_rx(&x.f, 0, 0, buf, hello_frame(buf, tt_card_node(
	    &x.c.net, peer), 1, tt_port_of(1, 1)));
	assert_int_equal(x.f.sw[0].fp[0].cabling, TTD_CABLING_WRONG);
	/* another node altogether: wrong */
	port_rx(&x.f, 0, 0, buf, hello_frame(buf, 0, 1, peer_port));
	assert_int_equal(x.f.sw[0].fp[0].cabling, TTD_CABLING_WRONG);
	/* a link that goes down forgets what it heard */
	ttd_fwd_link(&x.f, 0, 0, 0);
	assert_int_equal(x.f.sw[0].fp[0].cabling, TTD_CABLING_UNKNOWN);
	fixture_free(&x);
}

/*
 * The balance every frame taken in must keep, computed here from the
 * counters and the queues themselves (not from ttd_fwd_accounted()).
 */
static void
assert_balance(const struct ttd_fwd *f)
{
	const struct ttd_counters c = cnt(f);
	uint64_t sum = c.forwarded + c.delivered + c.hellos + c.arp +
	    c.credits;
	int s, i, v, d;

	for (d = 0; d < TTD_DROP_N; d++)
		sum += c.dropped[d];
	for (s = 0; s < f->nd->ncards; s++) {
		sum += f->sw[s].pe_in.qn;
		for (i = 0; i < f->sw[s].nports; i++)
			for (v = 0; v < f->sw[s].fp[i].nvcs; v++)
				sum += f->sw[s].fp[i].in[v].qn;
	}
	if (c.received != sum)
		fail_msg("received %llu, accounted for %llu",
		    (unsigned long long)c.received, (unsigned long long)sum);
	assert_int_equal(ttd_fwd_accounted(f), sum);
}

/* A frame of another EtherType (IPv4), len bytes. */
static size_t
ipv4_frame(uint8_t *buf, size_t len)
{
	memset(buf, 0x11, len);
	buf[12] = 0x08;
	buf[13] = 0x00;
	return len;
}

static size_t hello_frame(uint8_t *buf, uint32_t node, int card, int port);

/*
 * A mixed flood: data for the local PE and for far PEs, a busy and a
 * failing port, hellos good and bad (on an external and on the internal
 * port), other EtherTypes, malformed and too long frames, and from the
 * TAP data, ARP, broadcasts and frames too long.  After each, every frame
 * received is forwarded, delivered, consumed, dropped for one reason or
 * still queued.
 */
static void
test_counters_balance(void **state)
{
	struct fixture x;
	uint8_t buf[TTD_FRAME_MAX + 1];
	uint32_t pe0, pe1, far = 0;
	int i, lint;

	(void)state;
	fixture_init(&x, "D", "vc");
	pe0 = x.nd.card[0].card;
	pe1 = x.nd.card[1].card;
	lint = x.f.sw[0].nports - 1;
	/* data: for the local PE, for a far PE */
	port_rx(&x.f, 0, 0, buf, torus_frame(buf, 9, pe0, 2));
	port_rx(&x.f, 0, 0, buf, torus_frame(buf, 9, far, 2));
	assert_int_equal(cnt(&x.f).delivered, 1);
	assert_int_equal(cnt(&x.f).forwarded, 1);
	assert_balance(&x.f);
	/* a busy port: the frames wait; then the port fails them */
	rec.busy = 1;
	port_rx(&x.f, 0, 0, buf, torus_frame(buf, 9, far, 2));
	port_rx(&x.f, 0, 0, buf, torus_frame(buf, 9, far, 2));
	assert_int_equal(ttd_fwd_queued(&x.f), 2);
	assert_balance(&x.f);
	rec.busy = 0;
	rec.send_fails = 1;
	ttd_fwd_drain(&x.f, -1);
	rec.send_fails = 0;
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_SEND_FAILED], 2);
	assert_int_equal(cnt(&x.f).forwarded, 1);	/* a failed send is not */
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_LINK_DOWN], 0);
	assert_balance(&x.f);
	/* hellos: on an external port, on the internal one, naming a port
	 * a 3D torus does not have, and one cut short */
	port_rx(&x.f, 0, 0, buf, hello_frame(buf, 1, 0, tt_port_of(0, 1)));
	port_rx(&x.f, 0, lint, buf, hello_frame(buf, x.nd.node, 1,
	    tt_port_of(1, 1)));
	port_rx(&x.f, 0, 0, buf, hello_frame(buf, 1, 0, 7));
	assert_int_equal(cnt(&x.f).hellos, 2);
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_BAD_HELLO], 1);
	port_rx(&x.f, 0, 0, buf, hello_frame(buf, 1, 0, 1) - 4);
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_BAD_FRAME], 1);
	assert_balance(&x.f);
	/* another EtherType, garbage with ours, a frame the capture cut */
	port_rx(&x.f, 0, 1, buf, ipv4_frame(buf, 60));
	memset(buf, 0, 20);
	buf[12] = 0x88;
	buf[13] = 0xb5;
	port_rx(&x.f, 0, 1, buf, 20);
	ttd_fwd_port_rx(&x.f, 0, 1, buf, torus_frame(buf, 9, pe0, 2), 9300);
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_NOT_TORUS], 1);
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_BAD_FRAME], 2);
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_TOO_LONG], 1);
	assert_balance(&x.f);
	/* from the TAP: data to PE1 (over the internal link), ARP asked by
	 * a PE that then cannot take the answer, a broadcast */
	ttd_fwd_pe_rx(&x.f, 0, buf, pe_frame(buf, pe0, pe1));
	assert_int_equal(cnt(&x.f).injected, 1);
	memset(buf, 0xff, 6);
	ttd_fwd_pe_rx(&x.f, 0, buf, 60);
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_NOT_FOR_PE], 1);
	rec.deliver_fails = 1;
	port_rx(&x.f, 1, 0, buf, torus_frame(buf, 9, pe1, 3));
	rec.deliver_fails = 0;
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_DELIVER_FAILED], 1);
	assert_balance(&x.f);
	/* hop limit, a PE outside the torus, a port whose link is down */
	port_rx(&x.f, 0, 0, buf, torus_frame(buf, 3, far, TTD_HOP_LIMIT));
	port_rx(&x.f, 0, 0, buf, torus_frame(buf, 3, 128, 1));
	ttd_fwd_link(&x.f, 0, 0, 0);
	for (i = 0; i < 20; i++)
		ttd_fwd_pe_rx(&x.f, 0, buf, pe_frame(buf, pe0, i));
	assert_true(cnt(&x.f).dropped[TTD_DROP_LINK_DOWN] > 0);
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_HOP_LIMIT], 1);
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_NO_ROUTE], 1);
	assert_balance(&x.f);
	/* a neighbour sending past its credits: what its buffer (BUF bytes,
	 * COST a frame) cannot hold is dropped as no_buffer */
	rec.busy = 1;
	for (i = 0; i < 210; i++)
		port_rx(&x.f, 0, 1, buf, torus_frame(buf, 9, pe1, 1));
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_NO_BUFFER],
	    210 - BUF / COST);
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_QUEUE_FULL], 0);
	assert_balance(&x.f);
	rec.busy = 0;
	ttd_fwd_drain(&x.f, -1);
	assert_balance(&x.f);
	/* what the internal link's credits did not cover goes when card 1
	 * gives them back */
	fixture_grant(&x);
	assert_int_equal(ttd_fwd_queued(&x.f), 0);
	assert_balance(&x.f);
	fixture_free(&x);
}

/* Frames longer than a port's snap length or a TAP's read: dropped and
 * counted, never forwarded or delivered as if whole. */
static void
test_too_long_dropped(void **state)
{
	struct fixture x;
	uint8_t buf[TTD_FRAME_MAX + 1];
	uint32_t pe0;
	size_t len;

	(void)state;
	fixture_init(&x, "D", "vc");
	pe0 = x.nd.card[0].card;
	/* a frame for the local PE, 9,300 bytes on the wire, cut at 9,216 */
	len = torus_frame(buf, 9, pe0, 2);
	ttd_fwd_port_rx(&x.f, 0, 0, buf, len, 9300);
	/* and one for a far PE */
	len = torus_frame(buf, 9, 0, 2);
	ttd_fwd_port_rx(&x.f, 0, 0, buf, len, 9300);
	assert_int_equal(rec.delivered[0], 0);
	assert_int_equal(rec.nsent, 0);
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_TOO_LONG], 2);
	/* from a TAP: longer than a frame may be (the read's extra byte) */
	pe_frame(buf, pe0, 0);
	ttd_fwd_pe_rx(&x.f, 0, buf, TTD_FRAME_MAX + 1);
	/* at the limit: no room left for the torus header */
	ttd_fwd_pe_rx(&x.f, 0, buf, TTD_FRAME_MAX);
	assert_int_equal(rec.nsent, 0);
	assert_int_equal(rec.traced, 0);
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_TOO_LONG], 4);
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_NOT_FOR_PE], 0);
	fixture_free(&x);
}

/* A hello naming a node, card or port the torus does not have. */
static void
test_hello_bad_port_refused(void **state)
{
	struct fixture x;
	uint8_t buf[64];

	(void)state;
	fixture_init(&x, "D", "vc");
	/* port 6 is d3+: a 3D torus has ports 0..5 */
	port_rx(&x.f, 0, 0, buf, hello_frame(buf, 1, 0, 6));
	/* X+ is card0's port under D: card 1 has none */
	port_rx(&x.f, 0, 0, buf, hello_frame(buf, 1, 1, tt_port_of(0, 0)));
	/* node 64 of 64 */
	port_rx(&x.f, 0, 0, buf, hello_frame(buf, 64, 0, tt_port_of(0, 1)));
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_BAD_HELLO], 3);
	assert_int_equal(cnt(&x.f).hellos, 0);
	/* the verdict stays what the neighbour's own hello made it */
	assert_int_equal(x.f.sw[0].fp[0].cabling, TTD_CABLING_OK);
	fixture_free(&x);
}

static int
count_lines(const char *text, const char *word)
{
	const char *p;
	int n = 0;

	for (p = text; (p = strstr(p, word)) != NULL; p += strlen(word))
		n++;
	return n;
}

/* A flapping (or spoofed) neighbour: a few lines per port, then one that
 * says how many were held back. */
static void
test_hello_log_rate_limited(void **state)
{
	struct fixture x;
	uint8_t a[64], b[64];
	size_t alen, blen, loglen = 0;
	char *log = NULL, want[64];
	FILE *fp;
	int i;

	(void)state;
	fixture_init(&x, "D", "vc");
	fp = open_memstream(&log, &loglen);
	assert_non_null(fp);
	ttd_log_file = fp;
	ttd_log_level = TTD_LOG_NOTICE;
	rec.now = 5000000000ull;
	alen = hello_frame(a, 1, 0, tt_port_of(0, 1));
	blen = hello_frame(b, 2, 0, tt_port_of(0, 1));
	for (i = 0; i < 1000; i++) {
		port_rx(&x.f, 0, 0, i & 1 ? b : a, i & 1 ? blen : alen);
		rec.now += 1000;	/* 1 us apart */
	}
	fflush(fp);
	assert_int_equal(count_lines(log, "cabling: "), TTD_LOG_BURST);
	/* the window ends: the next second's timer says what was held */
	rec.now += TTD_LOG_WINDOW_NS;
	ttd_fwd_hello(&x.f, -1);
	fflush(fp);
	snprintf(want, sizeof(want), "%d more lines about its hellos "
	    "suppressed", 1000 - TTD_LOG_BURST);
	assert_non_null(strstr(log, want));
	assert_int_equal(count_lines(log, "cabling: "), TTD_LOG_BURST + 1);
	ttd_log_file = NULL;
	ttd_log_level = TTD_LOG_ERR;
	fclose(fp);
	free(log);
	fixture_free(&x);
}

/* ---- credits: lossless flow control between two cards ---- */

/*
 * The internal link as a cable: what a card's internal port sends waits
 * on the wire (in order) until wire_carry() hands it to the other card's
 * internal port; what other ports send goes to the recorder.  A test
 * drops frames on the wire to lose them.
 */
#define WIRE_MAX	4096

static struct wire {
	uint8_t buf[2][WIRE_MAX][160];
	size_t len[2][WIRE_MAX];
	int n[2];
	int lint[2];		/* each card's internal port */
	int per_card;		/* rounds as a thread per card runs them */
	int credits[2];		/* credit frames carried from each card */
} wire;

static int
wire_send(void *ctx, int side, int lport, const uint8_t *buf, size_t len)
{
	if (lport != wire.lint[side])
		return rec_send(ctx, side, lport, buf, len);
	if (rec.busy)
		return -1;
	assert_true(wire.n[side] < WIRE_MAX && len <= sizeof(wire.buf[0][0]));
	memcpy(wire.buf[side][wire.n[side]], buf, len);
	wire.len[side][wire.n[side]++] = len;
	return 0;
}

static const struct ttd_io wire_io = {
	.port_send = wire_send, .pe_deliver = rec_deliver,
	.trace_pe = rec_trace, .now_ns = rec_now
};

/* The type of the frame on the wire. */
static int
wire_type(const uint8_t *buf, size_t len)
{
	tt_frame f;
	char err[64];

	assert_int_equal(tt_frame_decode(&f, buf, len, err, sizeof(err)), 0);
	return f.type;
}

/* Hand what card side sent on the internal link to the other card; the
 * frames of type lose_type (-1: none) are lost instead.  How many went. */
static int
wire_carry_side(struct fixture *x, int side, int lose_type)
{
	int i, n = wire.n[side];

	wire.n[side] = 0;
	for (i = 0; i < n; i++) {
		int type = wire_type(wire.buf[side][i], wire.len[side][i]);

		wire.credits[side] += type == TT_FRAME_CREDIT;
		if (type == lose_type)
			continue;
		ttd_fwd_port_rx(&x->f, 1 - side, wire.lint[1 - side],
		    wire.buf[side][i], wire.len[side][i], wire.len[side][i]);
	}
	return n;
}

/* A round of both cards at time rec.now (in one loop, or one card's
 * after the other's as two threads would), then the wire both ways. */
static int
wire_round(struct fixture *x, int lose_type)
{
	int s;

	for (s = wire.per_card ? 0 : -1; s < (wire.per_card ? 2 : 0); s++) {
		ttd_fwd_drain(&x->f, s);
		ttd_credit_round(&x->f, s, rec.now);
	}
	return wire_carry_side(x, 0, lose_type) +
	    wire_carry_side(x, 1, lose_type);
}

/* Rounds until the wire stays empty (at most 50). */
static void
wire_settle(struct fixture *x)
{
	int i;

	for (i = 0; i < 50 && wire_round(x, -1) > 0; i++)
		rec.now += 1000;
	assert_true(i < 50);
}

/* A fixture whose internal link is the wire, settled: each card granted
 * the other's credits. */
static void
wire_fixture(struct fixture *x)
{
	fixture_init(x, "D", "vc");
	x->f.io = wire_io;
	memset(&wire, 0, sizeof(wire));
	wire.lint[0] = x->f.sw[0].nports - 1;
	wire.lint[1] = x->f.sw[1].nports - 1;
	assert_int_equal(x->f.sw[0].fp[wire.lint[0]].port, TT_PORT_INT);
	rec.now = 1000000000;
	wire_settle(x);
}

/* Both internal ports hold a whole buffer of credit on every VC, and
 * nothing waits: no capacity was lost. */
static void
assert_credits_whole(const struct fixture *x)
{
	int side, v;

	for (side = 0; side < 2; side++) {
		const struct ttd_fport *fp = &x->f.sw[side].fp[wire.lint[side]];

		assert_true(fp->granted);
		for (v = 0; v < fp->nvcs; v++) {
			if (ttd_credit_available(fp, v) != BUF)
				fail_msg("card %d VC %d: %lld bytes of credit, "
				    "not %d", side, v, (long long)
				    ttd_credit_available(fp, v), BUF);
			assert_int_equal(fp->in[v].used, 0);
		}
	}
	assert_int_equal(ttd_fwd_queued(&x->f), 0);
}

/* Data frames lost on the wire, nothing else sent: two credit syncs
 * later their bytes are back, nothing was delivered, and the counters
 * balance. */
static void
assert_lost_given_back(struct fixture *x)
{
	rec.now += TTD_CREDIT_SYNC_NS;
	wire_settle(x);
	rec.now += TTD_CREDIT_SYNC_NS;
	wire_settle(x);
	assert_int_equal(rec.delivered[1], 0);
	assert_credits_whole(x);
	assert_balance(&x->f);
}

/* PE0 sends n frames to PE1 (over the internal link), each read only
 * while the TAP may be read; how many were read. */
static int
pe0_sends(struct fixture *x, int n)
{
	uint8_t buf[64];
	int i;

	for (i = 0; i < n && ttd_fwd_pe_room(&x->f, 0); i++)
		ttd_fwd_pe_rx(&x->f, 0, buf, pe_frame(buf, x->nd.card[0].card,
		    x->nd.card[1].card));
	return i;
}

/*
 * No credit: held; credit back: sent.  A frame of PE0 for PE1 costs COST
 * bytes of a BUF-byte buffer, so BUF / COST cross before card 1 gives
 * credit back; the rest wait in PE0's buffer, and once that could not
 * take the longest frame ttd stops reading the TAP (nothing is dropped).  Carrying the wire both ways
 * delivers every frame and gives every byte of credit back.
 */
static void
test_credit_held_then_sent(void **state)
{
	struct fixture x;
	int read, v, vc = -1, i;
	const struct ttd_fport *fp;

	(void)state;
	wire_fixture(&x);
	assert_credits_whole(&x);
	fp = &x.f.sw[0].fp[wire.lint[0]];
	read = pe0_sends(&x, 1000);
	/* the PE buffer takes frames while it has room for the longest:
	 * then the TAP is not read */
	assert_int_equal(read, BUF / COST + (BUF - TTD_FRAME_MAX) / COST + 1);
	assert_false(ttd_fwd_pe_room(&x.f, 0));
	assert_int_equal(wire.n[0], BUF / COST);
	for (v = 0; v < fp->nvcs; v++)
		if (fp->oc[v].sent > 0)
			vc = v;
	assert_true(vc >= 0);
	assert_true(ttd_credit_available(fp, vc) < COST);
	assert_int_equal(ttd_fwd_queued(&x.f), read - BUF / COST);
	ttd_fwd_drain(&x.f, -1);
	assert_int_equal(wire.n[0], BUF / COST);	/* still held */
	/* card 1 takes them and gives the credit back */
	for (i = 0; i < 50 && (wire.n[0] > 0 || wire.n[1] > 0 ||
	    ttd_fwd_queued(&x.f) > 0); i++) {
		wire_round(&x, -1);
		rec.now += 1000;
	}
	assert_int_equal(rec.delivered[1], read);
	assert_int_equal(cnt(&x.f).delivered, read);
	assert_true(ttd_fwd_pe_room(&x.f, 0));
	wire_settle(&x);
	assert_credits_whole(&x);
	for (v = 0; v < TTD_DROP_N; v++)
		assert_int_equal(cnt(&x.f).dropped[v], 0);
	assert_balance(&x.f);
	fixture_free(&x);
}

/*
 * A lost credit frame (a thread per card: the internal link's credit
 * travels in frames): card 0 waits for credit card 1 has sent; card 1's
 * next credit frame (the periodic one at the latest) carries the whole
 * state, and card 0 goes on.  A lost data frame: card 1 never holds its
 * bytes; card 0's next credit frame says what it had sent, and card 1
 * gives those bytes back.  No capacity is lost either way.
 */
static void
test_credit_lost_frames_recovered(void **state)
{
	struct fixture x;
	const struct ttd_fport *fp;
	int read, i;

	(void)state;
	wire_fixture(&x);
	wire.per_card = 1;
	fp = &x.f.sw[0].fp[wire.lint[0]];
	read = pe0_sends(&x, 1000);
	/* the data to card 1; card 1's credit frames lost on the way */
	wire_round(&x, TT_FRAME_CREDIT);
	wire_round(&x, TT_FRAME_CREDIT);
	assert_true(x.f.sw[1].fp[wire.lint[1]].cred_seq > 0);
	assert_true(ttd_fwd_queued(&x.f) > 0);	/* card 0 still waits */
	assert_int_equal(wire.n[0], 0);
	/* nothing freed since: only the periodic frame comes */
	rec.now += TTD_CREDIT_SYNC_NS;
	for (i = 0; i < 50 && (ttd_fwd_queued(&x.f) > 0 || wire.n[0] > 0 ||
	    wire.n[1] > 0); i++) {
		wire_round(&x, -1);
		rec.now += TTD_CREDIT_SYNC_NS;
	}
	assert_int_equal(rec.delivered[1], read);
	assert_true(fp->cred_lost > 0);		/* the gap was seen */
	wire_settle(&x);
	assert_credits_whole(&x);
	/* now data frames lost on the wire: 10 of them */
	memset(&rec, 0, sizeof(rec));
	rec.now = 5000000000ull;
	pe0_sends(&x, 10);
	assert_int_equal(wire.n[0], 10);
	wire.n[0] = 0;
	assert_lost_given_back(&x);
	fixture_free(&x);
}

/*
 * One loop running both cards: once the first exchange of frames is done,
 * the internal link's credit goes from switch to switch in memory, and
 * frames carry it only every TTD_CREDIT_SYNC_NS, when they give back the
 * bytes of data frames lost on the link.  With the same rounds as a
 * thread per card, every round that freed space sends a frame.
 */
static void
test_credit_internal_in_memory(void **state)
{
	struct fixture x;
	const struct ttd_fport *fp;
	int read, per_card, frames, held, i, v;
	uint64_t now;

	(void)state;
	for (per_card = 0; per_card < 2; per_card++) {
		wire_fixture(&x);
		wire.per_card = per_card;
		read = pe0_sends(&x, 1000);
		assert_true(ttd_fwd_queued(&x.f) > 0);
		frames = wire.credits[1];
		for (i = 0; i < 50 && (wire.n[0] > 0 || wire.n[1] > 0 ||
		    ttd_fwd_queued(&x.f) > 0); i++) {
			wire_round(&x, -1);
			rec.now += 1000;
		}
		frames = wire.credits[1] - frames;
		assert_int_equal(rec.delivered[1], read);
		if (per_card)
			assert_true(frames > 0);
		else
			assert_int_equal(frames, 0);
		wire_settle(&x);
		assert_credits_whole(&x);
		/* data frames lost on the link: the periodic frames give
		 * their bytes back, in one loop too */
		now = rec.now;
		memset(&rec, 0, sizeof(rec));
		rec.now = now + 1000;
		pe0_sends(&x, 10);
		assert_int_equal(wire.n[0], 10);
		wire.n[0] = 0;
		wire_settle(&x);
		/* until then their bytes are held */
		fp = &x.f.sw[0].fp[wire.lint[0]];
		for (v = held = 0; v < fp->nvcs; v++)
			held += ttd_credit_available(fp, v) < BUF;
		assert_int_equal(held, 1);
		assert_lost_given_back(&x);
		fixture_free(&x);
	}
}

/*
 * A frame holds at least its buffer's least: size / 256, never under
 * TTD_CREDIT_MIN, so that a port's buffer holds at most 256 frames a VC
 * (what the AF_XDP rings are sized for) however large it is.  Each card
 * says its least in its credit frames and the other charges it: with
 * internal buffers of 512 KiB, 256 short frames cross before card 1
 * gives credit back (2,048 at 256 bytes each would), each holding 2,048
 * bytes at both ends; carried both ways, the credits come back whole.
 */
#define BIG	(512 * 1024)
static void
test_credit_least(void **state)
{
	struct ttd_fwd_opts o;
	struct fixture x;
	const struct ttd_fport *fp, *fp1;
	int read, v, vc = -1, i;

	(void)state;
	assert_int_equal(ttd_credit_least(BUF), TTD_CREDIT_MIN);
	assert_int_equal(ttd_credit_least(65536), TTD_CREDIT_MIN);
	assert_int_equal(ttd_credit_least(BIG), 2048);
	assert_int_equal(ttd_credit_least(BIG + 1), 2049);
	assert_int_equal(ttd_credit_least(TT_CREDIT_BYTES_MAX), 0xffff);
	assert_true(TT_CREDIT_BYTES_MAX / 0xffff <= TTD_CREDIT_FRAMES);
	memset(&o, 0, sizeof(o));
	o.vc_bytes = o.pe_bytes = BUF;
	o.int_vc_bytes = BIG;
	o.epoch = 100;
	fixture_init_opts(&x, "D", "vc", &o);
	x.f.io = wire_io;
	memset(&wire, 0, sizeof(wire));
	wire.lint[0] = x.f.sw[0].nports - 1;
	wire.lint[1] = x.f.sw[1].nports - 1;
	rec.now = 1000000000;
	wire_settle(&x);
	fp = &x.f.sw[0].fp[wire.lint[0]];
	fp1 = &x.f.sw[1].fp[wire.lint[1]];
	for (v = 0; v < fp->nvcs; v++) {
		assert_int_equal(fp->in[v].least, 2048);
		assert_int_equal(fp->peer_least, 2048);
		assert_int_equal(fp->oc[v].peer_buffer, BIG);
	}
	/* the short external buffers keep the least of 256 */
	assert_int_equal(x.f.sw[0].fp[0].in[0].least, TTD_CREDIT_MIN);
	read = pe0_sends(&x, 1000);
	assert_int_equal(wire.n[0], TTD_CREDIT_FRAMES);
	for (v = 0; v < fp->nvcs; v++)
		if (fp->oc[v].sent > 0)
			vc = v;
	assert_true(vc >= 0);
	assert_int_equal(fp->oc[vc].sent, TTD_CREDIT_FRAMES * 2048);
	assert_int_equal(ttd_credit_available(fp, vc), 0);
	/* card 1 counts them at its least: its buffer is full */
	wire_carry_side(&x, 0, -1);
	assert_int_equal(fp1->in[vc].abr, TTD_CREDIT_FRAMES * 2048);
	assert_int_equal(fp1->in[vc].used + fp1->in[vc].freed,
	    TTD_CREDIT_FRAMES * 2048);
	for (i = 0; i < 50 && (wire.n[0] > 0 || wire.n[1] > 0 ||
	    ttd_fwd_queued(&x.f) > 0); i++) {
		wire_round(&x, -1);
		rec.now += 1000;
	}
	assert_int_equal(rec.delivered[1], read);
	wire_settle(&x);
	for (v = 0; v < fp->nvcs; v++) {
		assert_int_equal(ttd_credit_available(fp, v), BIG);
		assert_int_equal(ttd_credit_available(fp1, v), BIG);
	}
	assert_int_equal(ttd_fwd_queued(&x.f), 0);
	assert_balance(&x.f);
	fixture_free(&x);
}

/*
 * A cable pulled while frames cross it: what was on it is lost, what
 * waited for it is dropped as link_down (and its buffer given back);
 * plugged back, the two ends resynchronise at once and the credits are
 * whole again; frames cross as before.
 */
static void
test_credit_link_down_up(void **state)
{
	struct fixture x;
	int read, s, before;

	(void)state;
	wire_fixture(&x);
	read = pe0_sends(&x, 1000);
	assert_true(ttd_fwd_queued(&x.f) > 0);
	/* pulled: the wire's frames are gone, both ends see the link go */
	wire.n[0] = wire.n[1] = 0;
	for (s = 0; s < 2; s++)
		ttd_fwd_link(&x.f, s, wire.lint[s], 0);
	assert_int_equal(ttd_fwd_queued(&x.f), 0);
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_LINK_DOWN],
	    read - BUF / COST);
	/* while it is down, frames for it are dropped at once */
	before = (int)cnt(&x.f).dropped[TTD_DROP_LINK_DOWN];
	pe0_sends(&x, 3);
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_LINK_DOWN], before + 3);
	assert_int_equal(wire_round(&x, -1), 0);	/* nothing on it */
	/* plugged back: both send their state in the next round */
	rec.now += 1000;
	for (s = 0; s < 2; s++)
		ttd_fwd_link(&x.f, s, wire.lint[s], 1);
	assert_true(wire_round(&x, -1) >= 2);
	wire_settle(&x);
	assert_credits_whole(&x);
	/* and frames cross again */
	memset(&rec, 0, sizeof(rec));
	read = pe0_sends(&x, 50);
	wire_settle(&x);
	assert_int_equal(rec.delivered[1], read);
	assert_credits_whole(&x);
	assert_balance(&x.f);
	fixture_free(&x);
}

/*
 * A neighbour that restarts: its new epoch is taken (our count of what it
 * sends starts again from its own), and the limits it gives before it has
 * heard our epoch are not used: nothing goes until it has.
 */
static void
test_credit_neighbour_restart(void **state)
{
	struct fixture x;
	uint32_t limit[TT_MAX_VCS], sent[TT_MAX_VCS];
	uint8_t buf[512], fb[64];
	struct ttd_fport *fp;
	size_t len;
	int lp, v, hellos;

	(void)state;
	fixture_init(&x, "D", "vc");
	ttd_fwd_pe_rx(&x.f, 0, fb, pe_frame(fb, x.nd.card[0].card, 0));
	assert_int_equal(rec.nsent, 1);
	lp = rec.sent[0].lport;
	fp = &x.f.sw[0].fp[lp];
	assert_true(fp->oc[0].sent > 0 || fp->oc[1].sent > 0);
	/* the neighbour restarts: epoch 77, our epoch not heard yet, and a
	 * generous limit that counts in nothing we know */
	for (v = 0; v < fp->nvcs; v++) {
		limit[v] = 1u << 30;
		sent[v] = 0;
	}
	len = credit_frame(&x, 0, lp, 77, 0, sent, limit, 1, buf,
	    sizeof(buf));
	port_rx(&x.f, 0, lp, buf, len);
	assert_int_equal(fp->peer_epoch, 77);
	assert_false(fp->granted);
	assert_int_equal(ttd_credit_available(fp, 0), -1);
	for (v = 0; v < fp->nvcs; v++)
		assert_int_equal(fp->in[v].abr, 0);
	ttd_fwd_pe_rx(&x.f, 0, fb, pe_frame(fb, x.nd.card[0].card, 0));
	assert_int_equal(rec.nsent, 1);		/* held */
	/* we say who we are (a hello first there: it has not taken our
	 * credit frames); it answers in our epoch: the frame goes */
	ttd_credit_round(&x.f, 0, 1);
	assert_int_equal(rec.nsent, 1 + x.f.sw[0].nports + 1);
	for (v = 1, hellos = 0; v < rec.nsent; v++)
		if (wire_type(rec.sent[v].buf, rec.sent[v].len) ==
		    TT_FRAME_HELLO) {
			assert_int_equal(rec.sent[v].lport, lp);
			hellos++;
		}
	assert_int_equal(hellos, 1);
	for (v = 0; v < fp->nvcs; v++)
		limit[v] = fp->oc[v].sent + 1000;
	len = credit_frame(&x, 0, lp, 77, x.f.sw[0].epoch, sent, limit, 2,
	    buf, sizeof(buf));
	port_rx(&x.f, 0, lp, buf, len);
	assert_true(fp->granted);
	assert_int_equal(ttd_fwd_queued(&x.f), 0);
	assert_int_equal(rec.nsent, 2 + x.f.sw[0].nports + 1);
	assert_balance(&x.f);
	fixture_free(&x);
}

/* Bubble flow control: a frame entering a ring needs room for itself and
 * one more of the largest frames. */
static void
test_credit_bubble(void **state)
{
	struct fixture x;
	struct ttd_fport *fp;

	(void)state;
	fixture_init(&x, "D", "bubble");
	fp = &x.f.sw[0].fp[0];
	fp->granted = 1;
	fp->oc[0].sent = 1000;
	fp->oc[0].peer_buffer = BUF;
	fp->oc[0].limit = 1000 + 90 + TTD_FRAME_MAX - 1;
	assert_true(ttd_credit_ok(&x.f, fp, 0, 90, 0));
	assert_false(ttd_credit_ok(&x.f, fp, 0, 90, 1));
	fp->oc[0].limit++;
	assert_true(ttd_credit_ok(&x.f, fp, 0, 90, 1));
	/* never more than the buffer behind it */
	fp->oc[0].limit = 1000 + 10 * BUF;
	assert_int_equal(ttd_credit_available(fp, 0), BUF);
	/* a limit behind what was sent: none */
	fp->oc[0].limit = 999;
	assert_int_equal(ttd_credit_available(fp, 0), 0);
	fixture_free(&x);
}

/* ---- credit frames from anyone else than the neighbour ---- */

/* A drop counter by the name `ttd status` shows it (0 if there is none
 * by that name: the test then fails where it expects a count). */
static uint64_t
dropped(const struct fixture *x, const char *name)
{
	const struct ttd_counters c = cnt(&x->f);
	int d;

	for (d = 0; d < TTD_DROP_N; d++)
		if (ttd_drop_names[d] != NULL &&
		    strcmp(ttd_drop_names[d], name) == 0)
			return c.dropped[d];
	return 0;
}

/* What a credit frame may change on a port. */
struct port_state {
	int granted;
	uint16_t peer_epoch;
	uint32_t limit[TT_MAX_VCS], peer_buffer[TT_MAX_VCS];
	uint32_t abr[TT_MAX_VCS];
	int64_t available[TT_MAX_VCS];
	uint64_t lost, heard;
};

static struct port_state
port_state(const struct fixture *x, int side, int lport)
{
	const struct ttd_fport *fp = &x->f.sw[side].fp[lport];
	struct port_state ps;
	int v;

	memset(&ps, 0, sizeof(ps));
	ps.granted = fp->granted;
	ps.peer_epoch = fp->peer_epoch;
	for (v = 0; v < fp->nvcs; v++) {
		ps.limit[v] = fp->oc[v].limit;
		ps.peer_buffer[v] = fp->oc[v].peer_buffer;
		ps.abr[v] = fp->in[v].abr;
		ps.available[v] = ttd_credit_available(fp, v);
	}
	ps.lost = fp->cred_lost;
	ps.heard = fp->cred_heard;
	return ps;
}

/*
 * Credit frame f (body c) heard on card side's port lport is refused:
 * dropped as `reason` and nothing else, the port's credits, counts and
 * epochs as they were, nothing sent because of it.
 */
static void
assert_credit_refused(struct fixture *x, int side, int lport, tt_frame *f,
    const tt_credit *c, const char *reason, const char *what)
{
	struct port_state before = port_state(x, side, lport), after;
	struct ttd_counters c0 = cnt(&x->f), c1;
	uint64_t r0 = dropped(x, reason);
	uint8_t buf[512];
	size_t len = credit_encode(f, c, buf, sizeof(buf));
	int nsent = rec.nsent, d, v;

	assert_true(len > 0);
	port_rx(&x->f, side, lport, buf, len);
	c1 = cnt(&x->f);
	after = port_state(x, side, lport);
	for (v = 0; v < TT_MAX_VCS - 1 && before.available[v] ==
	    after.available[v]; v++)
		;
	if (memcmp(&before, &after, sizeof(before)) != 0)
		fail_msg("%s: taken: VC %d available %lld -> %lld bytes, "
		    "granted %d -> %d, peer epoch %u -> %u, lost %llu -> %llu",
		    what, v, (long long)before.available[v],
		    (long long)after.available[v], before.granted,
		    after.granted, before.peer_epoch, after.peer_epoch,
		    (unsigned long long)before.lost,
		    (unsigned long long)after.lost);
	if (dropped(x, reason) != r0 + 1)
		fail_msg("%s: not dropped as %s", what, reason);
	assert_int_equal(c1.credits, c0.credits);
	for (d = 0; d < TTD_DROP_N; d++)
		if (ttd_drop_names[d] != NULL &&
		    strcmp(ttd_drop_names[d], reason) != 0 &&
		    c1.dropped[d] != c0.dropped[d])
			fail_msg("%s: also dropped as %s", what,
			    ttd_drop_names[d]);
	assert_int_equal(rec.nsent, nsent);
	assert_balance(&x->f);
}

/* The neighbour's credit frame as prescribed is taken (the control for
 * each refusal below: only the field changed makes the difference). */
static void
assert_credit_taken(struct fixture *x, int side, int lport, tt_frame *f,
    const tt_credit *c)
{
	uint64_t heard = x->f.sw[side].fp[lport].cred_heard;
	uint8_t buf[512];
	size_t len = credit_encode(f, c, buf, sizeof(buf));

	port_rx(&x->f, side, lport, buf, len);
	assert_int_equal(x->f.sw[side].fp[lport].cred_heard, heard + 1);
}

/*
 * N2: a credit frame raising the limit from another sender than the
 * neighbour.  Card 0 fills card 1's buffer on the internal link (card 1
 * does not forward yet); a frame that would give card 0 a whole buffer
 * more, sent from another MAC address, or from the right one naming
 * another source PE, is refused, card 0 sends nothing more, and once the
 * wire is carried card 1 has dropped nothing.
 */
static void
test_credit_not_from_neighbour_refused(void **state)
{
	static const uint8_t stranger[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x66};
	struct fixture x;
	const struct ttd_fport *fp;
	tt_credit c;
	tt_frame f;
	int v, vc = -1, on_wire, i;

	(void)state;
	wire_fixture(&x);
	fp = &x.f.sw[0].fp[wire.lint[0]];
	pe0_sends(&x, 1000);
	on_wire = wire.n[0];
	assert_int_equal(on_wire, BUF / COST);
	for (v = 0; v < fp->nvcs; v++)
		if (fp->oc[v].sent > 0)
			vc = v;
	assert_true(ttd_credit_available(fp, vc) < COST);
	/* card 1's frame, raising every limit to a whole buffer past what
	 * card 0 has sent, as card 1 would number it next */
	credit_fields(&x, 0, wire.lint[0], &f, &c);
	c.epoch = x.f.sw[1].epoch;
	f.seq = fp->cred_rx_seq + 1;
	memcpy(f.src_mac, stranger, 6);
	assert_credit_refused(&x, 0, wire.lint[0], &f, &c, "credit_not_peer",
	    "from another MAC address, card 1 as source");
	neighbour_mac(&x, 0, wire.lint[0], f.src_mac);
	f.src = x.nd.card[0].card;
	assert_credit_refused(&x, 0, wire.lint[0], &f, &c, "credit_not_peer",
	    "from card 1's MAC address, another source PE");
	ttd_fwd_drain(&x.f, -1);
	assert_int_equal(wire.n[0], on_wire);		/* nothing more went */
	/* card 1 takes what came and gives credit back: nothing lost */
	for (i = 0; i < 50 && (wire.n[0] > 0 || wire.n[1] > 0 ||
	    ttd_fwd_queued(&x.f) > 0); i++) {
		wire_round(&x, -1);
		rec.now += 1000;
	}
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_NO_BUFFER], 0);
	assert_int_equal(ttd_fwd_queued(&x.f), 0);
	/* on an external port whose neighbour now says it is another card
	 * (a wrong cable): nobody is verified there, nobody's frames taken */
	{
		uint8_t hb[64], mac[6];

		neighbour_mac(&x, 0, 0, mac);
		port_rx(&x.f, 0, 0, hb, hello_from(hb, 0, 0, tt_port_of(0, 1),
		    0, mac));
	}
	credit_fields(&x, 0, 0, &f, &c);
	assert_credit_refused(&x, 0, 0, &f, &c, "credit_not_peer",
	    "with no neighbour verified");
	fixture_free(&x);
}

/* The header frame.h prescribes: VC 0, hops 0, no flags, to this card
 * (or, as ttd sent them before, to every PE). */
static void
test_credit_header_refused(void **state)
{
	struct fixture x;
	tt_credit c;
	tt_frame f;

	(void)state;
	fixture_init(&x, "D", "vc");
	credit_fields(&x, 0, 0, &f, &c);
	f.vc = 1;
	assert_credit_refused(&x, 0, 0, &f, &c, "credit_bad_header", "VC 1");
	credit_fields(&x, 0, 0, &f, &c);
	f.vc = 31;
	assert_credit_refused(&x, 0, 0, &f, &c, "credit_bad_header", "VC 31");
	credit_fields(&x, 0, 0, &f, &c);
	f.hops = 1;
	assert_credit_refused(&x, 0, 0, &f, &c, "credit_bad_header",
	    "hops 1");
	credit_fields(&x, 0, 0, &f, &c);
	f.flags = TT_FRAME_F_DELIVERED;
	assert_credit_refused(&x, 0, 0, &f, &c, "credit_bad_header",
	    "flag delivered");
	credit_fields(&x, 0, 0, &f, &c);
	f.dst = x.nd.card[1].card;
	assert_credit_refused(&x, 0, 0, &f, &c, "credit_bad_header",
	    "to the other card");
	credit_fields(&x, 0, 0, &f, &c);
	f.dst = f.src;
	assert_credit_refused(&x, 0, 0, &f, &c, "credit_bad_header",
	    "to its own sender");
	/* the control: as prescribed, and addressed to every PE */
	credit_fields(&x, 0, 0, &f, &c);
	assert_credit_taken(&x, 0, 0, &f, &c);
	credit_fields(&x, 0, 0, &f, &c);
	f.dst = TT_PE_BROADCAST;
	assert_credit_taken(&x, 0, 0, &f, &c);
	fixture_free(&x);
}

/* A body with its reserved byte set, a least under 256, or for another
 * VC count than the port's. */
static void
test_credit_malformed_refused(void **state)
{
	struct fixture x;
	uint8_t buf[512], *body;
	tt_credit c;
	tt_frame f;
	size_t len;
	int i;

	(void)state;
	fixture_init(&x, "D", "vc");
	for (i = 6; i < 8; i++) {
		uint64_t r0 = dropped(&x, "credit_malformed");
		uint64_t heard = x.f.sw[0].fp[0].cred_heard;

		credit_fields(&x, 0, 0, &f, &c);
		len = credit_encode(&f, &c, buf, sizeof(buf));
		body = buf + TT_ETH_HLEN + TT_FRAME_HLEN;
		/* a least of 128, under TT_CREDIT_MIN_BYTES; the reserved
		 * byte */
		body[i] = 0x80;
		port_rx(&x.f, 0, 0, buf, len);
		assert_int_equal(dropped(&x, "credit_malformed"), r0 + 1);
		assert_int_equal(x.f.sw[0].fp[0].cred_heard, heard);
	}
	credit_fields(&x, 0, 0, &f, &c);
	c.nvcs = (uint8_t)(x.f.sw[0].fp[0].nvcs + 1);
	assert_credit_refused(&x, 0, 0, &f, &c, "credit_malformed",
	    "one VC more than the port has");
	assert_balance(&x.f);
	fixture_free(&x);
}

/* A buffer of 0 would have turned the cap off; one past what credits:
 * allows, a grant beyond the buffer, a least beyond it, another buffer
 * or least than the other card's on the internal link: refused.  And a cap of 0 is a cap. */
static void
test_credit_implausible_refused(void **state)
{
	struct fixture x;
	struct ttd_fport *fp;
	int lint;
	tt_credit c;
	tt_frame f;

	(void)state;
	fixture_init(&x, "D", "vc");
	lint = x.f.sw[0].nports - 1;
	credit_fields(&x, 0, 0, &f, &c);
	c.vc[0].buffer = 0;
	c.vc[0].limit = x.f.sw[0].fp[0].oc[0].sent + (1u << 30);
	assert_credit_refused(&x, 0, 0, &f, &c, "credit_implausible",
	    "buffer 0, a limit 1 GiB ahead");
	credit_fields(&x, 0, 0, &f, &c);
	c.vc[1].buffer = TT_CREDIT_BYTES_MAX + 1;
	assert_credit_refused(&x, 0, 0, &f, &c, "credit_implausible",
	    "a buffer past 16 MiB");
	credit_fields(&x, 0, 0, &f, &c);
	c.vc[0].buffer = 100;
	c.vc[0].limit = x.f.sw[0].fp[0].oc[0].sent + 100;
	assert_credit_refused(&x, 0, 0, &f, &c, "credit_implausible",
	    "a buffer of 100 bytes");
	credit_fields(&x, 0, 0, &f, &c);
	c.vc[0].limit += 1;	/* one byte more than the whole buffer */
	assert_credit_refused(&x, 0, 0, &f, &c, "credit_implausible",
	    "a grant past the buffer");
	credit_fields(&x, 0, lint, &f, &c);
	c.vc[0].buffer = BUF * 2;
	c.vc[0].limit = x.f.sw[0].fp[lint].oc[0].sent + BUF * 2;
	assert_credit_refused(&x, 0, lint, &f, &c, "credit_implausible",
	    "internal link: not the other card's buffer");
	credit_fields(&x, 0, 0, &f, &c);
	c.least = BUF + 1;
	assert_credit_refused(&x, 0, 0, &f, &c, "credit_implausible",
	    "a frame costing more than the buffer");
	credit_fields(&x, 0, lint, &f, &c);
	c.least = 2 * TTD_CREDIT_MIN;
	assert_credit_refused(&x, 0, lint, &f, &c, "credit_implausible",
	    "internal link: not the other card's least");
	/* the control: a grant of the whole buffer, and one lagging behind
	 * what was sent (frames in flight), are taken */
	credit_fields(&x, 0, 0, &f, &c);
	assert_credit_taken(&x, 0, 0, &f, &c);
	credit_fields(&x, 0, 0, &f, &c);
	c.vc[0].limit -= 2 * BUF;
	assert_credit_taken(&x, 0, 0, &f, &c);
	assert_int_equal(ttd_credit_available(&x.f.sw[0].fp[0], 0), 0);
	/* a port whose neighbour's buffer is 0 may send nothing */
	fp = &x.f.sw[0].fp[1];
	fp->oc[0].peer_buffer = 0;
	fp->oc[0].limit = fp->oc[0].sent + 100000;
	assert_int_equal(ttd_credit_available(fp, 0), 0);
	fixture_free(&x);
}

/*
 * A stream of frames naming another peer epoch (or another epoch of the
 * neighbour's) withdrew every credit of the port: from anyone but the
 * neighbour they are refused, and the port keeps its credits; from the
 * neighbour itself such a frame still withdraws them (it restarted).
 */
static void
test_credit_epoch_only_from_neighbour(void **state)
{
	static const uint8_t stranger[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x67};
	struct fixture x;
	const struct ttd_fport *fp;
	uint8_t buf[512];
	tt_credit c;
	tt_frame f;
	int i;

	(void)state;
	fixture_init(&x, "D", "vc");
	fp = &x.f.sw[0].fp[0];
	assert_true(fp->granted);
	for (i = 0; i < 1000; i++) {
		credit_fields(&x, 0, 0, &f, &c);
		memcpy(f.src_mac, stranger, 6);
		if (i & 1)
			c.peer_epoch = (uint16_t)(x.f.sw[0].epoch + 1 + i);
		else
			c.epoch = (uint16_t)(NEIGHBOUR_EPOCH + 1 + i);
		port_rx(&x.f, 0, 0, buf, credit_encode(&f, &c, buf,
		    sizeof(buf)));
	}
	assert_int_equal(dropped(&x, "credit_not_peer"), 1000);
	assert_true(fp->granted);
	assert_int_equal(fp->peer_epoch, NEIGHBOUR_EPOCH);
	assert_int_equal(ttd_credit_available(fp, 0), BUF);
	/* the neighbour restarted: its new epoch is taken */
	credit_fields(&x, 0, 0, &f, &c);
	c.epoch = 901;
	c.peer_epoch = 0;
	assert_credit_taken(&x, 0, 0, &f, &c);
	assert_int_equal(fp->peer_epoch, 901);
	assert_false(fp->granted);
	fixture_free(&x);
}

/*
 * N3: credit_frames.lost counts gaps between frames taken, in one epoch,
 * each no larger than TTD_CREDIT_SEQ_WINDOW: a forged number from
 * another sender, an old or replayed one, or one far ahead, count
 * nothing (the last two are refused as credit_stale).  A real gap counts;
 * after TTD_CREDIT_QUIET_NS with nothing taken any number starts anew.
 */
static void
test_credit_lost_not_inflated(void **state)
{
	static const uint8_t stranger[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x68};
	struct fixture x;
	const struct ttd_fport *fp;
	uint32_t last;
	tt_credit c;
	tt_frame f;

	(void)state;
	fixture_init(&x, "D", "vc");
	fp = &x.f.sw[0].fp[0];
	rec.now = 1000000000ull;
	credit_fields(&x, 0, 0, &f, &c);
	assert_credit_taken(&x, 0, 0, &f, &c);
	assert_int_equal(fp->cred_lost, 0);
	last = fp->cred_rx_seq;
	/* a stranger's number 2^31 ahead */
	credit_fields(&x, 0, 0, &f, &c);
	memcpy(f.src_mac, stranger, 6);
	f.seq = last + 0x80000000u;
	assert_credit_refused(&x, 0, 0, &f, &c, "credit_not_peer",
	    "a forged sequence number");
	/* the neighbour's own frame replayed, an older one, one far ahead */
	credit_fields(&x, 0, 0, &f, &c);
	f.seq = last;
	assert_credit_refused(&x, 0, 0, &f, &c, "credit_stale", "replayed");
	f.seq = last - 5;
	assert_credit_refused(&x, 0, 0, &f, &c, "credit_stale", "older");
	f.seq = last + TTD_CREDIT_SEQ_WINDOW + 1;
	assert_credit_refused(&x, 0, 0, &f, &c, "credit_stale",
	    "implausibly far ahead");
	assert_int_equal(fp->cred_lost, 0);
	/* three frames really lost on the way */
	credit_fields(&x, 0, 0, &f, &c);
	f.seq = last + 4;
	assert_credit_taken(&x, 0, 0, &f, &c);
	assert_int_equal(fp->cred_lost, 3);
	/* silent for long: the neighbour restarted in the same epoch, its
	 * numbers from 1 again; taken, and no gap counted */
	rec.now += TTD_CREDIT_QUIET_NS;
	credit_fields(&x, 0, 0, &f, &c);
	f.seq = 1;
	assert_credit_taken(&x, 0, 0, &f, &c);
	assert_int_equal(fp->cred_lost, 3);
	credit_fields(&x, 0, 0, &f, &c);
	assert_int_equal(f.seq, 2);
	assert_credit_taken(&x, 0, 0, &f, &c);
	assert_int_equal(fp->cred_lost, 3);
	fixture_free(&x);
}

/*
 * The neighbour is the MAC address whose hello named the card the torus
 * puts there, that card sending it: another address saying the same while
 * the neighbour is heard is an impostor (its hello and credit frames
 * refused); once the neighbour has been silent TTD_PEER_HOLD_NS, or the
 * link went down since, the new address may take its place.
 */
static void
test_hello_verifies_neighbour(void **state)
{
	static const uint8_t other[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x69};
	struct fixture x;
	uint8_t buf[64];
	uint32_t peer;
	tt_credit c;
	tt_frame f;
	int pp;

	(void)state;
	fixture_init(&x, "D", "vc");
	rec.now = TTD_PEER_HOLD_NS / 2;	/* the neighbour was heard at 0 */
	peer = neighbour_card(&x, 0, 0, &pp);
	/* a hello as the neighbour, from another address: not believed */
	port_rx(&x.f, 0, 0, buf, hello_from(buf, tt_card_node(&x.c.net,
	    peer), tt_card_side(&x.c.net, peer), pp, peer, other));
	assert_int_equal(dropped(&x, "hello_impostor"), 1);
	assert_int_equal(cnt(&x.f).hellos, 0);
	credit_fields(&x, 0, 0, &f, &c);
	memcpy(f.src_mac, other, 6);
	assert_credit_refused(&x, 0, 0, &f, &c, "credit_not_peer",
	    "from the impostor");
	/* the neighbour's own hello and credit frames: still taken */
	port_rx(&x.f, 0, 0, buf, neighbour_hello(&x, 0, 0, buf));
	assert_int_equal(cnt(&x.f).hellos, 1);
	credit_fields(&x, 0, 0, &f, &c);
	assert_credit_taken(&x, 0, 0, &f, &c);
	/* the neighbour silent for TTD_PEER_HOLD_NS: the new address's
	 * hello makes it the neighbour, and the old one's frames refused */
	rec.now += TTD_PEER_HOLD_NS;
	port_rx(&x.f, 0, 0, buf, hello_from(buf, tt_card_node(&x.c.net,
	    peer), tt_card_side(&x.c.net, peer), pp, peer, other));
	assert_int_equal(dropped(&x, "hello_impostor"), 1);
	credit_fields(&x, 0, 0, &f, &c);
	assert_credit_refused(&x, 0, 0, &f, &c, "credit_not_peer",
	    "from the old address");
	memcpy(f.src_mac, other, 6);
	assert_credit_taken(&x, 0, 0, &f, &c);
	/* the link goes down and comes back: the same neighbour's frames
	 * are taken at once, and whatever was plugged in instead replaces
	 * it by its first hello (no wait for the neighbour's silence) */
	ttd_fwd_link(&x.f, 0, 0, 0);
	ttd_fwd_link(&x.f, 0, 0, 1);
	credit_fields(&x, 0, 0, &f, &c);
	memcpy(f.src_mac, other, 6);
	assert_credit_taken(&x, 0, 0, &f, &c);
	ttd_fwd_link(&x.f, 0, 0, 0);
	ttd_fwd_link(&x.f, 0, 0, 1);
	port_rx(&x.f, 0, 0, buf, neighbour_hello(&x, 0, 0, buf));
	assert_int_equal(dropped(&x, "hello_impostor"), 1);
	credit_fields(&x, 0, 0, &f, &c);
	assert_credit_taken(&x, 0, 0, &f, &c);
	/* a hello naming the right card from another source PE verifies
	 * nobody, and the neighbour's own address saying so is no longer
	 * the neighbour */
	neighbour_mac(&x, 0, 0, f.src_mac);
	port_rx(&x.f, 0, 0, buf, hello_from(buf, tt_card_node(&x.c.net,
	    peer), tt_card_side(&x.c.net, peer), pp, peer + 2, f.src_mac));
	credit_fields(&x, 0, 0, &f, &c);
	assert_credit_refused(&x, 0, 0, &f, &c, "credit_not_peer",
	    "after a hello from another source PE");
	fixture_free(&x);
}

/* A flood of refused credit frames: a few log lines per port, then one
 * that says how many were not logged. */
static void
test_credit_refusals_log_rate_limited(void **state)
{
	struct fixture x;
	size_t loglen = 0;
	uint8_t buf[512];
	char *log = NULL;
	tt_credit c;
	tt_frame f;
	FILE *fp;
	int i;

	(void)state;
	fixture_init(&x, "D", "vc");
	fp = open_memstream(&log, &loglen);
	assert_non_null(fp);
	ttd_log_file = fp;
	ttd_log_level = TTD_LOG_NOTICE;
	rec.now = 5000000000ull;
	for (i = 0; i < 1000; i++) {
		credit_fields(&x, 0, 0, &f, &c);
		f.vc = 3;
		port_rx(&x.f, 0, 0, buf, credit_encode(&f, &c, buf,
		    sizeof(buf)));
		rec.now += 1000;
	}
	fflush(fp);
	assert_int_equal(dropped(&x, "credit_bad_header"), 1000);
	assert_int_equal(count_lines(log, "credit frame refused"),
	    TTD_LOG_BURST);
	rec.now += TTD_LOG_WINDOW_NS;
	ttd_credit_round(&x.f, -1, rec.now);
	fflush(fp);
	assert_int_equal(count_lines(log, "credit frame refused"),
	    TTD_LOG_BURST);
	assert_int_equal(count_lines(log, "more credit frames refused"), 1);
	ttd_log_file = NULL;
	ttd_log_level = TTD_LOG_ERR;
	fclose(fp);
	free(log);
	fixture_free(&x);
}

/*
 * The data plane's nap: only after a small round in a stream of rounds
 * that read frames.  A lone frame, or one exchange at a time (a round with
 * frames, then an empty one), never waits; nor does a full round.
 */
static void
test_plane_nap_only_in_a_stream(void **state)
{
	unsigned streak = 0;
	int i;

	(void)state;
	assert_int_equal(ttd_plane_nap(&streak, 3), 0);	/* the first */
	assert_true(ttd_plane_nap(&streak, 3) > 0);	/* a stream */
	assert_int_equal(ttd_plane_nap(&streak, 64), 0);	/* a full one */
	assert_true(ttd_plane_nap(&streak, 1) > 0);
	assert_int_equal(ttd_plane_nap(&streak, 0), 0);	/* it ended */
	assert_int_equal(streak, 0);
	/* ping-pong: a frame, an empty round, a frame, ... */
	for (i = 0; i < 100; i++) {
		assert_int_equal(ttd_plane_nap(&streak, 1), 0);
		assert_int_equal(ttd_plane_nap(&streak, 0), 0);
	}
	/* a long stream: the count stays bounded, the nap stays */
	for (i = 0; i < 100000; i++)
		(void)ttd_plane_nap(&streak, 5);
	assert_true(ttd_plane_nap(&streak, 5) > 0);
	assert_int_equal(ttd_plane_nap(&streak, 0), 0);
}

/*
 * --lossy: no credit needed, no credit frame sent; a full buffer drops,
 * as queue_full on a port and edge_full from a TAP, and the TAP is
 * always read.
 */
static void
test_lossy_drops_when_full(void **state)
{
	struct ttd_fwd_opts o = {.lossy = 1, .vc_bytes = BUF,
	    .int_vc_bytes = BUF, .pe_bytes = BUF, .epoch = 100};
	struct fixture x;
	uint8_t buf[TTD_FRAME_MAX];
	uint32_t pe0;
	int i;

	(void)state;
	fixture_init_opts(&x, "D", "vc", &o);
	pe0 = x.nd.card[0].card;
	x.f.sw[0].fp[0].granted = 0;	/* no credit at all */
	memset(&rec, 0, sizeof(rec));
	ttd_fwd_pe_rx(&x.f, 0, buf, pe_frame(buf, pe0, 0));
	assert_int_equal(rec.nsent, 1);
	rec.busy = 1;
	for (i = 0; i < 250; i++) {
		assert_true(ttd_fwd_pe_room(&x.f, 0));
		ttd_fwd_pe_rx(&x.f, 0, buf, pe_frame(buf, pe0, 0));
	}
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_EDGE_FULL],
	    250 - BUF / COST);
	for (i = 0; i < 250; i++)
		port_rx(&x.f, 0, 1, buf, torus_frame(buf, 9, 0, 1));
	assert_int_equal(cnt(&x.f).dropped[TTD_DROP_QUEUE_FULL],
	    250 - BUF / COST);
	assert_balance(&x.f);
	ttd_credit_round(&x.f, -1, 1);
	rec.busy = 0;
	memset(&rec, 0, sizeof(rec));
	ttd_credit_round(&x.f, -1, 2);
	assert_int_equal(rec.nsent, 0);		/* no credit frames */
	ttd_fwd_drain(&x.f, -1);
	assert_int_equal(ttd_fwd_queued(&x.f), 0);
	assert_balance(&x.f);
	fixture_free(&x);
}

/* The buffers: credits: where it says, else the model's (network:, split
 * among a port's VCs), never under two of the largest frames. */
static void
test_buffer_sizes_from_config(void **state)
{
	struct ttd_fwd_opts o;
	struct cfgfile c;

	(void)state;
	cfg_from_text(&c, "torus: {dims: [4, 4, 4], ports: D}\n");
	ttd_fwd_opts_config(&o, &c.cfg, &c.net);
	/* 128 flits of 16 bytes: 2,048 bytes a port, too small */
	assert_int_equal(o.vc_bytes, TTD_BUFFER_DEFAULT);
	assert_int_equal(o.int_vc_bytes, TTD_BUFFER_DEFAULT);
	assert_int_equal(o.pe_bytes, TTD_BUFFER_DEFAULT);
	cfg_free(&c);
	cfg_from_text(&c, "torus: {dims: [4, 4, 4], ports: D}\n"
	    "network: {buffer_flits: 32768, flit_bytes: 16}\n");
	ttd_fwd_opts_config(&o, &c.cfg, &c.net);
	assert_int_equal(c.net.ext_vcs, 2);
	assert_int_equal(c.net.int_vcs, 4);
	assert_int_equal(o.vc_bytes, 32768 * 16 / 2);
	assert_int_equal(o.int_vc_bytes, 32768 * 16 / 4);
	assert_int_equal(o.pe_bytes, 32768 * 16);
	cfg_free(&c);
	cfg_from_text(&c, "torus: {dims: [4, 4, 4], ports: D}\n"
	    "network: {buffer_flits: 32768, flit_bytes: 16}\n"
	    "credits: {vc_bytes: 20000, internal_vc_bytes: 30000, "
	    "pe_bytes: 40000}\n");
	ttd_fwd_opts_config(&o, &c.cfg, &c.net);
	assert_int_equal(o.vc_bytes, 20000);
	assert_int_equal(o.int_vc_bytes, 30000);
	assert_int_equal(o.pe_bytes, 40000);
	cfg_free(&c);
}

/* ---- capture rotation ---- */

static uint64_t
count_records(const char *path)
{
	tt_trace_reader *r;
	tt_trace_rec rec1;
	char err[256];
	uint64_t n = 0;

	if (tt_trace_open(&r, path, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	while (tt_trace_read(r, &rec1, err, sizeof(err)) > 0)
		n++;
	tt_trace_close_reader(r);
	return n;
}

static void
test_capture_rotation(void **state)
{
	struct ttd_capture c;
	uint8_t frame[100];
	char dir[] = "/tmp/test-ttd-cap-XXXXXX", base[128], name[160], err[256];
	int i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(base, sizeof(base), "%s/n0-pe.pcap", dir);
	memset(frame, 1, sizeof(frame));
	/* 24-byte header + records of 116 bytes: 3 records per 400 bytes */
	assert_int_equal(ttd_capture_open(&c, base, 400, 3, err, sizeof(err)),
	    0);
	for (i = 0; i < 10; i++)
		ttd_capture_write(&c, 1000 + (uint64_t)i, frame, sizeof(frame));
	/* files 0, 1, 2 hold 3 records each; the tenth went to file 0 anew */
	assert_int_equal(c.cur, 0);
	assert_int_equal(ttd_capture_close(&c, err, sizeof(err)), 0);
	assert_int_equal(c.records, 10);
	assert_int_equal(c.lost, 0);
	assert_int_equal(count_records(base), 1);
	ttd_capture_name(&c, 1, name, sizeof(name));
	assert_int_equal(strcmp(name + strlen(base), "1"), 0);
	assert_int_equal(count_records(name), 3);
	ttd_capture_name(&c, 2, name, sizeof(name));
	assert_int_equal(count_records(name), 3);
	/* reopening (SIGHUP) appends to a file still there */
	assert_int_equal(ttd_capture_open(&c, base, 0, 1, err, sizeof(err)),
	    0);
	ttd_capture_write(&c, 5, frame, sizeof(frame));
	assert_int_equal(ttd_capture_reopen(&c, err, sizeof(err)), 0);
	ttd_capture_write(&c, 6, frame, sizeof(frame));
	assert_int_equal(ttd_capture_close(&c, err, sizeof(err)), 0);
	assert_int_equal(count_records(base), 2);
	unlink(base);
	unlink(name);
	ttd_capture_name(&c, 1, name, sizeof(name));
	unlink(name);
	rmdir(dir);
}

/* How many records of len bytes a file of size bytes holds, or -1 if it
 * does not end on a record boundary. */
static long
records_in_size(off_t size, size_t len)
{
	off_t body = size - 24;

	return body >= 0 && body % (off_t)(16 + len) == 0 ?
	    (long)(body / (off_t)(16 + len)) : -1;
}

static off_t
file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

/* Let this process write files up to limit bytes (RLIM_INFINITY: any);
 * a write past it fails with EFBIG, as one on a full disk with ENOSPC. */
static void
file_limit(rlim_t limit)
{
	struct rlimit rl;

	assert_int_equal(getrlimit(RLIMIT_FSIZE, &rl), 0);
	rl.rlim_cur = limit == RLIM_INFINITY ? rl.rlim_max : limit;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &rl), 0);
}

/*
 * A full disk (here a file size limit): the failed flush is seen, logged
 * once, the file cut back to its last whole record, the records counted
 * as lost and not as written; writing resumes when space returns, and an
 * append after SIGHUP lands on a record boundary.  The file reads back
 * whole at every step.
 */
static void
test_capture_full_disk(void **state)
{
	struct ttd_capture c;
	uint8_t frame[100];
	char dir[] = "/tmp/test-ttd-full-XXXXXX", base[128], err[256];
	char *log = NULL;
	size_t loglen = 0;
	FILE *fp;
	int i;

	(void)state;
	signal(SIGXFSZ, SIG_IGN);
	assert_non_null(mkdtemp(dir));
	snprintf(base, sizeof(base), "%s/n0-pe.pcap", dir);
	fp = open_memstream(&log, &loglen);
	ttd_log_file = fp;
	ttd_log_level = TTD_LOG_NOTICE;
	memset(frame, 7, sizeof(frame));
	assert_int_equal(ttd_capture_open(&c, base, 0, 1, err, sizeof(err)),
	    0);
	for (i = 0; i < 10; i++)
		ttd_capture_write(&c, (uint64_t)i, frame, sizeof(frame));
	assert_int_equal(ttd_capture_flush(&c), 0);
	assert_int_equal(c.records, 10);
	/* room for two and a half more records */
	file_limit((rlim_t)file_size(base) + 2 * 116 + 58);
	for (i = 0; i < 10; i++)
		ttd_capture_write(&c, (uint64_t)i, frame, sizeof(frame));
	assert_int_equal(ttd_capture_flush(&c), -1);
	assert_int_equal(c.records, 10);
	assert_int_equal(c.lost, 10);
	assert_true(c.failing);
	assert_int_equal(records_in_size(file_size(base), sizeof(frame)), 10);
	assert_int_equal(count_records(base), 10);
	/* still full: more lost, not logged again */
	for (i = 0; i < 3; i++) {
		ttd_capture_write(&c, (uint64_t)i, frame, sizeof(frame));
		ttd_capture_write(&c, (uint64_t)i, frame, sizeof(frame));
		ttd_capture_write(&c, (uint64_t)i, frame, sizeof(frame));
		(void)ttd_capture_flush(&c);
	}
	assert_true(c.lost > 10);
	assert_int_equal(c.records, 10);
	assert_int_equal(records_in_size(file_size(base), sizeof(frame)), 10);
	/* SIGHUP while full: the append starts on a record boundary */
	(void)ttd_capture_reopen(&c, err, sizeof(err));
	ttd_capture_write(&c, 1, frame, sizeof(frame));
	ttd_capture_write(&c, 2, frame, sizeof(frame));
	ttd_capture_write(&c, 3, frame, sizeof(frame));
	(void)ttd_capture_flush(&c);
	assert_int_equal(count_records(base), 10 + (long)(c.records - 10));
	/* space returns: the next flushes work again */
	file_limit(RLIM_INFINITY);
	for (i = 0; i < 3; i++) {
		ttd_capture_write(&c, 100 + (uint64_t)i, frame, sizeof(frame));
		(void)ttd_capture_flush(&c);
	}
	ttd_capture_write(&c, 200, frame, sizeof(frame));
	assert_int_equal(ttd_capture_flush(&c), 0);
	assert_false(c.failing);
	assert_int_equal(ttd_capture_close(&c, err, sizeof(err)), 0);
	assert_int_equal(count_records(base), (long)c.records);
	assert_int_equal(records_in_size(file_size(base), sizeof(frame)),
	    (long)c.records);
	assert_true(c.records >= 12);
	fflush(fp);
	assert_int_equal(count_lines(log, "write failed"), 1);
	assert_int_equal(count_lines(log, "writing again"), 1);
	ttd_log_file = NULL;
	ttd_log_level = TTD_LOG_ERR;
	fclose(fp);
	free(log);
	unlink(base);
	rmdir(dir);
}

/* A link or something not a regular file where a trace goes: refused,
 * and what the link points to is left as it was. */
static void
test_capture_refuses_links(void **state)
{
	struct ttd_capture c;
	char dir[] = "/tmp/test-ttd-link-XXXXXX", base[128], victim[128];
	char err[512], buf[16] = "";
	FILE *fp;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(base, sizeof(base), "%s/n0-pe.pcap", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	fp = fopen(victim, "w");
	fputs("precious\n", fp);
	fclose(fp);
	assert_int_equal(symlink(victim, base), 0);
	assert_int_equal(ttd_capture_open(&c, base, 0, 1, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "a symbolic link"));
	assert_non_null(strstr(err, base));
	fp = fopen(victim, "r");
	assert_non_null(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	assert_string_equal(buf, "precious\n");
	unlink(base);
	assert_int_equal(mkfifo(base, 0600), 0);
	assert_int_equal(ttd_capture_open(&c, base, 0, 1, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "not a regular file"));
	unlink(base);
	unlink(victim);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_by_configuration),
		cmocka_unit_test(test_map_refusals),
		cmocka_unit_test(test_map_refuses_path_hosts),
		cmocka_unit_test(test_node_find),
		cmocka_unit_test(test_discover_real_machine),
		cmocka_unit_test(test_discover_no_card),
		cmocka_unit_test(test_discover_twin_and_auto_map),
		cmocka_unit_test(test_routes_equal_tt_route),
		cmocka_unit_test(test_injection_traced_and_delivery_flagged),
		cmocka_unit_test(test_pcp_tags_data_frames),
		cmocka_unit_test(test_drops),
		cmocka_unit_test(test_output_round_robin),
		cmocka_unit_test(test_direct_send_same_as_stored),
		cmocka_unit_test(test_arp_answered_for_pes),
		cmocka_unit_test(test_hello_and_cabling),
		cmocka_unit_test(test_counters_balance),
		cmocka_unit_test(test_too_long_dropped),
		cmocka_unit_test(test_hello_bad_port_refused),
		cmocka_unit_test(test_hello_log_rate_limited),
		cmocka_unit_test(test_credit_held_then_sent),
		cmocka_unit_test(test_credit_lost_frames_recovered),
		cmocka_unit_test(test_credit_internal_in_memory),
		cmocka_unit_test(test_credit_least),
		cmocka_unit_test(test_credit_link_down_up),
		cmocka_unit_test(test_credit_neighbour_restart),
		cmocka_unit_test(test_credit_bubble),
		cmocka_unit_test(test_credit_not_from_neighbour_refused),
		cmocka_unit_test(test_credit_header_refused),
		cmocka_unit_test(test_credit_malformed_refused),
		cmocka_unit_test(test_credit_implausible_refused),
		cmocka_unit_test(test_credit_epoch_only_from_neighbour),
		cmocka_unit_test(test_credit_lost_not_inflated),
		cmocka_unit_test(test_hello_verifies_neighbour),
		cmocka_unit_test(test_credit_refusals_log_rate_limited),
		cmocka_unit_test(test_lossy_drops_when_full),
		cmocka_unit_test(test_plane_nap_only_in_a_stream),
		cmocka_unit_test(test_buffer_sizes_from_config),
		cmocka_unit_test(test_capture_rotation),
		cmocka_unit_test(test_capture_full_disk),
		cmocka_unit_test(test_capture_refuses_links),
	};

	ttd_log_level = TTD_LOG_ERR;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
