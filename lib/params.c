/*
 * The network parameters' defaults, and the wire time and cycle time of a
 * link (twintorus/params.h).
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
tt_wire_ns(uint64_t bytes, double link_gbps)
{
	return (double)bytes * 8.0 / link_gbps;
}

double
tt_cycle_ns(int flit_bytes, double link_gbps)
{
	return tt_wire_ns((uint64_t)flit_bytes, link_gbps);
}
