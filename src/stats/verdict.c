/*
 * verdict.c: what an effect means against a practical margin (DESIGN
 * section 5), how many samples an inconclusive one would need, and the
 * adaptive stopping rule of `ab --until-decided`.
 *
 * A verdict is decided from the confidence interval, never from a p-value:
 * outside the margin on one side is a regression or an improvement, inside
 * it on both sides is "no change larger than the margin" (an equivalence
 * statement, at least as strict as Schuirmann's two one-sided tests),
 * anything straddling a margin is inconclusive.
 *
 * Adaptive length: looking after every block and stopping at the first
 * decided verdict would inflate the rate of wrong verdicts, so looks
 * happen only at a schedule fixed in advance, and each look uses the
 * level 1 - alpha/k for k looks (Bonferroni): the probability that any
 * look's interval misses the truth is at most alpha, whatever the data
 * do between looks. t-stats-adaptive.c checks this by simulation.
 */
#include "stats/stats.h"

#include <math.h>
#include <string.h>

/*
 * Looks, in pairs. At the per-look level 1 - 0.05/6 a signed-rank CI
 * exists from 8 pairs (2 / 2^8 <= 0.05/6), where it is just the extreme
 * differences; at 10 pairs it is the 3rd lowest and highest Walsh average.
 */
static const size_t adaptive_looks[] = {10, 16, 24, 32, 48, 64};

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

size_t stats_adaptive_looks(const size_t **looks)
{
	*looks = adaptive_looks;
	return sizeof(adaptive_looks) / sizeof(adaptive_looks[0]);
}

double stats_adaptive_conf(double overall_conf, size_t nlooks)
{
	if (nlooks == 0)
		return overall_conf;
	return 1 - (1 - overall_conf) / (double)nlooks;
}

size_t stats_adaptive_next_look(size_t npairs)
{
	size_t i;

	for (i = 0; i < sizeof(adaptive_looks) / sizeof(adaptive_looks[0]); i++)
		if (adaptive_looks[i] > npairs)
			return adaptive_looks[i];
	return 0;
}

enum verdict stats_adaptive_verdict(const double *a, const double *b, size_t npairs, size_t look,
				    double overall_conf, double margin, int better,
				    struct effect *e)
{
	const size_t *looks;
	size_t nlooks = stats_adaptive_looks(&looks);
	double conf = stats_adaptive_conf(overall_conf, nlooks);

	if (look >= nlooks) {
		memset(e, 0, sizeof(*e));
		e->est = e->lo = e->hi = e->p = e->attained = e->statistic = NAN;
		e->why = "not a look of the adaptive schedule";
		return VERDICT_INSUFFICIENT;
	}
	if (stats_effect_paired(a, b, npairs, conf, e)) {
		e->why = "confidence level outside (0, 1)";
		return VERDICT_INSUFFICIENT;
	}
	return stats_verdict(e, margin, better);
}
