/*
 * env-machine.c: the fingerprint keys that describe the machine the kernel
 * runs on and the moment of the run: CPUs (online, allowed, SMT, isolation),
 * frequency and governor per CPU (summarised by value: one key per fact, not
 * per CPU), boost, cpuidle, thermal zones, mitigations, page size, cgroup
 * placement and limits, machine and CPU model, and the noise indicators
 * (load average, CPU pressure) that change from run to run.
 *
 * Facts that change by the second (current frequency, temperatures, load)
 * have the run class: they explain a noisy result but never make two
 * experiments incomparable.
 */
#include "sys/env-probes.h"

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_CPUS 4096

void env_format_cpulist(const uint8_t *bitmap, size_t nbits, char *buf, size_t len)
{
	size_t used = 0, i = 0;

	buf[0] = '\0';
	while (i < nbits) {
		size_t lo;

		if (!(bitmap[i / 8] & (1u << (i % 8)))) {
			i++;
			continue;
		}
		lo = i;
		while (i + 1 < nbits && (bitmap[(i + 1) / 8] & (1u << ((i + 1) % 8))))
			i++;
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%zu", used ? "," : "",
						 lo);
		if (i > lo && used < len)
			used += (size_t)snprintf(buf + used, len - used, "-%zu", i);
		i++;
	}
	if (!used)
		snprintf(buf, len, "none");
}

char *env_group_by_cpu(const char *const *vals, size_t ncpus)
{
	uint8_t *done = xcalloc(ncpus + 1, 1), *bits = xcalloc(ncpus / 8 + 1, 1);
	char *out = NULL, list[1024];
	size_t i, j;

	for (i = 0; i < ncpus; i++) {
		char *prev = out;

		if (!vals[i] || done[i])
			continue;
		memset(bits, 0, ncpus / 8 + 1);
		for (j = i; j < ncpus; j++) {
			if (vals[j] && !strcmp(vals[j], vals[i])) {
				bits[j / 8] |= (uint8_t)(1u << (j % 8));
				done[j] = 1;
			}
		}
		env_format_cpulist(bits, ncpus, list, sizeof(list));
		out = xasprintf("%s%s%s (%s %s)", prev ? prev : "", prev ? "; " : "", vals[i],
				strpbrk(list, ",-") ? "cpus" : "cpu", list);
		free(prev);
	}
	free(done);
	free(bits);
	return out;
}

/* "cpu12" -> 12; -1 for anything else ("cpufreq", "cpuidle"). */
static long cpu_dir_index(const char *name)
{
	const char *p;

	if (strncmp(name, "cpu", 3) || !name[3])
		return -1;
	for (p = name + 3; *p; p++)
		if (*p < '0' || *p > '9')
			return -1;
	return strtol(name + 3, NULL, 10);
}

static size_t count_cpu_dirs(struct env_ctx *c)
{
	char path[PATH_MAX];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	env_path(c, "/sys/devices/system/cpu", path, sizeof(path));
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		long i = cpu_dir_index(de->d_name);

		if (i >= 0 && i < MAX_CPUS && (size_t)i + 1 > n)
			n = (size_t)i + 1;
	}
	closedir(d);
	return n;
}

/* One cpufreq attribute of every CPU, summarised into one key. */
static void per_cpu_key(struct env_ctx *c, size_t ncpus, const char *attr, const char *key,
			enum impact impact, const char *unit)
{
	char **vals = xcalloc(ncpus + 1, sizeof(*vals));
	char rel[128], *s;
	size_t i;

	for (i = 0; i < ncpus; i++) {
		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/cpu%zu/cpufreq/%s", i, attr);
		s = env_read_trim(c, rel);
		if (s && unit)
			vals[i] = xasprintf("%s %s", s, unit);
		else
			vals[i] = s ? xstrdup(s) : NULL;
		free(s);
	}
	s = env_group_by_cpu((const char *const *)vals, ncpus);
	env_set(c->env, key, impact, "%s", s ? s : "absent (no cpufreq)");
	free(s);
	for (i = 0; i < ncpus; i++)
		free(vals[i]);
	free(vals);
}

