/*
 * campaign.h: `campaign`, a cross-kernel verdict on the real machine, boots
 * as units (doc/campaign.md): which kernels are installed and how each can
 * be booted once; a plan of boots stored with the results; at each boot, a
 * step that checks it is the planned kernel, lets the machine settle, runs
 * the experiment, judges the boots so far with compare's engine, and boots
 * the next kernel once or ends; status and abort.
 */
#ifndef WAKEBENCH_ENGINE_CAMPAIGN_H
#define WAKEBENCH_ENGINE_CAMPAIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "core/effect.h"
#include "store/store.h"
#include "sys/boot.h"

/* The installed kernels, every backend, and how each backend boots each kernel. */
struct campaign_kernels {
	struct boot_kernel *kernel;
	size_t n;
	struct boot_loader loader[BOOT_NBACKENDS];
	struct boot_entry *entry; /* n * BOOT_NBACKENDS: entry[i * BOOT_NBACKENDS + b] */
	/*
	 * The backend a campaign uses: the one asked for, or (asked BOOT_NBACKENDS,
	 * "auto") the first usable in boot.h's order. BOOT_NBACKENDS when that
	 * one is not usable here, with the reason in why.
	 */
	enum boot_backend chosen;
	char why[600];
};

/* Read them under root; 0, or -1 with the reason in why (exit 1). */
int campaign_kernels(const char *root, enum boot_backend want, struct campaign_kernels *c,
		     char *why, size_t len);
void campaign_kernels_release(struct campaign_kernels *c);
/* As `campaign kernels --format json` prints it (the caller's reference). */
json_object *campaign_kernels_json(const struct campaign_kernels *c);

/* Where a campaign lives: the machine's files, the store, this program. */
struct campaign_where {
	const char *root;      /* "/" (WAKEBENCH_ROOT in tests) */
	const char *db;	       /* the store's path: the experiments and the plan */
	const char *self;      /* this program, which the boot-time unit and the step run */
	const char *state_dir; /* the step's lock */
};

enum campaign_order { CAMPAIGN_BALANCED = 0, CAMPAIGN_RANDOM };

struct campaign_plan {
	const char *const *kernels; /* releases; the first is the baseline */
	size_t nkernels;
	unsigned boots;	    /* of each kernel before a verdict is looked for */
	unsigned max_boots; /* in all, before it stops undecided */
	enum campaign_order order;
	uint64_t seed;		   /* CAMPAIGN_RANDOM's */
	uint64_t settle_ns;	   /* time since boot before measuring; 0: no wait at all */
	bool reboot;		   /* false: the user reboots (--no-reboot) */
	bool stop_on_fail;	   /* a failed boot ends the campaign (--on-fail stop) */
	enum boot_backend backend; /* BOOT_NBACKENDS: auto */
	const char *const *run;	   /* "run" WORKLOAD ARGS... */
	size_t nrun;
};

/* What a command did, for the renderer. */
enum campaign_action {
	CAMPAIGN_NONE = 0, /* nothing to do (no campaign; this boot already measured) */
	CAMPAIGN_REBOOTING,
	CAMPAIGN_REBOOT_BY_HAND, /* --no-reboot: the next kernel is chosen; reboot now */
	CAMPAIGN_ENDED,
};

struct campaign_result {
	struct store_campaign c;
	struct store_campaign_boot *boot;
	size_t nboots;
	enum campaign_action action;
	char next_kernel[128]; /* booted next */
	char unit[600];	       /* the unit installed, or how to run the step without one */
	char said[1024];       /* what happened at this boot, in words */
	char verdict[1024];    /* the verdict over the boots so far, a line per kernel */
	bool decided;
	unsigned left; /* boots planned and not yet taken (status) */
	double boot_s; /* mean time from one boot's end to the next's (status); 0: unknown */
};

/*
 * start: check the kernels and the backend, store the plan, install the
 * boot-time unit, choose the first boot's kernel once and reboot (or not).
 * Exit status (EXIT_SKIP when it cannot be done here, EXIT_USAGE for a
 * kernel that is not installed) after saying why; r filled on EXIT_OK.
 */
int campaign_start(const struct campaign_where *w, const struct campaign_plan *p,
		   struct campaign_result *r);
/* step: what the unit runs at every boot. */
int campaign_step(const struct campaign_where *w, struct campaign_result *r);
/* status: the newest campaign, its boots and its verdict so far. */
int campaign_status(const struct campaign_where *w, struct campaign_result *r);
/* abort: end the running one, undo the one-shot choice and the unit. */
int campaign_abort(const struct campaign_where *w, struct campaign_result *r);
void campaign_result_release(struct campaign_result *r);

#endif
