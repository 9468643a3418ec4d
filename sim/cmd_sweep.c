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
	    "when a curve saturates, add loads half way between its "
	    "steady-state peak and the loads beside it until they are at most "
	    "STEP apart; 0: never", SWEEP_REFINE_DEFAULT),
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
 * The points of one curve: the grid's loads, then its knee's (curve_next),
 * each added once every point before it has finished.  Results sit at the
 * point's index whatever order the points finish in, and wait there to be
 * printed in that order.
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
 * The load half way across the knee (between the highest load that did
 * not saturate and the lowest above it that did), or beside the
 * steady-state peak, where the loads run are more than sw->refine apart;
 * -1 when there is none.
 */
static double
curve_next(const struct sweep *sw, const struct curve *c)
{
	double lo = -1, hi = -1, side;
	int i, dir;

	for (i = 0; i < c->n; i++)
		if (!c->sat[i] && c->load[i] > lo)
			lo = c->load[i];
	for (i = 0; i < c->n; i++)
		if (c->sat[i] && c->load[i] > lo && (hi < 0 || c->load[i] < hi))
			hi = c->load[i];
	if (lo >= 0 && hi >= 0 && hi - lo > sw->refine + 1e-9)
		return (lo + hi) / 2;
	if ((i = curve_peak(c)) < 0)
		return -1;
	for (dir = -1; dir <= 1; dir += 2) {
		side = curve_beside(c, i, dir);
		if (side >= 0 && (side - c->load[i]) * dir > sw->refine + 1e-9)
			return (c->load[i] + side) / 2;
	}
	return -1;
}

/*
 * Once every point of a curve has finished: a saturating curve's knee and
 * peak refined, curve_next()'s load added (at most SWEEP_REFINE_MAX more
 * points a curve), or the curve closed.  A grid is only as good as its
 * step near the knee, and a peak read off a coarse one is wherever the
 * grid happened to fall.
 */
#define SWEEP_REFINE_MAX 10
static void
curve_advance(struct sched *s, struct curve *c)
{
	const struct sweep *sw = s->sw;
	double next;
	int i;

	if (c->closed)
		return;
	for (i = 0; i < c->n; i++)
		if (c->state[i] != PT_DONE)
			return;
	if (sw->refine > 0 && c->saturated && sw->nload > 1 &&
	    c->added < SWEEP_REFINE_MAX && c->n < SWEEP_MAX &&
	    (next = curve_next(sw, c)) >= 0) {
		c->load[c->n] = next;
		c->state[c->n++] = PT_READY;
		c->added++;
		s->total += 1;
		return;
	}
	c->closed = 1;
}

/* The next point to start, the earliest curve's first: 1 and its id, or 0
 * when every point is running or done. */
static int
sched_next(struct sched *s, int *id)
{
	struct curve *c;
	int k, i;

	for (k = s->ec; k < s->sw->nspec; k++) {
		c = &s->cv[k];
		curve_advance(s, c);
		for (i = 0; i < c->n; i++)
			if (c->state[i] == PT_READY) {
				*id = k * SWEEP_MAX + i;
				return 1;
			}
	}
	return 0;
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

/*
 * A point failed: as on one core, the points before it are printed.  The
 * ones still running are awaited (one of them may come before it) and
 * what finished is printed up to the failed point, which is never done.
 */
static void
sched_after_failure(struct sched *s, jobs *j)
{
	char *buf;
	size_t len;
	int id;

	while (jobs_busy(j) > 0)
		if (jobs_wait(j, &id, &buf, &len) == 0) {
			if (point_record(s, id, buf, len) < 0) {
				free(buf);
				return;
			}
			free(buf);
		}
	sched_print(s);
}

/* Every point on njobs workers (this process for one); -1 after a
 * message. */
static int
sched_jobs(struct sched *s, int njobs)
{
	char *buf;
	size_t len;
	jobs *j;
	int id, rc = -1;

	if (jobs_open(&j, njobs, "sweep") < 0)
		return -1;
	s->inpoint = njobs == 1;
	for (;;) {
		while (jobs_idle(j) > 0 && sched_next(s, &id)) {
			s->cv[id / SWEEP_MAX].state[id % SWEEP_MAX] = PT_RUNNING;
			if (jobs_start(j, point_task, s, id) < 0)
				goto out;
		}
		sched_print(s);
		if (s->ec == s->sw->nspec)
			break;
		if (jobs_wait(j, &id, &buf, &len) < 0) {
			sched_after_failure(s, j);
			goto out;
		}
		if (point_record(s, id, buf, len) < 0) {
			free(buf);
			goto out;
		}
		free(buf);
		sched_progress(s);
	}
	rc = 0;
out:
	jobs_close(j);
	return rc;
}

/* Run point id here into a buffer (a --jobs 1 worker's result). */
static int
point_here(struct sched *s, int id, char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);
	int rc;

	if (f == NULL) {
		fprintf(stderr, "ttsim sweep: out of memory\n");
		return -1;
	}
	rc = point_task(s, id, f);
	if (fclose(f) != 0)
		rc = -1;
	if (rc < 0) {
		free(*buf);
		*buf = NULL;
	}
	return rc;
}

/* Under MPI, fewer points than ranks: each split over the ranks, as ttsim
 * run splits one; every rank gets the same results. */
