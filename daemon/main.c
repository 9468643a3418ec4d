/*
 * ttd: the subcommands.  `run` (the default) is the daemon (loop.c);
 * `check`, `routes` and `status` are small programs around the same
 * modules.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "twintorus/json.h"
#include "twintorus/outfile.h"
#include "twintorus/version.h"
#include "../lib/support/suggest.h"      /* "did you mean" */
#include "discover.h"
#include "ttd.h"


#include <getopt.h>

/* Every flag of every subcommand, with its help beside it; parse_flags()
 * refuses those a command does not take.  Long flags take --name value
 * and --name=value. */
enum {
	F_NODE = 256, F_CONTROL, F_TRACE_DIR, F_HWLOC_XML, F_LOG_LEVEL, F_PCP,
	F_LOSSY, F_BACKEND, F_THREADS, F_JSON
};

struct ttd_flag {
	const char *name;       /* long name; NULL: the short flag id */
	int has_arg;
	int id;
	const char *arg;        /* its value's name in the help */
	const char *help;       /* a line per '\n'; NULL: the log levels */
};

/* In the order --help lists them. */
static const struct ttd_flag ttd_flags[] = {
	{NULL, required_argument, 'c', "FILE",
	    "the cluster file (default " TTD_DEFAULT_CONFIG ")"},
	{"node", required_argument, F_NODE, "N",
	    "this node: a host or coordinate listed in nodes:\n"
	    "(default: this machine's host name)"},
	{"control", required_argument, F_CONTROL, "PATH",
	    "the control socket (default " TTD_DEFAULT_CONTROL ")"},
	{"trace-dir", required_argument, F_TRACE_DIR, "DIR",
	    "where traces go (default: trace.dir of the file)"},
	{"pcp", no_argument, F_PCP, NULL,
	    "tag frames on the wire with 802.1Q, PCP = VC"},
	{"backend", required_argument, F_BACKEND, "B",
	    "xdp (AF_XDP) or pcap (libpcap); default: xdp where\n"
	    "it works on every port, pcap otherwise (logged why)"},
	{"lossy", no_argument, F_LOSSY, NULL,
	    "no credits: drop where a buffer is full (the old way)"},
	{"threads", required_argument, F_THREADS, "T",
	    "one (one loop for both cards) or card (a thread per\n"
	    "card); default: card when the cards sit on different\n"
	    "NUMA nodes"},
	{"log-level", required_argument, F_LOG_LEVEL, "L", NULL},
	{NULL, no_argument, 'v', NULL, "check: print the normalised config"},
	{"json", no_argument, F_JSON, NULL,
	    "routes, status, discover: one JSON object"},
	{"hwloc-xml", required_argument, F_HWLOC_XML, "FILE",
	    "discover, run: read this hwloc topology, not this\n"
	    "machine's (a node without cards: maps the cards found)"},
};
#define TTD_NFLAGS (sizeof(ttd_flags) / sizeof(ttd_flags[0]))

/* getopt_long's table, made from ttd_flags. */
static struct option long_flags[TTD_NFLAGS + 1];

static void
long_flags_init(void)
{
	size_t i, n = 0;

	for (i = 0; i < TTD_NFLAGS; i++) {
		if (ttd_flags[i].name == NULL)
			continue;
		long_flags[n].name = ttd_flags[i].name;
		long_flags[n].has_arg = ttd_flags[i].has_arg;
		long_flags[n].flag = NULL;
		long_flags[n].val = ttd_flags[i].id;
		n++;
	}
	long_flags[n] = (struct option){NULL, 0, NULL, 0};
}

/* One flag's lines of --help: its name and value in 20 columns, then its
 * help, each further line indented as far. */
