/*
 * What the libFuzzer targets share: the input as a file that a reader
 * opens by path, and the small network most of them read traces against.
 * Each target is one translation unit, so these are static.
 */
#ifndef TT_FUZZ_H
#define TT_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "twintorus/config.h"
#include "twintorus/topo.h"
#include "twintorus/trace.h"

/*
 * The input's bytes in a memfd named name, and its path under
 * /proc/self/fd in path: readers that take a path read it as a file.
 * Returns the descriptor; the caller closes it.
 */
static int
fuzz_as_file(const char *name, const uint8_t *data, size_t size,
    char *path, size_t pathsz)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd < 0 || (size > 0 && write(fd, data, size) != (ssize_t)size))
		abort();
	snprintf(path, pathsz, "/proc/self/fd/%d", fd);
	return fd;
}

/* The 2x2x2 twin torus (16 PEs). */
static void
fuzz_torus(tt_net *net)
{
	tt_netspec spec;
	char err[256];

	tt_netspec_default(&spec);
	spec.n = 3;
	spec.k[0] = spec.k[1] = spec.k[2] = 2;
	if (tt_net_init(net, &spec, err, sizeof(err)) != 0)
		abort();
}

/*
 * The 2x2x2 twin torus and a map of some addresses (IPv4, IPv6, MAC) to
 * its PEs, for traces of plain frames.
 */
static void
fuzz_torus_mapped(tt_net *net, tt_config *cfg, tt_addrmap *map)
{
	static const char *const pairs[] = {
		"10.0.0.1", "0", "10.0.0.2", "5", "fd00::1", "3", "fd00::2", "12",
		"02:00:00:00:00:01", "1", "02:00:00:00:00:02", "15",
	};
	size_t i, n = sizeof(pairs) / sizeof(pairs[0]) / 2;

	fuzz_torus(net);
	tt_config_default(cfg);
	if ((cfg->addrs = calloc(n, sizeof(*cfg->addrs))) == NULL)
		abort();
	for (i = 0; i < n; i++) {
		tt_addr *a = &cfg->addrs[i];

		if (tt_addr_parse(pairs[2 * i], a) != 0)
			abort();
		snprintf(a->text, sizeof(a->text), "%s", pairs[2 * i]);
		snprintf(a->pe, sizeof(a->pe), "%s", pairs[2 * i + 1]);
	}
	cfg->naddrs = n;
	if (tt_addrmap_build(map, cfg, net, stderr) != 0)
		abort();
}

#endif
