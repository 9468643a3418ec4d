/*
 * The control socket's request language: one line, words separated by
 * blanks.  Today two requests exist, "status" (or "status text") and
 * "status json".  The parser sees the bytes a client has sent so far and
 * says whether a whole request is there; it is kept apart from the socket
 * so that tests/fuzz/fuzz_control.c can feed it anything.
 *
 * A client's bytes are untrusted: the line is bounded (TTD_REQUEST_MAX),
 * a NUL inside it is refused, and the error that echoes an unknown request
 * shows every byte outside printable ASCII as \xNN, so that no control
 * character reaches the asker's terminal.
 */
#include <stdio.h>
#include <string.h>

#include "ttd.h"

#define REQUEST_WORDS	3	/* more than any request has */

static const char request_help[] = "status, status json";

/* line (len bytes) into err as "...", unprintable bytes escaped. */
static void
request_quote(const char *line, size_t len, char *out, size_t outsz)
{
	size_t o = 0, i;

	for (i = 0; i < len && o + 5 < outsz; i++) {
		unsigned char ch = (unsigned char)line[i];

		if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\')
			out[o++] = (char)ch;
		else
			o += (size_t)snprintf(out + o, outsz - o, "\\x%02x", ch);
	}
	if (i < len && o + 4 <= outsz)
		o += (size_t)snprintf(out + o, outsz - o, "...");
	out[o < outsz ? o : outsz - 1] = '\0';
}

static int
request_error(const char *line, size_t len, const char *what, char *err,
    size_t errsz)
{
	char q[TTD_REQUEST_MAX * 4 + 8];

	request_quote(line, len, q, sizeof(q));
	snprintf(err, errsz, "error: %s \"%s\" (requests: %s)", what, q,
	    request_help);
	return -1;
}

/* Split line into blank-separated words; how many, or -1 if too many. */
static int
request_words(const char *line, size_t len, const char *w[REQUEST_WORDS],
    size_t wl[REQUEST_WORDS])
{
	size_t i = 0, start;
	int n = 0;

	while (i < len) {
		if (line[i] == ' ' || line[i] == '\t') {
			i++;
			continue;
		}
		if (n == REQUEST_WORDS)
			return -1;
		start = i;
		while (i < len && line[i] != ' ' && line[i] != '\t')
			i++;
		w[n] = line + start;
		wl[n++] = i - start;
	}
	return n;
}

static int
request_word_is(const char *w, size_t wl, const char *s)
{
	return wl == strlen(s) && memcmp(w, s, wl) == 0;
}

int
ttd_request_parse(const char *buf, size_t len, int eof, int *kind,
    size_t *used, char *err, size_t errsz)
{
	const char *nl, *w[REQUEST_WORDS];
	size_t scan = len < TTD_REQUEST_MAX ? len : TTD_REQUEST_MAX, linelen;
	size_t wl[REQUEST_WORDS];
	int n;

	*kind = 0;
	*used = 0;
	nl = memchr(buf, '\n', scan);
	if (nl == NULL && len >= TTD_REQUEST_MAX) {
		char what[64];

		*used = scan;
		snprintf(what, sizeof(what), "request longer than %d bytes",
		    TTD_REQUEST_MAX - 1);
		return request_error(buf, scan, what, err, errsz);
	}
	if (nl == NULL && !eof)
		return 0;
	linelen = nl != NULL ? (size_t)(nl - buf) : len;
	*used = nl != NULL ? linelen + 1 : len;
	if (linelen > 0 && buf[linelen - 1] == '\r')
		linelen--;
	if (memchr(buf, '\0', linelen) != NULL)
		return request_error(buf, linelen, "NUL byte in request", err,
		    errsz);
	n = request_words(buf, linelen, w, wl);
	if (n == 1 && request_word_is(w[0], wl[0], "status"))
		*kind = TTD_REQ_STATUS_TEXT;
	else if (n == 2 && request_word_is(w[0], wl[0], "status") &&
	    request_word_is(w[1], wl[1], "text"))
		*kind = TTD_REQ_STATUS_TEXT;
	else if (n == 2 && request_word_is(w[0], wl[0], "status") &&
	    request_word_is(w[1], wl[1], "json"))
		*kind = TTD_REQ_STATUS_JSON;
	else
		return request_error(buf, linelen, n == 0 ? "empty request" :
		    "unknown request", err, errsz);
	return 1;
}
