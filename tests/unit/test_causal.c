/*
 * Causal replay and what it stands on:
 *   - the engine's closed-loop hook: a source that says TT_SRC_WAIT is not
 *     asked again until tt_sim_wake(), then in the cycle it names; a PE
 *     that waits for ever lets a run until empty end; waking a PE that
 *     does not wait does nothing;
 *   - the causal source: a message leaves when its predecessors have
 *     arrived and its gap has passed (from the later of them and the PE's
 *     previous send), its first without predecessors at its gap from the
 *     start; a predecessor that is not an earlier message to the same PE,
 *     or that enables a second send, is ignored with a warning and nothing
 *     hangs;
 *   - the dependency file: what is written reads back, and a damaged file
 *     (not one, a bad field, cut short, a wrong end line) is refused with
 *     its name and line;
 *   - its limits (twintorus/deps.h): bytes up to 4 GiB, gap_ns up to a day,
 *     t_ns within a day of the first, numbers below 2^32, lines up to 64
 *     KiB, each taken at the limit and refused past it with the field and
 *     the limit; /dev/zero refused at once;
 *   - the arithmetic past those limits: a 4 GiB message in packets of a
 *     byte (2^32 of them) is not complete at its first packet, and gaps
 *     that add up past the simulator's clock stop the replay with a
 *     message instead of wrapping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "twintorus/causal.h"
#include "twintorus/deps.h"
#include "twintorus/sim.h"
#include "engine/sim_int.h"            /* the deliver hook, called by hand */
#include "tt_test.h"


/* ---- the engine's hook ---- */

struct hook {
	tt_sim *sim;
	int asked[16], sent[16];
	uint64_t arrived, gen5, wake_at;
};

static int
hook_next(void *ctx, uint32_t pe, uint64_t now, tt_srcpkt *pk)
{
	struct hook *h = ctx;

	h->asked[pe]++;
	if (pe == 0 && !h->sent[0]) {
		h->sent[0] = 1;
		pk->gen = 0;
		pk->dst = 5;
		return TT_SRC_PACKET;
	}
	if (pe == 5 && !h->sent[5]) {
		if (h->arrived == 0)
			return TT_SRC_WAIT;
		h->sent[5] = 1;
		h->gen5 = now;
		pk->gen = now;
		pk->dst = 0;
		return TT_SRC_PACKET;
	}
	if (pe == 3)
		return TT_SRC_WAIT;     /* never woken */
	return TT_SRC_DONE;
}

static void
hook_deliver(void *ctx, const tt_delivery *d)
{
	struct hook *h = ctx;

	if (d->dst == 5) {
		h->arrived = d->deliver;
		h->wake_at = d->deliver + 10;
		tt_sim_wake(h->sim, 1, d->deliver + 1);   /* not waiting */
		tt_sim_wake(h->sim, 5, h->wake_at);
	}
}

static void
test_wait_and_wake(void **state)
{
	struct hook h;
	tt_net net;
	tt_source src = {hook_next, &h};
	tt_simresult res;

	(void)state;
	memset(&h, 0, sizeof(h));
	h.sim = tt_test_sim222(&net);
	assert_int_equal(tt_sim_on_deliver(h.sim, hook_deliver, &h, NULL, 0), 0);
	tt_sim_run(h.sim, &src, 1, &res, NULL, NULL);
	assert_int_equal(res.delivered, 2);
	assert_true(h.arrived > 0);
	/* asked once at the start, then only when woken, then DONE */
	assert_int_equal(h.gen5, h.wake_at);
	assert_int_equal(h.asked[5], 3);
	assert_int_equal(h.asked[1], 1);
	assert_int_equal(h.asked[3], 1);
	assert_false(res.deadlock);
	tt_simresult_free(&res);
	tt_sim_free(h.sim);
	tt_net_free(&net);
}

/* ---- the causal source on lines from memory ---- */

struct lines {
	const tt_dep *d;
	int n, i;
};

static int
lines_next(void *ctx, tt_dep *d, char *err, size_t errsz)
{
	struct lines *l = ctx;

	(void)err;
	(void)errsz;
	if (l->i == l->n)
		return 0;
	*d = l->d[l->i++];
	return 1;
}

struct seen {
	tt_causal_msg m[16];
	int n;
};

