/*
 * The AF_XDP backend (ttd run --backend xdp): a port's frames reach ttd
 * through an AF_XDP socket instead of libpcap.
 *
 * Per port: a copy of ttd's XDP program (bpf/steer.bpf.c, carried inside
 * ttd), which sends torus frames to the socket and everything else to the
 * kernel, attached through a BPF link so that it goes away with the
 * process, however it ends; a UMEM of 4 KiB chunks, the first ones for
 * receiving (all of them in the fill ring, each given back as soon as its
 * frame has been copied into a switch's input buffer), the others for
 * sending; and the socket, bound to receive queue 0 with zero-copy where
 * the driver has it and in copy mode otherwise (veth).  Frames are read
 * and sent in batches: a round of the loop peeks the receive ring, and
 * what it sent is submitted and pushed with sendto() at its end
 * (ttd_xdp_flush): in copy mode one call sends the whole ring where the
 * kernel takes XDP_MAX_TX_SKB_BUDGET, 32 frames otherwise.  Routing, VCs and credits stay
 * in fwd.c and credit.c, as with libpcap.
 *
 * A frame must fit one chunk (4,096 bytes less the 256 the kernel keeps in
 * front of it): a port's MTU is checked when it is opened.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "ttd.h"

#ifndef TTD_HAVE_XDP

int
ttd_xdp_open(struct ttd_dev *d, const char *ifname, uint32_t rx_frames,
    char *err, size_t errsz)
{
	(void)d;
	(void)rx_frames;
	snprintf(err, errsz, "%s: this ttd was built without AF_XDP (make "
	    "deps installs libxdp-dev, libbpf-dev and clang; then rebuild)",
	    ifname);
	return -1;
}

int
ttd_xdp_rx(struct ttd_dev *d, int max, ttd_dev_rx_fn *cb, void *u)
{
	(void)d, (void)max, (void)cb, (void)u;
	return 0;
}

int
ttd_xdp_send(struct ttd_dev *d, const uint8_t *buf, size_t len)
{
	(void)d, (void)buf, (void)len;
	return 1;
}

uint8_t *
ttd_xdp_buf(struct ttd_dev *d, size_t *cap)
{
	(void)d, (void)cap;
	return NULL;
}

void
ttd_xdp_commit(struct ttd_dev *d, size_t len)
{
	(void)d, (void)len;
}

void
ttd_xdp_abort(struct ttd_dev *d)
{
	(void)d;
}

void
ttd_xdp_flush(struct ttd_dev *d)
{
	(void)d;
}

void
ttd_xdp_stats(const struct ttd_dev *d, struct ttd_dev_stats *st)
{
	(void)d;
	memset(st, 0, sizeof(*st));
}

const char *
ttd_xdp_mode(const struct ttd_dev *d)
{
	(void)d;
	return "none";
}

void
ttd_xdp_close(struct ttd_dev *d)
{
	(void)d;
}

#else /* TTD_HAVE_XDP */

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <xdp/xsk.h>

/* The program, compiled by clang and carried inside ttd (xdp_obj.S). */
extern const unsigned char ttd_xdp_obj[], ttd_xdp_obj_end[];

#define XDP_HEADROOM	256	/* XDP_PACKET_HEADROOM: kept in front */
#define XDP_FRAME_MAX	(TTD_XDP_CHUNK - XDP_HEADROOM)
#define XDP_KICKS	64	/* sendto()s per flush at most */
#define XDP_RING_MAX	8192	/* receive chunks a port: 32 MiB of UMEM */
#define XDP_RING_SPARE	64	/* control frames beside the credited */
#define XDP_BUSY_TRIES	30	/* 100 ms apart: a queue a closed socket held */
/* Linux 6.17's frames per copy-mode sendto() (32 by default); older
 * kernels refuse the option and keep 32 */
#ifndef XDP_MAX_TX_SKB_BUDGET
#define XDP_MAX_TX_SKB_BUDGET	9
#endif

struct ttd_xsk {
	struct bpf_object *obj;
	int link_fd;              /* the program's BPF link */
	int ifindex;
	struct xsk_umem *umem;
	struct xsk_socket *sock;
	struct xsk_ring_prod fq, tx;
	struct xsk_ring_cons cq, rx;
	uint8_t *area;
	size_t area_len;
	uint32_t nrx, ntx;        /* chunks for receiving, for sending */
	uint64_t *free_tx;        /* sending chunks not in the rings */
	uint32_t nfree;
	uint32_t pending;         /* reserved in the send ring, not submitted */
	uint64_t held;            /* the chunk ttd_xdp_buf() lent out */
	int native, zerocopy;
};

