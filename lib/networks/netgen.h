/*
 * The generators of every network, private to lib/ (prototypes grouped
 * by the file that defines them):
 *   netgen.c     the network layer: the spec strings, tt_net_init(), what
 *                the one-card-per-node networks share, and the one place
 *                that calls through a generator's ops (tt_route(),
 *                tt_link_peer(), tt_card_name(), ...)
 *   net_torus.c  twin and plain tori (seed 000, seed 001)
 *   net_tori.c   pruned and directed tori (Parhami & Kwai, Comparing four
 *                classes of torus-based parallel architectures, 2004)
 *   net_hier.c   MH3DT (Rahman et al., On nonuniform traffic pattern of
 *                modified hierarchical 3D-torus network, 2011) and
 *                3D-TESH (Faisal, A new interconnection network that
 *                achieves high performance for many-core processors, 2015)
 *
 * A generator says how many nodes, cards, ports and VC classes its
 * network has and what its routing digits are (derive), cables every
 * port (wire, or link_peer by arithmetic), and routes: route() is called
 * only for a card other than the destination (the network layer ejects).
 * The generators call down only (topo.c, errf.c, the inlines below),
 * never netgen.c or route.c: the dependencies form no circle.
 */
#ifndef TWINTORUS_NETGEN_H
#define TWINTORUS_NETGEN_H

#include "twintorus/topo.h"

struct tt_gen {
	const char *name;
	enum tt_topo topo;
	const char *keys;       /* the spec keys it takes, e.g. "k,n" */
	/* 1: a k-ary n-cube (k= its radix, n= its dimensions), also named
	 * by its dims, "pruned:8x8x8"; 0: keys only */
	int cube;
	/* why n= is not a key, for the message (NULL: n is one) */
	const char *no_n;
	/*
	 * 1: one card (switch) and one PE per node, the vc scheme only, port
	 * p local port p with ext_vcs VCs each: netgen.c lays that out after
	 * derive.  0: derive lays out everything (the tori of net_torus.c).
	 */
	int one_card;
	/* everything of net but the tables, from net->spec (its gen keys
	 * for a generated kind; checked here, err on failure) */
	int (*derive)(tt_net *net, char *err, size_t errsz);
	/* peer[], peer_port[], arcs[] of every node (allocated); NULL: the
	 * network has no tables and gives link_peer and has_link */
	void (*wire)(tt_net *net);
	/* the next hop of a packet at card for PE dst (card != dst);
	 * in_port and st matter only to the tori's rules */
	tt_hop (*route)(const tt_net *net, uint32_t card, uint32_t dst,
	    int in_port, tt_pktroute *st);
	/* a port's far end and whether it carries a link; NULL: from the
	 * tables wire filled */
	uint32_t (*link_peer)(const tt_net *net, uint32_t card, int port,
	    int *peer_port);
	int (*has_link)(const tt_net *net, uint32_t card, int port);
	const char *(*port_name)(const tt_net *net, int port, char *buf,
	    size_t bufsz);
	/* the cuts a bisection is the least of (NULL: the paper defines
	 * none), and the side of cut c a node is on */
	int (*ncuts)(const tt_net *net);
	int (*cut_side)(const tt_net *net, int cut, uint32_t node);
	/*
	 * The node id as its paper's address, digits least significant
	 * first: their radices into k[] (at most TT_ID_DIGITS), how many.
	 * The coordinate traffic patterns (tornado, center-reflection) work
	 * on these digits.
	 */
	int (*id_digits)(const tt_net *net, int *k);
	/* a card as its paper writes it, "(1,0,3)/c1" (one card per node:
	 * card == node) */
	void (*card_name)(const tt_net *net, uint32_t card, char *buf,
	    size_t bufsz);
	/* the card at coordinates c[0..nc-1] and side ("1,0,3/1": s is the
	 * whole text, for messages); NULL: PEs are named by id only */
	int (*pe_at)(const tt_net *net, const char *s, const int *c, int nc,
	    int side, uint32_t *pe, char *err, size_t errsz);
};

#define TT_ID_DIGITS 16

/* The value of key (TT_GENKEY_*) slot v: def when the spec left it out;
 * as given otherwise, 0 included (the generator refuses a bad one). */
static inline int
netgen_key(const tt_genspec *g, int key, int v, int def)
{
	return v != 0 || (g->given & (1u << key)) ? v : def;
}

/* Whether the spec gave key (TT_GENKEY_*). */
static inline int
netgen_given(const tt_genspec *g, int key)
{
	return (g->given & (1u << key)) != 0;
}

/* The generator of a network: the one read of tt_net.gen outside
 * tt_net_init()'s assignment. */
static inline const struct tt_gen *
netgen_of(const tt_net *net)
{
	return net->gen;
}

/* A hop out of port with VC class vc (routing step of a generator). */
static inline tt_hop
netgen_hop(int port, int vc, int tag)
{
	tt_hop h = {0, 0, TT_HOP_EXT, 0, 0, TT_PORT_NIC, 0, 0};

	h.port = (uint8_t)port;
	h.vc = (uint8_t)vc;
	h.dim = (uint8_t)tag;
	return h;
}

/* Set port p of node to lead to port pp of node peer, as a link of the
 * network (arc) or as a cable only. */
static inline void
netgen_cable(tt_net *net, uint32_t node, int p, uint32_t peer, int pp,
    int arc)
{
	size_t i = (size_t)node * (size_t)net->card_nports + (size_t)p;

	net->peer[i] = peer;
	net->peer_port[i] = (uint8_t)pp;
	if (arc)
		net->arcs[node] |= (uint16_t)(1u << p);
}

/*
 * A ring step of a route from digit cur toward digit dst of a ring of k:
 * the VC class of the dateline pair (1 while the wrap from k-1 to 0, or 0
 * to k-1 going -, lies ahead; 0 once it is behind or when it is not on
 * the way).
 */
static inline int
netgen_dateline(int cur, int dst, int neg)
{
	return neg ? dst > cur : dst < cur;
}

/* ---- netgen.c ---- */

const struct tt_gen *netgen_find(enum tt_topo topo);
/* The node id as its paper's address (struct tt_gen id_digits). */
int tt_net_id_digits(const tt_net *net, int *k);

/* ---- net_torus.c ---- */

extern const struct tt_gen netgen_torus;

/* ---- net_tori.c ---- */

extern const struct tt_gen netgen_pruned, netgen_msn, netgen_pruned_msn;

/* ---- net_hier.c ---- */

extern const struct tt_gen netgen_mh3dt, netgen_tesh;

#endif
