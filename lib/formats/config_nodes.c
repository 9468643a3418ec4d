/*
 * The deployment sections of the YAML cluster description (twintorus/
 * config.h): nodes: (the map ttd reads), pes: (its TAPs and their
 * addresses) and addresses: (the map of a plain capture).  A cluster of
 * 65,536 nodes is checked in one pass: repeated hosts, coordinates and
 * addresses are found through hash tables, against the first occurrence.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/cfg.h"

/* ---- first occurrences, by hash ---- */

/*
 * The indexes of the entries seen so far, in an open-addressing table
 * (linear probing, at most half full); an entry is compared only with the
 * entries of its hash, so repeats are found in linear time.
 */
struct cfg_seen {
	uint32_t *slot;         /* index + 1, 0 empty */
	size_t mask;
};

static int
seen_init(struct cfg_seen *s, size_t n)
{
	size_t size = 16;

	while (size < 2 * n)
		size *= 2;
	s->mask = size - 1;
	s->slot = calloc(size, sizeof(*s->slot));
	return s->slot != NULL ? 0 : -1;
}

/*
 * An earlier entry equal to entry i (same hash h, eq() true), or i itself,
 * recorded if `add`.  eq(ctx, a, b) compares entries a and b.
 */
static size_t
seen_first(struct cfg_seen *s, uint64_t h, size_t i,
    int (*eq)(const void *, size_t, size_t), const void *ctx, int add)
{
	size_t k = (size_t)h & s->mask;

	for (; s->slot[k] != 0; k = (k + 1) & s->mask)
		if (eq(ctx, s->slot[k] - 1, i))
			return s->slot[k] - 1;
	if (add)
		s->slot[k] = (uint32_t)i + 1;
	return i;
}

static uint64_t
hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h ^ h >> 29;
}

static int
same_host(const void *ctx, size_t a, size_t b)
{
	const tt_cfg_node *nd = ctx;

	return strcmp(nd[a].host, nd[b].host) == 0;
}

static int
same_coord(const void *ctx, size_t a, size_t b)
{
	const tt_cfg_node *nd = ctx;

	return memcmp(nd[a].coord, nd[b].coord, sizeof(nd[a].coord)) == 0;
}

static int
same_addr(const void *ctx, size_t a, size_t b)
{
	const tt_addr *ad = ctx;

	return ad[a].kind == ad[b].kind &&
	    memcmp(ad[a].bytes, ad[b].bytes, sizeof(ad[a].bytes)) == 0;
}

static void
cfg_card(struct cfg_ctx *cx, const struct cfg_val *v, int n, tt_cfg_card *c)
{
	static const char *const names[] = {"pci", "ports"};
	enum { K_PCI, K_PORTS, K_N };
	struct cfg_key keys[K_N];
	yaml_node_pair_t *pair;
	char qb[64], pb[160];

	c->line = (unsigned long)v->mark.line + 1;
	c->col = (unsigned long)v->mark.column + 1;
	if (v->node->type != YAML_MAPPING_NODE) {
		cfg_err(cx, &v->mark, "%s: expected a card {pci: ..., ports: "
		    "{IFACE: PORT, ...}}, got %s", v->path,
		    cfg_describe(v->node, qb, sizeof(qb)));
		return;
	}
	cfg_keys_init(keys, K_N, names);
	cfg_map_keys(cx, v->node, v->path, keys, K_N);
	if (keys[K_PCI].key != NULL)
		(void)cfg_string(cx, &keys[K_PCI].val, "a PCI address such as "
		    "\"0000:03:00.0\"", c->pci, sizeof(c->pci));
	if (keys[K_PORTS].key == NULL) {
		cfg_err(cx, &v->mark, "%s: missing ports (e.g. ports: {ens1f0: "
		    "X+, ..., ens1f3: internal})", v->path);
		return;
	}
	if (keys[K_PORTS].val.node->type != YAML_MAPPING_NODE) {
		cfg_err(cx, &keys[K_PORTS].val.mark, "%s: expected a mapping "
		    "of interfaces to torus ports, got %s",
		    keys[K_PORTS].val.path, cfg_describe(keys[K_PORTS].val.node,
		    qb, sizeof(qb)));
		return;
	}
	for (pair = keys[K_PORTS].val.node->data.mapping.pairs.start;
	    pair < keys[K_PORTS].val.node->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = cfg_node(cx, pair->key);
		yaml_node_t *val = cfg_node(cx, pair->value);
		tt_cfg_port *pt;
		int port;

		if (!cfg_is_text(k) || cfg_is_null(k) ||
		    strlen(cfg_text(k)) >= sizeof(pt->key)) {
			cfg_err(cx, &k->start_mark, "%s: %s is not an interface "
			    "name, PCI function or MAC address",
			    keys[K_PORTS].val.path, cfg_describe(k, qb,
			    sizeof(qb)));
			continue;
		}
		if (!cfg_is_text(val) || cfg_is_null(val))
			port = -1;
		else if (strcmp(cfg_text(val), "internal") == 0)
			port = TT_PORT_INT;
		else
			port = tt_port_parse(cfg_text(val), n);
		if (port < 0) {
			cfg_err(cx, &val->start_mark, "%s.%s: expected a torus "
			    "port (%s) or internal, got %s",
			    keys[K_PORTS].val.path, cfg_text(k),
			    cfg_port_names(n, pb, sizeof(pb)),
			    cfg_describe(val, qb, sizeof(qb)));
			continue;
		}
		if (c->nports == TT_MAX_EXT + 1) {
			cfg_err(cx, &k->start_mark, "%s: more than %d ports",
			    keys[K_PORTS].val.path, TT_MAX_EXT + 1);
			break;
		}
		pt = &c->ports[c->nports++];
		snprintf(pt->key, sizeof(pt->key), "%s", cfg_text(k));
		pt->port = port;
		pt->line = (unsigned long)k->start_mark.line + 1;
		pt->col = (unsigned long)k->start_mark.column + 1;
	}
}

