/*
 * ttsim replay's private header: the command's state, shared by
 * cmd_replay.c (the flags, open loop, the networks and their runs),
 * replay_out.c (the table, JSON, CSV and plot) and replay_causal.c
 * (--causal: twintorus/causal.h is the model, this the command's side of
 * it).
 */
#ifndef TTSIM_REPLAY_H
#define TTSIM_REPLAY_H

#include "twintorus/causal.h"
#include "twintorus/infer.h"
#include "twintorus/mpitrace.h"
#include "twintorus/outfile.h"
#include "twintorus/placement.h"
#include "twintorus/replay.h"
#include "twintorus/trace.h"
#include "ttsim.h"

#define REPLAY_MAX_NETS 16

/* --causal, --deps FILE and the inference's flags */
struct causal_opts {
	int on;
	const char *deps;       /* NULL: infer from the trace as it goes */
	const char *placement;  /* --placement: NULL, linear */
	tt_infer_params ip;
	const char *recorded_model;     /* --recorded-model FILE */
	int turnaround_given;           /* --turnaround NS */
};

/* An MPI-level trace's hosts fitted on its recorded hardware
 * (--recorded-model; sim/replay_mpi.c). */
struct host_fit {
	int done;
	double host_ns;         /* the hosts' turnaround found */
	double span_s;          /* the trace's recorded message span */
	double makespan_s;      /* its replay on the recorded model, at it */
	double bare_s;          /* the same with host_ns 0 */
	double floor_ns;        /* the recorded model's own host_ns, 0 if none */
	int floored;            /* the fit fell below it: host_ns is it */
	int replays;
};

/* The dependency stream and the source of one network's causal replay;
 * res and ist stay after causal_free(). */
struct causal_run {
	tt_causal *c;
	tt_infer *inf;
	tt_deps_reader *dr;
	tt_mpi_deps *md;        /* an MPI-level trace's */
	tt_placement *pl;
	tt_infer_stats ist;     /* of the inference, when it ran */
	tt_causal_result res;
};

/* One network of the replay and what it gave. */
struct netrun {
	char name[96];
	tt_netspec spec;
	tt_net net;
	tt_simresult res;
	tt_replay_result rr;
	uint64_t makespan;      /* cycles: open loop the run's, causal from
	                         * the first send to the last delivery */
	uint64_t *link;         /* copy of the per-output flits */
	int nports;
	double wall;
	struct causal_run cr;   /* --causal */
	/* its model: the command's, or at the link rate of --compare
	 * ITEM@SPEED (gbps > 0), all else equal in ns */
	double gbps;
	tt_simparams p;
	tt_replay_params rpp;
	tt_model model;
	tt_model_cycles mc;
	double cycle_ns;
};

/* What the callbacks of a run see. */
struct replay_job {
	const char *csv_path;
	tt_outfile *csv_out;
	FILE *csv;
	const char *name;       /* the network being run */
	double cycle_ns;
	uint64_t total;         /* messages in the trace */
	tt_replay *rp;
	struct causal_run *cr;  /* --causal */
	int index, count;
	char label[32];
};

/* What ttsim replay is told, and what it builds. */
struct replay {
	netopts net;
	simopts sim;            /* the model's flags */
	simopts sim0;           /* the same before simopts_resolve() */
	struct host_fit fit;
	outopts out;
	linkopts link;
	struct causal_opts causal;
	tt_replay_params rpp;
	const char **paths;
	size_t npaths;
	const char *compare, *csv_path, *plot_path;
	const char *open_loop_flag;     /* the first of --speed, --warmup,
	                                 * --lookahead given */
	int top;
	int jobs;               /* --jobs N: networks at a time */
	int no_copies;          /* torus frames without delivery copies */
	double cycle_ns;
	struct netrun runs[REPLAY_MAX_NETS];
	int nrun;
	tt_addrmap map;
	tt_trace_in *in;        /* read once first, for its totals */
	uint64_t total;         /* its messages */
	/* an MPI-level trace (twintorus/mpitrace.h), read whole: it replays
	 * causally with the dependencies of its calls */
	const char *mpi_path;   /* NULL: a packet trace */
	tt_mpi_trace mpi;
	tt_mpi_totals mtot;
	double ti_flops;        /* --ti-flops: a TI trace's compute rate (0:
	                         * not given, SimGrid's default) */
	struct replay_job job;
};

