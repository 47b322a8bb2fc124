/*
 * hist.h: a log-linear latency histogram with bounded relative error
 * (schbench's plat_val_to_idx idea): values below 2^HIST_SUB_BITS are kept
 * exactly; above, every power-of-two range is split into 2^HIST_SUB_BITS
 * equal buckets, so a percentile read from a bucket's midpoint is within
 * HIST_REL_ERROR of a value in that bucket. Memory is fixed, recording is
 * O(1) without allocation, histograms of several CPUs or threads are merged
 * after the run, and values beyond the range are counted, not dropped.
 */
#ifndef WAKEBENCH_HIST_H
#define WAKEBENCH_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 7	 /* 128 buckets per power of two */
#define HIST_MAX_BITS 40 /* values >= 2^40 (about 18 minutes in ns) overflow */
#define HIST_GROUPS   (HIST_MAX_BITS - HIST_SUB_BITS + 1)
#define HIST_BUCKETS  (HIST_GROUPS << HIST_SUB_BITS)

/* Worst relative error of hist_percentile() against the nearest-rank truth. */
#define HIST_REL_ERROR (1.0 / (double)(1u << (HIST_SUB_BITS + 1)))

struct hist {
	uint64_t count;	   /* all recorded values, overflow included */
	uint64_t overflow; /* values >= 2^HIST_MAX_BITS */
	uint64_t min, max; /* exact; min is UINT64_MAX while empty */
	double sum;	   /* for the mean */
	uint64_t buckets[HIST_BUCKETS];
};

void hist_init(struct hist *h);
void hist_record(struct hist *h, uint64_t value);
/* Add every count of src to dst. */
void hist_merge(struct hist *dst, const struct hist *src);
/*
 * The p-quantile (0 < p <= 1) by the nearest-rank rule, as the midpoint of
 * its bucket clamped to [min, max] (exact below 2^HIST_SUB_BITS). A rank
 * that falls among overflowed values returns max. 0 when empty.
 */
uint64_t hist_percentile(const struct hist *h, double p);
double hist_mean(const struct hist *h);

/* The bucket index of a value, and the [lo, hi] range of an index (for tests). */
unsigned hist_index(uint64_t value);
void hist_bucket_range(unsigned index, uint64_t *lo, uint64_t *hi);

#endif
