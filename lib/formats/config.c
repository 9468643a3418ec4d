/*
 * The YAML cluster description.
 *
 * The file is loaded whole with libyaml's document API and then walked
 * section by section.  Nothing stops at the first problem: every error is
 * collected with its position, and at the end they are printed in file
 * order, so a user fixes a config in one pass (as with OpenBGPD's parser).
 *
 * Inside torus: the keys are read first and interpreted afterwards, because
 * port names only make sense once dims is known and dims may come after
 * ports in the file.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <yaml.h>

#include "formats/cfg.h"
#include "twintorus/outfile.h"

/* ---- error collection ---- */

/* The kind of a message is its format; NULL when out of memory (then
 * nothing is capped). */
static struct cfg_kind *
cfg_kind_of(struct cfg_ctx *cx, const char *fmt)
{
	struct cfg_kind *k;
	size_t i;

	for (i = 0; i < cx->nkinds; i++)
		if (cx->kinds[i].fmt == fmt)
			return &cx->kinds[i];
	if (cx->nkinds == cx->kcap) {
		size_t cap = cx->kcap ? cx->kcap * 2 : 16;

		k = realloc(cx->kinds, cap * sizeof(*k));
		if (k == NULL)
			return NULL;
		cx->kinds = k;
		cx->kcap = cap;
	}
	k = &cx->kinds[cx->nkinds++];
	memset(k, 0, sizeof(*k));
	k->fmt = fmt;
	return k;
}

/* A message slot at mark; NULL when out of memory. */
static struct cfg_msg *
cfg_msg_new(struct cfg_ctx *cx, const yaml_mark_t *mark, size_t seq)
{
	struct cfg_msg *m;

	if (cx->nmsgs == cx->cap) {
		size_t cap = cx->cap ? cx->cap * 2 : 16;

		m = realloc(cx->msgs, cap * sizeof(*m));
		if (m == NULL)
			return NULL;
		cx->msgs = m;
		cx->cap = cap;
	}
	m = &cx->msgs[cx->nmsgs++];
	m->line = (unsigned long)mark->line + 1;
	m->col = (unsigned long)mark->column + 1;
	m->seq = seq;
	return m;
}

void
cfg_err(struct cfg_ctx *cx, const yaml_mark_t *mark, const char *fmt, ...)
{
	struct cfg_kind *k;
	struct cfg_msg *m;
	va_list ap;

	cx->nerr++;
	if (cx->errs == NULL)
		return;
	k = cfg_kind_of(cx, fmt);
	if (k != NULL && k->shown == CFG_KIND_SHOWN) {
		if (k->more++ == 0)
			k->first_more = (unsigned long)mark->line + 1;
		return;
	}
	/* even sequence numbers: a kind's "and N more" goes just after */
	m = cfg_msg_new(cx, mark, 2 * cx->nmsgs);
	if (m == NULL) {
		/* Out of order beats lost: print this one now. */
		fprintf(cx->errs, "%s:%lu:%lu: ", cx->path,
		    (unsigned long)mark->line + 1,
		    (unsigned long)mark->column + 1);
		va_start(ap, fmt);
		vfprintf(cx->errs, fmt, ap);
		va_end(ap);
		fputc('\n', cx->errs);
		return;
	}
	if (k != NULL) {
		k->shown++;
		k->last_seq = m->seq;
	}
	va_start(ap, fmt);
	vsnprintf(m->text, sizeof(m->text), fmt, ap);
	va_end(ap);
}

