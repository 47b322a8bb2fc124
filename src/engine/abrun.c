/*
 * abrun.c: running an ab (abrun.h).
 *
 * Arms. Each --feature token names the treatment: `--feature NO_DELAY_DEQUEUE`
 * compares A = DELAY_DEQUEUE with B = NO_DELAY_DEQUEUE, and the effect is
 * B versus A, i.e. what applying the token does. Two tokens give the 2x2
 * factorial: arms 00 (neither applied), 10, 01, 11.
 *
 * Order. A unit is one sample of every arm: a pair (one feature) or a block
 * of four (two features). Units are counterbalanced: A B | B A | A B ...
 * (and Gray-code blocks 00 10 11 01 | 01 11 10 00 for two features, so each
 * step toggles one feature); `--order random --seed N` draws, for every two
 * units, which of the two mirrored orders comes first (and for two features
 * the rotation of the Gray cycle). After every toggle one discarded warm-up
 * sample runs in the new arm, because a toggle does not dequeue entities
 * that are already delayed.
 *
 * Statistics: the sequential engine (stats/sequential.c) owns them. A unit
 * runs while the engine wants one and hands it the unit's primary values;
 * the engine keeps the units in time order, looks at its schedule with its
 * calibrated per-look levels, stops when every main effect is decided or
 * the budget (--max-samples, --max-time) is spent. Without -n, ab runs
 * until decided. The result (engine/ab.c) adds the evidence counters per
 * op, with the same paired effect at 95%, Holm-adjusted over all of them.
 */
#include "engine/abrun.h"
#include "core/metrics.h"
#include "engine/summary.h"
#include "sys/env.h"
#include "util/text.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A stop signal arrived (SIGPIPE too: `wakebench ab | head`): restore and end. */
static bool stopping(void)
{
	return runner_stop_signal() != 0;
}

const char *const ab_order_names[] = { "abba", "random", NULL };

/* ---- order ---- */

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull); /* splitmix64 */

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Arm order of unit u: even units choose, odd units mirror the previous one. */
static void unit_order(struct ab_state *st, size_t u, int *seq)
{
	static const int gray[4] = { 0, 1, 3, 2 }; /* 00 10 11 01: one toggle per step */
	unsigned i, n = st->narms;

	if (u % 2) {
		for (i = 0; i < n; i++)
			seq[i] = st->seq[n - 1 - i];
	} else if (st->nfeat == 1) {
		bool flip = st->ap->order == ORDER_RANDOM && (rng_next(&st->rng) & 1);

		seq[0] = flip ? 1 : 0;
		seq[1] = flip ? 0 : 1;
	} else {
		unsigned rot = 0, rev = 0;

		if (st->ap->order == ORDER_RANDOM) {
			uint64_t r = rng_next(&st->rng);

			rot = (unsigned)(r & 3);
			rev = (unsigned)((r >> 2) & 1);
		}
		for (i = 0; i < 4; i++)
			seq[i] = gray[(rot + (rev ? 4 - i : i)) % 4];
	}
	memcpy(st->seq, seq, sizeof(int) * n);
}

/* ---- arms ---- */

void ab_build_arms(struct ab_state *st)
{
	unsigned m, j;

	st->narms = 1u << st->nfeat;
	for (m = 0; m < st->narms; m++) {
		struct ab_arm *a = &st->arms[m];
		struct features vec = st->fs.original;
		size_t used = 0;

		for (j = 0; j < st->nfeat; j++) {
			const char *t = st->token[j];
			bool applied = (m >> j) & 1, tok_on = strncmp(t, "NO_", 3) != 0;
			const char *name = tok_on ? t : t + 3;
			bool on = applied ? tok_on : !tok_on;
			int k = features_find(&vec, name);

			if (k >= 0)
				vec.on[k] = on;
			snprintf(a->tok[j], sizeof(a->tok[j]), "%s%.*s", on ? "" : "NO_",
				 FEATURE_NAME_MAX - 1, name);
			a->tokv[j] = a->tok[j];
			a->code[j] = applied ? '1' : '0';
			used += (size_t)snprintf(a->name + used, sizeof(a->name) - used, "%s%s=%s",
						 j ? "," : "", name, on ? "on" : "off");
		}
		a->code[st->nfeat] = '\0';
		features_format(&vec, a->vector, sizeof(a->vector));
		rtrim(a->vector);
	}
}

