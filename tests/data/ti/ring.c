/*
 * A small MPI program for tests/cli/simgrid-ti.sh, run under SimGrid
 * (smpicc, smpirun -trace-ti) to record a time-independent trace whose
 * message count is known from the program alone.  With N ranks and ITERS
 * iterations, each iteration:
 *   - a blocking ring: each rank MPI_Send's 1 KiB to rank+1 and MPI_Recv's
 *     from rank-1 (even ranks send first, odd ranks receive first, so that
 *     a rendezvous send never waits for a receive not yet posted): N;
 *   - a non-blocking halo: MPI_Irecv from both neighbours, MPI_Isend of
 *     64 doubles to both, MPI_Waitall: 2N;
 *   - some compute;
 * then MPI_Bcast from rank 0, MPI_Allreduce and MPI_Barrier once each.
 * Point-to-point messages: 3 * N * ITERS.
 */
#include <mpi.h>
#include <stdio.h>

#define ITERS 3

int
main(int argc, char **argv)
{
	static char ring[1024], got[1024];
	double halo[2][64] = {{0}}, in[2][64], v = 1, sum = 0;
	MPI_Request rq[4];
	int r, n, it, i, left, right;
	volatile double x = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	left = (r + n - 1) % n;
	right = (r + 1) % n;
	for (it = 0; it < ITERS; it++) {
		if (r % 2 == 0) {
			MPI_Send(ring, sizeof(ring), MPI_CHAR, right, 1,
			    MPI_COMM_WORLD);
			MPI_Recv(got, sizeof(got), MPI_CHAR, left, 1,
			    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(got, sizeof(got), MPI_CHAR, left, 1,
			    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(ring, sizeof(ring), MPI_CHAR, right, 1,
			    MPI_COMM_WORLD);
		}
		MPI_Irecv(in[0], 64, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &rq[0]);
		MPI_Irecv(in[1], 64, MPI_DOUBLE, right, 3, MPI_COMM_WORLD,
		    &rq[1]);
		MPI_Isend(halo[0], 64, MPI_DOUBLE, right, 2, MPI_COMM_WORLD,
		    &rq[2]);
		MPI_Isend(halo[1], 64, MPI_DOUBLE, left, 3, MPI_COMM_WORLD,
		    &rq[3]);
		MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
		for (i = 0; i < 200000; i++)
			x += i * 0.5;
	}
	MPI_Bcast(&v, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return sum > 0 ? 0 : 1;
}
