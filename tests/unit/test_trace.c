/*
 * Traces and replay (twintorus/trace.h, twintorus/replay.h) against what
 * their headers promise:
 *   - messages written with tt_trace_write_msg come back from the merged
 *     reader in order, with their bytes and their time to the nanosecond;
 *   - several files merge by time, ties by file order then record order; a
 *     directory gives its *.pcap* files in name order and nothing else;
 *   - hello frames and delivery copies are skipped and counted, a PE
 *     outside the network is an error naming the file and the record, a
 *     record older than one before it is taken at the latest time before
 *     it and counted, a file cut inside its last record gives the records
 *     before; a message larger than a record may describe is refused;
 *   - plain frames (IPv4, IPv6, MAC) become messages through an address
 *     map, and unmapped addresses are counted with their text;
 *   - replay delivers every message exactly once, in ceil(B / (P * flit
 *     bytes)) packets, no faster than the network's zero-load latency, at
 *     the cycle its time gives, and holds only about `lookahead` messages
 *     plus what is in flight, whatever the trace's length.
 * Every file lives in a fresh directory under /tmp, removed at the end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <pcap/pcap.h>
#include <cmocka.h>

#include "twintorus/config.h"
#include "twintorus/frame.h"
#include "twintorus/infer.h"
#include "twintorus/replay.h"
#include "twintorus/sim.h"
#include "twintorus/trace.h"
#include "tt_test.h"

/* 2026-01-01T00:00:00Z, as the synthetic traces start */
#define EPOCH_NS (1767225600ull * 1000000000ull)

static char tmpdir[64];

/* ---- files ---- */

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int
setup_dir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/tt-trace-XXXXXX");
	return mkdtemp(tmpdir) != NULL ? 0 : -1;
}

static int
teardown_dir(void **state)
{
	(void)state;
	return nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* tmpdir/name, in a static buffer of four (tests hold a few at once) */
static const char *
tpath(const char *name)
{
	static char buf[4][256];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", tmpdir, name);
	return p;
}

static tt_trace_writer *
wopen(const char *path)
{
	tt_trace_writer *w;
	char err[256] = "";

	if (tt_trace_create(&w, path, 0, err, sizeof(err)) != 0)
		fail_msg("tt_trace_create(%s): %s", path, err);
	return w;
}

static void
wclose(tt_trace_writer *w)
{
	char err[256] = "";

	if (tt_trace_close(w, err, sizeof(err)) != 0)
		fail_msg("tt_trace_close: %s", err);
}

static void
write_msgs(const char *path, const tt_msg *m, size_t n)
{
	tt_trace_writer *w = wopen(path);
	size_t i;

	for (i = 0; i < n; i++)
		assert_int_equal(tt_trace_write_msg(w, &m[i]), 0);
	wclose(w);
}

static void
write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* A torus frame record: header only, `bytes` more on the wire. */
static void
put_torus(tt_trace_writer *w, uint64_t t_ns, uint32_t src, uint32_t dst,
    uint32_t seq, int type, int flags, uint32_t bytes)
{
	uint8_t buf[64], hello[TT_HELLO_LEN];
	tt_frame f;
	size_t len;

	memset(&f, 0, sizeof(f));
	f.dst_mac[0] = f.src_mac[0] = 0x02;
	f.version = TT_FRAME_VERSION;
	f.type = (uint8_t)type;
	f.flags = (uint8_t)flags;
	f.src = src;
	f.dst = dst;
	f.seq = seq;
	if (type == TT_FRAME_HELLO) {
		tt_hello h = {src / 2, (uint8_t)(src & 1), 0, 0};

		tt_hello_encode(&h, hello);
		f.payload = hello;
		f.payload_len = sizeof(hello);
	}
	len = tt_frame_encode(&f, buf, sizeof(buf));
	assert_true(len > 0);
	assert_int_equal(tt_trace_write(w, t_ns, buf, (uint32_t)len,
	    (uint32_t)len + bytes), 0);
}

/* ---- reading ---- */

/* Everything the merged reader gives for paths: messages, and the error
 * that stopped it (rc -1) with the statistics of all files. */
struct got {
	tt_msg m[4096];
	size_t n;
	int rc;
	char err[512];
	tt_trace_stats st;
	char warn[2048];
	size_t nfiles;
	char path[8][256];
};

static struct got got;

static void
read_all(const char *const *paths, size_t npaths, const tt_addrmap *map,
    uint32_t npes)
{
	tt_trace_in *in;
	FILE *wf;
	size_t i;
	int x;

	memset(&got, 0, sizeof(got));
	if (tt_trace_in_open(&in, paths, npaths, map, npes, got.err,
	    sizeof(got.err)) != 0) {
		got.rc = -1;
		return;
	}
	while ((x = tt_trace_in_next(in, &got.m[got.n], got.err,
	    sizeof(got.err))) > 0) {
		got.n++;
		assert_true(got.n < sizeof(got.m) / sizeof(got.m[0]));
	}
	got.rc = x;
	got.nfiles = tt_trace_in_nfiles(in);
	for (i = 0; i < got.nfiles && i < 8; i++)
		snprintf(got.path[i], sizeof(got.path[i]), "%s",
		    tt_trace_in_path(in, i));
	got.st = *tt_trace_in_stats(in, got.nfiles);
	wf = fmemopen(got.warn, sizeof(got.warn) - 1, "w");
	assert_non_null(wf);
	tt_trace_in_warnings(in, wf, "W: ");
	fclose(wf);
	tt_trace_in_close(in);
}

static void
read_one(const char *path, const tt_addrmap *map, uint32_t npes)
{
	read_all(&path, 1, map, npes);
}

static void
assert_contains(const char *text, const char *word)
{
	if (strstr(text, word) == NULL)
		fail_msg("\"%s\" does not say \"%s\"", text, word);
}

/* ---- round trip ---- */

static void
test_round_trip(void **state)
{
	static const uint64_t sizes[] = {0, 1, 29, 30, 64, 65, 1500, 9000,
	    1u << 20, TT_TRACE_MSG_MAX};
	enum { N = 500 };
	static tt_msg m[N];
	uint64_t t = EPOCH_NS, bytes = 0;
	size_t i;

	(void)state;
	for (i = 0; i < N; i++) {
		/* every nanosecond digit used, some times equal */
		if (i % 7 != 3)
			t += 1000000007ull * (i % 3) + 123457 * i + (i * 37) % 1000;
		m[i].t_ns = t;
		m[i].src = i == 1 ? 0xFFFFFFFEu : (uint32_t)(i * 2654435761u % 100000);
		m[i].dst = i == 2 ? 0xFFFFFFFEu : (uint32_t)(i * 40503u % 70000);
		m[i].seq = i == 3 ? 0xFFFFFFFFu : (uint32_t)(i * 11);
		m[i].bytes = sizes[i % (sizeof(sizes) / sizeof(sizes[0]))];
		bytes += m[i].bytes;
	}
	write_msgs(tpath("round.pcap"), m, N);
	read_one(tpath("round.pcap"), NULL, 0);
	assert_int_equal(got.rc, 0);
	assert_int_equal(got.n, N);
	for (i = 0; i < N; i++) {
		const tt_msg *g = &got.m[i];

		if (g->t_ns != m[i].t_ns || g->src != m[i].src ||
		    g->dst != m[i].dst || g->seq != m[i].seq ||
		    g->bytes != m[i].bytes || g->file != 0 || g->recno != i + 1)
			fail_msg("message %zu: got t %llu %u->%u seq %u %llu "
			    "bytes record %llu, wrote t %llu %u->%u seq %u %llu "
			    "bytes", i, (unsigned long long)g->t_ns, g->src,
			    g->dst, g->seq, (unsigned long long)g->bytes,
			    (unsigned long long)g->recno,
			    (unsigned long long)m[i].t_ns, m[i].src, m[i].dst,
			    m[i].seq, (unsigned long long)m[i].bytes);
	}
	assert_int_equal(got.st.records, N);
	assert_int_equal(got.st.messages, N);
	assert_int_equal(got.st.bytes, bytes);
	assert_int_equal(got.st.first_ns, m[0].t_ns);
	assert_int_equal(got.st.last_ns, m[N - 1].t_ns);
	assert_int_equal(got.st.backwards, 0);
	assert_int_equal(got.st.truncated, 0);
	/* the 1 MiB and 64 MiB messages: longer than a ttd frame */
	assert_int_equal(got.st.oversize, N / 10 * 2);
	assert_null(strstr(got.warn, "older"));
	assert_null(strstr(got.warn, "truncated"));
}

/* A message larger than a record may describe is refused: a writer
 * writes only what the reader takes. */
static void
test_write_msg_too_large(void **state)
{
	tt_trace_writer *w = wopen(tpath("large.pcap"));
	tt_msg m;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.t_ns = EPOCH_NS;
	m.bytes = TT_TRACE_MSG_MAX + 1ull;
	assert_int_equal(tt_trace_write_msg(w, &m), -1);
	m.bytes = 0xFFFFFFFFull;
	assert_int_equal(tt_trace_write_msg(w, &m), -1);
	m.bytes = TT_TRACE_MSG_MAX;
	assert_int_equal(tt_trace_write_msg(w, &m), 0);
	wclose(w);
	read_one(tpath("large.pcap"), NULL, 0);
	assert_int_equal(got.rc, 0);
	assert_int_equal(got.n, 1);
	assert_int_equal(got.m[0].bytes, TT_TRACE_MSG_MAX);
	assert_int_equal(got.st.oversize, 1);
	assert_int_equal(got.st.oversize_max, TT_TRACE_MSG_MAX + 30ull);
	assert_contains(got.warn, "1 record longer than ttd carries");
}

/* A record's MACs are its PEs', as ttd gives them (tt_pe_mac()). */
static void
test_write_msg_macs(void **state)
{
	const char *path = tpath("macs.pcap");
	tt_trace_writer *w = wopen(path);
	tt_msg m = {EPOCH_NS, 0x12345, 7, 1, 100, 0, 0};
	char perr[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	uint8_t want[12];
	pcap_t *p;

	(void)state;
	assert_int_equal(tt_trace_write_msg(w, &m), 0);
	wclose(w);
	p = pcap_open_offline(path, perr);
	assert_non_null(p);
	assert_int_equal(pcap_next_ex(p, &h, &d), 1);
	tt_pe_mac(7, want);             /* destination first */
	tt_pe_mac(0x12345, want + 6);
	assert_memory_equal(d, want, 12);
	pcap_close(p);
}

/* How many names in tmpdir start with prefix and end in ".part". */
static int
count_parts(const char *prefix)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	size_t plen = strlen(prefix), len;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (strncmp(de->d_name, prefix, plen) == 0 && len > 5 &&
		    strcmp(de->d_name + len - 5, ".part") == 0)
			n++;
	}
	closedir(d);
	return n;
}

