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
#include "store/store.h"
#include "sys/env.h"

#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct env_params {
	bool diff;
};

static const struct env_params env_defaults = { .diff = false };

static const struct opt env_opts_table[] = {
	{ .type = OPT_FLAG, .long_name = "diff", .offset = offsetof(struct env_params, diff),
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
			printf("  %-*s  %s\n", w, env->e[i].key, env->e[i].value);
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
	printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
								    JSON_C_TO_STRING_NOSLASHESCAPE));
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

int cmd_env(int argc, const char **argv, struct ctx *ctx)
{
	struct env_params p = env_defaults;
	struct opt_group groups[2] = {
		{ .title = "env options", .opts = env_opts_table, .base = &p,
		  .defaults = &env_defaults },
		cli_common_group(ctx),
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
	if (p.diff) {
		opts_result_release(&res);
		die_usage("env: option '--diff': needs the results store, not built yet");
	}
	rc = env_now(ctx);
	opts_result_release(&res);
	return rc;
}
