/*
 * fuzz-parse.c: the value parsers of src/util/parse.c on arbitrary text:
 * parse_u64, parse_double, parse_duration_ns and parse_size, which read
 * every number, duration and size typed on the command line.
 *
 * Besides memory and undefined-behaviour errors it checks that what the
 * formatters print (defaults in help, values in `list`) reads back: a
 * size exactly, a duration to within the six digits format_duration()
 * keeps.
 */
#include "fuzz.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size), text[64];
	uint64_t u, back;
	double d;

	if (!parse_u64(s, &u))
		FUZZ_CHECK(s[0] >= '0' && s[0] <= '9');
	if (!parse_double(s, &d))
		FUZZ_CHECK(isfinite(d));
	if (!parse_duration_ns(s, &u)) {
		FUZZ_CHECK(u <= 1000000000000000000ull);
		format_duration(u, text, sizeof(text));
		FUZZ_CHECK(!parse_duration_ns(text, &back));
		FUZZ_CHECK(fabs((double)back - (double)u) <= (double)u * 1e-5 + 1);
	}
	if (!parse_size(s, &u)) {
		FUZZ_CHECK(u <= 1000000000000000000ull);
		format_size(u, text, sizeof(text));
		FUZZ_CHECK(!parse_size(text, &back) && back == u);
	}
	free(s);
	return 0;
}
