/*
 * main.c: the command table, the context every command gets, exit status,
 * and the final check that stdout was written without error (a full disk
 * or a closed pipe must not look like success).
 *
 * Adding a command: one file src/cli/cmd-<verb>.c with
 * int cmd_<verb>(int argc, const char **argv, struct ctx *ctx), its
 * prototype in cli/cli.h and one row here, whose flags say what it sets
 * up: CMD_READS_STORE or CMD_WRITES_STORE (cli_store() opens the store,
 * main closes it), CMD_TOUCHES_KERNEL (it may write the scheduler features).
 */
#include "cli/cli.h"
#include "store/store.h"
#include "util/suggest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct command {
	const char *name;
	int (*fn)(int argc, const char **argv, struct ctx *ctx);
	unsigned flags; /* CMD_*: what it sets up */
	const char *summary;
};

static const struct command commands[] = {
	{ "run", cmd_run, 0, "run samples of one config, print them and a summary, store them" },
	{ "ab", cmd_ab, CMD_TOUCHES_KERNEL,
	  "interleave a scheduler feature on and off, restore it, give a paired verdict" },
	{ "compare", cmd_compare, CMD_READS_STORE,
	  "stored results grouped by kernel, label, feature, host or profile" },
	{ "env", cmd_env, CMD_READS_STORE,
	  "print the environment fingerprint, or what differs between two experiments" },
	{ "features", cmd_features, CMD_TOUCHES_KERNEL,
	  "read the scheduler features; set one safely; undo" },
	{ "list", cmd_list, 0, "workloads, profiles, their parameters and defaults" },
	{ "log", cmd_log, CMD_READS_STORE,
	  "the stored experiments, newest first: one line each with its result" },
	{ "show", cmd_show, CMD_READS_STORE,
	  "one stored experiment in full (default: the newest)" },
	{ "export", cmd_export, CMD_READS_STORE, "stored data as JSON or CSV for other tools" },
	{ "import", cmd_import, CMD_WRITES_STORE,
	  "merge another store (another machine's) by experiment UUID" },
	{ "report", cmd_report, CMD_READS_STORE,
	  "one shareable file: plots, verdicts, evidence, environment, raw data" },
	{ "vm", cmd_vm, 0, "boot kernels with qemu, run a subcommand inside, import the results" },
	{ "bisect", cmd_bisect, CMD_READS_STORE,
	  "find the kernel that changed a metric: a step for git bisect run, or a list of images" },
	{ "reproduce", cmd_reproduce, CMD_WRITES_STORE,
	  "run what someone posted, here, with the matching profile; say if it reproduced" },
	{ "campaign", cmd_campaign, 0,
	  "one experiment across installed kernels and boots, rebooting for you, to a verdict" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: wakebench COMMAND [options]\n\ncommands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'wakebench COMMAND -h' lists the options of a command.\n");
}

static void unknown_command(const char *name)
{
	char hint[SUGGEST_HINT_MAX], allowed[512] = "";
	struct suggest s;
	size_t i;

	suggest_init(&s, name);
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		snprintf(allowed + strlen(allowed), sizeof(allowed) - strlen(allowed), "%s%s",
			 i ? "|" : "", commands[i].name);
		suggest_add(&s, commands[i].name);
	}
	/* error(), so that a control character in the name prints as an escape */
	error("unknown command '%s', allowed %s%s", name, allowed,
	      suggest_hint(&s, "", hint, sizeof(hint)));
}

static int finish(int status)
{
	/* Results that did not reach stdout are a failure, whatever the command said. */
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE)
			fprintf(stderr, "wakebench: error: cannot write to standard output: %s\n",
				strerror(errno));
		return status ? status : EXIT_RUNTIME;
	}
	return status;
}

/*
 * `wakebench __complete WORD...` (contrib/completion/wakebench.bash): the
 * words after "wakebench", the last the one being completed. Command names
 * here; a command's candidates from its own option table (cli/complete.c),
 * by running it with the words before the last, with stderr silenced (a
 * half-typed line may not parse).
 */
static int complete(int n, const char **words, struct ctx *ctx)
{
	size_t i;
	int k;

	if (n < 1)
		return EXIT_OK;
	/* after "--": vm's SUBCOMMAND is a command line of its own, bisect's WORKLOAD ARGS run's */
	for (k = 1; k < n - 1; k++)
		if (!strcmp(words[k], "--")) {
			if (!strcmp(words[0], "vm"))
				return complete(n - k - 1, words + k + 1, ctx);
			if (!strcmp(words[0], "bisect")) {
				words[k] = "run";
				return complete(n - k, words + k, ctx);
			}
			break;
		}
	if (n == 1) {
		for (i = 0; i < ARRAY_SIZE(commands); i++)
			printf("%s\n", commands[i].name);
		return finish(EXIT_OK);
	}
	if (!freopen("/dev/null", "w", stderr))
		return EXIT_RUNTIME;
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(words[0], commands[i].name)) {
			cli_complete_begin(words[n - 1], n > 2 ? words[n - 2] : NULL);
			ctx->cmd_flags = commands[i].flags;
			/* cli_parse() prints the candidates and exits */
			commands[i].fn(n - 2, words + 1, ctx);
			return finish(EXIT_OK);
		}
	return EXIT_OK;
}

int main(int argc, const char **argv)
{
	struct ctx ctx = { 0 };
	const char *env;
	size_t i;

	ctx.argc = argc;
	ctx.argv = argv;
	ctx.debugfs = cli_default_debugfs;
	env = getenv("WAKEBENCH_ROOT");
	ctx.root = env && *env ? env : "/";
	env = getenv("WAKEBENCH_STATE_DIR");
	ctx.state_dir = env && *env ? env : "/run/wakebench";

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return finish(EXIT_OK);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("wakebench %s\n", WAKEBENCH_VERSION);
		return finish(EXIT_OK);
	}
	if (!strcmp(argv[1], "__complete"))
		return complete(argc - 2, argv + 2, &ctx);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name)) {
			int status;

			ctx.cmd_flags = commands[i].flags;
			status = commands[i].fn(argc - 2, argv + 2, &ctx);
			if (ctx.store)
				store_close(ctx.store);
			return finish(status);
		}
	unknown_command(argv[1]);
	return EXIT_USAGE;
}
