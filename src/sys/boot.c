/*
 * boot.c: installed kernels and the one-shot boot backends of boot.h, read
 * from their files. grub.cfg is read as grub-mkconfig writes it: one
 * `submenu '...' $menuentry_id_option 'ID' {` or `menuentry ...` line
 * opening each block, a `linux PATH ARGS` line in each entry, a line of
 * its own `}` closing it.
 */
#include "sys/boot.h"
#include "util/text.h"
#include "util/util.h"

#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

static const char *const backend_names[BOOT_NBACKENDS] = {
	[BOOT_RPI] = "rpi",
	[BOOT_SYSTEMD_BOOT] = "systemd-boot",
	[BOOT_GRUB] = "grub",
	[BOOT_KEXEC] = "kexec",
};

/* snprintf() whose truncation is accepted: paths and reasons are cut, never overrun. */
static void PRINTF_LIKE(3, 4) put(char *dst, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, len, fmt, ap);
	va_end(ap);
}

/* systemd's Boot Loader Interface vendor GUID (LoaderInfo, LoaderEntryOneShot). */
#define LOADER_GUID "4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"

const char *boot_backend_name(enum boot_backend b)
{
	return b < BOOT_NBACKENDS ? backend_names[b] : "none";
}

int boot_backend_parse(const char *name, enum boot_backend *b)
{
	unsigned i;

	for (i = 0; i < BOOT_NBACKENDS; i++)
		if (!strcmp(name, backend_names[i])) {
			*b = (enum boot_backend)i;
			return 0;
		}
	return -1;
}

static bool exists(const char *root, const char *path)
{
	char p[4096];

	return access(root_path(root, path, p, sizeof(p)), F_OK) == 0;
}

/* The text of <root><path>, malloc'd, or NULL. */
static char *slurp(const char *root, const char *path)
{
	char p[4096], *text = NULL;

	if (read_file(root_path(root, path, p, sizeof(p)), &text, NULL) < 0)
		return NULL;
	return text;
}

bool boot_systemd_runs(const char *root)
{
	return exists(root, "/run/systemd/system");
}

static int cmp_release(const void *a, const void *b)
{
	return strverscmp(((const struct boot_kernel *)a)->release,
			  ((const struct boot_kernel *)b)->release);
}

int boot_kernels(const char *root, struct boot_kernel **out, size_t *n, char *why, size_t len)
{
	char dir[4096], running[128] = "", p[4096];
	struct boot_kernel *k = NULL;
	struct dirent *d;
	size_t count = 0;
	DIR *dh;

	*out = NULL;
	*n = 0;
	if (read_line_file(root_path(root, "/proc/sys/kernel/osrelease", p, sizeof(p)), running,
			   sizeof(running)) == 0)
		rtrim(running);
	dh = opendir(root_path(root, "/boot", dir, sizeof(dir)));
	if (!dh) {
		put(why, len, "cannot read '%s': %s", dir, strerror(errno));
		return -1;
	}
	while ((d = readdir(dh))) {
		struct boot_kernel *e;

		if (strncmp(d->d_name, "vmlinuz-", 8) || !d->d_name[8] ||
		    strlen(d->d_name + 8) >= sizeof(k->release))
			continue;
		k = xrealloc(k, (count + 1) * sizeof(*k));
		e = &k[count++];
		memset(e, 0, sizeof(*e));
		put(e->release, sizeof(e->release), "%s", d->d_name + 8);
		put(e->image, sizeof(e->image), "/boot/%s", d->d_name);
		snprintf(p, sizeof(p), "/boot/initrd.img-%s", e->release);
		if (exists(root, p))
			put(e->initrd, sizeof(e->initrd), "%s", p);
		e->running = !strcmp(e->release, running);
	}
	closedir(dh);
	if (count)
		qsort(k, count, sizeof(*k), cmp_release);
	*out = k;
	*n = count;
	return 0;
}

/* ---------------------------------------------------------------- probes */

static bool tool(struct boot_loader *l, const char *name)
{
	if (find_program(name, l->tool, sizeof(l->tool)) == 0)
		return true;
	put(l->why, sizeof(l->why), "'%s' is not installed (not found in PATH)", name);
	return false;
}

