/*
 * ttsim's option layer: getopt_long under one table per option group.
 *
 * A command lists the groups it takes (network, output, model, traffic, ...
 * and its own); each group is a table of long options and the function
 * that takes them, so a flag is declared once and means the same in every
 * command that has it.  --name=value and --name value both work; names
 * must be written out whole, because getopt_long's abbreviations would let
 * a flag added later change what an old command line means.  -h and
 * --help print the command's usage and then its options, from the same
 * tables: each option's help is written beside its definition.
 *
 * The value parsers below give every flag the same kind of message:
 * "ttsim CMD: --flag: 'value' is not ...".
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support/suggest.h"             /* lib/: "did you mean" */
#include "ttsim.h"

#define OPT_MAX 96              /* long options of one command, all groups */

#define HELP_COL   24           /* where an option's help starts */
#define HELP_WIDTH 79

/* Whether o is an entry of its table (an option or a title), not its end. */
static int
opt_more(const optdef *o)
{
	return o != NULL && (o->name != NULL || o->help != NULL);
}

/* Whether the option named name is declared by a group before group g
 * (so that g's is never taken). */
static int
opt_shadowed(const opt_group *groups, size_t g, const char *name)
{
	const optdef *o;
	size_t h;

	for (h = 0; h < g; h++)
		for (o = groups[h].opts; opt_more(o); o++)
			if (o->name != NULL && strcmp(o->name, name) == 0)
				return 1;
	return 0;
}

/* The long options of every group, in order; a name a group before has
 * already declared is skipped, so a command's own group listed first
 * overrides a shared one. */
static size_t
opt_table(const opt_group *groups, size_t ngroups, struct option *out,
    size_t max)
{
	size_t n = 0, g;
	const optdef *o;

	for (g = 0; g < ngroups; g++)
		for (o = groups[g].opts; opt_more(o); o++) {
			if (o->name == NULL || n + 2 > max ||
			    opt_shadowed(groups, g, o->name))
				continue;
			out[n].name = o->name;
			out[n].has_arg = o->has_arg;
			out[n].flag = NULL;
			out[n++].val = o->id;
		}
	out[n].name = "help";
	out[n].has_arg = no_argument;
	out[n].flag = NULL;
	out[n++].val = OPT_HELP;
	memset(&out[n], 0, sizeof(out[n]));
	return n;
}

/* The short options: "-" (arguments in order, as OPT_ARG), ":" (a missing
 * value is told apart from an unknown flag), h, and o when a group has it. */
static void
opt_shorts(const struct option *opts, char *buf)
{
	const struct option *o;

	strcpy(buf, "-:h");
	for (o = opts; o->name != NULL; o++)
		if (o->val == OPT_OUT) {
			strcat(buf, "o:");
			break;
		}
}

static const opt_group *
opt_owner(const opt_group *groups, size_t ngroups, int id)
{
	const optdef *o;
	size_t g;

	for (g = 0; g < ngroups; g++) {
		if (id == OPT_ARG) {
			if (groups[g].args)
				return &groups[g];
			continue;
		}
		for (o = groups[g].opts; opt_more(o); o++)
			if (o->name != NULL && o->id == id)
				return &groups[g];
	}
	return NULL;
}

/* The flag as written, without any "=value". */
static void
opt_written(const char *arg, char *buf, size_t bufsz)
{
	snprintf(buf, bufsz, "%s", arg);
	if (strncmp(buf, "--", 2) == 0)
		buf[strcspn(buf, "=")] = '\0';
}

/* The long option a misspelt name most likely meant, or NULL. */
static const char *
opt_nearest(const char *name, const struct option *opts)
{
	const char *names[OPT_MAX];
	size_t n = 0;

	for (; opts->name != NULL && n < OPT_MAX; opts++)
		names[n++] = opts->name;
	return tt_suggest(name, names, n);
}

static int
opt_unknown(const char *cmd, const char *arg, const struct option *opts)
{
	char name[64];
	const struct option *o;
	const char *near;

	opt_written(arg, name, sizeof(name));
	if (strchr(arg, '=') != NULL)
		for (o = opts; o->name != NULL; o++)
			if (o->has_arg == no_argument &&
			    strcmp(name + 2, o->name) == 0) {
				fprintf(stderr, "ttsim %s: %s takes no value (see "
				    "ttsim %s --help)\n", cmd, name, cmd);
				return -1;
			}
	if (strncmp(name, "--", 2) == 0 &&
	    (near = opt_nearest(name + 2, opts)) != NULL) {
		fprintf(stderr, "ttsim %s: unknown flag '%s' (did you mean "
		    "--%s?)\n", cmd, arg, near);
		return -1;
	}
	fprintf(stderr, "ttsim %s: unknown flag '%s' (see ttsim %s --help)\n",
	    cmd, arg, cmd);
	return -1;
}

static int
opt_give(const char *cmd, const opt_group *groups, size_t ngroups, int id,
    const char *flag, const char *value)
{
	const opt_group *g = opt_owner(groups, ngroups, id);
	struct optval v = {cmd, flag, value, id};

	if (g == NULL) {
		fprintf(stderr, "ttsim %s: unexpected argument '%s' (see ttsim "
		    "%s --help)\n", cmd, value, cmd);
		return -1;
	}
	return g->take(g->state, &v);
}

