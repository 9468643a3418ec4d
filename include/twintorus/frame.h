/*
 * twintorus: the torus frame.
 *
 * What ttd puts on the wire between cards and what traces hold.  An
 * Ethernet II frame, optionally 802.1Q-tagged (for PFC-capable hardware the
 * PCP then carries VC & 7: PFC has 8 priorities), with EtherType 0x88B5 (IEEE 802 local
 * experimental), then a 16-byte header in network byte order:
 *
 *   offset  size  field
 *        0     1  version (high 4 bits, 1) | type (low 4 bits: 0 data,
 *                 1 hello, 2 credit)
 *        1     1  VC the frame travels on over this hop (< TT_MAX_VCS)
 *        2     1  hop count: links between cards crossed so far
 *        3     1  flags (TT_FRAME_F_*; every other bit must be 0)
 *        4     4  destination PE
 *        8     4  source PE
 *       12     4  sequence number (per source PE)
 *       16     -  data: the carried frame, as the PE's TAP sent it
 *                 hello: struct tt_hello (8 bytes; tt_frame_decode does
 *                 not look inside it, tt_hello_decode does)
 *                 credit: struct tt_credit (below; tt_credit_decode)
 *
 * Offsets are from the end of the Ethernet header (14 bytes, 18 when
 * tagged).  Decoding never casts a struct over the buffer: every field is
 * read byte by byte after its length has been checked.  The Wireshark
 * dissector in tools/wireshark/twintorus.lua reads the same layout.
 */
#ifndef TWINTORUS_FRAME_H
#define TWINTORUS_FRAME_H

#include <stddef.h>
#include <stdint.h>
#include "twintorus/api.h"

TT_BEGIN_DECLS

#define TT_ETHERTYPE        0x88B5
#define TT_ETHERTYPE_VLAN   0x8100
#define TT_ETH_HLEN         14
#define TT_VLAN_HLEN        4
#define TT_FRAME_HLEN       16      /* the torus header alone */
/* The longest frame ttd carries on a port or a TAP (a 9000-byte jumbo MTU
 * and headers), and so the most a record of its traces holds on the wire. */
#define TT_FRAME_MAX        9216
#define TT_FRAME_VERSION    1
#define TT_HELLO_LEN        8
#define TT_PE_BROADCAST     0xFFFFFFFFu   /* destination of hello frames */

enum tt_frame_type {
	TT_FRAME_DATA = 0,
	TT_FRAME_HELLO = 1,
	TT_FRAME_CREDIT = 2       /* added within version 1: traces written
	                             before it hold types 0 and 1 only */
};

/*
 * Flags.  TT_FRAME_F_DELIVERED never travels on a link: ttd sets it in the
 * copy it records when it delivers a frame to a PE, so that a trace holding
 * both what PEs sent and what they received counts each message once.
 */
#define TT_FRAME_F_DELIVERED 0x01
#define TT_FRAME_F_ALL       0x01

/* A decoded frame; payload points into the decoded buffer. */
typedef struct tt_frame {
	uint8_t dst_mac[6], src_mac[6];
	uint16_t tci;             /* 802.1Q tag control (PCP|DEI|VID), if tagged */
	int tagged;
	uint16_t ethertype;       /* of the payload after any tag */
	uint8_t version, type, vc, hops, flags;
	uint32_t dst, src, seq;
	const uint8_t *payload;   /* what follows the torus header */
	size_t payload_len;       /* bytes of it in the buffer */
} tt_frame;

/* The hello a card sends on every external port (ttd's cabling check). */
typedef struct tt_hello {
	uint32_t node;            /* sender's node id */
	uint8_t card;             /* 0 or 1 */
	uint8_t port;             /* torus port id it was sent from */
	uint16_t reserved;        /* sent as 0; receivers ignore it */
} tt_hello;

