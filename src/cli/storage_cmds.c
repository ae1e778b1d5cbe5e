/* The model commands' storage shapes, byte sizes, shape ranges and
 * data-dependent dims: --range, --align, --bind and their output. */
#include "storage_cli.h"
#include "args.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
	char err[256];
	int64_t v;
	if (!text || cli_parse_int(text, &v, err, sizeof(err)) == 0)
		return 0;
	cli_error("--range %s: the %s end: %s", name, which, err);
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
	char **names, err[256];
	int64_t *values;
	size_t n, k;
	if (cli_parse_hints(arg, &names, &values, &n, err, sizeof(err)) < 0) {
		cli_error("--bind %s: %s", arg, err);
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
	{
		char err[256];
		int64_t a;
		if (cli_parse_int(v, &a, err, sizeof(err)) < 0) {
			cli_error("--align %s: %s", v, err);
			return CLI_FAIL;
		}
		if (a < 1) {
			cli_error("--align %s: the alignment must be at least 1", v);
			return CLI_FAIL;
		}
		x->align = a;
	}
	return CLI_OK;
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

int cli_extra_apply(cli_extra *x, sym_ctx *ctx, sym_infer_options *opt)
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

/* ---- infer output -------------------------------------------------------- */

cJSON *cli_int_json(long long v)
{
	char t[24];
	snprintf(t, sizeof(t), "%lld", v);
	/* raw digits: cJSON prints a double with 15 significant digits */
	if (v >= -(1LL << 53) && v <= (1LL << 53))
		return cJSON_CreateRaw(t);
	return cJSON_CreateString(t);
}

cJSON *cli_expr_json(sym_ctx *ctx, const sym_expr *e)
{
	long long v;
	char *t;
	cJSON *j;
	if (!e)
		return cJSON_CreateNull();
	if (sym_expr_get_si(e, &v) == 1)
		return cli_int_json(v);
	t = cli_expr_text(ctx, e);
	j = cJSON_CreateString(t ? t : "?");
	free(t);
	return j;
}

static cJSON *expr_str_json(sym_ctx *ctx, const sym_expr *e)
{
	char *t = cli_expr_text(ctx, e);
	cJSON *j = cJSON_CreateString(t ? t : "?");
	free(t);
	return j;
}

char *cli_extra_symbol_bound(sym_ctx *ctx, const sym_graph_result *r, size_t i)
{
	const sym_expr *b = sym_graph_symbol_bound(r, i);
	return b ? cli_expr_text(ctx, b) : NULL;
}

void cli_extra_symbol_json(sym_ctx *ctx, const sym_graph_result *r, size_t i, cJSON *o)
{
	const sym_expr *b = sym_graph_symbol_bound(r, i);
	if (b)
		cJSON_AddItemToObject(o, "max_expr", expr_str_json(ctx, b));
}

void cli_print_dims(sym_ctx *ctx, int rank, const sym_expr *const *dims)
{
	int d;
	printf("[");
	for (d = 0; d < rank; d++) {
		char *t = cli_expr_text(ctx, dims[d]);
		printf("%s%s", d ? ", " : "", t ? t : "?");
		free(t);
	}
	printf("]");
}

void cli_extra_tensor_text(sym_ctx *ctx, const sym_graph_result *r, size_t i)
{
	int rank, d;
	const sym_expr *const *dims, *bytes = sym_graph_tensor_bytes(r, i);
	const char *sf, *of = sym_graph_tensor_format(r, i, &sf);
	sym_graph_tensor(r, i, &rank, NULL, NULL);
	if (rank > 0) {
		printf("%19s%-9s", "", "ranges");
		for (d = 0; d < rank; d++) {
			const sym_expr *lo, *hi;
			char *l, *h;
			sym_graph_dim_range(r, i, d, &lo, &hi);
			l = lo ? cli_expr_text(ctx, lo) : NULL, h = hi ? cli_expr_text(ctx, hi) : NULL;
			if (lo && lo == hi)
				printf("%s%s", d ? ", " : "", l ? l : "?");
			else
				printf("%s[%s, %s%s", d ? ", " : "", l ? l : "-inf", h ? h : "inf",
				       h ? "]" : ")");
			free(l), free(h);
		}
		printf("\n");
	}
	if (of) {
		int sr = sym_graph_tensor_storage(r, i, &dims);
		printf("%19s%-9s%s -> %s ", "", "storage", of, sf);
		if (sr >= 0)
			cli_print_dims(ctx, sr, dims);
		else
			printf("(unknown)");
		printf("\n");
	}
	if (bytes) {
		char *t = cli_expr_text(ctx, bytes);
		printf("%19s%-9s%s\n", "", "bytes", t ? t : "?");
		free(t);
	}
}

void cli_extra_tensor_json(sym_ctx *ctx, const sym_graph_result *r, size_t i, cJSON *o)
{
	int rank, d;
	const sym_expr *const *dims, *bytes = sym_graph_tensor_bytes(r, i);
	const char *sf, *of = sym_graph_tensor_format(r, i, &sf);
	sym_graph_tensor(r, i, &rank, NULL, NULL);
	if (rank >= 0) {
		cJSON *a = cJSON_AddArrayToObject(o, "range");
		for (d = 0; d < rank; d++) {
			const sym_expr *lo = NULL, *hi = NULL;
			cJSON *p = cJSON_CreateArray();
			sym_graph_dim_range(r, i, d, &lo, &hi);
			cJSON_AddItemToArray(p, cli_expr_json(ctx, lo));
			cJSON_AddItemToArray(p, cli_expr_json(ctx, hi));
			cJSON_AddItemToArray(a, p);
		}
	}
	if (of) {
		int sr = sym_graph_tensor_storage(r, i, &dims);
		cJSON_AddStringToObject(o, "format", of);
		cJSON_AddStringToObject(o, "storage_format", sf);
		if (sr >= 0) {
			cJSON *a = cJSON_AddArrayToObject(o, "storage_shape");
			for (d = 0; d < sr; d++)
				cJSON_AddItemToArray(a, expr_str_json(ctx, dims[d]));
		} else {
			cJSON_AddNullToObject(o, "storage_shape");
		}
	}
	cJSON_AddItemToObject(o, "bytes", bytes ? expr_str_json(ctx, bytes) : cJSON_CreateNull());
}

void cli_extra_total_text(sym_ctx *ctx, const sym_graph_result *r)
{
	const sym_expr *t = sym_graph_total_bytes(r);
	char *s = t ? cli_expr_text(ctx, t) : NULL;
	printf("memory:\n  total bytes: %s\n", s ? s : "unknown (a tensor has no known size)");
	free(s);
}

void cli_extra_total_json(sym_ctx *ctx, const sym_graph_result *r, cJSON *root)
{
	const sym_expr *t = sym_graph_total_bytes(r);
	cJSON_AddItemToObject(root, "total_bytes", t ? expr_str_json(ctx, t) : cJSON_CreateNull());
}

/* ---- run ----------------------------------------------------------------- */

int cli_extra_fill_binds(const cli_extra *x, const sym_model_program *mp, int64_t *out)
{
	size_t i, k, n = sym_model_program_num_bound(mp);
	for (k = 0; k < x->nbinds; k++) {
		for (i = 0; i < n && strcmp(sym_model_program_bound(mp, i, NULL), x->bind_names[k]); i++)
			;
		if (i == n) {
			cli_error("--bind %s: the model has no data-dependent symbol '%s'%s",
			          x->bind_names[k], x->bind_names[k], n ? "" : " (it has none)");
			return CLI_FAIL;
		}
	}
	for (i = 0; i < n; i++) {
		const char *src, *name = sym_model_program_bound(mp, i, &src);
		for (k = x->nbinds; k-- > 0 && strcmp(x->bind_names[k], name);)
			;
		if (k == (size_t)-1) {
			cli_error("missing --bind %s=INT: %s is %s, known once that kernel has run", name,
			          name, src);
			return CLI_FAIL;
		}
		out[i] = x->bind_values[k];
	}
	return CLI_OK;
}

int cli_extra_alloc_parts(const sym_model_program *mp, int64_t **sto, int64_t **bytes)
{
	*sto = calloc(sym_model_program_num_storage_dims(mp) + 1, sizeof(**sto));
	*bytes = calloc(sym_model_program_num_tensors(mp) + 2, sizeof(**bytes));
	return *sto && *bytes ? CLI_OK : CLI_FAIL;
}

void cli_run_failure_message(const sym_model_run *res, char *msg, size_t msgsize)
{
	const char *m = res->message ? res->message : "the run failed";
	if (res->status == SYM_EGUARD)
		snprintf(msg, msgsize, "guard %zu failed: %s (%s, node %s)", res->failed + 1, res->message, res->kind,
			 res->node);
	else if (res->segment == SYM_SEGMENT_STORAGE)
		snprintf(msg, msgsize, "storage shapes: %s", m);
	else if (res->segment == SYM_SEGMENT_BYTES)
		snprintf(msg, msgsize, "byte sizes: %s", m);
	else
		snprintf(msg, msgsize, "%s", m);
}

void cli_extra_run_text(const sym_model_program *mp, const int64_t *sto, const int64_t *bytes)
{
	size_t i, q = 0, n = sym_model_program_num_tensors(mp);
	int header = 0;
	for (i = 0; i < n; i++) {
		int sr, d;
		const char *name = sym_model_program_tensor(mp, i, NULL);
		const char *sf = sym_model_program_tensor_storage(mp, i, &sr);
		if (sf) {
			if (!header++)
				printf("storage shapes:\n");
			printf("  %-16s %-10s [", name, sf);
			for (d = 0; d < sr; d++)
				printf("%s%lld", d ? ", " : "", (long long)sto[q + (size_t)d]);
			printf("]\n");
		}
		q += (size_t)sr;
	}
	printf("bytes:\n");
	for (i = 0; i < n; i++) {
		if (bytes[i] < 0)
			printf("  %-16s unknown\n", sym_model_program_tensor(mp, i, NULL));
		else
			printf("  %-16s %lld\n", sym_model_program_tensor(mp, i, NULL), (long long)bytes[i]);
	}
	if (bytes[n] < 0)
		printf("total bytes: unknown\n");
	else
		printf("total bytes: %lld\n", (long long)bytes[n]);
}

void cli_extra_run_json(const sym_model_program *mp, const int64_t *sto, const int64_t *bytes, cJSON *root)
{
	size_t i, q = 0, n = sym_model_program_num_tensors(mp);
	cJSON *so = cJSON_AddObjectToObject(root, "storage_shapes"), *bo = cJSON_AddObjectToObject(root, "bytes");
	for (i = 0; i < n; i++) {
		int sr, d;
		const char *name = sym_model_program_tensor(mp, i, NULL);
		const char *sf = sym_model_program_tensor_storage(mp, i, &sr);
		if (sf) {
			cJSON *a = cJSON_CreateArray();
			for (d = 0; d < sr; d++)
				cJSON_AddItemToArray(a, cli_int_json(sto[q + (size_t)d]));
			cJSON_AddItemToObject(so, name, a);
		}
		q += (size_t)sr;
		cJSON_AddItemToObject(bo, name, bytes[i] < 0 ? cJSON_CreateNull() : cli_int_json(bytes[i]));
	}
	cJSON_AddItemToObject(root, "total_bytes", bytes[n] < 0 ? cJSON_CreateNull() : cli_int_json(bytes[n]));
}
