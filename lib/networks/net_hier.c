/*
 * The hierarchical networks of two seed papers, with their own routing:
 *
 * MH3DT(m, n, L, q), Rahman et al., On nonuniform traffic pattern of
 * modified hierarchical 3D-torus network, IEICE 2011, §2: a basic module
 * (BM) is an m x m x m 3D torus, and n x n x n BMs form a 3D torus of BMs
 * (L = 2, the letter's case; it does not define higher levels).  The gate
 * nodes of a BM sit at the xy corners (0 or m-1) of planes z = 0, 1, 2,
 * carrying the inter-BM links of BM dimension z, y and x; q = 2 uses all
 * four corners.  A gate is linked to the same node of the next and the
 * previous BM in its dimension, so the BMs of a line form rings.
 * Routing (its Fig. 3): for BM dimensions z, y, x in turn, dimension
 * order inside the BM (z, y, x, each the shorter way round, a tie the way
 * of the raw difference's sign) to the nearest gate corner of that
 * dimension's plane (ties in the order (0,0), (0,m-1), (m-1,0),
 * (m-1,m-1)), then the shorter way round the ring of BMs; last, dimension
 * order inside the destination BM.  The letter prints the BM routing tag
 * with its sign reversed and a direction rule that covers n = 4 only; the
 * rule here is the shorter way, a tie by the sign.
 * VCs: the letter claims 2.  Used as one dateline pair on every ring,
 * shared by all phases, the channel dependency graph has a cycle (vcs=2
 * builds that scheme, for ttsim verify to show it); a pair of its own for
 * the final intra-BM leg (4 classes) is acyclic.
 *
 * 3D-TESH(m, L, q), Faisal, A new interconnection network that achieves
 * high performance for many-core processors, JAIST 2015, §3 (m = 2,
 * q = 0): a BM is 4 x 4 x 4 nodes, a mesh in x and y and a ring in z;
 * level l >= 2 joins 16 level-(l-1) subnetworks as a 4 x 4 2D torus, by a
 * vertical (row digit) and a horizontal (column digit) link set, each a
 * link from node OUT of the subnetwork with digit r to node IN of the one
 * with digit r + 1 (mod 4), in every BM and z layer, all other digits
 * kept.  The OUT and IN nodes (y, x) of each level are those of its
 * Algorithms 2 and 3: level 2 (0,0) and (0,3), level 3 (3,0) and (3,3),
 * level 4 (2,0) -> (1,0) and (0,2) -> (0,1), level 5 (2,3) -> (1,3) and
 * (3,2) -> (3,1) (vertical, then horizontal).  N = 2^(4L) * 4.
 * Routing (its Algorithm 1): top-down over the levels, the row digit and
 * then the column digit of each; inside the BM (x, then y, in the
 * packet's own z layer) to the OUT node (IN going -), cross, repeat; the
 * shorter way round the 4-ring, a tie positive iff the level and the
 * digit's index (even for a row) have the same parity; last, z the
 * shorter way (its Appendix A moves z by 2 where the offset is 3, which
 * reaches the wrong layer), then x, then y.
 * VCs: the thesis gives none for L >= 2.  A dateline pair per level and
 * one for the final BM leg (2L classes) is acyclic; with one pair for
 * every level and one for the final leg (vcs=4) the graph has a cycle
 * from L = 3.
 *
 * Ports of both: X+ X- Y+ Y- Z+ Z- inside the BM, then G+ (to the next
 * BM or subnetwork) and G- (from the previous one).
 */
#include <stdio.h>
#include <string.h>

#include "support/errf.h"
#include "networks/netgen.h"

#define PORT_GPLUS  6
#define PORT_GMINUS 7

static const char *
hier_port_name(const tt_net *net, int port, char *buf, size_t bufsz)
{
	(void)net;
	if (port == PORT_GPLUS || port == PORT_GMINUS)
		snprintf(buf, bufsz, "G%c", port == PORT_GPLUS ? '+' : '-');
	else
		tt_port_name(port, 3, buf, bufsz);
	return buf;
}

static int
sgn_neg(int cur, int dst, int k)
{
	int f = (dst - cur + k) % k;

	return 2 * f > k || (2 * f == k && dst < cur);
}

/* ---- MH3DT ---- */

