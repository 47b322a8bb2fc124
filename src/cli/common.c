/*
 * common.c: what every subcommand shares: the common options table, the
 * parse-or-exit wrapper that turns bad input into one line and exit 2, the
 * store path rule, and the provenance command line.
 */
#include "cli/cli.h"
#include "store/store.h"
#include "runner/runner.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const format_names[] = { "text",  "json", "metrics-brief", "csv",
				     "kcidb", "lava", "lava-cases",    NULL };

static const struct opt common_opts[] = {
	{ .type = OPT_STRING,
	  .long_name = "db",
	  .offset = offsetof(struct ctx, db_path),
	  .argh = "PATH",
	  .help = "results store (also WAKEBENCH_DB; default "
		  "~/.local/share/wakebench/results.db)" },
	{ .type = OPT_FLAG,
	  .long_name = "no-store",
	  .offset = offsetof(struct ctx, no_store),
	  .help = "do not store results" },
	{ .type = OPT_CHOICE,
	  .long_name = "format",
	  .offset = offsetof(struct ctx, format),
	  .argh = "FORMAT",
	  .help = "output format",
	  .choices = format_names },
	{ .type = OPT_STRING,
	  .long_name = "debugfs",
	  .offset = offsetof(struct ctx, debugfs),
	  .argh = "DIR",
	  .help = "where debugfs is mounted, an existing directory (default /sys/kernel/debug)" },
	{ .type = OPT_FLAG,
	  .long_name = "quiet",
	  .short_name = 'q',
	  .offset = offsetof(struct ctx, quiet),
	  .help = "only results and errors" },
	{ .type = OPT_FLAG,
	  .long_name = "verbose",
	  .short_name = 'v',
	  .offset = offsetof(struct ctx, verbose),
	  .help = "say more on stderr" },
	OPT_END_ROW,
};

/* COMMON_* bit of each row of common_opts. */
static const unsigned common_bits[] = { COMMON_DB,	COMMON_NO_STORE,  COMMON_FORMAT,
					COMMON_DEBUGFS, COMMON_VERBOSITY, COMMON_VERBOSITY };

struct opt_group cli_common_group_for(struct ctx *ctx, unsigned which, unsigned formats)
{
	static struct opt table[ARRAY_SIZE(common_opts)];
	static const char *choices[ARRAY_SIZE(format_names)];
	static int values[ARRAY_SIZE(format_names)];
	struct opt_group g = { .title = "common options", .opts = table, .base = ctx };
	size_t i, n = 0, k = 0;

	for (i = 0; format_names[i]; i++) {
		if (!(formats & (1u << i)))
			continue;
		choices[k] = format_names[i];
		values[k++] = (int)i;
	}
	choices[k] = NULL;
	for (i = 0; common_opts[i].type != OPT_END; i++) {
		if (!(which & common_bits[i]) || (common_bits[i] == COMMON_FORMAT && k < 2))
			continue;
		table[n] = common_opts[i];
		if (common_bits[i] == COMMON_FORMAT) {
			table[n].choices = choices;
			table[n].choice_values = values;
		}
		n++;
	}
	table[n] = (struct opt){ .type = OPT_END };
	return g;
}

struct opt_group cli_common_group(struct ctx *ctx)
{
	return cli_common_group_for(ctx, COMMON_ALL,
				    (1u << FMT_TEXT) | (1u << FMT_JSON) |
					    (1u << FMT_METRICS_BRIEF) | (1u << FMT_CSV));
}

void cli_parse(const char *cmd, const char *usage, const char *description,
	       struct opt_group *groups, size_t ngroups, int argc, const char **argv,
	       int stop_at_first_pos, struct opts_result *res, struct ctx *ctx)
{
	if (cli_completing())
		cli_complete(cmd, groups, ngroups, argc, argv, ctx);
	if (opts_parse(cmd, groups, ngroups, argc, argv, stop_at_first_pos, res))
		exit(EXIT_USAGE);
	if (res->help) {
		printf("usage: wakebench %s %s\n", cmd, usage);
		if (description)
			printf("\n%s\n", description);
		opts_print_help(stdout, groups, ngroups);
		fflush(stdout);
		exit(ferror(stdout) ? EXIT_RUNTIME : EXIT_OK);
	}
	if (ctx->quiet)
		wb_verbosity = -1;
	else if (ctx->verbose)
		wb_verbosity = 1;
}

void cli_require_format(const char *cmd, const struct ctx *ctx, unsigned allowed)
{
	char list[128] = "";
	size_t used = 0;
	int i;

	if (allowed & (1u << ctx->format))
		return;
	for (i = 0; format_names[i]; i++) {
		if (!(allowed & (1u << i)))
			continue;
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", used ? "|" : "",
					 format_names[i]);
		if (used >= sizeof(list))
			break;
	}
	die_usage("%s: option '--format': '%s' is not supported here, allowed %s", cmd,
		  format_names[ctx->format], list);
}

