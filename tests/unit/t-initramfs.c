/*
 * t-initramfs.c: the cpio newc writer and reader of `wakebench vm` and the
 * guest's file list: entries read back with their names, types, modes,
 * device numbers and bytes; parents created; the archive is deterministic,
 * aligned and, when `cpio` is installed, listed by cpio -it exactly as by
 * our reader; concatenated archives parse; malformed ones do not; the ELF
 * dependency list of a dynamic binary holds its interpreter and libc; and
 * the guest archive holds /init, busybox, wakebench and its libraries.
 * For a foreign guest (arm64 built on x86-64) the libraries come from the
 * ELF files' DT_NEEDED entries, found in a sysroot before the host's
 * multiarch tree, never as a file of another machine: checked on
 * synthetic ELF files, so it runs on any host.
 */
#include <elf.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

#include "sys/initramfs.h"
#include "util/util.h"

static const struct cpio_entry *find(const struct cpio_entry *v, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

static void build_sample(struct initramfs *a)
{
	initramfs_init(a);
	assert_int_equal(initramfs_add_dir(a, "/proc", 0755), 0);
	assert_int_equal(initramfs_add_file(a, "/usr/lib/x/libfoo.so.1", 0644, "hello", 5), 0);
	assert_int_equal(initramfs_add_file(a, "/init", 0755, "#!/bin/sh\n", 10), 0);
	assert_int_equal(initramfs_add_symlink(a, "/bin/sh", "busybox"), 0);
	assert_int_equal(initramfs_add_chardev(a, "/dev/console", 0600, 5, 1), 0);
	assert_int_equal(initramfs_add_file(a, "/empty", 0600, "", 0), 0);
	initramfs_finish(a);
}

static void test_write_read(void **state)
{
	struct initramfs a;
	struct cpio_entry *v;
	const struct cpio_entry *e;
	size_t n;
	char why[128];

	(void)state;
	build_sample(&a);
	assert_int_equal(a.len % 4, 0);
	assert_memory_equal(a.buf, "070701", 6);
	assert_int_equal(cpio_parse(a.buf, a.len, &v, &n, why, sizeof(why)), 0);
	/* proc, usr, usr/lib, usr/lib/x, the lib, init, bin, bin/sh, dev, dev/console, empty */
	assert_int_equal(n, 11);
	assert_string_equal(v[0].name, "proc");
	assert_string_equal(v[1].name, "usr");
	assert_string_equal(v[2].name, "usr/lib");
	assert_string_equal(v[3].name, "usr/lib/x");
	e = find(v, n, "usr/lib/x/libfoo.so.1");
	assert_non_null(e);
	assert_int_equal(e->mode, S_IFREG | 0644);
	assert_int_equal(e->size, 5);
	assert_memory_equal(e->data, "hello", 5);
	e = find(v, n, "bin/sh");
	assert_non_null(e);
	assert_int_equal(e->mode & S_IFMT, S_IFLNK);
	assert_int_equal(e->size, 7);
	assert_memory_equal(e->data, "busybox", 7);
	e = find(v, n, "dev/console");
	assert_non_null(e);
	assert_int_equal(e->mode, S_IFCHR | 0600);
	assert_int_equal(e->rdev_major, 5);
	assert_int_equal(e->rdev_minor, 1);
	e = find(v, n, "init");
	assert_int_equal(e->mode, S_IFREG | 0755);
	e = find(v, n, "empty");
	assert_int_equal(e->size, 0);
	assert_int_equal(find(v, n, "bin")->mode, S_IFDIR | 0755);
	cpio_entries_free(v, n);
	initramfs_release(&a);
}

static void test_deterministic(void **state)
{
	struct initramfs a, b;

	(void)state;
	build_sample(&a);
	build_sample(&b);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.buf, b.buf, a.len);
	initramfs_release(&a);
	initramfs_release(&b);
}

