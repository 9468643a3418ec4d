/*
 * The option groups every command shares: the network (a YAML file, then
 * --dims, --ports, --deadlock and --plain over it), the output (--json,
 * --csv) and the link (--link-gbps, --flit-bytes); and the one way a
 * network is named.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "twintorus/json.h"
#include "ttsim.h"

const optdef netopts_flags[] = {
	OPT_TITLE("network (over FILE.yaml's; default a 3DT 4x4x4, D, vc):"),
	OPT_VAL("dims", OPT_DIMS, "K,K,...",
	    "nodes per dimension, 2 to 8 dimensions"),
	OPT_VAL("ports", OPT_PORTS, "C",
	    "the port configuration: A..J (3 dimensions), best (C_Best), or all "
	    "where a command compares them"),
	OPT_VAL("deadlock", OPT_DEADLOCK, "S", "vc, bubble or none"),
	OPT_FLAG("plain", OPT_PLAIN,
	    "one card per node, 2n ports: the ordinary torus"),
	OPT_VAL("topology", OPT_TOPOLOGY, "SPEC",
	    "a generated network: pruned:k=8, msn:k=8, mh3dt:m=4,n=4, tesh:L=2, "
	    "twin:8x8x8 (ttsim(1))"),
	OPT_END
};

/* For the commands that route (netopts_take takes them too). */
const optdef netopts_rule_flags[] = {
	OPT_TITLE("rules (the seed model's first; the others match another "
	    "simulator):"),
	OPT_VAL("type1-vc", OPT_TYPE1_VC, "port|room",
	    "a type-1 packet's internal-link VC: by the port it leaves the "
	    "other card by (seed 000 §7.1 footnote 5), or any of its class, "
	    "the emptiest"),
	OPT_VAL("ties", OPT_TIES, "plus|random",
	    "a distance-k/2 tie: always +, or drawn per packet (verify: both "
	    "ways)"),
	OPT_VAL("ring-vc", OPT_RING_VC, "hop|entry",
	    "a ring's VC class: per hop (Alg. 4), or fixed when the packet "
	    "enters the ring"),
	OPT_END
};

/*
 * The model's rules a flag can change (tt_netspec's t1_vc, ties, ring_vc):
 * each value's name, the seed model's first.
 */
static const char *const type1_vc_names[] = {"port", "room"};
static const char *const ties_names[] = {"plus", "random"};
static const char *const ring_vc_names[] = {"hop", "entry"};

static int
rule_parse(const struct optval *v, const char *const *names, int *out)
{
	int i;

	for (i = 0; i < 2; i++)
		if (strcmp(v->value, names[i]) == 0) {
			*out = i;
			return 0;
		}
	fprintf(stderr, "ttsim %s: %s: '%s' is not a choice; use %s or %s\n",
	    v->cmd, v->flag, v->value, names[0], names[1]);
	return -1;
}

const optdef outopts_json[] = {
	OPT_TITLE("output:"),
	OPT_FLAG("json", OPT_JSON, "JSON instead of the table (doc/json.md)"),
	OPT_END
};

const optdef outopts_json_csv[] = {
	OPT_TITLE("output (a table by default):"),
	OPT_FLAG("json", OPT_JSON, "JSON (doc/json.md)"),
	OPT_FLAG("csv", OPT_CSV, "CSV, a header line first"),
	OPT_END
};

const optdef linkopts_flags[] = {
	OPT_TITLE("link (over the YAML network: section; a cycle is "
	    "flit_bytes * 8 / link_gbps ns):"),
	OPT_VALDEF("link-gbps", OPT_LINK_GBPS, "G", "link speed in Gb/s",
	    TT_LINK_GBPS_DEFAULT),
	OPT_VALDEF("flit-bytes", OPT_FLIT_BYTES, "N",
	    "bytes a link carries in a cycle", TT_FLIT_BYTES_DEFAULT),
	OPT_END
};

void
netopts_init(netopts *o)
{
	memset(o, 0, sizeof(*o));
	tt_config_default(&o->cfg);
	tt_netspec_default(&o->spec);
}

