/*
 * The network parameters' defaults and the cycle time (twintorus/params.h).
 */
#include "twintorus/params.h"

void
tt_netparams_default(tt_netparams *p)
{
	p->packet_flits = TT_PACKET_FLITS_DEFAULT;
	p->buffer_flits = TT_BUFFER_FLITS_DEFAULT;
	p->flit_bytes = TT_FLIT_BYTES_DEFAULT;
	p->link_gbps = TT_LINK_GBPS_DEFAULT;
}

double
tt_cycle_ns(int flit_bytes, double link_gbps)
{
	return (double)flit_bytes * 8.0 / link_gbps;
}
