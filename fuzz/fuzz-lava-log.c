/*
 * fuzz-lava-log.c: `wakebench import JOB.log`, the finding, verifying and
 * merging of the framed results a LAVA job log carries (lava_import_log,
 * src/engine/lava.c), on arbitrary text: lava-run's log lines and plain console
 * text around "WBR1" frames of numbered base64 lines.
 *
 * Input: the log. It is imported into a fresh empty store (import.h); an
 * input without the frame marker is what lava_log_detect() sends to the
 * other import paths, and is skipped here.
 */
#include "engine/farm.h"
#include "import.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	import_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[4200];

	fuzz_write("job.log", data, size);
	fuzz_path(path, sizeof(path), "job.log");
	if (lava_log_detect(path) != 1) {
		fuzz_dir_clean();
		return 0;
	}
	import_one_with("job.log", lava_import_log);
	return 0;
}
