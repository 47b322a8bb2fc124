/*
 * fuzz-import-store.c: `wakebench import OTHER.db`, the merging of another
 * wakebench store (store_import in src/store/store.c), on arbitrary bytes
 * as the other store. That store is untrusted input (DESIGN section 10: a
 * guest's store from `vm`): it is opened read-only, checked (header,
 * application id, schema version), upgraded in memory when older,
 * serialised and attached, and its rows are merged into a fresh empty
 * store (import.h).
 *
 * Input: the SQLite file. Inputs that start like a JSON document go the
 * JSON way, which fuzz-import-json covers; they are skipped here.
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

	for (i = 0; i < size && i < 64 && isspace(data[i]); i++)
		;
	if (i < size && i < 64 && data[i] == '{')
		return 0;
	fuzz_write("src.db", data, size);
	import_one("src.db");
	return 0;
}
