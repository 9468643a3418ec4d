/*
 * `ttd run`: the daemon around the forwarding logic of fwd.c.
 *
 * One poll loop serves every port of both cards (a libpcap handle each:
 * immediate mode, non-blocking, inbound only), the PEs' TAPs, a signalfd
 * and the control socket.  Timers: hellos and link state every second,
 * trace flushes every 200 ms.  Signals are read from the signalfd inside
 * the loop, never handled in a handler: TERM/INT flush and close every
 * trace and exit, HUP reopens the traces and rereads the config, USR1 logs
 * the counters.  systemd's notify protocol is a datagram to NOTIFY_SOCKET.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_tun.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "twintorus/json.h"
#include "discover.h"
#include "ttd.h"

#define LOOP_BATCH	64	/* frames read from one handle per wake-up */

struct loop;

struct loop_rx {
	struct loop *l;
	int side, lport;
};

struct loop {
	const struct ttd_run_opts *o;
	tt_config cfg;
	tt_net net;
	struct ttd_node nd;
	struct ttd_fwd f;
	pcap_t *pc[2][TT_MAX_EXT + 1];
	struct loop_rx rx[2][TT_MAX_EXT + 1];
	int tap[2];
	char tapname[2][IF_NAMESIZE];
	struct ttd_capture pe_cap;
	struct ttd_capture port_cap[2][TT_MAX_EXT + 1];
	int port_tracing;
	char trace_dir[4096];
	int sfd, ctl;
	uint8_t buf[TTD_FRAME_MAX];
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
	struct loop *l = ctx;

	if (pcap_inject(l->pc[side][lport], buf, len) >= 0)
		return 0;
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
		return -1;
	ttd_log(TTD_LOG_DEBUG, "fwd", "%s: send failed: %s",
	    l->nd.card[side].port[lport].ifname,
	    pcap_geterr(l->pc[side][lport]));
	return 1;
}

static void
loop_pe_deliver(void *ctx, int side, const uint8_t *buf, size_t len)
{
	struct loop *l = ctx;

	if (write(l->tap[side], buf, len) < 0)
		ttd_log_errno(TTD_LOG_DEBUG, "pe", "%s: write",
		    l->tapname[side]);
}

static void
loop_trace(struct loop *l, struct ttd_capture *c, const uint8_t *buf,
    size_t len)
{
	ttd_capture_write(c, loop_now_ns(l), buf, len);
}

static void
loop_trace_pe(void *ctx, const uint8_t *buf, size_t len)
{
	struct loop *l = ctx;

	loop_trace(l, &l->pe_cap, buf, len);
}

static void
loop_trace_port(void *ctx, int side, int lport, const uint8_t *buf,
    size_t len)
{
	struct loop *l = ctx;

	if (l->port_tracing)
		loop_trace(l, &l->port_cap[side][lport], buf, len);
}

/* ---- devices ---- */

static int
loop_open_port(struct loop *l, int side, int lport, char *err, size_t errsz)
{
	const char *ifname = l->nd.card[side].port[lport].ifname;
	char perr[PCAP_ERRBUF_SIZE];
	struct ifreq ifr;
	pcap_t *p;
	int x, fd;

	p = pcap_create(ifname, perr);
	if (p == NULL) {
		snprintf(err, errsz, "%s: %s", ifname, perr);
		return -1;
	}
	pcap_set_snaplen(p, TTD_FRAME_MAX);
	pcap_set_promisc(p, 1);
	pcap_set_immediate_mode(p, 1);
	pcap_set_buffer_size(p, 4 << 20);
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
	if (pcap_datalink(p) != DLT_EN10MB) {
		snprintf(err, errsz, "%s: not an Ethernet interface", ifname);
		pcap_close(p);
		return -1;
	}
	/* our own frames must not come back to us */
	if (pcap_setdirection(p, PCAP_D_IN) < 0) {
		snprintf(err, errsz, "%s: %s", ifname, pcap_geterr(p));
		pcap_close(p);
		return -1;
	}
	if (pcap_setnonblock(p, 1, perr) < 0) {
		snprintf(err, errsz, "%s: %s", ifname, perr);
		pcap_close(p);
		return -1;
	}
	l->pc[side][lport] = p;
	l->rx[side][lport] = (struct loop_rx){l, side, lport};
	/* the port's MAC, the source of what it sends */
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (fd >= 0 && ioctl(fd, SIOCGIFHWADDR, &ifr) == 0)
		memcpy(l->f.port_mac[side][lport], ifr.ifr_hwaddr.sa_data, 6);
	if (fd >= 0)
		close(fd);
	return 0;
}