static void probe_allowed(struct env_ctx *c)
{
	char *status, *p;

	if (env_live(c)) {
		cpu_set_t *set = CPU_ALLOC(MAX_CPUS);
		size_t size = CPU_ALLOC_SIZE(MAX_CPUS), i;
		uint8_t bits[MAX_CPUS / 8] = { 0 };
		char list[1024];

		CPU_ZERO_S(size, set);
		if (!sched_getaffinity(0, size, set)) {
			for (i = 0; i < MAX_CPUS; i++)
				if (CPU_ISSET_S(i, size, set))
					bits[i / 8] |= (uint8_t)(1u << (i % 8));
			env_format_cpulist(bits, MAX_CPUS, list, sizeof(list));
			env_set(c->env, "cpu.allowed", IMPACT_MEDIUM, "%s", list);
		} else {
			env_set(c->env, "cpu.allowed", IMPACT_MEDIUM,
				"unknown (sched_getaffinity: %s)", strerror(errno));
		}
		CPU_FREE(set);
		return;
	}
	/* A fake tree describes its process in /proc/self/status. */
	if (env_read(c, "/proc/self/status", &status)) {
		env_set(c->env, "cpu.allowed", IMPACT_MEDIUM, "absent (no /proc/self/status)");
		return;
	}
	p = strstr(status, "Cpus_allowed_list:");
	if (p) {
		p += strlen("Cpus_allowed_list:");
		p += strspn(p, " \t");
		p[strcspn(p, "\n")] = '\0';
	}
	env_set(c->env, "cpu.allowed", IMPACT_MEDIUM, "%s",
		p ? p : "absent (no Cpus_allowed_list in /proc/self/status)");
	free(status);
}

static void cmdline_key(struct env_ctx *c, const char *param, const char *key, const char *none)
{
	char *v = c->cmdline ? env_cmdline_param(c->cmdline, param) : NULL;

	env_set(c->env, key, IMPACT_MEDIUM, "%s", v ? v : none);
	free(v);
}

