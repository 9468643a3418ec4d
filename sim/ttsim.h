/*
 * ttsim: private interfaces between the subcommands.
 *
 * Exit codes, for every subcommand:
 *   0  success (verify: deadlock-free)
 *   1  verify found a cycle (deadlock possible)
 *   2  bad usage or bad input (flags, config file), or standard output
 *      could not be written
 */
#ifndef TTSIM_H
#define TTSIM_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/sim_part.h"           /* lib/: the partition, not installed */
#include "sources/msgsrc.h"            /* lib/: sources' reductions, likewise */
#include "twintorus/analyze.h"
#include "twintorus/sim.h"
#include "twintorus/traffic.h"
#include "twintorus/config.h"
#include "twintorus/model.h"
#include "twintorus/infer.h"
#include "twintorus/record.h"
#include "twintorus/topo.h"

#define TTSIM_EXIT_OK       0
#define TTSIM_EXIT_DEADLOCK 1
#define TTSIM_EXIT_USAGE    2

/*
 * sim/opt.c: the option layer, getopt_long under one table per option
 * group.  A group is a table of long options (ending with a zeroed entry;
 * .val is the option's id) and the function that takes them; a command
 * lists the groups it takes.  Positional arguments go to the first group
 * with args set, as OPT_ARG.
 */
enum {
	OPT_ARG = 1,            /* a positional argument */
	OPT_HELP = 'h',         /* -h, --help: every command */
	OPT_OUT = 'o',          /* -o FILE and the long name a command gives it */
	/* network (netopts_flags) */
	OPT_DIMS = 256, OPT_PORTS, OPT_DEADLOCK, OPT_PLAIN, OPT_TOPOLOGY,
	OPT_TYPE1_VC, OPT_TIES, OPT_RING_VC,
	/* output (outopts_json, outopts_json_csv) */
	OPT_JSON, OPT_CSV,
	/* model (simopts_model_flags) */
	OPT_VCS, OPT_BUFFER_FLITS, OPT_PACKET_FLITS, OPT_ROUTER_LATENCY,
	OPT_LINK_LATENCY, OPT_WATCHDOG,
	/* measurement window (simopts_window_flags) */
	OPT_WARMUP, OPT_MEASURE, OPT_DRAIN, OPT_WARMUP_MAX,
	/* traffic (simopts_traffic_flags) */
	OPT_TRAFFIC, OPT_LOAD, OPT_SEED, OPT_SEEDS, OPT_HOT, OPT_HOT_FRACTION,
	OPT_FLOW, OPT_UNIFORM_SELF,
	/* link (linkopts_flags) */
	OPT_LINK_GBPS, OPT_FLIT_BYTES,
	/* the hardware model (modelopts_flags) */
	OPT_MODEL, OPT_ROUTER_NS, OPT_LINK_NS, OPT_SEND_NS, OPT_RECV_NS,
	OPT_HOST_NS,
	OPT_VC_BYTES,
	OPT_SHAPE_GBPS,
	OPT_BURST_BYTES,
	/* recording (recordopts_flags) */
	OPT_RECORD, OPT_CLOCK_SKEW,
	/* dependency inference (inferopts_flags) */
	OPT_BURST_GAP, OPT_PAUSE, OPT_WINDOW, OPT_TURNAROUND, OPT_ACK_TURN,
	OPT_RECORDED_MODEL,
	/* parallel points (jobs_flags) */
	OPT_JOBS,
	/* progress on stderr (progress_flags) */
	OPT_PROGRESS, OPT_NO_PROGRESS,
	/* a SimGrid TI trace's compute rate (tiopts_flags) */
	OPT_TI_FLOPS,
	OPT_OWN = 512           /* a command's own options from here */
};

/*
 * One option of a group, and its --help entry beside it: the long name,
 * whether it takes a value, its id (what the group's take function is
 * given), the value's name in --help (NULL without a value), what it does,
 * and its default when that is a number the code holds as a constant
 * (printed "(default N)" from the same constant the code uses, so that
 * --help cannot say another).  OPT_TITLE starts a heading of --help; a
 * table ends with OPT_END.
 */
typedef struct optdef {
	const char *name;       /* without "--"; NULL for a title or the end */
	int has_arg;            /* no_argument or required_argument */
	int id;                 /* OPT_* */
	const char *arg;        /* "N", "FILE"; NULL for no_argument */
	const char *help;       /* the title, for a title; NULL at the end */
	int has_def;            /* def is the default */
	double def;
} optdef;

