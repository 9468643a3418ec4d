/*
 * The hardware model in nanoseconds (twintorus/model.h): its YAML section,
 * read by lib/formats/config.c's machinery for the cluster file and for a model
 * file alike, written back, layered and turned into cycles.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/cfg.h"
#include "support/errf.h"
#include "twintorus/model.h"

/* The YAML keys, in the order of the TT_MODEL_* bits. */
static const char *const model_keys[TT_MODEL_NKEYS] = {
	"link_gbps", "router_ns", "link_ns", "send_ns", "recv_ns",
	"vc_bytes", "internal_vc_bytes", "flit_bytes", "packet_flits",
	"host_ns", "store_forward", "shape_gbps", "burst_bytes",
	"segment_bytes", "frame_header_bytes", "message_header_bytes"
};

/* Key i holds a real (the rest are whole numbers: buffers, granularity). */
static int
is_real(int i)
{
	return i < 5 || i == 9 || i == 11;
}

const char *
tt_model_key_name(unsigned bit)
{
	int i;

	for (i = 0; i < TT_MODEL_NKEYS; i++)
		if (bit == 1u << i)
			return model_keys[i];
	return NULL;
}

void
tt_model_init(tt_model *m)
{
	memset(m, 0, sizeof(*m));
}

/* Key i's value as a double (all are numbers), and back. */
static double *
model_real(tt_model *m, int i)
{
	double *r[] = {&m->link_gbps, &m->router_ns, &m->link_ns, &m->send_ns,
	    &m->recv_ns};

	if (i == 9)
		return &m->host_ns;
	if (i == 11)
		return &m->shape_gbps;
	return i < 5 ? r[i] : NULL;
}

static int *
model_int(tt_model *m, int i)
{
	int *n[] = {&m->vc_bytes, &m->internal_vc_bytes, &m->flit_bytes,
	    &m->packet_flits};

	if (i == 10)
		return &m->store_forward;
	if (i == 12)
		return &m->burst_bytes;
	if (i == 13)
		return &m->segment_bytes;
	if (i == 14)
		return &m->frame_header_bytes;
	if (i == 15)
		return &m->message_header_bytes;
	return i >= 5 && i <= 8 ? n[i - 5] : NULL;
}

void
tt_model_over(tt_model *dst, const tt_model *src)
{
	tt_model s = *src;
	int i;

	for (i = 0; i < TT_MODEL_NKEYS; i++) {
		if (!(src->set & (1u << i)))
			continue;
		if (is_real(i))
			*model_real(dst, i) = *model_real(&s, i);
		else
			*model_int(dst, i) = *model_int(&s, i);
		dst->set |= 1u << i;
	}
}

void
tt_model_from_config(const tt_config *cfg, tt_model *m)
{
	tt_model_init(m);
	m->link_gbps = cfg->params.link_gbps;
	m->flit_bytes = cfg->params.flit_bytes;
	m->packet_flits = cfg->params.packet_flits;
	m->set = cfg->network_set & (TT_MODEL_LINK_GBPS | TT_MODEL_FLIT_BYTES |
	    TT_MODEL_PACKET_FLITS);
	if (cfg->credit_vc_bytes > 0) {
		m->vc_bytes = cfg->credit_vc_bytes;
		m->set |= TT_MODEL_VC_BYTES;
	}
	if (cfg->credit_int_vc_bytes > 0) {
		m->internal_vc_bytes = cfg->credit_int_vc_bytes;
		m->set |= TT_MODEL_INTERNAL_VC_BYTES;
	}
}

void
tt_model_fill(tt_model *m, int frames)
{
	if (!(m->set & TT_MODEL_LINK_GBPS))
		m->link_gbps = TT_LINK_GBPS_DEFAULT;
	if (!frames) {
		if (!(m->set & TT_MODEL_FLIT_BYTES))
			m->flit_bytes = TT_FLIT_BYTES_DEFAULT;
		if (!(m->set & TT_MODEL_PACKET_FLITS))
			m->packet_flits = TT_PACKET_FLITS_DEFAULT;
		return;
	}
	/* a packet holds a frame of the trace: flits of the smallest
	 * Ethernet frame, as many as a 1500-byte MTU frame takes */
	if (!(m->set & TT_MODEL_FLIT_BYTES))
		m->flit_bytes = TT_MODEL_FLIT_BYTES_FRAME;
	if (!(m->set & TT_MODEL_PACKET_FLITS)) {
		m->packet_flits = (TT_MODEL_FRAME_BYTES + m->flit_bytes - 1) /
		    m->flit_bytes;
		if (m->packet_flits > TT_PACKET_FLITS_MAX)
			m->packet_flits = TT_PACKET_FLITS_MAX;
	}
	/* such a packet does not fit the seed model's 128 flits a port
	 * split among 4 to 8 VCs: ttd's buffer per VC */
	if (!(m->set & TT_MODEL_VC_BYTES))
		m->vc_bytes = TT_MODEL_VC_BYTES_DEFAULT;
	if (!(m->set & TT_MODEL_INTERNAL_VC_BYTES))
		m->internal_vc_bytes = TT_MODEL_VC_BYTES_DEFAULT;
}

