/*
 * twintorus: JSON output helpers shared by ttsim and ttd.
 *
 * Every tool that prints JSON writes its strings (hosts, interface names,
 * file names, configuration names) through tt_json_string(), so escaping
 * is defined once.
 */
#ifndef TWINTORUS_JSON_H
#define TWINTORUS_JSON_H

#include <stdio.h>
#include "twintorus/api.h"

TT_BEGIN_DECLS

/*
 * Write s as a JSON string, quotes included.  '"' and '\\' are escaped,
 * control characters become \u00XX, valid UTF-8 passes through, and every
 * byte that is not part of a valid UTF-8 sequence (a file name in another
 * encoding, say) becomes U+FFFD, so the output is always valid JSON.
 */
void tt_json_string(FILE *f, const char *s);

TT_END_DECLS

#endif
