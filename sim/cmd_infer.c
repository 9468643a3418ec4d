/*
 * ttsim trace infer: from a trace, each message's predecessors and compute
 * gap (twintorus/infer.h), written as a dependency file
 * (twintorus/deps.h) for ttsim replay --causal.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "twintorus/infer.h"
#include "twintorus/model.h"
#include "twintorus/mpitrace.h"
#include "twintorus/json.h"
#include "twintorus/outfile.h"
#include "ttsim.h"

static void
infer_usage(FILE *f)
{
	fprintf(f,
"usage: ttsim trace infer TRACE... [FILE.yaml] [network flags] -o FILE\n"
"                         [--burst-gap NS] [--ack-turn NS] [--pause NS]\n"
"                         [--window NS]\n"
"                         [--turnaround NS | --recorded-model FILE]\n"
"                         [--score FILE] [--json]\n"
"\n"
"Reads a trace as ttd records it (per node: what its PEs sent, and a copy\n"
"of what was delivered to them, with source PE and sequence number) and\n"
"writes, per message, which received messages enabled it and how long its\n"
"PE computed before sending it: the input of ttsim replay --causal.  Every\n"
"gap is measured on one node's clock; clocks of different nodes are never\n"
"compared.  The rules:\n"
"  1. ARP, IPv6 neighbour discovery and TCP segments without payload (pure\n"
"     ACKs, SYN/FIN/RST) are transport: counted, set aside.\n"
"  2. A PE's TCP data segments on one connection and direction are one\n"
"     message per write of the application: the segments up to one that\n"
"     ends a write (PSH), and after it those that keep the network's pace\n"
"     (segments further apart than --burst-gap, the next within twice\n"
"     their spacing), or that the transport held back (after a PSH on a\n"
"     full segment, the next within --ack-turn of an ACK of the\n"
"     connection, the sender having had no data since); data coming back\n"
"     ends it.  Any other frame is one message.  A message is sent at its\n"
"     first frame and received at the delivery of its last.\n"
"  3. A delivery whose send is not in the trace, and a message with a\n"
"     frame never delivered, enable nothing (counted); each is given up\n"
"     after --window of trace time.\n"
"  4. A PE's sends form bursts (back to back: no receive between them, no\n"
"     pause over --pause).  A burst's first send is enabled by messages\n"
"     received since the last burst, taken per source in the source's\n"
"     order: the oldest step of each (a source's burst is one step), more\n"
"     if every source sent more; a message that answers the PE's last\n"
"     burst while an older one of its sender waits is a step ahead and\n"
"     enables the next burst.  Other sends of a burst have none.  A TCP\n"
"     send instead has one: the latest message received before it, if no\n"
"     earlier send took it; the rest enable nothing.\n"
"  5. Its gap: its time minus the later of the PE's previous send (for\n"
"     TCP, that send's last frame) and the arrival of its predecessors;\n"
"     with predecessors, less --turnaround.\n"
"  6. A cycle (possible only with a wrong trace) is broken with a warning.\n"
"Plain captures (tcpdump, through the YAML addresses: map) have no delivery\n"
"copies: a frame is taken as received when captured, an approximation.\n"
"Without FILE.yaml or network flags the network is a 3DT 4x4x4: give the\n"
"one that has as many PEs as the trace.\n"
"\n"
"Exit status: 0 written, 2 bad usage or a damaged trace.\n");
}

/* The inference's own limits, for --burst-gap, --pause and --window. */
#define INFER_NS_MAX (1ull << 50)

