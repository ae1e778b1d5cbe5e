/* The expression commands: simplify, eval, prove, equal (one job: they share
 * their options, their context and facts, and the batch mode). */
#include "pool.h"
#include "args.h"
#include "output.h"

#include <stdlib.h>
#include <string.h>

/* Creates the context and the facts of the options. */
static int setup(const cli_expr_opts *o, sym_ctx **ctx, sym_facts **facts)
{
	int i;
	*ctx = cli_ctx_new();
	*facts = *ctx ? sym_facts_new(*ctx) : NULL;
	if (!*facts) {
		cli_error("out of memory");
		return CLI_FAIL;
	}
	if (o->dims)
		sym_facts_set_default_min(*facts, 1);
	for (i = 0; i < o->nassume; i++) {
		const sym_expr *p = sym_expr_from_str(*ctx, o->assume[i]);
		if (p && !sym_expr_is_pred(p)) {
			cli_error("--assume '%s': expected a relation such as 's0 >= 1'", o->assume[i]);
			return CLI_FAIL;
		}
		if (!p || sym_facts_assume(*facts, p) != SYM_EOK) {
			cli_error("--assume '%s': %s", o->assume[i], sym_ctx_last_message(*ctx));
			return CLI_FAIL;
		}
	}
	return CLI_OK;
}

static void teardown(cli_expr_opts *o, sym_ctx *ctx, sym_facts *facts)
{
	sym_facts_free(facts);
	sym_ctx_free(ctx);
	cli_expr_opts_free(o);
}

/* Returns the answer for one input (a and, for equal, b) as malloc'd text,
 * or NULL with the error recorded in ctx. */
typedef char *(*answer_fn)(sym_ctx *ctx, sym_facts *facts, const char *a, const char *b);

static char *ans_simplify(sym_ctx *ctx, sym_facts *facts, const char *a, const char *b)
{
	const sym_expr *e = sym_expr_from_str(ctx, a);
	(void)b;
	return cli_expr_text(ctx, sym_simplify(ctx, facts, e));
}

static char *ans_prove(sym_ctx *ctx, sym_facts *facts, const char *a, const char *b)
{
	const sym_expr *e = sym_expr_from_str(ctx, a);
	sym_truth t;
	(void)b;
	if (!e)
		return NULL;
	t = sym_prove(ctx, facts, e);
	switch (t) {
	case SYM_TRUE:
		return strdup("true");
	case SYM_FALSE:
		return strdup("false");
	case SYM_UNKNOWN:
		return strdup("unknown");
	default:
		return NULL;
	}
}

static char *ans_equal(sym_ctx *ctx, sym_facts *facts, const char *a, const char *b)
{
	const sym_expr *x = sym_expr_from_str(ctx, a), *y;
	sym_witness w;
	sym_truth t;
	char *r = NULL;
	if (!x)
		return NULL;
	y = sym_expr_from_str(ctx, b);
	if (!y)
		return NULL;
	t = sym_equal(ctx, facts, x, y, &w);
	if (t == SYM_TRUE)
		return strdup("true");
	if (t == SYM_UNKNOWN)
		return strdup("unknown");
	if (t == SYM_FALSE) {
		size_t i, len = 32, off;
		char **vs = calloc(w.n + 1, sizeof(*vs));
		if (!vs)
			return NULL;
		for (i = 0; i < w.n; i++) {
			vs[i] = sym_expr_to_str(ctx, w.vals[i]);
			len += strlen(sym_expr_symbol_name(w.syms[i])) + (vs[i] ? strlen(vs[i]) : 0) + 2;
		}
		/* a value that cannot be printed fails the line (never "?") */
		for (i = 0; i < w.n && vs[i]; i++)
			;
		r = i == w.n ? malloc(len) : NULL;
		if (r) {
			off = (size_t)sprintf(r, "false\nwitness:");
			for (i = 0; i < w.n; i++)
				off += (size_t)sprintf(r + off, " %s=%s", sym_expr_symbol_name(w.syms[i]),
				                       vs[i]);
		}
		for (i = 0; i < w.n; i++)
			sym_str_free(ctx, vs[i]);
		free(vs);
		sym_witness_clear(ctx, &w);
	}
	return r;
}

static int run_one(sym_ctx *ctx, sym_facts *facts, answer_fn fn, const char *a, const char *b)
{
	char *r = fn(ctx, facts, a, b);
	if (!r) {
		cli_error("error: %s", sym_ctx_last_message(ctx));
		return CLI_FAIL;
	}
	puts(r);
	free(r);
	return CLI_OK;
}

