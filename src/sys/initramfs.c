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
 * The shared libraries of a native binary come from the ELF interpreter's
 * own resolution (the interpreter's --list mode, what ldd runs), parsed
 * line by line; only absolute paths that exist are taken. A foreign
 * binary's interpreter cannot run here (an arm64 guest built on x86-64),
 * so for it the DT_NEEDED entries are read from the ELF files themselves,
 * transitively, and looked up where Debian's loader looks (the multiarch
 * directories, /lib, /usr/lib), in a sysroot first, then in the host's
 * multiarch tree; a file of another machine never matches. Such binaries
 * carry no RPATH, RUNPATH or $ORIGIN, which this lookup does not follow.
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
typedef Elf64_Dyn elf_dyn;
#define ELF_NATIVE_CLASS ELFCLASS64
#else
typedef Elf32_Ehdr elf_ehdr;
typedef Elf32_Phdr elf_phdr;
typedef Elf32_Dyn elf_dyn;
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

/* ---- an ELF file's interpreter and needed libraries ---- */

/* What initramfs needs from one ELF file; names point into the file's data. */
struct elf_info {
	char *data;
	size_t size;
	unsigned machine;    /* e_machine */
	const char *interp;  /* PT_INTERP, NULL for a static file */
	const char **needed; /* DT_NEEDED names */
	size_t nneeded;
};

static void elf_info_release(struct elf_info *e)
{
	free(e->needed);
	free(e->data);
	memset(e, 0, sizeof(*e));
}

/* The file offset of virtual address vaddr, from the PT_LOAD segments; 0 if none. */
static size_t elf_vaddr_offset(const struct elf_info *e, const elf_ehdr *eh, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < eh->e_phnum; i++) {
		const elf_phdr *ph =
			(const elf_phdr *)(e->data + eh->e_phoff + i * eh->e_phentsize);

		if (ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr &&
		    vaddr - ph->p_vaddr < ph->p_filesz)
			return (size_t)(vaddr - ph->p_vaddr + ph->p_offset);
	}
	return 0;
}

/* DT_NEEDED names of the PT_DYNAMIC segment ph; -1 when it is malformed. */
static int elf_read_needed(struct elf_info *e, const elf_ehdr *eh, const elf_phdr *ph)
{
	const size_t dsz = sizeof(elf_dyn);
	size_t i, n, strtab = 0, strsz = 0;
	const elf_dyn *d;

	if (ph->p_offset > e->size || ph->p_filesz > e->size - ph->p_offset)
		return -1;
	d = (const elf_dyn *)(e->data + ph->p_offset);
	n = ph->p_filesz / dsz;
	for (i = 0; i < n && d[i].d_tag != DT_NULL; i++) {
		if (d[i].d_tag == DT_STRTAB)
			strtab = elf_vaddr_offset(e, eh, d[i].d_un.d_ptr);
		else if (d[i].d_tag == DT_STRSZ)
			strsz = (size_t)d[i].d_un.d_val;
	}
	if (!strtab || !strsz || strtab > e->size || strsz > e->size - strtab ||
	    e->data[strtab + strsz - 1] != '\0')
		return -1;
	for (i = 0; i < n && d[i].d_tag != DT_NULL; i++) {
		if (d[i].d_tag != DT_NEEDED)
			continue;
		if (d[i].d_un.d_val >= strsz)
			return -1;
		e->needed = xrealloc(e->needed, (e->nneeded + 1) * sizeof(*e->needed));
		e->needed[e->nneeded++] = e->data + strtab + d[i].d_un.d_val;
	}
	return 0;
}

/*
 * Read an ELF file of this build's class (64-bit here, of any machine).
 * -1 with *why set ("" for a read error, see errno), nothing printed.
 */
static int elf_parse(const char *path, struct elf_info *e, const char **why)
{
	const elf_ehdr *eh;
	size_t i;

	memset(e, 0, sizeof(*e));
	*why = "";
	if (read_file(path, &e->data, &e->size))
		return -1;
	eh = (const elf_ehdr *)e->data;
	*why = "is not a little-endian ELF executable of this machine's class";
	if (e->size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELF_NATIVE_CLASS || eh->e_ident[EI_DATA] != ELFDATA2LSB)
		goto bad;
	e->machine = eh->e_machine;
	*why = "has malformed program headers";
	if (eh->e_phentsize < sizeof(elf_phdr) || eh->e_phoff > e->size ||
	    (size_t)eh->e_phnum * eh->e_phentsize > e->size - eh->e_phoff)
		goto bad;
	for (i = 0; i < eh->e_phnum; i++) {
		const elf_phdr *ph =
			(const elf_phdr *)(e->data + eh->e_phoff + i * eh->e_phentsize);

		if (ph->p_type == PT_INTERP) {
			*why = "has a malformed PT_INTERP";
			if (ph->p_offset > e->size || ph->p_filesz > e->size - ph->p_offset ||
			    ph->p_filesz < 2 || ph->p_filesz >= PATH_MAX ||
			    e->data[ph->p_offset + ph->p_filesz - 1] != '\0')
				goto bad;
			e->interp = e->data + ph->p_offset;
		} else if (ph->p_type == PT_DYNAMIC && elf_read_needed(e, eh, ph)) {
			*why = "has a malformed dynamic section";
			goto bad;
		}
	}
	return 0;
bad:
	elf_info_release(e);
	return -1;
}

