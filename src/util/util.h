/*
 * util.h: the error vocabulary, number/duration/size/CPU-list parsers and
 * EINTR-safe I/O used by every layer of wakebench.
 *
 * Only main.c and cli/ may exit; lower layers report with error() (which
 * prints and returns -1) so that callers can restore kernel state first.
 * Messages are lower-case, without a final full stop, objects quoted:
 *   wakebench: error: cannot open 'results.db': Permission denied
 */
#ifndef WAKEBENCH_UTIL_H
#define WAKEBENCH_UTIL_H

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define WAKEBENCH_VERSION "0.1.0"

/* Exit status contract (DESIGN section 2). */
enum {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1,
	EXIT_USAGE = 2,
	EXIT_REGRESSION = 3,
	EXIT_SKIP = 77,
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#define NORETURN	  __attribute__((noreturn))
#else
#define PRINTF_LIKE(f, a)
#define NORETURN
#endif

/* Verbosity: -q sets -1, default 0, -v sets 1 or more. */
extern int wb_verbosity;
/* > 0: error(), error_errno() and warning() say nothing (a dry run that is redone aloud) */
extern int wb_errors_muted;

NORETURN void die(const char *fmt, ...) PRINTF_LIKE(1, 2);	 /* exit 1 */
NORETURN void die_errno(const char *fmt, ...) PRINTF_LIKE(1, 2); /* exit 1, ": strerror" */
NORETURN void die_usage(const char *fmt, ...) PRINTF_LIKE(1, 2); /* exit 2 */
NORETURN void die_skip(const char *fmt, ...) PRINTF_LIKE(1, 2);	 /* exit 77 */
NORETURN void BUG(const char *fmt, ...) PRINTF_LIKE(1, 2);	 /* abort */
int error(const char *fmt, ...) PRINTF_LIKE(1, 2);		 /* returns -1 */
int error_errno(const char *fmt, ...) PRINTF_LIKE(1, 2);	 /* returns -1 */
void warning(const char *fmt, ...) PRINTF_LIKE(1, 2);
void info(const char *fmt, ...) PRINTF_LIKE(1, 2);  /* suppressed by -q */
void debug(const char *fmt, ...) PRINTF_LIKE(1, 2); /* shown with -v */

/* Allocation that dies on failure (out of memory is not recoverable here). */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) PRINTF_LIKE(1, 2);
/* The same for a va_list (a caller's own printf-like function). */
char *xvasprintf(const char *fmt, va_list ap) PRINTF_LIKE(1, 0);

/*
 * Parsers. Each returns 0 on success, -1 on a malformed value (errno
 * EINVAL) or one too large to represent (errno ERANGE); nothing is printed:
 * the caller names the option. Range checks are the caller's. Numbers are
 * plain decimals: no sign, no hexadecimal, no exponent.
 */
int parse_u64(const char *s, uint64_t *out);
int parse_double(const char *s, double *out);
/*
 * Release numbers "0.15.06", "0.21", "6.1.0": 1..4 dot-separated decimal
 * components (a missing one counts as 0, so "0.21" is "0.21.00"). 0 and
 * *cmp = -1/0/1 as a is before, the same as, after b; -1 when either is not
 * a release number.
 */
int version_cmp(const char *a, const char *b, int *cmp);
/* "20s", "500ms", "0.5s", "2m", "100us", "1h", bare number = seconds. */
int parse_duration_ns(const char *s, uint64_t *out_ns);
/* "512", "4k", "1M", "64KiB" (binary multiples). */
int parse_size(const char *s, uint64_t *out_bytes);
/* "0-3,5,7-8" into a bitmap of at most max_cpus bits; returns count or -1. */
int parse_cpulist(const char *s, uint8_t *bitmap, size_t max_cpus);
/* Format a duration in the shortest exact unit ("1.5s", "500ms"). */
void format_duration(uint64_t ns, char *buf, size_t len);
void format_size(uint64_t bytes, char *buf, size_t len);
/* "SIGINT", "SIGQUIT", "SIGRTMIN+1", "SIGRTMAX": the name of signal sig (static storage). */
const char *signal_name(int sig);