/* libbpf's own messages, at debug level: what fails is said by ttd. */
static int
xdp_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[512];

	if (level == LIBBPF_DEBUG || ttd_log_level < TTD_LOG_DEBUG)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	ttd_log(TTD_LOG_DEBUG, "xdp", "libbpf: %s", line);
	return 0;
}

static uint32_t
xdp_pow2(uint32_t n, uint32_t lo, uint32_t hi)
{
	uint32_t p = lo;

	while (p < n && p < hi)
		p <<= 1;
	return p;
}

static int
xdp_mtu(const char *ifname)
{
	struct ifreq ifr;
	int s, mtu = -1;

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(s, SIOCGIFMTU, &ifr) == 0)
		mtu = ifr.ifr_mtu;
	close(s);
	return mtu;
}

/* Load a copy of the program and attach it to the port, native XDP where
 * the driver has it, generic XDP otherwise. */
static int
xdp_attach(struct ttd_xsk *x, const char *ifname, char *err, size_t errsz)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "ttd_steer");
	LIBBPF_OPTS(bpf_link_create_opts, lo);
	struct bpf_program *prog;
	int e;

	x->obj = bpf_object__open_mem(ttd_xdp_obj,
	    (size_t)(ttd_xdp_obj_end - ttd_xdp_obj), &oo);
	if (x->obj == NULL) {
		snprintf(err, errsz, "%s: the XDP program does not open: %s",
		    ifname, strerror(errno));
		return -1;
	}
	if ((e = bpf_object__load(x->obj)) < 0) {
		snprintf(err, errsz, "%s: loading the XDP program: %s%s",
		    ifname, strerror(-e), e == -EPERM ? " (it needs CAP_BPF "
		    "and CAP_NET_ADMIN)" : "");
		return -1;
	}
	prog = bpf_object__find_program_by_name(x->obj, "ttd_steer");
	lo.flags = XDP_FLAGS_DRV_MODE;
	x->link_fd = bpf_link_create(bpf_program__fd(prog), x->ifindex,
	    BPF_XDP, &lo);
	x->native = x->link_fd >= 0;
	if (x->link_fd < 0 && errno != EBUSY && errno != EEXIST) {
		lo.flags = XDP_FLAGS_SKB_MODE;
		x->link_fd = bpf_link_create(bpf_program__fd(prog),
		    x->ifindex, BPF_XDP, &lo);
	}
	if (x->link_fd < 0) {
		snprintf(err, errsz, "%s: attaching the XDP program: %s%s",
		    ifname, strerror(errno), errno == EBUSY || errno == EEXIST ?
		    " (another XDP program is attached: ip link set dev IF "
		    "xdp off, if it is not needed)" : "");
		return -1;
	}
	return 0;
}

/* The UMEM: pinned memory, which RLIMIT_MEMLOCK bounds without
 * CAP_IPC_LOCK; the soft limit is raised to the hard one first. */
static int
xdp_umem(struct ttd_xsk *x, const char *ifname, char *err, size_t errsz)
{
	struct xsk_umem_config uc = {
		.fill_size = x->nrx, .comp_size = x->ntx,
		.frame_size = TTD_XDP_CHUNK, .frame_headroom = 0, .flags = 0
	};
	struct rlimit rl;
	uint32_t i, idx;
	int e;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_MEMLOCK, &rl);
	}
	x->area_len = (size_t)(x->nrx + x->ntx) * TTD_XDP_CHUNK;
	x->area = mmap(NULL, x->area_len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (x->area == MAP_FAILED) {
		x->area = NULL;
		snprintf(err, errsz, "%s: no memory for a UMEM of %zu KiB",
		    ifname, x->area_len >> 10);
		return -1;
	}
	if ((e = xsk_umem__create(&x->umem, x->area, x->area_len, &x->fq,
	    &x->cq, &uc)) < 0) {
		getrlimit(RLIMIT_MEMLOCK, &rl);
		snprintf(err, errsz, "%s: cannot pin a UMEM of %zu KiB: %s "
		    "(RLIMIT_MEMLOCK: %llu KiB; LimitMEMLOCK= in the unit, or "
		    "CAP_IPC_LOCK)", ifname, x->area_len >> 10, strerror(-e),
		    rl.rlim_cur == RLIM_INFINITY ? 0ull :
		    (unsigned long long)(rl.rlim_cur >> 10));
		return -1;
	}
	x->free_tx = calloc(x->ntx, sizeof(*x->free_tx));
	if (x->free_tx == NULL) {
		snprintf(err, errsz, "%s: out of memory", ifname);
		return -1;
	}
	for (i = 0; i < x->ntx; i++)
		x->free_tx[x->nfree++] = (uint64_t)(x->nrx + i) *
		    TTD_XDP_CHUNK;
	if (xsk_ring_prod__reserve(&x->fq, x->nrx, &idx) != x->nrx) {
		snprintf(err, errsz, "%s: the fill ring takes fewer than %u "
		    "chunks", ifname, x->nrx);
		return -1;
	}
	for (i = 0; i < x->nrx; i++)
		*xsk_ring_prod__fill_addr(&x->fq, idx + i) = (uint64_t)i *
		    TTD_XDP_CHUNK;
	xsk_ring_prod__submit(&x->fq, x->nrx);
	return 0;
}

