/*
 * Traces through libpcap (twintorus/trace.h): writing nanosecond pcap,
 * reading pcap and pcapng, the address map of plain captures, and the
 * time-ordered merge of a cluster's files.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <arpa/inet.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errf.h"
#include "twintorus/trace.h"

/* ---- writing ---- */

struct tt_trace_writer {
	pcap_t *dead;
	pcap_dumper_t *dump;
	char *path, *part;      /* part == NULL: written in place */
};

int
tt_trace_create(tt_trace_writer **wp, const char *path, int mode,
    char *err, size_t errsz)
{
	tt_trace_writer *w;
	size_t len = strlen(path);
	int atomic = mode == TT_TRACE_ATOMIC;

	*wp = NULL;
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return tt_errf(err, errsz, "%s: out of memory", path);
	w->path = strdup(path);
	if (atomic && w->path != NULL) {
		w->part = malloc(len + 6);
		if (w->part != NULL)
			snprintf(w->part, len + 6, "%s.part", path);
	}
	if (w->path == NULL || (atomic && w->part == NULL))
		goto nomem;
	w->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB,
	    TT_TRACE_SNAPLEN, PCAP_TSTAMP_PRECISION_NANO);
	if (w->dead == NULL)
		goto nomem;
	/* append: an existing nanosecond Ethernet trace goes on, a missing
	 * one is created (libpcap checks the header it appends to) */
	w->dump = mode == TT_TRACE_APPEND ? pcap_dump_open_append(w->dead,
	    path) : pcap_dump_open(w->dead, atomic ? w->part : path);
	if (w->dump == NULL) {
		tt_errf(err, errsz, "%s: cannot create: %s", path,
		    pcap_geterr(w->dead));
		pcap_close(w->dead);
		free(w->part);
		free(w->path);
		free(w);
		return -1;
	}
	*wp = w;
	return 0;
nomem:
	free(w->part);
	free(w->path);
	free(w);
	return tt_errf(err, errsz, "%s: out of memory", path);
}

int
tt_trace_write(tt_trace_writer *w, uint64_t t_ns, const uint8_t *data,
    uint32_t caplen, uint32_t wirelen)
{
	struct pcap_pkthdr h;

	if (caplen > TT_TRACE_SNAPLEN || caplen > wirelen)
		return -1;
	memset(&h, 0, sizeof(h));
	/* a nanosecond dumper reads tv_usec as nanoseconds */
	h.ts.tv_sec = (time_t)(t_ns / 1000000000u);
	h.ts.tv_usec = (suseconds_t)(t_ns % 1000000000u);
	h.caplen = caplen;
	h.len = wirelen;
	pcap_dump((u_char *)w->dump, &h, data);
	return 0;
}

int
tt_trace_flush(tt_trace_writer *w)
{
	return pcap_dump_flush(w->dump) == 0 ? 0 : -1;
}

int
tt_trace_close(tt_trace_writer *w, char *err, size_t errsz)
{
	int r = 0;

	if (pcap_dump_flush(w->dump) != 0 || ferror(pcap_dump_file(w->dump)))
		r = tt_errf(err, errsz, "%s: write failed: %s", w->path,
		    strerror(errno));
	pcap_dump_close(w->dump);
	pcap_close(w->dead);
	if (w->part != NULL) {
		if (r == 0 && rename(w->part, w->path) != 0)
			r = tt_errf(err, errsz, "%s: cannot rename %s to it: %s",
			    w->path, w->part, strerror(errno));
		if (r != 0)
			unlink(w->part);
	}
	free(w->part);
	free(w->path);
	free(w);
	return r;
}

void
tt_trace_discard(tt_trace_writer *w)
{
	pcap_dump_close(w->dump);
	pcap_close(w->dead);
	unlink(w->part != NULL ? w->part : w->path);
	free(w->part);
	free(w->path);
	free(w);
}

