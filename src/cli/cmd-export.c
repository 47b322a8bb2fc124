/*
 * cmd-export.c: `wakebench export`: the stored data for other tools.
 *
 * It parses its filters and format and calls the codec: JSON and CSV
 * (engine/export.c), KCIDB (engine/kcidb.c), LAVA (engine/lava.c). Filters
 * select experiments; unknown values exit 2 naming the values that exist.
 */
#include "cli/cli.h"
#include "engine/export.h"
#include "engine/farm.h"
#include "cli/filter.h"
#include "core/metrics.h"
#include "store/store.h"
#include "util/json.h"

#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct export_params {
	struct filter_params filter;
	const char *experiment;
	const char *origin;
};

/* kcidb, lava and lava-cases are written by engine/kcidb.c and engine/lava.c */
enum {
	EXPORT_FORMATS = (1u << FMT_JSON) | (1u << FMT_CSV) | (1u << FMT_KCIDB) | (1u << FMT_LAVA) |
			 (1u << FMT_LAVA_CASES),
};

static const struct opt export_opts[] = {
	{ .type = OPT_STRING,
	  .long_name = "experiment",
	  .offset = offsetof(struct export_params, experiment),
	  .argh = "EXP",
	  .help = "only this experiment (id or UUID prefix)" },
	{ .type = OPT_STRING,
	  .long_name = "origin",
	  .offset = offsetof(struct export_params, origin),
	  .argh = "NAME",
	  .help = "--format kcidb: your KCIDB origin, the prefix of every id" },
	OPT_END_ROW,
};

static const char export_usage[] =
	"[--format json|csv|kcidb|lava|lava-cases] [--origin NAME] [filters]";
static const char export_description[] =
	"Write the stored experiments (provenance, configs, environment, every sample and\n"
	"metric) as JSON, or one CSV row per sample with one column per metric, or as a\n"
	"KernelCI KCIDB v5.3 document (medians and verdicts) for kcidb-submit; for LAVA,\n"
	"the JSON framed for a console (lava) or the medians and verdicts as test cases\n"
	"(lava-cases: result.txt lines). See doc/farms.md.";

/* ---- JSON ---- */

int cmd_export(int argc, const char **argv, struct ctx *ctx)
{
	struct export_params p = { 0 };
	struct opt_group groups[] = {
		filter_group(&p.filter),
		{ .title = "export options", .opts = export_opts, .base = &p },
		cli_common_group_for(ctx, COMMON_DB | COMMON_FORMAT | COMMON_VERBOSITY,
				     EXPORT_FORMATS),
	};
	struct store_filter f = { 0 };
	struct store_experiment *exps = NULL;
	struct store_config *cfgs = NULL;
	struct opts_result res;
	struct store *st;
	size_t n = 0, ncfg = 0;
	int ret = EXIT_RUNTIME;

	cli_parse("export", export_usage, export_description, groups, ARRAY_SIZE(groups), argc,
		  argv, 0, &res, ctx);
	/*
	 * export's default format is JSON: text is not a format for data, and
	 * --format accepts only json|csv here, so text means it was not given.
	 */
	if (ctx->format == FMT_TEXT)
		ctx->format = FMT_JSON;
	cli_require_format("export", ctx, EXPORT_FORMATS);
	if (ctx->format == FMT_KCIDB && !kcidb_origin_valid(p.origin))
		die_usage(
			"export: option '--origin': %s%s%s: --format kcidb needs your KCIDB origin "
			"(lower-case letters, digits and '_')",
			p.origin ? "'" : "", p.origin ? p.origin : "missing", p.origin ? "'" : "");
	if (res.npos) {
		const char *arg = res.pos[0];

		opts_result_release(&res);
		die_usage("export: unexpected argument '%s' (filters are options, see 'wakebench "
			  "export -h')",
			  arg);
	}
	opts_result_release(&res);
	filter_resolve("export", &p.filter, &f);

	json_c_set_serialization_double_format("%.15g", JSON_C_OPTION_GLOBAL);
	if (!(st = cli_store(ctx)))
		ret = EXIT_RUNTIME;
	else if (store_filter_check(st, &f, "export") ||
		 (p.experiment && store_find_experiment(st, p.experiment, &f.exp_id)))
		ret = EXIT_USAGE;
	else if (ctx->format == FMT_KCIDB || ctx->format == FMT_LAVA_CASES) {
		if (!kcidb_export(st, &f, p.origin, ctx->format == FMT_LAVA_CASES))
			ret = EXIT_OK;
	} else if (ctx->format == FMT_CSV) {
		if (!export_csv(stdout, st, &f))
			ret = EXIT_OK;
	} else if (!store_list_experiments(st, &f, &exps, &n) &&
		   !store_list_configs(st, &f, &cfgs, &ncfg)) {
		/* lava: the same JSON, framed for a console by engine/lava.c */
		struct lava_capture cap;
		int r = ctx->format == FMT_LAVA ? lava_capture_begin(&cap) : 0;

		if (!r)
			r = export_json(stdout, st, exps, n, cfgs, ncfg);
		if (ctx->format == FMT_LAVA)
			r = lava_capture_end(&cap, r);
		if (!r)
			ret = EXIT_OK;
	}
	store_experiments_free(exps, n);
	store_configs_free(cfgs, ncfg);
	store_filter_release(&f);
	opts_release(groups, ARRAY_SIZE(groups));
	return ret;
}
