/*
 * posted.c: other tools' output as people post it, read into experiments of
 * kind "external" (posted.h; doc/import.md has the formats and mappings).
 *
 * A paste is read line by line after three normalisations that mail and
 * terminals add: CR before LF, "> " quoting at any depth, and stress-ng's
 * log prefix ("stress-ng: metrc: [PID] "). Each format is recognised by
 * its own structure (stress-ng's two-line table header, perf's "# Running
 * 'sched/pipe' benchmark:" banner, hackbench's "Running in process mode
 * with" line, schbench's "Wakeup Latencies percentiles" block, a YAML
 * document with stress-ng's system-info and metrics, parsed by libyaml),
 * and every other line is ignored, except a shell line invoking the tool
 * ("$ stress-ng --pipe 4 --timeout 20s"), whose arguments become the
 * parameters of the runs that follow it, and a tool's version line.
 *
 * Each run becomes one sample; runs of the same tool, version, arguments,
 * host and kernel are one experiment. The experiments are written as
 * wakebench's own export document, which import.c merges like any other
 * (one set of checks, limits and one transaction). Their UUIDs are digests
 * of the text they came from, so importing the same paste twice adds
 * nothing the second time. Anything that does not parse is refused whole
 * with the line number and what was expected there.
 */
#include "engine/posted.h"
#include "core/env.h"
#include "core/metrics.h"
#include "util/digest.h"
#include "util/json.h"
#include "util/util.h"
#include "workloads/workload.h"

#include <ctype.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

enum fmt {
	F_NONE,
	F_SNG_BRIEF,
	F_SNG_YAML,
	F_PERF_PIPE,
	F_PERF_MSG,
	F_HACKBENCH,
	F_SCHBENCH,
	F_SCHBENCH_JSON,
	F_COUNT
};

struct posted;
/*
 * A format's reader: its runs from line i on, into p; the index of the first
 * line after them, or -1 after saying why.
 */
typedef long reader_fn(struct posted *p, size_t i);
static reader_fn sng_table, sng_yaml, perf_pipe, perf_msg, hackbench, schbench;

static const struct fmt_info {
	const char *name, *tool, *workload;
	reader_fn *read;
} fmts[F_COUNT] = {
	[F_SNG_BRIEF] = { "stress-ng-metrics-brief", "stress-ng", "pipe", sng_table },
	[F_SNG_YAML] = { "stress-ng-yaml", "stress-ng", "pipe", sng_yaml },
	[F_PERF_PIPE] = { "perf-bench-sched-pipe", "perf", "pingpong", perf_pipe },
	[F_PERF_MSG] = { "perf-bench-sched-messaging", "perf", "messaging", perf_msg },
	[F_HACKBENCH] = { "hackbench", "hackbench", "messaging", hackbench },
	[F_SCHBENCH] = { "schbench", "schbench", "schbench", schbench },
	[F_SCHBENCH_JSON] = { "schbench-json", "schbench", "schbench", schbench },
};

/* One line of the paste, normalised (see the top), with its number in the file. */
struct line {
	char *t;
	unsigned no;
};

/* One posted run: one sample of one experiment. */
struct run {
	enum fmt fmt;
	unsigned first, last; /* its lines */
	char *cmdline;	      /* the shell line's command, or NULL */
	char *version;	      /* the tool's release from the text, or NULL */
	json_object *over;    /* parameters: option long name -> value */
	json_object *env;     /* env key -> text */
	json_object *cols;    /* sample columns: ops, real_s ... */
	json_object *mets;    /* sample metrics: name -> number */
	long long started_ns; /* 0: the text does not say */
	size_t group;	      /* its experiment */
};

static void put_str(json_object *o, const char *key, const char *val);

/* What a shell line or a version line said, for the runs after it. */
struct pending {
	char *cmdline[F_COUNT];
	char *version[F_COUNT];
	/* stress-ng's version line also gives uname(2) of where it ran */
	char *arch, *release;
};

struct posted {
	const char *name;
	const struct posted_opts *o;
	char *buf;
	struct line *lines;
	size_t n;
	struct run *runs;
	size_t nruns, alloc;
	struct pending pend;
	/* stress-ng's info lines before a table */
	unsigned hogs, hogs_line;
	uint64_t run_ns;
	size_t floor; /* lines before it belong to runs read already */
};

static int bad(struct posted *p, unsigned no, const char *fmt, ...) PRINTF_LIKE(3, 4);
static int bad(struct posted *p, unsigned no, const char *fmt, ...)
{
	va_list ap;
	char *what;

	va_start(ap, fmt);
	what = xvasprintf(fmt, ap);
	va_end(ap);
	error("import: '%s' line %u: %s; nothing imported from it", p->name, no, what);
	free(what);
	return -1;
}

/* ---- lines ---- */

/* Past "> " quoting at any depth (">> ", "> > "). */
static char *unquote(char *s)
{
	for (;;) {
		char *q = s;

		while (*q == ' ' || *q == '\t')
			q++;
		if (*q != '>')
			return s;
		s = q + 1;
		if (*s == ' ')
			s++;
	}
}

/* Past stress-ng's log prefix "NAME: TAG: [PID] " (TAG info, metrc, warn ...). */
static char *unprefix(char *s)
{
	char *q = s;

	while (*q && (isalnum((unsigned char)*q) || strchr("-_.", *q)))
		q++;
	if (q == s || q[0] != ':' || q[1] != ' ')
		return s;
	q += 2;
	while (isalpha((unsigned char)*q))
		q++;
	if (*q++ != ':')
		return s;
	while (*q == ' ')
		q++;
	if (*q++ != '[' || !isdigit((unsigned char)*q))
		return s;
	while (isdigit((unsigned char)*q))
		q++;
	if (*q++ != ']')
		return s;
	return *q == ' ' ? q + 1 : q;
}