static void
on_msg(void *ctx, const tt_causal_msg *m)
{
	struct seen *s = ctx;

	s->m[s->n++] = *m;
}

static const tt_causal_msg *
find(const struct seen *s, uint32_t src, uint32_t seq)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->m[i].src == src && s->m[i].seq == seq)
			return &s->m[i];
	fail_msg("message %u:%u did not arrive", src, seq);
	return NULL;
}

static tt_causal_result
replay_lines(const tt_dep *d, int n, struct seen *s, char *warn,
    size_t warnsz)
{
	struct lines l = {d, n, 0};
	tt_dep_stream in = {lines_next, &l};
	tt_replay_params p;
	tt_causal_result r;
	tt_simresult res;
	tt_causal *c;
	tt_source src;
	tt_sim *sim;
	tt_net net;
	char err[256];
	FILE *f;

	tt_replay_params_default(&p);
	sim = tt_test_sim222(&net);
	memset(s, 0, sizeof(*s));
	assert_int_equal(tt_causal_create(&c, in, &p, sim, err, sizeof(err)), 0);
	tt_causal_on_message(c, on_msg, s);
	src = tt_causal_source(c);
	tt_sim_run(sim, &src, 1, &res, NULL, NULL);
	assert_int_equal(tt_causal_error(c, err, sizeof(err)), 0);
	r = *tt_causal_result_get(c);
	f = fmemopen(warn, warnsz - 1, "w");
	memset(warn, 0, warnsz);
	tt_causal_warnings(c, f, "");
	fclose(f);
	tt_causal_free(c);
	tt_simresult_free(&res);
	tt_sim_free(sim);
	tt_net_free(&net);
	return r;
}

static void
test_release_after_predecessors_and_gap(void **state)
{
	/* 0:0 at 64 ns from the start (5 cycles of 12.8 ns); 5:0 300 ns
	 * (23 cycles) after 0:0 arrives; 0:1 1000 ns (78 cycles) after 5:0
	 * arrives; 0:2 right after 0:1 (no predecessor, gap 128 ns) */
	static const tt_depref p1 = {0, 0}, p2 = {5, 0};
	const tt_dep d[] = {
		{0, 0, 5, 1000, 0, 64, 0, NULL},
		{5, 0, 0, 64, 0, 300, 1, &p1},
		{0, 1, 5, 64, 0, 1000, 1, &p2},
		{0, 2, 5, 64, 0, 128, 0, NULL},
	};
	const tt_causal_msg *a, *b, *c, *e;
	tt_causal_result r;
	struct seen s;
	char warn[1024];

	(void)state;
	r = replay_lines(d, 4, &s, warn, sizeof(warn));
	assert_int_equal(r.rr.messages, 4);
	assert_int_equal(r.ignored, 0);
	a = find(&s, 0, 0);
	b = find(&s, 5, 0);
	c = find(&s, 0, 1);
	e = find(&s, 0, 2);
	assert_int_equal(a->gen, 5);
	assert_int_equal(a->packets, 16);       /* 1000 bytes, 64 a packet */
	assert_int_equal(b->gen, a->done + 23);
	assert_int_equal(c->gen, b->done + 78);
	assert_int_equal(e->gen, c->gen + 10);
	assert_int_equal(r.first_gen, 5);
	assert_int_equal(tt_causal_makespan(&r), e->done + 1 - 5);
	assert_int_equal(r.waited, 2);
}

