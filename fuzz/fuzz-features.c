/*
 * fuzz-features.c: the parser of <debugfs>/sched/features
 * (features_parse in src/sys/features.c) on arbitrary text, and what is
 * built on its result: the kernel's format written back, the name list of
 * error messages, and the validation of requested tokens.
 *
 * A line that parses must print (features_format) as a line that parses
 * to the same features in the same order with the same states: the restore
 * journal keeps the original state in that form. Every whitespace-separated
 * word of the input is then checked as a requested token against the
 * parsed list, as `ab --feature` and `features set` do.
 */
#include "fuzz.h"
#include "sys/features.h"

#include <stdbool.h>

/* static: struct features is 4 KiB, the formatted line as much again */
static struct features parsed, again;
static char line[FEATURES_LINE_MAX], names[FEATURES_LINE_MAX];

static void check_tokens(const char *s)
{
	char tok[FEATURE_NAME_MAX + 8], why[FEATURES_LINE_MAX + 128];
	const char *p = s;
	int checked = 0;

	while (*p && checked < 16) {
		size_t n = strcspn(p, " \t\n");
		size_t idx;
		bool on;

		if (n && n < sizeof(tok)) {
			memcpy(tok, p, n);
			tok[n] = '\0';
			if (!features_token(&parsed, tok, &idx, &on, why, sizeof(why)))
				FUZZ_CHECK(idx < parsed.n);
			checked++;
		}
		p += n;
		p += strspn(p, " \t\n");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size), why[256];
	size_t i;

	if (!features_parse(s, &parsed, why, sizeof(why))) {
		FUZZ_CHECK(parsed.n > 0 && parsed.n <= FEATURES_MAX);
		features_format(&parsed, line, sizeof(line));
		FUZZ_CHECK(!features_parse(line, &again, why, sizeof(why)));
		FUZZ_CHECK(again.n == parsed.n);
		for (i = 0; i < parsed.n; i++) {
			FUZZ_CHECK(!strcmp(again.name[i], parsed.name[i]));
			FUZZ_CHECK(again.on[i] == parsed.on[i]);
			FUZZ_CHECK(features_find(&parsed, parsed.name[i]) == (int)i);
		}
		features_names(&parsed, names, sizeof(names));
		check_tokens(s);
	} else {
		FUZZ_CHECK(parsed.fail == FEATURES_INVALID && why[0]);
	}
	free(s);
	return 0;
}
