/*
 * cmd-campaign.c: `wakebench campaign kernels|start|step|status|abort`
 * (doc/campaign.md). kernels: the kernels installed in /boot, the boot
 * loaders that can boot one of them once (rpi tryboot, systemd-boot, GRUB,
 * kexec), what each would run for each kernel, and the backend a campaign
 * would use; nothing is changed, exit 77 when no backend (or not the one
 * asked for) can boot a kernel once here. start stores the plan and boots
 * the first kernel once; step (the boot-time unit's) measures this boot and
 * boots the next; status and abort. The work is engine/campaign.c's.
 */
#include "cli/cli.h"
#include "engine/campaign.h"
#include "util/json.h"
#include "util/text.h"

#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

static const char usage_line[] = "kernels|start|step|status|abort|report [options] [-- run "
				 "WORKLOAD ... | -- report options]";
static const char description[] =
	"One experiment across installed kernels and boots of this machine, rebooting\n"
	"between them, until compare's boot-level verdict is decided or --max-boots are\n"
	"spent. kernels: what is installed and how each kernel can be booted once (a\n"
	"one-shot choice the boot loader forgets: Raspberry Pi tryboot, systemd-boot,\n"
	"GRUB, kexec); nothing is changed. start --kernel A --kernel B ... -- run ...:\n"
	"store the plan, install the boot-time unit, boot the first kernel once. step:\n"
	"what the unit runs at each boot. status: the boots, the verdict so far, the time\n"
	"left. abort: undoes the one-shot choice and the unit. report [-- OPTIONS]:\n"
	"wakebench report over the campaign's measured boots.";

static const char *const backend_choices[] = {
	"auto", "rpi", "systemd-boot", "grub", "kexec", NULL
};

static const char *const order_choices[] = { "balanced", "random", NULL };
static const char *const on_fail_choices[] = { "continue", "stop", NULL };

struct campaign_params {
	int backend; /* 0 auto, else 1 + enum boot_backend */
	struct strlist kernel;
	uint64_t boots, max_boots, seed, settle_ns;
	int order, on_fail;
	bool no_reboot;
};

static const struct campaign_params campaign_defaults = { .backend = 0,
							  .boots = 3,
							  .settle_ns = 60000000000ULL };

static const struct opt campaign_opts_table[] = {
	{ .type = OPT_CHOICE,
	  .long_name = "backend",
	  .offset = offsetof(struct campaign_params, backend),
	  .argh = "NAME",
	  .help = "how to boot a kernel once (auto: the first usable of rpi, systemd-boot, grub, "
		  "kexec)",
	  .choices = backend_choices },
	{ .type = OPT_STRLIST,
	  .long_name = "kernel",
	  .offset = offsetof(struct campaign_params, kernel),
	  .argh = "RELEASE",
	  .help = "start: a kernel installed in /boot (twice or more; the first is the baseline)" },
	{ .type = OPT_UINT,
	  .long_name = "boots",
	  .offset = offsetof(struct campaign_params, boots),
	  .argh = "N",
	  .help = "start: boots of each kernel before a verdict is looked for",
	  .min = 1,
	  .max = 100 },
	{ .type = OPT_UINT,
	  .long_name = "max-boots",
	  .offset = offsetof(struct campaign_params, max_boots),
	  .argh = "M",
	  .help = "start: boots in all before it stops undecided (0: twice --boots per kernel)",
	  .min = 0,
	  .max = 1000 },
	{ .type = OPT_CHOICE,
	  .long_name = "order",
	  .offset = offsetof(struct campaign_params, order),
	  .argh = "ORDER",
	  .help = "start: each round's kernels rotated (balanced) or shuffled (random, --seed)",
	  .choices = order_choices },
	{ .type = OPT_UINT,
	  .long_name = "seed",
	  .offset = offsetof(struct campaign_params, seed),
	  .argh = "N",
	  .help = "start: the seed of --order random",
	  .min = 0,
	  .max = 4294967295.0 },
	{ .type = OPT_DURATION,
	  .long_name = "settle",
	  .offset = offsetof(struct campaign_params, settle_ns),
	  .argh = "DURATION",
	  .help = "start: time since boot before measuring, and the load below the CPUs (0: no "
		  "wait)",
	  .min = 0,
	  .max = 3600e9 },
	{ .type = OPT_CHOICE,
	  .long_name = "on-fail",
	  .offset = offsetof(struct campaign_params, on_fail),
	  .argh = "WHAT",
	  .help = "start: after a boot that failed (the wrong kernel came up, the run stored "
		  "nothing), go on with the plan or stop the campaign",
	  .choices = on_fail_choices },
	{ .type = OPT_FLAG,
	  .long_name = "no-reboot",
	  .offset = offsetof(struct campaign_params, no_reboot),
	  .help = "start: choose each next kernel once, but leave the reboot to you" },
	OPT_END_ROW,
};

