/*
 * kernel.c: what a command that measures, or reads or writes the scheduler
 * features, does on its way in, before it touches the kernel: make the
 * kernel's debug interfaces reachable (private debugfs/tracefs mounts for
 * root on a machine that has them unmounted, sys/mounts.h).
 *
 * Mounting is skipped when --debugfs names a directory (that mount is used
 * as it is), when WAKEBENCH_ROOT points the probes at a fake tree, and when
 * not root (the commands then say that they need root).
 *
 * Then the one check of the features journal on the way into every such
 * command (after the mounts, so that the journal's debugfs is reachable):
 * a journal whose owner is gone means a wakebench died with features
 * changed, and nothing may read or measure the kernel before they are put
 * back (sys/features.h, features_recover()).
 *
 * And the one wording of features that cannot be used here: what is
 * missing (root, or a kernel without lockdown) and what works instead.
 */
#include "cli/cli.h"
#include "sys/features.h"
#include "sys/mounts.h"
#include "util/text.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char cli_default_debugfs[] = MOUNTS_DEBUGFS_DIR;

bool cli_debugfs_given(const struct ctx *ctx)
{
	return ctx->debugfs != cli_default_debugfs;
}

/* "debugfs", "tracefs" or "debugfs and tracefs", and where, for a MOUNTS_* mask. */
static void mount_names(unsigned m, char *names, size_t nlen, char *dirs, size_t dlen)
{
	bool both = (m & MOUNTS_DEBUGFS) && (m & MOUNTS_TRACEFS);

	snprintf(names, nlen, "%s%s%s", m & MOUNTS_DEBUGFS ? "debugfs" : "", both ? " and " : "",
		 m & MOUNTS_TRACEFS ? "tracefs" : "");
	snprintf(dirs, dlen, "%s%s%s", m & MOUNTS_DEBUGFS ? MOUNTS_DEBUGFS_DIR : "",
		 both ? " and " : "", m & MOUNTS_TRACEFS ? MOUNTS_TRACEFS_DIR : "");
}

static void mount_missing(const struct ctx *ctx, const char *cmd, unsigned want)
{
	static bool said;
	unsigned done = 0;
	char why[512], names[64], dirs[128];

	if (cli_debugfs_given(ctx) || strcmp(ctx->root, "/") || geteuid() != 0)
		return;
	want &= mounts_missing();
	if (!want)
		return;
	if (mounts_private(want, &done, why, sizeof(why))) {
		warning("%s: %s", cmd, why);
		return;
	}
	if (!done || said)
		return;
	said = true;
	mount_names(done, names, sizeof(names), dirs, sizeof(dirs));
	if (ctx->verbose)
		info("%s: mounted %s in a private mount namespace, at %s; the host's mounts are "
		     "unchanged",
		     cmd, names, dirs);
	else
		info("%s: %s not mounted: mounted privately for this run (the host's mounts are "
		     "unchanged)",
		     cmd, names);
}

/* A dead owner's journal is restored first; a live owner is mentioned. */
static int journal_check(const struct ctx *ctx, const char *cmd, unsigned need)
{
	enum features_fail fail = FEATURES_OK;
	char why[2048];
	pid_t owner = 0;
	int rc;

	if (need & CLI_RECOVERS_FEATURES)
		return 0;
	rc = features_recover(ctx->state_dir, &owner, &fail, why, sizeof(why));
	if (rc < 0) {
		error("%s: %s", cmd, why);
		return features_fail_exit(fail);
	}
	if (rc == 1 && !(need & CLI_CHANGES_FEATURES))
		warning("%s: wakebench pid %d is changing the scheduler features right now and "
			"will restore them when it ends: what is read or measured meanwhile is "
			"under its changes",
			cmd, (int)owner);
	return 0;
}

/*
 * A --debugfs that does not exist or is not a directory is a typo, not a
 * kernel without the interface: said before anything runs, rather than
 * every probe finding nothing there. One this user cannot reach (EACCES)
 * may well be debugfs: what needs it says that it needs root.
 */
static void check_debugfs_dir(const char *cmd, const char *dir)
{
	struct stat sb;
	const char *why;

	if (!stat(dir, &sb))
		why = S_ISDIR(sb.st_mode) ? NULL : "is not a directory";
	else
		why = errno == ENOENT || errno == ENOTDIR ? "does not exist" : NULL;
	if (why)
		die_usage("%s: option '--debugfs': '%s' %s, allowed the directory where debugfs "
			  "is mounted (default %s)",
			  cmd, text_printable(dir, 0), why, cli_default_debugfs);
}

int cli_kernel_prepare(struct ctx *ctx, const char *cmd, unsigned need)
{
	unsigned want = 0;

	/* main.c's table says which commands may write the features: keep it true */
	if ((need & (CLI_CHANGES_FEATURES | CLI_RECOVERS_FEATURES)) &&
	    !(ctx->cmd_flags & CMD_TOUCHES_KERNEL))
		BUG("%s: writes the scheduler features but its row lacks CMD_TOUCHES_KERNEL", cmd);
	if (need & CLI_NEED_DEBUGFS)
		want |= MOUNTS_DEBUGFS;
	if (need & CLI_NEED_TRACEFS)
		want |= MOUNTS_TRACEFS;
	if (!*ctx->debugfs)
		die_usage("%s: option '--debugfs': empty directory name, allowed the directory "
			  "where debugfs is mounted (default %s)",
			  cmd, cli_default_debugfs);
	if (cli_debugfs_given(ctx))
		check_debugfs_dir(cmd, ctx->debugfs);
	mount_missing(ctx, cmd, want);
	return journal_check(ctx, cmd, need);
}

/* The same command in a VM, where the guest's features can be toggled. */
static void vm_hint(char *buf, size_t len, const char *vm_cmd)
{
	if (!vm_cmd)
		buf[0] = '\0';
	else
		snprintf(buf, len,
			 "wakebench vm --kernel IMAGE -- %s [OPTIONS] (IMAGE: a kernel image of "
			 "your choice, booted with qemu; doc/vm.md)",
			 vm_cmd);
}

int cli_features_unusable(const struct ctx *ctx, const char *cmd, const char *verb,
			  enum features_fail fail, const char *why, const char *vm_cmd)
{
	char vm[512];
	bool not_root =
		geteuid() != 0 && (fail == FEATURES_NOT_ROOT ||
				   (fail == FEATURES_NO_DEBUGFS && !cli_debugfs_given(ctx)));

	vm_hint(vm, sizeof(vm), vm_cmd);
	if (not_root)
		error("%s needs root to %s '%s/sched/features' (running as uid %u): run it as "
		      "root%s%s",
		      cmd, verb, ctx->debugfs, (unsigned)geteuid(),
		      vm[0] ? ", or without root in a VM: " : "", vm);
	else if (fail == FEATURES_LOCKDOWN)
		error("%s: %s; no scheduler feature can be changed on this kernel%s%s", cmd, why,
		      vm[0] ? ", but in a VM they can: " : "", vm);
	else
		error("%s: %s", cmd, why);
	return features_fail_exit(fail);
}
