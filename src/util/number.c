/*
 * number.c: numbers as people read them (number.h). The digits come from
 * printf's "%.*e", which rounds correctly, and are then laid out by hand:
 * "%g" would switch to an exponent below 1e-4 and above 1e4.
 */
#include "util/number.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Append the digits of whole to buf[*o], grouped by threes from the right. */
static void put_grouped(const char *whole, char *buf, size_t len, size_t *o)
{
	size_t n = strlen(whole), i;

	for (i = 0; i < n && *o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[(*o)++] = ' ';
		buf[(*o)++] = whole[i];
	}
	buf[*o] = '\0';
}

/*
 * |v| (finite, not 0) rounded to NUM_DIGITS significant digits: the digits
 * into d (NUM_DIGITS of them); returns the power of ten of the first one.
 */
static int sig_digits(double v, char d[NUM_DIGITS + 1])
{
	char e[64], *p = e;
	size_t k = 0;

	snprintf(e, sizeof(e), "%.*e", NUM_DIGITS - 1, fabs(v));
	for (; *p && *p != 'e'; p++)
		if (*p >= '0' && *p <= '9' && k < NUM_DIGITS)
			d[k++] = *p;
	d[k] = '\0';
	return *p == 'e' ? atoi(p + 1) : 0;
}

void fmt_num(double v, char *buf, size_t len)
{
	char d[NUM_DIGITS + 1], whole[400], frac[400];
	size_t o = 0, w = 0, f = 0;
	int exp, i;

	if (!len)
		return;
	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return;
	}
	if (v == 0) {
		snprintf(buf, len, "0");
		return;
	}
	/* d[0] stands for 10^exp, d[i] for 10^(exp - i) */
	exp = sig_digits(v, d);
	if (exp > 300 || exp < -300) {
		/* no measurement is this far out: say so rather than print 300 zeros */
		snprintf(buf, len, "%s", exp > 0 ? "(huge)" : "(tiny)");
		return;
	}
	if (exp < 0)
		whole[w++] = '0';
	for (i = exp; i >= 0; i--)
		whole[w++] = exp - i < NUM_DIGITS ? d[exp - i] : '0';
	for (i = -1; i >= exp - (NUM_DIGITS - 1); i--)
		frac[f++] = i > exp ? '0' : d[exp - i];
	whole[w] = '\0';
	while (f && frac[f - 1] == '0')
		f--;
	frac[f] = '\0';
	if (v < 0 && o + 1 < len)
		buf[o++] = '-';
	put_grouped(whole, buf, len, &o);
	if (frac[0])
		snprintf(buf + o, len - o, ".%s", frac);
}

void fmt_count(uint64_t v, char *buf, size_t len)
{
	char whole[32];
	size_t o = 0;

	if (!len)
		return;
	snprintf(whole, sizeof(whole), "%llu", (unsigned long long)v);
	put_grouped(whole, buf, len, &o);
}

void fmt_time(double s, char *buf, size_t len)
{
	static const struct {
		double below; /* seconds: the unit serves values under this */
		double scale;
		const char *unit;
	} units[] = { { 1e-6, 1e9, "ns" }, { 1e-3, 1e6, "us" }, { 1, 1e3, "ms" } };
	char r_text[64], num[400];
	double r;
	size_t i;

	if (!isfinite(s)) {
		snprintf(buf, len, "-");
		return;
	}
	if (s == 0) {
		snprintf(buf, len, "0 s");
		return;
	}
	/* the unit of the rounded value: 999.96 us is "1 ms", not "1 000 us" */
	snprintf(r_text, sizeof(r_text), "%.*e", NUM_DIGITS - 1, fabs(s));
	r = strtod(r_text, NULL);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (r < units[i].below) {
			fmt_num(s * units[i].scale, num, sizeof(num));
			snprintf(buf, len, "%s %s", num, units[i].unit);
			return;
		}
	fmt_num(s, num, sizeof(num));
	snprintf(buf, len, "%s s", num);
}

bool num_unit_is_time(const char *unit)
{
	return unit && (!strcmp(unit, "ns") || !strcmp(unit, "s"));
}

void fmt_quantity(double v, const char *unit, char *buf, size_t len)
{
	char num[400];

	if (num_unit_is_time(unit)) {
		fmt_time(!strcmp(unit, "ns") ? v / 1e9 : v, buf, len);
		return;
	}
	fmt_num(v, num, sizeof(num));
	if (!isfinite(v) || !unit || !unit[0])
		snprintf(buf, len, "%s", num);
	else
		snprintf(buf, len, "%s %s", num, unit);
}

void fmt_value(double v, const char *unit, char *buf, size_t len)
{
	if (num_unit_is_time(unit))
		fmt_quantity(v, unit, buf, len);
	else
		fmt_num(v, buf, len);
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
