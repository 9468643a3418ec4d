/*
 * libFuzzer target: the trace reader (lib/formats/trace.c, lib/formats/tally.c) on any
 * bytes as a pcap or pcapng file, the three ways the tools read one:
 *   - record by record (tt_trace_fopen on the bytes in memory, each record
 *     decoded as a frame), as the testbed's checker reads ttd's traces;
 *   - merged into messages with PE ids checked against 16 PEs and plain
 *     frames through an address map (IPv4, IPv6 and MAC), as replay;
 *   - with no map, plain frames listed by address and everything counted,
 *     as `ttsim trace stat`.
 * Errors are expected; memory errors, leaks, hangs and leaked descriptors
 * (the merged reader opens the bytes by path, through a memfd) are not.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "twintorus/config.h"
#include "twintorus/frame.h"
#include "twintorus/trace.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static tt_net net;
static tt_config cfg;
static tt_addrmap map;

static void
read_records(const uint8_t *data, size_t size)
{
	tt_trace_reader *r;
	tt_trace_rec rec;
	tt_frame f;
	tt_hello h;
	char err[512];
	FILE *fp = fmemopen((void *)(uintptr_t)data, size, "rb");

	if (fp == NULL)
		return;		/* fmemopen refuses 0 bytes */
	if (tt_trace_fopen(&r, fp, "input", err, sizeof(err)) != 0)
		return;
	while (tt_trace_read(r, &rec, err, sizeof(err)) == 1)
		if (tt_frame_decode(&f, rec.data, rec.caplen, err,
		    sizeof(err)) == 0 && f.type == TT_FRAME_HELLO)
			(void)tt_hello_decode(&h, f.payload, f.payload_len,
			    err, sizeof(err));
	(void)tt_trace_truncated(r);
	tt_trace_close_reader(r);
}

static int
count_plain(void *ctx, const tt_trace_rec *rec, const tt_frame *f)
{
	return tt_tally_frame(ctx, rec, f);
}

/* The merged reader, with a map and 16 PEs, or listing into a tally. */
static void
read_merged(const char *path, int listing)
{
	const tt_tally_pe *pe;
	const tt_tally_pair *pr;
	const tt_tally_addr *ad;
	tt_tally *t = NULL;
	tt_trace_in *in;
	size_t n;
	static char text[4096];
	char err[512];
	tt_msg m;
	FILE *warn;
	int x;

	if (listing && tt_tally_create(&t) != 0)
		abort();
	x = listing ? tt_trace_in_open_listing(&in, &path, 1, NULL, 0,
	    count_plain, t, err, sizeof(err)) : tt_trace_in_open(&in, &path, 1,
	    &map, net.ncards, err, sizeof(err));
	if (x == 0) {
		while ((x = tt_trace_in_next(in, &m, err, sizeof(err))) > 0)
			if (t != NULL && tt_tally_msg(t, &m) != 0)
				abort();
		(void)tt_trace_in_stats(in, tt_trace_in_nfiles(in));
		if ((warn = fmemopen(text, sizeof(text), "w")) != NULL) {
			tt_trace_in_warnings(in, warn, "");
			fclose(warn);
		}
		tt_trace_in_close(in);
	}
	if (t != NULL) {
		pe = tt_tally_pes(t, &n);
		pr = tt_tally_pairs(t, &n);
		ad = tt_tally_addrs(t, &n);
		if (pe == NULL || pr == NULL || ad == NULL)
			abort();
		tt_tally_free(t);
	}
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
	read_records(data, size);
	fd = fuzz_as_file("fuzz-trace", data, size, path, sizeof(path));
	read_merged(path, 0);
	read_merged(path, 1);
	close(fd);
	return 0;
}
