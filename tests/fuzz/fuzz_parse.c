/* libFuzzer target for the expression parser.
 *
 * The input bytes are parsed as one NUL-terminated expression.  When parsing
 * succeeds: the printed text must parse back to the same pointer, simplifying
 * under a small fact store must be idempotent and keep the value at a fixed
 * admissible point, and evaluation may fail with an error but never crash.
 *
 * FUZZ_PARSE_NO_ROUNDTRIP=1 in the environment turns the print-parse identity
 * check into a value check at the fixed point, so that a campaign can look
 * past an open round-trip failure for other ones. */
#include "symshape/symshape.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SYMS 16

/* Reports a broken invariant with the input that broke it and aborts, so the
 * fuzzer records the input as a crash. */
#define CHECK(cond, ...)                                                                                     \
	do {                                                                                                 \
		if (!(cond)) {                                                                               \
			fprintf(stderr, "fuzz_parse: check failed: %s: ", #cond);                            \
			fprintf(stderr, __VA_ARGS__);                                                        \
			fprintf(stderr, "\n  input: '%s'\n", text);                                          \
			abort();                                                                             \
		}                                                                                            \
	} while (0)

/* The assumptions of the fact store; the fixed point below satisfies them. */
static const char *const assumptions[] = {
    "s0 >= 1",
    "s1 % 4 == 0 && s1 >= 0",
    "x >= 0 && x < 16",
    "n >= 2",
};

/* Returns the value of a symbol at the fixed point: the named symbols get
 * values that satisfy the assumptions, every other symbol a small integer
 * that depends on its name only, so that an expression and its simplified
 * form see the same point. */
static long long point_value(const char *name)
{
	static const long long others[] = {3, -2, 7, 0, 1, -5, 12, 2};
	unsigned h = 0;
	const char *c;
	if (!strcmp(name, "s0"))
		return 5;
	if (!strcmp(name, "s1"))
		return 8;
	if (!strcmp(name, "x"))
		return 13;
	if (!strcmp(name, "n"))
		return 3;
	for (c = name; *c; c++)
		h = h * 31u + (unsigned char)*c;
	return others[h % (sizeof(others) / sizeof(others[0]))];
}

/* Evaluates e at the fixed point; NULL when the evaluation fails (the error
 * is cleared) or when e has more symbols than the point binds. */
static const sym_expr *eval_at_point(sym_ctx *ctx, const sym_expr *e)
{
	const sym_expr *syms[MAX_SYMS], *r;
	long long vals[MAX_SYMS];
	size_t i, n = sym_expr_symbols(ctx, e, syms, MAX_SYMS);
	if (n > MAX_SYMS)
		return NULL;
	for (i = 0; i < n; i++)
		vals[i] = point_value(sym_expr_symbol_name(syms[i]));
	r = sym_expr_eval_si(ctx, e, n, syms, vals);
	if (!r) {
		sym_ctx_clear_error(ctx);
		return NULL;
	}
	if (sym_expr_kind(r) != SYM_KIND_NUM && sym_expr_kind(r) != SYM_KIND_BOOL) {
		char *t = sym_expr_to_str(ctx, r);
		fprintf(stderr, "fuzz_parse: evaluation left '%s'\n", t ? t : "?");
		abort();
	}
	return r;
}

static sym_facts *make_facts(sym_ctx *ctx)
{
	sym_facts *facts = sym_facts_new(ctx);
	size_t i;
	if (!facts)
		return NULL;
	for (i = 0; i < sizeof(assumptions) / sizeof(assumptions[0]); i++) {
		const sym_expr *p = sym_expr_from_str(ctx, assumptions[i]);
		if (!p || sym_facts_assume(facts, p) != SYM_EOK) {
			fprintf(stderr, "fuzz_parse: cannot assume '%s': %s\n", assumptions[i],
			        sym_ctx_last_message(ctx));
			abort();
		}
	}
	return facts;
}

static void check_expr(sym_ctx *ctx, const char *text, const sym_expr *e)
{
	sym_facts *facts;
	const sym_expr *back, *s, *s2, *v, *vs;
	char *printed = sym_expr_to_str(ctx, e);

	if (!printed) {
		/* a text past the printing limit is an error, never a crash */
		CHECK(sym_ctx_last_error(ctx) == SYM_ELIMIT, "printing failed: %s",
		      sym_ctx_last_message(ctx));
		sym_ctx_clear_error(ctx);
		return;
	}
	back = sym_expr_from_str(ctx, printed);
	CHECK(back != NULL, "printed text '%s' does not parse: %s", printed, sym_ctx_last_message(ctx));
	if (back != e && getenv("FUZZ_PARSE_NO_ROUNDTRIP")) {
		v = eval_at_point(ctx, e);
		vs = eval_at_point(ctx, back);
		CHECK(!v || !vs || v == vs, "printed text '%s' parses to a node of another value", printed);
	} else {
		CHECK(back == e, "printed text '%s' parses to another node", printed);
	}
	sym_str_free(ctx, printed);

	facts = make_facts(ctx);
	CHECK(facts != NULL, "no fact store: %s", sym_ctx_last_message(ctx));
	s = sym_simplify(ctx, facts, e);
	if (!s) {
		/* Over a limit or a domain error: allowed, but the context must
		 * stay usable. */
		sym_ctx_clear_error(ctx);
		sym_facts_free(facts);
		return;
	}
	s2 = sym_simplify(ctx, facts, s);
	if (!s2) {
		sym_ctx_clear_error(ctx);
	} else if (s2 != s) {
		char *a = sym_expr_to_str(ctx, s), *b = sym_expr_to_str(ctx, s2);
		CHECK(s2 == s, "simplify is not idempotent: '%s' then '%s'", a ? a : "?", b ? b : "?");
	}

	v = eval_at_point(ctx, e);
	vs = eval_at_point(ctx, s);
	if (v && vs && v != vs) {
		char *a = sym_expr_to_str(ctx, s), *b = sym_expr_to_str(ctx, v),
		     *c = sym_expr_to_str(ctx, vs);
		CHECK(v == vs, "simplified '%s' has value %s at the point, the input %s", a ? a : "?",
		      c ? c : "?", b ? b : "?");
	}
	sym_facts_free(facts);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sym_ctx *ctx;
	const sym_expr *e;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	ctx = sym_ctx_new();
	if (!ctx) {
		free(text);
		return 0;
	}
	e = sym_expr_from_str(ctx, text);
	if (e) {
		check_expr(ctx, text, e);
	} else {
		const char *msg = sym_ctx_last_message(ctx);
		long pos = sym_ctx_last_position(ctx);
		CHECK(sym_ctx_last_error(ctx) != SYM_EOK, "NULL without an error");
		CHECK(msg && *msg && !strchr(msg, '\n'), "message is not one line");
		CHECK(pos >= -1 && pos <= (long)strlen(text), "position %ld out of the text", pos);
	}
	sym_ctx_free(ctx);
	free(text);
	return 0;
}
