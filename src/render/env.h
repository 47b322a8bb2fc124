/*
 * env.h: an environment difference as text tables print it.
 */
#ifndef WAKEBENCH_RENDER_ENV_H
#define WAKEBENCH_RENDER_ENV_H

#include <stdio.h>

#include "core/env.h"

/*
 * "    strong   KEY   CHANGE": a feature vector's change in words
 * (env_vector_change()), other values as "A -> B", folded at 100 columns
 * under the value's column; stored text made safe to print.
 */
void render_env_delta(FILE *f, const struct env_delta *d);

#endif
