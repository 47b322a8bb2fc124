/*
 * t-env.c: the environment fingerprint: every parser on its own (debugfs
 * errno mapping, command line, kernel config, preemption model, CPU lists,
 * per-CPU grouping, kernel flavour), env_collect() on the fake trees under
 * tests/fixtures/root-* (a Raspberry Pi 5 and an x86-64 server), on an empty
 * tree (everything absent, nothing fails) and on this machine, and the order
 * of env_diff().
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli/cli.h"
#include "store/store.h"
#include "sys/env.h"

static char fixture_dir[4096];

static const char *fixture(const char *name)
{
	const char *src = getenv("WAKEBENCH_SRC");

	snprintf(fixture_dir, sizeof(fixture_dir), "%s/tests/fixtures/%s", src ? src : ".", name);
	return fixture_dir;
}

static const struct env_entry *entry(const struct env *env, const char *key)
{
	size_t i;

	for (i = 0; i < env->n; i++)
		if (!strcmp(env->e[i].key, key))
			return &env->e[i];
	fail_msg("key '%s' missing from the fingerprint", key);
	return NULL;
}

static void assert_key(const struct env *env, const char *key, const char *value,
		       enum impact impact)
{
	const struct env_entry *e = entry(env, key);

	if (strcmp(e->value, value))
		fail_msg("%s: got '%s', want '%s'", key, e->value, value);
	assert_int_equal(e->impact, impact);
}

static void assert_key_prefix(const struct env *env, const char *key, const char *prefix)
{
	const struct env_entry *e = entry(env, key);

	if (strncmp(e->value, prefix, strlen(prefix)))
		fail_msg("%s: got '%s', want it to start with '%s'", key, e->value, prefix);
}

static void test_debugfs_reason(void **state)
{
	(void)state;
	assert_string_equal(env_debugfs_reason(EPERM), "unreadable: kernel lockdown (EPERM)");
	assert_string_equal(env_debugfs_reason(EACCES), "unreadable: not permitted (not root)");
	assert_string_equal(env_debugfs_reason(ENOENT),
			    "absent (debugfs not mounted, or kernel before 6.15 without "
			    "CONFIG_SCHED_DEBUG)");
	assert_null(env_debugfs_reason(EIO));
}

static void test_cmdline_param(void **state)
{
	const char *cl = "BOOT_IMAGE=/vmlinuz root=/dev/sda1 preempt=voluntary quiet "
			 "isolcpus=domain,2-3 preempt=full dyndbg=\"file a.c +p\" -- preempt=none";
	char *v;

	(void)state;
	v = env_cmdline_param(cl, "preempt");
	assert_string_equal(v, "full"); /* the last before "--" wins */
	free(v);
	v = env_cmdline_param(cl, "isolcpus");
	assert_string_equal(v, "domain,2-3");
	free(v);
	v = env_cmdline_param(cl, "dyndbg");
	assert_string_equal(v, "\"file a.c +p\"");
	free(v);
	assert_null(env_cmdline_param(cl, "nohz_full"));
	assert_null(env_cmdline_param(cl, "quie"));
	assert_null(env_cmdline_param("", "preempt"));
	v = env_cmdline_param("mitigations=off\n", "mitigations");
	assert_string_equal(v, "off");
	free(v);
}

static void test_config_value(void **state)
{
	const char *cfg = "#\n# Linux/x86 6.12 Kernel Configuration\n#\nCONFIG_PREEMPT_BUILD=y\n"
			  "# CONFIG_PREEMPT_NONE is not set\nCONFIG_PREEMPT_VOLUNTARY=y\n"
			  "# CONFIG_PREEMPT is not set\nCONFIG_HZ_250=y\nCONFIG_HZ=250\n"
			  "CONFIG_LOCALVERSION=\"-v8\"\nCONFIG_KVM=m";
	char *v;

	(void)state;
	v = env_config_value(cfg, "CONFIG_HZ");
	assert_string_equal(v, "250");
	free(v);
	v = env_config_value(cfg, "CONFIG_PREEMPT");
	assert_string_equal(v, "not set");
	free(v);
	v = env_config_value(cfg, "CONFIG_PREEMPT_VOLUNTARY");
	assert_string_equal(v, "y");
	free(v);
	v = env_config_value(cfg, "CONFIG_LOCALVERSION");
	assert_string_equal(v, "\"-v8\"");
	free(v);
	v = env_config_value(cfg, "CONFIG_KVM"); /* last line without newline */
	assert_string_equal(v, "m");
	free(v);
	assert_null(env_config_value(cfg, "CONFIG_PREEMPT_RT"));
	assert_null(env_config_value(cfg, "CONFIG_H"));
}

