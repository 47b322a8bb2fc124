/*
 * io.c: read/write wrappers that survive EINTR and short transfers, small
 * file readers for procfs/sysfs/debugfs, output files that appear complete
 * or not at all (struct outfile), and the clocks.
 *
 * Interval clocks are CLOCK_MONOTONIC in nanoseconds (STYLE.md, habits);
 * CLOCK_REALTIME is used only for timestamps stored with results.
 */
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

const char *root_path(const char *root, const char *path, char *buf, size_t len)
{
	if (!root || !strcmp(root, "/"))
		snprintf(buf, len, "%s", path);
	else
		snprintf(buf, len, "%s%s%s", root, path[0] == '/' ? "" : "/", path);
	return buf;
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

/* ---- output files: complete or not at all ---- */

void signals_hold(sigset_t *saved)
{
	static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS };
	sigset_t set;
	size_t i;

	sigfillset(&set);
	for (i = 0; i < ARRAY_SIZE(faults); i++)
		sigdelset(&set, faults[i]);
	sigprocmask(SIG_BLOCK, &set, saved);
}

void signals_release(const sigset_t *saved)
{
	sigprocmask(SIG_SETMASK, saved, NULL);
}

int temp_beside(const char *path, char **tmp)
{
	int fd;

	*tmp = xasprintf("%s.tmp-XXXXXX", path);
	fd = mkostemp(*tmp, O_CLOEXEC);
	/* 0600 whatever the umask: its owner must be able to write it and read it back */
	if (fd >= 0 && fchmod(fd, 0600)) {
		int e = errno;

		close(fd);
		unlink(*tmp);
		errno = e;
		fd = -1;
	}
	if (fd < 0) {
		int e = errno;

		free(*tmp);
		*tmp = NULL;
		errno = e;
	}
	return fd;
}

/* fopen()'s mode for a new file: 0666 less the umask. */
static mode_t new_file_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0666 & ~mask;
}

/* The temporary made final: its mode and owner, on disk, closed. */
static int outfile_seal(struct outfile *of)
{
	int fd = of->fd;

	of->fd = -1;
	/* only root may keep another's ownership; the content is what matters */
	if (of->replaces && (of->uid != geteuid() || of->gid != getegid()) &&
	    fchown(fd, of->uid, of->gid))
		debug("cannot keep the owner of '%s': %s", of->path, strerror(errno));
	if (fchmod(fd, of->mode) || fsync(fd)) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

/* Release what of holds (removing the temporary unless moved), keeping errno; ret. */
static int outfile_done(struct outfile *of, bool moved, int ret)
{
	int e = errno;

	if (of->fd >= 0)
		close(of->fd);
	of->fd = -1;
	if (of->tmp && !moved)
		unlink(of->tmp);
	free(of->tmp);
	of->tmp = NULL;
	if (of->held)
		signals_release(&of->saved);
	of->held = false;
	free(of->path);
	of->path = NULL;
	errno = e;
	return ret;
}

/* The temporary beside of->path, the signals held. */
static int outfile_temp(struct outfile *of)
{
	signals_hold(&of->saved);
	of->held = true;
	of->fd = temp_beside(of->path, &of->tmp);
	return of->fd < 0 ? outfile_done(of, false, -1) : 0;
}

/*
 * Whether path is, or leads by symbolic links to, a file in /proc: an open
 * descriptor (/dev/stdout, /dev/fd/3, /proc/self/fd/1), to be written as
 * the descriptor would be, not replaced by another file.
 */
static bool names_descriptor(const char *path)
{
	char *cur = xstrdup(path), *dir = NULL;
	bool found = false;
	int hops;

	for (hops = 0; hops < 40 && !found; hops++) {
		char *slash, link[PATH_MAX];
		ssize_t n;

		slash = strrchr(cur, '/');
		if (slash)
			*slash = '\0';
		free(dir);
		dir = realpath(!slash ? "." : slash == cur ? "/" : cur, NULL);
		if (slash)
			*slash = '/';
		found = dir && (!strcmp(dir, "/proc") || !strncmp(dir, "/proc/", 6));
		n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0 || !dir)
			break;
		link[n] = '\0';
		free(cur);
		cur = link[0] == '/' ? xstrdup(link) : xasprintf("%s/%s", dir, link);
	}
	free(cur);
	free(dir);
	return found;
}

