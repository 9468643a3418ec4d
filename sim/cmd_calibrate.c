/*
 * ttsim trace calibrate: a hardware model (the model: section of a
 * cluster file) fitted from a ttd recording (twintorus/calibrate.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "twintorus/calibrate.h"
#include "twintorus/json.h"
#include "twintorus/outfile.h"
#include "ttsim.h"

/* ttd's buffer per VC where credits: says nothing (ttd.8, at least) */
#define CALIB_TTD_BUFFER 65536

static void
calib_usage(FILE *f)
{
	fprintf(f,
"usage: ttsim trace calibrate TRACE... FILE.yaml [network flags]\n"
"                             [-o MODEL.yaml] [--quantile Q] [--json]\n"
"\n"
"Fits a hardware model of the recorded cluster from its ttd recording:\n"
"TRACE is files or directories of ttd's traces (HOST-pe.pcap: every frame\n"
"a PE sent and a copy of every frame delivered to one; with trace: ports:\n"
"true also HOST-cCARD-PORT.pcap), FILE.yaml the cluster file of the\n"
"recording.  Each directory is one recording; files given by name are one\n"
"more.  A zero-load microbenchmark (a ping-pong over sizes from 1 byte to\n"
"tens of KiB, between PEs at more than one distance) is enough.\n"
"\n"
"  1. Each delivery copy is matched to its send by (source PE, sequence);\n"
"     destination and length must agree.  Hops H: tt_route()'s path,\n"
"     checked against the hop counts ttd records.\n"
"  2. Latencies: a frame a->b and b's next frame to a sum to the round trip\n"
"     minus b's turnaround, which no clock offset enters; used when there\n"
"     are round trips, else one-way latencies (delivery - send), which\n"
"     include the offset of two nodes' clocks.\n"
"  3. Bandwidth: the sustained rate of the largest back-to-back transfers\n"
"     (bytes at the receiver over the second half of each: a token\n"
"     bucket's burst is behind it), else the slope of latency over bytes.\n"
"  4. latency = base + H * hop + bytes * 8 / link_gbps is fitted to the\n"
"     lower envelope (the --quantile of each group of equal hops and\n"
"     size): frames that queued behind others do not count.\n"
"  5. The engine's zero-load formula (H+1)(R+L) + L + flits - 1 cycles plus\n"
"     send_ns and recv_ns gives the model: link_ns one cycle, router_ns =\n"
"     hop - link_ns, send_ns + recv_ns = base - hop, split by the port\n"
"     traces (send record to first port record) when present, else evenly.\n"
"     With one hop count only, base and hop are not separable: every switch\n"
"     crossing is taken alike, without endpoint overhead.\n"
"  6. vc_bytes, internal_vc_bytes: the file's credits:, else ttd's default;\n"
"     flit_bytes 64 and packet_flits so that one packet holds the largest\n"
"     frame (a ttsim recording, whose records are messages: the file's).\n"
"\n"
"  -o, --out MODEL.yaml  write the model: section (replaced whole; - for\n"
"                        standard output, the table then on standard error)\n"
"  --quantile Q          the lower envelope, 0 < Q <= 1 (0.1)\n"
"  --json                the result as one object: parameters {name:\n"
"                        {value, unit, source}}, fit, residual, frames_used\n"
"network flags:         --dims --ports --plain (without FILE.yaml)\n"
"\n"
"Exit status: 0 fitted (and -o written), 2 bad usage, no usable frames or\n"
"a trace that does not match the cluster file.\n");
}

struct calib_opts {
	netopts no;
	outopts out;
	const char **paths;
	size_t np;
	const char *file;
	double quantile;
};

enum { OPT_CALIB_QUANTILE = OPT_OWN };

static const struct option calib_flags[] = {
	{"out", required_argument, NULL, OPT_OUT},
	{"quantile", required_argument, NULL, OPT_CALIB_QUANTILE},
	{NULL, 0, NULL, 0}
};

static int
calib_take(void *state, const struct optval *v)
{
	struct calib_opts *o = state;

	switch (v->id) {
	case OPT_ARG:
		if (netopts_is_yaml(v->value))
			return netopts_file(&o->no, v->value, v->cmd);
		o->paths[o->np++] = v->value;
		return 0;
	case OPT_OUT:
		o->file = v->value;
		return 0;
	}
	return opt_real(v->cmd, v->flag, v->value, 1e-6, 1, "a fraction "
	    "in (0, 1]", &o->quantile);
}

