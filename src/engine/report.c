/*
 * report.c: what a report holds besides compare's document (report.h): the
 * stored samples of each group (the primary metric in run order, the
 * evidence metrics), the experiments and the metrics' labels and
 * directions.
 *
 * A group's samples are those of its parts (experiment and config, from
 * the document), read with the same rows compare reads (status ok, no
 * warm-ups) inside the caller's read snapshot, so that a group's points
 * are exactly the samples its statistics were computed from: the count is
 * checked against the document's n.
 */
#include "engine/report.h"
#include "core/metrics.h"
#include "engine/bisect.h"
#include "engine/compare.h"
#include "engine/export.h"
#include "engine/repro.h"
#include "util/text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *jstr_at(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : NULL;
}

/* A part of a group: the samples of one experiment's config. */
struct part_key {
	int64_t exp_id;
	const char *config;
	size_t group;
};

struct load {
	struct rep *r;
	struct part_key *parts;
	size_t nparts;
	size_t last; /* the part of the previous row: rows come by experiment */
};

/*
 * The slot of experiment id in r->exps (r->nexps when not listed). The
 * list is by start time, which is not the order of the ids once older
 * experiments were imported: r->by_id holds the slots in id order.
 */
static size_t exp_slot(const struct rep *r, int64_t id)
{
	size_t lo = 0, hi = r->nexps;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (r->exps[r->by_id[mid]].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nexps && r->exps[r->by_id[lo]].id == id ? r->by_id[lo] : r->nexps;
}

struct id_slot {
	int64_t id;
	size_t slot;
};

static int id_slot_cmp(const void *pa, const void *pb)
{
	const struct id_slot *a = pa, *b = pb;

	return a->id < b->id ? -1 : a->id > b->id;
}

static void index_by_id(struct rep *r)
{
	struct id_slot *v = xcalloc(r->nexps + 1, sizeof(*v));
	size_t i;

	for (i = 0; i < r->nexps; i++)
		v[i] = (struct id_slot){ r->exps[i].id, i };
	qsort(v, r->nexps, sizeof(*v), id_slot_cmp);
	r->by_id = xcalloc(r->nexps + 1, sizeof(*r->by_id));
	for (i = 0; i < r->nexps; i++)
		r->by_id[i] = v[i].slot;
	free(v);
}

static struct rep_series *series_get(struct rep_group *g, const char *name, int better)
{
	size_t i;

	for (i = 0; i < g->nev; i++)
		if (!strcmp(g->ev[i].name, name))
			return &g->ev[i];
	g->ev = xrealloc(g->ev, (g->nev + 1) * sizeof(*g->ev));
	memset(&g->ev[g->nev], 0, sizeof(*g->ev));
	g->ev[g->nev].name = xstrdup(name);
	g->ev[g->nev].better = better;
	return &g->ev[g->nev++];
}

static void note_evidence(struct rep *r, const char *name, int better)
{
	size_t i;

	for (i = 0; i < r->nev; i++)
		if (!strcmp(r->ev[i].name, name))
			return;
	r->ev = xrealloc(r->ev, (r->nev + 1) * sizeof(*r->ev));
	/* the name lives in the groups' series, which outlive r->ev */
	rep_metric(name, r->workload, better, &r->ev[r->nev++]);
}

static int load_row(void *arg, const struct store_row *row)
{
	struct load *l = arg;
	struct rep *r = l->r;
	const char *cfg = row->cfg && row->cfg->name ? row->cfg->name : "default";
	struct part_key *p = l->nparts ? &l->parts[l->last] : NULL;
	struct rep_group *g;
	struct rep_point *pt;
	double v;
	size_t i;

	if (!p || p->exp_id != row->exp->id || strcmp(p->config, cfg)) {
		for (i = 0; i < l->nparts; i++)
			if (l->parts[i].exp_id == row->exp->id && !strcmp(l->parts[i].config, cfg))
				break;
		if (i == l->nparts)
			return 0; /* not in any group (another workload, or filtered) */
		l->last = i;
		p = &l->parts[i];
	}
	g = &r->g[p->group];
	if (!sample_value(row->s, r->primary.name, &v))
		return 0;
	if (g->npts == g->alloc) {
		g->alloc = g->alloc ? 2 * g->alloc : 64;
		g->pts = xrealloc(g->pts, g->alloc * sizeof(*g->pts));
	}
	pt = &g->pts[g->npts++];
	pt->v = v;
	pt->t_ns = row->s->start_realtime_ns;
	pt->index = row->s->index;
	pt->exp = (uint32_t)exp_slot(r, row->exp->id);
	if (pt->exp < r->nexps)
		r->exp_n[pt->exp]++;
	for (i = 0; i < row->s->nmetrics; i++) {
		const struct metric *m = &row->s->metrics[i];
		struct rep_series *s;

		if (!(m->flags & METRIC_EVIDENCE) || !m->available)
			continue;
		s = series_get(g, m->name, m->better);
		if (s->n == s->alloc) {
			s->alloc = s->alloc ? 2 * s->alloc : 64;
			s->v = xrealloc(s->v, s->alloc * sizeof(*s->v));
		}
		s->v[s->n++] = m->value;
	}
	r->nsamples++;
	return 0;
}

static int point_time_cmp(const void *pa, const void *pb)
{
	const struct rep_point *a = pa, *b = pb;

	if (a->t_ns != b->t_ns)
		return a->t_ns < b->t_ns ? -1 : 1;
	if (a->exp != b->exp)
		return a->exp < b->exp ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/* ---- an ab's arms, the baseline's machine, the reproducers ---- */

/*
 * The arm of group g as its ab names it, when all its parts are one
 * config of ab experiments: "A: DELAY_DEQUEUE=on" for each experiment's
 * first config, "B: ..." for its second (NULL otherwise).
 */
static char *arm_of(const struct rep *r, const struct part_key *parts, size_t nparts, size_t g,
		    const struct store_config *cfgs, size_t ncfg)
{
	const char *name = NULL;
	int letter = 0;
	size_t i, k;

	for (i = 0; i < nparts; i++) {
		const struct part_key *p = &parts[i];
		size_t slot = exp_slot(r, p->exp_id), idx = 0;
		int l = 0;

		if (p->group != g)
			continue;
		if (slot == r->nexps || strcmp(r->exps[slot].kind, "ab") ||
		    strchr(p->config, ',') || !strchr(p->config, '=') ||
		    (name && strcmp(name, p->config)))
			return NULL;
		name = p->config;
		for (k = 0; k < ncfg; k++) {
			if (cfgs[k].exp_id != p->exp_id)
				continue;
			if (cfgs[k].name && !strcmp(cfgs[k].name, p->config))
				l = idx == 0 ? 'A' : idx == 1 ? 'B' : 0;
			idx++;
		}
		if (!l || (letter && l != letter))
			return NULL;
		letter = l;
	}
	return name ? xasprintf("%c: %s", letter, name) : NULL;
}

/* In a report by feature of two groups that are an ab's arms, name them as ab does. */
static int name_arms(struct store *st, struct rep *r, const struct part_key *parts, size_t nparts)
{
	struct store_filter all = { 0 };
	struct store_config *cfgs;
	size_t ncfg, i;

	for (i = 0; i < r->ng; i++)
		r->g[i].name = r->g[i].title ? r->g[i].title : "";
	if (strncmp(r->by, "feature:", 8) || r->ng != 2)
		return 0;
	if (store_list_configs(st, &all, &cfgs, &ncfg))
		return -1;
	for (i = 0; i < r->ng; i++)
		r->g[i].arm = arm_of(r, parts, nparts, i, cfgs, ncfg);
	store_configs_free(cfgs, ncfg);
	if (!r->g[0].arm || !r->g[1].arm || r->g[0].arm[0] == r->g[1].arm[0]) {
		for (i = 0; i < r->ng; i++) {
			free(r->g[i].arm);
			r->g[i].arm = NULL;
		}
		return 0;
	}
	r->ab = true;
	for (i = 0; i < r->ng; i++)
		r->g[i].name = r->g[i].arm;
	return 0;
}

/* The median of experiment slot's samples in the report (NAN when none). */
static double exp_median(const struct rep *r, size_t slot)
{
	double *v = xmalloc((r->exp_n[slot] + 1) * sizeof(*v)), m = NAN;
	size_t n = 0, i, k;

	for (i = 0; i < r->ng; i++)
		for (k = 0; k < r->g[i].npts; k++)
			if (r->g[i].pts[k].exp == slot && n < r->exp_n[slot])
				v[n++] = r->g[i].pts[k].v;
	if (n) {
		for (i = 1; i < n; i++)
			for (k = i; k > 0 && v[k - 1] > v[k]; k--) {
				double t = v[k];

				v[k] = v[k - 1];
				v[k - 1] = t;
			}
		m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	}
	free(v);
	return m;
}

/* A posted result: kind "external", or a fingerprint that names the tool (as compare has it). */
static bool is_posted(const struct store_experiment *e, const struct env *env)
{
	return !strcmp(e->kind, "external") || env_get(env, "external.tool");
}

/*
 * What reproduces a posted result here: `wakebench run` with the workload,
 * profile and parameters its import stored (malloc'd, one line of sh).
 */
static char *posted_run(const struct store_experiment *e)
{
	struct strlist a = bisect_args_from_params(e->params_json ? e->params_json : "{}");
	const char **w = xcalloc(a.n + 6, sizeof(*w));
	bool profile = false;
	size_t n = 0, i;
	char *cmd;

	w[n++] = "wakebench";
	w[n++] = "run";
	if ((!a.n || strcmp(a.v[0], e->workload)) && e->workload)
		w[n++] = e->workload;
	for (i = 0; i < a.n; i++) {
		profile |= !strcmp(a.v[i], "--profile");
		w[n++] = a.v[i];
	}
	if (!profile && e->profile) {
		w[n++] = "--profile";
		w[n++] = e->profile;
	}
	cmd = sh_command(w, n);
	free(w);
	bisect_strlist_free(&a);
	return cmd;
}

/* The report's entry for posted result slot i, in group g. */
static void add_posted(struct rep *r, size_t i, size_t g, const struct env *env)
{
	struct rep_posted *p;
	const char *v;

	r->posted = xrealloc(r->posted, (r->nposted + 1) * sizeof(*r->posted));
	p = &r->posted[r->nposted++];
	memset(p, 0, sizeof(*p));
	p->exp = i;
	p->group = g;
#define DUP(k) ((v = env_get(env, k)) ? xstrdup(v) : NULL)
	p->tool = DUP("external.tool");
	p->version = DUP("external.version");
	p->format = DUP("external.format");
	p->args = DUP("external.args");
	p->source = DUP("external.source");
#undef DUP
	compare_posted_note(p->tool, p->version, r->exp_n[i], false, p->note, sizeof(p->note));
}

/* The group experiment slot i's samples are in. */
static size_t group_of_exp(const struct rep *r, const struct part_key *parts, size_t nparts,
			   size_t i)
{
	size_t k;

	for (k = 0; k < nparts; k++)
		if (parts[k].exp_id == r->exps[i].id)
			return parts[k].group;
	return 0;
}

/*
 * Experiment slot i's reproducer: its command, or for a vm guest's the
 * host's vm command (vm.host_cmdline), and another tool's equivalent; for
 * a posted result, the run that reproduces it here and the posted command.
 */
static int repro_of(struct store *st, struct rep *r, size_t i, size_t g, struct rep_repro *out)
{
	const struct store_experiment *e = &r->exps[i];
	struct env env = { 0 };
	const char *host;
	double median = NAN;

	if (store_load_env(st, e->id, "start", &env)) {
		env_release(&env);
		return -1;
	}
	if (is_posted(e, &env)) {
		add_posted(r, i, g, &env);
		out->cmd = posted_run(e);
		if (e->cmdline) {
			out->equiv = xstrdup(e->cmdline);
			out->equiv_note =
				xasprintf("as posted: %s", r->posted[r->nposted - 1].note);
		}
		env_release(&env);
		return 0;
	}
	host = env_get(&env, "vm.host_cmdline");
	out->cmd = host || e->cmdline ? repro_command(host ? host : e->cmdline, false) : NULL;
	/* a fixed-count tool's count comes from the measured rate */
	if (r->primary.name && !strcmp(r->primary.name, "ops_per_s"))
		median = exp_median(r, i);
	out->equiv = repro_equivalent(e, median, &out->equiv_note);
	if (out->equiv && host) {
		char *n = xasprintf("inside each guest, %s", out->equiv_note);

		free(out->equiv_note);
		out->equiv_note = n;
	}
	env_release(&env);
	return 0;
}

static bool same_str(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/* One reproducer per distinct command: a vm command's rounds share one. */
static int load_repro(struct store *st, struct rep *r, const struct part_key *parts, size_t nparts)
{
	size_t i, k;

	for (i = 0; i < r->nexps; i++) {
		struct rep_repro one = { 0 }, *rp = NULL;

		if (!r->exp_n[i])
			continue;
		if (repro_of(st, r, i, group_of_exp(r, parts, nparts, i), &one))
			return -1;
		for (k = 0; k < r->nrepro && !rp; k++)
			if (one.cmd && same_str(one.cmd, r->repro[k].cmd) &&
			    same_str(one.equiv, r->repro[k].equiv) &&
			    same_str(one.equiv_note, r->repro[k].equiv_note))
				rp = &r->repro[k];
		if (rp) {
			free(one.cmd);
			free(one.equiv);
			free(one.equiv_note);
		} else {
			r->repro = xrealloc(r->repro, (r->nrepro + 1) * sizeof(*r->repro));
			rp = &r->repro[r->nrepro++];
			*rp = one;
		}
		rp->exps = xrealloc(rp->exps, (rp->n + 1) * sizeof(*rp->exps));
		rp->exps[rp->n++] = i;
	}
	if (r->cmdline)
		r->report_cmd = repro_command(r->cmdline, true);
	return 0;
}

/* The baseline's machine: the first experiment of the baseline group. */
static int load_machine(struct store *st, struct rep *r, const struct part_key *parts,
			size_t nparts)
{
	size_t i;

	for (i = 0; i < nparts; i++)
		if (parts[i].group == 0) {
			r->machine_exp = parts[i].exp_id;
			return store_load_env(st, parts[i].exp_id, "start", &r->machine);
		}
	return 0;
}

int rep_load(struct store *st, json_object *doc, const struct store_filter *f, struct rep *r)
{
	struct load l = { .r = r };
	json_object *groups, *v;
	struct store_filter all = { 0 };
	const char *metric, *better;
	size_t i, k;
	int ret = -1;

	r->doc = doc;
	r->by = jstr_at(doc, "by");
	r->workload = jstr_at(doc, "workload");
	metric = jstr_at(doc, "metric");
	r->margin = rep_num(doc, "margin");
	r->conf = rep_num(doc, "confidence");
	if (!r->by || !r->workload || !metric || !json_object_object_get_ex(doc, "groups", &groups))
		return error("report: compare's document lacks by, workload, metric or groups");
	/* compare's direction for its metric (a neutral one is judged as higher is better) */
	better = jstr_at(doc, "better");
	rep_metric(metric, r->workload,
		   better && !strcmp(better, "lower") ? BETTER_LOWER : BETTER_HIGHER, &r->primary);
	r->ng = json_object_array_length(groups);
	r->g = xcalloc(r->ng ? r->ng : 1, sizeof(*r->g));
	for (i = 0; i < r->ng; i++) {
		struct rep_group *g = &r->g[i];
		json_object *parts;

		g->j = json_object_array_get_idx(groups, i);
		g->title = jstr_at(g->j, "title");
		g->baseline = json_object_object_get_ex(g->j, "baseline", &v) &&
			      json_object_get_boolean(v);
		if (!json_object_object_get_ex(g->j, "parts", &parts)) {
			error("report: compare's document has no parts for group '%s'",
			      g->title ? g->title : "?");
			goto out;
		}
		for (k = 0; k < json_object_array_length(parts); k++) {
			json_object *p = json_object_array_get_idx(parts, k), *e, *c;

			if (!json_object_object_get_ex(p, "experiment", &e) ||
			    !json_object_object_get_ex(p, "config", &c)) {
				error("report: a part of group '%s' lacks its experiment or config",
				      g->title ? g->title : "?");
				goto out;
			}
			l.parts = xrealloc(l.parts, (l.nparts + 1) * sizeof(*l.parts));
			l.parts[l.nparts].exp_id = json_object_get_int64(e);
			l.parts[l.nparts].config = json_object_get_string(c);
			l.parts[l.nparts++].group = i;
		}
	}
	if (store_list_experiments(st, f ? f : &all, &r->exps, &r->nexps) ||
	    (r->exp_n = xcalloc(r->nexps + 1, sizeof(*r->exp_n)), index_by_id(r),
	     store_foreach_sample(st, f ? f : &all, STORE_ROWS_STATS, load_row, &l)))
		goto out;
	for (i = 0; i < r->ng; i++) {
		struct rep_group *g = &r->g[i];
		double n = rep_num(g->j, "n");

		/* the points are the samples compare summarised, or the report would mislead */
		if ((double)g->npts != n) {
			error("report: group '%s' has %zu stored samples where compare counted "
			      "%.0f "
			      "(the store changed meanwhile?)",
			      g->title ? g->title : "?", g->npts, n);
			goto out;
		}
		qsort(g->pts, g->npts, sizeof(*g->pts), point_time_cmp);
		for (k = 0; k < g->nev; k++)
			note_evidence(r, g->ev[k].name, g->ev[k].better);
	}
	if (name_arms(st, r, l.parts, l.nparts) || load_machine(st, r, l.parts, l.nparts) ||
	    load_repro(st, r, l.parts, l.nparts))
		goto out;
	ret = 0;
out:
	free(l.parts);
	return ret;
}

void rep_release(struct rep *r)
{
	size_t i, k;

	for (i = 0; i < r->nrepro; i++) {
		free(r->repro[i].cmd);
		free(r->repro[i].equiv);
		free(r->repro[i].equiv_note);
		free(r->repro[i].exps);
	}
	free(r->repro);
	for (i = 0; i < r->nposted; i++) {
		free(r->posted[i].tool);
		free(r->posted[i].version);
		free(r->posted[i].format);
		free(r->posted[i].args);
		free(r->posted[i].source);
	}
	free(r->posted);
	free(r->report_cmd);
	env_release(&r->machine);
	for (i = 0; i < r->ng; i++) {
		free(r->g[i].arm);
		free(r->g[i].pts);
		for (k = 0; k < r->g[i].nev; k++) {
			free(r->g[i].ev[k].name);
			free(r->g[i].ev[k].v);
		}
		free(r->g[i].ev);
	}
	free(r->g);
	free(r->ev);
	store_experiments_free(r->exps, r->nexps);
	free(r->exp_n);
	free(r->by_id);
	sbuf_release(&r->data);
	free(r->data_why);
	if (r->doc)
		json_object_put(r->doc);
	memset(r, 0, sizeof(*r));
}

/* ---- grouping of explicit experiments ---- */

/* The feature an `ab` experiment toggles: its first config's name up to '='. */
static char *ab_feature(struct store *st, int64_t exp_id)
{
	struct store_filter f = { .exp_id = exp_id };
	struct store_config *cfgs;
	size_t n;
	char *name = NULL;

	if (store_list_configs(st, &f, &cfgs, &n))
		return NULL;
	if (n && cfgs[0].name && strchr(cfgs[0].name, '='))
		name = xasprintf("feature:%.*s", (int)strcspn(cfgs[0].name, "=,"), cfgs[0].name);
	store_configs_free(cfgs, n);
	return name;
}

static bool differ(const char *a, const char *b)
{
	return (a == NULL) != (b == NULL) || (a && strcmp(a, b));
}

/* What sets the experiments apart, as a --by key (malloc'd). */
char *rep_auto_by(struct store *st, const int64_t *ids, size_t n)
{
	struct store_experiment *all, *first = NULL;
	bool all_ab = true, kernel = false, label = false, host = false;
	size_t nall, i, k;
	char *by = NULL;

	if (store_list_experiments(st, NULL, &all, &nall))
		return xstrdup("kernel");
	for (i = 0; i < n; i++)
		for (k = 0; k < nall; k++) {
			const struct store_experiment *e = &all[k];

			if (e->id != ids[i])
				continue;
			all_ab &= !strcmp(e->kind, "ab");
			if (!first)
				first = &all[k];
			kernel |= differ(e->kernel, first->kernel);
			label |= differ(e->label, first->label);
			host |= differ(e->host, first->host);
		}
	if (all_ab && n)
		by = ab_feature(st, ids[0]);
	if (!by)
		by = xstrdup(kernel ? "kernel" : label ? "label" : host ? "host" : "kernel");
	store_experiments_free(all, nall);
	return by;
}

char *rep_default_by(struct store *st, const struct store_filter *f)
{
	struct store_filter all = { 0 };
	struct store_experiment *exps;
	size_t n, i;
	char *by = NULL, *first = NULL;

	if (store_list_experiments(st, f ? f : &all, &exps, &n))
		return NULL;
	for (i = 0; i < n; i++) {
		char *feat;

		if (strcmp(exps[i].kind, "ab") || !(feat = ab_feature(st, exps[i].id)))
			break;
		if (first && strcmp(first, feat)) {
			free(feat);
			break;
		}
		if (!first)
			first = feat;
		else
			free(feat);
	}
	if (n && i == n)
		by = first;
	else
		free(first);
	store_experiments_free(exps, n);
	return by;
}

/* ---- the raw data: export's document ---- */

static int capture_export(struct store *st, const struct store_experiment *exps, size_t n,
			  struct sbuf *doc)
{
	struct store_config *cfgs = NULL;
	struct store_filter all = { 0 };
	size_t ncfg = 0, got;
	FILE *tmp = tmpfile();
	char buf[65536];
	int ret = -1;

	if (!tmp)
		return error_errno("report: cannot create a temporary file for the raw data");
	if (store_list_configs(st, &all, &cfgs, &ncfg))
		goto out;
	ret = export_json(tmp, st, exps, n, cfgs, ncfg);
	if (!ret && (fflush(tmp) || ferror(tmp)))
		ret = error_errno("report: cannot write the raw data to a temporary file");
	if (ret)
		goto out;
	rewind(tmp);
	while ((got = fread(buf, 1, sizeof(buf), tmp)) > 0)
		sbuf_add(doc, buf, got);
	if (ferror(tmp))
		ret = error_errno("report: cannot read the raw data back");
out:
	fclose(tmp);
	store_configs_free(cfgs, ncfg);
	return ret;
}

/*
 * With a limit and many experiments, the size of the encoded data is
 * first estimated from the first experiment's (per stored sample), so that
 * a report far over the limit does not export and compress everything
 * only to leave it out. Returns the estimate, 0 when there is none.
 */
static size_t estimate_encoded(struct store *st, const struct store_experiment *exps, size_t n)
{
	struct sbuf one = { 0 }, enc = { 0 };
	size_t i, total = 0, bytes = 0, est = 0;

	for (i = 0; i < n; i++)
		total += exps[i].nsamples > 0 ? (size_t)exps[i].nsamples : 0;
	if (n < 4 || exps[0].nsamples <= 0 || (size_t)exps[0].nsamples * 4 > total)
		return 0;
	if (!capture_export(st, exps, 1, &one) &&
	    !embed_write(&enc, one.buf ? one.buf : "", one.len, 0, &bytes))
		est = (size_t)((double)bytes / (double)exps[0].nsamples * (double)total);
	sbuf_release(&one);
	sbuf_release(&enc);
	return est;
}

void rep_embed_data(struct store *st, struct rep *r, bool no_data, uint64_t data_limit, int *ret)
{
	struct store_experiment *shown = xcalloc(r->nexps + 1, sizeof(*shown));
	struct sbuf doc = { 0 };
	size_t encoded = 0, n = 0, i, est = 0;
	char limit[32], size[32];

	if (no_data) {
		r->data_why = xstrdup("--no-data was given; 'wakebench export' writes the data");
		free(shown);
		return;
	}
	for (i = 0; i < r->nexps; i++)
		if (r->exp_n[i])
			shown[n++] = r->exps[i]; /* borrowed: never freed from here */
	format_size(data_limit, limit, sizeof(limit));
	/* far over the limit (a fifth more than it, estimated): not exported at all */
	if (data_limit)
		est = estimate_encoded(st, shown, n);
	if (est > data_limit / 5 * 6) {
		snprintf(size, sizeof(size), "%.1f MB", (double)est / 1e6);
		r->data_why =
			xasprintf("encoded, the raw data would take about %s (estimated from "
				  "its first experiment), more than --data-limit %s; "
				  "'wakebench export' with the same filters writes it, or raise "
				  "--data-limit (0: no limit)",
				  size, limit);
		warning("report: the raw data is not embedded: about %s, more than --data-limit %s "
			"(--data-limit 0 embeds it whatever its size)",
			size, limit);
	} else if (capture_export(st, shown, n, &doc)) {
		*ret = EXIT_RUNTIME;
	} else if (embed_write(&r->data, doc.buf ? doc.buf : "", doc.len, (size_t)data_limit,
			       &encoded)) {
		r->data_why = xasprintf("encoded, the raw data (%zu bytes of JSON) would exceed "
					"--data-limit %s; 'wakebench export' with the same filters "
					"writes it, or raise --data-limit (0: no limit)",
					doc.len, limit);
		warning("report: the raw data is not embedded: it would exceed --data-limit %s "
			"(--data-limit 0 embeds it whatever its size)",
			limit);
	}
	sbuf_release(&doc);
	free(shown);
}

/* ---- output ---- */
