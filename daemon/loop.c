/*
 * `ttd run`: the daemon around the forwarding logic of fwd.c.
 *
 * One poll loop serves every port of both cards (port.c), the PEs' TAPs,
 * a signalfd, the reload thread's eventfd (reload.c) and the control
 * socket (control.c).  Nothing in the loop waits but poll() itself: every
 * descriptor is non-blocking, control clients have a deadline and the
 * config is loaded in a thread.  Timers: hellos and link state every
 * LOOP_HELLO_MS, trace flushes every LOOP_FLUSH_MS.  Signals are read
 * from the signalfd inside the loop, never handled in a handler: TERM/INT
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
#include <pcap/pcap.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "discover.h"
#include "ttd.h"

#define LOOP_BATCH	64	/* frames read from one handle per round */
#define LOOP_QUEUE_SLOTS 32	/* frames per (port, VC) output queue */
#define LOOP_HELLO_MS	1000	/* hellos and link state */
#define LOOP_FLUSH_MS	200	/* trace files flushed */
#define LOOP_IDLE_MS	100	/* longest poll() when nothing waits */
#define LOOP_BUSY_MS	1	/* poll() while frames wait in queues */

/*
 * The poll set: the ports, the TAPs, the signalfd, the reload eventfd,
 * then the control socket's listener and clients (TTD_CONTROL_CLIENTS).
 */
struct loop_slots {
	int port0, nports;
	int tap0, ntaps;
	int sig;
	int reload;
	int ctl;
	int n;
};
#define LOOP_SLOTS_MAX	(2 * (TT_MAX_EXT + 1) + 2 + 2 + 1 + \
			 TTD_CONTROL_CLIENTS)

/* Who a port's slot is: the pcap callback's user data. */
struct loop_rx {
	struct ttd_daemon *d;
	int side, lport;
};

struct loop_timers {
	uint64_t hello, flush;	/* next due, ms */
};

/* ---- the io table of fwd.c ---- */

static uint64_t
loop_now_ns(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
loop_port_send(void *ctx, int side, int lport, const uint8_t *buf,
    size_t len)
{
	struct ttd_daemon *d = ctx;

	if (pcap_inject(d->pc[side][lport], buf, len) >= 0)
		return 0;
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
		return -1;
	ttd_log(TTD_LOG_DEBUG, "fwd", "%s: send failed: %s",
	    d->nd.card[side].port[lport].ifname,
	    pcap_geterr(d->pc[side][lport]));
	return 1;
}

static int
loop_pe_deliver(void *ctx, int side, const uint8_t *buf, size_t len)
{
	struct ttd_daemon *d = ctx;

	if (write(d->tap[side], buf, len) == (ssize_t)len)
		return 0;
	ttd_log_errno(TTD_LOG_DEBUG, "pe", "%s: write", d->tapname[side]);
	return -1;
}

static void
loop_trace_pe(void *ctx, const uint8_t *buf, size_t len)
{
	struct ttd_daemon *d = ctx;

	ttd_capture_write(&d->pe_cap, loop_now_ns(d), buf, len);
}

static void
loop_trace_port(void *ctx, int side, int lport, const uint8_t *buf,
    size_t len)
{
	struct ttd_daemon *d = ctx;

	if (d->port_tracing)
		ttd_capture_write(&d->port_cap[side][lport], loop_now_ns(d),
		    buf, len);
}

/* ---- links and traces ---- */

static void
loop_links(struct ttd_daemon *d)
{
	char pn[160];
	int s, i, up;

	for (s = 0; s < d->nd.ncards; s++)
		for (i = 0; i < d->f.nports[s]; i++) {
			up = ttd_port_carrier(d->nd.card[s].port[i].ifname);
			if (up < 0 || up == d->f.fp[s][i].link)
				continue;
			ttd_fwd_port_name(&d->f, s, i, pn, sizeof(pn));
			if (d->f.fp[s][i].link >= 0 || !up)
				ttd_log(up ? TTD_LOG_NOTICE : TTD_LOG_WARNING,
				    "link", "%s: link %s", pn, up ? "up" :
				    "down");
			ttd_fwd_link(&d->f, s, i, up);
		}
}

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

	for (i = 0; i < n; i++)
		(void)ttd_capture_flush(all[i]);
}

static void
loop_reopen(struct ttd_daemon *d, const struct ttd_settings *s)
{
	struct ttd_capture *all[LOOP_CAPTURES_MAX];
	int n = loop_ncaptures(d, all), i;
	char err[512];

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
			ttd_status_log(d, TTD_LOG_NOTICE);
		}
	}
	return stop;
}

