/*
 * Who this node is and which interface is which torus port.
 *
 * The port configuration (seed 000 Table 1, seed 001 §3.3) fixes which
 * external ports sit on card0 and which on card1; the YAML lists each
 * card's interfaces.  A card is card0 when its external ports are card0's,
 * whatever its place in the list, and every check here says which line of
 * the file is wrong.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "discover.h"
#include "ttd.h"

static int
node_err(FILE *errs, const tt_config *cfg, unsigned long line,
    unsigned long col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int
node_err(FILE *errs, const tt_config *cfg, unsigned long line,
    unsigned long col, const char *fmt, ...)
{
	va_list ap;

	if (errs == NULL)
		return 1;
	fprintf(errs, "%s:%lu:%lu: ", cfg->path, line, col);
	va_start(ap, fmt);
	vfprintf(errs, fmt, ap);
	va_end(ap);
	fputc('\n', errs);
	return 1;
}

int
ttd_node_find(const tt_config *cfg, const tt_net *net, const char *want,
    size_t *index, char *err, size_t errsz)
{
	char host[256];
	int coord[TT_MAX_DIMS], n = 0, d;
	const char *s;
	char *end;
	size_t i;

	if (want == NULL) {
		if (gethostname(host, sizeof(host)) < 0) {
			snprintf(err, errsz, "cannot read this host's name: "
			    "%s; give --node", strerror(errno));
			return -1;
		}
		host[sizeof(host) - 1] = '\0';
		want = host;
	}
	for (i = 0; i < cfg->nnodes; i++)
		if (strcmp(cfg->nodes[i].host, want) == 0) {
			*index = i;
			return 0;
		}
	/* x,y,z */
	for (s = want; n < TT_MAX_DIMS; n++) {
		long v;

		if (!isdigit((unsigned char)*s))
			break;
		v = strtol(s, &end, 10);
		if (v > INT_MAX)
			break;
		coord[n] = (int)v;
		s = end;
		if (*s != ',')
			break;
		s++;
	}
	if (*s == '\0' && n + 1 == net->n) {
		n++;
		for (i = 0; i < cfg->nnodes; i++) {
			for (d = 0; d < net->n; d++)
				if (cfg->nodes[i].coord[d] != coord[d])
					break;
			if (d == net->n && cfg->nodes[i].coord_ok) {
				*index = i;
				return 0;
			}
		}
	}
	snprintf(err, errsz, "%s: node %s is not in nodes: (%zu nodes; give "
	    "--node with a host or coordinate listed there)", cfg->path, want,
	    cfg->nnodes);
	return -1;
}

const char *
ttd_port_fname(int port, int n, char *buf, size_t bufsz)
{
	char name[16];
	size_t len;

	if (port == TT_PORT_INT) {
		snprintf(buf, bufsz, "int");
		return buf;
	}
	tt_port_name(port, n, name, sizeof(name));
	len = strlen(name);
	if (len > 0)
		name[len - 1] = name[len - 1] == '+' ? 'p' : 'm';
	snprintf(buf, bufsz, "%s", name);
	return buf;
}

void
ttd_pe_mac(uint32_t pe, uint8_t mac[6])
{
	tt_pe_mac(pe, mac);
}

int64_t
ttd_mac_pe(const uint8_t mac[6])
{
	return tt_mac_pe(mac);
}

/*
 * An interface named by a PCI function ("0000:03:00.1") or a MAC: the
 * interface of this machine that has it.  0 with name set, or -1.
 */
static int
node_resolve_key(const char *key, char *name, size_t namesz)
{
	char path[PATH_MAX], buf[PATH_MAX];
	int is_mac = strlen(key) == 17 && key[2] == ':';
	int is_pci = strlen(key) >= 12 && key[4] == ':' && key[7] == ':' &&
	    strchr(key, '.') != NULL;
	struct dirent *de;
	DIR *d;
	int found = -1;

	if (!is_mac && !is_pci) {
		snprintf(name, namesz, "%s", key);
		return 0;
	}
	if ((d = opendir("/sys/class/net")) == NULL)
		return -1;
	while (found < 0 && (de = readdir(d)) != NULL) {
		ssize_t len;
		FILE *fp;

		if (de->d_name[0] == '.')
			continue;
		if (is_mac) {
			snprintf(path, sizeof(path), "/sys/class/net/%s/address",
			    de->d_name);
			if ((fp = fopen(path, "r")) == NULL)
				continue;
			if (fgets(buf, sizeof(buf), fp) != NULL &&
			    strncasecmp(buf, key, 17) == 0)
				found = 0;
			fclose(fp);
		} else {
			snprintf(path, sizeof(path), "/sys/class/net/%s/device",
			    de->d_name);
			len = readlink(path, buf, sizeof(buf) - 1);
			if (len <= 0)
				continue;
			buf[len] = '\0';
			if (strcmp(strrchr(buf, '/') ? strrchr(buf, '/') + 1 :
			    buf, key) == 0)
				found = 0;
		}
		if (found == 0 && snprintf(name, namesz, "%s", de->d_name) >=
		    (int)namesz)
			found = -1;
	}
	closedir(d);
	return found;
}

