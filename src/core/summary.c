/*
 * summary.c: looking into a config's summary (summary.h).
 */
#include "core/summary.h"

#include <math.h>
#include <string.h>

static size_t find_summary(const struct report_summary *rs, const char *name)
{
	size_t i;

	for (i = 0; i < rs->nmetrics; i++)
		if (!strcmp(rs->m[i].name, name))
			return i;
	return (size_t)-1;
}

const struct metric_summary *report_summary_get(const struct report_summary *rs, const char *name)
{
	size_t i = find_summary(rs, name);

	return i == (size_t)-1 ? NULL : &rs->m[i];
}

bool report_noisy(const struct report_summary *rs)
{
	const struct metric_summary *p = report_summary_get(rs, rs->primary);

	return p && p->available && p->sum.n >= 2 && isfinite(p->sum.cv) && p->sum.cv > rs->cv_warn;
}
