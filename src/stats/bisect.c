/*
 * bisect.c: the decisions of `wakebench bisect` (doc/bisect.md): one step
 * (is the candidate closer to the good or to the bad reference?), the
 * references of a bisection over a list, and the search with skips.
 *
 * The unit is the boot, as in `compare` (boots.c): each boot of a kernel
 * is one log level, the median of its samples' logs, and the spread
 * between boots is pooled over the boots of the good reference, the bad
 * reference and the candidate (Student's t, as stats_effect_boots() does
 * for two groups). Samples within a boot are not independent evidence
 * about a kernel, however many there are.
 *
 * "Closer to good" is a statement about the candidate's level against the
 * midpoint of the two references' levels, on the log scale (ratios), so it
 * does not depend on which direction of the metric is better. A decision
 * is made only when the interval of the contrast lies entirely on one side
 * of the midpoint. The step looks after 1, 2, 3, 4, 6, 8, 12, ... boots and
 * at its budget, the looks splitting alpha (a weighted Bonferroni: 80% for
 * the last look, the rest shared by the earlier ones; the looks are few, and the union bound
 * holds whatever the dependence between them, including the references
 * the looks share), so a candidate on the good side of the midpoint is
 * called bad with probability at most alpha / 2 and vice versa; a
 * candidate at either reference's level is called wrongly far less often
 * (bench/bisect-sim.c measures how often, over whole bisections).
 */
#include "stats/bisect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "util/util.h"

const char *bisect_verdict_key(enum bisect_verdict v)
{
	switch (v) {
	case BISECT_GOOD:
		return "good";
	case BISECT_BAD:
		return "bad";
	case BISECT_UNDECIDED:
		break;
	}
	return "undecided";
}

static double mean_ss(const double *v, size_t k, double *ss)
{
	double m = 0, s = 0;
	size_t i;

	for (i = 0; i < k; i++)
		m += v[i];
	m /= (double)k;
	for (i = 0; i < k; i++)
		s += (v[i] - m) * (v[i] - m);
	*ss += s;
	return m;
}

static void decision_reset(struct bisect_decision *d, const struct bisect_refs *r, size_t nc)
{
	memset(d, 0, sizeof(*d));
	d->ng = r->ng;
	d->nb = r->nb;
	d->nc = nc;
	d->df = d->sd = d->separation = d->sep_lo = d->sep_hi = NAN;
	d->position = d->pos_lo = d->pos_hi = d->vs_good = d->vs_bad = NAN;
	d->level = NAN;
}

static double t_quantile(double alpha, double df)
{
	return gsl_cdf_tdist_Pinv(1 - alpha / 2, df);
}

void bisect_refs_check(const struct bisect_refs *r, double alpha, struct bisect_decision *d)
{
	double ss = 0, g, b, se, q;

	decision_reset(d, r, 0);
	if (!r->ng || !r->nb || r->ng + r->nb < 3) {
		d->why = "at least 3 boots of the references in all (one of each at least)";
		return;
	}
	g = mean_ss(r->good, r->ng, &ss);
	b = mean_ss(r->bad, r->nb, &ss);
	d->df = (double)(r->ng + r->nb - 2);
	d->sd = sqrt(ss / d->df);
	d->level = 1 - alpha;
	se = d->sd * sqrt(1.0 / (double)r->ng + 1.0 / (double)r->nb);
	q = t_quantile(alpha, d->df);
	d->separation = b - g;
	d->sep_lo = d->separation - q * se;
	d->sep_hi = d->separation + q * se;
	d->valid = true;
	if (d->sep_lo > 0 || d->sep_hi < 0)
		d->v = BISECT_BAD; /* apart: the bad reference is bad */
	else
		d->why = "the references' interval of change includes 0";
}

void bisect_decide(const struct bisect_refs *r, const double *c, size_t nc, double alpha_look,
		   struct bisect_decision *d)
{
	double ss = 0, g, b, cm, dsep, sign, L, se, se_sep, q;

