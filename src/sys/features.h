/*
 * features.h: the scheduler features in <debugfs>/sched/features (DESIGN
 * section 6): parsing the kernel's one-line format, validating names against
 * the live list, writing one token per write(2) with read-back, the restore
 * journal that guarantees the kernel is put back the way it was, and a
 * read-only fallback for kernels in lockdown (the .sysctl_sched_features
 * bitmask in <debugfs>/sched/debug decoded with names from the kernel's BTF).
 *
 * The kernel's format: every feature in bit order, "NO_" prefixed when off,
 * each token followed by one space (also the last), then "\n". A write is
 * exactly one token, NAME or NO_NAME, at most 63 bytes; anything else is
 * EINVAL. Names differ between versions and vendors: never hard-code them.
 *
 * Failures are classified (enum features_fail) so that commands can map them
 * to exit codes (lockdown, not root, no debugfs, file absent: 77) and print
 * one specific line (in `why`).
 */
#ifndef WAKEBENCH_FEATURES_H
#define WAKEBENCH_FEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FEATURES_MAX	  64 /* the kernel keeps them in one unsigned int: 32 */
#define FEATURE_NAME_MAX  64 /* a write is at most 63 bytes, "NO_" included */
#define FEATURES_LINE_MAX (FEATURES_MAX * (FEATURE_NAME_MAX + 1) + 2)

enum features_fail {
	FEATURES_OK = 0,
	FEATURES_NO_DEBUGFS, /* debugfs is not mounted at the given directory */
	FEATURES_ABSENT,     /* no sched/features: before 6.15 without CONFIG_SCHED_DEBUG */
	FEATURES_LOCKDOWN,   /* EPERM: kernel lockdown, even for root */
	FEATURES_NOT_ROOT,   /* EACCES */
	FEATURES_INVALID,    /* a name not in this kernel's list, or a malformed file */
	FEATURES_BUSY,	     /* another live wakebench owns the journal */
	FEATURES_IO,	     /* anything else */
};

enum features_source {
	FEATURES_SRC_NONE = 0,
	FEATURES_SRC_FILE,	/* <debugfs>/sched/features */
	FEATURES_SRC_DEBUG_BTF, /* read-only: sched/debug bitmask + BTF enum names */
};

struct features {
	size_t n;
	char name[FEATURES_MAX][FEATURE_NAME_MAX]; /* in bit order, without "NO_" */
	bool on[FEATURES_MAX];
	enum features_source source;
	enum features_fail fail; /* set when a function fails */
};

/* Exit status a command should use for a failure class (77 or 1 or 2). */
int features_fail_exit(enum features_fail f);

/*
 * Parse the kernel's one-line format (trailing space and newline optional).
 * Returns 0, or -1 with one line in why (malformed token, duplicate, too many).
 */
int features_parse(const char *line, struct features *out, char *why, size_t whylen);

/* The kernel's exact format: "A NO_B C \n" (every token followed by a space). */
void features_format(const struct features *f, char *buf, size_t len);

/* Index of a name (without "NO_") or -1. */
int features_find(const struct features *f, const char *name);

/* The names of f as "A, B, C" for error messages. */
void features_names(const struct features *f, char *buf, size_t len);

/*
 * Validate one token ("NAME" or "NO_NAME") against the live list. On success
 * *idx is the feature and *on its requested state. On failure -1 with
 * fail = FEATURES_INVALID and a line listing this kernel's names.
 */
int features_token(const struct features *live, const char *tok, size_t *idx, bool *on, char *why,
		   size_t whylen);

/*
 * Read <debugfs>/sched/features. Returns 0, or -1 with out->fail and one
 * specific line in why: "debugfs is not mounted at '/sys/kernel/debug'
 * (mount -t debugfs none /sys/kernel/debug)", "kernel lockdown prevents
 * reading ...", and so on. The environment fingerprint calls this for its
 * sched.features key.
 */
