/*
 * log.h: what a store holds, one line per experiment, newest first, as
 * `wakebench log` lists it (git log for results): when, what, where, the
 * primary metric's median (a run) or the first effect and its verdict (an
 * ab, from engine/ab.c's one result), and what makes it suspect (noisy,
 * overloaded, not complete).
 */
#ifndef WAKEBENCH_ENGINE_LOG_H
#define WAKEBENCH_ENGINE_LOG_H

#include <stddef.h>

#include "core/log.h"
#include "store/store.h"

/* The experiments matching f (NULL: all), the newest `limit` (0: all). -1 after saying why. */
int log_build(struct store *st, const struct store_filter *f, size_t limit, struct log *out);
void log_release(struct log *l);

#endif