static void probe_rpi(const char *root, struct boot_loader *l)
{
	char *model = slurp(root, "/proc/device-tree/model");
	bool pi = model && strstr(model, "Raspberry Pi");

	free(model);
	if (!pi) {
		put(l->why, sizeof(l->why),
		    "not a Raspberry Pi (/proc/device-tree/model does not name one)");
		return;
	}
	if (!exists(root, "/proc/device-tree/chosen/bootloader/tryboot")) {
		put(l->why, sizeof(l->why),
		    "this Pi's boot loader has no tryboot flag "
		    "(/proc/device-tree/chosen/bootloader/tryboot: Pi 4 and Pi 5 have it)");
		return;
	}
	if (exists(root, "/boot/firmware/config.txt"))
		put(l->config, sizeof(l->config), "/boot/firmware/config.txt");
	else if (exists(root, "/boot/config.txt"))
		put(l->config, sizeof(l->config), "/boot/config.txt");
	else {
		put(l->why, sizeof(l->why),
		    "no config.txt in /boot/firmware or /boot (the boot partition is not "
		    "mounted)");
		return;
	}
	if (!tool(l, "reboot"))
		return;
	l->usable = true;
	put(l->note, sizeof(l->note),
	    "the next boot only reads tryboot.txt (config.txt and the kernel's lines) instead "
	    "of config.txt; a kernel that does not come up falls back to config.txt at the "
	    "next reset");
}

