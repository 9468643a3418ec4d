/*
 * The devices around the forwarding logic: a port per torus port, opened
 * with libpcap (immediate mode, non-blocking, inbound only: our own frames
 * must not come back to us) or as an AF_XDP socket (xdp.c), and a TAP per
 * PE, named by pes.tap, with the PE's MAC and address.  Nothing here keeps
 * state of its own; loop.c holds the devices.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_tun.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "ttd.h"

const char *const ttd_backend_names[3] = {"auto", "pcap", "xdp"};

/* The interface's MAC, the source of what ttd sends there. */
static void
port_mac(const char *ifname, uint8_t mac[6])
{
	struct ifreq ifr;
	int fd;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) == 0)
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	close(fd);
}

/* A counter of /sys/class/net/IF/statistics; 0 if it cannot be read. */
static uint64_t
port_stat(const char *ifname, const char *what)
{
	char path[128], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s",
	    ifname, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtoull(buf, NULL, 10);
}

static int
pcap_fail(pcap_t *p, char *err, size_t errsz, const char *ifname,
    const char *why)
{
	snprintf(err, errsz, "%s: %s", ifname, why);
	pcap_close(p);
	return -1;
}

static int
pcap_port_open(pcap_t **pp, const char *ifname, char *err, size_t errsz)
{
	char perr[PCAP_ERRBUF_SIZE];
	pcap_t *p;
	int x;

	p = pcap_create(ifname, perr);
	if (p == NULL) {
		snprintf(err, errsz, "%s: %s", ifname, perr);
		return -1;
	}
	/* a longer frame is cut here; fwd.c drops it as too_long */
	pcap_set_snaplen(p, TTD_FRAME_MAX);
	pcap_set_promisc(p, 1);
	pcap_set_immediate_mode(p, 1);
	pcap_set_buffer_size(p, TTD_PCAP_BUFFER);
	x = pcap_activate(p);
	if (x < 0) {
		snprintf(err, errsz, "%s: %s (%s)", ifname,
		    pcap_statustostr(x), pcap_geterr(p));
		pcap_close(p);
		return -1;
	}
	if (x > 0)
		ttd_log(TTD_LOG_WARNING, "port", "%s: %s (%s)", ifname,
		    pcap_statustostr(x), pcap_geterr(p));
	if (pcap_datalink(p) != DLT_EN10MB)
		return pcap_fail(p, err, errsz, ifname, "not an Ethernet "
		    "interface");
	if (pcap_setdirection(p, PCAP_D_IN) < 0)
		return pcap_fail(p, err, errsz, ifname, pcap_geterr(p));
	if (pcap_setnonblock(p, 1, perr) < 0)
		return pcap_fail(p, err, errsz, ifname, perr);
	*pp = p;
	return 0;
}

int
ttd_dev_open(struct ttd_dev *d, int backend, const char *ifname,
    uint32_t rx_frames, uint8_t mac[6], char *err, size_t errsz)
{
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->backend = backend;
	d->rx_frames = rx_frames;
	snprintf(d->ifname, sizeof(d->ifname), "%s", ifname);
	/* before the socket: an interface made again between the two is
	 * then seen as another, and the port reopened on it */
	d->ifindex = (int)if_nametoindex(ifname);
	if (backend == TTD_BACKEND_XDP) {
		if (ttd_xdp_open(d, ifname, rx_frames, err, errsz) < 0)
			return -1;
	} else {
		if (pcap_port_open(&d->pc, ifname, err, errsz) < 0)
			return -1;
		d->fd = pcap_get_selectable_fd(d->pc);
	}
	d->tx_dropped0 = port_stat(ifname, "tx_dropped");
	port_mac(ifname, mac);
	return 0;
}

struct pcap_rx {
	ttd_dev_rx_fn *cb;
	void *u;
};

static void
pcap_rx_cb(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct pcap_rx *r = (struct pcap_rx *)user;

	r->cb(r->u, bytes, h->caplen, h->len);
}

int
ttd_dev_rx(struct ttd_dev *d, int max, ttd_dev_rx_fn *cb, void *u)
{
	struct pcap_rx r = {cb, u};
	int n;

	if (!ttd_dev_is_open(d))
		return 0;
	if (d->backend == TTD_BACKEND_XDP)
		return ttd_xdp_rx(d, max, cb, u);
	n = pcap_dispatch(d->pc, max, pcap_rx_cb, (u_char *)&r);
	if (n < 0) {
		/* the interface went down or away (ENETDOWN on the socket):
		 * the plane looks at it */
		ttd_log(TTD_LOG_DEBUG, "port", "%s: %s", d->ifname,
		    pcap_geterr(d->pc));
		d->failed = 1;
	}
	return n > 0 ? n : 0;
}

