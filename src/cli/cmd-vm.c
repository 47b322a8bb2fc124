/*
 * cmd-vm.c: `wakebench vm`: boot other kernels with qemu, run a subcommand
 * inside each, and import the guests' experiments into the host store
 * (DESIGN section 10).
 *
 * It checks the input (kernel images by their header, --cpus against this
 * host, a subcommand after "--", --accel against the guest's architecture)
 * and calls the engine (engine/vm.c), which boots the rounds, imports them,
 * and is also the guest side (hidden `vm --guest ARGS`).
 */
#include "cli/cli.h"
#include "engine/vm.h"
#include "util/suggest.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct vm_params vm_defaults = {
	.rounds = 1,
	.cpus = 2,
	.memory_bytes = 1ull << 30,
	.timeout_ns = 600ull * 1000000000ull,
	.accel = ACCEL_AUTO,
};

static const struct opt vm_opts[] = {
	{ .type = OPT_STRLIST,
	  .long_name = "kernel",
	  .short_name = 'k',
	  .offset = offsetof(struct vm_params, kernels),
	  .argh = "IMAGE",
	  .help = "kernel image to boot (repeat for several; rounds alternate them)" },
	{ .type = OPT_UINT,
	  .long_name = "rounds",
	  .short_name = 'r',
	  .offset = offsetof(struct vm_params, rounds),
	  .argh = "N",
	  .help = "boots of each kernel",
	  .min = 1,
	  .max = 1000 },
	{ .type = OPT_UINT,
	  .long_name = "cpus",
	  .offset = offsetof(struct vm_params, cpus),
	  .argh = "N",
	  .help = "guest CPUs (at most this host's)",
	  .min = 1,
	  .max = 1024 },
	{ .type = OPT_SIZE,
	  .long_name = "memory",
	  .offset = offsetof(struct vm_params, memory_bytes),
	  .argh = "SIZE",
	  .help = "guest memory",
	  .min = 256.0 * 1024 * 1024,
	  .max = 1024.0 * 1024 * 1024 * 1024 },
	{ .type = OPT_STRING,
	  .long_name = "append",
	  .offset = offsetof(struct vm_params, append),
	  .argh = "ARGS",
	  .help = "extra kernel command-line arguments" },
	{ .type = OPT_DURATION,
	  .long_name = "timeout",
	  .offset = offsetof(struct vm_params, timeout_ns),
	  .argh = "DURATION",
	  .help = "deadline of one boot, from start to power-off",
	  .min = 1e9,
	  .max = 86400e9 },
	{ .type = OPT_CHOICE,
	  .long_name = "accel",
	  .offset = offsetof(struct vm_params, accel),
	  .argh = "ACCEL",
	  .help = "KVM when usable, else TCG (emulated)",
	  .choices = vm_accel_names },
	{ .type = OPT_STRING,
	  .long_name = "qemu",
	  .offset = offsetof(struct vm_params, qemu),
	  .argh = "PATH",
	  .help = "qemu binary (default qemu-system-<arch> from PATH)" },
	{ .type = OPT_STRING,
	  .long_name = "arch",
	  .offset = offsetof(struct vm_params, arch),
	  .argh = "ARCH",
	  .help = "guest architecture x86-64|arm64 (default: the first image's); another than "
		  "this host's is emulated" },
	{ .type = OPT_STRING,
	  .long_name = "guest-wakebench",
	  .offset = offsetof(struct vm_params, guest_wakebench),
	  .argh = "PATH",
	  .help = "wakebench for a foreign guest (default: build-aarch64/wakebench beside this "
		  "one)" },
	{ .type = OPT_STRING,
	  .long_name = "sysroot",
	  .offset = offsetof(struct vm_params, sysroot),
	  .argh = "DIR",
	  .help = "a foreign guest's busybox and libraries (default: scripts/arm64-sysroot.sh's)" },
	{ .type = OPT_FLAG,
	  .long_name = "keep-temp",
	  .offset = offsetof(struct vm_params, keep_temp),
	  .help = "keep the temporary directory (consoles, channels, initrd) for debugging" },
	{ .type = OPT_STRING,
	  .long_name = "emit-initramfs",
	  .offset = offsetof(struct vm_params, emit_initramfs),
	  .argh = "PATH",
	  .help = "write the guest's base initramfs (cpio newc) to PATH and exit (e.g. for a "
		  "LAVA job, doc/farms.md)" },
	{ .type = OPT_STRING,
	  .long_name = "guest",
	  .offset = offsetof(struct vm_params, guest),
	  .argh = "FILE",
	  .help = "run as the guest side",
	  .flags = OPT_HIDDEN },
	OPT_END_ROW,
};

static NORETURN void die_bad_arch(const char *arch)
{
	char hint[SUGGEST_HINT_MAX];

	die_usage("vm: option '--arch': invalid value '%s', allowed x86-64|arm64%s", arch,
		  suggest_hint_alternatives(arch, "x86-64|arm64", "", hint, sizeof(hint)));
}

static const struct vmhost_arch *guest_arch(const struct vm_params *p)
{
	const struct vmhost_arch *arch;
	char why[256];

	if (p->arch) {
		arch = vmhost_arch_named(p->arch);
		if (!arch)
			die_bad_arch(p->arch);
		return arch;
	}
	arch = vmhost_image_arch(p->kernels.v[0], why, sizeof(why));
	if (!arch)
		die_usage("vm: option '--kernel': '%s': %s", p->kernels.v[0], why);
	return arch;
}

