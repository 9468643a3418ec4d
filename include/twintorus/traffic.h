/*
 * twintorus: synthetic traffic for the simulator.
 *
 * Every PE generates packets by a Bernoulli process (one packet of P flits
 * with probability load/P in each cycle, drawn as geometric gaps) and picks
 * each destination by a pattern.  Each PE draws from its own random stream,
 * seeded from (seed, PE), so what a PE sends does not depend on the order in
 * which anything else is simulated.
 *
 * Patterns (README "Traffic patterns" has the full definitions):
 *   on PE ids: uniform, hotspot, transpose, bit-reversal, bit-complement,
 *     shuffle (rotate left 1 bit), bit-rotate (rotate right 1 bit),
 *     random-permutation, flows (listed SRC:DST pairs);
 *   on node coordinates, keeping the card: tornado, center-reflection,
 *     neighbour.
 * A PE whose pattern maps it to itself sends nothing.
 */
#ifndef TWINTORUS_TRAFFIC_H
#define TWINTORUS_TRAFFIC_H

#include <stddef.h>
#include <stdint.h>

#include "twintorus/sim.h"
#include "twintorus/topo.h"
#include "twintorus/api.h"

TT_BEGIN_DECLS

enum tt_pattern {
	TT_TR_UNIFORM = 0,
	TT_TR_HOTSPOT,
	TT_TR_TORNADO,
	TT_TR_TRANSPOSE,
	TT_TR_BITREV,
	TT_TR_BITCOMP,
	TT_TR_SHUFFLE,
	TT_TR_BITROTATE,
	TT_TR_CENTER,
	TT_TR_NEIGHBOUR,
	TT_TR_RANDPERM,
	TT_TR_FLOWS,
	TT_TR_COUNT
};

typedef struct tt_rng {
	uint64_t s[4];
} tt_rng;

/* xoshiro256** (Blackman and Vigna), seeded through splitmix64 from a
 * seed and a stream number (the PE). */
void tt_rng_seed(tt_rng *r, uint64_t seed, uint64_t stream);

static inline uint64_t
tt_rng_next(tt_rng *r)
{
	uint64_t *s = r->s, t = s[1] << 17;
	uint64_t x = s[1] * 5, out = ((x << 7) | (x >> 57)) * 9;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = (s[3] << 45) | (s[3] >> 19);
	return out;
}

/* uniform in [0, n) */
static inline uint32_t
tt_rng_below(tt_rng *r, uint32_t n)
{
	return (uint32_t)(((tt_rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* uniform in [0, 1) */
static inline double
tt_rng_unit(tt_rng *r)
{
	return (double)(tt_rng_next(r) >> 11) / 9007199254740992.0;   /* 2^53: C++ before 17 has no hex floats */
}

typedef struct tt_traffic {
	/* set by the caller */
	enum tt_pattern pattern;
	double load;            /* offered flits/cycle/PE, 0 < load <= P */
	int packet_flits;
	uint64_t seed;
	uint64_t stop;          /* generate nothing from this cycle on
	                         * (UINT64_MAX: never stop) */
	double hot_fraction;    /* hotspot: share of packets to the hot set */
	const uint32_t *hot;    /* hotspot: hot PEs (NULL: the centre PE) */
	size_t nhot;
	const uint32_t *flow_src, *flow_dst;  /* flows */
	size_t nflows;
	int uniform_self;       /* uniform (and hotspot's uniform part): the
	                         * source is a destination too, as in BookSim2;
	                         * the seed model's uniform leaves it out */

	/* derived by tt_traffic_init() */
	const tt_net *net;
	uint32_t npes;
	uint32_t active_pes;    /* PEs that send anything */
	uint32_t *dest;         /* fixed destination, or UINT32_MAX */
	uint32_t *flow_off;     /* flows: pe's destinations are */
	uint32_t *flow_list;    /*   flow_list[flow_off[pe] .. flow_off[pe+1]) */
	uint32_t *hotset;
	uint32_t nhotset;
	double log1mp;          /* log(1 - load/P) */
	tt_rng *rng;            /* one stream per PE */
	uint64_t *next_gen;     /* the next generation cycle to hand out */
} tt_traffic;

/* Names: "uniform", "hotspot", "tornado", ...; -1 if unknown. */
int tt_pattern_parse(const char *name, enum tt_pattern *out);
const char *tt_pattern_name(enum tt_pattern p);
/* Every name, comma-separated, for messages. */
const char *tt_pattern_list(void);

void tt_traffic_default(tt_traffic *tr);
/* Check the settings against net and derive the tables.  0, or -1 with err
 * filled (e.g. a bit pattern on a PE count that is not a power of two). */
int tt_traffic_init(tt_traffic *tr, const tt_net *net, char *err, size_t errsz);
void tt_traffic_free(tt_traffic *tr);
/* The packet source the simulator draws from. */
tt_source tt_traffic_source(tt_traffic *tr);
/* Offered load averaged over all PEs (silent PEs offer nothing). */
double tt_traffic_offered(const tt_traffic *tr);

TT_END_DECLS

#endif