#define OPT_FLAG(name, id, help)  {name, no_argument, id, NULL, help, 0, 0}
/* A constant's value as text, for a help that names it beside others */
#define OPT_STR_(x) #x
#define OPT_STR(x) OPT_STR_(x)
#define OPT_VAL(name, id, arg, help) \
	{name, required_argument, id, arg, help, 0, 0}
#define OPT_VALDEF(name, id, arg, help, def) \
	{name, required_argument, id, arg, help, 1, (double)(def)}
#define OPT_TITLE(text)           {NULL, 0, 0, NULL, text, 0, 0}
#define OPT_END                   {NULL, 0, 0, NULL, NULL, 0, 0}

/* One option as a group's take function gets it. */
struct optval {
	const char *cmd;        /* "run", "trace synth": for messages */
	const char *flag;       /* "--load" (or the argument, for OPT_ARG) */
	const char *value;      /* NULL for a flag without a value */
	int id;
};

typedef struct opt_group {
	const optdef *opts;
	int args;               /* takes the positional arguments */
	/* 0, or -1 after a message */
	int (*take)(void *state, const struct optval *v);
	void *state;
} opt_group;

#define OPT_NGROUPS(g) (sizeof(g) / sizeof((g)[0]))

enum { OPT_PARSED = 0, OPT_HELP_SHOWN = 1 };
/* Parse argv (argv[0] is the command) into the groups: OPT_PARSED,
 * OPT_HELP_SHOWN after printing usage to stdout, or -1 after a message. */
int opt_parse(const char *cmd, void (*usage)(FILE *), const opt_group *groups,
    size_t ngroups, int argc, char **argv);
/* --help: usage (the synopsis, what the command does, its exit status),
 * then every option of the groups under their titles, each once, as
 * opt_parse() takes them (a name a group before has declared is another
 * group's). */
void opt_usage(FILE *f, void (*usage)(FILE *), const opt_group *groups,
    size_t ngroups);
/* Values: each 0, or -1 after "ttsim CMD: FLAG: 'V' is not ...". */
int opt_u64(const char *cmd, const char *flag, const char *v, uint64_t lo,
    uint64_t hi, uint64_t *out);
int opt_int(const char *cmd, const char *flag, const char *v, int lo, int hi,
    int *out);
/* A finite number in [lo, hi]; what says what was expected. */
int opt_real(const char *cmd, const char *flag, const char *v, double lo,
    double hi, const char *what, double *out);
int parse_load(const char *cmd, const char *flag, const char *v, double *out);

/* The network a subcommand works on: a YAML file, then flags over it. */
typedef struct netopts {
	const char *file;
	tt_config cfg;
	tt_netspec spec;
	int ports_all;        /* --ports all */
	const char *dims_flag, *ports_flag, *deadlock_flag;
	const char *topology_flag;  /* --topology SPEC */
	int plain_flag;
	int t1_vc, ties, ring_vc;   /* --type1-vc, --ties, --ring-vc */
	int given;            /* a file or a network flag was given */
} netopts;

/* --json, and --csv where a command prints CSV on standard output */
typedef struct outopts {
	int json, csv;
} outopts;

/* --link-gbps and --flit-bytes, over the YAML network: section */
typedef struct linkopts {
	double gbps;          /* 0: the file's or the default */
	int flit_bytes;       /* 0: likewise */
} linkopts;

/* sim/netopts.c */
extern const optdef netopts_flags[];     /* FILE.yaml --dims ... */
/* --type1-vc, --ties, --ring-vc: the model's rules (netopts_take) */
extern const optdef netopts_rule_flags[];
extern const optdef outopts_json[];      /* --json */
extern const optdef outopts_json_csv[];  /* --json --csv */
extern const optdef linkopts_flags[];    /* --link-gbps --flit-bytes */
void netopts_init(netopts *o);
int netopts_take(void *o, const struct optval *v);
/* The YAML file argument, and whether an argument names one (.yaml, .yml)
 * for commands that also take trace files. */
int netopts_file(netopts *o, const char *path, const char *cmd);
int netopts_is_yaml(const char *path);
int outopts_take(void *o, const struct optval *v);
int linkopts_take(void *o, const struct optval *v);
/* The link of the flags over the file's network: section. */
void linkopts_resolve(const linkopts *l, const tt_config *cfg,
    tt_netparams *out);