/* The entries directory of the Boot Loader Specification, under root. */
static const char *sdboot_entries(const char *root)
{
	static const char *const dirs[] = { "/efi/loader/entries", "/boot/efi/loader/entries",
					    "/boot/loader/entries" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		if (exists(root, dirs[i]))
			return dirs[i];
	return NULL;
}

static void probe_sdboot(const char *root, struct boot_loader *l)
{
	const char *dir = sdboot_entries(root);

	if (!dir) {
		put(l->why, sizeof(l->why),
		    "no loader/entries in /efi, /boot/efi or /boot (no Boot Loader "
		    "Specification entries)");
		return;
	}
	put(l->config, sizeof(l->config), "%s", dir);
	if (!exists(root, "/sys/firmware/efi/efivars/LoaderInfo-" LOADER_GUID)) {
		put(l->why, sizeof(l->why),
		    "this boot was not started by systemd-boot (no LoaderInfo EFI variable), "
		    "so "
		    "it would not read a one-shot entry");
		return;
	}
	if (!tool(l, "bootctl"))
		return;
	l->usable = true;
	put(l->note, sizeof(l->note),
	    "bootctl set-oneshot sets the LoaderEntryOneShot EFI variable, which systemd-boot "
	    "reads and removes at the next boot");
}

static void probe_grub(const char *root, struct boot_loader *l)
{
	char *cfg = slurp(root, "/boot/grub/grub.cfg"), *def, line[256] = "";

	if (!cfg) {
		put(l->why, sizeof(l->why), "no /boot/grub/grub.cfg");
		return;
	}
	put(l->config, sizeof(l->config), "/boot/grub/grub.cfg");
	if (!strstr(cfg, "next_entry")) {
		put(l->why, sizeof(l->why),
		    "/boot/grub/grub.cfg never reads next_entry (not written by "
		    "grub-mkconfig?), so grub-reboot would have no effect");
		free(cfg);
		return;
	}
	free(cfg);
	if (!tool(l, "grub-reboot"))
		return;
	l->usable = true;
	def = slurp(root, "/etc/default/grub");
	if (def) {
		char *p = strstr(def, "\nGRUB_DEFAULT=");

		if (!p && !strncmp(def, "GRUB_DEFAULT=", 13))
			p = def - 1;
		if (p)
			snprintf(line, sizeof(line), "%.*s", (int)strcspn(p + 1, "\n"), p + 1);
		free(def);
	}
	put(l->note, sizeof(l->note),
	    "grub-reboot writes next_entry to /boot/grub/grubenv, which grub.cfg reads and "
	    "clears at the next boot; %s is left as it is",
	    line[0] ? line : "/etc/default/grub");
}

static void probe_kexec(const char *root, struct boot_loader *l)
{
	char p[4096], v[32] = "";
	char *lock;

	put(l->config, sizeof(l->config), "/proc/cmdline");
	if (!exists(root, "/sys/kernel/kexec_loaded")) {
		put(l->why, sizeof(l->why),
		    "the running kernel cannot kexec (no /sys/kernel/kexec_loaded: "
		    "CONFIG_KEXEC is off)");
		return;
	}
	if (read_line_file(root_path(root, "/proc/sys/kernel/kexec_load_disabled", p, sizeof(p)), v,
			   sizeof(v)) == 0 &&
	    atoi(v) == 1) {
		put(l->why, sizeof(l->why),
		    "kexec is disabled until reboot (kernel.kexec_load_disabled = 1)");
		return;
	}
	if (!tool(l, "kexec"))
		return;
	l->usable = true;
	lock = slurp(root, "/sys/kernel/security/lockdown");
	put(l->note, sizeof(l->note),
	    "the firmware and the boot loader are skipped: what they set (clocks, "
	    "config.txt) stays as this boot set it%s",
	    lock && !strstr(lock, "[none]")
		    ? "; under lockdown only a signed kernel loads (kexec -s)"
		    : "");
	free(lock);
}

void boot_loader_probe(const char *root, enum boot_backend b, struct boot_loader *l)
{
	memset(l, 0, sizeof(*l));
	l->backend = b;
	switch (b) {
	case BOOT_RPI:
		probe_rpi(root, l);
		break;
	case BOOT_SYSTEMD_BOOT:
		probe_sdboot(root, l);
		break;
	case BOOT_GRUB:
		probe_grub(root, l);
		break;
	case BOOT_KEXEC:
		probe_kexec(root, l);
		break;
	case BOOT_NBACKENDS:
		break;
	}
}

/* ---------------------------------------------------------------- entries */

/* The quoted word after key in line ('...' or "..."), into buf. */
static bool quoted_after(const char *line, const char *key, char *buf, size_t len)
{
	const char *p = key ? strstr(line, key) : line, *end;
	char q;

	if (!p)
		return false;
	p += key ? strlen(key) : 0;
	p += strspn(p, " \t");
	if (*p != '\'' && *p != '"')
		return false;
	q = *p++;
	end = strchr(p, q);
	if (!end || (size_t)(end - p) >= len)
		return false;
	snprintf(buf, len, "%.*s", (int)(end - p), p);
	return true;
}

/* Whether kernel path (a linux line's or an entry's) is release's image. */
static bool image_of(const char *path, size_t n, const char *release)
{
	size_t r = strlen(release);
	const char *base = path;
	size_t i;

	for (i = 0; i < n; i++)
		if (path[i] == '/')
			base = path + i + 1;
	n -= (size_t)(base - path);
	return n == 8 + r && !strncmp(base, "vmlinuz-", 8) && !strncmp(base + 8, release, r);
}

/* A menu entry's id (its $menuentry_id_option, else its title). */
static bool block_id(const char *line, char *buf, size_t len)
{
	return quoted_after(line, "$menuentry_id_option", buf, len) ||
	       quoted_after(line + strcspn(line, " \t"), NULL, buf, len);
}

#define GRUB_DEPTH 8

/* "linux PATH ARGS" or "linuxefi PATH ARGS", the word followed by a space or a tab. */
static bool is_linux_line(const char *t)
{
	size_t w = strcspn(t, " \t");

	return t[w] &&
	       ((w == 5 && !strncmp(t, "linux", 5)) || (w == 8 && !strncmp(t, "linuxefi", 8)));
}

static void grub_entry(const char *root, const struct boot_kernel *k, struct boot_entry *e)
{
	char *cfg = slurp(root, "/boot/grub/grub.cfg"), *line, *save = NULL;
	char sub[GRUB_DEPTH][160], cur[160] = "", title[256] = "";
	unsigned depth = 0;
	bool in_entry = false;

	if (!cfg) {
		put(e->why, sizeof(e->why), "cannot read /boot/grub/grub.cfg");
		return;
	}
	for (line = strtok_r(cfg, "\n", &save); line && !e->ok;
	     line = strtok_r(NULL, "\n", &save)) {
		char *t = line + strspn(line, " \t");

		rtrim(t);
		if (!strncmp(t, "submenu ", 8) && t[strlen(t) - 1] == '{') {
			if (depth < GRUB_DEPTH && block_id(t, sub[depth], sizeof(sub[0])))
				depth++;
		} else if (!strncmp(t, "menuentry ", 10) && t[strlen(t) - 1] == '{') {
			in_entry = block_id(t, cur, sizeof(cur));
			if (!quoted_after(t + 9, NULL, title, sizeof(title)))
				title[0] = '\0';
		} else if (!strcmp(t, "}")) {
			if (in_entry)
				in_entry = false;
			else if (depth)
				depth--;
		} else if (in_entry && is_linux_line(t)) {
			char *path = t + strcspn(t, " \t");
			size_t n;

			path += strspn(path, " \t");
			n = strcspn(path, " \t");
			if (!image_of(path, n, k->release) || strstr(title, "recovery mode") ||
			    strstr(path + n, " single"))
				continue;
			{
				char id[512] = "";
				unsigned i;

				for (i = 0; i < depth; i++)
					put(id + strlen(id), sizeof(id) - strlen(id), "%s>",
					    sub[i]);
				put(id + strlen(id), sizeof(id) - strlen(id), "%s", cur);
				put(e->entry, sizeof(e->entry), "%s", id);
			}
			e->ok = true;
		}
	}
	free(cfg);
	if (!e->ok)
		put(e->why, sizeof(e->why),
		    "no menu entry of /boot/grub/grub.cfg loads /boot/vmlinuz-%s (run "
		    "update-grub)",
		    k->release);
}

/* In a loader entry's text: the value of key (a line "key value"). */
static bool entry_key(const char *text, const char *key, char *buf, size_t len)
{
	size_t n = strlen(key);
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		p += strspn(p, " \t");
		if (!strncmp(p, key, n) && (p[n] == ' ' || p[n] == '\t')) {
			p += n + strspn(p + n, " \t");
			snprintf(buf, len, "%.*s", (int)strcspn(p, "\r\n"), p);
			rtrim(buf);
			return true;
		}
	}
	return false;
}

