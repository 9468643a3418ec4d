/*
 * `ttd run`: the daemon around the data plane (plane.c).
 *
 * Set-up: the config and the port map, the control socket, the switches
 * (fwd.c), the devices with the backend chosen (AF_XDP where it works,
 * libpcap where not, or what --backend says), the TAPs and the traces.
 * Then the main poll loop: the signalfd, the reload thread's eventfd
 * (reload.c), the control socket (control.c), the trace flush every
 * LOOP_FLUSH_MS, and, unless each card has a thread of its own, the data
 * plane's ports and TAPs too.  Nothing in the loop waits but poll()
 * itself: every descriptor is non-blocking, control clients have a
 * deadline and the config is loaded in a thread.  Signals are read from
 * the signalfd inside the loop, never handled in a handler: TERM/INT
 * flush and close every trace and exit, HUP reloads the config and
 * reopens the traces, USR1 logs the counters.  systemd's notify protocol
 * is a datagram to NOTIFY_SOCKET.
 */
#include <errno.h>
#include <stddef.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "discover.h"
#include "ttd.h"

#define LOOP_FLUSH_MS	200	/* trace files flushed */
#define LOOP_IDLE_MS	100	/* longest poll() */

/*
 * The main poll set: the data plane's ports and TAPs (one loop only),
 * the signalfd, the reload eventfd, then the control socket's listener
 * and clients (TTD_CONTROL_CLIENTS).
 */
struct loop_slots {
	int nplane;
	int sig;
	int reload;
	int ctl;
	int n;
};
#define LOOP_SLOTS_MAX	(TTD_PLANE_FDS + 2 + 1 + TTD_CONTROL_CLIENTS)

/* ---- traces ---- */

static int
loop_trace_path(char *buf, size_t bufsz, const struct ttd_daemon *d,
    const char *suffix, char *err, size_t errsz)
{
	if (snprintf(buf, bufsz, "%s/%s-%s.pcap", d->trace_dir, d->nd.host,
	    suffix) < (int)bufsz)
		return 0;
	snprintf(err, errsz, "trace directory %.200s...: path too long",
	    d->trace_dir);
	return -1;
}

static int
loop_open_traces(struct ttd_daemon *d, char *err, size_t errsz)
{
	uint64_t rot = (uint64_t)d->cfg.trace_rotate_mb << 20;
	int keep = d->cfg.trace_keep, s, i;
	char base[4300], what[32], pn[16];

	/* the unit's StateDirectory= makes it; a hand-started ttd may not */
	if (mkdir(d->trace_dir, 0750) < 0 && errno != EEXIST) {
		snprintf(err, errsz, "trace directory %.400s: %s", d->trace_dir,
		    strerror(errno));
		return -1;
	}
	if (loop_trace_path(base, sizeof(base), d, "pe", err, errsz) < 0 ||
	    ttd_capture_open(&d->pe_cap, base, rot, keep, err, errsz) < 0)
		return -1;
	d->port_tracing = d->cfg.trace_ports;
	for (s = 0; d->port_tracing && s < d->nd.ncards; s++)
		for (i = 0; i < d->nd.card[s].nports; i++) {
			snprintf(what, sizeof(what), "c%d-%s", s,
			    ttd_port_fname(d->nd.card[s].port[i].port,
			    d->net.n, pn, sizeof(pn)));
			if (loop_trace_path(base, sizeof(base), d, what, err,
			    errsz) < 0 || ttd_capture_open(&d->port_cap[s][i],
			    base, rot, keep, err, errsz) < 0)
				return -1;
		}
	return 0;
}

/* Every open capture: pe_cap, then the ports' when they are traced. */
static int
loop_ncaptures(struct ttd_daemon *d, struct ttd_capture **all)
{
	int n = 0, s, i;

	all[n++] = &d->pe_cap;
	for (s = 0; d->port_tracing && s < d->nd.ncards; s++)
		for (i = 0; i < d->nd.card[s].nports; i++)
			all[n++] = &d->port_cap[s][i];
	return n;
}

#define LOOP_CAPTURES_MAX	(1 + 2 * (TT_MAX_EXT + 1))

