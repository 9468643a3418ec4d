/*
 * The generators of the networks other than twin and plain tori, private
 * to lib/ (prototypes grouped by the file that defines them):
 *   netgen.c     the spec strings, the common build and the dispatch
 *   net_tori.c   pruned and directed tori (Parhami & Kwai, Comparing four
 *                classes of torus-based parallel architectures, 2004)
 *   net_hier.c   MH3DT (Rahman et al., On nonuniform traffic pattern of
 *                modified hierarchical 3D-torus network, 2011) and
 *                3D-TESH (Faisal, A new interconnection network that
 *                achieves high performance for many-core processors, 2015)
 *
 * A generator says how many nodes, ports and VC classes its network has
 * and what its routing digits are (derive), cables every port (wire),
 * and routes: route() is called only for a node other than the
 * destination and returns an external hop.
 */
#ifndef TWINTORUS_NETGEN_H
#define TWINTORUS_NETGEN_H

#include "twintorus/topo.h"

struct tt_gen {
	const char *name;
	enum tt_topo topo;
	const char *keys;       /* the spec keys it takes, e.g. "k,n" */
	/* n, k[], stride[], nnodes, card_nports, ext_vcs, directed,
	 * hop_limit from net->spec.gen (checked here, err on failure) */
	int (*derive)(tt_net *net, char *err, size_t errsz);
	/* peer[], peer_port[], arcs[] of every node (allocated) */
	void (*wire)(tt_net *net);
	tt_hop (*route)(const tt_net *net, uint32_t node, uint32_t dnode);
	const char *(*port_name)(const tt_net *net, int port, char *buf,
	    size_t bufsz);
	/* the cuts a bisection is the least of (0: the paper defines none),
	 * and the side of cut c a node is on */
	int (*ncuts)(const tt_net *net);
	int (*cut_side)(const tt_net *net, int cut, uint32_t node);
	/*
	 * The node id as its paper's address, digits least significant
	 * first: their radices into k[] (at most TT_ID_DIGITS), how many.
	 * The coordinate traffic patterns (tornado, center-reflection) work
	 * on these digits.
	 */
	int (*id_digits)(const tt_net *net, int *k);
	/* a node as its paper writes it, "(1,0,3)" */
	void (*node_name)(const tt_net *net, uint32_t node, char *buf,
	    size_t bufsz);
};

#define TT_ID_DIGITS 16

/* The value of key (TT_GENKEY_*) slot v: def when the spec left it out;
 * as given otherwise, 0 included (the generator refuses a bad one). */
static inline int
netgen_key(const tt_genspec *g, int key, int v, int def)
{
	return v != 0 || (g->given & (1u << key)) ? v : def;
}

/* ---- netgen.c ---- */

const struct tt_gen *netgen_find(enum tt_topo topo);
/* Everything of a generated network but the tables (topo.c's net_derive). */
int netgen_derive(tt_net *net, const tt_netspec *spec, char *err,
    size_t errsz);
/* The tables: peer[], peer_port[], arcs[].  -1 if out of memory. */
int netgen_build(tt_net *net);
void netgen_free(tt_net *net);
tt_hop netgen_route(const tt_net *net, uint32_t card, uint32_t dst);
/* A hop out of port with VC class vc (routing step of a generator). */
tt_hop netgen_hop(int port, int vc, int tag);
/* Set port p of node to lead to port pp of node peer, as a link of the
 * network (arc) or as a cable only. */
void netgen_cable(tt_net *net, uint32_t node, int p, uint32_t peer, int pp,
    int arc);
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

/* ---- net_tori.c ---- */

extern const struct tt_gen netgen_pruned, netgen_msn, netgen_pruned_msn;

/* ---- net_hier.c ---- */

extern const struct tt_gen netgen_mh3dt, netgen_tesh;

#endif
