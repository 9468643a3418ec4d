/*
 * The network layer: every network, twin and plain tori included, is
 * built by its generator (netgen.h).  Here are the spec strings, the
 * build (tt_net_init()), what the one-card-per-node networks share (one
 * card and one PE per node, every port cabled, the routing digits'
 * coordinate table), and the one place that calls through a generator's
 * ops: tt_route(), tt_link_peer(), tt_net_has_link(), tt_net_port_name(),
 * tt_card_name(), tt_pe_parse(), tt_net_cuts(), tt_net_id_digits().
 * It calls down to topo.c and the generators; route.c calls it.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/errf.h"
#include "networks/netgen.h"
#include "twintorus/analyze.h"

static const struct tt_gen *const gens[] = {
	&netgen_torus, &netgen_pruned, &netgen_msn, &netgen_pruned_msn,
	&netgen_mh3dt, &netgen_tesh
};
#define NGENS (sizeof(gens) / sizeof(gens[0]))

const struct tt_gen *
netgen_find(enum tt_topo topo)
{
	size_t i;

	for (i = 0; i < NGENS; i++)
		if (gens[i]->topo == topo)
			return gens[i];
	return NULL;
}

/* ---- the spec strings ---- */

/* A key's slot in tt_genspec by its name, and its TT_GENKEY_* in *id. */
static int *
gen_key(tt_genspec *g, const char *key, size_t len, int *id)
{
	static const char *const names[] = {"k", "n", "m", "L", "q", "vcs"};
	static const int ids[] = {TT_GENKEY_K, TT_GENKEY_N, TT_GENKEY_M,
	    TT_GENKEY_L, TT_GENKEY_Q, TT_GENKEY_VCS};
	int *slots[] = {&g->k, &g->n, &g->m, &g->L, &g->q, &g->vcs};
	size_t i;

	for (i = 0; i < 6; i++)
		if (strlen(names[i]) == len && strncmp(names[i], key, len) == 0) {
			*id = ids[i];
			return slots[i];
		}
	return NULL;
}

static int
key_allowed(const struct tt_gen *gen, const char *key, size_t len)
{
	const char *p = gen->keys, *e;

	while (*p) {
		e = strchr(p, ',');
		if (e == NULL)
			e = p + strlen(p);
		if ((size_t)(e - p) == len && strncmp(p, key, len) == 0)
			return 1;
		p = *e ? e + 1 : e;
	}
	return 0;
}

/*
 * "k=8,n=3" into spec->gen, each token checked: a key of the generator,
 * a whole number (digits only), given once.  A key given is marked in
 * gen.given, so that an explicit 0 reaches the generator as a value (to
 * refuse where it is not one) and never stands for the default.
 */
static int
parse_keys(tt_netspec *spec, const struct tt_gen *gen, const char *name,
    const char *s, char *err, size_t errsz)
{
	char tok[64], *eq;
	const char *p = s, *e, *d;
	long v;
	int *slot, id;

	while (*p) {
		e = strchr(p, ',');
		if (e == NULL)
			e = p + strlen(p);
		if ((size_t)(e - p) >= sizeof(tok))
			return tt_errf(err, errsz, "'%.20s...' is too long for "
			    "key=value (keys of %s: %s)", p, name,
			    gen->keys);
		snprintf(tok, sizeof(tok), "%.*s", (int)(e - p), p);
		eq = strchr(tok, '=');
		if (eq == NULL || eq == tok)
			return tt_errf(err, errsz, "'%s' is not key=value "
			    "(keys of %s: %s)", tok, name, gen->keys);
		slot = gen_key(&spec->gen, tok, (size_t)(eq - tok), &id);
		if (eq - tok == 1 && tok[0] == 'n' && gen->no_n != NULL)
			return tt_errf(err, errsz, "'%s': n is not a key of %s: "
			    "%s", tok, name, gen->no_n);
		if (slot == NULL || !key_allowed(gen, tok, (size_t)(eq - tok)))
			return tt_errf(err, errsz, "'%.*s' is not a key of %s "
			    "(its keys: %s)", (int)(eq - tok), tok, name,
			    gen->keys);
		if (spec->gen.given & (1u << id))
			return tt_errf(err, errsz, "'%s': %.*s is given twice "
			    "(%.*s=%d before); give each key once", tok,
			    (int)(eq - tok), tok, (int)(eq - tok), tok, *slot);
		for (d = eq + 1, v = 0; *d >= '0' && *d <= '9' && v <= 65535;
		    d++)
			v = v * 10 + (*d - '0');
		if (d == eq + 1 || *d != '\0' || v > 65535)
			return tt_errf(err, errsz, "'%s': the value of %.*s must "
			    "be a whole number (0..65535)", tok, (int)(eq - tok),
			    tok);
		*slot = (int)v;
		spec->gen.given |= 1u << id;
		p = *e ? e + 1 : e;
	}
	return 0;
}

