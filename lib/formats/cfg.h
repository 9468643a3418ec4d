/*
 * The YAML loader's private interface between lib/formats/config.c (errors, values,
 * torus:, network:, trace:, loading) and lib/formats/config_nodes.c (nodes:, pes:,
 * addresses:, the deployment sections ttd reads).  Not installed; hidden
 * from the shared library's symbols.
 */
#ifndef TWINTORUS_CFG_H
#define TWINTORUS_CFG_H

#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "twintorus/config.h"

#pragma GCC visibility push(hidden)

#define CFG_MSG_MAX	400
#define CFG_QUOTE_MAX	40	/* characters of a bad value shown in a message */

struct cfg_msg {
	unsigned long line, col;	/* 1-based */
	size_t seq;			/* keeps messages at one position in order */
	char text[CFG_MSG_MAX];
};

/* Messages of one kind (one format) past CFG_KIND_SHOWN are counted, not
 * kept: a mistake repeated a million times prints ten lines and a count. */
#define CFG_KIND_SHOWN	10
struct cfg_kind {
	const char *fmt;
	size_t shown, more;
	size_t last_seq;		/* the last shown of the kind */
	unsigned long first_more;	/* line of the first not shown */
};

struct cfg_ctx {
	const char *path;
	FILE *errs;
	yaml_document_t *doc;
	struct cfg_msg *msgs;
	size_t nmsgs, cap;
	struct cfg_kind *kinds;
	size_t nkinds, kcap;
	int nerr;
};

/* A value being checked: the node, where errors about it point, its name. */
struct cfg_val {
	yaml_node_t *node;	/* NULL when the key is absent */
	yaml_mark_t mark;
	char path[96];		/* "torus.dims[0]" */
};

/* One expected key of a mapping, filled by cfg_map_keys(). */
struct cfg_key {
	const char *name;
	yaml_node_t *key;	/* first occurrence; NULL when absent */
	struct cfg_val val;
};

/* lib/formats/config.c: errors */
void cfg_err(struct cfg_ctx *cx, const yaml_mark_t *mark, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));

/* lib/formats/config.c: nodes and values */
yaml_node_t *cfg_node(struct cfg_ctx *cx, int id);
const char *cfg_text(const yaml_node_t *node);
int cfg_is_text(const yaml_node_t *node);
int cfg_is_null(const yaml_node_t *node);
const char *cfg_quote(const yaml_node_t *node, char *buf, size_t bufsz);
const char *cfg_describe(const yaml_node_t *node, char *buf, size_t bufsz);
void cfg_val_set(struct cfg_val *v, yaml_node_t *node, const yaml_node_t *key,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void cfg_map_keys(struct cfg_ctx *cx, const yaml_node_t *map,
    const char *prefix, struct cfg_key *keys, size_t nkeys);
void cfg_keys_init(struct cfg_key *keys, size_t nkeys,
    const char *const *names);
int cfg_int(struct cfg_ctx *cx, const struct cfg_val *v, long long lo,
    long long hi, int *out);
int cfg_string(struct cfg_ctx *cx, const struct cfg_val *v, const char *what,
    char *buf, size_t bufsz);
/* A decimal number (no inf, nan or hex); 0, or -1 reported. */
int cfg_double(struct cfg_ctx *cx, const struct cfg_val *v, double *out);
/* true/yes or false/no as 1 or 0; 0, or -1 reported. */
int cfg_bool(struct cfg_ctx *cx, const struct cfg_val *v, int *out);
/* A number as the user wrote it, for "out of range" messages. */
const char *cfg_number(const yaml_node_t *node, char *buf, size_t bufsz);

/* lib/formats/config.c: the one reader, for the cluster file and the model file */
int cfg_load(const char *path, FILE *errs, const char *empty,
    void (*top)(struct cfg_ctx *, yaml_node_t *, void *), void *arg);

/* lib/engine/model.c: a model: section into m (its keys marked in m->set) */
void cfg_model(struct cfg_ctx *cx, const struct cfg_val *v, tt_model *m);
const char *cfg_port_names(int n, char *buf, size_t bufsz);

/* lib/formats/config_nodes.c */
void cfg_nodes(struct cfg_ctx *cx, const struct cfg_val *v, tt_config *cfg);
int cfg_pes(struct cfg_ctx *cx, const struct cfg_val *v, tt_config *cfg,
    uint64_t npes);
void cfg_pes_default(struct cfg_ctx *cx, const yaml_mark_t *nodes_mark,
    const tt_config *cfg, uint64_t npes);
void cfg_addresses(struct cfg_ctx *cx, const struct cfg_val *v,
    tt_config *cfg);

#pragma GCC visibility pop

#endif
