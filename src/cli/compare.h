/*
 * compare.h: `compare`'s text and CSV renderers (compare-text.c), from the
 * engine's result (engine/compare.h).
 */
#ifndef WAKEBENCH_CLI_COMPARE_H
#define WAKEBENCH_CLI_COMPARE_H

#include "engine/compare.h"

/* The text `compare` prints: the table, posted results, inference, evidence, environment. */
void compare_print_text(const struct compare *c);
/* One CSV row per group. */
void compare_print_csv(const struct compare *c);

#endif
