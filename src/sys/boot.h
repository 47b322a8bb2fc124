/*
 * boot.h: the kernels installed on this machine and the ways to boot one of
 * them once, for `campaign` (doc/campaign.md).
 *
 * A campaign reboots the machine into each kernel it compares, always by a
 * one-shot choice that the boot loader or firmware forgets after one boot,
 * never by changing the default: a kernel that fails to come up leaves the
 * machine booting its default kernel again. Four backends, read from the
 * files and commands each one documents:
 *
 *   rpi           Raspberry Pi firmware (Pi 4, Pi 5): `reboot "0 tryboot"`
 *                 makes the next boot, and only it, read tryboot.txt instead
 *                 of config.txt (raspberrypi/documentation, "Fail-safe OS
 *                 updates (TRYBOOT)"); tryboot.txt is config.txt with the
 *                 kernel and its initramfs, copied to the boot partition.
 *   systemd-boot  `bootctl set-oneshot ID` with the ID of a Boot Loader
 *                 Specification entry (loader/entries/ID.conf), on a machine
 *                 this boot was started by systemd-boot (its LoaderInfo EFI
 *                 variable).
 *   grub          `grub-reboot ENTRY` writes next_entry to grubenv, which
 *                 the grub.cfg that grub-mkconfig writes reads and clears
 *                 at the next boot; ENTRY is the menu entry's id under its
 *                 submenu's ("SUBMENU>ENTRY", the GRUB manual's "default").
 *   kexec         `kexec -l IMAGE --initrd=INITRD --reuse-cmdline`, then a
 *                 kexec reboot: the firmware and the boot loader are skipped.
 *
 * Paths are read under a root (WAKEBENCH_ROOT in tests: a file tree), and
 * the commands are looked up in PATH (stand-ins in tests). Only the
 * actions at the end change anything.
 */
#ifndef WAKEBENCH_BOOT_H
#define WAKEBENCH_BOOT_H

#include <stdbool.h>
#include <stddef.h>

/* In the order `auto` prefers them: the firmware's own one-shot first. */
enum boot_backend {
	BOOT_RPI = 0,
	BOOT_SYSTEMD_BOOT,
	BOOT_GRUB,
	BOOT_KEXEC,
	BOOT_NBACKENDS,
};

struct boot_kernel {
	char release[128];
	char image[512];  /* as the machine sees it: /boot/vmlinuz-RELEASE */
	char initrd[512]; /* /boot/initrd.img-RELEASE, or "" when there is none */
	bool running;	  /* the release of the running kernel */
};

/* One backend on this machine. */
struct boot_loader {
	enum boot_backend backend;
	bool usable;	  /* can boot a kernel once here */
	char tool[512];	  /* the command it runs, found in PATH */
	char config[512]; /* what it reads: grub.cfg, the entries, config.txt, /proc/cmdline */
	char why[512];	  /* when not usable: what is missing */
	char note[512];	  /* what it needs or does, stated */
};

/* How one backend boots one kernel once. */
struct boot_entry {
	bool ok;
	char entry[512]; /* grub: SUBMENU>ENTRY; systemd-boot: ID.conf; rpi: kernel=; kexec: IMAGE
			  */
	char command[1024]; /* what it would run, as a shell line */
	char why[512];	    /* when not ok */
};

const char *boot_backend_name(enum boot_backend b);
/* Whether systemd runs the machine under root (/run/systemd/system, sd_booted()'s test). */
bool boot_systemd_runs(const char *root);
/* "rpi", "systemd-boot", "grub", "kexec"; -1 for another name. */
int boot_backend_parse(const char *name, enum boot_backend *b);

/*
 * The kernels in <root>/boot (vmlinuz-RELEASE), sorted by release (oldest
 * first), into a malloc'd array. 0, or -1 with the reason in why.
 */
int boot_kernels(const char *root, struct boot_kernel **out, size_t *n, char *why, size_t len);

/* Whether backend b can boot a kernel once on this machine, and how. */
void boot_loader_probe(const char *root, enum boot_backend b, struct boot_loader *l);

/* How usable loader l boots kernel k once (e->ok false with why when it cannot). */
void boot_entry_find(const char *root, const struct boot_loader *l, const struct boot_kernel *k,
		     struct boot_entry *e);

/*
 * The actions (a campaign's; root only): make kernel k the next boot's, once
 * (e from boot_entry_find()); undo that before the boot took it; reboot the
 * way the backend needs (kexec: into the loaded kernel; rpi: "0 tryboot").
 * 0, or -1 with the reason in why.
 */
int boot_oneshot_set(const char *root, const struct boot_loader *l, const struct boot_kernel *k,
		     const struct boot_entry *e, char *why, size_t len);
int boot_oneshot_clear(const char *root, const struct boot_loader *l, char *why, size_t len);
int boot_reboot(const char *root, enum boot_backend b, char *why, size_t len);

#endif
