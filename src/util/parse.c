/*
 * parse.c: strict parsers for the values people type on the command line:
 * unsigned integers, decimals, durations with units, sizes with binary
 * multiples and CPU lists. Strict means the whole string must be consumed:
 * "5x" is an error, never 5; numbers are decimal ("0x10ms" is an error).
 * A value too large to hold is told apart (errno ERANGE) from a malformed
 * one (EINVAL), so that the caller can say "out of range".
 */
#include "util/util.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* -1 with errno: EINVAL for a malformed value, ERANGE for one too large. */
static int malformed(void)
{
	errno = EINVAL;
	return -1;
}

static int too_large(void)
{
	errno = ERANGE;
	return -1;
}

int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || !isdigit((unsigned char)*s))
		return malformed();
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		return malformed();
	if (errno == ERANGE)
		return too_large();
	if (errno)
		return malformed();
	*out = v;
	return 0;
}

int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		return malformed();
	errno = 0;
	v = strtod(s, &end);
	if (*end || end == s)
		return malformed();
	if (errno == ERANGE || isinf(v))
		return too_large();
	if (errno || !isfinite(v))
		return malformed();
	*out = v;
	return 0;
}

/* The components of a release number; -1 when it is not one. */
static int version_parts(const char *s, uint64_t part[4])
{
	size_t n = 0;

	memset(part, 0, 4 * sizeof(*part));
	if (!s || !*s)
		return -1;
	for (;;) {
		uint64_t v = 0;
		size_t digits = 0;

		for (; *s >= '0' && *s <= '9'; s++, digits++) {
			if (digits >= 9)
				return -1;
			v = v * 10 + (uint64_t)(*s - '0');
		}
		if (!digits || n == 4)
			return -1;
		part[n++] = v;
		if (!*s)
			return 0;
		if (*s++ != '.')
			return -1;
	}
}

int version_cmp(const char *a, const char *b, int *cmp)
{
	uint64_t pa[4], pb[4];
	size_t i;

	if (version_parts(a, pa) || version_parts(b, pb))
		return -1;
	*cmp = 0;
	for (i = 0; i < 4 && !*cmp; i++)
		*cmp = pa[i] < pb[i] ? -1 : pa[i] > pb[i];
	return 0;
}

/*
 * Split "12.5ms" into a non-negative decimal and its suffix. Only plain
 * decimals: digits with at most one point (strtod's hexadecimal "0x10",
 * exponents, "inf" are not numbers people mean to type here).
 */
static int split_number(const char *s, double *num, const char **suffix)
{
	char buf[64];
	size_t n = 0, digits = 0;
	bool point = false;

	if (!s)
		return malformed();
	for (; isdigit((unsigned char)s[n]) || (s[n] == '.' && !point); n++) {
		if (s[n] == '.')
			point = true;
		else
			digits++;
	}
	if (!digits)
		return malformed();
	if (n >= sizeof(buf))
		return too_large();
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	*num = strtod(buf, NULL);
	if (errno == ERANGE || !isfinite(*num))
		return too_large();
	*suffix = s + n;
	return 0;
}

int parse_duration_ns(const char *s, uint64_t *out_ns)
{
	static const struct {
		const char *suffix;
		double ns;
	} units[] = {
		{ "", 1e9 }, { "s", 1e9 },  { "sec", 1e9 },  { "ms", 1e6 },   { "us", 1e3 },
		{ "ns", 1 }, { "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 },
	};
	const char *suffix;
	double num, ns;
	size_t i;

	if (split_number(s, &num, &suffix))
		return -1;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(suffix, units[i].suffix))
			continue;
		ns = num * units[i].ns;
		if (ns > 1e18)
			return too_large();
		*out_ns = (uint64_t)llround(ns);
		return 0;
	}
	return malformed();
}

int parse_size(const char *s, uint64_t *out_bytes)
{
	static const struct {
		const char *suffix;
		double mult;
	} units[] = {
		{ "", 1 },
		{ "b", 1 },
		{ "k", 1024.0 },
		{ "kb", 1024.0 },
		{ "kib", 1024.0 },
		{ "m", 1024.0 * 1024 },
		{ "mb", 1024.0 * 1024 },
		{ "mib", 1024.0 * 1024 },
		{ "g", 1024.0 * 1024 * 1024 },
		{ "gb", 1024.0 * 1024 * 1024 },
		{ "gib", 1024.0 * 1024 * 1024 },
	};
	const char *suffix;
	double num, v;
	size_t i;

	if (split_number(s, &num, &suffix))
		return -1;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcasecmp(suffix, units[i].suffix))
			continue;
		v = num * units[i].mult;
		if (v > 1e18)
			return too_large();
		if (v != floor(v))
			return malformed();
		*out_bytes = (uint64_t)v;
		return 0;
	}
	return malformed();
}

