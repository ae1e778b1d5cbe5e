/* Evaluation and substitution: sym_expr_eval_si and sym_expr_subst. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "symshape/gmp.h"
#include "symshape/symshape.h"

static const sym_expr *P(sym_ctx *ctx, const char *s)
{
	const sym_expr *e = sym_expr_from_str(ctx, s);
	if (!e)
		fail_msg("parse %s: %s", s, sym_ctx_last_message(ctx));
	return e;
}

static void assert_text(sym_ctx *ctx, const sym_expr *e, const char *want, const char *what)
{
	char *s;
	if (!e)
		fail_msg("%s: error %s", what, sym_ctx_last_message(ctx));
	s = sym_expr_to_str(ctx, e);
	assert_non_null(s);
	if (strcmp(s, want))
		fail_msg("%s: expected %s, got %s", what, want, s);
	/* results are canonical: the text names the same node */
	if (P(ctx, want) != e)
		fail_msg("%s: result %s is not the canonical node", what, s);
	sym_str_free(ctx, s);
}

typedef struct evec {
	const char *expr, *binds, *want;
} evec;

/* binds: "s0=3 s1=-2" */
static const sym_expr *eval_binds(sym_ctx *ctx, const sym_expr *e, const char *binds)
{
	const sym_expr *syms[8];
	long long vals[8];
	size_t n = 0;
	char buf[256], *tok, *save = NULL;
	strncpy(buf, binds, sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = 0;
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');
		assert_non_null(eq);
		*eq = 0;
		syms[n] = sym_expr_symbol(ctx, tok);
		vals[n++] = strtoll(eq + 1, NULL, 10);
	}
	return sym_expr_eval_si(ctx, e, n, syms, vals);
}

static void full_binding_gives_the_exact_constant(void **state)
{
	static const evec v[] = {
	    {"s0*s0*s0", "s0=10000000000", "1000000000000000000000000000000"},
	    {"s0**3 - s0**3 + 1", "s0=10000000000", "1"},
	    {"s0*s1", "s0=9223372036854775807 s1=9223372036854775807",
	     "85070591730234615847396907784232501249"},
	    {"s0 - 1", "s0=-9223372036854775808", "-9223372036854775809"},
	    {"-s0", "s0=-9223372036854775808", "9223372036854775808"},
	    {"s0 // 2", "s0=-7", "-4"},
	    {"s0 % 3", "s0=-7", "2"},
	    {"s0 % -3", "s0=7", "-2"},
	    {"s0 // s1", "s0=7 s1=-2", "-4"},
	    {"s0 % s1", "s0=-7 s1=3", "2"},
	    {"s0 % s1", "s0=7 s1=-3", "-2"},
	    {"s0 // s1", "s0=-9223372036854775808 s1=-1", "9223372036854775808"},
	    {"s0 / s1", "s0=6 s1=4", "3/2"},
	    {"ceil(s0 / 3)", "s0=-7", "-2"},
	    {"floor(s0 / 3)", "s0=-7", "-3"},
	    {"min(s0, s1, 3)", "s0=5 s1=4", "3"},
	    {"max(s0, s1, 3)", "s0=5 s1=4", "5"},
	    {"abs(s0 - s1)", "s0=2 s1=9", "7"},
	    {"(s0 + 1)**-2", "s0=1", "1/4"},
	    {"s0 >= 2 && s1 < 0", "s0=2 s1=-1", "true"},
	    {"s0 >= 2 || s1 < 0", "s0=1 s1=0", "false"},
	    {"s0 % 4 == 3", "s0=-1", "true"},
	    {"s0 != s1", "s0=3 s1=3", "false"},
	    {"7", "", "7"},
	    {"7", "s0=1", "7"},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		sym_ctx *ctx = sym_ctx_new();
		char what[200];
		snprintf(what, sizeof(what), "%s at %s", v[i].expr, v[i].binds);
		assert_text(ctx, eval_binds(ctx, P(ctx, v[i].expr), v[i].binds), v[i].want, what);
		sym_ctx_free(ctx);
	}
}

static void partial_binding_substitutes_and_stays_canonical(void **state)
{
	static const evec v[] = {
	    {"s0*s1 + s1", "s0=2", "3*s1"}, {"(s0 + s1)**2", "s1=1", "s0**2 + 2*s0 + 1"},
	    {"s0 // s1", "s1=4", "s0//4"},  {"(s0 + 4*s1) // 4", "s1=-3", "s0//4 - 3"},
	    {"s0 % s1", "s1=1", "0"},       {"min(s0, s1) + max(s0, s1)", "s1=3", "min(3, s0) + max(3, s0)"},
	    {"s0 / s1", "s0=0", "0"},       {"s0 < s1", "s1=-5", "s0 <= -6"},
	    {"s2", "s0=1 s1=2", "s2"},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		sym_ctx *ctx = sym_ctx_new();
		char what[200];
		snprintf(what, sizeof(what), "%s at %s", v[i].expr, v[i].binds);
		assert_text(ctx, eval_binds(ctx, P(ctx, v[i].expr), v[i].binds), v[i].want, what);
		sym_ctx_free(ctx);
	}
}

