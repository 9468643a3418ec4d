/*
 * The routing tables: a card's routes in compact form, built by asking
 * tt_route() (netgen.c, which asks the network's generator) about one
 * representative destination per entry.  The simulator and ttd look
 * routes up here; the analysis and the dependency graph call tt_route().
 */
#include <stdlib.h>
#include <string.h>

#include "twintorus/topo.h"

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
