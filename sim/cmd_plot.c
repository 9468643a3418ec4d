/*
 * ttsim plot: the three panels of seed 000 Figs. 15-21 (accepted load,
 * network latency and end-to-end latency against offered load), one curve
 * per network, drawn by gnuplot from the CSV that run and sweep print.
 */
#include <errno.h>
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

static int
split_csv(char *line, char **cols, int max)
{
	int n = 0;
	char *p = line;

	line[strcspn(line, "\r\n")] = '\0';
	while (n < max) {
		cols[n++] = p;
		p = strchr(p, ',');
		if (p == NULL)
			break;
		*p++ = '\0';
	}
	return n;
}

static int
read_series(const char *csv, struct series *s, int *ns)
{
	FILE *f = fopen(csv, "r");
	char line[4096], *cols[64];
	int ncol, c_series, c_off, c_acc, c_net, c_e2e, lineno = 1, i;

	if (f == NULL) {
		fprintf(stderr, "ttsim plot: %s: %s\n", csv, strerror(errno));
		return -1;
	}
	if (fgets(line, sizeof(line), f) == NULL) {
		fprintf(stderr, "ttsim plot: %s: empty file; expected the CSV of "
		    "ttsim sweep --csv\n", csv);
		fclose(f);
		return -1;
	}
	ncol = split_csv(line, cols, 64);
	c_series = col_index(cols, ncol, "series");
	c_off = col_index(cols, ncol, "offered_load");
	c_acc = col_index(cols, ncol, "accepted_load");
	c_net = col_index(cols, ncol, "avg_network_latency");
	c_e2e = col_index(cols, ncol, "avg_e2e_latency");
	if (c_series < 0 || c_off < 0 || c_acc < 0 || c_net < 0 || c_e2e < 0) {
		fprintf(stderr, "ttsim plot: %s:1: the header lacks series, "
		    "offered_load, accepted_load, avg_network_latency or "
		    "avg_e2e_latency; expected the CSV of ttsim sweep --csv\n",
		    csv);
		fclose(f);
		return -1;
	}
	*ns = 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		struct series *cur = NULL;
		int n;

		lineno++;
		if (line[0] == '\n' || line[0] == '\0')
			continue;
		n = split_csv(line, cols, 64);
		if (n != ncol) {
			fprintf(stderr, "ttsim plot: %s:%d: %d columns, the header "
			    "has %d\n", csv, lineno, n, ncol);
			fclose(f);
			return -1;
		}
		for (i = 0; i < *ns; i++)
			if (strcmp(s[i].name, cols[c_series]) == 0)
				cur = &s[i];
		if (cur == NULL) {
			if (*ns == PLOT_MAX_SERIES) {
				fprintf(stderr, "ttsim plot: %s: more than %d "
				    "series\n", csv, PLOT_MAX_SERIES);
				fclose(f);
				return -1;
			}
			cur = &s[(*ns)++];
			snprintf(cur->name, sizeof(cur->name), "%s", cols[c_series]);
			cur->n = 0;
		}
		if (cur->n == PLOT_MAX_POINTS)
			continue;
		cur->x[cur->n] = atof(cols[c_off]);
		cur->acc[cur->n] = atof(cols[c_acc]);
		cur->net[cur->n] = atof(cols[c_net]);
		cur->e2e[cur->n] = atof(cols[c_e2e]);
		cur->n++;
	}
	fclose(f);
	if (*ns == 0) {
		fprintf(stderr, "ttsim plot: %s: no data rows\n", csv);
		return -1;
	}
	return 0;
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