static void
loop_flush(struct ttd_daemon *d)
{
	struct ttd_capture *all[LOOP_CAPTURES_MAX];
	int n = loop_ncaptures(d, all), i;

	pthread_mutex_lock(&d->cap_mu);
	for (i = 0; i < n; i++)
		(void)ttd_capture_flush(all[i]);
	pthread_mutex_unlock(&d->cap_mu);
}

static void
loop_reopen(struct ttd_daemon *d, const struct ttd_settings *s)
{
	struct ttd_capture *all[LOOP_CAPTURES_MAX];
	int n = loop_ncaptures(d, all), i;
	char err[512];

	pthread_mutex_lock(&d->cap_mu);
	for (i = 0; i < n; i++) {
		if (s != NULL) {
			all[i]->rotate_bytes = (uint64_t)s->trace_rotate_mb
			    << 20;
			all[i]->keep = s->trace_keep > 0 ? s->trace_keep : 1;
		}
		if (ttd_capture_reopen(all[i], err, sizeof(err)) < 0)
			ttd_log(TTD_LOG_ERR, "capture", "%s; retried at every "
			    "flush", err);
	}
	pthread_mutex_unlock(&d->cap_mu);
}

static void
loop_close_traces(struct ttd_daemon *d)
{
	struct ttd_capture *all[LOOP_CAPTURES_MAX];
	int n = loop_ncaptures(d, all), i;
	char err[512];

	for (i = 0; i < n; i++)
		if (ttd_capture_close(all[i], err, sizeof(err)) < 0)
			ttd_log(TTD_LOG_ERR, "capture", "%s", err);
}

/* ---- signals, reloads, the control socket's answers ---- */

/* systemd's notify protocol: one datagram to $NOTIFY_SOCKET. */
static void
loop_notify(const char *msg)
{
	const char *p = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa;
	socklen_t len;
	int s;

	if (p == NULL || (*p != '/' && *p != '@') ||
	    strlen(p) >= sizeof(sa.sun_path))
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, p, strlen(p));
	if (*p == '@')
		sa.sun_path[0] = '\0';	/* abstract namespace */
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(p));
	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return;
	(void)sendto(s, msg, strlen(msg), MSG_NOSIGNAL,
	    (struct sockaddr *)&sa, len);
	close(s);
}

/* The signals the loop reads from its signalfd. */
static void
loop_sigset(sigset_t *ss)
{
	sigemptyset(ss);
	sigaddset(ss, SIGTERM);
	sigaddset(ss, SIGINT);
	sigaddset(ss, SIGHUP);
	sigaddset(ss, SIGUSR1);
}

/* The reload thread is done: apply what it allows, reopen the traces. */
static void
loop_reloaded(struct ttd_daemon *d)
{
	struct ttd_settings s;
	char why[256];
	int r;

	r = ttd_reload_take(&d->reload, &s, why, sizeof(why));
	if (r < 0)
		return;
	if (r == TTD_RELOAD_OK) {
		d->cfg.trace_rotate_mb = s.trace_rotate_mb;
		d->cfg.trace_keep = s.trace_keep;
		if (why[0] != '\0')
			ttd_log(TTD_LOG_NOTICE, "config", "%s: %s",
			    d->o->config, why);
	} else if (r == TTD_RELOAD_RESTART) {
		ttd_log(TTD_LOG_WARNING, "config", "%s: %s: restart needed; "
		    "not reloaded, the running config stays", d->o->config,
		    why);
	} else {
		ttd_log(TTD_LOG_ERR, "config", "%s: %s: not reloaded, the "
		    "running config stays", d->o->config, why);
	}
	loop_reopen(d, r == TTD_RELOAD_OK ? &s : NULL);
	ttd_log(TTD_LOG_NOTICE, "config", "%s; trace files reopened",
	    r == TTD_RELOAD_OK ? "reloaded" : "not reloaded");
	loop_notify("READY=1");
	if (d->reload.running)
		loop_notify("RELOADING=1");	/* a SIGHUP that came meanwhile */
}

