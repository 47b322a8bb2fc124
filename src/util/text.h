/*
 * text.h: stored text made safe to print on a terminal.
 *
 * Labels, host names, command lines, kernel releases and a guest's output
 * come from stores and guests that may not be ours; printed raw, their
 * control characters would drive the terminal (ESC sequences retitle it,
 * rewrite lines already printed, or worse). Every text output of stored or
 * foreign text goes through here; JSON output does not (json-c and SQLite
 * escape control characters there, so the value stays exact).
 *
 * Replaced, each by a visible escape: C0 controls (\x01..\x1f, except tab and
 * newline with TEXT_MULTILINE), DEL (\x7f), C1 controls (U+0080..U+009F,
 * \u0080..\u009f), bytes that are not valid UTF-8 (\xHH, so a raw 8-bit C1
 * byte such as 0x9b, CSI, cannot act), and the Unicode line separators and
 * bidirectional controls (U+2028, U+2029, U+202A..U+202E, U+2066..U+2069).
 * An escape sequence thus prints as "\x1b[31m" and does nothing.
 */
#ifndef WAKEBENCH_TEXT_H
#define WAKEBENCH_TEXT_H

#include <stdbool.h>
#include <stdio.h>

enum {
	TEXT_MULTILINE = 1 << 0, /* keep newline and tab (a guest's output) */
};

/* True when s prints as itself (nothing to replace). */
bool text_is_printable(const char *s, unsigned flags);
/* s with every unsafe character replaced (malloc'd; NULL gives ""). */
char *text_printable(const char *s, unsigned flags);
/* The same, written to f. */
void text_fput(FILE *f, const char *s, unsigned flags);

/*
 * s made safe as text_fput() does, written from column col and folded at
 * spaces so that no line passes width (a longer word stays whole); every
 * continuation line starts with indent spaces. No newline at the end.
 */
void text_fold(FILE *f, const char *s, size_t col, size_t indent, size_t width);

/* One CSV field (RFC 4180 quoting), preceded by a comma unless first; NULL is empty. */
void csv_field(FILE *f, const char *s, bool first);
/* ",%.15g", or an empty field when v is not finite. */
void csv_number(FILE *f, double v);

#endif
