/*
 * Outputs written whole (twintorus/outfile.h) against what the header
 * promises:
 *   - a new file appears only at close, complete, with 0666 less the umask;
 *     a file replaced keeps its mode; discard leaves the old file as it
 *     was; no temporary file is left either way;
 *   - a symbolic link (relative, a chain, or naming nothing yet) stays a
 *     link and the file it names is written;
 *   - a FIFO is written through and stays a FIFO;
 *   - a socket and a directory are refused, saying which;
 *   - a write that fails is reported with its reason at close, and the old
 *     file stays;
 *   - "-" writes standard output and leaves it open;
 *   - a second stream (as libpcap gets) can be closed on its own;
 *   - an input of the process is never replaced: by its name, a hard link
 *     or a symbolic link to it, at open, or at close when it was read
 *     after the output was opened, the message naming both;
 *   - SIGINT or SIGTERM removes the temporary files and then ends the
 *     process as the signal would; a handler of the program's own, or a
 *     signal ignored, is left as it is.
 * Everything happens in a fresh directory under /tmp (the FIFO and the
 * socket too), removed at the end; children do what changes process state
 * (resource limits, standard output).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "twintorus/outfile.h"

static char tmpdir[64];

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
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/tt-outfile-XXXXXX");
	return mkdtemp(tmpdir) != NULL ? 0 : -1;
}

static int
teardown_dir(void **state)
{
	(void)state;
	return nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *
tpath(const char *name)
{
	static char buf[4][256];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", tmpdir, name);
	return p;
}

static void
write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The file's content (at most 255 bytes), or "" when it cannot be read. */
static const char *
content(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f != NULL) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/* Names in dir ending in ".part". */
static int
count_parts(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t len;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (len > 5 && strcmp(de->d_name + len - 5, ".part") == 0)
			n++;
	}
	closedir(d);
	return n;
}

static tt_outfile *
out_open(const char *path)
{
	tt_outfile *o;
	char err[512] = "";

	if (tt_outfile_open(&o, path, err, sizeof(err)) != 0)
		fail_msg("tt_outfile_open(%s): %s", path, err);
	return o;
}

static void
out_close(tt_outfile *o)
{
	char err[512] = "";

	if (tt_outfile_close(o, err, sizeof(err)) != 0)
		fail_msg("tt_outfile_close: %s", err);
}