/* Read the signals; 1 when ttd should stop. */
static int
loop_signals(struct ttd_daemon *d)
{
	struct signalfd_siginfo si;
	int stop = 0;

	while (read(d->sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT) {
			ttd_log(TTD_LOG_NOTICE, "stop", "%s: closing the "
			    "traces", strsignal((int)si.ssi_signo));
			stop = 1;
		} else if (si.ssi_signo == SIGHUP) {
			if (!d->reload.running)
				loop_notify("RELOADING=1");
			ttd_reload_start(&d->reload);
		} else if (si.ssi_signo == SIGUSR1) {
			ttd_plane_pause(d);
			ttd_status_log(d, TTD_LOG_NOTICE);
			ttd_plane_resume(d);
		}
	}
	return stop;
}

static void
loop_answer(void *ctx, int kind, FILE *fp)
{
	struct ttd_daemon *d = ctx;

	/* the planes held between two rounds: their state is whole */
	ttd_plane_pause(d);
	loop_flush(d);		/* what status reports is what files hold */
	if (kind == TTD_REQ_STATUS_JSON)
		ttd_status_json(d, fp);
	else
		ttd_status_text(d, fp);
	ttd_plane_resume(d);
}

/* ---- set-up and tear-down ---- */

/* The config, the network, this node and its port map. */
static int
loop_load(struct ttd_daemon *d, char *err, size_t errsz)
{
	size_t index;

	if (tt_config_load(&d->cfg, d->o->config, stderr) != 0)
		return TTD_EX_CONFIG;
	if (tt_net_init(&d->net, &d->cfg.spec, err, errsz) < 0)
		return TTD_EX_CONFIG;
	if (ttd_node_find(&d->cfg, &d->net, d->o->node, &index, err,
	    errsz) < 0)
		return TTD_EX_CONFIG;
	if (ttd_node_map(&d->nd, &d->cfg, &d->net, index, 1, d->o->hwloc_xml,
	    stderr) > 0) {
		snprintf(err, errsz, "%s: the port map of %s does not fit this "
		    "machine or the configuration (above)", d->o->config,
		    d->cfg.nodes[index].host);
		return TTD_EX_CONFIG;
	}
	snprintf(d->trace_dir, sizeof(d->trace_dir), "%s", d->o->trace_dir ?
	    d->o->trace_dir : d->cfg.trace_dir[0] ? d->cfg.trace_dir :
	    TTD_DEFAULT_TRACES);
	return 0;
}

/* Frames the neighbour may have in flight towards a port: its credits,
 * at the buffers' least a frame (an AF_XDP receive ring takes them). */
static uint32_t
loop_rx_frames(const struct ttd_daemon *d, int s, int i)
{
	const struct ttd_fport *fp = &d->f.sw[s].fp[i];
	uint32_t n = 0;
	int v;

	for (v = 0; v < fp->nvcs; v++)
		n += fp->in[v].size / fp->in[v].least;
	return n;
}

static void
loop_close_ports(struct ttd_daemon *d)
{
	int s, i;

	for (s = 0; s < 2; s++)
		for (i = 0; i < TT_MAX_EXT + 1; i++)
			ttd_dev_close(&d->dev[s][i]);
}

/* Every port with one backend: 0, or -1 with err set (none left open). */
static int
loop_open_ports(struct ttd_daemon *d, int backend, char *err, size_t errsz)
{
	int s, i;

	for (s = 0; s < d->nd.ncards; s++)
		for (i = 0; i < d->nd.card[s].nports; i++)
			if (ttd_dev_open(&d->dev[s][i], backend,
			    d->nd.card[s].port[i].ifname, loop_rx_frames(d, s,
			    i), d->f.sw[s].fp[i].mac, err, errsz) < 0) {
				loop_close_ports(d);
				return -1;
			}
	return 0;
}

/* The ports' AF_XDP modes: one, or "mixed" with the first and others. */
static const char *
loop_xdp_modes(const struct ttd_daemon *d, char *buf, size_t bufsz)
{
	const char *m0 = ttd_dev_mode(&d->dev[0][0]);
	int s, i;

	for (s = 0; s < d->nd.ncards; s++)
		for (i = 0; i < d->nd.card[s].nports; i++)
			if (strcmp(ttd_dev_mode(&d->dev[s][i]), m0) != 0) {
				snprintf(buf, bufsz, "%s on %s, %s on %s", m0,
				    d->dev[0][0].ifname,
				    ttd_dev_mode(&d->dev[s][i]),
				    d->dev[s][i].ifname);
				return buf;
			}
	snprintf(buf, bufsz, "%s", m0);
	return buf;
}