static void sdboot_entry(const char *root, const char *dir, const struct boot_kernel *k,
			 struct boot_entry *e)
{
	char path[4096], kpath[512], version[160], rel[200];
	struct dirent **names = NULL;
	int n, i;

	n = scandir(root_path(root, dir, path, sizeof(path)), &names, NULL, alphasort);
	snprintf(rel, sizeof(rel), "/%s/", k->release);
	for (i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		size_t len = strlen(name);
		char *text;

		if (!e->ok && len > 5 && !strcmp(name + len - 5, ".conf")) {
			snprintf(path, sizeof(path), "%s/%s", dir, name);
			text = slurp(root, path);
			if (text) {
				bool lin = entry_key(text, "linux", kpath, sizeof(kpath));
				bool ver = entry_key(text, "version", version, sizeof(version));

				if ((ver && !strcmp(version, k->release)) ||
				    (lin && (image_of(kpath, strlen(kpath), k->release) ||
					     strstr(kpath, rel)))) {
					put(e->entry, sizeof(e->entry), "%s", name);
					e->ok = true;
				}
				free(text);
			}
		}
		free(names[i]);
	}
	free(names);
	if (!e->ok)
		put(e->why, sizeof(e->why), "no entry in %s boots %s (kernel-install add?)", dir,
		    k->release);
}

/*
 * The Pi's tryboot: the boot partition (config.txt's directory), the name a
 * kernel's files get there (wakebench-RELEASE.img and .initrd), and the
 * lines tryboot.txt adds to config.txt: one place for what rpi_entry()
 * shows, rpi_command() prints and rpi_set() writes.
 */
#define TRYBOOT_PREFIX "wakebench-"

static void firmware_of(const char *config, char *buf, size_t len)
{
	put(buf, len, "%.*s", (int)(strrchr(config, '/') - config), config);
}

