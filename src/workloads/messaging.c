/*
 * messaging.c: hackbench, as rt-tests 2.4 and perf bench sched messaging
 * (perf 6.1) run it.
 *
 * An instance is one hackbench run: --groups groups, each of --fds
 * receivers and --fds senders. Every sender writes --loops messages of
 * --datasize bytes to every receiver of its group, round-robin over the
 * receivers (loop i: receiver 0, 1, .. fds-1); every receiver reads
 * fds * loops messages from its one channel, which all senders of its group
 * write into. The channels are Unix stream socketpairs (the default of both
 * references) or pipes (--pipe); the tasks are processes (the default) or
 * threads of the instance process (--threads). Task 0, the instance process,
 * only creates the others, starts them and waits for them, as hackbench's
 * main does. Writes and reads of a message are completed across short
 * transfers; one op is one message read in full by its receiver.
 *
 * Creation order and fds are hackbench's: group by group, first the
 * receivers (the instance process makes the channel, forks the receiver,
 * which closes the write end, and the parent closes the read end), then the
 * senders, which inherit the group's write ends; the parent then closes them.
 * Task numbers follow that order (task 1 + g * 2 * fds + k: receiver k for
 * k < fds, sender k - fds after).
 *
 * Timing: hackbench's "Time:" runs from the start signal until every task
 * has exited and been reaped (wait() or pthread_join()). Here the start
 * is the runner's common release (the earliest clock reading of a task
 * leaving it), and the end is noted when the last task
 * has exited, before its counters are read and it is reaped, so that the
 * reading of 2 * fds * groups tasks' /proc counters stays out of the time:
 *  - processes: every task holds the write end of an "alive" pipe until it
 *    exits (the kernel closes files after the mm is torn down), so EOF on
 *    its read end is "the last task has exited";
 *  - threads: a thread's counters must be read before it exits, so each
 *    one, its work done, waits on a futex until all are done; the last one
 *    notes the end and wakes the others, which then read their counters and
 *    exit. The threads' exit and join (microseconds) are not in the time.
 * messaging_run_s is that time; real_s (the runner's, to the return of the
 * instance) also holds the reading of the counters and the reaping.
 *
 * Failure: a task whose read or write fails records why, tells task 0
 * (a byte in the alive pipe; threads: the shared abort flag) and exits
 * with status 1; a process that dies of a signal interrupts task 0 with
 * SIGCHLD. Task 0 then SIGKILLs the processes (threads: it sends SIGUSR2,
 * whose handler interrupts a blocked read or write, until they have left)
 * and the sample fails with the first reason. The stop (the -t limit or a
 * stop signal) needs nothing of our own: the runner's SIGALRM interrupts
 * every blocked task, which then sees !instance_running() and leaves.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/instance.h"
#include "core/metrics.h"
#include "core/sample.h"
#include "sys/image.h"
#include "util/util.h"
#include "workloads/workload.h"

enum messaging_variant {
	MSG_RT_TESTS_2_4 = 0, /* rt-tests 2.4 hackbench: the message buffer filled with '-' */
	MSG_PERF_6_1,	      /* perf 6.1 bench sched messaging: the buffer left as it is */
};

struct messaging_params {
	uint64_t groups;   /* hackbench -g */
	uint64_t fds;	   /* senders and receivers per group, hackbench -f */
	uint64_t loops;	   /* messages from each sender to each receiver, -l */
	uint64_t datasize; /* bytes per message, hackbench -s */
	bool pipe;	   /* pipes instead of socketpairs, -p */
	bool socket;	   /* socketpairs, said explicitly */
	bool threads;	   /* tasks are threads, hackbench -T, perf -t */
	bool processes;	   /* tasks are processes, said explicitly (hackbench -P) */
	int variant;	   /* enum messaging_variant: set by the profile only */
};

/* rt-tests 2.4 src/hackbench/hackbench.c: groups 10, fds 20, loops 100, datasize 100. */
static const struct messaging_params messaging_defaults = {
	.groups = 10,
	.fds = 20,
	.loops = 100,
	.datasize = 100,
	.variant = MSG_RT_TESTS_2_4,
};

/* perf 6.1 tools/perf/bench/sched-messaging.c: the same numbers, DATASIZE fixed at 100. */
static const struct messaging_params messaging_perf = {
	.groups = 10,
	.fds = 20,
	.loops = 100,
	.datasize = 100,
	.variant = MSG_PERF_6_1,
};

