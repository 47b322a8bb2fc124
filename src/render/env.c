/*
 * env.c: an environment difference as text (env.h).
 */
#include "render/env.h"
#include "util/text.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

void render_env_delta(FILE *f, const struct env_delta *d)
{
	char *line = d->change[0] ? xstrdup(d->change)
				  : xasprintf("%s -> %s", d->a ? d->a : "(absent)",
					      d->b ? d->b : "(absent)");

	fprintf(f, "    %-8s ", env_impact_name(d->impact));
	text_fold(f, d->key, 13, 13, 100);
	fprintf(f, "%*s", 35 - (int)(strlen(d->key) < 34 ? strlen(d->key) : 34), "");
	text_fold(f, line, 48, 48, 100);
	fputc('\n', f);
	free(line);
}