static void tryboot_name(const struct boot_kernel *k, const char *ext, char *buf, size_t len)
{
	put(buf, len, TRYBOOT_PREFIX "%s.%s", k->release, ext);
}

static void tryboot_lines(const struct boot_kernel *k, char *buf, size_t len)
{
	char img[200], ird[200];

	tryboot_name(k, "img", img, sizeof(img));
	tryboot_name(k, "initrd", ird, sizeof(ird));
	if (k->initrd[0])
		put(buf, len, "[all]\nkernel=%s\ninitramfs %s followkernel\n", img, ird);
	else
		put(buf, len, "[all]\nkernel=%s\n", img);
}

static void rpi_entry(const char *root, const char *config, const struct boot_kernel *k,
		      struct boot_entry *e)
{
	char fw[512], p[4096], img[200];
	struct statvfs vfs;
	struct stat si, sr;
	unsigned long long need;

	firmware_of(config, fw, sizeof(fw));
	if (stat(root_path(root, k->image, p, sizeof(p)), &si)) {
		put(e->why, sizeof(e->why), "cannot read %s", k->image);
		return;
	}
	need = (unsigned long long)si.st_size;
	if (k->initrd[0] && stat(root_path(root, k->initrd, p, sizeof(p)), &sr) == 0)
		need += (unsigned long long)sr.st_size;
	if (statvfs(root_path(root, fw, p, sizeof(p)), &vfs) == 0 &&
	    (unsigned long long)vfs.f_bavail * vfs.f_frsize < need + (1ULL << 20)) {
		put(e->why, sizeof(e->why),
		    "the boot partition %s has %llu KiB free, %llu KiB needed for the kernel "
		    "and its initramfs",
		    fw, (unsigned long long)vfs.f_bavail * vfs.f_frsize / 1024,
		    (need + (1ULL << 20)) / 1024);
		return;
	}
	tryboot_name(k, "img", img, sizeof(img));
	put(e->entry, sizeof(e->entry), "kernel=%s", img);
	e->ok = true;
}

/* The reboot that follows a one-shot choice: systemd's when it runs the machine. */
static const char *reboot_command(const char *root, enum boot_backend b)
{
	bool systemd = boot_systemd_runs(root);

	if (b == BOOT_KEXEC)
		return systemd ? "systemctl kexec" : "sync && kexec -e";
	return systemd ? "systemctl reboot" : "reboot";
}

/* The Pi's one-shot as shell lines: copy, tryboot.txt from config.txt, reboot. */
static void rpi_command(const char *config, const struct boot_kernel *k, struct boot_entry *e)
{
	char fw[512], name[200], img[700], ird[700], lines[600], esc[900], tb[600];
	const char *w[4];
	char *cp_img, *cp_ird = NULL, *cat, *out;
	size_t i, n = 0;

	firmware_of(config, fw, sizeof(fw));
	tryboot_name(k, "img", name, sizeof(name));
	put(img, sizeof(img), "%s/%s", fw, name);
	tryboot_name(k, "initrd", name, sizeof(name));
	put(ird, sizeof(ird), "%s/%s", fw, name);
	put(tb, sizeof(tb), "%s/tryboot.txt", fw);
	w[0] = "cp";
	w[1] = k->image;
	w[2] = img;
	cp_img = sh_command(w, 3);
	if (k->initrd[0]) {
		w[1] = k->initrd;
		w[2] = ird;
		cp_ird = sh_command(w, 3);
	}
	/* the lines as printf's format: each newline as \n */
	tryboot_lines(k, lines, sizeof(lines));
	for (i = 0; lines[i] && n + 3 < sizeof(esc); i++) {
		if (lines[i] == '\n')
			esc[n++] = '\\';
		esc[n++] = lines[i] == '\n' ? 'n' : lines[i];
	}
	esc[n] = '\0';
	w[0] = "cat";
	w[1] = config;
	cat = sh_command(w, 2);
	w[0] = "printf";
	w[1] = esc;
	out = sh_command(w, 2);
	w[0] = tb;
	{
		char *tbq = sh_command(w, 1);

		put(e->command, sizeof(e->command),
		    "%s%s%s && { %s; %s; } >%s && reboot '0 tryboot'", cp_img, cp_ird ? " && " : "",
		    cp_ird ? cp_ird : "", cat, out, tbq);
		free(tbq);
	}
	free(cp_img);
	free(cp_ird);
	free(cat);
	free(out);
}