	decision_reset(d, r, nc);
	if (!r->ng || !r->nb || !nc) {
		d->why = "no boot of the candidate";
		return;
	}
	if (r->ng + r->nb + nc < 4) {
		d->why = "too few boots to estimate the spread between boots (4 in all)";
		return;
	}
	g = mean_ss(r->good, r->ng, &ss);
	b = mean_ss(r->bad, r->nb, &ss);
	cm = mean_ss(c, nc, &ss);
	dsep = b - g;
	d->df = (double)(r->ng + r->nb + nc - 3);
	d->sd = sqrt(ss / d->df);
	d->level = 1 - alpha_look;
	d->separation = dsep;
	d->vs_good = expm1(cm - g);
	d->vs_bad = expm1(cm - b);
	if (dsep == 0) {
		d->why = "the references have the same level";
		return;
	}
	q = t_quantile(alpha_look, d->df);
	se_sep = d->sd * sqrt(1.0 / (double)r->ng + 1.0 / (double)r->nb);
	d->sep_lo = dsep - q * se_sep;
	d->sep_hi = dsep + q * se_sep;
	sign = dsep > 0 ? 1 : -1;
	L = (cm - (g + b) / 2) * sign;
	se = d->sd * sqrt(1.0 / (double)nc + 0.25 / (double)r->ng + 0.25 / (double)r->nb);
	d->position = 0.5 + L / fabs(dsep);
	d->pos_lo = 0.5 + (L - q * se) / fabs(dsep);
	d->pos_hi = 0.5 + (L + q * se) / fabs(dsep);
	d->valid = true;
	if (L + q * se < 0)
		d->v = BISECT_GOOD;
	else if (L - q * se > 0)
		d->v = BISECT_BAD;
}

/* Looks, in boots of the candidate (or pairs of the references), then the budget itself. */
static const size_t look_schedule[] = { 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64 };

size_t bisect_looks(size_t first, size_t budget)
{
	size_t i, k = 0;

	for (i = 0; i < ARRAY_SIZE(look_schedule); i++)
		if (look_schedule[i] >= first && look_schedule[i] < budget)
			k++;
	return k + 1;
}

/*
 * The error rate of each look: a weighted Bonferroni split, still a union
 * bound whatever the dependence between looks. The look at the budget
 * takes BISECT_FINAL_SHARE of alpha, the K - 1 earlier looks share the
 * rest equally: the early looks stop the clear cases, and the last one,
 * with the most boots, is not made as strict as the first.
 */
static void look_alphas(double alpha, size_t first, size_t budget, double *early, double *final)
{
	size_t k = bisect_looks(first, budget);

	if (k <= 1) {
		*early = *final = alpha;
		return;
	}
	*final = alpha * BISECT_FINAL_SHARE;
	*early = alpha * (1 - BISECT_FINAL_SHARE) / (double)(k - 1);
}

static bool is_look(size_t n, size_t first, size_t budget)
{
	size_t i;

	if (n == budget)
		return true;
	for (i = 0; i < ARRAY_SIZE(look_schedule); i++)
		if (look_schedule[i] == n)
			return n >= first;
	return false;
}

void bisect_step_init(struct bisect_step *s, const struct bisect_refs *r, double alpha,
		      size_t max_boots)
{
	memset(s, 0, sizeof(*s));
	s->refs = *r;
	s->alpha = alpha;
	if (max_boots < 1)
		max_boots = 1;
	if (max_boots > BISECT_MAX_BOOTS)
		max_boots = BISECT_MAX_BOOTS;
	s->max_boots = max_boots;
	look_alphas(alpha, 1, max_boots, &s->alpha_look, &s->alpha_final);
	decision_reset(&s->d, r, 0);
	s->d.why = "no boot of the candidate";
}

bool bisect_step_wants_boot(const struct bisect_step *s)
{
	return !s->done && s->boots < s->max_boots;
}

