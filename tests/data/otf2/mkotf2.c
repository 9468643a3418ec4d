/*
 * mkotf2: write a small OTF2 archive of an MPI program in the shape
 * Score-P gives archives (tests/cli/otf2.sh reads it with ttsim).
 *
 *   mkotf2 DIR RANKS ITERS [RESOLUTION [OFFSET]]
 *
 * writes DIR/traces.otf2, DIR/traces.def and DIR/traces/.  RANKS (at
 * least 3) MPI ranks, rank r's location r in location group r (and rank 0
 * a second thread that makes no MPI call), run, each:
 *
 *   main: 50 us of compute, MPI_Init, then ITERS times:
 *     (1000 + 100 r) us of compute;
 *     MPI_Send 1024 bytes to r+1 (tag 1), MPI_Recv from r-1;
 *     MPI_Irecv from r-1 and from r+1, MPI_Isend 512 bytes to r+1 and
 *       to r-1 (tag 2), MPI_Waitall of the four;
 *     MPI_Allreduce of 8 bytes on MPI_COMM_WORLD;
 *     the even ranks: MPI_Bcast of 256 bytes on their own communicator
 *       (ranks 0, 2, 4, ...) from its rank 1 (world rank 2);
 *   then MPI_Barrier and MPI_Finalize.
 *
 * Each MPI call lasts 3 us.  The clock has RESOLUTION ticks per second
 * (default 2.4e9) and starts at OFFSET ticks (default 7e12); rank r starts
 * r us after rank 0.  The collectives' sizes are Score-P's: a rank's
 * whole traffic in the call (allreduce: RANKS * 8 each way; the bcast's
 * root sends one part per member, its own included).
 *
 *   mkotf2 DIR RANKS ITERS RESOLUTION OFFSET global
 *
 * writes the same program with the even ranks' group flagged
 * GLOBAL_MEMBERS: its events name world ranks (the bcast's root is then
 * world rank 2 in the event, not the communicator's rank 1).
 *
 *   mkotf2 DIR pingpong ITERS BYTES COMPUTE_NS
 *
 * writes ttsim app's pingpong motif of two ranks instead (its program,
 * twintorus/motif.h): ITERS times rank 0 sends BYTES to rank 1, receives
 * them back and computes COMPUTE_NS; rank 1 receives and sends back.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

enum {
	S_EMPTY, S_MAIN, S_WORKER, S_INIT, S_FINALIZE, S_SEND, S_RECV, S_IRECV,
	S_ISEND, S_WAITALL, S_ALLREDUCE, S_BCAST, S_BARRIER, S_WORLD, S_EVEN,
	S_NODE, S_MACHINE, S_RANKS, S_MPI, S_NSTR
};
static const char *const strings[S_NSTR] = {
	"", "main", "worker", "MPI_Init", "MPI_Finalize", "MPI_Send",
	"MPI_Recv", "MPI_Irecv", "MPI_Isend", "MPI_Waitall", "MPI_Allreduce",
	"MPI_Bcast", "MPI_Barrier", "MPI_COMM_WORLD", "even ranks", "node",
	"machine", "MPI ranks", "MPI"
};
/* regions: their name is their string */
enum {
	R_MAIN, R_WORKER, R_INIT, R_FINALIZE, R_SEND, R_RECV, R_IRECV, R_ISEND,
	R_WAITALL, R_ALLREDUCE, R_BCAST, R_BARRIER, R_N
};
enum { G_LOCATIONS, G_WORLD, G_EVEN };
enum { C_WORLD, C_EVEN };

static uint64_t res = 2400000000u, offset = 7000000000000u;
static int global_members;      /* the even ranks' events name world ranks */

static OTF2_FlushType
pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cd,
    bool final)
{
	(void)ud;
	(void)ft;
	(void)loc;
	(void)cd;
	(void)final;
	return OTF2_FLUSH;
}

static OTF2_TimeStamp
post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
	(void)ud;
	(void)ft;
	(void)loc;
	return 0;
}

static void
check(OTF2_ErrorCode rc, const char *what)
{
	if (rc != OTF2_SUCCESS) {
		fprintf(stderr, "mkotf2: %s: %s\n", what,
		    OTF2_Error_GetDescription(rc));
		exit(1);
	}
}

/* ns since the start to ticks of the archive's clock */
static uint64_t
tick(uint64_t ns)
{
	return offset + (uint64_t)((unsigned __int128)ns * res / 1000000000u);
}

