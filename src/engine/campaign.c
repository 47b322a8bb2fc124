/*
 * campaign.c: the campaign engine (campaign.h). The backends' reading of
 * the machine is sys/boot.c's; this puts it together for one decision:
 * which backend a campaign would use, and whether it boots each kernel.
 */
#include "engine/campaign.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int campaign_kernels(const char *root, enum boot_backend want, struct campaign_kernels *c,
		     char *why, size_t len)
{
	size_t i;
	unsigned b;

	memset(c, 0, sizeof(*c));
	c->chosen = BOOT_NBACKENDS;
	if (boot_kernels(root, &c->kernel, &c->n, why, len))
		return -1;
	for (b = 0; b < BOOT_NBACKENDS; b++)
		boot_loader_probe(root, (enum boot_backend)b, &c->loader[b]);
	c->entry = xcalloc(c->n ? c->n * BOOT_NBACKENDS : 1, sizeof(*c->entry));
	for (i = 0; i < c->n; i++)
		for (b = 0; b < BOOT_NBACKENDS; b++)
			boot_entry_find(root, &c->loader[b], &c->kernel[i],
					&c->entry[i * BOOT_NBACKENDS + b]);
	if (want < BOOT_NBACKENDS) {
		if (c->loader[want].usable)
			c->chosen = want;
		else
			snprintf(c->why, sizeof(c->why), "%s", c->loader[want].why);
		return 0;
	}
	for (b = 0; b < BOOT_NBACKENDS && c->chosen == BOOT_NBACKENDS; b++)
		if (c->loader[b].usable)
			c->chosen = (enum boot_backend)b;
	if (c->chosen == BOOT_NBACKENDS)
		snprintf(c->why, sizeof(c->why),
			 "no boot loader here can boot a kernel once (rpi, systemd-boot, grub, "
			 "kexec: see each one's reason)");
	return 0;
}

void campaign_kernels_release(struct campaign_kernels *c)
{
	free(c->kernel);
	free(c->entry);
	memset(c, 0, sizeof(*c));
}
