/*
 * cmd-show.c: `wakebench show EXP`: one stored experiment in full: its
 * provenance (command line, version, parameters, times, status), its
 * configs, its environment fingerprint by impact (with the keys that
 * changed between start and end), and every sample with every metric,
 * including failed samples with their reason and unavailable metrics with
 * theirs. `--format json` prints the same document as `export --format json`
 * restricted to this experiment. Stored text may come from another machine
 * or a guest: the text output shows its control characters as escapes
 * (util/text.h); JSON keeps it exact.
 */
#include "cli/cli.h"
#include "engine/export.h"
#include "core/metrics.h"
#include "engine/ab.h"
#include "render/ab.h"
#include "store/store.h"
#include "util/number.h"
#include "util/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char show_usage[] = "[EXP] [--format text|json]";
static const char show_description[] =
	"Print one stored experiment in full: provenance, configs, environment and every\n"
	"sample with its metrics. EXP is an experiment id or a prefix of its UUID; without\n"
	"it, the newest. 'wakebench log' lists them.";

static void format_time(uint64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000ull);
	struct tm tm;

	if (!ns || !localtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S %Z", &tm))
		snprintf(buf, len, "-");
}

/* "  %-12s %s\n" with the value made safe to print; NULL prints dflt. */
static void field(const char *name, const char *value, const char *dflt)
{
	printf("  %-12s ", name);
	text_fput(stdout, value ? value : dflt, 0);
	putchar('\n');
}

/* printf's "%-*s" of stored text, made safe to print. */
static void padded(const char *text, int width)
{
	char *t = text_printable(text, 0);

	printf("%-*s", width, t);
	free(t);
}

static void print_env(struct store *st, int64_t exp_id)
{
	struct env start = { 0 }, end = { 0 };
	size_t i;
	int impact;

	if (store_load_env(st, exp_id, "start", &start) || store_load_env(st, exp_id, "end", &end))
		goto out;
	if (!start.n && !end.n) {
		printf("\nenvironment: not recorded\n");
		goto out;
	}
	printf("\nenvironment (at the start; '->' the value at the end where it changed):\n");
	for (impact = IMPACT_STRONG; impact <= IMPACT_RUN; impact++) {
		bool header = false;

		for (i = 0; i < start.n; i++) {
			const char *later;

			if ((int)start.e[i].impact != impact)
				continue;
			if (!header) {
				printf("  %s:\n", env_impact_name((enum impact)impact));
				header = true;
			}
			later = env_get(&end, start.e[i].key);
			fputs("    ", stdout);
			padded(start.e[i].key, 32);
			putchar(' ');
			text_fput(stdout, start.e[i].value, 0);
			if (later && strcmp(later, start.e[i].value)) {
				fputs(" -> ", stdout);
				text_fput(stdout, later, 0);
			}
			putchar('\n');
		}
		/* keys only recorded at the end */
		for (i = 0; i < end.n; i++) {
			if ((int)end.e[i].impact != impact || env_get(&start, end.e[i].key))
				continue;
			if (!header) {
				printf("  %s:\n", env_impact_name((enum impact)impact));
				header = true;
			}
			fputs("    ", stdout);
			padded(end.e[i].key, 32);
			fputs(" (end) ", stdout);
			text_fput(stdout, end.e[i].value, 0);
			putchar('\n');
		}
	}
out:
	env_release(&start);
	env_release(&end);
}

struct show_state {
	size_t n;
	const char *workload;
};

