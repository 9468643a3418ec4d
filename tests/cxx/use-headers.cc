// A C++ program using libtwintorus, as a C++ tool would: every public
// header included, a network described, checked and built, its size and
// a route printed.  tests/cli/install.sh builds it against an installed
// tree, with the library's own link dependencies only (-lyaml -lpcap -lm).
#include <cstdio>

#include "twintorus/analyze.h"
#include "twintorus/causal.h"
#include "twintorus/config.h"
#include "twintorus/deps.h"
#include "twintorus/frame.h"
#include "twintorus/infer.h"
#include "twintorus/json.h"
#include "twintorus/motif.h"
#include "twintorus/record.h"
#include "twintorus/replay.h"
#include "twintorus/sim.h"
#include "twintorus/topo.h"
#include "twintorus/trace.h"
#include "twintorus/traffic.h"
#include "twintorus/version.h"
#include "twintorus/workload.h"

int
main()
{
	tt_netspec spec;
	tt_net net;
	char err[256];

	tt_netspec_default(&spec);
	if (tt_netspec_check(&spec, err, sizeof(err)) != 0) {
		std::fprintf(stderr, "tt_netspec_check: %s\n", err);
		return 1;
	}
	if (tt_net_init(&net, &spec, err, sizeof(err)) != 0) {
		std::fprintf(stderr, "tt_net_init: %s\n", err);
		return 1;
	}
	tt_hop h = tt_route(&net, 0, net.ncards - 1, TT_PORT_NIC);
	std::printf("twintorus %s: %u PEs, PE 0 -> PE %u leaves by port %d vc %d\n",
	    TT_VERSION, net.ncards, net.ncards - 1, h.port, h.vc);
	tt_json_string(stdout, "ok");
	std::printf("\n");
	tt_net_free(&net);
	return 0;
}
