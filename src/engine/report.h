/*
 * report.h: the model `wakebench report` renders (render/render.h), loaded
 * from compare's document and the store.
 */
#ifndef WAKEBENCH_ENGINE_REPORT_H
#define WAKEBENCH_ENGINE_REPORT_H

#include <json-c/json.h>

#include "render/render.h"
#include "store/store.h"

/*
 * Fill r from the compare document doc (taking its reference) and the
 * stored samples of its groups' parts (status ok, no warm-ups, as compare
 * reads them), within one read snapshot begun by the caller. Returns 0, or
 * -1 after saying why.
 */
int rep_load(struct store *st, json_object *doc, const struct store_filter *f, struct rep *r);
void rep_release(struct rep *r);

/*
 * The grouping of explicit experiments: what sets them apart, an ab's
 * feature ("feature:NAME"), else the kernel, the label or the host
 * (malloc'd; NULL when nothing does).
 */
char *rep_auto_by(struct store *st, const int64_t *ids, size_t n);
/*
 * The grouping of a report without EXP... or --by: the feature when every
 * experiment the filter selects is an ab of that one feature
 * ("feature:NAME", malloc'd), else NULL (compare's default, the kernel).
 */
char *rep_default_by(struct store *st, const struct store_filter *f);
/*
 * The raw data the HTML embeds (export's document, compressed and
 * encoded) into r->data, or why it is left out in r->data_why: no_data,
 * or more than data_limit bytes encoded (0: no limit). *ret becomes
 * EXIT_RUNTIME when it cannot be made.
 */
void rep_embed_data(struct store *st, struct rep *r, bool no_data, uint64_t data_limit, int *ret);

#endif
