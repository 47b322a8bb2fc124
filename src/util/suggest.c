/*
 * suggest.c: the closest known name to a mistyped one (see suggest.h). The
 * costs are in half edits so that they stay integers: a character put in,
 * left out or replaced costs 2, two neighbours swapped cost 2, and a
 * separator put in, left out or replaced by another separator costs 1.
 * Case is ignored.
 */
#include "util/suggest.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define NO_MATCH (~0u)

static bool is_separator(char c)
{
	return c == '-' || c == '_' || c == '.';
}

static char fold(char c)
{
	return (char)tolower((unsigned char)c);
}

static unsigned indel_cost(char c)
{
	return is_separator(c) ? 1 : 2;
}

static unsigned replace_cost(char a, char b)
{
	if (fold(a) == fold(b))
		return 0;
	return is_separator(a) && is_separator(b) ? 1 : 2;
}

static unsigned min3(unsigned a, unsigned b, unsigned c)
{
	unsigned m = a < b ? a : b;

	return m < c ? m : c;
}

unsigned suggest_distance(const char *a, const char *b)
{
	/* rows i-2, i-1 and i of the table, over b's length */
	unsigned row[3][SUGGEST_NAME_MAX + 1];
	size_t na = strlen(a), nb = strlen(b), i, j;

	if (na >= SUGGEST_NAME_MAX || nb >= SUGGEST_NAME_MAX)
		return NO_MATCH;
	row[0][0] = 0;
	for (j = 1; j <= nb; j++)
		row[0][j] = row[0][j - 1] + indel_cost(b[j - 1]);
	for (i = 1; i <= na; i++) {
		unsigned *cur = row[i % 3], *prev = row[(i + 2) % 3], *prev2 = row[(i + 1) % 3];

		cur[0] = prev[0] + indel_cost(a[i - 1]);
		for (j = 1; j <= nb; j++) {
			cur[j] = min3(prev[j] + indel_cost(a[i - 1]),
				      cur[j - 1] + indel_cost(b[j - 1]),
				      prev[j - 1] + replace_cost(a[i - 1], b[j - 1]));
			if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) &&
			    fold(a[i - 2]) == fold(b[j - 1]) && fold(a[i - 1]) != fold(a[i - 2]) &&
			    prev2[j - 2] + 2 < cur[j])
				cur[j] = prev2[j - 2] + 2;
		}
	}
	return row[na % 3][nb];
}

void suggest_init(struct suggest *s, const char *typed)
{
	memset(s, 0, sizeof(*s));
	s->typed = typed;
	s->best = NO_MATCH;
}

static bool starts_with_folded(const char *name, const char *prefix)
{
	for (; *prefix; name++, prefix++)
		if (fold(*name) != fold(*prefix))
			return false;
	return true;
}

void suggest_add(struct suggest *s, const char *candidate)
{
	unsigned d;

	if (!candidate || !*candidate || !s->typed)
		return;
	d = suggest_distance(s->typed, candidate);
	if (d == NO_MATCH)
		return;
	/* what was typed is the beginning of the name: one edit */
	if (d > 2 && strlen(s->typed) >= 3 && starts_with_folded(candidate, s->typed))
		d = 2;
	if (d > s->best)
		return;
	if (d < s->best) {
		s->best = d;
		s->nbest = 0;
	} else if (!strcmp(s->pick[0], candidate) ||
		   (s->nbest > 1 && !strcmp(s->pick[1], candidate))) {
		return; /* offered by two lists, counted once */
	}
	if (s->nbest < 2)
		snprintf(s->pick[s->nbest], sizeof(s->pick[0]), "%s", candidate);
	s->nbest++;
}

void suggest_add_list(struct suggest *s, const char *const *names)
{
	for (; names && *names; names++)
		suggest_add(s, *names);
}

/* Half edits allowed for a typed name of n characters: one edit per four, one at least. */
static unsigned allowed(size_t n)
{
	return 2 * (unsigned)(n / 4 > 1 ? n / 4 : 1);
}

const char *suggest_hint(const struct suggest *s, const char *quote_prefix, char *buf, size_t len)
{
	const char *q = quote_prefix ? quote_prefix : "";

	if (!len)
		return buf;
	buf[0] = '\0';
	if (s->best == NO_MATCH || !s->nbest || s->nbest > 2 || s->best > allowed(strlen(s->typed)))
		return buf;
	if (s->nbest == 1)
		snprintf(buf, len, "; did you mean '%s%s'?", q, s->pick[0]);
	else
		snprintf(buf, len, "; did you mean '%s%s' or '%s%s'?", q, s->pick[0], q,
			 s->pick[1]);
	return buf;
}

const char *suggest_hint_list(const char *typed, const char *const *names, const char *quote_prefix,
			      char *buf, size_t len)
{
	struct suggest s;

	suggest_init(&s, typed);
	suggest_add_list(&s, names);
	return suggest_hint(&s, quote_prefix, buf, len);
}

const char *suggest_hint_alternatives(const char *typed, const char *alternatives,
				      const char *quote_prefix, char *buf, size_t len)
{
	char name[SUGGEST_NAME_MAX];
	struct suggest s;
	const char *p = alternatives, *bar;

	suggest_init(&s, typed);
	while (p && *p) {
		size_t n;

		bar = strchr(p, '|');
		n = bar ? (size_t)(bar - p) : strlen(p);
		if (n < sizeof(name)) {
			memcpy(name, p, n);
			name[n] = '\0';
			suggest_add(&s, name);
		}
		p = bar ? bar + 1 : NULL;
	}
	return suggest_hint(&s, quote_prefix, buf, len);
}