int features_read(const char *debugfs, struct features *out, char *why, size_t whylen);

/*
 * Read-only fallback: the .sysctl_sched_features bitmask from
 * <debugfs>/sched/debug, with names in bit order from the BTF enum
 * __SCHED_FEAT_* of btf_path (NULL: the running kernel's, via libbpf's
 * btf__load_vmlinux_btf()). out->source is FEATURES_SRC_DEBUG_BTF.
 */
int features_read_debug(const char *debugfs, const char *btf_path, struct features *out, char *why,
			size_t whylen);

/*
 * features_read(), and when that fails because the file cannot be opened
 * (lockdown, not root), features_read_debug(). On success with the fallback,
 * why and out->fail still hold the reason the file itself is unusable.
 */
int features_read_any(const char *debugfs, const char *btf_path, struct features *out, char *why,
		      size_t whylen);

/*
 * Write exactly one token per write(2) for every feature whose state in
 * want differs from the live file (want may list a subset of the names, by
 * name), then read back and verify. Returns 0, or -1 with fail/why.
 */
int features_write(const char *debugfs, const struct features *want, enum features_fail *fail,
		   char *why, size_t whylen);

/* ---- the restore journal ---- */

/*
 * A journal in the state directory (root-only, 0700) holds the complete
 * original feature string, the owner's pid, its start time (to tell a reused
 * pid), the boot id and the debugfs directory. It is created atomically and
 * exclusively (written to a temporary file, fsync'd, then link(2)ed into
 * place, which fails if one exists), so it is also the lock that keeps two
 * wakebench processes from interleaving toggles.
 */
struct features_journal {
	pid_t pid;
	uint64_t start_ticks; /* /proc/<pid>/stat field 22 */
	uint64_t started_realtime_ns;
	char boot_id[40];
	char debugfs[1024];
	char original[FEATURES_LINE_MAX];
};

/* <state_dir>/features.journal */
void features_journal_path(const char *state_dir, char *buf, size_t len);
int features_journal_write(const char *path, const struct features_journal *j, char *why,
			   size_t whylen);
/* 0 read, 1 absent, -1 malformed or unreadable (why). */
int features_journal_read(const char *path, struct features_journal *j, char *why, size_t whylen);
/* Is the journal's owner this boot's living process that wrote it? */
bool features_journal_owner_alive(const struct features_journal *j);

/*
 * A command that touches features calls this first. A journal left by a
 * dead owner of this boot is restored (only the differing tokens, verified)
 * and removed, with a warning saying so; one from an earlier boot is removed
 * (the reboot reset the features). Returns 0 (nothing left or recovered),
 * 1 when a live process owns the journal (*owner set; nothing done), -1 on
 * failure (fail/why; the journal is kept).
 */
int features_recover(const char *state_dir, pid_t *owner, enum features_fail *fail, char *why,
		     size_t whylen);

/* An owner's view: the features it changed and must put back. */
struct features_session {
	char debugfs[1024];
	char journal[1024];
	struct features original;
	struct features live; /* last state read back */
	bool active;	      /* journal in place: a restore is owed */
	enum features_fail fail;
};

/*
 * Recover stale journals, read the original state (which must be readable
 * and writable), and put the journal in place. Fails with FEATURES_BUSY when
 * another live wakebench holds it.
 */
int features_session_begin(struct features_session *s, const char *debugfs, const char *state_dir,
			   char *why, size_t whylen);
/* Apply tokens (validated before with features_token()); one write each. */
int features_session_apply(struct features_session *s, const char *const *tokens, size_t n,
			   char *why, size_t whylen);
/* Put the original back (differing tokens only, verified) and remove the journal. */
int features_session_restore(struct features_session *s, char *why, size_t whylen);
/* Keep the current state on purpose (features set) and remove the journal. */
int features_session_keep(struct features_session *s, char *why, size_t whylen);

#endif