/* An atomic trace is a temporary "path.XXXXXX.part" until it is closed;
 * discard leaves nothing. */
static void
test_atomic_create(void **state)
{
	const char *path = tpath("atomic.pcap");
	tt_trace_writer *w;
	char err[256];
	tt_msg m = {EPOCH_NS, 1, 2, 3, 100, 0, 0};

	(void)state;
	assert_int_equal(tt_trace_create(&w, path, 1, err, sizeof(err)), 0);
	assert_int_equal(tt_trace_write_msg(w, &m), 0);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(count_parts("atomic.pcap."), 1);
	wclose(w);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(count_parts("atomic.pcap."), 0);
	read_one(path, NULL, 0);
	assert_int_equal(got.n, 1);

	assert_int_equal(tt_trace_create(&w, tpath("gone.pcap"), 1, err,
	    sizeof(err)), 0);
	assert_int_equal(tt_trace_write_msg(w, &m), 0);
	tt_trace_discard(w);
	assert_int_equal(access(tpath("gone.pcap"), F_OK), -1);
	assert_int_equal(count_parts("gone.pcap"), 0);
}

/*
 * A write that failed once (a full disk, here a file size limit) is
 * reported at close with its reason, even when the flush at close then
 * succeeds (space came back) and errno says nothing.  In a child: it
 * changes its resource limits.
 */
