/*
 * mpihalo: a small 3D halo exchange, an MPI program of the testbed's own.
 *
 *   mpirun -np P mpihalo [-n EDGE] [-i ITERS] [-w WORK]
 *
 * The P ranks form the most cubic periodic 3D grid MPI_Dims_create gives;
 * each holds EDGE^3 cells.  Every iteration exchanges the six faces with
 * the six neighbours (nonblocking receives and sends, then one wait), then
 * computes: a 7-point stencil on every cell, followed by WORK rounds of a
 * pointwise mix, so that the compute between exchanges can be sized
 * without changing the messages.
 *
 * Cells are 32-bit unsigned integers and the arithmetic wraps, so the
 * result does not depend on how the grid is cut: after the run rank 0
 * computes the whole global grid alone and compares the sum of all cells
 * (exact, mod 2^64) with the distributed one.  A halo byte lost or
 * misplaced on the way changes the sum.  The closing line is what the
 * testbed reads:
 *
 *   mpihalo: 16 ranks 4x2x2, 16^3 cells each, 10 iterations, 1 work:
 *   wall 0.123456 s, compute 0.0100 s per rank, 960 messages,
 *   983040 bytes, checksum 0x... ok
 *
 * (one line).  Wall time runs from a barrier before the first exchange to
 * the last rank's end of its last iteration (MPI_Wtime, the maximum over
 * the ranks).  Exit 0 only when the check agrees (rank 0's status; the
 * others exit 0).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

struct halo {
	int edge, iters, work;
	int rank, size, dims[3], coord[3];
	int nbr[6];                     /* -x, +x, -y, +y, -z, +z */
	MPI_Comm cart;
	uint32_t *a, *b;                /* (edge+2)^3, ghost layer included */
	uint32_t *sendbuf[6], *recvbuf[6];
	uint64_t messages, bytes;
	double compute_s;
};

/* The value a cell starts with: a hash of its global coordinates. */
static uint32_t
halo_init_value(int gx, int gy, int gz)
{
	uint32_t h = (uint32_t)gx * 73856093u ^ (uint32_t)gy * 19349663u ^
	    (uint32_t)gz * 83492791u;

	h ^= h >> 15;
	h *= 2246822519u;
	h ^= h >> 13;
	return h;
}

/* One step of a cell: the stencil, then the pointwise work. */
static uint32_t
halo_step(uint32_t c, uint32_t xm, uint32_t xp, uint32_t ym, uint32_t yp,
    uint32_t zm, uint32_t zp, int work)
{
	uint32_t v = 3u * c + xm + xp + 2u * (ym + yp) + 5u * (zm + zp) + 1u;
	int k;

	for (k = 0; k < work; k++) {
		v ^= v << 13;
		v ^= v >> 17;
		v ^= v << 5;
	}
	return v;
}

/* Index in a box of edges ex, ey, ez with a ghost layer. */
#define HIDX(x, y, z, ey, ez)	(((size_t)(x) * ((ey) + 2) + (y)) * ((ez) + 2) + (z))

/* One stencil sweep of a box with ghosts filled, from a to b. */
static void
halo_sweep(const uint32_t *a, uint32_t *b, int ex, int ey, int ez, int work)
{
	int x, y, z;

	for (x = 1; x <= ex; x++)
		for (y = 1; y <= ey; y++)
			for (z = 1; z <= ez; z++)
				b[HIDX(x, y, z, ey, ez)] = halo_step(
				    a[HIDX(x, y, z, ey, ez)],
				    a[HIDX(x - 1, y, z, ey, ez)],
				    a[HIDX(x + 1, y, z, ey, ez)],
				    a[HIDX(x, y - 1, z, ey, ez)],
				    a[HIDX(x, y + 1, z, ey, ez)],
				    a[HIDX(x, y, z - 1, ey, ez)],
				    a[HIDX(x, y, z + 1, ey, ez)], work);
}

/*
 * Face f of the box (0 = low x, 1 = high x, 2 = low y, ...): with out,
 * its first inner layer into buf; otherwise buf into its ghost layer.
 */
static void
halo_face(uint32_t *box, int n, int f, uint32_t *buf, int out)
{
	int d = f / 2, i, j, p, x, y, z;

	p = f % 2 == 0 ? (out ? 1 : 0) : (out ? n : n + 1);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			/* the face's two free axes, in x, y, z order */
			x = d == 0 ? p : i + 1;
			y = d == 1 ? p : (d == 0 ? i + 1 : j + 1);
			z = d == 2 ? p : j + 1;
			if (out)
				buf[(size_t)i * n + j] = box[HIDX(x, y, z, n, n)];
			else
				box[HIDX(x, y, z, n, n)] = buf[(size_t)i * n + j];
		}
}

