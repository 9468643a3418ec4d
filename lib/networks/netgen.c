/*
 * The generated networks: their spec strings, what every generator shares
 * (one card and one PE per node, every port cabled, the routing digits'
 * coordinate table), and the dispatch from topo.c and route.c.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/errf.h"
#include "networks/netgen.h"

static const struct tt_gen *const gens[] = {
	&netgen_pruned, &netgen_msn, &netgen_pruned_msn, &netgen_mh3dt,
	&netgen_tesh
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
parse_keys(tt_netspec *spec, const struct tt_gen *gen, const char *s,
    char *err, size_t errsz)
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
			    "key=value (keys of %s: %s)", p, gen->name,
			    gen->keys);
		snprintf(tok, sizeof(tok), "%.*s", (int)(e - p), p);
		eq = strchr(tok, '=');
		if (eq == NULL || eq == tok)
			return tt_errf(err, errsz, "'%s' is not key=value "
			    "(keys of %s: %s)", tok, gen->name, gen->keys);
		slot = gen_key(&spec->gen, tok, (size_t)(eq - tok), &id);
		if (slot == NULL || !key_allowed(gen, tok, (size_t)(eq - tok)))
			return tt_errf(err, errsz, "'%.*s' is not a key of %s "
			    "(its keys: %s)", (int)(eq - tok), tok, gen->name,
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

int
tt_netspec_parse(tt_netspec *spec, const char *s, char *err, size_t errsz)
{
	const char *colon = strchr(s, ':'), *rest;
	size_t len, i;

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
		if (*rest == '\0')
			return tt_errf(err, errsz, "give the dimensions, e.g. "
			    "%.*s:8x8x8", (int)len, s);
		return parse_torus(spec, rest, s[1] == 'w', err, errsz);
	}
	for (i = 0; i < NGENS; i++) {
		if (strlen(gens[i]->name) != len ||
		    strncmp(gens[i]->name, s, len) != 0)
			continue;
		memset(&spec->gen, 0, sizeof(spec->gen));
		spec->topo = gens[i]->topo;
		spec->twin = 0;
		return parse_keys(spec, gens[i], rest, err, errsz);
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

int
netgen_derive(tt_net *net, const tt_netspec *spec, char *err, size_t errsz)
{
	const struct tt_gen *gen = netgen_find(spec->topo);
	int i, base;

	memset(net, 0, sizeof(*net));
	if (gen == NULL)
		return tt_errf(err, errsz, "unknown network kind %d",
		    (int)spec->topo);
	if (spec->deadlock != TT_DL_VC)
		return tt_errf(err, errsz, "%s: only the vc scheme is "
		    "implemented for this network (its routing's own VC "
		    "classes); drop --deadlock %s", gen->name,
		    tt_deadlock_name(spec->deadlock));
	net->spec = *spec;
	net->gen = gen;
	net->deadlock = TT_DL_VC;
	if (gen->derive(net, err, errsz) < 0)
		return -1;
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

int
netgen_build(tt_net *net)
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
	net->gen->wire(net);
	return 0;
}

void
netgen_free(tt_net *net)
{
	free(net->peer);
	free(net->peer_port);
	free(net->arcs);
	net->peer = NULL;
	net->peer_port = NULL;
	net->arcs = NULL;
}

void
netgen_cable(tt_net *net, uint32_t node, int p, uint32_t peer, int pp,
    int arc)
{
	size_t i = (size_t)node * (size_t)net->card_nports + (size_t)p;

	net->peer[i] = peer;
	net->peer_port[i] = (uint8_t)pp;
	if (arc)
		net->arcs[node] |= (uint16_t)(1u << p);
}

tt_hop
netgen_hop(int port, int vc, int tag)
{
	tt_hop h = {0, 0, TT_HOP_EXT, 0, 0, TT_PORT_NIC, {0, 0}};

	h.port = (uint8_t)port;
	h.vc = (uint8_t)vc;
	h.dim = (uint8_t)tag;
	return h;
}

tt_hop
netgen_route(const tt_net *net, uint32_t card, uint32_t dst)
{
	tt_hop h = {TT_PORT_NIC, 0, TT_HOP_EJECT, 0, 0, TT_PORT_NIC, {0, 0}};

	if (card == dst)
		return h;
	return net->gen->route(net, card, dst);
}