/* PE pe's TAP: named by pes.tap, its MAC and address from the PE id. */
static int
loop_open_tap(struct loop *l, int side, char *err, size_t errsz)
{
	uint32_t pe = l->nd.card[side].card, addr;
	struct ifreq ifr;
	struct sockaddr_in *sin;
	int fd, s;

	/* pes.tap has exactly one %u (checked by the loader) */
	{
		const char *pct = strstr(l->cfg.pe_tap, "%u");

		if (snprintf(l->tapname[side], sizeof(l->tapname[side]),
		    "%.*s%u%s", (int)(pct - l->cfg.pe_tap), l->cfg.pe_tap, pe,
		    pct + 2) >= (int)sizeof(l->tapname[side])) {
			snprintf(err, errsz, "pes.tap \"%s\" gives a name "
			    "longer than %d characters for PE %u",
			    l->cfg.pe_tap, IF_NAMESIZE - 1, pe);
			return -1;
		}
	}
	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errsz, "/dev/net/tun: %s (TAPs need it and "
		    "CAP_NET_ADMIN)", strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", l->tapname[side]);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		snprintf(err, errsz, "TAP %s: %s", l->tapname[side],
		    strerror(errno));
		close(fd);
		return -1;
	}
	l->tap[side] = fd;
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		snprintf(err, errsz, "socket: %s", strerror(errno));
		return -1;
	}
	ifr.ifr_hwaddr.sa_family = ARPHRD_ETHER;
	ttd_pe_mac(pe, (uint8_t *)ifr.ifr_hwaddr.sa_data);
	if (ioctl(s, SIOCSIFHWADDR, &ifr) < 0)
		goto fail;
	addr = l->cfg.pe_subnet + pe + 1;
	sin = (struct sockaddr_in *)&ifr.ifr_addr;
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(addr);
	if (ioctl(s, SIOCSIFADDR, &ifr) < 0)
		goto fail;
	sin->sin_addr.s_addr = htonl(~0u << (32 - l->cfg.pe_prefix));
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
	snprintf(err, errsz, "TAP %s: %s", l->tapname[side], strerror(errno));
	close(s);
	return -1;
}

/* 1 carrier, 0 none (or the interface is down), -1 cannot tell. */
static int
loop_carrier(const char *ifname)
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

static void
loop_links(struct loop *l)
{
	char pn[160];
	int s, i, up;

	for (s = 0; s < l->nd.ncards; s++)
		for (i = 0; i < l->f.nports[s]; i++) {
			up = loop_carrier(l->nd.card[s].port[i].ifname);
			if (up < 0 || up == l->f.fp[s][i].link)
				continue;
			ttd_fwd_port_name(&l->f, s, i, pn, sizeof(pn));
			if (l->f.fp[s][i].link >= 0 || !up)
				ttd_log(up ? TTD_LOG_NOTICE : TTD_LOG_WARNING,
				    "link", "%s: link %s", pn, up ? "up" :
				    "down");
			ttd_fwd_link(&l->f, s, i, up);
		}
}

/* ---- traces ---- */

static int
loop_path_too_long(char *err, size_t errsz, const char *dir)
{
	snprintf(err, errsz, "trace directory %.200s...: path too long", dir);
	return -1;
}

