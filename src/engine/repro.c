/*
 * repro.c: the reproducer lines of a report (repro.h).
 *
 * A stored command line is what was typed here: this machine's store
 * (--db), its quiet or verbose flags, where it wrote its output, the path
 * of its debugfs and of its kernel images. Someone reading the report on
 * another machine needs what defines the experiment: the workload, its
 * parameters and profile, the features, the kernels by name.
 *
 * The equivalent command of another tool is printed only from the stored
 * parameters, and only as "equivalent" when every parameter maps onto one
 * of that tool's options; otherwise it is the closest command with each
 * difference named (stress-ng's --timeout counts whole seconds, perf bench
 * runs a fixed count of round trips, ...). Facts about the tools:
 * reference/stress-ng-pipe.md.
 */
#include "engine/repro.h"
#include "render/render.h"
#include "util/opts.h"
#include "util/text.h"
#include "util/util.h"
#include "workloads/workload.h"

#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the command line ---- */

struct words {
	char **w;
	size_t n, alloc;
};

static void words_add(struct words *ws, char *w)
{
	if (ws->n == ws->alloc) {
		ws->alloc = ws->alloc ? 2 * ws->alloc : 16;
		ws->w = xrealloc(ws->w, ws->alloc * sizeof(*ws->w));
	}
	ws->w[ws->n++] = w;
}

static void words_free(struct words *ws)
{
	size_t i;

	for (i = 0; i < ws->n; i++)
		free(ws->w[i]);
	free(ws->w);
}

/* Split a command line the way a POSIX shell reads cli_cmdline()'s quoting. */
static void split(const char *s, struct words *ws)
{
	char *cur = xmalloc(strlen(s) + 1);

	while (*s) {
		size_t n = 0;

		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (!*s)
			break;
		while (*s && *s != ' ' && *s != '\t' && *s != '\n') {
			if (*s == '\'') {
				for (s++; *s && *s != '\''; s++)
					cur[n++] = *s;
				if (*s)
					s++;
			} else if (*s == '\\' && s[1]) {
				cur[n++] = s[1];
				s += 2;
			} else if (*s == '"') {
				for (s++; *s && *s != '"'; s++)
					cur[n++] = *s == '\\' && s[1] ? *++s : *s;
				if (*s)
					s++;
			} else {
				cur[n++] = *s++;
			}
		}
		cur[n] = '\0';
		words_add(ws, xstrdup(cur));
	}
	free(cur);
}

enum rule_act { DROP, BASENAME };

/* Options of this machine or of the output, not of the experiment. */
static const struct rule {
	const char *name;
	bool arg;
	enum rule_act act;
} rules[] = {
	{ "--db", true, DROP },
	{ "--format", true, DROP },
	{ "-o", true, DROP },
	{ "--output", true, DROP },
	{ "--debugfs", true, DROP },
	{ "--no-store", false, DROP },
	{ "-q", false, DROP },
	{ "--quiet", false, DROP },
	{ "-v", false, DROP },
	{ "--verbose", false, DROP },
	{ "--qemu", true, DROP },
	{ "--guest-wakebench", true, DROP },
	{ "--sysroot", true, DROP },
	{ "--keep-temp", false, DROP },
	{ "--emit-initramfs", true, DROP },
	{ "-k", true, BASENAME },
	{ "--kernel", true, BASENAME },
};

