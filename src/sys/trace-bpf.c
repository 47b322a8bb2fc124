/*
 * trace-bpf.c: the user-space half of the BPF tracer (trace-bpf.h).
 *
 * The object is built from src/sys/bpf/sched-trace.bpf.c by clang's BPF
 * target and embedded by a libbpf skeleton (bpftool gen skeleton) that the
 * Makefile generates in the build directory; WAKEBENCH_BPF is then defined.
 * A wakebench built where clang or bpftool were missing says so instead
 * (WAKEBENCH_BPF_MISSING holds why).
 */
#include "sys/trace-bpf.h"
#include "util/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef WAKEBENCH_BPF

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "core/hist.h"
#include "sys/bpf/sched-trace.h"
/* generated: its casts are bpftool's */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wcast-qual"
#include "sched-trace.skel.h"
#pragma GCC diagnostic pop

/* The kernel's histograms are stats/hist.h's, bucket for bucket. */
_Static_assert(WB_HIST_SUB_BITS == HIST_SUB_BITS, "BPF histogram sub-buckets");
_Static_assert(WB_HIST_MAX_BITS == HIST_MAX_BITS, "BPF histogram range");
_Static_assert(WB_HIST_BUCKETS == HIST_BUCKETS, "BPF histogram buckets");

struct bpf_tracer {
	struct sched_trace_bpf *skel;
	int ncpus;   /* possible CPUs: the per-CPU maps' width */
	pid_t *tids; /* in the tasks map now */
	size_t ntids;
	uint64_t misses0; /* recursion misses of the programs at the start */
	struct trace_analysis an;
	bool an_live;
	struct wb_cpu *scratch;
};

/*
 * What libbpf printed while loading: its last line, and the verifier's
 * complaint (the log line before "processed N insns") when it rejected a
 * program (EACCES, which is not a permission problem then).
 */
static char last_msg[256], verifier_msg[256];

static void note_verifier(const char *log)
{
	const char *p = strstr(log, "\nprocessed "), *b;

	if (!p)
		return;
	for (b = p; b > log && b[-1] != '\n'; b--)
		;
	if (b == log)
		return;
	snprintf(verifier_msg, sizeof(verifier_msg), "%.*s", (int)(p - b), b);
}

static int capture_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static char text[65536];
	size_t n;

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(text, sizeof(text), fmt, ap);
	note_verifier(text);
	n = strlen(text);
	while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
		text[--n] = '\0';
	if (n)
		snprintf(last_msg, sizeof(last_msg), "%s", text);
	return 0;
}

/*
 * "integrity" or "confidentiality" when the kernel is locked down, "" when
 * it is not, "unknown" when securityfs is not mounted to tell.
 */
static void lockdown_mode(char *buf, size_t len)
{
	char line[128], *l, *r;

	buf[0] = '\0';
	if (read_line_file("/sys/kernel/security/lockdown", line, sizeof(line))) {
		if (errno == ENOENT)
			snprintf(buf, len, "unknown");
		return;
	}
	l = strchr(line, '[');
	r = l ? strchr(l, ']') : NULL;
	if (!l || !r || (size_t)(r - l - 1) >= len)
		return;
	*r = '\0';
	if (strcmp(l + 1, "none"))
		snprintf(buf, len, "%s", l + 1);
}

static void load_reason(int err, char *why, size_t len)
{
	char lock[64];

	lockdown_mode(lock, sizeof(lock));
	if (err == EACCES && verifier_msg[0]) {
		snprintf(why, len,
			 "--trace=bpf: the kernel's verifier rejected the BPF programs: %s",
			 verifier_msg);
		return;
	}
	switch (err) {
	case EPERM:
	case EACCES:
		/* root refused: lockdown=confidentiality or a security module */
		if (geteuid() == 0 && !strcmp(lock, "unknown"))
			snprintf(why, len,
				 "--trace=bpf: the kernel refuses the BPF programs to root (%s): "
				 "lockdown=confidentiality or a security module (securityfs is not "
				 "mounted to tell)",
				 strerror(err));
		else if (geteuid() == 0 && lock[0])
			snprintf(why, len,
				 "--trace=bpf: the kernel is locked down (lockdown=%s) and refuses "
				 "the BPF programs (%s)",
				 lock, strerror(err));
		else if (geteuid() == 0)
			snprintf(why, len,
				 "--trace=bpf: the kernel refuses the BPF programs to root (%s): a "
				 "security module",
				 strerror(err));
		else
			snprintf(why, len,
				 "--trace=bpf needs root or CAP_BPF and CAP_PERFMON (loading the "
				 "BPF "
				 "programs: %s)%s%s",
				 strerror(err),
				 lock[0] && strcmp(lock, "unknown")
					 ? "; the kernel is also locked down: "
					 : "",
				 lock[0] && strcmp(lock, "unknown") ? lock : "");
		return;
	case ENOSYS:
		snprintf(why, len, "--trace=bpf: the bpf(2) system call is not available (%s)",
			 strerror(err));
		return;
	default:
		snprintf(why, len, "--trace=bpf: loading the BPF programs failed (%s)%s%.200s",
			 strerror(err), last_msg[0] ? ": " : "", last_msg);
		return;
	}
}

