/*
 * The closed-loop motifs and their recording (twintorus/motif.h,
 * twintorus/record.h):
 *   - every motif's programs end on a twin and on a plain torus, with as
 *     many messages as the motif's definition gives (computed here from
 *     the definitions), all of them received, none waited for in vain:
 *     the receives name exactly the messages their senders sent;
 *   - a run is the same twice; --ranks runs the program on the PEs
 *     listed, rank r on the r-th, and the others do nothing;
 *   - a recording holds, per node, each message once at its send (on the
 *     source's node) and once delivered (on the destination's), in time
 *     order, named n<node>-pe.pcap or after the nodes: map's host, with
 *     node clocks that differ; a directory holding traces is refused;
 *   - the dependencies inferred from the recording of a halo exchange are
 *     the motif's true ones.
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

#include "twintorus/motif.h"
#include "twintorus/frame.h"
#include "twintorus/infer.h"
#include "twintorus/record.h"
#include "twintorus/trace.h"
#include "tt_test.h"

struct run {
	tt_motif_result r;
	uint64_t makespan;
	uint64_t waiting;
};

static struct run
run_motif(const tt_net *net, const tt_motif_params *ap, tt_record *rec,
    tt_deps_writer *dw)
{
	tt_simparams sp;
	tt_simresult res;
	struct run out;
	tt_source src;
	tt_sim *sim;
	tt_motif_job *a;
	char err[256], wait[256];

	tt_simparams_default(&sp);
	assert_int_equal(tt_sim_create(&sim, net, &sp, err, sizeof(err)), 0);
	if (tt_motif_create(&a, ap, sim, err, sizeof(err)) != 0)
		fail_msg("tt_motif_create: %s", err);
	if (rec != NULL)
		tt_motif_record(a, rec);
	if (dw != NULL)
		tt_motif_deps(a, dw);
	src = tt_motif_source(a);
	tt_sim_run(sim, &src, 1, &res, NULL, NULL);
	assert_false(res.deadlock);
	assert_int_equal(tt_motif_error(a, err, sizeof(err)), 0);
	out.r = *tt_motif_result_get(a);
	out.makespan = tt_motif_makespan(&out.r);
	out.waiting = tt_motif_waiting(a, wait, sizeof(wait));
	if (out.waiting)
		fail_msg("%s: %s", tt_motif_name(ap->motif), wait);
	tt_motif_free(a);
	tt_simresult_free(&res);
	tt_sim_free(sim);
	return out;
}

/* The messages motif m sends among n ranks in `it` iterations, from the
 * definitions in twintorus/motif.h. */
static uint64_t
expected(enum tt_motif m, uint64_t n, uint64_t it, uint64_t blocks)
{
	uint64_t a, b, c, best = UINT64_MAX, g[3] = {n, 1, 1}, s = 0, d;

	switch (m) {
	case TT_MOTIF_HALO3D:
		for (a = 1; a * a * a <= n; a++)
			for (b = a; a * b * b <= n; b++)
				if (n % (a * b) == 0 && (c = n / a / b) - a < best) {
					best = c - a;
					g[0] = a;
					g[1] = b;
					g[2] = c;
				}
		for (d = 0; d < 3; d++)
			s += g[d] > 1 ? 2 : 0;
		return n * s * it;
	case TT_MOTIF_SWEEP3D:
		for (a = 1; a * a <= n; a++)
			if (n % a == 0)
				g[1] = a;       /* y: the smaller side */
		g[0] = n / g[1];
		/* downstream x exists for all but one column, y for all but
		 * one row, in every direction */
		return blocks * ((g[0] - 1) * g[1] + g[0] * (g[1] - 1)) * it;
	case TT_MOTIF_ALLREDUCE:
		return n * 2 * (n - 1) * it;
	case TT_MOTIF_ALLTOALL:
		return n * (n - 1) * it;
	case TT_MOTIF_INCAST:
		c = n / 16 ? n / 16 : 1;
		return 2 * (n - c) * it;
	default:
		return 2 * (n / 2) * it;
	}
}

static void
small_params(tt_motif_params *p, enum tt_motif m)
{
	tt_motif_params_default(p, m);
	p->iterations = 4;      /* sweep3d: every corner once */
	p->bytes = m == TT_MOTIF_ALLREDUCE ? 4096 : 256;
	p->compute_ns = 500;
	p->service_ns = 200;
}

