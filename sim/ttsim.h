/*
 * ttsim: private interfaces between the subcommands.
 *
 * Exit codes, for every subcommand:
 *   0  success (verify: deadlock-free)
 *   1  verify found a cycle (deadlock possible)
 *   2  bad usage or bad input (flags, config file)
 */
#ifndef TTSIM_H
#define TTSIM_H

#include <stdint.h>
#include <stdio.h>

#include "sim_part.h"           /* lib/: the partition, not installed */
#include "twintorus/analyze.h"
#include "twintorus/sim.h"
#include "twintorus/traffic.h"
#include "twintorus/config.h"
#include "twintorus/topo.h"

#define TTSIM_EXIT_OK       0
#define TTSIM_EXIT_DEADLOCK 1
#define TTSIM_EXIT_USAGE    2

/* The network a subcommand works on: a YAML file, then flags over it. */
typedef struct netopts {
	const char *file;
	tt_config cfg;
	tt_netspec spec;
	int json;
	int ports_all;        /* --ports all */
	const char *dims_flag, *ports_flag, *deadlock_flag;
	int plain_flag;
} netopts;

/* sim/netopts.c */
/* argv[*i] is --name or --name=value */
int flag_is(const char *arg, const char *name);
/* The value of the flag at argv[*i] (after '=' or the next argument,
 * advancing *i), or NULL after a message. */
const char *flag_value(int argc, char **argv, int *i, const char *cmd);
void netopts_init(netopts *o);
/* If argv[*i] is a common network flag, take it (and its value) and return
 * 1; 0 if it is not one; -1 after printing an error. */
int netopts_take(netopts *o, int argc, char **argv, int *i, const char *cmd);
/* Load the file, apply the flags, check what results.  -1 after printing
 * every error. */
int netopts_finish(netopts *o, const char *cmd);
/* The configurations to run: one, or all of them for --ports all. */
int netopts_specs(const netopts *o, tt_netspec **specs, size_t *count);
/* A topology such as 4x4x4 or 16x8:plain over base; -1 after a message
 * naming cmd and flag. */
int topo_parse(const char *item, const tt_netspec *base, tt_netspec *out,
    const char *cmd, const char *flag);
/* "3DT torus 4x4x4", "plain 2D torus 16x8" */
const char *net_title(const tt_net *net, char *buf, size_t bufsz);
/* "X+ Y+ X-" for a card's external ports */
const char *net_card_ports(const tt_net *net, int side, char *buf, size_t bufsz);
void json_card_ports(FILE *f, const tt_net *net, int side);
void json_dims(FILE *f, const tt_net *net);
void json_net_fields(FILE *f, const tt_net *net, const char *scheme_key);

/* sim/mpi.c: under mpirun or srun (and built with Open MPI) the ranks
 * share each simulation; rank 0 alone prints.  ttsim_comm() is NULL for a
 * serial run. */
void ttsim_mpi_start(int *argc, char ***argv);
void ttsim_mpi_finish(void);
const tt_sim_comm *ttsim_comm(void);

/* sim/progress.c: a one-line progress report on a terminal, none when
 * stderr is not a terminal */
void progress_show(void *label, double done);
/* Erase the line (before printing a result) but keep the clock. */
void progress_hide(void);
void progress_clear(void);

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
	int csv;
	int pattern_set, packet_set, buffer_set;
	int model_only;         /* take only the model's flags (replay) */
	const char *cmd;        /* "run" or "sweep", for messages */
} simopts;

#define SIMPOINT_MAX_CHANS 64
/* One load point, averaged over its seeds. */
typedef struct simpoint {
	tt_net net;
	tt_simparams p;
	enum tt_pattern pattern;
	double load;
	uint64_t seed;
	int seeds;
	double offered, accepted, accepted_ci, throughput_packets;
	double net_lat, net_lat_ci, e2e_lat, e2e_lat_ci, p99_e2e;
	double avg_hops, internal_util, cycles, delivered;
	double undelivered;     /* packets of the window not delivered */
	double traversals, total_cycles, wall;
	int measured_runs;      /* seeds in which a packet of the window arrived */
	int saturated, deadlock;
	uint64_t deadlock_seed, deadlock_cycle;
	char chan[SIMPOINT_MAX_CHANS][96];
	size_t nchan;
} simpoint;

void simopts_init(simopts *o);
int simopts_take(simopts *o, int argc, char **argv, int *i, const char *cmd);
void simopts_apply_config(simopts *o, const tt_config *cfg);
int parse_load(const char *cmd, const char *flag, const char *v, double *out);
/* A whole number in [lo, hi], or -1 after saying what is wrong. */
int parse_u64(const char *cmd, const char *flag, const char *v, uint64_t lo,
    uint64_t hi, uint64_t *out);
int parse_int(const char *cmd, const char *flag, const char *v, int lo, int hi,
    int *out);
int simpoint_run(const simopts *o, const tt_netspec *spec, double load,
    simpoint *pt, void (*progress)(void *, double), void *pctx,
    double done0, double span);
/* o's traffic on net at load and seed (--hot, --flow resolved); *hold
 * keeps what tr points to: free it after tt_traffic_free(). */
int simopts_traffic(const simopts *o, const tt_net *net, double load,
    uint64_t seed, tt_traffic *tr, void **hold);
/* Everything simpoint_run() would refuse, checked without running. */
int simpoint_check(const simopts *o, const tt_netspec *spec, double load);
void simpoint_free(simpoint *pt);
const char *simpoint_series(const simpoint *pt, char *buf, size_t bufsz);
void simpoint_json(FILE *f, const simpoint *pt);
void simpoint_csv_header(FILE *f);
void simpoint_csv(FILE *f, const simpoint *pt);
void simpoint_table_header(FILE *f);
void simpoint_table_row(FILE *f, const simpoint *pt);

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

#endif
