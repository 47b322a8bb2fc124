/*
 * fuzz-import-json.c: `wakebench import FILE.json`, the streamed merging of
 * a JSON document written by `export` (yajl's events in
 * src/engine/import.c, then SQLite's JSON functions per experiment and per
 * sample in src/store/store.c), on arbitrary text.
 *
 * Input: the document. import_file() takes a file whose first non-blank
 * byte, after an optional byte-order mark, is '{' (but not '{"dt":', a
 * LAVA log) for JSON; other inputs are other formats, which the other
 * import targets cover, and are skipped here. The document is imported
 * into a fresh empty store (import.h).
 */
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
	if (import_type_of(data, size) != IMPORT_EXPORT)
		return 0;
	fuzz_write("src.json", data, size);
	import_one("src.json");
	return 0;
}
