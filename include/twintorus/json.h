/*
 * twintorus: JSON output helpers shared by ttsim and ttd.
 *
 * Every tool that prints JSON writes its strings (hosts, interface names,
 * file names, configuration names) through tt_json_string(), so escaping
 * is defined once, and opens every top-level object through
 * tt_json_begin(), so that each carries its schema first.
 */
#ifndef TWINTORUS_JSON_H
#define TWINTORUS_JSON_H

#include <stdio.h>
#include "twintorus/api.h"

TT_BEGIN_DECLS

/*
 * The schema of each JSON output, the value of the "schema" key that opens
 * every top-level object the tools print (each element, where an output is
 * an array of objects): "PROGRAM.OUTPUT/VERSION".  doc/json.md lists each
 * output's keys.  VERSION goes up by one when a key of that output is
 * removed or renamed or changes type, unit or meaning; a key added does not
 * change it (a reader ignores keys it does not know), but is documented in
 * doc/json.md (tests/cli/json-schema.sh fails until it is).
 */
#define TT_JSON_SCHEMA_ANALYZE          "ttsim.analyze/1"
#define TT_JSON_SCHEMA_VERIFY           "ttsim.verify/1"
#define TT_JSON_SCHEMA_RUN              "ttsim.run/1"
#define TT_JSON_SCHEMA_RUN_DRY          "ttsim.run.dry-run/1"
#define TT_JSON_SCHEMA_SWEEP            "ttsim.sweep/1"
#define TT_JSON_SCHEMA_APP              "ttsim.app/1"
#define TT_JSON_SCHEMA_REPLAY           "ttsim.replay/1"
#define TT_JSON_SCHEMA_TRACE_STAT       "ttsim.trace.stat/1"
#define TT_JSON_SCHEMA_TRACE_INFER      "ttsim.trace.infer/1"
#define TT_JSON_SCHEMA_TRACE_CALIBRATE  "ttsim.trace.calibrate/1"
#define TT_JSON_SCHEMA_TTD_ROUTES       "ttd.routes/1"
#define TT_JSON_SCHEMA_TTD_STATUS       "ttd.status/1"
#define TT_JSON_SCHEMA_TTD_DISCOVER     "ttd.discover/1"

/*
 * Open a top-level object: write '{' and its first key, "schema", with
 * the value schema (one of TT_JSON_SCHEMA_*).  The caller writes each
 * further key after ", ", and the closing '}'.
 */
void tt_json_begin(FILE *f, const char *schema);

/*
 * Write s as a JSON string, quotes included.  '"' and '\\' are escaped,
 * control characters become \u00XX, valid UTF-8 passes through, and every
 * byte that is not part of a valid UTF-8 sequence (a file name in another
 * encoding, say) becomes U+FFFD, so the output is always valid JSON.
 */
void tt_json_string(FILE *f, const char *s);

TT_END_DECLS

#endif
