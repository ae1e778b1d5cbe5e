/* Values through chains of rules: values of any rank (the computed-pads
 * chain exporters write) and float shape arithmetic (exact forms, float32
 * rounding of folded numbers, runtime-bound symbols where rounding could
 * change an integer). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gmp.h>

#include "symshape/gmp.h"

#include "harness.h"

/* Runs op on n inputs (no attributes but one optional) and returns output 0. */
static sym_tval run1(rt *t, const char *op, size_t n, const sym_tval *in, size_t na, const sym_attr *a)
{
	sym_tval out[1];
	if (rt_run(t, op, NULL, n, in, na, a, 1, out) != 0)
		fail_msg("%s failed: %s", op, sym_ctx_last_message(t->ctx));
	return out[0];
}

static sym_tval run2(rt *t, const char *op, sym_tval x, sym_tval y)
{
	sym_tval in[2];
	in[0] = x, in[1] = y;
	return run1(t, op, 2, in, 0, NULL);
}

static sym_tval cast(rt *t, sym_tval x, const char *to)
{
	sym_attr a = rt_i(t, "to", sym__dtype_from_name(to));
	return run1(t, "Cast", 1, &x, 1, &a);
}

static sym_tval unary(rt *t, const char *op, sym_tval x)
{
	return run1(t, op, 1, &x, 0, NULL);
}

/* The canonical text of expr under the session's facts, for comparing
 * with a printed result. */
static const char *canon(rt *t, const char *expr)
{
	const sym_expr *e = sym_expr_from_str(t->ctx, expr);
	char *s;
	const char *r;
	assert_non_null(e);
	e = sym_simplify(t->ctx, t->facts, e);
	assert_non_null(e);
	s = sym_expr_to_str(t->ctx, e);
	r = sym__infer_strdup(&t->inf, s);
	sym_str_free(t->ctx, s);
	return r;
}

/* Value element i of v evaluated at sym = x. */
static long long value_at(rt *t, const sym_tval *v, size_t i, const char *sym, long long x)
{
	const sym_expr *s = sym_expr_symbol(t->ctx, sym), *r;
	long long c;
	assert_true(v->has_value && i < v->nvalue);
	r = sym_expr_eval_si(t->ctx, v->value[i], 1, &s, &x);
	assert_non_null(r);
	assert_int_equal(sym_expr_get_si(r, &c), 1);
	return c;
}

/* The runtime's integer arithmetic wraps at the type's width, so a value
 * whose exact element lies outside the type is not what it computes: such a
 * value is dropped (the output keeps its shape), one inside is kept. */
static void integer_values_past_their_type_are_not_known(void **state)
{
	static const struct {
		const char *op, *dtype, *a, *b;
		int known;
	} cases[] = {
	    {"Mul", "int64", "[4294967296]", "[4294967296]", 0},
	    {"Mul", "int64", "[4294967296]", "[2147483647]", 1},
	    {"Add", "int64", "[9223372036854775807]", "[1]", 0},
	    {"Sub", "int64", "[-9223372036854775807]", "[1]", 1},
	    {"Sub", "int64", "[-9223372036854775807]", "[2]", 0},
	    {"Add", "int32", "[2147483647]", "[1]", 0},
	    {"Add", "int32", "[2147483646]", "[1]", 1},
	    {"Sub", "uint8", "[0]", "[1]", 0},
	    {"Mul", "int8", "[64]", "[2]", 0},
	    {"Mul", "int8", "[-64]", "[2]", 1},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rt t;
		sym_tval v;
		rt_init(&t, 1);
		v = run2(&t, cases[i].op, rt_t(&t, "[1]", cases[i].dtype, cases[i].a),
		         rt_t(&t, "[1]", cases[i].dtype, cases[i].b));
		if (v.has_value != cases[i].known)
			fail_msg("%s(%s, %s) of %s: value %s, want %s", cases[i].op, cases[i].a, cases[i].b,
			         cases[i].dtype, v.has_value ? rt_value(&t, &v) : "none",
			         cases[i].known ? "one" : "none");
		assert_string_equal(rt_shape(&t, &v), "[1]");
		rt_free(&t);
	}
}

/* F.pad with computed pads, as torch exports it: the pad list (last dim
 * first) with zeros appended, Reshape [-1, 2], reversed by a Slice with
 * step -1, Transpose, Reshape [-1], Cast, Pad. */