#define MSG_MAX_GROUPS	 10000
#define MSG_MAX_FDS	 1000
#define MSG_MAX_LOOPS	 1000000000ULL
#define MSG_MAX_DATASIZE (1024 * 1024)
/* Threads read their /proc counters on their own stack (hackbench: PTHREAD_STACK_MIN). */
#define MSG_THREAD_STACK (64 * 1024)

static const struct opt messaging_opts[] = {
	{ .type = OPT_UINT,
	  .long_name = "groups",
	  .short_name = 'g',
	  .offset = offsetof(struct messaging_params, groups),
	  .argh = "N",
	  .help = "groups of senders and receivers (hackbench -g)",
	  .min = 1,
	  .max = MSG_MAX_GROUPS },
	{ .type = OPT_UINT,
	  .long_name = "fds",
	  .offset = offsetof(struct messaging_params, fds),
	  .argh = "N",
	  .help = "senders and receivers in each group (hackbench -f)",
	  .min = 1,
	  .max = MSG_MAX_FDS },
	{ .type = OPT_UINT,
	  .long_name = "loops",
	  .short_name = 'l',
	  .offset = offsetof(struct messaging_params, loops),
	  .argh = "N",
	  .help = "messages each sender writes to each receiver of its group (hackbench -l)",
	  .min = 1,
	  .max = (double)MSG_MAX_LOOPS },
	{ .type = OPT_SIZE,
	  .long_name = "datasize",
	  .offset = offsetof(struct messaging_params, datasize),
	  .argh = "SIZE",
	  .help = "bytes per message (hackbench -s)",
	  .min = 1,
	  .max = MSG_MAX_DATASIZE },
	{ .type = OPT_FLAG,
	  .long_name = "pipe",
	  .offset = offsetof(struct messaging_params, pipe),
	  .help = "pipes instead of Unix socketpairs (hackbench -p)" },
	{ .type = OPT_FLAG,
	  .long_name = "socket",
	  .offset = offsetof(struct messaging_params, socket),
	  .help = "Unix stream socketpairs, said explicitly (the default without --pipe)" },
	{ .type = OPT_FLAG,
	  .long_name = "threads",
	  .offset = offsetof(struct messaging_params, threads),
	  .help = "senders and receivers are threads of one process (hackbench -T, perf -t)" },
	{ .type = OPT_FLAG,
	  .long_name = "processes",
	  .offset = offsetof(struct messaging_params, processes),
	  .help = "senders and receivers are processes, said explicitly (the default without "
		  "--threads, hackbench -P)" },
	OPT_END_ROW,
};

static const struct profile messaging_profiles[] = {
	{ .name = "hackbench",
	  .summary = "rt-tests 2.4 hackbench: 10 groups of 20 senders and 20 receivers, 100 "
		     "messages of 100 bytes, socketpairs, processes (as light as hackbench's: "
		     "wakebench's own libraries unmapped); one op = one message",
	  .params = &messaging_defaults,
	  .tool = "hackbench" },
	{ .name = "perf-bench-sched-messaging",
	  .summary = "perf 6.1 bench sched messaging: the same numbers, the message "
		     "buffer not filled, processes carrying every library mapped",
	  .params = &messaging_perf,
	  .tool = "perf" },
	{ .name = NULL },
};

static const char *const messaging_roles[] = { "main", "receiver", "sender", NULL };

enum { ROLE_MAIN = 0, ROLE_RECEIVER, ROLE_SENDER };

/*
 * The workload's shared area: what put_metrics() reads, and the futex word
 * and abort flag that tasks of a threaded instance wait on.
 */
struct messaging_shared {
	uint64_t start_ns;    /* the release: the earliest clock read of a task after it */
	uint64_t end_ns;      /* the last sender or receiver exited (threads: finished) */
	uint64_t last_msg_ns; /* the last message read in full, latest over receivers */
	uint64_t messages;    /* messages read, added by each receiver at its end */
	uint32_t ndone;	      /* threads: senders and receivers that finished */
	uint32_t aborted;     /* a task failed: the others leave */
};

/* ---- parameters (pure) ---- */

static unsigned messaging_workers(const struct messaging_params *mp)
{
	return (unsigned)(mp->groups * 2 * mp->fds);
}

static unsigned messaging_tasks(const void *params)
{
	return 1 + messaging_workers(params);
}

static void messaging_layout(const void *params, unsigned task, unsigned *group, unsigned *role)
{
	const struct messaging_params *mp = params;
	unsigned k;

	if (task == 0) {
		*group = 0;
		*role = ROLE_MAIN;
		return;
	}
	*group = (unsigned)((task - 1) / (2 * mp->fds));
	k = (unsigned)((task - 1) % (2 * mp->fds));
	*role = k < mp->fds ? ROLE_RECEIVER : ROLE_SENDER;
}

