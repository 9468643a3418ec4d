/*
 * twintorus: the YAML cluster description.
 *
 * One file describes a cluster: torus: (the model), network: (simulator
 * parameters), nodes: (the deployment map, used by ttd), trace: and
 * credits: (ttd's buffers, and the simulator's buffer per VC), model:
 * (the hardware in nanoseconds, twintorus/model.h).  The
 * loader reports every error it finds as "file:line:col: message", not just
 * the first, and returns how many there were.
 */
#ifndef TWINTORUS_CONFIG_H
#define TWINTORUS_CONFIG_H

#include <stdint.h>
#include <stdio.h>
#include "twintorus/model.h"
#include "twintorus/params.h"
#include "twintorus/topo.h"
#include "twintorus/api.h"

TT_BEGIN_DECLS

/*
 * addresses: maps the addresses of a plain capture (tcpdump of a cluster's
 * Ethernet/IP traffic, no torus header) to PEs, so that it can be replayed.
 * The PE is kept as written (an id or x,y,z/c) and resolved against the
 * network in use (twintorus/trace.h, tt_addrmap_build).
 */
enum tt_addr_kind { TT_ADDR_IPV4 = 4, TT_ADDR_IPV6 = 6, TT_ADDR_MAC = 1 };
typedef struct tt_addr {
	int kind;                 /* enum tt_addr_kind */
	uint8_t bytes[16];        /* 4, 16 or 6 significant bytes */
	char text[64];            /* the address as written */
	char pe[64];              /* the PE as written */
	unsigned long line, col;  /* of the PE, 1-based, for messages */
} tt_addr;

/* Parse an IPv4, IPv6 or MAC (aa:bb:cc:dd:ee:ff) address; 0 or -1. */
int tt_addr_parse(const char *s, tt_addr *a);

/*
 * nodes: the deployment map ttd reads (ttsim only checks it).  Each card lists
 * its interfaces (a name, a PCI function "0000:03:00.1" or a MAC) and the
 * torus port each one is.  Whether the map fits the port configuration is
 * ttd's check (daemon/node.c): it needs the resolved network.
 */
#define TT_CFG_KEY_MAX 64
typedef struct tt_cfg_port {
	char key[TT_CFG_KEY_MAX]; /* interface name, PCI function or MAC */
	int port;                 /* external port id, or TT_PORT_INT */
	unsigned long line, col;  /* of the key */
} tt_cfg_port;

typedef struct tt_cfg_card {
	char pci[TT_CFG_KEY_MAX]; /* "" if not given */
	int nports;
	tt_cfg_port ports[TT_MAX_EXT + 1];
	unsigned long line, col;
} tt_cfg_card;

typedef struct tt_cfg_node {
	char host[256];
	int coord[TT_MAX_DIMS];
	int coord_ok;             /* coord given, n values, each in range */
	int ncards;               /* 0: automatic map from discovery */
	tt_cfg_card cards[2];
	unsigned long line, col;
} tt_cfg_node;

/* Which torus: keys the file set, so that command-line flags can override. */
enum {
	TT_CFG_DIMS     = 1u << 0,
	TT_CFG_TWIN     = 1u << 1,
	TT_CFG_PORTS    = 1u << 2,
	TT_CFG_DEADLOCK = 1u << 3
};

typedef struct tt_config {
	char path[4096];
	unsigned set;         /* TT_CFG_* bits */
	tt_netspec spec;      /* the torus: section over tt_netspec_default() */
	tt_netparams params;  /* the network: section over the defaults */
	unsigned network_set; /* the keys network: gave, as TT_MODEL_* bits
	                       * (link_gbps, flit_bytes, packet_flits) */
	tt_model model;       /* the model: section (model.set: its keys) */
	int has_nodes;        /* a nodes: section is present (ttd reads it) */
	int has_trace;        /* a trace: section is present */
	char trace_dir[4096]; /* trace.dir ("" if unset) */
	int trace_rotate_mb;  /* trace.rotate_mb (0 if unset) */
	int trace_keep;       /* trace.keep (0 if unset) */
	int trace_ports;      /* trace.ports: also record every port */
	tt_cfg_node *nodes;   /* nodes:, in file order */
	size_t nnodes;
	char pe_tap[32];      /* pes.tap: TAP name pattern, %u = PE id */
	uint32_t pe_subnet;   /* pes.subnet, host byte order */
	int pe_prefix;        /* its prefix length */
	tt_addr *addrs;       /* addresses:, in file order */
	size_t naddrs;
	/* credits: ttd's input buffer per VC, bytes (0: not set); ttsim
	 * simulates the same buffer per VC (vc_bytes, internal_vc_bytes;
	 * twintorus/model.h, tt_model_from_config) */
	int credit_vc_bytes;      /* credits.vc_bytes: external ports */
	int credit_int_vc_bytes;  /* credits.internal_vc_bytes */
	int credit_pe_bytes;      /* credits.pe_bytes: a PE's injection */
} tt_config;

/* credits: bounds.  A buffer holds at least two of the largest frames ttd
 * carries (9,216 bytes), so that any frame fits a neighbour's buffer and a
 * frame entering a ring under bubble flow control finds room for two. */
#define TT_CREDIT_BYTES_MIN  18432
#define TT_CREDIT_BYTES_MAX  (16 << 20)

void tt_config_default(tt_config *cfg);
/* Free what tt_config_load() allocated (the address list). */
void tt_config_free(tt_config *cfg);

/*
 * Load and check a file.  Every error is printed to `errs` as
 * "path:line:col: message" (line and column 1-based).  Returns the number of
 * errors; cfg is usable only when it returns 0.
 */
int tt_config_load(tt_config *cfg, const char *path, FILE *errs);

TT_END_DECLS

#endif
