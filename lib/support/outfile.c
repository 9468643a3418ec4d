/*
 * Outputs written whole: standard output, a file replaced atomically, or
 * a FIFO or device written through (twintorus/outfile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/errf.h"
#include "support/outfile_int.h"
#include "twintorus/outfile.h"

/* as the kernel's own limit on a chain of links (MAXSYMLINKS) */
#define OUT_MAX_LINKS 40

/* ---- the inputs of this process ---- */

/*
 * Files the process reads, by device and inode (so that a hard link, a
 * symbolic link or /dev/stdin redirected from the file are the same file),
 * with a name for messages.  An unsorted list: a command reads tens of
 * files, a trace directory a few thousand, and outputs are few.
 */
struct out_input {
	dev_t dev;
	ino_t ino;
	char *name;
};

static struct out_input *inputs;
static size_t ninputs, inputs_cap;
/* ttd loads its configuration in a thread of its own */
static pthread_mutex_t inputs_lock = PTHREAD_MUTEX_INITIALIZER;

static int
note_input(const struct stat *st, const char *name)
{
	struct out_input *g;
	size_t i;
	int r = 0;

	/* a pipe or a device is read, not replaced by anything */
	if (!S_ISREG(st->st_mode))
		return 0;
	pthread_mutex_lock(&inputs_lock);
	for (i = 0; i < ninputs; i++)
		if (inputs[i].dev == st->st_dev && inputs[i].ino == st->st_ino)
			goto out;
	if (ninputs == inputs_cap) {
		size_t cap = inputs_cap ? inputs_cap * 2 : 16;

		if ((g = realloc(inputs, cap * sizeof(*g))) == NULL) {
			r = -1;
			goto out;
		}
		inputs = g;
		inputs_cap = cap;
	}
	if ((inputs[ninputs].name = strdup(name)) == NULL) {
		r = -1;
		goto out;
	}
	inputs[ninputs].dev = st->st_dev;
	inputs[ninputs].ino = st->st_ino;
	ninputs++;
out:
	pthread_mutex_unlock(&inputs_lock);
	return r;
}

int
tt_outfile_input(const char *path)
{
	struct stat st;

	if (strcmp(path, "-") == 0)
		return tt_outfile_input_fd(STDIN_FILENO, "standard input");
	/* one that cannot be found is not read either: its reader says so */
	if (stat(path, &st) != 0)
		return 0;
	return note_input(&st, path);
}

int
tt_outfile_input_fd(int fd, const char *name)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return 0;
	return note_input(&st, name);
}

/* The input that path is (after links), or NULL.  Inputs are never
 * forgotten, so the name stays valid. */
static const char *
input_named(const char *path)
{
	const char *name = NULL;
	struct stat st;
	size_t i;

	if (stat(path, &st) != 0)
		return NULL;
	pthread_mutex_lock(&inputs_lock);
	for (i = 0; i < ninputs && name == NULL; i++)
		if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino)
			name = inputs[i].name;
	pthread_mutex_unlock(&inputs_lock);
	return name;
}

static int
refuse_input(char *err, size_t errsz, const char *out, const char *in)
{
	if (strcmp(out, in) == 0)
		return tt_errf(err, errsz, "%s: is also an input of this "
		    "command; write the output to another file", out);
	return tt_errf(err, errsz, "%s: is the same file as %s, an input of "
	    "this command; write the output to another file", out, in);
}

/* ---- files made safe on a signal ---- */

/*
 * The files being written that a signal must not leave as they are: the
 * .part files (removed), and the traces written in place (cut at their
 * last whole record, lib/formats/trace.c).  A signal that would end the process
 * (an interrupt, a terminal hung up, a reader gone, a file size limit)
 * first calls each one's function, then ends the process as the signal
 * would have.  The list changes with those signals blocked, so that the
 * handler never sees it half-changed; the functions and the handler call
 * only async-signal-safe functions.  A signal that is ignored, or that
 * the program handles itself (to stop a run and discard or close its
 * outputs), is left alone.
 */
static const int part_sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ};
#define NPART_SIGS (sizeof(part_sigs) / sizeof(part_sigs[0]))

struct out_atsig {
	const char *path;
	void (*fn)(const char *path);
};

static struct out_atsig *parts;
static volatile size_t nparts;
static size_t parts_cap;
/* the process that registered them: a forked child (a --jobs worker)
 * killed by a signal leaves its parent's files alone */
static volatile pid_t parts_pid;

static void
parts_on_signal(int sig)
{
	struct sigaction dfl;
	int saved = errno;
	size_t i;

	for (i = 0; i < nparts && getpid() == parts_pid; i++)
		parts[i].fn(parts[i].path);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	/* delivered again once the handler returns, to end the process */
	raise(sig);
	errno = saved;
}

