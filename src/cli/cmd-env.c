/*
 * cmd-env.c: `wakebench env`: the environment fingerprint of this machine
 * now, grouped by impact (strong first), as text or JSON; and
 * `wakebench env --diff A B`: the keys that differ between the start
 * fingerprints of two stored experiments, strongest first, with both values.
 *
 * The fingerprint itself is sys/env.c's; this file only parses, looks
 * experiments up in the store and formats.
 */
#include "cli/cli.h"
#include "util/json.h"
#include "store/store.h"
#include "sys/env.h"
#include "util/text.h"

#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct env_params {
	bool diff;
};

static const struct env_params env_defaults = { .diff = false };

static const struct opt env_opts_table[] = {
	{ .type = OPT_FLAG,
	  .long_name = "diff",
	  .offset = offsetof(struct env_params, diff),
	  .help = "list the keys that differ between stored experiments A and B "
		  "(ids or UUID prefixes)" },
	OPT_END_ROW,
};

static size_t key_width(const struct env *env)
{
	size_t w = 0, i;

	for (i = 0; i < env->n; i++)
		if (strlen(env->e[i].key) > w)
			w = strlen(env->e[i].key);
	return w;
}

static void print_text(const struct env *env)
{
	int w = (int)key_width(env);
	enum impact imp;
	size_t i;

	for (imp = IMPACT_STRONG; imp <= IMPACT_RUN; imp++) {
		int header = 0;

		for (i = 0; i < env->n; i++) {
			if (env->e[i].impact != imp)
				continue;
			if (!header++)
				printf("%s%s:\n", imp == IMPACT_STRONG ? "" : "\n",
				       env_impact_name(imp));
			/* what firmware and the kernel say: escaped like stored text */
			text_line(stdout, "  %-*s  %s", w, env->e[i].key, env->e[i].value);
		}
	}
}

static void print_json(const struct env *env)
{
	struct json_object *root = json_object_new_object(), *keys = json_object_new_array();
	enum impact imp;
	size_t i;

	for (imp = IMPACT_STRONG; imp <= IMPACT_RUN; imp++) {
		for (i = 0; i < env->n; i++) {
			struct json_object *o;

			if (env->e[i].impact != imp)
				continue;
			o = json_object_new_object();
			json_object_object_add(o, "key", json_object_new_string(env->e[i].key));
			json_object_object_add(o, "value", json_object_new_string(env->e[i].value));
			json_object_object_add(o, "impact",
					       json_object_new_string(env_impact_name(imp)));
			json_object_array_add(keys, o);
		}
	}
	json_object_object_add(root, "keys", keys);
	json_print(stdout, root);
	json_object_put(root);
}

static int env_now(const struct ctx *ctx)
{
	struct env_opts o = { .root = ctx->root, .debugfs = ctx->debugfs };
	struct env env = { 0 };

	if (env_collect(&env, &o)) {
		env_release(&env);
		return EXIT_RUNTIME;
	}
	if (ctx->format == FMT_JSON)
		print_json(&env);
	else
		print_text(&env);
	env_release(&env);
	return EXIT_OK;
}

/* One side of --diff: the experiment and its start fingerprint. */
struct side {
	const char *ref;
	struct store_experiment *exp;
	struct env env;
};

static int load_side(struct store *st, struct side *sd)
{
	struct store_filter f = { 0 };
	size_t n = 0;
	int64_t id;

	if (store_find_experiment(st, sd->ref, &id))
		return EXIT_USAGE; /* the store named the unknown reference */
	f.exp_id = id;
	if (store_list_experiments(st, &f, &sd->exp, &n))
		return EXIT_RUNTIME;
	if (n != 1) {
		store_experiments_free(sd->exp, n);
		sd->exp = NULL;
		error("experiment '%s' vanished from the store", sd->ref);
		return EXIT_RUNTIME;
	}
	if (store_load_env(st, id, "start", &sd->env))
		return EXIT_RUNTIME;
	if (!sd->env.n)
		warning("experiment %lld ('%s') has no stored fingerprint", (long long)id, sd->ref);
	return EXIT_OK;
}

static void side_release(struct side *sd)
{
	if (sd->exp)
		store_experiments_free(sd->exp, 1);
	env_release(&sd->env);
}

static void describe(const char *tag, const struct store_experiment *e)
{
	char when[32] = "?";
	time_t t = (time_t)(e->started_ns / 1000000000ULL);
	struct tm tm;

	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%SZ", &tm);
	char *line = xasprintf("%s: experiment %lld (%.8s) %s %s, kernel %s, host %s, %s%s%s", tag,
			       (long long)e->id, e->uuid, e->kind ? e->kind : "?",
			       e->workload ? e->workload : "?", e->kernel ? e->kernel : "?",
			       e->host ? e->host : "?", when, e->label ? ", label " : "",
			       e->label ? e->label : "");

	/* stored text: its control characters print as escapes */
	text_fput(stdout, line, 0);
	putchar('\n');
	free(line);
}

