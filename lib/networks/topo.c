/*
 * The torus, its port configurations and the virtual-channel layout.
 *
 * Everything here is set up once by tt_net_init(); the routing function
 * (route.c) and everything above it only read the result.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "twintorus/topo.h"
#include "networks/netgen.h"
#include "support/errf.h"

int
tt_errf(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errsz > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errsz, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/*
 * Seed 000 Table 1: the ten configurations up to swapping the cards, given by
 * card 0's ports (card 1 has the other three).  X+ = 0, X- = 1, Y+ = 2, ...
 */
static const int8_t letter_card0[10][3] = {
	{0, 2, 4},	/* A {X+,Y+,Z+} */
	{0, 2, 5},	/* B {X+,Y+,Z-} */
	{0, 2, 3},	/* C {X+,Y+,Y-} */
	{0, 2, 1},	/* D {X+,Y+,X-} */
	{0, 3, 4},	/* E {X+,Y-,Z+} */
	{0, 3, 5},	/* F {X+,Y-,Z-} */
	{0, 3, 1},	/* G {X+,Y-,X-} */
	{0, 4, 5},	/* H {X+,Z+,Z-} */
	{0, 4, 1},	/* I {X+,Z+,X-} */
	{0, 5, 1},	/* J {X+,Z-,X-} */
};

const int8_t *
tt_letter_card0(char letter)
{
	int c = toupper((unsigned char)letter);

	if (c < 'A' || c > 'J')
		return NULL;
	return letter_card0[c - 'A'];
}

int
tt_port_parse(const char *name, int n)
{
	int dim, neg;
	size_t len;

	if (name == NULL)
		return -1;
	len = strlen(name);
	if (len < 2)
		return -1;
	if (name[len - 1] == '+')
		neg = 0;
	else if (name[len - 1] == '-')
		neg = 1;
	else
		return -1;
	if (len == 2 && n <= 3 && strchr("XYZxyz", name[0]) != NULL) {
		dim = toupper((unsigned char)name[0]) - 'X';
	} else if (len == 3 && (name[0] == 'd' || name[0] == 'D') &&
	    isdigit((unsigned char)name[1])) {
		dim = name[1] - '0';
	} else {
		return -1;
	}
	if (dim >= n)
		return -1;
	return tt_port_of(dim, neg);
}

const char *
tt_port_name(int port, int n, char *buf, size_t bufsz)
{
	if (port == TT_PORT_INT)
		snprintf(buf, bufsz, "int");
	else if (port == TT_PORT_NIC)
		snprintf(buf, bufsz, "nic");
	else if (n <= 3)
		snprintf(buf, bufsz, "%c%c", 'X' + tt_port_dim(port),
		    tt_port_neg(port) ? '-' : '+');
	else
		snprintf(buf, bufsz, "d%d%c", tt_port_dim(port),
		    tt_port_neg(port) ? '-' : '+');
	return buf;
}

const char *
tt_deadlock_name(enum tt_deadlock dl)
{
	switch (dl) {
	case TT_DL_VC:
		return "vc";
	case TT_DL_BUBBLE:
		return "bubble";
	case TT_DL_NONE:
		return "none";
	}
	return "?";
}

int
tt_deadlock_parse(const char *s, enum tt_deadlock *out)
{
	if (strcmp(s, "vc") == 0)
		*out = TT_DL_VC;
	else if (strcmp(s, "bubble") == 0)
		*out = TT_DL_BUBBLE;
	else if (strcmp(s, "none") == 0)
		*out = TT_DL_NONE;
	else
		return -1;
	return 0;
}

void
tt_netspec_default(tt_netspec *spec)
{
	memset(spec, 0, sizeof(*spec));
	spec->n = 3;
	spec->k[0] = spec->k[1] = spec->k[2] = 4;
	spec->twin = 1;
	spec->deadlock = TT_DL_VC;
	spec->ports_kind = TT_PORTS_BEST;
}

