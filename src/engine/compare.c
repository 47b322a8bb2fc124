/*
 * compare.c: compare's engine (compare.h): stored results grouped by a key
 * (kernel, label, profile, host, or a scheduler feature's state), each group
 * against a baseline: the CI of each median, the change with its CI, p and
 * verdict, the change of every evidence counter per op on the same units,
 * and the words every output uses for them. `compare` renders the result as
 * text, JSON and CSV; `report` renders compare_document(), its JSON.
 *
 * Samples come from the store (ok and not warm-up), statistics from stats/,
 * fingerprint differences from env_diff(). A group whose experiments differ
 * in a strong environment key (other than the grouping key) is split into
 * sub-groups named by that key, unless pooling, which pools them with a
 * warning.
 *
 * The unit of inference is the boot (DESIGN section 5): samples of one boot
 * share its offset, so a group's change is judged on the median of each
 * boot (stats_effect_boots()). A boot is the boot id the experiment was
 * stored with (a `vm` round's guest boot), or the experiment itself when
 * the store does not know it. Two groups measured in the very same boots
 * (two labels in one boot) are compared one level down, with experiments
 * as units, and the arms of the same experiments with samples as units;
 * the two arms of one ab, grouped by one of its features, are that ab's
 * own paired result (engine/ab.c). Evidence intervals take the units of
 * their group's change.
 */
#include "engine/compare.h"
#include "core/metrics.h"
#include "engine/ab.h"
#include "render/json.h"
#include "sys/features.h"
#include "util/json.h"
#include "util/number.h"
#include "util/suggest.h"
#include "util/text.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MORE_CAP 100 /* "~N units would decide" is a guide: beyond it, "more than" */

static void push_double(double **v, size_t *n, size_t *alloc, double x)
{
	if (*n == *alloc) {
		*alloc = *alloc ? 2 * *alloc : 16;
		*v = xrealloc(*v, *alloc * sizeof(**v));
	}
	(*v)[(*n)++] = x;
}

static struct series *series_get(struct series **ev, size_t *nev, const char *name, int better)
{
	size_t i;

	for (i = 0; i < *nev; i++)
		if (!strcmp((*ev)[i].name, name))
			return &(*ev)[i];
	*ev = xrealloc(*ev, (*nev + 1) * sizeof(**ev));
	memset(&(*ev)[*nev], 0, sizeof(**ev));
	(*ev)[*nev].name = xstrdup(name);
	(*ev)[*nev].better = better;
	return &(*ev)[(*nev)++];
}

static void series_free(struct series *ev, size_t nev)
{
	size_t i;

	for (i = 0; i < nev; i++) {
		free(ev[i].name);
		free(ev[i].v);
		free(ev[i].boot_tag);
		free(ev[i].exp_tag);
	}
	free(ev);
}

static void add_warning(struct compare *c, char *msg)
{
	c->warnbuf = xrealloc(c->warnbuf, (c->nwarn + 1) * sizeof(*c->warnbuf));
	c->warnbuf[c->nwarn++] = msg;
}

/* "NAME" or "NO_NAME" as the feature vector has it, or "unknown". */
static char *feature_state(const char *features, const char *name)
{
	int st = env_vector_state(features, name);

	return st < 0 ? xstrdup("unknown") : st ? xstrdup(name) : xasprintf("NO_%s", name);
}

/* The feature vector without NAME or NO_NAME; NULL for NULL. */
static char *features_without(const char *features, const char *name)
{
	size_t len = strlen(name), o = 0;
	const char *p = features;
	char *out;

	if (!features)
		return NULL;
	out = xmalloc(strlen(features) + 1);
	while (*p) {
		const char *tok = p, *end, *bare;

		while (*tok == ' ')
			tok++;
		if (!*tok)
			break;
		end = tok + strcspn(tok, " ");
		bare = strncmp(tok, "NO_", 3) ? tok : tok + 3;
		if ((size_t)(end - bare) != len || strncmp(bare, name, len)) {
			if (o)
				out[o++] = ' ';
			memcpy(out + o, tok, (size_t)(end - tok));
			o += (size_t)(end - tok);
		}
		p = end;
	}
	out[o] = '\0';
	return out;
}

static char *group_value(const struct compare *c, const struct store_row *row,
			 const struct env *env)
{
	const struct store_experiment *e = row->exp;
	const char *v = NULL;

	switch (c->by) {
	case BY_KERNEL:
		v = e->kernel;
		break;
	case BY_LABEL:
		v = e->label;
		break;
	case BY_PROFILE:
		v = e->profile;
		break;
	case BY_HOST:
		v = e->host;
		break;
	case BY_FEATURE: {
		char *state;

		/* the config's vector (ab arms), else the one the experiment started with */
		if (row->cfg && row->cfg->features)
			return feature_state(row->cfg->features, c->feature);
		state = feature_state(env_get(env, "sched.features"), c->feature);
		if (strcmp(state, "unknown"))
			return state;
		/* under lockdown: the state decoded from sched/debug */
		free(state);
		return feature_state(env_get(env, "sched.features_debug"), c->feature);
	}
	}
	return xstrdup(v && *v ? v : "(none)");
}

static size_t exp_index(const struct compare *c, int64_t id)
{
	size_t i;

	/* once per experiment and group value: a scan is cheap enough */
	for (i = 0; i < c->nexps; i++)
		if (c->exps[i].id == id)
			return i;
	BUG("experiment %lld not listed", (long long)id);
}

/*
 * The boot an experiment ran in, as an index: its stored boot id, else the
 * experiment alone (a JSON import or an old store cannot say).
 */
static size_t boot_key(struct compare *c, char *key)
{
	size_t i;

	for (i = 0; i < c->nboots; i++)
		if (!strcmp(c->boots[i], key)) {
			free(key);
			return i;
		}
	c->boots = xrealloc(c->boots, (c->nboots + 1) * sizeof(*c->boots));
	c->boots[c->nboots] = key;
	return c->nboots++;
}

static size_t boot_index(struct compare *c, const struct store_experiment *e)
{
	return boot_key(c, e->boot_id && *e->boot_id ? xstrdup(e->boot_id)
						     : xasprintf("exp:%s", e->uuid));
}

/*
 * A posted result: kind "external" (import of another tool's output), or
 * an experiment whose fingerprint names the tool. Its fingerprint holds
 * only what the posted text said; the profile and workload that reproduce
 * it are the experiment's, added as the keys a measured run stores.
 */
static void mark_external(struct part *p, const struct store_experiment *e)
{
	const char *tool = env_get(&p->env, "external.tool"),
		   *version = env_get(&p->env, "external.version");

	p->external = !strcmp(e->kind, "external") || tool;
	if (!p->external) {
		p->origin = xstrdup("measured");
		return;
	}
	p->origin = xasprintf("posted %s %s", tool ? tool : "result",
			      version ? version : "(version unknown)");
	if (!env_get(&p->env, "workload.name") && e->workload)
		env_set(&p->env, "workload.name", IMPACT_STRONG, "%s", e->workload);
	if (!env_get(&p->env, "workload.profile") && e->profile)
		env_set(&p->env, "workload.profile", IMPACT_STRONG, "%s", e->profile);
}

static int collect_row(void *arg, const struct store_row *row)
{
	struct compare *c = arg;
	int64_t cfg_id = row->cfg ? row->cfg->id : 0;
	struct part *p = NULL;
	size_t i;
	double v;

	if (c->only) {
		for (i = 0; i < c->nonly && c->only[i] != row->exp->id; i++)
			;
		if (i == c->nonly)
			return 0;
	}
	if (c->nparts && c->parts[c->nparts - 1].exp_id != row->exp->id)
		c->cur_exp_first = c->nparts;
	for (i = c->cur_exp_first; i < c->nparts; i++)
		if (c->parts[i].exp_id == row->exp->id && c->parts[i].cfg_id == cfg_id) {
			p = &c->parts[i];
			break;
		}
	if (!p) {
		if (c->nparts == c->partalloc) {
			c->partalloc = c->partalloc ? 2 * c->partalloc : 16;
			c->parts = xrealloc(c->parts, c->partalloc * sizeof(*c->parts));
		}
		p = &c->parts[c->nparts++];
		memset(p, 0, sizeof(*p));
		p->exp_id = row->exp->id;
		p->cfg_id = cfg_id;
		p->cfg_name = xstrdup(row->cfg && row->cfg->name ? row->cfg->name : "default");
		p->exp_index = exp_index(c, row->exp->id);
		p->boot = boot_index(c, row->exp);
		if (store_load_env(c->st, p->exp_id, "start", &p->env))
			return -1;
		mark_external(p, row->exp);
		p->value = group_value(c, row, &p->env);
		if (row->cfg && row->cfg->features)
			p->cfg_features = xstrdup(row->cfg->features);
		p->overloaded = env_was_overloaded(&p->env);
		if (c->by == BY_FEATURE) {
			p->features_rest = features_without(
				row->cfg && row->cfg->features ? row->cfg->features
							       : env_get(&p->env, "sched.features"),
				c->feature);
			p->features_debug_rest = features_without(
				env_get(&p->env, "sched.features_debug"), c->feature);
		}
	}
	/* the primary metric of the experiment's workload (ops_per_s for pipe, pingpong) */
	if (sample_value(row->s, metric_primary(row->exp->workload)->name, &v))
		push_double(&p->ops, &p->n, &p->alloc, v);
	for (i = 0; i < row->s->nmetrics; i++) {
		const struct metric *m = &row->s->metrics[i];
		struct series *s;

		if (!(m->flags & METRIC_EVIDENCE) || !m->available)
			continue;
		s = series_get(&p->ev, &p->nev, m->name, m->better);
		push_double(&s->v, &s->n, &s->alloc, m->value);
	}
	return 0;
}

