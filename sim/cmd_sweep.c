/*
 * ttsim sweep: loads x port configurations x deadlock schemes x topologies,
 * one `ttsim run` per point, streamed as a table, JSON or CSV, optionally
 * plotted (seed 000 §7.3-7.4 are such sweeps).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "twintorus/json.h"
#include "twintorus/outfile.h"
#include "ttsim.h"

#define SWEEP_MAX 256

static void
sweep_usage(FILE *f)
{
	fprintf(f,
"usage: ttsim sweep [FILE.yaml] [--topo LIST] [--ports LIST|all]\n"
"                   [--deadlock LIST] [--loads LIST|FROM:TO:STEP]\n"
"                   [run flags] [--json | --csv] [--plot FILE.png|svg]\n"
"                   [--jobs N]\n"
"\n"
"Runs `ttsim run` for every combination, topology by topology, and reports\n"
"each point as it finishes, then where each curve saturates.  Every\n"
"`ttsim run` flag applies to every point.  The peak reported is the\n"
"highest accepted load among points whose accepted load passed the\n"
"steady-state test.\n"
"The table's load is the --loads value, the load asked for; offered and\n"
"accepted are the flits/cycle/PE generated and delivered in the window\n"
"(CSV and JSON: load, offered_load, accepted_load).  A curve's summary\n"
"gives the lowest offered load that saturated and its steady-state peak.\n"
"\n"
"Exit status: 0 done, 1 some point deadlocked, 2 bad usage or input.\n");
}

static int
split_list(char *s, char **out, int max)
{
	int n = 0;
	char *tok, *save = NULL;

	for (tok = strtok_r(s, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if (n == max)
			return -1;
		out[n++] = tok;
	}
	return n;
}

static int
parse_loads(const char *v, double *loads, int max)
{
	char buf[512], *item[SWEEP_MAX], *c1, *c2;
	double a, b, step, x;
	int n, i, m = 0;

	snprintf(buf, sizeof(buf), "%s", v);
	if ((c1 = strchr(buf, ':')) != NULL) {
		*c1 = '\0';
		c2 = strchr(c1 + 1, ':');
		if (c2 == NULL)
			goto bad;
		*c2 = '\0';
		if (parse_load("sweep", "--loads", buf, &a) < 0 ||
		    parse_load("sweep", "--loads", c1 + 1, &b) < 0 ||
		    parse_load("sweep", "--loads", c2 + 1, &step) < 0)
			return -1;
		if (b < a)
			goto bad;
		for (i = 0; ; i++) {
			x = a + step * i;
			if (x > b + 1e-9)
				break;
			if (m == max)
				goto many;
			loads[m++] = x;
		}
		return m;
	}
	n = split_list(buf, item, SWEEP_MAX);
	if (n < 0)
		goto many;
	if (n == 0)
		goto bad;
	for (i = 0; i < n; i++)
		if (parse_load("sweep", "--loads", item[i], &loads[m++]) < 0)
			return -1;
	return m > 0 ? m : -1;
bad:
	fprintf(stderr, "ttsim sweep: --loads '%s': write a list (0.1,0.2) "
	    "or FROM:TO:STEP with FROM <= TO (0.05:0.5:0.05)\n", v);
	return -1;
many:
	fprintf(stderr, "ttsim sweep: --loads %s: at most %d loads\n", v, max);
	return -1;
}

typedef struct topo {
	tt_netspec spec;
} topo;

static int
parse_topos(const char *v, const tt_netspec *base, topo *out, int max)
{
	char buf[1024], *item[SWEEP_MAX];
	int n, i;

	snprintf(buf, sizeof(buf), "%s", v);
	n = netlist_split(buf, item, max < SWEEP_MAX ? max : SWEEP_MAX);
	if (n <= 0) {
		fprintf(stderr, "ttsim sweep: --topo %s: give topologies such as "
		    "4x4x4,8x8:plain\n", v);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (topo_parse(item[i], base, &out[i].spec, "sweep", "--topo") < 0)
			return -1;
	return n;
}

/* What ttsim sweep is told, and the networks and loads it makes of it. */
struct sweep {
	netopts net;
	simopts sim;
	outopts out;
	const char *topo, *ports, *deadlock, *loads, *plot;
	double load[SWEEP_MAX];
	int nload;
	double refine;          /* --refine STEP; 0: off */
	int jobs;               /* --jobs N */
	char pbuf[1024], *port[SWEEP_MAX];     /* --ports LIST, split */
	int nports, ports_all;
	tt_netspec spec[SWEEP_MAX * 16];
	int nspec;
};