struct rankw {
	OTF2_EvtWriter *w;
	uint64_t ns;            /* now */
};

static void
enter(struct rankw *k, int region)
{
	check(OTF2_EvtWriter_Enter(k->w, NULL, tick(k->ns), region), "enter");
}

static void
leave(struct rankw *k, int region)
{
	k->ns += 3000;
	check(OTF2_EvtWriter_Leave(k->w, NULL, tick(k->ns), region), "leave");
}

static void
coll(struct rankw *k, int region, OTF2_CollectiveOp op, int comm,
    uint32_t root, uint64_t sent, uint64_t recvd)
{
	enter(k, region);
	check(OTF2_EvtWriter_MpiCollectiveBegin(k->w, NULL, tick(k->ns)),
	    "collective begin");
	check(OTF2_EvtWriter_MpiCollectiveEnd(k->w, NULL, tick(k->ns + 2000),
	    op, comm, root, sent, recvd), "collective end");
	leave(k, region);
}

static void
write_rank(struct rankw *k, uint32_t r, uint32_t n, uint32_t iters)
{
	uint32_t left = (r + n - 1) % n, right = (r + 1) % n, it;
	uint32_t m = (n + 1) / 2;       /* the even ranks */
	uint64_t t;

	k->ns = (uint64_t)r * 1000;
	enter(k, R_MAIN);
	k->ns += 50000;
	enter(k, R_INIT);
	leave(k, R_INIT);
	for (it = 0; it < iters; it++) {
		k->ns += (1000 + 100 * (uint64_t)r) * 1000;
		enter(k, R_SEND);
		check(OTF2_EvtWriter_MpiSend(k->w, NULL, tick(k->ns + 1000),
		    right, C_WORLD, 1, 1024), "send");
		leave(k, R_SEND);
		enter(k, R_RECV);
		check(OTF2_EvtWriter_MpiRecv(k->w, NULL, tick(k->ns + 2000),
		    left, C_WORLD, 1, 1024), "recv");
		leave(k, R_RECV);
		enter(k, R_IRECV);
		check(OTF2_EvtWriter_MpiIrecvRequest(k->w, NULL,
		    tick(k->ns + 1000), 0x1001), "irecv request");
		leave(k, R_IRECV);
		enter(k, R_IRECV);
		check(OTF2_EvtWriter_MpiIrecvRequest(k->w, NULL,
		    tick(k->ns + 1000), 0x1002), "irecv request");
		leave(k, R_IRECV);
		enter(k, R_ISEND);
		check(OTF2_EvtWriter_MpiIsend(k->w, NULL, tick(k->ns + 1000),
		    right, C_WORLD, 2, 512, 0x1003), "isend");
		leave(k, R_ISEND);
		enter(k, R_ISEND);
		check(OTF2_EvtWriter_MpiIsend(k->w, NULL, tick(k->ns + 1000),
		    left, C_WORLD, 2, 512, 0x1004), "isend");
		leave(k, R_ISEND);
		enter(k, R_WAITALL);
		t = tick(k->ns + 1000);
		check(OTF2_EvtWriter_MpiIsendComplete(k->w, NULL, t, 0x1003),
		    "isend complete");
		check(OTF2_EvtWriter_MpiIsendComplete(k->w, NULL, t, 0x1004),
		    "isend complete");
		check(OTF2_EvtWriter_MpiIrecv(k->w, NULL, t, left, C_WORLD, 2,
		    512, 0x1001), "irecv");
		check(OTF2_EvtWriter_MpiIrecv(k->w, NULL, t, right, C_WORLD, 2,
		    512, 0x1002), "irecv");
		leave(k, R_WAITALL);
		coll(k, R_ALLREDUCE, OTF2_COLLECTIVE_OP_ALLREDUCE, C_WORLD,
		    OTF2_UNDEFINED_UINT32, (uint64_t)n * 8, (uint64_t)n * 8);
		if (r % 2 == 0)
			coll(k, R_BCAST, OTF2_COLLECTIVE_OP_BCAST, C_EVEN,
			    global_members ? 2 : 1,
			    r == 2 ? (uint64_t)m * 256 : 0, 256);
	}
	coll(k, R_BARRIER, OTF2_COLLECTIVE_OP_BARRIER, C_WORLD,
	    OTF2_UNDEFINED_UINT32, 0, 0);
	enter(k, R_FINALIZE);
	leave(k, R_FINALIZE);
	check(OTF2_EvtWriter_Leave(k->w, NULL, tick(k->ns), R_MAIN), "leave");
}