int
netopts_file(netopts *o, const char *path, const char *cmd)
{
	if (o->file != NULL) {
		fprintf(stderr, "ttsim %s: one config file only (got %s and %s)\n",
		    cmd, o->file, path);
		return -1;
	}
	o->file = path;
	o->given = 1;
	return 0;
}

int
netopts_is_yaml(const char *path)
{
	size_t len = strlen(path);

	return (len > 5 && strcmp(path + len - 5, ".yaml") == 0) ||
	    (len > 4 && strcmp(path + len - 4, ".yml") == 0);
}

int
netopts_take(void *state, const struct optval *v)
{
	netopts *o = state;

	o->given = 1;
	switch (v->id) {
	case OPT_ARG:
		return netopts_file(o, v->value, v->cmd);
	case OPT_DIMS:
		o->dims_flag = v->value;
		break;
	case OPT_PORTS:
		o->ports_flag = v->value;
		break;
	case OPT_DEADLOCK:
		o->deadlock_flag = v->value;
		break;
	case OPT_PLAIN:
		o->plain_flag = 1;
		break;
	case OPT_TOPOLOGY:
		o->topology_flag = v->value;
		break;
	case OPT_TYPE1_VC:
		return rule_parse(v, type1_vc_names, &o->t1_vc);
	case OPT_TIES:
		return rule_parse(v, ties_names, &o->ties);
	case OPT_RING_VC:
		return rule_parse(v, ring_vc_names, &o->ring_vc);
	}
	return 0;
}

int
outopts_take(void *state, const struct optval *v)
{
	outopts *o = state;

	if (v->id == OPT_JSON)
		o->json = 1;
	else
		o->csv = 1;
	return 0;
}

int
linkopts_take(void *state, const struct optval *v)
{
	linkopts *o = state;
	char what[96];

	if (v->id == OPT_FLIT_BYTES)
		return opt_int(v->cmd, v->flag, v->value, 1, TT_FLIT_BYTES_MAX,
		    &o->flit_bytes);
	snprintf(what, sizeof(what), "a link speed in Gb/s from %g to %g",
	    TT_LINK_GBPS_MIN, TT_LINK_GBPS_MAX);
	return opt_real(v->cmd, v->flag, v->value, TT_LINK_GBPS_MIN,
	    TT_LINK_GBPS_MAX, what, &o->gbps);
}

void
linkopts_resolve(const linkopts *l, const tt_config *cfg, tt_netparams *out)
{
	*out = cfg->params;
	if (l->gbps > 0)
		out->link_gbps = l->gbps;
	if (l->flit_bytes > 0)
		out->flit_bytes = l->flit_bytes;
}

/*
 * --topology SPEC over the file's network: a torus ("twin:8x8x8") takes
 * --ports and --plain as ever; a generated network has neither dims nor
 * port configuration, so those flags are refused with it.
 */
static int
netopts_topology(netopts *o, const char *cmd)
{
	char err[512];

	if (tt_netspec_parse(&o->spec, o->topology_flag, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim %s: --topology %s: %s\n", cmd,
		    o->topology_flag, err);
		return -1;
	}
	if (o->spec.topo != TT_TOPO_TORUS && (o->dims_flag != NULL ||
	    o->ports_flag != NULL || o->plain_flag)) {
		fprintf(stderr, "ttsim %s: --topology %s: %s describes a torus "
		    "and this is not one; give the size in the spec\n", cmd,
		    o->topology_flag,
		    o->dims_flag != NULL ? "--dims" : o->ports_flag != NULL ?
		    "--ports" : "--plain");
		return -1;
	}
	return 0;
}

