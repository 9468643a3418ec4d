/*
 * ttd: the twin-torus node daemon.
 *
 * ttd is a set of modules and a small main.c, so that unit tests and
 * fuzzers link the same code the daemon runs (as lldpd does):
 *   log.c      levelled logging with a subsystem tag
 *   node.c     who this node is (nodes: of the YAML) and which interface
 *              is which torus port of which card
 *   fwd.c      the forwarding plane's logic: one switch per card, frames
 *              from ports and TAPs, the core's routing table, input
 *              buffers per (port, VC), the arbiter, ARP for PEs and the
 *              counters.  It touches no device: sending goes through
 *              struct ttd_io, which tests replace.
 *   credit.c   lossless flow control: credits per (port, VC) in bytes,
 *              credit frames, their recovery from loss and link flaps
 *   hello.c    hello frames and the cabling verdict
 *   capture.c  pcap trace files with size rotation, surviving a full disk
 *   port.c     the devices: a libpcap handle per port, a TAP per PE
 *   xdp.c      the AF_XDP backend: an XDP program and a socket per port
 *   bpf/       that XDP program (steer.bpf.c, built by clang -target bpf)
 *              and xdp_obj.S, which carries its object inside ttd
 *   request.c  the control socket's request language (fuzzed on its own)
 *   control.c  the control socket: non-blocking clients with a deadline
 *   status.c   what `ttd status` and SIGUSR1 show
 *   reload.c   SIGHUP's config reload, in a thread of its own
 *   loop.c     `ttd run`: set-up, the backend, the main loop, signals
 *   plane.c    the data plane: rounds of receive, route, send; a thread
 *              per card when asked
 *   discover.c hwloc: the machine's cards (`ttd discover`), NUMA pinning
 *              (its interface is discover.h)
 *   main.c     the subcommands
 */
#ifndef TTD_H
#define TTD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sys/types.h>

#include "twintorus/config.h"
#include "twintorus/frame.h"
#include "twintorus/topo.h"

#define TTD_EX_USAGE        64   /* sysexits.h */
#define TTD_EX_UNAVAILABLE  69
#define TTD_EX_IOERR        74
#define TTD_EX_CONFIG       78

#define TTD_DEFAULT_CONFIG  "/etc/twintorus/ttd.yaml"
#define TTD_DEFAULT_CONTROL "/run/twintorus/ttd.sock"
#define TTD_DEFAULT_TRACES  "/var/lib/twintorus/traces"
#define TTD_FRAME_MAX       9216 /* largest frame on a port or a TAP: the
                                    capture's snap length */
#define TTD_HOP_LIMIT       64   /* a DOR path is far shorter: a loop */

/* ---- log.c ---- */

enum { TTD_LOG_ERR = 3, TTD_LOG_WARNING = 4, TTD_LOG_NOTICE = 5,
       TTD_LOG_INFO = 6, TTD_LOG_DEBUG = 7 };