const char *cli_db_path(const struct ctx *ctx)
{
	static char path[4096];
	const char *env, *home;

	if (ctx->db_path) {
		/* an empty --db is a mistake (an unset variable?), not the default store */
		if (!*ctx->db_path)
			die_usage("option '--db': the path is empty: give the store's file, or "
				  "leave --db out for the default store");
		return ctx->db_path;
	}
	/* an empty WAKEBENCH_DB counts as unset, as an empty XDG_DATA_HOME does */
	env = getenv("WAKEBENCH_DB");
	if (env && *env)
		return env;
	env = getenv("XDG_DATA_HOME");
	if (env && *env) {
		snprintf(path, sizeof(path), "%s/wakebench/results.db", env);
		return path;
	}
	home = getenv("HOME");
	snprintf(path, sizeof(path), "%s/.local/share/wakebench/results.db",
		 home && *home ? home : ".");
	return path;
}

void cli_print_stored(const struct ctx *ctx, const char *uuid)
{
	text_line(stdout, "stored: experiment %s in %s", uuid, cli_db_path(ctx));
}

/* mkdir -p of dir, each new directory 0700 (it holds host names and command lines). */
static void make_store_dir(const char *dir)
{
	char *d = xstrdup(dir), *p;
	struct stat sb;

	for (p = d + 1;; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(d, 0700) && errno != EEXIST)
			die_errno("cannot create the store's directory '%s'", d);
		*p = c;
		if (!c)
			break;
	}
	if (stat(d, &sb) || !S_ISDIR(sb.st_mode))
		die("cannot create the store's directory '%s': %s", d, strerror(ENOTDIR));
	free(d);
}

const char *cli_db_for_open(const struct ctx *ctx, bool create)
{
	const char *path = cli_db_path(ctx), *env = getenv("WAKEBENCH_DB");
	const char *slash = strrchr(path, '/');
	char *dir;
	struct stat sb;

	if (!slash || slash == path)
		return path; /* the current or the root directory */
	dir = xstrdup(path);
	dir[slash - path] = '\0';
	if (ctx->db_path || (env && *env)) {
		/* a store named by hand: a missing directory is a typo, not a request */
		if (stat(dir, &sb) && errno == ENOENT)
			die_usage("%s: directory '%s' does not exist: create it, or %s for the "
				  "default store",
				  ctx->db_path ? "option '--db'" : "WAKEBENCH_DB", dir,
				  ctx->db_path ? "leave --db out" : "unset WAKEBENCH_DB");
	} else if (create) {
		make_store_dir(dir);
	}
	free(dir);
	return path;
}

void cli_btf_path(const struct ctx *ctx, char *buf, size_t len)
{
	if (!ctx->root || !strcmp(ctx->root, "/"))
		buf[0] = '\0';
	else
		snprintf(buf, len, "%s/sys/kernel/btf/vmlinux", ctx->root);
}

static bool needs_quotes(const char *s)
{
	if (!*s)
		return true;
	for (; *s; s++)
		if (!(strchr("-_./=:,+%@", *s) || (*s >= '0' && *s <= '9') ||
		      (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
			return true;
	return false;
}

char *cli_cmdline(const struct ctx *ctx)
{
	size_t len = 1, used = 0;
	char *out;
	int i;

	for (i = 0; i < ctx->argc; i++)
		len += strlen(ctx->argv[i]) * 4 + 3;
	out = xmalloc(len);
	out[0] = '\0';
	for (i = 0; i < ctx->argc; i++) {
		const char *a = ctx->argv[i];

		if (i)
			out[used++] = ' ';
		if (!needs_quotes(a)) {
			memcpy(out + used, a, strlen(a));
			used += strlen(a);
			continue;
		}
		out[used++] = '\'';
		for (; *a; a++) {
			if (*a == '\'') {
				memcpy(out + used, "'\\''", 4);
				used += 4;
			} else {
				out[used++] = *a;
			}
		}
		out[used++] = '\'';
	}
	out[used] = '\0';
	return out;
}

bool cli_progress_enabled(const struct ctx *ctx)
{
	return !ctx->quiet && isatty(STDERR_FILENO);
}

const char *cli_signal_name(int sig)
{
	return signal_name(sig);
}

struct store *cli_store(struct ctx *ctx)
{
	unsigned how = ctx->cmd_flags & CMD_WRITES_STORE ? STORE_CREATE : STORE_READONLY;

	if (!(ctx->cmd_flags & (CMD_READS_STORE | CMD_WRITES_STORE)))
		BUG("cli_store: the command's row says neither CMD_READS_STORE nor "
		    "CMD_WRITES_STORE");
	if (!ctx->store && store_open(cli_db_for_open(ctx, how == STORE_CREATE), how, &ctx->store))
		ctx->store = NULL;
	return ctx->store;
}
