/*
 * twintorus: the network model shared by ttd and ttsim.
 *
 * A torus of n >= 2 dimensions with k_i >= 2 nodes in dimension i.  In a twin
 * torus (seed 000 §3.2, seed 001 §2.2) every node has two cards joined by the
 * internal link; card c carries PE c and n of the 2n external ports.  In a
 * plain torus a node has one card with all 2n ports and one PE.
 *
 * Identifiers:
 *   node  = o_0 + k_0*(o_1 + k_1*(o_2 + ...))
 *   card  = pe = node*2 + c   (twin)        card = pe = node   (plain)
 *   external port p = 2*dim + neg, so X+ = 0, X- = 1, Y+ = 2, ...
 *
 * A card is also a switch: ttsim models one switch per card and ttd runs one
 * forwarding plane per card, so "card" and "switch" are the same id here.
 */
#ifndef TWINTORUS_TOPO_H
#define TWINTORUS_TOPO_H

#include <stddef.h>
#include <stdint.h>
#include "twintorus/api.h"

TT_BEGIN_DECLS

#define TT_MAX_DIMS   8
#define TT_MAX_K      65535
#define TT_MAX_NODES  (1u << 26)  /* 64M nodes: a coordinate table of 1 GiB at most */
#define TT_MAX_EXT    (2 * TT_MAX_DIMS)
#define TT_PORT_INT   TT_MAX_EXT          /* the internal link (twin only) */
#define TT_PORT_NIC   (TT_MAX_EXT + 1)    /* the PE: injection and ejection */
#define TT_NPORTS     (TT_MAX_EXT + 2)
#define TT_MAX_VCS    32

static inline int tt_port_of(int dim, int neg) { return 2 * dim + (neg ? 1 : 0); }
static inline int tt_port_dim(int port) { return port >> 1; }
static inline int tt_port_neg(int port) { return port & 1; }
static inline int tt_port_is_ext(int port) { return port >= 0 && port < TT_MAX_EXT; }

enum tt_deadlock {
	TT_DL_VC = 0,     /* virtual channels, seed 000 §6.3.1 */
	TT_DL_BUBBLE,     /* bubble flow control, seed 000 §6.3.2 */
	TT_DL_NONE        /* plain DOR, one VC: shows the deadlock */
};

/*
 * Which internal-link VC a type-1 packet takes when its class has several
 * (the simulator's ports have a power of two of VCs, seed 000 §7.1).
 */
enum tt_t1vc {
	TT_T1VC_PORT = 0, /* by the output port it leaves the other card by
	                   * (seed 000 §7.1 footnote 5) */
	TT_T1VC_ROOM      /* the VC of its class with the most room */
};

/* Ties at distance k/2 (k even).  The seed model sends them to +; a
 * simulator such as BookSim2 draws the direction per packet. */
enum tt_ties {
	TT_TIES_PLUS = 0,
	TT_TIES_RANDOM
};

/* A ring's VC class under vc.  The seed model (Alg. 4) recomputes it at
 * every hop from the destination digit; the other choice fixes it when
 * the packet enters the ring and keeps it until it leaves. */
enum tt_ringvc {
	TT_RINGVC_HOP = 0,
	TT_RINGVC_ENTRY
};

/*
 * The kind of network a spec names.  A network is switches with ports,
 * links between ports, one PE per switch (two per node in a twin torus)
 * and a routing function whose hops carry VC classes.  Every kind is
 * built by its generator (lib/networks/netgen.h: twin and plain tori in
 * net_torus.c, the others in net_tori.c and net_hier.c), from the flags
 * and the YAML torus: section or from a spec string ("torus:k=8",
 * "pruned:k=8", "tesh:L=2"); the generated kinds other than tori are
 * described by the generic fields at the end of tt_net.
 */
enum tt_topo {
	TT_TOPO_TORUS = 0,    /* twin or plain torus (twin decides) */
	TT_TOPO_PRUNED,       /* pruned torus (seed 002 §2) */
	TT_TOPO_MSN,          /* directed torus, Manhattan street network */
	TT_TOPO_PRUNED_MSN,   /* pruned directed torus */
	TT_TOPO_MH3DT,        /* modified hierarchical 3D torus (seed 003) */
	TT_TOPO_TESH          /* 3D-TESH (seed 004) */
};

