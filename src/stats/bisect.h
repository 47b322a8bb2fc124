/*
 * bisect.h: the decisions of `wakebench bisect` (doc/bisect.md), pure
 * functions like the rest of stats/: whether a candidate is closer to the
 * good or to the bad reference (one step, boots as units, sequential), and
 * the search over an ordered list of candidates with skips. The engine
 * (engine/bisect.c) and the simulation (bench/bisect-sim.c) drive these
 * same functions.
 *
 * Every level is a boot: the median of the logs of one boot's samples
 * (stats_boot_log_medians()). The samples of one boot share its offset, so
 * they are never counted as independent evidence about a kernel.
 */
#ifndef WAKEBENCH_STATS_BISECT_H
#define WAKEBENCH_STATS_BISECT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The chance that one step calls a candidate on the wrong side (doc/bisect.md). */
#define BISECT_ALPHA_DEFAULT 0.01
/* Boots of the candidate in one step (vm); and of each reference in `bisect run`. */
#define BISECT_MAX_BOOTS_DEFAULT     32
#define BISECT_MAX_REF_BOOTS_DEFAULT 32
#define BISECT_MAX_BOOTS	     64
/* `bisect run` measures the references until their separation is known to +-50%. */
#define BISECT_REF_PRECISION 0.5
/* The share of a step's alpha spent at its last look (the budget): bisect.c. */
#define BISECT_FINAL_SHARE 0.8

enum bisect_verdict {
	BISECT_UNDECIDED = 0, /* neither side at the level: git bisect's "skip" */
	BISECT_GOOD,	      /* closer to the good reference */
	BISECT_BAD,	      /* closer to the bad reference */
};

/* "undecided", "good", "bad" */
const char *bisect_verdict_key(enum bisect_verdict v);

/* The references: the log medians of their boots. */
struct bisect_refs {
	const double *good;
	size_t ng;
	const double *bad;
	size_t nb;
};

/*
 * One look. The candidate's level c (mean of its boots' log medians) is
 * placed on the line from the good level g to the bad level b:
 * position = (c - g) / (b - g), 0 at the good level, 1 at the bad one.
 * "Closer to good" is position < 1/2, i.e. the contrast
 * L = (c - (g + b) / 2) sign(b - g) < 0. Its interval is Student's t on the
 * boots of all three groups, the between-boot variance pooled over them
 * (df = ng + nb + nc - 3), at the level 1 - alpha_look; the position's
 * interval is that of L divided by |b - g| (plus 1/2).
 */
struct bisect_decision {
	bool valid; /* false: too few boots to say anything (why) */
	const char *why;
	size_t ng, nb, nc;
	double df;
	double level;	       /* confidence level of the interval */
	double sd;	       /* pooled between-boot sd of the log levels */
	double separation;     /* b - g on the log scale (bad versus good) */
	double sep_lo, sep_hi; /* its interval (references only, at the same level) */
	double position, pos_lo, pos_hi;
	double vs_good; /* candidate versus good, relative: exp(c - g) - 1 */
	double vs_bad;	/* candidate versus bad: exp(c - b) - 1 */
	enum bisect_verdict v;
};

/*
 * Are the references apart? The t interval of b - g on their boots alone
 * at 1 - alpha (df = ng + nb - 2, at least 3 boots in all) must exclude 0:
 * d->valid and d->v == BISECT_BAD when it does (d->separation, sep_lo,
 * sep_hi, sd filled either way), d->why saying what is missing otherwise.
 */
void bisect_refs_check(const struct bisect_refs *r, double alpha, struct bisect_decision *d);

/* One look at the candidate's boots c[0 .. nc) at level 1 - alpha_look. */
void bisect_decide(const struct bisect_refs *r, const double *c, size_t nc, double alpha_look,
		   struct bisect_decision *d);

/*
 * The number of looks: at 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64 boots
 * (or pairs of boots) from `first` on and below the budget, then at the
 * budget itself.
 */
size_t bisect_looks(size_t first, size_t budget);

/*
 * One step, sequential: a look at the scheduled numbers of boots (counting
 * failed ones) up to max_boots. The K looks (bisect_looks(1, max_boots))
 * split alpha, a weighted Bonferroni: the last look at the budget at
 * BISECT_FINAL_SHARE alpha, each earlier one at the rest / (K - 1), so the chance
 * that any look calls a candidate that sits at the midpoint or on the good
 * side "bad" is at most alpha / 2, and the same for "good" on the bad side;
 * the step stops at the first decided look. A failed boot (NAN) is not
 * analysed but counts against max_boots.
 */
struct bisect_step {
	struct bisect_refs refs;
	double alpha, alpha_look, alpha_final; /* the earlier looks' and the last one's */
	size_t max_boots;
	double c[BISECT_MAX_BOOTS];
	size_t nc;    /* analysed boots */
	size_t boots; /* boots tried, failed ones included */
	size_t looks;
	bool done;
	struct bisect_decision d; /* the last look's */
};

void bisect_step_init(struct bisect_step *s, const struct bisect_refs *r, double alpha,
		      size_t max_boots);
bool bisect_step_wants_boot(const struct bisect_step *s);
void bisect_step_add_boot(struct bisect_step *s, double log_median);

/*
 * The references of `bisect run`, sequential likewise: boots come in pairs
 * (good, bad), from 2 of each up to max_each, a look at the scheduled
 * numbers of pairs at alpha / bisect_looks(2, max_each), stopping when the
 * separation is established and its interval is within +-BISECT_REF_PRECISION
 * of it (d->v is BISECT_BAD as soon as it is established, even if the
 * budget ran out before the precision was reached).
 */
struct bisect_refs_seq {
	double alpha, alpha_look, alpha_final;
	size_t max_each;
	double g[BISECT_MAX_BOOTS], b[BISECT_MAX_BOOTS];
	size_t ng, nb, pairs;
	bool done;
	struct bisect_decision d;
};

void bisect_refs_seq_init(struct bisect_refs_seq *s, double alpha, size_t max_each);
bool bisect_refs_seq_wants_pair(const struct bisect_refs_seq *s);
/* NAN: that boot failed (not analysed, counts against max_each). */
void bisect_refs_seq_add_pair(struct bisect_refs_seq *s, double good, double bad);
/* The references as the steps use them. */
void bisect_refs_seq_refs(const struct bisect_refs_seq *s, struct bisect_refs *r);

/*
 * The search over n ordered candidates 0 .. n-1: 0 is known good, n-1
 * known bad (the references), the first bad is sought in 1 .. n-1.
 * bisect_search_next() gives the middle of the open range, or, when that
 * one was skipped, the nearest untried candidate around it (as git bisect
 * skip does); -1 when the range is closed (last_good + 1 == first_bad) or
 * every candidate in it was skipped (then the first bad is somewhere in
 * last_good + 1 .. first_bad).
 */
struct bisect_search {
	size_t n;
	size_t last_good, first_bad;
	unsigned char *skipped; /* n flags */
	size_t steps;
};

void bisect_search_init(struct bisect_search *s, size_t n);
ssize_t bisect_search_next(const struct bisect_search *s);
void bisect_search_record(struct bisect_search *s, size_t i, enum bisect_verdict v);
/* Found: exactly one candidate left, first_bad. */
bool bisect_search_found(const struct bisect_search *s);
void bisect_search_release(struct bisect_search *s);

#endif
