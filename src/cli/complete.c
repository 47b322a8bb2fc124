/*
 * complete.c: shell completion answered by the binary itself, from the
 * option tables that parse the command line and print -h, so that it
 * cannot drift from them.
 *
 * `wakebench __complete WORD...` gets the words of the command line after
 * "wakebench", the last one the word being completed (possibly empty), and
 * prints the candidates, one per line; the shell filters them by prefix
 * (contrib/completion/wakebench.bash). "__files" or "__dirs" alone asks the
 * shell for its own file or directory completion.
 *
 * The command names come from main.c's table. For a command, main runs it
 * with the words before the one being completed; its cli_parse() (or, for
 * reproduce, its first pass) calls cli_complete() with the very groups it
 * would parse and print in -h, which prints the candidates and exits before
 * anything is parsed, opened or run:
 *  - after an option that takes a value, or in "--name=", that option's
 *    values: its choices; profile names for --profile, metric names for
 *    --metric, the running kernel's scheduler features (NAME and NO_NAME,
 *    where sched/features or sched/debug is readable) for --feature; the
 *    shell's file or directory completion for FILE, PATH, DIR and IMAGE;
 *  - a word that starts with '-': every option of the command (-h listed);
 *  - otherwise the command's positional arguments: workloads for run and
 *    ab, the subcommands and then features for features, step for bisect,
 *    files for import and reproduce.
 */
#include "cli/cli.h"
#include "cli/experiment.h"
#include "core/metrics.h"
#include "sys/features.h"
#include "workloads/workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
	bool on;
	const char *cur;  /* the word being completed */
	const char *prev; /* the word before it, NULL when it follows the command */
} comp;

void cli_complete_begin(const char *cur, const char *prev)
{
	comp.on = true;
	comp.cur = cur;
	comp.prev = prev;
}

bool cli_completing(void)
{
	return comp.on;
}

static void cand(const char *prefix, const char *word)
{
	printf("%s%s\n", prefix, word);
}

/* The running kernel's scheduler features, each as NAME and NO_NAME. */
static void feature_tokens(const struct ctx *ctx, const char *prefix)
{
	struct features f;
	char why[256], tok[FEATURE_NAME_MAX + 3];
	size_t i;

	if (features_read_any(ctx->debugfs, NULL, &f, why, sizeof(why)))
		return;
	for (i = 0; i < f.n; i++) {
		cand(prefix, f.name[i]);
		snprintf(tok, sizeof(tok), "NO_%s", f.name[i]);
		cand(prefix, tok);
	}
}

static void workload_names(const char *prefix)
{
	size_t i;

	for (i = 0; workloads[i]; i++)
		cand(prefix, workloads[i]->name);
}

static void profile_names(const char *prefix)
{
	size_t i;
	const struct profile *p;

	for (i = 0; workloads[i]; i++)
		for (p = workloads[i]->profiles; p && p->name; p++)
			cand(prefix, p->name);
}

static void metric_names(const char *prefix)
{
	const struct metric_def *m;
	size_t i;

	for (i = 0; (m = metric_def_at(i)); i++)
		cand(prefix, m->name);
}

/* What a value of option o may be; prefix is "--name=" when completing in that form. */
static void option_values(const struct ctx *ctx, const struct opt *o, const char *prefix)
{
	const char *a = o->argh ? o->argh : "", *name = o->long_name ? o->long_name : "";
	size_t i;

	if (o->type == OPT_CHOICE) {
		for (i = 0; o->choices[i]; i++)
			cand(prefix, o->choices[i]);
	} else if (!strcmp(name, "profile")) {
		profile_names(prefix);
	} else if (!strcmp(name, "metric")) {
		metric_names(prefix);
	} else if (!strcmp(name, "feature")) {
		feature_tokens(ctx, prefix);
	} else if (!*prefix && !strcmp(a, "DIR")) {
		cand("", "__dirs");
	} else if (!*prefix && (!strcmp(a, "FILE") || !strcmp(a, "PATH") || !strcmp(a, "IMAGE"))) {
		cand("", "__files");
	}
}

