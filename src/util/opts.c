/*
 * opts.c: the one option parser. It reads typed option tables (opts.h),
 * writes into parameter structs by offset, checks ranges, and renders the
 * same tables as help text, so that what is parsed and what is documented
 * cannot drift apart.
 */
#include "util/opts.h"
#include "util/suggest.h"
#include "util/util.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

size_t opt_field_size(enum opt_type t)
{
	switch (t) {
	case OPT_FLAG:
		return sizeof(bool);
	case OPT_UINT:
	case OPT_DURATION:
	case OPT_SIZE:
		return sizeof(uint64_t);
	case OPT_DOUBLE:
	case OPT_PERCENT:
		return sizeof(double);
	case OPT_CHOICE:
		return sizeof(int);
	case OPT_STRING:
		return sizeof(const char *);
	case OPT_STRLIST:
		return sizeof(struct strlist);
	case OPT_END:
		break;
	}
	return 0;
}

static void *field(const struct opt *o, void *base)
{
	return (char *)base + o->offset;
}

static const void *cfield(const struct opt *o, const void *base)
{
	return (const char *)base + o->offset;
}

const struct opt *opts_find(const struct opt *opts, const char *long_name)
{
	for (; opts->type != OPT_END; opts++)
		if (opts->long_name && !strcmp(opts->long_name, long_name))
			return opts;
	return NULL;
}

const struct opt *opts_find_arg(const struct opt *opts, const char *arg)
{
	size_t len;

	if (arg[0] != '-' || !arg[1])
		return NULL;
	if (arg[1] != '-') {
		for (; opts->type != OPT_END; opts++)
			if (opts->short_name && opts->short_name == (unsigned char)arg[1])
				return opts;
		return NULL;
	}
	len = strcspn(arg + 2, "=");
	for (; opts->type != OPT_END; opts++)
		if (opts->long_name && strlen(opts->long_name) == len &&
		    !strncmp(opts->long_name, arg + 2, len))
			return opts;
	return NULL;
}

bool opts_takes_value(const struct opt *o)
{
	return o && o->type != OPT_FLAG && !(o->flags & OPT_OPTIONAL_ARG);
}

bool opts_arg_takes_next(const struct opt *o, const char *arg)
{
	return opts_takes_value(o) && !strchr(arg, '=') && (arg[1] == '-' || !arg[2]);
}

int opts_choice_index(const char *const *choices, const char *name)
{
	int i;

	for (i = 0; choices && choices[i]; i++)
		if (!strcmp(choices[i], name))
			return i;
	return -1;
}

static void format_number(enum opt_type t, double v, char *buf, size_t len)
{
	switch (t) {
	case OPT_DURATION:
		format_duration((uint64_t)v, buf, len);
		break;
	case OPT_SIZE:
		format_size((uint64_t)v, buf, len);
		break;
	case OPT_PERCENT:
		snprintf(buf, len, "%g%%", v * 100.0);
		break;
	default:
		snprintf(buf, len, "%.15g", v);
		break;
	}
}

void opts_format_allowed(const struct opt *o, char *buf, size_t len)
{
	char lo[32], hi[32];
	size_t used = 0;
	int i;

	buf[0] = '\0';
	switch (o->type) {
	case OPT_CHOICE:
		for (i = 0; o->choices && o->choices[i]; i++) {
			int n = snprintf(buf + used, len - used, "%s%s", i ? "|" : "",
					 o->choices[i]);

			if (n < 0 || (size_t)n >= len - used)
				break;
			used += (size_t)n;
		}
		return;
	case OPT_UINT:
	case OPT_DOUBLE:
	case OPT_PERCENT:
	case OPT_DURATION:
	case OPT_SIZE:
		format_number(o->type, o->min, lo, sizeof(lo));
		if (o->max > 0) {
			format_number(o->type, o->max, hi, sizeof(hi));
			snprintf(buf, len, "%s..%s", lo, hi);
		} else {
			snprintf(buf, len, ">= %s", lo);
		}
		return;
	default:
		return;
	}
}

