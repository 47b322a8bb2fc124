/*
 * cmd-compare.c: `wakebench compare`: stored results grouped by a key
 * (kernel, label, profile, host, or a scheduler feature's state), each group
 * against a baseline: the report's "Kernel | ops/s | vs. 6.6" table with n,
 * the CI of each median, the change with its CI, the p-value and the
 * verdict, then the change of every evidence counter per op, then the
 * environment keys that differ from the baseline, strongest first.
 *
 * It parses, calls the engine (engine/compare.c: grouping, boots as
 * units, posted results, the statistics and their words) and renders its
 * one result: text and CSV by compare-text.c, JSON from compare_json().
 * Each group row says its samples and boots; the inference section says
 * which unit each verdict rests on and, with one unit per group, that the
 * variation between them is unknown and how to get more.
 */
#include "cli/cli.h"
#include "cli/compare.h"
#include "cli/filter.h"
#include "engine/compare.h"
#include "util/json.h"
#include "util/number.h"
#include "util/text.h"

#include <json-c/json.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct compare_params {
	const char *by, *baseline;
	struct filter_params filter;
	double margin;
	bool pool, fail_on_regression;
};

static const struct compare_params compare_defaults = {
	.by = "kernel",
	.margin = COMPARE_MARGIN,
};

static const struct opt compare_opts[] = {
	{ .type = OPT_STRING,
	  .long_name = "by",
	  .offset = offsetof(struct compare_params, by),
	  .argh = "KEY",
	  .help = "group by kernel|label|profile|host|feature:NAME" },
	{ .type = OPT_STRING,
	  .long_name = "baseline",
	  .offset = offsetof(struct compare_params, baseline),
	  .argh = "VALUE",
	  .help = "the group the others are compared with (default: the oldest kernel, else "
		  "the first group stored)" },
	{ .type = OPT_PERCENT,
	  .long_name = "margin",
	  .offset = offsetof(struct compare_params, margin),
	  .argh = "PCT",
	  .min = 0.0001,
	  .max = 1,
	  .help = "changes smaller than this are no change" },
	{ .type = OPT_FLAG,
	  .long_name = "pool",
	  .offset = offsetof(struct compare_params, pool),
	  .help = "pool experiments that differ in a strong environment key (with a "
		  "warning)" },
	{ .type = OPT_FLAG,
	  .long_name = "fail-on-regression",
	  .offset = offsetof(struct compare_params, fail_on_regression),
	  .help = "exit 3 when a group is a significant regression" },
	OPT_END_ROW,
};

static const char compare_usage[] = "[--by KEY] [--baseline VALUE] [filters] [options]";
static const char compare_description[] =
	"Group the stored samples (status ok, warm-ups excluded) by a key and compare every\n"
	"group with the baseline: median with its 95% CI, change with its 95% CI with boots\n"
	"as the units (a t interval on each boot's median; with one boot per group the\n"
	"verdict stays inconclusive), p-value, verdict against the margin, the change of\n"
	"every evidence counter per op (exploratory), and the environment keys that differ.\n"
	"Posted results (other tools' output brought in by 'wakebench import') are marked\n"
	"with their provenance and never pooled with measured ones; their runs count as one\n"
	"boot (where they ran is not known), one posted run gets no verdict, and keys the\n"
	"posted text lacks are unknown, not differences.";

/* ---- JSON (text and CSV: compare-text.c) ---- */

static void print_json(const struct compare *c)
{
	json_object *root = compare_json(c);

	json_print(stdout, root);
	json_object_put(root);
}

/* ---- the command ---- */

static int run_compare(struct store *st, const struct compare_params *p,
		       const struct store_filter *f, struct ctx *ctx)
{
	struct compare_request rq = { .by = p->by,
				      .baseline = p->baseline,
				      .margin = p->margin,
				      .pool = p->pool,
				      .filter = f,
				      .debugfs = cli_default_debugfs };
	struct compare c = { 0 };
	size_t i;
	int ret = compare_build(&c, st, &rq);

	if (ret != EXIT_OK)
		goto out;
	if (ctx->format == FMT_JSON)
		print_json(&c);
	else if (ctx->format == FMT_CSV)
		compare_print_csv(&c);
	else
		compare_print_text(&c);
	ret = EXIT_OK;
	if (p->fail_on_regression)
		for (i = 0; i < c.ngroups; i++)
			if (!c.groups[i].baseline && c.groups[i].verdict == VERDICT_REGRESSION)
				ret = EXIT_REGRESSION;
out:
	compare_release(&c);
	return ret;
}

int cmd_compare(int argc, const char **argv, struct ctx *ctx)
{
	struct compare_params p = compare_defaults;
	struct opt_group groups[] = {
		{ .title = "compare options",
		  .opts = compare_opts,
		  .base = &p,
		  .defaults = &compare_defaults },
		filter_group(&p.filter),
		cli_common_group_for(ctx, COMMON_DB | COMMON_FORMAT | COMMON_VERBOSITY,
				     (1u << FMT_TEXT) | (1u << FMT_JSON) | (1u << FMT_CSV)),
	};
	struct store_filter f = { 0 };
	struct opts_result res;
	struct store *st;
	int ret;

	cli_parse("compare", compare_usage, compare_description, groups, ARRAY_SIZE(groups), argc,
		  argv, 0, &res, ctx);
	cli_require_format("compare", ctx, 1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_CSV);
	if (res.npos) {
		const char *arg = res.pos[0];

		opts_result_release(&res);
		die_usage("compare: unexpected argument '%s' (see 'wakebench compare -h')", arg);
	}
	opts_result_release(&res);
	filter_resolve("compare", &p.filter, &f);
	json_c_set_serialization_double_format("%.15g", JSON_C_OPTION_GLOBAL);
	if (!(st = cli_store(ctx))) {
		opts_release(groups, ARRAY_SIZE(groups));
		return EXIT_RUNTIME;
	}
	ret = store_filter_check(st, &f, "compare") ? EXIT_USAGE : run_compare(st, &p, &f, ctx);
	store_filter_release(&f);
	opts_release(groups, ARRAY_SIZE(groups));
	return ret;
}
