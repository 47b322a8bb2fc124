/*
 * campaign.h: `campaign`, a cross-kernel verdict on the real machine, boots
 * as units (doc/campaign.md). What is built so far: the check that comes
 * first, which kernels are installed and how each can be booted once.
 */
#ifndef WAKEBENCH_ENGINE_CAMPAIGN_H
#define WAKEBENCH_ENGINE_CAMPAIGN_H

#include <stddef.h>

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

#endif
