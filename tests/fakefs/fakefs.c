/*
 * fakefs.c: wakebench-fakefs, a FUSE stand-in for the kernel's sched debugfs
 * files, so that tests can change scheduler features without a kernel that
 * allows it (and without touching the real one).
 *
 * It serves, under its mount point (used as wakebench's --debugfs):
 *   sched/features  the kernel's one-line format on read; one token per
 *                   write(2), NAME or NO_NAME, surrounding whitespace
 *                   stripped, at most 63 bytes (longer writes are cut as the
 *                   kernel cuts them), EINVAL for an unknown name or a list
 *   sched/preempt   "none voluntary (full) lazy " with the current mode in
 *                   parentheses; a write selects a mode
 *   sched/debug     a 6.18-style dump whose .sysctl_sched_features is the
 *                   current bitmask (bit i = i-th feature of the list)
 *   sched/base_slice_ns
 *
 * Switches: --features=FILE (initial list, e.g. a fixture), --debug=FILE
 * (dump template), --lockdown (EPERM on opening writable files, as kernel
 * lockdown does; sched/debug stays readable), --readonly (EACCES on opening
 * for write, as for a non-root user), --absent (no sched/features, like a
 * kernel before 6.15 without CONFIG_SCHED_DEBUG), --log=FILE (one line per
 * write(2) received and its result, so tests can count tokens).
 * --burn=NAME [--burn-percent=P] [--burn-cpu=N] (with -f): while feature
 * NAME is on, a thread pinned to CPU N (default 0) spins P% (default 5) of
 * every millisecond, so that the feature really costs CPU and `ab` has a
 * true change to find (bench/ab-aa.sh).
 *
 * Reads regenerate the content at offset 0 (like seq_file) and serve later
 * offsets from that snapshot. Everything is behind one mutex.
 */
#define FUSE_USE_VERSION 31

#include <errno.h>
#include <sched.h>
#include <time.h>
#include <fcntl.h>
#include <fuse.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FEATURES 64
#define NAME_MAX_LEN 64

struct fake_opts {
	const char *features_path;
	const char *debug_path;
	const char *log_path;
	int lockdown;
	int readonly;
	int absent;
	const char *burn;
	int burn_percent;
	int burn_cpu;
};

static struct fake_opts opts;

static struct {
	pthread_mutex_t lock;
	size_t n;
	char name[MAX_FEATURES][NAME_MAX_LEN];
	int on[MAX_FEATURES];
	int preempt; /* index into preempt_modes */
	char *debug_template;
	FILE *log;
} fs = { .lock = PTHREAD_MUTEX_INITIALIZER, .preempt = 2 };

static const char *const preempt_modes[] = { "none", "voluntary", "full", "lazy" };

enum file_id { F_ROOT, F_SCHED, F_FEATURES, F_PREEMPT, F_DEBUG, F_SLICE, F_NONE };

static enum file_id lookup(const char *path)
{
	if (!strcmp(path, "/"))
		return F_ROOT;
	if (!strcmp(path, "/sched"))
		return F_SCHED;
	if (!strcmp(path, "/sched/features"))
		return opts.absent ? F_NONE : F_FEATURES;
	if (!strcmp(path, "/sched/preempt"))
		return F_PREEMPT;
	if (!strcmp(path, "/sched/debug"))
		return F_DEBUG;
	if (!strcmp(path, "/sched/base_slice_ns"))
		return F_SLICE;
	return F_NONE;
}

static bool writable(enum file_id f)
{
	return f == F_FEATURES || f == F_PREEMPT || f == F_SLICE;
}

/* ---- content ---- */

struct snap {
	char *buf;
	size_t len;
};

static unsigned long long features_mask(void)
{
	unsigned long long m = 0;
	size_t i;

	for (i = 0; i < fs.n; i++)
		if (fs.on[i])
			m |= 1ull << i;
	return m;
}

static char *render_features(void)
{
	size_t cap = fs.n * (NAME_MAX_LEN + 4) + 2, used = 0, i;
	char *b = malloc(cap);

	if (!b)
		return NULL;
	for (i = 0; i < fs.n; i++)
		used += (size_t)snprintf(b + used, cap - used, "%s%s ", fs.on[i] ? "" : "NO_",
					 fs.name[i]);
	snprintf(b + used, cap - used, "\n");
	return b;
}

