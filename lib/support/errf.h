/*
 * The library's one error formatter, private to lib/: fill err (if any)
 * and return -1, so a failure path reads "return tt_errf(err, errsz, ...)".
 */
#ifndef TWINTORUS_ERRF_H
#define TWINTORUS_ERRF_H

#include <stddef.h>

int tt_errf(char *err, size_t errsz, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