static void test_bad_paths(void **state)
{
	struct initramfs a;

	(void)state;
	initramfs_init(&a);
	assert_int_equal(initramfs_add_file(&a, "relative", 0644, "x", 1), -1);
	assert_int_equal(initramfs_add_file(&a, "/a/../b", 0644, "x", 1), -1);
	assert_int_equal(initramfs_add_file(&a, "/a//b", 0644, "x", 1), -1);
	assert_int_equal(initramfs_add_file(&a, "/a/.", 0644, "x", 1), -1);
	assert_int_equal(initramfs_add_dir(&a, "/", 0755), -1);
	assert_int_equal(a.len, 0);
	initramfs_release(&a);
}

static void test_concatenated_and_malformed(void **state)
{
	struct initramfs a, b;
	struct cpio_entry *v;
	uint8_t *cat;
	size_t n;
	char why[128];

	(void)state;
	build_sample(&a);
	initramfs_init(&b);
	assert_int_equal(initramfs_add_file(&b, "/wakebench/args", 0644, "a\0b\0", 4), 0);
	initramfs_finish(&b);
	cat = malloc(a.len + b.len);
	memcpy(cat, a.buf, a.len);
	memcpy(cat + a.len, b.buf, b.len);
	assert_int_equal(cpio_parse(cat, a.len + b.len, &v, &n, why, sizeof(why)), 0);
	assert_int_equal(n, 13);
	assert_non_null(find(v, n, "wakebench/args"));
	assert_non_null(find(v, n, "init"));
	cpio_entries_free(v, n);
	/* Cut inside an entry's data, and no trailer at all. */
	assert_int_equal(cpio_parse(a.buf, 200, &v, &n, why, sizeof(why)), -1);
	assert_int_equal(cpio_parse(a.buf, a.len - 124, &v, &n, why, sizeof(why)), -1);
	cat[0] = 'X';
	assert_int_equal(cpio_parse(cat, a.len, &v, &n, why, sizeof(why)), -1);
	free(cat);
	initramfs_release(&a);
	initramfs_release(&b);
}