static void
test_write_error_reason_kept(void **state)
{
	char path[256], errf[256];
	pid_t pid;
	int status;

	(void)state;
	snprintf(path, sizeof(path), "%s", tpath("full.pcap"));
	snprintf(errf, sizeof(errf), "%s", tpath("full.err"));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = {4096, RLIM_INFINITY};
		tt_msg m = {EPOCH_NS, 1, 2, 3, 100, 0, 0};
		char err[512] = "";
		tt_trace_writer *w;
		FILE *f;
		int i, r;

		signal(SIGXFSZ, SIG_IGN);
		if (tt_trace_create(&w, path, TT_TRACE_INPLACE, err,
		    sizeof(err)) != 0 || setrlimit(RLIMIT_FSIZE, &rl) != 0)
			_exit(2);
		for (i = 0; i < 1000; i++)
			tt_trace_write_msg(w, &m);
		rl.rlim_cur = RLIM_INFINITY;
		if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
			_exit(2);
		errno = 0;
		r = tt_trace_close(w, err, sizeof(err));
		if ((f = fopen(errf, "w")) == NULL)
			_exit(2);
		fputs(err, f);
		fclose(f);
		_exit(r == -1 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	{
		char text[512] = "";
		FILE *f = fopen(errf, "r");

		assert_non_null(f);
		assert_non_null(fgets(text, sizeof(text), f));
		fclose(f);
		assert_contains(text, "full.pcap: write failed: File too large");
	}
}

/* ---- merging ---- */

/* File f's record r (both from 0) carries seq f * 100 + r. */
static void
write_timed(const char *path, uint32_t f, const uint64_t *t, size_t n)
{
	tt_msg m[16];
	size_t r;

	memset(m, 0, sizeof(m));
	for (r = 0; r < n; r++) {
		m[r].t_ns = EPOCH_NS + t[r];
		m[r].src = f;
		m[r].dst = f + 1;
		m[r].seq = f * 100 + (uint32_t)r;
		m[r].bytes = 64;
	}
	write_msgs(path, m, n);
}

static void
assert_seq_order(const uint32_t *want, size_t n)
{
	size_t i;

	assert_int_equal(got.rc, 0);
	assert_int_equal(got.n, n);
	for (i = 0; i < n; i++) {
		if (got.m[i].seq != want[i])
			fail_msg("message %zu is file %u record %u, wanted file "
			    "%u record %u", i, got.m[i].seq / 100,
			    got.m[i].seq % 100 + 1, want[i] / 100,
			    want[i] % 100 + 1);
		assert_int_equal(got.m[i].file, want[i] / 100);
		assert_int_equal(got.m[i].recno, want[i] % 100 + 1);
		if (i > 0)
			assert_true(got.m[i].t_ns >= got.m[i - 1].t_ns);
	}
}

static void
test_merge_three_files(void **state)
{
	static const uint64_t ta[] = {10, 20, 30, 30};
	static const uint64_t tb[] = {5, 20, 30, 40};
	static const uint64_t tc[] = {20, 20, 50};
	/* by time; at 20 and 30 file a, then b, then c, each in record order */
	static const uint32_t want[] = {100, 0, 1, 101, 200, 201, 2, 3, 102,
	    103, 202};
	const char *paths[3];

	(void)state;
	paths[0] = tpath("a.pcap");
	paths[1] = tpath("b.pcap");
	paths[2] = tpath("c.pcap");
	write_timed(paths[0], 0, ta, 4);
	write_timed(paths[1], 1, tb, 4);
	write_timed(paths[2], 2, tc, 3);
	read_all(paths, 3, NULL, 0);
	assert_seq_order(want, sizeof(want) / sizeof(want[0]));
	assert_int_equal(got.nfiles, 3);
	assert_int_equal(got.st.messages, 11);
	assert_int_equal(got.st.first_ns, EPOCH_NS + 5);
	assert_int_equal(got.st.last_ns, EPOCH_NS + 50);
}

/* The same files in another order: ties follow the order given. */
static void
test_merge_ties_follow_file_order(void **state)
{
	static const uint64_t t[] = {7, 7};
	static const uint32_t want[] = {0, 1, 100, 101, 200, 201};
	const char *paths[3];

	(void)state;
	/* written as files 2, 0, 1 of the merge, opened in that order */
	paths[2] = tpath("tie-x.pcap");
	paths[0] = tpath("tie-y.pcap");
	paths[1] = tpath("tie-z.pcap");
	write_timed(paths[0], 0, t, 2);
	write_timed(paths[1], 1, t, 2);
	write_timed(paths[2], 2, t, 2);
	read_all(paths, 3, NULL, 0);
	assert_seq_order(want, 6);
}

static void
test_merge_directory(void **state)
{
	static const uint64_t t1[] = {10, 40}, t10[] = {20, 40}, t2[] = {30, 40};
	static const uint64_t t4[] = {5}, tpart[] = {1, 2, 3};
	/* name order: node-1, node-10, node-2, node-4.pcapng */
	static const uint32_t want[] = {300, 0, 100, 200, 1, 101, 201};
	const char *dir = tpath("cluster");
	char p[256];

	(void)state;
	assert_int_equal(mkdir(dir, 0777), 0);
	snprintf(p, sizeof(p), "%s/node-2.pcap", dir);
	write_timed(p, 2, t2, 2);
	snprintf(p, sizeof(p), "%s/node-10.pcap", dir);
	write_timed(p, 1, t10, 2);
	snprintf(p, sizeof(p), "%s/node-1.pcap", dir);
	write_timed(p, 0, t1, 2);
	/* a name containing .pcap, whatever the format inside */
	snprintf(p, sizeof(p), "%s/node-4.pcapng", dir);
	write_timed(p, 3, t4, 1);
	/* not traces: a text file, an unfinished atomic write, a log */
	snprintf(p, sizeof(p), "%s/README", dir);
	write_text(p, "one file per node\n");
	snprintf(p, sizeof(p), "%s/node-3.pcap.part", dir);
	write_timed(p, 9, tpart, 3);
	snprintf(p, sizeof(p), "%s/capture.log", dir);
	write_text(p, "tcpdump: listening\n");

	read_all(&dir, 1, NULL, 0);
	assert_int_equal(got.nfiles, 4);
	snprintf(p, sizeof(p), "%s/node-1.pcap", dir);
	assert_string_equal(got.path[0], p);
	snprintf(p, sizeof(p), "%s/node-10.pcap", dir);
	assert_string_equal(got.path[1], p);
	snprintf(p, sizeof(p), "%s/node-2.pcap", dir);
	assert_string_equal(got.path[2], p);
	snprintf(p, sizeof(p), "%s/node-4.pcapng", dir);
	assert_string_equal(got.path[3], p);
	/* seq / 100 is the writer's number; file is the position by name */
	assert_int_equal(got.n, 7);
	{
		size_t i;

		for (i = 0; i < 7; i++) {
			assert_int_equal(got.m[i].seq, want[i]);
			assert_int_equal(got.m[i].file, want[i] / 100);
		}
	}
}

static void
test_directory_without_traces(void **state)
{
	const char *dir = tpath("notraces");
	char p[256];

	(void)state;
	assert_int_equal(mkdir(dir, 0777), 0);
	snprintf(p, sizeof(p), "%s/README", dir);
	write_text(p, "nothing here\n");
	snprintf(p, sizeof(p), "%s/x.pcap.part", dir);
	write_text(p, "");
	read_all(&dir, 1, NULL, 0);
	assert_int_equal(got.rc, -1);
	assert_contains(got.err, dir);
	assert_contains(got.err, "no trace files");
}

/* ---- what is skipped, refused, clamped ---- */

/* What the inference makes of path: the number of lines (the first in
 * *first), or -1 with err set. */
static int
infer_one(const char *path, const tt_addrmap *map, uint32_t npes,
    tt_dep *first, char *err, size_t errsz)
{
	const char *paths[1] = {path};
	tt_infer_params p;
	tt_infer *inf;
	tt_dep d;
	int x, n = 0;

	tt_infer_params_default(&p);
	p.npes = npes;
	p.map = map;
	if (tt_infer_open(&inf, paths, 1, &p, err, errsz) < 0)
		return -1;
	while ((x = tt_infer_next(inf, &d, err, errsz)) > 0)
		if (n++ == 0) {
			*first = d;
			first->pred = NULL;
		}
	tt_infer_free(inf);
	return x < 0 ? -1 : n;
}

static void
test_hello_and_delivered_skipped(void **state)
{
	tt_trace_writer *w = wopen(tpath("skip.pcap"));

	(void)state;
	put_torus(w, EPOCH_NS + 1, 0, 1, 0, TT_FRAME_DATA, 0, 100);
	put_torus(w, EPOCH_NS + 2, 1, TT_PE_BROADCAST, 0, TT_FRAME_HELLO, 0, 0);
	put_torus(w, EPOCH_NS + 3, 0, 1, 0, TT_FRAME_DATA,
	    TT_FRAME_F_DELIVERED, 100);
	put_torus(w, EPOCH_NS + 4, 2, 3, 7, TT_FRAME_DATA, 0, 0);
	put_torus(w, EPOCH_NS + 5, 3, TT_PE_BROADCAST, 0, TT_FRAME_HELLO, 0, 0);
	put_torus(w, EPOCH_NS + 6, 2, 3, 7, TT_FRAME_DATA,
	    TT_FRAME_F_DELIVERED, 0);
	put_torus(w, EPOCH_NS + 7, 3, TT_PE_BROADCAST, 0, TT_FRAME_HELLO, 0, 0);
	/* a credit frame (a capture on a port of a lossless torus) */
	put_torus(w, EPOCH_NS + 8, 3, TT_PE_BROADCAST, 1, TT_FRAME_CREDIT, 0,
	    0);
	wclose(w);
	/* hello and credit frames go to the broadcast PE: skipped before
	 * the PE check */
	read_one(tpath("skip.pcap"), NULL, 16);
	assert_int_equal(got.rc, 0);
	assert_int_equal(got.n, 2);
	assert_int_equal(got.m[0].recno, 1);
	assert_int_equal(got.m[0].bytes, 100);
	assert_int_equal(got.m[1].recno, 4);
	assert_int_equal(got.m[1].seq, 7);
	assert_int_equal(got.m[1].bytes, 0);
	assert_int_equal(got.st.records, 8);
	assert_int_equal(got.st.messages, 2);
	assert_int_equal(got.st.hello, 4);
	assert_int_equal(got.st.delivered, 2);
	assert_int_equal(got.st.bytes, 100);
	/* the inference skips the same link control (it took a credit
	 * frame for a message, to a PE outside the network) */
	{
		char err[512] = "";
		tt_dep d;

		assert_int_equal(infer_one(tpath("skip.pcap"), NULL, 16, &d, err,
		    sizeof(err)), 2);
		assert_int_equal(d.pe, 0);
		assert_int_equal(d.bytes, 100);
	}
}

/* Read path expecting an error holding every word (NULL-terminated). */
static void
assert_read_error(const char *path, uint32_t npes, ...)
{
	va_list ap;
	const char *word;

	read_one(path, NULL, npes);
	if (got.rc != -1)
		fail_msg("%s: read %zu messages and no error", path, got.n);
	assert_contains(got.err, path);
	va_start(ap, npes);
	while ((word = va_arg(ap, const char *)) != NULL)
		assert_contains(got.err, word);
	va_end(ap);
}

static void
test_pe_outside_network(void **state)
{
	tt_trace_writer *w = wopen(tpath("range-src.pcap"));

	(void)state;
	put_torus(w, EPOCH_NS + 1, 0, 15, 0, TT_FRAME_DATA, 0, 10);
	put_torus(w, EPOCH_NS + 2, 15, 0, 0, TT_FRAME_DATA, 0, 10);
	put_torus(w, EPOCH_NS + 3, 16, 0, 0, TT_FRAME_DATA, 0, 10);
	wclose(w);
	assert_read_error(tpath("range-src.pcap"), 16, "record 3", "source",
	    "PE 16", NULL);
	/* no network: no limit */
	read_one(tpath("range-src.pcap"), NULL, 0);
	assert_int_equal(got.rc, 0);
	assert_int_equal(got.n, 3);

	/* in the first record, found when the file is opened */
	w = wopen(tpath("range-dst.pcap"));
	put_torus(w, EPOCH_NS + 1, 3, 1000, 0, TT_FRAME_DATA, 0, 10);
	wclose(w);
	assert_read_error(tpath("range-dst.pcap"), 16, "record 1",
	    "destination", "PE 1000", NULL);
	/* a delivery copy is not checked: it is no message */
	w = wopen(tpath("range-copy.pcap"));
	put_torus(w, EPOCH_NS + 1, 99, 98, 0, TT_FRAME_DATA,
	    TT_FRAME_F_DELIVERED, 10);
	put_torus(w, EPOCH_NS + 2, 1, 2, 0, TT_FRAME_DATA, 0, 10);
	wclose(w);
	read_one(tpath("range-copy.pcap"), NULL, 16);
	assert_int_equal(got.rc, 0);
	assert_int_equal(got.n, 1);
}

/* A record whose torus header is damaged: "FILE: record N: reason". */
static void
test_bad_torus_header(void **state)
{
	uint8_t buf[64];
	tt_frame f;
	tt_trace_writer *w = wopen(tpath("badver.pcap"));
	size_t len;

	(void)state;
	put_torus(w, EPOCH_NS + 1, 0, 1, 0, TT_FRAME_DATA, 0, 10);
	memset(&f, 0, sizeof(f));
	f.version = TT_FRAME_VERSION;
	f.src = 1;
	f.dst = 2;
	len = tt_frame_encode(&f, buf, sizeof(buf));
	assert_int_equal(len, 30);
	buf[TT_ETH_HLEN] = 0x20;        /* version 2, data */
	assert_int_equal(tt_trace_write(w, EPOCH_NS + 2, buf, 30, 100), 0);
	wclose(w);
	assert_read_error(tpath("badver.pcap"), 0, "record 2", "version 2",
	    NULL);

	/* the capture kept 20 bytes: the header is cut, and the message says
	 * the snap length is the cause */
	w = wopen(tpath("snap.pcap"));
	buf[TT_ETH_HLEN] = 0x10;
	assert_int_equal(tt_trace_write(w, EPOCH_NS + 2, buf, 20, 100), 0);
	wclose(w);
	assert_read_error(tpath("snap.pcap"), 0, "record 1", "cut at 6 of 16",
	    "snap length", NULL);
}

/*
 * The snap-length hint belongs to a header the capture cut.  Traces keep
 * only the headers by design (30 bytes of 30 + payload), so a whole header
 * with a bad field must be reported without it.
 */
static void
test_no_snap_hint_on_whole_header(void **state)
{
	uint8_t buf[64];
	tt_frame f;
	tt_trace_writer *w = wopen(tpath("badtype.pcap"));

	(void)state;
	memset(&f, 0, sizeof(f));
	f.version = TT_FRAME_VERSION;
	assert_int_equal(tt_frame_encode(&f, buf, sizeof(buf)), 30);
	buf[TT_ETH_HLEN] = 0x17;        /* version 1, type 7 */
	assert_int_equal(tt_trace_write(w, EPOCH_NS, buf, 30, 30 + 4096), 0);
	wclose(w);
	assert_read_error(tpath("badtype.pcap"), 0, "record 1",
	    "unknown torus frame type 7", NULL);
	assert_null(strstr(got.err, "snap length"));
}

static void
test_backwards_clamped(void **state)
{
	static const uint64_t t[] = {100, 300, 200, 400, 50, 500};
	tt_msg m[6];
	size_t i;

	(void)state;
	memset(m, 0, sizeof(m));
	for (i = 0; i < 6; i++) {
		m[i].t_ns = EPOCH_NS + t[i];
		m[i].src = 1;
		m[i].dst = 2;
		m[i].seq = (uint32_t)i;
	}
	write_msgs(tpath("back.pcap"), m, 6);
	read_one(tpath("back.pcap"), NULL, 0);
	assert_int_equal(got.rc, 0);
	assert_int_equal(got.n, 6);
	/* taken at the latest time before them, in record order */
	assert_int_equal(got.m[2].t_ns, EPOCH_NS + 300);
	assert_int_equal(got.m[4].t_ns, EPOCH_NS + 400);
	for (i = 0; i < 6; i++)
		assert_int_equal(got.m[i].seq, i);
	assert_int_equal(got.st.backwards, 2);
	assert_contains(got.warn, tpath("back.pcap"));
	assert_contains(got.warn, "2 records older than a record before them, "
	    "each taken at the latest time before it");
}

/* A file cut inside its last record: the records before it, a warning. */
static void
test_truncated_last_record(void **state)
{
	tt_msg m[10];
	size_t i;
	struct stat st;
	const char *path = tpath("cut.pcap");
	char want[300];

	(void)state;
	memset(m, 0, sizeof(m));
	for (i = 0; i < 10; i++) {
		m[i].t_ns = EPOCH_NS + i;
		m[i].src = 1;
		m[i].dst = 2;
		m[i].seq = (uint32_t)i;
	}
	write_msgs(path, m, 10);
	assert_int_equal(stat(path, &st), 0);
	/* 24-byte file header, then records of 16 + 30 bytes */
	assert_int_equal(st.st_size, 24 + 10 * 46);
	/* cut inside the data of record 10, then inside its header */
	assert_int_equal(truncate(path, st.st_size - 5), 0);
	read_one(path, NULL, 0);
	assert_int_equal(got.rc, 0);
	assert_int_equal(got.n, 9);
	assert_int_equal(got.st.truncated, 1);      /* one file cut */
	snprintf(want, sizeof(want), "W: %s: record 10: truncated", path);
	assert_contains(got.warn, want);
	assert_contains(got.warn, "using the 9 records before it");

	assert_int_equal(truncate(path, 24 + 9 * 46 + 7), 0);
	read_one(path, NULL, 0);
	assert_int_equal(got.rc, 0);
	assert_int_equal(got.n, 9);
	assert_contains(got.warn, "record 10: truncated");
}

/* tt_trace_open refuses what is no Ethernet trace, saying which. */
static void
test_open_refuses(void **state)
{
	const char *raw = tpath("raw.pcap");
	pcap_t *dead;
	pcap_dumper_t *d;
	tt_trace_reader *r;
	char err[512];

	(void)state;
	dead = pcap_open_dead(DLT_RAW, 65535);
	assert_non_null(dead);
	d = pcap_dump_open(dead, raw);
	assert_non_null(d);
	pcap_dump_close(d);
	pcap_close(dead);
	assert_int_equal(tt_trace_open(&r, raw, err, sizeof(err)), -1);
	assert_null(r);
	assert_contains(err, raw);
	assert_contains(err, "link type");
	assert_contains(err, "not Ethernet");

	write_text(tpath("empty.pcap"), "");
	assert_int_equal(tt_trace_open(&r, tpath("empty.pcap"), err,
	    sizeof(err)), -1);
	assert_contains(err, "empty file");

	write_text(tpath("text.pcap"), "src,dst,bytes\n0,1,64\n");
	assert_int_equal(tt_trace_open(&r, tpath("text.pcap"), err,
	    sizeof(err)), -1);
	assert_contains(err, "not a pcap or pcapng file");

	assert_int_equal(tt_trace_open(&r, tpath("missing.pcap"), err,
	    sizeof(err)), -1);
	assert_contains(err, "missing.pcap: cannot open");
}

/* Open descriptors of this process. */
static int
count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* A file libpcap refuses leaves no descriptor open: thousands of opens of
 * bad files (a fuzzer, a directory of junk) must not run out of them. */
static void
test_refused_open_leaks_nothing(void **state)
{
	static const uint8_t half_header[] = {0x4d, 0x3c, 0xb2, 0xa1, 0x02,
	    0x00, 0x04, 0x00};
	const char *paths[3];
	tt_trace_reader *r;
	char err[512];
	FILE *f;
	int before, i, j;

	(void)state;
	paths[0] = tpath("junk.pcap");
	write_text(paths[0], "src,dst,bytes\n0,1,64\n");
	paths[1] = tpath("half.pcap");
	f = fopen(paths[1], "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(half_header, 1, sizeof(half_header), f),
	    sizeof(half_header));
	assert_int_equal(fclose(f), 0);
	paths[2] = tpath("empty.pcap");
	write_text(paths[2], "");
	before = count_fds();
	for (i = 0; i < 2000; i++)
		for (j = 0; j < 3; j++)
			assert_int_equal(tt_trace_open(&r, paths[j], err,
			    sizeof(err)), -1);
	assert_int_equal(count_fds(), before);
}

/* ---- plain frames through an address map ---- */

static const uint8_t mac_a[6] = {0x02, 0xaa, 0, 0, 0, 0x01};
static const uint8_t mac_b[6] = {0x02, 0xaa, 0, 0, 0, 0x02};
static const uint8_t mac_x[6] = {0x02, 0xaa, 0, 0, 0, 0x09};

/* An Ethernet frame of `wire` bytes from MAC s to MAC d, with an IPv4
 * (4), IPv6 (6) or ARP (0) header holding the addresses given. */
static void
put_plain(tt_trace_writer *w, uint64_t t_ns, const uint8_t *smac,
    const uint8_t *dmac, int ip, const char *sip, const char *dip,
    uint32_t wire)
{
	uint8_t buf[128];
	size_t len = TT_ETH_HLEN;
	tt_addr a;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, dmac, 6);
	memcpy(buf + 6, smac, 6);
	if (ip == 4) {
		buf[12] = 0x08;
		buf[14] = 0x45;
		buf[14 + 9] = 1;        /* ICMP */
		assert_int_equal(tt_addr_parse(sip, &a), 0);
		memcpy(buf + 14 + 12, a.bytes, 4);
		assert_int_equal(tt_addr_parse(dip, &a), 0);
		memcpy(buf + 14 + 16, a.bytes, 4);
		len += 20;
	} else if (ip == 6) {
		buf[12] = 0x86;
		buf[13] = 0xdd;
		buf[14] = 0x60;
		assert_int_equal(tt_addr_parse(sip, &a), 0);
		memcpy(buf + 14 + 8, a.bytes, 16);
		assert_int_equal(tt_addr_parse(dip, &a), 0);
		memcpy(buf + 14 + 24, a.bytes, 16);
		len += 40;
	} else {
		buf[12] = 0x08;
		buf[13] = 0x06;
		len += 28;
	}
	assert_true(wire >= len);
	assert_int_equal(tt_trace_write(w, t_ns, buf, (uint32_t)len, wire), 0);
}

