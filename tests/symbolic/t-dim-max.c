/* The largest dim: a fact store whose symbols are dims (sym__facts_bound_dims,
 * as a model's inference makes it) knows that every symbol is at most
 * SYM_DIM_MAX; a store of plain symbols, even with the default minimum 1 of
 * --dims, does not.  Table vectors {input, answer for dims, answer for plain
 * symbols >= 1}; every simplification is also checked for the same value as
 * its input at random points up to SYM_DIM_MAX, and every proven relation
 * for holding there.
 *
 * SYM_TEST_SEED picks the seed of the random points (default 1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "symshape/symshape.h"
#include "seam.h"

#define POINTS 300

static uint64_t seed = 1;

static uint64_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

/* A dim in [1, SYM_DIM_MAX]: small, near the top, or anywhere. */
static long long rnd_dim(void)
{
	switch (rnd() % 3) {
	case 0:
		return 1 + (long long)(rnd() % 64);
	case 1:
		return SYM_DIM_MAX - (long long)(rnd() % 64);
	default:
		return 1 + (long long)(rnd() % (uint64_t)SYM_DIM_MAX);
	}
}

static const sym_expr *parse(sym_ctx *ctx, const char *text)
{
	const sym_expr *e = sym_expr_from_str(ctx, text);
	if (!e)
		fail_msg("parse '%s': %s", text, sym_ctx_last_message(ctx));
	return e;
}

static sym_facts *store(sym_ctx *ctx, int dims)
{
	sym_facts *f = sym_facts_new(ctx);
	assert_non_null(f);
	assert_int_equal(sym_facts_set_default_min(f, 1), SYM_EOK);
	if (dims)
		assert_int_equal(sym__facts_bound_dims(f), SYM_EOK);
	return f;
}

static char *text(sym_ctx *ctx, const sym_expr *e)
{
	char *s = sym_expr_to_str(ctx, e);
	if (!s)
		fail_msg("printing failed: %s", sym_ctx_last_message(ctx));
	return s;
}

/* a and b have the same value at random dims up to SYM_DIM_MAX (p: a
 * predicate that must be true there, b NULL). */
static void check_points(sym_ctx *ctx, const sym_expr *a, const sym_expr *b, const char *what)
{
	const sym_expr *syms[8];
	long long vals[8];
	size_t n = sym_expr_symbols(ctx, a, syms, 8), i, k;
	assert_true(n <= 8);
	for (k = 0; k < POINTS; k++) {
		const sym_expr *va, *vb;
		for (i = 0; i < n; i++)
			vals[i] = rnd_dim();
		va = sym_expr_eval_si(ctx, a, n, syms, vals);
		vb = b ? sym_expr_eval_si(ctx, b, n, syms, vals) : sym_expr_bool(ctx, 1);
		assert_non_null(va);
		assert_non_null(vb);
		if (va != vb) {
			char *ta = text(ctx, va), *tb = text(ctx, vb);
			fail_msg("%s: %s != %s at %s=%lld", what, ta, tb,
			         n ? sym_expr_symbol_name(syms[0]) : "-", n ? vals[0] : 0);
		}
	}
}

static void simplify_uses_the_largest_dim_for_dims_only(void **state)
{
	static const char *const v[][3] = {
	    /* the Slice clamp of the end -9223372036854775807 */
	    {"max(-1, t - 9223372036854775807)", "-1", "max(-1, t - 9223372036854775807)"},
	    {"(t - max(-1, t - 9223372036854775807))//2", "(t + 1)//2",
	     "(t - max(-1, t - 9223372036854775807))//2"},
	    {"min(9223372036854775806, t)", "t", "min(9223372036854775806, t)"},
	    /* the bound itself, and one below it */
	    {"min(4611686018427387904, t)", "t", "min(4611686018427387904, t)"},
	    {"min(4611686018427387903, t)", "min(4611686018427387903, t)", "min(4611686018427387903, t)"},
	    {"max(0, t - 4611686018427387904)", "0", "max(0, t - 4611686018427387904)"},
	    {"max(0, t - 4611686018427387903)", "max(0, t - 4611686018427387903)",
	     "max(0, t - 4611686018427387903)"},
	    /* a remainder by a constant above every dim */
	    {"t % 9223372036854775807", "t", "t % 9223372036854775807"},
	    /* two dims: their sum is at most 2**63 */
	    {"min(u + t, 9223372036854775808)", "t + u", "min(9223372036854775808, t + u)"},
	};
	sym_ctx *ctx = sym_ctx_new();
	size_t i;
	int dims;
	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		for (dims = 1; dims >= 0; dims--) {
			sym_facts *f = store(ctx, dims);
			const sym_expr *e = parse(ctx, v[i][0]), *r = sym_simplify(ctx, f, e);
			char *got;
			assert_non_null(r);
			got = text(ctx, r);
			if (strcmp(got, v[i][dims ? 1 : 2]))
				fail_msg("simplify%s '%s': got '%s', want '%s'", dims ? " (dims)" : "",
				         v[i][0], got, v[i][dims ? 1 : 2]);
			sym_str_free(ctx, got);
			assert_ptr_equal(sym_simplify(ctx, f, r), r);
			check_points(ctx, e, r, v[i][0]);
			sym_facts_free(f);
		}
	sym_ctx_free(ctx);
}

