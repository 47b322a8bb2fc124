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

bool image_bound_now(void)
{
	const char *env = getenv("LD_BIND_NOW");
	const ElfW(Dyn) * d;

	if (env && *env)
		return true;
	for (d = _DYNAMIC; d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_BIND_NOW))
			return true;
		if (d->d_tag == DT_FLAGS_1 && (d->d_un.d_val & DF_1_NOW))
			return true;
	}
	return false;
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
	if (!image_bound_now()) {
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