static void
write_pingpong(struct rankw *k, uint32_t r, uint32_t iters, uint64_t bytes,
    uint64_t compute)
{
	uint32_t it;

	k->ns = 0;
	enter(k, R_MAIN);
	enter(k, R_INIT);
	leave(k, R_INIT);
	for (it = 0; it < iters; it++) {
		enter(k, r == 0 ? R_SEND : R_RECV);
		if (r == 0)
			check(OTF2_EvtWriter_MpiSend(k->w, NULL, tick(k->ns), 1,
			    C_WORLD, 7, bytes), "send");
		else
			check(OTF2_EvtWriter_MpiRecv(k->w, NULL, tick(k->ns), 0,
			    C_WORLD, 7, bytes), "recv");
		leave(k, r == 0 ? R_SEND : R_RECV);
		enter(k, r == 0 ? R_RECV : R_SEND);
		if (r == 0)
			check(OTF2_EvtWriter_MpiRecv(k->w, NULL, tick(k->ns), 1,
			    C_WORLD, 7, bytes), "recv");
		else
			check(OTF2_EvtWriter_MpiSend(k->w, NULL, tick(k->ns), 0,
			    C_WORLD, 7, bytes), "send");
		leave(k, r == 0 ? R_RECV : R_SEND);
		if (r == 0)
			k->ns += compute;
	}
	enter(k, R_FINALIZE);
	leave(k, R_FINALIZE);
	check(OTF2_EvtWriter_Leave(k->w, NULL, tick(k->ns), R_MAIN), "leave");
}