/* A torus as sweep's --topo names one: "8x8x8", "8,8,8", ":plain". */
static int
parse_torus(tt_netspec *spec, const char *dims, int twin, char *err,
    size_t errsz)
{
	char buf[128], e2[256], *p;

	snprintf(buf, sizeof(buf), "%s", dims);
	for (p = buf; *p; p++)
		if (*p == 'x' || *p == 'X')
			*p = ',';
	spec->topo = TT_TOPO_TORUS;
	spec->twin = twin;
	if (tt_netspec_set_dims(spec, buf, e2, sizeof(e2)) < 0)
		return tt_errf(err, errsz, "%s", e2);
	return 0;
}

/*
 * A torus by its keys, "torus:k=8,n=2": the plain (or, as twin:, the
 * twin) K-ary N-cube, N = 3 when left out; the same spec as its dims,
 * --dims 8,8 [--plain], so the same network and outputs.
 */
static int
torus_keys(tt_netspec *spec, const char *name, const char *rest, int twin,
    char *err, size_t errsz)
{
	tt_netspec t = *spec;
	const tt_genspec *g = &t.gen;
	int n, d;

	memset(&t.gen, 0, sizeof(t.gen));
	if (parse_keys(&t, &netgen_torus, name, rest, err, errsz) < 0)
		return -1;
	if (!netgen_given(g, TT_GENKEY_K))
		return tt_errf(err, errsz, "%s: give k, the nodes per "
		    "dimension, e.g. %s:k=8 (or the dims, %s:8x8x8)", name,
		    name, name);
	n = netgen_key(g, TT_GENKEY_N, g->n, 3);
	if (n < 2 || n > TT_MAX_DIMS)
		return tt_errf(err, errsz, "%s: n=%d: the dimensions must be "
		    "2..%d", name, n, TT_MAX_DIMS);
	if (g->k < 2 || g->k > TT_MAX_K)
		return tt_errf(err, errsz, "%s: k=%d: each dimension needs "
		    "2..%d nodes", name, g->k, TT_MAX_K);
	spec->topo = TT_TOPO_TORUS;
	spec->twin = twin;
	spec->n = n;
	for (d = 0; d < n; d++)
		spec->k[d] = g->k;
	return 0;
}

/*
 * A k-ary n-cube kind by its dims, "pruned:8x8x8": k and n as if given
 * (k=8,n=3).  Every dimension has the same k in these networks.
 */
static int
cube_dims(tt_netspec *spec, const struct tt_gen *gen, const char *rest,
    char *err, size_t errsz)
{
	tt_netspec t;
	char buf[128], e2[256], *p;
	int d;

	tt_netspec_default(&t);
	snprintf(buf, sizeof(buf), "%s", rest);
	for (p = buf; *p; p++)
		if (*p == 'x' || *p == 'X')
			*p = ',';
	if (tt_netspec_set_dims(&t, buf, e2, sizeof(e2)) < 0)
		return tt_errf(err, errsz, "%s", e2);
	for (d = 1; d < t.n; d++)
		if (t.k[d] != t.k[0])
			return tt_errf(err, errsz, "a %s network has the same k "
			    "in every dimension; give %s:k=K,n=N", gen->name,
			    gen->name);
	spec->gen.k = t.k[0];
	spec->gen.n = t.n;
	spec->gen.given |= 1u << TT_GENKEY_K | 1u << TT_GENKEY_N;
	return 0;
}

