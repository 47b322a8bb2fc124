/*
 * import.h: the door other people's data comes through (`wakebench
 * import`, a vm guest's results, a LAVA job's log): a file's type decided
 * from its structure, special files refused up front, every text format
 * streamed within stated limits (doc/store.md, "Import limits").
 */
#ifndef WAKEBENCH_ENGINE_IMPORT_H
#define WAKEBENCH_ENGINE_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/posted.h"
#include "store/store.h"

/* The limits, stated in doc/store.md (t3035 holds each). */
#define IMPORT_MAX_FILE_BYTES	 ((uint64_t)4 << 30)   /* a text file: export, report, log */
#define IMPORT_MAX_REPORT_BYTES	 ((uint64_t)256 << 20) /* a report: read whole */
#define IMPORT_MAX_DOC_BYTES	 ((uint64_t)1 << 30)   /* a report's data, decompressed */
#define IMPORT_MAX_INFLATE_RATIO 64		       /* ... and at most this times its size */
#define IMPORT_ANY_RATIO_BYTES                                                                     \
	((uint64_t)64 << 20)			 /* ... beyond this (any report of less imports) */
#define IMPORT_MAX_EXPERIMENTS	1000000		 /* in one document */
#define IMPORT_MAX_SAMPLES	1000000		 /* in one experiment */
#define IMPORT_MAX_STRING_BYTES (1u << 20)	 /* one JSON string or key */
#define IMPORT_MAX_DEPTH	32		 /* containers open at once */
#define IMPORT_MAX_MEMBERS	100000		 /* members of one JSON object */
#define IMPORT_MAX_OBJECT_BYTES (16u << 20)	 /* one experiment's members, one sample */
#define IMPORT_MAX_LINE_BYTES	(1u << 20)	 /* one line of a LAVA job log */
#define IMPORT_MAX_POSTED_BYTES POSTED_MAX_BYTES /* other tools' posted output, read whole */

enum import_type { IMPORT_STORE, IMPORT_EXPORT, IMPORT_REPORT, IMPORT_POSTED, IMPORT_LAVA_LOG };

struct import_result {
	int64_t *ids; /* the experiments added, in dst (malloc'd) */
	size_t added, skipped;
};

/*
 * Merge the file at path into dst whatever its type. 0; 1 when only part
 * of it merged (a LAVA log with a broken frame: said per frame); -1 after
 * one line naming the file, nothing merged from it.
 */
int import_file(struct store *dst, const char *path, struct import_result *r);
/*
 * The same, with what posted output of other tools may lack (engine/posted.h:
 * --tool-version, --label, --kernel, --host); po may be NULL.
 */
int import_file_with(struct store *dst, const char *path, const struct posted_opts *po,
		     struct import_result *r);

/*
 * import_file() into an empty scratch store: every check, nothing
 * written (so that `import` creates no store for a file it would refuse).
 */
int import_check(const char *path);
int import_check_with(const char *path, const struct posted_opts *po);

/* An export document merged as it streams in (one transaction, bounded memory). */
struct json_import;

/* name: for messages (the input file, or "FILE: results frame N"); opts may be NULL */
struct json_import *json_import_begin(struct store *dst, const char *name,
				      const struct store_import_opts *opts);
/* The import's options, when they are known only at its end (a LAVA frame's identity). */
void json_import_set_opts(struct json_import *ji, const struct store_import_opts *opts);
/* The next bytes of the document: 0, or -1 after one line (then only abort). */
int json_import_feed(struct json_import *ji, const void *buf, size_t len);
/* The document is complete: merge it. 0, or -1 after one line. Frees ji. */
int json_import_end(struct json_import *ji, struct import_result *r);
/* Roll back and free. */
void json_import_abort(struct json_import *ji);

#endif