/* A sample: the fixed fields in a row, then each metric by its name and the one formatter. */
static int print_sample(void *arg, const struct store_row *row)
{
	struct show_state *ss = arg;
	const struct sample *s = row->s;
	char ops[32], real[32], usr[32], sys[32], rate[32], cpu_rate[32], title[96],
		why[METRIC_WHY_MAX + 16];
	size_t i;

	if (!ss->n++)
		printf("\nsamples (rates: %s, %s):\n  %5s %-16s %-11s %6s %12s %10s %10s %10s "
		       "%12s %12s\n",
		       metric_title_of("ops_per_s", ss->workload, rate, sizeof(rate)),
		       metric_title_of("ops_per_cpu_s", ss->workload, cpu_rate, sizeof(cpu_rate)),
		       "index", "config", "status", "warmup", "ops", "real", "usr", "sys",
		       "real rate", "CPU rate");
	fmt_count(s->ops, ops, sizeof(ops));
	fmt_time(s->real_s, real, sizeof(real));
	fmt_time(s->usr_s, usr, sizeof(usr));
	fmt_time(s->sys_s, sys, sizeof(sys));
	fmt_num(s->ops_per_s, rate, sizeof(rate));
	fmt_num(s->ops_per_cpu_s, cpu_rate, sizeof(cpu_rate));
	printf("  %5u ", s->index);
	padded(row->cfg ? row->cfg->name : "?", 16);
	printf(" %-11s %6s %12s %10s %10s %10s %12s %12s\n", sample_status_name(s->status),
	       s->warmup ? "yes" : "no", ops, real, usr, sys, rate, cpu_rate);
	if (s->reason[0]) {
		fputs("        reason: ", stdout);
		text_fput(stdout, s->reason, 0);
		putchar('\n');
	}
	for (i = 0; i < s->nmetrics; i++) {
		const struct metric *m = &s->metrics[i];
		const struct metric_def *d = metric_def(m->name);

		fputs("        ", stdout);
		padded(metric_title_of(m->name, ss->workload, title, sizeof(title)), 28);
		if (m->available) {
			/* a raw sum of events is a count: exact, as ops */
			if (d && d->agg == AGG_SUM && !d->unit[0] && m->value >= 0 &&
			    m->value < 1e19 && m->value == floor(m->value))
				fmt_count((uint64_t)m->value, rate, sizeof(rate));
			else
				fmt_value(m->value, d ? d->unit : "", rate, sizeof(rate));
			printf(" %s\n", rate);
		} else {
			fputc(' ', stdout);
			text_fput(stdout, metric_why_text(m->why, why, sizeof(why)), 0);
			fputc('\n', stdout);
		}
	}
	return 0;
}

/* The workload's primary metric, as the registry defines it. */
static void print_primary(const char *workload)
{
	const struct metric_def *p = metric_primary(workload);
	char title[96];

	printf("  %-12s %s (stored as %s; %s is better)\n", "primary",
	       metric_title(p, workload, title, sizeof(title)), p->name,
	       metric_better_name(p->better));
}

/* An ab's result, as `ab` printed it when it ran (engine/ab.c, render/ab.c). */
static void print_ab(struct store *st, const struct store_experiment *e)
{
	const struct metric_def *pm = metric_primary(e->workload);
	struct ab_stored ab;
	char why[256], title[64];

	if (ab_load(st, e, &ab, why, sizeof(why))) {
		/* the reason may quote stored text (a kind, a parameter) */
		putchar('\n');
		text_line(stdout, "result: not computed: %s", why);
		return;
	}
	metric_title(pm, e->workload, title, sizeof(title));
	render_ab_text(stdout, &ab.r, title, !strcmp(e->status, "interrupted"));
	ab_stored_release(&ab);
}