/*
 * Most fds one process holds (besides what it inherits): threads, every
 * channel of every group in the one process; processes, the instance
 * process while it makes a group (its fds write ends, the channel being
 * made and the alive pipe), which a sender inherits.
 */
static unsigned messaging_fds(const void *params)
{
	const struct messaging_params *mp = params;

	if (mp->threads)
		return (unsigned)(2 * mp->fds * mp->groups);
	return (unsigned)(mp->fds + 2 + 2);
}

static size_t messaging_shared_size(const void *params)
{
	(void)params;
	return sizeof(struct messaging_shared);
}

/* Messages of one run: each of fds senders sends loops to each of fds receivers, per group. */
static uint64_t messaging_messages(const struct messaging_params *mp)
{
	return mp->groups * mp->fds * mp->fds * mp->loops;
}

static uint64_t messaging_work_ops(const void *params)
{
	return messaging_messages(params);
}

static int messaging_check(const void *params, const struct run_params *rp, char *err,
			   size_t errlen)
{
	const struct messaging_params *mp = params;

	(void)rp;
	if (mp->pipe && mp->socket) {
		snprintf(err, errlen,
			 "options '--pipe' and '--socket' cannot be used together: "
			 "allowed one of them");
		return -1;
	}
	if (mp->threads && mp->processes) {
		snprintf(err, errlen,
			 "options '--threads' and '--processes' cannot be used "
			 "together: allowed one of them");
		return -1;
	}
	return 0;
}

/* ---- the tasks ---- */

struct msg_run;

struct msg_task {
	struct msg_run *r;
	unsigned task; /* runner task number */
	unsigned group;
	unsigned k; /* receiver k or sender k of its group */
	bool sender;
	int in_fd;	/* receiver: its channel's read end */
	const int *out; /* sender: the write ends of its group's fds channels */
	pid_t tid;	/* the process, or the thread (for the abort kick) */
	pthread_t th;
};

struct msg_run {
	const struct messaging_params *mp;
	struct instance_ctx *ic;
	struct messaging_shared *sh;
	unsigned nworkers;
	/* the channels' ends: every channel (threads), one group's (processes) */
	int *rd, *wr;
	struct msg_task *t; /* task i + 1 is t[i] */
	int alive[2];	    /* processes: the alive pipe */
	bool unjoined;	    /* threads: some still exist, using this */
};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int make_channel(const struct messaging_params *mp, int *rd, int *wr)
{
	int fds[2];

	if (mp->pipe ? pipe(fds) : socketpair(AF_UNIX, SOCK_STREAM, 0, fds))
		return -1;
	*rd = fds[0];
	*wr = fds[1];
	return 0;
}

static const char *role_name(const struct msg_task *t)
{
	return t->sender ? "sender" : "receiver";
}

/* A read or write returned EINTR: go on unless the run is over or a task failed. */
static bool keep_going(const struct msg_task *t)
{
	return instance_running(t->r->ic) && !__atomic_load_n(&t->r->sh->aborted, __ATOMIC_RELAXED);
}

static void task_failed(struct msg_task *t, const char *what, int err)
{
	instance_failed(t->r->ic, "task %u (%s %u of group %u): %s: %s", t->task, role_name(t),
			t->k, t->group, what, err ? strerror(err) : "end of file");
	__atomic_store_n(&t->r->sh->aborted, 1, __ATOMIC_RELAXED);
}

/* Loops return 0 (done, or stopped), -1 (failed, reason given), or this. */
#define MSG_PEER_GONE (-2)
/* The exit status of a process whose peer went away first. */
#define MSG_EXIT_PEER_GONE 3

/*
 * A read or write failed. EPIPE, ECONNRESET and end of file mean the other
 * side is gone: a process leaves the reason to task 0, which names the
 * task that went first (a receiver killed by a signal, not its senders'
 * EPIPE); a thread cannot die alone, so it says what it saw.
 */
static int io_failed(struct msg_task *t, const char *what, int err)
{
	if (!t->r->mp->threads && (err == EPIPE || err == ECONNRESET || err == 0)) {
		__atomic_store_n(&t->r->sh->aborted, 1, __ATOMIC_RELAXED);
		return MSG_PEER_GONE;
	}
	task_failed(t, what, err);
	return -1;
}

