/*
 * Twin and plain tori as a generator (netgen.h) like every other network:
 * the port configurations (seed 000 Table 1, seed 001 C_Best), the
 * virtual-channel layout, the routing function and the links, which a
 * torus computes from coordinates instead of keeping tables.
 *
 * Everything here is set up once by tt_net_init() (netgen.c) through
 * derive; routing tables, the analysis and the simulator only read it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/errf.h"
#include "networks/netgen.h"

/* C_Best (seed 001 Def. 3.5), with the + port of the middle dimension on card 0 for even k. */
static void
best_card_map(const tt_netspec *spec, uint8_t *card)
{
	int n = spec->n, d, mid;

	for (d = 0; d < n; d++) {
		card[tt_port_of(d, 0)] = (uint8_t)(2 * d < n - 1 ? 0 : 1);
		card[tt_port_of(d, 1)] = card[tt_port_of(d, 0)];
	}
	if (n % 2 == 1) {
		/*
		 * The middle dimension is split.  Seed 001 puts its - port on
		 * card 0 (k odd, where the side does not matter).  With even k
		 * the tie goes to +, so the + port on card 0 keeps more paths
		 * on one card (seed 000 §5.2.6): for n = 3 that is D.
		 */
		mid = (n - 1) / 2;
		if (spec->k[mid] % 2 == 0) {
			card[tt_port_of(mid, 0)] = 0;
			card[tt_port_of(mid, 1)] = 1;
		} else {
			card[tt_port_of(mid, 0)] = 1;
			card[tt_port_of(mid, 1)] = 0;
		}
	}
}

static int
resolve_ports(tt_net *net, const tt_netspec *spec, char *err, size_t errsz)
{
	const int8_t *c0;
	int seen[TT_MAX_EXT], count[2] = {0, 0};
	int n = spec->n, i, c, p;
	char pb[8];

	if (!spec->twin) {
		memset(net->port_card, 0, sizeof(net->port_card));
		snprintf(net->ports_name, sizeof(net->ports_name), "plain");
		return 0;
	}
	switch (spec->ports_kind) {
	case TT_PORTS_BEST:
		best_card_map(spec, net->port_card);
		snprintf(net->ports_name, sizeof(net->ports_name), "best");
		return 0;
	case TT_PORTS_LETTER:
		if (n != 3)
			return tt_errf(err, errsz, "port configuration %c is "
			    "defined for 3 dimensions only (seed 000 Table 1) "
			    "but the torus has %d: use best or a custom map",
			    spec->letter, n);
		c0 = tt_letter_card0(spec->letter);
		if (c0 == NULL)
			return tt_errf(err, errsz, "unknown port configuration "
			    "'%c'", spec->letter);
		memset(net->port_card, 1, sizeof(net->port_card));
		for (i = 0; i < 3; i++)
			net->port_card[c0[i]] = 0;
		snprintf(net->ports_name, sizeof(net->ports_name), "%c",
		    spec->letter);
		return 0;
	case TT_PORTS_CUSTOM:
		break;
	}
	memset(seen, 0, sizeof(seen));
	for (c = 0; c < 2; c++) {
		for (i = 0; i < spec->ncard[c]; i++) {
			p = spec->card_ports[c][i];
			if (!tt_port_is_ext(p) || tt_port_dim(p) >= n)
				return tt_errf(err, errsz, "card%d lists a port "
				    "that the %d-dimensional torus does not "
				    "have", c, n);
			if (seen[p])
				return tt_errf(err, errsz, "port %s is listed "
				    "twice: each external port belongs to "
				    "exactly one card",
				    tt_port_name(p, n, pb, sizeof(pb)));
			seen[p] = 1;
			net->port_card[p] = (uint8_t)c;
			count[c]++;
		}
	}
	for (p = 0; p < 2 * n; p++)
		if (!seen[p])
			return tt_errf(err, errsz, "port %s is on neither card: "
			    "each external port belongs to exactly one card",
			    tt_port_name(p, n, pb, sizeof(pb)));
	for (c = 0; c < 2; c++)
		if (count[c] != n)
			return tt_errf(err, errsz, "card%d holds %d external "
			    "ports; each card holds %d external ports plus the "
			    "internal link", c, count[c], n);
	snprintf(net->ports_name, sizeof(net->ports_name), "custom");
	return 0;
}