int
tt_netspec_set_ports(tt_netspec *spec, const char *s, char *err, size_t errsz)
{
	if (strcasecmp(s, "best") == 0) {
		spec->ports_kind = TT_PORTS_BEST;
		return 0;
	}
	if (strlen(s) == 1 && tt_letter_card0(s[0]) != NULL) {
		spec->ports_kind = TT_PORTS_LETTER;
		spec->letter = (char)toupper((unsigned char)s[0]);
		return 0;
	}
	return tt_errf(err, errsz, "unknown port configuration '%s': use A..J "
	    "(seed 000 Table 1, 3 dimensions), best, or a {card0: [...], "
	    "card1: [...]} map in a YAML file", s);
}

int
tt_netspec_set_dims(tt_netspec *spec, const char *s, char *err, size_t errsz)
{
	const char *p = s;
	char *end;
	long v;
	int n = 0;

	for (;;) {
		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p || errno != 0)
			return tt_errf(err, errsz, "expected comma-separated "
			    "node counts such as 4,4,4");
		if (n == TT_MAX_DIMS)
			return tt_errf(err, errsz, "at most %d dimensions are "
			    "supported", TT_MAX_DIMS);
		if (v < 2 || v > TT_MAX_K)
			return tt_errf(err, errsz, "dimension %d has %ld "
			    "node%s; each dimension needs 2..%d nodes", n, v,
			    v == 1 ? "" : "s", TT_MAX_K);
		spec->k[n++] = (int)v;
		if (*end == '\0')
			break;
		if (*end != ',' && *end != 'x')
			return tt_errf(err, errsz, "expected comma-separated "
			    "node counts such as 4,4,4");
		p = end + 1;
	}
	if (n < 2)
		return tt_errf(err, errsz, "a torus needs at least 2 dimensions "
		    "(give one node count per dimension, e.g. 16,8)");
	spec->n = n;
	return 0;
}

/* C_Best (seed 001 Def. 3.5), with the + port of the middle dimension on card 0 for even k. */
static void
best_card_map(const tt_netspec *spec, uint8_t *card)
{
	int n = spec->n, d, mid;

	for (d = 0; d < n; d++) {
		card[tt_port_of(d, 0)] = (uint8_t)(2 * d < n - 1 ? 0 : 1);
		card[tt_port_of(d, 1)] = card[tt_port_of(d, 0)];
	}
	if (n % 2 == 1) {
		/*
		 * The middle dimension is split.  Seed 001 puts its - port on
		 * card 0 (k odd, where the side does not matter).  With even k
		 * the tie goes to +, so the + port on card 0 keeps more paths
		 * on one card (seed 000 §5.2.6): for n = 3 that is D.
		 */
		mid = (n - 1) / 2;
		if (spec->k[mid] % 2 == 0) {
			card[tt_port_of(mid, 0)] = 0;
			card[tt_port_of(mid, 1)] = 1;
		} else {
			card[tt_port_of(mid, 0)] = 1;
			card[tt_port_of(mid, 1)] = 0;
		}
	}
}

static int
resolve_ports(tt_net *net, const tt_netspec *spec, char *err, size_t errsz)
{
	const int8_t *c0;
	int seen[TT_MAX_EXT], count[2] = {0, 0};
	int n = spec->n, i, c, p;
	char pb[8];

	if (!spec->twin) {
		memset(net->port_card, 0, sizeof(net->port_card));
		snprintf(net->ports_name, sizeof(net->ports_name), "plain");
		return 0;
	}
	switch (spec->ports_kind) {
	case TT_PORTS_BEST:
		best_card_map(spec, net->port_card);
		snprintf(net->ports_name, sizeof(net->ports_name), "best");
		return 0;
	case TT_PORTS_LETTER:
		if (n != 3)
			return tt_errf(err, errsz, "port configuration %c is "
			    "defined for 3 dimensions only (seed 000 Table 1) "
			    "but the torus has %d: use best or a custom map",
			    spec->letter, n);
		c0 = tt_letter_card0(spec->letter);
		if (c0 == NULL)
			return tt_errf(err, errsz, "unknown port configuration "
			    "'%c'", spec->letter);
		memset(net->port_card, 1, sizeof(net->port_card));
		for (i = 0; i < 3; i++)
			net->port_card[c0[i]] = 0;
		snprintf(net->ports_name, sizeof(net->ports_name), "%c",
		    spec->letter);
		return 0;
	case TT_PORTS_CUSTOM:
		break;
	}
	memset(seen, 0, sizeof(seen));
	for (c = 0; c < 2; c++) {
		for (i = 0; i < spec->ncard[c]; i++) {
			p = spec->card_ports[c][i];
			if (!tt_port_is_ext(p) || tt_port_dim(p) >= n)
				return tt_errf(err, errsz, "card%d lists a port "
				    "that the %d-dimensional torus does not "
				    "have", c, n);
			if (seen[p])
				return tt_errf(err, errsz, "port %s is listed "
				    "twice: each external port belongs to "
				    "exactly one card",
				    tt_port_name(p, n, pb, sizeof(pb)));
			seen[p] = 1;
			net->port_card[p] = (uint8_t)c;
			count[c]++;
		}
	}
	for (p = 0; p < 2 * n; p++)
		if (!seen[p])
			return tt_errf(err, errsz, "port %s is on neither card: "
			    "each external port belongs to exactly one card",
			    tt_port_name(p, n, pb, sizeof(pb)));
	for (c = 0; c < 2; c++)
		if (count[c] != n)
			return tt_errf(err, errsz, "card%d holds %d external "
			    "ports; each card holds %d external ports plus the "
			    "internal link", c, count[c], n);
	snprintf(net->ports_name, sizeof(net->ports_name), "custom");
	return 0;
}

