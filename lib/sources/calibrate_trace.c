/*
 * Observations for the calibration (twintorus/calibrate.h) from ttd's
 * recordings: sends matched to delivery copies by (source, sequence),
 * round trips, back-to-back transfers, and the port traces' first
 * records.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support/errf.h"
#include "formats/trace_int.h"
#include "support/u64map.h"
#include "twintorus/calibrate.h"
#include "twintorus/infer.h"
#include "twintorus/trace.h"

int
tt_calib_hops(const tt_net *net, uint32_t src, uint32_t dst)
{
	uint32_t card = src;
	int in_port = TT_PORT_NIC, h;

	for (h = 0; h < 4 * TT_MAX_K * TT_MAX_DIMS + 8; h++) {
		tt_hop hop = tt_route(net, card, dst, in_port);

		if (hop.port == TT_PORT_NIC)
			return h;
		card = tt_link_peer(net, card, hop.port, &in_port);
	}
	return -1;
}

/* A record of one kind. */
struct rec {
	uint64_t t;
	uint64_t bytes;
	uint32_t src, dst, seq;
	uint32_t clock;         /* the node whose clock t is on */
	uint8_t hops;
	uint8_t cls;            /* enum tt_infer_cls of what it carries */
	uint32_t app;           /* its payload: TCP's, else what it carries */
	uint64_t flow, rflow;   /* TCP: its connection, both directions */
};

struct frame {
	uint64_t t_send, t_dlv;
	double bytes;
	uint32_t src, dst, cs, cd;
	uint32_t id;            /* its index before sorting */
	int hops;
};

struct scope {
	char **names;
	size_t n;
	char **hosts;           /* per file: its clock's name */
};

struct vec {
	struct rec *r;
	size_t n, cap;
};

static int
vec_push(struct vec *v, const struct rec *r)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 1024;
		struct rec *g = realloc(v->r, cap * sizeof(*g));

		if (g == NULL)
			return -1;
		v->r = g;
		v->cap = cap;
	}
	v->r[v->n++] = *r;
	return 0;
}

/* The node a trace file belongs to, by ttd's names: HOST-pe.pcap and
 * HOST-cCARD-PORT.pcap (with a rotation number after them); a file
 * named otherwise is a clock of its own. */
static char *
host_of(const char *path)
{
	const char *b = strrchr(path, '/'), *p;
	size_t len, i;

	b = b != NULL ? b + 1 : path;
	len = strlen(b);
	if ((p = strstr(b, "-pe.pcap")) != NULL)
		len = (size_t)(p - b);
	else
		for (i = len; i-- > 0;)
			if (b[i] == '-' && i + 3 < len && b[i + 1] == 'c' &&
			    (b[i + 2] == '0' || b[i + 2] == '1') &&
			    b[i + 3] == '-') {
				len = i;
				break;
			}
	return strndup(b, len);
}

static int
frame_cmp(const void *a, const void *b)
{
	const struct frame *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return x->t_send < y->t_send ? -1 : x->t_send > y->t_send;
}

static int
grow(void **p, size_t *cap, size_t need, size_t size)
{
	void *g;
	size_t c = *cap ? *cap : 256;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	if ((g = realloc(*p, c * size)) == NULL)
		return -1;
	*p = g;
	*cap = c;
	return 0;
}

/* A TCP data frame sent: what it says of the framing of a message. */
static void
tcp_frame(tt_calib_data *d, const struct rec *e)
{
	if (d->tcp_frames++ == 0 || e->app < d->tcp_payload_min)
		d->tcp_payload_min = e->app;
	if (e->app > d->tcp_payload_max)
		d->tcp_payload_max = e->app;
	if (e->bytes > e->app && e->bytes - e->app < TT_CALIB_HDR_MAX)
		d->tcp_hdr[e->bytes - e->app]++;
}

/* Every record of the scope's files, sorted into sends, deliveries and
 * port records. */