/* The env key that is the grouping key itself (never a reason to split). */
static bool is_grouping_key(const struct compare *c, const char *key)
{
	switch (c->by) {
	case BY_KERNEL:
		return !strcmp(key, "kernel.release");
	case BY_HOST:
		return !strcmp(key, "host.name");
	case BY_FEATURE:
		/* the arms' names say the feature's state (the vectors: strong_value) */
		return !strcmp(key, "config");
	case BY_PROFILE:
		return !strcmp(key, "profile") || strstr(key, "profile") != NULL;
	case BY_LABEL:
		return !strcmp(key, "label");
	}
	return false;
}

/*
 * Value of a strong key for splitting: the fingerprint, plus three pseudo
 * keys from the store: "profile", "config" (the arm of an `ab`, or a `run`'s
 * "default") and "source" ("measured", or "posted stress-ng 0.21.00": a
 * posted result is never pooled with measured ones unasked).
 */
static const char *strong_value(const struct compare *c, const struct part *p, const char *key)
{
	const struct store_experiment *e = &c->exps[p->exp_index];

	if (!strcmp(key, "profile"))
		return e->profile ? e->profile : "(none)";
	if (!strcmp(key, "config"))
		return p->cfg_name;
	if (!strcmp(key, "source"))
		return p->origin;
	/* by feature: the other features (an ab arm's vector is its config's) */
	if (c->by == BY_FEATURE && !strcmp(key, "sched.features"))
		return p->features_rest;
	if (c->by == BY_FEATURE && !strcmp(key, "sched.features_debug"))
		return p->features_debug_rest;
	return env_get(&p->env, key);
}

static const char *const pseudo_keys[] = { "profile", "config", "source" };

/*
 * The strong keys in which the parts of one value differ: present in every
 * part, not the grouping key. *keys is malloc'd and points into the envs.
 */
static size_t differing_strong_keys(const struct compare *c, const size_t *idx, size_t n,
				    const char ***keys)
{
	const struct part *first = &c->parts[idx[0]];
	const char **k = NULL;
	size_t nk = 0, i, j;

	*keys = NULL;
	for (i = 0; i < first->env.n + ARRAY_SIZE(pseudo_keys); i++) {
		const char *key;
		const char *v0;
		bool everywhere = true, differs = false;

		if (i >= first->env.n) {
			key = pseudo_keys[i - first->env.n];
		} else {
			if (first->env.e[i].impact != IMPACT_STRONG)
				continue;
			key = first->env.e[i].key;
		}
		if (is_grouping_key(c, key))
			continue;
		v0 = strong_value(c, first, key);
		if (!v0)
			continue;
		for (j = 1; j < n; j++) {
			const char *v = strong_value(c, &c->parts[idx[j]], key);

			if (!v) {
				everywhere = false;
				break;
			}
			if (strcmp(v, v0))
				differs = true;
		}
		if (everywhere && differs) {
			k = xrealloc(k, (nk + 1) * sizeof(*k));
			k[nk++] = key;
		}
	}
	*keys = k;
	return nk;
}

/* strs joined by ", " (malloc'd). */
static char *join_strs(const char *const *strs, size_t n)
{
	size_t i, len = 1;
	char *out;

	for (i = 0; i < n; i++)
		len += strlen(strs[i]) + 2;
	out = xmalloc(len);
	out[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i)
			strcat(out, ", ");
		strcat(out, strs[i]);
	}
	return out;
}

/*
 * A sub-group's label says only what sets it apart: one item per differing
 * key, each part's value. The two feature vectors (sched.features and its
 * decoded sched/debug twin) become the features that differ, NAME=on|off;
 * a key whose values repeat an earlier item's is left out (profile and
 * workload.profile); long values keep the part that differs.
 */
#define LABEL_FEATURES 3  /* differing features named one by one; more: "features=set N" */
#define LABEL_VALUE    28 /* longer values are cut to their differing part */

struct label_item {
	char *name;
	char **v; /* per part of the value */
};

struct label {
	struct label_item *it;
	size_t n, nparts;
};

static char **label_add(struct label *l, const char *name)
{
	l->it = xrealloc(l->it, (l->n + 1) * sizeof(*l->it));
	l->it[l->n].name = xstrdup(name);
	l->it[l->n].v = xcalloc(l->nparts, sizeof(char *));
	return l->it[l->n++].v;
}

/*
 * A part's feature vector: its config's (an ab arm's), else sched.features
 * when readable, else the state decoded from sched/debug.
 */
static const char *label_vector(const struct compare *c, const struct part *p)
{
	const char *v = c->by == BY_FEATURE || !p->cfg_features
				? strong_value(c, p, "sched.features")
				: p->cfg_features;

	if (env_is_vector(v))
		return v;
	v = strong_value(c, p, "sched.features_debug");
	return env_is_vector(v) ? v : NULL;
}

/* Adds the token's feature name to names, once. */
static void name_add(char ***names, size_t *n, const char *tok, size_t tl)
{
	char name[96];
	size_t i;

	env_vector_name(tok, tl, name, sizeof(name));
	for (i = 0; i < *n; i++)
		if (!strcmp((*names)[i], name))
			return;
	*names = xrealloc(*names, (*n + 1) * sizeof(**names));
	(*names)[(*n)++] = xstrdup(name);
}

/* More features differ than a label can name: "features=set N", N by first appearance. */
static void label_vectors(const struct compare *c, const size_t *idx, struct label *l)
{
	char **v = label_add(l, "features");
	size_t j, k, sets = 0;

	for (j = 0; j < l->nparts; j++) {
		const char *vec = label_vector(c, &c->parts[idx[j]]);

		for (k = 0; k < j; k++) {
			const char *other = label_vector(c, &c->parts[idx[k]]);

			if (vec && other && !strcmp(vec, other))
				break;
		}
		v[j] = !vec    ? xstrdup("unknown")
		       : k < j ? xstrdup(v[k])
			       : xasprintf("set %zu", ++sets);
	}
}