static void computed_pads_flow_through_a_rank_2_value(void **state)
{
	rt t;
	sym_tval x, pads, v, in[5];
	sym_attr a;
	char want[256];
	(void)state;
	rt_init(&t, 1);
	x = rt_t(&t, "[n, h, w, 96]", NULL, NULL);
	pads = rt_t(&t, "[6]", "int64", "[0, 0, 0, (7 - w % 7) % 7, 0, (7 - h % 7) % 7]");
	in[0] = pads, in[1] = rt_t(&t, "[2]", "int64", "[0, 0]");
	a = rt_i(&t, "axis", 0);
	v = run1(&t, "Concat", 2, in, 1, &a);
	v = run2(&t, "Reshape", v, rt_t(&t, "[2]", "int64", "[-1, 2]"));
	assert_string_equal(rt_shape(&t, &v), "[4, 2]");
	in[0] = v;
	in[1] = rt_t(&t, "[1]", "int64", "[-1]");
	in[2] = rt_t(&t, "[1]", "int64", "[-9223372036854775807]");
	in[3] = rt_t(&t, "[1]", "int64", "[0]");
	in[4] = rt_t(&t, "[1]", "int64", "[-1]");
	v = run1(&t, "Slice", 5, in, 0, NULL);
	assert_string_equal(rt_shape(&t, &v), "[4, 2]");
	a = rt_is(&t, "perm", "[1, 0]");
	v = run1(&t, "Transpose", 1, &v, 1, &a);
	assert_string_equal(rt_shape(&t, &v), "[2, 4]");
	v = run2(&t, "Reshape", v, rt_t(&t, "[1]", "int64", "[-1]"));
	v = cast(&t, v, "int64");
	snprintf(want, sizeof(want), "[0, 0, 0, 0, 0, %s, %s, 0]", canon(&t, "(7 - h % 7) % 7"),
	         canon(&t, "(7 - w % 7) % 7"));
	assert_string_equal(rt_value(&t, &v), want);
	v = run2(&t, "Pad", x, v);
	snprintf(want, sizeof(want), "[n, %s, %s, 96]", canon(&t, "h + (7 - h % 7) % 7"),
	         canon(&t, "w + (7 - w % 7) % 7"));
	assert_string_equal(rt_shape(&t, &v), want);
	rt_free(&t);
}

/* The truth of bool element e at a = va, b = vb: 1, 0, or -1 when it is
 * not a decided constant there. */
static int truth_at(rt *t, const sym_expr *e, long long va, long long vb)
{
	const sym_expr *syms[2] = {sym_expr_symbol(t->ctx, "a"), sym_expr_symbol(t->ctx, "b")};
	long long vals[2] = {va, vb}, c;
	const sym_expr *r = sym_expr_eval_si(t->ctx, e, 2, syms, vals);
	assert_non_null(r);
	if (sym_expr_is_pred(r))
		return r == sym_expr_bool(t->ctx, 1) ? 1 : r == sym_expr_bool(t->ctx, 0) ? 0 : -1;
	return sym_expr_get_si(r, &c) == 1 && (c == 0 || c == 1) ? (int)c : -1;
}

/* Comparisons of shape values that the facts do not decide give
 * predicates; Not, And, Or, Xor and a Cast to bool compute with them, a
 * Cast to a number and arithmetic give no value; at random points
 * every element is the truth of the comparison there. */
static void undecided_comparisons_of_shape_values_are_predicates(void **state)
{
	rt t;
	sym_tval x, y, eq, lt, nt, an, orr, xr, v;
	char want[256];
	uint64_t st;
	int i;
	(void)state;
	rt_init(&t, 1);
	x = rt_t(&t, "[3]", "int64", "[a, b, 0]");
	y = rt_t(&t, "[3]", "int64", "[2, a, 5]");
	eq = run2(&t, "Equal", x, y);
	snprintf(want, sizeof(want), "[%s, %s, 0]", canon(&t, "a == 2"), canon(&t, "a == b"));
	assert_string_equal(rt_value(&t, &eq), want);
	lt = run2(&t, "Less", x, y);
	snprintf(want, sizeof(want), "[%s, %s, 1]", canon(&t, "a < 2"), canon(&t, "b < a"));
	assert_string_equal(rt_value(&t, &lt), want);
	nt = unary(&t, "Not", eq);
	snprintf(want, sizeof(want), "[%s, %s, 1]", canon(&t, "a != 2"), canon(&t, "a != b"));
	assert_string_equal(rt_value(&t, &nt), want);
	/* a == 2 && a < 2 and a == b && b < a never hold: decided */
	an = run2(&t, "And", eq, lt);
	assert_string_equal(rt_value(&t, &an), "[0, 0, 0]");
	orr = run2(&t, "Or", eq, lt);
	snprintf(want, sizeof(want), "[%s, %s, 1]", canon(&t, "a == 2 || a < 2"),
	         canon(&t, "a == b || b < a"));
	assert_string_equal(rt_value(&t, &orr), want);
	xr = run2(&t, "Xor", eq, lt);
	assert_string_equal(rt_shape(&t, &xr), "[3]");
	/* an int to bool is a comparison with 0 */
	v = cast(&t, rt_t(&t, "[3]", "int64", "[a - 2, 0, 3]"), "bool");
	snprintf(want, sizeof(want), "[%s, 0, 1]", canon(&t, "a != 2"));
	assert_string_equal(rt_value(&t, &v), want);
	/* a predicate is no number; bool to bool keeps it */
	v = cast(&t, eq, "int64");
	assert_string_equal(rt_value(&t, &v), "none");
	v = cast(&t, eq, "float32");
	assert_string_equal(rt_value(&t, &v), "none");
	v = cast(&t, eq, "bool");
	assert_string_equal(rt_value(&t, &v), rt_value(&t, &eq));
	{
		sym_tval in[3] = {eq, x, y};
		v = run1(&t, "Where", 3, in, 0, NULL);
		/* a == 2 ? a : 2 is 2, a == b ? b : a is a */
		assert_string_equal(rt_value(&t, &v), "[2, a, 5]");
	}
	/* a rule that computes numbers does not see the predicates */
	v = run2(&t, "Add", eq, eq);
	assert_string_equal(rt_shape(&t, &v), "[3]");
	assert_string_equal(rt_value(&t, &v), "none");
	/* moved, not computed: Concat keeps them */
	{
		sym_tval in[2] = {eq, nt};
		sym_attr ax = rt_i(&t, "axis", 0);
		char w2[512];
		v = run1(&t, "Concat", 2, in, 1, &ax);
		snprintf(want, sizeof(want), "%s", rt_value(&t, &eq));
		snprintf(w2, sizeof(w2), "%.*s, %s", (int)strlen(want) - 1, want, rt_value(&t, &nt) + 1);
		assert_string_equal(rt_value(&t, &v), w2);
	}
	rt_rand_seed(&st);
	for (i = 0; i < 300; i++) {
		long long va = rt_rand(&st, 1, 6), vb = rt_rand(&st, 1, 6);
		long long xs[3] = {va, vb, 0}, ys[3] = {2, va, 5};
		size_t k;
		for (k = 0; k < 3; k++) {
			int e = xs[k] == ys[k], l = xs[k] < ys[k];
			if (truth_at(&t, eq.value[k], va, vb) != e ||
			    truth_at(&t, lt.value[k], va, vb) != l ||
			    truth_at(&t, nt.value[k], va, vb) != !e ||
			    truth_at(&t, an.value[k], va, vb) != (e && l) ||
			    truth_at(&t, orr.value[k], va, vb) != (e || l) ||
			    truth_at(&t, xr.value[k], va, vb) != (e != l))
				fail_msg("element %zu at a=%lld b=%lld: Equal %d, Less %d, and the "
				         "predicates disagree",
				         k, va, vb, e, l);
		}
	}
	rt_free(&t);
}

