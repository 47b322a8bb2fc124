/*
 * cmd-compare.c: `wakebench compare`: stored results grouped by a key
 * (kernel, label, profile, host, or a scheduler feature's state), each group
 * against a baseline: the report's "Kernel | ops/s | vs. 6.6" table with n,
 * the CI of each median, the change with its CI, the p-value and the
 * verdict, then the change of every evidence counter per op, then the
 * environment keys that differ from the baseline, strongest first.
 *
 * It parses, calls the engine (engine/compare.c: grouping, boots as
 * units, the statistics and their words) and renders its one result:
 * text here, JSON from compare_json(), CSV here. Each group row says its
 * samples and boots; the inference section says which unit each verdict
 * rests on and, with one unit per group, that the variation between them
 * is unknown and how to get more.
 */
#include "cli/cli.h"
#include "cli/filter.h"
#include "engine/compare.h"
#include "render/env.h"
#include "util/json.h"
#include "util/number.h"
#include "util/text.h"

#include <json-c/json.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENV_LINES_PER_GRP 12

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
	"every evidence counter per op (exploratory), and the environment keys that differ.";

static const char *by_title(const struct compare *c)
{
	switch (c->by) {
	case BY_KERNEL:
		return "Kernel";
	case BY_LABEL:
		return "Label";
	case BY_PROFILE:
		return "Profile";
	case BY_HOST:
		return "Host";
	case BY_FEATURE:
		return c->feature;
	}
	return "";
}

/* The primary metric as every text names it: "bogo ops/s (real time)". */
static const char *primary_title(const struct compare *c, char *buf, size_t len)
{
	return metric_title(c->primary, c->workload, buf, len);
}

static void print_table(const struct compare *c)
{
	const struct group *base = &c->groups[c->baseline];
	const char *unit = c->primary->unit;
	size_t i, w = strlen(by_title(c)), wv;
	char vs[160], what[96];
	int wm;

	for (i = 0; i < c->ngroups; i++)
		if (strlen(c->groups[i].shown) > w)
			w = strlen(c->groups[i].shown);
	w += 2;
	snprintf(vs, sizeof(vs), "vs. %s", base->shown);
	wv = strlen(vs) > 9 ? strlen(vs) : 9;
	primary_title(c, what, sizeof(what));
	wm = strlen(what) > 18 ? (int)strlen(what) : 18;
	printf("%-*s %5s %5s %*s  %-25s %*s  %-18s %8s  %s\n", (int)w, by_title(c), "n", "boots",
	       wm, what, "95% CI of median", (int)wv, vs, "95% CI of change", "p", "verdict");
	for (i = 0; i < c->ngroups; i++) {
		const struct group *g = &c->groups[i];
		char med[32], lo[32], hi[32], ci[80], chg[32], cl[32], ch[32], cci[80], p[32],
			verdict[320];

		fmt_value(g->sum.median, unit, med, sizeof(med));
		if (g->sum.ci_valid) {
			fmt_value(g->sum.ci_lo, unit, lo, sizeof(lo));
			fmt_value(g->sum.ci_hi, unit, hi, sizeof(hi));
			snprintf(ci, sizeof(ci), "[%s, %s]", lo, hi);
		} else {
			snprintf(ci, sizeof(ci), "n too small");
		}
		chg[0] = cci[0] = p[0] = '\0';
		if (g->baseline) {
			snprintf(chg, sizeof(chg), "100%%");
		} else if (g->eff.valid) {
			fmt_pct(g->eff.est, chg, sizeof(chg));
			fmt_pct(g->eff.lo, cl, sizeof(cl));
			fmt_pct(g->eff.hi, ch, sizeof(ch));
			snprintf(cci, sizeof(cci), "[%s, %s]", cl, ch);
			/* within-boot p between one boot each would claim what the verdict does not
			 */
			if (g->beff.level == EFFECT_LEVEL_ONE_BOOT)
				snprintf(p, sizeof(p), "-");
			else
				fmt_p(g->eff.p, p, sizeof(p));
		}
		compare_verdict_text(c, g, verdict, sizeof(verdict));
		printf("%-*s %5zu %5zu %*s  %-25s %*s  %-18s %8s  %s\n", (int)w, g->shown, g->n,
		       g->nboots, wm, med, ci, (int)wv, chg, cci, p, verdict);
	}
}

static void print_evidence(const struct compare *c)
{
	const struct group *base = &c->groups[c->baseline];
	bool header = false;
	size_t i, k;

	for (i = 0; i < c->ngroups; i++) {
		const struct group *g = &c->groups[i];

		if (g->baseline || !g->nevc)
			continue;
		if (!header) {
			printf("\nEvidence per op vs. %s (median of each group, change with its CI "
			       "on the units of the group's change: exploratory, no verdicts):\n",
			       base->shown);
			header = true;
		}
		printf("  %s (%s)\n", g->shown, compare_unit_name(g->unit, true));
		for (k = 0; k < g->nevc; k++) {
			const struct ev_change *x = &g->evc[k];
			const struct metric_def *d = metric_def(x->name);
			char chg[32], lo[32], hi[32], a[48], b[48], title[96];

			fmt_value(x->base_median, d ? d->unit : "", a, sizeof(a));
			fmt_value(x->median, d ? d->unit : "", b, sizeof(b));
			printf("    %-26s %10s -> %-10s ",
			       metric_title_of(x->name, c->workload, title, sizeof(title)), a, b);
			if (!x->e.valid) {
				printf("change n/a: %s\n",
				       x->e.why ? x->e.why : "insufficient samples");
				continue;
			}
			fmt_pct(x->e.est, chg, sizeof(chg));
			fmt_pct(x->e.lo, lo, sizeof(lo));
			fmt_pct(x->e.hi, hi, sizeof(hi));
			printf("%7s [%s, %s]", chg, lo, hi);
			if (!isnan(x->p_adjusted)) {
				fmt_p(x->p_adjusted, lo, sizeof(lo));
				printf(" Holm p %s%s", lo[0] == '<' ? "" : "= ", lo);
			}
			putchar('\n');
		}
	}
}

