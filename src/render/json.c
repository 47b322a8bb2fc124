/*
 * json.c: an effect as every JSON output writes it (json.h).
 */
#include "render/json.h"
#include "stats/stats.h"
#include "util/json.h"

#include <math.h>

json_object *render_effect_json(const struct effect *e, int verdict, const char *verdict_text)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "valid", json_object_new_boolean(e->valid));
	json_object_object_add(o, "estimate", json_double(e->valid ? e->est : NAN));
	json_object_object_add(o, "ci_lo", json_double(e->valid ? e->lo : NAN));
	json_object_object_add(o, "ci_hi", json_double(e->valid ? e->hi : NAN));
	json_object_object_add(o, "conf", json_double(e->conf));
	json_object_object_add(o, "p", json_double(e->valid ? e->p : NAN));
	json_object_object_add(o, "method", e->method ? json_object_new_string(e->method) : NULL);
	json_object_object_add(
		o, "verdict",
		verdict == RENDER_NO_VERDICT
			? NULL
			: json_object_new_string(stats_verdict_key((enum verdict)verdict)));
	json_object_object_add(o, "verdict_text",
			       verdict_text ? json_object_new_string(verdict_text) : NULL);
	if (!e->valid)
		json_object_object_add(
			o, "why", json_object_new_string(e->why ? e->why : "insufficient samples"));
	return o;
}
