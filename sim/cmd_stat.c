/*
 * ttsim trace stat: summarise traces.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "twintorus/json.h"
#include "twintorus/mpitrace.h"
#include "twintorus/trace.h"
#include "ttsim.h"

static void
stat_usage(FILE *f)
{
	fprintf(f,
"usage: ttsim trace stat TRACE... [FILE.yaml] [network flags] [--json]\n"
"                        [--top N]\n"
"\n"
"Summarises traces (pcap or pcapng files, - for standard input, or\n"
"directories of them, merged by time as replay reads them): records,\n"
"messages, bytes, duration, what was skipped, messages and bytes per PE, and\n"
"the busiest source x destination pairs.  With a YAML file or network flags,\n"
"PE ids are checked against that network and plain captures are read through\n"
"the file's addresses: map.  Plain frames (Ethernet/IP, no torus header) with\n"
"no addresses: map are listed by address (IP and MAC: frames and bytes sent\n"
"and received), to write that map from.\n"
"\n"
"\n"
"An MPI-level trace (an OTF2 archive, named by its anchor file FILE.otf2; a\n"
"SimGrid time-independent trace, named by its index file or a directory\n"
"holding smpi_simgrid.txt, its compute in flops at --ti-flops) is\n"
"summarised alone: its ranks, its messages as causal replay sends them (each\n"
"point-to-point message once, and the messages the collectives become),\n"
"their payload bytes, the collective calls, the recorded span and compute,\n"
"and the busiest rank pairs.\n"
"\n"
"Exit status: 0 read, 2 bad usage or a damaged trace.\n");
}

/* What stat keeps beyond the reader's statistics. */
struct tstat {
	tt_tally *tally;
	tt_hist size;
	uint64_t min_size;
	int top;
};

/* A plain frame read with no address map: its addresses counted. */
static int
on_plain(void *ctx, const tt_trace_rec *rec, const tt_frame *f)
{
	return tt_tally_frame(ctx, rec, f);
}

