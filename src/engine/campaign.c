/*
 * campaign.c: the campaign engine (campaign.h). The backends' reading of
 * the machine and their one-shot actions are sys/boot.c's, the verdict is
 * compare's (compare_build() by kernel over the campaign's experiments);
 * this owns the plan (a JSON document in the store, with a row per planned
 * boot), the boot-time unit, and what start, step, status and abort do
 * with them. The experiment itself runs as another process of this
 * program (`run ... --db STORE`), found afterwards in the store by its pid.
 */
#include "engine/campaign.h"
#include "engine/compare.h"
#include "util/json.h"
#include "util/text.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

int campaign_kernels(const char *root, enum boot_backend want, struct campaign_kernels *c,
		     char *why, size_t len)
{
	size_t i;
	unsigned b;

	memset(c, 0, sizeof(*c));
	c->chosen = BOOT_NBACKENDS;
	if (boot_kernels(root, &c->kernel, &c->n, why, len))
		return -1;
	for (b = 0; b < BOOT_NBACKENDS; b++)
		boot_loader_probe(root, (enum boot_backend)b, &c->loader[b]);
	c->entry = xcalloc(c->n ? c->n * BOOT_NBACKENDS : 1, sizeof(*c->entry));
	for (i = 0; i < c->n; i++)
		for (b = 0; b < BOOT_NBACKENDS; b++)
			boot_entry_find(root, &c->loader[b], &c->kernel[i],
					&c->entry[i * BOOT_NBACKENDS + b]);
	if (want < BOOT_NBACKENDS) {
		if (c->loader[want].usable)
			c->chosen = want;
		else
			snprintf(c->why, sizeof(c->why), "%s", c->loader[want].why);
		return 0;
	}
	for (b = 0; b < BOOT_NBACKENDS && c->chosen == BOOT_NBACKENDS; b++)
		if (c->loader[b].usable)
			c->chosen = (enum boot_backend)b;
	if (c->chosen == BOOT_NBACKENDS)
		snprintf(c->why, sizeof(c->why),
			 "no boot loader here can boot a kernel once (rpi, systemd-boot, grub, "
			 "kexec: see each one's reason)");
	return 0;
}

/* A field of text: null when empty (not known, not applicable). */
static json_object *text_or_null(const char *s)
{
	return json_str_or_null(s && *s ? s : NULL);
}

json_object *campaign_kernels_json(const struct campaign_kernels *c)
{
	struct json_object *o = json_object_new_object(), *ks = json_object_new_array();
	struct json_object *ls = json_object_new_array();
	size_t i;
	unsigned b;

	for (b = 0; b < BOOT_NBACKENDS; b++) {
		const struct boot_loader *l = &c->loader[b];
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "name", json_object_new_string(boot_backend_name(b)));
		json_object_object_add(j, "usable", json_object_new_boolean(l->usable));
		json_object_object_add(j, "tool", text_or_null(l->tool));
		json_object_object_add(j, "config", text_or_null(l->config));
		json_object_object_add(j, "why", text_or_null(l->why));
		json_object_object_add(j, "note", text_or_null(l->note));
		json_object_array_add(ls, j);
	}
	for (i = 0; i < c->n; i++) {
		const struct boot_kernel *k = &c->kernel[i];
		struct json_object *j = json_object_new_object(), *by = json_object_new_object();

		json_object_object_add(j, "release", json_object_new_string(k->release));
		json_object_object_add(j, "image", json_object_new_string(k->image));
		json_object_object_add(j, "initrd", text_or_null(k->initrd));
		json_object_object_add(j, "running", json_object_new_boolean(k->running));
		for (b = 0; b < BOOT_NBACKENDS; b++) {
			const struct boot_entry *e = &c->entry[i * BOOT_NBACKENDS + b];
			struct json_object *x;

			if (!c->loader[b].usable)
				continue;
			x = json_object_new_object();
			json_object_object_add(x, "ok", json_object_new_boolean(e->ok));
			json_object_object_add(x, "entry", text_or_null(e->entry));
			json_object_object_add(x, "command", text_or_null(e->command));
			json_object_object_add(x, "why", text_or_null(e->why));
			json_object_object_add(by, boot_backend_name(b), x);
		}
		json_object_object_add(j, "backends", by);
		json_object_array_add(ks, j);
	}
	json_object_object_add(o, "kernels", ks);
	json_object_object_add(o, "backends", ls);
	json_object_object_add(o, "chosen",
			       c->chosen < BOOT_NBACKENDS
				       ? json_object_new_string(boot_backend_name(c->chosen))
				       : NULL);
	json_object_object_add(o, "why", text_or_null(c->why));
	return o;
}

void campaign_kernels_release(struct campaign_kernels *c)
{
	free(c->kernel);
	free(c->entry);
	memset(c, 0, sizeof(*c));
}

