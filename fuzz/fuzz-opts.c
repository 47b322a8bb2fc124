/*
 * fuzz-opts.c: the option parser (src/util/opts.c) on arbitrary argv.
 *
 * Input: one mode byte, then the arguments, each ended by a NUL byte (the
 * last one may end with the input). The mode's low bit is
 * stop_at_first_pos, as `vm -- ...` uses. With bit 1 clear the arguments
 * are parsed against two groups that between them use every option type
 * and flag the tables know (ranges, choices with and without stored
 * values, optional values, repeatable strings, short names); with it set,
 * against the real tables of `wakebench run`: the common options, the
 * runner's, the probes' and those of a workload (bits 2-3 choose which),
 * each filling a struct allocated to its exact size, so that an offset or
 * type in a table that does not fit its struct is an ASan report.
 *
 * After a successful parse every value is rendered as help and `list` do,
 * and a size renders to text that parses back to the same bytes. Whatever
 * the outcome, everything is released (LeakSanitizer checks).
 */
#include "fuzz.h"
#include "cli/cli.h"
#include "runner/runner.h"
#include "runner/probes.h"
#include "util/opts.h"
#include "workloads/workload.h"

#include <stdbool.h>

struct fuzz_params {
	bool flag;
	uint64_t count, duration_ns, size_bytes, window_ns;
	double ratio, margin;
	int placement, format;
	const char *label;
	struct strlist features;
};

static const char *const placements[] = { "any", "same-cpu", "cross-cpu", "spread", NULL };
static const char *const formats[] = { "text", "json", "metrics-brief", NULL };
static const int format_values[] = { 4, 1, 7 };

static const struct fuzz_params fuzz_defaults = {
	.count = 4,
	.duration_ns = 2000000000ull,
	.size_bytes = 512,
	.window_ns = 1000000000ull,
	.ratio = 0.5,
	.margin = 0.02,
	.format = 4,
};

#define P(field) offsetof(struct fuzz_params, field)

static const struct opt workload_opts[] = {
	{ .type = OPT_UINT,
	  .long_name = "instances",
	  .short_name = 'j',
	  .offset = P(count),
	  .argh = "N",
	  .help = "instances",
	  .min = 1,
	  .max = 4096 },
	{ .type = OPT_DURATION,
	  .long_name = "duration",
	  .short_name = 't',
	  .offset = P(duration_ns),
	  .argh = "DURATION",
	  .help = "per sample",
	  .min = 1e6,
	  .max = 86400e9 },
	{ .type = OPT_SIZE,
	  .long_name = "data-size",
	  .offset = P(size_bytes),
	  .argh = "SIZE",
	  .help = "bytes per write",
	  .min = 1,
	  .max = 1 << 20 },
	{ .type = OPT_DOUBLE,
	  .long_name = "ratio",
	  .offset = P(ratio),
	  .argh = "X",
	  .help = "a fraction",
	  .min = 0,
	  .max = 1 },
	{ .type = OPT_PERCENT,
	  .long_name = "margin",
	  .offset = P(margin),
	  .argh = "PCT",
	  .help = "practical margin",
	  .min = 0.0001,
	  .max = 0.5 },
	{ .type = OPT_CHOICE,
	  .long_name = "placement",
	  .offset = P(placement),
	  .argh = "WHERE",
	  .help = "placement",
	  .choices = placements },
	{ .type = OPT_DURATION,
	  .long_name = "warmup",
	  .offset = P(window_ns),
	  .argh = "DURATION",
	  .help = "warm-up",
	  .implied = "1s",
	  .flags = OPT_OPTIONAL_ARG },
	{ .type = OPT_STRLIST,
	  .long_name = "feature",
	  .short_name = 'f',
	  .offset = P(features),
	  .argh = "NAME",
	  .help = "repeatable" },
	{ .type = OPT_FLAG, .long_name = "secret", .offset = P(flag), .flags = OPT_HIDDEN },
	OPT_END_ROW,
};

static const struct opt common_opts[] = {
	{ .type = OPT_STRING,
	  .long_name = "label",
	  .short_name = 'l',
	  .offset = P(label),
	  .argh = "TEXT",
	  .help = "label" },
	{ .type = OPT_CHOICE,
	  .long_name = "format",
	  .offset = P(format),
	  .argh = "FMT",
	  .help = "output",
	  .choices = formats,
	  .choice_values = format_values },
	{ .type = OPT_FLAG,
	  .long_name = "quiet",
	  .short_name = 'q',
	  .offset = P(flag),
	  .help = "less output" },
	OPT_END_ROW,
};