/* Where on a comparison of its own two elements is their max or min (as
 * torch exports max(a, b) of shapes: Greater -> Where); any other
 * predicate condition gives no value.  At random points the value is the
 * element the condition picks. */
static void where_on_a_comparison_of_its_elements_is_a_max_or_a_min(void **state)
{
	/* Where(op(x, y), x, y), or the elements px, py picked */
	static const struct {
		const char *op, *x, *y, *want, *px, *py;
	} v[] = {
	    {"Greater", "a", "b", "max(a, b)", NULL, NULL},
	    {"GreaterOrEqual", "a", "b", "max(a, b)", NULL, NULL},
	    {"Less", "a", "b", "min(a, b)", NULL, NULL},
	    {"LessOrEqual", "a", "b", "min(a, b)", NULL, NULL},
	    {"Greater", "b", "a", "max(a, b)", NULL, NULL},
	    {"Less", "2*a", "b + 3", "min(2*a, b + 3)", NULL, NULL},
	    {"Greater", "a", "b + 1", "max(a, b + 1)", NULL, NULL},
	    {"Equal", "a", "b", "b", NULL, NULL},
	    /* a < b picks the larger b: a max too */
	    {"Less", "a", "b", "max(a, b)", "b", "a"},
	    {"LessOrEqual", "a", "b - 1", "min(a, b)", "a", "b"},
	    /* a > b + 1 picks b at a == b + 1 */
	    {"Greater", "a", "b + 1", NULL, "a", "b"},
	    {"Equal", "a", "b", NULL, "a", "b + 1"},
	    {"Less", "a", "2*b", NULL, "a", "b"},
	};
	rt t;
	size_t i;
	uint64_t st;
	(void)state;
	rt_init(&t, 1);
	rt_rand_seed(&st);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char xs[32], ys[32], want[64];
		sym_tval x, y, in[3], w;
		int j;
		snprintf(xs, sizeof(xs), "[%s]", v[i].x);
		snprintf(ys, sizeof(ys), "[%s]", v[i].y);
		x = rt_t(&t, "[1]", "int64", xs), y = rt_t(&t, "[1]", "int64", ys);
		in[0] = run2(&t, v[i].op, x, y);
		if (v[i].px) {
			snprintf(xs, sizeof(xs), "[%s]", v[i].px);
			snprintf(ys, sizeof(ys), "[%s]", v[i].py);
			x = rt_t(&t, "[1]", "int64", xs), y = rt_t(&t, "[1]", "int64", ys);
		}
		in[1] = x, in[2] = y;
		w = run1(&t, "Where", 3, in, 0, NULL);
		if (!v[i].want) {
			assert_string_equal(rt_value(&t, &w), "none");
			continue;
		}
		snprintf(want, sizeof(want), "[%s]", canon(&t, v[i].want));
		assert_string_equal(rt_value(&t, &w), want);
		for (j = 0; j < 100; j++) {
			long long va = rt_rand(&st, 1, 6), vb = rt_rand(&st, 1, 6);
			const sym_expr *syms[2] = {sym_expr_symbol(t.ctx, "a"), sym_expr_symbol(t.ctx, "b")};
			long long vals[2] = {va, vb}, cx, cy, cw;
			int c = truth_at(&t, in[0].value[0], va, vb);
			assert_int_equal(
			    sym_expr_get_si(sym_expr_eval_si(t.ctx, x.value[0], 2, syms, vals), &cx), 1);
			assert_int_equal(
			    sym_expr_get_si(sym_expr_eval_si(t.ctx, y.value[0], 2, syms, vals), &cy), 1);
			assert_int_equal(
			    sym_expr_get_si(sym_expr_eval_si(t.ctx, w.value[0], 2, syms, vals), &cw), 1);
			if (c < 0 || cw != (c ? cx : cy))
				fail_msg("Where(%s(%s, %s)) at a=%lld b=%lld is %lld, picks %lld", v[i].op,
				         v[i].x, v[i].y, va, vb, cw, c ? cx : cy);
		}
	}
	rt_free(&t);
}