int
tt_trace_write_msg(tt_trace_writer *w, const tt_msg *m)
{
	uint8_t buf[TT_ETH_HLEN + TT_FRAME_HLEN];
	tt_frame f;
	size_t len;

	if (m->bytes > UINT32_MAX - sizeof(buf))
		return -1;
	memset(&f, 0, sizeof(f));
	tt_pe_mac(m->dst, f.dst_mac);
	tt_pe_mac(m->src, f.src_mac);
	f.version = TT_FRAME_VERSION;
	f.type = TT_FRAME_DATA;
	f.dst = m->dst;
	f.src = m->src;
	f.seq = m->seq;
	len = tt_frame_encode(&f, buf, sizeof(buf));
	if (len == 0)
		return -1;
	return tt_trace_write(w, m->t_ns, buf, (uint32_t)len,
	    (uint32_t)(len + m->bytes));
}

/* ---- reading one file ---- */

struct tt_trace_reader {
	pcap_t *p;
	char *path;
	uint64_t recno, truncated;
};

int
tt_trace_open(tt_trace_reader **rp, const char *path, char *err,
    size_t errsz)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	tt_trace_reader *r;
	struct stat st;
	FILE *f;
	int dlt;

	*rp = NULL;
	if (stat(path, &st) != 0)
		return tt_errf(err, errsz, "%s: cannot open: %s", path,
		    strerror(errno));
	if (S_ISDIR(st.st_mode))
		return tt_errf(err, errsz, "%s: is a directory", path);
	if (S_ISREG(st.st_mode) && st.st_size == 0)
		return tt_errf(err, errsz, "%s: empty file (0 bytes), not a "
		    "pcap or pcapng trace", path);
	/* fopen here so that an unreadable file says why in our words */
	f = fopen(path, "rb");
	if (f == NULL)
		return tt_errf(err, errsz, "%s: cannot open: %s", path,
		    strerror(errno));
	ebuf[0] = '\0';
	r = calloc(1, sizeof(*r));
	if (r == NULL || (r->path = strdup(path)) == NULL) {
		free(r);
		fclose(f);
		return tt_errf(err, errsz, "%s: out of memory", path);
	}
	r->p = pcap_fopen_offline_with_tstamp_precision(f,
	    PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (r->p == NULL) {
		/* libpcap closes f on failure */
		free(r->path);
		free(r);
		if (strstr(ebuf, "unknown file format") != NULL)
			return tt_errf(err, errsz, "%s: not a pcap or pcapng "
			    "file (libpcap: %s)", path, ebuf);
		return tt_errf(err, errsz, "%s: cannot read the file header "
		    "(libpcap: %s)", path, ebuf);
	}
	dlt = pcap_datalink(r->p);
	if (dlt != DLT_EN10MB) {
		const char *name = pcap_datalink_val_to_name(dlt);
		const char *desc = pcap_datalink_val_to_description(dlt);

		tt_errf(err, errsz, "%s: link type %s (%s), not Ethernet; "
		    "traces hold Ethernet frames (capture on an Ethernet "
		    "interface, e.g. tcpdump -i eth0, not -i any)", path,
		    name ? name : "unknown", desc ? desc : "?");
		tt_trace_close_reader(r);
		return -1;
	}
	*rp = r;
	return 0;
}

int
tt_trace_read(tt_trace_reader *r, tt_trace_rec *rec, char *err,
    size_t errsz)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	int x;

	if (r->truncated)
		return 0;
	x = pcap_next_ex(r->p, &h, &data);
	if (x == PCAP_ERROR_BREAK)
		return 0;
	r->recno++;
	if (x == PCAP_ERROR) {
		FILE *f = pcap_file(r->p);

		/* the file ended inside the record: keep what came before */
		if (f != NULL && feof(f)) {
			r->truncated = r->recno;
			return 0;
		}
		return tt_errf(err, errsz, "%s: record %" PRIu64 ": damaged "
		    "(libpcap: %s)", r->path, r->recno, pcap_geterr(r->p));
	}
	if (x != 1)
		return tt_errf(err, errsz, "%s: record %" PRIu64 ": cannot "
		    "read (libpcap returned %d)", r->path, r->recno, x);
	rec->t_ns = (uint64_t)h->ts.tv_sec * 1000000000u +
	    (uint64_t)h->ts.tv_usec;
	rec->caplen = h->caplen;
	rec->wirelen = h->len;
	rec->data = data;
	rec->recno = r->recno;
	return 1;
}