enum {
	OPT_SWEEP_TOPO = OPT_OWN, OPT_SWEEP_PORTS, OPT_SWEEP_DEADLOCK,
	OPT_SWEEP_LOADS, OPT_SWEEP_PLOT, OPT_SWEEP_REFINE
};

#define SWEEP_LOADS_DEFAULT  "0.05:0.5:0.05"
#define SWEEP_REFINE_DEFAULT 0.01
/* The knee's refinement (curve_round()): at most so many loads an interval
 * a round, and so many a curve. */
#define SWEEP_REFINE_ROUND 4
#define SWEEP_REFINE_MAX 10

/* Listed before the network group: here --ports and --deadlock take lists. */
static const optdef sweep_flags[] = {
	OPT_TITLE("sweep:"),
	OPT_VAL("topo", OPT_SWEEP_TOPO, "LIST",
	    "topologies, e.g. 4x4x4,8x8:plain (:plain = one card per node); "
	    "default the --dims or file network"),
	OPT_VAL("ports", OPT_SWEEP_PORTS, "LIST",
	    "e.g. A,D,G, or all (A..J for 3 dimensions); twin only"),
	OPT_VAL("deadlock", OPT_SWEEP_DEADLOCK, "LIST", "e.g. vc,bubble"),
	OPT_VAL("loads", OPT_SWEEP_LOADS, "LIST|FROM:TO:STEP",
	    "e.g. 0.1,0.2,0.3 (default " SWEEP_LOADS_DEFAULT ")"),
	OPT_VALDEF("refine", OPT_SWEEP_REFINE, "STEP",
	    "when a curve saturates, add loads across its knee, then beside "
	    "its steady-state peak, up to " OPT_STR(SWEEP_REFINE_ROUND)
	    " evenly spaced at once, until they are at most STEP apart (at "
	    "most " OPT_STR(SWEEP_REFINE_MAX) " a curve); 0: never",
	    SWEEP_REFINE_DEFAULT),
	OPT_VAL("plot", OPT_SWEEP_PLOT, "FILE",
	    "also draw the curves with gnuplot (.png or .svg)"),
	OPT_END
};

static int
sweep_take(void *state, const struct optval *v)
{
	struct sweep *sw = state;
	const char **slot[] = {&sw->topo, &sw->ports, &sw->deadlock,
	    &sw->loads, &sw->plot};

	if (v->id == OPT_SWEEP_REFINE)
		return opt_real(v->cmd, v->flag, v->value, 0, 1,
		    "a load step from 0 (off) to 1", &sw->refine);
	*slot[v->id - OPT_SWEEP_TOPO] = v->value;
	return 0;
}

static int
sweep_parse(struct sweep *sw, int argc, char **argv)
{
	const opt_group groups[] = {
		{sweep_flags, 0, sweep_take, sw},
		{netopts_flags, 1, netopts_take, &sw->net},
		{netopts_rule_flags, 0, netopts_take, &sw->net},
		{outopts_json_csv, 0, outopts_take, &sw->out},
		{simopts_traffic_flags, 0, simopts_take, &sw->sim},
		{simopts_model_flags, 0, simopts_take, &sw->sim},
		{modelopts_flags, 0, modelopts_take, &sw->sim},
		{simopts_window_flags, 0, simopts_take, &sw->sim},
		{jobs_flags, 0, jobs_take, &sw->jobs},
		{progress_flags, 0, progress_take, NULL},
	};
	size_t len;
	int r;

	netopts_init(&sw->net);
	simopts_init(&sw->sim);
	sw->sim.cmd = "sweep";
	sw->loads = SWEEP_LOADS_DEFAULT;
	sw->refine = SWEEP_REFINE_DEFAULT;
	sw->jobs = jobs_default();
	r = opt_parse("sweep", sweep_usage, groups, OPT_NGROUPS(groups), argc, argv);
	if (r != OPT_PARSED)
		return r;
	if (netopts_finish(&sw->net, "sweep") < 0)
		return -1;
	if (sw->out.json && sw->out.csv) {
		fprintf(stderr, "ttsim sweep: --json and --csv do not go together\n");
		return -1;
	}
	len = sw->plot != NULL ? strlen(sw->plot) : 0;
	if (sw->plot != NULL && (len < 5 ||
	    (strcmp(sw->plot + len - 4, ".png") != 0 &&
	    strcmp(sw->plot + len - 4, ".svg") != 0))) {
		fprintf(stderr, "ttsim sweep: --plot %s: the file must end in "
		    ".png or .svg\n", sw->plot);
		return -1;
	}
	if (simopts_resolve(&sw->sim, &sw->net.cfg, NULL) < 0)
		return -1;
	sw->nload = parse_loads(sw->loads, sw->load, SWEEP_MAX);
	return sw->nload < 0 ? -1 : OPT_PARSED;
}

