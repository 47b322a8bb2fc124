/*
 * vm.c: vm's engine (vm.h).
 *
 * Host side: build the guest's initramfs (cached under its SHA-256) plus a
 * small archive holding this invocation's arguments, choose KVM or TCG,
 * then boot round by round, kernels alternating (k1 k2 k1 k2 ...). Each
 * round's result channel is validated; the guest's store is untrusted
 * input, only read (hardened, every row checked), and imported in one
 * transaction together with the virtualisation keys the host attests, so a
 * round is either wholly in the host store or not at all. A failed round
 * says why and shows the console's tail; later rounds still run. Ctrl-C
 * kills qemu, removes the temporary files and keeps the rounds already
 * imported.
 *
 * Guest side (hidden `vm --guest ARGS`, started by the guest's /init): run
 * the subcommand with a store in a private directory of the guest's tmpfs,
 * then send its output, its store and its exit status home on the
 * dedicated serial port.
 */
#include "engine/vm.h"
#include "runner/vm.h"
#include "runner/vmchan.h"
#include "store/store.h"
#include "util/digest.h"
#include "util/text.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

const char *const vm_accel_names[] = { "auto", "kvm", "tcg", NULL };

/* Subcommands that make sense in a fresh guest; those that store get --db. */
static const struct {
	const char *name;
	int stores;
} guest_commands[] = {
	{ "run", 1 }, { "ab", 1 }, { "env", 0 }, { "features", 0 }, { "list", 0 },
};

#define GUEST_ARGS	   "/wakebench/args"
#define CONSOLE_TAIL_LINES 25

int vm_guest_command_stores(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(guest_commands); i++)
		if (!strcmp(guest_commands[i].name, name))
			return guest_commands[i].stores;
	return -1;
}

/* ------------------------------------------------------------------ guest side */

static uint64_t guest_uptime_ns(void)
{
	char line[64];
	double s;

	if (read_line_file("/proc/uptime", line, sizeof(line)) || sscanf(line, "%lf", &s) != 1)
		return 0;
	return (uint64_t)(s * 1e9);
}

static int open_channel(const char *dev)
{
	struct termios t;
	int fd = open(dev, O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return error_errno("cannot open the result channel '%s'", dev);
	/* Raw: no newline translation, no echo, all 8 bits. */
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		cfsetispeed(&t, B115200);
		cfsetospeed(&t, B115200);
		if (tcsetattr(fd, TCSANOW, &t))
			warning("cannot put '%s' in raw mode: %s", dev, strerror(errno));
	} else {
		warning("'%s' is not a terminal: %s", dev, strerror(errno));
	}
	return fd;
}

static void send_file_if_present(struct vmchan_writer *w, const char *path, const char *name,
				 int *failed)
{
	char *data;
	size_t len;

	if (access(path, F_OK))
		return;
	if (read_file(path, &data, &len)) {
		error_errno("cannot read '%s'", path);
		*failed = 1;
		return;
	}
	if (vmchan_send_file(w, name, data, len))
		*failed = 1;
	free(data);
}

static void send_output(struct vmchan_writer *w, const char *path, int stream, int *failed)
{
	char *data;
	size_t len;

	if (read_file(path, &data, &len))
		return;
	/* The console log shows it too, for whoever reads a failed round's tail. */
	write_full(STDOUT_FILENO, data, len);
	if (len && vmchan_send_output(w, stream, data, len))
		*failed = 1;
	free(data);
}

/*
 * The guest's working directory: private (mkdtemp, 0700) under $TMPDIR or
 * /tmp, so that nothing planted there (a symlink in place of a file it
 * writes) is followed; its files are created with O_EXCL | O_NOFOLLOW.
 */
struct guest_dir {
	char dir[PATH_MAX - 64];
	char db[PATH_MAX], wal[PATH_MAX], out[PATH_MAX], err[PATH_MAX];
};

static int guest_dir_create(struct guest_dir *g)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(g->dir, sizeof(g->dir), "%s/wakebench-guest.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(g->dir))
		return error_errno("vm --guest: cannot create a private directory '%s'", g->dir);
	snprintf(g->db, sizeof(g->db), "%s/results.db", g->dir);
	snprintf(g->wal, sizeof(g->wal), "%s/results.db-wal", g->dir);
	snprintf(g->out, sizeof(g->out), "%s/stdout", g->dir);
	snprintf(g->err, sizeof(g->err), "%s/stderr", g->dir);
	return 0;
}

