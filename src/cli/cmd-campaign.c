/*
 * cmd-campaign.c: `wakebench campaign kernels [--backend NAME]`: the
 * kernels installed in /boot, the boot loaders that can boot one of them
 * once (rpi tryboot, systemd-boot, GRUB, kexec), what each would run for
 * each kernel, and the backend a campaign would use (doc/campaign.md).
 * Nothing is changed. Exit 77 when no backend (or not the one asked for)
 * can boot a kernel once here.
 */
#include "cli/cli.h"
#include "engine/campaign.h"
#include "util/json.h"
#include "util/text.h"

#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const char usage_line[] = "kernels [--backend NAME] [options]";
static const char description[] =
	"The kernels installed in /boot and how this machine can boot each one once, by a\n"
	"one-shot choice its boot loader forgets after that boot: Raspberry Pi tryboot,\n"
	"systemd-boot (bootctl set-oneshot), GRUB (grub-reboot) or kexec. Nothing is\n"
	"changed. A campaign uses --backend, or the first usable one in that order.";

static const char *const backend_choices[] = {
	"auto", "rpi", "systemd-boot", "grub", "kexec", NULL
};

struct campaign_params {
	int backend; /* 0 auto, else 1 + enum boot_backend */
};

static const struct campaign_params campaign_defaults = { .backend = 0 };

static const struct opt campaign_opts_table[] = {
	{ .type = OPT_CHOICE,
	  .long_name = "backend",
	  .offset = offsetof(struct campaign_params, backend),
	  .argh = "NAME",
	  .help = "how to boot a kernel once (auto: the first usable of rpi, systemd-boot, grub, "
		  "kexec)",
	  .choices = backend_choices },
	OPT_END_ROW,
};

static struct json_object *jstr_or_null(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

static void print_json(const struct campaign_kernels *c)
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
		json_object_object_add(j, "tool", jstr_or_null(l->tool));
		json_object_object_add(j, "config", jstr_or_null(l->config));
		json_object_object_add(j, "why", jstr_or_null(l->why));
		json_object_object_add(j, "note", jstr_or_null(l->note));
		json_object_array_add(ls, j);
	}
	for (i = 0; i < c->n; i++) {
		const struct boot_kernel *k = &c->kernel[i];
		struct json_object *j = json_object_new_object(), *by = json_object_new_object();

		json_object_object_add(j, "release", json_object_new_string(k->release));
		json_object_object_add(j, "image", json_object_new_string(k->image));
		json_object_object_add(j, "initrd", jstr_or_null(k->initrd));
		json_object_object_add(j, "running", json_object_new_boolean(k->running));
		for (b = 0; b < BOOT_NBACKENDS; b++) {
			const struct boot_entry *e = &c->entry[i * BOOT_NBACKENDS + b];
			struct json_object *x = json_object_new_object();

			if (!c->loader[b].usable)
				continue;
			json_object_object_add(x, "ok", json_object_new_boolean(e->ok));
			json_object_object_add(x, "entry", jstr_or_null(e->entry));
			json_object_object_add(x, "command", jstr_or_null(e->command));
			json_object_object_add(x, "why", jstr_or_null(e->why));
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
	json_object_object_add(o, "why", jstr_or_null(c->why));
	json_print(stdout, o);
	json_object_put(o);
}

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

int cmd_campaign(int argc, const char **argv, struct ctx *ctx)
{
	struct campaign_params p = campaign_defaults;
	struct opt_group groups[2];
	struct opts_result res;
	struct campaign_kernels c;
	char why[1024];
	enum boot_backend want = BOOT_NBACKENDS;

	groups[0] = (struct opt_group){ .title = "campaign options",
					.opts = campaign_opts_table,
					.base = &p,
					.defaults = &campaign_defaults };
	groups[1] = cli_common_group_for(ctx, COMMON_FORMAT | COMMON_VERBOSITY,
					 (1u << FMT_TEXT) | (1u << FMT_JSON));
	cli_parse("campaign", usage_line, description, groups, ARRAY_SIZE(groups), argc, argv, 0,
		  &res, ctx);
	cli_require_format("campaign", ctx, 1u << FMT_TEXT | 1u << FMT_JSON);
	if (!res.npos)
		die_usage("campaign: a subcommand is needed: kernels");
	if (strcmp(res.pos[0], "kernels"))
		die_usage("campaign: unknown subcommand '%s', allowed: kernels", res.pos[0]);
	if (res.npos > 1)
		die_usage("campaign: 'kernels' takes no arguments, got '%s'", res.pos[1]);
	opts_result_release(&res);
	if (p.backend > 0)
		want = (enum boot_backend)(p.backend - 1);
	if (campaign_kernels(ctx->root, want, &c, why, sizeof(why))) {
		error("campaign: %s", why);
		return EXIT_RUNTIME;
	}
	if (ctx->format == FMT_JSON)
		print_json(&c);
	else
		print_text(&c);
	if (c.chosen == BOOT_NBACKENDS) {
		error("campaign: %s%s%s", want < BOOT_NBACKENDS ? boot_backend_name(want) : "",
		      want < BOOT_NBACKENDS ? ": " : "", c.why);
		campaign_kernels_release(&c);
		return EXIT_SKIP;
	}
	campaign_kernels_release(&c);
	return EXIT_OK;
}
