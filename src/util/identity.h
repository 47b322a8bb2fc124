/*
 * identity.h: which process, in which boot. A pid alone names no process for
 * long (pids are reused, and pid namespaces reuse them at once), so whoever
 * records an owner (the features journal, a running experiment in the store)
 * records the pid with the process's start time and the kernel's boot id,
 * and asks later whether that very process is still running.
 */
#ifndef WAKEBENCH_IDENTITY_H
#define WAKEBENCH_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* /proc/sys/kernel/random/boot_id into buf; -1 with "" when it cannot be read. */
int proc_boot_id(char *buf, size_t len);

/*
 * Field 22 of /proc/<pid>/stat, the process's start time in clock ticks since
 * boot; -1 when the process is gone or a zombie (killed, not yet reaped: it
 * restores nothing and writes nothing, whatever its parent does).
 */
int proc_start_ticks(pid_t pid, uint64_t *ticks);

/*
 * Is the process that was pid, started at start_ticks in the boot boot_id,
 * still running? A boot id of "" (not known when it was recorded) is not
 * compared.
 */
bool proc_identity_alive(pid_t pid, uint64_t start_ticks, const char *boot_id);

#endif