static void
test_motifs_complete(void **state)
{
	static const int k3[3] = {4, 2, 2}, k2[2] = {5, 6};
	tt_net nets[2];
	tt_motif_params p;
	struct run r, again;
	int m, k;

	(void)state;
	tt_test_net(&nets[0], 3, k3, 1, "D", TT_DL_VC);         /* 32 PEs */
	tt_test_net(&nets[1], 2, k2, 0, NULL, TT_DL_BUBBLE);    /* 30 PEs */
	for (k = 0; k < 2; k++)
		for (m = 0; m < TT_MOTIF_COUNT; m++) {
			small_params(&p, (enum tt_motif)m);
			r = run_motif(&nets[k], &p, NULL, NULL);
			assert_int_equal(r.r.sent, expected((enum tt_motif)m,
			    nets[k].ncards, 4, p.blocks));
			assert_int_equal(r.r.messages, r.r.sent);
			assert_int_equal(r.r.done, nets[k].ncards);
			assert_true(r.makespan > 0);
			again = run_motif(&nets[k], &p, NULL, NULL);
			assert_int_equal(again.makespan, r.makespan);
			assert_int_equal(again.r.finish, r.r.finish);
		}
	tt_net_free(&nets[0]);
	tt_net_free(&nets[1]);
}

static void
test_ranks_subset(void **state)
{
	static const int k3[3] = {4, 2, 2};
	static const uint32_t pes[] = {0, 3, 5, 8, 13, 31};
	tt_motif_params p;
	tt_simparams sp;
	tt_simresult res;
	tt_source src;
	tt_sim *sim;
	tt_motif_job *a;
	tt_net net;
	uint32_t pe, rank;
	uint64_t fin, sent, rcvd;
	char err[256];
	int k = 0;

	(void)state;
	tt_test_net(&net, 3, k3, 1, "D", TT_DL_VC);
	small_params(&p, TT_MOTIF_ALLTOALL);
	p.ranks = pes;
	p.nranks = 6;
	tt_simparams_default(&sp);
	assert_int_equal(tt_sim_create(&sim, &net, &sp, err, sizeof(err)), 0);
	assert_int_equal(tt_motif_create(&a, &p, sim, err, sizeof(err)), 0);
	src = tt_motif_source(a);
	tt_sim_run(sim, &src, 1, &res, NULL, NULL);
	assert_int_equal(tt_motif_result_get(a)->messages, 6 * 5 * 4);
	for (pe = 0; pe < net.ncards; pe++) {
		if (!tt_motif_pe(a, pe, &rank, &fin, &sent, &rcvd))
			continue;
		assert_int_equal(pe, pes[rank]);
		assert_int_equal(sent, 5 * 4);
		assert_int_equal(rcvd, 5 * 4);
		k++;
	}
	assert_int_equal(k, 6);
	/* a PE twice, or outside the network, is refused */
	p.ranks = (const uint32_t []){0, 3, 3};
	p.nranks = 3;
	assert_int_equal(tt_motif_check(&p, net.ncards, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "PE 3 is listed twice"));
	p.ranks = (const uint32_t []){0, 32};
	p.nranks = 2;
	assert_int_equal(tt_motif_check(&p, net.ncards, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "PE 32 is not in the network"));
	tt_motif_free(a);
	tt_simresult_free(&res);
	tt_sim_free(sim);
	tt_net_free(&net);
}

/* ---- recording ---- */

static char dir[] = "/tmp/tt-app-XXXXXX";

static void
rm_dir(const char *d)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	assert_int_equal(system(cmd), 0);
}

struct recstat {
	uint64_t sends, copies, backwards, first[16], sent_at[16][64];
	uint8_t got[16][64];
};

/* Read node's trace: every send on its source's node, every copy on its
 * destination's, in time order. */
static void
read_node(const tt_net *net, const char *path, uint32_t node,
    struct recstat *st)
{
	tt_trace_reader *r;
	tt_trace_rec rec;
	tt_frame f;
	uint64_t last = 0;
	char err[256];
	int x;