/* A config as tt_config_load leaves it: addresses and PEs as written, with
 * the position of each PE. */
static void
hand_config(tt_config *cfg, const char *const *pairs, size_t n)
{
	size_t i;

	tt_config_default(cfg);
	snprintf(cfg->path, sizeof(cfg->path), "hand.yaml");
	cfg->addrs = calloc(n, sizeof(*cfg->addrs));
	assert_non_null(cfg->addrs);
	for (i = 0; i < n; i++) {
		tt_addr *a = &cfg->addrs[i];

		if (tt_addr_parse(pairs[2 * i], a) != 0)
			fail_msg("tt_addr_parse(%s) failed", pairs[2 * i]);
		snprintf(a->text, sizeof(a->text), "%s", pairs[2 * i]);
		snprintf(a->pe, sizeof(a->pe), "%s", pairs[2 * i + 1]);
		a->line = 3 + i;
		a->col = 15;
	}
	cfg->naddrs = n;
}

static void
build_map(tt_addrmap *map, const tt_config *cfg, const tt_net *net)
{
	char buf[1024] = "";
	FILE *errs = fmemopen(buf, sizeof(buf) - 1, "w");
	int nerr;

	assert_non_null(errs);
	nerr = tt_addrmap_build(map, cfg, net, errs);
	fclose(errs);
	if (nerr != 0)
		fail_msg("tt_addrmap_build: %d errors: %s", nerr, buf);
}