/* Values of rank 2 through broadcasting, Where, Reduce and Split. */
static void values_of_any_rank_through_elementwise_and_reduce(void **state)
{
	rt t;
	char want[256];
	sym_tval m, v, in[3], out[2];
	sym_attr a[2];
	(void)state;
	rt_init(&t, 1);
	m = rt_t(&t, "[2, 3]", "int64", "[a, 1, 2, b, 3, 4]");
	v = run2(&t, "Add", m, rt_t(&t, "[3]", "int64", "[10, 20, 30]"));
	assert_string_equal(rt_value(&t, &v), "[a + 10, 21, 32, b + 10, 23, 34]");
	v = run2(&t, "Mul", m, rt_t(&t, "[2, 1]", "int64", "[2, 3]"));
	assert_string_equal(rt_value(&t, &v), "[2*a, 2, 4, 3*b, 9, 12]");
	in[0] = rt_t(&t, "[2, 1]", "bool", "[1, 0]"), in[1] = m, in[2] = rt_t(&t, "[]", "int64", "[0]");
	v = run1(&t, "Where", 3, in, 0, NULL);
	assert_string_equal(rt_value(&t, &v), "[a, 1, 2, 0, 0, 0]");
	in[0] = m, in[1] = rt_t(&t, "[1]", "int64", "[1]");
	a[0] = rt_i(&t, "keepdims", 0);
	v = run1(&t, "ReduceSum", 2, in, 1, a);
	assert_string_equal(rt_value(&t, &v), "[a + 3, b + 7]");
	in[1] = rt_t(&t, "[1]", "int64", "[0]");
	v = run1(&t, "ReduceProd", 2, in, 1, a);
	assert_string_equal(rt_value(&t, &v), "[a*b, 3, 8]");
	/* a, b >= 1: a == 0 is decided, a == 2 is not */
	v = run2(&t, "Equal", m, rt_t(&t, "[3]", "int64", "[0, 1, 2]"));
	assert_string_equal(rt_value(&t, &v), "[0, 1, 1, 0, 0, 0]");
	v = run2(&t, "Equal", m, rt_t(&t, "[3]", "int64", "[2, 1, 2]"));
	snprintf(want, sizeof(want), "[%s, 1, 1, %s, 0, 0]", canon(&t, "a == 2"), canon(&t, "b == 2"));
	assert_string_equal(rt_value(&t, &v), want);
	v = run2(&t, "Equal", rt_t(&t, "[2, 2]", "int64", "[1, 2, 3, 4]"),
	         rt_t(&t, "[2]", "int64", "[1, 4]"));
	assert_string_equal(rt_value(&t, &v), "[1, 0, 0, 1]");
	v = unary(&t, "Not", v);
	assert_string_equal(rt_value(&t, &v), "[0, 1, 1, 0]");
	/* stacking on the last axis interleaves */
	in[0] = rt_t(&t, "[2]", "int64", "[a, b]"), in[1] = rt_t(&t, "[2]", "int64", "[1, 2]");
	a[0] = rt_i(&t, "axis", 1);
	v = run1(&t, "Stack", 2, in, 1, a);
	assert_string_equal(rt_shape(&t, &v), "[2, 2]");
	assert_string_equal(rt_value(&t, &v), "[a, 1, b, 2]");
	/* Split on axis 1 of a rank-2 value */
	in[0] = m;
	a[0] = rt_i(&t, "axis", 1);
	in[1] = rt_t(&t, "[2]", "int64", "[1, 2]");
	assert_int_equal(rt_run(&t, "Split", NULL, 2, in, 1, a, 2, out), 0);
	assert_string_equal(rt_value(&t, &out[0]), "[a, b]");
	assert_string_equal(rt_value(&t, &out[1]), "[1, 2, 3, 4]");
	/* Slice of the inner axis, backwards */
	{
		sym_tval s[5];
		s[0] = m;
		s[1] = rt_t(&t, "[1]", "int64", "[2]");
		s[2] = rt_t(&t, "[1]", "int64", "[0]");
		s[3] = rt_t(&t, "[1]", "int64", "[1]");
		s[4] = rt_t(&t, "[1]", "int64", "[-1]");
		v = run1(&t, "Slice", 5, s, 0, NULL);
	}
	assert_string_equal(rt_shape(&t, &v), "[2, 2]");
	assert_string_equal(rt_value(&t, &v), "[2, 1, 4, 3]");
	rt_free(&t);
}

/* ceil(float(h) / 32) * 32 back to int64: exact, with the guard that
 * float32 holds h exactly. */
static void float_ceil_to_a_multiple_is_exact_up_to_2_pow_24(void **state)
{
	rt t;
	sym_tval v;
	char want[128];
	(void)state;
	rt_init(&t, 1);
	v = cast(&t, rt_t(&t, "[]", "int64", "[h]"), "float32");
	v = run2(&t, "Div", v, rt_t(&t, "[]", "float32", "[32]"));
	v = unary(&t, "Ceil", v);
	v = run2(&t, "Mul", v, rt_t(&t, "[]", "float32", "[32]"));
	v = cast(&t, v, "int64");
	snprintf(want, sizeof(want), "[%s]", canon(&t, "32*((h + 31)//32)"));
	assert_string_equal(rt_value(&t, &v), want);
	assert_string_equal(rt_guards(&t), "expect h <= 16777216");
	rt_free(&t);
	/* a dim known to fit needs no guard; numbers fold */
	rt_init(&t, 1);
	v = cast(&t, rt_t(&t, "[]", "int64", "[33]"), "float32");
	v = run2(&t, "Div", v, rt_t(&t, "[]", "float32", "[32]"));
	v = cast(&t, run2(&t, "Mul", unary(&t, "Ceil", v), rt_t(&t, "[]", "float32", "[32]")), "int64");
	assert_string_equal(rt_value(&t, &v), "[64]");
	assert_string_equal(rt_guards(&t), "");
	rt_free(&t);
}

