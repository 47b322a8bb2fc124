/*
 * metrics.c: the metric registry as `list --metrics` and each workload's
 * listing show it, in text and JSON (metrics.h).
 */
#include "render/metrics.h"

#include <stdio.h>
#include <string.h>

/* "evidence,per-op": the kinds a metric's flags say, "-" for none. */
static void kind_text(const struct metric_def *d, char *buf, size_t len)
{
	static const struct {
		unsigned flag;
		const char *name;
	} kinds[] = {
		{ METRIC_PRIMARY, "primary" },
		{ METRIC_EVIDENCE, "evidence" },
		{ METRIC_PER_OP, "per-op" },
		{ METRIC_RAW, "raw" },
	};
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (d->flags & kinds[i].flag)
			used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s",
						 used ? "," : "", kinds[i].name);
	if (!used)
		snprintf(buf, len, "-");
}

static const char *agg_name(enum metric_agg a)
{
	switch (a) {
	case AGG_SUM:
		return "sum";
	case AGG_RATE:
		return "rate";
	case AGG_RATIO:
		return "ratio";
	case AGG_MEAN:
		return "mean";
	case AGG_MAX:
		return "max";
	case AGG_HIST:
		return "histogram";
	case AGG_FLAG:
		return "flag";
	}
	return "?";
}

/* One metric of a workload: its unit as the workload's tables show it. */
void render_metric_line(FILE *f, const char *workload, const char *mark, const struct metric_def *d)
{
	const char *unit;
	char kind[64], ubuf[64];

	kind_text(d, kind, sizeof(kind));
	unit = metric_unit(d, workload, ubuf, sizeof(ubuf));
	fprintf(f, "      %s%-26s %-30s %-13s %-7s %-16s %s\n", mark, d->name, d->label,
		unit[0] ? unit : "-", metric_better_name(d->better), kind, d->help);
}

/* The whole registry, in display order, with its source and aggregation. */
void render_metrics_text(FILE *f)
{
	const struct metric_def *d;
	char kind[64];
	size_t i;

	fprintf(f, "%-26s %-30s %-6s %-7s %-16s %-11s %-9s %s\n", "name", "label", "unit", "better",
		"kind", "source", "aggregate", "what it is");
	for (i = 0; (d = metric_def_at(i)); i++) {
		kind_text(d, kind, sizeof(kind));
		fprintf(f, "%-26s %-30s %-6s %-7s %-16s %-11s %-9s %s\n", d->name, d->label,
			d->unit[0] ? d->unit : "-", metric_better_name(d->better), kind, d->source,
			agg_name(d->agg), d->help);
	}
}

json_object *render_metric_json(const struct metric_def *d)
{
	json_object *o = json_object_new_object();
	char kind[64];

	kind_text(d, kind, sizeof(kind));
	json_object_object_add(o, "name", json_object_new_string(d->name));
	json_object_object_add(o, "label", json_object_new_string(d->label));
	json_object_object_add(o, "unit", json_object_new_string(d->unit));
	json_object_object_add(o, "better", json_object_new_string(metric_better_name(d->better)));
	json_object_object_add(o, "evidence", json_object_new_boolean(d->flags & METRIC_EVIDENCE));
	json_object_object_add(o, "per_op", json_object_new_boolean(d->flags & METRIC_PER_OP));
	json_object_object_add(o, "raw", json_object_new_boolean(d->flags & METRIC_RAW));
	json_object_object_add(o, "may_be_primary",
			       json_object_new_boolean(d->flags & METRIC_PRIMARY));
	json_object_object_add(o, "aggregate", json_object_new_string(agg_name(d->agg)));
	json_object_object_add(o, "source", json_object_new_string(d->source));
	json_object_object_add(o, "help", json_object_new_string(d->help));
	return o;
}

json_object *render_metrics_json(void)
{
	json_object *a = json_object_new_array();
	const struct metric_def *d;
	size_t i;

	for (i = 0; (d = metric_def_at(i)); i++)
		json_object_array_add(a, render_metric_json(d));
	return a;
}
