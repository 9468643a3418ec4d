/*
 * Reading traces for the inference (twintorus/infer.h): every file's
 * records merged by time, each turned into an event (a frame sent or a
 * delivery copy, its class and connection), fed to the rules (infer.c).
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

/* ---- reading traces ---- */

struct rfile {
	tt_trace_reader *r;
	char *path;
	uint64_t last_ns;
	tt_infer_ev head;
	int has_head, done;
};

struct infer_reader {
	struct rfile *f;
	size_t nf, *heap, nheap;
	uint32_t *plain_seq;    /* per source PE */
};

void
infer_reader_free(struct infer_reader *rd)
{
	size_t i;

	if (rd == NULL)
		return;
	for (i = 0; i < rd->nf; i++) {
		tt_trace_close_reader(rd->f[i].r);
		free(rd->f[i].path);
	}
	free(rd->f);
	free(rd->heap);
	free(rd->plain_seq);
	free(rd);
}

/* A file, or a directory's trace files, in name order (as
 * tt_trace_in_open() takes them). */
static int
add_path(struct infer_reader *rd, const char *path, char *err, size_t errsz)
{
	char **names;
	size_t n, i;
	int r = 0;

	if (trace_files(path, &names, &n, 1, err, errsz) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		struct rfile *g;

		if (r == 0 && (g = realloc(rd->f, (rd->nf + 1) * sizeof(*g))) !=
		    NULL) {
			rd->f = g;
			memset(&rd->f[rd->nf], 0, sizeof(*g));
			rd->f[rd->nf++].path = names[i];
			continue;
		}
		if (r == 0)
			r = tt_errf(err, errsz, "out of memory");
		free(names[i]);
	}
	free(names);
	return r;
}

/* The PEs of a plain frame through the address map: 1, or 0 unmapped. */
static int
plain_pes(const tt_addrmap *map, const uint8_t *p, size_t len,
    uint32_t *src, uint32_t *dst)
{
	size_t off = TT_ETH_HLEN;
	uint16_t et = (uint16_t)(p[12] << 8 | p[13]);
	int64_t s = -1, d = -1;

	if (et == TT_ETHERTYPE_VLAN && len >= 18) {
		et = (uint16_t)(p[16] << 8 | p[17]);
		off += TT_VLAN_HLEN;
	}
	if (map->has_ip && et == 0x0800 && len >= off + 20) {
		s = tt_addrmap_find(map, TT_ADDR_IPV4, p + off + 12);
		d = tt_addrmap_find(map, TT_ADDR_IPV4, p + off + 16);
	} else if (map->has_ip && et == 0x86DD && len >= off + 40) {
		s = tt_addrmap_find(map, TT_ADDR_IPV6, p + off + 8);
		d = tt_addrmap_find(map, TT_ADDR_IPV6, p + off + 24);
	}
	if ((s < 0 || d < 0) && map->has_mac) {
		s = tt_addrmap_find(map, TT_ADDR_MAC, p + 6);
		d = tt_addrmap_find(map, TT_ADDR_MAC, p);
	}
	if (s < 0 || d < 0)
		return 0;
	*src = (uint32_t)s;
	*dst = (uint32_t)d;
	return 1;
}

/* One record as an event: 1, 0 if it is none (hello, unmapped), -1. */
static int
record_event(tt_infer *inf, size_t fi, const tt_trace_rec *rec,
    tt_infer_ev *ev, char *err, size_t errsz)
{
	struct infer_reader *rd = inf->rd;
	const char *path = rd->f[fi].path;
	tt_frame fr;
	char ferr[160];
	int x;

	memset(ev, 0, sizeof(*ev));
	x = tt_frame_decode(&fr, rec->data, rec->caplen, ferr, sizeof(ferr));
	if (x < 0)
		return tt_errf(err, errsz, "%s: record %" PRIu64 ": %s", path,
		    rec->recno, ferr);
	if (x == 1) {
		if (inf->p.map == NULL || inf->p.map->n == 0)
			return tt_errf(err, errsz, "%s: record %" PRIu64 ": not a "
			    "torus frame (EtherType 0x%04x); to read a plain "
			    "capture, map its addresses to PEs in the YAML file "
			    "(addresses:)", path, rec->recno, fr.ethertype);
		if (!plain_pes(inf->p.map, rec->data, rec->caplen, &ev->src,
		    &ev->dst)) {
			inf->st.unmapped++;
			return 0;
		}
		ev->seq = rd->plain_seq[ev->src]++;
		ev->bytes = rec->wirelen;
		ev->arrives = 1;
		inf->st.plain++;
		tt_infer_classify(rec->data, rec->caplen, ev);
	} else if (fr.type == TT_FRAME_HELLO) {
		inf->st.hello++;
		return 0;
	} else {
		size_t h = tt_frame_hlen(&fr);

		ev->src = fr.src;
		ev->dst = fr.dst;
		ev->seq = fr.seq;
		ev->delivered = (fr.flags & TT_FRAME_F_DELIVERED) != 0;
		ev->bytes = rec->wirelen > h ? rec->wirelen - h : 0;
		tt_infer_classify(fr.payload, fr.payload_len, ev);
	}
	if (ev->src >= inf->p.npes || ev->dst >= inf->p.npes)
		return tt_errf(err, errsz, "%s: record %" PRIu64 ": PE %" PRIu32
		    " is outside the network (%" PRIu32 " PEs); give the "
		    "network the trace was recorded on", path, rec->recno,
		    ev->src >= inf->p.npes ? ev->src : ev->dst, inf->p.npes);
	ev->clock = (uint32_t)fi;
	ev->t_ns = rec->t_ns;
	return 1;
}