/* ---------------------------------------------------------------- the plan */

/* A stored plan, read back. */
struct plan_rt {
	char **kernels;
	size_t nkernels;
	unsigned boots, max_boots;
	int order;
	uint64_t seed, settle_ns;
	bool reboot, stop_on_fail;
	char **run;
	size_t nrun;
};

static void plan_rt_free(struct plan_rt *p)
{
	size_t i;

	for (i = 0; i < p->nkernels; i++)
		free(p->kernels[i]);
	for (i = 0; i < p->nrun; i++)
		free(p->run[i]);
	free(p->kernels);
	free(p->run);
	memset(p, 0, sizeof(*p));
}

static char **json_strings(json_object *a, size_t *n)
{
	size_t i,
		k = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
	char **v = xcalloc(k ? k : 1, sizeof(*v));

	for (i = 0; i < k; i++)
		v[i] = xstrdup(json_object_get_string(json_object_array_get_idx(a, i)));
	*n = k;
	return v;
}

static int plan_read(const char *json, struct plan_rt *p)
{
	json_object *o = json_tokener_parse(json), *v;

	memset(p, 0, sizeof(*p));
	if (!o)
		return error("campaign: the stored plan is not JSON");
	p->kernels =
		json_strings(json_object_object_get_ex(o, "kernels", &v) ? v : NULL, &p->nkernels);
	p->run = json_strings(json_object_object_get_ex(o, "run", &v) ? v : NULL, &p->nrun);
	p->boots = json_object_object_get_ex(o, "boots", &v) ? (unsigned)json_object_get_int(v) : 0;
	p->max_boots = json_object_object_get_ex(o, "max_boots", &v)
			       ? (unsigned)json_object_get_int(v)
			       : 0;
	p->order = json_object_object_get_ex(o, "order", &v) && json_object_get_string(v) &&
		   !strcmp(json_object_get_string(v), "random");
	p->seed = json_object_object_get_ex(o, "seed", &v) ? (uint64_t)json_object_get_int64(v) : 0;
	p->settle_ns = json_object_object_get_ex(o, "settle_ns", &v)
			       ? (uint64_t)json_object_get_int64(v)
			       : 0;
	p->reboot = !json_object_object_get_ex(o, "reboot", &v) || json_object_get_boolean(v);
	p->stop_on_fail = json_object_object_get_ex(o, "on_fail", &v) &&
			  json_object_get_string(v) && !strcmp(json_object_get_string(v), "stop");
	json_object_put(o);
	if (!p->nkernels || !p->nrun || !p->boots) {
		plan_rt_free(p);
		return error("campaign: the stored plan lacks its kernels, boots or command");
	}
	return 0;
}

static char *plan_json(const struct campaign_plan *p)
{
	json_object *o = json_object_new_object(), *k = json_object_new_array();
	json_object *run = json_object_new_array();
	char *s;
	size_t i;

	for (i = 0; i < p->nkernels; i++)
		json_object_array_add(k, json_object_new_string(p->kernels[i]));
	for (i = 0; i < p->nrun; i++)
		json_object_array_add(run, json_object_new_string(p->run[i]));
	json_object_object_add(o, "kernels", k);
	json_object_object_add(o, "boots", json_object_new_int((int)p->boots));
	json_object_object_add(o, "max_boots", json_object_new_int((int)p->max_boots));
	json_object_object_add(
		o, "order",
		json_object_new_string(p->order == CAMPAIGN_RANDOM ? "random" : "balanced"));
	json_object_object_add(o, "seed", json_object_new_int64((int64_t)p->seed));
	json_object_object_add(o, "settle_ns", json_object_new_int64((int64_t)p->settle_ns));
	json_object_object_add(o, "reboot", json_object_new_boolean(p->reboot));
	json_object_object_add(o, "on_fail",
			       json_object_new_string(p->stop_on_fail ? "stop" : "continue"));
	json_object_object_add(o, "run", run);
	s = xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return s;
}

/* The kernels of round r (0-based), in boot order: rotated, or shuffled by seed. */
static void round_order(const char *const *kernels, size_t k, unsigned r, int order, uint64_t seed,
			const char **out)
{
	size_t i;

	for (i = 0; i < k; i++)
		out[i] = kernels[(i + r) % k];
	if (order != CAMPAIGN_RANDOM)
		return;
	for (i = k; i > 1; i--) {
		uint64_t x = seed + 0x9e3779b97f4a7c15ULL * (r * 131 + i);
		size_t j;
		const char *t;

		x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
		x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
		x ^= x >> 31;
		j = (size_t)(x % i);
		t = out[i - 1];
		out[i - 1] = out[j];
		out[j] = t;
	}
}

/* ---------------------------------------------------------------- the unit */

