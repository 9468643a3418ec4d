/*
 * ttd's control plane without devices: the control socket's request
 * parser (request.c), the socket itself (control.c: what it refuses to
 * replace, clients served without waiting, deadlines) and SIGHUP's reload
 * (reload.c: off the caller's path, and refused where it needs a restart).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <cmocka.h>

#include "../../daemon/ttd.h"

/* ---- the request parser ---- */

struct req_case {
	const char *in;
	int eof;
	int want;                 /* 0 more, 1 ok, -1 error */
	int kind;
	const char *err;          /* in the error, if want < 0 */
};

static void
test_request_parse(void **state)
{
	static const struct req_case cases[] = {
		{"status\n", 0, 1, TTD_REQ_STATUS_TEXT, NULL},
		{"status json\n", 0, 1, TTD_REQ_STATUS_JSON, NULL},
		{"status json\r\n", 0, 1, TTD_REQ_STATUS_JSON, NULL},
		{"  status \t json \n", 0, 1, TTD_REQ_STATUS_JSON, NULL},
		{"status text\n", 0, 1, TTD_REQ_STATUS_TEXT, NULL},
		{"status", 0, 0, 0, NULL},
		{"status", 1, 1, TTD_REQ_STATUS_TEXT, NULL},
		{"status json", 1, 1, TTD_REQ_STATUS_JSON, NULL},
		{"", 0, 0, 0, NULL},
		{"\n", 0, -1, 0, "empty request"},
		{"stats\n", 0, -1, 0, "unknown request \"stats\""},
		{"status json x\n", 0, -1, 0, "unknown request"},
		{"status json x y\n", 0, -1, 0, "unknown request"},
		{"\x1b[2Jstatus\n", 0, -1, 0, "\"\\x1b[2Jstatus\""},
		{"sta\"tus\n", 0, -1, 0, "\"sta\\x22tus\""},
	};
	char err[512];
	size_t i, used;
	int kind, r;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct req_case *c = &cases[i];

		err[0] = '\0';
		r = ttd_request_parse(c->in, strlen(c->in), c->eof, &kind,
		    &used, err, sizeof(err));
		if (r != c->want || (r > 0 && kind != c->kind))
			fail_msg("\"%s\": %d kind %d, wanted %d kind %d", c->in,
			    r, kind, c->want, c->kind);
		if (r < 0 && strstr(err, c->err) == NULL)
			fail_msg("\"%s\": said \"%s\", wanted \"%s\"", c->in,
			    err, c->err);
		if (r != 0 && strchr(c->in, '\n') != NULL)
			assert_int_equal(used, strlen(c->in));
	}
}

static void
test_request_bounds(void **state)
{
	char buf[300], err[512];
	size_t used;
	int kind;

	(void)state;
	/* no newline in the first TTD_REQUEST_MAX bytes: refused there */
	memset(buf, 'a', sizeof(buf));
	assert_int_equal(ttd_request_parse(buf, TTD_REQUEST_MAX - 1, 0, &kind,
	    &used, err, sizeof(err)), 0);
	assert_int_equal(ttd_request_parse(buf, sizeof(buf), 0, &kind, &used,
	    err, sizeof(err)), -1);
	assert_non_null(strstr(err, "longer than 63 bytes"));
	assert_true(strlen(err) < sizeof(err) - 1);
	/* a NUL inside the line */
	memcpy(buf, "status\0json\n", 12);
	assert_int_equal(ttd_request_parse(buf, 12, 0, &kind, &used, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "NUL byte"));
	/* the error always fits and ends: a small buffer */
	memset(buf, 0x01, 40);
	buf[40] = '\n';
	assert_int_equal(ttd_request_parse(buf, 41, 0, &kind, &used, err,
	    16), -1);
	assert_true(strlen(err) < 16);
}

/* ---- the control socket ---- */

static char tmpdir[64];

static void
make_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test-ttd-ctl-XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
}