static int
read_scope(tt_calib_data *d, const struct scope *s, const tt_net *net,
    struct vec *snd, struct vec *dlv, struct vec *prt, char *err,
    size_t errsz)
{
	size_t i, k;

	for (i = 0; i < s->n; i++) {
		tt_trace_reader *r;
		tt_trace_rec rec;
		uint32_t clock = (uint32_t)i;
		int x;

		/* files of one node share its clock */
		for (k = 0; k < i; k++)
			if (strcmp(s->hosts[k], s->hosts[i]) == 0) {
				clock = (uint32_t)k;
				break;
			}
		if (tt_trace_open(&r, s->names[i], err, errsz) < 0)
			return -1;
		d->files++;
		while ((x = tt_trace_read(r, &rec, err, errsz)) > 0) {
			char why[160];
			tt_frame f;
			struct rec e;
			int dx;

			d->records++;
			dx = tt_frame_decode(&f, rec.data, rec.caplen, why,
			    sizeof(why));
			if (dx == 1 || (dx == 0 && f.type != TT_FRAME_DATA))
				continue;
			if (dx < 0) {
				tt_trace_close_reader(r);
				return tt_errf(err, errsz, "%s: record %" PRIu64
				    ": %s", tt_trace_name(s->names[i]),
				    rec.recno, why);
			}
			if (f.src >= net->ncards || f.dst >= net->ncards) {
				tt_trace_close_reader(r);
				return tt_errf(err, errsz, "%s: record %" PRIu64
				    ": %s PE %" PRIu32 " is out of range: the "
				    "cluster file has %" PRIu32 " PEs (is it "
				    "the recording's?)",
				    tt_trace_name(s->names[i]), rec.recno,
				    f.src >= net->ncards ? "source" :
				    "destination", f.src >= net->ncards ?
				    f.src : f.dst, net->ncards);
			}
			memset(&e, 0, sizeof(e));
			{
				tt_infer_ev ev;

				memset(&ev, 0, sizeof(ev));
				tt_infer_classify(f.payload, f.payload_len,
				    &ev);
				e.cls = (uint8_t)ev.cls;
				e.flow = ev.flow;
				e.rflow = ev.rflow;
				e.app = ev.cls == TT_INFER_TCP_DATA ?
				    ev.tcp_len : (uint32_t)(rec.wirelen -
				    tt_frame_hlen(&f));
			}
			e.t = rec.t_ns;
			e.bytes = rec.wirelen - tt_frame_hlen(&f);
			e.src = f.src;
			e.dst = f.dst;
			e.seq = f.seq;
			e.clock = clock;
			e.hops = f.hops;
			if (f.flags & TT_FRAME_F_DELIVERED) {
				d->deliveries++;
				x = vec_push(dlv, &e);
			} else if (f.hops == 0) {
				d->sends++;
				if (e.bytes > d->max_bytes)
					d->max_bytes = e.bytes;
				if (e.cls == TT_INFER_TCP_DATA && e.app > 0)
					tcp_frame(d, &e);
				x = vec_push(snd, &e);
			} else {
				d->port_records++;
				x = vec_push(prt, &e);
			}
			if (x < 0) {
				tt_trace_close_reader(r);
				return tt_errf(err, errsz, "out of memory");
			}
		}
		tt_trace_close_reader(r);
		if (x < 0)
			return -1;
	}
	return 0;
}

/* First index in f[lo, hi) with t_send >= t. */
static size_t
first_at(const struct frame *f, size_t lo, size_t hi, uint64_t t)
{
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f[mid].t_send < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* End of the run of (src, dst) starting at i. */
static size_t
run_end(const struct frame *f, size_t n, size_t i)
{
	size_t j = i;

	while (j < n && f[j].src == f[i].src && f[j].dst == f[i].dst)
		j++;
	return j;
}

/* Start of the run of (src, dst), or n. */
static size_t
run_find(const struct frame *f, size_t n, uint32_t src, uint32_t dst)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f[mid].src < src || (f[mid].src == src &&
		    f[mid].dst < dst))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && f[lo].src == src && f[lo].dst == dst ? lo : n;
}

/*
 * Round trips and transfers of the matched frames (sorted by pair and
 * send time).  Each frame a -> b is summed with b's next send to a after
 * its delivery (the offset of the two clocks cancels).  The pair's clock
 * offset, from the round trip of least sum (as NTP estimates it), says
 * whether a frame was sent before the one before it was delivered: a
 * transfer is a run of such frames.
 */