static void
test_bad_predecessors_ignored(void **state)
{
	/* a forward reference (5:1 names 0:9, later in the file), a message
	 * to another PE (5:2 names 0:0, which went to 6) and a message
	 * claimed twice (6:1 after 6:0 named 0:0) and a message to its own
	 * sender naming itself (3:4 names 3:4, which would wait for its own
	 * arrival): ignored, and all arrive */
	static const tt_depref fwd = {0, 9}, other = {0, 0}, twice = {0, 0},
	    self = {3, 4};
	const tt_dep d[] = {
		{0, 0, 6, 64, 0, 0, 0, NULL},
		{5, 1, 0, 64, 0, 0, 1, &fwd},
		{5, 2, 0, 64, 0, 0, 1, &other},
		{6, 0, 0, 64, 0, 0, 1, &twice},
		{6, 1, 0, 64, 0, 0, 1, &twice},
		{0, 9, 5, 64, 0, 0, 0, NULL},
		{3, 4, 3, 64, 0, 0, 1, &self},
	};
	tt_causal_result r;
	struct seen s;
	char warn[2048];

	(void)state;
	r = replay_lines(d, 7, &s, warn, sizeof(warn));
	assert_int_equal(r.rr.messages, 7);
	assert_int_equal(r.ignored, 4);
	assert_non_null(strstr(warn, "5:1: predecessor 0:9 is not a message "
	    "to PE 5 earlier"));
	assert_non_null(strstr(warn, "5:2: predecessor 0:0 is not"));
	assert_non_null(strstr(warn, "6:1: predecessor 0:0 already enables"));
	assert_non_null(strstr(warn, "3:4: predecessor 3:4 is not a message "
	    "to PE 3 earlier"));
}

/* ---- the dependency file ---- */

static char dir[] = "/tmp/tt-deps-XXXXXX";

static void
write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void
read_fails(const char *text, const char *want)
{
	char path[64], err[512];
	tt_deps_reader *r;
	tt_dep d;
	int x;

	snprintf(path, sizeof(path), "%s/bad.deps", dir);
	write_text(path, text);
	if (tt_deps_open(&r, path, err, sizeof(err)) == 0) {
		while ((x = tt_deps_read(r, &d, err, sizeof(err))) > 0)
			;
		tt_deps_close_reader(r);
		assert_int_equal(x, -1);
	}
	if (strstr(err, want) == NULL)
		fail_msg("said '%s', wanted '%s'", err, want);
	unlink(path);
}