/* Write loops messages to every receiver of the group. */
static int sender_loop(struct msg_task *t, const char *buf)
{
	const struct messaging_params *mp = t->r->mp;
	uint64_t i;
	unsigned j;

	for (i = 0; i < mp->loops; i++) {
		for (j = 0; j < mp->fds; j++) {
			size_t done = 0;

			while (done < mp->datasize) {
				ssize_t n = write(t->out[j], buf + done, mp->datasize - done);

				if (n > 0) {
					done += (size_t)n;
				} else if (n < 0 && errno == EINTR) {
					if (!keep_going(t))
						return 0;
				} else {
					return io_failed(t, "write", n < 0 ? errno : EIO);
				}
			}
		}
	}
	return 0;
}

static void note_latest(uint64_t *latest, uint64_t v)
{
	uint64_t seen = __atomic_load_n(latest, __ATOMIC_RELAXED);

	while (seen < v && !__atomic_compare_exchange_n(latest, &seen, v, false, __ATOMIC_RELAXED,
							__ATOMIC_RELAXED))
		;
}

/*
 * Every task reads the clock as it leaves the start barrier and the earliest
 * reading is the start: hackbench reads it just before it writes the start
 * byte, and of 401 tasks woken at once the first runs right away, while
 * task 0 may wait behind the others for its CPU.
 */