static void
loop_answer(void *ctx, int kind, FILE *fp)
{
	struct ttd_daemon *d = ctx;

	loop_flush(d);		/* what status reports is what files hold */
	if (kind == TTD_REQ_STATUS_JSON)
		ttd_status_json(d, fp);
	else
		ttd_status_text(d, fp);
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

static int
loop_open_devices(struct ttd_daemon *d, char *err, size_t errsz)
{
	int s, i;

	for (s = 0; s < d->nd.ncards; s++) {
		for (i = 0; i < d->nd.card[s].nports; i++)
			if (ttd_port_open(&d->pc[s][i],
			    d->nd.card[s].port[i].ifname,
			    d->f.port_mac[s][i], err, errsz) < 0)
				return TTD_EX_UNAVAILABLE;
		if (ttd_tap_open(&d->tap[s], d->tapname[s],
		    sizeof(d->tapname[s]), &d->cfg, d->nd.card[s].card, err,
		    errsz) < 0)
			return TTD_EX_UNAVAILABLE;
	}
	return 0;
}

static int
loop_setup(struct ttd_daemon *d, char *err, size_t errsz)
{
	struct ttd_io io = {
		.ctx = d, .port_send = loop_port_send,
		.pe_deliver = loop_pe_deliver, .trace_pe = loop_trace_pe,
		.trace_port = loop_trace_port, .now_ns = loop_now_ns
	};
	sigset_t ss;
	int rc;

	if ((rc = loop_load(d, err, errsz)) != 0)
		return rc;
	/* before any device: a second ttd on the same socket stops here */
	if (ttd_control_open(&d->ctl, d->o->control ? d->o->control :
	    TTD_DEFAULT_CONTROL, loop_answer, d, err, errsz) < 0)
		return 1;
	if (ttd_fwd_init(&d->f, &d->nd, &io, LOOP_QUEUE_SLOTS, err,
	    errsz) < 0)
		return 1;
	d->f.vlan = d->o->pcp;
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
 * One poll loop serves both cards.  When hwloc places both cards on the
 * same CPUs (one NUMA node), the loop is pinned there, next to the cards'
 * DMA; when they sit on different nodes, or hwloc cannot place them
 * (veth, virtual NICs), the kernel schedules it.
 */
static void
loop_pin(struct ttd_daemon *d)
{
	const ttd_nic *at[2] = {NULL, NULL};
	ttd_nic *nics;
	size_t n, i;
	int s, j;
	char err[512];

	if (ttd_discover(d->o->hwloc_xml, &nics, &n, err, sizeof(err)) < 0) {
		ttd_log(TTD_LOG_INFO, "numa", "not pinned: %s", err);
		return;
	}
	for (s = 0; s < d->nd.ncards; s++)
		for (i = 0; i < n; i++)
			for (j = 0; j < nics[i].nports; j++)
				if (strcmp(nics[i].port[j].name,
				    d->nd.card[s].port[0].ifname) == 0)
					at[s] = &nics[i];
	if (at[0] == NULL || (d->nd.ncards > 1 && at[1] == NULL))
		ttd_log(TTD_LOG_INFO, "numa", "not pinned: hwloc does not "
		    "place the cards (no PCI device)");
	else if (d->nd.ncards > 1 && strcmp(at[0]->cpuset, at[1]->cpuset))
		ttd_log(TTD_LOG_INFO, "numa", "not pinned: the cards sit on "
		    "NUMA nodes %d and %d", at[0]->numa, at[1]->numa);
	else if (ttd_discover_bind(at[0], err, sizeof(err)) < 0)
		ttd_log(TTD_LOG_WARNING, "numa", "%s", err);
	else
		ttd_log(TTD_LOG_INFO, "numa", "pinned to CPUs %s (NUMA node "
		    "%d, the cards' own)", at[0]->cpuset, at[0]->numa);
	ttd_discover_free(nics);
}

static void
loop_teardown(struct ttd_daemon *d)
{
	int s, i, abandoned;

	abandoned = ttd_reload_free(&d->reload) < 0;
	if (abandoned)
		ttd_log(TTD_LOG_NOTICE, "config", "a reload still waiting on "
		    "%s is abandoned", d->o->config);
	loop_close_traces(d);
	for (s = 0; s < 2; s++) {
		for (i = 0; i < TT_MAX_EXT + 1; i++)
			if (d->pc[s][i] != NULL)
				pcap_close(d->pc[s][i]);
		if (d->tap[s] > 0)
			close(d->tap[s]);
	}
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

static void
loop_slots_init(struct ttd_daemon *d, struct loop_slots *sl,
    struct pollfd *pfd, struct loop_rx *rx)
{
	int s, i, n = 0;

	memset(pfd, 0, LOOP_SLOTS_MAX * sizeof(*pfd));
	sl->port0 = n;
	for (s = 0; s < d->nd.ncards; s++)
		for (i = 0; i < d->f.nports[s]; i++) {
			rx[n] = (struct loop_rx){d, s, i};
			pfd[n].fd = pcap_get_selectable_fd(d->pc[s][i]);
			pfd[n++].events = POLLIN;
		}
	sl->nports = n - sl->port0;
	sl->tap0 = n;
	for (s = 0; s < d->nd.ncards; s++) {
		pfd[n].fd = d->tap[s];
		pfd[n++].events = POLLIN;
	}
	sl->ntaps = n - sl->tap0;
	sl->sig = n;
	pfd[n].fd = d->sfd;
	pfd[n++].events = POLLIN;
	sl->reload = n;
	pfd[n].fd = d->reload.efd;
	pfd[n++].events = POLLIN;
	sl->ctl = n;
	sl->n = n + 1 + TTD_CONTROL_CLIENTS;
}

static void
loop_pcap_cb(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct loop_rx *rx = (struct loop_rx *)user;

	ttd_fwd_port_rx(&rx->d->f, rx->side, rx->lport, bytes, h->caplen,
	    h->len);
}

/* What poll() says the ports and TAPs hold: up to LOOP_BATCH each. */
static void
loop_receive(struct ttd_daemon *d, const struct loop_slots *sl,
    const struct pollfd *pfd, struct loop_rx *rx)
{
	ssize_t len;
	int i, s, k;

	for (i = 0; i < sl->nports; i++)
		if (pfd[sl->port0 + i].revents & POLLIN)
			(void)pcap_dispatch(d->pc[rx[i].side][rx[i].lport],
			    LOOP_BATCH, loop_pcap_cb, (u_char *)&rx[i]);
	for (s = 0; s < sl->ntaps; s++) {
		if (!(pfd[sl->tap0 + s].revents & POLLIN))
			continue;
		for (k = 0; k < LOOP_BATCH; k++) {
			/* one byte more than a frame may have: a longer
			 * frame is cut to it, and dropped as too_long */
			len = read(d->tap[s], d->buf, sizeof(d->buf));
			if (len <= 0)
				break;
			ttd_fwd_pe_rx(&d->f, s, d->buf, (size_t)len);
		}
	}
}

static uint64_t
loop_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Run the timers that are due; the poll() timeout until the next event. */
static int
loop_timers(struct ttd_daemon *d, struct loop_timers *t, uint64_t now)
{
	uint64_t next, ctl;

	if (now >= t->hello) {
		loop_links(d);
		ttd_fwd_hello(&d->f);
		t->hello = now + LOOP_HELLO_MS;
	}
	if (now >= t->flush) {
		loop_flush(d);
		t->flush = now + LOOP_FLUSH_MS;
	}
	if (ttd_fwd_queued(&d->f) > 0)
		return LOOP_BUSY_MS;
	next = t->hello < t->flush ? t->hello : t->flush;
	ctl = ttd_control_next_deadline(&d->ctl);
	if (ctl < next)
		next = ctl > now ? ctl : now;
	return next - now < LOOP_IDLE_MS ? (int)(next - now) : LOOP_IDLE_MS;
}

static int
loop_run(struct ttd_daemon *d)
{
	struct pollfd pfd[LOOP_SLOTS_MAX];
	struct loop_rx rx[2 * (TT_MAX_EXT + 1)];
	struct loop_timers t = {0, 0};
	struct loop_slots sl;
	int stop = 0, timeout;

	loop_slots_init(d, &sl, pfd, rx);
	while (!stop) {
		timeout = loop_timers(d, &t, loop_ms());
		ttd_control_pollfds(&d->ctl, pfd + sl.ctl);
		if (poll(pfd, (nfds_t)sl.n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			ttd_log_errno(TTD_LOG_ERR, "loop", "poll");
			return 1;
		}
		loop_receive(d, &sl, pfd, rx);
		ttd_fwd_drain(&d->f);
		if (pfd[sl.sig].revents & POLLIN)
			stop = loop_signals(d);
		if (pfd[sl.reload].revents & POLLIN)
			loop_reloaded(d);
		ttd_control_serve(&d->ctl, pfd + sl.ctl, loop_ms());
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
	/* large (queues' headers, buffers): not on the stack */
	static struct ttd_daemon d;
	char err[512] = "";
	int rc;

	memset(&d, 0, sizeof(d));
	d.o = o;
	d.sfd = d.reload.efd = -1;
	loop_block_signals();
	rc = loop_setup(&d, err, sizeof(err));
	if (rc != 0) {
		if (err[0] != '\0')
			ttd_log(TTD_LOG_ERR, "start", "%s", err);
		loop_teardown(&d);
		return rc;
	}
	loop_pin(&d);
	loop_links(&d);
	ttd_log(TTD_LOG_NOTICE, "start", "node %s (%u), PEs %u%s%u, %d ports, "
	    "traces in %s", d.nd.host, d.nd.node, d.nd.card[0].card,
	    d.nd.ncards > 1 ? " and " : "", d.nd.ncards > 1 ?
	    d.nd.card[1].card : d.nd.card[0].card,
	    d.f.nports[0] + d.f.nports[1], d.trace_dir);
	loop_notify("READY=1");
	rc = loop_run(&d);
	loop_notify("STOPPING=1");
	ttd_status_log(&d, TTD_LOG_INFO);
	loop_teardown(&d);
	return rc;
}
