/*
 * tbroute: what the testbed compares the daemons against.
 *
 *   tbroute paths CONFIG      every ordered pair of distinct PEs, one line:
 *                             "SRC DST NODE.SIDE.PORT.VC ..." (the hops, in order)
 *   tbroute nexthop CONFIG    per node and destination PE, the port a
 *                             node-level router takes: "NODE DST PORT"
 *                             (an external port, or pe0/pe1 for its own PEs)
 *   tbroute layout CONFIG     what the testbed wires: "node N X,Y,Z" per node,
 *                             "port SIDE NAME TORUSNAME" per port of a node,
 *                             "cable NODE PORT NODE PORT" per cable (listed
 *                             from its + end)
 *   tbroute frames FILE       the records of a trace, one line each:
 *                             "RECNO T_NS TYPE SRC DST SEQ VC HOPS FLAGS"
 *
 * Ports are written as in ttd's per-port trace names: Xp, Xm, ..., int
 * (d0p, d0m, ... beyond three dimensions).  The paths come from tt_route(),
 * the routing function the simulator and the daemon share (lib/networks/route.c),
 * walked from the source PE's card until it ejects; the kernel-forwarding
 * mode of the testbed routes with nexthop, the same DOR at node level.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "twintorus/config.h"
#include "twintorus/frame.h"
#include "twintorus/topo.h"
#include "twintorus/trace.h"

static const char *
tb_port_name(const tt_net *net, int port, char *buf, size_t bufsz)
{
	char *s;

	if (port == TT_PORT_INT)
		return "int";
	tt_port_name(port, net->n, buf, bufsz);
	for (s = buf; *s != '\0'; s++)
		if (*s == '+')
			*s = 'p';
		else if (*s == '-')
			*s = 'm';
	return buf;
}

static int
tb_net_load(tt_net *net, const char *path)
{
	tt_config cfg;
	char err[256];
	int rc;

	tt_config_default(&cfg);
	if (tt_config_load(&cfg, path, stderr) != 0) {
		tt_config_free(&cfg);
		return -1;
	}
	rc = tt_net_init(net, &cfg.spec, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "tbroute: %s: %s\n", path, err);
	tt_config_free(&cfg);
	return rc;
}

/* Walk tt_route() from src's card to dst; print the hops. */
static int
tb_path(const tt_net *net, uint32_t src, uint32_t dst)
{
	uint32_t card = src;
	int in_port = TT_PORT_NIC, guard;
	char pb[16];

	printf("%" PRIu32 " %" PRIu32, src, dst);
	for (guard = 0; guard < 4 * TT_MAX_K; guard++) {
		tt_hop h = tt_route(net, card, dst, in_port);
		int peer_port;

		if (h.port == TT_PORT_NIC) {
			putchar('\n');
			return 0;
		}
		printf(" %" PRIu32 ".%d.%s.%u", tt_card_node(net, card),
		    tt_card_side(net, card),
		    tb_port_name(net, h.port, pb, sizeof(pb)), h.vc);
		card = tt_link_peer(net, card, h.port, &peer_port);
		in_port = peer_port;
	}
	fprintf(stderr, "tbroute: no path from PE %" PRIu32 " to PE %" PRIu32
	    " ends\n", src, dst);
	return -1;
}

static int
cmd_paths(const char *path)
{
	tt_net net;
	uint32_t s, d;
	int rc = 0;

	if (tb_net_load(&net, path) != 0)
		return 2;
	for (s = 0; s < net.ncards && rc == 0; s++)
		for (d = 0; d < net.ncards && rc == 0; d++)
			if (s != d)
				rc = tb_path(&net, s, d);
	tt_net_free(&net);
	return rc == 0 ? 0 : 1;
}

/*
 * A node seen as one router: the first external port the card-level path
 * takes, which DOR makes the same from either card of the node.
 */