int
ttd_dev_send(struct ttd_dev *d, const uint8_t *buf, size_t len)
{
	if (!ttd_dev_is_open(d))
		return 1;
	if (d->backend == TTD_BACKEND_XDP)
		return ttd_xdp_send(d, buf, len);
	if (pcap_inject(d->pc, buf, len) >= 0)
		return 0;
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
		return -1;
	if (errno == ENXIO || errno == ENODEV)
		d->failed = 1;	/* no interface behind the socket */
	ttd_log(TTD_LOG_DEBUG, "fwd", "%s: send failed: %s", d->ifname,
	    pcap_geterr(d->pc));
	return 1;
}

uint8_t *
ttd_dev_buf(struct ttd_dev *d, size_t *cap)
{
	if (!ttd_dev_is_open(d) || d->backend != TTD_BACKEND_XDP)
		return NULL;
	return ttd_xdp_buf(d, cap);
}

void
ttd_dev_commit(struct ttd_dev *d, size_t len)
{
	ttd_xdp_commit(d, len);
}

void
ttd_dev_abort(struct ttd_dev *d)
{
	ttd_xdp_abort(d);
}

void
ttd_dev_flush(struct ttd_dev *d)
{
	if (!ttd_dev_is_open(d))
		d->dirty = 0;
	else if (d->backend == TTD_BACKEND_XDP)
		ttd_xdp_flush(d);
	else
		d->dirty = 0;	/* pcap_inject sent it already */
}

void
ttd_dev_stats(const struct ttd_dev *d, struct ttd_dev_stats *st)
{
	struct pcap_stat ps;
	uint64_t tx;

	memset(st, 0, sizeof(*st));
	if (d->backend == TTD_BACKEND_XDP)
		ttd_xdp_stats(d, st);
	else if (d->pc != NULL && pcap_stats(d->pc, &ps) == 0) {
		st->drop = ps.ps_drop;
		st->ifdrop = ps.ps_ifdrop;
	}
	if (d->fd >= 0) {
		tx = port_stat(d->ifname, "tx_dropped");
		st->link = tx > d->tx_dropped0 ? tx - d->tx_dropped0 : 0;
	}
	st->drop += d->base.drop;
	st->ifdrop += d->base.ifdrop;
	st->link += d->base.link;
}

const char *
ttd_dev_mode(const struct ttd_dev *d)
{
	if (!ttd_dev_is_open(d) && d->lost > 0)
		return "closed (its interface went away)";
	return d->backend == TTD_BACKEND_XDP ? ttd_xdp_mode(d) : "libpcap";
}

int
ttd_dev_is_open(const struct ttd_dev *d)
{
	return d->pc != NULL || d->xsk != NULL;
}

void
ttd_dev_close(struct ttd_dev *d)
{
	struct ttd_dev_stats st;

	if (ttd_dev_is_open(d)) {
		/* what was counted stays counted: status sums the openings
		 * (st holds base already) */
		ttd_dev_stats(d, &st);
		d->base = st;
	}
	if (d->backend == TTD_BACKEND_XDP)
		ttd_xdp_close(d);
	else if (d->pc != NULL)
		pcap_close(d->pc);
	d->pc = NULL;
	d->fd = -1;
	d->dirty = 0;
	d->failed = 0;
	d->err_rounds = 0;
}

int
ttd_dev_present(const struct ttd_dev *d)
{
	unsigned int idx = if_nametoindex(d->ifname);

	if (idx == 0)
		return errno != ENODEV;	/* cannot tell (no socket): there */
	return d->ifindex == 0 || (int)idx == d->ifindex;
}

int
ttd_dev_name_exists(const struct ttd_dev *d)
{
	return if_nametoindex(d->ifname) != 0;
}

int
ttd_dev_reopen(struct ttd_dev *d, uint8_t mac[6], char *err, size_t errsz)
{
	struct ttd_dev keep = *d;
	int r;

	r = ttd_dev_open(d, keep.backend, keep.ifname, keep.rx_frames, mac,
	    err, errsz);
	d->lost = keep.lost;
	d->base = keep.base;
	d->reopen_warned = keep.reopen_warned;
	if (r < 0) {
		d->pc = NULL;
		d->xsk = NULL;
		d->fd = -1;
	}
	return r;
}

void
ttd_dev_clear_error(struct ttd_dev *d)
{
	socklen_t len = sizeof(int);
	int e = 0;

	if (d->fd >= 0)
		(void)getsockopt(d->fd, SOL_SOCKET, SO_ERROR, &e, &len);
	d->failed = 0;
}