/* The unmapped address `text` was counted n times. */
static void
assert_unmapped(const char *text, uint64_t n)
{
	size_t i;

	for (i = 0; i < got.st.nunmapped_addr; i++)
		if (strcmp(got.st.unmapped_addr[i].text, text) == 0) {
			assert_int_equal(got.st.unmapped_addr[i].count, n);
			return;
		}
	fail_msg("unmapped address \"%s\" not listed (warnings: %s)", text,
	    got.warn);
}

static void
test_plain_through_map(void **state)
{
	/* on 2x2x2 twin: node (x,y,z) is x + 2y + 4z, PE = 2 node + card */
	static const char *const pairs[] = {
		"10.99.0.1", "0",
		"10.99.0.2", "5",
		"fd00::1", "1,0,0/1",           /* PE 3 */
		"fd00::2", "0,1,1/0",           /* PE 12 */
		"02:aa:00:00:00:01", "6",
		"02:aa:00:00:00:02", "1,1,1/1", /* PE 15 */
	};
	static const int k[3] = {2, 2, 2};
	tt_net net;
	tt_config cfg;
	tt_addrmap map;
	tt_trace_writer *w;
	const char *path = tpath("plain.pcap");

	(void)state;
	tt_test_net(&net, 3, k, 1, NULL, TT_DL_VC);
	hand_config(&cfg, pairs, 6);
	build_map(&map, &cfg, &net);
	assert_true(map.has_ip);
	assert_true(map.has_mac);

	w = wopen(path);
	/* 1: IPv4 both mapped (MACs unmapped: the IPs decide) */
	put_plain(w, EPOCH_NS + 1, mac_x, mac_x, 4, "10.99.0.1", "10.99.0.2", 98);
	/* 2: IPv6 both mapped */
	put_plain(w, EPOCH_NS + 2, mac_x, mac_x, 6, "fd00::1", "fd00::2", 1514);
	/* 3: ARP between the mapped MACs */
	put_plain(w, EPOCH_NS + 3, mac_b, mac_a, 0, NULL, NULL, 60);
	/* 4, 5: IPv4 to an unmapped address, MACs unmapped */
	put_plain(w, EPOCH_NS + 4, mac_x, mac_x, 4, "10.99.0.1", "10.99.0.7", 98);
	put_plain(w, EPOCH_NS + 5, mac_x, mac_x, 4, "10.99.0.7", "10.99.0.2", 98);
	/* 6: IPv6 from an unmapped address */
	put_plain(w, EPOCH_NS + 6, mac_x, mac_x, 6, "fe80::1", "fd00::2", 86);
	/* 7: ARP from an unmapped MAC */
	put_plain(w, EPOCH_NS + 7, mac_x, mac_a, 0, NULL, NULL, 60);
	/* 8: IPv4 with unmapped IPs between mapped MACs: the MACs decide */
	put_plain(w, EPOCH_NS + 8, mac_a, mac_b, 4, "192.0.2.1", "192.0.2.2", 70);
	/* 9: a torus frame in the same capture is still a torus message */
	put_torus(w, EPOCH_NS + 9, 4, 9, 1, TT_FRAME_DATA, 0, 500);
	wclose(w);

	read_one(path, &map, net.ncards);
	assert_int_equal(got.rc, 0);
	assert_int_equal(got.n, 5);
	assert_int_equal(got.m[0].src, 0);
	assert_int_equal(got.m[0].dst, 5);
	assert_int_equal(got.m[0].bytes, 98);     /* the frame's length */
	assert_int_equal(got.m[0].recno, 1);
	assert_int_equal(got.m[1].src, 3);
	assert_int_equal(got.m[1].dst, 12);
	assert_int_equal(got.m[1].bytes, 1514);
	assert_int_equal(got.m[2].src, 15);
	assert_int_equal(got.m[2].dst, 6);
	assert_int_equal(got.m[2].bytes, 60);
	assert_int_equal(got.m[3].src, 6);
	assert_int_equal(got.m[3].dst, 15);
	assert_int_equal(got.m[3].recno, 8);
	assert_int_equal(got.m[4].src, 4);
	assert_int_equal(got.m[4].dst, 9);
	assert_int_equal(got.m[4].bytes, 500);
	assert_int_equal(got.st.plain, 4);
	assert_int_equal(got.st.messages, 5);
	assert_int_equal(got.st.unmapped, 4);
	assert_unmapped("10.99.0.7", 2);
	assert_unmapped("fe80::1", 1);
	assert_unmapped("02:aa:00:00:00:09", 1);
	assert_contains(got.warn, "4 frames skipped");
	assert_contains(got.warn, "10.99.0.7 (2)");
	tt_addrmap_free(&map);
	tt_config_free(&cfg);

	/* IP addresses only: ARP is unmapped by EtherType, and the MACs of
	 * frame 8 no longer save it */
	hand_config(&cfg, pairs, 4);
	build_map(&map, &cfg, &net);
	assert_false(map.has_mac);
	read_one(path, &map, net.ncards);
	assert_int_equal(got.rc, 0);
	assert_int_equal(got.n, 3);
	assert_int_equal(got.st.unmapped, 6);
	assert_unmapped("EtherType 0x0806 (ARP)", 2);
	assert_unmapped("192.0.2.1", 1);
	tt_addrmap_free(&map);
	tt_config_free(&cfg);

	/* MAC addresses only: frames 3 and 8 */
	hand_config(&cfg, pairs + 8, 2);
	build_map(&map, &cfg, &net);
	assert_false(map.has_ip);
	read_one(path, &map, net.ncards);
	assert_int_equal(got.rc, 0);
	assert_int_equal(got.n, 3);
	assert_int_equal(got.m[0].recno, 3);
	assert_int_equal(got.m[1].recno, 8);
	assert_int_equal(got.m[2].recno, 9);
	assert_unmapped("02:aa:00:00:00:09", 6);
	tt_addrmap_free(&map);
	tt_config_free(&cfg);

	/* no map: the first plain frame is an error that says what to do */
	read_one(path, NULL, net.ncards);
	assert_int_equal(got.rc, -1);
	assert_contains(got.err, path);
	assert_contains(got.err, "record 1: not a torus frame");
	assert_contains(got.err, "0x0800");
	assert_contains(got.err, "addresses:");
	tt_net_free(&net);
}

