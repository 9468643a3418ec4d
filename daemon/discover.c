/*
 * Finding the node's network cards with hwloc: `ttd discover`, and the
 * cards ttd would use.
 *
 * hwloc sees each port as an OS device (a network interface) under a PCI
 * function; the functions of one PCI device (domain:bus:dev) are one card.
 * A twin node needs two cards of at least four ports (seed 000 §3: two
 * low-profile 4-port cards, three ports each to the torus and one for the
 * internal link).  Where a card sits matters for the forwarding plane:
 * the NUMA node and cpuset of its nearest non-I/O ancestor are where its
 * frames should be handled.
 *
 * hwloc's default filter keeps no I/O objects, so the I/O filter is set to
 * "important" for a live machine and for an XML file alike.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hwloc.h>

#include "twintorus/json.h"
#include "discover.h"
#include "ttd.h"

/* Link state of a live interface: 1 up, 0 down, -1 unknown. */
static int
discover_link(const char *ifname)
{
	char path[128], state[32] = "";
	FILE *fp;

	snprintf(path, sizeof(path), "/sys/class/net/%s/operstate", ifname);
	if ((fp = fopen(path, "r")) == NULL)
		return -1;
	if (fgets(state, sizeof(state), fp) == NULL)
		state[0] = '\0';
	fclose(fp);
	if (strncmp(state, "up", 2) == 0)
		return 1;
	if (strncmp(state, "down", 4) == 0 ||
	    strncmp(state, "lowerlayerdown", 14) == 0)
		return 0;
	return -1;
}

static int
discover_load(hwloc_topology_t *tp, const char *xml, char *err, size_t errsz)
{
	hwloc_topology_t t;

	if (hwloc_topology_init(&t) < 0) {
		snprintf(err, errsz, "hwloc: cannot initialise: %s",
		    strerror(errno));
		return -1;
	}
	if (xml != NULL && hwloc_topology_set_xml(t, xml) < 0) {
		snprintf(err, errsz, "%s: hwloc cannot read this file (%s); "
		    "give an XML written by lstopo or hwloc-gather-topology",
		    xml, strerror(errno));
		hwloc_topology_destroy(t);
		return -1;
	}
	hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	if (hwloc_topology_load(t) < 0) {
		snprintf(err, errsz, "%s: hwloc cannot load the topology (%s)%s",
		    xml ? xml : "this machine", strerror(errno), xml ?
		    "; is it an hwloc XML file?" : "");
		hwloc_topology_destroy(t);
		return -1;
	}
	*tp = t;
	return 0;
}

static int
nic_cmp(const void *a, const void *b)
{
	return strcmp(((const ttd_nic *)a)->pci, ((const ttd_nic *)b)->pci);
}

static int
port_cmp(const void *a, const void *b)
{
	const ttd_nic_port *x = a, *y = b;
	int c = strcmp(x->pci, y->pci);

	return c ? c : strcmp(x->name, y->name);
}