const optdef inferopts_flags[] = {
	OPT_TITLE("dependency inference (the rules of ttsim trace infer "
	    "--help):"),
	OPT_VALDEF("burst-gap", OPT_BURST_GAP, "NS",
	    "rule 2: TCP segments further apart end a write",
	    TT_INFER_BURST_GAP_NS_DEFAULT),
	OPT_VALDEF("ack-turn", OPT_ACK_TURN, "NS",
	    "rule 2: after a PSH, a TCP segment this soon after an ACK of its "
	    "connection continues the write", TT_INFER_ACK_TURN_NS_DEFAULT),
	OPT_VALDEF("pause", OPT_PAUSE, "NS", "rule 4: a longer pause ends a burst",
	    TT_INFER_PAUSE_NS_DEFAULT),
	OPT_VALDEF("window", OPT_WINDOW, "NS",
	    "rule 3: trace time after which an unmatched send or delivery is "
	    "given up", TT_INFER_WINDOW_NS_DEFAULT),
	OPT_VAL("turnaround", OPT_TURNAROUND, "NS",
	    "rule 5: the recorded hosts' time to take a message up to the "
	    "application and its answer down, outside the trace (ttsim trace "
	    "calibrate's host_ns; default 0)"),
	OPT_VAL("recorded-model", OPT_RECORDED_MODEL, "FILE",
	    "the recording's model file (ttsim trace calibrate -o): "
	    "--turnaround is its host_ns (replay of an MPI-level trace: "
	    "host_ns fitted so that the trace takes its recorded time there)"),
	OPT_END
};

/* --recorded-model FILE: the recording's hardware model (a calibration's
 * model file); its host_ns is the turnaround. */
static int
recorded_model(const struct optval *v, tt_infer_params *ip)
{
	tt_model m;

	if (tt_model_load(&m, v->value, stderr) != 0)
		return -1;
	ip->turnaround_ns = m.set & TT_MODEL_HOST_NS ?
	    (uint64_t)llround(m.host_ns) : 0;
	return 0;
}

int
inferopts_take(void *state, const struct optval *v)
{
	tt_infer_params *ip = state;

	switch (v->id) {
	case OPT_BURST_GAP:
		return opt_u64(v->cmd, v->flag, v->value, 0, INFER_NS_MAX,
		    &ip->burst_gap_ns);
	case OPT_PAUSE:
		return opt_u64(v->cmd, v->flag, v->value, 0, INFER_NS_MAX,
		    &ip->pause_ns);
	case OPT_TURNAROUND:
		return opt_u64(v->cmd, v->flag, v->value, 0, INFER_NS_MAX,
		    &ip->turnaround_ns);
	case OPT_ACK_TURN:
		return opt_u64(v->cmd, v->flag, v->value, 0, INFER_NS_MAX,
		    &ip->ack_turn_ns);
	case OPT_RECORDED_MODEL:
		return recorded_model(v, ip);
	}
	return opt_u64(v->cmd, v->flag, v->value, 1, INFER_NS_MAX,
	    &ip->window_ns);
}

struct infer_opts {
	netopts no;
	outopts out;
	const char **paths;
	size_t np;
	const char *file, *score;
	tt_infer_params ip;
};

enum { OPT_INFER_SCORE = OPT_OWN };

static const optdef infer_flags[] = {
	OPT_TITLE("trace infer:"),
	OPT_VAL("out", OPT_OUT, "FILE",
	    "the dependency file (- for standard output): one line per "
	    "message: pe seq dst bytes t_ns gap_ns preds"),
	OPT_VAL("score", OPT_INFER_SCORE, "FILE",
	    "compare with true dependencies (ttsim app --deps-out): precision "
	    "and recall of the predecessors"),
	OPT_END
};

static int
infer_take(void *state, const struct optval *v)
{
	struct infer_opts *o = state;

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
	o->score = v->value;
	return 0;
}