/*
 * Virtual channels (seed 000 §6.3, seed 001 §4.3), for any configuration.
 *
 * External links: under vc two VCs per ring, chosen by whether the
 * destination digit is above or below the current one (seed 000 Alg. 4);
 * one VC otherwise.
 *
 * Internal link, by traffic type (seed 000 §6.2.1):
 *  type 1 (entering a dimension whose ports are both on the other card):
 *    seed 000 uses one VC.  That is enough when, on each card, the
 *    dimensions wholly on it are consecutive in DOR order, which holds for
 *    all of A..J and for C_Best.  When a card's dimensions form several runs
 *    (d0 and d2 on card 0, d1 and d3 on card 1, say), packets can alternate
 *    cards several times and one VC closes a cycle through four nodes; we
 *    give each run its own VC, so type-1 VCs along a path strictly increase.
 *    Where a type-1 class owns several of seed 000 §7.1's VCs, a packet
 *    takes the one of its output port (layout_lanes() below).
 *  type 2 (the internal link as part of the ring of a split dimension): two
 *    VCs per split dimension under vc, one under bubble.
 *  type 3 (to the neighbour PE): one VC, last.
 * Under none everything shares VC 0.
 */
/*
 * The internal link's VCs in seed 000 §7.1's switch, and footnote 5's
 * choice among them: "for the traffic type 1 we have used two virtual
 * channels instead of just one, choosing the destination virtual channel
 * on the output port of the dimension in function of the output port".
 * Class c owns VCs c, c + int_vcs, ...; a type-1 class with more than one
 * takes lane (output port mod lanes), so under bubble a packet for X+ and
 * one for X- never share a buffer (and under vc, where the 4 VCs of C..J
 * are one per class, nothing changes).  Each lane is a refinement of its
 * class: a packet uses one of its class's VCs either way, so the class
 * graph being acyclic makes any choice among them deadlock-free; ttsim
 * verify checks the lanes' own graph.
 */
static void
layout_lanes(tt_net *net)
{
	int c, top = net->int_vcs - 1;

	net->int_phys = tt_phys_vcs(net->deadlock, net->int_vcs, 0);
	for (c = 0; c < TT_MAX_VCS; c++)
		net->lanes[c] = 1;
	if (net->deadlock != TT_DL_NONE && net->spec.t1_vc == TT_T1VC_PORT)
		for (c = 0; c < net->t1_vcs; c++) {
			net->lanes[c] = (uint8_t)((net->int_phys - c +
			    net->int_vcs - 1) / net->int_vcs);
			if (c + net->int_vcs * (net->lanes[c] - 1) > top)
				top = c + net->int_vcs * (net->lanes[c] - 1);
		}
	net->int_chans = top + 1;
}

static void
layout_vcs(tt_net *net)
{
	int runs[2] = {0, 0}, in_run[2] = {0, 0};
	int d, c, v, per_split;

	memset(net->t1_vc, -1, sizeof(net->t1_vc));
	memset(net->t2_vc, -1, sizeof(net->t2_vc));
	memset(net->lanes, 1, sizeof(net->lanes));
	net->ext_vcs = net->deadlock == TT_DL_VC ? 2 : 1;
	if (!net->twin) {
		net->int_vcs = 0;
		net->t1_vcs = 0;
		net->t3_vc = -1;
		net->int_phys = net->int_chans = 0;
		return;
	}
	for (d = 0; d < net->n; d++) {
		if (net->split[d]) {
			in_run[0] = in_run[1] = 0;
			continue;
		}
		c = net->port_card[tt_port_of(d, 0)];
		if (!in_run[c]) {
			runs[c]++;
			in_run[c] = 1;
		}
		in_run[1 - c] = 0;
		net->t1_vc[d] = (int8_t)(runs[c] - 1);
	}
	if (net->deadlock == TT_DL_NONE) {
		for (d = 0; d < net->n; d++) {
			if (net->t1_vc[d] >= 0)
				net->t1_vc[d] = 0;
			if (net->split[d])
				net->t2_vc[d] = 0;
		}
		net->t1_vcs = 0;
		net->t3_vc = 0;
		net->int_vcs = 1;
		layout_lanes(net);
		return;
	}
	net->t1_vcs = runs[0] > runs[1] ? runs[0] : runs[1];
	per_split = net->deadlock == TT_DL_VC ? 2 : 1;
	v = net->t1_vcs;
	for (d = 0; d < net->n; d++) {
		if (net->split[d]) {
			net->t2_vc[d] = (int8_t)v;
			v += per_split;
		}
	}
	net->t3_vc = v;
	net->int_vcs = v + 1;
	layout_lanes(net);
}