static void note_start(struct messaging_shared *sh)
{
	uint64_t now = now_ns(), seen = __atomic_load_n(&sh->start_ns, __ATOMIC_RELAXED);

	while ((seen == 0 || now < seen) &&
	       !__atomic_compare_exchange_n(&sh->start_ns, &seen, now, false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

/* Read fds * loops messages, one op each. */
static int receiver_loop(struct msg_task *t, char *buf)
{
	const struct messaging_params *mp = t->r->mp;
	uint64_t *ops = instance_task_ops(t->r->ic);
	uint64_t want = mp->fds * mp->loops, got = 0;
	int rc = 0;

	while (got < want) {
		size_t done = 0;

		while (done < mp->datasize) {
			ssize_t n = read(t->in_fd, buf + done, mp->datasize - done);

			if (n > 0) {
				done += (size_t)n;
			} else if (n < 0 && errno == EINTR) {
				if (!keep_going(t))
					goto out;
			} else {
				rc = io_failed(t, "read", n < 0 ? errno : 0);
				goto out;
			}
		}
		got++;
		(*ops)++;
	}
	note_latest(&t->r->sh->last_msg_ns, now_ns());
out:
	__atomic_fetch_add(&t->r->sh->messages, got, __ATOMIC_RELAXED);
	return rc;
}

/*
 * One sender or receiver, from its creation to the end of its work: its
 * own message buffer (touched now, so that no first-touch fault lands in
 * the time), the start, the loop. 0, or -1 after instance_failed().
 */
static int task_run(struct msg_task *t)
{
	const struct messaging_params *mp = t->r->mp;
	char *buf = malloc(mp->datasize);
	int rc;

	if (!buf) {
		task_failed(t, "cannot allocate the message buffer", ENOMEM);
		return -1;
	}
	/* hackbench fills its buffer with '-'; perf sends it as it is */
	memset(buf, mp->variant == MSG_RT_TESTS_2_4 ? '-' : 0, mp->datasize);
	if (instance_ready(t->r->ic)) {
		free(buf);
		return -1;
	}
	note_start(t->r->sh);
	rc = t->sender ? sender_loop(t, buf) : receiver_loop(t, buf);
	free(buf);
	return rc;
}

/* Worker i (0-based, task i + 1) in hackbench's order: per group, receivers then senders. */
static struct msg_task *task_init(struct msg_run *r, unsigned i)
{
	unsigned f = (unsigned)r->mp->fds, k = i % (2 * f);
	struct msg_task *t = &r->t[i];

	memset(t, 0, sizeof(*t));
	t->r = r;
	t->task = i + 1;
	t->group = i / (2 * f);
	t->sender = k >= f;
	t->k = t->sender ? k - f : k;
	t->in_fd = -1;
	return t;
}

static void on_kick(int sig)
{
	(void)sig;
}

static void set_handler(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL); /* no SA_RESTART: a blocked read or write returns EINTR */
}

/* ---- processes ---- */

/*
 * Set by SIGCHLD in task 0 when a process ended other than with status 0,
 * before task 0 began to kill them: the first such process (signals do not
 * queue: a later one may be missed; the alive pipe and the reaping still
 * see it).
 */
static volatile sig_atomic_t child_failed, killing;
static volatile pid_t child_failed_pid;

static void on_sigchld(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if ((si->si_code != CLD_EXITED || si->si_status != 0) && !child_failed && !killing) {
		child_failed_pid = si->si_pid;
		child_failed = 1;
	}
}

/*
 * In the child: run the task and exit. hackbench's task is a small
 * program's process (libc and the loader); as its exit is in the time,
 * the task sheds wakebench's own libraries first (image.h). perf's task
 * keeps them: perf's process carries libraries of its own.
 */
static NORETURN void process_task(struct msg_task *t)
{
	unsigned nmaps;
	int rc;

	if (instance_task(t->r->ic) != t->task)
		BUG("messaging: forked task %u where task %u was meant", instance_task(t->r->ic),
		    t->task);
	if (t->r->mp->variant == MSG_RT_TESTS_2_4)
		(void)image_shed(&nmaps); /* not bound at load time: the full image */
	rc = task_run(t);
	if (rc) {
		char b = '!';

		/* tell task 0 now, which SIGKILLs the others */
		if (write(t->r->alive[1], &b, 1) < 0)
			rc = -1;
	}
	_exit(rc == 0 ? 0 : rc == MSG_PEER_GONE ? MSG_EXIT_PEER_GONE : 1);
}

static void kill_processes(struct msg_run *r, unsigned n)
{
	unsigned i;

	killing = 1;

	for (i = 0; i < n; i++)
		kill(r->t[i].tid, SIGKILL);
}

/*
 * Fork one group, hackbench's way: for each receiver make its channel,
 * fork it (it closes the write end), close the read end here; then fork
 * the senders, which inherit the group's write ends, and close those here.
 * 0, or -1 after instance_failed().
 */
static int fork_group(struct msg_run *r, unsigned g, unsigned *nforked)
{
	unsigned f = (unsigned)r->mp->fds, k;
	int rc = 0;

	for (k = 0; k < f; k++)
		r->rd[k] = r->wr[k] = -1;
	for (k = 0; k < 2 * f; k++) {
		struct msg_task *t = task_init(r, *nforked);
		pid_t pid;

		if (!t->sender && make_channel(r->mp, &r->rd[k], &r->wr[k])) {
			instance_failed(r->ic, "cannot create a %s for receiver %u of group %u: %s",
					r->mp->pipe ? "pipe" : "socketpair", k, g, strerror(errno));
			rc = -1;
			break;
		}
		t->in_fd = t->sender ? -1 : r->rd[k];
		t->out = r->wr;
		pid = instance_fork(r->ic);
		if (pid == 0) {
			close_fd(&r->alive[0]);
			if (!t->sender)
				close_fd(&r->wr[k]);
			process_task(t);
		}
		if (pid < 0) {
			rc = -1;
			break;
		}
		t->tid = pid;
		(*nforked)++;
		if (!t->sender)
			close_fd(&r->rd[k]);
	}
	for (k = 0; k < f; k++) {
		close_fd(&r->rd[k]);
		close_fd(&r->wr[k]);
	}
	return rc;
}

/*
 * Task 0 from the release to the last exit: EOF on the alive pipe. A byte
 * in it or a SIGCHLD for a failed process means a task failed: SIGKILL the
 * rest and wait for them all the same. Notes the end when nothing failed.
 */
static bool wait_processes(struct msg_run *r)
{
	bool killed = false;

	for (;;) {
		char b;
		ssize_t n = read(r->alive[0], &b, 1);

		if (n == 0)
			break;
		if (n < 0 && errno != EINTR) {
			/* left to the reaping below, which waits for each */
			instance_failed(r->ic, "cannot wait for the tasks: %s", strerror(errno));
			kill_processes(r, r->nworkers);
			return true;
		}
		if ((n == 1 || child_failed) && !killed) {
			kill_processes(r, r->nworkers);
			killed = true;
		}
	}
	if (!killed && !child_failed)
		r->sh->end_ns = now_ns();
	return killed;
}

/* After a failure: wait until every process forked so far has gone (EOF). */
static void drain_alive(struct msg_run *r)
{
	for (;;) {
		char b;
		ssize_t n = read(r->alive[0], &b, 1);

		if (n == 0 || (n < 0 && errno != EINTR))
			return;
	}
}

/* How an exited process ended: its siginfo, without reaping it. */
static int peek_status(pid_t pid, siginfo_t *si)
{
	int rc;

	memset(si, 0, sizeof(*si));
	do
		rc = waitid(P_PID, (id_t)pid, si, WEXITED | WNOWAIT);
	while (rc < 0 && errno == EINTR);
	return rc;
}

/* 0: fine; 3: killed by us after another failed; 2: its peer went away; 1: it failed. */
static int failure_rank(const siginfo_t *si, bool killed)
{
	if (si->si_code == CLD_EXITED && si->si_status == 0)
		return 0;
	if (killed && si->si_code == CLD_KILLED && si->si_status == SIGKILL)
		return 3;
	if (si->si_code == CLD_EXITED && si->si_status == MSG_EXIT_PEER_GONE)
		return 2;
	return 1;
}

/*
 * Every process has exited: name the one that failed first (the one SIGCHLD
 * reported, else the first that failed on its own, else one whose peer went
 * away), then reap them all, their counters read first. 0, or -1 when any
 * ended badly.
 */
static int reap_processes(struct msg_run *r, unsigned n, bool killed)
{
	struct msg_task *culprit = NULL;
	siginfo_t si, csi;
	int best = 4, rc = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		struct msg_task *t = &r->t[i];
		int rank;

		if (peek_status(t->tid, &si))
			continue;
		rank = failure_rank(&si, killed);
		if (!rank)
			continue;
		rc = -1;
		/* the first failure SIGCHLD reported outranks the order of creation */
		if (child_failed_pid > 0 && t->tid == child_failed_pid)
			rank = 0;
		if (rank < best) {
			culprit = t;
			csi = si;
			best = rank;
		}
	}
	if (culprit) {
		char how[64];

		if (csi.si_code == CLD_EXITED && csi.si_status == MSG_EXIT_PEER_GONE)
			snprintf(how, sizeof(how), "found its %s gone",
				 culprit->sender ? "receiver" : "senders");
		else if (csi.si_code == CLD_EXITED)
			snprintf(how, sizeof(how), "exited with status %d", csi.si_status);
		else
			snprintf(how, sizeof(how), "killed by %s", signal_name(csi.si_status));
		instance_failed(r->ic, "task %u (%s %u of group %u) %s", culprit->task,
				role_name(culprit), culprit->k, culprit->group, how);
	}
	for (i = 0; i < n; i++) {
		struct msg_task *t = &r->t[i];

		if (instance_reap_child(r->ic, t->tid) < 0) {
			instance_failed(r->ic, "task %u (%s %u of group %u) cannot be reaped: %s",
					t->task, role_name(t), t->k, t->group, strerror(errno));
			rc = -1;
		}
	}
	return rc;
}

static int run_processes(struct msg_run *r)
{
	unsigned g, nforked = 0;
	struct sigaction sa, old;
	bool killed = false;
	int rc = 0;

	r->rd = xcalloc(r->mp->fds, sizeof(*r->rd));
	r->wr = xcalloc(r->mp->fds, sizeof(*r->wr));
	if (pipe(r->alive)) {
		instance_failed(r->ic, "cannot create a pipe: %s", strerror(errno));
		rc = -1;
		goto out;
	}
	for (g = 0; g < r->mp->groups && !rc; g++)
		rc = fork_group(r, g, &nforked);
	close_fd(&r->alive[1]); /* from now on only the tasks hold it */
	if (!rc && instance_ready(r->ic))
		rc = -1;
	child_failed = 0;
	child_failed_pid = 0;
	killing = 0;
	if (rc) {
		kill_processes(r, nforked);
		killed = true;
		drain_alive(r);
	} else {
		note_start(r->sh);
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_sigchld;
		sa.sa_flags = SA_SIGINFO | SA_NOCLDSTOP; /* no SA_RESTART: it wakes the read */
		sigemptyset(&sa.sa_mask);
		sigaction(SIGCHLD, &sa, &old);
		killed = wait_processes(r);
		sigaction(SIGCHLD, &old, NULL);
	}
	if (reap_processes(r, nforked, killed))
		rc = -1;
out:
	close_fd(&r->alive[0]);
	free(r->rd);
	free(r->wr);
	return rc;
}

/* ---- threads ---- */

static long futex(uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, uaddr, op, val, ts, NULL, 0);
}