static int
cfg_msg_cmp(const void *a, const void *b)
{
	const struct cfg_msg *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* After the last shown message of each capped kind: how many more. */
static void
cfg_add_counts(struct cfg_ctx *cx)
{
	const struct cfg_msg *last;
	struct cfg_msg *m;
	yaml_mark_t at;
	size_t i;

	for (i = 0; i < cx->nkinds; i++) {
		if (cx->kinds[i].more == 0)
			continue;
		last = &cx->msgs[cx->kinds[i].last_seq / 2];
		at.line = last->line - 1;
		at.column = last->col - 1;
		at.index = 0;
		m = cfg_msg_new(cx, &at, cx->kinds[i].last_seq + 1);
		if (m == NULL)
			return;
		snprintf(m->text, sizeof(m->text), "... and %zu more like the "
		    "one above, the first on line %lu (not shown)",
		    cx->kinds[i].more, cx->kinds[i].first_more);
	}
}

static void
cfg_flush(struct cfg_ctx *cx)
{
	size_t i;

	cfg_add_counts(cx);
	if (cx->nmsgs > 1)
		qsort(cx->msgs, cx->nmsgs, sizeof(cx->msgs[0]), cfg_msg_cmp);
	for (i = 0; i < cx->nmsgs; i++)
		fprintf(cx->errs, "%s:%lu:%lu: %s\n", cx->path,
		    cx->msgs[i].line, cx->msgs[i].col, cx->msgs[i].text);
	free(cx->msgs);
	cx->msgs = NULL;
	cx->nmsgs = cx->cap = 0;
}

/* ---- nodes ---- */

yaml_node_t *
cfg_node(struct cfg_ctx *cx, int id)
{
	return yaml_document_get_node(cx->doc, id);
}

const char *
cfg_text(const yaml_node_t *node)
{
	return (const char *)node->data.scalar.value;
}

/* A scalar usable as a C string (no NUL escaped into it). */
int
cfg_is_text(const yaml_node_t *node)
{
	return node != NULL && node->type == YAML_SCALAR_NODE &&
	    strlen(cfg_text(node)) == node->data.scalar.length;
}

/* YAML's null: "key:" with nothing after it, "~" or "null", unquoted. */
int
cfg_is_null(const yaml_node_t *node)
{
	const char *s;

	if (node == NULL || node->type != YAML_SCALAR_NODE ||
	    node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	s = cfg_text(node);
	return *s == '\0' || strcmp(s, "~") == 0 || strcasecmp(s, "null") == 0;
}

/*
 * A value as it may appear inside a message: quoted, escaped to one line
 * and cut short, since it can be anything the user typed.
 */
const char *
cfg_quote(const yaml_node_t *node, char *buf, size_t bufsz)
{
	const unsigned char *s = node->data.scalar.value;
	size_t len = node->data.scalar.length, i, o = 0;
	char esc[8];

	buf[o++] = '"';
	for (i = 0; i < len && i < CFG_QUOTE_MAX; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			snprintf(esc, sizeof(esc), "\\%c", c);
		else if (c == '\n')
			snprintf(esc, sizeof(esc), "\\n");
		else if (c == '\t')
			snprintf(esc, sizeof(esc), "\\t");
		else if (c < 0x20 || c == 0x7f)
			snprintf(esc, sizeof(esc), "\\x%02x", c);
		else
			snprintf(esc, sizeof(esc), "%c", c);
		if (o + strlen(esc) + 5 > bufsz)
			break;
		memcpy(buf + o, esc, strlen(esc));
		o += strlen(esc);
	}
	if (i < len) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}

/* A number the user wrote, unquoted but cut short like any value. */
const char *
cfg_number(const yaml_node_t *node, char *buf, size_t bufsz)
{
	size_t len = node->data.scalar.length;

	if (len > CFG_QUOTE_MAX)
		snprintf(buf, bufsz, "%.*s...", CFG_QUOTE_MAX, cfg_text(node));
	else
		snprintf(buf, bufsz, "%s", cfg_text(node));
	return buf;
}

/* What a node is, for "expected X, got Y". */
const char *
cfg_describe(const yaml_node_t *node, char *buf, size_t bufsz)
{
	switch (node->type) {
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	case YAML_SCALAR_NODE:
		if (cfg_is_null(node))
			return "an empty value";
		return cfg_quote(node, buf, bufsz);
	default:
		return "nothing";
	}
}

/* A key name for a message: bare when it is a plain word, quoted otherwise. */
static const char *
cfg_keyname(const yaml_node_t *key, char *buf, size_t bufsz)
{
	const char *s = cfg_text(key);
	size_t i;

	for (i = 0; s[i] != '\0'; i++)
		if (!isalnum((unsigned char)s[i]) && strchr("_-+.", s[i]) == NULL)
			break;
	if (s[i] == '\0' && i > 0 && i == key->data.scalar.length &&
	    i < bufsz) {
		memcpy(buf, s, i + 1);
		return buf;
	}
	return cfg_quote(key, buf, bufsz);
}

/* "dims, twin, ports or deadlock" */
static const char *
cfg_namelist(struct cfg_key *keys, size_t nkeys, char *buf, size_t bufsz)
{
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < nkeys && o < bufsz; i++)
		o += (size_t)snprintf(buf + o, bufsz - o, "%s%s",
		    i == 0 ? "" : i + 1 == nkeys ? " or " : ", ", keys[i].name);
	return buf;
}

/*
 * An empty value's own mark lies wherever the next token starts (often the
 * next line), so errors about it point at its key instead.
 */
void
cfg_val_set(struct cfg_val *v, yaml_node_t *node, const yaml_node_t *key,
    const char *fmt, ...)
{
	va_list ap;

	v->node = node;
	v->mark = key != NULL && cfg_is_null(node) ? key->start_mark :
	    node->start_mark;
	va_start(ap, fmt);
	vsnprintf(v->path, sizeof(v->path), fmt, ap);
	va_end(ap);
}

/*
 * Match a mapping's keys against the expected names: unknown and repeated
 * keys are errors; the first occurrence of each expected key is kept.
 * `prefix` is the mapping's path ("torus"), NULL at the top level.  Each
 * key is compared with the few expected names only, never with the keys
 * before it: a mapping of a million keys is checked in linear time.
 */
void
cfg_map_keys(struct cfg_ctx *cx, const yaml_node_t *map, const char *prefix,
    struct cfg_key *keys, size_t nkeys)
{
	yaml_node_pair_t *pair;
	yaml_node_t *key, *val;
	char kb[64], lb[256], db[64];
	size_t i;

	for (pair = map->data.mapping.pairs.start;
	    pair < map->data.mapping.pairs.top; pair++) {
		key = cfg_node(cx, pair->key);
		val = cfg_node(cx, pair->value);
		if (!cfg_is_text(key) || cfg_is_null(key)) {
			cfg_err(cx, &key->start_mark, "%s: a key must be a name, "
			    "got %s", prefix ? prefix : "top level",
			    cfg_describe(key, db, sizeof(db)));
			continue;
		}
		for (i = 0; i < nkeys; i++)
			if (strcmp(keys[i].name, cfg_text(key)) == 0)
				break;
		if (i == nkeys) {
			cfg_err(cx, &key->start_mark, "unknown %s %s%s%s "
			    "(expected %s)", prefix ? "key" : "section",
			    prefix ? prefix : "", prefix ? "." : "",
			    cfg_keyname(key, kb, sizeof(kb)),
			    cfg_namelist(keys, nkeys, lb, sizeof(lb)));
			continue;
		}
		if (keys[i].key != NULL) {
			cfg_err(cx, &key->start_mark, "duplicate %s %s%s%s "
			    "(first at line %lu)", prefix ? "key" : "section",
			    prefix ? prefix : "", prefix ? "." : "",
			    cfg_keyname(key, kb, sizeof(kb)),
			    (unsigned long)keys[i].key->start_mark.line + 1);
			continue;
		}
		keys[i].key = key;
		cfg_val_set(&keys[i].val, val, key, "%s%s%s",
		    prefix ? prefix : "", prefix ? "." : "", keys[i].name);
	}
}

void
cfg_keys_init(struct cfg_key *keys, size_t nkeys, const char *const *names)
{
	size_t i;

	memset(keys, 0, nkeys * sizeof(*keys));
	for (i = 0; i < nkeys; i++)
		keys[i].name = names[i];
}

/* ---- scalar values ---- */

/* 0: an integer; -1: not an integer; 1: an integer beyond long long. */
static int
cfg_parse_int(const yaml_node_t *node, long long *out)
{
	const char *s, *p;
	char *end;

	if (!cfg_is_text(node))
		return -1;
	s = cfg_text(node);
	p = *s == '+' || *s == '-' ? s + 1 : s;
	if (*p == '\0')
		return -1;
	for (; *p != '\0'; p++)
		if (!isdigit((unsigned char)*p))
			return -1;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return errno == ERANGE ? 1 : 0;
}

/* An integer in lo..hi; hi == INT_MAX means "no upper limit" to the user. */
int
cfg_int(struct cfg_ctx *cx, const struct cfg_val *v, long long lo,
    long long hi, int *out)
{
	char qb[64];
	long long x;
	int r;

	r = cfg_parse_int(v->node, &x);
	if (r < 0) {
		cfg_err(cx, &v->mark, "%s: expected an integer, got %s",
		    v->path, cfg_describe(v->node, qb, sizeof(qb)));
		return -1;
	}
	if (r > 0 || x < lo || x > hi) {
		if (hi == INT_MAX)
			cfg_err(cx, &v->mark, "%s: %s is out of range (at least "
			    "%lld)", v->path, cfg_number(v->node, qb,
			    sizeof(qb)), lo);
		else
			cfg_err(cx, &v->mark, "%s: %s is out of range "
			    "(%lld..%lld)", v->path, cfg_number(v->node, qb,
			    sizeof(qb)), lo, hi);
		return -1;
	}
	*out = (int)x;
	return 0;
}

/* A decimal number: digits, point, exponent; no inf, nan or hex. */
int
cfg_double(struct cfg_ctx *cx, const struct cfg_val *v, double *out)
{
	const char *s;
	char *end, qb[64];
	double x;

	if (cfg_is_text(v->node)) {
		s = cfg_text(v->node);
		if (*s != '\0' && strspn(s, "0123456789.eE+-") == strlen(s) &&
		    strpbrk(s, "0123456789") != NULL) {
			x = strtod(s, &end);
			if (*end == '\0' && isfinite(x)) {
				*out = x;
				return 0;
			}
		}
	}
	cfg_err(cx, &v->mark, "%s: expected a number, got %s", v->path,
	    cfg_describe(v->node, qb, sizeof(qb)));
	return -1;
}

int
cfg_bool(struct cfg_ctx *cx, const struct cfg_val *v, int *out)
{
	static const char *const yes[] = {"true", "yes"}, *const no[] = {"false", "no"};
	char qb[64];
	size_t i;

	if (cfg_is_text(v->node)) {
		for (i = 0; i < 2; i++) {
			if (strcasecmp(cfg_text(v->node), yes[i]) == 0) {
				*out = 1;
				return 0;
			}
			if (strcasecmp(cfg_text(v->node), no[i]) == 0) {
				*out = 0;
				return 0;
			}
		}
	}
	cfg_err(cx, &v->mark, "%s: expected true or false, got %s", v->path,
	    cfg_describe(v->node, qb, sizeof(qb)));
	return -1;
}

/* ---- torus: ---- */

/*
 * Returns 0 when dims is good.  *n is the number of dimensions whenever the
 * list has an acceptable length, even if an entry is bad: port names depend
 * only on n, so they can still be checked.
 */
static int
cfg_dims(struct cfg_ctx *cx, const struct cfg_val *v, tt_netspec *spec,
    int *nout)
{
	yaml_node_item_t *it;
	struct cfg_val e;
	char qb[64];
	int n, bad = 0, k;

	if (v->node->type != YAML_SEQUENCE_NODE) {
		cfg_err(cx, &v->mark, "%s: expected a list of node counts such "
		    "as [4, 4, 4], got %s", v->path,
		    cfg_describe(v->node, qb, sizeof(qb)));
		return -1;
	}
	n = (int)(v->node->data.sequence.items.top -
	    v->node->data.sequence.items.start);
	if (n < 2) {
		cfg_err(cx, &v->mark, "%s: a torus needs at least 2 dimensions, "
		    "got %d", v->path, n);
		bad = 1;
	} else if (n > TT_MAX_DIMS) {
		cfg_err(cx, &v->mark, "%s: at most %d dimensions are supported, "
		    "got %d", v->path, TT_MAX_DIMS, n);
		bad = 1;
	} else {
		*nout = n;
	}
	/* Check every entry even when the count is wrong: report all. */
	for (it = v->node->data.sequence.items.start;
	    it < v->node->data.sequence.items.top; it++) {
		int i = (int)(it - v->node->data.sequence.items.start);
		long long x;
		int r;

		cfg_val_set(&e, cfg_node(cx, *it), NULL, "%s[%d]", v->path, i);
		r = cfg_parse_int(e.node, &x);
		if (r < 0) {
			cfg_err(cx, &e.mark, "%s: expected an integer, got %s",
			    e.path, cfg_describe(e.node, qb, sizeof(qb)));
			bad = 1;
			continue;
		}
		if (r > 0 || x < 2 || x > TT_MAX_K) {
			cfg_err(cx, &e.mark, "%s: %s is out of range (each "
			    "dimension has 2..%d nodes)", e.path,
			    cfg_number(e.node, qb, sizeof(qb)), TT_MAX_K);
			bad = 1;
			continue;
		}
		k = (int)x;
		if (i < TT_MAX_DIMS)
			spec->k[i] = k;
	}
	if (bad)
		return -1;
	spec->n = n;
	return 0;
}

/* The names of a custom map's ports, listed for "unknown port" messages. */
const char *
cfg_port_names(int n, char *buf, size_t bufsz)
{
	char pb[8];

	if (n <= 3) {
		size_t o = 0;
		int p;

		for (p = 0; p < 2 * n && o < bufsz; p++)
			o += (size_t)snprintf(buf + o, bufsz - o, "%s%s",
			    p ? " " : "", tt_port_name(p, n, pb, sizeof(pb)));
		if (o < bufsz)
			snprintf(buf + o, bufsz - o, " (or d0+ .. d%d-)", n - 1);
	} else {
		snprintf(buf, bufsz, "d0+ d0- .. d%d+ d%d-", n - 1, n - 1);
	}
	return buf;
}

/*
 * A {card0: [...], card1: [...]} map.  When n is unknown (dims missing or
 * bad) only the shape is checked: names cannot be judged without n.
 */
static int
cfg_ports_map(struct cfg_ctx *cx, const struct cfg_val *v, tt_netspec *spec,
    int n)
{
	static const char *const names[] = {"card0", "card1"};
	struct cfg_key keys[2];
	struct cfg_val e;
	/* where each port was first listed, to name both places */
	struct { int card, idx; unsigned long line; } first[TT_MAX_EXT];
	char qb[64], pb[8], lb[160], missing[128];
	int nerr = cx->nerr, c, p, idx, nmissing, unreadable = 0;
	size_t o;

	cfg_keys_init(keys, 2, names);
	cfg_map_keys(cx, v->node, v->path, keys, 2);
	for (p = 0; p < TT_MAX_EXT; p++)
		first[p].card = -1;
	if (keys[0].key == NULL || keys[1].key == NULL) {
		cfg_err(cx, &v->mark, "%s: missing %s (a custom map gives "
		    "card0: [...] and card1: [...])", v->path,
		    keys[0].key == NULL && keys[1].key == NULL ?
		    "card0 and card1" : keys[0].key == NULL ? "card0" : "card1");
	}
	for (c = 0; c < 2; c++) {
		const struct cfg_val *cv = &keys[c].val;
		yaml_node_item_t *it;

		spec->ncard[c] = 0;
		if (keys[c].key == NULL)
			continue;
		if (cv->node->type != YAML_SEQUENCE_NODE) {
			cfg_err(cx, &cv->mark, "%s: expected a list of ports "
			    "such as [X+, Y+, X-], got %s", cv->path,
			    cfg_describe(cv->node, qb, sizeof(qb)));
			unreadable = 1;
			continue;
		}
		for (it = cv->node->data.sequence.items.start;
		    it < cv->node->data.sequence.items.top; it++) {
			idx = (int)(it - cv->node->data.sequence.items.start);
			cfg_val_set(&e, cfg_node(cx, *it), NULL, "%s[%d]",
			    cv->path, idx);
			if (!cfg_is_text(e.node) || cfg_is_null(e.node)) {
				cfg_err(cx, &e.mark, "%s: expected a port name "
				    "such as X+ or d0-, got %s", e.path,
				    cfg_describe(e.node, qb, sizeof(qb)));
				unreadable = 1;
				continue;
			}
			if (strcasecmp(cfg_text(e.node), "internal") == 0 ||
			    strcasecmp(cfg_text(e.node), "int") == 0) {
				cfg_err(cx, &e.mark, "%s: the internal link is "
				    "implicit; list only the external ports",
				    e.path);
				unreadable = 1;
				continue;
			}
			if (n == 0)
				continue;
			p = tt_port_parse(cfg_text(e.node), n);
			if (!tt_port_is_ext(p) || tt_port_dim(p) >= n) {
				cfg_err(cx, &e.mark, "%s: unknown port %s; a "
				    "%d-dimensional torus has %s", e.path,
				    cfg_quote(e.node, qb, sizeof(qb)), n,
				    cfg_port_names(n, lb, sizeof(lb)));
				unreadable = 1;
				continue;
			}
			if (first[p].card >= 0) {
				cfg_err(cx, &e.mark, "%s: %s is already listed "
				    "at %s.card%d[%d] (line %lu); each port goes "
				    "on exactly one card", e.path,
				    tt_port_name(p, n, pb, sizeof(pb)), v->path,
				    first[p].card, first[p].idx, first[p].line);
				continue;
			}
			first[p].card = c;
			first[p].idx = idx;
			first[p].line = (unsigned long)e.mark.line + 1;
			if (spec->ncard[c] < TT_MAX_EXT)
				spec->card_ports[c][spec->ncard[c]++] = (int8_t)p;
		}
		/* Bad and repeated entries were reported already: not counted. */
		if (n > 0 && spec->ncard[c] > n)
			cfg_err(cx, &cv->mark, "%s: %d ports listed; each card "
			    "holds %d external ports plus the internal link",
			    cv->path, spec->ncard[c], n);
	}
	/*
	 * An omitted port is only worth naming when both cards were given
	 * and every entry was a port: an entry we could not read was likely
	 * meant as the missing one, and its own error says what to fix.
	 */
	if (n > 0 && keys[0].key != NULL && keys[1].key != NULL &&
	    !unreadable) {
		o = 0;
		nmissing = 0;
		missing[0] = '\0';
		for (p = 0; p < 2 * n; p++) {
			if (first[p].card >= 0)
				continue;
			if (o < sizeof(missing))
				o += (size_t)snprintf(missing + o,
				    sizeof(missing) - o, "%s%s",
				    nmissing ? ", " : "",
				    tt_port_name(p, n, pb, sizeof(pb)));
			nmissing++;
		}
		if (nmissing > 0)
			cfg_err(cx, &v->mark, "%s: %s %s on neither card; list "
			    "each of the %d external ports exactly once",
			    v->path, missing, nmissing == 1 ? "is" : "are",
			    2 * n);
	}
	spec->ports_kind = TT_PORTS_CUSTOM;
	return cx->nerr == nerr ? 0 : -1;
}

/* n is 0 when dims is unknown; twin is the file's (or the default) value. */
static int
cfg_ports(struct cfg_ctx *cx, const struct cfg_val *v, tt_netspec *spec,
    int n)
{
	char qb[64], eb[256];

	if (!spec->twin) {
		cfg_err(cx, &v->mark, "%s: a plain torus (twin: false) has one "
		    "card holding all ports; remove ports or set twin: true",
		    v->path);
		return -1;
	}
	if (v->node->type == YAML_MAPPING_NODE)
		return cfg_ports_map(cx, v, spec, n);
	if (!cfg_is_text(v->node) || cfg_is_null(v->node) ||
	    tt_netspec_set_ports(spec, cfg_text(v->node), eb, sizeof(eb)) < 0) {
		cfg_err(cx, &v->mark, "%s: expected A..J, best or a {card0: "
		    "[...], card1: [...]} map, got %s", v->path,
		    cfg_describe(v->node, qb, sizeof(qb)));
		return -1;
	}
	if (spec->ports_kind == TT_PORTS_LETTER && n != 0 && n != 3) {
		cfg_err(cx, &v->mark, "%s: configuration %c is defined for 3 "
		    "dimensions only (seed 000 Table 1) but dims has %d; use "
		    "best or a {card0: [...], card1: [...]} map", v->path,
		    spec->letter, n);
		return -1;
	}
	return 0;
}

static int
cfg_torus(struct cfg_ctx *cx, const yaml_node_t *tkey,
    const struct cfg_val *v, tt_config *cfg)
{
	static const char *const names[] = {"dims", "twin", "ports", "deadlock"};
	enum { K_DIMS, K_TWIN, K_PORTS, K_DEADLOCK, K_N };
	struct cfg_key keys[K_N];
	tt_netspec *spec = &cfg->spec;
	char qb[64], eb[256];
	int nerr = cx->nerr, n = 0;

	if (v->node->type != YAML_MAPPING_NODE) {
		cfg_err(cx, &v->mark, "torus: expected a mapping with keys "
		    "dims, twin, ports, deadlock; got %s",
		    cfg_describe(v->node, qb, sizeof(qb)));
		return -1;
	}
	cfg_keys_init(keys, K_N, names);
	cfg_map_keys(cx, v->node, "torus", keys, K_N);

	if (keys[K_DIMS].key == NULL)
		cfg_err(cx, &tkey->start_mark, "torus: missing dims (the node "
		    "count of each dimension, e.g. dims: [4, 4, 4])");
	else
		cfg_dims(cx, &keys[K_DIMS].val, spec, &n);
	if (keys[K_TWIN].key != NULL)
		cfg_bool(cx, &keys[K_TWIN].val, &spec->twin);
	if (keys[K_DEADLOCK].key != NULL) {
		const struct cfg_val *d = &keys[K_DEADLOCK].val;

		if (!cfg_is_text(d->node) ||
		    tt_deadlock_parse(cfg_text(d->node), &spec->deadlock) < 0)
			cfg_err(cx, &d->mark, "%s: expected vc, bubble or none, "
			    "got %s", d->path,
			    cfg_describe(d->node, qb, sizeof(qb)));
	}
	/* Last: port names need n and twin, whatever the key order. */
	if (keys[K_PORTS].key != NULL)
		cfg_ports(cx, &keys[K_PORTS].val, spec, n);

	cfg->set |= (keys[K_DIMS].key ? TT_CFG_DIMS : 0u) |
	    (keys[K_TWIN].key ? TT_CFG_TWIN : 0u) |
	    (keys[K_PORTS].key ? TT_CFG_PORTS : 0u) |
	    (keys[K_DEADLOCK].key ? TT_CFG_DEADLOCK : 0u);
	if (cx->nerr != nerr)
		return -1;

	/* The model has the last word on what it can build. */
	if (tt_netspec_check(spec, eb, sizeof(eb)) < 0) {
		cfg_err(cx, &tkey->start_mark, "torus: %s", eb);
		return -1;
	}
	return 0;
}

/*
 * topology: the network as a spec string (topology: "tesh:m=2,L=2,q=0",
 * "torus:k=4") or as a mapping whose kind names the generator (topology:
 * {kind: pruned, k: 8}, {kind: twin, k: 4, n: 2}).  Either way the one spec
 * parser reads it and names a bad token.  In the mapping a key given
 * twice is refused where it stands (libyaml keeps both), and a key or
 * value that would read as more than one token of the spec (a ',', '='
 * or ':' in it) is refused before it is joined into one.
 */
static int
cfg_topology(struct cfg_ctx *cx, const struct cfg_val *v, tt_config *cfg)
{
	static const char *const names[] = {"kind", "k", "n", "m", "L", "q",
	    "vcs"};
	const yaml_node_t *first[sizeof(names) / sizeof(names[0])];
	char spec[256], eb[512], qb[64], kb[64];
	const char *kind = NULL;
	size_t len = 0, i;
	yaml_node_pair_t *pr;
	int nerr = cx->nerr;

	if (v->node->type == YAML_MAPPING_NODE) {
		memset(first, 0, sizeof(first));
		for (pr = v->node->data.mapping.pairs.start;
		    pr < v->node->data.mapping.pairs.top; pr++) {
			yaml_node_t *k = cfg_node(cx, pr->key);
			yaml_node_t *x = cfg_node(cx, pr->value);

			if (!cfg_is_text(k) || !cfg_is_text(x)) {
				cfg_err(cx, &k->start_mark, "topology: expected "
				    "kind: NAME and KEY: NUMBER pairs, got %s",
				    cfg_describe(x, qb, sizeof(qb)));
				return -1;
			}
			if (strpbrk(cfg_text(k), ",=:") != NULL) {
				cfg_err(cx, &k->start_mark, "topology: %s is not "
				    "a key (kind, k, n, m, L, q or vcs)",
				    cfg_keyname(k, kb, sizeof(kb)));
				continue;
			}
			if (strpbrk(cfg_text(x), ",=:") != NULL) {
				cfg_err(cx, &x->start_mark, "topology.%s: "
				    "expected a name or a whole number, got %s",
				    cfg_keyname(k, kb, sizeof(kb)),
				    cfg_quote(x, qb, sizeof(qb)));
				continue;
			}
			for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
				if (strcmp(cfg_text(k), names[i]) == 0)
					break;
			if (i == sizeof(names) / sizeof(names[0]))
				continue;       /* the spec parser names it */
			if (first[i] != NULL) {
				cfg_err(cx, &k->start_mark, "duplicate key "
				    "topology.%s (first at line %lu)", names[i],
				    (unsigned long)first[i]->start_mark.line + 1);
				continue;
			}
			first[i] = k;
			if (i == 0)
				kind = cfg_text(x);
		}
		if (cx->nerr != nerr)
			return -1;
		if (kind == NULL) {
			cfg_err(cx, &v->mark, "topology: missing kind (torus, "
			    "twin, pruned, msn, pruned-msn, mh3dt or tesh)");
			return -1;
		}
		len = (size_t)snprintf(spec, sizeof(spec), "%s", kind);
		for (pr = v->node->data.mapping.pairs.start;
		    pr < v->node->data.mapping.pairs.top && len < sizeof(spec);
		    pr++)
			if (strcmp(cfg_text(cfg_node(cx, pr->key)), "kind") != 0)
				len += (size_t)snprintf(spec + len,
				    sizeof(spec) - len, "%c%s=%s",
				    strchr(spec, ':') ? ',' : ':',
				    cfg_text(cfg_node(cx, pr->key)),
				    cfg_text(cfg_node(cx, pr->value)));
		if (len >= sizeof(spec)) {
			cfg_err(cx, &v->mark, "topology: longer than %zu "
			    "characters as a spec", sizeof(spec) - 1);
			return -1;
		}
	} else if (cfg_string(cx, v, "a network spec such as tesh:L=2 or "
	    "{kind: pruned, k: 8}", spec, sizeof(spec)) < 0) {
		return -1;
	}
	if (tt_netspec_parse(&cfg->spec, spec, eb, sizeof(eb)) < 0 ||
	    tt_netspec_check(&cfg->spec, eb, sizeof(eb)) < 0) {
		cfg_err(cx, &v->mark, "topology: %s: %s", spec, eb);
		return -1;
	}
	return 0;
}

/* ---- network:, nodes:, trace: ---- */

static void
cfg_network(struct cfg_ctx *cx, const struct cfg_val *v, tt_config *cfg)
{
	tt_netparams *np = &cfg->params;
	static const char *const names[] = {"packet_flits", "buffer_flits",
	    "flit_bytes", "link_gbps"};
	enum { K_PACKET, K_BUFFER, K_FLIT, K_GBPS, K_N };
	struct cfg_key keys[K_N];
	int packet_ok = 1, buffer_ok = 1;
	char qb[64];
	double g;

	if (v->node->type != YAML_MAPPING_NODE) {
		cfg_err(cx, &v->mark, "network: expected a mapping with keys "
		    "packet_flits, buffer_flits, flit_bytes, link_gbps; got %s",
		    cfg_describe(v->node, qb, sizeof(qb)));
		return;
	}
	cfg_keys_init(keys, K_N, names);
	cfg_map_keys(cx, v->node, "network", keys, K_N);
	/* which of them a model's granularity must not override
	 * (tt_model_from_config) */
	if (keys[K_PACKET].key != NULL)
		cfg->network_set |= TT_MODEL_PACKET_FLITS;
	if (keys[K_FLIT].key != NULL)
		cfg->network_set |= TT_MODEL_FLIT_BYTES;
	if (keys[K_GBPS].key != NULL)
		cfg->network_set |= TT_MODEL_LINK_GBPS;
	if (keys[K_PACKET].key != NULL)
		packet_ok = cfg_int(cx, &keys[K_PACKET].val, 1,
		    TT_PACKET_FLITS_MAX, &np->packet_flits) == 0;
	if (keys[K_BUFFER].key != NULL)
		buffer_ok = cfg_int(cx, &keys[K_BUFFER].val, 1,
		    TT_BUFFER_FLITS_MAX, &np->buffer_flits) == 0;
	if (keys[K_FLIT].key != NULL)
		cfg_int(cx, &keys[K_FLIT].val, 1, TT_FLIT_BYTES_MAX,
		    &np->flit_bytes);
	if (keys[K_GBPS].key != NULL &&
	    cfg_double(cx, &keys[K_GBPS].val, &g) == 0) {
		if (!(g >= TT_LINK_GBPS_MIN && g <= TT_LINK_GBPS_MAX))
			cfg_err(cx, &keys[K_GBPS].val.mark, "%s: %s is out of "
			    "range (%g..%g)", keys[K_GBPS].val.path,
			    cfg_number(keys[K_GBPS].val.node, qb, sizeof(qb)),
			    TT_LINK_GBPS_MIN, TT_LINK_GBPS_MAX);
		else
			np->link_gbps = g;
	}
	/* Virtual cut-through: an input buffer must take a whole packet. */
	if (packet_ok && buffer_ok && np->buffer_flits < np->packet_flits) {
		if (keys[K_BUFFER].key != NULL)
			cfg_err(cx, &keys[K_BUFFER].val.mark, "network."
			    "buffer_flits: %d is less than packet_flits (%d); "
			    "a buffer must hold a whole packet",
			    np->buffer_flits, np->packet_flits);
		else
			cfg_err(cx, &keys[K_PACKET].val.mark, "network."
			    "packet_flits: %d is more than buffer_flits (%d, "
			    "the default); a buffer must hold a whole packet",
			    np->packet_flits, np->buffer_flits);
	}
}

static void
cfg_trace(struct cfg_ctx *cx, const struct cfg_val *v, tt_config *cfg)
{
	static const char *const names[] = {"dir", "rotate_mb", "keep",
	    "ports"};
	enum { K_DIR, K_ROTATE, K_KEEP, K_PORTS, K_N };
	struct cfg_key keys[K_N];
	char qb[64];
	int x;

	if (v->node->type != YAML_MAPPING_NODE) {
		cfg_err(cx, &v->mark, "trace: expected a mapping with keys dir, "
		    "rotate_mb, keep, ports; got %s",
		    cfg_describe(v->node, qb, sizeof(qb)));
		return;
	}
	cfg_keys_init(keys, K_N, names);
	cfg_map_keys(cx, v->node, "trace", keys, K_N);
	if (keys[K_DIR].key != NULL) {
		const struct cfg_val *d = &keys[K_DIR].val;

		if (!cfg_is_text(d->node) || cfg_is_null(d->node) ||
		    *cfg_text(d->node) == '\0')
			cfg_err(cx, &d->mark, "%s: expected a directory path, "
			    "got %s", d->path,
			    cfg_describe(d->node, qb, sizeof(qb)));
		else if (strlen(cfg_text(d->node)) >= sizeof(cfg->trace_dir))
			cfg_err(cx, &d->mark, "%s: the path is longer than %zu "
			    "bytes", d->path, sizeof(cfg->trace_dir) - 1);
		else
			snprintf(cfg->trace_dir, sizeof(cfg->trace_dir), "%s",
			    cfg_text(d->node));
	}
	if (keys[K_ROTATE].key != NULL &&
	    cfg_int(cx, &keys[K_ROTATE].val, 1, INT_MAX, &x) == 0)
		cfg->trace_rotate_mb = x;
	if (keys[K_KEEP].key != NULL &&
	    cfg_int(cx, &keys[K_KEEP].val, 1, INT_MAX, &x) == 0)
		cfg->trace_keep = x;
	if (keys[K_PORTS].key != NULL &&
	    cfg_bool(cx, &keys[K_PORTS].val, &x) == 0)
		cfg->trace_ports = x;
}

/* credits: ttd's input buffers, bytes per VC; 0 (absent): ttd's default */
static void
cfg_credits(struct cfg_ctx *cx, const struct cfg_val *v, tt_config *cfg)
{
	static const char *const names[] = {"vc_bytes", "internal_vc_bytes",
	    "pe_bytes"};
	int *out[] = {&cfg->credit_vc_bytes, &cfg->credit_int_vc_bytes,
	    &cfg->credit_pe_bytes};
	struct cfg_key keys[3];
	char qb[64];
	int i;

	if (v->node->type != YAML_MAPPING_NODE) {
		cfg_err(cx, &v->mark, "credits: expected a mapping with keys "
		    "vc_bytes, internal_vc_bytes, pe_bytes; got %s",
		    cfg_describe(v->node, qb, sizeof(qb)));
		return;
	}
	cfg_keys_init(keys, 3, names);
	cfg_map_keys(cx, v->node, "credits", keys, 3);
	for (i = 0; i < 3; i++)
		if (keys[i].key != NULL)
			(void)cfg_int(cx, &keys[i].val, TT_CREDIT_BYTES_MIN,
			    TT_CREDIT_BYTES_MAX, out[i]);
}

/* A string value of at most bufsz - 1 bytes into buf; 0, or -1 reported. */
int
cfg_string(struct cfg_ctx *cx, const struct cfg_val *v, const char *what,
    char *buf, size_t bufsz)
{
	char qb[64];

	if (!cfg_is_text(v->node) || cfg_is_null(v->node) ||
	    *cfg_text(v->node) == '\0') {
		cfg_err(cx, &v->mark, "%s: expected %s, got %s", v->path, what,
		    cfg_describe(v->node, qb, sizeof(qb)));
		return -1;
	}
	if (strlen(cfg_text(v->node)) >= bufsz) {
		cfg_err(cx, &v->mark, "%s: longer than %zu characters",
		    v->path, bufsz - 1);
		return -1;
	}
	snprintf(buf, bufsz, "%s", cfg_text(v->node));
	return 0;
}

/* nodes[i].cards[j]: {pci: ..., ports: {IFACE: PORT, ...}} */
static void
cfg_top(struct cfg_ctx *cx, yaml_node_t *root, tt_config *cfg)
{
	static const char *const names[] = {"torus", "network", "nodes",
	    "trace", "addresses", "pes", "credits", "topology", "model"};
	enum { K_TORUS, K_NETWORK, K_NODES, K_TRACE, K_ADDRS, K_PES,
	    K_CREDITS, K_TOPOLOGY, K_MODEL, K_N };
	struct cfg_key keys[K_N];
	uint64_t npes = 0;
	char qb[64];
	int d, subnet_set = 0, named = 0;

	if (root->type != YAML_MAPPING_NODE) {
		cfg_err(cx, &root->start_mark, "the top level must be a mapping "
		    "of sections (torus, network, nodes, trace, addresses, pes, "
		    "credits, topology, model), got %s",
		    cfg_describe(root, qb, sizeof(qb)));
		return;
	}
	cfg_keys_init(keys, K_N, names);
	cfg_map_keys(cx, root, NULL, keys, K_N);

	if (keys[K_TOPOLOGY].key != NULL && keys[K_TORUS].key != NULL)
		cfg_err(cx, &keys[K_TOPOLOGY].key->start_mark, "topology: "
		    "and torus: both name the network; keep one");
	else if (keys[K_TOPOLOGY].key != NULL)
		named = cfg_topology(cx, &keys[K_TOPOLOGY].val, cfg) == 0;
	else if (keys[K_TORUS].key == NULL)
		cfg_err(cx, &root->start_mark, "missing section torus (it "
		    "needs at least dims, e.g. torus: {dims: [4, 4, 4]})");
	else
		named = cfg_torus(cx, keys[K_TORUS].key, &keys[K_TORUS].val,
		    cfg) == 0;
	/* a torus's PEs, however it was named (topology: torus:k=4 too) */
	if (named && cfg->spec.topo == TT_TOPO_TORUS)
		for (d = 0, npes = cfg->spec.twin ? 2 : 1; d < cfg->spec.n; d++)
			npes *= (uint64_t)cfg->spec.k[d];
	if (keys[K_NETWORK].key != NULL)
		cfg_network(cx, &keys[K_NETWORK].val, cfg);
	/* nodes: belongs to ttd (ttsim only checks it); its coordinates need
	 * the torus: section read above. */
	if (keys[K_NODES].key != NULL && keys[K_TOPOLOGY].key != NULL) {
		cfg_err(cx, &keys[K_NODES].key->start_mark, "nodes: maps hosts "
		    "onto a torus for ttd, which runs twin and plain tori "
		    "only; drop nodes: or name the network with torus:");
	} else if (keys[K_NODES].key != NULL) {
		cfg_nodes(cx, &keys[K_NODES].val, cfg);
		cfg->has_nodes = 1;
	}
	if (keys[K_PES].key != NULL)
		subnet_set = cfg_pes(cx, &keys[K_PES].val, cfg, npes);
	if (keys[K_NODES].key != NULL && !subnet_set && npes > 0)
		cfg_pes_default(cx, &keys[K_NODES].key->start_mark, cfg, npes);
	if (keys[K_TRACE].key != NULL) {
		cfg_trace(cx, &keys[K_TRACE].val, cfg);
		cfg->has_trace = 1;
	}
	if (keys[K_ADDRS].key != NULL)
		cfg_addresses(cx, &keys[K_ADDRS].val, cfg);
	if (keys[K_CREDITS].key != NULL)
		cfg_credits(cx, &keys[K_CREDITS].val, cfg);
	if (keys[K_MODEL].key != NULL)
		cfg_model(cx, &keys[K_MODEL].val, &cfg->model);
}

/* ---- loading ---- */

/*
 * Config files are small (a 65,536-node cluster with automatic port maps
 * is 2.6 MB); this only stops a wrong path from eating memory.
 */
#define CFG_FILE_MAX	(64u << 20)
/*
 * Deeper than any cluster file nests (top > nodes > node > cards > card >
 * ports is 6).  Refused before the document is built: libyaml's time grows
 * with the square of the depth (100,000 levels: 40 s).
 */
#define CFG_DEPTH_MAX	32

/*
 * libyaml's reader reports an encoding error by byte offset only, so the
 * line and column are counted here (columns in characters, as libyaml's).
 */
static yaml_mark_t
cfg_offset_mark(const unsigned char *buf, size_t len, size_t off)
{
	yaml_mark_t m = {0, 0, 0};
	size_t i;

	for (i = 0; i < off && i < len; i++) {
		if (buf[i] == '\n') {
			m.line++;
			m.column = 0;
		} else if ((buf[i] & 0xc0) != 0x80) {
			m.column++;
		}
	}
	m.index = off;
	return m;
}

static void
cfg_syntax_err(struct cfg_ctx *cx, const yaml_parser_t *parser,
    const unsigned char *buf, size_t len)
{
	const char *problem = parser->problem ? parser->problem : "out of memory";
	yaml_mark_t mark = parser->problem_mark;

	switch (parser->error) {
	case YAML_READER_ERROR:
		mark = cfg_offset_mark(buf, len, parser->problem_offset);
		if (parser->problem_value >= 0)
			cfg_err(cx, &mark, "%s (byte 0x%02x)", problem,
			    (unsigned)parser->problem_value);
		else
			cfg_err(cx, &mark, "%s", problem);
		return;
	case YAML_SCANNER_ERROR:
	case YAML_PARSER_ERROR:
	case YAML_COMPOSER_ERROR:
		if (parser->context != NULL)
			cfg_err(cx, &mark, "%s (%s at line %lu, column %lu)",
			    problem, parser->context,
			    (unsigned long)parser->context_mark.line + 1,
			    (unsigned long)parser->context_mark.column + 1);
		else
			cfg_err(cx, &mark, "%s", problem);
		return;
	default:
		cfg_err(cx, &parser->mark, "%s", problem);
		return;
	}
}

/*
 * Nesting deeper than CFG_DEPTH_MAX: reported, -1.  Only events up to
 * there are parsed; a syntax error is left for the load to report.
 */
static int
cfg_check_depth(struct cfg_ctx *cx, const unsigned char *buf, size_t len)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int depth = 0, r = 0, done = 0;

	if (!yaml_parser_initialize(&p))
		return 0;
	yaml_parser_set_input_string(&p, buf, len);
	while (!done && yaml_parser_parse(&p, &ev)) {
		switch (ev.type) {
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (++depth <= CFG_DEPTH_MAX)
				break;
			cfg_err(cx, &ev.start_mark, "nesting deeper than %d "
			    "levels (a cluster file has at most 6); is this a "
			    "cluster file?", CFG_DEPTH_MAX);
			r = -1;
			done = 1;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return r;
}

/* The whole file in memory; NULL with errno set on failure (EFBIG past
 * CFG_FILE_MAX, with *size the file's size when it is known, else -1). */
static unsigned char *
cfg_read_file(const char *path, size_t *lenp, long long *size)
{
	unsigned char *buf = NULL, *grown;
	size_t len = 0, cap = 0, got;
	struct stat st;
	FILE *f;
	int saved;

	f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	/* an output must not replace the file it comes from */
	(void)tt_outfile_input_fd(fileno(f), path);
	*size = -1;
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		errno = EISDIR;
		return NULL;
	}
	if (S_ISREG(st.st_mode) && st.st_size > (off_t)CFG_FILE_MAX) {
		fclose(f);
		*size = (long long)st.st_size;
		errno = EFBIG;
		return NULL;
	}
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 8192;
			if (cap > CFG_FILE_MAX) {
				errno = EFBIG;
				goto fail;
			}
			grown = realloc(buf, cap);
			if (grown == NULL)
				goto fail;
			buf = grown;
		}
		errno = 0;
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0) {
			if (ferror(f)) {
				errno = errno ? errno : EIO;
				goto fail;
			}
			break;
		}
	}
	fclose(f);
	*lenp = len;
	return buf;
