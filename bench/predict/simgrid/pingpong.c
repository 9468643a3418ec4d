/*
 * pingpong: a ping-pong between ranks 0 and 1, modelled on what NetPIPE
 * does (sizes doubling, a few round trips each), small enough to run the
 * same way natively (Open MPI on the testbed) and under SimGrid's SMPI.
 *
 *   mpirun -np 2 pingpong [-l MIN] [-u MAX] [-n REPEATS]
 *
 * Sizes MIN, 2*MIN, ... up to MAX bytes (default 1 to 65536); each size is
 * REPEATS round trips (default 5) after one untimed round trip.  Rank 0
 * prints one line per size and a closing line:
 *
 *   pingpong: size 1024 repeats 5 time 0.000123 s
 *   pingpong: total 0.123456 s for 17 sizes
 *
 * "time" is one round trip (the mean over the repeats), "total" is every
 * timed round trip of every size (MPI_Wtime: on SMPI the simulated time).
 * Ranks beyond 1 only wait at the barriers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

int
main(int argc, char **argv)
{
	long lo = 1, hi = 65536, s;
	int reps = 5, rank, size, c, i, nsizes = 0;
	double total = 0, t0 = 0, t;
	char *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	while ((c = getopt(argc, argv, "l:u:n:")) != -1) {
		switch (c) {
		case 'l': lo = atol(optarg); break;
		case 'u': hi = atol(optarg); break;
		case 'n': reps = atoi(optarg); break;
		default:
			if (rank == 0)
				fprintf(stderr, "usage: pingpong [-l MIN] [-u MAX] [-n REPEATS]\n");
			MPI_Finalize();
			return 64;
		}
	}
	if (size < 2 || lo < 1 || hi < lo || reps < 1) {
		if (rank == 0)
			fprintf(stderr, "pingpong: needs 2 ranks, 1 <= MIN <= MAX, REPEATS >= 1\n");
		MPI_Finalize();
		return 64;
	}
	if ((buf = malloc((size_t)hi)) == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);
	memset(buf, rank, (size_t)hi);
	for (s = lo; s <= hi; s *= 2) {
		MPI_Barrier(MPI_COMM_WORLD);
		for (i = -1; i < reps; i++) {
			if (i == 0)
				t0 = MPI_Wtime();
			if (rank == 0) {
				MPI_Send(buf, (int)s, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
				MPI_Recv(buf, (int)s, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else if (rank == 1) {
				MPI_Recv(buf, (int)s, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Send(buf, (int)s, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
			}
		}
		t = MPI_Wtime() - t0;
		total += t;
		nsizes++;
		if (rank == 0)
			printf("pingpong: size %ld repeats %d time %.9f s\n", s, reps, t / reps);
	}
	if (rank == 0)
		printf("pingpong: total %.9f s for %d sizes\n", total, nsizes);
	free(buf);
	MPI_Finalize();
	return 0;
}
