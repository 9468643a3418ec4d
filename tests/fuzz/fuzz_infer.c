/*
 * libFuzzer target: dependency inference (lib/sources/infer.c, lib/sources/infer_trace.c)
 * on any bytes as a trace, the path of `ttsim trace infer`: the bytes are
 * a pcap or pcapng file opened by path (through a memfd), its records
 * turned into events against a 2x2x2 twin torus (16 PEs) with plain
 * frames through an address map, and every dependency line taken out.
 * The input's length picks the mode: odd lengths read the trace as having
 * no delivery copies (a frame is received when captured), and lengths
 * with bit 1 set give rule 3 a window of 1 us instead of 100 ms, so that
 * it gives up before the end of the trace too.
 *
 * Besides memory safety, leaks and descriptors: every line comes out
 * once the trace is read to its end or an error; every predecessor names
 * a message sent to the line's PE whose line came out before it (a
 * message the PE had); lines and predecessors are as many as the stats
 * count.  The work is bounded by the input: at most one message per
 * record.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "twintorus/config.h"
#include "twintorus/infer.h"
#include "twintorus/trace.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static tt_net net;
static tt_config cfg;
static tt_addrmap map;

/* The lines out so far: (pe, seq) and where each went. */
struct seen {
	struct line { uint32_t pe, seq, dst; } *l;
	size_t n, cap;
};

static void
seen_add(struct seen *s, const tt_dep *d)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct line *g = realloc(s->l, cap * sizeof(*g));

		if (g == NULL)
			abort();
		s->l = g;
		s->cap = cap;
	}
	s->l[s->n].pe = d->pe;
	s->l[s->n].seq = d->seq;
	s->l[s->n].dst = d->dst;
	s->n++;
}

/* A line before this one is message src:seq, sent to pe. */
static int
seen_sent_to(const struct seen *s, uint32_t src, uint32_t seq, uint32_t pe)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->l[i].pe == src && s->l[i].seq == seq && s->l[i].dst == pe)
			return 1;
	return 0;
}

static void
infer(const char *path, size_t size)
{
	static char text[8192];
	const tt_infer_stats *st;
	tt_infer_params p;
	struct seen s = {NULL, 0, 0};
	uint64_t npred = 0;
	tt_infer *inf;
	tt_dep d;
	char err[512];
	uint32_t k;
	FILE *warn;
	int x;

	tt_infer_params_default(&p);
	p.npes = net.ncards;
	p.map = &map;
	p.no_copies = size & 1;
	if (size & 2)
		p.window_ns = 1000;
	if (tt_infer_open(&inf, &path, 1, &p, err, sizeof(err)) != 0)
		return;
	while ((x = tt_infer_next(inf, &d, err, sizeof(err))) > 0) {
		if (d.pe >= p.npes || d.dst >= p.npes)
			abort();        /* a line of a PE outside the network */
		for (k = 0; k < d.npred; k++)
			if (!seen_sent_to(&s, d.pred[k].src, d.pred[k].seq, d.pe))
				abort();        /* an invalid predecessor */
		npred += d.npred;
		seen_add(&s, &d);
	}
	st = tt_infer_stats_get(inf);
	/* read to the end: every line out, as many as counted */
	if (x == 0 && (st->messages != s.n || st->predecessors != npred))
		abort();
	if ((warn = fmemopen(text, sizeof(text), "w")) != NULL) {
		tt_infer_warnings(inf, warn, "");
		fclose(warn);
	}
	tt_infer_free(inf);
	free(s.l);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	char path[64];
	int fd;

	if (!ready) {
		fuzz_torus_mapped(&net, &cfg, &map);
		ready = 1;
	}
	fd = fuzz_as_file("fuzz-infer", data, size, path, sizeof(path));
	infer(path, size);
	close(fd);
	return 0;
}