/* --deadlock LIST: the schemes, or the network's one. */
static int
sweep_schemes(const struct sweep *sw, enum tt_deadlock *dls)
{
	char buf[128], *item[8];
	int n, i;

	dls[0] = sw->net.spec.deadlock;
	if (sw->deadlock == NULL)
		return 1;
	snprintf(buf, sizeof(buf), "%s", sw->deadlock);
	n = split_list(buf, item, 3);
	for (i = 0; i < n; i++)
		if (tt_deadlock_parse(item[i], &dls[i]) < 0) {
			fprintf(stderr, "ttsim sweep: --deadlock: '%s' is not a "
			    "scheme: use vc, bubble or none\n", item[i]);
			return -1;
		}
	if (n <= 0) {
		fprintf(stderr, "ttsim sweep: --deadlock %s: give up to three of "
		    "vc,bubble,none\n", sw->deadlock);
		return -1;
	}
	return n;
}

/* The port configurations of --ports on the topology base (all of them
 * for --ports all); base alone when it is plain or --ports is not given. */
/* --ports LIST or all, checked before any network is built. */
static int
sweep_port_list(struct sweep *sw)
{
	if (sw->ports == NULL)
		return 0;
	if (sw->net.plain_flag) {
		fprintf(stderr, "ttsim sweep: --ports and --plain do not go "
		    "together: a plain torus has no port configuration\n");
		return -1;
	}
	snprintf(sw->pbuf, sizeof(sw->pbuf), "%s", sw->ports);
	if (strcmp(sw->pbuf, "all") == 0) {
		sw->ports_all = 1;
		return 0;
	}
	sw->nports = split_list(sw->pbuf, sw->port, SWEEP_MAX);
	if (sw->nports <= 0) {
		fprintf(stderr, "ttsim sweep: --ports %s: give a list such as "
		    "A,D,G or all\n", sw->ports);
		return -1;
	}
	return 0;
}

/* The port configurations of --ports on the topology base (all of them
 * for --ports all); base alone when it is plain or --ports is not given. */
static int
sweep_ports(const struct sweep *sw, const tt_netspec *base,
    tt_netspec **list, size_t *nl)
{
	char err[256];
	netopts all;
	int i;

	if (sw->ports_all && base->twin) {
		all = sw->net;
		all.spec = *base;
		all.ports_all = 1;
		return netopts_specs(&all, list, nl);
	}
	*nl = sw->nports > 0 && base->twin ? (size_t)sw->nports : 1;
	if ((*list = malloc(sizeof(**list) * *nl)) == NULL)
		return -1;
	(*list)[0] = *base;
	for (i = 0; i < sw->nports && base->twin; i++) {
		(*list)[i] = *base;
		if (tt_netspec_set_ports(&(*list)[i], sw->port[i], err,
		    sizeof(err)) < 0) {
			fprintf(stderr, "ttsim sweep: --ports %s: %s\n",
			    sw->port[i], err);
			free(*list);
			return -1;
		}
	}
	return 0;
}

/* Add the networks of one topology: its port configurations x schemes. */
static int
sweep_add(struct sweep *sw, const tt_netspec *base,
    const enum tt_deadlock *dls, int ndl)
{
	const int max = (int)(sizeof(sw->spec) / sizeof(sw->spec[0]));
	tt_netspec *list;
	size_t nl, k;
	char err[256];
	int d;

	if (sweep_ports(sw, base, &list, &nl) < 0)
		return -1;
	for (k = 0; k < nl; k++)
		for (d = 0; d < ndl; d++) {
			tt_netspec *sp = &sw->spec[sw->nspec];

			if (sw->nspec == max) {
				fprintf(stderr, "ttsim sweep: more than %d "
				    "networks; split the sweep\n", max);
				free(list);
				return -1;
			}
			*sp = list[k];
			sp->deadlock = dls[d];
			if (tt_netspec_check(sp, err, sizeof(err)) < 0) {
				fprintf(stderr, "ttsim sweep: %s\n", err);
				free(list);
				return -1;
			}
			sw->nspec++;
		}
	free(list);
	return 0;
}