static void
layout_ports(tt_net *net)
{
	int c, p, i, base;

	memset(net->local_port, -1, sizeof(net->local_port));
	for (c = 0; c < (net->twin ? 2 : 1); c++) {
		i = 0;
		base = 0;
		for (p = 0; p < 2 * net->n; p++) {
			if (net->port_card[p] != c)
				continue;
			net->card_port[c][i] = (uint8_t)p;
			net->local_port[c][p] = (int8_t)i;
			net->chan_base[c][i] = (uint8_t)base;
			base += net->ext_vcs;
			i++;
		}
		if (net->twin) {
			net->card_port[c][i] = TT_PORT_INT;
			net->local_port[c][TT_PORT_INT] = (int8_t)i;
			net->chan_base[c][i] = (uint8_t)base;
			base += net->int_chans;
			i++;
		}
		net->card_nports = i;
		net->chans_per_card = base;
	}
}

/*
 * ringDirection() (seed 000 Alg. 2): the shorter way round, ties (k even,
 * distance k/2) to the positive direction (seed 000 §5), or to the
 * negative one when the packet's tie bit says so (TT_TIES_RANDOM).
 */
static inline int
ring_negative(int cur, int dst, int k, int tie_neg)
{
	int aux = (dst - cur + k) % k;

	return 2 * aux > k || (2 * aux == k && tie_neg);
}

int
tt_route_enters_ring(const tt_net *net, int in_port, const tt_hop *hop)
{
	switch (hop->type) {
	case TT_HOP_EXT:
		/* Continuing in the same ring: from the same dimension, or
		 * from the internal link that was part of this ring (seed 000
		 * Alg. 5, lines 10-13). */
		if (tt_port_is_ext(in_port) && tt_port_dim(in_port) == hop->dim)
			return 0;
		if (in_port == TT_PORT_INT && net->split[hop->dim])
			return 0;
		return 1;
	case TT_HOP_T2:
		/* The internal link is part of the split dimension's ring:
		 * entering it from elsewhere enters the ring (§6.3.2). */
		return !(tt_port_is_ext(in_port) && tt_port_dim(in_port) == hop->dim);
	default:
		/* Type 1 is not a ring hop (the packet enters the ring when it
		 * leaves the internal link); type 3 and ejection go to a PE. */
		return 0;
	}
}

int
tt_route_bubble(const tt_net *net, int in_port, const tt_hop *hop)
{
	if (net->deadlock != TT_DL_BUBBLE)
		return 0;
	return tt_route_enters_ring(net, in_port, hop);
}

/*
 * Under TT_RINGVC_ENTRY the ring class (0 or 1, Alg. 4's choice) is the
 * one of the hop that entered the ring, kept for every later hop in it.
 */
static void
ring_class_at_entry(const tt_net *net, int in_port, tt_hop *h, int base,
    tt_pktroute *st)
{
	if (tt_route_enters_ring(net, in_port, h))
		st->ring_cls = (uint8_t)(h->vc - base);
	else
		h->vc = (uint8_t)(base + st->ring_cls);
}

/*
 * The routing function of twin and plain tori: dimension-order routing
 * adapted to twin nodes (seed 000 Alg. 1-6 for 3DT and configuration D,
 * seed 001 Alg. 1-4 for nDT and C_Best), written for any configuration
 * with the VC layout above.  Called for a card other than dst.
 */
