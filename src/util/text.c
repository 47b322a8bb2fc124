/*
 * text.c: stored text made safe to print on a terminal (see text.h for
 * what is replaced and why). One pass over the bytes, decoding UTF-8 only
 * far enough to tell a valid sequence from a stray byte.
 */
#include "util/text.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

/*
 * Length of the valid UTF-8 sequence at p (its code point in *cp), or 0
 * when the bytes there are not one (overlong forms and surrogates included).
 */
static size_t utf8_seq(const unsigned char *p, uint32_t *cp)
{
	size_t n, i;
	uint32_t c, min;

	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2, c = p[0] & 0x1f, min = 0x80;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3, c = p[0] & 0x0f, min = 0x800;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4, c = p[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

static bool unsafe_code_point(uint32_t c)
{
	return (c >= 0x80 && c <= 0x9f) || c == 0x2028 || c == 0x2029 ||
	       (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/*
 * Walk s; emit(arg, text, len) for each run of safe bytes and each escape.
 * Returns true when nothing had to be replaced.
 */
static bool walk(const char *s, unsigned flags, void (*emit)(void *, const char *, size_t),
		 void *arg)
{
	const unsigned char *p = (const unsigned char *)(s ? s : ""), *run = p;
	bool clean = true;

	while (*p) {
		char esc[16];
		uint32_t cp = 0;
		size_t n = 1;
		bool bad;

		if (*p < 0x80) {
			bad = (*p < 0x20 || *p == 0x7f) &&
			      !((flags & TEXT_MULTILINE) && (*p == '\n' || *p == '\t'));
			if (bad)
				snprintf(esc, sizeof(esc), "\\x%02x", *p);
		} else {
			n = utf8_seq(p, &cp);
			bad = !n || unsafe_code_point(cp);
			if (!n) {
				n = 1;
				snprintf(esc, sizeof(esc), "\\x%02x", *p);
			} else if (bad) {
				snprintf(esc, sizeof(esc), "\\u%04x", (unsigned)cp);
			}
		}
		if (bad) {
			clean = false;
			if (emit) {
				if (p > run)
					emit(arg, (const char *)run, (size_t)(p - run));
				emit(arg, esc, strlen(esc));
			}
			p += n;
			run = p;
		} else {
			p += n;
		}
	}
	if (emit && p > run)
		emit(arg, (const char *)run, (size_t)(p - run));
	return clean;
}

bool text_is_printable(const char *s, unsigned flags)
{
	return walk(s, flags, NULL, NULL);
}

struct buf {
	char *s;
	size_t len, alloc;
};

static void buf_emit(void *arg, const char *text, size_t len)
{
	struct buf *b = arg;

	if (b->len + len + 1 > b->alloc) {
		b->alloc = 2 * (b->len + len + 1);
		b->s = xrealloc(b->s, b->alloc);
	}
	memcpy(b->s + b->len, text, len);
	b->len += len;
	b->s[b->len] = '\0';
}

char *text_printable(const char *s, unsigned flags)
{
	struct buf b = { NULL, 0, 0 };

	if (text_is_printable(s, flags))
		return xstrdup(s ? s : "");
	walk(s, flags, buf_emit, &b);
	return b.s ? b.s : xstrdup("");
}

static void file_emit(void *arg, const char *text, size_t len)
{
	fwrite(text, 1, len, arg);
}

void text_fput(FILE *f, const char *s, unsigned flags)
{
	walk(s, flags, file_emit, f);
}

void csv_field(FILE *f, const char *s, bool first)
{
	if (!first)
		fputc(',', f);
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void csv_number(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, ",%.15g", v);
	else
		fputc(',', f);
}

void text_fold(FILE *f, const char *s, size_t col, size_t indent, size_t width)
{
	char *safe = text_printable(s, 0);
	const char *p = safe;

	while (*p) {
		size_t word = strcspn(p, " ");

		if (col > indent && col + word > width) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		}
		fwrite(p, 1, word, f);
		col += word;
		p += word;
		if (*p == ' ') {
			p += strspn(p, " ");
			if (*p && col + 1 + strcspn(p, " ") <= width) {
				fputc(' ', f);
				col++;
			} else if (*p) {
				fprintf(f, "\n%*s", (int)indent, "");
				col = indent;
			}
		}
	}
	free(safe);
}