static void print_text(const struct campaign_kernels *c)
{
	size_t i;
	unsigned b;

	text_line(stdout, "boot loaders (how a kernel is booted once):");
	for (b = 0; b < BOOT_NBACKENDS; b++) {
		const struct boot_loader *l = &c->loader[b];

		if (l->usable)
			text_line(stdout, "  %-13s usable: %s, %s; %s", boot_backend_name(b),
				  l->tool, l->config, l->note);
		else
			text_line(stdout, "  %-13s no: %s", boot_backend_name(b), l->why);
	}
	text_line(stdout, "kernels in /boot: %zu", c->n);
	for (i = 0; i < c->n; i++) {
		const struct boot_kernel *k = &c->kernel[i];

		text_line(stdout, "  %s%s: %s%s%s", k->release, k->running ? " (running)" : "",
			  k->image, k->initrd[0] ? ", " : ", no initramfs", k->initrd);
		for (b = 0; b < BOOT_NBACKENDS; b++) {
			const struct boot_entry *e = &c->entry[i * BOOT_NBACKENDS + b];

			if (!c->loader[b].usable)
				continue;
			if (e->ok)
				text_line(stdout, "    %-13s %s", boot_backend_name(b), e->command);
			else
				text_line(stdout, "    %-13s cannot: %s", boot_backend_name(b),
					  e->why);
		}
	}
	if (c->chosen < BOOT_NBACKENDS)
		text_line(stdout, "a campaign would boot with: %s", boot_backend_name(c->chosen));
	else
		text_line(stdout, "a campaign cannot run here: %s", c->why);
}

static void print_boots(const struct campaign_result *r)
{
	size_t i;

	for (i = 0; i < r->nboots; i++) {
		const struct store_campaign_boot *b = &r->boot[i];

		text_line(stdout, "  boot %-3u %-24s %-12s%s%.8s%s%s", b->idx + 1, b->kernel,
			  b->state, b->experiment_uuid ? " experiment " : "",
			  b->experiment_uuid ? b->experiment_uuid : "", b->reason ? "  " : "",
			  b->reason ? b->reason : "");
	}
}

static void print_result(const char *sub, const struct campaign_result *r)
{
	if (r->said[0])
		text_line(stdout, "%s", r->said);
	if (!r->c.uuid[0])
		return;
	text_line(stdout, "campaign %.8s: %s, backend %s", r->c.uuid, r->c.state, r->c.backend);
	if (r->unit[0])
		text_line(stdout, "%s", r->unit);
	if (strcmp(sub, "start"))
		print_boots(r);
	if (r->verdict[0]) {
		const char *v = r->verdict;

		text_line(stdout, "%s:",
			  r->action == CAMPAIGN_ENDED || strcmp(r->c.state, "running")
				  ? "verdict"
				  : "verdict so far");
		while (*v) {
			size_t n = strcspn(v, "\n");

			text_line(stdout, "  %.*s", (int)n, v);
			v += n + (v[n] == '\n');
		}
	}
	if (!strcmp(sub, "status") && !strcmp(r->c.state, "running"))
		text_line(stdout, "%u boots left%s", r->left,
			  r->boot_s > 0 ? "" : "; the time left is known after two boots");
	if (!strcmp(sub, "status") && !strcmp(r->c.state, "running") && r->boot_s > 0)
		text_line(stdout, "about %.0f minutes left (%.1f minutes a boot so far)",
			  r->left * r->boot_s / 60, r->boot_s / 60);
	switch (r->action) {
	case CAMPAIGN_REBOOTING:
		text_line(stdout, "rebooting into %s (once)", r->next_kernel);
		break;
	case CAMPAIGN_REBOOT_BY_HAND:
		text_line(stdout, "next: %s is chosen for the next boot, once: reboot now",
			  r->next_kernel);
		break;
	case CAMPAIGN_ENDED:
		text_line(stdout,
			  "ended: %s; the boot loader's one-shot choice and the unit are undone; "
			  "wakebench compare --by kernel shows the experiments",
			  r->c.state);
		break;
	case CAMPAIGN_NONE:
		break;
	}
}

