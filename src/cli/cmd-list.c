/*
 * cmd-list.c: `wakebench list`: the workloads, their profiles (with the
 * values each profile sets), their metrics (the primary one marked) and
 * every option with its default and range; `list --metrics` the whole
 * metric registry. Everything is rendered from the same option tables that
 * parse the options and the registry that producers and consumers use, so
 * what is listed cannot drift from what is accepted or measured; the
 * workload and metric lists of doc/commands.md are generated from this output.
 */
#include "cli/cli.h"
#include "render/metrics.h"
#include "cli/experiment.h"
#include "engine/summary.h"
#include "render/results.h"
#include "core/metrics.h"
#include "runner/probes.h"

#include <stdlib.h>
#include <string.h>

static const char list_usage[] = "[--workloads | --metrics] [options]";
static const char list_description[] =
	"List the workloads, their profiles and the values each profile sets, their metrics\n"
	"(* the primary one), and every option of 'run' with its default and allowed range.\n"
	"--metrics lists every metric wakebench records, --workloads the workloads only.";

struct list_params {
	bool metrics, workloads;
};

static const struct list_params list_defaults;

static const struct opt list_opts[] = {
	{ .type = OPT_FLAG,
	  .long_name = "metrics",
	  .offset = offsetof(struct list_params, metrics),
	  .help = "every metric: name, label, unit, direction, kind, source, what it is" },
	{ .type = OPT_FLAG,
	  .long_name = "workloads",
	  .offset = offsetof(struct list_params, workloads),
	  .help = "the workloads, their profiles and metrics, without the options" },
	OPT_END_ROW,
};

/*
 * A workload's metrics: its primary (marked *), then its own; every
 * workload also records the common metrics of `list --metrics`.
 */
static void workload_metrics_text(const struct workload *wl)
{
	const struct metric_def *p = metric_primary(wl->name), *d;

	printf("    metrics (* primary; every workload also records the common metrics of "
	       "'list --metrics'):\n");
	render_metric_line(stdout, wl->name, "* ", p);
	for (d = wl->metrics; d && d->name; d++)
		if (d != p)
			render_metric_line(stdout, wl->name, "  ", d);
}

static const char *type_name(enum opt_type t)
{
	switch (t) {
	case OPT_FLAG:
		return "flag";
	case OPT_UINT:
		return "uint";
	case OPT_DOUBLE:
		return "number";
	case OPT_PERCENT:
		return "percent";
	case OPT_DURATION:
		return "duration";
	case OPT_SIZE:
		return "size";
	case OPT_CHOICE:
		return "choice";
	case OPT_STRING:
		return "string";
	case OPT_STRLIST:
		return "list";
	case OPT_END:
		break;
	}
	return "?";
}

/* "data-size=512 pipe-size=0 no-packet=off": what a profile sets. */
static void print_profile_values(const struct workload *wl, const struct profile *p)
{
	const struct opt *o;
	char v[128];

	printf("        sets:");
	for (o = wl->opts; o->type != OPT_END; o++) {
		if (o->flags & OPT_HIDDEN || o->type == OPT_STRLIST)
			continue;
		opts_format_value(o, p->params, v, sizeof(v));
		printf(" --%s=%s", o->long_name, v[0] ? v : "(none)");
	}
	printf("\n");
}

