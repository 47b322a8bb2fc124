/*
 * procfs.h: per-task scheduler counters from /proc (DESIGN section 7).
 *
 * For every workload task the runner reads, before the task is reaped:
 *   /proc/<pid>/status     voluntary_ctxt_switches, nonvoluntary_ctxt_switches
 *   /proc/<pid>/sched      se.nr_migrations (always from 6.15, earlier only
 *                          with CONFIG_SCHED_DEBUG)
 *   /proc/<pid>/schedstat  sum_exec_runtime_ns run_delay_ns timeslices
 *                          (CONFIG_SCHED_INFO)
 * For a thread the same files under /proc/<pid>/task/<tid>/. What cannot be
 * read is kept as an error code per file, turned into a reason with
 * procfs_why(), so that a missing counter is reported as unavailable and
 * never as zero. The structure is plain data: it lives in shared memory.
 */
#ifndef WAKEBENCH_PROCFS_H
#define WAKEBENCH_PROCFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum procfs_kind {
	PROCFS_STATUS = 0,
	PROCFS_SCHED,
	PROCFS_SCHEDSTAT,
	PROCFS_NKINDS,
};

/* err[] value when the file was read but lacks the field. */
#define PROCFS_ENOFIELD (-1)
/* err[] value when the task was never read (e.g. it died first). */
#define PROCFS_ENOTREAD (-2)
/*
 * err[] value when schedstat reads "0 0 0": older kernels print that when
 * sched_info is off (no schedstats, delay accounting off). A task that ran
 * always has a nonzero runtime, so zeros mean "not measured".
 */
#define PROCFS_EZERO (-3)

struct procfs_task {
	int err[PROCFS_NKINDS]; /* 0: read; errno; PROCFS_ENOFIELD, _ENOTREAD, _EZERO */
	uint64_t nvcsw;		/* status */
	uint64_t nivcsw;
	uint64_t nr_migrations; /* sched */
	uint64_t exec_ns;	/* schedstat */
	uint64_t run_delay_ns;
	uint64_t timeslices;
};

/* Mark every counter of t as not read yet. */
void procfs_task_init(struct procfs_task *t);

/*
 * Read the counters of a process (tid 0) or of one thread of it. Never
 * fails as a whole: each file's outcome is in t->err[]. Uses no heap, so it
 * is safe in a freshly forked instance process.
 */
void procfs_read_task(pid_t pid, pid_t tid, struct procfs_task *t);

/* Parsers of the files' text; 0 on success, -1 when the field is absent. */
int procfs_parse_status(const char *text, uint64_t *nvcsw, uint64_t *nivcsw);
int procfs_parse_sched(const char *text, uint64_t *nr_migrations);
int procfs_parse_schedstat(const char *text, uint64_t *exec_ns, uint64_t *run_delay_ns,
			   uint64_t *timeslices);

/* Why a counter of kind k with error err is unavailable, as one phrase. */
void procfs_why(enum procfs_kind k, int err, char *buf, size_t len);

#endif
