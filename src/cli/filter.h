/*
 * filter.h: the experiment filters that `compare` and `export` share
 * (--workload, --profile, --label, --kernel, --host, --since), declared once
 * as an option group, and the CSV field writers both use.
 */
#ifndef WAKEBENCH_FILTER_H
#define WAKEBENCH_FILTER_H

#include <stdbool.h>

#include "store/store.h"
#include "util/opts.h"

struct filter_params {
	struct strlist workload, profile, label, kernel, host; /* each repeatable: any of them */
	const char *since;
};

/* The filters as an option group filling fp. */
struct opt_group filter_group(struct filter_params *fp);

/* Fill f from fp; exit 2 naming '--since' when its value is malformed. */
void filter_resolve(const char *cmd, const struct filter_params *fp, struct store_filter *f);

#endif
