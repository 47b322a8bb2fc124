/*
 * hist.c: the log-linear histogram of hist.h. Index layout: group 0 holds
 * the values 0..2^B-1 one per bucket (B = HIST_SUB_BITS); group g >= 1
 * holds [2^(B+g-1), 2^(B+g)) in 2^B buckets of width 2^(g-1). A bucket's
 * width is therefore at most 2^-B of its lower bound, and its midpoint is
 * within 2^-(B+1) of any value in it.
 */
#include "core/hist.h"

#include <string.h>

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

static unsigned msb64(uint64_t v)
{
	return 63u - (unsigned)__builtin_clzll(v);
}

unsigned hist_index(uint64_t value)
{
	unsigned msb, group;

	if (value < (1u << HIST_SUB_BITS))
		return (unsigned)value;
	msb = msb64(value);
	group = msb - HIST_SUB_BITS + 1;
	return (group << HIST_SUB_BITS) +
	       (unsigned)((value >> (msb - HIST_SUB_BITS)) & ((1u << HIST_SUB_BITS) - 1));
}

void hist_bucket_range(unsigned index, uint64_t *lo, uint64_t *hi)
{
	unsigned group = index >> HIST_SUB_BITS;
	uint64_t sub = index & ((1u << HIST_SUB_BITS) - 1);
	uint64_t width;

	if (group == 0) {
		*lo = *hi = sub;
		return;
	}
	width = 1ULL << (group - 1);
	*lo = ((1ULL << HIST_SUB_BITS) + sub) * width;
	*hi = *lo + width - 1;
}

void hist_record(struct hist *h, uint64_t value)
{
	h->count++;
	h->sum += (double)value;
	if (value < h->min)
		h->min = value;
	if (value > h->max)
		h->max = value;
	if (value >> HIST_MAX_BITS) {
		h->overflow++;
		return;
	}
	h->buckets[hist_index(value)]++;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	unsigned i;

	if (!src->count)
		return;
	dst->count += src->count;
	dst->overflow += src->overflow;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	for (i = 0; i < HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0, lo, hi, mid;
	unsigned i;

	if (!h->count)
		return 0;
	if (p <= 0)
		return h->min;
	if (p >= 1)
		return h->max;
	/* nearest rank: the smallest value with at least ceil(p * n) values <= it */
	rank = (uint64_t)(p * (double)h->count);
	if ((double)rank < p * (double)h->count)
		rank++;
	if (rank == 0)
		rank = 1;
	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank)
			break;
	}
	if (i == HIST_BUCKETS)
		return h->max; /* among the overflowed values */
	hist_bucket_range(i, &lo, &hi);
	mid = lo + (hi - lo) / 2;
	if (mid < h->min)
		mid = h->min;
	if (mid > h->max)
		mid = h->max;
	return mid;
}

double hist_mean(const struct hist *h)
{
	return h->count ? h->sum / (double)h->count : 0.0;
}