static void list_text(struct opt_group *common, size_t ncommon, bool with_options)
{
	struct run_params rp;
	size_t i;

	printf("workloads:\n");
	for (i = 0; workloads[i]; i++) {
		const struct workload *wl = workloads[i];
		const struct profile *p;
		struct opt_group g = { .opts = wl->opts, .defaults = wl->defaults };
		const struct metric_def *pm = metric_primary(wl->name);
		char title[96], unit[64];

		printf("\n  %s: %s\n", wl->name, wl->summary);
		experiment_runner_defaults(wl, &rp);
		printf("    one op: %s; primary metric: %s (%s is better); ", wl->op_name,
		       metric_title(pm, wl->name, unit, sizeof(unit)),
		       metric_better_name(pm->better));
		if (wl->tasks_help)
			printf("tasks per instance: %s; ", wl->tasks_help);
		else
			printf("%u task%s per instance; ", wl->tasks(wl->defaults),
			       wl->tasks(wl->defaults) == 1 ? "" : "s");
		printf("-j defaults to %llu\n", (unsigned long long)rp.instances);
		if (wl->profiles && wl->profiles[0].name) {
			int width = 0;

			for (p = wl->profiles; p->name; p++)
				if ((int)strlen(p->name) > width)
					width = (int)strlen(p->name);
			printf("    profiles (--profile):\n");
			for (p = wl->profiles; p->name; p++) {
				bool def = wl->default_profile &&
					   !strcmp(wl->default_profile, p->name);

				printf("      %-*s  %s%s\n", width, p->name, p->summary,
				       def ? " (default)" : "");
				print_profile_values(wl, p);
			}
		}
		workload_metrics_text(wl);
		if (!with_options)
			continue;
		snprintf(title, sizeof(title), "  workload options (%s)", wl->name);
		g.title = title;
		opts_print_help(stdout, &g, 1);
	}
	if (with_options)
		opts_print_help(stdout, common, ncommon);
}

static json_object *options_json(const struct opt_group *g)
{
	json_object *a = json_object_new_array();
	const struct opt *o;

	for (o = g->opts; o->type != OPT_END; o++) {
		json_object *e;
		char buf[256];

		if (o->flags & OPT_HIDDEN)
			continue;
		e = json_object_new_object();
		json_object_object_add(e, "name", json_object_new_string(o->long_name));
		if (o->short_name) {
			char s[2] = { (char)o->short_name, '\0' };

			json_object_object_add(e, "short", json_object_new_string(s));
		}
		json_object_object_add(e, "type", json_object_new_string(type_name(o->type)));
		if (o->help)
			json_object_object_add(e, "help", json_object_new_string(o->help));
		if (g->defaults && o->type != OPT_STRLIST) {
			opts_format_value(o, g->defaults, buf, sizeof(buf));
			json_object_object_add(e, "default",
					       buf[0] ? json_object_new_string(buf) : NULL);
		}
		opts_format_allowed(o, buf, sizeof(buf));
		if (buf[0])
			json_object_object_add(e, "allowed", json_object_new_string(buf));
		json_object_array_add(a, e);
	}
	return a;
}

static void list_json(struct opt_group *common, size_t ncommon)
{
	json_object *o = json_object_new_object(), *wls = json_object_new_array(),
		    *groups = json_object_new_array();
	struct run_params rp;
	size_t i;

	for (i = 0; workloads[i]; i++) {
		const struct workload *wl = workloads[i];
		json_object *w = json_object_new_object(), *profs = json_object_new_array();
		struct opt_group g = { .title = "workload options",
				       .opts = wl->opts,
				       .defaults = wl->defaults };
		const struct profile *p;
		void *copy = xmalloc(wl->params_size);

		json_object_object_add(w, "name", json_object_new_string(wl->name));
		json_object_object_add(w, "summary", json_object_new_string(wl->summary));
		json_object_object_add(w, "op", json_object_new_string(wl->op_name));
		json_object_object_add(w, "tasks_per_instance",
				       json_object_new_int64(wl->tasks(wl->defaults)));
		experiment_runner_defaults(wl, &rp);
		json_object_object_add(w, "default_instances",
				       json_object_new_int64((int64_t)rp.instances));
		json_object_object_add(w, "default_duration_ns",
				       json_object_new_uint64(rp.duration_ns));
		json_object_object_add(w, "fixed_work", json_object_new_boolean(wl->fixed_work));
		json_object_object_add(
			w, "default_profile",
			wl->default_profile ? json_object_new_string(wl->default_profile) : NULL);
		{
			const struct metric_def *pm = metric_primary(wl->name), *d;
			json_object *ms = json_object_new_array();
			char unit[64];

			json_object_object_add(w, "primary", json_object_new_string(pm->name));
			json_object_object_add(w, "unit",
					       json_object_new_string(metric_unit(
						       pm, wl->name, unit, sizeof(unit))));
			json_object_object_add(
				w, "better",
				json_object_new_string(metric_better_name(pm->better)));
			json_object_array_add(ms, render_metric_json(pm));
			for (d = wl->metrics; d && d->name; d++)
				if (d != pm)
					json_object_array_add(ms, render_metric_json(d));
			json_object_object_add(w, "metrics", ms);
		}
		for (p = wl->profiles; p && p->name; p++) {
			json_object *pj = json_object_new_object();
			struct opt_group pg = { .opts = wl->opts, .base = copy };

			memcpy(copy, p->params, wl->params_size);
			json_object_object_add(pj, "name", json_object_new_string(p->name));
			json_object_object_add(pj, "summary", json_object_new_string(p->summary));
			json_object_object_add(pj, "params", experiment_params_json(&pg, 1));
			json_object_array_add(profs, pj);
		}
		free(copy);
		json_object_object_add(w, "profiles", profs);
		json_object_object_add(w, "options", options_json(&g));
		json_object_array_add(wls, w);
	}
	json_object_object_add(o, "workloads", wls);
	for (i = 0; i < ncommon; i++) {
		json_object *gj = json_object_new_object();

		json_object_object_add(gj, "title", json_object_new_string(common[i].title));
		json_object_object_add(gj, "options", options_json(&common[i]));
		json_object_array_add(groups, gj);
	}
	json_object_object_add(o, "option_groups", groups);
	json_object_object_add(o, "metrics", render_metrics_json());
	json_print(stdout, o);
	json_object_put(o);
}

