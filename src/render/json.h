/*
 * json.h: one effect of B versus A, as every JSON output writes it (ab's
 * effects and evidence, compare's changes and evidence, the KCIDB verdicts):
 * valid, estimate, ci_lo, ci_hi, conf, p, method, verdict (stats_verdict_key,
 * or null where no verdict is given: evidence presented as exploratory),
 * verdict_text, and why when not valid. Callers add their own members.
 */
#ifndef WAKEBENCH_RENDER_JSON_H
#define WAKEBENCH_RENDER_JSON_H

#include <json-c/json.h>

#include "core/effect.h"

#define RENDER_NO_VERDICT (-1)
json_object *render_effect_json(const struct effect *e, int verdict, const char *verdict_text);

#endif