static void guest_dir_remove(struct guest_dir *g)
{
	char shm[PATH_MAX];

	if (!g->dir[0])
		return;
	snprintf(shm, sizeof(shm), "%s/results.db-shm", g->dir);
	unlink(g->db);
	unlink(g->wal);
	unlink(shm);
	unlink(g->out);
	unlink(g->err);
	rmdir(g->dir);
}

int vm_guest_main(const char *args_path)
{
	static char prog[] = "wakebench", db_flag[] = "--db";
	struct vmchan_writer w = { .fd = -1 };
	struct guest_dir g = { .dir = "" };
	char *args, *p, **argv = NULL;
	size_t len, n = 0;
	struct utsname u;
	uint64_t uptime_ns, start_ns, duration_ns;
	int status = 0, failed = 0, stores;
	pid_t pid;

	if (read_file(args_path, &args, &len) || !len || args[len - 1] != '\0') {
		error("vm --guest: cannot read the arguments '%s'", args_path);
		return EXIT_RUNTIME;
	}
	for (p = args; p < args + len; p += strlen(p) + 1) {
		argv = xrealloc(argv, (n + 4) * sizeof(*argv));
		argv[n++] = p;
	}
	if (n < 2) {
		free(argv);
		free(args);
		error("vm --guest: '%s' names no subcommand", args_path);
		return EXIT_RUNTIME;
	}
	w.fd = open_channel(argv[0]);
	if (w.fd < 0)
		goto out;
	uname(&u);
	if (vmchan_send(&w, VMCHAN_HELLO, u.release, strlen(u.release)))
		goto out;

	if (guest_dir_create(&g))
		goto out;
	/* argv[0] becomes the program name; --db goes right after the subcommand. */
	stores = vm_guest_command_stores(argv[1]);
	if (stores > 0) {
		memmove(argv + 4, argv + 2, (n - 2) * sizeof(*argv));
		argv[2] = db_flag;
		argv[3] = g.db;
		n += 2;
	}
	argv[0] = prog;
	argv[n] = NULL;
	uptime_ns = guest_uptime_ns();
	start_ns = now_ns();
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		error_errno("fork");
		goto out;
	}
	if (pid == 0) {
		int o = open(g.out, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
		int e = open(g.err, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);

		if (o < 0 || e < 0 || dup2(o, STDOUT_FILENO) < 0 || dup2(e, STDERR_FILENO) < 0)
			_exit(126);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			error_errno("waitpid");
			goto out;
		}
	duration_ns = now_ns() - start_ns;
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

	send_output(&w, g.out, 1, &failed);
	send_output(&w, g.err, 2, &failed);
	if (stores > 0) {
		send_file_if_present(&w, g.db, "results.db", &failed);
		send_file_if_present(&w, g.wal, "results.db-wal", &failed);
	}
	if (failed || vmchan_send_status(&w, status, duration_ns, uptime_ns) || vmchan_finish(&w))
		goto out;
	/* Every byte must have left the UART before /init powers off. */
	tcdrain(w.fd);
	close(w.fd);
	guest_dir_remove(&g);
	free(argv);
	free(args);
	return 0;
out:
	if (w.fd >= 0)
		close(w.fd);
	guest_dir_remove(&g);
	free(argv);
	free(args);
	return EXIT_RUNTIME;
}

/* ------------------------------------------------------------------- host side */

static char tmpdir[PATH_MAX];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void remove_tmpdir(void)
{
	if (tmpdir[0])
		nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	tmpdir[0] = '\0';
}

static const char *cache_dir(void)
{
	static char dir[PATH_MAX];
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (x && *x)
		snprintf(dir, sizeof(dir), "%s/wakebench", x);
	else
		snprintf(dir, sizeof(dir), "%s/.cache/wakebench", home && *home ? home : "/tmp");
	return dir;
}

static int mkdir_p(const char *path)
{
	char buf[PATH_MAX], *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
}