/*
 * A thread's work is done: count it, the last one notes the end and wakes
 * everyone; the others sleep until then (or the stop, or an abort), so
 * that no thread reads its counters or exits while others still work.
 */
static void thread_done(struct msg_task *t)
{
	struct messaging_shared *sh = t->r->sh;
	uint32_t v = __atomic_add_fetch(&sh->ndone, 1, __ATOMIC_ACQ_REL);

	if (v == t->r->nworkers) {
		if (!__atomic_load_n(&sh->aborted, __ATOMIC_RELAXED))
			sh->end_ns = now_ns();
		futex(&sh->ndone, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
		return;
	}
	/* after a failure, wake task 0 (the count has moved: no wakeup is lost) */
	if (__atomic_load_n(&sh->aborted, __ATOMIC_RELAXED))
		futex(&sh->ndone, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
	while (v < t->r->nworkers && keep_going(t)) {
		futex(&sh->ndone, FUTEX_WAIT_PRIVATE, v, NULL);
		v = __atomic_load_n(&sh->ndone, __ATOMIC_ACQUIRE);
	}
}

static void *thread_main(void *arg)
{
	struct msg_task *t = arg;
	bool registered;
	intptr_t rc = -1;

	__atomic_store_n(&t->tid, (pid_t)gettid(), __ATOMIC_RELEASE);
	registered = instance_thread_register(t->r->ic, t->task) == 0;
	if (registered)
		rc = task_run(t);
	if (rc)
		__atomic_store_n(&t->r->sh->aborted, 1, __ATOMIC_RELAXED);
	thread_done(t);
	if (registered)
		instance_thread_collect(t->r->ic);
	return (void *)rc;
}

/* Make every channel and every thread; -1 after instance_failed(). */
static int start_threads(struct msg_run *r)
{
	unsigned f = (unsigned)r->mp->fds, nch = (unsigned)r->mp->groups * f, i;
	size_t stack = MSG_THREAD_STACK;
	pthread_attr_t attr;
	int err;

	for (i = 0; i < nch; i++)
		r->rd[i] = r->wr[i] = -1;
	for (i = 0; i < nch; i++) {
		if (make_channel(r->mp, &r->rd[i], &r->wr[i])) {
			instance_failed(r->ic, "cannot create a %s for receiver %u of group %u: %s",
					r->mp->pipe ? "pipe" : "socketpair", i % f, i / f,
					strerror(errno));
			return -1;
		}
	}
	if (stack < (size_t)PTHREAD_STACK_MIN)
		stack = PTHREAD_STACK_MIN;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, stack);
	for (i = 0; i < r->nworkers; i++) {
		struct msg_task *t = task_init(r, i);

		t->in_fd = t->sender ? -1 : r->rd[t->group * f + t->k];
		t->out = &r->wr[t->group * f];
		err = pthread_create(&t->th, &attr, thread_main, t);
		if (err) {
			instance_failed(r->ic,
					"cannot create task %u (%s %u of group %u) as a "
					"thread: %s",
					t->task, role_name(t), t->k, t->group, strerror(err));
			pthread_attr_destroy(&attr);
			return -1;
		}
	}
	pthread_attr_destroy(&attr);
	return 0;
}

/*
 * Task 0 from the release: sleep until every thread is done; after an
 * abort, kick the ones still blocked every 10 ms until they have left.
 */
static void wait_threads(struct msg_run *r)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	struct messaging_shared *sh = r->sh;
	uint32_t v;

	while ((v = __atomic_load_n(&sh->ndone, __ATOMIC_ACQUIRE)) < r->nworkers) {
		bool abort = __atomic_load_n(&sh->aborted, __ATOMIC_RELAXED);
		unsigned i;

		for (i = 0; abort && i < r->nworkers; i++) {
			pid_t tid = __atomic_load_n(&r->t[i].tid, __ATOMIC_ACQUIRE);

			if (tid > 0)
				syscall(SYS_tgkill, getpid(), tid, SIGUSR2);
		}
		futex(&sh->ndone, FUTEX_WAIT_PRIVATE, v, abort ? &tick : NULL);
	}
}