static void
test_new_file_at_close(void **state)
{
	const char *path = tpath("new.csv");
	mode_t old = umask(027);
	tt_outfile *o;
	struct stat st;

	(void)state;
	o = out_open(path);
	assert_int_equal(fputs("a,b\n", tt_outfile_file(o)) >= 0, 1);
	assert_int_equal(fflush(tt_outfile_file(o)), 0);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(count_parts(tmpdir), 1);
	out_close(o);
	umask(old);
	assert_string_equal(content(path), "a,b\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	assert_int_equal(count_parts(tmpdir), 0);
}

static void
test_replace_keeps_mode_discard_keeps_file(void **state)
{
	const char *path = tpath("old.csv");
	tt_outfile *o;
	struct stat st;

	(void)state;
	write_text(path, "old\n");
	assert_int_equal(chmod(path, 0604), 0);
	o = out_open(path);
	fputs("new\n", tt_outfile_file(o));
	out_close(o);
	assert_string_equal(content(path), "new\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0604);

	o = out_open(path);
	fputs("half of something\n", tt_outfile_file(o));
	tt_outfile_discard(o);
	assert_string_equal(content(path), "new\n");
	assert_int_equal(count_parts(tmpdir), 0);
}

static void
test_symlinks_stay(void **state)
{
	struct stat st;
	tt_outfile *o;
	char dir[256], sub[256];

	(void)state;
	snprintf(dir, sizeof(dir), "%s", tpath("data"));
	snprintf(sub, sizeof(sub), "%s", tpath("links"));
	assert_int_equal(mkdir(dir, 0777), 0);
	assert_int_equal(mkdir(sub, 0777), 0);
	write_text(tpath("data/target"), "old\n");
	assert_int_equal(symlink("../data/target", tpath("links/one")), 0);
	assert_int_equal(symlink("one", tpath("links/two")), 0);
	o = out_open(tpath("links/two"));
	fputs("through two links\n", tt_outfile_file(o));
	out_close(o);
	assert_int_equal(lstat(tpath("links/two"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(lstat(tpath("links/one"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_string_equal(content(tpath("data/target")), "through two links\n");
	assert_int_equal(count_parts(dir), 0);
	assert_int_equal(count_parts(sub), 0);

	/* a link to nothing yet: the file it names is created */
	assert_int_equal(symlink("../data/fresh", tpath("links/dangling")), 0);
	o = out_open(tpath("links/dangling"));
	fputs("created\n", tt_outfile_file(o));
	out_close(o);
	assert_int_equal(lstat(tpath("links/dangling"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_string_equal(content(tpath("data/fresh")), "created\n");

	/* a loop of links: refused, not followed forever */
	assert_int_equal(symlink("loop-b", tpath("links/loop-a")), 0);
	assert_int_equal(symlink("loop-a", tpath("links/loop-b")), 0);
	{
		char err[512] = "";

		assert_int_equal(tt_outfile_open(&o, tpath("links/loop-a"), err,
		    sizeof(err)), -1);
		assert_non_null(strstr(err, "loop-a"));
	}
}

/* A FIFO is written through: a child reads it into a file. */
static void
test_fifo_written_through(void **state)
{
	const char *fifo = tpath("fifo");
	char copy[256];
	struct stat st;
	tt_outfile *o;
	pid_t pid;
	int status;

	(void)state;
	snprintf(copy, sizeof(copy), "%s", tpath("fifo-copy"));
	assert_int_equal(mkfifo(fifo, 0600), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		FILE *in = fopen(fifo, "r"), *out = fopen(copy, "w");
		int c;

		if (in == NULL || out == NULL)
			_exit(1);
		while ((c = getc(in)) != EOF)
			putc(c, out);
		_exit(fclose(out) == 0 ? 0 : 1);
	}
	o = out_open(fifo);
	assert_null(tt_outfile_path(o) == NULL ? NULL : strstr(
	    tt_outfile_path(o), ".part"));
	fputs("through the pipe\n", tt_outfile_file(o));
	out_close(o);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_string_equal(content(copy), "through the pipe\n");
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
}

static void
test_socket_and_directory_refused(void **state)
{
	struct sockaddr_un sa;
	tt_outfile *o;
	char err[512] = "";
	int s;

	(void)state;
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(s >= 0);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", tpath("sock"));
	assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(tt_outfile_open(&o, tpath("sock"), err, sizeof(err)),
	    -1);
	assert_null(o);
	assert_non_null(strstr(err, "sock: is a socket, not a file"));
	close(s);

	assert_int_equal(mkdir(tpath("dir"), 0777), 0);
	assert_int_equal(tt_outfile_open(&o, tpath("dir"), err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "dir: is a directory"));
}

/* In a child: writing 64 KiB under a 4 KiB file size limit fails with
 * EFBIG, which close must name; the old file stays. */
static void
test_write_error_says_why(void **state)
{
	const char *path = tpath("limited");
	char errf[256];
	pid_t pid;
	int status;

	(void)state;
	snprintf(errf, sizeof(errf), "%s", tpath("limited.err"));
	write_text(path, "old\n");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = {4096, RLIM_INFINITY};
		char err[512] = "", block[1024];
		tt_outfile *o;
		FILE *f;
		int i, r;

		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) != 0 ||
		    tt_outfile_open(&o, path, err, sizeof(err)) != 0)
			_exit(2);
		memset(block, 'x', sizeof(block));
		for (i = 0; i < 64; i++)
			fwrite(block, 1, sizeof(block), tt_outfile_file(o));
		/* later calls may set errno to anything, or to nothing */
		errno = 0;
		r = tt_outfile_close(o, err, sizeof(err));
		f = fopen(errf, "w");
		if (f == NULL)
			_exit(2);
		fputs(err, f);
		fclose(f);
		_exit(r == -1 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_non_null(strstr(content(errf), "limited: write failed: File too "
	    "large"));
	assert_string_equal(content(path), "old\n");
	assert_int_equal(count_parts(tmpdir), 0);
}

/* "-": standard output, still open after close.  In a child whose
 * standard output is a file. */
static void
test_dash_is_stdout(void **state)
{
	char path[256];
	pid_t pid;
	int status;

	(void)state;
	snprintf(path, sizeof(path), "%s", tpath("stdout"));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		char err[512];
		tt_outfile *o;

		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 ||
		    tt_outfile_open(&o, "-", err, sizeof(err)) != 0 ||
		    tt_outfile_path(o) != NULL ||
		    strcmp(tt_outfile_name(o), "standard output") != 0)
			_exit(2);
		fputs("first\n", tt_outfile_file(o));
		if (tt_outfile_close(o, err, sizeof(err)) != 0)
			_exit(3);
		/* standard output is still there */
		if (write(STDOUT_FILENO, "after\n", 6) != 6)
			_exit(4);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_string_equal(content(path), "first\nafter\n");
}

/* A second stream, closed by its user (as libpcap closes its own). */
static void
test_second_stream(void **state)
{
	const char *path = tpath("two-streams");
	tt_outfile *o;
	FILE *f;

	(void)state;
	o = out_open(path);
	f = tt_outfile_stream(o);
	assert_non_null(f);
	fputs("from the stream\n", f);
	assert_int_equal(fclose(f), 0);
	fputs("from the file\n", tt_outfile_file(o));
	out_close(o);
	assert_string_equal(content(path), "from the stream\nfrom the file\n");
}

/* Opening path as an output fails, and the message has want (and also,
 * if not NULL). */
static void
refused(const char *path, const char *want, const char *also)
{
	char err[512] = "";
	tt_outfile *o = NULL;

	if (tt_outfile_open(&o, path, err, sizeof(err)) == 0) {
		tt_outfile_discard(o);
		fail_msg("%s: opened as an output, though it is an input", path);
	}
	if (strstr(err, want) == NULL || (also != NULL &&
	    strstr(err, also) == NULL))
		fail_msg("%s: \"%s\" does not say \"%s\" and \"%s\"", path,
		    err, want, also != NULL ? also : "");
}

static void
test_input_not_replaced(void **state)
{
	char in[256], hard[256], sym[256];
	tt_outfile *o;

	(void)state;
	snprintf(in, sizeof(in), "%s", tpath("in-trace"));
	snprintf(hard, sizeof(hard), "%s", tpath("in-hard"));
	snprintf(sym, sizeof(sym), "%s", tpath("in-sym"));
	write_text(in, "input\n");
	assert_int_equal(link(in, hard), 0);
	assert_int_equal(symlink("in-trace", sym), 0);
	assert_int_equal(tt_outfile_input(in), 0);
	refused(in, "in-trace: is also an input of this command", NULL);
	/* the same file under other names: both named */
	refused(hard, "in-hard: is the same file as ", "in-trace, an input");
	refused(sym, "in-sym: is the same file as ", "in-trace, an input");
	assert_string_equal(content(in), "input\n");
	assert_int_equal(count_parts(tmpdir), 0);
	/* another file is written as ever */
	o = out_open(tpath("in-other"));
	fputs("out\n", tt_outfile_file(o));
	out_close(o);
	assert_string_equal(content(tpath("in-other")), "out\n");
}

/* An input read after its output was opened: close refuses to rename. */
static void
test_input_read_after_open(void **state)
{
	const char *path = tpath("late-input");
	char err[512] = "";
	tt_outfile *o;

	(void)state;
	write_text(path, "old\n");
	o = out_open(path);
	fputs("new\n", tt_outfile_file(o));
	assert_int_equal(tt_outfile_input(path), 0);
	assert_int_equal(tt_outfile_close(o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "late-input: is also an input"));
	assert_string_equal(content(path), "old\n");
	assert_int_equal(count_parts(tmpdir), 0);
}

/* In a child: an output open when sig comes; the child ends by sig, the
 * temporary file is gone, the old file as it was. */
static void
signal_ends_writing(int sig, const char *name)
{
	const char *path = tpath(name);
	pid_t pid;
	int status;

	write_text(path, "old\n");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char err[512];
		tt_outfile *o;

		signal(sig, SIG_DFL);
		if (tt_outfile_open(&o, path, err, sizeof(err)) != 0)
			_exit(2);
		fputs("half of it\n", tt_outfile_file(o));
		if (fflush(tt_outfile_file(o)) != 0 || count_parts(tmpdir) != 1)
			_exit(3);
		kill(getpid(), sig);
		_exit(4);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFSIGNALED(status))
		fail_msg("signal %d: the child exited %d instead", sig,
		    WEXITSTATUS(status));
	assert_int_equal(WTERMSIG(status), sig);
	assert_string_equal(content(path), "old\n");
	assert_int_equal(count_parts(tmpdir), 0);
}

static void
test_signal_removes_part(void **state)
{
	(void)state;
	signal_ends_writing(SIGINT, "sigint.csv");
	signal_ends_writing(SIGTERM, "sigterm.csv");
}

static void
own_handler(int sig)
{
	(void)sig;
}

/* A program's own handler and an ignored signal stay; the default action
 * of another signal is replaced. */
static void
test_signal_handlers_kept(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sigaction cur;
		char err[512];
		tt_outfile *o;

		signal(SIGINT, own_handler);
		signal(SIGHUP, SIG_IGN);
		signal(SIGTERM, SIG_DFL);
		if (tt_outfile_open(&o, tpath("handlers"), err, sizeof(err)) != 0)
			_exit(2);
		if (sigaction(SIGINT, NULL, &cur) != 0 ||
		    cur.sa_handler != own_handler)
			_exit(3);
		if (sigaction(SIGHUP, NULL, &cur) != 0 ||
		    cur.sa_handler != SIG_IGN)
			_exit(4);
		if (sigaction(SIGTERM, NULL, &cur) != 0 ||
		    cur.sa_handler == SIG_DFL || cur.sa_handler == SIG_IGN)
			_exit(5);
		tt_outfile_discard(o);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(count_parts(tmpdir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_file_at_close),
		cmocka_unit_test(test_replace_keeps_mode_discard_keeps_file),
		cmocka_unit_test(test_symlinks_stay),
		cmocka_unit_test(test_fifo_written_through),
		cmocka_unit_test(test_socket_and_directory_refused),
		cmocka_unit_test(test_write_error_says_why),
		cmocka_unit_test(test_dash_is_stdout),
		cmocka_unit_test(test_second_stream),
		cmocka_unit_test(test_input_not_replaced),
		cmocka_unit_test(test_input_read_after_open),
		cmocka_unit_test(test_signal_removes_part),
		cmocka_unit_test(test_signal_handlers_kept),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
