/* The command line's output: expressions as text and JSON, the inference
 * result, and the results of run and cache. */
#include "output.h"
#include "args.h"
#include "sink.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- printed expressions ------------------------------------------------ */

/* The printed forms of the expressions written so far: a model's tensors
 * share most of their dims, ranges and sizes, so each is printed once.
 * Open addressing on the node pointer, power-of-two capacity.
 *
 * The result of infer is made in memory first (a sink: the memo's texts
 * are referenced, not copied) and written to stdout once it is whole, so
 * that an expression that cannot be printed (longer than
 * SYM_MAX_TEXT_BYTES, or out of memory) fails the command before any
 * output, instead of a "?" (which a model reads as a
 * fresh unknown dim) or a document cut short. */
typedef struct memo_text {
	const sym_expr *e; /* NULL: a free slot */
	char *text;        /* the printer's (sym_str_free) */
} memo_text;

typedef struct expr_memo {
	sym_ctx *ctx;
	memo_text *t;
	size_t cap, n;
	int failed;        /* an expression could not be printed: the output is not written */
	char *error;       /* "WHERE: MESSAGE" of the failure (NULL: out of memory) */
	char *total_error; /* why the memory total is not printed (too long), or NULL */
	cli_sink *out;     /* where the text printer writes */
} expr_memo;

static void memo_init(expr_memo *m, sym_ctx *ctx)
{
	memset(m, 0, sizeof(*m));
	m->ctx = ctx;
}

static void memo_free(expr_memo *m)
{
	size_t i;
	for (i = 0; i < m->cap; i++)
		if (m->t[i].text)
			sym_str_free(m->ctx, m->t[i].text);
	free(m->t);
	free(m->error);
	free(m->total_error);
	memset(m, 0, sizeof(*m));
}

/* The slot of e: its text, else a free slot to fill (made when the table is
 * full); NULL when memory runs out.  Only a new text grows the table, so
 * the writing pass never allocates. */
static memo_text *memo_slot(expr_memo *m, const sym_expr *e)
{
	size_t j, i;
	if (m->cap)
		for (j = sym_expr_hash(e) & (m->cap - 1); m->t[j].e; j = (j + 1) & (m->cap - 1))
			if (m->t[j].e == e)
				return &m->t[j];
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		memo_text *nt = calloc(cap, sizeof(*nt));
		if (!nt)
			return NULL;
		for (i = 0; i < m->cap; i++)
			if (m->t[i].e) {
				for (j = sym_expr_hash(m->t[i].e) & (cap - 1); nt[j].e;
				     j = (j + 1) & (cap - 1))
					;
				nt[j] = m->t[i];
			}
		free(m->t);
		m->t = nt;
		m->cap = cap;
	}
	for (j = sym_expr_hash(e) & (m->cap - 1); m->t[j].e; j = (j + 1) & (m->cap - 1))
		;
	return &m->t[j];
}

/* The message of a text that could not be made: the context's error (the
 * text too long), or out of memory when the copy failed.  Clears the
 * context's error, which would fail every later text. */
static char *print_failure(sym_ctx *ctx, int *too_long)
{
	sym_status st = sym_ctx_last_error(ctx);
	char *msg = cli_format("%s", st != SYM_EOK ? sym_ctx_last_message(ctx) : "out of memory");
	*too_long = st == SYM_ELIMIT;
	sym_ctx_clear_error(ctx);
	return msg;
}

/* Records the first failure as "WHERE: MESSAGE" (where formatted from fmt
 * and ap). */
static void memo_fail(expr_memo *m, const char *msg, const char *fmt, va_list ap)
{
	char *where;
	if (m->failed)
		return;
	m->failed = 1;
	if (!msg || !(where = cli_vformat(fmt, ap)))
		return;
	m->error = cli_format("%s: %s", where, msg);
	free(where);
}

/* The printed form of e, from the memo or printed into it (valid until
 * memo_free); NULL when it cannot be printed, with *msg the reason
 * (malloc'd, NULL for out of memory) and *too_long set when its text is
 * longer than the printer's limit. */