/* The option a word names ("--name", "--name=VALUE", "-x"), in any group; NULL if none. */
static const struct opt *find_opt(const struct opt_group *groups, size_t ngroups, const char *word)
{
	const struct opt *o = NULL;
	size_t g;

	for (g = 0; g < ngroups && !o; g++)
		o = opts_find_arg(groups[g].opts, word);
	return o;
}

/* Positional arguments among words (those that are not options or their values). */
static size_t positionals(const struct opt_group *groups, size_t ngroups, int argc,
			  const char **argv, const char **first)
{
	size_t n = 0;
	int i;

	*first = NULL;
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (argv[i][0] != '-' || !argv[i][1]) {
			if (!n++)
				*first = argv[i];
			continue;
		}
		if (opts_arg_takes_next(find_opt(groups, ngroups, argv[i]), argv[i]))
			i++;
	}
	return n;
}

static void positional_values(const struct ctx *ctx, const char *cmd,
			      const struct opt_group *groups, size_t ngroups, int argc,
			      const char **argv)
{
	const char *first;
	size_t n = positionals(groups, ngroups, argc, argv, &first);

	if (!strcmp(cmd, "run") || !strcmp(cmd, "ab")) {
		if (!n)
			workload_names("");
	} else if (!strcmp(cmd, "features")) {
		if (!n) {
			cand("", "show");
			cand("", "set");
			cand("", "restore");
		} else if (!strcmp(first, "set")) {
			feature_tokens(ctx, "");
		}
	} else if (!strcmp(cmd, "bisect")) {
		if (!n)
			cand("", "step");
	} else if (!strcmp(cmd, "campaign")) {
		if (!n) {
			cand("", "kernels");
			cand("", "start");
			cand("", "step");
			cand("", "status");
			cand("", "abort");
			cand("", "report");
		}
	} else if (!strcmp(cmd, "import") || !strcmp(cmd, "reproduce")) {
		cand("", "__files");
	}
}

/* A --debugfs given among the words, else the context's (the default). */
static void debugfs_given(int argc, const char **argv, struct ctx *ctx)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return;
		if (!strcmp(argv[i], "--debugfs") && i + 1 < argc)
			ctx->debugfs = argv[i + 1];
		else if (!strncmp(argv[i], "--debugfs=", 10))
			ctx->debugfs = argv[i] + 10;
	}
}

void cli_complete(const char *cmd, const struct opt_group *groups, size_t ngroups, int argc,
		  const char **argv, const struct ctx *given)
{
	const char *cur = comp.cur, *eq = strchr(cur, '=');
	struct ctx c = *given, *ctx = &c;
	const struct opt *o;
	size_t g;

	debugfs_given(argc, argv, ctx);

	if (cur[0] == '-' && cur[1] == '-' && eq) {
		char prefix[128];

		o = find_opt(groups, ngroups, cur);
		if (o && o->type != OPT_FLAG && (size_t)(eq - cur) + 2 < sizeof(prefix)) {
			snprintf(prefix, sizeof(prefix), "%.*s", (int)(eq - cur) + 1, cur);
			option_values(ctx, o, prefix);
		}
	} else if (comp.prev && (o = find_opt(groups, ngroups, comp.prev)) &&
		   opts_arg_takes_next(o, comp.prev)) {
		option_values(ctx, o, "");
	} else if (cur[0] == '-') {
		for (g = 0; g < ngroups; g++)
			for (o = groups[g].opts; o->type != OPT_END; o++)
				if (o->long_name && !(o->flags & OPT_HIDDEN))
					printf("--%s\n", o->long_name);
		cand("", "--help");
	} else {
		positional_values(ctx, cmd, groups, ngroups, argc, argv);
	}
	fflush(stdout);
	exit(ferror(stdout) ? EXIT_RUNTIME : EXIT_OK);
}

void cli_complete_run_options(const char *cmd, const struct opt_group *common, int argc,
			      const char **argv, const struct ctx *ctx)
{
	struct experiment_opts eo;
	struct opt_group g[4] = { *common,
				  { .opts = runner_opts },
				  { .opts = probe_opts },
				  experiment_opts_group(&eo, NULL) };

	cli_complete(cmd, g, ARRAY_SIZE(g), argc, argv, ctx);
}
