/*
 * The control socket: `ttd status` connects, sends one request line and
 * reads the answer.  It is served inside the forwarding loop, so nothing
 * here may wait: the socket and every client are non-blocking, a client
 * is read and written as poll() says it can be, and one that has not sent
 * its request and read its answer within TTD_CONTROL_DEADLINE_MS is
 * closed.  Up to TTD_CONTROL_CLIENTS are served at once.  While all slots
 * are taken, a client waiting in the kernel's backlog takes the slot of
 * the oldest one held for longer than TTD_CONTROL_GRACE_MS, silent ones
 * (nothing sent yet) first: idle or slow clients, however many, delay
 * `ttd status` by a grace or a few, not by their deadlines one batch
 * after the other.  While no slot may be taken the listener is left out
 * of the poll set.
 *
 * The socket file: ttd replaces only a stale socket (one nobody answers
 * on, left by a ttd that died); a file, a directory, a link, a device or
 * a socket another process answers on is refused, never unlinked.  At
 * exit ttd unlinks the file only if it is still the socket it bound.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "ttd.h"

static const char *
control_kind(mode_t m)
{
	return S_ISREG(m) ? "a regular file" : S_ISDIR(m) ? "a directory" :
	    S_ISLNK(m) ? "a symbolic link" : S_ISCHR(m) ? "a character device" :
	    S_ISBLK(m) ? "a block device" : S_ISFIFO(m) ? "a FIFO" :
	    "something other than a socket";
}

/* Whether a process accepts connections on the socket at sa. */
static int
control_answers(const struct sockaddr_un *sa)
{
	int s, r;

	s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0)
		return 0;
	r = connect(s, (const struct sockaddr *)sa, sizeof(*sa));
	/* EAGAIN: a listener whose backlog is full is still alive */
	r = r == 0 || errno == EAGAIN || errno == EINPROGRESS;
	close(s);
	return r;
}

/* What is at path may be replaced: nothing, or a stale socket (then
 * unlinked).  0, or -1 with err saying what is there. */
static int
control_clear(const char *path, const struct sockaddr_un *sa, char *err,
    size_t errsz)
{
	struct stat st, again;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errsz, "control socket %s: %s (give --control)",
		    path, strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errsz, "control socket %s: %s is there; ttd "
		    "replaces only a stale socket (remove it, or give "
		    "--control another path)", path, control_kind(st.st_mode));
		return -1;
	}
	if (control_answers(sa)) {
		snprintf(err, errsz, "control socket %s: another process (a "
		    "running ttd?) answers there; stop it, or give --control "
		    "another path", path);
		return -1;
	}
	/* stale: unlink it, if it is still that socket */
	if (lstat(path, &again) == 0 && again.st_ino == st.st_ino &&
	    again.st_dev == st.st_dev && unlink(path) < 0 && errno != ENOENT) {
		snprintf(err, errsz, "control socket %s: cannot remove the "
		    "stale socket: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int
ttd_control_open(struct ttd_control *c, const char *path,
    ttd_answer_fn *answer, void *ctx, char *err, size_t errsz)
{
	struct sockaddr_un sa;
	struct stat st;
	int i;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	for (i = 0; i < TTD_CONTROL_CLIENTS; i++)
		c->client[i].fd = -1;
	c->answer = answer;
	c->ctx = ctx;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errsz, "control socket path %s is too long (at "
		    "most %zu bytes)", path, sizeof(sa.sun_path) - 1);
		return -1;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (control_clear(path, &sa, err, errsz) < 0)
		return -1;
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		snprintf(err, errsz, "socket: %s", strerror(errno));
		return -1;
	}
	if (bind(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(c->fd, TTD_CONTROL_BACKLOG) < 0 || lstat(path, &st) < 0) {
		snprintf(err, errsz, "control socket %s: %s (give --control)",
		    path, strerror(errno));
		close(c->fd);
		c->fd = -1;
		return -1;
	}
	snprintf(c->path, sizeof(c->path), "%s", path);
	c->dev = st.st_dev;
	c->ino = st.st_ino;
	return 0;
}

static void
client_close(struct ttd_client *cl)
{
	if (cl->fd >= 0)
		close(cl->fd);
	free(cl->out);
	memset(cl, 0, sizeof(*cl));
	cl->fd = -1;
}

/*
 * The slot a new client takes: a free one, else the oldest client held
 * past its grace, one that has sent nothing first; -1 none (all are
 * younger: a burst of clients waits a grace in the backlog).
 */
static int
control_slot(const struct ttd_control *c, uint64_t now_ms)
{
	int i, pick = -1, pick_silent = 0;

	for (i = 0; i < TTD_CONTROL_CLIENTS; i++) {
		const struct ttd_client *cl = &c->client[i];
		int silent;

		if (cl->fd < 0)
			return i;
		if (now_ms < cl->accepted_ms + TTD_CONTROL_GRACE_MS)
			continue;
		silent = cl->inlen == 0 && cl->out == NULL;
		if (pick < 0 || silent > pick_silent || (silent ==
		    pick_silent && cl->accepted_ms <
		    c->client[pick].accepted_ms)) {
			pick = i;
			pick_silent = silent;
		}
	}
	return pick;
}

int
ttd_control_pollfds(const struct ttd_control *c, struct pollfd *pfd,
    uint64_t now_ms)
{
	int i;

	for (i = 0; i < TTD_CONTROL_CLIENTS; i++) {
		const struct ttd_client *cl = &c->client[i];

		pfd[1 + i].fd = cl->fd;
		pfd[1 + i].events = cl->out != NULL ? POLLOUT : POLLIN;
		pfd[1 + i].revents = 0;
	}
	/* no slot to take now: new clients wait in the backlog, until a
	 * grace ends (ttd_control_next_deadline) */
	pfd[0].fd = control_slot(c, now_ms) >= 0 ? c->fd : -1;
	pfd[0].events = POLLIN;
	pfd[0].revents = 0;
	return 1 + TTD_CONTROL_CLIENTS;
}

uint64_t
ttd_control_next_deadline(const struct ttd_control *c, uint64_t now_ms)
{
	uint64_t t = UINT64_MAX, grace = UINT64_MAX;
	int i, busy = 0;

	for (i = 0; i < TTD_CONTROL_CLIENTS; i++) {
		const struct ttd_client *cl = &c->client[i];

		if (cl->fd < 0)
			continue;
		busy++;
		if (cl->deadline_ms < t)
			t = cl->deadline_ms;
		/* graces past: the listener is polled already */
		if (cl->accepted_ms + TTD_CONTROL_GRACE_MS > now_ms &&
		    cl->accepted_ms + TTD_CONTROL_GRACE_MS < grace)
			grace = cl->accepted_ms + TTD_CONTROL_GRACE_MS;
	}
	/* every slot taken and none to be had: look at the backlog again
	 * when one may be */
	if (busy == TTD_CONTROL_CLIENTS && grace < t)
		t = grace;
	return t;
}

/* The answer to a whole request (or its error), ready to be sent. */
static void
client_answer(struct ttd_control *c, struct ttd_client *cl, int r,
    int kind, const char *err)
{
	FILE *fp;

	fp = open_memstream(&cl->out, &cl->outlen);
	if (fp == NULL) {
		client_close(cl);
		return;
	}
	if (r > 0)
		c->answer(c->ctx, kind, fp);
	else
		fprintf(fp, "%s\n", err);
	if (fclose(fp) != 0) {
		client_close(cl);
		return;
	}
	cl->outoff = 0;
}

/* Read what the client has sent; answer once a request is whole. */
static void
client_read(struct ttd_control *c, struct ttd_client *cl)
{
	char err[TTD_REQUEST_MAX * 4 + 128];
	size_t used;
	ssize_t n;
	int r, kind, eof = 0;

	n = read(cl->fd, cl->in + cl->inlen, sizeof(cl->in) - cl->inlen);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0)
		eof = 1;
	else
		cl->inlen += (size_t)n;
	if (eof && cl->inlen == 0) {
		client_close(cl);	/* connected and left: nothing to say */
		return;
	}
	r = ttd_request_parse(cl->in, cl->inlen, eof, &kind, &used, err,
	    sizeof(err));
	if (r == 0)
		return;
	client_answer(c, cl, r, kind, err);
}