/* A PE the network lacks is an error at the PE's position in the file. */
static void
test_map_bad_pe(void **state)
{
	static const char *const pairs[] = {
		"10.99.0.1", "0",
		"10.99.0.2", "16",
		"10.99.0.3", "2,0,0/0",
	};
	static const int k[3] = {2, 2, 2};
	tt_net net;
	tt_config cfg;
	tt_addrmap map;
	char buf[1024] = "";
	FILE *errs = fmemopen(buf, sizeof(buf) - 1, "w");

	(void)state;
	assert_non_null(errs);
	tt_test_net(&net, 3, k, 1, NULL, TT_DL_VC);
	hand_config(&cfg, pairs, 3);
	assert_int_equal(tt_addrmap_build(&map, &cfg, &net, errs), 2);
	fclose(errs);
	assert_contains(buf, "hand.yaml:4:15: addresses.10.99.0.2: PE 16");
	assert_contains(buf, "hand.yaml:5:15: addresses.10.99.0.3:");
	/* what resolved is in the map */
	assert_int_equal(map.n, 1);
	tt_addrmap_free(&map);
	tt_config_free(&cfg);
	tt_net_free(&net);
}

/* An IPv4 frame cut inside its header cannot be mapped: an error. */
static void
test_plain_header_cut(void **state)
{
	static const char *const pairs[] = {"10.99.0.1", "0", "10.99.0.2", "1"};
	static const int k[3] = {2, 2, 2};
	uint8_t buf[64];
	tt_net net;
	tt_config cfg;
	tt_addrmap map;
	tt_trace_writer *w;

	(void)state;
	tt_test_net(&net, 3, k, 1, NULL, TT_DL_VC);
	hand_config(&cfg, pairs, 2);
	build_map(&map, &cfg, &net);
	memset(buf, 0, sizeof(buf));
	buf[12] = 0x08;
	buf[14] = 0x45;
	w = wopen(tpath("ipcut.pcap"));
	assert_int_equal(tt_trace_write(w, EPOCH_NS, buf, 24, 98), 0);
	wclose(w);
	read_one(tpath("ipcut.pcap"), &map, net.ncards);
	assert_int_equal(got.rc, -1);
	assert_contains(got.err, "record 1: IPv4 header cut at 10 of 20");
	tt_addrmap_free(&map);
	tt_config_free(&cfg);
	tt_net_free(&net);
}

/*
 * The inference reads what replay reads, through the same address map:
 * given an IPv4 frame whose record cuts the IP header, both refuse it with
 * the same message when its MACs are not mapped, and both take it by its
 * MACs when they are (before, replay refused it either way and the
 * inference skipped it unmapped or took it by its MACs).
 */
static void
test_plain_header_cut_readers_agree(void **state)
{
	static const char *const ips[] = {"10.99.0.1", "0", "10.99.0.2", "1"};
	static const char *const both[] = {"10.99.0.1", "0", "10.99.0.2", "1",
	    "02:aa:00:00:00:01", "2", "02:aa:00:00:00:02", "3"};
	static const int k[3] = {2, 2, 2};
	const char *path = tpath("ipcut2.pcap");
	uint8_t buf[64];
	char ierr[512];
	tt_net net;
	tt_config cfg;
	tt_addrmap map;
	tt_trace_writer *w;
	tt_dep d;

	(void)state;
	tt_test_net(&net, 3, k, 1, NULL, TT_DL_VC);
	memset(buf, 0, sizeof(buf));
	memcpy(buf, mac_b, 6);
	memcpy(buf + 6, mac_a, 6);
	buf[12] = 0x08;
	buf[14] = 0x45;
	w = wopen(path);
	assert_int_equal(tt_trace_write(w, EPOCH_NS, buf, 24, 98), 0);
	wclose(w);

	/* IPs only: nothing places the frame; both refuse, in one message */
	hand_config(&cfg, ips, 2);
	build_map(&map, &cfg, &net);
	read_one(path, &map, net.ncards);
	assert_int_equal(got.rc, -1);
	assert_contains(got.err, "record 1: IPv4 header cut at 10 of 20");
	assert_int_equal(infer_one(path, &map, net.ncards, &d, ierr,
	    sizeof(ierr)), -1);
	assert_string_equal(ierr, got.err);
	tt_addrmap_free(&map);
	tt_config_free(&cfg);

	/* with the MACs mapped: both take the frame by its MACs */
	hand_config(&cfg, both, 4);
	build_map(&map, &cfg, &net);
	read_one(path, &map, net.ncards);
	assert_int_equal(got.rc, 0);
	assert_int_equal(got.n, 1);
	assert_int_equal(got.m[0].src, 2);
	assert_int_equal(got.m[0].dst, 3);
	assert_int_equal(got.m[0].bytes, 98);
	assert_int_equal(infer_one(path, &map, net.ncards, &d, ierr,
	    sizeof(ierr)), 1);
	assert_int_equal(d.pe, 2);
	assert_int_equal(d.dst, 3);
	assert_int_equal(d.bytes, 98);
	tt_addrmap_free(&map);
	tt_config_free(&cfg);
	tt_net_free(&net);
}

/* ---- counting (trace stat) ---- */

static int
tally_plain(void *ctx, const tt_trace_rec *rec, const tt_frame *f)
{
	return tt_tally_frame(ctx, rec, f);
}

/*
 * PE ids anywhere in 32 bits cost one entry each; pairs come busiest
 * first; a plain capture read with no map lists its MACs and IPs with the
 * frames and bytes each sent and received.
 */