static void
usage_flag(FILE *f, const struct ttd_flag *fl)
{
	char head[64];
	const char *h, *nl;
	int l;

	if (fl->name == NULL)
		snprintf(head, sizeof(head), "  -%c%s%s", fl->id,
		    fl->arg != NULL ? " " : "", fl->arg != NULL ? fl->arg : "");
	else
		snprintf(head, sizeof(head), "  --%s%s%s", fl->name,
		    fl->arg != NULL ? " " : "", fl->arg != NULL ? fl->arg : "");
	fprintf(f, "%-20s", head);
	if (fl->help == NULL) {         /* the log levels, from log.c */
		for (l = TTD_LOG_ERR; l <= TTD_LOG_DEBUG; l++)
			fprintf(f, "%s%s%s", l == TTD_LOG_ERR ? "" :
			    l == TTD_LOG_DEBUG ? " or " : ", ",
			    ttd_log_level_name(l), l == TTD_LOG_DEFAULT ?
			    " (default)" : "");
		fputc('\n', f);
		return;
	}
	for (h = fl->help; ; h = nl + 1) {
		nl = strchr(h, '\n');
		fprintf(f, "%s%.*s\n", h == fl->help ? "" : "                    ",
		    nl != NULL ? (int)(nl - h) : (int)strlen(h), h);
		if (nl == NULL)
			break;
	}
}

/* The usage; the defaults it shows are the code's. */
static void
usage(FILE *f)
{
	size_t i;

	fputs(
"usage: ttd [run] [-c FILE] [--node HOST|x,y,z] [--control PATH]\n"
"               [--trace-dir DIR] [--pcp] [--log-level LEVEL]\n"
"               [--backend xdp|pcap] [--lossy] [--threads one|card]\n"
"               [--hwloc-xml FILE]\n"
"       ttd check [-c FILE] [-v]\n"
"       ttd routes [-c FILE] --node HOST|x,y,z [--json]\n"
"       ttd status [--control PATH] [--json]\n"
"       ttd discover [--hwloc-xml FILE] [--json]\n"
"       ttd --help | --version\n"
"\n"
"ttd turns a node's two 4-port NICs into a twin-torus switch: it forwards\n"
"torus frames between the ports with the core's DOR/VC routing table,\n"
"without loss (credits per VC between cards),\n"
"gives each PE a TAP interface, checks the cabling with hello frames and\n"
"records pcap traces.  See ttd(8).\n"
"\n", f);
	for (i = 0; i < TTD_NFLAGS; i++)
		usage_flag(f, &ttd_flags[i]);
	fputc('\n', f);
	fprintf(f, "exit status: 0 ok, %d bad flags, %d an interface or device "
	    "is missing,\n%d standard output could not be written, %d bad "
	    "config, 1 other failure\n", TTD_EX_USAGE, TTD_EX_UNAVAILABLE,
	    TTD_EX_IOERR, TTD_EX_CONFIG);
}

static int
usage_err(const char *who, const char *what, const char *arg)
{
	fprintf(stderr, "%s: %s %s (see ttd --help)\n", who, what, arg);
	return TTD_EX_USAGE;
}

/* The name of flag code id: "c", "v" or a long one's. */
static const char *
flag_name(int id)
{
	size_t i;

	if (id == 'c')
		return "c";
	if (id == 'v')
		return "v";
	for (i = 0; i < TTD_NFLAGS; i++)
		if (ttd_flags[i].id == id && ttd_flags[i].name != NULL)
			return ttd_flags[i].name;
	return "";
}

/*
 * An unknown flag a (up to an '='), and the flag of the command's
 * (allowed: " c node ... ") it most likely meant.
 */
static int
unknown_flag(const char *who, const char *a, const char *allowed)
{
	char buf[256], flag[128], *names[32], *tok, *save = NULL;
	const char *near;
	size_t n = 0;

	snprintf(flag, sizeof(flag), "%.*s", (int)strcspn(a, "="), a);
	snprintf(buf, sizeof(buf), "%s", allowed);
	for (tok = strtok_r(buf, " ", &save); tok != NULL && n < 32;
	    tok = strtok_r(NULL, " ", &save))
		if (strlen(tok) > 1)            /* not -c, -v */
			names[n++] = tok;
	if (strncmp(flag, "--", 2) == 0 && (near = tt_suggest(flag + 2,
	    (const char *const *)names, n)) != NULL) {
		fprintf(stderr, "%s: unknown option %s (did you mean --%s?)\n",
		    who, flag, near);
		return TTD_EX_USAGE;
	}
	return usage_err(who, "unknown option", flag);
}

struct opts {
	struct ttd_run_opts run;
	int verbose, json;
};

