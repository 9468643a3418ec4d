/*
 * Channel dependency graph of the routing function, and a cycle finder.
 *
 * A routing function is deadlock-free if its channel dependency graph is
 * acyclic (Dally & Seitz 1987, the criterion seed 000 §6.2 and seed 001
 * §4.2 use).  We build the graph from the routes themselves, pair by pair,
 * so what is checked is exactly what tt_route() does.
 */
#include <stdlib.h>
#include <string.h>

#include "twintorus/analyze.h"

int
tt_cdg_init(tt_cdg *g, const tt_net *net)
{
	memset(g, 0, sizeof(*g));
	g->net = net;
	g->nchan = (uint64_t)net->ncards * (uint64_t)net->chans_per_card;
	g->succ = calloc(g->nchan, sizeof(uint64_t));
	return g->succ == NULL ? -1 : 0;
}

void
tt_cdg_free(tt_cdg *g)
{
	free(g->succ);
	g->succ = NULL;
}

/* The ring a hop travels in, as a key, or -1 if it is not a ring hop or the
 * scheme is not bubble (only bubble treats rings as units). */
static int64_t
ring_key(const tt_net *net, uint32_t card, const tt_hop *h)
{
	uint32_t node = tt_card_node(net, card), line;
	int d = h->dim, neg;

	if (net->deadlock != TT_DL_BUBBLE)
		return -1;
	if (h->type == TT_HOP_EXT)
		neg = tt_port_neg(h->port);
	else if (h->type == TT_HOP_T2)
		/* it crosses to the card holding this dimension's other port */
		neg = net->port_card[tt_port_of(d, 1)] != tt_card_side(net, card);
	else
		return -1;
	line = node - (uint32_t)tt_node_digit(net, node, d) * net->stride[d];
	return ((int64_t)line * net->n + d) * 2 + neg;
}

/*
 * One walk of the route from src to dst, with the packet's tie bits (the
 * directions of its distance-k/2 ties under TT_TIES_RANDOM).  A type-1
 * hop's channel is its lane (seed 000 §7.1 footnote 5), and under
 * TT_RINGVC_ENTRY the walk carries the ring class the packet took when it
 * entered its ring, as a simulated packet does.
 */
static int
cdg_walk(tt_cdg *g, uint32_t src, uint32_t dst, uint8_t tie_neg,
    tt_pathstats *st)
{
	const tt_net *net = g->net;
	uint32_t card = src, snode = tt_card_node(net, src),
	    dnode = tt_card_node(net, dst), node, hops = 0, limit;
	uint64_t prev = UINT64_MAX;
	int64_t prev_ring = -1, ring;
	int in_port = TT_PORT_NIC, peer_port, side, local;
	tt_pktroute pr = {tie_neg, 0};
	tt_hop h;

	/* no route is longer (the generator's bound) */
	limit = net->hop_limit;
	for (;;) {
		h = tt_route_pkt(net, card, dst, in_port, &pr);
		if (h.type == TT_HOP_EJECT)
			break;
		side = tt_card_side(net, card);
		local = tt_chan_local(net, side, h.port, tt_hop_chan_vc(net, &h));
		ring = ring_key(net, card, &h);
		if (ring >= 0 && ring == prev_ring) {
			g->ring_edges_dropped++;
		} else {
			if (ring >= 0 && !h.bubble) {
				if (g->bubble_violations++ == 0) {
					g->first_violation[0] = prev;
					g->first_violation[1] = (uint64_t)card *
					    (uint64_t)net->chans_per_card +
					    (uint64_t)local;
				}
			}
			if (prev != UINT64_MAX)
				g->succ[prev] |= 1ull << local;
		}
		if (st != NULL && h.port == TT_PORT_INT) {
			node = tt_card_node(net, card);
			if (node != snode && node != dnode)
				st->transit[node]++;
		}
		prev = (uint64_t)card * (uint64_t)net->chans_per_card +
		    (uint64_t)local;
		prev_ring = ring;
		card = tt_link_peer(net, card, h.port, &peer_port);
		in_port = peer_port;
		if (++hops > limit)
			return -1;
	}
	if (card != dst)
		return -1;
	if (st != NULL) {
		st->pairs++;
		st->hops += hops;
		if (hops > st->max_hops)
			st->max_hops = hops;
	}
	return 0;
}