/* The keys of a generated network's spec, as bits of tt_genspec.given. */
enum tt_genkey {
	TT_GENKEY_K = 0, TT_GENKEY_N, TT_GENKEY_M, TT_GENKEY_L, TT_GENKEY_Q,
	TT_GENKEY_VCS
};

/*
 * A generated network's parameters (0: the generator's default, unless
 * the key's bit is set in given: then 0 is the value asked for, and
 * refused where it is not a valid one, as tesh's q = 0 is).
 */
typedef struct tt_genspec {
	int k;        /* pruned, msn: nodes per dimension */
	int n;        /* pruned, msn: dimensions; mh3dt: BMs per dimension */
	int m;        /* mh3dt: BM side; tesh: BM side is 2^m */
	int L;        /* mh3dt, tesh: levels */
	int q;        /* mh3dt, tesh: inter-level connectivity */
	int vcs;      /* mh3dt, tesh: the paper's VC scheme instead of ours
	               * (to show its cycle), as a VC count; 0: ours */
	unsigned given;       /* 1u << TT_GENKEY_*: the keys a spec gave
	                       * (tt_netspec_parse() sets it) */
} tt_genspec;

enum tt_ports_kind {
	TT_PORTS_LETTER = 0,  /* A..J of seed 000 Table 1 (n = 3 only) */
	TT_PORTS_BEST,        /* C_Best of seed 001 §3.3.1 */
	TT_PORTS_CUSTOM       /* an explicit {card0: [...], card1: [...]} map */
};

/*
 * What a user asks for: from flags or from the torus: section of a YAML file.
 * tt_net_init() validates it and derives everything else.
 */
typedef struct tt_netspec {
	int n;                        /* number of dimensions */
	int k[TT_MAX_DIMS];           /* nodes per dimension */
	int twin;                     /* 1: two cards per node; 0: plain torus */
	enum tt_deadlock deadlock;
	enum tt_ports_kind ports_kind;
	char letter;                  /* 'A'..'J' for TT_PORTS_LETTER */
	int ncard[2];                 /* TT_PORTS_CUSTOM: ports listed per card */
	int8_t card_ports[2][TT_MAX_EXT]; /* TT_PORTS_CUSTOM: port ids */
	/* the model's rules (zero: the seed model's) */
	enum tt_t1vc t1_vc;
	enum tt_ties ties;
	enum tt_ringvc ring_vc;
	/* the kind of network; TT_TOPO_TORUS uses the fields above */
	enum tt_topo topo;
	tt_genspec gen;
} tt_netspec;

/* What kind of use of a link a hop is (seed 000 §6.2.1 traffic types). */
enum tt_hop_type {
	TT_HOP_EXT = 0,   /* out of an external port */
	TT_HOP_T1,        /* internal link, to enter a dimension wholly on the other card */
	TT_HOP_T2,        /* internal link, as part of the ring of a split dimension */
	TT_HOP_T3,        /* internal link, to the neighbour PE (destination node) */
	TT_HOP_EJECT      /* to this card's PE */
};

/* One routing decision: where a packet at a card goes next. */
typedef struct tt_hop {
	uint8_t port;     /* external port id, TT_PORT_INT or TT_PORT_NIC */
	uint8_t vc;       /* VC on that output (0 for TT_PORT_NIC) */
	uint8_t type;     /* enum tt_hop_type */
	uint8_t dim;      /* dimension routed (EXT, T1, T2); 0 otherwise */
	uint8_t bubble;   /* bubble condition applies (TT_DL_BUBBLE only) */
	uint8_t via;      /* EXT, T1, T2: the external port the packet takes
	                   * out of the dimension (on the other card for T1
	                   * and T2); TT_PORT_NIC otherwise */
	uint8_t lport;    /* in the simulator's tables only (lib/engine):
	                   * the output's local index at that switch */
	uint8_t pad;      /* 8 bytes: a table entry is one scaled index */
} tt_hop;

