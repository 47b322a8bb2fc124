/*
 * suggest.h: "did you mean" for names people type: commands, options,
 * option values, workloads, profiles, scheduler features, --by keys.
 *
 * As git and hyperfine do, a name that is not known is compared with the
 * names that are, and the closest is offered when it is close enough. The
 * distance is Damerau-Levenshtein (optimal string alignment) that ignores
 * case and counts a separator ('-', '_', '.') put in, left out or swapped
 * for another as half an edit, so that `samecpu` finds `same-cpu`,
 * `stress-ng-015` finds `stress-ng-0.15` and `delay_dequeue` finds
 * `DELAY_DEQUEUE`. A name that begins with what was typed (three characters
 * at least) is one edit away, so `--warm` finds `--warmup`.
 */
#ifndef WAKEBENCH_SUGGEST_H
#define WAKEBENCH_SUGGEST_H

#include <stddef.h>

#define SUGGEST_NAME_MAX 128 /* longer names are neither typed nor offered */
#define SUGGEST_HINT_MAX (2 * SUGGEST_NAME_MAX + 48) /* room for any hint */

/* The candidates closest to one typed name so far. */
struct suggest {
	const char *typed;
	unsigned best;	/* their distance, in half edits */
	unsigned nbest; /* how many are that close (only two are kept) */
	char pick[2][SUGGEST_NAME_MAX];
};

/* The distance between a and b in half edits (see above). */
unsigned suggest_distance(const char *a, const char *b);

void suggest_init(struct suggest *s, const char *typed);
/* Consider one known name (a copy is kept when it is the closest so far). */
void suggest_add(struct suggest *s, const char *candidate);
/* Every name of a NULL-terminated list. */
void suggest_add_list(struct suggest *s, const char *const *names);

/*
 * "; did you mean 'X'?" or "; did you mean 'X' or 'Y'?" for the closest
 * names when they are close enough for the length of what was typed (one
 * edit up to 7 characters, two up to 11, ...) and at most two are that
 * close; "" otherwise. `quote_prefix` goes before each name inside the
 * quotes ("--" for options). Returns buf.
 */
const char *suggest_hint(const struct suggest *s, const char *quote_prefix, char *buf, size_t len);

/* The whole of it for a NULL-terminated list of names, into buf. */
const char *suggest_hint_list(const char *typed, const char *const *names, const char *quote_prefix,
			      char *buf, size_t len);
/* The same for names as an error line lists them: "show|set|restore". */
const char *suggest_hint_alternatives(const char *typed, const char *alternatives,
				      const char *quote_prefix, char *buf, size_t len);

#endif