/*
 * The credit frame (type 2): ttd's lossless flow control between the two
 * cards at the ends of a link, per VC, counted in bytes (ttd(8)).  Its
 * header has VC 0, hops 0, no flags, the card at the other end of the
 * link as destination (ttd before the credit checks sent TT_PE_BROADCAST,
 * which receivers still take), the sending card as source and, as
 * sequence, the sender's count of credit frames on that port in its
 * epoch.  A receiver takes a credit frame only with that header and only
 * from the neighbour its hellos verified on that port (ttd(8)).  The
 * body, in network byte order:
 *
 *   offset  size  field
 *        0     2  epoch: the sender's, for this link; its byte counts
 *                 `sent` start at 0 with each epoch (never 0)
 *        2     2  peer epoch: the receiver's epoch that the limits below
 *                 count in (0: none heard yet, the limits mean nothing)
 *        4     1  VCs that follow, 1..TT_CREDIT_MAX_VCS
 *        5     2  least: the credit bytes a frame holds at least in the
 *                 sender's input buffers on this link, so the most
 *                 frames they hold (0: TT_CREDIT_MIN_BYTES, which ttd
 *                 before this field understood; else 256 or more)
 *        7     1  reserved, sent as 0 (a body with it set is refused)
 *        8  12*n  per VC v = 0, 1, ...: sent u32 (bytes the sender has
 *                 sent on v this epoch, modulo 2^32), limit u32 (the
 *                 receiver of this frame may send on v until its own
 *                 count reaches it, modulo 2^32), buffer u32 (the bytes
 *                 of the sender's input buffer behind that limit)
 *
 * Every credit frame carries the whole state of the link, so a lost one
 * only delays: the next one (at the latest a periodic one) replaces it.
 */
#define TT_CREDIT_MAX_VCS   32      /* = TT_MAX_VCS */
/* What a frame counts for, in the bytes credits count: its length from the
 * destination MAC to the end of what it carries, without any 802.1Q tag
 * (a NIC may strip one on the way in) and without the FCS, and at least
 * the receiver's least (its credit frames say it; never below
 * TT_CREDIT_MIN_BYTES), so that a buffer of B bytes holds at most
 * B / least frames, what a receiver sizes its rings for.  Both ends of a
 * link count alike: the sender charges what the receiver says. */
#define TT_CREDIT_MIN_BYTES 256
#define TT_CREDIT_HLEN      8
#define TT_CREDIT_VC_LEN    12

typedef struct tt_credit_vc {
	uint32_t sent, limit, buffer;
} tt_credit_vc;

typedef struct tt_credit {
	uint16_t epoch, peer_epoch;
	uint8_t nvcs;
	tt_credit_vc vc[TT_CREDIT_MAX_VCS];
	uint16_t least;           /* decoded: TT_CREDIT_MIN_BYTES for 0 */
} tt_credit;

/* Bytes in front of the payload: Ethernet (+ tag) + torus header. */
size_t tt_frame_hlen(const tt_frame *f);

/*
 * Write f's headers and then payload_len bytes of f->payload into buf.
 * Returns the frame's length, or 0 if it does not fit in bufsz or a field
 * is out of range (version, type, VC, flags): the fields come from the
 * program itself, so either is a bug of the caller, not bad input.
 */
size_t tt_frame_encode(const tt_frame *f, uint8_t *buf, size_t bufsz);

/*
 * Decode len bytes.  Returns 0 for a torus frame, 1 for an Ethernet frame
 * with another EtherType (f->ethertype tells which; nothing else is set
 * beyond the Ethernet header), and a negative value with the reason in err
 * otherwise: TT_FRAME_CUT when the buffer ends inside the headers ("torus
 * header cut at 9 of 16 bytes"), so that a trace reader can blame the
 * capture's snap length, TT_FRAME_BAD when a field is wrong ("version 3,
 * this build reads 1", ...).
 */
#define TT_FRAME_BAD  (-1)
#define TT_FRAME_CUT  (-2)
int tt_frame_decode(tt_frame *f, const uint8_t *buf, size_t len,
    char *err, size_t errsz);

/*
 * A PE's MAC address, one scheme for ttd's TAP interfaces, the frames it
 * delivers and the traces ttsim writes: 02:74:74 (locally administered,
 * unicast) and then the PE id in 24 bits.  The torus header carries the
 * whole id; PEs 2^24 apart share a MAC.  tt_mac_pe() reads the PE back, or
 * gives -1 for an address of another scheme.
 */
void tt_pe_mac(uint32_t pe, uint8_t mac[6]);
int64_t tt_mac_pe(const uint8_t mac[6]);

/* Hello payloads: encode into 8 bytes; decode checks the length. */
void tt_hello_encode(const tt_hello *h, uint8_t out[TT_HELLO_LEN]);
int tt_hello_decode(tt_hello *h, const uint8_t *buf, size_t len,
    char *err, size_t errsz);

/* Credit payloads: encode returns the body's length (0 if it does not fit
 * or nvcs is out of range); decode checks every length and field, the
 * reserved bytes included (0, or -1 with err set).  Whether the values
 * are plausible for a link is the receiver's to judge. */
size_t tt_credit_encode(const tt_credit *c, uint8_t *out, size_t outsz);
int tt_credit_decode(tt_credit *c, const uint8_t *buf, size_t len,
    char *err, size_t errsz);

TT_END_DECLS

#endif
