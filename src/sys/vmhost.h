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
};

/* The description for this build's architecture, or NULL when `vm` does not support it. */
const struct vmhost_arch *vmhost_arch(void);

/*
 * Is path a kernel image this architecture's qemu can boot with -kernel?
 * 0 if so; -1 with a reason in why (nothing printed).
 */
int vmhost_check_kernel(const char *path, char *why, size_t whylen);

/*
 * Can KVM run an ordinary guest here? /dev/kvm must open read-write and
 * report the stable API, and on x86 the CPU must offer VMX or SVM (a
 * paravirtual KVM such as PVM, seen in nested clouds, opens fine but runs
 * only specially built guests). 1 if usable, 0 with the reason in why.
 */
int vmhost_kvm_usable(char *why, size_t whylen);

#endif
