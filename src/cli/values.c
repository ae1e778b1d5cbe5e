/* The command line's value parsers: strict integers, dims lists and
 * NAME=INT lists, hint sets, --range/--align/--bind, the cache query. */
#include "args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sets *err to the formatted message, one line (NULL when out of memory),
 * and returns -1. */
static int fail(char **err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int fail(char **err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	*err = cli_one_line(cli_vformat(fmt, ap));
	va_end(ap);
	return -1;
}

/* Parses the len characters at s as a nonnegative decimal integer; what
 * names the item in the message. */
static int parse_uint(const char *s, size_t len, int64_t *v, const char *what, char **err)
{
	uint64_t x = 0;
	size_t i;
	if (!len)
		return fail(err, "%s is empty (expected a decimal integer)", what);
	for (i = 0; i < len; i++) {
		unsigned dig = (unsigned char)s[i] - '0';
		if (dig > 9)
			return fail(err, "%s is '%.*s', not a decimal integer (digits only)", what, (int)len,
			            s);
		if (x > ((uint64_t)INT64_MAX - dig) / 10)
			return fail(err, "%s is '%.*s', beyond int64", what, (int)len, s);
		x = x * 10 + dig;
	}
	*v = (int64_t)x;
	return 0;
}

int cli_parse_int(const char *text, int64_t *v, char **err)
{
	*err = NULL;
	return parse_uint(text, strlen(text), v, "the value", err);
}

int cli_parse_dims(const char *text, int64_t **dims, size_t *n, char **err)
{
	size_t count = 1, k = 0;
	const char *p;
	int64_t *d;
	*dims = NULL;
	*n = 0;
	*err = NULL;
	if (!*text)
		return 0;
	for (p = text; *p; p++)
		count += *p == ',';
	if (!(d = malloc(count * sizeof(*d))))
		return -1;
	for (p = text;; k++) {
		size_t len = strcspn(p, ",");
		char what[48]; /* no text of the user's */
		snprintf(what, sizeof(what), "dim %zu", k);
		if (parse_uint(p, len, &d[k], what, err) < 0) {
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

int cli_parse_hints(const char *text, char ***names, int64_t **values, size_t *n, char **err)
{
	size_t count = 1, k = 0, i;
	const char *p;
	char **nm, *what;
	int64_t *v;
	*names = NULL;
	*values = NULL;
	*n = 0;
	*err = NULL;
	if (!*text)
		return fail(err, "expected NAME=INT[,NAME=INT...], got nothing");
	for (p = text; *p; p++)
		count += *p == ',';
	nm = calloc(count, sizeof(*nm));
	v = calloc(count, sizeof(*v));
	if (!nm || !v)
		goto error; /* out of memory: *err NULL */
	for (p = text;; k++) {
		size_t len = strcspn(p, ","), nlen = strcspn(p, "=,");
		int bad;
		if (!nlen || nlen == len) {
			fail(err, "item %zu '%.*s' is not NAME=INT", k, (int)len, p);
			goto error;
		}
		if (!(nm[k] = malloc(nlen + 1)))
			goto error;
		memcpy(nm[k], p, nlen);
		nm[k][nlen] = 0;
		for (i = 0; i < k; i++)
			if (!strcmp(nm[i], nm[k])) {
				fail(err, "'%s' is given twice", nm[k]);
				goto error;
			}
		if (!(what = cli_format("the value of '%s'", nm[k])))
			goto error;
		bad = parse_uint(p + nlen + 1, len - nlen - 1, &v[k], what, err) < 0;
		free(what);
		if (bad)
			goto error;
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
	return -1;
}

/* ---- hints --------------------------------------------------------------- */

void cli_hintset_free(hintset *h)
{
	size_t i;
	for (i = 0; i < h->n; i++)
		free(h->names[i]);
	free(h->names);
	free(h->values);
	memset(h, 0, sizeof(*h));
}

/* Makes room for one more hint; returns 0 or -1 when out of memory. */
static int hintset_grow(hintset *h)
{
	char **nn = realloc(h->names, (h->n + 1) * sizeof(*nn));
	long long *nv;
	if (nn)
		h->names = nn;
	nv = nn ? realloc(h->values, (h->n + 1) * sizeof(*nv)) : NULL;
	if (!nv)
		return -1;
	h->values = nv;
	return 0;
}

int cli_hintset_add_msg(hintset *h, const char *what, const char *arg, char **msg)
{
	char **names, *err;
	int64_t *values;
	size_t n, k, j;
	*msg = NULL;
	if (cli_parse_hints(arg, &names, &values, &n, &err) < 0) {
		*msg = err ? cli_format("%s %s: %s", what, arg, err) : NULL;
		free(err);
		return CLI_FAIL;
	}
	for (k = 0; k < n; k++) {
		for (j = 0; j < h->n && strcmp(h->names[j], names[k]); j++)
			;
		if (j == h->n) {
			if (hintset_grow(h) < 0) {
				cli_hints_free(names, values, n);
				*msg = cli_format("out of memory");
				return CLI_FAIL;
			}
			h->names[h->n++] = names[k];
			names[k] = NULL;
		}
		h->values[j] = values[k];
	}
	cli_hints_free(names, values, n);
	return CLI_OK;
}

int cli_hintset_add(hintset *h, const char *what, const char *arg)
{
	char *msg;
	if (cli_hintset_add_msg(h, what, arg, &msg) == CLI_OK)
		return CLI_OK;
	cli_error("%s", msg ? msg : "out of memory");
	free(msg);
	return CLI_FAIL;
}

int cli_hintset_put(hintset *h, const char *name, long long value)
{
	size_t k;
	for (k = 0; k < h->n; k++)
		if (!strcmp(h->names[k], name))
			return 0;
	if (hintset_grow(h) < 0 || !(h->names[h->n] = strdup(name)))
		return -1;
	h->values[h->n++] = value;
	return 0;
}

/* ---- --range, --align, --bind -------------------------------------------- */

static int grow(void **p, size_t n, size_t size)
{
	void *np = realloc(*p, (n + 1) * size);
	if (!np)
		return -1;
	*p = np;
	return 0;
}

/* Whether the end text of --range name is not a strict nonnegative integer
 * (message printed); NULL is an open end. */
static int range_end_bad(const char *name, const char *which, const char *text)
{
	char *err;
	int64_t v;
	if (!text || cli_parse_int(text, &v, &err) == 0)
		return 0;
	cli_error("--range %s: the %s end: %s", name, which, err ? err : "out of memory");
	free(err);
	return 1;
}

/* NAME=LO:HI, either end empty for an open end. */
static int add_range(cli_extra *x, const char *arg)
{
	const char *eq = strchr(arg, '='), *colon = eq ? strchr(eq, ':') : NULL;
	char *name, *lo, *hi;
	if (!eq || eq == arg || !colon)
		return cli_usage("--range takes NAME=LO:HI (either end may be empty)");
	if (grow((void **)&x->range_names, x->nranges, sizeof(char *)) < 0 ||
	    grow((void **)&x->range_lo, x->nranges, sizeof(char *)) < 0 ||
	    grow((void **)&x->range_hi, x->nranges, sizeof(char *)) < 0) {
		cli_error("out of memory");
		return CLI_FAIL;
	}
	name = strndup(arg, (size_t)(eq - arg));
	lo = colon > eq + 1 ? strndup(eq + 1, (size_t)(colon - eq - 1)) : NULL;
	hi = colon[1] ? strdup(colon + 1) : NULL;
	/* a copy that failed must not read as an open end */
	if (!name || (colon > eq + 1 && !lo) || (colon[1] && !hi)) {
		free(name), free(lo), free(hi);
		cli_error("out of memory");
		return CLI_FAIL;
	}
	if (range_end_bad(name, "low", lo) || range_end_bad(name, "high", hi)) {
		free(name), free(lo), free(hi);
		return CLI_FAIL;
	}
	x->range_names[x->nranges] = name;
	x->range_lo[x->nranges] = lo;
	x->range_hi[x->nranges++] = hi;
	return CLI_OK;
}

static int add_binds(cli_extra *x, const char *arg)
{
	char **names, *err;
	int64_t *values;
	size_t n, k;
	if (cli_parse_hints(arg, &names, &values, &n, &err) < 0) {
		cli_error("--bind %s: %s", arg, err ? err : "out of memory");
		free(err);
		return CLI_FAIL;
	}
	for (k = 0; k < n; k++) {
		if (grow((void **)&x->bind_names, x->nbinds, sizeof(char *)) < 0 ||
		    grow((void **)&x->bind_values, x->nbinds, sizeof(long long)) < 0) {
			cli_hints_free(names, values, n);
			cli_error("out of memory");
			return CLI_FAIL;
		}
		x->bind_names[x->nbinds] = names[k];
		names[k] = NULL;
		x->bind_values[x->nbinds++] = values[k];
	}
	cli_hints_free(names, values, n);
	return CLI_OK;
}

static int parse_align(cli_extra *x, const char *v)
{
	char *err;
	int64_t a;
	if (cli_parse_int(v, &a, &err) < 0) {
		cli_error("--align %s: %s", v, err ? err : "out of memory");
		free(err);
		return CLI_FAIL;
	}
	if (a < 1) {
		cli_error("--align %s: the alignment must be at least 1", v);
		return CLI_FAIL;
	}
	x->align = a;
	return CLI_OK;
}

int cli_extra_parse(cli_extra *x, int argc, char **argv, int *i, int binds)
{
	const char *a = argv[*i], *v;
	static const char *const names[] = {"--range", "--align", "--bind"};
	size_t k, n;
	for (k = 0; k < 3; k++) {
		n = strlen(names[k]);
		if (!strncmp(a, names[k], n) && (a[n] == 0 || a[n] == '='))
			break;
	}
	if (k == 3 || (k == 2 && !binds))
		return -1;
	v = a[n] == '=' ? a + n + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
	if (!v) {
		char msg[64];
		snprintf(msg, sizeof(msg), "%s needs a value", names[k]);
		return cli_usage(msg);
	}
	if (k == 0)
		return add_range(x, v);
	if (k == 2)
		return add_binds(x, v);
	return parse_align(x, v);
}

void cli_extra_free(cli_extra *x)
{
	size_t i;
	for (i = 0; i < x->nranges; i++) {
		free(x->range_names[i]);
		free(x->range_lo[i]);
		free(x->range_hi[i]);
	}
	for (i = 0; i < x->nbinds; i++)
		free(x->bind_names[i]);
	free(x->range_names), free(x->range_lo), free(x->range_hi);
	free(x->lo_e), free(x->hi_e);
	free(x->bind_names), free(x->bind_values);
	memset(x, 0, sizeof(*x));
}

static const sym_expr *end_expr(sym_ctx *ctx, const char *name, const char *text)
{
	const sym_expr *e;
	if (!text)
		return NULL;
	e = sym_expr_from_str(ctx, text);
	if (!e || sym_expr_is_pred(e)) {
		cli_error("--range %s: '%s' is not an expression%s%s", name, text, e ? "" : ": ",
		          e ? "" : sym_ctx_last_message(ctx));
		return NULL;
	}
	return e;
}

/* Puts the ranges (parsed in ctx) and the alignment into opt. */
static int extra_apply(cli_extra *x, sym_ctx *ctx, sym_infer_options *opt)
{
	size_t i;
	opt->align = x->align;
	if (!x->nranges)
		return CLI_OK;
	free(x->lo_e), free(x->hi_e);
	x->lo_e = calloc(x->nranges, sizeof(*x->lo_e));
	x->hi_e = calloc(x->nranges, sizeof(*x->hi_e));
	if (!x->lo_e || !x->hi_e) {
		cli_error("out of memory");
		return CLI_FAIL;
	}
	for (i = 0; i < x->nranges; i++) {
		if ((x->range_lo[i] && !(x->lo_e[i] = end_expr(ctx, x->range_names[i], x->range_lo[i]))) ||
		    (x->range_hi[i] && !(x->hi_e[i] = end_expr(ctx, x->range_names[i], x->range_hi[i]))))
			return CLI_FAIL;
	}
	opt->nranges = x->nranges;
	opt->range_names = (const char *const *)x->range_names;
	opt->range_lo = x->lo_e;
	opt->range_hi = x->hi_e;
	return CLI_OK;
}

int cli_infer_options(sym_infer_options *opt, sym_ctx *ctx, const hintset *h, cli_extra *x, int allow_empty)
{
	memset(opt, 0, sizeof(*opt));
	opt->allow_empty = allow_empty;
	opt->nhints = h->n;
	opt->hint_names = (const char *const *)h->names;
	opt->hint_values = h->values;
	return extra_apply(x, ctx, opt);
}

/* Parses the dims of input i of m, the len characters at text, into dims. */
static int query_input_dims(const sym_model *m, size_t i, const char *q, const char *text, size_t len,
                            int64_t *dims, char **msg)
{
	char *err = NULL, *copy = strndup(text, len);
	int64_t *d = NULL;
	size_t n = 0;
	int bad = !copy || cli_parse_dims(copy, &d, &n, &err) < 0;
	const char *name = sym_model_input_name(m, i);
	int rank = sym_model_input_rank(m, i);
	free(copy);
	if (bad) {
		/* NULL (out of memory) when there is no message */
		*msg = err ? cli_format("--query '%s': input '%s': %s", q, name, err) : NULL;
		free(err);
		return CLI_FAIL;
	}
	if (rank < 0 || n != (size_t)rank) {
		*msg = cli_format("--query '%s': input '%s' needs %d dims, got %zu", q, name, rank, n);
		free(d);
		return CLI_FAIL;
	}
	if (n)
		memcpy(dims, d, n * sizeof(*d));
	free(d);
	return CLI_OK;
}

int cli_parse_query(const sym_model *m, const char *q, int64_t *dims, char **msg)
{
	size_t ni = sym_model_num_inputs(m), i, *off = calloc(ni + 1, sizeof(*off));
	char *seen = calloc(ni + 1, 1);
	const char *part = q;
	int st = CLI_FAIL;
	*msg = NULL;
	if (!off || !seen) {
		*msg = cli_format("out of memory");
		goto error;
	}
	for (i = 0; i < ni; i++)
		off[i + 1] =
		    off[i] + (size_t)(sym_model_input_rank(m, i) > 0 ? sym_model_input_rank(m, i) : 0);
	for (;;) {
		size_t len = strcspn(part, ";"), nlen = strcspn(part, "=;");
		if (nlen == len || !nlen) {
			*msg = cli_format(
			    "--query '%s': '%.*s' is not INPUT=D0,D1,... (parts are separated by ';')", q,
			    (int)len, part);
			goto error;
		}
		for (i = 0; i < ni && (strlen(sym_model_input_name(m, i)) != nlen ||
		                       strncmp(part, sym_model_input_name(m, i), nlen));
		     i++)
			;
		if (i == ni) {
			*msg = cli_format("--query '%s': the model has no input '%.*s'", q, (int)nlen, part);
			goto error;
		}
		if (seen[i]++) {
			*msg = cli_format("--query '%s': input '%s' is given twice", q,
			                  sym_model_input_name(m, i));
			goto error;
		}
		if (query_input_dims(m, i, q, part + nlen + 1, len - nlen - 1, dims + off[i], msg) != CLI_OK)
			goto error;
		if (!part[len])
			break;
		part += len + 1;
	}
	for (i = 0; i < ni; i++)
		if (!seen[i]) {
			*msg = cli_format("--query '%s': input '%s' needs %d dims", q,
			                  sym_model_input_name(m, i), sym_model_input_rank(m, i));
			goto error;
		}
	st = CLI_OK;
error:
	free(off);
	free(seen);
	return st;
}
