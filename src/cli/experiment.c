/*
 * experiment.c: the lifecycle of an experiment shared by `run` and `ab`
 * (see experiment.h). It owns what makes a stored result trustworthy later:
 * the exact parameters after the profile was applied, whether the profile
 * was overridden ("custom (based on ...)"), the command line, and the
 * environment at both ends; and it commits each sample as it completes.
 */
#include "cli/experiment.h"
#include "engine/summary.h"
#include "render/results.h"
#include "core/metrics.h"
#include "util/suggest.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* ---- choosing the workload ---- */

static const struct opt *find_short(const struct opt *t, int c)
{
	for (; t->type != OPT_END; t++)
		if (t->short_name == c)
			return t;
	return NULL;
}

/* Find an option in any of the tables; NULL when none has it. */
static const struct opt *find_any(const struct opt *const *tables, size_t n, const char *lname,
				  int sname)
{
	const struct opt *o;
	size_t i;

	for (i = 0; i < n; i++) {
		o = lname ? opts_find(tables[i], lname) : find_short(tables[i], sname);
		if (o)
			return o;
	}
	return NULL;
}

static void die_unknown_workload(const char *cmd, const char *name)
{
	char list[512] = "", hint[SUGGEST_HINT_MAX];
	struct suggest sg;
	size_t used = 0, i;

	suggest_init(&sg, name);
	for (i = 0; workloads[i]; i++) {
		int w = snprintf(list + used, sizeof(list) - used, "%s%s", i ? "|" : "",
				 workloads[i]->name);

		suggest_add(&sg, workloads[i]->name);
		if (w < 0 || (size_t)w >= sizeof(list) - used)
			break;
		used += (size_t)w;
	}
	die_usage("%s: unknown workload '%s', allowed %s%s", cmd, name, list,
		  suggest_hint(&sg, "", hint, sizeof(hint)));
}

/* The workload's primary metric: its unit as tables show it, its name and direction. */
static void experiment_json_primary(const char *workload, json_object *o)
{
	const struct metric_def *p = metric_primary(workload);
	char unit[64];

	json_object_object_add(
		o, "unit", json_object_new_string(metric_unit(p, workload, unit, sizeof(unit))));
	json_object_object_add(o, "primary", json_object_new_string(p->name));
	json_object_object_add(o, "better", json_object_new_string(metric_better_name(p->better)));
}

void experiment_json_provenance(const struct experiment *ex, json_object *o)
{
	json_object_object_add(o, "version", json_object_new_string(WAKEBENCH_VERSION));
	json_object_object_add(o, "command", ex->kind ? json_object_new_string(ex->kind) : NULL);
	json_object_object_add(o, "cmdline",
			       ex->cmdline ? json_object_new_string(ex->cmdline) : NULL);
	json_object_object_add(o, "workload", json_object_new_string(ex->wl->name));
	experiment_json_primary(ex->wl->name, o);
	json_object_object_add(o, "profile",
			       ex->profile ? json_object_new_string(ex->profile) : NULL);
}

void experiment_spec(const char *cmd, const struct workload *wl, const void *wl_params,
		     const struct run_params *rp, struct run_spec *spec)
{
	char err[512];

	memset(spec, 0, sizeof(*spec));
	spec->wl = wl;
	spec->wl_params = wl_params;
	spec->rp = rp;
	if (wl->check && wl->check(wl_params, rp, err, sizeof(err)))
		die_usage("%s: %s", cmd, err);
	if (runner_check(spec, err, sizeof(err)))
		die_usage("%s: %s", cmd, err);
}

void experiment_runner_defaults(const struct workload *wl, struct run_params *rp)
{
	*rp = runner_defaults;
	if (wl->default_instances)
		rp->instances = wl->default_instances;
	if (wl->default_duration_ns)
		rp->duration_ns = wl->default_duration_ns;
}