/* Batch mode: one input per line (pairs separated by a tab for equal); a
 * failing line prints "error: MESSAGE" in its place. */
static int run_batch(sym_ctx *ctx, sym_facts *facts, answer_fn fn, int pairs)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int status = CLI_OK;
	while ((len = getline(&line, &cap, stdin)) >= 0) {
		char *a = line, *b = NULL, *r;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (pairs) {
			char *tab = strchr(line, '\t');
			if (!tab) {
				puts("error: expected two expressions separated by a tab");
				status = CLI_FAIL;
				continue;
			}
			*tab = 0;
			b = tab + 1;
		}
		r = fn(ctx, facts, a, b);
		if (r) {
			puts(r);
			free(r);
		} else {
			printf("error: %s\n", sym_ctx_last_message(ctx));
			status = CLI_FAIL;
		}
		sym_ctx_clear_error(ctx);
		fflush(stdout);
	}
	free(line);
	return status;
}

static int expr_command(int argc, char **argv, answer_fn fn, int nargs)
{
	cli_expr_opts o;
	sym_ctx *ctx = NULL;
	sym_facts *facts = NULL;
	int st = cli_expr_opts_parse(&o, argc, argv, nargs);
	if (st == CLI_OK)
		st = setup(&o, &ctx, &facts);
	if (st == CLI_OK) {
		if (o.npos == 1 && !strcmp(o.pos[0], "-"))
			st = run_batch(ctx, facts, fn, nargs == 2);
		else
			st = run_one(ctx, facts, fn, o.pos[0], nargs == 2 ? o.pos[1] : NULL);
	}
	teardown(&o, ctx, facts);
	return st;
}

int cli_simplify(int argc, char **argv)
{
	return expr_command(argc, argv, ans_simplify, 1);
}
int cli_prove(int argc, char **argv)
{
	return expr_command(argc, argv, ans_prove, 1);
}
int cli_equal(int argc, char **argv)
{
	return expr_command(argc, argv, ans_equal, 2);
}

int cli_eval(int argc, char **argv)
{
	sym_ctx *ctx;
	const sym_expr **vals, *r;
	char **names;
	int i, n = argc - 1, st = CLI_FAIL;
	char *t;
	if (argc < 1)
		return cli_usage("eval needs an expression");
	ctx = cli_ctx_new();
	names = calloc((size_t)argc, sizeof(*names));
	vals = calloc((size_t)argc, sizeof(*vals));
	if (!ctx || !names || !vals) {
		cli_error("out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		char *eq = strchr(argv[i + 1], '=');
		size_t len;
		if (!eq || eq == argv[i + 1]) {
			st = cli_usage("bindings are NAME=INT");
			goto out;
		}
		len = (size_t)(eq - argv[i + 1]);
		names[i] = malloc(len + 1);
		if (!names[i]) {
			cli_error("out of memory");
			goto out;
		}
		memcpy(names[i], argv[i + 1], len);
		names[i][len] = 0;
		vals[i] = sym_expr_from_dec(ctx, eq + 1);
		if (!vals[i] || !sym_expr_symbol(ctx, names[i])) {
			cli_error("error: binding '%s': %s", argv[i + 1], sym_ctx_last_message(ctx));
			goto out;
		}
	}
	/* evaluated as written: x//x at x=0 is a division by zero */
	r = sym_expr_from_str_subst(ctx, argv[0], (size_t)n, (const char *const *)names, vals);
	if (!r) {
		cli_error("error: %s", sym_ctx_last_message(ctx));
		goto out;
	}
	if (sym_expr_kind(r) != SYM_KIND_NUM && sym_expr_kind(r) != SYM_KIND_BOOL) {
		const sym_expr *free_syms[8];
		size_t k = sym_expr_symbols(ctx, r, free_syms, 8);
		cli_error("error: unbound symbol '%s'%s", k ? sym_expr_symbol_name(free_syms[0]) : "?",
		          k > 1 ? " (and others)" : "");
		goto out;
	}
	t = sym_expr_to_str(ctx, r);
	if (!t) {
		cli_error("error: %s", sym_ctx_last_message(ctx));
		goto out;
	}
	puts(t);
	sym_str_free(ctx, t);
	st = CLI_OK;
out:
	for (i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	free(vals);
	sym_ctx_free(ctx);
	return st;
}
