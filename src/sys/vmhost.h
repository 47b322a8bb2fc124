/*
 * vmhost.h: what `wakebench vm` needs to know about this machine's
 * architecture: which qemu to run, the machine type, the guest's console
 * and the dedicated result-channel port, how to tell a kernel image of
 * this architecture from anything else, and whether KVM can run an
 * ordinary guest here. Everything architecture-specific about `vm` is
 * here; the rest of `vm` is portable.
 */
#ifndef WAKEBENCH_VMHOST_H
#define WAKEBENCH_VMHOST_H

#include <stddef.h>

struct vmhost_arch {
	const char *name;     /* "x86-64", "arm64" */
	const char *qemu;     /* binary name, looked up in PATH */
	const char *machine;  /* -machine value */
	const char *console;  /* the guest's console device for console= */
	const char *chan_dev; /* the guest's result-channel device */
	/*
	 * How the result channel is wired: 0 a second -serial port (x86: the
	 * ISA UART at ttyS1), 1 a PCI 16550 UART (-device pci-serial; arm64
	 * virt has one PL011 only, which is the console).
	 */
	int chan_pci_serial;
	/*
	 * -cpu under TCG: x86 "max"; arm64 "cortex-a76", the Raspberry Pi 5's
	 * core (4 KiB and 16 KiB granules, so both Debian arm64 flavours boot).
	 */
	const char *tcg_cpu;
	int elf_machine;	  /* EM_X86_64, EM_AARCH64: the guest's binaries */
	const char *qemu_package; /* Debian package of the qemu binary */
};

/* The description for this build's architecture, or NULL when `vm` does not support it. */
const struct vmhost_arch *vmhost_arch(void);

/* By name: "x86-64" (also x86_64, amd64) or "arm64" (also aarch64); NULL otherwise. */
const struct vmhost_arch *vmhost_arch_named(const char *name);

/*
 * The architecture of a kernel image, from its header; NULL with a reason
 * in why when it is none vm can boot (not a kernel, an EFI zboot image).
 */
const struct vmhost_arch *vmhost_image_arch(const char *path, char *why, size_t whylen);

/*
 * A foreign guest's files (arm64 on x86-64): its wakebench, busybox and the
 * sysroot its libraries come from. Given paths win; else the sysroot is
 * $WAKEBENCH_SYSROOT or ${XDG_CACHE_HOME:-~/.cache}/wakebench/sysroot-arm64
 * (scripts/arm64-sysroot.sh), busybox its bin/busybox, and wakebench the
 * cross-build beside this binary's (build-aarch64/wakebench next to build/
 * or to ./wakebench). 0, or -1 with the reason in why.
 */
struct vmhost_guest_files {
	char wakebench[4096];
	char busybox[4096];
	char sysroot[4000];
};
int vmhost_foreign_files(const struct vmhost_arch *arch, const char *self, const char *wakebench,
			 const char *sysroot, struct vmhost_guest_files *out, char *why,
			 size_t whylen);

/*
 * Is path a kernel image this architecture's qemu can boot with -kernel?
 * 0 if so; -1 with a reason in why (nothing printed).
 */
int vmhost_check_kernel(const char *path, char *why, size_t whylen);
/* The same for the guest architecture arch. */
int vmhost_check_kernel_for(const struct vmhost_arch *arch, const char *path, char *why,
			    size_t whylen);

/*
 * Can KVM run an ordinary guest here? /dev/kvm must open read-write and
 * report the stable API, and on x86 the CPU must offer VMX or SVM (a
 * paravirtual KVM such as PVM, seen in nested clouds, opens fine but runs
 * only specially built guests). 1 if usable, 0 with the reason in why.
 */
int vmhost_kvm_usable(char *why, size_t whylen);

#endif
