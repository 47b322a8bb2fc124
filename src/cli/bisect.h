/*
 * bisect.h: a stored bisection as a document, for `bisect report` (text,
 * JSON) and `report --bisect` (HTML, mail, Markdown), so that both show
 * the same steps from one reading of the store.
 */
#ifndef WAKEBENCH_CLI_BISECT_H
#define WAKEBENCH_CLI_BISECT_H

#include <json-c/json.h>

#include "store/store.h"

/*
 * The bisection whose id starts with id_prefix (NULL: the latest) in st
 * as JSON (opt: "CMD: option '--X'", the option that named it, and db, the
 * store's path, for messages): {"id", "kind" ("step" or "run"),
 * "metric", "steps": [{"role", "candidate", "step", "index", "experiments",
 * "verdict", "boots", "position", "position_lo", "position_hi", "level",
 * "vs_good", "vs_bad", "why"}], "result", and "no_result" saying why there is
 * none when it is null} (what `bisect report --format
 * json` prints; a step not decided yet has no "verdict"). Returns EXIT_OK
 * and *out (the caller's reference), or the exit status after saying why.
 */
int bisect_document(struct store *st, const char *id_prefix, const char *opt, const char *db,
		    json_object **out);

#endif
