/*
 * fuzz-trace-format.c: the tracefs format-file parser (tp_format_parse in
 * src/sys/trace.c), which takes every tracepoint layout from the running
 * kernel instead of hard-coding it, and the two field readers built on
 * its result (tp_field_int, tp_field_str), which decode raw records.
 *
 * Input: a format file. When it parses, the input's own bytes are also
 * read as a raw record through every field the format declared, so that
 * offsets, sizes and __data_loc descriptors taken from untrusted text are
 * checked against the record's length: a read outside the record is an
 * ASan report, never a value.
 */
#include "fuzz.h"
#include "sys/trace.h"

static struct tp_format fmt;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size), why[256], str[64];
	uint8_t *raw;
	size_t i;

	if (tp_format_parse(s, &fmt, why, sizeof(why))) {
		free(s);
		return 0;
	}
	FUZZ_CHECK(fmt.name[0] && fmt.nfields > 0 && fmt.nfields <= TP_FIELDS_MAX);
	/* An exact-size copy: the record ends where ASan's redzone begins. */
	raw = xmalloc(size ? size : 1);
	memcpy(raw, data, size);
	for (i = 0; i < fmt.nfields; i++) {
		const struct tp_field *fd = &fmt.fields[i];
		int64_t v;

		FUZZ_CHECK(fd->name[0]);
		FUZZ_CHECK(tp_field_find(&fmt, fd->name) != NULL);
		if (!tp_field_int(fd, raw, size, &v))
			FUZZ_CHECK((size_t)fd->offset + fd->size <= size);
		if (!tp_field_str(fd, raw, size, str, sizeof(str)))
			FUZZ_CHECK(strlen(str) < sizeof(str));
	}
	free(raw);
	free(s);
	return 0;
}
