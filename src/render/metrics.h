/*
 * metrics.h: the metric registry (core/metrics.h) as `list` shows it.
 */
#ifndef WAKEBENCH_RENDER_METRICS_H
#define WAKEBENCH_RENDER_METRICS_H

#include <stdio.h>

#include <json-c/json.h>

#include "core/metrics.h"

/* The whole registry, in display order, with its source and aggregation. */
void render_metrics_text(FILE *f);
/* One metric as JSON: name, label, unit, better, kinds, aggregate, source, help. */
json_object *render_metric_json(const struct metric_def *d);
/* The same as a JSON array, one object per metric. */
json_object *render_metrics_json(void);
/* One metric of a workload, its unit as the workload's tables show it; mark "* " the primary. */
void render_metric_line(FILE *f, const char *workload, const char *mark,
			const struct metric_def *d);

#endif
