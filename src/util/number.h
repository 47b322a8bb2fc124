/*
 * number.h: how numbers read in every text wakebench writes for people
 * (run, ab, show, compare, report as text, email, Markdown and HTML), so
 * that one value reads the same wherever it is printed. JSON and CSV keep
 * every digit and do not come here.
 *
 * One rule: NUM_DIGITS significant digits, plain digits (no exponent, no
 * SI suffix), the whole part grouped by threes with a space. Four digits
 * round a value by at most 0.05% (half a unit in the fourth digit of
 * 1000), forty times finer than the default 2% margin, so two values a
 * margin apart never print alike; a fifth digit would mostly show noise.
 */
#ifndef WAKEBENCH_UTIL_NUMBER_H
#define WAKEBENCH_UTIL_NUMBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NUM_DIGITS 4

/*
 * A measured value: 423672.77 -> "423 700", 3124.92 -> "3 125",
 * 0.130651 -> "0.1307", 1.92e-05 -> "0.0000192", 2.0 -> "2" (trailing
 * zeros of a fraction dropped); "-" when not finite.
 */
void fmt_num(double v, char *buf, size_t len);
/* A count, exact: 2109375 -> "2 109 375". */
void fmt_count(uint64_t v, char *buf, size_t len);
/*
 * A time in seconds with the unit that keeps it short: 38043673e-9 ->
 * "38.04 ms", 4.559e-6 -> "4.559 us", 0.508 -> "508 ms", 75 -> "75 s".
 * "us", as durations are typed and printed everywhere else.
 */
void fmt_time(double s, char *buf, size_t len);
/*
 * A value with its unit: a time ("ns" or "s") by fmt_time(), anything else
 * by fmt_num() followed by the unit ("1 253 000 ops/s"; no unit: the number).
 */
void fmt_quantity(double v, const char *unit, char *buf, size_t len);
/*
 * A value in a table whose label names the unit ("ops/s", "ctxsw/op"): a
 * time still by fmt_time(), with its unit, since its unit is chosen per
 * value ("38.04 ms"); anything else by fmt_num() alone.
 */
void fmt_value(double v, const char *unit, char *buf, size_t len);
/* True for the units fmt_quantity() and fmt_value() print as a time. */
bool num_unit_is_time(const char *unit);
/* A relative change: 0.0781 -> "+7.8%"; "-" when not finite. */
void fmt_pct(double frac, char *buf, size_t len);
/* A p-value: "0.0015", "<0.0001"; "-" when not finite. */
void fmt_p(double p, char *buf, size_t len);

#endif