static int
calib_parse(struct calib_opts *o, int argc, char **argv)
{
	const char *cmd = "trace calibrate";
	const opt_group groups[] = {
		{calib_flags, 1, calib_take, o},
		{netopts_flags, 0, netopts_take, &o->no},
		{outopts_json, 0, outopts_take, &o->out},
	};
	int rc;

	netopts_init(&o->no);
	o->quantile = TT_CALIB_QUANTILE;
	if ((o->paths = calloc((size_t)argc + 1, sizeof(*o->paths))) == NULL)
		return -1;
	rc = opt_parse(cmd, calib_usage, groups, OPT_NGROUPS(groups), argc,
	    argv);
	if (rc != OPT_PARSED)
		return rc;
	if (o->np == 0) {
		fprintf(stderr, "ttsim trace calibrate: give the recording's "
		    "trace files or directories (see ttsim trace calibrate "
		    "--help)\n");
		return -1;
	}
	if (!o->no.given) {
		fprintf(stderr, "ttsim trace calibrate: give the recording's "
		    "cluster file FILE.yaml (or --dims and --ports)\n");
		return -1;
	}
	if (o->out.json && o->file != NULL && strcmp(o->file, "-") == 0) {
		fprintf(stderr, "ttsim trace calibrate: --json and -o - both "
		    "want standard output; give -o a file\n");
		return -1;
	}
	if (netopts_finish(&o->no, cmd) < 0)
		return -1;
	if (o->no.ports_all) {
		fprintf(stderr, "ttsim trace calibrate: --ports all is for "
		    "analyze and sweep; a recording is of one network\n");
		return -1;
	}
	return OPT_PARSED;
}

/* One parameter of the model. */
struct param {
	const char *name, *unit;
	int prec;               /* decimals */
	double value;
	char source[320];
};

enum { P_GBPS, P_ROUTER, P_LINK, P_SEND, P_RECV, P_VC, P_IVC, P_FLIT,
	P_PKT, P_N };

struct calib_run {
	struct calib_opts o;
	tt_net net;
	tt_calib_data d;
	tt_calib_fit fit, other;
	int used_rtt, other_ok, crossings;
	double agreement;       /* relative difference of the other fit */
	size_t trains_used;
	double slope_gbps;      /* the slope's estimate beside a rate */
	struct param p[P_N];
	char note[4][320];
	int nnote;
};

/* ttd's buffer per VC (daemon/fwd.c): the file's credits:, else the
 * model's buffer per input port split among its VCs, at least 64 KiB. */
static double
ttd_buffer(int set, const tt_config *cfg, int vcs)
{
	uint64_t b = (uint64_t)cfg->params.buffer_flits *
	    (uint64_t)cfg->params.flit_bytes / (uint64_t)(vcs > 0 ? vcs : 1);

	if (set > 0)
		return set;
	if (b < CALIB_TTD_BUFFER)
		b = CALIB_TTD_BUFFER;
	if (b > TT_CREDIT_BYTES_MAX)
		b = TT_CREDIT_BYTES_MAX;
	return (double)b;
}

static void
set_param(struct param *p, const char *name, const char *unit,
    int prec, double v, const char *source)
{
	p->name = name;
	p->unit = unit;
	p->prec = prec;
	p->value = v;
	snprintf(p->source, sizeof(p->source), "%s", source);
}

/* The one-way latency the fit gives a median frame, for comparing two
 * fits. */
static double
typical(const tt_calib_fit *f, const tt_calib_data *d)
{
	tt_calib_obs o = {0, 0, 0, 1};
	double b = 0, h = 0;
	size_t i;

	for (i = 0; i < d->noneway; i++) {
		b += d->oneway[i].bytes;
		h += d->oneway[i].hops;
	}
	o.bytes = b / (double)d->noneway;
	o.hops = (int)lround(h / (double)d->noneway);
	return tt_calib_predict(f, &o);
}