/* Load the file, apply the flags, check what results.  -1 after printing
 * every error. */
int netopts_finish(netopts *o, const char *cmd);
/* The configurations to run: one, or all of them for --ports all. */
int netopts_specs(const netopts *o, tt_netspec **specs, size_t *count);
/* --flow SRC:DST on net, each a PE id or x,y,z/card; -1 after a message
 * naming cmd. */
int flow_parse(const tt_net *net, const char *text, uint32_t *src,
    uint32_t *dst, const char *cmd);
/* A topology such as 4x4x4 or 16x8:plain over base; -1 after a message
 * naming cmd and flag. */
int netlist_split(char *s, char **out, int max);
int topo_parse(const char *item, const tt_netspec *base, tt_netspec *out,
    const char *cmd, const char *flag);
/*
 * A network's name, in one format everywhere: the kind and the dimensions,
 * "3DT 4x4x4" (twin) or "2D 16x8" (plain), is its title; its name adds the
 * port configuration (twin) and the deadlock scheme: "3DT 4x4x4 D vc",
 * "2D 16x8 vc", one curve of a sweep or one network of a replay.
 */
const char *net_title(const tt_net *net, char *buf, size_t bufsz);
const char *net_name(const tt_net *net, char *buf, size_t bufsz);
/* "X+ Y+ X-" for a card's external ports */
const char *net_card_ports(const tt_net *net, int side, char *buf, size_t bufsz);
void json_card_ports(FILE *f, const tt_net *net, int side);
void json_dims(FILE *f, const tt_net *net);
void json_net_fields(FILE *f, const tt_net *net, const char *scheme_key);
/* "type1_vc", "ties", "ring_vc": the model's rules of a simulated network */
void json_net_rules(FILE *f, const tt_net *net);

/* sim/mpi.c: under mpirun or srun (and built with Open MPI) the ranks
 * share each simulation; rank 0 alone prints.  ttsim_comm() is NULL for a
 * serial run. */
void ttsim_mpi_start(int *argc, char ***argv);
void ttsim_mpi_finish(void);
const tt_sim_comm *ttsim_comm(void);
/* v combined by op over the ranks, on every rank (nothing serially): for
 * what the ranks must agree on outside a simulator, e.g. a failure. */
void ttsim_allreduce(uint64_t *v, size_t n, enum tt_sim_op op);

/* sim/progress.c: a one-line progress report on a terminal; none when
 * stderr is not a terminal, unless --progress asks for whole lines */
extern const optdef progress_flags[];    /* --progress --no-progress */
int progress_take(void *unused, const struct optval *v);
void progress_off(void);        /* none at all (a --jobs worker) */
void progress_show(void *label, double done);
/* Erase the line (before printing a result) but keep the clock. */
void progress_hide(void);
void progress_clear(void);

/*
 * sim/jobs.c: --jobs N, independent tasks in N worker processes (in this
 * process for N = 1).  A task writes its result to out and returns 0, or
 * -1 after a message on stderr; it must not write to stdout.
 */
typedef struct jobs jobs;
typedef int (*jobs_task)(void *ctx, int id, FILE *out);
extern const optdef jobs_flags[];        /* --jobs */
int jobs_take(void *njobs, const struct optval *v);     /* int */
int jobs_default(void);         /* the cores online */
/* Up to n workers; SIGINT, SIGTERM and SIGHUP kill them with us. */
int jobs_open(jobs **j, int n, const char *cmd);
int jobs_idle(const jobs *j);   /* tasks that can start now */
/* Start task id (when jobs_idle() > 0); -1 after a message. */
int jobs_start(jobs *j, jobs_task fn, void *ctx, int id);
/*
 * A finished task, the first to finish: its id and its output (free it).
 * 0; -1 when it failed (after a message) or none was running.
 */
int jobs_wait(jobs *j, int *id, char **buf, size_t *len);
/* Tasks started and not yet handed over by jobs_wait().  After a failure,
 * waiting for them tells no other failure. */
int jobs_busy(const jobs *j);
/* Kill the workers still running, reap them, free j. */
void jobs_close(jobs *j);
/* Under MPI, collective: every rank's n bytes at mine to every rank,
 * *all holding rank 0's, then rank 1's, ..., (*counts)[r] bytes each
 * (free both).  0, or -1 on every rank after a message. */
