/*
 * log.h: one line per stored experiment, as `wakebench log` lists them
 * (engine/log.c fills it, render/log.c prints it).
 */
#ifndef WAKEBENCH_CORE_LOG_H
#define WAKEBENCH_CORE_LOG_H

#include <stdbool.h>
#include <stddef.h>

#include "core/ab.h"
#include "core/experiment.h"
#include "core/metrics.h"

struct log_entry {
	const struct store_experiment *e;
	const struct metric_def *primary; /* its workload's primary metric */
	size_t n;			  /* usable samples (status ok, not warm-ups) */
	double median;			  /* a run: the primary's median; NAN without samples */
	double cv;			  /* a run: its coefficient of variation; NAN below 2 */
	bool noisy;			  /* cv above NOISY_CV */
	bool overloaded;		  /* started with the load above the CPUs */
	/* an ab: its first effect (a feature's), as ab printed it */
	bool have_effect;
	char what[AB_TOKEN_MAX];
	struct stats_seq_effect effect;
};

struct log {
	struct store_experiment *exps;
	size_t nexps;
	struct log_entry *entries; /* newest first */
	size_t n;
};

#endif
