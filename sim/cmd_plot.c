/*
 * ttsim plot: the three panels of seed 000 Figs. 15-21 (accepted load,
 * network latency and end-to-end latency against offered load), one curve
 * per network, drawn by gnuplot from the CSV that run and sweep print.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "twintorus/outfile.h"
#include "ttsim.h"

#define PLOT_MAX_SERIES 256
#define PLOT_MAX_POINTS 256

static void
plot_usage(FILE *f)
{
	fprintf(f,
"usage: ttsim plot RESULTS.csv -o FILE.png|FILE.svg [--title TEXT]\n"
"\n"
"Draws accepted load, average network latency and average end-to-end\n"
"latency against offered load, one curve per network (the 'series' column),\n"
"from the CSV of `ttsim sweep --csv` or `ttsim run --csv`.  Needs gnuplot\n"
"(Debian: apt-get install gnuplot-nox; make deps installs it).\n");
}

static int
have_gnuplot(void)
{
	const char *path = getenv("PATH");
	char buf[4096], *dir, *save = NULL, full[4200];

	if (path == NULL)
		path = "/usr/bin:/bin";
	snprintf(buf, sizeof(buf), "%s", path);
	for (dir = strtok_r(buf, ":", &save); dir != NULL;
	    dir = strtok_r(NULL, ":", &save)) {
		snprintf(full, sizeof(full), "%s/gnuplot", dir);
		if (access(full, X_OK) == 0)
			return 1;
	}
	return 0;
}

struct series {
	char name[128];
	int n;
	double x[PLOT_MAX_POINTS], acc[PLOT_MAX_POINTS];
	double net[PLOT_MAX_POINTS], e2e[PLOT_MAX_POINTS];
};

static int
col_index(char **cols, int ncol, const char *name)
{
	int i;

	for (i = 0; i < ncol; i++)
		if (strcmp(cols[i], name) == 0)
			return i;
	return -1;
}

/*
 * A CSV file read record by record as RFC 4180 has it: fields separated by
 * commas, records by CRLF or LF, and a field in double quotes may hold
 * commas, line breaks and quotes (doubled).
 */
struct csvin {
	FILE *f;
	const char *path;
	int line;               /* of the record's start, 1-based */
	int next_line;
	char buf[8192];
	char *cols[64];
};

/* One character of a field into the buffer; -1 when it is full. */
static int
csv_put(struct csvin *c, size_t *len, int ch)
{
	if (*len + 1 >= sizeof(c->buf)) {
		fprintf(stderr, "ttsim plot: %s:%d: a record longer than %zu "
		    "bytes\n", c->path, c->line, sizeof(c->buf) - 1);
		return -1;
	}
	c->buf[(*len)++] = (char)ch;
	return 0;
}

/* A quoted field's text, after its opening quote, up to its closing one. */
static int
csv_quoted(struct csvin *c, size_t *len)
{
	int ch;

	for (;;) {
		ch = getc(c->f);
		if (ch == EOF) {
			fprintf(stderr, "ttsim plot: %s:%d: a quoted field is "
			    "not closed\n", c->path, c->line);
			return -1;
		}
		if (ch == '"') {
			if ((ch = getc(c->f)) != '"') {
				ungetc(ch, c->f);
				return 0;
			}
		} else if (ch == '\n') {
			c->next_line++;
		}
		if (csv_put(c, len, ch) < 0)
			return -1;
	}
}

/* The next record into c->cols: its number of fields, 0 at the end of the
 * file, -1 after a message. */
static int
csv_record(struct csvin *c)
{
	size_t len = 0;
	int n = 0, ch, quoted = 0;

	c->line = c->next_line;
	if ((ch = getc(c->f)) == EOF)
		return 0;
	ungetc(ch, c->f);
	c->cols[n++] = c->buf;
	for (;;) {
		ch = getc(c->f);
		if (ch == '"' && !quoted && c->buf + len == c->cols[n - 1]) {
			if (csv_quoted(c, &len) < 0)
				return -1;
			quoted = 1;
			continue;
		}
		if (ch == '\r') {
			if ((ch = getc(c->f)) != '\n')
				ungetc(ch, c->f);
			ch = '\n';
		}
		if (ch == EOF || ch == '\n' || ch == ',') {
			if (csv_put(c, &len, '\0') < 0)
				return -1;
			if (ch != ',')
				break;
			if (n == (int)(sizeof(c->cols) / sizeof(c->cols[0]))) {
				fprintf(stderr, "ttsim plot: %s:%d: more than %d "
				    "fields\n", c->path, c->line, n);
				return -1;
			}
			c->cols[n++] = c->buf + len;
			quoted = 0;
			continue;
		}
		if (quoted) {
			fprintf(stderr, "ttsim plot: %s:%d: text after a closing "
			    "quote; double a quote inside a quoted field\n",
			    c->path, c->line);
			return -1;
		}
		if (csv_put(c, &len, ch) < 0)
			return -1;
	}
	if (ch == '\n')
		c->next_line++;
	return n;
}

