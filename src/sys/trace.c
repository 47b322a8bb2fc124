/*
 * trace.c: the tracepoint layer of trace.h: format-file parsing, record
 * decoding, the wakeup/switch/migration analysis and the perf ring-buffer
 * reader.
 *
 * Ordering across CPUs: each CPU's buffer is (almost) in time order; a
 * record of CPU A can only be matched with one of CPU B once both are
 * known. The reader works in rounds: it notes the time, drains every
 * buffer, and then analyses, in merged time order, only the records older
 * than the start of the previous round: by then every CPU has written all
 * of its records older than that (perf commits a record within
 * microseconds of taking its timestamp). The rest waits for the next round.
 */
#include "sys/trace.h"
#include "sys/perf.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *const trace_event_names[3] = { "sched_waking", "sched_switch", "sched_migrate_task" };

/* ---- format files ---- */

/*
 * "pid_t prev_pid" -> type "pid_t", name "prev_pid"; "char prev_comm[16]" ->
 * "char[16]", "prev_comm"; "__data_loc char[] comm" -> "__data_loc char[]", "comm".
 */
static int parse_decl(const char *decl, size_t n, struct tp_field *fd)
{
	char buf[160], *name, *br = NULL, *end;

	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, decl, n);
	buf[n] = '\0';
	rtrim(buf);
	end = buf + strlen(buf);
	if (end > buf && end[-1] == ']') /* an array: the brackets follow the name */
		br = strrchr(buf, '[');
	name = br ? br : end;
	while (name > buf && name[-1] != ' ' && name[-1] != '*')
		name--;
	if (name == buf)
		return -1;
	snprintf(fd->name, sizeof(fd->name), "%.*s", (int)((br ? br : end) - name), name);
	snprintf(fd->type, sizeof(fd->type), "%.*s%s", (int)(name - buf - 1), buf, br ? br : "");
	if (!fd->name[0])
		return -1;
	fd->data_loc = !strncmp(buf, "__data_loc ", 11);
	return 0;
}

static bool attr_uint(const char *line, const char *key, unsigned *out)
{
	const char *p = strstr(line, key);
	char *end;
	unsigned long v;

	if (!p)
		return false;
	p += strlen(key);
	v = strtoul(p, &end, 10);
	if (end == p || *end != ';')
		return false;
	*out = (unsigned)v;
	return true;
}

/* OR of the values in __print_flags(..., { 0x1, "S" }, { 0x2, "D" }, ...) */
static uint64_t print_flags_mask(const char *fmt)
{
	const char *p = strstr(fmt, "__print_flags(");
	uint64_t mask = 0;

	if (!p)
		return 0;
	for (p = strchr(p, '{'); p; p = strchr(p + 1, '{')) {
		char *end;
		unsigned long long v;

		while (*++p == ' ')
			;
		v = strtoull(p, &end, 0);
		if (end == p || *end != ',')
			break;
		mask |= v;
	}
	return mask;
}

int tp_format_parse(const char *text, struct tp_format *f, char *why, size_t len)
{
	const char *line = text;

	memset(f, 0, sizeof(*f));
	for (; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		char one[8192];

		if (n >= sizeof(one))
			n = sizeof(one) - 1;
		memcpy(one, line, n);
		one[n] = '\0';
		if (!strncmp(one, "name: ", 6)) {
			snprintf(f->name, sizeof(f->name), "%s", rtrim(one + 6));
		} else if (!strncmp(one, "ID: ", 4)) {
			f->id = (unsigned)strtoul(one + 4, NULL, 10);
		} else if (!strncmp(one, "print fmt: ", 11)) {
			f->print_flags_mask = print_flags_mask(one);
		} else {
			const char *p = strstr(one, "field:"), *semi;
			struct tp_field *fd;
			unsigned sgn = 0;

			if (!p)
				continue;
			p += 6;
			semi = strchr(p, ';');
			if (!semi)
				continue;
			if (f->nfields >= TP_FIELDS_MAX) {
				snprintf(why, len, "format of '%s': more than %d fields", f->name,
					 TP_FIELDS_MAX);
				return -1;
			}
			fd = &f->fields[f->nfields];
			memset(fd, 0, sizeof(*fd));
			if (parse_decl(p, (size_t)(semi - p), fd) ||
			    !attr_uint(semi, "offset:", &fd->offset) ||
			    !attr_uint(semi, "size:", &fd->size)) {
				snprintf(why, len, "format of '%s': cannot parse '%.200s'",
					 f->name[0] ? f->name : "?", rtrim(one));
				return -1;
			}
			if (attr_uint(semi, "signed:", &sgn))
				fd->is_signed = sgn != 0;
			f->nfields++;
		}
	}
	if (!f->name[0] || !f->nfields) {
		snprintf(why, len, "not a tracepoint format (no name or no fields)");
		return -1;
	}
	return 0;
}