int outfile_open(struct outfile *of, const char *path, mode_t mode)
{
	struct stat sb;
	bool exists = !stat(path, &sb);

	memset(of, 0, sizeof(*of));
	of->fd = -1;
	if (!exists && errno != ENOENT)
		return -1;
	if (exists && (!S_ISREG(sb.st_mode) || names_descriptor(path))) {
		/* a device, a FIFO, /dev/stdout: nothing to replace, written as it is */
		of->fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (of->fd < 0)
			return -1;
		of->path = xstrdup(path);
		return 0;
	}
	/* a symbolic link to a file: the file is replaced, the link kept */
	if (exists && !lstat(path, &sb) && S_ISLNK(sb.st_mode))
		of->path = realpath(path, NULL);
	if (!of->path)
		of->path = xstrdup(path);
	if (exists && !stat(of->path, &sb)) {
		of->mode = mode ? mode : sb.st_mode & 07777;
		of->uid = sb.st_uid;
		of->gid = sb.st_gid;
		of->replaces = true;
	} else {
		of->mode = mode ? mode : new_file_mode();
	}
	return outfile_temp(of);
}

int outfile_open_new(struct outfile *of, const char *path, mode_t mode)
{
	memset(of, 0, sizeof(*of));
	of->path = xstrdup(path);
	of->mode = mode ? mode : new_file_mode();
	return outfile_temp(of);
}

int outfile_commit(struct outfile *of)
{
	if (!of->tmp) {
		int fd = of->fd;

		of->fd = -1;
		return outfile_done(of, false, close(fd));
	}
	if (outfile_seal(of) || rename(of->tmp, of->path))
		return outfile_done(of, false, -1);
	return outfile_done(of, true, 0);
}

int outfile_publish(struct outfile *of)
{
	if (!of->tmp)
		BUG("outfile_publish() of '%s', which is written in place", of->path);
	if (outfile_seal(of))
		return outfile_done(of, false, -1);
	if (!renameat2(AT_FDCWD, of->tmp, AT_FDCWD, of->path, RENAME_NOREPLACE))
		return outfile_done(of, true, 0);
	/* a file system without RENAME_NOREPLACE (NFS): link, which never replaces either */
	if ((errno == EINVAL || errno == ENOSYS || errno == ENOTSUP) && !link(of->tmp, of->path))
		return outfile_done(of, false, 0);
	return outfile_done(of, false, errno == EEXIST ? 1 : -1);
}

void outfile_abort(struct outfile *of)
{
	outfile_done(of, false, 0);
}

int write_file_atomic(const char *path, const void *data, size_t len)
{
	struct outfile of;

	if (outfile_open(&of, path, 0))
		return -1;
	if (write_full(of.fd, data, len) != (ssize_t)len) {
		int e = errno;

		outfile_abort(&of);
		errno = e;
		return -1;
	}
	return outfile_commit(&of);
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

int find_program(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH"), *p;

	if (strchr(name, '/')) {
		if (access(name, X_OK))
			return -1;
		snprintf(out, len, "%s", name);
		return 0;
	}
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);

		if (n && (size_t)snprintf(out, len, "%.*s/%s", (int)n, p, name) < len &&
		    !access(out, X_OK))
			return 0;
		p += n;
		if (*p == ':')
			p++;
	}
	return -1;
}

int run_program(const char *const *argv, int *status)
{
	char path[PATH_MAX], *out = NULL;
	const char *av[16];
	size_t i;

	if (find_program(argv[0], path, sizeof(path)))
		return -1;
	for (i = 0; argv[i] && i + 1 < ARRAY_SIZE(av); i++)
		av[i] = i ? argv[i] : path;
	av[i] = NULL;
	*status = run_capture(av, &out);
	free(out);
	return 0;
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