/* Whether card j's entry i names an interface an earlier entry named. */
static int
node_key_before(const tt_cfg_node *cn, int j, int i)
{
	int k, q;

	for (k = 0; k <= j; k++)
		for (q = 0; q < (k == j ? i : cn->cards[k].nports); q++)
			if (strcmp(cn->cards[k].ports[q].key,
			    cn->cards[j].ports[i].key) == 0)
				return 1;
	return 0;
}

/*
 * No cards: in the file: the two cards discovery picks (the first two of
 * at least n + 1 ports, in PCI order) are card0 and card1; on each, the
 * ports in PCI-function order are the card's external ports in port order
 * (X+ before X-, X before Y) and then the internal link.
 */
static int
node_map_auto(struct ttd_node *nd, const tt_config *cfg, const tt_net *net,
    const tt_cfg_node *cn, const char *hwloc_xml, FILE *errs)
{
	ttd_nic *nics;
	size_t n;
	int pick[2], side, i, nerr = 0;
	char err[512];

	if (!net->twin)
		return node_err(errs, cfg, cn->line, cn->col, "%s: a plain "
		    "torus node needs its ports listed (cards:)", cn->host);
	if (ttd_discover(hwloc_xml, &nics, &n, err, sizeof(err)) < 0)
		return node_err(errs, cfg, cn->line, cn->col, "%s: no cards: "
		    "listed and discovery failed: %s", cn->host, err);
	if (ttd_discover_pick(nics, n, pick, err, sizeof(err)) < 0) {
		ttd_discover_free(nics);
		return node_err(errs, cfg, cn->line, cn->col, "%s: no cards: "
		    "listed and discovery %s; list each card's ports",
		    cn->host, err);
	}
	for (side = 0; side < 2; side++) {
		const ttd_nic *nic = &nics[pick[side]];
		struct ttd_card *card = &nd->card[side];

		if (nic->nports < net->card_nports) {
			nerr += node_err(errs, cfg, cn->line, cn->col, "%s: card "
			    "%s has %d ports, card%d needs %d", cn->host,
			    nic->pci, nic->nports, side, net->card_nports);
			continue;
		}
		card->card = tt_card_of(net, nd->node, side);
		card->entry = -1;
		/* card_port lists a side's external ports in port order and
		 * then the internal link (lib/networks/topo.c) */
		for (i = 0; i < net->card_nports; i++) {
			struct ttd_port *p = &card->port[card->nports++];

			p->port = net->card_port[side][i];
			snprintf(p->ifname, sizeof(p->ifname), "%s",
			    nic->port[i].name);
			snprintf(p->key, sizeof(p->key), "%s", nic->port[i].pci);
		}
		ttd_log(TTD_LOG_INFO, "node", "card%d is %s (NUMA %d), ports "
		    "in PCI-function order", side, nic->pci, nic->numa);
	}
	ttd_discover_free(nics);
	return nerr;
}

/*
 * The host names the node's trace files (DIR/HOST-pe.pcap): a "/" or a
 * ".." in it would put them outside the trace directory.
 */
static int
node_check_host(const tt_config *cfg, const tt_cfg_node *cn, size_t index,
    FILE *errs)
{
	if (cn->host[0] != '\0' && strchr(cn->host, '/') == NULL &&
	    strstr(cn->host, "..") == NULL)
		return 0;
	return node_err(errs, cfg, cn->line, cn->col, "nodes[%zu]: host "
	    "\"%s\" %s; ttd names the node's trace files after its host, "
	    "so give a plain host name", index, cn->host, cn->host[0] ==
	    '\0' ? "is empty" : "contains \"/\" or \"..\"");
}

/* Card j's entry i of node cn, on card (side): checked and added. */
static int
node_map_port(struct ttd_card *card, int side, const tt_config *cfg,
    const tt_net *net, const tt_cfg_node *cn, int j, int i, int *nint,
    int seen[TT_NPORTS], int live, FILE *errs)
{
	const tt_cfg_port *cp = &cn->cards[j].ports[i];
	struct ttd_port *p;
	char pn[16];

	if (node_key_before(cn, j, i))
		return node_err(errs, cfg, cp->line, cp->col, "%s: interface "
		    "listed twice", cp->key);
	if (cp->port == TT_PORT_INT) {
		if (!net->twin)
			return node_err(errs, cfg, cp->line, cp->col, "%s: a "
			    "plain torus has no internal link", cp->key);
		if ((*nint)++ > 0)
			return node_err(errs, cfg, cp->line, cp->col, "%s: a "
			    "second internal port on this card", cp->key);
	} else {
		tt_port_name(cp->port, net->n, pn, sizeof(pn));
		if (seen[cp->port] >= 0)
			return node_err(errs, cfg, cp->line, cp->col, "%s: port "
			    "%s is mapped twice (also line %d)", cp->key, pn,
			    seen[cp->port]);
		seen[cp->port] = (int)cp->line;
		if (net->twin && net->port_card[cp->port] != side)
			return node_err(errs, cfg, cp->line, cp->col, "%s: port "
			    "%s belongs to card%d under configuration %s, but "
			    "this card holds card%d's ports", cp->key, pn,
			    !side, net->ports_name, side);
	}
	p = &card->port[card->nports++];
	p->port = cp->port;
	snprintf(p->key, sizeof(p->key), "%s", cp->key);
	if (node_resolve_key(cp->key, p->ifname, sizeof(p->ifname)) < 0 &&
	    live)
		return node_err(errs, cfg, cp->line, cp->col, "%s: no interface "
		    "of this machine has this %s", cp->key, strchr(cp->key,
		    '.') ? "PCI function" : "MAC address");
	if (live && if_nametoindex(p->ifname) == 0)
		return node_err(errs, cfg, cp->line, cp->col, "%s: no such "
		    "interface on this machine (see `ip link`)", p->ifname);
	return 0;
}

