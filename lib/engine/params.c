/*
 * The network parameters' defaults, the wire time and cycle time of a
 * link, and the size of a message's last packet (twintorus/params.h).
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

uint32_t
tt_last_packet_flits(uint64_t bytes, int packet_flits, int flit_bytes)
{
	uint64_t pkt = (uint64_t)packet_flits * (uint64_t)flit_bytes;
	uint64_t rest = bytes % pkt, flits;

	if (bytes > 0 && rest == 0)
		return 0;
	flits = (rest + (uint64_t)flit_bytes - 1) / (uint64_t)flit_bytes;
	if (flits == 0)
		flits = 1;      /* an empty message still sends a packet */
	return flits >= (uint64_t)packet_flits ? 0 : (uint32_t)flits;
}

double
tt_cycle_ns(int flit_bytes, double link_gbps)
{
	return tt_wire_ns((uint64_t)flit_bytes, link_gbps);
}