/* ---- YAML ---- */

/* key i in range, into m; -1 reported */
static int
model_key(struct cfg_ctx *cx, const struct cfg_val *v, tt_model *m, int i)
{
	const int gbps = i == 0 || i == 11;
	double lo = gbps ? TT_LINK_GBPS_MIN : 0;
	double hi = gbps ? TT_LINK_GBPS_MAX : TT_MODEL_NS_MAX;
	char qb[64];
	double x;

	if (i == 10)
		return cfg_bool(cx, v, model_int(m, i));
	if (!is_real(i)) {
		/* buffers as ttd's credits:; granularity as network:'s */
		if (i <= 6)
			return cfg_int(cx, v, TT_CREDIT_BYTES_MIN,
			    TT_CREDIT_BYTES_MAX, model_int(m, i));
		if (i == 12)
			return cfg_int(cx, v, 1, TT_MODEL_BURST_BYTES_MAX,
			    model_int(m, i));
		/* a frame's payload and headers, as IP's lengths go */
		if (i >= 13)
			return cfg_int(cx, v, i == 13 ? 1 : 0, 65535,
			    model_int(m, i));
		return cfg_int(cx, v, 1, i == 7 ? TT_FLIT_BYTES_MAX :
		    TT_PACKET_FLITS_MAX, model_int(m, i));
	}
	if (cfg_double(cx, v, &x) < 0)
		return -1;
	if (!(x >= lo && x <= hi)) {
		cfg_err(cx, &v->mark, "%s: %s is out of range (%g..%g%s)",
		    v->path, cfg_number(v->node, qb, sizeof(qb)), lo, hi,
		    gbps ? " Gb/s" : " ns");
		return -1;
	}
	*model_real(m, i) = x;
	return 0;
}

void
cfg_model(struct cfg_ctx *cx, const struct cfg_val *v, tt_model *m)
{
	struct cfg_key keys[TT_MODEL_NKEYS];
	char qb[64];
	int i;

	if (v->node->type != YAML_MAPPING_NODE) {
		cfg_err(cx, &v->mark, "model: expected a mapping with keys "
		    "link_gbps, router_ns, link_ns, send_ns, recv_ns, vc_bytes, "
		    "internal_vc_bytes, flit_bytes, packet_flits, host_ns, "
		    "store_forward, shape_gbps, burst_bytes, segment_bytes, "
		    "frame_header_bytes, message_header_bytes; got %s",
		    cfg_describe(v->node, qb, sizeof(qb)));
		return;
	}
	cfg_keys_init(keys, TT_MODEL_NKEYS, model_keys);
	cfg_map_keys(cx, v->node, "model", keys, TT_MODEL_NKEYS);
	for (i = 0; i < TT_MODEL_NKEYS; i++)
		if (keys[i].key != NULL && model_key(cx, &keys[i].val, m, i) == 0)
			m->set |= 1u << i;
}

/* A model file's top level: model: alone. */
static void
model_top(struct cfg_ctx *cx, yaml_node_t *root, void *arg)
{
	static const char *const names[] = {"model"};
	struct cfg_key keys[1];
	char qb[64];

	if (root->type != YAML_MAPPING_NODE) {
		cfg_err(cx, &root->start_mark, "a model file holds one "
		    "section, model:, got %s", cfg_describe(root, qb,
		    sizeof(qb)));
		return;
	}
	cfg_keys_init(keys, 1, names);
	cfg_map_keys(cx, root, NULL, keys, 1);
	if (keys[0].key == NULL)
		cfg_err(cx, &root->start_mark, "missing section model (a model "
		    "file holds model: {link_gbps: ..., router_ns: ..., ...})");
	else
		cfg_model(cx, &keys[0].val, arg);
}

int
tt_model_load(tt_model *m, const char *path, FILE *errs)
{
	tt_model_init(m);
	return cfg_load(path, errs, "a model file holds a model: section",
	    model_top, m);
}