int
ttd_port_carrier(const char *ifname)
{
	char path[128], c = 0;
	int fd, r;

	snprintf(path, sizeof(path), "/sys/class/net/%s/carrier", ifname);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r = (int)read(fd, &c, 1);
	close(fd);
	if (r < 0 && errno == EINVAL)
		return 0;		/* administratively down */
	return r == 1 ? c == '1' : -1;
}

/* The tx_dropped of interface name in /proc/thread-self/net/dev, which
 * shows the network namespace the thread is in. */
static int64_t
tap_dropped_procfs(const char *name)
{
	char line[512], want[IF_NAMESIZE + 2];
	unsigned long long v[16];
	int64_t r = -1;
	FILE *fp;

	fp = fopen("/proc/thread-self/net/dev", "re");
	if (fp == NULL)
		return -1;
	snprintf(want, sizeof(want), "%s:", name);
	while (fgets(line, sizeof(line), fp) != NULL) {
		char *p = line + strspn(line, " ");

		if (strncmp(p, want, strlen(want)) != 0)
			continue;
		/* rx: bytes packets errs drop fifo frame compressed
		 * multicast; tx: bytes packets errs drop ... */
		if (sscanf(p + strlen(want), "%llu %llu %llu %llu %llu %llu "
		    "%llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		    &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10],
		    &v[11]) == 12)
			r = (int64_t)v[11];
		break;
	}
	fclose(fp);
	return r;
}

int64_t
ttd_tap_dropped(int fd, const char *name)
{
	char path[128];
	int here, there;
	int64_t r;

	snprintf(path, sizeof(path), "/sys/class/net/%s", name);
	if (access(path, F_OK) == 0)
		return tap_dropped_procfs(name);
	/* moved to the PE's namespace (the testbed does): look there, and
	 * come back (setns needs CAP_SYS_ADMIN; without it, unknown) */
	there = ioctl(fd, TUNGETDEVNETNS);
	if (there < 0)
		return -1;
	here = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (here < 0 || setns(there, CLONE_NEWNET) < 0) {
		if (here >= 0)
			close(here);
		close(there);
		return -1;
	}
	r = tap_dropped_procfs(name);
	if (setns(here, CLONE_NEWNET) < 0)
		ttd_fatal("pe", "cannot return to ttd's network namespace");
	close(here);
	close(there);
	return r;
}

/* Address, netmask and up: what the PE's TAP needs beyond its name. */
static int
tap_configure(const char *name, const tt_config *cfg, uint32_t pe,
    char *err, size_t errsz)
{
	struct sockaddr_in *sin;
	struct ifreq ifr;
	int s;

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		snprintf(err, errsz, "socket: %s", strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_hwaddr.sa_family = ARPHRD_ETHER;
	ttd_pe_mac(pe, (uint8_t *)ifr.ifr_hwaddr.sa_data);
	if (ioctl(s, SIOCSIFHWADDR, &ifr) < 0)
		goto fail;
	sin = (struct sockaddr_in *)&ifr.ifr_addr;
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(cfg->pe_subnet + pe + 1);
	if (ioctl(s, SIOCSIFADDR, &ifr) < 0)
		goto fail;
	sin->sin_addr.s_addr = htonl(~0u << (32 - cfg->pe_prefix));
	if (ioctl(s, SIOCSIFNETMASK, &ifr) < 0)
		goto fail;
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		goto fail;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		goto fail;
	close(s);
	return 0;
fail:
	snprintf(err, errsz, "TAP %s: %s", name, strerror(errno));
	close(s);
	return -1;
}

int
ttd_tap_open(int *fdp, char *name, size_t namesz, const tt_config *cfg,
    uint32_t pe, char *err, size_t errsz)
{
	/* pes.tap has exactly one %u (checked by the loader) */
	const char *pct = strstr(cfg->pe_tap, "%u");
	struct ifreq ifr;
	int fd;

	if (snprintf(name, namesz, "%.*s%u%s", (int)(pct - cfg->pe_tap),
	    cfg->pe_tap, pe, pct + 2) >= (int)namesz) {
		snprintf(err, errsz, "pes.tap \"%s\" gives a name longer than "
		    "%zu characters for PE %u", cfg->pe_tap, namesz - 1, pe);
		return -1;
	}
	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errsz, "/dev/net/tun: %s (TAPs need it and "
		    "CAP_NET_ADMIN)", strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		snprintf(err, errsz, "TAP %s: %s", name, strerror(errno));
		close(fd);
		return -1;
	}
	*fdp = fd;
	return tap_configure(name, cfg, pe, err, errsz);
}