const struct workload *experiment_pick_workload(const char *cmd, struct opt_group *groups,
						size_t ngroups, int argc, const char **argv)
{
	const struct opt **tables;
	const struct workload *wl;
	struct experiment_opts eo;
	struct opt_group eg;
	const char *name = NULL;
	size_t n = 0, i;
	int a;

	for (i = 0; workloads[i]; i++)
		n++;
	tables = xcalloc(ngroups + n + 1, sizeof(*tables));
	for (i = 0; i < ngroups; i++)
		tables[i] = groups[i].opts;
	for (i = 0; i < n; i++)
		tables[ngroups + i] = workloads[i]->opts;
	eg = experiment_opts_group(&eo, NULL);
	tables[ngroups + n] = eg.opts;

	/*
	 * The first positional argument, skipping option values; the whole
	 * line is read for stress-ng's options. An unknown option ends the
	 * search: what follows it may be its value, not a workload (the
	 * parser then names the option).
	 */
	for (a = 0; a < argc; a++) {
		const char *arg = argv[a];
		const struct opt *o;

		if (!strcmp(arg, "--")) {
			if (!name && a + 1 < argc)
				name = argv[a + 1];
			break;
		}
		if (arg[0] != '-' || !arg[1]) {
			if (!name)
				name = arg;
			continue;
		}
		if (!strcmp(arg, "-h") || !strcmp(arg, "--help"))
			continue;
		if (arg[1] == '-') {
			char lname[128];
			const char *eq = strchr(arg + 2, '=');
			size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);

			if (len >= sizeof(lname))
				break;
			memcpy(lname, arg + 2, len);
			lname[len] = '\0';
			o = find_any(tables, ngroups + n + 1, lname, 0);
			if (!o || !strcmp(lname, "pipe"))
				experiment_check_habit(cmd, tables, ngroups + n + 1, argc, argv, a);
			if (eq && o)
				continue;
		} else {
			o = find_any(tables, ngroups + n + 1, NULL, (unsigned char)arg[1]);
			if (arg[2] && o)
				continue;
		}
		if (!o)
			break;
		if (opts_takes_value(o))
			a++;
	}
	free(tables);

	if (!name)
		name = EXPERIMENT_DEFAULT_WORKLOAD;
	wl = workload_find(name);
	if (!wl)
		die_unknown_workload(cmd, name);
	return wl;
}

/* ---- --profile and --label ---- */

struct opt_group experiment_opts_group(struct experiment_opts *eo, const struct workload *wl)
{
	struct opt_group g;

	memset(eo, 0, sizeof(*eo));
	eo->defaults.profile = wl ? wl->default_profile : NULL;
	eo->table[0] = (struct opt){
		.type = OPT_STRING,
		.long_name = "profile",
		.offset = offsetof(struct experiment_values, profile),
		.argh = "NAME",
		.help = "named parameter set reproducing a reference exactly, or TOOL-VERSION "
			"for a release one covers (stress-ng-0.18.12); see 'wakebench list'",
	};
	eo->table[1] = (struct opt){
		.type = OPT_STRING,
		.long_name = "label",
		.offset = offsetof(struct experiment_values, label),
		.argh = "TEXT",
		.help = "free text stored with the experiment (compare --by label)",
	};
	eo->table[2] = (struct opt)OPT_END_ROW;
	eo->v = eo->defaults;
	memset(&g, 0, sizeof(g));
	g.title = "experiment options";
	g.opts = eo->table;
	g.base = &eo->v;
	g.defaults = &eo->defaults;
	return g;
}

/* "stress-ng-0.15|stress-ng-0.16 or stress-ng-X.Y.Z for 0.15.00..0.22.00" */
static void profiles_allowed(const struct workload *wl, char *buf, size_t len)
{
	const struct profile *p;
	const char *tools[8];
	size_t used = 0, ntools = 0, t;

	buf[0] = '\0';
	for (p = wl->profiles; p && p->name && used < len; p++) {
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "|" : "", p->name);
		for (t = 0; t < ntools && strcmp(tools[t], p->tool ? p->tool : ""); t++)
			;
		if (p->tool && p->first && t == ntools && ntools < ARRAY_SIZE(tools))
			tools[ntools++] = p->tool;
	}
	for (t = 0; t < ntools && used < len; t++) {
		char range[64];

		workload_tool_range(wl, tools[t], range, sizeof(range));
		used += (size_t)snprintf(buf + used, len - used, "%s%s-X.Y.Z for %s",
					 t ? ", " : " or ", tools[t], range);
	}
	if (!buf[0])
		snprintf(buf, len, "none (%s has no profiles)", wl->name);
}