int jobs_allgather(const char *mine, size_t n, char **all,
    uint64_t **counts);

/*
 * sim/jobs.c: the task runner of sweep and replay.  A command describes
 * its tasks (a point, a network): the next one ready, how to run one and
 * encode its result, how to take a result back; the runner runs them in
 * this process (--jobs 1), on --jobs N worker processes, or under MPI
 * over the ranks, and hands every result to take() whatever order they
 * finish in (the command keeps them at their id and prints in its order).
 */
enum {
	RUNNER_HERE = 0,        /* take(): the task ran in this process */
	RUNNER_ELSEWHERE = 1,   /* on another rank: its messages were not
	                         * printed here */
};
typedef struct runner {
	const char *cmd;        /* "sweep": for messages */
	const char *what;       /* "a point": for messages */
	const char *see_why;    /* "run it alone": how to see a rank's error */
	void *ctx;
	int njobs;              /* --jobs N (not under MPI) */
	/* The next task ready to start, marked started: 1 and its id, or 0
	 * when none is now. */
	int (*next)(void *ctx, int *id);
	/* Run task id, its encoded result to out (never stdout): 0, or -1
	 * after a message. */
	jobs_task run;
	/* Task id's result, as run() wrote it: 0, or -1 after a message. */
	int (*take)(void *ctx, int id, const char *buf, size_t len, int where);
	/* Optional: run task id here and keep its result as it is, without
	 * encoding it, when tasks run one at a time in this process (--jobs
	 * 1, and under MPI each task shared by the ranks).  0, or -1 after a
	 * message. */
	int (*here)(void *ctx, int id);
	/* Optional: after each result (and before the first): print what is
	 * in order; 1 once every task is done and printed. */
	int (*after)(void *ctx);
	/* Results printed in order as they come: after a failure the tasks
	 * still running are awaited and taken, so that those before it are
	 * printed (after() once more); else they are killed. */
	int ordered;
	/* Set by the runner, when not NULL: *whole to 1 while a task runs on
	 * one MPI rank alone (not split over the ranks); *alone to 1 while
	 * tasks run one at a time in this process. */
	int *whole, *alone;
} runner;
/* Every task: 0, or -1 after a message (a task failed, or the runner). */
int runner_run(runner *rn);

/*
 * sim/threads.c: a run's switches split over threads of this process, the
 * engine's partition over shared memory.  fn runs once in each of n
 * threads (the caller's is rank 0) with its own args[i] and the
 * transport; collective, as under MPI.  -1 if any returned nonzero.
 */
#define TTSIM_THREADS_MAX 64
typedef int (*ttsim_thread_fn)(void *arg, const tt_sim_comm *comm);
int ttsim_threads_run(int n, ttsim_thread_fn fn, void *const *args,
    const char *cmd);
int ttsim_threads_default(void);        /* the cores this process may use */
/*
 * The threads a run on net takes: `asked` if more than 0 (-1 after a
 * message if the network has fewer nodes), TTSIM_THREADS_AUTO for the
 * default (up to TTSIM_THREADS_DEFAULT of the cores this process may use,
 * from TTSIM_THREADS_MIN_SWITCHES switches; one below), 1 for 0.
 */
#define TTSIM_THREADS_AUTO (-1)
#define TTSIM_THREADS_DEFAULT 2
#define TTSIM_THREADS_DEFAULT_S "2"
#define TTSIM_THREADS_MIN_SWITCHES 2048
#define TTSIM_THREADS_MIN_SWITCHES_S "2048"
int ttsim_threads_for(const tt_net *net, int asked, const char *cmd);

