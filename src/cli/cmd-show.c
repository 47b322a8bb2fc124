/*
 * cmd-show.c: `wakebench show` (not built yet: this file is replaced by the
 * command's implementation).
 */
#include "cli/cli.h"

int cmd_show(int argc, const char **argv, struct ctx *ctx)
{
	(void)argc;
	(void)argv;
	(void)ctx;
	return error("'show' is not built yet");
}
