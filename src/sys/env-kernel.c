/*
 * env-kernel.c: the fingerprint keys that describe the running kernel: its
 * release and build, the preemption model (and which source decided it), the
 * kernel config options that change scheduling (CONFIG_HZ, CONFIG_PREEMPT*,
 * NO_HZ, SCHED_DEBUG...), and the scheduler's tunables (features string,
 * base slice, autogroup).
 *
 * Everything is read from files under the tree's root (uname's answers come
 * from /proc/sys/kernel so that a fake tree drives them) except debugfs,
 * which lives where --debugfs says. A file that cannot be read becomes a value
 * saying why; the reasons for debugfs are specific because lockdown (EPERM
 * even for root) is common on distribution kernels and easily mistaken for
 * "not root".
 */
#include "sys/env-probes.h"
#include "sys/features.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

void env_path(const struct env_ctx *c, const char *rel, char *buf, size_t len)
{
	root_path(c->root, rel, buf, len);
}

int env_read(const struct env_ctx *c, const char *rel, char **out)
{
	char path[PATH_MAX];

	env_path(c, rel, path, sizeof(path));
	return read_file(path, out, NULL);
}

char *env_read_trim(const struct env_ctx *c, const char *rel)
{
	char *s;

	if (env_read(c, rel, &s))
		return NULL;
	return rtrim(s);
}

int env_live(const struct env_ctx *c)
{
	return !strcmp(c->root, "/");
}

const char *env_debugfs_reason(int err)
{
	switch (err) {
	case EPERM:
		return "unreadable: kernel lockdown (EPERM)";
	case EACCES:
		return "unreadable: not permitted (not root)";
	case ENOENT:
	case ENOTDIR:
		return "absent (debugfs not mounted, or kernel before 6.15 without "
		       "CONFIG_SCHED_DEBUG)";
	default:
		return NULL;
	}
}

/* The reason as a value, also for errors env_debugfs_reason() has no words for. */
static char *debugfs_reason_value(int err)
{
	const char *r = env_debugfs_reason(err);

	return r ? xstrdup(r) : xasprintf("unreadable: %s", strerror(err));
}

char *env_cmdline_param(const char *cmdline, const char *name)
{
	size_t nlen = strlen(name);
	const char *p = cmdline;
	char *found = NULL;

	while (p && *p) {
		const char *end;
		int quoted = 0;

		while (*p == ' ' || *p == '\n' || *p == '\t')
			p++;
		if (!*p)
			break;
		/* Everything after a lone "--" belongs to init, not the kernel. */
		if (p[0] == '-' && p[1] == '-' && (!p[2] || p[2] == ' ' || p[2] == '\n'))
			break;
		for (end = p; *end && (quoted || (*end != ' ' && *end != '\n')); end++)
			if (*end == '"')
				quoted = !quoted;
		if ((size_t)(end - p) > nlen && !strncmp(p, name, nlen) && p[nlen] == '=') {
			/* The kernel uses the last occurrence of a parameter. */
			free(found);
			found = xasprintf("%.*s", (int)(end - p - (long)nlen - 1), p + nlen + 1);
		}
		p = end;
	}
	return found;
}

char *env_config_value(const char *config, const char *name)
{
	size_t nlen = strlen(name);
	const char *line = config;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		if (len > nlen && !strncmp(line, name, nlen) && line[nlen] == '=')
			return xasprintf("%.*s", (int)(len - nlen - 1), line + nlen + 1);
		if (len > nlen + 2 && !strncmp(line, "# ", 2) && !strncmp(line + 2, name, nlen) &&
		    !strncmp(line + 2 + nlen, " is not set", len - 2 - nlen))
			return xstrdup("not set");
		line = nl ? nl + 1 : NULL;
	}
	return NULL;
}

static int config_is_y(const char *config, const char *name)
{
	char *v = config ? env_config_value(config, name) : NULL;
	int y = v && !strcmp(v, "y");

	free(v);
	return y;
}

/* Does the version string (uname -v) carry this whole word? */
static int version_has(const char *version, const char *word)
{
	size_t wlen = strlen(word);
	const char *p = version;

	while (p && (p = strstr(p, word))) {
		int start_ok = p == version || p[-1] == ' ';
		int end_ok = !p[wlen] || p[wlen] == ' ';

		if (start_ok && end_ok)
			return 1;
		p += wlen;
	}
	return 0;
}

