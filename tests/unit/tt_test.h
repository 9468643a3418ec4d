/*
 * Shared by the unit tests: build a network or fail the test.  Include it
 * after <cmocka.h>.
 *
 * ports: "A".."J" or "best" for a twin torus; NULL with twin = 1 keeps the
 * default (best); ignored for a plain torus (twin = 0).
 */
#ifndef TT_TEST_H
#define TT_TEST_H

#include "twintorus/topo.h"

static inline void
tt_test_net(tt_net *net, int n, const int *k, int twin, const char *ports,
    enum tt_deadlock dl)
{
	tt_netspec s;
	char err[256];
	int d;

	tt_netspec_default(&s);
	s.n = n;
	for (d = 0; d < n; d++)
		s.k[d] = k[d];
	s.twin = twin;
	s.deadlock = dl;
	if (twin && ports != NULL &&
	    tt_netspec_set_ports(&s, ports, err, sizeof(err)) != 0)
		fail_msg("tt_netspec_set_ports(%s): %s", ports, err);
	if (tt_net_init(net, &s, err, sizeof(err)) != 0)
		fail_msg("tt_net_init: %s", err);
}

#endif