/* The dimensions in which the route from src to dst meets a tie: DOR
 * enters dimension d at the source's digit, so a tie is a distance of
 * exactly k/2 between the two digits. */
static uint8_t
tie_dims(const tt_net *net, uint32_t src, uint32_t dst)
{
	uint32_t sn = tt_card_node(net, src), dn = tt_card_node(net, dst);
	uint8_t m = 0;
	int d, k;

	for (d = 0; d < net->n; d++) {
		k = net->k[d];
		if (k % 2 == 0 && (tt_node_digit(net, dn, d) -
		    tt_node_digit(net, sn, d) + k) % k == k / 2)
			m |= (uint8_t)(1u << d);
	}
	return m;
}

/*
 * Under TT_TIES_RANDOM a packet may take either way at each of its ties:
 * every combination is walked (the path statistics count the all-+ one).
 */
int
tt_cdg_add_path(tt_cdg *g, uint32_t src, uint32_t dst, tt_pathstats *st)
{
	uint8_t ties = 0, sub;

	if (g->net->spec.ties == TT_TIES_RANDOM)
		ties = tie_dims(g->net, src, dst);
	sub = 0;
	do {
		if (cdg_walk(g, src, dst, sub, sub == 0 ? st : NULL) < 0)
			return -1;
		sub = (uint8_t)((sub - ties) & ties);
	} while (sub != 0);
	g->paths++;
	return 0;
}

/*
 * A generated network routes on where a packet is and where it goes,
 * nothing else (no input port, no state): the route from u to dst is u's
 * hop and then the route from the next node.  So every dependency is a
 * pair (hop of u, hop of next(u)) toward the same destination, and one
 * routing decision per (node, destination) pair gives the whole graph
 * and, by hops(u) = 1 + hops(next(u)), every path's length: N^2 decisions
 * instead of N^2 walks (a 16,384-node 3D-TESH in seconds).  The walks
 * add the same edges, path for path; the tests compare the two.
 */
struct route_memo {
	uint32_t *next;         /* per node: where its hop leads */
	uint32_t *hops;         /* per node: route length, UINT32_MAX unknown */
	uint16_t *local;        /* per node: the hop's channel on its card */
	uint32_t *stack;
};

static int
memo_dest(tt_cdg *g, struct route_memo *m, uint32_t dst, tt_pathstats *st)
{
	const tt_net *net = g->net;
	uint32_t u, v, n = net->ncards, sp, h;
	int peer_port;
	tt_hop hop;

	for (u = 0; u < n; u++) {
		m->hops[u] = UINT32_MAX;
		if (u == dst)
			continue;
		hop = tt_route(net, u, dst, TT_PORT_NIC);
		if (hop.type == TT_HOP_EJECT)
			return -1;
		m->local[u] = (uint16_t)tt_chan_local(net, 0, hop.port, hop.vc);
		m->next[u] = tt_link_peer(net, u, hop.port, &peer_port);
	}
	m->hops[dst] = 0;
	for (u = 0; u < n; u++) {
		if (u == dst)
			continue;
		v = m->next[u];
		if (v != dst)
			g->succ[(uint64_t)u * (uint64_t)net->chans_per_card +
			    m->local[u]] |= 1ull << m->local[v];
		/* the length: follow the route to a node that knows its own */
		for (sp = 0, v = u; m->hops[v] == UINT32_MAX; v = m->next[v]) {
			if (sp > net->hop_limit)
				return -1;
			m->stack[sp++] = v;
		}
		for (h = m->hops[v]; sp > 0; )
			m->hops[m->stack[--sp]] = ++h;
		if (st != NULL) {
			st->pairs++;
			st->hops += m->hops[u];
			if (m->hops[u] > st->max_hops)
				st->max_hops = m->hops[u];
		}
	}
	g->paths += n - 1;
	return 0;
}