void boot_entry_find(const char *root, const struct boot_loader *l, const struct boot_kernel *k,
		     struct boot_entry *e)
{
	const char *w[8];
	char *cmd, initrd[600];
	size_t n = 0;

	memset(e, 0, sizeof(*e));
	if (!l->usable) {
		put(e->why, sizeof(e->why), "%s", l->why);
		return;
	}
	switch (l->backend) {
	case BOOT_RPI:
		rpi_entry(root, l->config, k, e);
		if (e->ok)
			rpi_command(l->config, k, e);
		return;
	case BOOT_SYSTEMD_BOOT:
		sdboot_entry(root, l->config, k, e);
		w[n++] = "bootctl";
		w[n++] = "set-oneshot";
		break;
	case BOOT_GRUB:
		grub_entry(root, k, e);
		w[n++] = "grub-reboot";
		break;
	case BOOT_KEXEC:
		put(e->entry, sizeof(e->entry), "%s", k->image);
		e->ok = true;
		w[n++] = "kexec";
		w[n++] = "-l";
		w[n++] = k->image;
		if (k->initrd[0]) {
			put(initrd, sizeof(initrd), "--initrd=%s", k->initrd);
			w[n++] = initrd;
		}
		w[n++] = "--reuse-cmdline";
		break;
	case BOOT_NBACKENDS:
		return;
	}
	if (!e->ok)
		return;
	if (l->backend != BOOT_KEXEC)
		w[n++] = e->entry;
	cmd = sh_command(w, n);
	put(e->command, sizeof(e->command), "%s && %s", cmd, reboot_command(root, l->backend));
	free(cmd);
}

/* ---------------------------------------------------------------- actions */

/* Run argv (argv[0] found in PATH); 0, or -1 with what failed in why. */
static int run_tool(const char *const *argv, char *why, size_t len)
{
	char *cmd;
	size_t n;
	int status;

	if (run_program(argv, &status)) {
		put(why, len, "'%s' is not installed (not found in PATH)", argv[0]);
		return -1;
	}
	if (status == 0)
		return 0;
	for (n = 0; argv[n]; n++)
		;
	cmd = sh_command(argv, n);
	put(why, len, "'%s' failed (exit status %d)", cmd, status);
	free(cmd);
	return -1;
}

/* The boot partition of config, under root. */
static void firmware_dir(const char *root, const char *config, char *buf, size_t len)
{
	char fw[512];

	firmware_of(config, fw, sizeof(fw));
	root_path(root, fw, buf, len);
}

static int copy_file(const char *from, const char *to, char *why, size_t len)
{
	char *data = NULL;
	size_t n = 0;
	int rc;

	if (read_file(from, &data, &n) < 0) {
		put(why, len, "cannot read '%s': %s", from, strerror(errno));
		return -1;
	}
	rc = write_file_atomic(to, data, n);
	free(data);
	if (rc < 0)
		put(why, len, "cannot write '%s': %s", to, strerror(errno));
	return rc < 0 ? -1 : 0;
}

/* The Pi: the kernel and its initramfs on the boot partition, tryboot.txt. */
static int rpi_set(const char *root, const struct boot_loader *l, const struct boot_kernel *k,
		   char *why, size_t len)
{
	char fw[4096], from[4096], to[4400], name[200], lines[600], *config = NULL, *text;
	size_t n = 0;
	int rc;

	firmware_dir(root, l->config, fw, sizeof(fw));
	tryboot_name(k, "img", name, sizeof(name));
	put(to, sizeof(to), "%s/%s", fw, name);
	if (copy_file(root_path(root, k->image, from, sizeof(from)), to, why, len))
		return -1;
	if (k->initrd[0]) {
		tryboot_name(k, "initrd", name, sizeof(name));
		put(to, sizeof(to), "%s/%s", fw, name);
		if (copy_file(root_path(root, k->initrd, from, sizeof(from)), to, why, len))
			return -1;
	}
	if (read_file(root_path(root, l->config, from, sizeof(from)), &config, &n) < 0) {
		put(why, len, "cannot read '%s': %s", from, strerror(errno));
		return -1;
	}
	tryboot_lines(k, lines, sizeof(lines));
	text = xasprintf("%s%s%s", config, n && config[n - 1] != '\n' ? "\n" : "", lines);
	free(config);
	put(to, sizeof(to), "%s/tryboot.txt", fw);
	rc = write_file_atomic(to, text, strlen(text));
	free(text);
	if (rc < 0) {
		put(why, len, "cannot write '%s': %s", to, strerror(errno));
		return -1;
	}
	return 0;
}

