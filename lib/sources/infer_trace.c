/*
 * Reading traces for the inference (twintorus/infer.h): the records of
 * the merged reader (formats/trace_int.h), each turned into an event (a
 * frame sent or a delivery copy, its class and connection), fed to the
 * rules (infer.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "support/errf.h"
#include "sources/infer_int.h"
#include "formats/trace_int.h"

/* ---- frames ---- */

/* FNV-1a over a connection's addresses and ports, one way. */
static uint64_t
conn_hash(const uint8_t *a, const uint8_t *b, size_t alen,
    const uint8_t *pa, const uint8_t *pb)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t k;

	for (k = 0; k < alen; k++)
		h = (h ^ a[k]) * 0x100000001b3ull;
	for (k = 0; k < alen; k++)
		h = (h ^ b[k]) * 0x100000001b3ull;
	for (k = 0; k < 2; k++)
		h = (h ^ pa[k]) * 0x100000001b3ull;
	for (k = 0; k < 2; k++)
		h = (h ^ pb[k]) * 0x100000001b3ull;
	return h;
}

void
tt_infer_classify(const uint8_t *p, size_t len, tt_infer_ev *ev)
{
	size_t off = TT_ETH_HLEN, ihl, tcp, alen, doff;
	uint64_t total;
	uint16_t et;
	uint8_t flags;

	ev->cls = TT_INFER_MSG;
	ev->flow = ev->rflow = 0;
	ev->tcp_seq = ev->tcp_len = 0;
	ev->tcp_psh = 0;
	if (len < TT_ETH_HLEN)
		return;
	et = (uint16_t)(p[12] << 8 | p[13]);
	if (et == TT_ETHERTYPE_VLAN) {
		if (len < TT_ETH_HLEN + TT_VLAN_HLEN)
			return;
		et = (uint16_t)(p[16] << 8 | p[17]);
		off += TT_VLAN_HLEN;
	}
	if (et == 0x0806) {
		ev->cls = TT_INFER_ARP;
		return;
	}
	if (et == 0x0800) {
		if (len < off + 20 || (ihl = (size_t)(p[off] & 15) * 4) < 20 ||
		    p[off + 9] != 6)
			return;
		total = (uint64_t)(p[off + 2] << 8 | p[off + 3]);
		tcp = off + ihl;
		alen = 4;
	} else if (et == 0x86DD) {
		if (len < off + 40)
			return;
		if (p[off + 6] == 58) {         /* ICMPv6 */
			if (len > off + 40 && p[off + 40] >= 133 &&
			    p[off + 40] <= 137)
				ev->cls = TT_INFER_ND;
			return;
		}
		if (p[off + 6] != 6)
			return;
		ihl = 40;
		total = 40 + (uint64_t)(p[off + 4] << 8 | p[off + 5]);
		tcp = off + 40;
		alen = 16;
	} else {
		return;
	}
	if (len < tcp + 14)
		return;
	doff = (size_t)(p[tcp + 12] >> 4) * 4;
	flags = p[tcp + 13];
	ev->flow = conn_hash(p + off + (alen == 4 ? 12 : 8),
	    p + off + (alen == 4 ? 16 : 24), alen, p + tcp, p + tcp + 2);
	ev->rflow = conn_hash(p + off + (alen == 4 ? 16 : 24),
	    p + off + (alen == 4 ? 12 : 8), alen, p + tcp + 2, p + tcp);
	ev->tcp_psh = (flags & 0x08) != 0;
	if (total > ihl + doff) {
		ev->cls = TT_INFER_TCP_DATA;
		ev->tcp_seq = (uint32_t)p[tcp + 4] << 24 |
		    (uint32_t)p[tcp + 5] << 16 | (uint32_t)p[tcp + 6] << 8 |
		    p[tcp + 7];
		ev->tcp_len = (uint32_t)(total - ihl - doff);
	}
	else if (flags & 0x07)          /* FIN, SYN, RST */
		ev->cls = TT_INFER_TCP_CTL;
	else
		ev->cls = TT_INFER_TCP_ACK;
}

/* ---- reading traces: the merged reader's records, as events ---- */

struct infer_reader {
	trace_merge *mg;
	uint32_t *plain_seq;    /* per source PE */
	int ended;              /* the merge has no record left */
};

void
infer_reader_free(struct infer_reader *rd)
{
	if (rd == NULL)
		return;
	trace_merge_close(rd->mg);
	free(rd->plain_seq);
	free(rd);
}