static void
path_in_tmp(char *buf, size_t bufsz, const char *name)
{
	snprintf(buf, bufsz, "%s/%s", tmpdir, name);
}

static int answered;

static void
answer(void *ctx, int kind, FILE *fp)
{
	(void)ctx;
	answered++;
	fprintf(fp, "answer %d\n", kind);
}

/* A socket bound at path: listening (a live daemon) or not (stale). */
static int
bind_at(const char *path, int listening)
{
	struct sockaddr_un sa;
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_true(s >= 0);
	assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	if (listening)
		assert_int_equal(listen(s, 4), 0);
	return s;
}

static void
write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static void
assert_file_says(const char *path, const char *text)
{
	char buf[128] = "";
	FILE *fp = fopen(path, "r");

	assert_non_null(fp);
	assert_non_null(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	assert_string_equal(buf, text);
}

static void
assert_refused(const char *path, const char *word)
{
	struct ttd_control c;
	char err[512] = "";

	if (ttd_control_open(&c, path, answer, NULL, err, sizeof(err)) == 0)
		fail_msg("%s: accepted, wanted \"%s\"", path, word);
	if (strstr(err, word) == NULL || strstr(err, path) == NULL)
		fail_msg("%s: said \"%s\", wanted \"%s\"", path, err, word);
	ttd_control_close(&c);
}

/*
 * --control PATH replaces only a stale socket: a regular file, a
 * directory, a link and a socket someone answers on are refused and left
 * as they were.  At close only the socket it bound is unlinked.
 */
static void
test_control_path(void **state)
{
	struct ttd_control c;
	char file[128], dir[128], link[128], live[128], stale[128], err[512];
	struct stat st;
	int s;

	(void)state;
	make_tmpdir();
	path_in_tmp(file, sizeof(file), "file");
	write_file(file, "precious\n");
	assert_refused(file, "a regular file is there");
	assert_file_says(file, "precious\n");
	path_in_tmp(dir, sizeof(dir), "dir");
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_refused(dir, "a directory is there");
	path_in_tmp(link, sizeof(link), "link");
	assert_int_equal(symlink(file, link), 0);
	assert_refused(link, "a symbolic link is there");
	assert_int_equal(lstat(link, &st), 0);
	assert_file_says(file, "precious\n");
	path_in_tmp(live, sizeof(live), "live.sock");
	s = bind_at(live, 1);
	assert_refused(live, "answers there");
	assert_int_equal(lstat(live, &st), 0);
	close(s);
	/* a stale socket (its process gone) is replaced, and unlinked at
	 * close */
	path_in_tmp(stale, sizeof(stale), "stale.sock");
	close(bind_at(stale, 0));
	assert_int_equal(ttd_control_open(&c, stale, answer, NULL, err,
	    sizeof(err)), 0);
	ttd_control_close(&c);
	assert_int_equal(lstat(stale, &st), -1);
	/* replaced while running: what is there at close is not ours */
	assert_int_equal(ttd_control_open(&c, stale, answer, NULL, err,
	    sizeof(err)), 0);
	assert_int_equal(unlink(stale), 0);
	write_file(stale, "someone else's\n");
	ttd_control_close(&c);
	assert_file_says(stale, "someone else's\n");
	unlink(stale);
	unlink(live);
	unlink(link);
	rmdir(dir);
	unlink(file);
	rmdir(tmpdir);
}

static int
connect_to(const char *path)
{
	struct sockaddr_un sa;
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_int_equal(connect(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return s;
}

/* 1 if the server closed s (EOF), 0 if it is still open. */
static int
closed_by_server(int s)
{
	char b;
	ssize_t n = recv(s, &b, 1, MSG_DONTWAIT);

	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

/* One round of the daemon's loop as far as the control socket goes. */
static void
serve_round(struct ttd_control *c, uint64_t now)
{
	struct pollfd pfd[1 + TTD_CONTROL_CLIENTS];

	ttd_control_pollfds(c, pfd, now);
	assert_true(poll(pfd, 1 + TTD_CONTROL_CLIENTS, 10) >= 0);
	ttd_control_serve(c, pfd, now);
}

/*
 * Silent clients cost nothing: each round returns at once, a client that
 * asks is answered while they hang on, more clients than slots wait in
 * the backlog for a grace, then take the slots of the oldest silent ones,
 * and the silent ones are closed at their deadline.
 */
static void
test_control_silent_clients(void **state)
{
	struct ttd_control c;
	char path[128], err[512], got[64] = "";
	int silent[TTD_CONTROL_CLIENTS + 2], asker, i, k;
	size_t n = 0;
	ssize_t r;

	(void)state;
	make_tmpdir();
	path_in_tmp(path, sizeof(path), "ttd.sock");
	assert_int_equal(ttd_control_open(&c, path, answer, NULL, err,
	    sizeof(err)), 0);
	for (i = 0; i < 5; i++)
		silent[i] = connect_to(path);
	asker = connect_to(path);
	assert_int_equal(write(asker, "status json\n", 12), 12);
	answered = 0;
	/* the loop's clock stands still: nobody's deadline passes */
	for (k = 0; k < 20 && !closed_by_server(asker); k++) {
		serve_round(&c, 1000);
		while ((r = recv(asker, got + n, sizeof(got) - 1 - n,
		    MSG_DONTWAIT)) > 0)
			n += (size_t)r;
	}
	assert_int_equal(answered, 1);
	assert_string_equal(got, "answer 2\n");
	for (i = 0; i < 5; i++)
		assert_false(closed_by_server(silent[i]));
	/* more than the slots, all at once: the rest wait a grace */
	for (i = 5; i < TTD_CONTROL_CLIENTS + 2; i++)
		silent[i] = connect_to(path);
	for (k = 0; k < 5; k++)
		serve_round(&c, 1000);
	assert_int_equal(ttd_control_next_deadline(&c, 1000), 1000 +
	    TTD_CONTROL_GRACE_MS);
	for (i = 0; i < TTD_CONTROL_CLIENTS; i++)
		assert_false(closed_by_server(silent[i]));
	/* after it, the two waiting take the slots of two of the oldest
	 * silent ones (the first five), with a deadline of their own */
	for (k = 0; k < 5; k++)
		serve_round(&c, 1000 + TTD_CONTROL_GRACE_MS);
	for (i = 0, n = 0; i < 5; i++)
		n += (size_t)closed_by_server(silent[i]);
	assert_int_equal(n, 2);
	for (i = 5; i < TTD_CONTROL_CLIENTS + 2; i++)
		assert_false(closed_by_server(silent[i]));
	/* the graces past wake no one (the listener is polled for them):
	 * the next wake is the end of the newcomers' grace, and once that
	 * is past too, the first clients' deadline */
	assert_int_equal(ttd_control_next_deadline(&c, 1000 +
	    TTD_CONTROL_GRACE_MS), 1000 + 2 * TTD_CONTROL_GRACE_MS);
	assert_int_equal(ttd_control_next_deadline(&c, 1000 +
	    2 * TTD_CONTROL_GRACE_MS), 1000 + TTD_CONTROL_DEADLINE_MS);
	serve_round(&c, 1000 + TTD_CONTROL_DEADLINE_MS);
	for (i = 0; i < TTD_CONTROL_CLIENTS; i++)
		assert_true(closed_by_server(silent[i]));
	serve_round(&c, 1000 + TTD_CONTROL_GRACE_MS + TTD_CONTROL_DEADLINE_MS);
	for (i = 0; i < TTD_CONTROL_CLIENTS + 2; i++) {
		assert_true(closed_by_server(silent[i]));
		close(silent[i]);
	}
	close(asker);
	ttd_control_close(&c);
	rmdir(tmpdir);
}

/* ---- the reload ---- */

#define RELOAD_TORUS "torus: {dims: [2, 2], ports: best}\n"
#define RELOAD_NODES "nodes:\n  - host: a\n    coord: [0, 0]\n" \
	"    cards:\n" \
	"      - { ports: { c0Xp: X+, c0Xm: X-, c0int: internal } }\n" \
	"      - { ports: { c1Yp: Y+, c1Ym: Y-, c1int: internal } }\n" \
	"  - host: b\n    coord: [1, 0]\n"

struct running {
	char path[128];
	tt_config cfg;
	tt_net net;
	struct ttd_node nd;
	struct ttd_reload r;
};

static void
running_start(struct running *x, const char *text)
{
	char err[256];

	path_in_tmp(x->path, sizeof(x->path), "ttd.yaml");
	write_file(x->path, text);
	assert_int_equal(tt_config_load(&x->cfg, x->path, stderr), 0);
	assert_int_equal(tt_net_init(&x->net, &x->cfg.spec, err, sizeof(err)),
	    0);
	assert_int_equal(ttd_node_map(&x->nd, &x->cfg, &x->net, 0, 0, NULL,
	    stderr), 0);
	assert_int_equal(ttd_reload_init(&x->r, x->path, "a", &x->cfg, &x->nd,
	    err, sizeof(err)), 0);
}

static void
running_stop(struct running *x)
{
	ttd_reload_free(&x->r);
	tt_net_free(&x->net);
	tt_config_free(&x->cfg);
	unlink(x->path);
}

/* SIGHUP with text in the file: the result, waited for on the eventfd. */
static int
reload_with(struct running *x, const char *text, struct ttd_settings *s,
    char *why, size_t whysz)
{
	struct pollfd p = {x->r.efd, POLLIN, 0};
	FILE *saved = stderr;
	char *msgs = NULL;
	size_t msgslen = 0;

	write_file(x->path, text);
	stderr = open_memstream(&msgs, &msgslen);  /* the loader's errors */
	ttd_reload_start(&x->r);
	assert_int_equal(poll(&p, 1, 10000), 1);
	fclose(stderr);
	stderr = saved;
	free(msgs);
	return ttd_reload_take(&x->r, s, why, whysz);
}

static void
test_reload_results(void **state)
{
	struct running x;
	struct ttd_settings s;
	char why[256];

	(void)state;
	make_tmpdir();
	running_start(&x, RELOAD_TORUS RELOAD_NODES);
	/* trace settings: taken */
	assert_int_equal(reload_with(&x, RELOAD_TORUS RELOAD_NODES
	    "trace: {rotate_mb: 7, keep: 3}\n", &s, why, sizeof(why)),
	    TTD_RELOAD_OK);
	assert_int_equal(s.trace_rotate_mb, 7);
	assert_int_equal(s.trace_keep, 3);
	/* another node's entry: nothing to do with this node's devices */
	assert_int_equal(reload_with(&x, RELOAD_TORUS RELOAD_NODES
	    "  - host: c\n    coord: [0, 1]\n", &s, why, sizeof(why)),
	    TTD_RELOAD_OK);
	/* what the devices were opened with: a restart */
	assert_int_equal(reload_with(&x, "torus: {dims: [2, 4], ports: best}\n"
	    RELOAD_NODES, &s, why, sizeof(why)), TTD_RELOAD_RESTART);
	assert_non_null(strstr(why, "torus:"));
	assert_int_equal(reload_with(&x, RELOAD_TORUS RELOAD_NODES
	    "pes: {tap: \"pe%u\"}\n", &s, why, sizeof(why)),
	    TTD_RELOAD_RESTART);
	assert_non_null(strstr(why, "pes:"));
	assert_int_equal(reload_with(&x, RELOAD_TORUS "nodes:\n  - host: a\n"
	    "    coord: [0, 0]\n    cards:\n"
	    "      - { ports: { c0Xp: X+, c0Xm: X-, c0int: internal } }\n"
	    "      - { ports: { eth9: Y+, c1Ym: Y-, c1int: internal } }\n",
	    &s, why, sizeof(why)), TTD_RELOAD_RESTART);
	assert_non_null(strstr(why, "entry of this node (a)"));
	assert_int_equal(reload_with(&x, RELOAD_TORUS "nodes:\n  - host: b\n"
	    "    coord: [1, 0]\n", &s, why, sizeof(why)), TTD_RELOAD_RESTART);
	assert_non_null(strstr(why, "no longer in nodes:"));
	/* a file that does not load: nothing changes */
	assert_int_equal(reload_with(&x, "torus: {dims: [2, 2]\n", &s, why,
	    sizeof(why)), TTD_RELOAD_BAD_FILE);
	assert_non_null(strstr(why, "error"));
	running_stop(&x);
	rmdir(tmpdir);
}

/*
 * The load runs beside the loop: while the file cannot be read (here a
 * FIFO nobody writes yet), starting the reload returns at once and the
 * loop finds no result; once the file comes, the result does.
 */
static void
test_reload_off_the_loop(void **state)
{
	static const char text[] = RELOAD_TORUS RELOAD_NODES
	    "trace: {rotate_mb: 9}\n";
	struct running x;
	struct ttd_settings s;
	struct pollfd p;
	char why[256];
	int fd;

	(void)state;
	/* a reload that blocks the caller would hang here: end it */
	alarm(60);
	make_tmpdir();
	running_start(&x, RELOAD_TORUS RELOAD_NODES);
	unlink(x.path);
	assert_int_equal(mkfifo(x.path, 0600), 0);
	ttd_reload_start(&x.r);
	ttd_reload_start(&x.r);		/* a second SIGHUP meanwhile */
	p = (struct pollfd){x.r.efd, POLLIN, 0};
	assert_int_equal(poll(&p, 1, 0), 0);
	assert_int_equal(ttd_reload_take(&x.r, &s, why, sizeof(why)), -1);
	/* the loader waits in open() for a writer: give it the file */
	fd = open(x.path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1),
	    (ssize_t)sizeof(text) - 1);
	close(fd);
	assert_int_equal(poll(&p, 1, 10000), 1);
	assert_int_equal(ttd_reload_take(&x.r, &s, why, sizeof(why)),
	    TTD_RELOAD_OK);
	assert_int_equal(s.trace_rotate_mb, 9);
	/* the SIGHUP that came meanwhile runs now: feed it too */
	assert_true(x.r.running);
	fd = open(x.path, O_WRONLY);
	assert_int_equal(write(fd, text, sizeof(text) - 1),
	    (ssize_t)sizeof(text) - 1);
	close(fd);
	assert_int_equal(poll(&p, 1, 10000), 1);
	assert_int_equal(ttd_reload_take(&x.r, &s, why, sizeof(why)),
	    TTD_RELOAD_OK);
	assert_false(x.r.running);
	/* stopping while a load waits for its file does not wait with it */
	ttd_reload_start(&x.r);
	assert_true(x.r.running);
	assert_int_equal(ttd_reload_free(&x.r), -1);
	/* (here the process would end; let the load end instead) */
	fd = open(x.path, O_WRONLY);
	assert_int_equal(write(fd, text, sizeof(text) - 1),
	    (ssize_t)sizeof(text) - 1);
	close(fd);
	assert_int_equal(poll(&p, 1, 10000), 1);
	alarm(0);
	running_stop(&x);
	rmdir(tmpdir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request_parse),
		cmocka_unit_test(test_request_bounds),
		cmocka_unit_test(test_control_path),
		cmocka_unit_test(test_control_silent_clients),
		cmocka_unit_test(test_reload_results),
		cmocka_unit_test(test_reload_off_the_loop),
	};

	ttd_log_level = TTD_LOG_ERR;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