/* File fi's next event into its head; 0 when it has none left. */
static int
file_next(tt_infer *inf, size_t fi, char *err, size_t errsz)
{
	struct rfile *f = &inf->rd->f[fi];
	tt_trace_rec rec;
	int x;

	f->has_head = 0;
	while (!f->done) {
		if ((x = tt_trace_read(f->r, &rec, err, errsz)) < 0)
			return -1;
		if (x == 0) {
			f->done = 1;
			if (tt_trace_truncated(f->r))
				inf->st.truncated++;
			break;
		}
		inf->st.records++;
		if (rec.t_ns < f->last_ns) {
			inf->st.backwards++;
			rec.t_ns = f->last_ns;
		}
		f->last_ns = rec.t_ns;
		if ((x = record_event(inf, fi, &rec, &f->head, err, errsz)) < 0)
			return -1;
		if (x > 0) {
			f->has_head = 1;
			return 1;
		}
	}
	return 0;
}

static int
head_less(const struct infer_reader *rd, size_t a, size_t b)
{
	const tt_infer_ev *x = &rd->f[a].head, *y = &rd->f[b].head;

	return x->t_ns != y->t_ns ? x->t_ns < y->t_ns : a < b;
}

static void
heap_down(struct infer_reader *rd, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i, t;

		if (l < rd->nheap && head_less(rd, rd->heap[l], rd->heap[m]))
			m = l;
		if (l + 1 < rd->nheap && head_less(rd, rd->heap[l + 1], rd->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		t = rd->heap[i];
		rd->heap[i] = rd->heap[m];
		rd->heap[m] = t;
		i = m;
	}
}

int
tt_infer_open(tt_infer **ip, const char *const *paths, size_t npaths,
    const tt_infer_params *p, char *err, size_t errsz)
{
	tt_infer *inf;
	struct infer_reader *rd;
	size_t i;
	int x;

	if (tt_infer_create(ip, p, err, errsz) < 0)
		return -1;
	inf = *ip;
	if ((rd = inf->rd = calloc(1, sizeof(*rd))) == NULL ||
	    (rd->plain_seq = calloc(p->npes, sizeof(uint32_t))) == NULL) {
		tt_errf(err, errsz, "out of memory");
		goto fail;
	}
	for (i = 0; i < npaths; i++)
		if (add_path(rd, paths[i], err, errsz) < 0)
			goto fail;
	if (rd->nf == 0 || (rd->heap = calloc(rd->nf, sizeof(size_t))) == NULL) {
		tt_errf(err, errsz, rd->nf == 0 ? "no trace files given" :
		    "out of memory");
		goto fail;
	}
	for (i = 0; i < rd->nf; i++)
		if (tt_trace_open(&rd->f[i].r, rd->f[i].path, err, errsz) < 0)
			goto fail;
	for (i = 0; i < rd->nf; i++) {
		if ((x = file_next(inf, i, err, errsz)) < 0)
			goto fail;
		if (x > 0)
			rd->heap[rd->nheap++] = i;
	}
	for (i = rd->nheap / 2; i-- > 0; )
		heap_down(rd, i);
	return 0;
fail:
	tt_infer_free(inf);
	*ip = NULL;
	return -1;
}

int
tt_infer_next(tt_infer *inf, tt_dep *d, char *err, size_t errsz)
{
	struct infer_reader *rd = inf->rd;
	size_t fi;
	int x;

	for (;;) {
		if (tt_infer_pop(inf, d))
			return 1;
		if (inf->failed)
			return tt_errf(err, errsz, "out of memory inferring the "
			    "dependencies (%" PRIu32 " messages held)", inf->held);
		if (rd->nheap == 0) {
			if (inf->finished)
				return 0;
			tt_infer_end(inf);
			continue;
		}
		fi = rd->heap[0];
		if (tt_infer_feed(inf, &rd->f[fi].head) < 0)
			continue;       /* failed: said above */
		if ((x = file_next(inf, fi, err, errsz)) < 0)
			return -1;
		if (x == 0)
			rd->heap[0] = rd->heap[--rd->nheap];
		heap_down(rd, 0);
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
