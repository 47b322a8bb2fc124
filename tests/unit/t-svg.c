/*
 * t-svg.c: the plotting module of `report` (render/svg.h): scales map and
 * reverse as asked, ticks fall on 1-2-5 steps inside the domain, nice
 * domains widen to round numbers, tick labels are short and ASCII, text is
 * escaped for XML, bands split the range evenly, and the marks write the
 * elements and attributes they promise.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "render/svg.h"

static void test_linear(void **state)
{
	struct scale s;

	(void)state;
	scale_linear(&s, 0, 100, 300, 20);
	assert_close(scale_map(&s, 0), 300, 1e-9);
	assert_close(scale_map(&s, 100), 20, 1e-9);
	assert_close(scale_map(&s, 50), 160, 1e-9);
	/* reversed domain (lower is better drawn upwards): the low value at the top */
	scale_linear(&s, 100, 0, 300, 20);
	assert_close(scale_map(&s, 0), 20, 1e-9);
	assert_close(scale_map(&s, 25), 90, 1e-9);
	/* a degenerate domain is widened, never a division by zero */
	scale_linear(&s, 5, 5, 0, 100);
	assert_true(s.d0 < 5 && s.d1 > 5);
	assert_close(scale_map(&s, 5), 50, 1e-9);
	scale_linear(&s, 0, 0, 0, 100);
	assert_close(scale_map(&s, 0), 50, 1e-9);
}

static void test_log(void **state)
{
	struct scale s;

	(void)state;
	scale_log(&s, 10, 1000, 0, 200);
	assert_close(scale_map(&s, 10), 0, 1e-9);
	assert_close(scale_map(&s, 100), 100, 1e-9);
	assert_close(scale_map(&s, 1000), 200, 1e-9);
	/* values at or below zero are clamped to the low end */
	assert_close(scale_map(&s, 0), 0, 1e-9);
	assert_close(scale_map(&s, -5), 0, 1e-9);
}

static void test_nice_and_ticks(void **state)
{
	struct scale s;
	double t[64];
	size_t n, i;

	(void)state;
	scale_linear(&s, 1640123, 2499381, 300, 20);
	scale_nice(&s, 6);
	assert_close(s.d0, 1600000, 1e-6);
	assert_close(s.d1, 2500000, 1e-6);
	n = scale_ticks(&s, 6, t, 64);
	assert_int_equal(n, 5);
	for (i = 0; i < n; i++)
		assert_close(t[i], 1600000 + 200000.0 * (double)i, 1e-6);
	assert_close(scale_tick_step(&s, 6), 200000, 1e-6);
	/* reversed: nice keeps the direction, ticks still ascend */
	scale_linear(&s, 152.3, 148.1, 0, 100);
	scale_nice(&s, 4);
	assert_true(s.d0 > s.d1);
	assert_close(s.d0, 153, 1e-9);
	assert_close(s.d1, 148, 1e-9);
	n = scale_ticks(&s, 4, t, 64);
	assert_true(n >= 3);
	for (i = 1; i < n; i++)
		assert_true(t[i] > t[i - 1]);
	/* a domain across zero has an exact 0 tick */
	scale_linear(&s, -3.3, 2.1, 0, 100);
	n = scale_ticks(&s, 6, t, 64);
	for (i = 0; i < n && t[i] != 0; i++)
		;
	assert_true(i < n);
	/* log: 1, 2, 5 per decade; powers only across many decades */
	scale_log(&s, 1, 100, 0, 100);
	n = scale_ticks(&s, 8, t, 64);
	assert_int_equal(n, 7);
	assert_close(t[0], 1, 1e-12);
	assert_close(t[1], 2, 1e-12);
	assert_close(t[6], 100, 1e-9);
	scale_log(&s, 1, 1e9, 0, 100);
	n = scale_ticks(&s, 6, t, 64);
	assert_int_equal(n, 10);
	assert_close(t[3], 1000, 1e-9);
	/* the limit on the output is kept */
	scale_linear(&s, 0, 1000, 0, 100);
	assert_int_equal(scale_ticks(&s, 500, t, 8), 8);
}

