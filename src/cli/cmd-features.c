/*
 * cmd-features.c: `wakebench features [show | set NAME... | restore]`.
 *
 * show prints the kernel's own line (the form to paste into a bug report);
 * set changes features on purpose and persistently (the journal protects
 * only the window of the write itself) and prints how to undo it; restore
 * puts back what a crashed wakebench left changed. Like every command that
 * reads or writes features, show and set first recover a journal whose
 * owner is gone (cli_kernel_prepare(), the one way in); restore is that
 * recovery on demand, and says what it found.
 *
 * Under kernel lockdown the file cannot even be read: show decodes the
 * state read-only from sched/debug and the kernel's BTF, prints it, notes
 * on stderr that it is a read-only view and that nothing can be changed on
 * this kernel, and exits 0: what was asked, the state, was given. Exit 77
 * is kept for what cannot be done here: set (and ab) under lockdown or
 * without root, and show when not even the read-only view can be read.
 */
#include "cli/cli.h"
#include "util/json.h"
#include "util/suggest.h"
#include "runner/runner.h"
#include "sys/features.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

static const char usage_line[] = "[show | set [NO_]NAME... | restore] [options]";
static const char description[] =
	"Read the scheduler features in <debugfs>/sched/features; set one or more on\n"
	"purpose (persistently, with a one-token-per-write read-back); restore what a\n"
	"crashed wakebench left changed. Under kernel lockdown, show decodes the\n"
	"state read-only from sched/debug and the kernel's BTF (exit 0, with a note);\n"
	"set exits 77 there, as it does without root.";

static const char *source_name(enum features_source s)
{
	switch (s) {
	case FEATURES_SRC_FILE:
		return "sched/features";
	case FEATURES_SRC_DEBUG_BTF:
		return "sched/debug+btf";
	case FEATURES_SRC_NONE:
		break;
	}
	return "none";
}

static void print_json(const struct features *f, const char *debugfs, const char *why)
{
	struct json_object *o = json_object_new_object(), *arr = json_object_new_array();
	char line[FEATURES_LINE_MAX];
	size_t i;

	features_format(f, line, sizeof(line));
	rtrim(line);
	json_object_object_add(o, "debugfs", json_object_new_string(debugfs));
	json_object_object_add(o, "source", json_object_new_string(source_name(f->source)));
	json_object_object_add(o, "writable",
			       json_object_new_boolean(f->source == FEATURES_SRC_FILE));
	if (why)
		json_object_object_add(o, "why", json_object_new_string(why));
	json_object_object_add(o, "line", json_object_new_string(line));
	for (i = 0; i < f->n; i++) {
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "name", json_object_new_string(f->name[i]));
		json_object_object_add(e, "on", json_object_new_boolean(f->on[i]));
		json_object_array_add(arr, e);
	}
	json_object_object_add(o, "features", arr);
	json_print(stdout, o);
	json_object_put(o);
}

static int features_show(const struct ctx *ctx)
{
	struct features f;
	char why[2048], btf[PATH_MAX], line[FEATURES_LINE_MAX];

	cli_btf_path(ctx, btf, sizeof(btf));
	if (features_read_any(ctx->debugfs, btf[0] ? btf : NULL, &f, why, sizeof(why)))
		return cli_features_unusable(ctx, "features", "read", f.fail, why, NULL);
	if (ctx->format == FMT_JSON) {
		print_json(&f, ctx->debugfs, f.source == FEATURES_SRC_FILE ? NULL : why);
	} else {
		features_format(&f, line, sizeof(line));
		fputs(line, stdout);
	}
	if (f.source != FEATURES_SRC_FILE)
		info("features: read-only view: %s; the state above was decoded from "
		     "'%s/sched/debug' (.sysctl_sched_features) with the names in the kernel's "
		     "BTF; %s",
		     why, ctx->debugfs,
		     f.fail == FEATURES_LOCKDOWN
			     ? "nothing can be changed on this kernel ('features set', 'ab'), but "
			       "ab "
			       "runs in a VM: wakebench vm --kernel IMAGE -- ab ... (doc/vm.md)"
			     : "'features set' and 'ab' need root");
	return EXIT_OK;
}

/* The command that undoes a set, quoted for a shell whatever --debugfs holds. */
static void print_undo(const struct ctx *ctx, const struct features_session *s)
{
	const char **w = xcalloc(s->original.n + 5, sizeof(*w));
	char **tok = xcalloc(s->original.n + 1, sizeof(*tok));
	size_t i, n = 0, k = 0;
	char *cmd;

	w[n++] = "wakebench";
	w[n++] = "features";
	w[n++] = "set";
	for (i = 0; i < s->original.n; i++)
		if (s->original.on[i] != s->live.on[i])
			w[n++] = tok[k++] = xasprintf("%s%s", s->original.on[i] ? "" : "NO_",
						      s->original.name[i]);
	if (strcmp(ctx->debugfs, "/sys/kernel/debug")) {
		w[n++] = "--debugfs";
		w[n++] = ctx->debugfs;
	}
	cmd = sh_command(w, n);
	printf("this change persists until reboot; undo with: %s\n", cmd);
	free(cmd);
	while (k)
		free(tok[--k]);
	free(tok);
	free(w);
}