/* Digits: BM z, y, x, then node z, y, x inside the BM. */
enum { MH_BZ, MH_BY, MH_BX, MH_Z, MH_Y, MH_X };

static int
mh_derive(tt_net *net, char *err, size_t errsz)
{
	const tt_genspec *g = &net->spec.gen;
	int m = netgen_key(g, TT_GENKEY_M, g->m, 4);
	int n = netgen_key(g, TT_GENKEY_N, g->n, 4);
	int L = netgen_key(g, TT_GENKEY_L, g->L, 2);
	int q = netgen_key(g, TT_GENKEY_Q, g->q, 2), d;
	int vcs = netgen_key(g, TT_GENKEY_VCS, g->vcs, 4);
	uint64_t nodes;

	/* k, the BM's nodes per dimension (a k-ary 3-cube), is the
	 * letter's m by the name every cube kind takes */
	if (netgen_given(g, TT_GENKEY_K) && netgen_given(g, TT_GENKEY_M))
		return tt_errf(err, errsz, "mh3dt: k=%d and m=%d both give "
		    "the BM side; give one", g->k, g->m);
	if (netgen_given(g, TT_GENKEY_K))
		m = g->k;
	nodes = (uint64_t)m * m * m * n * n * n;

	if (m < 3 || m > 64)
		return tt_errf(err, errsz, "mh3dt: %s=%d: the BM side must be "
		    "3..64 (the gates are on planes z = 0, 1, 2)",
		    netgen_given(g, TT_GENKEY_K) ? "k" : "m", m);
	if (n < 2 || n > 64)
		return tt_errf(err, errsz, "mh3dt: n=%d: the BMs per "
		    "dimension must be 2..64", n);
	if (L != 2)
		return tt_errf(err, errsz, "mh3dt: L=%d: the letter defines "
		    "level 2 only; use L=2", L);
	if (q != 2)
		return tt_errf(err, errsz, "mh3dt: q=%d: the letter defines "
		    "the gates of q = 2 only (four corners); use q=2", q);
	if (vcs != 2 && vcs != 4)
		return tt_errf(err, errsz, "mh3dt: vcs=%d: 4 (ours, the "
		    "default) or 2 (the letter's, which can deadlock)", vcs);
	if (nodes > TT_MAX_NODES)
		return tt_errf(err, errsz, "mh3dt: m=%d, n=%d has more than "
		    "%u nodes", m, n, (unsigned)TT_MAX_NODES);
	net->n = 6;
	for (d = 0; d < 3; d++) {
		net->k[MH_BZ + d] = n;
		net->k[MH_Z + d] = m;
	}
	net->stride[MH_X] = 1;
	net->stride[MH_Y] = (uint32_t)m;
	net->stride[MH_Z] = (uint32_t)(m * m);
	net->stride[MH_BX] = (uint32_t)(m * m * m);
	net->stride[MH_BY] = net->stride[MH_BX] * (uint32_t)n;
	net->stride[MH_BZ] = net->stride[MH_BY] * (uint32_t)n;
	net->nnodes = (uint32_t)nodes;
	net->card_nports = 8;
	net->ext_vcs = vcs;
	net->hop_limit = (uint32_t)(12 * (m + n) + 8);
	snprintf(net->topo_name, sizeof(net->topo_name),
	    "mh3dt:m=%d,n=%d,L=2,q=2%s", m, n, vcs == 2 ? ",vcs=2" : "");
	return 0;
}

static int
mh_is_corner(const tt_net *net, int v)
{
	return v == 0 || v == net->k[MH_X] - 1;
}

/* The BM digit a gate at node's plane links (-1: not a gate). */
static int
mh_gate_digit(const tt_net *net, uint32_t node)
{
	int z = tt_node_digit(net, node, MH_Z);

	if (z > 2 || !mh_is_corner(net, tt_node_digit(net, node, MH_X)) ||
	    !mh_is_corner(net, tt_node_digit(net, node, MH_Y)))
		return -1;
	return MH_BZ + z;
}

static uint32_t
step(const tt_net *net, uint32_t node, int d, int delta)
{
	int v = tt_node_digit(net, node, d), k = net->k[d];
	int w = (v + delta + k) % k;

	return node - (uint32_t)v * net->stride[d] + (uint32_t)w * net->stride[d];
}

