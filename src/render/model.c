/*
 * model.c: a metric's label, unit and direction as the report shows them
 * (engine/report.c fills the rest of the report's model from the store).
 */
#include "render/render.h"
#include "core/metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * The only place the report learns a metric's label, unit and direction:
 * the metric registry. A name it does not know (a store from a newer
 * wakebench) keeps its name as label and the direction stored with it.
 */
void rep_metric(const char *name, const char *workload, int stored_better, struct rep_metric *out)
{
	const struct metric_def *d = metric_def(name);

	out->name = name;
	metric_title_of(name, workload, out->label, sizeof(out->label));
	out->unit = d ? d->unit : "";
	out->better = d ? d->better : stored_better;
}