/* Resize sizes floor(h * scale) computed from the input's shape (the
 * detection models' transform): exact where float32 is, a runtime-bound
 * symbol with the rounding interval as its range where it is not. */
static void resize_sizes_from_floor_of_h_times_a_scale(void **state)
{
	rt t;
	sym_tval x, s, v, in[4], parts[3];
	sym_attr a;
	const sym_expr *h, *lo, *hi;
	long long c, at;
	char want[128];
	(void)state;
	rt_init(&t, 1);
	x = rt_t(&t, "[1, 3, h, w]", NULL, NULL);
	/* 1.5 = 3/2: h*1.5 is exact while 3*h fits the float32 mantissa */
	v = run2(&t, "Mul", cast(&t, rt_t(&t, "[1]", "int64", "[h]"), "float32"),
	         rt_t(&t, "[]", "float32", "[3/2]"));
	v = cast(&t, unary(&t, "Floor", v), "int64");
	parts[0] = rt_t(&t, "[2]", "int64", "[1, 3]");
	parts[1] = v;
	parts[2] = rt_t(&t, "[1]", "int64", "[w]");
	a = rt_i(&t, "axis", 0);
	s = run1(&t, "Concat", 3, parts, 1, &a);
	in[0] = x, in[1] = rt_absent(), in[2] = rt_absent(), in[3] = s;
	v = run1(&t, "Resize", 4, in, 0, NULL);
	snprintf(want, sizeof(want), "[1, 3, %s, w]", canon(&t, "3*h//2"));
	assert_string_equal(rt_shape(&t, &v), want);
	assert_string_equal(rt_guards(&t), "expect h <= 5592405");
	rt_free(&t);

	/* 0.1f * h rounds once; float32's floor is the exact one unless the
	 * rounding reaches the next integer, which an expect guard rules out
	 * (it holds at h = 10 and h = 1000, fails past float32's precision) */
	rt_init(&t, 1);
	v = run2(&t, "Mul", cast(&t, rt_t(&t, "[1]", "int64", "[h]"), "float32"),
	         rt_t(&t, "[]", "float32", "[13421773/134217728]"));
	v = cast(&t, unary(&t, "Floor", v), "int64");
	assert_int_equal(t.inf.nfresh, 0);
	snprintf(want, sizeof(want), "[%s]", canon(&t, "13421773*h//134217728"));
	assert_string_equal(rt_value(&t, &v), want);
	assert_int_equal(value_at(&t, &v, 0, "h", 10), 1);
	assert_int_equal(value_at(&t, &v, 0, "h", 25), 2);
	h = sym_expr_symbol(t.ctx, "h");
	assert_true(t.inf.nguards >= 1);
	at = 10;
	assert_ptr_equal(sym_expr_eval_si(t.ctx, t.inf.guards[t.inf.nguards - 1].pred, 1, &h, &at),
	                 sym_expr_bool(t.ctx, 1));
	at = 1000;
	assert_ptr_equal(sym_expr_eval_si(t.ctx, t.inf.guards[t.inf.nguards - 1].pred, 1, &h, &at),
	                 sym_expr_bool(t.ctx, 1));
	at = 99999999;
	assert_ptr_equal(sym_expr_eval_si(t.ctx, t.inf.guards[t.inf.nguards - 1].pred, 1, &h, &at),
	                 sym_expr_bool(t.ctx, 0));
	rt_free(&t);

	/* h * (320 * (1/h)) is 320 exactly and 319.99997 in float32 at h = 25:
	 * no guard can rule that out at typical sizes, so the floor is a
	 * runtime-bound symbol whose range is the floor of the error interval */
	rt_init(&t, 1);
	a = rt_i(&t, "axis", 0);
	v = unary(&t, "Reciprocal", cast(&t, rt_t(&t, "[]", "int64", "[h]"), "float32"));
	v = run2(&t, "Mul", v, rt_t(&t, "[]", "float32", "[320]"));
	v = run2(&t, "Mul", cast(&t, rt_t(&t, "[1]", "int64", "[h]"), "float32"), v);
	v = cast(&t, unary(&t, "Floor", v), "int64");
	assert_int_equal(t.inf.nfresh, 1);
	assert_ptr_equal(v.value[0], t.inf.fresh_syms[0]);
	assert_non_null(strstr(t.inf.fresh_src[0], "rounding"));
	h = sym_expr_symbol(t.ctx, "h");
	at = 25;
	lo = sym_expr_eval_si(t.ctx, t.inf.fresh_lo[0], 1, &h, &at);
	hi = sym_expr_eval_si(t.ctx, t.inf.fresh_hi[0], 1, &h, &at);
	assert_int_equal(sym_expr_get_si(lo, &c), 1);
	assert_int_equal(c, 319);
	assert_int_equal(sym_expr_get_si(hi, &c), 1);
	assert_int_equal(c, 320);
	in[0] = rt_t(&t, "[1, 3, h, w]", NULL, NULL), in[1] = rt_absent(), in[2] = rt_absent();
	parts[0] = rt_t(&t, "[3]", "int64", "[1, 3, w]");
	parts[1] = v;
	in[3] = run1(&t, "Concat", 2, parts, 1, &a);
	v = run1(&t, "Resize", 4, in, 0, NULL);
	assert_string_equal(rt_shape(&t, &v), "[1, 3, w, u0]");
	rt_free(&t);
}

