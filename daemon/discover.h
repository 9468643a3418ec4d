/*
 * ttd: the machine's network cards as hwloc sees them (discover.c).
 */
#ifndef TTD_DISCOVER_H
#define TTD_DISCOVER_H

#include <stddef.h>

typedef struct ttd_nic_port {
	char name[16];            /* interface name */
	char pci[16];             /* PCI function, "0000:03:00.1" */
	char mac[18];             /* "" if hwloc does not know it */
	int link;                 /* 1 up, 0 down, -1 unknown (XML input) */
} ttd_nic_port;

/* A card: the PCI device whose functions are its ports. */
typedef struct ttd_nic {
	char pci[16];             /* "0000:03:00" */
	int numa;                 /* nearest NUMA node, -1 unknown */
	char cpuset[256];         /* its CPUs as a list, "0-7,16-23" */
	int nports;
	ttd_nic_port port[16];    /* in PCI-function order */
} ttd_nic;

/* The cards, in PCI order; xml_path NULL: this machine. */
int ttd_discover(const char *xml_path, ttd_nic **nics, size_t *n,
    char *err, size_t errsz);
void ttd_discover_free(ttd_nic *nics);
/* The two cards ttd would use: the first two of >= 4 ports; -1 if none. */
int ttd_discover_pick(const ttd_nic *nics, size_t n, int pick[2],
    char *err, size_t errsz);
/* Pin the calling thread to the card's CPUs (nothing if unknown). */
int ttd_discover_bind(const ttd_nic *nic, char *err, size_t errsz);
/* `ttd discover [--hwloc-xml FILE] [--json]`, its flags parsed (main.c):
 * the cards of xml (NULL: this machine's), as JSON or a table. */
int ttd_cmd_discover(const char *xml, int json);

#endif
