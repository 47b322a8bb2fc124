/*
 * import.h: what the import targets share: `wakebench import FILE`
 * (import_file in src/engine/import.c, which decides the file's type and
 * hands it to its reader) of one input file into a fresh, empty store.
 *
 * Making a store (schema, migrations, WAL) costs far more than an import,
 * so an empty store is made once, at start-up, as template.db; each input
 * gets a byte copy of it as dst.db, is written as its own file next to it,
 * imported, and then both are removed with their WAL and shared-memory
 * files. So every input meets the same destination, whatever the previous
 * ones added, and an import runs in a few milliseconds.
 */
#ifndef WAKEBENCH_FUZZ_IMPORT_H
#define WAKEBENCH_FUZZ_IMPORT_H

#include "fuzz.h"
#include "engine/import.h"
#include "render/render.h"
#include "store/store.h"

static char *import_template;
static size_t import_template_len;
/* A LAVA log may carry one experiment in several whole frames: the later ones skip it. */
static bool import_may_skip;

static inline void import_init(void)
{
	char path[4200];
	struct store *st;

	fuzz_tmpdir_init();
	fuzz_path(path, sizeof(path), "template.db");
	/* read while open: a store its creator closes with nothing stored in it is removed */
	if (store_open(path, STORE_CREATE, &st))
		die("fuzz: cannot create the template store '%s'", path);
	if (read_file(path, &import_template, &import_template_len))
		die_errno("fuzz: cannot read '%s'", path);
	store_close(st);
}

/*
 * The type import_file() gives a file that starts with data (detect() in
 * src/engine/import.c, from its first 4 KiB), or -1 when it takes it for
 * none: each target skips the inputs that go another target's way.
 */
static inline int import_type_of(const uint8_t *data, size_t size)
{
	size_t n = size < 4096 ? size : 4096, i = 0;

	if (n >= 16 && !memcmp(data, "SQLite format 3", 16))
		return IMPORT_STORE;
	if (embed_detect((const char *)data, n))
		return IMPORT_REPORT;
	if (n >= 3 && !memcmp(data, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < n && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'))
		i++;
	if (posted_detect((const char *)data, n))
		return IMPORT_POSTED;
	if (i < n && data[i] == '{' && (n - i < 6 || memcmp(data + i, "{\"dt\":", 6)))
		return IMPORT_EXPORT;
	if (n && !memchr(data, '\0', n))
		return IMPORT_LAVA_LOG;
	return -1;
}

/*
 * Import the file `name` (already written in fuzz_dir) into a fresh copy of
 * the template: import_file()'s result, the experiments added in *added.
 */
static inline int import_one_n(const char *name, size_t *added)
{
	char dst[4200], src[4200];
	struct import_result r;
	struct store *st;
	size_t i;
	int ret;

	fuzz_write("dst.db", import_template, import_template_len);
	fuzz_path(dst, sizeof(dst), "dst.db");
	fuzz_path(src, sizeof(src), name);
	if (store_open(dst, 0, &st))
		die("fuzz: cannot open the copy of the template store '%s'", dst);
	ret = import_file(st, src, &r);
	if (ret >= 0) {
		/* An empty destination skips nothing; the ids are new and ascending. */
		FUZZ_CHECK(r.skipped == 0 || import_may_skip);
		FUZZ_CHECK(!r.added || r.ids);
		for (i = 0; i < r.added; i++)
			FUZZ_CHECK(r.ids[i] > 0 && (!i || r.ids[i] > r.ids[i - 1]));
	} else {
		/* -1: nothing merged */
		FUZZ_CHECK(!r.added);
	}
	*added = r.added;
	free(r.ids);
	store_close(st);
	fuzz_dir_clean();
	return ret;
}

static inline void import_one(const char *name)
{
	size_t added;

	(void)import_one_n(name, &added);
}

#endif
