/*
 * The routing function: dimension-order routing adapted to twin nodes, with
 * the VC of each hop.  Seed 000 Alg. 1-6 give it for 3DT and configuration
 * D; seed 001 Alg. 1-4 for nDT and C_Best.  Here it is written for any
 * configuration, using the VC layout from topo.c.
 *
 * This is the only place the routing rule lives.  Routing tables, the
 * analysis, the channel dependency graph, the simulator and ttd all call
 * tt_route() or a table built from it.
 */
#include <stdlib.h>
#include <string.h>

#include "twintorus/topo.h"
#include "networks/netgen.h"

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

tt_hop
tt_route_pkt(const tt_net *net, uint32_t card, uint32_t dst, int in_port,
    tt_pktroute *st)
{
	uint32_t node = tt_card_node(net, card), dnode = tt_card_node(net, dst);
	const uint16_t *cc = net->coord + (size_t)node * (size_t)net->n;
	const uint16_t *dc = net->coord + (size_t)dnode * (size_t)net->n;
	int side = tt_card_side(net, card);
	tt_hop h = {0, 0, TT_HOP_EJECT, 0, 0, TT_PORT_NIC, {0, 0}};
	int d, port, up, tie;

	if (net->gen != NULL)
		return netgen_route(net, card, dst);
	for (d = 0; d < net->n; d++)
		if (cc[d] != dc[d])
			break;
	if (d == net->n) {
		/* At the destination node (seed 000 Alg. 1, lines 7-10). */
		if (dst == card) {
			h.port = TT_PORT_NIC;
			return h;
		}
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

tt_hop
tt_route(const tt_net *net, uint32_t card, uint32_t dst, int in_port)
{
	return tt_route_pkt(net, card, dst, in_port, NULL);
}

int
tt_rtable_build(const tt_net *net, uint32_t card, tt_rtable *rt)
{
	uint32_t node = tt_card_node(net, card), dnode;
	size_t total = 0, off = 0;
	int d, v, c, coord[TT_MAX_DIMS];

	memset(rt, 0, sizeof(*rt));
	rt->card = card;
	rt->n = net->n;
	for (d = 0; d < net->n; d++) {
		rt->here[d] = (uint16_t)tt_node_digit(net, node, d);
		total += (size_t)net->k[d];
	}
	rt->store = calloc(total, sizeof(tt_hop));
	if (rt->store == NULL)
		return -1;
	/* Fill each entry by asking the routing function about a
	 * representative destination: this node with digit d replaced. */
	for (d = 0; d < net->n; d++) {
		rt->dim[d] = rt->store + off;
		off += (size_t)net->k[d];
		for (v = 0; v < net->k[d]; v++) {
			for (c = 0; c < net->n; c++)
				coord[c] = rt->here[c];
			coord[d] = v;
			dnode = tt_node_index(net, coord);
			rt->dim[d][v] = tt_route(net, card,
			    tt_card_of(net, dnode, 0), TT_PORT_NIC);
		}
	}
	for (c = 0; c < (net->twin ? 2 : 1); c++)
		rt->local[c] = tt_route(net, card, tt_card_of(net, node, c),
		    TT_PORT_NIC);
	return 0;
}

void
tt_rtable_free(tt_rtable *rt)
{
	free(rt->store);
	rt->store = NULL;
}