int
netopts_finish(netopts *o, const char *cmd)
{
	char err[512];
	int errors = 0;

	if (o->file != NULL) {
		if (tt_config_load(&o->cfg, o->file, stderr) != 0)
			return -1;
		o->spec = o->cfg.spec;
	}
	if (o->topology_flag != NULL && netopts_topology(o, cmd) < 0)
		return -1;
	o->spec.t1_vc = (enum tt_t1vc)o->t1_vc;
	o->spec.ties = (enum tt_ties)o->ties;
	o->spec.ring_vc = (enum tt_ringvc)o->ring_vc;
	if (o->dims_flag != NULL &&
	    tt_netspec_set_dims(&o->spec, o->dims_flag, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim %s: --dims %s: %s\n", cmd, o->dims_flag,
		    err);
		errors++;
	}
	if (o->deadlock_flag != NULL &&
	    tt_deadlock_parse(o->deadlock_flag, &o->spec.deadlock) < 0) {
		fprintf(stderr, "ttsim %s: --deadlock: '%s' is not a scheme: use "
		    "vc, bubble or none\n", cmd, o->deadlock_flag);
		errors++;
	}
	if (o->plain_flag) {
		if (o->ports_flag != NULL) {
			fprintf(stderr, "ttsim %s: --ports and --plain do not go "
			    "together: a plain torus has one card per node and "
			    "no port configuration\n", cmd);
			errors++;
		}
		o->spec.twin = 0;
	}
	if (o->ports_flag != NULL && !o->plain_flag) {
		if (!o->spec.twin) {
			fprintf(stderr, "ttsim %s: --ports: %s describes a plain "
			    "torus (twin: false), which has no port "
			    "configuration\n", cmd, o->file ? o->file : "the network");
			errors++;
		} else if (strcmp(o->ports_flag, "all") == 0) {
			o->ports_all = 1;
		} else if (tt_netspec_set_ports(&o->spec, o->ports_flag, err,
		    sizeof(err)) < 0) {
			fprintf(stderr, "ttsim %s: --ports: %s\n", cmd, err);
			errors++;
		}
	}
	if (errors == 0 && !o->ports_all &&
	    tt_netspec_check(&o->spec, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim %s: %s\n", cmd, err);
		errors++;
	}
	return errors ? -1 : 0;
}

/*
 * --ports all: A..J for three dimensions (seed 000 Table 1); otherwise every
 * split of the 2n ports into two cards of n, up to swapping the cards, which
 * we fix by keeping d0+ on card 0: C(2n-1, n-1) of them (35 for n = 4, 126
 * for n = 5, seed 001 §3.3).
 */
int
netopts_specs(const netopts *o, tt_netspec **specs, size_t *count)
{
	tt_netspec *out;
	size_t m = 0, cap;
	unsigned mask;
	int n = o->spec.n, p, c;

	if (!o->ports_all) {
		out = malloc(sizeof(*out));
		if (out == NULL)
			return -1;
		out[0] = o->spec;
		*specs = out;
		*count = 1;
		return 0;
	}
	if (n == 3) {
		out = malloc(10 * sizeof(*out));
		if (out == NULL)
			return -1;
		for (c = 0; c < 10; c++) {
			out[c] = o->spec;
			out[c].ports_kind = TT_PORTS_LETTER;
			out[c].letter = (char)('A' + c);
		}
		*specs = out;
		*count = 10;
		return 0;
	}
	cap = 1;
	for (p = 0; p < 2 * n; p++)
		cap *= 2;
	out = malloc(cap / 2 * sizeof(*out));
	if (out == NULL)
		return -1;
	for (mask = 1; mask < (1u << (2 * n)); mask += 2) {
		if (__builtin_popcount(mask) != n)
			continue;
		out[m] = o->spec;
		out[m].ports_kind = TT_PORTS_CUSTOM;
		out[m].ncard[0] = out[m].ncard[1] = 0;
		for (p = 0; p < 2 * n; p++) {
			c = (mask >> p) & 1 ? 0 : 1;
			out[m].card_ports[c][out[m].ncard[c]++] = (int8_t)p;
		}
		m++;
	}
	*specs = out;
	*count = m;
	return 0;
}

static const char *
net_label(const tt_net *net, int full, char *buf, size_t bufsz)
{
	size_t len;
	int d;

	if (!tt_net_is_torus(net)) {
		len = (size_t)snprintf(buf, bufsz, "%s", tt_topo_name(net));
		if (full && len < bufsz && net->spec.ties != TT_TIES_PLUS)
			snprintf(buf + len, bufsz - len, " ties:%s",
			    ties_names[net->spec.ties]);
		return buf;
	}
	len = (size_t)snprintf(buf, bufsz, "%dD%s ", net->n, net->twin ? "T" : "");
	for (d = 0; d < net->n && len < bufsz; d++)
		len += (size_t)snprintf(buf + len, bufsz - len, "%s%d",
		    d ? "x" : "", net->k[d]);
	if (full && len < bufsz && net->twin)
		len += (size_t)snprintf(buf + len, bufsz - len, " %s",
		    net->ports_name);
	if (full && len < bufsz)
		len += (size_t)snprintf(buf + len, bufsz - len, " %s",
		    tt_deadlock_name(net->deadlock));
	/* the rules that depart from the seed model, so that such a curve
	 * is never taken for the seed model's */
	if (full && len < bufsz && net->twin && net->spec.t1_vc != TT_T1VC_PORT)
		len += (size_t)snprintf(buf + len, bufsz - len, " type1-vc:%s",
		    type1_vc_names[net->spec.t1_vc]);
	if (full && len < bufsz && net->spec.ties != TT_TIES_PLUS)
		len += (size_t)snprintf(buf + len, bufsz - len, " ties:%s",
		    ties_names[net->spec.ties]);
	if (full && len < bufsz && net->spec.ring_vc != TT_RINGVC_HOP)
		snprintf(buf + len, bufsz - len, " ring-vc:%s",
		    ring_vc_names[net->spec.ring_vc]);
	return buf;
}

const char *
net_title(const tt_net *net, char *buf, size_t bufsz)
{
	return net_label(net, 0, buf, bufsz);
}

const char *
net_name(const tt_net *net, char *buf, size_t bufsz)
{
	return net_label(net, 1, buf, bufsz);
}

const char *
net_card_ports(const tt_net *net, int side, char *buf, size_t bufsz)
{
	char pb[8];
	size_t len = 0;
	int p;

	buf[0] = '\0';
	for (p = 0; p < 2 * net->n && len < bufsz; p++)
		if (net->port_card[p] == side)
			len += (size_t)snprintf(buf + len, bufsz - len, "%s%s",
			    len ? " " : "", tt_port_name(p, net->n, pb, sizeof(pb)));
	return buf;
}


void
json_card_ports(FILE *f, const tt_net *net, int side)
{
	char pb[8];
	int p, first = 1;

	fputc('[', f);
	for (p = 0; p < 2 * net->n; p++) {
		if (net->port_card[p] != side)
			continue;
		fprintf(f, "%s\"%s\"", first ? "" : ", ",
		    tt_port_name(p, net->n, pb, sizeof(pb)));
		first = 0;
	}
	fputc(']', f);
}

/*
 * The fields that name a network, shared by every command's JSON.  The
 * scheme goes under scheme_key: "deadlock" for analyze and verify,
 * "scheme" for run and sweep, where "deadlock" is the watchdog's verdict.
 */
void
json_net_fields(FILE *f, const tt_net *net, const char *scheme_key)
{
	if (!tt_net_is_torus(net)) {
		fprintf(f, "\"topology\": ");
		tt_json_string(f, tt_topo_name(net));
		fprintf(f, ", \"twin\": false, \"%s\": \"%s\"", scheme_key,
		    tt_deadlock_name(net->deadlock));
		return;
	}
	fprintf(f, "\"dims\": ");
	json_dims(f, net);
	fprintf(f, ", \"twin\": %s, \"ports\": ", net->twin ? "true" : "false");
	tt_json_string(f, net->ports_name);
	if (net->twin) {
		fprintf(f, ", \"card0\": ");
		json_card_ports(f, net, 0);
		fprintf(f, ", \"card1\": ");
		json_card_ports(f, net, 1);
	}
	fprintf(f, ", \"%s\": \"%s\"", scheme_key, tt_deadlock_name(net->deadlock));
}

void
json_net_rules(FILE *f, const tt_net *net)
{
	fprintf(f, ", \"type1_vc\": \"%s\", \"ties\": \"%s\", \"ring_vc\": \"%s\"",
	    type1_vc_names[net->spec.t1_vc], ties_names[net->spec.ties],
	    ring_vc_names[net->spec.ring_vc]);
}

void
json_dims(FILE *f, const tt_net *net)
{
	int d;

	fputc('[', f);
	for (d = 0; d < net->n; d++)
		fprintf(f, "%s%d", d ? ", " : "", net->k[d]);
	fputc(']', f);
}

int
flow_parse(const tt_net *net, const char *text, uint32_t *src, uint32_t *dst,
    const char *cmd)
{
	char buf[256], err[256], *colon;

	snprintf(buf, sizeof(buf), "%s", text);
	colon = strchr(buf, ':');
	if (colon == NULL) {
		fprintf(stderr, "ttsim %s: --flow %s: write SRC:DST, each a PE id "
		    "or x,y,z/card, e.g. 0,0,0/1:1,0,1/0\n", cmd, text);
		return -1;
	}
	*colon = '\0';
	if (tt_pe_parse(net, buf, src, err, sizeof(err)) < 0 ||
	    tt_pe_parse(net, colon + 1, dst, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim %s: --flow %s: %s\n", cmd, text, err);
		return -1;
	}
	return 0;
}

/*
 * A list of networks: split at commas, where a key=value token continues
 * the spec before it, so that "D,tesh:m=2,L=2,q=0" is two networks.
 */
int
netlist_split(char *s, char **out, int max)
{
	char *p = s, *e;
	int n = 0;

	while (*p != '\0') {
		e = strchr(p, ',');
		if (e != NULL)
			*e = '\0';
		if (*p != '\0') {
			if (n > 0 && strchr(p, '=') != NULL &&
			    strchr(p, ':') == NULL)
				p[-1] = ',';    /* back into the spec before */
			else if (n == max)
				return -1;
			else
				out[n++] = p;
		}
		if (e == NULL)
			break;
		p = e + 1;
	}
	return n;
}

int
topo_parse(const char *item, const tt_netspec *base, tt_netspec *out,
    const char *cmd, const char *flag)
{
	char dims[256], err[256], *p, *colon;

	*out = *base;
	if (!isdigit((unsigned char)item[0])) {
		/* a named network: "twin:8x8x8", "tesh:L=2" */
		if (tt_netspec_parse(out, item, err, sizeof(err)) == 0 &&
		    tt_netspec_check(out, err, sizeof(err)) == 0)
			return 0;
		fprintf(stderr, "ttsim %s: %s %s: %s\n", cmd, flag, item, err);
		return -1;
	}
	out->twin = 1;
	snprintf(dims, sizeof(dims), "%s", item);
	colon = strchr(dims, ':');
	if (colon != NULL) {
		if (strcmp(colon + 1, "plain") == 0)
			out->twin = 0;
		else if (strcmp(colon + 1, "twin") != 0) {
			fprintf(stderr, "ttsim %s: %s %s: '%s' is not a kind; use "
			    ":plain or :twin\n", cmd, flag, item, colon + 1);
			return -1;
		}
		*colon = '\0';
	}
	for (p = dims; *p; p++)
		if (*p == 'x' || *p == 'X')
			*p = ',';
	if (tt_netspec_set_dims(out, dims, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim %s: %s %s: %s\n", cmd, flag, item, err);
		return -1;
	}
	return 0;
}

/* ---- the hardware model (twintorus/model.h) ---- */

const optdef modelopts_flags[] = {
	OPT_TITLE("hardware model (ns and bytes; twintorus.yaml(5) model:, over "
	    "the file's):"),
	OPT_VAL("model", OPT_MODEL, "FILE", "a model file (model: only)"),
	OPT_VAL("router-ns", OPT_ROUTER_NS, "NS",
	    "router latency per hop; R = max(1, round(NS / cycle))"),
	OPT_VAL("link-ns", OPT_LINK_NS, "NS",
	    "link latency per hop; L = max(1, round(NS / cycle))"),
	OPT_VAL("send-ns", OPT_SEND_NS, "NS", "the sender's overhead per packet"),
	OPT_VAL("recv-ns", OPT_RECV_NS, "NS",
	    "the receiver's overhead per packet"),
	OPT_VAL("host-ns", OPT_HOST_NS, "NS",
	    "the hosts' turnaround outside a ttd trace: half of it added to "
	    "each overhead"),
	OPT_VAL("vc-bytes", OPT_VC_BYTES, "N[,M]",
	    "buffer per VC in bytes (M: the internal link's)"),
	OPT_VAL("shape-gbps", OPT_SHAPE_GBPS, "GBPS",
	    "a token bucket of this rate on every link between switches "
	    "(below the line rate)"),
	OPT_VAL("burst-bytes", OPT_BURST_BYTES, "N",
	    "that bucket's depth (default: a packet)"),
	OPT_END
};

/* --vc-bytes N (every VC) or N,M (external ports, the internal link) */
static int
vc_bytes_take(simopts *o, const struct optval *v)
{
	tt_model *m = &o->model_flags;
	char buf[64], *comma;

	snprintf(buf, sizeof(buf), "%s", v->value);
	comma = strchr(buf, ',');
	if (comma != NULL)
		*comma = '\0';
	if (opt_int(v->cmd, v->flag, buf, TT_CREDIT_BYTES_MIN,
	    TT_CREDIT_BYTES_MAX, &m->vc_bytes) < 0 ||
	    opt_int(v->cmd, v->flag, comma != NULL ? comma + 1 : buf,
	    TT_CREDIT_BYTES_MIN, TT_CREDIT_BYTES_MAX,
	    &m->internal_vc_bytes) < 0)
		return -1;
	m->set |= TT_MODEL_VC_BYTES | TT_MODEL_INTERNAL_VC_BYTES;
	return 0;
}

int
modelopts_take(void *state, const struct optval *v)
{
	simopts *o = state;
	tt_model *m = &o->model_flags;
	double *ns[] = {&m->router_ns, &m->link_ns, &m->send_ns, &m->recv_ns,
	    &m->host_ns};
	const unsigned bit[] = {TT_MODEL_ROUTER_NS, TT_MODEL_LINK_NS,
	    TT_MODEL_SEND_NS, TT_MODEL_RECV_NS, TT_MODEL_HOST_NS};
	int i;

	switch (v->id) {
	case OPT_MODEL:
		o->model_file = v->value;
		return 0;
	case OPT_VC_BYTES:
		return vc_bytes_take(o, v);
	case OPT_SHAPE_GBPS:
		if (opt_real(v->cmd, v->flag, v->value, TT_LINK_GBPS_MIN,
		    TT_LINK_GBPS_MAX, "a rate from 0.001 to 10000 Gb/s",
		    &m->shape_gbps) < 0)
			return -1;
		m->set |= TT_MODEL_SHAPE_GBPS;
		return 0;
	case OPT_BURST_BYTES:
		if (opt_int(v->cmd, v->flag, v->value, 1,
		    TT_MODEL_BURST_BYTES_MAX, &m->burst_bytes) < 0)
			return -1;
		m->set |= TT_MODEL_BURST_BYTES;
		return 0;
	}
	i = v->id - OPT_ROUTER_NS;
	if (opt_real(v->cmd, v->flag, v->value, 0, TT_MODEL_NS_MAX,
	    "nanoseconds from 0 to 1e10", ns[i]) < 0)
		return -1;
	m->set |= bit[i];
	return 0;
}

/* The flags that say the same thing twice. */
static int
model_flag_conflicts(const simopts *o)
{
	const unsigned set = o->model_flags.set;

	if (o->router_set && (set & TT_MODEL_ROUTER_NS)) {
		fprintf(stderr, "ttsim %s: --router-latency (cycles) and "
		    "--router-ns say the same; give one\n", o->cmd);
		return -1;
	}
	if (o->link_set && (set & TT_MODEL_LINK_NS)) {
		fprintf(stderr, "ttsim %s: --link-latency (cycles) and "
		    "--link-ns say the same; give one\n", o->cmd);
		return -1;
	}
	if (o->buffer_set && (set & TT_MODEL_VC_BYTES)) {
		fprintf(stderr, "ttsim %s: --buffer-flits (a port's, split "
		    "among its VCs) and --vc-bytes (each VC's) do not go "
		    "together; give one\n", o->cmd);
		return -1;
	}
	return 0;
}

/* c from the engine's parameters, whichever layer gave them */
static void
cycles_of(const tt_simparams *p, tt_model_cycles *c)
{
	c->router = p->router_latency;
	c->link = p->link_latency;
	c->send = p->send_overhead;
	c->recv = p->recv_overhead;
	c->vc_flits = p->vc_flits;
	c->int_vc_flits = p->int_vc_flits;
}

/* The latencies and overheads in ns as the engine runs them: the
 * model's where a layer gave them, else the cycles' (flags, defaults). */
static void
model_pin(tt_model *m, const tt_simparams *p, double cycle_ns)
{
	if (!(m->set & TT_MODEL_ROUTER_NS))
		m->router_ns = p->router_latency * cycle_ns;
	if (!(m->set & TT_MODEL_LINK_NS))
		m->link_ns = p->link_latency * cycle_ns;
	/* the overheads hold half of host_ns each (tt_model_apply()) */
	if (!(m->set & TT_MODEL_SEND_NS))
		m->send_ns = m->set & TT_MODEL_HOST_NS ? 0 :
		    (double)p->send_overhead * cycle_ns;
	if (!(m->set & TT_MODEL_RECV_NS))
		m->recv_ns = m->set & TT_MODEL_HOST_NS ? 0 :
		    (double)p->recv_overhead * cycle_ns;
}

/*
 * What tt_model_apply() refused.  A bucket below a packet is named where
 * its depth came from, the top layer that gave it: --burst-bytes, the
 * --model file or the cluster file (their message names the model key,
 * "model: burst_bytes 10 holds ...").
 */
static void
model_refused(const simopts *o, const tt_config *cfg, const tt_model *file,
    const tt_model *flags, const char *err)
{
	static const char key[] = "model: burst_bytes ";
	const char *rest = err + sizeof(key) - 1;

	if (strncmp(err, key, sizeof(key) - 1) != 0)
		fprintf(stderr, "ttsim %s: %s\n", o->cmd, err);
	else if (flags->set & TT_MODEL_BURST_BYTES)
		fprintf(stderr, "ttsim %s: --burst-bytes %s\n", o->cmd, rest);
	else if (file->set & TT_MODEL_BURST_BYTES)
		fprintf(stderr, "ttsim %s: %s: %s\n", o->cmd, o->model_file,
		    err);
	else if (cfg != NULL && cfg->path[0] != '\0')
		fprintf(stderr, "ttsim %s: %s: %s\n", o->cmd, cfg->path, err);
	else
		fprintf(stderr, "ttsim %s: %s\n", o->cmd, err);
}

int
simopts_resolve(simopts *o, const tt_config *cfg, const linkopts *link)
{
	tt_model m, file, flags = o->model_flags;
	char err[512];
	int frames;

	simopts_apply_config(o, cfg);
	if (model_flag_conflicts(o) < 0)
		return -1;
	tt_model_init(&file);
	if (o->model_file != NULL &&
	    tt_model_load(&file, o->model_file, stderr) != 0)
		return -1;
	/* the flags as model keys: the link's, the packet's */
	if (link != NULL && link->gbps > 0) {
		flags.link_gbps = link->gbps;
		flags.set |= TT_MODEL_LINK_GBPS;
	}
	if (link != NULL && link->flit_bytes > 0) {
		flags.flit_bytes = link->flit_bytes;
		flags.set |= TT_MODEL_FLIT_BYTES;
	}
	if (o->packet_set) {
		flags.packet_flits = o->p.net.packet_flits;
		flags.set |= TT_MODEL_PACKET_FLITS;
	}
	/* a latency in cycles given as a flag beats any layer's ns */
	tt_model_from_config(cfg, &m);
	tt_model_over(&m, &cfg->model);
	tt_model_over(&m, &file);
	tt_model_over(&m, &flags);
	frames = ((cfg->model.set | file.set) & TT_MODEL_LINK_GBPS) != 0;
	if ((m.set & TT_MODEL_BURST_BYTES) && !(m.set & TT_MODEL_SHAPE_GBPS)) {
		fprintf(stderr, "ttsim %s: burst_bytes %d%s is a token bucket's "
		    "depth, but nothing gives its rate: add --shape-gbps (or "
		    "shape_gbps in the model)\n", o->cmd, m.burst_bytes,
		    flags.set & TT_MODEL_BURST_BYTES ? " (--burst-bytes)" : "");
		return -1;
	}
	tt_model_fill(&m, frames);
	if (o->router_set)
		m.set &= ~(unsigned)TT_MODEL_ROUTER_NS;
	if (o->link_set)
		m.set &= ~(unsigned)TT_MODEL_LINK_NS;
	/* --buffer-flits: the seed model's buffers, not the per-VC ones */
	if (o->buffer_set) {
		m.vc_bytes = m.internal_vc_bytes = 0;
		m.set &= ~(unsigned)(TT_MODEL_VC_BYTES |
		    TT_MODEL_INTERNAL_VC_BYTES);
	}
	if (tt_model_apply(&m, &o->p, &o->mc, err, sizeof(err)) < 0) {
		model_refused(o, cfg, &file, &flags, err);
		return -1;
	}
	cycles_of(&o->p, &o->mc);
	model_pin(&m, &o->p, o->mc.cycle_ns);
	o->model = m;
	return 0;
}

int
simopts_model_at(const simopts *o, double gbps, tt_simparams *p,
    tt_model *m, tt_model_cycles *c, char *err, size_t errsz)
{
	*m = o->model;
	*p = o->p;
	/* shaped links: SPEED is the bucket's rate, the line's stays, until
	 * the line is no faster (then the links are SPEED, unshaped) */
	if ((m->set & TT_MODEL_SHAPE_GBPS) && m->shape_gbps < m->link_gbps &&
	    gbps < m->link_gbps) {
		m->shape_gbps = gbps;
		gbps = m->link_gbps;
	} else {
		m->set &= ~(unsigned)TT_MODEL_SHAPE_GBPS;
	}
	m->link_gbps = gbps;
	/* all else equal: the same ns, in this link's cycles */
	m->set |= TT_MODEL_LINK_GBPS | TT_MODEL_ROUTER_NS | TT_MODEL_LINK_NS |
	    TT_MODEL_SEND_NS | TT_MODEL_RECV_NS;
	if (tt_model_apply(m, p, c, err, errsz) < 0)
		return -1;
	cycles_of(p, c);
	return 0;
}

void
model_json(FILE *f, const tt_model *m, const tt_model_cycles *c)
{
	fprintf(f, ", \"model\": {\"link_gbps\": %.10g, \"router_ns\": %.10g, "
	    "\"link_ns\": %.10g, \"send_ns\": %.10g, \"recv_ns\": %.10g, "
	    "\"host_ns\": %.10g, \"store_forward\": %s, \"vc_bytes\": ",
	    m->link_gbps, m->router_ns, m->link_ns, m->send_ns, m->recv_ns,
	    m->set & TT_MODEL_HOST_NS ? m->host_ns : 0,
	    m->set & TT_MODEL_STORE_FORWARD && m->store_forward ? "true" :
	    "false");
	/* null: buffer_flits a port, split among its VCs */
	if (m->vc_bytes > 0)
		fprintf(f, "%d", m->vc_bytes);
	else
		fprintf(f, "null");
	fprintf(f, ", \"internal_vc_bytes\": ");
	if (m->internal_vc_bytes > 0)
		fprintf(f, "%d", m->internal_vc_bytes);
	else
		fprintf(f, "null");
	/* only where links are shaped: the bucket as the engine has it */
	if (c->shape_rate > 0)
		fprintf(f, ", \"shape_gbps\": %.10g, \"burst_bytes\": %llu",
		    m->shape_gbps, (unsigned long long)c->shape_burst *
		    (unsigned long long)m->flit_bytes);
	/* only where given: an MPI-level trace's messages framed */
	if (m->set & TT_MODEL_SEGMENT_BYTES)
		fprintf(f, ", \"segment_bytes\": %d", m->segment_bytes);
	if (m->set & TT_MODEL_FRAME_HEADER_BYTES)
		fprintf(f, ", \"frame_header_bytes\": %d", m->frame_header_bytes);
	if (m->set & TT_MODEL_MESSAGE_HEADER_BYTES)
		fprintf(f, ", \"message_header_bytes\": %d",
		    m->message_header_bytes);
	fprintf(f, ", \"flit_bytes\": %d, \"packet_flits\": %d, \"cycle_ns\": "
	    "%.10g, \"router_cycles\": %d, \"link_cycles\": %d, \"send_cycles\": "
	    "%llu, \"recv_cycles\": %llu, \"vc_flits\": %d, "
	    "\"internal_vc_flits\": %d}", m->flit_bytes, m->packet_flits,
	    c->cycle_ns, c->router, c->link, (unsigned long long)c->send,
	    (unsigned long long)c->recv, c->vc_flits, c->int_vc_flits);
}