static void
mh_wire(tt_net *net)
{
	static const int intra[3] = {MH_X, MH_Y, MH_Z};
	uint32_t node;
	int i, b;

	for (node = 0; node < net->nnodes; node++) {
		for (i = 0; i < 3; i++) {
			netgen_cable(net, node, tt_port_of(i, 0),
			    step(net, node, intra[i], 1), tt_port_of(i, 1), 1);
			netgen_cable(net, node, tt_port_of(i, 1),
			    step(net, node, intra[i], -1), tt_port_of(i, 0), 1);
		}
		if ((b = mh_gate_digit(net, node)) < 0)
			continue;
		netgen_cable(net, node, PORT_GPLUS, step(net, node, b, 1),
		    PORT_GMINUS, 1);
		netgen_cable(net, node, PORT_GMINUS, step(net, node, b, -1),
		    PORT_GPLUS, 1);
	}
}

/* Ring distance on a ring of k. */
static int
ring_dist(int a, int b, int k)
{
	int f = (b - a + k) % k;

	return f < k - f ? f : k - f;
}

/*
 * One hop of dimension-order routing inside the BM (z, y, x) from node
 * toward intra-BM target t[] (z, y, x), VC class from the dateline pair
 * at base.
 */
static tt_hop
mh_intra(const tt_net *net, uint32_t node, const int *t, int base)
{
	static const int port_dim[3] = {2, 1, 0};   /* z, y, x -> Z, Y, X */
	int i, cur, neg, m = net->k[MH_X];

	for (i = 0; i < 3; i++) {
		cur = tt_node_digit(net, node, MH_Z + i);
		if (cur == t[i])
			continue;
		neg = sgn_neg(cur, t[i], m);
		return netgen_hop(tt_port_of(port_dim[i], neg),
		    base + netgen_dateline(cur, t[i], neg), MH_Z + i);
	}
	return netgen_hop(TT_PORT_NIC, 0, 0);   /* not reached */
}

static tt_hop
mh_route(const tt_net *net, uint32_t node, uint32_t dnode, int in_port,
    tt_pktroute *st)
{
	int d, t[3], c, best = -1, bd = 0, dist, m = net->k[MH_X], cur, dst, neg;
	int z = tt_node_digit(net, node, MH_Z), y = tt_node_digit(net, node, MH_Y);
	int x = tt_node_digit(net, node, MH_X);

	(void)in_port;
	(void)st;
	for (d = 0; d < net->n; d++)
		if (tt_node_digit(net, node, d) != tt_node_digit(net, dnode, d))
			break;
	if (d >= MH_Z) {
		for (c = 0; c < 3; c++)
			t[c] = tt_node_digit(net, dnode, MH_Z + c);
		return mh_intra(net, node, t, net->ext_vcs == 2 ? 0 : 2);
	}
	if (mh_gate_digit(net, node) == d) {
		cur = tt_node_digit(net, node, d);
		dst = tt_node_digit(net, dnode, d);
		neg = sgn_neg(cur, dst, net->k[d]);
		return netgen_hop(neg ? PORT_GMINUS : PORT_GPLUS,
		    netgen_dateline(cur, dst, neg), d);
	}
	/* the nearest gate corner of plane d, ties in list order */
	for (c = 0; c < 4; c++) {
		int cx = c & 2 ? m - 1 : 0, cy = c & 1 ? m - 1 : 0;

		dist = ring_dist(z, d, m) + ring_dist(y, cy, m) +
		    ring_dist(x, cx, m);
		if (best < 0 || dist < bd) {
			best = c;
			bd = dist;
		}
	}
	t[0] = d;
	t[1] = best & 1 ? m - 1 : 0;
	t[2] = best & 2 ? m - 1 : 0;
	return mh_intra(net, node, t, 0);
}

/* x, y, z inside the BM, then the BM's x, y, z */
static int
mh_id_digits(const tt_net *net, int *k)
{
	int i;

	for (i = 0; i < 3; i++) {
		k[i] = net->k[MH_X];
		k[3 + i] = net->k[MH_BX];
	}
	return 6;
}