#define UNIT_NAME "wakebench-campaign.service"

/* Below this much free space on the store's file system a campaign stops. */
#define CAMPAIGN_ROOM (1ULL << 20)

static int systemctl(const char *a, const char *b)
{
	const char *argv[] = { "systemctl", a, b, NULL };
	int status;

	return run_program(argv, &status) || status ? -1 : 0;
}

/* Install the unit that runs the step at every boot, or say how to do without it. */
static int unit_install(const struct campaign_where *w, char *said, size_t len)
{
	char path[4096], *text, *exec;
	const char *words[] = { w->self, "campaign", "step", "--db", w->db };
	int rc;

	if (!boot_systemd_runs(w->root)) {
		exec = sh_command(words, ARRAY_SIZE(words));
		snprintf(said, len,
			 "systemd does not run this machine: run '%s' at every boot (from the boot "
			 "script of its init system)",
			 exec);
		free(exec);
		return 0;
	}
	exec = sh_command(words, ARRAY_SIZE(words));
	/*
	 * After multi-user.target and wanted by it: DefaultDependencies=no keeps
	 * the target from being ordered after the unit (which would be a cycle),
	 * and the shutdown ordering is then said explicitly.
	 */
	text = xasprintf("# written by wakebench campaign start; removed when the campaign ends\n"
			 "[Unit]\nDescription=wakebench campaign: measure this boot, then boot the "
			 "next kernel\nDefaultDependencies=no\nAfter=multi-user.target\n"
			 "Conflicts=shutdown.target\nBefore=shutdown.target\n\n"
			 "[Service]\nType=oneshot\nTimeoutStartSec=infinity\nExecStart=%s\n\n"
			 "[Install]\nWantedBy=multi-user.target\n",
			 exec);
	free(exec);
	rc = write_file_atomic(
		root_path(w->root, "/etc/systemd/system/" UNIT_NAME, path, sizeof(path)), text,
		strlen(text));
	free(text);
	if (rc < 0)
		return error("campaign: cannot write '%s': %s", path, strerror(errno));
	if (systemctl("daemon-reload", NULL) || systemctl("enable", UNIT_NAME))
		return error("campaign: cannot enable %s (systemctl enable failed)", UNIT_NAME);
	snprintf(said, len, "%.*s enabled: it runs the step at every boot", (int)(len / 2), path);
	return 0;
}

static void unit_remove(const struct campaign_where *w)
{
	char path[4096];

	if (!boot_systemd_runs(w->root))
		return;
	if (systemctl("disable", UNIT_NAME))
		warning("campaign: systemctl disable %s failed", UNIT_NAME);
	root_path(w->root, "/etc/systemd/system/" UNIT_NAME, path, sizeof(path));
	if (unlink(path) && errno != ENOENT)
		warning("campaign: cannot remove '%s': %s", path, strerror(errno));
	systemctl("daemon-reload", NULL);
}

/* ---------------------------------------------------------------- the machine */

static void read_trim(const char *root, const char *path, char *buf, size_t len)
{
	char p[4096];

	buf[0] = '\0';
	if (read_line_file(root_path(root, path, p, sizeof(p)), buf, len) == 0)
		rtrim(buf);
}

/* The backend of a stored campaign, probed again (this boot may differ). */
static int loader_of(const char *root, const char *name, struct boot_loader *l)
{
	enum boot_backend b;

	if (boot_backend_parse(name, &b))
		return error("campaign: unknown backend '%s' in the store", name);
	boot_loader_probe(root, b, l);
	if (!l->usable)
		return error("campaign: %s cannot boot a kernel once here now: %s", name, l->why);
	return 0;
}

static int find_kernel(const char *root, const char *release, struct boot_kernel *out)
{
	struct boot_kernel *k;
	size_t n, i;
	char why[512];
	int rc = -1;

	if (boot_kernels(root, &k, &n, why, sizeof(why)))
		return error("campaign: %s", why);
	for (i = 0; i < n; i++)
		if (!strcmp(k[i].release, release)) {
			*out = k[i];
			rc = 0;
		}
	free(k);
	return rc;
}

/* Make release the next boot's, once, and reboot (or leave that to the user). */
static int boot_next(const struct campaign_where *w, const struct store_campaign *c,
		     const struct plan_rt *p, struct store *st, unsigned idx, const char *release,
		     struct campaign_result *r)
{
	struct boot_loader l;
	struct boot_kernel k;
	struct boot_entry e;
	char why[1024];

