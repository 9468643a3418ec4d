/*
 * The calibration's fit (twintorus/calibrate.h) on observation lists made
 * by hand from known parameters:
 *   - one-way and round-trip latencies without noise give the parameters
 *     back exactly, with the bandwidth fitted or given;
 *   - frames that queued (late in their group) and a group of only queued
 *     frames do not move the fit;
 *   - one hop count only: base = hop, and it is said;
 *   - too few frames, and one frame size without a known bandwidth, are
 *     errors that say what is needed;
 *   - the sustained rate is the median of the largest transfers';
 * and on traces: sends matched to deliveries across two nodes' clocks, the
 * round trips free of their offset, a PE the cluster does not have refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "twintorus/calibrate.h"
#include "twintorus/trace.h"
#include "tt_test.h"

#define BASE 100.0
#define HOP 64.0
#define GBPS 10.0

static double
truth(int nmsg, int hops, double bytes)
{
	return nmsg * BASE + hops * HOP + bytes * 8 / GBPS;
}

static const int hopset[] = {1, 2, 4};
static const double sizes[] = {64, 1024, 4096, 16384};

/* copies of every (hops, size), one way (nmsg 1) or round trips (2) */
static size_t
make(tt_calib_obs *o, int nmsg, int copies)
{
	size_t n = 0;
	int h, s, c;

	for (h = 0; h < 3; h++)
		for (s = 0; s < 4; s++)
			for (c = 0; c < copies; c++) {
				o[n].nmsg = nmsg;
				o[n].hops = nmsg * hopset[h];
				o[n].bytes = nmsg * sizes[s];
				o[n].lat_ns = truth(nmsg, o[n].hops, o[n].bytes);
				n++;
			}
	return n;
}

static void
exact_one_way(void **state)
{
	tt_calib_obs o[256];
	tt_calib_fit f;
	char err[256];
	size_t n = make(o, 1, 3);

	(void)state;
	assert_int_equal(tt_calib_fit_obs(o, n, NULL, &f, err, sizeof(err)), 0);
	assert_float_equal(f.base_ns, BASE, 1e-6);
	assert_float_equal(f.hop_ns, HOP, 1e-6);
	assert_float_equal(f.gbps, GBPS, 1e-9);
	assert_true(f.gbps_fitted && f.hop_fitted);
	assert_int_equal(f.cells, 12);
	assert_int_equal(f.used, n);
	assert_true(f.med_rel < 1e-9 && f.p90_rel < 1e-9);
}

static void
exact_round_trips_and_given_rate(void **state)
{
	tt_calib_obs o[256];
	tt_calib_opts opts = {0.1, GBPS, 0, 0};
	tt_calib_fit f;
	char err[256];
	size_t n = make(o, 2, 2);

	(void)state;
	assert_int_equal(tt_calib_fit_obs(o, n, NULL, &f, err, sizeof(err)), 0);
	assert_float_equal(f.base_ns, BASE, 1e-6);
	assert_float_equal(f.hop_ns, HOP, 1e-6);
	assert_float_equal(f.gbps, GBPS, 1e-9);
	assert_int_equal(tt_calib_fit_obs(o, n, &opts, &f, err, sizeof(err)),
	    0);
	assert_false(f.gbps_fitted);
	assert_float_equal(f.base_ns, BASE, 1e-6);
	assert_float_equal(f.hop_ns, HOP, 1e-6);
}

static void
queued_outliers(void **state)
{
	tt_calib_obs o[512];
	tt_calib_fit f;
	char err[256];
	size_t n = make(o, 1, 10), i;

	(void)state;
	/* one frame in five of every group waited behind others */
	for (i = 0; i < n; i += 5)
		o[i].lat_ns *= 1.0 + 0.5 * (double)(i % 7);
	/* and a group of 2048-byte frames that all queued */
	for (i = 0; i < 3; i++) {
		o[n].nmsg = 1;
		o[n].hops = 2;
		o[n].bytes = 2048;
		o[n].lat_ns = 3 * truth(1, 2, 2048);
		n++;
	}
	assert_int_equal(tt_calib_fit_obs(o, n, NULL, &f, err, sizeof(err)), 0);
	assert_int_equal(f.cells_dropped, 1);
	assert_float_equal(f.base_ns, BASE, 1e-6);
	assert_float_equal(f.hop_ns, HOP, 1e-6);
	assert_float_equal(f.gbps, GBPS, 1e-9);
	assert_true(f.med_rel < 1e-9);
	assert_true(f.all_p90_rel > 0.1);       /* the queued ones */
}