/* Topologies x port configurations x schemes, each checked now so that
 * nothing stops the sweep half-way. */
static int
sweep_networks(struct sweep *sw)
{
	static topo topos[SWEEP_MAX];
	enum tt_deadlock dls[4];
	double most = sw->load[0];
	int ntopo = 1, ndl, t, i;

	if (sw->topo != NULL) {
		ntopo = parse_topos(sw->topo, &sw->net.spec, topos, SWEEP_MAX);
		if (ntopo < 0)
			return -1;
	} else {
		topos[0].spec = sw->net.spec;
	}
	if ((ndl = sweep_schemes(sw, dls)) < 0 || sweep_port_list(sw) < 0)
		return -1;
	for (t = 0; t < ntopo; t++)
		if (sweep_add(sw, &topos[t].spec, dls, ndl) < 0)
			return -1;
	/* the highest load: one above the packet (a packet a cycle) is
	 * refused before any point runs */
	for (i = 1; i < sw->nload; i++)
		if (sw->load[i] > most)
			most = sw->load[i];
	for (i = 0; i < sw->nspec; i++)
		if (simpoint_check(&sw->sim, &sw->spec[i], most) < 0)
			return -1;
	simpoint_warn_load(&sw->sim, "--loads up to", most);
	return 0;
}

static void
sweep_header(const struct sweep *sw)
{
	if (sw->out.json)
		printf("[\n");
	else if (sw->out.csv)
		simpoint_csv_header(stdout);
	else
		simpoint_table_header(stdout);
}

enum { PT_READY, PT_RUNNING, PT_DONE };

/*
 * The points of one curve: the grid's loads, then its knee's, a round at
 * a time (curve_round()), each round added once every point before it
 * has finished.  Results sit at the point's index whatever order the
 * points finish in, and wait there to be printed in that order.
 */
struct curve {
	double load[SWEEP_MAX], accepted[SWEEP_MAX];
	int steady[SWEEP_MAX], sat[SWEEP_MAX];
	int state[SWEEP_MAX];
	char *text[SWEEP_MAX], *csv[SWEEP_MAX];  /* its lines, until printed */
	int n, saturated, deadlocked;
	int added;              /* points added to refine the knee */
	int closed;             /* nothing more to add */
	double sat_load;
};

/* A point's result as its task sends it: this, then its lines for
 * standard output and for the plot's CSV. */
struct pointsum {
	double offered, accepted;
	int steady, sat, saturated, deadlock;
	size_t textlen, csvlen;
};

/* Every curve of the sweep, and what is printed so far. */
struct sched {
	struct sweep *sw;
	struct curve *cv;
	FILE *csvf;
	int inpoint;            /* progress inside points (a point at a time) */
	int heavy_first;        /* more than one job: the heaviest point first */
	int ec, ep;             /* the next point to print: curve, point */
	int done, printed, deadlocked;
	double total;
	char label[64];
};

static void
show_progress(void *ctx, double done)
{
	progress_show(ctx, done);
}

/* The task of point id (curve * SWEEP_MAX + point): run it, write its
 * pointsum and lines to out. */
