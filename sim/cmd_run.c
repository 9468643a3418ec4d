/*
 * ttsim run: one load point of the cycle-accurate model (seed 000 §7).
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "twintorus/json.h"
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
"packet generated in the window has arrived.  The window's 20 batches are\n"
"tested for a steady state (no significant trend in accepted load or\n"
"latency); unless a window is given, a window that fails becomes warm-up\n"
"and the next is measured, up to --warmup-max cycles of warm-up.\n"
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
 * the last dimension, with their boundary buffers).  The packet pool and
 * the timing wheels' lists (tt_sim_memory_packets()) are mapped apart:
 * the most they could take.
 */
static int
dry_run(const simopts *so, const netopts *no, int json, int ranks)
{
	tt_net net;
	char err[512], title[128];
	uint64_t total, per_rank, packets, most = 0;
	uint32_t f, e;
	int r;

	if (tt_net_init(&net, &no->spec, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim run: %s\n", err);
		return TTSIM_EXIT_USAGE;
	}
	if (tt_sim_check(&net, &so->p, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim run: %s\n", err);
		tt_net_free(&net);
		return TTSIM_EXIT_USAGE;
	}
	if (tt_sim_part(&net, ranks, 0, &f, &e) < 0) {
		fprintf(stderr, "ttsim run: --ranks %d: the network has %u "
		    "nodes; use at most one rank per node\n", ranks,
		    net.twin ? net.ncards / 2 : net.ncards);
		tt_net_free(&net);
		return TTSIM_EXIT_USAGE;
	}
	for (r = 0; r < ranks; r++) {
		tt_sim_part(&net, ranks, r, &f, &e);
		if (e - f > most)
			most = e - f;
	}
	total = tt_sim_memory(&net, &so->p);
	packets = tt_sim_memory_packets(&net, &so->p);
	per_rank = tt_sim_memory_part(&net, &so->p, ranks);
	/* a switch per card: two a twin node, one a plain node */
	if (json) {
		tt_json_begin(stdout, TT_JSON_SCHEMA_RUN_DRY);
		printf(",\"pes\":%u,\"switches\":%u,\"ranks\":%d,"
		    "\"slab_dim\":%d,\"switches_per_rank\":%llu,"
		    "\"bytes_total\":%llu,\"bytes_per_rank\":%llu,"
		    "\"bytes_per_pe\":%.0f,\"bytes_per_switch\":%.0f,"
		    "\"bytes_packets_max\":%llu",
		    net.ncards, net.ncards, ranks, net.n - 1,
		    (unsigned long long)most, (unsigned long long)total,
		    (unsigned long long)per_rank, (double)total / net.ncards,
		    (double)per_rank / (double)most,
		    (unsigned long long)packets);
		/* what a run of this model would be: the cycles its ns
		 * became */
		model_json(stdout, &so->model, &so->mc);
		printf("}\n");
	} else {
		printf("%s, %u PEs, %u switches: %.1f MiB for the engine, "
		    "%.0f bytes per PE; %d rank%s: at most %llu switches "
		    "(slabs of dimension %d), %.1f MiB per rank, %.0f bytes "
		    "per switch\n", net_title(&net, title, sizeof(title)),
		    net.ncards, net.ncards, total / 1048576.0,
		    (double)total / net.ncards, ranks, ranks > 1 ? "s" : "",
		    (unsigned long long)most, net.n - 1, per_rank / 1048576.0,
		    (double)per_rank / (double)most);
		printf("and for packets and the timing wheels up to %.1f MiB, "
		    "mapped: a run uses what it has in flight at once\n",
		    packets / 1048576.0);
	}
	tt_net_free(&net);
	return TTSIM_EXIT_OK;
}

static void
show_progress(void *ctx, double done)
{
	progress_show(ctx, done);
}

/* What ttsim run is told. */
struct runargs {
	netopts net;
	simopts sim;
	outopts out;
	recordopts rec;
	int dry;
	int ranks;
	int threads;            /* --threads N; 0: not given */
};

enum { OPT_RUN_DRY = OPT_OWN, OPT_RUN_RANKS, OPT_RUN_THREADS };

static const optdef run_flags[] = {
	OPT_TITLE("planning:"),
	OPT_FLAG("dry-run", OPT_RUN_DRY,
	    "simulate nothing; print the bytes the engine allocates for this "
	    "network, per PE, per rank and per switch when mpirun -np N shares "
	    "it (slabs of the last dimension; a switch per card), and the "
	    "packet pool's most (mapped: a run touches only what it has in "
	    "flight)"),
	OPT_VAL("ranks", OPT_RUN_RANKS, "N", "with --dry-run: the N of mpirun "
	    "-np N (default 1)"),
	OPT_TITLE("speed:"),
	OPT_VAL("threads", OPT_RUN_THREADS, "N", "split the switches over N "
	    "threads of this process, the partition mpirun uses, with the same "
	    "results bit for bit (default: the cores this process may use, up "
	    "to " TTSIM_THREADS_DEFAULT_S ", for a network of at least "
	    TTSIM_THREADS_MIN_SWITCHES_S " switches; 1 below)"),
	OPT_END
};

static int
run_take(void *state, const struct optval *v)
{
	struct runargs *a = state;

	if (v->id == OPT_RUN_DRY) {
		a->dry = 1;
		return 0;
	}
	if (v->id == OPT_RUN_THREADS)
		return opt_int(v->cmd, v->flag, v->value, 1,
		    TTSIM_THREADS_MAX, &a->threads);
	return opt_int(v->cmd, v->flag, v->value, 1, 1000000, &a->ranks);
}

/* Parse and check: OPT_PARSED, OPT_HELP_SHOWN or -1 after a message. */
static int
run_parse(struct runargs *a, int argc, char **argv)
{
	const opt_group groups[] = {
		{netopts_flags, 1, netopts_take, &a->net},
		{netopts_rule_flags, 0, netopts_take, &a->net},
		{outopts_json_csv, 0, outopts_take, &a->out},
		{simopts_traffic_flags, 0, simopts_take, &a->sim},
		{simopts_model_flags, 0, simopts_take, &a->sim},
		{modelopts_flags, 0, modelopts_take, &a->sim},
		{simopts_window_flags, 0, simopts_take, &a->sim},
		{recordopts_flags, 0, recordopts_take, &a->rec},
		{run_flags, 0, run_take, a},
		{progress_flags, 0, progress_take, NULL},
	};
	int r;

	netopts_init(&a->net);
	simopts_init(&a->sim);
	recordopts_init(&a->rec);
	a->sim.cmd = "run";
	a->ranks = 1;
	r = opt_parse("run", run_usage, groups, OPT_NGROUPS(groups), argc, argv);
	if (r != OPT_PARSED)
		return r;
	if (netopts_finish(&a->net, "run") < 0)
		return -1;
	if (a->net.ports_all) {
		fprintf(stderr, "ttsim run: --ports all runs many networks; use "
		    "ttsim sweep --ports all\n");
		return -1;
	}
	if (a->out.json && a->out.csv) {
		fprintf(stderr, "ttsim run: --json and --csv do not go together\n");
		return -1;
	}
	if (simopts_resolve(&a->sim, &a->net.cfg, NULL) < 0)
		return -1;
	if (!a->dry && a->ranks != 1) {
		fprintf(stderr, "ttsim run: --ranks goes with --dry-run; to "
		    "run on N ranks, use mpirun -np N ttsim run ...\n");
		return -1;
	}
	if (recordopts_check(&a->rec, "run") < 0)
		return -1;
	if (a->rec.dir != NULL && (a->dry || a->sim.seeds != 1)) {
		fprintf(stderr, "ttsim run: --record records one run: not with "
		    "--dry-run or --seeds\n");
		return -1;
	}
	a->sim.record = &a->rec;
	a->sim.record_cfg = &a->net.cfg;
	return OPT_PARSED;
}

static void
run_text(const simpoint *pt, const tt_simparams *p)
{
	char title[128];

	printf("%s, ports %s, scheme %s: %s traffic at %g flits/cycle/PE, "
	    "%d seed%s\n", net_title(&pt->net, title, sizeof(title)),
	    pt->net.ports_name, tt_deadlock_name(pt->net.deadlock),
	    tt_pattern_name(pt->pattern), pt->load, pt->seeds,
	    pt->seeds > 1 ? "s" : "");
	printf("  offered load        %.4f flits/cycle/PE\n", pt->offered);
	printf("  accepted load       %.4f", pt->accepted);
	if (pt->seeds > 1)
		printf(" +- %.4f", pt->accepted_ci);
	printf(" flits/cycle/PE%s\n", pt->saturated ? "  (saturated)" : "");
	printf("  throughput          %.3f packets/cycle\n",
	    pt->throughput_packets);
	if (pt->measured_runs < pt->seeds) {
		printf("  network latency     n/a (no packet generated in the "
		    "window arrived)\n");
	} else {
		printf("  network latency     %.2f", pt->net_lat);
		if (pt->seeds > 1)
			printf(" +- %.2f", pt->net_lat_ci);
		printf(" cycles\n  end-to-end latency  %.2f", pt->e2e_lat);
		if (pt->seeds > 1)
			printf(" +- %.2f", pt->e2e_lat_ci);
		printf(" cycles, p99 %.0f\n", pt->p99_e2e);
		printf("  hops                %.3f links per packet\n",
		    pt->avg_hops);
	}
	if (pt->undelivered > 0)
		printf("  not delivered       %.0f packets of the window by the "
		    "end of the drain; the latencies cover the others\n",
		    pt->undelivered);
	if (pt->net.twin)
		printf("  internal links      %.1f%% busy\n",
		    100 * pt->internal_util);
	printf("  steady state        %s (over the window: accepted load "
	    "%+.1f%%, latency %+.1f%%)\n", pt->converged ? "converged" :
	    pt->throughput_converged ? "not converged (accepted load steady)" :
	    "not converged", 100 * pt->accepted_drift, 100 * pt->latency_drift);
	printf("  simulated           %.0f cycles%s (warm-up ", pt->cycles,
	    pt->seeds > 1 ? " a seed" : "");
	if (pt->warmup_least < pt->warmup_used)
		printf("%.0f to ", pt->warmup_least);
	printf("%.0f, window %llu), %.0f packets delivered\n", pt->warmup_used,
	    (unsigned long long)p->measure, pt->delivered);
	printf("  speed               %.0f cycles/s",
	    pt->wall > 0 ? pt->total_cycles / pt->wall : 0);
	if (pt->threads > 1)
		printf(" on %d threads", pt->threads);
	putchar('\n');
}

static void
run_deadlock(const simpoint *pt, const tt_simparams *p)
{
	size_t c;

	fprintf(stderr, "ttsim run: deadlock: no flit moved for %llu cycles "
	    "(seed %llu, cycle %llu); the full buffers wait on each other in "
	    "a cycle of %zu channels:\n", (unsigned long long)p->watchdog,
	    (unsigned long long)pt->deadlock_seed,
	    (unsigned long long)pt->deadlock_cycle, pt->nchan);
	for (c = 0; c < pt->nchan; c++)
		fprintf(stderr, "  %s\n", pt->chan[c]);
}

/* What --threads may be here; how many, simpoint_run() decides from the
 * network it builds (ttsim_threads_for()).  -1 after a message. */
static int
run_threads(struct runargs *a)
{
	a->sim.threads = 1;
	if (ttsim_comm() != NULL || a->rec.dir != NULL) {
		if (a->threads > 1) {
			fprintf(stderr, "ttsim run: --threads %d: %s\n",
			    a->threads, a->rec.dir != NULL ? "--record records "
			    "from one thread; leave --threads out" : "under "
			    "mpirun the ranks split the switches already; "
			    "leave --threads out");
			return -1;
		}
		return 0;
	}
	a->sim.threads = a->threads > 0 ? a->threads : TTSIM_THREADS_AUTO;
	return 0;
}

int
cmd_run(int argc, char **argv)
{
	struct runargs a;
	simpoint pt;
	char label[] = "ttsim run";
	int r;

	/*
	 * The engine's arrays are large and mostly touched far less than
	 * their size (the wheels' lists, the packet pool): mapped, a page
	 * never touched costs nothing.  glibc raises its threshold for
	 * mapping when a mapped block is freed (the traffic simpoint_check()
	 * builds), and arrays below it would come from the heap, where
	 * calloc() clears every page; fixing it keeps them mapped (peak RSS
	 * of 3DT 32^3 on two threads 1.3 MB lower).
	 */
	(void)mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	memset(&a, 0, sizeof(a));
	r = run_parse(&a, argc, argv);
	if (r != OPT_PARSED)
		return r == OPT_HELP_SHOWN ? TTSIM_EXIT_OK : TTSIM_EXIT_USAGE;
	if (a.dry)
		return dry_run(&a.sim, &a.net, a.out.json, a.ranks);
	if (simpoint_check(&a.sim, &a.net.spec, a.sim.load) < 0)
		return TTSIM_EXIT_USAGE;
	if (run_threads(&a) < 0)
		return TTSIM_EXIT_USAGE;
	simpoint_warn_load(&a.sim, "--load", a.sim.load);
	r = simpoint_run(&a.sim, &a.net.spec, a.sim.load, &pt, show_progress,
	    label, 0, 1);
	progress_clear();
	if (r < 0)
		return TTSIM_EXIT_USAGE;
	if (a.out.json) {
		simpoint_json(stdout, &pt, TT_JSON_SCHEMA_RUN);
		putchar('\n');
	} else if (a.out.csv) {
		simpoint_csv_header(stdout);
		simpoint_csv(stdout, &pt);
	} else {
		run_text(&pt, &a.sim.p);
	}
	if (pt.deadlock)
		run_deadlock(&pt, &a.sim.p);
	r = pt.deadlock ? TTSIM_EXIT_DEADLOCK : TTSIM_EXIT_OK;
	simpoint_free(&pt);
	return r;
}