static void
test_deps_file(void **state)
{
	static const tt_depref pr[2] = {{3, 7}, {4294967295u, 0}};
	const tt_dep d[2] = {
		{1, 2, 3, 4096, 1767225600000000001ull, 500, 2, pr},
		{3, 8, 1, 0, 1767225600000000009ull, 0, 0, NULL},
	};
	char path[64], err[512];
	tt_deps_writer *w;
	tt_deps_reader *r;
	tt_dep g;
	int i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ok.deps", dir);
	assert_int_equal(tt_deps_create(&w, path, err, sizeof(err)), 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(tt_deps_write(w, &d[i]), 0);
	assert_int_equal(tt_deps_close(w, err, sizeof(err)), 0);
	assert_int_equal(tt_deps_open(&r, path, err, sizeof(err)), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(tt_deps_read(r, &g, err, sizeof(err)), 1);
		assert_int_equal(g.pe, d[i].pe);
		assert_int_equal(g.seq, d[i].seq);
		assert_int_equal(g.dst, d[i].dst);
		assert_int_equal(g.bytes, d[i].bytes);
		assert_true(g.t_ns == d[i].t_ns);
		assert_int_equal(g.gap_ns, d[i].gap_ns);
		assert_int_equal(g.npred, d[i].npred);
		if (g.npred == 2)
			assert_memory_equal(g.pred, pr, sizeof(pr));
	}
	assert_int_equal(tt_deps_read(r, &g, err, sizeof(err)), 0);
	tt_deps_close_reader(r);
	unlink(path);

	read_fails("pe seq\n", "not a dependency file");
	read_fails("# twintorus dependencies 1\n1 2 3 x 5 6 -\n",
	    "bad.deps:2: field 4 (bytes)");
	read_fails("# twintorus dependencies 1\n1 2 3 4 5 6 7\n",
	    "bad.deps:2: predecessor 1");
	read_fails("# twintorus dependencies 1\n1 2 3 4 5 6 -\n",
	    "bad.deps:2: the file ends without its '# end' line");
	read_fails("# twintorus dependencies 1\n1 2 3 4 5 6 -\n"
	    "# end 2 messages 0 predecessors\n", "the end line says 2");
	read_fails("# twintorus dependencies 1\n1 2 3 4 5 6 8:9 junk\n",
	    "bad.deps:2: predecessor 2");
	rmdir(dir);
}

/* text, a header before it and the end line after it, as a file read
 * whole: 0, or -1 with err */
static int
read_text(const char *text, uint32_t lines, uint32_t preds, char *err,
    size_t errsz)
{
	char path[64], *all;
	tt_deps_reader *r;
	tt_dep d;
	size_t n = strlen(text) + 128;
	int x;

	snprintf(path, sizeof(path), "%s/lim.deps", dir);
	assert_non_null(all = malloc(n));
	snprintf(all, n, "# twintorus dependencies 1\n%s# end %u messages %u "
	    "predecessors\n", text, lines, preds);
	write_text(path, all);
	free(all);
	assert_int_equal(tt_deps_open(&r, path, err, errsz), 0);
	while ((x = tt_deps_read(r, &d, err, errsz)) > 0)
		;
	tt_deps_close_reader(r);
	unlink(path);
	return x;
}

static void
limit_ok(const char *text, uint32_t lines, uint32_t preds)
{
	char err[512];

	if (read_text(text, lines, preds, err, sizeof(err)) != 0)
		fail_msg("refused '%.60s': %s", text, err);
}

static void
limit_refused(const char *text, const char *want)
{
	char err[512];

	assert_int_equal(read_text(text, 1, 0, err, sizeof(err)), -1);
	if (strstr(err, want) == NULL)
		fail_msg("said '%s', wanted '%s'", err, want);
}

static void
test_deps_limits(void **state)
{
	tt_deps_reader *r;
	char err[512], *line;
	size_t pad;

	(void)state;
	memcpy(dir + sizeof(dir) - 7, "XXXXXX", 6);    /* test_deps_file's */
	assert_non_null(mkdtemp(dir));
	/* bytes: 4 GiB, not a byte more (2^38 and 2^38 + 64 were taken) */
	limit_ok("0 0 1 4294967296 5 0 -\n", 1, 0);
	limit_refused("0 0 1 4294967297 5 0 -\n", "lim.deps:2: field 4 "
	    "(bytes): 4294967297 is more than the 4294967296 (4 GiB)");
	limit_refused("0 0 1 274877906944 5 0 -\n", "field 4 (bytes)");
	limit_refused("0 0 1 274877907008 5 0 -\n", "field 4 (bytes)");
	limit_refused("0 0 1 18446744073709551616 5 0 -\n",
	    "field 4 (bytes): wanted a whole number");
	/* gap_ns: a day */
	limit_ok("0 0 1 64 5 86400000000000 -\n", 1, 0);
	limit_refused("0 0 1 64 5 86400000000001 -\n", "lim.deps:2: field 6 "
	    "(gap_ns): 86400000000001 ns is more than the 86400000000000 ns "
	    "(a day)");
	limit_refused("0 0 1 64 5 18446744073709551615 -\n", "field 6 (gap_ns)");
	/* t_ns: within a day of the first, either way (node clocks) */
	limit_ok("0 0 1 64 1767225600000000000 0 -\n"
	    "1 0 0 64 1767312000000000000 0 -\n"
	    "2 0 0 64 1767139200000000000 0 -\n", 3, 0);
	limit_refused("0 0 1 64 1767225600000000000 0 -\n"
	    "1 0 0 64 1767312000000000001 0 -\n", "lim.deps:3: field 5 (t_ns): "
	    "1767312000000000001 is more than 86400000000000 ns (a day) from "
	    "the first message's 1767225600000000000");
	limit_refused("0 0 1 64 1767225600000000000 0 -\n"
	    "1 0 0 64 5 0 -\n", "lim.deps:3: field 5 (t_ns)");
	/* pe, seq, dst and the predecessors: below 2^32 */
	limit_ok("4294967295 4294967295 4294967295 0 0 0 4294967295:4294967295"
	    "\n", 1, 1);
	limit_refused("4294967296 0 1 64 5 0 -\n", "lim.deps:2: field 1 (pe): "
	    "4294967296 is not below 2^32");
	limit_refused("0 4294967296 1 64 5 0 -\n", "field 2 (seq)");
	limit_refused("0 0 4294967296 64 5 0 -\n", "field 3 (dst)");
	limit_refused("0 0 1 64 5 0 4294967296:0\n", "lim.deps:2: predecessor 1");
	limit_refused("0 0 1 64 5 0 0:4294967296\n", "predecessor 1");
	/* a line: 64 KiB, its newline not counted (blanks after the
	 * predecessors are allowed, so a line can be any length) */
	pad = 65536 - strlen("0 0 1 64 5 0 -");
	assert_non_null(line = malloc(65536 + 3));
	snprintf(line, 65536 + 3, "0 0 1 64 5 0 -%*s\n", (int)pad, "");
	assert_int_equal(strlen(line), 65537);
	limit_ok(line, 1, 0);
	snprintf(line, 65536 + 3, "0 0 1 64 5 0 -%*s\n", (int)pad + 1, "");
	limit_refused(line, "lim.deps:2: a line longer than 65536 bytes");
	free(line);
	{
		static const char nul[] = "# twintorus dependencies 1\n"
		    "0 0 1 64 5 0 -\n0 1 1 64 5 0\0 -\n# end 2 messages 0 "
		    "predecessors\n";
		char path[64];
		tt_dep d;
		FILE *f;

		snprintf(path, sizeof(path), "%s/nul.deps", dir);
		assert_non_null(f = fopen(path, "w"));
		assert_int_equal(fwrite(nul, 1, sizeof(nul) - 1, f),
		    sizeof(nul) - 1);
		fclose(f);
		assert_int_equal(tt_deps_open(&r, path, err, sizeof(err)), 0);
		assert_int_equal(tt_deps_read(r, &d, err, sizeof(err)), 1);
		assert_int_equal(tt_deps_read(r, &d, err, sizeof(err)), -1);
		tt_deps_close_reader(r);
		unlink(path);
		assert_non_null(strstr(err, "nul.deps:3: a NUL byte at column "
		    "13"));
	}
	/* a device of endless NULs: refused on its first line */
	assert_int_equal(tt_deps_open(&r, "/dev/zero", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/dev/zero:1: a NUL byte"));
	rmdir(dir);
}

/*
 * Writes d (and a first message of t_ns 5) to a new file: 0, or -1 with
 * err set by tt_deps_close() and no file left.
 */
static int
write_one(const tt_dep *d, char *err, size_t errsz)
{
	static const tt_dep first = { 0, 0, 1, 64, 5, 0, 0, NULL };
	tt_deps_writer *w;
	char path[64];
	int bad;

	snprintf(path, sizeof(path), "%s/w.deps", dir);
	unlink(path);   /* a refused file leaves the one before as it was */
	assert_int_equal(tt_deps_create(&w, path, err, errsz), 0);
	assert_int_equal(tt_deps_write(w, &first), 0);
	bad = tt_deps_write(w, d) < 0;
	assert_int_equal(bad, tt_deps_write_error(w) != NULL);
	if (tt_deps_close(w, err, errsz) < 0) {
		assert_true(bad);
		assert_int_equal(access(path, F_OK), -1);
		return -1;
	}
	assert_false(bad);
	return 0;
}

/* A writer writes no line its reader refuses: the limits are the same,
 * to the byte. */
static void
test_deps_writer_limits(void **state)
{
	enum { N = 6553 };
	static tt_depref pred[N + 1];
	tt_deps_reader *r;
	tt_dep d = { 1, 0, 0, 64, 5, 0, 0, NULL }, got;
	char err[512], path[64];
	uint32_t i;

	(void)state;
	memcpy(dir + sizeof(dir) - 7, "XXXXXX", 6);
	assert_non_null(mkdtemp(dir));
	d.bytes = TT_DEPS_BYTES_MAX;
	assert_int_equal(write_one(&d, err, sizeof(err)), 0);
	d.bytes++;
	assert_int_equal(write_one(&d, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "message 1:0 has 4294967297 bytes"));
	d.bytes = 64;
	d.gap_ns = TT_DEPS_NS_MAX + 1;
	assert_int_equal(write_one(&d, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "its compute gap is more than a day"));
	d.gap_ns = 0;
	d.t_ns = 5 + TT_DEPS_NS_MAX + 1;
	assert_int_equal(write_one(&d, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "it was sent more than a day"));
	/* "1 0 0 64 5 0 " (13 bytes), 6,552 of "1:1000000" and "1:5", a
	 * blank between each: 65,536 bytes, the most a line may have */
	d.t_ns = 5;
	for (i = 0; i < N - 1; i++)
		pred[i] = (tt_depref){ 0, 1000000 };
	pred[N - 1] = (tt_depref){ 0, 5 };
	d.pred = pred;
	d.npred = N;
	assert_int_equal(write_one(&d, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/w.deps", dir);
	assert_int_equal(tt_deps_open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(tt_deps_read(r, &got, err, sizeof(err)), 1);
	assert_int_equal(tt_deps_read(r, &got, err, sizeof(err)), 1);
	assert_int_equal(got.npred, N);
	assert_int_equal(tt_deps_read(r, &got, err, sizeof(err)), 0);
	tt_deps_close_reader(r);
	unlink(path);
	/* a byte more */
	pred[N - 1].seq = 15;
	assert_int_equal(write_one(&d, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "has 6553 predecessors: its line would be "
	    "longer than the 65536 bytes"));
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
}

static void
test_packets_of_4gib(void **state)
{
	/* 4 GiB from 0 to 5 in packets of one byte: 2^32 packets, which 32
	 * bits took for none, so that the first packet completed it; the
	 * delivery hook is called by hand (simulating 2^32 packets is not a
	 * unit test) */
	const tt_dep d[] = {{0, 0, 5, 4294967296ull, 0, 0, 0, NULL}};
	struct lines l = {d, 1, 0};
	tt_dep_stream in = {lines_next, &l};
	tt_replay_params p;
	tt_delivery dv = {0, 5, 0, 1, 10, 11, 20};
	tt_srcpkt pk;
	tt_causal *c;
	tt_source src;
	tt_sim *sim;
	tt_net net;
	char err[256];
	int i;

	(void)state;
	tt_replay_params_default(&p);
	p.net.packet_flits = 1;
	p.net.flit_bytes = 1;
	sim = tt_test_sim222(&net);
	assert_int_equal(tt_causal_create(&c, in, &p, sim, err, sizeof(err)), 0);
	src = tt_causal_source(c);
	for (i = 0; i < 3; i++) {
		memset(&pk, 0, sizeof(pk));
		assert_int_equal(src.next(src.ctx, 0, 0, &pk), TT_SRC_PACKET);
		assert_int_equal(pk.dst, 5);
		sim->on_deliver(sim->deliver_ctx, &dv);
	}
	assert_int_equal(tt_causal_result_get(c)->rr.messages, 0);
	assert_int_equal(tt_causal_result_get(c)->rr.packets, 3);
	assert_int_equal(tt_causal_error(c, err, sizeof(err)), 0);
	tt_causal_free(c);
	tt_sim_free(sim);
	tt_net_free(&net);
}

static void
test_gaps_past_the_clock(void **state)
{
	/* gaps of the most a stream can say, one after another at PE 0:
	 * 1.4e18 cycles of 12.8 ns each, so the fourth release is past 2^62
	 * and the thirteenth past 2^64, where a sum would wrap to the past */
	tt_dep d[16];
	struct lines l = {d, 16, 0};
	tt_dep_stream in = {lines_next, &l};
	tt_replay_params p;
	tt_simresult res;
	tt_causal *c;
	tt_source src;
	tt_sim *sim;
	tt_net net;
	char err[256];
	int i;

	(void)state;
	memset(d, 0, sizeof(d));
	for (i = 0; i < 16; i++) {
		d[i].seq = (uint32_t)i;
		d[i].dst = 1;
		d[i].bytes = 64;
		d[i].gap_ns = UINT64_MAX;
	}
	tt_replay_params_default(&p);
	sim = tt_test_sim222(&net);
	assert_int_equal(tt_causal_create(&c, in, &p, sim, err, sizeof(err)), 0);
	src = tt_causal_source(c);
	tt_sim_run(sim, &src, 1, &res, NULL, NULL);
	assert_int_equal(tt_causal_error(c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "message 0:3: released after cycle 2^62"));
	assert_int_equal(tt_causal_result_get(c)->rr.messages, 3);
	tt_causal_free(c);
	tt_simresult_free(&res);
	tt_sim_free(sim);
	tt_net_free(&net);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wait_and_wake),
		cmocka_unit_test(test_release_after_predecessors_and_gap),
		cmocka_unit_test(test_bad_predecessors_ignored),
		cmocka_unit_test(test_deps_file),
		cmocka_unit_test(test_deps_limits),
		cmocka_unit_test(test_deps_writer_limits),
		cmocka_unit_test(test_packets_of_4gib),
		cmocka_unit_test(test_gaps_past_the_clock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
