/*
 * Fitting the hardware model's latencies (twintorus/calibrate.h): a lower
 * envelope per (messages, hops, size) cell, then relative least squares.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support/errf.h"
#include "twintorus/calibrate.h"

struct cell {
	int nmsg, hops, bucket;
	size_t first, n;        /* into the sorted index */
	double lat, bytes;      /* its envelope observation */
	double ser;             /* bytes serialized: bytes, + saf_bytes
	                         * under store-and-forward */
	int drop;
};

/* What a link serializes of o: its bytes once, and under
 * store-and-forward once more at every switch a link leads to. */
static double
ser_bytes(const tt_calib_obs *o, int saf)
{
	return o->bytes + (saf ? o->saf_bytes : 0);
}

static const tt_calib_obs *sort_obs;

/* by cell, then latency */
static int
bucket_of(const tt_calib_obs *o)
{
	double per = o->bytes / (o->nmsg > 0 ? o->nmsg : 1);

	return (int)floor(4.0 * log2(per + 1.0));
}

static int
obs_cmp(const void *a, const void *b)
{
	const tt_calib_obs *x = &sort_obs[*(const size_t *)a];
	const tt_calib_obs *y = &sort_obs[*(const size_t *)b];
	int bx = bucket_of(x), by = bucket_of(y);

	if (x->nmsg != y->nmsg)
		return x->nmsg < y->nmsg ? -1 : 1;
	if (x->hops != y->hops)
		return x->hops < y->hops ? -1 : 1;
	if (bx != by)
		return bx < by ? -1 : 1;
	return x->lat_ns < y->lat_ns ? -1 : x->lat_ns > y->lat_ns;
}

static int
dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The q-quantile of v[0..n) (sorted in place): the value at rank
 * floor(q * (n - 1)). */
static double
quantile(double *v, size_t n, double q)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), dbl_cmp);
	return v[(size_t)floor(q * (double)(n - 1))];
}

double
tt_calib_predict(const tt_calib_fit *f, const tt_calib_obs *o)
{
	return o->nmsg * f->base_ns + o->hops * f->hop_ns +
	    ser_bytes(o, f->store_forward) * 8.0 / f->gbps;
}

/* Solve the k x k system a x = b (k <= 3) by Gaussian elimination with
 * partial pivoting; -1 when singular. */
static int
solve(double a[3][3], double b[3], int k, double x[3])
{
	int i, j, r, p;

	for (i = 0; i < k; i++) {
		double scale = 0;

		for (r = 0; r < k; r++)
			scale = fmax(scale, fabs(a[r][i]));
		p = i;
		for (r = i + 1; r < k; r++)
			if (fabs(a[r][i]) > fabs(a[p][i]))
				p = r;
		if (scale == 0 || fabs(a[p][i]) < 1e-12 * scale)
			return -1;
		if (p != i) {
			double t;

			for (j = 0; j < k; j++) {
				t = a[i][j];
				a[i][j] = a[p][j];
				a[p][j] = t;
			}
			t = b[i];
			b[i] = b[p];
			b[p] = t;
		}
		for (r = i + 1; r < k; r++) {
			double m = a[r][i] / a[i][i];

			for (j = i; j < k; j++)
				a[r][j] -= m * a[i][j];
			b[r] -= m * b[i];
		}
	}
	for (i = k - 1; i >= 0; i--) {
		double s = b[i];

		for (j = i + 1; j < k; j++)
			s -= a[i][j] * x[j];
		x[i] = s / a[i][i];
	}
	return 0;
}

/*
 * One least-squares pass over the kept cells.  The unknowns: base and hop
 * (or, with one hop count, one per switch crossing: base = hop) and, when
 * the bandwidth is not given, ns per byte.  Rows weighted by 1/latency.
 */