/*
 * Virtual channels (seed 000 §6.3, seed 001 §4.3), for any configuration.
 *
 * External links: under vc two VCs per ring, chosen by whether the
 * destination digit is above or below the current one (seed 000 Alg. 4);
 * one VC otherwise.
 *
 * Internal link, by traffic type (seed 000 §6.2.1):
 *  type 1 (entering a dimension whose ports are both on the other card):
 *    seed 000 uses one VC.  That is enough when, on each card, the
 *    dimensions wholly on it are consecutive in DOR order, which holds for
 *    all of A..J and for C_Best.  When a card's dimensions form several runs
 *    (d0 and d2 on card 0, d1 and d3 on card 1, say), packets can alternate
 *    cards several times and one VC closes a cycle through four nodes; we
 *    give each run its own VC, so type-1 VCs along a path strictly increase.
 *    Where a type-1 class owns several of seed 000 §7.1's VCs, a packet
 *    takes the one of its output port (layout_lanes() below).
 *  type 2 (the internal link as part of the ring of a split dimension): two
 *    VCs per split dimension under vc, one under bubble.
 *  type 3 (to the neighbour PE): one VC, last.
 * Under none everything shares VC 0.
 */
static int
pow2ceil(int v)
{
	int r = 1;

	while (r < v)
		r <<= 1;
	return r;
}

int
tt_phys_vcs(enum tt_deadlock dl, int classes, int min_vcs)
{
	int min = min_vcs > 0 ? min_vcs : (dl == TT_DL_VC ? 4 : 1);
	int v = pow2ceil(classes);

	return v > min ? v : min;
}

/*
 * The internal link's VCs in seed 000 §7.1's switch, and footnote 5's
 * choice among them: "for the traffic type 1 we have used two virtual
 * channels instead of just one, choosing the destination virtual channel
 * on the output port of the dimension in function of the output port".
 * Class c owns VCs c, c + int_vcs, ...; a type-1 class with more than one
 * takes lane (output port mod lanes), so under bubble a packet for X+ and
 * one for X- never share a buffer (and under vc, where the 4 VCs of C..J
 * are one per class, nothing changes).  Each lane is a refinement of its
 * class: a packet uses one of its class's VCs either way, so the class
 * graph being acyclic makes any choice among them deadlock-free; ttsim
 * verify checks the lanes' own graph.
 */
static void
layout_lanes(tt_net *net)
{
	int c, top = net->int_vcs - 1;

	net->int_phys = tt_phys_vcs(net->deadlock, net->int_vcs, 0);
	for (c = 0; c < TT_MAX_VCS; c++)
		net->lanes[c] = 1;
	if (net->deadlock != TT_DL_NONE && net->spec.t1_vc == TT_T1VC_PORT)
		for (c = 0; c < net->t1_vcs; c++) {
			net->lanes[c] = (uint8_t)((net->int_phys - c +
			    net->int_vcs - 1) / net->int_vcs);
			if (c + net->int_vcs * (net->lanes[c] - 1) > top)
				top = c + net->int_vcs * (net->lanes[c] - 1);
		}
	net->int_chans = top + 1;
}

