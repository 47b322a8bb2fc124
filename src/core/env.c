/*
 * env.c: the environment fingerprint as a data structure: an ordered list of
 * (key, value, impact) entries, how impact classes are named, and env_diff(),
 * which says what differs between two fingerprints, strongest first. The
 * store keeps fingerprints and compare diffs them; the probes that fill one
 * are sys/'s (sys/env.c).
 */
#include "core/env.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const impact_names[] = {
	[IMPACT_STRONG] = "strong",	[IMPACT_MEDIUM] = "medium", [IMPACT_WEAK] = "weak",
	[IMPACT_IDENTITY] = "identity", [IMPACT_RUN] = "run",
};

const char *env_impact_name(enum impact i)
{
	if ((unsigned)i >= ARRAY_SIZE(impact_names))
		return "unknown";
	return impact_names[i];
}

int env_impact_parse(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(impact_names); i++)
		if (name && !strcmp(name, impact_names[i]))
			return (int)i;
	return -1;
}

static struct env_entry *env_find(const struct env *env, const char *key)
{
	size_t i;

	for (i = 0; i < env->n; i++)
		if (!strcmp(env->e[i].key, key))
			return &env->e[i];
	return NULL;
}

void env_set(struct env *env, const char *key, enum impact impact, const char *fmt, ...)
{
	struct env_entry *e = env_find(env, key);
	va_list ap;
	char *value;

	va_start(ap, fmt);
	if (vasprintf(&value, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);

	/* Keep fingerprints one line per key, whatever a file contained. */
	for (char *p = value; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	rtrim(value);

	if (e) {
		free(e->value);
		e->value = value;
		e->impact = impact;
		return;
	}
	if (env->n == env->alloc) {
		env->alloc = env->alloc ? 2 * env->alloc : 64;
		env->e = xrealloc(env->e, env->alloc * sizeof(*env->e));
	}
	env->e[env->n].key = xstrdup(key);
	env->e[env->n].value = value;
	env->e[env->n].impact = impact;
	env->n++;
}

const char *env_get(const struct env *env, const char *key)
{
	struct env_entry *e = env_find(env, key);

	return e ? e->value : NULL;
}

void env_release(struct env *env)
{
	size_t i;

	for (i = 0; i < env->n; i++) {
		free(env->e[i].key);
		free(env->e[i].value);
	}
	free(env->e);
	env->e = NULL;
	env->n = env->alloc = 0;
}

static int delta_cmp(const void *pa, const void *pb)
{
	const struct env_delta *a = pa, *b = pb;

	if (a->impact != b->impact)
		return (int)a->impact - (int)b->impact;
	return strcmp(a->key, b->key);
}

static int same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

size_t env_diff(const struct env *a, const struct env *b, struct env_delta **out)
{
	struct env_delta *d = xcalloc(a->n + b->n + 1, sizeof(*d));
	size_t n = 0, i;

	for (i = 0; i < a->n; i++) {
		const struct env_entry *ea = &a->e[i];
		const struct env_entry *eb = env_find(b, ea->key);

		if (eb && same(ea->value, eb->value))
			continue;
		d[n].key = ea->key;
		d[n].a = ea->value;
		d[n].b = eb ? eb->value : NULL;
		/* The stronger class wins if the two sides disagree on it. */
		d[n].impact = eb && eb->impact < ea->impact ? eb->impact : ea->impact;
		n++;
	}
	for (i = 0; i < b->n; i++) {
		if (env_find(a, b->e[i].key))
			continue;
		d[n].key = b->e[i].key;
		d[n].a = NULL;
		d[n].b = b->e[i].value;
		d[n].impact = b->e[i].impact;
		n++;
	}
	qsort(d, n, sizeof(*d), delta_cmp);
	*out = d;
	return n;
}