static tt_hop
torus_route(const tt_net *net, uint32_t card, uint32_t dst, int in_port,
    tt_pktroute *st)
{
	uint32_t node = tt_card_node(net, card), dnode = tt_card_node(net, dst);
	const uint16_t *cc = net->coord + (size_t)node * (size_t)net->n;
	const uint16_t *dc = net->coord + (size_t)dnode * (size_t)net->n;
	int side = tt_card_side(net, card);
	tt_hop h = {0, 0, TT_HOP_EJECT, 0, 0, TT_PORT_NIC, 0, 0};
	int d, port, up, tie;

	for (d = 0; d < net->n; d++)
		if (cc[d] != dc[d])
			break;
	if (d == net->n) {
		/* At the destination node, for the other card (seed 000
		 * Alg. 1, lines 7-10; the network layer ejects at dst). */
		h.port = TT_PORT_INT;
		h.type = TT_HOP_T3;
		h.vc = (uint8_t)net->t3_vc;
		return h;
	}
	tie = st != NULL && net->spec.ties == TT_TIES_RANDOM &&
	    (st->tie_neg >> d & 1);
	port = tt_port_of(d, ring_negative(cc[d], dc[d], net->k[d], tie));
	/* Up_Links / Low_Links (seed 000 Alg. 4, lines 10-14): a ring VC
	 * chosen by whether the destination digit lies above this one. */
	up = dc[d] > cc[d];
	h.dim = (uint8_t)d;
	h.via = (uint8_t)port;
	if (net->port_card[port] == side) {
		h.port = (uint8_t)port;
		h.type = TT_HOP_EXT;
		h.vc = net->deadlock == TT_DL_VC ? (uint8_t)(up ? 0 : 1) : 0;
		if (st != NULL && net->spec.ring_vc == TT_RINGVC_ENTRY &&
		    net->deadlock == TT_DL_VC)
			ring_class_at_entry(net, in_port, &h, 0, st);
	} else if (net->split[d]) {
		h.port = TT_PORT_INT;
		h.type = TT_HOP_T2;
		h.vc = (uint8_t)(net->t2_vc[d] +
		    (net->deadlock == TT_DL_VC && !up ? 1 : 0));
		if (st != NULL && net->spec.ring_vc == TT_RINGVC_ENTRY &&
		    net->deadlock == TT_DL_VC)
			ring_class_at_entry(net, in_port, &h, net->t2_vc[d], st);
	} else {
		h.port = TT_PORT_INT;
		h.type = TT_HOP_T1;
		h.vc = (uint8_t)net->t1_vc[d];
	}
	h.bubble = (uint8_t)tt_route_bubble(net, in_port, &h);
	return h;
}

/* Everything tt_net_init() derives, without the coordinate table. */
static int
torus_derive(tt_net *net, char *err, size_t errsz)
{
	const tt_netspec *spec = &net->spec;
	uint64_t nodes = 1;
	int d;

	if (spec->n < 2)
		return tt_errf(err, errsz, "a torus needs at least 2 dimensions, "
		    "got %d", spec->n);
	if (spec->n > TT_MAX_DIMS)
		return tt_errf(err, errsz, "at most %d dimensions are supported, "
		    "got %d", TT_MAX_DIMS, spec->n);
	for (d = 0; d < spec->n; d++) {
		if (spec->k[d] < 2 || spec->k[d] > TT_MAX_K)
			return tt_errf(err, errsz, "dimension %d has %d nodes; "
			    "each dimension needs 2..%d", d, spec->k[d],
			    TT_MAX_K);
		nodes *= (uint64_t)spec->k[d];
		if (nodes > TT_MAX_NODES)
			return tt_errf(err, errsz, "the torus has more than "
			    "%u nodes, the most twintorus models",
			    (unsigned)TT_MAX_NODES);
	}
	net->n = spec->n;
	memcpy(net->k, spec->k, sizeof(net->k));
	net->twin = spec->twin ? 1 : 0;
	net->deadlock = spec->deadlock;
	net->nnodes = (uint32_t)nodes;
	net->ncards = net->twin ? net->nnodes * 2 : net->nnodes;
	if (resolve_ports(net, spec, err, errsz) < 0)
		return -1;
	/* A DOR path crosses each dimension at most once, half way round at
	 * most, and the internal link at most once per node. */
	net->hop_limit = 2;
	for (d = 0; d < net->n; d++) {
		net->stride[d] = d == 0 ? 1 : net->stride[d - 1] * (uint32_t)net->k[d - 1];
		net->split[d] = net->twin && net->port_card[tt_port_of(d, 0)] !=
		    net->port_card[tt_port_of(d, 1)];
		net->hop_limit += 2 * ((uint32_t)net->k[d] / 2 + 1);
	}
	layout_vcs(net);
	layout_ports(net);
	if (net->int_vcs > TT_MAX_VCS || net->chans_per_card > 64)
		return tt_errf(err, errsz, "this configuration needs %d "
		    "internal-link VCs; at most %d are supported",
		    net->int_vcs, TT_MAX_VCS);
	return 0;
}

