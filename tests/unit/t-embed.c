/*
 * t-embed.c: the raw data a report carries (report/embed.c): what is
 * written reads back byte for byte, also after the damage mail does
 * harmlessly (CRLF line ends, lines re-wrapped, indentation); every other
 * damage (a changed character, a cut, a foreign character, a wrong size)
 * is refused with a reason, and a size limit leaves the data out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "render/render.h"

/* A JSON-like document of n samples, with digits that do not repeat. */
static char *doc_of(size_t n, size_t *len)
{
	struct sbuf b = { 0 };
	uint64_t x = 88172645463325252ull;
	size_t i;

	sbuf_puts(&b, "{\"format\":\"wakebench-export\",\"samples\":[");
	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		sbuf_addf(&b, "%s{\"index\":%zu,\"ops_per_s\":%.15g}", i ? "," : "", i,
			  (double)(x >> 11) / 3e9);
	}
	sbuf_puts(&b, "]}");
	*len = b.len;
	return b.buf;
}

static void roundtrip(const char *html, size_t hlen, const char *doc, size_t len)
{
	char *got, why[256] = "";
	size_t glen;

	assert_true(embed_detect(html, hlen));
	if (embed_extract(html, hlen, &got, &glen, why, sizeof(why)))
		fail_msg("extract: %s", why);
	assert_int_equal(glen, len);
	assert_memory_equal(got, doc, len);
	free(got);
}

static char *page(const struct sbuf *data)
{
	return xasprintf("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
			 "<meta name=\"generator\" content=\"wakebench test\"/>\n</head>\n"
			 "<body><p>before</p><details><summary>data</summary>\n%s</details>"
			 "<p>after</p></body></html>",
			 data->buf);
}

static void test_roundtrip(void **state)
{
	size_t sizes[] = { 0, 1, 2, 3, 4, 100, 20000 }, i, len, enc;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		char *doc = doc_of(sizes[i], &len), *html;
		struct sbuf b = { 0 };
		const char *p;

		assert_int_equal(embed_write(&b, doc, len, 0, &enc), 0);
		/* base64 in lines of at most 76, nothing HTML would escape */
		for (p = strchr(b.buf, '>') + 1; *p && *p != '<'; p++)
			assert_non_null(
				strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				       "0123456789+/=\n",
				       *p));
		for (p = strchr(b.buf, '>') + 2; *p && *p != '<'; p = strchr(p, '\n') + 1)
			assert_true(strcspn(p, "\n") <= 76);
		html = page(&b);
		roundtrip(html, strlen(html), doc, len);
		free(html);
		sbuf_release(&b);
		free(doc);
	}
	/* tiny inputs: every length modulo 3 */
	for (i = 0; i < 7; i++) {
		const char *doc = "abcdefg";
		struct sbuf b = { 0 };
		char *html;

		assert_int_equal(embed_write(&b, doc, i, 0, &enc), 0);
		html = page(&b);
		roundtrip(html, strlen(html), doc, i);
		free(html);
		sbuf_release(&b);
	}
}

/* Mail's harmless damage: CRLF, re-wrapped lines, indentation. */
static void test_mail_damage(void **state)
{
	size_t len, enc, i;
	char *doc = doc_of(3000, &len), *html;
	struct sbuf b = { 0 }, m = { 0 };

	(void)state;
	assert_int_equal(embed_write(&b, doc, len, 0, &enc), 0);
	html = page(&b);
	for (i = 0; html[i]; i++) {
		if (html[i] == '\n')
			sbuf_puts(&m, "\r\n  ");
		else
			sbuf_add(&m, html + i, 1);
		if (i % 50 == 0 && html[i] >= 'A' && html[i] <= 'Z')
			sbuf_puts(&m, "\r\n");
	}
	roundtrip(m.buf, m.len, doc, len);
	free(html);
	sbuf_release(&m);
	sbuf_release(&b);
	free(doc);
}

static void refused(const char *html, const char *want)
{
	char *got = NULL, why[256] = "";
	size_t glen;

	assert_int_equal(embed_extract(html, strlen(html), &got, &glen, why, sizeof(why)), -1);
	assert_null(got);
	if (!strstr(why, want))
		fail_msg("why '%s', expected '%s'", why, want);
}

