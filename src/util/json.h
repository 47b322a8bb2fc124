/*
 * json.h: the json-c values every JSON writer of wakebench makes the same
 * way: a string that may be absent, a time in RFC 3339, a double that reads
 * back exactly, and the pretty print of a whole document.
 */
#ifndef WAKEBENCH_UTIL_JSON_H
#define WAKEBENCH_UTIL_JSON_H

#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

/* A JSON string, or NULL (JSON null, or a field left out) for no string. */
json_object *json_str_or_null(const char *s);

/*
 * A CLOCK_REALTIME time in nanoseconds as an RFC 3339 UTC string to the second,
 * "2026-04-01T12:00:00" followed by utc_suffix ("Z" in wakebench's own exports,
 * "+00:00" where KCIDB's schema asks for it); NULL for 0 (not known).
 */
json_object *json_time_utc(uint64_t ns, const char *utc_suffix);

/* A double in the shortest form that reads back as itself, or null when not finite. */
json_object *json_double(double v);

struct opt;

/*
 * An option's value as wakebench stores parameters (params JSON): its key,
 * the long name with '-' as '_' and "_ns" or "_bytes" after a duration or
 * a size (malloc'd), and its value in the struct at base.
 */
char *opt_json_key(const struct opt *o);
json_object *opt_json_value(const struct opt *o, const void *base);

/* Print a JSON object pretty, with a final newline. */
void json_print(FILE *f, json_object *o);

#endif
