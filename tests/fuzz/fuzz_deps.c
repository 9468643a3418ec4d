/*
 * libFuzzer target: the dependency file's reader (lib/formats/deps.c), as `ttsim
 * replay --causal --deps` meets a file: any bytes, opened by path
 * (through a memfd), read line by line to the end or the first error.
 *
 * Besides memory safety:
 *   - every line taken is within the file's limits (twintorus/deps.h):
 *     bytes at most 4 GiB, gap_ns at most a day, t_ns within a day of the
 *     first line's;
 *   - an error is one line that starts with the file's name;
 *   - a file taken whole, written again with tt_deps_write() and read
 *     back, gives the same lines (the writer writes what the reader
 *     takes), and no longer a file than it was.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "twintorus/deps.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the lines of one file, their predecessors copied */
struct taken {
	tt_dep *d;
	tt_depref *pred;
	size_t n, cap, npred, pcap;
};

static void
keep(struct taken *t, const tt_dep *d)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		if ((t->d = realloc(t->d, t->cap * sizeof(*t->d))) == NULL)
			abort();
	}
	while (t->npred + d->npred > t->pcap) {
		t->pcap = t->pcap ? t->pcap * 2 : 64;
		if ((t->pred = realloc(t->pred, t->pcap * sizeof(*t->pred))) ==
		    NULL)
			abort();
	}
	t->d[t->n] = *d;
	t->d[t->n].pred = NULL;         /* an index into t->pred, below */
	if (d->npred > 0)
		memcpy(t->pred + t->npred, d->pred, d->npred * sizeof(*d->pred));
	t->npred += d->npred;
	t->n++;
}

/* Read path whole; 0 and t filled, or -1 with err. */
static int
read_all(const char *path, struct taken *t, char *err, size_t errsz)
{
	tt_deps_reader *r;
	uint64_t t0 = 0;
	tt_dep d;
	int x;

	if (tt_deps_open(&r, path, err, errsz) < 0)
		return -1;
	while ((x = tt_deps_read(r, &d, err, errsz)) > 0) {
		uint64_t off;

		if (t->n == 0)
			t0 = d.t_ns;
		off = d.t_ns > t0 ? d.t_ns - t0 : t0 - d.t_ns;
		if (d.bytes > TT_DEPS_BYTES_MAX || d.gap_ns > TT_DEPS_NS_MAX ||
		    off > TT_DEPS_NS_MAX)
			abort();        /* a line past the limits taken */
		keep(t, &d);
	}
	tt_deps_close_reader(r);
	return x;
}

static void
check_error(const char *err, const char *path)
{
	if (strchr(err, '\n') != NULL ||
	    (strncmp(err, path, strlen(path)) != 0 &&
	    strcmp(err, "out of memory") != 0))
		abort();
}

static void
same(const struct taken *a, const struct taken *b)
{
	size_t i;

	if (a->n != b->n || a->npred != b->npred || (a->npred > 0 &&
	    memcmp(a->pred, b->pred, a->npred * sizeof(*a->pred)) != 0))
		abort();
	for (i = 0; i < a->n; i++) {
		const tt_dep *x = &a->d[i], *y = &b->d[i];

		if (x->pe != y->pe || x->seq != y->seq || x->dst != y->dst ||
		    x->bytes != y->bytes || x->t_ns != y->t_ns ||
		    x->gap_ns != y->gap_ns || x->npred != y->npred)
			abort();
	}
}

/* Write t to dir/again.deps with the writer, read it back: the same. */
static void
round_trip(const struct taken *t, const char *dir, size_t size)
{
	struct taken back;
	tt_deps_writer *w;
	char path[128], err[512];
	struct stat st;
	size_t i, k = 0;

	snprintf(path, sizeof(path), "%s/again.deps", dir);
	if (tt_deps_create(&w, path, err, sizeof(err)) < 0)
		abort();
	for (i = 0; i < t->n; i++) {
		tt_dep d = t->d[i];

		if (d.npred > 0)
			d.pred = t->pred + k;
		k += d.npred;
		if (tt_deps_write(w, &d) < 0)
			abort();
	}
	if (tt_deps_close(w, err, sizeof(err)) < 0)
		abort();
	memset(&back, 0, sizeof(back));
	if (read_all(path, &back, err, sizeof(err)) != 0)
		abort();        /* the reader refused what the writer wrote */
	same(t, &back);
	/* the end line may be longer than a damaged input's; the lines not */
	if (stat(path, &st) != 0 || (size_t)st.st_size > size + 128)
		abort();
	unlink(path);
	free(back.d);
	free(back.pred);
}

static char dir[] = "/tmp/fuzz-deps-XXXXXX";

static void
remove_dir(void)
{
	rmdir(dir);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct taken t;
	char path[64], err[512];
	int fd, x;

	if (!ready) {
		if (mkdtemp(dir) == NULL)
			abort();
		atexit(remove_dir);
		ready = 1;
	}
	fd = fuzz_as_file("fuzz-deps", data, size, path, sizeof(path));
	memset(&t, 0, sizeof(t));
	err[0] = '\0';
	x = read_all(path, &t, err, sizeof(err));
	if (x < 0)
		check_error(err, path);
	else
		round_trip(&t, dir, size);
	free(t.d);
	free(t.pred);
	close(fd);
	return 0;
}