static int
point_task(void *ctx, int id, FILE *out)
{
	struct sched *s = ctx;
	const struct sweep *sw = s->sw;
	struct curve *c = &s->cv[id / SWEEP_MAX];
	struct pointsum ps;
	char *text = NULL, *csv = NULL;
	size_t tl = 0, cl = 0;
	FILE *tf, *cf;
	simpoint pt;
	int rc = -1;

	if (simpoint_run(&sw->sim, &sw->spec[id / SWEEP_MAX],
	    c->load[id % SWEEP_MAX], &pt, s->inpoint ? show_progress : NULL,
	    s->label, s->done / s->total, 1.0 / s->total) < 0)
		return -1;
	tf = open_memstream(&text, &tl);
	cf = open_memstream(&csv, &cl);
	if (tf != NULL && cf != NULL) {
		if (sw->out.json)
			simpoint_json(tf, &pt, TT_JSON_SCHEMA_SWEEP);
		else if (sw->out.csv)
			simpoint_csv(tf, &pt);
		else
			simpoint_table_row(tf, &pt);
		if (s->csvf != NULL)
			simpoint_csv(cf, &pt);
	}
	if (tf != NULL && fclose(tf) == 0 && cf != NULL && fclose(cf) == 0) {
		memset(&ps, 0, sizeof(ps));
		ps.offered = pt.offered;
		ps.accepted = pt.accepted;
		ps.steady = pt.throughput_converged && !pt.deadlock;
		ps.sat = pt.saturated || pt.deadlock;
		ps.saturated = pt.saturated;
		ps.deadlock = pt.deadlock;
		ps.textlen = tl;
		ps.csvlen = cl;
		if (fwrite(&ps, sizeof(ps), 1, out) == 1 &&
		    fwrite(text, 1, tl, out) == tl && fwrite(csv, 1, cl, out) == cl)
			rc = 0;
	} else if (cf != NULL && tf == NULL) {
		fclose(cf);
	}
	if (rc < 0)
		fprintf(stderr, "ttsim sweep: out of memory\n");
	free(text);
	free(csv);
	simpoint_free(&pt);
	return rc;
}

static char *
dup_bytes(const char *p, size_t n)
{
	char *d = malloc(n + 1);

	if (d != NULL) {
		memcpy(d, p, n);
		d[n] = '\0';
	}
	return d;
}

/* Point id's result into its curve; -1 after a message. */
static int
point_record(struct sched *s, int id, const char *buf, size_t len)
{
	struct curve *c = &s->cv[id / SWEEP_MAX];
	int i = id % SWEEP_MAX;
	struct pointsum ps;

	if (len < sizeof(ps))
		goto bad;
	memcpy(&ps, buf, sizeof(ps));
	if (ps.textlen > len - sizeof(ps) ||
	    ps.csvlen != len - sizeof(ps) - ps.textlen)
		goto bad;
	c->text[i] = dup_bytes(buf + sizeof(ps), ps.textlen);
	c->csv[i] = dup_bytes(buf + sizeof(ps) + ps.textlen, ps.csvlen);
	if (c->text[i] == NULL || c->csv[i] == NULL) {
		fprintf(stderr, "ttsim sweep: out of memory\n");
		return -1;
	}
	c->accepted[i] = ps.accepted;
	c->steady[i] = ps.steady;
	c->sat[i] = ps.sat;
	if (ps.saturated) {
		c->saturated = 1;
		if (c->sat_load < 0 || ps.offered < c->sat_load)
			c->sat_load = ps.offered;
	}
	c->deadlocked |= ps.deadlock;
	c->state[i] = PT_DONE;
	s->done++;
	return 0;
bad:
	fprintf(stderr, "ttsim sweep: a worker's result is cut short\n");
	return -1;
}

/* The point with the highest steady accepted load, -1 if none. */
static int
curve_peak(const struct curve *c)
{
	int i, best = -1;

	for (i = 0; i < c->n; i++)
		if (c->steady[i] && (best < 0 || c->accepted[i] > c->accepted[best]))
			best = i;
	return best;
}

/* The load run nearest below (dir -1) or above (dir +1) the point i, or
 * -1 when there is none. */
static double
curve_beside(const struct curve *c, int i, int dir)
{
	double best = -1;
	int j;

	for (j = 0; j < c->n; j++)
		if ((c->load[j] - c->load[i]) * dir > 1e-9 && (best < 0 ||
		    (c->load[j] - best) * dir < 0))
			best = c->load[j];
	return best;
}

/*
 * The knee's refinement, a round at a time.  Once every point of a
 * saturating curve has finished, the curve gets a round of loads, all at
 * once:
 *
 *   - across its knee, the interval between the highest load that did not
 *     saturate and the lowest above it that did, while that is wider than
 *     --refine;
 *   - else beside its steady-state peak: each of the two intervals between
 *     the peak's load and the load run next to it, below and above, that
 *     is wider than --refine.
 *
 * Each such interval is cut into equal parts, as few as make each at most
 * --refine wide but no more than SWEEP_REFINE_ROUND + 1 (so at most
 * SWEEP_REFINE_ROUND loads an interval a round); a wider interval takes
 * more rounds.  The knee goes first because the peak moves to it: a
 * coarse grid's peak can be a point past saturation that happened to
 * pass the steady-state test.  On the default grid (0.05 apart) and
 * --refine 0.01 a knee is one round of 4 loads, the bracket then 0.01
 * wide; at most SWEEP_REFINE_MAX loads a curve (a round that would go
 * past it cuts its intervals into fewer parts), and the refinement stops
 * when no interval is wider than --refine.
 *
 * A round's loads follow from the curve's results alone, never from
 * --jobs or the order the points finish in, so the output is the same
 * bytes whatever --jobs; and its points run side by side (halving the
 * knee one load at a time left every other core idle).
 */