/* The features whose state differs among the parts: items NAME=on|off|absent. */
static void label_features(const struct compare *c, const size_t *idx, struct label *l)
{
	char **names = NULL, **diff = NULL;
	size_t nn = 0, nd = 0, i, j;

	for (j = 0; j < l->nparts; j++) {
		const char *p = label_vector(c, &c->parts[idx[j]]);

		while (p && *p) {
			const char *tok = p + strspn(p, " ");
			size_t tl = strcspn(tok, " ");

			p = tok + tl;
			if (tl)
				name_add(&names, &nn, tok, tl);
		}
	}
	for (i = 0; i < nn; i++) {
		int s0 = env_vector_state(label_vector(c, &c->parts[idx[0]]), names[i]);

		for (j = 1; j < l->nparts; j++)
			if (env_vector_state(label_vector(c, &c->parts[idx[j]]), names[i]) != s0) {
				diff = xrealloc(diff, (nd + 1) * sizeof(*diff));
				diff[nd++] = names[i];
				break;
			}
	}
	for (i = 0; i < nd && nd <= LABEL_FEATURES; i++) {
		char **v = label_add(l, diff[i]);

		for (j = 0; j < l->nparts; j++) {
			const char *vec = label_vector(c, &c->parts[idx[j]]);
			int st = env_vector_state(vec, diff[i]);

			v[j] = xstrdup(!vec ? "unknown" : st < 0 ? "absent" : st ? "on" : "off");
		}
	}
	if (nd > LABEL_FEATURES)
		label_vectors(c, idx, l);
	for (i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	free(diff);
}
/* Whether item v repeats an earlier item's values part for part. */
static bool label_repeats(const struct label *l, char *const *v)
{
	size_t i, j;

	for (i = 0; i < l->n; i++) {
		for (j = 0; j < l->nparts && !strcmp(l->it[i].v[j], v[j]); j++)
			;
		if (j == l->nparts)
			return true;
	}
	return false;
}

/* The other differing keys, named without their "kernel." or "sched." prefix. */
static void label_keys(const struct compare *c, const size_t *idx, const char **keys, size_t nk,
		       struct label *l)
{
	static const char *const prefixes[] = { "kernel.", "sched.", "workload." };
	size_t i, j, k;

	for (i = 0; i < nk; i++) {
		const char *name = keys[i];
		char **v = xcalloc(l->nparts, sizeof(*v));

		if (!strcmp(name, "sched.features") || !strcmp(name, "sched.features_debug") ||
		    !strcmp(name, "config")) {
			free(v);
			continue;
		}
		for (j = 0; j < l->nparts; j++)
			v[j] = xstrdup(strong_value(c, &c->parts[idx[j]], keys[i]));
		for (k = 0; k < ARRAY_SIZE(prefixes); k++)
			if (!strncmp(name, prefixes[k], strlen(prefixes[k])))
				name += strlen(prefixes[k]);
		if (!label_repeats(l, v)) {
			free(label_add(l, name));
			l->it[l->n - 1].v = v;
			continue;
		}
		for (j = 0; j < l->nparts; j++)
			free(v[j]);
		free(v);
	}
}

/* Whether parts j and k read the same on every item so far. */
static bool label_same(const struct label *l, size_t j, size_t k)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->it[i].v[j], l->it[i].v[k]))
			return false;
	return true;
}

/*
 * The config (an ab's arm, a run's "default") splits too, but is named only
 * where nothing else tells two sub-groups apart: by the experiment's kind
 * ("run", "ab") when that does, else by the config's name.
 */
static void label_config(const struct compare *c, const size_t *idx, struct label *l)
{
	bool need = false, by_kind = true;
	size_t j, k;
	char **v;

	for (j = 0; j < l->nparts; j++)
		for (k = 0; k < j; k++) {
			const struct part *a = &c->parts[idx[j]], *b = &c->parts[idx[k]];

			if (!label_same(l, j, k) || !strcmp(a->cfg_name, b->cfg_name))
				continue;
			need = true;
			by_kind = by_kind && strcmp(c->exps[a->exp_index].kind ?: "",
						    c->exps[b->exp_index].kind ?: "");
		}
	if (!need)
		return;
	v = label_add(l, "config");
	for (j = 0; j < l->nparts; j++) {
		const struct part *p = &c->parts[idx[j]];

		v[j] = xstrdup(by_kind ? c->exps[p->exp_index].kind ?: "?" : p->cfg_name);
	}
}

static bool label_sep(char ch)
{
	return ch == ' ' || ch == '-' || ch == '.' || ch == '_' || ch == '/' || ch == ',' ||
	       ch == '(' || ch == '+';
}

/*
 * Long values of one item cut to what differs among them: the common prefix
 * and suffix (back to a separator) become "...". Kept whole when the cut
 * values would no longer tell the parts apart.
 */
static void label_shorten(struct label_item *it, size_t n)
{
	size_t pre = SIZE_MAX, suf = SIZE_MAX, j, k;
	char **cut;

	for (j = 0; j < n && strlen(it->v[j]) <= LABEL_VALUE; j++)
		;
	if (j == n)
		return;
	for (j = 1; j < n; j++) {
		size_t a = strlen(it->v[0]), b = strlen(it->v[j]), q = 0;

		while (q < a && q < b && it->v[0][q] == it->v[j][q])
			q++;
		pre = q < pre ? q : pre;
		for (q = 0; q < a && q < b && it->v[0][a - 1 - q] == it->v[j][b - 1 - q]; q++)
			;
		suf = q < suf ? q : suf;
	}
	if (pre == SIZE_MAX)
		return;
	cut = xcalloc(n, sizeof(*cut));
	for (j = 0; j < n; j++) {
		const char *v = it->v[j];
		size_t len = strlen(v), p = pre, s = suf;

		while (p > 0 && !label_sep(v[p - 1]))
			p--;
		while (s > 0 && !label_sep(v[len - s]))
			s--;
		if (p + s > len)
			s = len - p;
		cut[j] = xasprintf("%s%.*s%s", p ? "..." : "", (int)(len - p - s), v + p,
				   s ? "..." : "");
	}
	for (j = 0; j < n; j++)
		for (k = 0; k < j; k++)
			if (!strcmp(cut[j], cut[k]) != !strcmp(it->v[j], it->v[k]))
				goto keep;
	for (j = 0; j < n; j++) {
		free(it->v[j]);
		it->v[j] = cut[j];
	}
	free(cut);
	return;
keep:
	for (j = 0; j < n; j++)
		free(cut[j]);
	free(cut);
}

/* Each part's signature from the label's items: "preempt=full, DELAY_DEQUEUE=off". */
static void label_sign(struct compare *c, const size_t *idx, struct label *l)
{
	size_t i, j;

	for (j = 0; j < l->nparts; j++) {
		const char **items = xcalloc(l->n + 1, sizeof(*items));
		char **own = xcalloc(l->n + 1, sizeof(*own));

		for (i = 0; i < l->n; i++)
			items[i] = own[i] =
				!strcmp(l->it[i].name, "config")
					? xstrdup(l->it[i].v[j])
					: xasprintf("%s=%s", l->it[i].name, l->it[i].v[j]);
		c->parts[idx[j]].signature = l->n ? join_strs(items, l->n) : NULL;
		for (i = 0; i < l->n; i++)
			free(own[i]);
		free(own);
		free(items);
	}
	for (i = 0; i < l->n; i++) {
		for (j = 0; j < l->nparts; j++)
			free(l->it[i].v[j]);
		free(l->it[i].v);
		free(l->it[i].name);
	}
	free(l->it);
}

static int value_cmp(const struct compare *c, const char *a, const char *b)
{
	return c->by == BY_KERNEL ? store_kernel_cmp(a, b) : 0;
}

/*
 * The parts idx[0..n) of one value: the strong keys that differ among
 * them give each part its signature (its sub-group, labelled by what sets
 * it apart), unless pooling, and either way a warning says so.
 */
static void split_value(struct compare *c, const size_t *idx, size_t n, bool pool)
{
	const char *value = c->parts[idx[0]].value;
	struct label l = { .nparts = n };
	const char **keys;
	size_t nk = differing_strong_keys(c, idx, n, &keys), i;
	bool features = false;
	char *list;

	if (nk) {
		list = join_strs(keys, nk);
		add_warning(c,
			    pool ? xasprintf("pooling the experiments of %s although they differ "
					     "in strong keys (%s), as --pool asks",
					     value, list)
				 : xasprintf("%s is split into sub-groups by %s, which differs "
					     "within it and can change results (--pool pools them)",
					     value, list));
		free(list);
	}
	for (i = 0; i < n; i++)
		c->parts[idx[i]].signature = NULL;
	if (nk && !pool) {
		/* the feature vectors, or the configs' (an ab's arms) */
		for (i = 0; i < nk; i++)
			if (!strncmp(keys[i], "sched.features", 14) || !strcmp(keys[i], "config"))
				features = true;
		if (features)
			label_features(c, idx, &l);
		label_keys(c, idx, keys, nk, &l);
		for (i = 0; i < nk; i++)
			if (!strcmp(keys[i], "config"))
				label_config(c, idx, &l);
		for (i = 0; i < l.n; i++)
			label_shorten(&l.it[i], n);
		label_sign(c, idx, &l);
	}
	free(keys);
}

/* The group of part p: its value and signature's, made when it is the first. */
static struct group *group_of(struct compare *c, const struct part *p)
{
	struct group *g;
	size_t k;