/* x in the fewest digits that read back as x. */
static void
real_text(double x, char *buf, size_t bufsz)
{
	int prec;

	/* whole numbers as written by hand: 250, not 2.5e+02 */
	if (x == nearbyint(x) && fabs(x) < 1e15) {
		snprintf(buf, bufsz, "%.0f", x);
		return;
	}
	for (prec = 1; prec < 17; prec++) {
		snprintf(buf, bufsz, "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			return;
	}
	snprintf(buf, bufsz, "%.17g", x);
}

int
tt_model_write(FILE *f, const tt_model *m, const char *comment)
{
	tt_model c = *m;
	const char *p, *nl;
	char num[40];
	size_t len;
	int i;

	for (p = comment; p != NULL && *p != '\0'; p = nl + 1) {
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if (len > 0)
			fprintf(f, "# %.*s\n", (int)len, p);
		else
			fprintf(f, "#\n");
		if (nl == NULL)
			break;
	}
	fprintf(f, "model:%s\n", c.set ? "" : " {}");
	for (i = 0; i < TT_MODEL_NKEYS; i++) {
		if (!(c.set & (1u << i)))
			continue;
		if (is_real(i))
			real_text(*model_real(&c, i), num, sizeof(num));
		else if (i == 10)
			snprintf(num, sizeof(num), "%s", c.store_forward ?
			    "true" : "false");
		else
			snprintf(num, sizeof(num), "%d", *model_int(&c, i));
		fprintf(f, "  %s: %s\n", model_keys[i], num);
	}
	return ferror(f) ? -1 : 0;
}

/* ---- to cycles ---- */

/* ns as cycles of cycle_ns, at least lo; -1 past max. */
static int64_t
ns_cycles(double ns, double cycle_ns, int64_t lo, int64_t max)
{
	double c = round(ns / cycle_ns);

	if (c > (double)max)
		return -1;
	return (int64_t)c < lo ? lo : (int64_t)c;
}

/* A latency key (router_ns, link_ns) as the engine's R or L: at least a
 * cycle, at most TT_LATENCY_MAX; 0, or -1 with err naming the key. */
static int
latency_cycles(const char *key, double ns, double cycle_ns, int *out,
    char *err, size_t errsz)
{
	int64_t x = ns_cycles(ns, cycle_ns, 1, TT_LATENCY_MAX);

	if (x < 0)
		return tt_errf(err, errsz, "model: %s %g is %.0f cycles of %g "
		    "ns, more than the %d the engine takes; give larger "
		    "flit_bytes (a longer cycle)", key, ns, round(ns / cycle_ns),
		    cycle_ns, TT_LATENCY_MAX);
	*out = (int)x;
	return 0;
}

/*
 * The links' token bucket in the engine's units: a refill of shape_gbps /
 * gbps flits a cycle in 1/65536 flit (at least one), and a depth of whole
 * flits that holds a packet.  None when shape_gbps is unset or not below
 * the line rate (the bucket would never hold a frame back), nor when it
 * is so near that the refill rounds to a whole flit a cycle, the line
 * rate in the engine's resolution.  0, or -1 with err.
 */
static int
shape_cycles(const tt_model *m, int flit, double gbps, int packet,
    tt_model_cycles *k, char *err, size_t errsz)
{
	double r;

	if (!(m->set & TT_MODEL_SHAPE_GBPS) || !(m->shape_gbps < gbps))
		return 0;
	r = round(65536.0 * m->shape_gbps / gbps);
	if (r >= 65536)
		return 0;       /* as fast as the line, to the engine's grain */
	k->shape_rate = r < 1 ? 1 : (uint32_t)r;
	if (!(m->set & TT_MODEL_BURST_BYTES)) {
		k->shape_burst = (uint32_t)packet;
		return 0;
	}
	k->shape_burst = (uint32_t)(m->burst_bytes / flit);
	if (k->shape_burst < (uint32_t)packet)
		return tt_errf(err, errsz, "model: burst_bytes %d holds %u "
		    "flits of %d bytes, less than a packet (%d flits); a "
		    "bucket must hold a whole frame", m->burst_bytes,
		    k->shape_burst, flit, packet);
	return 0;
}

int
tt_model_apply(const tt_model *m, tt_simparams *p, tt_model_cycles *c,
    char *err, size_t errsz)
{
	tt_model_cycles k;
	int flit = m->set & TT_MODEL_FLIT_BYTES || m->flit_bytes > 0 ?
	    m->flit_bytes : TT_FLIT_BYTES_DEFAULT;
	double gbps = m->set & TT_MODEL_LINK_GBPS || m->link_gbps > 0 ?
	    m->link_gbps : TT_LINK_GBPS_DEFAULT;
	int packet = m->packet_flits > 0 ? m->packet_flits : p->net.packet_flits;

	memset(&k, 0, sizeof(k));
	if (flit < 1 || !(gbps > 0))
		return tt_errf(err, errsz, "model: flit_bytes %d at link_gbps "
		    "%g make no cycle", flit, gbps);
	k.cycle_ns = tt_cycle_ns(flit, gbps);
	if ((m->set & TT_MODEL_ROUTER_NS) && latency_cycles("router_ns",
	    m->router_ns, k.cycle_ns, &k.router, err, errsz) < 0)
		return -1;
	if ((m->set & TT_MODEL_LINK_NS) && latency_cycles("link_ns",
	    m->link_ns, k.cycle_ns, &k.link, err, errsz) < 0)
		return -1;
	/* 1e10 ns of at least a 1e-6 ns cycle fit 64 bits; the hosts'
	 * turnaround half at each end */
	if (m->set & (TT_MODEL_SEND_NS | TT_MODEL_HOST_NS))
		k.send = (uint64_t)ns_cycles((m->set & TT_MODEL_SEND_NS ?
		    m->send_ns : 0) + (m->set & TT_MODEL_HOST_NS ?
		    m->host_ns / 2 : 0), k.cycle_ns, 0, INT64_MAX);
	if (m->set & (TT_MODEL_RECV_NS | TT_MODEL_HOST_NS))
		k.recv = (uint64_t)ns_cycles((m->set & TT_MODEL_RECV_NS ?
		    m->recv_ns : 0) + (m->set & TT_MODEL_HOST_NS ?
		    m->host_ns / 2 : 0), k.cycle_ns, 0, INT64_MAX);
	/* virtual cut-through: a VC's buffer takes a whole packet */
	if (m->vc_bytes > 0) {
		k.vc_flits = m->vc_bytes / flit;
		if (k.vc_flits < packet)
			return tt_errf(err, errsz, "model: vc_bytes %d holds %d "
			    "flits of %d bytes, less than a packet (%d flits); "
			    "a buffer must hold a whole packet", m->vc_bytes,
			    k.vc_flits, flit, packet);
	}
	if (m->internal_vc_bytes > 0) {
		k.int_vc_flits = m->internal_vc_bytes / flit;
		if (k.int_vc_flits < packet)
			return tt_errf(err, errsz, "model: internal_vc_bytes %d "
			    "holds %d flits of %d bytes, less than a packet (%d "
			    "flits); a buffer must hold a whole packet",
			    m->internal_vc_bytes, k.int_vc_flits, flit, packet);
	}
	if (shape_cycles(m, flit, gbps, packet, &k, err, errsz) < 0)
		return -1;
	if (m->packet_flits > 0)
		p->net.packet_flits = m->packet_flits;
	/* the PE's port takes buffer_flits split among its VCs: room for a
	 * packet on each of up to TT_MODEL_PE_VCS VCs when the model's
	 * packets (fine flits make a frame's packet long) do not fit the
	 * seed model's default buffer; a buffer_flits given otherwise stays */
	if ((m->set & TT_MODEL_PACKET_FLITS) &&
	    p->net.buffer_flits == TT_BUFFER_FLITS_DEFAULT &&
	    p->net.buffer_flits < TT_MODEL_PE_VCS * p->net.packet_flits)
		p->net.buffer_flits = TT_MODEL_PE_VCS * p->net.packet_flits;
	if (k.router > 0)
		p->router_latency = k.router;
	if (k.link > 0)
		p->link_latency = k.link;
	if (m->set & (TT_MODEL_SEND_NS | TT_MODEL_HOST_NS))
		p->send_overhead = k.send;
	if (m->set & (TT_MODEL_RECV_NS | TT_MODEL_HOST_NS))
		p->recv_overhead = k.recv;
	if (m->set & TT_MODEL_STORE_FORWARD)
		p->store_forward = m->store_forward;
	if (k.vc_flits > 0)
		p->vc_flits = k.vc_flits;
	if (k.int_vc_flits > 0)
		p->int_vc_flits = k.int_vc_flits;
	p->shape_rate = k.shape_rate;
	p->shape_burst = k.shape_burst;
	if (c != NULL)
		*c = k;
	return 0;
}
