/*
 * ttd logging: one line per event, "tag: message", on stderr (or where a
 * test points ttd_log_file).  When it is not a terminal (systemd's
 * journal, a file) each line starts with the syslog level as "<N>", which
 * journald reads as the priority.  Each line is one fprintf, so the
 * reload thread's lines never interleave with the loop's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "ttd.h"

#define LOG_LINE_MAX	1024

int ttd_log_level = TTD_LOG_DEFAULT;
FILE *ttd_log_file;

static const char *const level_names[] = {
	[TTD_LOG_ERR] = "err", [TTD_LOG_WARNING] = "warning",
	[TTD_LOG_NOTICE] = "notice", [TTD_LOG_INFO] = "info",
	[TTD_LOG_DEBUG] = "debug"
};

static void log_line(int level, const char *tag, const char *fmt, va_list ap,
    const char *suffix) __attribute__((format(printf, 3, 0)));

static void
log_line(int level, const char *tag, const char *fmt, va_list ap,
    const char *suffix)
{
	static int tty = -1;
	FILE *fp = ttd_log_file != NULL ? ttd_log_file : stderr;
	char line[LOG_LINE_MAX];

	vsnprintf(line, sizeof(line), fmt, ap);
	if (fp == stderr && tty < 0)
		tty = isatty(STDERR_FILENO);
	if (fp == stderr && tty)
		fprintf(fp, "ttd: %s%s%s: %s%s\n", level <= TTD_LOG_WARNING ?
		    level_names[level] : "", level <= TTD_LOG_WARNING ? ": " :
		    "", tag, line, suffix);
	else
		fprintf(fp, "<%d>%s: %s%s\n", level, tag, line, suffix);
}

void
ttd_log(int level, const char *tag, const char *fmt, ...)
{
	va_list ap;

	if (level > ttd_log_level)
		return;
	va_start(ap, fmt);
	log_line(level, tag, fmt, ap, "");
	va_end(ap);
}

void
ttd_log_errno(int level, const char *tag, const char *fmt, ...)
{
	char suffix[256];
	va_list ap;

	snprintf(suffix, sizeof(suffix), ": %s", strerror(errno));
	if (level > ttd_log_level)
		return;
	va_start(ap, fmt);
	log_line(level, tag, fmt, ap, suffix);
	va_end(ap);
}

void
ttd_fatal(const char *tag, const char *fmt, ...)
{
	char suffix[256];
	va_list ap;

	snprintf(suffix, sizeof(suffix), ": %s", strerror(errno));
	va_start(ap, fmt);
	log_line(TTD_LOG_ERR, tag, fmt, ap, suffix);
	va_end(ap);
	exit(1);
}

const char *
ttd_log_level_name(int level)
{
	return level >= TTD_LOG_ERR && level <= TTD_LOG_DEBUG ?
	    level_names[level] : "";
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
