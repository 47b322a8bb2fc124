/*
 * vm.c: one qemu boot for `wakebench vm` (see vm.h): the argument vector,
 * starting qemu in its own process group, the wait with a deadline, flood
 * limits and stop signals, killing the group, decoding the channel, and the
 * console tail that explains a failed boot.
 *
 * The parent only polls (waitpid WNOHANG and two stat() calls every 50 ms):
 * nothing here runs while the guest measures, apart from that.
 */
#include "runner/vm.h"
#include "util/text.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A guest writing more than this on either port is stopped as broken. */
#define CONSOLE_MAX_BYTES (64ull << 20)
#define CHAN_MAX_BYTES	  (512ull << 20)
#define POLL_NS		  50000000ull
#define KILL_GRACE_NS	  2000000000ull

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	if (!stop_signal)
		stop_signal = sig;
}

void vm_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a sleeping wait loop must notice promptly. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int vm_stop_signal(void)
{
	return stop_signal;
}

int vm_qemu_version(const char *qemu, char *buf, size_t len)
{
	const char *argv[] = { qemu, "-version", NULL };
	char *out = NULL;
	int status = run_capture(argv, &out);

	if (status != 0 || !out || !*out) {
		free(out);
		return error("cannot run '%s -version'", qemu);
	}
	out[strcspn(out, "\n")] = '\0';
	snprintf(buf, len, "%s", out);
	free(out);
	return 0;
}

static void push(char ***v, size_t *n, char *s)
{
	*v = xrealloc(*v, (*n + 2) * sizeof(**v));
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
}

/* qemu's option syntax doubles a comma inside a value. */
static char *escape_commas(const char *s)
{
	size_t n = strlen(s), i, j = 0;
	char *out = xmalloc(2 * n + 1);

	for (i = 0; i < n; i++) {
		out[j++] = s[i];
		if (s[i] == ',')
			out[j++] = ',';
	}
	out[j] = '\0';
	return out;
}

char **vm_qemu_argv(const struct vm_boot *b)
{
	char **v = NULL, *esc;
	size_t n = 0;

	push(&v, &n, xstrdup(b->qemu));
	push(&v, &n, xstrdup("-nodefaults"));
	push(&v, &n, xstrdup("-no-user-config"));
	push(&v, &n, xstrdup("-display"));
	push(&v, &n, xstrdup("none"));
	push(&v, &n, xstrdup("-monitor"));
	push(&v, &n, xstrdup("none"));
	push(&v, &n, xstrdup("-no-reboot"));
	push(&v, &n, xstrdup("-machine"));
	push(&v, &n, xstrdup(b->arch->machine));
	push(&v, &n, xstrdup("-accel"));
	push(&v, &n, xstrdup(b->kvm ? "kvm" : "tcg"));
	push(&v, &n, xstrdup("-cpu"));
	push(&v, &n, xstrdup(b->kvm ? "host" : b->arch->tcg_cpu ? b->arch->tcg_cpu : "max"));
	push(&v, &n, xstrdup("-smp"));
	push(&v, &n, xasprintf("%u", b->cpus));
	push(&v, &n, xstrdup("-m"));
	push(&v, &n, xasprintf("%lluM", (unsigned long long)(b->memory_bytes >> 20)));
	push(&v, &n, xstrdup("-kernel"));
	push(&v, &n, xstrdup(b->kernel));
	push(&v, &n, xstrdup("-initrd"));
	push(&v, &n, xstrdup(b->initrd));
	push(&v, &n, xstrdup("-append"));
	push(&v, &n,
	     xasprintf("console=%s panic=-1 oops=panic rdinit=/init%s%s", b->arch->console,
		       b->append && *b->append ? " " : "", b->append ? b->append : ""));
	esc = escape_commas(b->console_path);
	push(&v, &n, xstrdup("-chardev"));
	push(&v, &n, xasprintf("file,id=wbconsole,path=%s", esc));
	free(esc);
	push(&v, &n, xstrdup("-serial"));
	push(&v, &n, xstrdup("chardev:wbconsole"));
	esc = escape_commas(b->chan_path);
	push(&v, &n, xstrdup("-chardev"));
	push(&v, &n, xasprintf("file,id=wbchan,path=%s", esc));
	free(esc);
	if (b->arch->chan_pci_serial) {
		push(&v, &n, xstrdup("-device"));
		push(&v, &n, xstrdup("pci-serial,chardev=wbchan"));
	} else {
		push(&v, &n, xstrdup("-serial"));
		push(&v, &n, xstrdup("chardev:wbchan"));
	}
	return v;
}