#define TTD_LOG_DEFAULT TTD_LOG_NOTICE   /* without --log-level */
extern int ttd_log_level;
/* Where lines go: stderr unless a test points it elsewhere. */
extern FILE *ttd_log_file;
void ttd_log(int level, const char *tag, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* ttd_log with ": strerror(errno)" appended (errno as on entry). */
void ttd_log_errno(int level, const char *tag, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Log at err with errno's text appended and exit 1: for what cannot
 * happen once the process is set up (no trace is open yet). */
void ttd_fatal(const char *tag, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));
int ttd_log_parse_level(const char *s);
/* "err".."debug" of a level; "" for none. */
const char *ttd_log_level_name(int level);

/* ---- node.c ---- */

/* One interface of a card and the torus port it is. */
struct ttd_port {
	int port;                 /* external port id or TT_PORT_INT */
	char ifname[IF_NAMESIZE];
	char key[TT_CFG_KEY_MAX]; /* as the YAML named it */
};

struct ttd_card {
	uint32_t card;            /* global card id == PE id */
	int entry;                /* index in the node's cards: of the file */
	int nports;               /* external ports of the card + internal */
	struct ttd_port port[TT_MAX_EXT + 1];
};

/* This node: its place in the torus and its port map. */
struct ttd_node {
	const tt_config *cfg;
	const tt_net *net;
	size_t index;             /* in cfg->nodes */
	uint32_t node;            /* node id in the torus */
	char host[256];
	int ncards;               /* 2 twin, 1 plain */
	struct ttd_card card[2];  /* by side */
};

/* Find `want` (host name or x,y,z) in nodes:; NULL: this host's name. */
int ttd_node_find(const tt_config *cfg, const tt_net *net, const char *want,
    size_t *index, char *err, size_t errsz);
/*
 * Resolve node `index`'s port map against the port configuration: each
 * card's external ports must be exactly one side's, the two cards on
 * different sides, one internal port each (twin), no interface twice; the
 * host must be usable in a file name (trace files are named after it).
 * Every problem goes to errs as "file:line:col: message"; returns how many.
 * Interface keys that are not names (PCI functions, MACs) are resolved
 * against the machine's interfaces when `live` is set.  A node without
 * cards: is mapped automatically when `live` is set, from hwloc discovery
 * of this machine (or of hwloc_xml): see node_map_auto().
 */
int ttd_node_map(struct ttd_node *nd, const tt_config *cfg,
    const tt_net *net, size_t index, int live, const char *hwloc_xml,
    FILE *errs);
/* "Xp", "Xm", "d3p", "int": the port in trace file names. */
const char *ttd_port_fname(int port, int n, char *buf, size_t bufsz);
/* PE p's MAC: 02:74:74 and p in 24 bits. */
void ttd_pe_mac(uint32_t pe, uint8_t mac[6]);
/* PE of a MAC of that form, or -1. */
int64_t ttd_mac_pe(const uint8_t mac[6]);

/* ---- capture.c ---- */

/*
 * A trace file with tcpdump -C/-W rotation: past rotate_bytes a new file
 * is started; the files are base, base1, ..., base{keep-1}, reused in a
 * cycle.  Records reach the file when it is flushed (ttd_capture_flush);
 * a flush that fails (a full disk) cuts the file back to its last whole
 * record, counts what was lost, and the next flush tries again: the file
 * is readable at any moment and complete after ttd_capture_close().
 */
struct ttd_capture {
	char base[4096];
	uint64_t rotate_bytes;    /* 0: never rotate */
	int keep;                 /* files in the cycle (>= 1) */
	int cur;                  /* index of the open file */
	int fresh;                /* cur must be started anew (not appended) */
	uint64_t bytes;           /* the open file's size, records not yet
	                             flushed included */
	uint64_t synced;          /* its size at the last good flush: the
	                             end of its last whole record */
	uint64_t pending;         /* records written since that flush */
	uint64_t records;         /* in the files, in all, since start */
	uint64_t lost;            /* records a failed write dropped */
	int failing;              /* a write failed, none has worked since */
	int fd;                   /* the open file, checked to be a regular
	                             file and not a link; -1 if none */
	void *w;                  /* tt_trace_writer on fd, or NULL until it
	                             can be opened again */
};

int ttd_capture_open(struct ttd_capture *c, const char *base,
    uint64_t rotate_bytes, int keep, char *err, size_t errsz);
/* Queue one record; errors are seen (and logged) by the next flush. */
void ttd_capture_write(struct ttd_capture *c, uint64_t t_ns,
    const uint8_t *buf, size_t len);
/* Push the records to the file.  0, or -1 when they were lost (logged
 * once until a flush works again). */
int ttd_capture_flush(struct ttd_capture *c);
/* Flush, close and open the current file again (SIGHUP): appends, or
 * creates it if it was moved away. */
int ttd_capture_reopen(struct ttd_capture *c, char *err, size_t errsz);
int ttd_capture_close(struct ttd_capture *c, char *err, size_t errsz);
/* Name of rotation file i. */
void ttd_capture_name(const struct ttd_capture *c, int i, char *buf,
    size_t bufsz);

/* ---- fwd.c, credit.c, hello.c: the switches ---- */

/*
 * A node is one switch per card (seed 000 §7.1): input-queued, virtual
 * cut-through, with credits per (port, VC) counted in bytes.  fwd.c holds
 * the buffers, the routing and the arbiter; credit.c the credit protocol
 * between two cards; hello.c the hellos and the cabling verdict.  None of
 * them touches a device: struct ttd_io does, which tests replace.
 */

/* What the forwarding logic asks of the outside world. */
struct ttd_io {
	void *ctx;
	/* send a frame on card side's local port index: 0 sent, -1 busy
	 * (try again later), 1 lost (the port failed: send_failed) */
	int (*port_send)(void *ctx, int side, int lport, const uint8_t *buf,
	    size_t len);
	/* optional: room in the port's own send buffers to build a frame
	 * in, of *cap bytes (NULL: none now, use port_send); port_commit
	 * sends the len bytes built there, port_abort gives the room back */
	uint8_t *(*port_buf)(void *ctx, int side, int lport, size_t *cap);
	void (*port_commit)(void *ctx, int side, int lport, size_t len);
	void (*port_abort)(void *ctx, int side, int lport);
	/* hand a frame to the PE of card side (its TAP): 0, or -1 lost */
	int (*pe_deliver)(void *ctx, int side, const uint8_t *buf,
	    size_t len);
	/* record a PE's frame (injected or delivered) and a sent frame */
	void (*trace_pe)(void *ctx, const uint8_t *buf, size_t len);
	void (*trace_port)(void *ctx, int side, int lport, const uint8_t *buf,
	    size_t len);
	uint64_t (*now_ns)(void *ctx);
};

/* Why a frame taken in went no further. */
enum ttd_drop {
	TTD_DROP_NO_ROUTE = 0,    /* destination outside the torus */
	TTD_DROP_HOP_LIMIT,
	TTD_DROP_QUEUE_FULL,      /* --lossy: the input buffer was full */
	TTD_DROP_BAD_FRAME,       /* malformed torus frame from a port */
	TTD_DROP_LINK_DOWN,       /* routed to a port whose link is down */
	TTD_DROP_NOT_FOR_PE,      /* from a TAP: not unicast to a PE */
	TTD_DROP_TOO_LONG,        /* over TTD_FRAME_MAX: cut by the capture,
	                             or no room for the torus header */
	TTD_DROP_NOT_TORUS,       /* on a port, another EtherType */
	TTD_DROP_BAD_HELLO,       /* a hello naming a node, card or port the
	                             torus does not have */
	TTD_DROP_SEND_FAILED,     /* the port refused it */
	TTD_DROP_DELIVER_FAILED,  /* the PE's TAP refused it */
	TTD_DROP_NO_BUFFER,       /* lossless: it came without credit (the
	                             neighbour runs --lossy, or restarted) */
	TTD_DROP_EDGE_FULL,       /* --lossy: from a TAP, the first hop's
	                             buffer was full (lossless ttd stops
	                             reading the TAP instead) */
	/* credit frames refused (credit.c), under the first check failed */
	TTD_DROP_CREDIT_HEADER,   /* VC, hops, flags or destination not a
	                             credit frame's */
	TTD_DROP_CREDIT_MALFORMED,/* a body cut, with epoch 0, reserved bytes
	                             set, or another VC count than the port's */
	TTD_DROP_CREDIT_IMPLAUSIBLE, /* a buffer outside what credits: may
	                             set (0 among them), a grant past it */
	TTD_DROP_CREDIT_NOT_PEER, /* not from the neighbour the hellos
	                             verified there (MAC address, source PE) */
	TTD_DROP_CREDIT_STALE,    /* a sequence number not after the last one
	                             taken in its epoch: replayed or old */
	TTD_DROP_HELLO_IMPOSTOR,  /* the verified neighbour's hello from
	                             another MAC address while it is heard */
	TTD_DROP_N
};
extern const char *const ttd_drop_names[TTD_DROP_N];

/*
 * Every frame taken in (from a port or a TAP) ends in exactly one of:
 *   received = forwarded + delivered + hellos + arp + credits + dropped[...]
 *              + queued
 * where queued is what the input buffers hold (ttd_fwd_queued).  Frames
 * the kernel dropped before ttd saw them are not taken in: port.c
 * reports them (pcap_stats(), the XDP socket's statistics).  Counted per
 * card; a node's are the sum of its cards'.
 */
struct ttd_counters {
	uint64_t received;        /* from ports and TAPs */
	uint64_t forwarded;       /* sent on a port */
	uint64_t delivered;       /* written to a PE's TAP */
	uint64_t hellos;          /* consumed: hellos heard */
	uint64_t arp;             /* consumed: ARP requests answered */
	uint64_t credits;         /* consumed: credit frames heard */
	uint64_t dropped[TTD_DROP_N];
	uint64_t injected;        /* of received: PE frames wrapped */
	uint64_t hellos_tx;       /* sent (not taken in) */
	uint64_t credits_tx;      /* sent (not taken in) */
};

enum ttd_cabling { TTD_CABLING_UNKNOWN = 0, TTD_CABLING_OK, TTD_CABLING_WRONG };

/* At most TTD_LOG_BURST lines per port per TTD_LOG_WINDOW_NS about what
 * it hears; the rest are counted and the count logged. */
#define TTD_LOG_BURST      4
#define TTD_LOG_WINDOW_NS  10000000000ull

struct ttd_loglimit {
	uint64_t start_ns;        /* of the current window */
	unsigned lines;           /* logged in it */
	uint64_t suppressed;      /* not logged in it */
};

/* Credits: a frame holds at least its buffer's least of it: size /
 * TTD_CREDIT_FRAMES bytes, never below TTD_CREDIT_MIN (so that a port's
 * buffer holds at most TTD_CREDIT_FRAMES frames a VC, and a PE's at most
 * its size / TTD_CREDIT_MIN: what the kernel's receive rings are sized
 * for; ttd_credit_least()).  The credit frames of a port tell its
 * neighbour that least.  A buffer is TTD_BUFFER_DEFAULT bytes a VC unless
 * the config or the model says more: a window of 44 frames of 1,500
 * bytes, which keeps a link busy while its credits come back.
 * Every port's whole credit state is sent every TTD_CREDIT_SYNC_NS, which
 * bounds how long a lost credit frame holds anything up; a neighbour
 * silent for TTD_CREDIT_QUIET_NS while the link is up is logged. */
#define TTD_CREDIT_MIN       TT_CREDIT_MIN_BYTES
#define TTD_CREDIT_FRAMES    256
#define TTD_BUFFER_DEFAULT   65536
#define TTD_CREDIT_SYNC_NS   100000000ull
#define TTD_CREDIT_QUIET_NS  3000000000ull
/* A credit frame is taken only from the port's verified neighbour (see
 * struct ttd_fport); another MAC address claiming to be that neighbour in
 * its hellos replaces it only once it has been silent TTD_PEER_HOLD_NS.
 * A sequence number more than TTD_CREDIT_SEQ_WINDOW ahead of the last one
 * taken, or not ahead of it, is refused (credit_stale) unless nothing was
 * taken for TTD_CREDIT_QUIET_NS: then it starts the count anew (a
 * neighbour that restarted with the same epoch). */
#define TTD_PEER_HOLD_NS     3000000000ull
#define TTD_CREDIT_SEQ_WINDOW 65536u

/* A frame held in an input buffer, stored as it will leave. */
struct ttd_qframe {
	uint32_t off;             /* in the buffer's bytes */
	uint16_t len;             /* bytes stored */
	uint16_t cost;            /* credit bytes it holds */
	uint8_t out;              /* output: local port, or nports: the PE */
	uint8_t vc;               /* VC on that output */
	uint8_t bubble;           /* it enters a ring: needs room for two */
};

/*
 * An input buffer: what came in on one (port, VC) of a card, or from its
 * PE, first in first out.  Frames lie whole in a byte ring (a frame that
 * does not fit at the end starts at 0); cap leaves room for that and for
 * 802.1Q tags, so that size credit bytes always fit.
 */
struct ttd_ibuf {
	uint8_t *data;
	uint32_t cap, tail;       /* bytes; where the next frame goes */
	struct ttd_qframe *q;
	uint32_t qcap, qhead, qn;
	uint32_t size;            /* credit bytes the upstream may fill */
	uint32_t least;           /* the least credit a frame holds in it */
	uint32_t used;            /* credit bytes the frames hold */
	uint32_t abr;             /* bytes received, in the upstream's count
	                             of bytes sent (mod 2^32): credit.c */
	uint32_t freed;           /* bytes freed since the last credit frame */
	uint8_t in, vc;           /* whose: input (nports: the PE), VC */
};

/* The credits of one output (port, VC): the neighbour's grant. */
struct ttd_ocred {
	uint32_t sent;            /* bytes sent this epoch (mod 2^32) */
	uint32_t limit;           /* send while sent stays within it */
	uint32_t peer_buffer;     /* the neighbour's buffer (0: not heard) */
};

/* One local port of a card. */
struct ttd_fport {
	int port;                 /* port id */
	int nvcs;
	int link;                 /* 1 up, 0 down, -1 unknown */
	int cabling;              /* enum ttd_cabling */
	tt_hello heard;           /* last hello heard */
	uint64_t tx, rx;          /* data frames sent; frames received */
	uint64_t rx_data;         /* of rx: data frames (what a cable lost is
	                             the neighbour's tx less this) */
	uint8_t mac[6];
	struct ttd_ibuf *in;      /* nvcs input buffers */
	struct ttd_ocred oc[TT_MAX_VCS];
	/* the credit protocol (credit.c) */
	uint16_t peer_epoch;      /* the neighbour's epoch, that abr counts
	                             in (0: none heard) */
	int granted;              /* its limits count in our epoch */
	uint32_t peer_least;      /* the least a frame costs in its buffers
	                             (one a port: its credit frames say it) */
	int cred_due;             /* send a credit frame this round */
	uint32_t cred_seq;        /* credit frames sent */
	uint32_t cred_rx_seq;     /* the last one taken */
	uint16_t cred_rx_epoch;   /* its epoch (0: none taken since the
	                             neighbour was verified) */
	uint64_t cred_heard;      /* credit frames taken */
	uint64_t cred_lost;       /* gaps in the sequence of those taken */
	uint64_t cred_refused;    /* credit frames refused (dropped) */
	uint64_t cred_tx_ns;
	uint64_t cred_rx_ns;      /* when one was last taken */
	int quiet_warned;
	int hello_due;            /* send a hello before the next credit
	                             frame: the neighbour has not taken ours */
	/*
	 * The neighbour credit frames are taken from: on an external port the
	 * one whose hello named the node, card and port the torus puts there,
	 * with that card as the frame's source; from then on its MAC address
	 * (peer_mac) is the only one credit frames are taken from.  When the
	 * link goes down it stays (the same cable plugged back needs no new
	 * hello), but the next hello naming that card from any address takes
	 * its place at once (peer_open).  On the internal link it is the
	 * other card's internal port, which this ttd runs (no hellos needed).
	 */
	int peer_ok;
	int peer_open;            /* replaceable without TTD_PEER_HOLD_NS */
	uint8_t peer_mac[6];
	uint64_t peer_heard_ns;   /* its last hello or credit frame taken */
	struct ttd_loglimit loglim;       /* lines about its hellos */
	struct ttd_loglimit cred_loglim;  /* about credit frames refused */
};

/* One card: a switch.  Its state is its own (a thread may run it). */
struct ttd_sw {
	int side;
	uint32_t card;            /* global card id == PE id */
	uint16_t epoch;           /* the base of every sent count, per start */
	tt_rtable rt;
	int nports;               /* external + internal; nports is the PE */
	struct ttd_fport fp[TT_MAX_EXT + 1];
	struct ttd_ibuf pe_in;    /* the PE's injection buffer (one VC) */
	uint32_t seq;             /* next sequence number of the PE */
	uint32_t pe_ip;           /* host order */
	uint8_t rr[TT_MAX_EXT + 2];    /* per output: the input served next */
	uint8_t rrv[TT_MAX_EXT + 2];   /* per input: the VC served next */
	uint32_t queued;          /* inputs with a frame in a buffer */
	uint32_t vqueued[TT_MAX_EXT + 2];  /* per input: VCs with a frame */
	uint32_t want;            /* outputs with a frame at a head for them */
	uint32_t busy;            /* outputs whose port said busy */
	struct ttd_counters cnt;
	uint8_t scratch[TTD_FRAME_MAX];   /* a PE's frame wrapped; a credit */
};

/* How the switches run, from the command line and the config. */
struct ttd_fwd_opts {
	int lossy;                /* --lossy: no credits, drop when full */
	int vlan;                 /* tag egress frames, PCP = VC */
	uint32_t vc_bytes;        /* input buffer per VC: external ports */
	uint32_t int_vc_bytes;    /* the internal link */
	uint32_t pe_bytes;        /* a PE's injection */
	uint16_t epoch;           /* card 0's epoch; card 1's is the next */
};

struct ttd_fwd {
	const struct ttd_node *nd;
	const tt_net *net;
	struct ttd_io io;
	struct ttd_fwd_opts o;
	uint32_t subnet, mask;
	struct ttd_sw sw[2];
};

/* The buffers of the config (credits:), or the model's (network:, at
 * least TTD_BUFFER_DEFAULT) where it says nothing. */
void ttd_fwd_opts_config(struct ttd_fwd_opts *o, const tt_config *cfg,
    const tt_net *net);
int ttd_fwd_init(struct ttd_fwd *f, const struct ttd_node *nd,
    const struct ttd_io *io, const struct ttd_fwd_opts *o, char *err,
    size_t errsz);
void ttd_fwd_free(struct ttd_fwd *f);
/* A frame received on card side's local port lport: len bytes of it
 * captured, wirelen on the wire. */
void ttd_fwd_port_rx(struct ttd_fwd *f, int side, int lport,
    const uint8_t *buf, size_t len, size_t wirelen);
/* A frame the PE of card side sent on its TAP. */
void ttd_fwd_pe_rx(struct ttd_fwd *f, int side, const uint8_t *buf,
    size_t len);
/* Whether the PE's TAP may be read: its buffer takes any frame
 * (lossless); always with --lossy, which drops what does not fit. */
int ttd_fwd_pe_room(const struct ttd_fwd *f, int side);
/* Send what can go: every output of card side (all cards: side -1). */
void ttd_fwd_drain(struct ttd_fwd *f, int side);
/* Whether an output of a card (all: -1) has frames but its port said
 * busy: the loop polls again soon. */
int ttd_fwd_busy(const struct ttd_fwd *f, int side);
/* Frames held in the input buffers. */
uint64_t ttd_fwd_queued(const struct ttd_fwd *f);
/* A node's counters: both cards' summed. */
void ttd_fwd_counters(const struct ttd_fwd *f, struct ttd_counters *c);
/* The right-hand side of the identity above: received once it holds. */
uint64_t ttd_fwd_accounted(const struct ttd_fwd *f);
/* A port's link went up or down (logged by the caller). */
void ttd_fwd_link(struct ttd_fwd *f, int side, int lport, int up);
/* "(1,0,1)/c0 X+ (ifname)" */
const char *ttd_fwd_port_name(const struct ttd_fwd *f, int side, int lport,
    char *buf, size_t bufsz);
/* fwd.c's own, for credit.c: serve the outputs that want it. */
void ttd_fwd_kick(struct ttd_fwd *f, struct ttd_sw *sw);

/* credit.c */
/* A credit frame heard on a port. */
void ttd_credit_rx(struct ttd_fwd *f, struct ttd_sw *sw, int lport,
    const tt_frame *fr);
/* Whether output (lport, vc) may send a frame holding cost bytes. */
int ttd_credit_ok(const struct ttd_fwd *f, const struct ttd_fport *fp,
    int vc, uint32_t cost, int bubble);
/* The end of a round of card side (all: -1): the credit frames that are
 * due, the periodic ones, a neighbour that has gone quiet. */
void ttd_credit_round(struct ttd_fwd *f, int side, uint64_t now);
/* Bytes the neighbour lets output (lport, vc) send now; -1 if it has not
 * granted any in our epoch.  Never more than the buffer it said it has. */
int64_t ttd_credit_available(const struct ttd_fport *fp, int vc);
/* The least credit a frame holds in a port's buffer of size bytes. */
uint32_t ttd_credit_least(uint32_t size);
/* The card at the other end of card side's port lport, and whether a
 * neighbour is verified there (its MAC address into mac, if not NULL). */
uint32_t ttd_credit_peer(const struct ttd_fwd *f, int side, int lport,
    int *verified, uint8_t mac[6]);

/* hello.c */
/* A hello heard on a port. */
void ttd_hello_rx(struct ttd_fwd *f, struct ttd_sw *sw, int lport,
    const tt_frame *fr);
/* Send a hello on every external port of card side (all: -1), and log
 * what the rate limit held back in a window that has ended. */
void ttd_fwd_hello(struct ttd_fwd *f, int side);
/* A hello on card side's external port lport alone (a link that came up,
 * a neighbour that has not taken our credit frames): 0 sent, -1 not. */
int ttd_hello_send(struct ttd_fwd *f, int side, int lport);

/* ---- port.c, xdp.c: the devices ---- */

/* How a port's frames reach ttd. */
enum ttd_backend {
	TTD_BACKEND_AUTO = 0,     /* AF_XDP where it works, libpcap if not */
	TTD_BACKEND_PCAP,
	TTD_BACKEND_XDP
};
extern const char *const ttd_backend_names[3];

#define TTD_PCAP_BUFFER     (4 << 20)  /* a port's capture ring, bytes */
#define TTD_XDP_CHUNK       4096       /* a UMEM chunk: one frame */

typedef struct pcap pcap_t;
struct ttd_xsk;                        /* xdp.c */

/* One torus port's device, whichever backend opened it. */
/* Frames the kernel dropped before ttd saw them (drop: the capture ring
 * or the socket's ring was full; ifdrop: the interface, or bad
 * descriptors), and after ttd sent them (link: the interface's tx_dropped
 * since it was opened, e.g. into a cable pulled at the far end). */
struct ttd_dev_stats {
	uint64_t drop, ifdrop, link;
};

struct ttd_dev {
	int backend;              /* TTD_BACKEND_PCAP or TTD_BACKEND_XDP */
	char ifname[IF_NAMESIZE];
	pcap_t *pc;               /* libpcap */
	struct ttd_xsk *xsk;      /* AF_XDP */
	int fd;                   /* readable when frames wait; -1 closed */
	int dirty;                /* sent since the last flush */
	uint64_t tx_dropped0;     /* the interface's tx_dropped when opened */
	/* what outlives the device when its interface goes away */
	int ifindex;              /* the interface it was opened on */
	uint32_t rx_frames;       /* as given to ttd_dev_open */
	int failed;               /* the socket reported an error */
	int err_rounds;           /* rounds in a row it did, interface there */
	uint64_t lost;            /* times its interface went away */
	int reopen_warned;        /* a failed reopen was said */
	struct ttd_dev_stats base;   /* the drops of its earlier openings */
};

typedef void ttd_dev_rx_fn(void *u, const uint8_t *buf, size_t caplen,
    size_t wirelen);

/* Open a port: inbound only, non-blocking; mac gets its MAC.  For AF_XDP
 * rx_frames is how many frames the neighbour may have in flight (the
 * receive ring is sized for them). */
int ttd_dev_open(struct ttd_dev *d, int backend, const char *ifname,
    uint32_t rx_frames, uint8_t mac[6], char *err, size_t errsz);
/* Read up to max frames, each handed to cb; how many. */
int ttd_dev_rx(struct ttd_dev *d, int max, ttd_dev_rx_fn *cb, void *u);
/* 0 sent (or queued to go at the next flush), -1 busy, 1 failed. */
int ttd_dev_send(struct ttd_dev *d, const uint8_t *buf, size_t len);
/* AF_XDP: a send chunk to build a frame in (NULL: none free, or not
 * AF_XDP); commit queues the len bytes built there for the next flush,
 * abort gives the chunk back.  One at a time. */
uint8_t *ttd_dev_buf(struct ttd_dev *d, size_t *cap);
void ttd_dev_commit(struct ttd_dev *d, size_t len);
void ttd_dev_abort(struct ttd_dev *d);
/* Push what was sent (AF_XDP: the send system calls). */
void ttd_dev_flush(struct ttd_dev *d);
void ttd_dev_stats(const struct ttd_dev *d, struct ttd_dev_stats *st);
/* "libpcap" or the AF_XDP mode: "native XDP, copy mode", ... */
const char *ttd_dev_mode(const struct ttd_dev *d);
/* Closed: its drops kept in base, what it counted on kept. */
void ttd_dev_close(struct ttd_dev *d);
/* Whether the device is open (it is not after its interface went). */
int ttd_dev_is_open(const struct ttd_dev *d);
/* 1 the interface it was opened on is still there; 0 it is gone, or
 * another of the same name took its place (deleted and made again: the
 * socket stays bound to the old one and would never carry a frame). */
int ttd_dev_present(const struct ttd_dev *d);
/* Whether an interface of the device's name exists. */
int ttd_dev_name_exists(const struct ttd_dev *d);
/* Open a closed device again on the interface of its name, with the
 * backend and ring size it had; its counts of earlier openings kept. */
int ttd_dev_reopen(struct ttd_dev *d, uint8_t mac[6], char *err,
    size_t errsz);
/* Read and clear the socket's pending error, so that poll() stops
 * reporting it. */
void ttd_dev_clear_error(struct ttd_dev *d);
/* 1 carrier, 0 none (or the interface is down), -1 cannot tell. */
int ttd_port_carrier(const char *ifname);
/* PE pe's TAP, named by pattern (one %u) with its MAC and address. */
int ttd_tap_open(int *fdp, char *name, size_t namesz, const tt_config *cfg,
    uint32_t pe, char *err, size_t errsz);
/* What the PE's TAP dropped because ttd did not read it fast enough (its
 * tx_dropped), found also when the TAP was moved to another network
 * namespace; -1 if it cannot be read. */
int64_t ttd_tap_dropped(int fd, const char *name);

/* xdp.c: the backend behind ttd_dev_* for TTD_BACKEND_XDP */
int ttd_xdp_open(struct ttd_dev *d, const char *ifname, uint32_t rx_frames,
    char *err, size_t errsz);
int ttd_xdp_rx(struct ttd_dev *d, int max, ttd_dev_rx_fn *cb, void *u);
int ttd_xdp_send(struct ttd_dev *d, const uint8_t *buf, size_t len);
uint8_t *ttd_xdp_buf(struct ttd_dev *d, size_t *cap);
void ttd_xdp_commit(struct ttd_dev *d, size_t len);
void ttd_xdp_abort(struct ttd_dev *d);
void ttd_xdp_flush(struct ttd_dev *d);
void ttd_xdp_stats(const struct ttd_dev *d, struct ttd_dev_stats *st);
const char *ttd_xdp_mode(const struct ttd_dev *d);
void ttd_xdp_close(struct ttd_dev *d);

/* ---- request.c ---- */

#define TTD_REQUEST_MAX     64   /* longest request line, newline included */

enum ttd_request_kind { TTD_REQ_STATUS_TEXT = 1, TTD_REQ_STATUS_JSON };

/*
 * One request line: "status" or "status json", words separated by blanks,
 * ended by "\n" (or "\r\n"), or by the end of the input when eof is set.
 * Returns 0 when more input is needed, 1 with *kind set, -1 with err set
 * to a one-line message for the client (the request shown with anything
 * unprintable escaped).  *used gets the bytes the request took.
 */
int ttd_request_parse(const char *buf, size_t len, int eof, int *kind,
    size_t *used, char *err, size_t errsz);

/* ---- control.c ---- */

#define TTD_CONTROL_CLIENTS  32    /* served at once */
#define TTD_CONTROL_BACKLOG  128
#define TTD_CONTROL_DEADLINE_MS 2000  /* to send a request and read the
                                         answer */
#define TTD_CONTROL_GRACE_MS 100  /* a client held this long may make room
                                     for one waiting, when all slots are
                                     taken */

struct ttd_client {
	int fd;                   /* -1: slot free */
	uint64_t accepted_ms;
	uint64_t deadline_ms;
	char in[TTD_REQUEST_MAX];
	size_t inlen;
	char *out;                /* the answer, malloc'd */
	size_t outlen, outoff;
};

/* Writes the answer to a request into fp. */
typedef void ttd_answer_fn(void *ctx, int kind, FILE *fp);

struct ttd_control {
	int fd;                   /* listening, -1 closed */
	char path[108];
	dev_t dev;                /* of the socket file bound, to unlink */
	ino_t ino;                /* only that one at exit */
	ttd_answer_fn *answer;
	void *ctx;
	struct ttd_client client[TTD_CONTROL_CLIENTS];
};

/*
 * Listen on path.  A stale socket there (nobody answers) is replaced;
 * anything else (a file, a directory, a link, a live ttd's socket) is
 * refused with err saying what is there.
 */
int ttd_control_open(struct ttd_control *c, const char *path,
    ttd_answer_fn *answer, void *ctx, char *err, size_t errsz);
/* Fill pollfds for the listener (left out while no slot is free and no
 * client may yet make room) and every client (fd -1: unused), at most
 * 1 + TTD_CONTROL_CLIENTS; returns how many were filled. */
int ttd_control_pollfds(const struct ttd_control *c, struct pollfd *pfd,
    uint64_t now_ms);
/* Serve what poll() reported on those pollfds; never blocks.  Clients
 * past their deadline are closed; with every slot taken, a client
 * waiting takes the slot of the oldest one held past its grace (one that
 * has sent nothing first). */
void ttd_control_serve(struct ttd_control *c, const struct pollfd *pfd,
    uint64_t now_ms);
/* The earliest client deadline (with every slot taken, or the next end
 * of a client's grace after now_ms), or UINT64_MAX. */
uint64_t ttd_control_next_deadline(const struct ttd_control *c,
    uint64_t now_ms);
/* Close everything; unlink the socket file if it is still ours. */
void ttd_control_close(struct ttd_control *c);

/* ---- reload.c ---- */

/* What a reload may change while ttd runs. */
struct ttd_settings {
	int trace_rotate_mb;
	int trace_keep;
};

enum ttd_reload_result {
	TTD_RELOAD_OK = 0,        /* settings hold the new values */
	TTD_RELOAD_BAD_FILE,      /* the file does not load: nothing changes */
	TTD_RELOAD_RESTART,       /* it changes ports or TAPs: refused */
};

/*
 * SIGHUP's reload runs in a thread, off the forwarding loop: the loop
 * polls efd and takes the result (ttd_reload_take) at a point where
 * nothing else looks at the settings.  One reload at a time; a SIGHUP
 * during one is remembered and runs when it ends.
 */
struct ttd_reload {
	const char *path;
	const char *node;         /* --node */
	const tt_config *cur;     /* the running config (not changed while
	                             a reload runs) */
	const struct ttd_node *nd;
	int efd;                  /* eventfd: readable when a result waits */
	int running, again;
	pthread_t th;
	/* the result, written by the thread before efd is signalled */
	int result;
	struct ttd_settings settings;
	char why[256];            /* what differs (TTD_RELOAD_RESTART) */
};

int ttd_reload_init(struct ttd_reload *r, const char *path,
    const char *node, const tt_config *cur, const struct ttd_node *nd,
    char *err, size_t errsz);
/* Start a reload (or remember to start one when the running one ends). */
void ttd_reload_start(struct ttd_reload *r);
/* After efd turned readable: the finished reload's result (and the
 * next one started if a SIGHUP came meanwhile). */
int ttd_reload_take(struct ttd_reload *r, struct ttd_settings *s,
    char *why, size_t whysz);
/* 0; or -1 when a reload is still running: it is left to end on its
 * own (or with the process), and the config it reads (cur, nd) must be
 * left as it is. */
int ttd_reload_free(struct ttd_reload *r);
/* Whether two configs differ in what needs a restart for this node (the
 * torus, its node map, the PEs' TAPs and addresses); why says what. */
int ttd_reload_needs_restart(const tt_config *a, const tt_config *b,
    const struct ttd_node *nd, const char *node, char *why, size_t whysz);

/* ---- loop.c, plane.c and status.c: the running daemon ---- */

enum ttd_threads {
	TTD_THREADS_AUTO = 0,     /* a thread per card when the cards sit on
	                             different NUMA nodes, else one loop */
	TTD_THREADS_ONE,          /* one loop for both cards */
	TTD_THREADS_CARD          /* a thread per card, pinned to its node */
};

struct ttd_run_opts {
	const char *config, *node, *control, *trace_dir, *hwloc_xml;
	int pcp;                  /* 802.1Q tag on egress, PCP = VC */
	int lossy;                /* no credits: drop where a buffer is full */
	int backend;              /* enum ttd_backend */
	int threads;              /* enum ttd_threads */
};

/* A data-plane loop (plane.c): the ports and TAPs of the cards it runs. */
struct ttd_plane {
	struct ttd_daemon *d;
	int side;                 /* its card; -1: both (one loop) */
	pthread_t th;
	int started;              /* runs in a thread of its own */
	int efd;                  /* eventfd: the main thread wakes it */
	int nlfd;                 /* rtnetlink: link changes, at once */
	uint64_t hello_ms;        /* next hellos and link poll */
	unsigned streak;          /* rounds in a row that read frames */
	char cpus[300];           /* where it is pinned; "" if not */
};

#define TTD_PLANE_FDS  (2 * (TT_MAX_EXT + 1) + 2 + 1 + 1)

struct ttd_daemon {
	const struct ttd_run_opts *o;
	tt_config cfg;
	tt_net net;
	struct ttd_node nd;
	struct ttd_fwd f;
	struct ttd_dev dev[2][TT_MAX_EXT + 1];
	int backend;              /* the one running */
	int tap[2];
	char tapname[2][IF_NAMESIZE];
	int64_t tap_dropped0[2];  /* the TAPs' tx_dropped when opened */
	pthread_mutex_t cap_mu;   /* the trace files: the planes write them,
	                             the main loop flushes and reopens them */
	struct ttd_capture pe_cap;
	struct ttd_capture port_cap[2][TT_MAX_EXT + 1];
	int port_tracing;
	char trace_dir[4096];
	int sfd;                  /* signalfd */
	struct ttd_control ctl;
	struct ttd_reload reload;
	struct ttd_plane plane[2];
	int nplanes;              /* 1: one loop; 2: a thread per card */
	int stop;                 /* the planes' threads end */
	pthread_mutex_t pause_mu; /* the main loop stops the planes' threads */
	pthread_cond_t pause_cv;  /* to read their state whole (status) */
	int pause_want, paused;
	uint8_t buf[2][TTD_FRAME_MAX + 1];   /* a TAP read: one byte more
	                                        shows a frame too long */
};

int ttd_run(const struct ttd_run_opts *o);

/* plane.c */
/* The io table over the devices, the TAPs and the trace files. */
void ttd_plane_io(struct ttd_daemon *d, struct ttd_io *io);
/* A plane for card side (-1: both): its link-change socket. */
void ttd_plane_init(struct ttd_plane *p, struct ttd_daemon *d, int side);
/* Fill pfd (at most TTD_PLANE_FDS) with the plane's ports and TAPs; a
 * TAP is read only while its PE's first hop takes any frame. */
int ttd_plane_pollfds(struct ttd_plane *p, struct pollfd *pfd);
/* After poll(): receive, route, send, the credits and the timers; the
 * poll() timeout the plane wants next, ms. */
int ttd_plane_round(struct ttd_plane *p, const struct pollfd *pfd);
/* The nap (in us) after a round that read got frames; streak counts the
 * rounds in a row that read any. */
int ttd_plane_nap(unsigned *streak, int got);
/* Carrier of every port of the plane's cards, changes logged. */
void ttd_plane_links(struct ttd_daemon *d, int side);
/* A thread per card (pinned where hwloc places the card): 0, or -1. */
int ttd_plane_start(struct ttd_daemon *d, char *err, size_t errsz);
void ttd_plane_stop(struct ttd_daemon *d);
/* Hold the planes' threads between two rounds, and let them go on:
 * what the main loop reads meanwhile is whole. */
void ttd_plane_pause(struct ttd_daemon *d);
void ttd_plane_resume(struct ttd_daemon *d);

/* status.c: `ttd status` as text or JSON, and the counters' log line. */
void ttd_status_text(const struct ttd_daemon *d, FILE *fp);
void ttd_status_json(const struct ttd_daemon *d, FILE *fp);
void ttd_status_log(const struct ttd_daemon *d, int level);

#endif