/* The whole network model, derived from a tt_netspec. Read-only once built. */
typedef struct tt_net {
	tt_netspec spec;
	int n;
	int k[TT_MAX_DIMS];
	int twin;
	enum tt_deadlock deadlock;
	uint32_t nnodes;
	uint32_t ncards;              /* == number of PEs */
	uint32_t stride[TT_MAX_DIMS];
	uint16_t *coord;              /* nnodes * n coordinates */

	/* port configuration, resolved (best -> a concrete map) */
	uint8_t port_card[TT_MAX_EXT];  /* card of each external port */
	uint8_t split[TT_MAX_DIMS];     /* the two ports of dim sit on different cards */
	char ports_name[16];            /* "A".."J", "best", "custom" (twin); "plain" */

	/* virtual channels (see tt_net_init for the assignment) */
	int ext_vcs;                    /* VCs on every external link */
	int int_vcs;                    /* VCs on the internal link (0 if plain) */
	int t1_vcs;                     /* how many of int_vcs serve type 1 */
	int8_t t1_vc[TT_MAX_DIMS];      /* internal VC to enter dim (type 1) */
	int8_t t2_vc[TT_MAX_DIMS];      /* first internal VC of split dim (type 2) */
	int t3_vc;                      /* internal VC to the neighbour PE (type 3) */
	/*
	 * Seed 000 §7.1 gives the internal link a power of two of VCs
	 * (int_phys: 4 for C..J under bubble where 3 classes are needed, 8
	 * for A, B, E, F under vc), so a class may own several, classes
	 * c, c + int_vcs, c + 2*int_vcs, ...  Footnote 5 has type-1 packets
	 * pick among theirs by the output port they take next: lanes[c] is
	 * how many a type-1 class c picks among (1 for every other class,
	 * under none, and with TT_T1VC_ROOM), and int_chans the channels
	 * the internal link has in the dependency graph (its VCs up to the
	 * last lane; int_vcs when no class has lanes).
	 */
	int int_phys;
	uint8_t lanes[TT_MAX_VCS];
	int int_chans;

	/* per-card port layout: local port index <-> port id */
	int card_nports;                  /* ports on a card, internal link included */
	uint8_t card_port[2][TT_MAX_EXT + 1];
	int8_t local_port[2][TT_NPORTS];  /* -1 if the port is not on that card */
	int chans_per_card;               /* output channels (port, vc) per card */
	uint8_t chan_base[2][TT_MAX_EXT + 1]; /* first channel of each local port */

	/*
	 * A generated network (spec.topo != TT_TOPO_TORUS): one card (switch)
	 * and one PE per node, card_nports ports on every switch (port p is
	 * local port p), ext_vcs VC classes on each.  n and k[] are then the
	 * routing digits, not dimensions: the routing function decides on the
	 * first digit in which the destination differs and that digit's value
	 * alone, so tt_rtable serves these networks unchanged; stride[] places
	 * a digit in the node id (any mixed radix, not only increasing).
	 * peer[] and peer_port[] give every port's far end (a port with no link
	 * leads back to itself); arcs[] has bit p set where port p is a link
	 * the network has (an out-arc when directed).  A directed network is
	 * cabled as its undirected torus, so credits flow back on the reverse
	 * cable, and only the arcs in arcs[] carry packets.
	 */
	const struct tt_gen *gen;     /* the generator (every kind; read
	                               * through the functions below) */
	uint32_t *peer;               /* nnodes * card_nports */
	uint8_t *peer_port;           /* nnodes * card_nports */
	uint16_t *arcs;               /* nnodes */
	int directed;
	uint32_t hop_limit;           /* no route is longer (a bug check) */
	char topo_name[64];           /* "pruned:k=8,n=3" */
} tt_net;

/* ---- lib/networks/topo.c: the model's words, shared by every network ---- */

/* Port names: "X+", "Y-", "Z+" for n <= 3 and "d0+".."d7-" for any n. */
int tt_port_parse(const char *name, int n);
const char *tt_port_name(int port, int n, char *buf, size_t bufsz);
const char *tt_deadlock_name(enum tt_deadlock dl);
int tt_deadlock_parse(const char *s, enum tt_deadlock *out);

/* Fill spec->ports_* from "A".."J", "best" (case-insensitive letters). */
int tt_netspec_set_ports(tt_netspec *spec, const char *s, char *err, size_t errsz);
/* Set dims from "4,4,4". */
int tt_netspec_set_dims(tt_netspec *spec, const char *s, char *err, size_t errsz);
void tt_netspec_default(tt_netspec *spec);
/* Card-0 ports of configuration letter 'A'..'J' (seed 000 Table 1). */
const int8_t *tt_letter_card0(char letter);


