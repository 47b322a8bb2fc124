/*
 * io.c: read/write wrappers that survive EINTR and short transfers, small
 * file readers for procfs/sysfs/debugfs, and the clocks.
 *
 * Interval clocks are CLOCK_MONOTONIC in nanoseconds (STYLE.md, habits);
 * CLOCK_REALTIME is used only for timestamps stored with results.
 */
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

ssize_t write_full(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

int read_file(const char *path, char **out, size_t *len_out)
{
	size_t alloc = 4096, len = 0;
	char *buf;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	buf = xmalloc(alloc);
	for (;;) {
		ssize_t n;

		if (alloc - len < 2) {
			alloc *= 2;
			buf = xrealloc(buf, alloc);
		}
		n = read(fd, buf + len, alloc - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			free(buf);
			close(fd);
			errno = e;
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	if (len_out)
		*len_out = len;
	return 0;
}

int read_line_file(const char *path, char *buf, size_t len)
{
	char *data, *nl;

	if (read_file(path, &data, NULL))
		return -1;
	nl = strchr(data, '\n');
	if (nl)
		*nl = '\0';
	if (len) {
		strncpy(buf, data, len - 1);
		buf[len - 1] = '\0';
	}
	free(data);
	return 0;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t realtime_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL),
			       .tv_nsec = (long)(ns % 1000000000ULL) };

	/* An interrupting signal ends the sleep early on purpose. */
	nanosleep(&ts, NULL);
}

int run_capture(const char *const *argv, char **out)
{
	int pfd[2], status;
	size_t len = 0, alloc = 4096;
	char *buf;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return error_errno("pipe");
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return error_errno("fork");
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);

		dup2(pfd[1], STDOUT_FILENO);
		if (devnull >= 0) {
			dup2(devnull, STDIN_FILENO);
			dup2(devnull, STDERR_FILENO);
		}
		execv(argv[0], (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	close(pfd[1]);
	buf = xmalloc(alloc);
	for (;;) {
		ssize_t n;

		if (alloc - len < 2) {
			if (alloc >= (1 << 20))
				break;
			alloc *= 2;
			buf = xrealloc(buf, alloc);
		}
		n = read(pfd[0], buf + len, alloc - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			free(buf);
			return error_errno("waitpid");
		}
	*out = buf;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