int
ttd_discover(const char *xml_path, ttd_nic **nicsp, size_t *np, char *err,
    size_t errsz)
{
	hwloc_topology_t t;
	hwloc_obj_t os = NULL, pci, anc;
	ttd_nic *nics = NULL, *nic;
	size_t n = 0, cap = 0, i;

	*nicsp = NULL;
	*np = 0;
	if (discover_load(&t, xml_path, err, errsz) < 0)
		return -1;
	while ((os = hwloc_get_next_osdev(t, os)) != NULL) {
		char card[32], fn[40];
		const char *mac;
		ttd_nic_port *p;

		if (os->attr->osdev.type != HWLOC_OBJ_OSDEV_NETWORK)
			continue;
		for (pci = os->parent; pci != NULL &&
		    pci->type != HWLOC_OBJ_PCI_DEVICE; pci = pci->parent)
			;
		if (pci == NULL)
			continue;	/* virtual: no card to speak of */
		snprintf(card, sizeof(card), "%04x:%02x:%02x",
		    pci->attr->pcidev.domain, pci->attr->pcidev.bus,
		    pci->attr->pcidev.dev);
		snprintf(fn, sizeof(fn), "%s.%x", card, pci->attr->pcidev.func);
		for (i = 0; i < n; i++)
			if (strncmp(nics[i].pci, card, sizeof(nics[i].pci) - 1)
			    == 0)
				break;
		if (i == n) {
			if (n == cap) {
				ttd_nic *nn;

				cap = cap ? cap * 2 : 8;
				nn = realloc(nics, cap * sizeof(*nics));
				if (nn == NULL)
					goto nomem;
				nics = nn;
			}
			nic = &nics[n++];
			memset(nic, 0, sizeof(*nic));
			snprintf(nic->pci, sizeof(nic->pci), "%.15s", card);
			nic->numa = -1;
			anc = hwloc_get_non_io_ancestor_obj(t, pci);
			if (anc != NULL && anc->nodeset != NULL &&
			    !hwloc_bitmap_iszero(anc->nodeset))
				nic->numa = hwloc_bitmap_first(anc->nodeset);
			if (anc != NULL && anc->cpuset != NULL)
				hwloc_bitmap_list_snprintf(nic->cpuset,
				    sizeof(nic->cpuset), anc->cpuset);
		}
		nic = &nics[i];
		if (nic->nports == (int)(sizeof(nic->port) / sizeof(nic->port[0])))
			continue;
		p = &nic->port[nic->nports++];
		snprintf(p->name, sizeof(p->name), "%s", os->name ? os->name :
		    "?");
		snprintf(p->pci, sizeof(p->pci), "%.15s", fn);
		/* an Ethernet MAC; InfiniBand's 20-byte address is not one */
		mac = hwloc_obj_get_info_by_name(os, "Address");
		if (mac != NULL && strlen(mac) == 17)
			snprintf(p->mac, sizeof(p->mac), "%s", mac);
		p->link = xml_path == NULL ? discover_link(p->name) : -1;
	}
	hwloc_topology_destroy(t);
	/* no card (a network namespace of veths): nics is NULL, which
	 * qsort must not be given, even to sort nothing */
	if (n > 1)
		qsort(nics, n, sizeof(*nics), nic_cmp);
	for (i = 0; i < n; i++)
		if (nics[i].nports > 1)
			qsort(nics[i].port, (size_t)nics[i].nports,
			    sizeof(nics[i].port[0]), port_cmp);
	*nicsp = nics;
	*np = n;
	return 0;
nomem:
	free(nics);
	hwloc_topology_destroy(t);
	snprintf(err, errsz, "out of memory");
	return -1;
}

void
ttd_discover_free(ttd_nic *nics)
{
	free(nics);
}

int
ttd_discover_pick(const ttd_nic *nics, size_t n, int pick[2], char *err,
    size_t errsz)
{
	size_t i;
	int k = 0;

	pick[0] = pick[1] = -1;
	for (i = 0; i < n && k < 2; i++)
		if (nics[i].nports >= 4)
			pick[k++] = (int)i;
	if (k == 2)
		return 0;
	snprintf(err, errsz, "would use none: a twin node needs two cards of "
	    "at least 4 ports, this one has %d (of %zu card%s with network "
	    "ports)", k, n, n == 1 ? "" : "s");
	return -1;
}

