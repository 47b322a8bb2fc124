/*
 * pipe.c: stress-ng's pipe stressor, reproduced per version
 * (reference/stress-ng-pipe.md).
 *
 * One pipe per instance, created with pipe2(O_DIRECT) ("packet mode": one
 * read per write, capacity counted in slots) falling back to pipe(). One op
 * is one successful write(); EINTR and EAGAIN are retried and not counted.
 * The reader calls ioctl(FIONREAD) on its 1st, 513th, 1025th ... read. The
 * loops make exactly the system calls stress-ng's do, because the benchmark
 * compares `strace -c -f` counts (research: doc/workloads.md, "pipe").
 * Tasks and roles: one group. Up to 0.21.01 task 0 "writer" (the instance
 * process, the one that counts) forks task 1 "reader". From 0.21.02 task 0
 * "parent" only sleeps, in 1-second steps, holding both ends; it forks task
 * 1 "reader", then task 2 "writer", which counts. The writer leaves its loop
 * at the runner's stop (its SIGALRM interrupts a blocked write); the reader
 * only at the profile's end of the protocol, as stress-ng's.
 *
 * Profiles (each covers the stress-ng releases in its name's range):
 *   stress-ng-0.15     (0.15.00..0.15.06) 512-byte packets; the whole
 *                      buffer is filled with an incrementing byte pattern
 *                      before every write; one private anonymous mapping of
 *                      the data size, not prefaulted; the reader reads its
 *                      /proc/PID/fdinfo once and compares the first 3 bytes
 *                      of each packet with the stop token; shutdown: the
 *                      writer writes a packet starting with "PS!", SIGKILLs
 *                      the reader and waits for it.
 *   stress-ng-0.15.07  (0.15.07..0.15.10) 512-byte packets; the one buffer
 *                      random-filled once, only its first 4 bytes (a
 *                      counter) stored before every write; the reader reads
 *                      its fdinfo once, no compare; shutdown: the writer
 *                      closes its end and sends SIGPIPE, the reader reads EOF.
 *   stress-ng-0.16     (0.16.00..0.21.01) 4096-byte packets; no per-write
 *                      store; read and write buffers of 2 x pipe size each,
 *                      prefaulted (MAP_POPULATE) and filled once with random
 *                      bytes; shutdown as 0.15.07.
 *   stress-ng-0.21.02  (0.21.02..0.22.00) per op as 0.16, but the writer is
 *                      a child of an idle instance process; shutdown: SIGPIPE
 *                      to the reader, then to the writer; the reader leaves
 *                      its blocked read with EINTR (no EOF: the parent keeps
 *                      both ends open).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/instance.h"
#include "core/sample.h"
#include "util/util.h"
#include "workloads/workload.h"

enum pipe_variant {
	PIPE_V0_15 = 0, /* stress-ng 0.15.00 .. 0.15.06 */
	PIPE_V0_15_07,	/* stress-ng 0.15.07 .. 0.15.10 */
	PIPE_V0_16,	/* stress-ng 0.16.00 .. 0.21.01 */
	PIPE_V0_21_02,	/* stress-ng 0.21.02 .. 0.22.00 */
};

struct pipe_params {
	uint64_t data_size; /* bytes per write */
	uint64_t pipe_size; /* F_SETPIPE_SZ on both ends; 0: the kernel's default */
	bool no_packet;	    /* plain pipe() instead of pipe2(O_DIRECT) */
	int variant;	    /* enum pipe_variant: set by the profile only */
};

static const struct pipe_params pipe_defaults = {
	.data_size = 512,
	.pipe_size = 0,
	.no_packet = false,
	.variant = PIPE_V0_15,
};

static const struct pipe_params pipe_v0_15_07 = {
	.data_size = 512,
	.pipe_size = 0,
	.no_packet = false,
	.variant = PIPE_V0_15_07,
};

static const struct pipe_params pipe_v0_16 = {
	.data_size = 4096,
	.pipe_size = 0,
	.no_packet = false,
	.variant = PIPE_V0_16,
};