static int
lsq(const struct cell *c, size_t nc, int hop_fitted, double ns_per_byte,
    tt_calib_fit *f)
{
	double a[3][3], b[3], x[3] = {0, 0, 0};
	int k = (hop_fitted ? 2 : 1) + (ns_per_byte > 0 ? 0 : 1), i, j;
	size_t m;

	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	for (m = 0; m < nc; m++) {
		double row[3], y = c[m].lat, w;
		int q = 0;

		if (c[m].drop)
			continue;
		w = 1.0 / (c[m].lat > 0 ? c[m].lat : 1.0);
		if (hop_fitted) {
			row[q++] = c[m].nmsg;
			row[q++] = c[m].hops;
		} else {
			row[q++] = c[m].nmsg + c[m].hops;
		}
		if (ns_per_byte > 0)
			y -= c[m].ser * ns_per_byte;
		else
			row[q++] = c[m].ser;
		for (i = 0; i < k; i++) {
			for (j = 0; j < k; j++)
				a[i][j] += w * w * row[i] * row[j];
			b[i] += w * w * row[i] * y;
		}
	}
	if (solve(a, b, k, x) < 0)
		return -1;
	f->base_ns = x[0];
	f->hop_ns = hop_fitted ? x[1] : x[0];
	if (ns_per_byte <= 0)
		ns_per_byte = x[k - 1];
	if (!(ns_per_byte > 0))
		return -2;
	f->gbps = 8.0 / ns_per_byte;
	return 0;
}

static double
rel_obs(const tt_calib_fit *f, const tt_calib_obs *o)
{
	return fabs(tt_calib_predict(f, o) - o->lat_ns) /
	    (o->lat_ns > 0 ? o->lat_ns : 1);
}

/* a cell's envelope observation */
static double
rel_cell(const tt_calib_fit *f, const struct cell *c)
{
	double lat = c->lat;
	double p = c->nmsg * f->base_ns + c->hops * f->hop_ns +
	    c->ser * 8.0 / f->gbps;

	return fabs(p - lat) / (lat > 0 ? lat : 1);
}