static const char *memo_make(expr_memo *m, const sym_expr *e, char **msg, int *too_long)
{
	memo_text *slot;
	char *t;
	*msg = NULL, *too_long = 0;
	if (!(slot = memo_slot(m, e)))
		return NULL;
	if (slot->e)
		return slot->text;
	if (!(t = sym_expr_to_str(m->ctx, e))) {
		*msg = print_failure(m->ctx, too_long);
		return NULL;
	}
	slot->e = e;
	slot->text = t;
	m->n++;
	return t;
}

/* The printed form of e, from the memo (valid until memo_free).  When it
 * cannot be printed, records the failure, named by the printf-style fmt
 * (what is printed and where), and returns "": the result is then not
 * written out, and the command fails. */
static const char *memo_vtext(expr_memo *m, const sym_expr *e, const char *fmt, va_list ap)
{
	const char *t;
	char *msg;
	int too_long;
	if (m->failed)
		return "";
	if ((t = memo_make(m, e, &msg, &too_long)))
		return t;
	memo_fail(m, msg, fmt, ap);
	free(msg);
	return "";
}

static const char *memo_text_at(expr_memo *m, const sym_expr *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static const char *memo_text_at(expr_memo *m, const sym_expr *e, const char *fmt, ...)
{
	va_list ap;
	const char *t;
	va_start(ap, fmt);
	t = memo_vtext(m, e, fmt, ap);
	va_end(ap);
	return t;
}

/* The text of the memory total, or NULL when it is too long to print
 * (m->total_error says so).  The total is a summary of the byte sizes
 * printed above it, so its length alone does not fail the command; out of
 * memory does. */
static const char *memo_total_text(expr_memo *m, const sym_expr *total)
{
	const char *t;
	char *msg;
	int too_long;
	if (m->failed || m->total_error)
		return m->failed ? "" : NULL;
	if ((t = memo_make(m, total, &msg, &too_long)))
		return t;
	if (too_long && msg)
		return m->total_error = msg, NULL;
	m->failed = 1;
	m->error = cli_format("total bytes: %s", msg ? msg : "out of memory");
	free(msg);
	return "";
}

/* The text of r's memory total, or NULL without one: then *why is the
 * reason and *label says whether the total was not printed (too long) or
 * not computed (past a limit of the library); *why NULL when some tensor
 * has no known size. */
static const char *memo_total(expr_memo *m, const sym_graph_result *r, const char **why, const char **label)
{
	const sym_expr *t = sym_graph_total_bytes(r);
	const char *s = t ? memo_total_text(m, t) : NULL;
	*why = NULL, *label = NULL;
	if (s)
		return s;
	if (t)
		*why = m->total_error, *label = "not printed";
	else if ((*why = sym_graph_total_bytes_error(r)))
		*label = "not computed";
	return NULL;
}

/* The text printer writes pieces: memo_keep for a text kept until the
 * output is written (the memo's, the result's, a literal), memo_puts for a
 * short one to copy, memo_pad for a padded column. */
static void memo_keep(expr_memo *m, const char *t)
{
	cli_sink_keep(m->out, t);
}

static void memo_puts(expr_memo *m, const char *t)
{
	cli_sink_puts(m->out, t);
}

/* The string t, then spaces up to width bytes (printf's %-*s). */
static void memo_pad(expr_memo *m, const char *t, size_t width)
{
	static const char spaces[] = "                                ";
	size_t n = strlen(t);
	cli_sink_keep(m->out, t);
	while (n < width) {
		size_t k = width - n < sizeof(spaces) - 1 ? width - n : sizeof(spaces) - 1;
		cli_sink_put(m->out, spaces, k);
		n += k;
	}
}

/* The indent of a tensor's detail lines and the label's column. */
#define DETAIL(label) "                   " label

/* After the result is made: 0 to write it out, or -1 with the failure
 * printed on stderr (prefixed with the model's name). */
static int memo_check(expr_memo *m, const char *model)
{
	if (!m->failed)
		return 0;
	cli_error("%s: %s", model, m->error ? m->error : "out of memory");
	return -1;
}

/* ---- the JSON writer ------------------------------------------------------ */

/* JSON written as it is produced, in the layout of cJSON's printer
 * (formatted: tabs, "key":<tab>value, ", " between array items; or
 * compact), so that no tree of the whole result is built.  The document is
 * made in a sink and written out whole by jw_end. */
#define JW_DEPTH 16

typedef struct jw {
	int fmt, depth;
	size_t count[JW_DEPTH]; /* items written at each level */
	expr_memo memo;
	cli_sink s;
} jw;

/* A writer of a document for out: held until jw_end when out is NULL
 * (infer: written to stdout only when whole), else written as it is made. */
static void jw_init(jw *w, sym_ctx *ctx, int fmt, FILE *out)
{
	memset(w->count, 0, sizeof(w->count));
	memo_init(&w->memo, ctx);
	if (out)
		cli_sink_init_file(&w->s, out);
	else
		cli_sink_init(&w->s);
	w->memo.out = &w->s;
	w->fmt = fmt;
	w->depth = 0;
}

/* Frees the document unwritten, and the memo. */
static void jw_discard(jw *w)
{
	cli_sink_free(&w->s);
	memo_free(&w->memo);
}

/* Ends the document with its newline and writes it out (then frees it and
 * the memo); 0, or -1 when memory ran out while it was made (nothing is
 * written). */
static int jw_end(jw *w)
{
	int st;
	cli_sink_putc(&w->s, '\n');
	st = cli_sink_write(&w->s, stdout);
	jw_discard(w);
	return st;
}

static void jw_put(jw *w, const char *s, size_t len)
{
	cli_sink_put(&w->s, s, len);
}

static void jw_putc(jw *w, char c)
{
	cli_sink_putc(&w->s, c);
}

static void jw_raw(jw *w, const char *s)
{
	jw_put(w, s, strlen(s));
}

static void jw_tabs(jw *w, int n)
{
	static const char tabs[JW_DEPTH] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";
	if (n > 0)
		jw_put(w, tabs, (size_t)(n < JW_DEPTH ? n : JW_DEPTH - 1));
}

/* Bytes a JSON string holds as they are: not a control byte, '"' or '\\'. */
#define JP16(x) x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x
/* clang-format off */
static const unsigned char json_plain[256] = {
    JP16(0), JP16(0),
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* '"' */
    JP16(1), JP16(1),
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, /* '\\' */
    JP16(1), JP16(1), JP16(1), JP16(1), JP16(1), JP16(1), JP16(1), JP16(1), JP16(1), JP16(1)};
/* clang-format on */
#undef JP16

static void jw_string(jw *w, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	jw_putc(w, '"');
	while (*p) {
		const unsigned char *q = p;
		while (json_plain[*q])
			q++;
		jw_put(w, (const char *)p, (size_t)(q - p));
		if (!*q)
			break;
		switch (*q) {
		case '"':
			jw_raw(w, "\\\"");
			break;
		case '\\':
			jw_raw(w, "\\\\");
			break;
		case '\b':
			jw_raw(w, "\\b");
			break;
		case '\f':
			jw_raw(w, "\\f");
			break;
		case '\n':
			jw_raw(w, "\\n");
			break;
		case '\r':
			jw_raw(w, "\\r");
			break;
		case '\t':
			jw_raw(w, "\\t");
			break;
		default: {
			char u[6] = {'\\', 'u', '0', '0', hex[*q >> 4], hex[*q & 15]};
			jw_put(w, u, sizeof(u));
		}
		}
		p = q + 1;
	}
	jw_putc(w, '"');
}

/* Before a value inside an array: the separator. */
static void jw_item(jw *w)
{
	if (w->count[w->depth]++)
		jw_put(w, ", ", w->fmt ? 2 : 1);
}

/* A key inside an object; its value follows. */
static void jw_key(jw *w, const char *key)
{
	if (w->count[w->depth]++)
		jw_put(w, ",\n", w->fmt ? 2 : 1);
	if (w->fmt)
		jw_tabs(w, w->depth);
	jw_string(w, key);
	jw_put(w, ":\t", w->fmt ? 2 : 1);
}

static void jw_open(jw *w, int c)
{
	jw_putc(w, (char)c);
	if (c == '{' && w->fmt)
		jw_putc(w, '\n');
	if (w->depth + 1 < JW_DEPTH)
		w->depth++;
	w->count[w->depth] = 0;
}

static void jw_close(jw *w, int c)
{
	if (c == '}' && w->fmt) {
		if (w->count[w->depth])
			jw_putc(w, '\n');
		jw_tabs(w, w->depth - 1);
	}
	jw_putc(w, (char)c);
	w->depth--;
}

/* An integer, exact: its digits within +-2^53 (what a double reader keeps),
 * else its decimal string. */
static void jw_int(jw *w, long long v)
{
	char t[24], *p = t + sizeof(t) - 1;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	*p = 0;
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	if (v >= -(1LL << 53) && v <= (1LL << 53))
		jw_put(w, p, (size_t)(t + sizeof(t) - 1 - p));
	else
		jw_string(w, p);
}

/* The string t, which is kept until the document is written (a memo
 * text): referenced when it needs no escapes, as most do. */
static void jw_string_kept(jw *w, const char *t)
{
	const unsigned char *q = (const unsigned char *)t;
	while (json_plain[*q])
		q++;
	if (*q) {
		jw_string(w, t);
		return;
	}
	jw_putc(w, '"');
	cli_sink_keep(&w->s, t);
	jw_putc(w, '"');
}

/* An expression's printed form as a string; fmt names it (memo_vtext). */
static void jw_expr_str(jw *w, const sym_expr *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void jw_expr_str(jw *w, const sym_expr *e, const char *fmt, ...)
{
	va_list ap;
	const char *t;
	va_start(ap, fmt);
	t = memo_vtext(&w->memo, e, fmt, ap);
	va_end(ap);
	jw_string_kept(w, t);
}

/* An integer as jw_int, any other expression as its printed string, NULL
 * as null. */
static void jw_expr(jw *w, const sym_expr *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void jw_expr(jw *w, const sym_expr *e, const char *fmt, ...)
{
	va_list ap;
	long long v;
	if (!e) {
		jw_raw(w, "null");
	} else if (sym_expr_get_si(e, &v) == 1) {
		jw_int(w, v);
	} else {
		va_start(ap, fmt);
		jw_string_kept(w, memo_vtext(&w->memo, e, fmt, ap));
		va_end(ap);
	}
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

/* Prints "[d0, d1, ...]" (no newline): the dims of tensor name, what
 * names them in a failure ("dim" or "storage dim"). */
static void print_dims(expr_memo *m, int rank, const sym_expr *const *dims, const char *name,
                       const char *what)
{
	int d;
	memo_puts(m, "[");
	for (d = 0; d < rank; d++) {
		if (d)
			memo_puts(m, ", ");
		memo_keep(m, memo_text_at(m, dims[d], "tensor '%s' %s %d", name, what, d));
	}
	memo_puts(m, "]");
}

static void tensor_text(expr_memo *m, const sym_graph_result *r, size_t i, const char *name)
{
	int rank, d;
	const sym_expr *const *dims, *bytes = sym_graph_tensor_bytes(r, i);
	const char *sf, *of = sym_graph_tensor_format(r, i, &sf);
	sym_graph_tensor(r, i, &rank, NULL, NULL);
	if (rank > 0) {
		memo_puts(m, DETAIL("ranges   "));
		for (d = 0; d < rank; d++) {
			const sym_expr *lo, *hi;
			sym_graph_dim_range(r, i, d, &lo, &hi);
			if (d)
				memo_puts(m, ", ");
			if (lo && lo == hi) {
				memo_keep(m, memo_text_at(m, lo, "tensor '%s' dim %d range", name, d));
				continue;
			}
			memo_puts(m, "[");
			memo_keep(m, lo ? memo_text_at(m, lo, "tensor '%s' dim %d range minimum", name, d)
			                : "-inf");
			memo_puts(m, ", ");
			if (hi) {
				memo_keep(m,
				          memo_text_at(m, hi, "tensor '%s' dim %d range maximum", name, d));
				memo_puts(m, "]");
			} else {
				memo_puts(m, "inf)");
			}
		}
		memo_puts(m, "\n");
	}
	if (of) {
		int sr = sym_graph_tensor_storage(r, i, &dims);
		memo_puts(m, DETAIL("storage  "));
		memo_keep(m, of);
		memo_puts(m, " -> ");
		memo_keep(m, sf);
		memo_puts(m, " ");
		if (sr >= 0)
			print_dims(m, sr, dims, name, "storage dim");
		else
			memo_puts(m, "(unknown)");
		memo_puts(m, "\n");
	}
	if (bytes) {
		memo_puts(m, DETAIL("bytes    "));
		memo_keep(m, memo_text_at(m, bytes, "tensor '%s' byte size", name));
		memo_puts(m, "\n");
	}
}

static void tensor_json(jw *w, const sym_graph_result *r, size_t i, const char *name)
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
			jw_expr(w, lo, "tensor '%s' dim %d range minimum", name, d);
			jw_item(w);
			jw_expr(w, hi, "tensor '%s' dim %d range maximum", name, d);
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
				jw_expr_str(w, dims[d], "tensor '%s' storage dim %d", name, d);
			}
			jw_close(w, ']');
		} else {
			jw_raw(w, "null");
		}
	}
	jw_key(w, "bytes");
	if (bytes)
		jw_expr_str(w, bytes, "tensor '%s' byte size", name);
	else
		jw_raw(w, "null");
}

