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
#include "util/text.h"
#include "engine/import.h"
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
		struct import_result r = { 0 };
		size_t k;
		int rc;

		if (!st) {
			/* a store that does not exist yet is created for a file that merges */
			if (access(dst, F_OK) && errno == ENOENT && import_check(res.pos[i])) {
				ret = EXIT_RUNTIME;
				continue;
			}
			if (!(st = cli_store(ctx))) {
				ret = EXIT_RUNTIME;
				break;
			}
		}
		rc = import_file(st, res.pos[i], &r);
		if (rc)
			ret = EXIT_RUNTIME;
		if (rc < 0)
			continue;
		if (out) {
			json_object *o = json_object_new_object(), *arr = json_object_new_array();

			json_object_object_add(o, "file", json_object_new_string(res.pos[i]));
			json_object_object_add(o, "added", json_object_new_int64((int64_t)r.added));
			json_object_object_add(o, "skipped",
					       json_object_new_int64((int64_t)r.skipped));
			for (k = 0; k < r.added; k++)
				json_object_array_add(arr, json_object_new_int64(r.ids[k]));
			json_object_object_add(o, "ids", arr);
			json_object_array_add(out, o);
		} else {
			text_line(stdout,
				  "%s: %zu experiment%s added, %zu skipped (already present)",
				  res.pos[i], r.added, r.added == 1 ? "" : "s", r.skipped);
		}
		free(r.ids);
	}
	if (out) {
		json_print(stdout, out);
		json_object_put(out);
	}
	opts_result_release(&res);
	return ret;
}
