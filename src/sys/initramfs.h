/*
 * initramfs.h: the guest's root file system for `wakebench vm`: a cpio
 * "newc" archive writer (the format the kernel unpacks into rootfs), a
 * reader for the same format (for tests and for checking a cached archive),
 * and the guest's file list: wakebench with its ELF interpreter and shared
 * libraries, Debian's static busybox, device nodes and the /init script.
 *
 * Archives are deterministic (mtime 0, owner root, inode numbers in order
 * of entry), so the same inputs give the same bytes and the archive can be
 * cached under its own SHA-256.
 */
#ifndef WAKEBENCH_INITRAMFS_H
#define WAKEBENCH_INITRAMFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct initramfs {
	uint8_t *buf;
	size_t len, alloc;
	uint32_t next_ino;
	char **dirs; /* directories already in the archive */
	size_t ndirs;
	int finished;
};

void initramfs_init(struct initramfs *a);
void initramfs_release(struct initramfs *a);

/*
 * Entries. Paths are absolute guest paths ("/bin/busybox"); missing parent
 * directories are added first (mode 0755). Return 0, or -1 after error().
 */
int initramfs_add_dir(struct initramfs *a, const char *path, mode_t perm);
int initramfs_add_file(struct initramfs *a, const char *path, mode_t perm, const void *data,
		       size_t len);
int initramfs_add_symlink(struct initramfs *a, const char *path, const char *target);
int initramfs_add_chardev(struct initramfs *a, const char *path, mode_t perm, unsigned major,
			  unsigned minor);
/* A host file (symlinks followed) stored at guest_path with the host's permission bits. */
int initramfs_add_host_file(struct initramfs *a, const char *guest_path, const char *host_path);
/* Append the TRAILER!!! entry; the archive is complete afterwards. */
void initramfs_finish(struct initramfs *a);

/* One entry read back from an archive. */
struct cpio_entry {
	char *name; /* as stored: no leading '/' */
	uint32_t mode;
	uint32_t rdev_major, rdev_minor;
	const uint8_t *data; /* points into the archive (or the symlink target) */
	size_t size;
};

/*
 * Parse a (possibly concatenated) newc archive up to its last TRAILER!!!.
 * *out is malloc'd (release with cpio_entries_free). -1 with a reason in
 * why when the archive is malformed.
 */
int cpio_parse(const uint8_t *buf, size_t len, struct cpio_entry **out, size_t *n, char *why,
	       size_t whylen);
void cpio_entries_free(struct cpio_entry *v, size_t n);

/*
 * The files a dynamically linked ELF executable needs: its interpreter
 * (PT_INTERP) and the libraries the interpreter resolves for it (run in
 * list mode, the way ldd does, without a shell). A static executable gives
 * none. *paths is malloc'd (free each and the array). -1 after error().
 */
int initramfs_elf_deps(const char *binary, char ***paths, size_t *n);

/*
 * The same for a binary of any machine, without running anything: its
 * PT_INTERP and, transitively, its DT_NEEDED libraries, found in /lib/TRIPLET,
 * /usr/lib/TRIPLET, /lib and /usr/lib (Debian's multiarch loader order)
 * under sysroot first when given, else at the path itself, and only as files
 * of the binary's own machine. *paths are guest paths (the host file of each
 * is initramfs_host_path()). -1 after error().
 */
int initramfs_elf_deps_walk(const char *binary, const char *sysroot, char ***paths, size_t *n);

/* Where the host keeps guest_path: under sysroot when it is there, else itself (malloc'd). */
char *initramfs_host_path(const char *sysroot, const char *guest_path);

/* The e_machine (EM_X86_64, EM_AARCH64, ...) of an ELF file, or -1 after error(). */
int initramfs_elf_machine(const char *path);

/* What goes into the guest. */
struct guest_spec {
	const char *wakebench; /* host path of the wakebench binary (/proc/self/exe) */
	const char *busybox;   /* host path of a static busybox */
	/*
	 * The guest's ELF machine (EM_AARCH64, ...): both binaries must be of
	 * it; 0 accepts any. A machine other than this build's makes the
	 * libraries come from initramfs_elf_deps_walk().
	 */
	int machine;
	/* Foreign guests: a tree searched before the host's for libraries (NULL: none). */
	const char *sysroot;
};

/* The guest's /init (a busybox sh script); static string. */
const char *initramfs_init_script(void);

/*
 * Build the complete, finished guest archive into a: /init, /bin/busybox
 * and /bin/sh, /bin/wakebench with its interpreter and libraries, /dev
 * console and null nodes, and the mount points. -1 after error().
 */
int initramfs_build_guest(struct initramfs *a, const struct guest_spec *spec);

#endif