static void prove_uses_the_largest_dim_for_dims_only(void **state)
{
	static const struct {
		const char *p;
		sym_truth dims, plain;
	} v[] = {
	    {"t <= 4611686018427387904", SYM_TRUE, SYM_UNKNOWN},
	    {"t < 9223372036854775807", SYM_TRUE, SYM_UNKNOWN},
	    {"t - 9223372036854775807 <= -1", SYM_TRUE, SYM_UNKNOWN},
	    {"t <= 4611686018427387903", SYM_UNKNOWN, SYM_UNKNOWN},
	    {"t > 4611686018427387904", SYM_FALSE, SYM_UNKNOWN},
	    {"t + u <= 9223372036854775808", SYM_TRUE, SYM_UNKNOWN},
	    {"t >= 1", SYM_TRUE, SYM_TRUE},
	};
	sym_ctx *ctx = sym_ctx_new();
	size_t i;
	int dims;
	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		for (dims = 1; dims >= 0; dims--) {
			sym_facts *f = store(ctx, dims);
			const sym_expr *p = parse(ctx, v[i].p);
			sym_truth t = sym_prove(ctx, f, p), want = dims ? v[i].dims : v[i].plain;
			if (t != want)
				fail_msg("prove%s '%s': got %d, want %d", dims ? " (dims)" : "", v[i].p,
				         (int)t, (int)want);
			if (t == SYM_TRUE)
				check_points(ctx, p, NULL, v[i].p);
			sym_facts_free(f);
		}
	sym_ctx_free(ctx);
}

/* The bounds a caller prints keep the open end of a dim open; an end of its
 * own above SYM_DIM_MAX is SYM_DIM_MAX. */
static void printed_bounds_of_dims_stay_open_above(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_facts *f = store(ctx, 1);
	const sym_expr *t = parse(ctx, "t"), *u = parse(ctx, "u"), *lo, *hi;
	char *s;
	(void)state;
	assert_true(sym__bounds_expr(ctx, f, parse(ctx, "2*t + 3"), &lo, &hi));
	assert_non_null(lo);
	assert_null(hi);
	assert_true(sym__facts_symbol_range(ctx, f, t, &lo, &hi));
	assert_null(hi);
	/* the decision after a printed bound still knows the largest dim */
	assert_int_equal(sym_prove(ctx, f, parse(ctx, "2*t + 3 <= 9223372036854775811")), SYM_TRUE);
	assert_true(sym__bounds_expr(ctx, f, parse(ctx, "min(t, 7)"), &lo, &hi));
	assert_ptr_equal(hi, parse(ctx, "7"));
	assert_int_equal(sym_facts_set_range(f, u, parse(ctx, "1"), parse(ctx, "9223372036854775807")),
	                 SYM_EOK);
	assert_true(sym__bounds_expr(ctx, f, u, &lo, &hi));
	assert_non_null(hi);
	s = text(ctx, hi);
	assert_string_equal(s, "4611686018427387904");
	sym_str_free(ctx, s);
	/* a lower end above every dim leaves no value */
	assert_int_equal(sym_facts_set_range(f, t, parse(ctx, "4611686018427387905"), NULL),
	                 SYM_ECONTRADICTION);
	assert_non_null(strstr(sym_ctx_last_message(ctx),
	                       "no value of t is left (a dim is at most 4611686018427387904)"));
	sym_ctx_clear_error(ctx);
	sym_facts_free(f);
	sym_ctx_free(ctx);
}

/* A range with no value left names its symbol whole, however long (the
 * message was once cut at 300 bytes), in one line. */
static void empty_ranges_name_long_symbols_whole(void **state)
{
	char name[256], want[400];
	sym_ctx *ctx = sym_ctx_new();
	sym_facts *f = store(ctx, 1);
	const char *msg, *c;
	(void)state;
	memset(name, 'w', 255); /* the longest symbol name */
	name[255] = 0;
	assert_int_equal(sym_facts_set_range(f, parse(ctx, name), parse(ctx, "4611686018427387905"), NULL),
	                 SYM_ECONTRADICTION);
	snprintf(want, sizeof(want),
	         "contradicting assumptions: no value of %s is left (a dim is at most "
	         "4611686018427387904)",
	         name);
	msg = sym_ctx_last_message(ctx);
	assert_string_equal(msg, want);
	for (c = msg; *c; c++)
		assert_true((unsigned char)*c >= 0x20 && *c != 0x7f);
	sym_facts_free(f);
	sym_ctx_free(ctx);
}

/* equal's witness of a difference at the largest dim only is that dim; a
 * difference at small dims keeps a small witness. */
static void witnesses_reach_the_largest_dim_last(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	sym_facts *f = store(ctx, 1);
	sym_witness w;
	char *s;
	(void)state;
	assert_int_equal(sym_equal(ctx, f, parse(ctx, "min(t, 4611686018427387903)"), parse(ctx, "t"), &w),
	                 SYM_FALSE);
	assert_int_equal(w.n, 1);
	s = text(ctx, w.vals[0]);
	assert_string_equal(s, "4611686018427387904");
	sym_str_free(ctx, s);
	sym_witness_clear(ctx, &w);
	assert_int_equal(sym_equal(ctx, f, parse(ctx, "min(t, 5)"), parse(ctx, "t"), &w), SYM_FALSE);
	assert_int_equal(w.n, 1);
	s = text(ctx, w.vals[0]);
	assert_true(strlen(s) < 4);
	sym_str_free(ctx, s);
	sym_witness_clear(ctx, &w);
	sym_facts_free(f);
	sym_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(simplify_uses_the_largest_dim_for_dims_only),
	    cmocka_unit_test(prove_uses_the_largest_dim_for_dims_only),
	    cmocka_unit_test(printed_bounds_of_dims_stay_open_above),
	    cmocka_unit_test(empty_ranges_name_long_symbols_whole),
	    cmocka_unit_test(witnesses_reach_the_largest_dim_last),
	};
	const char *s = getenv("SYM_TEST_SEED");
	if (s && strtoull(s, NULL, 10))
		seed = strtoull(s, NULL, 10);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
