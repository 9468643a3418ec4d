/*
 * ttsim sweep: loads x port configurations x deadlock schemes x topologies,
 * one `ttsim run` per point, streamed as a table, JSON or CSV, optionally
 * plotted (seed 000 §7.3-7.4 are such sweeps).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ttsim.h"

#define SWEEP_MAX 256

static void
sweep_usage(FILE *f)
{
	fprintf(f,
"usage: ttsim sweep [FILE.yaml] [--topo LIST] [--ports LIST|all]\n"
"                   [--deadlock LIST] [--loads LIST|FROM:TO:STEP]\n"
"                   [run flags] [--json | --csv] [--plot FILE.png|svg]\n"
"\n"
"Runs `ttsim run` for every combination, topology by topology, and reports\n"
"each point as it finishes, then where each curve saturates.\n"
"  --topo LIST      topologies, e.g. 4x4x4,8x8:plain (':plain' = one card\n"
"                   per node); default the --dims / file network\n"
"  --ports LIST     e.g. A,D,G, or all (A..J for 3 dimensions); twin only\n"
"  --deadlock LIST  e.g. vc,bubble\n"
"  --loads LIST     e.g. 0.1,0.2,0.3 or 0.05:0.5:0.05 (default)\n"
"  --plot FILE      also draw the curves with gnuplot (.png or .svg)\n"
"Every `ttsim run` flag applies to every point (see ttsim run --help).\n"
"Progress goes to a terminal's stderr; nothing when piped.\n"
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
	n = split_list(buf, item, max < SWEEP_MAX ? max : SWEEP_MAX);
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

struct sweep_prog {
	char label[32];
};

static void
show_progress(void *ctx, double done)
{
	progress_show(((struct sweep_prog *)ctx)->label, done);
}

int
cmd_sweep(int argc, char **argv)
{
	netopts no;
	simopts so;
	const char *topo_flag = NULL, *ports_flag = NULL, *dl_flag = NULL;
	const char *loads_flag = "0.05:0.5:0.05", *plot = NULL;
	static topo topos[SWEEP_MAX];
	static tt_netspec specs[SWEEP_MAX * 16];
	double loads[SWEEP_MAX];
	enum tt_deadlock dls[4];
	char *ports[SWEEP_MAX], *dlv[8], pbuf[1024], dbuf[128];
	int ntopo, nports = 0, ndl = 1, nload, nspec = 0, ports_all = 0;
	int i, r, t, pi, di, li, first = 1, deadlocked = 0, total, done = 0;
	FILE *csvf = NULL;
	char csvpath[] = "/tmp/ttsim-sweep-XXXXXX.csv";
	struct sweep_prog prog = {"ttsim sweep"};

	netopts_init(&no);
	simopts_init(&so);
	so.cmd = "sweep";
	for (i = 1; i < argc; i++) {
		const char **slot = NULL;
		const char *a = argv[i];

		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			sweep_usage(stdout);
			return TTSIM_EXIT_OK;
		}
		if (flag_is(a, "--topo"))
			slot = &topo_flag;
		else if (flag_is(a, "--ports"))
			slot = &ports_flag;
		else if (flag_is(a, "--deadlock"))
			slot = &dl_flag;
		else if (flag_is(a, "--loads"))
			slot = &loads_flag;
		else if (flag_is(a, "--plot"))
			slot = &plot;
		if (slot != NULL) {
			if ((*slot = flag_value(argc, argv, &i, "sweep")) == NULL)
				return TTSIM_EXIT_USAGE;
			continue;
		}
		if ((r = simopts_take(&so, argc, argv, &i, "sweep")) < 0)
			return TTSIM_EXIT_USAGE;
		if (r > 0)
			continue;
		if ((r = netopts_take(&no, argc, argv, &i, "sweep")) < 0)
			return TTSIM_EXIT_USAGE;
		if (r == 0) {
			fprintf(stderr, "ttsim sweep: unknown flag '%s' (see ttsim "
			    "sweep --help)\n", argv[i]);
			return TTSIM_EXIT_USAGE;
		}
	}
	if (netopts_finish(&no, "sweep") < 0)
		return TTSIM_EXIT_USAGE;
	if (no.json && so.csv) {
		fprintf(stderr, "ttsim sweep: --json and --csv do not go together\n");
		return TTSIM_EXIT_USAGE;
	}
	if (plot != NULL) {
		size_t len = strlen(plot);

		if (len < 5 || (strcmp(plot + len - 4, ".png") != 0 &&
		    strcmp(plot + len - 4, ".svg") != 0)) {
			fprintf(stderr, "ttsim sweep: --plot %s: the file must end "
			    "in .png or .svg\n", plot);
			return TTSIM_EXIT_USAGE;
		}
	}
	simopts_apply_config(&so, &no.cfg);
	if ((nload = parse_loads(loads_flag, loads, SWEEP_MAX)) < 0)
		return TTSIM_EXIT_USAGE;
	if (topo_flag != NULL) {
		if ((ntopo = parse_topos(topo_flag, &no.spec, topos, SWEEP_MAX)) < 0)
			return TTSIM_EXIT_USAGE;
	} else {
		topos[0].spec = no.spec;
		ntopo = 1;
	}
	dls[0] = no.spec.deadlock;
	if (dl_flag != NULL) {
		snprintf(dbuf, sizeof(dbuf), "%s", dl_flag);
		ndl = split_list(dbuf, dlv, 3);
		for (i = 0; i < ndl; i++)
			if (tt_deadlock_parse(dlv[i], &dls[i]) < 0) {
				fprintf(stderr, "ttsim sweep: --deadlock: '%s' is "
				    "not a scheme: use vc, bubble or none\n", dlv[i]);
				return TTSIM_EXIT_USAGE;
			}
		if (ndl <= 0) {
			fprintf(stderr, "ttsim sweep: --deadlock %s: give up to "
			    "three of vc,bubble,none\n", dl_flag);
			return TTSIM_EXIT_USAGE;
		}
	}
	if (ports_flag != NULL && no.plain_flag) {
		fprintf(stderr, "ttsim sweep: --ports and --plain do not go "
		    "together: a plain torus has no port configuration\n");
		return TTSIM_EXIT_USAGE;
	}
	if (ports_flag != NULL) {
		snprintf(pbuf, sizeof(pbuf), "%s", ports_flag);
		if (strcmp(pbuf, "all") == 0)
			ports_all = 1;
		else if ((nports = split_list(pbuf, ports, SWEEP_MAX)) <= 0) {
			fprintf(stderr, "ttsim sweep: --ports %s: give a list such "
			    "as A,D,G or all\n", ports_flag);
			return TTSIM_EXIT_USAGE;
		}
	}
	/* Expand topologies x port configurations x schemes into specs. */
	for (t = 0; t < ntopo; t++) {
		tt_netspec base = topos[t].spec, *list = NULL;
		size_t nl = 0, k;
		char err[256];

		if (!base.twin || (ports_flag == NULL)) {
			list = malloc(sizeof(*list));
			list[0] = base;
			nl = 1;
		} else if (ports_all) {
			netopts tmp = no;

			tmp.spec = base;
			tmp.ports_all = 1;
			if (netopts_specs(&tmp, &list, &nl) < 0)
				return TTSIM_EXIT_USAGE;
		} else {
			list = malloc(sizeof(*list) * (size_t)nports);
			for (pi = 0; pi < nports; pi++) {
				list[pi] = base;
				if (tt_netspec_set_ports(&list[pi], ports[pi], err,
				    sizeof(err)) < 0) {
					fprintf(stderr, "ttsim sweep: --ports %s: "
					    "%s\n", ports[pi], err);
					free(list);
					return TTSIM_EXIT_USAGE;
				}
			}
			nl = (size_t)nports;
		}
		for (k = 0; k < nl; k++)
			for (di = 0; di < ndl; di++) {
				if (nspec == (int)(sizeof(specs) / sizeof(specs[0]))) {
					fprintf(stderr, "ttsim sweep: more than %zu "
					    "networks; split the sweep\n",
					    sizeof(specs) / sizeof(specs[0]));
					free(list);
					return TTSIM_EXIT_USAGE;
				}
				specs[nspec] = list[k];
				specs[nspec].deadlock = dls[di];
				if (tt_netspec_check(&specs[nspec], err,
				    sizeof(err)) < 0) {
					fprintf(stderr, "ttsim sweep: %s\n", err);
					free(list);
					return TTSIM_EXIT_USAGE;
				}
				nspec++;
			}
		free(list);
	}
	/* Refuse now what would stop the sweep half-way. */
	for (i = 0; i < nspec; i++)
		if (simpoint_check(&so, &specs[i], loads[0]) < 0)
			return TTSIM_EXIT_USAGE;
	if (plot != NULL && plot_ready("sweep", plot) < 0)
		return TTSIM_EXIT_USAGE;
	if (plot != NULL) {
		int fd = mkstemps(csvpath, 4);

		if (fd < 0 || (csvf = fdopen(fd, "w")) == NULL) {
			perror("ttsim sweep: temporary file for the plot");
			return TTSIM_EXIT_USAGE;
		}
		simpoint_csv_header(csvf);
	}
	total = nspec * nload;
	if (no.json)
		printf("[\n");
	else if (so.csv)
		simpoint_csv_header(stdout);
	else
		simpoint_table_header(stdout);
	for (i = 0; i < nspec; i++) {
		double sat_load = -1, peak = 0;

		for (li = 0; li < nload; li++) {
			simpoint pt;

			if (simpoint_run(&so, &specs[i], loads[li], &pt,
			    show_progress, &prog, (double)done / total,
			    1.0 / total) < 0) {
				progress_clear();
				if (csvf != NULL) {
					fclose(csvf);
					unlink(csvpath);
				}
				return TTSIM_EXIT_USAGE;
			}
			done++;
			progress_hide();
			if (no.json) {
				printf("%s  ", first ? "" : ",\n");
				simpoint_json(stdout, &pt);
			} else if (so.csv) {
				simpoint_csv(stdout, &pt);
			} else {
				simpoint_table_row(stdout, &pt);
			}
			fflush(stdout);
			first = 0;
			if (csvf != NULL)
				simpoint_csv(csvf, &pt);
			if (pt.accepted > peak)
				peak = pt.accepted;
			if (pt.saturated && sat_load < 0)
				sat_load = pt.offered;
			if (pt.deadlock)
				deadlocked = 1;
			simpoint_free(&pt);
		}
		if (!no.json && !so.csv && nload > 1) {
			if (sat_load > 0)
				printf("  saturates at %.3f flits/cycle/PE offered; "
				    "peak accepted %.4f\n", sat_load, peak);
			else
				printf("  not saturated up to the highest load; "
				    "peak accepted %.4f\n", peak);
		}
	}
	progress_clear();
	if (no.json)
		printf("\n]\n");
	if (csvf != NULL) {
		fclose(csvf);
		r = plot_csv(csvpath, plot, NULL);
		unlink(csvpath);
		if (r != 0)
			return TTSIM_EXIT_USAGE;
	}
	return deadlocked ? TTSIM_EXIT_DEADLOCK : TTSIM_EXIT_OK;
}
