/*
 * libFuzzer target: the torus frame parser (lib/formats/frame.c), as ttd meets it
 * on the wire.  Any input must decode without a memory error; a frame that
 * decodes must encode back to the same bytes (headers and payload), and a
 * hello's or a credit frame's body must decode without one either; a
 * credit body that decodes must encode back to its bytes.
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
	uint8_t body[TT_CREDIT_HLEN + TT_CREDIT_MAX_VCS * TT_CREDIT_VC_LEN];
	tt_credit c;
	tt_frame f;
	tt_hello h;
	size_t len;

	if (tt_frame_decode(&f, data, size, err, sizeof(err)) != 0)
		return 0;
	if (f.type == TT_FRAME_HELLO)
		(void)tt_hello_decode(&h, f.payload, f.payload_len, err,
		    sizeof(err));
	if (f.type == TT_FRAME_CREDIT && tt_credit_decode(&c, f.payload,
	    f.payload_len, err, sizeof(err)) == 0) {
		/* the reserved bytes are sent as 0: compare what is not */
		len = tt_credit_encode(&c, body, sizeof(body));
		if (len == 0 || len > f.payload_len ||
		    memcmp(body, f.payload, 5) != 0 ||
		    memcmp(body + TT_CREDIT_HLEN, f.payload + TT_CREDIT_HLEN,
		    len - TT_CREDIT_HLEN) != 0)
			abort();	/* credit decode and encode disagree */
	}
	len = tt_frame_encode(&f, again, sizeof(again));
	if (size <= sizeof(again) && (len != size ||
	    memcmp(again, data, size) != 0))
		abort();	/* decode and encode disagree */
	return 0;
}