static int
calib_fit(struct calib_run *x)
{
	tt_calib_data *d = &x->d;
	tt_calib_opts co = {x->o.quantile, 0, 0};
	const tt_calib_obs *obs;
	size_t n;
	double gbps;
	char err[512], src[320];

	if (d->sends == 0 && d->deliveries == 0) {
		fprintf(stderr, "ttsim trace calibrate: the traces hold no data "
		    "frames (%" PRIu64 " records in %" PRIu64 " files)\n",
		    d->records, d->files);
		return -1;
	}
	if (d->deliveries == 0) {
		fprintf(stderr, "ttsim trace calibrate: the traces hold no "
		    "delivery copies (%" PRIu64 " sends): calibrating needs "
		    "ttd's PE traces of every node, sends and deliveries\n",
		    d->sends);
		return -1;
	}
	if (d->matched == 0) {
		fprintf(stderr, "ttsim trace calibrate: no delivery copy "
		    "matched its send by (source PE, sequence): %" PRIu64
		    " deliveries, %" PRIu64 " without a send, %" PRIu64
		    " whose destination or length differ, %" PRIu64
		    " sends of a sequence seen twice (are the traces of one "
		    "recording? one directory per recording)\n",
		    d->deliveries, d->unmatched, d->mismatched, d->duplicate);
		return -1;
	}
	gbps = tt_calib_rate(d->train, d->ntrain, &x->trains_used);
	co.gbps = gbps;
	x->used_rtt = d->nrtt >= TT_CALIB_MIN_OBS;
	obs = x->used_rtt ? d->rtt : d->oneway;
	n = x->used_rtt ? d->nrtt : d->noneway;
	if (tt_calib_fit_obs(obs, n, &co, &x->fit, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim trace calibrate: %s (fitting %zu %s "
		    "of %" PRIu64 " matched frames)\n", err, n, x->used_rtt ?
		    "round trips" : "one-way latencies", d->matched);
		return -1;
	}
	/* a base shorter than one switch crossing has no engine
	 * counterpart (its endpoint overheads would be negative): fitted
	 * again with every crossing alike */
	if (x->fit.hop_fitted && x->fit.base_ns < x->fit.hop_ns) {
		tt_calib_fit first = x->fit;

		co.crossings = 1;
		if (tt_calib_fit_obs(obs, n, &co, &x->fit, err,
		    sizeof(err)) < 0) {
			/* keep the free fit; the model then differs from it */
			x->fit = first;
			co.crossings = 0;
			snprintf(x->note[x->nnote++], sizeof(x->note[0]),
			    "with every switch crossing alike the fit fails "
			    "(%.200s): the free fit is kept, its bandwidth and "
			    "base are doubtful", err);
		} else {
			snprintf(x->note[x->nnote++], sizeof(x->note[0]),
			    "the free fit (%.1f + H * %.1f ns) has a base "
			    "below one switch crossing, which the engine "
			    "cannot have: fitted again with every crossing "
			    "alike and no endpoint overhead", first.base_ns,
			    first.hop_ns);
			x->crossings = 1;
		}
	}
	if (gbps > 0) {
		tt_calib_opts so = {x->o.quantile, 0, 0};
		tt_calib_fit sf;

		if (tt_calib_fit_obs(obs, n, &so, &sf, err, sizeof(err)) == 0)
			x->slope_gbps = sf.gbps;
	}
	/* the other kind of latency, to say whether they agree */
	if (x->used_rtt && d->noneway >= TT_CALIB_MIN_OBS &&
	    tt_calib_fit_obs(d->oneway, d->noneway, &co, &x->other, err,
	    sizeof(err)) == 0) {
		double a = typical(&x->fit, d), b = typical(&x->other, d);

		x->other_ok = 1;
		x->agreement = fabs(b - a) / (a > 0 ? a : 1);
	}
	if (gbps > 0)
		snprintf(src, sizeof(src), "sustained rate of the %zu largest "
		    "back-to-back transfers (second half of each)%s",
		    x->trains_used, "");
	else
		snprintf(src, sizeof(src), "slope of the latency envelope over "
		    "bytes (no transfer of %d+ back-to-back frames)",
		    2 * TT_CALIB_TRAIN_MIN);
	set_param(&x->p[P_GBPS], "link_gbps", "Gb/s", 3, x->fit.gbps,
	    src);
	return 0;
}

/* The fit onto the engine's parameters. */
static void
calib_model(struct calib_run *x)
{
	const tt_config *cfg = &x->o.no.cfg;
	const tt_calib_fit *f = &x->fit;
	double flit, pkt, cycle, link, router, over, snd, rcv;
	char src[320];

	if (x->d.max_bytes <= TT_FRAME_MAX) {
		flit = 64;
		pkt = ceil((double)(x->d.max_bytes > 0 ? x->d.max_bytes : 1) /
		    flit);
		snprintf(src, sizeof(src), "one packet holds the largest data "
		    "frame, %" PRIu64 " bytes (%g x %g = %g)", x->d.max_bytes,
		    flit, pkt, flit * pkt);
		set_param(&x->p[P_FLIT], "flit_bytes", "bytes", 0, flit,
		    "64: a cache line; packet_flits sized to the largest frame");
		set_param(&x->p[P_PKT], "packet_flits", "flits", 0, pkt,
		    src);
	} else {
		flit = cfg->params.flit_bytes;
		pkt = cfg->params.packet_flits;
		snprintf(src, sizeof(src), "the cluster file's network: (records "
		    "of %" PRIu64 " bytes are messages, not frames: a ttsim "
		    "recording)", x->d.max_bytes);
		set_param(&x->p[P_FLIT], "flit_bytes", "bytes", 0, flit,
		    src);
		set_param(&x->p[P_PKT], "packet_flits", "flits", 0, pkt,
		    src);
	}
	cycle = flit * 8.0 / f->gbps;
	link = cycle;
	router = f->hop_ns - link;
	if (router < 0) {
		router = 0;
		link = f->hop_ns > 0 ? f->hop_ns : 0;
	}
	snprintf(src, sizeof(src), "per-hop time %.1f ns (fitted%s) minus "
	    "link_ns", f->hop_ns, f->hop_fitted ? "" : "; every switch "
	    "crossing alike: latency / (H+1)");
	set_param(&x->p[P_ROUTER], "router_ns", "ns", 2, router, src);
	set_param(&x->p[P_LINK], "link_ns", "ns", 2, link, "one cycle "
	    "(flit_bytes * 8 / link_gbps): router and link are not separable "
	    "from end-to-end latencies");
	over = f->base_ns - f->hop_ns;
	if (over < 0) {
		snprintf(x->note[x->nnote++], sizeof(x->note[0]), "the fitted "
		    "base (%.1f ns) is below one switch crossing (%.1f ns): "
		    "endpoint overheads set to 0", f->base_ns, f->hop_ns);
		over = 0;
	}
	if (x->d.send_segs > 0) {
		snd = x->d.send_seg_ns - router;
		snd = snd < 0 ? 0 : snd > over ? over : snd;
		rcv = over - snd;
		snprintf(src, sizeof(src), "port traces: send record to first "
		    "port record %.1f ns (envelope of %" PRIu64 ") minus "
		    "router_ns", x->d.send_seg_ns, x->d.send_segs);
		set_param(&x->p[P_SEND], "send_ns", "ns", 2, snd, src);
		set_param(&x->p[P_RECV], "recv_ns", "ns", 2, rcv,
		    "base - hop - send_ns");
	} else {
		snd = rcv = over / 2;
		snprintf(src, sizeof(src), "half of base - hop = %.1f ns "
		    "(no port traces to split it)", over);
		set_param(&x->p[P_SEND], "send_ns", "ns", 2, snd, src);
		set_param(&x->p[P_RECV], "recv_ns", "ns", 2, rcv, src);
	}
	set_param(&x->p[P_VC], "vc_bytes", "bytes", 0,
	    ttd_buffer(cfg->credit_vc_bytes, cfg, x->net.ext_vcs),
	    cfg->credit_vc_bytes > 0 ? "the cluster file's credits:" :
	    "ttd's default (no credits: in the file)");
	set_param(&x->p[P_IVC], "internal_vc_bytes", "bytes", 0,
	    ttd_buffer(cfg->credit_int_vc_bytes, cfg, x->net.int_vcs),
	    cfg->credit_int_vc_bytes > 0 ? "the cluster file's credits:" :
	    "ttd's default (no credits: in the file)");
	if (!f->hop_fitted && !x->crossings)
		snprintf(x->note[x->nnote++], sizeof(x->note[0]), "every "
		    "frame crossed %s hops: base and per-hop time are not "
		    "separable; every switch crossing taken alike, no endpoint "
		    "overhead (record PEs at more than one distance, or with "
		    "trace: ports: true)", "the same number of");
	if (!x->used_rtt && x->d.oneway_same_clock < x->d.noneway)
		snprintf(x->note[x->nnote++], sizeof(x->note[0]), "no round "
		    "trips: %zu of %zu one-way latencies span two nodes' "
		    "clocks, whose offset they include", x->d.noneway -
		    x->d.oneway_same_clock, x->d.noneway);
	if (x->d.hops_checked > 0 && x->d.hops_differ > 0)
		snprintf(x->note[x->nnote++], sizeof(x->note[0]), "%" PRIu64
		    " of %" PRIu64 " recorded hop counts differ from "
		    "tt_route()'s path: is FILE.yaml the recording's?",
		    x->d.hops_differ, x->d.hops_checked);
}

/* The model: section, as tt_model_write() will write it. */
static void
model_write(FILE *f, const struct calib_run *x, const char *comment)
{
	int i;

	fprintf(f, "# %s\nmodel:\n", comment);
	for (i = 0; i < P_N; i++) {
		fprintf(f, "  %s: ", x->p[i].name);
		fprintf(f, "%.*f\n", x->p[i].prec, x->p[i].value);
	}
}

static int
calib_write(const struct calib_run *x)
{
	tt_outfile *of;
	char err[1024], comment[512];

	if (tt_outfile_open(&of, x->o.file, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim trace calibrate: -o %s\n", err);
		return -1;
	}
	snprintf(comment, sizeof(comment), "ttsim trace calibrate: fitted to "
	    "%zu frames (%s); median error %.1f%%, p90 %.1f%%", x->fit.used,
	    x->used_rtt ? "round trips" : "one-way", 100 * x->fit.med_rel,
	    100 * x->fit.p90_rel);
	model_write(tt_outfile_file(of), x, comment);
	if (tt_outfile_close(of, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim trace calibrate: -o %s\n", err);
		return -1;
	}
	return 0;
}

static void
print_json(FILE *f, const struct calib_run *x)
{
	const tt_calib_fit *ft = &x->fit;
	int i;

	fprintf(f, "{\"parameters\": {");
	for (i = 0; i < P_N; i++) {
		fprintf(f, "%s", i ? ", " : "");
		tt_json_string(f, x->p[i].name);
		fprintf(f, ": {\"value\": %.6g, \"unit\": ", x->p[i].value);
		tt_json_string(f, x->p[i].unit);
		fprintf(f, ", \"source\": ");
		tt_json_string(f, x->p[i].source);
		fprintf(f, "}");
	}
	fprintf(f, "}, \"fit\": {\"base_ns\": %.3f, \"hop_ns\": %.3f, "
	    "\"link_gbps\": %.6g, \"latencies\": \"%s\", \"hop_fitted\": %s, "
	    "\"bandwidth\": \"%s\", \"transfers\": %zu, \"slope_gbps\": ",
	    ft->base_ns, ft->hop_ns, ft->gbps, x->used_rtt ? "round_trip" :
	    "one_way", ft->hop_fitted ? "true" : "false", ft->gbps_fitted ?
	    "slope" : "sustained_rate", x->trains_used);
	if (ft->gbps_fitted || x->slope_gbps > 0)
		fprintf(f, "%.6g", ft->gbps_fitted ? ft->gbps : x->slope_gbps);
	else
		fprintf(f, "null");
	fprintf(f, ", \"quantile\": %g, \"one_way_agreement\": ",
	    x->o.quantile);
	if (x->other_ok)
		fprintf(f, "%.6f", x->agreement);
	else
		fprintf(f, "null");
	fprintf(f, "}, \"residual\": {\"median_rel\": %.6f, \"p90_rel\": %.6f, "
	    "\"cells\": %zu, \"cells_dropped\": %zu, \"all_median_rel\": %.6f, "
	    "\"all_p90_rel\": %.6f}, \"frames_used\": %zu, "
	    "\"frames_matched\": %" PRIu64 ", \"deliveries\": %" PRIu64
	    ", \"sends\": %" PRIu64 ", \"unmatched\": %" PRIu64
	    ", \"mismatched\": %" PRIu64 ", \"duplicate\": %" PRIu64
	    ", \"round_trips\": %zu, \"port_records\": %" PRIu64
	    ", \"hops_checked\": %" PRIu64 ", \"hops_differ\": %" PRIu64
	    ", \"notes\": [", ft->med_rel, ft->p90_rel, ft->cells,
	    ft->cells_dropped, ft->all_med_rel, ft->all_p90_rel, ft->used,
	    x->d.matched, x->d.deliveries, x->d.sends, x->d.unmatched,
	    x->d.mismatched, x->d.duplicate, x->d.nrtt, x->d.port_records,
	    x->d.hops_checked, x->d.hops_differ);
	for (i = 0; i < x->nnote; i++) {
		fprintf(f, "%s", i ? ", " : "");
		tt_json_string(f, x->note[i]);
	}
	fprintf(f, "], \"out\": ");
	if (x->o.file != NULL)
		tt_json_string(f, x->o.file);
	else
		fprintf(f, "null");
	fprintf(f, "}\n");
}

static void
print_table(FILE *f, const struct calib_run *x)
{
	const tt_calib_fit *ft = &x->fit;
	int i;

	fprintf(f, "%" PRIu64 " records in %" PRIu64 " files: %" PRIu64
	    " sends, %" PRIu64 " delivery copies, %" PRIu64 " port records\n",
	    x->d.records, x->d.files, x->d.sends, x->d.deliveries,
	    x->d.port_records);
	fprintf(f, "  matched         %" PRIu64 " frames (%" PRIu64 " without "
	    "a send, %" PRIu64 " destination or length differ, %" PRIu64
	    " duplicate sequences)\n", x->d.matched, x->d.unmatched,
	    x->d.mismatched, x->d.duplicate);
	fprintf(f, "  latencies       %s: %zu observations in %zu groups "
	    "(%zu dropped as queued), the %g quantile of each\n",
	    x->used_rtt ? "round trips, clock-offset free" :
	    "one way (delivery - send)", ft->used, ft->cells,
	    ft->cells_dropped, x->o.quantile);
	if (x->other_ok)
		fprintf(f, "  one way         the one-way latencies alone give "
		    "a typical frame %.1f%% %s\n", 100 * x->agreement,
		    x->agreement < 0.05 ? "apart (the clocks agree)" :
		    "apart (the nodes' clocks differ: round trips used)");
	fprintf(f, "  fit             latency = %.1f + H * %.1f ns + bytes * 8 "
	    "/ %.4g Gb/s", ft->base_ns, ft->hop_ns, ft->gbps);
	if (x->slope_gbps > 0)
		fprintf(f, " (the latency slope alone: %.4g Gb/s)",
		    x->slope_gbps);
	fprintf(f, "\n  residual        median %.2f%%, p90 %.2f%% against the "
	    "zero-load envelope; median %.2f%%, p90 %.2f%% against all %zu "
	    "frames used\n\n", 100 * ft->med_rel, 100 * ft->p90_rel,
	    100 * ft->all_med_rel, 100 * ft->all_p90_rel, ft->used);
	fprintf(f, "%-18s %12s  %-6s %s\n", "parameter", "value", "unit",
	    "source");
	for (i = 0; i < P_N; i++) {
		char v[64];

		snprintf(v, sizeof(v), "%.*f", x->p[i].prec, x->p[i].value);
		fprintf(f, "%-18s %12s  %-6s %s\n", x->p[i].name, v,
		    x->p[i].unit, x->p[i].source);
	}
	for (i = 0; i < x->nnote; i++)
		fprintf(f, "note: %s\n", x->note[i]);
	if (x->o.file != NULL)
		fprintf(f, "wrote %s\n", x->o.file);
}

int
cmd_trace_calibrate(int argc, char **argv)
{
	static struct calib_run x;
	char err[1024];
	int rc;

	memset(&x, 0, sizeof(x));
	rc = calib_parse(&x.o, argc, argv);
	if (rc == OPT_HELP_SHOWN) {
		rc = TTSIM_EXIT_OK;
		goto out;
	}
	if (rc != OPT_PARSED) {
		rc = TTSIM_EXIT_USAGE;
		goto out;
	}
	rc = TTSIM_EXIT_USAGE;
	if (tt_net_init(&x.net, &x.o.no.spec, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim trace calibrate: %s\n", err);
		goto out;
	}
	if (tt_calib_read(&x.d, x.o.paths, x.o.np, &x.net, err,
	    sizeof(err)) < 0) {
		fprintf(stderr, "ttsim trace calibrate: %s\n", err);
		goto out;
	}
	if (calib_fit(&x) < 0)
		goto out;
	calib_model(&x);
	if (x.o.file != NULL && calib_write(&x) < 0)
		goto out;
	if (x.o.out.json)
		print_json(stdout, &x);
	else
		print_table(x.o.file != NULL && strcmp(x.o.file, "-") == 0 ?
		    stderr : stdout, &x);
	rc = TTSIM_EXIT_OK;
out:
	tt_calib_data_free(&x.d);
	if (x.net.coord != NULL)
		tt_net_free(&x.net);
	tt_config_free(&x.o.no.cfg);
	free(x.o.paths);
	return rc;
}