static void
layout_vcs(tt_net *net)
{
	int runs[2] = {0, 0}, in_run[2] = {0, 0};
	int d, c, v, per_split;

	memset(net->t1_vc, -1, sizeof(net->t1_vc));
	memset(net->t2_vc, -1, sizeof(net->t2_vc));
	memset(net->lanes, 1, sizeof(net->lanes));
	net->ext_vcs = net->deadlock == TT_DL_VC ? 2 : 1;
	if (!net->twin) {
		net->int_vcs = 0;
		net->t1_vcs = 0;
		net->t3_vc = -1;
		net->int_phys = net->int_chans = 0;
		return;
	}
	for (d = 0; d < net->n; d++) {
		if (net->split[d]) {
			in_run[0] = in_run[1] = 0;
			continue;
		}
		c = net->port_card[tt_port_of(d, 0)];
		if (!in_run[c]) {
			runs[c]++;
			in_run[c] = 1;
		}
		in_run[1 - c] = 0;
		net->t1_vc[d] = (int8_t)(runs[c] - 1);
	}
	if (net->deadlock == TT_DL_NONE) {
		for (d = 0; d < net->n; d++) {
			if (net->t1_vc[d] >= 0)
				net->t1_vc[d] = 0;
			if (net->split[d])
				net->t2_vc[d] = 0;
		}
		net->t1_vcs = 0;
		net->t3_vc = 0;
		net->int_vcs = 1;
		layout_lanes(net);
		return;
	}
	net->t1_vcs = runs[0] > runs[1] ? runs[0] : runs[1];
	per_split = net->deadlock == TT_DL_VC ? 2 : 1;
	v = net->t1_vcs;
	for (d = 0; d < net->n; d++) {
		if (net->split[d]) {
			net->t2_vc[d] = (int8_t)v;
			v += per_split;
		}
	}
	net->t3_vc = v;
	net->int_vcs = v + 1;
	layout_lanes(net);
}

static void
layout_ports(tt_net *net)
{
	int c, p, i, base;

	memset(net->local_port, -1, sizeof(net->local_port));
	for (c = 0; c < (net->twin ? 2 : 1); c++) {
		i = 0;
		base = 0;
		for (p = 0; p < 2 * net->n; p++) {
			if (net->port_card[p] != c)
				continue;
			net->card_port[c][i] = (uint8_t)p;
			net->local_port[c][p] = (int8_t)i;
			net->chan_base[c][i] = (uint8_t)base;
			base += net->ext_vcs;
			i++;
		}
		if (net->twin) {
			net->card_port[c][i] = TT_PORT_INT;
			net->local_port[c][TT_PORT_INT] = (int8_t)i;
			net->chan_base[c][i] = (uint8_t)base;
			base += net->int_chans;
			i++;
		}
		net->card_nports = i;
		net->chans_per_card = base;
	}
}

/* Everything tt_net_init() derives, without the coordinate table. */
static int
net_derive(tt_net *net, const tt_netspec *spec, char *err, size_t errsz)
{
	uint64_t nodes = 1;
	int d;

	if (spec->topo != TT_TOPO_TORUS)
		return netgen_derive(net, spec, err, errsz);
	memset(net, 0, sizeof(*net));
	if (spec->n < 2)
		return tt_errf(err, errsz, "a torus needs at least 2 dimensions, "
		    "got %d", spec->n);
	if (spec->n > TT_MAX_DIMS)
		return tt_errf(err, errsz, "at most %d dimensions are supported, "
		    "got %d", TT_MAX_DIMS, spec->n);
	for (d = 0; d < spec->n; d++) {
		if (spec->k[d] < 2 || spec->k[d] > TT_MAX_K)
			return tt_errf(err, errsz, "dimension %d has %d nodes; "
			    "each dimension needs 2..%d", d, spec->k[d],
			    TT_MAX_K);
		nodes *= (uint64_t)spec->k[d];
		if (nodes > TT_MAX_NODES)
			return tt_errf(err, errsz, "the torus has more than "
			    "%u nodes, the most twintorus models",
			    (unsigned)TT_MAX_NODES);
	}
	net->spec = *spec;
	net->n = spec->n;
	memcpy(net->k, spec->k, sizeof(net->k));
	net->twin = spec->twin ? 1 : 0;
	net->deadlock = spec->deadlock;
	net->nnodes = (uint32_t)nodes;
	net->ncards = net->twin ? net->nnodes * 2 : net->nnodes;
	if (resolve_ports(net, spec, err, errsz) < 0)
		return -1;
	for (d = 0; d < net->n; d++) {
		net->stride[d] = d == 0 ? 1 : net->stride[d - 1] * (uint32_t)net->k[d - 1];
		net->split[d] = net->twin && net->port_card[tt_port_of(d, 0)] !=
		    net->port_card[tt_port_of(d, 1)];
	}
	layout_vcs(net);
	layout_ports(net);
	if (net->int_vcs > TT_MAX_VCS || net->chans_per_card > 64)
		return tt_errf(err, errsz, "this configuration needs %d "
		    "internal-link VCs; at most %d are supported",
		    net->int_vcs, TT_MAX_VCS);
	return 0;
}

