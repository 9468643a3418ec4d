/*
 * The data plane: what moves frames between the devices (port.c, xdp.c),
 * the switches (fwd.c, credit.c, hello.c) and the trace files.
 *
 * A round, after poll(): up to PLANE_BATCH frames from each port that has
 * some, then the TAPs, read only while the PE's first hop can take any
 * frame (lossless back-pressure: a TAP not read fills its own queue, so a
 * TCP sender is slowed by its socket); then every output sends what its
 * credits allow, the credit frames that are due go, and what was sent is
 * pushed to the devices at once (AF_XDP: one system call per 32 frames).
 * Every second, the carrier of every port and a hello on each.
 *
 * While frames stream in over AF_XDP, a round that found only a few of
 * them is followed by a nap of PLANE_NAP_US (ttd_plane_nap), so that the
 * next round finds more: a lossless neighbour sends only what its credits
 * allow, so without it ttd keeps catching up on a handful of frames a
 * round, and pays a poll(), a send system call a port and a credit frame
 * for each handful, and the neighbour pays a wake-up of ttd for each
 * frame (bench/RESULTS.md, "the nap").  A round that follows an empty
 * one never naps: a lone frame, or one exchange at a time, goes through
 * at once.
 *
 * By default one loop runs both cards, in loop.c's poll loop; with a
 * thread per card (--threads card, or cards on different NUMA nodes) each
 * card's plane runs in a thread of its own, pinned by hwloc to the CPUs of
 * its card's NUMA node.  The two cards share nothing then but the PE
 * trace file (under cap_mu, as every trace file: the main loop flushes
 * them) and the internal link, which is a cable like any other, with its
 * own credits.  `ttd status` holds both threads between two rounds while
 * it reads their state, so its counters balance exactly.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "discover.h"
#include "ttd.h"

#define PLANE_BATCH	64	/* frames read from one device per round */
#define PLANE_HELLO_MS	1000	/* hellos and link state */
#define PLANE_IDLE_MS	100	/* longest poll(): the credit sync runs */
#define PLANE_BUSY_MS	1	/* poll() while a port is busy */
#define PLANE_NAP_US	20	/* the nap after a small round in a stream */
#define PLANE_NAP_FRAMES 32	/* a round of fewer frames is small */
#define PLANE_NAP_STREAK 2	/* rounds in a row with frames: a stream */
#define PLANE_SLACK_NS	1000	/* timer slack: a nap of 20 us, not 70 */

static uint64_t
plane_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ---- the io table of fwd.c ---- */