	for (k = 0; k < c->ngroups; k++) {
		g = &c->groups[k];
		if (!strcmp(g->value, p->value) &&
		    ((!g->split && !p->signature) ||
		     (g->split && p->signature && !strcmp(g->split, p->signature))))
			return g;
	}
	c->groups = xrealloc(c->groups, (c->ngroups + 1) * sizeof(*c->groups));
	g = &c->groups[c->ngroups++];
	memset(g, 0, sizeof(*g));
	g->value = xstrdup(p->value);
	g->split = p->signature ? xstrdup(p->signature) : NULL;
	g->title = g->split ? xasprintf("%s [%s]", g->value, g->split) : xstrdup(g->value);
	g->shown = text_printable(g->title, 0);
	g->env = &p->env;
	g->env_posted = p->external;
	g->first_exp = p->exp_id;
	return g;
}

/* An evidence series of part p appended to the group's, each value tagged with p's units. */
static void add_series(struct group *g, const struct part *p, const struct series *ps)
{
	struct series *s = series_get(&g->ev, &g->nev, ps->name, ps->better);
	size_t m;

	for (m = 0; m < ps->n; m++) {
		push_double(&s->v, &s->n, &s->alloc, ps->v[m]);
		s->boot_tag = xrealloc(s->boot_tag, s->alloc * sizeof(*s->boot_tag));
		s->exp_tag = xrealloc(s->exp_tag, s->alloc * sizeof(*s->exp_tag));
		s->boot_tag[s->n - 1] = p->boot;
		s->exp_tag[s->n - 1] = (size_t)p->exp_id;
	}
}

/* A group's values: its parts', in order, each tagged with its boot and experiment. */
static void fill_group(struct compare *c, struct group *g)
{
	size_t alloc = 0, total = 0, o = 0, i, j, prev;

	for (j = 0; j < g->nparts; j++)
		total += c->parts[g->parts[j]].n;
	g->boot_tag = xmalloc((total ? total : 1) * sizeof(*g->boot_tag));
	g->exp_tag = xmalloc((total ? total : 1) * sizeof(*g->exp_tag));
	for (j = 0; j < g->nparts; j++) {
		const struct part *p = &c->parts[g->parts[j]];

		for (prev = 0; prev < j; prev++)
			if (c->parts[g->parts[prev]].boot == p->boot)
				break;
		g->nboots += prev == j; /* a boot not seen in this group yet */
		for (i = 0; i < p->n; i++) {
			push_double(&g->ops, &g->n, &alloc, p->ops[i]);
			g->boot_tag[o] = p->boot;
			g->exp_tag[o++] = (size_t)p->exp_id;
		}
		for (i = 0; i < p->nev; i++)
			add_series(g, p, &p->ev[i]);
		for (i = 0; i < g->noverloaded && g->overloaded[i] != p->exp_id; i++)
			;
		if (p->overloaded && i == g->noverloaded) {
			g->overloaded = xrealloc(g->overloaded,
						 (g->noverloaded + 1) * sizeof(*g->overloaded));
			g->overloaded[g->noverloaded++] = p->exp_id;
		}
	}
}

/*
 * The posted runs of a group whose boots are not known are one unit: they
 * may all come from one boot, so counting each experiment (or run) as a
 * boot would claim a replication nobody measured. Their unit is the
 * group's own, shared with no other group.
 */
static void external_units(struct compare *c, const struct group *g, size_t gi)
{
	size_t j, unit = SIZE_MAX;

	for (j = 0; j < g->nparts; j++) {
		struct part *p = &c->parts[g->parts[j]];
		const struct store_experiment *e = &c->exps[p->exp_index];

		if (!p->external || (e->boot_id && *e->boot_id))
			continue;
		if (unit == SIZE_MAX)
			unit = boot_key(c, xasprintf("posted:%zu", gi));
		p->boot = unit;
	}
}

/* What a group of posted results says about where they came from, and its note. */
static void external_origin(const struct compare *c, struct group *g)
{
	struct external_origin *x = &g->ext;
	const struct part *first = NULL;
	size_t j, k;

	for (j = 0; j < g->nparts; j++) {
		const struct part *p = &c->parts[g->parts[j]];

		if (!p->external)
			continue;
		g->nexternal++;
		x->runs += p->n;
		for (k = 0; k < j && c->parts[g->parts[k]].exp_id != p->exp_id; k++)
			;
		x->nexps += k == j;
		if (!first)
			first = p;
	}
	g->external = g->nexternal && g->nexternal == g->nparts;
	if (!first)
		return;
	x->tool = env_get(&first->env, "external.tool");
	x->version = env_get(&first->env, "external.version");
	x->format = env_get(&first->env, "external.format");
	x->args = env_get(&first->env, "external.args");
	x->source = env_get(&first->env, "external.source");
	x->profile = c->exps[first->exp_index].profile;
	x->cmdline = c->exps[first->exp_index].cmdline;
	compare_posted_note(x->tool, x->version, x->runs, !g->external, x->note, sizeof(x->note));
}

void compare_posted_note(const char *tool, const char *version, size_t runs, bool pooled, char *buf,
			 size_t len)
{
	snprintf(buf, len, "%s%s%s, %zu run%s%s, not measured here", tool ? tool : "posted result",
		 version ? " " : "", version ? version : "", runs, runs == 1 ? "" : "s",
		 pooled ? " pooled with measured ones" : "");
}

/* Groups: one per value, split by differing strong keys unless pooling. */
static void form_groups(struct compare *c, bool pool)
{
	bool *done = xcalloc(c->nparts + 1, sizeof(*done));
	size_t *idx = xmalloc((c->nparts + 1) * sizeof(*idx));
	size_t i, j, n;

	for (i = 0; i < c->nparts; i++) {
		struct group *g;

		if (done[i])
			continue;
		for (n = 0, j = i; j < c->nparts; j++)
			if (!done[j] && !strcmp(c->parts[j].value, c->parts[i].value)) {
				idx[n++] = j;
				done[j] = true;
			}
		split_value(c, idx, n, pool);
		/* one group per distinct signature, in order of appearance */
		for (j = 0; j < n; j++) {
			g = group_of(c, &c->parts[idx[j]]);
			g->parts = xrealloc(g->parts, (g->nparts + 1) * sizeof(*g->parts));
			g->parts[g->nparts++] = idx[j];
		}
	}
	free(idx);
	free(done);
	/* kernels in version order, the rest in the order they were first stored */
	for (i = 1; i < c->ngroups; i++) {
		struct group tmp = c->groups[i];

		for (j = i; j > 0 && value_cmp(c, c->groups[j - 1].value, tmp.value) > 0; j--)
			c->groups[j] = c->groups[j - 1];
		c->groups[j] = tmp;
	}
	for (i = 0; i < c->ngroups; i++) {
		external_units(c, &c->groups[i], i);
		fill_group(c, &c->groups[i]);
		external_origin(c, &c->groups[i]);
	}
}

static bool group_has_boot(const struct compare *c, const struct group *g, size_t boot)
{
	size_t j;

	for (j = 0; j < g->nparts; j++)
		if (c->parts[g->parts[j]].boot == boot)
			return true;
	return false;
}

/* Were both groups measured in exactly the same boots? (Then their offsets cancel.) */
static bool same_boots(const struct compare *c, const struct group *a, const struct group *b)
{
	size_t j;

	if (a->nboots != b->nboots)
		return false;
	for (j = 0; j < a->nparts; j++)
		if (!group_has_boot(c, b, c->parts[a->parts[j]].boot))
			return false;
	return true;
}

/* The group's change of each evidence metric, with the units its primary change has. */
static void evidence_changes(const struct group *base, struct group *g)
{
	size_t k, m;

	g->evc = xcalloc(g->nev + 1, sizeof(*g->evc));
	for (k = 0; k < g->nev; k++) {
		const struct series *s = &g->ev[k], *b = NULL;
		struct ev_change *x = &g->evc[g->nevc];
		struct boot_effect be;

		for (m = 0; m < base->nev; m++)
			if (!strcmp(base->ev[m].name, s->name))
				b = &base->ev[m];
		if (!b)
			continue;
		g->nevc++;
		x->name = s->name;
		x->base_median = stats_median(b->v, b->n);
		x->median = stats_median(s->v, s->n);
		x->p_adjusted = NAN;
		if (g->unit == UNIT_BOOT)
			stats_effect_boots(b->v, b->boot_tag, b->n, s->v, s->boot_tag, s->n,
					   COMPARE_CONF, &be);
		else
			stats_effect_boots(b->v, b->exp_tag, b->n, s->v, s->exp_tag, s->n,
					   COMPARE_CONF, &be);
		x->e = be.e;
	}
}

/* An ab line seen from the group's side: as it is, or A vs B when the baseline applies the token.
 */