/* Split buf (NUL-terminated, ours) into normalised lines. */
static void split_lines(struct posted *p)
{
	size_t alloc = 64;
	char *s = p->buf;
	unsigned no = 0;

	p->lines = xmalloc(alloc * sizeof(*p->lines));
	while (*s) {
		char *nl = strchr(s, '\n'), *end;

		if (nl)
			*nl = '\0';
		end = s + strlen(s);
		while (end > s && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (p->n == alloc) {
			alloc *= 2;
			p->lines = xrealloc(p->lines, alloc * sizeof(*p->lines));
		}
		p->lines[p->n].t = unprefix(unquote(s));
		p->lines[p->n++].no = ++no;
		if (!nl)
			break;
		s = nl + 1;
	}
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* The format whose first line this is, F_NONE if none. */
static enum fmt line_format(const char *t)
{
	const char *s = skip_ws(t);

	if (starts(t, "stressor ") && strstr(t, "bogo ops") && strstr(t, "real time"))
		return F_SNG_BRIEF;
	if (starts(s, "stress-ng-version:"))
		return F_SNG_YAML;
	if (starts(t, "# Running 'sched/pipe' benchmark"))
		return F_PERF_PIPE;
	if (starts(t, "# Running 'sched/messaging' benchmark"))
		return F_PERF_MSG;
	if (starts(t, "Running in process mode with ") ||
	    starts(t, "Running in threaded mode with "))
		return F_HACKBENCH;
	if (starts(t, "Wakeup Latencies percentiles (usec)"))
		return F_SCHBENCH;
	return F_NONE;
}

/* schbench --json's file: {"normal": {...}, "int": {...}} */
static bool is_schbench_json(const char *s, size_t n)
{
	const char *end = s + n;

	while (s < end && isspace((unsigned char)*s))
		s++;
	if (s == end || *s++ != '{')
		return false;
	while (s < end && isspace((unsigned char)*s))
		s++;
	return (size_t)(end - s) >= 8 && !memcmp(s, "\"normal\"", 8);
}

bool posted_detect(const char *head, size_t n)
{
	struct posted p = { .name = "" };
	bool found = false;
	size_t i;

	if (!n || memchr(head, '\0', n))
		return false;
	if (is_schbench_json(head, n))
		return true;
	p.buf = xmalloc(n + 1);
	memcpy(p.buf, head, n);
	p.buf[n] = '\0';
	split_lines(&p);
	/* lava-run's YAML log: "- {dt: ..." lines; never a posted paste */
	for (i = 0; i < p.n && !found; i++) {
		if (starts(p.lines[i].t, "- {") || starts(p.lines[i].t, "{\"dt\""))
			break;
		found = line_format(p.lines[i].t) != F_NONE;
	}
	free(p.lines);
	free(p.buf);
	return found;
}

/* ---- numbers ---- */

/* A whole token as a finite number: 0, or -1. */
static int num(const char *s, size_t len, double *v)
{
	char buf[64];

	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return parse_double(buf, v) || !isfinite(*v) ? -1 : 0;
}

/* A whole token as an unsigned integer. */
static int unum(const char *s, size_t len, uint64_t *v)
{
	char buf[32];

	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return parse_u64(buf, v);
}

/* Split t into at most max words (in place in a copy: *words point into *copy). */
static size_t words(const char *t, char **copy, const char **w, size_t max)
{
	size_t n = 0;
	char *s;

	*copy = s = xstrdup(t);
	while (n < max) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		w[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = '\0';
	}
	return n;
}

/* ---- runs ---- */

static struct run *run_new(struct posted *p, enum fmt f, unsigned first)
{
	struct run *r;

	if (p->nruns == p->alloc) {
		p->alloc = p->alloc ? 2 * p->alloc : 8;
		p->runs = xrealloc(p->runs, p->alloc * sizeof(*p->runs));
	}
	r = &p->runs[p->nruns++];
	memset(r, 0, sizeof(*r));
	r->fmt = f;
	r->first = r->last = first;
	r->over = json_object_new_object();
	r->env = json_object_new_object();
	r->cols = json_object_new_object();
	r->mets = json_object_new_object();
	if (p->pend.cmdline[f])
		r->cmdline = xstrdup(p->pend.cmdline[f]);
	if (p->pend.version[f])
		r->version = xstrdup(p->pend.version[f]);
	if (p->pend.release && (f == F_SNG_BRIEF || f == F_SNG_YAML)) {
		put_str(r->env, "kernel.release", p->pend.release);
		put_str(r->env, "kernel.arch", p->pend.arch);
	}
	return r;
}

static void run_release(struct run *r)
{
	free(r->cmdline);
	free(r->version);
	json_object_put(r->over);
	json_object_put(r->env);
	json_object_put(r->cols);
	json_object_put(r->mets);
}

static void put_num(json_object *o, const char *key, double v)
{
	json_object_object_add(o, key, json_double(v));
}

static void put_u64(json_object *o, const char *key, uint64_t v)
{
	json_object_object_add(o, key, json_object_new_uint64(v));
}

static void put_str(json_object *o, const char *key, const char *v)
{
	json_object_object_add(o, key, json_object_new_string(v));
}

/* ---- shell lines: the tool's arguments as wakebench parameters ---- */

/* An option's value: "--pipe 4", "--pipe=4", "-t20" (short) ; NULL when w[*i] is not opt. */
static const char *opt_value(const char **w, size_t n, size_t *i, const char *shrt, const char *lng)
{
	const char *a = w[*i];
	size_t ll = lng ? strlen(lng) : 0;

	if ((shrt && !strcmp(a, shrt)) || (lng && !strcmp(a, lng)))
		return *i + 1 < n ? w[++*i] : NULL;
	if (lng && !strncmp(a, lng, ll) && a[ll] == '=')
		return a + ll + 1;
	if (shrt && shrt[1] && !shrt[2] && !strncmp(a, shrt, 2) && a[2] && a[0] == '-' &&
	    a[1] != '-')
		return a + 2;
	return NULL;
}

static bool is_flag(const char *a, const char *shrt, const char *lng)
{
	return (shrt && !strcmp(a, shrt)) || (lng && !strcmp(a, lng));
}

struct argmap {
	const char *shrt, *lng; /* the tool's option */
	const char *param;	/* wakebench's option long name, or instances/duration */
	char kind; /* 'u' count, 'd' duration (bare = s), 'z' size, 'm' usec, 'f' flag */
};

static const struct argmap sng_args[] = {
	{ NULL, "--pipe", "instances", 'u' },
	{ "-t", "--timeout", "duration", 'd' },
	{ NULL, "--pipe-data-size", "data-size", 'z' },
	{ NULL, "--pipe-size", "pipe-size", 'z' },
	{ NULL, NULL, NULL, 0 },
};
static const struct argmap perf_pipe_args[] = {
	{ "-T", "--threaded", "threads", 'f' },
	{ NULL, NULL, NULL, 0 },
};
static const struct argmap perf_msg_args[] = {
	{ "-g", "--group", "groups", 'u' },
	{ "-l", "--nr_loops", "loops", 'u' },
	{ "-t", "--thread", "threads", 'f' },
	{ "-p", "--pipe", "pipe", 'f' },
	{ NULL, NULL, NULL, 0 },
};
static const struct argmap hackbench_args[] = {
	{ "-g", "--groups", "groups", 'u' },	 { "-f", "--fds", "fds", 'u' },
	{ "-l", "--loops", "loops", 'u' },	 { "-s", "--datasize", "datasize", 'z' },
	{ "-p", "--pipe", "pipe", 'f' },	 { "-T", "--threads", "threads", 'f' },
	{ "-P", "--process", "processes", 'f' }, { NULL, NULL, NULL, 0 },
};
static const struct argmap schbench_args[] = {
	{ "-m", "--message-threads", "message-threads", 'u' },
	{ "-t", "--threads", "workers", 'u' },
	{ "-r", "--runtime", "duration", 'd' },
	{ "-F", "--cache_footprint", "cache-footprint", 'k' },
	{ "-n", "--operations", "operations", 'u' },
	{ "-s", "--sleep_usec", "sleep", 'm' },
	{ "-L", "--no-locking", "no-locking", 'f' },
	{ NULL, "--split", "split", 'u' },
	{ NULL, NULL, NULL, 0 },
};

/* One argument's value into over; -1 when it is not what the option takes. */
static int arg_value(json_object *over, const struct argmap *m, const char *v)
{
	uint64_t u;

	switch (m->kind) {
	case 'u':
		if (parse_u64(v, &u))
			return -1;
		break;
	case 'd':
		if (parse_duration_ns(v, &u))
			return -1;
		break;
	case 'z':
		if (parse_size(v, &u))
			return -1;
		break;
	case 'k': /* KiB */
		if (parse_u64(v, &u) || u > UINT64_MAX / 1024)
			return -1;
		u *= 1024;
		break;
	default: /* 'm': microseconds */
		if (parse_u64(v, &u) || u > UINT64_MAX / 1000)
			return -1;
		u *= 1000;
		break;
	}
	/* stress-ng --pipe 0: one per online CPU; the text's "dispatching hogs" says how many */
	if (!(u == 0 && !strcmp(m->param, "instances")))
		put_u64(over, m->param, u);
	return 0;
}

/* The posted arguments w[0..n) as parameters; -1 after one line. */
static int args_params(struct posted *p, unsigned no, const struct argmap *map, const char **w,
		       size_t n, json_object *over)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct argmap *m;
		const char *v;

		for (m = map; m->param; m++) {
			size_t at = i;

			if (m->kind == 'f') {
				if (is_flag(w[i], m->shrt, m->lng)) {
					json_object_object_add(over, m->param,
							       json_object_new_boolean(1));
					break;
				}
				continue;
			}
			if (!(v = opt_value(w, n, &at, m->shrt, m->lng)))
				continue;
			if (arg_value(over, m, v))
				return bad(p, no, "%s '%s' is not a valid value for it", w[i], v);
			i = at;
			break;
		}
	}
	return 0;
}

/* The tool a word invokes ("/usr/bin/stress-ng", "./schbench"), F_NONE if none. */
static enum fmt word_tool(const char *w, const char **rest, size_t nrest)
{
	const char *b = strrchr(w, '/');

