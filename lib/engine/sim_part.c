/*
 * Partitioned runs of the network model (sim_part.h): each rank holds a
 * run of whole nodes' switches, runs the same cycles as the others, and
 * at the end of every epoch exchanges what crossed its boundary.
 *
 * Everything an exchange can need is allocated when the part is built.
 * An epoch is at most E <= L cycles (sim_epoch(): L, or less on a link
 * longer than the wheels reach), and a port carries at most one packet
 * a cycle (of one flit: tt_srcpkt.flits), so in an epoch an output sends
 * at most E packets, the input on the same link returns at most as
 * many credits, and a PE port ejects at most as many packets (each a
 * delivery for the source's rank, when deliveries are asked for).  The
 * buffers hold that much; the cycle loop never allocates.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "support/errf.h"
#include "engine/sim_int.h"

/* What crosses a boundary; every record is a multiple of 8 bytes. */
enum { MSG_PKT = 1, MSG_CRED, MSG_DLV };
/* a packet's fields, without its place in this rank's pool */
#define PKT_WIRE ((offsetof(struct pkt, next) + 7) & ~(size_t)7)
struct msg_pkt {
	uint32_t kind, ds;      /* ds: the far switch, global */
	uint8_t din, pv, pad[6];
	uint8_t pk[PKT_WIRE];
};
struct msg_cred {
	uint32_t kind, idx;     /* idx: cred[] index, global */
	uint64_t when;
};
struct msg_dlv {
	uint32_t kind, pad;
	tt_delivery d;
};

struct sim_part {
	tt_sim_comm comm;
	uint32_t *first;        /* nranks + 1: first switch of each rank */
	/*
	 * The links to other ranks, boundary of them, in local port order
	 * (a port is s*np+o): bport[i] is output i's port, bdown[i] the
	 * switch at its far end (global), bup[i] the cred[] index (global,
	 * vc 0) of the output feeding the input on the same link (every
	 * link is a pair of channels, sim_wire()).
	 */
	uint32_t *bport, *bdown, *bup;
	uint64_t boundary;      /* outputs whose far end is another rank's */
	/* one epoch's traffic: records as they are sent (slog), then packed
	 * in rank order for the transport (spack); what comes in (rbuf) */
	uint8_t *slog, *spack, *rbuf;
	size_t slog_n, scap, rcap;
	int deliveries;         /* the buffers have room for deliveries */
	uint64_t *scount, *rcount;      /* nranks: bytes to, from each rank */
	size_t *at;             /* nranks: where each rank's records go */
	size_t sync_n;          /* words of the epoch's state */
	uint64_t *sync_row;     /* sync_n + nranks: the state, then scount */
	uint64_t *sync_all;     /* nranks rows of sync_row */
	uint64_t *red;          /* sim_reduce_words_max(), for the results */
	uint64_t *link_all;     /* ns_all*np, when gathered */
};

int
tt_sim_part(const tt_net *net, int nranks, int rank, uint32_t *first,
    uint32_t *end)
{
	uint64_t cpn = net->twin ? 2 : 1, nodes = net->ncards / cpn;

	if (nranks < 1 || rank < 0 || rank >= nranks || (uint64_t)nranks > nodes)
		return -1;
	*first = (uint32_t)(nodes * (uint64_t)rank / (uint64_t)nranks * cpn);
	*end = (uint32_t)(nodes * (uint64_t)(rank + 1) / (uint64_t)nranks * cpn);
	return 0;
}

