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
#include "twintorus/model.h"
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
"                             [--store-forward | --cut-through]\n"
"                             [--no-shaping]\n"
"\n"
"Fits a hardware model of the recorded cluster from its ttd recording:\n"
"TRACE is files or directories of ttd's traces (HOST-pe.pcap: every frame\n"
"a PE sent and a copy of every frame delivered to one; with trace: ports:\n"
"true also HOST-cCARD-PORT.pcap, each frame as it leaves a port), FILE.yaml\n"
"the cluster file of the recording.  Each directory is one recording;\n"
"files given by name are one more.  A zero-load microbenchmark that\n"
"computes nothing (NetPIPE: a ping-pong over sizes from 1 byte to tens of\n"
"KiB), between PEs at more than one distance, is what it is made for.\n"
"\n"
"  1. Each delivery copy is matched to its send by (source PE, sequence);\n"
"     destination and length must agree.  Hops H: tt_route()'s path,\n"
"     checked against the hop counts ttd records.  Zero load: a frame sent\n"
"     after the frame before it (same source and destination) arrived.\n"
"  2. Switching: ttd is store-and-forward (every switch takes a whole frame\n"
"     before sending it on), so a recording of frames (none longer than a\n"
"     frame, or with port traces) is fitted with the engine's\n"
"     store_forward: true; a ttsim recording of longer messages cut-through.\n"
"     --store-forward and --cut-through decide instead.\n"
"  3. Bandwidth: the sustained rate of the largest back-to-back transfers\n"
"     (bytes at the receiver over the second half of each: a token\n"
"     bucket's burst is behind it), else the slope of latency over bytes.\n"
"  4. With port traces (store-and-forward): each zero-load frame's\n"
"     segments, send record -> first port record (SEND), port record ->\n"
"     the next hop's (HOP: the link, the next switch's store and forward),\n"
"     last port record -> delivery copy (RECV), each fitted as intercept +\n"
"     slope * bytes to its size cells' medians.  The engine's\n"
"     store-and-forward timing (twintorus/sim.h) then gives, with a cycle\n"
"     of flit_bytes * 8 / link_gbps: link_ns one cycle, router_ns the HOP\n"
"     intercept, send_ns = SEND - router_ns - link_ns, recv_ns = RECV -\n"
"     router_ns.  The slopes (the per-byte cost at zero load) are reported.\n"
"     Shaped links: when lone frames (the largest, at zero load) arrive\n"
"     faster than one serialization at the sustained rate, that rate is a\n"
"     token bucket's (tc tbf, a NIC's rate limit), not the line's.  Then\n"
"     shape_gbps is the sustained rate, link_gbps the line's (the slopes'\n"
"     cost per byte over the H + 1 serializations of a frame of the mean\n"
"     hop count; without port traces the slope of step 5's envelope), and\n"
"     burst_bytes the median of what the transfers' first halves delivered\n"
"     beyond the sustained rate, at least the largest frame.  --no-shaping\n"
"     fits the sustained rate as the line's instead.\n"
"  5. Without port traces: latency = base + H * hop + bytes * 8 / link_gbps\n"
"     (store-and-forward: + H * bytes * 8 / link_gbps) is fitted to the lower\n"
"     envelope (the --quantile of each group of equal hops and size) of\n"
"     round trips (a frame a->b and b's next frame to a, which no clock\n"
"     offset enters), else of one-way latencies.  One hop count only: base\n"
"     and hop are not separable, every switch crossing is taken alike.\n"
"  6. host_ns: the hosts' turnaround, a request's last delivery copy at a\n"
"     PE to the PE's answer back on the same connection with nothing in\n"
"     between (its clock only), the median over requests up to 1 KiB.  It\n"
"     is host time only in a program that computes nothing (NetPIPE): from\n"
"     another application it includes its compute and is too long.\n"
"  7. vc_bytes, internal_vc_bytes: the file's credits:, else ttd's default;\n"
"     frames: flit_bytes a power of two up to 64, small enough for a cycle\n"
"     of at most 1/16 of a hop, and packet_flits so that one packet holds\n"
"     the largest frame (a ttsim recording of messages: the file's).\n"
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
	int saf;                /* -1: from the recording, 0 cut-through,
	                         * 1 store-and-forward */
	int no_shape;           /* --no-shaping */
};

enum { OPT_CALIB_QUANTILE = OPT_OWN, OPT_CALIB_SAF, OPT_CALIB_VCT,
	OPT_CALIB_NOSHAPE };

static const optdef calib_flags[] = {
	OPT_TITLE("trace calibrate:"),
	OPT_VAL("out", OPT_OUT, "MODEL.yaml",
	    "write the model: section (replaced whole; - for standard output, "
	    "the table then on standard error)"),
	OPT_VALDEF("quantile", OPT_CALIB_QUANTILE, "Q",
	    "the lower envelope of step 5, 0 < Q <= 1", TT_CALIB_QUANTILE),
	OPT_FLAG("store-forward", OPT_CALIB_SAF,
	    "fit store-and-forward switching (ttd's)"),
	OPT_FLAG("cut-through", OPT_CALIB_VCT,
	    "fit virtual cut-through (a ttsim recording of short messages made "
	    "with a cut-through model)"),
	OPT_FLAG("no-shaping", OPT_CALIB_NOSHAPE,
	    "fit no token bucket, even where lone frames beat the sustained "
	    "rate (step 4)"),
	OPT_END
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
	case OPT_CALIB_SAF:
	case OPT_CALIB_VCT:
		if (o->saf >= 0 && o->saf != (v->id == OPT_CALIB_SAF)) {
			fprintf(stderr, "ttsim %s: --store-forward and "
			    "--cut-through exclude each other\n", v->cmd);
			return -1;
		}
		o->saf = v->id == OPT_CALIB_SAF;
		return 0;
	case OPT_CALIB_NOSHAPE:
		o->no_shape = 1;
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
	o->saf = -1;
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
	char source[400];
};