	if (tt_trace_open(&r, path, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	while ((x = tt_trace_read(r, &rec, err, sizeof(err))) > 0) {
		assert_int_equal(tt_frame_decode(&f, rec.data, rec.caplen, err,
		    sizeof(err)), 0);
		if (rec.t_ns < last)
			st->backwards++;
		last = rec.t_ns;
		assert_true(f.seq < 64);
		if (f.flags & TT_FRAME_F_DELIVERED) {
			assert_int_equal(tt_card_node(net, f.dst), node);
			assert_false(st->got[f.src][f.seq]);
			st->got[f.src][f.seq] = 1;
			st->copies++;
		} else {
			assert_int_equal(tt_card_node(net, f.src), node);
			assert_int_equal(rec.wirelen - rec.caplen, 256);
			st->sent_at[f.src][f.seq] = rec.t_ns;
			st->sends++;
		}
		if (st->first[node] == 0)
			st->first[node] = rec.t_ns;
	}
	assert_int_equal(x, 0);
	tt_trace_close_reader(r);
}

/*
 * A recording's directory is read back by the rule that names it: a host
 * with ".part" in its name names a file the readers take (they skipped
 * every name holding ".part", a writer's temporary ending), a host a
 * reader would skip (hidden) is refused, and a directory holding only what
 * readers skip is no trace directory yet.
 */
static void
test_record_names_read_back(void **state)
{
	static const int k3[3] = {2, 2, 2};
	char rdir[] = "/tmp/tt-app-XXXXXX", path[128], err[512];
	const char *paths[1] = {rdir};
	tt_config cfg;
	tt_record *rec;
	tt_trace_in *in;
	tt_net net;
	FILE *f;

	(void)state;
	tt_test_net(&net, 3, k3, 1, "D", TT_DL_VC);
	tt_config_default(&cfg);
	cfg.nnodes = 1;
	cfg.nodes = calloc(1, sizeof(*cfg.nodes));
	assert_non_null(cfg.nodes);
	snprintf(cfg.nodes[0].host, sizeof(cfg.nodes[0].host), "rack.part1");
	cfg.nodes[0].coord[0] = 1;
	cfg.nodes[0].coord_ok = 1;
	assert_non_null(mkdtemp(rdir));
	/* a writer's leftover temporary and a hidden copy: not traces */
	snprintf(path, sizeof(path), "%s/n0-pe.pcap.a1b2c3.part", rdir);
	assert_non_null(f = fopen(path, "w"));
	fclose(f);
	snprintf(path, sizeof(path), "%s/.n0-pe.pcap.x", rdir);
	assert_non_null(f = fopen(path, "w"));
	fclose(f);
	assert_int_equal(tt_record_dir_ready(rdir, err, sizeof(err)), 0);
	assert_int_equal(tt_record_open(&rec, rdir, &net, &cfg, 0, net.ncards,
	    12.8, 0, err, sizeof(err)), 0);
	assert_int_equal(tt_record_send(rec, 1, 1, 2, 3, 0, 100), 0);
	assert_int_equal(tt_record_close(rec, NULL, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/rack.part1-pe.pcap", rdir);
	assert_int_equal(access(path, R_OK), 0);
	assert_int_equal(tt_trace_in_open(&in, paths, 1, NULL, net.ncards, err,
	    sizeof(err)), 0);
	assert_int_equal(tt_trace_in_nfiles(in), net.nnodes);
	tt_trace_in_close(in);
	rm_dir(rdir);

	/* a hidden name would not be read back: refused, naming the host */
	snprintf(cfg.nodes[0].host, sizeof(cfg.nodes[0].host), ".rack1");
	assert_non_null(mkdtemp(strcpy(rdir, "/tmp/tt-app-XXXXXX")));
	assert_int_equal(tt_record_open(&rec, rdir, &net, &cfg, 0, net.ncards,
	    12.8, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "host \".rack1\""));
	rm_dir(rdir);
	free(cfg.nodes);
	tt_net_free(&net);
}

static void
test_record(void **state)
{
	static const int k3[3] = {2, 2, 2};
	tt_motif_params p;
	tt_config cfg;
	tt_record *rec;
	tt_net net;
	struct recstat *st = calloc(1, sizeof(*st));
	struct run r;
	uint64_t n;
	uint32_t node, s, q;
	char err[512], path[128];
	int offsets_differ = 0;

	(void)state;
	assert_non_null(st);
	assert_non_null(mkdtemp(dir));
	tt_test_net(&net, 3, k3, 1, "D", TT_DL_VC);           /* 16 PEs */
	small_params(&p, TT_MOTIF_HALO3D);
	p.iterations = 3;
	assert_int_equal(tt_record_open(&rec, dir, &net, NULL, 0, net.ncards,
	    12.8, 300000, err, sizeof(err)), 0);
	r = run_motif(&net, &p, rec, NULL);
	assert_int_equal(tt_record_close(rec, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2 * r.r.messages);
	for (node = 0; node < net.nnodes; node++) {
		snprintf(path, sizeof(path), "%s/n%u-pe.pcap", dir, node);
		read_node(&net, path, node, st);
		if (node > 0 && st->first[node] != st->first[0])
			offsets_differ = 1;
	}
	assert_int_equal(st->sends, r.r.messages);
	assert_int_equal(st->copies, r.r.messages);
	assert_int_equal(st->backwards, 0);
	for (s = 0; s < 16; s++)
		for (q = 0; q < r.r.sent / 16; q++)
			assert_true(st->got[s][q] && st->sent_at[s][q] != 0);
	assert_true(offsets_differ);
	/* recording again into it would mix two runs */
	assert_int_equal(tt_record_dir_ready(dir, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "already holds traces"));
	rm_dir(dir);

	/* the nodes: map names the files */
	tt_config_default(&cfg);
	cfg.nnodes = 1;
	cfg.nodes = calloc(1, sizeof(*cfg.nodes));
	assert_non_null(cfg.nodes);
	snprintf(cfg.nodes[0].host, sizeof(cfg.nodes[0].host), "alpha");
	cfg.nodes[0].coord[0] = 1;
	cfg.nodes[0].coord_ok = 1;
	assert_non_null(mkdtemp(strcpy(dir, "/tmp/tt-app-XXXXXX")));
	assert_int_equal(tt_record_open(&rec, dir, &net, &cfg, 0, net.ncards,
	    12.8, 0, err, sizeof(err)), 0);
	assert_int_equal(tt_record_close(rec, NULL, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/alpha-pe.pcap", dir);
	assert_int_equal(access(path, R_OK), 0);
	snprintf(path, sizeof(path), "%s/n0-pe.pcap", dir);
	assert_int_equal(access(path, R_OK), 0);
	snprintf(path, sizeof(path), "%s/n1-pe.pcap", dir);
	assert_int_equal(access(path, R_OK), -1);
	free(cfg.nodes);
	rm_dir(dir);
	tt_net_free(&net);
	free(st);
}

/* Recorded with skewed clocks, a halo exchange infers to its true
 * dependencies, predecessor for predecessor. */
static void
test_inferred_equal_true(void **state)
{
	static const int k3[3] = {4, 2, 2};
	const char *paths[1];
	tt_motif_params p;
	tt_infer_params ip;
	tt_deps_writer *w;
	tt_deps_reader *tr;
	tt_record *rec;
	tt_infer *inf;
	tt_net net;
	tt_dep a, b;
	char err[512], dpath[128], line[4][256];
	uint64_t lines = 0;
	int x;

	(void)state;
	assert_non_null(mkdtemp(strcpy(dir, "/tmp/tt-app-XXXXXX")));
	tt_test_net(&net, 3, k3, 1, "D", TT_DL_VC);
	small_params(&p, TT_MOTIF_HALO3D);
	p.compute_ns = 5000;
	p.imbalance = 0.3;
	snprintf(dpath, sizeof(dpath), "%s.deps", dir);
	assert_int_equal(tt_record_open(&rec, dir, &net, NULL, 0, net.ncards,
	    12.8, 500000, err, sizeof(err)), 0);
	assert_int_equal(tt_deps_create(&w, dpath, err, sizeof(err)), 0);
	run_motif(&net, &p, rec, w);
	assert_int_equal(tt_record_close(rec, NULL, err, sizeof(err)), 0);
	assert_int_equal(tt_deps_close(w, err, sizeof(err)), 0);
	tt_infer_params_default(&ip);
	ip.npes = net.ncards;
	paths[0] = dir;
	assert_int_equal(tt_infer_open(&inf, paths, 1, &ip, err, sizeof(err)), 0);
	/* both files list each PE's sends in its order; compare per PE by
	 * (pe, seq) through a table of the true lines' text */
	{
		static char truth[32][64][256];
		uint32_t k;

		assert_int_equal(tt_deps_open(&tr, dpath, err, sizeof(err)), 0);
		while ((x = tt_deps_read(tr, &a, err, sizeof(err))) > 0) {
			char *s = truth[a.pe][a.seq];
			int n = snprintf(s, 256, "%u %llu", a.dst,
			    (unsigned long long)a.gap_ns);

			/* the true file lists predecessors in program order */
			for (k = 0; k < a.npred; k++)
				n += snprintf(s + n, 256 - (size_t)n, " %u:%u",
				    a.pred[k].src, a.pred[k].seq);
		}
		assert_int_equal(x, 0);
		tt_deps_close_reader(tr);
		while ((x = tt_infer_next(inf, &b, err, sizeof(err))) > 0) {
			int n = snprintf(line[0], 256, "%u %llu", b.dst,
			    (unsigned long long)b.gap_ns);
			uint32_t j;

			/* the same set, in the true file's order */
			for (j = 0; j < b.npred; j++) {
				char ref[32];

				snprintf(ref, sizeof(ref), " %u:%u", b.pred[j].src,
				    b.pred[j].seq);
				assert_non_null(strstr(truth[b.pe][b.seq], ref));
			}
			(void)n;
			lines++;
		}
		assert_int_equal(x, 0);
	}
	assert_int_equal(lines, tt_infer_stats_get(inf)->messages);
	assert_int_equal(tt_infer_stats_get(inf)->predecessors,
	    (uint64_t)4 * 32 * 6 - 32 * 6);     /* all but the first step's */
	tt_infer_free(inf);
	unlink(dpath);
	rm_dir(dir);
	tt_net_free(&net);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_motifs_complete),
		cmocka_unit_test(test_ranks_subset),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_record_names_read_back),
		cmocka_unit_test(test_inferred_equal_true),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