static int
pairs_and_trains(tt_calib_data *d, struct frame *f, size_t n,
    unsigned char *iso, char *err, size_t errsz)
{
	/* capacities as known here: a first grow() reallocates what
	 * earlier scopes left, at least as large */
	size_t i, j, cap_r = 0, cap_t = 0, cap_i = 0;
	size_t end;

	for (i = 0; i < n; i = end) {
		size_t rb, re;
		double best = INFINITY, off = 0;

		end = run_end(f, n, i);
		rb = run_find(f, n, f[i].dst, f[i].src);
		re = rb < n ? run_end(f, n, rb) : n;
		for (j = i; rb < n && j < end; j++) {
			size_t m = first_at(f, rb, re, f[j].t_dlv);
			double l1, l2;
			tt_calib_obs *o;

			if (m == re || f[m].cs != f[j].cd ||
			    f[m].cd != f[j].cs)
				continue;
			l1 = (double)((int64_t)(f[j].t_dlv - f[j].t_send));
			l2 = (double)((int64_t)(f[m].t_dlv - f[m].t_send));
			if (l1 + l2 <= 0)
				continue;
			if (grow((void **)&d->rtt, &cap_r, d->nrtt + 1,
			    sizeof(*d->rtt)) < 0)
				return tt_errf(err, errsz, "out of memory");
			o = &d->rtt[d->nrtt++];
			o->lat_ns = l1 + l2;
			o->bytes = f[j].bytes + f[m].bytes;
			o->hops = f[j].hops + f[m].hops;
			o->nmsg = 2;
			o->saf_bytes = f[j].hops * f[j].bytes +
			    f[m].hops * f[m].bytes;
			if (l1 + l2 < best) {
				best = l1 + l2;
				off = (l1 - l2) / 2;
			}
		}
		if (f[i].cs == f[i].cd)
			off = 0;
		/* zero load: the pair's frame before had arrived */
		for (j = i; j < end; j++) {
			tt_calib_obs *o;

			if (j > i && (double)f[j].t_send <
			    (double)f[j - 1].t_dlv - off)
				continue;
			iso[f[j].id] = 1;
			if (grow((void **)&d->iso, &cap_i, d->niso + 1,
			    sizeof(*d->iso)) < 0)
				return tt_errf(err, errsz, "out of memory");
			o = &d->iso[d->niso++];
			memset(o, 0, sizeof(*o));
			o->lat_ns = (double)((int64_t)(f[j].t_dlv -
			    f[j].t_send));
			o->bytes = f[j].bytes;
			o->hops = f[j].hops;
			o->nmsg = 1;
			o->saf_bytes = f[j].hops * f[j].bytes;
		}
		/* transfers: frame j+1 sent before frame j was delivered */
		for (j = i; j < end;) {
			size_t k = j + 1, h;
			double total = 0, cum = 0, bytes = 0;
			tt_calib_train *t;

			while (k < end && (double)f[k].t_send <
			    (double)f[k - 1].t_dlv - off)
				k++;
			if (k - j < 2 * TT_CALIB_TRAIN_MIN) {
				j = k;
				continue;
			}
			for (h = j; h < k; h++)
				total += f[h].bytes;
			for (h = j; h < k && cum + f[h].bytes < total / 2; h++)
				cum += f[h].bytes;
			if (h + 1 >= k || f[k - 1].t_dlv <= f[h].t_dlv) {
				j = k;
				continue;
			}
			if (grow((void **)&d->train, &cap_t, d->ntrain + 1,
			    sizeof(*d->train)) < 0)
				return tt_errf(err, errsz, "out of memory");
			t = &d->train[d->ntrain++];
			for (size_t q = h + 1; q < k; q++)
				bytes += f[q].bytes;
			t->bytes = bytes;
			t->ns = (double)(f[k - 1].t_dlv - f[h].t_dlv);
			t->frames = (uint32_t)(k - h - 1);
			t->total_bytes = total;
			t->first_bytes = cum + f[h].bytes;
			t->first_ns = (double)(f[h].t_dlv - f[j].t_dlv);
			j = k;
		}
	}
	return 0;
}

/* A port record of a matched frame: its id, the links it had crossed
 * when it left the port, when, and on whose clock. */
struct prec {
	uint32_t id;
	int hops;
	uint64_t t;
	uint32_t clock;
};

static int
prec_cmp(const void *a, const void *b)
{
	const struct prec *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->hops != y->hops)
		return x->hops < y->hops ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

static int
seg_push(tt_calib_data *d, size_t *cap, int kind, double ns, double bytes)
{
	if (grow((void **)&d->seg, cap, d->nseg + 1, sizeof(*d->seg)) < 0)
		return -1;
	d->seg[d->nseg].kind = kind;
	d->seg[d->nseg].ns = ns;
	d->seg[d->nseg].bytes = bytes;
	d->nseg++;
	return 0;
}

