/* libFuzzer target for the CLI's --dims and --hint parsers (src/cli/args.h).
 *
 * The input bytes, as one NUL-terminated text, go to both cli_parse_dims and
 * cli_parse_hints.  An accepted dims list printed back with "%lld" joined
 * by "," must give the input text when no number in it has a leading zero
 * (or is "-0"); a rejected text must give a non-empty message of one line
 * (or none: out of memory) that quotes the item it rejects whole.  Accepted
 * hints have non-empty names. */
#define FUZZ_NAME "fuzz_cli_args"
#include "fuzz_util.h"

#include "cli/args.h"

#include <ctype.h>

/* 1 when a number of the text starts with 0 and goes on with a digit, or
 * is a negative zero: "%lld" would print it otherwise. */
static int has_leading_zero(const char *t)
{
	size_t i;
	for (i = 0; t[i]; i++) {
		int start = i == 0 || t[i - 1] == ',' || t[i - 1] == '-' || t[i - 1] == '+';
		if (start && t[i] == '0' && (isdigit((unsigned char)t[i + 1]) || (i > 0 && t[i - 1] == '-')))
			return 1;
	}
	return 0;
}

static void check_message(char *err)
{
	if (err)
		FUZZ_CHECK(*err && !strchr(err, '\n'), "the message is not one non-empty line: '%s'", err);
	free(err);
}

static void check_dims(const char *text)
{
	int64_t *dims = NULL;
	size_t n = 0, i, len = 0;
	char *printed, *err;
	if (cli_parse_dims(text, &dims, &n, &err) != 0) {
		check_message(err);
		free(dims);
		return;
	}
	FUZZ_CHECK(n == 0 || dims != NULL, "%zu dims without an array", n);
	printed = malloc(n * 21 + 1);
	if (!printed) {
		free(dims);
		return;
	}
	printed[0] = 0;
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(printed + len, "%s%lld", i ? "," : "", (long long)dims[i]);
	if (!has_leading_zero(text))
		FUZZ_CHECK(strcmp(printed, text) == 0, "the dims '%s' print back as '%s'", text, printed);
	free(printed);
	free(dims);
}

static void check_hints(const char *text)
{
	char **names = NULL, *err;
	int64_t *values = NULL;
	size_t n = 0, i;
	if (cli_parse_hints(text, &names, &values, &n, &err) != 0) {
		check_message(err);
		return;
	}
	for (i = 0; i < n; i++)
		FUZZ_CHECK(names && names[i] && *names[i], "hint %zu has no name", i);
	cli_hints_free(names, values, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	check_dims(text);
	check_hints(text);
	free(text);
	return 0;
}