void bisect_step_add_boot(struct bisect_step *s, double log_median)
{
	if (s->done || s->boots >= s->max_boots)
		return;
	s->boots++;
	if (isfinite(log_median)) {
		s->c[s->nc++] = log_median;
	}
	/* A look at the scheduled numbers of boots tried, and at the budget. */
	if (s->nc && is_look(s->boots, 1, s->max_boots)) {
		bisect_decide(&s->refs, s->c, s->nc,
			      s->boots >= s->max_boots ? s->alpha_final : s->alpha_look, &s->d);
		if (s->d.valid)
			s->looks++;
		if (s->d.v != BISECT_UNDECIDED)
			s->done = true;
	}
	if (s->boots >= s->max_boots)
		s->done = true;
}

void bisect_refs_seq_init(struct bisect_refs_seq *s, double alpha, size_t max_each)
{
	struct bisect_refs none = { 0 };

	memset(s, 0, sizeof(*s));
	if (max_each < 2)
		max_each = 2;
	if (max_each > BISECT_MAX_BOOTS)
		max_each = BISECT_MAX_BOOTS;
	s->alpha = alpha;
	s->max_each = max_each;
	look_alphas(alpha, 2, max_each, &s->alpha_look, &s->alpha_final);
	decision_reset(&s->d, &none, 0);
	s->d.why = "no boot of the references";
}

bool bisect_refs_seq_wants_pair(const struct bisect_refs_seq *s)
{
	return !s->done && s->pairs < s->max_each;
}

void bisect_refs_seq_refs(const struct bisect_refs_seq *s, struct bisect_refs *r)
{
	r->good = s->g;
	r->ng = s->ng;
	r->bad = s->b;
	r->nb = s->nb;
}

void bisect_refs_seq_add_pair(struct bisect_refs_seq *s, double good, double bad)
{
	struct bisect_refs r;

	if (s->done || s->pairs >= s->max_each)
		return;
	s->pairs++;
	if (isfinite(good))
		s->g[s->ng++] = good;
	if (isfinite(bad))
		s->b[s->nb++] = bad;
	if (is_look(s->pairs, 2, s->max_each)) {
		bisect_refs_seq_refs(s, &r);
		bisect_refs_check(&r, s->pairs >= s->max_each ? s->alpha_final : s->alpha_look,
				  &s->d);
		/*
		 * Apart, and known to +-50%: the midpoint's uncertainty must not
		 * dominate the steps', which sit half the separation away from it.
		 */
		if (s->d.v == BISECT_BAD &&
		    s->d.sep_hi - s->d.sep_lo <= fabs(s->d.separation) * BISECT_REF_PRECISION * 2)
			s->done = true;
	}
	if (s->pairs >= s->max_each)
		s->done = true;
}

void bisect_search_init(struct bisect_search *s, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->last_good = 0;
	s->first_bad = n ? n - 1 : 0;
	s->skipped = xcalloc(n ? n : 1, 1);
}

ssize_t bisect_search_next(const struct bisect_search *s)
{
	size_t lo = s->last_good, hi = s->first_bad, mid, k;

	if (hi <= lo + 1)
		return -1;
	mid = lo + (hi - lo) / 2;
	/* The middle, else the nearest candidate not skipped, below first on a tie. */
	for (k = 0; k < mid - lo || mid + k < hi; k++) {
		if (k < mid - lo && !s->skipped[mid - k])
			return (ssize_t)(mid - k);
		if (mid + k < hi && !s->skipped[mid + k])
			return (ssize_t)(mid + k);
	}
	return -1;
}

void bisect_search_record(struct bisect_search *s, size_t i, enum bisect_verdict v)
{
	if (i >= s->n)
		return;
	s->steps++;
	switch (v) {
	case BISECT_GOOD:
		if (i > s->last_good && i < s->first_bad)
			s->last_good = i;
		break;
	case BISECT_BAD:
		if (i > s->last_good && i < s->first_bad)
			s->first_bad = i;
		break;
	case BISECT_UNDECIDED:
		s->skipped[i] = 1;
		break;
	}
}

bool bisect_search_found(const struct bisect_search *s)
{
	return s->n >= 2 && s->first_bad == s->last_good + 1;
}

void bisect_search_release(struct bisect_search *s)
{
	free(s->skipped);
	s->skipped = NULL;
}
