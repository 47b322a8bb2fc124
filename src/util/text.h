/*
 * text.h: stored text made safe to print on a terminal.
 *
 * Labels, host names, command lines, kernel releases and a guest's output
 * come from stores and guests that may not be ours; printed raw, their
 * control characters would drive the terminal (ESC sequences retitle it,
 * rewrite lines already printed, or worse). Every text output of stored or
 * foreign text goes through here, and so does every message of the error
 * functions (util.h), whatever they quote; JSON output does not (json-c and
 * SQLite escape control characters there, so the value stays exact).
 *
 * Replaced, each by a visible escape: C0 controls (\n, \t, \r, else \xHH;
 * tab and newline are kept with TEXT_MULTILINE), DEL (\x7f), C1 controls
 * (U+0080..U+009F, \u0080..\u009f), bytes that are not valid UTF-8 (\xHH,
 * so a raw 8-bit C1 byte such as 0x9b, CSI, cannot act), and the Unicode
 * line separators and bidirectional controls (U+2028, U+2029,
 * U+202A..U+202E, U+2066..U+2069).
 * An escape sequence thus prints as "\x1b[31m" and does nothing. A backslash
 * is not escaped: a visible escape and the same text typed are alike, and
 * both are harmless. The result of an escape is left as it is by a second.
 *
 * Shell command lines made of such text are quoted by sh_command() below.
 */
#ifndef WAKEBENCH_TEXT_H
#define WAKEBENCH_TEXT_H

#include <stdbool.h>
#include <stdio.h>

#include "util/util.h"

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
 * The same into buf (len bytes, NUL-terminated, cut short at a character
 * when it does not fit); allocates nothing, so that the error functions can
 * use it when memory has run out. Returns the length written.
 */
size_t text_printable_buf(const char *s, unsigned flags, char *buf, size_t len);
/*
 * One line of text output: fmt formatted, every unsafe character of the
 * result (a newline in fmt too) escaped, then a newline. For lines that quote
 * stored or given text: they stay one line whatever it holds.
 */
void text_line(FILE *f, const char *fmt, ...) PRINTF_LIKE(2, 3);

/*
 * s made safe as text_fput() does, written from column col and folded at
 * spaces so that no line passes width (a longer word stays whole); every
 * continuation line starts with indent spaces. No newline at the end.
 */
void text_fold(FILE *f, const char *s, size_t col, size_t indent, size_t width);

/*
 * words[0..n) as one line of POSIX sh that runs exactly them, whatever they
 * hold: a word of letters, digits and "-_./=:,+%@" as it is; other
 * printable ASCII between single quotes ('\'' for a quote); a word with
 * anything else (a control character, a newline, non-ASCII bytes) as
 * "$(printf 'FORMAT')" with those bytes as octal escapes, so that no word
 * can end the line or start another command. A word ending in a newline,
 * which $(...) would drop, goes through a variable set at the start of the
 * line: wb_arg1=$(printf 'x\012_'); cmd "${wb_arg1%_}". The line is
 * printable ASCII. Malloc'd.
 */
char *sh_command(const char *const *words, size_t n);

/* One CSV field (RFC 4180 quoting), preceded by a comma unless first; NULL is empty. */
void csv_field(FILE *f, const char *s, bool first);
/* ",%.15g", or an empty field when v is not finite. */
void csv_number(FILE *f, double v);

#endif