int
tt_netspec_check(const tt_netspec *spec, char *err, size_t errsz)
{
	tt_net net;

	return net_derive(&net, spec, err, errsz);
}

int
tt_net_init(tt_net *net, const tt_netspec *spec, char *err, size_t errsz)
{
	uint32_t node;
	int d;

	if (net_derive(net, spec, err, errsz) < 0)
		return -1;
	net->coord = malloc((size_t)net->nnodes * (size_t)net->n * sizeof(uint16_t));
	if (net->coord == NULL)
		return tt_errf(err, errsz, "out of memory for %u nodes",
		    net->nnodes);
	for (node = 0; node < net->nnodes; node++)
		for (d = 0; d < net->n; d++)
			net->coord[(size_t)node * (size_t)net->n + (size_t)d] =
			    (uint16_t)((node / net->stride[d]) % (uint32_t)net->k[d]);
	if (net->gen != NULL && netgen_build(net) < 0) {
		tt_net_free(net);
		return tt_errf(err, errsz, "out of memory for the links of %u "
		    "nodes", net->nnodes);
	}
	return 0;
}

void
tt_net_free(tt_net *net)
{
	free(net->coord);
	net->coord = NULL;
	netgen_free(net);
}

uint32_t
tt_node_index(const tt_net *net, const int *coord)
{
	uint32_t node = 0;
	int d;

	for (d = 0; d < net->n; d++)
		node += (uint32_t)coord[d] * net->stride[d];
	return node;
}

int
tt_pe_parse(const tt_net *net, const char *s, uint32_t *pe, char *err,
    size_t errsz)
{
	int coord[TT_MAX_DIMS], d = 0, side = 0;
	const char *p = s;
	char *end;
	long v;

	if (*p == '(')
		p++;
	for (;;) {
		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p || errno != 0 || v < 0)
			goto bad;
		/* beyond any id or coordinate: refuse it, never truncate it */
		if (v > INT_MAX)
			return tt_errf(err, errsz, "PE '%s' does not exist: the "
			    "network has PEs 0..%u", s, net->ncards - 1);
		if (d == TT_MAX_DIMS)
			goto bad;
		coord[d++] = (int)v;
		p = end;
		if (*p == ')')
			p++;
		if (*p != ',')
			break;
		p++;
	}
	if (*p == '/') {
		p++;
		if (*p == 'c')
			p++;
		if ((*p != '0' && *p != '1') || p[1] != '\0')
			goto bad;
		side = *p - '0';
		p++;
	}
	if (*p != '\0')
		goto bad;
	if (d == 1 && side == 0 && strchr(s, '/') == NULL) {
		if ((uint32_t)coord[0] >= net->ncards)
			return tt_errf(err, errsz, "PE %d does not exist: the "
			    "network has PEs 0..%u", coord[0], net->ncards - 1);
		*pe = (uint32_t)coord[0];
		return 0;
	}
	if (net->gen != NULL)
		return tt_errf(err, errsz, "PE '%s': name a PE of %s by its "
		    "id, 0..%u", s, net->topo_name, net->ncards - 1);
	if (d != net->n)
		return tt_errf(err, errsz, "PE '%s' has %d coordinates; the "
		    "torus has %d dimensions", s, d, net->n);
	for (d = 0; d < net->n; d++)
		if (coord[d] >= net->k[d])
			return tt_errf(err, errsz, "PE '%s': coordinate %d is "
			    "%d but dimension %d has %d nodes", s, d,
			    coord[d], d, net->k[d]);
	if (side == 1 && !net->twin)
		return tt_errf(err, errsz, "PE '%s': a plain torus has one PE "
		    "per node", s);
	*pe = tt_card_of(net, tt_node_index(net, coord), side);
	return 0;
