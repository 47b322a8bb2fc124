/*
 * image.c: the libraries a forked task sheds (image.h). The list is the
 * Makefile's PKGS as the loader maps them, with what they pull in (libbpf:
 * libelf, libz; libelf: libzstd where it links it; gsl: gslcblas); libc,
 * libm, the loader and whatever else is mapped (a sanitizer's runtime, a
 * preloaded allocator) stay. /proc/self/maps is read in pieces into a
 * buffer on the stack, and the ranges are unmapped after it is closed.
 */
#include "sys/image.h"
#include "util/util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const char *const shed_names[] = {
	"sqlite3", "json-c", "yajl", "yaml-0", "uuid",	 "gsl", "gslcblas",
	"bpf",	   "elf",    "z",    "zstd",   "crypto", "ssl",
};

#define SHED_MAX 256

/* Whether a dynamic section asks for every symbol to be bound at load time. */
static bool dyn_bound_now(const ElfW(Dyn) * d)
{
	for (; d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_BIND_NOW))
			return true;
		if (d->d_tag == DT_FLAGS_1 && (d->d_un.d_val & DF_1_NOW))
			return true;
	}
	return false;
}

/* Whether a dynamic section has lazily bound calls (PLT slots) at all. */
static bool dyn_has_plt(const ElfW(Dyn) * d)
{
	for (; d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_PLTRELSZ && d->d_un.d_val > 0)
			return true;
	return false;
}

static bool env_bind_now(void)
{
	const char *env = getenv("LD_BIND_NOW");

	return env && *env;
}

bool image_bound_now(void)
{
	return env_bind_now() || dyn_bound_now(_DYNAMIC);
}

/* libc, libm and the loader, by file name (libc.so.6, ld-linux-aarch64.so.1) */
static bool c_library(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "libc.so", 7) || !strncmp(base, "libm.so", 7) ||
	       !strncmp(base, "ld-linux", 8) || !strncmp(base, "ld.so", 5);
}

struct lazy_scan {
	char *name;
	size_t len;
	bool found;
};

static int scan_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct lazy_scan *ls = arg;
	const ElfW(Dyn) *dyn = NULL;
	const char *name = info->dlpi_name;
	int i;

	(void)size;
	/* the program itself is image_bound_now()'s; shed ones are never called */
	if (!name || !*name || image_sheddable(name) || c_library(name))
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	if (!dyn || dyn_bound_now(dyn) || !dyn_has_plt(dyn))
		return 0;
	snprintf(ls->name, ls->len, "%s", name);
	ls->found = true;
	return 1;
}

bool image_lazy_object(char *name, size_t len)
{
	struct lazy_scan ls = { name, len, false };

	if (env_bind_now())
		return false;
	dl_iterate_phdr(scan_object, &ls);
	return ls.found;
}

bool image_sheddable(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t i;

	base = base ? base + 1 : path;
	if (strncmp(base, "lib", 3))
		return false;
	base += 3;
	for (i = 0; i < ARRAY_SIZE(shed_names); i++) {
		size_t n = strlen(shed_names[i]);

		const char *rest = base + n;

		if (strncmp(base, shed_names[i], n))
			continue;
		/* libNAME.so[.VERSION], or libNAME-VERSION.so (libelf-0.188.so) */
		if (!strncmp(rest, ".so", 3) && (rest[3] == '\0' || rest[3] == '.'))
			return true;
		if (rest[0] == '-' && rest[1] >= '0' && rest[1] <= '9' && strstr(rest, ".so"))
			return true;
	}
	return false;
}

/* One line of /proc/self/maps: "lo-hi perms offset dev inode   path". */
static void note_line(char *line, unsigned long (*r)[2], unsigned *n)
{
	char *path = strchr(line, '/');
	unsigned long lo, hi;

	if (!path || *n >= SHED_MAX || !image_sheddable(path))
		return;
	if (sscanf(line, "%lx-%lx", &lo, &hi) != 2 || hi <= lo)
		return;
	r[*n][0] = lo;
	r[*n][1] = hi;
	(*n)++;
}

int image_shed(unsigned *nmaps)
{
	unsigned long r[SHED_MAX][2];
	char buf[8192];
	size_t have = 0;
	bool skip = false; /* in the rest of a line longer than buf */
	unsigned n = 0, i;
	int fd;

	*nmaps = 0;
	if (!image_bound_now() || image_lazy_object(buf, sizeof(buf))) {
		errno = ENOTSUP;
		return -1;
	}
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t got = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *line, *nl;

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;

			close(fd);
			errno = e;
			return -1;
		}
		have += (size_t)got;
		buf[have] = '\0';
		for (line = buf; (nl = strchr(line, '\n')); line = nl + 1) {
			*nl = '\0';
			if (!skip)
				note_line(line, r, &n);
			skip = false;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have + 1);
		if (got == 0) {
			if (!skip)
				note_line(buf, r, &n);
			break;
		}
		if (have == sizeof(buf) - 1) {
			/* no path of ours is that long */
			skip = true;
			have = 0;
		}
	}
	close(fd);
	for (i = 0; i < n; i++) {
		if (munmap((void *)r[i][0], r[i][1] - r[i][0]) == 0)
			(*nmaps)++;
	}
	return 0;
}