static int
loop_open_traces(struct loop *l, char *err, size_t errsz)
{
	uint64_t rot = (uint64_t)l->cfg.trace_rotate_mb << 20;
	int keep = l->cfg.trace_keep, s, i;
	char base[4300], pn[16];

	/* the unit's StateDirectory= makes it; a hand-started ttd may not */
	if (mkdir(l->trace_dir, 0750) < 0 && errno != EEXIST) {
		snprintf(err, errsz, "trace directory %.400s: %s", l->trace_dir,
		    strerror(errno));
		return -1;
	}
	if (snprintf(base, sizeof(base), "%s/%s-pe.pcap", l->trace_dir,
	    l->nd.host) >= (int)sizeof(base))
		return loop_path_too_long(err, errsz, l->trace_dir);
	if (ttd_capture_open(&l->pe_cap, base, rot, keep, err, errsz) < 0)
		return -1;
	l->port_tracing = l->cfg.trace_ports;
	for (s = 0; l->port_tracing && s < l->nd.ncards; s++)
		for (i = 0; i < l->nd.card[s].nports; i++) {
			if (snprintf(base, sizeof(base), "%s/%s-c%d-%s.pcap",
			    l->trace_dir, l->nd.host, s, ttd_port_fname(
			    l->nd.card[s].port[i].port, l->net.n, pn,
			    sizeof(pn))) >= (int)sizeof(base))
				return loop_path_too_long(err, errsz, l->trace_dir);
			if (ttd_capture_open(&l->port_cap[s][i], base, rot,
			    keep, err, errsz) < 0)
				return -1;
		}
	return 0;
}

static void
loop_each_capture(struct loop *l, int (*fn)(struct ttd_capture *, char *,
    size_t))
{
	char err[256];
	int s, i;

	if (fn(&l->pe_cap, err, sizeof(err)) < 0)
		ttd_log(TTD_LOG_ERR, "capture", "%s", err);
	for (s = 0; l->port_tracing && s < l->nd.ncards; s++)
		for (i = 0; i < l->nd.card[s].nports; i++)
			if (fn(&l->port_cap[s][i], err, sizeof(err)) < 0)
				ttd_log(TTD_LOG_ERR, "capture", "%s", err);
}

/* A failed flush is logged by the capture itself, once. */
static int
loop_flush_one(struct ttd_capture *c, char *err, size_t errsz)
{
	(void)err;
	(void)errsz;
	(void)ttd_capture_flush(c);
	return 0;
}

/* ---- status ---- */

static const char *
loop_link_name(int link)
{
	return link > 0 ? "up" : link == 0 ? "down" : "unknown";
}

static const char *const cabling_names[] = {"unknown", "ok", "wrong"};


static void
loop_status_json(struct loop *l, FILE *fp)
{
	const struct ttd_counters *c = &l->f.cnt;
	char pn[16], path[4300];
	int s, i, d, first = 1;

	fprintf(fp, "{\"node\": %u, \"host\": ", l->nd.node);
	tt_json_string(fp, l->nd.host);
	fprintf(fp, ", \"coord\": [");
	for (d = 0; d < l->net.n; d++)
		fprintf(fp, "%s%d", d ? ", " : "",
		    tt_node_digit(&l->net, l->nd.node, d));
	fprintf(fp, "], \"pes\": [");
	for (s = 0; s < l->nd.ncards; s++)
		fprintf(fp, "%s{\"pe\": %u, \"tap\": \"%s\"}", s ? ", " : "",
		    l->nd.card[s].card, l->tapname[s]);
	fprintf(fp, "],\n \"ports\": [");
	for (s = 0; s < l->nd.ncards; s++)
		for (i = 0; i < l->f.nports[s]; i++) {
			const struct ttd_fport *p = &l->f.fp[s][i];

			if (p->port == TT_PORT_INT)
				snprintf(pn, sizeof(pn), "internal");
			else
				tt_port_name(p->port, l->net.n, pn, sizeof(pn));
			fprintf(fp, "%s\n  {\"card\": %d, \"port\": \"%s\", "
			    "\"ifname\": ", first ? "" : ",", s, pn);
			tt_json_string(fp, l->nd.card[s].port[i].ifname);
			fprintf(fp, ", \"link\": \"%s\", \"cabling\": \"%s\", "
			    "\"heard\": ", loop_link_name(p->link),
			    p->port == TT_PORT_INT ?
			    "unknown" : cabling_names[p->cabling]);
			first = 0;
			if (p->cabling == TTD_CABLING_UNKNOWN)
				fprintf(fp, "null");
			else
				fprintf(fp, "{\"node\": %u, \"card\": %u, "
				    "\"port\": \"%s\"}", p->heard.node,
				    p->heard.card, tt_port_name(p->heard.port,
				    l->net.n, pn, sizeof(pn)));
			fprintf(fp, ", \"tx_frames\": %llu, \"rx_frames\": "
			    "%llu}", (unsigned long long)p->tx,
			    (unsigned long long)p->rx);
		}
	fprintf(fp, "],\n \"counters\": {\"injected\": %llu, \"forwarded\": "
	    "%llu, \"delivered\": %llu, \"arp_replies\": %llu, "
	    "\"hellos_sent\": %llu, \"hellos_heard\": %llu, \"dropped\": {",
	    (unsigned long long)c->injected, (unsigned long long)c->forwarded,
	    (unsigned long long)c->delivered,
	    (unsigned long long)c->arp_replies,
	    (unsigned long long)c->hellos_tx, (unsigned long long)c->hellos_rx);
	for (d = 0; d < TTD_DROP_N; d++)
		fprintf(fp, "%s\"%s\": %llu", d ? ", " : "", ttd_drop_names[d],
		    (unsigned long long)c->dropped[d]);
	ttd_capture_name(&l->pe_cap, l->pe_cap.cur, path, sizeof(path));
	fprintf(fp, "}},\n \"traces\": [{\"path\": ");
	tt_json_string(fp, path);
	fprintf(fp, ", \"records\": %llu, \"lost\": %llu, \"failing\": %s}",
	    (unsigned long long)l->pe_cap.records,
	    (unsigned long long)l->pe_cap.lost,
	    l->pe_cap.failing ? "true" : "false");
	for (s = 0; l->port_tracing && s < l->nd.ncards; s++)
		for (i = 0; i < l->nd.card[s].nports; i++) {
			const struct ttd_capture *pc = &l->port_cap[s][i];

			ttd_capture_name(pc, pc->cur, path, sizeof(path));
			fprintf(fp, ", {\"path\": ");
			tt_json_string(fp, path);
			fprintf(fp, ", \"records\": %llu, \"lost\": %llu, "
			    "\"failing\": %s}", (unsigned long long)pc->records,
			    (unsigned long long)pc->lost, pc->failing ? "true" :
			    "false");
		}
	fprintf(fp, "]}\n");
}