static int show_text(struct store *st, int64_t exp_id)
{
	const struct store_experiment *ab;
	struct store_filter f = { .exp_id = exp_id };
	struct store_experiment *e;
	struct store_config *cfgs;
	struct show_state ss = { 0 };
	size_t n, ncfg, i;
	char started[64], ended[64];

	if (store_list_experiments(st, &f, &e, &n))
		return EXIT_RUNTIME;
	if (n != 1) {
		store_experiments_free(e, n);
		error("experiment %lld vanished from the store", (long long)exp_id);
		return EXIT_RUNTIME;
	}
	format_time(e->started_ns, started, sizeof(started));
	format_time(e->ended_ns, ended, sizeof(ended));
	printf("experiment %lld  ", (long long)e->id);
	text_fput(stdout, e->uuid, 0);
	putchar('\n');
	field("status", e->status, "");
	field("kind", e->kind, "");
	field("workload", e->workload, "");
	print_primary(e->workload);
	field("profile", e->profile, "-");
	field("label", e->label, "-");
	field("host", e->host, "-");
	field("kernel", e->kernel, "-");
	field("wakebench", e->version, "-");
	field("command", e->cmdline, "-");
	field("parameters", e->params_json, "-");
	printf("  %-12s %s\n", "started", started);
	if (e->ended_ns > e->started_ns) {
		char dur[32];

		format_duration(e->ended_ns - e->started_ns, dur, sizeof(dur));
		printf("  %-12s %s (after %s)\n", "ended", ended, dur);
	} else {
		printf("  %-12s -\n", "ended");
	}
	printf("  %-12s %lld\n", "samples", (long long)e->nsamples);
	ab = !strcmp(e->kind, "ab") ? e : NULL;

	if (store_list_configs(st, &f, &cfgs, &ncfg)) {
		store_experiments_free(e, n);
		return EXIT_RUNTIME;
	}
	printf("\nconfigs:\n");
	for (i = 0; i < ncfg; i++) {
		fputs("  ", stdout);
		padded(cfgs[i].name, 20);
		fputs(" features: ", stdout);
		text_fput(stdout, cfgs[i].features ? cfgs[i].features : "unknown", 0);
		putchar('\n');
	}
	store_configs_free(cfgs, ncfg);

	print_env(st, exp_id);
	ss.workload = e->workload;
	if (store_foreach_sample(st, &f, 0, print_sample, &ss)) {
		store_experiments_free(e, n);
		return EXIT_RUNTIME;
	}
	if (!ss.n)
		printf("\nsamples: none stored\n");
	if (ab)
		print_ab(st, ab);
	store_experiments_free(e, n);
	return EXIT_OK;
}

/* The experiment as `export` writes it, its result included. */
static int show_json(struct store *st, int64_t exp_id)
{
	struct store_filter f = { .exp_id = exp_id };
	struct store_experiment *e;
	struct store_config *cfgs;
	size_t n, ncfg;
	int ret;

	if (store_read_begin(st))
		return EXIT_RUNTIME;
	if (store_list_experiments(st, &f, &e, &n)) {
		store_read_end(st);
		return EXIT_RUNTIME;
	}
	if (store_list_configs(st, &f, &cfgs, &ncfg)) {
		store_experiments_free(e, n);
		store_read_end(st);
		return EXIT_RUNTIME;
	}
	ret = export_json(stdout, st, e, n, cfgs, ncfg) ? EXIT_RUNTIME : EXIT_OK;
	store_configs_free(cfgs, ncfg);
	store_experiments_free(e, n);
	store_read_end(st);
	return ret;
}

/* The newest experiment (as `git show` shows HEAD); -1 after saying the store has none. */
static int newest(struct store *st, int64_t *exp_id)
{
	struct store_experiment *v;
	size_t n;

	if (store_list_experiments(st, NULL, &v, &n))
		return -1;
	*exp_id = n ? v[n - 1].id : 0;
	store_experiments_free(v, n);
	return n ? 0 : error("show: no experiment is stored yet ('wakebench run' stores one)");
}

int cmd_show(int argc, const char **argv, struct ctx *ctx)
{
	struct opt_group groups[] = { cli_common_group_for(
		ctx, COMMON_DB | COMMON_FORMAT | COMMON_VERBOSITY,
		(1u << FMT_TEXT) | (1u << FMT_JSON)) };
	struct opts_result res;
	struct store *st;
	int64_t exp_id;
	int ret;

	cli_parse("show", show_usage, show_description, groups, ARRAY_SIZE(groups), argc, argv, 0,
		  &res, ctx);
	cli_require_format("show", ctx, 1u << FMT_TEXT | 1u << FMT_JSON);
	if (res.npos > 1) {
		opts_result_release(&res);
		die_usage("show: give one experiment (an id or a UUID prefix; none: the newest), "
			  "e.g. 'wakebench show 3'; 'wakebench log' lists them");
	}
	if (!(st = cli_store(ctx)))
		ret = EXIT_RUNTIME;
	else if (!res.npos ? newest(st, &exp_id) : store_find_experiment(st, res.pos[0], &exp_id))
		/* an unknown experiment is bad input, like an unknown filter value */
		ret = EXIT_USAGE;
	else
		ret = ctx->format == FMT_JSON ? show_json(st, exp_id) : show_text(st, exp_id);
	opts_result_release(&res);
	return ret;
}
