/* symshape: command dispatch. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	int (*fn)(int, char **);
} commands[] = {
#define CLI__ENTRY(name, usage) {#name, cli_##name},
    CLI_COMMAND_MAP(CLI__ENTRY)
#undef CLI__ENTRY
};

int main(int argc, char **argv)
{
	size_t i;
	if (argc < 2)
		return cli_usage("no command given");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		cli_usage(NULL);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		puts("symshape 0.1.0");
		return CLI_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		/* command names are C identifiers: emit_c is spelled emit-c */
		char name[32];
		size_t k;
		snprintf(name, sizeof(name), "%s", commands[i].name);
		for (k = 0; name[k]; k++)
			if (name[k] == '_')
				name[k] = '-';
		if (!strcmp(argv[1], name))
			return commands[i].fn(argc - 2, argv + 2);
	}
	return cli_usage_unknown("command", argv[1]);
}