static int
cmd_nexthop(const char *path)
{
	tt_net net;
	uint32_t node, dst;
	char pb[16];

	if (tb_net_load(&net, path) != 0)
		return 2;
	if (!net.twin) {
		fprintf(stderr, "tbroute: %s: the testbed builds twin tori only\n",
		    path);
		tt_net_free(&net);
		return 2;
	}
	for (node = 0; node < net.nnodes; node++)
		for (dst = 0; dst < net.ncards; dst++) {
			uint32_t card = tt_card_of(&net, node, 0);
			int in_port = TT_PORT_NIC, peer_port;
			tt_hop h;

			if (tt_card_node(&net, dst) == node) {
				printf("%" PRIu32 " %" PRIu32 " pe%d\n", node, dst,
				    tt_card_side(&net, dst));
				continue;
			}
			h = tt_route(&net, card, dst, in_port);
			if (h.port == TT_PORT_INT) {
				card = tt_link_peer(&net, card, h.port, &peer_port);
				h = tt_route(&net, card, dst, peer_port);
			}
			if (!tt_port_is_ext(h.port)) {
				fprintf(stderr, "tbroute: node %" PRIu32 " has no "
				    "external port towards PE %" PRIu32 "\n", node, dst);
				tt_net_free(&net);
				return 1;
			}
			printf("%" PRIu32 " %" PRIu32 " %s\n", node, dst,
			    tb_port_name(&net, h.port, pb, sizeof(pb)));
		}
	tt_net_free(&net);
	return 0;
}

static int
cmd_layout(const char *path)
{
	tt_net net;
	uint32_t node, card, peer;
	char pb[16], qb[16], tb[16];
	int d, side, i, port, peer_port;

	if (tb_net_load(&net, path) != 0)
		return 2;
	if (!net.twin) {
		fprintf(stderr, "tbroute: %s: the testbed builds twin tori only\n",
		    path);
		tt_net_free(&net);
		return 2;
	}
	for (node = 0; node < net.nnodes; node++) {
		printf("node %" PRIu32 " ", node);
		for (d = 0; d < net.n; d++)
			printf("%s%d", d > 0 ? "," : "", tt_node_digit(&net, node, d));
		putchar('\n');
	}
	for (side = 0; side < 2; side++)
		for (i = 0; i < net.card_nports; i++) {
			port = net.card_port[side][i];
			printf("port %d %s %s\n", side,
			    tb_port_name(&net, port, pb, sizeof(pb)),
			    port == TT_PORT_INT ? "internal" :
			    tt_port_name(port, net.n, tb, sizeof(tb)));
		}
	for (node = 0; node < net.nnodes; node++)
		for (d = 0; d < net.n; d++) {
			port = tt_port_of(d, 0);
			card = tt_card_of(&net, node, net.port_card[port]);
			peer = tt_link_peer(&net, card, port, &peer_port);
			printf("cable %" PRIu32 " %s %" PRIu32 " %s\n", node,
			    tb_port_name(&net, port, pb, sizeof(pb)),
			    tt_card_node(&net, peer),
			    tb_port_name(&net, peer_port, qb, sizeof(qb)));
		}
	tt_net_free(&net);
	return 0;
}

static int
cmd_frames(const char *path)
{
	tt_trace_reader *r;
	tt_trace_rec rec;
	tt_frame f;
	char err[256];
	int rc;

	if (tt_trace_open(&r, path, err, sizeof(err)) != 0) {
		fprintf(stderr, "tbroute: %s\n", err);
		return 2;
	}
	while ((rc = tt_trace_read(r, &rec, err, sizeof(err))) == 1) {
		if (tt_frame_decode(&f, rec.data, rec.caplen, err,
		    sizeof(err)) != 0) {
			fprintf(stderr, "tbroute: %s: record %" PRIu64 ": not a "
			    "torus frame: %s\n", path, rec.recno, err);
			tt_trace_close_reader(r);
			return 2;
		}
		printf("%" PRIu64 " %" PRIu64 " %s %" PRIu32 " %" PRIu32 " %"
		    PRIu32 " %u %u %u\n", rec.recno, rec.t_ns,
		    f.type == TT_FRAME_HELLO ? "hello" : "data", f.src, f.dst,
		    f.seq, f.vc, f.hops, f.flags);
	}
	if (rc < 0) {
		fprintf(stderr, "tbroute: %s\n", err);
		tt_trace_close_reader(r);
		return 2;
	}
	if (tt_trace_truncated(r) != 0) {
		fprintf(stderr, "tbroute: %s: record %" PRIu64 " is cut off by "
		    "the end of the file\n", path, tt_trace_truncated(r));
		tt_trace_close_reader(r);
		return 2;
	}
	tt_trace_close_reader(r);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "paths") == 0)
		return cmd_paths(argv[2]);
	if (argc == 3 && strcmp(argv[1], "nexthop") == 0)
		return cmd_nexthop(argv[2]);
	if (argc == 3 && strcmp(argv[1], "layout") == 0)
		return cmd_layout(argv[2]);
	if (argc == 3 && strcmp(argv[1], "frames") == 0)
		return cmd_frames(argv[2]);
	fprintf(stderr, "usage: tbroute paths|nexthop|layout CONFIG, "
	    "tbroute frames TRACE\n");
	return 64;
}
