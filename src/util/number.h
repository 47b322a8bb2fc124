/*
 * number.h: how numbers read in every table and report of wakebench, so
 * that `compare`, `report` (text, Markdown, HTML) and the others write one
 * value the same way.
 */
#ifndef WAKEBENCH_UTIL_NUMBER_H
#define WAKEBENCH_UTIL_NUMBER_H

#include <stddef.h>

/*
 * 2487746.3 -> "2 487 746" (digits grouped by threes, as ops/s read);
 * values under 1000 (seconds per run, ns per hop) keep four significant
 * digits: 576.56 -> "576.6"; "-" when not finite.
 */
void fmt_grouped(double v, char *buf, size_t len);
/* A relative change: 0.0781 -> "+7.8%"; "-" when not finite. */
void fmt_pct(double frac, char *buf, size_t len);
/* A p-value: "0.0015", "<0.0001"; "-" when not finite. */
void fmt_p(double p, char *buf, size_t len);

#endif
