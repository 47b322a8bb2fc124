/*
 * channel.h: wakeup primitives for workloads that hand a token between
 * tasks (ring, pingpong), so that the primitives compare on equal terms.
 *
 * A channel carries at most one token at a time from one task to another:
 * channel_send() puts the token in and wakes the receiver if it waits,
 * channel_wait() blocks until the token is there and takes it. The same
 * protocol over four kernel interfaces:
 *
 *   pipe     write(2)/read(2) of a 4-byte token on a pipe (lmbench lat_ctx,
 *            perf bench sched pipe)
 *   eventfd  write(2)/read(2) of the 8-byte counter of an eventfd
 *   futex    a 32-bit word in MAP_SHARED memory: an atomic handoff, with
 *            FUTEX_WAIT when the token is not there and FUTEX_WAKE only
 *            when the receiver sleeps (the shared, not FUTEX_PRIVATE_FLAG,
 *            operations when the tasks are processes)
 *   unix     write(2)/read(2) of a 4-byte token on an AF_UNIX stream
 *            socketpair (lmbench lat_unix, hackbench -s)
 *
 * Channels are created before the tasks and survive fork() (the fds are
 * inherited, the futex words are shared memory) as well as threads.
 * Nothing here retries EINTR: a signal (the runner's stop) returns to the
 * caller, which decides whether to go on.
 */
#ifndef WAKEBENCH_CHANNEL_H
#define WAKEBENCH_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum channel_kind {
	CHANNEL_PIPE = 0,
	CHANNEL_EVENTFD,
	CHANNEL_FUTEX,
	CHANNEL_UNIX,
};

/* "pipe", "eventfd", "futex", "unix", NULL: indexed by enum channel_kind (OPT_CHOICE). */
extern const char *const channel_names[];

struct channel {
	int kind;	 /* enum channel_kind */
	int rfd, wfd;	 /* receive and send ends (eventfd: the same fd); -1 for futex */
	uint32_t *word;	 /* futex: the token word, in its own cache line of shared memory */
	int futex_flags; /* 0, or FUTEX_PRIVATE_FLAG when every user is a thread of one process */
};

struct channel_set {
	struct channel *ch;
	size_t n;
	void *words; /* the MAP_SHARED area of the futex words */
	size_t words_len;
};

/* File descriptors one channel of this kind holds (pipe 2, eventfd 1, futex 0, unix 2). */
unsigned channel_fds(int kind);

/*
 * Create n channels of one kind. processes: the channels will be used by
 * tasks in different processes (futex without FUTEX_PRIVATE_FLAG). On
 * failure writes one line into err (naming the call and errno's text),
 * releases what was made and returns -1.
 */
int channel_set_open(struct channel_set *cs, int kind, size_t n, bool processes, char *err,
		     size_t errlen);
void channel_set_close(struct channel_set *cs);

/*
 * Put the token in and wake the receiver. 0, or -1 with errno: EINTR
 * (a signal arrived first; nothing was sent), EPIPE (the receiving end is
 * closed), EPROTO (a short transfer), or the system call's own.
 */
int channel_send(const struct channel *ch);
/*
 * Wait for the token and take it. 0, or -1 with errno: EINTR (a signal
 * arrived; no token taken), EPIPE (the sending end is closed: end of
 * file), EPROTO (a short transfer), or the system call's own.
 */
int channel_wait(const struct channel *ch);

#endif