int
main(int argc, char **argv)
{
	static const OTF2_FlushCallbacks flush = {pre_flush, post_flush};
	OTF2_Archive *a;
	OTF2_GlobalDefWriter *g;
	OTF2_EvtWriter *w;
	uint64_t *nev, *members, tmax = 0, thread = (uint64_t)1 << 32;
	uint32_t n, iters, r, i, m;
	uint64_t pp_bytes = 0, pp_compute = 0;
	int pingpong = argc == 6 && strcmp(argv[2], "pingpong") == 0;
	struct rankw k;

	if (argc == 7 && strcmp(argv[6], "global") == 0) {
		global_members = 1;
		argc = 6;
	}
	if (argc < 4 || argc > 6) {
		fprintf(stderr, "usage: mkotf2 DIR RANKS ITERS [RESOLUTION "
		    "[OFFSET]]\n"
		    "       mkotf2 DIR RANKS ITERS RESOLUTION OFFSET global\n"
		    "       mkotf2 DIR pingpong ITERS BYTES "
		    "COMPUTE_NS\n");
		return 2;
	}
	n = (uint32_t)strtoul(argv[2], NULL, 10);
	iters = (uint32_t)strtoul(argv[3], NULL, 10);
	if (pingpong) {
		n = 2;
		pp_bytes = strtoull(argv[4], NULL, 10);
		pp_compute = strtoull(argv[5], NULL, 10);
	} else {
		if (argc > 4)
			res = strtoull(argv[4], NULL, 10);
		if (argc > 5)
			offset = strtoull(argv[5], NULL, 10);
	}
	if ((!pingpong && n < 3) || n > 4096 || res == 0) {
		fprintf(stderr, "mkotf2: RANKS 3..4096, RESOLUTION above 0\n");
		return 2;
	}
	m = (n + 1) / 2;
	nev = calloc(n + 1, sizeof(*nev));
	members = calloc(n, sizeof(*members));
	if (nev == NULL || members == NULL)
		return 1;
	a = OTF2_Archive_Open(argv[1], "traces", OTF2_FILEMODE_WRITE,
	    1024 * 1024, 4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
	    OTF2_COMPRESSION_NONE);
	if (a == NULL) {
		fprintf(stderr, "mkotf2: cannot create an archive in %s\n",
		    argv[1]);
		return 1;
	}
	check(OTF2_Archive_SetFlushCallbacks(a, &flush, NULL), "flush");
	check(OTF2_Archive_SetSerialCollectiveCallbacks(a), "collectives");
	check(OTF2_Archive_OpenEvtFiles(a), "event files");
	for (r = 0; r < n; r++) {
		k.w = w = OTF2_Archive_GetEvtWriter(a, r);
		if (w == NULL)
			check(OTF2_ERROR_INVALID, "event writer");
		if (pingpong)
			write_pingpong(&k, r, iters, pp_bytes, pp_compute);
		else
			write_rank(&k, r, n, iters);
		if (k.ns > tmax)
			tmax = k.ns;
		check(OTF2_EvtWriter_GetNumberOfEvents(w, &nev[r]), "events");
		check(OTF2_Archive_CloseEvtWriter(a, w), "close events");
	}
	/* rank 0's second thread: no MPI */
	w = OTF2_Archive_GetEvtWriter(a, thread);
	check(OTF2_EvtWriter_Enter(w, NULL, tick(60000), R_WORKER), "enter");
	check(OTF2_EvtWriter_Leave(w, NULL, tick(70000), R_WORKER), "leave");
	check(OTF2_EvtWriter_GetNumberOfEvents(w, &nev[n]), "events");
	check(OTF2_Archive_CloseEvtWriter(a, w), "close events");
	check(OTF2_Archive_CloseEvtFiles(a), "close event files");

	check(OTF2_Archive_OpenDefFiles(a), "definition files");
	for (r = 0; r <= n; r++) {
		OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(a, r < n ? r :
		    thread);

		check(OTF2_Archive_CloseDefWriter(a, d), "local definitions");
	}
	check(OTF2_Archive_CloseDefFiles(a), "close definition files");

	g = OTF2_Archive_GetGlobalDefWriter(a);
	check(OTF2_GlobalDefWriter_WriteClockProperties(g, res, offset,
	    tick(tmax) - offset, OTF2_UNDEFINED_TIMESTAMP), "clock");
	for (i = 0; i < S_NSTR; i++)
		check(OTF2_GlobalDefWriter_WriteString(g, i, strings[i]),
		    "string");
	check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, S_MACHINE,
	    S_NODE, OTF2_UNDEFINED_SYSTEM_TREE_NODE), "system tree");
	for (r = 0; r < n; r++)
		check(OTF2_GlobalDefWriter_WriteLocationGroup(g, r, S_RANKS,
		    OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
		    OTF2_UNDEFINED_LOCATION_GROUP), "location group");
	for (r = 0; r < n; r++)
		check(OTF2_GlobalDefWriter_WriteLocation(g, r, S_MAIN,
		    OTF2_LOCATION_TYPE_CPU_THREAD, nev[r], r), "location");
	check(OTF2_GlobalDefWriter_WriteLocation(g, thread, S_WORKER,
	    OTF2_LOCATION_TYPE_CPU_THREAD, nev[n], 0), "location");
	for (i = 0; i < R_N; i++)
		check(OTF2_GlobalDefWriter_WriteRegion(g, i, S_MAIN + i,
		    S_MAIN + i, S_EMPTY, i <= R_WORKER ?
		    OTF2_REGION_ROLE_FUNCTION : OTF2_REGION_ROLE_UNKNOWN,
		    i <= R_WORKER ? OTF2_PARADIGM_COMPILER : OTF2_PARADIGM_MPI,
		    OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0), "region");
	for (r = 0; r < n; r++)
		members[r] = r;
	check(OTF2_GlobalDefWriter_WriteGroup(g, G_LOCATIONS, S_RANKS,
	    OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
	    OTF2_GROUP_FLAG_NONE, n, members), "group");
	check(OTF2_GlobalDefWriter_WriteGroup(g, G_WORLD, S_WORLD,
	    OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
	    OTF2_GROUP_FLAG_NONE, n, members), "group");
	for (i = 0; i < m; i++)
		members[i] = 2 * i;
	check(OTF2_GlobalDefWriter_WriteGroup(g, G_EVEN, S_EVEN,
	    OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, global_members ?
	    OTF2_GROUP_FLAG_GLOBAL_MEMBERS : OTF2_GROUP_FLAG_NONE, m, members),
	    "group");
	check(OTF2_GlobalDefWriter_WriteComm(g, C_WORLD, S_WORLD, G_WORLD,
	    OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE), "comm");
	check(OTF2_GlobalDefWriter_WriteComm(g, C_EVEN, S_EVEN, G_EVEN,
	    C_WORLD, OTF2_COMM_FLAG_NONE), "comm");
	check(OTF2_Archive_Close(a), "close");
	free(nev);
	free(members);
	return 0;
}
