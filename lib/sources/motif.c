/*
 * The motif programs (lib/sources/motif_int.h; the motifs are described in
 * twintorus/motif.h), each application's one definition: one table entry
 * per motif, with its defaults, its plan (the process grid or roles, from
 * the rank count alone) and its step function.  ttsim app runs them closed
 * loop (motif_run.c), ttsim trace synth open loop (workload.c).  A new
 * motif is one more entry in motifs[].  halo3d's grid and neighbours are
 * tt_grid3()'s.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "support/errf.h"
#include "sources/motif_int.h"
#include "twintorus/params.h"
#include "twintorus/workload.h"

struct motif_ops {
	const char *name;
	uint64_t iterations, bytes;
	double compute_ns;
	/* the grid or roles of n ranks: 0, or -1 with err */
	int (*plan)(struct motif *mo, char *err, size_t errsz);
	int (*step)(const struct motif *mo, uint32_t r, uint64_t it,
	    uint32_t i, struct mstep *s);
	void (*layout)(const struct motif *mo, char *buf, size_t bufsz);
};

static const struct motif_ops motifs[TT_MOTIF_COUNT];

int
tt_motif_parse(const char *name, enum tt_motif *m)
{
	int i;

	for (i = 0; i < TT_MOTIF_COUNT; i++)
		if (strcmp(name, motifs[i].name) == 0) {
			*m = (enum tt_motif)i;
			return 0;
		}
	/* the open-loop workloads' old name of the halo exchange */
	if (strcmp(name, "stencil") == 0) {
		*m = TT_MOTIF_HALO3D;
		return 0;
	}
	return -1;
}

const char *
tt_motif_name(enum tt_motif m)
{
	return (unsigned)m < TT_MOTIF_COUNT ? motifs[m].name : "?";
}

const char *
tt_motif_list(void)
{
	static char list[128];
	int i;

	if (list[0] == '\0')
		for (i = 0; i < TT_MOTIF_COUNT; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list),
			    "%s%s", i ? ", " : "", motifs[i].name);
	return list;
}

/*
 * Defaults: each motif on 128 PEs of a 3DT 4x4x4 at 10 Gb/s simulates in
 * a few seconds, with compute and communication of the same order, so that
 * the network shows in the makespan without being all of it.
 */
void
tt_motif_params_default(tt_motif_params *p, enum tt_motif m)
{
	memset(p, 0, sizeof(*p));
	p->motif = m;
	p->imbalance = 0.1;
	p->seed = 1;
	tt_netparams_default(&p->net);
	p->blocks = 8;
	p->request_bytes = 256;
	p->service_ns = 2000;
	if ((unsigned)m < TT_MOTIF_COUNT) {
		p->iterations = motifs[m].iterations;
		p->bytes = motifs[m].bytes;
		p->compute_ns = motifs[m].compute_ns;
	}
}

int
tt_motif_check(const tt_motif_params *p, uint32_t npes, char *err, size_t errsz)
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
	if (p->net.packet_flits < 1 || p->net.flit_bytes < 1 || !(p->net.link_gbps > 0))
		return tt_errf(err, errsz, "bad packet, flit or link size");
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

static int
halo_plan(struct motif *mo, char *err, size_t errsz)
{
	(void)err;
	(void)errsz;
	tt_grid3(mo->n, mo->g);
	mo->ndir = 2 * tt_grid3_dims(mo->g);
	return 0;
}

/* Send to the neighbours, receive what they sent towards us, compute.
 * Neighbour j is the one in direction j (+ and - of each dimension of the
 * grid in turn); the one in direction j sent to us as its message j ^ 1. */
static int
halo_step(const struct motif *mo, uint32_t r, uint64_t it, uint32_t i,
    struct mstep *s)
{
	uint32_t S = mo->ndir, j;

	if (i < S) {
		set_send(s, tt_grid3_neighbour(mo->g, r, i), mo->p.bytes);
	} else if (i < 2 * S) {
		j = i - S;
		set_recv(s, tt_grid3_neighbour(mo->g, r, j), it * S + (j ^ 1));
	} else if (i == 2 * S) {
		set_compute(s, compute(mo, mo->p.compute_ns, r, it, i));
	} else {
		return 0;
	}
	return 1;
}

