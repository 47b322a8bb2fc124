/*
 * ab.h: an ab experiment's result (core/ab.h) as text and JSON, the same
 * lines and members wherever it is shown: `ab` itself, `show`, `export`.
 */
#ifndef WAKEBENCH_RENDER_AB_H
#define WAKEBENCH_RENDER_AB_H

#include <stdbool.h>
#include <stdio.h>

#include <json-c/json.h>

#include "core/ab.h"

/*
 * The result, as ab and show print it: the evidence lines, the effects on
 * the primary metric (ptitle: its name in text, "ops/s") with their tests,
 * the interaction, and last, alone, one line per token with the effect,
 * its CI and the verdict.
 */
void render_ab_text(FILE *f, const struct ab_result *r, const char *ptitle, bool interrupted);
/* Adds "effects", "sequential", "evidence" and "evidence_adjustment" to o. */
void render_ab_json(const struct ab_result *r, json_object *o);
/* One effect line as JSON (ab's effects and evidence, the KCIDB verdicts' misc). */
json_object *render_ab_line_json(const struct ab_line *x);
/*
 * ab's own output before the result: each arm's summary (one line; the
 * whole table with verbose) and --ceiling's line, what differs between
 * the arms beside the features, the toggles.
 */
void render_ab_run_text(FILE *f, const struct ab_run_view *v, bool verbose);
/* Adds "arms", "units", the result's members and "environment_differences" to o. */
void render_ab_run_json(const struct ab_run_view *v, json_object *o);
/* ab's first lines: the profile, the arms, the plan. */
void render_ab_plan(FILE *f, const struct ab_plan *p);
/* A unit as it is done. */
void render_ab_unit(FILE *f, const struct ab_unit_line *l);

#endif