bad:
	return tt_errf(err, errsz, "cannot read PE '%s': give a PE id, or "
	    "node coordinates and card as in 1,0,3/1", s);
}

const char *
tt_card_name(const tt_net *net, uint32_t card, char *buf, size_t bufsz)
{
	uint32_t node = tt_card_node(net, card);
	size_t len = 0;
	int d;

	if (net->gen != NULL) {
		net->gen->node_name(net, node, buf, bufsz);
		return buf;
	}
	len += (size_t)snprintf(buf + len, bufsz - len, "(");
	for (d = 0; d < net->n && len < bufsz; d++)
		len += (size_t)snprintf(buf + len, bufsz - len, "%s%d",
		    d ? "," : "", tt_node_digit(net, node, d));
	if (len < bufsz)
		len += (size_t)snprintf(buf + len, bufsz - len, ")");
	if (net->twin && len < bufsz)
		snprintf(buf + len, bufsz - len, "/c%d", tt_card_side(net, card));
	return buf;
}

const char *
tt_net_port_name(const tt_net *net, int port, char *buf, size_t bufsz)
{
	if (net->gen != NULL && port != TT_PORT_NIC)
		return net->gen->port_name(net, port, buf, bufsz);
	return tt_port_name(port, net->n, buf, bufsz);
}

int
tt_net_has_link(const tt_net *net, uint32_t card, int port)
{
	if (net->gen != NULL)
		return port < net->card_nports && (net->arcs[card] >> port & 1);
	if (port == TT_PORT_INT)
		return net->twin;
	return tt_port_is_ext(port) && port < 2 * net->n &&
	    net->local_port[tt_card_side(net, card)][port] >= 0;
}

uint32_t
tt_link_peer(const tt_net *net, uint32_t card, int port, int *peer_port)
{
	uint32_t node = tt_card_node(net, card), peer;
	int d, digit, k, side;

	if (net->gen != NULL) {
		size_t i = (size_t)card * (size_t)net->card_nports + (size_t)port;

		*peer_port = net->peer_port[i];
		return net->peer[i];
	}
	if (port == TT_PORT_INT) {
		*peer_port = TT_PORT_INT;
		return card ^ 1u;
	}
	d = tt_port_dim(port);
	k = net->k[d];
	digit = tt_node_digit(net, node, d);
	if (tt_port_neg(port))
		peer = digit == 0 ? node + (uint32_t)(k - 1) * net->stride[d] :
		    node - net->stride[d];
	else
		peer = digit == k - 1 ? node - (uint32_t)(k - 1) * net->stride[d] :
		    node + net->stride[d];
	/* X+ of one node is cabled to X- of its +X neighbour. */
	*peer_port = port ^ 1;
	side = net->port_card[*peer_port];
	return tt_card_of(net, peer, side);
}

void
tt_chan_decode(const tt_net *net, uint64_t chan, uint32_t *card, int *port,
    int *vc)
{
	int local = (int)(chan % (uint64_t)net->chans_per_card), side, i;

	*card = (uint32_t)(chan / (uint64_t)net->chans_per_card);
	side = tt_card_side(net, *card);
	for (i = net->card_nports - 1; i > 0; i--)
		if (net->chan_base[side][i] <= local)
			break;
	*port = net->card_port[side][i];
	*vc = local - net->chan_base[side][i];
}

const char *
tt_chan_name(const tt_net *net, uint64_t chan, char *buf, size_t bufsz)
{
	char cb[96], pb[8];
	uint32_t card;
	int port, vc;

	tt_chan_decode(net, chan, &card, &port, &vc);
	snprintf(buf, bufsz, "%s %s vc%d", tt_card_name(net, card, cb,
	    sizeof(cb)), tt_net_port_name(net, port, pb, sizeof(pb)), vc);
	return buf;
}