int cmd_list(int argc, const char **argv, struct ctx *ctx)
{
	struct run_params rp = runner_defaults;
	struct probe_params pp = probe_defaults;
	struct list_params lp = list_defaults;
	struct experiment_opts eo;
	struct opt_group parse_groups[2], shown[4];
	size_t nshown = 0;
	struct opts_result res;

	parse_groups[0] = (struct opt_group){
		.title = "list options", .opts = list_opts, .base = &lp, .defaults = &list_defaults
	};
	parse_groups[1] = cli_common_group_for(ctx, COMMON_FORMAT | COMMON_VERBOSITY,
					       (1u << FMT_TEXT) | (1u << FMT_JSON));
	cli_parse("list", list_usage, list_description, parse_groups, ARRAY_SIZE(parse_groups),
		  argc, argv, 0, &res, ctx);
	if (res.npos)
		die_usage("list: unexpected argument '%s'", res.pos[0]);
	cli_require_format("list", ctx, 1u << FMT_TEXT | 1u << FMT_JSON);
	if (lp.metrics && lp.workloads)
		die_usage(
			"list: options '--metrics' and '--workloads' exclude each other: give one");
	if (lp.metrics) {
		if (ctx->format == FMT_JSON) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "metrics", render_metrics_json());
			json_print(stdout, o);
			json_object_put(o);
		} else {
			render_metrics_text(stdout);
		}
		opts_result_release(&res);
		return EXIT_OK;
	}

	/* The options every workload shares, as 'run' parses them. */
	shown[nshown++] = (struct opt_group){ .title = "runner options (every workload)",
					      .opts = runner_opts,
					      .base = &rp,
					      .defaults = &runner_defaults };
	shown[nshown] = experiment_opts_group(&eo, NULL);
	shown[nshown++].title = "experiment options (--profile: see each workload's profiles)";
	if (probe_opts[0].type != OPT_END)
		shown[nshown++] = (struct opt_group){ .title = "probe options",
						      .opts = probe_opts,
						      .base = &pp,
						      .defaults = &probe_defaults };
	/* run's common options (the parse table above is no longer needed) */
	shown[nshown] = cli_common_group_for(
		ctx, COMMON_ALL, (1u << FMT_TEXT) | (1u << FMT_JSON) | (1u << FMT_METRICS_BRIEF));
	shown[nshown++].defaults = NULL;
	if (ctx->format == FMT_JSON)
		list_json(shown, nshown);
	else
		list_text(shown, nshown, !lp.workloads);
	opts_result_release(&res);
	return EXIT_OK;
}