int
tt_calib_fit_obs(const tt_calib_obs *o, size_t n, const tt_calib_opts *opts,
    tt_calib_fit *f, char *err, size_t errsz)
{
	double q = opts != NULL && opts->quantile > 0 ? opts->quantile :
	    TT_CALIB_QUANTILE;
	double nspb = opts != NULL && opts->gbps > 0 ? 8.0 / opts->gbps : 0;
	size_t *idx = NULL, nc = 0, i, kept, k, unknowns;
	struct cell *c = NULL;
	double *res = NULL, ratio0 = 0, size0 = 0, dev;
	int hop_fitted = 0, sizes = 0, r, pass;

	int saf = opts != NULL && opts->store_forward;

	memset(f, 0, sizeof(*f));
	f->store_forward = saf;
	if (n < TT_CALIB_MIN_OBS)
		return tt_errf(err, errsz, "too few frames to fit: %zu, at "
		    "least %d needed", n, TT_CALIB_MIN_OBS);
	if (q > 1)
		q = 1;
	idx = malloc(n * sizeof(*idx));
	c = malloc(n * sizeof(*c));
	res = malloc(n * sizeof(*res));
	if (idx == NULL || c == NULL || res == NULL) {
		r = tt_errf(err, errsz, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++)
		idx[i] = i;
	sort_obs = o;
	qsort(idx, n, sizeof(*idx), obs_cmp);
	for (i = 0; i < n; i++) {
		const tt_calib_obs *x = &o[idx[i]];

		if (nc == 0 || c[nc - 1].nmsg != x->nmsg ||
		    c[nc - 1].hops != x->hops ||
		    c[nc - 1].bucket != bucket_of(x)) {
			memset(&c[nc], 0, sizeof(c[nc]));
			c[nc].nmsg = x->nmsg;
			c[nc].hops = x->hops;
			c[nc].bucket = bucket_of(x);
			c[nc].first = i;
			nc++;
		}
		c[nc - 1].n++;
	}
	for (k = 0; k < nc; k++) {
		/* sorted by latency within the cell */
		const tt_calib_obs *e = &o[idx[c[k].first +
		    (size_t)floor(q * (double)(c[k].n - 1))]];
		double ratio = (double)c[k].hops / c[k].nmsg;
		double size = e->bytes / c[k].nmsg;

		c[k].lat = e->lat_ns;
		c[k].bytes = e->bytes;
		c[k].ser = ser_bytes(e, saf);
		if (k == 0) {
			ratio0 = ratio;
			size0 = size;
		}
		if (fabs(ratio - ratio0) > 1e-9)
			hop_fitted = 1;
		if (fabs(size - size0) > 1e-9)
			sizes = 1;
	}
	if (opts != NULL && opts->crossings)
		hop_fitted = 0;
	if (nspb <= 0 && !sizes) {
		r = tt_errf(err, errsz, "every frame has %.0f bytes: the "
		    "bandwidth needs frames of at least two sizes (or long "
		    "transfers)", size0);
		goto out;
	}
	unknowns = (size_t)(hop_fitted ? 2 : 1) + (nspb > 0 ? 0 : 1);
	for (pass = 0; pass < 2; pass++) {
		kept = 0;
		for (k = 0; k < nc; k++)
			kept += !c[k].drop;
		/* one more than the unknowns, and the unknowns once the
		 * outliers are dropped */
		if (kept < unknowns + (pass == 0)) {
			r = tt_errf(err, errsz, "too few frame groups of "
			    "distinct hops and size to fit %zu unknowns: %zu, at "
			    "least %zu needed", unknowns, kept, unknowns + 1);
			goto out;
		}
		r = lsq(c, nc, hop_fitted, nspb, f);
		if (r == -2) {
			r = tt_errf(err, errsz, "latency does not grow with "
			    "frame size: no bandwidth can be fitted (give "
			    "frames of more sizes, or long transfers)");
			goto out;
		}
		if (r < 0) {
			r = tt_errf(err, errsz, "the observations do not "
			    "determine the fit (singular)");
			goto out;
		}
		if (pass == 1)
			break;
		/* drop cells far off the line: > 5 median deviations and
		 * more than 5% */
		for (k = 0, i = 0; k < nc; k++)
			res[i++] = rel_cell(f, &c[k]);
		dev = quantile(res, nc, 0.5);
		for (k = 0; k < nc; k++) {
			double e = rel_cell(f, &c[k]);

			if (e > 5 * dev && e > 0.05) {
				c[k].drop = 1;
				f->cells_dropped++;
			}
		}
		if (f->cells_dropped == 0)
			break;
	}
	f->gbps_fitted = nspb <= 0;
	f->hop_fitted = hop_fitted;
	f->store_forward = saf;
	f->cells = nc - f->cells_dropped;
	for (k = 0, i = 0; k < nc; k++)
		if (!c[k].drop)
			res[i++] = rel_cell(f, &c[k]);
	f->med_rel = quantile(res, i, 0.5);
	f->p90_rel = quantile(res, i, 0.9);
	for (k = 0, i = 0; k < nc; k++) {
		size_t j;

		if (c[k].drop)
			continue;
		for (j = c[k].first; j < c[k].first + c[k].n; j++)
			res[i++] = rel_obs(f, &o[idx[j]]);
	}
	f->used = i;
	f->all_med_rel = quantile(res, i, 0.5);
	f->all_p90_rel = quantile(res, i, 0.9);
	r = 0;
out:
	free(idx);
	free(c);
	free(res);
	return r;
}

/* The transfers tt_calib_rate() takes: enough frames in the measured
 * half, at least half the bytes of the largest.  Into sel (n of room);
 * how many. */
static size_t
largest_trains(const tt_calib_train *t, size_t n, tt_calib_train *sel)
{
	double biggest = 0;
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (t[i].frames >= TT_CALIB_TRAIN_MIN && t[i].ns > 0 &&
		    t[i].total_bytes > biggest)
			biggest = t[i].total_bytes;
	for (i = 0; biggest > 0 && i < n; i++)
		if (t[i].frames >= TT_CALIB_TRAIN_MIN && t[i].ns > 0 &&
		    t[i].total_bytes >= biggest / 2)
			sel[k++] = t[i];
	return k;
}

static int
train_rate_cmp(const void *a, const void *b)
{
	const tt_calib_train *x = a, *y = b;
	double rx = x->bytes / x->ns, ry = y->bytes / y->ns;

	return rx < ry ? -1 : rx > ry;
}

double
tt_calib_rate(const tt_calib_train *t, size_t n, size_t *used)
{
	tt_calib_train *sel;
	double rate;
	size_t k;

	*used = 0;
	if (n == 0 || (sel = malloc(n * sizeof(*sel))) == NULL)
		return 0;
	if ((k = largest_trains(t, n, sel)) == 0) {
		free(sel);
		return 0;
	}
	qsort(sel, k, sizeof(*sel), train_rate_cmp);
	rate = sel[(k - 1) / 2].bytes * 8.0 / sel[(k - 1) / 2].ns;
	free(sel);
	*used = k;
	return rate;
}

double
tt_calib_burst(const tt_calib_train *t, size_t n, double gbps,
    size_t *used)
{
	tt_calib_train *sel;
	double *b, r = 0;
	size_t i, k;

	*used = 0;
	if (n == 0 || !(gbps > 0) || (sel = malloc(n * sizeof(*sel))) == NULL)
		return 0;
	k = largest_trains(t, n, sel);
	if (k > 0 && (b = malloc(k * sizeof(*b))) != NULL) {
		for (i = 0; i < k; i++)
			b[i] = sel[i].first_bytes - sel[i].first_ns * gbps / 8;
		r = quantile(b, k, 0.5);
		*used = k;
		free(b);
	}
	free(sel);
	return r;
}

int
tt_calib_shaped(const tt_calib_obs *iso, size_t n, double gbps,
    double *lat_ns, double *bytes)
{
	double biggest = 0, *lat, *by;
	size_t i, k = 0;
	int r = 0;

	*lat_ns = *bytes = 0;
	for (i = 0; i < n; i++)
		if (iso[i].nmsg == 1 && iso[i].bytes > biggest)
			biggest = iso[i].bytes;
	if (!(gbps > 0) || biggest == 0)
		return 0;
	lat = malloc(n * sizeof(*lat));
	by = malloc(n * sizeof(*by));
	for (i = 0; lat != NULL && by != NULL && i < n; i++)
		if (iso[i].nmsg == 1 && iso[i].bytes >= biggest / 2) {
			lat[k] = iso[i].lat_ns;
			by[k++] = iso[i].bytes;
		}
	if (k >= TT_CALIB_MIN_OBS) {
		*lat_ns = quantile(lat, k, 0.5);
		*bytes = quantile(by, k, 0.5);
		r = *lat_ns < *bytes * 8 / gbps;
	}
	free(lat);
	free(by);
	return r;
}

/* ---- store-and-forward from port traces ---- */

static const tt_calib_seg *sort_seg;

static int
seg_bucket(double bytes)
{
	return (int)floor(4.0 * log2(bytes + 1.0));
}

static int
seg_cmp(const void *a, const void *b)
{
	const tt_calib_seg *x = &sort_seg[*(const size_t *)a];
	const tt_calib_seg *y = &sort_seg[*(const size_t *)b];
	int bx = seg_bucket(x->bytes), by = seg_bucket(y->bytes);

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (bx != by)
		return bx < by ? -1 : 1;
	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

int
tt_calib_fit_segs(const tt_calib_seg *s, size_t n, tt_calib_segfit *f,
    char *err, size_t errsz)
{
	static const char *const kname[TT_CALIB_SEG_KINDS] = {
		"send record to first port record",
		"port record to the next hop's",
		"last port record to delivery copy" };
	size_t *idx, i, j;
	int k, r = 0;

	memset(f, 0, sizeof(*f));
	if ((idx = malloc((n + 1) * sizeof(*idx))) == NULL)
		return tt_errf(err, errsz, "out of memory");
	for (i = 0; i < n; i++)
		idx[i] = i;
	sort_seg = s;
	qsort(idx, n, sizeof(*idx), seg_cmp);
	for (k = 0; k < TT_CALIB_SEG_KINDS && r == 0; k++) {
		/* weighted least squares of cell medians over the cells'
		 * median bytes, weight the cell's count */
		double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, det;

		for (i = 0; i < n; i = j) {
			const tt_calib_seg *m;
			size_t c;

			if (s[idx[i]].kind != k) {
				j = i + 1;
				continue;
			}
			for (j = i; j < n && s[idx[j]].kind == k &&
			    seg_bucket(s[idx[j]].bytes) ==
			    seg_bucket(s[idx[i]].bytes); j++)
				;
			c = j - i;
			m = &s[idx[i + (c - 1) / 2]];
			/* the cell's median; its bytes those of the
			 * median frame (the cell's frames differ little) */
			sw += (double)c;
			sx += (double)c * m->bytes;
			sy += (double)c * m->ns;
			sxx += (double)c * m->bytes * m->bytes;
			sxy += (double)c * m->bytes * m->ns;
			f->n[k] += c;
			f->cells[k]++;
		}
		if (f->n[k] < TT_CALIB_SEG_MIN) {
			r = tt_errf(err, errsz, "port traces: %zu zero-load "
			    "segments from %s, at least %d needed", f->n[k],
			    kname[k], TT_CALIB_SEG_MIN);
			break;
		}
		det = sw * sxx - sx * sx;
		if (f->cells[k] < 2 || det <= 1e-9 * sw * sxx) {
			/* one size: no slope */
			f->s[k] = 0;
			f->a[k] = sy / sw;
		} else {
			f->s[k] = (sw * sxy - sx * sy) / det;
			f->a[k] = (sy - f->s[k] * sx) / sw;
		}
	}
	free(idx);
	return r;
}

void
tt_calib_saf_model(const tt_calib_segfit *f, double cycle_ns,
    tt_calib_saf *m)
{
	double hop = f->a[TT_CALIB_SEG_HOP];

	memset(m, 0, sizeof(*m));
	if (hop < 0) {
		hop = 0;
		m->clamped = 1;
	}
	m->link_ns = cycle_ns;
	m->router_ns = hop;
	m->send_ns = f->a[TT_CALIB_SEG_SEND] - hop - cycle_ns;
	m->recv_ns = f->a[TT_CALIB_SEG_RECV] - hop;
	if (m->send_ns < 0) {
		m->recv_ns += m->send_ns;
		m->send_ns = 0;
		m->clamped = 1;
	}
	if (m->recv_ns < 0) {
		m->send_ns += m->recv_ns;
		m->recv_ns = 0;
		m->clamped = 1;
		if (m->send_ns < 0)
			m->send_ns = 0;
	}
}

double
tt_calib_saf_latency(const tt_calib_saf *m, double cycle_ns, double gbps,
    int hops, double bytes)
{
	double ser = bytes * 8.0 / gbps;

	/* (H+1)(R+L) + L + f - 1 + H(f - 1) cycles + overheads, with
	 * R + L = router_ns + link_ns and f cycles = ser */
	return m->send_ns + m->recv_ns + (hops + 1) * (m->router_ns +
	    m->link_ns) + m->link_ns + (hops + 1) * (ser - cycle_ns);
}

static int
turn_cmp(const void *a, const void *b)
{
	const tt_calib_turn *x = a, *y = b;

	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

double
tt_calib_host(const tt_calib_turn *t, size_t n, double max_bytes,
    size_t *used, double q[2])
{
	tt_calib_turn *sel;
	size_t i, k = 0;
	double med;

	*used = 0;
	if (q != NULL)
		q[0] = q[1] = 0;
	if (n == 0 || (sel = malloc(n * sizeof(*sel))) == NULL)
		return 0;
	for (i = 0; i < n; i++)
		if (t[i].bytes <= max_bytes)
			sel[k++] = t[i];
	if (k == 0) {
		free(sel);
		return 0;
	}
	qsort(sel, k, sizeof(*sel), turn_cmp);
	/* the median of an even count: the mean of the middle two */
	med = k % 2 ? sel[k / 2].ns : (sel[k / 2 - 1].ns + sel[k / 2].ns) / 2;
	if (q != NULL) {
		q[0] = sel[(k - 1) / 4].ns;
		q[1] = sel[(3 * (k - 1)) / 4].ns;
	}
	free(sel);
	*used = k;
	return med;
}
