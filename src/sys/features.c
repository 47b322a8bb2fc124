/*
 * features.c: the scheduler features file and the promise that goes with
 * changing it: whatever happens to wakebench, the kernel is put back the way
 * it was.
 *
 * It owns the parser of the kernel's one-line format, the token rules (one
 * NAME or NO_NAME per write(2), read back and verified), the classification
 * of every way the file can be unusable (debugfs not mounted, file absent,
 * lockdown, not root, unknown name), the read-only fallback for lockdown
 * (sched/debug bitmask + BTF enum names via libbpf), and the restore journal
 * that doubles as the lock between concurrent wakebench processes. Signal
 * handling is the caller's: the handlers only set flags, so every write here
 * runs to completion.
 */
#include "sys/features.h"
#include "util/identity.h"
#include "util/suggest.h"
#include "util/text.h"
#include "util/util.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail_with(enum features_fail *slot, enum features_fail f, char *why, size_t whylen,
		     const char *fmt, ...) PRINTF_LIKE(5, 6);

static int fail_with(enum features_fail *slot, enum features_fail f, char *why, size_t whylen,
		     const char *fmt, ...)
{
	va_list ap;

	if (slot)
		*slot = f;
	if (why && whylen) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

int features_fail_exit(enum features_fail f)
{
	switch (f) {
	case FEATURES_OK:
		return EXIT_OK;
	case FEATURES_NO_DEBUGFS:
	case FEATURES_ABSENT:
	case FEATURES_LOCKDOWN:
	case FEATURES_NOT_ROOT:
		return EXIT_SKIP;
	case FEATURES_INVALID:
	case FEATURES_BUSY:
	case FEATURES_IO:
		break;
	}
	return EXIT_RUNTIME;
}

/* ---- the format ---- */

static bool valid_name_char(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       (c >= 'a' && c <= 'z');
}

int features_find(const struct features *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (!strcmp(f->name[i], name))
			return (int)i;
	return -1;
}

int features_parse(const char *line, struct features *out, char *why, size_t whylen)
{
	const char *p = line;

	memset(out, 0, sizeof(*out));
	out->source = FEATURES_SRC_FILE;
	for (;;) {
		const char *tok;
		size_t len;
		bool on = true;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\n') {
			p++;
			while (*p == ' ' || *p == '\t' || *p == '\n')
				p++;
			if (*p)
				return fail_with(&out->fail, FEATURES_INVALID, why, whylen,
						 "more than one line in the features file");
			break;
		}
		if (!*p)
			break;
		tok = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
			if (!valid_name_char((unsigned char)*p))
				return fail_with(&out->fail, FEATURES_INVALID, why, whylen,
						 "unexpected character '%c' in the features file",
						 *p);
			p++;
		}
		len = (size_t)(p - tok);
		if (len > 3 && !strncmp(tok, "NO_", 3)) {
			tok += 3;
			len -= 3;
			on = false;
		}
		if (len + 3 >= FEATURE_NAME_MAX)
			return fail_with(&out->fail, FEATURES_INVALID, why, whylen,
					 "feature name '%.*s' is too long", (int)len, tok);
		if (out->n == FEATURES_MAX)
			return fail_with(&out->fail, FEATURES_INVALID, why, whylen,
					 "more than %d features", FEATURES_MAX);
		memcpy(out->name[out->n], tok, len);
		out->name[out->n][len] = '\0';
		if (features_find(out, out->name[out->n]) >= 0)
			return fail_with(&out->fail, FEATURES_INVALID, why, whylen,
					 "feature '%s' appears twice", out->name[out->n]);
		out->on[out->n++] = on;
	}
	if (!out->n)
		return fail_with(&out->fail, FEATURES_INVALID, why, whylen,
				 "the features file is empty");
	return 0;
}

void features_format(const struct features *f, char *buf, size_t len)
{
	size_t used = 0, i;

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 0; i < f->n; i++) {
		int n = snprintf(buf + used, len - used, "%s%s ", f->on[i] ? "" : "NO_",
				 f->name[i]);

		if (n < 0 || (size_t)n >= len - used)
			return;
		used += (size_t)n;
	}
	if (used + 1 < len) {
		buf[used++] = '\n';
		buf[used] = '\0';
	}
}

void features_names(const struct features *f, char *buf, size_t len)
{
	size_t used = 0, i;

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 0; i < f->n; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", f->name[i]);

		if (n < 0 || (size_t)n >= len - used)
			return;
		used += (size_t)n;
	}
}

