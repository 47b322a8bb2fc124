/*
 * number.c: numbers as tables and reports write them (number.h).
 */
#include "util/number.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void fmt_grouped(double v, char *buf, size_t len)
{
	char digits[64];
	size_t nd, i, o = 0;

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return;
	}
	if (fabs(v) < 1000) {
		snprintf(buf, len, "%.4g", v);
		return;
	}
	snprintf(digits, sizeof(digits), "%.0f", fabs(v));
	nd = strlen(digits);
	if (v < 0 && o + 1 < len)
		buf[o++] = '-';
	for (i = 0; i < nd && o + 2 < len; i++) {
		if (i && (nd - i) % 3 == 0)
			buf[o++] = ' ';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

void fmt_pct(double frac, char *buf, size_t len)
{
	if (!isfinite(frac))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f%%", frac * 100.0);
}

void fmt_p(double p, char *buf, size_t len)
{
	if (!isfinite(p))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, p < 0.0001 ? "<0.0001" : "%.4f", p);
}
