/*
 * twintorus: what can be known about a network without simulating it, by
 * enumerating the routing function over source/destination pairs:
 * distances, DOR path lengths, internal-link transit paths (seed 000 Tables
 * 7-8, seed 001 Prop. 3.4) and the channel dependency graph with a cycle
 * finder (Dally & Seitz, as used in seed 000 §6.2).
 */
#ifndef TWINTORUS_ANALYZE_H
#define TWINTORUS_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "twintorus/topo.h"
#include "twintorus/api.h"

TT_BEGIN_DECLS

/* Called now and then with the fraction of routes walked (0..1). */
typedef void (*tt_progress_fn)(void *arg, double done);

typedef struct tt_flow {
	uint32_t src, dst;            /* PE ids */
} tt_flow;

/*
 * The channel dependency graph.  A channel is an output (port, VC) of a
 * card; its id is card * chans_per_card + tt_chan_local().  A dependency
 * c1 -> c2 exists when some packet holding c1 next asks for c2, and c2 is
 * then an output of the card at the far end of c1, so the successors of a
 * channel fit in one 64-bit mask over that card's channels.
 *
 * Under bubble flow control the dependencies between two channels of the
 * same ring (a dimension, a direction, a line of nodes, and the internal
 * VCs of that ring when the dimension is split) are not edges: the bubble
 * condition keeps each ring free of deadlock on its own (seed 000 §6.3.2,
 * Carrion et al. 1997), provided every entry into a ring asks for the
 * bubble.  What remains must be acyclic.  Entries that do not ask for the
 * bubble are counted as violations.
 */
typedef struct tt_cdg {
	const tt_net *net;
	uint64_t nchan;
	uint64_t *succ;
	uint64_t paths;               /* paths added */
	uint64_t ring_edges_dropped;  /* bubble-protected dependencies */
	uint64_t bubble_violations;   /* ring entries without the bubble */
	uint64_t first_violation[2];  /* the first such (from, to) channels;
	                                 from is UINT64_MAX for an injection */
} tt_cdg;

/* Path statistics gathered while adding paths. */
typedef struct tt_pathstats {
	uint64_t pairs;               /* paths walked */
	uint64_t hops;                /* links crossed, summed */
	uint32_t max_hops;
	uint64_t *transit;            /* per node: internal-link crossings by
	                                 paths that neither start nor end there */
} tt_pathstats;

int tt_cdg_init(tt_cdg *g, const tt_net *net);
void tt_cdg_free(tt_cdg *g);
/* Walk the route from PE src to PE dst, adding its dependencies (and its
 * statistics to st when st is not NULL).  -1 if the route does not arrive
 * within the hop limit, which would be a bug in the routing function. */
int tt_cdg_add_path(tt_cdg *g, uint32_t src, uint32_t dst, tt_pathstats *st);
int tt_cdg_add_all(tt_cdg *g, tt_pathstats *st, tt_progress_fn progress,
    void *arg);
uint64_t tt_cdg_edges(const tt_cdg *g);
/*
 * Look for a cycle.  Returns 0 when the graph is acyclic, 1 with the cycle
 * (a malloc'd list of channel ids, in dependency order, first not repeated)
 * in *cycle and *len, -1 when out of memory.
 */
int tt_cdg_find_cycle(const tt_cdg *g, uint64_t **cycle, size_t *len);

typedef struct tt_analysis {
	uint32_t pes;
	uint32_t diameter;             /* shortest paths, links crossed */
	double avg_distance;
	double avg_dor_hops;
	uint32_t max_dor_hops;
	uint64_t internal_transit_paths; /* node-level, at one node */
	int transit_uniform;           /* the count is the same at every node */
	int vcs;                       /* VCs on the internal link */
	int ext_vcs;                   /* VCs on each external link */
	int deadlock_free;
	uint64_t channels, dependencies, bubble_violations;
	/* the node graph: nodes, links (node pairs joined by a link; arcs
	 * when directed), distinct neighbours (out-neighbours) per node, and
	 * the links (arcs one way) across the least of the network's
	 * bisection cuts, -1 when it defines none (tt_net_cuts()) */
	uint32_t nodes;
	uint64_t links;
	int degree_min, degree_max;
	int64_t bisection;
} tt_analysis;

int tt_analyze(const tt_net *net, tt_analysis *out, char *err, size_t errsz);

/*
 * The largest generated network analysed exhaustively (every pair of
 * nodes): 3D-TESH up to L = 3, MH3DT up to m = n = 6.  Above it,
 * tt_analyze() and tt_cdg_check_size() refuse (-1 with err), since N^2
 * pairs are hours: a 262,144-node 3D-TESH (L = 4) has 6.9e10.  Its node
 * graph (tt_node_graph()) and chosen flows stay cheap.
 */
#define TT_GEN_PAIRS_MAX_NODES 65536u
int tt_cdg_check_size(const tt_net *net, char *err, size_t errsz);

int tt_analyze_progress(const tt_net *net, tt_analysis *out,
    tt_progress_fn progress, void *arg, char *err, size_t errsz);

/*
 * Node-level internal-link transit counts alone (seed 000 §5.1): walks the
 * routing function once per ordered pair of distinct nodes, from PE0 to PE0,
 * and counts at each node the paths that neither start nor end there and
 * cross its internal link.  per_node has nnodes entries.  Cheaper than
 * tt_analyze() (a quarter of the routes, no dependency graph).
 */
int tt_transit_paths(const tt_net *net, uint64_t *per_node);

/* Shortest-path distances between cards (BFS over cables and internal
 * links): the diameter and the mean over ordered pairs of distinct PEs. */
int tt_distances(const tt_net *net, uint32_t *diameter, double *avg);

/* The node graph's counts into out (nodes, links, degree_min/max,
 * bisection); 0 (it allocates nothing). */
int tt_node_graph(const tt_net *net, tt_analysis *out);
/* The cuts a bisection is the least of: a torus's, or a pruned or
 * directed torus's, through the middle of each dimension (seed 002
 * Table 1); a 3D-TESH's, halving the top level (seed 004 eq. 4.2); 0 for
 * a network whose paper defines none.  tt_net_cut_side(): the side of
 * cut c a node is on. */
int tt_net_cuts(const tt_net *net);
int tt_net_cut_side(const tt_net *net, int c, uint32_t node);

TT_END_DECLS

#endif