/*
 * The tokens closest to a mistyped one: each name and its NO_ form, so that
 * `delay_dequeue` finds DELAY_DEQUEUE and `no_delay_dequeue` NO_DELAY_DEQUEUE.
 */
static const char *feature_hint(const struct features *live, const char *tok, char *buf, size_t len)
{
	struct suggest s;
	char no[FEATURE_NAME_MAX + 4];
	size_t i;

	suggest_init(&s, tok);
	for (i = 0; i < live->n; i++) {
		snprintf(no, sizeof(no), "NO_%s", live->name[i]);
		suggest_add(&s, live->name[i]);
		suggest_add(&s, no);
	}
	return suggest_hint(&s, "", buf, len);
}

int features_token(const struct features *live, const char *tok, size_t *idx, bool *on, char *why,
		   size_t whylen)
{
	const char *name = tok;
	char names[FEATURES_LINE_MAX];
	bool want = true;
	int i;

	if (!strncmp(tok, "NO_", 3)) {
		name = tok + 3;
		want = false;
	}
	i = *name ? features_find(live, name) : -1;
	/* A feature whose own name starts with NO_ (none does today) wins. */
	if (i < 0 && !want && features_find(live, tok) >= 0) {
		i = features_find(live, tok);
		want = true;
	}
	if (i < 0) {
		char hint[SUGGEST_HINT_MAX];

		features_names(live, names, sizeof(names));
		return fail_with(NULL, FEATURES_INVALID, why, whylen,
				 "unknown scheduler feature '%s'; this kernel has: %s%s", tok,
				 names, feature_hint(live, tok, hint, sizeof(hint)));
	}
	*idx = (size_t)i;
	*on = want;
	return 0;
}

/* ---- reading and writing the file ---- */

static void path_join(char *buf, size_t len, const char *dir, const char *rel)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	snprintf(buf, len, "%.*s/%s", (int)n, dir, rel);
}

/* A mount point has another device than its parent directory. */
static bool is_mounted(const char *dir)
{
	char parent[PATH_MAX];
	struct stat a, b;

	if (stat(dir, &a) || !S_ISDIR(a.st_mode))
		return false;
	path_join(parent, sizeof(parent), dir, "..");
	if (stat(parent, &b))
		return true;
	return a.st_dev != b.st_dev || a.st_ino == b.st_ino;
}

/* Classify an open() failure of a file under debugfs. */
static int open_failure(const char *debugfs, const char *path, const char *verb, int err,
			enum features_fail *fail, char *why, size_t whylen)
{
	switch (err) {
	case ENOENT:
	case ENOTDIR:
		if (!is_mounted(debugfs)) {
			const char *w[] = { "mount", "-t", "debugfs", "none", debugfs };
			char *cmd = sh_command(w, ARRAY_SIZE(w));
			int rc = fail_with(fail, FEATURES_NO_DEBUGFS, why, whylen,
					   "debugfs is not mounted at '%s' (as root: %s)", debugfs,
					   cmd);

			free(cmd);
			return rc;
		}
		return fail_with(fail, FEATURES_ABSENT, why, whylen,
				 "'%s' does not exist: this kernel has no scheduler features file "
				 "(before 6.15 it needs CONFIG_SCHED_DEBUG=y)",
				 path);
	case EPERM:
		return fail_with(fail, FEATURES_LOCKDOWN, why, whylen,
				 "kernel lockdown prevents %s '%s' (Operation not permitted even "
				 "for root: Secure Boot or lockdown= is in force)",
				 verb, path);
	case EACCES:
		return fail_with(fail, FEATURES_NOT_ROOT, why, whylen,
				 "cannot open '%s' for %s: Permission denied (scheduler features "
				 "need root)",
				 path, verb);
	default:
		return fail_with(fail, FEATURES_IO, why, whylen, "cannot open '%s' for %s: %s",
				 path, verb, strerror(err));
	}
}

