/*
 * boots.c: the unit of replication for unpaired comparisons (`compare`):
 * the boot, not the sample (DESIGN section 5).
 *
 * Samples of one boot share that boot's offset (memory layout, frequency
 * and placement luck, the neighbours of the moment): four `vm` boots of one
 * 6.1 kernel spread 8.5% (sd) on the development machine. Pooling every sample of a group as if
 * independent then shrinks the interval by sqrt(samples per boot) below what the data can show, and
 * an A/A comparison of two boots is "decided" far more often than 5%.
 *
 * So each boot is summarised by the median of its samples' logs, and the
 * groups are compared on those medians: the two-sample t interval with the
 * variance pooled over both groups' boots (Student's; df = ka + kb - 2).
 * Under a normal boot offset plus any within-boot noise (the median of a
 * boot's logs is close to normal) the pooled t is exact at every number of
 * boots, which the simulation in bench/compare-boots.c confirms (coverage
 * 94.6-95.2% from 2 to 8 boots per group); Welch's interval, with its
 * estimated df, over-covers at 2 boots per group (97.6%) and so decides
 * less. The price is the assumption
 * that the two groups' boots spread alike (the same host and setup); it is
 * also what lets one group of a single boot be judged against a group of
 * several, with the spread taken from the other group's boots.
 *
 * With one boot in each group there is nothing to learn the boot-to-boot
 * spread from: the within-boot interval (Hodges-Lehmann, Mann-Whitney over
 * the samples) is returned for what it is, and the verdict stays
 * inconclusive. When both groups ran in the very same boots (two labels
 * in one boot, the arms of an `ab`), each boot's offset is common to both
 * and cancels: the samples are the units, as before.
 */
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "util/util.h"

struct tagged {
	size_t boot;
	double lx;
};

static int cmp_tagged(const void *pa, const void *pb)
{
	const struct tagged *x = pa, *y = pb;

	if (x->boot != y->boot)
		return x->boot < y->boot ? -1 : 1;
	return (x->lx > y->lx) - (x->lx < y->lx);
}

ssize_t stats_boot_log_medians(const double *x, const size_t *boot, size_t n, double *med,
			       size_t *ids)
{
	struct tagged *t;
	size_t i, k = 0;

	if (!n)
		return 0;
	t = xmalloc(n * sizeof(*t));
	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]) || x[i] <= 0) {
			free(t);
			return -1;
		}
		t[i].boot = boot[i];
		t[i].lx = log(x[i]);
	}
	qsort(t, n, sizeof(*t), cmp_tagged);
	for (i = 0; i < n;) {
		size_t j = i, m;

		while (j < n && t[j].boot == t[i].boot)
			j++;
		m = j - i;
		med[k] = m % 2 ? t[i + m / 2].lx : (t[i + m / 2 - 1].lx + t[i + m / 2].lx) / 2;
		if (ids)
			ids[k] = t[i].boot;
		k++;
		i = j;
	}
	free(t);
	return (ssize_t)k;
}

static bool same_boots(const size_t *ia, size_t ka, const size_t *ib, size_t kb)
{
	return ka == kb && !memcmp(ia, ib, ka * sizeof(*ia));
}

/* Sum of squared deviations from the mean, and the mean. */
static double sum_sq(const double *v, size_t k, double *mean)
{
	double m = 0, ss = 0;
	size_t i;

	for (i = 0; i < k; i++)
		m += v[i];
	m /= (double)k;
	for (i = 0; i < k; i++)
		ss += (v[i] - m) * (v[i] - m);
	*mean = m;
	return ss;
}

/* The pooled t interval on the boots' log medians (ka + kb >= 3). */
static void boots_t(const double *ma, size_t ka, const double *mb, size_t kb, double conf,
		    struct boot_effect *be)
{
	struct effect *e = &be->e;
	double mean_a, mean_b, ss, sp, se, q, d, t;

