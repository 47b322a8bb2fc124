/*
 * compare-text.c: `compare`'s text and CSV (cli/compare.h), rendered from
 * the engine's one result (struct compare, engine/compare.c): the report's
 * "Kernel | ops/s | vs. 6.6" table with n, boots, the CI of each median,
 * the change with its CI, the p-value and the verdict; the posted results
 * with their provenance; the inference behind each verdict; the change of
 * every evidence counter per op; the environment keys that differ from the
 * baseline, strongest first, and those a posted result did not give.
 */
#include "cli/compare.h"
#include "render/env.h"
#include "render/svg.h"
#include "util/json.h"
#include "util/number.h"
#include "util/text.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENV_LINES_PER_GRP 12
#define UNKNOWN_NAMED	  8	      /* keys a posted result lacks, named; the rest counted */
#define POSTED		  " (posted)" /* a group of posted results in the table */

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

/* The table's mark of posted results, unless the group's title says it already. */
static const char *posted_mark(const struct group *g)
{
	return g->nexternal && !(g->split && strstr(g->split, "source=posted")) ? POSTED : "";
}

static void print_table(const struct compare *c)
{
	const struct group *base = &c->groups[c->baseline];
	const char *unit = c->primary->unit;
	size_t i, w = strlen(by_title(c)), wv;
	char vs[160], what[96];
	int wm;

	for (i = 0; i < c->ngroups; i++)
		if (strlen(c->groups[i].shown) + strlen(posted_mark(&c->groups[i])) > w)
			w = strlen(c->groups[i].shown) + strlen(posted_mark(&c->groups[i]));
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
			verdict[512], name[1024];

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
		} else if (isfinite(g->point)) {
			/* a posted run: the medians' ratio as a point, no interval */
			fmt_pct(g->point, chg, sizeof(chg));
			snprintf(cci, sizeof(cci), "no interval");
		}
		compare_verdict_text(c, g, verdict, sizeof(verdict));
		snprintf(name, sizeof(name), "%s%s", g->shown, posted_mark(g));
		/* a posted group's verdict quotes its stored tool and version: escaped */
		text_line(stdout, "%-*s %5zu %5zu %*s  %-25s %*s  %-18s %8s  %s", (int)w, name,
			  g->n, g->nboots, wm, med, ci, (int)wv, chg, cci, p, verdict);
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

/*
 * The keys a posted side did not give: unknown, not different. The
 * strongest are named, the rest counted.
 */
static void print_unknown(const struct group *base, const struct group *g)
{
	struct sbuf b = { 0 };
	size_t k;

	if (!g->nunknown)
		return;
	for (k = 0; k < g->nunknown && k < UNKNOWN_NAMED; k++)
		sbuf_addf(&b, "%s%s", k ? ", " : "", g->unknown[k].key);
	if (g->nunknown > UNKNOWN_NAMED)
		sbuf_addf(&b, " and %zu more", g->nunknown - UNKNOWN_NAMED);
	printf("    unknown  ");
	text_fold(stdout, b.buf, 13, 13, 100);
	printf("\n             (not in %s's posted text: unknown, not counted as differences)\n",
	       base->env_posted ? "the baseline" : "this group");
	sbuf_release(&b);
}

static void print_env_diffs(const struct compare *c)
{
	const struct group *base = &c->groups[c->baseline];
	bool header = false;
	size_t i, k;

	for (i = 0; i < c->ngroups; i++) {
		const struct group *g = &c->groups[i];
		const struct env_delta *d = g->envd;
		size_t nd = g->nenvd, shown = 0, hidden = 0;

		if (g->baseline)
			continue;
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
				       ? g->nunknown
						 ? "none in the keys both sides know"
						 : "none (apart from per-run keys such as the load)"
				       : "fingerprint not recorded");
		if (hidden)
			printf("    ... %zu more: wakebench env --diff %lld %lld\n", hidden,
			       (long long)base->first_exp, (long long)g->first_exp);
		print_unknown(base, g);
	}
}

/* Each group of posted results: where it came from, and the profile that reproduces it. */
static void print_posted(const struct compare *c)
{
	bool header = false;
	size_t i;

	for (i = 0; i < c->ngroups; i++) {
		const struct group *g = &c->groups[i];
		const struct external_origin *x = &g->ext;

		if (!g->nexternal)
			continue;
		if (!header)
			printf("\nPosted results (imported from another tool's output, not "
			       "measured "
			       "here):\n");
		header = true;
		text_line(stdout, "  %s: %s", g->shown, x->note);
		if (x->cmdline || x->args)
			text_line(stdout, "    %s %s", x->cmdline ? "command" : "args   ",
				  x->cmdline ? x->cmdline : x->args);
		if (x->format || x->source)
			text_line(stdout, "    from    %s%s%s", x->source ? x->source : "",
				  x->source && x->format ? ", " : "", x->format ? x->format : "");
		text_line(stdout, "    profile %s", x->profile ? x->profile : "none reproduces it");
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
		text_line(stdout, "  %s: %s", g->shown, line);
	}
}

void compare_print_text(const struct compare *c)
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
	print_posted(c);
	if (c->ngroups > 1)
		print_inference(c);
	print_evidence(c);
	print_env_diffs(c);
	if (c->nnotes)
		putchar('\n');
	for (i = 0; i < c->nnotes; i++)
		text_line(stdout, "note: %s", c->notes[i]);
}

void compare_print_csv(const struct compare *c)
{
	size_t i;

	printf("group,split,baseline,n,median,median_ci_lo,median_ci_hi,change,change_ci_lo,"
	       "change_ci_hi,p,verdict,boots,unit,level,metric,better,posted\n");
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
		/* posted results: "stress-ng 0.21.00, 1 run, not measured here"; empty when
		 * measured */
		csv_field(stdout, g->nexternal ? g->ext.note : NULL, false);
		fputc('\n', stdout);
	}
}