/* One record as an event: 1, 0 if it is none (hello, unmapped), -1. */
static int
record_event(tt_infer *inf, const trace_item *it, tt_infer_ev *ev,
    char *err, size_t errsz)
{
	const tt_trace_rec *rec = &it->rec;
	int x;

	memset(ev, 0, sizeof(*ev));
	if (it->plain) {
		if (inf->p.map == NULL || inf->p.map->n == 0)
			return tt_errf(err, errsz, "%s: record %" PRIu64 ": not a "
			    "torus frame (EtherType 0x%04x); to read a plain "
			    "capture, map its addresses to PEs in the YAML file "
			    "(addresses:)", it->name, rec->recno,
			    it->fr.ethertype);
		x = trace_plain_pes(inf->p.map, it, &ev->src, &ev->dst, NULL, 0,
		    err, errsz);
		if (x < 0)
			return -1;
		if (x == 0) {
			inf->st.unmapped++;
			return 0;
		}
		ev->seq = inf->rd->plain_seq[ev->src]++;
		ev->bytes = rec->wirelen;
		ev->arrives = 1;
		inf->st.plain++;
		tt_infer_classify(rec->data, rec->caplen, ev);
	} else if (it->fr.type != TT_FRAME_DATA) {
		inf->st.hello++;        /* a hello or a credit: link control */
		return 0;
	} else {
		size_t h = tt_frame_hlen(&it->fr);

		ev->src = it->fr.src;
		ev->dst = it->fr.dst;
		ev->seq = it->fr.seq;
		ev->delivered = (it->fr.flags & TT_FRAME_F_DELIVERED) != 0;
		ev->bytes = rec->wirelen > h ? rec->wirelen - h : 0;
		tt_infer_classify(it->fr.payload, it->fr.payload_len, ev);
	}
	if (ev->src >= inf->p.npes || ev->dst >= inf->p.npes)
		return tt_errf(err, errsz, "%s: record %" PRIu64 ": PE %" PRIu32
		    " is outside the network (%" PRIu32 " PEs); give the "
		    "network the trace was recorded on", it->name, rec->recno,
		    ev->src >= inf->p.npes ? ev->src : ev->dst, inf->p.npes);
	ev->clock = (uint32_t)it->file;
	ev->t_ns = rec->t_ns;
	return 1;
}

/* The next event of the merge into ev: 1, 0 at the end, -1. */
static int
next_event(tt_infer *inf, tt_infer_ev *ev, char *err, size_t errsz)
{
	struct infer_reader *rd = inf->rd;
	trace_item it;
	size_t i;
	int x;

	for (;;) {
		if ((x = trace_merge_next(rd->mg, &it, err, errsz)) < 0)
			return -1;
		if (x == 0) {
			if (!rd->ended)
				for (i = 0; i < trace_merge_nfiles(rd->mg); i++)
					if (trace_merge_counts(rd->mg, i)->truncated)
						inf->st.truncated++;
			rd->ended = 1;
			return 0;
		}
		inf->st.records++;
		inf->st.backwards += (uint64_t)it.backwards;
		if ((x = record_event(inf, &it, ev, err, errsz)) != 0)
			return x;
	}
}

int
tt_infer_open(tt_infer **ip, const char *const *paths, size_t npaths,
    const tt_infer_params *p, char *err, size_t errsz)
{
	tt_infer *inf;
	struct infer_reader *rd;

	if (tt_infer_create(ip, p, err, errsz) < 0)
		return -1;
	inf = *ip;
	if ((rd = inf->rd = calloc(1, sizeof(*rd))) == NULL ||
	    (rd->plain_seq = calloc(p->npes, sizeof(uint32_t))) == NULL) {
		tt_errf(err, errsz, "out of memory");
		goto fail;
	}
	if (trace_merge_open(&rd->mg, paths, npaths, err, errsz) < 0)
		goto fail;
	return 0;
fail:
	tt_infer_free(inf);
	*ip = NULL;
	return -1;
}

int
tt_infer_next(tt_infer *inf, tt_dep *d, char *err, size_t errsz)
{
	tt_infer_ev ev;
	int x;

	for (;;) {
		if (tt_infer_pop(inf, d))
			return 1;
		if (inf->failed)
			return tt_errf(err, errsz, "out of memory inferring the "
			    "dependencies (%" PRIu32 " messages held)", inf->held);
		if ((x = next_event(inf, &ev, err, errsz)) < 0)
			return -1;
		if (x == 0) {
			if (inf->finished)
				return 0;
			tt_infer_end(inf);
			continue;
		}
		(void)tt_infer_feed(inf, &ev);  /* a failure: said above */
	}
}

static int
infer_stream_next(void *ctx, tt_dep *d, char *err, size_t errsz)
{
	return tt_infer_next(ctx, d, err, errsz);
}

tt_dep_stream
tt_infer_stream(tt_infer *inf)
{
	tt_dep_stream s = {infer_stream_next, inf};

	return s;
}