	b = b ? b + 1 : w;
	if (!strcmp(b, "stress-ng"))
		return F_SNG_BRIEF;
	if (!strcmp(b, "hackbench"))
		return F_HACKBENCH;
	if (!strcmp(b, "schbench"))
		return F_SCHBENCH;
	if (!strcmp(b, "perf") && nrest >= 3 && !strcmp(rest[0], "bench") &&
	    !strcmp(rest[1], "sched"))
		return !strcmp(rest[2], "pipe")	       ? F_PERF_PIPE
		       : !strcmp(rest[2], "messaging") ? F_PERF_MSG
						       : F_NONE;
	return F_NONE;
}

static void pend_set(char **slot, const char *v)
{
	free(*slot);
	*slot = v ? xstrdup(v) : NULL;
}

/*
 * A shell line ("$ stress-ng --pipe 4 ...", "root@pi:~# sudo perf bench
 * sched pipe", or the bare command): remembered for the runs after it.
 * 1 when it was one, 0 when not, -1 after one line.
 */
static int shell_line(struct posted *p, const struct line *l)
{
	const char *w[128];
	char *copy, *cmd;
	size_t n = words(l->t, &copy, w, ARRAY_SIZE(w)), k = 0;
	enum fmt f;

	if (n && strchr("$#%", w[0][strlen(w[0]) - 1]))
		k++; /* a prompt */
	if (k < n && !strcmp(w[k], "sudo"))
		k++;
	if (k >= n || (f = word_tool(w[k], w + k + 1, n - k - 1)) == F_NONE) {
		free(copy);
		return 0;
	}
	cmd = strstr(l->t, w[k]); /* the command as posted, from the tool's name on */
	for (size_t i = k + 1; i < n; i++)
		if (!strcmp(w[i], "--version") || !strcmp(w[i], "-V") || !strcmp(w[i], "--help") ||
		    !strcmp(w[i], "-h")) {
			free(copy);
			return 1; /* not a run */
		}
	if (f == F_SNG_BRIEF) {
		pend_set(&p->pend.cmdline[F_SNG_BRIEF], cmd);
		pend_set(&p->pend.cmdline[F_SNG_YAML], cmd);
	} else if (f == F_SCHBENCH) {
		pend_set(&p->pend.cmdline[F_SCHBENCH], cmd);
		pend_set(&p->pend.cmdline[F_SCHBENCH_JSON], cmd);
	} else {
		pend_set(&p->pend.cmdline[f], cmd);
	}
	free(copy);
	return 1;
}

/* The parameters a run's command line gives; -1 after one line. */
static int run_args(struct posted *p, struct run *r)
{
	static const struct argmap *const maps[F_COUNT] = {
		[F_SNG_BRIEF] = sng_args,	   [F_SNG_YAML] = sng_args,
		[F_PERF_PIPE] = perf_pipe_args,	   [F_PERF_MSG] = perf_msg_args,
		[F_HACKBENCH] = hackbench_args,	   [F_SCHBENCH] = schbench_args,
		[F_SCHBENCH_JSON] = schbench_args,
	};
	const char *w[128];
	char *copy;
	size_t n, skip;
	int ret;

	if (!r->cmdline)
		return 0;
	n = words(r->cmdline, &copy, w, ARRAY_SIZE(w));
	skip = r->fmt == F_PERF_PIPE || r->fmt == F_PERF_MSG ? 4 : 1;
	ret = args_params(p, r->first, maps[r->fmt], w + skip, n > skip ? n - skip : 0, r->over);
	if (!ret && n > skip) {
		const char *args = strstr(r->cmdline, w[skip]);

		put_str(r->env, "external.args", args);
	}
	free(copy);
	return ret;
}

/*
 * stress-ng's version line ends in its uname(2) at run time, "(COMPILER,
 * MACHINE SYSNAME RELEASE)": the kernel and architecture it ran on.
 */
static void sng_uname(struct posted *p, const char *t)
{
	const char *open = strchr(t, '('), *close = open ? strchr(open, ')') : NULL, *u;
	char arch[64], sys[16], rel[128], *text;

	if (!close)
		return;
	text = xasprintf("%.*s", (int)(close - open - 1), open + 1);
	u = strrchr(text, ',');
	if (u && sscanf(u + 1, " %63s %15s %127s", arch, sys, rel) == 3 && !strcmp(sys, "Linux")) {
		pend_set(&p->pend.arch, arch);
		pend_set(&p->pend.release, rel);
	}
	free(text);
}

/* A version line: "stress-ng, version 0.15.06 (gcc ...)", "perf version 6.1.76". */
static void version_line(struct posted *p, const char *t)
{
	char v[32];

	if (sscanf(t, "stress-ng, version %31[0-9.]", v) == 1) {
		pend_set(&p->pend.version[F_SNG_BRIEF], v);
		pend_set(&p->pend.version[F_SNG_YAML], v);
		sng_uname(p, t);
	} else if (sscanf(t, "perf version %31[0-9.]", v) == 1) {
		pend_set(&p->pend.version[F_PERF_PIPE], v);
		pend_set(&p->pend.version[F_PERF_MSG], v);
	}
}

/* ---- stress-ng --metrics-brief ---- */

/* "setting to a 20 second run per stressor", "... a 1 sec run", "a 1 min, 30 secs run" */
static void sng_info_line(struct posted *p, const struct line *l)
{
	const char *s = l->t;
	unsigned n, line = l->no;
	char unit[16], what[16];

	if ((starts(s, "setting to a ") || starts(s, "defaulting to a ")) &&
	    sscanf(strstr(s, " a ") + 3, "%u %15[a-z]", &n, unit) == 2) {
		uint64_t mul = starts(unit, "sec")    ? 1000000000ull
			       : starts(unit, "min")  ? 60000000000ull
			       : starts(unit, "hour") ? 3600000000000ull
						      : 0;

		/* "1 min, 30 secs": exact only in seconds; others are left to the command */
		if (mul && !strchr(s, ','))
			p->run_ns = n * mul;
	} else if (sscanf(s, "dispatching hogs: %u %15s", &n, what) == 2 && !strcmp(what, "pipe")) {
		p->hogs = n;
		p->hogs_line = line;
	}
}

/* One row of the table: "pipe 3648118 2.00 0.80 3.12 1823259.81 931578.68". */
static int sng_row(struct posted *p, const struct line *l, struct run *r)
{
	static const char *const cols[] = { "ops",   "real_s",	  "usr_s",
					    "sys_s", "ops_per_s", "ops_per_cpu_s" };
	static const char *const heads[] = { "bogo ops",
					     "real time",
					     "usr time",
					     "sys time",
					     "bogo ops/s (real time)",
					     "bogo ops/s (usr+sys time)" };
	const char *w[16];
	char *copy;
	size_t n = words(l->t, &copy, w, ARRAY_SIZE(w)), i;
	int ret = 0;

	if (n != 7 && n != 9) {
		ret = bad(p, l->no,
			  "expected a row of 7 columns (stressor, bogo ops, real time, usr time, "
			  "sys time, bogo ops/s real and usr+sys) or 9 (--metrics), found %zu",
			  n);
		goto out;
	}
	if (strcmp(w[0], "pipe")) {
		ret = bad(p, l->no,
			  "stressor '%s': wakebench reproduces stress-ng's pipe stressor only",
			  w[0]);
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(cols); i++) {
		double v;
		uint64_t u;

		if (i == 0 ? unum(w[1], strlen(w[1]), &u) : num(w[i + 1], strlen(w[i + 1]), &v)) {
			ret = bad(p, l->no, "'%s' in column '%s' is not a number", w[i + 1],
				  heads[i]);
			goto out;
		}
		if (i == 0)
			put_u64(r->cols, cols[i], u);
		else
			put_num(r->cols, cols[i], v);
	}
out:
	free(copy);
	return ret;
}

