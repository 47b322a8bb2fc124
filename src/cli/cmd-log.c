/*
 * cmd-log.c: `wakebench log`: what the store holds, one line per
 * experiment, newest first, as `git log --oneline` lists commits: id, date,
 * kind, workload, profile, label, kernel, host, the primary metric's
 * median (a run) or the first effect (an ab), and its verdict or what
 * makes it suspect. It parses, calls engine/log.c, renders (render/log.c).
 */
#include "cli/cli.h"
#include "cli/filter.h"
#include "engine/log.h"
#include "render/log.h"

#include <stddef.h>
#include <stdio.h>

struct log_params {
	struct filter_params filter;
	uint64_t max_count;
};

static const struct opt log_opts[] = {
	{ .type = OPT_UINT,
	  .long_name = "max-count",
	  .short_name = 'n',
	  .offset = offsetof(struct log_params, max_count),
	  .argh = "N",
	  .help = "only the N newest experiments (default: all)",
	  .min = 1 },
	OPT_END_ROW,
};

static const char log_usage[] = "[-n N] [filters] [--format text|json|csv]";
static const char log_description[] =
	"List the stored experiments, newest first: id, date, kind, workload, profile,\n"
	"label, kernel, host, the primary metric's median (a run) or the first effect (an\n"
	"ab), and its verdict or what makes it suspect (noisy, overloaded, interrupted).\n"
	"'wakebench show ID' prints one in full.";

int cmd_log(int argc, const char **argv, struct ctx *ctx)
{
	struct log_params p = { 0 };
	struct opt_group groups[] = {
		{ .title = "log options", .opts = log_opts, .base = &p },
		filter_group(&p.filter),
		cli_common_group_for(ctx, COMMON_DB | COMMON_FORMAT | COMMON_VERBOSITY,
				     (1u << FMT_TEXT) | (1u << FMT_JSON) | (1u << FMT_CSV)),
	};
	struct store_filter f = { 0 };
	struct opts_result res;
	struct store *st;
	struct log l;
	int ret = EXIT_OK;

	cli_parse("log", log_usage, log_description, groups, ARRAY_SIZE(groups), argc, argv, 0,
		  &res, ctx);
	cli_require_format("log", ctx, 1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_CSV);
	if (res.npos) {
		const char *arg = res.pos[0];

		opts_result_release(&res);
		die_usage("log: unexpected argument '%s' (filters are options, see 'wakebench log "
			  "-h')",
			  arg);
	}
	opts_result_release(&res);
	filter_resolve("log", &p.filter, &f);
	if (!(st = cli_store(ctx)))
		ret = EXIT_RUNTIME;
	else if (store_filter_check(st, &f, "log"))
		ret = EXIT_USAGE;
	else if (log_build(st, &f, (size_t)p.max_count, &l))
		ret = EXIT_RUNTIME;
	if (ret == EXIT_OK) {
		if (ctx->format == FMT_JSON)
			render_log_json(stdout, &l);
		else if (ctx->format == FMT_CSV)
			render_log_csv(stdout, &l);
		else
			render_log_text(stdout, &l);
		log_release(&l);
	}
	store_filter_release(&f);
	opts_release(groups, ARRAY_SIZE(groups));
	return ret;
}