static void
loop_status_text(struct loop *l, FILE *fp)
{
	const struct ttd_counters *c = &l->f.cnt;
	char pn[160], cn[64];
	int s, i, d;

	fprintf(fp, "node %s, %s, PEs", l->nd.host, tt_card_name(&l->net,
	    l->nd.card[0].card, cn, sizeof(cn)));
	for (s = 0; s < l->nd.ncards; s++)
		fprintf(fp, " %u (%s)", l->nd.card[s].card, l->tapname[s]);
	fprintf(fp, "\n%-36s %-7s %-8s %12s %12s\n", "port", "link",
	    "cabling", "sent", "received");
	for (s = 0; s < l->nd.ncards; s++)
		for (i = 0; i < l->f.nports[s]; i++) {
			const struct ttd_fport *p = &l->f.fp[s][i];

			fprintf(fp, "%-36s %-7s %-8s %12llu %12llu\n",
			    ttd_fwd_port_name(&l->f, s, i, pn, sizeof(pn)),
			    loop_link_name(p->link), p->port == TT_PORT_INT ?
			    "-" : cabling_names[p->cabling],
			    (unsigned long long)p->tx,
			    (unsigned long long)p->rx);
		}
	fprintf(fp, "injected %llu, forwarded %llu, delivered %llu; dropped:",
	    (unsigned long long)c->injected, (unsigned long long)c->forwarded,
	    (unsigned long long)c->delivered);
	for (d = 0; d < TTD_DROP_N; d++)
		fprintf(fp, " %s %llu", ttd_drop_names[d],
		    (unsigned long long)c->dropped[d]);
	fprintf(fp, "\ntrace %s: %llu records, %llu lost%s\n", l->pe_cap.base,
	    (unsigned long long)l->pe_cap.records,
	    (unsigned long long)l->pe_cap.lost, l->pe_cap.failing ?
	    " (writing fails now)" : "");
}