/* The loads cutting [a, b] into parts at most sw->refine wide (at most
 * SWEEP_REFINE_ROUND + 1 parts, and at most room - *n + 1), appended to
 * out[*n]. */
static void
refine_split(const struct sweep *sw, double a, double b, double *out, int *n,
    int room)
{
	double w = b - a, need;
	int parts, j;

	if (w <= sw->refine + 1e-9)
		return;
	/* 0.05 / 0.01 is 5.000000000000001: five parts, not six */
	need = (w - 1e-9) / sw->refine + 1;
	parts = need < SWEEP_REFINE_ROUND + 1 ? (int)need : SWEEP_REFINE_ROUND + 1;
	if (parts > room - *n + 1)
		parts = room - *n + 1;
	for (j = 1; j < parts; j++)
		out[(*n)++] = a + w * j / parts;
}

/* A curve's next round of loads into out (at most room): how many; 0 when
 * its knee and peak are as fine as --refine asks. */
static int
curve_round(const struct sweep *sw, const struct curve *c, double *out,
    int room)
{
	double lo = -1, hi = -1, side;
	int i, n = 0;

	for (i = 0; i < c->n; i++)
		if (!c->sat[i] && c->load[i] > lo)
			lo = c->load[i];
	for (i = 0; i < c->n; i++)
		if (c->sat[i] && c->load[i] > lo && (hi < 0 || c->load[i] < hi))
			hi = c->load[i];
	if (lo >= 0 && hi >= 0 && hi - lo > sw->refine + 1e-9) {
		refine_split(sw, lo, hi, out, &n, room);
		return n;
	}
	if ((i = curve_peak(c)) < 0)
		return 0;
	if ((side = curve_beside(c, i, -1)) >= 0)
		refine_split(sw, side, c->load[i], out, &n, room);
	if ((side = curve_beside(c, i, 1)) >= 0)
		refine_split(sw, c->load[i], side, out, &n, room);
	return n;
}

/*
 * Once every point of a curve has finished: a saturating curve's next
 * round (curve_round()) added, or the curve closed.  A grid is only as
 * good as its step near the knee, and a peak read off a coarse one is
 * wherever the grid happened to fall.
 */
static void
curve_advance(struct sched *s, struct curve *c)
{
	const struct sweep *sw = s->sw;
	double next[SWEEP_REFINE_MAX];
	int i, n, room;

	if (c->closed)
		return;
	for (i = 0; i < c->n; i++)
		if (c->state[i] != PT_DONE)
			return;
	room = SWEEP_REFINE_MAX - c->added;
	if (room > SWEEP_MAX - c->n)
		room = SWEEP_MAX - c->n;
	if (sw->refine > 0 && c->saturated && sw->nload > 1 && room > 0 &&
	    (n = curve_round(sw, c, next, room)) > 0) {
		for (i = 0; i < n; i++) {
			c->load[c->n] = next[i];
			c->state[c->n++] = PT_READY;
		}
		c->added += n;
		s->total += n;
		return;
	}
	c->closed = 1;
}

/* Curve c's refinement point ready to start, -1 if none: the heaviest
 * (highest load) with more than one job, else the first. */
static int
curve_ready(const struct sched *s, const struct curve *c)
{
	int i, best = -1;

	for (i = s->sw->nload; i < c->n; i++)
		if (c->state[i] == PT_READY && (best < 0 ||
		    (s->heavy_first && c->load[i] > c->load[best])))
			best = i;
	return best;
}

/*
 * How soon grid point i of curve c should start with more than one job,
 * 0 soonest: 0 once a point of the curve saturated (a round waits for the
 * rest of its grid); 1 its highest load while that is not known (the
 * point likeliest to saturate tells first); 2 its other points meanwhile;
 * 3 once its highest load finished without saturating (no round likely
 * follows: these fill the jobs that a round's last point leaves idle).
 */