static int run_threads(struct msg_run *r)
{
	unsigned nch = (unsigned)r->mp->groups * (unsigned)r->mp->fds, i;
	int rc = 0;

	r->rd = xcalloc(nch, sizeof(*r->rd));
	r->wr = xcalloc(nch, sizeof(*r->wr));
	/*
	 * On a failure before the start the threads made so far wait for a
	 * release that will not come for this instance: they end with the
	 * instance process, and what they use (r, its arrays, the fds) is
	 * left to that exit.
	 */
	if (start_threads(r) || instance_ready(r->ic)) {
		__atomic_store_n(&r->sh->aborted, 1, __ATOMIC_RELAXED);
		r->unjoined = true;
		return -1;
	}
	note_start(r->sh);
	wait_threads(r);
	for (i = 0; i < r->nworkers; i++) {
		void *ret;

		pthread_join(r->t[i].th, &ret);
		if ((intptr_t)ret)
			rc = -1;
	}
	for (i = 0; i < nch; i++) {
		close_fd(&r->rd[i]);
		close_fd(&r->wr[i]);
	}
	free(r->rd);
	free(r->wr);
	return rc;
}

static int messaging_instance(const void *params, struct instance_ctx *ic)
{
	const struct messaging_params *mp = params;
	struct msg_run *r = xcalloc(1, sizeof(*r));
	uint64_t want = messaging_messages(mp);
	int rc;

	r->mp = mp;
	r->ic = ic;
	r->sh = instance_shared(ic);
	r->nworkers = messaging_workers(mp);
	r->alive[0] = r->alive[1] = -1;
	r->t = xcalloc(r->nworkers, sizeof(*r->t));
	/* a receiver that is gone must give its senders EPIPE (a reason), not kill them */
	set_handler(SIGPIPE, on_kick);
	set_handler(SIGUSR2, on_kick);
	rc = mp->threads ? run_threads(r) : run_processes(r);
	if (rc == 0 && instance_running(ic) && r->sh->messages != want) {
		instance_failed(ic, "%llu messages were read of the %llu sent",
				(unsigned long long)r->sh->messages, (unsigned long long)want);
		rc = -1;
	}
	if (!r->unjoined) {
		free(r->t);
		free(r);
	}
	return rc;
}