/* One request on the control socket: a line, an answer, close. */
static void
loop_control(struct loop *l)
{
	struct timeval tv = {1, 0};
	char req[64];
	ssize_t n;
	FILE *fp;
	int c;

	c = accept4(l->ctl, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return;
	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	n = read(c, req, sizeof(req) - 1);
	if (n <= 0 || (fp = fdopen(c, "w")) == NULL) {
		close(c);
		return;
	}
	req[n] = '\0';
	req[strcspn(req, "\r\n")] = '\0';
	/* what status reports is what the files hold */
	loop_each_capture(l, loop_flush_one);
	if (strcmp(req, "status json") == 0)
		loop_status_json(l, fp);
	else if (strcmp(req, "status") == 0)
		loop_status_text(l, fp);
	else
		fprintf(fp, "error: unknown request \"%s\" (status, status "
		    "json)\n", req);
	fclose(fp);
}

static int
loop_listen(const char *path, char *err, size_t errsz)
{
	struct sockaddr_un sa;
	int s;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errsz, "control socket path %s is too long",
		    path);
		return -1;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0) {
		snprintf(err, errsz, "socket: %s", strerror(errno));
		return -1;
	}
	unlink(path);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(s, 8) < 0) {
		snprintf(err, errsz, "control socket %s: %s (give --control)",
		    path, strerror(errno));
		close(s);
		return -1;
	}
	return s;
}

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

static void
loop_log_counters(struct loop *l, int level)
{
	const struct ttd_counters *c = &l->f.cnt;
	char d[256];
	size_t o = 0;
	int i;

	for (i = 0; i < TTD_DROP_N; i++)
		o += (size_t)snprintf(d + o, sizeof(d) - o, " %s %llu",
		    ttd_drop_names[i], (unsigned long long)c->dropped[i]);
	ttd_log(level, "counters", "injected %llu, forwarded %llu, delivered "
	    "%llu, trace records %llu; dropped:%s",
	    (unsigned long long)c->injected, (unsigned long long)c->forwarded,
	    (unsigned long long)c->delivered,
	    (unsigned long long)l->pe_cap.records, d);
}

/* SIGHUP: traces reopened; a changed config is checked, and what can be
 * taken without reopening the ports (trace settings) is taken. */
static void
loop_reload(struct loop *l)
{
	tt_config nc;

	loop_notify("RELOADING=1");
	if (tt_config_load(&nc, l->o->config, stderr) != 0) {
		ttd_log(TTD_LOG_ERR, "config", "%s: not reloaded, the running "
		    "config stays", l->o->config);
		tt_config_free(&nc);
	} else {
		if (memcmp(&nc.spec, &l->cfg.spec, sizeof(nc.spec)) != 0 ||
		    nc.nnodes != l->cfg.nnodes || memcmp(nc.nodes,
		    l->cfg.nodes, nc.nnodes * sizeof(*nc.nodes)) != 0 ||
		    strcmp(nc.pe_tap, l->cfg.pe_tap) != 0 ||
		    nc.pe_subnet != l->cfg.pe_subnet)
			ttd_log(TTD_LOG_WARNING, "config", "%s: torus:, nodes: "
			    "or pes: changed; restart ttd to apply them",
			    l->o->config);
		l->cfg.trace_rotate_mb = nc.trace_rotate_mb;
		l->cfg.trace_keep = nc.trace_keep;
		tt_config_free(&nc);
	}
	loop_each_capture(l, ttd_capture_reopen);
	ttd_log(TTD_LOG_NOTICE, "config", "reloaded; trace files reopened");
	loop_notify("READY=1");
}

static void
loop_pcap_cb(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct loop_rx *rx = (struct loop_rx *)user;

	ttd_fwd_port_rx(&rx->l->f, rx->side, rx->lport, bytes, h->caplen);
}

static uint64_t
loop_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int
loop_queued(const struct loop *l)
{
	int s, i, v;

	for (s = 0; s < l->nd.ncards; s++)
		for (i = 0; i < l->f.nports[s]; i++)
			for (v = 0; v < l->f.fp[s][i].nvcs; v++)
				if (l->f.fp[s][i].q[v].count > 0)
					return 1;
	return 0;
}