const struct tp_field *tp_field_find(const struct tp_format *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->nfields; i++)
		if (!strcmp(f->fields[i].name, name))
			return &f->fields[i];
	return NULL;
}

int tp_field_int(const struct tp_field *fd, const void *raw, size_t rawlen, int64_t *out)
{
	const unsigned char *p = (const unsigned char *)raw + fd->offset;

	if ((size_t)fd->offset + fd->size > rawlen)
		return -1;
	switch (fd->size) {
	case 1: {
		uint8_t v;

		memcpy(&v, p, 1);
		*out = fd->is_signed ? (int64_t)(int8_t)v : (int64_t)v;
		return 0;
	}
	case 2: {
		uint16_t v;

		memcpy(&v, p, 2);
		*out = fd->is_signed ? (int64_t)(int16_t)v : (int64_t)v;
		return 0;
	}
	case 4: {
		uint32_t v;

		memcpy(&v, p, 4);
		*out = fd->is_signed ? (int64_t)(int32_t)v : (int64_t)v;
		return 0;
	}
	case 8: {
		uint64_t v;

		memcpy(&v, p, 8);
		*out = (int64_t)v;
		return 0;
	}
	default:
		return -1;
	}
}

int tp_field_str(const struct tp_field *fd, const void *raw, size_t rawlen, char *buf, size_t len)
{
	const char *base = raw;
	size_t off = fd->offset, n = fd->size, i;

	if (fd->data_loc) {
		uint32_t loc;

		if (fd->size != 4 || (size_t)fd->offset + 4 > rawlen)
			return -1;
		memcpy(&loc, base + fd->offset, 4);
		off = loc & 0xffff;
		n = loc >> 16;
	}
	if (off + n > rawlen || !len)
		return -1;
	for (i = 0; i < n && i + 1 < len && base[off + i]; i++)
		buf[i] = base[off + i];
	buf[i] = '\0';
	return 0;
}

/* ---- tracefs ---- */

int trace_find_tracefs(const char *debugfs, char *dir, size_t len, char *why, size_t wlen)
{
	char cand[2][2048], probe[4200];
	int i, denied = 0;

	snprintf(cand[0], sizeof(cand[0]), "/sys/kernel/tracing");
	snprintf(cand[1], sizeof(cand[1]), "%s/tracing", debugfs ? debugfs : "/sys/kernel/debug");
	for (i = 0; i < 2; i++) {
		snprintf(probe, sizeof(probe), "%s/events/sched/sched_switch/id", cand[i]);
		if (!access(probe, R_OK)) {
			snprintf(dir, len, "%s", cand[i]);
			return 0;
		}
		if (errno == EACCES || errno == EPERM)
			denied = 1;
	}
	if (denied && !perf_privileged())
		snprintf(why, wlen,
			 "--trace needs root or CAP_PERFMON (cannot read the tracefs "
			 "event files under '%s')",
			 cand[0]);
	else if (denied)
		snprintf(why, wlen,
			 "--trace needs read access to the tracefs event files under "
			 "'%s' (CAP_PERFMON does not give it; run as root or make them readable)",
			 cand[0]);
	else
		snprintf(why, wlen,
			 "--trace needs tracefs, which is not mounted at '%s' or '%s' "
			 "(mount -t tracefs nodev /sys/kernel/tracing)",
			 cand[0], cand[1]);
	return -1;
}

