/*
 * ttsim analyze: the static figures for one port
 * configuration or, with --ports all, for every one, sorted by the load
 * they put on the internal link.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "twintorus/json.h"
#include "ttsim.h"

static void
analyze_usage(FILE *f)
{
	fprintf(f,
"usage: ttsim analyze [FILE.yaml] [--dims 4,4,4] [--ports D|best|all]\n"
"                     [--deadlock vc|bubble|none] [--plain] [--json]\n"
"                     [--topology SPEC]  (pruned:k=8, tesh:L=2, ...)\n"
"\n"
"Walks the routing function over every pair of PEs and the link graph from\n"
"every PE, and reports:\n"
"  diameter, avg_distance   shortest paths, in links crossed (cables and\n"
"                           internal links)\n"
"  avg_dor_hops             mean length of the path DOR actually takes\n"
"  internal_transit_paths   node-level DOR paths through a node (not from or\n"
"                           to it) that cross its internal link: the load of\n"
"                           seed 000 Tables 7-8 (the same at every node)\n"
"  vcs                      VCs the internal link needs under --deadlock\n"
"  deadlock_free            the channel dependency graph check (ttsim verify;\n"
"                           --type1-vc, --ties and --ring-vc as there)\n"
"--ports all compares A..J (3 dimensions) or every configuration up to\n"
"swapping the cards (35 for 4 dimensions, 126 for 5), least loaded first.\n"
"\n"
"Exit status: 0 done, 2 bad usage or input.\n");
}

typedef struct row {
	tt_net net;
	tt_analysis a;
} row;

static int
row_cmp(const void *pa, const void *pb)
{
	const row *a = pa, *b = pb;

	if (a->a.internal_transit_paths != b->a.internal_transit_paths)
		return a->a.internal_transit_paths < b->a.internal_transit_paths ? -1 : 1;
	if (a->a.avg_dor_hops != b->a.avg_dor_hops)
		return a->a.avg_dor_hops < b->a.avg_dor_hops ? -1 : 1;
	return strcmp(a->net.ports_name, b->net.ports_name);
}

/* Which configuration C_Best is for these dims, to mark it in the table. */
static int
is_best(const tt_net *net)
{
	tt_netspec s = net->spec;
	tt_net best;
	char err[256];
	int same;

	if (!net->twin)
		return 0;
	s.ports_kind = TT_PORTS_BEST;
	if (tt_net_init(&best, &s, err, sizeof(err)) < 0)
		return 0;
	same = memcmp(best.port_card, net->port_card, (size_t)(2 * net->n)) == 0;
	tt_net_free(&best);
	return same;
}

static void
print_json_row(const row *r, int indent)
{
	const tt_net *net = &r->net;
	const tt_analysis *a = &r->a;
	const char *pad = indent ? "  " : "";

	printf("%s", pad);
	tt_json_begin(stdout, TT_JSON_SCHEMA_ANALYZE);
	printf(", ");
	json_net_fields(stdout, net, "deadlock");
	if (net->twin)
		printf(", \"is_best\": %s", is_best(net) ? "true" : "false");
	printf(", \"pes\": %u, \"diameter\": %u, "
	    "\"avg_distance\": %.6f, \"avg_dor_hops\": %.6f, "
	    "\"max_dor_hops\": %u, \"internal_transit_paths\": %llu, "
	    "\"transit_uniform\": %s, \"vcs\": %d, \"ext_vcs\": %d, "
	    "\"deadlock_free\": %s, \"channels\": %llu, \"dependencies\": %llu",
	    a->pes, a->diameter,
	    a->avg_distance, a->avg_dor_hops, a->max_dor_hops,
	    (unsigned long long)a->internal_transit_paths,
	    a->transit_uniform ? "true" : "false", a->vcs, a->ext_vcs,
	    a->deadlock_free ? "true" : "false",
	    (unsigned long long)a->channels,
	    (unsigned long long)a->dependencies);
	/* the node graph's, for every network (a twin torus's distances
	 * above stay over PEs; these count nodes) */
	printf(", \"nodes\": %u, \"links\": %llu, \"directed\": %s, "
	    "\"degree_min\": %d, \"degree_max\": %d, "
	    "\"avg_route_hops\": %.6f, \"max_route_hops\": %u, "
	    "\"bisection\": ", a->nodes, (unsigned long long)a->links,
	    net->directed ? "true" : "false", a->degree_min, a->degree_max,
	    a->avg_dor_hops, a->max_dor_hops);
	if (a->bisection < 0)
		printf("null}");
	else
		printf("%lld}", (long long)a->bisection);
}

