/*
 * fuzz-import-json.c: `wakebench import FILE.json`, the merging of a JSON
 * document written by `export` (store_import, which hands it to SQLite's
 * JSON functions in import_json, src/store/store.c), on arbitrary text.
 *
 * Input: the document. store_import() takes a file whose first non-blank
 * byte is '{' for JSON and anything else for an SQLite store, which
 * fuzz-import-store covers; other inputs are skipped here. The document
 * is imported into a fresh empty store (import.h).
 */
#include "import.h"

#include <ctype.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	import_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t i;

	/* store_import() looks at the first 64 bytes only. */
	for (i = 0; i < size && i < 64 && isspace(data[i]); i++)
		;
	if (i == size || i == 64 || data[i] != '{')
		return 0;
	fuzz_write("src.json", data, size);
	import_one("src.json");
	return 0;
}
