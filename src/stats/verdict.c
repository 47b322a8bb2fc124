/*
 * verdict.c: what an effect means against a practical margin (DESIGN
 * section 5) and how many samples an inconclusive one would need. The
 * stopping rule of `ab` lives in sequential.c.
 *
 * A verdict is decided from the confidence interval, never from a p-value:
 * outside the margin on one side is a regression or an improvement, inside
 * it on both sides is "no change larger than the margin" (an equivalence
 * statement; stats_verdict_tost() takes it from a second, narrower interval
 * so that each one-sided test runs at the full alpha, as Schuirmann's),
 * anything straddling a margin is inconclusive.
 */
#include "stats/stats.h"

#include <stdio.h>

#include <math.h>

enum verdict stats_verdict(const struct effect *e, double margin, int better)
{
	bool above, below;

	if (!e->valid || isnan(e->lo) || isnan(e->hi))
		return VERDICT_INSUFFICIENT;
	if (!(margin >= 0))
		margin = 0;
	above = e->lo > margin;
	below = e->hi < -margin;
	if (above)
		return better < 0 ? VERDICT_REGRESSION : VERDICT_IMPROVEMENT;
	if (below)
		return better < 0 ? VERDICT_IMPROVEMENT : VERDICT_REGRESSION;
	if (e->lo >= -margin && e->hi <= margin)
		return VERDICT_NO_CHANGE;
	return VERDICT_INCONCLUSIVE;
}

const char *stats_verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_INSUFFICIENT:
		return "insufficient samples";
	case VERDICT_INCONCLUSIVE:
		return "inconclusive";
	case VERDICT_NO_CHANGE:
		return "no change";
	case VERDICT_REGRESSION:
		return "regression";
	case VERDICT_IMPROVEMENT:
		return "improvement";
	}
	return "unknown";
}

const char *stats_verdict_key(enum verdict v)
{
	switch (v) {
	case VERDICT_INSUFFICIENT:
		return "insufficient";
	case VERDICT_INCONCLUSIVE:
		return "inconclusive";
	case VERDICT_NO_CHANGE:
		return "no-change";
	case VERDICT_REGRESSION:
		return "regression";
	case VERDICT_IMPROVEMENT:
		return "improvement";
	}
	return "unknown";
}

bool stats_verdict_decided(enum verdict v)
{
	return v == VERDICT_NO_CHANGE || v == VERDICT_REGRESSION || v == VERDICT_IMPROVEMENT;
}

size_t stats_samples_to_decide(const struct effect *e, double margin)
{
	double s, lo, hi, up, down, n_eff, grow, need;

	if (stats_verdict(e, margin, 1) != VERDICT_INCONCLUSIVE || !(margin > 0) || margin >= 1)
		return 0;
	/*
	 * On the log scale, where the CI comes from: keep the estimate and
	 * each half-width, and shrink the half-widths by sqrt(n / n') until
	 * the interval clears the margin on the estimate's side, or fits
	 * inside it.
	 */
	s = log1p(e->est);
	lo = log1p(e->lo);
	hi = log1p(e->hi);
	up = log1p(margin);
	down = log1p(-margin);
	if (s > up)
		grow = (s - lo) / (s - up);
	else if (s < down)
		grow = (hi - s) / (down - s);
	else if (s > down && s < up)
		grow = fmax((hi - s) / (up - s), (s - lo) / (s - down));
	else
		return 0; /* the estimate sits on the margin: no n decides */
	/* per arm of a balanced design with the same precision; pairs when paired */
	n_eff = 2.0 * e->n_a * e->n_b / ((double)e->n_a + e->n_b);
	need = ceil(n_eff * grow * grow);
	if (!isfinite(need) || need > 1e9)
		return 0;
	if (need <= n_eff)
		need = floor(n_eff) + 1;
	return (size_t)need;
}

enum verdict stats_verdict_tost(const struct effect *dir, const struct effect *eq, double margin,
				int better)
{
	enum verdict v = stats_verdict(dir, margin, better);

	if (v == VERDICT_INSUFFICIENT || v == VERDICT_REGRESSION || v == VERDICT_IMPROVEMENT)
		return v;
	/* the narrower equivalence interval decides "no change" */
	if (stats_verdict(eq, margin, better) == VERDICT_NO_CHANGE)
		return VERDICT_NO_CHANGE;
	return VERDICT_INCONCLUSIVE;
}

void stats_verdict_words(enum verdict v, double margin, const char *detail, char *buf, size_t len)
{
	char m[32];
	int n;

	snprintf(m, sizeof(m), "%g%%", margin * 100.0);
	switch (v) {
	case VERDICT_NO_CHANGE:
		n = snprintf(buf, len, "no change larger than %s", m);
		break;
	case VERDICT_REGRESSION:
	case VERDICT_IMPROVEMENT:
		n = snprintf(buf, len, "%s beyond the %s margin", stats_verdict_name(v), m);
		break;
	case VERDICT_INCONCLUSIVE:
		n = snprintf(buf, len, "inconclusive at a %s margin", m);
		break;
	default:
		n = snprintf(buf, len, "%s", stats_verdict_name(v));
		break;
	}
	if (detail && *detail && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " (%s)", detail);
}