static void
print_one(const row *r)
{
	const tt_net *net = &r->net;
	const tt_analysis *a = &r->a;
	char title[128], c0[64], c1[64];

	printf("%s", net_title(net, title, sizeof(title)));
	if (net->twin)
		printf(", ports %s {%s | %s}", net->ports_name,
		    net_card_ports(net, 0, c0, sizeof(c0)),
		    net_card_ports(net, 1, c1, sizeof(c1)));
	printf(", deadlock %s\n", tt_deadlock_name(net->deadlock));
	printf("  PEs                      %u (nodes %u)\n", a->pes, a->nodes);
	printf("  %s %llu, degree %d..%d%s\n", net->directed ?
	    "arcs                    " : "links                   ",
	    (unsigned long long)a->links, a->degree_min, a->degree_max,
	    net->directed ? " (out-neighbours)" : "");
	if (a->bisection >= 0)
		printf("  bisection                %lld %s\n",
		    (long long)a->bisection, net->directed ? "arcs" : "links");
	printf("  diameter                 %u links\n", a->diameter);
	printf("  average distance         %.3f links\n", a->avg_distance);
	printf("  average %s %.3f links (longest %u)\n", !tt_net_is_torus(net) ?
	    "route path      " : "DOR path        ", a->avg_dor_hops,
	    a->max_dor_hops);
	if (net->twin) {
		printf("  internal transit paths   %llu per node%s\n",
		    (unsigned long long)a->internal_transit_paths,
		    a->transit_uniform ? "" : " (NOT the same at every node)");
		printf("  internal-link VCs        %d (external links: %d)\n",
		    a->vcs, a->ext_vcs);
	} else {
		printf("  VCs per link             %d\n", a->ext_vcs);
	}
	printf("  deadlock-free            %s\n", a->deadlock_free ?
	    "yes (channel dependency graph acyclic)" :
	    "NO (ttsim verify shows a cycle)");
}

static void
print_table(row *rows, size_t count)
{
	char title[128], c0[64], c1[64], name[16];
	uint64_t least = rows[0].a.internal_transit_paths;
	size_t i;
	int w = rows[0].net.n <= 3 ? 9 : 20;

	printf("%s, deadlock %s: %zu port configurations, least internal-link "
	    "load first\n\n", net_title(&rows[0].net, title, sizeof(title)),
	    tt_deadlock_name(rows[0].net.deadlock), count);
	printf("  %-7s %-*s %-*s %9s %5s %8s %8s %4s %s\n", "config", w, "card0",
	    w, "card1", "transit", "diam", "avg-dist", "avg-DOR", "VCs",
	    "deadlock-free");
	for (i = 0; i < count; i++) {
		const row *r = &rows[i];

		snprintf(name, sizeof(name), "%s%s",
		    r->net.ports_name[0] == 'c' ? "" : r->net.ports_name,
		    is_best(&r->net) ? (r->net.ports_name[0] == 'c' ?
		    "best" : "=best") : "");
		printf("%s %-7s %-*s %-*s %9llu %5u %8.3f %8.3f %4d %s\n",
		    r->a.internal_transit_paths == least ? "*" : " ", name,
		    w, net_card_ports(&r->net, 0, c0, sizeof(c0)),
		    w, net_card_ports(&r->net, 1, c1, sizeof(c1)),
		    (unsigned long long)r->a.internal_transit_paths,
		    r->a.diameter, r->a.avg_distance, r->a.avg_dor_hops,
		    r->a.vcs, r->a.deadlock_free ? "yes" : "NO");
	}
	printf("\n* least internal-link load (transit: paths through a node "
	    "that cross its internal link)\n");
}

/* Walking every route takes long from about this many hops (some 40
 * million hops a second: 2^29 is a quarter of a minute). */