/* Serial periodic ghosts of the whole global box (the check). */
static void
halo_wrap(uint32_t *g, int gx, int gy, int gz)
{
	int x, y, z;

	for (y = 1; y <= gy; y++)
		for (z = 1; z <= gz; z++) {
			g[HIDX(0, y, z, gy, gz)] = g[HIDX(gx, y, z, gy, gz)];
			g[HIDX(gx + 1, y, z, gy, gz)] = g[HIDX(1, y, z, gy, gz)];
		}
	for (x = 1; x <= gx; x++)
		for (z = 1; z <= gz; z++) {
			g[HIDX(x, 0, z, gy, gz)] = g[HIDX(x, gy, z, gy, gz)];
			g[HIDX(x, gy + 1, z, gy, gz)] = g[HIDX(x, 1, z, gy, gz)];
		}
	for (x = 1; x <= gx; x++)
		for (y = 1; y <= gy; y++) {
			g[HIDX(x, y, 0, gy, gz)] = g[HIDX(x, y, gz, gy, gz)];
			g[HIDX(x, y, gz + 1, gy, gz)] = g[HIDX(x, y, 1, gy, gz)];
		}
}

static uint64_t
halo_sum(const uint32_t *box, int ex, int ey, int ez)
{
	uint64_t s = 0;
	int x, y, z;

	for (x = 1; x <= ex; x++)
		for (y = 1; y <= ey; y++)
			for (z = 1; z <= ez; z++)
				s += box[HIDX(x, y, z, ey, ez)];
	return s;
}

/* The whole problem on one rank: what the distributed run must give. */
static int
halo_serial_sum(const struct halo *h, uint64_t *sum)
{
	int gx = h->edge * h->dims[0], gy = h->edge * h->dims[1];
	int gz = h->edge * h->dims[2], x, y, z, it;
	size_t cells = (size_t)(gx + 2) * (gy + 2) * (gz + 2);
	uint32_t *a = calloc(cells, sizeof(*a)), *b = calloc(cells, sizeof(*b));
	uint32_t *t;

	if (a == NULL || b == NULL) {
		free(a);
		free(b);
		return -1;
	}
	for (x = 1; x <= gx; x++)
		for (y = 1; y <= gy; y++)
			for (z = 1; z <= gz; z++)
				a[HIDX(x, y, z, gy, gz)] = halo_init_value(x - 1,
				    y - 1, z - 1);
	for (it = 0; it < h->iters; it++) {
		halo_wrap(a, gx, gy, gz);
		halo_sweep(a, b, gx, gy, gz, h->work);
		t = a;
		a = b;
		b = t;
	}
	*sum = halo_sum(a, gx, gy, gz);
	free(a);
	free(b);
	return 0;
}

static void
halo_exchange(struct halo *h)
{
	MPI_Request req[12];
	int n = h->edge, f, count = n * n;

	for (f = 0; f < 6; f++)
		/* what arrives from the neighbour on side f was sent
		 * from its opposite face, tagged with that face */
		MPI_Irecv(h->recvbuf[f], count, MPI_UINT32_T, h->nbr[f],
		    f ^ 1, h->cart, &req[f]);
	for (f = 0; f < 6; f++) {
		halo_face(h->a, n, f, h->sendbuf[f], 1);
		MPI_Isend(h->sendbuf[f], count, MPI_UINT32_T, h->nbr[f], f,
		    h->cart, &req[6 + f]);
		h->messages++;
		h->bytes += (uint64_t)count * sizeof(uint32_t);
	}
	MPI_Waitall(12, req, MPI_STATUSES_IGNORE);
	for (f = 0; f < 6; f++)
		halo_face(h->a, n, f, h->recvbuf[f], 0);
}

static int
halo_setup(struct halo *h)
{
	int periods[3] = { 1, 1, 1 }, n = h->edge, d, f, x, y, z;
	size_t cells = (size_t)(n + 2) * (n + 2) * (n + 2);

	MPI_Dims_create(h->size, 3, h->dims);
	MPI_Cart_create(MPI_COMM_WORLD, 3, h->dims, periods, 0, &h->cart);
	MPI_Comm_rank(h->cart, &h->rank);
	MPI_Cart_coords(h->cart, h->rank, 3, h->coord);
	for (d = 0; d < 3; d++)
		MPI_Cart_shift(h->cart, d, 1, &h->nbr[2 * d], &h->nbr[2 * d + 1]);
	h->a = calloc(cells, sizeof(uint32_t));
	h->b = calloc(cells, sizeof(uint32_t));
	if (h->a == NULL || h->b == NULL)
		return -1;
	for (f = 0; f < 6; f++) {
		h->sendbuf[f] = malloc((size_t)n * n * sizeof(uint32_t));
		h->recvbuf[f] = malloc((size_t)n * n * sizeof(uint32_t));
		if (h->sendbuf[f] == NULL || h->recvbuf[f] == NULL)
			return -1;
	}
	for (x = 1; x <= n; x++)
		for (y = 1; y <= n; y++)
			for (z = 1; z <= n; z++)
				h->a[HIDX(x, y, z, n, n)] = halo_init_value(
				    h->coord[0] * n + x - 1,
				    h->coord[1] * n + y - 1,
				    h->coord[2] * n + z - 1);
	return 0;
}

