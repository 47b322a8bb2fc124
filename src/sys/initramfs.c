/*
 * initramfs.c: the cpio newc writer and reader and the guest file list for
 * `wakebench vm` (see initramfs.h).
 *
 * newc, as the kernel's init/initramfs.c reads it: a 110-byte ASCII header
 * ("070701" and thirteen 8-digit hex fields), the NUL-terminated name padded
 * to a multiple of 4 (counting the header), the data padded to 4, and a
 * final entry named TRAILER!!!. Several archives may be concatenated; the
 * kernel unpacks them in order, which is how `vm` adds the per-invocation
 * arguments to a cached base archive.
 *
 * The shared libraries come from the ELF interpreter's own resolution (the
 * interpreter's --list mode, what ldd runs), parsed line by line; only
 * absolute paths that exist are taken.
 */
#include "sys/initramfs.h"
#include "util/util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CPIO_HDR_BYTES 110

/* ELF headers of this machine's class. */
#if UINTPTR_MAX > 0xffffffffu
typedef Elf64_Ehdr elf_ehdr;
typedef Elf64_Phdr elf_phdr;
#define ELF_NATIVE_CLASS ELFCLASS64
#else
typedef Elf32_Ehdr elf_ehdr;
typedef Elf32_Phdr elf_phdr;
#define ELF_NATIVE_CLASS ELFCLASS32
#endif

static const char init_script[] =
    "#!/bin/sh\n"
    "# wakebench guest init: mount what the subcommand reads, run it through\n"
    "# 'wakebench vm --guest' (which sends the results home), power off.\n"
    "export PATH=/bin\n"
    "busybox mount -t proc proc /proc\n"
    "busybox mount -t sysfs sysfs /sys\n"
    "busybox mount -t devtmpfs devtmpfs /dev\n"
    "busybox mount -t debugfs debugfs /sys/kernel/debug\n"
    "busybox mount -t tracefs tracefs /sys/kernel/tracing\n"
    "busybox mount -t tmpfs tmpfs /tmp\n"
    "busybox mount -t tmpfs tmpfs /run\n"
    "echo \"wakebench-guest: init up, kernel $(busybox uname -r)\"\n"
    "/bin/wakebench vm --guest /wakebench/args\n"
    "echo \"wakebench-guest: wakebench exited with status $?\"\n"
    "busybox poweroff -f\n";

const char *initramfs_init_script(void)
{
	return init_script;
}

void initramfs_init(struct initramfs *a)
{
	memset(a, 0, sizeof(*a));
	a->next_ino = 1;
}

void initramfs_release(struct initramfs *a)
{
	size_t i;

	for (i = 0; i < a->ndirs; i++)
		free(a->dirs[i]);
	free(a->dirs);
	free(a->buf);
	memset(a, 0, sizeof(*a));
}

static void reserve(struct initramfs *a, size_t more)
{
	if (a->len + more <= a->alloc)
		return;
	while (a->len + more > a->alloc)
		a->alloc = a->alloc ? a->alloc * 2 : 1 << 20;
	a->buf = xrealloc(a->buf, a->alloc);
}

static void pad4(struct initramfs *a)
{
	while (a->len % 4)
		a->buf[a->len++] = 0;
}

/* name: without the leading '/'. */
static void put_entry(struct initramfs *a, const char *name, uint32_t mode, unsigned rmajor,
		      unsigned rminor, const void *data, size_t size)
{
	size_t namesize = strlen(name) + 1;
	char hdr[CPIO_HDR_BYTES + 1];

	if (a->finished)
		BUG("initramfs entry after the trailer");
	reserve(a, CPIO_HDR_BYTES + namesize + size + 8);
	snprintf(hdr, sizeof(hdr), "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		 strcmp(name, "TRAILER!!!") ? a->next_ino++ : 0, mode, 0u, 0u,
		 (mode & S_IFMT) == S_IFDIR ? 2u : 1u, 0u, (unsigned)size, 0u, 0u, rmajor, rminor,
		 (unsigned)namesize, 0u);
	memcpy(a->buf + a->len, hdr, CPIO_HDR_BYTES);
	a->len += CPIO_HDR_BYTES;
	memcpy(a->buf + a->len, name, namesize);
	a->len += namesize;
	pad4(a);
	if (size) {
		memcpy(a->buf + a->len, data, size);
		a->len += size;
	}
	pad4(a);
}

