/* The command line's strict integers, dims lists and NAME=INT lists. */
#include "args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

void cli_fputs_one_line(const char *s, FILE *f)
{
	for (; *s; s++)
		if (is_control((unsigned char)*s))
			fprintf(f, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, f);
}

/* Rewrites the control characters of the message err as \xNN (cut to
 * errsize), so that a message quoting the user's text stays one line;
 * returns -1 for the caller's failure return. */
static int fail_one_line(char *err, size_t errsize)
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

/* Parses the len characters at s as a nonnegative decimal integer; what
 * names the item in the message. */
static int parse_uint(const char *s, size_t len, int64_t *v, const char *what, char *err, size_t errsize)
{
	uint64_t x = 0;
	size_t i;
	if (!len) {
		snprintf(err, errsize, "%s is empty (expected a decimal integer)", what);
		return -1;
	}
	for (i = 0; i < len; i++) {
		unsigned dig = (unsigned char)s[i] - '0';
		if (dig > 9) {
			snprintf(err, errsize, "%s is '%.*s', not a decimal integer (digits only)", what, (int)len, s);
			return fail_one_line(err, errsize);
		}
		if (x > ((uint64_t)INT64_MAX - dig) / 10) {
			snprintf(err, errsize, "%s is '%.*s', beyond int64", what, (int)len, s);
			return fail_one_line(err, errsize);
		}
		x = x * 10 + dig;
	}
	*v = (int64_t)x;
	return 0;
}

int cli_parse_int(const char *text, int64_t *v, char *err, size_t errsize)
{
	return parse_uint(text, strlen(text), v, "the value", err, errsize);
}

int cli_parse_dims(const char *text, int64_t **dims, size_t *n, char *err, size_t errsize)
{
	size_t count = 1, k = 0;
	const char *p;
	int64_t *d;
	*dims = NULL;
	*n = 0;
	if (!*text)
		return 0;
	for (p = text; *p; p++)
		count += *p == ',';
	if (!(d = malloc(count * sizeof(*d)))) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	for (p = text;; k++) {
		size_t len = strcspn(p, ",");
		char what[48];
		snprintf(what, sizeof(what), "dim %zu", k);
		if (parse_uint(p, len, &d[k], what, err, errsize) < 0) {
			free(d);
			return -1;
		}
		if (!p[len])
			break;
		p += len + 1;
	}
	*dims = d;
	*n = count;
	return 0;
}

void cli_hints_free(char **names, int64_t *values, size_t n)
{
	size_t i;
	for (i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	free(values);
}

int cli_parse_hints(const char *text, char ***names, int64_t **values, size_t *n, char *err, size_t errsize)
{
	size_t count = 1, k = 0, i;
	const char *p;
	char **nm;
	int64_t *v;
	*names = NULL;
	*values = NULL;
	*n = 0;
	if (!*text) {
		snprintf(err, errsize, "expected NAME=INT[,NAME=INT...], got nothing");
		return -1;
	}
	for (p = text; *p; p++)
		count += *p == ',';
	nm = calloc(count, sizeof(*nm));
	v = calloc(count, sizeof(*v));
	if (!nm || !v) {
		snprintf(err, errsize, "out of memory");
		goto error;
	}
	for (p = text;; k++) {
		size_t len = strcspn(p, ","), nlen = strcspn(p, "=,");
		if (!nlen || nlen == len) {
			snprintf(err, errsize, "item %zu '%.*s' is not NAME=INT", k, (int)len, p);
			goto error;
		}
		if (!(nm[k] = malloc(nlen + 1))) {
			snprintf(err, errsize, "out of memory");
			goto error;
		}
		memcpy(nm[k], p, nlen);
		nm[k][nlen] = 0;
		for (i = 0; i < k; i++)
			if (!strcmp(nm[i], nm[k])) {
				snprintf(err, errsize, "'%s' is given twice", nm[k]);
				goto error;
			}
		{
			char what[300];
			snprintf(what, sizeof(what), "the value of '%.200s'", nm[k]);
			if (parse_uint(p + nlen + 1, len - nlen - 1, &v[k], what, err, errsize) < 0)
				goto error;
		}
		if (!p[len])
			break;
		p += len + 1;
	}
	*names = nm;
	*values = v;
	*n = count;
	return 0;
error:
	cli_hints_free(nm, v, count);
	return fail_one_line(err, errsize);
}