int features_read(const char *debugfs, struct features *out, char *why, size_t whylen)
{
	char path[PATH_MAX], buf[FEATURES_LINE_MAX];
	ssize_t n;
	int fd, e;

	memset(out, 0, sizeof(*out));
	path_join(path, sizeof(path), debugfs, "sched/features");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return open_failure(debugfs, path, "reading", errno, &out->fail, why, whylen);
	n = read_full(fd, buf, sizeof(buf) - 1);
	e = errno;
	close(fd);
	if (n < 0) {
		if (e == EPERM)
			return open_failure(debugfs, path, "reading", e, &out->fail, why, whylen);
		return fail_with(&out->fail, FEATURES_IO, why, whylen, "cannot read '%s': %s", path,
				 strerror(e));
	}
	buf[n] = '\0';
	if (features_parse(buf, out, why, whylen)) {
		char inner[256];

		snprintf(inner, sizeof(inner), "%s", why);
		return fail_with(&out->fail, FEATURES_INVALID, why, whylen, "'%s': %s", path,
				 inner);
	}
	return 0;
}

/* ---- the read-only fallback: sched/debug bitmask + BTF names ---- */

static int silent_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

#define FEAT_ENUM_PREFIX "__SCHED_FEAT_"

/* Names of the __SCHED_FEAT_* enumerators, indexed by their value (bit). */
static int btf_feature_names(const char *btf_path, struct features *out, char *why, size_t whylen)
{
	libbpf_print_fn_t old = libbpf_set_print(silent_print);
	size_t plen = strlen(FEAT_ENUM_PREFIX);
	struct btf *btf;
	__u32 id, cnt;
	int found = 0, err;

	btf = btf_path ? btf__parse(btf_path, NULL) : btf__load_vmlinux_btf();
	err = errno;
	libbpf_set_print(old);
	if (!btf)
		return fail_with(&out->fail, FEATURES_IO, why, whylen,
				 "cannot load the kernel's BTF ('%s'): %s",
				 btf_path ? btf_path : "/sys/kernel/btf/vmlinux", strerror(err));
	cnt = btf__type_cnt(btf);
	for (id = 1; id < cnt && !found; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e;
		__u16 i, vlen;

		if (!t || !btf_is_enum(t))
			continue;
		vlen = btf_vlen(t);
		e = btf_enum(t);
		for (i = 0; i < vlen; i++) {
			const char *name = btf__name_by_offset(btf, e[i].name_off);

			if (!name || strncmp(name, FEAT_ENUM_PREFIX, plen))
				continue;
			found = 1;
			if (!strcmp(name + plen, "NR"))
				continue;
			if (e[i].val < 0 || e[i].val >= FEATURES_MAX ||
			    strlen(name + plen) + 3 >= FEATURE_NAME_MAX) {
				btf__free(btf);
				return fail_with(&out->fail, FEATURES_INVALID, why, whylen,
						 "unexpected BTF enumerator %s = %d", name,
						 e[i].val);
			}
			snprintf(out->name[e[i].val], FEATURE_NAME_MAX, "%s", name + plen);
			if ((size_t)e[i].val + 1 > out->n)
				out->n = (size_t)e[i].val + 1;
		}
	}
	btf__free(btf);
	if (!found || !out->n)
		return fail_with(&out->fail, FEATURES_ABSENT, why, whylen,
				 "the kernel's BTF has no enum " FEAT_ENUM_PREFIX "*");
	for (id = 0; id < out->n; id++)
		if (!out->name[id][0])
			return fail_with(&out->fail, FEATURES_INVALID, why, whylen,
					 "the BTF enum " FEAT_ENUM_PREFIX "* has a gap at bit %u",
					 (unsigned)id);
	return 0;
}

int features_read_debug(const char *debugfs, const char *btf_path, struct features *out, char *why,
			size_t whylen)
{
	static const char key[] = ".sysctl_sched_features";
	char path[PATH_MAX], *text = NULL, *p;
	unsigned long long mask;
	size_t i;

	memset(out, 0, sizeof(*out));
	path_join(path, sizeof(path), debugfs, "sched/debug");
	if (read_file(path, &text, NULL))
		return open_failure(debugfs, path, "reading", errno, &out->fail, why, whylen);
	p = strstr(text, key);
	if (!p || !(p = strchr(p, ':'))) {
		free(text);
		return fail_with(&out->fail, FEATURES_INVALID, why, whylen, "'%s' has no %s line",
				 path, key);
	}
	errno = 0;
	mask = strtoull(p + 1, &p, 10);
	if (errno || (*p && *p != '\n' && *p != ' ')) {
		free(text);
		return fail_with(&out->fail, FEATURES_INVALID, why, whylen,
				 "'%s': malformed %s value", path, key);
	}
	free(text);
	if (btf_feature_names(btf_path, out, why, whylen))
		return -1;
	if (out->n < 64 && (mask >> out->n))
		return fail_with(&out->fail, FEATURES_INVALID, why, whylen,
				 "%s = %llu has bits beyond the %zu features the BTF names", key,
				 mask, out->n);
	for (i = 0; i < out->n; i++)
		out->on[i] = (mask >> i) & 1;
	out->source = FEATURES_SRC_DEBUG_BTF;
	return 0;
}

