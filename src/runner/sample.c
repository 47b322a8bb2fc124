/*
 * sample.c: the named-metric bag of a sample. Small on purpose: a sample
 * lives in a fixed-size struct so that it can be filled in shared memory,
 * stored, and compared without allocation.
 */
#include "runner/sample.h"

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

void sample_set(struct sample *s, const char *name, double value, int better, unsigned flags)
{
	struct metric *m = slot(s, name);

	m->value = value;
	m->available = true;
	m->why[0] = '\0';
	m->better = better;
	m->flags = flags;
}

void sample_unavailable(struct sample *s, const char *name, int better, unsigned flags,
			const char *fmt, ...)
{
	struct metric *m = slot(s, name);
	va_list ap;

	m->value = 0;
	m->available = false;
	m->better = better;
	m->flags = flags;
	va_start(ap, fmt);
	vsnprintf(m->why, sizeof(m->why), fmt, ap);
	va_end(ap);
}

const struct metric *sample_get(const struct sample *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nmetrics; i++)
		if (!strcmp(s->metrics[i].name, name))
			return &s->metrics[i];
	return NULL;
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