static void total_text(expr_memo *m, const sym_graph_result *r)
{
	const char *why, *label, *s = memo_total(m, r, &why, &label);
	memo_puts(m, "memory:\n  total bytes: ");
	if (s) {
		memo_keep(m, s);
	} else if (why) {
		memo_puts(m, label);
		memo_puts(m, ": ");
		memo_keep(m, why);
	} else {
		memo_puts(m, "unknown (a tensor has no known size)");
	}
	memo_puts(m, "\n");
}

/* ---- infer --------------------------------------------------------------- */

static void infer_text(expr_memo *m, const sym_graph_result *r)
{
	size_t i, n;
	memo_puts(m, "symbols:\n");
	for (i = 0; i < sym_graph_num_symbols(r); i++) {
		const char *src;
		const sym_expr *lo, *hi, *s = sym_graph_symbol(r, i, &src, &lo, &hi);
		const sym_expr *b = hi ? hi : sym_graph_symbol_bound(r, i);
		const char *name = sym_expr_symbol_name(s);
		memo_puts(m, "  ");
		memo_pad(m, name, 12);
		memo_puts(m, " ");
		memo_pad(m, src, 24);
		memo_puts(m, " [");
		memo_keep(m, lo ? memo_text_at(m, lo, "symbol '%s' minimum", name) : "-inf");
		memo_puts(m, ", ");
		if (b) {
			memo_keep(m, memo_text_at(m, b, "symbol '%s' maximum", name));
			memo_puts(m, "]\n");
		} else {
			memo_puts(m, "inf)\n");
		}
	}
	memo_puts(m, "tensors:\n");
	for (i = 0; i < sym_graph_num_tensors(r); i++) {
		int rank;
		const sym_expr *const *dims;
		const char *dt, *name = sym_graph_tensor(r, i, &rank, &dims, &dt);
		memo_puts(m, "  ");
		memo_pad(m, name, 16);
		memo_puts(m, " ");
		memo_pad(m, dt, 8);
		memo_puts(m, " ");
		if (rank == -2) {
			memo_puts(m, "(not inferred)\n");
			continue;
		}
		if (rank < 0) {
			memo_puts(m, "(unknown rank)\n");
			continue;
		}
		print_dims(m, rank, dims, name, "dim");
		memo_puts(m, "\n");
		tensor_text(m, r, i, name);
	}
	n = sym_graph_num_guards(r);
	memo_puts(m, n ? "guards:\n" : "guards: (none)\n");
	for (i = 0; i < n; i++) {
		const char *kind, *node, *reason;
		const sym_expr *g = sym_graph_guard(r, i, &kind, &node, &reason);
		cli_sink_printf(m->out, "  %zu. %-6s ", i + 1, kind);
		memo_keep(m, memo_text_at(m, g, "guard %zu (node '%s')", i + 1, node));
		memo_puts(m, "    (node ");
		memo_keep(m, node);
		memo_puts(m, ": ");
		memo_keep(m, reason);
		memo_puts(m, ")\n");
	}
	memo_puts(m, "merge keys:\n");
	for (i = 0; i < sym_graph_num_merge_keys(r); i++) {
		size_t nn, k;
		const char *const *nodes;
		const char *key = sym_graph_merge_key(r, i, &nn, &nodes);
		memo_puts(m, "  ");
		memo_keep(m, key);
		memo_puts(m, ":");
		for (k = 0; k < nn; k++) {
			memo_puts(m, k ? ", " : " ");
			memo_keep(m, nodes[k]);
		}
		memo_puts(m, "\n");
	}
	total_text(m, r);
}