	if (loader_of(w->root, c->backend, &l))
		return -1;
	if (find_kernel(w->root, release, &k))
		return error("campaign: kernel %s is no longer installed in /boot", release);
	boot_entry_find(w->root, &l, &k, &e);
	if (!e.ok)
		return error("campaign: %s cannot boot %s: %s", c->backend, release, e.why);
	if (boot_oneshot_set(w->root, &l, &k, &e, why, sizeof(why)))
		return error("campaign: %s", why);
	if (store_campaign_boot_set(st, c->id, idx, "booting", NULL, NULL, NULL))
		return -1;
	snprintf(r->next_kernel, sizeof(r->next_kernel), "%s", release);
	if (!p->reboot) {
		r->action = CAMPAIGN_REBOOT_BY_HAND;
		return 0;
	}
	r->action = CAMPAIGN_REBOOTING;
	if (boot_reboot(w->root, l.backend, why, sizeof(why)))
		return error("campaign: %s", why);
	return 0;
}

/* ---------------------------------------------------------------- the verdict */

/* The measured boots of kernel. */
static size_t measured_of(const struct store_campaign_boot *b, size_t n, const char *kernel)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += !strcmp(b[i].state, "measured") && !strcmp(b[i].kernel, kernel);
	return k;
}

/* compare's engine over the measured boots, by kernel, against the plan's first. */
static void judge(struct store *st, const struct plan_rt *p, const struct store_campaign_boot *b,
		  size_t nb, struct campaign_result *r)
{
	struct compare_request rq = { .by = "kernel", .baseline = p->kernels[0] };
	struct compare c;
	int64_t *ids = xcalloc(nb ? nb : 1, sizeof(*ids));
	size_t i, n = 0, used = 0;

	r->decided = false;
	for (i = 0; i < p->nkernels; i++)
		if (!measured_of(b, nb, p->kernels[i])) {
			snprintf(r->verdict, sizeof(r->verdict),
				 "no verdict yet: %s has no measured boot", p->kernels[i]);
			free(ids);
			return;
		}
	for (i = 0; i < nb; i++)
		if (!strcmp(b[i].state, "measured") && b[i].experiment_uuid &&
		    store_find_experiment(st, b[i].experiment_uuid, &ids[n]) == 0)
			n++;
	rq.only = ids;
	rq.nonly = n;
	memset(&c, 0, sizeof(c));
	if (compare_build(&c, st, &rq) != EXIT_OK) {
		snprintf(r->verdict, sizeof(r->verdict),
			 "no verdict: compare could not group the boots");
		compare_release(&c);
		free(ids);
		return;
	}
	r->decided = c.ngroups == p->nkernels;
	for (i = 0; i < c.ngroups; i++) {
		const struct group *g = &c.groups[i];
		char line[512];

		if (i == c.baseline)
			continue;
		compare_verdict_text(&c, g, line, sizeof(line));
		used += (size_t)snprintf(r->verdict + used,
					 used < sizeof(r->verdict) ? sizeof(r->verdict) - used : 0,
					 "%s%s vs %s (%zu vs %zu boots): %s", used ? "\n" : "",
					 g->value, c.groups[c.baseline].value, g->nboots,
					 c.groups[c.baseline].nboots, line);
		if (used >= sizeof(r->verdict))
			used = sizeof(r->verdict) - 1;
		if (g->verdict == VERDICT_INCONCLUSIVE || g->verdict == VERDICT_INSUFFICIENT)
			r->decided = false;
	}
	for (i = 0; i < p->nkernels; i++)
		if (measured_of(b, nb, p->kernels[i]) < p->boots)
			r->decided = false;
	compare_release(&c);
	free(ids);
}

/* ---------------------------------------------------------------- a boot */

/* Wait until the machine has been up settle_ns and its load is below its CPUs (bounded). */
static void settle(const char *root, uint64_t settle_ns, char *said, size_t len)
{
	uint64_t deadline = now_ns() + settle_ns + 600ULL * 1000000000ULL;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char buf[128];
	double up = 0, load = 0;

	if (!settle_ns)
		return;
	for (;;) {
		read_trim(root, "/proc/uptime", buf, sizeof(buf));
		up = atof(buf);
		read_trim(root, "/proc/loadavg", buf, sizeof(buf));
		load = atof(buf);
		if (up * 1e9 >= (double)settle_ns && load < (double)ncpu)
			return;
		if (now_ns() >= deadline)
			break;
		sleep_ns(1000000000ULL);
	}
	snprintf(said, len,
		 "not settled after waiting 10 minutes more (up %.0f s, load %.2f on %ld CPUs): "
		 "measured all the same; ",
		 up, load, ncpu);
}

/*
 * Run this program with argv (argv[0] is w->self) and wait: its pid, and
 * its exit status (128 + the signal) in *status; -1 after an error. quiet:
 * its stdout goes to /dev/null (its stderr stays).
 */