/* Numbers fold as float32 computes them: 25 * (320 * (1/25)) is 320 as a
 * rational but 319.99997 in float32, so its floor is 319. */
static void folded_float_numbers_are_what_float32_computes(void **state)
{
	rt t;
	sym_tval v;
	(void)state;
	rt_init(&t, 1);
	v = unary(&t, "Reciprocal", cast(&t, rt_t(&t, "[]", "int64", "[25]"), "float32"));
	v = run2(&t, "Mul", v, rt_t(&t, "[]", "float32", "[320]"));
	v = run2(&t, "Mul", cast(&t, rt_t(&t, "[]", "int64", "[25]"), "float32"), v);
	v = cast(&t, unary(&t, "Floor", v), "int64");
	assert_string_equal(rt_value(&t, &v), "[319]");
	/* 0.1f is 13421773/2**27; 10 * 0.1f rounds to 1 */
	v = run2(&t, "Mul", rt_t(&t, "[]", "float32", "[10]"),
	         rt_t(&t, "[]", "float32", "[13421773/134217728]"));
	assert_string_equal(rt_value(&t, &v), "[1]");
	/* symbolic: 320/h is not a float32 number: the floor of h*(320/h)
	 * is 319 or 320 at run time, never taken as 320 */
	v = unary(&t, "Reciprocal", cast(&t, rt_t(&t, "[]", "int64", "[h]"), "float32"));
	v = run2(&t, "Mul", v, rt_t(&t, "[]", "float32", "[320]"));
	v = run2(&t, "Mul", cast(&t, rt_t(&t, "[]", "int64", "[h]"), "float32"), v);
	v = cast(&t, unary(&t, "Floor", v), "int64");
	assert_string_equal(rt_value(&t, &v), "[u0]");
	assert_int_equal(sym_prove(t.ctx, t.facts, sym_expr_from_str(t.ctx, "u0 >= 319 && u0 <= 320")),
	                 SYM_TRUE);
	rt_free(&t);
}

/* Round goes half to even, on numbers and on exact symbolic values. */
static void round_goes_half_to_even(void **state)
{
	rt t;
	sym_tval v;
	static const long long want[][2] = {{1, 0}, {3, 2}, {5, 2}, {7, 4}, {9, 4}, {4, 2}};
	size_t i;
	(void)state;
	rt_init(&t, 1);
	v = unary(&t, "Round", rt_t(&t, "[6]", "float32", "[1/2, 3/2, 5/2, -1/2, -3/2, 9/4]"));
	assert_string_equal(rt_value(&t, &v), "[0, 2, 2, 0, -2, 2]");
	/* round(h / 2) */
	v = run2(&t, "Div", cast(&t, rt_t(&t, "[]", "int64", "[h]"), "float32"),
	         rt_t(&t, "[]", "float32", "[2]"));
	v = cast(&t, unary(&t, "Round", v), "int64");
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(value_at(&t, &v, 0, "h", want[i][0]), want[i][1]);
	rt_free(&t);
}

/* A cast from float to an integer type truncates toward zero. */
static void casting_negative_floats_to_integers_truncates_toward_zero(void **state)
{
	rt t;
	sym_tval v;
	long long h;
	(void)state;
	rt_init(&t, 1);
	v = cast(&t, rt_t(&t, "[4]", "float32", "[-5/2, -1/2, 5/2, -3]"), "int64");
	assert_string_equal(rt_value(&t, &v), "[-2, 0, 2, -3]");
	/* (h - 5) / 2 has no known sign: the sign-aware form */
	v = run2(&t, "Sub", rt_t(&t, "[]", "int64", "[h]"), rt_t(&t, "[]", "int64", "[5]"));
	v = run2(&t, "Div", cast(&t, v, "float32"), rt_t(&t, "[]", "float32", "[2]"));
	v = cast(&t, v, "int64");
	assert_int_equal(value_at(&t, &v, 0, "h", 2), -1);
	assert_int_equal(value_at(&t, &v, 0, "h", 4), 0);
	assert_int_equal(value_at(&t, &v, 0, "h", 5), 0);
	assert_int_equal(value_at(&t, &v, 0, "h", 8), 1);
	assert_int_equal(value_at(&t, &v, 0, "h", 1), -2);
	/* -h / 2 is negative: a ceiling */
	v = unary(&t, "Neg", cast(&t, rt_t(&t, "[]", "int64", "[h]"), "float32"));
	v = cast(&t, run2(&t, "Div", v, rt_t(&t, "[]", "float32", "[2]")), "int64");
	assert_string_equal(rt_value(&t, &v), "[-(h//2)]");
	for (h = 1; h <= 6; h++)
		assert_int_equal(value_at(&t, &v, 0, "h", h), -(h / 2));
	rt_free(&t);
}

/* Float values are kept only as exact as they are: a computed float fed
 * to a rule that needs it exactly is an error, not a guess. */
static void a_rounded_float_value_is_not_taken_as_exact(void **state)
{
	rt t;
	sym_tval v, in[3];
	(void)state;
	rt_init(&t, 1);
	v = run2(&t, "Div", cast(&t, rt_t(&t, "[]", "int64", "[h]"), "float32"),
	         rt_t(&t, "[]", "float32", "[3]"));
	in[0] = rt_t(&t, "[]", "float32", "[0]"), in[1] = v, in[2] = rt_t(&t, "[]", "float32", "[1]");
	assert_int_equal(rt_run(&t, "Range", NULL, 3, in, 0, NULL, 1, &v), -1);
	assert_non_null(strstr(sym_ctx_last_message(t.ctx), "known exactly"));
	rt_free(&t);
}

