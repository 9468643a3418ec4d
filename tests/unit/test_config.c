/*
 * The YAML loader (lib/formats/config.c): good files give the values they say and
 * no error; bad files give exactly the errors expected, each naming the key
 * and the position, and all of them at once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "twintorus/config.h"

#ifndef TT_SRCDIR
#define TT_SRCDIR "."
#endif

/* What one load produced. */
struct load {
	tt_config cfg;
	int nerr;
	char path[64];
	char *errs;		/* everything printed, NUL-terminated */
	size_t errslen;
};

static void
write_file(char *path, size_t pathsz, const char *text)
{
	int fd;

	snprintf(path, pathsz, "/tmp/tt-config-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/*
 * The load in use, freed by the next one or at the end when a failed
 * assertion jumped over load_free(): a failing test must not also leak.
 */
static struct load *pending;

static void
load_free(struct load *l)
{
	tt_config_free(&l->cfg);
	free(l->errs);
	free(l);
	pending = NULL;
}

static int
free_pending(void **state)
{
	(void)state;
	if (pending != NULL)
		load_free(pending);
	return 0;
}

/* Load `text` from a temporary file, keeping what the loader printed. */
static struct load *
load_text(const char *text)
{
	struct load *l;
	FILE *errs;

	free_pending(NULL);
	l = pending = calloc(1, sizeof(*l));
	assert_non_null(l);
	write_file(l->path, sizeof(l->path), text);
	errs = open_memstream(&l->errs, &l->errslen);
	assert_non_null(errs);
	l->nerr = tt_config_load(&l->cfg, l->path, errs);
	fclose(errs);
	unlink(l->path);
	return l;
}

/* Lines printed; each must be "path:line:col: ..." for this file. */
static int
count_lines(const struct load *l)
{
	const char *p;
	int n = 0;

	for (p = l->errs; *p != '\0'; p++)
		if (*p == '\n')
			n++;
	return n;
}

/* The loader's message must contain `what` at line:col. */
static void
assert_error_at(const struct load *l, int line, int col, const char *what)
{
	char head[128];
	const char *p = l->errs;

	snprintf(head, sizeof(head), "%s:%d:%d: ", l->path, line, col);
	for (;;) {
		const char *eol = strchr(p, '\n');

		if (eol == NULL)
			break;
		if (strncmp(p, head, strlen(head)) == 0) {
			char msg[512];
			size_t len = (size_t)(eol - p);

			if (len >= sizeof(msg))
				len = sizeof(msg) - 1;
			memcpy(msg, p, len);
			msg[len] = '\0';
			if (strstr(msg, what) != NULL)
				return;
		}
		p = eol + 1;
	}
	fail_msg("no error at %d:%d containing \"%s\"; got:\n%s", line, col,
	    what, l->errs);
}

/* One error, containing `what`, at line:col. */
static void
assert_one_error(const char *text, int line, int col, const char *what)
{
	struct load *l = load_text(text);

	if (l->nerr != 1)
		fail_msg("expected 1 error, got %d:\n%s", l->nerr, l->errs);
	assert_int_equal(count_lines(l), 1);
	assert_error_at(l, line, col, what);
	load_free(l);
}

/* ---- good files ---- */

static void
test_minimal_file_takes_defaults(void **state)
{
	struct load *l = load_text("torus:\n  dims: [4, 4, 2]\n");

	(void)state;
	assert_int_equal(l->nerr, 0);
	assert_string_equal(l->errs, "");
	assert_int_equal(l->cfg.spec.n, 3);
	assert_int_equal(l->cfg.spec.k[0], 4);
	assert_int_equal(l->cfg.spec.k[1], 4);
	assert_int_equal(l->cfg.spec.k[2], 2);
	assert_int_equal(l->cfg.spec.twin, 1);
	assert_int_equal(l->cfg.spec.ports_kind, TT_PORTS_BEST);
	assert_int_equal(l->cfg.spec.deadlock, TT_DL_VC);
	assert_int_equal(l->cfg.set, TT_CFG_DIMS);
	assert_int_equal(l->cfg.params.packet_flits, 4);
	assert_int_equal(l->cfg.params.buffer_flits, 128);
	assert_int_equal(l->cfg.params.flit_bytes, 16);
	assert_true(l->cfg.params.link_gbps == 10.0);
	assert_int_equal(l->cfg.has_nodes, 0);
	assert_int_equal(l->cfg.has_trace, 0);
	assert_string_equal(l->cfg.path, l->path);
	load_free(l);
}

static void
test_full_file_sets_every_value(void **state)
{
	struct load *l = load_text(
	    "torus:\n"
	    "  dims: [5, 5, 5]\n"
	    "  twin: yes\n"
	    "  ports: g\n"
	    "  deadlock: bubble\n"
	    "network:\n"
	    "  packet_flits: 8\n"
	    "  buffer_flits: 64\n"
	    "  flit_bytes: 32\n"
	    "  link_gbps: 2.5\n"
	    "nodes:\n"
	    "  - host: n000\n"
	    "    coord: [0, 0, 0]\n"
	    "trace:\n"
	    "  dir: /tmp/traces\n"
	    "  rotate_mb: 1\n"
	    "  keep: 3\n");

	(void)state;
	assert_int_equal(l->nerr, 0);
	assert_int_equal(l->cfg.spec.ports_kind, TT_PORTS_LETTER);
	assert_int_equal(l->cfg.spec.letter, 'G');
	assert_int_equal(l->cfg.spec.deadlock, TT_DL_BUBBLE);
	assert_int_equal(l->cfg.spec.twin, 1);
	assert_int_equal(l->cfg.set, TT_CFG_DIMS | TT_CFG_TWIN | TT_CFG_PORTS |
	    TT_CFG_DEADLOCK);
	assert_int_equal(l->cfg.params.packet_flits, 8);
	assert_int_equal(l->cfg.params.buffer_flits, 64);
	assert_int_equal(l->cfg.params.flit_bytes, 32);
	assert_true(l->cfg.params.link_gbps == 2.5);
	assert_int_equal(l->cfg.has_nodes, 1);
	assert_int_equal(l->cfg.has_trace, 1);
	load_free(l);
}

static void
test_plain_torus(void **state)
{
	struct load *l = load_text(
	    "torus: {dims: [16, 8], twin: false, deadlock: none}\n");

	(void)state;
	assert_int_equal(l->nerr, 0);
	assert_int_equal(l->cfg.spec.n, 2);
	assert_int_equal(l->cfg.spec.twin, 0);
	assert_int_equal(l->cfg.spec.deadlock, TT_DL_NONE);
	assert_int_equal(l->cfg.set, TT_CFG_DIMS | TT_CFG_TWIN | TT_CFG_DEADLOCK);
	load_free(l);
}

static void
test_custom_map_fills_card_ports(void **state)
{
	struct load *l = load_text(
	    "torus:\n"
	    "  dims: [4, 4, 4]\n"
	    "  ports:\n"
	    "    card0: [X+, Y+, X-]\n"
	    "    card1: [Y-, Z+, d2-]\n");

	(void)state;
	assert_int_equal(l->nerr, 0);
	assert_int_equal(l->cfg.spec.ports_kind, TT_PORTS_CUSTOM);
	assert_int_equal(l->cfg.spec.ncard[0], 3);
	assert_int_equal(l->cfg.spec.ncard[1], 3);
	assert_int_equal(l->cfg.spec.card_ports[0][0], tt_port_of(0, 0));
	assert_int_equal(l->cfg.spec.card_ports[0][1], tt_port_of(1, 0));
	assert_int_equal(l->cfg.spec.card_ports[0][2], tt_port_of(0, 1));
	assert_int_equal(l->cfg.spec.card_ports[1][0], tt_port_of(1, 1));
	assert_int_equal(l->cfg.spec.card_ports[1][1], tt_port_of(2, 0));
	assert_int_equal(l->cfg.spec.card_ports[1][2], tt_port_of(2, 1));
	load_free(l);
}

/* Port names depend on n, and dims may come after ports in the file. */
static void
test_custom_map_before_dims(void **state)
{
	struct load *l = load_text(
	    "torus:\n"
	    "  ports:\n"
	    "    card0: [d0+, d0-, d2+, d2-]\n"
	    "    card1: [d1+, d1-, d3+, d3-]\n"
	    "  dims: [3, 3, 3, 3]\n");

	(void)state;
	assert_int_equal(l->nerr, 0);
	assert_int_equal(l->cfg.spec.n, 4);
	assert_int_equal(l->cfg.spec.ncard[0], 4);
	assert_int_equal(l->cfg.spec.card_ports[0][2], tt_port_of(2, 0));
	load_free(l);
}

/* nodes: is stored for ttd, with where each port map entry stands. */
static void
test_nodes_are_stored(void **state)
{
	struct load *l = load_text(
	    "torus: {dims: [2, 3]}\n"
	    "nodes:\n"
	    "  - host: a\n"
	    "    coord: [1, 2]\n"
	    "    cards:\n"
	    "      - { pci: \"0000:03:00.0\", ports: { e0: X+, e1: Y-, e2: internal } }\n"
	    "      - { ports: { f0: X-, f1: Y+, f2: internal } }\n"
	    "  - host: b\n"
	    "    coord: [0, 0]\n"
	    "pes: {tap: \"pe%u\", subnet: 10.9.0.0/20}\n");
	const tt_cfg_node *a, *b;

	(void)state;
	assert_int_equal(l->nerr, 0);
	assert_int_equal(l->cfg.nnodes, 2);
	a = &l->cfg.nodes[0];
	b = &l->cfg.nodes[1];
	assert_string_equal(a->host, "a");
	assert_int_equal(a->coord[0], 1);
	assert_int_equal(a->coord[1], 2);
	assert_int_equal(a->ncards, 2);
	assert_string_equal(a->cards[0].pci, "0000:03:00.0");
	assert_int_equal(a->cards[0].nports, 3);
	assert_string_equal(a->cards[0].ports[1].key, "e1");
	assert_int_equal(a->cards[0].ports[1].port, tt_port_of(1, 1));
	assert_int_equal(a->cards[0].ports[1].line, 6);
	assert_int_equal(a->cards[0].ports[2].port, TT_PORT_INT);
	assert_string_equal(a->cards[1].pci, "");
	assert_int_equal(a->cards[1].ports[0].port, tt_port_of(0, 1));
	assert_int_equal(b->ncards, 0);		/* automatic map */
	assert_string_equal(l->cfg.pe_tap, "pe%u");
	assert_int_equal(l->cfg.pe_subnet, 0x0a090000);
	assert_int_equal(l->cfg.pe_prefix, 20);
	load_free(l);
}

static void
test_example_configs_load(void **state)
{
	static const char *const files[] = {
		"yaml/3dt-4x4x4.yaml", "yaml/3dt-5x5x5-g.yaml",
		"yaml/3dt-4x4x2.yaml", "yaml/2d-16x8.yaml",
		"yaml/ndt-5x5x5x5.yaml",
	};
	tt_config cfg;
	char path[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", TT_SRCDIR, files[i]);
		if (tt_config_load(&cfg, path, stderr) != 0)
			fail_msg("%s does not load", path);
		tt_config_free(&cfg);
	}
	snprintf(path, sizeof(path), "%s/yaml/3dt-4x4x4.yaml", TT_SRCDIR);
	assert_int_equal(tt_config_load(&cfg, path, NULL), 0);
	assert_int_equal(cfg.spec.letter, 'D');
	assert_int_equal(cfg.has_nodes, 1);
	assert_int_equal(cfg.has_trace, 1);
	tt_config_free(&cfg);
	snprintf(path, sizeof(path), "%s/yaml/ndt-5x5x5x5.yaml", TT_SRCDIR);
	assert_int_equal(tt_config_load(&cfg, path, NULL), 0);
	assert_int_equal(cfg.spec.n, 4);
	assert_int_equal(cfg.spec.ports_kind, TT_PORTS_BEST);
	tt_config_free(&cfg);
}

/* ---- files that cannot be read ---- */

static void
test_missing_file(void **state)
{
	tt_config cfg;
	char *out = NULL;
	size_t len = 0;
	FILE *errs = open_memstream(&out, &len);

	(void)state;
	assert_int_equal(tt_config_load(&cfg, "/nonexistent/tt.yaml", errs), 1);
	fclose(errs);
	assert_string_equal(out,
	    "/nonexistent/tt.yaml: cannot open: No such file or directory\n");
	free(out);
}

static void
test_directory_is_not_a_file(void **state)
{
	tt_config cfg;

	(void)state;
	assert_int_equal(tt_config_load(&cfg, "/tmp", NULL), 1);
}

static void
test_empty_file(void **state)
{
	(void)state;
	assert_one_error("", 1, 1, "the file is empty");
	assert_one_error("# only a comment\n", 1, 1, "the file is empty");
}

static void
test_syntax_error_is_one_error(void **state)
{
	(void)state;
	assert_one_error("torus:\n  dims: [4, 4, 4\n  ports: D\n", 3, 8,
	    "did not find expected ',' or ']'");
}

static void
test_top_level_must_be_a_mapping(void **state)
{
	(void)state;
	assert_one_error("- torus\n", 1, 1, "top level must be a mapping");
	assert_one_error("network: {packet_flits: 4}\n", 1, 1,
	    "missing section torus");
}

/* ---- torus: ---- */

static void
test_dims_errors(void **state)
{
	(void)state;
	assert_one_error("torus:\n  dims: [4]\n", 2, 9,
	    "torus.dims: a torus needs at least 2 dimensions, got 1");
	assert_one_error("torus:\n  dims: [1, 4]\n", 2, 10,
	    "torus.dims[0]: 1 is out of range (each dimension has 2..65535 "
	    "nodes)");
	assert_one_error("torus:\n  dims: [4, 4, 4, 4, 4, 4, 4, 4, 4]\n", 2, 9,
	    "at most 8 dimensions");
	assert_one_error("torus:\n  dims: [4, x]\n", 2, 13,
	    "torus.dims[1]: expected an integer, got \"x\"");
	assert_one_error("torus:\n  dims: 4\n", 2, 9,
	    "torus.dims: expected a list");
	assert_one_error("torus:\n  ports: D\n", 1, 1, "torus: missing dims");
}

static void
test_twin_and_deadlock_errors(void **state)
{
	(void)state;
	assert_one_error("torus:\n  dims: [4, 4]\n  twin: 2\n", 3, 9,
	    "torus.twin: expected true or false, got \"2\"");
	assert_one_error("torus:\n  dims: [4, 4]\n  deadlock: escape\n", 3, 13,
	    "torus.deadlock: expected vc, bubble or none, got \"escape\"");
}

static void
test_ports_errors(void **state)
{
	(void)state;
	assert_one_error("torus:\n  dims: [4, 4, 4, 4]\n  ports: D\n", 3, 10,
	    "configuration D is defined for 3 dimensions only");
	assert_one_error("torus:\n  dims: [4, 4, 4]\n  ports: K\n", 3, 10,
	    "torus.ports: expected A..J, best or a {card0");
	assert_one_error("torus:\n  dims: [4, 4]\n  twin: false\n  ports: best\n",
	    4, 10, "a plain torus (twin: false) has one card");
}

static void
test_ports_map_errors(void **state)
{
	(void)state;
	/* repeated: both places named */
	assert_one_error("torus:\n  dims: [4, 4, 4]\n  ports:\n"
	    "    card0: [X+, Y+, X-]\n    card1: [Y-, Z+, Z-, Y+]\n", 5, 25,
	    "torus.ports.card1[3]: Y+ is already listed at "
	    "torus.ports.card0[1] (line 4)");
	/* omitted: named, pointing at the map */
	assert_one_error("torus:\n  dims: [4, 4, 4]\n  ports:\n"
	    "    card0: [X+, Y+, X-]\n    card1: [Y-, Z+]\n", 4, 5,
	    "torus.ports: Z- is on neither card");
	/* a card with more than n external ports */
	assert_one_error("torus:\n  dims: [4, 4, 4]\n  ports:\n"
	    "    card0: [X+, Y+, X-, Z+]\n    card1: [Y-, Z-]\n", 4, 12,
	    "torus.ports.card0: 4 ports listed; each card holds 3 external "
	    "ports plus the internal link");
	/* unknown name */
	assert_one_error("torus:\n  dims: [4, 4, 4]\n  ports:\n"
	    "    card0: [X+, Y+, X-]\n    card1: [Y-, Z+, W-]\n", 5, 21,
	    "unknown port \"W-\"");
	/* X/Y/Z names exist up to 3 dimensions only */
	assert_one_error("torus:\n  dims: [4, 4, 4, 4]\n  ports:\n"
	    "    card0: [d0+, d0-, d1+, d1-]\n    card1: [d2+, d2-, d3+, Z+]\n",
	    5, 28, "unknown port \"Z+\"; a 4-dimensional torus has");
	/* the internal link is not listed */
	assert_one_error("torus:\n  dims: [4, 4]\n  ports:\n"
	    "    card0: [X+, X-, internal]\n    card1: [Y+, Y-]\n", 4, 21,
	    "the internal link is implicit");
	/* a card missing altogether */
	assert_one_error("torus:\n  dims: [4, 4]\n  ports: {card0: [X+, X-]}\n",
	    3, 10, "torus.ports: missing card1");
	/* a plain torus has nothing to map */
	assert_one_error("torus:\n  dims: [4, 4]\n  twin: no\n  ports:\n"
	    "    card0: [X+, X-]\n    card1: [Y+, Y-]\n", 5, 5,
	    "a plain torus (twin: false)");
}

/* A spec the loader accepts but the model cannot build: tt_net_init says. */
static void
test_model_has_the_last_word(void **state)
{
	(void)state;
	assert_one_error("# huge\ntorus:\n  dims: [65535, 65535, 65535]\n",
	    2, 1, "torus: the torus has more than 67108864 nodes");
}

/* ---- keys ---- */

static void
test_unknown_and_duplicate_keys(void **state)
{
	(void)state;
	assert_one_error("torus:\n  dims: [4, 4]\n  dim: [4, 4]\n", 3, 3,
	    "unknown key torus.dim (expected dims, twin, ports or deadlock)");
	assert_one_error("torus:\n  dims: [4, 4]\nrouting: dor\n", 3, 1,
	    "unknown section routing (expected torus, network, nodes, trace, "
	    "addresses, pes, credits, topology or model)");
	assert_one_error("torus:\n  dims: [4, 4]\nnetwork: {mtu: 9000}\n", 3, 11,
	    "unknown key network.mtu");
	assert_one_error("torus:\n  dims: [4, 4]\n  dims: [8, 8]\n", 3, 3,
	    "duplicate key torus.dims (first at line 2)");
	assert_one_error("torus: {dims: [4, 4]}\n\ntorus: {dims: [4, 4]}\n",
	    3, 1, "duplicate section torus (first at line 1)");
}

static void
test_section_types(void **state)
{
	(void)state;
	assert_one_error("torus: 4x4\n", 1, 8, "torus: expected a mapping");
	assert_one_error("torus: {dims: [4, 4]}\nnetwork: 5\n", 2, 10,
	    "network: expected a mapping");
	assert_one_error("torus: {dims: [4, 4]}\nnodes: {a: b}\n", 2, 8,
	    "nodes: expected a list");
	assert_one_error("torus: {dims: [4, 4]}\ntrace:\n", 2, 1,
	    "trace: expected a mapping with keys dir, rotate_mb, keep, ports; got an "
	    "empty value");
}

/* ---- network: and trace: ---- */

static void
test_network_ranges(void **state)
{
	(void)state;
	assert_one_error("torus: {dims: [4, 4]}\nnetwork: {packet_flits: 0}\n",
	    2, 25, "network.packet_flits: 0 is out of range (1..1024)");
	assert_one_error("torus: {dims: [4, 4]}\nnetwork: {packet_flits: 1025}\n",
	    2, 25, "(1..1024)");
	assert_one_error("torus: {dims: [4, 4]}\nnetwork: {buffer_flits: 0}\n",
	    2, 25, "network.buffer_flits: 0 is out of range (1..1048576)");
	assert_one_error("torus: {dims: [4, 4]}\nnetwork: {flit_bytes: 65537}\n",
	    2, 23, "network.flit_bytes: 65537 is out of range (1..65536)");
	assert_one_error("torus: {dims: [4, 4]}\nnetwork: {link_gbps: 0}\n",
	    2, 22, "network.link_gbps: 0 is out of range");
	assert_one_error("torus: {dims: [4, 4]}\nnetwork: {link_gbps: 10001}\n",
	    2, 22, "network.link_gbps: 10001 is out of range");
	/* a link so slow that trace times overflow the cycle count */
	assert_one_error("torus: {dims: [4, 4]}\nnetwork: {link_gbps: 1e-300}\n",
	    2, 22, "network.link_gbps: 1e-300 is out of range (0.001..10000)");
	assert_one_error("torus: {dims: [4, 4]}\nnetwork: {link_gbps: .inf}\n",
	    2, 22, "network.link_gbps: expected a number");
	assert_one_error("torus: {dims: [4, 4]}\nnetwork: {flit_bytes: 1.5}\n",
	    2, 23, "network.flit_bytes: expected an integer, got \"1.5\"");
}

static void
test_buffer_must_hold_a_packet(void **state)
{
	(void)state;
	assert_one_error("torus: {dims: [4, 4]}\nnetwork:\n  packet_flits: 8\n"
	    "  buffer_flits: 4\n", 4, 17,
	    "network.buffer_flits: 4 is less than packet_flits (8)");
	/* against the default buffer when the file sets none */
	assert_one_error("torus: {dims: [4, 4]}\nnetwork:\n  packet_flits: 200\n",
	    3, 17, "network.packet_flits: 200 is more than buffer_flits (128, "
	    "the default)");
}

static void
test_trace_errors(void **state)
{
	(void)state;
	assert_one_error("torus: {dims: [4, 4]}\ntrace: {keep: 0}\n", 2, 15,
	    "trace.keep: 0 is out of range (at least 1)");
	assert_one_error("torus: {dims: [4, 4]}\ntrace: {rotate_mb: big}\n", 2,
	    20, "trace.rotate_mb: expected an integer, got \"big\"");
	assert_one_error("torus: {dims: [4, 4]}\ntrace: {dir: [a]}\n", 2, 14,
	    "trace.dir: expected a directory path, got a list");
	assert_one_error("torus: {dims: [4, 4]}\ntrace: {dir: \"\"}\n", 2, 14,
	    "trace.dir: expected a directory path, got \"\"");
}

/* ---- all errors, in file order ---- */

static void
test_every_error_is_reported_in_file_order(void **state)
{
	struct load *l = load_text(
	    "torus:\n"					/* 1 */
	    "  ports: {card0: [X+, Y+, X-], card1: [Y-, Z+, W-]}\n"
	    "  dims: [4, 0, 4]\n"
	    "  twin: maybe\n"
	    "  deadlock: vc\n"				/* 5 */
	    "  deadlock: bubble\n"
	    "network:\n"
	    "  packet_flits: 8\n"
	    "  buffer_flits: 4\n"
	    "  link_gbps: fast\n"			/* 10 */
	    "trace:\n"
	    "  keep: 0\n"
	    "  rotate: 100\n"
	    "colour: blue\n");
	unsigned long prev_line = 0, prev_col = 0, line, col;
	const char *p;

	(void)state;
	assert_int_equal(l->nerr, 9);
	assert_int_equal(count_lines(l), 9);
	assert_error_at(l, 2, 48, "torus.ports.card1[2]: unknown port \"W-\"");
	assert_error_at(l, 3, 13, "torus.dims[1]: 0 is out of range");
	assert_error_at(l, 4, 9, "torus.twin");
	assert_error_at(l, 6, 3, "duplicate key torus.deadlock (first at line 5)");
	assert_error_at(l, 9, 17, "network.buffer_flits: 4 is less than");
	assert_error_at(l, 10, 14, "network.link_gbps: expected a number");
	assert_error_at(l, 12, 9, "trace.keep");
	assert_error_at(l, 13, 3, "unknown key trace.rotate");
	assert_error_at(l, 14, 1, "unknown section colour");
	for (p = l->errs; *p != '\0'; p = strchr(p, '\n') + 1) {
		assert_int_equal(sscanf(p + strlen(l->path), ":%lu:%lu:", &line,
		    &col), 2);
		assert_true(line > prev_line ||
		    (line == prev_line && col >= prev_col));
		prev_line = line;
		prev_col = col;
	}
	load_free(l);
}

/* Without a stream the loader still counts; nothing else changes. */
static void
test_count_without_stream(void **state)
{
	char path[64];
	tt_config cfg;
	int nerr;

	(void)state;
	write_file(path, sizeof(path),
	    "torus:\n  dims: [1, 1]\n  twin: 3\nnetwork: {flit_bytes: 0}\n");
	nerr = tt_config_load(&cfg, path, NULL);
	unlink(path);
	assert_int_equal(nerr, 4);
}

/* ---- size: linear in the file, bounded in what it prints ---- */

/*
 * A cluster of 65,536 nodes (64x32x32, automatic port maps) loads: the
 * checks for repeated hosts and coordinates are hashed, not pairwise.  How
 * fast is measured in bench/RESULTS.md, not here.
 */
static void
test_big_cluster_loads(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	unsigned x, y, z;
	struct load *l;

	(void)state;
	assert_non_null(f);
	fprintf(f, "torus: {dims: [64, 32, 32]}\npes: {subnet: 10.0.0.0/14}\n"
	    "nodes:\n");
	for (z = 0; z < 32; z++)
		for (y = 0; y < 32; y++)
			for (x = 0; x < 64; x++)
				fprintf(f, "  - {host: n%u-%u-%u, coord: [%u, %u, "
				    "%u]}\n", x, y, z, x, y, z);
	assert_int_equal(fclose(f), 0);
	l = load_text(text);
	free(text);
	if (l->nerr != 0)
		fail_msg("%d errors:\n%.2000s", l->nerr, l->errs);
	assert_int_equal(l->cfg.nnodes, 65536);
	assert_string_equal(l->cfg.nodes[65535].host, "n63-31-31");
	assert_int_equal(l->cfg.nodes[65535].coord[0], 63);
	assert_int_equal(l->cfg.nodes[65535].coord[2], 31);
	load_free(l);
}

/*
 * 1,000 copies of one node: each copy is one repeated host and one
 * repeated coordinate (against the first, not against every copy before
 * it), all counted, ten of each kind printed and then how many more.
 */
static void
test_repeated_errors_capped(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct load *l;
	int i;

	(void)state;
	assert_non_null(f);
	fprintf(f, "torus: {dims: [4, 4, 4]}\nnodes:\n");
	for (i = 0; i < 1000; i++)
		fprintf(f, "  - {host: n0, coord: [0, 0, 0]}\n");
	assert_int_equal(fclose(f), 0);
	l = load_text(text);
	free(text);
	assert_int_equal(l->nerr, 2 * 999);
	assert_int_equal(count_lines(l), 2 * (10 + 1));
	assert_error_at(l, 4, 5, "nodes[1]: host n0 is listed twice (first on "
	    "line 3)");
	assert_error_at(l, 13, 5, "nodes[10]: the coordinate repeats that of "
	    "nodes[0] (line 3)");
	assert_error_at(l, 13, 5, "... and 989 more like the one above, the "
	    "first on line 14 (not shown)");
	load_free(l);
}

/* Thousands of addresses, and one mapped twice: found through a hash. */
static void
test_many_addresses(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct load *l;
	int i;

	(void)state;
	assert_non_null(f);
	fprintf(f, "torus: {dims: [64, 64]}\naddresses:\n");
	for (i = 0; i < 8192; i++)
		fprintf(f, "  10.1.%d.%d: %d\n", i / 256, i % 256, i);
	fprintf(f, "  10.1.0.7: 1\n");
	assert_int_equal(fclose(f), 0);
	l = load_text(text);
	free(text);
	assert_int_equal(l->nerr, 1);
	assert_int_equal(l->cfg.naddrs, 8192);
	assert_error_at(l, 8195, 3, "addresses: 10.1.0.7 is mapped twice (first "
	    "on line 10)");
	load_free(l);
}

/* Nesting deeper than a cluster file has: one error, at once. */
static void
test_deep_nesting_refused(void **state)
{
	char text[256];
	int i, o;

	(void)state;
	o = snprintf(text, sizeof(text), "torus: ");
	for (i = 0; i < 100; i++)
		text[o++] = '[';
	text[o++] = '\n';
	text[o] = '\0';
	/* the top-level mapping is level 1: the 33rd level opens at the
	 * 32nd '[' (column 7 + 32) */
	assert_one_error(text, 1, 39, "nesting deeper than 32 levels (a "
	    "cluster file has at most 6)");
}

/* A file bigger than a cluster file can be: refused before it is read. */
static void
test_huge_file_refused(void **state)
{
	char path[64];
	char *errs = NULL;
	size_t len = 0;
	FILE *f;
	tt_config cfg;

	(void)state;
	write_file(path, sizeof(path), "torus: {dims: [4, 4]}\n");
	assert_int_equal(truncate(path, 65 << 20), 0);	/* sparse */
	f = open_memstream(&errs, &len);
	assert_non_null(f);
	assert_int_equal(tt_config_load(&cfg, path, f), 1);
	fclose(f);
	unlink(path);
	assert_non_null(strstr(errs, ": 68157440 bytes, more than a cluster "
	    "file may have (64 MiB); is it the right file?"));
	free(errs);
	tt_config_free(&cfg);
}

/* A second document would be ignored silently: it is an error. */
static void
test_one_document_per_file(void **state)
{
	(void)state;
	assert_one_error("torus: {dims: [4, 4]}\n---\ntorus: {dims: [8, 8]}\n",
	    2, 1, "a second YAML document");
}

/* Bad bytes get a position computed from their offset. */
static void
test_invalid_utf8_position(void **state)
{
	(void)state;
	assert_one_error("torus:\n  dims: [4, 4]\n  ports: \xff\n", 3, 10,
	    "invalid leading UTF-8 octet");
}

/* topology: names a generated network, as a spec or as a mapping. */
static void
test_topology_section(void **state)
{
	struct load *l;

	(void)state;
	l = load_text("topology: \"tesh:m=2,L=2,q=0\"\n");
	assert_int_equal(l->nerr, 0);
	assert_int_equal(l->cfg.spec.topo, TT_TOPO_TESH);
	assert_int_equal(l->cfg.spec.gen.L, 2);
	load_free(l);
	l = load_text("topology: {kind: pruned, k: 8}\n");
	assert_int_equal(l->nerr, 0);
	assert_int_equal(l->cfg.spec.topo, TT_TOPO_PRUNED);
	assert_int_equal(l->cfg.spec.gen.k, 8);
	load_free(l);
	assert_one_error("topology: {kind: pruned, j: 8}\n", 1, 11,
	    "'j' is not a key of pruned");
	assert_one_error("network: {packet_flits: 4}\ntopology: tesh:L=9\n", 2,
	    11, "tesh: L=9");
	assert_one_error("topology: tesh:L=2\ntorus: {dims: [4, 4]}\n", 1, 1,
	    "both name the network");
	assert_one_error("topology: tesh:L=1\nnodes: []\n", 2, 1,
	    "ttd, which runs twin and plain tori only");
}

/*
 * topology: a key given twice is refused where it stands, in the mapping
 * and in the spec string; an explicit 0 is refused, naming the key,
 * where 0 is not a valid value (tesh's q: 0 is); a value that would
 * read as more keys is refused.
 */
static void
test_topology_repeats_and_zeros(void **state)
{
	struct load *l;

	(void)state;
	assert_one_error("topology: {kind: pruned, k: 8, k: 4}\n", 1, 32,
	    "duplicate key topology.k (first at line 1)");
	assert_one_error("topology:\n  kind: tesh\n  L: 1\n  kind: msn\n", 4,
	    3, "duplicate key topology.kind (first at line 2)");
	assert_one_error("topology: \"pruned:k=8,k=4\"\n", 1, 11,
	    "'k=4': k is given twice");
	assert_one_error("topology: {kind: pruned, k: 8, n: 0}\n", 1, 11,
	    "pruned: n=0");
	assert_one_error("topology: {kind: tesh, m: 2, L: 0, q: 0}\n", 1, 11,
	    "tesh: L=0");
	assert_one_error("topology: tesh:m=2,L=0,q=0\n", 1, 11, "tesh: L=0");
	assert_one_error("topology: {kind: mh3dt, m: 3, n: 2, q: 0}\n", 1, 11,
	    "mh3dt: q=0");
	assert_one_error("topology: {kind: pruned, k: \"8,k=4\"}\n", 1, 29,
	    "topology.k: expected a name or a whole number, got \"8,k=4\"");
	l = load_text("topology: {kind: tesh, L: 1, q: 0}\n");
	assert_int_equal(l->nerr, 0);
	assert_int_equal(l->cfg.spec.gen.L, 1);
	load_free(l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal_file_takes_defaults),
		cmocka_unit_test(test_full_file_sets_every_value),
		cmocka_unit_test(test_plain_torus),
		cmocka_unit_test(test_custom_map_fills_card_ports),
		cmocka_unit_test(test_custom_map_before_dims),
		cmocka_unit_test(test_nodes_are_stored),
		cmocka_unit_test(test_example_configs_load),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_directory_is_not_a_file),
		cmocka_unit_test(test_empty_file),
		cmocka_unit_test(test_syntax_error_is_one_error),
		cmocka_unit_test(test_top_level_must_be_a_mapping),
		cmocka_unit_test(test_dims_errors),
		cmocka_unit_test(test_twin_and_deadlock_errors),
		cmocka_unit_test(test_ports_errors),
		cmocka_unit_test(test_ports_map_errors),
		cmocka_unit_test(test_model_has_the_last_word),
		cmocka_unit_test(test_unknown_and_duplicate_keys),
		cmocka_unit_test_teardown(test_topology_section, free_pending),
		cmocka_unit_test_teardown(test_topology_repeats_and_zeros,
		    free_pending),
		cmocka_unit_test(test_section_types),
		cmocka_unit_test(test_network_ranges),
		cmocka_unit_test(test_buffer_must_hold_a_packet),
		cmocka_unit_test(test_trace_errors),
		cmocka_unit_test(test_every_error_is_reported_in_file_order),
		cmocka_unit_test(test_count_without_stream),
		cmocka_unit_test(test_big_cluster_loads),
		cmocka_unit_test(test_repeated_errors_capped),
		cmocka_unit_test(test_many_addresses),
		cmocka_unit_test(test_deep_nesting_refused),
		cmocka_unit_test(test_huge_file_refused),
		cmocka_unit_test(test_one_document_per_file),
		cmocka_unit_test(test_invalid_utf8_position),
	};

	return cmocka_run_group_tests(tests, NULL, free_pending);
}