static pid_t run_self(const struct campaign_where *w, const char **argv, bool quiet, int *status)
{
	pid_t pid = fork();

	if (pid < 0)
		return error_errno("campaign: fork");
	if (pid == 0) {
		char *const *av;
		int fd = quiet ? open("/dev/null", O_WRONLY) : STDOUT_FILENO;

		if (fd < 0 || (quiet && dup2(fd, STDOUT_FILENO) < 0))
			_exit(127);
		memcpy(&av, &argv, sizeof(av)); /* execv's historical prototype */
		execv(w->self, av);
		_exit(127);
	}
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return error_errno("campaign: waitpid");
	*status = WIFEXITED(*status) ? WEXITSTATUS(*status) : 128 + WTERMSIG(*status);
	return pid;
}

/*
 * The experiment's command line tried once here, unstored and short, before
 * anything is stored: its exit status (2: the run refused its options; 77:
 * it cannot run here), or -1 after an error. Its stdout is dropped, its
 * stderr (the run's own one line) kept.
 */
static int run_check(const struct campaign_where *w, const struct campaign_plan *p)
{
	static const char *const quick[] = { "--no-store", "-n", "1",	  "--warmup",
					     "0",	   "-t", "100ms", "-q" };
	const char **argv = xcalloc(p->nrun + ARRAY_SIZE(quick) + 2, sizeof(*argv));
	size_t i, n = 0;
	int status = 0;
	pid_t pid;

	argv[n++] = w->self;
	for (i = 0; i < p->nrun; i++)
		argv[n++] = p->run[i];
	for (i = 0; i < ARRAY_SIZE(quick); i++)
		argv[n++] = quick[i];
	pid = run_self(w, argv, true, &status);
	free(argv);
	return pid < 0 ? -1 : status;
}

/*
 * Run the experiment as a process of its own (its own store transactions),
 * and find what it stored: 0 with its UUID, 1 when it stored nothing, -1.
 */
static int run_experiment(const struct campaign_where *w, const struct plan_rt *p, struct store *st,
			  char uuid[37], int *status)
{
	const char **argv = xcalloc(p->nrun + 4, sizeof(*argv));
	uint64_t t0 = realtime_ns();
	int64_t id;
	size_t i;
	pid_t pid;

	argv[0] = w->self;
	for (i = 0; i < p->nrun; i++)
		argv[i + 1] = p->run[i];
	argv[i + 1] = "--db";
	argv[i + 2] = w->db;
	pid = run_self(w, argv, false, status);
	free(argv);
	if (pid < 0)
		return -1;
	return store_experiment_of_owner(st, pid, t0, &id, uuid);
}

/* ---------------------------------------------------------------- the commands */

/*
 * Durable: a boot's state is on the disk before what follows it (the run,
 * the reboot), so that a machine that goes down meanwhile leaves "measuring"
 * (interrupted) or "booting" behind, not the state before.
 */
static int open_store(const struct campaign_where *w, unsigned flags, struct store **st)
{
	return store_open(w->db, flags | STORE_DURABLE, st) ? -1 : 0;
}

static int load(struct store *st, bool running_only, struct campaign_result *r, struct plan_rt *p)
{
	int rc = store_campaign_latest(st, running_only, &r->c);

	if (rc)
		return rc;
	if (plan_read(r->c.plan_json, p))
		return -1;
	return store_campaign_boots(st, r->c.id, &r->boot, &r->nboots);
}

static void reload_boots(struct store *st, struct campaign_result *r)
{
	store_campaign_boots_free(r->boot, r->nboots);
	r->boot = NULL;
	r->nboots = 0;
	store_campaign_boots(st, r->c.id, &r->boot, &r->nboots);
}

/* Add the next round's boots (up to max_boots in all); how many were added. */
static size_t add_round(struct store *st, const struct plan_rt *p, struct campaign_result *r)
{
	const char **order = xcalloc(p->nkernels, sizeof(*order));
	unsigned round = (unsigned)(r->nboots / p->nkernels);
	size_t i, added = 0;

	round_order((const char *const *)p->kernels, p->nkernels, round, p->order, p->seed, order);
	for (i = 0; i < p->nkernels && r->nboots + added < p->max_boots; i++)
		if (store_campaign_boot_add(st, r->c.id, (unsigned)(r->nboots + added), order[i]) ==
		    0)
			added++;
	free(order);
	reload_boots(st, r);
	return added;
}

/* The end: the one-shot choice and the unit undone, the state and the verdict stored. */
static void finish(const struct campaign_where *w, struct store *st, const char *state,
		   struct campaign_result *r)
{
	struct boot_loader l;
	char why[1024];

	if (loader_of(w->root, r->c.backend, &l) == 0 &&
	    boot_oneshot_clear(w->root, &l, why, sizeof(why)))
		warning("campaign: %s", why);
	unit_remove(w);
	store_campaign_end(st, r->c.id, state, r->verdict);
	free(r->c.state);
	r->c.state = xstrdup(state);
	r->action = CAMPAIGN_ENDED;
}

