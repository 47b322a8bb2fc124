/*
 * cmd-env.c: `wakebench env` (not built yet: this file is replaced by the
 * command's implementation).
 */
#include "cli/cli.h"

int cmd_env(int argc, const char **argv, struct ctx *ctx)
{
	(void)argc;
	(void)argv;
	(void)ctx;
	return error("'env' is not built yet");
}