static const struct pipe_params pipe_v0_21_02 = {
	.data_size = 4096,
	.pipe_size = 0,
	.no_packet = false,
	.variant = PIPE_V0_21_02,
};

#define PIPE_MAX_DATA_SIZE  (1024 * 1024)
#define PIPE_MIN_PIPE_SIZE  4096
#define PIPE_MAX_PIPE_SIZE  (1024 * 1024)
#define PIPE_FIONREAD_EVERY 512

static const char pipe_stop[3] = { 'P', 'S', '!' };

static const struct opt pipe_opts[] = {
	{ .type = OPT_SIZE,
	  .long_name = "data-size",
	  .offset = offsetof(struct pipe_params, data_size),
	  .argh = "SIZE",
	  .help = "bytes per write (8..4096 in packet mode, up to 1M with --no-packet)",
	  .min = 8,
	  .max = PIPE_MAX_DATA_SIZE },
	{ .type = OPT_SIZE,
	  .long_name = "pipe-size",
	  .offset = offsetof(struct pipe_params, pipe_size),
	  .argh = "SIZE",
	  .help = "pipe capacity set with F_SETPIPE_SZ (4k..1M; 0: the kernel's default)",
	  .min = 0,
	  .max = PIPE_MAX_PIPE_SIZE },
	{ .type = OPT_FLAG,
	  .long_name = "no-packet",
	  .offset = offsetof(struct pipe_params, no_packet),
	  .help = "plain pipe() instead of packet mode (pipe2 O_DIRECT)" },
	OPT_END_ROW,
};

static const struct profile pipe_profiles[] = {
	{ .name = "stress-ng-0.15",
	  .summary = "stress-ng 0.15.00..0.15.06: 512-byte packets, pattern fill before every "
		     "write, stop token then SIGKILL",
	  .params = &pipe_defaults,
	  .tool = "stress-ng",
	  .first = "0.15.00",
	  .last = "0.15.06" },
	{ .name = "stress-ng-0.15.07",
	  .summary = "stress-ng 0.15.07..0.15.10: 512-byte packets, a 4-byte counter stored "
		     "before every write, close and SIGPIPE",
	  .params = &pipe_v0_15_07,
	  .tool = "stress-ng",
	  .first = "0.15.07",
	  .last = "0.15.10" },
	{ .name = "stress-ng-0.16",
	  .summary = "stress-ng 0.16.00..0.21.01: 4096-byte packets, prefaulted random buffers, "
		     "close and SIGPIPE",
	  .params = &pipe_v0_16,
	  .tool = "stress-ng",
	  .first = "0.16.00",
	  .last = "0.21.01" },
	{ .name = "stress-ng-0.21.02",
	  .summary = "stress-ng 0.21.02..0.22.00: as 0.16, the writer a child of an idle "
		     "instance process, SIGPIPE to both",
	  .params = &pipe_v0_21_02,
	  .tool = "stress-ng",
	  .first = "0.21.02",
	  .last = "0.22.00" },
	{ .name = NULL },
};

static int pipe_check(const void *params, const struct run_params *rp, char *err, size_t errlen)
{
	const struct pipe_params *pp = params;
	char val[32];
	char line[64];
	uint64_t max;

	(void)rp;
	if (!pp->no_packet && pp->data_size > PIPE_BUF) {
		format_size(pp->data_size, val, sizeof(val));
		snprintf(err, errlen,
			 "option '--data-size': '%s' is larger than a packet, allowed 8..%d "
			 "(up to 1M with --no-packet)",
			 val, PIPE_BUF);
		return -1;
	}
	if (pp->pipe_size && pp->pipe_size < PIPE_MIN_PIPE_SIZE) {
		format_size(pp->pipe_size, val, sizeof(val));
		snprintf(err, errlen,
			 "option '--pipe-size': value out of range: '%s', allowed 4k..1M "
			 "or 0 (the kernel's default)",
			 val);
		return -1;
	}
	if (pp->pipe_size && !read_line_file("/proc/sys/fs/pipe-max-size", line, sizeof(line)) &&
	    !parse_u64(line, &max) && pp->pipe_size > max) {
		format_size(pp->pipe_size, val, sizeof(val));
		snprintf(err, errlen,
			 "option '--pipe-size': '%s' is above /proc/sys/fs/pipe-max-size, "
			 "allowed 4k..%llu or 0 (the kernel's default)",
			 val, (unsigned long long)max);
		return -1;
	}
	return 0;
}