static void test_fmt(void **state)
{
	char b[32];

	(void)state;
	svg_fmt_num(2487746, 3, b, sizeof(b));
	assert_string_equal(b, "2.49M");
	svg_fmt_num(2487746, 4, b, sizeof(b));
	assert_string_equal(b, "2.488M");
	svg_fmt_num(-45000, 3, b, sizeof(b));
	assert_string_equal(b, "-45k");
	svg_fmt_num(1500, 3, b, sizeof(b));
	assert_string_equal(b, "1500");
	svg_fmt_num(12500, 3, b, sizeof(b));
	assert_string_equal(b, "12.5k");
	svg_fmt_num(150, 3, b, sizeof(b));
	assert_string_equal(b, "150");
	svg_fmt_num(0.0042, 3, b, sizeof(b));
	assert_string_equal(b, "0.0042");
	svg_fmt_num(0, 3, b, sizeof(b));
	assert_string_equal(b, "0");
	svg_fmt_num(3e9, 3, b, sizeof(b));
	assert_string_equal(b, "3G");
	svg_fmt_num(NAN, 3, b, sizeof(b));
	assert_string_equal(b, "-");
}

static void test_band(void **state)
{
	struct band b = { .n = 4, .r0 = 100, .r1 = 500, .pad = 0.5 };

	(void)state;
	assert_close(band_center(&b, 0), 150, 1e-9);
	assert_close(band_center(&b, 3), 450, 1e-9);
	assert_close(band_width(&b), 50, 1e-9);
}