/* nodes[i]: {host: NAME, coord: [..], cards: [card0, card1]} */
static void
cfg_one_node(struct cfg_ctx *cx, const struct cfg_val *v,
    const tt_netspec *spec, tt_cfg_node *nd)
{
	static const char *const names[] = {"host", "coord", "cards"};
	enum { K_HOST, K_COORD, K_CARDS, K_N };
	struct cfg_key keys[K_N];
	yaml_node_item_t *it;
	char qb[64];
	int i;

	nd->line = (unsigned long)v->mark.line + 1;
	nd->col = (unsigned long)v->mark.column + 1;
	if (v->node->type != YAML_MAPPING_NODE) {
		cfg_err(cx, &v->mark, "%s: expected a node {host: ..., coord: "
		    "[...], cards: [...]}, got %s", v->path,
		    cfg_describe(v->node, qb, sizeof(qb)));
		return;
	}
	cfg_keys_init(keys, K_N, names);
	cfg_map_keys(cx, v->node, v->path, keys, K_N);
	if (keys[K_HOST].key == NULL)
		cfg_err(cx, &v->mark, "%s: missing host (the node's host name)",
		    v->path);
	else
		(void)cfg_string(cx, &keys[K_HOST].val, "a host name",
		    nd->host, sizeof(nd->host));
	if (keys[K_COORD].key == NULL) {
		cfg_err(cx, &v->mark, "%s: missing coord (e.g. coord: [0, 0, "
		    "0])", v->path);
	} else if (keys[K_COORD].val.node->type != YAML_SEQUENCE_NODE) {
		cfg_err(cx, &keys[K_COORD].val.mark, "%s: expected a list of "
		    "%d coordinates, got %s", keys[K_COORD].val.path, spec->n,
		    cfg_describe(keys[K_COORD].val.node, qb, sizeof(qb)));
	} else {
		const yaml_node_t *cn = keys[K_COORD].val.node;
		int bad = 0;

		i = 0;
		for (it = cn->data.sequence.items.start;
		    it < cn->data.sequence.items.top; it++, i++) {
			struct cfg_val e;
			int x;

			if (i >= spec->n)
				continue;
			cfg_val_set(&e, cfg_node(cx, *it), NULL, "%s[%d]",
			    keys[K_COORD].val.path, i);
			if (cfg_int(cx, &e, 0, spec->k[i] - 1, &x) == 0)
				nd->coord[i] = x;
			else
				bad = 1;
		}
		if (i != spec->n)
			cfg_err(cx, &keys[K_COORD].val.mark, "%s: %d "
			    "coordinates for a torus of %d dimensions",
			    keys[K_COORD].val.path, i, spec->n);
		nd->coord_ok = !bad && i == spec->n;
	}
	if (keys[K_CARDS].key == NULL)
		return;		/* automatic port map */
	if (keys[K_CARDS].val.node->type != YAML_SEQUENCE_NODE) {
		cfg_err(cx, &keys[K_CARDS].val.mark, "%s: expected a list of "
		    "cards, got %s", keys[K_CARDS].val.path,
		    cfg_describe(keys[K_CARDS].val.node, qb, sizeof(qb)));
		return;
	}
	i = 0;
	for (it = keys[K_CARDS].val.node->data.sequence.items.start;
	    it < keys[K_CARDS].val.node->data.sequence.items.top; it++, i++) {
		struct cfg_val e;
		int want = spec->twin ? 2 : 1;

		cfg_val_set(&e, cfg_node(cx, *it), NULL, "%s[%d]",
		    keys[K_CARDS].val.path, i);
		if (i >= want) {
			cfg_err(cx, &e.mark, "%s: a %s node has %d card%s",
			    e.path, spec->twin ? "twin" : "plain", want,
			    want == 1 ? "" : "s");
			continue;
		}
		cfg_card(cx, &e, spec->n, &nd->cards[i]);
	}
	nd->ncards = i > 2 ? 2 : i;
}