static void
one_hop_count(void **state)
{
	tt_calib_obs o[64];
	tt_calib_fit f;
	char err[256];
	size_t n = 0;
	int s, c;

	(void)state;
	/* two nodes: every frame 1 hop; latency (H+1) * 80 + bytes */
	for (s = 0; s < 4; s++)
		for (c = 0; c < 3; c++) {
			o[n].nmsg = 1;
			o[n].hops = 1;
			o[n].bytes = sizes[s];
			o[n].lat_ns = 2 * 80.0 + sizes[s] * 8 / GBPS;
			n++;
		}
	assert_int_equal(tt_calib_fit_obs(o, n, NULL, &f, err, sizeof(err)), 0);
	assert_false(f.hop_fitted);
	assert_float_equal(f.hop_ns, 80.0, 1e-6);
	assert_float_equal(f.base_ns, 80.0, 1e-6);
	assert_float_equal(f.gbps, GBPS, 1e-9);
}

static void
errors(void **state)
{
	tt_calib_obs o[64];
	tt_calib_fit f;
	char err[256];
	size_t i;

	(void)state;
	make(o, 1, 1);
	assert_int_equal(tt_calib_fit_obs(o, 5, NULL, &f, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "too few frames to fit: 5, at least 10"));
	for (i = 0; i < 12; i++)
		o[i].bytes = 100;
	assert_int_equal(tt_calib_fit_obs(o, 12, NULL, &f, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "every frame has 100 bytes"));
}

static void
sustained_rate(void **state)
{
	tt_calib_train t[5] = {
		{8000, 8000, 20, 16000, 0, 0},          /* 8 Gb/s */
		{9000, 8000, 20, 18000, 0, 0},          /* 9 */
		{10000, 8000, 20, 20000, 0, 0},         /* 10 */
		{1000, 100, 20, 2000, 0, 0},            /* a small burst: too small */
		{50000, 1000, 4, 100000, 0, 0},         /* too few frames */
	};
	size_t used;

	(void)state;
	assert_float_equal(tt_calib_rate(t, 5, &used), 9.0, 1e-9);
	assert_int_equal(used, 3);
	assert_float_equal(tt_calib_rate(t + 4, 1, &used), 0, 0);
	assert_int_equal(used, 0);
}

/*
 * A token bucket: lone frames faster than one serialization at the
 * sustained rate say the rate is a shaper's; the burst is what a
 * transfer's first half got through beyond that rate.
 */
static void
shaped_links(void **state)
{
	tt_calib_obs iso[14];
	/* first half 16 KiB delivered in (16384 - 2000) bytes' time at 20
	 * Mb/s (2000-byte bucket); the third is too small to be taken, the
	 * fourth is an unshaped link's (paced from its first 1000 bytes) */
	tt_calib_train t[4] = {
		{16384, 6553600, 16, 32768, 16384, (16384 - 2000) * 8 / 0.02},
		{16384, 6553600, 16, 32768, 16384, (16384 - 2000) * 8 / 0.02},
		{4000, 1600000, 16, 8000, 4000, 0},
		{16384, 6553600, 16, 32768, 16384, (16384 - 1000) * 8 / 0.02},
	};
	double lat, bytes;
	size_t i, used;

	(void)state;
	memset(iso, 0, sizeof(iso));
	for (i = 0; i < 14; i++) {
		iso[i].nmsg = 1;
		iso[i].hops = 1;
		/* 1514 bytes: 605.6 us at 20 Mb/s; small frames ignored */
		iso[i].bytes = i < 11 ? 1514 : 100;
		iso[i].lat_ns = i < 11 ? 185000 + 1000 * (double)i : 1e9;
	}
	assert_int_equal(tt_calib_shaped(iso, 14, 0.02, &lat, &bytes), 1);
	assert_float_equal(lat, 190000, 1e-6);
	assert_float_equal(bytes, 1514, 1e-9);
	/* a line of 0.1 Gb/s sends 1514 bytes in 121 us: not shaped */
	assert_int_equal(tt_calib_shaped(iso, 14, 0.1, &lat, &bytes), 0);
	/* too few large frames to tell */
	assert_int_equal(tt_calib_shaped(iso + 2, 12, 0.02, &lat, &bytes), 0);

	assert_float_equal(tt_calib_burst(t, 2, 0.02, &used), 2000, 1e-6);
	assert_int_equal(used, 2);
	/* the median of 2000, 2000 and 1000; the small one left out */
	assert_float_equal(tt_calib_burst(t, 4, 0.02, &used), 2000, 1e-6);
	assert_int_equal(used, 3);
	assert_float_equal(tt_calib_burst(t + 3, 1, 0.02, &used), 1000, 1e-6);
	assert_float_equal(tt_calib_burst(t, 4, 0, &used), 0, 0);
	assert_int_equal(used, 0);
}