enum { P_GBPS, P_ROUTER, P_LINK, P_SEND, P_RECV, P_VC, P_IVC, P_FLIT,
	P_PKT, P_HOST, P_SAF, P_SHAPE, P_BURST, P_SEG, P_FHDR, P_MHDR, P_N };

/* Residuals of the model against one kind of latency: small frames (up
 * to TT_CALIB_HOST_BYTES a message) and the rest. */
struct resid {
	double med[2], p90[2];
	size_t cells[2], obs[2];
};

#define CALIB_NOTES 10

struct calib_run {
	struct calib_opts o;
	tt_net net;
	tt_calib_data d;
	tt_calib_fit fit, other;
	int used_rtt, other_ok, crossings;
	double agreement;       /* relative difference of the other fit */
	size_t trains_used;
	double slope_gbps;      /* the slope's estimate beside a rate */
	int saf;                /* store-and-forward fitted */
	char saf_why[160];
	int ports;              /* from the port traces' segments */
	int shaped;             /* links with a token bucket: shape_gbps
	                         * the sustained rate, gbps the line's */
	tt_calib_segfit sf;
	tt_calib_saf sm;
	double gbps, cycle, flit, pkt;
	double host_ns, host_q[2];
	size_t host_used;
	tt_calib_fit eng;       /* the model as the engine's latency line */
	struct resid r_iso, r_rtt;
	int r_iso_ok, r_rtt_ok;
	struct param p[P_N];
	char note[CALIB_NOTES][400];
	int nnote;
};

#define NOTE(x, ...) do {						\
	if ((x)->nnote < CALIB_NOTES)					\
		snprintf((x)->note[(x)->nnote++], sizeof((x)->note[0]),	\
		    __VA_ARGS__);					\
} while (0)

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
	tt_calib_obs o = {0, 0, 0, 1, 0};
	double b = 0, h = 0;
	size_t i;

	for (i = 0; i < d->noneway; i++) {
		b += d->oneway[i].bytes;
		h += d->oneway[i].hops;
	}
	o.bytes = b / (double)d->noneway;
	o.hops = (int)lround(h / (double)d->noneway);
	o.saf_bytes = o.hops * o.bytes;
	return tt_calib_predict(f, &o);
}

static int
calib_checks(const tt_calib_data *d)
{
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
	return 0;
}

/* Without port traces: the line fitted to the latencies' envelope. */
static int
fit_cells(struct calib_run *x, double gbps)
{
	tt_calib_data *d = &x->d;
	tt_calib_opts co = {x->o.quantile, gbps, 0, x->saf};
	const tt_calib_obs *obs;
	size_t n;
	char err[512];

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
			x->fit = first;
			co.crossings = 0;
			NOTE(x, "with every switch crossing alike the fit fails "
			    "(%.200s): the free fit is kept, its bandwidth and "
			    "base are doubtful", err);
		} else {
			NOTE(x, "the free fit (%.1f + H * %.1f ns) has a base "
			    "below one switch crossing, which the engine "
			    "cannot have: fitted again with every crossing "
			    "alike and no endpoint overhead", first.base_ns,
			    first.hop_ns);
			x->crossings = 1;
		}
	}
	if (gbps > 0) {
		tt_calib_opts so = {x->o.quantile, 0, 0, x->saf};
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
	x->gbps = x->fit.gbps;
	return 0;
}

/*
 * Shaped links (twintorus/model.h): lone frames that arrive faster than
 * one serialization at the sustained rate `gbps` allows (lat ns for the
 * typical one of `bytes`) crossed a line faster than it, held back by a
 * token bucket only when it ran dry.  The sustained rate is then the
 * bucket's (shape_gbps); the line rate (link_gbps) is, with port traces,
 * the segments' zero-load cost per byte over the serializations the
 * engine charges a frame of the mean hop count (H + 1 of them,
 * store-and-forward), without them the latency envelope's slope (x->fit,
 * fitted with the rate free); the bucket's depth comes from the
 * transfers' first halves (tt_calib_burst()).  link_gbps's source goes
 * to src.
 */