/* Set by SIGPIPE: the 0.21.02 reader's end (its blocked read returns EINTR). */
static volatile sig_atomic_t got_sigpipe;

static void on_sigpipe(int sig)
{
	(void)sig;
	got_sigpipe = 1;
}

static int set_pipe_size(struct instance_ctx *ic, int fd, uint64_t size)
{
	int got;

	if (fcntl(fd, F_SETPIPE_SZ, (int)size) < 0) {
		instance_failed(ic, "cannot set the pipe size to %llu: %s",
				(unsigned long long)size, strerror(errno));
		return -1;
	}
	got = fcntl(fd, F_GETPIPE_SZ);
	if (got < 0 || (uint64_t)got < size) {
		instance_failed(ic, "pipe size is %d after setting it to %llu", got,
				(unsigned long long)size);
		return -1;
	}
	return 0;
}

/* stress-ng 0.15's fill: byte j of write k is (char)(k + j). */
static inline void fill_pattern(unsigned char *buf, unsigned char val, size_t len)
{
	size_t j;

	for (j = 0; j < len; j++)
		*buf++ = val++;
}

/* A small xorshift generator for the 0.21 buffers' random fill. */
static void fill_random(unsigned char *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed | 1;
	size_t j;

	for (j = 0; j < len; j++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[j] = (unsigned char)(x >> 24);
	}
}

static void *map_buffer(struct instance_ctx *ic, size_t len, bool populate)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | (populate ? MAP_POPULATE : 0), -1, 0);

	if (p == MAP_FAILED) {
		instance_failed(ic, "cannot map a %zu-byte buffer: %s", len, strerror(errno));
		return NULL;
	}
	return p;
}

/* 0.15's reader reads its pipe's /proc/PID/fdinfo once (stress_read_fdinfo()). */
static void read_fdinfo(int fd)
{
	char path[64], buf[4096];
	int f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)getpid(), fd);
	f = open(path, O_RDONLY);
	if (f < 0)
		return;
	if (read(f, buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	close(f);
}

/* The reader (task 1). Never returns. */
static void NORETURN pipe_reader(const struct pipe_params *pp, struct instance_ctx *ic, int rfd,
				 int wfd, unsigned char *buf)
{
	const size_t size = pp->data_size;
	const bool v015 = pp->variant == PIPE_V0_15;
	unsigned reads = 0;
	int avail;

	if (pp->variant <= PIPE_V0_15_07)
		read_fdinfo(rfd);
	close(wfd);
	if (instance_ready(ic))
		_exit(1);
	/*
	 * Not while instance_running(): stress-ng's reader never sees the end
	 * of the window, it reads until the stop token, EOF, SIGPIPE or
	 * SIGKILL (the stop's SIGALRM only interrupts a read, which is retried).
	 * From 0.15.07 the SIGPIPE handler ends the loop (stress-ng's clears
	 * its continue flag), the only end from 0.21.02.
	 */
	while (v015 || !got_sigpipe) {
		ssize_t n = read(rfd, buf, size);

		if (n <= 0) {
			if (n < 0 && errno == EINTR && got_sigpipe && !v015)
				break;
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n == 0 && !v015)
				break; /* 0.15.07 .. 0.21.01: the writer closed its end */
			if (n < 0)
				instance_failed(ic, "reader: read failed: %s", strerror(errno));
			else
				instance_failed(ic, "reader: the writer closed the pipe early");
			close(rfd);
			_exit(1);
		}
		if (v015 && !memcmp(buf, pipe_stop, sizeof(pipe_stop)))
			break;
		if ((reads++ & (PIPE_FIONREAD_EVERY - 1)) == 0)
			ioctl(rfd, FIONREAD, &avail);
	}
	close(rfd);
	_exit(0);
}