static void test_damage(void **state)
{
	size_t len, enc;
	char *doc = doc_of(500, &len), *html, *p, orig;
	struct sbuf b = { 0 };

	(void)state;
	assert_int_equal(embed_write(&b, doc, len, 0, &enc), 0);
	html = page(&b);
	refused("<!DOCTYPE html>\n<html><body>no data</body></html>", "no raw data block");
	/* one character changed in the middle */
	p = strchr(strstr(html, "<pre"), '>') + 100;
	orig = *p;
	*p = orig == 'Q' ? 'R' : 'Q';
	refused(html, "raw data block");
	*p = orig;
	roundtrip(html, strlen(html), doc, len);
	/* a foreign character */
	*p = '%';
	refused(html, "not base64");
	*p = orig;
	free(html);
	/* cut short: no closing tag, or fewer bytes than announced */
	html = page(&b);
	*strstr(html, "</pre>") = '\0';
	refused(html, "cut");
	free(html);
	html = page(&b);
	p = strstr(html, "</pre>") - 1;
	memmove(p - 40, p, strlen(p) + 1);
	refused(html, "announces");
	free(html);
	/* the announced size altered */
	html = page(&b);
	p = strstr(html, "data-bytes=\"") + 12;
	*p = *p == '9' ? '8' : '9';
	refused(html, "raw data block");
	free(html);
	/* an unknown encoding */
	html = page(&b);
	p = strstr(html, "zlib+base64");
	memcpy(p, "gzip", 4);
	refused(html, "unknown encoding");
	free(html);
	sbuf_release(&b);
	free(doc);
}

static void test_checksum(void **state)
{
	const char *doc = "{\"format\":\"wakebench-export\"}";
	size_t enc;
	struct sbuf b = { 0 };
	char *html, *p;

	(void)state;
	assert_int_equal(embed_write(&b, doc, strlen(doc), 0, &enc), 0);
	html = page(&b);
	p = strstr(html, "data-sha256=\"") + 13;
	*p = *p == 'a' ? 'b' : 'a';
	refused(html, "SHA-256");
	free(html);
	sbuf_release(&b);
}

static void test_limit(void **state)
{
	size_t len, enc = 0, full;
	char *doc = doc_of(20000, &len);
	struct sbuf b = { 0 };

	(void)state;
	assert_int_equal(embed_write(&b, doc, len, 0, &full), 0);
	sbuf_release(&b);
	assert_int_equal(embed_write(&b, doc, len, full / 2, &enc), -1);
	assert_int_equal(b.len, 0);
	assert_true(enc > full / 2);
	assert_int_equal(embed_write(&b, doc, len, full + 200, &enc), 0);
	assert_true(b.len > full);
	sbuf_release(&b);
	free(doc);
}

/*
 * A decompression bomb: a block that announces more than the limits allow
 * (64 times its compressed size, or an absolute size) is refused before
 * anything is decompressed; one that lies about its size is cut where the
 * announced size ends, so no more than that ever comes out.
 */
struct counted {
	size_t bytes, calls;
};

static int count_piece(void *arg, const void *buf, size_t len)
{
	struct counted *c = arg;

	(void)buf;
	c->bytes += len;
	c->calls++;
	return 0;
}

static void test_bomb(void **state)
{
	static const struct embed_limits lim = { .max_bytes = 1u << 30,
						 .max_ratio = 64,
						 .any_ratio = 1u << 20 };
	size_t len = 8u << 20, enc;
	char *doc = xcalloc(1, len), *html, *p, why[256] = "";
	struct counted c = { 0 };
	struct sbuf b = { 0 };

	(void)state;
	memset(doc, ' ', len);
	assert_int_equal(embed_write(&b, doc, len, 0, &enc), 0);
	html = page(&b);
	assert_int_equal(embed_read(html, strlen(html), &lim, count_piece, &c, why, sizeof(why)),
			 -1);
	assert_non_null(strstr(why, "over the limit"));
	assert_int_equal(c.calls, 0);
	/* the same block within a larger ratio reads whole */
	{
		const struct embed_limits wide = { .max_bytes = 1u << 30, .max_ratio = 100000 };

		assert_int_equal(
			embed_read(html, strlen(html), &wide, count_piece, &c, why, sizeof(why)),
			0);
		assert_int_equal(c.bytes, len);
	}
	/* announcing 1000 bytes: no more than 1000 come out, and it is refused */
	p = strstr(html, "data-bytes=\"") + 12;
	memmove(p + 4, strchr(p, '"'), strlen(strchr(p, '"')) + 1);
	memcpy(p, "1000", 4);
	memset(&c, 0, sizeof(c));
	assert_int_equal(embed_read(html, strlen(html), &lim, count_piece, &c, why, sizeof(why)),
			 -1);
	assert_true(c.bytes <= 1000);
	if (!strstr(why, "does not decompress to the 1000 bytes"))
		fail_msg("why: %s", why);
	free(html);
	sbuf_release(&b);
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip), cmocka_unit_test(test_mail_damage),
		cmocka_unit_test(test_damage),	  cmocka_unit_test(test_checksum),
		cmocka_unit_test(test_limit),	  cmocka_unit_test(test_bomb),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
