/*
 * vmhost.c: the architecture-specific facts of `wakebench vm` (see
 * vmhost.h): qemu binary, machine, console and result-channel devices,
 * kernel image formats, and the KVM usability check.
 *
 * Verified on x86-64 (Debian 12, qemu 7.2, Debian's 6.1 and 6.12 kernels),
 * and arm64 guests on that host under TCG (qemu 7.2 virt, cortex-a76,
 * Debian's 6.1 arm64 and 6.12 arm64-16k kernels: tests/e2e/t6010). A guest
 * of another architecture than this build's is always emulated (TCG) and
 * needs that architecture's wakebench and busybox (vmhost_foreign_files).
 */
#include "sys/vmhost.h"
#include "util/util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static const struct vmhost_arch arch_x86_64 = {
	.name = "x86-64",
	.qemu = "qemu-system-x86_64",
	.machine = "pc",
	.console = "ttyS0",
	.chan_dev = "/dev/ttyS1",
	.chan_pci_serial = 0,
	.tcg_cpu = "max",
	.elf_machine = EM_X86_64,
	.qemu_package = "qemu-system-x86",
};

static const struct vmhost_arch arch_arm64 = {
	.name = "arm64",
	.qemu = "qemu-system-aarch64",
	.machine = "virt",
	.console = "ttyAMA0",
	.chan_dev = "/dev/ttyS0",
	.chan_pci_serial = 1,
	.tcg_cpu = "cortex-a76",
	.elf_machine = EM_AARCH64,
	.qemu_package = "qemu-system-arm",
};

const struct vmhost_arch *vmhost_arch(void)
{
#if defined(__x86_64__)
	return &arch_x86_64;
#elif defined(__aarch64__)
	return &arch_arm64;
#else
	return NULL;
#endif
}

const struct vmhost_arch *vmhost_arch_named(const char *name)
{
	if (!strcmp(name, "x86-64") || !strcmp(name, "x86_64") || !strcmp(name, "amd64"))
		return &arch_x86_64;
	if (!strcmp(name, "arm64") || !strcmp(name, "aarch64"))
		return &arch_arm64;
	return NULL;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* What kind of image the first bytes show: "x86-64", "arm64", or NULL. */
static const char *image_kind(const uint8_t *h, size_t n, const char **note)
{
	*note = NULL;
	/* x86 boot protocol: 0xAA55 at 0x1fe, "HdrS" at 0x202. */
	if (n >= 0x206 && h[0x1fe] == 0x55 && h[0x1ff] == 0xaa && !memcmp(h + 0x202, "HdrS", 4))
		return "x86-64";
	/* arm64 Image header: magic "ARM\x64" at 0x38. */
	if (n >= 0x40 && le32(h + 0x38) == 0x644d5241)
		return "arm64";
	/* Debian's arm64 vmlinuz is a gzip'd Image, which qemu unpacks itself. */
	if (n >= 3 && h[0] == 0x1f && h[1] == 0x8b && h[2] == 8) {
		*note = "gzip";
		return "arm64";
	}
	if (n >= 8 && h[0] == 'M' && h[1] == 'Z' && !memcmp(h + 4, "zimg", 4)) {
		*note = "zboot";
		return "arm64";
	}
	return NULL;
}

const struct vmhost_arch *vmhost_image_arch(const char *path, char *why, size_t whylen)
{
	uint8_t h[0x400];
	const char *kind, *note;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		return NULL;
	}
	n = read_full(fd, h, sizeof(h));
	close(fd);
	if (n < 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		return NULL;
	}
	kind = image_kind(h, (size_t)n, &note);
	if (!kind) {
		snprintf(why, whylen, "not a kernel image (no x86 bzImage or arm64 Image header)");
		return NULL;
	}
	if (note && !strcmp(note, "zboot")) {
		snprintf(why, whylen, "an EFI zboot image, which qemu -kernel cannot boot here");
		return NULL;
	}
	return vmhost_arch_named(kind);
}

int vmhost_check_kernel_for(const struct vmhost_arch *arch, const char *path, char *why,
			    size_t whylen)
{
	const struct vmhost_arch *kind = vmhost_image_arch(path, why, whylen);

	if (!kind)
		return -1;
	if (!arch || kind != arch) {
		snprintf(why, whylen, "an %s kernel image, the guest is %s", kind->name,
			 arch ? arch->name : "not supported by vm");
		return -1;
	}
	return 0;
}