/* One flag's value into o: 0, or TTD_EX_USAGE after a message. */
static int
take_flag(int id, const char *flag, const char *v, const char *cmd,
    struct opts *o)
{
	switch (id) {
	case F_PCP:
		o->run.pcp = 1;
		return 0;
	case F_LOSSY:
		o->run.lossy = 1;
		return 0;
	case 'v':
		o->verbose = 1;
		return 0;
	case F_JSON:
		o->json = 1;
		return 0;
	}
	if (v == NULL || v[0] == '\0') {
		fprintf(stderr, "ttd %s: %s needs a value\n", cmd, flag);
		return TTD_EX_USAGE;
	}
	switch (id) {
	case 'c':
		o->run.config = v;
		break;
	case F_NODE:
		o->run.node = v;
		break;
	case F_CONTROL:
		o->run.control = v;
		break;
	case F_TRACE_DIR:
		o->run.trace_dir = v;
		break;
	case F_HWLOC_XML:
		o->run.hwloc_xml = v;
		break;
	case F_BACKEND:
		if (strcmp(v, "xdp") == 0)
			o->run.backend = TTD_BACKEND_XDP;
		else if (strcmp(v, "pcap") == 0)
			o->run.backend = TTD_BACKEND_PCAP;
		else {
			fprintf(stderr, "ttd %s: --backend %s: expected xdp or "
			    "pcap\n", cmd, v);
			return TTD_EX_USAGE;
		}
		break;
	case F_THREADS:
		if (strcmp(v, "one") == 0)
			o->run.threads = TTD_THREADS_ONE;
		else if (strcmp(v, "card") == 0)
			o->run.threads = TTD_THREADS_CARD;
		else {
			fprintf(stderr, "ttd %s: --threads %s: expected one or "
			    "card\n", cmd, v);
			return TTD_EX_USAGE;
		}
		break;
	case F_LOG_LEVEL:
		if ((ttd_log_level = ttd_log_parse_level(v)) < 0) {
			fprintf(stderr, "ttd %s: --log-level %s: expected err, "
			    "warning, notice, info or debug\n", cmd, v);
			return TTD_EX_USAGE;
		}
		break;
	}
	return 0;
}

/*
 * The flags of subcommand cmd (argv[0] is its name); `allowed` lists
 * the ones it takes (" c node json "), who names it in the messages on
 * unknown flags ("ttd", "ttd discover").  A long flag is taken only by its
 * whole name: getopt_long()'s abbreviations are refused, as a misspelling
 * is, with the flag most likely meant.
 */
static int
parse_flags(int argc, char **argv, const char *cmd, const char *who,
    const char *allowed, struct opts *o)
{
	char want[32], flag[128];
	const char *a;
	int id, li, at, rc;

	/* '-': arguments in order (1 for one that is not a flag); ':': a
	 * missing value apart from an unknown flag; no messages of its own */
	if (long_flags[0].name == NULL)
		long_flags_init();
	opterr = 0;
	optind = 0;
	for (;;) {
		at = optind > 0 ? optind : 1;
		li = -1;
		id = getopt_long(argc, argv, "-:c:v", long_flags, &li);
		if (id == -1)
			break;
		a = argv[at];
		snprintf(flag, sizeof(flag), "%.*s", (int)strcspn(a, "="), a);
		if (id == 1)
			return usage_err(who, "unexpected argument", optarg);
		if (id == '?' && strncmp(a, "--", 2) != 0) {
			snprintf(flag, sizeof(flag), "-%c", optopt);
			return unknown_flag(who, flag, allowed);
		}
		if (id == '?' && optopt != 0) {  /* a value to a flag of none */
			fprintf(stderr, "ttd %s: %s takes no value\n", cmd, flag);
			return TTD_EX_USAGE;
		}
		if (id == '?' || (li >= 0 &&
		    strcmp(flag + 2, long_flags[li].name) != 0))
			return unknown_flag(who, a, allowed);
		if (id == ':') {
			id = optopt;
			optarg = NULL;
		}
		/* -c=FILE would read a file named "=FILE" */
		if (id == 'c' && strncmp(a, "-c=", 3) == 0) {
			fprintf(stderr, "ttd %s: %s: write -c FILE\n", cmd, a);
			return TTD_EX_USAGE;
		}
		snprintf(want, sizeof(want), " %s ", flag_name(id));
		if (strstr(allowed, want) == NULL) {
			fprintf(stderr, "ttd %s: %s does not apply here (see "
			    "ttd --help)\n", cmd, flag);
			return TTD_EX_USAGE;
		}
		if ((rc = take_flag(id, flag, optarg, cmd, o)) != 0)
			return rc;
	}
	/* after "--": nothing is an argument */
	if (optind < argc)
		return usage_err(who, "unexpected argument", argv[optind]);
	if (o->run.config == NULL)
		o->run.config = TTD_DEFAULT_CONFIG;
	return 0;
}

