/*
 * ttsim trace export --ti DIR: a recording's messages, with the
 * dependencies trace infer finds in it (or a dependency file), as a SimGrid
 * time-independent trace that smpirun -replay runs (twintorus/ti.h).
 * Also --ti-flops, the compute rate of TI traces, for every command that
 * reads or writes them.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "twintorus/deps.h"
#include "twintorus/infer.h"
#include "twintorus/json.h"
#include "twintorus/mpitrace.h"
#include "twintorus/outfile.h"
#include "twintorus/ti.h"
#include "ttsim.h"

const optdef tiopts_flags[] = {
	OPT_TITLE("SimGrid time-independent traces:"),
	OPT_VALDEF("ti-flops", OPT_TI_FLOPS, "RATE",
	    "the compute rate of a TI trace, flops per second (SimGrid's "
	    "smpi/host-speed)", TT_TI_FLOPS_DEFAULT),
	OPT_END
};

int
tiopts_take(void *flops, const struct optval *v)
{
	return opt_real(v->cmd, v->flag, v->value, 1e-9, 1e30,
	    "a compute rate in flops per second (SimGrid's smpi/host-speed, "
	    "e.g. 1e9)", flops);
}

int
tiopts_check(const char *cmd, double flops, const char *mpi_path)
{
	if (flops > 0 && (mpi_path == NULL || !tt_ti_is(mpi_path))) {
		fprintf(stderr, "ttsim %s: --ti-flops is the compute rate of a "
		    "SimGrid time-independent trace, and none is given\n", cmd);
		return -1;
	}
	return 0;
}

static void
export_usage(FILE *f)
{
	fprintf(f,
"usage: ttsim trace export --ti DIR TRACE... [FILE.yaml] [network flags]\n"
"                          [--deps FILE] [--ti-flops RATE] [--force]\n"
"                          [inference flags] [--json]\n"
"\n"
"Writes a recording's messages as a SimGrid time-independent trace: DIR/"
TT_TI_INDEX "\n"
"(the index) and DIR/rank-R.txt for each PE R of the network.  Each PE's\n"
"file has, per message it sent, a blocking recv of each message that\n"
"enabled it (trace infer's predecessors), a compute of its gap and an\n"
"isend tagged with its seq; then a recv of each message sent to it that\n"
"enabled nothing, a waitall and finalize.  SimGrid replays it with\n"
"  cd DIR && smpirun -np N -platform PLATFORM.xml -replay " TT_TI_INDEX "\n"
"(N: the PEs; the index names the rank files relative to DIR).\n"
"An MPI-level trace (an OTF2 archive's anchor FILE.otf2, or a TI trace) is\n"
"exported alone, one rank file per rank, its messages and dependencies by\n"
"MPI's matching (its collectives as their point-to-point messages).\n"
"Without FILE.yaml or network flags the network is a 3DT 4x4x4.\n"
"\n"
"Exit status: 0 written, 2 bad usage, a damaged trace or DIR not written.\n");
}

struct export_opts {
	netopts no;
	outopts out;
	const char **paths;
	size_t np;
	const char *dir, *deps;
	int force;
	double flops;
	tt_infer_params ip;
};

enum { OPT_EXPORT_TI = OPT_OWN, OPT_EXPORT_DEPS, OPT_EXPORT_FORCE };

static const optdef export_flags[] = {
	OPT_TITLE("trace export:"),
	OPT_VAL("ti", OPT_EXPORT_TI, "DIR",
	    "the directory to write, whole or not at all (it must not exist, "
	    "or be empty)"),
	OPT_VAL("deps", OPT_EXPORT_DEPS, "FILE",
	    "the dependencies to write (trace infer -o, app --deps-out) "
	    "instead of inferring them from TRACE..."),
	OPT_FLAG("force", OPT_EXPORT_FORCE,
	    "replace DIR if it holds regular files only"),
	OPT_END
};

static int
export_take(void *state, const struct optval *v)
{
	struct export_opts *o = state;

	switch (v->id) {
	case OPT_ARG:
		if (netopts_is_yaml(v->value))
			return netopts_file(&o->no, v->value, v->cmd);
		o->paths[o->np++] = v->value;
		return 0;
	case OPT_EXPORT_TI:
		o->dir = v->value;
		return 0;
	case OPT_EXPORT_DEPS:
		o->deps = v->value;
		return 0;
	}
	o->force = 1;
	return 0;
}

static int
export_parse(struct export_opts *o, int argc, char **argv)
{
	const char *cmd = "trace export";
	const opt_group groups[] = {
		{export_flags, 1, export_take, o},
		{tiopts_flags, 0, tiopts_take, &o->flops},
		{inferopts_flags, 0, inferopts_take, &o->ip},
		{netopts_flags, 0, netopts_take, &o->no},
		{outopts_json, 0, outopts_take, &o->out},
	};
	size_t i;
	int rc;

	netopts_init(&o->no);
	tt_infer_params_default(&o->ip);
	o->flops = TT_TI_FLOPS_DEFAULT;
	if ((o->paths = calloc((size_t)argc, sizeof(*o->paths))) == NULL)
		return -1;
	rc = opt_parse(cmd, export_usage, groups, OPT_NGROUPS(groups), argc,
	    argv);
	if (rc != OPT_PARSED)
		return rc;
	if (o->dir == NULL) {
		fprintf(stderr, "ttsim trace export: give --ti DIR, the "
		    "directory to write (see ttsim trace export --help)\n");
		return -1;
	}
	if ((o->np == 0) == (o->deps == NULL)) {
		fprintf(stderr, "ttsim trace export: give trace files or "
		    "directories, or --deps FILE, not both (see ttsim trace "
		    "export --help)\n");
		return -1;
	}
	for (i = 0; o->np > 1 && i < o->np; i++)
		if (tt_mpi_trace_is(o->paths[i])) {
			fprintf(stderr, "ttsim trace export: %s is an MPI-level "
			    "trace: export it alone\n", o->paths[i]);
			return -1;
		}
	if (netopts_finish(&o->no, cmd) < 0)
		return -1;
	if (o->no.ports_all) {
		fprintf(stderr, "ttsim trace export: --ports all is for analyze "
		    "and sweep; the trace needs one network\n");
		return -1;
	}
	return OPT_PARSED;
}

static void
export_summary(const struct export_opts *o, const tt_ti_export_stats *st)
{
	if (o->out.json) {
		printf("{\"ti\": ");
		tt_json_string(stdout, o->dir);
		printf(", \"ranks\": %" PRIu32 ", \"messages\": %" PRIu64
		    ", \"bytes\": %" PRIu64 ", \"recv_before_send\": %" PRIu64
		    ", \"recv_at_end\": %" PRIu64 ", \"computes\": %" PRIu64
		    ", \"flops\": %.17g, \"ti_flops\": %.17g}\n", st->ranks,
		    st->messages, st->bytes, st->recv_before, st->recv_after,
		    st->computes, st->flops, o->flops);
		return;
	}
	printf("%" PRIu64 " messages (%" PRIu64 " bytes) of %" PRIu32
	    " ranks\n", st->messages, st->bytes, st->ranks);
	printf("  receives       %" PRIu64 " before the send they enable, %"
	    PRIu64 " at the end (they enable nothing)\n", st->recv_before,
	    st->recv_after);
	printf("  compute        %" PRIu64 " actions, %.6g flops (%.6f s at %g "
	    "flops/s)\n", st->computes, st->flops, st->flops / o->flops,
	    o->flops);
	printf("wrote %s/%s\n", o->dir, TT_TI_INDEX);
}

int
cmd_trace_export(int argc, char **argv)
{
	static struct export_opts o;
	tt_net net;
	tt_addrmap map;
	tt_infer *inf = NULL;
	tt_deps_reader *dr = NULL;
	tt_mpi_trace mt;
	tt_mpi_deps *md = NULL;
	int have_mt = 0;
	uint32_t nranks;
	tt_dep_stream s;
	tt_ti_export_stats st;
	char err[1024];
	int rc, have_net = 0, have_map = 0;

	memset(&o, 0, sizeof(o));
	memset(&map, 0, sizeof(map));
	rc = export_parse(&o, argc, argv);
	if (rc == OPT_HELP_SHOWN) {
		rc = TTSIM_EXIT_OK;
		goto out;
	}
	if (rc != OPT_PARSED) {
		rc = TTSIM_EXIT_USAGE;
		goto out;
	}
	rc = TTSIM_EXIT_USAGE;
	if (tt_net_init(&net, &o.no.spec, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim trace export: %s\n", err);
		goto out;
	}
	have_net = 1;
	nranks = net.ncards;
	if (o.np == 1 && tt_mpi_trace_is(o.paths[0])) {
		/* its own ranks, its own dependencies */
		if (tt_mpi_trace_read(&mt, o.paths[0], o.flops, err,
		    sizeof(err)) < 0) {
			fprintf(stderr, "ttsim trace export: %s\n", err);
			goto out;
		}
		have_mt = 1;
		if (tt_mpi_deps_open(&md, &mt, err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim trace export: %s: %s\n",
			    o.paths[0], err);
			goto out;
		}
		s = tt_mpi_deps_stream(md);
		nranks = mt.nranks;
	} else if (o.deps != NULL) {
		if (tt_deps_open(&dr, o.deps, err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim trace export: %s\n", err);
			goto out;
		}
		s = tt_deps_stream(dr);
	} else {
		if (tt_addrmap_build(&map, &o.no.cfg, &net, stderr) > 0)
			goto out;
		have_map = 1;
		if (infer_check_trace("trace export", o.paths, o.np, &net, &map,
		    &o.ip) < 0)
			goto out;
		o.ip.npes = net.ncards;
		o.ip.map = &map;
		if (tt_infer_open(&inf, o.paths, o.np, &o.ip, err,
		    sizeof(err)) < 0) {
			fprintf(stderr, "ttsim trace export: %s\n", err);
			goto out;
		}
		s = tt_infer_stream(inf);
	}
	if (tt_ti_export(o.dir, o.force, s, nranks, o.flops, &st, err,
	    sizeof(err)) < 0) {
		fprintf(stderr, "ttsim trace export: %s\n", err);
		goto out;
	}
	if (inf != NULL)
		tt_infer_warnings(inf, stderr, "ttsim trace export: warning: ");
	export_summary(&o, &st);
	rc = TTSIM_EXIT_OK;
out:
	tt_mpi_deps_free(md);
	if (have_mt)
		tt_mpi_trace_free(&mt);
	tt_infer_free(inf);
	if (dr != NULL)
		tt_deps_close_reader(dr);
	if (have_map)
		tt_addrmap_free(&map);
	if (have_net)
		tt_net_free(&net);
	tt_config_free(&o.no.cfg);
	free(o.paths);
	return rc;
}