int features_read_any(const char *debugfs, const char *btf_path, struct features *out, char *why,
		      size_t whylen)
{
	char second[512];
	enum features_fail first;

	if (!features_read(debugfs, out, why, whylen))
		return 0;
	first = out->fail;
	if (first != FEATURES_LOCKDOWN && first != FEATURES_NOT_ROOT)
		return -1;
	if (!features_read_debug(debugfs, btf_path, out, second, sizeof(second))) {
		out->fail = first; /* why (and fail) still say why the file is unusable */
		return 0;
	}
	/* Report the original reason: it is the one the user can act on. */
	out->fail = first;
	debug("read-only fallback failed too: %s", second);
	return -1;
}

static int write_token(const char *debugfs, const char *tok, enum features_fail *fail, char *why,
		       size_t whylen)
{
	char path[PATH_MAX];
	size_t len = strlen(tok);
	ssize_t n;
	int fd, e;

	path_join(path, sizeof(path), debugfs, "sched/features");
	if (len > 63)
		return fail_with(fail, FEATURES_INVALID, why, whylen,
				 "token '%s' is longer than 63 bytes", tok);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return open_failure(debugfs, path, "changing", errno, fail, why, whylen);
	do {
		n = write(fd, tok, len); /* exactly one token per write(2) */
	} while (n < 0 && errno == EINTR);
	e = errno;
	close(fd);
	if (n < 0) {
		if (e == EINVAL)
			return fail_with(fail, FEATURES_INVALID, why, whylen,
					 "the kernel rejected '%s' in '%s' (Invalid argument)", tok,
					 path);
		if (e == EPERM || e == EACCES)
			return open_failure(debugfs, path, "changing", e, fail, why, whylen);
		return fail_with(fail, FEATURES_IO, why, whylen, "cannot write '%s' to '%s': %s",
				 tok, path, strerror(e));
	}
	if ((size_t)n != len)
		return fail_with(fail, FEATURES_IO, why, whylen,
				 "short write of '%s' to '%s' (%zd of %zu bytes)", tok, path, n,
				 len);
	return 0;
}

int features_write(const char *debugfs, const struct features *want, enum features_fail *fail,
		   char *why, size_t whylen)
{
	struct features live;
	size_t i;

	if (features_read(debugfs, &live, why, whylen))
		return fail_with(fail, live.fail, NULL, 0, "%s", "");
	for (i = 0; i < want->n; i++) {
		char tok[FEATURE_NAME_MAX + 4];
		int k = features_find(&live, want->name[i]);

		if (k < 0) {
			char names[FEATURES_LINE_MAX];

			features_names(&live, names, sizeof(names));
			return fail_with(fail, FEATURES_INVALID, why, whylen,
					 "unknown scheduler feature '%s'; this kernel has: %s",
					 want->name[i], names);
		}
		if (live.on[k] == want->on[i])
			continue;
		snprintf(tok, sizeof(tok), "%s%s", want->on[i] ? "" : "NO_", want->name[i]);
		debug("writing '%s'", tok);
		if (write_token(debugfs, tok, fail, why, whylen)) {
			enum features_fail f = fail ? *fail : FEATURES_IO;

			if (f == FEATURES_INVALID) {
				char names[FEATURES_LINE_MAX], first[512];

				features_names(&live, names, sizeof(names));
				snprintf(first, sizeof(first), "%s", why);
				fail_with(fail, f, why, whylen, "%s; this kernel has: %s", first,
					  names);
			}
			return -1;
		}
	}
	/* Read back: the kernel (or a concurrent writer) has the last word. */
	if (features_read(debugfs, &live, why, whylen))
		return fail_with(fail, live.fail, NULL, 0, "%s", "");
	for (i = 0; i < want->n; i++) {
		int k = features_find(&live, want->name[i]);

		if (k < 0 || live.on[k] != want->on[i])
			return fail_with(fail, FEATURES_IO, why, whylen,
					 "wrote %s%s but the features file reads %s%s afterwards",
					 want->on[i] ? "" : "NO_", want->name[i],
					 k >= 0 && !live.on[k] ? "NO_" : "", want->name[i]);
	}
	return 0;
}