/* nodes: a list; hosts and coordinates must be unique. */
void
cfg_nodes(struct cfg_ctx *cx, const struct cfg_val *v, tt_config *cfg)
{
	yaml_node_item_t *it;
	struct cfg_seen hosts, coords;
	size_t n = 0, i, j;
	char qb[64];

	if (v->node->type != YAML_SEQUENCE_NODE) {
		cfg_err(cx, &v->mark, "nodes: expected a list of nodes "
		    "(- host: ...), got %s", cfg_describe(v->node, qb,
		    sizeof(qb)));
		return;
	}
	for (it = v->node->data.sequence.items.start;
	    it < v->node->data.sequence.items.top; it++)
		n++;
	cfg->nodes = calloc(n ? n : 1, sizeof(*cfg->nodes));
	hosts.slot = coords.slot = NULL;
	if (n >= UINT32_MAX || cfg->nodes == NULL || seen_init(&hosts, n) < 0 ||
	    seen_init(&coords, n) < 0) {
		cfg_err(cx, &v->mark, "nodes: out of memory");
		free(hosts.slot);
		return;
	}
	for (it = v->node->data.sequence.items.start;
	    it < v->node->data.sequence.items.top; it++) {
		struct cfg_val e;
		tt_cfg_node *nd = &cfg->nodes[cfg->nnodes];

		cfg_val_set(&e, cfg_node(cx, *it), NULL, "nodes[%zu]",
		    cfg->nnodes);
		cfg_one_node(cx, &e, &cfg->spec, nd);
		i = cfg->nnodes++;
		if (nd->host[0] != '\0' && (j = seen_first(&hosts,
		    hash_bytes(nd->host, strlen(nd->host)), i, same_host,
		    cfg->nodes, 1)) != i)
			cfg_err(cx, &e.mark, "%s: host %s is listed twice (first "
			    "on line %lu)", e.path, nd->host,
			    cfg->nodes[j].line);
		/* coordinates past n are 0 in every node (calloc) */
		if (nd->coord_ok && (j = seen_first(&coords,
		    hash_bytes(nd->coord, sizeof(nd->coord)), i, same_coord,
		    cfg->nodes, 1)) != i)
			cfg_err(cx, &e.mark, "%s: the coordinate repeats that of "
			    "nodes[%zu] (line %lu)", e.path, j,
			    cfg->nodes[j].line);
	}
	free(hosts.slot);
	free(coords.slot);
}

/* Host addresses of a subnet of prefix pl: all but the network's and the
 * broadcast; PE p gets the subnet's address p + 1. */
static uint64_t
subnet_pes(int pl)
{
	return (1ull << (32 - pl)) - 2;
}

/* The longest prefix whose subnet has an address for each of npes. */
static int
subnet_prefix_for(uint64_t npes)
{
	int pl = 30;

	while (pl > 0 && subnet_pes(pl) < npes)
		pl--;
	return pl;
}

/*
 * Whether the PEs fit the subnet: said at `mark` (what` names the subnet
 * for the message: "pes.subnet 10.88.0.0/25", ...).
 */
static void
cfg_subnet_fits(struct cfg_ctx *cx, const yaml_mark_t *mark, const char *key,
    const char *what, int pl, uint64_t npes)
{
	int need = subnet_prefix_for(npes);

	if (subnet_pes(pl) >= npes)
		return;
	if (need < 8)
		cfg_err(cx, mark, "%s: %s has addresses for %llu PEs, the torus "
		    "has %llu; no subnet of /8 or longer has enough", key, what,
		    (unsigned long long)subnet_pes(pl),
		    (unsigned long long)npes);
	else if (strcmp(key, "nodes") == 0)
		cfg_err(cx, mark, "nodes: the torus has %llu PEs, more than %s "
		    "has addresses for (%llu); set pes: {subnet: ...} with a "
		    "prefix of /%d or shorter", (unsigned long long)npes, what,
		    (unsigned long long)subnet_pes(pl), need);
	else
		cfg_err(cx, mark, "%s: %s has addresses for %llu PEs (PE p gets "
		    "the subnet's address p + 1), the torus has %llu; use a "
		    "prefix of /%d or shorter", key, what,
		    (unsigned long long)subnet_pes(pl),
		    (unsigned long long)npes, need);
}

