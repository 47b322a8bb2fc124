/*
 * cmd-report.c: `wakebench report [compare filters | EXP...] [-o FILE]`:
 * one shareable file of stored results: a self-contained HTML page with
 * the plots (report/html.c), or the text of a mail (--format email) or of
 * an issue (--format markdown).
 *
 * It computes nothing: compare_document() gives the table, the verdicts,
 * the evidence effects and the environment differences exactly as
 * `compare` computes them; rep_load() adds the stored samples for the
 * plots; export_json() gives the raw data that the HTML embeds, so that
 * `wakebench import report.html` merges it into another store. All of it
 * is read inside one read snapshot, so a run storing meanwhile cannot make
 * the plots disagree with the table.
 *
 * EXP... (ids or UUID prefixes) limits the report to those experiments;
 * without --by it then groups by what sets them apart: an `ab`'s feature,
 * else the kernel, the label or the host. Without either, experiments
 * that are all ab's of one feature are grouped by it (its two arms),
 * others by kernel.
 */
#include "engine/bisect.h"
#include "cli/cli.h"
#include "engine/compare.h"
#include "cli/filter.h"
#include "engine/report.h"
#include "engine/repro.h"
#include "store/store.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum report_format { REPORT_HTML, REPORT_EMAIL, REPORT_MARKDOWN };

static const char *const report_formats[] = { "html", "email", "markdown", NULL };

struct report_params {
	const char *by, *baseline, *output, *bisect;
	double margin;
	bool pool, no_data;
	int format;
	uint64_t data_limit;
	struct filter_params filter;
};

static const struct report_params report_defaults = {
	.margin = 0.02,
	.format = REPORT_HTML,
	.data_limit = 4ull << 20,
};

static const struct opt report_opts[] = {
	{ .type = OPT_STRING,
	  .long_name = "output",
	  .short_name = 'o',
	  .offset = offsetof(struct report_params, output),
	  .argh = "FILE",
	  .help = "write the report to FILE, whole or not at all (default: standard output)" },
	{ .type = OPT_CHOICE,
	  .long_name = "format",
	  .offset = offsetof(struct report_params, format),
	  .argh = "FORMAT",
	  .choices = report_formats,
	  .help = "html (plots, self-contained), email (plain text, 72 columns) or markdown" },
	{ .type = OPT_STRING,
	  .long_name = "by",
	  .offset = offsetof(struct report_params, by),
	  .argh = "KEY",
	  .help = "group by kernel|label|profile|host|feature:NAME, as compare (default: "
		  "kernel; the arms of one feature's ab when that is all there is; with EXP...: "
		  "what sets them apart)" },
	{ .type = OPT_STRING,
	  .long_name = "baseline",
	  .offset = offsetof(struct report_params, baseline),
	  .argh = "VALUE",
	  .help = "the group the others are compared with, as compare" },
	{ .type = OPT_PERCENT,
	  .long_name = "margin",
	  .offset = offsetof(struct report_params, margin),
	  .argh = "PCT",
	  .min = 0.0001,
	  .max = 1,
	  .help = "changes smaller than this are no change" },
	{ .type = OPT_FLAG,
	  .long_name = "pool",
	  .offset = offsetof(struct report_params, pool),
	  .help = "pool experiments that differ in a strong environment key, as compare" },
	{ .type = OPT_SIZE,
	  .long_name = "data-limit",
	  .offset = offsetof(struct report_params, data_limit),
	  .argh = "SIZE",
	  .help = "html: leave the raw data out (saying so) when its encoding would exceed SIZE; "
		  "0: no limit" },
	{ .type = OPT_STRING,
	  .long_name = "bisect",
	  .offset = offsetof(struct report_params, bisect),
	  .argh = "ID",
	  .help = "a stored bisection instead (a prefix of its id, or 'latest'): each step's "
		  "position between the references with its interval, and the result" },
	{ .type = OPT_FLAG,
	  .long_name = "no-data",
	  .offset = offsetof(struct report_params, no_data),
	  .help = "html: do not embed the raw data" },
	OPT_END_ROW,
};

static const char report_usage[] =
	"[filters | EXP...] [-o FILE] [--format html|email|markdown]\n"
	"   or: wakebench report --bisect ID|latest [-o FILE] [--format html|email|markdown]";
static const char report_description[] =
	"One shareable file of stored results: compare's table with its verdicts (the same\n"
	"numbers), and in HTML the plots: per group a box with the median's CI and every\n"
	"sample, the samples in run order, each change against the baseline with its CI and\n"
	"the margin, the evidence counters; then the environment differences, the commands\n"
	"that reproduce each experiment, and the raw data, which 'wakebench import FILE'\n"
	"merges into another store. Self-contained: no script, font or link outside it.\n"
	"Posted results (kind external, from 'wakebench import') have their own marked rows\n"
	"and a section with their provenance and the run that reproduces them here.";

/* To standard output, or to FILE whole or not at all (an older FILE stays as it was). */
static int write_out(const char *path, const struct sbuf *b)
{
	struct outfile of;

	if (!path) {
		if (b->len && fwrite(b->buf, 1, b->len, stdout) != b->len)
			return error_errno("report: cannot write 'standard output'");
		return 0;
	}
	if (outfile_open(&of, path, 0))
		return error_errno("report: option '-o': cannot create '%s'", path);
	if (write_full(of.fd, b->buf, b->len) != (ssize_t)b->len) {
		error_errno("report: cannot write '%s'", path);
		outfile_abort(&of);
		return -1;
	}
	if (outfile_commit(&of))
		return error_errno("report: cannot write '%s'", path);
	return 0;
}

