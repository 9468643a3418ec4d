/*
 * Shared by the unit tests: build a network (or a small engine) or fail
 * the test.  Include it after <cmocka.h>.
 *
 * ports: "A".."J" or "best" for a twin torus; NULL with twin = 1 keeps the
 * default (best); ignored for a plain torus (twin = 0).
 */
#ifndef TT_TEST_H
#define TT_TEST_H

#include "twintorus/sim.h"
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

/* The engine on a 2x2x2 twin torus, ports D, VCs against deadlock, with
 * the default parameters (net is built into). */
static inline tt_sim *
tt_test_sim222(tt_net *net)
{
	static const int k222[3] = {2, 2, 2};
	tt_simparams p;
	tt_sim *sim;
	char err[256];

	tt_test_net(net, 3, k222, 1, "D", TT_DL_VC);
	tt_simparams_default(&p);
	if (tt_sim_create(&sim, net, &p, err, sizeof(err)) != 0)
		fail_msg("tt_sim_create: %s", err);
	return sim;
}

#endif