/*
 * The socket on queue 0: zero-copy if the driver has it, else copy.  Not
 * XDP_USE_NEED_WAKEUP: with it, poll() on the socket sends what waits in
 * its ring (copy mode), and what the kernel drops then (a link without
 * carrier) would go unseen; without it only ttd's sendto() sends, and
 * sees every drop.
 */
static int
xdp_socket(struct ttd_xsk *x, const char *ifname, char *err, size_t errsz)
{
	struct xsk_socket_config sc = {
		.rx_size = x->nrx, .tx_size = x->ntx,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.xdp_flags = 0,
		.bind_flags = XDP_ZEROCOPY
	};
	struct bpf_map *map;
	int e, tries, budget;

	/*
	 * EBUSY: the queue still holds the buffer pool of a socket that was
	 * just closed (a ttd restarted at once: the kernel detaches the pool
	 * from the queue in a work item after the close, later on a busy
	 * machine).  Wait for it, up to XDP_BUSY_TRIES times 100 ms.
	 */
	for (tries = 0; ; tries++) {
		sc.bind_flags = XDP_ZEROCOPY;
		e = xsk_socket__create(&x->sock, ifname, 0, x->umem, &x->rx,
		    &x->tx, &sc);
		x->zerocopy = e == 0;
		if (e < 0) {
			sc.bind_flags = XDP_COPY;
			e = xsk_socket__create(&x->sock, ifname, 0, x->umem,
			    &x->rx, &x->tx, &sc);
		}
		if (e != -EBUSY || tries + 1 >= XDP_BUSY_TRIES)
			break;
		usleep(100000);
	}
	if (e < 0) {
		snprintf(err, errsz, "%s: AF_XDP socket: %s%s", ifname,
		    strerror(-e), e == -EPERM ? " (it needs CAP_NET_RAW)" :
		    e == -EBUSY ? " (another AF_XDP socket holds queue 0)" :
		    "");
		x->sock = NULL;
		return -1;
	}
	/* copy mode: the whole send ring in one sendto() where the kernel
	 * allows it, rather than a system call per 32 frames */
	budget = (int)x->ntx;
	if (!x->zerocopy)
		(void)setsockopt(xsk_socket__fd(x->sock), SOL_XDP,
		    XDP_MAX_TX_SKB_BUDGET, &budget, sizeof(budget));
	map = bpf_object__find_map_by_name(x->obj, "xsks");
	if (map == NULL || (e = xsk_socket__update_xskmap(x->sock,
	    bpf_map__fd(map))) < 0) {
		snprintf(err, errsz, "%s: cannot steer frames to the socket: "
		    "%s", ifname, strerror(map == NULL ? ENOENT : -e));
		return -1;
	}
	return 0;
}

