/*
 * filter.c: the experiment filters shared by `compare` and `export`, and
 * their CSV writers. One table, so both commands accept and document the
 * same filters the same way.
 */
#include "cli/filter.h"
#include "util/util.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const struct opt filter_opts[] = {
	{ .type = OPT_STRLIST,
	  .long_name = "workload",
	  .offset = offsetof(struct filter_params, workload),
	  .argh = "NAME",
	  .help = "only experiments of this workload (repeat for any of several)" },
	{ .type = OPT_STRLIST,
	  .long_name = "profile",
	  .offset = offsetof(struct filter_params, profile),
	  .argh = "NAME",
	  .help = "only experiments with this profile (repeat for any of several)" },
	{ .type = OPT_STRLIST,
	  .long_name = "label",
	  .offset = offsetof(struct filter_params, label),
	  .argh = "TEXT",
	  .help = "only experiments with this label (repeat for any of several)" },
	{ .type = OPT_STRLIST,
	  .long_name = "kernel",
	  .offset = offsetof(struct filter_params, kernel),
	  .argh = "RELEASE",
	  .help = "only experiments on this kernel release (uname -r), or the one release it is "
		  "the start of; repeat for any of several" },
	{ .type = OPT_STRLIST,
	  .long_name = "host",
	  .offset = offsetof(struct filter_params, host),
	  .argh = "NAME",
	  .help = "only experiments from this host (repeat for any of several)" },
	{ .type = OPT_STRING,
	  .long_name = "since",
	  .offset = offsetof(struct filter_params, since),
	  .argh = "WHEN",
	  .help = "only experiments started since a date (2026-04-01[T12:00], a day that "
		  "exists) or a duration ago (2h)" },
	OPT_END_ROW,
};

struct opt_group filter_group(struct filter_params *fp)
{
	struct opt_group g = { .title = "filters", .opts = filter_opts, .base = fp };

	return g;
}

void filter_resolve(const char *cmd, const struct filter_params *fp, struct store_filter *f)
{
	f->workload = fp->workload;
	f->profile = fp->profile;
	f->label = fp->label;
	f->kernel = fp->kernel;
	f->host = fp->host;
	if (fp->since && store_parse_since(fp->since, &f->since_ns))
		die_usage("%s: option '--since': not a date or duration: '%s', allowed "
			  "YYYY-MM-DD[THH:MM[:SS]] or a duration such as 2h",
			  cmd, fp->since);
}
