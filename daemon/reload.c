/*
 * SIGHUP's config reload, off the forwarding path.  Loading a file can
 * take long (a large nodes: section, a broken file with many errors) and
 * much memory; done in the poll loop it stopped forwarding for as long.
 * So the loop starts a thread that loads the file and compares it with
 * the running config, and polls an eventfd; when the thread is done the
 * loop takes the result and applies it between two rounds of the loop,
 * where nothing else looks at the settings.
 *
 * What a reload may change is struct ttd_settings (trace rotation).  A
 * file that changes what the devices were opened with -- the torus, this
 * node's port map, the PEs' TAP names and addresses -- is refused: that
 * needs a restart, and the log says so.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "ttd.h"

static int
reload_spec_differs(const tt_netspec *a, const tt_netspec *b)
{
	int i, s;

	if (a->n != b->n || a->twin != b->twin || a->deadlock != b->deadlock ||
	    a->ports_kind != b->ports_kind || a->letter != b->letter)
		return 1;
	for (i = 0; i < a->n; i++)
		if (a->k[i] != b->k[i])
			return 1;
	for (s = 0; s < 2; s++) {
		if (a->ncard[s] != b->ncard[s])
			return 1;
		for (i = 0; i < a->ncard[s] && i < TT_MAX_EXT; i++)
			if (a->card_ports[s][i] != b->card_ports[s][i])
				return 1;
	}
	return 0;
}

/* A node's entry, compared on what it says (not where it says it). */
static int
reload_node_differs(const tt_cfg_node *a, const tt_cfg_node *b, int n)
{
	int i, j;

	if (strcmp(a->host, b->host) != 0 || a->ncards != b->ncards)
		return 1;
	for (i = 0; i < n; i++)
		if (a->coord[i] != b->coord[i])
			return 1;
	for (j = 0; j < a->ncards; j++) {
		const tt_cfg_card *x = &a->cards[j], *y = &b->cards[j];

		if (strcmp(x->pci, y->pci) != 0 || x->nports != y->nports)
			return 1;
		for (i = 0; i < x->nports; i++)
			if (x->ports[i].port != y->ports[i].port ||
			    strcmp(x->ports[i].key, y->ports[i].key) != 0)
				return 1;
	}
	return 0;
}

int
ttd_reload_needs_restart(const tt_config *a, const tt_config *b,
    const struct ttd_node *nd, const char *node, char *why, size_t whysz)
{
	char err[512];
	size_t index;

	if (reload_spec_differs(&a->spec, &b->spec)) {
		snprintf(why, whysz, "torus: changed");
		return 1;
	}
	if (strcmp(a->pe_tap, b->pe_tap) != 0 || a->pe_subnet != b->pe_subnet ||
	    a->pe_prefix != b->pe_prefix) {
		snprintf(why, whysz, "pes: changed (TAP names or addresses)");
		return 1;
	}
	if (ttd_node_find(b, nd->net, node, &index, err, sizeof(err)) < 0) {
		snprintf(why, whysz, "this node (%s) is no longer in nodes:",
		    nd->host);
		return 1;
	}
	if (reload_node_differs(&a->nodes[nd->index], &b->nodes[index],
	    nd->net->n)) {
		snprintf(why, whysz, "nodes: the entry of this node (%s) "
		    "changed", nd->host);
		return 1;
	}
	return 0;
}

/* Load the file; compare; leave the result for the loop. */
static void *
reload_main(void *arg)
{
	struct ttd_reload *r = arg;
	tt_config *nc = calloc(1, sizeof(*nc));
	int nerr;

	r->why[0] = '\0';
	if (nc == NULL) {
		r->result = TTD_RELOAD_BAD_FILE;
		snprintf(r->why, sizeof(r->why), "out of memory");
	} else if ((nerr = tt_config_load(nc, r->path, stderr)) != 0) {
		r->result = TTD_RELOAD_BAD_FILE;
		snprintf(r->why, sizeof(r->why), "%d error%s (above)", nerr,
		    nerr == 1 ? "" : "s");
	} else if (ttd_reload_needs_restart(r->cur, nc, r->nd, r->node,
	    r->why, sizeof(r->why))) {
		r->result = TTD_RELOAD_RESTART;
	} else {
		r->result = TTD_RELOAD_OK;
		r->settings.trace_rotate_mb = nc->trace_rotate_mb;
		r->settings.trace_keep = nc->trace_keep;
		if (strcmp(nc->trace_dir, r->cur->trace_dir) != 0 ||
		    nc->trace_ports != r->cur->trace_ports)
			snprintf(r->why, sizeof(r->why), "trace.dir and "
			    "trace.ports take effect at the next start");
	}
	if (nc != NULL)
		tt_config_free(nc);
	free(nc);
	/* a large file's memory goes back to the system, not to this
	 * thread's arena */
	malloc_trim(0);
	if (eventfd_write(r->efd, 1) < 0)
		ttd_log_errno(TTD_LOG_ERR, "config", "reload: cannot wake the "
		    "loop");
	return NULL;
}

int
ttd_reload_init(struct ttd_reload *r, const char *path, const char *node,
    const tt_config *cur, const struct ttd_node *nd, char *err,
    size_t errsz)
{
	memset(r, 0, sizeof(*r));
	r->path = path;
	r->node = node;
	r->cur = cur;
	r->nd = nd;
	r->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (r->efd < 0) {
		snprintf(err, errsz, "eventfd: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void
ttd_reload_start(struct ttd_reload *r)
{
	int e;

	if (r->running) {
		r->again = 1;
		return;
	}
	r->running = 1;
	e = pthread_create(&r->th, NULL, reload_main, r);
	if (e == 0)
		return;
	/* no thread: a result all the same, so that READY=1 follows */
	r->running = 0;
	r->result = TTD_RELOAD_BAD_FILE;
	snprintf(r->why, sizeof(r->why), "cannot start a thread: %s",
	    strerror(e));
	(void)eventfd_write(r->efd, 1);
}

int
ttd_reload_take(struct ttd_reload *r, struct ttd_settings *s, char *why,
    size_t whysz)
{
	eventfd_t v;
	int result;

	if (eventfd_read(r->efd, &v) < 0)
		return -1;	/* not ready after all */
	if (r->running)
		pthread_join(r->th, NULL);
	r->running = 0;
	result = r->result;
	*s = r->settings;
	snprintf(why, whysz, "%s", r->why);
	if (r->again) {
		r->again = 0;
		ttd_reload_start(r);
	}
	return result;
}

int
ttd_reload_free(struct ttd_reload *r)
{
	if (r->running) {
		/* still waiting on its file (a FIFO, an NFS server that went
		 * away): not waited for; it ends with the process */
		pthread_detach(r->th);
		r->running = 0;
		return -1;
	}
	if (r->efd >= 0)
		close(r->efd);
	r->efd = -1;
	return 0;
}