bool bpf_tracer_built(void)
{
	return true;
}

/* The largest tid + 1 (kernel.pid_max; the 64-bit limit when unreadable). */
static uint32_t pid_max(void)
{
	char line[32];
	uint64_t v;

	if (read_line_file("/proc/sys/kernel/pid_max", line, sizeof(line)) || parse_u64(line, &v) ||
	    v < 2 || v > 4194304)
		return 4194304;
	return (uint32_t)v;
}

struct bpf_tracer *bpf_tracer_new(char *why, size_t len)
{
	struct bpf_tracer *t;
	libbpf_print_fn_t old;
	int err, n;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		if (errno == ENOENT)
			snprintf(why, len,
				 "--trace=bpf needs the kernel's BTF: /sys/kernel/btf/vmlinux does "
				 "not exist (a kernel built without CONFIG_DEBUG_INFO_BTF)");
		else
			snprintf(why, len,
				 "--trace=bpf needs root or CAP_BPF and CAP_PERFMON (cannot read "
				 "/sys/kernel/btf/vmlinux: %s)",
				 strerror(errno));
		return NULL;
	}
	n = libbpf_num_possible_cpus();
	if (n <= 0 || n > TRACE_MAX_CPUS) {
		snprintf(why, len, "--trace=bpf: cannot use %d possible CPUs (at most %d)", n,
			 TRACE_MAX_CPUS);
		return NULL;
	}
	t = xcalloc(1, sizeof(*t));
	t->ncpus = n;
	last_msg[0] = verifier_msg[0] = '\0';
	old = libbpf_set_print(capture_print);
	t->skel = sched_trace_bpf__open();
	if (!t->skel) {
		err = errno;
		goto fail;
	}
	if (bpf_map__set_max_entries(t->skel->maps.slots, pid_max() + 1) ||
	    bpf_map__set_max_entries(t->skel->maps.cpus, (uint32_t)n)) {
		err = errno;
		goto fail;
	}
	if (sched_trace_bpf__load(t->skel)) {
		err = errno;
		goto fail;
	}
	libbpf_set_print(old);
	t->scratch = xmalloc(sizeof(*t->scratch));
	debug("BPF tracer loaded (%d possible CPUs)", n);
	return t;
fail:
	libbpf_set_print(old);
	load_reason(err ? err : EINVAL, why, len);
	sched_trace_bpf__destroy(t->skel);
	free(t);
	return NULL;
}

/* Recursion misses of the three programs (runs the kernel skipped), 0 if unknown. */
static uint64_t prog_misses(struct bpf_tracer *t)
{
	const struct bpf_program *progs[] = { t->skel->progs.wb_waking, t->skel->progs.wb_switch,
					      t->skel->progs.wb_migrate };
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(progs); i++) {
		struct bpf_prog_info info;
		uint32_t ilen = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(bpf_program__fd(progs[i]), &info, &ilen))
			sum += info.recursion_misses;
	}
	return sum;
}

static int reset_maps(struct bpf_tracer *t)
{
	int sfd = bpf_map__fd(t->skel->maps.slots), cfd = bpf_map__fd(t->skel->maps.cpus);
	uint32_t key = 0, k;
	uint16_t none = 0;
	size_t i;
	int ret = 0;

	/* the previous sample's tasks are no longer followed */
	for (i = 0; i < t->ntids; i++) {
		key = (uint32_t)t->tids[i];
		bpf_map_update_elem(sfd, &key, &none, BPF_ANY);
	}
	memset(t->scratch, 0, sizeof(*t->scratch));
	for (k = 0; k < WB_NHIST; k++)
		t->scratch->hist[k].min = UINT64_MAX;
	for (k = 0; k < (uint32_t)t->ncpus; k++)
		if (bpf_map_update_elem(cfd, &k, t->scratch, BPF_ANY))
			ret = -1;
	return ret;
}

