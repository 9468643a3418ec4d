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
"the file's addresses: map.\n"
"\n"
"  --top N   pairs and PEs listed (default 10; --json lists every PE)\n"
"Exit status: 0 read, 2 bad usage or a damaged trace.\n");
}

struct pair {
	uint64_t key;           /* src << 32 | dst, UINT64_MAX: empty */
	uint64_t msgs, bytes;
};

struct tstat {
	uint64_t *sent_m, *sent_b, *recv_m, *recv_b;
	uint32_t npe;           /* highest PE seen + 1 */
	uint32_t cap;
	struct pair *pairs;
	size_t npairs, pcap;
	tt_hist size;
	uint64_t min_size;
};

static int
tstat_grow(struct tstat *t, uint32_t pe)
{
	uint32_t cap = t->cap ? t->cap : 256, i;

	while (cap <= pe)
		cap *= 2;
	if (cap != t->cap) {
		uint64_t **arr[4] = {&t->sent_m, &t->sent_b, &t->recv_m, &t->recv_b};

		for (i = 0; i < 4; i++) {
			uint64_t *g = realloc(*arr[i], (size_t)cap * sizeof(uint64_t));

			if (g == NULL)
				return -1;
			memset(g + t->cap, 0, (size_t)(cap - t->cap) * sizeof(uint64_t));
			*arr[i] = g;
		}
		t->cap = cap;
	}
	if (pe + 1 > t->npe)
		t->npe = pe + 1;
	return 0;
}

static uint64_t
pair_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

static struct pair *
pair_find(struct tstat *t, uint64_t key)
{
	size_t i;

	if (2 * (t->npairs + 1) > t->pcap) {
		size_t cap = t->pcap ? t->pcap * 2 : 1024, j;
		struct pair *g = malloc(cap * sizeof(*g));

		if (g == NULL)
			return NULL;
		for (j = 0; j < cap; j++)
			g[j].key = UINT64_MAX;
		for (j = 0; j < t->pcap; j++) {
			if (t->pairs[j].key == UINT64_MAX)
				continue;
			i = pair_hash(t->pairs[j].key) & (cap - 1);
			while (g[i].key != UINT64_MAX)
				i = (i + 1) & (cap - 1);
			g[i] = t->pairs[j];
		}
		free(t->pairs);
		t->pairs = g;
		t->pcap = cap;
	}
	i = pair_hash(key) & (t->pcap - 1);
	while (t->pairs[i].key != UINT64_MAX && t->pairs[i].key != key)
		i = (i + 1) & (t->pcap - 1);
	if (t->pairs[i].key == UINT64_MAX) {
		t->pairs[i].key = key;
		t->pairs[i].msgs = t->pairs[i].bytes = 0;
		t->npairs++;
	}
	return &t->pairs[i];
}

static int
pair_by_bytes(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->key < y->key ? -1 : x->key > y->key;
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
	    ", \"hello_frames\": %" PRIu64 ", \"delivery_copies\": %" PRIu64
	    ", \"unmapped_frames\": %" PRIu64 ", \"out_of_order\": %" PRIu64,
	    st->records, st->messages, st->bytes, st->plain, st->hello,
	    st->delivered, st->unmapped, st->backwards);
}