static int elf_read(const char *path, struct elf_info *e)
{
	const char *why;

	if (!elf_parse(path, e, &why))
		return 0;
	if (!*why)
		return error_errno("cannot read '%s'", path);
	return error("'%s' %s", path, why);
}

int initramfs_elf_machine(const char *path)
{
	struct elf_info e;
	int machine;

	if (elf_read(path, &e))
		return -1;
	machine = (int)e.machine;
	elf_info_release(&e);
	return machine;
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

static void free_paths(char ***paths, size_t *n)
{
	while (*n)
		free((*paths)[--*n]);
	free(*paths);
	*paths = NULL;
}

char *initramfs_host_path(const char *sysroot, const char *guest_path)
{
	char *p;

	if (!sysroot || !*sysroot)
		return xstrdup(guest_path);
	p = xasprintf("%s%s", sysroot, guest_path);
	if (!access(p, F_OK))
		return p;
	free(p);
	return xstrdup(guest_path);
}

/* The Debian multiarch directory name of an ELF machine, NULL when unknown. */
static const char *multiarch_triplet(unsigned machine)
{
	switch (machine) {
	case EM_X86_64:
		return "x86_64-linux-gnu";
	case EM_AARCH64:
		return "aarch64-linux-gnu";
	default:
		return NULL;
	}
}

/*
 * Find library `name` for an ELF file of `machine` where the guest's
 * dynamic loader looks (Debian's order: the multiarch directories, then
 * /lib and /usr/lib), on the host under sysroot first, then at the path
 * itself. Only a file of the same machine counts (/usr/lib/x86_64-... of
 * the host must never stand in for an arm64 library). The guest path, or
 * NULL.
 */
static char *find_library(const char *name, unsigned machine, const char *sysroot)
{
	const char *triplet = multiarch_triplet(machine);
	char dirs[4][64];
	size_t ndirs = 0, i;

	if (triplet) {
		snprintf(dirs[ndirs++], sizeof(dirs[0]), "/lib/%s", triplet);
		snprintf(dirs[ndirs++], sizeof(dirs[0]), "/usr/lib/%s", triplet);
	}
	snprintf(dirs[ndirs++], sizeof(dirs[0]), "/lib");
	snprintf(dirs[ndirs++], sizeof(dirs[0]), "/usr/lib");
	for (i = 0; i < ndirs; i++) {
		char *guest = xasprintf("%s/%s", dirs[i], name);
		char *host = initramfs_host_path(sysroot, guest);
		struct elf_info e;
		int same = 0;

		const char *why;

		/* A file here that is no ELF of this class just does not match. */
		if (!access(host, R_OK) && !elf_parse(host, &e, &why)) {
			same = e.machine == machine;
			elf_info_release(&e);
		}
		free(host);
		if (same)
			return guest;
		free(guest);
	}
	return NULL;
}

int initramfs_elf_deps_walk(const char *binary, const char *sysroot, char ***paths, size_t *n)
{
	struct elf_info top;
	const char *interp_name;
	size_t done = 0;

	*paths = NULL;
	*n = 0;
	if (elf_read(binary, &top))
		return -1;
	if (!top.interp) {
		elf_info_release(&top);
		return 0; /* static */
	}
	{
		char *host = initramfs_host_path(sysroot, top.interp);

		if (access(host, R_OK)) {
			error_errno("the ELF interpreter '%s' of '%s'", host, binary);
			free(host);
			elf_info_release(&top);
			return -1;
		}
		free(host);
	}
	add_path(paths, n, top.interp);
	interp_name = strrchr(top.interp, '/') ? strrchr(top.interp, '/') + 1 : top.interp;
	/* Breadth first: the binary's own needs, then each library's, each once. */
	for (;;) {
		struct elf_info cur;
		const struct elf_info *e;
		size_t i;

		if (done == 0) {
			e = &top;
		} else {
			char *host;

			if (done >= *n)
				break;
			host = initramfs_host_path(sysroot, (*paths)[done]);
			if (elf_read(host, &cur)) {
				free(host);
				goto fail;
			}
			free(host);
			e = &cur;
		}
		for (i = 0; i < e->nneeded; i++) {
			char *guest;

			if (strchr(e->needed[i], '/')) {
				error("'%s' needs '%s' by path, which vm does not collect", binary,
				      e->needed[i]);
				goto fail_cur;
			}
			/* libc needs the loader by its soname: that is the interpreter. */
			if (!strcmp(e->needed[i], interp_name))
				continue;
			guest = find_library(e->needed[i], top.machine, sysroot);
			if (!guest) {
				error("'%s' needs '%s', not found for its architecture in /lib and "
				      "/usr/lib%s%s (multiarch or the sysroot)",
				      binary, e->needed[i], sysroot ? " under " : "",
				      sysroot ? sysroot : "");
				goto fail_cur;
			}
			add_path(paths, n, guest);
			free(guest);
		}
		if (e != &top)
			elf_info_release(&cur);
		done++;
		continue;
	fail_cur:
		if (e != &top)
			elf_info_release(&cur);
		goto fail;
	}
	elf_info_release(&top);
	return 0;
fail:
	elf_info_release(&top);
	free_paths(paths, n);
	return -1;
}

int initramfs_elf_deps(const char *binary, char ***paths, size_t *n)
{
	char interp[PATH_MAX], *out = NULL, *line, *save = NULL;
	const char *argv[4];
	struct elf_info e;
	int status;

	*paths = NULL;
	*n = 0;
	if (elf_read(binary, &e))
		return -1;
	if (!e.interp) {
		elf_info_release(&e);
		return 0; /* static */
	}
	snprintf(interp, sizeof(interp), "%s", e.interp);
	elf_info_release(&e);
	if (access(interp, X_OK))
		return error_errno("cannot run the ELF interpreter '%s' of '%s'", interp, binary);
	add_path(paths, n, interp);
	argv[0] = interp;
	argv[1] = "--list";
	argv[2] = binary;
	argv[3] = NULL;
	status = run_capture(argv, &out);
	if (status == 127) {
		/*
		 * The interpreter cannot be executed here (user-mode emulation
		 * without binfmt): read the needs from the ELF files instead.
		 */
		free(out);
		free_paths(paths, n);
		debug("initramfs: '%s --list' cannot run here: reading the ELF files", interp);
		return initramfs_elf_deps_walk(binary, NULL, paths, n);
	}
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
	free_paths(paths, n);
	return -1;
}

static const char *machine_name(int machine)
{
	switch (machine) {
	case EM_X86_64:
		return "x86-64";
	case EM_AARCH64:
		return "arm64";
	default:
		return "foreign";
	}
}

/* Is the ELF file at host path of the guest's machine? 0 if so, -1 after error(). */
static int check_machine(const char *what, const char *path, int want)
{
	int got = initramfs_elf_machine(path);

	if (got < 0)
		return -1;
	if (want && got != want)
		return error("the %s '%s' is an %s binary, the guest is %s", what, path,
			     machine_name(got), machine_name(want));
	return 0;
}

int initramfs_build_guest(struct initramfs *a, const struct guest_spec *spec)
{
	static const char *const dirs[] = { "/proc", "/sys",	   "/dev", "/tmp",
					    "/run",  "/wakebench", "/etc" };
	char **libs = NULL;
	size_t nlibs = 0, i;
	int ret = -1, foreign, native_machine;

	/* This build's own machine, read from the binary that runs. */
	native_machine = initramfs_elf_machine("/proc/self/exe");
	foreign = (spec->sysroot && *spec->sysroot) ||
		  (spec->machine && native_machine > 0 && spec->machine != native_machine);
	if (check_machine("wakebench", spec->wakebench, spec->machine) ||
	    check_machine("busybox", spec->busybox, spec->machine))
		return -1;
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
	if (initramfs_elf_deps_walk(spec->busybox, NULL, &libs, &nlibs))
		return -1;
	if (nlibs) {
		error("'%s' is not a static busybox (it needs '%s'): install busybox-static",
		      spec->busybox, libs[0]);
		goto out;
	}
	if (initramfs_add_host_file(a, "/bin/wakebench", spec->wakebench))
		return -1;
	/*
	 * A foreign binary's interpreter cannot list its libraries here: read
	 * them from the ELF files, from the sysroot or the multiarch paths.
	 */
	if (foreign ? initramfs_elf_deps_walk(spec->wakebench, spec->sysroot, &libs, &nlibs)
		    : initramfs_elf_deps(spec->wakebench, &libs, &nlibs))
		return -1;
	for (i = 0; i < nlibs; i++) {
		char *host = initramfs_host_path(foreign ? spec->sysroot : NULL, libs[i]);
		int bad = initramfs_add_host_file(a, libs[i], host);

		free(host);
		if (bad)
			goto out;
	}
	initramfs_finish(a);
	ret = 0;
out:
	for (i = 0; i < nlibs; i++)
		free(libs[i]);
	free(libs);
	return ret;
}