/* ---- property: the records hold for what float32 really computes ------- */

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

enum {
	P_MULC,
	P_DIVC,
	P_ADDC,
	P_SUBC,
	P_RSUBC,
	P_MULH,
	P_RECIP,
	P_MINC,
	P_MAXC,
	P_FLOOR,
	P_CEIL,
	P_ROUND,
	P_NEG,
	P_OPS
};

static const char *const ctext[] = {
    "2", "1/2", "3", "3/2", "13421773/134217728", "7", "320", "11184811/33554432", "32", "5/4"};
static const float cval[] = {2.f, .5f, 3.f, 1.5f, 0.1f, 7.f, 320.f, 1.f / 3.f, 32.f, 1.25f};

static float apply_f(int op, float x, float c, float h)
{
	volatile float a = x, b = c, r;
	switch (op) {
	case P_MULC:
		r = a * b;
		break;
	case P_DIVC:
		r = a / b;
		break;
	case P_ADDC:
		r = a + b;
		break;
	case P_SUBC:
		r = a - b;
		break;
	case P_RSUBC:
		r = b - a;
		break;
	case P_MULH:
		r = a * h;
		break;
	case P_RECIP:
		r = 1.0f / a;
		break;
	case P_MINC:
		r = a < b ? a : b;
		break;
	case P_MAXC:
		r = a > b ? a : b;
		break;
	case P_FLOOR:
		r = floorf(a);
		break;
	case P_CEIL:
		r = ceilf(a);
		break;
	case P_ROUND:
		r = nearbyintf(a);
		break;
	default:
		r = -a;
		break;
	}
	return r;
}

static sym_tval apply_sym(rt *t, int op, sym_tval x, int c, sym_tval hf)
{
	static const char *const names[] = {"Mul", "Div", "Add",   "Sub",  "Sub",   "Mul", "Reciprocal",
	                                    "Min", "Max", "Floor", "Ceil", "Round", "Neg"};
	sym_tval k = rt_t(t, "[]", "float32", NULL);
	char buf[64];
	snprintf(buf, sizeof(buf), "[%s]", ctext[c]);
	k = rt_t(t, "[]", "float32", buf);
	if (op == P_RSUBC)
		return run2(t, "Sub", k, x);
	if (op == P_MULH)
		return run2(t, "Mul", x, hf);
	if (op >= P_RECIP && op != P_MINC && op != P_MAXC)
		return unary(t, names[op], x);
	return run2(t, names[op], x, k);
}

/* Evaluates e at the bindings; returns 0 when it does not evaluate to a
 * constant. */
static int eval_q(rt *t, const sym_expr *e, size_t n, const sym_expr *const *syms, const long long *vals,
                  mpq_t out)
{
	const sym_expr *r = sym_expr_eval_si(t->ctx, e, n, syms, vals);
	if (!r) {
		sym_ctx_clear_error(t->ctx);
		return 0;
	}
	return sym_expr_get_mpq(r, out);
}

static int holds(rt *t, const sym_expr *p, size_t n, const sym_expr *const *syms, const long long *vals)
{
	const sym_expr *r;
	if (!p)
		return 1;
	r = sym_expr_eval_si(t->ctx, p, n, syms, vals);
	if (!r) {
		sym_ctx_clear_error(t->ctx);
		return 0;
	}
	return r == sym_expr_bool(t->ctx, 1);
}

/* Whether no guard is false at the bindings (one that does not evaluate
 * yet, over a symbol not bound, counts as holding). */
static int guards_hold(rt *t, size_t n, const sym_expr *const *syms, const long long *vals)
{
	size_t g;
	for (g = 0; g < t->inf.nguards; g++) {
		const sym_expr *r = sym_expr_eval_si(t->ctx, t->inf.guards[g].pred, n, syms, vals);
		if (!r)
			sym_ctx_clear_error(t->ctx);
		else if (r == sym_expr_bool(t->ctx, 0))
			return 0;
	}
	return 1;
}

/* Random chains of float ops on float(h), rounded to an integer at the
 * end: at random h, every element claimed exact is what float32 computes,
 * every rounded one is within its bound, every runtime-bound symbol's
 * range holds the float32 result, and the final integer is float32's
 * wherever the guards hold. */