static void derive(const struct preempt_sources *src, const char *model, const char *source)
{
	char m[128], s[128];

	env_preempt_derive(src, m, sizeof(m), s, sizeof(s));
	assert_string_equal(m, model);
	assert_string_equal(s, source);
}

static void test_preempt_derive(void **state)
{
	const char *dyn_voluntary = "CONFIG_PREEMPT_VOLUNTARY=y\nCONFIG_PREEMPT_DYNAMIC=y\n";
	const char *rt = "CONFIG_PREEMPT=y\nCONFIG_PREEMPT_RT=y\n";
	const char *lazy = "# CONFIG_PREEMPT is not set\nCONFIG_PREEMPT_LAZY=y\n";

	(void)state;
	/* The live debugfs file wins over everything. */
	derive(&(struct preempt_sources){ .version = "#1 SMP PREEMPT_DYNAMIC",
					  .debugfs = "none voluntary full (lazy)",
					  .cmdline = "full",
					  .config = dyn_voluntary },
	       "lazy", "debugfs sched/preempt");
	/* preempt= counts only on a dynamic kernel. */
	derive(&(struct preempt_sources){ .version = "#1 SMP PREEMPT_DYNAMIC",
					  .cmdline = "full",
					  .config = dyn_voluntary },
	       "full", "kernel command line preempt=");
	derive(&(struct preempt_sources){ .version = "#1 SMP PREEMPT_DYNAMIC",
					  .config = dyn_voluntary },
	       "voluntary",
	       "kernel config CONFIG_PREEMPT_VOLUNTARY (boot default of PREEMPT_DYNAMIC)");
	derive(&(struct preempt_sources){ .version = "#1 SMP PREEMPT",
					  .cmdline = "none",
					  .config = "CONFIG_PREEMPT=y\n" },
	       "full", "kernel config CONFIG_PREEMPT");
	derive(&(struct preempt_sources){ .version = "#1 SMP PREEMPT_RT", .cmdline = "none" }, "rt",
	       "uname -v PREEMPT_RT");
	derive(&(struct preempt_sources){ .version = "#1 SMP", .config = rt }, "rt",
	       "kernel config CONFIG_PREEMPT_RT");
	derive(&(struct preempt_sources){ .version = "#1 SMP", .config = lazy }, "lazy",
	       "kernel config CONFIG_PREEMPT_LAZY");
	/* Without config or debugfs, only the version string is left. */
	derive(&(struct preempt_sources){ .version = "#1 SMP PREEMPT Debian 1:6.12.25-1+rpt1" },
	       "full", "uname -v");
	derive(&(struct preempt_sources){ .version = "#1 SMP PREEMPT_DYNAMIC Debian" },
	       "dynamic (current mode unknown)", "uname -v");
	derive(&(struct preempt_sources){ .version = "#1 SMP Debian 6.1.119-1" },
	       "none or voluntary", "uname -v");
	/* A word that merely starts with PREEMPT is not the flag. */
	derive(&(struct preempt_sources){ .version = "#1 SMP PREEMPTIBLE" }, "none or voluntary",
	       "uname -v");
	derive(&(struct preempt_sources){ 0 }, "unknown", "uname -v");
}

static void test_cpulist(void **state)
{
	uint8_t bits[4] = { 0 };
	char buf[64];

	(void)state;
	env_format_cpulist(bits, 32, buf, sizeof(buf));
	assert_string_equal(buf, "none");
	bits[0] = 0x0f; /* 0-3 */
	bits[1] = 0x05; /* 8,10 */
	bits[3] = 0x80; /* 31 */
	env_format_cpulist(bits, 32, buf, sizeof(buf));
	assert_string_equal(buf, "0-3,8,10,31");
}