static int have_dir(const struct initramfs *a, const char *name)
{
	size_t i;

	for (i = 0; i < a->ndirs; i++)
		if (!strcmp(a->dirs[i], name))
			return 1;
	return 0;
}

static int check_path(const char *path)
{
	const char *p;

	if (path[0] != '/' || !path[1] || strlen(path) >= PATH_MAX)
		return error("initramfs: invalid guest path '%s'", path);
	for (p = path; *p; p++)
		if (p[0] == '/' &&
		    (p[1] == '/' || p[1] == '\0' ||
		     (p[1] == '.' && (p[2] == '/' || p[2] == '\0' ||
				      (p[2] == '.' && (p[3] == '/' || p[3] == '\0'))))))
			return error("initramfs: invalid guest path '%s'", path);
	return 0;
}

/* Add the parent directories of name (no leading '/'), outermost first. */
static void add_parents(struct initramfs *a, const char *name)
{
	char buf[PATH_MAX];
	char *slash;

	snprintf(buf, sizeof(buf), "%s", name);
	for (slash = strchr(buf, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (!have_dir(a, buf)) {
			put_entry(a, buf, S_IFDIR | 0755, 0, 0, NULL, 0);
			a->dirs = xrealloc(a->dirs, (a->ndirs + 1) * sizeof(*a->dirs));
			a->dirs[a->ndirs++] = xstrdup(buf);
		}
		*slash = '/';
	}
}

int initramfs_add_dir(struct initramfs *a, const char *path, mode_t perm)
{
	const char *name = path + 1;

	if (check_path(path))
		return -1;
	if (have_dir(a, name))
		return 0;
	add_parents(a, name);
	put_entry(a, name, S_IFDIR | (perm & 07777), 0, 0, NULL, 0);
	a->dirs = xrealloc(a->dirs, (a->ndirs + 1) * sizeof(*a->dirs));
	a->dirs[a->ndirs++] = xstrdup(name);
	return 0;
}

int initramfs_add_file(struct initramfs *a, const char *path, mode_t perm, const void *data,
		       size_t len)
{
	if (check_path(path))
		return -1;
	if (len > 0xffffffffu)
		return error("initramfs: '%s' is too large for a cpio archive", path);
	add_parents(a, path + 1);
	put_entry(a, path + 1, S_IFREG | (perm & 07777), 0, 0, data, len);
	return 0;
}

int initramfs_add_symlink(struct initramfs *a, const char *path, const char *target)
{
	if (check_path(path))
		return -1;
	add_parents(a, path + 1);
	put_entry(a, path + 1, S_IFLNK | 0777, 0, 0, target, strlen(target));
	return 0;
}

int initramfs_add_chardev(struct initramfs *a, const char *path, mode_t perm, unsigned major,
			  unsigned minor)
{
	if (check_path(path))
		return -1;
	add_parents(a, path + 1);
	put_entry(a, path + 1, S_IFCHR | (perm & 07777), major, minor, NULL, 0);
	return 0;
}

int initramfs_add_host_file(struct initramfs *a, const char *guest_path, const char *host_path)
{
	struct stat st;
	char *data;
	size_t len;
	int ret;

	if (stat(host_path, &st))
		return error_errno("initramfs: cannot read '%s'", host_path);
	if (!S_ISREG(st.st_mode))
		return error("initramfs: '%s' is not a regular file", host_path);
	if (read_file(host_path, &data, &len))
		return error_errno("initramfs: cannot read '%s'", host_path);
	ret = initramfs_add_file(a, guest_path, st.st_mode & 07777, data, len);
	free(data);
	return ret;
}

void initramfs_finish(struct initramfs *a)
{
	put_entry(a, "TRAILER!!!", 0, 0, 0, NULL, 0);
	a->finished = 1;
}

/* ---- reading ---- */

static int hex8(const uint8_t *p, uint32_t *out)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < 8; i++) {
		int c = p[i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		v = v << 4 | (uint32_t)d;
	}
	*out = v;
	return 0;
}

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