static void
test_tally(void **state)
{
	static const uint32_t big[] = {0x80000000u, 0xFFFFFFFEu, 0x04000000u};
	tt_trace_writer *w;
	tt_tally *t;
	tt_trace_in *in;
	const char *path = tpath("tally.pcap");
	const tt_tally_pe *pe;
	const tt_tally_pair *pr;
	const tt_tally_addr *ad;
	size_t npe, npr, nad;
	char err[512], text[64];
	tt_msg m;
	int x;

	(void)state;
	w = wopen(path);
	put_torus(w, EPOCH_NS + 1, big[0], big[1], 0, TT_FRAME_DATA, 0, 100);
	put_torus(w, EPOCH_NS + 2, big[2], big[1], 1, TT_FRAME_DATA, 0, 50);
	put_torus(w, EPOCH_NS + 3, big[0], big[1], 2, TT_FRAME_DATA, 0, 100);
	put_plain(w, EPOCH_NS + 4, mac_a, mac_b, 4, "10.9.0.1", "10.9.0.2", 98);
	put_plain(w, EPOCH_NS + 5, mac_b, mac_a, 6, "fd00::2", "fd00::1", 118);
	put_plain(w, EPOCH_NS + 6, mac_a, mac_b, 0, NULL, NULL, 60);
	wclose(w);

	assert_int_equal(tt_tally_create(&t), 0);
	assert_int_equal(tt_trace_in_open_listing(&in, &path, 1, NULL, 0,
	    tally_plain, t, err, sizeof(err)), 0);
	while ((x = tt_trace_in_next(in, &m, err, sizeof(err))) > 0)
		assert_int_equal(tt_tally_msg(t, &m), 0);
	assert_int_equal(x, 0);
	assert_int_equal(tt_trace_in_stats(in, 1)->listed, 3);
	assert_int_equal(tt_trace_in_stats(in, 1)->messages, 3);
	tt_trace_in_close(in);

	pe = tt_tally_pes(t, &npe);
	assert_int_equal(npe, 3);
	assert_int_equal(pe[0].pe, big[2]);
	assert_int_equal(pe[1].pe, big[0]);
	assert_int_equal(pe[1].sent_messages, 2);
	assert_int_equal(pe[1].sent_bytes, 200);
	assert_int_equal(pe[2].pe, big[1]);
	assert_int_equal(pe[2].received_messages, 3);
	assert_int_equal(pe[2].received_bytes, 250);
	pr = tt_tally_pairs(t, &npr);
	assert_int_equal(npr, 2);
	assert_int_equal(pr[0].src, big[0]);
	assert_int_equal(pr[0].bytes, 200);
	assert_int_equal(pr[1].src, big[2]);

	/* MAC a: 2 frames sent (98 + 60), 1 received (118); then the IPs */
	ad = tt_tally_addrs(t, &nad);
	assert_int_equal(tt_tally_frames(t), 3);
	assert_int_equal(nad, 6);
	assert_string_equal(tt_addr_text(ad[0].kind, ad[0].bytes, text,
	    sizeof(text)), "02:aa:00:00:00:01");
	assert_int_equal(ad[0].sent_frames, 2);
	assert_int_equal(ad[0].sent_bytes, 158);
	assert_int_equal(ad[0].received_frames, 1);
	assert_int_equal(ad[0].received_bytes, 118);
	assert_string_equal(tt_addr_text(ad[2].kind, ad[2].bytes, text,
	    sizeof(text)), "10.9.0.1");
	assert_int_equal(ad[2].sent_frames, 1);
	assert_string_equal(tt_addr_text(ad[5].kind, ad[5].bytes, text,
	    sizeof(text)), "fd00::2");
	assert_int_equal(ad[5].sent_bytes, 118);
	tt_tally_free(t);
}

/* ---- replay ---- */

/* Links between switches a packet from src to dst crosses. */
static int
hops_between(const tt_net *net, uint32_t src, uint32_t dst)
{
	uint32_t card = src;
	int in = TT_PORT_NIC, links = 0;
	tt_hop h;

	while ((h = tt_route(net, card, dst, in)).port != TT_PORT_NIC) {
		card = tt_link_peer(net, card, h.port, &in);
		assert_true(++links < 100);
	}
	return links;
}

struct seen {
	const tt_net *net;
	const tt_simparams *sp;
	const tt_replay_params *rp;
	uint64_t t0;            /* the trace's first time */
	uint32_t *count;        /* deliveries per seq */
	size_t nmsg;
	uint64_t *gen;          /* each message's cycle, by seq */
	uint64_t packets;
	int exact;              /* isolated messages: latency is the bound */
	int bad;
};

static void
on_done(void *ctx, const tt_msgdone *d)
{
	struct seen *s = ctx;
	int R = s->sp->router_latency, L = s->sp->link_latency;
	int P = s->sp->net.packet_flits;
	uint64_t pkt = (uint64_t)s->rp->net.packet_flits * (uint64_t)s->rp->net.flit_bytes;
	uint64_t npk = d->m.bytes == 0 ? 1 : (d->m.bytes + pkt - 1) / pkt;
	int H = hops_between(s->net, d->m.src, d->m.dst);
	/* the last packet (f flits: the rest of the bytes) leaves the NIC
	 * (npk - 1) * P cycles after the first at the earliest, then needs
	 * its zero-load latency */
	uint32_t f = tt_last_packet_flits(d->m.bytes, s->rp->net.packet_flits,
	    s->rp->net.flit_bytes);
	uint64_t zl = (uint64_t)((H + 1) * (R + L) + L + (f ? (int)f : P) -
	    1) + (npk - 1) * (uint64_t)P;

	if (d->m.seq >= s->nmsg) {
		s->bad++;
		print_error("delivered a message with seq %u\n", d->m.seq);
		return;
	}
	s->count[d->m.seq]++;
	s->packets += d->packets;
	if (d->packets != npk || d->done < d->gen || d->done - d->gen < zl ||
	    (s->exact && d->done - d->gen != zl) ||
	    (s->gen != NULL && d->gen != s->gen[d->m.seq])) {
		if (s->bad++ < 5)
			print_error("seq %u: %u->%u %llu bytes: %u packets "
			    "(want %llu), gen %llu (want %llu), latency %llu, "
			    "zero-load %llu\n", d->m.seq, d->m.src, d->m.dst,
			    (unsigned long long)d->m.bytes, d->packets,
			    (unsigned long long)npk,
			    (unsigned long long)d->gen,
			    (unsigned long long)(s->gen ? s->gen[d->m.seq] : 0),
			    (unsigned long long)(d->done - d->gen),
			    (unsigned long long)zl);
	}
}

/*
 * Replay path on net with rp: every message (seq 0..n-1) must arrive
 * exactly once, in its number of packets, no faster than zero load (exactly
 * at zero load with `exact`), at cycle gen[seq] if gen is given.
 */
static tt_replay_result
replay_run(const tt_net *net, const char *path, const tt_replay_params *rp,
    size_t n, uint64_t *gen, int exact)
{
	tt_simparams sp;
	tt_sim *sim;
	tt_simresult res;
	tt_trace_in *in;
	tt_replay *r;
	tt_source src;
	tt_replay_result out;
	struct seen s;
	char err[512] = "";
	size_t i;

	tt_simparams_default(&sp);
	sp.net.packet_flits = rp->net.packet_flits;
	if (tt_sim_create(&sim, net, &sp, err, sizeof(err)) != 0)
		fail_msg("tt_sim_create: %s", err);
	if (tt_trace_in_open(&in, &path, 1, NULL, net->ncards, err,
	    sizeof(err)) != 0)
		fail_msg("tt_trace_in_open: %s", err);
	if (tt_replay_create(&r, in, rp, sim, err, sizeof(err)) != 0)
		fail_msg("tt_replay_create: %s", err);
	memset(&s, 0, sizeof(s));
	s.net = net;
	s.sp = &sp;
	s.rp = rp;
	s.nmsg = n;
	s.count = calloc(n, sizeof(uint32_t));
	s.gen = gen;
	s.exact = exact;
	assert_non_null(s.count);
	tt_replay_on_message(r, on_done, &s);
	src = tt_replay_source(r);
	assert_int_equal(tt_sim_run(sim, &src, 1, &res, NULL, NULL), 0);
	assert_false(res.deadlock);
	assert_int_equal(tt_replay_error(r, err, sizeof(err)), 0);
	assert_int_equal(s.bad, 0);
	for (i = 0; i < n; i++)
		if (s.count[i] != 1)
			fail_msg("message %zu delivered %u times", i, s.count[i]);
	out = *tt_replay_result_get(r);
	assert_int_equal(out.messages, n);
	assert_int_equal(tt_replay_read(r), n);
	assert_int_equal(out.packets, s.packets);
	assert_int_equal(res.delivered, s.packets);
	assert_int_equal(out.latency.count, n);
	free(s.count);
	tt_simresult_free(&res);
	tt_replay_free(r);
	tt_trace_in_close(in);
	tt_sim_free(sim);
	return out;
}