/* The system's cpio, when installed, lists the same names in the same order. */
static void test_cpio_tool(void **state)
{
	char dir[] = "/tmp/t-initramfs.XXXXXX", *path, *cmd, *listing;
	struct initramfs a;
	struct cpio_entry *v;
	size_t n, i, off = 0;
	char why[128];
	FILE *f;

	(void)state;
	if (system("command -v cpio >/dev/null 2>&1") != 0) {
		wb_skip("cpio is not installed");
		return;
	}
	build_sample(&a);
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/a.cpio", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(a.buf, 1, a.len, f), a.len);
	fclose(f);
	cmd = xasprintf("cpio -it --quiet < %s > %s/list 2>&1", path, dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	cmd = xasprintf("%s/list", dir);
	assert_int_equal(read_file(cmd, &listing, NULL), 0);
	assert_int_equal(cpio_parse(a.buf, a.len, &v, &n, why, sizeof(why)), 0);
	for (i = 0; i < n; i++) {
		size_t len = strlen(v[i].name);

		assert_memory_equal(listing + off, v[i].name, len);
		assert_int_equal(listing[off + len], '\n');
		off += len + 1;
	}
	assert_int_equal(listing[off], '\0');
	unlink(cmd);
	unlink(path);
	rmdir(dir);
	free(cmd);
	free(path);
	free(listing);
	cpio_entries_free(v, n);
	initramfs_release(&a);
}

static void test_elf_deps(void **state)
{
	char self[4096], **paths;
	size_t n, i;
	int have_libc = 0;
	ssize_t len;

	(void)state;
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(len > 0);
	self[len] = '\0';
	assert_int_equal(initramfs_elf_deps(self, &paths, &n), 0);
	assert_true(n >= 2);
	/* The interpreter comes first; every path is absolute and readable. */
	assert_int_equal(paths[0][0], '/');
	assert_non_null(strstr(paths[0], "ld"));
	for (i = 0; i < n; i++) {
		assert_int_equal(paths[i][0], '/');
		assert_int_equal(access(paths[i], R_OK), 0);
		if (strstr(paths[i], "/libc.so"))
			have_libc = 1;
		free(paths[i]);
	}
	free(paths);
	assert_true(have_libc);
	/* Not an ELF file. */
	assert_int_equal(initramfs_elf_deps("/proc/self/status", &paths, &n), -1);
}

static void test_guest(void **state)
{
	char self[4096];
	struct guest_spec spec = { 0 };
	struct initramfs a;
	struct cpio_entry *v;
	const struct cpio_entry *e;
	char why[128], **libs;
	size_t n, nlibs, i;
	ssize_t len;

	(void)state;
	if (access("/bin/busybox", X_OK)) {
		wb_skip("no /bin/busybox (install busybox-static)");
		return;
	}
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(len > 0);
	self[len] = '\0';
	spec.wakebench = self;
	spec.busybox = "/bin/busybox";
	initramfs_init(&a);
	assert_int_equal(initramfs_build_guest(&a, &spec), 0);
	assert_int_equal(cpio_parse(a.buf, a.len, &v, &n, why, sizeof(why)), 0);
	e = find(v, n, "init");
	assert_non_null(e);
	assert_int_equal(e->mode, S_IFREG | 0755);
	assert_memory_equal(e->data, "#!/bin/sh\n", 10);
	assert_int_equal(e->size, strlen(initramfs_init_script()));
	assert_non_null(find(v, n, "bin/busybox"));
	assert_int_equal(find(v, n, "bin/sh")->mode & S_IFMT, S_IFLNK);
	e = find(v, n, "bin/wakebench");
	assert_non_null(e);
	assert_memory_equal(e->data, "\177ELF", 4);
	assert_int_equal(find(v, n, "dev/console")->rdev_major, 5);
	for (i = 0; i < 5; i++) {
		static const char *const dirs[] = { "proc", "sys", "dev", "tmp", "run" };

		assert_int_equal(find(v, n, dirs[i])->mode & S_IFMT, S_IFDIR);
	}
	/* Every library the binary needs is in the archive at its own path. */
	assert_int_equal(initramfs_elf_deps(self, &libs, &nlibs), 0);
	for (i = 0; i < nlibs; i++) {
		e = find(v, n, libs[i] + 1);
		assert_non_null(e);
		assert_int_equal(e->mode & S_IFMT, S_IFREG);
		free(libs[i]);
	}
	free(libs);
	/* The init script mounts, runs the guest side and powers off. */
	assert_non_null(strstr(initramfs_init_script(), "mount -t proc"));
	assert_non_null(strstr(initramfs_init_script(), "mount -t debugfs"));
	assert_non_null(strstr(initramfs_init_script(), "mount -t tracefs"));
	assert_non_null(strstr(initramfs_init_script(), "wakebench vm --guest"));
	assert_non_null(strstr(initramfs_init_script(), "poweroff -f"));
	cpio_entries_free(v, n);
	initramfs_release(&a);

	/* A dynamic binary is refused as the guest's busybox. */
	spec.busybox = self;
	initramfs_init(&a);
	assert_int_equal(initramfs_build_guest(&a, &spec), -1);
	initramfs_release(&a);
}

/*
 * A minimal 64-bit ELF file: one PT_LOAD over the whole file, PT_INTERP when
 * interp is given, PT_DYNAMIC with DT_NEEDED for each of needed[] (NULL-ended).
 */
static void make_elf(const char *path, unsigned machine, const char *interp,
		     const char *const *needed)
{
	enum { BASE = 0x400000, DATA = 0x100 };
	unsigned char buf[4096];
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Phdr *ph = (Elf64_Phdr *)(buf + sizeof(*eh));
	size_t off = DATA, strtab, strsz, dyn, nph = 0, i, len;
	Elf64_Dyn *d;
	int fd;

	memset(buf, 0, sizeof(buf));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = (Elf64_Half)machine;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	if (interp) {
		len = strlen(interp) + 1;
		memcpy(buf + off, interp, len);
		ph[nph].p_type = PT_INTERP;
		ph[nph].p_offset = off;
		ph[nph].p_vaddr = BASE + off;
		ph[nph].p_filesz = len;
		nph++;
		off += len;
	}
	strtab = off;
	buf[off++] = '\0';
	for (i = 0; needed && needed[i]; i++) {
		len = strlen(needed[i]) + 1;
		memcpy(buf + off, needed[i], len);
		off += len;
	}
	strsz = off - strtab;
	off = (off + 7) & ~(size_t)7;
	dyn = off;
	d = (Elf64_Dyn *)(buf + dyn);
	for (i = 0, len = 1; needed && needed[i]; i++) {
		d->d_tag = DT_NEEDED;
		d->d_un.d_val = len;
		len += strlen(needed[i]) + 1;
		d++;
	}
	d->d_tag = DT_STRTAB;
	d->d_un.d_ptr = BASE + strtab;
	d++;
	d->d_tag = DT_STRSZ;
	d->d_un.d_val = strsz;
	d++;
	d->d_tag = DT_NULL;
	d++;
	off = (size_t)((unsigned char *)d - buf);
	ph[nph].p_type = PT_DYNAMIC;
	ph[nph].p_offset = dyn;
	ph[nph].p_vaddr = BASE + dyn;
	ph[nph].p_filesz = off - dyn;
	nph++;
	ph[nph].p_type = PT_LOAD;
	ph[nph].p_offset = 0;
	ph[nph].p_vaddr = BASE;
	ph[nph].p_filesz = off;
	nph++;
	eh->e_phnum = (Elf64_Half)nph;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, off), (ssize_t)off);
	close(fd);
}

