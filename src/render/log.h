/*
 * log.h: `wakebench log` as text (a table, newest first), JSON and CSV,
 * from engine/log.c's struct log.
 */
#ifndef WAKEBENCH_RENDER_LOG_H
#define WAKEBENCH_RENDER_LOG_H

#include <stdio.h>

#include "core/log.h"

void render_log_text(FILE *f, const struct log *l);
void render_log_json(FILE *f, const struct log *l);
void render_log_csv(FILE *f, const struct log *l);

#endif