/* ---- on traces ---- */

static void
put(tt_trace_writer *w, uint64_t t, uint32_t src, uint32_t dst,
    uint32_t seq, uint64_t bytes, int dlv)
{
	tt_msg m = {t, src, dst, seq, bytes, 0, 0};

	assert_int_equal(dlv ? tt_trace_write_delivery(w, &m) :
	    tt_trace_write_msg(w, &m), 0);
}

/* A recording of two nodes' PE traces, n0 (PE 0) and n4 (PE 9), in a
 * directory of its own. */
struct rec2 {
	char dir[32], p0[128], p1[128];
	tt_trace_writer *w0, *w1;
};

static void
rec2_open(struct rec2 *r)
{
	char err[512];

	snprintf(r->dir, sizeof(r->dir), "/tmp/tt-calib.XXXXXX");
	assert_non_null(mkdtemp(r->dir));
	snprintf(r->p0, sizeof(r->p0), "%s/n0-pe.pcap", r->dir);
	snprintf(r->p1, sizeof(r->p1), "%s/n4-pe.pcap", r->dir);
	assert_int_equal(tt_trace_create(&r->w0, r->p0, TT_TRACE_INPLACE, err,
	    sizeof(err)), 0);
	assert_int_equal(tt_trace_create(&r->w1, r->p1, TT_TRACE_INPLACE, err,
	    sizeof(err)), 0);
}

/* Written: read it back into d. */
static void
rec2_read(struct rec2 *r, tt_calib_data *d, const tt_net *net)
{
	const char *paths[1] = {r->dir};
	char err[512];

	assert_int_equal(tt_trace_close(r->w0, err, sizeof(err)), 0);
	assert_int_equal(tt_trace_close(r->w1, err, sizeof(err)), 0);
	assert_int_equal(tt_calib_read(d, paths, 1, net, err, sizeof(err)),
	    0);
}

static void
rec2_remove(struct rec2 *r)
{
	unlink(r->p0);
	unlink(r->p1);
	rmdir(r->dir);
}

static void
from_traces(void **state)
{
	char err[512];
	const int k[3] = {2, 2, 2};
	const char *paths[1];
	struct rec2 r;
	tt_calib_data d;
	tt_net net;
	uint64_t off = 5000000;         /* node 1's clock is 5 ms ahead */
	uint32_t i;
	int h;

	(void)state;
	tt_test_net(&net, 3, k, 1, NULL, TT_DL_VC);
	h = tt_calib_hops(&net, 0, 9);
	assert_true(h >= 1);
	rec2_open(&r);
	/* PE 0 (node 0) pings PE 9 (node 4), which answers at once */
	for (i = 0; i < 12; i++) {
		uint64_t t = 1000000 + i * 100000, b = 100 + 1000 * (i % 4);
		double lat = truth(1, h, (double)b);

		put(r.w0, t, 0, 9, i, b, 0);
		put(r.w1, t + (uint64_t)lat + off, 0, 9, i, b, 1);
		put(r.w1, t + (uint64_t)lat + off + 500, 9, 0, i, b, 0);
		put(r.w0, t + 2 * (uint64_t)lat + 500, 9, 0, i, b, 1);
	}
	rec2_read(&r, &d, &net);
	paths[0] = r.dir;
	assert_int_equal(d.matched, 24);
	assert_int_equal(d.noneway, 24);
	assert_int_equal(d.oneway_same_clock, 0);
	assert_true(d.nrtt >= 23);
	for (i = 0; i < d.nrtt; i++)
		assert_float_equal(d.rtt[i].lat_ns, truth(2, d.rtt[i].hops,
		    d.rtt[i].bytes), 2.0);
	tt_calib_data_free(&d);
	/* a cluster of 8 PEs has no PE 9 */
	{
		const int k1[2] = {2, 2};
		tt_net small;

		tt_test_net(&small, 2, k1, 1, NULL, TT_DL_VC);
		assert_int_equal(tt_calib_read(&d, paths, 1, &small, err,
		    sizeof(err)), -1);
		assert_non_null(strstr(err, "out of range"));
		tt_net_free(&small);
	}
	rec2_remove(&r);
	tt_net_free(&net);
}