static void
calib_shaping(struct calib_run *x, double gbps, double lat, double bytes,
    char *src, size_t srcsz)
{
	const tt_calib_data *d = &x->d;
	double line, burst;
	size_t used;
	char why[400];

	if (x->ports) {
		double hops = 0, per_byte;
		size_t i, n = 0;

		for (i = 0; i < d->niso; i++)
			if (d->iso[i].nmsg == 1) {
				hops += d->iso[i].hops;
				n++;
			}
		hops = n > 0 ? hops / (double)n : 1;
		per_byte = fmax(x->sf.s[TT_CALIB_SEG_SEND], 0) + hops *
		    fmax(x->sf.s[TT_CALIB_SEG_HOP], 0) +
		    fmax(x->sf.s[TT_CALIB_SEG_RECV], 0);
		line = per_byte > 0 ? 8 * (hops + 1) / per_byte : 0;
		snprintf(src, srcsz, "the line below the bucket: the port "
		    "segments' zero-load cost per byte (SEND + %.2f HOP + RECV "
		    "slopes) over the %.2f serializations of a frame of the "
		    "mean hop count", hops, hops + 1);
	} else {
		line = x->fit.gbps;
		snprintf(src, srcsz, "the line below the bucket: the slope of "
		    "the latency envelope over bytes");
	}
	if (!(line > 2 * gbps)) {
		line = bytes * 8 / lat;
		snprintf(src, srcsz, "the line below the bucket: the lone "
		    "frames' rate, %.0f bytes in %.1f us (the segments' slopes "
		    "give no rate above the bucket's)", bytes, lat / 1e3);
	}
	burst = tt_calib_burst(d->train, d->ntrain, gbps, &used);
	x->shaped = 1;
	x->gbps = line;
	x->fit.gbps = line;
	snprintf(why, sizeof(why), "sustained rate of the %zu largest "
	    "back-to-back transfers; lone frames of %.0f bytes arrive in %.1f "
	    "us, faster than one serialization at this rate (%.1f us): a token "
	    "bucket's rate", x->trains_used, bytes, lat / 1e3,
	    bytes * 8 / gbps / 1e3);
	set_param(&x->p[P_SHAPE], "shape_gbps", "Gb/s", 6, gbps, why);
	snprintf(why, sizeof(why), "the median over %zu transfers of what "
	    "their first half delivered beyond the sustained rate%s", used,
	    burst < (double)d->max_bytes ? ", raised to the largest frame (a "
	    "bucket lets a whole frame through)" : "");
	if (burst < (double)d->max_bytes)
		burst = (double)d->max_bytes;
	set_param(&x->p[P_BURST], "burst_bytes", "bytes", 0, round(burst),
	    why);
}

static int
calib_fit(struct calib_run *x)
{
	tt_calib_data *d = &x->d;
	double gbps, lat, bytes;
	char err[512], src[320];
	int shaped;

	if (calib_checks(d) < 0)
		return -1;
	gbps = tt_calib_rate(d->train, d->ntrain, &x->trains_used);
	/* lone frames faster than the sustained rate: a token bucket */
	shaped = gbps > 0 && !x->o.no_shape && tt_calib_shaped(d->iso,
	    d->niso, gbps, &lat, &bytes);
	/* switching */
	if (x->o.saf >= 0) {
		x->saf = x->o.saf;
		snprintf(x->saf_why, sizeof(x->saf_why), "%s", x->saf ?
		    "--store-forward" : "--cut-through");
	} else if (d->port_records > 0 || d->max_bytes <= TT_FRAME_MAX) {
		x->saf = 1;
		snprintf(x->saf_why, sizeof(x->saf_why), "a recording of "
		    "frames (%s): ttd stores a whole frame at every switch "
		    "before it sends it on", d->port_records > 0 ?
		    "with port traces" : "none longer than a frame");
	} else {
		x->saf = 0;
		snprintf(x->saf_why, sizeof(x->saf_why), "records of up to "
		    "%" PRIu64 " bytes are messages, not frames (a ttsim "
		    "recording): cut-through", d->max_bytes);
	}
	if (x->saf && d->nseg > 0) {
		if (tt_calib_fit_segs(d->seg, d->nseg, &x->sf, err,
		    sizeof(err)) == 0)
			x->ports = 1;
		else
			NOTE(x, "%.300s: fitted from end-to-end latencies instead",
			    err);
	}
	if (x->ports) {
		x->gbps = gbps;
		if (!(x->gbps > 0)) {
			double s = x->sf.s[TT_CALIB_SEG_HOP];

			if (!(s > 0)) {
				fprintf(stderr, "ttsim trace calibrate: no "
				    "transfer of %d+ back-to-back frames and no "
				    "growth of the per-hop time with bytes: no "
				    "bandwidth can be fitted (record long "
				    "transfers)\n", 2 * TT_CALIB_TRAIN_MIN);
				return -1;
			}
			x->gbps = 8.0 / s;
		}
		x->fit.gbps = x->gbps;
		x->fit.gbps_fitted = !(gbps > 0);
		x->fit.hop_fitted = 1;
		x->used_rtt = d->nrtt >= TT_CALIB_MIN_OBS;
	} else if (fit_cells(x, shaped ? 0 : gbps) < 0) {
		/* shaped: the line's rate is the envelope's slope */
		return -1;
	}
	if (shaped)
		calib_shaping(x, gbps, lat, bytes, src, sizeof(src));
	else if (gbps > 0)
		snprintf(src, sizeof(src), "sustained rate of the %zu largest "
		    "back-to-back transfers (second half of each)",
		    x->trains_used);
	else if (x->ports)
		snprintf(src, sizeof(src), "slope of the zero-load per-hop "
		    "time over bytes (no transfer of %d+ back-to-back frames)",
		    2 * TT_CALIB_TRAIN_MIN);
	else
		snprintf(src, sizeof(src), "slope of the latency envelope over "
		    "bytes (no transfer of %d+ back-to-back frames)",
		    2 * TT_CALIB_TRAIN_MIN);
	set_param(&x->p[P_GBPS], "link_gbps", "Gb/s", 6, x->gbps, src);
	return 0;
}

/* The granularity: for frames, the largest power-of-two flit up to 64
 * bytes whose cycle is at most 1/16 of a hop, while a packet of the
 * largest frame stays within TT_PACKET_FLITS_MAX flits. */
