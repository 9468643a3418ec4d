/*
 * Pruned and directed tori: the four classes of Parhami & Kwai, Comparing
 * four classes of torus-based parallel architectures, 2004, §2, on nodes
 * a = (a_0, ..., a_{n-1}), a_i in Z_k:
 *   pruned       a <-> a +- e_0 everywhere, a <-> a +- e_i (i >= 1) only
 *                where a_0 = i - 1 (mod n - 1): for n = 3, y links at
 *                even x and z links at odd x (the Tera MTA's pruning);
 *   msn          one out-arc per dimension, a -> a + e_i when the sum of
 *                the other coordinates is even, else a -> a - e_i (the
 *                Manhattan street network);
 *   pruned-msn   dimension 0 as msn, dimension i >= 1 as msn only where
 *                a_0 = i - 1 (mod n - 1).
 * The paper's §3.D and Example 3 write the pruned directed torus as a
 * Cayley graph with its factors swapped, which read literally is not
 * strongly connected, and its §2 condition for the last case sums all
 * coordinates where it means the others: the adjacency above is the
 * consistent one.
 *
 * The paper gives no routing (its §5 is an analytic model with a random
 * next hop).  Ours is dimension order, dimensions 1..n-1 and then 0:
 *   - a dimension i >= 1 of a pruned class is reached by moving in
 *     dimension 0 to the nearest a_0 = i - 1 (mod n - 1);
 *   - undirected rings are taken the shorter way (a tie to +); a directed
 *     ring has one direction, fixed by the other coordinates.  In msn a
 *     hop in the next dimension of the order reverses it (it changes the
 *     parity of the others' sum), so when the ring's way is longer than
 *     that hop and the other way together (2f > k + 1 for f hops), the
 *     packet first takes that hop; the last dimension and the pruned
 *     directed torus (whose other links are elsewhere) follow their ring
 *     all the way, up to k - 1 hops: near-minimal on msn, not minimal on
 *     pruned-msn (max_route_hops against the diameter shows by how much);
 *   - VCs: a dateline pair per ring (class 1 while the wrap lies ahead);
 *     the pruned classes give the final dimension-0 leg a pair of its own
 *     (4 classes), as the dimension-0 moves before it would otherwise
 *     close a cycle through the rings they lead to; msn's reversing hops
 *     take class 2 (3 classes): each dimension's class-2 channels serve
 *     the one dimension before it in the order, so the classes order
 *     every dependency.  ttsim verify checks every one.
 * Ports are the torus's (X+ = 0, X- = 1, ...); a directed network is
 * cabled as the torus and routes only on its arcs.
 */
#include <stdio.h>

#include "support/errf.h"
#include "networks/netgen.h"

static int
is_pruned(const tt_net *net)
{
	return net->spec.topo != TT_TOPO_MSN;
}

/* The routing digit of dimension i: dimensions 1..n-1 first, then 0. */
static int
digit_of(const tt_net *net, int i)
{
	return i == 0 ? net->n - 1 : i - 1;
}

static int
coord(const tt_net *net, uint32_t node, int i)
{
	return tt_node_digit(net, node, digit_of(net, i));
}

/* Where a dimension i >= 1 has its links: a_0 = i - 1 (mod n - 1). */
static int
has_dim(const tt_net *net, uint32_t node, int i)
{
	return i == 0 || !is_pruned(net) ||
	    coord(net, node, 0) % (net->n - 1) == i - 1;
}

/* A directed network's direction in dimension i: by the parity of the
 * sum of the other coordinates. */
static int
arc_neg(const tt_net *net, uint32_t node, int i)
{
	int j, sum = 0;

	for (j = 0; j < net->n; j++)
		if (j != i)
			sum += coord(net, node, j);
	return sum & 1;
}

static int
tori_derive(tt_net *net, char *err, size_t errsz)
{
	const tt_genspec *g = &net->spec.gen;
	const char *name = netgen_of(net)->name;
	int n = netgen_key(g, TT_GENKEY_N, g->n, 3), k = g->k, i;
	uint64_t nodes = 1;

	if (k == 0 && !(g->given & (1u << TT_GENKEY_K)))
		return tt_errf(err, errsz, "%s: give k, the nodes per "
		    "dimension, e.g. %s:k=8", name, name);
	if (n < 2 || n > TT_MAX_DIMS)
		return tt_errf(err, errsz, "%s: n=%d: the dimensions must be "
		    "2..%d", name, n, TT_MAX_DIMS);
	if (k < 2 || k % 2 != 0)
		return tt_errf(err, errsz, "%s: k=%d: k must be even and at "
		    "least 2 (the four classes are node-symmetric only then)",
		    name, k);
	if (net->spec.topo != TT_TOPO_MSN && k % (n - 1) != 0)
		return tt_errf(err, errsz, "%s: k=%d: a pruned torus needs k "
		    "a multiple of n - 1 = %d", name, k, n - 1);
	net->n = n;
	for (i = 0; i < n; i++) {
		net->k[digit_of(net, i)] = k;
		net->stride[digit_of(net, i)] = (uint32_t)nodes;
		nodes *= (uint64_t)k;
		if (nodes > TT_MAX_NODES)
			return tt_errf(err, errsz, "%s: k=%d, n=%d has more "
			    "than %u nodes", name, k, n, (unsigned)TT_MAX_NODES);
	}
	net->nnodes = (uint32_t)nodes;
	net->card_nports = 2 * n;
	net->ext_vcs = is_pruned(net) ? 4 : 3;
	net->directed = net->spec.topo != TT_TOPO_PRUNED;
	net->hop_limit = (uint32_t)(4 * n * k + 8);
	snprintf(net->topo_name, sizeof(net->topo_name), "%s:k=%d,n=%d",
	    name, k, n);
	return 0;
}