static void
parts_block(sigset_t *old)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < NPART_SIGS; i++)
		sigaddset(&set, part_sigs[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void
parts_handlers(void)
{
	struct sigaction cur, sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = parts_on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NPART_SIGS; i++)
		sigaddset(&sa.sa_mask, part_sigs[i]);
	for (i = 0; i < NPART_SIGS; i++)
		if (sigaction(part_sigs[i], NULL, &cur) == 0 &&
		    cur.sa_handler == SIG_DFL)
			sigaction(part_sigs[i], &sa, NULL);
}

int
outfile_at_signal(const char *path, void (*fn)(const char *path))
{
	struct out_atsig *g;
	sigset_t old;
	int r = 0;

	parts_block(&old);
	if (nparts == parts_cap) {
		size_t cap = parts_cap ? parts_cap * 2 : 8;

		if ((g = realloc(parts, cap * sizeof(*g))) == NULL) {
			r = -1;
			errno = ENOMEM;
			goto out;
		}
		parts = g;
		parts_cap = cap;
	}
	parts[nparts].path = path;
	parts[nparts].fn = fn;
	nparts = nparts + 1;
	parts_pid = getpid();
	parts_handlers();
out:
	sigprocmask(SIG_SETMASK, &old, NULL);
	return r;
}

void
outfile_at_signal_forget(const char *path)
{
	sigset_t old;
	size_t i;

	parts_block(&old);
	for (i = 0; i < nparts; i++)
		if (parts[i].path == path) {
			parts[i] = parts[nparts - 1];
			nparts = nparts - 1;
			break;
		}
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static void
unlink_part(const char *path)
{
	unlink(path);
}

int
tt_outfile_temp(char *path, size_t pathsz, const char *what,
    const char *suffix)
{
	const char *dir = getenv("TMPDIR");
	int fd, n;

	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	n = snprintf(path, pathsz, "%s/ttsim-%s-XXXXXX%s", dir, what, suffix);
	if (n < 0 || (size_t)n >= pathsz) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = mkstemps(path, (int)strlen(suffix))) < 0)
		return -1;
	if (outfile_at_signal(path, unlink_part) < 0) {
		unlink(path);
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	return fd;
}

void
tt_outfile_temp_remove(const char *path)
{
	unlink(path);
	outfile_at_signal_forget(path);
}

struct tt_outfile {
	int fd;
	FILE *f;                /* the stream of tt_outfile_file(), or NULL */
	char *name;             /* as given, or "standard output" */
	char *target;           /* the file replaced at close, or NULL */
	char *tmp;              /* its temporary name, or NULL */
	int werr;               /* errno of the first failed write, or 0 */
	int is_stdout;
};

static ssize_t
out_write(void *cookie, const char *buf, size_t n)
{
	tt_outfile *o = cookie;
	size_t done = 0;
	ssize_t w;

	while (done < n) {
		w = write(o->fd, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (o->werr == 0)
				o->werr = w < 0 ? errno : EIO;
			errno = o->werr;
			/* stdio takes 0 as the error; what was written stays */
			return (ssize_t)done;
		}
		done += (size_t)w;
	}
	return (ssize_t)n;
}

/* The descriptor belongs to the tt_outfile, not to its streams. */
static int
out_release(void *cookie)
{
	(void)cookie;
	return 0;
}

FILE *
tt_outfile_stream(tt_outfile *o)
{
	cookie_io_functions_t io = {NULL, out_write, NULL, out_release};

	return fopencookie(o, "w", io);
}

FILE *
tt_outfile_file(tt_outfile *o)
{
	if (o->f == NULL)
		o->f = tt_outfile_stream(o);
	return o->f;
}

const char *
tt_outfile_path(const tt_outfile *o)
{
	if (o->tmp != NULL)
		return o->tmp;
	return o->is_stdout ? NULL : o->name;
}

const char *
tt_outfile_name(const tt_outfile *o)
{
	return o->name;
}

/* path with every symbolic link of its last component followed (a
 * relative link is relative to the link's directory); malloc'd, or NULL
 * with errno set. */
static char *
follow_links(const char *path)
{
	char link[PATH_MAX], *p = strdup(path), *next;
	struct stat st;
	ssize_t n;
	size_t dirlen;
	int hops;

	for (hops = 0; p != NULL; hops++) {
		if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode))
			return p;
		if (hops == OUT_MAX_LINKS) {
			free(p);
			errno = ELOOP;
			return NULL;
		}
		n = readlink(p, link, sizeof(link) - 1);
		if (n < 0) {
			free(p);
			return NULL;
		}
		link[n] = '\0';
		dirlen = strrchr(p, '/') != NULL && link[0] != '/' ?
		    (size_t)(strrchr(p, '/') - p) + 1 : 0;
		next = malloc(dirlen + (size_t)n + 1);
		if (next != NULL) {
			memcpy(next, p, dirlen);
			memcpy(next + dirlen, link, (size_t)n + 1);
		}
		free(p);
		p = next;
	}
	errno = ENOMEM;
	return NULL;
}

/* The file to replace: a temporary file beside it, with the mode the
 * result should have. */
