/*
 * json.c: the json-c values and printing (json.h) that every JSON writer of
 * wakebench shares.
 */
#include "util/json.h"
#include "util/opts.h"
#include "util/util.h"

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

char *opt_json_key(const struct opt *o)
{
	const char *suffix = o->type == OPT_DURATION ? "_ns" : o->type == OPT_SIZE ? "_bytes" : "";
	char *k = xasprintf("%s%s", o->long_name, suffix), *p;

	for (p = k; *p; p++)
		if (*p == '-')
			*p = '_';
	return k;
}

json_object *opt_json_value(const struct opt *o, const void *base)
{
	const char *p = (const char *)base + o->offset;
	const struct strlist *sl;
	json_object *a;
	const char *s;
	int idx;
	size_t i;

	switch (o->type) {
	case OPT_FLAG:
		return json_object_new_boolean(*(const bool *)(const void *)p);
	case OPT_UINT:
	case OPT_DURATION:
	case OPT_SIZE:
		return json_object_new_uint64(*(const uint64_t *)(const void *)p);
	case OPT_DOUBLE:
	case OPT_PERCENT:
		return json_double(*(const double *)(const void *)p);
	case OPT_CHOICE:
		idx = *(const int *)(const void *)p;
		return idx >= 0 && o->choices ? json_object_new_string(o->choices[idx]) : NULL;
	case OPT_STRING:
		s = *(const char *const *)(const void *)p;
		return s ? json_object_new_string(s) : NULL;
	case OPT_STRLIST:
		sl = (const struct strlist *)(const void *)p;
		a = json_object_new_array();
		for (i = 0; i < sl->n; i++)
			json_object_array_add(a, json_object_new_string(sl->v[i]));
		return a;
	case OPT_END:
		break;
	}
	return NULL;
}
