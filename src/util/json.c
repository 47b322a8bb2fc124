/*
 * json.c: the json-c values and printing (json.h) that every JSON writer of
 * wakebench shares.
 */
#include "util/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

json_object *json_str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

json_object *json_time_utc(uint64_t ns, const char *utc_suffix)
{
	time_t t = (time_t)(ns / 1000000000ull);
	struct tm tm;
	char buf[64];
	size_t n;

	if (!ns || !gmtime_r(&t, &tm) ||
	    !(n = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm)))
		return NULL;
	snprintf(buf + n, sizeof(buf) - n, "%s", utc_suffix);
	return json_object_new_string(buf);
}

json_object *json_double(double v)
{
	char buf[40];

	if (!isfinite(v))
		return NULL;
	/* the shortest of %.15g and %.17g that reads back as the same double */
	snprintf(buf, sizeof(buf), "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof(buf), "%.17g", v);
	return json_object_new_double_s(v, buf);
}

void json_print(FILE *f, json_object *o)
{
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
							JSON_C_TO_STRING_NOSLASHESCAPE),
	      f);
	fputc('\n', f);
}
