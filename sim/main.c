/*
 * ttsim: the offline twin-torus tool.  Subcommands live in cmd_*.c; this
 * file only dispatches.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "support/suggest.h"             /* lib/: "did you mean" */
#include "ttsim.h"
#include "twintorus/version.h"
#include "twintorus/outfile.h"


static void
usage(FILE *f)
{
	fprintf(f,
"usage: ttsim COMMAND [FILE.yaml] [flags]\n"
"\n"
"Model twin-torus networks: two 4-port cards per node joined by an internal\n"
"link make a 3D torus (or n-D) where one card makes only a 2D torus.\n"
"\n"
"commands:\n"
"  analyze   diameter, distances, internal-link load, VCs, deadlock freedom,\n"
"            all by enumerating the routing function (--ports all compares\n"
"            every port configuration)\n"
"  verify    build the channel dependency graph and prove it acyclic, or\n"
"            print a cycle (exit 1)\n"
"  run       simulate one load point flit by flit: throughput, latency\n"
"  sweep     simulate loads x port configurations x schemes x topologies\n"
"  plot      draw load-latency and load-throughput curves with gnuplot\n"
"  trace     write (synth), summarise (stat) and infer the dependencies of\n"
"            (infer) pcap traces of torus frames\n"
"  replay    predict how a recorded trace runs on one or more networks\n"
"            (open loop, or --causal: each send waits for what enabled it)\n"
"  app       run an application motif closed loop (halo3d, sweep3d,\n"
"            allreduce, alltoall, incast, pingpong); --record traces it\n"
"\n"
"network flags (over the YAML file, if one is given):\n"
"  --dims 4,4,4          nodes per dimension (default 4,4,4)\n"
"  --ports D|A..J|best|all  port configuration (default best)\n"
"  --deadlock vc|bubble|none  deadlock avoidance (default vc)\n"
"  --plain               one card per node with 2n ports: the plain torus\n"
"  --topology SPEC       another network: pruned:k=8, msn:k=8, pruned-msn:k=8,\n"
"                        mh3dt:m=4,n=4,L=2,q=2, tesh:m=2,L=2,q=0\n"
"  --json                machine-readable output\n"
"\n"
"'ttsim COMMAND --help' describes a command.  Exit status: 0 success,\n"
"1 verify found a possible deadlock, 2 bad usage or input, or output that\n"
"could not be written.\n");
}

static const char *const commands[] = {
	"analyze", "verify", "run", "sweep", "plot", "trace", "replay", "app",
};

static int
dispatch(int argc, char **argv)
{
	const char *cmd, *near;

	if (argc < 2) {
		usage(stderr);
		return TTSIM_EXIT_USAGE;
	}
	cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 ||
	    strcmp(cmd, "help") == 0) {
		usage(stdout);
		return TTSIM_EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0) {
		printf("ttsim %s\n", TT_VERSION);
		return TTSIM_EXIT_OK;
	}
	if (strcmp(cmd, "analyze") == 0)
		return cmd_analyze(argc - 1, argv + 1);
	if (strcmp(cmd, "verify") == 0)
		return cmd_verify(argc - 1, argv + 1);
	if (strcmp(cmd, "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	if (strcmp(cmd, "sweep") == 0)
		return cmd_sweep(argc - 1, argv + 1);
	if (strcmp(cmd, "plot") == 0)
		return cmd_plot(argc - 1, argv + 1);
	if (strcmp(cmd, "trace") == 0)
		return cmd_trace(argc - 1, argv + 1);
	if (strcmp(cmd, "replay") == 0)
		return cmd_replay(argc - 1, argv + 1);
	if (strcmp(cmd, "app") == 0)
		return cmd_app(argc - 1, argv + 1);
	if ((near = tt_suggest(cmd, commands, sizeof(commands) /
	    sizeof(commands[0]))) != NULL)
		fprintf(stderr, "ttsim: unknown command '%s' (did you mean "
		    "%s?)\n", cmd, near);
	else
		fprintf(stderr, "ttsim: unknown command '%s' (commands: "
		    "analyze, verify, run, sweep, plot, trace, replay, app; "
		    "see ttsim --help)\n", cmd);
	return TTSIM_EXIT_USAGE;
}

/*
 * Everything a command printed must have reached standard output: a full
 * disk or a closed file must not pass for success.  The result did not
 * arrive, so the exit status says so (2) whatever the command's was.
 * (Flushed, not closed: the MPI shutdown flushes it once more.)
 */
static int
stdout_done(int rc)
{
	return tt_stdout_done("ttsim") == 0 ? rc : TTSIM_EXIT_USAGE;
}

int
main(int argc, char **argv)
{
	int rc;

	ttsim_mpi_start(&argc, &argv);
	rc = stdout_done(dispatch(argc, argv));
	ttsim_mpi_finish();
	return rc;
}