static void ab_side(const struct ab_line *x, bool invert, struct effect *e, enum verdict *v)
{
	*e = x->s.e;
	*v = x->s.v;
	if (invert) {
		stats_effect_invert(e);
		*v = stats_verdict_invert(*v);
	}
}

/*
 * The baseline and g are the arms of one ab experiment, grouped by one of
 * its features: g's change is that ab's paired result (engine/ab.c), the
 * numbers `ab` printed, and its evidence is ab's evidence lines.
 */
static bool ab_arms(struct compare *c, const struct group *base, struct group *g)
{
	const struct store_experiment *e = NULL;
	const struct group *both[2] = { base, g };
	struct ab_stored ab;
	char why[256];
	size_t i, j, k;
	bool invert, found = false;

	if (c->by != BY_FEATURE)
		return false;
	for (i = 0; i < 2; i++)
		for (j = 0; j < both[i]->nparts; j++) {
			const struct store_experiment *pe =
				&c->exps[c->parts[both[i]->parts[j]].exp_index];

			if (e && pe != e)
				return false;
			e = pe;
		}
	if (!e || strcmp(e->kind, "ab"))
		return false;
	if (ab_load(c->st, e, &ab, why, sizeof(why))) {
		add_warning(c, xasprintf("experiment %s: %s: its arms are compared as samples",
					 e->uuid, why));
		return false;
	}
	for (k = 0; k < ab.r.d.nfeat; k++) {
		const char *t = ab.r.d.token[k], *bare = strncmp(t, "NO_", 3) ? t : t + 3;

		if (!strcmp(bare, c->feature))
			break;
	}
	if (k == ab.r.d.nfeat || k >= ab.r.neff) {
		ab_stored_release(&ab);
		return false;
	}
	/* the token applied is the group whose feature state is the token */
	invert = strcmp(g->value, ab.r.d.token[k]) != 0;
	g->unit = UNIT_PAIR;
	g->abd = ab.r.d;
	ab_side(&ab.r.eff[k], invert, &g->eff, &g->verdict);
	g->more = ab.r.eff[k].s.to_decide;
	snprintf(g->ab_verdict, sizeof(g->ab_verdict), "%s", ab.r.eff[k].verdict);
	if (invert)
		stats_verdict_words(g->verdict, ab.r.d.margin, NULL, g->ab_verdict,
				    sizeof(g->ab_verdict));
	/* the per-unit ratios of the per-pair plot, from the group's side */
	g->pair_ratio = xcalloc(ab.r.ncomplete + 1, sizeof(*g->pair_ratio));
	for (i = 0; ab.r.d.nfeat == 1 && i < ab.r.ncomplete; i++)
		g->pair_ratio[g->npair++] = invert ? 1.0 / ab.r.ratio[i] : ab.r.ratio[i];
	g->evc = xcalloc(ab.r.nlines + 1, sizeof(*g->evc));
	for (i = 0; i < ab.r.nlines; i++) {
		const struct ab_line *x = &ab.r.lines[i];
		struct ev_change *y = &g->evc[g->nevc];
		enum verdict v;

		if (strcmp(x->what, ab.r.d.token[k]))
			continue;
		for (j = 0; j < g->nev && strcmp(g->ev[j].name, x->metric); j++)
			;
		if (j == g->nev)
			continue;
		g->nevc++;
		y->name = g->ev[j].name;
		y->median = stats_median(g->ev[j].v, g->ev[j].n);
		for (found = false, j = 0; j < base->nev && !found; j++)
			if (!strcmp(base->ev[j].name, x->metric)) {
				y->base_median = stats_median(base->ev[j].v, base->ev[j].n);
				found = true;
			}
		ab_side(x, invert, &y->e, &v);
		y->p_adjusted = x->s.p_adjusted;
	}
	ab_stored_release(&ab);
	return true;
}

/*
 * A posted side of one run has no spread of its own, and its boots are
 * unknown: no interval and no verdict, whatever the other side holds; the
 * medians' ratio is still shown, as a point.
 */
static void external_verdict(const struct group *base, struct group *g)
{
	const struct group *one = g->external && g->ext.runs == 1	  ? g
				  : base->external && base->ext.runs == 1 ? base
									  : NULL;

	if (g->external || base->external)
		g->point = g->sum.median / base->sum.median - 1.0;
	if (!one)
		return;
	snprintf(g->why, sizeof(g->why),
		 "no verdict: %s is one posted run (%s), whose run-to-run and boot-to-boot "
		 "spread are unknown; import several runs",
		 one == g ? "this group" : "the baseline", one->ext.note);
	g->eff.valid = false;
	g->eff.why = g->why;
	g->beff.e = g->eff;
	g->verdict = VERDICT_INSUFFICIENT;
	g->more = 0;
}

/*
 * The environment against the baseline. Where one side is a posted result,
 * a key only the other side has is unknown, not a difference (the posted
 * text did not say it), and the external.* keys are its provenance.
 */
static void env_against(const struct group *base, struct group *g)
{
	struct env_delta *d;
	size_t nd = env_diff(base->env, g->env, &d), k;

	g->envd = xcalloc(nd + 1, sizeof(*g->envd));
	g->unknown = xcalloc(nd + 1, sizeof(*g->unknown));
	for (k = 0; k < nd; k++) {
		bool posted = base->env_posted || g->env_posted;

		if (posted && !strncmp(d[k].key, "external.", 9))
			continue;
		if ((base->env_posted && !d[k].a) || (g->env_posted && !d[k].b)) {
			if (d[k].impact != IMPACT_RUN)
				g->unknown[g->nunknown++] = d[k];
			continue;
		}
		g->envd[g->nenvd++] = d[k];
	}
	free(d);
}

static void analyse(struct compare *c)
{
	struct group *base = &c->groups[c->baseline];
	size_t i;

	for (i = 0; i < c->ngroups; i++) {
		struct group *g = &c->groups[i];

		g->baseline = i == c->baseline;
		stats_summarize(g->ops, g->n, COMPARE_CONF, &g->sum, NULL);
		g->noisy = stats_summary_noisy(&g->sum, NOISY_CV);
		g->point = NAN;
		if (!g->baseline)
			env_against(base, g);
		if (g->baseline || ab_arms(c, base, g))
			continue;
		/* boots as units; in the very same boots, experiments; in the same experiments,
		 * samples */
		if (!same_boots(c, base, g)) {
			g->unit = UNIT_BOOT;
			stats_effect_boots(base->ops, base->boot_tag, base->n, g->ops, g->boot_tag,
					   g->n, COMPARE_CONF, &g->beff);
		} else {
			g->unit = UNIT_EXPERIMENT;
			stats_effect_boots(base->ops, base->exp_tag, base->n, g->ops, g->exp_tag,
					   g->n, COMPARE_CONF, &g->beff);
			if (g->beff.level == EFFECT_LEVEL_SAME_BOOTS)
				g->unit = UNIT_SAMPLE;
		}
		g->eff = g->beff.e;
		g->verdict = stats_boot_verdict(&g->beff, c->margin, c->better);
		if (g->verdict == VERDICT_INCONCLUSIVE && g->beff.level != EFFECT_LEVEL_ONE_BOOT)
			g->more = stats_samples_to_decide(&g->eff, c->margin);
		external_verdict(base, g);
		evidence_changes(base, g);
	}
}

/* ---- text ---- */

const char *compare_unit_name(enum unit_level u, bool plural)
{
	switch (u) {
	case UNIT_BOOT:
		return plural ? "boots" : "boot";
	case UNIT_EXPERIMENT:
		return plural ? "experiments" : "experiment";
	case UNIT_PAIR:
		return plural ? "pairs" : "pair";
	case UNIT_SAMPLE:
		break;
	}
	return plural ? "samples" : "sample";
}

/* What varies between the units that one unit per group cannot show. */
static const char *unit_unknown(enum unit_level u)
{
	return u == UNIT_BOOT ? "boot-to-boot variation unknown" : "run-to-run variation unknown";
}

/* How to get more units of the kind that is missing. */
static const char *unit_hint(enum unit_level u)
{
	return u == UNIT_BOOT ? "more boots: wakebench vm --rounds N, or rerun after a reboot "
				"(compare combines the experiments of each group)"
			      : "more experiments: run each config several times, alternating "
				"(compare combines them)";
}