/* The columns read_series needs, found by name in the header. */
struct csvcols {
	int series, off, acc, net, e2e, n;
};

static int
csv_header(struct csvin *c, struct csvcols *k)
{
	int n = csv_record(c);

	if (n < 0)
		return -1;
	if (n == 0) {
		fprintf(stderr, "ttsim plot: %s: empty file; expected the CSV of "
		    "ttsim sweep --csv\n", c->path);
		return -1;
	}
	k->n = n;
	k->series = col_index(c->cols, n, "series");
	k->off = col_index(c->cols, n, "offered_load");
	k->acc = col_index(c->cols, n, "accepted_load");
	k->net = col_index(c->cols, n, "avg_network_latency");
	k->e2e = col_index(c->cols, n, "avg_e2e_latency");
	if (k->series < 0 || k->off < 0 || k->acc < 0 || k->net < 0 ||
	    k->e2e < 0) {
		fprintf(stderr, "ttsim plot: %s:1: the header lacks series, "
		    "offered_load, accepted_load, avg_network_latency or "
		    "avg_e2e_latency; expected the CSV of ttsim sweep --csv\n",
		    c->path);
		return -1;
	}
	return 0;
}

/* The series a row belongs to, added if new; NULL after a message. */
static struct series *
series_of(struct series *s, int *ns, const char *name, const char *csv)
{
	int i;

	for (i = 0; i < *ns; i++)
		if (strcmp(s[i].name, name) == 0)
			return &s[i];
	if (*ns == PLOT_MAX_SERIES) {
		fprintf(stderr, "ttsim plot: %s: more than %d series\n", csv,
		    PLOT_MAX_SERIES);
		return NULL;
	}
	snprintf(s[*ns].name, sizeof(s[*ns].name), "%s", name);
	s[*ns].n = 0;
	return &s[(*ns)++];
}

static int
read_rows(struct csvin *c, const struct csvcols *k, struct series *s, int *ns)
{
	struct series *cur;
	char **cols = c->cols;
	int n;

	*ns = 0;
	while ((n = csv_record(c)) > 0) {
		if (n == 1 && cols[0][0] == '\0')
			continue;
		if (n != k->n) {
			fprintf(stderr, "ttsim plot: %s:%d: %d columns, the header "
			    "has %d\n", c->path, c->line, n, k->n);
			return -1;
		}
		if ((cur = series_of(s, ns, cols[k->series], c->path)) == NULL)
			return -1;
		if (cur->n == PLOT_MAX_POINTS)
			continue;
		cur->x[cur->n] = atof(cols[k->off]);
		cur->acc[cur->n] = atof(cols[k->acc]);
		cur->net[cur->n] = atof(cols[k->net]);
		cur->e2e[cur->n] = atof(cols[k->e2e]);
		cur->n++;
	}
	return n;
}

/* A series' points in order of offered load: a sweep adds the loads it
 * refines after its grid, and a curve is drawn point to point. */
static void
sort_series(struct series *s)
{
	double x, a, n, e;
	int i, j;

	for (i = 1; i < s->n; i++) {
		x = s->x[i];
		a = s->acc[i];
		n = s->net[i];
		e = s->e2e[i];
		for (j = i; j > 0 && s->x[j - 1] > x; j--) {
			s->x[j] = s->x[j - 1];
			s->acc[j] = s->acc[j - 1];
			s->net[j] = s->net[j - 1];
			s->e2e[j] = s->e2e[j - 1];
		}
		s->x[j] = x;
		s->acc[j] = a;
		s->net[j] = n;
		s->e2e[j] = e;
	}
}