/* BM (x, y, z), then the node's (x, y, z) inside it */
static void
mh_node_name(const tt_net *net, uint32_t node, char *buf, size_t bufsz)
{
	snprintf(buf, bufsz, "BM(%d,%d,%d)(%d,%d,%d)",
	    tt_node_digit(net, node, MH_BX), tt_node_digit(net, node, MH_BY),
	    tt_node_digit(net, node, MH_BZ), tt_node_digit(net, node, MH_X),
	    tt_node_digit(net, node, MH_Y), tt_node_digit(net, node, MH_Z));
}

const struct tt_gen netgen_mh3dt = {
	.name = "mh3dt",
	.topo = TT_TOPO_MH3DT,
	.keys = "k,m,n,L,q,vcs",
	.cube = 0,
	.no_n = NULL,
	.one_card = 1,
	.derive = mh_derive,
	.wire = mh_wire,
	.route = mh_route,
	.link_peer = NULL,
	.has_link = NULL,
	.port_name = hier_port_name,
	.ncuts = NULL,
	.cut_side = NULL,
	.id_digits = mh_id_digits,
	.card_name = mh_node_name,
	.pe_at = NULL,
};

/* ---- 3D-TESH ---- */

/*
 * Digits: the levels from the top (L) down to 2, each its row and column
 * as row * 4 + column, then the BM as y * 16 + x * 4 + z.  A node id is
 * the thesis's address s_{2L} ... s_0 read in base 4 (s_0 = z, s_1 = x,
 * s_2 = y, s_{2l-1} the column and s_{2l} the row of level l).
 */
#define TESH_K 4

/* OUT and IN (y, x) of level l's vertical (0) and horizontal (1) links. */
static const int tesh_gate[6][2][2][2] = {
	[2] = {{{0, 0}, {0, 0}}, {{0, 3}, {0, 3}}},
	[3] = {{{3, 0}, {3, 0}}, {{3, 3}, {3, 3}}},
	[4] = {{{2, 0}, {1, 0}}, {{0, 2}, {0, 1}}},
	[5] = {{{2, 3}, {1, 3}}, {{3, 2}, {3, 1}}},
};

static int
tesh_levels(const tt_net *net)
{
	return net->n;
}

/* The digit of level l (2..L), and of the BM. */
static int
tesh_digit_of(const tt_net *net, int l)
{
	return tesh_levels(net) - l;
}

#define TESH_BM(net) ((net)->n - 1)

static int
tesh_derive(tt_net *net, char *err, size_t errsz)
{
	const tt_genspec *g = &net->spec.gen;
	int m = netgen_key(g, TT_GENKEY_M, g->m, 2);
	int L = netgen_key(g, TT_GENKEY_L, g->L, 2), l, vcs;

	/* k, the BM's side, is 2^m */
	if (netgen_given(g, TT_GENKEY_K) && netgen_given(g, TT_GENKEY_M))
		return tt_errf(err, errsz, "tesh: k=%d and m=%d both give "
		    "the BM side (k = 2^m); give one", g->k, g->m);
	if (netgen_given(g, TT_GENKEY_K) && g->k != 4)
		return tt_errf(err, errsz, "tesh: k=%d: the BM side is 2^m "
		    "and only m=2 (k=4, 4x4x4 BMs) is implemented", g->k);

	if (m != 2)
		return tt_errf(err, errsz, "tesh: m=%d: only m=2 (4x4x4 BMs) "
		    "is implemented", m);
	if (g->q != 0)
		return tt_errf(err, errsz, "tesh: q=%d: only q=0 is "
		    "implemented", g->q);
	if (L < 1 || L > 5)
		return tt_errf(err, errsz, "tesh: L=%d: the levels of "
		    "3D-TESH(2, L, 0) are 1..5", L);
	vcs = netgen_key(g, TT_GENKEY_VCS, g->vcs, 2 * L);
	if (vcs != 4 && vcs != 2 * L && L == 2)
		return tt_errf(err, errsz, "tesh: vcs=%d: use 4 (at L = 2 "
		    "ours and the thesis's scheme both have 4 VCs)", vcs);
	if (vcs != 4 && vcs != 2 * L)
		return tt_errf(err, errsz, "tesh: vcs=%d: use %d (a dateline "
		    "pair per level and one for the final BM leg, the default) "
		    "or 4 (one pair shared by the levels, which ttsim verify "
		    "shows can deadlock from L = 3)", vcs, 2 * L);
	net->n = L;
	net->k[TESH_BM(net)] = 64;
	net->stride[TESH_BM(net)] = 1;
	for (l = 2; l <= L; l++) {
		net->k[tesh_digit_of(net, l)] = 16;
		net->stride[tesh_digit_of(net, l)] = 1u << (4 * l - 2);
	}
	net->nnodes = 64u << (4 * (L - 1));
	net->card_nports = 8;
	net->ext_vcs = vcs;
	net->hop_limit = (uint32_t)(16 * L + 8);
	snprintf(net->topo_name, sizeof(net->topo_name), "tesh:m=2,L=%d,q=0%s",
	    L, vcs == 4 && L != 2 ? ",vcs=4" : "");
	return 0;
}

