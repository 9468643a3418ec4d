/*
 * ttsim on MPI: when mpirun (or srun) started this process, the switches
 * are split across the ranks (tt_sim_create_part()) and this file is the
 * engine's transport.  Rank 0 alone prints.  Built without Open MPI, or run
 * without a launcher, ttsim is the serial program and this is inert.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "ttsim.h"

#ifdef TTSIM_MPI
#include <mpi.h>

static tt_sim_comm comm;
static int started;

/* Started by a launcher: Open MPI's mpirun, PMIx (srun), PMI. */
static int
launched(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") != NULL ||
	    getenv("PMIX_RANK") != NULL || getenv("PMI_SIZE") != NULL;
}

static int
as_int(uint64_t v, const char *what)
{
	if (v > INT_MAX) {
		fprintf(stderr, "ttsim: rank %d: %s of %llu exceeds MPI's int "
		    "counts; use more ranks\n", comm.rank, what,
		    (unsigned long long)v);
		MPI_Abort(MPI_COMM_WORLD, TTSIM_EXIT_USAGE);
	}
	return (int)v;
}

static void
mpi_allgather(void *ctx, const uint64_t *mine, size_t n, uint64_t *all)
{
	int c = as_int(n, "a gather");

	(void)ctx;
	MPI_Allgather(mine, c, MPI_UINT64_T, all, c, MPI_UINT64_T,
	    MPI_COMM_WORLD);
}

static void
mpi_allreduce(void *ctx, uint64_t *v, size_t n, enum tt_sim_op op)
{
	MPI_Op mop = op == TT_SIM_MAX ? MPI_MAX : op == TT_SIM_MIN ? MPI_MIN :
	    MPI_SUM;

	(void)ctx;
	MPI_Allreduce(MPI_IN_PLACE, v, as_int(n, "a reduction"), MPI_UINT64_T,
	    mop, MPI_COMM_WORLD);
}

static void
mpi_alltoallv(void *ctx, const void *send, const uint64_t *scount,
    void *recv, const uint64_t *rcount)
{
	int *sc, *sd, *rc, *rd, r;
	uint64_t so = 0, ro = 0;

	(void)ctx;
	sc = malloc(sizeof(int) * 4 * (size_t)comm.nranks);
	if (sc == NULL)
		MPI_Abort(MPI_COMM_WORLD, TTSIM_EXIT_USAGE);
	sd = sc + comm.nranks;
	rc = sd + comm.nranks;
	rd = rc + comm.nranks;
	for (r = 0; r < comm.nranks; r++) {
		sc[r] = as_int(scount[r], "an exchange");
		rc[r] = as_int(rcount[r], "an exchange");
		sd[r] = as_int(so, "an exchange");
		rd[r] = as_int(ro, "an exchange");
		so += scount[r];
		ro += rcount[r];
	}
	MPI_Alltoallv(send, sc, sd, MPI_BYTE, recv, rc, rd, MPI_BYTE,
	    MPI_COMM_WORLD);
	free(sc);
}

void
ttsim_mpi_start(int *argc, char ***argv)
{
	MPI_Comm node;

	if (!launched())
		return;
	MPI_Init(argc, argv);
	started = 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &comm.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &comm.nranks);
	/* the ranks on this machine share its caches (the engine's choice
	 * of its prefetching loop) */
	if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
	    MPI_INFO_NULL, &node) == MPI_SUCCESS) {
		MPI_Comm_size(node, &comm.local);
		MPI_Comm_free(&node);
	}
	comm.allgather = mpi_allgather;
	comm.allreduce = mpi_allreduce;
	comm.alltoallv = mpi_alltoallv;
	/* every rank computes the same results; rank 0 speaks */
	if (comm.rank != 0 && (freopen("/dev/null", "w", stdout) == NULL ||
	    freopen("/dev/null", "w", stderr) == NULL))
		MPI_Abort(MPI_COMM_WORLD, TTSIM_EXIT_USAGE);
}

void
ttsim_mpi_finish(void)
{
	if (started) {
		fflush(stdout);
		MPI_Finalize();
	}
}

const tt_sim_comm *
ttsim_comm(void)
{
	return started ? &comm : NULL;
}

#else

void
ttsim_mpi_start(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
}

void
ttsim_mpi_finish(void)
{
}

const tt_sim_comm *
ttsim_comm(void)
{
	return NULL;
}

#endif

void
ttsim_allreduce(uint64_t *v, size_t n, enum tt_sim_op op)
{
	const tt_sim_comm *c = ttsim_comm();

	if (c != NULL)
		c->allreduce(c->ctx, v, n, op);
}