int
ttd_xdp_open(struct ttd_dev *d, const char *ifname, uint32_t rx_frames,
    char *err, size_t errsz)
{
	struct ttd_xsk *x;
	int mtu;

	libbpf_set_print(xdp_libbpf_print);
	mtu = xdp_mtu(ifname);
	if (mtu < 0) {
		snprintf(err, errsz, "%s: %s", ifname, strerror(errno));
		return -1;
	}
	if (mtu + TT_ETH_HLEN + TT_VLAN_HLEN > XDP_FRAME_MAX) {
		snprintf(err, errsz, "%s: MTU %d: its frames would not fit a "
		    "4 KiB UMEM chunk (an MTU of at most %d does)", ifname, mtu,
		    XDP_FRAME_MAX - TT_ETH_HLEN - TT_VLAN_HLEN);
		return -1;
	}
	/* a ring that cannot hold every frame the credits let in would
	 * have the kernel drop inside the lossless torus */
	if (rx_frames > XDP_RING_MAX - XDP_RING_SPARE) {
		snprintf(err, errsz, "%s: its neighbour's credits let %u "
		    "frames be in flight (%d a VC), more than the %d an "
		    "AF_XDP receive ring of ttd holds: run --backend pcap",
		    ifname, rx_frames, TTD_CREDIT_FRAMES,
		    XDP_RING_MAX - XDP_RING_SPARE);
		return -1;
	}
	x = calloc(1, sizeof(*x));
	if (x == NULL) {
		snprintf(err, errsz, "%s: out of memory", ifname);
		return -1;
	}
	d->xsk = x;
	x->link_fd = -1;
	x->ifindex = (int)if_nametoindex(ifname);
	/* every frame the neighbour's credits allow in flight, and the
	 * control frames beside them */
	x->nrx = xdp_pow2(rx_frames + XDP_RING_SPARE, 512, XDP_RING_MAX);
	x->ntx = x->nrx / 2;
	if (xdp_attach(x, ifname, err, errsz) < 0 ||
	    xdp_umem(x, ifname, err, errsz) < 0 ||
	    xdp_socket(x, ifname, err, errsz) < 0) {
		ttd_xdp_close(d);
		return -1;
	}
	d->fd = xsk_socket__fd(x->sock);
	return 0;
}

const char *
ttd_xdp_mode(const struct ttd_dev *d)
{
	const struct ttd_xsk *x = d->xsk;

	if (x == NULL)
		return "none";
	return x->native ? (x->zerocopy ? "native XDP, zero-copy" :
	    "native XDP, copy mode") : (x->zerocopy ? "generic XDP, "
	    "zero-copy" : "generic XDP, copy mode");
}

int
ttd_xdp_rx(struct ttd_dev *d, int max, ttd_dev_rx_fn *cb, void *u)
{
	struct ttd_xsk *x = d->xsk;
	uint32_t idx, fidx, n, got, i;

	n = xsk_ring_cons__peek(&x->rx, (uint32_t)max, &idx);
	if (n == 0)
		return 0;
	for (i = 0; i < n; i++) {
		const struct xdp_desc *dd = xsk_ring_cons__rx_desc(&x->rx,
		    idx + i);

		cb(u, (const uint8_t *)xsk_umem__get_data(x->area, dd->addr),
		    dd->len, dd->len);
	}
	/* the chunks back to the fill ring: their frames were copied out */
	got = xsk_ring_prod__reserve(&x->fq, n, &fidx);
	for (i = 0; i < got; i++)
		*xsk_ring_prod__fill_addr(&x->fq, fidx + i) =
		    xsk_ring_cons__rx_desc(&x->rx, idx + i)->addr &
		    ~(uint64_t)(TTD_XDP_CHUNK - 1);
	xsk_ring_prod__submit(&x->fq, got);
	xsk_ring_cons__release(&x->rx, n);
	return (int)n;
}

/* Sending chunks the kernel is done with. */
static void
xdp_reap(struct ttd_xsk *x)
{
	uint32_t idx, n, i;

	n = xsk_ring_cons__peek(&x->cq, x->ntx, &idx);
	for (i = 0; i < n; i++)
		x->free_tx[x->nfree++] = *xsk_ring_cons__comp_addr(&x->cq,
		    idx + i);
	xsk_ring_cons__release(&x->cq, n);
}

/* Frames submitted that the kernel has not taken from the ring yet. */
static uint32_t
xdp_outstanding(const struct ttd_xsk *x)
{
	return *x->tx.producer - __atomic_load_n(x->tx.consumer,
	    __ATOMIC_ACQUIRE);
}

