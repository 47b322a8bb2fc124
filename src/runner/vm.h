/*
 * vm.h: booting one kernel with qemu for `wakebench vm` and bringing home
 * what the guest sent.
 *
 * One boot is one qemu process in its own process group, with the console
 * (kernel messages, /init's chatter) in one file and the result channel
 * (framed records, vmchan.h) in another, both written by qemu. The host
 * waits for qemu to exit, for the per-boot deadline, or for a stop signal,
 * and kills the whole group in the last two cases; it also kills a guest
 * that floods either file. Afterwards the channel file is decoded; a boot
 * whose channel does not decode is a failed round with the reason, and the
 * console's last lines say why. The kernel runs with panic=-1 oops=panic:
 * a kernel that oopses (and may have wedged the workload) stops at once
 * instead of running into the deadline.
 */
#ifndef WAKEBENCH_VM_H
#define WAKEBENCH_VM_H

#include <stdint.h>
#include <stdio.h>

#include "runner/vmchan.h"
#include "sys/vmhost.h"

struct vm_boot {
	const struct vmhost_arch *arch;
	const char *qemu; /* path of the qemu binary */
	int kvm;	  /* 1: -accel kvm -cpu host; 0: -accel tcg -cpu max */
	unsigned cpus;
	uint64_t memory_bytes;
	const char *kernel;
	const char *initrd;
	const char *append; /* extra kernel arguments, may be NULL */
	uint64_t timeout_ns;
	const char *console_path, *chan_path; /* files qemu writes */
	const char *qemu_log_path;	      /* qemu's own stdout and stderr */
};

struct vm_outcome {
	int ok;		  /* the channel decoded: res is valid */
	int interrupted;  /* a stop signal ended the boot */
	char reason[512]; /* why not ok */
	uint64_t wall_ns; /* qemu start to exit */
	struct vmchan_result res;
};

/*
 * Boot once and wait. Returns 0 when qemu ran (out->ok says whether the
 * guest's results came home), -1 when qemu could not be started (already
 * reported). No qemu process is left when it returns.
 */
int vm_run(const struct vm_boot *b, struct vm_outcome *out);
void vm_outcome_release(struct vm_outcome *out);

/* The qemu argument vector for b (malloc'd array of malloc'd strings, NULL-terminated). */
char **vm_qemu_argv(const struct vm_boot *b);
void vm_argv_free(char **argv);

/* Print the last `lines` lines of a console log, each prefixed, to f. */
void vm_console_tail(const char *path, unsigned lines, const char *prefix, FILE *f);
/* The first kernel panic or fatal line in a console log, into buf; 0 if found. */
int vm_console_panic(const char *path, char *buf, size_t len);

/* First line of `qemu -version` ("QEMU emulator version 7.2.22 (...)"). */
int vm_qemu_version(const char *qemu, char *buf, size_t len);

/*
 * SIGINT, SIGTERM and SIGHUP set a flag; vm_run() stops its qemu within
 * about 100 ms. vm_stop_signal() is the first signal received, or 0.
 */
void vm_signals_install(void);
int vm_stop_signal(void);

#endif