int
cmd_trace_stat(int argc, char **argv)
{
	const char *cmd = "trace stat", **paths;
	size_t np = 0, i, k;
	netopts no;
	tt_net net;
	tt_addrmap map;
	tt_trace_in *in = NULL;
	const tt_trace_stats *st;
	struct tstat t;
	tt_msg m;
	int top = 10, have_net = 0, r, x;
	uint64_t v;
	char err[1024];

	memset(&t, 0, sizeof(t));
	memset(&map, 0, sizeof(map));
	netopts_init(&no);
	paths = calloc((size_t)argc, sizeof(*paths));
	if (paths == NULL)
		return TTSIM_EXIT_USAGE;
	for (i = 1; i < (size_t)argc; i++) {
		int ii = (int)i;
		const char *a = argv[i];
		size_t len = strlen(a);

		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			stat_usage(stdout);
			free(paths);
			return TTSIM_EXIT_OK;
		}
		if (flag_is(a, "--top")) {
			const char *val = flag_value(argc, argv, &ii, cmd);

			if (val == NULL || parse_u64(cmd, "--top", val, 1, 100000,
			    &v) < 0)
				goto usage;
			top = (int)v;
			i = (size_t)ii;
			continue;
		}
		if ((a[0] != '-' || strcmp(a, "-") == 0) && !(len > 5 && (strcmp(a + len - 5, ".yaml") == 0 ||
		    strcmp(a + len - 4, ".yml") == 0))) {
			paths[np++] = a;
			continue;
		}
		if ((r = netopts_take(&no, argc, argv, &ii, cmd)) < 0)
			goto usage;
		if (r == 0) {
			fprintf(stderr, "ttsim %s: unknown flag '%s' (see ttsim "
			    "trace stat --help)\n", cmd, a);
			goto usage;
		}
		if (a[0] != '-' || strcmp(a, "--json") != 0)
			have_net = 1;
		i = (size_t)ii;
	}
	if (np == 0) {
		fprintf(stderr, "ttsim %s: give one or more trace files or "
		    "directories (see ttsim trace stat --help)\n", cmd);
		goto usage;
	}
	if (have_net) {
		if (netopts_finish(&no, cmd) < 0)
			goto usage;
		if (tt_net_init(&net, &no.spec, err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim %s: %s\n", cmd, err);
			goto usage;
		}
		if (tt_addrmap_build(&map, &no.cfg, &net, stderr) > 0) {
			tt_net_free(&net);
			goto usage;
		}
	}
	if (tt_trace_in_open(&in, paths, np, have_net ? &map : NULL,
	    have_net ? net.ncards : 0, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim %s: %s\n", cmd, err);
		goto fail;
	}
	t.min_size = UINT64_MAX;
	while ((x = tt_trace_in_next(in, &m, err, sizeof(err))) > 0) {
		struct pair *p;
		uint32_t hi = m.src > m.dst ? m.src : m.dst;

		if (tstat_grow(&t, hi) < 0 ||
		    (p = pair_find(&t, (uint64_t)m.src << 32 | m.dst)) == NULL) {
			fprintf(stderr, "ttsim %s: out of memory\n", cmd);
			goto fail;
		}
		t.sent_m[m.src]++;
		t.sent_b[m.src] += m.bytes;
		t.recv_m[m.dst]++;
		t.recv_b[m.dst] += m.bytes;
		p->msgs++;
		p->bytes += m.bytes;
		tt_hist_add(&t.size, m.bytes);
		if (m.bytes < t.min_size)
			t.min_size = m.bytes;
	}
	if (x < 0) {
		fprintf(stderr, "ttsim %s: %s\n", cmd, err);
		goto fail;
	}
	tt_trace_in_warnings(in, stderr, "ttsim trace stat: warning: ");
	/* the pairs, busiest first */
	for (i = k = 0; i < t.pcap; i++)
		if (t.pairs[i].key != UINT64_MAX)
			t.pairs[k++] = t.pairs[i];
	if (k > 0)
		qsort(t.pairs, k, sizeof(*t.pairs), pair_by_bytes);
	st = tt_trace_in_stats(in, tt_trace_in_nfiles(in));
	if (no.json) {
		double dur = st->messages ? (double)(st->last_ns - st->first_ns) * 1e-9 : 0;

		printf("{\"files\": [");
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
		    st->messages ? t.min_size : 0,
		    st->messages ? (double)st->bytes / (double)st->messages : 0.0,
		    tt_hist_quantile(&t.size, 0.5), t.size.max);
		printf(", \"pes\": [");
		for (i = k = 0; i < t.npe; i++) {
			if (t.sent_m[i] == 0 && t.recv_m[i] == 0)
				continue;
			printf("%s{\"pe\": %zu, \"sent_messages\": %" PRIu64
			    ", \"sent_bytes\": %" PRIu64 ", \"received_messages\": %"
			    PRIu64 ", \"received_bytes\": %" PRIu64 "}",
			    k++ ? ", " : "", i, t.sent_m[i], t.sent_b[i],
			    t.recv_m[i], t.recv_b[i]);
		}
		printf("], \"pairs\": %zu, \"top_pairs\": [", t.npairs);
		for (i = 0; i < t.npairs && i < (size_t)top; i++)
			printf("%s{\"src\": %" PRIu64 ", \"dst\": %" PRIu64
			    ", \"messages\": %" PRIu64 ", \"bytes\": %" PRIu64 "}",
			    i ? ", " : "", t.pairs[i].key >> 32,
			    t.pairs[i].key & 0xFFFFFFFFu, t.pairs[i].msgs,
			    t.pairs[i].bytes);
		printf("]}\n");
	} else {
		double dur = st->messages ? (double)(st->last_ns - st->first_ns) * 1e-9 : 0;
		uint32_t senders = 0;

		printf("%zu file%s, %" PRIu64 " records\n",
		    tt_trace_in_nfiles(in), tt_trace_in_nfiles(in) == 1 ? "" : "s",
		    st->records);
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
			    PRIu64 ", max %" PRIu64 " bytes\n", t.min_size,
			    (double)st->bytes / (double)st->messages,
			    tt_hist_quantile(&t.size, 0.5), t.size.max);
		}
		for (i = 0; i < t.npe; i++)
			senders += t.sent_m[i] > 0;
		printf("  PEs           %u send, ids up to %u\n", senders,
		    t.npe ? t.npe - 1 : 0);
		printf("  pairs         %zu source x destination pairs\n", t.npairs);
		if (t.npairs) {
			printf("\nbusiest pairs (of %zu):\n  %8s %8s %10s %14s\n",
			    t.npairs, "src", "dst", "messages", "bytes");
			for (i = 0; i < t.npairs && i < (size_t)top; i++)
				printf("  %8" PRIu64 " %8" PRIu64 " %10" PRIu64 " %14"
				    PRIu64 "\n", t.pairs[i].key >> 32,
				    t.pairs[i].key & 0xFFFFFFFFu, t.pairs[i].msgs,
				    t.pairs[i].bytes);
			printf("\nper PE (first %d by id):\n  %8s %10s %14s %10s "
			    "%14s\n", top, "pe", "sent", "bytes", "received",
			    "bytes");
			for (i = k = 0; i < t.npe && k < (size_t)top; i++) {
				if (t.sent_m[i] == 0 && t.recv_m[i] == 0)
					continue;
				k++;
				printf("  %8zu %10" PRIu64 " %14" PRIu64 " %10" PRIu64
				    " %14" PRIu64 "\n", i, t.sent_m[i], t.sent_b[i],
				    t.recv_m[i], t.recv_b[i]);
			}
		}
	}
	r = TTSIM_EXIT_OK;
	goto out;
usage:
fail:
	r = TTSIM_EXIT_USAGE;
out:
	tt_trace_in_close(in);
	if (have_net && net.coord != NULL)
		tt_net_free(&net);
	tt_addrmap_free(&map);
	tt_config_free(&no.cfg);
	free(t.sent_m);
	free(t.sent_b);
	free(t.recv_m);
	free(t.recv_b);
	free(t.pairs);
	free(paths);
	return r;
}