/* ---- metrics ---- */

static const struct metric_def messaging_metrics[] = {
	{ .name = "messaging_run_s",
	  .label = "run time",
	  .unit = "s",
	  .better = BETTER_LOWER,
	  .flags = METRIC_PRIMARY,
	  .agg = AGG_MEAN,
	  .source = "messaging",
	  .help = "hackbench's Time: from the start of every task until the last sender or "
		  "receiver has exited, mean over instances" },
	{ .name = "messages_per_s",
	  .label = "messages/s (run time)",
	  .unit = "messages/s",
	  .better = BETTER_HIGHER,
	  .flags = 0,
	  .agg = AGG_RATE,
	  .source = "messaging",
	  .help = "messages read by the receivers of every instance, divided by the run time "
		  "(hackbench's Time); messages/s (real time) divides by the instances' real "
		  "time" },
	{ .name = "messaging_delivery_s",
	  .label = "delivery time",
	  .unit = "s",
	  .better = BETTER_LOWER,
	  .flags = METRIC_EVIDENCE,
	  .agg = AGG_MEAN,
	  .source = "messaging",
	  .help = "from the start until the last message was read (run time without the "
		  "tasks' exit), mean over instances" },
	{ .name = NULL },
};

static void messaging_put_metrics(const void *params, const void *const *shared, size_t n,
				  struct sample *s)
{
	double run_sum = 0, delivery_sum = 0, messages = 0;
	size_t i;

	(void)params;
	for (i = 0; i < n; i++) {
		const struct messaging_shared *sh = shared[i];

		if (!sh->start_ns || sh->end_ns < sh->start_ns || sh->last_msg_ns < sh->start_ns ||
		    sh->last_msg_ns > sh->end_ns) {
			sample_na(s, "messaging_run_s", "instance %zu noted no start and end", i);
			sample_na(s, "messages_per_s", "instance %zu noted no start and end", i);
			sample_na(s, "messaging_delivery_s", "instance %zu noted no start and end",
				  i);
			return;
		}
		run_sum += (double)(sh->end_ns - sh->start_ns) / 1e9;
		delivery_sum += (double)(sh->last_msg_ns - sh->start_ns) / 1e9;
		messages += (double)sh->messages;
	}
	if (!n || run_sum <= 0) {
		sample_na(s, "messaging_run_s", "no instance ran");
		sample_na(s, "messages_per_s", "no instance ran");
		sample_na(s, "messaging_delivery_s", "no instance ran");
		return;
	}
	sample_put(s, "messaging_run_s", run_sum / (double)n);
	sample_put(s, "messages_per_s", messages / (run_sum / (double)n));
	sample_put(s, "messaging_delivery_s", delivery_sum / (double)n);
}

const struct workload workload_messaging = {
	.name = "messaging",
	.summary = "hackbench / perf bench sched messaging: groups of senders writing "
		   "messages to every receiver of their group",
	.op_name = "messages",
	.primary = "messaging_run_s",
	.metrics = messaging_metrics,
	.params_size = sizeof(struct messaging_params),
	.defaults = &messaging_defaults,
	.opts = messaging_opts,
	.profiles = messaging_profiles,
	.default_profile = "hackbench",
	.default_instances = 1,
	.default_duration_ns = 60ULL * 1000000000ULL,
	.fixed_work = true,
	.work_ops = messaging_work_ops,
	.tasks = messaging_tasks,
	.layout = messaging_layout,
	.roles = messaging_roles,
	.fds = messaging_fds,
	.shared_size = messaging_shared_size,
	.check = messaging_check,
	.instance = messaging_instance,
	.put_metrics = messaging_put_metrics,
};
