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
	value = xvasprintf(fmt, ap);
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
		if (!strncmp(d[n].key, "sched.features", 14))
			env_vector_change(d[n].a, d[n].b, d[n].change, sizeof(d[n].change));
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

/* A feature vector: space-separated tokens of [A-Z0-9_], as sched/features is. */
bool env_is_vector(const char *v)
{
	const char *p;

	if (!v || !*v)
		return false;
	for (p = v; *p; p++) {
		bool starts = p == v || p[-1] == ' ';

		if (*p == ' ' || (*p >= 'A' && *p <= 'Z'))
			continue;
		if (starts || !(*p == '_' || (*p >= '0' && *p <= '9')))
			return false; /* a token starts with a letter: "1400000" is no vector */
	}
	return true;
}

int env_vector_state(const char *v, const char *name)
{
	size_t len = strlen(name);
	const char *p = v;

	while (p && *p) {
		const char *tok = p + strspn(p, " "), *end = tok + strcspn(tok, " ");
		bool no = !strncmp(tok, "NO_", 3) && (size_t)(end - tok) == len + 3;

		if ((size_t)(end - tok) == len + 3 * no && !strncmp(tok + 3 * no, name, len))
			return !no;
		p = end;
	}
	return -1;
}

void env_vector_name(const char *tok, size_t toklen, char *buf, size_t len)
{
	if (toklen > 3 && !strncmp(tok, "NO_", 3)) {
		tok += 3;
		toklen -= 3;
	}
	snprintf(buf, len, "%.*s", (int)toklen, tok);
}

/* Appends to buf the names of from's features that to lacks (state -1), after what. */
static void vector_missing(const char *from, const char *to, const char *what, char *buf,
			   size_t len)
{
	const char *p = from;
	bool first = true;

	while (*p) {
		const char *tok = p + strspn(p, " ");
		size_t tl = strcspn(tok, " ");
		char name[96];

		p = tok + tl;
		if (!tl)
			continue;
		env_vector_name(tok, tl, name, sizeof(name));
		if (env_vector_state(to, name) >= 0)
			continue;
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s%s", first && *buf ? "; " : "",
			 first ? what : " ", name);
		first = false;
	}
}

bool env_vector_change(const char *a, const char *b, char *buf, size_t len)
{
	const char *p = a;

	if (!len)
		return false;
	buf[0] = '\0';
	if (env_is_vector(a) != env_is_vector(b)) {
		/* readable on one side only (lockdown): the other side's reason, and a count */
		const char *v = env_is_vector(a) ? a : b, *other = v == a ? b : a;
		size_t n = 0;

		for (p = v; *p; p += strcspn(p, " "), p += strspn(p, " "))
			n++;
		if (v == a)
			snprintf(buf, len, "%zu features -> %s", n, other ? other : "(absent)");
		else
			snprintf(buf, len, "%s -> %zu features", other ? other : "(absent)", n);
		return true;
	}
	if (!env_is_vector(a) || !env_is_vector(b))
		return false;
	while (*p) {
		const char *tok = p + strspn(p, " ");
		size_t tl = strcspn(tok, " ");
		char name[96];
		int sa, sb;

		p = tok + tl;
		if (!tl)
			continue;
		env_vector_name(tok, tl, name, sizeof(name));
		sa = env_vector_state(a, name);
		sb = env_vector_state(b, name);
		if (sb >= 0 && sa != sb)
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s %s -> %s",
				 *buf ? ", " : "", name, sa ? "on" : "off", sb ? "on" : "off");
	}
	vector_missing(b, a, "added ", buf, len);
	vector_missing(a, b, "removed ", buf, len);
	return true;
}

/* CPUs in a list such as "0-3,8-11"; 0 when it is no list. */
static unsigned cpulist_count(const char *s)
{
	unsigned n = 0;

	while (s && *s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return 0;
		if (*end == '-') {
			s = end + 1;
			b = strtoul(s, &end, 10);
			if (end == s || b < a)
				return 0;
		}
		n += (unsigned)(b - a + 1);
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != ' ')
			return 0;
		else
			break;
	}
	return n;
}

bool env_overloaded(const struct env *env, double *load, unsigned *cpus)
{
	const char *l = env_get(env, "run.loadavg"), *r = env_get(env, "run.runnable");
	char *end;
	unsigned long others;

	*load = l ? strtod(l, &end) : 0.0;
	*cpus = cpulist_count(env_get(env, "cpu.online"));
	if (!l || end == l || !*cpus || *load <= (double)*cpus)
		return false;
	/*
	 * The 1-minute average still counts work that just ended (wakebench's
	 * own previous run): other work competes only while as many other
	 * tasks as CPUs are runnable now too. An older store kept no count.
	 */
	others = r ? strtoul(r, &end, 10) : 0;
	return !r || end == r || others >= *cpus;
}

bool env_was_overloaded(const struct env *env)
{
	double load;
	unsigned cpus;

	return env_get(env, ENV_OVERLOADED) || env_overloaded(env, &load, &cpus);
}