/* After a boot: decided, or the next planned boot, or a new round, or the end. */
static int go_on(const struct campaign_where *w, struct store *st, const struct plan_rt *p,
		 struct campaign_result *r)
{
	size_t i;

	reload_boots(st, r);
	judge(st, p, r->boot, r->nboots, r);
	if (r->decided) {
		finish(w, st, "decided", r);
		return EXIT_OK;
	}
	for (i = 0; i < r->nboots; i++)
		if (!strcmp(r->boot[i].state, "planned"))
			break;
	if (i == r->nboots && add_round(st, p, r))
		for (i = 0; i < r->nboots; i++)
			if (!strcmp(r->boot[i].state, "planned"))
				break;
	if (i == r->nboots) {
		finish(w, st, "exhausted", r);
		return EXIT_OK;
	}
	if (boot_next(w, &r->c, p, st, r->boot[i].idx, r->boot[i].kernel, r)) {
		finish(w, st, "failed", r);
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

/* Free bytes on the file system that holds the store. */
static uint64_t store_room(const char *db)
{
	char dir[4096];
	struct statvfs v;
	char *slash;

	snprintf(dir, sizeof(dir), "%s", db);
	slash = strrchr(dir, '/');
	if (slash && slash != dir)
		*slash = '\0';
	if (statvfs(dir, &v))
		return UINT64_MAX;
	return (uint64_t)v.f_bavail * v.f_frsize;
}

/*
 * This boot: the planned kernel measured, or the wrong one recorded. 0
 * measured, 1 a failed boot (the wrong kernel, or the run stored nothing),
 * -1 when the store's disk is full: the campaign cannot go on.
 */
static int this_boot(const struct campaign_where *w, struct store *st, const struct plan_rt *p,
		     struct store_campaign_boot *cur, const char *release, const char *boot_id,
		     struct campaign_result *r)
{
	char uuid[37] = "", reason[300];
	int status = 0, rc;

	if (strcmp(release, cur->kernel)) {
		snprintf(reason, sizeof(reason),
			 "booted %s instead of %s: the planned kernel did not come up (the boot "
			 "loader fell back to its default), or another boot came between",
			 release, cur->kernel);
		store_campaign_boot_set(st, r->c.id, cur->idx, "wrong-kernel", boot_id, NULL,
					reason);
		snprintf(r->said, sizeof(r->said), "boot %u: %s", cur->idx + 1, reason);
		return 1;
	}
	settle(w->root, p->settle_ns, r->said, sizeof(r->said));
	if (store_room(w->db) < CAMPAIGN_ROOM ||
	    store_campaign_boot_set(st, r->c.id, cur->idx, "measuring", boot_id, NULL, NULL)) {
		uint64_t room = store_room(w->db);

		snprintf(r->verdict, sizeof(r->verdict),
			 "stopped at boot %u: %s '%s'%s%llu KiB free)", cur->idx + 1,
			 room < CAMPAIGN_ROOM ? "the disk is full that holds"
					      : "cannot record the boot in",
			 w->db, room < CAMPAIGN_ROOM ? " (" : " (its disk has ",
			 (unsigned long long)(room / 1024));
		return -1;
	}
	rc = run_experiment(w, p, st, uuid, &status);
	if (rc == 0) {
		snprintf(reason, sizeof(reason),
			 "the run exited %d; its completed samples are kept", status);
		store_campaign_boot_set(st, r->c.id, cur->idx, "measured", boot_id, uuid,
					status ? reason : NULL);
		snprintf(r->said + strlen(r->said), sizeof(r->said) - strlen(r->said),
			 "boot %u: %s measured, experiment %.8s", cur->idx + 1, release, uuid);
	} else {
		snprintf(reason, sizeof(reason), "the run stored nothing (exit status %d)", status);
		store_campaign_boot_set(st, r->c.id, cur->idx, "failed", boot_id, NULL, reason);
		snprintf(r->said + strlen(r->said), sizeof(r->said) - strlen(r->said),
			 "boot %u: %s", cur->idx + 1, reason);
	}
	if (store_room(w->db) < CAMPAIGN_ROOM) {
		snprintf(r->verdict, sizeof(r->verdict),
			 "stopped after boot %u: the disk is full that holds '%s' (%llu KiB free)",
			 cur->idx + 1, w->db, (unsigned long long)(store_room(w->db) / 1024));
		return -1;
	}
	return rc == 0 ? 0 : 1;
}

static int step_lock(const struct campaign_where *w)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/campaign.lock", w->state_dir);
	if (mkdir(w->state_dir, 0755) && errno != EEXIST)
		return error("campaign: cannot make '%s': %s", w->state_dir, strerror(errno));
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return error("campaign: cannot open '%s': %s", path, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		return error("campaign: another campaign step is running (it holds '%s')", path);
	}
	return fd;
}

int campaign_step(const struct campaign_where *w, struct campaign_result *r)
{
	struct plan_rt p = { 0 };
	struct store *st = NULL;
	char release[128], boot_id[64];
	size_t i;
	int lock, rc;

	memset(r, 0, sizeof(*r));
	if ((lock = step_lock(w)) < 0)
		return EXIT_RUNTIME;
	if (open_store(w, 0, &st)) {
		close(lock);
		return EXIT_RUNTIME;
	}
	rc = load(st, true, r, &p);
	if (rc > 0) {
		snprintf(r->said, sizeof(r->said), "no campaign is running");
		rc = 0;
		goto out;
	}
	if (rc)
		goto out;
	read_trim(w->root, "/proc/sys/kernel/osrelease", release, sizeof(release));
	read_trim(w->root, "/proc/sys/kernel/random/boot_id", boot_id, sizeof(boot_id));
	for (i = 0; i < r->nboots; i++) {
		struct store_campaign_boot *b = &r->boot[i];

		if (b->boot_id && !strcmp(b->boot_id, boot_id) && strcmp(b->state, "booting")) {
			snprintf(r->said, sizeof(r->said),
				 "this boot (%s) was already taken: boot %u, %s", boot_id,
				 b->idx + 1, b->state);
			rc = 0;
			goto out;
		}
		if (!strcmp(b->state, "measuring"))
			store_campaign_boot_set(st, r->c.id, b->idx, "failed", NULL, NULL,
						"interrupted: the machine went down during the run "
						"(power, a kill, a crash); the samples that "
						"reached the disk are kept");
	}
	for (i = 0; i < r->nboots; i++)
		if (!strcmp(r->boot[i].state, "booting"))
			break;
	rc = 0;
	if (i < r->nboots)
		rc = this_boot(w, st, &p, &r->boot[i], release, boot_id, r);
	else
		snprintf(r->said, sizeof(r->said),
			 "this boot (%s) was not chosen by the campaign (a boot went down before "
			 "it chose the next kernel): choosing it now",
			 release);
	if (rc < 0 || (rc > 0 && p.stop_on_fail)) {
		if (rc > 0)
			snprintf(r->verdict, sizeof(r->verdict), "stopped (--on-fail stop): %s",
				 r->said);
		reload_boots(st, r);
		finish(w, st, "failed", r);
		error("campaign: %s", r->verdict);
		rc = EXIT_RUNTIME;
		goto out;
	}
	rc = go_on(w, st, &p, r);
out:
	plan_rt_free(&p);
	store_close(st);
	close(lock);
	return rc < 0 ? EXIT_RUNTIME : rc;
}

/* The plan's kernels: installed, distinct, and bootable once by the backend. */
static int check_plan(const struct campaign_where *w, const struct campaign_plan *p,
		      struct campaign_kernels *ck, char *why, size_t len)
{
	size_t i, j;