static int
read_series(const char *csv, struct series *s, int *ns)
{
	static struct csvin c;
	struct csvcols k;
	int rc, i;

	c.f = fopen(csv, "r");
	c.path = csv;
	c.next_line = 1;
	if (c.f == NULL) {
		fprintf(stderr, "ttsim plot: %s: %s\n", csv, strerror(errno));
		return -1;
	}
	/* -o must not replace it */
	(void)tt_outfile_input_fd(fileno(c.f), csv);
	rc = csv_header(&c, &k) < 0 || read_rows(&c, &k, s, ns) < 0 ? -1 : 0;
	fclose(c.f);
	for (i = 0; rc == 0 && i < *ns; i++)
		sort_series(&s[i]);
	if (rc == 0 && *ns == 0) {
		fprintf(stderr, "ttsim plot: %s: no data rows\n", csv);
		return -1;
	}
	return rc;
}

/* A string for a single-quoted gnuplot literal: ' doubled. */
static void
gp_quoted(FILE *g, const char *s)
{
	fputc('\'', g);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', g);
		if (*s != '\n')
			fputc(*s, g);
	}
	fputc('\'', g);
}

/*
 * The range of one axis: as gnuplot finds it, except when every point has
 * the same value (a sweep of one load), where gnuplot would warn that the
 * range is empty and widen it itself: widened here, around the value.
 */
static void
axis_range(FILE *g, const char *axis, double lo, double hi, int logscale)
{
	double d;

	if (lo < hi) {
		fprintf(g, "set autoscale %s\n", axis);
		return;
	}
	if (logscale)
		fprintf(g, "set %srange [%.6g:%.6g]\n", axis, lo / 2, lo * 2);
	else {
		d = lo != 0 ? (lo < 0 ? -lo : lo) / 10 : 1;
		fprintf(g, "set %srange [%.6g:%.6g]\n", axis, lo - d, lo + d);
	}
}

static double
panel_y(const struct series *s, int j, int which)
{
	return which == 0 ? s->acc[j] : which == 1 ? s->net[j] : s->e2e[j];
}

static void
panel(FILE *g, const struct series *s, int ns, const char *ylabel,
    int which, int logy)
{
	double xlo = 0, xhi = 0, ylo = 0, yhi = 0, y;
	int i, j, any = 0;

	for (i = 0; i < ns; i++)
		for (j = 0; j < s[i].n; j++, any = 1) {
			y = panel_y(&s[i], j, which);
			if (!any || s[i].x[j] < xlo)
				xlo = s[i].x[j];
			if (!any || s[i].x[j] > xhi)
				xhi = s[i].x[j];
			if (!any || y < ylo)
				ylo = y;
			if (!any || y > yhi)
				yhi = y;
		}
	/* a logarithmic axis takes positive values only */
	logy = logy && ylo > 0;
	fprintf(g, "set xlabel 'offered load (flits/cycle/PE)'\n"
	    "set ylabel '%s'\n%s", ylabel,
	    logy ? "set logscale y\n" : "unset logscale y\n");
	axis_range(g, "x", xlo, xhi, 0);
	axis_range(g, "y", ylo, yhi, logy);
	fprintf(g, "plot ");
	for (i = 0; i < ns; i++) {
		fprintf(g, "%s'-' using 1:2 with linespoints title ",
		    i ? ", " : "");
		gp_quoted(g, s[i].name);
	}
	fputc('\n', g);
	for (i = 0; i < ns; i++) {
		for (j = 0; j < s[i].n; j++)
			fprintf(g, "%.6g %.6g\n", s[i].x[j],
			    panel_y(&s[i], j, which));
		fprintf(g, "e\n");
	}
}

