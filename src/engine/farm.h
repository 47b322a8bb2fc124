/*
 * farm.h: what wakebench offers board farms (DESIGN section 12): the
 * KernelCI KCIDB document that `export --format kcidb` writes (kcidb.c),
 * and the results a LAVA job carries home in its log, which
 * `import JOB.log` finds, verifies and merges (lava.c).
 */
#ifndef WAKEBENCH_ENGINE_FARM_H
#define WAKEBENCH_ENGINE_FARM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "store/store.h"

/* ---- KCIDB (kcidb.c) ---- */

/*
 * Is origin a KCIDB origin (lower-case letters, digits and '_', at most
 * 64 characters)? The caller names the option when it is not.
 */
bool kcidb_origin_valid(const char *origin);

/*
 * Write one KCIDB v5.3 document on stdout for the experiments matching f:
 * a checkout and a build per kernel, a DONE test with the median of the
 * primary metric per config, and a PASS/FAIL/SKIP test per `ab` verdict,
 * all ids under origin. With cases, the same tests as LAVA test cases
 * instead (`export --format lava-cases`): lines "NAME pass|fail|skip
 * [VALUE UNITS]" as in the result.txt of Linaro's test-definitions
 * (origin may then be NULL). Returns 0, or -1 after reporting.
 */
int kcidb_export(struct store *st, const struct store_filter *f, const char *origin, bool cases);

/* ---- LAVA job logs (lava.c) ---- */

/*
 * `export --format lava`: between begin and end, stdout goes to a temporary
 * file; end (given the writer's status) frames what was written there and
 * prints the frame on the real stdout. Returns 0, or -1 after reporting
 * (end after a failed begin only returns -1).
 */
struct lava_capture {
	FILE *tmp;
	int saved_fd;
};

int lava_capture_begin(struct lava_capture *c);
int lava_capture_end(struct lava_capture *c, int status);

/*
 * Find the framed results in the job log read from in (a LAVA job log in
 * its YAML form, or plain console text; path for messages; lines of at
 * most IMPORT_MAX_LINE_BYTES), verify each frame, and merge the
 * experiments of every whole frame into st by UUID, streamed
 * (json_import_*()), with the LAVA job id, device and lab the frame's
 * metadata attests as environment keys lava.job_id, lava.device, lava.lab
 * of the added experiments (any other lava.* key becomes a claim). A log
 * in which no frame is whole imports nothing. Each problem is said on one
 * line. Returns 0 when every frame was whole, 1 when some were (and were
 * merged) but others were not, -1 when none was.
 */
struct import_result;
int lava_import_log(struct store *st, const char *path, FILE *in, struct import_result *r);

#endif
