/*
 * image.h: a forked task's process image made as light as a small program's.
 *
 * A process's exit tears down every mapping it holds. A task forked from
 * wakebench holds the mappings of every library wakebench links (SQLite,
 * GSL, libcrypto, libbpf ...: some sixty), where a task forked from
 * rt-tests' hackbench holds libc's and the loader's. For a workload whose
 * time includes its tasks' exits (messaging, as hackbench times it), the
 * difference is measured: pipes with processes took 1.07-1.16x hackbench's
 * time with the libraries mapped, 0.87-0.93x without (bench/vs-hackbench.sh).
 *
 * image_shed() unmaps, in the calling process, the libraries wakebench
 * links for its own sake (the store, statistics, tracing, formats), none
 * of which a workload task calls. It unmaps nothing unless the program's
 * symbols were all bound at load time (linked with -z now, as the Makefile
 * and the Debian package do, or run with LD_BIND_NOW): a lazily bound
 * first call would look its symbol up in the unmapped libraries. Nor when
 * another object that stays is lazily bound: a sanitizer's runtime (whose
 * report of a fault in the task looked up pthread_self, faulted in the
 * lookup and reported that again, forever), a preloaded library, anything
 * dlopen()ed. The C library's own objects (libc, libm, the loader) are
 * lazily bound on Debian but excepted: their few lazy slots (Debian 12:
 * the loader's private entry points, calloc, realloc, qsort, some stdio)
 * are not on a task's path after the shed (read, write, the clock, _exit,
 * formatting a failure).
 */
#ifndef WAKEBENCH_IMAGE_H
#define WAKEBENCH_IMAGE_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the program's symbols were bound at load time. */
bool image_bound_now(void);

/*
 * Whether a loaded object other than the program, the shed libraries and
 * the C library's own is lazily bound (not under LD_BIND_NOW); its name
 * goes to name (len bytes).
 */
bool image_lazy_object(char *name, size_t len);

/*
 * Whether path (a mapping's file) is one of the libraries image_shed()
 * unmaps: its file name is libNAME.so[.VERSION] or libNAME-VERSION.so for
 * a NAME of the list.
 */
bool image_sheddable(const char *path);

/*
 * Unmap those libraries; *nmaps is set to the mappings unmapped. 0, or -1
 * with errno: ENOTSUP when not bound at load time or when another object
 * is lazily bound (nothing unmapped), or
 * what reading /proc/self/maps failed with. Uses no heap.
 */
int image_shed(unsigned *nmaps);

#endif