/* The TAP name of the largest PE must fit an interface name. */
static void
cfg_tap_fits(struct cfg_ctx *cx, const yaml_mark_t *mark, const char *tap,
    uint64_t npes)
{
	const char *pct = strstr(tap, "%u");
	char name[64];
	int len;

	if (pct == NULL || npes == 0)
		return;
	len = snprintf(name, sizeof(name), "%.*s%llu%s", (int)(pct - tap), tap,
	    (unsigned long long)(npes - 1), pct + 2);
	if (len > IF_NAMESIZE - 1)
		cfg_err(cx, mark, "pes.tap: \"%s\" gives \"%s\" (%d characters) "
		    "for PE %llu, the largest; interface names have at most %d",
		    tap, name, len, (unsigned long long)(npes - 1),
		    IF_NAMESIZE - 1);
}

/*
 * pes: {tap: "tt%u", subnet: 10.88.0.0/16}.  npes is the torus's PE count
 * (0 when torus: was bad): every PE needs a TAP name ttd can create and an
 * address in the subnet.  1 if the subnet was given.
 */
int
cfg_pes(struct cfg_ctx *cx, const struct cfg_val *v, tt_config *cfg,
    uint64_t npes)
{
	static const char *const names[] = {"tap", "subnet"};
	enum { K_TAP, K_SUBNET, K_N };
	struct cfg_key keys[K_N];
	char qb[64], buf[64], tap[16], *slash;
	const char *pct;
	struct in_addr a;
	long pl;

	if (v->node->type != YAML_MAPPING_NODE) {
		cfg_err(cx, &v->mark, "pes: expected a mapping with keys tap, "
		    "subnet; got %s", cfg_describe(v->node, qb, sizeof(qb)));
		return 0;
	}
	cfg_keys_init(keys, K_N, names);
	cfg_map_keys(cx, v->node, "pes", keys, K_N);
	if (keys[K_TAP].key != NULL && cfg_string(cx, &keys[K_TAP].val,
	    "a TAP name pattern such as \"tt%u\"", tap, sizeof(tap)) == 0) {
		pct = strchr(tap, '%');
		if (pct == NULL || pct[1] != 'u' || strchr(pct + 1, '%'))
			cfg_err(cx, &keys[K_TAP].val.mark, "pes.tap: the "
			    "pattern needs exactly one %%u (the PE id), got "
			    "\"%s\"", tap);
		else
			snprintf(cfg->pe_tap, sizeof(cfg->pe_tap), "%s", tap);
		cfg_tap_fits(cx, &keys[K_TAP].val.mark, cfg->pe_tap, npes);
	}
	if (keys[K_SUBNET].key != NULL && cfg_string(cx,
	    &keys[K_SUBNET].val, "an IPv4 subnet such as 10.88.0.0/16", buf,
	    sizeof(buf)) == 0) {
		slash = strchr(buf, '/');
		pl = slash ? strtol(slash + 1, NULL, 10) : -1;
		if (slash != NULL)
			*slash = '\0';
		if (slash == NULL || inet_pton(AF_INET, buf, &a) != 1 ||
		    pl < 8 || pl > 30)
			cfg_err(cx, &keys[K_SUBNET].val.mark, "pes.subnet: "
			    "expected an IPv4 subnet with a prefix of 8 to 30 "
			    "bits, such as 10.88.0.0/16");
		else {
			cfg->pe_subnet = ntohl(a.s_addr) &
			    ~((1u << (32 - pl)) - 1);
			cfg->pe_prefix = (int)pl;
			if (npes > 0)
				cfg_subnet_fits(cx, &keys[K_SUBNET].val.mark,
				    "pes.subnet", cfg_text(keys[K_SUBNET].val.node),
				    (int)pl, npes);
		}
	}
	return keys[K_SUBNET].key != NULL;
}

/*
 * A deployment (nodes:) on the default pes.subnet: the PEs must fit it
 * too, or ttd gives addresses outside it.
 */
