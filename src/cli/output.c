/* The command line's output: expressions as text and JSON, the inference
 * result, and the results of run and cache. */
#include "output.h"

#include <stdlib.h>
#include <string.h>

char *cli_expr_text(sym_ctx *ctx, const sym_expr *e)
{
	char *t = sym_expr_to_str(ctx, e), *r;
	if (!t)
		return NULL;
	r = strdup(t);
	sym_str_free(ctx, t);
	return r;
}

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

static char *symbol_bound(sym_ctx *ctx, const sym_graph_result *r, size_t i)
{
	const sym_expr *b = sym_graph_symbol_bound(r, i);
	return b ? cli_expr_text(ctx, b) : NULL;
}

static void symbol_json(sym_ctx *ctx, const sym_graph_result *r, size_t i, cJSON *o)
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

static void tensor_text(sym_ctx *ctx, const sym_graph_result *r, size_t i)
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

static void tensor_json(sym_ctx *ctx, const sym_graph_result *r, size_t i, cJSON *o)
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

static void total_text(sym_ctx *ctx, const sym_graph_result *r)
{
	const sym_expr *t = sym_graph_total_bytes(r);
	char *s = t ? cli_expr_text(ctx, t) : NULL;
	printf("memory:\n  total bytes: %s\n", s ? s : "unknown (a tensor has no known size)");
	free(s);
}

static void total_json(sym_ctx *ctx, const sym_graph_result *r, cJSON *root)
{
	const sym_expr *t = sym_graph_total_bytes(r);
	cJSON_AddItemToObject(root, "total_bytes", t ? expr_str_json(ctx, t) : cJSON_CreateNull());
}

/* ---- infer --------------------------------------------------------------- */

void cli_print_infer_text(sym_ctx *ctx, const sym_graph_result *r)
{
	size_t i, n;
	printf("symbols:\n");
	for (i = 0; i < sym_graph_num_symbols(r); i++) {
		const char *src;
		const sym_expr *lo, *hi, *s = sym_graph_symbol(r, i, &src, &lo, &hi);
		char *l = lo ? cli_expr_text(ctx, lo) : NULL,
		     *h = hi ? cli_expr_text(ctx, hi) : symbol_bound(ctx, r, i);
		printf("  %-12s %-24s [%s, %s%s\n", sym_expr_symbol_name(s), src, l ? l : "-inf",
		       h ? h : "inf", h ? "]" : ")");
		free(l), free(h);
	}
	printf("tensors:\n");
	for (i = 0; i < sym_graph_num_tensors(r); i++) {
		int rank;
		const sym_expr *const *dims;
		const char *dt, *name = sym_graph_tensor(r, i, &rank, &dims, &dt);
		printf("  %-16s %-8s ", name, dt);
		if (rank == -2) {
			printf("(not inferred)\n");
			continue;
		}
		if (rank < 0) {
			printf("(unknown rank)\n");
			continue;
		}
		cli_print_dims(ctx, rank, dims);
		printf("\n");
		tensor_text(ctx, r, i);
	}
	n = sym_graph_num_guards(r);
	printf("guards:%s\n", n ? "" : " (none)");
	for (i = 0; i < n; i++) {
		const char *kind, *node, *reason;
		char *t = cli_expr_text(ctx, sym_graph_guard(r, i, &kind, &node, &reason));
		printf("  %zu. %-6s %s    (node %s: %s)\n", i + 1, kind, t ? t : "?", node, reason);
		free(t);
	}
	printf("merge keys:\n");
	for (i = 0; i < sym_graph_num_merge_keys(r); i++) {
		size_t nn, k;
		const char *const *nodes;
		const char *key = sym_graph_merge_key(r, i, &nn, &nodes);
		printf("  %s:", key);
		for (k = 0; k < nn; k++)
			printf("%s %s", k ? "," : "", nodes[k]);
		printf("\n");
	}
	total_text(ctx, r);
}

