/*
 * cmd-features.c: `wakebench features` (not built yet: this file is replaced by the
 * command's implementation).
 */
#include "cli/cli.h"

int cmd_features(int argc, const char **argv, struct ctx *ctx)
{
	(void)argc;
	(void)argv;
	(void)ctx;
	return error("'features' is not built yet");
}