static void
test_replay_isolated_messages(void **state)
{
	/* around the packet size (64 bytes) and a few hundred packets */
	static const uint64_t sizes[] = {0, 1, 63, 64, 65, 128, 129, 1000,
	    8192, 20000};
	static const int k[3] = {2, 2, 2};
	enum { N = 160, GAP = 10000 };
	static tt_msg m[N];
	static uint64_t gen[N];
	tt_replay_params rp;
	tt_replay_result res;
	tt_net net;
	uint64_t bytes = 0, packets = 0;
	size_t i;

	(void)state;
	tt_test_net(&net, 3, k, 1, "D", TT_DL_VC);
	tt_replay_params_default(&rp);
	assert_true(tt_cycle_ns(rp.net.flit_bytes, rp.net.link_gbps) == 12.8);
	for (i = 0; i < N; i++) {
		m[i].src = (uint32_t)(i % 16);
		m[i].dst = (uint32_t)((i % 16 + 1 + i / 16) % 16);
		m[i].seq = (uint32_t)i;
		m[i].bytes = sizes[i % 10];
		/* one message every GAP cycles of 12.8 ns, far longer than
		 * the largest takes: each crosses an empty network */
		m[i].t_ns = EPOCH_NS + 1000 + (uint64_t)i * GAP * 128 / 10;
		gen[i] = (uint64_t)i * GAP;
		bytes += m[i].bytes;
		packets += m[i].bytes ? (m[i].bytes + 63) / 64 : 1;
	}
	write_msgs(tpath("isolated.pcap"), m, N);
	res = replay_run(&net, tpath("isolated.pcap"), &rp, N, gen, 1);
	assert_int_equal(res.bytes, bytes);
	assert_int_equal(res.packets, packets);
	assert_int_equal(res.last_gen, (N - 1) * (uint64_t)GAP);

	/* twice as fast: every cycle halved */
	rp.speed = 2;
	for (i = 0; i < N; i++)
		gen[i] = (uint64_t)i * GAP / 2;
	replay_run(&net, tpath("isolated.pcap"), &rp, N, gen, 1);

	/* 8 flits of 32 bytes: 256 bytes a packet, half the cycle rate */
	rp.speed = 1;
	rp.net.packet_flits = 8;
	rp.net.flit_bytes = 32;
	for (i = 0; i < N; i++)
		gen[i] = (uint64_t)i * GAP / 2;
	res = replay_run(&net, tpath("isolated.pcap"), &rp, N, gen, 1);
	for (packets = 0, i = 0; i < N; i++)
		packets += m[i].bytes ? (m[i].bytes + 255) / 256 : 1;
	assert_int_equal(res.packets, packets);
	tt_net_free(&net);
}

/* Everyone at once, several times: contention, still each message once,
 * none faster than zero load. */
static void
test_replay_under_load(void **state)
{
	static const int k[3] = {2, 2, 2};
	enum { N = 16 * 15 * 3 };
	static tt_msg m[N];
	tt_replay_params rp;
	tt_replay_result res;
	tt_net net;
	size_t i = 0;
	uint32_t it, src, j;

	(void)state;
	tt_test_net(&net, 3, k, 1, "A", TT_DL_BUBBLE);
	for (it = 0; it < 3; it++)
		for (j = 1; j < 16; j++)
			for (src = 0; src < 16; src++, i++) {
				m[i].t_ns = EPOCH_NS + it * 50000 + j * 7;
				m[i].src = src;
				m[i].dst = (src + j) % 16;
				m[i].seq = (uint32_t)i;
				m[i].bytes = 100 + 37 * (i % 50);
			}
	write_msgs(tpath("load.pcap"), m, N);
	tt_replay_params_default(&rp);
	res = replay_run(&net, tpath("load.pcap"), &rp, N, NULL, 0);
	assert_true(res.latency.max > res.latency.sum / (double)N);

	/* as fast as possible: time is ignored, everything still arrives */
	rp.speed = 0;
	rp.lookahead = 32;
	replay_run(&net, tpath("load.pcap"), &rp, N, NULL, 0);
	tt_net_free(&net);
}

/*
 * The memory claim: a long trace read with a small lookahead holds about
 * lookahead messages plus those in flight, not the trace.  At this load
 * (one 64-byte message every 8 cycles in the whole network, ~20-cycle
 * latency) a few messages are in flight at once; 64 is a wide margin.
 */
static void
test_replay_memory_bounded(void **state)
{
	static const int k[3] = {2, 2, 2};
	enum { N = 30000, LOOKAHEAD = 16, IN_FLIGHT = 64 };
	tt_msg *m = calloc(N, sizeof(*m));
	tt_replay_params rp;
	tt_replay_result res;
	tt_net net;
	size_t i;

	(void)state;
	assert_non_null(m);
	tt_test_net(&net, 3, k, 1, "D", TT_DL_VC);
	for (i = 0; i < N; i++) {
		m[i].t_ns = EPOCH_NS + (uint64_t)i * 8 * 128 / 10;
		m[i].src = (uint32_t)(i % 16);
		m[i].dst = (uint32_t)((i * 7 + 3) % 16);
		if (m[i].dst == m[i].src)
			m[i].dst = (m[i].dst + 1) % 16;
		m[i].seq = (uint32_t)i;
		m[i].bytes = 64;
	}
	write_msgs(tpath("long.pcap"), m, N);
	free(m);
	tt_replay_params_default(&rp);
	rp.lookahead = LOOKAHEAD;
	res = replay_run(&net, tpath("long.pcap"), &rp, N, NULL, 0);
	if (res.max_pending >= LOOKAHEAD + IN_FLIGHT)
		fail_msg("held %llu messages at once with lookahead %d",
		    (unsigned long long)res.max_pending, LOOKAHEAD);
	assert_true(res.max_pending >= LOOKAHEAD);

	/* and the lookahead is what bounds it: with a larger one than the
	 * trace, the whole trace is read at once */
	rp.lookahead = 2 * N;
	res = replay_run(&net, tpath("long.pcap"), &rp, N, NULL, 0);
	assert_true(res.max_pending > N / 2);
	tt_net_free(&net);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_write_msg_too_large),
		cmocka_unit_test(test_write_msg_macs),
		cmocka_unit_test(test_atomic_create),
		cmocka_unit_test(test_write_error_reason_kept),
		cmocka_unit_test(test_merge_three_files),
		cmocka_unit_test(test_merge_ties_follow_file_order),
		cmocka_unit_test(test_merge_directory),
		cmocka_unit_test(test_directory_without_traces),
		cmocka_unit_test(test_hello_and_delivered_skipped),
		cmocka_unit_test(test_pe_outside_network),
		cmocka_unit_test(test_bad_torus_header),
		cmocka_unit_test(test_no_snap_hint_on_whole_header),
		cmocka_unit_test(test_backwards_clamped),
		cmocka_unit_test(test_truncated_last_record),
		cmocka_unit_test(test_open_refuses),
		cmocka_unit_test(test_refused_open_leaks_nothing),
		cmocka_unit_test(test_plain_through_map),
		cmocka_unit_test(test_map_bad_pe),
		cmocka_unit_test(test_plain_header_cut),
		cmocka_unit_test(test_plain_header_cut_readers_agree),
		cmocka_unit_test(test_tally),
		cmocka_unit_test(test_replay_isolated_messages),
		cmocka_unit_test(test_replay_under_load),
		cmocka_unit_test(test_replay_memory_bounded),
	};

	return cmocka_run_group_tests_name("trace", tests, setup_dir,
	    teardown_dir);
}