static void test_xml(void **state)
{
	struct sbuf b = { 0 };

	(void)state;
	sbuf_add_xml(&b, "a<b & \"c\" 'd'>");
	assert_string_equal(b.buf, "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
	sbuf_release(&b);
	/* a control character and invalid UTF-8 from a hostile store stay visible and well-formed
	 */
	sbuf_add_xml(&b, "x\033[31m\xff");
	assert_string_equal(b.buf, "x\\x1b[31m\\xff");
	sbuf_release(&b);
	sbuf_add_xml(&b, NULL);
	assert_int_equal(b.len, 0);
	sbuf_addf(&b, "%d-%s", 42, "x");
	sbuf_puts(&b, "!");
	assert_string_equal(b.buf, "42-x!");
	assert_int_equal(b.len, 5);
	sbuf_release(&b);
}

static void test_marks(void **state)
{
	struct svg_frame f = {
		.width = 200, .height = 100, .left = 30, .right = 10, .top = 10, .bottom = 20
	};
	struct scale y;
	struct band x = { .n = 2, .r0 = 30, .r1 = 190, .pad = 0.2 };
	const char *labels[] = { "6.6", "a-label-much-too-long-for-its-band" };
	double xs[] = { 1, 2.25 }, ys[] = { 3, 4 };
	struct sbuf b = { 0 };

	(void)state;
	svg_begin(&b, &f, "t<1>");
	assert_non_null(strstr(
		b.buf, "<svg class=\"plot\" width=\"200\" height=\"100\" viewBox=\"0 0 200 100\""));
	assert_non_null(strstr(b.buf, "<title>t&lt;1&gt;</title>"));
	/* the plot area's background spans the frame's inner box */
	assert_non_null(strstr(
		b.buf,
		"<rect x=\"30.0\" y=\"10.0\" width=\"160.0\" height=\"70.0\" class=\"area\"/>"));
	scale_linear(&y, 0, 10, 80, 10);
	svg_axis_y(&b, &f, &y, 5, "ops/s");
	assert_non_null(strstr(
		b.buf, "<text x=\"26.0\" y=\"83.5\" text-anchor=\"end\" class=\"tick\">0</text>"));
	assert_non_null(strstr(b.buf, ">ops/s</text>"));
	svg_axis_band(&b, &f, &x, labels);
	assert_non_null(strstr(b.buf, ">6.6</text>"));
	/* shortened in the middle, with the whole label as its title */
	assert_non_null(strstr(b.buf, "<title>a-label-much-too-long-for-its-band</title>"));
	assert_non_null(strstr(b.buf, ">a-lab..-band</text>"));
	svg_circle(&b, 1.26, 2, 3, "pt g1");
	assert_non_null(strstr(b.buf, "<circle cx=\"1.3\" cy=\"2.0\" r=\"3.0\" class=\"pt g1\"/>"));
	svg_rect(&b, 10, 50, 20, 40, NULL);
	assert_non_null(
		strstr(b.buf, "<rect x=\"10.0\" y=\"40.0\" width=\"10.0\" height=\"10.0\"/>"));
	svg_polyline(&b, xs, ys, 2, "cdf");
	assert_non_null(strstr(b.buf, "<polyline points=\"1.0,3.0 2.2,4.0\" class=\"cdf\"/>"));
	svg_group_begin(&b, "grp g0", "6.6 & co");
	svg_group_end(&b);
	assert_non_null(strstr(b.buf, "<g class=\"grp g0\"><title>6.6 &amp; co</title>\n</g>\n"));
	svg_end(&b);
	assert_int_equal(strcmp(b.buf + b.len - 7, "</svg>\n"), 0);
	sbuf_release(&b);
}

static void test_axes_at(void **state)
{
	struct svg_frame f = {
		.width = 200, .height = 100, .left = 30, .right = 10, .top = 10, .bottom = 20
	};
	const char *labels[] = { "-50%", "0%", "+100%" };
	double at[] = { 40, 100, 160 };
	struct sbuf b = { 0 };

	(void)state;
	/* ticks where the caller puts them, labelled as it says */
	svg_axis_x_at(&b, &f, at, labels, 3, "change");
	assert_non_null(strstr(
		b.buf,
		"<text x=\"160.0\" y=\"93.0\" text-anchor=\"middle\" class=\"tick\">+100%</text>"));
	assert_non_null(strstr(
		b.buf, "<line x1=\"40.0\" y1=\"10.0\" x2=\"40.0\" y2=\"80.0\" class=\"grid\"/>"));
	assert_non_null(strstr(b.buf, ">change</text>"));
	sbuf_release(&b);
	svg_axis_y_at(&b, &f, at, labels, 3, NULL);
	assert_non_null(strstr(
		b.buf,
		"<text x=\"26.0\" y=\"43.5\" text-anchor=\"end\" class=\"tick\">-50%</text>"));
	sbuf_release(&b);
	/* text that fits is written as it is; longer text is cut in the middle, whole in its title
	 */
	svg_text_fit(&b, 5, 6, "end", NULL, "6.6", 50);
	assert_string_equal(b.buf, "<text x=\"5.0\" y=\"6.0\" text-anchor=\"end\">6.6</text>\n");
	sbuf_release(&b);
	svg_text_fit(&b, 5, 6, "end", NULL, "6.18.44-fc-v1098 [kernel.preempt=none]", 65);
	assert_string_equal(b.buf,
			    "<text x=\"5.0\" y=\"6.0\" text-anchor=\"end\"><title>"
			    "6.18.44-fc-v1098 [kernel.preempt=none]</title>6.18..one]</text>\n");
	sbuf_release(&b);
	/* never cut inside a UTF-8 sequence */
	svg_text_fit(&b, 0, 0, "start", NULL, "ab\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 33);
	assert_non_null(strstr(b.buf, "</title>ab..</text>"));
	sbuf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linear),	       cmocka_unit_test(test_log),
		cmocka_unit_test(test_nice_and_ticks), cmocka_unit_test(test_fmt),
		cmocka_unit_test(test_band),	       cmocka_unit_test(test_xml),
		cmocka_unit_test(test_marks),	       cmocka_unit_test(test_axes_at),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
