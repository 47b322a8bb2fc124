/*
 * habits.c: stress-ng's options typed to `run` or `ab` out of habit.
 *
 * People come to wakebench from the report's `stress-ng --pipe 4 --timeout
 * 20s --metrics-brief`. Its options are not wakebench's, and some of them
 * would be misread (`--pipe 4` is the messaging workload's --pipe flag
 * followed by a workload called '4'). So the first one met ends the command
 * with one line that gives the whole command line in wakebench's words:
 *   run: unknown option '--pipe' (stress-ng's --pipe N: here the workload
 *   pipe with -j N instances); did you mean 'wakebench run pipe -j 4'?
 */
#include "cli/experiment.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct habit {
	const char *name;  /* stress-ng's long option, without "--" */
	const char *argh;  /* its value's placeholder when it takes one, else NULL */
	const char *ours;  /* wakebench's option for it (NULL: --pipe, the workload) */
	const char *value; /* the value ours takes when it is fixed (--format ...) */
	const char *note;  /* what differs, said in the message */
};

static const struct habit habits[] = {
	{ "pipe", "N", NULL, NULL,
	  "stress-ng's --pipe N: here the workload pipe with -j N instances" },
	{ "timeout", "DURATION", "-t", NULL,
	  "stress-ng's --timeout: here -t/--duration, the length of each of -n samples" },
	{ "metrics-brief", NULL, "--format", "metrics-brief",
	  "stress-ng's: here --format metrics-brief, the same table" },
	{ "metrics", NULL, "--format", "metrics-brief",
	  "stress-ng's: here --format metrics-brief, its table" },
	{ "taskset", "LIST", "--cpus", NULL, "stress-ng's --taskset: here --cpus" },
	{ "pipe-data-size", "SIZE", "--data-size", NULL,
	  "stress-ng's: here the pipe workload's --data-size" },
};

/* Does any table accept --format metrics-brief (run does, ab does not)? */
static bool metrics_brief_allowed(const struct opt *const *tables, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct opt *o = opts_find(tables[i], "format");

		if (o && opts_choice_index(o->choices, "metrics-brief") >= 0)
			return true;
	}
	return false;
}

static bool known(const struct opt *const *tables, size_t n, const char *lname)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (opts_find(tables[i], lname))
			return true;
	return false;
}

/*
 * The habit argv[a] is, with its value (from "=" or the next argument:
 * *used_next is set then); NULL when it is none.
 */
static const struct habit *habit_at(const struct opt *const *tables, size_t ntables, int argc,
				    const char **argv, int a, const char **value, bool *used_next)
{
	const char *arg = argv[a], *eq;
	size_t len, i;
	uint64_t n;

	*value = NULL;
	*used_next = false;
	if (strncmp(arg, "--", 2) || !arg[2])
		return NULL;
	eq = strchr(arg + 2, '=');
	len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
	for (i = 0; i < ARRAY_SIZE(habits); i++) {
		const struct habit *h = &habits[i];

		if (strlen(h->name) != len || strncmp(arg + 2, h->name, len))
			continue;
		if (h->argh) {
			if (eq)
				*value = eq + 1;
			else if (a + 1 < argc)
				*value = argv[a + 1], *used_next = true;
		}
		if (!h->ours) {
			/* messaging has a --pipe flag; stress-ng's --pipe has a count */
			return *value && !parse_u64(*value, &n) ? h : NULL;
		}
		if (known(tables, ntables, h->name))
			return NULL;
		if (h->value && !metrics_brief_allowed(tables, ntables))
			return NULL;
		return h;
	}
	return NULL;
}

/* The words of one habit in wakebench's terms, appended to out. */
static void translate(const struct habit *h, const char *value, const char **out, size_t *n,
		      char *cpus, size_t cpuslen)
{
	if (!h->ours) {
		out[(*n)++] = "pipe";
		out[(*n)++] = "-j";
		/* stress-ng's 0 is one instance per online CPU */
		if (!strcmp(value, "0")) {
			snprintf(cpus, cpuslen, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
			value = cpus;
		}
		out[(*n)++] = value;
		return;
	}
	out[(*n)++] = h->ours;
	if (h->value)
		out[(*n)++] = h->value;
	else
		out[(*n)++] = value ? value : h->argh;
}

void experiment_check_habit(const char *cmd, const struct opt *const *tables, size_t ntables,
			    int argc, const char **argv, int a)
{
	const struct habit *first, *h;
	const char **words, *value;
	char cpus[24];
	struct ctx words_ctx = { 0 };
	size_t n = 0;
	bool used_next;
	char *line;
	int i;

	first = habit_at(tables, ntables, argc, argv, a, &value, &used_next);
	if (!first)
		return;
	words = xcalloc((size_t)argc * 3 + 3, sizeof(*words));
	words[n++] = "wakebench";
	words[n++] = cmd;
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			for (; i < argc; i++)
				words[n++] = argv[i];
			break;
		}
		h = habit_at(tables, ntables, argc, argv, i, &value, &used_next);
		if (!h) {
			words[n++] = argv[i];
			continue;
		}
		translate(h, value, words, &n, cpus, sizeof(cpus));
		i += used_next;
	}
	words_ctx.argc = (int)n;
	words_ctx.argv = words;
	line = cli_cmdline(&words_ctx);
	die_usage("%s: unknown option '--%s' (%s); did you mean '%s'?", cmd, first->name,
		  first->note, line);
}