static void mkdirs(const char *root, const char *rel)
{
	char path[4096], *p;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	mkdir(path, 0755);
}

static char *at(const char *root, const char *rel)
{
	return xasprintf("%s%s", root, rel);
}

static int has_path(char **paths, size_t n, const char *p)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(paths[i], p))
			return 1;
	return 0;
}

static void free_list(char **paths, size_t n)
{
	while (n)
		free(paths[--n]);
	free(paths);
}

/* The walk of a native binary finds what its interpreter lists (same file names). */
static void test_elf_deps_walk_native(void **state)
{
	char self[4096], **listed, **walked;
	size_t nl, nw, i, j;
	ssize_t len;

	(void)state;
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(len > 0);
	self[len] = '\0';
	assert_int_equal(initramfs_elf_deps(self, &listed, &nl), 0);
	assert_int_equal(initramfs_elf_deps_walk(self, NULL, &walked, &nw), 0);
	assert_int_equal(nl, nw);
	for (i = 0; i < nl; i++) {
		const char *b = strrchr(listed[i], '/') + 1;
		int found = 0;

		for (j = 0; j < nw; j++)
			found |= !strcmp(strrchr(walked[j], '/') + 1, b);
		if (!found)
			fail_msg("'%s' listed by the interpreter, not found by the walk",
				 listed[i]);
	}
	free_list(listed, nl);
	free_list(walked, nw);
}

/*
 * An arm64 guest from a sysroot: the interpreter and libraries come from
 * DT_NEEDED, transitively, each from the sysroot at its guest path; a file
 * of another machine earlier in the search order is passed over; a binary
 * of the wrong machine and a missing library are refused.
 */