void cli_print_infer_json(sym_ctx *ctx, const sym_graph_result *r)
{
	cJSON *root = cJSON_CreateObject(), *arr, *obj;
	size_t i;
	char *s;
	arr = cJSON_AddArrayToObject(root, "symbols");
	for (i = 0; i < sym_graph_num_symbols(r); i++) {
		const char *src;
		const sym_expr *lo, *hi, *sym = sym_graph_symbol(r, i, &src, &lo, &hi);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", sym_expr_symbol_name(sym));
		cJSON_AddStringToObject(o, "source", src);
		cJSON_AddItemToObject(o, "min", cli_expr_json(ctx, lo));
		cJSON_AddItemToObject(o, "max", cli_expr_json(ctx, hi));
		symbol_json(ctx, r, i, o);
		cJSON_AddItemToArray(arr, o);
	}
	obj = cJSON_AddObjectToObject(root, "tensors");
	for (i = 0; i < sym_graph_num_tensors(r); i++) {
		int rank, d;
		const sym_expr *const *dims;
		const char *dt, *name = sym_graph_tensor(r, i, &rank, &dims, &dt);
		cJSON *o = cJSON_CreateObject(), *sh;
		if (rank == -2) {
			cJSON_AddNullToObject(o, "shape");
			cJSON_AddBoolToObject(o, "inferred", 0);
		} else if (rank < 0) {
			cJSON_AddNullToObject(o, "shape");
		} else {
			sh = cJSON_AddArrayToObject(o, "shape");
			for (d = 0; d < rank; d++) {
				char *t = cli_expr_text(ctx, dims[d]);
				cJSON_AddItemToArray(sh, cJSON_CreateString(t ? t : "?"));
				free(t);
			}
		}
		cJSON_AddStringToObject(o, "dtype", dt);
		tensor_json(ctx, r, i, o);
		cJSON_AddItemToObject(obj, name, o);
	}
	arr = cJSON_AddArrayToObject(root, "guards");
	for (i = 0; i < sym_graph_num_guards(r); i++) {
		const char *kind, *node, *reason;
		char *t = cli_expr_text(ctx, sym_graph_guard(r, i, &kind, &node, &reason));
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "expr", t ? t : "?");
		cJSON_AddStringToObject(o, "kind", kind);
		cJSON_AddStringToObject(o, "node", node);
		cJSON_AddStringToObject(o, "reason", reason);
		cJSON_AddItemToArray(arr, o);
		free(t);
	}
	obj = cJSON_AddObjectToObject(root, "merge_keys");
	for (i = 0; i < sym_graph_num_merge_keys(r); i++) {
		size_t nn, k;
		const char *const *nodes;
		const char *key = sym_graph_merge_key(r, i, &nn, &nodes);
		cJSON *a = cJSON_CreateArray();
		for (k = 0; k < nn; k++)
			cJSON_AddItemToArray(a, cJSON_CreateString(nodes[k]));
		cJSON_AddItemToObject(obj, key, a);
	}
	total_json(ctx, r, root);
	if (sym_graph_num_errors(r)) {
		arr = cJSON_AddArrayToObject(root, "errors");
		for (i = 0; i < sym_graph_num_errors(r); i++) {
			const char *node, *msg = sym_graph_error(r, i, &node);
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "node", node);
			cJSON_AddStringToObject(o, "message", msg);
			cJSON_AddItemToArray(arr, o);
		}
	}
	s = cJSON_Print(root);
	if (s)
		puts(s);
	free(s);
	cJSON_Delete(root);
}

/* ---- run ----------------------------------------------------------------- */

/* The one-line message of a failed run (of the checks, the guards or a
 * segment). */
static void run_failure_message(const sym_model_run *res, char *msg, size_t msgsize)
{
	const char *m = res->message ? res->message : "the run failed";
	if (res->status == SYM_EGUARD)
		snprintf(msg, msgsize, "guard %zu failed: %s (%s, node %s)", res->failed + 1, res->message,
		         res->kind, res->node);
	else if (res->segment == SYM_SEGMENT_STORAGE)
		snprintf(msg, msgsize, "storage shapes: %s", m);
	else if (res->segment == SYM_SEGMENT_BYTES)
		snprintf(msg, msgsize, "byte sizes: %s", m);
	else
		snprintf(msg, msgsize, "%s", m);
}

static void run_extra_text(const sym_model_program *mp, const int64_t *sto, const int64_t *bytes)
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

static void run_extra_json(const sym_model_program *mp, const int64_t *sto, const int64_t *bytes, cJSON *root)
{
	size_t i, q = 0, n = sym_model_program_num_tensors(mp);
	cJSON *so = cJSON_AddObjectToObject(root, "storage_shapes"),
	      *bo = cJSON_AddObjectToObject(root, "bytes");
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
	cJSON_AddItemToObject(root, "total_bytes",
	                      bytes[n] < 0 ? cJSON_CreateNull() : cli_int_json(bytes[n]));
}