static char *render_preempt(void)
{
	char b[128];
	size_t used = 0, i;

	for (i = 0; i < 4; i++)
		used += (size_t)snprintf(b + used, sizeof(b) - used,
					 (int)i == fs.preempt ? "(%s) " : "%s ", preempt_modes[i]);
	snprintf(b + used, sizeof(b) - used, "\n");
	return strdup(b);
}

static const char default_debug[] =
	"Sched Debug Version: v0.11, 6.18.0-wakebench-fakefs #1\n"
	"ktime                                   : 1000.000000\n"
	"\n"
	"sysctl_sched\n"
	"  .sysctl_sched_base_slice                 : 0.750000\n"
	"  .sysctl_sched_features                   : 0\n"
	"  .sysctl_sched_tunable_scaling            : 1 (logarithmic)\n";

/* The template with the number of its .sysctl_sched_features line replaced. */
static char *render_debug(void)
{
	const char *t = fs.debug_template ? fs.debug_template : default_debug;
	const char *key = strstr(t, ".sysctl_sched_features");
	const char *colon, *num_end;
	char num[32];
	char *b;
	size_t head, tail;

	if (!key || !(colon = strchr(key, ':')))
		return strdup(t);
	colon++;
	while (*colon == ' ')
		colon++;
	num_end = colon;
	while (*num_end && *num_end != '\n')
		num_end++;
	snprintf(num, sizeof(num), "%llu", features_mask());
	head = (size_t)(colon - t);
	tail = strlen(num_end);
	b = malloc(head + strlen(num) + tail + 1);
	if (!b)
		return NULL;
	memcpy(b, t, head);
	memcpy(b + head, num, strlen(num));
	memcpy(b + head + strlen(num), num_end, tail + 1);
	return b;
}

static char *render(enum file_id f)
{
	switch (f) {
	case F_FEATURES:
		return render_features();
	case F_PREEMPT:
		return render_preempt();
	case F_DEBUG:
		return render_debug();
	case F_SLICE:
		return strdup("750000\n");
	default:
		return strdup("");
	}
}

/* ---- writes, as kernel/sched/debug.c handles them ---- */

static char *strstrip(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
		s[--n] = '\0';
	return s;
}

static int write_features(char *tok)
{
	int neg = 0;
	size_t i;

	if (!strncmp(tok, "NO_", 3)) {
		neg = 1;
		tok += 3;
	}
	for (i = 0; i < fs.n; i++) {
		if (!strcmp(fs.name[i], tok)) {
			fs.on[i] = !neg;
			return 0;
		}
	}
	return -EINVAL;
}

static int write_preempt(const char *tok)
{
	int i;

	for (i = 0; i < 4; i++) {
		if (!strcmp(preempt_modes[i], tok)) {
			fs.preempt = i;
			return 0;
		}
	}
	return -EINVAL;
}

/* ---- FUSE operations ---- */

static int fake_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	enum file_id f = lookup(path);

	(void)fi;
	memset(st, 0, sizeof(*st));
	st->st_uid = 0;
	st->st_gid = 0;
	switch (f) {
	case F_ROOT:
		st->st_mode = S_IFDIR | 0700;
		st->st_nlink = 3;
		return 0;
	case F_SCHED:
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	case F_DEBUG:
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		return 0;
	case F_FEATURES:
	case F_PREEMPT:
	case F_SLICE:
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
		return 0;
	case F_NONE:
		break;
	}
	return -ENOENT;
}

static int fake_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
			struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	enum file_id f = lookup(path);

	(void)off;
	(void)fi;
	(void)flags;
	if (f != F_ROOT && f != F_SCHED)
		return -ENOTDIR;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	if (f == F_ROOT) {
		fill(buf, "sched", NULL, 0, 0);
		return 0;
	}
	if (!opts.absent)
		fill(buf, "features", NULL, 0, 0);
	fill(buf, "preempt", NULL, 0, 0);
	fill(buf, "debug", NULL, 0, 0);
	fill(buf, "base_slice_ns", NULL, 0, 0);
	return 0;
}