/* A short label: "A"/"B" for one feature, the code ("10") for two. */
const char *ab_arm_code(const struct ab_state *st, unsigned m)
{
	if (st->nfeat == 1)
		return m ? "B" : "A";
	return st->arms[m].code;
}

/* ---- running ---- */

static struct sample *new_sample(struct ab_state *st)
{
	if (st->nsamples == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 64;
		st->samples = xrealloc(st->samples, st->cap * sizeof(*st->samples));
		st->sample_arm = xrealloc(st->sample_arm, st->cap * sizeof(*st->sample_arm));
	}
	sample_init(&st->samples[st->nsamples]);
	return &st->samples[st->nsamples];
}

/* Run, store and hand over one sample of arm m. Returns its index or -1. */
static long one_sample(struct ab_state *st, unsigned m, bool warmup)
{
	struct sample *s = new_sample(st);
	long idx;

	if (runner_sample(st->spec,
			  warmup ? runner_warmup_ns(st->spec, st->warmup_ns, NULL, 0)
				 : st->rp->duration_ns,
			  s)) {
		st->setup_failed = true;
		return -1;
	}
	s->warmup = warmup;
	if (st->ceiling && !warmup && s->status == SAMPLE_OK)
		ceiling_sample(st->spec, st->ceiling, st->rp->duration_ns, s);
	if (experiment_add_sample(&st->ex, st->arms[m].config_id, s)) {
		/* lost (the store's own line said why): neither counted nor printed */
		error("ab: the %s of arm %s in unit %zu was measured but could not be stored: it "
		      "is "
		      "lost; the %zu sample%s stored before it (warm-ups included) %s kept in '%s'",
		      warmup ? "warm-up sample" : "sample", st->arms[m].name, st->nunits,
		      st->nsamples, st->nsamples == 1 ? "" : "s", st->nsamples == 1 ? "is" : "are",
		      st->db);
		return -1;
	}
	st->sample_arm[st->nsamples] = m;
	idx = (long)st->nsamples++;
	if (st->hooks && st->hooks->sample)
		st->hooks->sample(st->hooks->arg, st, m, s);
	return idx;
}

/* Apply arm m (one token per write, verified), then a discarded warm-up. */
static int enter_arm(struct ab_state *st, unsigned m)
{
	struct ab_arm *a = &st->arms[m];
	char why[2048];

	if (st->current == (int)m)
		return 0;
	if (features_session_apply(&st->fs, a->tokv, st->nfeat, why, sizeof(why))) {
		error("ab: %s", why);
		st->setup_failed = true;
		return -1;
	}
	if (st->current >= 0)
		st->ntoggles++;
	st->current = (int)m;
	debug("ab: arm %s applied", a->name);
	if (!a->have_env) {
		struct env_opts eo = { .root = st->root, .debugfs = st->debugfs };

		env_collect(&a->env, &eo);
		a->have_env = true;
	}
	if (stopping())
		return 0;
	if (st->warmup_ns && one_sample(st, m, true) < 0)
		return -1;
	return 0;
}

/* Run one unit in the next counterbalanced order. Returns -1 on a setup error. */
static int run_unit(struct ab_state *st)
{
	int seq[AB_MAX_ARMS];
	size_t u = st->nunits;
	unsigned i;

	if (st->nunits == st->ucap) {
		st->ucap = st->ucap ? st->ucap * 2 : 32;
		st->unit = xrealloc(st->unit, st->ucap * sizeof(*st->unit));
	}
	for (i = 0; i < AB_MAX_ARMS; i++)
		st->unit[u][i] = -1;
	unit_order(st, u, seq);
	st->nunits++;
	for (i = 0; i < st->narms; i++) {
		long idx;

		if (stopping())
			break;
		if (st->hooks && st->hooks->next)
			st->hooks->next(st->hooks->arg, st, u, (unsigned)seq[i]);
		if (enter_arm(st, (unsigned)seq[i]))
			return -1;
		if (stopping())
			break;
		idx = one_sample(st, (unsigned)seq[i], false);
		if (idx < 0)
			return -1;
		st->unit[u][seq[i]] = idx;
		if (st->samples[idx].status == SAMPLE_INTERRUPTED)
			break;
	}
	if (st->hooks && st->hooks->unit)
		st->hooks->unit(st->hooks->arg, st, u);
	return 0;
}