/* Prints the failed run as JSON: ok false, the failure, no tensors. */
static void print_run_failure_json(const sym_model_run *res, const char *msg)
{
	cJSON *root = cJSON_CreateObject(), *g = cJSON_CreateObject();
	char *s;
	cJSON_AddBoolToObject(root, "ok", 0);
	if (res && res->status == SYM_EGUARD) {
		cJSON_AddStringToObject(g, "expr", res->message ? res->message : "");
		cJSON_AddItemToObject(g, "index", cli_int_json((long long)res->failed));
		cJSON_AddStringToObject(g, "kind", res->kind);
		cJSON_AddStringToObject(g, "node", res->node);
	} else {
		cJSON_AddStringToObject(g, "expr", msg);
		cJSON_AddStringToObject(g, "kind", res && res->status == SYM_EINPUT ? "binding" : "error");
	}
	cJSON_AddItemToObject(root, "failed_guard", g);
	cJSON_AddObjectToObject(root, "tensors");
	s = cJSON_PrintUnformatted(root);
	if (s)
		puts(s);
	free(s);
	cJSON_Delete(root);
}

static void print_run_json(const sym_model_program *mp, const int64_t *out, const int64_t *sto,
                           const int64_t *bytes)
{
	cJSON *root = cJSON_CreateObject(), *t;
	size_t i, q = 0;
	char *s;
	cJSON_AddBoolToObject(root, "ok", 1);
	cJSON_AddNullToObject(root, "failed_guard");
	t = cJSON_AddObjectToObject(root, "tensors");
	for (i = 0; i < sym_model_program_num_tensors(mp); i++) {
		int rank, d;
		const char *name = sym_model_program_tensor(mp, i, &rank);
		cJSON *a = cJSON_CreateArray();
		for (d = 0; d < rank; d++)
			cJSON_AddItemToArray(a, cli_int_json(out[q++]));
		cJSON_AddItemToObject(t, name, a);
	}
	run_extra_json(mp, sto, bytes, root);
	s = cJSON_PrintUnformatted(root);
	if (s)
		puts(s);
	free(s);
	cJSON_Delete(root);
}

static void print_run_text(const sym_model_program *mp, const int64_t *out, const int64_t *sto,
                           const int64_t *bytes)
{
	size_t i, q = 0;
	printf("ok\n");
	for (i = 0; i < sym_model_program_num_tensors(mp); i++) {
		int rank, d;
		const char *name = sym_model_program_tensor(mp, i, &rank);
		printf("  %-16s [", name);
		for (d = 0; d < rank; d++)
			printf("%s%lld", d ? ", " : "", (long long)out[q++]);
		printf("]\n");
	}
	run_extra_text(mp, sto, bytes);
}

void cli_print_run(const cli_run_result *res, int json)
{
	char msg[512];
	if (res->run.status == SYM_EOK) {
		if (json)
			print_run_json(res->mp, res->out, res->sto, res->bytes);
		else
			print_run_text(res->mp, res->out, res->sto, res->bytes);
		return;
	}
	run_failure_message(&res->run, msg, sizeof(msg));
	if (json)
		print_run_failure_json(res->run.segment > SYM_SEGMENT_SHAPES ? NULL : &res->run, msg);
	cli_error("%s", msg);
}

/* ---- cache --------------------------------------------------------------- */

void cli_cache_result_free(cli_cache_result *res)
{
	size_t i;
	for (i = 0; i < res->n; i++)
		free(res->v[i].text);
	free(res->v);
	free(res->error);
	memset(res, 0, sizeof(*res));
}

static void print_cache_event(const cli_cache_event *e)
{
	if (!e->is_query) {
		printf("variant %ld compiled: %s\n", e->id, e->text);
		return;
	}
	printf("query %s: ", e->query);
	if (e->answer == SYM_CACHE_HIT)
		printf("reuse variant %ld (%s)\n", e->id, e->text);
	else if (e->answer == SYM_CACHE_INVALID)
		printf("invalid input: %s\n", e->text);
	else if (e->compiled > 0)
		printf("recompile: compiled variant %ld (%s)\n", e->id, e->text);
	else if (!e->compiled)
		printf("recompile\n");
}

void cli_print_cache(const cli_cache_result *res)
{
	size_t i;
	for (i = 0; i < res->n; i++)
		print_cache_event(&res->v[i]);
	if (res->status != CLI_OK && (res->error || res->oom))
		cli_error("%s", res->error ? res->error : "out of memory");
}