void experiment_profile_check(const char *cmd, const struct workload *wl,
			      struct experiment_opts *eo)
{
	const struct profile *p;
	const char *version;

	eo->release[0] = '\0';
	if (!eo->v.profile)
		return;
	p = workload_profile_resolve(wl, eo->v.profile, &version);
	if (!p) {
		const char *names[64];
		char allowed[512], hint[SUGGEST_HINT_MAX] = "";
		size_t n = 0;

		for (p = wl->profiles; p && p->name && n + 1 < ARRAY_SIZE(names); p++)
			names[n++] = p->name;
		names[n] = NULL;
		profiles_allowed(wl, allowed, sizeof(allowed));
		suggest_hint_list(eo->v.profile, names, "", hint, sizeof(hint));
		die_usage("%s: option '--profile': unknown value '%s', allowed %s%s", cmd,
			  eo->v.profile, allowed, hint);
	}
	if (!version)
		return;
	/* stress-ng's releases are X.YY.ZZ: "0.21" is 0.21.00 */
	snprintf(eo->release, sizeof(eo->release), "%s%s", version,
		 strchr(version, '.') && !strchr(strchr(version, '.') + 1, '.') ? ".00" : "");
	info("profile: %s %s runs as %s (%s %s..%s)", p->tool, eo->release, p->name, p->tool,
	     p->first, p->last);
}

static bool field_differs(const struct opt *o, const void *a, const void *b)
{
	const char *pa = (const char *)a + o->offset, *pb = (const char *)b + o->offset;

	if (o->type == OPT_STRING) {
		const char *sa = *(const char *const *)(const void *)pa;
		const char *sb = *(const char *const *)(const void *)pb;

		if (!sa || !sb)
			return sa != sb;
		return strcmp(sa, sb) != 0;
	}
	return memcmp(pa, pb, opt_field_size(o->type)) != 0;
}

void experiment_resolve(const struct workload *wl, const struct experiment_opts *eo,
			const struct opt_group *wl_group, void *params, char *label,
			size_t labellen, const char **base_profile)
{
	const struct profile *prof = NULL;
	bool custom = false;
	size_t i;

	memcpy(params, wl->defaults, wl->params_size);
	if (eo->v.profile) {
		const char *version;

		prof = workload_profile_resolve(wl, eo->v.profile, &version);
		if (!prof)
			BUG("--profile '%s' was not checked", eo->v.profile);
		memcpy(params, prof->params, wl->params_size);
	}
	for (i = 0; wl->opts[i].type != OPT_END; i++) {
		const struct opt *o = &wl->opts[i];

		if (!(wl_group->seen & (1ULL << i)))
			continue;
		if (prof && field_differs(o, wl_group->base, prof->params))
			custom = true;
		memcpy((char *)params + o->offset, (const char *)wl_group->base + o->offset,
		       opt_field_size(o->type));
	}
	*base_profile = prof ? prof->name : NULL;
	if (!prof)
		label[0] = '\0';
	else if (custom)
		snprintf(label, labellen, "custom (based on %s)", prof->name);
	else
		snprintf(label, labellen, "%s", prof->name);
}

/* ---- params as JSON ---- */

json_object *experiment_params_json(const struct opt_group *groups, size_t ngroups)
{
	json_object *o = json_object_new_object();
	const struct opt *op;
	size_t g;

	for (g = 0; g < ngroups; g++) {
		if (!groups[g].base)
			continue;
		for (op = groups[g].opts; op->type != OPT_END; op++) {
			char *k;

			if (!op->long_name)
				continue;
			k = opt_json_key(op);
			json_object_object_add(o, k, opt_json_value(op, groups[g].base));
			free(k);
		}
	}
	return o;
}

/* ---- the command line of run and ab ---- */

