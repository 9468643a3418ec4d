/*
 * xskfwd: the least work per frame an AF_XDP forwarder can do, so that
 * bench/forward-speed.sh can measure the ceiling of AF_XDP on its veths
 * beside ttd's xdp backend.
 *
 *   xskfwd [-p] STEER IN OUT [IN OUT ...]
 *       forward every torus frame that arrives on IN out of OUT, unchanged,
 *       until SIGTERM or SIGINT; then print "FORWARDED DROPPED KDROPPED"
 *       on standard output, summed over the pairs (below).  Run it in the
 *       namespace of the interfaces (ip netns exec).  -p: sleep in poll()
 *       when a round found nothing to do, instead of spinning (ttd's way;
 *       on a machine with fewer cores than busy threads a spinning
 *       forwarder takes time from the sender and the kernel's softirqs).
 *
 * Per pair: one UMEM of CHUNKS chunks shared by two AF_XDP sockets, one
 * receiving on IN's queue 0 (its rx ring only) and one sending on OUT's
 * queue 0 (its tx ring only), bound in copy mode (veth has no zero-copy).
 * A frame's chunk goes from IN's rx ring straight into OUT's tx ring,
 * and back into IN's fill ring when OUT's completion ring returns it: no
 * byte is copied in user space, nothing is looked at, routed or counted
 * per frame; there are no credits and no queues of our own.  When OUT's
 * tx ring is full, IN's rx ring is not read, and what the kernel cannot
 * put in it then is dropped there (KDROPPED).  One thread runs the pairs
 * in turn, spinning (a busy-polling loop) unless -p: a round reaps
 * completions, moves up to BATCH descriptors, and kicks the kernel with
 * one sendto() when the tx ring holds frames and the kernel asks for a
 * wake-up (in copy mode it always does: the frames are sent inside that
 * call, up to RING of them where the kernel takes XDP_MAX_TX_SKB_BUDGET,
 * Linux 6.17 on, 32 before: fewer system calls).
 *
 * STEER is ttd's own XDP program (build/daemon/steer.bpf.o), attached to
 * each IN as ttd attaches it: torus frames (EtherType 0x88B5) go to the
 * socket through its `xsks` map, everything else to the kernel, so the
 * forwarder sees exactly the frames ttd would.
 *
 * FORWARDED: descriptors handed to the tx rings.  DROPPED: frames the
 * kernel took from them but did not send (the OUT interfaces' tx_dropped
 * over the run, and descriptors it found invalid).  KDROPPED: frames the
 * rx sockets could not take (ring full, no chunk to fill), as
 * XDP_STATISTICS counts them.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <xdp/xsk.h>

#define CHUNK		4096	/* a frame of MTU 3000 fits, with headroom */
#define CHUNKS		4096	/* per pair: 16 MiB */
#define RING		2048	/* rx and tx rings */
#define BATCH		64	/* descriptors moved per pair and round */
#define MAXPAIRS	4
#define BUSY_TRIES	30	/* 100 ms apart: a queue a closed socket held */
/* Linux 6.17's per-sendto() copy-mode budget (32 frames by default);
 * older kernels refuse it and keep 32 */
#ifndef XDP_MAX_TX_SKB_BUDGET
#define XDP_MAX_TX_SKB_BUDGET	9
#endif

struct pair {
	const char *in, *out;
	struct bpf_object *obj;
	int link_fd, native;
	int budget;		/* frames a sendto() sends at most */
	uint8_t *area;
	struct xsk_umem *umem;
	struct xsk_socket *rxs, *txs;
	struct xsk_ring_prod fq, out_fq, tx;
	struct xsk_ring_cons cq, out_cq, rx;
	uint64_t fwd, out_drop0;
};

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void
die(const struct pair *p, const char *what, int e)
{
	fprintf(stderr, "xskfwd: %s -> %s: %s: %s\n", p->in, p->out, what,
	    strerror(e));
	exit(1);
}

