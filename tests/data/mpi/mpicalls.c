/*
 * mpicalls: an MPI program that makes every call ttmpitrace records
 * (tests/cli/mpitrace.sh runs it on 4 ranks with the library preloaded
 * and checks the archive against the counts below).
 *
 *   mpicalls
 *
 * On N ranks (at least 3), r's neighbours r+1 and r-1 (mod N):
 *   1. MPI_Sendrecv of 100 bytes to r+1 from r-1: N messages;
 *   2. MPI_Irecv from r-1, MPI_Isend of 200 bytes to r+1, both completed
 *      by MPI_Waitany twice: N;
 *   3. MPI_Irecv from r+1, MPI_Isend of 300 bytes to r-1, completed by
 *      MPI_Testsome until both are done: N;
 *   4. rank 0 MPI_Ssend of 50 bytes to rank 1, which receives from
 *      MPI_ANY_SOURCE: 1;
 *   5. rank 1 posts MPI_Irecv from rank 2, all ranks MPI_Barrier, rank 2
 *      MPI_Rsend of 60 bytes, rank 1 MPI_Wait: 1;
 *   6. rank 0 MPI_Isend of 70 bytes to rank 2 and MPI_Request_free of
 *      it, rank 2 MPI_Recv: 1;
 *   7. MPI_Send to MPI_PROC_NULL: none;
 *   8. on MPI_COMM_WORLD, one call each of MPI_Bcast, MPI_Reduce,
 *      MPI_Allreduce, MPI_Gather, MPI_Gatherv, MPI_Scatter, MPI_Scatterv,
 *      MPI_Allgather, MPI_Allgatherv, MPI_Alltoall, MPI_Alltoallv,
 *      MPI_Reduce_scatter, MPI_Reduce_scatter_block, MPI_Scan, MPI_Exscan
 *      and MPI_Barrier (with 5's barrier: 17 calls);
 *   9. MPI_Comm_split into the even and the odd ranks, an MPI_Allreduce
 *      on each (2 calls), MPI_Comm_free.
 * Point to point: 3N + 3 messages, 600N + 180 bytes; 19 collective calls.
 * Prints "mpicalls: N ranks ok" on rank 0; exit 1 if a check fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

static void
check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "mpicalls: %s\n", what);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

static void
point_to_point(int r, int n)
{
	char sb[300], rb[300];
	MPI_Request q[2];
	MPI_Status st;
	int idx, i, done = 0, outn, outi[2], right = (r + 1) % n,
	    left = (r + n - 1) % n;

	memset(sb, r, sizeof(sb));
	MPI_Sendrecv(sb, 100, MPI_BYTE, right, 1, rb, 100, MPI_BYTE, left, 1,
	    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	check(rb[0] == (char)left, "sendrecv");
	MPI_Irecv(rb, 200, MPI_BYTE, left, 2, MPI_COMM_WORLD, &q[0]);
	MPI_Isend(sb, 200, MPI_BYTE, right, 2, MPI_COMM_WORLD, &q[1]);
	for (i = 0; i < 2; i++)
		MPI_Waitany(2, q, &idx, MPI_STATUS_IGNORE);
	MPI_Irecv(rb, 300, MPI_BYTE, right, 3, MPI_COMM_WORLD, &q[0]);
	MPI_Isend(sb, 300, MPI_BYTE, left, 3, MPI_COMM_WORLD, &q[1]);
	while (done < 2) {
		MPI_Testsome(2, q, &outn, outi, MPI_STATUSES_IGNORE);
		if (outn != MPI_UNDEFINED)
			done += outn;
	}
	check(rb[0] == (char)right, "isend and irecv");
	if (r == 0)
		MPI_Ssend(sb, 50, MPI_BYTE, 1, 4, MPI_COMM_WORLD);
	if (r == 1) {
		MPI_Recv(rb, 50, MPI_BYTE, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD,
		    &st);
		check(st.MPI_SOURCE == 0, "any source");
		MPI_Irecv(rb, 60, MPI_BYTE, 2, 5, MPI_COMM_WORLD, &q[0]);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (r == 2)
		MPI_Rsend(sb, 60, MPI_BYTE, 1, 5, MPI_COMM_WORLD);
	if (r == 1)
		MPI_Wait(&q[0], MPI_STATUS_IGNORE);
	if (r == 0) {
		MPI_Isend(sb, 70, MPI_BYTE, 2, 6, MPI_COMM_WORLD, &q[0]);
		MPI_Request_free(&q[0]);
	}
	if (r == 2)
		MPI_Recv(rb, 70, MPI_BYTE, 0, 6, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
	MPI_Send(sb, 10, MPI_BYTE, MPI_PROC_NULL, 7, MPI_COMM_WORLD);
}

static void
collectives(int r, int n)
{
	int *a = calloc((size_t)n * 4, sizeof(int));
	int *b = calloc((size_t)n * 4, sizeof(int));
	int *cnt = calloc((size_t)n, sizeof(int));
	int *dsp = calloc((size_t)n, sizeof(int));
	int i, x = r + 1, y = 0;

	check(a != NULL && b != NULL && cnt != NULL && dsp != NULL, "memory");
	for (i = 0; i < n; i++) {
		cnt[i] = 2;
		dsp[i] = 2 * i;
		a[2 * i] = a[2 * i + 1] = r;
	}
	MPI_Bcast(a, 4, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	check(y == n * (n + 1) / 2, "allreduce");
	MPI_Gather(&x, 1, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Gatherv(a, 2, MPI_INT, b, cnt, dsp, MPI_INT, 1, MPI_COMM_WORLD);
	MPI_Scatter(a, 1, MPI_INT, &y, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Scatterv(a, cnt, dsp, MPI_INT, b, 2, MPI_INT, 1, MPI_COMM_WORLD);
	MPI_Allgather(&x, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
	MPI_Allgatherv(a, 2, MPI_INT, b, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
	MPI_Alltoall(a, 2, MPI_INT, b, 2, MPI_INT, MPI_COMM_WORLD);
	MPI_Alltoallv(a, cnt, dsp, MPI_INT, b, cnt, dsp, MPI_INT,
	    MPI_COMM_WORLD);
	MPI_Reduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Reduce_scatter_block(a, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	free(a);
	free(b);
	free(cnt);
	free(dsp);
}

int
main(int argc, char **argv)
{
	MPI_Comm half;
	int r, n, x, y = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (n < 3) {
		if (r == 0)
			fprintf(stderr, "mpicalls: run it on 3 ranks or more\n");
		MPI_Finalize();
		return 2;
	}
	point_to_point(r, n);
	collectives(r, n);
	MPI_Comm_split(MPI_COMM_WORLD, r % 2, r, &half);
	x = 1;
	MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, half);
	check(y == (r % 2 ? n / 2 : (n + 1) / 2), "allreduce on half");
	MPI_Comm_free(&half);
	if (r == 0)
		printf("mpicalls: %d ranks ok\n", n);
	MPI_Finalize();
	return 0;
}