/* A transfer through a token bucket, as ttd records it: its first half
 * gets the bucket's 2000 bytes through at once, then 20 Mb/s. */
static void
burst_from_traces(void **state)
{
	const int k[3] = {2, 2, 2};
	struct rec2 r;
	tt_calib_data d;
	tt_net net;
	size_t used;
	uint32_t i;

	(void)state;
	tt_test_net(&net, 3, k, 1, NULL, TT_DL_VC);
	rec2_open(&r);
	for (i = 0; i < 32; i++) {
		double cum = 1000.0 * (i + 1);
		uint64_t held = cum > 2000 ? (uint64_t)((cum - 2000) / 0.0025) :
		    0;

		put(r.w0, 1000000 + 1000 * (uint64_t)i, 0, 9, i, 1000, 0);
		put(r.w1, 1050000 + held, 0, 9, i, 1000, 1);
	}
	rec2_read(&r, &d, &net);
	assert_int_equal(d.ntrain, 1);
	assert_float_equal(d.train[0].first_bytes, 16000, 1e-9);
	assert_float_equal(tt_calib_rate(d.train, d.ntrain, &used), 0.02,
	    1e-6);
	assert_float_equal(tt_calib_burst(d.train, d.ntrain, 0.02, &used),
	    2000, 1e-3);
	tt_calib_data_free(&d);
	rec2_remove(&r);
	tt_net_free(&net);
}

/* ---- store-and-forward ---- */

/* the engine's store-and-forward segments (twintorus/calibrate.h) for a
 * model of cycle CYC ns, R + L = SR + CYC, send SS, recv SR_, at SGBPS */
#define CYC 4.0
#define SR 20000.0
#define SSND 3000.0
#define SRCV 1500.0
#define SGBPS 0.5

static size_t
saf_segments(tt_calib_seg *g)
{
	static const double b[] = {64, 256, 1024, 1500};
	size_t n = 0;
	int i, c;

	for (i = 0; i < 4; i++)
		for (c = 0; c < 5; c++) {
			double ser = b[i] * 8 / SGBPS;      /* f cycles */

			g[n].kind = TT_CALIB_SEG_SEND;
			g[n].bytes = b[i];
			g[n++].ns = SSND + SR + CYC;       /* s + R + L */
			g[n].kind = TT_CALIB_SEG_HOP;
			g[n].bytes = b[i];
			g[n++].ns = SR + CYC + ser - CYC;  /* R + L + f - 1 */
			g[n].kind = TT_CALIB_SEG_RECV;
			g[n].bytes = b[i];
			/* R + L + f - 1, then L + f - 1, then r */
			g[n++].ns = SR + CYC + ser - CYC + CYC + ser - CYC +
			    SRCV;
		}
	return n;
}

