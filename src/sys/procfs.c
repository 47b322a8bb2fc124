/*
 * procfs.c: per-task scheduler counters from /proc/<pid>/{status,sched,
 * schedstat} and their thread equivalents (see procfs.h). The parsers work
 * on text so that they are tested on fixture files from real kernels; the
 * reader uses only stack buffers and raw syscalls because it runs in
 * instance processes right before they exit.
 */
#include "sys/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void procfs_task_init(struct procfs_task *t)
{
	int k;

	memset(t, 0, sizeof(*t));
	for (k = 0; k < PROCFS_NKINDS; k++)
		t->err[k] = PROCFS_ENOTREAD;
}

/* Parse an unsigned decimal number after optional blanks; -1 if none. */
static int parse_field_u64(const char *p, uint64_t *out)
{
	char *end;
	unsigned long long v;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p < '0' || *p > '9')
		return -1;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno || end == p)
		return -1;
	*out = v;
	return 0;
}

/*
 * Find the line starting with `key` followed by blanks and `sep`, and parse
 * the number after the separator.
 */
static int find_key(const char *text, const char *key, char sep, uint64_t *out)
{
	size_t klen = strlen(key);
	const char *line = text;

	while (line && *line) {
		if (!strncmp(line, key, klen)) {
			const char *p = line + klen;

			while (*p == ' ' || *p == '\t')
				p++;
			if (*p == sep)
				return parse_field_u64(p + 1, out);
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return -1;
}

int procfs_parse_status(const char *text, uint64_t *nvcsw, uint64_t *nivcsw)
{
	if (find_key(text, "voluntary_ctxt_switches", ':', nvcsw) ||
	    find_key(text, "nonvoluntary_ctxt_switches", ':', nivcsw))
		return -1;
	return 0;
}

int procfs_parse_sched(const char *text, uint64_t *nr_migrations)
{
	return find_key(text, "se.nr_migrations", ':', nr_migrations);
}

int procfs_parse_schedstat(const char *text, uint64_t *exec_ns, uint64_t *run_delay_ns,
			   uint64_t *timeslices)
{
	unsigned long long a, b, c;

	if (sscanf(text, "%llu %llu %llu", &a, &b, &c) != 3)
		return -1;
	*exec_ns = a;
	*run_delay_ns = b;
	*timeslices = c;
	return 0;
}

/* Read a small proc file into buf (NUL-terminated); errno or 0. */
static int read_small(const char *path, char *buf, size_t len)
{
	size_t used = 0;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	while (used < len - 1) {
		ssize_t n = read(fd, buf + used, len - 1 - used);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			close(fd);
			return e;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	buf[used] = '\0';
	close(fd);
	return 0;
}

void procfs_read_task(pid_t pid, pid_t tid, struct procfs_task *t)
{
	char dir[64], path[96], buf[8192];
	int e;

	if (tid > 0)
		snprintf(dir, sizeof(dir), "/proc/%d/task/%d", (int)pid, (int)tid);
	else
		snprintf(dir, sizeof(dir), "/proc/%d", (int)pid);

	snprintf(path, sizeof(path), "%s/status", dir);
	e = read_small(path, buf, sizeof(buf));
	if (!e && procfs_parse_status(buf, &t->nvcsw, &t->nivcsw))
		e = PROCFS_ENOFIELD;
	t->err[PROCFS_STATUS] = e;

	snprintf(path, sizeof(path), "%s/sched", dir);
	e = read_small(path, buf, sizeof(buf));
	if (!e && procfs_parse_sched(buf, &t->nr_migrations))
		e = PROCFS_ENOFIELD;
	t->err[PROCFS_SCHED] = e;

	snprintf(path, sizeof(path), "%s/schedstat", dir);
	e = read_small(path, buf, sizeof(buf));
	if (!e && procfs_parse_schedstat(buf, &t->exec_ns, &t->run_delay_ns, &t->timeslices))
		e = PROCFS_ENOFIELD;
	else if (!e && !t->exec_ns && !t->run_delay_ns && !t->timeslices)
		e = PROCFS_EZERO;
	t->err[PROCFS_SCHEDSTAT] = e;
}

void procfs_why(enum procfs_kind k, int err, char *buf, size_t len)
{
	static const char *const file[PROCFS_NKINDS] = {
		[PROCFS_STATUS] = "/proc/<pid>/status",
		[PROCFS_SCHED] = "/proc/<pid>/sched",
		[PROCFS_SCHEDSTAT] = "/proc/<pid>/schedstat",
	};

	if (err == PROCFS_EZERO) {
		snprintf(buf, len,
			 "%s reads 0 0 0: sched_info is off (enable schedstats or "
			 "delayacct)",
			 file[k]);
	} else if (err == PROCFS_ENOTREAD) {
		snprintf(buf, len, "%s of a task was not read (the task ended first)", file[k]);
	} else if (err == PROCFS_ENOFIELD) {
		if (k == PROCFS_SCHED)
			snprintf(buf, len, "%s has no se.nr_migrations", file[k]);
		else
			snprintf(buf, len, "%s lacks the expected fields", file[k]);
	} else if (err == ENOENT && k == PROCFS_SCHED) {
		snprintf(buf, len, "%s absent (kernel before 6.15 without CONFIG_SCHED_DEBUG)",
			 file[k]);
	} else if (err == ENOENT && k == PROCFS_SCHEDSTAT) {
		snprintf(buf, len, "%s absent (kernel without CONFIG_SCHED_INFO)", file[k]);
	} else {
		snprintf(buf, len, "cannot read %s: %s", file[k], strerror(err));
	}
}
