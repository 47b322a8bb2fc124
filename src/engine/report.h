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

#endif