int
opt_parse(const char *cmd, void (*usage)(FILE *), const opt_group *groups,
    size_t ngroups, int argc, char **argv)
{
	struct option opts[OPT_MAX];
	char shorts[16], flag[64];
	const char *arg;
	int c, at, li;

	opt_table(groups, ngroups, opts, OPT_MAX);
	opt_shorts(opts, shorts);
	opterr = 0;
	optind = 0;             /* glibc: start again, on this argv */
	for (;;) {
		at = optind < 1 ? 1 : optind;
		li = -1;
		c = getopt_long(argc, argv, shorts, opts, &li);
		if (c == -1)
			break;
		arg = at < argc ? argv[at] : "";
		if (c == '?')
			return opt_unknown(cmd, arg, opts);
		if (c == ':') {
			opt_written(arg, flag, sizeof(flag));
			fprintf(stderr, "ttsim %s: %s needs a value (see ttsim %s "
			    "--help)\n", cmd, flag, cmd);
			return -1;
		}
		/* a long option must be named in full */
		if (li >= 0) {
			opt_written(arg, flag, sizeof(flag));
			if (strcmp(flag + 2, opts[li].name) != 0)
				return opt_unknown(cmd, arg, opts);
		} else if (c != OPT_ARG) {
			snprintf(flag, sizeof(flag), "-%c", c);
		}
		if (c == OPT_HELP) {
			opt_usage(stdout, usage, groups, ngroups);
			return OPT_HELP_SHOWN;
		}
		if (opt_give(cmd, groups, ngroups, c,
		    c == OPT_ARG ? optarg : flag, optarg) < 0)
			return -1;
	}
	/* after "--", everything is an argument */
	for (; optind < argc; optind++)
		if (opt_give(cmd, groups, ngroups, OPT_ARG, argv[optind],
		    argv[optind]) < 0)
			return -1;
	return OPT_PARSED;
}

/* ---- --help ---- */

/* text from column col, words wrapped at HELP_WIDTH, continuing at
 * HELP_COL; the column it ends at */
static size_t
help_text(FILE *f, const char *text, size_t col)
{
	const char *p = text, *e;
	size_t len;

	while (*p != '\0') {
		while (*p == ' ')
			p++;
		e = p + strcspn(p, " ");
		len = (size_t)(e - p);
		if (len == 0)
			break;
		if (col > HELP_COL && col + 1 + len > HELP_WIDTH) {
			fprintf(f, "\n%*s", HELP_COL, "");
			col = HELP_COL;
		} else if (col > HELP_COL) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)len, p);
		col += len;
		p = e;
	}
	return col;
}

/* "  -o, --name ARG" and its help, the default last */
static void
help_option(FILE *f, const optdef *o)
{
	char def[64];
	size_t col;
	int n;

	n = fprintf(f, "  %s--%s%s%s", o->id == OPT_OUT ? "-o, " : "",
	    o->name, o->arg != NULL ? " " : "", o->arg != NULL ? o->arg : "");
	if (n < 0)
		return;
	if (n >= HELP_COL - 1)
		fprintf(f, "\n%*s", HELP_COL, "");
	else
		fprintf(f, "%*s", HELP_COL - n, "");
	col = help_text(f, o->help, HELP_COL);
	if (o->has_def) {       /* on one line */
		n = snprintf(def, sizeof(def), "(default %.10g)", o->def);
		if (col + 1 + (size_t)n > HELP_WIDTH)
			fprintf(f, "\n%*s%s", HELP_COL, "", def);
		else
			fprintf(f, " %s", def);
	}
	fputc('\n', f);
}

void
opt_usage(FILE *f, void (*usage)(FILE *), const opt_group *groups,
    size_t ngroups)
{
	const optdef *o, *title;
	size_t g;

	usage(f);
	for (g = 0; g < ngroups; g++) {
		title = NULL;
		for (o = groups[g].opts; opt_more(o); o++) {
			if (o->name == NULL) {
				title = o;
				continue;
			}
			if (opt_shadowed(groups, g, o->name))
				continue;
			if (title != NULL) {
				fprintf(f, "\n%s\n", title->help);
				title = NULL;
			}
			help_option(f, o);
		}
	}
	fprintf(f, "\n  -h, --help%*sthis help\n", HELP_COL - 12, "");
}

/* ---- values ---- */

int
opt_u64(const char *cmd, const char *flag, const char *v, uint64_t lo,
    uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long x;

	if (v[0] == '-' || v[0] == '\0')
		goto bad;
	errno = 0;
	x = strtoull(v, &end, 10);
	if (*end != '\0' || errno != 0 || x < lo || x > hi)
		goto bad;
	*out = x;
	return 0;
bad:
	fprintf(stderr, "ttsim %s: %s: '%s' is not a whole number in %llu..%llu\n",
	    cmd, flag, v, (unsigned long long)lo, (unsigned long long)hi);
	return -1;
}

int
opt_int(const char *cmd, const char *flag, const char *v, int lo, int hi,
    int *out)
{
	uint64_t x;

	if (opt_u64(cmd, flag, v, (uint64_t)lo, (uint64_t)hi, &x) < 0)
		return -1;
	*out = (int)x;
	return 0;
}

int
opt_real(const char *cmd, const char *flag, const char *v, double lo,
    double hi, const char *what, double *out)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	/* isfinite first: NaN compares false with everything */
	if (*end != '\0' || end == v || !isfinite(x) || x < lo || x > hi) {
		fprintf(stderr, "ttsim %s: %s: '%s' is not %s\n", cmd, flag, v,
		    what);
		return -1;
	}
	*out = x;
	return 0;
}

int
parse_load(const char *cmd, const char *flag, const char *v, double *out)
{
	char *end;
	double x = strtod(v, &end);

	if (*end != '\0' || end == v || !(x > 0) || x > 64) {
		fprintf(stderr, "ttsim %s: %s: '%s' is not an offered load "
		    "(flits/cycle/PE, above 0, e.g. 0.3)\n", cmd, flag, v);
		return -1;
	}
	*out = x;
	return 0;
}