static int write_file_plain(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	if (write_full(fd, data, len) != (ssize_t)len) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

/*
 * The guest's base archive, from the cache when an identical one is there.
 * Deterministic archives make the content hash the cache key.
 */
int vm_guest_archive(struct initramfs *a, const struct vm_params *p, const struct vmhost_arch *arch,
		     char *cached, size_t cachedlen)
{
	struct guest_spec spec = { 0 };
	struct vmhost_guest_files foreign;
	char self[PATH_MAX], busybox[PATH_MAX], hex[65], dir[PATH_MAX - 80], why[PATH_MAX];
	ssize_t n;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return error_errno("vm: cannot find this wakebench binary");
	self[n] = '\0';
	spec.machine = arch->elf_machine;
	if (arch != vmhost_arch()) {
		/* An arm64 guest from x86-64: its own binaries, libraries from a sysroot. */
		if (vmhost_foreign_files(arch, self, p->guest_wakebench, p->sysroot, &foreign, why,
					 sizeof(why)))
			return error("vm: %s guest: %s", arch->name, why);
		spec.wakebench = foreign.wakebench;
		spec.busybox = foreign.busybox;
		spec.sysroot = foreign.sysroot;
	} else {
		if (find_program("busybox", busybox, sizeof(busybox)) &&
		    find_program("/bin/busybox", busybox, sizeof(busybox)))
			return error("vm: busybox not found (Debian: apt-get install "
				     "busybox-static)");
		spec.wakebench = p->guest_wakebench ? p->guest_wakebench : self;
		spec.busybox = busybox;
		spec.sysroot = p->sysroot;
	}
	initramfs_init(a);
	if (initramfs_build_guest(a, &spec))
		return -1;
	sha256_hex(a->buf, a->len, hex);
	snprintf(dir, sizeof(dir), "%s/initramfs", cache_dir());
	snprintf(cached, cachedlen, "%s/%s.cpio", dir, hex);
	if (!access(cached, R_OK)) {
		debug("vm: initramfs from the cache: %s", cached);
		return 0;
	}
	if (mkdir_p(dir) || write_file_atomic(cached, a->buf, a->len)) {
		warning("vm: cannot cache the initramfs in '%s': %s", dir, strerror(errno));
		cached[0] = '\0';
	} else {
		debug("vm: initramfs cached: %s (%zu bytes)", cached, a->len);
	}
	return 0;
}

/* This invocation's arguments as a second archive: channel device, then argv. */
static void args_archive(struct initramfs *a, const char *chan_dev, const char *const *argv,
			 size_t argc)
{
	size_t len = strlen(chan_dev) + 1, i, off;
	char *buf;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	buf = xmalloc(len);
	off = strlen(chan_dev) + 1;
	memcpy(buf, chan_dev, off);
	for (i = 0; i < argc; i++) {
		memcpy(buf + off, argv[i], strlen(argv[i]) + 1);
		off += strlen(argv[i]) + 1;
	}
	initramfs_init(a);
	if (initramfs_add_file(a, GUEST_ARGS, 0644, buf, len))
		BUG("cannot add the guest arguments");
	initramfs_finish(a);
	free(buf);
}

struct vm_run_ctx {
	const struct vm_params *p;
	struct store *st;
	const char *accel; /* "kvm" or "tcg" */
	char qemu_version[160];
	char *cmdline;
};

/*
 * The keys the host attests of a round: its accelerator, qemu, the guest's
 * CPUs and memory, the kernel image and its SHA-256. They are written into
 * the host store as the round is imported; every vm.* key the guest's store
 * holds is dropped (the guest cannot vouch for them).
 */
static void vm_keys(struct env *env, const struct vm_run_ctx *rc, const struct kernel_info *k,
		    unsigned round, unsigned nrounds)
{
	char mem[32];

	memset(env, 0, sizeof(*env));
	format_size(rc->p->memory_bytes, mem, sizeof(mem));
	env_set(env, "vm.accel", IMPACT_STRONG, "%s", rc->accel);
	if (!strcmp(rc->accel, "tcg"))
		env_set(env, "vm.warning", IMPACT_WEAK, "%s",
			"TCG: absolute numbers are emulated; the scheduler's decisions are real");
	env_set(env, "vm.qemu_version", IMPACT_MEDIUM, "%s", rc->qemu_version);
	env_set(env, "vm.guest_cpus", IMPACT_STRONG, "%llu", (unsigned long long)rc->p->cpus);
	env_set(env, "vm.guest_memory", IMPACT_WEAK, "%s", mem);
	env_set(env, "vm.kernel_image", IMPACT_IDENTITY, "%s", k->abspath);
	env_set(env, "vm.kernel_sha256", IMPACT_IDENTITY, "%s", k->sha256);
	env_set(env, "vm.append", IMPACT_MEDIUM, "%s", rc->p->append ? rc->p->append : "");
	env_set(env, "vm.round", IMPACT_RUN, "%u/%u", round, nrounds);
	env_set(env, "vm.host_cmdline", IMPACT_RUN, "%s", rc->cmdline);
}

/*
 * Write the guest's store under dir (private to this run) and import it
 * into the host store with the host's vm keys, in one transaction there.
 * The guest's file is only read, as untrusted input (store_import_with()).
 * Returns the number of experiments added, or -1.
 */
static int import_round(const struct vm_run_ctx *rc, const struct vmchan_result *res,
			const char *dir, const struct kernel_info *k, unsigned round,
			unsigned nrounds, size_t *nskipped)
{
	const struct vmchan_file *db = vmchan_find_file(res, "results.db");
	const struct vmchan_file *wal = vmchan_find_file(res, "results.db-wal");
	struct store_import_opts opts = { .attest_prefix = "vm." };
	struct env keys;
	char *path, *walpath;
	size_t nadded = 0;
	int64_t *ids = NULL;
	int ret = -1;

	*nskipped = 0;
	if (!db)
		return 0;
	path = xasprintf("%s/results.db", dir);
	walpath = xasprintf("%s/results.db-wal", dir);
	if (mkdir(dir, 0700) || write_file_plain(path, db->data, db->len) ||
	    (wal && write_file_plain(walpath, wal->data, wal->len))) {
		error_errno("vm: cannot write the guest's store to '%s'", dir);
		goto out;
	}
	vm_keys(&keys, rc, k, round, nrounds);
	opts.env = &keys;
	if (!store_import_with(rc->st, path, &opts, &ids, &nadded, nskipped))
		ret = (int)nadded;
	env_release(&keys);
	free(ids);
out:
	free(path);
	free(walpath);
	return ret;
}

/* The guest's stderr, line by line, control characters made harmless. */
static void print_guest_stderr(const char *text, const char *release)
{
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, "\n");
		char *line = strndup(p, n);

		if (!line)
			die("out of memory");
		fprintf(stderr, "[guest %s] ", release);
		text_fput(stderr, line, TEXT_MULTILINE);
		fputc('\n', stderr);
		free(line);
		p += n;
		if (*p)
			p++;
	}
}

