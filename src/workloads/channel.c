/*
 * channel.c: the wakeup primitives of channel.h.
 *
 * One token per channel, one system call per send and per wait on the
 * fd-based kinds (the token is small enough that pipes and stream sockets
 * transfer it whole). The futex kind is the classic three-state handoff
 * (0 empty, 1 token, 2 empty with a sleeper): the receiver announces that
 * it sleeps before FUTEX_WAIT, so the sender calls FUTEX_WAKE only then,
 * and a receiver that finds the token takes it without a system call, as
 * a futex-based semaphore in a C library does.
 */
#include <errno.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/util.h"
#include "workloads/channel.h"

const char *const channel_names[] = { "pipe", "eventfd", "futex", "unix", NULL };

/*
 * Each futex word in a line of its own: 128 bytes covers the 64-byte lines
 * of x86-64 and most arm64 cores as well as adjacent-line prefetch.
 */
#define FUTEX_STRIDE 128

enum { FUTEX_EMPTY = 0, FUTEX_TOKEN = 1, FUTEX_SLEEPER = 2 };

unsigned channel_fds(int kind)
{
	switch (kind) {
	case CHANNEL_PIPE:
	case CHANNEL_UNIX:
		return 2;
	case CHANNEL_EVENTFD:
		return 1;
	default:
		return 0;
	}
}

static int open_one(struct channel *ch, int kind)
{
	int fds[2];

	switch (kind) {
	case CHANNEL_PIPE:
		/* pipe(), not pipe2(): the calls of perf bench sched pipe and lat_ctx */
		if (pipe(fds))
			return -1;
		ch->rfd = fds[0];
		ch->wfd = fds[1];
		return 0;
	case CHANNEL_EVENTFD:
		ch->rfd = eventfd(0, EFD_CLOEXEC);
		if (ch->rfd < 0)
			return -1;
		ch->wfd = ch->rfd;
		return 0;
	case CHANNEL_UNIX:
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds))
			return -1;
		ch->rfd = fds[0];
		ch->wfd = fds[1];
		return 0;
	case CHANNEL_FUTEX:
		return 0;
	}
	BUG("channel kind %d", kind);
}

static const char *const open_calls[] = { "pipe", "eventfd", "mmap", "socketpair" };

int channel_set_open(struct channel_set *cs, int kind, size_t n, bool processes, char *err,
		     size_t errlen)
{
	size_t i;

	if (kind < CHANNEL_PIPE || kind > CHANNEL_UNIX)
		BUG("channel kind %d", kind);
	memset(cs, 0, sizeof(*cs));
	cs->ch = xcalloc(n ? n : 1, sizeof(*cs->ch));
	for (i = 0; i < n; i++) {
		cs->ch[i].kind = kind;
		cs->ch[i].rfd = cs->ch[i].wfd = -1;
	}
	if (kind == CHANNEL_FUTEX && n) {
		cs->words_len = n * FUTEX_STRIDE;
		/* shared memory even for threads, so that both modes use the same layout */
		cs->words = mmap(NULL, cs->words_len, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (cs->words == MAP_FAILED) {
			cs->words = NULL;
			snprintf(err, errlen, "cannot map %zu futex words: %s", n, strerror(errno));
			channel_set_close(cs);
			return -1;
		}
		for (i = 0; i < n; i++) {
			cs->ch[i].word = (uint32_t *)((char *)cs->words + i * FUTEX_STRIDE);
			cs->ch[i].futex_flags = processes ? 0 : FUTEX_PRIVATE_FLAG;
		}
	}
	cs->n = n;
	for (i = 0; i < n; i++) {
		if (open_one(&cs->ch[i], kind)) {
			snprintf(err, errlen, "cannot create channel %zu of %zu (%s): %s", i + 1, n,
				 open_calls[kind], strerror(errno));
			channel_set_close(cs);
			return -1;
		}
	}
	return 0;
}

void channel_set_close(struct channel_set *cs)
{
	size_t i;

	for (i = 0; cs->ch && i < cs->n; i++) {
		struct channel *ch = &cs->ch[i];

		if (ch->rfd >= 0)
			close(ch->rfd);
		if (ch->wfd >= 0 && ch->wfd != ch->rfd)
			close(ch->wfd);
		ch->rfd = ch->wfd = -1;
	}
	if (cs->words)
		munmap(cs->words, cs->words_len);
	free(cs->ch);
	memset(cs, 0, sizeof(*cs));
}

static long futex_op(uint32_t *word, int op, uint32_t val)
{
	return syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

static int futex_send(const struct channel *ch)
{
	uint32_t old = __atomic_exchange_n(ch->word, FUTEX_TOKEN, __ATOMIC_ACQ_REL);

	if (old == FUTEX_SLEEPER && futex_op(ch->word, FUTEX_WAKE | ch->futex_flags, 1) < 0)
		return -1;
	return 0;
}

static int futex_wait(const struct channel *ch)
{
	for (;;) {
		uint32_t v = FUTEX_TOKEN;

		if (__atomic_compare_exchange_n(ch->word, &v, FUTEX_EMPTY, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return 0;
		/* v is EMPTY or SLEEPER; announce the sleeper unless the token came */
		if (v == FUTEX_EMPTY &&
		    !__atomic_compare_exchange_n(ch->word, &v, FUTEX_SLEEPER, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		/*
		 * EAGAIN: the token arrived between the announcement and the
		 * sleep. EINTR leaves SLEEPER behind: the next send then makes
		 * one FUTEX_WAKE that wakes nobody, which is harmless.
		 */
		if (futex_op(ch->word, FUTEX_WAIT | ch->futex_flags, FUTEX_SLEEPER) < 0 &&
		    errno != EAGAIN)
			return -1;
	}
}

/* One transfer of exactly len bytes, or -1 with errno (EPIPE at end of file). */
static int xfer_result(ssize_t n, size_t len)
{
	if (n == (ssize_t)len)
		return 0;
	if (n < 0)
		return -1;
	errno = n == 0 ? EPIPE : EPROTO;
	return -1;
}

int channel_send(const struct channel *ch)
{
	int32_t token = 1;
	uint64_t one = 1;

	switch (ch->kind) {
	case CHANNEL_PIPE:
	case CHANNEL_UNIX:
		return xfer_result(write(ch->wfd, &token, sizeof(token)), sizeof(token));
	case CHANNEL_EVENTFD:
		return xfer_result(write(ch->wfd, &one, sizeof(one)), sizeof(one));
	case CHANNEL_FUTEX:
		return futex_send(ch);
	}
	BUG("channel kind %d", ch->kind);
}

int channel_wait(const struct channel *ch)
{
	int32_t token;
	uint64_t count;

	switch (ch->kind) {
	case CHANNEL_PIPE:
	case CHANNEL_UNIX:
		return xfer_result(read(ch->rfd, &token, sizeof(token)), sizeof(token));
	case CHANNEL_EVENTFD:
		return xfer_result(read(ch->rfd, &count, sizeof(count)), sizeof(count));
	case CHANNEL_FUTEX:
		return futex_wait(ch);
	}
	BUG("channel kind %d", ch->kind);
}
