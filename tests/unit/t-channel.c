/*
 * t-channel.c: the wakeup primitives of workloads/channel.c, each kind.
 *
 * A token goes round a ring of three tasks (processes, then threads) many
 * times; every task checks a shared hop counter that only the token holder
 * may advance, so a wait that returned without the token, or a token lost
 * or doubled, fails. The futex kind is also driven into its sleeper state
 * (the receiver announced that it sleeps) before the send, so FUTEX_WAKE is
 * exercised across processes (shared) and threads (private). A signal
 * without SA_RESTART returns EINTR from a blocked wait; closed ends give
 * EPIPE; the fd count is what channel_fds() says and nothing leaks.
 * Nothing waits for time except guards (60 s per child, 120 s in all)
 * that turn a hang into a failure.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

#include "util/util.h"
#include "workloads/channel.h"

#define RING  3
#define LAPS  2000
#define KINDS 4

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the directory's own fd */
}

static void open_set(struct channel_set *cs, int kind, size_t n, bool processes)
{
	char err[256];

	if (channel_set_open(cs, kind, n, processes, err, sizeof(err)))
		fail_msg("channel_set_open(%s, %zu): %s", channel_names[kind], n, err);
}

static void test_names_and_fds(void **state)
{
	int kind;

	(void)state;
	assert_string_equal(channel_names[CHANNEL_PIPE], "pipe");
	assert_string_equal(channel_names[CHANNEL_EVENTFD], "eventfd");
	assert_string_equal(channel_names[CHANNEL_FUTEX], "futex");
	assert_string_equal(channel_names[CHANNEL_UNIX], "unix");
	assert_null(channel_names[KINDS]);
	for (kind = 0; kind < KINDS; kind++) {
		struct channel_set cs;
		int before = count_fds();

		open_set(&cs, kind, 5, true);
		assert_int_equal(cs.n, 5);
		assert_int_equal(count_fds() - before, 5 * (int)channel_fds(kind));
		channel_set_close(&cs);
		assert_int_equal(count_fds(), before);
		assert_null(cs.ch);
	}
	assert_int_equal(channel_fds(CHANNEL_PIPE), 2);
	assert_int_equal(channel_fds(CHANNEL_EVENTFD), 1);
	assert_int_equal(channel_fds(CHANNEL_FUTEX), 0);
	assert_int_equal(channel_fds(CHANNEL_UNIX), 2);
}

/* In one task: a send makes the following wait return at once, as often as we like. */
static void test_send_then_wait(void **state)
{
	int kind, i;

	(void)state;
	for (kind = 0; kind < KINDS; kind++) {
		struct channel_set cs;

		open_set(&cs, kind, 2, false);
		for (i = 0; i < 100; i++) {
			assert_int_equal(channel_send(&cs.ch[i % 2]), 0);
			if (kind == CHANNEL_FUTEX)
				assert_int_equal(*cs.ch[i % 2].word, 1);
			assert_int_equal(channel_wait(&cs.ch[i % 2]), 0);
			if (kind == CHANNEL_FUTEX)
				assert_int_equal(*cs.ch[i % 2].word, 0);
		}
		channel_set_close(&cs);
	}
}

/*
 * The ring: task t waits on channel t-1 (task 0 on the last), checks that
 * the shared counter is at its turn, advances it, and sends on channel t.
 * Task 0 sends first. Returns 0, or the hop at which it went wrong + 1.
 */
struct ring {
	struct channel_set cs;
	uint64_t *hops; /* MAP_SHARED */
	int bad[RING];
};

static long ring_task(struct ring *r, unsigned t)
{
	const struct channel *in = &r->cs.ch[(t + RING - 1) % RING];
	const struct channel *out = &r->cs.ch[t];
	uint64_t lap;

	for (lap = 0; lap < LAPS; lap++) {
		uint64_t want = lap * RING + t;

		if (t != 0 || lap != 0) {
			while (channel_wait(in))
				if (errno != EINTR)
					return -1;
		}
		if (__atomic_load_n(r->hops, __ATOMIC_RELAXED) != want)
			return (long)want + 1;
		__atomic_store_n(r->hops, want + 1, __ATOMIC_RELAXED);
		while (channel_send(out))
			if (errno != EINTR)
				return -1;
	}
	if (t == 0) { /* take the last token back */
		while (channel_wait(in))
			if (errno != EINTR)
				return -1;
	}
	return 0;
}

