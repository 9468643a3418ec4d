/*
 * The library's one error formatter (errf.h): a file of its own, below
 * every part of lib/, so that calling it ties no two parts together.
 */
#include <stdarg.h>
#include <stdio.h>

#include "support/errf.h"

int
tt_errf(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errsz > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errsz, fmt, ap);
		va_end(ap);
	}
	return -1;
}