uint64_t
tt_trace_truncated(const tt_trace_reader *r)
{
	return r->truncated;
}

void
tt_trace_close_reader(tt_trace_reader *r)
{
	if (r == NULL)
		return;
	pcap_close(r->p);
	free(r->path);
	free(r);
}

/* ---- the address map ---- */

static int
addr_cmp(const void *a, const void *b)
{
	const tt_addrent *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return memcmp(x->bytes, y->bytes, sizeof(x->bytes));
}

int
tt_addrmap_build(tt_addrmap *m, const tt_config *cfg, const tt_net *net,
    FILE *errs)
{
	char err[256];
	size_t i;
	int nerr = 0;

	memset(m, 0, sizeof(*m));
	if (cfg->naddrs == 0)
		return 0;
	m->e = calloc(cfg->naddrs, sizeof(*m->e));
	if (m->e == NULL) {
		fprintf(errs, "%s: out of memory\n", cfg->path);
		return 1;
	}
	for (i = 0; i < cfg->naddrs; i++) {
		const tt_addr *a = &cfg->addrs[i];
		uint32_t pe;

		if (tt_pe_parse(net, a->pe, &pe, err, sizeof(err)) < 0) {
			fprintf(errs, "%s:%lu:%lu: addresses.%s: %s\n",
			    cfg->path, a->line, a->col, a->text, err);
			nerr++;
			continue;
		}
		m->e[m->n].kind = a->kind;
		memcpy(m->e[m->n].bytes, a->bytes, sizeof(a->bytes));
		m->e[m->n].pe = pe;
		if (a->kind == TT_ADDR_MAC)
			m->has_mac = 1;
		else
			m->has_ip = 1;
		m->n++;
	}
	qsort(m->e, m->n, sizeof(*m->e), addr_cmp);
	return nerr;
}

int64_t
tt_addrmap_find(const tt_addrmap *m, int kind, const uint8_t *bytes)
{
	tt_addrent key;
	const tt_addrent *hit;

	memset(&key, 0, sizeof(key));
	key.kind = kind;
	memcpy(key.bytes, bytes, kind == TT_ADDR_IPV6 ? 16 :
	    kind == TT_ADDR_IPV4 ? 4 : 6);
	hit = bsearch(&key, m->e, m->n, sizeof(*m->e), addr_cmp);
	return hit != NULL ? (int64_t)hit->pe : -1;
}

void
tt_addrmap_free(tt_addrmap *m)
{
	free(m->e);
	memset(m, 0, sizeof(*m));
}

/* ---- the merged input ---- */

struct tin_file {
	char *path;
	tt_trace_reader *r;
	tt_trace_stats st;
	tt_msg head;            /* the file's next message */
	int has_head, done;
	uint64_t last_ns;       /* of the previous record */
};

struct tt_trace_in {
	struct tin_file *f;
	size_t nf;
	size_t *heap;           /* files with a head, by (time, file) */
	size_t nheap;
	const tt_addrmap *map;
	uint32_t npes;
	tt_trace_stats total;
};

static int
has_pcap_name(const char *name)
{
	return name[0] != '.' && strstr(name, ".pcap") != NULL &&
	    strstr(name, ".part") == NULL;
}

