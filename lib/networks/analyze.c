/*
 * Static analysis by enumeration (ttsim analyze).
 *
 * Every figure comes from walking the real routing function or the real
 * link graph over all pairs.  The closed forms of the seed reports are used
 * only by the tests, as oracles.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "twintorus/analyze.h"

int
tt_distances(const tt_net *net, uint32_t *diameter, double *avg)
{
	uint32_t n = net->ncards, *queue, *dist, src, head, tail, u, v;
	uint32_t nports = (uint32_t)net->card_nports, *adj, max = 0;
	uint64_t sum = 0;
	int side, peer_port;
	uint32_t i;

	adj = malloc((size_t)n * nports * sizeof(*adj));
	queue = malloc((size_t)n * sizeof(*queue));
	dist = malloc((size_t)n * sizeof(*dist));
	if (adj == NULL || queue == NULL || dist == NULL) {
		free(adj);
		free(queue);
		free(dist);
		return -1;
	}
	for (u = 0; u < n; u++) {
		side = tt_card_side(net, u);
		for (i = 0; i < nports; i++)
			adj[(size_t)u * nports + i] = tt_net_has_link(net, u,
			    net->card_port[side][i]) ? tt_link_peer(net, u,
			    net->card_port[side][i], &peer_port) : u;
	}
	for (src = 0; src < n; src++) {
		memset(dist, 0xff, (size_t)n * sizeof(*dist));
		dist[src] = 0;
		head = tail = 0;
		queue[tail++] = src;
		while (head < tail) {
			u = queue[head++];
			for (i = 0; i < nports; i++) {
				v = adj[(size_t)u * nports + i];
				if (dist[v] != UINT32_MAX)
					continue;
				dist[v] = dist[u] + 1;
				sum += dist[v];
				if (dist[v] > max)
					max = dist[v];
				queue[tail++] = v;
			}
		}
	}
	free(adj);
	free(queue);
	free(dist);
	*diameter = max;
	*avg = n > 1 ? (double)sum / ((double)n * (double)(n - 1)) : 0.0;
	return 0;
}

int
tt_transit_paths(const tt_net *net, uint64_t *per_node)
{
	uint32_t s, t, card, node, hops, limit = net->hop_limit;
	int in_port;
	tt_hop h;

	memset(per_node, 0, (size_t)net->nnodes * sizeof(*per_node));
	if (!net->twin)
		return 0;
	for (s = 0; s < net->nnodes; s++) {
		for (t = 0; t < net->nnodes; t++) {
			if (s == t)
				continue;
			card = tt_card_of(net, s, 0);
			in_port = TT_PORT_NIC;
			for (hops = 0;; hops++) {
				h = tt_route(net, card, tt_card_of(net, t, 0),
				    in_port);
				if (h.type == TT_HOP_EJECT)
					break;
				node = tt_card_node(net, card);
				if (h.port == TT_PORT_INT && node != s && node != t)
					per_node[node]++;
				card = tt_link_peer(net, card, h.port, &in_port);
				if (hops > limit)
					return -1;
			}
		}
	}
	return 0;
}

int
tt_analyze(const tt_net *net, tt_analysis *out, char *err, size_t errsz)
{
	return tt_analyze_progress(net, out, NULL, NULL, err, errsz);
}

int
tt_analyze_progress(const tt_net *net, tt_analysis *out,
    tt_progress_fn progress, void *arg, char *err, size_t errsz)
{
	tt_pathstats st;
	tt_cdg g;
	uint64_t *cycle = NULL;
	size_t len = 0;
	uint32_t node;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&st, 0, sizeof(st));
	if (tt_cdg_check_size(net, err, errsz) < 0)
		return -1;
	out->pes = net->ncards;
	out->vcs = net->int_vcs;
	out->ext_vcs = net->ext_vcs;
	st.transit = calloc(net->nnodes, sizeof(uint64_t));
	if (st.transit == NULL || tt_cdg_init(&g, net) < 0) {
		free(st.transit);
		snprintf(err, errsz, "out of memory for a network of %u PEs",
		    net->ncards);
		return -1;
	}
	if (tt_cdg_add_all(&g, &st, progress, arg) < 0) {
		snprintf(err, errsz, "internal error: a route does not reach "
		    "its destination");
		rc = -1;
		goto done;
	}
	out->avg_dor_hops = st.pairs ? (double)st.hops / (double)st.pairs : 0.0;
	out->max_dor_hops = st.max_hops;

	/*
	 * Each node-level path is walked by four PE pairs (either PE at each
	 * end), all alike at the nodes in between, so divide by four to count
	 * node-level paths as seed 000 §5.1 does.
	 */
	out->transit_uniform = 1;
	for (node = 0; node < net->nnodes; node++)
		if (st.transit[node] != st.transit[0])
			out->transit_uniform = 0;
	out->internal_transit_paths = net->twin ? st.transit[0] / 4 : 0;

	if (tt_distances(net, &out->diameter, &out->avg_distance) < 0) {
		snprintf(err, errsz, "out of memory computing distances");
		rc = -1;
		goto done;
	}
	tt_node_graph(net, out);
	out->channels = g.nchan;
	out->dependencies = tt_cdg_edges(&g);
	out->bubble_violations = g.bubble_violations;
	rc = tt_cdg_find_cycle(&g, &cycle, &len);
	if (rc < 0) {
		snprintf(err, errsz, "out of memory searching for cycles");
		goto done;
	}
	out->deadlock_free = rc == 0 && g.bubble_violations == 0;
	free(cycle);
	rc = 0;