	if (campaign_kernels(w->root, p->backend, ck, why, len)) {
		error("campaign: %s", why);
		return EXIT_RUNTIME;
	}
	if (ck->chosen == BOOT_NBACKENDS) {
		error("campaign: %s", ck->why);
		return EXIT_SKIP;
	}
	for (i = 0; i < p->nkernels; i++) {
		for (j = 0; j < ck->n && strcmp(ck->kernel[j].release, p->kernels[i]); j++)
			;
		if (j == ck->n) {
			error("campaign: option '--kernel': '%s' is not installed in /boot (see "
			      "'wakebench campaign kernels')",
			      p->kernels[i]);
			return EXIT_USAGE;
		}
		if (!ck->entry[j * BOOT_NBACKENDS + ck->chosen].ok) {
			error("campaign: %s cannot boot %s once: %s", boot_backend_name(ck->chosen),
			      p->kernels[i], ck->entry[j * BOOT_NBACKENDS + ck->chosen].why);
			return EXIT_SKIP;
		}
	}
	if ((!w->root || !strcmp(w->root, "/")) && geteuid() != 0) {
		error("campaign: start needs root: it installs a boot-time unit, sets the boot "
		      "loader's one-shot entry and reboots");
		return EXIT_SKIP;
	}
	return EXIT_OK;
}

int campaign_start(const struct campaign_where *w, const struct campaign_plan *p,
		   struct campaign_result *r)
{
	struct campaign_kernels ck;
	struct plan_rt rt = { 0 };
	struct store *st = NULL;
	const char **boots;
	char why[1024], *json;
	size_t n = 0;
	unsigned round;
	int rc;