void env_preempt_derive(const struct preempt_sources *src, char *model, size_t model_len,
			char *source, size_t source_len)
{
	static const struct {
		const char *option, *model;
	} config_models[] = {
		/* RT first: it can be set together with one of the others. */
		{ "CONFIG_PREEMPT_RT", "rt" },	   { "CONFIG_PREEMPT_LAZY", "lazy" },
		{ "CONFIG_PREEMPT", "full" },	   { "CONFIG_PREEMPT_VOLUNTARY", "voluntary" },
		{ "CONFIG_PREEMPT_NONE", "none" },
	};
	const char *v = src->version ? src->version : "";
	int dynamic = version_has(v, "PREEMPT_DYNAMIC") ||
		      config_is_y(src->config, "CONFIG_PREEMPT_DYNAMIC");
	size_t i;

	if (src->debugfs) {
		const char *open = strchr(src->debugfs, '(');
		const char *close = open ? strchr(open, ')') : NULL;

		if (close) {
			snprintf(model, model_len, "%.*s", (int)(close - open - 1), open + 1);
			snprintf(source, source_len, "debugfs sched/preempt");
			return;
		}
	}
	if (version_has(v, "PREEMPT_RT") || config_is_y(src->config, "CONFIG_PREEMPT_RT")) {
		snprintf(model, model_len, "rt");
		snprintf(source, source_len, "%s",
			 version_has(v, "PREEMPT_RT") ? "uname -v PREEMPT_RT"
						      : "kernel config CONFIG_PREEMPT_RT");
		return;
	}
	if (dynamic && src->cmdline && *src->cmdline) {
		snprintf(model, model_len, "%s", src->cmdline);
		snprintf(source, source_len, "kernel command line preempt=");
		return;
	}
	if (src->config) {
		for (i = 0; i < ARRAY_SIZE(config_models); i++) {
			if (!config_is_y(src->config, config_models[i].option))
				continue;
			snprintf(model, model_len, "%s", config_models[i].model);
			snprintf(source, source_len, "kernel config %s%s", config_models[i].option,
				 dynamic ? " (boot default of PREEMPT_DYNAMIC)" : "");
			return;
		}
	}
	snprintf(source, source_len, "uname -v");
	if (version_has(v, "PREEMPT_LAZY"))
		snprintf(model, model_len, "lazy");
	else if (dynamic)
		snprintf(model, model_len, "dynamic (current mode unknown)");
	else if (version_has(v, "PREEMPT"))
		snprintf(model, model_len, "full");
	else if (*v)
		snprintf(model, model_len, "none or voluntary");
	else
		snprintf(model, model_len, "unknown");
}

void env_kernel_flavour(const char *release, char *buf, size_t len)
{
	const char *last, *prev = NULL, *p;
	int digits = 1;

	last = strrchr(release, '-');
	if (!last) {
		snprintf(buf, len, "none");
		return;
	}
	for (p = last + 1; *p; p++)
		if (*p < '0' || *p > '9')
			digits = 0;
	if (digits) {
		/* "rpi-2712": a bare number names a flavour only with its prefix. */
		for (p = last - 1; p >= release && *p != '-' && *p != '+'; p--)
			;
		if (p >= release)
			prev = p;
	}
	snprintf(buf, len, "%s", (prev ? prev : last) + 1);
}