static int fake_open(const char *path, struct fuse_file_info *fi)
{
	enum file_id f = lookup(path);
	int acc = fi->flags & O_ACCMODE;
	struct snap *s;

	if (f == F_NONE)
		return -ENOENT;
	if (f == F_ROOT || f == F_SCHED)
		return -EISDIR;
	/* Lockdown refuses every open of a file that is not read-only, even to read. */
	if (opts.lockdown && writable(f))
		return -EPERM;
	if (acc != O_RDONLY && (!writable(f) || opts.readonly))
		return -EACCES;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	fi->fh = (uint64_t)(uintptr_t)s;
	fi->direct_io = 1;
	fi->nonseekable = 0;
	return 0;
}

static int fake_release(const char *path, struct fuse_file_info *fi)
{
	struct snap *s = (struct snap *)(uintptr_t)fi->fh;

	(void)path;
	if (s) {
		free(s->buf);
		free(s);
	}
	return 0;
}

static int fake_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	struct snap *s = (struct snap *)(uintptr_t)fi->fh;
	size_t n;

	if (!s)
		return -EBADF;
	pthread_mutex_lock(&fs.lock);
	if (off == 0 || !s->buf) {
		free(s->buf);
		s->buf = render(lookup(path));
		s->len = s->buf ? strlen(s->buf) : 0;
	}
	pthread_mutex_unlock(&fs.lock);
	if (!s->buf)
		return -ENOMEM;
	if ((size_t)off >= s->len)
		return 0;
	n = s->len - (size_t)off;
	if (n > size)
		n = size;
	memcpy(buf, s->buf + off, n);
	return (int)n;
}

static void log_write(const char *path, const char *data, size_t size, int rc)
{
	size_t i;

	if (!fs.log)
		return;
	fprintf(fs.log, "%s ", path);
	for (i = 0; i < size; i++) {
		unsigned char c = (unsigned char)data[i];

		if (c == '\n')
			fputs("\\n", fs.log);
		else if (c < 32 || c > 126)
			fprintf(fs.log, "\\x%02x", c);
		else
			fputc(c, fs.log);
	}
	fprintf(fs.log, " -> %s\n", rc < 0 ? strerror(-rc) : "ok");
	fflush(fs.log);
}

static int fake_write(const char *path, const char *data, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	enum file_id f = lookup(path);
	char tmp[64];
	size_t cnt = size;
	int rc = 0;

	(void)off;
	(void)fi;
	if (cnt > 63) /* as sched_feat_write(): cut, then match */
		cnt = 63;
	memcpy(tmp, data, cnt);
	tmp[cnt] = '\0';
	pthread_mutex_lock(&fs.lock);
	if (f == F_FEATURES)
		rc = write_features(strstrip(tmp));
	else if (f == F_PREEMPT)
		rc = write_preempt(strstrip(tmp));
	else if (f != F_SLICE)
		rc = -EACCES;
	log_write(path, data, size, rc);
	pthread_mutex_unlock(&fs.lock);
	return rc < 0 ? rc : (int)size;
}

static int fake_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	(void)size;
	(void)fi;
	return lookup(path) == F_NONE ? -ENOENT : 0; /* echo > file opens with O_TRUNC */
}

static const struct fuse_operations fake_ops = {
	.getattr = fake_getattr,
	.readdir = fake_readdir,
	.open = fake_open,
	.release = fake_release,
	.read = fake_read,
	.write = fake_write,
	.truncate = fake_truncate,
};

/* ---- setup ---- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *b = NULL;
	size_t cap = 0, len = 0, n;

	if (!f)
		return NULL;
	do {
		if (cap - len < 4096) {
			char *nb = realloc(b, cap + 65536);

			if (!nb) {
				free(b);
				fclose(f);
				return NULL;
			}
			b = nb;
			cap += 65536;
		}
		n = fread(b + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	fclose(f);
	b[len] = '\0';
	return b;
}

static int load_features(const char *path)
{
	char *text = slurp(path), *tok, *save = NULL;

	if (!text) {
		fprintf(stderr, "wakebench-fakefs: cannot read '%s': %s\n", path, strerror(errno));
		return -1;
	}
	for (tok = strtok_r(text, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		int on = strncmp(tok, "NO_", 3) != 0;
		const char *name = on ? tok : tok + 3;

		if (fs.n == MAX_FEATURES || strlen(name) >= NAME_MAX_LEN) {
			fprintf(stderr, "wakebench-fakefs: '%s': too many or too long names\n",
				path);
			free(text);
			return -1;
		}
		snprintf(fs.name[fs.n], NAME_MAX_LEN, "%s", name);
		fs.on[fs.n++] = on;
	}
	free(text);
	if (!fs.n) {
		fprintf(stderr, "wakebench-fakefs: '%s' has no features\n", path);
		return -1;
	}
	return 0;
}

/* ---- --burn: a feature that costs CPU while it is on ---- */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool burn_feature_on(void)
{
	bool on = false;
	size_t i;

	pthread_mutex_lock(&fs.lock);
	for (i = 0; i < fs.n; i++)
		if (!strcmp(fs.name[i], opts.burn))
			on = fs.on[i];
	pthread_mutex_unlock(&fs.lock);
	return on;
}