/* Load the config and the network; errors printed; 0 or TTD_EX_CONFIG. */
static int
load(const char *path, tt_config *cfg, tt_net *net)
{
	char err[512];

	if (tt_config_load(cfg, path, stderr) != 0)
		return TTD_EX_CONFIG;
	if (tt_net_init(net, &cfg->spec, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: %s\n", path, err);
		return TTD_EX_CONFIG;
	}
	return 0;
}

/* A configuration by its name, or a custom one as the map it is, so that
 * the normalised file loads again. */
static void
print_ports(const tt_net *net)
{
	char pn[16];
	int side, p, first;

	if (strcmp(net->ports_name, "custom") != 0) {
		printf("%s", net->ports_name);
		return;
	}
	for (side = 0; side < 2; side++) {
		printf("%s", side ? "], card1: [" : "{card0: [");
		for (p = 0, first = 1; p < 2 * net->n; p++) {
			if (net->port_card[p] != side)
				continue;
			printf("%s%s", first ? "" : ", ",
			    tt_port_name(p, net->n, pn, sizeof(pn)));
			first = 0;
		}
	}
	printf("]}");
}

static void
print_normalised(const tt_config *cfg, const tt_net *net,
    const struct ttd_node *nds)
{
	char pn[16];
	size_t i;
	int d, s, p;

	printf("torus:\n  dims: [");
	for (d = 0; d < net->n; d++)
		printf("%s%d", d ? ", " : "", net->k[d]);
	printf("]\n  twin: %s\n  ports: ", net->twin ? "true" : "false");
	print_ports(net);
	printf("\n  deadlock: %s\n", tt_deadlock_name(net->deadlock));
	printf("network:\n  packet_flits: %d\n  buffer_flits: %d\n"
	    "  flit_bytes: %d\n  link_gbps: %g\n", cfg->params.packet_flits,
	    cfg->params.buffer_flits, cfg->params.flit_bytes,
	    cfg->params.link_gbps);
	printf("pes:\n  tap: \"%s\"\n  subnet: %u.%u.%u.%u/%d\n", cfg->pe_tap,
	    cfg->pe_subnet >> 24, cfg->pe_subnet >> 16 & 255,
	    cfg->pe_subnet >> 8 & 255, cfg->pe_subnet & 255, cfg->pe_prefix);
	printf("nodes:\n");
	for (i = 0; i < cfg->nnodes; i++) {
		const struct ttd_node *nd = &nds[i];

		printf("  - host: %s\n    coord: [", nd->host);
		for (d = 0; d < net->n; d++)
			printf("%s%d", d ? ", " : "",
			    cfg->nodes[i].coord[d]);
		printf("]\n");
		if (cfg->nodes[i].ncards == 0)
			continue;	/* automatic: mapped when ttd starts */
		printf("    cards:\n");
		for (s = 0; s < nd->ncards; s++) {
			const tt_cfg_card *cc = nd->card[s].entry < 0 ? NULL :
			    &cfg->nodes[i].cards[nd->card[s].entry];

			printf("      - { ");
			if (cc != NULL && cc->pci[0] != '\0')
				printf("pci: \"%s\", ", cc->pci);
			printf("ports: { ");
			for (p = 0; p < nd->card[s].nports; p++) {
				const struct ttd_port *pt = &nd->card[s].port[p];

				if (pt->port == TT_PORT_INT)
					snprintf(pn, sizeof(pn), "internal");
				else
					tt_port_name(pt->port, net->n, pn,
					    sizeof(pn));
				printf("%s%s: %s", p ? ", " : "", pt->key, pn);
			}
			printf(" } }    # card%d, PE %u\n", s,
			    nd->card[s].card);
		}
	}
	if (cfg->has_trace || cfg->trace_dir[0]) {
		printf("trace:\n  dir: %s\n", cfg->trace_dir[0] ?
		    cfg->trace_dir : TTD_DEFAULT_TRACES);
		/* unset (0): no rotation, and the file's own default */
		if (cfg->trace_rotate_mb > 0)
			printf("  rotate_mb: %d\n", cfg->trace_rotate_mb);
		if (cfg->trace_keep > 0)
			printf("  keep: %d\n", cfg->trace_keep);
		printf("  ports: %s\n", cfg->trace_ports ? "true" : "false");
	}
}

static int
cmd_check(int argc, char **argv)
{
	struct opts o = {0};
	struct ttd_node *nds;
	tt_config cfg;
	tt_net net;
	int rc, nerr = 0;
	size_t i;

	if ((rc = parse_flags(argc, argv, "check", "ttd", " c v ", &o)) != 0)
		return rc;
	memset(&net, 0, sizeof(net));
	if ((rc = load(o.run.config, &cfg, &net)) != 0) {
		tt_config_free(&cfg);
		return rc;
	}
	if (cfg.nnodes == 0) {
		fprintf(stderr, "%s: no nodes: section; ttd needs one entry "
		    "per node (host, coord, cards)\n", o.run.config);
		nerr++;
	}
	nds = calloc(cfg.nnodes ? cfg.nnodes : 1, sizeof(*nds));
	if (nds == NULL) {
		fprintf(stderr, "ttd check: out of memory\n");
		rc = 1;
		goto out;
	}
	for (i = 0; i < cfg.nnodes; i++)
		nerr += ttd_node_map(&nds[i], &cfg, &net, i, 0, NULL, stderr);
	if (nerr == 0 && o.verbose)
		print_normalised(&cfg, &net, nds);
	rc = nerr ? TTD_EX_CONFIG : 0;
	free(nds);
out:
	tt_net_free(&net);
	tt_config_free(&cfg);
	return rc;
}

static const char *const hop_types[] = {"ext", "t1", "t2", "t3", "eject"};

static int
cmd_routes(int argc, char **argv)
{
	struct opts o = {0};
	struct ttd_node nd;
	tt_config cfg;
	tt_net net;
	char err[512], pn[16], cn[64];
	size_t index;
	uint32_t dst;
	int rc, s;

	if ((rc = parse_flags(argc, argv, "routes", "ttd", " c node json ",
	    &o)) != 0)
		return rc;
	if (o.run.node == NULL) {
		fprintf(stderr, "ttd routes: give --node HOST or x,y,z\n");
		return TTD_EX_USAGE;
	}
	memset(&net, 0, sizeof(net));
	if ((rc = load(o.run.config, &cfg, &net)) != 0)
		goto out;
	if (ttd_node_find(&cfg, &net, o.run.node, &index, err,
	    sizeof(err)) < 0) {
		fprintf(stderr, "ttd routes: %s\n", err);
		rc = TTD_EX_CONFIG;
		goto out;
	}
	if (ttd_node_map(&nd, &cfg, &net, index, 0, NULL, stderr) > 0) {
		rc = TTD_EX_CONFIG;
		goto out;
	}
	if (o.json) {
		tt_json_begin(stdout, TT_JSON_SCHEMA_TTD_ROUTES);
		printf(", \"node\": %u, \"host\": ", nd.node);
		tt_json_string(stdout, nd.host);
		printf(", \"cards\": [");
	} else
		printf("node %s: where each card sends a frame for each PE "
		    "(tt_route, as ttsim)\n", nd.host);
	for (s = 0; s < nd.ncards; s++) {
		uint32_t card = nd.card[s].card;

		if (o.json)
			printf("%s\n {\"card\": %d, \"pe\": %u, \"routes\": [",
			    s ? "," : "", s, card);
		else
			printf("card %d (%s), PE %u:\n", s, tt_card_name(&net,
			    card, cn, sizeof(cn)), card);
		for (dst = 0; dst < net.ncards; dst++) {
			tt_hop h = tt_route(&net, card, dst, TT_PORT_NIC);

			if (h.port == TT_PORT_NIC)
				snprintf(pn, sizeof(pn), "pe");
			else if (h.port == TT_PORT_INT)
				snprintf(pn, sizeof(pn), "internal");
			else
				tt_port_name(h.port, net.n, pn, sizeof(pn));
			if (o.json)
				printf("%s{\"dst\": %u, \"port\": \"%s\", "
				    "\"vc\": %u, \"type\": \"%s\"}", dst ?
				    ", " : "", dst, pn, h.vc,
				    hop_types[h.type]);
			else
				printf("  PE %-6u %-14s -> %-8s VC %u (%s)\n",
				    dst, tt_card_name(&net, dst, cn,
				    sizeof(cn)), pn, h.vc, hop_types[h.type]);
		}
		if (o.json)
			printf("]}");
	}
	if (o.json)
		printf("]}\n");
out:
	if (net.coord != NULL)
		tt_net_free(&net);
	tt_config_free(&cfg);
	return rc;
}

static int
cmd_status(int argc, char **argv)
{
	struct opts o = {0};
	struct sockaddr_un sa;
	const char *path;
	char buf[4096];
	ssize_t n;
	int rc, s;

	if ((rc = parse_flags(argc, argv, "status", "ttd", " control json ",
	    &o)) != 0)
		return rc;
	path = o.run.control ? o.run.control : TTD_DEFAULT_CONTROL;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "ttd status: %s: path too long\n", path);
		return TTD_EX_USAGE;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "ttd status: cannot reach ttd at %s: %s (is "
		    "it running? give --control)\n", path, strerror(errno));
		if (s >= 0)
			close(s);
		return 1;
	}
	snprintf(buf, sizeof(buf), "%s\n", o.json ? "status json" : "status");
	if (write(s, buf, strlen(buf)) < 0) {
		fprintf(stderr, "ttd status: %s: %s\n", path, strerror(errno));
		close(s);
		return 1;
	}
	while ((n = read(s, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	close(s);
	return 0;
}

static const char *const commands[] = {
	"run", "check", "routes", "status", "discover",
};

static int
dispatch(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "run", *near;
	struct opts o = {0};
	int rc;

	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
	    strcmp(cmd, "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(cmd, "--version") == 0) {
		printf("ttd %s\n", TT_VERSION);
		return 0;
	}
	if (argc > 2 && (strcmp(argv[2], "--help") == 0 ||
	    strcmp(argv[2], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	/* each command's flags after its name, argv[0] */
	if (strcmp(cmd, "check") == 0)
		return cmd_check(argc - 1, argv + 1);
	if (strcmp(cmd, "routes") == 0)
		return cmd_routes(argc - 1, argv + 1);
	if (strcmp(cmd, "status") == 0)
		return cmd_status(argc - 1, argv + 1);
	if (strcmp(cmd, "discover") == 0) {
		if ((rc = parse_flags(argc - 1, argv + 1, "discover",
		    "ttd discover", " hwloc-xml json ", &o)) != 0)
			return rc;
		return ttd_cmd_discover(o.run.hwloc_xml, o.json);
	}
	if (strcmp(cmd, "run") == 0 && argc > 1) {
		argc -= 1;
		argv += 1;
	} else if (cmd[0] == '-' || argc <= 1) {
		/* ttd [FLAGS]: run; argv[0] is ttd */
	} else if ((near = tt_suggest(cmd, commands, sizeof(commands) /
	    sizeof(commands[0]))) != NULL) {
		fprintf(stderr, "ttd: unknown command %s (did you mean %s?)\n",
		    cmd, near);
		return TTD_EX_USAGE;
	} else {
		return usage_err("ttd", "unknown command (run, check, routes, "
		    "status, discover):", cmd);
	}
	if ((rc = parse_flags(argc, argv, "run", "ttd",
	    " c node control trace-dir log-level pcp hwloc-xml lossy backend "
	    "threads ", &o)) != 0)
		return rc;
	return ttd_run(&o.run);
}

/*
 * What a command printed (--help, check -v, routes, status, discover) must
 * have reached standard output: a full disk or a closed pipe must not pass
 * for success, whatever the command returned.
 */
static int
stdout_done(int rc)
{
	return tt_stdout_done("ttd") == 0 ? rc : TTD_EX_IOERR;
}

int
main(int argc, char **argv)
{
	return stdout_done(dispatch(argc, argv));
}