static void
calib_grain(struct calib_run *x, double hop_ns)
{
	const tt_config *cfg = &x->o.no.cfg;
	double maxb = (double)(x->d.max_bytes > 0 ? x->d.max_bytes : 1);
	char src[320];

	if (x->d.max_bytes <= TT_FRAME_MAX) {
		x->flit = 64;
		while (x->flit > 1 && x->flit * 8.0 / x->gbps > hop_ns / 16 &&
		    ceil(maxb / (x->flit / 2)) <= TT_PACKET_FLITS_MAX)
			x->flit /= 2;
		x->pkt = ceil(maxb / x->flit);
		snprintf(src, sizeof(src), "the largest power of two up to 64 "
		    "whose cycle (%.4g ns) is at most 1/16 of a hop, or the "
		    "smallest a packet of the largest frame allows",
		    x->flit * 8.0 / x->gbps);
		set_param(&x->p[P_FLIT], "flit_bytes", "bytes", 0, x->flit,
		    src);
		snprintf(src, sizeof(src), "one packet holds the largest data "
		    "frame, %" PRIu64 " bytes (%g x %g = %g)", x->d.max_bytes,
		    x->flit, x->pkt, x->flit * x->pkt);
		set_param(&x->p[P_PKT], "packet_flits", "flits", 0, x->pkt,
		    src);
	} else {
		x->flit = cfg->params.flit_bytes;
		x->pkt = cfg->params.packet_flits;
		snprintf(src, sizeof(src), "the cluster file's network: (records "
		    "of %" PRIu64 " bytes are messages, not frames: a ttsim "
		    "recording)", x->d.max_bytes);
		set_param(&x->p[P_FLIT], "flit_bytes", "bytes", 0, x->flit,
		    src);
		set_param(&x->p[P_PKT], "packet_flits", "flits", 0, x->pkt,
		    src);
	}
	x->cycle = x->flit * 8.0 / x->gbps;
}

struct robs {
	double rel;
	double lat;
	int nmsg, hops, bucket;
};

static int
robs_cmp(const void *a, const void *b)
{
	const struct robs *x = a, *y = b;

	if (x->nmsg != y->nmsg)
		return x->nmsg < y->nmsg ? -1 : 1;
	if (x->hops != y->hops)
		return x->hops < y->hops ? -1 : 1;
	if (x->bucket != y->bucket)
		return x->bucket < y->bucket ? -1 : 1;
	return x->lat < y->lat ? -1 : x->lat > y->lat;
}

static int
dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The model f against observations o[0..n): per cell of (messages, hops,
 * size of a quarter octave), the q-quantile measured against the
 * prediction for it; the median and 90th percentile of those relative
 * errors over the cells of small messages and of the rest.
 */
static int
residuals(const tt_calib_fit *f, const tt_calib_obs *o, size_t n, double q,
    struct resid *r)
{
	struct robs *v;
	double *e[2];
	size_t i, j, ne[2] = {0, 0};
	int k;

	memset(r, 0, sizeof(*r));
	if (n == 0)
		return -1;
	v = malloc(n * sizeof(*v));
	e[0] = malloc(n * sizeof(double));
	e[1] = malloc(n * sizeof(double));
	if (v == NULL || e[0] == NULL || e[1] == NULL) {
		free(v);
		free(e[0]);
		free(e[1]);
		return -1;
	}
	for (i = 0; i < n; i++) {
		v[i].lat = o[i].lat_ns;
		v[i].nmsg = o[i].nmsg;
		v[i].hops = o[i].hops;
		v[i].bucket = (int)floor(4.0 * log2(o[i].bytes /
		    (o[i].nmsg > 0 ? o[i].nmsg : 1) + 1.0));
		v[i].rel = tt_calib_predict(f, &o[i]);
	}
	qsort(v, n, sizeof(*v), robs_cmp);
	for (i = 0; i < n; i = j) {
		const struct robs *m;
		size_t c;

		for (j = i; j < n && v[j].nmsg == v[i].nmsg &&
		    v[j].hops == v[i].hops && v[j].bucket == v[i].bucket; j++)
			;
		c = j - i;
		m = &v[i + (size_t)floor(q * (double)(c - 1))];
		/* small: the bucket's bytes per message up to 1 KiB */
		k = exp2((v[i].bucket + 1) / 4.0) - 1 > TT_CALIB_HOST_BYTES;
		e[k][ne[k]++] = fabs(m->rel - m->lat) /
		    (fabs(m->lat) > 0 ? fabs(m->lat) : 1);
		r->obs[k] += c;
	}
	for (k = 0; k < 2; k++) {
		r->cells[k] = ne[k];
		if (ne[k] == 0)
			continue;
		qsort(e[k], ne[k], sizeof(double), dbl_cmp);
		r->med[k] = e[k][(ne[k] - 1) / 2];
		r->p90[k] = e[k][(size_t)floor(0.9 * (double)(ne[k] - 1))];
	}
	free(v);
	free(e[0]);
	free(e[1]);
	return 0;
}

/* How a message crossed the recorded wire (for MPI-level traces, whose
 * messages are payload): TCP's largest segment, the header a frame adds
 * most often, and the least payload a frame carried, which for NetPIPE
 * (it sends messages of 0 bytes) is the MPI library's header alone. */
