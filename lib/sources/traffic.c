/*
 * Synthetic traffic: the Bernoulli source and the destination patterns
 * (seed 003 §4 and seed 004 §5 give the patterns; README "Traffic
 * patterns" states exactly how each is applied to twin tori).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "support/errf.h"
#include "twintorus/params.h"
#include "twintorus/traffic.h"
#include "networks/netgen.h"


/* ---- random numbers: xoshiro256** seeded through splitmix64 ---- */

static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void
tt_rng_seed(tt_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1342543de82ef95ull) ^ 0x5851f42d4c957f2dull;
	int i;

	/* mix the stream number in twice so nearby streams are unrelated */
	x = splitmix64(&x) ^ stream;
	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

/* ---- names ---- */

static const char *const names[TT_TR_COUNT] = {
	"uniform", "hotspot", "tornado", "transpose", "bit-reversal",
	"bit-complement", "shuffle", "bit-rotate", "center-reflection",
	"neighbour", "random-permutation", "flows",
};

int
tt_pattern_parse(const char *name, enum tt_pattern *out)
{
	static const struct { const char *alias; enum tt_pattern p; } alias[] = {
		{"hot-spot", TT_TR_HOTSPOT}, {"perfect-shuffle", TT_TR_SHUFFLE},
		{"neighbor", TT_TR_NEIGHBOUR}, {"permutation", TT_TR_RANDPERM},
		{"bitrev", TT_TR_BITREV}, {"complement", TT_TR_BITCOMP},
		{"centre-reflection", TT_TR_CENTER},
	};
	size_t i;

	for (i = 0; i < TT_TR_COUNT; i++)
		if (strcasecmp(name, names[i]) == 0) {
			*out = (enum tt_pattern)i;
			return 0;
		}
	for (i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		if (strcasecmp(name, alias[i].alias) == 0) {
			*out = alias[i].p;
			return 0;
		}
	return -1;
}

const char *
tt_pattern_name(enum tt_pattern p)
{
	return (unsigned)p < TT_TR_COUNT ? names[p] : "?";
}

const char *
tt_pattern_list(void)
{
	return "uniform, hotspot, tornado, transpose, bit-reversal, "
	    "bit-complement, shuffle, bit-rotate, center-reflection, "
	    "neighbour, random-permutation, flows";
}

void
tt_traffic_default(tt_traffic *tr)
{
	memset(tr, 0, sizeof(*tr));
	tr->pattern = TT_TR_UNIFORM;
	tr->load = 0.1;
	tr->packet_flits = TT_PACKET_FLITS_DEFAULT;
	tr->seed = 1;
	tr->stop = UINT64_MAX;
	tr->hot_fraction = 0.1;
}

/* ---- fixed destinations ---- */

static int
log2_exact(uint32_t n)
{
	int b = 0;

	if (n == 0 || (n & (n - 1)) != 0)
		return -1;
	while ((1u << b) < n)
		b++;
	return b;
}

/* The bit patterns of seeds 003 and 004, on a b-bit PE id. */
static uint32_t
bit_pattern(enum tt_pattern p, uint32_t x, int b)
{
	uint32_t mask = b >= 32 ? 0xffffffffu : (1u << b) - 1, y = 0;
	int i, h;

	switch (p) {
	case TT_TR_BITCOMP:
		return ~x & mask;
	case TT_TR_BITREV:
		for (i = 0; i < b; i++)
			if (x & (1u << i))
				y |= 1u << (b - 1 - i);
		return y;
	case TT_TR_SHUFFLE:         /* rotate left one bit */
		return ((x << 1) | (x >> (b - 1))) & mask;
	case TT_TR_BITROTATE:       /* rotate right one bit */
		return ((x >> 1) | (x << (b - 1))) & mask;
	case TT_TR_TRANSPOSE:
		/* swap the low and high floor(b/2) bits; with odd b the
		 * middle bit stays (seed 004 §5 for even b) */
		h = b / 2;
		{
			uint32_t lo = x & ((1u << h) - 1);
			uint32_t hi = x >> (b - h);
			uint32_t mid = (x >> h) & ((1u << (b - 2 * h)) - 1);

			return (lo << (b - h)) | (mid << h) | hi;
		}
	default:
		return x;
	}
}

/* A node moved by a coordinate pattern on its network's address digits
 * (netgen.h id_digits: a torus's coordinates, a generated network's
 * paper's address), each a ring of its radix: tornado (seed 004 §5: every
 * digit), center-reflection (seed 003 §4), the next node along digit 0. */
static uint32_t
gen_pattern(const tt_net *net, enum tt_pattern p, uint32_t node)
{
	int k[TT_ID_DIGITS], nd = tt_net_id_digits(net, k), d, c;
	uint32_t rest = node, out = 0, w = 1;

	for (d = 0; d < nd; d++) {
		c = (int)(rest % (uint32_t)k[d]);
		rest /= (uint32_t)k[d];
		if (p == TT_TR_TORNADO)
			c = (c + k[d] / 2 - 1 + k[d]) % k[d];
		else if (p == TT_TR_CENTER)
			c = k[d] - 1 - c;
		else if (p == TT_TR_NEIGHBOUR && d == 0)
			c = (c + 1) % k[d];
		out += (uint32_t)c * w;
		w *= (uint32_t)k[d];
	}
	return out;
}

static uint32_t
coord_pattern(const tt_net *net, enum tt_pattern p, uint32_t pe)
{
	return tt_card_of(net, gen_pattern(net, p, tt_card_node(net, pe)),
	    tt_card_side(net, pe));
}

static int
build_dest(tt_traffic *tr, char *err, size_t errsz)
{
	const tt_net *net = tr->net;
	uint32_t pe, j, n = tr->npes;
	int b;

	tr->dest = malloc(sizeof(uint32_t) * n);
	if (tr->dest == NULL)
		return tt_errf(err, errsz, "out of memory");
	switch (tr->pattern) {
	case TT_TR_TRANSPOSE:
	case TT_TR_BITREV:
	case TT_TR_BITCOMP:
	case TT_TR_SHUFFLE:
	case TT_TR_BITROTATE:
		b = log2_exact(n);
		if (b < 1)
			return tt_errf(err, errsz, "traffic %s permutes the bits "
			    "of PE ids and needs a power-of-two number of PEs; "
			    "this network has %u", tt_pattern_name(tr->pattern),
			    (unsigned)n);
		for (pe = 0; pe < n; pe++)
			tr->dest[pe] = bit_pattern(tr->pattern, pe, b);
		break;
	case TT_TR_TORNADO:
	case TT_TR_CENTER:
	case TT_TR_NEIGHBOUR:
		for (pe = 0; pe < n; pe++)
			tr->dest[pe] = coord_pattern(net, tr->pattern, pe);
		break;
	case TT_TR_RANDPERM: {
		/* one permutation for the whole network, from its own
		 * stream (stream number n is no PE's) */
		tt_rng r;

		tt_rng_seed(&r, tr->seed, n);
		for (pe = 0; pe < n; pe++)
			tr->dest[pe] = pe;
		for (pe = n - 1; pe > 0; pe--) {
			uint32_t t;

			j = tt_rng_below(&r, pe + 1);
			t = tr->dest[pe];
			tr->dest[pe] = tr->dest[j];
			tr->dest[j] = t;
		}
		break;
	}
	default:
		free(tr->dest);
		tr->dest = NULL;
		return 0;
	}
	for (pe = 0; pe < n; pe++)
		if (tr->dest[pe] == pe)
			tr->dest[pe] = UINT32_MAX;
	return 0;
}

static int
build_flows(tt_traffic *tr, char *err, size_t errsz)
{
	uint32_t n = tr->npes, pe;
	size_t i;

	if (tr->nflows == 0)
		return tt_errf(err, errsz, "traffic flows needs at least one "
		    "--flow SRC:DST");
	tr->flow_off = calloc((size_t)n + 1, sizeof(uint32_t));
	tr->flow_list = malloc(sizeof(uint32_t) * tr->nflows);
	if (tr->flow_off == NULL || tr->flow_list == NULL)
		return tt_errf(err, errsz, "out of memory");
	for (i = 0; i < tr->nflows; i++) {
		if (tr->flow_src[i] >= n || tr->flow_dst[i] >= n)
			return tt_errf(err, errsz, "flow %zu: PE out of range "
			    "(the network has %u PEs)", i + 1, (unsigned)n);
		if (tr->flow_src[i] == tr->flow_dst[i])
			return tt_errf(err, errsz, "flow %zu: source and "
			    "destination are the same PE %u", i + 1,
			    (unsigned)tr->flow_src[i]);
		tr->flow_off[tr->flow_src[i] + 1]++;
	}
	for (pe = 0; pe < n; pe++)
		tr->flow_off[pe + 1] += tr->flow_off[pe];
	{
		uint32_t *fill = calloc(n, sizeof(uint32_t));

		if (fill == NULL)
			return tt_errf(err, errsz, "out of memory");
		for (i = 0; i < tr->nflows; i++) {
			pe = tr->flow_src[i];
			tr->flow_list[tr->flow_off[pe] + fill[pe]++] = tr->flow_dst[i];
		}
		free(fill);
	}
	return 0;
}

static int
build_hotset(tt_traffic *tr, char *err, size_t errsz)
{
	const tt_net *net = tr->net;
	size_t i;

	if (tr->hot_fraction < 0 || tr->hot_fraction > 1)
		return tt_errf(err, errsz, "hot fraction must be 0..1, got %g",
		    tr->hot_fraction);
	if (tr->nhot == 0) {
		/* the PE on card 0 of the node nearest the centre */
		int c[TT_MAX_DIMS], d;

		for (d = 0; d < net->n; d++)
			c[d] = net->k[d] / 2;
		tr->hotset = malloc(sizeof(uint32_t));
		if (tr->hotset == NULL)
			return tt_errf(err, errsz, "out of memory");
		tr->hotset[0] = tt_card_of(net, tt_node_index(net, c), 0);
		tr->nhotset = 1;
		return 0;
	}
	tr->hotset = malloc(sizeof(uint32_t) * tr->nhot);
	if (tr->hotset == NULL)
		return tt_errf(err, errsz, "out of memory");
	for (i = 0; i < tr->nhot; i++) {
		if (tr->hot[i] >= tr->npes)
			return tt_errf(err, errsz, "hot PE %u is out of range "
			    "(the network has %u PEs)", (unsigned)tr->hot[i],
			    (unsigned)tr->npes);
		tr->hotset[i] = tr->hot[i];
	}
	tr->nhotset = (uint32_t)tr->nhot;
	return 0;
}

int
tt_traffic_init(tt_traffic *tr, const tt_net *net, char *err, size_t errsz)
{
	uint32_t pe;
	double p;

	tr->net = net;
	tr->npes = net->ncards;
	tr->dest = tr->flow_off = tr->flow_list = tr->hotset = NULL;
	tr->rng = NULL;
	tr->next_gen = NULL;
	if (tr->packet_flits < 1)
		return tt_errf(err, errsz, "packet_flits must be at least 1");
	if (!(tr->load > 0) || tr->load > tr->packet_flits)
		return tt_errf(err, errsz, "load %g is not an offered load: use "
		    "flits/cycle/PE above 0 and at most %d (one packet every "
		    "cycle)", tr->load, tr->packet_flits);
	if (tr->npes < 2)
		return tt_errf(err, errsz, "traffic needs at least two PEs");
	p = tr->load / tr->packet_flits;
	tr->log1mp = p >= 1.0 ? 0.0 : log1p(-p);
	if ((tr->pattern == TT_TR_FLOWS ? build_flows(tr, err, errsz) :
	    build_dest(tr, err, errsz)) < 0)
		goto fail;
	if (tr->pattern == TT_TR_HOTSPOT && build_hotset(tr, err, errsz) < 0)
		goto fail;
	tr->rng = malloc(sizeof(tt_rng) * tr->npes);
	tr->next_gen = malloc(sizeof(uint64_t) * tr->npes);
	if (tr->rng == NULL || tr->next_gen == NULL) {
		tt_errf(err, errsz, "out of memory");
		goto fail;
	}
	tr->active_pes = 0;
	for (pe = 0; pe < tr->npes; pe++) {
		tt_rng_seed(&tr->rng[pe], tr->seed, pe);
		tr->next_gen[pe] = 0;
		if (tr->dest != NULL ? tr->dest[pe] != UINT32_MAX :
		    tr->flow_off != NULL ? tr->flow_off[pe + 1] > tr->flow_off[pe] : 1)
			tr->active_pes++;
	}
	return 0;
fail:
	tt_traffic_free(tr);
	return -1;
}

void
tt_traffic_free(tt_traffic *tr)
{
	free(tr->dest);
	free(tr->flow_off);
	free(tr->flow_list);
	free(tr->hotset);
	free(tr->rng);
	free(tr->next_gen);
	tr->dest = tr->flow_off = tr->flow_list = tr->hotset = NULL;
	tr->rng = NULL;
	tr->next_gen = NULL;
}

double
tt_traffic_offered(const tt_traffic *tr)
{
	return tr->load * (double)tr->active_pes / (double)tr->npes;
}

static uint32_t
uniform_other(const tt_traffic *tr, tt_rng *r, uint32_t pe, uint32_t n)
{
	uint32_t d;

	if (tr->uniform_self)
		return tt_rng_below(r, n);
	d = tt_rng_below(r, n - 1);
	return d >= pe ? d + 1 : d;
}

/*
 * The next packet of pe: a geometric gap (the Bernoulli process seen from
 * packet to packet), then a destination, both from pe's own stream.
 */
static int
traffic_next(void *ctx, uint32_t pe, uint64_t now, tt_srcpkt *pk)
{
	tt_traffic *tr = ctx;
	tt_rng *r = &tr->rng[pe];
	uint64_t t = tr->next_gen[pe];
	uint32_t d;

	if (tr->dest != NULL) {
		if (tr->dest[pe] == UINT32_MAX)
			return TT_SRC_DONE;
	} else if (tr->flow_off != NULL &&
	    tr->flow_off[pe + 1] == tr->flow_off[pe]) {
		return TT_SRC_DONE;
	}
	if (tr->log1mp < 0) {
		double u = 1.0 - tt_rng_unit(r);   /* (0, 1] */
		double g = floor(log(u) / tr->log1mp);

		if (g > 1e15)
			return TT_SRC_DONE;
		t += (uint64_t)g;
	}
	if (t >= tr->stop)
		return TT_SRC_DONE;
	tr->next_gen[pe] = t + 1;
	switch (tr->pattern) {
	case TT_TR_UNIFORM:
		d = uniform_other(tr, r, pe, tr->npes);
		break;
	case TT_TR_HOTSPOT:
		/* seed 003 §4: with probability hot_fraction to a hot PE,
		 * otherwise uniform; a hot PE never sends to itself */
		if (tt_rng_unit(r) < tr->hot_fraction) {
			d = tr->hotset[tt_rng_below(r, tr->nhotset)];
			if (d == pe)
				d = uniform_other(tr, r, pe, tr->npes);
		} else {
			d = uniform_other(tr, r, pe, tr->npes);
		}
		break;
	case TT_TR_FLOWS: {
		uint32_t lo = tr->flow_off[pe], cnt = tr->flow_off[pe + 1] - lo;

		d = tr->flow_list[lo + (cnt > 1 ? tt_rng_below(r, cnt) : 0)];
		break;
	}
	default:
		d = tr->dest[pe];
		break;
	}
	(void)now;
	pk->gen = t;
	pk->dst = d;
	return TT_SRC_PACKET;
}

tt_source
tt_traffic_source(tt_traffic *tr)
{
	tt_source s = {traffic_next, tr};

	return s;
}