static int
loop_setup(struct loop *l, char *err, size_t errsz)
{
	struct ttd_io io = {
		.ctx = l, .port_send = loop_port_send,
		.pe_deliver = loop_pe_deliver, .trace_pe = loop_trace_pe,
		.trace_port = loop_trace_port, .now_ns = loop_now_ns
	};
	size_t index;
	sigset_t ss;
	int s, i;

	if (tt_config_load(&l->cfg, l->o->config, stderr) != 0)
		return TTD_EX_CONFIG;
	if (tt_net_init(&l->net, &l->cfg.spec, err, errsz) < 0)
		return TTD_EX_CONFIG;
	if (ttd_node_find(&l->cfg, &l->net, l->o->node, &index, err,
	    errsz) < 0)
		return TTD_EX_CONFIG;
	if (ttd_node_map(&l->nd, &l->cfg, &l->net, index, 1, l->o->hwloc_xml,
	    stderr) > 0) {
		snprintf(err, errsz, "%s: the port map of %s does not fit this "
		    "machine or the configuration (above)", l->o->config,
		    l->cfg.nodes[index].host);
		return TTD_EX_CONFIG;
	}
	snprintf(l->trace_dir, sizeof(l->trace_dir), "%s", l->o->trace_dir ?
	    l->o->trace_dir : l->cfg.trace_dir[0] ? l->cfg.trace_dir :
	    "/var/lib/twintorus/traces");
	if (ttd_fwd_init(&l->f, &l->nd, &io, 32, err, errsz) < 0)
		return 1;
	l->f.vlan = l->o->pcp;
	for (s = 0; s < l->nd.ncards; s++) {
		for (i = 0; i < l->nd.card[s].nports; i++)
			if (loop_open_port(l, s, i, err, errsz) < 0)
				return TTD_EX_UNAVAILABLE;
		if (loop_open_tap(l, s, err, errsz) < 0)
			return TTD_EX_UNAVAILABLE;
	}
	if (loop_open_traces(l, err, errsz) < 0)
		return 1;
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGHUP);
	sigaddset(&ss, SIGUSR1);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	signal(SIGPIPE, SIG_IGN);
	l->sfd = signalfd(-1, &ss, SFD_NONBLOCK | SFD_CLOEXEC);
	if (l->sfd < 0) {
		snprintf(err, errsz, "signalfd: %s", strerror(errno));
		return 1;
	}
	l->ctl = loop_listen(l->o->control ? l->o->control :
	    TTD_DEFAULT_CONTROL, err, errsz);
	return l->ctl < 0 ? 1 : 0;
}

/*
 * One poll loop serves both cards.  When hwloc places both cards on the
 * same CPUs (one NUMA node), the loop is pinned there, next to the cards'
 * DMA; when they sit on different nodes, or hwloc cannot place them
 * (veth, virtual NICs), the kernel schedules it.
 */