/* The table whose header is line i: its run; the next line to read, or -1. */
static long sng_table(struct posted *p, size_t i)
{
	struct run *r;
	double mb;
	size_t j;

	if (i + 1 >= p->n || !strstr(p->lines[i + 1].t, "(secs)"))
		return bad(p, i + 1 < p->n ? p->lines[i + 1].no : p->lines[i].no,
			   "expected the table header's second line \"(secs) (secs) (secs) (real "
			   "time) (usr+sys time)\"");
	if (i + 2 >= p->n || !*p->lines[i + 2].t)
		return bad(p, p->lines[i + 1].no + (i + 2 < p->n),
			   "the table ends after its header: expected the 'pipe' row");
	r = run_new(p, F_SNG_BRIEF, p->lines[i].no);
	if (sng_row(p, &p->lines[i + 2], r))
		return -1;
	r->last = p->lines[i + 2].no;
	if (p->hogs)
		put_u64(r->over, "instances", p->hogs);
	if (p->run_ns)
		put_u64(r->over, "duration", p->run_ns);
	p->hogs = 0;
	p->run_ns = 0;
	for (j = i + 3; j < p->n; j++) {
		const char *t = p->lines[j].t;

		if (line_format(t) != F_NONE)
			break;
		if (sscanf(t, "pipe %lf MB per sec pipe write rate", &mb) == 1)
			put_num(r->mets, "mb_per_s_geomean", mb);
		else if (strstr(t, " run completed in ")) {
			r->last = p->lines[j].no;
			j++;
			break;
		} else if (!starts(t, "miscellaneous metrics:") && !starts(t, "pipe "))
			break;
		r->last = p->lines[j].no;
	}
	return (long)j;
}

/* ---- stress-ng --yaml ---- */

static const char *yscalar(yaml_document_t *d, yaml_node_t *n)
{
	(void)d;
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* The value of key in a mapping node, or NULL. */
static yaml_node_t *ymember(yaml_document_t *d, yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *pr;

	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top; pr++) {
		const char *k = yscalar(d, yaml_document_get_node(d, pr->key));

		if (k && !strcmp(k, key))
			return yaml_document_get_node(d, pr->value);
	}
	return NULL;
}

/* system-info's keys onto wakebench's own, where one exists */
static void yaml_sysinfo(yaml_document_t *d, yaml_node_t *si, struct run *r)
{
	static const struct {
		const char *yaml, *env;
	} keys[] = {
		{ "release", "kernel.release" },     { "version", "kernel.version" },
		{ "machine", "kernel.arch" },	     { "hostname", "host.name" },
		{ "cpus", "external.cpus" },	     { "cpus-online", "external.cpus_online" },
		{ "compiler", "external.compiler" }, { "libc", "external.libc" },
		{ "run-by", "external.run_by" },
	};
	const char *v;
	uint64_t u;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if ((v = yscalar(d, ymember(d, si, keys[i].yaml))))
			put_str(r->env, keys[i].env, v);
	if ((v = yscalar(d, ymember(d, si, "pagesize"))) && !parse_u64(v, &u) && u >= 1024) {
		char buf[64];

		snprintf(buf, sizeof(buf), "%llu KiB", (unsigned long long)(u / 1024));
		put_str(r->env, "mem.page_size", buf);
	}
	if ((v = yscalar(d, ymember(d, si, "stress-ng-version"))))
		r->version = xstrdup(v);
	if ((v = yscalar(d, ymember(d, si, "epoch-secs"))) && !parse_u64(v, &u) &&
	    u < 9000000000ull)
		r->started_ns = (long long)(u * 1000000000ull);
}

/*
 * The instances of a run, from stress-ng's own figures when it did not
 * list them: cpu-usage-per-instance is 100 (usr + sys) / real / instances.
 */
static void yaml_instances(yaml_document_t *d, yaml_node_t *m, struct run *r)
{
	yaml_node_t *inst = ymember(d, m, "instances");
	double usr, sys, real, use, k;
	const char *a, *b, *c, *e;

	if (inst && inst->type == YAML_SEQUENCE_NODE) {
		put_u64(r->over, "instances",
			(uint64_t)(inst->data.sequence.items.top -
				   inst->data.sequence.items.start));
		return;
	}
	a = yscalar(d, ymember(d, m, "user-time"));
	b = yscalar(d, ymember(d, m, "system-time"));
	c = yscalar(d, ymember(d, m, "wall-clock-time"));
	e = yscalar(d, ymember(d, m, "cpu-usage-per-instance"));
	if (!a || !b || !c || !e || parse_double(a, &usr) || parse_double(b, &sys) ||
	    parse_double(c, &real) || parse_double(e, &use) || real <= 0 || use <= 0)
		return;
	k = 100 * (usr + sys) / real / use;
	if (k >= 0.98 && fabs(k - round(k)) < 0.02) {
		put_u64(r->over, "instances", (uint64_t)round(k));
		put_str(r->env, "external.instances", "from cpu-usage-per-instance");
	}
}

/* One metrics entry: its run. */
static int yaml_metrics(struct posted *p, unsigned line0, yaml_document_t *d, yaml_node_t *m,
			struct run *r)
{
	static const struct {
		const char *yaml, *col;
		bool required;
	} keys[] = {
		{ "bogo-ops", "ops", true },
		{ "bogo-ops-per-second-real-time", "ops_per_s", true },
		{ "bogo-ops-per-second-usr-sys-time", "ops_per_cpu_s", false },
		{ "wall-clock-time", "real_s", false },
		{ "user-time", "usr_s", false },
		{ "system-time", "sys_s", false },
		{ "mb-per-sec-pipe-write-rate", "mb_per_s_mean", false },
		{ "cpu-usage-per-instance", "cpu_usage_per_instance", false },
	};
	unsigned no = line0 + (unsigned)m->start_mark.line;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		yaml_node_t *n = ymember(d, m, keys[i].yaml);
		const char *v = yscalar(d, n);
		unsigned at = n ? line0 + (unsigned)n->start_mark.line : no;
		double x;
		uint64_t u;

		if (!n) {
			if (keys[i].required)
				return bad(p, no, "the pipe entry of 'metrics' has no '%s'",
					   keys[i].yaml);
			continue;
		}
		if (!v || (i == 0 ? parse_u64(v, &u) : parse_double(v, &x) || !isfinite(x)))
			return bad(p, at, "'%s' is %s%s%s, expected a number", keys[i].yaml,
				   v ? "'" : "not a scalar", v ? v : "", v ? "'" : "");
		if (i == 0)
			put_u64(r->cols, keys[i].col, u);
		else if (i < 6)
			put_num(r->cols, keys[i].col, x);
		else
			put_num(r->mets, keys[i].col, x);
	}
	yaml_instances(d, m, r);
	return 0;
}

/* One YAML document (lines first..): its pipe run. */
static int yaml_doc(struct posted *p, unsigned line0, yaml_document_t *d)
{
	yaml_node_t *root = yaml_document_get_root_node(d), *metrics, *si, *m;
	yaml_node_item_t *it;
	struct run *r;

	if (!root)
		return 1; /* the stream's end */
	if (root->type != YAML_MAPPING_NODE)
		return bad(p, line0 + (unsigned)root->start_mark.line,
			   "expected stress-ng's YAML (a mapping with system-info and metrics)");
	metrics = ymember(d, root, "metrics");
	si = ymember(d, root, "system-info");
	if (!metrics || metrics->type != YAML_SEQUENCE_NODE)
		return bad(p, line0 + (unsigned)root->end_mark.line,
			   "the YAML has no 'metrics' list (stress-ng writes it with --metrics or "
			   "--metrics-brief)");
	for (it = metrics->data.sequence.items.start; it < metrics->data.sequence.items.top; it++) {
		const char *name;

		m = yaml_document_get_node(d, *it);
		name = yscalar(d, ymember(d, m, "stressor"));
		if (!name || strcmp(name, "pipe"))
			return bad(p, line0 + (unsigned)m->start_mark.line,
				   "stressor '%s': wakebench reproduces stress-ng's pipe stressor "
				   "only",
				   name ? name : "?");
		r = run_new(p, F_SNG_YAML, line0 + (unsigned)root->start_mark.line);
		r->last = line0 + (unsigned)root->end_mark.line;
		free(r->version);
		r->version = NULL;
		yaml_sysinfo(d, si, r);
		if (!r->version && p->pend.version[F_SNG_YAML])
			r->version = xstrdup(p->pend.version[F_SNG_YAML]);
		if (yaml_metrics(p, line0, d, m, r))
			return -1;
	}
	return 0;
}

