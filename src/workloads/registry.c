/*
 * registry.c: the only list of workloads. Adding a workload is one file in
 * src/workloads/ plus one line here.
 */
#include "workloads/workload.h"

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
