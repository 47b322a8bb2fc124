/*
 * fuzz-lava-log.c: `wakebench import JOB.log`, the finding, verifying and
 * merging of the framed results a LAVA job log carries (lava_import_log,
 * src/engine/lava.c), on arbitrary text: lava-run's log lines and plain console
 * text around "WBR1" frames of numbered base64 lines.
 *
 * Input: the log, streamed line by line. It is imported into a fresh
 * empty store (import.h), where only a frame repeating an earlier one's
 * experiments may skip any; an input that import_file() takes for another
 * format (an SQLite header, a '{' first, a report wakebench wrote, a NUL
 * in its first 4 KiB) is skipped here: an HTML file that is not such a
 * report is a log.
 */
#include "import.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	import_init();
	import_may_skip = true;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (import_type_of(data, size) != IMPORT_LAVA_LOG)
		return 0;
	fuzz_write("job.log", data, size);
	import_one("job.log");
	return 0;
}