static void
tori_wire(tt_net *net)
{
	uint32_t node, plus, minus, st;
	int i, a, k, on, neg;

	for (node = 0; node < net->nnodes; node++)
		for (i = 0; i < net->n; i++) {
			k = net->k[digit_of(net, i)];
			st = net->stride[digit_of(net, i)];
			a = coord(net, node, i);
			plus = a == k - 1 ? node - st * (uint32_t)(k - 1) : node + st;
			minus = a == 0 ? node + st * (uint32_t)(k - 1) : node - st;
			on = has_dim(net, node, i);
			neg = net->directed ? arc_neg(net, node, i) : -1;
			netgen_cable(net, node, tt_port_of(i, 0), plus,
			    tt_port_of(i, 1), on && neg != 1);
			netgen_cable(net, node, tt_port_of(i, 1), minus,
			    tt_port_of(i, 0), on && neg != 0);
		}
}

/* The direction toward dst on an undirected ring of k: the shorter way,
 * a tie to +. */
static int
shorter_neg(int cur, int dst, int k)
{
	return 2 * ((dst - cur + k) % k) > k;
}

/* In dimension 0 toward the nearest a_0 = want (mod n - 1). */
static tt_hop
to_residue(const tt_net *net, uint32_t node, int want)
{
	int a0 = coord(net, node, 0), k = net->k[digit_of(net, 0)];
	int r = a0 % (net->n - 1), f, b, neg, t;

	f = (want - r + net->n - 1) % (net->n - 1);
	b = (r - want + net->n - 1) % (net->n - 1);
	neg = net->directed ? arc_neg(net, node, 0) : b < f;
	t = neg ? (a0 - b + k) % k : (a0 + f) % k;
	return netgen_hop(tt_port_of(0, neg), netgen_dateline(a0, t, neg), 0);
}

static tt_hop
tori_route(const tt_net *net, uint32_t node, uint32_t dnode, int in_port,
    tt_pktroute *st)
{
	int d, i, cur, dst, k, neg, vc;

	(void)in_port;
	(void)st;
	for (d = 0; d < net->n; d++)
		if (tt_node_digit(net, node, d) != tt_node_digit(net, dnode, d))
			break;
	i = d == net->n - 1 ? 0 : d + 1;
	if (!has_dim(net, node, i))
		return to_residue(net, node, i - 1);
	cur = tt_node_digit(net, node, d);
	dst = tt_node_digit(net, dnode, d);
	k = net->k[d];
	neg = net->directed ? arc_neg(net, node, i) : shorter_neg(cur, dst, k);
	if (!is_pruned(net) && i != 0 &&
	    2 * ((neg ? cur - dst + k : dst - cur + k) % k) > k + 1) {
		/* reverse the ring: one hop in the next dimension */
		int j = d + 1 == net->n - 1 ? 0 : d + 2;

		return netgen_hop(tt_port_of(j, arc_neg(net, node, j)), 2, j);
	}
	vc = netgen_dateline(cur, dst, neg);
	if (i == 0 && is_pruned(net))
		vc += 2;
	return netgen_hop(tt_port_of(i, neg), vc, i);
}

static const char *
tori_port_name(const tt_net *net, int port, char *buf, size_t bufsz)
{
	return tt_port_name(port, net->n, buf, bufsz);
}

/* Seed 002 Table 1's bisection: a cut through the middle of one
 * dimension; the least over the dimensions. */
static int
tori_ncuts(const tt_net *net)
{
	return net->n;
}

static int
tori_cut_side(const tt_net *net, int cut, uint32_t node)
{
	return coord(net, node, cut) >= net->k[digit_of(net, cut)] / 2;
}

static int
tori_id_digits(const tt_net *net, int *k)
{
	int i;

	for (i = 0; i < net->n; i++)
		k[i] = net->k[0];
	return net->n;
}

/* (a_0, ..., a_{n-1}) */
static void
tori_node_name(const tt_net *net, uint32_t node, char *buf, size_t bufsz)
{
	size_t len = 0;
	int i;

	for (i = 0; i < net->n && len < bufsz; i++)
		len += (size_t)snprintf(buf + len, bufsz - len, "%s%d",
		    i ? "," : "(", coord(net, node, i));
	if (len < bufsz)
		snprintf(buf + len, bufsz - len, ")");
}

/* The three differ only in their name and kind: the rules hang on
 * net->topo. */
#define TORI_GEN(NAME, TOPO) {                                          \
	.name = NAME,                                                   \
	.topo = TOPO,                                                   \
	.keys = "k,n",                                                  \
	.cube = 1,                                                      \
	.no_n = NULL,                                                   \
	.one_card = 1,                                                  \
	.derive = tori_derive,                                          \
	.wire = tori_wire,                                              \
	.route = tori_route,                                            \
	.link_peer = NULL,                                              \
	.has_link = NULL,                                               \
	.port_name = tori_port_name,                                    \
	.ncuts = tori_ncuts,                                            \
	.cut_side = tori_cut_side,                                      \
	.id_digits = tori_id_digits,                                    \
	.card_name = tori_node_name,                                    \
	.pe_at = NULL,                                                  \
}

const struct tt_gen netgen_pruned = TORI_GEN("pruned", TT_TOPO_PRUNED);
const struct tt_gen netgen_msn = TORI_GEN("msn", TT_TOPO_MSN);
const struct tt_gen netgen_pruned_msn = TORI_GEN("pruned-msn",
    TT_TOPO_PRUNED_MSN);