/* One line on the inference behind a group's verdict (text and JSON). */
void compare_inference_text(const struct compare *c, const struct group *g, char *buf, size_t len)
{
	const struct group *base = &c->groups[c->baseline];
	const struct boot_effect *be = &g->beff;
	const char *u = compare_unit_name(g->unit, true), *prefix = "";
	char sd[160] = "", lo[32], hi[32], posted[320];

	if (g->unit == UNIT_PAIR) {
		snprintf(buf, len,
			 "the arms of one ab experiment: its paired result as ab computed it, %zu "
			 "%s (Wilcoxon signed-rank, Hodges-Lehmann) at %.4g%% per look, margin "
			 "%g%%",
			 g->eff.n_a, ab_unit_word(&g->abd, g->eff.n_a), g->eff.conf * 100.0,
			 g->abd.margin * 100.0);
		return;
	}
	if (g->why[0]) {
		snprintf(buf, len, "%s", g->why);
		return;
	}
	if (g->external || base->external) {
		snprintf(posted, sizeof(posted),
			 "the posted runs (%s) count as one boot, since where they ran is not "
			 "known: ",
			 (g->external ? g : base)->ext.note);
		prefix = posted;
	}
	if (g->unit == UNIT_EXPERIMENT)
		prefix = "same boot as the baseline, so experiments are the units: ";
	else if (g->unit == UNIT_SAMPLE)
		prefix = "the arms of the same experiments (same boot), so samples are the units: ";
	if (!be->e.valid) {
		snprintf(buf, len, "%sno interval (%s)", prefix,
			 be->e.why ? be->e.why : "insufficient samples");
		return;
	}
	switch (be->level) {
	case EFFECT_LEVEL_BOOTS:
		if (be->sd_from != BOOT_SD_BOTH)
			snprintf(sd, sizeof(sd), " from the %zu %s of %s", be->sd_boots, u,
				 be->sd_from == BOOT_SD_A ? base->shown : g->shown);
		snprintf(buf, len,
			 "%s%zu %s vs %zu: t on each %s's median of log %s, %.0f df, "
			 "between-%s sd %.1f%%%s",
			 prefix, be->boots_b,
			 be->boots_b == 1 ? compare_unit_name(g->unit, false) : u, be->boots_a,
			 compare_unit_name(g->unit, false), c->what, be->df,
			 compare_unit_name(g->unit, false), be->between_sd * 100.0, sd);
		return;
	case EFFECT_LEVEL_ONE_BOOT:
		fmt_pct(be->e.lo, lo, sizeof(lo));
		fmt_pct(be->e.hi, hi, sizeof(hi));
		snprintf(buf, len,
			 "%sone %s each (%s): the interval [%s, %s] covers only the noise within "
			 "a %s; %s",
			 prefix, compare_unit_name(g->unit, false), unit_unknown(g->unit), lo, hi,
			 g->unit == UNIT_BOOT ? "boot" : "run", unit_hint(g->unit));
		return;
	case EFFECT_LEVEL_SAME_BOOTS:
		snprintf(buf, len, "%s%zu vs %zu samples (Hodges-Lehmann, Mann-Whitney)", prefix,
			 be->n_b, be->n_a);
		return;
	}
}

void compare_verdict_text(const struct compare *c, const struct group *g, char *buf, size_t len)
{
	char detail[192] = "";

	if (g->baseline) {
		snprintf(buf, len, "baseline");
		return;
	}
	if (g->unit == UNIT_PAIR) {
		snprintf(buf, len, "%s", g->ab_verdict);
		return;
	}
	if (g->why[0]) {
		snprintf(buf, len, "%s", g->why);
		return;
	}
	if (g->verdict == VERDICT_INSUFFICIENT && g->eff.why &&
	    !strncmp(g->eff.why, stats_verdict_name(g->verdict),
		     strlen(stats_verdict_name(g->verdict)))) {
		snprintf(buf, len, "%s", g->eff.why); /* says it already */
		return;
	}
	if (g->verdict == VERDICT_INSUFFICIENT && g->eff.why)
		snprintf(detail, sizeof(detail), "%s", g->eff.why);
	else if (g->verdict == VERDICT_INCONCLUSIVE && g->beff.level == EFFECT_LEVEL_ONE_BOOT)
		snprintf(detail, sizeof(detail), "one %s per group: %s",
			 compare_unit_name(g->unit, false), unit_unknown(g->unit));
	else if (g->verdict == VERDICT_INCONCLUSIVE && g->more > MORE_CAP)
		snprintf(detail, sizeof(detail),
			 "more than %d %s per group would be needed at this spread", MORE_CAP,
			 compare_unit_name(g->unit, true));
	else if (g->verdict == VERDICT_INCONCLUSIVE && g->more)
		snprintf(detail, sizeof(detail), "~%zu %s per group would decide", g->more,
			 compare_unit_name(g->unit, true));
	stats_verdict_words(g->verdict, c->margin, detail, buf, len);
}

/* ---- JSON ---- */

static json_object *inference_json(const struct compare *c, const struct group *g)
{
	const struct boot_effect *be = &g->beff;
	json_object *o = json_object_new_object();
	char line[1024];

	if (g->unit == UNIT_PAIR) {
		json_object_object_add(o, "unit", json_object_new_string(ab_unit_word(&g->abd, 1)));
		json_object_object_add(o, "level", json_object_new_string("paired"));
		json_object_object_add(o, "baseline_units",
				       json_object_new_int64((int64_t)g->eff.n_a));
		json_object_object_add(o, "units", json_object_new_int64((int64_t)g->eff.n_a));
		json_object_object_add(o, "df", NULL);
		json_object_object_add(o, "between_unit_sd", NULL);
		json_object_object_add(o, "decidable", json_object_new_boolean(true));
		json_object_object_add(o, "interval_covers",
				       json_object_new_string("variation between the units of "
							      "one ab, within its boot"));
		json_object_object_add(o, "units_to_decide",
				       g->more ? json_object_new_int64((int64_t)g->more) : NULL);
		compare_inference_text(c, g, line, sizeof(line));
		json_object_object_add(o, "note", json_object_new_string(line));
		return o;
	}
	json_object_object_add(o, "unit",
			       json_object_new_string(compare_unit_name(g->unit, false)));
	json_object_object_add(o, "level",
			       json_object_new_string(stats_effect_level_key(be->level)));
	json_object_object_add(
		o, "baseline_units",
		json_object_new_int64(
			(int64_t)(be->level == EFFECT_LEVEL_SAME_BOOTS ? be->n_a : be->boots_a)));
	json_object_object_add(
		o, "units",
		json_object_new_int64(
			(int64_t)(be->level == EFFECT_LEVEL_SAME_BOOTS ? be->n_b : be->boots_b)));
	json_object_object_add(o, "df", json_double(be->df));
	json_object_object_add(o, "between_unit_sd", json_double(be->between_sd));
	json_object_object_add(
		o, "decidable",
		json_object_new_boolean(be->level != EFFECT_LEVEL_ONE_BOOT && !g->why[0]));
	json_object_object_add(
		o, "interval_covers",
		json_object_new_string(be->level == EFFECT_LEVEL_ONE_BOOT
					       ? (g->unit == UNIT_BOOT ? "within-boot noise only"
								       : "within-run noise only")
				       : be->level == EFFECT_LEVEL_BOOTS
					       ? "variation between units and within them"
					       : "within-experiment noise (shared units)"));
	/* a rough guide, in the units above (stats_samples_to_decide) */
	json_object_object_add(o, "units_to_decide",
			       g->more ? json_object_new_int64((int64_t)g->more) : NULL);
	compare_inference_text(c, g, line, sizeof(line));
	json_object_object_add(o, "note", json_object_new_string(line));
	return o;
}

static json_object *env_deltas_json(const struct env_delta *d, size_t nd)
{
	json_object *arr = json_object_new_array();
	size_t k;

	for (k = 0; k < nd; k++) {
		json_object *eo = json_object_new_object();

		json_object_object_add(eo, "key", json_object_new_string(d[k].key));
		json_object_object_add(eo, "impact",
				       json_object_new_string(env_impact_name(d[k].impact)));
		json_object_object_add(eo, "baseline",
				       d[k].a ? json_object_new_string(d[k].a) : NULL);
		json_object_object_add(eo, "value", d[k].b ? json_object_new_string(d[k].b) : NULL);
		if (d[k].change[0])
			json_object_object_add(eo, "change", json_object_new_string(d[k].change));
		json_object_array_add(arr, eo);
	}
	return arr;
}