int vmhost_check_kernel(const char *path, char *why, size_t whylen)
{
	const struct vmhost_arch *arch = vmhost_arch(), *kind;

	kind = vmhost_image_arch(path, why, whylen);
	if (!kind)
		return -1;
	if (!arch || kind != arch) {
		snprintf(why, whylen, "an %s kernel image, this machine is %s", kind->name,
			 arch ? arch->name : "not supported by vm");
		return -1;
	}
	return 0;
}

static int is_file(const char *path)
{
	return !access(path, R_OK);
}

int vmhost_foreign_files(const struct vmhost_arch *arch, const char *self, const char *wakebench,
			 const char *sysroot, struct vmhost_guest_files *out, char *why,
			 size_t whylen)
{
	const char *env = getenv("WAKEBENCH_SYSROOT"), *x = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	const char *bdir = arch->elf_machine == EM_AARCH64 ? "build-aarch64" : "build-x86_64";
	char dir[4000], *slash;

	memset(out, 0, sizeof(*out));
	if (sysroot && *sysroot)
		snprintf(out->sysroot, sizeof(out->sysroot), "%s", sysroot);
	else if (env && *env)
		snprintf(out->sysroot, sizeof(out->sysroot), "%s", env);
	else if (x && *x)
		snprintf(out->sysroot, sizeof(out->sysroot), "%s/wakebench/sysroot-%s", x,
			 arch->name);
	else
		snprintf(out->sysroot, sizeof(out->sysroot), "%s/.cache/wakebench/sysroot-%s",
			 home && *home ? home : "/tmp", arch->name);
	snprintf(out->busybox, sizeof(out->busybox), "%s/bin/busybox", out->sysroot);
	if (!is_file(out->busybox)) {
		snprintf(why, whylen,
			 "no %s busybox at '%s' (run scripts/arm64-sysroot.sh, or give --sysroot)",
			 arch->name, out->busybox);
		return -1;
	}
	if (wakebench && *wakebench) {
		snprintf(out->wakebench, sizeof(out->wakebench), "%s", wakebench);
		if (!is_file(out->wakebench)) {
			snprintf(why, whylen, "cannot read '%s': %s", wakebench, strerror(errno));
			return -1;
		}
		return 0;
	}
	/* The cross-build beside this one: <top>/build/wakebench or <top>/wakebench. */
	snprintf(dir, sizeof(dir), "%s", self);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	snprintf(out->wakebench, sizeof(out->wakebench), "%s/%s/wakebench", dir, bdir);
	if (is_file(out->wakebench))
		return 0;
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		snprintf(out->wakebench, sizeof(out->wakebench), "%s/%s/wakebench", dir, bdir);
		if (is_file(out->wakebench))
			return 0;
	}
	snprintf(why, whylen,
		 "no %s wakebench found beside '%s' (build one with make "
		 "CROSS_COMPILE=aarch64-linux-gnu-, or give --guest-wakebench)",
		 arch->name, self);
	return -1;
}

#if defined(__x86_64__)
/* Is `flag` one of the words of the first "flags" line of /proc/cpuinfo? */
static int cpu_has_flag(const char *flag)
{
	char *cpuinfo, *line, *tok, *save = NULL;
	int found = 0;

	if (read_file("/proc/cpuinfo", &cpuinfo, NULL))
		return 0;
	line = strstr(cpuinfo, "\nflags");
	if (line) {
		line[strcspn(line + 1, "\n") + 1] = '\0';
		line = strchr(line, ':');
		for (tok = line ? strtok_r(line + 1, " \t", &save) : NULL; tok && !found;
		     tok = strtok_r(NULL, " \t", &save))
			found = !strcmp(tok, flag);
	}
	free(cpuinfo);
	return found;
}
#endif

int vmhost_kvm_usable(char *why, size_t whylen)
{
	int fd, api;

	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "/dev/kvm: %s", strerror(errno));
		return 0;
	}
	api = ioctl(fd, KVM_GET_API_VERSION, 0);
	close(fd);
	if (api != KVM_API_VERSION) {
		snprintf(why, whylen, "/dev/kvm reports API %d, not %d", api, KVM_API_VERSION);
		return 0;
	}
#if defined(__x86_64__)
	if (!cpu_has_flag("vmx") && !cpu_has_flag("svm")) {
		snprintf(why, whylen, "/dev/kvm opens but the CPU offers neither VMX nor SVM%s",
			 access("/sys/module/kvm_pvm", F_OK)
				 ? ""
				 : " (this KVM is PVM, which runs only PVM guests)");
		return 0;
	}
#endif
	return 1;
}
