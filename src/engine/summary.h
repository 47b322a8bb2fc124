/*
 * summary.h: the summary of one config computed from its samples
 * (core/summary.h holds the struct).
 */
#ifndef WAKEBENCH_ENGINE_SUMMARY_H
#define WAKEBENCH_ENGINE_SUMMARY_H

#include "core/summary.h"

/*
 * Summarise the usable samples of s[0..n) (warm-ups, failed and
 * interrupted samples are counted but excluded). primary is the registry
 * name of the workload's primary metric (NULL: ops_per_s): it comes first
 * and decides the noise warning. Returns 0, or -1 when the
 * statistics could not be computed (already reported).
 */
int report_summarize(const struct sample *s, size_t n, const char *primary,
		     struct report_summary *rs);
void report_summary_release(struct report_summary *rs);

#endif
