/* The command line's output: expressions as text and JSON, the inference
 * result, and the results of run and cache. */
#include "output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the JSON writer ------------------------------------------------------ */

/* JSON written as it is produced, in the layout of cJSON's printer
 * (formatted: tabs, "key":<tab>value, ", " between array items; or
 * compact), so that no tree of the whole result is built. */
#define JW_DEPTH 16

/* The printed forms of the expressions written so far: a model's tensors
 * share most of their dims and sizes, so each is printed once. */
typedef struct jw_text {
	const sym_expr *e; /* NULL: a free slot */
	char *text;
} jw_text;

typedef struct jw {
	FILE *out;
	int fmt, depth;
	size_t count[JW_DEPTH]; /* items written at each level */
	jw_text *memo;
	size_t memocap, memocount;
} jw;

static void jw_memo_free(jw *w)
{
	size_t i;
	for (i = 0; i < w->memocap; i++)
		free(w->memo[i].text);
	free(w->memo);
	w->memo = NULL;
	w->memocap = w->memocount = 0;
}

/* The slot of e in the memo, made when missing; NULL when memory runs out
 * (the caller prints without the memo). */
static jw_text *jw_memo_slot(jw *w, const sym_expr *e)
{
	size_t j, i;
	if ((w->memocount + 1) * 2 > w->memocap) {
		size_t cap = w->memocap ? w->memocap * 2 : 256;
		jw_text *nm = calloc(cap, sizeof(*nm));
		if (!nm)
			return NULL;
		for (i = 0; i < w->memocap; i++)
			if (w->memo[i].e) {
				for (j = sym_expr_hash(w->memo[i].e) & (cap - 1); nm[j].e;
				     j = (j + 1) & (cap - 1))
					;
				nm[j] = w->memo[i];
			}
		free(w->memo);
		w->memo = nm;
		w->memocap = cap;
	}
	for (j = sym_expr_hash(e) & (w->memocap - 1); w->memo[j].e; j = (j + 1) & (w->memocap - 1))
		if (w->memo[j].e == e)
			return &w->memo[j];
	return &w->memo[j];
}

static void jw_tabs(jw *w, int n)
{
	while (n-- > 0)
		putc('\t', w->out);
}

static void jw_string(jw *w, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	putc('"', w->out);
	for (; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", w->out);
			break;
		case '\\':
			fputs("\\\\", w->out);
			break;
		case '\b':
			fputs("\\b", w->out);
			break;
		case '\f':
			fputs("\\f", w->out);
			break;
		case '\n':
			fputs("\\n", w->out);
			break;
		case '\r':
			fputs("\\r", w->out);
			break;
		case '\t':
			fputs("\\t", w->out);
			break;
		default:
			if (*p < 32)
				fprintf(w->out, "\\u%04x", *p);
			else
				putc(*p, w->out);
		}
	}
	putc('"', w->out);
}

/* Before a value inside an array: the separator. */
static void jw_item(jw *w)
{
	if (w->count[w->depth]++)
		fputs(w->fmt ? ", " : ",", w->out);
}

/* A key inside an object; its value follows. */
static void jw_key(jw *w, const char *key)
{
	if (w->count[w->depth]++)
		fputs(w->fmt ? ",\n" : ",", w->out);
	if (w->fmt)
		jw_tabs(w, w->depth);
	jw_string(w, key);
	fputs(w->fmt ? ":\t" : ":", w->out);
}

static void jw_open(jw *w, int c)
{
	putc(c, w->out);
	if (c == '{' && w->fmt)
		putc('\n', w->out);
	if (w->depth + 1 < JW_DEPTH)
		w->depth++;
	w->count[w->depth] = 0;
}

static void jw_close(jw *w, int c)
{
	if (c == '}' && w->fmt) {
		if (w->count[w->depth])
			putc('\n', w->out);
		jw_tabs(w, w->depth - 1);
	}
	putc(c, w->out);
	w->depth--;
}

static void jw_raw(jw *w, const char *s)
{
	fputs(s, w->out);
}

/* An integer, exact: its digits within +-2^53 (what a double reader keeps),
 * else its decimal string. */
static void jw_int(jw *w, long long v)
{
	char t[24];
	snprintf(t, sizeof(t), "%lld", v);
	if (v >= -(1LL << 53) && v <= (1LL << 53))
		jw_raw(w, t);
	else
		jw_string(w, t);
}

/* An expression's printed form as a string. */
static void jw_expr_str(jw *w, sym_ctx *ctx, const sym_expr *e)
{
	jw_text *slot = jw_memo_slot(w, e);
	char *t;
	if (slot && slot->e) {
		jw_string(w, slot->text);
		return;
	}
	t = sym_expr_to_str(ctx, e);
	jw_string(w, t ? t : "?");
	if (slot && t && (slot->text = strdup(t))) {
		slot->e = e;
		w->memocount++;
	}
	sym_str_free(ctx, t);
}