/*
 * The port records of the frames matched: the hop counts they carry
 * checked against the route's, and for the zero-load frames (iso) with a
 * record at every hop, their segments (twintorus/calibrate.h).
 */
static int
port_segments(tt_calib_data *d, const struct frame *f, size_t nf,
    const uint32_t *pos, const unsigned char *iso, tt_u64map *map,
    const uint32_t *fidx, const struct vec *prt, char *err, size_t errsz)
{
	struct prec *p;
	size_t i, j, np = 0, cap = 0;

	(void)nf;
	if (prt->n == 0)
		return 0;
	if ((p = malloc(prt->n * sizeof(*p))) == NULL)
		return tt_errf(err, errsz, "out of memory");
	for (i = 0; i < prt->n; i++) {
		const struct rec *e = &prt->r[i];
		uint32_t v;

		if (!tt_u64map_get(map, tt_u64map_key(e->src, e->seq), &v) ||
		    v == UINT32_MAX || fidx[v] == UINT32_MAX)
			continue;
		p[np].id = fidx[v];
		p[np].hops = e->hops;
		p[np].t = e->t;
		p[np].clock = e->clock;
		np++;
	}
	qsort(p, np, sizeof(*p), prec_cmp);
	for (i = 0; i < np; i = j) {
		const struct frame *x = &f[pos[p[i].id]];
		int whole = 1, maxh = 0, k;

		for (j = i; j < np && p[j].id == p[i].id; j++) {
			if (p[j].hops > maxh)
				maxh = p[j].hops;
			/* one record per hop, 1..H in order */
			if (p[j].hops != (int)(j - i) + 1)
				whole = 0;
		}
		d->hops_checked++;
		d->hops_differ += maxh != x->hops;
		if (!iso[p[i].id] || !whole || maxh != x->hops ||
		    (int)(j - i) != x->hops)
			continue;
		d->seg_frames++;
		if (seg_push(d, &cap, TT_CALIB_SEG_SEND,
		    (double)((int64_t)(p[i].t - x->t_send)), x->bytes) < 0)
			goto nomem;
		d->seg_clocks += p[i].clock != x->cs;
		for (k = 1; k < x->hops; k++) {
			const struct prec *a = &p[i + (size_t)k - 1];
			const struct prec *b = a + 1;

			if (seg_push(d, &cap, TT_CALIB_SEG_HOP,
			    (double)((int64_t)(b->t - a->t)), x->bytes) < 0)
				goto nomem;
			d->seg_clocks += a->clock != b->clock;
		}
		if (seg_push(d, &cap, TT_CALIB_SEG_RECV,
		    (double)((int64_t)(x->t_dlv - p[j - 1].t)), x->bytes) < 0)
			goto nomem;
		d->seg_clocks += p[j - 1].clock != x->cd;
	}
	free(p);
	return 0;
nomem:
	free(p);
	return tt_errf(err, errsz, "out of memory");
}

/* A PE's data event: a send of it or a delivery to it, on its clock. */
struct pev {
	uint32_t pe;
	const struct rec *r;
	int dlv;
};

static int
pev_cmp(const void *a, const void *b)
{
	const struct pev *x = a, *y = b;

	if (x->pe != y->pe)
		return x->pe < y->pe ? -1 : 1;
	if (x->r->t != y->r->t)
		return x->r->t < y->r->t ? -1 : 1;
	/* a send and a delivery at one time: the delivery first */
	return y->dlv - x->dlv;
}

/* Data, not transport: what the hosts' applications exchange. */
static int
is_data(const struct rec *r)
{
	return r->cls == TT_INFER_MSG || r->cls == TT_INFER_TCP_DATA;
}

/*
 * The hosts' turnarounds: per PE, a run of deliveries from one source on
 * one connection (a request), then the PE's next data, if it is a send
 * back to that source on the same connection (the answer): the answer's
 * send minus the request's last delivery, both on the PE's clock.
 */
