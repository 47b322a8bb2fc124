/*
 * mounts.c: private debugfs and tracefs mounts (see mounts.h for why).
 *
 * The test for "mounted" is the statfs magic of the directory itself, not a
 * search of /proc/self/mountinfo: a stacked or bind mount of the right file
 * system counts, an empty mount point does not.
 */
#include "sys/mounts.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statfs.h>

#ifndef DEBUGFS_MAGIC
#define DEBUGFS_MAGIC 0x64626720
#endif
#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC 0x74726163
#endif

bool mounts_is(const char *dir, long magic)
{
	struct statfs sf;

	return !statfs(dir, &sf) && (long)sf.f_type == magic;
}

unsigned mounts_missing(void)
{
	unsigned m = 0;

	if (!mounts_is(MOUNTS_DEBUGFS_DIR, DEBUGFS_MAGIC))
		m |= MOUNTS_DEBUGFS;
	if (!mounts_is(MOUNTS_TRACEFS_DIR, TRACEFS_MAGIC))
		m |= MOUNTS_TRACEFS;
	return m;
}

static int mount_one(const char *fstype, const char *dir, char *why, size_t len)
{
	if (!mount(fstype, dir, fstype, MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		return 0;
	snprintf(why, len, "cannot mount %s at '%s' in a private mount namespace: %s", fstype, dir,
		 strerror(errno));
	return -1;
}

int mounts_private(unsigned want, unsigned *done, char *why, size_t len)
{
	static bool unshared;

	*done = 0;
	if (!want)
		return 0;
	if (!unshared) {
		if (unshare(CLONE_NEWNS)) {
			snprintf(why, len, "cannot enter a private mount namespace: %s",
				 strerror(errno));
			return -1;
		}
		unshared = true;
		/* Nothing mounted from here on may propagate to the host's namespace. */
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
			snprintf(why, len, "cannot make the private mount namespace private: %s",
				 strerror(errno));
			return -1;
		}
	}
	if ((want & MOUNTS_DEBUGFS) && !mounts_is(MOUNTS_DEBUGFS_DIR, DEBUGFS_MAGIC)) {
		if (mount_one("debugfs", MOUNTS_DEBUGFS_DIR, why, len))
			return -1;
		*done |= MOUNTS_DEBUGFS;
	}
	if ((want & MOUNTS_TRACEFS) && !mounts_is(MOUNTS_TRACEFS_DIR, TRACEFS_MAGIC)) {
		if (mount_one("tracefs", MOUNTS_TRACEFS_DIR, why, len))
			return -1;
		*done |= MOUNTS_TRACEFS;
	}
	return 0;
}