/* An integer as jw_int, any other expression as its printed string, NULL
 * as null. */
static void jw_expr(jw *w, sym_ctx *ctx, const sym_expr *e)
{
	long long v;
	if (!e)
		jw_raw(w, "null");
	else if (sym_expr_get_si(e, &v) == 1)
		jw_int(w, v);
	else
		jw_expr_str(w, ctx, e);
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

static char *symbol_bound(sym_ctx *ctx, const sym_graph_result *r, size_t i)
{
	const sym_expr *b = sym_graph_symbol_bound(r, i);
	return b ? cli_expr_text(ctx, b) : NULL;
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

static void tensor_json(jw *w, sym_ctx *ctx, const sym_graph_result *r, size_t i)
{
	int rank, d;
	const sym_expr *const *dims, *bytes = sym_graph_tensor_bytes(r, i);
	const char *sf, *of = sym_graph_tensor_format(r, i, &sf);
	sym_graph_tensor(r, i, &rank, NULL, NULL);
	if (rank >= 0) {
		jw_key(w, "range");
		jw_open(w, '[');
		for (d = 0; d < rank; d++) {
			const sym_expr *lo = NULL, *hi = NULL;
			sym_graph_dim_range(r, i, d, &lo, &hi);
			jw_item(w);
			jw_open(w, '[');
			jw_item(w);
			jw_expr(w, ctx, lo);
			jw_item(w);
			jw_expr(w, ctx, hi);
			jw_close(w, ']');
		}
		jw_close(w, ']');
	}
	if (of) {
		int sr = sym_graph_tensor_storage(r, i, &dims);
		jw_key(w, "format");
		jw_string(w, of);
		jw_key(w, "storage_format");
		jw_string(w, sf);
		jw_key(w, "storage_shape");
		if (sr >= 0) {
			jw_open(w, '[');
			for (d = 0; d < sr; d++) {
				jw_item(w);
				jw_expr_str(w, ctx, dims[d]);
			}
			jw_close(w, ']');
		} else {
			jw_raw(w, "null");
		}
	}
	jw_key(w, "bytes");
	if (bytes)
		jw_expr_str(w, ctx, bytes);
	else
		jw_raw(w, "null");
}

static void total_text(sym_ctx *ctx, const sym_graph_result *r)
{
	const sym_expr *t = sym_graph_total_bytes(r);
	char *s = t ? cli_expr_text(ctx, t) : NULL;
	printf("memory:\n  total bytes: %s\n", s ? s : "unknown (a tensor has no known size)");
	free(s);
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
	jw w = {stdout, 1, 0, {0}, NULL, 0, 0};
	const sym_expr *total = sym_graph_total_bytes(r);
	size_t i;
	jw_open(&w, '{');
	jw_key(&w, "symbols");
	jw_open(&w, '[');
	for (i = 0; i < sym_graph_num_symbols(r); i++) {
		const char *src;
		const sym_expr *lo, *hi, *sym = sym_graph_symbol(r, i, &src, &lo, &hi);
		const sym_expr *b = sym_graph_symbol_bound(r, i);
		jw_item(&w);
		jw_open(&w, '{');
		jw_key(&w, "name");
		jw_string(&w, sym_expr_symbol_name(sym));
		jw_key(&w, "source");
		jw_string(&w, src);
		jw_key(&w, "min");
		jw_expr(&w, ctx, lo);
		jw_key(&w, "max");
		jw_expr(&w, ctx, hi);
		if (b) {
			jw_key(&w, "max_expr");
			jw_expr_str(&w, ctx, b);
		}
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	jw_key(&w, "tensors");
	jw_open(&w, '{');
	for (i = 0; i < sym_graph_num_tensors(r); i++) {
		int rank, d;
		const sym_expr *const *dims;
		const char *dt, *name = sym_graph_tensor(r, i, &rank, &dims, &dt);
		jw_key(&w, name);
		jw_open(&w, '{');
		jw_key(&w, "shape");
		if (rank < 0) {
			jw_raw(&w, "null");
			if (rank == -2) {
				jw_key(&w, "inferred");
				jw_raw(&w, "false");
			}
		} else {
			jw_open(&w, '[');
			for (d = 0; d < rank; d++) {
				jw_item(&w);
				jw_expr_str(&w, ctx, dims[d]);
			}
			jw_close(&w, ']');
		}
		jw_key(&w, "dtype");
		jw_string(&w, dt);
		tensor_json(&w, ctx, r, i);
		jw_close(&w, '}');
	}
	jw_close(&w, '}');
	jw_key(&w, "guards");
	jw_open(&w, '[');
	for (i = 0; i < sym_graph_num_guards(r); i++) {
		const char *kind, *node, *reason;
		const sym_expr *g = sym_graph_guard(r, i, &kind, &node, &reason);
		jw_item(&w);
		jw_open(&w, '{');
		jw_key(&w, "expr");
		jw_expr_str(&w, ctx, g);
		jw_key(&w, "kind");
		jw_string(&w, kind);
		jw_key(&w, "node");
		jw_string(&w, node);
		jw_key(&w, "reason");
		jw_string(&w, reason);
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	jw_key(&w, "merge_keys");
	jw_open(&w, '{');
	for (i = 0; i < sym_graph_num_merge_keys(r); i++) {
		size_t nn, k;
		const char *const *nodes;
		const char *key = sym_graph_merge_key(r, i, &nn, &nodes);
		jw_key(&w, key);
		jw_open(&w, '[');
		for (k = 0; k < nn; k++) {
			jw_item(&w);
			jw_string(&w, nodes[k]);
		}
		jw_close(&w, ']');
	}
	jw_close(&w, '}');
	jw_key(&w, "total_bytes");
	if (total)
		jw_expr_str(&w, ctx, total);
	else
		jw_raw(&w, "null");
	if (sym_graph_num_errors(r)) {
		jw_key(&w, "errors");
		jw_open(&w, '[');
		for (i = 0; i < sym_graph_num_errors(r); i++) {
			const char *node, *msg = sym_graph_error(r, i, &node);
			jw_item(&w);
			jw_open(&w, '{');
			jw_key(&w, "node");
			jw_string(&w, node);
			jw_key(&w, "message");
			jw_string(&w, msg);
			jw_close(&w, '}');
		}
		jw_close(&w, ']');
	}
	jw_close(&w, '}');
	putc('\n', stdout);
	jw_memo_free(&w);
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

static void run_extra_json(jw *w, const sym_model_program *mp, const int64_t *sto, const int64_t *bytes)
{
	size_t i, q = 0, n = sym_model_program_num_tensors(mp);
	jw_key(w, "storage_shapes");
	jw_open(w, '{');
	for (i = 0; i < n; i++) {
		int sr, d;
		const char *name = sym_model_program_tensor(mp, i, NULL);
		const char *sf = sym_model_program_tensor_storage(mp, i, &sr);
		if (sf) {
			jw_key(w, name);
			jw_open(w, '[');
			for (d = 0; d < sr; d++) {
				jw_item(w);
				jw_int(w, sto[q + (size_t)d]);
			}
			jw_close(w, ']');
		}
		q += (size_t)sr;
	}
	jw_close(w, '}');
	jw_key(w, "bytes");
	jw_open(w, '{');
	for (i = 0; i < n; i++) {
		jw_key(w, sym_model_program_tensor(mp, i, NULL));
		if (bytes[i] < 0)
			jw_raw(w, "null");
		else
			jw_int(w, bytes[i]);
	}
	jw_close(w, '}');
	jw_key(w, "total_bytes");
	if (bytes[n] < 0)
		jw_raw(w, "null");
	else
		jw_int(w, bytes[n]);
}

/* Prints the failed run as JSON: ok false, the failure, no tensors. */
static void print_run_failure_json(const sym_model_run *res, const char *msg)
{
	jw w = {stdout, 0, 0, {0}, NULL, 0, 0};
	jw_open(&w, '{');
	jw_key(&w, "ok");
	jw_raw(&w, "false");
	jw_key(&w, "failed_guard");
	jw_open(&w, '{');
	if (res && res->status == SYM_EGUARD) {
		jw_key(&w, "expr");
		jw_string(&w, res->message ? res->message : "");
		jw_key(&w, "index");
		jw_int(&w, (long long)res->failed);
		jw_key(&w, "kind");
		jw_string(&w, res->kind);
		jw_key(&w, "node");
		jw_string(&w, res->node);
	} else {
		jw_key(&w, "expr");
		jw_string(&w, msg);
		jw_key(&w, "kind");
		jw_string(&w, res && res->status == SYM_EINPUT ? "binding" : "error");
	}
	jw_close(&w, '}');
	jw_key(&w, "tensors");
	jw_open(&w, '{');
	jw_close(&w, '}');
	jw_close(&w, '}');
	putc('\n', stdout);
}

static void print_run_json(const sym_model_program *mp, const int64_t *out, const int64_t *sto,
                           const int64_t *bytes)
{
	jw w = {stdout, 0, 0, {0}, NULL, 0, 0};
	size_t i, q = 0;
	jw_open(&w, '{');
	jw_key(&w, "ok");
	jw_raw(&w, "true");
	jw_key(&w, "failed_guard");
	jw_raw(&w, "null");
	jw_key(&w, "tensors");
	jw_open(&w, '{');
	for (i = 0; i < sym_model_program_num_tensors(mp); i++) {
		int rank, d;
		const char *name = sym_model_program_tensor(mp, i, &rank);
		jw_key(&w, name);
		jw_open(&w, '[');
		for (d = 0; d < rank; d++) {
			jw_item(&w);
			jw_int(&w, out[q++]);
		}
		jw_close(&w, ']');
	}
	jw_close(&w, '}');
	run_extra_json(&w, mp, sto, bytes);
	jw_close(&w, '}');
	putc('\n', stdout);
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