static void ring_init(struct ring *r, int kind, bool processes)
{
	memset(r, 0, sizeof(*r));
	open_set(&r->cs, kind, RING, processes);
	r->hops = mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);
	assert_true(r->hops != MAP_FAILED);
	*r->hops = 0;
}

static void ring_release(struct ring *r)
{
	munmap(r->hops, sizeof(uint64_t));
	channel_set_close(&r->cs);
}

static void test_ring_processes(void **state)
{
	int kind;

	(void)state;
	for (kind = 0; kind < KINDS; kind++) {
		struct ring r;
		pid_t pids[RING];
		unsigned t;
		long rc;

		ring_init(&r, kind, true);
		for (t = 1; t < RING; t++) {
			pids[t] = fork();
			assert_true(pids[t] >= 0);
			if (pids[t] == 0) {
				alarm(60);
				_exit(ring_task(&r, t) ? 1 : 0);
			}
		}
		rc = ring_task(&r, 0);
		if (rc)
			fail_msg("%s: task 0 went wrong (%ld)", channel_names[kind], rc);
		for (t = 1; t < RING; t++) {
			int status;

			assert_int_equal(waitpid(pids[t], &status, 0), pids[t]);
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				fail_msg("%s: task %u ended with status 0x%x", channel_names[kind],
					 t, status);
		}
		assert_int_equal(*r.hops, (uint64_t)LAPS * RING);
		ring_release(&r);
	}
}

struct ring_thread {
	struct ring *r;
	unsigned t;
	long rc;
};

static void *ring_thread_main(void *arg)
{
	struct ring_thread *rt = arg;

	rt->rc = ring_task(rt->r, rt->t);
	return NULL;
}

static void test_ring_threads(void **state)
{
	int kind;

	(void)state;
	for (kind = 0; kind < KINDS; kind++) {
		struct ring r;
		pthread_t th[RING];
		struct ring_thread rt[RING];
		unsigned t;

		ring_init(&r, kind, false);
		if (kind == CHANNEL_FUTEX)
			assert_int_equal(r.cs.ch[0].futex_flags, FUTEX_PRIVATE_FLAG);
		for (t = 1; t < RING; t++) {
			rt[t].r = &r;
			rt[t].t = t;
			assert_int_equal(pthread_create(&th[t], NULL, ring_thread_main, &rt[t]), 0);
		}
		rt[0].r = &r;
		rt[0].t = 0;
		ring_thread_main(&rt[0]);
		for (t = 1; t < RING; t++)
			assert_int_equal(pthread_join(th[t], NULL), 0);
		for (t = 0; t < RING; t++)
			if (rt[t].rc)
				fail_msg("%s: thread %u went wrong (%ld)", channel_names[kind], t,
					 rt[t].rc);
		assert_int_equal(*r.hops, (uint64_t)LAPS * RING);
		ring_release(&r);
	}
}

/* Wait until the receiver has announced that it sleeps (an event, not a time). */
static void wait_for_sleeper(const struct channel *ch)
{
	while (__atomic_load_n(ch->word, __ATOMIC_ACQUIRE) != 2)
		sched_yield();
}

static void *futex_receiver(void *arg)
{
	const struct channel *ch = arg;

	return (void *)(intptr_t)channel_wait(ch);
}

/* FUTEX_WAKE reaches a receiver that sleeps in FUTEX_WAIT: threads (private), processes (shared).
 */