static void
saf_from_segments(void **state)
{
	tt_calib_seg g[128];
	tt_calib_segfit f;
	tt_calib_saf m;
	char err[256];
	size_t n = saf_segments(g);
	int h;

	(void)state;
	assert_int_equal(tt_calib_fit_segs(g, n, &f, err, sizeof(err)), 0);
	assert_float_equal(f.a[TT_CALIB_SEG_HOP], SR, 1e-6);
	assert_float_equal(f.s[TT_CALIB_SEG_HOP], 8 / SGBPS, 1e-9);
	assert_float_equal(f.s[TT_CALIB_SEG_RECV], 16 / SGBPS, 1e-9);
	assert_float_equal(f.s[TT_CALIB_SEG_SEND], 0, 1e-9);
	assert_int_equal(f.cells[TT_CALIB_SEG_HOP], 4);
	tt_calib_saf_model(&f, CYC, &m);
	assert_false(m.clamped);
	assert_float_equal(m.router_ns, SR, 1e-6);
	assert_float_equal(m.link_ns, CYC, 1e-9);
	assert_float_equal(m.send_ns, SSND, 1e-6);
	assert_float_equal(m.recv_ns, SRCV, 1e-6);
	/* the engine's zero-load latency is the segments' sum */
	for (h = 1; h <= 5; h++) {
		double b = 1024, ser = b * 8 / SGBPS;
		double sum = (SSND + SR + CYC) + (h - 1) * (SR + ser) +
		    (SR + 2 * ser + SRCV);

		assert_float_equal(tt_calib_saf_latency(&m, CYC, SGBPS, h, b),
		    sum, 1e-6);
	}
	/* a source switch cheaper than a hop: send_ns 0, the sum kept */
	for (size_t i = 0; i < n; i++)
		if (g[i].kind == TT_CALIB_SEG_SEND)
			g[i].ns -= SSND + 1000;
	assert_int_equal(tt_calib_fit_segs(g, n, &f, err, sizeof(err)), 0);
	tt_calib_saf_model(&f, CYC, &m);
	assert_true(m.clamped);
	assert_float_equal(m.send_ns, 0, 1e-9);
	assert_float_equal(m.recv_ns, SRCV - 1000, 1e-6);
	/* too few of a kind */
	assert_int_equal(tt_calib_fit_segs(g, 9, &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "at least 10 needed"));
}

static void
saf_round_trips(void **state)
{
	tt_calib_obs o[256];
	tt_calib_opts opts = {0.1, 0, 0, 1};
	tt_calib_fit f;
	char err[256];
	size_t n = 0;
	int h, s, c;

	(void)state;
	for (h = 0; h < 3; h++)
		for (s = 0; s < 4; s++)
			for (c = 0; c < 2; c++) {
				double b = sizes[s] / 16;  /* one frame */

				o[n].nmsg = 2;
				o[n].hops = 2 * hopset[h];
				o[n].bytes = 2 * b;
				o[n].saf_bytes = o[n].hops * b;
				o[n].lat_ns = 2 * BASE + o[n].hops * HOP +
				    (o[n].bytes + o[n].saf_bytes) * 8 / GBPS;
				n++;
			}
	assert_int_equal(tt_calib_fit_obs(o, n, &opts, &f, err, sizeof(err)),
	    0);
	assert_true(f.store_forward);
	assert_float_equal(f.base_ns, BASE, 1e-6);
	assert_float_equal(f.hop_ns, HOP, 1e-6);
	assert_float_equal(f.gbps, GBPS, 1e-9);
	assert_true(f.med_rel < 1e-9);
	/* cut-through takes the extra serialization for hops */
	opts.store_forward = 0;
	assert_int_equal(tt_calib_fit_obs(o, n, &opts, &f, err, sizeof(err)),
	    0);
	assert_true(f.med_rel > 1e-3);
}

static void
host_turnaround(void **state)
{
	tt_calib_turn t[] = {
		{50000, 1}, {40000, 100}, {60000, 1024}, {45000, 24},
		{900000, 65536}, {800000, 2048}, {55000, 8},
	};
	size_t used;
	double q[2], h;

	(void)state;
	/* small requests: 40, 45, 50, 55, 60 us */
	h = tt_calib_host(t, 7, TT_CALIB_HOST_BYTES, &used, q);
	assert_int_equal(used, 5);
	assert_float_equal(h, 50000, 1e-9);
	assert_float_equal(q[0], 45000, 1e-9);
	assert_float_equal(q[1], 55000, 1e-9);
	/* an even count: the middle two's mean */
	h = tt_calib_host(t, 4, TT_CALIB_HOST_BYTES, &used, NULL);
	assert_int_equal(used, 4);
	assert_float_equal(h, 47500, 1e-9);
	/* none small enough */
	assert_float_equal(tt_calib_host(t + 4, 2, TT_CALIB_HOST_BYTES, &used,
	    q), 0, 0);
	assert_int_equal(used, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exact_one_way),
		cmocka_unit_test(exact_round_trips_and_given_rate),
		cmocka_unit_test(queued_outliers),
		cmocka_unit_test(one_hop_count),
		cmocka_unit_test(errors),
		cmocka_unit_test(sustained_rate),
		cmocka_unit_test(shaped_links),
		cmocka_unit_test(from_traces),
		cmocka_unit_test(burst_from_traces),
		cmocka_unit_test(saf_from_segments),
		cmocka_unit_test(saf_round_trips),
		cmocka_unit_test(host_turnaround),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
