/*
 * text.c: stored text made safe to print on a terminal (see text.h for
 * what is replaced and why). One pass over the bytes, decoding UTF-8 only
 * far enough to tell a valid sequence from a stray byte.
 */
#include "util/text.h"
#include "util/util.h"

#include <math.h>
#include <stdarg.h>
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

/* "\n", "\t" and "\r" as C writes them, every other control as "\xHH". */
static void control_escape(unsigned char c, char *esc, size_t len)
{
	if (c == '\n' || c == '\t' || c == '\r')
		snprintf(esc, len, "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
	else
		snprintf(esc, len, "\\x%02x", c);
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
				control_escape(*p, esc, sizeof(esc));
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

/* A fixed buffer: what does not fit is left out, never a partial UTF-8 sequence. */
struct fixed {
	char *s;
	size_t used, size;
};

static void fixed_emit(void *arg, const char *text, size_t len)
{
	struct fixed *b = arg;
	size_t room = b->size - 1 - b->used;

	if (len > room) {
		len = room;
		while (len && ((unsigned char)text[len] & 0xc0) == 0x80)
			len--;
		b->size = b->used + len + 1; /* full: nothing after the cut */
	}
	memcpy(b->s + b->used, text, len);
	b->used += len;
	b->s[b->used] = '\0';
}

size_t text_printable_buf(const char *s, unsigned flags, char *buf, size_t len)
{
	struct fixed b = { buf, 0, len };

	if (!len)
		return 0;
	buf[0] = '\0';
	walk(s, flags, fixed_emit, &b);
	return b.used;
}

static void file_emit(void *arg, const char *text, size_t len)
{
	fwrite(text, 1, len, arg);
}

void text_fput(FILE *f, const char *s, unsigned flags)
{
	walk(s, flags, file_emit, f);
}

void text_line(FILE *f, const char *fmt, ...)
{
	va_list ap;
	char *line;

	va_start(ap, fmt);
	line = xvasprintf(fmt, ap);
	va_end(ap);
	walk(line, 0, file_emit, f);
	fputc('\n', f);
	free(line);
}

/* ---- shell ---- */

static void buf_puts(struct buf *b, const char *s)
{
	buf_emit(b, s, strlen(s));
}

/* Words a shell reads as themselves, unquoted. */
static bool sh_plain(const char *w)
{
	if (!*w)
		return false;
	for (; *w; w++)
		if (!strchr("-_./=:,+%@", *w) && !(*w >= '0' && *w <= '9') &&
		    !(*w >= 'a' && *w <= 'z') && !(*w >= 'A' && *w <= 'Z'))
			return false;
	return true;
}

static bool sh_ascii(const char *w)
{
	for (; *w; w++)
		if ((unsigned char)*w < 0x20 || (unsigned char)*w > 0x7e)
			return false;
	return true;
}

/*
 * w as the format of printf(1) between single quotes: every byte that is
 * not printable ASCII (and a leading '-', which printf would take for an
 * option, and '!', which an interactive bash expands inside the double
 * quotes around $(...)) as a three-digit octal escape, '\\' and '%' doubled.
 */
static void sh_printf_format(struct buf *b, const char *w)
{
	const unsigned char *p = (const unsigned char *)w;

	for (; *p; p++) {
		char esc[8];

		if (*p == '\'')
			buf_puts(b, "'\\''");
		else if (*p == '\\' || *p == '%')
			buf_emit(b, (const char *)p, 1), buf_emit(b, (const char *)p, 1);
		else if (*p < 0x20 || *p > 0x7e || *p == '!' ||
			 (*p == '-' && p == (const unsigned char *)w)) {
			snprintf(esc, sizeof(esc), "\\%03o", *p);
			buf_puts(b, esc);
		} else {
			buf_emit(b, (const char *)p, 1);
		}
	}
}

char *sh_command(const char *const *words, size_t n)
{
	struct buf pre = { NULL, 0, 0 }, cmd = { NULL, 0, 0 };
	unsigned vars = 0;
	size_t i;
	char *out;

	for (i = 0; i < n; i++) {
		const char *w = words[i] ? words[i] : "", *p;
		size_t len = strlen(w);
		char name[32];

		if (i)
			buf_puts(&cmd, " ");
		if (sh_plain(w)) {
			buf_puts(&cmd, w);
		} else if (sh_ascii(w)) {
			buf_puts(&cmd, "'");
			for (p = w; *p; p++)
				if (*p == '\'')
					buf_puts(&cmd, "'\\''");
				else
					buf_emit(&cmd, p, 1);
			buf_puts(&cmd, "'");
		} else if (w[len - 1] != '\n') {
			buf_puts(&cmd, "\"$(printf '");
			sh_printf_format(&cmd, w);
			buf_puts(&cmd, "')\"");
		} else {
			/* $(...) drops trailing newlines: keep them behind a '_' that goes */
			snprintf(name, sizeof(name), "wb_arg%u", ++vars);
			buf_puts(&pre, name);
			buf_puts(&pre, "=$(printf '");
			sh_printf_format(&pre, w);
			buf_puts(&pre, "_'); ");
			buf_puts(&cmd, "\"${");
			buf_puts(&cmd, name);
			buf_puts(&cmd, "%_}\"");
		}
	}
	out = xasprintf("%s%s", pre.s ? pre.s : "", cmd.s ? cmd.s : "");
	free(pre.s);
	free(cmd.s);
	return out;
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
