/*
 * sched_debug.c: the sched/debug parser and the delayed-entity sampler of
 * sched_debug.h. Only each CPU's root cfs_rq section is read: its
 * hierarchical counts cover every group below it, so summing group
 * sections too would count tasks twice.
 */
#include "sys/sched_debug.h"
#include "util/util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *sched_debug_source_name(enum sched_debug_source src)
{
	switch (src) {
	case SD_QUEUED_MINUS_RUNNABLE:
		return "h_nr_queued - h_nr_runnable";
	case SD_H_NR_DELAYED:
		return "h_nr_delayed";
	case SD_NONE:
		break;
	}
	return "none";
}

/*
 * "cfs_rq[12]:/" -> 12, and "cfs_rq[12]:" (a kernel without
 * CONFIG_FAIR_GROUP_SCHED prints no task-group path: every cfs_rq is a
 * root); -1 for any other line (group run queues included).
 */
static int root_cfs_rq_cpu(const char *line, size_t n)
{
	char *end;
	long cpu;
	size_t rest;

	if (n < 10 || strncmp(line, "cfs_rq[", 7))
		return -1;
	cpu = strtol(line + 7, &end, 10);
	if (end == line + 7 || cpu < 0 || cpu > INT_MAX)
		return -1;
	rest = n - (size_t)(end - line);
	if (!((rest == 3 && !strncmp(end, "]:/", 3)) || (rest == 2 && !strncmp(end, "]:", 2))))
		return -1;
	return (int)cpu;
}

/* "  .h_nr_queued    : 3" -> key "h_nr_queued", value 3. */
static bool field_line(const char *line, size_t n, const char *key, long long *value)
{
	size_t klen = strlen(key);
	const char *p = line, *end = line + n;
	char num[32];
	size_t m;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == line || p >= end || *p != '.')
		return false;
	p++;
	if ((size_t)(end - p) < klen || strncmp(p, key, klen))
		return false;
	p += klen;
	if (p < end && *p != ' ' && *p != '\t' && *p != ':')
		return false; /* a longer name sharing the prefix */
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end || *p != ':')
		return false;
	p++;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	m = (size_t)(end - p);
	if (!m || m >= sizeof(num))
		return false;
	memcpy(num, p, m);
	num[m] = '\0';
	return sscanf(num, "%lld", value) == 1;
}

int sched_debug_parse(const char *text, struct sched_debug_delayed *out, char *why, size_t len)
{
	const char *line = text;
	int cpu = -1;
	long long queued = -1, runnable = -1, delayed = -1, v;
	bool saw_pair = false, saw_delayed = false;

	memset(out, 0, sizeof(*out));
	out->max_cpu = -1;
	for (;;) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		bool indented = n && (line[0] == ' ' || line[0] == '\t');

		if (cpu >= 0 && !indented) {
			/* end of a root cfs_rq section: account it */
			long long d = -1;

			if (queued >= 0 && runnable >= 0) {
				d = queued - runnable;
				saw_pair = true;
			} else if (delayed >= 0) {
				d = delayed;
				saw_delayed = true;
			}
			if (d >= 0) {
				out->ncpus++;
				if (cpu < SCHED_DEBUG_MAX_CPUS)
					out->per_cpu[cpu] = (uint32_t)d;
				if (cpu > out->max_cpu)
					out->max_cpu = cpu;
				out->total += (uint64_t)d;
			}
			cpu = -1;
		}
		if (!indented) {
			int c = root_cfs_rq_cpu(line, n);

			if (c >= 0) {
				cpu = c;
				queued = runnable = delayed = -1;
			}
		} else if (cpu >= 0) {
			if (field_line(line, n, "h_nr_queued", &v))
				queued = v;
			else if (field_line(line, n, "h_nr_runnable", &v))
				runnable = v;
			else if (field_line(line, n, "h_nr_delayed", &v))
				delayed = v;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	if (!out->ncpus) {
		snprintf(why, len, "%s",
			 saw_pair || saw_delayed ? "no root cfs_rq in sched/debug"
						 : "sched/debug has neither h_nr_runnable nor "
						   "h_nr_delayed (kernel before 6.12.7)");
		return -1;
	}
	out->source = saw_pair ? SD_QUEUED_MINUS_RUNNABLE : SD_H_NR_DELAYED;
	return 0;
}

int sched_debug_read(const char *path, struct sched_debug_delayed *out, char *why, size_t len)
{
	char *text = NULL;
	int ret;

	if (read_file(path, &text, NULL)) {
		snprintf(why, len, "cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	ret = sched_debug_parse(text, out, why, len);
	free(text);
	return ret;
}

static void deadline_after(struct timespec *ts, uint64_t ns)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += (time_t)(ns / 1000000000u);
	ts->tv_nsec += (long)(ns % 1000000000u);
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static void *sampler_main(void *arg)
{
	struct sched_debug_sampler *s = arg;
	struct sched_debug_delayed *d = xmalloc(sizeof(*d));
	struct timespec next;
	uint64_t wait_ns = s->period_ns / 2;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		char why[sizeof(s->why)];
		int rc;

		deadline_after(&next, wait_ns);
		wait_ns = s->period_ns;
		while (!s->stop) {
			rc = pthread_cond_timedwait(&s->cond, &s->lock, &next);
			if (rc == ETIMEDOUT)
				break;
		}
		if (s->stop)
			break;
		pthread_mutex_unlock(&s->lock);
		rc = sched_debug_read(s->path, d, why, sizeof(why));
		pthread_mutex_lock(&s->lock);
		if (rc) {
			if (!s->why[0])
				snprintf(s->why, sizeof(s->why), "%s", why);
			continue;
		}
		s->readings++;
		s->sum += (double)d->total;
		if (d->total > s->max)
			s->max = d->total;
	}
	pthread_mutex_unlock(&s->lock);
	free(d);
	return NULL;
}

int sched_debug_sampler_start(struct sched_debug_sampler *s, const char *path, uint64_t period_ns)
{
	pthread_condattr_t ca;
	int rc;

	memset(s, 0, sizeof(*s));
	snprintf(s->path, sizeof(s->path), "%s", path);
	s->period_ns = period_ns;
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &ca);
	pthread_condattr_destroy(&ca);
	rc = pthread_create(&s->thread, NULL, sampler_main, s);
	if (rc) {
		pthread_cond_destroy(&s->cond);
		pthread_mutex_destroy(&s->lock);
		errno = rc;
		return error_errno("cannot start the sched/debug sampler");
	}
	s->running = true;
	return 0;
}

void sched_debug_sampler_stop(struct sched_debug_sampler *s)
{
	if (!s->running)
		return;
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	s->running = false;
}
