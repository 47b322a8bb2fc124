/*
 * opts.h: options declared once, in typed tables that point by offset into a
 * parameter struct whose defaults live in one static const initialiser.
 *
 * The same table drives parsing (with range checks and one-line errors that
 * name the option, the value and what is allowed), the --help text and
 * `wakebench list`. Nothing else in wakebench spells an option name.
 */
#ifndef WAKEBENCH_OPTS_H
#define WAKEBENCH_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum opt_type {
	OPT_END = 0,
	OPT_FLAG,     /* bool; no value */
	OPT_UINT,     /* uint64_t */
	OPT_DOUBLE,   /* double */
	OPT_PERCENT,  /* double fraction; accepts "2", "2%", "0.5%" (stored 0.02, 0.005) */
	OPT_DURATION, /* uint64_t nanoseconds; accepts 20s, 500ms, 2m, 0.5s */
	OPT_SIZE,     /* uint64_t bytes; accepts 512, 4k, 1M */
	OPT_CHOICE,   /* int: index into .choices */
	OPT_STRING,   /* const char * (points into argv) */
	OPT_STRLIST,  /* struct strlist; repeatable */
};

/* Flags of one option. */
enum {
	OPT_OPTIONAL_ARG = 1 << 0, /* --name alone means .implied; --name=VALUE sets it */
	OPT_HIDDEN = 1 << 1,	   /* parsed but not listed (test-only switches) */
};

struct strlist {
	const char **v;
	size_t n;
};

struct opt {
	enum opt_type type;
	const char *long_name; /* without "--" */
	int short_name;	       /* 0 if none */
	size_t offset;	       /* offsetof(params struct, field) */
	const char *argh;      /* placeholder in help: "N", "DURATION" */
	const char *help;
	double min, max;	    /* inclusive range for numbers (ns, bytes); max 0 = none */
	const char *const *choices; /* NULL-terminated, OPT_CHOICE */
	const int *choice_values;   /* value stored for choices[i]; NULL: i itself */
	const char *implied;	    /* value used for OPT_OPTIONAL_ARG without '=' */
	unsigned flags;
};

#define OPT_END_ROW                                                                                \
	{                                                                                          \
		.type = OPT_END                                                                    \
	}

/* A table plus the struct it fills. `seen` has bit i set when opts[i] was given. */
struct opt_group {
	const char *title; /* "workload options (pipe)" */
	const struct opt *opts;
	void *base;	      /* the params struct filled by parsing */
	const void *defaults; /* for printing defaults in help; may be NULL */
	uint64_t seen;
};

struct opts_result {
	const char **pos; /* positional arguments, in order */
	size_t npos;
	/* index in pos[] of the first argument after "--", or -1 when none */
	long dashdash;
	int help; /* -h or --help was given */
};

/*
 * Parse argv[0..argc) (argv[0] is the first argument, not the command name).
 * `cmd` names the command in messages. Prints one line naming the option,
 * the value and what is allowed, and returns -1 on bad input; 0 otherwise.
 * An unknown long option or choice that is close to a known one ends the
 * line with "; did you mean 'X'?" (util/suggest.h).
 * Positional arguments are collected in order; "--" stops option parsing.
 * If `stop_at_first_pos` is set, the first positional argument and everything
 * after it are returned as positional (for `vm -- SUBCOMMAND`).
 */
int opts_parse(const char *cmd, struct opt_group *groups, size_t ngroups, int argc,
	       const char **argv, int stop_at_first_pos, struct opts_result *res);
void opts_result_release(struct opts_result *res);

/* Free the memory that OPT_STRLIST options allocated in every group. */
void opts_release(struct opt_group *groups, size_t ngroups);

/* Print the options of every group, with defaults and ranges. */
void opts_print_help(FILE *f, const struct opt_group *groups, size_t ngroups);

/* Render an option's value (from base) as the user would type it. */
void opts_format_value(const struct opt *o, const void *base, char *buf, size_t len);

/* Render the allowed range or choices of an option ("1..4096", "any|same-cpu"). */
void opts_format_allowed(const struct opt *o, char *buf, size_t len);

/* Size of the field an option of this type fills. */
size_t opt_field_size(enum opt_type t);

/* Find an option by long name in a table; NULL if absent. */
const struct opt *opts_find(const struct opt *opts, const char *long_name);

/* The option a command-line argument names ("--name", "--name=VALUE", "-x", "-xVALUE"); NULL if
 * none. */
const struct opt *opts_find_arg(const struct opt *opts, const char *arg);

/* Does o take a value (not a flag, not an optional argument)? False for NULL. */
bool opts_takes_value(const struct opt *o);

/* Is the argument after arg o's value: o takes one and arg ("--name", "-x") does not hold it? */
bool opts_arg_takes_next(const struct opt *o, const char *arg);

/* Index of `name` in a NULL-terminated choices list, or -1. */
int opts_choice_index(const char *const *choices, const char *name);

#endif
