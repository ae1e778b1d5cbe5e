/* The messages of the command line: text written as one line, formatted
 * text, errors and the usage message of a bad command line. */
#include "args.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

void cli_fputs_one_line(const char *s, FILE *f)
{
	for (; *s; s++)
		if (is_control((unsigned char)*s))
			fprintf(f, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, f);
}

char *cli_format(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !(s = malloc((size_t)n + 1)))
		return NULL;
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

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

/* The usage lines, from the command table (no functions: the fuzz target
 * links this file without the commands). */
static const char *const usages[] = {
#define CLI__USAGE(name, usage) usage,
    CLI_COMMAND_MAP(CLI__USAGE)
#undef CLI__USAGE
};

int cli_usage(const char *why)
{
	size_t i;
	if (why)
		cli_error("%s", why);
	fputs("usage:\n", stderr);
	for (i = 0; i < sizeof(usages) / sizeof(usages[0]); i++)
		fprintf(stderr, "  symshape %s\n", usages[i]);
	return CLI_USAGE;
}

int cli_unknown_option(const char *arg)
{
	char msg[128];
	snprintf(msg, sizeof(msg), "unknown option '%.80s'", arg);
	return cli_usage(msg);
}

/* Rewrites the control characters of the message err as \xNN (cut to
 * errsize), so that a message quoting the user's text stays one line;
 * returns -1 for the caller's failure return. */
int cli_one_line(char *err, size_t errsize)
{
	char tmp[512];
	size_t i, w = 0;
	for (i = 0; err[i] && w + 5 < sizeof(tmp) && w + 5 < errsize; i++) {
		if (is_control((unsigned char)err[i]))
			w += (size_t)snprintf(tmp + w, sizeof(tmp) - w, "\\x%02x", (unsigned char)err[i]);
		else
			tmp[w++] = err[i];
	}
	tmp[w] = 0;
	memcpy(err, tmp, w + 1);
	return -1;
}