void env_probe_cpus(struct env_ctx *c)
{
	size_t ncpus = count_cpu_dirs(c);
	char *active, *control, *boost;

	env_file_key(c, "cpu.online", IMPACT_MEDIUM, "/sys/devices/system/cpu/online");
	probe_allowed(c);
	active = env_read_trim(c, "/sys/devices/system/cpu/smt/active");
	control = env_read_trim(c, "/sys/devices/system/cpu/smt/control");
	if (active || control)
		env_set(c->env, "cpu.smt", IMPACT_MEDIUM, "%s (control %s)",
			!active		       ? "unknown"
			: !strcmp(active, "1") ? "active"
					       : "inactive",
			control ? control : "unknown");
	else
		env_set(c->env, "cpu.smt", IMPACT_MEDIUM,
			"absent (no /sys/devices/system/cpu/smt)");
	free(active);
	free(control);
	cmdline_key(c, "isolcpus", "cpu.isolcpus", "absent");
	cmdline_key(c, "nohz_full", "cpu.nohz_full", "absent");

	per_cpu_key(c, ncpus, "scaling_governor", "cpu.governor", IMPACT_STRONG, NULL);
	per_cpu_key(c, ncpus, "scaling_driver", "cpu.freq_driver", IMPACT_MEDIUM, NULL);
	per_cpu_key(c, ncpus, "scaling_min_freq", "cpu.min_freq", IMPACT_STRONG, "kHz");
	per_cpu_key(c, ncpus, "scaling_max_freq", "cpu.max_freq", IMPACT_STRONG, "kHz");
	per_cpu_key(c, ncpus, "cpuinfo_max_freq", "cpu.hw_max_freq", IMPACT_STRONG, "kHz");
	per_cpu_key(c, ncpus, "scaling_cur_freq", "cpu.cur_freq", IMPACT_RUN, "kHz");

	boost = env_read_trim(c, "/sys/devices/system/cpu/cpufreq/boost");
	if (boost) {
		env_set(c->env, "cpu.boost", IMPACT_STRONG, "%s",
			!strcmp(boost, "1")   ? "on"
			: !strcmp(boost, "0") ? "off"
					      : boost);
	} else {
		boost = env_read_trim(c, "/sys/devices/system/cpu/intel_pstate/no_turbo");
		if (boost)
			env_set(c->env, "cpu.boost", IMPACT_STRONG, "%s (intel_pstate no_turbo=%s)",
				!strcmp(boost, "1") ? "off" : "on", boost);
		else
			env_set(c->env, "cpu.boost", IMPACT_STRONG, "absent (no boost control)");
	}
	free(boost);

	env_file_key(c, "cpu.idle_driver", IMPACT_MEDIUM,
		     "/sys/devices/system/cpu/cpuidle/current_driver");
	env_file_key(c, "cpu.idle_governor", IMPACT_MEDIUM,
		     "/sys/devices/system/cpu/cpuidle/current_governor");
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the entries of a directory under root matching prefix. */
static size_t list_dir(struct env_ctx *c, const char *rel, const char *prefix, char ***out)
{
	char path[PATH_MAX], **names = NULL;
	size_t n = 0, alloc = 0;
	struct dirent *de;
	DIR *d;

	*out = NULL;
	env_path(c, rel, path, sizeof(path));
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		if (n == alloc)
			names = xrealloc(names, (alloc = alloc ? 2 * alloc : 32) * sizeof(*names));
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	*out = names;
	return n;
}

static void free_names(char **names, size_t n)
{
	while (n)
		free(names[--n]);
	free(names);
}

static int zone_cmp(const void *a, const void *b)
{
	long x = strtol(*(char *const *)a + strlen("thermal_zone"), NULL, 10);
	long y = strtol(*(char *const *)b + strlen("thermal_zone"), NULL, 10);

	return (x > y) - (x < y);
}

static void probe_thermal(struct env_ctx *c)
{
	char **zones, rel[PATH_MAX], key[256], *type, *temp;
	size_t n = list_dir(c, "/sys/class/thermal", "thermal_zone", &zones), i;

	if (n)
		qsort(zones, n, sizeof(*zones), zone_cmp);
	for (i = 0; i < n; i++) {
		snprintf(rel, sizeof(rel), "/sys/class/thermal/%s/type", zones[i]);
		type = env_read_trim(c, rel);
		snprintf(rel, sizeof(rel), "/sys/class/thermal/%s/temp", zones[i]);
		temp = env_read_trim(c, rel);
		snprintf(key, sizeof(key), "thermal.%s", type ? type : zones[i]);
		/* Two zones of one type (acpitz): name the second by its zone. */
		if (env_get(c->env, key))
			snprintf(key, sizeof(key), "thermal.%s.%s", type ? type : "zone", zones[i]);
		if (temp) {
			long mc = strtol(temp, NULL, 10);

			env_set(c->env, key, IMPACT_RUN, "%s%ld.%ld C", mc < 0 ? "-" : "",
				labs(mc) / 1000, labs(mc) % 1000 / 100);
		} else {
			env_set(c->env, key, IMPACT_RUN, "unreadable (%s)", strerror(errno));
		}
		free(type);
		free(temp);
	}
	if (!n)
		env_set(c->env, "thermal", IMPACT_RUN, "absent (no thermal zones)");
	free_names(zones, n);
}

static void probe_mitigations(struct env_ctx *c)
{
	const char *dir = "/sys/devices/system/cpu/vulnerabilities";
	char **names, rel[PATH_MAX], key[256];
	size_t n = list_dir(c, dir, "", &names), i;

	for (i = 0; i < n; i++) {
		snprintf(rel, sizeof(rel), "%s/%s", dir, names[i]);
		snprintf(key, sizeof(key), "mitigations.%s", names[i]);
		env_file_key(c, key, IMPACT_MEDIUM, rel);
	}
	if (!n)
		env_set(c->env, "mitigations", IMPACT_MEDIUM, "absent (no %s)", dir);
	free_names(names, n);
	cmdline_key(c, "mitigations", "mitigations.cmdline", "absent (default auto)");
}

/* "KernelPageSize:       16 kB" in a tree's /proc/self/smaps, in bytes. */
static long smaps_page_size(struct env_ctx *c)
{
	char *smaps, *p;
	long kb = -1;

	if (env_read(c, "/proc/self/smaps", &smaps))
		return -1;
	p = strstr(smaps, "KernelPageSize:");
	if (p)
		kb = strtol(p + strlen("KernelPageSize:"), NULL, 10);
	free(smaps);
	return kb > 0 ? kb * 1024 : -1;
}

static void probe_page_size(struct env_ctx *c)
{
	long bytes = env_live(c) ? sysconf(_SC_PAGESIZE) : smaps_page_size(c);
	char flavour[64];

	env_kernel_flavour(c->release ? c->release : "", flavour, sizeof(flavour));
	if (bytes <= 0)
		env_set(c->env, "mem.page_size", IMPACT_WEAK,
			"unknown (no KernelPageSize in /proc/self/smaps; kernel flavour %s)",
			flavour);
	else if (bytes % 1024 == 0)
		env_set(c->env, "mem.page_size", IMPACT_WEAK, "%ld KiB (kernel flavour %s)",
			bytes / 1024, flavour);
	else
		env_set(c->env, "mem.page_size", IMPACT_WEAK, "%ld bytes (kernel flavour %s)",
			bytes, flavour);
}

/*
 * The Raspberry Pi firmware's throttling bits ("50005" in hex): under-voltage,
 * frequency capped, throttled, soft temperature limit, now (bits 0-3) and
 * since boot (bits 16-19). The firmware node's name differs between boards
 * (soc:firmware, soc@107c000000:firmware), so look one level under each
 * platform device.
 */
static const struct {
	unsigned long bit;
	const char *what;
} throttle_bits[] = {
	{ 1ul << 0, "under-voltage now" },	 { 1ul << 1, "frequency capped now" },
	{ 1ul << 2, "throttled now" },		 { 1ul << 3, "soft temperature limit now" },
	{ 1ul << 16, "under-voltage occurred" }, { 1ul << 17, "frequency capped occurred" },
	{ 1ul << 18, "throttled occurred" },	 { 1ul << 19, "soft temperature limit occurred" },
};

void env_throttled_describe(unsigned long bits, char *buf, size_t len)
{
	size_t used, i;
	int first = 1;

	used = (size_t)snprintf(buf, len, "0x%lx (", bits);
	for (i = 0; i < ARRAY_SIZE(throttle_bits) && used < len; i++) {
		if (!(bits & throttle_bits[i].bit))
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", first ? "" : ", ",
					 throttle_bits[i].what);
		first = 0;
	}
	if (used < len)
		snprintf(buf + used, len - used, "%s)", first ? "none" : "");
}