int boot_oneshot_set(const char *root, const struct boot_loader *l, const struct boot_kernel *k,
		     const struct boot_entry *e, char *why, size_t len)
{
	char initrd[600];

	switch (l->backend) {
	case BOOT_RPI:
		return rpi_set(root, l, k, why, len);
	case BOOT_SYSTEMD_BOOT: {
		const char *argv[] = { "bootctl", "set-oneshot", e->entry, NULL };

		return run_tool(argv, why, len);
	}
	case BOOT_GRUB: {
		const char *argv[] = { "grub-reboot", e->entry, NULL };

		return run_tool(argv, why, len);
	}
	case BOOT_KEXEC: {
		const char *argv[] = { "kexec", "-l", k->image, "--reuse-cmdline", NULL, NULL };

		if (k->initrd[0]) {
			put(initrd, sizeof(initrd), "--initrd=%s", k->initrd);
			argv[3] = initrd;
			argv[4] = "--reuse-cmdline";
		}
		return run_tool(argv, why, len);
	}
	case BOOT_NBACKENDS:
		break;
	}
	put(why, len, "no backend");
	return -1;
}

int boot_oneshot_clear(const char *root, const struct boot_loader *l, char *why, size_t len)
{
	switch (l->backend) {
	case BOOT_RPI: {
		char fw[4096], p[4400];
		struct dirent *d;
		DIR *dh;

		firmware_dir(root, l->config, fw, sizeof(fw));
		put(p, sizeof(p), "%s/tryboot.txt", fw);
		if (unlink(p) && errno != ENOENT) {
			put(why, len, "cannot remove '%s': %s", p, strerror(errno));
			return -1;
		}
		dh = opendir(fw);
		while (dh && (d = readdir(dh)))
			if (!strncmp(d->d_name, TRYBOOT_PREFIX, strlen(TRYBOOT_PREFIX))) {
				put(p, sizeof(p), "%s/%s", fw, d->d_name);
				unlink(p);
			}
		if (dh)
			closedir(dh);
		return 0;
	}
	case BOOT_SYSTEMD_BOOT: {
		const char *argv[] = { "bootctl", "set-oneshot", "", NULL };

		return run_tool(argv, why, len);
	}
	case BOOT_GRUB: {
		const char *argv[] = { "grub-editenv", "/boot/grub/grubenv", "unset", "next_entry",
				       NULL };

		return run_tool(argv, why, len);
	}
	case BOOT_KEXEC: {
		const char *argv[] = { "kexec", "-u", NULL };

		return run_tool(argv, why, len);
	}
	case BOOT_NBACKENDS:
		break;
	}
	return 0;
}

int boot_reboot(const char *root, enum boot_backend b, char *why, size_t len)
{
	bool systemd = boot_systemd_runs(root);
	const char *kexec_sd[] = { "systemctl", "kexec", NULL };
	const char *kexec_e[] = { "kexec", "-e", NULL };
	const char *tryboot[] = { "reboot", "0 tryboot", NULL };
	const char *sd[] = { "systemctl", "reboot", NULL };
	const char *plain[] = { "reboot", NULL };

	sync();
	if (b == BOOT_KEXEC)
		return run_tool(systemd ? kexec_sd : kexec_e, why, len);
	if (b == BOOT_RPI)
		return run_tool(tryboot, why, len);
	return run_tool(systemd ? sd : plain, why, len);
}