fail:
	saved = errno;
	free(buf);
	fclose(f);
	errno = saved;
	return NULL;
}

void
tt_config_default(tt_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	tt_netspec_default(&cfg->spec);
	/* seed 000 §7.1: 4-flit packets, 128-flit channel buffers */
	tt_netparams_default(&cfg->params);
	tt_model_init(&cfg->model);
	snprintf(cfg->pe_tap, sizeof(cfg->pe_tap), "tt%%u");
	cfg->pe_subnet = 0x0a580000;	/* 10.88.0.0/16 */
	cfg->pe_prefix = 16;
}

void
tt_config_free(tt_config *cfg)
{
	free(cfg->addrs);
	cfg->addrs = NULL;
	cfg->naddrs = 0;
	free(cfg->nodes);
	cfg->nodes = NULL;
	cfg->nnodes = 0;
}

/*
 * Load the file at path and hand its root to top(cx, root, arg): the one
 * reader of the cluster file and the model file (lib/engine/model.c).  `empty`
 * says what an empty file lacks.  Every error is printed to errs (may be
 * NULL) in file order; returns how many there were.
 */
int
cfg_load(const char *path, FILE *errs, const char *empty,
    void (*top)(struct cfg_ctx *, yaml_node_t *, void *), void *arg)
{
	struct cfg_ctx cx;
	yaml_parser_t parser;
	yaml_document_t doc, extra;
	yaml_node_t *root;
	unsigned char *buf;
	long long size;
	size_t len;

	memset(&cx, 0, sizeof(cx));
	cx.path = path;
	cx.errs = errs;
	cx.doc = &doc;

	buf = cfg_read_file(path, &len, &size);
	if (buf == NULL && errno == EFBIG) {
		if (errs != NULL && size >= 0)
			fprintf(errs, "%s: %lld bytes, more than a cluster file "
			    "may have (%u MiB); is it the right file?\n", path,
			    size, CFG_FILE_MAX >> 20);
		else if (errs != NULL)
			fprintf(errs, "%s: more bytes than a cluster file may "
			    "have (%u MiB); is it the right file?\n", path,
			    CFG_FILE_MAX >> 20);
		return 1;
	}
	if (buf == NULL) {
		if (errs != NULL)
			fprintf(errs, "%s: cannot open: %s\n", path,
			    strerror(errno));
		return 1;
	}
	if (cfg_check_depth(&cx, buf, len) < 0)
		goto flush;
	if (!yaml_parser_initialize(&parser)) {
		free(buf);
		if (errs != NULL)
			fprintf(errs, "%s: out of memory\n", path);
		return 1;
	}
	yaml_parser_set_input_string(&parser, buf, len);

	if (!yaml_parser_load(&parser, &doc)) {
		cfg_syntax_err(&cx, &parser, buf, len);
		goto out;
	}
	root = yaml_document_get_root_node(&doc);
	if (root == NULL) {
		yaml_mark_t start = {0, 0, 0};

		cfg_err(&cx, &start, "the file is empty; %s", empty);
		yaml_document_delete(&doc);
		goto out;
	}
	top(&cx, root, arg);
	yaml_document_delete(&doc);

	/* One cluster, one document: a second one would be silently ignored. */
	if (!yaml_parser_load(&parser, &extra)) {
		cfg_syntax_err(&cx, &parser, buf, len);
	} else {
		if (yaml_document_get_root_node(&extra) != NULL)
			cfg_err(&cx, &extra.start_mark, "a second YAML document "
			    "starts here; the file must hold exactly one");
		yaml_document_delete(&extra);
	}
out:
	yaml_parser_delete(&parser);
flush:
	free(buf);
	if (errs != NULL)
		cfg_flush(&cx);
	free(cx.msgs);
	free(cx.kinds);
	return cx.nerr;
}

static void
cfg_top_arg(struct cfg_ctx *cx, yaml_node_t *root, void *cfg)
{
	cfg_top(cx, root, cfg);
}

int
tt_config_load(tt_config *cfg, const char *path, FILE *errs)
{
	tt_config_default(cfg);
	snprintf(cfg->path, sizeof(cfg->path), "%s", path);
	return cfg_load(path, errs, "it needs at least a torus: section with "
	    "dims", cfg_top_arg, cfg);
}