void
cfg_pes_default(struct cfg_ctx *cx, const yaml_mark_t *nodes_mark,
    const tt_config *cfg, uint64_t npes)
{
	char what[64];

	snprintf(what, sizeof(what), "pes.subnet (the default %u.%u.%u.%u/%d)",
	    cfg->pe_subnet >> 24, cfg->pe_subnet >> 16 & 255,
	    cfg->pe_subnet >> 8 & 255, cfg->pe_subnet & 255, cfg->pe_prefix);
	cfg_subnet_fits(cx, nodes_mark, "nodes", what, cfg->pe_prefix, npes);
}

int
tt_addr_parse(const char *s, tt_addr *a)
{
	unsigned m[6];
	char tail;
	int i;

	memset(a->bytes, 0, sizeof(a->bytes));
	if (inet_pton(AF_INET, s, a->bytes) == 1) {
		a->kind = TT_ADDR_IPV4;
		return 0;
	}
	if (inet_pton(AF_INET6, s, a->bytes) == 1) {
		a->kind = TT_ADDR_IPV6;
		return 0;
	}
	if (strlen(s) == 17 && sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &m[0],
	    &m[1], &m[2], &m[3], &m[4], &m[5], &tail) == 6) {
		for (i = 0; i < 6; i++) {
			if (!isxdigit((unsigned char)s[3 * i]) ||
			    !isxdigit((unsigned char)s[3 * i + 1]))
				return -1;
			a->bytes[i] = (uint8_t)m[i];
		}
		a->kind = TT_ADDR_MAC;
		return 0;
	}
	return -1;
}

/*
 * addresses: { "10.0.0.1": 0, "10.0.0.2": "1,0,0/1", "02:00:..": 5 }.
 * The addresses are checked here; the PEs need the network, which flags
 * may still change, so they are kept as written.
 */
void
cfg_addresses(struct cfg_ctx *cx, const struct cfg_val *v, tt_config *cfg)
{
	yaml_node_pair_t *pair;
	struct cfg_seen seen;
	char qb[64];
	size_t n = 0, i;

	if (v->node->type != YAML_MAPPING_NODE) {
		cfg_err(cx, &v->mark, "addresses: expected a mapping of IP or "
		    "MAC addresses to PEs (\"10.0.0.1\": 0), got %s",
		    cfg_describe(v->node, qb, sizeof(qb)));
		return;
	}
	for (pair = v->node->data.mapping.pairs.start;
	    pair < v->node->data.mapping.pairs.top; pair++)
		n++;
	cfg->addrs = calloc(n ? n : 1, sizeof(*cfg->addrs));
	if (n >= UINT32_MAX || cfg->addrs == NULL || seen_init(&seen, n) < 0) {
		cfg_err(cx, &v->mark, "addresses: out of memory");
		return;
	}
	for (pair = v->node->data.mapping.pairs.start;
	    pair < v->node->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = cfg_node(cx, pair->key);
		yaml_node_t *val = cfg_node(cx, pair->value);
		tt_addr *a = &cfg->addrs[cfg->naddrs];

		if (!cfg_is_text(k) || strlen(cfg_text(k)) >= sizeof(a->text) ||
		    tt_addr_parse(cfg_text(k), a) < 0) {
			cfg_err(cx, &k->start_mark, "addresses: %s is not an "
			    "IPv4, IPv6 or MAC (aa:bb:cc:dd:ee:ff) address",
			    cfg_describe(k, qb, sizeof(qb)));
			continue;
		}
		/* recorded below, once the entry is taken */
		i = seen_first(&seen, hash_bytes(a->bytes, sizeof(a->bytes)) ^
		    (uint64_t)a->kind, cfg->naddrs, same_addr, cfg->addrs, 0);
		if (i < cfg->naddrs) {
			cfg_err(cx, &k->start_mark, "addresses: %s is mapped "
			    "twice (first on line %lu)", cfg_text(k),
			    cfg->addrs[i].line);
			continue;
		}
		if (!cfg_is_text(val) || cfg_is_null(val) ||
		    strlen(cfg_text(val)) >= sizeof(a->pe)) {
			cfg_err(cx, &val->start_mark, "addresses.%s: expected a "
			    "PE (an id or x,y,z/c), got %s", cfg_text(k),
			    cfg_describe(val, qb, sizeof(qb)));
			continue;
		}
		snprintf(a->text, sizeof(a->text), "%s", cfg_text(k));
		snprintf(a->pe, sizeof(a->pe), "%s", cfg_text(val));
		a->line = (unsigned long)val->start_mark.line + 1;
		a->col = (unsigned long)val->start_mark.column + 1;
		(void)seen_first(&seen, hash_bytes(a->bytes, sizeof(a->bytes)) ^
		    (uint64_t)a->kind, cfg->naddrs, same_addr, cfg->addrs, 1);
		cfg->naddrs++;
	}
	free(seen.slot);
}