/*
 * Is t a line of stress-ng's YAML: indented, empty, "---", "...", or a
 * top-level section ("metrics:")? The first line that is not ends it (a
 * paste's text after a YAML without its "...").
 */
static bool yaml_line(const char *t)
{
	const char *s = t;

	if (!*t || *t == ' ' || !strcmp(t, "---") || !strcmp(t, "..."))
		return true;
	while (islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '-')
		s++;
	return s > t && *s == ':' && !s[1];
}

/* The YAML starting at line i (its "---", or stress-ng-version's mapping): next line or -1. */
static long sng_yaml(struct posted *p, size_t i)
{
	size_t start = i, end, len = 0, k;
	yaml_parser_t parser;
	char *text, *s;
	long ret;

	/* back to the document's start: its "---", or its first top-level key */
	while (start > p->floor) {
		const char *t = p->lines[start - 1].t;

		if (!strcmp(t, "---")) {
			start--;
			break;
		}
		if (t[0] != ' ' && *t && !starts(t, "system-info:") && !starts(t, "build-info:"))
			break;
		start--;
	}
	while (start < i && !*p->lines[start].t)
		start++;
	for (end = i; end < p->n && yaml_line(p->lines[end].t); end++)
		if (!strcmp(p->lines[end].t, "...")) {
			end++;
			break;
		}
	for (k = start; k < end; k++)
		len += strlen(p->lines[k].t) + 1;
	s = text = xmalloc(len + 1);
	for (k = start; k < end; k++)
		s += sprintf(s, "%s\n", p->lines[k].t);
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	for (;;) {
		yaml_document_t d;
		int r;

		if (!yaml_parser_load(&parser, &d)) {
			ret = bad(p, p->lines[start].no + (unsigned)parser.problem_mark.line,
				  "not stress-ng's YAML: %s%s%s",
				  parser.problem ? parser.problem : "a YAML error",
				  parser.context ? " " : "", parser.context ? parser.context : "");
			break;
		}
		r = yaml_doc(p, p->lines[start].no, &d);
		yaml_document_delete(&d);
		if (r) {
			ret = r < 0 ? -1 : (long)end;
			break;
		}
	}
	yaml_parser_delete(&parser);
	free(text);
	return ret;
}

/* ---- perf bench sched pipe / messaging ---- */

/* "Total time: 5.123 [sec]" among lines i+1.. before the next format: its value. */
static int total_time(struct posted *p, size_t i, size_t *at, double *v)
{
	size_t j;

	for (j = i + 1; j < p->n && line_format(p->lines[j].t) == F_NONE; j++) {
		const char *s = skip_ws(p->lines[j].t);

		if (starts(s, "Total time:")) {
			const char *w[4];
			char *copy;
			size_t n = words(s + 11, &copy, w, 4);
			int r = n >= 1 && !num(w[0], strlen(w[0]), v) ? 0 : -1;

			free(copy);
			*at = j;
			if (r)
				return bad(p, p->lines[j].no,
					   "expected 'Total time: SECONDS [sec]'");
			return 0;
		}
	}
	return bad(p, p->lines[i].no, "perf bench's output ends before its 'Total time:' line");
}

static long perf_pipe(struct posted *p, size_t i)
{
	struct run *r = run_new(p, F_PERF_PIPE, p->lines[i].no);
	unsigned long long ops = 0;
	char who[16] = "";
	double t, us, rate;
	size_t at, j;

	if (i + 1 < p->n &&
	    sscanf(p->lines[i + 1].t, "# Executed %llu pipe operations between two %15s", &ops,
		   who) == 2)
		put_u64(r->cols, "ops", ops);
	else
		return bad(p, p->lines[i].no + 1,
			   "expected '# Executed N pipe operations between two processes'");
	if (!strcmp(who, "threads"))
		json_object_object_add(r->over, "threads", json_object_new_boolean(1));
	if (total_time(p, i, &at, &t))
		return -1;
	put_num(r->cols, "real_s", t);
	for (j = at + 1; j < p->n && j <= at + 4; j++) {
		const char *s = skip_ws(p->lines[j].t);

		if (sscanf(s, "%lf usecs/op", &us) == 1 && strstr(s, "usecs/op"))
			put_num(r->mets, "ns_per_op", us * 1000);
		else if (sscanf(s, "%lf ops/sec", &rate) == 1 && strstr(s, "ops/sec")) {
			put_num(r->cols, "ops_per_s", rate);
			r->last = p->lines[j].no;
			put_u64(r->over, "instances", 1);
			return (long)j + 1;
		}
	}
	return bad(p, p->lines[at].no + 1,
		   "expected 'N usecs/op' and 'N ops/sec' after perf bench's 'Total time:'");
}

static long perf_msg(struct posted *p, size_t i)
{
	struct run *r = run_new(p, F_PERF_MSG, p->lines[i].no);
	unsigned fds, groups, tasks;
	char who[16], who2[16];
	double t;
	size_t at;

	if (i + 2 >= p->n ||
	    sscanf(p->lines[i + 1].t, "# %u sender and receiver %15s per group", &fds, who) != 2)
		return bad(p, p->lines[i].no + 1,
			   "expected '# N sender and receiver processes per group'");
	if (sscanf(p->lines[i + 2].t, "# %u groups == %u %15s run", &groups, &tasks, who2) != 3)
		return bad(p, p->lines[i + 2].no, "expected '# N groups == N processes run'");
	put_u64(r->over, "groups", groups);
	put_u64(r->over, "fds", fds);
	if (!strcmp(who, "threads"))
		json_object_object_add(r->over, "threads", json_object_new_boolean(1));
	if (total_time(p, i, &at, &t))
		return -1;
	put_num(r->cols, "real_s", t);
	put_num(r->mets, "messaging_run_s", t);
	put_u64(r->over, "instances", 1);
	r->last = p->lines[at].no;
	return (long)at + 1;
}

/* ---- hackbench ---- */

static long hackbench(struct posted *p, size_t i)
{
	struct run *r = run_new(p, F_HACKBENCH, p->lines[i].no);
	unsigned groups, fds, tasks, loops, bytes;
	char mode[16];
	double t;
	size_t j;

	if (sscanf(p->lines[i].t,
		   "Running in %15s mode with %u groups using %u file descriptors each (== %u "
		   "tasks)",
		   mode, &groups, &fds, &tasks) != 4 ||
	    fds % 2)
		return bad(p, p->lines[i].no,
			   "expected 'Running in process mode with N groups using 2N file "
			   "descriptors each (== N tasks)'");
	if (i + 1 >= p->n ||
	    sscanf(p->lines[i + 1].t, "Each sender will pass %u messages of %u bytes", &loops,
		   &bytes) != 2)
		return bad(p, p->lines[i].no + 1,
			   "expected 'Each sender will pass N messages of N bytes'");
	put_u64(r->over, "groups", groups);
	put_u64(r->over, "fds", fds / 2);
	put_u64(r->over, "loops", loops);
	put_u64(r->over, "datasize", bytes);
	if (!strcmp(mode, "threaded"))
		json_object_object_add(r->over, "threads", json_object_new_boolean(1));
	put_u64(r->over, "instances", 1);
	/* messages: each sender writes loops to each receiver of its group */
	put_u64(r->cols, "ops", (uint64_t)groups * (fds / 2) * (fds / 2) * loops);
	for (j = i + 2; j < p->n && line_format(p->lines[j].t) == F_NONE; j++) {
		const char *s = p->lines[j].t;

		if (!starts(s, "Time: "))
			continue;
		if (num(s + 6, strlen(s + 6), &t))
			return bad(p, p->lines[j].no, "'%s' is not a number of seconds", s + 6);
		put_num(r->cols, "real_s", t);
		put_num(r->mets, "messaging_run_s", t);
		r->last = p->lines[j].no;
		return (long)j + 1;
	}
	return bad(p, p->lines[i].no, "hackbench's output ends before its 'Time:' line");
}