int trace_event_load(const char *tracefs, const char *sys, const char *ev, struct tp_format *f,
		     char *why, size_t len)
{
	char path[4200], idline[32], *text = NULL;
	unsigned long id;
	int ret;

	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, sys, ev);
	if (read_file(path, &text, NULL)) {
		snprintf(why, len, "cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	ret = tp_format_parse(text, f, why, len);
	free(text);
	if (ret)
		return -1;
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs, sys, ev);
	if (read_line_file(path, idline, sizeof(idline))) {
		snprintf(why, len, "cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	id = strtoul(idline, NULL, 10);
	if (f->id && id != f->id) {
		snprintf(why, len, "'%s' says %lu but the format says ID %u", path, id, f->id);
		return -1;
	}
	f->id = (unsigned)id;
	return 0;
}

/* ---- decoding ---- */

static const struct tp_field *need(const struct tp_format *f, const char *name, char *why,
				   size_t len)
{
	const struct tp_field *fd = tp_field_find(f, name);

	if (!fd)
		snprintf(why, len, "tracepoint '%s' has no field '%s'", f->name, name);
	else if (fd->data_loc ||
		 (fd->size != 1 && fd->size != 2 && fd->size != 4 && fd->size != 8)) {
		snprintf(why, len, "tracepoint '%s' field '%s' is not an integer", f->name, name);
		fd = NULL;
	}
	return fd;
}

int trace_decoder_init(struct trace_decoder *d, const char *tracefs, char *why, size_t len)
{
	int k;

	memset(d, 0, sizeof(*d));
	for (k = 0; k < 3; k++)
		if (trace_event_load(tracefs, "sched", trace_event_names[k], &d->fmt[k], why, len))
			return -1;
	if (!(d->waking_pid = need(&d->fmt[TEV_WAKING], "pid", why, len)) ||
	    !(d->waking_cpu = need(&d->fmt[TEV_WAKING], "target_cpu", why, len)) ||
	    !(d->switch_prev_pid = need(&d->fmt[TEV_SWITCH], "prev_pid", why, len)) ||
	    !(d->switch_next_pid = need(&d->fmt[TEV_SWITCH], "next_pid", why, len)) ||
	    !(d->switch_prev_state = need(&d->fmt[TEV_SWITCH], "prev_state", why, len)) ||
	    !(d->migrate_pid = need(&d->fmt[TEV_MIGRATE], "pid", why, len)) ||
	    !(d->migrate_dest = need(&d->fmt[TEV_MIGRATE], "dest_cpu", why, len)))
		return -1;
	/*
	 * prev_state is a bit set of blocking states (S, D, T, ...) listed by
	 * the print fmt; none of them set means the task was still runnable,
	 * i.e. preempted (the kernel may set a separate "preempted" bit above
	 * them). Kernels whose print fmt lists no flags get the long-standing
	 * low byte.
	 */
	d->blocking_mask = d->fmt[TEV_SWITCH].print_flags_mask;
	if (!d->blocking_mask)
		d->blocking_mask = 0xff;
	return 0;
}

int trace_decode(const struct trace_decoder *d, const void *raw, size_t rawlen, struct tev *ev)
{
	uint16_t type;
	int64_t a, b, c;

	if (rawlen < 2)
		return -1;
	memcpy(&type, raw, 2);
	if (type == d->fmt[TEV_WAKING].id) {
		if (tp_field_int(d->waking_pid, raw, rawlen, &a) ||
		    tp_field_int(d->waking_cpu, raw, rawlen, &b))
			return -1;
		ev->kind = TEV_WAKING;
		ev->pid = (int32_t)a;
		ev->pid2 = 0;
		ev->arg = b;
	} else if (type == d->fmt[TEV_SWITCH].id) {
		if (tp_field_int(d->switch_prev_pid, raw, rawlen, &a) ||
		    tp_field_int(d->switch_next_pid, raw, rawlen, &b) ||
		    tp_field_int(d->switch_prev_state, raw, rawlen, &c))
			return -1;
		ev->kind = TEV_SWITCH;
		ev->pid = (int32_t)a;
		ev->pid2 = (int32_t)b;
		ev->arg = c;
	} else if (type == d->fmt[TEV_MIGRATE].id) {
		if (tp_field_int(d->migrate_pid, raw, rawlen, &a) ||
		    tp_field_int(d->migrate_dest, raw, rawlen, &b))
			return -1;
		ev->kind = TEV_MIGRATE;
		ev->pid = (int32_t)a;
		ev->pid2 = (int32_t)b;
		ev->arg = 0;
	} else {
		return -1;
	}
	return 0;
}

/* ---- analysis ---- */

static int cmp_task(const void *a, const void *b)
{
	const struct trace_task *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

void trace_analysis_init(struct trace_analysis *a, const pid_t *tids, size_t n,
			 uint64_t blocking_mask)
{
	size_t i;

	memset(a, 0, sizeof(*a));
	a->blocking_mask = blocking_mask;
	a->tasks = xcalloc(n ? n : 1, sizeof(*a->tasks));
	for (i = 0; i < n; i++)
		a->tasks[i].tid = tids[i];
	a->ntasks = n;
	qsort(a->tasks, n, sizeof(*a->tasks), cmp_task);
}

static struct trace_task *task_of(struct trace_analysis *a, int32_t tid)
{
	struct trace_task key = { .tid = tid };

	if (tid <= 0)
		return NULL;
	return bsearch(&key, a->tasks, a->ntasks, sizeof(*a->tasks), cmp_task);
}

/* Record v in the histogram of one CPU, allocated on first use. */
static void record_on(struct hist **h, int32_t cpu, uint64_t v)
{
	if (!h[cpu]) {
		h[cpu] = xmalloc(sizeof(struct hist));
		hist_init(h[cpu]);
	}
	hist_record(h[cpu], v);
}

void trace_analysis_event(struct trace_analysis *a, const struct tev *ev)
{
	struct trace_task *t;

	switch (ev->kind) {
	case TEV_WAKING:
		t = task_of(a, ev->pid);
		if (!t)
			return;
		a->wakings++;
		/* a wakeup of a task still on its CPU ends no wait: nothing to time */
		if (t->on_cpu || t->wake_pending)
			return;
		t->wake_pending = true;
		t->runnable = false; /* its wait is timed from the waking */
		t->wake_ns = ev->time_ns;
		t->wake_prev_cpu = (int32_t)ev->arg;
		return;
	case TEV_SWITCH:
		t = task_of(a, ev->pid);
		if (t) {
			a->switches_out++;
			t->runnable = false;
			if (!((uint64_t)ev->arg & a->blocking_mask)) {
				a->preempted++;
				t->runnable = true;
				t->runnable_ns = ev->time_ns;
			}
			t->on_cpu = false;
			/* it ran, so a pending wakeup ended at a switch-in not seen (lost) */
			t->wake_pending = false;
		}
		t = task_of(a, ev->pid2);
		if (t) {
			t->on_cpu = true;
			if (t->wake_pending && ev->cpu >= 0 && ev->cpu < TRACE_MAX_CPUS) {
				uint64_t lat =
					ev->time_ns >= t->wake_ns ? ev->time_ns - t->wake_ns : 0;

				record_on(a->lat, ev->cpu, lat);
				record_on(a->runq, ev->cpu, lat);
				a->wakeups_run++;
				if (ev->cpu == t->wake_prev_cpu)
					a->wake_prev_cpu++;
			} else if (t->runnable && ev->cpu >= 0 && ev->cpu < TRACE_MAX_CPUS) {
				record_on(a->runq, ev->cpu,
					  ev->time_ns >= t->runnable_ns
						  ? ev->time_ns - t->runnable_ns
						  : 0);
			}
			t->wake_pending = false;
			t->runnable = false;
		}
		return;
	case TEV_MIGRATE:
		if (task_of(a, ev->pid))
			a->migrations++;
		return;
	case TEV_LOST: {
		/*
		 * The switch-in that ended a pending wakeup may be among the
		 * lost records: matching it with a later one would invent a
		 * latency. Those wakeups go untimed.
		 */
		size_t i;

		for (i = 0; i < a->ntasks; i++) {
			a->tasks[i].wake_pending = false;
			a->tasks[i].runnable = false;
		}
		return;
	}
	}
}

void trace_analysis_latency(const struct trace_analysis *a, struct hist *out)
{
	int c;

	hist_init(out);
	for (c = 0; c < TRACE_MAX_CPUS; c++)
		if (a->lat[c])
			hist_merge(out, a->lat[c]);
}

void trace_analysis_runq(const struct trace_analysis *a, struct hist *out)
{
	int c;

	hist_init(out);
	for (c = 0; c < TRACE_MAX_CPUS; c++)
		if (a->runq[c])
			hist_merge(out, a->runq[c]);
}

void trace_analysis_release(struct trace_analysis *a)
{
	int c;

	for (c = 0; c < TRACE_MAX_CPUS; c++) {
		free(a->lat[c]);
		free(a->runq[c]);
	}
	free(a->tasks);
	memset(a, 0, sizeof(*a));
}

/* ---- the tracer ---- */

struct tev_queue {
	struct tev *v;
	size_t head, n, cap;
};

struct trace_cpu {
	int cpu;
	int fd[3];
	void *map;
	size_t map_len, data_len;
	struct tev_queue q;
};

struct tracer {
	char tracefs[4096];
	struct trace_decoder dec;
	long page;
	struct trace_cpu *cpus;
	struct trace_cpu **active; /* scratch of merge_until() */
	size_t ncpus;
	struct trace_analysis an;
	bool an_live;
	pthread_t reader;
	bool reader_running;
	int stop_pipe[2];
	uint64_t prev_round_ns;
	unsigned char *scratch; /* a record that wraps the end of a buffer */
	size_t scratch_len;
};

static int online_cpus(int *cpus, int max)
{
	char line[4096];
	uint8_t *bits;
	int n = 0, c;

	bits = xcalloc((size_t)max / 8 + 1, 1);
	if (read_line_file("/sys/devices/system/cpu/online", line, sizeof(line)) ||
	    parse_cpulist(line, bits, (size_t)max) < 0) {
		long k = sysconf(_SC_NPROCESSORS_CONF);

		for (c = 0; c < k && c < max; c++)
			cpus[n++] = c;
		free(bits);
		return n;
	}
	for (c = 0; c < max; c++)
		if (bits[c / 8] >> (c % 8) & 1)
			cpus[n++] = c;
	free(bits);
	return n;
}

static void tp_attr(struct perf_event_attr *attr, unsigned id, size_t watermark)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->config = id;
	attr->sample_period = 1;
	/* the CPU is the buffer's and the task is in the record: time and raw data only */
	attr->sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_TIME;
	attr->sample_id_all = 1; /* PERF_RECORD_LOST carries its time too */
	attr->disabled = 1;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	attr->watermark = 1;
	attr->wakeup_watermark = (uint32_t)watermark;
}

struct tracer *tracer_new(const char *debugfs, char *why, size_t len)
{
	struct tracer *t = xcalloc(1, sizeof(*t));
	struct perf_event_attr attr;
	char reason[96];
	int fd;

	t->stop_pipe[0] = t->stop_pipe[1] = -1;
	t->page = sysconf(_SC_PAGESIZE);
	if (trace_find_tracefs(debugfs, t->tracefs, sizeof(t->tracefs), why, len))
		goto fail;
	if (trace_decoder_init(&t->dec, t->tracefs, why, len))
		goto fail;
	/* the permission that matters: a system-wide tracepoint with raw data */
	tp_attr(&attr, t->dec.fmt[TEV_SWITCH].id, 1);
	fd = perf_open(&attr, -1, 0, -1, 0);
	if (fd < 0) {
		perf_denied_reason(errno, reason, sizeof(reason));
		if (errno == EACCES || errno == EPERM)
			snprintf(why, len, "--trace needs root or CAP_PERFMON (%s)", reason);
		else
			snprintf(why, len,
				 "--trace: cannot open tracepoint sched:sched_switch (%s)", reason);
		goto fail;
	}
	close(fd);
	return t;
fail:
	free(t);
	return NULL;
}

static void close_cpus(struct tracer *t)
{
	size_t i;
	int k;

	for (i = 0; i < t->ncpus; i++) {
		struct trace_cpu *c = &t->cpus[i];

		for (k = 0; k < 3; k++)
			if (c->fd[k] >= 0)
				close(c->fd[k]);
		if (c->map)
			munmap(c->map, c->map_len);
		free(c->q.v);
	}
	free(t->cpus);
	free(t->active);
	t->cpus = NULL;
	t->active = NULL;
	t->ncpus = 0;
	if (t->stop_pipe[0] >= 0)
		close(t->stop_pipe[0]);
	if (t->stop_pipe[1] >= 0)
		close(t->stop_pipe[1]);
	t->stop_pipe[0] = t->stop_pipe[1] = -1;
}

/* "pid==1 || pid==2" for the given field names; NULL when it would be too long. */
static char *tid_filter(const char *f1, const char *f2, const pid_t *tids, size_t n)
{
	size_t cap = 3000, used = 0, i;
	char *s = xmalloc(cap);
	int k;

	s[0] = '\0';
	for (i = 0; i < n; i++) {
		for (k = 0; k < (f2 ? 2 : 1); k++) {
			int w = snprintf(s + used, cap - used, "%s%s==%d", used ? " || " : "",
					 k ? f2 : f1, (int)tids[i]);

			if (w < 0 || (size_t)w >= cap - used) {
				free(s);
				return NULL;
			}
			used += (size_t)w;
		}
	}
	return s;
}

static size_t buffer_bytes(const struct tracer *t, size_t ncpus)
{
	size_t want = (64u << 20) / (ncpus ? ncpus : 1), bytes = (size_t)t->page;

	if (want > (8u << 20))
		want = 8u << 20;
	if (want < (256u << 10))
		want = 256u << 10;
	while (bytes * 2 <= want)
		bytes *= 2;
	return bytes;
}

static void queue_push(struct tev_queue *q, const struct tev *ev)
{
	size_t i;

	if (q->head && q->n == q->cap) {
		memmove(q->v, q->v + q->head, (q->n - q->head) * sizeof(*q->v));
		q->n -= q->head;
		q->head = 0;
	}
	if (q->n == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 4096;
		q->v = xrealloc(q->v, q->cap * sizeof(*q->v));
	}
	/* insertion from the back: the buffer is nearly in time order */
	i = q->n++;
	while (i > q->head && q->v[i - 1].time_ns > ev->time_ns) {
		q->v[i] = q->v[i - 1];
		i--;
	}
	q->v[i] = *ev;
}

/* Read every complete record of one CPU's buffer into its queue. */
static void drain_cpu(struct tracer *t, struct trace_cpu *c)
{
	struct perf_event_mmap_page *mp = c->map;
	unsigned char *data = (unsigned char *)c->map + t->page;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = mp->data_tail;

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		size_t off = (size_t)(tail % c->data_len), first;
		unsigned char *rec;

		first = c->data_len - off;
		if (first >= sizeof(h)) {
			memcpy(&h, data + off, sizeof(h));
		} else {
			memcpy(&h, data + off, first);
			memcpy((unsigned char *)&h + first, data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (first >= h.size) {
			rec = data + off;
		} else {
			if (t->scratch_len < h.size) {
				t->scratch = xrealloc(t->scratch, h.size);
				t->scratch_len = h.size;
			}
			memcpy(t->scratch, data + off, first);
			memcpy(t->scratch + first, data, h.size - first);
			rec = t->scratch;
		}
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + 12) {
			/* TIME, RAW (size, data) */
			const unsigned char *p = rec + sizeof(h);
			uint64_t time_ns;
			uint32_t rawlen;
			struct tev ev;

			memcpy(&time_ns, p, 8);
			memcpy(&rawlen, p + 8, 4);
			t->an.records++;
			if (12 + (size_t)rawlen <= h.size - sizeof(h) &&
			    !trace_decode(&t->dec, p + 12, rawlen, &ev)) {
				ev.time_ns = time_ns;
				ev.cpu = c->cpu;
				queue_push(&c->q, &ev);
			}
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			uint64_t lost;

			memcpy(&lost, rec + sizeof(h) + 8, 8);
			t->an.lost += lost;
			/* id, lost, then the sample_id: TIME */
			if (h.size >= sizeof(h) + 24) {
				struct tev ev = { .cpu = c->cpu,
						  .kind = TEV_LOST,
						  .arg = (int64_t)lost };

				memcpy(&ev.time_ns, rec + sizeof(h) + 16, 8);
				queue_push(&c->q, &ev);
			}
		}
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

/*
 * Analyse, in merged time order, every queued event older than horizon_ns.
 * Only the CPUs with such events take part (the workload usually runs on
 * a few of many).
 */
static void merge_until(struct tracer *t, uint64_t horizon_ns)
{
	size_t i, n = 0;

	for (i = 0; i < t->ncpus; i++) {
		struct tev_queue *q = &t->cpus[i].q;

		if (q->head < q->n && q->v[q->head].time_ns < horizon_ns)
			t->active[n++] = &t->cpus[i];
	}
	while (n) {
		size_t best = 0;
		struct tev_queue *q;

		for (i = 1; i < n; i++)
			if (t->active[i]->q.v[t->active[i]->q.head].time_ns <
			    t->active[best]->q.v[t->active[best]->q.head].time_ns)
				best = i;
		q = &t->active[best]->q;
		trace_analysis_event(&t->an, &q->v[q->head]);
		if (++q->head == q->n)
			q->head = q->n = 0;
		if (q->head == q->n || q->v[q->head].time_ns >= horizon_ns)
			t->active[best] = t->active[--n];
	}
}

static void round_once(struct tracer *t, bool final)
{
	uint64_t start = now_ns();
	size_t i;

	for (i = 0; i < t->ncpus; i++)
		drain_cpu(t, &t->cpus[i]);
	merge_until(t, final ? UINT64_MAX : t->prev_round_ns);
	t->prev_round_ns = start;
}

static void *reader_main(void *arg)
{
	struct tracer *t = arg;
	struct pollfd *pfd = xcalloc(t->ncpus + 1, sizeof(*pfd));
	size_t i;

	for (i = 0; i < t->ncpus; i++) {
		pfd[i].fd = t->cpus[i].fd[0];
		pfd[i].events = POLLIN;
	}
	pfd[t->ncpus].fd = t->stop_pipe[0];
	pfd[t->ncpus].events = POLLIN;
	for (;;) {
		int n = poll(pfd, t->ncpus + 1, 100);

		if (n < 0 && errno != EINTR)
			break;
		if (pfd[t->ncpus].revents)
			break;
		round_once(t, false);
	}
	free(pfd);
	return NULL;
}

int tracer_start(struct tracer *t, const pid_t *tids, size_t n)
{
	int *cpus = xmalloc(TRACE_MAX_CPUS * sizeof(*cpus));
	int nc = online_cpus(cpus, TRACE_MAX_CPUS), k, rc;
	size_t i, bytes;
	char *filter[3];

	if (t->an_live)
		trace_analysis_release(&t->an);
	trace_analysis_init(&t->an, tids, n, t->dec.blocking_mask);
	t->an_live = true;
	filter[TEV_WAKING] = tid_filter(t->dec.waking_pid->name, NULL, tids, n);
	filter[TEV_SWITCH] =
		tid_filter(t->dec.switch_prev_pid->name, t->dec.switch_next_pid->name, tids, n);
	filter[TEV_MIGRATE] = tid_filter(t->dec.migrate_pid->name, NULL, tids, n);

	t->cpus = xcalloc((size_t)nc, sizeof(*t->cpus));
	t->active = xcalloc((size_t)nc, sizeof(*t->active));
	t->ncpus = (size_t)nc;
	for (i = 0; i < t->ncpus; i++) {
		t->cpus[i].cpu = cpus[i];
		for (k = 0; k < 3; k++)
			t->cpus[i].fd[k] = -1;
	}
	free(cpus);
	if (pipe2(t->stop_pipe, O_CLOEXEC)) {
		error_errno("--trace: pipe");
		goto fail;
	}
	bytes = buffer_bytes(t, t->ncpus);
	for (i = 0; i < t->ncpus; i++) {
		struct trace_cpu *c = &t->cpus[i];

		for (k = 0; k < 3; k++) {
			struct perf_event_attr attr;

			tp_attr(&attr, t->dec.fmt[k].id, bytes / 4);
			c->fd[k] = perf_open(&attr, -1, c->cpu, -1, 0);
			if (c->fd[k] < 0) {
				error_errno("--trace: cannot open sched:%s on CPU %d",
					    trace_event_names[k], c->cpu);
				goto fail;
			}
			if (filter[k] && ioctl(c->fd[k], PERF_EVENT_IOC_SET_FILTER, filter[k]))
				debug("--trace: kernel filter refused for %s: %s",
				      trace_event_names[k], strerror(errno));
		}
		/* one buffer per CPU; smaller when the mlock limit refuses */
		for (c->data_len = bytes; c->data_len >= 2 * (size_t)t->page; c->data_len /= 2) {
			c->map_len = c->data_len + (size_t)t->page;
			c->map = mmap(NULL, c->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
				      c->fd[0], 0);
			if (c->map != MAP_FAILED)
				break;
			c->map = NULL;
		}
		if (!c->map) {
			error_errno("--trace: cannot map a ring buffer for CPU %d", c->cpu);
			goto fail;
		}
		for (k = 1; k < 3; k++)
			if (ioctl(c->fd[k], PERF_EVENT_IOC_SET_OUTPUT, c->fd[0])) {
				error_errno("--trace: cannot share the buffer of CPU %d", c->cpu);
				goto fail;
			}
	}
	t->prev_round_ns = now_ns();
	rc = pthread_create(&t->reader, NULL, reader_main, t);
	if (rc) {
		errno = rc;
		error_errno("--trace: cannot start the reader thread");
		goto fail;
	}
	t->reader_running = true;
	for (i = 0; i < t->ncpus; i++)
		for (k = 0; k < 3; k++)
			ioctl(t->cpus[i].fd[k], PERF_EVENT_IOC_ENABLE, 0);
	for (k = 0; k < 3; k++)
		free(filter[k]);
	return 0;
fail:
	for (k = 0; k < 3; k++)
		free(filter[k]);
	close_cpus(t);
	return -1;
}

void tracer_stop(struct tracer *t, const struct trace_analysis **out)
{
	size_t i;
	int k;

	for (i = 0; i < t->ncpus; i++)
		for (k = 0; k < 3; k++)
			if (t->cpus[i].fd[k] >= 0)
				ioctl(t->cpus[i].fd[k], PERF_EVENT_IOC_DISABLE, 0);
	if (t->reader_running) {
		if (write(t->stop_pipe[1], "x", 1) != 1)
			BUG("cannot stop the trace reader: %s", strerror(errno));
		pthread_join(t->reader, NULL);
		t->reader_running = false;
	}
	if (t->ncpus)
		round_once(t, true);
	close_cpus(t);
	*out = &t->an;
}

void tracer_free(struct tracer *t)
{
	const struct trace_analysis *unused;

	if (!t)
		return;
	if (t->ncpus || t->reader_running)
		tracer_stop(t, &unused);
	if (t->an_live)
		trace_analysis_release(&t->an);
	free(t->scratch);
	free(t);
}