/* ---- the journal ---- */

#define JOURNAL_MAGIC "wakebench-features-journal 1"

void features_journal_path(const char *state_dir, char *buf, size_t len)
{
	path_join(buf, len, state_dir, "features.journal");
}

/* The boot id, "unknown" when it cannot be read (a journal always names one). */
static void read_boot_id(char *buf, size_t len)
{
	if (proc_boot_id(buf, len))
		snprintf(buf, len, "unknown");
}

bool features_journal_owner_alive(const struct features_journal *j)
{
	char boot[40];

	/* a journal written where the boot id could not be read says "unknown" */
	read_boot_id(boot, sizeof(boot));
	if (strcmp(boot, j->boot_id))
		return false;
	return proc_identity_alive(j->pid, j->start_ticks, "");
}

static int fsync_dir(const char *path)
{
	char dir[PATH_MAX];
	char *slash;
	int fd, rc;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

int features_journal_write(const char *path, const struct features_journal *j, char *why,
			   size_t whylen)
{
	char tmp[PATH_MAX + 32], orig[FEATURES_LINE_MAX], *text;
	int fd, e;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	/* One line: the kernel's string keeps its trailing space, loses its newline. */
	snprintf(orig, sizeof(orig), "%.*s", (int)strcspn(j->original, "\n"), j->original);
	text = xasprintf(JOURNAL_MAGIC "\n"
				       "pid=%d\n"
				       "start_ticks=%" PRIu64 "\n"
				       "started_realtime_ns=%" PRIu64 "\n"
				       "boot_id=%s\n"
				       "debugfs=%s\n"
				       "original=%s\n",
			 (int)j->pid, j->start_ticks, j->started_realtime_ns, j->boot_id,
			 j->debugfs, orig);
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		e = errno;
		free(text);
		return fail_with(NULL, FEATURES_IO, why, whylen, "cannot create '%s': %s", tmp,
				 strerror(e));
	}
	if (write_full(fd, text, strlen(text)) < 0 || fsync(fd)) {
		e = errno;
		close(fd);
		unlink(tmp);
		free(text);
		return fail_with(NULL, FEATURES_IO, why, whylen, "cannot write '%s': %s", tmp,
				 strerror(e));
	}
	free(text);
	close(fd);
	/* link(2) is atomic and fails if a journal exists: it is also the lock. */
	if (link(tmp, path)) {
		e = errno;
		unlink(tmp);
		errno = e;
		return fail_with(NULL, e == EEXIST ? FEATURES_BUSY : FEATURES_IO, why, whylen,
				 "cannot create '%s': %s", path, strerror(e));
	}
	unlink(tmp);
	fsync_dir(path);
	return 0;
}

/* The largest journal: the fixed keys, a debugfs path and the longest feature line. */
#define JOURNAL_MAX (4096 + FEATURES_LINE_MAX)

/* The journal's text, not following a symbolic link; NULL with errno. */
static char *journal_slurp(const char *path)
{
	char *text;
	ssize_t n;
	int fd, e;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	text = xmalloc(JOURNAL_MAX + 1);
	n = read_full(fd, text, JOURNAL_MAX + 1);
	e = errno;
	close(fd);
	if (n < 0 || n > JOURNAL_MAX) {
		free(text);
		errno = n < 0 ? e : EFBIG;
		return NULL;
	}
	text[n] = '\0';
	return text;
}

