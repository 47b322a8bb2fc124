/*
 * cmd-import.c: `wakebench import FILE`: merge another wakebench store
 * (another machine's, a guest's from `vm`, an older version's) or a JSON
 * document written by `export` into this one. Experiments are matched by
 * UUID: those already present are skipped, so importing twice changes
 * nothing. Each file is merged in one transaction and only read (an older
 * schema is upgraded in memory), as untrusted input: a file that fails a
 * check is refused whole, with one line naming it. The store is created
 * only when a file can be merged into it. A report written by `wakebench
 * report` carries an export in it (report/embed.c): it is checked and
 * merged as that export.
 */
#include "cli/cli.h"
#include "util/json.h"
#include "engine/farm.h"
#include "render/render.h"
#include "store/store.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char import_usage[] = "FILE...";
static const char import_description[] =
	"Merge other wakebench stores, JSON documents written by 'wakebench export', or\n"
	"LAVA job logs carrying its framed results (export --format lava), or HTML reports\n"
	"(wakebench report) with their raw data, into this one by experiment UUID;\n"
	"experiments already present are skipped.\n"
	"Each FILE is only read.";

/*
 * A report's raw data as a temporary export file for store_import(): 1 and
 * *tmp (malloc'd; the caller unlinks it) when path is a report, 0 when it
 * is not one, -1 after one line when it is one whose data is missing or
 * damaged.
 */
static int report_data(const char *path, char **tmp)
{
	const char *dir = getenv("TMPDIR");
	char *buf, *doc, why[256];
	size_t len, doclen;
	int fd;

	*tmp = NULL;
	if (read_file(path, &buf, &len))
		return 0; /* store_import() says why it cannot be read */
	if (!embed_detect(buf, len)) {
		free(buf);
		return 0;
	}
	if (embed_extract(buf, len, &doc, &doclen, why, sizeof(why))) {
		free(buf);
		return error("import: report '%s': %s; nothing imported from it", path, why);
	}
	free(buf);
	*tmp = xasprintf("%s/wakebench-report.XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(*tmp);
	if (fd < 0 || write_full(fd, doc, doclen) != (ssize_t)doclen || close(fd)) {
		error_errno("import: report '%s': cannot write its data to '%s'", path, *tmp);
		if (fd >= 0)
			unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
		free(doc);
		return -1;
	}
	free(doc);
	return 1;
}

int cmd_import(int argc, const char **argv, struct ctx *ctx)
{
	struct opt_group groups[] = { cli_common_group_for(
		ctx, COMMON_DB | COMMON_FORMAT | COMMON_VERBOSITY,
		(1u << FMT_TEXT) | (1u << FMT_JSON)) };
	struct opts_result res;
	json_object *out = NULL;
	struct store *st = NULL;
	const char *dst;
	size_t i;
	int ret = EXIT_OK;

	cli_parse("import", import_usage, import_description, groups, ARRAY_SIZE(groups), argc,
		  argv, 0, &res, ctx);
	cli_require_format("import", ctx, 1u << FMT_TEXT | 1u << FMT_JSON);
	if (!res.npos) {
		opts_result_release(&res);
		die_usage("import: give the store file(s) to merge, e.g. 'wakebench import "
			  "other.db'");
	}
	dst = cli_db_path(ctx);
	if (ctx->format == FMT_JSON)
		out = json_object_new_array();
	for (i = 0; i < res.npos; i++) {
		int64_t *ids = NULL;
		size_t added, skipped, k;
		char *tmp;
		int rep = report_data(res.pos[i], &tmp), lava, r;
		/* a report is merged as the export it carries */
		const char *src = rep == 1 ? tmp : res.pos[i];

		if (rep < 0) {
			ret = EXIT_RUNTIME;
			continue;
		}
		/* a LAVA job log: only its whole results frames are merged (engine/lava.c) */
		lava = !tmp && lava_log_detect(src) == 1;

		if (!st) {
			/* a store that does not exist yet is created for a file that merges */
			if (access(dst, F_OK) && errno == ENOENT && !lava &&
			    store_import_check(src)) {
				ret = EXIT_RUNTIME;
				goto next;
			}
			if (!(st = cli_store(ctx))) {
				ret = EXIT_RUNTIME;
				if (tmp)
					unlink(tmp);
				free(tmp);
				break;
			}
		}
		r = lava ? lava_import_log(st, src, &ids, &added, &skipped)
			 : store_import(st, src, &ids, &added, &skipped);
		if (r) {
			ret = EXIT_RUNTIME;
			if (r < 0)
				goto next;
		}
		if (out) {
			json_object *o = json_object_new_object(), *arr = json_object_new_array();

			json_object_object_add(o, "file", json_object_new_string(res.pos[i]));
			json_object_object_add(o, "added", json_object_new_int64((int64_t)added));
			json_object_object_add(o, "skipped",
					       json_object_new_int64((int64_t)skipped));
			for (k = 0; k < added; k++)
				json_object_array_add(arr, json_object_new_int64(ids[k]));
			json_object_object_add(o, "ids", arr);
			json_object_array_add(out, o);
		} else {
			printf("%s: %zu experiment%s added, %zu skipped (already present)\n",
			       res.pos[i], added, added == 1 ? "" : "s", skipped);
		}
	next:
		free(ids);
		if (tmp)
			unlink(tmp);
		free(tmp);
	}
	if (out) {
		json_print(stdout, out);
		json_object_put(out);
	}
	opts_result_release(&res);
	return ret;
}