int
tt_netspec_parse(tt_netspec *spec, const char *s, char *err, size_t errsz)
{
	const char *colon = strchr(s, ':'), *rest;
	size_t len, i;
	char name[16];

	if (*s == '\0')
		return tt_errf(err, errsz, "an empty network spec: name one, "
		    "e.g. pruned:k=8 or tesh:L=2");
	if (isdigit((unsigned char)*s)) {
		if (colon == NULL)
			return parse_torus(spec, s, spec->twin, err, errsz);
		if (strcmp(colon + 1, "plain") != 0 &&
		    strcmp(colon + 1, "twin") != 0)
			return tt_errf(err, errsz, "'%s' is not a kind; use "
			    ":plain or :twin", colon + 1);
		len = (size_t)(colon - s);
		if (len >= 128)
			return tt_errf(err, errsz, "too long");
		{
			char dims[128];

			snprintf(dims, sizeof(dims), "%.*s", (int)len, s);
			return parse_torus(spec, dims,
			    strcmp(colon + 1, "twin") == 0, err, errsz);
		}
	}
	len = colon != NULL ? (size_t)(colon - s) : strlen(s);
	rest = colon != NULL ? colon + 1 : "";
	if ((len == 5 && strncmp(s, "torus", 5) == 0) ||
	    (len == 5 && strncmp(s, "plain", 5) == 0) ||
	    (len == 4 && strncmp(s, "twin", 4) == 0)) {
		snprintf(name, sizeof(name), "%.*s", (int)len, s);
		if (*rest == '\0')
			return tt_errf(err, errsz, "give the dimensions, e.g. "
			    "%.*s:8x8x8 or %.*s:k=8", (int)len, s, (int)len, s);
		if (isdigit((unsigned char)*rest))
			return parse_torus(spec, rest, s[1] == 'w', err, errsz);
		return torus_keys(spec, name, rest, s[1] == 'w', err, errsz);
	}
	for (i = 0; i < NGENS; i++) {
		if (gens[i]->topo == TT_TOPO_TORUS ||
		    strlen(gens[i]->name) != len ||
		    strncmp(gens[i]->name, s, len) != 0)
			continue;
		memset(&spec->gen, 0, sizeof(spec->gen));
		spec->topo = gens[i]->topo;
		spec->twin = 0;
		if (isdigit((unsigned char)*rest) && gens[i]->cube)
			return cube_dims(spec, gens[i], rest, err, errsz);
		if (isdigit((unsigned char)*rest))
			return tt_errf(err, errsz, "dims name a k-ary n-cube, "
			    "which %s is not; give its keys (%s), e.g. %s",
			    gens[i]->name, gens[i]->keys,
			    gens[i]->topo == TT_TOPO_MH3DT ?
			    "mh3dt:m=4,n=4,L=2,q=2" : "tesh:L=2");
		return parse_keys(spec, gens[i], gens[i]->name, rest, err,
		    errsz);
	}
	return tt_errf(err, errsz, "'%.*s' is not a network: use torus, twin, "
	    "pruned, msn, pruned-msn, mh3dt or tesh (e.g. pruned:k=8)",
	    (int)len, s);
}

const char *
tt_topo_name(const tt_net *net)
{
	return net->topo_name;
}

/* ---- the build ---- */

/*
 * What the one-card-per-node networks share: one card (switch) and one
 * PE per node, the vc scheme (their routing's own VC classes), port p
 * local port p with ext_vcs VCs.
 */
static int
one_card_layout(tt_net *net, const struct tt_gen *gen, char *err,
    size_t errsz)
{
	int i, base;

	net->ncards = net->nnodes;
	net->t3_vc = -1;
	memset(net->t1_vc, -1, sizeof(net->t1_vc));
	memset(net->t2_vc, -1, sizeof(net->t2_vc));
	memset(net->lanes, 1, sizeof(net->lanes));
	memset(net->local_port, -1, sizeof(net->local_port));
	snprintf(net->ports_name, sizeof(net->ports_name), "%s", gen->name);
	for (i = 0, base = 0; i < net->card_nports; i++) {
		net->card_port[0][i] = (uint8_t)i;
		net->local_port[0][i] = (int8_t)i;
		net->chan_base[0][i] = (uint8_t)base;
		base += net->ext_vcs;
	}
	net->chans_per_card = base;
	if (net->ext_vcs > TT_MAX_VCS || base > 255)
		return tt_errf(err, errsz, "%s needs %d VCs on %d ports; at "
		    "most %d VCs and 255 channels per switch are supported",
		    gen->name, net->ext_vcs, net->card_nports, TT_MAX_VCS);
	return 0;
}

/* Everything tt_net_init() derives, without the tables. */
static int
net_derive(tt_net *net, const tt_netspec *spec, char *err, size_t errsz)
{
	const struct tt_gen *gen = netgen_find(spec->topo);

	memset(net, 0, sizeof(*net));
	if (gen == NULL)
		return tt_errf(err, errsz, "unknown network kind %d",
		    (int)spec->topo);
	if (gen->one_card && spec->deadlock != TT_DL_VC)
		return tt_errf(err, errsz, "%s: only the vc scheme is "
		    "implemented for this network (its routing's own VC "
		    "classes); drop --deadlock %s", gen->name,
		    tt_deadlock_name(spec->deadlock));
	net->spec = *spec;
	net->gen = gen;
	net->deadlock = spec->deadlock;
	if (gen->derive(net, err, errsz) < 0)
		return -1;
	return gen->one_card ? one_card_layout(net, gen, err, errsz) : 0;
}