void experiment_cmd_parse(struct experiment_cmd *o, const struct experiment_cmd_spec *cs, int argc,
			  const char **argv, struct ctx *ctx)
{
	struct opt_group fixed[4], *g = o->groups;
	size_t nfixed = 0;

	memset(o, 0, sizeof(*o));
	o->rp = o->rp_defaults = runner_defaults;
	o->pp = probe_defaults;
	if (cs->defaults)
		cs->defaults(&o->rp_defaults);
	o->rp = o->rp_defaults;
	if (cs->own)
		fixed[nfixed++] = *cs->own;
	fixed[nfixed++] =
		(struct opt_group){ .title = cs->runner_title,
				    .opts = cs->runner_opts ? cs->runner_opts : runner_opts,
				    .base = &o->rp,
				    .defaults = &o->rp_defaults };
	fixed[nfixed++] = (struct opt_group){ .title = "probe options",
					      .opts = probe_opts,
					      .base = &o->pp,
					      .defaults = &probe_defaults };
	fixed[nfixed++] = cli_common_group_for(ctx, COMMON_ALL, cs->formats);
	o->wl = experiment_pick_workload(cs->cmd, fixed, nfixed, argc, argv);
	experiment_runner_defaults(o->wl, &o->rp_defaults);
	if (cs->defaults)
		cs->defaults(&o->rp_defaults);
	o->rp = o->rp_defaults;

	o->parsed = xmalloc(o->wl->params_size);
	o->wlp = xmalloc(o->wl->params_size);
	memcpy(o->parsed, o->wl->defaults, o->wl->params_size);
	snprintf(o->title, sizeof(o->title), "workload options (%s)", o->wl->name);
	o->own = cs->own ? (int)o->ngroups : -1;
	if (cs->own)
		g[o->ngroups++] = fixed[0];
	o->runner = (int)o->ngroups;
	g[o->ngroups++] = fixed[nfixed - 3];
	o->workload = (int)o->ngroups;
	g[o->ngroups++] = (struct opt_group){ .title = o->title,
					      .opts = o->wl->opts,
					      .base = o->parsed,
					      .defaults = o->wl->defaults };
	g[o->ngroups++] = experiment_opts_group(&o->eo, o->wl);
	o->probes = -1;
	if (probe_opts[0].type != OPT_END) {
		o->probes = (int)o->ngroups;
		g[o->ngroups++] = fixed[nfixed - 2];
	}
	g[o->ngroups++] = fixed[nfixed - 1];
	cli_parse(cs->cmd, cs->usage, cs->description, g, o->ngroups, argc, argv, 0, &o->res, ctx);
	experiment_profile_check(cs->cmd, o->wl, &o->eo);
	if (o->res.npos > 1)
		die_usage("%s: unexpected argument '%s': one workload at most", cs->cmd,
			  o->res.pos[1]);
	cli_require_format(cs->cmd, ctx, cs->formats);
}

void experiment_cmd_resolve(struct experiment_cmd *o, const char *cmd)
{
	experiment_resolve(o->wl, &o->eo, &o->groups[o->workload], o->wlp, o->profile,
			   sizeof(o->profile), &o->base_profile);
	experiment_spec(cmd, o->wl, o->wlp, &o->rp, &o->spec);
}

void experiment_cmd_release(struct experiment_cmd *o)
{
	opts_result_release(&o->res);
	opts_release(o->groups, o->ngroups);
	free(o->parsed);
	free(o->wlp);
}

json_object *experiment_cmd_params(const struct experiment_cmd *o, const struct probe_set *ps)
{
	struct opt_group pg[4];
	size_t n = 0;
	json_object *params;

	if (o->own >= 0)
		pg[n++] = o->groups[o->own];
	pg[n++] = o->groups[o->runner];
	pg[n] = o->groups[o->workload];
	pg[n++].base = o->wlp;
	if (o->probes >= 0)
		pg[n++] = o->groups[o->probes];
	params = experiment_params_json(pg, n);
	/* the release --profile named, which the profile reproduces */
	if (o->eo.release[0])
		json_object_object_add(params, "profile_release",
				       json_object_new_string(o->eo.release));
	/* what --trace resolved to: the tracer that ran, or off */
	if (o->pp.trace)
		json_object_object_add(
			params, "tracer",
			json_object_new_string(probes_tracer(ps) ? probes_tracer(ps) : "off"));
	return params;
}

/* ---- the lifecycle ---- */

bool experiment_profile_has_mbps(const char *base_profile)
{
	/* stress-ng printed the MB/s line under --metrics-brief only up to 0.15 */
	return base_profile && !strcmp(base_profile, "stress-ng-0.15");
}