void opts_format_value(const struct opt *o, const void *base, char *buf, size_t len)
{
	const void *p = cfield(o, base);
	int idx;

	buf[0] = '\0';
	switch (o->type) {
	case OPT_FLAG:
		snprintf(buf, len, "%s", *(const bool *)p ? "on" : "off");
		break;
	case OPT_UINT:
		snprintf(buf, len, "%llu", (unsigned long long)*(const uint64_t *)p);
		break;
	case OPT_DOUBLE:
		snprintf(buf, len, "%g", *(const double *)p);
		break;
	case OPT_PERCENT:
		snprintf(buf, len, "%g%%", *(const double *)p * 100.0);
		break;
	case OPT_DURATION:
		format_duration(*(const uint64_t *)p, buf, len);
		break;
	case OPT_SIZE:
		format_size(*(const uint64_t *)p, buf, len);
		break;
	case OPT_CHOICE:
		idx = *(const int *)p;
		if (o->choice_values) {
			int i, v = idx;

			for (idx = -1, i = 0; o->choices && o->choices[i]; i++)
				if (o->choice_values[i] == v)
					idx = i;
		}
		snprintf(buf, len, "%s", idx >= 0 && o->choices ? o->choices[idx] : "");
		break;
	case OPT_STRING:
		snprintf(buf, len, "%s", *(const char *const *)p ? *(const char *const *)p : "");
		break;
	case OPT_STRLIST:
	case OPT_END:
		break;
	}
}

static void opt_name(const struct opt *o, char *buf, size_t len)
{
	if (o->short_name && o->long_name)
		snprintf(buf, len, "--%s' (-%c)", o->long_name, o->short_name);
	else if (o->long_name)
		snprintf(buf, len, "--%s'", o->long_name);
	else
		snprintf(buf, len, "-%c'", o->short_name);
}

static int bad_value(const char *cmd, const struct opt *o, const char *val, const char *what)
{
	char name[80], allowed[256], hint[SUGGEST_HINT_MAX] = "";

	opt_name(o, name, sizeof(name));
	opts_format_allowed(o, allowed, sizeof(allowed));
	if (o->type == OPT_CHOICE)
		suggest_hint_list(val, o->choices, "", hint, sizeof(hint));
	return error("%s: option '%s: %s '%s', allowed %s%s", cmd, name, what, val,
		     allowed[0] ? allowed : "a value", hint);
}

static int check_range(const char *cmd, const struct opt *o, const char *val, double v)
{
	if (v < o->min || (o->max > 0 && v > o->max))
		return bad_value(cmd, o, val, "value out of range:");
	return 0;
}

static const char *type_word(enum opt_type t)
{
	switch (t) {
	case OPT_UINT:
		return "not a whole number:";
	case OPT_DOUBLE:
		return "not a number:";
	case OPT_PERCENT:
		return "not a percentage:";
	case OPT_DURATION:
		return "not a duration (e.g. 500ms, 5s, 2m):";
	case OPT_SIZE:
		return "not a size (e.g. 512, 4k, 1M):";
	case OPT_CHOICE:
		return "unknown value";
	default:
		return "invalid value";
	}
}

/* What a parser's -1 means: too large to hold (ERANGE) is out of range, not malformed. */
static const char *parse_failure(enum opt_type t)
{
	return errno == ERANGE ? "value out of range:" : type_word(t);
}