static int
str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append path, or the trace files of directory path, to in->f. */
static int
add_path(tt_trace_in *in, const char *path, size_t *cap, char *err,
    size_t errsz)
{
	struct stat st;
	char **names = NULL;
	size_t n = 0, ncap = 0, i;
	DIR *d;
	struct dirent *de;
	int r = 0;

	if (stat(path, &st) != 0)
		return tt_errf(err, errsz, "%s: cannot open: %s", path,
		    strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		names = malloc(sizeof(char *));
		if (names == NULL || (names[0] = strdup(path)) == NULL) {
			free(names);
			return tt_errf(err, errsz, "out of memory");
		}
		n = 1;
	} else {
		d = opendir(path);
		if (d == NULL)
			return tt_errf(err, errsz, "%s: cannot open the "
			    "directory: %s", path, strerror(errno));
		while ((de = readdir(d)) != NULL) {
			size_t len;
			char *full;

			if (!has_pcap_name(de->d_name))
				continue;
			if (n == ncap) {
				char **g;

				ncap = ncap ? ncap * 2 : 16;
				g = realloc(names, ncap * sizeof(*g));
				if (g == NULL) {
					r = -1;
					break;
				}
				names = g;
			}
			len = strlen(path) + strlen(de->d_name) + 2;
			full = malloc(len);
			if (full == NULL) {
				r = -1;
				break;
			}
			snprintf(full, len, "%s/%s", path, de->d_name);
			names[n++] = full;
		}
		closedir(d);
		if (r == 0 && n == 0) {
			free(names);
			return tt_errf(err, errsz, "%s: no trace files in the "
			    "directory (names containing .pcap)", path);
		}
		if (r != 0) {
			for (i = 0; i < n; i++)
				free(names[i]);
			free(names);
			return tt_errf(err, errsz, "out of memory");
		}
		qsort(names, n, sizeof(*names), str_cmp);
	}
	for (i = 0; i < n; i++) {
		if (in->nf == *cap) {
			struct tin_file *g;

			*cap = *cap ? *cap * 2 : 8;
			g = realloc(in->f, *cap * sizeof(*g));
			if (g == NULL) {
				r = tt_errf(err, errsz, "out of memory");
				break;
			}
			in->f = g;
		}
		memset(&in->f[in->nf], 0, sizeof(in->f[0]));
		in->f[in->nf++].path = names[i];
		names[i] = NULL;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return r;
}

static void
note_unmapped(tt_trace_stats *st, const char *text)
{
	size_t i;

	st->unmapped++;
	for (i = 0; i < st->nunmapped_addr; i++)
		if (strcmp(st->unmapped_addr[i].text, text) == 0) {
			st->unmapped_addr[i].count++;
			return;
		}
	if (st->nunmapped_addr < TT_TRACE_UNMAPPED_MAX) {
		snprintf(st->unmapped_addr[i].text,
		    sizeof(st->unmapped_addr[i].text), "%s", text);
		st->unmapped_addr[i].count = 1;
		st->nunmapped_addr++;
	} else {
		st->unmapped_other++;
	}
}

static const char *
ethertype_name(uint16_t et)
{
	switch (et) {
	case 0x0800: return "IPv4";
	case 0x0806: return "ARP";
	case 0x86DD: return "IPv6";
	case 0x88CC: return "LLDP";
	default: return "unknown";
	}
}

/*
 * A plain frame through the address map: 1 and m filled, 0 if an address
 * is not mapped (counted), -1 if the frame is too short to say.
 */
static int
plain_msg(tt_trace_in *in, struct tin_file *f, const tt_trace_rec *rec,
    const tt_frame *fr, tt_msg *m, char *err, size_t errsz)
{
	const uint8_t *p = rec->data + TT_ETH_HLEN + (fr->tagged ? TT_VLAN_HLEN : 0);
	size_t left = rec->caplen - (size_t)(p - rec->data);
	int64_t s = -1, d = -1;
	char text[64], a[64], b[64];
	int kind = 0;

	if (in->map->has_ip && fr->ethertype == 0x0800) {
		if (left < 20)
			return tt_errf(err, errsz, "%s: record %" PRIu64 ": IPv4 "
			    "header cut at %zu of 20 bytes (capture with a "
			    "larger snap length)", f->path, rec->recno, left);
		kind = TT_ADDR_IPV4;
		s = tt_addrmap_find(in->map, kind, p + 12);
		d = tt_addrmap_find(in->map, kind, p + 16);
		inet_ntop(AF_INET, p + 12, a, sizeof(a));
		inet_ntop(AF_INET, p + 16, b, sizeof(b));
	} else if (in->map->has_ip && fr->ethertype == 0x86DD) {
		if (left < 40)
			return tt_errf(err, errsz, "%s: record %" PRIu64 ": IPv6 "
			    "header cut at %zu of 40 bytes (capture with a "
			    "larger snap length)", f->path, rec->recno, left);
		kind = TT_ADDR_IPV6;
		s = tt_addrmap_find(in->map, kind, p + 8);
		d = tt_addrmap_find(in->map, kind, p + 24);
		inet_ntop(AF_INET6, p + 8, a, sizeof(a));
		inet_ntop(AF_INET6, p + 24, b, sizeof(b));
	}
	if ((s < 0 || d < 0) && in->map->has_mac) {
		int64_t ms = tt_addrmap_find(in->map, TT_ADDR_MAC, fr->src_mac);
		int64_t md = tt_addrmap_find(in->map, TT_ADDR_MAC, fr->dst_mac);

		if (ms >= 0 && md >= 0) {
			s = ms;
			d = md;
		} else if (kind == 0) {
			const uint8_t *u = ms < 0 ? fr->src_mac : fr->dst_mac;

			snprintf(a, sizeof(a), "%02x:%02x:%02x:%02x:%02x:%02x",
			    u[0], u[1], u[2], u[3], u[4], u[5]);
			snprintf(text, sizeof(text), "%s", a);
			note_unmapped(&f->st, text);
			return 0;
		}
	}
	if (kind == 0 && (s < 0 || d < 0)) {
		snprintf(text, sizeof(text), "EtherType 0x%04x (%s)",
		    fr->ethertype, ethertype_name(fr->ethertype));
		note_unmapped(&f->st, text);
		return 0;
	}
	if (s < 0 || d < 0) {
		snprintf(text, sizeof(text), "%s", s < 0 ? a : b);
		note_unmapped(&f->st, text);
		return 0;
	}
	m->src = (uint32_t)s;
	m->dst = (uint32_t)d;
	m->seq = 0;
	m->bytes = rec->wirelen;
	f->st.plain++;
	return 1;
}

/* Read file f up to its next message; 0 when it has none left. */
static int
file_advance(tt_trace_in *in, struct tin_file *f, size_t fi, char *err,
    size_t errsz)
{
	tt_trace_rec rec;
	tt_frame fr;
	char ferr[160];
	int x;

	f->has_head = 0;
	while (!f->done) {
		x = tt_trace_read(f->r, &rec, err, errsz);
		if (x < 0)
			return -1;
		if (x == 0) {
			f->done = 1;
			f->st.truncated = tt_trace_truncated(f->r);
			break;
		}
		f->st.records++;
		if (rec.t_ns < f->last_ns) {
			f->st.backwards++;
			rec.t_ns = f->last_ns;
		}
		f->last_ns = rec.t_ns;
		x = tt_frame_decode(&fr, rec.data, rec.caplen, ferr,
		    sizeof(ferr));
		if (x < 0)
			return tt_errf(err, errsz, "%s: record %" PRIu64 ": %s%s",
			    f->path, rec.recno, ferr, x == TT_FRAME_CUT &&
			    rec.caplen < rec.wirelen ?
			    " (the capture kept too few bytes of it: use a "
			    "snap length of at least 34)" : "");
		memset(&f->head, 0, sizeof(f->head));
		f->head.t_ns = rec.t_ns;
		f->head.file = (uint32_t)fi;
		f->head.recno = rec.recno;
		if (x == 1) {
			if (in->map == NULL || in->map->n == 0)
				return tt_errf(err, errsz, "%s: record %" PRIu64
				    ": not a torus frame (EtherType 0x%04x, %s); "
				    "to replay a plain capture, map its "
				    "addresses to PEs in the YAML file "
				    "(addresses:)", f->path, rec.recno,
				    fr.ethertype, ethertype_name(fr.ethertype));
			x = plain_msg(in, f, &rec, &fr, &f->head, err, errsz);
			if (x < 0)
				return -1;
			if (x == 0)
				continue;
		} else if (fr.type != TT_FRAME_DATA) {
			f->st.hello++;	/* a hello or a credit: link control */
			continue;
		} else if (fr.flags & TT_FRAME_F_DELIVERED) {
			f->st.delivered++;
			continue;
		} else {
			size_t h = tt_frame_hlen(&fr);

			f->head.src = fr.src;
			f->head.dst = fr.dst;
			f->head.seq = fr.seq;
			f->head.bytes = rec.wirelen > h ? rec.wirelen - h : 0;
		}
		if (in->npes > 0 && (f->head.src >= in->npes ||
		    f->head.dst >= in->npes))
			return tt_errf(err, errsz, "%s: record %" PRIu64 ": %s "
			    "PE %" PRIu32 " is outside the network (%" PRIu32
			    " PEs, ids 0..%" PRIu32 "); replay on a network of "
			    "the trace's size", f->path, rec.recno,
			    f->head.src >= in->npes ? "source" : "destination",
			    f->head.src >= in->npes ? f->head.src : f->head.dst,
			    in->npes, in->npes - 1);
		if (f->st.messages == 0)
			f->st.first_ns = rec.t_ns;
		f->st.last_ns = rec.t_ns;
		f->st.messages++;
		f->st.bytes += f->head.bytes;
		f->has_head = 1;
		return 1;
	}
	return 0;
}

static int
heap_less(const tt_trace_in *in, size_t a, size_t b)
{
	const tt_msg *x = &in->f[a].head, *y = &in->f[b].head;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns;
	return a < b;
}

static void
heap_down(tt_trace_in *in, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i, t;

		if (l < in->nheap && heap_less(in, in->heap[l], in->heap[m]))
			m = l;
		if (r < in->nheap && heap_less(in, in->heap[r], in->heap[m]))
			m = r;
		if (m == i)
			return;
		t = in->heap[i];
		in->heap[i] = in->heap[m];
		in->heap[m] = t;
		i = m;
	}
}