void cpio_entries_free(struct cpio_entry *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

int cpio_parse(const uint8_t *buf, size_t len, struct cpio_entry **out, size_t *n, char *why,
	       size_t whylen)
{
	struct cpio_entry *v = NULL;
	size_t nv = 0, off = 0;
	int trailers = 0;

	while (off < len) {
		uint32_t f[13];
		size_t name_off, data_off;
		int i;

		/* The kernel skips zero padding between concatenated archives. */
		if (buf[off] == 0) {
			off++;
			continue;
		}
		if (len - off < CPIO_HDR_BYTES || memcmp(buf + off, "070701", 6)) {
			snprintf(why, whylen, "no newc header at byte %zu", off);
			goto bad;
		}
		for (i = 0; i < 13; i++)
			if (hex8(buf + off + 6 + 8 * i, &f[i])) {
				snprintf(why, whylen, "bad header field at byte %zu", off);
				goto bad;
			}
		name_off = off + CPIO_HDR_BYTES;
		if (f[11] == 0 || f[11] > len - name_off || buf[name_off + f[11] - 1] != '\0') {
			snprintf(why, whylen, "bad name at byte %zu", off);
			goto bad;
		}
		data_off = align4(name_off + f[11]);
		if (data_off > len || f[6] > len - data_off) {
			snprintf(why, whylen, "truncated entry '%s'", (const char *)buf + name_off);
			goto bad;
		}
		off = align4(data_off + f[6]);
		if (!strcmp((const char *)buf + name_off, "TRAILER!!!")) {
			trailers++;
			continue;
		}
		v = xrealloc(v, (nv + 1) * sizeof(*v));
		v[nv].name = xstrdup((const char *)buf + name_off);
		v[nv].mode = f[1];
		v[nv].rdev_major = f[9];
		v[nv].rdev_minor = f[10];
		v[nv].data = buf + data_off;
		v[nv].size = f[6];
		nv++;
	}
	if (!trailers) {
		snprintf(why, whylen, "no TRAILER!!! entry");
		goto bad;
	}
	*out = v;
	*n = nv;
	return 0;
bad:
	cpio_entries_free(v, nv);
	return -1;
}

/* ---- what the guest needs ---- */

/* PT_INTERP of an ELF file of the host's class, into buf; "" for a static one. */
static int elf_interp(const char *path, char *buf, size_t len)
{
	char *data;
	size_t size, i;
	const elf_ehdr *eh;

	if (read_file(path, &data, &size))
		return error_errno("cannot read '%s'", path);
	eh = (const elf_ehdr *)data;
	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELF_NATIVE_CLASS) {
		free(data);
		return error("'%s' is not an ELF executable of this machine's class", path);
	}
	buf[0] = '\0';
	for (i = 0; i < eh->e_phnum; i++) {
		size_t at = eh->e_phoff + i * eh->e_phentsize;
		const elf_phdr *ph;

		if (eh->e_phentsize < sizeof(*ph) || at > size || size - at < sizeof(*ph))
			break;
		ph = (const elf_phdr *)(data + at);
		if (ph->p_type != PT_INTERP)
			continue;
		if (ph->p_offset > size || ph->p_filesz > size - ph->p_offset ||
		    ph->p_filesz == 0 || ph->p_filesz >= len) {
			free(data);
			return error("'%s' has a malformed PT_INTERP", path);
		}
		memcpy(buf, data + ph->p_offset, ph->p_filesz);
		buf[ph->p_filesz] = '\0';
		break;
	}
	free(data);
	return 0;
}

