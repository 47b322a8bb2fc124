/*
 * log.c: one line per stored experiment (log.h): a run's primary median and
 * noise from its usable samples in one pass over the store, an ab's first
 * effect from ab_load(), the same result `ab`, `show` and `report` print.
 */
#include "engine/log.h"
#include "engine/ab.h"
#include "core/summary.h"
#include "stats/stats.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct values {
	struct log *l;
	double **v; /* per entry: the primary's values */
	size_t *alloc;
	int64_t last_id; /* rows come experiment by experiment: the last one's entry */
	struct log_entry *last;
};

static struct log_entry *entry_of(struct values *vs, int64_t id)
{
	size_t i;

	if (vs->last_id == id)
		return vs->last;
	vs->last_id = id;
	vs->last = NULL;
	for (i = 0; i < vs->l->n && !vs->last; i++)
		if (vs->l->entries[i].e->id == id)
			vs->last = &vs->l->entries[i];
	return vs->last;
}

static int collect(void *arg, const struct store_row *row)
{
	struct values *vs = arg;
	struct log_entry *le = entry_of(vs, row->exp->id);
	size_t k;
	double v;

	if (!le || !sample_value(row->s, le->primary->name, &v))
		return 0;
	k = (size_t)(le - vs->l->entries);
	if (le->n == vs->alloc[k]) {
		vs->alloc[k] = vs->alloc[k] ? 2 * vs->alloc[k] : 16;
		vs->v[k] = xrealloc(vs->v[k], vs->alloc[k] * sizeof(double));
	}
	vs->v[k][le->n++] = v;
	return 0;
}

/* A run's median, CV and noise from its values. */
static void run_numbers(struct log_entry *le, double *v)
{
	struct summary s;

	le->median = stats_median(v, le->n);
	le->cv = NAN;
	if (le->n >= 2 && !stats_summarize(v, le->n, 0.95, &s, NULL)) {
		le->cv = s.cv;
		le->noisy = stats_summary_noisy(&s, REPORT_CV_WARN);
	}
}

/* An ab's first effect, analysed as ab did; none when it cannot be. */
static void ab_numbers(struct store *st, struct log_entry *le)
{
	struct ab_stored ab;
	char why[256];

	if (ab_load(st, le->e, &ab, why, sizeof(why)))
		return;
	if (ab.r.neff) {
		le->have_effect = true;
		snprintf(le->what, sizeof(le->what), "%s", ab.r.eff[0].what);
		le->effect = ab.r.eff[0].s;
	}
	le->n = ab.r.ncomplete;
	ab_stored_release(&ab);
}

static void overload_flag(struct store *st, struct log_entry *le)
{
	struct env env = { 0 };

	if (store_load_env(st, le->e->id, "start", &env))
		return;
	le->overloaded = env_was_overloaded(&env);
	env_release(&env);
}

int log_build(struct store *st, const struct store_filter *f, size_t limit, struct log *out)
{
	struct values vs = { .l = out, .last_id = -1 };
	size_t i, first;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (store_list_experiments(st, f, &out->exps, &out->nexps))
		return -1;
	first = limit && out->nexps > limit ? out->nexps - limit : 0;
	out->n = out->nexps - first;
	out->entries = xcalloc(out->n + 1, sizeof(*out->entries));
	for (i = 0; i < out->n; i++) {
		struct log_entry *le = &out->entries[i];

		le->e = &out->exps[out->nexps - 1 - i]; /* newest first */
		le->primary = metric_primary(le->e->workload);
		le->median = le->cv = NAN;
	}
	vs.v = xcalloc(out->n + 1, sizeof(*vs.v));
	vs.alloc = xcalloc(out->n + 1, sizeof(*vs.alloc));
	if (store_foreach_sample(st, f, STORE_ROWS_STATS, collect, &vs))
		ret = -1;
	for (i = 0; i < out->n && !ret; i++) {
		struct log_entry *le = &out->entries[i];

		if (!strcmp(le->e->kind, "ab"))
			ab_numbers(st, le);
		else
			run_numbers(le, vs.v[i]);
		overload_flag(st, le);
	}
	for (i = 0; i < out->n; i++)
		free(vs.v[i]);
	free(vs.v);
	free(vs.alloc);
	if (ret)
		log_release(out);
	return ret;
}

void log_release(struct log *l)
{
	store_experiments_free(l->exps, l->nexps);
	free(l->entries);
	memset(l, 0, sizeof(*l));
}