static int
grid_rank(const struct sched *s, const struct curve *c, int i)
{
	int j, top = 0;

	if (c->saturated)
		return 0;
	for (j = 1; j < s->sw->nload; j++)
		if (c->load[j] > c->load[top])
			top = j;
	if (c->state[top] == PT_DONE)
		return 3;
	return i == top ? 1 : 2;
}

/* The grid point ready to start: its id, or -1 if none.  One job: the
 * first, in the order printed.  More: by grid_rank(), then the earliest
 * curve, the heaviest point. */
static int
sched_grid(const struct sched *s)
{
	const struct curve *c;
	int k, i, r, best = -1, brank = 0;

	for (k = s->ec; k < s->sw->nspec; k++) {
		c = &s->cv[k];
		for (i = 0; i < s->sw->nload; i++) {
			if (c->state[i] != PT_READY)
				continue;
			if (!s->heavy_first)
				return k * SWEEP_MAX + i;
			r = grid_rank(s, c, i);
			if (best < 0 || r < brank || (r == brank &&
			    best / SWEEP_MAX == k &&
			    c->load[i] > c->load[best % SWEEP_MAX])) {
				best = k * SWEEP_MAX + i;
				brank = r;
			}
		}
	}
	return best;
}

/*
 * The next point to start: 1 and its id, or 0 when every point is running
 * or done.  The order changes nothing printed, only how busy the jobs
 * stay: refinement first, curve by curve (a curve's next round waits for
 * it, while a grid point can run any time), then the grids.  With more
 * than one job the heaviest point first (a point's time grows with its
 * load, and more past saturation), so that the last to finish, which a
 * round or the sweep's end waits for, is a short one; and the grids of
 * curves that saturate before those of curves that do not, which are
 * left to fill the jobs a round leaves idle (sched_grid()).
 */
static int
sched_next(struct sched *s, int *id)
{
	int k, i;

	for (k = s->ec; k < s->sw->nspec; k++)
		curve_advance(s, &s->cv[k]);
	for (k = s->ec; k < s->sw->nspec; k++)
		if ((i = curve_ready(s, &s->cv[k])) >= 0) {
			*id = k * SWEEP_MAX + i;
			return 1;
		}
	if ((i = sched_grid(s)) < 0)
		return 0;
	*id = i;
	return 1;
}

static void
curve_summary(const struct curve *c)
{
	int best = curve_peak(c);

	if (c->sat_load > 0)
		printf("  saturates at %.3f flits/cycle/PE offered; ",
		    c->sat_load);
	else
		printf("  not saturated up to the highest load; ");
	if (best >= 0)
		printf("steady-state peak accepted %.4f (at load %.4g)\n",
		    c->accepted[best], c->load[best]);
	else
		printf("no point's accepted load reached a steady state\n");
}

/* Print what has finished, in the order of a sweep on one core: each
 * curve's points, then (as a table) where it saturates. */
static void
sched_print(struct sched *s)
{
	const struct sweep *sw = s->sw;
	struct curve *c;

	while (s->ec < sw->nspec) {
		c = &s->cv[s->ec];
		curve_advance(s, c);
		for (; s->ep < c->n && c->state[s->ep] == PT_DONE; s->ep++) {
			progress_hide();
			if (sw->out.json)
				printf("%s  ", s->printed == 0 ? "" : ",\n");
			fputs(c->text[s->ep], stdout);
			fflush(stdout);
			if (s->csvf != NULL)
				fputs(c->csv[s->ep], s->csvf);
			free(c->text[s->ep]);
			free(c->csv[s->ep]);
			c->text[s->ep] = c->csv[s->ep] = NULL;
			s->printed++;
		}
		if (s->ep < c->n || !c->closed)
			return;
		if (!sw->out.json && !sw->out.csv && c->n > 1)
			curve_summary(c);
		s->deadlocked |= c->deadlocked;
		s->ec++;
		s->ep = 0;
	}
}

/* Points done of the total, on a terminal's stderr. */
static void
sched_progress(struct sched *s)
{
	snprintf(s->label, sizeof(s->label), "ttsim sweep, %d/%.0f points",
	    s->done, s->total);
	if (!s->inpoint)
		progress_show(s->label, s->done / s->total);
}

/* The runner's side of the sweep (sim/jobs.c): a task is a point. */