/* ---- schbench ---- */

/* "	* 99.0th: 5976       (48 samples)": the percentile's metric for block kind. */
static int sb_pct_line(struct posted *p, const struct line *l, const char *kind, struct run *r)
{
	const char *s = skip_ws(l->t);
	double pct, v;
	char name[64];
	int used;

	if (*s == '*')
		s = skip_ws(s + 1);
	if (sscanf(s, "%lfth: %lf%n", &pct, &v, &used) != 2)
		return bad(p, l->no, "expected a percentile line 'P.Pth: VALUE (N samples)'");
	if (!kind)
		return 0; /* RPS percentiles: the average below is schbench's figure */
	if (pct == 50 || pct == 90 || pct == 99 || pct == 99.9) {
		snprintf(name, sizeof(name), "schbench_%s_p%s_ns", kind,
			 pct == 50   ? "50"
			 : pct == 90 ? "90"
			 : pct == 99 ? "99"
				     : "999");
		put_num(r->mets, name, v * 1000);
	}
	return 0;
}

/* A block "X Latencies percentiles (usec) runtime R (s) (N total samples)" at line j. */
static long sb_block(struct posted *p, size_t j, const char *kind, struct run *r)
{
	const char *at = strstr(p->lines[j].t, "runtime");
	unsigned long long total;
	char name[64];
	unsigned rt;

	if (kind && at && sscanf(at, "runtime %u (s) (%llu total samples)", &rt, &total) == 2) {
		put_u64(r->over, "duration", (uint64_t)rt * 1000000000ull);
		snprintf(name, sizeof(name), "schbench_%s_count", kind);
		put_num(r->mets, name, (double)total);
	}
	for (j++; j < p->n; j++) {
		const char *s = skip_ws(p->lines[j].t);

		if (starts(s, "min=") || !*s)
			return (long)j + 1;
		if (!isdigit((unsigned char)*s) && *s != '*')
			return (long)j;
		if (sb_pct_line(p, &p->lines[j], kind, r))
			return -1;
	}
	return (long)j;
}

static long schbench(struct posted *p, size_t i)
{
	struct run *r = run_new(p, F_SCHBENCH, p->lines[i].no);
	unsigned workers;
	double rps;
	size_t j = i;
	long k;

	if (i > 0 && sscanf(p->lines[i - 1].t, "setting worker threads to %u", &workers) == 1)
		put_u64(r->over, "workers", workers);
	put_u64(r->over, "instances", 1);
	while (j < p->n) {
		const char *s = p->lines[j].t;

		if (starts(s, "Wakeup Latencies percentiles"))
			k = sb_block(p, j, "wakeup", r);
		else if (starts(s, "Request Latencies percentiles"))
			k = sb_block(p, j, "request", r);
		else if (starts(s, "RPS percentiles"))
			k = sb_block(p, j, NULL, r);
		else if (sscanf(s, "average rps: %lf", &rps) == 1) {
			put_num(r->mets, "requests_per_s", rps);
			r->last = p->lines[j].no;
			if (j + 1 < p->n && starts(p->lines[j + 1].t, "sched delay:"))
				r->last = p->lines[++j].no;
			return (long)j + 1;
		} else if (starts(s, "average rps:"))
			return bad(p, p->lines[j].no, "expected 'average rps: NUMBER'");
		else if (!*s || starts(s, "current rps:") || starts(s, "sched delay:") ||
			 starts(s, "setting worker threads"))
			k = (long)j + 1;
		else
			break;
		if (k < 0)
			return -1;
		j = (size_t)k;
	}
	return bad(p, j < p->n ? p->lines[j].no : p->lines[p->n - 1].no,
		   "expected schbench's 'average rps:' line after its percentiles (truncated?)");
}

/* schbench --json's file (no line structure: it is one line). */
/* The whole text as one JSON object (nothing after it but white space), or NULL. */
static json_object *whole_json(const char *text, size_t len, const char **why)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *doc;
	size_t used;

	if (!tok)
		die("out of memory");
	doc = json_tokener_parse_ex(tok, text, (int)len);
	*why = json_tokener_error_desc(json_tokener_get_error(tok));
	used = (size_t)json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	while (doc && used < len && isspace((unsigned char)text[used]))
		used++;
	if (doc && used < len) {
		*why = "text after the object";
		json_object_put(doc);
		doc = NULL;
	}
	return doc;
}

static int schbench_json(struct posted *p, const char *text, size_t len)
{
	static const struct {
		const char *key, *metric;
		double scale;
	} keys[] = {
		{ "wakeup_latency_pct50.0", "schbench_wakeup_p50_ns", 1000 },
		{ "wakeup_latency_pct90.0", "schbench_wakeup_p90_ns", 1000 },
		{ "wakeup_latency_pct99.0", "schbench_wakeup_p99_ns", 1000 },
		{ "wakeup_latency_pct99.9", "schbench_wakeup_p999_ns", 1000 },
		{ "request_latency_pct50.0", "schbench_request_p50_ns", 1000 },
		{ "request_latency_pct90.0", "schbench_request_p90_ns", 1000 },
		{ "request_latency_pct99.0", "schbench_request_p99_ns", 1000 },
		{ "request_latency_pct99.9", "schbench_request_p999_ns", 1000 },
	};
	const char *why = NULL;
	json_object *doc = len < INT32_MAX ? whole_json(text, len, &why) : NULL, *normal, *ints, *v;
	struct run *r;
	size_t i;

	if (!doc || !json_object_object_get_ex(doc, "normal", &normal) ||
	    !json_object_object_get_ex(doc, "int", &ints) ||
	    !json_object_is_type(ints, json_type_object)) {
		json_object_put(doc);
		return bad(
			p, 1,
			"expected schbench --json's object {\"normal\": {...}, \"int\": {...}}%s%s",
			doc ? "" : ": ", doc ? "" : (why ? why : "too long"));
	}
	r = run_new(p, F_SCHBENCH_JSON, 1);
	r->last = p->lines[p->n - 1].no;
	if (json_object_object_get_ex(normal, "cmdline", &v) &&
	    json_object_is_type(v, json_type_string))
		r->cmdline = xstrdup(json_object_get_string(v));
	if (json_object_object_get_ex(normal, "version", &v) &&
	    json_object_is_type(v, json_type_string))
		put_str(r->env, "kernel.release", json_object_get_string(v));
	if (json_object_object_get_ex(normal, "hostname", &v) &&
	    json_object_is_type(v, json_type_string))
		put_str(r->env, "host.name", json_object_get_string(v));
	if (json_object_object_get_ex(normal, "sched_ext", &v) &&
	    json_object_is_type(v, json_type_string))
		put_str(r->env, "external.sched_ext", json_object_get_string(v));
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		if (!json_object_object_get_ex(ints, keys[i].key, &v))
			continue;
		if (!json_object_is_type(v, json_type_int)) {
			json_object_put(doc);
			return bad(p, 1, "\"%s\" is not an integer", keys[i].key);
		}
		put_num(r->mets, keys[i].metric, (double)json_object_get_int64(v) * keys[i].scale);
	}
	if (!json_object_object_get_ex(r->mets, "schbench_wakeup_p99_ns", NULL)) {
		json_object_put(doc);
		return bad(p, 1,
			   "expected \"wakeup_latency_pct99.0\" in schbench --json's \"int\"");
	}
	if (json_object_object_get_ex(ints, "runtime", &v) &&
	    json_object_is_type(v, json_type_int) && json_object_get_int64(v) > 0)
		put_u64(r->over, "duration", (uint64_t)json_object_get_int64(v) * 1000000000ull);
	if (json_object_object_get_ex(ints, "time", &v) && json_object_is_type(v, json_type_int) &&
	    json_object_get_int64(v) > 0 && json_object_get_int64(v) < 9000000000ll)
		r->started_ns = json_object_get_int64(v) * 1000000000ll;
	put_u64(r->over, "instances", 1);
	json_object_put(doc);
	return 0;
}