/* A group's change against the baseline: effect, inference, verdict, evidence, environment. */
static void change_json(const struct compare *c, const struct group *g, json_object *o)
{
	json_object *arr;
	size_t k;
	char vt[320];

	compare_verdict_text(c, g, vt, sizeof(vt));
	json_object_object_add(o, "effect", render_effect_json(&g->eff, (int)g->verdict, vt));
	json_object_object_add(o, "inference", inference_json(c, g));
	if (g->unit == UNIT_PAIR) {
		json_object *pairs = json_object_new_array();

		for (k = 0; k < g->npair; k++)
			json_object_array_add(pairs, json_double(g->pair_ratio[k] - 1.0));
		json_object_object_add(o, "pairs", pairs);
	}
	json_object_object_add(o, "verdict", json_object_new_string(stats_verdict_key(g->verdict)));
	json_object_object_add(o, "verdict_text", json_object_new_string(vt));
	if (g->more && g->unit == UNIT_SAMPLE)
		json_object_object_add(o, "samples_to_decide",
				       json_object_new_int64((int64_t)g->more));
	arr = json_object_new_array();
	for (k = 0; k < g->nevc; k++) {
		const struct ev_change *x = &g->evc[k];
		json_object *eo = json_object_new_object(), *ej;

		json_object_object_add(eo, "name", json_object_new_string(x->name));
		json_object_object_add(eo, "baseline_median", json_double(x->base_median));
		json_object_object_add(eo, "median", json_double(x->median));
		/* exploratory: an interval, no verdict (doc/statistics.md) */
		ej = render_effect_json(&x->e, RENDER_NO_VERDICT, NULL);
		if (!isnan(x->p_adjusted))
			json_object_object_add(ej, "p_adjusted", json_double(x->p_adjusted));
		json_object_object_add(eo, "effect", ej);
		json_object_array_add(arr, eo);
	}
	json_object_object_add(o, "evidence", arr);
	json_object_object_add(o, "env_diff", env_deltas_json(g->envd, g->nenvd));
	/* a posted side: the keys its text did not give (null there), not differences */
	json_object_object_add(o, "env_unknown", env_deltas_json(g->unknown, g->nunknown));
	if (isfinite(g->point))
		json_object_object_add(o, "median_change", json_double(g->point));
}

/* Where a group of posted results came from (null for a measured group). */
static json_object *external_json(const struct compare *c, const struct group *g)
{
	const struct external_origin *x = &g->ext;
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	size_t k;

	if (!g->nexternal) {
		json_object_put(o);
		json_object_put(arr);
		return NULL;
	}
#define STR(s) ((s) ? json_object_new_string(s) : NULL)
	json_object_object_add(o, "tool", STR(x->tool));
	json_object_object_add(o, "version", STR(x->version));
	json_object_object_add(o, "format", STR(x->format));
	json_object_object_add(o, "args", STR(x->args));
	json_object_object_add(o, "source", STR(x->source));
	json_object_object_add(o, "profile", STR(x->profile));
	json_object_object_add(o, "cmdline", STR(x->cmdline));
#undef STR
	json_object_object_add(o, "runs", json_object_new_int64((int64_t)x->runs));
	json_object_object_add(o, "pooled", json_object_new_boolean(!g->external));
	for (k = 0; k < g->nparts; k++)
		if (c->parts[g->parts[k]].external)
			json_object_array_add(arr,
					      json_object_new_int64(c->parts[g->parts[k]].exp_id));
	json_object_object_add(o, "experiments", arr);
	json_object_object_add(o, "note", json_object_new_string(x->note));
	return o;
}

static json_object *group_json(const struct compare *c, const struct group *g)
{
	json_object *o = json_object_new_object(), *arr;
	size_t k;

	json_object_object_add(o, "value", json_object_new_string(g->value));
	json_object_object_add(o, "split", g->split ? json_object_new_string(g->split) : NULL);
	json_object_object_add(o, "title", json_object_new_string(g->title));
	json_object_object_add(o, "baseline", json_object_new_boolean(g->baseline));
	json_object_object_add(o, "external", external_json(c, g));
	arr = json_object_new_array();
	for (k = 0; k < g->nparts; k++)
		json_object_array_add(arr, json_object_new_int64(c->parts[g->parts[k]].exp_id));
	json_object_object_add(o, "experiments", arr);
	if (c->with_parts) {
		arr = json_object_new_array();
		for (k = 0; k < g->nparts; k++) {
			const struct part *pt = &c->parts[g->parts[k]];
			json_object *po = json_object_new_object();

			json_object_object_add(po, "experiment", json_object_new_int64(pt->exp_id));
			json_object_object_add(po, "config", json_object_new_string(pt->cfg_name));
			json_object_array_add(arr, po);
		}
		json_object_object_add(o, "parts", arr);
	}
	json_object_object_add(o, "n", json_object_new_int64((int64_t)g->n));
	json_object_object_add(o, "boots", json_object_new_int64((int64_t)g->nboots));
	json_object_object_add(o, "median", json_double(g->sum.median));
	if (g->sum.ci_valid) {
		arr = json_object_new_array();
		json_object_array_add(arr, json_double(g->sum.ci_lo));
		json_object_array_add(arr, json_double(g->sum.ci_hi));
		json_object_object_add(o, "median_ci", arr);
	} else {
		json_object_object_add(o, "median_ci", NULL);
	}
	json_object_object_add(o, "cv", json_double(g->sum.cv));
	json_object_object_add(o, "noisy", json_object_new_boolean(g->noisy));
	arr = json_object_new_array();
	for (k = 0; k < g->noverloaded; k++)
		json_object_array_add(arr, json_object_new_int64(g->overloaded[k]));
	json_object_object_add(o, "overloaded", arr);
	if (!g->baseline)
		change_json(c, g, o);
	return o;
}

json_object *compare_json(const struct compare *c)
{
	const struct group *base = &c->groups[c->baseline];
	json_object *root = json_object_new_object(), *groups = json_object_new_array(), *w;
	size_t i;

	json_object_object_add(root, "by", json_object_new_string(c->by_name));
	json_object_object_add(root, "workload", json_object_new_string(c->workload));
	json_object_object_add(root, "metric", json_object_new_string(c->primary->name));
	json_object_object_add(root, "better",
			       json_object_new_string(metric_better_name(c->primary->better)));
	json_object_object_add(root, "baseline", json_object_new_string(base->title));
	json_object_object_add(root, "margin", json_object_new_double(c->margin));
	json_object_object_add(root, "confidence", json_object_new_double(COMPARE_CONF));
	json_object_object_add(root, "unit_of_inference", json_object_new_string("boot"));
	for (i = 0; i < c->ngroups; i++)
		json_object_array_add(groups, group_json(c, &c->groups[i]));
	json_object_object_add(root, "groups", groups);
	w = json_object_new_array();
	for (i = 0; i < c->nwarn; i++)
		json_object_array_add(w, json_object_new_string(c->warnbuf[i]));
	json_object_object_add(root, "warnings", w);
	w = json_object_new_array();
	for (i = 0; i < c->nnotes; i++)
		json_object_array_add(w, json_object_new_string(c->notes[i]));
	json_object_object_add(root, "notes", w);
	return root;
}

void compare_release(struct compare *c)
{
	size_t i;

	for (i = 0; i < c->nparts; i++) {
		free(c->parts[i].value);
		free(c->parts[i].cfg_name);
		free(c->parts[i].ops);
		series_free(c->parts[i].ev, c->parts[i].nev);
		env_release(&c->parts[i].env);
		free(c->parts[i].signature);
		free(c->parts[i].features_rest);
		free(c->parts[i].features_debug_rest);
		free(c->parts[i].cfg_features);
		free(c->parts[i].origin);
	}
	free(c->parts);
	for (i = 0; i < c->ngroups; i++) {
		free(c->groups[i].value);
		free(c->groups[i].split);
		free(c->groups[i].title);
		free(c->groups[i].shown);
		free(c->groups[i].parts);
		free(c->groups[i].ops);
		free(c->groups[i].boot_tag);
		free(c->groups[i].exp_tag);
		series_free(c->groups[i].ev, c->groups[i].nev);
		free(c->groups[i].evc);
		free(c->groups[i].pair_ratio);
		free(c->groups[i].overloaded);
		free(c->groups[i].envd);
		free(c->groups[i].unknown);
	}
	free(c->groups);
	for (i = 0; i < c->nboots; i++)
		free(c->boots[i]);
	free(c->boots);
	for (i = 0; i < c->nwarn; i++)
		free(c->warnbuf[i]);
	free(c->warnbuf);
	for (i = 0; i < c->nnotes; i++)
		free(c->notes[i]);
	free(c->notes);
	store_experiments_free(c->exps, c->nexps);
}