static void *burner(void *arg)
{
	uint64_t spin_ns = (uint64_t)opts.burn_percent * 10000ull; /* of each 1 ms */
	struct timespec rest = { 0, 1000000 - (long)spin_ns };
	cpu_set_t set;

	(void)arg;
	CPU_ZERO(&set);
	CPU_SET(opts.burn_cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	for (;;) {
		uint64_t end = mono_ns() + spin_ns;
		int i;

		if (!burn_feature_on()) {
			struct timespec idle = { 0, 2000000 };

			nanosleep(&idle, NULL);
			continue;
		}
		for (i = 0; i < 100; i++) { /* 100 ms between looks at the feature */
			end = mono_ns() + spin_ns;
			while (mono_ns() < end)
				;
			nanosleep(&rest, NULL);
		}
	}
	return NULL;
}

#define FAKE_OPT(t, p)                                                                             \
	{                                                                                          \
		t, offsetof(struct fake_opts, p), 1                                                \
	}

static const struct fuse_opt fake_opt_spec[] = {
	{ "--features=%s", offsetof(struct fake_opts, features_path), 0 },
	{ "--debug=%s", offsetof(struct fake_opts, debug_path), 0 },
	{ "--log=%s", offsetof(struct fake_opts, log_path), 0 },
	FAKE_OPT("--lockdown", lockdown),
	FAKE_OPT("--readonly", readonly),
	FAKE_OPT("--absent", absent),
	{ "--burn=%s", offsetof(struct fake_opts, burn), 0 },
	{ "--burn-percent=%d", offsetof(struct fake_opts, burn_percent), 0 },
	{ "--burn-cpu=%d", offsetof(struct fake_opts, burn_cpu), 0 },
	FUSE_OPT_END,
};

int main(int argc, char *argv[])
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	int rc;

	opts.burn_percent = 5;
	if (fuse_opt_parse(&args, &opts, fake_opt_spec, NULL) == -1)
		return 1;
	if (!opts.features_path) {
		fprintf(stderr, "usage: wakebench-fakefs --features=FILE [--debug=FILE] "
				"[--lockdown] [--readonly] [--absent] [--log=FILE] [-f] "
				"MOUNTPOINT\n");
		return 2;
	}
	/* Single-threaded: the state is tiny and the order of writes is the test. */
	if (fuse_opt_add_arg(&args, "-s"))
		return 1;
	if (load_features(opts.features_path))
		return 1;
	if (opts.debug_path) {
		fs.debug_template = slurp(opts.debug_path);
		if (!fs.debug_template) {
			fprintf(stderr, "wakebench-fakefs: cannot read '%s': %s\n", opts.debug_path,
				strerror(errno));
			return 1;
		}
	}
	if (opts.log_path) {
		fs.log = fopen(opts.log_path, "a");
		if (!fs.log) {
			fprintf(stderr, "wakebench-fakefs: cannot open '%s': %s\n", opts.log_path,
				strerror(errno));
			return 1;
		}
	}
	if (opts.burn) {
		pthread_t t;

		if (opts.burn_percent < 1 || opts.burn_percent > 99) {
			fprintf(stderr, "wakebench-fakefs: --burn-percent must be 1..99\n");
			return 2;
		}
		if (pthread_create(&t, NULL, burner, NULL)) {
			fprintf(stderr, "wakebench-fakefs: cannot start the --burn thread\n");
			return 1;
		}
		pthread_detach(t);
	}
	rc = fuse_main(args.argc, args.argv, &fake_ops, NULL);
	fuse_opt_free_args(&args);
	free(fs.debug_template);
	if (fs.log)
		fclose(fs.log);
	return rc;
}
