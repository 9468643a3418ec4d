/*
 * The one JSON string escaper (twintorus/json.h): quotes and backslashes,
 * control characters, UTF-8 kept, invalid bytes replaced so the output is
 * always valid JSON; and the opening of a top-level object, its "schema"
 * key first.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "twintorus/json.h"

/* s through tt_json_string(), in a static buffer */
static const char *
escaped(const char *s)
{
	static char out[256];
	FILE *f = fmemopen(out, sizeof(out), "w");

	assert_non_null(f);
	tt_json_string(f, s);
	assert_int_equal(fclose(f), 0);
	return out;
}

static void
test_plain_and_special_characters(void **state)
{
	(void)state;
	assert_string_equal(escaped("n000"), "\"n000\"");
	assert_string_equal(escaped(""), "\"\"");
	assert_string_equal(escaped("a\"b\\c"), "\"a\\\"b\\\\c\"");
	assert_string_equal(escaped("tab\there\nnl\x01"),
	    "\"tab\\u0009here\\u000anl\\u0001\"");
}

static void
test_valid_utf8_passes_through(void **state)
{
	(void)state;
	/* é (2 bytes), € (3), 𝄞 (4) */
	assert_string_equal(escaped("caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e"),
	    "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e\"");
}

static void
test_invalid_bytes_become_replacement(void **state)
{
	(void)state;
	/* Latin-1 é in a file name */
	assert_string_equal(escaped("caf\xe9.pcap"), "\"caf\\ufffd.pcap\"");
	/* a stray continuation byte, an overlong '/', a surrogate, a cut
	 * sequence at the end */
	assert_string_equal(escaped("\x80"), "\"\\ufffd\"");
	assert_string_equal(escaped("\xc0\xaf"), "\"\\ufffd\\ufffd\"");
	assert_string_equal(escaped("\xed\xa0\x80"),
	    "\"\\ufffd\\ufffd\\ufffd\"");
	assert_string_equal(escaped("x\xe2\x82"), "\"x\\ufffd\\ufffd\"");
	/* above U+10FFFF */
	assert_string_equal(escaped("\xf4\x90\x80\x80"),
	    "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
}

static void
test_begin_writes_the_schema_key_first(void **state)
{
	char out[128];
	FILE *f = fmemopen(out, sizeof(out), "w");

	(void)state;
	assert_non_null(f);
	tt_json_begin(f, TT_JSON_SCHEMA_RUN);
	fputs(", \"pes\": 2}", f);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(out, "{\"schema\": \"ttsim.run/1\", \"pes\": 2}");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_and_special_characters),
		cmocka_unit_test(test_valid_utf8_passes_through),
		cmocka_unit_test(test_invalid_bytes_become_replacement),
		cmocka_unit_test(test_begin_writes_the_schema_key_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