/* ---- statistics: the engine's (engine/ab.c) ---- */

/* The primary values of every arm of unit u, for the sequential engine; false when incomplete. */
static bool unit_values(const struct ab_state *st, size_t u, double *y)
{
	unsigned m;

	for (m = 0; m < st->narms; m++) {
		long i = st->unit[u][m];
		const struct sample *s = i >= 0 ? &st->samples[i] : NULL;

		if (!s || s->status != SAMPLE_OK || s->warmup ||
		    !sample_value(s, st->primary->name, &y[m]))
			return false;
	}
	return true;
}

double ab_unit_ratio(const struct ab_state *st, size_t u)
{
	double y[AB_MAX_ARMS];

	if (!unit_values(st, u, y) || !(y[0] > 0))
		return NAN;
	return y[1] / y[0];
}

/*
 * The result every output renders: the engine's analysis of the samples
 * just run, with the design the sequential engine ended in. st->obs must
 * outlive r.
 */
void ab_run_analyse(struct ab_state *st, struct ab_result *r)
{
	size_t i;

	st->obs = xcalloc(st->nsamples + 1, sizeof(*st->obs));
	for (i = 0; i < st->nsamples; i++) {
		st->obs[i].arm = st->sample_arm[i];
		st->obs[i].s = &st->samples[i];
	}
	ab_design_end(&st->design, &st->engine);
	ab_analyze(&st->design, st->obs, st->nsamples, r);
}

/* Keys that differ between arm 0 and arm m, apart from the features and per-run facts. */
size_t ab_env_extra(const struct ab_state *st, unsigned m, struct env_delta **out)
{
	struct env_delta *d = NULL;
	size_t n, i, k = 0;

	if (!st->arms[0].have_env || !st->arms[m].have_env) {
		*out = NULL;
		return 0;
	}
	n = env_diff(&st->arms[0].env, &st->arms[m].env, &d);
	for (i = 0; i < n; i++)
		if (d[i].impact != IMPACT_RUN && strncmp(d[i].key, "sched.features", 14))
			d[k++] = d[i];
	*out = d;
	return k;
}

/* The sequential engine and the result's design, before the first unit. */
void ab_engine_init(struct ab_state *st)
{
	const struct ab_params *ap = st->ap;
	struct stats_seq_params sp = {
		.nfeat = st->nfeat,
		.margin = ap->margin,
		.better = st->primary->better,
		.until_decided = ap->until_decided,
		.units = st->rp->samples,
		.max_units = ap->max_samples,
		.max_time_ns = ap->max_time_ns,
	};
	const char *tokv[AB_MAX_FEATURES] = { st->token[0], st->token[1] };

	stats_seq_init(&st->engine, &sp);
	ab_design_init(&st->design, st->nfeat, tokv, st->primary->name, st->primary->better,
		       ap->margin, ap->until_decided ? ap->max_samples : 0);
}

size_t ab_plan_min_units(unsigned nfeat, bool until_decided, size_t n)
{
	struct stats_seq_params sp = {
		.nfeat = nfeat,
		.margin = 0.02,
		.better = 1,
		.until_decided = until_decided,
		.units = n,
		.max_units = n,
	};
	struct stats_seq s;
	size_t need;

	stats_seq_init(&s, &sp);
	need = ab_min_complete(nfeat, s.alpha_two, s.alpha_one, s.vif);
	stats_seq_release(&s);
	return need;
}

int ab_check_sizes(const struct ab_params *ap, const struct run_params *rp, char *why, size_t len)
{
	unsigned nfeat = ap->features.n == 2 ? 2 : 1;
	const char *name = ap->until_decided ? "'--max-samples'" : "'--samples' (-n)";
	uint64_t n = ap->until_decided ? ap->max_samples : rp->samples;
	size_t need = ab_plan_min_units(nfeat, ap->until_decided, (size_t)n);

	if (n >= need)
		return 0;
	snprintf(why, len,
		 "option %s: value '%" PRIu64 "' is below the minimum of %zu %s a paired verdict "
		 "%sneeds",
		 name, n, need, nfeat == 1 ? "pairs" : "blocks",
		 nfeat == 1 ? "" : "of two features ");
	return EXIT_USAGE;
}