/* OPT_PARSED, OPT_HELP_SHOWN or -1 after a message. */
static int
infer_parse(struct infer_opts *o, int argc, char **argv)
{
	const char *cmd = "trace infer";
	const opt_group groups[] = {
		{infer_flags, 1, infer_take, o},
		{inferopts_flags, 0, inferopts_take, &o->ip},
		{netopts_flags, 0, netopts_take, &o->no},
		{outopts_json, 0, outopts_take, &o->out},
	};
	size_t i;
	int rc;

	netopts_init(&o->no);
	tt_infer_params_default(&o->ip);
	if ((o->paths = calloc((size_t)argc, sizeof(*o->paths))) == NULL)
		return -1;
	rc = opt_parse(cmd, infer_usage, groups, OPT_NGROUPS(groups), argc,
	    argv);
	if (rc != OPT_PARSED)
		return rc;
	if (o->np == 0 || o->file == NULL) {
		fprintf(stderr, "ttsim trace infer: give trace files or "
		    "directories and -o FILE (see ttsim trace infer --help)\n");
		return -1;
	}
	for (i = 0; i < o->np; i++)
		if (tt_mpi_trace_is(o->paths[i])) {
			fprintf(stderr, "ttsim trace infer: %s is an MPI-level "
			    "trace: its calls give the dependencies; replay it "
			    "as it is (ttsim replay %s)\n", o->paths[i],
			    o->paths[i]);
			return -1;
		}
	if (o->out.json && strcmp(o->file, "-") == 0) {
		fprintf(stderr, "ttsim trace infer: --json and -o - both want "
		    "standard output; give -o a file\n");
		return -1;
	}
	if (netopts_finish(&o->no, cmd) < 0)
		return -1;
	if (o->no.ports_all) {
		fprintf(stderr, "ttsim trace infer: --ports all is for analyze "
		    "and sweep; the trace needs one network\n");
		return -1;
	}
	return OPT_PARSED;
}

/* ---- scoring against the true dependencies ---- */

struct truth {
	uint64_t *key;          /* (pe, seq), sorted */
	uint32_t *off;          /* nkey + 1 into pred */
	uint64_t *gap;
	tt_depref *pred;
	size_t nkey, npred;
};