/* The next point ready, marked running. */
static int
point_next(void *ctx, int *id)
{
	struct sched *s = ctx;

	if (!sched_next(s, id))
		return 0;
	s->cv[*id / SWEEP_MAX].state[*id % SWEEP_MAX] = PT_RUNNING;
	return 1;
}

/* A point's result (point_task()'s) into its curve. */
static int
point_take(void *ctx, int id, const char *buf, size_t len, int where)
{
	struct sched *s = ctx;

	(void)where;
	if (id / SWEEP_MAX >= s->sw->nspec ||
	    id % SWEEP_MAX >= s->cv[id / SWEEP_MAX].n) {
		fprintf(stderr, "ttsim sweep: a result for no point\n");
		return -1;
	}
	if (point_record(s, id, buf, len) < 0)
		return -1;
	sched_progress(s);
	return 0;
}

/* What has finished printed in order; 1 once every curve is. */
static int
sched_after(void *ctx)
{
	struct sched *s = ctx;

	sched_print(s);
	return s->ec == s->sw->nspec;
}

/* Run every point; the curves also go to csvf for --plot.  -1 on an
 * error, else whether a point deadlocked. */
static int
sweep_run(struct sweep *sw, FILE *csvf)
{
	struct sched s;
	runner rn = {
		.cmd = "sweep", .what = "a point", .see_why = "run it alone",
		.ctx = &s, .njobs = sw->jobs, .next = point_next,
		.run = point_task, .take = point_take, .here = NULL,
		.after = sched_after, .ordered = 1,
		.whole = &sw->sim.whole, .alone = &s.inpoint,
	};
	int i, k, rc;

	memset(&s, 0, sizeof(s));
	s.sw = sw;
	s.csvf = csvf;
	s.total = (double)sw->nspec * sw->nload;
	s.heavy_first = sw->jobs > 1;
	if ((s.cv = calloc((size_t)sw->nspec, sizeof(*s.cv))) == NULL) {
		fprintf(stderr, "ttsim sweep: out of memory\n");
		return -1;
	}
	for (k = 0; k < sw->nspec; k++) {
		s.cv[k].sat_load = -1;
		s.cv[k].n = sw->nload;
		for (i = 0; i < sw->nload; i++)
			s.cv[k].load[i] = sw->load[i];
	}
	sched_progress(&s);
	sweep_header(sw);
	rc = runner_run(&rn);
	progress_clear();
	if (rc == 0 && sw->out.json)
		printf("\n]\n");
	for (k = 0; k < sw->nspec; k++)
		for (i = 0; i < s.cv[k].n; i++) {
			free(s.cv[k].text[i]);
			free(s.cv[k].csv[i]);
		}
	free(s.cv);
	return rc < 0 ? -1 : s.deadlocked;
}

int
cmd_sweep(int argc, char **argv)
{
	static struct sweep sw;
	char csvpath[PATH_MAX];
	FILE *csvf = NULL;
	int r, fd;

	memset(&sw, 0, sizeof(sw));
	r = sweep_parse(&sw, argc, argv);
	if (r != OPT_PARSED)
		return r == OPT_HELP_SHOWN ? TTSIM_EXIT_OK : TTSIM_EXIT_USAGE;
	if (sweep_networks(&sw) < 0)
		return TTSIM_EXIT_USAGE;
	if (sw.plot != NULL) {
		if (plot_ready("sweep", sw.plot) < 0)
			return TTSIM_EXIT_USAGE;
		if ((fd = tt_outfile_temp(csvpath, sizeof(csvpath), "sweep",
		    ".csv")) < 0 || (csvf = fdopen(fd, "w")) == NULL) {
			perror("ttsim sweep: temporary file for the plot");
			if (fd >= 0) {
				close(fd);
				tt_outfile_temp_remove(csvpath);
			}
			return TTSIM_EXIT_USAGE;
		}
		simpoint_csv_header(csvf);
	}
	r = sweep_run(&sw, csvf);
	if (csvf != NULL) {
		fclose(csvf);
		if (r >= 0 && plot_csv(csvpath, sw.plot, NULL) != 0)
			r = -1;
		tt_outfile_temp_remove(csvpath);
	}
	if (r < 0)
		return TTSIM_EXIT_USAGE;
	return r ? TTSIM_EXIT_DEADLOCK : TTSIM_EXIT_OK;
}