/* Send what the socket takes of the answer; close when all is sent. */
static void
client_write(struct ttd_client *cl)
{
	ssize_t n;

	n = send(cl->fd, cl->out + cl->outoff, cl->outlen - cl->outoff,
	    MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n < 0) {
		client_close(cl);
		return;
	}
	cl->outoff += (size_t)n;
	if (cl->outoff == cl->outlen)
		client_close(cl);
}

/* Take in the clients waiting, while a slot may be had: at most one per
 * slot a call, since a client just taken in has its grace. */
static void
control_accept(struct ttd_control *c, uint64_t now_ms)
{
	int i, fd;

	while ((i = control_slot(c, now_ms)) >= 0) {
		fd = accept4(c->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		if (c->client[i].fd >= 0) {
			ttd_log(TTD_LOG_DEBUG, "control", "every slot taken: "
			    "a client held %llu ms closed for one waiting",
			    (unsigned long long)(now_ms -
			    c->client[i].accepted_ms));
			client_close(&c->client[i]);
		}
		c->client[i].fd = fd;
		c->client[i].accepted_ms = now_ms;
		c->client[i].deadline_ms = now_ms + TTD_CONTROL_DEADLINE_MS;
	}
}

void
ttd_control_serve(struct ttd_control *c, const struct pollfd *pfd,
    uint64_t now_ms)
{
	int i;

	for (i = 0; i < TTD_CONTROL_CLIENTS; i++) {
		struct ttd_client *cl = &c->client[i];
		short ev = pfd[1 + i].revents;

		if (cl->fd < 0 || pfd[1 + i].fd != cl->fd)
			continue;	/* accepted after the poll */
		if (cl->out == NULL && (ev & (POLLIN | POLLHUP | POLLERR)))
			client_read(c, cl);
		else if (cl->out != NULL && (ev & (POLLOUT | POLLHUP |
		    POLLERR)))
			client_write(cl);
		if (cl->fd >= 0 && now_ms >= cl->deadline_ms) {
			ttd_log(TTD_LOG_DEBUG, "control", "a client past its "
			    "%d ms: closed", TTD_CONTROL_DEADLINE_MS);
			client_close(cl);
		}
	}
	if (pfd[0].fd >= 0 && (pfd[0].revents & POLLIN))
		control_accept(c, now_ms);
}

void
ttd_control_close(struct ttd_control *c)
{
	struct stat st;
	int i;

	if (c->answer == NULL)
		return;		/* never opened */
	for (i = 0; i < TTD_CONTROL_CLIENTS; i++)
		client_close(&c->client[i]);
	if (c->fd < 0)
		return;
	close(c->fd);
	c->fd = -1;
	if (lstat(c->path, &st) == 0 && S_ISSOCK(st.st_mode) &&
	    st.st_dev == c->dev && st.st_ino == c->ino)
		unlink(c->path);
}
