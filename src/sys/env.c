/*
 * env.c: env_collect(), the environment fingerprint read from the running
 * system. The probes live in env-kernel.c (kernel, preemption, config,
 * scheduler tunables) and env-machine.c (CPUs, frequency, thermal, cgroup,
 * mitigations, machine identity, run-time noise); env_collect() only calls
 * them in a fixed order so that a fingerprint always reads the same way. The
 * fingerprint as a data structure is core/env.c's.
 */
#include "sys/env.h"
#include "sys/env-probes.h"

int env_collect(struct env *env, const struct env_opts *o)
{
	struct env_opts def = { .root = "/", .debugfs = "/sys/kernel/debug" };
	struct env_ctx c;

	if (o) {
		if (o->root && *o->root)
			def.root = o->root;
		if (o->debugfs && *o->debugfs)
			def.debugfs = o->debugfs;
	}
	env_ctx_init(&c, env, &def);
	env_probe_kernel(&c);
	env_probe_sched(&c);
	env_probe_cpus(&c);
	env_probe_platform(&c);
	env_probe_cgroup(&c);
	env_probe_machine(&c);
	env_probe_run(&c);
	env_set(env, "wakebench.version", IMPACT_MEDIUM, "%s", WAKEBENCH_VERSION);
	env_ctx_release(&c);
	return 0;
}