int features_journal_read(const char *path, struct features_journal *j, char *why, size_t whylen)
{
	char *text, *line, *save = NULL;
	int have = 0;

	memset(j, 0, sizeof(*j));
	text = journal_slurp(path);
	if (!text) {
		if (errno == ENOENT)
			return 1;
		return fail_with(NULL, FEATURES_IO, why, whylen, "cannot read '%s': %s", path,
				 errno == ELOOP ? "it is a symbolic link" : strerror(errno));
	}
	if (strncmp(text, JOURNAL_MAGIC "\n", strlen(JOURNAL_MAGIC) + 1)) {
		free(text);
		return fail_with(NULL, FEATURES_INVALID, why, whylen,
				 "'%s' is not a wakebench features journal", path);
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		if (!eq)
			continue;
		*eq++ = '\0';
		if (!strcmp(line, "pid")) {
			j->pid = (pid_t)strtol(eq, NULL, 10);
			have |= 1;
		} else if (!strcmp(line, "start_ticks")) {
			j->start_ticks = strtoull(eq, NULL, 10);
			have |= 2;
		} else if (!strcmp(line, "started_realtime_ns")) {
			j->started_realtime_ns = strtoull(eq, NULL, 10);
		} else if (!strcmp(line, "boot_id")) {
			snprintf(j->boot_id, sizeof(j->boot_id), "%s", eq);
			have |= 4;
		} else if (!strcmp(line, "debugfs")) {
			snprintf(j->debugfs, sizeof(j->debugfs), "%s", eq);
			have |= 8;
		} else if (!strcmp(line, "original")) {
			snprintf(j->original, sizeof(j->original), "%s\n", eq);
			have |= 16;
		}
	}
	free(text);
	if (have != 31)
		return fail_with(NULL, FEATURES_INVALID, why, whylen,
				 "'%s' is incomplete (a wakebench features journal needs pid, "
				 "start_ticks, boot_id, debugfs and original)",
				 path);
	return 0;
}

/*
 * The state directory holds the lock and the journal that decide what is
 * written to the kernel, so it must be ours alone: created 0700 when absent
 * (its missing parents too), and an existing one is refused, never
 * repaired, if it is a symbolic link (lstat: a link to a directory would
 * carry the files, and any chmod, to its target), not a directory, not
 * owned by the effective uid, or writable by group or others (a shared
 * 1777 directory must not become 0700). Files in it are opened with
 * O_NOFOLLOW.
 */
static int state_dir_prepare(const char *dir, char *why, size_t whylen)
{
	char buf[PATH_MAX];
	struct stat st;
	size_t i;

	snprintf(buf, sizeof(buf), "%s", dir);
	for (i = 1; buf[i]; i++) {
		if (buf[i] != '/')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0700) && errno != EEXIST)
			return fail_with(NULL, FEATURES_IO, why, whylen,
					 "cannot create state directory '%s': %s", buf,
					 strerror(errno));
		buf[i] = '/';
	}
	/* mkdir(2) does not follow a symbolic link in the last component */
	if (mkdir(dir, 0700) && errno != EEXIST)
		return fail_with(NULL, errno == EACCES ? FEATURES_NOT_ROOT : FEATURES_IO, why,
				 whylen, "cannot create state directory '%s': %s", dir,
				 strerror(errno));
	if (lstat(dir, &st))
		return fail_with(NULL, FEATURES_IO, why, whylen,
				 "cannot check state directory '%s': %s", dir, strerror(errno));
	if (S_ISLNK(st.st_mode))
		return fail_with(NULL, FEATURES_IO, why, whylen,
				 "refusing state directory '%s': it is a symbolic link (point "
				 "WAKEBENCH_STATE_DIR at the directory itself)",
				 dir);
	if (!S_ISDIR(st.st_mode))
		return fail_with(NULL, FEATURES_IO, why, whylen,
				 "refusing state directory '%s': it is not a directory", dir);
	if (st.st_uid != geteuid())
		return fail_with(NULL, FEATURES_IO, why, whylen,
				 "refusing state directory '%s': it belongs to uid %u, not to uid "
				 "%u",
				 dir, (unsigned)st.st_uid, (unsigned)geteuid());
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return fail_with(NULL, FEATURES_IO, why, whylen,
				 "refusing state directory '%s': it is writable by %s (mode %04o; "
				 "use a directory only its owner can write)",
				 dir, st.st_mode & S_IWOTH ? "others" : "its group",
				 (unsigned)(st.st_mode & 07777));
	return 0;
}

/* flock on <state_dir>/features.lock: recovery and journal creation are serialised. */
static int state_lock(const char *state_dir, char *why, size_t whylen)
{
	char path[PATH_MAX];
	int fd;

	path_join(path, sizeof(path), state_dir, "features.lock");
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail_with(NULL, FEATURES_IO, why, whylen, "cannot open '%s': %s", path,
				 strerror(errno));
	while (flock(fd, LOCK_EX)) {
		if (errno != EINTR) {
			close(fd);
			return fail_with(NULL, FEATURES_IO, why, whylen, "cannot lock '%s': %s",
					 path, strerror(errno));
		}
	}
	return fd;
}

static void state_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

