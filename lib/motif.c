/*
 * The motif programs (lib/motif.h; the motifs are described in
 * twintorus/app.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "errf.h"
#include "motif.h"

static const char *const motif_names[TT_MOTIF_COUNT] = {
	"halo3d", "sweep3d", "allreduce", "alltoall", "incast", "pingpong"
};

int
tt_motif_parse(const char *name, enum tt_motif *m)
{
	int i;

	for (i = 0; i < TT_MOTIF_COUNT; i++)
		if (strcmp(name, motif_names[i]) == 0) {
			*m = (enum tt_motif)i;
			return 0;
		}
	return -1;
}

const char *
tt_motif_name(enum tt_motif m)
{
	return (unsigned)m < TT_MOTIF_COUNT ? motif_names[m] : "?";
}

const char *
tt_motif_list(void)
{
	return "halo3d, sweep3d, allreduce, alltoall, incast, pingpong";
}

/*
 * Defaults: each motif on 128 PEs of a 3DT 4x4x4 at 10 Gb/s simulates in
 * a few seconds, with compute and communication of the same order, so that
 * the network shows in the makespan without being all of it.
 */
void
tt_app_defaults(tt_app_params *p, enum tt_motif m)
{
	memset(p, 0, sizeof(*p));
	p->motif = m;
	p->imbalance = 0.1;
	p->seed = 1;
	p->packet_flits = 4;
	p->flit_bytes = 16;
	p->link_gbps = 10;
	p->blocks = 8;
	p->request_bytes = 256;
	p->service_ns = 2000;
	switch (m) {
	case TT_MOTIF_HALO3D:
		p->iterations = 20;
		p->bytes = 8192;
		p->compute_ns = 20000;
		break;
	case TT_MOTIF_SWEEP3D:
		p->iterations = 8;
		p->bytes = 4096;
		p->compute_ns = 5000;
		break;
	case TT_MOTIF_ALLREDUCE:
		p->iterations = 2;
		p->bytes = 524288;
		p->compute_ns = 50000;
		break;
	case TT_MOTIF_ALLTOALL:
		p->iterations = 4;
		p->bytes = 2048;
		p->compute_ns = 50000;
		break;
	case TT_MOTIF_INCAST:
		p->iterations = 20;
		p->bytes = 16384;
		p->compute_ns = 20000;
		break;
	case TT_MOTIF_PINGPONG:
	default:
		p->iterations = 50;
		p->bytes = 16384;
		p->compute_ns = 5000;
		break;
	}
}

int
tt_app_check(const tt_app_params *p, uint32_t npes, char *err, size_t errsz)
{
	uint32_t n = p->ranks != NULL ? p->nranks : npes, i;

	if ((unsigned)p->motif >= TT_MOTIF_COUNT)
		return tt_errf(err, errsz, "unknown motif");
	if (p->ranks != NULL)
		for (i = 0; i < p->nranks; i++) {
			if (p->ranks[i] >= npes)
				return tt_errf(err, errsz, "PE %" PRIu32 " is not in "
				    "the network (%" PRIu32 " PEs, ids 0..%" PRIu32
				    ")", p->ranks[i], npes, npes - 1);
			if (i > 0 && p->ranks[i] <= p->ranks[i - 1])
				return tt_errf(err, errsz, "PE %" PRIu32 " is listed "
				    "twice", p->ranks[i]);
		}
	if (n < 2)
		return tt_errf(err, errsz, "%s needs at least 2 ranks, not %"
		    PRIu32, tt_motif_name(p->motif), n);
	if (p->iterations < 1 || p->iterations > (1u << 30))
		return tt_errf(err, errsz, "iterations: 1 to 2^30");
	if (p->bytes < 1 || p->request_bytes < 1)
		return tt_errf(err, errsz, "messages need at least 1 byte");
	if (!(p->compute_ns >= 0) || !(p->service_ns >= 0) ||
	    p->compute_ns > 1e12 || p->service_ns > 1e12)
		return tt_errf(err, errsz, "compute times: 0 to 1e12 ns");
	if (!(p->imbalance >= 0 && p->imbalance < 1))
		return tt_errf(err, errsz, "imbalance: a fraction from 0 to "
		    "below 1");
	if (p->motif == TT_MOTIF_SWEEP3D && (p->blocks < 1 ||
	    p->blocks > 65536))
		return tt_errf(err, errsz, "blocks: 1 to 65536");
	if (p->motif == TT_MOTIF_INCAST && p->clients != 0 &&
	    p->clients > n / 2)
		return tt_errf(err, errsz, "incast: %" PRIu32 " clients of %"
		    PRIu32 " ranks leave a client without a server; at most %"
		    PRIu32, p->clients, n, n / 2);
	if (p->packet_flits < 1 || p->flit_bytes < 1 || !(p->link_gbps > 0))
		return tt_errf(err, errsz, "bad packet, flit or link size");
	return 0;
}