static int set_value(const char *cmd, const struct opt *o, void *base, const char *val)
{
	void *p = field(o, base);
	uint64_t u;
	double d;
	int idx;
	struct strlist *sl;

	switch (o->type) {
	case OPT_FLAG:
		*(bool *)p = true;
		return 0;
	case OPT_UINT:
		if (parse_u64(val, &u))
			return bad_value(cmd, o, val, parse_failure(o->type));
		if (check_range(cmd, o, val, (double)u))
			return -1;
		*(uint64_t *)p = u;
		return 0;
	case OPT_DURATION:
		if (parse_duration_ns(val, &u))
			return bad_value(cmd, o, val, parse_failure(o->type));
		if (check_range(cmd, o, val, (double)u))
			return -1;
		*(uint64_t *)p = u;
		return 0;
	case OPT_SIZE:
		if (parse_size(val, &u))
			return bad_value(cmd, o, val, parse_failure(o->type));
		if (check_range(cmd, o, val, (double)u))
			return -1;
		*(uint64_t *)p = u;
		return 0;
	case OPT_DOUBLE:
		if (parse_double(val, &d))
			return bad_value(cmd, o, val, parse_failure(o->type));
		if (check_range(cmd, o, val, d))
			return -1;
		*(double *)p = d;
		return 0;
	case OPT_PERCENT: {
		char tmp[64];
		size_t n = strlen(val);

		if (n == 0 || n >= sizeof(tmp))
			return bad_value(cmd, o, val, type_word(o->type));
		memcpy(tmp, val, n + 1);
		if (tmp[n - 1] == '%')
			tmp[n - 1] = '\0';
		if (parse_double(tmp, &d))
			return bad_value(cmd, o, val, parse_failure(o->type));
		d /= 100.0;
		if (check_range(cmd, o, val, d))
			return -1;
		*(double *)p = d;
		return 0;
	}
	case OPT_CHOICE:
		idx = opts_choice_index(o->choices, val);
		if (idx < 0)
			return bad_value(cmd, o, val, type_word(o->type));
		*(int *)p = o->choice_values ? o->choice_values[idx] : idx;
		return 0;
	case OPT_STRING:
		*(const char **)p = val;
		return 0;
	case OPT_STRLIST:
		sl = p;
		sl->v = xrealloc(sl->v, (sl->n + 1) * sizeof(*sl->v));
		sl->v[sl->n++] = val;
		return 0;
	case OPT_END:
		break;
	}
	BUG("option type %d", (int)o->type);
}

static bool takes_value(const struct opt *o)
{
	return o->type != OPT_FLAG;
}

static const struct opt *lookup(struct opt_group *groups, size_t ngroups, const char *lname,
				int sname, struct opt_group **grp, size_t *index)
{
	size_t g, i;

	for (g = 0; g < ngroups; g++) {
		const struct opt *t = groups[g].opts;

		for (i = 0; t[i].type != OPT_END; i++) {
			if ((lname && t[i].long_name && !strcmp(t[i].long_name, lname)) ||
			    (!lname && sname && t[i].short_name == sname)) {
				*grp = &groups[g];
				*index = i;
				return &t[i];
			}
		}
	}
	return NULL;
}

/* The long options closest to an unknown one, as "; did you mean '--X'?" (or ""). */
static const char *option_hint(const struct opt_group *groups, size_t ngroups, const char *lname,
			       char *buf, size_t len)
{
	struct suggest s;
	size_t g;
	const struct opt *o;

	suggest_init(&s, lname);
	for (g = 0; g < ngroups; g++)
		for (o = groups[g].opts; o->type != OPT_END; o++)
			if (!(o->flags & OPT_HIDDEN))
				suggest_add(&s, o->long_name);
	return suggest_hint(&s, "--", buf, len);
}

static void push_pos(struct opts_result *res, const char *arg)
{
	res->pos = xrealloc(res->pos, (res->npos + 1) * sizeof(*res->pos));
	res->pos[res->npos++] = arg;
}

