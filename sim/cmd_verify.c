/*
 * ttsim verify: build the channel dependency graph of the routing function,
 * with its VCs, over every source/destination pair (or only the --flow
 * pairs given) and prove it acyclic, or print a cycle.
 */
#include <stdlib.h>
#include <string.h>

#include "twintorus/json.h"
#include "ttsim.h"

static void
verify_usage(FILE *f)
{
	fprintf(f,
"usage: ttsim verify [FILE.yaml] [--dims 4,4,4] [--ports D|best|all]\n"
"                    [--deadlock vc|bubble|none] [--plain] [--topology SPEC]\n"
"                    [--flow SRC:DST]... [--type1-vc port|room]\n"
"                    [--ties plus|random] [--ring-vc hop|entry] [--json]\n"
"\n"
"Builds the channel dependency graph (a channel is a card's output port and\n"
"VC; c1 -> c2 when a packet holding c1 next asks for c2) from the routes of\n"
"every pair of PEs, and looks for a cycle.  Under bubble, dependencies\n"
"inside one ring are covered by the bubble condition and left out, and\n"
"every entry into a ring must ask for the bubble.  --type1-vc port: a\n"
"type-1 hop's channel is its lane (the default); room: one channel per\n"
"class, the graph every lane refines.  --ties random: both ways at every\n"
"tie.\n"
"\n"
"Exit status: 0 deadlock-free, 1 a cycle (printed as the list of channels,\n"
"each '(node)/card port vcN'), 2 bad usage or input.\n");
}

typedef struct flowarg {
	const char *text;
} flowarg;

static int
parse_flows(const tt_net *net, const flowarg *args, size_t n, tt_flow *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (flow_parse(net, args[i].text, &out[i].src, &out[i].dst,
		    "verify") < 0)
			return -1;
		if (out[i].src == out[i].dst) {
			fprintf(stderr, "ttsim verify: --flow %s: source and "
			    "destination are the same PE\n", args[i].text);
			return -1;
		}
	}
	return 0;
}

/* What verify works out for one network. */
struct verdict {
	tt_cdg g;
	uint64_t *cycle;
	size_t len;
	int is_free;
};

/* The graph of every route (or of the --flow routes), then a cycle in it.
 * 0, or -1 after a message. */
static int
verify_build(const tt_net *net, const flowarg *fargs, size_t nflows,
    struct verdict *v)
{
	tt_flow *flows = NULL;
	char title[128], err[512], label[160];
	size_t i;
	int rc = 0;