static void float_records_hold_for_float32_results(void **state)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	const char *env = getenv("SYM_TEST_SEED");
	int iter, checked = 0, exact = 0, rounded = 0, ranges = 0;
	(void)state;
	if (env)
		seed ^= strtoull(env, NULL, 10) * 0x2545f4914f6cdd1dULL;
	for (iter = 0; iter < 300; iter++) {
		rt t;
		sym_tval hf, v[8];
		int ops[8], cs[8], fresh[8], n = 1 + (int)(next(&seed) % 5), k, last,
		                             fin = (int)(next(&seed) % 4), pt;
		size_t nf;
		rt_init(&t, 1);
		hf = cast(&t, rt_t(&t, "[]", "int64", "[h]"), "float32");
		v[0] = hf;
		for (k = 0; k < n; k++) {
			ops[k] = (int)(next(&seed) % P_OPS);
			cs[k] = (int)(next(&seed) % (sizeof(cval) / sizeof(cval[0])));
			nf = t.inf.nfresh;
			v[k + 1] = apply_sym(&t, ops[k], v[k], cs[k], hf);
			fresh[k] = t.inf.nfresh > nf ? (int)nf : -1;
			if (!v[k + 1].has_value)
				break;
		}
		last = k < n ? k : n;
		if (last == n) {
			/* the final rounding to int64 */
			nf = t.inf.nfresh;
			if (fin < 3)
				v[n + 1] = cast(&t,
				                unary(&t,
				                      fin == 0   ? "Floor"
				                      : fin == 1 ? "Ceil"
				                                 : "Round",
				                      v[n]),
				                "int64");
			else
				v[n + 1] = cast(&t, v[n], "int64");
			fresh[n] = t.inf.nfresh > nf ? (int)nf : -1;
		}
		for (pt = 0; pt < 20; pt++) {
			long long hv = next(&seed) % 10 < 7 ? 1 + (long long)(next(&seed) % 4096)
			                                    : 1 + (long long)(next(&seed) % (1LL << 26));
			const sym_expr *syms[16];
			long long vals[16];
			size_t nb = 1, g;
			float y = (float)hv;
			mpq_t q, w;
			int ok = 1;
			syms[0] = sym_expr_symbol(t.ctx, "h"), vals[0] = hv;
			mpq_init(q), mpq_init(w);
			for (k = 0; k < last && ok; k++) {
				const sym_tval *o = &v[k + 1];
				sym_fmeta m = o->fmeta ? o->fmeta[0] : (sym_fmeta){0, SYM_FQ_NONE, NULL, 0};
				y = apply_f(ops[k], y, cval[cs[k]], (float)hv);
				/* past 2**62 an integer result does not fit the bindings */
				if (!isfinite(y) || fabsf(y) > 4e18f || !guards_hold(&t, nb, syms, vals)) {
					ok = 0;
					break;
				}
				if (fresh[k] >= 0) {
					/* a runtime-bound symbol: its range holds float32's value */
					mpq_set_d(w, y);
					if (holds(&t, m.cond, nb, syms, vals)) {
						assert_true(
						    eval_q(&t, t.inf.fresh_lo[fresh[k]], nb, syms, vals, q));
						assert_true(mpq_cmp(q, w) <= 0);
						assert_true(
						    eval_q(&t, t.inf.fresh_hi[fresh[k]], nb, syms, vals, q));
						assert_true(mpq_cmp(q, w) >= 0);
						ranges++;
					}
					syms[nb] = t.inf.fresh_syms[fresh[k]], vals[nb++] = (long long)y;
					continue;
				}
				if (!holds(&t, m.cond, nb, syms, vals) ||
				    !eval_q(&t, o->value[0], nb, syms, vals, q))
					continue;
				mpq_set_d(w, y);
				if (m.err == 0) {
					if (!mpq_equal(q, w))
						fail_msg(
						    "step %d (op %d, c %s) at h=%lld: exact %s, float32 %.9g",
						    k, ops[k], ctext[cs[k]], hv, rt_value(&t, o), (double)y);
					exact++;
				} else {
					double vd = mpq_get_d(q), bound = m.err * ldexp(1.0, -22) * fabs(vd);
					if (fabs((double)y - vd) > bound * (1 + 1e-9) + 1e-300)
						fail_msg(
						    "step %d (op %d) at h=%lld: %.17g outside %.17g +- %.3g",
						    k, ops[k], hv, (double)y, vd, bound);
					rounded++;
				}
				checked++;
			}
			if (ok && last == n && v[n + 1].has_value) {
				long long want = (long long)(fin == 0   ? floorf(y)
				                             : fin == 1 ? ceilf(y)
				                             : fin == 2 ? nearbyintf(y)
				                                        : y);
				if (fresh[n] >= 0)
					syms[nb] = t.inf.fresh_syms[fresh[n]], vals[nb++] = want;
				for (g = 0; g < t.inf.nguards && ok; g++)
					ok = holds(&t, t.inf.guards[g].pred, nb, syms, vals);
				if (ok && fabsf(y) < 1e15f &&
				    eval_q(&t, v[n + 1].value[0], nb, syms, vals, q)) {
					mpq_set_si(w, want, 1);
					if (!mpq_equal(q, w))
						fail_msg("final at h=%lld: symshape %s, float32 %lld", hv,
						         rt_value(&t, &v[n + 1]), want);
					checked++;
				}
			}
			mpq_clear(q), mpq_clear(w);
		}
		rt_free(&t);
	}
	/* every kind of claim was tested */
	assert_true(checked > 1000 && exact > 100 && rounded > 100 && ranges > 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(integer_values_past_their_type_are_not_known),
	    cmocka_unit_test(computed_pads_flow_through_a_rank_2_value),
	    cmocka_unit_test(values_of_any_rank_through_elementwise_and_reduce),
	    cmocka_unit_test(undecided_comparisons_of_shape_values_are_predicates),
	    cmocka_unit_test(where_on_a_comparison_of_its_elements_is_a_max_or_a_min),
	    cmocka_unit_test(float_ceil_to_a_multiple_is_exact_up_to_2_pow_24),
	    cmocka_unit_test(resize_sizes_from_floor_of_h_times_a_scale),
	    cmocka_unit_test(folded_float_numbers_are_what_float32_computes),
	    cmocka_unit_test(round_goes_half_to_even),
	    cmocka_unit_test(casting_negative_floats_to_integers_truncates_toward_zero),
	    cmocka_unit_test(a_rounded_float_value_is_not_taken_as_exact),
	    cmocka_unit_test(float_records_hold_for_float32_results),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