static void test_guest_foreign(void **state)
{
	static const char *const exe_needs[] = { "libfoo.so.1", NULL };
	static const char *const foo_needs[] = { "libbar.so.2", NULL };
	static const char *const missing_needs[] = { "libnothere.so.9", NULL };
	char root[] = "/tmp/wakebench-t-initramfs-sr.XXXXXX", *exe, *bb, *p, **paths, why[128];
	char self[4096];
	struct guest_spec spec = { 0 };
	struct initramfs a;
	struct cpio_entry *v;
	const struct cpio_entry *e;
	size_t n, nv;
	ssize_t len;

	(void)state;
	assert_non_null(mkdtemp(root));
	mkdirs(root, "lib/aarch64-linux-gnu");
	mkdirs(root, "usr/lib/aarch64-linux-gnu");
	mkdirs(root, "bin");
	make_elf(p = at(root, "/lib/ld-linux-aarch64.so.1"), EM_AARCH64, NULL, NULL);
	free(p);
	/* The decoy comes first in the loader's order but is x86-64. */
	make_elf(p = at(root, "/lib/aarch64-linux-gnu/libfoo.so.1"), EM_X86_64, NULL, NULL);
	free(p);
	make_elf(p = at(root, "/usr/lib/aarch64-linux-gnu/libfoo.so.1"), EM_AARCH64, NULL,
		 foo_needs);
	free(p);
	make_elf(p = at(root, "/usr/lib/aarch64-linux-gnu/libbar.so.2"), EM_AARCH64, NULL, NULL);
	free(p);
	make_elf(exe = at(root, "/bin/wakebench"), EM_AARCH64, "/lib/ld-linux-aarch64.so.1",
		 exe_needs);
	make_elf(bb = at(root, "/bin/busybox"), EM_AARCH64, NULL, NULL);

	assert_int_equal(initramfs_elf_deps_walk(exe, root, &paths, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(paths[0], "/lib/ld-linux-aarch64.so.1");
	assert_true(has_path(paths, n, "/usr/lib/aarch64-linux-gnu/libfoo.so.1"));
	assert_true(has_path(paths, n, "/usr/lib/aarch64-linux-gnu/libbar.so.2"));
	free_list(paths, n);

	spec.wakebench = exe;
	spec.busybox = bb;
	spec.machine = EM_AARCH64;
	spec.sysroot = root;
	initramfs_init(&a);
	assert_int_equal(initramfs_build_guest(&a, &spec), 0);
	assert_int_equal(cpio_parse(a.buf, a.len, &v, &nv, why, sizeof(why)), 0);
	e = find(v, nv, "usr/lib/aarch64-linux-gnu/libfoo.so.1");
	assert_non_null(e);
	assert_int_equal(((const Elf64_Ehdr *)(const void *)e->data)->e_machine, EM_AARCH64);
	assert_non_null(find(v, nv, "lib/ld-linux-aarch64.so.1"));
	assert_non_null(find(v, nv, "usr/lib/aarch64-linux-gnu/libbar.so.2"));
	assert_null(find(v, nv, "lib/aarch64-linux-gnu/libfoo.so.1"));
	assert_non_null(find(v, nv, "bin/wakebench"));
	cpio_entries_free(v, nv);
	initramfs_release(&a);

	/* This build's own binary is not an arm64 guest's (unless this is arm64). */
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(len > 0);
	self[len] = '\0';
	if (initramfs_elf_machine(self) != EM_AARCH64) {
		spec.wakebench = self;
		initramfs_init(&a);
		assert_int_equal(initramfs_build_guest(&a, &spec), -1);
		initramfs_release(&a);
		spec.wakebench = exe;
	}
	/* A library found nowhere for the binary's machine. */
	make_elf(exe, EM_AARCH64, "/lib/ld-linux-aarch64.so.1", missing_needs);
	assert_int_equal(initramfs_elf_deps_walk(exe, root, &paths, &n), -1);
	assert_int_equal(n, 0);
	free(exe);
	free(bb);
	{
		char *cmd = xasprintf("rm -rf '%s'", root);

		assert_int_equal(system(cmd), 0);
		free(cmd);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_read),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_bad_paths),
		cmocka_unit_test(test_concatenated_and_malformed),
		cmocka_unit_test(test_cpio_tool),
		cmocka_unit_test(test_elf_deps),
		cmocka_unit_test(test_guest),
		cmocka_unit_test(test_elf_deps_walk_native),
		cmocka_unit_test(test_guest_foreign),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