static void
tesh_bm(const tt_net *net, uint32_t node, int *y, int *x, int *z)
{
	int b = tt_node_digit(net, node, TESH_BM(net));

	*z = b & 3;
	*x = (b >> 2) & 3;
	*y = b >> 4;
}

static uint32_t
tesh_with_bm(const tt_net *net, uint32_t node, int y, int x, int z)
{
	int b = tt_node_digit(net, node, TESH_BM(net));

	return node - (uint32_t)b + (uint32_t)(y * 16 + x * 4 + z);
}

/* node with level l's row (vh 0) or column (vh 1) moved by delta, at
 * BM position (y, x). */
static uint32_t
tesh_cross(const tt_net *net, uint32_t node, int l, int vh, int delta,
    int y, int x)
{
	int d = tesh_digit_of(net, l), v = tt_node_digit(net, node, d);
	int r = v >> 2, c = v & 3, w;
	int z = tt_node_digit(net, node, TESH_BM(net)) & 3;

	if (vh == 0)
		r = (r + delta + TESH_K) % TESH_K;
	else
		c = (c + delta + TESH_K) % TESH_K;
	w = r * 4 + c;
	node = node - (uint32_t)v * net->stride[d] + (uint32_t)w * net->stride[d];
	return tesh_with_bm(net, node, y, x, z);
}

static void
tesh_wire(tt_net *net)
{
	uint32_t node;
	int y, x, z, l, vh;
	const int *out, *in;

	for (node = 0; node < net->nnodes; node++) {
		tesh_bm(net, node, &y, &x, &z);
		if (x < 3)
			netgen_cable(net, node, 0, tesh_with_bm(net, node, y,
			    x + 1, z), 1, 1);
		if (x > 0)
			netgen_cable(net, node, 1, tesh_with_bm(net, node, y,
			    x - 1, z), 0, 1);
		if (y < 3)
			netgen_cable(net, node, 2, tesh_with_bm(net, node,
			    y + 1, x, z), 3, 1);
		if (y > 0)
			netgen_cable(net, node, 3, tesh_with_bm(net, node,
			    y - 1, x, z), 2, 1);
		netgen_cable(net, node, 4, tesh_with_bm(net, node, y, x,
		    (z + 1) % 4), 5, 1);
		netgen_cable(net, node, 5, tesh_with_bm(net, node, y, x,
		    (z + 3) % 4), 4, 1);
		for (l = 2; l <= tesh_levels(net); l++)
			for (vh = 0; vh < 2; vh++) {
				out = tesh_gate[l][vh][0];
				in = tesh_gate[l][vh][1];
				if (y == out[0] && x == out[1])
					netgen_cable(net, node, PORT_GPLUS,
					    tesh_cross(net, node, l, vh, 1,
					    in[0], in[1]), PORT_GMINUS, 1);
				if (y == in[0] && x == in[1])
					netgen_cable(net, node, PORT_GMINUS,
					    tesh_cross(net, node, l, vh, -1,
					    out[0], out[1]), PORT_GPLUS, 1);
			}
	}
}

/* Inside the BM's mesh toward (ty, tx): x first, then y. */
static tt_hop
tesh_mesh(int y, int x, int ty, int tx, int vc, int tag)
{
	if (x != tx)
		return netgen_hop(tt_port_of(0, tx < x), vc, tag);
	return netgen_hop(tt_port_of(1, ty < y), vc, tag);
}

