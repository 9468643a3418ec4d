/*
 * libFuzzer target: the control socket's request parser (daemon/request.c),
 * as ttd meets what a client sends.  Beyond memory safety:
 *   - a result is one of "more", a request of a known kind, or an error
 *     whose text is one printable-ASCII line that fits its buffer;
 *   - a request taken bytes at a time (a slow client) gives the same
 *     result, at the first prefix that gives one, as the bytes at once;
 *   - at the end of the input there is always a result.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../daemon/ttd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct result {
	int r, kind;
	size_t used;
	char err[160];
};

static void
parse(const uint8_t *data, size_t len, int eof, struct result *res)
{
	size_t i;

	memset(res, 0x55, sizeof(*res));
	res->r = ttd_request_parse((const char *)data, len, eof, &res->kind,
	    &res->used, res->err, sizeof(res->err));
	if (res->r == 0 && res->used == 0)
		return;
	if (res->r == 1 && (res->kind == TTD_REQ_STATUS_TEXT ||
	    res->kind == TTD_REQ_STATUS_JSON) && res->used >= 1 &&
	    res->used <= len)
		return;
	if (res->r != -1 || res->used > len ||
	    memchr(res->err, '\0', sizeof(res->err)) == NULL)
		abort();
	for (i = 0; res->err[i] != '\0'; i++)
		if ((unsigned char)res->err[i] < 0x20 ||
		    (unsigned char)res->err[i] > 0x7e)
			abort();	/* a byte the asker's terminal would run */
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct result all, part, end;
	size_t k;

	parse(data, size, 0, &all);
	for (k = 0; k <= size; k++) {
		parse(data, k, 0, &part);
		if (part.r != 0)
			break;
	}
	if (all.r == 0 && k <= size)
		abort();	/* a prefix decided what the whole did not */
	if (all.r != 0 && (part.r != all.r || part.used != all.used ||
	    (all.r > 0 && part.kind != all.kind)))
		abort();
	parse(data, size, 1, &end);
	if (end.r == 0 && size > 0)
		abort();
	return 0;
}
