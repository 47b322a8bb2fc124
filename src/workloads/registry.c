/*
 * registry.c: the only list of workloads. Adding a workload is one file in
 * src/workloads/ plus one line here.
 */
#include "workloads/workload.h"
#include "util/util.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

extern const struct workload workload_pipe;
extern const struct workload workload_pingpong;
extern const struct workload workload_messaging;
extern const struct workload workload_ring;
extern const struct workload workload_schbench;

const struct workload *const workloads[] = {
	&workload_pipe, &workload_pingpong, &workload_messaging,
	&workload_ring, &workload_schbench, NULL,
};

const struct workload *workload_find(const char *name)
{
	size_t i;

	for (i = 0; workloads[i]; i++)
		if (!strcmp(workloads[i]->name, name))
			return workloads[i];
	return NULL;
}

const struct profile *workload_profile(const struct workload *wl, const char *name)
{
	const struct profile *p;

	for (p = wl->profiles; p && p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

/* Whether p covers release `version` of `tool` (version NULL: p covers every release). */
static bool covers(const struct profile *p, const char *tool, const char *version)
{
	int lo, hi;

	if (!p->tool || strcmp(p->tool, tool))
		return false;
	if (!p->first)
		return true;
	if (!version || !*version)
		return false;
	return !version_cmp(version, p->first, &lo) && !version_cmp(version, p->last, &hi) &&
	       lo >= 0 && hi <= 0;
}

const struct profile *workload_profile_for(const struct workload *wl, const char *tool,
					   const char *version)
{
	const struct profile *p;

	for (p = wl->profiles; tool && p && p->name; p++)
		if (covers(p, tool, version))
			return p;
	return NULL;
}

const struct profile *workload_profile_resolve(const struct workload *wl, const char *name,
					       const char **version)
{
	const struct profile *p = workload_profile(wl, name);
	size_t n;

	*version = NULL;
	if (p)
		return p;
	for (p = wl->profiles; p && p->name; p++) {
		int cmp;

		if (!p->tool || !p->first)
			continue;
		n = strlen(p->tool);
		if (strncmp(name, p->tool, n) || name[n] != '-' ||
		    version_cmp(name + n + 1, "0", &cmp))
			continue;
		if (covers(p, p->tool, name + n + 1)) {
			*version = name + n + 1;
			return p;
		}
	}
	return NULL;
}

void workload_tool_range(const struct workload *wl, const char *tool, char *buf, size_t len)
{
	const struct profile *p, *lo = NULL, *hi = NULL;
	int cmp;

	for (p = wl->profiles; p && p->name; p++) {
		if (!p->tool || !p->first || strcmp(p->tool, tool))
			continue;
		if (!lo || (!version_cmp(p->first, lo->first, &cmp) && cmp < 0))
			lo = p;
		if (!hi || (!version_cmp(p->last, hi->last, &cmp) && cmp > 0))
			hi = p;
	}
	snprintf(buf, len, "%s%s%s", lo ? lo->first : "", lo ? ".." : "", hi ? hi->last : "");
}