int
tt_trace_in_open(tt_trace_in **inp, const char *const *paths, size_t npaths,
    const tt_addrmap *map, uint32_t npes, char *err, size_t errsz)
{
	tt_trace_in *in;
	size_t cap = 0, i;
	int x;

	*inp = NULL;
	if (npaths == 0)
		return tt_errf(err, errsz, "no trace files given");
	in = calloc(1, sizeof(*in));
	if (in == NULL)
		return tt_errf(err, errsz, "out of memory");
	in->map = map;
	in->npes = npes;
	for (i = 0; i < npaths; i++)
		if (add_path(in, paths[i], &cap, err, errsz) < 0)
			goto fail;
	in->heap = calloc(in->nf, sizeof(*in->heap));
	if (in->heap == NULL) {
		tt_errf(err, errsz, "out of memory");
		goto fail;
	}
	for (i = 0; i < in->nf; i++)
		if (tt_trace_open(&in->f[i].r, in->f[i].path, err, errsz) < 0)
			goto fail;
	for (i = 0; i < in->nf; i++) {
		x = file_advance(in, &in->f[i], i, err, errsz);
		if (x < 0)
			goto fail;
		if (x > 0)
			in->heap[in->nheap++] = i;
	}
	for (i = in->nheap / 2; i-- > 0; )
		heap_down(in, i);
	*inp = in;
	return 0;
fail:
	tt_trace_in_close(in);
	return -1;
}