	ss = sum_sq(ma, ka, &mean_a) + sum_sq(mb, kb, &mean_b);
	be->df = (double)(ka + kb - 2);
	sp = sqrt(ss / be->df);
	se = sp * sqrt(1.0 / (double)ka + 1.0 / (double)kb);
	d = mean_b - mean_a;
	q = gsl_cdf_tdist_Pinv(1 - (1 - conf) / 2, be->df);
	be->between_sd = expm1(sp);
	be->sd_boots = (ka > 1 ? ka : 0) + (kb > 1 ? kb : 0);
	be->sd_from = ka > 1 && kb > 1 ? BOOT_SD_BOTH : ka > 1 ? BOOT_SD_A : BOOT_SD_B;
	e->est = expm1(d);
	e->lo = expm1(d - q * se);
	e->hi = expm1(d + q * se);
	if (se > 0) {
		t = d / se;
		e->statistic = t;
		e->p = 2 * gsl_cdf_tdist_Q(fabs(t), be->df);
	} else {
		/* every boot of both groups had the same median */
		e->statistic = d == 0 ? 0 : copysign(INFINITY, d);
		e->p = d == 0 ? 1 : 0;
	}
	e->attained = conf;
	e->p_exact = true; /* exact under normal boot medians, not an approximation */
	e->method = "t-boot-medians";
	e->n_a = ka;
	e->n_b = kb;
	e->valid = true;
}

int stats_effect_boots(const double *a, const size_t *boot_a, size_t na, const double *b,
		       const size_t *boot_b, size_t nb, double conf, struct boot_effect *be)
{
	double *ma = NULL, *mb = NULL;
	size_t *ia = NULL, *ib = NULL;
	ssize_t ka, kb;

	memset(be, 0, sizeof(*be));
	be->between_sd = be->df = NAN;
	be->n_a = na;
	be->n_b = nb;
	if (!(conf > 0 && conf < 1))
		return -1;
	if (na)
		ma = xmalloc(na * sizeof(*ma)), ia = xmalloc(na * sizeof(*ia));
	if (nb)
		mb = xmalloc(nb * sizeof(*mb)), ib = xmalloc(nb * sizeof(*ib));
	ka = stats_boot_log_medians(a, boot_a, na, ma, ia);
	kb = stats_boot_log_medians(b, boot_b, nb, mb, ib);
	if (ka < 0 || kb < 0 || !ka || !kb) {
		/* the sample-level effect says what is wrong in its own words */
		stats_effect_unpaired(a, na, b, nb, conf, &be->e);
		be->level = EFFECT_LEVEL_ONE_BOOT;
		be->boots_a = ka > 0 ? (size_t)ka : 0;
		be->boots_b = kb > 0 ? (size_t)kb : 0;
		goto out;
	}
	be->boots_a = (size_t)ka;
	be->boots_b = (size_t)kb;
	if (same_boots(ia, be->boots_a, ib, be->boots_b)) {
		be->level = EFFECT_LEVEL_SAME_BOOTS;
		stats_effect_unpaired(a, na, b, nb, conf, &be->e);
	} else if (ka + kb < 3) {
		be->level = EFFECT_LEVEL_ONE_BOOT;
		stats_effect_unpaired(a, na, b, nb, conf, &be->e);
	} else {
		be->level = EFFECT_LEVEL_BOOTS;
		memset(&be->e, 0, sizeof(be->e));
		be->e.conf = conf;
		boots_t(ma, be->boots_a, mb, be->boots_b, conf, be);
	}
out:
	free(ma);
	free(mb);
	free(ia);
	free(ib);
	return 0;
}

enum verdict stats_boot_verdict(const struct boot_effect *be, double margin, int better)
{
	enum verdict v = stats_verdict(&be->e, margin, better);

	/* within-boot noise alone cannot decide between boots */
	if (be->level == EFFECT_LEVEL_ONE_BOOT && v != VERDICT_INSUFFICIENT)
		return VERDICT_INCONCLUSIVE;
	return v;
}

const char *stats_effect_level_key(enum effect_level level)
{
	switch (level) {
	case EFFECT_LEVEL_BOOTS:
		return "boots";
	case EFFECT_LEVEL_SAME_BOOTS:
		return "same-boots";
	case EFFECT_LEVEL_ONE_BOOT:
		return "one-boot";
	}
	return "?";
}

const char *stats_effect_level_unit(enum effect_level level)
{
	return level == EFFECT_LEVEL_BOOTS ? "boot" : "sample";
}