/*
 * The ports, with the backend asked for; without --backend, AF_XDP where
 * it works on every port and libpcap otherwise, saying why.  Then the
 * TAPs.
 */
static int
loop_open_devices(struct ttd_daemon *d, char *err, size_t errsz)
{
	int want = d->o->backend, nports = d->f.sw[0].nports +
	    d->f.sw[1].nports, s;
	char why[400] = "", modes[256];

	if (want != TTD_BACKEND_PCAP) {
		if (loop_open_ports(d, TTD_BACKEND_XDP, why, sizeof(why)) == 0)
			d->backend = TTD_BACKEND_XDP;
		else if (want == TTD_BACKEND_XDP) {
			snprintf(err, errsz, "--backend xdp: %s", why);
			return TTD_EX_UNAVAILABLE;
		}
	}
	if (d->backend == TTD_BACKEND_XDP) {
		ttd_log(TTD_LOG_NOTICE, "backend", "xdp: an AF_XDP socket on "
		    "each of the %d ports (%s)", nports, loop_xdp_modes(d,
		    modes, sizeof(modes)));
	} else {
		if (loop_open_ports(d, TTD_BACKEND_PCAP, err, errsz) < 0)
			return TTD_EX_UNAVAILABLE;
		d->backend = TTD_BACKEND_PCAP;
		ttd_log(TTD_LOG_NOTICE, "backend", "pcap: libpcap on each of "
		    "the %d ports (%s%s)", nports, want == TTD_BACKEND_PCAP ?
		    "--backend pcap" : "AF_XDP unavailable: ",
		    want == TTD_BACKEND_PCAP ? "" : why);
	}
	for (s = 0; s < d->nd.ncards; s++) {
		if (ttd_tap_open(&d->tap[s], d->tapname[s],
		    sizeof(d->tapname[s]), &d->cfg, d->nd.card[s].card, err,
		    errsz) < 0)
			return TTD_EX_UNAVAILABLE;
		d->tap_dropped0[s] = ttd_tap_dropped(d->tap[s],
		    d->tapname[s]);
	}
	return 0;
}

/* An epoch for the credit counts of this start: never the last one's,
 * practically. */
static uint16_t
loop_epoch(void)
{
	struct timespec ts;
	uint32_t x;

	clock_gettime(CLOCK_REALTIME, &ts);
	x = (uint32_t)ts.tv_nsec ^ (uint32_t)ts.tv_sec * 2654435761u ^
	    (uint32_t)getpid() * 40503u;
	x ^= x >> 16;
	return (uint16_t)(x & 0xfffe ? x & 0xfffe : 2);
}

static int
loop_setup(struct ttd_daemon *d, char *err, size_t errsz)
{
	struct ttd_fwd_opts fo;
	struct ttd_io io;
	sigset_t ss;
	int rc;

	if ((rc = loop_load(d, err, errsz)) != 0)
		return rc;
	/* before any device: a second ttd on the same socket stops here */
	if (ttd_control_open(&d->ctl, d->o->control ? d->o->control :
	    TTD_DEFAULT_CONTROL, loop_answer, d, err, errsz) < 0)
		return 1;
	ttd_plane_io(d, &io);
	memset(&fo, 0, sizeof(fo));
	ttd_fwd_opts_config(&fo, &d->cfg, &d->net);
	fo.lossy = d->o->lossy;
	fo.vlan = d->o->pcp;
	fo.epoch = loop_epoch();
	if (ttd_fwd_init(&d->f, &d->nd, &io, &fo, err, errsz) < 0)
		return 1;
	if ((rc = loop_open_devices(d, err, errsz)) != 0)
		return rc;
	if (loop_open_traces(d, err, errsz) < 0)
		return 1;
	loop_sigset(&ss);
	d->sfd = signalfd(-1, &ss, SFD_NONBLOCK | SFD_CLOEXEC);
	if (d->sfd < 0) {
		snprintf(err, errsz, "signalfd: %s", strerror(errno));
		return 1;
	}
	return ttd_reload_init(&d->reload, d->o->config, d->o->node, &d->cfg,
	    &d->nd, err, errsz) < 0 ? 1 : 0;
}

