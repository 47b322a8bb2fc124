/*
 * cmd-import.c: `wakebench import` (not built yet: this file is replaced by the
 * command's implementation).
 */
#include "cli/cli.h"

int cmd_import(int argc, const char **argv, struct ctx *ctx)
{
	(void)argc;
	(void)argv;
	(void)ctx;
	return error("'import' is not built yet");
}