static void
framing_params(struct calib_run *x)
{
	const tt_calib_data *d = &x->d;
	char src[400];
	uint32_t h, best = 0;

	if (d->tcp_frames == 0)
		return;
	for (h = 1; h < TT_CALIB_HDR_MAX; h++)
		if (d->tcp_hdr[h] > d->tcp_hdr[best])
			best = h;
	snprintf(src, sizeof(src), "the largest TCP payload of the %" PRIu64
	    " TCP data frames sent (TCP's segment where a message filled a "
	    "frame)", d->tcp_frames);
	set_param(&x->p[P_SEG], "segment_bytes", "bytes", 0,
	    d->tcp_payload_max, src);
	snprintf(src, sizeof(src), "frame bytes less TCP payload, the most "
	    "common (%" PRIu64 " of %" PRIu64 " frames)", d->tcp_hdr[best],
	    d->tcp_frames);
	set_param(&x->p[P_FHDR], "frame_header_bytes", "bytes", 0, best, src);
	set_param(&x->p[P_MHDR], "message_header_bytes", "bytes", 0,
	    d->tcp_payload_min, "the least TCP payload a frame carried: the "
	    "MPI library's header where a message of 0 bytes was sent "
	    "(NetPIPE sends them)");
}

/* The fit onto the engine's parameters. */
static void
calib_model(struct calib_run *x)
{
	const tt_config *cfg = &x->o.no.cfg;
	const tt_calib_fit *f = &x->fit;
	double link, router, over, snd, rcv;
	char src[400];

	calib_grain(x, x->ports ? x->sf.a[TT_CALIB_SEG_HOP] : f->hop_ns);
	if (x->ports) {
		tt_calib_saf_model(&x->sf, x->cycle, &x->sm);
		router = x->sm.router_ns;
		link = x->sm.link_ns;
		snd = x->sm.send_ns;
		rcv = x->sm.recv_ns;
		snprintf(src, sizeof(src), "port traces: zero-load port record "
		    "to the next hop's, intercept %.1f ns of %zu segments (R + "
		    "L + f - 1 cycles = router_ns + f cycles)",
		    x->sf.a[TT_CALIB_SEG_HOP], x->sf.n[TT_CALIB_SEG_HOP]);
		set_param(&x->p[P_ROUTER], "router_ns", "ns", 2, router, src);
		set_param(&x->p[P_LINK], "link_ns", "ns", 2, link, "one cycle "
		    "(flit_bytes * 8 / link_gbps): the link and the switch are "
		    "one segment in the port traces");
		snprintf(src, sizeof(src), "port traces: send record to first "
		    "port record, intercept %.1f ns of %zu, minus router_ns + "
		    "link_ns", x->sf.a[TT_CALIB_SEG_SEND],
		    x->sf.n[TT_CALIB_SEG_SEND]);
		set_param(&x->p[P_SEND], "send_ns", "ns", 2, snd, src);
		snprintf(src, sizeof(src), "port traces: last port record to "
		    "delivery copy, intercept %.1f ns of %zu, minus router_ns",
		    x->sf.a[TT_CALIB_SEG_RECV], x->sf.n[TT_CALIB_SEG_RECV]);
		set_param(&x->p[P_RECV], "recv_ns", "ns", 2, rcv, src);
		if (x->sm.clamped)
			NOTE(x, "an endpoint overhead came out below 0 (SEND "
			    "%.1f, HOP %.1f, RECV %.1f ns intercepts): set to 0, "
			    "its deficit taken from the other end",
			    x->sf.a[TT_CALIB_SEG_SEND],
			    x->sf.a[TT_CALIB_SEG_HOP],
			    x->sf.a[TT_CALIB_SEG_RECV]);
		if (x->d.seg_clocks > 0)
			NOTE(x, "%" PRIu64 " of %zu segments run between two "
			    "nodes' clocks: their offset is in them (exact "
			    "where the nodes share a clock, as a namespace "
			    "testbed's)", x->d.seg_clocks, x->d.nseg);
	} else {
		link = x->cycle;
		/* cut-through: hop = R + L; store-and-forward: R + L - 1
		 * cycles (the f - 1 of each hop is in the bytes) */
		router = f->hop_ns - link + (x->saf ? x->cycle : 0);
		if (router < 0) {
			router = 0;
			link = f->hop_ns > 0 ? f->hop_ns : 0;
		}
		snprintf(src, sizeof(src), "per-hop time %.1f ns (fitted%s) "
		    "minus link_ns%s", f->hop_ns, f->hop_fitted ? "" :
		    "; every switch crossing alike: latency / (H+1)",
		    x->saf ? " plus one cycle (store-and-forward)" : "");
		set_param(&x->p[P_ROUTER], "router_ns", "ns", 2, router, src);
		set_param(&x->p[P_LINK], "link_ns", "ns", 2, link, "one cycle "
		    "(flit_bytes * 8 / link_gbps): router and link are not "
		    "separable from end-to-end latencies");
		/* base = R + 2L - 1 cycles + overheads */
		over = f->base_ns - router - 2 * link + x->cycle;
		if (over < 0) {
			NOTE(x, "the fitted base (%.1f ns) is below the engine's "
			    "least (%.1f ns): endpoint overheads set to 0",
			    f->base_ns, router + 2 * link - x->cycle);
			over = 0;
		}
		snd = rcv = over / 2;
		snprintf(src, sizeof(src), "half of the base's %.1f ns beyond "
		    "the switches (no port traces to split it)", over);
		set_param(&x->p[P_SEND], "send_ns", "ns", 2, snd, src);
		set_param(&x->p[P_RECV], "recv_ns", "ns", 2, rcv, src);
		if (!f->hop_fitted && !x->crossings)
			NOTE(x, "every frame crossed the same number of hops: "
			    "base and per-hop time are not separable; every "
			    "switch crossing taken alike, no endpoint overhead "
			    "(record PEs at more than one distance, or with "
			    "trace: ports: true)");
		if (!x->used_rtt && x->d.oneway_same_clock < x->d.noneway)
			NOTE(x, "no round trips: %zu of %zu one-way latencies "
			    "span two nodes' clocks, whose offset they include",
			    x->d.noneway - x->d.oneway_same_clock,
			    x->d.noneway);
	}
	set_param(&x->p[P_VC], "vc_bytes", "bytes", 0,
	    ttd_buffer(cfg->credit_vc_bytes, cfg, x->net.ext_vcs),
	    cfg->credit_vc_bytes > 0 ? "the cluster file's credits:" :
	    "ttd's default (no credits: in the file)");
	set_param(&x->p[P_IVC], "internal_vc_bytes", "bytes", 0,
	    ttd_buffer(cfg->credit_int_vc_bytes, cfg, x->net.int_vcs),
	    cfg->credit_int_vc_bytes > 0 ? "the cluster file's credits:" :
	    "ttd's default (no credits: in the file)");
	set_param(&x->p[P_SAF], "store_forward", "", 0, x->saf, x->saf_why);
	/* the hosts */
	x->host_ns = tt_calib_host(x->d.turn, x->d.nturn, TT_CALIB_HOST_BYTES,
	    &x->host_used, x->host_q);
	if (x->host_used > 0) {
		snprintf(src, sizeof(src), "median turnaround of %zu requests "
		    "of up to %d bytes (delivery copy to the answer's send "
		    "record; quartiles %.1f, %.1f us): right only from a "
		    "program that computes nothing (NetPIPE)", x->host_used,
		    TT_CALIB_HOST_BYTES, x->host_q[0] / 1e3,
		    x->host_q[1] / 1e3);
		if (x->host_q[1] - x->host_q[0] > x->host_ns)
			NOTE(x, "the hosts' turnaround is widely spread "
			    "(quartiles %.1f and %.1f us around a median of "
			    "%.1f us): host_ns is a rough figure (a loaded "
			    "host, or an application that computes)",
			    x->host_q[0] / 1e3, x->host_q[1] / 1e3,
			    x->host_ns / 1e3);
	} else {
		snprintf(src, sizeof(src), "no request answered on its "
		    "connection with nothing in between: 0");
	}
	set_param(&x->p[P_HOST], "host_ns", "ns", 2, x->host_ns, src);
	framing_params(x);
	if (x->d.hops_checked > 0 && x->d.hops_differ > 0)
		NOTE(x, "%" PRIu64 " of %" PRIu64 " recorded hop counts differ "
		    "from tt_route()'s path: is FILE.yaml the recording's?",
		    x->d.hops_differ, x->d.hops_checked);
	/* the model as a latency line: base = s + r + R + 2L - 1 cycles,
	 * hop = R + L (store-and-forward: - 1 cycle) */
	memset(&x->eng, 0, sizeof(x->eng));
	x->eng.base_ns = snd + rcv + router + 2 * link - x->cycle;
	x->eng.hop_ns = router + link - (x->saf ? x->cycle : 0);
	x->eng.gbps = x->gbps;
	x->eng.store_forward = x->saf;
	x->r_iso_ok = residuals(&x->eng, x->d.iso, x->d.niso, 0.5,
	    &x->r_iso) == 0;
	x->r_rtt_ok = residuals(&x->eng, x->d.rtt, x->d.nrtt, x->o.quantile,
	    &x->r_rtt) == 0;
}