/* 0.15's reader ends by our SIGKILL, or by itself after the stop token. */
static bool reader_ended_well(int status)
{
	return (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) ||
	       (WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void writer_failed(struct instance_ctx *ic, ssize_t n)
{
	if (n < 0 && errno == EPIPE)
		instance_failed(ic, "the reader is gone (write: %s)", strerror(errno));
	else
		instance_failed(ic, "write failed: %s", n < 0 ? strerror(errno) : "wrote nothing");
}

/* The pipe, packet mode unless --no-packet, of --pipe-size. -1 after saying why (closed). */
static int open_pipe(struct instance_ctx *ic, const struct pipe_params *pp, int *fds)
{
	if (pp->no_packet ? pipe(fds) < 0 : pipe2(fds, O_DIRECT) < 0 && pipe(fds) < 0) {
		instance_failed(ic, "cannot create a pipe: %s", strerror(errno));
		return -1;
	}
	if (pp->pipe_size && (set_pipe_size(ic, fds[0], pp->pipe_size) ||
			      set_pipe_size(ic, fds[1], pp->pipe_size))) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	return 0;
}

/*
 * The buffers: 0.15's one buffer of the data size, shared by fork (copy on
 * write), random-filled once from 0.15.07; from 0.16 two of twice the
 * pipe's size (F_GETPIPE_SZ on both ends), prefaulted, random-filled.
 */
static int map_buffers(struct instance_ctx *ic, const struct pipe_params *pp, const int *fds,
		       unsigned char **wbuf, unsigned char **rbuf, size_t *buf_len)
{
	int psize;

	if (pp->variant <= PIPE_V0_15_07) {
		*buf_len = pp->data_size;
		*wbuf = *rbuf = map_buffer(ic, *buf_len, false);
		if (*wbuf && pp->variant == PIPE_V0_15_07)
			fill_random(*wbuf, *buf_len, now_ns() ^ (uint64_t)getpid());
		return *wbuf ? 0 : -1;
	}
	(void)fcntl(fds[0], F_GETPIPE_SZ);
	psize = fcntl(fds[1], F_GETPIPE_SZ);
	*buf_len = 2 * (size_t)(psize > 0 ? psize : 65536);
	if (*buf_len < pp->data_size)
		*buf_len = pp->data_size;
	if (!(*wbuf = map_buffer(ic, *buf_len, true)))
		return -1;
	if (!(*rbuf = map_buffer(ic, *buf_len, true))) {
		munmap(*wbuf, *buf_len);
		return -1;
	}
	fill_random(*wbuf, *buf_len, now_ns() ^ (uint64_t)getpid());
	fill_random(*rbuf, *buf_len, now_ns() ^ ((uint64_t)getpid() << 20));
	return 0;
}

static void unmap_buffers(unsigned char *wbuf, unsigned char *rbuf, size_t buf_len)
{
	munmap(wbuf, buf_len);
	if (rbuf != wbuf)
		munmap(rbuf, buf_len);
}

/* One write of the writer's loop: 1 counted, 0 to retry (EAGAIN, EINTR), -1 failed (said). */
static inline int write_once(struct instance_ctx *ic, int fd, const unsigned char *buf, size_t size)
{
	ssize_t n = write(fd, buf, size);

	if (n > 0)
		return 1;
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	writer_failed(ic, n);
	return -1;
}

/* 0.15's writer: the buffer filled with the next pattern before every write. */
static int write_loop_015(struct instance_ctx *ic, int fd, unsigned char *wbuf, size_t size,
			  uint64_t *ops)
{
	unsigned char val = 0;
	int r;

	do {
		fill_pattern(wbuf, val++, size);
		if ((r = write_once(ic, fd, wbuf, size)) < 0)
			return -1;
		*ops += (uint64_t)r;
	} while (instance_running(ic));
	return 0;
}

/* 0.15.07's writer: a 4-byte counter stored into the buffer before every write. */
static int write_loop_01507(struct instance_ctx *ic, int fd, unsigned char *wbuf, size_t size,
			    uint64_t *ops)
{
	volatile uint32_t *buf32 = (volatile uint32_t *)(void *)wbuf; /* page aligned */
	uint32_t val = 0;
	int r;

	do {
		*buf32 = val++;
		if ((r = write_once(ic, fd, wbuf, size)) < 0)
			return -1;
		*ops += (uint64_t)r;
	} while (instance_running(ic));
	return 0;
}

/* 0.16's writer: the same buffer, written again and again. */
static int write_loop(struct instance_ctx *ic, int fd, const unsigned char *wbuf, size_t size,
		      uint64_t *ops)
{
	int r;

	do {
		if ((r = write_once(ic, fd, wbuf, size)) < 0)
			return -1;
		*ops += (uint64_t)r;
	} while (instance_running(ic));
	return 0;
}

/* The writer's loop of the profile, timed for MB/s. */
static int pipe_write(struct instance_ctx *ic, const struct pipe_params *pp, int wfd,
		      unsigned char *wbuf)
{
	const size_t size = pp->data_size;
	uint64_t *ops = instance_ops(ic), t0 = now_ns();
	int rc;

	if (pp->variant == PIPE_V0_15)
		rc = write_loop_015(ic, wfd, wbuf, size, ops);
	else if (pp->variant == PIPE_V0_15_07)
		rc = write_loop_01507(ic, wfd, wbuf, size, ops);
	else
		rc = write_loop(ic, wfd, wbuf, size, ops);
	instance_set_loop_ns(ic, now_ns() - t0);
	*instance_bytes(ic) = *ops * size;
	return rc;
}

/* A child that must have exited 0; its status checked after a good run. */
static int reap_clean(struct instance_ctx *ic, pid_t pid, const char *role, int rc)
{
	int status = instance_reap_child(ic, pid);

	if (rc == 0 && status >= 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		instance_failed(ic, "%s ended with status 0x%x", role, status);
		rc = -1;
	}
	return rc;
}

/*
 * The reader's end: 0.15's stop token and SIGKILL, later versions' EOF and
 * SIGPIPE; its status checked. Closes the write end.
 */
static int stop_reader(struct instance_ctx *ic, const struct pipe_params *pp, pid_t pid, int wfd,
		       unsigned char *wbuf, int rc)
{
	int status;

	if (pp->variant == PIPE_V0_15) {
		/*
		 * The stop token fills a whole packet, as 0.15's memset + memcpy.
		 * Like 0.15, a failed token write (EINTR from the re-armed alarm
		 * when the reader is slow to drain) is not an error: the SIGKILL
		 * ends the reader anyway.
		 */
		memset(wbuf, 0, pp->data_size);
		memcpy(wbuf, pipe_stop, sizeof(pipe_stop));
		if (rc == 0) {
			ssize_t n = write(wfd, wbuf, pp->data_size);

			(void)n;
		}
		kill(pid, SIGKILL);
		status = instance_reap_child(ic, pid);
		close(wfd);
		if (rc == 0 && status >= 0 && !reader_ended_well(status)) {
			instance_failed(ic, "reader ended with status 0x%x", status);
			rc = -1;
		}
		return rc;
	}
	close(wfd);
	kill(pid, SIGPIPE);
	return reap_clean(ic, pid, "reader", rc);
}

/* 0.21.02's writer (task 2): a child of the idle instance process. Never returns. */
static void NORETURN pipe_writer_child(const struct pipe_params *pp, struct instance_ctx *ic,
				       const int *fds, unsigned char *wbuf, unsigned char *rbuf,
				       size_t buf_len)
{
	int rc;

	close(fds[0]);
	if (instance_ready(ic))
		_exit(1);
	rc = pipe_write(ic, pp, fds[1], wbuf);
	close(fds[0]); /* stress-ng closes the read end again (EBADF) */
	unmap_buffers(wbuf, rbuf, buf_len);
	_exit(rc ? 1 : 0);
}

/*
 * 0.21.02: the instance process forks the reader, then the writer, and
 * sleeps in 1-second steps until the stop, holding both ends; then SIGPIPE
 * to the reader and to the writer, and waits for both.
 */
static int pipe_instance_idle(const struct pipe_params *pp, struct instance_ctx *ic, int *fds,
			      unsigned char *wbuf, unsigned char *rbuf, size_t buf_len)
{
	pid_t reader, writer;
	int rc = 0;

	reader = instance_fork(ic);
	if (reader < 0)
		return -1;
	if (reader == 0)
		pipe_reader(pp, ic, fds[0], fds[1], rbuf);
	writer = instance_fork(ic);
	if (writer == 0)
		pipe_writer_child(pp, ic, fds, wbuf, rbuf, buf_len);
	if (writer < 0 || instance_ready(ic)) {
		kill(reader, SIGKILL);
		instance_reap_child(ic, reader);
		if (writer > 0) {
			kill(writer, SIGKILL);
			instance_reap_child(ic, writer);
		}
		return -1;
	}
	do
		sleep(1);
	while (instance_running(ic));
	kill(reader, SIGPIPE);
	kill(writer, SIGPIPE);
	rc = reap_clean(ic, reader, "reader", rc);
	return reap_clean(ic, writer, "writer", rc);
}

static int pipe_instance(const void *params, struct instance_ctx *ic)
{
	const struct pipe_params *pp = params;
	struct sigaction sa;
	unsigned char *wbuf, *rbuf;
	size_t buf_len;
	int fds[2], rc;
	pid_t pid;

	/*
	 * A dead reader must give EPIPE (a reason), not kill the writer; from
	 * 0.21.02 SIGPIPE is also the end of the reader's loop.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigpipe;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, NULL);
	if (open_pipe(ic, pp, fds))
		return -1;
	if (map_buffers(ic, pp, fds, &wbuf, &rbuf, &buf_len))
		goto fail_close;
	if (pp->variant == PIPE_V0_21_02) {
		rc = pipe_instance_idle(pp, ic, fds, wbuf, rbuf, buf_len);
		unmap_buffers(wbuf, rbuf, buf_len);
		close(fds[0]);
		close(fds[1]);
		return rc;
	}
	pid = instance_fork(ic);
	if (pid < 0)
		goto fail_unmap;
	if (pid == 0)
		pipe_reader(pp, ic, fds[0], fds[1], rbuf);
	close(fds[0]);
	fds[0] = -1;
	if (instance_ready(ic)) {
		kill(pid, SIGKILL);
		instance_reap_child(ic, pid);
		goto fail_unmap;
	}
	rc = pipe_write(ic, pp, fds[1], wbuf);
	rc = stop_reader(ic, pp, pid, fds[1], wbuf, rc);
	unmap_buffers(wbuf, rbuf, buf_len);
	return rc;

fail_unmap:
	unmap_buffers(wbuf, rbuf, buf_len);
fail_close:
	if (fds[0] >= 0)
		close(fds[0]);
	close(fds[1]);
	return -1;
}

/* One group: writer and reader, and from 0.21.02 the idle instance process. */
static unsigned pipe_tasks(const void *params)
{
	const struct pipe_params *pp = params;

	return pp->variant == PIPE_V0_21_02 ? 3 : 2;
}

enum { ROLE_WRITER, ROLE_READER, ROLE_PARENT };

static void pipe_layout(const void *params, unsigned task, unsigned *group, unsigned *role)
{
	const struct pipe_params *pp = params;
	static const unsigned idle[] = { ROLE_PARENT, ROLE_READER, ROLE_WRITER };

	*group = 0;
	*role = pp->variant == PIPE_V0_21_02 ? idle[task] : task;
}

static const char *const pipe_roles[] = { "writer", "reader", "parent", NULL };

const struct workload workload_pipe = {
	.name = "pipe",
	.summary = "stress-ng's pipe stressor: a writer and a reader per instance",
	.op_name = "bogo ops",
	.primary = "ops_per_s",
	.params_size = sizeof(struct pipe_params),
	.defaults = &pipe_defaults,
	.opts = pipe_opts,
	.profiles = pipe_profiles,
	.default_profile = "stress-ng-0.15",
	.check = pipe_check,
	.tasks = pipe_tasks,
	.layout = pipe_layout,
	.roles = pipe_roles,
	.instance = pipe_instance,
};
