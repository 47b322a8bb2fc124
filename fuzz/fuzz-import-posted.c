/*
 * fuzz-import-posted.c: `wakebench import PASTE`, other tools' output as
 * people post it (src/engine/posted.c: the paste's normalisations, each
 * format's reader, libyaml on stress-ng's YAML, json-c on schbench's, the
 * export document made of it), on arbitrary text.
 *
 * Input: the paste. Inputs import_file() takes for another format are
 * skipped. posted_parse() either refuses it (no document) or makes a
 * document that the export parser then merges into a fresh empty store
 * (import.h): a document posted.c makes is never refused by the merge,
 * except for what the store checks beyond it (a UUID is a digest of the
 * text, so two runs of one paste cannot collide).
 */
#include "engine/posted.h"
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
	struct posted_opts o = { .tool_version = "0.15.06" };
	char *doc = NULL;
	size_t added;
	int ret;

	if (import_type_of(data, size) != IMPORT_POSTED)
		return 0;
	ret = posted_parse("paste.txt", (const char *)data, size, &o, &doc);
	FUZZ_CHECK(ret == 0 ? doc != NULL : doc == NULL);
	free(doc);
	fuzz_write("paste.txt", data, size);
	ret = import_one_n("paste.txt", &added);
	FUZZ_CHECK(ret < 0 || added >= 1);
	return 0;
}