static inline uint32_t tt_card_node(const tt_net *net, uint32_t card)
{ return net->twin ? card >> 1 : card; }
static inline int tt_card_side(const tt_net *net, uint32_t card)
{ return net->twin ? (int)(card & 1) : 0; }
static inline uint32_t tt_card_of(const tt_net *net, uint32_t node, int side)
{ return net->twin ? node * 2 + (uint32_t)side : node; }
static inline int tt_node_digit(const tt_net *net, uint32_t node, int dim)
{ return net->coord[(size_t)node * (size_t)net->n + (size_t)dim]; }

/* A twin or plain torus (TT_TOPO_TORUS), not another generated kind. */
static inline int tt_net_is_torus(const tt_net *net)
{ return net->spec.topo == TT_TOPO_TORUS; }

uint32_t tt_node_index(const tt_net *net, const int *coord);

/*
 * The VCs seed 000 §7.1's switch gives a port that needs `classes`: that
 * number rounded up to a power of two, and at least min_vcs (0: its
 * default, 4 under vc and 1 otherwise).
 */
int tt_phys_vcs(enum tt_deadlock dl, int classes, int min_vcs);

/* ---- lib/networks/netgen.c: the network layer (every kind through its
 * generator) ---- */

/* Validate spec without building anything. 0 if tt_net_init() would accept
 * it, -1 with err filled. */
int tt_netspec_check(const tt_netspec *spec, char *err, size_t errsz);
/* Validate spec and build the model. 0 on success, -1 with err filled. */
int tt_net_init(tt_net *net, const tt_netspec *spec, char *err, size_t errsz);
void tt_net_free(tt_net *net);

/* "X+" for a torus, the generator's name ("G+", ...) otherwise. */
const char *tt_net_port_name(const tt_net *net, int port, char *buf,
    size_t bufsz);
/* Whether a port of a card carries a link (an out-arc when directed). */
int tt_net_has_link(const tt_net *net, uint32_t card, int port);

/*
 * Fill spec from a network spec string: "torus:4,4,4", "twin:8,8,8",
 * "torus:k=8[,n=3]" (plain; "twin:k=8" twin: the K-ary N-cube, n = 3 by
 * default, the same spec as its dims), "pruned:k=8", "msn:k=8,n=3",
 * "pruned-msn:8x8x8" (the cube kinds take their dims too, one k),
 * "mh3dt:m=4,n=4,L=2,q=2" (k= is m, the BM side), "tesh:m=2,L=2,q=0"
 * (k= is the BM side 2^m; n= is refused).  A bare "8,8,8" or
 * "8x8x8[:plain|:twin]" is a torus as sweep's --topo names them.  -1 with err naming the bad token: a
 * key that is not the generator's, a value that is not a whole number, a
 * key given twice.  A key given as 0 is kept as given (gen.given), for
 * the generator to refuse where 0 is not a valid value.
 */
int tt_netspec_parse(tt_netspec *spec, const char *s, char *err, size_t errsz);
/* The spec string of a generated network ("" for a torus). */
const char *tt_topo_name(const tt_net *net);
/* Parse a PE as a number or as "x,y,z/c" (twin) or "x,y,z" (plain). */
int tt_pe_parse(const tt_net *net, const char *s, uint32_t *pe, char *err, size_t errsz);
/* "(1,0,3)/c1" for twin, "(1,0,3)" for plain. */
const char *tt_card_name(const tt_net *net, uint32_t card, char *buf, size_t bufsz);

/* The card and port at the other end of a card's output port. */
uint32_t tt_link_peer(const tt_net *net, uint32_t card, int port, int *peer_port);

/* The internal-link channel of a type-1 hop of class cls that leaves the
 * other card by port via: its lane (seed 000 §7.1 footnote 5). */