static int start(const struct campaign_params *p, const struct opts_result *res,
		 const struct campaign_where *w, struct campaign_result *r)
{
	struct campaign_plan plan = { 0 };
	size_t i, j;

	if (res->dashdash < 0 || (size_t)res->dashdash >= res->npos ||
	    strcmp(res->pos[res->dashdash], "run"))
		die_usage("campaign: start needs the experiment after '--': -- run WORKLOAD "
			  "[options]");
	if (p->kernel.n < 2)
		die_usage("campaign: option '--kernel': %zu given, start needs two kernels or more",
			  p->kernel.n);
	for (i = 0; i < p->kernel.n; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(p->kernel.v[i], p->kernel.v[j]))
				die_usage("campaign: option '--kernel': '%s' is given twice",
					  p->kernel.v[i]);
	plan.kernels = p->kernel.v;
	plan.nkernels = p->kernel.n;
	plan.boots = (unsigned)p->boots;
	plan.max_boots =
		p->max_boots ? (unsigned)p->max_boots : (unsigned)(2 * p->boots * p->kernel.n);
	if (plan.max_boots < p->boots * p->kernel.n)
		die_usage(
			"campaign: option '--max-boots': '%u', allowed at least --boots x kernels "
			"(%u)",
			plan.max_boots, (unsigned)(p->boots * p->kernel.n));
	plan.order = p->order ? CAMPAIGN_RANDOM : CAMPAIGN_BALANCED;
	plan.seed = p->seed;
	plan.settle_ns = p->settle_ns;
	plan.reboot = !p->no_reboot;
	plan.stop_on_fail = p->on_fail == 1;
	plan.backend = p->backend > 0 ? (enum boot_backend)(p->backend - 1) : BOOT_NBACKENDS;
	plan.run = res->pos + res->dashdash;
	plan.nrun = res->npos - (size_t)res->dashdash;
	return campaign_start(w, &plan, r);
}

/* report: `wakebench report` over the campaign's measured boots, with the options after --. */
static int report(const struct opts_result *res, const struct campaign_where *w,
		  const struct campaign_result *r)
{
	size_t extra = res->dashdash >= 0 ? res->npos - (size_t)res->dashdash : 0;
	const char **av = xcalloc(r->nboots + extra + 5, sizeof(*av));
	char *const *cav;
	size_t i, n = 0;

	av[n++] = w->self;
	av[n++] = "report";
	for (i = 0; i < r->nboots; i++)
		if (!strcmp(r->boot[i].state, "measured") && r->boot[i].experiment_uuid)
			av[n++] = r->boot[i].experiment_uuid;
	if (n == 2) {
		free(av);
		error("campaign: report: no boot of campaign %.8s is measured yet", r->c.uuid);
		return EXIT_RUNTIME;
	}
	av[n++] = "--db";
	av[n++] = w->db;
	for (i = 0; i < extra; i++)
		av[n++] = res->pos[(size_t)res->dashdash + i];
	fflush(stdout);
	memcpy(&cav, &av, sizeof(cav)); /* execv's historical prototype */
	execv(w->self, cav);
	error("campaign: report: cannot run '%s': %s", w->self, strerror(errno));
	free(av);
	return EXIT_RUNTIME;
}

