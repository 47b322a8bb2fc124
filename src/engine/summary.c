/*
 * summary.c: the summary of one config (summary.h): every usable sample
 * (status ok, not a warm-up) of every metric, summarised with stats/.
 */
#include "engine/summary.h"
#include "core/metrics.h"
#include "stats/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool usable(const struct sample *s)
{
	return !s->warmup && s->status == SAMPLE_OK;
}

static void add_name(struct report_summary *rs, size_t *alloc, const char *name, int better)
{
	struct metric_summary *ms;

	if (report_summary_get(rs, name))
		return;
	if (rs->nmetrics == *alloc) {
		*alloc = *alloc ? *alloc * 2 : 16;
		rs->m = xrealloc(rs->m, *alloc * sizeof(*rs->m));
	}
	ms = &rs->m[rs->nmetrics++];
	memset(ms, 0, sizeof(*ms));
	snprintf(ms->name, sizeof(ms->name), "%s", name);
	ms->better = better;
}

/* Display order: the primary metric first, then the registry's order. */
static size_t summary_rank(const struct report_summary *rs, const char *name)
{
	return strcmp(name, rs->primary) ? metric_order(name) + 1 : 0;
}

/* How many values the percentile ms rests on in the usable samples: the fewest. */
static void note_values(struct metric_summary *ms, const struct sample *s, size_t n)
{
	const struct metric_def *d = metric_def(ms->name);
	size_t i;

	ms->values_needed = metric_values_needed(d);
	if (!ms->values_needed || !d->count)
		return;
	for (i = 0; i < n; i++) {
		const struct metric *m;
		double c;

		if (!usable(&s[i]) || !(m = sample_get(&s[i], ms->name)) || !m->available ||
		    !sample_value(&s[i], d->count, &c) || !(c >= 0))
			continue;
		if (!ms->fewest_values || (uint64_t)c < ms->fewest_values)
			ms->fewest_values = (uint64_t)c;
	}
	ms->too_few_values = ms->fewest_values && ms->fewest_values < ms->values_needed;
}

int report_summarize(const struct sample *s, size_t n, const char *primary,
		     struct report_summary *rs)
{
	const struct metric_def *pd;
	size_t alloc = 0, i, k;
	double *x;
	bool *flag;
	uint32_t *ordinal;
	uint32_t measured = 0;
	int ret = 0;

	memset(rs, 0, sizeof(*rs));
	rs->cv_warn = REPORT_CV_WARN;
	snprintf(rs->primary, sizeof(rs->primary), "%s", primary ? primary : "ops_per_s");
	pd = metric_def(rs->primary);
	add_name(rs, &alloc, rs->primary, pd ? pd->better : BETTER_NEUTRAL);
	/* the fixed rates, which every workload has */
	add_name(rs, &alloc, "ops_per_s", metric_def("ops_per_s")->better);
	add_name(rs, &alloc, "ops_per_cpu_s", metric_def("ops_per_cpu_s")->better);
	ordinal = xcalloc(n ? n : 1, sizeof(*ordinal));
	for (i = 0; i < n; i++) {
		if (!s[i].warmup)
			ordinal[i] = ++measured;
		if (s[i].warmup)
			rs->nwarmup++;
		else if (s[i].status == SAMPLE_FAILED)
			rs->nfailed++;
		else if (s[i].status == SAMPLE_INTERRUPTED)
			rs->ninterrupted++;
		else
			rs->nsamples++;
		if (!usable(&s[i]))
			continue;
		for (k = 0; k < s[i].nmetrics; k++)
			add_name(rs, &alloc, s[i].metrics[k].name, s[i].metrics[k].better);
	}

	/* a stable order for people: the primary metric, then counters per op */
	for (k = 1; k < rs->nmetrics; k++) {
		struct metric_summary tmp = rs->m[k];
		size_t j = k, r = summary_rank(rs, tmp.name);

		for (; j > 0 && summary_rank(rs, rs->m[j - 1].name) > r; j--)
			rs->m[j] = rs->m[j - 1];
		rs->m[j] = tmp;
	}

	x = xcalloc(n ? n : 1, sizeof(*x));
	flag = xcalloc(n ? n : 1, sizeof(*flag));
	for (k = 0; k < rs->nmetrics; k++) {
		struct metric_summary *ms = &rs->m[k];
		size_t nx = 0, j;
		uint32_t *ord = xcalloc(n ? n : 1, sizeof(*ord));

		for (i = 0; i < n; i++) {
			const struct metric *m;

			if (!usable(&s[i]))
				continue;
			m = sample_get(&s[i], ms->name);
			if (!m)
				continue;
			if (!m->available) {
				if (!ms->why[0])
					snprintf(ms->why, sizeof(ms->why), "%s", m->why);
				continue;
			}
			ord[nx] = ordinal[i];
			x[nx++] = m->value;
		}
		if (nx) {
			memset(flag, 0, n * sizeof(*flag));
			if (stats_summarize(x, nx, REPORT_CONF, &ms->sum, flag)) {
				ret = -1;
				free(ord);
				continue;
			}
			ms->available = true;
			ms->why[0] = '\0';
			note_values(ms, s, n);
			for (j = 0; j < nx; j++) {
				if (!flag[j])
					continue;
				ms->outliers = xrealloc(
					ms->outliers, (ms->noutliers + 1) * sizeof(*ms->outliers));
				ms->outliers[ms->noutliers++] = ord[j];
			}
		} else if (!ms->why[0]) {
			snprintf(ms->why, sizeof(ms->why), "no usable sample");
		}
		free(ord);
	}
	free(flag);
	free(x);
	free(ordinal);
	return ret;
}

void report_summary_release(struct report_summary *rs)
{
	size_t i;

	for (i = 0; i < rs->nmetrics; i++)
		free(rs->m[i].outliers);
	free(rs->m);
	memset(rs, 0, sizeof(*rs));
}
