/*
 * json.c: json_str_or_null() and json_time_utc() (json.h), shared by export's
 * JSON, the KCIDB document and whatever else writes JSON with json-c.
 */
#include "util/json.h"

#include <stdio.h>
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