static int
cdg_add_all_memo(tt_cdg *g, tt_pathstats *st, tt_progress_fn progress,
    void *arg)
{
	uint32_t n = g->net->ncards, d;
	struct route_memo m;
	int rc = 0;

	m.next = malloc((size_t)n * sizeof(*m.next));
	m.hops = malloc((size_t)n * sizeof(*m.hops));
	m.local = malloc((size_t)n * sizeof(*m.local));
	m.stack = malloc(((size_t)g->net->hop_limit + 2) * sizeof(*m.stack));
	if (m.next == NULL || m.hops == NULL || m.local == NULL ||
	    m.stack == NULL)
		rc = -1;
	for (d = 0; rc == 0 && d < n; d++) {
		rc = memo_dest(g, &m, d, st);
		if (progress != NULL && (d & 63) == 63)
			progress(arg, (double)(d + 1) / (double)n);
	}
	free(m.next);
	free(m.hops);
	free(m.local);
	free(m.stack);
	return rc;
}

int
tt_cdg_add_all(tt_cdg *g, tt_pathstats *st, tt_progress_fn progress,
    void *arg)
{
	uint32_t s, t, n = g->net->ncards;

	if (!tt_net_is_torus(g->net) && g->net->deadlock != TT_DL_BUBBLE)
		return cdg_add_all_memo(g, st, progress, arg);

	for (s = 0; s < n; s++) {
		for (t = 0; t < n; t++)
			if (s != t && tt_cdg_add_path(g, s, t, st) < 0)
				return -1;
		if (progress != NULL && (s & 63) == 63)
			progress(arg, (double)(s + 1) / (double)n);
	}
	return 0;
}

uint64_t
tt_cdg_edges(const tt_cdg *g)
{
	uint64_t c, e = 0;

	for (c = 0; c < g->nchan; c++)
		e += (uint64_t)__builtin_popcountll(g->succ[c]);
	return e;
}

/* The card a channel leads to. */
static uint32_t
chan_target(const tt_net *net, uint64_t chan)
{
	uint32_t card;
	int port, vc, peer_port;

	tt_chan_decode(net, chan, &card, &port, &vc);
	return tt_link_peer(net, card, port, &peer_port);
}

/*
 * Iterative depth-first search with three colours.  An edge to a grey
 * channel closes a cycle: the channels on the stack from that one up.
 */
int
tt_cdg_find_cycle(const tt_cdg *g, uint64_t **cycle, size_t *len)
{
	const tt_net *net = g->net;
	uint64_t cpc = (uint64_t)net->chans_per_card;
	uint64_t *stack = NULL, *left = NULL, *base = NULL, *out;
	uint8_t *colour;
	uint64_t root, u, v;
	size_t sp, i, j;
	int bit;

	colour = calloc(g->nchan, 1);
	stack = malloc(g->nchan * sizeof(*stack));
	left = malloc(g->nchan * sizeof(*left));
	base = malloc(g->nchan * sizeof(*base));
	if (colour == NULL || stack == NULL || left == NULL || base == NULL)
		goto oom;
	for (root = 0; root < g->nchan; root++) {
		if (colour[root] != 0 || g->succ[root] == 0)
			continue;
		sp = 0;
		stack[sp] = root;
		left[sp] = g->succ[root];
		base[sp] = (uint64_t)chan_target(net, root) * cpc;
		sp++;
		colour[root] = 1;
		while (sp > 0) {
			if (left[sp - 1] == 0) {
				colour[stack[--sp]] = 2;
				continue;
			}
			bit = __builtin_ctzll(left[sp - 1]);
			left[sp - 1] &= left[sp - 1] - 1;
			v = base[sp - 1] + (uint64_t)bit;
			if (colour[v] == 2)
				continue;
			if (colour[v] == 1) {
				for (i = 0; i < sp && stack[i] != v; i++)
					;
				out = malloc((sp - i) * sizeof(*out));
				if (out == NULL)
					goto oom;
				for (j = i; j < sp; j++)
					out[j - i] = stack[j];
				*cycle = out;
				*len = sp - i;
				free(colour);
				free(stack);
				free(left);
				free(base);
				return 1;
			}
			u = v;
			colour[u] = 1;
			stack[sp] = u;
			left[sp] = g->succ[u];
			base[sp] = (uint64_t)chan_target(net, u) * cpc;
			sp++;
		}
	}
	free(colour);
	free(stack);
	free(left);
	free(base);
	*cycle = NULL;
	*len = 0;
	return 0;
oom:
	free(colour);
	free(stack);
	free(left);
	free(base);
	return -1;
}
