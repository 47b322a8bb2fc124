/*
 * reproduce.h: the result of `wakebench reproduce` (core/reproduce.h) as
 * text and JSON, the same numbers in both.
 */
#ifndef WAKEBENCH_RENDER_REPRODUCE_H
#define WAKEBENCH_RENDER_REPRODUCE_H

#include <stdio.h>

#include <json-c/json.h>

#include "core/reproduce.h"

/*
 * The posted line, the here line, the verdict line, then the differences
 * and the unknown keys. wl names the workload (units, metric titles).
 */
void reproduce_verdict_text(FILE *f, const struct reproduce_verdict *rv, const char *wl);
/*
 * {"outcome", "metric", "posted": {...}, "here": {...}, "accept_lo",
 * "accept_hi", "relative", "why", "differences": [...], "unknown": [KEY...]}
 */
json_object *reproduce_verdict_json(const struct reproduce_verdict *rv);
/* "reproduced", "not-reproduced", "undecided". */
const char *reproduce_outcome_key(enum reproduce_outcome o);

#endif