void vm_argv_free(char **argv)
{
	size_t i;

	for (i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (uint64_t)st.st_size;
}

/* SIGTERM to the group, then SIGKILL after a grace period; reaps pid. */
static int kill_group(pid_t pid)
{
	uint64_t until = now_ns() + KILL_GRACE_NS;
	int status = 0;

	kill(-pid, SIGTERM);
	while (now_ns() < until) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			goto reaped;
		if (r < 0 && errno != EINTR)
			return -1;
		sleep_ns(POLL_NS);
	}
	kill(-pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
reaped:
	return status;
}

static void first_line_of(const char *path, char *buf, size_t len)
{
	char *data, *p;

	buf[0] = '\0';
	if (read_file(path, &data, NULL))
		return;
	for (p = strtok(data, "\n"); p; p = strtok(NULL, "\n")) {
		rtrim(p);
		if (*p) {
			snprintf(buf, len, "%s", p);
			break;
		}
	}
	free(data);
}

/* qemu in a process group of its own, its output in the qemu log. */
static pid_t spawn_qemu(const struct vm_boot *b, char **argv)
{
	pid_t pid = fork();

	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);
		int log = open(b->qemu_log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		sigset_t none;

		/* Its own group: the terminal's Ctrl-C is ours to handle, and we kill the group. */
		setpgid(0, 0);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (devnull >= 0)
			dup2(devnull, STDIN_FILENO);
		if (log >= 0) {
			dup2(log, STDOUT_FILENO);
			dup2(log, STDERR_FILENO);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid > 0)
		setpgid(pid, pid); /* also from here, so a kill right away reaches the group */
	return pid;
}

/*
 * Until qemu exits, or is killed: a stop signal, the deadline, a flood of
 * console or channel output. Returns 1 when it was killed (out->reason
 * says why), 0 when it exited; its wait status in *status.
 */
static int watch_qemu(const struct vm_boot *b, pid_t pid, uint64_t start, struct vm_outcome *out,
		      int *status)
{
	uint64_t deadline = start + b->timeout_ns;
	char timeout[32];

	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR) {
			error_errno("waitpid");
			snprintf(out->reason, sizeof(out->reason), "lost track of qemu");
		} else if (vm_stop_signal()) {
			out->interrupted = 1;
			snprintf(out->reason, sizeof(out->reason), "interrupted by signal %d",
				 vm_stop_signal());
		} else if (now_ns() >= deadline) {
			format_duration(b->timeout_ns, timeout, sizeof(timeout));
			snprintf(out->reason, sizeof(out->reason),
				 "no result within the deadline of %s (--timeout): the guest hung "
				 "or is too slow",
				 timeout);
		} else if (file_size(b->console_path) > CONSOLE_MAX_BYTES ||
			   file_size(b->chan_path) > CHAN_MAX_BYTES) {
			snprintf(out->reason, sizeof(out->reason),
				 "the guest flooded its console or result channel");
		} else {
			sleep_ns(POLL_NS);
			continue;
		}
		*status = kill_group(pid);
		return 1;
	}
}