static void
print_time(FILE *f, uint64_t ns)
{
	time_t sec = (time_t)(ns / 1000000000u);
	struct tm tm;
	char buf[64];

	gmtime_r(&sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(f, "%s.%09" PRIu64 "Z", buf, ns % 1000000000u);
}

static void
json_stats_fields(FILE *f, const tt_trace_stats *st)
{
	fprintf(f, "\"records\": %" PRIu64 ", \"messages\": %" PRIu64
	    ", \"bytes\": %" PRIu64 ", \"plain_frames\": %" PRIu64
	    ", \"plain_listed\": %" PRIu64 ", \"hello_frames\": %" PRIu64
	    ", \"delivery_copies\": %" PRIu64 ", \"unmapped_frames\": %" PRIu64
	    ", \"out_of_order\": %" PRIu64 ", \"longer_than_ttd_frames\": %"
	    PRIu64, st->records, st->messages, st->bytes, st->plain,
	    st->listed, st->hello, st->delivered, st->unmapped, st->backwards,
	    st->oversize);
}

static const char *
addr_kind(int kind)
{
	return kind == TT_ADDR_IPV4 ? "ipv4" : kind == TT_ADDR_IPV6 ? "ipv6" :
	    "mac";
}

static void
json_addresses(const tt_tally_addr *a, size_t na)
{
	char text[64];
	size_t i;

	printf(", \"addresses\": [");
	for (i = 0; i < na; i++) {
		printf("%s{\"address\": \"%s\", \"kind\": \"%s\", "
		    "\"sent_frames\": %" PRIu64 ", \"sent_bytes\": %" PRIu64
		    ", \"received_frames\": %" PRIu64 ", \"received_bytes\": %"
		    PRIu64 "}", i ? ", " : "", tt_addr_text(a[i].kind,
		    a[i].bytes, text, sizeof(text)), addr_kind(a[i].kind),
		    a[i].sent_frames, a[i].sent_bytes, a[i].received_frames,
		    a[i].received_bytes);
	}
	printf("]");
}

static void
print_json(tt_trace_in *in, const struct tstat *t, const tt_trace_stats *st,
    const tt_tally_pe *pe, size_t npe, const tt_tally_pair *pr, size_t npr,
    const tt_tally_addr *ad, size_t nad)
{
	double dur = st->messages ? (double)(st->last_ns - st->first_ns) * 1e-9 : 0;
	size_t i;

	tt_json_begin(stdout, TT_JSON_SCHEMA_TRACE_STAT);
	printf(", \"files\": [");
	for (i = 0; i < tt_trace_in_nfiles(in); i++) {
		const tt_trace_stats *fs = tt_trace_in_stats(in, i);

		printf("%s{\"path\": ", i ? ", " : "");
		tt_json_string(stdout, tt_trace_in_path(in, i));
		printf(", ");
		json_stats_fields(stdout, fs);
		printf(", \"truncated_record\": ");
		if (fs->truncated)
			printf("%" PRIu64 "}", fs->truncated);
		else
			printf("null}");
	}
	printf("], ");
	json_stats_fields(stdout, st);
	printf(", \"first_ns\": %" PRIu64 ", \"last_ns\": %" PRIu64
	    ", \"duration_s\": %.9f", st->first_ns, st->last_ns, dur);
	printf(", \"message_bytes\": {\"min\": %" PRIu64 ", \"mean\": %.1f"
	    ", \"p50\": %" PRIu64 ", \"max\": %" PRIu64 "}",
	    st->messages ? t->min_size : 0,
	    st->messages ? (double)st->bytes / (double)st->messages : 0.0,
	    tt_hist_quantile(&t->size, 0.5), t->size.max);
	printf(", \"pes\": [");
	for (i = 0; i < npe; i++)
		printf("%s{\"pe\": %" PRIu32 ", \"sent_messages\": %" PRIu64
		    ", \"sent_bytes\": %" PRIu64 ", \"received_messages\": %"
		    PRIu64 ", \"received_bytes\": %" PRIu64 "}", i ? ", " : "",
		    pe[i].pe, pe[i].sent_messages, pe[i].sent_bytes,
		    pe[i].received_messages, pe[i].received_bytes);
	printf("], \"pairs\": %zu, \"top_pairs\": [", npr);
	for (i = 0; i < npr && i < (size_t)t->top; i++)
		printf("%s{\"src\": %" PRIu32 ", \"dst\": %" PRIu32
		    ", \"messages\": %" PRIu64 ", \"bytes\": %" PRIu64 "}",
		    i ? ", " : "", pr[i].src, pr[i].dst, pr[i].messages,
		    pr[i].bytes);
	printf("]");
	json_addresses(ad, nad);
	printf("}\n");
}

/* The addresses of plain frames read without a map, and how to map them. */
static void
print_addresses(const tt_trace_stats *st, const tt_tally_addr *a, size_t na,
    int top)
{
	char text[64], ex[2][64];
	size_t i, nex = 0;

	printf("  plain frames  %" PRIu64 " without a torus header, listed by "
	    "address below; to replay\n                them, map the addresses "
	    "to PEs in the YAML file", st->listed);
	for (i = 0; i < na && nex < 2; i++)
		if (a[i].kind != TT_ADDR_MAC)
			tt_addr_text(a[i].kind, a[i].bytes, ex[nex++],
			    sizeof(ex[0]));
	for (i = 0; i < na && nex < 2; i++)
		if (a[i].kind == TT_ADDR_MAC && a[i].sent_frames > 0)
			tt_addr_text(a[i].kind, a[i].bytes, ex[nex++],
			    sizeof(ex[0]));
	if (nex == 2)
		printf(", e.g.\n                addresses: {\"%s\": PE, \"%s\": "
		    "PE}  (PE: an id or x,y,z/card)", ex[0], ex[1]);
	printf("\n");
	printf("\naddresses, most frames first (of %zu):\n  %-39s %10s %14s "
	    "%10s %14s\n", na, "address", "sent", "bytes", "received", "bytes");
	for (i = 0; i < na && i < (size_t)top; i++)
		printf("  %-39s %10" PRIu64 " %14" PRIu64 " %10" PRIu64 " %14"
		    PRIu64 "\n", tt_addr_text(a[i].kind, a[i].bytes, text,
		    sizeof(text)), a[i].sent_frames, a[i].sent_bytes,
		    a[i].received_frames, a[i].received_bytes);
	if (na > (size_t)top)
		printf("  ... and %zu more (--top N lists more, --json all)\n",
		    na - (size_t)top);
}

static void
print_text(tt_trace_in *in, const struct tstat *t, const tt_trace_stats *st,
    const tt_tally_pe *pe, size_t npe, const tt_tally_pair *pr, size_t npr,
    const tt_tally_addr *ad, size_t nad)
{
	double dur = st->messages ? (double)(st->last_ns - st->first_ns) * 1e-9 : 0;
	size_t i, senders = 0;

	printf("%zu file%s, %" PRIu64 " records\n", tt_trace_in_nfiles(in),
	    tt_trace_in_nfiles(in) == 1 ? "" : "s", st->records);
	printf("  messages      %" PRIu64 " (%" PRIu64 " bytes)", st->messages,
	    st->bytes);
	if (st->plain)
		printf(", %" PRIu64 " of them plain frames", st->plain);
	printf("\n");
	if (st->hello || st->delivered || st->unmapped)
		printf("  skipped       %" PRIu64 " hello, %" PRIu64
		    " delivery copies, %" PRIu64 " unmapped\n", st->hello,
		    st->delivered, st->unmapped);
	if (st->messages) {
		printf("  first         ");
		print_time(stdout, st->first_ns);
		printf("\n  duration      %.9f s\n", dur);
		if (dur > 0)
			printf("  rate          %.0f messages/s, %.3f Gb/s\n",
			    (double)st->messages / dur,
			    (double)st->bytes * 8e-9 / dur);
		printf("  message size  min %" PRIu64 ", mean %.1f, median %"
		    PRIu64 ", max %" PRIu64 " bytes\n", t->min_size,
		    (double)st->bytes / (double)st->messages,
		    tt_hist_quantile(&t->size, 0.5), t->size.max);
	}
	for (i = 0; i < npe; i++)
		senders += pe[i].sent_messages > 0;
	printf("  PEs           %zu send, ids up to %" PRIu32 "\n", senders,
	    npe ? pe[npe - 1].pe : 0);
	printf("  pairs         %zu source x destination pairs\n", npr);
	if (st->listed)
		print_addresses(st, ad, nad, t->top);
	if (npr) {
		printf("\nbusiest pairs (of %zu):\n  %8s %8s %10s %14s\n", npr,
		    "src", "dst", "messages", "bytes");
		for (i = 0; i < npr && i < (size_t)t->top; i++)
			printf("  %8" PRIu32 " %8" PRIu32 " %10" PRIu64 " %14"
			    PRIu64 "\n", pr[i].src, pr[i].dst, pr[i].messages,
			    pr[i].bytes);
		printf("\nper PE (first %d by id):\n  %10s %10s %14s %10s "
		    "%14s\n", t->top, "pe", "sent", "bytes", "received",
		    "bytes");
		for (i = 0; i < npe && i < (size_t)t->top; i++)
			printf("  %10" PRIu32 " %10" PRIu64 " %14" PRIu64 " %10"
			    PRIu64 " %14" PRIu64 "\n", pe[i].pe,
			    pe[i].sent_messages, pe[i].sent_bytes,
			    pe[i].received_messages, pe[i].received_bytes);
	}
}

/* Read every message (and listed plain frame) into t; 0, or -1 said. */
static int
stat_read(tt_trace_in *in, struct tstat *t, const char *cmd)
{
	char err[1024];
	tt_msg m;
	int x;

	t->min_size = UINT64_MAX;
	while ((x = tt_trace_in_next(in, &m, err, sizeof(err))) > 0) {
		if (tt_tally_msg(t->tally, &m) < 0) {
			fprintf(stderr, "ttsim %s: out of memory\n", cmd);
			return -1;
		}
		tt_hist_add(&t->size, m.bytes);
		if (m.bytes < t->min_size)
			t->min_size = m.bytes;
	}
	if (x < 0) {
		fprintf(stderr, "ttsim %s: %s\n", cmd, err);
		return -1;
	}
	return 0;
}

/* What ttsim trace stat is told. */
struct statargs {
	netopts net;
	outopts out;
	const char **paths;
	size_t npaths;
	int top;
	double ti_flops;        /* --ti-flops (0: not given) */
};

/* ---- MPI-level traces (twintorus/mpitrace.h) ---- */

/* Each message of the conversion counted per rank and pair. */
static int
mpi_tally(const tt_mpi_trace *mt, tt_tally *tally, char *err, size_t errsz)
{
	tt_mpi_deps *d;
	tt_dep_stream s;
	tt_dep line;
	tt_msg m;
	int x;

	if (tt_mpi_deps_open(&d, mt, err, errsz) < 0)
		return -1;
	s = tt_mpi_deps_stream(d);
	memset(&m, 0, sizeof(m));
	while ((x = s.next(s.ctx, &line, err, errsz)) > 0) {
		m.src = line.pe;
		m.dst = line.dst;
		m.seq = line.seq;
		m.bytes = line.bytes;
		m.t_ns = line.t_ns;
		if (tt_tally_msg(tally, &m) < 0) {
			snprintf(err, errsz, "out of memory");
			x = -1;
			break;
		}
	}
	tt_mpi_deps_free(d);
	return x;
}

static void
mpi_print(const char *path, const tt_mpi_trace *mt, const tt_mpi_totals *tot,
    const tt_tally_pe *pe, size_t npe, const tt_tally_pair *pr, size_t npr,
    int json, int top)
{
	double span = (double)mt->span_ns * 1e-9;
	double compute = (double)tot->compute_ns * 1e-9;
	size_t i;

	if (json) {
		tt_json_begin(stdout, TT_JSON_SCHEMA_TRACE_STAT);
		printf(", \"files\": [{\"path\": ");
		tt_json_string(stdout, path);
		printf("}], \"format\": ");
		tt_json_string(stdout, mt->format);
		printf(", \"ranks\": %" PRIu32 ", \"communicators\": %" PRIu32
		    ", \"messages\": %" PRIu64 ", \"bytes\": %" PRIu64
		    ", \"p2p_messages\": %" PRIu64 ", \"p2p_bytes\": %" PRIu64
		    ", \"collectives\": %" PRIu64 ", \"collective_messages\": %"
		    PRIu64 ", \"collective_bytes\": %" PRIu64, mt->nranks,
		    mt->ncomms, tot->messages, tot->bytes, tot->p2p_messages,
		    tot->p2p_bytes, tot->collectives,
		    tot->messages - tot->p2p_messages,
		    tot->bytes - tot->p2p_bytes);
		printf(", \"span_s\": ");
		if (mt->timed)
			printf("%.9f", span);
		else
			printf("null");
		printf(", \"compute_s\": %.9f, \"pes\": [", compute);
		for (i = 0; i < npe; i++)
			printf("%s{\"pe\": %" PRIu32 ", \"sent_messages\": %"
			    PRIu64 ", \"sent_bytes\": %" PRIu64
			    ", \"received_messages\": %" PRIu64
			    ", \"received_bytes\": %" PRIu64 "}", i ? ", " : "",
			    pe[i].pe, pe[i].sent_messages, pe[i].sent_bytes,
			    pe[i].received_messages, pe[i].received_bytes);
		printf("], \"pairs\": %zu, \"top_pairs\": [", npr);
		for (i = 0; i < npr; i++)
			printf("%s{\"src\": %" PRIu32 ", \"dst\": %" PRIu32
			    ", \"messages\": %" PRIu64 ", \"bytes\": %" PRIu64
			    "}", i ? ", " : "", pr[i].src, pr[i].dst,
			    pr[i].messages, pr[i].bytes);
		printf("]}\n");
		return;
	}
	printf("%s: an MPI-level trace (%s), %" PRIu32 " ranks, %" PRIu32
	    " communicators\n", path, mt->format, mt->nranks, mt->ncomms);
	printf("  messages      %" PRIu64 " (%" PRIu64 " bytes of payload), as "
	    "causal replay sends them\n", tot->messages, tot->bytes);
	printf("  point to point %" PRIu64 " (%" PRIu64 " bytes)\n",
	    tot->p2p_messages, tot->p2p_bytes);
	printf("  collectives   %" PRIu64 " calls, %" PRIu64 " messages (%" PRIu64
	    " bytes)\n", tot->collectives, tot->messages - tot->p2p_messages,
	    tot->bytes - tot->p2p_bytes);
	if (mt->timed)
		printf("  span          %.9f s recorded\n", span);
	printf("  compute       %.9f s over every rank\n", compute);
	printf("  pairs         %zu source x destination pairs\n", npr);
	if (npr) {
		printf("\nbusiest pairs (of %zu):\n  %8s %8s %10s %14s\n", npr,
		    "src", "dst", "messages", "bytes");
		for (i = 0; i < npr && i < (size_t)top; i++)
			printf("  %8" PRIu32 " %8" PRIu32 " %10" PRIu64 " %14"
			    PRIu64 "\n", pr[i].src, pr[i].dst, pr[i].messages,
			    pr[i].bytes);
		printf("\nper rank (first %d):\n  %10s %10s %14s %10s %14s\n",
		    top, "rank", "sent", "bytes", "received", "bytes");
		for (i = 0; i < npe && i < (size_t)top; i++)
			printf("  %10" PRIu32 " %10" PRIu64 " %14" PRIu64 " %10"
			    PRIu64 " %14" PRIu64 "\n", pe[i].pe,
			    pe[i].sent_messages, pe[i].sent_bytes,
			    pe[i].received_messages, pe[i].received_bytes);
	}
}

/* ttsim trace stat of an MPI-level trace: the exit status. */
static int
stat_mpi(const char *path, int json, int top, double ti_flops)
{
	tt_mpi_trace mt;
	tt_mpi_totals tot;
	tt_tally *tally = NULL;
	const tt_tally_pe *pe;
	const tt_tally_pair *pr;
	size_t npe = 0, npr = 0;
	char err[1024];
	int rc = TTSIM_EXIT_USAGE;

	if (tt_mpi_trace_read(&mt, path, ti_flops, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim trace stat: %s\n", err);
		return TTSIM_EXIT_USAGE;
	}
	if (tt_mpi_totals_get(&mt, &tot, err, sizeof(err)) < 0 ||
	    tt_tally_create(&tally) < 0 ||
	    mpi_tally(&mt, tally, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim trace stat: %s: %s\n", path, tally ? err :
		    "out of memory");
	} else if ((pe = tt_tally_pes(tally, &npe)) == NULL ||
	    (pr = tt_tally_pairs(tally, &npr)) == NULL) {
		fprintf(stderr, "ttsim trace stat: out of memory\n");
	} else {
		mpi_print(path, &mt, &tot, pe, npe, pr, npr, json, top);
		rc = TTSIM_EXIT_OK;
	}
	tt_tally_free(tally);
	tt_mpi_trace_free(&mt);
	return rc;
}

/* An MPI-level trace among the paths: alone, and with no network. */
static int
stat_mpi_path(const struct statargs *a, const char **path)
{
	size_t i;

	*path = NULL;
	for (i = 0; i < a->npaths; i++)
		if (tt_mpi_trace_is(a->paths[i]))
			*path = a->paths[i];
	if (tiopts_check("trace stat", a->ti_flops, *path) < 0)
		return -1;
	if (*path == NULL)
		return 0;
	if (a->npaths > 1) {
		fprintf(stderr, "ttsim trace stat: %s is an MPI-level trace: "
		    "summarise it alone\n", *path);
		return -1;
	}
	if (a->net.given) {
		fprintf(stderr, "ttsim trace stat: %s is an MPI-level trace: "
		    "its ranks are not a network's PEs; give no YAML file or "
		    "network flags\n", *path);
		return -1;
	}
	return 1;
}


enum { OPT_STAT_TOP = OPT_OWN };

#define STAT_TOP_DEFAULT 10

static const optdef stat_flags[] = {
	OPT_TITLE("trace stat:"),
	OPT_VALDEF("top", OPT_STAT_TOP, "N",
	    "pairs, PEs and addresses listed (--json lists all)",
	    STAT_TOP_DEFAULT),
	OPT_END
};

static int
stat_take(void *state, const struct optval *v)
{
	struct statargs *a = state;

	if (v->id == OPT_STAT_TOP)
		return opt_int(v->cmd, v->flag, v->value, 1, 100000, &a->top);
	if (netopts_is_yaml(v->value))
		return netopts_file(&a->net, v->value, v->cmd);
	a->paths[a->npaths++] = v->value;
	return 0;
}

static int
stat_parse(struct statargs *a, int argc, char **argv)
{
	const char *cmd = "trace stat";
	const opt_group groups[] = {
		{stat_flags, 1, stat_take, a},
		{netopts_flags, 0, netopts_take, &a->net},
		{outopts_json, 0, outopts_take, &a->out},
		{tiopts_flags, 0, tiopts_take, &a->ti_flops},
	};
	int r;

	netopts_init(&a->net);
	a->top = STAT_TOP_DEFAULT;
	r = opt_parse(cmd, stat_usage, groups, OPT_NGROUPS(groups), argc, argv);
	if (r != OPT_PARSED)
		return r;
	if (a->npaths == 0) {
		fprintf(stderr, "ttsim %s: give one or more trace files or "
		    "directories (see ttsim trace stat --help)\n", cmd);
		return -1;
	}
	if (a->net.given && netopts_finish(&a->net, cmd) < 0)
		return -1;
	return OPT_PARSED;
}

/* Open the traces, through the network's address map when one is given;
 * plain frames with no addresses: map are listed by address. */
static int
stat_open(struct statargs *a, struct tstat *t, tt_net *net, tt_addrmap *map,
    tt_trace_in **in)
{
	char err[1024];

	if (a->net.given) {
		if (tt_net_init(net, &a->net.spec, err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim trace stat: %s\n", err);
			return -1;
		}
		if (tt_addrmap_build(map, &a->net.cfg, net, stderr) > 0)
			return -1;
	}
	if (tt_tally_create(&t->tally) < 0) {
		fprintf(stderr, "ttsim trace stat: out of memory\n");
		return -1;
	}
	if (tt_trace_in_open_listing(in, a->paths, a->npaths,
	    a->net.given ? map : NULL, a->net.given ? net->ncards : 0,
	    on_plain, t->tally, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim trace stat: %s\n", err);
		return -1;
	}
	return 0;
}

/* What was read, sorted, printed. */
static int
stat_report(const struct statargs *a, tt_trace_in *in, struct tstat *t)
{
	const tt_trace_stats *st = tt_trace_in_stats(in, tt_trace_in_nfiles(in));
	const tt_tally_pe *pe;
	size_t npe, npr, nad;
	const tt_tally_pair *pr;
	const tt_tally_addr *ad;

	pe = tt_tally_pes(t->tally, &npe);
	pr = tt_tally_pairs(t->tally, &npr);
	ad = tt_tally_addrs(t->tally, &nad);
	if (pe == NULL || pr == NULL || ad == NULL) {
		fprintf(stderr, "ttsim trace stat: out of memory\n");
		return -1;
	}
	if (a->out.json)
		print_json(in, t, st, pe, npe, pr, npr, ad, nad);
	else
		print_text(in, t, st, pe, npe, pr, npr, ad, nad);
	return 0;
}

int
cmd_trace_stat(int argc, char **argv)
{
	struct statargs a;
	struct tstat t;
	tt_net net;
	tt_addrmap map;
	tt_trace_in *in = NULL;
	const char *mpath;
	int r, mpi;

	memset(&a, 0, sizeof(a));
	memset(&t, 0, sizeof(t));
	memset(&map, 0, sizeof(map));
	memset(&net, 0, sizeof(net));
	a.paths = calloc((size_t)argc, sizeof(*a.paths));
	if (a.paths == NULL)
		return TTSIM_EXIT_USAGE;
	r = stat_parse(&a, argc, argv);
	t.top = a.top;
	if (r == OPT_HELP_SHOWN) {
		r = TTSIM_EXIT_OK;
	} else if (r == OPT_PARSED && (mpi = stat_mpi_path(&a, &mpath)) != 0) {
		r = mpi < 0 ? TTSIM_EXIT_USAGE : stat_mpi(mpath, a.out.json,
		    a.top, a.ti_flops);
	} else if (r != OPT_PARSED || stat_open(&a, &t, &net, &map, &in) < 0 ||
	    stat_read(in, &t, "trace stat") < 0) {
		r = TTSIM_EXIT_USAGE;
	} else {
		tt_trace_in_warnings(in, stderr, "ttsim trace stat: warning: ");
		r = stat_report(&a, in, &t) < 0 ? TTSIM_EXIT_USAGE :
		    TTSIM_EXIT_OK;
	}
	tt_trace_in_close(in);
	if (net.coord != NULL)
		tt_net_free(&net);
	tt_addrmap_free(&map);
	tt_config_free(&a.net.cfg);
	tt_tally_free(t.tally);
	free(a.paths);
	return r;
}
