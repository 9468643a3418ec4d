/*
 * The devices around the forwarding logic: a libpcap handle per torus
 * port (immediate mode, non-blocking, inbound only: our own frames must
 * not come back to us) and a TAP per PE, named by pes.tap, with the PE's
 * MAC and address.  Nothing here keeps state; loop.c holds the handles.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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

static int
port_fail(pcap_t *p, char *err, size_t errsz, const char *ifname,
    const char *why)
{
	snprintf(err, errsz, "%s: %s", ifname, why);
	pcap_close(p);
	return -1;
}

int
ttd_port_open(pcap_t **pp, const char *ifname, uint8_t mac[6], char *err,
    size_t errsz)
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
		return port_fail(p, err, errsz, ifname, "not an Ethernet "
		    "interface");
	if (pcap_setdirection(p, PCAP_D_IN) < 0)
		return port_fail(p, err, errsz, ifname, pcap_geterr(p));
	if (pcap_setnonblock(p, 1, perr) < 0)
		return port_fail(p, err, errsz, ifname, perr);
	port_mac(ifname, mac);
	*pp = p;
	return 0;
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

void
ttd_port_drops(pcap_t *p, uint64_t *drop, uint64_t *ifdrop)
{
	struct pcap_stat ps;

	*drop = *ifdrop = 0;
	if (p == NULL || pcap_stats(p, &ps) < 0)
		return;
	*drop = ps.ps_drop;
	*ifdrop = ps.ps_ifdrop;
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
