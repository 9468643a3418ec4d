/*
 * libFuzzer target: the torus frame parser (lib/frame.c), as ttd meets it
 * on the wire.  Any input must decode without a memory error; a frame that
 * decodes must encode back to the same bytes (headers and payload), and a
 * hello's body must decode without one either.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "twintorus/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t again[70000];
	char err[160];
	tt_frame f;
	tt_hello h;
	size_t len;

	if (tt_frame_decode(&f, data, size, err, sizeof(err)) != 0)
		return 0;
	if (f.type == TT_FRAME_HELLO)
		(void)tt_hello_decode(&h, f.payload, f.payload_len, err,
		    sizeof(err));
	len = tt_frame_encode(&f, again, sizeof(again));
	if (size <= sizeof(again) && (len != size ||
	    memcmp(again, data, size) != 0))
		abort();	/* decode and encode disagree */
	return 0;
}