/* ---- the paste, line by line ---- */

/* One tool per paste, and one of stress-ng's two formats (they repeat the same runs). */
static int same_source(struct posted *p, enum fmt *seen, unsigned *seen_no, enum fmt f, unsigned no)
{
	if (*seen == F_NONE) {
		*seen = f;
		*seen_no = no;
		return 0;
	}
	if (strcmp(fmts[*seen].tool, fmts[f].tool) ||
	    ((*seen == F_SNG_BRIEF || *seen == F_SNG_YAML) && *seen != f))
		return bad(p, no,
			   "%s output here, but %s output at line %u: import each tool's (and "
			   "stress-ng's table and YAML) from a file of its own",
			   fmts[f].name, fmts[*seen].name, *seen_no);
	return 0;
}

static int scan(struct posted *p)
{
	enum fmt seen = F_NONE, f;
	unsigned seen_no = 0;
	size_t i = 0;
	long next;

	while (i < p->n) {
		const struct line *l = &p->lines[i];

		if ((f = line_format(l->t)) == F_NONE) {
			if (shell_line(p, l) < 0)
				return -1;
			version_line(p, l->t);
			sng_info_line(p, l);
			i++;
			continue;
		}
		if (same_source(p, &seen, &seen_no, f, l->no))
			return -1;
		next = fmts[f].read(p, i);
		if (next < 0)
			return -1;
		p->floor = (size_t)next;
		i = (size_t)next > i ? (size_t)next : i + 1;
	}
	return 0;
}

/* ---- the export document ---- */

static enum impact key_impact(const char *key)
{
	static const struct {
		const char *key;
		enum impact impact;
	} known[] = {
		{ "kernel.release", IMPACT_STRONG },   { "kernel.version", IMPACT_STRONG },
		{ "kernel.arch", IMPACT_IDENTITY },    { "host.name", IMPACT_IDENTITY },
		{ "mem.page_size", IMPACT_WEAK },      { "external.tool", IMPACT_STRONG },
		{ "external.version", IMPACT_STRONG }, { "external.args", IMPACT_RUN },
		{ "external.source", IMPACT_RUN },     { "workload.name", IMPACT_STRONG },
		{ "workload.profile", IMPACT_STRONG },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(known); i++)
		if (!strcmp(known[i].key, key))
			return known[i].impact;
	return IMPACT_WEAK;
}

static void env_add(json_object *arr, const char *key, const char *value)
{
	json_object *e = json_object_new_object();

	put_str(e, "key", key);
	put_str(e, "value", value);
	put_str(e, "impact", env_impact_name(key_impact(key)));
	json_object_array_add(arr, e);
}

/* The profile's parameters with the posted ones over them, as `run` stores them. */
static json_object *params_json(const struct workload *wl, const struct profile *prof,
				const struct run *r, size_t nruns)
{
	json_object *o = json_object_new_object(), *v;
	void *base = xmalloc(wl->params_size);
	const struct opt *op;

	memcpy(base, prof ? prof->params : wl->defaults, wl->params_size);
	for (op = wl->opts; op->type != OPT_END; op++) {
		char *k;

		if (!op->long_name)
			continue;
		if (json_object_object_get_ex(r->over, op->long_name, &v)) {
			char *at = (char *)base + op->offset;

			if (op->type == OPT_FLAG)
				*(bool *)(void *)at = json_object_get_boolean(v);
			else if (op->type == OPT_UINT || op->type == OPT_DURATION ||
				 op->type == OPT_SIZE)
				*(uint64_t *)(void *)at = json_object_get_uint64(v);
		}
		k = opt_json_key(op);
		json_object_object_add(o, k, opt_json_value(op, base));
		free(k);
	}
	free(base);
	if (json_object_object_get_ex(r->over, "instances", &v))
		put_u64(o, "instances", json_object_get_uint64(v));
	if (json_object_object_get_ex(r->over, "duration", &v))
		put_u64(o, "duration_ns", json_object_get_uint64(v));
	put_u64(o, "samples", nruns);
	put_str(o, "workload", wl->name);
	json_object_object_add(o, "profile", json_str_or_null(prof ? prof->name : NULL));
	return o;
}

static json_object *sample_json(const struct run *r, size_t idx)
{
	static const char *const cols[] = { "ops",   "real_s",	  "usr_s",
					    "sys_s", "ops_per_s", "ops_per_cpu_s" };
	json_object *s = json_object_new_object(), *v;
	size_t i;

	put_u64(s, "index", idx);
	put_str(s, "config", "default");
	json_object_object_add(s, "warmup", json_object_new_boolean(0));
	put_str(s, "status", "ok");
	json_object_object_add(
		s, "duration_ns",
		json_object_object_get_ex(r->over, "duration", &v) ? json_object_get(v) : NULL);
	json_object_object_add(
		s, "instances",
		json_object_object_get_ex(r->over, "instances", &v) ? json_object_get(v) : NULL);
	for (i = 0; i < ARRAY_SIZE(cols); i++)
		json_object_object_add(s, cols[i],
				       json_object_object_get_ex(r->cols, cols[i], &v)
					       ? json_object_get(v)
					       : NULL);
	json_object_object_add(s, "metrics", json_object_get(r->mets));
	json_object_object_add(s, "unavailable", json_object_new_object());
	return s;
}

/* Definitions of the metrics the samples carry. */
static json_object *defs_json(struct run *const *rs, size_t n)
{
	json_object *arr = json_object_new_array(), *seen = json_object_new_object();
	size_t i;

	for (i = 0; i < n; i++) {
		json_object_object_foreach(rs[i]->mets, key, val)
		{
			const struct metric_def *d = metric_def(key);
			const char *better;
			json_object *m;
			size_t len = strlen(key);

			(void)val;
			if (json_object_object_get_ex(seen, key, NULL))
				continue;
			json_object_object_add(seen, key, NULL);
			better = d ? metric_better_name(d->better)
				 : len > 6 && !strcmp(key + len - 6, "_per_s") ? "higher"
				 : len > 3 && !strcmp(key + len - 3, "_ns")    ? "lower"
									       : "neutral";
			m = json_object_new_object();
			put_str(m, "name", key);
			put_str(m, "better", better);
			json_object_object_add(m, "evidence", json_object_new_boolean(0));
			json_object_array_add(arr, m);
		}
	}
	json_object_put(seen);
	return arr;
}

/* A UUID from the text the experiment came from: the same paste, the same UUIDs. */
static void text_uuid(const struct posted *p, struct run *const *rs, size_t n, char out[37])
{
	static const char hex[] = "0123456789abcdef";
	const struct posted_opts *o = p->o;
	const char *extra[] = { o ? o->tool_version : NULL, o ? o->label : NULL, o ? o->host : NULL,
				o ? o->kernel : NULL };
	struct sha256 c;
	uint8_t d[32];
	size_t i, j, k = 0;

	sha256_init(&c);
	sha256_update(&c, "wakebench posted\n", 17);
	for (i = 0; i < ARRAY_SIZE(extra); i++)
		sha256_update(&c, extra[i] ? extra[i] : "", extra[i] ? strlen(extra[i]) + 1 : 1);
	for (i = 0; i < n; i++) {
		sha256_update(&c, fmts[rs[i]->fmt].name, strlen(fmts[rs[i]->fmt].name) + 1);
		for (j = 0; j < p->n; j++)
			if (p->lines[j].no >= rs[i]->first && p->lines[j].no <= rs[i]->last)
				sha256_update(&c, p->lines[j].t, strlen(p->lines[j].t) + 1);
	}
	sha256_final(&c, d);
	d[6] = (uint8_t)((d[6] & 0x0f) | 0x50); /* a name-based UUID (RFC 9562 v5 layout) */
	d[8] = (uint8_t)((d[8] & 0x3f) | 0x80);
	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[k++] = '-';
		out[k++] = hex[d[i] >> 4];
		out[k++] = hex[d[i] & 15];
	}
	out[k] = '\0';
}

static const char *env_text(const struct run *r, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(r->env, key, &v) ? json_object_get_string(v) : NULL;
}