	memset(r, 0, sizeof(*r));
	rc = check_plan(w, p, &ck, why, sizeof(why));
	if (rc != EXIT_OK) {
		campaign_kernels_release(&ck);
		return rc;
	}
	/* the run's own line says what it refused; exit 2 as it did */
	rc = run_check(w, p);
	if (rc == EXIT_USAGE || rc == EXIT_SKIP || rc == 127) {
		if (rc != EXIT_USAGE)
			error("campaign: the experiment after '--' cannot run here (tried once: "
			      "exit status %d)",
			      rc);
		campaign_kernels_release(&ck);
		return rc == EXIT_USAGE ? EXIT_USAGE : EXIT_SKIP;
	}
	if (open_store(w, STORE_CREATE | STORE_CHECK, &st)) {
		campaign_kernels_release(&ck);
		return EXIT_RUNTIME;
	}
	if (store_campaign_latest(st, true, &r->c) == 0) {
		error("campaign: campaign %.8s is running (wakebench campaign status); one at a "
		      "time: "
		      "wakebench campaign abort ends it",
		      r->c.uuid);
		rc = EXIT_RUNTIME;
		goto out;
	}
	store_campaign_release(&r->c);
	boots = xcalloc(p->nkernels * p->boots + 1, sizeof(*boots));
	for (round = 0; round < p->boots && n < p->max_boots; round++) {
		round_order(p->kernels, p->nkernels, round, p->order, p->seed, boots + n);
		n += p->nkernels;
	}
	if (n > p->max_boots)
		n = p->max_boots;
	json = plan_json(p);
	rc = store_campaign_create(st, boot_backend_name(ck.chosen), json, boots, n, &r->c.id,
				   r->c.uuid);
	free(boots);
	if (rc == 0)
		rc = load(st, true, r, &rt);
	free(json);
	if (rc) {
		rc = EXIT_RUNTIME;
		goto out;
	}
	if (unit_install(w, r->unit, sizeof(r->unit)) ||
	    boot_next(w, &r->c, &rt, st, 0, r->boot[0].kernel, r)) {
		finish(w, st, "failed", r);
		rc = EXIT_RUNTIME;
		goto out;
	}
	reload_boots(st, r);
	rc = EXIT_OK;
out:
	plan_rt_free(&rt);
	campaign_kernels_release(&ck);
	store_close(st);
	return rc;
}

/* The boots left, and the mean time a boot took (between the ends of the boots taken). */
static void eta(struct campaign_result *r)
{
	uint64_t first = 0, last = 0;
	size_t i, taken = 0;

	for (i = 0; i < r->nboots; i++) {
		const struct store_campaign_boot *b = &r->boot[i];

		if (!strcmp(b->state, "planned") || !strcmp(b->state, "booting")) {
			r->left++;
		} else if (strcmp(b->state, "measuring") && b->at_ns) {
			first = taken++ ? first : b->at_ns;
			last = b->at_ns;
		}
	}
	if (taken >= 2 && last > first)
		r->boot_s = (double)(last - first) / 1e9 / (double)(taken - 1);
}

int campaign_status(const struct campaign_where *w, struct campaign_result *r)
{
	struct plan_rt p = { 0 };
	struct store *st = NULL;
	int rc;

	memset(r, 0, sizeof(*r));
	if (access(w->db, F_OK)) {
		snprintf(r->said, sizeof(r->said), "no campaign: no store at '%s'", w->db);
		return EXIT_OK;
	}
	if (open_store(w, STORE_READONLY, &st))
		return EXIT_RUNTIME;
	rc = load(st, false, r, &p);
	if (rc > 0)
		snprintf(r->said, sizeof(r->said), "no campaign in '%s'", w->db);
	else if (rc == 0) {
		judge(st, &p, r->boot, r->nboots, r);
		eta(r);
	}
	plan_rt_free(&p);
	store_close(st);
	return rc < 0 ? EXIT_RUNTIME : EXIT_OK;
}

int campaign_abort(const struct campaign_where *w, struct campaign_result *r)
{
	struct plan_rt p = { 0 };
	struct store *st = NULL;
	int rc;

	memset(r, 0, sizeof(*r));
	if (open_store(w, 0, &st))
		return EXIT_RUNTIME;
	rc = load(st, true, r, &p);
	if (rc > 0)
		snprintf(r->said, sizeof(r->said), "no campaign is running");
	else if (rc == 0) {
		judge(st, &p, r->boot, r->nboots, r);
		finish(w, st, "aborted", r);
		reload_boots(st, r);
	}
	plan_rt_free(&p);
	store_close(st);
	return rc < 0 ? EXIT_RUNTIME : EXIT_OK;
}

void campaign_result_release(struct campaign_result *r)
{
	store_campaign_release(&r->c);
	store_campaign_boots_free(r->boot, r->nboots);
	memset(r, 0, sizeof(*r));
}