static void add_path(char ***paths, size_t *n, const char *p)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*paths)[i], p))
			return;
	*paths = xrealloc(*paths, (*n + 1) * sizeof(**paths));
	(*paths)[(*n)++] = xstrdup(p);
}

int initramfs_elf_deps(const char *binary, char ***paths, size_t *n)
{
	char interp[PATH_MAX], *out = NULL, *line, *save = NULL;
	const char *argv[4];
	int status;

	*paths = NULL;
	*n = 0;
	if (elf_interp(binary, interp, sizeof(interp)))
		return -1;
	if (!interp[0])
		return 0; /* static */
	if (access(interp, X_OK))
		return error_errno("cannot run the ELF interpreter '%s' of '%s'", interp, binary);
	add_path(paths, n, interp);
	argv[0] = interp;
	argv[1] = "--list";
	argv[2] = binary;
	argv[3] = NULL;
	status = run_capture(argv, &out);
	if (status != 0) {
		free(out);
		if (status > 0)
			error("'%s --list %s' failed with status %d", interp, binary, status);
		goto fail;
	}
	/*
	 * Lines are "\tlibfoo.so.1 => /lib/x/libfoo.so.1 (0x...)",
	 * "\t/lib64/ld-linux-x86-64.so.2 (0x...)" or "\tlinux-vdso.so.1 (0x...)".
	 */
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *arrow = strstr(line, "=> "), *path, *end;

		path = arrow ? arrow + 3 : line;
		while (*path == ' ' || *path == '\t')
			path++;
		if (!strncmp(path, "not found", 9)) {
			error("'%s' needs a library that is not found: %s", binary, rtrim(line));
			free(out);
			goto fail;
		}
		if (path[0] != '/')
			continue; /* the vDSO has no file */
		end = strstr(path, " (0x");
		if (end)
			*end = '\0';
		rtrim(path);
		if (access(path, R_OK)) {
			error_errno("library '%s' of '%s'", path, binary);
			free(out);
			goto fail;
		}
		add_path(paths, n, path);
	}
	free(out);
	return 0;
fail:
	while (*n)
		free((*paths)[--*n]);
	free(*paths);
	*paths = NULL;
	return -1;
}

int initramfs_build_guest(struct initramfs *a, const struct guest_spec *spec)
{
	static const char *const dirs[] = {"/proc", "/sys",	  "/dev", "/tmp",
					   "/run",  "/wakebench", "/etc"};
	char **libs = NULL;
	size_t nlibs = 0, i;
	int ret = -1;

	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		if (initramfs_add_dir(a, dirs[i], 0755))
			return -1;
	/* The kernel opens /dev/console for init before anything is mounted. */
	if (initramfs_add_chardev(a, "/dev/console", 0600, 5, 1) ||
	    initramfs_add_chardev(a, "/dev/null", 0666, 1, 3))
		return -1;
	if (initramfs_add_file(a, "/init", 0755, init_script, strlen(init_script)))
		return -1;
	if (initramfs_add_host_file(a, "/bin/busybox", spec->busybox) ||
	    initramfs_add_symlink(a, "/bin/sh", "busybox"))
		return -1;
	if (initramfs_elf_deps(spec->busybox, &libs, &nlibs))
		return -1;
	if (nlibs) {
		error("'%s' is not a static busybox (it needs '%s'): install busybox-static",
		      spec->busybox, libs[0]);
		goto out;
	}
	if (initramfs_add_host_file(a, "/bin/wakebench", spec->wakebench))
		return -1;
	if (initramfs_elf_deps(spec->wakebench, &libs, &nlibs))
		return -1;
	for (i = 0; i < nlibs; i++)
		if (initramfs_add_host_file(a, libs[i], libs[i]))
			goto out;
	initramfs_finish(a);
	ret = 0;
out:
	for (i = 0; i < nlibs; i++)
		free(libs[i]);
	free(libs);
	return ret;
}
