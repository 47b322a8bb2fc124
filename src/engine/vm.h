/*
 * vm.h: vm's engine (vm.c): the guest side (run a subcommand with a store
 * of its own, send its output, store and status home on the result
 * channel) and the host side (the guest's initramfs, qemu and its
 * accelerator, the rounds with their kernels alternating, each validated
 * and imported in one transaction with the keys the host attests).
 * `wakebench vm` checks its options and calls these.
 */
#ifndef WAKEBENCH_ENGINE_VM_H
#define WAKEBENCH_ENGINE_VM_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys/initramfs.h"
#include "sys/vmhost.h"
#include "util/opts.h"

enum accel_choice { ACCEL_AUTO = 0, ACCEL_KVM, ACCEL_TCG };
/* --accel's names, in the order of enum accel_choice, NULL-terminated (option choices) */
extern const char *const vm_accel_names[];

struct vm_params {
	struct strlist kernels;
	uint64_t rounds;
	uint64_t cpus;
	uint64_t memory_bytes;
	const char *append;
	uint64_t timeout_ns;
	int accel;
	const char *qemu;
	const char *guest; /* hidden: the guest side, started by /init */
	const char *emit_initramfs;
	bool keep_temp;
	const char *arch;	     /* guest architecture; NULL: from the first image */
	const char *guest_wakebench; /* a foreign guest's wakebench */
	const char *sysroot;	     /* a foreign guest's busybox and libraries */
};

struct kernel_info {
	const char *path;
	char abspath[PATH_MAX];
	char sha256[65];
};

/* The guest side, started by the guest's /init: `vm --guest ARGS`. Returns the exit status. */
int vm_guest_main(const char *args_path);
/* Whether a guest may run subcommand name: 1 it stores (gets --db), 0 it does not, -1 not allowed.
 */
int vm_guest_command_stores(const char *name);
/* The subcommands a guest runs, "run|ab|env|features|list", into buf. */
const char *vm_guest_commands(char *buf, size_t len);
/* The guest's base archive for arch (cached under its SHA-256). -1 after saying why. */
int vm_guest_archive(struct initramfs *a, const struct vm_params *p, const struct vmhost_arch *arch,
		     char *cached, size_t len);
/*
 * The host side: qemu and the accelerator, the initrd with the subcommand
 * sub[0..nsub), every round booted and imported into the store at db (NULL:
 * none). Returns the exit status: the guest's own when every round worked.
 */
int vm_host_run(const struct vm_params *p, const struct vmhost_arch *arch,
		struct kernel_info *kernels, const char *db, const char *cmdline,
		const char *const *sub, size_t nsub);

#endif