static void probe_throttled(struct env_ctx *c)
{
	char **devs, **sub, rel[PATH_MAX], desc[256], *v = NULL;
	size_t n = list_dir(c, "/sys/devices/platform", "", &devs), i, j, m;

	for (i = 0; i < n && !v; i++) {
		snprintf(rel, sizeof(rel), "/sys/devices/platform/%s", devs[i]);
		m = list_dir(c, rel, "", &sub);
		for (j = 0; j < m && !v; j++) {
			size_t l = strlen(sub[j]);

			if (l < 8 || strcmp(sub[j] + l - 8, "firmware"))
				continue;
			snprintf(rel, sizeof(rel), "/sys/devices/platform/%s/%s/get_throttled",
				 devs[i], sub[j]);
			v = env_read_trim(c, rel);
		}
		free_names(sub, m);
	}
	free_names(devs, n);
	if (v) {
		env_throttled_describe(strtoul(v, NULL, 16), desc, sizeof(desc));
		env_set(c->env, "cpu.throttled", IMPACT_RUN, "%s", desc);
	} else {
		env_set(c->env, "cpu.throttled", IMPACT_RUN,
			"absent (no Raspberry Pi firmware get_throttled)");
	}
	free(v);
}

void env_probe_platform(struct env_ctx *c)
{
	probe_throttled(c);
	probe_thermal(c);
	probe_mitigations(c);
	probe_page_size(c);
}

/*
 * Where the cgroup hierarchy is mounted, from /proc/self/mountinfo:
 * "36 25 0:31 / /sys/fs/cgroup rw,... - cgroup2 cgroup2 rw" (v2), or a
 * "cgroup" mount whose super options name the cpu controller (v1).
 */