int
tt_netspec_check(const tt_netspec *spec, char *err, size_t errsz)
{
	tt_net net;

	return net_derive(&net, spec, err, errsz);
}

/* The tables of a generator that wires its ports: peer[], peer_port[],
 * arcs[].  -1 if out of memory. */
static int
build_tables(tt_net *net)
{
	size_t np = (size_t)net->nnodes * (size_t)net->card_nports;
	uint32_t node;
	int p;

	net->peer = malloc(np * sizeof(*net->peer));
	net->peer_port = malloc(np);
	net->arcs = calloc(net->nnodes, sizeof(*net->arcs));
	if (net->peer == NULL || net->peer_port == NULL || net->arcs == NULL)
		return -1;
	/* no link: the port leads back to itself and carries nothing */
	for (node = 0; node < net->nnodes; node++)
		for (p = 0; p < net->card_nports; p++)
			netgen_cable(net, node, p, node, p, 0);
	netgen_of(net)->wire(net);
	return 0;
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
	if (netgen_of(net)->wire != NULL && build_tables(net) < 0) {
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
	free(net->peer);
	free(net->peer_port);
	free(net->arcs);
	net->coord = NULL;
	net->peer = NULL;
	net->peer_port = NULL;
	net->arcs = NULL;
}

/* ---- the calls through a generator's ops ---- */

tt_hop
tt_route_pkt(const tt_net *net, uint32_t card, uint32_t dst, int in_port,
    tt_pktroute *st)
{
	tt_hop h = {TT_PORT_NIC, 0, TT_HOP_EJECT, 0, 0, TT_PORT_NIC, 0, 0};

	if (card == dst)
		return h;
	return netgen_of(net)->route(net, card, dst, in_port, st);
}

tt_hop
tt_route(const tt_net *net, uint32_t card, uint32_t dst, int in_port)
{
	return tt_route_pkt(net, card, dst, in_port, NULL);
}

uint32_t
tt_link_peer(const tt_net *net, uint32_t card, int port, int *peer_port)
{
	const struct tt_gen *gen = netgen_of(net);
	size_t i = (size_t)card * (size_t)net->card_nports + (size_t)port;

	if (gen->link_peer != NULL)
		return gen->link_peer(net, card, port, peer_port);
	*peer_port = net->peer_port[i];
	return net->peer[i];
}

int
tt_net_has_link(const tt_net *net, uint32_t card, int port)
{
	const struct tt_gen *gen = netgen_of(net);

	if (gen->has_link != NULL)
		return gen->has_link(net, card, port);
	return port < net->card_nports && (net->arcs[card] >> port & 1);
}

const char *
tt_net_port_name(const tt_net *net, int port, char *buf, size_t bufsz)
{
	if (port != TT_PORT_NIC)
		return netgen_of(net)->port_name(net, port, buf, bufsz);
	return tt_port_name(port, net->n, buf, bufsz);
}

const char *
tt_card_name(const tt_net *net, uint32_t card, char *buf, size_t bufsz)
{
	netgen_of(net)->card_name(net, card, buf, bufsz);
	return buf;
}

int
tt_net_cuts(const tt_net *net)
{
	const struct tt_gen *gen = netgen_of(net);

	return gen->ncuts != NULL ? gen->ncuts(net) : 0;
}

int
tt_net_cut_side(const tt_net *net, int c, uint32_t node)
{
	return netgen_of(net)->cut_side(net, c, node);
}

int
tt_net_id_digits(const tt_net *net, int *k)
{
	return netgen_of(net)->id_digits(net, k);
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
	if (netgen_of(net)->pe_at == NULL)
		return tt_errf(err, errsz, "PE '%s': name a PE of %s by its "
		    "id, 0..%u", s, net->topo_name, net->ncards - 1);
	return netgen_of(net)->pe_at(net, s, coord, d, side, pe, err, errsz);
bad:
	return tt_errf(err, errsz, "cannot read PE '%s': give a PE id, or "
	    "node coordinates and card as in 1,0,3/1", s);
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
