/*
 * sample.c: the named-metric bag of a sample. Small on purpose: a sample
 * lives in a fixed-size struct so that it can be filled in shared memory,
 * stored, and compared without allocation.
 */
#include "core/sample.h"
#include "core/metrics.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

void sample_init(struct sample *s)
{
	memset(s, 0, sizeof(*s));
	s->status = SAMPLE_OK;
}

static struct metric *slot(struct sample *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nmetrics; i++)
		if (!strcmp(s->metrics[i].name, name))
			return &s->metrics[i];
	if (s->nmetrics >= SAMPLE_MAX_METRICS)
		BUG("too many metrics in a sample (adding '%s')", name);
	if (strlen(name) >= METRIC_NAME_MAX)
		BUG("metric name '%s' too long", name);
	memset(&s->metrics[s->nmetrics], 0, sizeof(s->metrics[0]));
	snprintf(s->metrics[s->nmetrics].name, METRIC_NAME_MAX, "%s", name);
	return &s->metrics[s->nmetrics++];
}

/* The fixed fields that are doubles, by registry name. */
static const struct {
	const char *name;
	size_t offset;
} fixed_fields[] = {
	{ "ops_per_s", offsetof(struct sample, ops_per_s) },
	{ "ops_per_cpu_s", offsetof(struct sample, ops_per_cpu_s) },
	{ "real_s", offsetof(struct sample, real_s) },
	{ "usr_s", offsetof(struct sample, usr_s) },
	{ "sys_s", offsetof(struct sample, sys_s) },
};

static const struct metric_def *registered(const char *name)
{
	const struct metric_def *d = metric_def(name);

	if (!d)
		BUG("metric '%s' is not in the metric registry (runner/metrics.c or the "
		    "workload's metrics table)",
		    name);
	return d;
}

/* A fixed field by name: 0 and *v set, or -1 when name is not one. */
static int fixed_value(const struct sample *s, const char *name, double *v)
{
	size_t i;

	if (!strcmp(name, "ops")) {
		*v = (double)s->ops;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(fixed_fields); i++)
		if (!strcmp(fixed_fields[i].name, name)) {
			memcpy(v, (const char *)s + fixed_fields[i].offset, sizeof(*v));
			return 0;
		}
	return -1;
}

static int fixed_put(struct sample *s, const char *name, double v)
{
	size_t i;

	if (!strcmp(name, "ops")) {
		s->ops = v > 0 ? (uint64_t)v : 0;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(fixed_fields); i++)
		if (!strcmp(fixed_fields[i].name, name)) {
			memcpy((char *)s + fixed_fields[i].offset, &v, sizeof(v));
			return 0;
		}
	return -1;
}

void sample_put(struct sample *s, const char *name, double value)
{
	const struct metric_def *d = registered(name);
	struct metric *m;

	if (!fixed_put(s, name, value))
		return;
	m = slot(s, name);
	m->value = value;
	m->available = true;
	m->why[0] = '\0';
	m->better = d->better;
	/* only the sample's own flags are stored; the rest stays in the registry */
	m->flags = d->flags & METRIC_EVIDENCE;
}

void sample_na(struct sample *s, const char *name, const char *fmt, ...)
{
	const struct metric_def *d = registered(name);
	struct metric *m;
	va_list ap;
	double v;

	if (!fixed_value(s, name, &v))
		BUG("fixed field '%s' cannot be unavailable", name);
	m = slot(s, name);
	m->value = 0;
	m->available = false;
	m->better = d->better;
	m->flags = d->flags & METRIC_EVIDENCE;
	va_start(ap, fmt);
	vsnprintf(m->why, sizeof(m->why), fmt, ap);
	va_end(ap);
}

/*
 * Fixed fields are no struct metric of the sample: sample_get() hands out
 * one of these per-thread slots, in turn, so that a few look-ups in one
 * expression (a and b of a comparison) do not overwrite each other.
 */
#define FIXED_SLOTS 16
static __thread struct metric fixed_slot[FIXED_SLOTS];
static __thread unsigned fixed_next;

const struct metric *sample_get(const struct sample *s, const char *name)
{
	struct metric *m;
	size_t i;
	double v;

	for (i = 0; i < s->nmetrics; i++)
		if (!strcmp(s->metrics[i].name, name))
			return &s->metrics[i];
	if (fixed_value(s, name, &v))
		return NULL;
	m = &fixed_slot[fixed_next++ % FIXED_SLOTS];
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->value = v;
	m->available = true;
	m->better = registered(name)->better;
	return m;
}

bool sample_value(const struct sample *s, const char *name, double *v)
{
	size_t i;

	for (i = 0; i < s->nmetrics; i++)
		if (!strcmp(s->metrics[i].name, name)) {
			*v = s->metrics[i].value;
			return s->metrics[i].available;
		}
	return !fixed_value(s, name, v);
}

void sample_fail(struct sample *s, enum sample_status st, const char *fmt, ...)
{
	va_list ap;

	if (s->status != SAMPLE_OK)
		return;
	s->status = st;
	va_start(ap, fmt);
	vsnprintf(s->reason, sizeof(s->reason), fmt, ap);
	va_end(ap);
}

const char *sample_status_name(enum sample_status st)
{
	switch (st) {
	case SAMPLE_OK:
		return "ok";
	case SAMPLE_FAILED:
		return "failed";
	case SAMPLE_INTERRUPTED:
		return "interrupted";
	}
	return "unknown";
}