static void keep_console(const char *console, unsigned round, const struct kernel_info *k)
{
	char dir[PATH_MAX], *dst;
	char *data;
	size_t len;
	const char *base = strrchr(k->path, '/');

	snprintf(dir, sizeof(dir), "%s/console", cache_dir());
	if (read_file(console, &data, &len))
		return;
	if (!len) {
		free(data);
		return;
	}
	dst = xasprintf("%s/%llu-round%u-%s.log", dir,
			(unsigned long long)(realtime_ns() / 1000000000ull), round,
			base ? base + 1 : k->path);
	if (mkdir_p(dir) || write_file_plain(dst, data, len))
		warning("vm: cannot keep the console log in '%s': %s", dir, strerror(errno));
	else
		text_line(stderr, "wakebench: the whole console log is in '%s'", dst);
	free(dst);
	free(data);
}

/* The guest architecture: --arch, else the first image's. */
/* qemu, its version, and the accelerator: KVM when usable, else TCG. -1 after saying why. */
static int vm_pick_qemu(const struct vm_params *p, const struct vmhost_arch *arch,
			struct vm_run_ctx *rc, char *qemu, size_t len)
{
	char why[256];

	if (find_program(p->qemu ? p->qemu : arch->qemu, qemu, len))
		return error("vm: qemu not found: '%s'%s (Debian: apt-get install %s)",
			     p->qemu ? p->qemu : arch->qemu,
			     p->qemu ? " is not an executable" : " is not in PATH",
			     arch->qemu_package);
	if (vm_qemu_version(qemu, rc->qemu_version, sizeof(rc->qemu_version)))
		return -1;
	if (p->accel == ACCEL_TCG || arch != vmhost_arch()) {
		rc->accel = "tcg";
	} else if (vmhost_kvm_usable(why, sizeof(why))) {
		rc->accel = "kvm";
	} else if (p->accel == ACCEL_KVM) {
		return error("vm: option '--accel kvm': KVM is not usable here: %s", why);
	} else {
		rc->accel = "tcg";
		debug("vm: no KVM: %s", why);
	}
	if (!strcmp(rc->accel, "tcg"))
		warning("vm: guests are emulated (TCG, no usable KVM): absolute numbers are "
			"emulated, the scheduler's decisions are real");
	return 0;
}

/*
 * The guest's initrd in a new private temporary directory: the base
 * archive and the subcommand's arguments. Returns its path, or NULL after
 * saying why.
 */
