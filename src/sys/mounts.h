/*
 * mounts.h: debugfs and tracefs for a root process on a machine that has
 * them unmounted (as a fresh machine boots). Rather than change the host's
 * mount table, the process enters a private mount namespace of its own and
 * mounts them there: debugfs is one superblock, so sched/features and
 * sched/debug are the kernel's real files, and the mounts vanish with the
 * process (and its workload children, which inherit the namespace).
 */
#ifndef WAKEBENCH_SYS_MOUNTS_H
#define WAKEBENCH_SYS_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>

#define MOUNTS_DEBUGFS_DIR "/sys/kernel/debug"
#define MOUNTS_TRACEFS_DIR "/sys/kernel/tracing"

enum {
	MOUNTS_DEBUGFS = 1 << 0,
	MOUNTS_TRACEFS = 1 << 1,
};

/* Is a file system of the given statfs magic mounted at dir itself? */
bool mounts_is(const char *dir, long magic);

/* Which of MOUNTS_DEBUGFS | MOUNTS_TRACEFS are not mounted at their standard directories. */
unsigned mounts_missing(void);

/*
 * Mount the missing ones (a MOUNTS_* mask) in a private mount namespace,
 * entered on the first call (unshare(CLONE_NEWNS), then every mount made
 * private so nothing propagates back to the host). *done gets the mask
 * actually mounted. Returns 0, or -1 with the reason in why (nothing of the
 * host is changed either way). Needs CAP_SYS_ADMIN and a single-threaded
 * caller.
 */
int mounts_private(unsigned want, unsigned *done, char *why, size_t len);

#endif