/* a * b * c = n with c - a smallest (a <= b <= c): ttsim trace synth's
 * stencil grid; with c forced to 1, the most square a * b = n. */
static void
grid(uint32_t n, int dims, uint32_t g[3])
{
	uint32_t a, b, c, best = UINT32_MAX;

	g[0] = n;
	g[1] = g[2] = 1;
	for (a = 1; (uint64_t)a * a <= n; a++) {
		if (n % a)
			continue;
		for (b = a; (uint64_t)a * b * (dims == 3 ? b : 1) <= n; b++) {
			if ((n / a) % b)
				continue;
			c = n / a / b;
			if (dims == 2 && c != 1)
				continue;
			if (dims == 3 && c < b)
				break;
			if ((dims == 3 ? c : b) - a < best) {
				best = (dims == 3 ? c : b) - a;
				g[0] = a;
				g[1] = b;
				g[2] = c;
			}
		}
	}
	if (dims == 2) {        /* the longer side along x */
		c = g[0];
		g[0] = g[1];
		g[1] = c;
	}
}

int
motif_init(struct motif *mo, const tt_app_params *p, uint32_t n, char *err,
    size_t errsz)
{
	uint32_t d;

	memset(mo, 0, sizeof(*mo));
	mo->p = *p;
	mo->n = n;
	switch (p->motif) {
	case TT_MOTIF_HALO3D:
		grid(n, 3, mo->g);
		for (d = 0; d < 3; d++)
			if (mo->g[d] > 1) {
				mo->dir[mo->ndir++] = 2 * d;
				mo->dir[mo->ndir++] = 2 * d + 1;
			}
		break;
	case TT_MOTIF_SWEEP3D:
		grid(n, 2, mo->g);
		break;
	case TT_MOTIF_ALLREDUCE:
		mo->chunk = (p->bytes + n - 1) / n;
		break;
	case TT_MOTIF_INCAST:
		mo->clients = p->clients ? p->clients : (n / 16 ? n / 16 : 1);
		if (mo->clients > n / 2)
			return tt_errf(err, errsz, "incast: too many clients");
		break;
	default:
		break;
	}
	return 0;
}

/* The compute time of rank r at (it, i): base +- imbalance. */
static double
compute(const struct motif *mo, double base, uint32_t r, uint64_t it,
    uint32_t i)
{
	uint64_t x = mo->p.seed * 0x9e3779b97f4a7c15ull ^
	    ((uint64_t)r << 40 ^ it << 12 ^ i);
	double u;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	x ^= x >> 31;
	u = (double)(x >> 11) * 0x1.0p-53;
	return base * (1.0 + mo->p.imbalance * (2.0 * u - 1.0));
}

static void
set_compute(struct mstep *s, double ns)
{
	s->kind = MSTEP_COMPUTE;
	s->ns = ns;
}

static void
set_send(struct mstep *s, uint32_t to, uint64_t bytes)
{
	s->kind = MSTEP_SEND;
	s->peer = to;
	s->bytes = bytes;
}

static void
set_recv(struct mstep *s, uint32_t from, uint64_t seq)
{
	s->kind = MSTEP_RECV;
	s->peer = from;
	s->seq = seq;
}

/* ---- halo3d ---- */

static uint32_t
halo_nb(const struct motif *mo, uint32_t r, uint32_t dir)
{
	uint32_t c[3], d = dir / 2, k = mo->g[d];

	c[0] = r % mo->g[0];
	c[1] = r / mo->g[0] % mo->g[1];
	c[2] = r / mo->g[0] / mo->g[1];
	c[d] = dir % 2 == 0 ? (c[d] + 1) % k : (c[d] + k - 1) % k;
	return c[0] + mo->g[0] * (c[1] + mo->g[1] * c[2]);
}

static uint32_t
halo_index(const struct motif *mo, uint32_t dir)
{
	uint32_t j;

	for (j = 0; j < mo->ndir && mo->dir[j] != dir; j++)
		;
	return j;
}

/* Send to the neighbours, receive what they sent towards us, compute. */
static int
halo_step(const struct motif *mo, uint32_t r, uint64_t it, uint32_t i,
    struct mstep *s)
{
	uint32_t S = mo->ndir;

