/*
 * SimGrid time-independent traces (twintorus/ti.h), on small files this
 * test writes into a temporary directory:
 *   - reading: the actions as SimGrid 3.32 writes them (trailing blanks,
 *     datatype fields present or not, the default datatype set by init),
 *     compute flops at the rate given, requests completed by wait (by
 *     source, destination and tag), waitall and the end of the file,
 *     sendRecv, collectives, an index naming its files relative to its
 *     own directory or to where smpirun ran, a directory holding the
 *     index, an index of one line (every rank's lines in one file);
 *   - refusals: each bad line named by FILE:LINE and what is wrong;
 *   - tt_ti_is: an index and a directory are, a rank file or text is not;
 *   - writing: dependency lines as a trace whose receives come before the
 *     sends they enable, read back with the same messages, predecessors
 *     and compute; the directory written whole or not at all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "twintorus/mpitrace.h"
#include "twintorus/ti.h"

static char tmp[64];

static int
setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/test_ti-XXXXXX");
	return mkdtemp(tmp) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

/* tmp/name with text in it; the path in buf. */
static const char *
put(char *buf, size_t bufsz, const char *name, const char *text)
{
	FILE *f;

	snprintf(buf, bufsz, "%s/%s", tmp, name);
	assert_non_null(f = fopen(buf, "w"));
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static const tt_mpi_event *
evat(const tt_mpi_trace *t, uint32_t r, size_t i)
{
	assert_true(r < t->nranks);
	assert_true(i < t->rank[r].n);
	return &t->rank[r].ev[i];
}

/* What smpirun -trace-ti wrote for a ring of 2 ranks (trimmed), with the
 * blanks it leaves after a collective's fields. */
static const char rank0[] =
	"0 init\n"
	"0 compute 20000\n"
	"0 send 1 7 10 0\n"
	"0 irecv 1 3 5 1\n"
	"0 isend 1 3 5 1\n"
	"0 waitall 2\n"
	"0 irecv 1 4 5 2\n"
	"0 isend 1 4 5 2\n"
	"0 wait 1 0 4\n"
	"0 wait 0 1 4\n"
	"0 bcast 8 0 0 \n"
	"0 allreduce 4 0 0 \n"
	"0 barrier\n"
	"0 sendRecv 3 1 3 1 0 0\n"
	"0 finalize\n";
static const char rank1[] =
	"1 init\n"
	"1 recv 0 7 10 0\n"
	"1 irecv 0 3 5 1\n"
	"1 isend 0 3 5 1\n"
	"1 waitall 2\n"
	"1 irecv 0 4 5 2\n"
	"1 isend 0 4 5 2\n"
	"# a comment, and a blank line\n"
	"\n"
	"1 wait 0 1 4\n"
	"1 compute 10\n"
	"1 wait 1 0 4\n"
	"1 bcast 8 0 0 \n"
	"1 allreduce 4 0 0 \n"
	"1 barrier\n"
	"1 sendRecv 3 0 3 0 0 0\n"
	"1 finalize\n";

static void
test_reads_simgrid_trace(void **state)
{
	char p[256], err[512];
	tt_mpi_trace t;
	tt_mpi_totals tot;
	const tt_mpi_event *e;

	(void)state;
	put(p, sizeof(p), "ti_files-r0.txt", rank0);
	put(p, sizeof(p), "ti_files-r1.txt", rank1);
	put(p, sizeof(p), "ti.txt", "ti_files-r0.txt\nti_files-r1.txt\n");
	if (tt_ti_read(&t, p, 1e6, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(t.nranks, 2);
	assert_string_equal(t.format, "ti");
	assert_int_equal(t.timed, 0);
	/* rank 0: compute 20000 flops at 1e6 flops/s = 20 ms */
	e = evat(&t, 0, 0);
	assert_int_equal(e->kind, TT_MPI_COMPUTE);
	assert_int_equal(e->ns, 20000000);
	e = evat(&t, 0, 1);
	assert_int_equal(e->kind, TT_MPI_SEND);
	assert_int_equal(e->peer, 1);
	assert_int_equal(e->tag, 7);
	assert_int_equal(e->bytes, 80);         /* 10 MPI_DOUBLE */
	e = evat(&t, 0, 2);
	assert_int_equal(e->kind, TT_MPI_IRECV);
	assert_int_equal(e->bytes, 20);         /* 5 MPI_INT */
	assert_int_equal(evat(&t, 0, 3)->kind, TT_MPI_ISEND);
	/* waitall: both requests, in the order posted */
	assert_int_equal(evat(&t, 0, 4)->kind, TT_MPI_WAIT);
	assert_int_equal(evat(&t, 0, 4)->req, evat(&t, 0, 2)->req);
	assert_int_equal(evat(&t, 0, 5)->req, evat(&t, 0, 3)->req);
	/* wait 1 0 4 is the irecv (source 1, destination 0), posted first */
	assert_int_equal(evat(&t, 0, 6)->kind, TT_MPI_IRECV);
	assert_int_equal(evat(&t, 0, 6)->bytes, 5);     /* MPI_CHAR */
	assert_int_equal(evat(&t, 0, 8)->kind, TT_MPI_WAIT);
	assert_int_equal(evat(&t, 0, 8)->req, evat(&t, 0, 6)->req);
	assert_int_equal(evat(&t, 0, 9)->req, evat(&t, 0, 7)->req);
	e = evat(&t, 0, 10);
	assert_int_equal(e->kind, TT_MPI_COLL);
	assert_int_equal(e->coll, TT_COLL_BCAST);
	assert_int_equal(e->bytes, 64);
	assert_int_equal(evat(&t, 0, 11)->coll, TT_COLL_ALLREDUCE);
	assert_int_equal(evat(&t, 0, 12)->coll, TT_COLL_BARRIER);
	/* sendRecv: isend and irecv of tag 0, then both complete */
	assert_int_equal(evat(&t, 0, 13)->kind, TT_MPI_ISEND);
	assert_int_equal(evat(&t, 0, 13)->tag, 0);
	assert_int_equal(evat(&t, 0, 13)->bytes, 24);
	assert_int_equal(evat(&t, 0, 14)->kind, TT_MPI_IRECV);
	assert_int_equal(evat(&t, 0, 15)->kind, TT_MPI_WAIT);
	assert_int_equal(evat(&t, 0, 16)->kind, TT_MPI_WAIT);
	assert_int_equal(t.rank[0].n, 17);
	/* rank 1's compute between its waits: 10 flops = 10 us */
	assert_int_equal(evat(&t, 1, 8)->kind, TT_MPI_COMPUTE);
	assert_int_equal(evat(&t, 1, 8)->ns, 10000);
	/* it runs: 4 point-to-point messages from rank 0, 3 from rank 1 */
	if (tt_mpi_totals_get(&t, &tot, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(tot.p2p_messages, 7);
	assert_int_equal(tot.p2p_bytes, 80 + 2 * (20 + 5 + 24));
	assert_int_equal(tot.collectives, 3);
	tt_mpi_trace_free(&t);
}

static void
test_default_datatype_and_index_forms(void **state)
{
	char p[256], dir[256], err[512];
	tt_mpi_trace t;

	(void)state;
	/* no datatype field: MPI_BYTE, or MPI_DOUBLE after "init" with an
	 * argument; both ranks' lines in one file named by an index of one
	 * line */
	put(p, sizeof(p), "shared.txt",
	    "0 init\n1 init 1\n0 send 1 0 10\n1 recv 0 0 10\n"
	    "1 send 0 0 10\n0 recv 1 0 -1\n");
	put(p, sizeof(p), "one.txt", "shared.txt\n");
	if (tt_ti_read(&t, p, 1e9, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(t.nranks, 2);
	assert_int_equal(evat(&t, 0, 0)->bytes, 10);
	assert_int_equal(evat(&t, 1, 1)->bytes, 80);
	assert_int_equal(evat(&t, 0, 1)->bytes, 0);     /* size unknown */
	tt_mpi_trace_free(&t);

	/* a directory holding smpi_simgrid.txt, whose names are relative to
	 * it (not to the current directory) */
	snprintf(dir, sizeof(dir), "%s/d", tmp);
	assert_int_equal(mkdir(dir, 0777), 0);
	put(p, sizeof(p), "d/r0", "0 init\n0 Ssend 1 5 3 2\n");
	put(p, sizeof(p), "d/r1", "1 init\n1 recv 0 5 3 2\n");
	put(p, sizeof(p), "d/" TT_TI_INDEX, "r0\nr1\n");
	if (tt_ti_read(&t, dir, 1e9, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(t.nranks, 2);
	/* MPI_Ssend, as SimGrid writes it: a send */
	assert_int_equal(evat(&t, 0, 0)->kind, TT_MPI_SEND);
	assert_int_equal(evat(&t, 0, 0)->bytes, 3);
	tt_mpi_trace_free(&t);
	assert_int_equal(tt_ti_is(dir), 1);
	assert_int_equal(tt_ti_is(p), 1);

	/* smpirun -trace-file s/t.txt, run in tmp, names s/t.txt_files/...
	 * in s/t.txt: relative to where smpirun ran, not to the index */
	snprintf(dir, sizeof(dir), "%s/s", tmp);
	assert_int_equal(mkdir(dir, 0777), 0);
	snprintf(dir, sizeof(dir), "%s/s/t.txt_files", tmp);
	assert_int_equal(mkdir(dir, 0777), 0);
	put(p, sizeof(p), "s/t.txt_files/1_rank-1.txt", "0 init\n0 send 1 5 3 2\n");
	put(p, sizeof(p), "s/t.txt_files/1_rank-2.txt", "1 init\n1 recv 0 5 3 2\n");
	put(p, sizeof(p), "s/t.txt",
	    "s/t.txt_files/1_rank-1.txt\ns/t.txt_files/1_rank-2.txt\n");
	assert_int_equal(tt_ti_is(p), 1);
	if (tt_ti_read(&t, p, 1e9, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(t.nranks, 2);
	tt_mpi_trace_free(&t);
	snprintf(p, sizeof(p), "%s/d/r0", tmp);
	assert_int_equal(tt_ti_is(p), 0);       /* a rank's file */
	put(p, sizeof(p), "text", "hello world\n");
	assert_int_equal(tt_ti_is(p), 0);
	snprintf(p, sizeof(p), "%s/absent", tmp);
	assert_int_equal(tt_ti_is(p), 0);
	assert_int_equal(tt_ti_is(tmp), 0);     /* no index in it */
}

/* One bad line in rank 0's file (line 3), the index naming it: the error
 * names the file and line and says what. */
static void
refused(const char *line, const char *what)
{
	char p[256], *text, err[512], where[300];
	size_t n = strlen(line) + 64;
	tt_mpi_trace t;

	assert_non_null(text = malloc(n));
	snprintf(text, n, "0 init\n0 compute 1\n%s\n0 finalize\n", line);
	put(p, sizeof(p), "bad0.txt", text);
	free(text);
	put(p, sizeof(p), "bad1.txt", "1 init\n");
	put(p, sizeof(p), "bad.txt", "bad0.txt\nbad1.txt\n");
	err[0] = '\0';
	if (tt_ti_read(&t, p, 20000, err, sizeof(err)) != -1)
		fail_msg("'%s' was taken", line);
	assert_int_equal(t.nranks, 0);
	snprintf(where, sizeof(where), "%s/bad0.txt:3: ", tmp);
	if (strstr(err, where) == NULL || strstr(err, what) == NULL)
		fail_msg("'%s': the message '%s' does not say '%s' and '%s'",
		    line, err, where, what);
}

static void
test_bad_lines(void **state)
{
	static char longline[TT_TI_LINE_MAX + 10];

	(void)state;
	refused("0 gatherv 1 1", "gatherv takes a send count, 2 receive counts");
	refused("0 alltoallv 8 1 1 8 1", "alltoallv takes a send buffer size, 2 "
	    "send counts");
	refused("0 scan 3", "scan takes a count, its flops");
	refused("0 reducescatter 2 x 0", "count 'x'");
	refused("0 frobnicate 1", "'frobnicate' is an action neither ttsim "
	    "nor SimGrid's replay takes");
	refused("0 waitAny 2", "'waitAny' is an action neither");
	refused("0 recv -555 0 4", "MPI_ANY_SOURCE");
	/* what SimGrid 3.32 writes for one: MPI_UNDEFINED */
	refused("0 irecv -333 -444 1 1", "recv: a receive from MPI_ANY_SOURCE "
	    "(source -333)");
	refused("0 irecv 1 -444 4", "MPI_ANY_TAG");
	refused("0 send 1 0 4 77", "datatype 77");
	refused("0 send 1 0 four", "count 'four'");
	refused("0 send 2 0 4", "destination 2 is not a rank");
	refused("0 send 1 0", "send takes a partner, a tag, a count");
	refused("0 wait 0 1 5", "no isend or irecv of source 0, destination 1 "
	    "and tag 5");
	refused("1 send 0 0 4", "an action of rank 1 in rank 0's file");
	refused("7 send 0 0 4", "rank '7'");
	refused("0 compute -3", "flops '-3'");
	refused("0 compute 1e300", "more than a day");
	refused("0 bcast", "bcast takes 1 count");
	refused("0 barrier 4", "barrier takes no field");
	refused("0 reduce 4 0 9", "root 9 is not a rank");
	refused("0 send 1 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15",
	    "send takes a partner, a tag, a count");
	memset(longline, 'x', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	refused(longline, "a line longer than 65536 bytes");
}

/* SimGrid 3.32's lines for MPI_Gatherv (root 1), MPI_Allgatherv,
 * MPI_Scatterv (root 2), MPI_Alltoallv, MPI_Reduce_scatter, MPI_Scan and
 * MPI_Exscan on 4 ranks, rank r contributing r + 1 doubles where it
 * varies: each becomes its base collective with each rank's own part. */
static void
test_varying_collectives(void **state)
{
	static const char *const lines[4] = {
		"0 init\n0 gatherv 1 0 0 0 0 1 0 0\n0 allgatherv 1 1 2 3 4 0 0\n"
		"0 scatterv 0 0 0 0 1 2 0 0\n"
		"0 alltoallv 8 2 2 2 2 8 2 2 2 2 0 0\n"
		"0 reducescatter 2 2 2 2 4000 0\n0 scan 3 0 1 \n"
		"0 exscan 3 0 1 \n",
		"1 init\n1 gatherv 2 1 2 3 4 1 0 0\n1 allgatherv 2 1 2 3 4 0 0\n"
		"1 scatterv 0 0 0 0 2 2 0 0\n"
		"1 alltoallv 8 2 2 2 2 8 2 2 2 2 0 0\n"
		"1 reducescatter 2 2 2 2 0 0\n1 scan 3 0 1 \n"
		"1 exscan 3 0 1 \n",
		"2 init\n2 gatherv 3 0 0 0 0 1 0 0\n2 allgatherv 3 1 2 3 4 0 0\n"
		"2 scatterv 1 2 3 4 3 2 0 0\n"
		"2 alltoallv 8 2 2 2 2 8 2 2 2 2 0 0\n"
		"2 reducescatter 2 2 2 2 0 0\n2 scan 3 0 1 \n"
		"2 exscan 3 0 1 \n",
		"3 init\n3 gatherv 4 0 0 0 0 1 0 0\n3 allgatherv 4 1 2 3 4 0 0\n"
		"3 scatterv 0 0 0 0 4 2 0 0\n"
		"3 alltoallv 8 2 2 2 2 8 2 2 2 2 0 0\n"
		"3 reducescatter 2 2 2 2 0 0\n3 scan 3 0 1 \n"
		"3 exscan 3 0 1 \n",
	};
	char p[256], name[32], err[512];
	tt_mpi_trace t;
	tt_mpi_totals tot;
	int r;

	(void)state;
	for (r = 0; r < 4; r++) {
		snprintf(name, sizeof(name), "v%d", r);
		put(p, sizeof(p), name, lines[r]);
	}
	put(p, sizeof(p), "v-index", "v0\nv1\nv2\nv3\n");
	if (tt_ti_read(&t, p, 1e6, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	/* rank 2: its own parts, the roots named */
	assert_int_equal(evat(&t, 2, 0)->coll, TT_COLL_GATHER);
	assert_int_equal(evat(&t, 2, 0)->peer, 1);
	assert_int_equal(evat(&t, 2, 0)->bytes, 24);
	assert_int_equal(evat(&t, 2, 1)->coll, TT_COLL_ALLGATHER);
	assert_int_equal(evat(&t, 2, 1)->bytes, 24);
	assert_int_equal(evat(&t, 2, 2)->coll, TT_COLL_SCATTER);
	assert_int_equal(evat(&t, 2, 2)->peer, 2);
	assert_int_equal(evat(&t, 2, 2)->bytes, 24);
	assert_int_equal(evat(&t, 2, 3)->coll, TT_COLL_ALLTOALL);
	assert_int_equal(evat(&t, 2, 3)->bytes, 16);
	assert_int_equal(evat(&t, 2, 4)->coll, TT_COLL_ALLTOALL);
	assert_int_equal(evat(&t, 2, 4)->bytes, 16);
	assert_int_equal(evat(&t, 2, 5)->coll, TT_COLL_ALLREDUCE);
	assert_int_equal(evat(&t, 2, 5)->bytes, 12);    /* 3 MPI_INT */
	assert_int_equal(evat(&t, 2, 6)->coll, TT_COLL_ALLREDUCE);
	assert_int_equal(t.rank[2].n, 7);
	/* rank 0's reduce-scatter computes its 4000 flops after it */
	assert_int_equal(evat(&t, 0, 5)->kind, TT_MPI_COMPUTE);
	assert_int_equal(evat(&t, 0, 5)->ns, 4000000);
	/* n-1 + n(n-1) + n-1 + n(n-1) + n(n-1) + 2 * 2(n-1) messages */
	if (tt_mpi_totals_get(&t, &tot, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(tot.collectives, 7);
	assert_int_equal(tot.messages, 3 + 12 + 3 + 12 + 12 + 6 + 6);
	tt_mpi_trace_free(&t);
}

static void
test_index_problems(void **state)
{
	char p[256], err[512];
	tt_mpi_trace t;

	(void)state;
	put(p, sizeof(p), "empty-index", "\n\n");
	assert_int_equal(tt_ti_read(&t, p, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "names no action file"));
	put(p, sizeof(p), "lost-index", "nothere0\nnothere1\n");
	assert_int_equal(tt_ti_read(&t, p, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "nothere0: No such file"));
	put(p, sizeof(p), "ok0", "0 init\n");
	put(p, sizeof(p), "ok1", "1 init\n");
	put(p, sizeof(p), "ok-index", "ok0\nok1\n");
	assert_int_equal(tt_ti_read(&t, p, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "compute rate"));
}

/* tt_mpi_trace_read() and tt_mpi_trace_is() take TI traces; a rate of 0
 * is SimGrid's default host speed. */
static void
test_dispatch(void **state)
{
	char p[256], err[512];
	tt_mpi_trace t;

	(void)state;
	put(p, sizeof(p), "dr0", "0 init\n0 compute 20000\n0 send 1 0 1\n");
	put(p, sizeof(p), "dr1", "1 init\n1 recv 0 0 1\n");
	put(p, sizeof(p), "d-index.txt", "dr0\ndr1\n");
	assert_int_equal(tt_mpi_trace_is(p), 1);
	if (tt_mpi_trace_read(&t, p, 0, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_string_equal(t.format, "ti");
	assert_int_equal(evat(&t, 0, 0)->ns, 1000000000);  /* 20000 f/s */
	tt_mpi_trace_free(&t);
	if (tt_mpi_trace_read(&t, p, 4e4, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(evat(&t, 0, 0)->ns, 500000000);
	tt_mpi_trace_free(&t);
	put(p, sizeof(p), "not-a-trace.txt", "hello\n");
	assert_int_equal(tt_mpi_trace_is(p), 0);
	assert_int_equal(tt_mpi_trace_read(&t, p, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not an MPI-level trace"));
}

/* ---- writing ---- */

struct fake {
	const tt_dep *d;
	size_t n, i;
};

static int
fake_next(void *ctx, tt_dep *d, char *err, size_t errsz)
{
	struct fake *f = ctx;

	(void)err;
	(void)errsz;
	if (f->i == f->n)
		return 0;
	*d = f->d[f->i++];
	return 1;
}

/* A ring of 3 PEs, two steps: each sends to the next, and its second
 * send waits for what its previous PE sent first; PE 2's second message
 * to 0 enables nothing. */
static const tt_depref p20[] = {{2, 10}}, p01[] = {{0, 0}},
    p12[] = {{1, 4}};
static const tt_dep ring[] = {
	{.pe = 0, .seq = 0, .dst = 1, .bytes = 100, .gap_ns = 1000},
	{.pe = 1, .seq = 4, .dst = 2, .bytes = 200, .gap_ns = 0},
	{.pe = 2, .seq = 10, .dst = 0, .bytes = 300, .gap_ns = 500},
	{.pe = 0, .seq = 1, .dst = 1, .bytes = 100, .gap_ns = 2000,
	    .npred = 1, .pred = p20},
	{.pe = 1, .seq = 5, .dst = 2, .bytes = 200, .gap_ns = 7,
	    .npred = 1, .pred = p01},
	{.pe = 2, .seq = 11, .dst = 0, .bytes = 300, .gap_ns = 3,
	    .npred = 1, .pred = p12},
};

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 65536);

	assert_non_null(f);
	assert_non_null(buf);
	assert_true(fread(buf, 1, 65535, f) > 0);
	fclose(f);
	return buf;
}

static void
test_export_and_read_back(void **state)
{
	struct fake f = {ring, sizeof(ring) / sizeof(ring[0]), 0};
	tt_dep_stream s = {fake_next, &f};
	tt_ti_export_stats st;
	char dir[256], p[300], err[512], *text;
	tt_mpi_trace t;
	tt_mpi_totals tot;
	tt_mpi_deps *d;
	tt_dep line;
	tt_dep_stream back;
	uint64_t preds = 0, gaps = 0;
	int x;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/out", tmp);
	if (tt_ti_export(dir, 0, s, 4, 1e6, &st, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(st.ranks, 4);
	assert_int_equal(st.messages, 6);
	assert_int_equal(st.recv_before, 3);
	assert_int_equal(st.recv_after, 3);
	assert_int_equal(st.computes, 5);      /* 1:4 has no gap */
	/* PE 0: its first send, then the receive of 2:10 before its second;
	 * 2:11 at the end; gaps in flops at 1e6 flops/s */
	snprintf(p, sizeof(p), "%s/rank-0.txt", dir);
	text = slurp(p);
	assert_string_equal(text,
	    "0 init\n"
	    "0 compute 1\n"
	    "0 isend 1 0 100 6\n"
	    "0 recv 2 10 300 6\n"
	    "0 compute 2\n"
	    "0 isend 1 1 100 6\n"
	    "0 recv 2 11 300 6\n"
	    "0 waitall\n"
	    "0 finalize\n");
	free(text);
	/* a PE that sends nothing still has its file */
	snprintf(p, sizeof(p), "%s/rank-3.txt", dir);
	text = slurp(p);
	assert_string_equal(text, "3 init\n3 finalize\n");
	free(text);
	snprintf(p, sizeof(p), "%s/" TT_TI_INDEX, dir);
	text = slurp(p);
	assert_string_equal(text, "rank-0.txt\nrank-1.txt\nrank-2.txt\n"
	    "rank-3.txt\n");
	free(text);

	/* read back: the same messages, predecessors and compute */
	if (tt_ti_read(&t, dir, 1e6, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	if (tt_mpi_totals_get(&t, &tot, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(tot.messages, 6);
	assert_int_equal(tot.bytes, 1200);
	assert_int_equal(tot.compute_ns, 1000 + 500 + 2000 + 7 + 3);
	if (tt_mpi_deps_open(&d, &t, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	back = tt_mpi_deps_stream(d);
	while ((x = back.next(back.ctx, &line, err, sizeof(err))) > 0) {
		preds += line.npred;
		gaps += line.gap_ns;
	}
	assert_int_equal(x, 0);
	assert_int_equal(preds, 3);
	assert_int_equal(gaps, 1000 + 500 + 2000 + 7 + 3);
	tt_mpi_deps_free(d);
	tt_mpi_trace_free(&t);
}

static void
test_export_whole_or_nothing(void **state)
{
	static const tt_depref ahead[] = {{1, 9}};
	static const tt_dep bad[] = {
		{.pe = 0, .seq = 0, .dst = 1, .bytes = 1},
		{.pe = 1, .seq = 0, .dst = 0, .bytes = 1, .npred = 1,
		    .pred = ahead},
	};
	struct fake f = {bad, 2, 0};
	tt_dep_stream s = {fake_next, &f};
	tt_ti_export_stats st;
	char dir[256], p[300], err[512], cmd[600];
	struct stat sb;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/never", tmp);
	assert_int_equal(tt_ti_export(dir, 0, s, 2, 1, &st, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "names predecessor 1:9, which does not "
	    "come before it"));
	assert_int_equal(stat(dir, &sb), -1);
	/* nothing left beside it either */
	snprintf(cmd, sizeof(cmd), "ls -d %s/never* 2>/dev/null | grep -q .",
	    tmp);
	assert_int_not_equal(system(cmd), 0);

	/* a PE beyond the ranks */
	f.d = ring;
	f.n = 3;
	f.i = 0;
	assert_int_equal(tt_ti_export(dir, 0, s, 2, 1, &st, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "the trace has 2 ranks"));

	/* a directory with something in it: refused, kept; replaced when
	 * asked if it holds files only */
	snprintf(dir, sizeof(dir), "%s/full", tmp);
	assert_int_equal(mkdir(dir, 0777), 0);
	put(p, sizeof(p), "full/keep", "x\n");
	f.i = 0;
	assert_int_equal(tt_ti_export(dir, 0, s, 3, 1, &st, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "exists and is not empty"));
	assert_int_equal(stat(p, &sb), 0);
	f.i = 0;
	if (tt_ti_export(dir, 1, s, 3, 1, &st, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(stat(p, &sb), -1);
	snprintf(p, sizeof(p), "%s/full/rank-2.txt", tmp);
	assert_int_equal(stat(p, &sb), 0);
	/* not with a directory inside */
	snprintf(p, sizeof(p), "%s/full/sub", tmp);
	assert_int_equal(mkdir(p, 0777), 0);
	f.i = 0;
	assert_int_equal(tt_ti_export(dir, 1, s, 3, 1, &st, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "not a regular file"));
	/* an empty directory is taken */
	snprintf(dir, sizeof(dir), "%s/empty", tmp);
	assert_int_equal(mkdir(dir, 0777), 0);
	f.i = 0;
	if (tt_ti_export(dir, 0, s, 3, 1, &st, err, sizeof(err)) != 0)
		fail_msg("%s", err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_simgrid_trace),
		cmocka_unit_test(test_default_datatype_and_index_forms),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_varying_collectives),
		cmocka_unit_test(test_index_problems),
		cmocka_unit_test(test_dispatch),
		cmocka_unit_test(test_export_and_read_back),
		cmocka_unit_test(test_export_whole_or_nothing),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