int
tt_trace_in_next(tt_trace_in *in, tt_msg *m, char *err, size_t errsz)
{
	size_t fi;
	int x;

	if (in->nheap == 0)
		return 0;
	fi = in->heap[0];
	*m = in->f[fi].head;
	x = file_advance(in, &in->f[fi], fi, err, errsz);
	if (x < 0)
		return -1;
	if (x == 0)
		in->heap[0] = in->heap[--in->nheap];
	heap_down(in, 0);
	return 1;
}

size_t
tt_trace_in_nfiles(const tt_trace_in *in)
{
	return in->nf;
}

const char *
tt_trace_in_path(const tt_trace_in *in, size_t i)
{
	return in->f[i].path;
}

const tt_trace_stats *
tt_trace_in_stats(tt_trace_in *in, size_t i)
{
	tt_trace_stats *t = &in->total;
	size_t k, j, a;

	if (i < in->nf)
		return &in->f[i].st;
	memset(t, 0, sizeof(*t));
	for (k = 0; k < in->nf; k++) {
		const tt_trace_stats *s = &in->f[k].st;

		if (s->messages > 0) {
			if (t->messages == 0 || s->first_ns < t->first_ns)
				t->first_ns = s->first_ns;
			if (s->last_ns > t->last_ns)
				t->last_ns = s->last_ns;
		}
		t->records += s->records;
		t->messages += s->messages;
		t->bytes += s->bytes;
		t->plain += s->plain;
		t->hello += s->hello;
		t->delivered += s->delivered;
		t->unmapped += s->unmapped;
		t->backwards += s->backwards;
		t->unmapped_other += s->unmapped_other;
		if (s->truncated)
			t->truncated++;
		for (j = 0; j < s->nunmapped_addr; j++) {
			for (a = 0; a < t->nunmapped_addr; a++)
				if (strcmp(t->unmapped_addr[a].text,
				    s->unmapped_addr[j].text) == 0)
					break;
			if (a < t->nunmapped_addr) {
				t->unmapped_addr[a].count += s->unmapped_addr[j].count;
			} else if (a < TT_TRACE_UNMAPPED_MAX) {
				t->unmapped_addr[a] = s->unmapped_addr[j];
				t->nunmapped_addr++;
			} else {
				t->unmapped_other += s->unmapped_addr[j].count;
			}
		}
	}
	return t;
}