/* sim/cmd_replay.c */
/* A replay's packet size, flit and link rate from the engine's
 * parameters and the model they came from; the cycle in ns. */
double replay_rpp_set(tt_replay_params *rpp, const tt_simparams *p,
    const tt_model *m);
/* The run's link counts copied into rn: -1 after a message. */
int replay_links(struct netrun *rn, tt_sim *sim);
void replay_deadlock(const struct netrun *rn, const tt_simparams *p);

/* sim/replay_out.c: the outputs */
/* open loop's --csv row of a message delivered (tt_replay_on_message) */
void replay_on_message(void *ctx, const tt_msgdone *d);
/* The --csv file opened and its header written, and r->job set up for the
 * runs: -1 after a message. */
int replay_csv_open(struct replay *r);
/* --jobs N: each network's --csv rows (csv[k]) into the --csv file in the
 * networks' order: -1 on an error (errno). */
int replay_csv_copy(struct replay *r, FILE *const *csv);
/* The --csv file closed after the runs (discarded after a failure); the
 * exit status, rc or a failure to close. */
int replay_csv_close(struct replay *r, int rc);
/* The table or --json on stdout, then --plot: -1 after a message. */
int replay_report(const struct replay *r);

/* sim/replay_causal.c */
extern const optdef causal_flags[];      /* --causal --deps */
void causal_opts_init(struct causal_opts *co);
int causal_take(void *co, const struct optval *v);
/* Flags that do not go with --causal (or --deps without it), or with an
 * MPI-level trace: -1 after a message. */
int causal_conflicts(const struct replay *r);
/* Read a --deps file through once, so that a damaged line is reported
 * before anything runs.  -1 after a message. */
int causal_check(const struct causal_opts *co);
/* Replay the trace causally through network k: exit status so far. */
int causal_replay_one(struct replay *r, int k);
/* The same through rn, which need not be one of r's networks; quiet: no
 * --csv lines, no warnings. */
int causal_replay_net(struct replay *r, struct netrun *rn, int k, int quiet);
/* The inference's flags for replay: --recorded-model's file kept too. */
int causal_infer_take(void *co, const struct optval *v);
void causal_free(struct causal_run *cr);
/* The "mode" and "causal" members of replay's JSON, after a comma. */
void causal_json(FILE *f, const struct replay *r);
/* The table's line on the causal replay. */
void causal_table(FILE *f, const struct replay *r);
/* The CSV's last two columns: "file,record" or "seq,predecessors". */
const char *causal_csv_columns(const struct causal_opts *co);
/* --burst-gap, --ack-turn, --pause, --window, --turnaround or
 * --recorded-model given */
int causal_infer_flags_given(const struct causal_opts *co);

/* sim/replay_mpi.c: an MPI-level trace */
/* The MPI-level trace among paths, or NULL. */
const char *mpi_path(const char **paths, size_t n);
/* Flags and traces that do not go with it: -1 after a message. */
int mpi_conflicts(const struct replay *r);
/* Read it and convert it once (r->mpi, r->mtot, r->total): -1 after a
 * message. */
int mpi_scan(struct replay *r);
/* --recorded-model with an MPI-level trace: the hosts' turnaround under
 * the program fitted (r->fit), so that the trace replayed on the recorded
 * hardware takes its recorded message span.  0 (nothing to do, or done),
 * or -1 after a message. */
int mpi_fit_host(struct replay *r);
/* The "trace" member of replay's JSON; the table's line on the trace. */
void mpi_json_trace(FILE *f, const struct replay *r);
void mpi_table_trace(FILE *f, const struct replay *r);

#endif