static void division_by_zero_is_an_error(void **state)
{
	static const evec v[] = {
	    {"s0 / s1", "s0=1 s1=0", NULL},
	    {"s0 // s1", "s0=1 s1=0", NULL},
	    {"s0 % s1", "s0=1 s1=0", NULL},
	    {"s0 % (s1 - 3)", "s0=5 s1=3", NULL},
	    {"1 / (s0 + s1)", "s0=2 s1=-2", NULL},
	    {"s0**-1", "s0=0", NULL},
	    {"ceil(s0 / s1)", "s0=-3 s1=0", NULL},
	    {"min(s0, 1/s1)", "s0=3 s1=0", NULL},
	    {"s0 > 0 || s0 // s1 == 0", "s0=1 s1=0", NULL},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		sym_ctx *ctx = sym_ctx_new();
		const sym_expr *r = eval_binds(ctx, P(ctx, v[i].expr), v[i].binds);
		if (r)
			fail_msg("%s at %s gave a value", v[i].expr, v[i].binds);
		if (sym_ctx_last_error(ctx) != SYM_EDIVZERO)
			fail_msg("%s at %s: status %s, expected division by zero", v[i].expr, v[i].binds,
			         sym_status_message(sym_ctx_last_error(ctx)));
		/* the context is usable after clearing */
		sym_ctx_clear_error(ctx);
		r = eval_binds(ctx, P(ctx, v[i].expr), "s0=4 s1=2");
		if (!r || (sym_expr_kind(r) != SYM_KIND_NUM && sym_expr_kind(r) != SYM_KIND_BOOL))
			fail_msg("%s at s0=4 s1=2 after clearing the error: %s", v[i].expr,
			         r ? "not a constant" : sym_ctx_last_message(ctx));
		sym_ctx_free(ctx);
	}
}

static void substitution_by_expressions_is_simultaneous(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	const sym_expr *a = P(ctx, "a"), *b = P(ctx, "b"), *s[2], *by[2];
	(void)state;
	s[0] = a, s[1] = b;
	by[0] = b, by[1] = a;
	assert_text(ctx, sym_expr_subst(ctx, P(ctx, "a - 2*b"), 2, s, by), "b - 2*a", "swap");
	by[0] = P(ctx, "a + b"), by[1] = P(ctx, "a - b");
	assert_text(ctx, sym_expr_subst(ctx, P(ctx, "a*b"), 2, s, by), "a**2 - b**2", "(a+b)(a-b)");
	by[0] = P(ctx, "4*c + 3");
	assert_text(ctx, sym_expr_subst(ctx, P(ctx, "a // 4"), 1, s, by), "c", "(4c+3)//4");
	assert_text(ctx, sym_expr_subst(ctx, P(ctx, "a % 4"), 1, s, by), "3", "(4c+3)%4");
	by[0] = P(ctx, "c");
	by[1] = P(ctx, "c");
	assert_text(ctx, sym_expr_subst(ctx, P(ctx, "a/b"), 2, s, by), "1", "c/c");
	assert_text(ctx, sym_expr_subst(ctx, P(ctx, "min(a, b) - max(a, b)"), 2, s, by), "0",
	            "min(c,c)-max(c,c)");
	assert_text(ctx, sym_expr_subst(ctx, P(ctx, "a < b"), 2, s, by), "false", "c < c");
	/* no symbols: the expression itself */
	assert_true(sym_expr_subst(ctx, P(ctx, "a + 1"), 0, s, by) == P(ctx, "a + 1"));
	/* substituting a constant zero into a divisor */
	by[1] = P(ctx, "0");
	assert_null(sym_expr_subst(ctx, P(ctx, "a // b"), 2, s, by));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EDIVZERO);
	sym_ctx_clear_error(ctx);
	/* a predicate cannot replace a symbol, and only symbols are replaced */
	by[1] = P(ctx, "c < 1");
	assert_null(sym_expr_subst(ctx, P(ctx, "a + b"), 2, s, by));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EDOMAIN);
	sym_ctx_clear_error(ctx);
	s[1] = P(ctx, "b + 1");
	by[1] = P(ctx, "c");
	assert_null(sym_expr_subst(ctx, P(ctx, "a + b"), 2, s, by));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EMISUSE);
	sym_ctx_free(ctx);
}