int cmd_campaign(int argc, const char **argv, struct ctx *ctx)
{
	struct campaign_params p = campaign_defaults;
	struct opt_group groups[2];
	struct opts_result res;
	struct campaign_kernels c;
	struct campaign_result r;
	struct campaign_where w;
	char why[1024], self[4096], db[4096];
	enum boot_backend want = BOOT_NBACKENDS;
	const char *sub;
	ssize_t n;
	int rc;

	groups[0] = (struct opt_group){ .title = "campaign options",
					.opts = campaign_opts_table,
					.base = &p,
					.defaults = &campaign_defaults };
	groups[1] = cli_common_group_for(ctx, COMMON_DB | COMMON_FORMAT | COMMON_VERBOSITY,
					 (1u << FMT_TEXT) | (1u << FMT_JSON));
	cli_parse("campaign", usage_line, description, groups, ARRAY_SIZE(groups), argc, argv, 0,
		  &res, ctx);
	sub = res.npos && res.dashdash != 0 ? res.pos[0] : "";
	if (strcmp(sub, "kernels") && strcmp(sub, "start") && strcmp(sub, "step") &&
	    strcmp(sub, "status") && strcmp(sub, "abort") && strcmp(sub, "report"))
		die_usage(
			"campaign: subcommand '%s', allowed: kernels, start, step, status, abort, "
			"report",
			sub);
	if (strcmp(sub, "start") && strcmp(sub, "report") && res.npos > 1)
		die_usage("campaign: '%s' takes no arguments, got '%s'", sub, res.pos[1]);
	if (strcmp(sub, "kernels"))
		cli_require_format("campaign", ctx, 1u << FMT_TEXT);
	else
		cli_require_format("campaign", ctx, 1u << FMT_TEXT | 1u << FMT_JSON);
	if (p.backend > 0)
		want = (enum boot_backend)(p.backend - 1);
	if (!strcmp(sub, "kernels")) {
		opts_result_release(&res);
		opts_release(groups, 1);
		if (campaign_kernels(ctx->root, want, &c, why, sizeof(why))) {
			error("campaign: %s", why);
			return EXIT_RUNTIME;
		}
		if (ctx->format == FMT_JSON) {
			json_object *o = campaign_kernels_json(&c);

			json_print(stdout, o);
			json_object_put(o);
		} else
			print_text(&c);
		rc = c.chosen == BOOT_NBACKENDS ? EXIT_SKIP : EXIT_OK;
		if (rc)
			error("campaign: %s%s%s",
			      want < BOOT_NBACKENDS ? boot_backend_name(want) : "",
			      want < BOOT_NBACKENDS ? ": " : "", c.why);
		campaign_kernels_release(&c);
		return rc;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	snprintf(db, sizeof(db), "%s", cli_db_for_open(ctx, !strcmp(sub, "start")));
	if (db[0] != '/') {
		char cwd[2048];

		if (getcwd(cwd, sizeof(cwd)))
			snprintf(db, sizeof(db), "%s/%s", cwd, cli_db_for_open(ctx, false));
	}
	w = (struct campaign_where){
		.root = ctx->root, .db = db, .self = self, .state_dir = ctx->state_dir
	};
	if (!strcmp(sub, "start"))
		rc = start(&p, &res, &w, &r);
	else if (!strcmp(sub, "step"))
		rc = campaign_step(&w, &r);
	else if (!strcmp(sub, "status") || !strcmp(sub, "report"))
		rc = campaign_status(&w, &r);
	else
		rc = campaign_abort(&w, &r);
	if (rc == EXIT_OK && !strcmp(sub, "report") && r.c.uuid[0])
		rc = report(&res, &w, &r);
	else if (rc == EXIT_OK)
		print_result(sub, &r);
	campaign_result_release(&r);
	opts_result_release(&res);
	opts_release(groups, 1);
	return rc;
}
