/*
 * error.c: wakebench's one error vocabulary (die, error, warning, BUG) and
 * the allocation wrappers that die on out-of-memory.
 *
 * Everything goes to stderr with the "wakebench: " prefix so that stdout
 * carries only results, one line per message: control characters in what
 * a message quotes are printed as visible escapes (util/text.h).
 */
#include "util/text.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int wb_verbosity;
int wb_errors_muted;

/* The attribute lets the compiler check fmt against the callers' arguments. */
static void vreport(const char *prefix, const char *fmt, va_list ap, int errnum) PRINTF_LIKE(2, 0);

/*
 * The message is one line whatever it quotes: an argument, a label or a
 * path with a control character in it shows it as an escape (util/text.h).
 */
static void vreport(const char *prefix, const char *fmt, va_list ap, int errnum)
{
	char msg[2048], safe[4 * sizeof(msg)];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	text_printable_buf(msg, 0, safe, sizeof(safe));
	if (errnum)
		fprintf(stderr, "wakebench: %s%s: %s\n", prefix, safe, strerror(errnum));
	else
		fprintf(stderr, "wakebench: %s%s\n", prefix, safe);
	fflush(stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap, 0);
	va_end(ap);
	exit(EXIT_RUNTIME);
}

void die_errno(const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap, e);
	va_end(ap);
	exit(EXIT_RUNTIME);
}

void die_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap, 0);
	va_end(ap);
	exit(EXIT_USAGE);
}

void die_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap, 0);
	va_end(ap);
	exit(EXIT_SKIP);
}

void BUG(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("BUG: ", fmt, ap, 0);
	va_end(ap);
	abort();
}

int error(const char *fmt, ...)
{
	va_list ap;

	if (wb_errors_muted)
		return -1;
	va_start(ap, fmt);
	vreport("error: ", fmt, ap, 0);
	va_end(ap);
	return -1;
}

int error_errno(const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	if (wb_errors_muted)
		return -1;
	va_start(ap, fmt);
	vreport("error: ", fmt, ap, e);
	va_end(ap);
	errno = e;
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	if (wb_errors_muted)
		return;
	va_start(ap, fmt);
	vreport("warning: ", fmt, ap, 0);
	va_end(ap);
}

void info(const char *fmt, ...)
{
	va_list ap;

	if (wb_verbosity < 0)
		return;
	va_start(ap, fmt);
	vreport("", fmt, ap, 0);
	va_end(ap);
}

void debug(const char *fmt, ...)
{
	va_list ap;

	if (wb_verbosity < 1)
		return;
	va_start(ap, fmt);
	vreport("debug: ", fmt, ap, 0);
	va_end(ap);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory allocating %zu bytes", n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		die("out of memory allocating %zu x %zu bytes", nmemb, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		die("out of memory allocating %zu bytes", n);
	return q;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory duplicating a string");
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *p;

	if (vasprintf(&p, fmt, ap) < 0)
		die("out of memory formatting a string");
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}