int
ttd_discover_bind(const ttd_nic *nic, char *err, size_t errsz)
{
	hwloc_topology_t t;
	hwloc_bitmap_t set;
	int r = -1;

	if (nic->cpuset[0] == '\0')
		return 0;	/* unknown locality: leave it to the kernel */
	if (discover_load(&t, NULL, err, errsz) < 0)
		return -1;
	set = hwloc_bitmap_alloc();
	if (set == NULL || hwloc_bitmap_list_sscanf(set, nic->cpuset) < 0) {
		snprintf(err, errsz, "card %s: CPUs %s: %s", nic->pci,
		    nic->cpuset, strerror(errno));
		goto out;
	}
	/* the card's CPUs this machine has (an XML may describe another) */
	hwloc_bitmap_and(set, set, hwloc_topology_get_allowed_cpuset(t));
	if (hwloc_bitmap_iszero(set))
		snprintf(err, errsz, "card %s: none of its CPUs %s is on this "
		    "machine", nic->pci, nic->cpuset);
	else if (hwloc_set_cpubind(t, set, HWLOC_CPUBIND_THREAD) == 0)
		r = 0;
	else
		snprintf(err, errsz, "card %s: cannot bind to CPUs %s: %s",
		    nic->pci, nic->cpuset, strerror(errno));
out:
	hwloc_bitmap_free(set);
	hwloc_topology_destroy(t);
	return r;
}


static const char *
link_name(int link)
{
	return link > 0 ? "up" : link == 0 ? "down" : "unknown";
}

int
ttd_cmd_discover(const char *xml, int json)
{
	ttd_nic *nics;
	size_t n, i;
	int pick[2], picked, j;
	char err[512];

	if (ttd_discover(xml, &nics, &n, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttd discover: %s\n", err);
		return TTD_EX_UNAVAILABLE;
	}
	picked = ttd_discover_pick(nics, n, pick, err, sizeof(err)) == 0;
	if (json) {
		tt_json_begin(stdout, TT_JSON_SCHEMA_TTD_DISCOVER);
		printf(", \"cards\": [");
		for (i = 0; i < n; i++) {
			printf("%s\n  {\"pci\": ", i ? "," : "");
			tt_json_string(stdout, nics[i].pci);
			printf(", \"numa\": %d, \"cpuset\": ", nics[i].numa);
			tt_json_string(stdout, nics[i].cpuset);
			printf(", \"ports\": [");
			for (j = 0; j < nics[i].nports; j++) {
				const ttd_nic_port *p = &nics[i].port[j];

				printf("%s{\"name\": ", j ? ", " : "");
				tt_json_string(stdout, p->name);
				printf(", \"pci\": ");
				tt_json_string(stdout, p->pci);
				printf(", \"mac\": ");
				tt_json_string(stdout, p->mac);
				printf(", \"link\": \"%s\"}", link_name(p->link));
			}
			printf("]}");
		}
		printf("],\n \"use\": ");
		if (picked)
			printf("[\"%s\", \"%s\"]", nics[pick[0]].pci,
			    nics[pick[1]].pci);
		else {
			printf("null, \"why\": ");
			tt_json_string(stdout, err);
		}
		printf("}\n");
	} else {
		printf("%zu card%s with network ports%s%s:\n", n, n == 1 ? "" :
		    "s", xml ? " in " : "", xml ? xml : "");
		for (i = 0; i < n; i++) {
			printf("  %s  NUMA %d  CPUs %s  %d port%s\n",
			    nics[i].pci, nics[i].numa, nics[i].cpuset[0] ?
			    nics[i].cpuset : "?", nics[i].nports,
			    nics[i].nports == 1 ? "" : "s");
			for (j = 0; j < nics[i].nports; j++)
				printf("    %-16s %s  %-17s  link %s\n",
				    nics[i].port[j].name, nics[i].port[j].pci,
				    nics[i].port[j].mac[0] ? nics[i].port[j].mac
				    : "-", link_name(nics[i].port[j].link));
		}
		if (picked)
			printf("ttd would use %s as card0 and %s as card1 (the "
			    "first two cards of at least 4 ports, in PCI "
			    "order)\n", nics[pick[0]].pci, nics[pick[1]].pci);
		else
			printf("ttd %s\n", err);
	}
	ttd_discover_free(nics);
	return 0;
}