/* What a guest that ran to its end left: its result, or why there is none. */
static void read_outcome(const struct vm_boot *b, int status, struct vm_outcome *out)
{
	char why[256], panic[200], qemu_err[200], *chan = NULL;
	size_t chan_len = 0;

	if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && file_size(b->console_path) == 0) {
		first_line_of(b->qemu_log_path, why, sizeof(why));
		snprintf(out->reason, sizeof(out->reason), "qemu did not start%s%s",
			 why[0] ? ": " : "", why);
		return;
	}
	if (read_file(b->chan_path, &chan, &chan_len)) {
		chan = NULL;
		chan_len = 0;
	}
	if (!vmchan_parse((const uint8_t *)chan, chan_len, &out->res, why, sizeof(why))) {
		out->ok = 1;
		free(chan);
		return;
	}
	free(chan);
	vmchan_result_release(&out->res);
	first_line_of(b->qemu_log_path, qemu_err, sizeof(qemu_err));
	if (!vm_console_panic(b->console_path, panic, sizeof(panic)))
		snprintf(out->reason, sizeof(out->reason), "%s (result channel: %s)", panic, why);
	else if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) && qemu_err[0])
		snprintf(out->reason, sizeof(out->reason), "qemu failed: %s", qemu_err);
	else if (file_size(b->console_path) == 0)
		snprintf(out->reason, sizeof(out->reason),
			 "the kernel printed nothing on its console (result channel: %s)", why);
	else
		snprintf(out->reason, sizeof(out->reason), "result channel: %s", why);
}

int vm_run(const struct vm_boot *b, struct vm_outcome *out)
{
	char **argv = vm_qemu_argv(b);
	uint64_t start;
	int status = 0, killed;
	pid_t pid;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (wb_verbosity > 0) {
		/* a command line a shell can run, whatever the paths hold (printable ASCII) */
		char *cmd;

		for (i = 0; argv[i]; i++)
			;
		cmd = sh_command((const char *const *)argv, i);
		fprintf(stderr, "wakebench: debug: qemu: %s\n", cmd);
		free(cmd);
	}
	start = now_ns();
	pid = spawn_qemu(b, argv);
	vm_argv_free(argv);
	if (pid < 0)
		return error_errno("fork");
	killed = watch_qemu(b, pid, start, out, &status);
	out->wall_ns = now_ns() - start;
	if (!killed)
		read_outcome(b, status, out);
	return 0;
}

void vm_outcome_release(struct vm_outcome *out)
{
	vmchan_result_release(&out->res);
}

void vm_console_tail(const char *path, unsigned lines, const char *prefix, FILE *f)
{
	char *data = NULL;
	size_t len = 0, start;
	unsigned seen = 0;

	if (read_file(path, &data, &len) || !len) {
		fprintf(f, "%s(the console is empty)\n", prefix);
		free(data);
		return;
	}
	start = len;
	if (start && data[start - 1] == '\n')
		start--;
	while (start > 0) {
		if (data[start - 1] == '\n' && ++seen == lines)
			break;
		start--;
	}
	while (start < len) {
		size_t end = start, i;

		while (end < len && data[end] != '\n')
			end++;
		char *line = xmalloc(end - start + 1);
		size_t n = 0;

		for (i = start; i < end; i++)
			if (data[i] != '\r' && data[i] != '\0')
				line[n++] = data[i];
		line[n] = '\0';
		fputs(prefix, f);
		/* The console may hold anything: show control bytes harmlessly. */
		text_fput(f, line, TEXT_MULTILINE);
		fputc('\n', f);
		free(line);
		start = end + 1;
	}
	free(data);
}

int vm_console_panic(const char *path, char *buf, size_t len)
{
	static const char *const marks[] = { "Kernel panic - not syncing",
					     "BUG: ", "Oops: ", "Attempted to kill init" };
	char *data, *best = NULL;
	size_t i;

	if (read_file(path, &data, NULL))
		return -1;
	for (i = 0; i < ARRAY_SIZE(marks); i++) {
		char *p = strstr(data, marks[i]);

		if (p && (!best || p < best))
			best = p;
	}
	if (best) {
		best[strcspn(best, "\r\n")] = '\0';
		snprintf(buf, len, "%s", best);
	}
	free(data);
	return best ? 0 : -1;
}