static char *cgroup_mount(struct env_ctx *c, int v2)
{
	char *mi, *line, *save = NULL, *found = NULL;

	if (env_read(c, "/proc/self/mountinfo", &mi))
		return NULL;
	for (line = strtok_r(mi, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
		char mnt[PATH_MAX], fstype[64], opts[512];
		const char *dash = strstr(line, " - ");
		char *o, *osave = NULL;

		if (!dash || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
		    sscanf(dash + 3, "%63s %*s %511s", fstype, opts) != 2)
			continue;
		if (v2 && !strcmp(fstype, "cgroup2")) {
			found = xstrdup(mnt);
			break;
		}
		if (v2 || strcmp(fstype, "cgroup"))
			continue;
		for (o = strtok_r(opts, ",", &osave); o; o = strtok_r(NULL, ",", &osave))
			if (!strcmp(o, "cpu"))
				found = xstrdup(mnt);
	}
	free(mi);
	return found;
}

/* The path of this process in the v2 hierarchy ("0::/x") or the v1 cpu one ("4:cpu,cpuacct:/x"). */
static char *cgroup_path(const char *cgroups, int v2)
{
	const char *line = cgroups;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[PATH_MAX], *ctrl, *path, *tok, *save = NULL;

		snprintf(buf, sizeof(buf), "%.*s", (int)len, line);
		line = nl ? nl + 1 : NULL;
		ctrl = strchr(buf, ':');
		path = ctrl ? strchr(ctrl + 1, ':') : NULL;
		if (!path)
			continue;
		*path++ = '\0';
		*ctrl++ = '\0';
		if (v2) {
			if (!strcmp(buf, "0") && !*ctrl)
				return xstrdup(path);
			continue;
		}
		for (tok = strtok_r(ctrl, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (!strcmp(tok, "cpu"))
				return xstrdup(path);
	}
	return NULL;
}

static void cgroup_v1(struct env_ctx *c, const char *mnt, const char *path)
{
	char rel[PATH_MAX], *quota, *period, *shares;

	snprintf(rel, sizeof(rel), "%s%s/cpu.cfs_quota_us", mnt, strcmp(path, "/") ? path : "");
	quota = env_read_trim(c, rel);
	snprintf(rel, sizeof(rel), "%s%s/cpu.cfs_period_us", mnt, strcmp(path, "/") ? path : "");
	period = env_read_trim(c, rel);
	snprintf(rel, sizeof(rel), "%s%s/cpu.shares", mnt, strcmp(path, "/") ? path : "");
	shares = env_read_trim(c, rel);
	if (quota && period)
		env_set(c->env, "cgroup.cpu.max", IMPACT_MEDIUM, "%s %s (cgroup v1)",
			quota[0] == '-' ? "max" : quota, period);
	else
		env_set(c->env, "cgroup.cpu.max", IMPACT_MEDIUM, "absent (no cpu.cfs_quota_us)");
	if (shares)
		env_set(c->env, "cgroup.cpu.weight", IMPACT_MEDIUM, "shares %s (cgroup v1)",
			shares);
	else
		env_set(c->env, "cgroup.cpu.weight", IMPACT_MEDIUM, "absent (no cpu.shares)");
	free(quota);
	free(period);
	free(shares);
}

static void cgroup_v2(struct env_ctx *c, const char *mnt, const char *path)
{
	static const char *const files[] = { "cpu.max", "cpu.weight" };
	char rel[PATH_MAX], key[64], *v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(key, sizeof(key), "cgroup.%s", files[i]);
		if (!mnt) {
			env_set(c->env, key, IMPACT_MEDIUM, "absent (no cgroup2 mount)");
			continue;
		}
		snprintf(rel, sizeof(rel), "%s%s/%s", mnt, strcmp(path, "/") ? path : "", files[i]);
		v = env_read_trim(c, rel);
		if (v)
			env_set(c->env, key, IMPACT_MEDIUM, "%s", v);
		else if (!strcmp(path, "/"))
			env_set(c->env, key, IMPACT_MEDIUM, "absent (root cgroup: no limit)");
		else
			env_set(c->env, key, IMPACT_MEDIUM,
				"absent (cpu controller not enabled for %s)", path);
		free(v);
	}
}

void env_probe_cgroup(struct env_ctx *c)
{
	char *cgroups, *v1path = NULL, *v2path = NULL, *mnt;

	if (env_read(c, "/proc/self/cgroup", &cgroups)) {
		env_set(c->env, "cgroup.path", IMPACT_WEAK, "absent (no /proc/self/cgroup)");
		env_set(c->env, "cgroup.cpu.max", IMPACT_MEDIUM, "absent (no /proc/self/cgroup)");
		env_set(c->env, "cgroup.cpu.weight", IMPACT_MEDIUM,
			"absent (no /proc/self/cgroup)");
		return;
	}
	v1path = cgroup_path(cgroups, 0);
	v2path = cgroup_path(cgroups, 1);
	free(cgroups);
	/* The cpu controller lives in one hierarchy: v1 when it is bound there. */
	mnt = v1path ? cgroup_mount(c, 0) : NULL;
	if (mnt) {
		env_set(c->env, "cgroup.path", IMPACT_WEAK, "%s (cgroup v1 cpu)", v1path);
		cgroup_v1(c, mnt, v1path);
	} else if (v2path) {
		free(mnt);
		mnt = cgroup_mount(c, 1);
		env_set(c->env, "cgroup.path", IMPACT_WEAK, "%s", v2path);
		cgroup_v2(c, mnt, v2path);
	} else {
		env_set(c->env, "cgroup.path", IMPACT_WEAK, "unknown (no cpu or v2 hierarchy)");
		env_set(c->env, "cgroup.cpu.max", IMPACT_MEDIUM, "unknown");
		env_set(c->env, "cgroup.cpu.weight", IMPACT_MEDIUM, "unknown");
	}
	free(mnt);
	free(v1path);
	free(v2path);
}

/* The value of the first "field<spaces>: value" line of /proc/cpuinfo. */
static char *cpuinfo_field(const char *cpuinfo, const char *field)
{
	size_t flen = strlen(field);
	const char *line = cpuinfo;

	while (line && *line) {
		const char *nl = strchr(line, '\n'), *p = line + flen;
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		if (len > flen && !strncmp(line, field, flen) &&
		    (*p == ' ' || *p == '\t' || *p == ':')) {
			p += strspn(p, " \t");
			if (*p == ':') {
				p++;
				p += strspn(p, " \t");
				return rtrim(xasprintf("%.*s", (int)(len - (size_t)(p - line)), p));
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/* Arm's MIDR part numbers of common cores (implementer 0x41). */
static const struct {
	unsigned part;
	const char *name;
} arm_parts[] = {
	{ 0xd03, "Cortex-A53" },  { 0xd04, "Cortex-A35" },  { 0xd05, "Cortex-A55" },
	{ 0xd07, "Cortex-A57" },  { 0xd08, "Cortex-A72" },  { 0xd09, "Cortex-A73" },
	{ 0xd0a, "Cortex-A75" },  { 0xd0b, "Cortex-A76" },  { 0xd0c, "Neoverse-N1" },
	{ 0xd0d, "Cortex-A77" },  { 0xd40, "Neoverse-V1" }, { 0xd41, "Cortex-A78" },
	{ 0xd44, "Cortex-X1" },	  { 0xd46, "Cortex-A510" }, { 0xd47, "Cortex-A710" },
	{ 0xd48, "Cortex-X2" },	  { 0xd49, "Neoverse-N2" }, { 0xd4f, "Neoverse-V2" },
	{ 0xd80, "Cortex-A520" }, { 0xd81, "Cortex-A720" }, { 0xd82, "Cortex-X4" },
};

static char *cpu_model(const char *cpuinfo)
{
	char *v = cpuinfo_field(cpuinfo, "model name"), *impl, *part;
	size_t i;

	if (v)
		return v;
	impl = cpuinfo_field(cpuinfo, "CPU implementer");
	part = cpuinfo_field(cpuinfo, "CPU part");
	if (impl && part) {
		unsigned long p = strtoul(part, NULL, 16);

		if (strtoul(impl, NULL, 16) == 0x41)
			for (i = 0; i < ARRAY_SIZE(arm_parts) && !v; i++)
				if (arm_parts[i].part == p)
					v = xasprintf("ARM %s", arm_parts[i].name);
		if (!v)
			v = xasprintf("implementer %s part %s", impl, part);
	}
	free(impl);
	free(part);
	if (!v)
		v = cpuinfo_field(cpuinfo, "Hardware");
	if (!v)
		v = cpuinfo_field(cpuinfo, "cpu model"); /* mips */
	if (!v)
		v = cpuinfo_field(cpuinfo, "cpu"); /* powerpc */
	return v;
}

void env_probe_machine(struct env_ctx *c)
{
	char *model = NULL, *cpuinfo = NULL, *v, *vendor, *product;

	if (env_read(c, "/proc/cpuinfo", &cpuinfo))
		cpuinfo = NULL;
	/* The device tree's model is NUL-terminated; read_file keeps it a C string. */
	if (!env_read(c, "/proc/device-tree/model", &model)) {
		rtrim(model);
		if (!*model) {
			free(model);
			model = NULL;
		}
	} else {
		model = NULL;
	}
	if (!model) {
		vendor = env_read_trim(c, "/sys/class/dmi/id/sys_vendor");
		product = env_read_trim(c, "/sys/class/dmi/id/product_name");
		if (product && vendor && *vendor && strncmp(product, vendor, strlen(vendor)))
			model = xasprintf("%s %s", vendor, product);
		else if (product)
			model = xstrdup(product);
		free(vendor);
		free(product);
	}
	if (!model && cpuinfo) {
		model = cpuinfo_field(cpuinfo, "Model");
		if (!model)
			model = cpuinfo_field(cpuinfo, "Hardware");
		if (!model)
			model = cpuinfo_field(cpuinfo, "model name");
	}
	env_set(c->env, "machine.model", IMPACT_IDENTITY, "%s",
		model ? model : "unknown (no device tree, DMI or cpuinfo model)");
	free(model);

	v = cpuinfo ? cpu_model(cpuinfo) : NULL;
	env_set(c->env, "cpu.model", IMPACT_IDENTITY, "%s",
		v	  ? v
		: cpuinfo ? "unknown (not in /proc/cpuinfo)"
			  : "absent (no /proc/cpuinfo)");
	free(v);
	free(cpuinfo);

	env_file_key(c, "host.name", IMPACT_IDENTITY, "/proc/sys/kernel/hostname");
}

void env_probe_run(struct env_ctx *c)
{
	char *v;
	double a1, a5, a15;
	unsigned runnable, all;

	v = env_read_trim(c, "/proc/loadavg");
	if (v && sscanf(v, "%lf %lf %lf", &a1, &a5, &a15) == 3)
		env_set(c->env, "run.loadavg", IMPACT_RUN, "%.2f %.2f %.2f", a1, a5, a15);
	else
		env_set(c->env, "run.loadavg", IMPACT_RUN, "absent (no /proc/loadavg)");
	/* the fourth field: the tasks runnable now (this one among them) of all */
	if (v && sscanf(v, "%*f %*f %*f %u/%u", &runnable, &all) == 2 && runnable)
		env_set(c->env, "run.runnable", IMPACT_RUN, "%u other tasks runnable (of %u)",
			runnable - 1, all);
	free(v);

	/* "some avg10=1.04 avg60=1.23 avg300=0.54 total=6105315": the averages. */
	v = env_read_trim(c, "/proc/pressure/cpu");
	if (v && !strncmp(v, "some ", 5)) {
		char *total = strstr(v, " total=");

		if (total)
			*total = '\0';
		total = strchr(v, '\n');
		if (total)
			*total = '\0';
		env_set(c->env, "run.cpu_pressure", IMPACT_RUN, "%s", v);
	} else {
		env_set(c->env, "run.cpu_pressure", IMPACT_RUN, "%s",
			v ? v : "absent (no /proc/pressure/cpu: kernel without PSI, or psi=0)");
	}
	free(v);
}