/* Every port of card side must be listed. */
static int
node_missing_ports(const tt_config *cfg, const tt_net *net,
    const tt_cfg_card *cc, size_t index, int j, int side,
    const int seen[TT_NPORTS], FILE *errs)
{
	char pn[16], list[128] = "";
	size_t o;
	int i;

	for (i = 0; i < 2 * net->n; i++)
		if ((!net->twin || net->port_card[i] == side) && seen[i] < 0) {
			o = strlen(list);
			snprintf(list + o, sizeof(list) - o, "%s%s", o ? ", " :
			    "", tt_port_name(i, net->n, pn, sizeof(pn)));
		}
	if (list[0] == '\0')
		return 0;
	return node_err(errs, cfg, cc->line, cc->col, "nodes[%zu].cards[%d]: "
	    "missing %s (card%d's ports under configuration %s)", index, j,
	    list, side, net->ports_name);
}

/* Card entry j of node index: the side its ports say, and its ports. */
static int
node_map_card(struct ttd_node *nd, const tt_config *cfg, const tt_net *net,
    size_t index, int j, int seen[TT_NPORTS], int live, FILE *errs)
{
	const tt_cfg_node *cn = &cfg->nodes[index];
	const tt_cfg_card *cc = &cn->cards[j];
	struct ttd_card *card;
	int i, side = -1, nint = 0, nerr = 0;

	/* the side is the one of its first external port */
	for (i = 0; i < cc->nports && side < 0; i++)
		if (cc->ports[i].port != TT_PORT_INT)
			side = net->twin ? net->port_card[cc->ports[i].port] : 0;
	if (side < 0)
		return node_err(errs, cfg, cc->line, cc->col,
		    "nodes[%zu].cards[%d]: no external port listed", index, j);
	card = &nd->card[side];
	if (card->nports > 0)
		return node_err(errs, cfg, cc->line, cc->col,
		    "nodes[%zu].cards[%d]: both cards hold card%d's ports "
		    "under configuration %s", index, j, side, net->ports_name);
	card->card = tt_card_of(net, nd->node, side);
	card->entry = j;
	for (i = 0; i < cc->nports; i++)
		nerr += node_map_port(card, side, cfg, net, cn, j, i, &nint,
		    seen, live, errs);
	if (net->twin && nint == 0)
		nerr += node_err(errs, cfg, cc->line, cc->col,
		    "nodes[%zu].cards[%d]: no internal port (the cable to the "
		    "other card: IFACE: internal)", index, j);
	return nerr + node_missing_ports(cfg, net, cc, index, j, side, seen,
	    errs);
}

int
ttd_node_map(struct ttd_node *nd, const tt_config *cfg, const tt_net *net,
    size_t index, int live, const char *hwloc_xml, FILE *errs)
{
	const tt_cfg_node *cn = &cfg->nodes[index];
	int want = net->twin ? 2 : 1, j, i, nerr, seen[TT_NPORTS];

	memset(nd, 0, sizeof(*nd));
	nd->cfg = cfg;
	nd->net = net;
	nd->index = index;
	snprintf(nd->host, sizeof(nd->host), "%s", cn->host);
	nd->node = tt_node_index(net, cn->coord);
	nd->ncards = want;
	nerr = node_check_host(cfg, cn, index, errs);
	if (cn->ncards == 0)
		return nerr + (live ? node_map_auto(nd, cfg, net, cn,
		    hwloc_xml, errs) : 0);  /* resolved when ttd starts */
	if (cn->ncards != want)
		return nerr + node_err(errs, cfg, cn->line, cn->col,
		    "nodes[%zu] (%s): %d card%s listed, a %s node has %d",
		    index, cn->host, cn->ncards, cn->ncards == 1 ? "" : "s",
		    net->twin ? "twin" : "plain", want);
	for (i = 0; i < TT_NPORTS; i++)
		seen[i] = -1;
	for (j = 0; j < cn->ncards; j++)
		nerr += node_map_card(nd, cfg, net, index, j, seen, live, errs);
	return nerr;
}