static void
halo_layout(const struct motif *mo, char *buf, size_t bufsz)
{
	snprintf(buf, bufsz, "grid %ux%ux%u", mo->g[0], mo->g[1], mo->g[2]);
}

/* ---- sweep3d ---- */

/* The most square a * b = n (a <= b), b along x. */
static int
sweep_plan(struct motif *mo, char *err, size_t errsz)
{
	uint32_t a, best = 1;

	(void)err;
	(void)errsz;
	for (a = 1; (uint64_t)a * a <= mo->n; a++)
		if (mo->n % a == 0)
			best = a;
	mo->g[0] = mo->n / best;
	mo->g[1] = best;
	mo->g[2] = 1;
	return 0;
}

static void
sweep_layout(const struct motif *mo, char *buf, size_t bufsz)
{
	snprintf(buf, bufsz, "grid %ux%u, %u blocks per sweep", mo->g[0],
	    mo->g[1], mo->p.blocks);
}

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
allreduce_plan(struct motif *mo, char *err, size_t errsz)
{
	(void)err;
	(void)errsz;
	mo->chunk = (mo->p.bytes + mo->n - 1) / mo->n;
	return 0;
}

static void
allreduce_layout(const struct motif *mo, char *buf, size_t bufsz)
{
	snprintf(buf, bufsz, "ring of %u, chunks of %" PRIu64 " bytes", mo->n,
	    mo->chunk);
}

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

static void
alltoall_layout(const struct motif *mo, char *buf, size_t bufsz)
{
	snprintf(buf, bufsz, "%u ranks", mo->n);
}

static int
incast_plan(struct motif *mo, char *err, size_t errsz)
{
	mo->clients = mo->p.clients ? mo->p.clients :
	    (mo->n / 16 ? mo->n / 16 : 1);
	if (mo->clients > mo->n / 2)
		return tt_errf(err, errsz, "incast: too many clients");
	return 0;
}

static void
incast_layout(const struct motif *mo, char *buf, size_t bufsz)
{
	snprintf(buf, bufsz, "%u clients, %u servers", mo->clients,
	    mo->n - mo->clients);
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

static void
pingpong_layout(const struct motif *mo, char *buf, size_t bufsz)
{
	snprintf(buf, bufsz, "%u pairs", mo->n / 2);
}

static int
no_plan(struct motif *mo, char *err, size_t errsz)
{
	(void)mo;
	(void)err;
	(void)errsz;
	return 0;
}

static const struct motif_ops motifs[TT_MOTIF_COUNT] = {
	[TT_MOTIF_HALO3D] = {"halo3d", 20, 8192, 20000, halo_plan, halo_step,
	    halo_layout},
	[TT_MOTIF_SWEEP3D] = {"sweep3d", 8, 4096, 5000, sweep_plan, sweep_step,
	    sweep_layout},
	[TT_MOTIF_ALLREDUCE] = {"allreduce", 2, 524288, 50000, allreduce_plan,
	    allreduce_step, allreduce_layout},
	[TT_MOTIF_ALLTOALL] = {"alltoall", 4, 2048, 50000, no_plan,
	    alltoall_step, alltoall_layout},
	[TT_MOTIF_INCAST] = {"incast", 20, 16384, 20000, incast_plan,
	    incast_step, incast_layout},
	[TT_MOTIF_PINGPONG] = {"pingpong", 50, 16384, 5000, no_plan,
	    pingpong_step, pingpong_layout},
};

int
motif_init(struct motif *mo, const tt_motif_params *p, uint32_t n, char *err,
    size_t errsz)
{
	memset(mo, 0, sizeof(*mo));
	mo->p = *p;
	mo->n = n;
	mo->ops = &motifs[p->motif];
	return mo->ops->plan(mo, err, errsz);
}

int
motif_step(const struct motif *mo, uint32_t r, uint64_t it, uint32_t i,
    struct mstep *s)
{
	return mo->ops->step(mo, r, it, i, s);
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
	mo->ops->layout(mo, buf, bufsz);
	return buf;
}
