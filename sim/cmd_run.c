/*
 * ttsim run: one load point of the cycle-accurate model (seed 000 §7).
 */
#include <stdlib.h>
#include <string.h>

#include "ttsim.h"

static void
run_usage(FILE *f)
{
	fprintf(f,
"usage: ttsim run [FILE.yaml] [network flags] [--traffic NAME] [--load F]\n"
"                 [--seed N] [--seeds N] [--json | --csv] [model flags]\n"
"\n"
"Simulates the network flit by flit (input-queued switches, virtual\n"
"cut-through, credits, two-stage round-robin arbiters; seed 000 §7.1) under\n"
"synthetic traffic: warm-up, a measurement window, then a drain until every\n"
"packet generated in the window has arrived.\n"
"\n"
"network flags:   --dims 4,4,4  --ports D|A..J|best  --deadlock vc|bubble|none\n"
"                 --plain (one card, 2n ports: the ordinary torus)\n"
"traffic:\n"
"  --traffic NAME  uniform (default), hotspot, tornado, transpose,\n"
"                  bit-reversal, bit-complement, shuffle, bit-rotate,\n"
"                  center-reflection, neighbour, random-permutation, flows\n"
"  --load F        offered flits/cycle/PE (default 0.1)\n"
"  --hot PE        hotspot: a hot PE (repeat; default the centre node's PE0)\n"
"  --hot-fraction F  hotspot: share of packets sent to the hot PEs (0.1)\n"
"  --flow SRC:DST  flows: only these pairs send (repeat); PEs as ids or x,y,z/c\n"
"  --seed N        first random seed (default 1)\n"
"  --seeds N       N runs, with seeds S, S+1, ... from --seed S; mean and\n"
"                  95%% confidence interval\n"
"model (defaults from seed 000 §7.1, or the YAML network: section):\n"
"  --packet-flits N (4)  --buffer-flits N (128 per input port)\n"
"  --vcs N         at least N VCs per port (4 under vc, 1 otherwise; ports\n"
"                  that need more get the next power of two)\n"
"  --router-latency N (1)  --link-latency N (1)\n"
"  --warmup N (2000)  --measure N (10000)  --drain N (20000 at most)\n"
"  --watchdog N    cycles without a flit moving that count as deadlock (5000)\n"
"output:          a table; --json (one object) or --csv\n"
"recording:       --record DIR: write what ttd would have captured, one pcap\n"
"                  per node (<host>-pe.pcap, or n<node>-pe.pcap), every\n"
"                  packet a message: at its generation and, delivered, at\n"
"                  its arrival; node clocks offset by up to --clock-skew NS\n"
"                  (500000); one seed\n"
"planning:        --dry-run [--ranks N]: simulate nothing; print the bytes\n"
"                  the engine allocates for this network, and per rank\n"
"                  when mpirun -np N shares it (slabs of the last dimension)\n"
"\n"
"Under mpirun -np N (ttsim built with Open MPI) the ranks share the run and\n"
"its results are the serial run's, bit for bit; rank 0 prints.\n"
"\n"
"Exit status: 0 ran, 1 the deadlock watchdog fired (the channels are\n"
"printed), 2 bad usage or input.\n");
}

/*
 * --dry-run: the bytes the engine allocates (tt_sim_memory(), the sizes
 * tt_sim_create() allocates) for the whole network, and for the largest
 * part when `ranks` ranks share it (tt_sim_memory_part(): the parts
 * mpirun -np N would build, runs of whole nodes in id order, i.e. slabs of
 * the last dimension, with their boundary buffers).
 */