static uint64_t
plane_now_ns(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
plane_port_send(void *ctx, int side, int lport, const uint8_t *buf,
    size_t len)
{
	struct ttd_daemon *d = ctx;

	return ttd_dev_send(&d->dev[side][lport], buf, len);
}

static uint8_t *
plane_port_buf(void *ctx, int side, int lport, size_t *cap)
{
	struct ttd_daemon *d = ctx;

	return ttd_dev_buf(&d->dev[side][lport], cap);
}

static void
plane_port_commit(void *ctx, int side, int lport, size_t len)
{
	struct ttd_daemon *d = ctx;

	ttd_dev_commit(&d->dev[side][lport], len);
}

static void
plane_port_abort(void *ctx, int side, int lport)
{
	struct ttd_daemon *d = ctx;

	ttd_dev_abort(&d->dev[side][lport]);
}

static int
plane_pe_deliver(void *ctx, int side, const uint8_t *buf, size_t len)
{
	struct ttd_daemon *d = ctx;

	if (write(d->tap[side], buf, len) == (ssize_t)len)
		return 0;
	ttd_log_errno(TTD_LOG_DEBUG, "pe", "%s: write", d->tapname[side]);
	return -1;
}

static void
plane_trace_pe(void *ctx, const uint8_t *buf, size_t len)
{
	struct ttd_daemon *d = ctx;
	uint64_t t = plane_now_ns(d);

	pthread_mutex_lock(&d->cap_mu);
	ttd_capture_write(&d->pe_cap, t, buf, len);
	pthread_mutex_unlock(&d->cap_mu);
}

static void
plane_trace_port(void *ctx, int side, int lport, const uint8_t *buf,
    size_t len)
{
	struct ttd_daemon *d = ctx;
	uint64_t t;

	if (!d->port_tracing)
		return;
	t = plane_now_ns(d);
	pthread_mutex_lock(&d->cap_mu);
	ttd_capture_write(&d->port_cap[side][lport], t, buf, len);
	pthread_mutex_unlock(&d->cap_mu);
}

void
ttd_plane_io(struct ttd_daemon *d, struct ttd_io *io)
{
	memset(io, 0, sizeof(*io));
	io->ctx = d;
	io->port_send = plane_port_send;
	io->port_buf = plane_port_buf;
	io->port_commit = plane_port_commit;
	io->port_abort = plane_port_abort;
	io->pe_deliver = plane_pe_deliver;
	io->trace_pe = plane_trace_pe;
	io->trace_port = plane_trace_port;
	io->now_ns = plane_now_ns;
}

/* ---- links ---- */

/*
 * Port (s, i)'s interface went away (deleted: a driver reloaded, a veth
 * made again, a card unplugged) or its socket keeps failing: the device
 * closed, the port down (what waits for it is dropped as link_down, no
 * credit frame or hello is sent into it), counted and said once.  Its
 * socket was bound to that interface: one made again under the same name
 * is another, which only a new socket reaches (plane_port_reopen).
 */
static void
plane_port_lost(struct ttd_daemon *d, int s, int i, const char *why)
{
	struct ttd_dev *dev = &d->dev[s][i];
	char pn[160];

	ttd_log(TTD_LOG_WARNING, "link", "%s: interface %s %s: the port is "
	    "down until an interface of that name is there again",
	    ttd_fwd_port_name(&d->f, s, i, pn, sizeof(pn)), dev->ifname, why);
	ttd_dev_close(dev);
	dev->lost++;
	dev->reopen_warned = 0;
	ttd_fwd_link(&d->f, s, i, 0);
}

/* A closed port whose interface name is there again: opened on it, with
 * the backend it had.  1 open; 0 not (tried again at the next link news
 * or second, a failure said once). */
static int
plane_port_reopen(struct ttd_daemon *d, int s, int i)
{
	struct ttd_dev *dev = &d->dev[s][i];
	char pn[160], err[512];

	/* there but down (made, not yet up): it opens once up, which
	 * rtnetlink tells (libpcap refuses an interface that is down) */
	if (!ttd_dev_name_exists(dev) || ttd_port_carrier(dev->ifname) == 0)
		return 0;
	ttd_fwd_port_name(&d->f, s, i, pn, sizeof(pn));
	if (ttd_dev_reopen(dev, d->f.sw[s].fp[i].mac, err, sizeof(err)) < 0) {
		if (!dev->reopen_warned)
			ttd_log(TTD_LOG_WARNING, "link", "%s: interface %s is "
			    "there again but does not open (tried again every "
			    "second): %s", pn, dev->ifname, err);
		dev->reopen_warned = 1;
		return 0;
	}
	ttd_log(TTD_LOG_NOTICE, "link", "%s: interface %s is there again: "
	    "the port reopened (%s)", pn, dev->ifname, ttd_dev_mode(dev));
	return 1;
}

void
ttd_plane_links(struct ttd_daemon *d, int side)
{
	char pn[160];
	int s, i, up;

	for (s = 0; s < d->nd.ncards; s++) {
		struct ttd_sw *sw = &d->f.sw[s];

		if (side >= 0 && s != side)
			continue;
		for (i = 0; i < sw->nports; i++) {
			struct ttd_dev *dev = &d->dev[s][i];

			if (ttd_dev_is_open(dev) && !ttd_dev_present(dev))
				plane_port_lost(d, s, i, ttd_dev_name_exists(
				    dev) ? "was made again (another device "
				    "now)" : "is gone");
			if (!ttd_dev_is_open(dev) && !plane_port_reopen(d, s,
			    i))
				continue;
			up = ttd_port_carrier(d->nd.card[s].port[i].ifname);
			if (up < 0 || up == sw->fp[i].link)
				continue;
			ttd_fwd_port_name(&d->f, s, i, pn, sizeof(pn));
			if (sw->fp[i].link >= 0 || !up)
				ttd_log(up ? TTD_LOG_NOTICE : TTD_LOG_WARNING,
				    "link", "%s: link %s", pn, up ? "up" :
				    "down");
			ttd_fwd_link(&d->f, s, i, up);
		}
	}
}

/*
 * A socket on rtnetlink's link group: a cable pulled or plugged shows at
 * once, not at the next second's poll of the carrier, so that few frames
 * go to a link that has none.  Without it (an error), the poll remains.
 */
void
ttd_plane_init(struct ttd_plane *p, struct ttd_daemon *d, int side)
{
	struct sockaddr_nl sa;

	p->d = d;
	p->side = side;
	p->efd = -1;
	/* the nap's timer, here and in the plane threads created after */
	(void)prctl(PR_SET_TIMERSLACK, PLANE_SLACK_NS, 0, 0, 0);
	p->nlfd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    NETLINK_ROUTE);
	if (p->nlfd < 0)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.nl_family = AF_NETLINK;
	sa.nl_groups = RTMGRP_LINK;
	if (bind(p->nlfd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ttd_log_errno(TTD_LOG_INFO, "link", "rtnetlink (link changes "
		    "seen within a second instead)");
		close(p->nlfd);
		p->nlfd = -1;
	}
}

/* Link news: read it all, then look at every carrier. */
static void
plane_link_news(struct ttd_plane *p)
{
	char buf[8192];

	while (recv(p->nlfd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
	ttd_plane_links(p->d, p->side);
}

/* ---- one round ---- */

/* The plane's slots in its pollfd array: its ports, then its TAPs. */
static int
plane_has(const struct ttd_plane *p, int s)
{
	return p->side < 0 || p->side == s;
}

int
ttd_plane_pollfds(struct ttd_plane *p, struct pollfd *pfd)
{
	struct ttd_daemon *d = p->d;
	int s, i, n = 0;

	for (s = 0; s < d->nd.ncards; s++)
		for (i = 0; plane_has(p, s) && i < d->f.sw[s].nports; i++) {
			pfd[n].fd = d->dev[s][i].fd;
			pfd[n].events = POLLIN;
			pfd[n++].revents = 0;
		}
	for (s = 0; s < d->nd.ncards; s++) {
		if (!plane_has(p, s))
			continue;
		/* lossless: the TAP waits while its PE's buffer is full */
		pfd[n].fd = ttd_fwd_pe_room(&d->f, s) ? d->tap[s] : -1;
		pfd[n].events = POLLIN;
		pfd[n++].revents = 0;
	}
	pfd[n].fd = p->nlfd;
	pfd[n].events = POLLIN;
	pfd[n++].revents = 0;
	return n;
}

struct plane_rx {
	struct ttd_daemon *d;
	int side, lport;
};

static void
plane_rx_cb(void *u, const uint8_t *buf, size_t caplen, size_t wirelen)
{
	struct plane_rx *rx = u;

	ttd_fwd_port_rx(&rx->d->f, rx->side, rx->lport, buf, caplen,
	    wirelen);
}

/* Frames waiting on the TAP of card s, while its first hop takes them. */
static void
plane_read_tap(struct ttd_daemon *d, int s)
{
	ssize_t len;
	int k;

	for (k = 0; k < PLANE_BATCH && ttd_fwd_pe_room(&d->f, s); k++) {
		/* one byte more than a frame may have: a longer frame is
		 * cut to it, and dropped as too_long */
		len = read(d->tap[s], d->buf[s], sizeof(d->buf[s]));
		if (len <= 0)
			break;
		ttd_fwd_pe_rx(&d->f, s, d->buf[s], (size_t)len);
	}
}

/*
 * Ports whose socket reported an error (POLLERR: libpcap's ENETDOWN when
 * the interface went down or away; a failed receive or send): the
 * interfaces looked at at once, a port whose interface went closed.  On
 * one still there the error is read, which clears it, so that poll() does
 * not return at once again and again; a socket failing PLANE_ERR_ROUNDS
 * rounds in a row all the same is closed, and opened again with the next
 * second's look at the links.
 */
#define PLANE_ERR_ROUNDS	100

static void
plane_port_errors(struct ttd_plane *p)
{
	struct ttd_daemon *d = p->d;
	int s, i;

	ttd_plane_links(d, p->side);
	for (s = 0; s < d->nd.ncards; s++)
		for (i = 0; plane_has(p, s) && i < d->f.sw[s].nports; i++) {
			struct ttd_dev *dev = &d->dev[s][i];

			if (!ttd_dev_is_open(dev) || !dev->failed)
				continue;
			ttd_dev_clear_error(dev);
			if (++dev->err_rounds >= PLANE_ERR_ROUNDS)
				plane_port_lost(d, s, i, "keeps failing");
		}
}

/* How long to nap after a round that read got frames, streak counting
 * the rounds in a row that read any (this one included): PLANE_NAP_US
 * after a small round in a stream, else 0. */
int
ttd_plane_nap(unsigned *streak, int got)
{
	if (got <= 0) {
		*streak = 0;
		return 0;
	}
	if (*streak < PLANE_NAP_STREAK)
		++*streak;
	return *streak >= PLANE_NAP_STREAK && got < PLANE_NAP_FRAMES ?
	    PLANE_NAP_US : 0;
}

int
ttd_plane_round(struct ttd_plane *p, const struct pollfd *pfd)
{
	struct ttd_daemon *d = p->d;
	struct plane_rx rx = {d, 0, 0};
	uint64_t now = plane_ms();
	int s, i, k, n = 0, wait = PLANE_IDLE_MS, got = 0, xdp = 0, bad = 0;
	int intl = 0, nap;

	for (s = 0; s < d->nd.ncards; s++)
		for (i = 0; plane_has(p, s) && i < d->f.sw[s].nports; i++) {
			struct ttd_dev *dev = &d->dev[s][i];
			short ev = pfd[n++].revents;

			/* AF_XDP's ring is read without a system call; an
			 * error is read by libpcap (and so cleared) */
			if ((ev & (POLLIN | POLLERR)) ||
			    dev->backend == TTD_BACKEND_XDP) {
				rx.side = s;
				rx.lport = i;
				k = ttd_dev_rx(dev, PLANE_BATCH, plane_rx_cb,
				    &rx);
				got += k;
				if (dev->backend == TTD_BACKEND_XDP)
					xdp += k;
				if (d->f.sw[s].fp[i].port == TT_PORT_INT)
					intl += k;
			}
			if (ev & (POLLERR | POLLHUP | POLLNVAL))
				dev->failed = 1;
			if (dev->failed)
				bad = 1;
			else
				dev->err_rounds = 0;
		}
	for (s = 0; s < d->nd.ncards; s++)
		if (plane_has(p, s) && (pfd[n++].revents & POLLIN))
			plane_read_tap(d, s);
	if (pfd[n++].revents & POLLIN)
		plane_link_news(p);
	if (bad)
		plane_port_errors(p);
	if (now >= p->hello_ms) {
		ttd_plane_links(d, p->side);
		ttd_fwd_hello(&d->f, p->side);
		p->hello_ms = now + PLANE_HELLO_MS;
	}
	ttd_fwd_drain(&d->f, p->side);
	ttd_credit_round(&d->f, p->side, plane_now_ns(d));
	bad = 0;
	for (s = 0; s < d->nd.ncards; s++)
		for (i = 0; plane_has(p, s) && i < d->f.sw[s].nports; i++) {
			struct ttd_dev *dev = &d->dev[s][i];

			bad |= dev->failed;
			/* a link without carrier would drop what is pushed:
			 * it waits in the device for the link to return */
			if (!dev->dirty || d->f.sw[s].fp[i].link == 0)
				continue;
			ttd_dev_flush(dev);
			if (dev->dirty)
				wait = PLANE_BUSY_MS;
			bad |= dev->failed;
		}
	/* a send found no interface behind its socket: the next round
	 * looks, at once */
	if (bad)
		wait = 0;
	if (ttd_fwd_busy(&d->f, p->side))
		wait = PLANE_BUSY_MS;
	/* frames came: more are likely on their way; look again at once
	 * rather than sleep and be woken for each */
	if (got > 0)
		wait = 0;
	/* AF_XDP only (with libpcap, a system call a frame, it cost more
	 * than it saved), and not when frames came over the internal link:
	 * their credit comes back through this same loop, which then carries
	 * each frame through both switches and is short of time, not work */
	if ((nap = ttd_plane_nap(&p->streak, got)) > 0 && xdp > 0 &&
	    intl == 0 && !bad) {
		struct timespec ts = {0, nap * 1000L};

		(void)nanosleep(&ts, NULL);
	}
	if (p->hello_ms - now < (uint64_t)wait)
		wait = (int)(p->hello_ms - now);
	return wait;
}

/* ---- a thread per card ---- */

/* Between two rounds: hold while the main loop reads. */
static void
plane_pause_point(struct ttd_daemon *d)
{
	if (!__atomic_load_n(&d->pause_want, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&d->pause_mu);
	d->paused++;
	pthread_cond_broadcast(&d->pause_cv);
	while (d->pause_want)
		pthread_cond_wait(&d->pause_cv, &d->pause_mu);
	d->paused--;
	pthread_mutex_unlock(&d->pause_mu);
}

static void *
plane_thread(void *arg)
{
	struct ttd_plane *p = arg;
	struct ttd_daemon *d = p->d;
	struct pollfd pfd[TTD_PLANE_FDS];
	uint64_t v;
	int n, timeout = 0;

	while (!__atomic_load_n(&d->stop, __ATOMIC_ACQUIRE)) {
		n = ttd_plane_pollfds(p, pfd);
		pfd[n].fd = p->efd;
		pfd[n].events = POLLIN;
		pfd[n].revents = 0;
		if (poll(pfd, (nfds_t)n + 1, timeout) < 0 && errno != EINTR) {
			ttd_log_errno(TTD_LOG_ERR, "loop", "card %d: poll",
			    p->side);
			break;
		}
		/* drain the wake-up; a failed read (EAGAIN: another drained
		 * it) leaves nothing to do */
		if ((pfd[n].revents & POLLIN) && read(p->efd, &v, sizeof(v)) < 0) {
		}
		timeout = ttd_plane_round(p, pfd);
		plane_pause_point(d);
	}
	return NULL;
}

/* Pin the calling thread where hwloc places card side's first port. */
static void
plane_pin(struct ttd_plane *p)
{
	struct ttd_daemon *d = p->d;
	const ttd_nic *at = NULL;
	ttd_nic *nics;
	size_t n, i;
	int j;
	char err[512];

	if (ttd_discover(d->o->hwloc_xml, &nics, &n, err, sizeof(err)) < 0) {
		ttd_log(TTD_LOG_INFO, "numa", "card %d's thread not pinned: %s",
		    p->side, err);
		return;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < nics[i].nports; j++)
			if (strcmp(nics[i].port[j].name,
			    d->nd.card[p->side].port[0].ifname) == 0)
				at = &nics[i];
	if (at == NULL)
		ttd_log(TTD_LOG_INFO, "numa", "card %d's thread not pinned: "
		    "hwloc does not place the card", p->side);
	else if (ttd_discover_bind(at, err, sizeof(err)) < 0)
		ttd_log(TTD_LOG_WARNING, "numa", "card %d's thread not pinned: "
		    "%s", p->side, err);
	else {
		snprintf(p->cpus, sizeof(p->cpus), "%s (NUMA node %d)",
		    at->cpuset, at->numa);
		ttd_log(TTD_LOG_INFO, "numa", "card %d's thread pinned to CPUs "
		    "%s", p->side, p->cpus);
	}
	ttd_discover_free(nics);
}

static void *
plane_thread_start(void *arg)
{
	plane_pin(arg);
	return plane_thread(arg);
}

int
ttd_plane_start(struct ttd_daemon *d, char *err, size_t errsz)
{
	int s, e;

	for (s = 0; s < d->nplanes; s++) {
		struct ttd_plane *p = &d->plane[s];

		p->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (p->efd < 0) {
			snprintf(err, errsz, "eventfd: %s", strerror(errno));
			return -1;
		}
		if ((e = pthread_create(&p->th, NULL, plane_thread_start,
		    p)) != 0) {
			snprintf(err, errsz, "card %d's thread: %s", s,
			    strerror(e));
			return -1;
		}
		p->started = 1;
	}
	return 0;
}

static void
plane_wake(struct ttd_daemon *d)
{
	uint64_t one = 1;
	int s;

	for (s = 0; s < d->nplanes; s++)
		/* a failed write (EAGAIN: the counter is full) finds a
		 * wake-up already pending */
		if (d->plane[s].started &&
		    write(d->plane[s].efd, &one, sizeof(one)) < 0) {
		}
}

void
ttd_plane_stop(struct ttd_daemon *d)
{
	int s;

	__atomic_store_n(&d->stop, 1, __ATOMIC_RELEASE);
	plane_wake(d);
	for (s = 0; s < d->nplanes; s++) {
		struct ttd_plane *p = &d->plane[s];

		if (p->started)
			pthread_join(p->th, NULL);
		p->started = 0;
		if (p->efd >= 0)
			close(p->efd);
		p->efd = -1;
		if (p->nlfd >= 0)
			close(p->nlfd);
		p->nlfd = -1;
	}
}

void
ttd_plane_pause(struct ttd_daemon *d)
{
	int started = 0, s;

	for (s = 0; s < d->nplanes; s++)
		started += d->plane[s].started;
	if (started == 0)
		return;		/* one loop: the caller is it */
	pthread_mutex_lock(&d->pause_mu);
	__atomic_store_n(&d->pause_want, 1, __ATOMIC_RELEASE);
	plane_wake(d);
	while (d->paused < started)
		pthread_cond_wait(&d->pause_cv, &d->pause_mu);
	pthread_mutex_unlock(&d->pause_mu);
}

void
ttd_plane_resume(struct ttd_daemon *d)
{
	pthread_mutex_lock(&d->pause_mu);
	__atomic_store_n(&d->pause_want, 0, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&d->pause_cv);
	pthread_mutex_unlock(&d->pause_mu);
}
