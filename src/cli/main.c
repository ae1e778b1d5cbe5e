/* symshape: command dispatch. */
#include "cli.h"

#include "args.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void cli_error(const char *fmt, ...)
{
	va_list ap;
	char small[512], *msg = small;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(small) && (msg = malloc((size_t)n + 1))) {
		va_start(ap, fmt);
		vsnprintf(msg, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	fputs("symshape: ", stderr);
	cli_fputs_one_line(msg ? msg : small, stderr);
	fputc('\n', stderr);
	if (msg != small)
		free(msg);
}

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *usage;
} commands[] = {
#define CLI__ENTRY(name, usage) {#name, cli_##name, usage},
	CLI_COMMAND_MAP(CLI__ENTRY)
#undef CLI__ENTRY
};

int cli_usage(const char *why)
{
	size_t i;
	if (why)
		cli_error("%s", why);
	fputs("usage:\n", stderr);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(stderr, "  symshape %s\n", commands[i].usage);
	return CLI_USAGE;
}

int cli_unknown_option(const char *arg)
{
	char msg[128];
	snprintf(msg, sizeof(msg), "unknown option '%.80s'", arg);
	return cli_usage(msg);
}

char *cli_expr_text(sym_ctx *ctx, const sym_expr *e)
{
	char *t = sym_expr_to_str(ctx, e), *r;
	if (!t)
		return NULL;
	r = strdup(t);
	sym_str_free(ctx, t);
	return r;
}

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
	{
		char msg[128];
		snprintf(msg, sizeof(msg), "unknown command '%.80s'", argv[1]);
		return cli_usage(msg);
	}
}