static int
torus_has_link(const tt_net *net, uint32_t card, int port)
{
	if (port == TT_PORT_INT)
		return net->twin;
	return tt_port_is_ext(port) && port < 2 * net->n &&
	    net->local_port[tt_card_side(net, card)][port] >= 0;
}

static uint32_t
torus_link_peer(const tt_net *net, uint32_t card, int port, int *peer_port)
{
	uint32_t node = tt_card_node(net, card), peer;
	int d, digit, k, side;

	if (port == TT_PORT_INT) {
		*peer_port = TT_PORT_INT;
		return card ^ 1u;
	}
	d = tt_port_dim(port);
	k = net->k[d];
	digit = tt_node_digit(net, node, d);
	if (tt_port_neg(port))
		peer = digit == 0 ? node + (uint32_t)(k - 1) * net->stride[d] :
		    node - net->stride[d];
	else
		peer = digit == k - 1 ? node - (uint32_t)(k - 1) * net->stride[d] :
		    node + net->stride[d];
	/* X+ of one node is cabled to X- of its +X neighbour. */
	*peer_port = port ^ 1;
	side = net->port_card[*peer_port];
	return tt_card_of(net, peer, side);
}

static const char *
torus_port_name(const tt_net *net, int port, char *buf, size_t bufsz)
{
	return tt_port_name(port, net->n, buf, bufsz);
}

/* Seed 002 Table 1's bisection: a cut through the middle of one
 * dimension; the least over the dimensions. */
static int
torus_ncuts(const tt_net *net)
{
	return net->n;
}

static int
torus_cut_side(const tt_net *net, int cut, uint32_t node)
{
	return tt_node_digit(net, node, cut) >= net->k[cut] / 2;
}

/* The node id is the coordinates, the first dimension least significant. */
static int
torus_id_digits(const tt_net *net, int *k)
{
	int d;

	for (d = 0; d < net->n; d++)
		k[d] = net->k[d];
	return net->n;
}

/* "(1,0,3)/c1" for twin, "(1,0,3)" for plain. */
static void
torus_card_name(const tt_net *net, uint32_t card, char *buf, size_t bufsz)
{
	uint32_t node = tt_card_node(net, card);
	size_t len = 0;
	int d;

	len += (size_t)snprintf(buf + len, bufsz - len, "(");
	for (d = 0; d < net->n && len < bufsz; d++)
		len += (size_t)snprintf(buf + len, bufsz - len, "%s%d",
		    d ? "," : "", tt_node_digit(net, node, d));
	if (len < bufsz)
		len += (size_t)snprintf(buf + len, bufsz - len, ")");
	if (net->twin && len < bufsz)
		snprintf(buf + len, bufsz - len, "/c%d", tt_card_side(net, card));
}

/* A PE as node coordinates and card, "1,0,3/1". */
static int
torus_pe_at(const tt_net *net, const char *s, const int *c, int nc,
    int side, uint32_t *pe, char *err, size_t errsz)
{
	int d;

	if (nc != net->n)
		return tt_errf(err, errsz, "PE '%s' has %d coordinates; the "
		    "torus has %d dimensions", s, nc, net->n);
	for (d = 0; d < net->n; d++)
		if (c[d] >= net->k[d])
			return tt_errf(err, errsz, "PE '%s': coordinate %d is "
			    "%d but dimension %d has %d nodes", s, d,
			    c[d], d, net->k[d]);
	if (side == 1 && !net->twin)
		return tt_errf(err, errsz, "PE '%s': a plain torus has one PE "
		    "per node", s);
	*pe = tt_card_of(net, tt_node_index(net, c), side);
	return 0;
}

const struct tt_gen netgen_torus = {
	.name = "torus",
	.topo = TT_TOPO_TORUS,
	.keys = "k,n",
	.cube = 1,
	.no_n = NULL,
	.one_card = 0,
	.derive = torus_derive,
	.wire = NULL,
	.route = torus_route,
	.link_peer = torus_link_peer,
	.has_link = torus_has_link,
	.port_name = torus_port_name,
	.ncuts = torus_ncuts,
	.cut_side = torus_cut_side,
	.id_digits = torus_id_digits,
	.card_name = torus_card_name,
	.pe_at = torus_pe_at,
};