static void
panel(FILE *g, const struct series *s, int ns, const char *ylabel,
    int which, int logy)
{
	int i, j;

	fprintf(g, "set xlabel 'offered load (flits/cycle/PE)'\n"
	    "set ylabel '%s'\n%s", ylabel,
	    logy ? "set logscale y\n" : "unset logscale y\n");
	fprintf(g, "plot ");
	for (i = 0; i < ns; i++) {
		fprintf(g, "%s'-' using 1:2 with linespoints title ",
		    i ? ", " : "");
		gp_quoted(g, s[i].name);
	}
	fputc('\n', g);
	for (i = 0; i < ns; i++) {
		for (j = 0; j < s[i].n; j++) {
			double y = which == 0 ? s[i].acc[j] :
			    which == 1 ? s[i].net[j] : s[i].e2e[j];

			fprintf(g, "%.6g %.6g\n", s[i].x[j], y);
		}
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
	/* gnuplot would fall back to stdout if it cannot open the file */
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
 * a link stays a link.  NULL after a message.
 */
static FILE *
gp_open(const char *cmd, const char *out, const char *terminal,
    tt_outfile **op)
{
	char err[512];
	FILE *g;

	if (tt_outfile_open(op, out, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim %s: %s\n", cmd, err);
		return NULL;
	}
	g = popen("gnuplot", "w");
	if (g == NULL) {
		fprintf(stderr, "ttsim %s: gnuplot: %s\n", cmd, strerror(errno));
		tt_outfile_discard(*op);
		return NULL;
	}
	fprintf(g, "%s\nset output ", terminal);
	gp_quoted(g, tt_outfile_path(*op) != NULL ? tt_outfile_path(*op) :
	    "/dev/stdout");
	fputc('\n', g);
	return g;
}

static int
gp_close(const char *cmd, FILE *g, const char *out, tt_outfile *o)
{
	char err[512];
	int status = pclose(g);

	if (status != 0) {
		fprintf(stderr, "ttsim %s: gnuplot failed (status %d) drawing "
		    "%s\n", cmd, WIFEXITED(status) ? WEXITSTATUS(status) :
		    status, out);
		tt_outfile_discard(o);
		return -1;
	}
	if (tt_outfile_close(o, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim %s: %s\n", cmd, err);
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
	tt_outfile *o;
	FILE *g;

	if (plot_ready("plot", out) < 0)
		return -1;
	svg = len >= 4 && strcmp(out + len - 4, ".svg") == 0;
	if (read_series(csv, s, &ns) < 0)
		return -1;
	g = gp_open("plot", out, svg ? "set terminal svg size 1500,480 dynamic" :
	    "set terminal pngcairo size 1500,480 font ',9'", &o);
	if (g == NULL)
		return -1;
	fprintf(g, "set grid\nset key top left font ',8'\n"
	    "set multiplot layout 1,3 title ");
	gp_quoted(g, title != NULL ? title : "");
	fputc('\n', g);
	panel(g, s, ns, "accepted load (flits/cycle/PE)", 0, 0);
	panel(g, s, ns, "network latency (cycles)", 1, 1);
	panel(g, s, ns, "end-to-end latency (cycles)", 2, 1);
	fprintf(g, "unset multiplot\n");
	return gp_close("plot", g, out, o);
}

int
plot_cdf(const char *data, const char *const *names, int nnames,
    const char *xlabel, const char *out, const char *title)
{
	size_t len = strlen(out);
	tt_outfile *o;
	int i;
	FILE *g;

	if (plot_ready("replay", out) < 0)
		return -1;
	g = gp_open("replay", out, len >= 4 && strcmp(out + len - 4, ".svg") == 0 ?
	    "set terminal svg size 800,520 dynamic" :
	    "set terminal pngcairo size 800,520 font ',10'", &o);
	if (g == NULL)
		return -1;
	fprintf(g, "set title ");
	gp_quoted(g, title != NULL ? title : "");
	fprintf(g, "\nset grid\nset key bottom right\nset xlabel ");
	gp_quoted(g, xlabel);
	fprintf(g, "\nset ylabel 'share of messages'\nset yrange [0:1]\n"
	    "set logscale x\nplot ");
	for (i = 0; i < nnames; i++) {
		fprintf(g, "%s", i ? ", " : "");
		gp_quoted(g, data);
		fprintf(g, " index %d using 1:2 with lines lw 2 title ", i);
		gp_quoted(g, names[i]);
	}
	fprintf(g, "\n");
	return gp_close("replay", g, out, o);
}

int
cmd_plot(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *title = NULL;
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			plot_usage(stdout);
			return TTSIM_EXIT_OK;
		}
		if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0 ||
		    strcmp(argv[i], "--title") == 0) && i + 1 >= argc) {
			fprintf(stderr, "ttsim plot: %s needs a value (see ttsim "
			    "plot --help)\n", argv[i]);
			return TTSIM_EXIT_USAGE;
		}
		if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0 ||
		    strcmp(argv[i], "--title") == 0) {
			if (argv[i][1] == 'o' || argv[i][2] == 'o')
				out = argv[++i];
			else
				title = argv[++i];
		} else if (argv[i][0] != '-' && in == NULL) {
			in = argv[i];
		} else {
			fprintf(stderr, "ttsim plot: unexpected '%s' (see ttsim "
			    "plot --help)\n", argv[i]);
			return TTSIM_EXIT_USAGE;
		}
	}
	if (in == NULL || out == NULL) {
		plot_usage(stderr);
		return TTSIM_EXIT_USAGE;
	}
	return plot_csv(in, out, title) == 0 ? TTSIM_EXIT_OK : TTSIM_EXIT_USAGE;
}