#define MAX_ARGS 64

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		die_errno("fuzz: cannot open '/dev/null'");
	return 0;
}

static void render_all(const struct opt_group *groups, size_t ngroups)
{
	char value[256], allowed[256];
	size_t g;

	for (g = 0; g < ngroups; g++) {
		const struct opt *o;

		for (o = groups[g].opts; o->type != OPT_END; o++) {
			opts_format_value(o, groups[g].base, value, sizeof(value));
			opts_format_allowed(o, allowed, sizeof(allowed));
			FUZZ_CHECK(strlen(value) < sizeof(value) &&
				   strlen(allowed) < sizeof(allowed));
		}
	}
	opts_print_help(devnull, groups, ngroups);
}

/* A copy of a params struct in a block of exactly its size. */
static void *exact_copy(const void *defaults, size_t size)
{
	void *p = xmalloc(size);

	memcpy(p, defaults, size);
	return p;
}

static size_t nworkloads(void)
{
	size_t n = 0;

	while (workloads[n])
		n++;
	return n;
}

/* Parse against the tables of `wakebench run WORKLOAD`; returns opts_parse()'s result. */
static int parse_real(unsigned mode, int argc, const char **argv, struct opts_result *res)
{
	const struct workload *wl = workloads[(mode >> 2 & 3) % nworkloads()];
	struct ctx *ctx = xcalloc(1, sizeof(*ctx));
	struct opt_group groups[] = {
		cli_common_group(ctx),
		{ "runner options", runner_opts,
		  exact_copy(&runner_defaults, sizeof(runner_defaults)), &runner_defaults, 0 },
		{ "probe options", probe_opts, exact_copy(&probe_defaults, sizeof(probe_defaults)),
		  &probe_defaults, 0 },
		{ "workload options", wl->opts, exact_copy(wl->defaults, wl->params_size),
		  wl->defaults, 0 },
	};
	size_t g;
	int ret;

	ret = opts_parse("run", groups, ARRAY_SIZE(groups), argc, argv, mode & 1, res);
	if (!ret)
		render_all(groups, ARRAY_SIZE(groups));
	opts_release(groups, ARRAY_SIZE(groups));
	for (g = 0; g < ARRAY_SIZE(groups); g++)
		free(groups[g].base);
	return ret;
}

/* Parse against this file's tables, which use every type and flag. */
static int parse_synthetic(unsigned mode, int argc, const char **argv, struct opts_result *res)
{
	struct fuzz_params params = fuzz_defaults, common = fuzz_defaults;
	struct opt_group groups[] = {
		{ "workload options", workload_opts, &params, &fuzz_defaults, 0 },
		{ "common options", common_opts, &common, &fuzz_defaults, 0 },
	};
	int ret;

	ret = opts_parse("fuzz", groups, ARRAY_SIZE(groups), argc, argv, mode & 1, res);
	if (!ret) {
		char text[64];
		uint64_t back;

		FUZZ_CHECK(params.count >= 1 && params.count <= 4096);
		FUZZ_CHECK(params.size_bytes >= 1 && params.size_bytes <= 1 << 20);
		/* What help prints as a default must be what the user can type back. */
		format_size(params.size_bytes, text, sizeof(text));
		FUZZ_CHECK(!parse_size(text, &back) && back == params.size_bytes);
		render_all(groups, ARRAY_SIZE(groups));
	}
	opts_release(groups, ARRAY_SIZE(groups));
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *argv[MAX_ARGS];
	struct opts_result res;
	char *buf, *p, *end;
	int argc = 0, ret;
	unsigned mode;

	if (!size)
		return 0;
	mode = data[0];
	buf = fuzz_cstr(data + 1, size - 1);
	end = buf + (size - 1);
	for (p = buf; p < end && argc < MAX_ARGS; p += strlen(p) + 1)
		argv[argc++] = p;

	if (mode & 2)
		ret = parse_real(mode, argc, argv, &res);
	else
		ret = parse_synthetic(mode, argc, argv, &res);
	if (!ret) {
		size_t i;

		FUZZ_CHECK(res.npos <= (size_t)argc);
		FUZZ_CHECK(res.dashdash >= -1 && res.dashdash <= (long)res.npos);
		for (i = 0; i < res.npos; i++)
			FUZZ_CHECK(res.pos[i] >= buf && res.pos[i] < end + 1);
	}
	opts_result_release(&res);
	free(buf);
	return 0;
}