static void format_age(uint64_t started_ns, char *buf, size_t len)
{
	uint64_t now = realtime_ns();

	if (!started_ns || started_ns > now)
		snprintf(buf, len, "at an unknown time");
	else
		snprintf(buf, len, "%" PRIu64 "s ago",
			 (uint64_t)((now - started_ns) / 1000000000u));
}

/* Recovery under the state lock. */
static int recover_locked(const char *state_dir, pid_t *owner, enum features_fail *fail, char *why,
			  size_t whylen)
{
	struct features_journal j;
	struct features want;
	char path[PATH_MAX], inner[512], age[64], boot[40];
	int rc;

	features_journal_path(state_dir, path, sizeof(path));
	rc = features_journal_read(path, &j, why, whylen);
	if (rc == 1)
		return 0;
	if (rc < 0) {
		if (fail)
			*fail = FEATURES_IO;
		return -1;
	}
	/*
	 * Our own pid is not enough to call the journal ours: pid namespaces
	 * reuse pids, so the start time must match too (as for any owner).
	 */
	if (features_journal_owner_alive(&j)) {
		if (owner)
			*owner = j.pid;
		return 1;
	}
	format_age(j.started_realtime_ns, age, sizeof(age));
	read_boot_id(boot, sizeof(boot));
	if (strcmp(boot, j.boot_id)) {
		/* Features do not survive a reboot: the journal's promise is kept. */
		warning("removing the features journal of wakebench pid %d from an earlier boot "
			"(started %s): the reboot already reset the scheduler features",
			(int)j.pid, age);
		if (unlink(path) && errno != ENOENT)
			return fail_with(fail, FEATURES_IO, why, whylen, "cannot remove '%s': %s",
					 path, strerror(errno));
		return 0;
	}
	if (features_parse(j.original, &want, inner, sizeof(inner)))
		return fail_with(fail, FEATURES_INVALID, why, whylen, "'%s': %s", path, inner);
	if (features_write(j.debugfs, &want, fail, inner, sizeof(inner)))
		return fail_with(fail, fail ? *fail : FEATURES_IO, why, whylen,
				 "cannot restore the scheduler features saved by wakebench pid %d "
				 "in '%s' (kept for 'wakebench features restore'): %s",
				 (int)j.pid, path, inner);
	if (unlink(path) && errno != ENOENT)
		return fail_with(fail, FEATURES_IO, why, whylen, "cannot remove '%s': %s", path,
				 strerror(errno));
	fsync_dir(path);
	warning("restored the scheduler features that wakebench pid %d (started %s, no longer "
		"running) left changed in '%s/sched/features'",
		(int)j.pid, age, j.debugfs);
	return 0;
}

int features_recover(const char *state_dir, pid_t *owner, enum features_fail *fail, char *why,
		     size_t whylen)
{
	int lock, rc;

	char path[PATH_MAX];
	struct stat st;

	if (fail)
		*fail = FEATURES_OK;
	/* No journal, nothing to do: show works without a writable state directory. */
	features_journal_path(state_dir, path, sizeof(path));
	if (lstat(path, &st) && (errno == ENOENT || errno == ENOTDIR))
		return 0;
	if (access(state_dir, W_OK | X_OK) && errno == EACCES) {
		/* Not ours to recover (not root): the features file will say so too. */
		debug("cannot check '%s' for a features journal: %s", path, strerror(EACCES));
		return 0;
	}
	if (state_dir_prepare(state_dir, why, whylen)) {
		if (fail)
			*fail = FEATURES_IO;
		return -1;
	}
	lock = state_lock(state_dir, why, whylen);
	if (lock < 0) {
		if (fail)
			*fail = FEATURES_IO;
		return -1;
	}
	rc = recover_locked(state_dir, owner, fail, why, whylen);
	state_unlock(lock);
	return rc;
}