static void print_diff_text(const struct side *a, const struct side *b, const struct env_delta *d,
			    size_t n)
{
	size_t i;

	describe("A", a->exp);
	describe("B", b->exp);
	if (!n) {
		printf("\nno differences in %zu keys\n", a->env.n);
		return;
	}
	printf("\n%zu key%s differ%s (strongest first):\n", n, n == 1 ? "" : "s",
	       n == 1 ? "s" : "");
	for (i = 0; i < n; i++) {
		printf("\n%-8s  ", env_impact_name(d[i].impact));
		text_fput(stdout, d[i].key, 0);
		if (d[i].change[0]) {
			fputs("\n          ", stdout);
			text_fold(stdout, d[i].change, 10, 10, 100);
		}
		fputs("\n          A: ", stdout);
		text_fold(stdout, d[i].a ? d[i].a : "(not recorded)", 13, 13, 100);
		fputs("\n          B: ", stdout);
		text_fold(stdout, d[i].b ? d[i].b : "(not recorded)", 13, 13, 100);
		putchar('\n');
	}
}

static struct json_object *exp_json(const struct store_experiment *e)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "id", json_object_new_int64(e->id));
	json_object_object_add(o, "uuid", json_object_new_string(e->uuid));
	json_object_object_add(o, "kernel", e->kernel ? json_object_new_string(e->kernel) : NULL);
	json_object_object_add(o, "host", e->host ? json_object_new_string(e->host) : NULL);
	json_object_object_add(o, "label", e->label ? json_object_new_string(e->label) : NULL);
	return o;
}

static void print_diff_json(const struct side *a, const struct side *b, const struct env_delta *d,
			    size_t n)
{
	struct json_object *root = json_object_new_object(), *arr = json_object_new_array();
	size_t i;

	json_object_object_add(root, "a", exp_json(a->exp));
	json_object_object_add(root, "b", exp_json(b->exp));
	for (i = 0; i < n; i++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "key", json_object_new_string(d[i].key));
		json_object_object_add(o, "impact",
				       json_object_new_string(env_impact_name(d[i].impact)));
		json_object_object_add(o, "a", d[i].a ? json_object_new_string(d[i].a) : NULL);
		json_object_object_add(o, "b", d[i].b ? json_object_new_string(d[i].b) : NULL);
		if (d[i].change[0])
			json_object_object_add(o, "change", json_object_new_string(d[i].change));
		json_object_array_add(arr, o);
	}
	json_object_object_add(root, "differences", arr);
	json_print(stdout, root);
	json_object_put(root);
}

static int env_diff_cmd(struct ctx *ctx, const char *ref_a, const char *ref_b)
{
	const char *path = cli_db_path(ctx);
	struct side a = { .ref = ref_a }, b = { .ref = ref_b };
	struct env_delta *d = NULL;
	struct store *st;
	size_t n;
	int rc;

	if (access(path, F_OK))
		die_usage("env: no experiment '%s': the store '%s' does not exist", ref_a, path);
	if (!(st = cli_store(ctx)))
		return EXIT_RUNTIME;
	rc = load_side(st, &a);
	if (!rc)
		rc = load_side(st, &b);
	if (!rc) {
		n = env_diff(&a.env, &b.env, &d);
		if (ctx->format == FMT_JSON)
			print_diff_json(&a, &b, d, n);
		else
			print_diff_text(&a, &b, d, n);
		free(d);
	}
	side_release(&a);
	side_release(&b);
	return rc;
}

int cmd_env(int argc, const char **argv, struct ctx *ctx)
{
	struct env_params p = env_defaults;
	struct opt_group groups[2] = {
		{ .title = "env options",
		  .opts = env_opts_table,
		  .base = &p,
		  .defaults = &env_defaults },
		cli_common_group_for(ctx,
				     COMMON_DB | COMMON_FORMAT | COMMON_DEBUGFS | COMMON_VERBOSITY,
				     (1u << FMT_TEXT) | (1u << FMT_JSON)),
	};
	struct opts_result res = { 0 };
	int rc;

	cli_parse("env", "[--diff EXP_A EXP_B] [options]",
		  "Print the environment fingerprint of this machine (every fact that can change\n"
		  "an IPC result, grouped by impact), or the keys that differ between two stored\n"
		  "experiments.",
		  groups, ARRAY_SIZE(groups), argc, argv, 0, &res, ctx);
	cli_require_format("env", ctx, 1u << FMT_TEXT | 1u << FMT_JSON);
	if (!p.diff && res.npos)
		die_usage("env: unexpected argument '%s' (did you mean --diff A B?)", res.pos[0]);
	if (p.diff && res.npos != 2)
		die_usage("env: option '--diff': needs two experiments (ids or UUID prefixes), "
			  "got %zu",
			  res.npos);
	rc = p.diff ? env_diff_cmd(ctx, res.pos[0], res.pos[1])
		    : cli_kernel_prepare(ctx, "env", CLI_NEED_DEBUGFS);
	if (!p.diff && !rc)
		rc = env_now(ctx);
	opts_result_release(&res);
	return rc;
}