static tt_hop
tesh_route(const tt_net *net, uint32_t node, uint32_t dnode, int in_port,
    tt_pktroute *st)
{
	int d, l, vh, cur, dst, f, neg, y, x, z, dy, dx, dz, vc, base;
	const int *gate;

	(void)in_port;
	(void)st;
	for (d = 0; d < net->n; d++)
		if (tt_node_digit(net, node, d) != tt_node_digit(net, dnode, d))
			break;
	tesh_bm(net, node, &y, &x, &z);
	if (d == TESH_BM(net)) {
		tesh_bm(net, dnode, &dy, &dx, &dz);
		if (z != dz) {
			neg = sgn_neg(z, dz, TESH_K);
			return netgen_hop(tt_port_of(2, neg),
			    netgen_dateline(z, dz, neg), 1);
		}
		return tesh_mesh(y, x, dy, dx, 0, 1);
	}
	l = tesh_levels(net) - d;
	cur = tt_node_digit(net, node, d);
	dst = tt_node_digit(net, dnode, d);
	vh = (cur >> 2) == (dst >> 2);      /* the row first, then the column */
	cur = vh ? cur & 3 : cur >> 2;
	dst = vh ? dst & 3 : dst >> 2;
	f = (dst - cur + TESH_K) % TESH_K;
	/* SP_routing: a tie positive iff level and digit index (2l for the
	 * row, 2l - 1 for the column) have the same parity */
	neg = f == 2 ? (l % 2 == 0) == (vh == 1) : f > 2;
	base = net->ext_vcs == 4 ? 2 : 2 * (l - 1);
	vc = base + netgen_dateline(cur, dst, neg);
	gate = tesh_gate[l][vh][neg ? 1 : 0];
	if (y == gate[0] && x == gate[1])
		return netgen_hop(neg ? PORT_GMINUS : PORT_GPLUS, vc, l);
	return tesh_mesh(y, x, gate[0], gate[1], vc, l);
}

/* Eq. 4.2's consistent form: the links cut by halving the top level's
 * rows (L >= 2). */
static int
tesh_ncuts(const tt_net *net)
{
	return tesh_levels(net) >= 2 ? 1 : 0;
}

static int
tesh_cut_side(const tt_net *net, int cut, uint32_t node)
{
	(void)cut;
	return (tt_node_digit(net, node, 0) >> 2) >= 2;
}

/* The thesis's address s_0 (z), s_1 (x), s_2 (y), s_3 ..., base 4. */
static int
tesh_id_digits(const tt_net *net, int *k)
{
	int i;

	for (i = 0; i <= 2 * tesh_levels(net); i++)
		k[i] = TESH_K;
	return 2 * tesh_levels(net) + 1;
}

/* The thesis's address: (row, column) of each level from the top, then
 * the BM's (y, x, z). */
static void
tesh_node_name(const tt_net *net, uint32_t node, char *buf, size_t bufsz)
{
	size_t len = 0;
	int d, v, y, x, z;

	for (d = 0; d < TESH_BM(net) && len < bufsz; d++) {
		v = tt_node_digit(net, node, d);
		len += (size_t)snprintf(buf + len, bufsz - len, "(%d,%d)",
		    v >> 2, v & 3);
	}
	tesh_bm(net, node, &y, &x, &z);
	if (len < bufsz)
		snprintf(buf + len, bufsz - len, "(%d,%d,%d)", y, x, z);
}

const struct tt_gen netgen_tesh = {
	.name = "tesh",
	.topo = TT_TOPO_TESH,
	.keys = "k,m,L,q,vcs",
	.cube = 0,
	.no_n = "3D-TESH has three dimensions at every level (a 4x4x4 BM, "
	    "levels of 4x4 2D tori); its size is L, the levels (tesh:L=3)",
	.one_card = 1,
	.derive = tesh_derive,
	.wire = tesh_wire,
	.route = tesh_route,
	.link_peer = NULL,
	.has_link = NULL,
	.port_name = hier_port_name,
	.ncuts = tesh_ncuts,
	.cut_side = tesh_cut_side,
	.id_digits = tesh_id_digits,
	.card_name = tesh_node_name,
	.pe_at = NULL,
};