const struct opt *ab_runner_opts(void)
{
	static struct opt t[16];
	size_t i;

	if (t[0].type != OPT_END)
		return t;
	for (i = 0; runner_opts[i].type != OPT_END; i++) {
		if (i + 1 >= ARRAY_SIZE(t))
			BUG("ab: more than %zu runner options", ARRAY_SIZE(t) - 1);
		t[i] = runner_opts[i];
		if (!strcmp(t[i].long_name, "samples")) {
			t[i].help = "a fixed length: exactly N pairs (blocks of four with two "
				    "features), at least 6 (9 blocks); 0: pairs until the verdict "
				    "is decided, at most --max-samples";
			t[i].min = 0;
		} else if (!strcmp(t[i].long_name, "warmup")) {
			t[i].help = "length of the discarded warm-up sample after every toggle "
				    "(0: none)";
		}
	}
	return t;
}

/* A --feature value that can be shown as it is: a name's characters only. */
static bool plain_token(const char *t)
{
	size_t n = strspn(t, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");

	return n && !t[n] && n < FEATURE_NAME_MAX;
}

void ab_vm_command(const struct ab_state *st, const struct strlist *fl, char *buf, size_t len)
{
	size_t used, n = st->nfeat ? st->nfeat : fl->n, i;

	used = (size_t)snprintf(buf, len, "ab");
	for (i = 0; i < n && i < AB_MAX_FEATURES && used < len; i++) {
		const char *t = st->nfeat ? st->token[i] : fl->v[i];

		used += (size_t)snprintf(buf + used, len - used, " --feature %s",
					 plain_token(t) ? t : "[NO_]NAME");
	}
}

/* --max-time leaves room for fewer units than a verdict needs: say so at once. */
static void warn_time_budget(const struct ab_state *st)
{
	const struct stats_seq *e = &st->engine;
	size_t need = ab_min_complete(st->nfeat, e->alpha_two, e->alpha_one, e->vif);
	char budget[32];

	if (e->p.max_units >= need)
		return;
	format_duration(st->ap->max_time_ns, budget, sizeof(budget));
	warning("ab: at this pace only %zu %s fit in --max-time %s, fewer than the %zu a paired "
		"verdict needs: it will be insufficient",
		e->p.max_units, ab_unit_word(&st->design, e->p.max_units), budget, need);
}

/* Units while the sequential engine wants them and nothing stops the run. */
void ab_loop(struct ab_state *st)
{
	uint64_t start_ns = now_ns();
	while (stats_seq_wants_unit(&st->engine)) {
		double y[AB_MAX_ARMS];
		bool complete;

		if (stopping() || st->setup_failed || st->ex.store_failed || run_unit(st))
			break;
		complete = unit_values(st, st->nunits - 1, y);
		stats_seq_add_unit(&st->engine, complete ? y : NULL, now_ns() - start_ns);
		if (st->nunits == 1 && st->engine.time_planned)
			warn_time_budget(st);
	}
	stats_seq_end(&st->engine);
	if (st->engine.stop == STATS_SEQ_DECIDED)
		info("ab: decided after %zu %s (look %zu of at most %zu, each at %.4g%% "
		     "confidence, 95%% over all looks)",
		     st->nunits, ab_unit_word(&st->design, st->nunits), st->engine.looks,
		     st->engine.nplan, (1 - st->engine.alpha_two) * 100.0);
	else if (st->engine.stop == STATS_SEQ_TIME)
		info("ab: --max-time reached after %zu %s: not decided", st->nunits,
		     ab_unit_word(&st->design, st->nunits));
	else if (st->engine.stop == STATS_SEQ_BUDGET)
		info("ab: --max-samples reached: not decided");
}

/* Put the kernel back the way it was found, before anything else. */
int ab_restore(struct ab_state *st)
{
	const char *w[] = { "wakebench", "features", "restore", "--debugfs", st->debugfs };
	char why[2048], *cmd;

	if (features_session_restore(&st->fs, why, sizeof(why))) {
		error("ab: %s", why);
		/* the command quoted for a shell, whatever --debugfs holds */
		cmd = sh_command(w, strcmp(st->debugfs, "/sys/kernel/debug") ? 5 : 3);
		error("ab: the scheduler features are NOT restored; the journal is kept: run: %s",
		      cmd);
		free(cmd);
		return -1;
	}
	if (st->ntoggles || st->current > 0)
		info("ab: scheduler features restored as found");
	return 0;
}

/* Arm m's measured samples, summarised as run summarises a config. */
int ab_arm_summary(const struct ab_state *st, unsigned m, struct report_summary *rs)
{
	struct sample *arm_s = xcalloc(st->nsamples + 1, sizeof(*arm_s));
	size_t n = 0, i, u;
	int ret;

	for (i = 0; i < st->nsamples; i++)
		for (u = 0; u < st->nunits; u++)
			if (st->unit[u][m] == (long)i) {
				arm_s[n++] = st->samples[i];
				break;
			}
	ret = report_summarize(arm_s, n, st->primary->name, rs);
	free(arm_s);
	return ret;
}

void ab_run_view(struct ab_state *st, const struct ab_result *r, const struct report_summary *rs,
		 bool interrupted, struct ab_run_view *v)
{
	unsigned m;

	memset(v, 0, sizeof(*v));
	v->r = r;
	v->samples = st->samples;
	v->narms = st->narms;
	v->ptitle = st->ptitle;
	v->workload = st->wl->name;
	v->ntoggles = st->ntoggles;
	v->warmups = st->warmup_ns != 0;
	v->interrupted = interrupted;
	for (m = 0; m < st->narms; m++) {
		struct ab_arm_view *a = &v->arm[m];

		a->code = ab_arm_code(st, m);
		a->name = st->arms[m].name;
		a->vector = st->arms[m].vector;
		a->summary = &rs[m];
		a->have_env = st->arms[m].have_env;
		if (m)
			a->ndelta = ab_env_extra(st, m, &a->delta);
		if (st->ceiling) {
			const struct metric_summary *ms = report_summary_get(&rs[m], "sched_share");

			ceiling_summary_line(ms && ms->available ? &ms->sum : NULL,
					     ms ? ms->why : NULL, a->ceiling, sizeof(a->ceiling));
		}
	}
}

void ab_run_view_release(struct ab_run_view *v)
{
	unsigned m;

	for (m = 0; m < v->narms; m++)
		free(v->arm[m].delta);
}

int ab_check_tokens(struct ab_state *st, const char *debugfs, const char *btf,
		    const struct strlist *fl, enum features_fail *fail, char *why, size_t len)
{
	struct features live;
	bool seen[FEATURES_MAX] = { false };
	size_t i;

	*fail = FEATURES_OK;

	if (!fl->n) {
		snprintf(why, len,
			 "option '--feature' is required, e.g. --feature "
			 "NO_DELAY_DEQUEUE (see 'wakebench features')");
		return EXIT_USAGE;
	}
	if (fl->n > AB_MAX_FEATURES) {
		snprintf(why, len,
			 "option '--feature' given %zu times, allowed at most %d (the 2x2 "
			 "factorial)",
			 fl->n, AB_MAX_FEATURES);
		return EXIT_USAGE;
	}
	if (features_read_any(debugfs, btf, &live, why, len)) {
		*fail = live.fail;
		return features_fail_exit(live.fail);
	}
	for (i = 0; i < fl->n; i++) {
		char twhy[4096]; /* the kernel's names and the closest one */
		size_t idx;
		bool on;

		if (features_token(&live, fl->v[i], &idx, &on, twhy, sizeof(twhy))) {
			snprintf(why, len, "option '--feature': %s", twhy);
			return EXIT_USAGE;
		}
		if (seen[idx]) {
			snprintf(why, len,
				 "option '--feature': '%s' is given twice (as '%s'); each feature "
				 "may appear once, as NAME or NO_NAME",
				 live.name[idx], fl->v[i]);
			return EXIT_USAGE;
		}
		seen[idx] = true;
		snprintf(st->token[i], sizeof(st->token[i]), "%s%s", on ? "" : "NO_",
			 live.name[idx]);
	}
	st->nfeat = (unsigned)fl->n;
	if (live.source != FEATURES_SRC_FILE) {
		*fail = live.fail;
		return features_fail_exit(live.fail);
	}
	return 0;
}

const char *ab_run_end(struct ab_state *st, json_object *params, int ret, int sig,
		       struct ab_result *r)
{
	const char *status;

	ab_run_analyse(st, r);
	json_object_object_add(params, "design", ab_design_json(&st->design));
	if (experiment_set_params(&st->ex, params))
		st->ex.store_failed = true;
	if (sig)
		status = "interrupted";
	else if (ret || st->setup_failed || st->ex.store_failed || !r->ncomplete)
		status = "failed";
	else
		status = "complete";
	if (experiment_end(&st->ex, status))
		st->ex.store_failed = true;
	return status;
}

/* The run's state from the command line, before the kernel is touched. */
void ab_state_init(struct ab_state *st, const struct experiment_where *w, const struct workload *wl,
		   const struct run_params *rp, const struct run_spec *spec,
		   const struct ab_params *ap, const struct ab_hooks *hooks)
{
	memset(st, 0, sizeof(*st));
	st->hooks = hooks;
	st->db = w->db;
	st->root = w->root;
	st->debugfs = w->debugfs;
	st->current = -1;
	st->warmup_ns = rp->warmup_ns; /* --warmup: the discarded sample after every toggle */
	st->rng = ap->seed;
	st->wl = wl;
	st->primary = metric_primary(wl->name);
	metric_unit(st->primary, wl->name, st->punit, sizeof(st->punit));
	metric_title(st->primary, wl->name, st->ptitle, sizeof(st->ptitle));
	st->rp = rp;
	st->ap = ap;
	st->spec = spec;
}

void ab_run_plan(const struct ab_state *st, const char *profile, struct ab_plan *p)
{
	unsigned m;

	memset(p, 0, sizeof(*p));
	p->workload = st->wl->name;
	p->profile = profile;
	p->narms = st->narms;
	for (m = 0; m < st->narms; m++) {
		p->code[m] = ab_arm_code(st, m);
		p->name[m] = st->arms[m].name;
	}
	p->until_decided = st->ap->until_decided;
	p->blocks = st->nfeat > 1;
	p->max_samples = st->ap->max_samples;
	p->samples = st->rp->samples;
	p->max_time_ns = st->ap->max_time_ns;
	p->duration_ns = st->rp->duration_ns;
	p->warmup_ns = st->warmup_ns;
	runner_sample_what(st->spec, p->sample_what, sizeof(p->sample_what));
	runner_warmup_ns(st->spec, st->warmup_ns, p->warmup, sizeof(p->warmup));
	p->order = ab_order_names[st->ap->order];
	p->seeded = st->ap->order == ORDER_RANDOM;
	p->seed = st->ap->seed;
	p->instances = st->rp->instances;
	p->placement = placement_names[st->rp->placement];
	p->margin = st->ap->margin;
}

void ab_unit_line(const struct ab_state *st, size_t u, unsigned total, struct ab_unit_line *l)
{
	unsigned m;

	memset(l, 0, sizeof(*l));
	l->u = u;
	l->total = total;
	l->narms = st->narms;
	l->blocks = st->nfeat > 1;
	l->unit = st->punit;
	l->ratio = st->nfeat == 1 ? ab_unit_ratio(st, u) : NAN;
	for (m = 0; m < st->narms; m++) {
		unsigned arm = (unsigned)st->seq[m];
		long i = st->unit[u][arm];
		const struct sample *s = i >= 0 ? &st->samples[i] : NULL;

		l->code[m] = ab_arm_code(st, arm);
		l->value[m] = NAN;
		if (!s)
			l->status[m] = "not run";
		else if (s->status != SAMPLE_OK ||
			 !sample_value(s, st->primary->name, &l->value[m]))
			l->status[m] = sample_status_name(s->status);
	}
}