void
ttd_xdp_flush(struct ttd_dev *d)
{
	struct ttd_xsk *x = d->xsk;
	int i;

	if (x->pending > 0) {
		xsk_ring_prod__submit(&x->tx, x->pending);
		x->pending = 0;
	}
	/* copy mode sends in the system call (its budget a call); EBUSY: the
	 * kernel dropped one (a link without carrier: the interface's
	 * tx_dropped counts it, as a cable that loses a frame would),
	 * ENETDOWN, ENOBUFS: the next round tries again; ENXIO: the socket
	 * lost its interface (deleted), which the plane then sees */
	for (i = 0; i < XDP_KICKS && xdp_outstanding(x) > 0; i++)
		if (sendto(d->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 &&
		    errno != EAGAIN && errno != EINTR) {
			if (errno == ENXIO || errno == ENODEV)
				d->failed = 1;
			break;
		}
	xdp_reap(x);
	d->dirty = xdp_outstanding(x) > 0;
}

int
ttd_xdp_send(struct ttd_dev *d, const uint8_t *buf, size_t len)
{
	struct ttd_xsk *x = d->xsk;
	struct xdp_desc *dd;
	uint32_t idx;
	uint64_t addr;

	if (len > TTD_XDP_CHUNK)
		return 1;
	if (x->nfree == 0)
		xdp_reap(x);
	if (x->nfree == 0) {
		ttd_xdp_flush(d);
		if (x->nfree == 0)
			return -1;
	}
	if (xsk_ring_prod__reserve(&x->tx, 1, &idx) != 1)
		return -1;
	addr = x->free_tx[--x->nfree];
	memcpy(x->area + addr, buf, len);
	dd = xsk_ring_prod__tx_desc(&x->tx, idx);
	dd->addr = addr;
	dd->len = (uint32_t)len;
	x->pending++;
	d->dirty = 1;
	return 0;
}

/*
 * A send chunk lent out to build a frame in, so that a frame that leaves
 * as it arrives is copied once (from the receive chunk), not twice: NULL
 * if no chunk is free or the send ring is full (port_send's -1).
 */
uint8_t *
ttd_xdp_buf(struct ttd_dev *d, size_t *cap)
{
	struct ttd_xsk *x = d->xsk;

	if (x->nfree == 0)
		xdp_reap(x);
	if (x->nfree == 0 || xsk_prod_nb_free(&x->tx, 1) < 1)
		return NULL;
	x->held = x->free_tx[--x->nfree];
	*cap = TTD_XDP_CHUNK;
	return x->area + x->held;
}

/* The lent chunk's len bytes into the send ring (ttd_xdp_buf saw room). */
void
ttd_xdp_commit(struct ttd_dev *d, size_t len)
{
	struct ttd_xsk *x = d->xsk;
	struct xdp_desc *dd;
	uint32_t idx;

	if (xsk_ring_prod__reserve(&x->tx, 1, &idx) != 1) {
		ttd_xdp_abort(d);	/* not reached: the room was seen */
		return;
	}
	dd = xsk_ring_prod__tx_desc(&x->tx, idx);
	dd->addr = x->held;
	dd->len = (uint32_t)len;
	x->pending++;
	d->dirty = 1;
}

void
ttd_xdp_abort(struct ttd_dev *d)
{
	struct ttd_xsk *x = d->xsk;

	x->free_tx[x->nfree++] = x->held;
}

void
ttd_xdp_stats(const struct ttd_dev *d, struct ttd_dev_stats *st)
{
	struct xdp_statistics xs;
	socklen_t len = sizeof(xs);

	memset(st, 0, sizeof(*st));
	if (d->xsk == NULL || d->xsk->sock == NULL ||
	    getsockopt(d->fd, SOL_XDP, XDP_STATISTICS, &xs, &len) < 0)
		return;
	/* frames the socket could not take: its ring full, no chunk in the
	 * fill ring, or otherwise */
	st->drop = xs.rx_dropped + xs.rx_ring_full;
	st->ifdrop = xs.rx_invalid_descs + xs.tx_invalid_descs;
}

void
ttd_xdp_close(struct ttd_dev *d)
{
	struct ttd_xsk *x = d->xsk;

	if (x == NULL)
		return;
	if (x->sock != NULL)
		xsk_socket__delete(x->sock);
	if (x->umem != NULL)
		(void)xsk_umem__delete(x->umem);
	if (x->area != NULL)
		munmap(x->area, x->area_len);
	if (x->link_fd >= 0)
		close(x->link_fd);	/* detaches the program */
	if (x->obj != NULL)
		bpf_object__close(x->obj);
	free(x->free_tx);
	free(x);
	d->xsk = NULL;
	d->fd = -1;
}

#endif /* TTD_HAVE_XDP */