static void big_values_through_subst_are_exact(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	const sym_expr *x = P(ctx, "x"), *v, *r;
	mpz_t z;
	mpq_t q;
	(void)state;
	mpz_init(z);
	mpq_init(q);
	mpz_ui_pow_ui(z, 10, 40); /* far beyond 2^64 */
	v = sym_expr_from_mpz(ctx, z);
	r = sym_expr_subst(ctx, P(ctx, "x*x*x - (x - 1)//7 + x % 1000000007"), 1, &x, &v);
	assert_non_null(r);
	assert_int_equal(sym_expr_get_mpq(r, q), 1);
	{
		mpz_t e, t;
		mpz_inits(e, t, NULL);
		mpz_pow_ui(e, z, 3);
		mpz_sub_ui(t, z, 1);
		mpz_fdiv_q_ui(t, t, 7);
		mpz_sub(e, e, t);
		mpz_fdiv_r_ui(t, z, 1000000007);
		mpz_add(e, e, t);
		assert_true(mpz_cmp(mpq_numref(q), e) == 0);
		assert_true(mpz_cmp_ui(mpq_denref(q), 1) == 0);
		mpz_clears(e, t, NULL);
	}
	mpz_clear(z);
	mpq_clear(q);
	sym_ctx_free(ctx);
}

static void unbound_and_misused_symbols(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	const sym_expr *e = P(ctx, "x + y"), *s[2];
	long long vals[2] = {1, 2};
	(void)state;
	/* an unbound symbol stays symbolic (partial evaluation) */
	s[0] = P(ctx, "x");
	assert_text(ctx, sym_expr_eval_si(ctx, e, 1, s, vals), "y + 1", "x=1");
	/* binding something that is not a symbol is misuse */
	s[0] = P(ctx, "x + 1");
	assert_null(sym_expr_eval_si(ctx, e, 1, s, vals));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EMISUSE);
	sym_ctx_clear_error(ctx);
	/* a bound symbol that does not occur is harmless */
	s[0] = P(ctx, "x"), s[1] = P(ctx, "zz");
	assert_text(ctx, sym_expr_eval_si(ctx, P(ctx, "x*2"), 2, s, vals), "2", "x=1 zz=2");
	/* a NULL operand gives NULL without a new error */
	assert_null(sym_expr_eval_si(ctx, NULL, 2, s, vals));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EOK);
	sym_ctx_free(ctx);
}

static void extreme_int64_inputs(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	const sym_expr *x = P(ctx, "x"), *r;
	long long v = LLONG_MIN, got = 0;
	(void)state;
	r = sym_expr_eval_si(ctx, x, 1, &x, &v);
	assert_non_null(r);
	/* sym_expr_get_si: "stores it in *out when it is an integer that fits
	 * a long long, returning 1" */
	if (sym_expr_get_si(r, &got) != 1 || got != LLONG_MIN)
		fail_msg("x at x=LLONG_MIN: sym_expr_get_si does not give LLONG_MIN back");
	assert_true(sym_expr_from_si(ctx, LLONG_MIN) == r);
	sym_ctx_free(ctx);
}

/* A missing symbol or value is API misuse with a recorded error, never a
 * bare NULL. */
static void substitution_without_a_value_is_misuse(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	const sym_expr *x = sym_expr_symbol(ctx, "x"), *none = NULL, *nosym = NULL;
	long long v = 1;
	(void)state;
	assert_null(sym_expr_subst(ctx, x, 1, &x, &none));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EMISUSE);
	sym_ctx_clear_error(ctx);
	assert_null(sym_expr_eval_si(ctx, x, 1, &nosym, &v));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EMISUSE);
	sym_ctx_free(ctx);
}

/* x*a0%b0*a1%b1... with 30 pairs: a DAG of a few hundred nodes whose tree
 * has billions; evaluation visits each node once (this never finished). */
static void evaluation_visits_each_shared_node_once(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	char text[512];
	const sym_expr *syms[61], *e, *r;
	long long vals[61];
	size_t len = (size_t)snprintf(text, sizeof(text), "x"), i;
	clock_t t0;
	(void)state;
	for (i = 0; i < 30; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "*a%zu%%b%zu", i, i);
	e = sym_expr_from_str(ctx, text);
	assert_non_null(e);
	assert_int_equal(sym_expr_symbols(ctx, e, syms, 61), 61);
	for (i = 0; i < 61; i++)
		vals[i] = 3 + (long long)(i % 5);
	t0 = clock();
	r = sym_expr_eval_si(ctx, e, 61, syms, vals);
	assert_non_null(r);
	assert_int_equal(sym_expr_kind(r), SYM_KIND_NUM);
	assert_true(clock() - t0 < CLOCKS_PER_SEC / 2);
	sym_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(full_binding_gives_the_exact_constant),
	    cmocka_unit_test(partial_binding_substitutes_and_stays_canonical),
	    cmocka_unit_test(division_by_zero_is_an_error),
	    cmocka_unit_test(substitution_by_expressions_is_simultaneous),
	    cmocka_unit_test(big_values_through_subst_are_exact),
	    cmocka_unit_test(unbound_and_misused_symbols),
	    cmocka_unit_test(extreme_int64_inputs),
	    cmocka_unit_test(substitution_without_a_value_is_misuse),
	    cmocka_unit_test(evaluation_visits_each_shared_node_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
