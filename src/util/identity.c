/*
 * identity.c: a process's identity across pid reuse and reboots (identity.h),
 * the one check behind both the features journal's owner and the store's
 * running experiments.
 */
#include "util/identity.h"
#include "util/util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int proc_boot_id(char *buf, size_t len)
{
	if (read_line_file("/proc/sys/kernel/random/boot_id", buf, len)) {
		if (len)
			buf[0] = '\0';
		return -1;
	}
	return 0;
}

int proc_start_ticks(pid_t pid, uint64_t *ticks)
{
	char path[64], *text = NULL, *p;
	int field, ret = -1;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_file(path, &text, NULL))
		return -1;
	/* comm may hold spaces and parentheses: the state follows the last ") " */
	p = strrchr(text, ')');
	if (p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X') {
		for (field = 2; p && field < 22; field++)
			p = strchr(p + 1, ' ');
		if (p) {
			*ticks = strtoull(p + 1, NULL, 10);
			ret = 0;
		}
	}
	free(text);
	return ret;
}

bool proc_identity_alive(pid_t pid, uint64_t start_ticks, const char *boot_id)
{
	char boot[64];
	uint64_t ticks;

	if (boot_id && *boot_id && !proc_boot_id(boot, sizeof(boot)) && strcmp(boot, boot_id))
		return false;
	if (pid <= 0 || (kill(pid, 0) && errno == ESRCH))
		return false;
	return !proc_start_ticks(pid, &ticks) && ticks == start_ticks;
}