/* The rank holding global switch g. */
static int
owner(const struct sim_part *pt, uint32_t g)
{
	int lo = 0, hi = pt->comm.nranks - 1;

	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;

		if (pt->first[mid] <= g)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* Outputs of switches [first, end) whose far end is outside them; lay has
 * the layout (sim_layout()). */
static uint64_t
boundary_links(const tt_sim *lay, uint32_t first, uint32_t end)
{
	uint64_t n = 0;
	uint32_t s, peer;
	int o, po;

	for (s = first; s < end; s++)
		for (o = 0; o < lay->np - 1; o++) {
			peer = tt_link_peer(lay->net, s,
			    lay->port_id[side_of(lay, s)][o], &po);
			if (peer < first || peer >= end)
				n++;
		}
	return n;
}

/* Bytes one epoch sends and receives at most (see the top of the file). */
static void
epoch_bytes(const tt_simparams *p, uint64_t boundary, uint64_t ns,
    uint64_t ns_all, int deliveries, uint64_t *send, uint64_t *recv)
{
	uint64_t g = (uint64_t)sim_epoch(p);

	*send = g * boundary * (sizeof(struct msg_pkt) + sizeof(struct msg_cred));
	*recv = *send;
	if (deliveries) {
		*send += g * ns * sizeof(struct msg_dlv);
		*recv += g * (ns_all - ns) * sizeof(struct msg_dlv);
	}
}

/* Bytes part_new() allocates besides the buffers of epoch_bytes(). */
static uint64_t
part_fixed_bytes(uint64_t boundary, int nranks)
{
	uint64_t R = (uint64_t)nranks;
	size_t nr;
	const tt_sim_row *rows = sim_rows(SIM_SET_EPOCH, &nr);
	uint64_t sync_n = sim_reduce_words(rows, nr);

	return sizeof(struct sim_part) + (R + 1) * 4 + boundary * 12 +
	    2 * R * 8 + R * sizeof(size_t) + (sync_n + R) * 8 + R * (sync_n + R) * 8 +
	    sim_reduce_words_max() * 8;
}

/* Bytes rank `rank` of nranks allocates, without deliveries. */
static uint64_t
part_memory(const tt_net *net, const tt_simparams *p, int nranks, int rank)
{
	tt_sim lay;
	uint32_t first, end;
	uint64_t send, recv, b;

	tt_sim_part(net, nranks, rank, &first, &end);
	sim_layout_of(&lay, net, p);
	b = boundary_links(&lay, first, end);
	epoch_bytes(p, b, end - first, net->ncards, 0, &send, &recv);
	return sim_memory_switches(net, p, end - first) +
	    part_fixed_bytes(b, nranks) + 2 * send + recv;
}

uint64_t
tt_sim_memory_part(const tt_net *net, const tt_simparams *p, int nranks)
{
	uint32_t first, end;
	uint64_t most = 0, m;
	int r;

	if (nranks <= 1)
		return tt_sim_memory(net, p);
	if (tt_sim_part(net, nranks, 0, &first, &end) < 0)
		return 0;
	for (r = 0; r < nranks; r++)
		if ((m = part_memory(net, p, nranks, r)) > most)
			most = m;
	return most;
}

static void *
alloc_bytes(uint64_t n)
{
	return malloc(n > 0 ? (size_t)n : 1);
}

/* The epoch buffers, with room for deliveries or not; -1 if out of
 * memory (the old buffers stay). */
static int
part_buffers(tt_sim *sim, int deliveries)
{
	struct sim_part *pt = sim->part;
	uint64_t send, recv;
	uint8_t *a, *b, *c;

	epoch_bytes(&sim->p, pt->boundary, sim->ns, sim->ns_all, deliveries,
	    &send, &recv);
	a = alloc_bytes(send);
	b = alloc_bytes(send);
	c = alloc_bytes(recv);
	if (a == NULL || b == NULL || c == NULL) {
		free(a);
		free(b);
		free(c);
		return -1;
	}
	free(pt->slog);
	free(pt->spack);
	free(pt->rbuf);
	pt->slog = a;
	pt->spack = b;
	pt->rbuf = c;
	pt->scap = (size_t)send;
	pt->rcap = (size_t)recv;
	pt->deliveries = deliveries;
	return 0;
}

/* The partition of sim (switches, part and wiring set): -1 if out of
 * memory, with what was allocated in sim->part for tt_sim_free(). */
static int
part_new(tt_sim *sim, const tt_sim_comm *comm)
{
	struct sim_part *pt = calloc(1, sizeof(*pt));
	uint64_t npo = (uint64_t)sim->ns * (uint64_t)sim->np, so;
	size_t R = (size_t)comm->nranks, nr;
	const tt_sim_row *rows = sim_rows(SIM_SET_EPOCH, &nr);
	uint64_t nb;
	int r;

	if ((sim->part = pt) == NULL)
		return -1;
	pt->comm = *comm;
	pt->sync_n = sim_reduce_words(rows, nr);
	pt->first = calloc(R + 1, sizeof(uint32_t));
	pt->boundary = boundary_links(sim, sim->s0, sim->s0 + sim->ns);
	pt->bport = calloc(pt->boundary + 1, sizeof(uint32_t));
	pt->bdown = calloc(pt->boundary + 1, sizeof(uint32_t));
	pt->bup = calloc(pt->boundary + 1, sizeof(uint32_t));
	pt->scount = calloc(R, sizeof(uint64_t));
	pt->rcount = calloc(R, sizeof(uint64_t));
	pt->at = calloc(R, sizeof(size_t));
	pt->sync_row = calloc(pt->sync_n + R, sizeof(uint64_t));
	pt->sync_all = calloc(R * (pt->sync_n + R), sizeof(uint64_t));
	pt->red = calloc(sim_reduce_words_max(), sizeof(uint64_t));
	if (!pt->first || !pt->bport || !pt->bdown || !pt->bup || !pt->scount ||
	    !pt->rcount || !pt->at || !pt->sync_row || !pt->sync_all || !pt->red)
		return -1;
	for (r = 0; r < comm->nranks; r++)
		tt_sim_part(sim->net, comm->nranks, r, &pt->first[r],
		    &pt->first[r + 1]);
	for (so = 0, nb = 0; so < npo; so++) {
		uint32_t down, up;
		uint8_t din;

		sim_wire(sim, sim->s0 + (uint32_t)(so / (uint64_t)sim->np),
		    (int)(so % (uint64_t)sim->np), &down, &din, &up);
		if (down >= sim->s0 && down - sim->s0 < sim->ns)
			continue;
		pt->bport[nb] = (uint32_t)so;
		pt->bdown[nb] = down;
		pt->bup[nb++] = up;
	}
	return part_buffers(sim, 0);
}

void
sim_part_free(struct sim_part *pt)
{
	if (pt == NULL)
		return;
	free(pt->first);
	free(pt->bport);
	free(pt->bdown);
	free(pt->bup);
	free(pt->slog);
	free(pt->spack);
	free(pt->rbuf);
	free(pt->scount);
	free(pt->rcount);
	free(pt->at);
	free(pt->sync_row);
	free(pt->sync_all);
	free(pt->red);
	free(pt->link_all);
	free(pt);
}

int
sim_part_all_ok(const tt_sim_comm *comm, int ok, int *bad_rank)
{
	uint64_t first_bad = ok ? UINT64_MAX : (uint64_t)comm->rank;

	comm->allreduce(comm->ctx, &first_bad, 1, TT_SIM_MIN);
	*bad_rank = first_bad == UINT64_MAX ? -1 : (int)first_bad;
	return *bad_rank < 0 ? 0 : -1;
}

int
tt_sim_create_part(tt_sim **simp, const tt_net *net, const tt_simparams *p,
    const tt_sim_comm *comm, char *err, size_t errsz)
{
	tt_sim *sim;
	uint32_t first, end;
	int bad, ok;

	if (comm == NULL)
		return tt_sim_create(simp, net, p, err, errsz);
	*simp = NULL;
	if (tt_sim_check(net, p, err, errsz) < 0)
		return -1;
	if (tt_sim_part(net, comm->nranks, comm->rank, &first, &end) < 0)
		return tt_errf(err, errsz, "%d ranks for a network of %u "
		    "nodes: use at most one rank per node", comm->nranks,
		    net->twin ? net->ncards / 2 : net->ncards);
	sim = sim_new(net, p, first, end);
	if (sim != NULL)
		sim->big = sim_big(net, p, sim->ns, comm->local);
	ok = sim != NULL && sim_build(sim) == 0 && part_new(sim, comm) == 0;
	if (sim_part_all_ok(comm, ok, &bad) < 0) {
		tt_sim_free(sim);
		return tt_errf(err, errsz, "rank %d of %d ran out of memory "
		    "building its part of the switches of %u cards; use more "
		    "ranks (ttsim run --dry-run --ranks N tells how much each "
		    "needs)", bad, comm->nranks, (unsigned)net->ncards);
	}
	sim->dist = 1;
	*simp = sim;
	return 0;
}

int
sim_part_deliveries(tt_sim *sim, char *err, size_t errsz)
{
	struct sim_part *pt = sim->part;
	int bad;

	if (pt->deliveries)
		return 0;
	if (sim_part_all_ok(&pt->comm, part_buffers(sim, 1) == 0, &bad) < 0)
		return tt_errf(err, errsz, "rank %d of %d ran out of memory for "
		    "the deliveries the other ranks report to it (one per "
		    "switch of theirs per epoch)", bad, pt->comm.nranks);
	return 0;
}

int
tt_sim_gather_links(tt_sim *sim, char *err, size_t errsz)
{
	struct sim_part *pt = sim->part;
	int bad;

	if (!sim->dist || pt->link_all != NULL)
		return 0;
	pt->link_all = calloc((size_t)sim->ns_all * (size_t)sim->np,
	    sizeof(uint64_t));
	if (sim_part_all_ok(&pt->comm, pt->link_all != NULL, &bad) < 0) {
		free(pt->link_all);
		pt->link_all = NULL;
		return tt_errf(err, errsz, "rank %d of %d ran out of memory for "
		    "the link counts of %u cards", bad, pt->comm.nranks,
		    (unsigned)sim->ns_all);
	}
	return 0;
}

void
tt_sim_local(const tt_sim *sim, uint32_t *first, uint32_t *end)
{
	*first = sim->s0;
	*end = sim->s0 + sim->ns;
}

int
sim_part_rank(const tt_sim *sim)
{
	return sim->dist ? sim->part->comm.rank : 0;
}

const uint64_t *
sim_part_links(const tt_sim *sim)
{
	return sim->dist ? sim->part->link_all : NULL;
}

/* ---- the exchange ---- */

/* A record of n bytes for the rank holding global switch g: room for it
 * was made when the part was built (see the top of the file). */
static void
log_add(struct sim_part *pt, uint32_t g, const void *rec, size_t n)
{
	memcpy(pt->slog + pt->slog_n, rec, n);
	pt->slog_n += n;
	pt->scount[owner(pt, g)] += n;
}

/* Port so's place among the links to other ranks (it is one). */
static uint32_t
boundary_at(const struct sim_part *pt, uint64_t so)
{
	uint32_t lo = 0, hi = (uint32_t)pt->boundary - 1;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (pt->bport[mid] < so)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void
sim_part_send_credit(tt_sim *sim, uint64_t si, int v, uint64_t when)
{
	struct sim_part *pt = sim->part;
	struct msg_cred m = {MSG_CRED, pt->bup[boundary_at(pt, si)] +
	    (uint32_t)v, when};

	log_add(pt, m.idx / (uint32_t)(sim->np * sim->V), &m, sizeof(m));
}

void
sim_part_send_packet(tt_sim *sim, uint64_t so, int pv, const struct pkt *pk)
{
	struct sim_part *pt = sim->part;
	struct msg_pkt m;

	memset(&m, 0, sizeof(m));
	m.kind = MSG_PKT;
	m.ds = pt->bdown[boundary_at(pt, so)];
	m.din = sim->port[so].down_in;
	m.pv = (uint8_t)pv;
	memcpy(m.pk, pk, PKT_WIRE);
	log_add(pt, m.ds, &m, sizeof(m));
}

void
sim_part_send_delivery(tt_sim *sim, const tt_delivery *d)
{
	struct msg_dlv m;

	memset(&m, 0, sizeof(m));
	m.kind = MSG_DLV;
	m.d = *d;
	log_add(sim->part, d->src, &m, sizeof(m));
}

/* A record's size and the rank it goes to. */
static size_t
rec_dest(const tt_sim *sim, const uint8_t *p, int *rank)
{
	const struct sim_part *pt = sim->part;
	uint32_t kind, g;

	memcpy(&kind, p, sizeof(kind));
	if (kind == MSG_PKT) {
		memcpy(&g, p + offsetof(struct msg_pkt, ds), sizeof(g));
		*rank = owner(pt, g);
		return sizeof(struct msg_pkt);
	}
	if (kind == MSG_CRED) {
		memcpy(&g, p + offsetof(struct msg_cred, idx), sizeof(g));
		*rank = owner(pt, g / (uint32_t)(sim->np * sim->V));
		return sizeof(struct msg_cred);
	}
	memcpy(&g, p + offsetof(struct msg_dlv, d.src), sizeof(g));
	*rank = owner(pt, g);
	return sizeof(struct msg_dlv);
}

/* The log packed into spack in rank order, each rank's records in the
 * order they were sent; the log and the counts start again. */
static void
pack_log(tt_sim *sim)
{
	struct sim_part *pt = sim->part;
	size_t off = 0, i, n;
	int r;

	for (r = 0; r < pt->comm.nranks; r++) {
		pt->at[r] = off;
		off += (size_t)pt->scount[r];
	}
	for (i = 0; i < pt->slog_n; i += n) {
		n = rec_dest(sim, pt->slog + i, &r);
		memcpy(pt->spack + pt->at[r], pt->slog + i, n);
		pt->at[r] += n;
	}
	pt->slog_n = 0;
}

/* What the other ranks sent: packets into their input VCs (in their
 * sender's order, which is the order the one upstream output granted
 * them), credits onto the wheel, deliveries to the source. */
static void
receive(tt_sim *sim, const uint8_t *p, const uint8_t *end)
{
	while (p < end) {
		uint32_t kind;

		memcpy(&kind, p, sizeof(kind));
		if (kind == MSG_PKT) {
			struct msg_pkt m;
			struct pkt pk;

			memcpy(&m, p, sizeof(m));
			p += sizeof(m);
			memset(&pk, 0, sizeof(pk));
			memcpy(&pk, m.pk, PKT_WIRE);
			sim_receive_packet(sim, m.ds - sim->s0, m.din, m.pv, &pk);
		} else if (kind == MSG_CRED) {
			struct msg_cred m;

			memcpy(&m, p, sizeof(m));
			p += sizeof(m);
			sim_receive_credit(sim, m.when, m.idx - sim->s0 *
			    (uint32_t)(sim->np * sim->V));
		} else {
			struct msg_dlv m;

			memcpy(&m, p, sizeof(m));
			p += sizeof(m);
			sim->on_deliver(sim->deliver_ctx, &m.d);
		}
	}
}

/*
 * Every rank learns the others' state (g, combined) and how much each
 * sends it, then gets what crossed into its part.  Everything received is
 * due at or after the next cycle.
 */
void
sim_part_sync(tt_sim *sim, struct sim_gstate *g)
{
	struct sim_part *pt = sim->part;
	const int R = pt->comm.nranks;
	const size_t n = pt->sync_n, stride = n + (size_t)R;
	size_t nr;
	const tt_sim_row *rows = sim_rows(SIM_SET_EPOCH, &nr);
	uint64_t total = 0, moved = 0;
	int r;

	sim_reduce_pack(rows, nr, g, pt->sync_row);
	for (r = 0; r < R; r++)
		pt->sync_row[n + (size_t)r] = pt->scount[r];
	pt->comm.allgather(pt->comm.ctx, pt->sync_row, stride, pt->sync_all);
	sim_reduce_rows(rows, nr, g, pt->sync_all, R, stride);
	for (r = 0; r < R; r++) {
		pt->rcount[r] = pt->sync_all[(size_t)r * stride + n +
		    (size_t)pt->comm.rank];
		total += pt->rcount[r];
	}
	/* collective: skipped only if no rank sends anything */
	for (r = 0; r < R * R; r++)
		moved += pt->sync_all[(size_t)(r / R) * stride + n + (size_t)(r % R)];
	if (moved == 0)
		return;
	pack_log(sim);
	pt->comm.alltoallv(pt->comm.ctx, pt->spack, pt->scount, pt->rbuf,
	    pt->rcount);
	memset(pt->scount, 0, sizeof(uint64_t) * (size_t)R);
	receive(sim, pt->rbuf, pt->rbuf + total);
}

uint64_t
sim_part_first_wake(tt_sim *sim, uint64_t t)
{
	uint64_t wake = sim_first_wake(sim, t);

	sim->part->comm.allreduce(sim->part->comm.ctx, &wake, 1, TT_SIM_MIN);
	return wake;
}

/* ---- after the run ---- */

int
sim_part_gather(tt_sim *sim, const uint32_t *mine, uint64_t per_switch,
    uint32_t **all)
{
	struct sim_part *pt = sim->part;
	const uint64_t bytes = per_switch * sizeof(uint32_t);
	const int R = pt->comm.nranks, root = pt->comm.rank == 0;
	int r, bad;

	*all = root ? alloc_bytes((uint64_t)sim->ns_all * bytes) : NULL;
	if (sim_part_all_ok(&pt->comm, mine != NULL && (!root || *all != NULL),
	    &bad) < 0) {
		free(*all);
		*all = NULL;
		return -1;
	}
	memset(pt->scount, 0, sizeof(uint64_t) * (size_t)R);
	memset(pt->rcount, 0, sizeof(uint64_t) * (size_t)R);
	pt->scount[0] = (uint64_t)sim->ns * bytes;
	for (r = 0; root && r < R; r++)
		pt->rcount[r] = (uint64_t)(pt->first[r + 1] - pt->first[r]) * bytes;
	pt->comm.alltoallv(pt->comm.ctx, mine, pt->scount, *all, pt->rcount);
	memset(pt->scount, 0, sizeof(uint64_t) * (size_t)R);
	memset(pt->rcount, 0, sizeof(uint64_t) * (size_t)R);
	return 0;
}

void
sim_part_finish(tt_sim *sim, tt_simresult *res)
{
	struct sim_part *pt = sim->part;
	size_t np = (size_t)sim->np;

	size_t nr;
	const tt_sim_row *rows = sim_rows(SIM_SET_RUN, &nr);

	sim_reduce_all(&pt->comm, rows, nr, res, pt->red,
	    sim_reduce_words_max());
	if (pt->link_all == NULL)
		return;
	memset(pt->link_all, 0, (size_t)sim->ns_all * np * sizeof(uint64_t));
	memcpy(pt->link_all + (size_t)sim->s0 * np, sim->link_flits,
	    (size_t)sim->ns * np * sizeof(uint64_t));
	if (pt->comm.nranks > 1)
		pt->comm.allreduce(pt->comm.ctx, pt->link_all,
		    (size_t)sim->ns_all * np, TT_SIM_SUM);
}

void
sim_part_sum(tt_sim *sim, uint64_t *v, size_t n)
{
	if (sim->part->comm.nranks > 1)
		sim->part->comm.allreduce(sim->part->comm.ctx, v, n, TT_SIM_SUM);
}

void
tt_sim_reduce(const tt_sim *sim, const tt_sim_row *rows, size_t nrows,
    void *obj)
{
	if (sim->dist)
		sim_reduce_all(&sim->part->comm, rows, nrows, obj,
		    sim->part->red, sim_reduce_words_max());
}