static char *write_initrd(const struct vm_params *p, const struct vmhost_arch *arch,
			  const char *const *sub, size_t nsub)
{
	struct initramfs base, extra;
	char cached[PATH_MAX], *initrd;
	int fd, bad;

	if (vm_guest_archive(&base, p, arch, cached, sizeof(cached))) {
		initramfs_release(&base);
		return NULL;
	}
	args_archive(&extra, arch->chan_dev, sub, nsub);
	snprintf(tmpdir, sizeof(tmpdir), "%s/wakebench-vm.XXXXXX",
		 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		error_errno("vm: cannot create a temporary directory '%s'", tmpdir);
		tmpdir[0] = '\0';
		initramfs_release(&base);
		initramfs_release(&extra);
		return NULL;
	}
	initrd = xasprintf("%s/initrd.cpio", tmpdir);
	fd = open(initrd, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	bad = fd < 0 || write_full(fd, base.buf, base.len) != (ssize_t)base.len ||
	      write_full(fd, extra.buf, extra.len) != (ssize_t)extra.len;
	if (fd >= 0 && close(fd))
		bad = 1;
	initramfs_release(&base);
	initramfs_release(&extra);
	if (bad) {
		error_errno("vm: cannot write '%s'", initrd);
		free(initrd);
		return NULL;
	}
	return initrd;
}

/* The rounds: what they boot and what came of them. */
struct vm_rounds {
	const struct vmhost_arch *arch;
	const char *qemu, *initrd;
	const struct kernel_info *kernels;
	unsigned nrounds, nfailed, nok, guest_status;
	size_t total_added;
	bool interrupted;
};

/* A round that booted and ran: its output, its experiments imported. */
static void round_done(struct vm_run_ctx *rc, struct vm_rounds *vr, unsigned r,
		       const struct kernel_info *k, struct vm_outcome *o, const char *dbdir,
		       const char *wall)
{
	char dur[32], over[32], *release;
	size_t nskipped = 0;
	int added = 0;

	/* What the guest says is text from an untrusted source, like its store. */
	release = text_printable(o->res.release, 0);
	text_fput(stdout, o->res.out, TEXT_MULTILINE);
	fflush(stdout);
	print_guest_stderr(o->res.err, release);
	format_duration(o->res.duration_ns / 1000000ull * 1000000ull, dur, sizeof(dur));
	format_duration(o->wall_ns > o->res.duration_ns
				? (o->wall_ns - o->res.duration_ns) / 1000000ull * 1000000ull
				: 0,
			over, sizeof(over));
	if (o->res.exit_status && vr->guest_status == 0)
		vr->guest_status = (unsigned)o->res.exit_status;
	if (rc->st) {
		added = import_round(rc, &o->res, dbdir, k, r + 1, vr->nrounds, &nskipped);
		if (added < 0) {
			vr->nfailed++;
			error("vm: round %u/%u ('%s'): nothing imported", r + 1, vr->nrounds,
			      k->path);
			free(release);
			return;
		}
		vr->total_added += (size_t)added;
	}
	vr->nok++;
	info("vm: round %u/%u: kernel %s, subcommand exit %d, %d experiment%s imported; "
	     "qemu ran %s, subcommand %s, boot overhead %s",
	     r + 1, vr->nrounds, release, o->res.exit_status, added, added == 1 ? "" : "s", wall,
	     dur, over);
	free(release);
}

/* Round r (0-based): boot, run, import; its files removed unless --keep-temp. */
static void one_round(struct vm_run_ctx *rc, struct vm_rounds *vr, unsigned r)
{
	const struct vm_params *p = rc->p;
	const struct kernel_info *k = &vr->kernels[r % p->kernels.n];
	char *console = xasprintf("%s/console-%u.log", tmpdir, r + 1);
	char *chan = xasprintf("%s/channel-%u.bin", tmpdir, r + 1);
	char *qlog = xasprintf("%s/qemu-%u.log", tmpdir, r + 1);
	char *dbdir = xasprintf("%s/round-%u", tmpdir, r + 1);
	struct vm_boot b = {
		.arch = vr->arch,
		.qemu = vr->qemu,
		.kvm = !strcmp(rc->accel, "kvm"),
		.cpus = (unsigned)p->cpus,
		.memory_bytes = p->memory_bytes,
		.kernel = k->path,
		.initrd = vr->initrd,
		.append = p->append,
		.timeout_ns = p->timeout_ns,
		.console_path = console,
		.chan_path = chan,
		.qemu_log_path = qlog,
	};
	struct vm_outcome o;
	char wall[32], *reason;

	info("vm: round %u/%u: booting '%s' (%s, %llu CPUs)", r + 1, vr->nrounds, k->path,
	     rc->accel, (unsigned long long)p->cpus);
	if (vm_run(&b, &o)) {
		vr->nfailed++;
	} else if (o.interrupted) {
		vr->interrupted = true;
	} else {
		format_duration(o.wall_ns / 1000000ull * 1000000ull, wall, sizeof(wall));
		if (o.ok) {
			round_done(rc, vr, r, k, &o, dbdir, wall);
			vm_outcome_release(&o);
		} else {
			vr->nfailed++;
			reason = text_printable(o.reason, 0);
			error("vm: round %u/%u ('%s') failed after %s: %s", r + 1, vr->nrounds,
			      k->path, wall, reason);
			free(reason);
			fprintf(stderr, "wakebench: console tail:\n");
			vm_console_tail(console, CONSOLE_TAIL_LINES, "  | ", stderr);
			keep_console(console, r + 1, k);
		}
	}
	if (vm_stop_signal())
		vr->interrupted = true;
	if (!p->keep_temp) {
		unlink(console);
		unlink(chan);
		unlink(qlog);
	}
	free(console);
	free(chan);
	free(qlog);
	free(dbdir);
}

/* The exit status of all rounds: the guest's own verdict when every round worked. */
static int rounds_status(const struct vm_rounds *vr)
{
	if (vr->interrupted) {
		error("vm: interrupted by %s: %u of %u rounds completed and kept (%zu experiments "
		      "imported)",
		      strsignal(vm_stop_signal()), vr->nok, vr->nrounds, vr->total_added);
		return EXIT_RUNTIME;
	}
	if (vr->nfailed) {
		error("vm: %u of %u rounds failed (%zu experiments imported)", vr->nfailed,
		      vr->nrounds, vr->total_added);
		return EXIT_RUNTIME;
	}
	/* The guest's own verdict (3 regression, 77 cannot run there) passes through. */
	switch (vr->guest_status) {
	case EXIT_OK:
	case EXIT_RUNTIME:
	case EXIT_USAGE:
	case EXIT_REGRESSION:
	case EXIT_SKIP:
		return (int)vr->guest_status;
	}
	return EXIT_RUNTIME;
}

/* A list of the subcommands a guest runs: "run|ab|env|features|list". */
const char *vm_guest_commands(char *buf, size_t len)
{
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(guest_commands); i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? "|" : "",
			 guest_commands[i].name);
	return buf;
}