static void test_group_by_cpu(void **state)
{
	const char *same[] = { "performance", "performance", "performance", "performance" };
	const char *mixed[] = { "ondemand", "performance", NULL,
				"ondemand", "performance", "ondemand" };
	const char *none[] = { NULL, NULL };
	char *s;

	(void)state;
	s = env_group_by_cpu(same, 4);
	assert_string_equal(s, "performance (cpus 0-3)");
	free(s);
	s = env_group_by_cpu(mixed, 6);
	assert_string_equal(s, "ondemand (cpus 0,3,5); performance (cpus 1,4)");
	free(s);
	s = env_group_by_cpu(mixed + 1, 1);
	assert_string_equal(s, "performance (cpu 0)");
	free(s);
	assert_null(env_group_by_cpu(none, 2));
}

static void test_flavour(void **state)
{
	static const char *const cases[][2] = {
		{ "6.12.25+rpt-rpi-2712", "rpi-2712" },
		{ "6.12.25+rpt-rpi-v8", "v8" },
		{ "6.1.0-28-amd64", "amd64" },
		{ "6.6.78-v8-16k+", "16k+" },
		{ "6.18.0", "none" },
		{ "6.12.57+deb13-arm64", "arm64" },
	};
	char buf[64];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		env_kernel_flavour(cases[i][0], buf, sizeof(buf));
		assert_string_equal(buf, cases[i][1]);
	}
}

static void test_throttled(void **state)
{
	char buf[256];

	(void)state;
	env_throttled_describe(0, buf, sizeof(buf));
	assert_string_equal(buf, "0x0 (none)");
	env_throttled_describe(0x50005, buf, sizeof(buf));
	assert_string_equal(buf, "0x50005 (under-voltage now, throttled now, under-voltage "
				 "occurred, throttled occurred)");
	env_throttled_describe(0x80008, buf, sizeof(buf));
	assert_string_equal(buf, "0x80008 (soft temperature limit now, soft temperature limit "
				 "occurred)");
}