static int
open_replacing(tt_outfile *o, const char *path, char *err, size_t errsz)
{
	static const char suffix[] = ".XXXXXX.part";
	struct stat st;
	mode_t mode, mask;
	size_t len;

	const char *in;

	o->target = follow_links(path);
	if (o->target == NULL)
		return tt_errf(err, errsz, "%s: cannot follow the link: %s",
		    path, strerror(errno));
	if ((in = input_named(o->target)) != NULL)
		return refuse_input(err, errsz, path, in);
	if (stat(o->target, &st) == 0) {
		mode = st.st_mode & 07777;
	} else {
		mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	len = strlen(o->target) + sizeof(suffix);
	if ((o->tmp = malloc(len)) == NULL)
		return tt_errf(err, errsz, "%s: out of memory", path);
	snprintf(o->tmp, len, "%s%s", o->target, suffix);
	o->fd = mkostemps(o->tmp, 5, O_CLOEXEC);
	if (o->fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
		return tt_errf(err, errsz, "%s: cannot create: %s", path,
		    strerror(errno));
	}
	if (outfile_at_signal(o->tmp, unlink_part) < 0 ||
	    fchmod(o->fd, mode) != 0) {
		if (errno == ENOMEM)
			tt_errf(err, errsz, "%s: out of memory", path);
		else
			tt_errf(err, errsz, "%s: cannot set the mode of %s: %s",
			    path, o->tmp, strerror(errno));
		outfile_at_signal_forget(o->tmp);
		close(o->fd);
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	return 0;
}

int
tt_outfile_open(tt_outfile **op, const char *path, char *err, size_t errsz)
{
	tt_outfile *o;
	struct stat st;
	int r = 0;

	*op = NULL;
	o = calloc(1, sizeof(*o));
	if (o == NULL)
		return tt_errf(err, errsz, "%s: out of memory", path);
	o->fd = -1;
	o->name = strdup(strcmp(path, "-") == 0 ? "standard output" : path);
	if (o->name == NULL) {
		free(o);
		return tt_errf(err, errsz, "%s: out of memory", path);
	}
	if (strcmp(path, "-") == 0) {
		o->is_stdout = 1;
		o->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (o->fd < 0)
			r = tt_errf(err, errsz, "standard output: cannot write "
			    "to it: %s", strerror(errno));
	} else if (stat(path, &st) != 0) {
		/* nothing there yet (or a link to nothing): create it */
		if (errno == ENOENT)
			r = open_replacing(o, path, err, errsz);
		else
			r = tt_errf(err, errsz, "%s: cannot open: %s", path,
			    strerror(errno));
	} else if (S_ISREG(st.st_mode)) {
		r = open_replacing(o, path, err, errsz);
	} else if (S_ISDIR(st.st_mode)) {
		r = tt_errf(err, errsz, "%s: is a directory; give a file "
		    "name", path);
	} else if (S_ISSOCK(st.st_mode)) {
		r = tt_errf(err, errsz, "%s: is a socket, not a file; give a "
		    "file name", path);
	} else if (S_ISBLK(st.st_mode)) {
		r = tt_errf(err, errsz, "%s: is a block device; refusing to "
		    "write over a disk (give a file name)", path);
	} else {
		/* a FIFO or a character device: nothing to replace */
		o->fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (o->fd < 0)
			r = tt_errf(err, errsz, "%s: cannot open: %s", path,
			    strerror(errno));
	}
	if (r != 0) {
		free(o->target);
		free(o->name);
		free(o);
		return -1;
	}
	*op = o;
	return 0;
}

static void
out_free(tt_outfile *o)
{
	if (o->tmp != NULL)
		outfile_at_signal_forget(o->tmp);
	free(o->tmp);
	free(o->target);
	free(o->name);
	free(o);
}

int
tt_outfile_close(tt_outfile *o, char *err, size_t errsz)
{
	const char *in;
	int r = 0;

	if (o->f != NULL && fclose(o->f) != 0 && o->werr == 0)
		o->werr = errno != 0 ? errno : EIO;
	/* durable before it replaces anything */
	if (o->werr == 0 && o->tmp != NULL && fsync(o->fd) != 0)
		o->werr = errno;
	if (close(o->fd) != 0 && o->werr == 0)
		o->werr = errno;
	if (o->werr != 0)
		r = tt_errf(err, errsz, "%s: write failed: %s", o->name,
		    strerror(o->werr));
	/* an input read since the output was opened stays as it is */
	else if (o->tmp != NULL && (in = input_named(o->target)) != NULL)
		r = refuse_input(err, errsz, o->name, in);
	else if (o->tmp != NULL && rename(o->tmp, o->target) != 0)
		r = tt_errf(err, errsz, "%s: cannot replace it with %s: %s",
		    o->name, o->tmp, strerror(errno));
	if (r != 0 && o->tmp != NULL)
		unlink(o->tmp);
	out_free(o);
	return r;
}

void
tt_outfile_discard(tt_outfile *o)
{
	if (o == NULL)
		return;
	if (o->f != NULL)
		fclose(o->f);
	close(o->fd);
	if (o->tmp != NULL)
		unlink(o->tmp);
	out_free(o);
}

int
tt_stdout_done(const char *prog)
{
	int err;

	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	err = errno;
	if (err != 0)
		fprintf(stderr, "%s: cannot write standard output: %s\n", prog,
		    strerror(err));
	else
		fprintf(stderr, "%s: cannot write standard output\n", prog);
	return -1;
}
