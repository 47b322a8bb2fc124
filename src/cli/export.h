/*
 * export.h: the JSON document of `wakebench export` for other commands:
 * `report` embeds it, so that `import` reads a report's data as it reads
 * an export.
 */
#ifndef WAKEBENCH_EXPORT_H
#define WAKEBENCH_EXPORT_H

#include <stddef.h>

#include "store/store.h"

/*
 * Write the export document of exps[0..n) (their configs among
 * cfgs[0..ncfg)) on stdout, one experiment at a time. 0, or -1 after
 * saying why.
 */
int export_json(struct store *st, const struct store_experiment *exps, size_t n,
		const struct store_config *cfgs, size_t ncfg);

#endif