/* I/O that retries EINTR and short transfers. */
ssize_t read_full(int fd, void *buf, size_t len);
ssize_t write_full(int fd, const void *buf, size_t len);
/*
 * Read a whole (small, procfs/sysfs-like) file into a NUL-terminated malloc'd
 * buffer. Returns -1 with errno set on failure.
 */
int read_file(const char *path, char **out, size_t *len_out);
/* Read the first line (without newline) into buf; -1 with errno on failure. */
int read_line_file(const char *path, char *buf, size_t len);
/*
 * path under root, into buf (returned): path itself for root NULL or "/"
 * (this machine), else root joined to it (WAKEBENCH_ROOT's fake trees).
 */
const char *root_path(const char *root, const char *path, char *buf, size_t len);

/*
 * Hold the signals that end a process when sent (Ctrl-C, kill, a hang-up,
 * ...) for a short step that must finish or undo itself: they wait and
 * arrive at signals_release(). The faults (SIGSEGV, SIGBUS, ...) are not
 * held, nor can SIGKILL be.
 */
void signals_hold(sigset_t *saved);
void signals_release(const sigset_t *saved);

/*
 * A new file beside path, "PATH.tmp-XXXXXX", created exclusively with mode
 * 0600: its descriptor (close-on-exec) and its malloc'd name in *tmp, or -1
 * with errno set and *tmp NULL.
 */
int temp_beside(const char *path, char **tmp);

/*
 * An output file that appears complete or not at all: written under a
 * temporary name beside it (temp_beside()), flushed to disk, then renamed
 * into place; on any failure, and on outfile_abort(), the temporary is
 * removed and PATH is as it was. From outfile_open() to the end the
 * signals that end a process are held (signals_hold()), so that Ctrl-C
 * cannot leave the temporary behind: it arrives once the file is in place
 * or gone. Only SIGKILL (or a crash) can leave a "PATH.tmp-XXXXXX".
 *
 * - A PATH that exists and is not a regular file (a device, a FIFO), or
 *   that names an open descriptor (/dev/stdout, /dev/fd/N, /proc/...), is
 *   written in place, as fopen() would: there is nothing to replace (or the
 *   descriptor's file is the one meant), and nothing is held (opening a
 *   FIFO may wait for its reader).
 * - A symbolic link to a file: the file is replaced and the link kept.
 * - mode 0: a replaced file keeps its mode (and its owner, where root
 *   writes it); a new one gets 0666 less the umask, as from fopen().
 *
 * Every function returns -1 with errno set on failure, having cleaned up.
 */
struct outfile {
	int fd;	    /* write here */
	char *path; /* where it goes */
	char *tmp;  /* the temporary, NULL when written in place */
	mode_t mode;
	uid_t uid;
	gid_t gid;
	bool replaces, held;
	sigset_t saved;
};
int outfile_open(struct outfile *of, const char *path, mode_t mode);
/* For outfile_publish() only: always a temporary, whatever PATH is now. */
int outfile_open_new(struct outfile *of, const char *path, mode_t mode);
/* Rename over PATH. */
int outfile_commit(struct outfile *of);
/* Put in place only if PATH does not exist: 0, or 1 when it does (the temporary removed). */
int outfile_publish(struct outfile *of);
void outfile_abort(struct outfile *of);
/* outfile_open(), one write, outfile_commit(). */
int write_file_atomic(const char *path, const void *data, size_t len);

/* Find a program: a path containing '/', else searched in PATH. 0 if found. */
int find_program(const char *name, char *out, size_t len);
/*
 * Run argv with argv[0] found by find_program() and its output dropped (at
 * most 15 arguments): 0 with its exit status in *status (run_capture()'s),
 * or -1 when argv[0] is not found.
 */
int run_program(const char *const *argv, int *status);

/*
 * Run argv (argv[0] a path, not searched in PATH) with stdin and stderr on
 * /dev/null, capturing its stdout (at most 1 MiB) into a malloc'd string.
 * Returns its exit status (128 + signal when killed), or -1 after an error.
 */
int run_capture(const char *const *argv, char **out);

/* CLOCK_MONOTONIC and CLOCK_REALTIME in nanoseconds. */
uint64_t now_ns(void);
uint64_t realtime_ns(void);
void sleep_ns(uint64_t ns);

/* Strip trailing whitespace in place; returns s. */
char *rtrim(char *s);

#endif