static void
halo_usage(void)
{
	fprintf(stderr, "usage: mpihalo [-n EDGE] [-i ITERS] [-w WORK]\n"
	    "  EDGE: cells per rank along each axis (1..512, default 16)\n"
	    "  ITERS: iterations (default 10); WORK: mixing rounds per cell "
	    "and iteration (default 1)\n");
}

static int
halo_args(struct halo *h, int argc, char **argv)
{
	char *end;
	long v;
	int c;

	h->edge = 16;
	h->iters = 10;
	h->work = 1;
	opterr = h->rank == 0;
	while ((c = getopt(argc, argv, "n:i:w:")) != -1) {
		if (c != 'n' && c != 'i' && c != 'w')
			return -1;
		v = strtol(optarg, &end, 10);
		if (*end != '\0' || v < (c == 'n' ? 1 : 0) ||
		    v > (c == 'n' ? 512 : 1000000)) {
			if (h->rank == 0)
				fprintf(stderr, "mpihalo: -%c %s: not a "
				    "number in range\n", c, optarg);
			return -1;
		}
		if (c == 'n')
			h->edge = (int)v;
		else if (c == 'i')
			h->iters = (int)v;
		else
			h->work = (int)v;
	}
	return optind == argc ? 0 : -1;
}

int
main(int argc, char **argv)
{
	struct halo h;
	double t0, t1, wall, comp_sum, c0;
	uint64_t mine[3], all[3], serial = 0;
	uint32_t *t;
	int it, n, ok;

	memset(&h, 0, sizeof(h));
	MPI_Init(&argc, &argv);
	MPI_Comm_size(MPI_COMM_WORLD, &h.size);
	MPI_Comm_rank(MPI_COMM_WORLD, &h.rank);
	if (halo_args(&h, argc, argv) < 0) {
		if (h.rank == 0)
			halo_usage();
		MPI_Finalize();
		return 64;
	}
	if (halo_setup(&h) < 0) {
		fprintf(stderr, "mpihalo: out of memory for %d^3 cells\n",
		    h.edge);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	n = h.edge;
	MPI_Barrier(h.cart);
	t0 = MPI_Wtime();
	for (it = 0; it < h.iters; it++) {
		halo_exchange(&h);
		c0 = MPI_Wtime();
		halo_sweep(h.a, h.b, n, n, n, h.work);
		h.compute_s += MPI_Wtime() - c0;
		t = h.a;
		h.a = h.b;
		h.b = t;
	}
	t1 = MPI_Wtime() - t0;
	mine[0] = halo_sum(h.a, n, n, n);
	mine[1] = h.messages;
	mine[2] = h.bytes;
	MPI_Reduce(&t1, &wall, 1, MPI_DOUBLE, MPI_MAX, 0, h.cart);
	MPI_Reduce(&h.compute_s, &comp_sum, 1, MPI_DOUBLE, MPI_SUM, 0, h.cart);
	MPI_Reduce(mine, all, 3, MPI_UINT64_T, MPI_SUM, 0, h.cart);
	MPI_Finalize();
	if (h.rank != 0)
		return 0;
	/*
	 * The check runs after MPI_Finalize, so that a capture of the run
	 * ends with the program's last message rather than with rank 0's
	 * serial computation; mpirun reports rank 0's exit status.
	 */
	if (halo_serial_sum(&h, &serial) < 0) {
		fprintf(stderr, "mpihalo: out of memory for the serial check\n");
		return 1;
	}
	ok = serial == all[0];
	printf("mpihalo: %d ranks %dx%dx%d, %d^3 cells each, %d iterations, "
	    "%d work: wall %.6f s, compute %.4f s per rank, %" PRIu64
	    " messages, %" PRIu64 " bytes, checksum 0x%016" PRIx64 " %s\n",
	    h.size, h.dims[0], h.dims[1], h.dims[2], n, h.iters, h.work, wall,
	    comp_sum / h.size, all[1], all[2], all[0], ok ? "ok" : "WRONG");
	if (!ok)
		fprintf(stderr, "mpihalo: the distributed result 0x%016" PRIx64
		    " differs from the serial 0x%016" PRIx64 "\n", all[0],
		    serial);
	return ok ? 0 : 1;
}
