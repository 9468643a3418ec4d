/*
 * ttsim trace: the trace subcommands (synth in cmd_synth.c, stat in
 * cmd_stat.c, infer in cmd_infer.c, calibrate in cmd_calibrate.c, export
 * in cmd_export.c).
 */
#include <stdio.h>
#include <string.h>

#include "support/suggest.h"             /* lib/: "did you mean" */
#include "ttsim.h"

static const char *const commands[] = {"synth", "stat", "infer", "calibrate",
    "export"};

int
cmd_trace(int argc, char **argv)
{
	const char *near;

	if (argc >= 2 && strcmp(argv[1], "synth") == 0)
		return cmd_trace_synth(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "stat") == 0)
		return cmd_trace_stat(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "infer") == 0)
		return cmd_trace_infer(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "calibrate") == 0)
		return cmd_trace_calibrate(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "export") == 0)
		return cmd_trace_export(argc - 1, argv + 1);
	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "--help") == 0)) {
		printf("usage: ttsim trace synth|stat|infer|calibrate|export ...\n\n"
		    "  synth   write an application-like trace (pcap of torus "
		    "frames)\n"
		    "  stat    summarise traces: messages, bytes, duration, PEs, "
		    "pairs\n"
		    "  infer   each message's predecessors and compute gap, for "
		    "replay --causal\n"
		    "  calibrate  fit a hardware model (model: section) to a "
		    "ttd recording\n"
		    "  export  write a recording as a SimGrid time-independent "
		    "trace (--ti DIR)\n\n'ttsim trace COMMAND --help' says "
		    "more.\n");
		return TTSIM_EXIT_OK;
	}
	if (argc >= 2 && (near = tt_suggest(argv[1], commands,
	    sizeof(commands) / sizeof(commands[0]))) != NULL)
		fprintf(stderr, "ttsim trace: unknown command '%s' (did you "
		    "mean %s?)\n", argv[1], near);
	else
		fprintf(stderr, "ttsim trace: give synth, stat, infer, calibrate "
		    "or export (see ttsim trace --help)\n");
	return TTSIM_EXIT_USAGE;
}
