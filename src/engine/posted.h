/*
 * posted.h: other tools' output as people post it (a mail, an issue, a
 * terminal paste), read into wakebench experiments of kind "external":
 * stress-ng's --metrics-brief table and --yaml file, perf bench sched pipe
 * and messaging, rt-tests hackbench, schbench's text and --json output
 * (doc/import.md says what each maps to).
 *
 * The text is turned into wakebench's own export document (the JSON that
 * `wakebench export` writes), which import.c merges like any other export:
 * one path for the checks, the limits and the transaction.
 */
#ifndef WAKEBENCH_ENGINE_POSTED_H
#define WAKEBENCH_ENGINE_POSTED_H

#include <stdbool.h>
#include <stddef.h>

/* Posted text is read whole: at most this many bytes (doc/import.md). */
#define POSTED_MAX_BYTES (16u << 20)

/* What the text may lack, from `import`'s options; each may be NULL. */
struct posted_opts {
	const char *tool_version; /* --tool-version: the tool's release ("0.15.06") */
	const char *label, *kernel, *host;
	long long mtime_ns; /* the file's, for experiments the text gives no time for */
};

/*
 * Does the start of a file (head[0..n)) look like posted output of a tool
 * this file reads? Decided from line structure (a table's header, a tool's
 * banner line), never from a word anywhere.
 */
bool posted_detect(const char *head, size_t n);

/*
 * Read text[0..len) (name: for messages) into an export document: a
 * malloc'd NUL-terminated JSON text in *doc. 0, or -1 after one line
 * naming the file, the line and what was expected there.
 */
int posted_parse(const char *name, const char *text, size_t len, const struct posted_opts *o,
		 char **doc);

#endif
