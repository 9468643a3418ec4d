/*
 * ttd logging: one line per event on stderr, "tag: message".  When stderr
 * is not a terminal (systemd's journal, a file) each line starts with the
 * syslog level as "<N>", which journald reads as the priority.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "ttd.h"

int ttd_log_level = TTD_LOG_NOTICE;

static const char *const level_names[] = {
	[TTD_LOG_ERR] = "err", [TTD_LOG_WARNING] = "warning",
	[TTD_LOG_NOTICE] = "notice", [TTD_LOG_INFO] = "info",
	[TTD_LOG_DEBUG] = "debug"
};

void
ttd_log(int level, const char *tag, const char *fmt, ...)
{
	static int tty = -1;
	char line[1024];
	va_list ap;

	if (level > ttd_log_level)
		return;
	if (tty < 0)
		tty = isatty(STDERR_FILENO);
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (tty)
		fprintf(stderr, "ttd: %s%s%s: %s\n", level <= TTD_LOG_WARNING ?
		    level_names[level] : "", level <= TTD_LOG_WARNING ? ": " :
		    "", tag, line);
	else
		fprintf(stderr, "<%d>%s: %s\n", level, tag, line);
}

/* "err".."debug"; -1 if none of them. */
int
ttd_log_parse_level(const char *s)
{
	int i;

	for (i = TTD_LOG_ERR; i <= TTD_LOG_DEBUG; i++)
		if (strcasecmp(s, level_names[i]) == 0)
			return i;
	return -1;
}