static int
turnarounds(tt_calib_data *d, const struct vec *snd, const struct vec *dlv,
    char *err, size_t errsz)
{
	struct pev *e;
	size_t i, n = 0, cap = 0;
	const struct rec *last = NULL;  /* the request's last delivery */
	double bytes = 0;

	if ((e = malloc((snd->n + dlv->n + 1) * sizeof(*e))) == NULL)
		return tt_errf(err, errsz, "out of memory");
	for (i = 0; i < snd->n; i++)
		if (is_data(&snd->r[i])) {
			e[n].pe = snd->r[i].src;
			e[n].r = &snd->r[i];
			e[n++].dlv = 0;
		}
	for (i = 0; i < dlv->n; i++)
		if (is_data(&dlv->r[i])) {
			e[n].pe = dlv->r[i].dst;
			e[n].r = &dlv->r[i];
			e[n++].dlv = 1;
		}
	qsort(e, n, sizeof(*e), pev_cmp);
	for (i = 0; i < n; i++) {
		const struct rec *r = e[i].r;

		if (i > 0 && e[i].pe != e[i - 1].pe)
			last = NULL;
		if (e[i].dlv) {
			/* the request goes on, or another starts */
			if (last != NULL && last->src == r->src &&
			    last->cls == r->cls && last->flow == r->flow)
				bytes += r->app;
			else
				bytes = r->app;
			last = r;
			continue;
		}
		if (last != NULL && r->dst == last->src &&
		    r->clock == last->clock && r->cls == last->cls &&
		    (r->cls != TT_INFER_TCP_DATA || r->flow == last->rflow) &&
		    r->t >= last->t) {
			if (grow((void **)&d->turn, &cap, d->nturn + 1,
			    sizeof(*d->turn)) < 0) {
				free(e);
				return tt_errf(err, errsz, "out of memory");
			}
			d->turn[d->nturn].ns = (double)(r->t - last->t);
			d->turn[d->nturn].bytes = bytes;
			d->nturn++;
		}
		last = NULL;
	}
	free(e);
	return 0;
}

static int
scope_run(tt_calib_data *d, const struct scope *s, const tt_net *net,
    char *err, size_t errsz)
{
	struct vec snd = {0}, dlv = {0}, prt = {0};
	struct frame *f = NULL;
	tt_u64map map, hops;
	size_t i, nf = 0, cap_o = d->noneway;
	uint32_t *fidx = NULL;
	int r = -1;

	tt_u64map_init(&map);
	tt_u64map_init(&hops);
	if (read_scope(d, s, net, &snd, &dlv, &prt, err, errsz) < 0)
		goto out;
	for (i = 0; i < snd.n; i++) {
		uint64_t key = tt_u64map_key(snd.r[i].src, snd.r[i].seq);
		uint32_t v;

		if (tt_u64map_get(&map, key, &v)) {
			if (v != UINT32_MAX)
				d->duplicate++;
			d->duplicate++;
			v = UINT32_MAX;
		} else {
			v = (uint32_t)i;
		}
		if (tt_u64map_put(&map, key, v) < 0)
			goto nomem;
	}
	if ((f = malloc((dlv.n + 1) * sizeof(*f))) == NULL ||
	    (fidx = malloc((snd.n + 1) * sizeof(*fidx))) == NULL)
		goto nomem;
	for (i = 0; i < snd.n; i++)
		fidx[i] = UINT32_MAX;
	cap_o = d->noneway;
	for (i = 0; i < dlv.n; i++) {
		const struct rec *e = &dlv.r[i];
		uint32_t v, hv;
		int h;

		if (!tt_u64map_get(&map, tt_u64map_key(e->src, e->seq), &v)) {
			d->unmatched++;
			continue;
		}
		if (v == UINT32_MAX)
			continue;
		if (snd.r[v].dst != e->dst || snd.r[v].bytes != e->bytes) {
			d->mismatched++;
			continue;
		}
		if (!tt_u64map_get(&hops, tt_u64map_key(e->src, e->dst), &hv)) {
			h = tt_calib_hops(net, e->src, e->dst);
			if (tt_u64map_put(&hops, tt_u64map_key(e->src, e->dst),
			    (uint32_t)(h + 1)) < 0)
				goto nomem;
		} else {
			h = (int)hv - 1;
		}
		if (h < 0) {
			r = tt_errf(err, errsz, "no route from PE %" PRIu32
			    " to PE %" PRIu32, e->src, e->dst);
			goto out;
		}
		if (e->hops > 0) {
			d->hops_checked++;
			d->hops_differ += e->hops != h;
		}
		d->matched++;
		fidx[v] = (uint32_t)nf;
		f[nf].id = (uint32_t)nf;
		f[nf].t_send = snd.r[v].t;
		f[nf].t_dlv = e->t;
		f[nf].bytes = (double)e->bytes;
		f[nf].src = e->src;
		f[nf].dst = e->dst;
		f[nf].cs = snd.r[v].clock;
		f[nf].cd = e->clock;
		f[nf].hops = h;
		if (grow((void **)&d->oneway, &cap_o, d->noneway + 1,
		    sizeof(*d->oneway)) < 0)
			goto nomem;
		d->oneway[d->noneway].lat_ns =
		    (double)((int64_t)(e->t - snd.r[v].t));
		d->oneway[d->noneway].bytes = (double)e->bytes;
		d->oneway[d->noneway].hops = h;
		d->oneway[d->noneway].nmsg = 1;
		d->oneway[d->noneway].saf_bytes = h * (double)e->bytes;
		d->noneway++;
		d->oneway_same_clock += f[nf].cs == f[nf].cd;
		nf++;
	}
	{
		unsigned char *iso = calloc(nf + 1, 1);
		uint32_t *pos = malloc((nf + 1) * sizeof(*pos));

		if (iso == NULL || pos == NULL) {
			free(iso);
			free(pos);
			goto nomem;
		}
		qsort(f, nf, sizeof(*f), frame_cmp);
		for (i = 0; i < nf; i++)
			pos[f[i].id] = (uint32_t)i;
		r = pairs_and_trains(d, f, nf, iso, err, errsz);
		if (r == 0)
			r = port_segments(d, f, nf, pos, iso, &map, fidx, &prt,
			    err, errsz);
		if (r == 0)
			r = turnarounds(d, &snd, &dlv, err, errsz);
		free(iso);
		free(pos);
		if (r < 0)
			goto out;
	}
	r = 0;
	goto out;
nomem:
	r = tt_errf(err, errsz, "out of memory");
out:
	tt_u64map_free(&map);
	tt_u64map_free(&hops);
	free(snd.r);
	free(dlv.r);
	free(prt.r);
	free(f);
	free(fidx);
	return r;
}