int opts_parse(const char *cmd, struct opt_group *groups, size_t ngroups, int argc,
	       const char **argv, int stop_at_first_pos, struct opts_result *res)
{
	int i;

	memset(res, 0, sizeof(*res));
	res->dashdash = -1;
	for (i = 0; i < argc; i++) {
		const char *arg = argv[i], *val = NULL;
		const struct opt *o;
		struct opt_group *grp = NULL;
		size_t index = 0;
		char lname[128], hint[SUGGEST_HINT_MAX];

		if (!strcmp(arg, "--")) {
			res->dashdash = (long)res->npos;
			for (i++; i < argc; i++)
				push_pos(res, argv[i]);
			break;
		}
		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			res->help = 1;
			continue;
		}
		if (arg[0] != '-' || !arg[1]) {
			if (stop_at_first_pos) {
				for (; i < argc; i++)
					push_pos(res, argv[i]);
				break;
			}
			push_pos(res, arg);
			continue;
		}
		if (arg[1] == '-') {
			const char *eq = strchr(arg + 2, '=');
			size_t n = eq ? (size_t)(eq - (arg + 2)) : strlen(arg + 2);

			if (n >= sizeof(lname))
				n = sizeof(lname) - 1;
			memcpy(lname, arg + 2, n);
			lname[n] = '\0';
			o = lookup(groups, ngroups, lname, 0, &grp, &index);
			if (!o)
				return error(
					"%s: unknown option '--%s' (see 'wakebench %s -h')%s", cmd,
					lname, cmd,
					option_hint(groups, ngroups, lname, hint, sizeof(hint)));
			if (eq) {
				if (!takes_value(o))
					return error("%s: option '--%s' takes no value", cmd,
						     lname);
				val = eq + 1;
			}
		} else {
			o = lookup(groups, ngroups, NULL, (unsigned char)arg[1], &grp, &index);
			if (!o)
				return error("%s: unknown option '-%c' (see 'wakebench %s -h')",
					     cmd, arg[1], cmd);
			if (arg[2]) {
				if (!takes_value(o))
					return error("%s: option '-%c' takes no value", cmd,
						     arg[1]);
				val = arg + 2;
			}
		}
		if (takes_value(o) && !val) {
			if (o->flags & OPT_OPTIONAL_ARG) {
				val = o->implied;
			} else if (i + 1 < argc) {
				val = argv[++i];
			} else {
				char name[80], allowed[256];

				opt_name(o, name, sizeof(name));
				opts_format_allowed(o, allowed, sizeof(allowed));
				return error("%s: option '%s needs a value%s%s", cmd, name,
					     allowed[0] ? ", allowed " : "", allowed);
			}
		}
		if (set_value(cmd, o, grp->base, val))
			return -1;
		grp->seen |= 1ULL << index;
	}
	return 0;
}

void opts_result_release(struct opts_result *res)
{
	free(res->pos);
	res->pos = NULL;
	res->npos = 0;
}

void opts_release(struct opt_group *groups, size_t ngroups)
{
	size_t g;
	const struct opt *o;

	for (g = 0; g < ngroups; g++) {
		for (o = groups[g].opts; o->type != OPT_END; o++) {
			struct strlist *sl;

			if (o->type != OPT_STRLIST || !groups[g].base)
				continue;
			sl = field(o, groups[g].base);
			free(sl->v);
			sl->v = NULL;
			sl->n = 0;
		}
	}
}

void opts_print_help(FILE *f, const struct opt_group *groups, size_t ngroups)
{
	size_t g;
	const struct opt *o;

	for (g = 0; g < ngroups; g++) {
		bool any = false;

		for (o = groups[g].opts; o->type != OPT_END; o++)
			any |= !(o->flags & OPT_HIDDEN);
		if (!any)
			continue;
		fprintf(f, "\n%s:\n", groups[g].title);
		for (o = groups[g].opts; o->type != OPT_END; o++) {
			char left[96], def[64], allowed[256];
			int n;

			if (o->flags & OPT_HIDDEN)
				continue;
			if (o->short_name)
				n = snprintf(left, sizeof(left), "  -%c, --%s", o->short_name,
					     o->long_name);
			else
				n = snprintf(left, sizeof(left), "      --%s", o->long_name);
			if (o->argh && n > 0 && (size_t)n < sizeof(left))
				snprintf(left + n, sizeof(left) - (size_t)n,
					 (o->flags & OPT_OPTIONAL_ARG) ? "[=%s]" : " %s", o->argh);
			fprintf(f, "%-30s %s", left, o->help ? o->help : "");
			def[0] = '\0';
			if (groups[g].defaults && o->type != OPT_FLAG && o->type != OPT_STRLIST)
				opts_format_value(o, groups[g].defaults, def, sizeof(def));
			opts_format_allowed(o, allowed, sizeof(allowed));
			if (def[0] && allowed[0])
				fprintf(f, " (default %s; %s)", def, allowed);
			else if (def[0])
				fprintf(f, " (default %s)", def);
			else if (allowed[0])
				fprintf(f, " (%s)", allowed);
			fputc('\n', f);
		}
	}
}