void
tt_trace_in_warnings(const tt_trace_in *in, FILE *out, const char *prefix)
{
	size_t i, j;

	for (i = 0; i < in->nf; i++) {
		const tt_trace_stats *s = &in->f[i].st;

		if (s->truncated)
			fprintf(out, "%s%s: record %" PRIu64 ": truncated (the "
			    "file ends inside it); using the %" PRIu64
			    " records before it\n", prefix, in->f[i].path,
			    s->truncated, s->truncated - 1);
		if (s->backwards)
			fprintf(out, "%s%s: %" PRIu64 " records older than the "
			    "record before them, taken at that record's time\n",
			    prefix, in->f[i].path, s->backwards);
		if (s->unmapped) {
			fprintf(out, "%s%s: %" PRIu64 " frames skipped: an "
			    "address is not in addresses:", prefix,
			    in->f[i].path, s->unmapped);
			for (j = 0; j < s->nunmapped_addr; j++)
				fprintf(out, "%s %s (%" PRIu64 ")", j ? "," : "",
				    s->unmapped_addr[j].text,
				    s->unmapped_addr[j].count);
			if (s->unmapped_other)
				fprintf(out, ", others (%" PRIu64 ")",
				    s->unmapped_other);
			fputc('\n', out);
		}
	}
}

void
tt_trace_in_close(tt_trace_in *in)
{
	size_t i;

	if (in == NULL)
		return;
	for (i = 0; i < in->nf; i++) {
		tt_trace_close_reader(in->f[i].r);
		free(in->f[i].path);
	}
	free(in->f);
	free(in->heap);
	free(in);
}