/*
 * One loop or a thread per card.  One loop serves both cards unless they
 * sit on different NUMA nodes (or --threads card says so): then each card
 * gets a thread pinned to its node's CPUs, next to its DMA.  One loop is
 * pinned to the cards' CPUs when both sit on the same node; when hwloc
 * cannot place them (veth, virtual NICs) the kernel schedules it.
 */
static void
loop_threads(struct ttd_daemon *d)
{
	const ttd_nic *at[2] = {NULL, NULL};
	ttd_nic *nics;
	size_t n, i;
	int s, j, split;
	char err[512];

	d->nplanes = 1;
	d->plane[0].side = -1;
	if (ttd_discover(d->o->hwloc_xml, &nics, &n, err, sizeof(err)) < 0) {
		ttd_log(TTD_LOG_INFO, "numa", "not pinned: %s", err);
		nics = NULL;
		n = 0;
	}
	for (s = 0; s < d->nd.ncards; s++)
		for (i = 0; i < n; i++)
			for (j = 0; j < nics[i].nports; j++)
				if (strcmp(nics[i].port[j].name,
				    d->nd.card[s].port[0].ifname) == 0)
					at[s] = &nics[i];
	split = d->nd.ncards > 1 && at[0] != NULL && at[1] != NULL &&
	    strcmp(at[0]->cpuset, at[1]->cpuset) != 0;
	if (d->nd.ncards > 1 && (d->o->threads == TTD_THREADS_CARD ||
	    (d->o->threads == TTD_THREADS_AUTO && split))) {
		d->nplanes = 2;
		d->plane[0].side = 0;
		d->plane[1].side = 1;
		ttd_log(TTD_LOG_NOTICE, "numa", "a thread per card%s", split ?
		    ", each pinned to its card's NUMA node" : " (--threads "
		    "card)");
	} else if (at[0] == NULL || (d->nd.ncards > 1 && at[1] == NULL))
		ttd_log(TTD_LOG_INFO, "numa", "one loop, not pinned: hwloc "
		    "does not place the cards (no PCI device)");
	else if (split)
		ttd_log(TTD_LOG_INFO, "numa", "one loop (--threads one), not "
		    "pinned: the cards sit on NUMA nodes %d and %d",
		    at[0]->numa, at[1]->numa);
	else if (ttd_discover_bind(at[0], err, sizeof(err)) < 0)
		ttd_log(TTD_LOG_WARNING, "numa", "%s", err);
	else
		ttd_log(TTD_LOG_INFO, "numa", "one loop, pinned to CPUs %s "
		    "(NUMA node %d, the cards' own)", at[0]->cpuset,
		    at[0]->numa);
	for (s = 0; s < d->nplanes; s++)
		ttd_plane_init(&d->plane[s], d, d->plane[s].side);
	if (nics != NULL)
		ttd_discover_free(nics);
}

static void
loop_teardown(struct ttd_daemon *d)
{
	int s, abandoned;

	ttd_plane_stop(d);
	abandoned = ttd_reload_free(&d->reload) < 0;
	if (abandoned)
		ttd_log(TTD_LOG_NOTICE, "config", "a reload still waiting on "
		    "%s is abandoned", d->o->config);
	loop_close_traces(d);
	loop_close_ports(d);
	for (s = 0; s < 2; s++)
		if (d->tap[s] > 0)
			close(d->tap[s]);
	ttd_control_close(&d->ctl);
	if (d->sfd >= 0)
		close(d->sfd);
	ttd_fwd_free(&d->f);
	if (abandoned)
		return;		/* the reload still reads them */
	if (d->net.coord != NULL)
		tt_net_free(&d->net);
	tt_config_free(&d->cfg);
}

/* ---- the loop ---- */

static uint64_t
loop_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* The poll set: the plane's (one loop), the signals, the reloads, the
 * control socket. */
