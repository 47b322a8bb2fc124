/*
 * cmd-ab.c: `wakebench ab` (not built yet: this file is replaced by the
 * command's implementation).
 */
#include "cli/cli.h"

int cmd_ab(int argc, const char **argv, struct ctx *ctx)
{
	(void)argc;
	(void)argv;
	(void)ctx;
	return error("'ab' is not built yet");
}