static int
mpi_split(struct sched *s, const int *ids, int n)
{
	char *buf;
	size_t len;
	int k, rc;

	s->inpoint = 1;
	for (k = 0; k < n; k++) {
		if (point_here(s, ids[k], &buf, &len) < 0)
			return -1;
		rc = point_record(s, ids[k], buf, len);
		free(buf);
		if (rc < 0)
			return -1;
		sched_progress(s);
	}
	return 0;
}

/* The records (int id, size_t length, the point's result) of one rank's
 * points into the curves. */
static int
mpi_records(struct sched *s, const char *p, uint64_t len)
{
	size_t hdr = sizeof(int) + sizeof(size_t), l;
	int id;

	while (len > 0) {
		if (len < hdr)
			return -1;
		memcpy(&id, p, sizeof(id));
		memcpy(&l, p + sizeof(id), sizeof(l));
		if (l > len - hdr || id < 0 || id / SWEEP_MAX >= s->sw->nspec ||
		    point_record(s, id, p + hdr, l) < 0)
			return -1;
		p += hdr + l;
		len -= hdr + l;
	}
	return 0;
}

/* Every rank's records to every rank, into the curves. */
static int
mpi_exchange(struct sched *s, const tt_sim_comm *cm, const char *mine,
    size_t ml)
{
	uint64_t *cnt, off = 0;
	char *all;
	int r, rc = 0;

	if (jobs_allgather(mine, ml, &all, &cnt) < 0)
		return -1;
	for (r = 0; r < cm->nranks && rc == 0; r++) {
		rc = mpi_records(s, all + off, cnt[r]);
		off += cnt[r];
	}
	free(all);
	free(cnt);
	if (rc < 0)
		fprintf(stderr, "ttsim sweep: a rank's results are cut short\n");
	return rc;
}

/*
 * Under MPI, at least as many points as ranks: the k-th on rank k mod
 * ranks, whole, then every result to every rank (each needs the curves
 * to refine them; rank 0 prints).
 */
static int
mpi_whole(struct sched *s, const int *ids, int n)
{
	const tt_sim_comm *cm = ttsim_comm();
	char *mine = NULL, *buf;
	size_t ml = 0, len;
	uint64_t bad = 0;
	FILE *f;
	int k, rc;

	s->inpoint = 0;
	s->sw->sim.whole = 1;
	if ((f = open_memstream(&mine, &ml)) == NULL)
		bad = (uint64_t)cm->rank + 1;
	for (k = cm->rank; k < n && bad == 0; k += cm->nranks) {
		if (point_here(s, ids[k], &buf, &len) < 0) {
			bad = (uint64_t)cm->rank + 1;
			break;
		}
		if (fwrite(&ids[k], sizeof(int), 1, f) != 1 ||
		    fwrite(&len, sizeof(len), 1, f) != 1 ||
		    fwrite(buf, 1, len, f) != len)
			bad = (uint64_t)cm->rank + 1;
		free(buf);
	}
	if (f != NULL && fclose(f) != 0)
		bad = (uint64_t)cm->rank + 1;
	s->sw->sim.whole = 0;
	/* all fail together, or the others would wait for this one */
	rc = 0;
	cm->allreduce(cm->ctx, &bad, 1, TT_SIM_MAX);
	if (bad != 0) {
		if (bad > 1)
			fprintf(stderr, "ttsim sweep: a point failed on rank %d "
			    "(only rank 0 prints: run it alone to see why)\n",
			    (int)bad - 1);
		rc = -1;
	} else {
		rc = mpi_exchange(s, cm, mine, ml);
	}
	free(mine);
	return rc;
}

/*
 * Under MPI: every rank computes every curve's refinement, so each runs
 * the same schedule: the points ready now, whole points per rank when
 * there are at least as many as ranks, else each split over the ranks.
 */
static int
sched_mpi(struct sched *s)
{
	const tt_sim_comm *cm = ttsim_comm();
	int *ids = NULL, *nids, n, cap = 0, id, rc;

	for (;;) {
		for (n = 0; sched_next(s, &id); n++) {
			if (n == cap) {
				cap = cap * 2 + 64;
				if ((nids = realloc(ids, sizeof(*ids) *
				    (size_t)cap)) == NULL) {
					fprintf(stderr, "ttsim sweep: out of "
					    "memory\n");
					free(ids);
					return -1;
				}
				ids = nids;
			}
			ids[n] = id;
			s->cv[id / SWEEP_MAX].state[id % SWEEP_MAX] = PT_RUNNING;
		}
		sched_print(s);
		if (n == 0) {
			rc = 0;
			break;
		}
		rc = n >= cm->nranks ? mpi_whole(s, ids, n) :
		    mpi_split(s, ids, n);
		if (rc < 0)
			break;
		sched_progress(s);
	}
	free(ids);
	return rc;
}

/* Run every point; the curves also go to csvf for --plot.  -1 on an
 * error, else whether a point deadlocked. */
static int
sweep_run(struct sweep *sw, FILE *csvf)
{
	struct sched s;
	int i, k, rc;

	memset(&s, 0, sizeof(s));
	s.sw = sw;
	s.csvf = csvf;
	s.total = (double)sw->nspec * sw->nload;
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
	if (ttsim_comm() != NULL)
		rc = sched_mpi(&s);
	else
		rc = sched_jobs(&s, sw->jobs);
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