/* sim/simpoint.c: what run and sweep share */
#define SIMOPTS_MAX_LIST 64
typedef struct simopts {
	tt_simparams p;
	enum tt_pattern pattern;
	double load;
	uint64_t seed;
	int seeds;
	double hot_fraction;
	const char *hot[SIMOPTS_MAX_LIST];
	size_t nhot;
	const char *flow[SIMOPTS_MAX_LIST];
	size_t nflows;
	int pattern_set, packet_set, buffer_set;
	int window_set;         /* --warmup, --measure or --drain given */
	int warmup_max_set;
	int uniform_self;       /* --uniform-self */
	/* under MPI: the point on this rank alone, not split over the
	 * ranks (a sweep with a point for every rank) */
	int whole;
	/* ttsim run --threads: the run's switches split over this many
	 * threads (0 or 1: none; TTSIM_THREADS_AUTO: ttsim_threads_for()) */
	int threads;
	const char *cmd;        /* "run" or "sweep", for messages */
	/* ttsim run --record: NULL, or what to record and the network's
	 * file (host names, link speed) */
	const struct recordopts *record;
	const tt_config *record_cfg;
	/* the hardware model (sim/netopts.c): --model FILE and the flags
	 * --router-ns ... --vc-bytes, as model keys */
	const char *model_file;
	tt_model model_flags;
	int router_set, link_set;       /* --router-latency, --link-latency */
	/* resolved (simopts_resolve): every key, latencies and overheads in
	 * ns as run (the cycles' ns where no layer gave them), vc_bytes 0
	 * where buffer_flits rules; and in cycles */
	tt_model model;
	tt_model_cycles mc;
} simopts;

/* The warm-up cap of a run whose window is not given (--warmup-max). */
#define SIMOPTS_WARMUP_MAX 100000
/* The traffic flags' defaults (simopts_init()). */
#define SIMOPTS_LOAD_DEFAULT            0.1
#define SIMOPTS_SEED_DEFAULT            1
#define SIMOPTS_HOT_FRACTION_DEFAULT    0.1

#define SIMPOINT_MAX_CHANS 64
/* One load point, averaged over its seeds. */
typedef struct simpoint {
	tt_net net;
	tt_simparams p;
	tt_model model;         /* the hardware model it ran */
	tt_model_cycles mc;
	enum tt_pattern pattern;
	int uniform_self;
	double load;
	uint64_t seed;
	int seeds;
	double offered, accepted, accepted_ci, throughput_packets;
	double net_lat, net_lat_ci, e2e_lat, e2e_lat_ci, p99_e2e;
	double avg_hops, internal_util, cycles, delivered;
	double undelivered;     /* packets of the window not delivered */
	double traversals, total_cycles, wall;
	int threads;            /* it ran on (simopts.threads) */
	int measured_runs;      /* seeds in which a packet of the window arrived */
	int saturated, deadlock;
	int converged;          /* every seed's window passed the steady-state
	                         * test (tt_simresult.converged) */
	int throughput_converged;   /* every seed's accepted load was steady */
	double warmup_used;     /* the longest warm-up any seed ran */
	double warmup_least;    /* the shortest */
	double accepted_drift, latency_drift;   /* the largest of the seeds' */
	uint64_t deadlock_seed, deadlock_cycle;
	char chan[SIMPOINT_MAX_CHANS][96];
	size_t nchan;
} simpoint;

extern const optdef simopts_model_flags[];    /* --vcs ... --watchdog */
extern const optdef simopts_window_flags[];   /* --warmup --measure --drain */
extern const optdef simopts_traffic_flags[];  /* --traffic --load ... */
void simopts_init(simopts *o);
int simopts_take(void *o, const struct optval *v);
void simopts_apply_config(simopts *o, const tt_config *cfg);
/*
 * simopts_apply_config() and then the hardware model into o->p, one
 * function for run, sweep, app and replay: flags (link may be NULL) >
 * --model FILE > the file's model: > its network: and credits: >
 * defaults.  0, or -1 after a message (exit status 2).
 */
int simopts_resolve(simopts *o, const tt_config *cfg, const linkopts *link);
/* o's resolved model at another link rate, all else equal in ns (a
 * --compare item's @SPEED): p, m and c for it.  On shaped links SPEED is
 * the buckets' rate while it is below the line's, and the links' own
 * unshaped rate otherwise.  0, or -1 with err. */
int simopts_model_at(const simopts *o, double gbps, tt_simparams *p,
    tt_model *m, tt_model_cycles *c, char *err, size_t errsz);
/* ", \"model\": {...}": the resolved parameters and their cycles. */
void model_json(FILE *f, const tt_model *m, const tt_model_cycles *c);
/* --model and --router-ns ... --vc-bytes (state: a simopts) */
extern const optdef modelopts_flags[];
int modelopts_take(void *so, const struct optval *v);
int simpoint_run(const simopts *o, const tt_netspec *spec, double load,
    simpoint *pt, void (*progress)(void *, double), void *pctx,
    double done0, double span);
