/*
 * export.h: the export codecs: wakebench's own JSON document (what
 * `import` merges and `report` embeds) and CSV, written to any stream.
 */
#ifndef WAKEBENCH_ENGINE_EXPORT_H
#define WAKEBENCH_ENGINE_EXPORT_H

#include <stddef.h>
#include <stdio.h>

#include "store/store.h"

/*
 * {"format": "wakebench-export", "version": 2, "schema": N, "experiments":
 * [...]} of exps (each with its configs among cfgs), one experiment at a
 * time. 0, or -1 after saying why.
 */
int export_json(FILE *out, struct store *st, const struct store_experiment *exps, size_t n,
		const struct store_config *cfgs, size_t ncfg);
/* One row per sample of the experiments f matches. 0, or -1 after saying why. */
int export_csv(FILE *out, struct store *st, const struct store_filter *f);

#endif