int vm_host_run(const struct vm_params *p, const struct vmhost_arch *arch,
		struct kernel_info *kernels, const char *db, const char *cmdline,
		const char *const *sub, size_t nsub)
{
	struct vm_run_ctx rc = { .p = p, .cmdline = xstrdup(cmdline) };
	struct vm_rounds vr = { .arch = arch, .kernels = kernels };
	char qemu[PATH_MAX], *initrd = NULL;
	unsigned r;
	int ret = EXIT_RUNTIME;

	/*
	 * From here on a stop signal only sets a flag, before the first child
	 * (qemu -version, the initramfs's library lookup): a signal that killed
	 * this process then would leave that child behind. No round starts
	 * once it is set; a running one stops its qemu.
	 */
	vm_signals_install();
	if (vm_pick_qemu(p, arch, &rc, qemu, sizeof(qemu)))
		goto out;
	for (r = 0; r < p->kernels.n; r++)
		if (sha256_file_hex(kernels[r].path, kernels[r].sha256)) {
			error_errno("vm: cannot read '%s'", kernels[r].path);
			goto out;
		}
	if (db && store_open(db, STORE_CREATE, &rc.st))
		goto out;
	if (!(initrd = write_initrd(p, arch, sub, nsub)))
		goto out;
	vr.qemu = qemu;
	vr.initrd = initrd;
	vr.nrounds = (unsigned)p->rounds * (unsigned)p->kernels.n;
	vr.interrupted = vm_stop_signal() != 0;
	for (r = 0; r < vr.nrounds && !vr.interrupted; r++)
		one_round(&rc, &vr, r);
	ret = rounds_status(&vr);
out:
	if (p->keep_temp && tmpdir[0]) {
		info("vm: temporary files kept in '%s'", tmpdir);
		tmpdir[0] = '\0';
	}
	remove_tmpdir();
	free(initrd);
	free(rc.cmdline);
	if (rc.st)
		store_close(rc.st);
	return ret;
}