int
plot_ready(const char *cmd, const char *out)
{
	size_t len = strlen(out);
	char dir[4096], *slash;

	if (!have_gnuplot()) {
		fprintf(stderr, "ttsim %s: gnuplot is not installed, so %s "
		    "cannot be drawn; install it with 'apt-get install "
		    "gnuplot-nox' (make deps does), or plot the CSV yourself\n",
		    cmd, out);
		return -1;
	}
	if (!(len >= 4 && (strcmp(out + len - 4, ".svg") == 0 ||
	    strcmp(out + len - 4, ".png") == 0))) {
		fprintf(stderr, "ttsim %s: %s: the file must end in .png or "
		    ".svg\n", cmd, out);
		return -1;
	}
	/* said before a sweep runs, not after */
	snprintf(dir, sizeof(dir), "%s", out);
	slash = strrchr(dir, '/');
	if (slash == NULL)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (access(dir, W_OK | X_OK) != 0 ||
	    (access(out, F_OK) == 0 && access(out, W_OK) != 0)) {
		fprintf(stderr, "ttsim %s: %s: cannot write there (%s)\n", cmd,
		    out, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * gnuplot, drawing into out as every output of the tools is written
 * (twintorus/outfile.h): a file is replaced only once gnuplot succeeds,
 * a link stays a link.  gnuplot is given no file name: it reads its
 * script from a temporary file and draws on its standard output, a pipe
 * that ttsim copies into the output, so that any name (a newline in it
 * too) is the file written, and a failing write is seen and reported.
 */
struct gp {
	const char *cmd, *out;
	FILE *script;           /* the commands, given to gnuplot at close */
	tt_outfile *o;
};

/* 0 with g->script to write to, or -1 after a message. */
static int
gp_open(struct gp *g, const char *cmd, const char *out, const char *terminal)
{
	char err[512];

	g->cmd = cmd;
	g->out = out;
	if (tt_outfile_open(&g->o, out, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim %s: %s\n", cmd, err);
		return -1;
	}
	if ((g->script = tmpfile()) == NULL) {
		fprintf(stderr, "ttsim %s: a temporary file for gnuplot: %s\n",
		    cmd, strerror(errno));
		tt_outfile_discard(g->o);
		return -1;
	}
	fprintf(g->script, "%s\n", terminal);
	return 0;
}

/* gnuplot run on the script, its drawing copied into the output: the
 * bytes copied, or -1 after a message. */
static long long
gp_run(struct gp *g)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = {(char *)"gnuplot", NULL}, buf[65536];
	FILE *f = tt_outfile_file(g->o);
	long long total = 0;
	int p[2], status, e;
	ssize_t n;
	pid_t pid;

	if (fflush(g->script) != 0 || ferror(g->script) ||
	    fseek(g->script, 0, SEEK_SET) != 0) {
		fprintf(stderr, "ttsim %s: the script for gnuplot: %s\n", g->cmd,
		    strerror(errno));
		return -1;
	}
	if (f == NULL || pipe2(p, O_CLOEXEC) != 0) {
		fprintf(stderr, "ttsim %s: %s\n", g->cmd, strerror(errno));
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fileno(g->script), 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	e = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (e != 0) {
		close(p[0]);
		fprintf(stderr, "ttsim %s: gnuplot: %s\n", g->cmd, strerror(e));
		return -1;
	}
	for (;;) {
		n = read(p[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		fwrite(buf, 1, (size_t)n, f);
		total += n;
	}
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "ttsim %s: gnuplot failed (%s %d) drawing %s\n",
		    g->cmd, WIFEXITED(status) ? "status" : "signal",
		    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
		    g->out);
		return -1;
	}
	if (total == 0) {
		fprintf(stderr, "ttsim %s: gnuplot drew nothing into %s\n",
		    g->cmd, g->out);
		return -1;
	}
	return total;
}

static int
gp_close(struct gp *g)
{
	char err[512];
	long long n = gp_run(g);

	fclose(g->script);
	if (n < 0) {
		tt_outfile_discard(g->o);
		return -1;
	}
	if (tt_outfile_close(g->o, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim %s: %s\n", g->cmd, err);
		return -1;
	}
	return 0;
}

int
plot_csv(const char *csv, const char *out, const char *title)
{
	static struct series s[PLOT_MAX_SERIES];
	int ns, svg;
	size_t len = strlen(out);
	struct gp gp;
	FILE *g;

	if (plot_ready("plot", out) < 0)
		return -1;
	svg = len >= 4 && strcmp(out + len - 4, ".svg") == 0;
	if (read_series(csv, s, &ns) < 0)
		return -1;
	if (gp_open(&gp, "plot", out, svg ?
	    "set terminal svg size 1500,480 dynamic" :
	    "set terminal pngcairo size 1500,480 font ',9'") < 0)
		return -1;
	g = gp.script;
	fprintf(g, "set grid\nset key top left font ',8'\n"
	    "set multiplot layout 1,3 title ");
	gp_quoted(g, title != NULL ? title : "");
	fputc('\n', g);
	panel(g, s, ns, "accepted load (flits/cycle/PE)", 0, 0);
	panel(g, s, ns, "network latency (cycles)", 1, 1);
	panel(g, s, ns, "end-to-end latency (cycles)", 2, 1);
	fprintf(g, "unset multiplot\n");
	return gp_close(&gp);
}

/* The smallest and largest x of a data file of "x y" lines ('#'
 * comments, blank lines between series): 1, or 0 when it has none. */
static int
data_xrange(const char *path, double *lo, double *hi)
{
	char line[256], *end;
	FILE *f = fopen(path, "r");
	double x;
	int any = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		x = strtod(line, &end);
		if (end == line)
			continue;
		if (!any || x < *lo)
			*lo = x;
		if (!any || x > *hi)
			*hi = x;
		any = 1;
	}
	fclose(f);
	return any;
}

int
plot_cdf(const char *data, const char *const *names, int nnames,
    const char *xlabel, const char *out, const char *title)
{
	size_t len = strlen(out);
	double lo = 1, hi = 1;
	struct gp gp;
	int i;
	FILE *g;

	if (plot_ready("replay", out) < 0)
		return -1;
	if (gp_open(&gp, "replay", out, len >= 4 &&
	    strcmp(out + len - 4, ".svg") == 0 ?
	    "set terminal svg size 800,520 dynamic" :
	    "set terminal pngcairo size 800,520 font ',10'") < 0)
		return -1;
	g = gp.script;
	fprintf(g, "set title ");
	gp_quoted(g, title != NULL ? title : "");
	fprintf(g, "\nset grid\nset key bottom right\nset xlabel ");
	gp_quoted(g, xlabel);
	fprintf(g, "\nset ylabel 'share of messages'\nset yrange [0:1]\n");
	/* every message equally late: a range around it, not gnuplot's
	 * warning; a logarithmic axis for positive values only */
	if (data_xrange(data, &lo, &hi) && lo <= 0)
		fprintf(g, "unset logscale x\n");
	else
		fprintf(g, "set logscale x\n");
	if (lo == hi)
		axis_range(g, "x", lo, hi, lo > 0);
	fprintf(g, "plot ");
	for (i = 0; i < nnames; i++) {
		fprintf(g, "%s", i ? ", " : "");
		gp_quoted(g, data);
		fprintf(g, " index %d using 1:2 with lines lw 2 title ", i);
		gp_quoted(g, names[i]);
	}
	fprintf(g, "\n");
	return gp_close(&gp);
}

/* What ttsim plot is told. */
struct plotargs {
	const char *in, *out, *title;
};

enum { OPT_PLOT_TITLE = OPT_OWN };

static const optdef plot_flags[] = {
	OPT_TITLE("plot:"),
	OPT_VAL("output", OPT_OUT, "FILE",
	    "the plot to write: .png or .svg (required)"),
	OPT_VAL("title", OPT_PLOT_TITLE, "TEXT", "the plot's title"),
	OPT_END
};

static int
plot_take(void *state, const struct optval *v)
{
	struct plotargs *a = state;

	switch (v->id) {
	case OPT_OUT:
		a->out = v->value;
		return 0;
	case OPT_PLOT_TITLE:
		a->title = v->value;
		return 0;
	}
	if (a->in != NULL) {
		fprintf(stderr, "ttsim plot: unexpected '%s' (see ttsim plot "
		    "--help)\n", v->value);
		return -1;
	}
	a->in = v->value;
	return 0;
}

int
cmd_plot(int argc, char **argv)
{
	struct plotargs a = {NULL, NULL, NULL};
	const opt_group groups[] = {
		{plot_flags, 1, plot_take, &a},
	};

	switch (opt_parse("plot", plot_usage, groups, OPT_NGROUPS(groups), argc, argv)) {
	case OPT_PARSED:
		break;
	case OPT_HELP_SHOWN:
		return TTSIM_EXIT_OK;
	default:
		return TTSIM_EXIT_USAGE;
	}
	if (a.in == NULL || a.out == NULL) {
		plot_usage(stderr);
		return TTSIM_EXIT_USAGE;
	}
	return plot_csv(a.in, a.out, a.title) == 0 ? TTSIM_EXIT_OK :
	    TTSIM_EXIT_USAGE;
}