static void test_collect_pi5(void **state)
{
	char root[4096];
	struct env_opts o = { .root = root, .debugfs = "/nonexistent/debugfs" };
	struct env env = { 0 };

	(void)state;
	snprintf(root, sizeof(root), "%s", fixture("root-pi5"));
	assert_int_equal(env_collect(&env, &o), 0);
	assert_key(&env, "kernel.release", "6.12.25+rpt-rpi-2712", IMPACT_STRONG);
	assert_key(&env, "kernel.version", "#1 SMP PREEMPT Debian 1:6.12.25-1+rpt1 (2025-04-30)",
		   IMPACT_STRONG);
	assert_key(&env, "kernel.preempt", "full", IMPACT_STRONG);
	assert_key(&env, "kernel.preempt.source", "kernel config CONFIG_PREEMPT", IMPACT_WEAK);
	assert_key(&env, "kernel.preempt.uname", "PREEMPT", IMPACT_MEDIUM);
	assert_key(&env, "kernel.preempt.cmdline", "absent", IMPACT_MEDIUM);
	assert_key(&env, "kernel.preempt.debugfs",
		   "absent (debugfs not mounted, or kernel without PREEMPT_DYNAMIC)",
		   IMPACT_MEDIUM);
	assert_key(&env, "sched.features", env_debugfs_reason(ENOENT), IMPACT_STRONG);
	assert_key(&env, "kernel.config", "/boot/config-6.12.25+rpt-rpi-2712", IMPACT_WEAK);
	assert_key(&env, "kernel.hz", "250", IMPACT_MEDIUM);
	assert_key(&env, "kernel.config.CONFIG_SCHED_DEBUG", "not set", IMPACT_MEDIUM);
	assert_key(&env, "kernel.config.CONFIG_PREEMPT_DYNAMIC", "not set", IMPACT_MEDIUM);
	assert_key(&env, "kernel.config.CONFIG_PREEMPT_LAZY", "absent from config", IMPACT_MEDIUM);
	assert_key(&env, "cpu.governor", "ondemand (cpus 0-3)", IMPACT_STRONG);
	assert_key(&env, "cpu.max_freq", "3000000 kHz (cpus 0-3)", IMPACT_STRONG);
	assert_key(&env, "cpu.hw_max_freq", "3000000 kHz (cpus 0-3)", IMPACT_STRONG);
	assert_key(&env, "cpu.cur_freq", "2800000 kHz (cpus 0-3)", IMPACT_RUN);
	assert_key(&env, "cpu.freq_driver", "cpufreq-dt (cpus 0-3)", IMPACT_MEDIUM);
	assert_key(&env, "cpu.boost", "absent (no boost control)", IMPACT_STRONG);
	assert_key(&env, "cpu.online", "0-3", IMPACT_MEDIUM);
	assert_key(&env, "cpu.allowed", "0-3", IMPACT_MEDIUM);
	assert_key(&env, "cpu.smt", "absent (no /sys/devices/system/cpu/smt)", IMPACT_MEDIUM);
	assert_key(&env, "cpu.idle_driver", "psci_idle", IMPACT_MEDIUM);
	assert_key(&env, "cpu.idle_governor", "menu", IMPACT_MEDIUM);
	assert_key(&env, "thermal.cpu-thermal", "61.8 C", IMPACT_RUN);
	assert_key(&env, "cpu.throttled", "0x50000 (under-voltage occurred, throttled occurred)",
		   IMPACT_RUN);
	assert_key(&env, "mitigations.spectre_v2", "Mitigation: CSV2, BHB", IMPACT_MEDIUM);
	assert_key(&env, "mitigations.cmdline", "absent (default auto)", IMPACT_MEDIUM);
	assert_key(&env, "mem.page_size", "16 KiB (kernel flavour rpi-2712)", IMPACT_WEAK);
	assert_key(&env, "cgroup.path", "/user.slice/user-1000.slice/session-3.scope", IMPACT_WEAK);
	assert_key(&env, "cgroup.cpu.max", "max 100000", IMPACT_MEDIUM);
	assert_key(&env, "cgroup.cpu.weight", "100", IMPACT_MEDIUM);
	assert_key(&env, "sched.autogroup_enabled", "1", IMPACT_MEDIUM);
	assert_key(&env, "sched.autogroup_nice", "0", IMPACT_MEDIUM);
	assert_key(&env, "machine.model", "Raspberry Pi 5 Model B Rev 1.0", IMPACT_IDENTITY);
	assert_key(&env, "cpu.model", "ARM Cortex-A76", IMPACT_IDENTITY);
	assert_key(&env, "kernel.arch", "aarch64", IMPACT_IDENTITY);
	assert_key(&env, "host.name", "raspberrypi", IMPACT_IDENTITY);
	assert_key(&env, "run.loadavg", "0.31 0.12 0.04", IMPACT_RUN);
	assert_key(&env, "run.cpu_pressure", "some avg10=0.00 avg60=0.02 avg300=0.00", IMPACT_RUN);
	assert_key(&env, "wakebench.version", WAKEBENCH_VERSION, IMPACT_MEDIUM);
	env_release(&env);
}