int bpf_tracer_start(struct bpf_tracer *t, const pid_t *tids, size_t n)
{
	int tfd = bpf_map__fd(t->skel->maps.tasks), sfd = bpf_map__fd(t->skel->maps.slots);
	struct wb_task task;
	size_t i;

	sched_trace_bpf__detach(t->skel);
	if (t->an_live)
		trace_analysis_release(&t->an);
	t->an_live = false;
	if (n > WB_MAX_TASKS) {
		error("--trace=bpf: %zu tasks, the BPF tracer follows at most %d", n, WB_MAX_TASKS);
		return -1;
	}
	if (reset_maps(t)) {
		error("--trace=bpf: cannot reset the BPF maps: %s", strerror(errno));
		return -1;
	}
	free(t->tids);
	t->tids = xcalloc(n ? n : 1, sizeof(*t->tids));
	t->ntids = 0;
	memset(&task, 0, sizeof(task));
	for (i = 0; i < n; i++) {
		uint32_t key = (uint32_t)tids[i], slot = (uint32_t)i + 1;
		uint16_t s16 = (uint16_t)slot;

		if (bpf_map_update_elem(tfd, &slot, &task, BPF_ANY) ||
		    bpf_map_update_elem(sfd, &key, &s16, BPF_ANY)) {
			error("--trace=bpf: cannot add task %d to the BPF maps: %s", (int)tids[i],
			      strerror(errno));
			return -1;
		}
		t->tids[t->ntids++] = tids[i];
	}
	t->misses0 = prog_misses(t);
	if (sched_trace_bpf__attach(t->skel)) {
		error("--trace=bpf: cannot attach the BPF programs: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Add a kernel histogram to *h (allocated on first use). */
static void add_hist(struct hist **h, const struct wb_hist *w)
{
	struct hist *x;
	size_t i;

	if (!w->count)
		return;
	if (!*h) {
		*h = xmalloc(sizeof(**h));
		hist_init(*h);
	}
	x = *h;
	x->count += w->count;
	x->overflow += w->overflow;
	x->sum += (double)w->sum;
	if (w->min < x->min)
		x->min = w->min;
	if (w->max > x->max)
		x->max = w->max;
	for (i = 0; i < HIST_BUCKETS; i++)
		x->buckets[i] += w->buckets[i];
}

void bpf_tracer_stop(struct bpf_tracer *t, const struct trace_analysis **out)
{
	int cfd = bpf_map__fd(t->skel->maps.cpus);
	struct trace_analysis *an = &t->an;
	const struct wb_cpu *c = t->scratch;
	uint32_t k;

	sched_trace_bpf__detach(t->skel);
	if (t->an_live)
		trace_analysis_release(an);
	trace_analysis_init(an, t->tids, t->ntids, 0);
	t->an_live = true;
	for (k = 0; k < (uint32_t)t->ncpus; k++) {
		if (bpf_map_lookup_elem(cfd, &k, t->scratch)) {
			warning("--trace=bpf: cannot read the BPF records of CPU %u: %s", k,
				strerror(errno));
			continue;
		}
		an->records += c->c.events;
		an->wakings += c->c.wakings;
		an->wakeups_run += c->c.wakeups_run;
		an->wake_prev_cpu += c->c.wake_prev_cpu;
		an->switches_out += c->c.switches_out;
		an->preempted += c->c.preempted;
		an->migrations += c->c.migrations;
		/* a wakeup's run-queue wait is its latency: runq is both histograms */
		add_hist(&an->lat[k], &c->hist[WB_HIST_WAKEUP]);
		add_hist(&an->runq[k], &c->hist[WB_HIST_WAKEUP]);
		add_hist(&an->runq[k], &c->hist[WB_HIST_PREEMPT]);
	}
	an->lost = prog_misses(t) - t->misses0;
	*out = an;
}

void bpf_tracer_free(struct bpf_tracer *t)
{
	if (!t)
		return;
	sched_trace_bpf__destroy(t->skel);
	if (t->an_live)
		trace_analysis_release(&t->an);
	free(t->tids);
	free(t->scratch);
	free(t);
}

#else /* !WAKEBENCH_BPF */

#ifndef WAKEBENCH_BPF_MISSING
#define WAKEBENCH_BPF_MISSING "not built"
#endif

struct bpf_tracer {
	int unused;
};

bool bpf_tracer_built(void)
{
	return false;
}

struct bpf_tracer *bpf_tracer_new(char *why, size_t len)
{
	snprintf(why, len, "--trace=bpf: this wakebench was built without its BPF object (%s)",
		 WAKEBENCH_BPF_MISSING);
	return NULL;
}

int bpf_tracer_start(struct bpf_tracer *t, const pid_t *tids, size_t n)
{
	(void)t;
	(void)tids;
	(void)n;
	errno = ENOSYS;
	return -1;
}

void bpf_tracer_stop(struct bpf_tracer *t, const struct trace_analysis **out)
{
	(void)t;
	*out = NULL;
}

void bpf_tracer_free(struct bpf_tracer *t)
{
	free(t);
}

#endif