/* The tool's release and the profile reproducing it; -1 after one line. */
static int run_profile(struct posted *p, const struct run *r, const struct workload *wl,
		       const char **version, const struct profile **prof)
{
	const char *tool = fmts[r->fmt].tool;
	char range[128];

	*version = r->version ? r->version : p->o ? p->o->tool_version : NULL;
	if (!*version && r->fmt <= F_SNG_YAML)
		return bad(p, r->first,
			   "stress-ng's version is not in the text: give it with --tool-version "
			   "(the profile depends on it)");
	*prof = workload_profile_for(wl, tool, *version);
	if (!*prof && *version && !(*prof = workload_profile_for(wl, tool, NULL))) {
		workload_tool_range(wl, tool, range, sizeof(range));
		warning("import: '%s' line %u: %s %s: no %s profile covers it (%s%s); imported "
			"without a profile",
			p->name, r->first, tool, *version, wl->name,
			*range ? "profiles cover " : "none names it", range);
	}
	return 0;
}

/* The experiment of the runs rs[0..n) (one group). */
static json_object *exp_json(struct posted *p, struct run *const *rs, size_t n)
{
	const struct run *r = rs[0];
	const struct workload *wl = workload_find(fmts[r->fmt].workload);
	const struct posted_opts *o = p->o;
	json_object *e, *env, *start, *arr, *cfg;
	const struct profile *prof = NULL;
	const char *version = NULL, *host, *kernel;
	char uuid[37], *src;
	size_t i;

	if (!wl)
		BUG("no workload '%s'", fmts[r->fmt].workload);
	if (run_profile(p, r, wl, &version, &prof))
		return NULL;
	host = env_text(r, "host.name") ? env_text(r, "host.name") : o ? o->host : NULL;
	kernel = env_text(r, "kernel.release") ? env_text(r, "kernel.release")
		 : o			       ? o->kernel
					       : NULL;
	text_uuid(p, rs, n, uuid);
	e = json_object_new_object();
	put_str(e, "uuid", uuid);
	put_str(e, "kind", "external");
	put_str(e, "workload", wl->name);
	json_object_object_add(e, "profile", json_str_or_null(prof ? prof->name : NULL));
	json_object_object_add(e, "params", params_json(wl, prof, r, n));
	json_object_object_add(e, "cmdline", json_str_or_null(r->cmdline));
	json_object_object_add(e, "version", NULL);
	json_object_object_add(e, "label", json_str_or_null(o ? o->label : NULL));
	json_object_object_add(e, "host", json_str_or_null(host));
	json_object_object_add(e, "kernel", json_str_or_null(kernel));
	put_u64(e, "started_ns",
		(uint64_t)(r->started_ns > 0	  ? r->started_ns
			   : o && o->mtime_ns > 0 ? o->mtime_ns
						  : 0));
	put_str(e, "status", "complete");
	arr = json_object_new_array();
	cfg = json_object_new_object();
	put_str(cfg, "name", "default");
	json_object_object_add(cfg, "features", NULL);
	json_object_array_add(arr, cfg);
	json_object_object_add(e, "configs", arr);

	start = json_object_new_array();
	env_add(start, "external.tool", fmts[r->fmt].tool);
	if (version)
		env_add(start, "external.version", version);
	env_add(start, "external.format", fmts[r->fmt].name);
	src = xasprintf("%s:%u-%u", p->name, r->first, rs[n - 1]->last);
	env_add(start, "external.source", src);
	free(src);
	env_add(start, "workload.name", wl->name);
	if (prof)
		env_add(start, "workload.profile", prof->name);
	if (kernel && !env_text(r, "kernel.release"))
		env_add(start, "kernel.release", kernel);
	if (host && !env_text(r, "host.name"))
		env_add(start, "host.name", host);
	json_object_object_foreach(r->env, key, val)
	{
		env_add(start, key, json_object_get_string(val));
	}
	env = json_object_new_object();
	json_object_object_add(env, "start", start);
	json_object_object_add(env, "end", json_object_new_array());
	json_object_object_add(e, "env", env);
	json_object_object_add(e, "metrics", defs_json(rs, n));
	arr = json_object_new_array();
	for (i = 0; i < n; i++)
		json_object_array_add(arr, sample_json(rs[i], i));
	json_object_object_add(e, "samples", arr);
	return e;
}

/* What makes two runs one experiment's samples. */
static char *group_key(const struct run *r)
{
	const char *k = env_text(r, "kernel.release"), *h = env_text(r, "host.name");

	return xasprintf("%d\n%s\n%s\n%s\n%s\n%s", (int)r->fmt, r->version ? r->version : "",
			 r->cmdline ? r->cmdline : "",
			 json_object_to_json_string_ext(r->over, JSON_C_TO_STRING_PLAIN),
			 k ? k : "", h ? h : "");
}

static json_object *doc_json(struct posted *p)
{
	json_object *doc = json_object_new_object(), *exps = json_object_new_array(), *e;
	struct run **rs = xmalloc(p->nruns * sizeof(*rs));
	char **keys = xcalloc(p->nruns, sizeof(*keys));
	size_t i, j, n, g = 0;

	put_str(doc, "format", "wakebench-export");
	put_u64(doc, "version", 2);
	json_object_object_add(doc, "experiments", exps);
	for (i = 0; i < p->nruns; i++) {
		keys[i] = group_key(&p->runs[i]);
		p->runs[i].group = SIZE_MAX;
		for (j = 0; j < i; j++)
			if (!strcmp(keys[i], keys[j])) {
				p->runs[i].group = p->runs[j].group;
				break;
			}
		if (p->runs[i].group == SIZE_MAX)
			p->runs[i].group = g++;
	}
	for (j = 0; j < g && doc; j++) {
		for (n = 0, i = 0; i < p->nruns; i++)
			if (p->runs[i].group == j)
				rs[n++] = &p->runs[i];
		if (!(e = exp_json(p, rs, n))) {
			json_object_put(doc);
			doc = NULL;
			break;
		}
		json_object_array_add(exps, e);
	}
	for (i = 0; i < p->nruns; i++)
		free(keys[i]);
	free(keys);
	free(rs);
	return doc;
}

static void posted_release(struct posted *p)
{
	size_t i;

	for (i = 0; i < p->nruns; i++)
		run_release(&p->runs[i]);
	for (i = 0; i < F_COUNT; i++) {
		free(p->pend.cmdline[i]);
		free(p->pend.version[i]);
	}
	free(p->pend.arch);
	free(p->pend.release);
	free(p->runs);
	free(p->lines);
	free(p->buf);
}

int posted_parse(const char *name, const char *text, size_t len, const struct posted_opts *o,
		 char **doc)
{
	struct posted p = { .name = name, .o = o };
	json_object *d = NULL;
	int ret = -1;
	size_t i;

	*doc = NULL;
	if (len > POSTED_MAX_BYTES)
		return error("import: '%s' is refused: %zu bytes of posted text (at most %u)", name,
			     len, POSTED_MAX_BYTES);
	if (memchr(text, '\0', len))
		return error("import: '%s' is refused: posted text with a NUL byte", name);
	p.buf = xmalloc(len + 1);
	memcpy(p.buf, text, len);
	p.buf[len] = '\0';
	split_lines(&p);
	if (!p.n) {
		error("import: '%s': no posted output in it", name);
		goto out;
	}
	if (is_schbench_json(text, len) ? schbench_json(&p, text, len) : scan(&p))
		goto out;
	if (!p.nruns) {
		error("import: '%s': no run of stress-ng, perf bench, hackbench or schbench in it",
		      name);
		goto out;
	}
	for (i = 0; i < p.nruns; i++)
		if (run_args(&p, &p.runs[i]))
			goto out;
	if (!(d = doc_json(&p)))
		goto out;
	*doc = xstrdup(json_object_to_json_string_ext(d, JSON_C_TO_STRING_PLAIN |
								 JSON_C_TO_STRING_NOSLASHESCAPE));
	ret = 0;
out:
	json_object_put(d);
	posted_release(&p);
	return ret;
}