static void test_collect_x86(void **state)
{
	char root[4096], debugfs[4200];
	struct env_opts o = { .root = root, .debugfs = debugfs };
	struct env env = { 0 };
	const char *features;

	(void)state;
	snprintf(root, sizeof(root), "%s", fixture("root-x86"));
	snprintf(debugfs, sizeof(debugfs), "%s/sys/kernel/debug", root);
	assert_int_equal(env_collect(&env, &o), 0);
	assert_key(&env, "kernel.release", "6.12.57+deb13-amd64", IMPACT_STRONG);
	assert_key(&env, "kernel.preempt", "full", IMPACT_STRONG);
	assert_key(&env, "kernel.preempt.source", "debugfs sched/preempt", IMPACT_WEAK);
	assert_key(&env, "kernel.preempt.debugfs", "none voluntary (full)", IMPACT_MEDIUM);
	assert_key(&env, "kernel.preempt.cmdline", "full", IMPACT_MEDIUM);
	assert_key(&env, "kernel.preempt.uname", "PREEMPT_DYNAMIC", IMPACT_MEDIUM);
	features = env_get(&env, "sched.features");
	assert_non_null(strstr(features, "PLACE_LAG "));
	assert_non_null(strstr(features, " DELAY_DEQUEUE "));
	assert_key(&env, "sched.base_slice_ns", "3000000", IMPACT_MEDIUM);
	/* No sched/debug in this tree: the read-only fallback says so. */
	assert_key(&env, "sched.features_debug", env_debugfs_reason(ENOENT), IMPACT_STRONG);
	assert_key(&env, "sched.migration_cost_ns", "500000", IMPACT_MEDIUM);
	assert_key(&env, "kernel.config.CONFIG_PREEMPT_VOLUNTARY", "y", IMPACT_MEDIUM);
	assert_key(&env, "kernel.config.CONFIG_NO_HZ_FULL", "y", IMPACT_MEDIUM);
	assert_key(&env, "cpu.governor", "performance (cpus 0-5); powersave (cpus 6-7)",
		   IMPACT_STRONG);
	assert_key(&env, "cpu.boost", "on (intel_pstate no_turbo=0)", IMPACT_STRONG);
	assert_key(&env, "cpu.smt", "active (control on)", IMPACT_MEDIUM);
	assert_key(&env, "cpu.isolcpus", "6,7", IMPACT_MEDIUM);
	assert_key(&env, "cpu.nohz_full", "6,7", IMPACT_MEDIUM);
	assert_key(&env, "cpu.allowed", "0-5", IMPACT_MEDIUM);
	assert_key_prefix(&env, "cpu.cur_freq", "4600000 kHz (cpu 0); 4601234 kHz (cpu 1); ");
	assert_key(&env, "mitigations.cmdline", "off", IMPACT_MEDIUM);
	assert_key(&env, "mitigations.spec_store_bypass", "Vulnerable", IMPACT_MEDIUM);
	assert_key(&env, "thermal.acpitz", "27.8 C", IMPACT_RUN);
	assert_key(&env, "cpu.throttled", "absent (no Raspberry Pi firmware get_throttled)",
		   IMPACT_RUN);
	assert_key(&env, "thermal.x86_pkg_temp", "45.0 C", IMPACT_RUN);
	assert_key(&env, "thermal.acpitz.thermal_zone2", "29.8 C", IMPACT_RUN);
	assert_key(&env, "mem.page_size", "4 KiB (kernel flavour amd64)", IMPACT_WEAK);
	assert_key(
		&env, "cgroup.cpu.max",
		"absent (cpu controller not enabled for /user.slice/user-0.slice/session-1.scope)",
		IMPACT_MEDIUM);
	assert_key(&env, "machine.model", "Dell Inc. PowerEdge R350", IMPACT_IDENTITY);
	assert_key(&env, "cpu.model", "Intel(R) Xeon(R) E-2334 CPU @ 3.40GHz", IMPACT_IDENTITY);
	env_release(&env);
}

/* A tree with nothing in it: every key is there, saying absent. */
static void test_collect_empty(void **state)
{
	char root[] = "/tmp/wakebench-t-env.XXXXXX";
	struct env_opts o = { .root = root, .debugfs = root };
	struct env env = { 0 };
	size_t i;

	(void)state;
	assert_non_null(mkdtemp(root));
	assert_int_equal(env_collect(&env, &o), 0);
	assert_key(&env, "kernel.release", "absent (no /proc/sys/kernel/osrelease)", IMPACT_STRONG);
	assert_key(&env, "kernel.preempt", "unknown", IMPACT_STRONG);
	assert_key(&env, "sched.features", env_debugfs_reason(ENOENT), IMPACT_STRONG);
	assert_key(&env, "kernel.hz", "unknown (no kernel config)", IMPACT_MEDIUM);
	assert_key(&env, "sched.base_slice_ns", env_debugfs_reason(ENOENT), IMPACT_MEDIUM);
	assert_key(&env, "cpu.governor", "absent (no cpufreq)", IMPACT_STRONG);
	assert_key(&env, "cpu.online", "absent (no /sys/devices/system/cpu/online)", IMPACT_MEDIUM);
	assert_key(&env, "thermal", "absent (no thermal zones)", IMPACT_RUN);
	assert_key(&env, "mitigations", "absent (no /sys/devices/system/cpu/vulnerabilities)",
		   IMPACT_MEDIUM);
	assert_key(&env, "cgroup.path", "absent (no /proc/self/cgroup)", IMPACT_WEAK);
	assert_key_prefix(&env, "mem.page_size", "unknown");
	assert_key_prefix(&env, "machine.model", "unknown");
	assert_key_prefix(&env, "run.cpu_pressure", "absent");
	for (i = 0; i < env.n; i++)
		assert_true(strlen(env.e[i].value) > 0);
	env_release(&env);
	rmdir(root);
}