static void usage_check(const struct vm_params *p, const struct opts_result *res,
			const struct vmhost_arch **arch_out, struct kernel_info **kernels_out)
{
	struct kernel_info *kernels;
	long host_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	const char *sub;
	size_t i;

	if (p->kernels.n == 0)
		die_usage("vm: option '--kernel' is required: give at least one kernel image");
	if (res->dashdash < 0 || (size_t)res->dashdash >= res->npos) {
		if (res->npos)
			die_usage("vm: put the subcommand after '--', e.g. 'wakebench vm --kernel "
				  "IMAGE -- run pipe'");
		die_usage("vm: no subcommand: give one after '--', e.g. 'wakebench vm --kernel "
			  "IMAGE -- run pipe -t 1s'");
	}
	if (res->dashdash > 0)
		die_usage("vm: unexpected argument '%s' before '--'", res->pos[0]);
	sub = res->pos[res->dashdash];
	if (vm_guest_command_stores(sub) < 0) {
		char list[128];

		char hint[SUGGEST_HINT_MAX];

		vm_guest_commands(list, sizeof(list));
		die_usage("vm: subcommand '%s' cannot run in the guest, allowed %s%s", sub, list,
			  suggest_hint_alternatives(sub, list, "", hint, sizeof(hint)));
	}
	for (i = (size_t)res->dashdash + 1; i < res->npos; i++)
		if (!strcmp(res->pos[i], "--db") || !strncmp(res->pos[i], "--db=", 5))
			die_usage("vm: option '--db' after '--' is not allowed: the guest's store "
				  "is vm's; give --db before '--' for the host store");
	if (host_cpus > 0 && p->cpus > (uint64_t)host_cpus)
		die_usage("vm: option '--cpus': value out of range: '%llu', allowed 1..%ld (this "
			  "host's CPUs)",
			  (unsigned long long)p->cpus, host_cpus);
	*arch_out = guest_arch(p);
	if (*arch_out != vmhost_arch() && p->accel == ACCEL_KVM)
		die_usage("vm: option '--accel kvm': an %s guest on this host can only be emulated "
			  "(tcg)",
			  (*arch_out)->name);
	kernels = xcalloc(p->kernels.n, sizeof(*kernels));
	for (i = 0; i < p->kernels.n; i++) {
		char why[256];

		kernels[i].path = p->kernels.v[i];
		if (vmhost_check_kernel_for(*arch_out, kernels[i].path, why, sizeof(why)))
			die_usage("vm: option '--kernel': '%s': %s", kernels[i].path, why);
		if (!realpath(kernels[i].path, kernels[i].abspath))
			snprintf(kernels[i].abspath, sizeof(kernels[i].abspath), "%s",
				 kernels[i].path);
	}
	*kernels_out = kernels;
}

/* --emit-initramfs FILE: the guest's base archive, written and nothing booted. */
static int emit_initramfs(const struct vm_params *p)
{
	const struct vmhost_arch *ea = p->arch ? vmhost_arch_named(p->arch) : vmhost_arch();
	struct initramfs base;
	char cached[PATH_MAX];
	int ret = EXIT_OK;

	if (!ea && p->arch)
		die_bad_arch(p->arch);
	if (!ea)
		die_skip("vm: qemu guests are not supported on this architecture");
	initramfs_init(&base);
	if (vm_guest_archive(&base, p, ea, cached, sizeof(cached))) {
		ret = EXIT_RUNTIME;
	} else if (write_file_atomic(p->emit_initramfs, base.buf, base.len)) {
		error_errno("vm: option '--emit-initramfs': cannot write '%s'", p->emit_initramfs);
		ret = EXIT_RUNTIME;
	}
	initramfs_release(&base);
	return ret;
}

int cmd_vm(int argc, const char **argv, struct ctx *ctx)
{
	struct vm_params p = vm_defaults;
	struct opt_group groups[2] = {
		{ .title = "vm options", .opts = vm_opts, .base = &p, .defaults = &vm_defaults },
		cli_common_group_for(ctx, COMMON_DB | COMMON_NO_STORE | COMMON_VERBOSITY, 0),
	};
	struct opts_result res;
	struct kernel_info *kernels = NULL;
	const struct vmhost_arch *arch;
	char *cmdline;
	int ret;

	cli_parse(
		"vm", "--kernel IMAGE [--kernel IMAGE ...] [options] -- SUBCOMMAND [ARGS...]",
		"Boot each kernel image with qemu, run the subcommand inside (with a store in\n"
		"the guest), and import the guest's experiments into this host's store. Rounds\n"
		"alternate the kernels. Without usable KVM the guest is emulated (TCG): absolute\n"
		"numbers are then emulated while the scheduler's decisions are real.",
		groups, ARRAY_SIZE(groups), argc, argv, 1, &res, ctx);
	if (p.guest || p.emit_initramfs) {
		ret = p.guest ? vm_guest_main(p.guest) : emit_initramfs(&p);
	} else {
		usage_check(&p, &res, &arch, &kernels);
		cmdline = cli_cmdline(ctx);
		ret = vm_host_run(&p, arch, kernels,
				  ctx->no_store ? NULL : cli_db_for_open(ctx, true), cmdline,
				  res.pos + res.dashdash, res.npos - (size_t)res.dashdash);
		free(cmdline);
		free(kernels);
	}
	opts_release(groups, ARRAY_SIZE(groups));
	opts_result_release(&res);
	return ret;
}