static inline int tt_t1_chan(const tt_net *net, int cls, int via)
{ return cls + net->int_vcs * (via % net->lanes[cls]); }
/* The VC of a hop in the dependency graph: its class, or its lane. */
static inline int tt_hop_chan_vc(const tt_net *net, const tt_hop *h)
{ return h->type == TT_HOP_T1 ? tt_t1_chan(net, h->vc, h->via) : h->vc; }

/* Output channel (port, vc) of a card <-> a dense index < chans_per_card
 * (tt_chan_decode() in topo.c, tt_chan_name() in netgen.c). */
static inline int tt_chan_local(const tt_net *net, int side, int port, int vc)
{ return net->chan_base[side][net->local_port[side][port]] + vc; }
void tt_chan_decode(const tt_net *net, uint64_t chan, uint32_t *card, int *port, int *vc);
const char *tt_chan_name(const tt_net *net, uint64_t chan, char *buf, size_t bufsz);

/* ---- the routing function: tt_route() and tt_route_pkt() in
 * lib/networks/netgen.c, calling the network's generator (a torus's:
 * seed 000 Alg. 1-6, seed 001 Alg. 1-4, in net_torus.c) ---- */

/*
 * Where a packet at `card`, heading for PE `dst`, goes next.  `in_port` is
 * the port it arrived on at this card (TT_PORT_NIC when just injected); it
 * matters only for the bubble flag.  This is the one routing function: the
 * routing tables, the analysis, the simulator and the daemon all call it.
 */
tt_hop tt_route(const tt_net *net, uint32_t card, uint32_t dst, int in_port);

/*
 * What a packet carries for the rules that are not a function of where
 * it is (net->spec.ties and ring_vc; both off in the seed model).
 */
typedef struct tt_pktroute {
	uint8_t tie_neg;  /* bit d: a tie in dimension d goes - (TT_TIES_RANDOM) */
	uint8_t ring_cls; /* the ring VC class taken on entering the ring the
	                   * packet is in (TT_RINGVC_ENTRY; tt_route_pkt()
	                   * sets it on every ring entry) */
} tt_pktroute;

/* tt_route() with a packet's state; st NULL is tt_route(). */
tt_hop tt_route_pkt(const tt_net *net, uint32_t card, uint32_t dst,
    int in_port, tt_pktroute *st);

/* Whether a hop taken after arriving on in_port enters a ring (whatever
 * the scheme; the bubble condition applies there under bubble).  This
 * and tt_route_bubble() are a torus's rules, in net_torus.c. */
int tt_route_enters_ring(const tt_net *net, int in_port, const tt_hop *hop);

/* Whether a hop taken after arriving on in_port enters a ring (bubble). */
int tt_route_bubble(const tt_net *net, int in_port, const tt_hop *hop);

/* ---- lib/networks/route.c: the routing tables ---- */

/*
 * A card's routing table in compact form.  DOR decides on the first
 * dimension in which the destination differs, and then only on the
 * destination's digit in that dimension, so a table of sum(k_i) entries plus
 * the two local PEs is exact for every destination.
 */
typedef struct tt_rtable {
	uint32_t card;
	int n;
	uint16_t here[TT_MAX_DIMS];     /* this card's node coordinates */
	tt_hop local[2];                /* destination on this node: PE0, PE1 */
	tt_hop *dim[TT_MAX_DIMS];       /* dim[d][digit] */
	tt_hop *store;
} tt_rtable;

int tt_rtable_build(const tt_net *net, uint32_t card, tt_rtable *rt);
void tt_rtable_free(tt_rtable *rt);

/*
 * The hop for PE dst, read from the table.  Inline: the simulator calls it
 * for every packet at every switch, and ttd for every frame.
 */
static inline tt_hop
tt_rtable_lookup(const tt_net *net, const tt_rtable *rt, uint32_t dst,
    int in_port)
{
	const uint16_t *dc = net->coord +
	    (size_t)tt_card_node(net, dst) * (size_t)net->n;
	tt_hop h;
	int d;

	for (d = 0; d < rt->n; d++)
		if (dc[d] != rt->here[d])
			break;
	h = d == rt->n ? rt->local[tt_card_side(net, dst)] : rt->dim[d][dc[d]];
	h.bubble = net->deadlock == TT_DL_BUBBLE ?
	    (uint8_t)tt_route_bubble(net, in_port, &h) : 0;
	return h;
}

TT_END_DECLS

#endif