/* A config only in /proc/config.gz is read through decompression. */
static void test_collect_config_gz(void **state)
{
	char root[] = "/tmp/wakebench-t-env.XXXXXX", cmd[512];
	struct env_opts o = { .root = root, .debugfs = root };
	struct env env = { 0 };

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/proc && printf 'CONFIG_HZ_1000=y\\nCONFIG_HZ=1000\\n"
		 "CONFIG_PREEMPT_LAZY=y\\n' | gzip -c > %s/proc/config.gz",
		 root, root);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(env_collect(&env, &o), 0);
	assert_key(&env, "kernel.config", "/proc/config.gz", IMPACT_WEAK);
	assert_key(&env, "kernel.hz", "1000", IMPACT_MEDIUM);
	assert_key(&env, "kernel.preempt", "lazy", IMPACT_STRONG);
	assert_key(&env, "kernel.config.CONFIG_PREEMPT_RT", "absent from config", IMPACT_MEDIUM);
	env_release(&env);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

/* Without base_slice_ns (lockdown), the base slice comes from sched/debug (in ms). */
static void test_base_slice_from_debug(void **state)
{
	char dir[] = "/tmp/wakebench-t-env.XXXXXX", cmd[8192];
	struct env_opts o = { .root = dir, .debugfs = dir };
	struct env env = { 0 };

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "mkdir %s/sched && cp %s %s/sched/debug", dir,
		 fixture("sched-debug-6.18.txt"), dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(env_collect(&env, &o), 0);
	assert_key(&env, "sched.base_slice_ns", "1400000", IMPACT_MEDIUM);
	env_release(&env);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* On this machine, uname's answers come back through /proc/sys/kernel. */
static void test_collect_live(void **state)
{
	struct env_opts o = { .root = "/", .debugfs = "/sys/kernel/debug" };
	struct env env = { 0 };
	struct utsname u;
	char want[64];

	(void)state;
	assert_int_equal(uname(&u), 0);
	assert_int_equal(env_collect(&env, &o), 0);
	assert_key(&env, "kernel.release", u.release, IMPACT_STRONG);
	assert_key(&env, "kernel.version", u.version, IMPACT_STRONG);
	{
		/*
		 * Under user-mode emulation (qemu-user, make check-arm64) uname()
		 * is the emulated machine's, the kernel's own file the host's:
		 * kernel.arch follows the kernel.
		 */
		char arch[64];

		if (!read_line_file("/proc/sys/kernel/arch", arch, sizeof(arch)) &&
		    strcmp(arch, u.machine)) {
			print_message("# uname says %s, the kernel %s: user-mode emulation\n",
				      u.machine, arch);
			assert_key(&env, "kernel.arch", arch, IMPACT_IDENTITY);
		} else {
			assert_key(&env, "kernel.arch", u.machine, IMPACT_IDENTITY);
		}
	}
	snprintf(want, sizeof(want), "%ld KiB", sysconf(_SC_PAGESIZE) / 1024);
	assert_key_prefix(&env, "mem.page_size", want);
	env_release(&env);
}

static void test_set_get(void **state)
{
	struct env env = { 0 };

	(void)state;
	env_set(&env, "a", IMPACT_WEAK, "%d", 1);
	env_set(&env, "b", IMPACT_STRONG, "two\nlines\n");
	env_set(&env, "a", IMPACT_MEDIUM, "%s", "replaced");
	assert_int_equal(env.n, 2);
	assert_string_equal(env_get(&env, "a"), "replaced");
	assert_int_equal(env.e[0].impact, IMPACT_MEDIUM);
	assert_string_equal(env_get(&env, "b"), "two lines");
	assert_null(env_get(&env, "c"));
	env_release(&env);
	assert_int_equal(env.n, 0);

	assert_int_equal(env_impact_parse("strong"), IMPACT_STRONG);
	assert_int_equal(env_impact_parse("run"), IMPACT_RUN);
	assert_int_equal(env_impact_parse("bogus"), -1);
	assert_string_equal(env_impact_name(IMPACT_IDENTITY), "identity");
}

static void test_diff(void **state)
{
	struct env a = { 0 }, b = { 0 };
	struct env_delta *d;
	size_t n;

	(void)state;
	env_set(&a, "run.loadavg", IMPACT_RUN, "0.10 0.10 0.10");
	env_set(&a, "kernel.hz", IMPACT_MEDIUM, "250");
	env_set(&a, "kernel.release", IMPACT_STRONG, "6.6.78");
	env_set(&a, "same", IMPACT_STRONG, "x");
	env_set(&a, "cpu.governor", IMPACT_STRONG, "ondemand (cpus 0-3)");
	env_set(&a, "only.a", IMPACT_WEAK, "gone");
	env_set(&a, "machine.model", IMPACT_IDENTITY, "Raspberry Pi 5 Model B Rev 1.0");

	env_set(&b, "machine.model", IMPACT_IDENTITY, "Raspberry Pi 5 Model B Rev 1.1");
	env_set(&b, "cpu.governor", IMPACT_STRONG, "performance (cpus 0-3)");
	env_set(&b, "same", IMPACT_STRONG, "x");
	env_set(&b, "kernel.release", IMPACT_STRONG, "6.12.75");
	env_set(&b, "kernel.hz", IMPACT_MEDIUM, "250");
	env_set(&b, "run.loadavg", IMPACT_RUN, "2.00 1.00 0.50");
	env_set(&b, "only.b", IMPACT_MEDIUM, "new");

	n = env_diff(&a, &b, &d);
	assert_int_equal(n, 6);
	assert_string_equal(d[0].key, "cpu.governor");
	assert_string_equal(d[0].a, "ondemand (cpus 0-3)");
	assert_string_equal(d[0].b, "performance (cpus 0-3)");
	assert_string_equal(d[1].key, "kernel.release");
	assert_string_equal(d[2].key, "only.b");
	assert_null(d[2].a);
	assert_string_equal(d[2].b, "new");
	assert_int_equal(d[2].impact, IMPACT_MEDIUM);
	assert_string_equal(d[3].key, "only.a");
	assert_null(d[3].b);
	assert_string_equal(d[4].key, "machine.model");
	assert_string_equal(d[5].key, "run.loadavg");
	assert_int_equal(d[5].impact, IMPACT_RUN);
	free(d);

	n = env_diff(&a, &a, &d);
	assert_int_equal(n, 0);
	free(d);
	env_release(&a);
	env_release(&b);
}

/* Store one experiment whose start fingerprint is env; returns its id. */
static int64_t store_experiment(struct store *st, const struct env *env, const char *label)
{
	struct experiment_info info = {
		.kind = "run",
		.workload = "pipe",
		.profile = "stress-ng-0.15",
		.params_json = "{}",
		.cmdline = "wakebench run pipe",
		.version = WAKEBENCH_VERSION,
		.label = label,
		.host = "raspberrypi",
		.kernel = env_get(env, "kernel.release"),
		.started_ns = 1764460800000000000ULL,
	};
	int64_t id;

	assert_int_equal(store_begin_experiment(st, &info, &id), 0);
	assert_int_equal(store_add_env(st, id, "start", env), 0);
	assert_int_equal(store_end_experiment(st, id, "complete"), 0);
	return id;
}

/* Run `wakebench env ARGS` in-process, as main.c's table runs it; its stdout into *out. */
static int run_env_cmd(const char *db, const char **args, int nargs, char **out)
{
	char path[] = "/tmp/wakebench-t-env-out.XXXXXX";
	struct ctx ctx = { .db_path = db,
			   .debugfs = "/sys/kernel/debug",
			   .root = "/",
			   .cmd_flags = CMD_READS_STORE };
	int fd = mkstemp(path), saved, rc;

	assert_true(fd >= 0);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	dup2(fd, STDOUT_FILENO);
	rc = cmd_env(nargs, args, &ctx);
	if (ctx.store)
		store_close(ctx.store);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(fd);
	assert_int_equal(read_file(path, out, NULL), 0);
	unlink(path);
	return rc;
}

/* env --diff A B between two stored experiments, in text and JSON. */
static void test_diff_stored(void **state)
{
	char dir[] = "/tmp/wakebench-t-env.XXXXXX", db[256], ida[32], uuidb[16], *out;
	struct env_opts o = { .debugfs = "/nonexistent" };
	struct env a = { 0 }, b = { 0 };
	struct store *st;
	int64_t id_a, id_b;
	char root[4096];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(db, sizeof(db), "%s/results.db", dir);
	snprintf(root, sizeof(root), "%s", fixture("root-pi5"));
	o.root = root;
	assert_int_equal(env_collect(&a, &o), 0);
	assert_int_equal(env_collect(&b, &o), 0);
	env_set(&b, "cpu.governor", IMPACT_STRONG, "performance (cpus 0-3)");
	env_set(&b, "run.loadavg", IMPACT_RUN, "3.00 2.00 1.00");

	assert_int_equal(store_open(db, STORE_CREATE, &st), 0);
	id_a = store_experiment(st, &a, NULL);
	id_b = store_experiment(st, &b, "governor");
	{
		struct store_filter f = { .exp_id = id_b };
		struct store_experiment *e;
		size_t n;

		assert_int_equal(store_list_experiments(st, &f, &e, &n), 0);
		assert_int_equal(n, 1);
		snprintf(uuidb, sizeof(uuidb), "%.8s", e->uuid);
		store_experiments_free(e, n);
	}
	store_close(st);
	snprintf(ida, sizeof(ida), "%lld", (long long)id_a);

	{
		const char *args[] = { "--diff", ida, uuidb };

		assert_int_equal(run_env_cmd(db, args, 3, &out), 0);
		assert_non_null(strstr(out, "2 keys differ"));
		assert_non_null(strstr(out, "strong    cpu.governor\n"
					    "          A: ondemand (cpus 0-3)\n"
					    "          B: performance (cpus 0-3)\n"));
		/* run-class keys come last */
		assert_true(strstr(out, "run.loadavg") > strstr(out, "cpu.governor"));
		free(out);
	}
	{
		const char *args[] = { "--diff", ida, ida, "--format", "json" };

		assert_int_equal(run_env_cmd(db, args, 5, &out), 0);
		struct json_object *j = json_tokener_parse(out), *diffs, *ja;

		assert_non_null(j);
		assert_true(json_object_object_get_ex(j, "differences", &diffs));
		assert_int_equal(json_object_array_length(diffs), 0);
		assert_true(json_object_object_get_ex(j, "a", &ja));
		assert_true(json_object_object_get_ex(ja, "id", &ja));
		assert_int_equal(json_object_get_int64(ja), id_a);
		json_object_put(j);
		free(out);
	}
	{
		const char *args[] = { "--diff", ida, "424242" };

		assert_int_equal(run_env_cmd(db, args, 3, &out), EXIT_USAGE);
		free(out);
	}
	env_release(&a);
	env_release(&b);
	snprintf(root, sizeof(root), "rm -rf %s", dir);
	assert_int_equal(system(root), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debugfs_reason), cmocka_unit_test(test_cmdline_param),
		cmocka_unit_test(test_config_value),   cmocka_unit_test(test_preempt_derive),
		cmocka_unit_test(test_cpulist),	       cmocka_unit_test(test_group_by_cpu),
		cmocka_unit_test(test_flavour),	       cmocka_unit_test(test_throttled),
		cmocka_unit_test(test_collect_pi5),    cmocka_unit_test(test_collect_x86),
		cmocka_unit_test(test_collect_empty),  cmocka_unit_test(test_collect_config_gz),
		cmocka_unit_test(test_collect_live),   cmocka_unit_test(test_base_slice_from_debug),
		cmocka_unit_test(test_set_get),	       cmocka_unit_test(test_diff),
		cmocka_unit_test(test_diff_stored),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