/* o's traffic on net at load and seed (--hot, --flow resolved); *hold
 * keeps what tr points to: free it after tt_traffic_free(). */
int simopts_traffic(const simopts *o, const tt_net *net, double load,
    uint64_t seed, tt_traffic *tr, void **hold);
/* Everything simpoint_run() would refuse, checked without running. */
int simpoint_check(const simopts *o, const tt_netspec *spec, double load);
/* One warning (rank 0) when load, given with flag, is above 1 flit per PE
 * per cycle: more than a PE's injection port takes. */
void simpoint_warn_load(const simopts *o, const char *flag, double load);
void simpoint_free(simpoint *pt);
void simpoint_json(FILE *f, const simpoint *pt, const char *schema);
void simpoint_csv_header(FILE *f);
void simpoint_csv(FILE *f, const simpoint *pt);
void simpoint_table_header(FILE *f);
void simpoint_table_row(FILE *f, const simpoint *pt);

/*
 * sim/run_record.c: --record DIR and --clock-skew NS (run and app): what
 * ttd would have captured, one pcap per node (twintorus/record.h).
 */
typedef struct recordopts {
	const char *dir;        /* NULL: nothing recorded */
	uint64_t skew_ns;       /* node clock offsets stay below this */
	int skew_set;
} recordopts;
extern const optdef recordopts_flags[];  /* --record --clock-skew */
void recordopts_init(recordopts *o);
int recordopts_take(void *o, const struct optval *v);
/* --clock-skew without --record: -1 after a message naming cmd. */
int recordopts_check(const recordopts *o, const char *cmd);
/* tt_record_dir_ready() on every rank before any creates its files,
 * failing together: -1 after a message. */
int record_dir_ready(const char *dir, const char *cmd);
struct run_record {
	tt_record *rec;
	tt_record_src rs;
	uint64_t records;
};
/* The recording wrapped around src for one run of o on sim (nothing when
 * o records nothing); its close.  Each -1 after a message. */
int run_record_start(struct run_record *rr, const simopts *o,
    const tt_net *net, tt_sim *sim, tt_source *src);
int run_record_finish(struct run_record *rr, tt_sim *sim, const char *cmd);

/* sim/cmd_infer.c: --burst-gap, --pause, --window (trace infer and
 * replay --causal) */
extern const optdef inferopts_flags[];
int inferopts_take(void *ip, const struct optval *v);   /* tt_infer_params */
/* The trace read through once (every damaged record reported), and
 * whether it has delivery copies (ip->no_copies): -1 after a message
 * naming cmd ("trace infer"). */
int infer_check_trace(const char *cmd, const char *const *paths, size_t np,
    const tt_net *net, const tt_addrmap *map, tt_infer_params *ip);

/* sim/cmd_export.c: --ti-flops RATE, a TI trace's compute rate (replay,
 * trace stat, trace export; state: a double, TT_TI_FLOPS_DEFAULT unless
 * given) */
extern const optdef tiopts_flags[];
int tiopts_take(void *flops, const struct optval *v);
/* --ti-flops given (flops > 0) without a TI trace (mpi_path, the
 * MPI-level trace or NULL): -1 after a message naming cmd. */
int tiopts_check(const char *cmd, double flops, const char *mpi_path);

/* sim/cmd_plot.c */
int plot_csv(const char *csv, const char *out, const char *title);
/* 0 if gnuplot can be run and out can be written; -1 after a message */
int plot_ready(const char *cmd, const char *out);

/* sim/cmd_plot.c: latency CDFs, one per column 2.. of a whitespace data file
 * (column 1 the latency), titled by names */
int plot_cdf(const char *data, const char *const *names, int nnames,
    const char *xlabel, const char *out, const char *title);

/* sim/cmd_*.c */
int cmd_analyze(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_trace_synth(int argc, char **argv);   /* sim/cmd_synth.c */
int cmd_trace_stat(int argc, char **argv);    /* sim/cmd_stat.c */
int cmd_replay(int argc, char **argv);
int cmd_app(int argc, char **argv);            /* sim/cmd_app.c */
int cmd_trace_infer(int argc, char **argv);    /* sim/cmd_infer.c */
int cmd_trace_calibrate(int argc, char **argv); /* sim/cmd_calibrate.c */
int cmd_trace_export(int argc, char **argv);   /* sim/cmd_export.c */

#endif