	memset(v, 0, sizeof(*v));
	if (nflows > 0) {
		flows = calloc(nflows, sizeof(*flows));
		if (flows == NULL || parse_flows(net, fargs, nflows, flows) < 0) {
			free(flows);
			return -1;
		}
	}
	if (tt_cdg_init(&v->g, net) < 0) {
		fprintf(stderr, "ttsim verify: out of memory for %u PEs\n",
		    net->ncards);
		free(flows);
		return -1;
	}
	if (nflows > 0) {
		for (i = 0; i < nflows && rc == 0; i++)
			rc = tt_cdg_add_path(&v->g, flows[i].src, flows[i].dst,
			    NULL);
	} else if (tt_cdg_check_size(net, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim verify: %s\n", err);
		tt_cdg_free(&v->g);
		free(flows);
		return -1;
	} else {
		snprintf(label, sizeof(label), "ttsim verify, %s",
		    net_title(net, title, sizeof(title)));
		rc = tt_cdg_add_all(&v->g, NULL, progress_show, label);
		progress_clear();
	}
	free(flows);
	if (rc < 0) {
		fprintf(stderr, "ttsim verify: internal error: a route does not "
		    "reach its destination\n");
		tt_cdg_free(&v->g);
		return -1;
	}
	rc = tt_cdg_find_cycle(&v->g, &v->cycle, &v->len);
	if (rc < 0) {
		fprintf(stderr, "ttsim verify: out of memory searching for a "
		    "cycle\n");
		tt_cdg_free(&v->g);
		return -1;
	}
	v->is_free = rc == 0 && v->g.bubble_violations == 0;
	return 0;
}

static void
verify_json(const tt_net *net, const struct verdict *v, int first)
{
	const tt_cdg *g = &v->g;
	char cb[128];
	size_t i;

	printf("%s", first ? "" : ",\n");
	tt_json_begin(stdout, TT_JSON_SCHEMA_VERIFY);
	printf(", ");
	json_net_fields(stdout, net, "deadlock");
	printf(", \"routes\": %llu, "
	    "\"channels\": %llu, \"dependencies\": %llu, "
	    "\"ring_dependencies_covered_by_bubble\": %llu, "
	    "\"bubble_violations\": %llu, \"vcs\": %d, \"ext_vcs\": %d, "
	    "\"deadlock_free\": %s, \"cycle\": [",
	    (unsigned long long)g->paths, (unsigned long long)g->nchan,
	    (unsigned long long)tt_cdg_edges(g),
	    (unsigned long long)g->ring_edges_dropped,
	    (unsigned long long)g->bubble_violations, net->int_vcs,
	    net->ext_vcs, v->is_free ? "true" : "false");
	for (i = 0; i < v->len; i++) {
		printf("%s", i ? ", " : "");
		tt_json_string(stdout, tt_chan_name(net, v->cycle[i], cb,
		    sizeof(cb)));
	}
	printf("]}");
}

static void
verify_text(const tt_net *net, const struct verdict *v)
{
	const tt_cdg *g = &v->g;
	char title[128], cb[128], cb2[128];
	size_t i;

	printf("%s", net_title(net, title, sizeof(title)));
	if (net->twin)
		printf(", ports %s", net->ports_name);
	printf(", deadlock %s: %llu routes, %llu channels, %llu "
	    "dependencies", tt_deadlock_name(net->deadlock),
	    (unsigned long long)g->paths, (unsigned long long)g->nchan,
	    (unsigned long long)tt_cdg_edges(g));
	if (net->deadlock == TT_DL_BUBBLE)
		printf(" (%llu within rings, covered by the bubble)",
		    (unsigned long long)g->ring_edges_dropped);
	if (!tt_net_is_torus(net))
		printf("; VC classes per link %d\n", net->ext_vcs);
	else
		printf("; internal-link VCs %d\n", net->int_vcs);
	if (v->is_free)
		printf("  deadlock-free: the channel dependency graph is "
		    "acyclic\n");
	if (v->len > 0) {
		printf("  DEADLOCK POSSIBLE: a cycle of %zu channels:\n", v->len);
		for (i = 0; i < v->len; i++)
			printf("    %s\n", tt_chan_name(net, v->cycle[i], cb,
			    sizeof(cb)));
		printf("    -> back to %s\n", tt_chan_name(net, v->cycle[0],
		    cb, sizeof(cb)));
	}
	if (g->bubble_violations > 0)
		printf("  DEADLOCK POSSIBLE: %llu ring entries do not ask "
		    "for the bubble; the first: %s -> %s\n",
		    (unsigned long long)g->bubble_violations,
		    g->first_violation[0] == UINT64_MAX ? "injection" :
		    tt_chan_name(net, g->first_violation[0], cb, sizeof(cb)),
		    tt_chan_name(net, g->first_violation[1], cb2, sizeof(cb2)));
}

/* Verify one network.  Returns 0 free, 1 not, -1 error (printed). */
static int
verify_one(const tt_net *net, const flowarg *fargs, size_t nflows, int json,
    int first)
{
	struct verdict v;

	if (verify_build(net, fargs, nflows, &v) < 0)
		return -1;
	if (json)
		verify_json(net, &v, first);
	else
		verify_text(net, &v);
	free(v.cycle);
	tt_cdg_free(&v.g);
	return v.is_free ? 0 : 1;
}

/* --flow SRC:DST, repeatable: kept as written until the network is known. */
struct flowlist {
	flowarg *args;
	size_t n;
};

enum { OPT_VERIFY_FLOW = OPT_OWN };

static const optdef verify_flags[] = {
	OPT_TITLE("verify:"),
	OPT_VAL("flow", OPT_VERIFY_FLOW, "SRC:DST",
	    "only these routes (repeat): PEs as ids or as node coordinates and "
	    "card, e.g. --flow 0,0,0/1:1,0,1/0"),
	OPT_END
};

static int
verify_take(void *state, const struct optval *v)
{
	struct flowlist *fl = state;

	fl->args[fl->n++].text = v->value;
	return 0;
}

/* Every network of specs, in turn: the worst verdict, or -1. */
static int
verify_all(const tt_netspec *specs, size_t count, const struct flowlist *fl,
    int json)
{
	tt_net net;
	char err[512];
	size_t i;
	int r, worst = 0;

	if (json && count > 1)
		printf("[\n");
	for (i = 0; i < count; i++) {
		if (tt_net_init(&net, &specs[i], err, sizeof(err)) < 0) {
			fprintf(stderr, "ttsim verify: %s\n", err);
			return -1;
		}
		r = verify_one(&net, fl->args, fl->n, json, i == 0);
		tt_net_free(&net);
		if (r < 0)
			return -1;
		if (r > worst)
			worst = r;
	}
	if (json)
		printf("%s\n", count > 1 ? "\n]" : "");
	return worst;
}

int
cmd_verify(int argc, char **argv)
{
	netopts no;
	outopts out = {0, 0};
	struct flowlist fl = {NULL, 0};
	const opt_group groups[] = {
		{netopts_flags, 1, netopts_take, &no},
		{netopts_rule_flags, 0, netopts_take, &no},
		{outopts_json, 0, outopts_take, &out},
		{verify_flags, 0, verify_take, &fl},
		{progress_flags, 0, progress_take, NULL},
	};
	tt_netspec *specs = NULL;
	size_t count = 0;
	int r = -1;

	fl.args = calloc((size_t)argc, sizeof(*fl.args));
	if (fl.args == NULL)
		return TTSIM_EXIT_USAGE;
	netopts_init(&no);
	r = opt_parse("verify", verify_usage, groups, OPT_NGROUPS(groups), argc, argv);
	if (r == OPT_HELP_SHOWN) {
		free(fl.args);
		return TTSIM_EXIT_OK;
	}
	if (r == OPT_PARSED && netopts_finish(&no, "verify") == 0 &&
	    netopts_specs(&no, &specs, &count) == 0)
		r = verify_all(specs, count, &fl, out.json);
	else
		r = -1;
	free(fl.args);
	free(specs);
	if (r < 0)
		return TTSIM_EXIT_USAGE;
	return r ? TTSIM_EXIT_DEADLOCK : TTSIM_EXIT_OK;
}