#define ANALYZE_WARN_HOPS (1ull << 29)

/*
 * A warning before a run that will take long, so that a user knows to wait
 * (a terminal shows progress) or to try a smaller network.  The estimate
 * is the hops of every route: pes^2 routes, each about a quarter of every
 * ring long, plus the internal links.
 */
static void
analyze_warn(const tt_net *net)
{
	double pes = net->ncards, hops = 1;
	char title[128];
	int d;

	/* a generated network's routes take one decision per pair
	 * (tt_cdg_add_all()), a torus's a walk each */
	if (!tt_net_is_torus(net) && net->nnodes > TT_GEN_PAIRS_MAX_NODES)
		return;     /* refused, not slow */
	for (d = 0; d < net->n && tt_net_is_torus(net); d++)
		hops += net->k[d] / 4.0;
	if (pes * pes * hops < (double)ANALYZE_WARN_HOPS)
		return;
	fprintf(stderr, "ttsim analyze: warning: %s has %.0f PEs: walking the "
	    "routes of all %.3g pairs of them may take minutes%s\n",
	    net_title(net, title, sizeof(title)), pes, pes * (pes - 1),
	    isatty(STDERR_FILENO) ? "" : " (--progress shows how far it is)");
}

static int
analyze_one(row *r, const tt_netspec *spec, int first)
{
	char err[512], title[128], label[160];
	int rc;

	if (tt_net_init(&r->net, spec, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim analyze: %s\n", err);
		return -1;
	}
	if (first)
		analyze_warn(&r->net);
	snprintf(label, sizeof(label), "ttsim analyze, %s",
	    net_title(&r->net, title, sizeof(title)));
	rc = tt_analyze_progress(&r->net, &r->a, progress_show, label, err,
	    sizeof(err));
	progress_clear();
	if (rc < 0)
		fprintf(stderr, "ttsim analyze: %s\n", err);
	return rc;
}

static void
analyze_report(row *rows, size_t count, int json)
{
	size_t i;

	if (json) {
		if (count > 1)
			printf("[\n");
		for (i = 0; i < count; i++) {
			print_json_row(&rows[i], count > 1);
			printf("%s\n", count > 1 && i + 1 < count ? "," : "");
		}
		if (count > 1)
			printf("]\n");
	} else if (count > 1) {
		print_table(rows, count);
	} else {
		print_one(&rows[0]);
	}
}

int
cmd_analyze(int argc, char **argv)
{
	netopts no;
	outopts out = {0, 0};
	const opt_group groups[] = {
		{netopts_flags, 1, netopts_take, &no},
		{netopts_rule_flags, 0, netopts_take, &no},
		{outopts_json, 0, outopts_take, &out},
		{progress_flags, 0, progress_take, NULL},
	};
	tt_netspec *specs = NULL;
	size_t count = 0, i;
	row *rows = NULL;
	int rc = TTSIM_EXIT_USAGE;

	netopts_init(&no);
	switch (opt_parse("analyze", analyze_usage, groups, OPT_NGROUPS(groups), argc, argv)) {
	case OPT_PARSED:
		break;
	case OPT_HELP_SHOWN:
		return TTSIM_EXIT_OK;
	default:
		return TTSIM_EXIT_USAGE;
	}
	if (netopts_finish(&no, "analyze") < 0)
		return TTSIM_EXIT_USAGE;
	if (netopts_specs(&no, &specs, &count) < 0 ||
	    (rows = calloc(count, sizeof(*rows))) == NULL) {
		fprintf(stderr, "ttsim analyze: out of memory\n");
		goto out;
	}
	for (i = 0; i < count; i++)
		if (analyze_one(&rows[i], &specs[i], i == 0) < 0)
			goto out;
	if (count > 1)
		qsort(rows, count, sizeof(*rows), row_cmp);
	analyze_report(rows, count, out.json);
	rc = TTSIM_EXIT_OK;
out:
	for (i = 0; rows != NULL && i < count; i++)
		if (rows[i].net.coord != NULL)
			tt_net_free(&rows[i].net);
	free(rows);
	free(specs);
	return rc;
}
