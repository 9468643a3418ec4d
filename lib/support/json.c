/*
 * JSON strings: one escaper for every tool, and the "schema" key that
 * opens every top-level object (twintorus/json.h).
 */
#include <stddef.h>

#include "twintorus/json.h"

/*
 * The length of the valid UTF-8 sequence at s (1..4), or 0 when the bytes
 * there are not one (a stray continuation byte, an overlong form, a
 * surrogate, a value above U+10FFFF or a sequence cut short).
 */
static size_t
utf8_len(const unsigned char *s)
{
	size_t n, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1fu;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0fu;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07u;
	} else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)      /* also stops at the NUL */
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

void
tt_json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	fputc('"', f);
	while (*p) {
		if (*p == '"' || *p == '\\') {
			fputc('\\', f);
			fputc(*p++, f);
		} else if (*p < 0x20) {
			fprintf(f, "\\u%04x", *p++);
		} else if ((n = utf8_len(p)) == 0) {
			fputs("\\ufffd", f);
			p++;
		} else {
			fwrite(p, 1, n, f);
			p += n;
		}
	}
	fputc('"', f);
}

void
tt_json_begin(FILE *f, const char *schema)
{
	fputs("{\"schema\": ", f);
	tt_json_string(f, schema);
}