int features_session_begin(struct features_session *s, const char *debugfs, const char *state_dir,
			   char *why, size_t whylen)
{
	struct features_journal j;
	char abs[PATH_MAX];
	pid_t owner = 0;
	int lock, rc;

	memset(s, 0, sizeof(*s));
	/* The journal is read by later commands, maybe elsewhere: an absolute path. */
	if (realpath(debugfs, abs) && strlen(abs) < sizeof(s->debugfs))
		memcpy(s->debugfs, abs, strlen(abs) + 1);
	else
		snprintf(s->debugfs, sizeof(s->debugfs), "%s", debugfs);
	features_journal_path(state_dir, s->journal, sizeof(s->journal));
	if (state_dir_prepare(state_dir, why, whylen))
		return fail_with(&s->fail, FEATURES_IO, NULL, 0, "%s", "");
	lock = state_lock(state_dir, why, whylen);
	if (lock < 0)
		return fail_with(&s->fail, FEATURES_IO, NULL, 0, "%s", "");
	rc = recover_locked(state_dir, &owner, &s->fail, why, whylen);
	if (rc < 0)
		goto out;
	if (rc == 1) {
		struct features_journal other;
		char age[64] = "";

		if (!features_journal_read(s->journal, &other, NULL, 0))
			format_age(other.started_realtime_ns, age, sizeof(age));
		rc = fail_with(&s->fail, FEATURES_BUSY, why, whylen,
			       "another wakebench (pid %d, started %s) is changing the scheduler "
			       "features; refusing to interleave toggles (its journal: '%s')",
			       (int)owner, age, s->journal);
		goto out;
	}
	rc = features_read(debugfs, &s->original, why, whylen);
	if (rc) {
		s->fail = s->original.fail;
		goto out;
	}
	s->live = s->original;
	/*
	 * Readable is not enough: a file that cannot be opened for writing
	 * (not root, lockdown) must fail here, before anything is measured.
	 * Opening writes nothing; only write(2) does.
	 */
	{
		char path[PATH_MAX];
		int fd;

		path_join(path, sizeof(path), s->debugfs, "sched/features");
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0) {
			rc = open_failure(s->debugfs, path, "changing", errno, &s->fail, why,
					  whylen);
			goto out;
		}
		close(fd);
	}
	memset(&j, 0, sizeof(j));
	j.pid = getpid();
	if (proc_start_ticks(j.pid, &j.start_ticks)) {
		rc = fail_with(&s->fail, FEATURES_IO, why, whylen,
			       "cannot read /proc/%d/stat for the journal", (int)j.pid);
		goto out;
	}
	j.started_realtime_ns = realtime_ns();
	read_boot_id(j.boot_id, sizeof(j.boot_id));
	snprintf(j.debugfs, sizeof(j.debugfs), "%s", s->debugfs);
	features_format(&s->original, j.original, sizeof(j.original));
	rc = features_journal_write(s->journal, &j, why, whylen);
	if (rc) {
		s->fail = FEATURES_IO;
		goto out;
	}
	s->active = true;
out:
	state_unlock(lock);
	return rc;
}

int features_session_apply(struct features_session *s, const char *const *tokens, size_t n,
			   char *why, size_t whylen)
{
	struct features want;
	size_t i;

	if (!s->active)
		BUG("features_session_apply without a journal");
	memset(&want, 0, sizeof(want));
	for (i = 0; i < n && i < FEATURES_MAX; i++) {
		size_t idx;
		bool on;

		if (features_token(&s->original, tokens[i], &idx, &on, why, whylen))
			return fail_with(&s->fail, FEATURES_INVALID, NULL, 0, "%s", "");
		snprintf(want.name[want.n], FEATURE_NAME_MAX, "%s", s->original.name[idx]);
		want.on[want.n++] = on;
	}
	if (features_write(s->debugfs, &want, &s->fail, why, whylen))
		return -1;
	if (features_read(s->debugfs, &s->live, why, whylen))
		return fail_with(&s->fail, s->live.fail, NULL, 0, "%s", "");
	return 0;
}

int features_session_restore(struct features_session *s, char *why, size_t whylen)
{
	if (!s->active)
		return 0;
	if (features_write(s->debugfs, &s->original, &s->fail, why, whylen))
		return -1; /* the journal stays: the next start or `features restore` retries */
	s->live = s->original;
	if (unlink(s->journal) && errno != ENOENT)
		return fail_with(&s->fail, FEATURES_IO, why, whylen, "cannot remove '%s': %s",
				 s->journal, strerror(errno));
	fsync_dir(s->journal);
	s->active = false;
	return 0;
}

int features_session_keep(struct features_session *s, char *why, size_t whylen)
{
	if (!s->active)
		return 0;
	if (unlink(s->journal) && errno != ENOENT)
		return fail_with(&s->fail, FEATURES_IO, why, whylen, "cannot remove '%s': %s",
				 s->journal, strerror(errno));
	fsync_dir(s->journal);
	s->active = false;
	return 0;
}