static const struct rule *rule_for(const char *w, bool keep_format, const char **value)
{
	size_t i, n;

	*value = NULL;
	/* -q, -v, -vv, -qv: verbosity only */
	if (w[0] == '-' && w[1] && strspn(w + 1, "qv") == strlen(w + 1))
		return &rules[6];
	for (i = 0; i < ARRAY_SIZE(rules); i++) {
		const struct rule *r = &rules[i];

		if (keep_format && !strcmp(r->name, "--format"))
			continue;
		n = strlen(r->name);
		if (strncmp(w, r->name, n))
			continue;
		if (!w[n])
			return r;
		if (r->arg && w[n] == '=' && r->name[1] == '-') {
			*value = w + n + 1;
			return r;
		}
		/* -oFILE, -kIMAGE */
		if (r->arg && r->name[1] != '-') {
			*value = w + n;
			return r;
		}
	}
	return NULL;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

char *repro_command(const char *cmdline, bool keep_format)
{
	struct words ws = { 0 }, keep = { 0 };
	char *out;
	size_t i;

	split(cmdline ? cmdline : "", &ws);
	for (i = 0; i < ws.n; i++) {
		const char *w = ws.w[i], *value;
		const struct rule *r;

		if (!i) {
			/*
			 * The program by its name: the path is this machine's, and
			 * a stored line is wakebench's (one from another store
			 * cannot make a report print another program's command).
			 */
			words_add(&keep, xstrdup("wakebench"));
			continue;
		}
		r = rule_for(w, keep_format, &value);
		if (!r) {
			words_add(&keep, xstrdup(w));
			continue;
		}
		if (r->arg && !value && i + 1 < ws.n)
			value = ws.w[++i];
		if (r->act == BASENAME && value) {
			words_add(&keep, xstrdup(r->name));
			words_add(&keep, xstrdup(base_name(value)));
		}
	}
	/* quoted so that no word adds a line or a command (util/text.h) */
	out = sh_command((const char *const *)keep.w, keep.n);
	words_free(&ws);
	words_free(&keep);
	return out;
}

/* ---- another tool's command ---- */

static int64_t num(json_object *o, const char *key, int64_t def)
{
	json_object *v = rep_obj(o, key);

	return v && (json_object_is_type(v, json_type_int) ||
		     json_object_is_type(v, json_type_double))
		       ? json_object_get_int64(v)
		       : def;
}

static bool flag(json_object *o, const char *key)
{
	json_object *v = rep_obj(o, key);

	return v && json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

/* *s becomes "*s SEP t", or t when *s is NULL. */
static void append(char **s, const char *sep, const char *t)
{
	char *n = *s ? xasprintf("%s%s%s", *s, sep, t) : xstrdup(t);

	free(*s);
	*s = n;
}

/* What differs, as one text: "a; b; c". */
struct diffs {
	char *text;
};

static void differs(struct diffs *d, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void differs(struct diffs *d, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	append(&d->text, "; ", s);
	free(s);
}

/*
 * The CPU list the tasks were bound to, for taskset, or NULL: placement
 * any with a plain --cpus list, or same-cpu with one instance (any one CPU
 * is that placement; the first of --cpus, else 0).
 */
static char *taskset_for(json_object *p, const char *placement, int64_t instances, struct diffs *d,
			 const char *tool)
{
	json_object *cpus = rep_obj(p, "cpus");
	size_t n = cpus && json_object_is_type(cpus, json_type_array)
			   ? json_object_array_length(cpus)
			   : 0,
	       i;
	char *list = NULL;

	for (i = 0; i < n; i++) {
		const char *c = json_object_get_string(json_object_array_get_idx(cpus, i));

		if (!c || strchr(c, '=')) {
			differs(d, "the roles were bound to CPUs (--cpus ROLE=LIST), %s cannot",
				tool);
			free(list);
			return NULL;
		}
		append(&list, ",", c);
	}
	if (!strcmp(placement, "any"))
		return list;
	if (!strcmp(placement, "same-cpu") && instances == 1) {
		char *one =
			xasprintf("%.*s", list ? (int)strcspn(list, ",-") : 1, list ? list : "0");

		free(list);
		return one;
	}
	differs(d, "wakebench placed the tasks (--placement %s), %s does not", placement, tool);
	free(list);
	return NULL;
}

static void probes_differ(json_object *p, struct diffs *d, const char *tool)
{
	const char *trace = rep_str(p, "trace") ?: "off";

	if (strcmp(trace, "off") || flag(p, "perf_counters"))
		differs(d, "these samples were %s (%s), which costs time %s does not spend",
			strcmp(trace, "off") ? "traced" : "counted",
			strcmp(trace, "off") ? "--trace" : "--perf-counters", tool);
}

static char *with_taskset(char *cmd, char *cpus)
{
	const char *argv[] = { "taskset", "-c", cpus };
	char *s, *q;

	if (!cpus)
		return cmd;
	/* the list comes from the stored parameters: quoted like any word */
	q = sh_command(argv, ARRAY_SIZE(argv));
	s = xasprintf("%s %s", q, cmd);
	free(q);
	free(cmd);
	free(cpus);
	return s;
}

/*
 * The pipe profile an experiment ran (its label may be "custom (based on
 * NAME)"; stores older than the rename say stress-ng-0.21, release 0.21.00)
 * and the stress-ng release to run: the one --profile gave
 * (params.profile_release), else the last the profile covers (every
 * release of its range behaves alike).
 */
static const struct profile *pipe_profile(const struct workload *wl, const char *label,
					  json_object *p, char *release, size_t len)
{
	static const char custom[] = "custom (based on ";
	const struct profile *prof;
	const char *given = rep_str(p, "profile_release"), *version;
	char name[64];
	size_t n;

	if (!strncmp(label, custom, sizeof(custom) - 1))
		label += sizeof(custom) - 1;
	n = strcspn(label, ")");
	if (n >= sizeof(name))
		return NULL;
	memcpy(name, label, n);
	name[n] = '\0';
	prof = workload_profile_resolve(wl, name, &version);
	if (!prof || !prof->tool || strcmp(prof->tool, "stress-ng") || !prof->first)
		return NULL;
	if (given && workload_profile_for(wl, prof->tool, given) == prof)
		snprintf(release, len, "%s", given);
	else if (version)
		snprintf(release, len, "%s%s", version,
			 strchr(version, '.') && !strchr(strchr(version, '.') + 1, '.') ? ".00"
											: "");
	else
		snprintf(release, len, "%s", prof->last);
	return prof;
}

/*
 * stress-ng --pipe, for any pipe profile (reference/stress-ng-pipe.md):
 * releases before 0.15.07 ignore --pipe-data-size (always 512 bytes),
 * later ones take it; --pipe-size in all.
 */
static char *pipe_equivalent(const struct store_experiment *e, json_object *p, struct diffs *d,
			     const char **tool, char *tool_buf, size_t tool_len)
{
	const struct workload *wl = workload_find("pipe");
	const struct opt *size_opt = wl ? opts_find(wl->opts, "data-size") : NULL;
	const struct profile *prof;
	char release[48];
	int64_t j = num(p, "instances", 4), size, psize = num(p, "pipe_size_bytes", 0);
	uint64_t dur = (uint64_t)num(p, "duration_ns", 0), def_size;
	char *cmd, *opt;
	bool ignores_size;
	int cmp;

	prof = wl && size_opt ? pipe_profile(wl, e->profile, p, release, sizeof(release)) : NULL;
	if (!prof || !dur)
		return NULL;
	memcpy(&def_size, (const char *)prof->params + size_opt->offset, sizeof(def_size));
	size = num(p, "data_size_bytes", (int64_t)def_size);
	ignores_size = !version_cmp(prof->last, "0.15.07", &cmp) && cmp < 0;
	snprintf(tool_buf, tool_len, "stress-ng %s", release);
	*tool = tool_buf;
	opt = xstrdup("");
	if (ignores_size && size != (int64_t)def_size)
		differs(d,
			"stress-ng %s always writes %llu bytes (its --pipe-data-size is "
			"ignored), these samples wrote %lld",
			release, (unsigned long long)def_size, (long long)size);
	else if (size != (int64_t)def_size)
		opt = (free(opt), xasprintf(" --pipe-data-size %lld", (long long)size));
	if (psize) {
		char *o = xasprintf("%s --pipe-size %lld", opt, (long long)psize);

		free(opt);
		opt = o;
	}
	if (flag(p, "no_packet"))
		differs(d, "stress-ng always uses packet mode (pipe2 O_DIRECT), these samples "
			   "used --no-packet");
	if (dur % 1000000000ull) {
		char t[32];

		format_duration(dur, t, sizeof(t));
		differs(d, "stress-ng's --timeout counts whole seconds, these samples were %s", t);
	}
	cmd = xasprintf("stress-ng --pipe %lld --timeout %llus --metrics-brief%s", (long long)j,
			(unsigned long long)((dur + 999999999ull) / 1000000000ull), opt);
	free(opt);
	probes_differ(p, d, "stress-ng");
	return with_taskset(cmd,
			    taskset_for(p, rep_str(p, "placement") ?: "any", j, d, "stress-ng"));
}

/* perf bench sched pipe: a fixed count of round trips. */
static char *pingpong_equivalent(const struct store_experiment *e, json_object *p, double median,
				 struct diffs *d, const char **tool)
{
	const char *channel = rep_str(p, "channel") ?: "pipe";
	int64_t j = num(p, "instances", 1);
	uint64_t dur = (uint64_t)num(p, "duration_ns", 0);
	char *cmd, loops[48] = "";

	if (!strstr(e->profile, "perf-bench-sched-pipe") || !dur)
		return NULL;
	*tool = "perf bench sched pipe";
	if (strcmp(channel, "pipe"))
		differs(d,
			"perf bench passes the token over pipes, these samples used --channel %s",
			channel);
	if (j != 1)
		differs(d, "perf bench runs one pair, these samples ran %lld side by side",
			(long long)j);
	if (isfinite(median) && median > 0 && dur) {
		double n = median * (double)dur / 1e9, p10 = pow(10, floor(log10(n)) - 1);

		/* two significant digits: about one sample's work at the measured median */
		snprintf(loops, sizeof(loops), " -l %.0f", fmax(1, round(n / p10) * p10));
	}
	{
		char t[32];

		format_duration(dur, t, sizeof(t));
		differs(d,
			"perf bench runs a fixed count of round trips (-l%s), wakebench a fixed "
			"time (-t %s); its ops/sec is round trips/s here",
			loops[0] ? ": about one sample's at the median" : "", t);
	}
	cmd = xasprintf("perf bench sched pipe%s%s", loops, flag(p, "threads") ? " -T" : "");
	probes_differ(p, d, "perf bench");
	return with_taskset(cmd,
			    taskset_for(p, rep_str(p, "placement") ?: "any", j, d, "perf bench"));
}

/* hackbench (rt-tests) or perf bench sched messaging: fixed work, one run per sample. */
static char *messaging_equivalent(const struct store_experiment *e, json_object *p, struct diffs *d,
				  const char **tool)
{
	bool perf = strstr(e->profile, "perf-bench-sched-messaging") != NULL;
	int64_t g = num(p, "groups", 10), fds = num(p, "fds", 20), l = num(p, "loops", 100);
	int64_t size = num(p, "datasize_bytes", 100), j = num(p, "instances", 1);
	const char *placement = rep_str(p, "placement") ?: "any";
	char *cmd;

	if (!perf && !strstr(e->profile, "hackbench"))
		return NULL;
	*tool = perf ? "perf bench sched messaging" : "hackbench (rt-tests)";
	if (j != 1)
		differs(d, "%s runs one set of groups, these samples ran %lld side by side",
			perf ? "perf bench" : "hackbench", (long long)j);
	if (strcmp(placement, "any"))
		differs(d, "wakebench placed the tasks (--placement %s)", placement);
	if (perf) {
		if (fds != 20)
			differs(d,
				"perf bench uses 20 senders and receivers per group, these "
				"samples %lld",
				(long long)fds);
		if (size != 100)
			differs(d, "perf bench sends 100-byte messages, these samples %lld bytes",
				(long long)size);
		cmd = xasprintf("perf bench sched messaging -g %lld -l %lld%s%s", (long long)g,
				(long long)l, flag(p, "pipe") ? " -p" : "",
				flag(p, "threads") ? " -t" : "");
	} else {
		cmd = xasprintf("hackbench -g %lld -f %lld -l %lld -s %lld%s%s", (long long)g,
				(long long)fds, (long long)l, (long long)size,
				flag(p, "pipe") ? " -p" : "", flag(p, "threads") ? " -T" : "");
	}
	probes_differ(p, d, perf ? "perf bench" : "hackbench");
	return cmd;
}

/* How ab's samples map onto the tool's runs: the features it toggled. */
static char *ab_arms(json_object *p)
{
	json_object *f = rep_obj(p, "feature");
	size_t i,
		n = f && json_object_is_type(f, json_type_array) ? json_object_array_length(f) : 0;
	char *list = NULL;

	for (i = 0; i < n; i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(f, i));

		append(&list, " ", s ? s : "?");
	}
	return list;
}

char *repro_equivalent(const struct store_experiment *e, double median, char **note)
{
	json_object *p = e->params_json ? json_tokener_parse(e->params_json) : NULL;
	struct diffs d = { 0 };
	const char *tool = NULL;
	char *cmd = NULL, *per, *arms, tool_buf[80];

	*note = NULL;
	if (!p || !e->profile || !e->workload ||
	    (strcmp(e->kind, "run") && strcmp(e->kind, "ab"))) {
		json_object_put(p);
		return NULL;
	}
	if (!strcmp(e->workload, "pipe"))
		cmd = pipe_equivalent(e, p, &d, &tool, tool_buf, sizeof(tool_buf));
	else if (!strcmp(e->workload, "pingpong"))
		cmd = pingpong_equivalent(e, p, median, &d, &tool);
	else if (!strcmp(e->workload, "messaging"))
		cmd = messaging_equivalent(e, p, &d, &tool);
	if (!cmd) {
		free(d.text);
		json_object_put(p);
		return NULL;
	}
	arms = !strcmp(e->kind, "ab") ? ab_arms(p) : NULL;
	per = arms ? xasprintf("one run per sample of either arm (ab set %s in "
			       "sched/features for arm B and restored it for arm A)",
			       arms)
		   : xstrdup("one run per sample");
	if (d.text)
		*note = xasprintf("closest %s command, %s; it differs: %s", tool, per, d.text);
	else
		*note = xasprintf("the same with %s, %s", tool, per);
	free(per);
	free(arms);
	free(d.text);
	json_object_put(p);
	return cmd;
}