static void test_futex_wakes_sleeper(void **state)
{
	struct channel_set cs;
	pthread_t th;
	void *ret;
	pid_t pid;
	int status;

	(void)state;
	open_set(&cs, CHANNEL_FUTEX, 1, false);
	assert_int_equal(pthread_create(&th, NULL, futex_receiver, &cs.ch[0]), 0);
	wait_for_sleeper(&cs.ch[0]);
	assert_int_equal(channel_send(&cs.ch[0]), 0);
	assert_int_equal(pthread_join(th, &ret), 0);
	assert_int_equal((intptr_t)ret, 0);
	assert_int_equal(*cs.ch[0].word, 0);
	channel_set_close(&cs);

	open_set(&cs, CHANNEL_FUTEX, 1, true);
	assert_int_equal(cs.ch[0].futex_flags, 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		alarm(60);
		_exit(channel_wait(&cs.ch[0]) ? 1 : 0);
	}
	wait_for_sleeper(&cs.ch[0]);
	assert_int_equal(channel_send(&cs.ch[0]), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(*cs.ch[0].word, 0);
	channel_set_close(&cs);
}

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	(void)sig;
	got_signal = 1;
}

struct blocked {
	const struct channel *ch;
	int rc, err;
	int done;
};

static void *blocked_main(void *arg)
{
	struct blocked *b = arg;

	b->rc = channel_wait(b->ch);
	b->err = errno;
	__atomic_store_n(&b->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * A blocked wait returns EINTR on a signal without SA_RESTART (the
 * runner's stop). The signal is repeated until the wait returns, as the
 * runner does, so one that lands before the thread blocks does no harm.
 * Afterwards the channel still carries a token.
 */
static void test_wait_returns_eintr(void **state)
{
	struct sigaction sa, old;
	int kind;

	(void)state;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART */
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	for (kind = 0; kind < KINDS; kind++) {
		struct channel_set cs;
		struct blocked b = { 0 };
		pthread_t th;

		open_set(&cs, kind, 1, false);
		b.ch = &cs.ch[0];
		got_signal = 0;
		assert_int_equal(pthread_create(&th, NULL, blocked_main, &b), 0);
		while (!__atomic_load_n(&b.done, __ATOMIC_ACQUIRE)) {
			pthread_kill(th, SIGUSR1);
			usleep(1000);
		}
		assert_int_equal(pthread_join(th, NULL), 0);
		if (b.rc != -1 || b.err != EINTR)
			fail_msg("%s: wait returned %d (%s), expected EINTR", channel_names[kind],
				 b.rc, strerror(b.err));
		assert_true(got_signal);
		assert_int_equal(channel_send(&cs.ch[0]), 0);
		assert_int_equal(channel_wait(&cs.ch[0]), 0);
		channel_set_close(&cs);
	}
	sigaction(SIGUSR1, &old, NULL);
}

/* A closed sending end is end of file (EPIPE); a closed receiving end is EPIPE on send. */
static void test_closed_ends(void **state)
{
	int kinds[] = { CHANNEL_PIPE, CHANNEL_UNIX };
	struct sigaction sa, old;
	size_t i;

	(void)state;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	assert_int_equal(sigaction(SIGPIPE, &sa, &old), 0);
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		struct channel_set cs;

		open_set(&cs, kinds[i], 2, true);
		close(cs.ch[0].wfd);
		cs.ch[0].wfd = -1;
		errno = 0;
		assert_int_equal(channel_wait(&cs.ch[0]), -1);
		assert_int_equal(errno, EPIPE);
		close(cs.ch[1].rfd);
		cs.ch[1].rfd = -1;
		errno = 0;
		assert_int_equal(channel_send(&cs.ch[1]), -1);
		assert_int_equal(errno, EPIPE);
		channel_set_close(&cs);
	}
	sigaction(SIGPIPE, &old, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_and_fds),
		cmocka_unit_test(test_send_then_wait),
		cmocka_unit_test(test_ring_processes),
		cmocka_unit_test(test_ring_threads),
		cmocka_unit_test(test_futex_wakes_sleeper),
		cmocka_unit_test(test_wait_returns_eintr),
		cmocka_unit_test(test_closed_ends),
	};

	alarm(120); /* the guard: a hang is a failure, not a stuck make check */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