	if (i < S) {
		set_send(s, halo_nb(mo, r, mo->dir[i]), mo->p.bytes);
	} else if (i < 2 * S) {
		uint32_t dir = mo->dir[i - S];

		/* the neighbour in dir sent to us in the opposite direction */
		set_recv(s, halo_nb(mo, r, dir), it * S + halo_index(mo, dir ^ 1));
	} else if (i == 2 * S) {
		set_compute(s, compute(mo, mo->p.compute_ns, r, it, i));
	} else {
		return 0;
	}
	return 1;
}

/* ---- sweep3d ---- */

/* The direction of iteration it: x and y each +1 or -1. */
static void
sweep_dir(uint64_t it, int *sx, int *sy)
{
	*sx = (it & 1) ? -1 : 1;
	*sy = (it & 2) ? -1 : 1;
}

static int
sweep_has(const struct motif *mo, uint32_t r, int dx, int dy)
{
	int64_t x = (int64_t)(r % mo->g[0]) + dx, y = (int64_t)(r / mo->g[0]) + dy;

	return x >= 0 && x < (int64_t)mo->g[0] && y >= 0 && y < (int64_t)mo->g[1];
}

/* Sends per block of rank r in iteration it: downstream x, then y. */
static uint32_t
sweep_cnt(const struct motif *mo, uint32_t r, uint64_t it)
{
	int sx, sy;

	sweep_dir(it, &sx, &sy);
	return (uint32_t)sweep_has(mo, r, sx, 0) + (uint32_t)sweep_has(mo, r, 0, sy);
}

static uint64_t
sweep_before(const struct motif *mo, uint32_t r, uint64_t it)
{
	uint64_t cycle = 0, part = 0, d;

	for (d = 0; d < 4; d++) {
		cycle += sweep_cnt(mo, r, d);
		if (d < it % 4)
			part += sweep_cnt(mo, r, d);
	}
	return ((it / 4) * cycle + part) * mo->p.blocks;
}

/* Per block: receive from upstream x and y, compute, send downstream. */
static int
sweep_step(const struct motif *mo, uint32_t r, uint64_t it, uint32_t i,
    struct mstep *s)
{
	int sx, sy, ux, uy, dx, dy;
	uint32_t per, b, j, gx = mo->g[0], up;

	sweep_dir(it, &sx, &sy);
	ux = sweep_has(mo, r, -sx, 0);
	uy = sweep_has(mo, r, 0, -sy);
	dx = sweep_has(mo, r, sx, 0);
	dy = sweep_has(mo, r, 0, sy);
	per = (uint32_t)(ux + uy + 1 + dx + dy);
	b = i / per;
	j = i % per;
	if (b >= mo->p.blocks)
		return 0;
	if (ux && j == 0) {
		up = (uint32_t)((int64_t)r - sx);
		set_recv(s, up, sweep_before(mo, up, it) +
		    (uint64_t)b * sweep_cnt(mo, up, it));
		return 1;
	}
	j -= (uint32_t)ux;
	if (uy && j == 0) {
		up = (uint32_t)((int64_t)r - (int64_t)sy * gx);
		/* upstream y sends to us after its downstream x, if any */
		set_recv(s, up, sweep_before(mo, up, it) +
		    (uint64_t)b * sweep_cnt(mo, up, it) +
		    (uint64_t)sweep_has(mo, up, sx, 0));
		return 1;
	}
	j -= (uint32_t)uy;
	if (j == 0)
		set_compute(s, compute(mo, mo->p.compute_ns, r, it, b));
	else if (dx && j == 1)
		set_send(s, (uint32_t)((int64_t)r + sx), mo->p.bytes);
	else
		set_send(s, (uint32_t)((int64_t)r + (int64_t)sy * gx), mo->p.bytes);
	return 1;
}

/* ---- allreduce, alltoall, incast, pingpong ---- */

static int
allreduce_step(const struct motif *mo, uint32_t r, uint64_t it, uint32_t i,
    struct mstep *s)
{
	uint32_t n = mo->n, steps = 2 * (n - 1);

	if (i < 2 * steps) {
		if (i % 2 == 0)
			set_send(s, (r + 1) % n, mo->chunk);
		else
			set_recv(s, (r + n - 1) % n, it * steps + i / 2);
	} else if (i == 2 * steps) {
		set_compute(s, compute(mo, mo->p.compute_ns, r, it, i));
	} else {
		return 0;
	}
	return 1;
}

static int
alltoall_step(const struct motif *mo, uint32_t r, uint64_t it, uint32_t i,
    struct mstep *s)
{
	uint32_t n = mo->n, j;

