/*
 * fuzz-sched-debug.c: the parser of <debugfs>/sched/debug
 * (sched_debug_parse in src/sys/sched_debug.c) on arbitrary text: the
 * delayed-entity sampler reads that file, whose layout changes between
 * kernel versions, several times a second during a sample.
 *
 * A successful parse must have found a root cfs_rq, name the fields it
 * used, and keep the CPU numbers it saw in range.
 */
#include "fuzz.h"
#include "sys/sched_debug.h"

static struct sched_debug_delayed out; /* 4 KiB */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size), why[256];

	why[0] = '\0';
	if (!sched_debug_parse(s, &out, why, sizeof(why))) {
		FUZZ_CHECK(out.ncpus > 0 && out.max_cpu >= 0);
		FUZZ_CHECK(out.source == SD_QUEUED_MINUS_RUNNABLE || out.source == SD_H_NR_DELAYED);
		FUZZ_CHECK(strcmp(sched_debug_source_name(out.source), "none"));
	} else {
		FUZZ_CHECK(why[0]);
	}
	free(s);
	return 0;
}