int cli_print_infer_text(sym_ctx *ctx, const sym_graph_result *r, const char *model)
{
	expr_memo m;
	cli_sink out;
	int st;
	cli_sink_init(&out);
	memo_init(&m, ctx);
	m.out = &out;
	infer_text(&m, r);
	st = memo_check(&m, model);
	if (st == 0 && (st = cli_sink_write(&out, stdout)) < 0)
		cli_error("%s: out of memory", model);
	cli_sink_free(&out);
	memo_free(&m);
	return st;
}

static void infer_json(jw *w, const sym_graph_result *r)
{
	const char *total_text, *why, *label;
	size_t i;
	jw_open(w, '{');
	jw_key(w, "symbols");
	jw_open(w, '[');
	for (i = 0; i < sym_graph_num_symbols(r); i++) {
		const char *src;
		const sym_expr *lo, *hi, *sym = sym_graph_symbol(r, i, &src, &lo, &hi);
		const sym_expr *b = sym_graph_symbol_bound(r, i);
		const char *name = sym_expr_symbol_name(sym);
		jw_item(w);
		jw_open(w, '{');
		jw_key(w, "name");
		jw_string(w, name);
		jw_key(w, "source");
		jw_string(w, src);
		jw_key(w, "min");
		jw_expr(w, lo, "symbol '%s' minimum", name);
		jw_key(w, "max");
		jw_expr(w, hi, "symbol '%s' maximum", name);
		if (b) {
			jw_key(w, "max_expr");
			jw_expr_str(w, b, "symbol '%s' maximum", name);
		}
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_key(w, "tensors");
	jw_open(w, '{');
	for (i = 0; i < sym_graph_num_tensors(r); i++) {
		int rank, d;
		const sym_expr *const *dims;
		const char *dt, *name = sym_graph_tensor(r, i, &rank, &dims, &dt);
		jw_key(w, name);
		jw_open(w, '{');
		jw_key(w, "shape");
		if (rank < 0) {
			jw_raw(w, "null");
			if (rank == -2) {
				jw_key(w, "inferred");
				jw_raw(w, "false");
			}
		} else {
			jw_open(w, '[');
			for (d = 0; d < rank; d++) {
				jw_item(w);
				jw_expr_str(w, dims[d], "tensor '%s' dim %d", name, d);
			}
			jw_close(w, ']');
		}
		jw_key(w, "dtype");
		jw_string(w, dt);
		tensor_json(w, r, i, name);
		jw_close(w, '}');
	}
	jw_close(w, '}');
	jw_key(w, "guards");
	jw_open(w, '[');
	for (i = 0; i < sym_graph_num_guards(r); i++) {
		const char *kind, *node, *reason;
		const sym_expr *g = sym_graph_guard(r, i, &kind, &node, &reason);
		jw_item(w);
		jw_open(w, '{');
		jw_key(w, "expr");
		jw_expr_str(w, g, "guard %zu (node '%s')", i + 1, node);
		jw_key(w, "kind");
		jw_string(w, kind);
		jw_key(w, "node");
		jw_string(w, node);
		jw_key(w, "reason");
		jw_string(w, reason);
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_key(w, "merge_keys");
	jw_open(w, '{');
	for (i = 0; i < sym_graph_num_merge_keys(r); i++) {
		size_t nn, k;
		const char *const *nodes;
		const char *key = sym_graph_merge_key(r, i, &nn, &nodes);
		jw_key(w, key);
		jw_open(w, '[');
		for (k = 0; k < nn; k++) {
			jw_item(w);
			jw_string(w, nodes[k]);
		}
		jw_close(w, ']');
	}
	jw_close(w, '}');
	jw_key(w, "total_bytes");
	if ((total_text = memo_total(&w->memo, r, &why, &label))) {
		jw_string(w, total_text);
	} else {
		jw_raw(w, "null");
		if (why) {
			jw_key(w, "total_bytes_error");
			jw_string(w, why);
		}
	}
	if (sym_graph_num_errors(r)) {
		jw_key(w, "errors");
		jw_open(w, '[');
		for (i = 0; i < sym_graph_num_errors(r); i++) {
			const char *node, *msg = sym_graph_error(r, i, &node);
			jw_item(w);
			jw_open(w, '{');
			jw_key(w, "node");
			jw_string(w, node);
			jw_key(w, "message");
			jw_string(w, msg);
			jw_close(w, '}');
		}
		jw_close(w, ']');
	}
	jw_close(w, '}');
}

int cli_print_infer_json(sym_ctx *ctx, const sym_graph_result *r, const char *model)
{
	jw w;
	jw_init(&w, ctx, 1, NULL);
	infer_json(&w, r);
	if (memo_check(&w.memo, model) < 0) {
		jw_discard(&w);
		return -1;
	}
	if (jw_end(&w) < 0) {
		cli_error("%s: out of memory", model);
		return -1;
	}
	return 0;
}

/* ---- run ----------------------------------------------------------------- */

/* The one-line message of a failed run (of the checks, the guards or a
 * segment). */
/* The message of a failed run, whole (malloc'd; NULL when out of memory). */
static char *run_failure_message(const sym_model_run *res)
{
	const char *m = res->message ? res->message : "the run failed";
	if (res->status == SYM_EGUARD)
		return cli_format("guard %zu failed: %s (%s, node %s)", res->failed + 1, res->message,
		                  res->kind, res->node);
	if (res->segment == SYM_SEGMENT_STORAGE)
		return cli_format("storage shapes: %s", m);
	if (res->segment == SYM_SEGMENT_BYTES)
		return cli_format("byte sizes: %s", m);
	return cli_format("%s", m);
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
	jw w;
	jw_init(&w, NULL, 0, stdout);
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
	jw_end(&w);
}

static void print_run_json(const sym_model_program *mp, const int64_t *out, const int64_t *sto,
                           const int64_t *bytes)
{
	jw w;
	size_t i, q = 0;
	jw_init(&w, NULL, 0, stdout);
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
	jw_end(&w);
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
	char *msg;
	if (res->run.status == SYM_EOK) {
		if (json)
			print_run_json(res->mp, res->out, res->sto, res->bytes);
		else
			print_run_text(res->mp, res->out, res->sto, res->bytes);
		return;
	}
	msg = run_failure_message(&res->run);
	if (json)
		print_run_failure_json(res->run.segment > SYM_SEGMENT_SHAPES ? NULL : &res->run,
		                       msg ? msg : "out of memory");
	cli_error("%s", msg ? msg : "out of memory");
	free(msg);
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