static void
calib_tomodel(const struct calib_run *x, tt_model *m)
{
	tt_model_init(m);
	m->link_gbps = x->p[P_GBPS].value;
	m->router_ns = x->p[P_ROUTER].value;
	m->link_ns = x->p[P_LINK].value;
	m->send_ns = x->p[P_SEND].value;
	m->recv_ns = x->p[P_RECV].value;
	m->vc_bytes = (int)x->p[P_VC].value;
	m->internal_vc_bytes = (int)x->p[P_IVC].value;
	m->flit_bytes = (int)x->p[P_FLIT].value;
	m->packet_flits = (int)x->p[P_PKT].value;
	m->host_ns = x->p[P_HOST].value;
	m->store_forward = x->saf;
	m->set = ((1u << TT_MODEL_NKEYS) - 1) & ~(unsigned)
	    (TT_MODEL_SHAPE_GBPS | TT_MODEL_BURST_BYTES |
	    TT_MODEL_SEGMENT_BYTES | TT_MODEL_FRAME_HEADER_BYTES |
	    TT_MODEL_MESSAGE_HEADER_BYTES);
	if (x->d.tcp_frames > 0) {
		m->segment_bytes = (int)x->p[P_SEG].value;
		m->frame_header_bytes = (int)x->p[P_FHDR].value;
		m->message_header_bytes = (int)x->p[P_MHDR].value;
		m->set |= TT_MODEL_SEGMENT_BYTES | TT_MODEL_FRAME_HEADER_BYTES |
		    TT_MODEL_MESSAGE_HEADER_BYTES;
	}
	if (x->shaped) {
		m->shape_gbps = x->p[P_SHAPE].value;
		m->burst_bytes = (int)x->p[P_BURST].value;
		m->set |= TT_MODEL_SHAPE_GBPS | TT_MODEL_BURST_BYTES;
	}
}