static void
loop_pin(struct loop *l)
{
	const ttd_nic *at[2] = {NULL, NULL};
	ttd_nic *nics;
	size_t n, i;
	int s, j;
	char err[512];

	if (ttd_discover(l->o->hwloc_xml, &nics, &n, err, sizeof(err)) < 0) {
		ttd_log(TTD_LOG_INFO, "numa", "not pinned: %s", err);
		return;
	}
	for (s = 0; s < l->nd.ncards; s++)
		for (i = 0; i < n; i++)
			for (j = 0; j < nics[i].nports; j++)
				if (strcmp(nics[i].port[j].name,
				    l->nd.card[s].port[0].ifname) == 0)
					at[s] = &nics[i];
	if (at[0] == NULL || (l->nd.ncards > 1 && at[1] == NULL))
		ttd_log(TTD_LOG_INFO, "numa", "not pinned: hwloc does not "
		    "place the cards (no PCI device)");
	else if (l->nd.ncards > 1 && strcmp(at[0]->cpuset, at[1]->cpuset))
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
loop_teardown(struct loop *l)
{
	int s, i;

	loop_each_capture(l, ttd_capture_close);
	for (s = 0; s < 2; s++) {
		for (i = 0; i < TT_MAX_EXT + 1; i++)
			if (l->pc[s][i] != NULL)
				pcap_close(l->pc[s][i]);
		if (l->tap[s] > 0)
			close(l->tap[s]);
	}
	if (l->ctl >= 0) {
		close(l->ctl);
		unlink(l->o->control ? l->o->control : TTD_DEFAULT_CONTROL);
	}
	if (l->sfd >= 0)
		close(l->sfd);
	ttd_fwd_free(&l->f);
	if (l->net.coord != NULL)
		tt_net_free(&l->net);
	tt_config_free(&l->cfg);
}

int
ttd_run(const struct ttd_run_opts *o)
{
	static struct loop l;	/* large (queues' headers, buffers): not on the stack */
	struct pollfd pfd[2 * (TT_MAX_EXT + 1) + 4];
	struct loop_rx *who[2 * (TT_MAX_EXT + 1) + 4];
	uint64_t t_hello = 0, t_flush = 0, now;
	char err[512] = "";
	int rc, s, i, n, np, stop = 0;

	memset(&l, 0, sizeof(l));
	l.o = o;
	l.sfd = l.ctl = -1;
	rc = loop_setup(&l, err, sizeof(err));
	if (rc != 0) {
		if (err[0] != '\0')
			ttd_log(TTD_LOG_ERR, "start", "%s", err);
		loop_teardown(&l);
		return rc;
	}
	loop_pin(&l);
	loop_links(&l);
	ttd_log(TTD_LOG_NOTICE, "start", "node %s (%u), PEs %u%s%u, %d ports, "
	    "traces in %s", l.nd.host, l.nd.node, l.nd.card[0].card,
	    l.nd.ncards > 1 ? " and " : "", l.nd.ncards > 1 ?
	    l.nd.card[1].card : l.nd.card[0].card,
	    l.f.nports[0] + l.f.nports[1], l.trace_dir);
	loop_notify("READY=1");

	/* the fixed part of the poll set: ports, TAPs, signals, control */
	np = 0;
	for (s = 0; s < l.nd.ncards; s++)
		for (i = 0; i < l.f.nports[s]; i++) {
			pfd[np].fd = pcap_get_selectable_fd(l.pc[s][i]);
			pfd[np].events = POLLIN;
			who[np++] = &l.rx[s][i];
		}
	n = np;
	for (s = 0; s < l.nd.ncards; s++) {
		pfd[np].fd = l.tap[s];
		pfd[np].events = POLLIN;
		who[np++] = NULL;
	}
	pfd[np].fd = l.sfd;
	pfd[np++].events = POLLIN;
	pfd[np].fd = l.ctl;
	pfd[np++].events = POLLIN;

	while (!stop) {
		now = loop_ms();
		if (now >= t_hello) {
			loop_links(&l);
			ttd_fwd_hello(&l.f);
			t_hello = now + 1000;
		}
		if (now >= t_flush) {
			loop_each_capture(&l, loop_flush_one);
			t_flush = now + 200;
		}
		if (poll(pfd, (nfds_t)np, loop_queued(&l) ? 1 : 100) < 0 &&
		    errno != EINTR) {
			ttd_log_errno(TTD_LOG_ERR, "loop", "poll");
			rc = 1;
			break;
		}
		for (i = 0; i < n; i++)
			if (pfd[i].revents & POLLIN)
				(void)pcap_dispatch(l.pc[who[i]->side]
				    [who[i]->lport], LOOP_BATCH, loop_pcap_cb,
				    (u_char *)who[i]);
		for (s = 0; s < l.nd.ncards; s++) {
			if (!(pfd[n + s].revents & POLLIN))
				continue;
			for (i = 0; i < LOOP_BATCH; i++) {
				ssize_t len = read(l.tap[s], l.buf,
				    sizeof(l.buf));

				if (len <= 0)
					break;
				ttd_fwd_pe_rx(&l.f, s, l.buf, (size_t)len);
			}
		}
		ttd_fwd_drain(&l.f);
		if (pfd[np - 2].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(l.sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGTERM ||
				    si.ssi_signo == SIGINT) {
					ttd_log(TTD_LOG_NOTICE, "stop", "%s: "
					    "closing the traces",
					    strsignal((int)si.ssi_signo));
					stop = 1;
				} else if (si.ssi_signo == SIGHUP) {
					loop_reload(&l);
				} else if (si.ssi_signo == SIGUSR1) {
					loop_log_counters(&l, TTD_LOG_NOTICE);
				}
			}
		}
		if (pfd[np - 1].revents & POLLIN)
			loop_control(&l);
	}
	loop_notify("STOPPING=1");
	loop_log_counters(&l, TTD_LOG_INFO);
	loop_teardown(&l);
	return rc;
}