static int
dry_run(const simopts *so, const netopts *no, long ranks)
{
	tt_net net;
	char err[512];
	uint64_t total, per_rank, most = 0;
	uint32_t f, e;
	long r;

	if (tt_net_init(&net, &no->spec, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim run: %s\n", err);
		return TTSIM_EXIT_USAGE;
	}
	if (tt_sim_check(&net, &so->p, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim run: %s\n", err);
		tt_net_free(&net);
		return TTSIM_EXIT_USAGE;
	}
	if (tt_sim_part(&net, (int)ranks, 0, &f, &e) < 0) {
		fprintf(stderr, "ttsim run: --ranks %ld: the network has %u "
		    "nodes; use at most one rank per node\n", ranks,
		    net.twin ? net.ncards / 2 : net.ncards);
		tt_net_free(&net);
		return TTSIM_EXIT_USAGE;
	}
	for (r = 0; r < ranks; r++) {
		tt_sim_part(&net, (int)ranks, (int)r, &f, &e);
		if (e - f > most)
			most = e - f;
	}
	total = tt_sim_memory(&net, &so->p);
	per_rank = tt_sim_memory_part(&net, &so->p, (int)ranks);
	if (no->json)
		printf("{\"pes\":%u,\"ranks\":%ld,\"slab_dim\":%d,"
		    "\"switches_per_rank\":%llu,\"bytes_total\":%llu,"
		    "\"bytes_per_rank\":%llu}\n", net.ncards, ranks, net.n - 1,
		    (unsigned long long)most, (unsigned long long)total,
		    (unsigned long long)per_rank);
	else
		printf("%u PEs: %.1f MiB for the engine; %ld rank%s: at most "
		    "%llu switches (slabs of dimension %d), %.1f MiB per "
		    "rank\n", net.ncards, total / 1048576.0, ranks,
		    ranks > 1 ? "s" : "", (unsigned long long)most, net.n - 1,
		    per_rank / 1048576.0);
	tt_net_free(&net);
	return TTSIM_EXIT_OK;
}

static void
show_progress(void *ctx, double done)
{
	progress_show(ctx, done);
}

int
cmd_run(int argc, char **argv)
{
	netopts no;
	simopts so;
	simpoint pt;
	char label[] = "ttsim run";
	int i, r, dry = 0;
	long ranks = 1;
	char *end;
	size_t c;

	netopts_init(&no);
	simopts_init(&so);
	so.cmd = "run";
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			run_usage(stdout);
			return TTSIM_EXIT_OK;
		}
		if (strcmp(argv[i], "--dry-run") == 0) {
			dry = 1;
			continue;
		}
		if ((r = run_record_flag(&so, argc, argv, &i)) < 0)
			return TTSIM_EXIT_USAGE;
		if (r > 0)
			continue;
		if (strcmp(argv[i], "--ranks") == 0) {
			if (i + 1 >= argc || (ranks = strtol(argv[i + 1], &end,
			    10), *end != '\0') || ranks < 1 || ranks > 1000000) {
				fprintf(stderr, "ttsim run: --ranks needs a "
				    "number of ranks from 1 to 1000000\n");
				return TTSIM_EXIT_USAGE;
			}
			i++;
			continue;
		}
		if ((r = simopts_take(&so, argc, argv, &i, "run")) < 0)
			return TTSIM_EXIT_USAGE;
		if (r > 0)
			continue;
		if ((r = netopts_take(&no, argc, argv, &i, "run")) < 0)
			return TTSIM_EXIT_USAGE;
		if (r == 0) {
			fprintf(stderr, "ttsim run: unknown flag '%s' (see ttsim "
			    "run --help)\n", argv[i]);
			return TTSIM_EXIT_USAGE;
		}
	}
	if (netopts_finish(&no, "run") < 0)
		return TTSIM_EXIT_USAGE;
	if (no.ports_all) {
		fprintf(stderr, "ttsim run: --ports all runs many networks; use "
		    "ttsim sweep --ports all\n");
		return TTSIM_EXIT_USAGE;
	}
	if (no.json && so.csv) {
		fprintf(stderr, "ttsim run: --json and --csv do not go together\n");
		return TTSIM_EXIT_USAGE;
	}
	simopts_apply_config(&so, &no.cfg);
	if (so.record_dir != NULL && (dry || so.seeds != 1)) {
		fprintf(stderr, "ttsim run: --record records one run: not with "
		    "--dry-run or --seeds\n");
		return TTSIM_EXIT_USAGE;
	}
	so.record_cfg = &no.cfg;
	so.record_flit_bytes = no.cfg.params.flit_bytes;
	so.record_cycle_ns = (double)no.cfg.params.flit_bytes * 8.0 /
	    no.cfg.params.link_gbps;
	if (dry)
		return dry_run(&so, &no, ranks);
	if (ranks != 1) {
		fprintf(stderr, "ttsim run: --ranks goes with --dry-run; to "
		    "run on N ranks, use mpirun -np N ttsim run ...\n");
		return TTSIM_EXIT_USAGE;
	}
	if (simpoint_check(&so, &no.spec, so.load) < 0)
		return TTSIM_EXIT_USAGE;
	if (simpoint_run(&so, &no.spec, so.load, &pt, show_progress, label,
	    0, 1) < 0) {
		progress_clear();
		return TTSIM_EXIT_USAGE;
	}
	progress_clear();
	if (no.json) {
		simpoint_json(stdout, &pt);
		putchar('\n');
	} else if (so.csv) {
		simpoint_csv_header(stdout);
		simpoint_csv(stdout, &pt);
	} else {
		char title[128];

		printf("%s, ports %s, scheme %s: %s traffic at %g "
		    "flits/cycle/PE, %d seed%s\n",
		    net_title(&pt.net, title, sizeof(title)), pt.net.ports_name,
		    tt_deadlock_name(pt.net.deadlock),
		    tt_pattern_name(pt.pattern), pt.load, pt.seeds,
		    pt.seeds > 1 ? "s" : "");
		printf("  offered load        %.4f flits/cycle/PE\n", pt.offered);
		printf("  accepted load       %.4f", pt.accepted);
		if (pt.seeds > 1)
			printf(" +- %.4f", pt.accepted_ci);
		printf(" flits/cycle/PE%s\n", pt.saturated ? "  (saturated)" : "");
		printf("  throughput          %.3f packets/cycle\n",
		    pt.throughput_packets);
		if (pt.measured_runs < pt.seeds) {
			printf("  network latency     n/a (no packet generated in "
			    "the window arrived)\n");
		} else {
			printf("  network latency     %.2f", pt.net_lat);
			if (pt.seeds > 1)
				printf(" +- %.2f", pt.net_lat_ci);
			printf(" cycles\n  end-to-end latency  %.2f", pt.e2e_lat);
			if (pt.seeds > 1)
				printf(" +- %.2f", pt.e2e_lat_ci);
			printf(" cycles, p99 %.0f\n", pt.p99_e2e);
			printf("  hops                %.3f links per packet\n",
			    pt.avg_hops);
		}
		if (pt.undelivered > 0)
			printf("  not delivered       %.0f packets of the window "
			    "by the end of the drain; the latencies cover the "
			    "others\n", pt.undelivered);
		if (pt.net.twin)
			printf("  internal links      %.1f%% busy\n",
			    100 * pt.internal_util);
		printf("  simulated           %.0f cycles (warm-up %llu, window "
		    "%llu), %.0f packets delivered\n", pt.cycles,
		    (unsigned long long)so.p.warmup,
		    (unsigned long long)so.p.measure, pt.delivered);
		printf("  speed               %.0f cycles/s\n",
		    pt.wall > 0 ? pt.total_cycles / pt.wall : 0);
	}
	if (pt.deadlock) {
		fprintf(stderr, "ttsim run: deadlock: no flit moved for %llu "
		    "cycles (seed %llu, cycle %llu); the full buffers wait on "
		    "each other in a cycle of %zu channels:\n",
		    (unsigned long long)so.p.watchdog,
		    (unsigned long long)pt.deadlock_seed,
		    (unsigned long long)pt.deadlock_cycle, pt.nchan);
		for (c = 0; c < pt.nchan; c++)
			fprintf(stderr, "  %s\n", pt.chan[c]);
	}
	r = pt.deadlock ? TTSIM_EXIT_DEADLOCK : TTSIM_EXIT_OK;
	simpoint_free(&pt);
	return r;
}