static int
calib_write(const struct calib_run *x)
{
	tt_outfile *of;
	tt_model m;
	char err[1024], comment[1024];

	if (tt_outfile_open(&of, x->o.file, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim trace calibrate: -o %s\n", err);
		return -1;
	}
	calib_tomodel(x, &m);
	snprintf(comment, sizeof(comment), "ttsim trace calibrate: %s, %s\n"
	    "zero-load one-way residual: frames <= %d B median %.1f%%, larger "
	    "median %.1f%%\n"
	    "host_ns: %s", x->ports ? "from the port traces' segments" :
	    x->used_rtt ? "fitted to round trips" : "fitted to one-way "
	    "latencies", x->shaped ? "store-and-forward (ttd), shaped links "
	    "(a token bucket)" : x->saf ? "store-and-forward (ttd)" :
	    "cut-through",
	    TT_CALIB_HOST_BYTES, 100 * x->r_iso.med[0], 100 * x->r_iso.med[1],
	    x->host_used > 0 ? "the recorded hosts' turnaround, valid for a "
	    "program that computes nothing (NetPIPE)" : "none measured");
	if (tt_model_write(tt_outfile_file(of), &m, comment) < 0) {
		tt_outfile_discard(of);
		fprintf(stderr, "ttsim trace calibrate: -o %s: cannot write\n",
		    x->o.file);
		return -1;
	}
	if (tt_outfile_close(of, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim trace calibrate: -o %s\n", err);
		return -1;
	}
	return 0;
}

static void
json_resid(FILE *f, const char *name, const struct resid *r, int ok)
{
	fprintf(f, "\"%s\": ", name);
	if (!ok) {
		fprintf(f, "null");
		return;
	}
	fprintf(f, "{\"small_median_rel\": %.6f, \"small_p90_rel\": %.6f, "
	    "\"small_cells\": %zu, \"large_median_rel\": %.6f, "
	    "\"large_p90_rel\": %.6f, \"large_cells\": %zu}", r->med[0],
	    r->p90[0], r->cells[0], r->med[1], r->p90[1], r->cells[1]);
}

/* Parameter i has a value: the bucket where links are shaped, the
 * framing where TCP frames were recorded. */
static int
param_shown(const struct calib_run *x, int i)
{
	if (i == P_SHAPE || i == P_BURST)
		return x->shaped;
	if (i >= P_SEG)
		return x->d.tcp_frames > 0;
	return 1;
}

static void
print_json(FILE *f, const struct calib_run *x)
{
	const tt_calib_fit *ft = &x->fit;
	int i;

	tt_json_begin(f, TT_JSON_SCHEMA_TRACE_CALIBRATE);
	fprintf(f, ", \"parameters\": {");
	for (i = 0; i < P_N; i++) {
		if (!param_shown(x, i))
			continue;
		fprintf(f, "%s", i ? ", " : "");
		tt_json_string(f, x->p[i].name);
		if (i == P_SAF)
			fprintf(f, ": {\"value\": %s, \"unit\": ", x->saf ?
			    "true" : "false");
		else
			fprintf(f, ": {\"value\": %.6g, \"unit\": ",
			    x->p[i].value);
		tt_json_string(f, x->p[i].unit);
		fprintf(f, ", \"source\": ");
		tt_json_string(f, x->p[i].source);
		fprintf(f, "}");
	}
	fprintf(f, "}, \"fit\": {\"method\": \"%s\", \"store_forward\": %s, "
	    "\"base_ns\": %.3f, \"hop_ns\": %.3f, \"link_gbps\": %.6g, "
	    "\"latencies\": \"%s\", \"hop_fitted\": %s, \"bandwidth\": \"%s\", "
	    "\"transfers\": %zu, \"slope_gbps\": ", x->ports ? "port_segments" :
	    "envelope", x->saf ? "true" : "false", x->eng.base_ns,
	    x->eng.hop_ns, x->gbps, x->ports ? "port_segments" : x->used_rtt ?
	    "round_trip" : "one_way", ft->hop_fitted ? "true" : "false",
	    ft->gbps_fitted ? "slope" : "sustained_rate", x->trains_used);
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
	fprintf(f, "}, \"segments\": ");
	if (x->ports) {
		static const char *const kn[] = {"send", "hop", "recv"};

		fprintf(f, "{\"frames\": %" PRIu64 ", \"between_clocks\": %"
		    PRIu64, x->d.seg_frames, x->d.seg_clocks);
		for (i = 0; i < TT_CALIB_SEG_KINDS; i++)
			fprintf(f, ", \"%s\": {\"intercept_ns\": %.3f, "
			    "\"ns_per_byte\": %.6g, \"zero_load_gbps\": %.6g, "
			    "\"n\": %zu, \"cells\": %zu}", kn[i], x->sf.a[i],
			    x->sf.s[i], x->sf.s[i] > 0 ? 8.0 / x->sf.s[i] : 0,
			    x->sf.n[i], x->sf.cells[i]);
		fprintf(f, "}");
	} else {
		fprintf(f, "null");
	}
	fprintf(f, ", \"host\": {\"ns\": %.3f, \"requests\": %zu, "
	    "\"q25_ns\": %.3f, \"q75_ns\": %.3f, \"turnarounds\": %zu}",
	    x->host_ns, x->host_used, x->host_q[0], x->host_q[1], x->d.nturn);
	/* residual: the fitted line against its envelope (without port
	 * traces), and the model against zero-load frames and round trips */
	fprintf(f, ", \"residual\": {\"median_rel\": %.6f, \"p90_rel\": %.6f, "
	    "\"cells\": %zu, \"cells_dropped\": %zu, \"all_median_rel\": %.6f, "
	    "\"all_p90_rel\": %.6f, ", x->ports ? x->r_iso.med[0] : ft->med_rel,
	    x->ports ? x->r_iso.p90[0] : ft->p90_rel, x->ports ?
	    x->r_iso.cells[0] : ft->cells, ft->cells_dropped, x->ports ?
	    x->r_iso.med[1] : ft->all_med_rel, x->ports ? x->r_iso.p90[1] :
	    ft->all_p90_rel);
	json_resid(f, "zero_load_one_way", &x->r_iso, x->r_iso_ok);
	fprintf(f, ", ");
	json_resid(f, "round_trips", &x->r_rtt, x->r_rtt_ok);
	fprintf(f, "}, \"frames_used\": %zu, "
	    "\"frames_matched\": %" PRIu64 ", \"deliveries\": %" PRIu64
	    ", \"sends\": %" PRIu64 ", \"unmatched\": %" PRIu64
	    ", \"mismatched\": %" PRIu64 ", \"duplicate\": %" PRIu64
	    ", \"round_trips\": %zu, \"zero_load_frames\": %zu, "
	    "\"port_records\": %" PRIu64
	    ", \"hops_checked\": %" PRIu64 ", \"hops_differ\": %" PRIu64
	    ", \"notes\": [", x->ports ? (size_t)x->d.seg_frames : ft->used,
	    x->d.matched, x->d.deliveries, x->d.sends, x->d.unmatched,
	    x->d.mismatched, x->d.duplicate, x->d.nrtt, x->d.niso,
	    x->d.port_records, x->d.hops_checked, x->d.hops_differ);
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
table_resid(FILE *f, const char *what, const struct resid *r)
{
	fprintf(f, "  %-15s frames <= %d B: median %.1f%%, p90 %.1f%% (%zu "
	    "cells); larger: median %.1f%%, p90 %.1f%% (%zu cells)\n", what,
	    TT_CALIB_HOST_BYTES, 100 * r->med[0], 100 * r->p90[0],
	    r->cells[0], 100 * r->med[1], 100 * r->p90[1], r->cells[1]);
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
	    " duplicate sequences); %zu at zero load\n", x->d.matched,
	    x->d.unmatched, x->d.mismatched, x->d.duplicate, x->d.niso);
	fprintf(f, "  switching       %s: %s\n", x->saf ? "store-and-forward" :
	    "cut-through", x->saf_why);
	if (x->ports) {
		static const char *const kn[] = {"SEND", "HOP", "RECV"};

		fprintf(f, "  port traces     %" PRIu64 " zero-load frames with "
		    "every port record: segments (median per size cell, "
		    "intercept + slope):\n", x->d.seg_frames);
		for (i = 0; i < TT_CALIB_SEG_KINDS; i++)
			fprintf(f, "    %-4s %10.1f ns + bytes / %.4g Gb/s at "
			    "zero load (%zu segments, %zu cells)\n", kn[i],
			    x->sf.a[i], x->sf.s[i] > 0 ? 8.0 / x->sf.s[i] :
			    INFINITY, x->sf.n[i], x->sf.cells[i]);
	} else {
		fprintf(f, "  latencies       %s: %zu observations in %zu "
		    "groups (%zu dropped as queued), the %g quantile of each\n",
		    x->used_rtt ? "round trips, clock-offset free" :
		    "one way (delivery - send)", ft->used, ft->cells,
		    ft->cells_dropped, x->o.quantile);
		if (x->other_ok)
			fprintf(f, "  one way         the one-way latencies alone "
			    "give a typical frame %.1f%% %s\n",
			    100 * x->agreement, x->agreement < 0.05 ?
			    "apart (the clocks agree)" : "apart (the nodes' "
			    "clocks differ: round trips used)");
	}
	fprintf(f, "  model           latency = %.1f + H * %.1f ns + bytes * 8 "
	    "/ %.4g Gb/s%s%s", x->eng.base_ns, x->eng.hop_ns, x->gbps,
	    x->saf ? " * (H + 1)" : "", x->shaped ? " while the links' "
	    "buckets hold the frame" : "");
	if (x->slope_gbps > 0)
		fprintf(f, " (the latency slope alone: %.4g Gb/s)",
		    x->slope_gbps);
	fprintf(f, "\n");
	if (!x->ports)
		fprintf(f, "  residual        median %.2f%%, p90 %.2f%% against "
		    "the envelope fitted; median %.2f%%, p90 %.2f%% against all "
		    "%zu used\n", 100 * ft->med_rel, 100 * ft->p90_rel,
		    100 * ft->all_med_rel, 100 * ft->all_p90_rel, ft->used);
	if (x->r_iso_ok)
		table_resid(f, "zero-load 1-way", &x->r_iso);
	if (x->r_rtt_ok)
		table_resid(f, "round trips", &x->r_rtt);
	fprintf(f, "  hosts           turnaround median %.1f us of %zu "
	    "requests <= %d B (quartiles %.1f, %.1f us)\n\n", x->host_ns / 1e3,
	    x->host_used, TT_CALIB_HOST_BYTES, x->host_q[0] / 1e3,
	    x->host_q[1] / 1e3);
	fprintf(f, "%-20s %12s  %-6s %s\n", "parameter", "value", "unit",
	    "source");
	for (i = 0; i < P_N; i++) {
		char v[64];

		if (!param_shown(x, i))
			continue;
		if (i == P_SAF)
			snprintf(v, sizeof(v), "%s", x->saf ? "true" : "false");
		else
			snprintf(v, sizeof(v), "%.*f", x->p[i].prec,
			    x->p[i].value);
		fprintf(f, "%-20s %12s  %-6s %s\n", x->p[i].name, v,
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
