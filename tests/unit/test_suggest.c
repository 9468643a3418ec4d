/*
 * "Did you mean" (lib/support/suggest.h): the edit distance on known pairs, and
 * which name tt_suggest() offers for a misspelt flag or command, and when
 * it offers none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "support/suggest.h"

static void
test_distance(void **state)
{
	char big[100];

	(void)state;
	assert_int_equal(tt_edit_distance("load", "load"), 0);
	assert_int_equal(tt_edit_distance("lod", "load"), 1);       /* insert */
	assert_int_equal(tt_edit_distance("loaad", "load"), 1);     /* delete */
	assert_int_equal(tt_edit_distance("lead", "load"), 1);      /* change */
	assert_int_equal(tt_edit_distance("laod", "load"), 1);      /* swap */
	assert_int_equal(tt_edit_distance("", "load"), 4);
	assert_int_equal(tt_edit_distance("kitten", "sitting"), 3);
	/* the optimal-alignment form: "ca" -> "abc" is 3, not 2 */
	assert_int_equal(tt_edit_distance("ca", "abc"), 3);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_true(tt_edit_distance(big, "a") > 100);
}

static const char *const cmds[] = {
	"analyze", "verify", "run", "sweep", "plot", "trace", "replay", "app",
};
static const char *const flags[] = {
	"load", "loads", "seed", "seeds", "measure", "warmup", "warmup-max",
	"json", "csv", "dims", "deadlock",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void
test_suggest(void **state)
{
	(void)state;
	assert_string_equal(tt_suggest("rnu", cmds, N(cmds)), "run");
	assert_string_equal(tt_suggest("anlyze", cmds, N(cmds)), "analyze");
	assert_string_equal(tt_suggest("swep", cmds, N(cmds)), "sweep");
	assert_string_equal(tt_suggest("replya", cmds, N(cmds)), "replay");
	assert_string_equal(tt_suggest("lod", flags, N(flags)), "load");
	assert_string_equal(tt_suggest("jsno", flags, N(flags)), "json");
	assert_string_equal(tt_suggest("deadlok", flags, N(flags)), "deadlock");
	/* an abbreviation: the only name it begins */
	assert_string_equal(tt_suggest("meas", flags, N(flags)), "measure");
}

static void
test_no_suggestion(void **state)
{
	(void)state;
	/* nothing near */
	assert_null(tt_suggest("simulate", cmds, N(cmds)));
	assert_null(tt_suggest("bogus", flags, N(flags)));
	/* too short to guess */
	assert_null(tt_suggest("ru", cmds, N(cmds)));
	/* two as near: "warm" begins two names; "loadz" is 1 from load and
	 * 1 from loads */
	assert_null(tt_suggest("warm", flags, N(flags)));
	assert_null(tt_suggest("loadz", flags, N(flags)));
	/* a short word gets one edit only */
	assert_null(tt_suggest("pxat", cmds, N(cmds)));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_no_suggestion),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