static void
loop_slots(struct ttd_daemon *d, struct loop_slots *sl, struct pollfd *pfd)
{
	int n;

	n = d->nplanes == 1 ? ttd_plane_pollfds(&d->plane[0], pfd) : 0;
	sl->nplane = n;
	sl->sig = n;
	pfd[n].fd = d->sfd;
	pfd[n].events = POLLIN;
	pfd[n++].revents = 0;
	sl->reload = n;
	pfd[n].fd = d->reload.efd;
	pfd[n].events = POLLIN;
	pfd[n++].revents = 0;
	sl->ctl = n;
	(void)ttd_control_pollfds(&d->ctl, pfd + n, loop_ms());
	sl->n = n + 1 + TTD_CONTROL_CLIENTS;
}

/* The poll() timeout: the plane's wish, the next flush, a control
 * client's deadline. */
static int
loop_timeout(struct ttd_daemon *d, int plane, uint64_t flush, uint64_t now)
{
	uint64_t next = flush, ctl = ttd_control_next_deadline(&d->ctl, now);
	int t;

	if (ctl < next)
		next = ctl > now ? ctl : now;
	t = next - now < LOOP_IDLE_MS ? (int)(next - now) : LOOP_IDLE_MS;
	return plane < t ? plane : t;
}

static int
loop_run(struct ttd_daemon *d)
{
	struct pollfd pfd[LOOP_SLOTS_MAX];
	struct loop_slots sl;
	uint64_t flush = 0, now;
	int stop = 0, timeout = 0, plane;

	while (!stop) {
		loop_slots(d, &sl, pfd);
		if (poll(pfd, (nfds_t)sl.n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			ttd_log_errno(TTD_LOG_ERR, "loop", "poll");
			return 1;
		}
		plane = d->nplanes == 1 ? ttd_plane_round(&d->plane[0], pfd) :
		    LOOP_IDLE_MS;
		if (pfd[sl.sig].revents & POLLIN)
			stop = loop_signals(d);
		if (pfd[sl.reload].revents & POLLIN)
			loop_reloaded(d);
		ttd_control_serve(&d->ctl, pfd + sl.ctl, loop_ms());
		now = loop_ms();
		if (now >= flush) {
			loop_flush(d);
			flush = now + LOOP_FLUSH_MS;
		}
		timeout = loop_timeout(d, plane, flush, now);
	}
	return 0;
}

/* Signals go to the signalfd, from before anything is opened. */
static void
loop_block_signals(void)
{
	sigset_t ss;

	loop_sigset(&ss);
	if (sigprocmask(SIG_BLOCK, &ss, NULL) < 0)
		ttd_fatal("start", "sigprocmask");
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		ttd_fatal("start", "SIGPIPE");
}

int
ttd_run(const struct ttd_run_opts *o)
{
	/* large (buffers' headers, a TAP read per card): not on the stack */
	static struct ttd_daemon d;
	char err[512] = "";
	int rc;

	memset(&d, 0, sizeof(d));
	d.o = o;
	d.sfd = d.reload.efd = -1;
	pthread_mutex_init(&d.cap_mu, NULL);
	pthread_mutex_init(&d.pause_mu, NULL);
	pthread_cond_init(&d.pause_cv, NULL);
	loop_block_signals();
	rc = loop_setup(&d, err, sizeof(err));
	if (rc == 0) {
		loop_threads(&d);
		ttd_plane_links(&d, -1);
		if (d.nplanes > 1 && ttd_plane_start(&d, err,
		    sizeof(err)) < 0)
			rc = 1;
	}
	if (rc != 0) {
		if (err[0] != '\0')
			ttd_log(TTD_LOG_ERR, "start", "%s", err);
		loop_teardown(&d);
		return rc;
	}
	ttd_log(TTD_LOG_NOTICE, "start", "node %s (%u), PEs %u%s%u, %d ports, "
	    "%s, traces in %s", d.nd.host, d.nd.node, d.nd.card[0].card,
	    d.nd.ncards > 1 ? " and " : "", d.nd.ncards > 1 ?
	    d.nd.card[1].card : d.nd.card[0].card,
	    d.f.sw[0].nports + d.f.sw[1].nports, o->lossy ? "lossy (--lossy: "
	    "no credits, drops where a buffer is full)" : "lossless (credits "
	    "per VC)", d.trace_dir);
	loop_notify("READY=1");
	rc = loop_run(&d);
	loop_notify("STOPPING=1");
	ttd_plane_stop(&d);
	ttd_status_log(&d, TTD_LOG_INFO);
	loop_teardown(&d);
	return rc;
}