/* The decompressed text of a gzip file (/proc/config.gz), or NULL. */
static char *gunzip_file(const char *path)
{
	size_t len = 0, alloc = 1 << 16;
	gzFile gz = gzopen(path, "rb");
	char *buf;
	int n;

	if (!gz)
		return NULL;
	buf = xmalloc(alloc);
	for (;;) {
		if (alloc - len < 2)
			buf = xrealloc(buf, alloc *= 2);
		n = gzread(gz, buf + len, (unsigned)(alloc - len - 1));
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	gzclose(gz);
	buf[len] = '\0';
	if (n < 0 || !len) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void read_config(struct env_ctx *c)
{
	char path[PATH_MAX], rel[PATH_MAX];

	env_path(c, "/proc/config.gz", path, sizeof(path));
	c->config = gunzip_file(path);
	if (c->config) {
		c->config_source = xstrdup("/proc/config.gz");
		return;
	}
	if (c->release) {
		snprintf(rel, sizeof(rel), "/boot/config-%s", c->release);
		if (!env_read(c, rel, &c->config)) {
			c->config_source = xstrdup(rel);
			return;
		}
		c->config = NULL;
	}
	c->config_source = xasprintf("absent (no /proc/config.gz or /boot/config-%s)",
				     c->release ? c->release : "RELEASE");
}

/* "Linux version R (builder) (compiler) #1 SMP ..." -> "#1 SMP ..." */
static char *version_from_proc_version(const char *pv)
{
	const char *p = strstr(pv, ") #");

	if (!p)
		p = strstr(pv, " #");
	else
		p++;
	return p ? rtrim(xstrdup(p + 1)) : NULL;
}

void env_ctx_init(struct env_ctx *c, struct env *env, const struct env_opts *o)
{
	char *pv;

	memset(c, 0, sizeof(*c));
	c->env = env;
	c->root = o->root;
	c->debugfs = o->debugfs;
	c->release = env_read_trim(c, "/proc/sys/kernel/osrelease");
	c->version = env_read_trim(c, "/proc/sys/kernel/version");
	pv = env_read_trim(c, "/proc/version");
	if (pv && !c->release) {
		char rel[256];

		if (sscanf(pv, "Linux version %255s", rel) == 1)
			c->release = xstrdup(rel);
	}
	if (pv && !c->version)
		c->version = version_from_proc_version(pv);
	free(pv);
	c->cmdline = env_read_trim(c, "/proc/cmdline");
	read_config(c);
}

void env_ctx_release(struct env_ctx *c)
{
	free(c->release);
	free(c->version);
	free(c->cmdline);
	free(c->config);
	free(c->config_source);
}

void env_file_key(struct env_ctx *c, const char *key, enum impact impact, const char *rel)
{
	char *v = env_read_trim(c, rel);

	if (v)
		env_set(c->env, key, impact, "%s", *v ? v : "(empty)");
	else if (errno == ENOENT || errno == ENOTDIR)
		env_set(c->env, key, impact, "absent (no %s)", rel);
	else
		env_set(c->env, key, impact, "unreadable (%s: %s)", rel, strerror(errno));
	free(v);
}

/* A debugfs file's trimmed contents, or NULL with *reason saying why not. */
static char *debugfs_read(struct env_ctx *c, const char *rel, char **reason)
{
	char path[PATH_MAX], *s;

	snprintf(path, sizeof(path), "%s/%s", c->debugfs, rel);
	if (read_file(path, &s, NULL)) {
		int e = errno;

		*reason = debugfs_reason_value(e);
		errno = e;
		return NULL;
	}
	*reason = NULL;
	return rtrim(s);
}

static const char *const config_keys[] = {
	"CONFIG_PREEMPT_NONE",	   "CONFIG_PREEMPT_VOLUNTARY", "CONFIG_PREEMPT",
	"CONFIG_PREEMPT_LAZY",	   "CONFIG_PREEMPT_RT",	       "CONFIG_PREEMPT_DYNAMIC",
	"CONFIG_SCHED_DEBUG",	   "CONFIG_SCHEDSTATS",	       "CONFIG_SCHED_AUTOGROUP",
	"CONFIG_NO_HZ_IDLE",	   "CONFIG_NO_HZ_FULL",	       "CONFIG_HZ_PERIODIC",
	"CONFIG_FAIR_GROUP_SCHED", "CONFIG_SCHED_CORE",	       "CONFIG_SCHED_CLASS_EXT",
};

static void probe_preempt(struct env_ctx *c)
{
	struct preempt_sources src = { .version = c->version, .config = c->config };
	char model[128], source[128], words[128] = "";
	static const char *const tokens[] = { "PREEMPT", "PREEMPT_DYNAMIC", "PREEMPT_RT",
					      "PREEMPT_LAZY" };
	char *dbg, *why, *cmd;
	size_t i, used = 0;

	for (i = 0; i < ARRAY_SIZE(tokens); i++)
		if (c->version && version_has(c->version, tokens[i]))
			used += (size_t)snprintf(words + used, sizeof(words) - used, "%s%s",
						 used ? " " : "", tokens[i]);
	env_set(c->env, "kernel.preempt.uname", IMPACT_MEDIUM, "%s",
		!c->version ? "unknown (no version string)"
		: used	    ? words
			    : "none");

	dbg = debugfs_read(c, "sched/preempt", &why);
	if (!dbg && errno == ENOENT) {
		free(why);
		why = xstrdup("absent (debugfs not mounted, or kernel without PREEMPT_DYNAMIC)");
	}
	env_set(c->env, "kernel.preempt.debugfs", IMPACT_MEDIUM, "%s", dbg ? dbg : why);
	src.debugfs = dbg;

	cmd = c->cmdline ? env_cmdline_param(c->cmdline, "preempt") : NULL;
	env_set(c->env, "kernel.preempt.cmdline", IMPACT_MEDIUM, "%s", cmd ? cmd : "absent");
	src.cmdline = cmd;

	env_preempt_derive(&src, model, sizeof(model), source, sizeof(source));
	env_set(c->env, "kernel.preempt", IMPACT_STRONG, "%s", model);
	env_set(c->env, "kernel.preempt.source", IMPACT_WEAK, "%s", source);
	free(dbg);
	free(why);
	free(cmd);
}

static void probe_config(struct env_ctx *c)
{
	char key[128], *v;
	size_t i;

	env_set(c->env, "kernel.config", IMPACT_WEAK, "%s", c->config_source);
	v = c->config ? env_config_value(c->config, "CONFIG_HZ") : NULL;
	env_set(c->env, "kernel.hz", IMPACT_MEDIUM, "%s",
		v	    ? v
		: c->config ? "absent from config"
			    : "unknown (no kernel config)");
	free(v);
	for (i = 0; i < ARRAY_SIZE(config_keys); i++) {
		snprintf(key, sizeof(key), "kernel.config.%s", config_keys[i]);
		v = c->config ? env_config_value(c->config, config_keys[i]) : NULL;
		env_set(c->env, key, IMPACT_MEDIUM, "%s",
			v	    ? v
			: c->config ? "absent from config"
				    : "unknown (no kernel config)");
		free(v);
	}
}

void env_probe_kernel(struct env_ctx *c)
{
	struct utsname u;
	char *s, *lockdown;

	env_set(c->env, "kernel.release", IMPACT_STRONG, "%s",
		c->release ? c->release : "absent (no /proc/sys/kernel/osrelease)");
	env_set(c->env, "kernel.version", IMPACT_STRONG, "%s",
		c->version ? c->version : "absent (no /proc/sys/kernel/version)");
	env_file_key(c, "kernel.build", IMPACT_STRONG, "/proc/version");

	s = env_read_trim(c, "/proc/sys/kernel/arch");
	if (!s && env_live(c) && !uname(&u))
		s = xstrdup(u.machine);
	env_set(c->env, "kernel.arch", IMPACT_IDENTITY, "%s", s ? s : "unknown");
	free(s);

	env_set(c->env, "kernel.cmdline", IMPACT_WEAK, "%s",
		c->cmdline ? c->cmdline : "absent (no /proc/cmdline)");

	/* "none [integrity] confidentiality": the bracketed word is the mode. */
	lockdown = env_read_trim(c, "/sys/kernel/security/lockdown");
	if (lockdown) {
		char *open = strchr(lockdown, '['), *close = open ? strchr(open, ']') : NULL;

		if (close)
			*close = '\0';
		env_set(c->env, "kernel.lockdown", IMPACT_WEAK, "%s", close ? open + 1 : lockdown);
	} else {
		env_set(c->env, "kernel.lockdown", IMPACT_WEAK,
			"absent (no /sys/kernel/security/lockdown)");
	}
	free(lockdown);

	probe_preempt(c);
	probe_config(c);
}

/* ".sysctl_sched_base_slice : 1.400000" (milliseconds) from sched/debug, in ns. */
static int debug_base_slice_ns(const char *debug, unsigned long long *ns)
{
	const char *p = strstr(debug, ".sysctl_sched_base_slice");
	unsigned long long ms = 0, frac = 0;
	int nfrac = 0;

	if (!p || !(p = strchr(p, ':')))
		return -1;
	p++;
	while (*p == ' ')
		p++;
	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9')
		ms = ms * 10 + (unsigned long long)(*p++ - '0');
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9' && nfrac < 6; nfrac++)
			frac = frac * 10 + (unsigned long long)(*p++ - '0');
	for (; nfrac < 6; nfrac++)
		frac *= 10;
	*ns = ms * 1000000ULL + frac;
	return 0;
}

/* The fingerprint's words for a failed features_read(), as the errno mapping gives them. */
static const char *features_fail_value(enum features_fail f)
{
	switch (f) {
	case FEATURES_LOCKDOWN:
		return env_debugfs_reason(EPERM);
	case FEATURES_NOT_ROOT:
		return env_debugfs_reason(EACCES);
	case FEATURES_NO_DEBUGFS:
	case FEATURES_ABSENT:
		return env_debugfs_reason(ENOENT);
	default:
		return NULL;
	}
}

/*
 * sched.features: the live file (sys/features.c reads it), or why it cannot
 * be read. Under lockdown the state is still in sched/debug's bitmask, named
 * by the kernel's BTF: sched.features_debug carries that decoding so that two
 * locked-down machines can still be compared.
 */
static void probe_features(struct env_ctx *c)
{
	struct features *f = xcalloc(1, sizeof(*f));
	char line[FEATURES_LINE_MAX], why[512], btf[PATH_MAX];
	const char *words;

	if (!features_read(c->debugfs, f, why, sizeof(why))) {
		features_format(f, line, sizeof(line));
		env_set(c->env, "sched.features", IMPACT_STRONG, "%s", line);
	} else {
		words = features_fail_value(f->fail);
		if (words)
			env_set(c->env, "sched.features", IMPACT_STRONG, "%s", words);
		else
			env_set(c->env, "sched.features", IMPACT_STRONG, "unreadable: %s", why);
	}
	/* The running kernel's BTF, or the fake tree's. */
	env_path(c, "/sys/kernel/btf/vmlinux", btf, sizeof(btf));
	if (!features_read_debug(c->debugfs, btf, f, why, sizeof(why))) {
		features_format(f, line, sizeof(line));
		env_set(c->env, "sched.features_debug", IMPACT_STRONG, "%s", line);
	} else {
		words = features_fail_value(f->fail);
		env_set(c->env, "sched.features_debug", IMPACT_STRONG, "%s%s",
			words ? "" : "unavailable: ", words ? words : why);
	}
	free(f);
}

void env_probe_sched(struct env_ctx *c)
{
	char *v, *why, *why2, *debug;
	unsigned long long ns;
	int slice_errno;

	probe_features(c);

	v = debugfs_read(c, "sched/base_slice_ns", &why);
	slice_errno = errno;
	if (v) {
		env_set(c->env, "sched.base_slice_ns", IMPACT_MEDIUM, "%s", v);
	} else {
		debug = debugfs_read(c, "sched/debug", &why2);
		if (debug && !debug_base_slice_ns(debug, &ns))
			env_set(c->env, "sched.base_slice_ns", IMPACT_MEDIUM, "%llu", ns);
		else if (debug)
			env_set(c->env, "sched.base_slice_ns", IMPACT_MEDIUM,
				"absent (base_slice_ns %s; no .sysctl_sched_base_slice in "
				"sched/debug: kernel before EEVDF)",
				why);
		else /* the file's own reason, unless it is merely absent */
			env_set(c->env, "sched.base_slice_ns", IMPACT_MEDIUM, "%s",
				slice_errno == ENOENT ? why2 : why);
		free(debug);
		free(why2);
	}
	free(v);
	free(why);

	v = debugfs_read(c, "sched/migration_cost_ns", &why);
	env_set(c->env, "sched.migration_cost_ns", IMPACT_MEDIUM, "%s", v ? v : why);
	free(v);
	free(why);

	env_file_key(c, "sched.autogroup_enabled", IMPACT_MEDIUM,
		     "/proc/sys/kernel/sched_autogroup_enabled");
	/* "/autogroup-12 nice 0": the group's number changes every session; its nice matters. */
	v = env_read_trim(c, "/proc/self/autogroup");
	if (v) {
		char *nice = strstr(v, "nice ");

		env_set(c->env, "sched.autogroup_nice", IMPACT_MEDIUM, "%s", nice ? nice + 5 : v);
	} else {
		env_set(c->env, "sched.autogroup_nice", IMPACT_MEDIUM,
			"absent (no /proc/self/autogroup)");
	}
	free(v);
	env_file_key(c, "sched.schedstats", IMPACT_MEDIUM, "/proc/sys/kernel/sched_schedstats");
}
