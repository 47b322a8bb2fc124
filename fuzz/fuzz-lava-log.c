/*
 * fuzz-lava-log.c: `wakebench import JOB.log`, the finding, verifying and
 * merging of the framed results a LAVA job log carries (lava_import_log,
 * src/engine/lava.c), on arbitrary text: lava-run's log lines and plain console
 * text around "WBR1" frames of numbered base64 lines.
 *
 * Input: the log, streamed line by line. It is imported into a fresh
 * empty store (import.h); an input that import_file() takes for another
 * format (an SQLite header, a '{' first, a report's first line, a NUL)
 * is skipped here.
 */
#include "import.h"

#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	import_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t i = 0;

	while (i < size &&
	       (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'))
		i++;
	if (!size || memchr(data, '\0', size < 4096 ? size : 4096) ||
	    (i < size && data[i] == '{' && (size - i < 6 || memcmp(data + i, "{\"dt\":", 6))) ||
	    (size >= 15 && !memcmp(data, "SQLite format 3", 15)) ||
	    (size >= 9 && !memcmp(data, "<!DOCTYPE", 9)))
		return 0;
	fuzz_write("job.log", data, size);
	import_one("job.log");
	return 0;
}