static int
key_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Load the true dependencies (all of them: scoring is a test's job). */
static int
truth_load(struct truth *t, const char *path)
{
	tt_deps_reader *r;
	tt_dep d;
	size_t cap = 0, pcap = 0, k;
	char err[512];
	int x;

	memset(t, 0, sizeof(*t));
	/* -o must not replace it */
	(void)tt_outfile_input(path);
	if (tt_deps_open(&r, path, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim trace infer: --score %s\n", err);
		return -1;
	}
	while ((x = tt_deps_read(r, &d, err, sizeof(err))) > 0) {
		if (t->nkey + 1 >= cap) {
			cap = cap ? cap * 2 : 1024;
			t->key = realloc(t->key, cap * sizeof(uint64_t));
			t->off = realloc(t->off, (cap + 1) * sizeof(uint32_t));
			t->gap = realloc(t->gap, cap * sizeof(uint64_t));
			if (t->key == NULL || t->off == NULL || t->gap == NULL)
				goto nomem;
		}
		while (t->npred + d.npred > pcap) {
			pcap = pcap ? pcap * 2 : 4096;
			if ((t->pred = realloc(t->pred, pcap * sizeof(tt_depref))) == NULL)
				goto nomem;
		}
		/* key and line number together: pe, seq, then the index */
		t->key[t->nkey] = (uint64_t)d.pe << 32 | d.seq;
		t->off[t->nkey] = (uint32_t)t->npred;
		t->gap[t->nkey++] = d.gap_ns;
		for (k = 0; k < d.npred; k++)
			t->pred[t->npred++] = d.pred[k];
	}
	tt_deps_close_reader(r);
	if (x < 0) {
		fprintf(stderr, "ttsim trace infer: --score %s\n", err);
		return -1;
	}
	if (t->off == NULL && (t->off = malloc(sizeof(uint32_t))) == NULL)
		goto nomem;
	t->off[t->nkey] = (uint32_t)t->npred;
	return 0;
nomem:
	fprintf(stderr, "ttsim trace infer: --score: out of memory\n");
	return -1;
}

/* Lines are found by binary search over a sorted copy of the keys that
 * carries each key's line index in a parallel array. */
struct scorer {
	struct truth t;
	uint64_t *sorted;       /* key << 0, sorted */
	uint32_t *line;         /* line of sorted[i] */
	uint64_t tp, fp, fn_missing, lines, matched, gap_err;
	uint64_t true_preds;
};

static int
score_init(struct scorer *s, const char *path)
{
	size_t i;
	uint64_t (*pairs)[2];

	memset(s, 0, sizeof(*s));
	if (truth_load(&s->t, path) < 0)
		return -1;
	s->true_preds = s->t.npred;
	pairs = malloc(s->t.nkey * sizeof(*pairs) + 1);
	s->sorted = malloc(s->t.nkey * sizeof(uint64_t) + 1);
	s->line = malloc(s->t.nkey * sizeof(uint32_t) + 1);
	if (pairs == NULL || s->sorted == NULL || s->line == NULL) {
		free(pairs);
		fprintf(stderr, "ttsim trace infer: --score: out of memory\n");
		return -1;
	}
	for (i = 0; i < s->t.nkey; i++) {
		pairs[i][0] = s->t.key[i];
		pairs[i][1] = i;
	}
	qsort(pairs, s->t.nkey, sizeof(*pairs), key_cmp);
	for (i = 0; i < s->t.nkey; i++) {
		s->sorted[i] = pairs[i][0];
		s->line[i] = (uint32_t)pairs[i][1];
	}
	free(pairs);
	return 0;
}

static void
score_line(struct scorer *s, const tt_dep *d)
{
	uint64_t key = (uint64_t)d->pe << 32 | d->seq, g;
	size_t lo = 0, hi = s->t.nkey, k, j;
	uint32_t ln, a, b;

	s->lines++;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->sorted[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == s->t.nkey || s->sorted[lo] != key) {
		s->fp += d->npred;
		return;
	}
	ln = s->line[lo];
	a = s->t.off[ln];
	b = s->t.off[ln + 1];
	s->matched++;
	g = s->t.gap[ln];
	s->gap_err += g > d->gap_ns ? g - d->gap_ns : d->gap_ns - g;
	for (k = 0; k < d->npred; k++) {
		for (j = a; j < b; j++)
			if (s->t.pred[j].src == d->pred[k].src &&
			    s->t.pred[j].seq == d->pred[k].seq)
				break;
		if (j < b)
			s->tp++;
		else
			s->fp++;
	}
}

static void
score_free(struct scorer *s)
{
	free(s->t.key);
	free(s->t.off);
	free(s->t.gap);
	free(s->t.pred);
	free(s->sorted);
	free(s->line);
}

static void
print_summary(FILE *f, const struct infer_opts *o, const tt_infer_stats *st,
    const struct scorer *sc, int scored)
{
	double prec = st->predecessors ? (double)sc->tp /
	    (double)st->predecessors : 1;
	double rec = sc->true_preds ? (double)sc->tp / (double)sc->true_preds : 1;

	if (o->out.json) {
		tt_json_begin(f, TT_JSON_SCHEMA_TRACE_INFER);
		fprintf(f, ", \"out\": ");
		tt_json_string(f, o->file);
		fprintf(f, ", \"records\": %" PRIu64 ", \"frames\": %" PRIu64
		    ", \"deliveries\": %" PRIu64 ", \"plain\": %" PRIu64
		    ", \"messages\": %" PRIu64 ", \"grouped\": %" PRIu64
		    ", \"predecessors\": %" PRIu64 ", \"transport\": {\"tcp_acks\": "
		    "%" PRIu64 ", \"tcp_control\": %" PRIu64
		    ", \"tcp_retransmissions\": %" PRIu64 ", \"arp\": %" PRIu64
		    ", \"nd\": %" PRIu64 "}, \"hello\": %" PRIu64 ", \"unmapped\": %"
		    PRIu64 ", \"lost_sends\": %" PRIu64 ", \"mismatched_deliveries\": %"
		    PRIu64 ", \"undelivered\": %" PRIu64
		    ", \"passed_over\": %" PRIu64 ", \"cycles_broken\": %" PRIu64
		    ", \"truncated_files\": %" PRIu64 ", \"max_held\": %" PRIu64
		    ", \"no_delivery_copies\": %s", st->records, st->frames,
		    st->deliveries, st->plain, st->messages, st->grouped,
		    st->predecessors, st->tcp_acks, st->tcp_control,
		    st->tcp_retrans, st->arp, st->nd, st->hello, st->unmapped, st->lost_sends,
		    st->mismatched, st->undelivered, st->passed_over, st->cycles_broken,
		    st->truncated, st->max_held, o->ip.no_copies ? "true" : "false");
		fprintf(f, ", \"compute\": {\"gaps_s\": %.9f, \"span_s\": %.9f, "
		    "\"share_mean\": %.6f, \"share_max\": %.6f}",
		    (double)st->gap_ns * 1e-9, (double)st->span_ns * 1e-9,
		    st->gap_share_mean, st->gap_share_max);
		if (scored)
			fprintf(f, ", \"score\": {\"true_predecessors\": %" PRIu64
			    ", \"true_positives\": %" PRIu64 ", \"precision\": %.6f"
			    ", \"recall\": %.6f, \"messages_matched\": %" PRIu64
			    ", \"true_messages\": %zu, \"mean_gap_error_ns\": %.1f}",
			    sc->true_preds, sc->tp, prec, rec, sc->matched,
			    sc->t.nkey, sc->matched ? (double)sc->gap_err /
			    (double)sc->matched : 0);
		fprintf(f, "}\n");
		return;
	}
	fprintf(f, "%" PRIu64 " records: %" PRIu64 " frames sent, %" PRIu64
	    " delivery copies\n", st->records, st->frames, st->deliveries);
	fprintf(f, "  messages        %" PRIu64 " (%" PRIu64 " frames joined "
	    "one started before them)\n", st->messages, st->grouped);
	fprintf(f, "  predecessors    %" PRIu64 "\n", st->predecessors);
	fprintf(f, "  set aside       %" PRIu64 " TCP ACKs, %" PRIu64 " TCP "
	    "SYN/FIN/RST, %" PRIu64 " TCP retransmissions,\n                  %"
	    PRIu64 " ARP, %" PRIu64 " neighbour discovery, %" PRIu64 " hello "
	    "(sends and delivery copies alike)\n", st->tcp_acks,
	    st->tcp_control, st->tcp_retrans, st->arp, st->nd, st->hello);
	fprintf(f, "  not matched     %" PRIu64 " deliveries without a send, %"
	    PRIu64 " inconsistent with theirs, %" PRIu64 " messages not "
	    "wholly delivered\n", st->lost_sends, st->mismatched,
	    st->undelivered);
	fprintf(f, "  enabled nothing %" PRIu64 " received messages\n",
	    st->passed_over);
	fprintf(f, "  compute gaps    %.6f s in all; per sending PE %.1f%% of "
	    "the %.6f s span on average, %.1f%% at most\n",
	    (double)st->gap_ns * 1e-9, 100 * st->gap_share_mean,
	    (double)st->span_ns * 1e-9, 100 * st->gap_share_max);
	if (scored)
		fprintf(f, "  against %s: precision %.4f, recall %.4f (%" PRIu64
		    " true predecessors), %" PRIu64 " of %zu messages matched, "
		    "gaps off by %.1f ns on average\n", o->score, prec, rec,
		    sc->true_preds, sc->matched, sc->t.nkey, sc->matched ?
		    (double)sc->gap_err / (double)sc->matched : 0);
	fprintf(f, "wrote %s\n", o->file);
}

/* Pass 1: the trace reads (every damaged record is reported) and whether
 * it has delivery copies (ip->no_copies).  -1 after a message naming cmd. */
int
infer_check_trace(const char *cmd, const char *const *paths, size_t np,
    const tt_net *net, const tt_addrmap *map, tt_infer_params *ip)
{
	tt_trace_in *in;
	tt_msg m;
	char err[1024];
	int x;
	const tt_trace_stats *st;

	if (tt_trace_in_open(&in, paths, np, map, net->ncards, err,
	    sizeof(err)) < 0) {
		fprintf(stderr, "ttsim %s: %s\n", cmd, err);
		return -1;
	}
	while ((x = tt_trace_in_next(in, &m, err, sizeof(err))) > 0)
		;
	if (x < 0) {
		fprintf(stderr, "ttsim %s: %s\n", cmd, err);
		tt_trace_in_close(in);
		return -1;
	}
	st = tt_trace_in_stats(in, tt_trace_in_nfiles(in));
	if (st->messages == 0) {
		fprintf(stderr, "ttsim %s: the trace holds no messages "
		    "(%" PRIu64 " records read)\n", cmd, st->records);
		tt_trace_in_close(in);
		return -1;
	}
	ip->no_copies = st->delivered == 0 && st->plain < st->messages;
	{
		char prefix[64];

		snprintf(prefix, sizeof(prefix), "ttsim %s: warning: ", cmd);
		tt_trace_in_warnings(in, stderr, prefix);
	}
	tt_trace_in_close(in);
	return 0;
}

/* What trace infer builds and writes. */
struct infer_run {
	struct infer_opts o;
	struct scorer sc;
	int scored;
	tt_net net;
	tt_addrmap map;
	tt_infer *inf;
	tt_deps_writer *w;
};

/* The network, the address map, the trace read through once, the truth
 * to score against: -1 after a message. */
static int
infer_build(struct infer_run *x)
{
	char err[1024];

	if (tt_net_init(&x->net, &x->o.no.spec, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim trace infer: %s\n", err);
		return -1;
	}
	if (tt_addrmap_build(&x->map, &x->o.no.cfg, &x->net, stderr) > 0 ||
	    infer_check_trace("trace infer", x->o.paths,
	    x->o.np, &x->net, &x->map, &x->o.ip) < 0)
		return -1;
	if (x->o.score != NULL) {
		if (score_init(&x->sc, x->o.score) < 0)
			return -1;
		x->scored = 1;
	}
	x->o.ip.npes = x->net.ncards;
	x->o.ip.map = &x->map;
	if (tt_infer_open(&x->inf, x->o.paths, x->o.np, &x->o.ip, err,
	    sizeof(err)) < 0 ||
	    tt_deps_create(&x->w, x->o.file, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim trace infer: %s\n", err);
		return -1;
	}
	return 0;
}

/* Every line inferred, written and scored; the file closed whole or
 * left as it was.  -1 after a message. */
static int
infer_write(struct infer_run *x)
{
	tt_deps_writer *w = x->w;
	tt_dep d;
	char err[1024];
	int r;

	x->w = NULL;
	/* a write that fails is kept and said when the file closes */
	while ((r = tt_infer_next(x->inf, &d, err, sizeof(err))) > 0) {
		if (tt_deps_write(w, &d) < 0)
			break;
		if (x->scored)
			score_line(&x->sc, &d);
	}
	if (r < 0) {
		tt_deps_discard(w);
		fprintf(stderr, "ttsim trace infer: %s\n", err);
		return -1;
	}
	if (tt_deps_close(w, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim trace infer: -o %s\n", err);
		return -1;
	}
	return 0;
}

static void
infer_free(struct infer_run *x)
{
	tt_deps_discard(x->w);
	tt_infer_free(x->inf);
	if (x->scored)
		score_free(&x->sc);
	tt_addrmap_free(&x->map);
	if (x->net.coord != NULL)
		tt_net_free(&x->net);
	tt_config_free(&x->o.no.cfg);
	free(x->o.paths);
}

int
cmd_trace_infer(int argc, char **argv)
{
	static struct infer_run x;
	int rc;

	memset(&x, 0, sizeof(x));
	rc = infer_parse(&x.o, argc, argv);
	if (rc == OPT_HELP_SHOWN) {
		rc = TTSIM_EXIT_OK;
	} else if (rc != OPT_PARSED || infer_build(&x) < 0 ||
	    infer_write(&x) < 0) {
		rc = TTSIM_EXIT_USAGE;
	} else {
		tt_infer_warnings(x.inf, stderr, "ttsim trace infer: warning: ");
		print_summary(strcmp(x.o.file, "-") == 0 ? stderr : stdout,
		    &x.o, tt_infer_stats_get(x.inf), &x.sc, x.scored);
		rc = TTSIM_EXIT_OK;
	}
	infer_free(&x);
	return rc;
}