static void print_env_diffs(const struct compare *c)
{
	const struct group *base = &c->groups[c->baseline];
	bool header = false;
	size_t i, k;

	for (i = 0; i < c->ngroups; i++) {
		const struct group *g = &c->groups[i];
		struct env_delta *d;
		size_t nd, shown = 0, hidden = 0;

		if (g->baseline)
			continue;
		nd = env_diff(base->env, g->env, &d);
		if (!header) {
			printf("\nEnvironment differences vs. %s (strongest first; experiment %lld "
			       "vs. the first of each group):\n",
			       base->shown, (long long)base->first_exp);
			header = true;
		}
		printf("  %s (experiment %lld):\n", g->shown, (long long)g->first_exp);
		for (k = 0; k < nd; k++) {
			if (d[k].impact == IMPACT_RUN)
				continue;
			if (shown == ENV_LINES_PER_GRP) {
				hidden++;
				continue;
			}
			render_env_delta(stdout, &d[k]);
			shown++;
		}
		if (!shown)
			printf("    %s\n",
			       base->env->n && g->env->n
				       ? "none (apart from per-run keys such as the load)"
				       : "fingerprint not recorded");
		if (hidden)
			printf("    ... %zu more: wakebench env --diff %lld %lld\n", hidden,
			       (long long)base->first_exp, (long long)g->first_exp);
		free(d);
	}
}

static void print_inference(const struct compare *c)
{
	char line[1024];
	size_t i;

	printf("\nInference (the unit of replication is the boot: an experiment, or the "
	       "experiments of one boot or vm round):\n");
	for (i = 0; i < c->ngroups; i++) {
		const struct group *g = &c->groups[i];

		if (g->baseline)
			continue;
		compare_inference_text(c, g, line, sizeof(line));
		printf("  %s: %s\n", g->shown, line);
	}
}

static void print_text(const struct compare *c)
{
	size_t i;
	char what[96];

	/* the workload is stored text: one line, control characters escaped */
	text_line(stdout,
		  "%s %s by %s%s: samples with status ok (warm-ups excluded), 95%% confidence, "
		  "margin %g%%, boots as units",
		  c->workload, primary_title(c, what, sizeof(what)), c->by_name,
		  c->primary->better < 0 ? " (lower is better)" : "", c->margin * 100.0);
	putchar('\n');
	print_table(c);
	if (c->ngroups > 1)
		print_inference(c);
	print_evidence(c);
	print_env_diffs(c);
	if (c->nnotes)
		putchar('\n');
	for (i = 0; i < c->nnotes; i++)
		text_line(stdout, "note: %s", c->notes[i]);
}

/* ---- JSON and CSV ---- */

static void print_json(const struct compare *c)
{
	json_object *root = compare_json(c);

	json_print(stdout, root);
	json_object_put(root);
}

static void print_csv(const struct compare *c)
{
	size_t i;

	printf("group,split,baseline,n,median,median_ci_lo,median_ci_hi,change,change_ci_lo,"
	       "change_ci_hi,p,verdict,boots,unit,level,metric,better\n");
	for (i = 0; i < c->ngroups; i++) {
		const struct group *g = &c->groups[i];
		bool eff = !g->baseline && g->eff.valid;

		csv_field(stdout, g->value, true);
		csv_field(stdout, g->split, false);
		printf(",%d,%zu", g->baseline ? 1 : 0, g->n);
		csv_number(stdout, g->sum.median);
		csv_number(stdout, g->sum.ci_valid ? g->sum.ci_lo : NAN);
		csv_number(stdout, g->sum.ci_valid ? g->sum.ci_hi : NAN);
		csv_number(stdout, eff ? g->eff.est : NAN);
		csv_number(stdout, eff ? g->eff.lo : NAN);
		csv_number(stdout, eff ? g->eff.hi : NAN);
		csv_number(stdout, eff ? g->eff.p : NAN);
		csv_field(stdout, g->baseline ? "baseline" : stats_verdict_name(g->verdict), false);
		printf(",%zu", g->nboots);
		csv_field(stdout, g->baseline ? NULL : compare_unit_name(g->unit, false), false);
		csv_field(stdout, g->baseline ? NULL : stats_effect_level_key(g->beff.level),
			  false);
		csv_field(stdout, c->primary->name, false);
		csv_field(stdout, metric_better_name(c->primary->better), false);
		fputc('\n', stdout);
	}
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
		print_csv(&c);
	else
		print_text(&c);
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
