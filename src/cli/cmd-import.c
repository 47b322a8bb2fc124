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
 * merged as that export. Other tools' output as people post it (stress-ng's
 * --metrics-brief table or --yaml file, perf bench sched pipe/messaging,
 * hackbench, schbench) becomes experiments of kind "external"
 * (engine/posted.c); --tool-version, --label, --kernel and --host give
 * what such a text does not say.
 */
#include "cli/cli.h"
#include "util/json.h"
#include "util/text.h"
#include "engine/import.h"
#include "store/store.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct opt import_opts[] = {
	{ .type = OPT_STRING,
	  .long_name = "tool-version",
	  .offset = offsetof(struct posted_opts, tool_version),
	  .argh = "VERSION",
	  .help = "posted output: the tool's release when the text does not say it (stress-ng's "
		  "picks the profile: 0.15.06)" },
	{ .type = OPT_STRING,
	  .long_name = "label",
	  .offset = offsetof(struct posted_opts, label),
	  .argh = "TEXT",
	  .help = "posted output: the label of the experiments it becomes" },
	{ .type = OPT_STRING,
	  .long_name = "kernel",
	  .offset = offsetof(struct posted_opts, kernel),
	  .argh = "RELEASE",
	  .help = "posted output: the kernel release it ran on, when the text does not say it" },
	{ .type = OPT_STRING,
	  .long_name = "host",
	  .offset = offsetof(struct posted_opts, host),
	  .argh = "NAME",
	  .help = "posted output: the host it ran on, when the text does not say it" },
	OPT_END_ROW,
};

/* A release: digits and dots, starting and ending with a digit ("0.15.06", "6.1"). */
static bool release_valid(const char *v)
{
	size_t i, n = strlen(v);

	if (!n || n > 32 || !isdigit((unsigned char)v[0]) || !isdigit((unsigned char)v[n - 1]))
		return false;
	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)v[i]) && (v[i] != '.' || v[i + 1] == '.'))
			return false;
	return true;
}

/* Each option's value: printable, one line, not empty; a release for --tool-version. */
static void check_posted_opts(const struct posted_opts *po)
{
	const struct {
		const char *name, *value;
	} v[] = { { "--tool-version", po->tool_version },
		  { "--label", po->label },
		  { "--kernel", po->kernel },
		  { "--host", po->host } };
	size_t i;

	if (po->tool_version && !release_valid(po->tool_version))
		die_usage("import: --tool-version '%s': expected a release, digits and dots "
			  "(0.15.06)",
			  po->tool_version);
	for (i = 0; i < ARRAY_SIZE(v); i++)
		if (v[i].value &&
		    (!*v[i].value || strlen(v[i].value) > 256 || !text_is_printable(v[i].value, 0)))
			die_usage("import: %s: expected 1 to 256 printable characters on one line",
				  v[i].name);
}

static const char import_usage[] = "FILE...";
static const char import_description[] =
	"Merge other wakebench stores, JSON documents written by 'wakebench export', or\n"
	"LAVA job logs carrying its framed results (export --format lava), or HTML reports\n"
	"(wakebench report) with their raw data, into this one by experiment UUID;\n"
	"experiments already present are skipped.\n"
	"Other tools' output as posted (stress-ng --metrics-brief or --yaml, perf bench\n"
	"sched pipe or messaging, hackbench, schbench text or --json) becomes experiments\n"
	"of kind external, one sample per run (doc/import.md).\n"
	"Each FILE is only read.";

int cmd_import(int argc, const char **argv, struct ctx *ctx)
{
	struct posted_opts po = { 0 };
	struct opt_group groups[] = {
		{ .title = "posted output (other tools')", .opts = import_opts, .base = &po },
		cli_common_group_for(ctx, COMMON_DB | COMMON_FORMAT | COMMON_VERBOSITY,
				     (1u << FMT_TEXT) | (1u << FMT_JSON))
	};
	struct opts_result res;
	json_object *out = NULL;
	struct store *st = NULL;
	const char *dst;
	size_t i;
	int ret = EXIT_OK;

	cli_parse("import", import_usage, import_description, groups, ARRAY_SIZE(groups), argc,
		  argv, 0, &res, ctx);
	cli_require_format("import", ctx, 1u << FMT_TEXT | 1u << FMT_JSON);
	check_posted_opts(&po);
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
			if (access(dst, F_OK) && errno == ENOENT &&
			    import_check_with(res.pos[i], &po)) {
				ret = EXIT_RUNTIME;
				continue;
			}
			if (!(st = cli_store(ctx))) {
				ret = EXIT_RUNTIME;
				break;
			}
		}
		rc = import_file_with(st, res.pos[i], &po, &r);
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