done:
	tt_cdg_free(&g);
	free(st.transit);
	return rc;
}

int
tt_cdg_check_size(const tt_net *net, char *err, size_t errsz)
{
	if (tt_net_is_torus(net) || net->nnodes <= TT_GEN_PAIRS_MAX_NODES)
		return 0;
	snprintf(err, errsz, "%s has %u nodes: every pair of them (%.3g) is "
	    "more than this analysis enumerates (up to %u nodes: 3D-TESH up "
	    "to L=3); verify --flow checks chosen routes", net->topo_name,
	    net->nnodes, (double)net->nnodes * (double)(net->nnodes - 1),
	    TT_GEN_PAIRS_MAX_NODES);
	return -1;
}

/* The distinct nodes a node's links lead to (out-arcs when directed),
 * into nb[]; how many. */
static int
node_neighbours(const tt_net *net, uint32_t node, uint32_t *nb)
{
	int side, o, i, cnt = 0, peer_port;
	uint32_t card, v;

	for (side = 0; side < (net->twin ? 2 : 1); side++) {
		card = tt_card_of(net, node, side);
		for (o = 0; o < net->card_nports; o++) {
			int port = net->card_port[side][o];

			if (port == TT_PORT_INT || !tt_net_has_link(net, card, port))
				continue;
			v = tt_card_node(net, tt_link_peer(net, card, port,
			    &peer_port));
			if (v == node)
				continue;
			for (i = 0; i < cnt && nb[i] != v; i++)
				;
			if (i == cnt)
				nb[cnt++] = v;
		}
	}
	return cnt;
}

/* Links (arcs one way) from side 0 to side 1 of cut c, node level. */
static uint64_t
cut_links(const tt_net *net, int c)
{
	uint64_t n = 0;
	uint32_t node, card, v;
	int side, o, port, peer_port;

	for (node = 0; node < net->nnodes; node++) {
		if (tt_net_cut_side(net, c, node) != 0)
			continue;
		for (side = 0; side < (net->twin ? 2 : 1); side++) {
			card = tt_card_of(net, node, side);
			for (o = 0; o < net->card_nports; o++) {
				port = net->card_port[side][o];
				if (port == TT_PORT_INT ||
				    !tt_net_has_link(net, card, port))
					continue;
				v = tt_card_node(net, tt_link_peer(net, card,
				    port, &peer_port));
				n += tt_net_cut_side(net, c, v) == 1;
			}
		}
	}
	return n;
}

int
tt_node_graph(const tt_net *net, tt_analysis *out)
{
	uint32_t nb[2 * TT_NPORTS], node;
	uint64_t sum = 0, b;
	int deg, c;

	out->nodes = net->nnodes;
	out->degree_min = INT32_MAX;
	out->degree_max = 0;
	for (node = 0; node < net->nnodes; node++) {
		deg = node_neighbours(net, node, nb);
		sum += (uint64_t)deg;
		if (deg < out->degree_min)
			out->degree_min = deg;
		if (deg > out->degree_max)
			out->degree_max = deg;
	}
	out->links = net->directed ? sum : sum / 2;
	out->bisection = -1;
	for (c = 0; c < tt_net_cuts(net); c++) {
		b = cut_links(net, c);
		if (out->bisection < 0 || (int64_t)b < out->bisection)
			out->bisection = (int64_t)b;
	}
	return 0;
}