/* The kernel's count of frames OUT did not send (veth: its peer full). */
static uint64_t
tx_dropped(const char *ifname)
{
	char path[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/tx_dropped",
	    ifname);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* ttd's program on IN: native XDP where the driver has it (veth does),
 * generic otherwise; a BPF link, so that it goes with the process. */
static void
attach_steer(struct pair *p, const char *steer)
{
	LIBBPF_OPTS(bpf_link_create_opts, lo);
	struct bpf_program *prog;
	int ifindex = (int)if_nametoindex(p->in), e;

	if (ifindex == 0)
		die(p, p->in, errno);
	p->obj = bpf_object__open_file(steer, NULL);
	if (p->obj == NULL)
		die(p, steer, errno);
	if ((e = bpf_object__load(p->obj)) < 0)
		die(p, "loading the XDP program", -e);
	prog = bpf_object__find_program_by_name(p->obj, "ttd_steer");
	if (prog == NULL)
		die(p, "no program ttd_steer", ENOENT);
	lo.flags = XDP_FLAGS_DRV_MODE;
	p->link_fd = bpf_link_create(bpf_program__fd(prog), ifindex, BPF_XDP,
	    &lo);
	p->native = p->link_fd >= 0;
	if (p->link_fd < 0) {
		lo.flags = XDP_FLAGS_SKB_MODE;
		p->link_fd = bpf_link_create(bpf_program__fd(prog), ifindex,
		    BPF_XDP, &lo);
	}
	if (p->link_fd < 0)
		die(p, "attaching the XDP program", errno);
}

/* xsk_socket__create_shared, waiting out a queue that a socket closed
 * just before still holds (the previous run's). */
static int
socket_on(struct pair *p, struct xsk_socket **s, const char *ifname,
    struct xsk_ring_cons *rx, struct xsk_ring_prod *tx,
    struct xsk_ring_prod *fq, struct xsk_ring_cons *cq)
{
	struct xsk_socket_config sc = {
		.rx_size = RING, .tx_size = RING,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.xdp_flags = 0,
		/* the second socket inherits these from the first */
		.bind_flags = XDP_COPY | XDP_USE_NEED_WAKEUP
	};
	int e, tries;

	for (tries = 0; ; tries++) {
		e = xsk_socket__create_shared(s, ifname, 0, p->umem, rx, tx, fq,
		    cq, &sc);
		if (e != -EBUSY || tries + 1 >= BUSY_TRIES)
			return e;
		usleep(100000);
	}
}

static void
pair_open(struct pair *p, const char *steer)
{
	struct xsk_umem_config uc = {
		.fill_size = CHUNKS, .comp_size = CHUNKS,
		.frame_size = CHUNK, .frame_headroom = 0, .flags = 0
	};
	struct bpf_map *map;
	uint32_t i, idx;
	int e, budget = RING;

	p->budget = 32;
	attach_steer(p, steer);
	p->area = mmap(NULL, (size_t)CHUNKS * CHUNK, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p->area == MAP_FAILED)
		die(p, "UMEM", errno);
	if ((e = xsk_umem__create(&p->umem, p->area, (uint64_t)CHUNKS * CHUNK,
	    &p->fq, &p->cq, &uc)) < 0)
		die(p, "UMEM", -e);
	/* the receiving socket first: it owns the UMEM's own rings */
	if ((e = socket_on(p, &p->rxs, p->in, &p->rx, NULL, &p->fq,
	    &p->cq)) < 0)
		die(p, "AF_XDP socket on IN", -e);
	if ((e = socket_on(p, &p->txs, p->out, NULL, &p->tx, &p->out_fq,
	    &p->out_cq)) < 0)
		die(p, "AF_XDP socket on OUT", -e);
	if (setsockopt(xsk_socket__fd(p->txs), SOL_XDP, XDP_MAX_TX_SKB_BUDGET,
	    &budget, sizeof(budget)) == 0)
		p->budget = budget;
	map = bpf_object__find_map_by_name(p->obj, "xsks");
	if (map == NULL)
		die(p, "no map xsks", ENOENT);
	if ((e = xsk_socket__update_xskmap(p->rxs, bpf_map__fd(map))) < 0)
		die(p, "steering to the socket", -e);
	/* every chunk starts in IN's fill ring */
	if (xsk_ring_prod__reserve(&p->fq, CHUNKS, &idx) != CHUNKS)
		die(p, "fill ring", ENOSPC);
	for (i = 0; i < CHUNKS; i++)
		*xsk_ring_prod__fill_addr(&p->fq, idx + i) = (uint64_t)i * CHUNK;
	xsk_ring_prod__submit(&p->fq, CHUNKS);
	p->out_drop0 = tx_dropped(p->out);
}

/* One round of one pair: completions to the fill ring, received frames
 * to the tx ring, one kick.  Returns whether it had work: frames moved,
 * or frames still in the tx ring. */
static int
pair_round(struct pair *p)
{
	uint32_t n, i, ci, ri, room, fi = 0, ti = 0;

	n = xsk_ring_cons__peek(&p->out_cq, CHUNKS, &ci);
	if (n > 0) {
		/* the fill ring has room for every chunk: never short */
		(void)xsk_ring_prod__reserve(&p->fq, n, &fi);
		for (i = 0; i < n; i++)
			*xsk_ring_prod__fill_addr(&p->fq, fi + i) =
			    *xsk_ring_cons__comp_addr(&p->out_cq, ci + i);
		xsk_ring_prod__submit(&p->fq, n);
		xsk_ring_cons__release(&p->out_cq, n);
	}
	room = xsk_prod_nb_free(&p->tx, BATCH);
	n = xsk_ring_cons__peek(&p->rx, room < BATCH ? room : BATCH, &ri);
	if (n > 0) {
		(void)xsk_ring_prod__reserve(&p->tx, n, &ti);
		for (i = 0; i < n; i++) {
			const struct xdp_desc *r = xsk_ring_cons__rx_desc(&p->rx,
			    ri + i);
			struct xdp_desc *t = xsk_ring_prod__tx_desc(&p->tx,
			    ti + i);

			t->addr = r->addr;
			t->len = r->len;
			t->options = 0;
		}
		xsk_ring_prod__submit(&p->tx, n);
		xsk_ring_cons__release(&p->rx, n);
		p->fwd += n;
	}
	/* EAGAIN, EBUSY (a frame dropped: OUT's tx_dropped counts it),
	 * ENOBUFS: the next round kicks again */
	if (*p->tx.producer == __atomic_load_n(p->tx.consumer,
	    __ATOMIC_ACQUIRE))
		return n > 0;
	if (xsk_ring_prod__needs_wakeup(&p->tx))
		(void)sendto(xsk_socket__fd(p->txs), NULL, 0, MSG_DONTWAIT,
		    NULL, 0);
	return 1;
}

static void
pair_close(struct pair *p, uint64_t *drop, uint64_t *kdrop)
{
	struct xdp_statistics xs;
	socklen_t len = sizeof(xs);

	*drop += tx_dropped(p->out) - p->out_drop0;
	if (getsockopt(xsk_socket__fd(p->rxs), SOL_XDP, XDP_STATISTICS, &xs,
	    &len) == 0)
		*kdrop += xs.rx_dropped + xs.rx_ring_full + xs.rx_invalid_descs;
	len = sizeof(xs);
	if (getsockopt(xsk_socket__fd(p->txs), SOL_XDP, XDP_STATISTICS, &xs,
	    &len) == 0)
		*drop += xs.tx_invalid_descs;
	xsk_socket__delete(p->txs);
	xsk_socket__delete(p->rxs);
	(void)xsk_umem__delete(p->umem);
	munmap(p->area, (size_t)CHUNKS * CHUNK);
	close(p->link_fd);	/* detaches the program */
	bpf_object__close(p->obj);
}

int
main(int argc, char **argv)
{
	struct pair pairs[MAXPAIRS];
	struct sigaction sa;
	struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
	uint64_t fwd = 0, drop = 0, kdrop = 0;
	struct pollfd pfd[MAXPAIRS];
	int np, i, wait = 0, work;

	if (argc > 1 && strcmp(argv[1], "-p") == 0) {
		wait = 1;
		argc--, argv++;
	}
	np = (argc - 2) / 2;
	if (argc < 4 || argc % 2 != 0 || np > MAXPAIRS) {
		fprintf(stderr, "usage: xskfwd [-p] STEER IN OUT [IN OUT ...] "
		    "(at most %d pairs)\n", MAXPAIRS);
		return 64;
	}
	/* the UMEMs are pinned memory */
	(void)setrlimit(RLIMIT_MEMLOCK, &rl);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	memset(pairs, 0, sizeof(pairs));
	for (i = 0; i < np; i++) {
		pairs[i].in = argv[2 + 2 * i];
		pairs[i].out = argv[3 + 2 * i];
		pair_open(&pairs[i], argv[1]);
		fprintf(stderr, "xskfwd: %s -> %s, %s XDP, copy mode, up to %d "
		    "frames a sendto()\n", pairs[i].in, pairs[i].out,
		    pairs[i].native ? "native" : "generic", pairs[i].budget);
	}
	fprintf(stderr, "xskfwd: ready\n");
	for (i = 0; i < np; i++) {
		pfd[i].fd = xsk_socket__fd(pairs[i].rxs);
		pfd[i].events = POLLIN;
	}
	while (!stop) {
		for (i = work = 0; i < np; i++)
			work |= pair_round(&pairs[i]);
		/* -p: sleep while there is nothing to do, as ttd does */
		if (wait && !work)
			(void)poll(pfd, (nfds_t)np, 10);
	}
	for (i = 0; i < np; i++) {
		fwd += pairs[i].fwd;
		pair_close(&pairs[i], &drop, &kdrop);
	}
	printf("%" PRIu64 " %" PRIu64 " %" PRIu64 "\n", fwd, drop, kdrop);
	return 0;
}