int parse_cpulist(const char *s, uint8_t *bitmap, size_t max_cpus)
{
	const char *p = s;
	int count = 0;

	if (!s || !*s)
		return -1;
	memset(bitmap, 0, (max_cpus + 7) / 8);
	while (*p) {
		char *end;
		unsigned long lo, hi, c;

		if (!isdigit((unsigned char)*p))
			return -1;
		lo = strtoul(p, &end, 10);
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -1;
			hi = strtoul(p, &end, 10);
			p = end;
		}
		if (hi < lo || hi >= max_cpus)
			return -1;
		for (c = lo; c <= hi; c++) {
			if (!(bitmap[c / 8] & (1u << (c % 8))))
				count++;
			bitmap[c / 8] |= (uint8_t)(1u << (c % 8));
		}
		if (*p == ',')
			p++;
		else if (*p == '\n' && !p[1])
			break;
		else if (*p)
			return -1;
	}
	return count;
}

/* ns / unit as a plain decimal (no exponent, trailing zeros trimmed), then the suffix. */
static void format_fixed(uint64_t ns, uint64_t unit, int digits, const char *suffix, char *buf,
			 size_t len)
{
	char frac[16];
	int n;

	snprintf(frac, sizeof(frac), "%0*llu", digits, (unsigned long long)(ns % unit));
	for (n = digits; n > 0 && frac[n - 1] == '0'; n--)
		;
	frac[n] = '\0';
	snprintf(buf, len, "%llu%s%s%s", (unsigned long long)(ns / unit), n ? "." : "", frac,
		 suffix);
}

void format_duration(uint64_t ns, char *buf, size_t len)
{
	/* exact and decimal, so that what help and list print reads back as it was */
	if (ns == 0)
		snprintf(buf, len, "0");
	else if (ns % 3600000000000ULL == 0)
		snprintf(buf, len, "%lluh", (unsigned long long)(ns / 3600000000000ULL));
	else if (ns % 60000000000ULL == 0)
		snprintf(buf, len, "%llum", (unsigned long long)(ns / 60000000000ULL));
	else if (ns >= 1000000000ULL)
		format_fixed(ns, 1000000000ULL, 9, "s", buf, len);
	else if (ns >= 1000000ULL)
		format_fixed(ns, 1000000ULL, 6, "ms", buf, len);
	else if (ns >= 1000ULL)
		format_fixed(ns, 1000ULL, 3, "us", buf, len);
	else
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
}

void format_size(uint64_t bytes, char *buf, size_t len)
{
	if (bytes && bytes % (1024ULL * 1024 * 1024) == 0)
		snprintf(buf, len, "%lluG", (unsigned long long)(bytes >> 30));
	else if (bytes && bytes % (1024ULL * 1024) == 0)
		snprintf(buf, len, "%lluM", (unsigned long long)(bytes >> 20));
	else if (bytes && bytes % 1024ULL == 0)
		snprintf(buf, len, "%lluk", (unsigned long long)(bytes >> 10));
	else
		snprintf(buf, len, "%llu", (unsigned long long)bytes);
}

char *rtrim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* What a stop signal is called: "SIGINT", "SIGRTMIN+1", "signal 99". */
const char *signal_name(int sig)
{
	static char names[NSIG][24];
	const char *abbrev;

	if (sig <= 0 || sig >= NSIG)
		return "a signal";
	if (names[sig][0])
		return names[sig];
	abbrev = sigabbrev_np(sig);
	if (sig == SIGRTMIN)
		snprintf(names[sig], sizeof(names[sig]), "SIGRTMIN");
	else if (sig == SIGRTMAX)
		snprintf(names[sig], sizeof(names[sig]), "SIGRTMAX");
	else if (sig > SIGRTMIN && sig < SIGRTMAX)
		snprintf(names[sig], sizeof(names[sig]), "SIGRTMIN+%d", sig - SIGRTMIN);
	else if (abbrev)
		snprintf(names[sig], sizeof(names[sig]), "SIG%s", abbrev);
	else
		snprintf(names[sig], sizeof(names[sig]), "signal %d", sig);
	return names[sig];
}
