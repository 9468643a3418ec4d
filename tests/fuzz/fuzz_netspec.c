/*
 * libFuzzer target: the network spec parser (lib/networks/netgen.c) and the
 * generators behind it (lib/networks/net_tori.c, lib/networks/net_hier.c, lib/networks/topo.c), on
 * any bytes as the string `--topology`, sweep's `--topo` and the YAML
 * topology: take ("tesh:m=2,L=1", "pruned:k=8,n=2", "4x4x2:plain").
 * A spec that parses is checked (tt_netspec_check(), which builds
 * nothing); one that passes and is small (at most 4096 PEs, computed here
 * from the keys and the generators' defaults) is built.
 *
 * Besides memory safety: a spec refused says why (a message); one the
 * check accepts builds; a key given twice never parses; a built
 * generated network's own name (tt_topo_name()) parses and builds the
 * same network again; every link leads to a port that leads back; and
 * routes from the input's PEs reach their destinations within the
 * network's hop limit (tt_route() as ttsim analyze walks it).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "twintorus/topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_PES 4096

/* The PEs a parsed spec asks for, from its keys and the defaults the
 * generators take for keys left out (0 if it cannot be told: refused). */
static uint64_t
pes_of(const tt_netspec *s)
{
	const tt_genspec *g = &s->gen;
	uint64_t n = 1, b, k;
	int i, dims, L;

#define KEY(f, id, def) (g->f != 0 || (g->given & (1u << (id))) ? g->f : (def))
	switch (s->topo) {
	case TT_TOPO_TORUS:
		for (i = 0; i < s->n && i < TT_MAX_DIMS; i++)
			n *= s->k[i] > 0 ? (uint64_t)s->k[i] : 0;
		return s->twin ? 2 * n : n;
	case TT_TOPO_PRUNED:
	case TT_TOPO_MSN:
	case TT_TOPO_PRUNED_MSN:
		dims = KEY(n, TT_GENKEY_N, 3);
		k = (uint64_t)g->k;
		for (i = 0; i < dims && n <= MAX_PES; i++)
			n *= k;
		return n;
	case TT_TOPO_MH3DT:
		/* k= is the BM side too (m) */
		b = (uint64_t)(g->given & (1u << TT_GENKEY_K) ? g->k :
		    KEY(m, TT_GENKEY_M, 4));
		k = (uint64_t)KEY(n, TT_GENKEY_N, 4);
		return b * b * b * k * k * k;
	case TT_TOPO_TESH:
		L = KEY(L, TT_GENKEY_L, 2);
		return L >= 1 && L <= 5 ? 64ull << (4 * (L - 1)) : 0;
	}
#undef KEY
	return 0;
}

/* Walk a route from src to dst: it must arrive within the hop limit. */
static void
walk(const tt_net *net, uint32_t src, uint32_t dst)
{
	uint32_t card = src, hops = 0, limit = net->hop_limit;
	int in_port = TT_PORT_NIC, peer_port;
	tt_hop h;

	for (;;) {
		h = tt_route(net, card, dst, in_port);
		if (h.type == TT_HOP_EJECT)
			break;
		card = tt_link_peer(net, card, h.port, &peer_port);
		in_port = peer_port;
		if (card >= net->ncards || ++hops > limit)
			abort();        /* off the network, or a loop */
	}
	if (card != dst)
		abort();                /* ejected elsewhere */
}

/* Every link of a generated network leads to a port that leads back. */
static void
links_symmetric(const tt_net *net)
{
	uint32_t c, peer, back;
	int p, pp, bp;

	if (tt_net_is_torus(net))
		return;
	for (c = 0; c < net->ncards; c++)
		for (p = 0; p < net->card_nports; p++) {
			peer = tt_link_peer(net, c, p, &pp);
			if (peer >= net->ncards || pp < 0 ||
			    pp >= net->card_nports)
				abort();
			back = tt_link_peer(net, peer, pp, &bp);
			if (back != c || bp != p)
				abort();
		}
}

/* A generated network's name is a spec that builds the same network. */
static void
round_trip(const tt_net *net)
{
	tt_netspec s;
	tt_net again;
	char err[512];

	if (tt_net_is_torus(net))
		return;
	tt_netspec_default(&s);
	if (tt_netspec_parse(&s, tt_topo_name(net), err, sizeof(err)) != 0 ||
	    tt_net_init(&again, &s, err, sizeof(err)) != 0)
		abort();
	if (strcmp(tt_topo_name(&again), tt_topo_name(net)) != 0 ||
	    again.ncards != net->ncards || again.ext_vcs != net->ext_vcs)
		abort();
	tt_net_free(&again);
}

/* Any key given twice ("k=8,k=4") in the spec's key=value part. */
static int
has_repeat(const char *s)
{
	const char *colon = strchr(s, ':'), *p, *q;
	size_t len, i;

	if (colon == NULL)
		return 0;
	for (p = colon + 1; *p; p = *q ? q + 1 : q) {
		q = strchr(p, ',');
		if (q == NULL)
			q = p + strlen(p);
		len = strcspn(p, "=,");
		if (p[len] != '=' || len == 0)
			continue;
		/* the same key before it */
		for (i = 0; colon + 1 + i < p; ) {
			const char *r = colon + 1 + i;
			size_t rl = strcspn(r, "=,");

			if (rl == len && r[rl] == '=' && strncmp(r, p, len) == 0)
				return 1;
			i += strcspn(r, ",") + 1;
		}
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char spec[256], err[512];
	tt_netspec s;
	tt_net net;
	uint64_t pes;
	size_t i;

	if (size >= sizeof(spec))
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	if (strlen(spec) != size)
		return 0;               /* a NUL inside: not a C string */
	tt_netspec_default(&s);
	err[0] = '\0';
	if (tt_netspec_parse(&s, spec, err, sizeof(err)) != 0) {
		if (err[0] == '\0')
			abort();        /* refused without a reason */
		return 0;
	}
	if (s.topo != TT_TOPO_TORUS && has_repeat(spec))
		abort();                /* a key given twice was taken */
	err[0] = '\0';
	if (tt_netspec_check(&s, err, sizeof(err)) != 0) {
		if (err[0] == '\0')
			abort();
		return 0;
	}
	pes = pes_of(&s);
	if (pes == 0 || pes > MAX_PES)
		return 0;
	if (tt_net_init(&net, &s, err, sizeof(err)) != 0)
		abort();                /* the check passed: it must build */
	if (net.ncards != pes)
		abort();                /* the defaults here drifted */
	links_symmetric(&net);
	round_trip(&net);
	/* routes between PEs the input's bytes name, and PE 0 to the last */
	walk(&net, 0, net.ncards - 1);
	for (i = 0; i + 1 < size && i < 16; i += 2)
		walk(&net, data[i] % net.ncards, data[i + 1] % net.ncards);
	tt_net_free(&net);
	return 0;
}