static int make_report(struct store *st, const struct report_params *p,
		       const struct store_filter *f, const int64_t *ids, size_t nids,
		       struct ctx *ctx)
{
	struct compare_request rq = { .by = p->by,
				      .baseline = p->baseline,
				      .margin = p->margin,
				      .pool = p->pool,
				      .filter = f,
				      .only = ids,
				      .nonly = nids };
	struct rep r = { 0 };
	struct sbuf out = { 0 };
	json_object *doc;
	char *by = NULL, *cmdline = cli_cmdline(ctx);
	int ret;

	if (store_read_begin(st)) {
		free(cmdline);
		return EXIT_RUNTIME;
	}
	if (!rq.by)
		rq.by = by = nids ? rep_auto_by(st, ids, nids) : rep_default_by(st, f);
	ret = compare_document(st, &rq, &doc);
	if (ret != EXIT_OK)
		goto out;
	r.cmdline = cmdline;
	r.version = WAKEBENCH_VERSION;
	r.made_ns = realtime_ns();
	if (rep_load(st, doc, f, &r)) {
		ret = EXIT_RUNTIME;
		goto out;
	}
	if (p->format == REPORT_HTML)
		rep_embed_data(st, &r, p->no_data, p->data_limit, &ret);
	store_read_end(st);
	if (ret != EXIT_OK)
		goto done;
	if (p->format == REPORT_EMAIL)
		rep_email(&r, &out);
	else if (p->format == REPORT_MARKDOWN)
		rep_markdown(&r, &out);
	else
		rep_html(&r, &out);
	if (write_out(p->output, &out))
		ret = EXIT_RUNTIME;
	else if (p->output)
		info("report: wrote '%s' (%zu bytes, %zu samples)", p->output, out.len, r.nsamples);
	goto done;
out:
	store_read_end(st);
done:
	sbuf_release(&out);
	rep_release(&r);
	free(by);
	free(cmdline);
	return ret;
}

/* --bisect: the bisection bisect_document() reads, in the chosen format. */
static int bisect_report(struct store *st, const struct report_params *p, struct ctx *ctx)
{
	struct rep_bisect r = { .version = WAKEBENCH_VERSION, .made_ns = realtime_ns() };
	struct sbuf out = { 0 };
	char *raw = cli_cmdline(ctx), *cmdline = repro_command(raw, true);
	int ret;

	/* as the report's own reproducer: one line of sh, quoted, without this machine's paths */
	free(raw);
	ret = bisect_document(st, strcmp(p->bisect, "latest") ? p->bisect : NULL,
			      "report: option '--bisect'", cli_db_path(ctx), &r.doc);
	if (ret != EXIT_OK) {
		free(cmdline);
		return ret;
	}
	r.cmdline = cmdline;
	if (p->format == REPORT_EMAIL)
		rep_bisect_email(&r, &out);
	else if (p->format == REPORT_MARKDOWN)
		rep_bisect_markdown(&r, &out);
	else
		rep_bisect_html(&r, &out);
	if (write_out(p->output, &out))
		ret = EXIT_RUNTIME;
	else if (p->output)
		info("report: wrote '%s' (%zu bytes, a bisection)", p->output, out.len);
	sbuf_release(&out);
	json_object_put(r.doc);
	free(cmdline);
	return ret;
}

int cmd_report(int argc, const char **argv, struct ctx *ctx)
{
	struct report_params p = report_defaults;
	struct opt_group groups[] = {
		{ .title = "report options",
		  .opts = report_opts,
		  .base = &p,
		  .defaults = &report_defaults },
		filter_group(&p.filter),
		cli_common_group_for(ctx, COMMON_DB | COMMON_VERBOSITY, 0),
	};
	struct store_filter f = { 0 };
	struct opts_result res;
	struct store *st;
	int64_t *ids = NULL;
	size_t i;
	int ret;

	cli_parse("report", report_usage, report_description, groups, ARRAY_SIZE(groups), argc,
		  argv, 0, &res, ctx);
	if (p.output && !*p.output)
		die_usage("report: option '-o': an empty file name, allowed a path or no -o "
			  "(standard output)");
	if (p.bisect && (!*p.bisect || res.npos))
		die_usage(!*p.bisect ? "report: option '--bisect': an empty id, allowed a prefix "
				       "of a bisection's id or 'latest'"
				     : "report: option '--bisect': one bisection, not experiments "
				       "(EXP...); allowed --bisect ID alone or EXP... alone");
	filter_resolve("report", &p.filter, &f);
	json_c_set_serialization_double_format("%.15g", JSON_C_OPTION_GLOBAL);
	if (!(st = cli_store(ctx))) {
		opts_result_release(&res);
		opts_release(groups, ARRAY_SIZE(groups));
		return EXIT_RUNTIME;
	}
	if (store_filter_check(st, &f, "report")) {
		ret = EXIT_USAGE;
		goto out;
	}
	if (p.bisect) {
		ret = bisect_report(st, &p, ctx);
		goto out;
	}
	if (res.npos)
		ids = xcalloc(res.npos, sizeof(*ids));
	for (i = 0; i < res.npos; i++)
		if (store_find_experiment(st, res.pos[i], &ids[i])) {
			ret = EXIT_USAGE;
			goto out;
		}
	ret = make_report(st, &p, &f, ids, res.npos, ctx);
out:
	free(ids);
	store_filter_release(&f);
	opts_result_release(&res);
	opts_release(groups, ARRAY_SIZE(groups));
	return ret;
}