static int parse_by(const char *by, struct compare *c)
{
	static const char *const names[] = { "kernel", "label", "profile", "host" };
	size_t i;

	c->by_name = by;
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(by, names[i])) {
			c->by = (enum by_key)i;
			return 0;
		}
	if (!strncmp(by, "feature:", 8) && by[8]) {
		c->by = BY_FEATURE;
		c->feature = by + 8;
		if (!strncmp(c->feature, "NO_", 3))
			c->feature += 3;
		return 0;
	}
	return -1;
}

/* Add the names of a stored feature vector to known (skipped when it is not one). */
static void add_feature_names(struct features *known, const char *vector)
{
	struct features f;
	size_t i;

	if (!vector || features_parse(vector, &f, NULL, 0))
		return;
	for (i = 0; i < f.n && known->n < FEATURES_MAX; i++)
		if (features_find(known, f.name[i]) < 0)
			memcpy(known->name[known->n++], f.name[i], FEATURE_NAME_MAX);
}

/*
 * by feature: a NAME that no matching experiment knows is a typo, not one
 * group "unknown". Exit 2 with the names the experiments have (or, when
 * none recorded any, the running kernel's). Silent when nothing is known.
 * Returns -1 when the name was refused (said on stderr).
 */
static int check_feature_name(const struct compare *c)
{
	struct features known;
	char names[FEATURES_LINE_MAX], why[512], hint[SUGGEST_HINT_MAX];
	struct suggest sg;
	size_t i;

	memset(&known, 0, sizeof(known));
	for (i = 0; i < c->nparts; i++) {
		if (strcmp(c->parts[i].value, "unknown"))
			return 0;
		add_feature_names(&known, c->parts[i].features_rest);
		add_feature_names(&known, env_get(&c->parts[i].env, "sched.features_debug"));
	}
	if (!known.n && features_read(c->debugfs, &known, why, sizeof(why)))
		return 0;
	if (!known.n)
		return 0;
	features_names(&known, names, sizeof(names));
	suggest_init(&sg, c->feature);
	for (i = 0; i < known.n; i++)
		suggest_add(&sg, known.name[i]);
	return error("compare: option '--by': no scheduler feature '%s' in the matching "
		     "experiments, allowed feature:NAME with one of: %s%s",
		     c->feature, names, suggest_hint(&sg, "feature:", hint, sizeof(hint)));
}

/* Exit 2 unless the baseline names a group; list the groups that exist. */
static int pick_baseline(struct compare *c, const char *want)
{
	size_t i, len = 1;
	char *list;

	c->baseline = 0;
	/* by default, of a value split into posted and measured results, the measured ones */
	for (i = 1; !want && c->groups[0].nexternal && i < c->ngroups; i++)
		if (!c->groups[i].nexternal && !strcmp(c->groups[i].value, c->groups[0].value)) {
			c->baseline = i;
			break;
		}
	if (!want)
		return 0;
	for (i = 0; i < c->ngroups; i++)
		if (!strcmp(c->groups[i].value, want) || !strcmp(c->groups[i].title, want)) {
			c->baseline = i;
			return 0;
		}
	for (i = 0; i < c->ngroups; i++)
		len += strlen(c->groups[i].title) + 1;
	list = xmalloc(len);
	list[0] = '\0';
	for (i = 0; i < c->ngroups; i++) {
		if (i)
			strcat(list, "|");
		strcat(list, c->groups[i].title);
	}
	error("compare: option '--baseline': no group '%s' when comparing by %s, groups %s", want,
	      c->by_name, list);
	free(list);
	return -1;
}

static void add_note(struct compare *c, char *note)
{
	c->notes = xrealloc(c->notes, (c->nnotes + 1) * sizeof(*c->notes));
	c->notes[c->nnotes++] = note;
}

/* What to know about the groups beside their numbers: noise, and work that competed. */
static void make_notes(struct compare *c)
{
	size_t i, k;

	for (i = 0; i < c->ngroups; i++)
		if (c->groups[i].noisy)
			add_note(c,
				 xasprintf("%s is noisy (coefficient of variation %.1f%% > %g%%): "
					   "more samples narrow its intervals",
					   c->groups[i].shown, c->groups[i].sum.cv * 100.0,
					   NOISY_CV * 100.0));
	for (i = 0; i < c->ngroups; i++) {
		const struct group *g = &c->groups[i];
		char ids[256] = "";

		if (!g->noverloaded)
			continue;
		for (k = 0; k < g->noverloaded; k++)
			snprintf(ids + strlen(ids), sizeof(ids) - strlen(ids), "%s%lld",
				 k ? ", " : "", (long long)g->overloaded[k]);
		add_note(c,
			 xasprintf("%s: experiment%s %s started with the load average above the "
				   "online CPUs: other work competed (wakebench env --diff shows "
				   "run.loadavg)",
				   g->shown, g->noverloaded == 1 ? "" : "s", ids));
	}
}

int compare_build(struct compare *c, struct store *st, const struct compare_request *rq)
{
	static const struct store_filter none = { 0 };
	const struct store_filter *f = rq->filter ? rq->filter : &none;
	const char *by = rq->by ? rq->by : "kernel";
	size_t i;
	int ret = EXIT_RUNTIME;

	c->st = st;
	c->margin = rq->margin > 0 ? rq->margin : COMPARE_MARGIN;
	c->only = rq->only;
	c->nonly = rq->nonly;
	c->with_parts = rq->with_parts;
	c->debugfs = rq->debugfs ? rq->debugfs : "/sys/kernel/debug";
	if (parse_by(by, c)) {
		static const char keys[] = "kernel|label|profile|host|feature:NAME";
		char hint[SUGGEST_HINT_MAX];

		error("compare: option '--by': unknown key '%s', allowed %s%s", by, keys,
		      suggest_hint_alternatives(by, keys, "", hint, sizeof(hint)));
		return EXIT_USAGE;
	}
	/* one snapshot: a run storing meanwhile must not add experiments between the lists */
	if (store_read_begin(st))
		goto out;
	if (store_list_experiments(st, f, &c->exps, &c->nexps) ||
	    store_foreach_sample(st, f, STORE_ROWS_STATS, collect_row, c)) {
		store_read_end(st);
		goto out;
	}
	store_read_end(st);
	if (!c->nparts) {
		error("compare: no stored samples with status ok match (%zu experiment%s matched "
		      "the "
		      "filters)",
		      c->nexps, c->nexps == 1 ? "" : "s");
		goto out;
	}
	/* one workload: the primary metrics of different workloads are not comparable */
	c->workload = c->exps[c->parts[0].exp_index].workload;
	for (i = 1; i < c->nparts; i++)
		if (strcmp(c->exps[c->parts[i].exp_index].workload, c->workload)) {
			error("compare: the matching experiments ran several workloads ('%s', "
			      "'%s'): "
			      "choose one with --workload",
			      c->workload, c->exps[c->parts[i].exp_index].workload);
			ret = EXIT_USAGE;
			goto out;
		}
	c->primary = metric_primary(c->workload);
	/* a neutral primary is judged as higher-is-better (stats_verdict) */
	c->better = c->primary->better;
	metric_title(c->primary, c->workload, c->what, sizeof(c->what));
	if (c->by == BY_FEATURE && check_feature_name(c)) {
		ret = EXIT_USAGE;
		goto out;
	}
	form_groups(c, rq->pool);
	if (pick_baseline(c, rq->baseline)) {
		ret = EXIT_USAGE;
		goto out;
	}
	/* the baseline first, the others in order */
	if (c->baseline) {
		struct group b = c->groups[c->baseline];

		memmove(&c->groups[1], &c->groups[0], c->baseline * sizeof(*c->groups));
		c->groups[0] = b;
		c->baseline = 0;
	}
	analyse(c);
	make_notes(c);
	for (i = 0; i < c->nwarn; i++)
		warning("compare: %s", c->warnbuf[i]);
	return EXIT_OK;
out:
	return ret;
}

int compare_document(struct store *st, const struct compare_request *rq, json_object **out)
{
	struct compare_request r = *rq;
	struct compare c = { 0 };
	int ret;

	*out = NULL;
	r.with_parts = true;
	ret = compare_build(&c, st, &r);
	if (ret == EXIT_OK)
		*out = compare_json(&c);
	compare_release(&c);
	return ret;
}