static int features_set(const struct ctx *ctx, const char **tokens, size_t n)
{
	struct features_session s;
	struct features live;
	char why[4096];
	bool seen[FEATURES_MAX] = { false };
	size_t i, changed = 0;

	if (features_read(ctx->debugfs, &live, why, sizeof(why)))
		return cli_features_unusable(ctx, "features set", "write", live.fail, why, NULL);
	for (i = 0; i < n; i++) {
		size_t idx;
		bool on;

		if (features_token(&live, tokens[i], &idx, &on, why, sizeof(why)))
			die_usage("features: %s", why);
		if (seen[idx])
			die_usage("features: feature '%s' is given twice", live.name[idx]);
		seen[idx] = true;
		(void)on;
	}
	/* Ctrl-C must not cut the journal-write-verify sequence short. */
	runner_signals_install();
	if (features_session_begin(&s, ctx->debugfs, ctx->state_dir, why, sizeof(why)))
		return cli_features_unusable(ctx, "features set", "write", s.fail, why, NULL);
	if (features_session_apply(&s, tokens, n, why, sizeof(why))) {
		char why2[2048];

		error("%s", why);
		if (features_session_restore(&s, why2, sizeof(why2)))
			error("%s", why2);
		return features_fail_exit(s.fail);
	}
	if (features_session_keep(&s, why, sizeof(why))) {
		error("%s", why);
		return EXIT_RUNTIME;
	}
	for (i = 0; i < s.original.n; i++) {
		if (s.original.on[i] == s.live.on[i])
			continue;
		printf("%s: %s -> %s\n", s.original.name[i], s.original.on[i] ? "on" : "off",
		       s.live.on[i] ? "on" : "off");
		changed++;
	}
	if (!changed) {
		printf("nothing changed: already as requested\n");
		return EXIT_OK;
	}
	print_undo(ctx, &s);
	return EXIT_OK;
}

static int features_restore_cmd(const struct ctx *ctx)
{
	struct features_journal j;
	enum features_fail fail = FEATURES_OK;
	char path[PATH_MAX], why[2048];
	pid_t owner = 0;
	int rc;

	features_journal_path(ctx->state_dir, path, sizeof(path));
	rc = features_journal_read(path, &j, why, sizeof(why));
	if (rc == 1) {
		text_line(stdout, "nothing to restore: no features journal in '%s'",
			  ctx->state_dir);
		return EXIT_OK;
	}
	rc = features_recover(ctx->state_dir, &owner, &fail, why, sizeof(why));
	if (rc < 0) {
		error("%s", why);
		return features_fail_exit(fail);
	}
	if (rc == 1) {
		error("wakebench pid %d is running and owns '%s'; it restores the features when "
		      "it ends (stop it with: kill -TERM %d)",
		      (int)owner, path, (int)owner);
		return EXIT_RUNTIME;
	}
	text_line(stdout, "restored: no features journal is left in '%s'", ctx->state_dir);
	return EXIT_OK;
}

int cmd_features(int argc, const char **argv, struct ctx *ctx)
{
	struct opt_group groups[1];
	struct opts_result res;
	const char *sub;
	unsigned need;
	int rc;

	groups[0] = cli_common_group_for(ctx, COMMON_FORMAT | COMMON_DEBUGFS | COMMON_VERBOSITY,
					 (1u << FMT_TEXT) | (1u << FMT_JSON));
	cli_parse("features", usage_line, description, groups, ARRAY_SIZE(groups), argc, argv, 0,
		  &res, ctx);
	cli_require_format("features", ctx, 1u << FMT_TEXT | 1u << FMT_JSON);
	sub = res.npos ? res.pos[0] : "show";
	if (!strcmp(sub, "show")) {
		if (res.npos > 1)
			die_usage("features: 'show' takes no arguments, got '%s'", res.pos[1]);
		need = 0;
	} else if (!strcmp(sub, "set")) {
		if (res.npos < 2)
			die_usage("features: 'set' needs a feature name (NAME or NO_NAME)");
		need = CLI_CHANGES_FEATURES;
	} else if (!strcmp(sub, "restore")) {
		if (res.npos > 1)
			die_usage("features: 'restore' takes no arguments, got '%s'", res.pos[1]);
		need = CLI_RECOVERS_FEATURES;
	} else {
		char hint[SUGGEST_HINT_MAX];

		die_usage(
			"features: unknown subcommand '%s', allowed show|set|restore%s", sub,
			suggest_hint_alternatives(sub, "show|set|restore", "", hint, sizeof(hint)));
	}
	/* the way in restores what a dead wakebench left changed (not for restore: that is it) */
	rc = cli_kernel_prepare(ctx, "features", CLI_NEED_DEBUGFS | need);
	if (rc)
		goto out;
	if (!strcmp(sub, "show"))
		rc = features_show(ctx);
	else if (!strcmp(sub, "set"))
		rc = features_set(ctx, res.pos + 1, res.npos - 1);
	else
		rc = features_restore_cmd(ctx);
out:
	opts_result_release(&res);
	opts_release(groups, ARRAY_SIZE(groups));
	return rc;
}