	if (i < n - 1) {
		set_send(s, (r + i + 1) % n, mo->p.bytes);
	} else if (i < 2 * (n - 1)) {
		j = i - (n - 1) + 1;
		/* r - j sent to us as its j-th message of the round */
		set_recv(s, (r + n - j) % n, it * (n - 1) + j - 1);
	} else if (i == 2 * (n - 1)) {
		set_compute(s, compute(mo, mo->p.compute_ns, r, it, i));
	} else {
		return 0;
	}
	return 1;
}

/* The servers of client k: clients + k, clients + k + clients, ... */
static uint32_t
incast_servers(const struct motif *mo, uint32_t k)
{
	uint32_t c = mo->clients;

	return (mo->n - c - k + c - 1) / c;
}

static int
incast_step(const struct motif *mo, uint32_t r, uint64_t it, uint32_t i,
    struct mstep *s)
{
	uint32_t c = mo->clients, ns, k;

	if (r < c) {
		ns = incast_servers(mo, r);
		if (i < ns)
			set_send(s, c + r + i * c, mo->p.request_bytes);
		else if (i < 2 * ns)
			set_recv(s, c + r + (i - ns) * c, it);
		else if (i == 2 * ns)
			set_compute(s, compute(mo, mo->p.compute_ns, r, it, i));
		else
			return 0;
		return 1;
	}
	k = (r - c) % c;
	ns = incast_servers(mo, k);
	if (i == 0)
		set_recv(s, k, it * ns + (r - c) / c);
	else if (i == 1)
		set_compute(s, compute(mo, mo->p.service_ns, r, it, i));
	else if (i == 2)
		set_send(s, k, mo->p.bytes);
	else
		return 0;
	return 1;
}

static int
pingpong_step(const struct motif *mo, uint32_t r, uint64_t it, uint32_t i,
    struct mstep *s)
{
	uint32_t half = mo->n / 2;

	if (r < half) {
		if (i == 0)
			set_send(s, r + half, mo->p.bytes);
		else if (i == 1)
			set_recv(s, r + half, it);
		else if (i == 2)
			set_compute(s, compute(mo, mo->p.compute_ns, r, it, i));
		else
			return 0;
		return 1;
	}
	if (r >= 2 * half || i > 1)
		return 0;
	if (i == 0)
		set_recv(s, r - half, it);
	else
		set_send(s, r - half, mo->p.bytes);
	return 1;
}

int
motif_step(const struct motif *mo, uint32_t r, uint64_t it, uint32_t i,
    struct mstep *s)
{
	switch (mo->p.motif) {
	case TT_MOTIF_HALO3D:
		return halo_step(mo, r, it, i, s);
	case TT_MOTIF_SWEEP3D:
		return sweep_step(mo, r, it, i, s);
	case TT_MOTIF_ALLREDUCE:
		return allreduce_step(mo, r, it, i, s);
	case TT_MOTIF_ALLTOALL:
		return alltoall_step(mo, r, it, i, s);
	case TT_MOTIF_INCAST:
		return incast_step(mo, r, it, i, s);
	case TT_MOTIF_PINGPONG:
		return pingpong_step(mo, r, it, i, s);
	default:
		return 0;
	}
}

uint64_t
motif_bytes_from(const struct motif *mo, uint32_t r)
{
	if (mo->p.motif == TT_MOTIF_ALLREDUCE)
		return mo->chunk;
	if (mo->p.motif == TT_MOTIF_INCAST && r < mo->clients)
		return mo->p.request_bytes;
	return mo->p.bytes;
}

const char *
motif_layout(const struct motif *mo, char *buf, size_t bufsz)
{
	switch (mo->p.motif) {
	case TT_MOTIF_HALO3D:
		snprintf(buf, bufsz, "grid %ux%ux%u", mo->g[0], mo->g[1],
		    mo->g[2]);
		break;
	case TT_MOTIF_SWEEP3D:
		snprintf(buf, bufsz, "grid %ux%u, %u blocks per sweep",
		    mo->g[0], mo->g[1], mo->p.blocks);
		break;
	case TT_MOTIF_ALLREDUCE:
		snprintf(buf, bufsz, "ring of %u, chunks of %" PRIu64 " bytes",
		    mo->n, mo->chunk);
		break;
	case TT_MOTIF_INCAST:
		snprintf(buf, bufsz, "%u clients, %u servers", mo->clients,
		    mo->n - mo->clients);
		break;
	case TT_MOTIF_PINGPONG:
		snprintf(buf, bufsz, "%u pairs", mo->n / 2);
		break;
	default:
		snprintf(buf, bufsz, "%u ranks", mo->n);
		break;
	}
	return buf;
}
