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

char *cli_vformat(const char *fmt, va_list ap)
{
	va_list aq;
	char *s;
	int n;
	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0 || !(s = malloc((size_t)n + 1)))
		return NULL;
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

char *cli_format(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	s = cli_vformat(fmt, ap);
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
	if (n >= (int)sizeof(small)) {
		va_start(ap, fmt);
		msg = cli_vformat(fmt, ap);
		va_end(ap);
		if (!msg) { /* out of memory: the one cut, marked */
			msg = small;
			memcpy(small + sizeof(small) - 4, "...", 4);
		}
	}
	fputs("symshape: ", stderr);
	cli_fputs_one_line(msg, stderr);
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

static int usage_lines(void)
{
	size_t i;
	fputs("usage:\n", stderr);
	for (i = 0; i < sizeof(usages) / sizeof(usages[0]); i++)
		fprintf(stderr, "  symshape %s\n", usages[i]);
	return CLI_USAGE;
}

int cli_usage(const char *why)
{
	if (why)
		cli_error("%s", why);
	return usage_lines();
}

int cli_usage_unknown(const char *what, const char *arg)
{
	cli_error("unknown %s '%s'", what, arg);
	return usage_lines();
}

int cli_unknown_option(const char *arg)
{
	return cli_usage_unknown("option", arg);
}

char *cli_one_line(char *s)
{
	size_t i, n = 0;
	char *r, *w;
	if (!s)
		return NULL;
	for (i = 0; s[i]; i++)
		n += is_control((unsigned char)s[i]);
	if (!n)
		return s;
	r = malloc(i + 3 * n + 1);
	for (w = r, i = 0; r && s[i]; i++)
		if (is_control((unsigned char)s[i]))
			w += sprintf(w, "\\x%02x", (unsigned char)s[i]);
		else
			*w++ = s[i];
	if (r)
		*w = 0;
	free(s);
	return r;
}