static void
scope_free(struct scope *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->names[i]);
		if (s->hosts != NULL)
			free(s->hosts[i]);
	}
	free(s->names);
	free(s->hosts);
	memset(s, 0, sizeof(*s));
}

static int
scope_go(tt_calib_data *d, struct scope *s, const tt_net *net, char *err,
    size_t errsz)
{
	size_t i;
	int r;

	if (s->n == 0)
		return 0;
	if ((s->hosts = calloc(s->n, sizeof(*s->hosts))) == NULL)
		return tt_errf(err, errsz, "out of memory");
	for (i = 0; i < s->n; i++)
		if ((s->hosts[i] = host_of(s->names[i])) == NULL)
			return tt_errf(err, errsz, "out of memory");
	r = scope_run(d, s, net, err, errsz);
	return r;
}

int
tt_calib_read(tt_calib_data *d, const char *const *paths, size_t np,
    const tt_net *net, char *err, size_t errsz)
{
	struct scope loose = {0}, dir;
	size_t i, k, lcap = 0;
	int r = 0;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < np && r == 0; i++) {
		struct stat st;
		char **names;
		size_t n;

		if (trace_files(paths[i], &names, &n, 0, err, errsz) < 0) {
			r = -1;
			break;
		}
		if (strcmp(paths[i], "-") != 0 && stat(paths[i], &st) == 0 &&
		    S_ISDIR(st.st_mode)) {
			dir.names = names;
			dir.n = n;
			dir.hosts = NULL;
			r = scope_go(d, &dir, net, err, errsz);
			scope_free(&dir);
			continue;
		}
		if (grow((void **)&loose.names, &lcap, loose.n + n,
		    sizeof(char *)) < 0) {
			for (k = 0; k < n; k++)
				free(names[k]);
			free(names);
			r = tt_errf(err, errsz, "out of memory");
			break;
		}
		for (k = 0; k < n; k++)
			loose.names[loose.n++] = names[k];
		free(names);
	}
	if (r == 0)
		r = scope_go(d, &loose, net, err, errsz);
	scope_free(&loose);
	if (r < 0)
		tt_calib_data_free(d);
	return r;
}

void
tt_calib_data_free(tt_calib_data *d)
{
	free(d->oneway);
	free(d->rtt);
	free(d->train);
	free(d->seg);
	free(d->iso);
	free(d->turn);
	d->oneway = d->rtt = d->iso = NULL;
	d->train = NULL;
	d->seg = NULL;
	d->turn = NULL;
	d->noneway = d->nrtt = d->ntrain = d->nseg = d->niso = d->nturn = 0;
}
